//! `tf.train.AdagradOptimizer`.

use weir_graph::{Error, Output, Result, Tensor};
use weir_ops::init_ops::Initializer;
use weir_ops::state::Variable;

use super::{LearningRate, Optimizer, OptimizerBase};

/// `tf.train.AdagradOptimizer(learning_rate, initial_accumulator_value=0.1,
/// name="Adagrad")`: `accum += grad^2; var -= lr * grad / sqrt(accum)` (op `ApplyAdagrad`),
/// with the slot `accumulator` (variable `w/Adagrad`) starting at the initial value.
pub struct AdagradOptimizer {
    base: OptimizerBase,
    lr: LearningRate,
    initial_accumulator_value: f64,
}

impl AdagradOptimizer {
    /// An optimizer with `learning_rate` and TensorFlow's initial accumulator value 0.1.
    pub fn new(learning_rate: impl Into<LearningRate>) -> Self {
        AdagradOptimizer {
            base: OptimizerBase::new("Adagrad"),
            lr: learning_rate.into(),
            initial_accumulator_value: 0.1,
        }
    }

    /// The accumulators' starting value (must be positive).
    pub fn initial_accumulator_value(mut self, v: f64) -> Self {
        self.initial_accumulator_value = v;
        self
    }

    /// The optimizer's name, the default name scope of its ops and its slots' suffix.
    pub fn name(mut self, name: &str) -> Self {
        self.base = OptimizerBase::new(name);
        self
    }
}

impl Optimizer for AdagradOptimizer {
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
                self.initial_accumulator_value
            )));
        }
        let init = Initializer::Constant(Tensor::from(self.initial_accumulator_value));
        for v in vars {
            self.base.get_or_make_slot(v, "accumulator", &init)?;
        }
        Ok(())
    }

    fn apply_dense(&mut self, grad: &Output, var: &Variable) -> Result<Output> {
        let lr = self.lr.clone();
        let lr = self
            .base
            .scalar(var.graph(), "learning_rate", &lr, var.dtype())?;
        let accum = self.base.slot(var, "accumulator").ok_or_else(|| {
            Error::internal(format!("Adagrad has no accumulator for {}", var.name()))
        })?;
        weir_ops::training::apply_adagrad(var, &accum, lr, grad)
    }

    fn supports_sparse(&self) -> bool {
        true
    }

    /// TensorFlow's `SparseApplyAdagrad`: only the gathered rows change.
    fn apply_sparse(
        &mut self,
        values: &Output,
        indices: &Output,
        var: &Variable,
    ) -> Result<Output> {
        let lr = self.lr.clone();
        let lr = self
            .base
            .scalar(var.graph(), "learning_rate", &lr, var.dtype())?;
        let accum = self.base.slot(var, "accumulator").ok_or_else(|| {
            Error::internal(format!("Adagrad has no accumulator for {}", var.name()))
        })?;
        weir_ops::training::sparse_apply_adagrad(var, &accum, lr, values, indices, true)
    }
}
