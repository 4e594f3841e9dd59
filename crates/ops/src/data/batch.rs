//! `BatchDatasetV2` (`Dataset.batch`): consecutive elements stacked along a new first dimension.

use std::sync::Arc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, Kernel, OpContext, Result, Tensor,
};

use super::{
    dataset_def, dataset_tensor, input_dataset, DatasetBase, Element, IteratorBase, IteratorContext,
};
use crate::data_flow::pieces::concat_rows;

struct Batch {
    input: Arc<dyn DatasetBase>,
    batch_size: usize,
    drop_remainder: bool,
}

impl DatasetBase for Batch {
    fn cardinality(&self) -> i64 {
        batched_cardinality(
            self.input.cardinality(),
            self.batch_size,
            self.drop_remainder,
        )
    }

    fn output_dtypes(&self) -> &[DType] {
        self.input.output_dtypes()
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(BatchIter {
            input: Some(self.input.make_iterator()?),
            batch_size: self.batch_size,
            drop_remainder: self.drop_remainder,
        }))
    }
}

/// The cardinality of `n` elements in batches of `batch_size`: the last partial batch counts
/// unless `drop_remainder`.
pub(super) fn batched_cardinality(n: i64, batch_size: usize, drop_remainder: bool) -> i64 {
    if n < 0 {
        return n;
    }
    let b = i64::try_from(batch_size).unwrap_or(i64::MAX).max(1);
    if drop_remainder {
        n / b
    } else {
        n / b + i64::from(n % b != 0)
    }
}

struct BatchIter {
    /// `None` once the input has ended.
    input: Option<Box<dyn IteratorBase>>,
    batch_size: usize,
    drop_remainder: bool,
}

impl IteratorBase for BatchIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        match next_batch(&mut self.input, ctx, self.batch_size, self.drop_remainder)? {
            Some(elements) => stack_elements(&elements).map(Some),
            None => Ok(None),
        }
    }
}

/// The next `batch_size` elements of `input` (fewer at its end, unless `drop_remainder`);
/// `None` once there are none. `input` becomes `None` when it ends.
pub(crate) fn next_batch(
    input: &mut Option<Box<dyn IteratorBase>>,
    ctx: &IteratorContext,
    batch_size: usize,
    drop_remainder: bool,
) -> Result<Option<Vec<Element>>> {
    let Some(it) = input.as_mut() else {
        return Ok(None);
    };
    let mut elements: Vec<Element> = Vec::with_capacity(batch_size.min(4096));
    while elements.len() < batch_size {
        match it.get_next(ctx)? {
            Some(e) => elements.push(e),
            None => {
                *input = None;
                break;
            }
        }
    }
    if elements.is_empty() || (drop_remainder && elements.len() < batch_size) {
        return Ok(None);
    }
    Ok(Some(elements))
}

/// Stacks the components of `elements` (at least one): one allocation per component.
pub(crate) fn stack_elements(elements: &[Element]) -> Result<Element> {
    let first = &elements[0];
    (0..first.len())
        .map(|c| {
            let dims = first[c].shape();
            let mut parts: Vec<Tensor> = Vec::with_capacity(elements.len());
            for e in elements {
                let t = &e[c];
                check_count(t, &first[c])?;
                parts.push(t.clone());
            }
            let mut shape = Vec::with_capacity(dims.len() + 1);
            shape.push(elements.len());
            shape.extend_from_slice(dims);
            concat_rows(first[c].dtype(), &parts, &shape)
        })
        .collect()
}

/// InvalidArgument unless `t` has as many elements as `first`, the batch's first element.
/// TensorFlow's words; it compares only the element counts, and copies an element of another
/// shape but the same count as if it had the first's.
fn check_count(t: &Tensor, first: &Tensor) -> Result<()> {
    if t.num_elements() == first.num_elements() {
        return Ok(());
    }
    Err(Error::invalid_argument(format!(
        "Cannot add tensor to the batch: number of elements does not match. Shapes are: \
         [tensor]: {}, [batch]: {}",
        format_dims(t.shape()),
        format_dims(first.shape())
    )))
}

/// The error [`stack_elements`] would fail with for `elements`, without stacking them.
pub(crate) fn check_stackable(elements: &[Element]) -> Result<()> {
    let Some(first) = elements.first() else {
        return Ok(());
    };
    for e in &elements[1..] {
        for (t, f) in e.iter().zip(first) {
            check_count(t, f)?;
        }
    }
    Ok(())
}

struct BatchKernel;

impl Kernel for BatchKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = input_dataset(ctx, 0)?;
        let batch_size = ctx.input(1).to_scalar::<i64>()?;
        if batch_size <= 0 {
            return Err(Error::invalid_argument(
                "Batch size must be greater than zero.",
            ));
        }
        let drop_remainder = ctx.input(2).to_scalar::<bool>()?;
        ctx.set_output(
            0,
            dataset_tensor(Arc::new(Batch {
                input,
                batch_size: batch_size as usize,
                drop_remainder,
            })),
        );
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        dataset_def("BatchDatasetV2")
            .input("input_dataset", ArgType::Fixed(DType::Resource))
            .input("batch_size", ArgType::Fixed(DType::I64))
            .input("drop_remainder", ArgType::Fixed(DType::Bool))
            .attr(
                "parallel_copy",
                AttrKind::Bool,
                Some(AttrValue::Bool(false)),
            ),
    );
    register_kernel("BatchDatasetV2", |_| Ok(Box::new(BatchKernel)));
}
