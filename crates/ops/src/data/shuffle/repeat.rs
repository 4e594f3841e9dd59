//! `ShuffleAndRepeatDataset` (`tf.data.experimental.shuffle_and_repeat`): a shuffle and a
//! repeat fused into one iterator, as TensorFlow 2.21's graph mode builds it (op version 1:
//! inputs `buffer_size`, `seed`, `seed2`, `count`; attr `reshuffle_each_iteration`).
//!
//! Unlike `shuffle(..).repeat(..)`, the buffer does not drain at the end of an epoch: it goes on
//! filling with the next epoch's elements, so reading runs ahead of the output across epoch
//! boundaries (an input error of the next epoch surfaces while this one is still being output).
//! The buffer is split into epochs ("slices"), and each output is drawn from the oldest
//! epoch's slice alone, so no element of an epoch comes out before every element of the one
//! before it. Each epoch draws from a new Philox stream, seeded by two more words of the
//! dataset's seed generator (a fixed pair without `reshuffle_each_iteration`), which makes the
//! order TensorFlow's, the same as `shuffle(buffer_size, seed).repeat(count)` gives there.
//! Filling stops while more than [`MAX_EPOCHS_IN_BUFFER`] epochs are buffered, as in
//! TensorFlow, so a small input and a large buffer do not read many epochs ahead.

use std::collections::VecDeque;
use std::sync::Arc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, AttrKind, AttrValue, DType, Error, Kernel, OpContext, Result};

use super::{buffer_capacity, seed_generator, take_random, tf_data_seeds, Seeds, Words};
use crate::data::{
    dataset_def, dataset_tensor, input_dataset, Dataset, DatasetBase, Element, IteratorBase,
    IteratorContext,
};

/// Filling stops while the buffer holds elements of more epochs than this (TensorFlow's
/// `kMaxEpochsInBuffer`).
const MAX_EPOCHS_IN_BUFFER: usize = 3;

/// The elements of `input`, `count` times over (forever when -1), each epoch in its own
/// pseudorandom order.
struct ShuffleAndRepeat {
    input: Arc<dyn DatasetBase>,
    capacity: usize,
    count: i64,
    seeds: Arc<Seeds>,
}

impl DatasetBase for ShuffleAndRepeat {
    fn cardinality(&self) -> i64 {
        super::super::repeat::repeated_cardinality(self.input.cardinality(), self.count)
    }

    fn output_dtypes(&self) -> &[DType] {
        self.input.output_dtypes()
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        let (seed, seed2) = self.seeds.next();
        Ok(Box::new(ShuffleAndRepeatIter {
            dataset: self.input.clone(),
            input: Some(self.input.make_iterator()?),
            finished: false,
            epoch: 0,
            count: self.count,
            data_produced: false,
            buffer: VecDeque::with_capacity(self.capacity.min(1024)),
            slices: VecDeque::from([0]),
            capacity: self.capacity,
            words: Words::new(seed, seed2),
            seeds: self.seeds.clone(),
        }))
    }
}

struct ShuffleAndRepeatIter {
    dataset: Arc<dyn DatasetBase>,
    /// The current epoch's iterator; `None` between epochs (the next one is made on the next
    /// read) and once `finished`.
    input: Option<Box<dyn IteratorBase>>,
    /// Set once the last epoch has ended: nothing more is read.
    finished: bool,
    /// Epochs of the input read to their end.
    epoch: i64,
    count: i64,
    /// Whether the input has given any element: an empty input repeated forever ends.
    data_produced: bool,
    /// The buffered elements, oldest first.
    buffer: VecDeque<Element>,
    /// How many of the buffered elements belong to each epoch, oldest epoch first (their sum
    /// is `buffer.len()`).
    slices: VecDeque<usize>,
    capacity: usize,
    /// The oldest buffered epoch's stream.
    words: Words,
    seeds: Arc<Seeds>,
}

impl ShuffleAndRepeatIter {
    /// The next element of the input, across epochs; `None` once the last epoch has ended.
    fn read(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        loop {
            if self.finished {
                return Ok(None);
            }
            let input = match self.input.as_mut() {
                Some(it) => it,
                None => self.input.insert(self.dataset.make_iterator()?),
            };
            // An error leaves everything as it is: the next call reads on.
            if let Some(e) = input.get_next(ctx)? {
                self.data_produced = true;
                return Ok(Some(e));
            }
            self.input = None;
            if !self.data_produced && self.count == -1 {
                self.finished = true;
                return Ok(None);
            }
            self.epoch += 1;
            if self.count != -1 && self.epoch >= self.count {
                self.finished = true;
                return Ok(None);
            }
            self.slices.push_back(0);
            ctx.check()?;
        }
    }
}

