//! `tf.train.ProximalAdagradOptimizer` and `tf.train.ProximalGradientDescentOptimizer`.

use weir_graph::{Error, Output, Result, Tensor};
use weir_ops::init_ops::Initializer;
use weir_ops::state::Variable;

use super::{LearningRate, Optimizer, OptimizerBase};

/// A hyperparameter as TensorFlow passes a Python float: a float32 tensor, cast to the
/// variable's dtype.
pub(super) fn tf_float(v: &LearningRate) -> LearningRate {
    match v {
        LearningRate::Value(x) => LearningRate::Value(*x as f32 as f64),
        t => t.clone(),
    }
}

/// A float as Python's `%s` prints it (`0.0`, `0.25`).
pub(super) fn py_float(v: f64) -> String {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e16 {
        format!("{v:.1}")
    } else {
        format!("{v}")
    }
}

/// The learning rate, l1 and l2 tensors of one update.
fn lr_l1_l2(
    base: &mut OptimizerBase,
    var: &Variable,
    lr: &LearningRate,
    l1: f64,
    l2: f64,
) -> Result<[Output; 3]> {
    let g = var.graph().clone();
    let dt = var.dtype();
    Ok([
        base.scalar(&g, "learning_rate", &tf_float(lr), dt)?,
        base.scalar(
            &g,
            "l1_regularization_strength",
            &tf_float(&LearningRate::Value(l1)),
            dt,
        )?,
        base.scalar(
            &g,
            "l2_regularization_strength",
            &tf_float(&LearningRate::Value(l2)),
            dt,
        )?,
    ])
}

/// `tf.train.ProximalAdagradOptimizer(learning_rate, initial_accumulator_value=0.1,
/// l1_regularization_strength=0.0, l2_regularization_strength=0.0, name="ProximalAdagrad")`:
/// ops `ApplyProximalAdagrad` / `SparseApplyProximalAdagrad` with the slot `accumulator`
/// (variable `w/ProximalAdagrad`) starting at the initial value.
///
/// ```
/// use weir_graph::Graph;
/// use weir_ops::{array::constant, state::Variable};
/// use weir_train::{Optimizer, ProximalAdagradOptimizer};
///
/// let g = Graph::new();
/// let w = Variable::builder(constant(&g, [1.0f32, 2.0])?).name("w").build()?;
/// let mut opt = ProximalAdagradOptimizer::new(0.1).l1_regularization_strength(0.01);
/// opt.apply_gradients(&[(Some(constant(&g, [0.5f32, -0.5])?), w.clone())], None, None)?;
/// assert_eq!(opt.get_slot(&w, "accumulator").unwrap().name(), "w/ProximalAdagrad");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct ProximalAdagradOptimizer {
    base: OptimizerBase,
    lr: LearningRate,
    initial_accumulator_value: f64,
    l1: f64,
    l2: f64,
}

impl ProximalAdagradOptimizer {
    /// An optimizer with `learning_rate`, accumulators starting at 0.1 and no regularization.
    pub fn new(learning_rate: impl Into<LearningRate>) -> Self {
        ProximalAdagradOptimizer {
            base: OptimizerBase::new("ProximalAdagrad"),
            lr: learning_rate.into(),
            initial_accumulator_value: 0.1,
            l1: 0.0,
            l2: 0.0,
        }
    }

    /// The accumulators' starting value (must be positive).
    pub fn initial_accumulator_value(mut self, v: f64) -> Self {
        self.initial_accumulator_value = v;
        self
    }

    /// The L1 regularization strength, default 0.
    pub fn l1_regularization_strength(mut self, v: f64) -> Self {
        self.l1 = v;
        self
    }

    /// The L2 regularization strength, default 0.
    pub fn l2_regularization_strength(mut self, v: f64) -> Self {
        self.l2 = v;
        self
    }

    /// The optimizer's name, the default name scope of its ops and its slots' suffix.
    pub fn name(mut self, name: &str) -> Self {
        self.base = OptimizerBase::new(name);
        self
    }

    fn accum(&self, var: &Variable) -> Result<Variable> {
        self.base.slot(var, "accumulator").ok_or_else(|| {
            Error::internal(format!(
                "ProximalAdagrad has no accumulator for {}",
                var.name()
            ))
        })
    }
}

impl Optimizer for ProximalAdagradOptimizer {
    fn base(&self) -> &OptimizerBase {
        &self.base
    }

    fn base_mut(&mut self) -> &mut OptimizerBase {
        &mut self.base
    }

