//! The losses between labels and predictions: `absolute_difference`, `mean_squared_error`,
//! `huber_loss`, `log_loss`, `hinge_loss`, `cosine_distance` and
//! `mean_pairwise_squared_error`.

use weir_graph::{Output, Result};
use weir_ops::array::{self, constant};
use weir_ops::math::{self, Reduce};
use weir_ops::nn;

use super::weighted::{assert_broadcastable, num_present};
use super::{
    add_loss, assert_compatible, compute_weighted_loss, graph_of, loss_options, named_op, to_f32,
    LossOptions,
};

/// Builds a loss the way every `tf.losses` function does: under the scope `default_scope`
/// (or the caller's), predictions and labels cast to float32 and checked compatible, the
/// per-element losses by `f(labels, predictions)`, then [`compute_weighted_loss`].
fn build_loss(
    default_scope: &str,
    labels: &Output,
    predictions: &Output,
    opts: &LossOptions,
    f: impl FnOnce(&Output, &Output) -> Result<Output>,
) -> Result<Output> {
    let g = graph_of(&[labels, predictions])?;
    let scope = g.name_scope(opts.scope.as_deref().unwrap_or(default_scope));
    let prefix = scope.prefix().to_string();
    let predictions = to_f32(predictions)?;
    let labels = to_f32(labels)?;
    assert_compatible(&predictions, &labels)?;
    let losses = f(&labels, &predictions)?;
    compute_weighted_loss(
        losses,
        opts.weights.clone(),
        Some(&prefix),
        opts.loss_collection.as_deref(),
        opts.reduction,
    )
}

macro_rules! simple_loss {
    ($(#[$doc:meta])* $t:ident, $f:ident, $scope:literal, $second:ident, $fdoc:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $t {
            labels: Output,
            $second: Output,
            opts: LossOptions,
        }

        impl $t {
            #[doc = concat!("The loss of `", stringify!($second), "` against `labels` (same shape), with TensorFlow's defaults.")]
            pub fn new(labels: impl Into<Output>, $second: impl Into<Output>) -> $t {
                $t {
                    labels: labels.into(),
                    $second: $second.into(),
                    opts: LossOptions::default(),
                }
            }
        }

        #[doc = $fdoc]
        pub fn $f(labels: impl Into<Output>, $second: impl Into<Output>) -> Result<Output> {
            $t::new(labels, $second).build()
        }
    };
}

simple_loss!(
    /// The options of `tf.compat.v1.losses.absolute_difference(labels, predictions,
    /// weights=1.0, scope=None, loss_collection="losses", reduction=SUM_BY_NONZERO_WEIGHTS)`:
    /// `|predictions - labels|`, weighted and reduced.
    AbsoluteDifference,
    absolute_difference,
    "absolute_difference",
    predictions,
    "`tf.compat.v1.losses.absolute_difference(labels, predictions)` with every default."
);

loss_options!(AbsoluteDifference);

impl AbsoluteDifference {
    /// Adds the loss (and joins its collection).
    pub fn build(self) -> Result<Output> {
        build_loss(
            "absolute_difference",
            &self.labels,
            &self.predictions,
            &self.opts,
            |l, p| math::abs(math::sub(p, l)?),
        )
    }
}

simple_loss!(
    /// The options of `tf.compat.v1.losses.mean_squared_error(labels, predictions,
    /// weights=1.0, scope=None, loss_collection="losses", reduction=SUM_BY_NONZERO_WEIGHTS)`:
    /// `(predictions - labels)²`, weighted and reduced.
    ///
    /// ```
    /// # use weir_graph::Graph;
    /// # use weir_ops::array::constant;
    /// # use weir_session::Session;
    /// use weir_train::losses::{MeanSquaredError, Reduction};
    /// let g = Graph::new();
    /// let (y, p) = (constant(&g, [1.0f32, 2.0, 3.0])?, constant(&g, [1.0f32, 3.0, 5.0])?);
    /// let w = constant(&g, [0.0f32, 1.0, 0.25])?;
    /// let loss = MeanSquaredError::new(&y, &p)
    ///     .weights(&w)
    ///     .reduction(Reduction::SumOverBatchSize)
    ///     .build()?;
    /// let v = Session::new(&g)?.eval(&loss)?.to_vec::<f32>()?[0];
    /// assert!((v - 2.0 / 3.0).abs() < 1e-6);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    MeanSquaredError,
    mean_squared_error,
    "mean_squared_error",
    predictions,
    "`tf.compat.v1.losses.mean_squared_error(labels, predictions)` with every default."
);

loss_options!(MeanSquaredError);

impl MeanSquaredError {
    /// Adds the loss (and joins its collection).
    pub fn build(self) -> Result<Output> {
        build_loss(
            "mean_squared_error",
            &self.labels,
            &self.predictions,
            &self.opts,
            |l, p| math::squared_difference(p, l),
        )
    }
}

