//! `tf.train.AdamOptimizer`.

use weir_graph::{Error, Graph, Operation, Output, Result};
use weir_ops::state::Variable;
use weir_ops::training::AdamScalars;

use super::{LearningRate, Optimizer, OptimizerBase};

/// `tf.train.AdamOptimizer(learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08,
/// name="Adam")`: op `ApplyAdam` with the slots `m` and `v` (variables `w/Adam`,
/// `w/Adam_1`) and the non-slot variables `beta1_power` and `beta2_power` (starting at beta1
/// and beta2, multiplied by them after every step, as TensorFlow keeps them).
pub struct AdamOptimizer {
    base: OptimizerBase,
    lr: LearningRate,
    beta1: f64,
    beta2: f64,
    epsilon: f64,
}

impl AdamOptimizer {
    /// An optimizer with `learning_rate` (TensorFlow's default is 0.001) and the default betas
    /// and epsilon.
    pub fn new(learning_rate: impl Into<LearningRate>) -> Self {
        AdamOptimizer {
            base: OptimizerBase::new("Adam"),
            lr: learning_rate.into(),
            beta1: 0.9,
            beta2: 0.999,
            epsilon: 1e-8,
        }
    }

    /// The decay of the first moment, default 0.9.
    pub fn beta1(mut self, b: f64) -> Self {
        self.beta1 = b;
        self
    }

    /// The decay of the second moment, default 0.999.
    pub fn beta2(mut self, b: f64) -> Self {
        self.beta2 = b;
        self
    }

    /// The epsilon added to `sqrt(v)` (outside the root), default 1e-8.
    pub fn epsilon(mut self, e: f64) -> Self {
        self.epsilon = e;
        self
    }

    /// The optimizer's name, the default name scope of its ops and its slots' suffix.
    pub fn name(mut self, name: &str) -> Self {
        self.base = OptimizerBase::new(name);
        self
    }

    fn powers(&self, g: &Graph) -> Result<(Variable, Variable)> {
        match (
            self.base.get_non_slot(g, "beta1_power"),
            self.base.get_non_slot(g, "beta2_power"),
        ) {
            (Some(a), Some(b)) => Ok((a, b)),
            _ => Err(Error::internal("Adam's beta powers were not created")),
        }
    }
}

impl Optimizer for AdamOptimizer {
    fn base(&self) -> &OptimizerBase {
        &self.base
    }

    fn base_mut(&mut self) -> &mut OptimizerBase {
        &mut self.base
    }

    fn create_slots(&mut self, vars: &[Variable]) -> Result<()> {
        // TensorFlow makes the powers with the dtype of the variable first by name.
        let first = vars
            .iter()
            .min_by_key(|v| v.name())
            .ok_or_else(|| Error::invalid_argument("No variables provided."))?;
        let g = first.graph().clone();
        self.base
            .non_slot(&g, "beta1_power", self.beta1, first.dtype())?;
        self.base
            .non_slot(&g, "beta2_power", self.beta2, first.dtype())?;
        for v in vars {
            self.base.zeros_slot(v, "m")?;
            self.base.zeros_slot(v, "v")?;
        }
        Ok(())
    }

    fn apply_dense(&mut self, grad: &Output, var: &Variable) -> Result<Output> {
        let g = var.graph().clone();
        let dt = var.dtype();
        let (b1p, b2p) = self.powers(&g)?;
        if b1p.dtype() != dt {
            return Err(Error::invalid_argument(format!(
                "Adam's beta powers are {} but variable {} is {dt}",
                b1p.dtype(),
                var.name()
            )));
        }
        let lr = self.lr.clone();
        let s = AdamScalars {
            beta1_power: Output::from(&b1p),
            beta2_power: Output::from(&b2p),
            lr: self.base.scalar(&g, "learning_rate", &lr, dt)?,
            beta1: self
                .base
                .scalar(&g, "beta1", &LearningRate::Value(self.beta1), dt)?,
            beta2: self
                .base
                .scalar(&g, "beta2", &LearningRate::Value(self.beta2), dt)?,
            epsilon: self
                .base
                .scalar(&g, "epsilon", &LearningRate::Value(self.epsilon), dt)?,
        };
        let m = self.base.zeros_slot(var, "m")?;
        let v = self.base.zeros_slot(var, "v")?;
        weir_ops::training::apply_adam(var, &m, &v, s, grad, false)
    }

