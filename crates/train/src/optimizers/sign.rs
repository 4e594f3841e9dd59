//! `tf.contrib.opt.AddSignOptimizer` and `tf.contrib.opt.PowerSignOptimizer`, the update rules
//! found by Neural Optimizer Search (Bello et al., 2017). Both keep a moving average `m` of the
//! gradient and scale each step by the agreement of `sign(g)` and `sign(m)`, damped by an
//! optional sign decay schedule ([`super::sign_decay`]) of the global step.

use weir_graph::{DType, Error, Graph, Operation, Output, Result};
use weir_ops::array::{constant, gather};
use weir_ops::math::{add, mul, pow, sign, sub, unsorted_segment_sum};
use weir_ops::state::{scatter_sub, Variable};

use super::sign_decay::{decay_as, SignDecayFn};
use super::{GradAndVar, LearningRate, Optimizer, OptimizerBase};

/// The state and rules both optimizers share; `power` picks PowerSign.
struct SignCore {
    base: OptimizerBase,
    lr: LearningRate,
    /// AddSign's `alpha`, or PowerSign's `log(base)`.
    alpha: LearningRate,
    beta: LearningRate,
    power: bool,
    sign_decay_fn: Option<SignDecayFn>,
    /// The float32 decay of the `apply_gradients` call being built, from `sign_decay_fn`.
    sign_decay: Option<Output>,
}

impl SignCore {
    /// `[lr, alpha or logbase, sign_decay, beta]` in `var`'s dtype.
    fn scalars(&mut self, var: &Variable) -> Result<[Output; 4]> {
        let g = var.graph().clone();
        let dt = var.dtype();
        let (lr, alpha, beta) = (self.lr.clone(), self.alpha.clone(), self.beta.clone());
        let second = if self.power { "logbase" } else { "alpha" };
        let decay = match &self.sign_decay {
            Some(d) => decay_as(d, dt)?,
            None => self
                .base
                .scalar(&g, "sign_decay", &LearningRate::Value(1.0), dt)?,
        };
        Ok([
            self.base.scalar(&g, "learning_rate", &lr, dt)?,
            self.base.scalar(&g, second, &alpha, dt)?,
            decay,
            self.base.scalar(&g, "beta", &beta, dt)?,
        ])
    }
}

impl Optimizer for SignCore {
    fn base(&self) -> &OptimizerBase {
        &self.base
    }

    fn base_mut(&mut self) -> &mut OptimizerBase {
        &mut self.base
    }

    fn create_slots(&mut self, vars: &[Variable]) -> Result<()> {
        for v in vars {
            self.base.zeros_slot(v, "m")?;
        }
        Ok(())
    }

    fn apply_dense(&mut self, grad: &Output, var: &Variable) -> Result<Output> {
        let [lr, alpha, decay, beta] = self.scalars(var)?;
        let m = self.base.zeros_slot(var, "m")?;
        if self.power {
            weir_ops::training::apply_power_sign(var, &m, lr, alpha, decay, beta, grad)
        } else {
            weir_ops::training::apply_add_sign(var, &m, lr, alpha, decay, beta, grad)
        }
    }

    fn supports_sparse(&self) -> bool {
        true
    }

