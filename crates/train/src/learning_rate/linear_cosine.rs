//! `tf.train.linear_cosine_decay` and `tf.train.noisy_linear_cosine_decay`.

use weir_graph::{DType, Error, Output, Result, Tensor};
use weir_ops::array::constant_named;
use weir_ops::random::Scalar;

use super::cosine::{half_cosine, require_f32};
use super::expr::Expr;
use crate::optimizers::LearningRate;

/// `tf.compat.v1.train.linear_cosine_decay(learning_rate, global_step, decay_steps,
/// num_periods=0.5, alpha=0.0, beta=0.001)`: `learning_rate * ((alpha + linear) * cosine +
/// beta)` with `linear = (decay_steps - step) / decay_steps` and `cosine = 0.5 * (1 + cos(2 pi
/// num_periods step / decay_steps))`, the step capped at `decay_steps`. float32 only, as in
/// TensorFlow.
///
/// ```
/// # use weir_graph::Graph;
/// let g = Graph::new();
/// let step = weir_train::get_or_create_global_step(&g)?;
/// let lr = weir_train::linear_cosine_decay(0.1, &step, 1000, 0.5, 0.0, 0.001)?;
/// assert_eq!(lr.name(), "LinearCosineDecay:0");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn linear_cosine_decay(
    learning_rate: impl Into<LearningRate>,
    global_step: impl Into<Output>,
    decay_steps: impl Into<Scalar>,
    num_periods: impl Into<Scalar>,
    alpha: impl Into<Scalar>,
    beta: impl Into<Scalar>,
) -> Result<Output> {
    LinearCosineDecay::new(learning_rate, global_step, decay_steps)
        .num_periods(num_periods)
        .alpha(alpha)
        .beta(beta)
        .build()
}

/// `tf.compat.v1.train.noisy_linear_cosine_decay(learning_rate, global_step, decay_steps)` with
/// TensorFlow's defaults (`initial_variance=1.0, variance_decay=0.55, num_periods=0.5,
/// alpha=0.0, beta=0.001`); [`NoisyLinearCosineDecay`] sets the others.
///
/// ```
/// # use weir_graph::Graph;
/// let g = Graph::new();
/// let step = weir_train::get_or_create_global_step(&g)?;
/// let lr = weir_train::noisy_linear_cosine_decay(0.1, &step, 1000)?;
/// assert_eq!(lr.name(), "NoisyLinearCosineDecay:0");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn noisy_linear_cosine_decay(
    learning_rate: impl Into<LearningRate>,
    global_step: impl Into<Output>,
    decay_steps: impl Into<Scalar>,
) -> Result<Output> {
    NoisyLinearCosineDecay::new(learning_rate, global_step, decay_steps).build()
}

/// The options of [`linear_cosine_decay`] (`tf.compat.v1.train.linear_cosine_decay`), with
/// TensorFlow's defaults: `num_periods` 0.5, `alpha` 0.0, `beta` 0.001, name
/// `LinearCosineDecay`.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_train::LinearCosineDecay;
/// let g = Graph::new();
/// let step = weir_train::get_or_create_global_step(&g)?;
/// let lr = LinearCosineDecay::new(0.1, &step, 1000).num_periods(2.0).beta(0.0).build()?;
/// assert_eq!(lr.dtype(), weir_graph::DType::F32);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct LinearCosineDecay {
    learning_rate: LearningRate,
    global_step: Output,
    decay_steps: Scalar,
    num_periods: Scalar,
    alpha: Scalar,
    beta: Scalar,
    name: Option<String>,
}

/// The noise options on top of [`LinearCosineDecay`]'s.
#[derive(Clone, Debug)]
struct Noise {
    initial_variance: Scalar,
    variance_decay: Scalar,
}

impl LinearCosineDecay {
    /// A schedule from `learning_rate` (a number or float32 scalar tensor) over `decay_steps`.
    pub fn new(
        learning_rate: impl Into<LearningRate>,
        global_step: impl Into<Output>,
        decay_steps: impl Into<Scalar>,
    ) -> LinearCosineDecay {
        LinearCosineDecay {
            learning_rate: learning_rate.into(),
            global_step: global_step.into(),
            decay_steps: decay_steps.into(),
            num_periods: Scalar::Float(0.5),
            alpha: Scalar::Float(0.0),
            beta: Scalar::Float(0.001),
            name: None,
        }
    }

    /// The number of periods in the cosine part (default 0.5).
    pub fn num_periods(mut self, v: impl Into<Scalar>) -> Self {
        self.num_periods = v.into();
        self
    }

    /// Added to the linear part (default 0.0).
    pub fn alpha(mut self, v: impl Into<Scalar>) -> Self {
        self.alpha = v.into();
        self
    }

    /// The minimum learning rate as a fraction of `learning_rate` (default 0.001).
    pub fn beta(mut self, v: impl Into<Scalar>) -> Self {
        self.beta = v.into();
        self
    }

    /// The name scope (default `LinearCosineDecay`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the nodes; the result has the learning rate's dtype (float32).
    pub fn build(self) -> Result<Output> {
        build(self, None, "LinearCosineDecay")
    }
}

/// The options of [`noisy_linear_cosine_decay`] (`tf.compat.v1.train.noisy_linear_cosine_decay`):
/// [`LinearCosineDecay`] plus Gaussian noise of variance `initial_variance / (1 + step) ^
/// variance_decay` on the linear part. The noise op takes its seeds from the graph-level seed
/// (`Graph::set_random_seed`) as TensorFlow's does, so with one it draws TensorFlow's numbers.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_train::NoisyLinearCosineDecay;
/// let g = Graph::new();
/// g.set_random_seed(7);
/// let step = weir_train::get_or_create_global_step(&g)?;
/// let lr = NoisyLinearCosineDecay::new(0.1, &step, 1000).initial_variance(0.5).build()?;
/// assert_eq!(lr.dtype(), weir_graph::DType::F32);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct NoisyLinearCosineDecay {
    base: LinearCosineDecay,
    noise: Noise,
}

