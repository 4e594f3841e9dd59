//! `tf.train.cosine_decay` and `tf.train.cosine_decay_restarts` (SGDR).

use weir_graph::{DType, Error, Output, Result};
use weir_ops::control_flow::cond;
use weir_ops::random::Scalar;

use super::expr::{Arg, Expr};
use crate::optimizers::LearningRate;

/// TensorFlow multiplies a float32 `pi` constant by the schedule's fraction, which fails for
/// float64 learning rates; this is its message.
pub(super) fn require_f32(dt: DType) -> Result<()> {
    if dt == DType::F32 {
        return Ok(());
    }
    Err(Error::invalid_argument(format!(
        "Input 'y' of 'Mul' Op has type {} that does not match type float32 of argument 'x'.",
        dt.python_name()
    )))
}

/// `0.5 * (1 + cos(pi * fraction))`, as the cosine schedules write it.
pub(super) fn half_cosine(e: &Expr, fraction: &Output, factor: Option<&Output>) -> Result<Output> {
    let half = match factor {
        Some(f) => Some(e.binary("mul", "Mul", 0.5, f)?),
        None => None,
    };
    let cos = e.unary("Cos", &e.pi_times(fraction)?)?;
    let one_plus = e.binary("add", "AddV2", 1.0, &cos)?;
    match half {
        Some(h) => e.binary("mul", "Mul", &h, &one_plus),
        None => e.binary("mul", "Mul", 0.5, &one_plus),
    }
}

/// `tf.compat.v1.train.cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0)`:
/// `learning_rate * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, decay_steps) / decay_steps))
/// + alpha)`. float32 only, as in TensorFlow.
///
/// ```
/// # use weir_graph::Graph;
/// let g = Graph::new();
/// let step = weir_train::get_or_create_global_step(&g)?;
/// let lr = weir_train::cosine_decay(0.1, &step, 1000, 0.0)?;
/// assert_eq!(lr.name(), "CosineDecay/Mul_3:0");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn cosine_decay(
    learning_rate: impl Into<LearningRate>,
    global_step: impl Into<Output>,
    decay_steps: impl Into<Scalar>,
    alpha: impl Into<Scalar>,
) -> Result<Output> {
    CosineDecay::new(learning_rate, global_step, decay_steps)
        .alpha(alpha)
        .build()
}

/// The options of [`cosine_decay`] (`tf.compat.v1.train.cosine_decay`): `alpha` (default 0.0,
/// the final fraction of the learning rate) and the name scope (default `CosineDecay`).
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_train::CosineDecay;
/// let g = Graph::new();
/// let step = weir_train::get_or_create_global_step(&g)?;
/// let lr = CosineDecay::new(0.1, &step, 1000).alpha(0.01).build()?;
/// assert_eq!(lr.dtype(), weir_graph::DType::F32);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct CosineDecay {
    learning_rate: LearningRate,
    global_step: Output,
    decay_steps: Scalar,
    alpha: Scalar,
    name: Option<String>,
}

impl CosineDecay {
    /// A schedule from `learning_rate` (a number or float32 scalar tensor) over `decay_steps`.
    pub fn new(
        learning_rate: impl Into<LearningRate>,
        global_step: impl Into<Output>,
        decay_steps: impl Into<Scalar>,
    ) -> CosineDecay {
        CosineDecay {
            learning_rate: learning_rate.into(),
            global_step: global_step.into(),
            decay_steps: decay_steps.into(),
            alpha: Scalar::Float(0.0),
            name: None,
        }
    }

    /// The minimum learning rate as a fraction of `learning_rate` (default 0.0).
    pub fn alpha(mut self, alpha: impl Into<Scalar>) -> Self {
        self.alpha = alpha.into();
        self
    }

    /// The name scope (default `CosineDecay`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the nodes. As in TensorFlow, the result is the scope's `Mul_3` (the final multiply
    /// is not named after the scope).
    pub fn build(self) -> Result<Output> {
        let g = self.global_step.graph().clone();
        let _scope = g.name_scope(self.name.as_deref().unwrap_or("CosineDecay"));
        let (e, lr) = Expr::initial_learning_rate(&g, self.learning_rate)?;
        require_f32(e.dt)?;
        let decay_steps = e.cast(self.decay_steps)?;
        let step = e.cast(&self.global_step)?;
        let step = e.named("Minimum", "Minimum", &[step, decay_steps.clone()])?;
        let fraction = e.binary("truediv", "RealDiv", &step, &decay_steps)?;
        let cosine = half_cosine(&e, &fraction, None)?;
        // Python computes `1 - alpha` on the number, then converts it.
        let one_minus = match self.alpha {
            Scalar::Int(a) => Scalar::Int(1 - a),
            Scalar::Float(a) => Scalar::Float(1.0 - a),
        };
        let decayed = e.binary("mul", "Mul", Arg::Py(one_minus), &cosine)?;
        let decayed = e.binary("add", "AddV2", &decayed, Arg::Py(self.alpha))?;
        e.named("Mul", "Mul", &[lr, decayed])
    }
}

