//! `FixedUnigramCandidateSampler` with the unigram counts given as a list
//! (`tf.random.fixed_unigram_candidate_sampler(..., unigrams=[...])`): TensorFlow's
//! `FixedUnigramSampler` (counts raised to `distortion`, reserved ids of weight 0, sharding)
//! drawing through its `DistributionSampler` (Walker's alias method, built and read exactly as
//! TensorFlow builds and reads it, so seeded samples are TensorFlow's).
//!
//! `vocab_file` is not supported (Unimplemented). Where TensorFlow's kernel would loop for ever
//! (`unique` with fewer classes of non-zero weight than `num_sampled`), weir fails with
//! InvalidArgument.

use weir_graph::{Error, Node, Output, Result};

use super::candidate_sampling::CandidateSamples;

/// `tf.random.fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique,
/// range_max, unigrams=unigrams, seed=seed)`: classes drawn with probability proportional to
/// `unigrams` (one count per class, `range_max` of them); see [`FixedUnigramCandidateSampler`].
pub fn fixed_unigram_candidate_sampler(
    true_classes: impl Into<Output>,
    num_true: usize,
    num_sampled: usize,
    unique: bool,
    range_max: usize,
    unigrams: &[f32],
    seed: Option<i64>,
) -> Result<CandidateSamples> {
    let mut s =
        FixedUnigramCandidateSampler::new(num_true, num_sampled, unique, range_max, unigrams);
    s.seed = seed;
    s.build(true_classes)
}

/// The options of `tf.random.fixed_unigram_candidate_sampler(true_classes, num_true,
/// num_sampled, unique, range_max, vocab_file='', distortion=1.0, num_reserved_ids=0,
/// num_shards=1, shard=0, unigrams=(), seed=None)`, with `unigrams` given.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, nn::FixedUnigramCandidateSampler};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let labels = constant(&g, Tensor::from_vec(&[1, 1], vec![0i64])?)?;
/// let s = FixedUnigramCandidateSampler::new(1, 2, true, 4, &[0.0, 5.0, 1.0, 2.0])
///     .seed(3)
///     .build(&labels)?;
/// let c = Session::new(&g)?.eval(&s.sampled_candidates)?.to_vec::<i64>()?;
/// assert!(c.iter().all(|&v| (1..4).contains(&v)));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct FixedUnigramCandidateSampler {
    num_true: usize,
    num_sampled: usize,
    unique: bool,
    range_max: usize,
    unigrams: Vec<f32>,
    distortion: f32,
    num_reserved_ids: usize,
    num_shards: usize,
    shard: usize,
    seed: Option<i64>,
    name: Option<String>,
}

impl FixedUnigramCandidateSampler {
    /// A sampler of `range_max` classes weighted by `unigrams`, TensorFlow's defaults otherwise.
    pub fn new(
        num_true: usize,
        num_sampled: usize,
        unique: bool,
        range_max: usize,
        unigrams: &[f32],
    ) -> FixedUnigramCandidateSampler {
        FixedUnigramCandidateSampler {
            num_true,
            num_sampled,
            unique,
            range_max,
            unigrams: unigrams.to_vec(),
            distortion: 1.0,
            num_reserved_ids: 0,
            num_shards: 1,
            shard: 0,
            seed: None,
            name: None,
        }
    }

    /// Each count is raised to this power (default 1; word2vec uses 0.75).
    pub fn distortion(mut self, distortion: f32) -> Self {
        self.distortion = distortion;
        self
    }

    /// Ids `0..n` come first with weight 0 (never sampled), before the unigrams' classes.
    pub fn num_reserved_ids(mut self, n: usize) -> Self {
        self.num_reserved_ids = n;
        self
    }

    /// Keeps only the ids `i` with `i % num_shards == shard` (default one shard).
    pub fn shards(mut self, num_shards: usize, shard: usize) -> Self {
        self.num_shards = num_shards;
        self.shard = shard;
        self
    }