    fn create_slots(&mut self, vars: &[Variable]) -> Result<()> {
        if self.initial_accumulator_value <= 0.0 {
            return Err(Error::invalid_argument(format!(
                "initial_accumulator_value must be positive: {}",
                py_float(self.initial_accumulator_value)
            )));
        }
        let init = Initializer::Constant(Tensor::from(self.initial_accumulator_value));
        for v in vars {
            self.base.get_or_make_slot(v, "accumulator", &init)?;
        }
        Ok(())
    }

    fn apply_dense(&mut self, grad: &Output, var: &Variable) -> Result<Output> {
        let accum = self.accum(var)?;
        let [lr, l1, l2] = lr_l1_l2(&mut self.base, var, &self.lr, self.l1, self.l2)?;
        weir_ops::training::apply_proximal_adagrad(var, &accum, lr, l1, l2, grad)
    }

    fn supports_sparse(&self) -> bool {
        true
    }

    fn apply_sparse(
        &mut self,
        values: &Output,
        indices: &Output,
        var: &Variable,
    ) -> Result<Output> {
        let accum = self.accum(var)?;
        let [lr, l1, l2] = lr_l1_l2(&mut self.base, var, &self.lr, self.l1, self.l2)?;
        weir_ops::training::sparse_apply_proximal_adagrad(var, &accum, lr, l1, l2, values, indices)
    }
}

/// `tf.train.ProximalGradientDescentOptimizer(learning_rate, l1_regularization_strength=0.0,
/// l2_regularization_strength=0.0, name="ProximalGradientDescent")`: ops
/// `ApplyProximalGradientDescent` / `SparseApplyProximalGradientDescent`; no slots.
///
/// ```
/// use weir_graph::Graph;
/// use weir_ops::{array::constant, state::Variable};
/// use weir_train::{Optimizer, ProximalGradientDescentOptimizer};
///
/// let g = Graph::new();
/// let w = Variable::builder(constant(&g, [1.0f32, 2.0])?).name("w").build()?;
/// let mut opt = ProximalGradientDescentOptimizer::new(0.1).l2_regularization_strength(0.5);
/// let train = opt.apply_gradients(&[(Some(constant(&g, [0.5f32, -0.5])?), w)], None, None)?;
/// assert_eq!(train.name(), "ProximalGradientDescent");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct ProximalGradientDescentOptimizer {
    base: OptimizerBase,
    lr: LearningRate,
    l1: f64,
    l2: f64,
}

impl ProximalGradientDescentOptimizer {
    /// An optimizer with `learning_rate` and no regularization.
    pub fn new(learning_rate: impl Into<LearningRate>) -> Self {
        ProximalGradientDescentOptimizer {
            base: OptimizerBase::new("ProximalGradientDescent"),
            lr: learning_rate.into(),
            l1: 0.0,
            l2: 0.0,
        }
    }

    /// The L1 regularization strength, default 0.
    pub fn l1_regularization_strength(mut self, v: f64) -> Self {
        self.l1 = v;
        self
    }

    /// The L2 regularization strength, default 0.
    pub fn l2_regularization_strength(mut self, v: f64) -> Self {
        self.l2 = v;
        self
    }

    /// The optimizer's name, the default name scope of its ops.
    pub fn name(mut self, name: &str) -> Self {
        self.base = OptimizerBase::new(name);
        self
    }
}

impl Optimizer for ProximalGradientDescentOptimizer {
    fn base(&self) -> &OptimizerBase {
        &self.base
    }

    fn base_mut(&mut self) -> &mut OptimizerBase {
        &mut self.base
    }

    fn create_slots(&mut self, _vars: &[Variable]) -> Result<()> {
        Ok(())
    }

    fn apply_dense(&mut self, grad: &Output, var: &Variable) -> Result<Output> {
        let [lr, l1, l2] = lr_l1_l2(&mut self.base, var, &self.lr, self.l1, self.l2)?;
        weir_ops::training::apply_proximal_gradient_descent(var, lr, l1, l2, grad)
    }

    fn supports_sparse(&self) -> bool {
        true
    }

    fn apply_sparse(
        &mut self,
        values: &Output,
        indices: &Output,
        var: &Variable,
    ) -> Result<Output> {
        let [lr, l1, l2] = lr_l1_l2(&mut self.base, var, &self.lr, self.l1, self.l2)?;
        weir_ops::training::sparse_apply_proximal_gradient_descent(var, lr, l1, l2, values, indices)
    }
}
