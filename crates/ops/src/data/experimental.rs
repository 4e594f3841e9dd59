//! `tf.data` transformations that TensorFlow long kept under `tf.data.experimental`:
//! `IgnoreErrorsDataset` (`ignore_errors`) and `DatasetToSingleElement` (`get_single_element`)
//! here, `TakeWhileDataset` (`Dataset.take_while`) in `take_while`, `UniqueDataset`
//! (`Dataset.unique`) in `unique`, `DirectedInterleaveDataset`
//! (`Dataset.choose_from_datasets`) in `choose`, `ScanDataset` (`Dataset.scan`) in `scan`, and
//! `Dataset.sample_from_datasets`, composed of other ops, in `sample`.

mod choose;
mod sample;
mod scan;
mod take_while;
mod unique;

use std::sync::Arc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, Kernel, OpContext, OpDef, Output, Result, Shape,
};

pub use sample::SampleWeights;

use super::{
    dataset_def, dataset_tensor, input_dataset, output_dtypes, Dataset, DatasetBase, Element,
    IteratorBase, IteratorContext,
};

/// The elements of `input` whose computation did not fail.
struct IgnoreErrors {
    input: Arc<dyn DatasetBase>,
    log_warning: bool,
}

impl DatasetBase for IgnoreErrors {
    fn output_dtypes(&self) -> &[DType] {
        self.input.output_dtypes()
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(IgnoreErrorsIter {
            input: Some(self.input.make_iterator()?),
            log_warning: self.log_warning,
        }))
    }
}

struct IgnoreErrorsIter {
    /// `None` once the input has ended.
    input: Option<Box<dyn IteratorBase>>,
    log_warning: bool,
}

impl IteratorBase for IgnoreErrorsIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        loop {
            let Some(input) = self.input.as_mut() else {
                return Ok(None);
            };
            match input.get_next(ctx) {
                Ok(Some(e)) => return Ok(Some(e)),
                Ok(None) => {
                    self.input = None;
                    return Ok(None);
                }
                // As in TensorFlow, every error but a cancellation is dropped; so is the end of
                // this run (its deadline or cancellation), which also bounds an input that
                // fails again and again without moving on.
                Err(e) if e.is_cancelled() => return Err(e),
                Err(e) => {
                    ctx.check()?;
                    if self.log_warning {
                        eprintln!("Error raised with error message {}", e.message());
                    }
                }
            }
        }
    }
}

struct IgnoreErrorsKernel {
    log_warning: bool,
}

impl Kernel for IgnoreErrorsKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = input_dataset(ctx, 0)?;
        let ds = IgnoreErrors {
            input,
            log_warning: self.log_warning,
        };
        ctx.set_output(0, dataset_tensor(Arc::new(ds)));
        Ok(())
    }
}

/// `DatasetToSingleElement(dataset)`: the components of the dataset's only element.
struct SingleElementKernel;

impl Kernel for SingleElementKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let dataset = input_dataset(ctx, 0)?;
        let dtypes = output_dtypes(ctx.node())?;
        let ictx = IteratorContext::of(ctx);
        let mut it = dataset.make_iterator()?;
        let Some(element) = it.get_next(&ictx)? else {
            return Err(Error::invalid_argument("Dataset was empty."));
        };
        if it.get_next(&ictx)?.is_some() {
            return Err(Error::invalid_argument(
                "Dataset had more than one element.",
            ));
        }
        check_dtypes(&element, &dtypes)?;
        for (i, t) in element.into_iter().enumerate() {
            ctx.set_output(i, t);
        }
        Ok(())
    }

    /// The dataset may read files or wait for a queue.
    fn may_block(&self) -> bool {
        true
    }
}

/// InvalidArgument unless `element`'s components have `dtypes`.
fn check_dtypes(element: &[weir_graph::Tensor], dtypes: &[DType]) -> Result<()> {
    let got: Vec<DType> = element.iter().map(|t| t.dtype()).collect();
    if got != dtypes {
        return Err(Error::invalid_argument(format!(
            "The dataset's element has dtypes {}, not the op's output_types {}",
            dtype_list(&got),
            dtype_list(dtypes)
        )));
    }
    Ok(())
}

