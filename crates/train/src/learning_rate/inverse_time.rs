//! `tf.train.inverse_time_decay`.

use weir_graph::{Output, Result};
use weir_ops::random::Scalar;

use super::expr::Expr;
use crate::optimizers::LearningRate;

/// `tf.compat.v1.train.inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate,
/// staircase=False)`: `learning_rate / (1 + decay_rate * global_step / decay_steps)`, with
/// `global_step / decay_steps` floored when `staircase`.
///
/// ```
/// # use weir_graph::Graph;
/// let g = Graph::new();
/// let step = weir_train::get_or_create_global_step(&g)?;
/// let lr = weir_train::inverse_time_decay(0.1, &step, 1000, 0.5, false)?;
/// assert_eq!(lr.name(), "InverseTimeDecay:0");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn inverse_time_decay(
    learning_rate: impl Into<LearningRate>,
    global_step: impl Into<Output>,
    decay_steps: impl Into<Scalar>,
    decay_rate: impl Into<Scalar>,
    staircase: bool,
) -> Result<Output> {
    InverseTimeDecay::new(learning_rate, global_step, decay_steps, decay_rate)
        .staircase(staircase)
        .build()
}

/// The options of [`inverse_time_decay`] (`tf.compat.v1.train.inverse_time_decay`):
/// `staircase` (default false) and the name scope (default `InverseTimeDecay`).
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_train::InverseTimeDecay;
/// let g = Graph::new();
/// let step = weir_train::get_or_create_global_step(&g)?;
/// let lr = InverseTimeDecay::new(0.1, &step, 100, 0.5).staircase(true).build()?;
/// assert_eq!(lr.dtype(), weir_graph::DType::F32);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct InverseTimeDecay {
    learning_rate: LearningRate,
    global_step: Output,
    decay_steps: Scalar,
    decay_rate: Scalar,
    staircase: bool,
    name: Option<String>,
}

impl InverseTimeDecay {
    /// A schedule from `learning_rate` (a number or float scalar tensor) over `global_step`.
    pub fn new(
        learning_rate: impl Into<LearningRate>,
        global_step: impl Into<Output>,
        decay_steps: impl Into<Scalar>,
        decay_rate: impl Into<Scalar>,
    ) -> InverseTimeDecay {
        InverseTimeDecay {
            learning_rate: learning_rate.into(),
            global_step: global_step.into(),
            decay_steps: decay_steps.into(),
            decay_rate: decay_rate.into(),
            staircase: false,
            name: None,
        }
    }

    /// Whether to decay at discrete intervals (default false).
    pub fn staircase(mut self, staircase: bool) -> Self {
        self.staircase = staircase;
        self
    }

    /// The name scope (default `InverseTimeDecay`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the nodes; the result has the learning rate's dtype.
    pub fn build(self) -> Result<Output> {
        let g = self.global_step.graph().clone();
        let scope = g.name_scope(self.name.as_deref().unwrap_or("InverseTimeDecay"));
        let (e, lr) = Expr::initial_learning_rate(&g, self.learning_rate)?;
        let decay_steps = e.cast(self.decay_steps)?;
        let rate = e.cast(self.decay_rate)?;
        let step = e.cast(&self.global_step)?;
        let mut p = e.binary("truediv", "RealDiv", &step, &decay_steps)?;
        if self.staircase {
            p = e.unary("Floor", &p)?;
        }
        let one = e.constant(Scalar::Int(1), weir_graph::DType::I32, "Const")?;
        let one = e.cast(&one)?;
        let scaled = e.named("Mul", "Mul", &[rate, p])?;
        let denom = e.named("AddV2", "Add", &[one, scaled])?;
        e.named("RealDiv", scope.prefix(), &[lr, denom])
    }
}
