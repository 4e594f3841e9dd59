//! `tf.train.natural_exp_decay`.

use weir_graph::{Error, Output, Result, Tensor};
use weir_ops::array::constant_named;
use weir_ops::random::Scalar;

use super::expr::{value, Expr};
use crate::optimizers::LearningRate;

/// `tf.compat.v1.train.natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate,
/// staircase=False)`: `learning_rate * exp(-decay_rate) ^ (global_step / decay_steps)` (the
/// exponent floored when `staircase`), built as TensorFlow builds it: `Neg` and `Exp` of the
/// float32 rate in the current scope, then an `ExponentialDecay` scope.
///
/// ```
/// # use weir_graph::Graph;
/// let g = Graph::new();
/// let step = weir_train::get_or_create_global_step(&g)?;
/// let lr = weir_train::natural_exp_decay(0.1, &step, 1000, 0.5, true)?;
/// assert_eq!(lr.name(), "ExponentialDecay:0");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn natural_exp_decay(
    learning_rate: impl Into<LearningRate>,
    global_step: impl Into<Output>,
    decay_steps: impl Into<Scalar>,
    decay_rate: impl Into<Scalar>,
    staircase: bool,
) -> Result<Output> {
    NaturalExpDecay::new(learning_rate, global_step, decay_steps, decay_rate)
        .staircase(staircase)
        .build()
}

/// The options of [`natural_exp_decay`] (`tf.compat.v1.train.natural_exp_decay`): `staircase`
/// (default false) and the name scope (default `ExponentialDecay`).
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_train::NaturalExpDecay;
/// let g = Graph::new();
/// let step = weir_train::get_or_create_global_step(&g)?;
/// let lr = NaturalExpDecay::new(0.1, &step, 100, 0.5).name("lr").build()?;
/// assert_eq!(lr.name(), "lr:0");
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct NaturalExpDecay {
    learning_rate: LearningRate,
    global_step: Output,
    decay_steps: Scalar,
    decay_rate: Scalar,
    staircase: bool,
    name: Option<String>,
}

impl NaturalExpDecay {
    /// A schedule from `learning_rate` (a number or float scalar tensor), decaying by
    /// `exp(-decay_rate)` every `decay_steps` steps of `global_step`.
    pub fn new(
        learning_rate: impl Into<LearningRate>,
        global_step: impl Into<Output>,
        decay_steps: impl Into<Scalar>,
        decay_rate: impl Into<Scalar>,
    ) -> NaturalExpDecay {
        NaturalExpDecay {
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

    /// The name scope (default `ExponentialDecay`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the nodes; the result has the learning rate's dtype.
    pub fn build(self) -> Result<Output> {
        let g = self.global_step.graph().clone();
        if let Scalar::Int(_) = self.decay_rate {
            return Err(Error::invalid_argument(
                "Value for attr 'T' of int32 is not in the list of allowed values for 'Exp': \
                 natural_exp_decay needs a float decay_rate",
            ));
        }
        // math_ops.exp(math_ops.negative(decay_rate)), outside the schedule's scope.
        let neg = g.name_scope("Neg");
        let rate = constant_named(&g, Tensor::from(value(self.decay_rate) as f32), "x")?;
        let rate = g
            .new_operation("Neg")
            .name(neg.prefix())
            .input(rate)
            .build()?
            .output(0)?;
        drop(neg);
        let rate = g.new_operation("Exp").input(rate).build()?.output(0)?;

        let scope = g.name_scope(self.name.as_deref().unwrap_or("ExponentialDecay"));
        let (e, lr) = Expr::initial_learning_rate(&g, self.learning_rate)?;
        let decay_steps = e.cast(self.decay_steps)?;
        let rate = e.cast(&rate)?;
        let step = e.cast(&self.global_step)?;
        let mut p = e.binary("truediv", "RealDiv", &step, &decay_steps)?;
        if self.staircase {
            p = e.unary("Floor", &p)?;
        }
        let pow = e.named("Pow", "Pow", &[rate, p])?;
        e.named("Mul", scope.prefix(), &[lr, pow])
    }
}