/// `[int64, string]`, as TensorFlow's `DataTypeVectorString`.
fn dtype_list(d: &[DType]) -> String {
    let names: Vec<String> = d.iter().map(|d| d.to_string()).collect();
    format!("[{}]", names.join(", "))
}

/// One component as Python prints a `TensorSpec`:
/// `TensorSpec(shape=(), dtype=tf.int64, name=None)`.
fn tensor_spec(dtype: DType, shape: &Shape) -> String {
    format!(
        "TensorSpec(shape={}, dtype=tf.{}, name=None)",
        shape.python_str(),
        dtype.python_name()
    )
}

/// A dataset's `element_spec` as Python prints it: one `TensorSpec`, or a tuple of them.
fn element_spec(dtypes: &[DType], shapes: &[Shape]) -> String {
    let specs: Vec<String> = dtypes
        .iter()
        .zip(shapes)
        .map(|(&d, s)| tensor_spec(d, s))
        .collect();
    match specs.as_slice() {
        [one] => one.clone(),
        _ => format!("({})", specs.join(", ")),
    }
}

/// The most specific shape both `a` and `b` have: dimensions that differ become unknown, and
/// so does the rank when the ranks differ.
pub(super) fn common_supertype(a: &Shape, b: &Shape) -> Shape {
    match (a.dims(), b.dims()) {
        (Some(x), Some(y)) if x.len() == y.len() => Shape::new(
            x.iter()
                .zip(y)
                .map(|(p, q)| if p == q { *p } else { None })
                .collect::<Vec<_>>(),
        ),
        _ => Shape::unknown(),
    }
}

impl Dataset {
    /// `dataset.ignore_errors()` (`tf.data.experimental.ignore_errors()`): the elements whose
    /// computation did not fail; an element that fails is dropped and reading goes on with the
    /// next (op `IgnoreErrorsDataset`). A cancellation, and the end of the reading run (its
    /// deadline), still end the read.
    ///
    /// ```
    /// use weir_graph::{Graph, Tensor};
    /// use weir_ops::array::{check_numerics, constant};
    /// use weir_ops::data::Dataset;
    /// use weir_ops::math::div;
    ///
    /// let g = Graph::new();
    /// let xs = constant(&g, Tensor::from(vec![1.0f32, 0.0, 2.0]))?;
    /// let ds = Dataset::from_tensor_slices(&[xs])?
    ///     .map(|x| {
    ///         let one = constant(x[0].graph(), 1.0f32)?;
    ///         Ok(vec![check_numerics(div(one, &x[0])?, "inf")?])
    ///     })?
    ///     .ignore_errors()?;
    /// // In a session: 1.0, 0.5 (the element 1 / 0 fails and is dropped), then OutOfRange.
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn ignore_errors(&self) -> Result<Dataset> {
        self.ignore_errors_with(false)
    }

    /// `dataset.ignore_errors(log_warning)`: [`ignore_errors`](Self::ignore_errors), writing
    /// each dropped error to standard error when `log_warning` is true.
    pub fn ignore_errors_with(&self, log_warning: bool) -> Result<Dataset> {
        self.derive(
            crate::new_op(self.graph(), "IgnoreErrorsDataset")
                .input(self.handle())
                .attr("log_warning", log_warning),
        )
    }

    /// `dataset.get_single_element()` (`tf.data.experimental.get_single_element(dataset)`):
    /// the components of the dataset's only element, as outputs of one op
    /// (`DatasetToSingleElement`). Running it fails with InvalidArgument "Dataset was empty."
    /// or "Dataset had more than one element." when the dataset does not have exactly one.
    ///
    /// ```
    /// use weir_graph::{Graph, Shape};
    /// use weir_ops::data::Dataset;
    ///
    /// let g = Graph::new();
    /// let sum = Dataset::range(&g, 0, 5, 1)?.batch(5)?.get_single_element()?;
    /// assert_eq!(sum[0].shape(), Shape::new(vec![None]));
    /// // In a session: [0, 1, 2, 3, 4].
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn get_single_element(&self) -> Result<Vec<Output>> {
        self.dense_only("dataset.get_single_element")?;
        let op = crate::new_op(self.graph(), "DatasetToSingleElement")
            .input(self.handle())
            .attr("output_types", self.output_types().to_vec())
            .attr("output_shapes", self.output_shapes().to_vec())
            .build()?;
        Ok(op.outputs())
    }
}

