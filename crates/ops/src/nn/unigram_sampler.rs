//! The learned unigram samplers: `LearnedUnigramCandidateSampler`
//! (`tf.random.learned_unigram_candidate_sampler`) and its raw twin
//! `ThreadUnsafeUnigramCandidateSampler`. Every class of `[0, range_max)` starts with a weight
//! of 1 and gains 1 each time a run sees it among `true_classes`, after that run has drawn.
//!
//! The weights live in the kernel, so each session (and node) learns its own distribution, as
//! TensorFlow's `UnigramSampler` lives in its kernel; nothing is checkpointed. Draws are
//! TensorFlow's: `WeightedPicker::Pick` takes `UnbiasedUniform(total_weight)` from the kernel's
//! Philox stream (reserved as every candidate sampler reserves it) and walks the cumulative
//! weights, so a seeded sampler yields TensorFlow's candidates run after run. weir keeps the
//! cumulative weights in a Fenwick tree of the counts beyond 1 rather than TensorFlow's
//! power-of-two tree of sums: a different layout, the same class for every draw.
//!
//! `ThreadUnsafeUnigramCandidateSampler` differs from the learned sampler in TensorFlow only by
//! skipping its lock; in weir both are locked (concurrent runs of one session take turns).
//! TensorFlow 2.21 never finishes building the kernel for `range_max` = 2^31 - 1 (its picker's
//! size loop overflows); weir fails there with the message newer TensorFlow releases give.

use parking_lot::Mutex;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{Error, Kernel, OpContext, Output, Result, Tensor};

use super::candidate_sampling::{
    check_true_classes, sample_batch, sampler_def, to_i64, CandidateSamples, SimplePhilox,
};
use crate::random::philox::{GuardedPhilox, Single};
use crate::random::with_seed_attrs;

const LEARNED: &str = "LearnedUnigramCandidateSampler";
const THREAD_UNSAFE: &str = "ThreadUnsafeUnigramCandidateSampler";

/// `tf.random.learned_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique,
/// range_max, seed=None)`: classes of `[0, range_max)` drawn with probability proportional to
/// 1 + the number of times this session's runs have seen them in `true_classes`; see
/// [`LearnedUnigramCandidateSampler`].
pub fn learned_unigram_candidate_sampler(
    true_classes: impl Into<Output>,
    num_true: usize,
    num_sampled: usize,
    unique: bool,
    range_max: usize,
    seed: Option<i64>,
) -> Result<CandidateSamples> {
    let mut s = LearnedUnigramCandidateSampler::new(num_true, num_sampled, unique, range_max);
    s.seed = seed;
    s.build(true_classes)
}

/// The raw op `ThreadUnsafeUnigramCandidateSampler` (`tf.raw_ops`), with the seeds taken as
/// the Python samplers take them: the learned unigram sampler without its lock in TensorFlow,
/// the same sampler in weir.
pub fn thread_unsafe_unigram_candidate_sampler(
    true_classes: impl Into<Output>,
    num_true: usize,
    num_sampled: usize,
    unique: bool,
    range_max: usize,
    seed: Option<i64>,
) -> Result<CandidateSamples> {
    let mut s = LearnedUnigramCandidateSampler::new(num_true, num_sampled, unique, range_max)
        .thread_unsafe();
    s.seed = seed;
    s.build(true_classes)
}

/// The options of `tf.random.learned_unigram_candidate_sampler(true_classes, num_true,
/// num_sampled, unique, range_max, seed=None, name=None)`, which adds a
/// `LearnedUnigramCandidateSampler` node (or, with [`thread_unsafe`](Self::thread_unsafe), a
/// `ThreadUnsafeUnigramCandidateSampler`).
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, nn::LearnedUnigramCandidateSampler};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let labels = constant(&g, Tensor::from_vec(&[2, 1], vec![1i64, 2])?)?;
/// let s = LearnedUnigramCandidateSampler::new(1, 4, false, 6).seed(3).build(&labels)?;
/// let sess = Session::new(&g)?;
/// // The first run draws uniformly: each class is expected 4/6 times.
/// assert_eq!(sess.eval(&s.true_expected_count)?.to_vec::<f32>()?, [4.0 / 6.0; 2]);
/// // Having seen them once, classes 1 and 2 weigh 2 of a total of 8.
/// assert_eq!(sess.eval(&s.true_expected_count)?.to_vec::<f32>()?, [1.0; 2]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct LearnedUnigramCandidateSampler {
    num_true: usize,
    num_sampled: usize,
    unique: bool,
    range_max: usize,
    seed: Option<i64>,
    name: Option<String>,
    op: &'static str,
}

