//! `ShuffleDataset` (`Dataset.shuffle`), `PrefetchDataset` (`Dataset.prefetch`, in
//! `prefetch.rs`) and `ShuffleAndRepeatDataset` (`tf.data.experimental.shuffle_and_repeat`, in
//! `repeat.rs`).
//!
//! A seeded shuffle gives TensorFlow 2.21's exact order. The dataset keeps a seed generator
//! (TensorFlow's `RandomSeedGenerator`, or `FixedSeedGenerator` without
//! `reshuffle_each_iteration`): a Philox stream of the op's `(seed, seed2)` that hands each new
//! iterator (each `repeat` epoch) two 32-bit words as its own `(seed, seed2)`. The iterator
//! keeps a buffer of up to `buffer_size` elements and, for each output, draws one word `r` of
//! its Philox stream (`SingleSampleAdapter<PhiloxRandom>`), outputs the element at
//! `r % len`, moves the oldest buffered element into its place, and refills from the input.
//!
//! With only a graph-level seed, the op seed is the graph's count of seedless ops so far, as
//! TensorFlow 2.21 numbers them ([`Graph::get_seed`](weir_graph::Graph::get_seed)), so such a
//! shuffle has TensorFlow's order too (`list_files` checks one).

mod prefetch;
mod repeat;
#[cfg(test)]
mod tests;

use std::collections::VecDeque;
use std::sync::Arc;

use parking_lot::Mutex;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, AttrKind, AttrValue, DType, Error, Kernel, OpContext, Result};

use super::arg::I64Arg;
use super::{
    dataset_def, dataset_tensor, input_dataset, Dataset, DatasetBase, Element, IteratorBase,
    IteratorContext,
};
use crate::random::philox::{fresh_seed, Philox};

/// TensorFlow's `UNKNOWN_CARDINALITY` as a shuffle buffer size: a buffer holding the whole input.
const WHOLE_INPUT: i64 = -2;

/// A Philox stream handing out one 32-bit word at a time (TensorFlow's
/// `SingleSampleAdapter<PhiloxRandom>`), owning its generator; `RandomDataset` reads one too.
pub(super) struct Words {
    gen: Philox,
    block: [u32; 4],
    used: usize,
}

impl Words {
    pub(super) fn new(seed: u64, seed2: u64) -> Words {
        Words {
            gen: Philox::new(seed, seed2),
            block: [0; 4],
            used: 4,
        }
    }

    pub(super) fn next_u32(&mut self) -> u32 {
        if self.used == 4 {
            self.block = self.gen.next_block();
            self.used = 0;
        }
        let w = self.block[self.used];
        self.used += 1;
        w
    }
}

/// Where each iterator of a shuffle dataset gets its seeds.
enum Seeds {
    /// `reshuffle_each_iteration=True`: two fresh words of this stream per iterator.
    Reshuffling(Mutex<Words>),
    /// `reshuffle_each_iteration=False`: the same seeds for every iterator.
    Fixed(u64, u64),
}

impl Seeds {
    fn next(&self) -> (u64, u64) {
        match self {
            Seeds::Reshuffling(words) => {
                let mut w = words.lock();
                let s = w.next_u32();
                let s2 = w.next_u32();
                (u64::from(s), u64::from(s2))
            }
            Seeds::Fixed(s, s2) => (*s, *s2),
        }
    }
}

/// The elements of `input` in a pseudorandom order, through a buffer of `capacity`.
struct ShuffleData {
    input: Arc<dyn DatasetBase>,
    capacity: usize,
    seeds: Seeds,
}

impl DatasetBase for ShuffleData {
    fn cardinality(&self) -> i64 {
        self.input.cardinality()
    }

    fn output_dtypes(&self) -> &[DType] {
        self.input.output_dtypes()
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        let (seed, seed2) = self.seeds.next();
        Ok(Box::new(ShuffleIter {
            input: Some(self.input.make_iterator()?),
            buffer: VecDeque::with_capacity(self.capacity.min(1024)),
            capacity: self.capacity,
            words: Words::new(seed, seed2),
        }))
    }
}

struct ShuffleIter {
    /// `None` once the input has ended.
    input: Option<Box<dyn IteratorBase>>,
    /// The buffered elements, oldest first.
    buffer: VecDeque<Element>,
    capacity: usize,
    words: Words,
}

