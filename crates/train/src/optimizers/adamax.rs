//! `tf.contrib.opt.AdaMaxOptimizer`.

use weir_graph::{Error, Graph, Operation, Output, Result};
use weir_ops::array::gather;
use weir_ops::math::{abs, add, div, maximum, mul, neg, sub};
use weir_ops::state::{scatter_add, scatter_update, Variable};

use super::{AdamOptimizer, LearningRate, Optimizer, OptimizerBase};

/// `tf.contrib.opt.AdaMaxOptimizer(learning_rate=0.001, beta1=0.9, beta2=0.999,
/// epsilon=1e-08, name="AdaMax")`: Adam with the infinity norm, op `ApplyAdaMax`:
/// `m = beta1 * m + (1 - beta1) * g`, `v = max(beta2 * v, |g|)`,
/// `var -= lr / (1 - beta1^t) * m / (v + epsilon)`. As a subclass of Adam it has Adam's slots
/// `m` and `v` (variables `w/AdaMax`, `w/AdaMax_1`) and its non-slot variables `beta1_power`
/// and `beta2_power`, advanced after every step. A gathered gradient updates only its rows of
/// the variable and of `m` and `v`.
///
/// ```
/// use weir_graph::Graph;
/// use weir_ops::{array::constant, state::Variable};
/// use weir_train::optimizers::AdaMaxOptimizer;
/// use weir_train::{get_or_create_global_step, Optimizer};
///
/// let g = Graph::new();
/// let w = Variable::builder(constant(&g, [1.0f32, 2.0])?).name("w").build()?;
/// let step = get_or_create_global_step(&g)?;
/// let grad = constant(&g, [0.5f32, -0.5])?;
/// let mut opt = AdaMaxOptimizer::new(0.001).beta2(0.99);
/// let train = opt.apply_gradients(&[(Some(grad), w.clone())], Some(&step), None)?;
/// assert_eq!(train.name(), "AdaMax");
/// assert_eq!(opt.get_slot(&w, "m").unwrap().name(), "w/AdaMax");
/// assert_eq!(opt.get_slot(&w, "v").unwrap().name(), "w/AdaMax_1");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct AdaMaxOptimizer {
    adam: AdamOptimizer,
    lr: LearningRate,
    beta1: f64,
    beta2: f64,
    epsilon: f64,
}

impl AdaMaxOptimizer {
    /// An optimizer with `learning_rate` (TensorFlow's default is 0.001) and the default betas
    /// and epsilon.
    pub fn new(learning_rate: impl Into<LearningRate>) -> Self {
        let lr = learning_rate.into();
        AdaMaxOptimizer {
            adam: AdamOptimizer::new(lr.clone()).name("AdaMax"),
            lr,
            beta1: 0.9,
            beta2: 0.999,
            epsilon: 1e-8,
        }
    }

    /// The decay of the first moment, default 0.9.
    pub fn beta1(mut self, b: f64) -> Self {
        self.beta1 = b;
        self.adam = self.adam.beta1(b);
        self
    }

    /// The decay of the infinity norm, default 0.999.
    pub fn beta2(mut self, b: f64) -> Self {
        self.beta2 = b;
        self.adam = self.adam.beta2(b);
        self
    }

    /// The epsilon added to the norm, default 1e-8.
    pub fn epsilon(mut self, e: f64) -> Self {
        self.epsilon = e;
        self.adam = self.adam.epsilon(e);
        self
    }

    /// The optimizer's name, the default name scope of its ops and its slots' suffix.
    pub fn name(mut self, name: &str) -> Self {
        self.adam = self.adam.name(name);
        self
    }

    /// `beta1_power` in `var`'s dtype, and the hyperparameters `[lr, beta1, beta2, epsilon]`.
    fn scalars(&mut self, var: &Variable) -> Result<(Variable, [Output; 4])> {
        let g = var.graph().clone();
        let dt = var.dtype();
        let b1p = self
            .adam
            .base()
            .get_non_slot(&g, "beta1_power")
            .ok_or_else(|| Error::internal("AdaMax's beta powers were not created"))?;
        if b1p.dtype() != dt {
            return Err(Error::invalid_argument(format!(
                "AdaMax's beta powers are {} but variable {} is {dt}",
                b1p.dtype(),
                var.name()
            )));
        }
        let lr = self.lr.clone();
        let base = self.adam.base_mut();
        let s = [
            base.scalar(&g, "learning_rate", &lr, dt)?,
            base.scalar(&g, "beta1", &LearningRate::Value(self.beta1), dt)?,
            base.scalar(&g, "beta2", &LearningRate::Value(self.beta2), dt)?,
            base.scalar(&g, "epsilon", &LearningRate::Value(self.epsilon), dt)?,
        ];
        Ok((b1p, s))
    }
}

impl Optimizer for AdaMaxOptimizer {
    fn base(&self) -> &OptimizerBase {
        self.adam.base()
    }

    fn base_mut(&mut self) -> &mut OptimizerBase {
        self.adam.base_mut()
    }

    /// Adam's: the slots `m` and `v`, and the beta powers.
    fn create_slots(&mut self, vars: &[Variable]) -> Result<()> {
        self.adam.create_slots(vars)
    }

    fn apply_dense(&mut self, grad: &Output, var: &Variable) -> Result<Output> {
        let (b1p, [lr, beta1, beta2, epsilon]) = self.scalars(var)?;
        let m = self.adam.base_mut().zeros_slot(var, "m")?;
        let v = self.adam.base_mut().zeros_slot(var, "v")?;
        weir_ops::training::apply_ada_max(var, &m, &v, &b1p, lr, beta1, beta2, epsilon, grad)
    }

    fn supports_sparse(&self) -> bool {
        true
    }

    /// TensorFlow's `_apply_sparse_shared`: only the gathered rows change,
    /// `m[i] = m[i] * beta1 + g * (1 - beta1)`, `v[i] = max(v[i] * beta2, |g|)`, and
    /// `var[i] += -lr / (1 - beta1_power) * (m[i] / (v[i] + epsilon))`.
    fn apply_sparse(
        &mut self,
        values: &Output,
        indices: &Output,
        var: &Variable,
    ) -> Result<Output> {
        let g = var.graph().clone();
        let (b1p, [lr, beta1, beta2, epsilon]) = self.scalars(var)?;
        let one = || weir_ops::array::constant(&g, weir_graph::scalar_of(var.dtype(), 1.0)?);
        let m = self.adam.base_mut().zeros_slot(var, "m")?;
        let m_slice = gather(&m, indices, 0)?;
        let m_t_slice = add(mul(m_slice, &beta1)?, mul(values, sub(one()?, &beta1)?)?)?;
        let m_t = scatter_update(&m, indices, &m_t_slice)?;
        let v = self.adam.base_mut().zeros_slot(var, "v")?;
        let v_slice = gather(&v, indices, 0)?;
        let v_t_slice = maximum(mul(v_slice, &beta2)?, abs(values)?)?;
        let v_t = scatter_update(&v, indices, &v_t_slice)?;
        let var_slice = mul(
            div(neg(lr)?, sub(one()?, &b1p)?)?,
            div(&m_t_slice, add(&v_t_slice, epsilon)?)?,
        )?;
        // TensorFlow groups the three updates; here the variable's waits for the slots'.
        let _deps = g.control_dependencies(&[m_t.op(), v_t.op()])?;
        scatter_add(var, indices, var_slice)
    }

    /// Adam's: both beta powers advance after the updates.
    fn finish(&mut self, graph: &Graph, update_ops: &[Operation], name: &str) -> Result<Operation> {
        self.adam.finish(graph, update_ops, name)
    }
}