impl LearnedUnigramCandidateSampler {
    /// A sampler of `num_sampled` classes of `[0, range_max)` for a `[batch, num_true]` matrix
    /// of true classes.
    pub fn new(
        num_true: usize,
        num_sampled: usize,
        unique: bool,
        range_max: usize,
    ) -> LearnedUnigramCandidateSampler {
        LearnedUnigramCandidateSampler {
            num_true,
            num_sampled,
            unique,
            range_max,
            seed: None,
            name: None,
            op: LEARNED,
        }
    }

    /// The op-level seed.
    pub fn seed(mut self, seed: i64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// The node's name (default the op's type).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Builds the raw `ThreadUnsafeUnigramCandidateSampler` op instead, which has no Python
    /// wrapper (so no wrapper check of `range_max`).
    pub fn thread_unsafe(mut self) -> Self {
        self.op = THREAD_UNSAFE;
        self
    }

    /// Adds the node.
    pub fn build(&self, true_classes: impl Into<Output>) -> Result<CandidateSamples> {
        if self.op == LEARNED && self.range_max > i32::MAX as usize {
            return Err(Error::invalid_argument(format!(
                "Value of range_max:{} is too large to handle",
                self.range_max
            )));
        }
        let t = true_classes.into();
        let g = t.graph().clone();
        let (s1, s2) = g.get_seed(self.seed);
        let node = crate::new_op(&g, self.op)
            .maybe_name(self.name.as_deref())
            .input(t)
            .attr("num_true", to_i64(self.num_true, "num_true")?)
            .attr("num_sampled", to_i64(self.num_sampled, "num_sampled")?)
            .attr("unique", self.unique)
            .attr("range_max", to_i64(self.range_max, "range_max")?)
            .attr("seed", s1)
            .attr("seed2", s2)
            .build()?;
        CandidateSamples::of(&node)
    }
}

/// TensorFlow's `ThreadUnsafeUnigramSampler`: a `WeightedPicker` over the classes, each of
/// weight 1 + its count. `seen` is a 1-based Fenwick tree of the counts.
#[derive(Debug)]
struct LearnedUnigram {
    seen: Vec<i32>,
    total: i32,
}

impl LearnedUnigram {
    fn new(range: i64) -> Result<LearnedUnigram> {
        if range >= i64::from(i32::MAX) {
            return Err(Error::invalid_argument(format!(
                "range_max must be less than {} for unigram samplers, got {range}",
                i32::MAX
            )));
        }
        let n = range.max(0) as usize;
        let mut seen = Vec::new();
        seen.try_reserve_exact(n + 1).map_err(|_| {
            Error::resource_exhausted(format!(
                "cannot allocate the unigram counts of {range} classes"
            ))
        })?;
        seen.resize(n + 1, 0);
        Ok(LearnedUnigram {
            seen,
            total: range as i32,
        })
    }

    fn range(&self) -> usize {
        self.seen.len() - 1
    }

    /// The counts of the classes before `k`.
    fn seen_before(&self, k: usize) -> i64 {
        let (mut i, mut sum) = (k, 0i64);
        while i > 0 {
            sum += i64::from(self.seen[i]);
            i &= i - 1;
        }
        sum
    }

    fn weight(&self, class: usize) -> i64 {
        1 + self.seen_before(class + 1) - self.seen_before(class)
    }

    /// `WeightedPicker::Pick`: the class whose share of the cumulative weights holds a uniform
    /// draw below the total.
    fn pick(&self, rnd: &mut SimplePhilox<'_>) -> i64 {
        let mut rest = i64::from(rnd.uniform32(self.total as u32));
        let n = self.range();
        let mut class = 0usize;
        let mut step = if n == 0 { 0 } else { 1 << n.ilog2() };
        // Skip whole Fenwick nodes (`step` classes each) while they all lie before the draw.
        while step > 0 {
            let next = class + step;
            if next <= n {
                let w = step as i64 + i64::from(self.seen[next]);
                if w <= rest {
                    class = next;
                    rest -= w;
                }
            }
            step >>= 1;
        }
        class as i64
    }