    /// TensorFlow's `_apply_sparse`: `m` decays on every row,
    /// `m = m * beta + dense(grad) * (1 - beta)`; the gathered rows of the variable move by
    /// `lr * multiplier * g`, the multiplier `alpha + sign_decay * sign(g) * sign(m)` (AddSign)
    /// or `e^(logbase * sign_decay * sign(g) * sign(m))` (PowerSign).
    fn apply_sparse(
        &mut self,
        values: &Output,
        indices: &Output,
        var: &Variable,
    ) -> Result<Output> {
        let g = var.graph().clone();
        let dt = var.dtype();
        let [lr, alpha, decay, beta] = self.scalars(var)?;
        let rows = var
            .shape()
            .dims()
            .and_then(|d| d.first().copied().flatten())
            .ok_or_else(|| {
                Error::invalid_argument(format!(
                    "the rows of variable {} are not known",
                    var.name()
                ))
            })?;
        let n = match indices.dtype() {
            DType::I64 => constant(&g, rows as i64)?,
            _ => constant(&g, rows as i32)?,
        };
        // The gathered gradient made dense, as TensorFlow converts IndexedSlices.
        let dense = unsorted_segment_sum(values, indices, n)?;
        let one = constant(&g, weir_graph::scalar_of(dt, 1.0)?)?;
        let m = self.base.zeros_slot(var, "m")?;
        let m_t = m.assign(add(mul(&m, &beta)?, mul(dense, sub(one, &beta)?)?)?)?;
        let sign_gm = mul(gather(sign(&m_t)?, indices, 0)?, sign(values)?)?;
        let multiplier = if self.power {
            let e = constant(&g, weir_graph::scalar_of(dt, std::f64::consts::E)?)?;
            pow(e, mul(mul(alpha, decay)?, sign_gm)?)?
        } else {
            add(alpha, mul(decay, sign_gm)?)?
        };
        // The variable's update reads `m_t`, so it runs after the moment's (TensorFlow groups
        // the two).
        scatter_sub(var, indices, mul(mul(lr, multiplier)?, values)?)
    }
}

/// Runs `apply_gradients` of `core` after computing the step's sign decay from
/// `global_step`, outside the optimizer's name scope as TensorFlow does.
fn apply_with_decay(
    core: &mut SignCore,
    grads_and_vars: &[GradAndVar],
    global_step: Option<&Variable>,
    name: Option<&str>,
) -> Result<Operation> {
    core.sign_decay = match &core.sign_decay_fn {
        Some(f) => Some(f(global_step)?),
        None => None,
    };
    core.apply_gradients(grads_and_vars, global_step, name)
}

macro_rules! delegate_optimizer {
    ($ty:ty) => {
        impl Optimizer for $ty {
            fn base(&self) -> &OptimizerBase {
                &self.0.base
            }

            fn base_mut(&mut self) -> &mut OptimizerBase {
                &mut self.0.base
            }

            /// The slot `m` (variable `w/<name>`).
            fn create_slots(&mut self, vars: &[Variable]) -> Result<()> {
                self.0.create_slots(vars)
            }

            fn apply_dense(&mut self, grad: &Output, var: &Variable) -> Result<Output> {
                self.0.apply_dense(grad, var)
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
                self.0.apply_sparse(values, indices, var)
            }

            fn finish(
                &mut self,
                graph: &Graph,
                update_ops: &[Operation],
                name: &str,
            ) -> Result<Operation> {
                self.0.finish(graph, update_ops, name)
            }

            /// TensorFlow's override: the sign decay of `global_step` first (an error when a
            /// decay function needs the step and none is given), then the updates.
            fn apply_gradients(
                &mut self,
                grads_and_vars: &[GradAndVar],
                global_step: Option<&Variable>,
                name: Option<&str>,
            ) -> Result<Operation> {
                apply_with_decay(&mut self.0, grads_and_vars, global_step, name)
            }
        }
    };
}

/// `tf.contrib.opt.AddSignOptimizer(learning_rate=0.1, alpha=1.0, beta=0.9,
/// sign_decay_fn=None, name="AddSignOptimizer")`: `m = beta * m + (1 - beta) * g`, then
/// `var -= lr * (alpha + sign_decay * sign(g) * sign(m)) * g` (op `ApplyAddSign`), with the slot
/// `m` (variable `w/AddSignOptimizer`) and `sign_decay` 1 without a decay function.
///
/// ```
/// use weir_graph::Graph;
/// use weir_ops::{array::constant, state::Variable};
/// use weir_train::optimizers::{sign_decay, AddSignOptimizer};
/// use weir_train::{get_or_create_global_step, Optimizer};
///
/// let g = Graph::new();
/// let w = Variable::builder(constant(&g, [1.0f32, 2.0])?).name("w").build()?;
/// let step = get_or_create_global_step(&g)?;
/// let grad = constant(&g, [0.5f32, -0.5])?;
/// let mut opt = AddSignOptimizer::new(0.1).sign_decay_fn(sign_decay::get_linear_decay_fn(100));
/// opt.apply_gradients(&[(Some(grad), w.clone())], Some(&step), None)?;
/// assert_eq!(opt.get_slot(&w, "m").unwrap().name(), "w/AddSignOptimizer");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct AddSignOptimizer(SignCore);

