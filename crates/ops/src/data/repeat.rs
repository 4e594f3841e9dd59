//! `RepeatDataset` (`Dataset.repeat`), `SkipDataset` (`Dataset.skip`), `TakeDataset`
//! (`Dataset.take`) and `ShardDataset` (`Dataset.shard`).

use std::sync::Arc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, DType, Error, Kernel, OpContext, Result};

use super::{
    dataset_def, dataset_tensor, input_dataset, DatasetBase, Element, IteratorBase,
    IteratorContext, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY,
};

/// `input` `count` times over (forever when `count` is negative).
struct Repeat {
    input: Arc<dyn DatasetBase>,
    count: i64,
}

impl DatasetBase for Repeat {
    fn cardinality(&self) -> i64 {
        repeated_cardinality(self.input.cardinality(), self.count)
    }

    fn output_dtypes(&self) -> &[DType] {
        self.input.output_dtypes()
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        let current = if self.count == 0 {
            None
        } else {
            Some(self.input.make_iterator()?)
        };
        Ok(Box::new(RepeatIter {
            input: self.input.clone(),
            current,
            epochs_done: 0,
            count: self.count,
            seen_in_epoch: false,
        }))
    }
}

/// The cardinality of `n` elements repeated `count` times (`count < 0`: for ever): an endless
/// repeat of anything but an empty input never ends, even when its length is unknown.
pub(super) fn repeated_cardinality(n: i64, count: i64) -> i64 {
    if count < 0 {
        return if n == 0 { 0 } else { INFINITE_CARDINALITY };
    }
    if count == 0 {
        return 0;
    }
    if n < 0 {
        return n;
    }
    n.saturating_mul(count)
}

struct RepeatIter {
    input: Arc<dyn DatasetBase>,
    current: Option<Box<dyn IteratorBase>>,
    epochs_done: i64,
    count: i64,
    seen_in_epoch: bool,
}

impl IteratorBase for RepeatIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        while let Some(it) = self.current.as_mut() {
            if let Some(e) = it.get_next(ctx)? {
                self.seen_in_epoch = true;
                return Ok(Some(e));
            }
            self.epochs_done += 1;
            // An empty input repeated forever would never yield: it ends, as in TensorFlow.
            let more = self.seen_in_epoch && (self.count < 0 || self.epochs_done < self.count);
            self.current = if more {
                ctx.check()?;
                Some(self.input.make_iterator()?)
            } else {
                None
            };
            self.seen_in_epoch = false;
        }
        Ok(None)
    }
}

/// Skips (`skip`) or keeps only (`take`) the first `count` elements; a negative count skips or
/// keeps them all.
struct SkipTake {
    input: Arc<dyn DatasetBase>,
    count: i64,
    take: bool,
}

impl DatasetBase for SkipTake {
    fn cardinality(&self) -> i64 {
        let n = self.input.cardinality();
        if n == UNKNOWN_CARDINALITY {
            return n;
        }
        match (self.take, n == INFINITE_CARDINALITY) {
            (true, true) => self.count.max(INFINITE_CARDINALITY),
            (true, false) if self.count < 0 => n,
            (true, false) => n.min(self.count),
            (false, true) => n,
            (false, false) if self.count < 0 => 0,
            (false, false) => (n - self.count).max(0),
        }
    }

    fn output_dtypes(&self) -> &[DType] {
        self.input.output_dtypes()
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(SkipTakeIter {
            input: Some(self.input.make_iterator()?),
            count: self.count,
            take: self.take,
            done: 0,
        }))
    }
}

struct SkipTakeIter {
    input: Option<Box<dyn IteratorBase>>,
    count: i64,
    take: bool,
    done: i64,
}

impl IteratorBase for SkipTakeIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        let Some(input) = self.input.as_mut() else {
            return Ok(None);
        };
        if self.take {
            if self.count >= 0 && self.done >= self.count {
                self.input = None;
                return Ok(None);
            }
            // An element that failed does not count, as in TensorFlow: take(3) of
            // [1, error, 3, error, 5, 6] gives 1, the error, 3, the error, 5.
            let next = input.get_next(ctx)?;
            self.done += 1;
            return Ok(next);
        }
        // TensorFlow's skip loses its progress when an element fails: the elements skipped
        // before the error are gone, and the next call skips `count` again.
        let mut skipped = 0;
        while self.count < 0 || self.done + skipped < self.count {
            if input.get_next(ctx)?.is_none() {
                self.input = None;
                return Ok(None);
            }
            skipped += 1;
            if skipped % 1024 == 0 {
                ctx.check()?;
            }
        }
        self.done += skipped;
        input.get_next(ctx)
    }
}