/// `tf.compat.v1.train.cosine_decay_restarts(learning_rate, global_step, first_decay_steps,
/// t_mul=2.0, m_mul=1.0, alpha=0.0)`: cosine decay with warm restarts (SGDR), each period
/// `t_mul` times longer and its peak `m_mul` times lower than the last. float32 only, as in
/// TensorFlow.
///
/// ```
/// # use weir_graph::Graph;
/// let g = Graph::new();
/// let step = weir_train::get_or_create_global_step(&g)?;
/// let lr = weir_train::cosine_decay_restarts(0.1, &step, 1000, 2.0, 1.0, 0.0)?;
/// assert_eq!(lr.name(), "SGDRDecay:0");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn cosine_decay_restarts(
    learning_rate: impl Into<LearningRate>,
    global_step: impl Into<Output>,
    first_decay_steps: impl Into<Scalar>,
    t_mul: impl Into<Scalar>,
    m_mul: impl Into<Scalar>,
    alpha: impl Into<Scalar>,
) -> Result<Output> {
    CosineDecayRestarts::new(learning_rate, global_step, first_decay_steps)
        .t_mul(t_mul)
        .m_mul(m_mul)
        .alpha(alpha)
        .build()
}

/// The options of [`cosine_decay_restarts`] (`tf.compat.v1.train.cosine_decay_restarts`), with
/// TensorFlow's defaults: `t_mul` 2.0, `m_mul` 1.0, `alpha` 0.0, name `SGDRDecay`.
///
/// The period switch is TensorFlow 1's `tf.cond` (`Switch`/`Merge`); TensorFlow 2.21's graphs
/// use a functional `StatelessIf` there, with the same values.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_train::CosineDecayRestarts;
/// let g = Graph::new();
/// let step = weir_train::get_or_create_global_step(&g)?;
/// let lr = CosineDecayRestarts::new(0.1, &step, 100).t_mul(1.0).m_mul(0.5).build()?;
/// assert_eq!(lr.dtype(), weir_graph::DType::F32);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct CosineDecayRestarts {
    learning_rate: LearningRate,
    global_step: Output,
    first_decay_steps: Scalar,
    t_mul: Scalar,
    m_mul: Scalar,
    alpha: Scalar,
    name: Option<String>,
}

impl CosineDecayRestarts {
    /// A schedule from `learning_rate` (a number or float32 scalar tensor) whose first period
    /// lasts `first_decay_steps` steps.
    pub fn new(
        learning_rate: impl Into<LearningRate>,
        global_step: impl Into<Output>,
        first_decay_steps: impl Into<Scalar>,
    ) -> CosineDecayRestarts {
        CosineDecayRestarts {
            learning_rate: learning_rate.into(),
            global_step: global_step.into(),
            first_decay_steps: first_decay_steps.into(),
            t_mul: Scalar::Float(2.0),
            m_mul: Scalar::Float(1.0),
            alpha: Scalar::Float(0.0),
            name: None,
        }
    }

    /// How much longer each period is than the last (default 2.0).
    pub fn t_mul(mut self, v: impl Into<Scalar>) -> Self {
        self.t_mul = v.into();
        self
    }

    /// How much lower each period's initial learning rate is (default 1.0).
    pub fn m_mul(mut self, v: impl Into<Scalar>) -> Self {
        self.m_mul = v.into();
        self
    }

    /// The minimum learning rate as a fraction of `learning_rate` (default 0.0).
    pub fn alpha(mut self, v: impl Into<Scalar>) -> Self {
        self.alpha = v.into();
        self
    }

    /// The name scope (default `SGDRDecay`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the nodes; the result has the learning rate's dtype (float32).
    pub fn build(self) -> Result<Output> {
        let g = self.global_step.graph().clone();
        let scope = g.name_scope(self.name.as_deref().unwrap_or("SGDRDecay"));
        let (e, lr) = Expr::initial_learning_rate(&g, self.learning_rate)?;
        require_f32(e.dt)?;
        let first = e.cast(self.first_decay_steps)?;
        let alpha = e.cast(self.alpha)?;
        let t_mul = e.cast(self.t_mul)?;
        let m_mul = e.cast(self.m_mul)?;
        let step = e.cast(&self.global_step)?;
        let fraction = e.binary("truediv", "RealDiv", &step, &first)?;
        let same_length = e.binary("Equal", "Equal", &t_mul, 1.0)?;
        let (restart, fraction) = cond(
            &same_length,
            || {
                let restart = e.unary("Floor", &fraction)?;
                let rest = e.binary("sub", "Sub", &fraction, &restart)?;
                Ok((restart, rest))
            },
            || {
                // Periods grow geometrically: find the period and the fraction done in it.
                let growth = e.binary("sub", "Sub", 1.0, &t_mul)?;
                let x = e.binary("mul", "Mul", &fraction, &growth)?;
                let x = e.binary("sub", "Sub", 1.0, &x)?;
                let num = e.unary("Log", &x)?;
                let den = e.unary("Log", &t_mul)?;
                let restart = e.binary("truediv", "RealDiv", &num, &den)?;
                let restart = e.unary("Floor", &restart)?;
                let pow = e.binary("pow", "Pow", &t_mul, &restart)?;
                let num = e.binary("sub", "Sub", 1.0, &pow)?;
                let den = e.binary("sub", "Sub", 1.0, &t_mul)?;
                let done = e.binary("truediv", "RealDiv", &num, &den)?;
                let rest = e.binary("sub", "Sub", &fraction, &done)?;
                let length = e.binary("pow", "Pow", &t_mul, &restart)?;
                let rest = e.binary("truediv", "RealDiv", &rest, &length)?;
                Ok((restart, rest))
            },
        )?;
        let peak = e.binary("pow", "Pow", &m_mul, &restart)?;
        let cosine = half_cosine(&e, &fraction, Some(&peak))?;
        let one_minus = e.binary("sub", "Sub", Arg::Py(Scalar::Int(1)), &alpha)?;
        let decayed = e.binary("mul", "Mul", &one_minus, &cosine)?;
        let decayed = e.binary("add", "AddV2", &decayed, &alpha)?;
        e.named("Mul", scope.prefix(), &[lr, decayed])
    }
}
