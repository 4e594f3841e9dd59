//! Candidate sampling (`tf.random.uniform_candidate_sampler`,
//! `tf.random.log_uniform_candidate_sampler`, `tf.nn.compute_accidental_hits`): the ops
//! `UniformCandidateSampler`, `LogUniformCandidateSampler`, `FixedUnigramCandidateSampler`
//! (its unigram table is in `fixed_unigram.rs`) and `ComputeAccidentalHits`, with
//! TensorFlow's attrs, defaults, shape functions and error messages; the checks, drawing loop
//! and op signature shared with `AllCandidateSampler` (`all_sampler.rs`) and the learned
//! unigram samplers (`unigram_sampler.rs`).
//!
//! The samplers draw exactly as TensorFlow's kernels (`candidate_sampler_ops.cc`,
//! `range_sampler.cc`) draw: each run reserves `2048 * num_sampled` 32-bit samples of the
//! kernel's Philox stream and reads them through `SimplePhilox` (`Uniform64` by rejection for
//! the uniform sampler, `exp(RandDouble() * log(range_max + 1)) - 1` for the log-uniform one),
//! so a seeded sampler yields TensorFlow's candidates. With `unique`, draws repeat until
//! `num_sampled` distinct values are found, and the expected counts are
//! `-expm1(num_tries * log1p(-p))`; without it, `p * num_sampled`.

use std::collections::{HashMap, HashSet};

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output,
    Result, Shape, Tensor,
};

use super::fixed_unigram::FixedUnigram;
use crate::random::philox::{u32_to_f32, GuardedPhilox, Single};
use crate::random::with_seed_attrs;

/// The three outputs of a candidate sampler, also the `sampled_values` argument of the sampled
/// losses: `sampled_candidates` (int64 `[num_sampled]`), `true_expected_count` (float32
/// `[batch, num_true]`) and `sampled_expected_count` (float32 `[num_sampled]`).
#[derive(Clone, Debug)]
pub struct CandidateSamples {
    /// The sampled classes.
    pub sampled_candidates: Output,
    /// The expected count of each true class in a sample.
    pub true_expected_count: Output,
    /// The expected count of each sampled class in a sample.
    pub sampled_expected_count: Output,
}

impl CandidateSamples {
    /// Fixed samples (as TensorFlow's `sampled_values` tuple).
    pub fn new(
        sampled_candidates: impl Into<Output>,
        true_expected_count: impl Into<Output>,
        sampled_expected_count: impl Into<Output>,
    ) -> CandidateSamples {
        CandidateSamples {
            sampled_candidates: sampled_candidates.into(),
            true_expected_count: true_expected_count.into(),
            sampled_expected_count: sampled_expected_count.into(),
        }
    }

    /// The three outputs of a sampler node.
    pub(super) fn of(node: &weir_graph::Operation) -> Result<CandidateSamples> {
        Ok(CandidateSamples {
            sampled_candidates: node.output(0)?,
            true_expected_count: node.output(1)?,
            sampled_expected_count: node.output(2)?,
        })
    }
}

/// `tf.random.uniform_candidate_sampler(true_classes, num_true, num_sampled, unique,
/// range_max, seed=None)`: `num_sampled` classes drawn uniformly from `[0, range_max)`.
/// `true_classes` is an int64 `[batch, num_true]` matrix.
///
/// ```
/// # use weir_graph::{Graph, Shape, Tensor};
/// # use weir_ops::{array::constant, nn::uniform_candidate_sampler};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let labels = constant(&g, Tensor::from_vec(&[2, 1], vec![3i64, 7])?)?;
/// let s = uniform_candidate_sampler(&labels, 1, 5, true, 10, Some(7))?;
/// assert_eq!(s.true_expected_count.shape(), Shape::known(&[2, 1]));
/// let c = Session::new(&g)?.eval(&s.sampled_candidates)?.to_vec::<i64>()?;
/// assert!(c.iter().all(|&v| (0..10).contains(&v)));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn uniform_candidate_sampler(
    true_classes: impl Into<Output>,
    num_true: usize,
    num_sampled: usize,
    unique: bool,
    range_max: usize,
    seed: Option<i64>,
) -> Result<CandidateSamples> {
    sampler(
        "UniformCandidateSampler",
        true_classes.into(),
        num_true,
        num_sampled,
        unique,
        range_max,
        seed,
    )
}