impl AddSignOptimizer {
    /// An optimizer with `learning_rate` (TensorFlow's default is 0.1), `alpha` 1 and `beta`
    /// 0.9.
    pub fn new(learning_rate: impl Into<LearningRate>) -> Self {
        AddSignOptimizer(SignCore {
            base: OptimizerBase::new("AddSignOptimizer"),
            lr: learning_rate.into(),
            alpha: LearningRate::Value(1.0),
            beta: LearningRate::Value(0.9),
            power: false,
            sign_decay_fn: None,
            sign_decay: None,
        })
    }

    /// The constant part of the multiplier, default 1.
    pub fn alpha(mut self, alpha: impl Into<LearningRate>) -> Self {
        self.0.alpha = alpha.into();
        self
    }

    /// The decay of the moving average `m`, default 0.9.
    pub fn beta(mut self, beta: impl Into<LearningRate>) -> Self {
        self.0.beta = beta.into();
        self
    }

    /// The schedule of `sign_decay` over the global step (TensorFlow's `sign_decay_fn`).
    pub fn sign_decay_fn(mut self, f: SignDecayFn) -> Self {
        self.0.sign_decay_fn = Some(f);
        self
    }

    /// The optimizer's name, the default name scope of its ops and its slot's suffix.
    pub fn name(mut self, name: &str) -> Self {
        self.0.base = OptimizerBase::new(name);
        self
    }
}

delegate_optimizer!(AddSignOptimizer);

/// `tf.contrib.opt.PowerSignOptimizer(learning_rate=0.1, base=math.e, beta=0.9,
/// sign_decay_fn=None, name="PowerSignOptimizer")`: `m = beta * m + (1 - beta) * g`, then
/// `var -= lr * exp(log(base) * sign_decay * sign(g) * sign(m)) * g` (op `ApplyPowerSign`), with
/// the slot `m` (variable `w/PowerSignOptimizer`).
pub struct PowerSignOptimizer(SignCore);

impl PowerSignOptimizer {
    /// An optimizer with `learning_rate` (TensorFlow's default is 0.1), `base` e and `beta`
    /// 0.9.
    pub fn new(learning_rate: impl Into<LearningRate>) -> Self {
        PowerSignOptimizer(SignCore {
            base: OptimizerBase::new("PowerSignOptimizer"),
            lr: learning_rate.into(),
            alpha: LearningRate::Value(1.0),
            beta: LearningRate::Value(0.9),
            power: true,
            sign_decay_fn: None,
            sign_decay: None,
        })
    }

    /// The base of the multiplier, default e (kept as its natural logarithm, as TensorFlow
    /// does). The trait's accessor of the shared state is `Optimizer::base(&opt)`.
    pub fn base(mut self, base: f64) -> Self {
        self.0.alpha = LearningRate::Value(base.ln());
        self
    }

    /// The decay of the moving average `m`, default 0.9.
    pub fn beta(mut self, beta: impl Into<LearningRate>) -> Self {
        self.0.beta = beta.into();
        self
    }

    /// The schedule of `sign_decay` over the global step (TensorFlow's `sign_decay_fn`).
    pub fn sign_decay_fn(mut self, f: SignDecayFn) -> Self {
        self.0.sign_decay_fn = Some(f);
        self
    }

    /// The optimizer's name, the default name scope of its ops and its slot's suffix.
    pub fn name(mut self, name: &str) -> Self {
        self.0.base = OptimizerBase::new(name);
        self
    }
}

delegate_optimizer!(PowerSignOptimizer);
