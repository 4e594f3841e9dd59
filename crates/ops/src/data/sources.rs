//! Datasets made from tensors: `TensorSliceDataset` (`Dataset.from_tensor_slices`),
//! `TensorDataset` (`Dataset.from_tensors`) and `RangeDataset` (`Dataset.range`).

use std::sync::Arc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{format_dims, ArgType, DType, Error, Kernel, OpContext, Result, Tensor};

use super::{
    dataset_def, dataset_tensor, output_dtypes, DatasetBase, Element, IteratorBase, IteratorContext,
};

/// The rows of tensors that share their first dimension, one element per row.
struct TensorSlices {
    components: Vec<Tensor>,
    dtypes: Vec<DType>,
    rows: usize,
}

impl DatasetBase for TensorSlices {
    fn cardinality(&self) -> i64 {
        i64::try_from(self.rows).unwrap_or(i64::MAX)
    }

    fn output_dtypes(&self) -> &[DType] {
        &self.dtypes
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(SliceIter {
            components: self.components.clone(),
            rows: self.rows,
            next: 0,
        }))
    }
}

struct SliceIter {
    components: Vec<Tensor>,
    rows: usize,
    next: usize,
}

impl IteratorBase for SliceIter {
    fn get_next(&mut self, _ctx: &IteratorContext) -> Result<Option<Element>> {
        if self.next >= self.rows {
            return Ok(None);
        }
        let i = self.next;
        self.next += 1;
        self.components
            .iter()
            .map(|c| c.index_axis0(i))
            .collect::<Result<Vec<_>>>()
            .map(Some)
    }
}

struct TensorSliceKernel;

impl Kernel for TensorSliceKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let components = ctx.inputs().to_vec();
        let mut rows = None;
        for c in &components {
            let Some(&n) = c.shape().first() else {
                return Err(Error::invalid_argument(
                    "All components must be at least 1-dimensional",
                ));
            };
            match rows {
                None => rows = Some(n),
                Some(r) if r != n => {
                    return Err(Error::invalid_argument(format!(
                    "All components must have the same size in the 0th dimension, got {} and {}",
                    format_dims(components[0].shape()),
                    format_dims(c.shape())
                )))
                }
                Some(_) => {}
            }
        }
        let ds = TensorSlices {
            dtypes: output_dtypes(ctx.node())?,
            rows: rows.unwrap_or(0),
            components,
        };
        ctx.set_output(0, dataset_tensor(Arc::new(ds)));
        Ok(())
    }
}

/// One element: the tensors themselves.
struct Tensors {
    components: Vec<Tensor>,
    dtypes: Vec<DType>,
}

impl DatasetBase for Tensors {
    fn cardinality(&self) -> i64 {
        1
    }

    fn output_dtypes(&self) -> &[DType] {
        &self.dtypes
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(OnceIter(Some(self.components.clone()))))
    }
}

struct OnceIter(Option<Element>);

impl IteratorBase for OnceIter {
    fn get_next(&mut self, _ctx: &IteratorContext) -> Result<Option<Element>> {
        Ok(self.0.take())
    }
}

struct TensorKernel;

impl Kernel for TensorKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let ds = Tensors {
            components: ctx.inputs().to_vec(),
            dtypes: output_dtypes(ctx.node())?,
        };
        ctx.set_output(0, dataset_tensor(Arc::new(ds)));
        Ok(())
    }
}

/// `start, start + step, ...` up to `stop` (exclusive), as int64 scalars.
struct Range {
    start: i64,
    stop: i64,
    step: i64,
}

impl DatasetBase for Range {
    fn cardinality(&self) -> i64 {
        range_len(self.start, self.stop, self.step)
    }

    fn output_dtypes(&self) -> &[DType] {
        &[DType::I64]
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(RangeIter {
            next: self.start,
            stop: self.stop,
            step: self.step,
        }))
    }
}

/// How many values `range(start, stop, step)` has (`step` is not 0).
fn range_len(start: i64, stop: i64, step: i64) -> i64 {
    let (start, stop, step) = (i128::from(start), i128::from(stop), i128::from(step));
    let n = if step > 0 {
        (stop - start + step - 1) / step
    } else {
        (start - stop - step - 1) / -step
    };
    i64::try_from(n.max(0)).unwrap_or(i64::MAX)
}

struct RangeIter {
    next: i64,
    stop: i64,
    step: i64,
}

impl IteratorBase for RangeIter {
    fn get_next(&mut self, _ctx: &IteratorContext) -> Result<Option<Element>> {
        let more = if self.step > 0 {
            self.next < self.stop
        } else {
            self.next > self.stop
        };
        if !more {
            return Ok(None);
        }
        let v = self.next;
        // Past i64's end the range is over too.
        self.next = v.checked_add(self.step).unwrap_or(self.stop);
        Ok(Some(vec![Tensor::scalar(v)]))
    }
}

struct RangeKernel;

impl Kernel for RangeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let arg = |i: usize| ctx.input(i).to_scalar::<i64>();
        let (start, stop, step) = (arg(0)?, arg(1)?, arg(2)?);
        if step == 0 {
            return Err(Error::invalid_argument("step must be a non-zero integer."));
        }
        ctx.set_output(0, dataset_tensor(Arc::new(Range { start, stop, step })));
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        dataset_def("TensorSliceDataset")
            .input("components", ArgType::List("Toutput_types"))
            .attr("Toutput_types", weir_graph::AttrKind::Types, None),
    );
    register_kernel("TensorSliceDataset", |_| Ok(Box::new(TensorSliceKernel)));
    register_op(
        dataset_def("TensorDataset")
            .input("components", ArgType::List("Toutput_types"))
            .attr("Toutput_types", weir_graph::AttrKind::Types, None),
    );
    register_kernel("TensorDataset", |_| Ok(Box::new(TensorKernel)));
    register_op(
        dataset_def("RangeDataset")
            .input("start", ArgType::Fixed(DType::I64))
            .input("stop", ArgType::Fixed(DType::I64))
            .input("step", ArgType::Fixed(DType::I64)),
    );
    register_kernel("RangeDataset", |_| Ok(Box::new(RangeKernel)));
}

impl super::Dataset {
    /// `tf.data.experimental.Counter(start, step)`: `start`, `start + step`, ... for ever, of
    /// `start`'s dtype. Built as TensorFlow builds it: `from_tensors(0).repeat()` scanned with
    /// the running value as state, so its graph and cardinality (-1) are TensorFlow's.
    ///
    /// ```
    /// # use weir_graph::{DType, Graph};
    /// # use weir_ops::{array::constant, data::Dataset};
    /// let g = Graph::new();
    /// let evens = Dataset::counter(&constant(&g, 0i64)?, &constant(&g, 2i64)?)?.take(3)?;
    /// assert_eq!(evens.output_types(), [DType::I64]);
    /// // In a session: 0, 2, 4.
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn counter(
        start: &weir_graph::Output,
        step: &weir_graph::Output,
    ) -> Result<super::Dataset> {
        if start.dtype() != step.dtype() {
            return Err(Error::invalid_argument(format!(
                "Counter's start is {} but its step is {}",
                start.dtype(),
                step.dtype()
            )));
        }
        let g = start.graph();
        let zero = crate::array::constant(g, 0i32)?;
        let step = step.clone();
        super::Dataset::from_tensors(&[zero])?.repeat(None)?.scan(
            std::slice::from_ref(start),
            move |state, _| {
                Ok((
                    vec![crate::math::add(&state[0], &step)?],
                    vec![state[0].clone()],
                ))
            },
        )
    }
}