impl IteratorBase for ShuffleIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        let mut read = 0u64;
        while self.buffer.len() < self.capacity {
            let Some(input) = self.input.as_mut() else {
                break;
            };
            // An error leaves the buffer as it is: the next call goes on filling it.
            match input.get_next(ctx)? {
                Some(e) => self.buffer.push_back(e),
                None => self.input = None,
            }
            read += 1;
            if read % 1024 == 0 {
                ctx.check()?;
            }
        }
        let len = self.buffer.len();
        Ok(take_random(&mut self.buffer, len, &mut self.words))
    }
}

/// One of the `len` oldest elements of `buffer`, chosen by the next word of `words` (`r %
/// len`); the oldest element takes the chosen one's place, as in TensorFlow. `None` when `len`
/// is 0.
fn take_random(buffer: &mut VecDeque<Element>, len: usize, words: &mut Words) -> Option<Element> {
    if len == 0 {
        return None;
    }
    let r = u64::from(words.next_u32());
    let i = (r % len as u64) as usize;
    buffer.swap_remove_front(i)
}

/// The buffer capacity of a `buffer_size` input: -2 (UNKNOWN_CARDINALITY) holds the whole input.
fn buffer_capacity(buffer_size: i64) -> Result<usize> {
    match buffer_size {
        WHOLE_INPUT => Ok(usize::MAX),
        n if n > 0 => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
        _ => Err(Error::invalid_argument(
            "buffer_size must be greater than zero or UNKNOWN_CARDINALITY",
        )),
    }
}

/// The seed generator of a dataset op with inputs `seed` and `seed2`.
fn seed_generator(mut seed: u64, mut seed2: u64, reshuffle_each_iteration: bool) -> Seeds {
    // Both 0: nondeterministic seeds, fixed for this dataset (TensorFlow's `RandomSeeds`).
    if seed == 0 && seed2 == 0 {
        seed = fresh_seed();
        seed2 = fresh_seed();
    }
    if reshuffle_each_iteration {
        Seeds::Reshuffling(Mutex::new(Words::new(seed, seed2)))
    } else {
        Seeds::Fixed(seed, seed2)
    }
}

struct ShuffleKernel {
    reshuffle_each_iteration: bool,
}

impl Kernel for ShuffleKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = input_dataset(ctx, 0)?;
        let capacity = buffer_capacity(ctx.input(1).to_scalar::<i64>()?)?;
        let seed = ctx.input(2).to_scalar::<i64>()? as u64;
        let seed2 = ctx.input(3).to_scalar::<i64>()? as u64;
        let seeds = seed_generator(seed, seed2, self.reshuffle_each_iteration);
        let ds = ShuffleData {
            input,
            capacity,
            seeds,
        };
        ctx.set_output(0, dataset_tensor(Arc::new(ds)));
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        dataset_def("ShuffleDataset")
            .input("input_dataset", ArgType::Fixed(DType::Resource))
            .input("buffer_size", ArgType::Fixed(DType::I64))
            .input("seed", ArgType::Fixed(DType::I64))
            .input("seed2", ArgType::Fixed(DType::I64))
            .attr(
                "reshuffle_each_iteration",
                AttrKind::Bool,
                Some(AttrValue::Bool(true)),
            ),
    );
    register_kernel("ShuffleDataset", |node| {
        Ok(Box::new(ShuffleKernel {
            reshuffle_each_iteration: node.attr("reshuffle_each_iteration")?,
        }))
    });
    prefetch::register();
    repeat::register();
}

/// `dataset.shuffle(buffer_size, seed, reshuffle_each_iteration)` being configured: made by
/// [`Dataset::shuffle_with`], added to the graph by [`build`](Self::build).
///
/// ```
/// use weir_graph::Graph;
/// use weir_ops::data::Dataset;
///
/// let g = Graph::new();
/// g.set_random_seed(1);
/// let ds = Dataset::range(&g, 0, 10, 1)?
///     .shuffle_with(4)
///     .seed(5)
///     .reshuffle_each_iteration(false)
///     .build()?
///     .repeat(Some(2))?;
/// let next = ds.make_one_shot_iterator()?.get_next()?;
/// // In a session: TensorFlow's order, 2 4 1 5 3 0 8 6 7 9, twice.
/// # let _ = next;
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
#[must_use = "the shuffle is added to the graph by `build`"]
pub struct Shuffle {
    dataset: Dataset,
    buffer_size: I64Arg,
    seed: Option<i64>,
    reshuffle_each_iteration: bool,
}

