//! A dataset's length without reading it: `tf.data.experimental.cardinality` (op
//! `DatasetCardinality`, -1 for an endless dataset and -2 for one whose length is unknown) and
//! `tf.data.experimental.assert_cardinality` (op `AssertCardinalityDataset`), which states a
//! length that the reading then checks.
//!
//! Each dataset computes its cardinality from its inputs' as TensorFlow's does
//! ([`DatasetBase::cardinality`]): `range`, tensors and slices know theirs; `map`, `shuffle`,
//! `prefetch`, `cache` and `scan` keep their input's; `batch`, `take`, `skip`, `repeat`,
//! `shard`, `concatenate` and `zip` derive theirs; `filter`, files, `flat_map` and the like
//! are unknown. One difference: TensorFlow knows an `unbatch` of batches whose size is static
//! (`batch(3, drop_remainder=True).unbatch()`); weir's `unbatch` does not see its input's
//! static shapes and says unknown.

use std::sync::Arc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, AttrKind, AttrValue, DType, Error, Kernel, OpContext, OpDef, Output};
use weir_graph::{Result, Shape, Tensor};

use super::{
    dataset_def, dataset_tensor, input_dataset, Dataset, DatasetBase, Element, IteratorBase,
    IteratorContext, INFINITE_CARDINALITY,
};

impl Dataset {
    /// `dataset.cardinality()` (`tf.data.experimental.cardinality(dataset)`): an int64 scalar,
    /// the number of elements, or [`INFINITE_CARDINALITY`] (-1) or
    /// [`UNKNOWN_CARDINALITY`](super::UNKNOWN_CARDINALITY) (-2); op `DatasetCardinality`.
    ///
    /// ```
    /// # use weir_graph::Graph;
    /// # use weir_ops::data::Dataset;
    /// let g = Graph::new();
    /// let n = Dataset::range(&g, 0, 10, 1)?.batch(3)?.cardinality()?;
    /// // In a session: 4. A `repeat(None)` after it would give -1, a `filter` -2.
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn cardinality(&self) -> Result<Output> {
        let op = crate::new_op(self.graph(), "DatasetCardinality")
            .input(self.handle())
            .build()?;
        op.output(0)
    }

    /// `dataset.apply(tf.data.experimental.assert_cardinality(n))`: the same elements, with
    /// cardinality `n` (-1: endless); reading more or fewer elements than `n` is
    /// FailedPrecondition, as in TensorFlow. Op `AssertCardinalityDataset`.
    pub fn assert_cardinality(&self, cardinality: i64) -> Result<Dataset> {
        let n = crate::array::constant(self.graph(), cardinality)?;
        self.derive(
            crate::new_op(self.graph(), "AssertCardinalityDataset")
                .input(self.handle())
                .input(n),
        )
    }
}

struct CardinalityKernel;

impl Kernel for CardinalityKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let n = input_dataset(ctx, 0)?.cardinality();
        ctx.set_output(0, Tensor::scalar(n));
        Ok(())
    }
}

/// The input, checked to have `cardinality` elements.
struct AssertCardinality {
    input: Arc<dyn DatasetBase>,
    cardinality: i64,
}

impl DatasetBase for AssertCardinality {
    fn output_dtypes(&self) -> &[DType] {
        self.input.output_dtypes()
    }

    fn cardinality(&self) -> i64 {
        self.cardinality
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(AssertCardinalityIter {
            input: self.input.make_iterator()?,
            cardinality: self.cardinality,
            seen: 0,
        }))
    }
}

struct AssertCardinalityIter {
    input: Box<dyn IteratorBase>,
    cardinality: i64,
    seen: i64,
}

/// TensorFlow's `ElementString`: "1 element", "3 elements", "an infinite number of elements".
fn elements(n: i64) -> String {
    match n {
        INFINITE_CARDINALITY => "an infinite number of elements".to_string(),
        1 => "1 element".to_string(),
        n => format!("{n} elements"),
    }
}

impl IteratorBase for AssertCardinalityIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        let next = self.input.get_next(ctx)?;
        let expected = elements(self.cardinality);
        match next {
            Some(e) => {
                self.seen += 1;
                if self.cardinality != INFINITE_CARDINALITY && self.seen > self.cardinality {
                    return Err(Error::failed_precondition(format!(
                        "Input dataset was expected to contain {expected} but contained at \
                         least {}.",
                        elements(self.seen)
                    )));
                }
                Ok(Some(e))
            }
            None if self.seen != self.cardinality => Err(Error::failed_precondition(format!(
                "Input dataset was expected to contain {expected} but contained only {}.",
                elements(self.seen)
            ))),
            None => Ok(None),
        }
    }
}

struct AssertCardinalityKernel;

impl Kernel for AssertCardinalityKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = input_dataset(ctx, 0)?;
        let cardinality = ctx.input(1).to_scalar::<i64>()?;
        let ds = AssertCardinality { input, cardinality };
        ctx.set_output(0, dataset_tensor(Arc::new(ds)));
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        OpDef::new("DatasetCardinality")
            .input("input_dataset", ArgType::Fixed(DType::Resource))
            .output("cardinality", ArgType::Fixed(DType::I64))
            .attr(
                "cardinality_options",
                AttrKind::Str,
                Some(AttrValue::Str(String::new())),
            )
            .shape_fn(|ctx| {
                ctx.set_output(0, Shape::scalar());
                Ok(())
            }),
    );
    register_kernel("DatasetCardinality", |_| Ok(Box::new(CardinalityKernel)));
    register_op(
        dataset_def("AssertCardinalityDataset")
            .input("input_dataset", ArgType::Fixed(DType::Resource))
            .input("cardinality", ArgType::Fixed(DType::I64)),
    );
    register_kernel("AssertCardinalityDataset", |_| {
        Ok(Box::new(AssertCardinalityKernel))
    });
}
