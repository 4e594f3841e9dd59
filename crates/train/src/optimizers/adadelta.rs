//! `tf.train.AdadeltaOptimizer`.

use weir_graph::{Error, Output, Result};
use weir_ops::state::Variable;

use super::proximal::tf_float;
use super::{LearningRate, Optimizer, OptimizerBase};

/// `tf.train.AdadeltaOptimizer(learning_rate=0.001, rho=0.95, epsilon=1e-08,
/// name="Adadelta")`: ops `ApplyAdadelta` / `SparseApplyAdadelta` with the zero slots `accum`
/// and `accum_update` (variables `w/Adadelta`, `w/Adadelta_1`).
///
/// ```
/// use weir_graph::Graph;
/// use weir_ops::{array::constant, state::Variable};
/// use weir_train::{AdadeltaOptimizer, Optimizer};
///
/// let g = Graph::new();
/// let w = Variable::builder(constant(&g, [1.0f32, 2.0])?).name("w").build()?;
/// let mut opt = AdadeltaOptimizer::new(1.0).rho(0.9);
/// let train = opt.apply_gradients(&[(Some(constant(&g, [0.5f32, -0.5])?), w.clone())], None, None)?;
/// assert_eq!(train.name(), "Adadelta");
/// assert_eq!(opt.get_slot(&w, "accum").unwrap().name(), "w/Adadelta");
/// assert_eq!(opt.get_slot(&w, "accum_update").unwrap().name(), "w/Adadelta_1");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct AdadeltaOptimizer {
    base: OptimizerBase,
    lr: LearningRate,
    rho: f64,
    epsilon: f64,
}

impl AdadeltaOptimizer {
    /// An optimizer with `learning_rate` (TensorFlow's default is 0.001), rho 0.95 and
    /// epsilon 1e-8.
    pub fn new(learning_rate: impl Into<LearningRate>) -> Self {
        AdadeltaOptimizer {
            base: OptimizerBase::new("Adadelta"),
            lr: learning_rate.into(),
            rho: 0.95,
            epsilon: 1e-8,
        }
    }

    /// The decay rate of the accumulators, default 0.95.
    pub fn rho(mut self, rho: f64) -> Self {
        self.rho = rho;
        self
    }

    /// The epsilon inside the square roots, default 1e-8.
    pub fn epsilon(mut self, epsilon: f64) -> Self {
        self.epsilon = epsilon;
        self
    }

    /// The optimizer's name, the default name scope of its ops and its slots' suffix.
    pub fn name(mut self, name: &str) -> Self {
        self.base = OptimizerBase::new(name);
        self
    }

    fn parts(&mut self, var: &Variable) -> Result<(Variable, Variable, [Output; 3])> {
        let g = var.graph().clone();
        let dt = var.dtype();
        let lr = self.base.scalar(&g, "lr", &tf_float(&self.lr), dt)?;
        let rho = LearningRate::Value(self.rho);
        let rho = self.base.scalar(&g, "rho", &tf_float(&rho), dt)?;
        let eps = LearningRate::Value(self.epsilon);
        let eps = self.base.scalar(&g, "epsilon", &tf_float(&eps), dt)?;
        let slot = |name: &str| {
            self.base.slot(var, name).ok_or_else(|| {
                Error::internal(format!("Adadelta has no {name} for {}", var.name()))
            })
        };
        Ok((slot("accum")?, slot("accum_update")?, [lr, rho, eps]))
    }
}

impl Optimizer for AdadeltaOptimizer {
    fn base(&self) -> &OptimizerBase {
        &self.base
    }

    fn base_mut(&mut self) -> &mut OptimizerBase {
        &mut self.base
    }

    fn create_slots(&mut self, vars: &[Variable]) -> Result<()> {
        for v in vars {
            self.base.zeros_slot(v, "accum")?;
            self.base.zeros_slot(v, "accum_update")?;
        }
        Ok(())
    }

    fn apply_dense(&mut self, grad: &Output, var: &Variable) -> Result<Output> {
        let (accum, update, [lr, rho, eps]) = self.parts(var)?;
        weir_ops::training::apply_adadelta(var, &accum, &update, lr, rho, eps, grad)
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
        let (accum, update, [lr, rho, eps]) = self.parts(var)?;
        weir_ops::training::sparse_apply_adadelta(
            var, &accum, &update, lr, rho, eps, values, indices,
        )
    }
}
