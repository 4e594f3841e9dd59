//! `tf.compat.v1.losses`: weighted losses that join the `LOSSES` collection, the reductions
//! that turn them into one number, and the collection readers (`get_losses`,
//! `get_total_loss`, ...).
//!
//! Every loss is built as TensorFlow builds it: inputs cast to float32, the per-element loss
//! under a name scope named after the function (`absolute_difference/`), then
//! [`compute_weighted_loss`] with TensorFlow's weights broadcasting rules and reduction
//! arithmetic, and the result added to the `"losses"` collection unless that is `None`.
//!
//! ```
//! # use weir_graph::{Graph, Tensor};
//! # use weir_ops::array::constant;
//! # use weir_session::Session;
//! use weir_train::losses::{self, MeanSquaredError, Reduction};
//! let g = Graph::new();
//! let labels = constant(&g, [1.0f32, 2.0, 3.0])?;
//! let predictions = constant(&g, [1.0f32, 3.0, 5.0])?;
//! let weights = constant(&g, [0.0f32, 1.0, 0.25])?;
//! let loss = MeanSquaredError::new(&labels, &predictions).weights(&weights).build()?;
//! assert_eq!(Session::new(&g)?.eval(&loss)?.to_vec::<f32>()?, vec![1.0]);
//! let sum = MeanSquaredError::new(&labels, &predictions)
//!     .reduction(Reduction::Sum)
//!     .loss_collection(None)
//!     .build()?;
//! assert_eq!(sum.name(), "mean_squared_error_1/Sum:0");
//! assert_eq!(losses::get_losses(&g, None, "losses").len(), 1); // `sum` joined none
//! # Ok::<(), weir_graph::Error>(())
//! ```

mod collection;
mod cross_entropy;
mod regression;
mod weighted;

use std::fmt;
use std::str::FromStr;

use weir_graph::{graph_keys, DType, Error, Graph, Output, Result};
use weir_ops::array::constant;
use weir_ops::state::Variable;

pub use collection::{
    add_loss, get_losses, get_regularization_loss, get_regularization_losses, get_total_loss,
    GetTotalLoss,
};
pub use cross_entropy::{
    sigmoid_cross_entropy, softmax_cross_entropy, sparse_softmax_cross_entropy,
    SigmoidCrossEntropy, SoftmaxCrossEntropy, SparseSoftmaxCrossEntropy,
};
pub use regression::{
    absolute_difference, cosine_distance, hinge_loss, huber_loss, log_loss,
    mean_pairwise_squared_error, mean_squared_error, AbsoluteDifference, CosineDistance, HingeLoss,
    HuberLoss, LogLoss, MeanPairwiseSquaredError, MeanSquaredError,
};
pub use weighted::compute_weighted_loss;
pub(crate) use weighted::{broadcast_weights, remove_squeezable_dimensions};

/// How a weighted loss is reduced: `tf.compat.v1.losses.Reduction`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Reduction {
    /// `NONE`: the weighted losses, unreduced, of the losses' shape.
    None,
    /// `SUM`: the sum of the weighted losses.
    Sum,
    /// `MEAN`: the sum divided by the sum of the weights (broadcast to the losses).
    Mean,
    /// `SUM_OVER_BATCH_SIZE`: the sum divided by the number of elements of the losses.
    SumOverBatchSize,
    /// `SUM_BY_NONZERO_WEIGHTS` (the default): the sum divided by the number of nonzero
    /// weights, broadcast to the losses.
    #[default]
    SumByNonzeroWeights,
}

impl Reduction {
    /// `SUM_OVER_NONZERO_WEIGHTS`: TensorFlow's other name for `SUM_BY_NONZERO_WEIGHTS`.
    pub const SUM_OVER_NONZERO_WEIGHTS: Reduction = Reduction::SumByNonzeroWeights;

    /// Every reduction, as `Reduction.all()` lists them.
    pub fn all() -> [Reduction; 5] {
        [
            Reduction::None,
            Reduction::Sum,
            Reduction::Mean,
            Reduction::SumOverBatchSize,
            Reduction::SumByNonzeroWeights,
        ]
    }

    /// TensorFlow's string value (`"weighted_sum_by_nonzero_weights"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Reduction::None => "none",
            Reduction::Sum => "weighted_sum",
            Reduction::Mean => "weighted_mean",
            Reduction::SumOverBatchSize => "weighted_sum_over_batch_size",
            Reduction::SumByNonzeroWeights => "weighted_sum_by_nonzero_weights",
        }
    }
}

impl fmt::Display for Reduction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Reduction {
    type Err = Error;

    /// `Reduction.validate(key)`: TensorFlow's string values; anything else is
    /// InvalidArgument with TensorFlow's message.
    fn from_str(key: &str) -> Result<Reduction> {
        Reduction::all()
            .into_iter()
            .find(|r| r.as_str() == key)
            .ok_or_else(|| {
                Error::invalid_argument(format!(
                    "Invalid Reduction Key {key}. Key should be one of ('none', 'weighted_sum', 'weighted_mean', 'weighted_sum_over_batch_size', 'weighted_sum_by_nonzero_weights', 'weighted_sum_by_nonzero_weights')."
                ))
            })
    }
}

