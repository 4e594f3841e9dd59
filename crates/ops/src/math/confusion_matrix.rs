//! `tf.math.confusion_matrix`: the `[n, n]` matrix counting (or summing the weights of) each
//! (label, prediction) pair, built as TensorFlow builds it: class ids cast to int64 and
//! checked by `Assert` ops, then one `ScatterNd` of ones (or weights) at `[label, prediction]`.

use weir_graph::{DType, Error, Output, Result};

use crate::array::{self, constant};
use crate::control_flow::{assert_less, assert_non_negative, with_dependencies};
use crate::math::{self, Reduce};

/// The options of `tf.math.confusion_matrix(labels, predictions, num_classes=None,
/// weights=None, dtype=tf.int32, name=None)`.
///
/// Rows are the true labels and columns the predictions. Both are 1-D class ids of one shape
/// (a trailing dim of 1 on either is squeezed); ids that are negative or not below
/// `num_classes` fail the run with InvalidArgument, as TensorFlow's asserts do. Without
/// `num_classes` the matrix has `max(labels, predictions) + 1` rows.
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::array::constant;
/// # use weir_ops::math::ConfusionMatrix;
/// # use weir_session::Session;
/// let g = Graph::new();
/// let cm = ConfusionMatrix::new(constant(&g, [1i32, 2, 4])?, constant(&g, [2i32, 2, 4])?)
///     .num_classes(5)
///     .dtype(DType::F32)
///     .build()?;
/// let v = Session::new(&g)?.eval(&cm)?.to_vec::<f32>()?;
/// assert_eq!(v[5 + 2], 1.0); // label 1 predicted as 2
/// assert_eq!(v[24], 1.0);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ConfusionMatrix {
    labels: Output,
    predictions: Output,
    num_classes: Option<usize>,
    weights: Option<Output>,
    dtype: DType,
    name: Option<String>,
}

impl ConfusionMatrix {
    /// The confusion matrix of `predictions` against `labels`, with TensorFlow's defaults
    /// (int32 counts, classes from the data).
    pub fn new(labels: impl Into<Output>, predictions: impl Into<Output>) -> ConfusionMatrix {
        ConfusionMatrix {
            labels: labels.into(),
            predictions: predictions.into(),
            num_classes: None,
            weights: None,
            dtype: DType::I32,
            name: None,
        }
    }

    /// The number of classes (the matrix's size); ids must be below it.
    pub fn num_classes(mut self, n: usize) -> ConfusionMatrix {
        self.num_classes = Some(n);
        self
    }

    /// What each pair adds instead of 1: a tensor of the predictions' shape.
    pub fn weights(mut self, weights: impl Into<Output>) -> ConfusionMatrix {
        self.weights = Some(weights.into());
        self
    }

    /// The matrix's dtype (default int32).
    pub fn dtype(mut self, dtype: DType) -> ConfusionMatrix {
        self.dtype = dtype;
        self
    }

    /// The name scope (default `confusion_matrix`).
    pub fn name(mut self, name: &str) -> ConfusionMatrix {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the ops; the matrix.
    pub fn build(self) -> Result<Output> {
        let g = crate::util::same_graph(&[&self.labels, &self.predictions])?.clone();
        let _s = g.name_scope(self.name.as_deref().unwrap_or("confusion_matrix"));
        let (labels, predictions) = squeeze_pair(self.labels, self.predictions)?;
        let predictions = math::cast(&predictions, DType::I64)?;
        let labels = math::cast(&labels, DType::I64)?;
        let check = assert_non_negative(&labels, Some("`labels` contains negative values"))?;
        let labels = with_dependencies(&[check], &labels)?;
        let check =
            assert_non_negative(&predictions, Some("`predictions` contains negative values"))?;
        let predictions = with_dependencies(&[check], &predictions)?;
        let (labels, predictions, num_classes) = match self.num_classes {
            None => {
                let top = math::maximum(
                    Reduce::max().build(&predictions)?,
                    Reduce::max().build(&labels)?,
                )?;
                let n = math::add(&top, constant(&g, 1i64)?)?;
                (labels, predictions, n)
            }
            Some(n) => {
                let n = math::cast(constant(&g, n as i32)?, DType::I64)?;
                let check = assert_less(&labels, &n, Some("`labels` out of bound"))?;
                let labels = with_dependencies(&[check], &labels)?;
                let check = assert_less(&predictions, &n, Some("`predictions` out of bound"))?;
                let predictions = with_dependencies(&[check], &predictions)?;
                (labels, predictions, n)
            }
        };
        let values = match self.weights {
            Some(w) => {
                let (ps, ws) = (predictions.shape(), w.shape());
                if !ps.is_compatible_with(&ws) {
                    return Err(Error::invalid_argument(format!(
                        "Shapes {} and {} are incompatible",
                        ps.python_str(),
                        ws.python_str()
                    )));
                }
                math::cast(&w, self.dtype)?
            }
            None => {
                let one = constant(&g, weir_graph::scalar_of(self.dtype, 1.0)?)?;
                array::fill(array::shape(&predictions)?, &one)?
            }
        };
        let shape = array::stack(&[num_classes.clone(), num_classes], 0)?;
        let indices = array::stack(&[labels, predictions], 1)?;
        array::scatter_nd(&indices, &values, math::cast(&shape, DType::I64)?)
    }
}

/// `tf.math.confusion_matrix(labels, predictions, num_classes)` with int32 counts and no
/// weights.
pub fn confusion_matrix(
    labels: impl Into<Output>,
    predictions: impl Into<Output>,
    num_classes: Option<usize>,
) -> Result<Output> {
    let mut b = ConfusionMatrix::new(labels, predictions);
    if let Some(n) = num_classes {
        b = b.num_classes(n);
    }
    b.build()
}

/// `remove_squeezable_dimensions(labels, predictions)` for equal expected ranks: squeezes the
/// last dim (1 or unknown) of whichever has rank one more than the other (static ranks only).
fn squeeze_pair(labels: Output, predictions: Output) -> Result<(Output, Output)> {
    let (ls, ps) = (labels.shape(), predictions.shape());
    let (Some(lr), Some(pr)) = (ls.rank(), ps.rank()) else {
        return Ok((labels, predictions));
    };
    if pr == lr + 1 && matches!(ps.dim(-1), None | Some(1)) {
        let _s = labels.graph().name_scope("remove_squeezable_dimensions");
        return Ok((labels, array::squeeze(&predictions, &[-1])?));
    }
    if lr == pr + 1 && matches!(ls.dim(-1), None | Some(1)) {
        let _s = labels.graph().name_scope("remove_squeezable_dimensions");
        return Ok((array::squeeze(&labels, &[-1])?, predictions));
    }
    Ok((labels, predictions))
}

#[cfg(test)]
mod tests {
    use weir_graph::{Graph, Tensor};

    use super::*;

    #[test]
    fn shapes_and_weight_errors() {
        let g = Graph::new();
        let l = constant(&g, [0i32, 1, 2]).unwrap();
        let p = constant(&g, Tensor::from_vec(&[3, 1], vec![0i64, 2, 2]).unwrap()).unwrap();
        let cm = ConfusionMatrix::new(&l, &p).num_classes(3).build().unwrap();
        assert_eq!(cm.dtype(), DType::I32);
        let w = constant(&g, [1.0f32, 2.0]).unwrap();
        let e = ConfusionMatrix::new(&l, &p)
            .weights(&w)
            .build()
            .unwrap_err();
        assert_eq!(e.code(), weir_graph::Code::InvalidArgument);
        assert_eq!(e.message(), "Shapes (3,) and (2,) are incompatible");
    }
}