impl IteratorBase for ShuffleAndRepeatIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        let mut read = 0u64;
        while !self.finished
            && self.buffer.len() < self.capacity
            && self.slices.len() <= MAX_EPOCHS_IN_BUFFER
        {
            let Some(e) = self.read(ctx)? else {
                break;
            };
            self.buffer.push_back(e);
            match self.slices.back_mut() {
                Some(n) => *n += 1,
                None => self.slices.push_back(1),
            }
            read += 1;
            if read % 1024 == 0 {
                ctx.check()?;
            }
        }
        if self.buffer.is_empty() {
            return Ok(None);
        }
        // The oldest epoch is done: the next one draws from its own stream.
        while self.slices.front() == Some(&0) {
            self.slices.pop_front();
            let (seed, seed2) = self.seeds.next();
            self.words = Words::new(seed, seed2);
        }
        let Some(len) = self.slices.front_mut() else {
            return Err(Error::internal(
                "shuffle_and_repeat lost track of its buffer's epochs",
            ));
        };
        let n = *len;
        *len -= 1;
        Ok(take_random(&mut self.buffer, n, &mut self.words))
    }
}

struct ShuffleAndRepeatKernel {
    reshuffle_each_iteration: bool,
}

impl Kernel for ShuffleAndRepeatKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = input_dataset(ctx, 0)?;
        let capacity = buffer_capacity(ctx.input(1).to_scalar::<i64>()?)?;
        let seed = ctx.input(2).to_scalar::<i64>()? as u64;
        let seed2 = ctx.input(3).to_scalar::<i64>()? as u64;
        let count = ctx.input(4).to_scalar::<i64>()?;
        if count <= 0 && count != -1 {
            return Err(Error::invalid_argument(
                "count must be greater than zero or equal to -1.",
            ));
        }
        let ds = ShuffleAndRepeat {
            input,
            capacity,
            count,
            seeds: Arc::new(seed_generator(seed, seed2, self.reshuffle_each_iteration)),
        };
        ctx.set_output(0, dataset_tensor(Arc::new(ds)));
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        dataset_def("ShuffleAndRepeatDataset")
            .input("input_dataset", ArgType::Fixed(DType::Resource))
            .input("buffer_size", ArgType::Fixed(DType::I64))
            .input("seed", ArgType::Fixed(DType::I64))
            .input("seed2", ArgType::Fixed(DType::I64))
            .input("count", ArgType::Fixed(DType::I64))
            .attr(
                "reshuffle_each_iteration",
                AttrKind::Bool,
                Some(AttrValue::Bool(true)),
            ),
    );
    register_kernel("ShuffleAndRepeatDataset", |node| {
        Ok(Box::new(ShuffleAndRepeatKernel {
            reshuffle_each_iteration: node.attr("reshuffle_each_iteration")?,
        }))
    });
}

impl Dataset {
    /// `dataset.apply(tf.data.experimental.shuffle_and_repeat(buffer_size, count, seed))`: the
    /// elements `count` times over (forever with `None` or -1), each epoch in a new random order
    /// drawn through a buffer of `buffer_size` (1: no shuffle; -2: the whole input), in
    /// TensorFlow's order for a given graph and op seed (op `ShuffleAndRepeatDataset`). The
    /// buffer runs ahead into the next epoch rather than draining at each epoch's end, but no
    /// element comes out before all of the previous epoch's. A `count` of 0 or below -1 fails
    /// when the dataset is made ("count must be greater than zero or equal to -1."), as in
    /// TensorFlow.
    ///
    /// ```
    /// use weir_graph::Graph;
    /// use weir_ops::data::Dataset;
    ///
    /// let g = Graph::new();
    /// g.set_random_seed(1);
    /// let ds = Dataset::range(&g, 0, 10, 1)?.shuffle_and_repeat(4, Some(3), Some(5))?;
    /// assert_eq!(ds.handle().op().op_type(), "ShuffleAndRepeatDataset");
    /// // In a session, TensorFlow's order: 1 0 3 6 5 4 8 7 2 9, then 0 4 3 5 6 8 9 2 7 1, then
    /// // 0 4 1 2 6 7 5 8 3 9.
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn shuffle_and_repeat(
        &self,
        buffer_size: i64,
        count: Option<i64>,
        seed: Option<i64>,
    ) -> Result<Dataset> {
        let g = self.graph();
        // TensorFlow's order of ops: buffer_size, count, then the seeds.
        let buffer_size = crate::array::constant_named(g, buffer_size, "buffer_size")?;
        let count = crate::array::constant_named(g, count.unwrap_or(-1), "count")?;
        let (seed, seed2) = tf_data_seeds(g, seed);
        let seed = crate::array::constant_named(g, seed, "seed")?;
        let seed2 = crate::array::constant_named(g, seed2, "seed2")?;
        self.derive(
            crate::new_op(g, "ShuffleAndRepeatDataset")
                .input(self.handle())
                .input(buffer_size)
                .input(seed)
                .input(seed2)
                .input(count)
                .attr("reshuffle_each_iteration", true),
        )
    }
}