    /// `weight / total_weight`, in float as TensorFlow divides.
    fn probability(&self, class: i64) -> f32 {
        self.weight(class as usize) as f32 / self.total as f32
    }

    /// `Update`: one more sighting of each value, as long as the total weight fits in an int32.
    fn update(&mut self, values: &[i64]) {
        let room = (i32::MAX - self.total) as usize;
        for &v in values.iter().take(room) {
            let mut i = v as usize + 1;
            while i < self.seen.len() {
                self.seen[i] += 1;
                i += i & i.wrapping_neg();
            }
            self.total += 1;
        }
    }
}

struct UnigramKernel {
    num_true: i64,
    num_sampled: i64,
    unique: bool,
    range: i64,
    picker: Mutex<LearnedUnigram>,
    gen: GuardedPhilox,
}

impl Kernel for UnigramKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = ctx.input(0);
        let classes =
            check_true_classes(t, self.num_true, self.num_sampled, self.unique, self.range)?;
        let n = self.num_sampled as usize;
        let mut local = self.gen.reserve_words(2048 * self.num_sampled as u64);
        let mut rnd = SimplePhilox(Single::new(&mut local));
        let mut batch = vec![0i64; n];
        // One lock over the draw and the update keeps every run's view consistent.
        let mut picker = self.picker.lock();
        let p = &*picker;
        let (sampled_count, true_count) = sample_batch(
            &mut rnd,
            self.unique,
            &mut batch,
            classes,
            |r| p.pick(r),
            |v| p.probability(v),
        );
        picker.update(classes);
        drop(picker);
        let shape = [t.shape()[0], self.num_true as usize];
        let true_count = Tensor::from_vec(&shape, true_count)?;
        ctx.set_output(0, Tensor::from_vec(&[n], batch)?);
        ctx.set_output(1, true_count);
        ctx.set_output(2, Tensor::from_vec(&[n], sampled_count)?);
        Ok(())
    }
}

pub(super) fn register() {
    for name in [LEARNED, THREAD_UNSAFE] {
        register_op(with_seed_attrs(sampler_def(name, true)));
        register_kernel(name, |node| {
            let range: i64 = node.attr("range_max")?;
            Ok(Box::new(UnigramKernel {
                num_true: node.attr("num_true")?,
                num_sampled: node.attr("num_sampled")?,
                unique: node.attr("unique")?,
                range,
                picker: Mutex::new(LearnedUnigram::new(range)?),
                gen: GuardedPhilox::from_node(node)?,
            }))
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::philox::Philox;

    /// The class a linear walk of the cumulative weights finds.
    fn linear_pick(weights: &[i64], pos: i64) -> i64 {
        let mut acc = 0;
        for (c, &w) in weights.iter().enumerate() {
            acc += w;
            if pos < acc {
                return c as i64;
            }
        }
        unreachable!("{pos} beyond the total")
    }

    #[test]
    fn picks_follow_the_cumulative_weights() {
        for range in [1i64, 2, 3, 7, 8, 13, 64, 100] {
            let mut u = LearnedUnigram::new(range).unwrap();
            let seen: Vec<i64> = (0..40).map(|i| (i * 7 + 3) % range).collect();
            u.update(&seen);
            let weights: Vec<i64> = (0..range as usize).map(|c| u.weight(c)).collect();
            assert_eq!(weights.iter().sum::<i64>(), i64::from(u.total));
            let mut g = Philox::new(5, range as u64);
            let mut a = SimplePhilox(Single::new(&mut g));
            let mut h = Philox::new(5, range as u64);
            let mut b = SimplePhilox(Single::new(&mut h));
            for _ in 0..200 {
                let pos = i64::from(b.uniform32(u.total as u32));
                assert_eq!(u.pick(&mut a), linear_pick(&weights, pos), "range {range}");
            }
        }
    }

    #[test]
    fn updates_stop_at_the_int32_total() {
        let mut u = LearnedUnigram::new(4).unwrap();
        u.total = i32::MAX - 2;
        u.update(&[1, 1, 3, 3, 3]);
        assert_eq!(u.total, i32::MAX);
        assert_eq!((u.weight(1), u.weight(3)), (3, 1));
    }

    #[test]
    fn range_must_fit_an_int32_weight() {
        let e = LearnedUnigram::new(i64::from(i32::MAX)).unwrap_err();
        assert_eq!(
            e.message(),
            "range_max must be less than 2147483647 for unigram samplers, got 2147483647"
        );
    }
}