pub(super) fn register() {
    register_op(
        dataset_def("IgnoreErrorsDataset")
            .input("input_dataset", ArgType::Fixed(DType::Resource))
            .attr("log_warning", AttrKind::Bool, Some(AttrValue::Bool(false))),
    );
    register_kernel("IgnoreErrorsDataset", |node| {
        Ok(Box::new(IgnoreErrorsKernel {
            log_warning: node.attr("log_warning")?,
        }))
    });
    register_op(
        OpDef::new("DatasetToSingleElement")
            .input("dataset", ArgType::Fixed(DType::Resource))
            .output("components", ArgType::List("output_types"))
            .attr("output_types", AttrKind::Types, None)
            .attr("output_shapes", AttrKind::Shapes, None)
            .stateful()
            .shape_fn(|ctx| {
                let shapes: Vec<Shape> = ctx.attr("output_shapes")?;
                for (i, s) in shapes.into_iter().enumerate().take(ctx.num_outputs()) {
                    ctx.set_output(i, s);
                }
                Ok(())
            }),
    );
    register_kernel("DatasetToSingleElement", |_| {
        Ok(Box::new(SingleElementKernel))
    });
    take_while::register();
    unique::register();
    choose::register();
    scan::register();
}

#[cfg(test)]
mod tests {
    use weir_graph::{DType, Graph, Shape, Tensor};

    use super::{common_supertype, element_spec};
    use crate::array::constant;
    use crate::data::Dataset;

    #[test]
    fn specs_print_as_python_does() {
        let one = element_spec(&[DType::I64], &[Shape::scalar()]);
        assert_eq!(one, "TensorSpec(shape=(), dtype=tf.int64, name=None)");
        let two = element_spec(
            &[DType::I32, DType::String],
            &[Shape::new(vec![Some(2), None]), Shape::unknown()],
        );
        assert_eq!(
            two,
            "(TensorSpec(shape=(2, None), dtype=tf.int32, name=None), \
             TensorSpec(shape=<unknown>, dtype=tf.string, name=None))"
        );
    }

    #[test]
    fn common_supertypes_relax_dims_and_ranks() {
        let s = |d: &[Option<usize>]| Shape::new(d.to_vec());
        assert_eq!(
            common_supertype(&s(&[Some(2), Some(3)]), &s(&[Some(2), Some(4)])),
            s(&[Some(2), None])
        );
        assert_eq!(
            common_supertype(&s(&[Some(2)]), &Shape::scalar()),
            Shape::unknown()
        );
        assert_eq!(common_supertype(&s(&[None]), &s(&[Some(3)])), s(&[None]));
    }

    #[test]
    fn builders_check_their_arguments() -> weir_graph::Result<()> {
        let g = Graph::new();
        let floats = Dataset::from_tensor_slices(&[constant(&g, Tensor::from(vec![1.0f32]))?])?;
        let e = floats.unique().unwrap_err();
        assert!(e.message().contains("<dtype: 'float32'>"), "{e}");
        let ints = Dataset::range(&g, 0, 3, 1)?;
        let e = ints.take_while(|x| Ok(x[0].clone())).unwrap_err();
        assert!(e
            .message()
            .ends_with("isTensorSpec(shape=(), dtype=tf.int64, name=None)."));
        let e = Dataset::choose_from_datasets(&[], &ints, true).unwrap_err();
        assert_eq!(
            e.message(),
            "Invalid `datasets`. `datasets` should not be empty."
        );
        let e =
            Dataset::choose_from_datasets(std::slice::from_ref(&ints), &floats, true).unwrap_err();
        assert!(e.message().starts_with("Invalid `choice_dataset`."), "{e}");
        let e = ints
            .scan(&[constant(&g, 0i64)?], |_s, x| {
                Ok((vec![], vec![x[0].clone()]))
            })
            .unwrap_err();
        assert!(e.message().contains("new state has 0 components"), "{e}");
        let e = ints
            .scan(&[constant(&g, 0i32)?], |_s, x| {
                Ok((vec![x[0].clone()], vec![x[0].clone()]))
            })
            .unwrap_err();
        assert!(e
            .message()
            .contains("Expected <dtype: 'int32'>, got <dtype: 'int64'>"));
        Ok(())
    }
}