impl Shuffle {
    /// The op-level `seed`, combined with the graph's seed by
    /// [`Graph::get_seed`](weir_graph::Graph::get_seed) (TensorFlow's `seed` argument).
    pub fn seed(mut self, seed: i64) -> Shuffle {
        self.seed = Some(seed);
        self
    }

    /// Sets the op-level seed only when `seed` is given.
    pub fn maybe_seed(mut self, seed: Option<i64>) -> Shuffle {
        self.seed = seed;
        self
    }

    /// TensorFlow's `reshuffle_each_iteration` (default true): whether each iterator (each
    /// `repeat` epoch) gets a new order; false repeats the first order.
    pub fn reshuffle_each_iteration(mut self, reshuffle: bool) -> Shuffle {
        self.reshuffle_each_iteration = reshuffle;
        self
    }

    /// Adds the `ShuffleDataset` op, with TensorFlow's inputs `buffer_size`, `seed`, `seed2`.
    pub fn build(self) -> Result<Dataset> {
        let ds = &self.dataset;
        let g = ds.graph();
        let buffer_size = self.buffer_size.to_output(g, "buffer_size", true)?;
        // After `buffer_size`, in TensorFlow's order of ops.
        let (seed, seed2) = tf_data_seeds(g, self.seed);
        let seed = crate::array::constant_named(g, seed, "seed")?;
        let seed2 = crate::array::constant_named(g, seed2, "seed2")?;
        ds.derive(
            crate::new_op(g, "ShuffleDataset")
                .input(ds.handle())
                .input(buffer_size)
                .input(seed)
                .input(seed2)
                .attr("reshuffle_each_iteration", self.reshuffle_each_iteration),
        )
    }
}

/// The `(seed, seed2)` of a dataset op: [`Graph::get_seed`](weir_graph::Graph::get_seed)'s
/// pair, (0, 0) without any seed.
pub(super) fn tf_data_seeds(g: &weir_graph::Graph, op_seed: Option<i64>) -> (i64, i64) {
    if op_seed.is_none() && g.random_seed().is_none() {
        return (0, 0);
    }
    g.get_seed(op_seed)
}

impl Dataset {
    /// `dataset.shuffle(buffer_size)`: the elements in a random order, drawn from a buffer of
    /// `buffer_size` (1: no shuffle; -2: the whole input), a new order for each `repeat`
    /// epoch (op `ShuffleDataset`). See [`shuffle_with`](Self::shuffle_with) for a seed.
    ///
    /// ```
    /// use weir_graph::Graph;
    /// use weir_ops::data::Dataset;
    ///
    /// let g = Graph::new();
    /// let ds = Dataset::range(&g, 0, 100, 1)?.shuffle(10)?.batch(8)?;
    /// assert_eq!(ds.handle().op().inputs()[0].op().op_type(), "ShuffleDataset");
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn shuffle(&self, buffer_size: impl Into<I64Arg>) -> Result<Dataset> {
        self.shuffle_with(buffer_size).build()
    }

    /// `dataset.shuffle(buffer_size, seed=None, reshuffle_each_iteration=True)` with
    /// TensorFlow's defaults, to be set on the returned [`Shuffle`] before its `build`.
    pub fn shuffle_with(&self, buffer_size: impl Into<I64Arg>) -> Shuffle {
        Shuffle {
            dataset: self.clone(),
            buffer_size: buffer_size.into(),
            seed: None,
            reshuffle_each_iteration: true,
        }
    }

    /// `dataset.prefetch(buffer_size)`: the same elements, read ahead by a background thread
    /// into a buffer of up to `buffer_size` (0: no thread; -1, `AUTOTUNE`: 8 here) (op
    /// `PrefetchDataset`).
    ///
    /// ```
    /// use weir_graph::Graph;
    /// use weir_ops::data::Dataset;
    ///
    /// let g = Graph::new();
    /// let ds = Dataset::range(&g, 0, 100, 1)?.batch(10)?.prefetch(2)?;
    /// let next = ds.make_one_shot_iterator()?.get_next()?;
    /// // In a session: [0..10), [10..20), ... in order, then OutOfRange.
    /// # let _ = next;
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn prefetch(&self, buffer_size: impl Into<I64Arg>) -> Result<Dataset> {
        let g = self.graph();
        let size = buffer_size.into().to_output(g, "buffer_size", true)?;
        self.derive(
            crate::new_op(g, "PrefetchDataset")
                .input(self.handle())
                .input(size),
        )
    }
}