simple_loss!(
    /// The options of `tf.compat.v1.losses.hinge_loss(labels, logits, weights=1.0, ...)`:
    /// `relu(1 - (2 * labels - 1) * logits)` for labels in {0, 1}, weighted and reduced.
    HingeLoss,
    hinge_loss,
    "hinge_loss",
    logits,
    "`tf.compat.v1.losses.hinge_loss(labels, logits)` with every default."
);

loss_options!(HingeLoss);

impl HingeLoss {
    /// Adds the loss (and joins its collection).
    pub fn build(self) -> Result<Output> {
        build_loss(
            "hinge_loss",
            &self.labels,
            &self.logits,
            &self.opts,
            |labels, logits| {
                let g = labels.graph();
                let all_ones = array::ones_like(labels)?;
                let signed = math::sub(math::mul(constant(g, 2.0f32)?, labels)?, &all_ones)?;
                nn::relu(math::sub(&all_ones, math::mul(&signed, logits)?)?)
            },
        )
    }
}

/// The options of `tf.compat.v1.losses.huber_loss(labels, predictions, weights=1.0,
/// delta=1.0, ...)`: `0.5 * x²` where `|x| <= delta`, else `0.5 * delta² + delta * (|x| -
/// delta)`, for `x = predictions - labels`, weighted and reduced.
#[derive(Clone, Debug)]
pub struct HuberLoss {
    labels: Output,
    predictions: Output,
    delta: f64,
    opts: LossOptions,
}

impl HuberLoss {
    /// The loss of `predictions` against `labels` (same shape), with TensorFlow's defaults.
    pub fn new(labels: impl Into<Output>, predictions: impl Into<Output>) -> HuberLoss {
        HuberLoss {
            labels: labels.into(),
            predictions: predictions.into(),
            delta: 1.0,
            opts: LossOptions::default(),
        }
    }

    /// Where the loss turns from quadratic to linear (default 1.0).
    pub fn delta(mut self, delta: f64) -> HuberLoss {
        self.delta = delta;
        self
    }

    /// Adds the loss (and joins its collection).
    pub fn build(self) -> Result<Output> {
        let delta = self.delta as f32;
        build_loss(
            "huber_loss",
            &self.labels,
            &self.predictions,
            &self.opts,
            |l, p| {
                let g = l.graph();
                let abs_error = math::abs(math::sub(p, l)?)?;
                let quadratic = math::minimum(&abs_error, constant(g, delta)?)?;
                let linear = math::sub(&abs_error, &quadratic)?;
                let half = constant(g, 0.5f32)?;
                math::add(
                    math::mul(&half, math::mul(&quadratic, &quadratic)?)?,
                    math::mul(constant(g, delta)?, &linear)?,
                )
            },
        )
    }
}

loss_options!(HuberLoss);

/// `tf.compat.v1.losses.huber_loss(labels, predictions)` with every default (delta 1.0).
pub fn huber_loss(labels: impl Into<Output>, predictions: impl Into<Output>) -> Result<Output> {
    HuberLoss::new(labels, predictions).build()
}

/// The options of `tf.compat.v1.losses.log_loss(labels, predictions, weights=1.0,
/// epsilon=1e-7, ...)`: `-labels * log(p + eps) - (1 - labels) * log(1 - p + eps)`, weighted
/// and reduced.
#[derive(Clone, Debug)]
pub struct LogLoss {
    labels: Output,
    predictions: Output,
    epsilon: f64,
    opts: LossOptions,
}

impl LogLoss {
    /// The loss of probabilities `predictions` against `labels` (same shape), with
    /// TensorFlow's defaults.
    pub fn new(labels: impl Into<Output>, predictions: impl Into<Output>) -> LogLoss {
        LogLoss {
            labels: labels.into(),
            predictions: predictions.into(),
            epsilon: 1e-7,
            opts: LossOptions::default(),
        }
    }

    /// What is added before taking logs (default 1e-7).
    pub fn epsilon(mut self, epsilon: f64) -> LogLoss {
        self.epsilon = epsilon;
        self
    }

    /// Adds the loss (and joins its collection).
    pub fn build(self) -> Result<Output> {
        let eps = self.epsilon as f32;
        build_loss(
            "log_loss",
            &self.labels,
            &self.predictions,
            &self.opts,
            |l, p| {
                let g = l.graph();
                let pos = math::neg(math::mul(l, math::log(math::add(p, constant(g, eps)?)?)?)?)?;
                let one_minus_l = math::sub(constant(g, 1.0f32)?, l)?;
                let one_minus_p =
                    math::add(math::sub(constant(g, 1.0f32)?, p)?, constant(g, eps)?)?;
                math::sub(&pos, math::mul(&one_minus_l, math::log(&one_minus_p)?)?)
            },
        )
    }
}

loss_options!(LogLoss);

/// `tf.compat.v1.losses.log_loss(labels, predictions)` with every default (epsilon 1e-7).
pub fn log_loss(labels: impl Into<Output>, predictions: impl Into<Output>) -> Result<Output> {
    LogLoss::new(labels, predictions).build()
}

