//! `tf.nn.nce_loss` and `tf.nn.sampled_softmax_loss` (TensorFlow 1), built op for op as
//! TensorFlow's `nn_impl.py` builds them in `_compute_sampled_logits`: the sampled classes
//! (a log-uniform sampler with `unique=True`, or the given `sampled_values`) behind
//! `StopGradient`, one `embedding_lookup` of the true and sampled rows of the weights and of
//! the biases, `X W'` for the sampled logits and row-wise dots for the true ones, accidental
//! hits pushed to `-FLT_MAX` (sampled softmax), and `log Q` subtracted.
//!
//! Gradients reach the weights, biases and inputs through the lookups and the arithmetic; the
//! samplers and `ComputeAccidentalHits` are not differentiable.

use weir_graph::{scalar_of, DType, Error, Graph, Output, Result};

use super::candidate_sampling::{
    compute_accidental_hits, log_uniform_candidate_sampler, CandidateSamples,
};
use super::EmbeddingLookup;
use crate::array::{self, constant, SliceItem};
use crate::math::{self, MatMul};

/// `tf.nn.nce_loss(weights, biases, labels, inputs, num_sampled, num_classes)` with
/// TensorFlow's defaults (one true class, sampled log-uniformly, accidental hits kept); see
/// [`SampledLoss`]. The result is the `[batch]` NCE loss per example.
pub fn nce_loss(
    weights: &[Output],
    biases: impl Into<Output>,
    labels: impl Into<Output>,
    inputs: impl Into<Output>,
    num_sampled: usize,
    num_classes: usize,
) -> Result<Output> {
    SampledLoss::nce(num_sampled, num_classes).build(weights, biases, labels, inputs)
}

/// `tf.nn.sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes)` with
/// TensorFlow's defaults (one true class, sampled log-uniformly, accidental hits removed); see
/// [`SampledLoss`].
pub fn sampled_softmax_loss(
    weights: &[Output],
    biases: impl Into<Output>,
    labels: impl Into<Output>,
    inputs: impl Into<Output>,
    num_sampled: usize,
    num_classes: usize,
) -> Result<Output> {
    SampledLoss::sampled_softmax(num_sampled, num_classes).build(weights, biases, labels, inputs)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Nce,
    Softmax,
}

/// The options of `tf.nn.nce_loss(weights, biases, labels, inputs, num_sampled, num_classes,
/// num_true=1, sampled_values=None, remove_accidental_hits=False, partition_strategy="mod",
/// name="nce_loss")` and `tf.nn.sampled_softmax_loss(..., remove_accidental_hits=True,
/// partition_strategy="mod", name="sampled_softmax_loss", seed=None)`.
///
/// `weights` is a `[num_classes, dim]` table (or its shards), `biases` `[num_classes]`,
/// `labels` int `[batch, num_true]` and `inputs` `[batch, dim]`.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, nn::{CandidateSamples, SampledLoss}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let w = constant(&g, Tensor::from_vec(&[4, 2], vec![0.1f32, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8])?)?;
/// let b = constant(&g, vec![0.0f32, 0.1, 0.2, 0.3])?;
/// let labels = constant(&g, Tensor::from_vec(&[1, 1], vec![2i64])?)?;
/// let x = constant(&g, Tensor::from_vec(&[1, 2], vec![1.0f32, -1.0])?)?;
/// let fixed = CandidateSamples::new(
///     constant(&g, vec![0i64, 3])?,
///     constant(&g, Tensor::from_vec(&[1, 1], vec![0.5f32])?)?,
///     constant(&g, vec![0.5f32, 0.5])?,
/// );
/// let loss = SampledLoss::nce(2, 4).sampled_values(fixed).build(&[w], &b, &labels, &x)?;
/// let v = Session::new(&g)?.eval(&loss)?.to_vec::<f32>()?;
/// assert_eq!(v.len(), 1);
/// assert!(v[0] > 0.0);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct SampledLoss {
    kind: Kind,
    num_sampled: usize,
    num_classes: usize,
    num_true: usize,
    sampled_values: Option<CandidateSamples>,
    remove_accidental_hits: bool,
    partition_strategy: String,
    name: Option<String>,
    seed: Option<i64>,
}

impl SampledLoss {
    /// `tf.nn.nce_loss`'s defaults.
    pub fn nce(num_sampled: usize, num_classes: usize) -> SampledLoss {
        SampledLoss {
            kind: Kind::Nce,
            num_sampled,
            num_classes,
            num_true: 1,
            sampled_values: None,
            remove_accidental_hits: false,
            partition_strategy: "mod".into(),
            name: None,
            seed: None,
        }
    }