    fn supports_sparse(&self) -> bool {
        true
    }

    /// TensorFlow's `_apply_sparse_shared`: `m` and `v` decay on every row (`m *= beta1`,
    /// `v *= beta2`), the gathered rows' `(1 - beta1) * g` and `(1 - beta2) * g^2` are
    /// scattered in, and the whole variable moves by `lr_t * m / (sqrt(v) + epsilon)` with
    /// `lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)`.
    fn apply_sparse(
        &mut self,
        values: &Output,
        indices: &Output,
        var: &Variable,
    ) -> Result<Output> {
        use weir_ops::math::{add, div, mul, sqrt, sub};
        let g = var.graph().clone();
        let dt = var.dtype();
        let (b1p, b2p) = self.powers(&g)?;
        if b1p.dtype() != dt {
            return Err(Error::invalid_argument(format!(
                "Adam's beta powers are {} but variable {} is {dt}",
                b1p.dtype(),
                var.name()
            )));
        }
        let lr = self.lr.clone();
        let lr_t = self.base.scalar(&g, "learning_rate", &lr, dt)?;
        let beta1 = self
            .base
            .scalar(&g, "beta1", &LearningRate::Value(self.beta1), dt)?;
        let beta2 = self
            .base
            .scalar(&g, "beta2", &LearningRate::Value(self.beta2), dt)?;
        let epsilon = self
            .base
            .scalar(&g, "epsilon", &LearningRate::Value(self.epsilon), dt)?;
        let one = || weir_ops::array::constant(&g, weir_graph::scalar_of(dt, 1.0)?);
        let lr = div(mul(&lr_t, sqrt(sub(one()?, &b2p)?)?)?, sub(one()?, &b1p)?)?;
        let m = self.base.zeros_slot(var, "m")?;
        let m_scaled = mul(values, sub(one()?, &beta1)?)?;
        let m_decayed = m.assign(mul(&m, &beta1)?)?;
        let m_t = {
            let _deps = g.control_dependencies(&[m_decayed.op()])?;
            weir_ops::state::scatter_add(&m, indices, m_scaled)?
        };
        let v = self.base.zeros_slot(var, "v")?;
        // `(g * g) * (1 - beta2)` in TensorFlow's Python, which its graph optimizer
        // (arithmetic `MinimizeBroadcasts`) evaluates as `(g * (1 - beta2)) * g`.
        let v_scaled = mul(mul(values, sub(one()?, &beta2)?)?, values)?;
        let v_decayed = v.assign(mul(&v, &beta2)?)?;
        let v_t = {
            let _deps = g.control_dependencies(&[v_decayed.op()])?;
            weir_ops::state::scatter_add(&v, indices, v_scaled)?
        };
        let step = div(mul(lr, &m_t)?, add(sqrt(&v_t)?, epsilon)?)?;
        // The update reads m_t and v_t, so it runs after both scatters (TensorFlow groups
        // the three).
        var.assign_sub(step)
    }

    fn finish(&mut self, graph: &Graph, update_ops: &[Operation], name: &str) -> Result<Operation> {
        let (b1p, b2p) = self.powers(graph)?;
        let dt = b1p.dtype();
        let mut all = update_ops.to_vec();
        {
            let _deps = graph.control_dependencies(update_ops)?;
            let b1 = self
                .base
                .scalar(graph, "beta1", &LearningRate::Value(self.beta1), dt)?;
            let b2 = self
                .base
                .scalar(graph, "beta2", &LearningRate::Value(self.beta2), dt)?;
            // Inside the guard a variable reads afresh, after the updates.
            let next1 = weir_ops::math::mul(&b1p, b1)?;
            let next2 = weir_ops::math::mul(&b2p, b2)?;
            all.push(b1p.assign(next1)?.op());
            all.push(b2p.assign(next2)?.op());
        }
        weir_ops::control_flow::group(graph, &all, Some(name))
    }
}
