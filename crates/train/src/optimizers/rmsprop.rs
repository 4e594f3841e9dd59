//! `tf.train.RMSPropOptimizer`.

use weir_graph::{Error, Output, Result};
use weir_ops::init_ops::Initializer;
use weir_ops::state::Variable;

use super::{LearningRate, Optimizer, OptimizerBase};

/// `tf.train.RMSPropOptimizer(learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10,
/// centered=False, name="RMSProp")`: ops `ApplyRMSProp` / `ApplyCenteredRMSProp`, with the
/// slots `rms` (starting at ones, variable `w/RMSProp`), `mg` when centered, and `momentum`,
/// created in that order (`w/RMSProp_1`, `w/RMSProp_2`).
pub struct RMSPropOptimizer {
    base: OptimizerBase,
    lr: LearningRate,
    decay: LearningRate,
    momentum: LearningRate,
    epsilon: LearningRate,
    centered: bool,
}

impl RMSPropOptimizer {
    /// An optimizer with `learning_rate` and TensorFlow's defaults.
    pub fn new(learning_rate: impl Into<LearningRate>) -> Self {
        RMSPropOptimizer {
            base: OptimizerBase::new("RMSProp"),
            lr: learning_rate.into(),
            decay: LearningRate::Value(0.9),
            momentum: LearningRate::Value(0.0),
            epsilon: LearningRate::Value(1e-10),
            centered: false,
        }
    }

    /// The discount of the mean square (`decay`, TensorFlow's `rho`), default 0.9.
    pub fn decay(mut self, d: impl Into<LearningRate>) -> Self {
        self.decay = d.into();
        self
    }

    /// The momentum, default 0.
    pub fn momentum(mut self, m: impl Into<LearningRate>) -> Self {
        self.momentum = m.into();
        self
    }

    /// The epsilon added inside the square root, default 1e-10.
    pub fn epsilon(mut self, e: impl Into<LearningRate>) -> Self {
        self.epsilon = e.into();
        self
    }

    /// Normalizes by the estimated variance of the gradient rather than its second moment.
    pub fn centered(mut self, c: bool) -> Self {
        self.centered = c;
        self
    }

    /// The optimizer's name, the default name scope of its ops and its slots' suffix.
    pub fn name(mut self, name: &str) -> Self {
        self.base = OptimizerBase::new(name);
        self
    }
}

impl Optimizer for RMSPropOptimizer {
    fn base(&self) -> &OptimizerBase {
        &self.base
    }

    fn base_mut(&mut self) -> &mut OptimizerBase {
        &mut self.base
    }

    fn create_slots(&mut self, vars: &[Variable]) -> Result<()> {
        for v in vars {
            self.base.get_or_make_slot(v, "rms", &Initializer::Ones)?;
            if self.centered {
                self.base.zeros_slot(v, "mg")?;
            }
            self.base.zeros_slot(v, "momentum")?;
        }
        Ok(())
    }

    fn apply_dense(&mut self, grad: &Output, var: &Variable) -> Result<Output> {
        self.apply(grad, None, var)
    }

    fn supports_sparse(&self) -> bool {
        true
    }

    /// TensorFlow's `SparseApplyRMSProp` / `SparseApplyCenteredRMSProp`: only the gathered
    /// rows of the variable and its slots change.
    fn apply_sparse(
        &mut self,
        values: &Output,
        indices: &Output,
        var: &Variable,
    ) -> Result<Output> {
        self.apply(values, Some(indices), var)
    }
}

impl RMSPropOptimizer {
    /// The dense update of `grad`, or with `indices` the sparse update of its rows.
    fn apply(&mut self, grad: &Output, indices: Option<&Output>, var: &Variable) -> Result<Output> {
        use weir_ops::training as t;
        let g = var.graph().clone();
        let dt = var.dtype();
        let hp = [
            ("learning_rate", self.lr.clone()),
            ("decay", self.decay.clone()),
            ("momentum", self.momentum.clone()),
            ("epsilon", self.epsilon.clone()),
        ];
        let mut t = Vec::with_capacity(4);
        for (name, v) in &hp {
            t.push(self.base.scalar(&g, name, v, dt)?);
        }
        let slot = |s: &str| {
            self.base.slot(var, s).ok_or_else(|| {
                Error::internal(format!("RMSProp has no {s} slot for {}", var.name()))
            })
        };
        let (rms, mom) = (slot("rms")?, slot("momentum")?);
        let [lr, rho, momentum, eps]: [Output; 4] = t
            .try_into()
            .map_err(|_| Error::internal("RMSProp hyperparameters"))?;
        match (self.centered, indices) {
            (true, None) => {
                let mg = slot("mg")?;
                t::apply_centered_rms_prop(var, &mg, &rms, &mom, lr, rho, momentum, eps, grad)
            }
            (true, Some(ix)) => {
                let mg = slot("mg")?;
                t::sparse_apply_centered_rms_prop(
                    var, &mg, &rms, &mom, lr, rho, momentum, eps, grad, ix,
                )
            }
            (false, None) => t::apply_rms_prop(var, &rms, &mom, lr, rho, momentum, eps, grad),
            (false, Some(ix)) => {
                t::sparse_apply_rms_prop(var, &rms, &mom, lr, rho, momentum, eps, grad, ix)
            }
        }
    }
}
