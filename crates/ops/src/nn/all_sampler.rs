//! `AllCandidateSampler` (`tf.random.all_candidate_sampler`, `tf.nn.all_candidate_sampler`):
//! the "sampler" that returns every class of `[0, num_sampled)`, each with an expected count
//! of 1, for testing sampled losses against their full versions.
//!
//! TensorFlow's kernel is an `AllSampler` with `num_sampled` as its range, so a true class
//! outside `[0, num_sampled)` fails as it would for any sampler. It also seeds a Philox stream
//! it never reads; weir keeps the `seed` attrs for GraphDefs but draws nothing.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{Kernel, OpContext, Output, Result, Tensor};

use super::candidate_sampling::{check_true_classes, sampler_def, to_i64, CandidateSamples};
use crate::random::with_seed_attrs;

/// `tf.random.all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None)`:
/// `sampled_candidates` is `0..num_sampled` and every expected count is 1. `unique` and `seed`
/// are ignored, as in TensorFlow. See [`AllCandidateSampler`] for the node's name.
pub fn all_candidate_sampler(
    true_classes: impl Into<Output>,
    num_true: usize,
    num_sampled: usize,
    unique: bool,
    seed: Option<i64>,
) -> Result<CandidateSamples> {
    let mut s = AllCandidateSampler::new(num_true, num_sampled, unique);
    s.seed = seed;
    s.build(true_classes)
}

/// The options of `tf.random.all_candidate_sampler(true_classes, num_true, num_sampled, unique,
/// seed=None, name=None)`, which adds an `AllCandidateSampler` node.
///
/// ```
/// # use weir_graph::{Graph, Shape, Tensor};
/// # use weir_ops::{array::constant, nn::AllCandidateSampler};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let labels = constant(&g, Tensor::from_vec(&[2, 1], vec![3i64, 1])?)?;
/// let s = AllCandidateSampler::new(1, 4, true).name("all").build(&labels)?;
/// assert_eq!(s.true_expected_count.shape(), Shape::known(&[2, 1]));
/// let sess = Session::new(&g)?;
/// assert_eq!(sess.eval(&s.sampled_candidates)?.to_vec::<i64>()?, [0, 1, 2, 3]);
/// assert_eq!(sess.eval(&s.sampled_expected_count)?.to_vec::<f32>()?, [1.0; 4]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct AllCandidateSampler {
    num_true: usize,
    num_sampled: usize,
    unique: bool,
    seed: Option<i64>,
    name: Option<String>,
}

impl AllCandidateSampler {
    /// All `num_sampled` classes for a `[batch, num_true]` matrix of true classes.
    pub fn new(num_true: usize, num_sampled: usize, unique: bool) -> AllCandidateSampler {
        AllCandidateSampler {
            num_true,
            num_sampled,
            unique,
            seed: None,
            name: None,
        }
    }

    /// The op-level seed (recorded in the node's attrs, unused).
    pub fn seed(mut self, seed: i64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// The node's name (default `AllCandidateSampler`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the node.
    pub fn build(&self, true_classes: impl Into<Output>) -> Result<CandidateSamples> {
        let t = true_classes.into();
        let g = t.graph().clone();
        let (s1, s2) = g.get_seed(self.seed);
        let node = crate::new_op(&g, "AllCandidateSampler")
            .maybe_name(self.name.as_deref())
            .input(t)
            .attr("num_true", to_i64(self.num_true, "num_true")?)
            .attr("num_sampled", to_i64(self.num_sampled, "num_sampled")?)
            .attr("unique", self.unique)
            .attr("seed", s1)
            .attr("seed2", s2)
            .build()?;
        CandidateSamples::of(&node)
    }
}

struct AllSamplerKernel {
    num_true: i64,
    num_sampled: i64,
    unique: bool,
}

impl Kernel for AllSamplerKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = ctx.input(0);
        let n = self.num_sampled;
        let true_count = check_true_classes(t, self.num_true, n, self.unique, n)?.len();
        let shape = [t.shape()[0], self.num_true as usize];
        let ones = Tensor::from_vec(&[n as usize], vec![1.0f32; n as usize])?;
        ctx.set_output(0, Tensor::from((0..n).collect::<Vec<i64>>()));
        ctx.set_output(1, Tensor::from_vec(&shape, vec![1.0f32; true_count])?);
        ctx.set_output(2, ones);
        Ok(())
    }
}

pub(super) fn register() {
    register_op(with_seed_attrs(sampler_def("AllCandidateSampler", false)));
    register_kernel("AllCandidateSampler", |node| {
        Ok(Box::new(AllSamplerKernel {
            num_true: node.attr("num_true")?,
            num_sampled: node.attr("num_sampled")?,
            unique: node.attr("unique")?,
        }))
    });
}