/// `tf.random.log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique,
/// range_max, seed=None)`: classes drawn from the Zipfian distribution
/// `P(c) = log((c + 2) / (c + 1)) / log(range_max + 1)`, as word2vec samples negatives.
pub fn log_uniform_candidate_sampler(
    true_classes: impl Into<Output>,
    num_true: usize,
    num_sampled: usize,
    unique: bool,
    range_max: usize,
    seed: Option<i64>,
) -> Result<CandidateSamples> {
    sampler(
        "LogUniformCandidateSampler",
        true_classes.into(),
        num_true,
        num_sampled,
        unique,
        range_max,
        seed,
    )
}

pub(super) fn to_i64(v: usize, what: &str) -> Result<i64> {
    i64::try_from(v).map_err(|_| Error::invalid_argument(format!("{what} {v} is too large")))
}

fn sampler(
    op: &str,
    true_classes: Output,
    num_true: usize,
    num_sampled: usize,
    unique: bool,
    range_max: usize,
    seed: Option<i64>,
) -> Result<CandidateSamples> {
    let g = true_classes.graph().clone();
    let (s1, s2) = g.get_seed(seed);
    let node = crate::new_op(&g, op)
        .input(true_classes)
        .attr("num_true", to_i64(num_true, "num_true")?)
        .attr("num_sampled", to_i64(num_sampled, "num_sampled")?)
        .attr("unique", unique)
        .attr("range_max", to_i64(range_max, "range_max")?)
        .attr("seed", s1)
        .attr("seed2", s2)
        .build()?;
    CandidateSamples::of(&node)
}

/// `tf.nn.compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None)`:
/// the positions where a sampled candidate equals one of its row's true classes, as
/// `(indices, ids, weights)`: the row (int32), the position in `sampled_candidates` (int64)
/// and `-FLT_MAX` (float32), in row-major order of the true classes. A candidate sampled twice
/// is found at its last position.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, nn::compute_accidental_hits};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let labels = constant(&g, Tensor::from_vec(&[2, 1], vec![3i64, 7])?)?;
/// let (idx, ids, _) = compute_accidental_hits(&labels, constant(&g, vec![7i64, 1, 3])?, 1, None)?;
/// let sess = Session::new(&g)?;
/// assert_eq!(sess.eval(&idx)?.to_vec::<i32>()?, [0, 1]);
/// assert_eq!(sess.eval(&ids)?.to_vec::<i64>()?, [2, 0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn compute_accidental_hits(
    true_classes: impl Into<Output>,
    sampled_candidates: impl Into<Output>,
    num_true: usize,
    seed: Option<i64>,
) -> Result<(Output, Output, Output)> {
    let (t, s) = (true_classes.into(), sampled_candidates.into());
    let g = crate::util::same_graph(&[&t, &s])?.clone();
    let (s1, s2) = g.get_seed(seed);
    let node = crate::new_op(&g, "ComputeAccidentalHits")
        .input(t)
        .input(s)
        .attr("num_true", to_i64(num_true, "num_true")?)
        .attr("seed", s1)
        .attr("seed2", s2)
        .build()?;
    Ok((node.output(0)?, node.output(1)?, node.output(2)?))
}

/// TensorFlow's `SimplePhilox` over a `SingleSampleAdapter`.
pub(super) struct SimplePhilox<'a>(pub(super) Single<'a>);

impl SimplePhilox<'_> {
    fn rand64(&mut self) -> u64 {
        let lo = self.0.next_u32() as u64;
        let hi = self.0.next_u32() as u64;
        lo | hi << 32
    }

    /// `ExactUniformInt<uint32>` (`SimplePhilox::Uniform`), also `WeightedPicker`'s
    /// `UnbiasedUniform`: both mask a power of two and reject the values that skew the modulus.
    pub(super) fn uniform32(&mut self, n: u32) -> u32 {
        if n <= 1 {
            self.0.next_u32();
            return 0;
        }
        if n & (n - 1) == 0 {
            return self.0.next_u32() & (n - 1);
        }
        let rem = (u32::MAX % n) + 1;
        loop {
            let r = self.0.next_u32();
            if r >= rem {
                return r % n;
            }
        }
    }

    /// `ExactUniformInt<uint64>`: a power of two masks, anything else rejects the low values
    /// that would skew the modulus; 0 and 1 still consume a sample.
    fn uniform64(&mut self, n: u64) -> u64 {
        if n <= 1 {
            self.rand64();
            return 0;
        }
        if n & (n - 1) == 0 {
            return self.rand64() & (n - 1);
        }
        let rem = (u64::MAX % n) + 1;
        loop {
            let r = self.rand64();
            if r >= rem {
                return r % n;
            }
        }
    }
}

