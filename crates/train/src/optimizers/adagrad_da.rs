//! `tf.train.AdagradDAOptimizer`.

use weir_graph::{Error, Graph, Output, Result, Tensor};
use weir_ops::init_ops::Initializer;
use weir_ops::state::Variable;

use super::proximal::{py_float, tf_float};
use super::{LearningRate, Optimizer, OptimizerBase};

/// `tf.train.AdagradDAOptimizer(learning_rate, global_step,
/// initial_gradient_squared_accumulator_value=0.1, l1_regularization_strength=0.0,
/// l2_regularization_strength=0.0, name="AdagradDA")`: ops `ApplyAdagradDA` /
/// `SparseApplyAdagradDA` with the slots `gradient_accumulator` (zeros) and
/// `gradient_squared_accumulator` (the initial value), variables `w/AdagradDA` and
/// `w/AdagradDA_1`; each update reads the (int64) global step plus one.
///
/// ```
/// use weir_graph::Graph;
/// use weir_ops::{array::constant, state::Variable};
/// use weir_train::{get_or_create_global_step, AdagradDAOptimizer, Optimizer};
///
/// let g = Graph::new();
/// let w = Variable::builder(constant(&g, [1.0f32, 2.0])?).name("w").build()?;
/// let step = get_or_create_global_step(&g)?;
/// let mut opt = AdagradDAOptimizer::new(0.1, Some(&step));
/// let grad = constant(&g, [0.5f32, -0.5])?;
/// opt.apply_gradients(&[(Some(grad), w.clone())], Some(&step), None)?;
/// assert_eq!(opt.get_slot(&w, "gradient_accumulator").unwrap().name(), "w/AdagradDA");
/// assert_eq!(
///     opt.get_slot(&w, "gradient_squared_accumulator").unwrap().name(),
///     "w/AdagradDA_1"
/// );
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct AdagradDAOptimizer {
    base: OptimizerBase,
    lr: LearningRate,
    global_step: Option<Variable>,
    initial_value: f64,
    l1: f64,
    l2: f64,
    step_plus_one: Option<Output>,
}

impl AdagradDAOptimizer {
    /// An optimizer with `learning_rate` and TensorFlow's required `global_step` (`None`
    /// fails in `apply_gradients`, as TensorFlow's `None` does).
    pub fn new(learning_rate: impl Into<LearningRate>, global_step: Option<&Variable>) -> Self {
        AdagradDAOptimizer {
            base: OptimizerBase::new("AdagradDA"),
            lr: learning_rate.into(),
            global_step: global_step.cloned(),
            initial_value: 0.1,
            l1: 0.0,
            l2: 0.0,
            step_plus_one: None,
        }
    }

    /// The squared-gradient accumulators' starting value, default 0.1 (must be positive).
    pub fn initial_gradient_squared_accumulator_value(mut self, v: f64) -> Self {
        self.initial_value = v;
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

    fn parts(&mut self, var: &Variable) -> Result<(Variable, Variable, [Output; 4])> {
        let g = var.graph().clone();
        let dt = var.dtype();
        let value = |v: f64| tf_float(&LearningRate::Value(v));
        let lr = self
            .base
            .scalar(&g, "learning_rate", &tf_float(&self.lr), dt)?;
        let l1 = self.base.scalar(&g, "l1", &value(self.l1), dt)?;
        let l2 = self.base.scalar(&g, "l2", &value(self.l2), dt)?;
        let step = self
            .step_plus_one
            .clone()
            .ok_or_else(|| Error::internal("AdagradDA's global step was not read"))?;
        let step = weir_ops::array::identity(step)?;
        let slot = |name: &str| {
            self.base.slot(var, name).ok_or_else(|| {
                Error::internal(format!("AdagradDA has no {name} for {}", var.name()))
            })
        };
        Ok((
            slot("gradient_accumulator")?,
            slot("gradient_squared_accumulator")?,
            [lr, l1, l2, step],
        ))
    }
}

impl Optimizer for AdagradDAOptimizer {
    fn base(&self) -> &OptimizerBase {
        &self.base
    }

    fn base_mut(&mut self) -> &mut OptimizerBase {
        &mut self.base
    }

    fn create_slots(&mut self, vars: &[Variable]) -> Result<()> {
        if self.initial_value <= 0.0 {
            return Err(Error::invalid_argument(format!(
                "initial_gradient_squared_accumulator_value must be positive: {}",
                py_float(self.initial_value)
            )));
        }
        let init = Initializer::Constant(Tensor::from(self.initial_value));
        for v in vars {
            self.base.zeros_slot(v, "gradient_accumulator")?;
            self.base
                .get_or_make_slot(v, "gradient_squared_accumulator", &init)?;
        }
        Ok(())
    }

    fn prepare(&mut self, graph: &Graph) -> Result<()> {
        let step = self.global_step.as_ref().ok_or_else(|| {
            Error::invalid_argument(
                "Tried to convert 'input' to a tensor and failed. Error: None values not supported.",
            )
        })?;
        // `identity(global_step) + 1`, read once per training step.
        let read = weir_ops::array::identity(Output::from(step))?;
        let one = weir_ops::array::constant(graph, weir_graph::scalar_of(step.dtype(), 1.0)?)?;
        self.step_plus_one = Some(weir_ops::math::add(read, one)?);
        Ok(())
    }

    fn apply_dense(&mut self, grad: &Output, var: &Variable) -> Result<Output> {
        let (ga, gga, [lr, l1, l2, step]) = self.parts(var)?;
        weir_ops::training::apply_adagrad_da(var, &ga, &gga, grad, lr, l1, l2, step)
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
        let (ga, gga, [lr, l1, l2, step]) = self.parts(var)?;
        weir_ops::training::sparse_apply_adagrad_da(
            var, &ga, &gga, values, indices, lr, l1, l2, step,
        )
    }
}