    /// The op-level seed.
    pub fn seed(mut self, seed: i64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the node.
    pub fn build(&self, true_classes: impl Into<Output>) -> Result<CandidateSamples> {
        let t = true_classes.into();
        let g = t.graph().clone();
        let (s1, s2) = g.get_seed(self.seed);
        let int = |v: usize| {
            i64::try_from(v).map_err(|_| Error::invalid_argument(format!("{v} is too large")))
        };
        let node = crate::new_op(&g, "FixedUnigramCandidateSampler")
            .maybe_name(self.name.as_deref())
            .input(t)
            .attr("num_true", int(self.num_true)?)
            .attr("num_sampled", int(self.num_sampled)?)
            .attr("unique", self.unique)
            .attr("range_max", int(self.range_max)?)
            .attr("distortion", self.distortion)
            .attr("num_reserved_ids", int(self.num_reserved_ids)?)
            .attr("num_shards", int(self.num_shards)?)
            .attr("shard", int(self.shard)?)
            .attr("unigrams", self.unigrams.clone())
            .attr("seed", s1)
            .attr("seed2", s2)
            .build()?;
        Ok(CandidateSamples {
            sampled_candidates: node.output(0)?,
            true_expected_count: node.output(1)?,
            sampled_expected_count: node.output(2)?,
        })
    }
}

/// TensorFlow's `FixedUnigramSampler` over a list of unigrams, with its `DistributionSampler`.
#[derive(Clone, Debug)]
pub(super) struct FixedUnigram {
    weights: Vec<f32>,
    total: f32,
    prob: Vec<f32>,
    alt: Vec<i32>,
}

impl FixedUnigram {
    /// From the node's attrs, with the kernel constructor's checks.
    pub(super) fn from_node(node: &Node) -> Result<FixedUnigram> {
        let range: i64 = node.attr("range_max")?;
        let vocab_file: String = node.attr("vocab_file")?;
        let unigrams: Vec<f32> = node.attr("unigrams")?;
        if vocab_file.is_empty() && unigrams.is_empty() {
            return Err(Error::invalid_argument(
                "Must provide either vocab_file or unigrams.",
            ));
        }
        if !vocab_file.is_empty() && !unigrams.is_empty() {
            return Err(Error::invalid_argument(
                "Must only provide one of vocab_file and unigrams.",
            ));
        }
        if !vocab_file.is_empty() {
            return Err(Error::unimplemented(
                "FixedUnigramCandidateSampler: weir reads unigrams, not a vocab_file",
            ));
        }
        let distortion: f32 = node.attr("distortion")?;
        let reserved: i64 = node.attr("num_reserved_ids")?;
        let num_shards: i64 = node.attr("num_shards")?;
        let shard: i64 = node.attr("shard")?;
        let mut weights = Vec::new();
        let mut total = 0.0f32;
        for id in 0..reserved.max(0) {
            if id % num_shards == shard {
                weights.push(0.0);
            }
        }
        // TensorFlow numbers the unigrams from the count of this shard's reserved ids.
        let first = weights.len() as i64;
        for (i, &w) in unigrams.iter().enumerate() {
            if (first + i as i64) % num_shards == shard {
                let w = w.powf(distortion);
                total += w;
                weights.push(w);
            }
        }
        if range != weights.len() as i64 {
            return Err(Error::invalid_argument(format!(
                "range is {range} must be equal to weights size  {}",
                weights.len()
            )));
        }
        let (prob, alt) = alias_table(&weights);
        Ok(FixedUnigram {
            weights,
            total,
            prob,
            alt,
        })
    }

    /// How many classes can be drawn at all.
    pub(super) fn support(&self) -> i64 {
        self.weights.iter().filter(|&&w| w > 0.0).count() as i64
    }

    /// `DistributionSampler::Sample`: a float, then a bucket.
    pub(super) fn sample(&self, r: f32, bucket: impl FnOnce(u32) -> u32) -> i64 {
        let idx = bucket(self.prob.len() as u32) as usize;
        if r < self.prob[idx] {
            idx as i64
        } else {
            self.alt[idx] as i64
        }
    }

    pub(super) fn probability(&self, value: i64) -> f32 {
        match usize::try_from(value)
            .ok()
            .and_then(|v| self.weights.get(v))
        {
            Some(&w) => w / self.total,
            None => 0.0,
        }
    }
}

/// `DistributionSampler`'s constructor: the alias method's buckets, in double, as TensorFlow
/// pairs them (last low with last high).
fn alias_table(weights: &[f32]) -> (Vec<f32>, Vec<i32>) {
    let n = weights.len();
    let sum: f64 = weights.iter().map(|&w| w as f64).sum();
    let mut alt = vec![-1i32; n];
    let mut pr: Vec<f64> = weights
        .iter()
        .map(|&w| (w as f64 * n as f64) / sum)
        .collect();
    let (mut high, mut low): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| pr[i] >= 1.0);
    while let (Some(&l), Some(&h)) = (low.last(), high.last()) {
        low.pop();
        high.pop();
        alt[l] = h as i32;
        let remaining = pr[h] - (1.0 - pr[l]);
        pr[h] = remaining;
        if remaining < 1.0 {
            low.push(h);
        } else {
            high.push(h);
        }
    }
    let mut prob: Vec<f32> = pr.iter().map(|&p| p as f32).collect();
    for &i in high.iter().chain(&low) {
        prob[i] = 1.0;
        alt[i] = i as i32;
    }
    (prob, alt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alias_table_keeps_the_distribution() {
        let w = [1.0f32, 3.0, 0.0, 4.0];
        let (prob, alt) = alias_table(&w);
        let mut mass = [0.0f64; 4];
        for i in 0..4 {
            mass[i] += prob[i] as f64 / 4.0;
            mass[alt[i] as usize] += (1.0 - prob[i] as f64) / 4.0;
        }
        for (m, w) in mass.iter().zip(w) {
            assert!((m - w as f64 / 8.0).abs() < 1e-6, "{mass:?}");
        }
    }
}