/// A range sampler of TensorFlow's `range_sampler.h`.
#[derive(Clone, Debug)]
enum RangeSampler {
    /// `UniformSampler`: `inv_range` is a float, as TensorFlow stores it.
    Uniform { range: i64, inv_range: f32 },
    /// `LogUniformSampler`.
    LogUniform { range: i64, log_range: f64 },
    /// `FixedUnigramSampler` over a list of unigrams.
    Fixed {
        range: i64,
        sampler: Box<FixedUnigram>,
    },
}

impl RangeSampler {
    fn from_node(node: &weir_graph::Node) -> Result<RangeSampler> {
        let range: i64 = node.attr("range_max")?;
        Ok(match node.op_type() {
            "UniformCandidateSampler" => RangeSampler::Uniform {
                range,
                inv_range: (1.0 / range as f64) as f32,
            },
            "LogUniformCandidateSampler" => RangeSampler::LogUniform {
                range,
                log_range: (range as f64).ln_1p(),
            },
            _ => RangeSampler::Fixed {
                range,
                sampler: Box::new(FixedUnigram::from_node(node)?),
            },
        })
    }

    /// How many distinct values can be drawn.
    fn support(&self) -> i64 {
        match self {
            RangeSampler::Fixed { sampler, .. } => sampler.support(),
            other => other.range(),
        }
    }

    fn range(&self) -> i64 {
        match *self {
            RangeSampler::Uniform { range, .. }
            | RangeSampler::LogUniform { range, .. }
            | RangeSampler::Fixed { range, .. } => range,
        }
    }

    fn sample(&self, rnd: &mut SimplePhilox<'_>) -> i64 {
        match *self {
            RangeSampler::Uniform { range, .. } => rnd.uniform64(range as u64) as i64,
            RangeSampler::LogUniform { range, log_range } => {
                let d = rnd.0.next_f64();
                let value = (d * log_range).exp() as i64 - 1;
                value % range
            }
            RangeSampler::Fixed { ref sampler, .. } => {
                let r = u32_to_f32(rnd.0.next_u32());
                sampler.sample(r, |n| rnd.uniform32(n))
            }
        }
    }

    fn probability(&self, value: i64) -> f32 {
        match *self {
            RangeSampler::Uniform { inv_range, .. } => inv_range,
            RangeSampler::Fixed { ref sampler, .. } => sampler.probability(value),
            RangeSampler::LogUniform { log_range, .. } => {
                (((value as f64 + 2.0) / (value as f64 + 1.0)).ln() / log_range) as f32
            }
        }
    }
}

/// `RangeSampler::SampleBatchGetExpectedCount` over any sampler's `Sample` and `Probability`:
/// fills `batch` (with distinct values if `unique`, redrawing repeats) and returns the expected
/// counts of the batch and of `extras`.
pub(super) fn sample_batch(
    rnd: &mut SimplePhilox<'_>,
    unique: bool,
    batch: &mut [i64],
    extras: &[i64],
    mut sample: impl FnMut(&mut SimplePhilox<'_>) -> i64,
    probability: impl Fn(i64) -> f32,
) -> (Vec<f32>, Vec<f32>) {
    let batch_size = batch.len();
    let num_tries = if unique {
        let mut used = HashSet::with_capacity(batch_size);
        let (mut picked, mut tries) = (0usize, 0usize);
        while picked < batch_size {
            tries += 1;
            let v = sample(rnd);
            if used.insert(v) {
                batch[picked] = v;
                picked += 1;
            }
        }
        tries
    } else {
        for b in batch.iter_mut() {
            *b = sample(rnd);
        }
        batch_size
    };
    let count = |v: i64| expected_count(probability(v), batch_size, num_tries);
    (
        batch.iter().map(|&v| count(v)).collect(),
        extras.iter().map(|&v| count(v)).collect(),
    )
}

/// TensorFlow's `ExpectedCountHelper`, in float as it computes it.
fn expected_count(p: f32, batch_size: usize, num_tries: usize) -> f32 {
    if num_tries == batch_size {
        return p * batch_size as i32 as f32;
    }
    -(num_tries as i32 as f32 * (-p).ln_1p()).exp_m1()
}

struct SamplerKernel {
    sampler: RangeSampler,
    num_true: i64,
    num_sampled: i64,
    unique: bool,
    gen: GuardedPhilox,
}

impl Kernel for SamplerKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = ctx.input(0);
        let true_classes = check_true_classes(
            t,
            self.num_true,
            self.num_sampled,
            self.unique,
            self.sampler.range(),
        )?;
        let batch = t.shape()[0];
        if self.unique && self.num_sampled > self.sampler.support() {
            // TensorFlow would resample for ever.
            return Err(Error::invalid_argument(format!(
                "Sampler can draw only {} distinct values, fewer than num_sampled {}",
                self.sampler.support(),
                self.num_sampled
            )));
        }
        let n = self.num_sampled as usize;
        let mut local = self.gen.reserve_words(2048 * self.num_sampled as u64);
        let mut rnd = SimplePhilox(Single::new(&mut local));
        let mut batch_out = vec![0i64; n];
        let s = &self.sampler;
        let (sampled_count, true_count) = sample_batch(
            &mut rnd,
            self.unique,
            &mut batch_out,
            true_classes,
            |r| s.sample(r),
            |v| s.probability(v),
        );
        ctx.set_output(0, Tensor::from_vec(&[n], batch_out)?);
        ctx.set_output(
            1,
            Tensor::from_vec(&[batch, self.num_true as usize], true_count)?,
        );
        ctx.set_output(2, Tensor::from_vec(&[n], sampled_count)?);
        Ok(())
    }
}