    /// `tf.nn.sampled_softmax_loss`'s defaults.
    pub fn sampled_softmax(num_sampled: usize, num_classes: usize) -> SampledLoss {
        SampledLoss {
            kind: Kind::Softmax,
            remove_accidental_hits: true,
            ..SampledLoss::nce(num_sampled, num_classes)
        }
    }

    /// The number of true classes per example (default 1).
    pub fn num_true(mut self, num_true: usize) -> Self {
        self.num_true = num_true;
        self
    }

    /// Fixed samples instead of a log-uniform sampler (TensorFlow's `sampled_values`).
    pub fn sampled_values(mut self, values: CandidateSamples) -> Self {
        self.sampled_values = Some(values);
        self
    }

    /// Whether sampled classes equal to a true class get `-FLT_MAX` added to their logits.
    pub fn remove_accidental_hits(mut self, remove: bool) -> Self {
        self.remove_accidental_hits = remove;
        self
    }

    /// `"mod"` or `"div"`, for sharded weights (see [`EmbeddingLookup`]).
    pub fn partition_strategy(mut self, strategy: &str) -> Self {
        self.partition_strategy = strategy.to_string();
        self
    }

    /// The name scope (default `nce_loss` or `sampled_softmax_loss`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// The op-level seed of the default sampler.
    pub fn seed(mut self, seed: i64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Adds the loss: `[batch]` per-example losses.
    pub fn build(
        &self,
        weights: &[Output],
        biases: impl Into<Output>,
        labels: impl Into<Output>,
        inputs: impl Into<Output>,
    ) -> Result<Output> {
        let (biases, labels, inputs) = (biases.into(), labels.into(), inputs.into());
        let (logits, out_labels) =
            self.compute_sampled_logits(weights, &biases, labels, &inputs)?;
        match self.kind {
            Kind::Nce => {
                let g = logits.graph().clone();
                let losses = {
                    let _s = g.name_scope("sampled_losses");
                    super::sigmoid_cross_entropy_with_logits(out_labels, logits)?
                };
                sum_rows(&g, &losses)
            }
            Kind::Softmax => {
                let labels = array::stop_gradient(out_labels)?;
                super::softmax_cross_entropy_with_logits(labels, logits)
            }
        }
    }

    /// TensorFlow's `_compute_sampled_logits`: `(out_logits, out_labels)`, both
    /// `[batch, num_true + num_sampled]`.
    fn compute_sampled_logits(
        &self,
        weights: &[Output],
        biases: &Output,
        labels: Output,
        inputs: &Output,
    ) -> Result<(Output, Output)> {
        if weights.is_empty() {
            return Err(Error::invalid_argument(
                "Length of params is currently 0. Need at least one param.",
            ));
        }
        let mut all: Vec<&Output> = weights.iter().collect();
        all.extend([biases, inputs, &labels]);
        let g = crate::util::same_graph(&all)?.clone();
        let default_name = match self.kind {
            Kind::Nce => "nce_loss",
            Kind::Softmax => "sampled_softmax_loss",
        };
        let _scope = g.name_scope(self.name.as_deref().unwrap_or(default_name));
        let nt = i32::try_from(self.num_true)
            .map_err(|_| Error::invalid_argument("num_true does not fit in int32"))?;
        let ns = i32::try_from(self.num_sampled)
            .map_err(|_| Error::invalid_argument("num_sampled does not fit in int32"))?;
        let labels = if labels.dtype() != DType::I64 {
            math::cast(&labels, DType::I64)?
        } else {
            labels
        };
        let labels_flat = array::reshape(&labels, [-1i64])?;
        let sv = match &self.sampled_values {
            Some(v) => v.clone(),
            None => log_uniform_candidate_sampler(
                &labels,
                self.num_true,
                self.num_sampled,
                true,
                self.num_classes,
                self.seed,
            )?,
        };
        let sampled = array::stop_gradient(&sv.sampled_candidates)?;
        let true_expected_count = array::stop_gradient(&sv.true_expected_count)?;
        let sampled_expected_count = array::stop_gradient(&sv.sampled_expected_count)?;
        let sampled = math::cast(sampled, DType::I64)?;
        let all_ids = array::concat(&[labels_flat.clone(), sampled.clone()], 0)?;
        let lookup = EmbeddingLookup::new().partition_strategy(&self.partition_strategy);
        let mut all_w = lookup.build(weights, &all_ids)?;
        if all_w.dtype() != inputs.dtype() {
            all_w = math::cast(all_w, inputs.dtype())?;
        }
        let n_true =
            array::strided_slice_items(array::shape(&labels_flat)?, &[SliceItem::Index(0)])?;
        let minus_one = constant(&g, -1i32)?;
        let zero = constant(&g, 0i32)?;
        let true_w = array::slice(
            &all_w,
            [0i32, 0],
            array::stack(&[n_true.clone(), minus_one.clone()], 0)?,
        )?;
        let sampled_w = array::slice(
            &all_w,
            array::stack(&[n_true.clone(), zero], 0)?,
            [-1i32, -1],
        )?;
        let sampled_logits = MatMul::new().transpose_b(true).build(inputs, &sampled_w)?;
        let mut all_b = lookup.build(std::slice::from_ref(biases), &all_ids)?;
        if all_b.dtype() != inputs.dtype() {
            all_b = math::cast(all_b, inputs.dtype())?;
        }
        let true_b = array::slice(&all_b, [0i32], array::shape(&labels_flat)?)?;
        let sampled_b = array::slice(&all_b, array::shape(&labels_flat)?, [-1i32])?;
        let dim = array::slice(array::shape(&true_w)?, [1i32], [1i32])?;
        let new_true_w_shape = array::concat(&[constant(&g, vec![-1i32, nt])?, dim.clone()], 0)?;
        let row_wise_dots = math::mul(
            array::expand_dims(inputs, 1)?,
            array::reshape(&true_w, new_true_w_shape)?,
        )?;
        let dots_as_matrix = array::reshape(
            row_wise_dots,
            array::concat(&[constant(&g, vec![-1i32])?, dim], 0)?,
        )?;
        let true_logits = array::reshape(sum_rows(&g, &dots_as_matrix)?, [-1i64, nt as i64])?;
        let true_b = array::reshape(true_b, [-1i64, nt as i64])?;
        let mut true_logits = math::add(true_logits, true_b)?;
        let mut sampled_logits = math::add(sampled_logits, sampled_b)?;
        if self.remove_accidental_hits {
            let (acc_indices, acc_ids, acc_weights) =
                compute_accidental_hits(&labels, &sampled, self.num_true, None)?;
            let acc_indices_2d = array::reshape(acc_indices, [-1i64, 1])?;
            let acc_ids_2d = array::reshape(math::cast(acc_ids, DType::I32)?, [-1i64, 1])?;
            let sparse_indices = array::concat(&[acc_indices_2d, acc_ids_2d], 1)?;
            let first = array::slice(array::shape(&labels)?, [0i32], [1i32])?;
            let shape = array::concat(&[first, constant(&g, vec![ns])?], 0)?;
            let acc_weights = if acc_weights.dtype() != sampled_logits.dtype() {
                math::cast(acc_weights, sampled_logits.dtype())?
            } else {
                acc_weights
            };
            let default = constant(&g, scalar_of(sampled_logits.dtype(), 0.0)?)?;
            let dense = crate::sparse::SparseToDense::new()
                .validate_indices(false)
                .build(sparse_indices, shape, acc_weights, default)?;
            sampled_logits = math::add(sampled_logits, dense)?;
        }
        true_logits = math::sub(true_logits, math::log(true_expected_count)?)?;
        sampled_logits = math::sub(sampled_logits, math::log(sampled_expected_count)?)?;
        let out_logits = array::concat(&[true_logits.clone(), sampled_logits.clone()], 1)?;
        let num_true_f = constant(&g, scalar_of(true_logits.dtype(), self.num_true as f64)?)?;
        let out_labels = array::concat(
            &[
                math::truediv(array::ones_like(&true_logits)?, num_true_f)?,
                array::zeros_like(&sampled_logits)?,
            ],
            1,
        )?;
        Ok((out_logits, out_labels))
    }
}

/// TensorFlow's `_sum_rows`: `x` (a matrix) times a column of ones, flattened.
fn sum_rows(g: &Graph, x: &Output) -> Result<Output> {
    let cols = array::strided_slice_items(array::shape(x)?, &[SliceItem::Index(1)])?;
    let ones_shape = array::stack(&[cols, constant(g, 1i32)?], 0)?;
    let one = constant(g, scalar_of(x.dtype(), 1.0)?)?;
    let ones = array::fill(ones_shape, &one)?;
    array::reshape(math::matmul(x, ones)?, [-1i64])
}