/// The `weights` argument of the losses and metrics: a Python number or a tensor that
/// broadcasts to the losses (rank 0, or the losses' rank with dims of 1 or the losses' dims).
#[derive(Clone, Debug)]
pub enum Weights {
    /// A number (`weights=2.0`), made a float32 constant; a nonzero one counts every element
    /// as present without building any op, as in TensorFlow.
    Scalar(f64),
    /// A tensor of weights.
    Tensor(Output),
}

impl Default for Weights {
    /// `weights=1.0`, TensorFlow's default.
    fn default() -> Weights {
        Weights::Scalar(1.0)
    }
}

impl From<f64> for Weights {
    fn from(w: f64) -> Weights {
        Weights::Scalar(w)
    }
}

impl From<f32> for Weights {
    fn from(w: f32) -> Weights {
        Weights::Scalar(w as f64)
    }
}

impl From<Output> for Weights {
    fn from(w: Output) -> Weights {
        Weights::Tensor(w)
    }
}

impl From<&Output> for Weights {
    fn from(w: &Output) -> Weights {
        Weights::Tensor(w.clone())
    }
}

impl From<&Variable> for Weights {
    fn from(w: &Variable) -> Weights {
        Weights::Tensor(w.into())
    }
}

impl Weights {
    /// The weights as a tensor of `g`: a float32 constant for a number.
    pub(crate) fn to_output(&self, g: &Graph) -> Result<Output> {
        match self {
            Weights::Scalar(w) => constant(g, *w as f32),
            Weights::Tensor(t) => Ok(t.clone()),
        }
    }
}

/// The options every `tf.losses` function shares, with TensorFlow's defaults.
#[derive(Clone, Debug)]
pub(crate) struct LossOptions {
    pub(crate) weights: Weights,
    pub(crate) scope: Option<String>,
    pub(crate) loss_collection: Option<String>,
    pub(crate) reduction: Reduction,
}

impl Default for LossOptions {
    fn default() -> LossOptions {
        LossOptions {
            weights: Weights::default(),
            scope: None,
            loss_collection: Some(graph_keys::LOSSES.to_string()),
            reduction: Reduction::default(),
        }
    }
}

/// The option setters of a loss builder (`weights`, `scope`, `loss_collection`, and
/// `reduction` unless the loss has none).
macro_rules! loss_options {
    ($t:ty) => {
        loss_options!(@common $t);
        impl $t {
            /// The reduction (default `SUM_BY_NONZERO_WEIGHTS`).
            pub fn reduction(mut self, reduction: $crate::losses::Reduction) -> Self {
                self.opts.reduction = reduction;
                self
            }
        }
    };
    (@common $t:ty) => {
        impl $t {
            /// The weights: a number or a tensor that broadcasts to the losses (default 1.0).
            pub fn weights(mut self, weights: impl Into<$crate::losses::Weights>) -> Self {
                self.opts.weights = weights.into();
                self
            }

            /// The name scope of the loss's ops (default: the function's name).
            pub fn scope(mut self, scope: &str) -> Self {
                self.opts.scope = Some(scope.to_string());
                self
            }

            /// The collection the loss joins (default `"losses"`); `None` joins none.
            pub fn loss_collection(mut self, key: Option<&str>) -> Self {
                self.opts.loss_collection = key.map(str::to_string);
                self
            }
        }
    };
}
pub(crate) use loss_options;

/// A node of `op_type` named `name` (in the current scope) with `inputs`: for the ops
/// TensorFlow names explicitly (`value`, `update_op`, `total_loss`).
pub(crate) fn named_op(
    g: &Graph,
    op_type: &str,
    inputs: &[&Output],
    name: Option<&str>,
) -> Result<Output> {
    weir_ops::register_all_ops();
    let mut b = g.new_operation(op_type).maybe_name(name);
    for i in inputs {
        b = b.input(*i);
    }
    b.build()?.output(0)
}

/// `math_ops.cast(x, float32)`: `x` itself when it is float32 already.
pub(crate) fn to_f32(x: &Output) -> Result<Output> {
    weir_ops::math::cast(x, DType::F32)
}

/// A scalar constant of `dtype` in `g`.
pub(crate) fn scalar(g: &Graph, dtype: DType, v: f64) -> Result<Output> {
    constant(g, weir_graph::scalar_of(dtype, v)?)
}

/// `shape_a.assert_is_compatible_with(shape_b)`: TensorFlow's ValueError, as InvalidArgument.
pub(crate) fn assert_compatible(a: &Output, b: &Output) -> Result<()> {
    let (sa, sb) = (a.shape(), b.shape());
    if sa.is_compatible_with(&sb) {
        Ok(())
    } else {
        Err(Error::invalid_argument(format!(
            "Shapes {} and {} are incompatible",
            sa.python_str(),
            sb.python_str()
        )))
    }
}

/// The one graph of the inputs; InvalidArgument when they come from different graphs.
pub(crate) fn graph_of(items: &[&Output]) -> Result<Graph> {
    let first = items
        .first()
        .ok_or_else(|| Error::invalid_argument("no inputs"))?;
    let g = first.graph().clone();
    if items.iter().any(|o| !o.graph().ptr_eq(&g)) {
        return Err(Error::invalid_argument(format!(
            "Tensor {} must be from the same graph as the other inputs.",
            items
                .iter()
                .find(|o| !o.graph().ptr_eq(&g))
                .map(|o| o.name())
                .unwrap_or_default()
        )));
    }
    Ok(g)
}

#[cfg(test)]
mod tests;