/// `BaseCandidateSamplerOp`'s checks of a run, in its order: `true_classes` is a
/// `[batch, num_true]` matrix, `unique` asks for no more than `range` values, and every true
/// class is in `[0, range)`. Returns the true classes.
pub(super) fn check_true_classes(
    t: &Tensor,
    num_true: i64,
    num_sampled: i64,
    unique: bool,
    range: i64,
) -> Result<&[i64]> {
    if t.rank() != 2 {
        return Err(Error::invalid_argument("true_classes must be a matrix"));
    }
    // TensorFlow's message names the columns first.
    if t.shape()[1] as i64 != num_true {
        return Err(Error::invalid_argument(format!(
            "true_classes must have num_true columns, expected: {} was: {num_true}",
            t.shape()[1],
        )));
    }
    if unique && num_sampled > range {
        return Err(Error::invalid_argument("Sampler's range is too small."));
    }
    let classes = t.as_slice::<i64>()?;
    if let Some(c) = classes.iter().find(|&&c| !(0..range).contains(&c)) {
        return Err(Error::invalid_argument(format!(
            "`true_candidate` out of range [0, {range}), received {c}"
        )));
    }
    Ok(classes)
}

struct AccidentalHitsKernel {
    num_true: i64,
}

impl Kernel for AccidentalHitsKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (t, s) = (ctx.input(0), ctx.input(1));
        if t.rank() != 2 || t.shape()[1] as i64 != self.num_true {
            return Err(Error::invalid_argument(
                "true_candidates must be a batch_size * num_true matrix",
            ));
        }
        if s.rank() != 1 {
            return Err(Error::invalid_argument(
                "sampled_candidates must be a vector, which is typically an output from \
                 CandidateSampler",
            ));
        }
        let mut pos: HashMap<i64, i64> = HashMap::new();
        for (i, &c) in s.as_slice::<i64>()?.iter().enumerate() {
            pos.insert(c, i as i64);
        }
        let (mut indices, mut ids) = (Vec::new(), Vec::new());
        let nt = self.num_true as usize;
        if nt > 0 {
            for (i, row) in t.as_slice::<i64>()?.chunks_exact(nt).enumerate() {
                for c in row {
                    if let Some(&p) = pos.get(c) {
                        indices.push(i as i32);
                        ids.push(p);
                    }
                }
            }
        }
        let weights = vec![-f32::MAX; ids.len()];
        ctx.set_output(0, Tensor::from(indices));
        ctx.set_output(1, Tensor::from(ids));
        ctx.set_output(2, Tensor::from(weights));
        Ok(())
    }
}

fn sampler_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let num_sampled: i64 = ctx.attr("num_sampled")?;
    let num_true: i64 = ctx.attr("num_true")?;
    let t = ctx.with_rank(0, 2)?;
    let v = Shape::new(vec![usize::try_from(num_sampled).ok()]);
    ctx.set_output(0, v.clone());
    ctx.set_output(
        1,
        Shape::new(vec![t.dim(0), usize::try_from(num_true).ok()]),
    );
    ctx.set_output(2, v);
    Ok(())
}

fn hits_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let num_true: i64 = ctx.attr("num_true")?;
    let t = ctx.with_rank(0, 2)?;
    if let Some(d) = t.dim(1) {
        if d as i64 != num_true {
            return Err(Error::invalid_argument(format!(
                "Dimension must be {num_true} but is {d} for '{}' with input shapes: {}",
                ctx.op_type,
                ctx.input_shape(0)
            )));
        }
    }
    ctx.with_rank(1, 1)?;
    for i in 0..3 {
        ctx.set_output(i, Shape::new(vec![None]));
    }
    Ok(())
}

