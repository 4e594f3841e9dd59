//! `tf.train.MomentumOptimizer`.

use weir_graph::{Output, Result};
use weir_ops::state::Variable;

use super::{LearningRate, Optimizer, OptimizerBase};

/// `tf.train.MomentumOptimizer(learning_rate, momentum, name="Momentum",
/// use_nesterov=False)`: `accum = accum * momentum + grad; var -= lr * accum` (op
/// `ApplyMomentum`), with the slot `momentum` (variable `w/Momentum`).
pub struct MomentumOptimizer {
    base: OptimizerBase,
    lr: LearningRate,
    momentum: LearningRate,
    use_nesterov: bool,
}

impl MomentumOptimizer {
    /// An optimizer with `learning_rate` and `momentum`.
    pub fn new(learning_rate: impl Into<LearningRate>, momentum: impl Into<LearningRate>) -> Self {
        MomentumOptimizer {
            base: OptimizerBase::new("Momentum"),
            lr: learning_rate.into(),
            momentum: momentum.into(),
            use_nesterov: false,
        }
    }

    /// Nesterov momentum: `var -= lr * grad + lr * momentum * accum`.
    pub fn use_nesterov(mut self, nesterov: bool) -> Self {
        self.use_nesterov = nesterov;
        self
    }

    /// The optimizer's name, the default name scope of its ops and its slots' suffix.
    pub fn name(mut self, name: &str) -> Self {
        self.base = OptimizerBase::new(name);
        self
    }
}

impl Optimizer for MomentumOptimizer {
    fn base(&self) -> &OptimizerBase {
        &self.base
    }

    fn base_mut(&mut self) -> &mut OptimizerBase {
        &mut self.base
    }

    fn create_slots(&mut self, vars: &[Variable]) -> Result<()> {
        for v in vars {
            self.base.zeros_slot(v, "momentum")?;
        }
        Ok(())
    }

    fn apply_dense(&mut self, grad: &Output, var: &Variable) -> Result<Output> {
        let g = var.graph().clone();
        let (lr, m) = (self.lr.clone(), self.momentum.clone());
        let lr = self.base.scalar(&g, "learning_rate", &lr, var.dtype())?;
        let momentum = self.base.scalar(&g, "momentum", &m, var.dtype())?;
        let accum = self.base.zeros_slot(var, "momentum")?;
        weir_ops::training::apply_momentum(var, &accum, lr, grad, momentum, self.use_nesterov)
    }

    fn supports_sparse(&self) -> bool {
        true
    }

    /// TensorFlow's `SparseApplyMomentum`: only the gathered rows of the variable and of its
    /// momentum change.
    fn apply_sparse(
        &mut self,
        values: &Output,
        indices: &Output,
        var: &Variable,
    ) -> Result<Output> {
        let g = var.graph().clone();
        let (lr, m) = (self.lr.clone(), self.momentum.clone());
        let lr = self.base.scalar(&g, "learning_rate", &lr, var.dtype())?;
        let momentum = self.base.scalar(&g, "momentum", &m, var.dtype())?;
        let accum = self.base.zeros_slot(var, "momentum")?;
        weir_ops::training::sparse_apply_momentum(
            var,
            &accum,
            lr,
            values,
            indices,
            momentum,
            self.use_nesterov,
        )
    }
}
