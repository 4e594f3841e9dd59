//! `tf.train.polynomial_decay`.

use weir_graph::{DType, Error, Output, Result, Tensor};
use weir_ops::array::constant_named;
use weir_ops::random::Scalar;

use super::expr::{Arg, Expr};
use crate::optimizers::LearningRate;

/// `tf.compat.v1.train.polynomial_decay(learning_rate, global_step, decay_steps,
/// end_learning_rate=0.0001, power=1.0, cycle=False)`: `(lr - end) * (1 - step / decay_steps)
/// ^ power + end`, with the step capped at `decay_steps`, or with `decay_steps` stretched to the
/// next multiple above the step when `cycle`.
///
/// Numbers are Python numbers: `100` is an int, `0.5` a float (rounded to float32 first, as
/// TensorFlow converts them). TensorFlow fails for `cycle` with a float64 learning rate, and so
/// does this.
///
/// ```
/// # use weir_graph::Graph;
/// let g = Graph::new();
/// let step = weir_train::get_or_create_global_step(&g)?;
/// let lr = weir_train::polynomial_decay(0.1, &step, 10_000, 0.0001, 1.0, false)?;
/// assert_eq!(lr.name(), "PolynomialDecay:0");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn polynomial_decay(
    learning_rate: impl Into<LearningRate>,
    global_step: impl Into<Output>,
    decay_steps: impl Into<Scalar>,
    end_learning_rate: impl Into<Scalar>,
    power: impl Into<Scalar>,
    cycle: bool,
) -> Result<Output> {
    PolynomialDecay::new(learning_rate, global_step, decay_steps)
        .end_learning_rate(end_learning_rate)
        .power(power)
        .cycle(cycle)
        .build()
}

/// The options of [`polynomial_decay`] (`tf.compat.v1.train.polynomial_decay`), with
/// TensorFlow's defaults: `end_learning_rate` 0.0001, `power` 1.0, no `cycle`, name
/// `PolynomialDecay`.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_train::PolynomialDecay;
/// let g = Graph::new();
/// let step = weir_train::get_or_create_global_step(&g)?;
/// let lr = PolynomialDecay::new(0.1, &step, 1000).power(0.5).cycle(true).build()?;
/// assert_eq!(lr.dtype(), weir_graph::DType::F32);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct PolynomialDecay {
    learning_rate: LearningRate,
    global_step: Output,
    decay_steps: Scalar,
    end_learning_rate: Scalar,
    power: Scalar,
    cycle: bool,
    name: Option<String>,
}

impl PolynomialDecay {
    /// A schedule from `learning_rate` (a number or float scalar tensor) down over
    /// `decay_steps` steps of `global_step`.
    pub fn new(
        learning_rate: impl Into<LearningRate>,
        global_step: impl Into<Output>,
        decay_steps: impl Into<Scalar>,
    ) -> PolynomialDecay {
        PolynomialDecay {
            learning_rate: learning_rate.into(),
            global_step: global_step.into(),
            decay_steps: decay_steps.into(),
            end_learning_rate: Scalar::Float(0.0001),
            power: Scalar::Float(1.0),
            cycle: false,
            name: None,
        }
    }

    /// The final learning rate (default 0.0001).
    pub fn end_learning_rate(mut self, v: impl Into<Scalar>) -> Self {
        self.end_learning_rate = v.into();
        self
    }

    /// The power of the polynomial (default 1.0, linear).
    pub fn power(mut self, v: impl Into<Scalar>) -> Self {
        self.power = v.into();
        self
    }

    /// Whether to restart the decay past `decay_steps` (default false).
    pub fn cycle(mut self, cycle: bool) -> Self {
        self.cycle = cycle;
        self
    }

    /// The name scope (default `PolynomialDecay`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the nodes; the result has the learning rate's dtype.
    pub fn build(self) -> Result<Output> {
        let g = self.global_step.graph().clone();
        let scope = g.name_scope(self.name.as_deref().unwrap_or("PolynomialDecay"));
        let (e, lr) = Expr::initial_learning_rate(&g, self.learning_rate)?;
        if self.cycle && e.dt != DType::F32 {
            return Err(Error::invalid_argument(format!(
                "Input 'e' of 'SelectV2' Op has type {} that does not match type float32 of argument 't'.",
                e.dt.python_name()
            )));
        }
        let end = e.cast(self.end_learning_rate)?;
        let power = e.cast(self.power)?;
        let mut step = e.cast(&self.global_step)?;
        let mut decay_steps = e.cast(self.decay_steps)?;
        if self.cycle {
            // The first multiple of decay_steps above the step (1 at step 0).
            let at_zero = e.binary("Equal", "Equal", &step, Arg::Py(Scalar::Int(0)))?;
            let ratio = e.binary("truediv", "RealDiv", &step, self.decay_steps)?;
            let ceil = e.unary("Ceil", &ratio)?;
            let select = g.name_scope("SelectV2");
            let one = constant_named(&g, Tensor::from(1.0f32), "t")?;
            let multiplier = e.named("SelectV2", select.prefix(), &[at_zero, one, ceil])?;
            drop(select);
            decay_steps = e.named("Mul", "Mul", &[decay_steps, multiplier])?;
        } else {
            step = e.named("Minimum", "Minimum", &[step, decay_steps.clone()])?;
        }
        let p = e.binary("truediv", "RealDiv", &step, &decay_steps)?;
        let range = e.binary("sub", "Sub", &lr, &end)?;
        let rest = e.binary("sub", "Sub", Arg::Py(Scalar::Int(1)), &p)?;
        let pow = e.named("Pow", "Pow", &[rest, power])?;
        let scaled = e.named("Mul", "Mul", &[range, pow])?;
        e.named("AddV2", scope.prefix(), &[scaled, end])
    }
}