impl NoisyLinearCosineDecay {
    /// A schedule from `learning_rate` (a number or float32 scalar tensor) over `decay_steps`.
    pub fn new(
        learning_rate: impl Into<LearningRate>,
        global_step: impl Into<Output>,
        decay_steps: impl Into<Scalar>,
    ) -> NoisyLinearCosineDecay {
        NoisyLinearCosineDecay {
            base: LinearCosineDecay::new(learning_rate, global_step, decay_steps),
            noise: Noise {
                initial_variance: Scalar::Float(1.0),
                variance_decay: Scalar::Float(0.55),
            },
        }
    }

    /// The initial variance of the noise (default 1.0).
    pub fn initial_variance(mut self, v: impl Into<Scalar>) -> Self {
        self.noise.initial_variance = v.into();
        self
    }

    /// The decay of the noise's variance (default 0.55).
    pub fn variance_decay(mut self, v: impl Into<Scalar>) -> Self {
        self.noise.variance_decay = v.into();
        self
    }

    /// The number of periods in the cosine part (default 0.5).
    pub fn num_periods(mut self, v: impl Into<Scalar>) -> Self {
        self.base = self.base.num_periods(v);
        self
    }

    /// Added to the linear part (default 0.0).
    pub fn alpha(mut self, v: impl Into<Scalar>) -> Self {
        self.base = self.base.alpha(v);
        self
    }

    /// The minimum learning rate as a fraction of `learning_rate` (default 0.001).
    pub fn beta(mut self, v: impl Into<Scalar>) -> Self {
        self.base = self.base.beta(v);
        self
    }

    /// The name scope (default `NoisyLinearCosineDecay`).
    pub fn name(mut self, name: &str) -> Self {
        self.base = self.base.name(name);
        self
    }

    /// Adds the nodes; the result has the learning rate's dtype (float32).
    pub fn build(self) -> Result<Output> {
        build(self.base, Some(self.noise), "NoisyLinearCosineDecay")
    }
}

fn build(s: LinearCosineDecay, noise: Option<Noise>, default_name: &str) -> Result<Output> {
    let g = s.global_step.graph().clone();
    let scope = g.name_scope(s.name.as_deref().unwrap_or(default_name));
    let (e, lr) = Expr::initial_learning_rate(&g, s.learning_rate)?;
    if noise.is_some() && e.dt != DType::F32 {
        // random_normal's stddev must be float32.
        return Err(Error::invalid_argument(format!(
            "stddev: Tensor conversion requested dtype float32 for Tensor with dtype {}",
            e.dt.python_name()
        )));
    }
    require_f32(e.dt)?;
    let decay_steps = e.cast(s.decay_steps)?;
    let noise = match noise {
        Some(n) => Some((e.cast(n.initial_variance)?, e.cast(n.variance_decay)?)),
        None => None,
    };
    let num_periods = e.cast(s.num_periods)?;
    let alpha = e.cast(s.alpha)?;
    let beta = e.cast(s.beta)?;
    let step = e.cast(&s.global_step)?;
    let step = e.named("Minimum", "Minimum", &[step, decay_steps.clone()])?;
    let left = e.binary("sub", "Sub", &decay_steps, &step)?;
    let mut linear = e.binary("truediv", "RealDiv", &left, &decay_steps)?;
    if let Some((initial_variance, variance_decay)) = noise {
        let base = e.binary("add", "AddV2", 1.0, &step)?;
        let pow = e.named("Pow", "Pow", &[base, variance_decay])?;
        let variance = e.binary("truediv", "RealDiv", &initial_variance, &pow)?;
        let std = e.unary("Sqrt", &variance)?;
        let noise = random_normal(&e, &std)?;
        linear = e.binary("add", "AddV2", &linear, &noise)?;
    }
    let fraction = e.binary("truediv", "RealDiv", &step, &decay_steps)?;
    let periods = e.binary("mul", "Mul", 2.0, &num_periods)?;
    let fraction = e.binary("mul", "Mul", &periods, &fraction)?;
    let cosine = half_cosine(&e, &fraction, None)?;
    let decayed = e.binary("add", "AddV2", &alpha, &linear)?;
    let decayed = e.binary("mul", "Mul", &decayed, &cosine)?;
    let decayed = e.binary("add", "AddV2", &decayed, &beta)?;
    e.named("Mul", scope.prefix(), &[lr, decayed])
}

/// `random_ops.random_normal([], stddev=std)`: a float32 scalar, seeded by the graph's rules.
fn random_normal(e: &Expr, std: &Output) -> Result<Output> {
    let g = &e.g;
    let scope = g.name_scope("random_normal");
    let shape = constant_named(g, Tensor::from(Vec::<i32>::new()), "shape")?;
    let mean = constant_named(g, Tensor::from(0.0f32), "mean")?;
    let (seed, seed2) = g.get_seed(None);
    let rnd = g
        .new_operation("RandomStandardNormal")
        .input(shape)
        .attr("dtype", DType::F32)
        .attr("seed", seed)
        .attr("seed2", seed2)
        .build()?
        .output(0)?;
    let scaled = e.binary("mul", "Mul", &rnd, std)?;
    e.named("AddV2", scope.prefix(), &[scaled, mean])
}