/// Every `num_shards`-th element of `input`, starting with element `index`.
struct Shard {
    input: Arc<dyn DatasetBase>,
    num_shards: i64,
    index: i64,
}

impl DatasetBase for Shard {
    fn cardinality(&self) -> i64 {
        let n = self.input.cardinality();
        if n < 0 {
            return n;
        }
        n / self.num_shards + i64::from(self.index < n % self.num_shards)
    }

    fn output_dtypes(&self) -> &[DType] {
        self.input.output_dtypes()
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(ShardIter {
            input: Some(self.input.make_iterator()?),
            num_shards: self.num_shards,
            index: self.index,
            next: 0,
        }))
    }
}

struct ShardIter {
    input: Option<Box<dyn IteratorBase>>,
    num_shards: i64,
    index: i64,
    /// The input position of the next element read.
    next: i64,
}

impl IteratorBase for ShardIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        while let Some(input) = self.input.as_mut() {
            let Some(e) = input.get_next(ctx)? else {
                self.input = None;
                break;
            };
            let at = self.next;
            self.next += 1;
            if at % self.num_shards == self.index {
                return Ok(Some(e));
            }
        }
        Ok(None)
    }
}

struct ShardKernel;

impl Kernel for ShardKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = input_dataset(ctx, 0)?;
        let num_shards = ctx.input(1).to_scalar::<i64>()?;
        let index = ctx.input(2).to_scalar::<i64>()?;
        if num_shards <= 0 {
            return Err(Error::invalid_argument(format!(
                "Number of shards must be greater than zero (currently num_shards = {num_shards})."
            )));
        }
        if !(0..num_shards).contains(&index) {
            return Err(Error::invalid_argument(format!(
                "Index must be between 0 and {} (currently index = {index}).",
                num_shards - 1
            )));
        }
        let ds = Shard {
            input,
            num_shards,
            index,
        };
        ctx.set_output(0, dataset_tensor(Arc::new(ds)));
        Ok(())
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Repeat,
    Skip,
    Take,
}

struct CountKernel(Kind);

impl Kernel for CountKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = input_dataset(ctx, 0)?;
        let count = ctx.input(1).to_scalar::<i64>()?;
        let ds: Arc<dyn DatasetBase> = match self.0 {
            Kind::Repeat => Arc::new(Repeat { input, count }),
            Kind::Skip => Arc::new(SkipTake {
                input,
                count,
                take: false,
            }),
            Kind::Take => Arc::new(SkipTake {
                input,
                count,
                take: true,
            }),
        };
        ctx.set_output(0, dataset_tensor(ds));
        Ok(())
    }
}

pub(super) fn register() {
    for op in ["RepeatDataset", "SkipDataset", "TakeDataset"] {
        register_op(
            dataset_def(op)
                .input("input_dataset", ArgType::Fixed(DType::Resource))
                .input("count", ArgType::Fixed(DType::I64)),
        );
    }
    register_kernel("RepeatDataset", |_| Ok(Box::new(CountKernel(Kind::Repeat))));
    register_kernel("SkipDataset", |_| Ok(Box::new(CountKernel(Kind::Skip))));
    register_kernel("TakeDataset", |_| Ok(Box::new(CountKernel(Kind::Take))));
    register_op(
        dataset_def("ShardDataset")
            .input("input_dataset", ArgType::Fixed(DType::Resource))
            .input("num_shards", ArgType::Fixed(DType::I64))
            .input("index", ArgType::Fixed(DType::I64))
            .attr(
                "require_non_empty",
                weir_graph::AttrKind::Bool,
                Some(weir_graph::AttrValue::Bool(false)),
            ),
    );
    register_kernel("ShardDataset", |_| Ok(Box::new(ShardKernel)));
}