/// The options of `tf.compat.v1.losses.cosine_distance(labels, predictions, axis,
/// weights=1.0, ...)`: `1 - sum(predictions * labels, axis, keepdims=True)` for unit-normalized
/// inputs, weighted and reduced.
#[derive(Clone, Debug)]
pub struct CosineDistance {
    labels: Output,
    predictions: Output,
    axis: i64,
    opts: LossOptions,
}

impl CosineDistance {
    /// The loss along `axis` (required, as in TensorFlow), with TensorFlow's defaults.
    pub fn new(
        labels: impl Into<Output>,
        predictions: impl Into<Output>,
        axis: i64,
    ) -> CosineDistance {
        CosineDistance {
            labels: labels.into(),
            predictions: predictions.into(),
            axis,
            opts: LossOptions::default(),
        }
    }

    /// Adds the loss (and joins its collection).
    pub fn build(self) -> Result<Output> {
        let axis = self.axis;
        build_loss(
            "cosine_distance_loss",
            &self.labels,
            &self.predictions,
            &self.opts,
            |l, p| {
                let radial = math::mul(p, l)?;
                let sum = Reduce::sum()
                    .axis(vec![axis])
                    .keep_dims(true)
                    .build(&radial)?;
                math::sub(constant(l.graph(), 1.0f32)?, &sum)
            },
        )
    }
}

loss_options!(CosineDistance);

/// `tf.compat.v1.losses.cosine_distance(labels, predictions, axis)` with every default.
pub fn cosine_distance(
    labels: impl Into<Output>,
    predictions: impl Into<Output>,
    axis: i64,
) -> Result<Output> {
    CosineDistance::new(labels, predictions, axis).build()
}

simple_loss!(
    /// The options of `tf.compat.v1.losses.mean_pairwise_squared_error(labels, predictions,
    /// weights=1.0, scope=None, loss_collection="losses")`: per batch entry, the mean over
    /// pairs of elements of `((l_i - l_j) - (p_i - p_j))²`, weighted per entry and summed (it
    /// has no reduction argument).
    MeanPairwiseSquaredError,
    mean_pairwise_squared_error,
    "mean_pairwise_squared_error",
    predictions,
    "`tf.compat.v1.losses.mean_pairwise_squared_error(labels, predictions)` with every default."
);

loss_options!(@common MeanPairwiseSquaredError);

impl MeanPairwiseSquaredError {
    /// Adds the loss (and joins its collection).
    pub fn build(self) -> Result<Output> {
        let g = graph_of(&[&self.labels, &self.predictions])?;
        let opts = self.opts;
        let _scope = g.name_scope(
            opts.scope
                .as_deref()
                .unwrap_or("mean_pairwise_squared_error"),
        );
        let weights = to_f32(&opts.weights.to_output(&g)?)?;
        let labels = to_f32(&self.labels)?;
        let check = assert_broadcastable(&weights, &labels)?;
        let _deps = match &check {
            Some(op) => Some(g.control_dependencies(std::slice::from_ref(op))?),
            None => None,
        };
        let predictions = to_f32(&self.predictions)?;
        assert_compatible(&predictions, &labels)?;
        let diffs = math::sub(&predictions, &labels)?;
        let axes = || -> Result<math::Axes> {
            Ok(match diffs.shape().rank() {
                Some(r) => math::Axes::List((1..r as i64).collect()),
                None => math::Axes::Tensor(math::range_from(
                    &constant(&g, 1i32)?,
                    &array::rank(&diffs)?,
                    &constant(&g, 1i32)?,
                )?),
            })
        };
        let sum_squares = Reduce::sum()
            .axis(axes()?)
            .keep_dims(true)
            .build(math::square(&diffs)?)?;
        let tensor_weights = super::Weights::Tensor(weights.clone());
        let present = num_present(&diffs, &tensor_weights, &weights, true)?;
        let one = constant(&g, 1.0f32)?;
        let zero = constant(&g, 0.0f32)?;
        let two = constant(&g, 2.0f32)?;
        let pairs = math::maximum(math::sub(&present, &one)?, &zero)?;
        let div1 = named_op(&g, "DivNoNan", &[&sum_squares, &pairs], Some("value"))?;
        let term1 = math::mul(&two, &div1)?;
        let sum_diff = Reduce::sum().axis(axes()?).keep_dims(true).build(&diffs)?;
        let pairs2 = math::maximum(math::mul(&present, math::sub(&present, &one)?)?, &zero)?;
        let div2 = named_op(
            &g,
            "DivNoNan",
            &[&math::square(&sum_diff)?, &pairs2],
            Some("value"),
        )?;
        let term2 = math::mul(constant(&g, 2.0f32)?, &div2)?;
        let weighted = math::mul(math::sub(&term1, &term2)?, &weights)?;
        let loss = Reduce::sum().build(&weighted)?;
        let any = math::greater(Reduce::sum().build(&present)?, constant(&g, 0.0f32)?)?;
        let mean_loss = named_op(
            &g,
            "Select",
            &[&any, &loss, &array::zeros_like(&loss)?],
            Some("value"),
        )?;
        add_loss(&mean_loss, opts.loss_collection.as_deref())?;
        Ok(mean_loss)
    }
}