const SAMPLERS: [&str; 3] = [
    "UniformCandidateSampler",
    "LogUniformCandidateSampler",
    "FixedUnigramCandidateSampler",
];

/// Adds `FixedUnigramCandidateSampler`'s own attrs (TensorFlow's defaults) to `def`.
fn fixed_unigram_attrs(mut def: OpDef) -> OpDef {
    def = def
        .attr(
            "vocab_file",
            AttrKind::Str,
            Some(AttrValue::Str(String::new())),
        )
        .attr("distortion", AttrKind::Float, Some(AttrValue::Float(1.0)))
        .attr("num_reserved_ids", AttrKind::Int, Some(AttrValue::Int(0)));
    for (name, min, default) in [("num_shards", 1, 1), ("shard", 0, 0)] {
        def.attrs.push(weir_graph::AttrDef {
            name,
            kind: AttrKind::Int,
            default: Some(AttrValue::Int(default)),
            allowed: None,
            min: Some(min),
        });
    }
    def.attr(
        "unigrams",
        AttrKind::Floats,
        Some(AttrValue::Floats(Vec::new())),
    )
}

/// The signature every candidate sampler op shares, without its seeds (added last, after the
/// sampler's own attrs); `AllCandidateSampler` has no `range_max`.
pub(super) fn sampler_def(name: &'static str, range_max: bool) -> OpDef {
    let def = OpDef::new(name)
        .input("true_classes", ArgType::Fixed(DType::I64))
        .output("sampled_candidates", ArgType::Fixed(DType::I64))
        .output("true_expected_count", ArgType::Fixed(DType::F32))
        .output("sampled_expected_count", ArgType::Fixed(DType::F32))
        .int_attr_min("num_true", 1)
        .int_attr_min("num_sampled", 1)
        .attr("unique", AttrKind::Bool, None)
        .shape_fn(sampler_shape_fn);
    if range_max {
        def.int_attr_min("range_max", 1)
    } else {
        def
    }
}

pub(super) fn register() {
    super::all_sampler::register();
    super::unigram_sampler::register();
    for name in SAMPLERS {
        let def = sampler_def(name, true);
        let def = if name == "FixedUnigramCandidateSampler" {
            fixed_unigram_attrs(def)
        } else {
            def
        };
        register_op(with_seed_attrs(def));
        register_kernel(name, |node| {
            Ok(Box::new(SamplerKernel {
                sampler: RangeSampler::from_node(node)?,
                num_true: node.attr("num_true")?,
                num_sampled: node.attr("num_sampled")?,
                unique: node.attr("unique")?,
                gen: GuardedPhilox::from_node(node)?,
            }))
        });
    }
    register_op(
        OpDef::new("ComputeAccidentalHits")
            .input("true_classes", ArgType::Fixed(DType::I64))
            .input("sampled_candidates", ArgType::Fixed(DType::I64))
            .output("indices", ArgType::Fixed(DType::I32))
            .output("ids", ArgType::Fixed(DType::I64))
            .output("weights", ArgType::Fixed(DType::F32))
            .attr("num_true", AttrKind::Int, None)
            .attr("seed", AttrKind::Int, Some(AttrValue::Int(0)))
            .attr("seed2", AttrKind::Int, Some(AttrValue::Int(0)))
            .shape_fn(hits_shape_fn),
    );
    register_kernel("ComputeAccidentalHits", |node| {
        Ok(Box::new(AccidentalHitsKernel {
            num_true: node.attr("num_true")?,
        }))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::philox::Philox;

    #[test]
    fn expected_counts_follow_tensorflow() {
        assert_eq!(expected_count(0.25, 4, 4), 1.0);
        let want = -((6.0f32) * (-0.25f32).ln_1p()).exp_m1();
        assert_eq!(expected_count(0.25, 4, 6), want);
        let s = RangeSampler::LogUniform {
            range: 10,
            log_range: 10f64.ln_1p(),
        };
        let total: f64 = (0..10).map(|v| s.probability(v) as f64).sum();
        assert!((total - 1.0).abs() < 1e-6);
    }

    #[test]
    fn exact_uniform_rejects_and_masks() {
        let mut g = Philox::new(1, 2);
        let mut r = SimplePhilox(Single::new(&mut g));
        for n in [1u64, 2, 3, 8, 10, 1 << 40] {
            for _ in 0..50 {
                assert!(r.uniform64(n) < n);
            }
        }
    }
}
