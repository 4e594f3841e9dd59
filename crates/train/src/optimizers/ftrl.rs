//! `tf.train.FtrlOptimizer`.

use weir_graph::{Error, Output, Result, Tensor};
use weir_ops::init_ops::Initializer;
use weir_ops::state::Variable;
use weir_ops::training::FtrlScalars;

use super::proximal::tf_float;
use super::{LearningRate, Optimizer, OptimizerBase};

/// `tf.train.FtrlOptimizer(learning_rate, learning_rate_power=-0.5,
/// initial_accumulator_value=0.1, l1_regularization_strength=0.0,
/// l2_regularization_strength=0.0, name="Ftrl", l2_shrinkage_regularization_strength=0.0,
/// beta=None)`: ops `ApplyFtrl` / `SparseApplyFtrl` (the `V2` ops with an L2 shrinkage) with
/// the slots `accum` (starting at the initial value) and `linear` (zeros), variables `w/Ftrl`
/// and `w/Ftrl_1`; `beta` is folded into the L2 strength as `l2 + beta / (2 * lr)`.
///
/// ```
/// use weir_graph::Graph;
/// use weir_ops::{array::constant, state::Variable};
/// use weir_train::{FtrlOptimizer, Optimizer};
///
/// let g = Graph::new();
/// let w = Variable::builder(constant(&g, [1.0f32, 2.0])?).name("w").build()?;
/// let mut opt = FtrlOptimizer::new(0.1).l1_regularization_strength(0.01);
/// opt.apply_gradients(&[(Some(constant(&g, [0.5f32, -0.5])?), w.clone())], None, None)?;
/// assert_eq!(opt.get_slot(&w, "accum").unwrap().name(), "w/Ftrl");
/// assert_eq!(opt.get_slot(&w, "linear").unwrap().name(), "w/Ftrl_1");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct FtrlOptimizer {
    base: OptimizerBase,
    lr: LearningRate,
    lr_power: f64,
    initial_accumulator_value: f64,
    l1: f64,
    l2: f64,
    l2_shrinkage: f64,
    beta: f64,
}

impl FtrlOptimizer {
    /// An optimizer with `learning_rate` and TensorFlow's defaults: power -0.5, accumulators
    /// starting at 0.1, no regularization.
    pub fn new(learning_rate: impl Into<LearningRate>) -> Self {
        FtrlOptimizer {
            base: OptimizerBase::new("Ftrl"),
            lr: learning_rate.into(),
            lr_power: -0.5,
            initial_accumulator_value: 0.1,
            l1: 0.0,
            l2: 0.0,
            l2_shrinkage: 0.0,
            beta: 0.0,
        }
    }

    /// How the learning rate decreases, default -0.5 (must be zero or negative).
    pub fn learning_rate_power(mut self, v: f64) -> Self {
        self.lr_power = v;
        self
    }

    /// The accumulators' starting value, default 0.1 (must be zero or positive).
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

    /// The L2 shrinkage strength (a penalty on the weights in the gradient), default 0; when
    /// positive the updates are `ApplyFtrlV2` / `SparseApplyFtrlV2`.
    pub fn l2_shrinkage_regularization_strength(mut self, v: f64) -> Self {
        self.l2_shrinkage = v;
        self
    }

    /// TensorFlow's `beta` (`None` is 0), added to the L2 strength as `beta / (2 * lr)`.
    pub fn beta(mut self, v: f64) -> Self {
        self.beta = v;
        self
    }

    /// The optimizer's name, the default name scope of its ops and its slots' suffix.
    pub fn name(mut self, name: &str) -> Self {
        self.base = OptimizerBase::new(name);
        self
    }

    fn check(&self) -> Result<()> {
        let checks = [
            (
                self.initial_accumulator_value < 0.0,
                "initial_accumulator_value",
                self.initial_accumulator_value,
                "positive or zero",
            ),
            (
                self.lr_power > 0.0,
                "learning_rate_power",
                self.lr_power,
                "negative or zero",
            ),
            (
                self.l1 < 0.0,
                "l1_regularization_strength",
                self.l1,
                "positive or zero",
            ),
            (
                self.l2 < 0.0,
                "l2_regularization_strength",
                self.l2,
                "positive or zero",
            ),
            (
                self.l2_shrinkage < 0.0,
                "l2_shrinkage_regularization_strength",
                self.l2_shrinkage,
                "positive or zero",
            ),
        ];
        match checks.iter().find(|c| c.0) {
            Some((_, name, v, what)) => Err(Error::invalid_argument(format!(
                "{name} {v:.6} needs to be {what}"
            ))),
            None => Ok(()),
        }
    }

    fn scalars(&mut self, var: &Variable) -> Result<(Variable, Variable, FtrlScalars)> {
        let g = var.graph().clone();
        let dt = var.dtype();
        let value = |v: f64| tf_float(&LearningRate::Value(v));
        let lr = self
            .base
            .scalar(&g, "learning_rate", &tf_float(&self.lr), dt)?;
        let l1 = self
            .base
            .scalar(&g, "l1_regularization_strength", &value(self.l1), dt)?;
        // `l2 + beta / (2 * max(lr, 1e-36))`, in float32 as TensorFlow computes it.
        let l2 = if self.beta == 0.0 {
            value(self.l2)
        } else {
            match &self.lr {
                LearningRate::Value(lr) => {
                    let adjusted =
                        self.l2 as f32 + self.beta as f32 / (2.0f32 * (*lr as f32).max(1e-36f32));
                    LearningRate::Value(adjusted as f64)
                }
                LearningRate::Tensor(t) => {
                    let tiny = weir_graph::scalar_of(t.dtype(), 1e-36)?;
                    let two = weir_graph::scalar_of(t.dtype(), 2.0)?;
                    let beta = weir_graph::scalar_of(t.dtype(), self.beta)?;
                    let l2 = weir_graph::scalar_of(t.dtype(), self.l2)?;
                    let c = |x: Tensor| weir_ops::array::constant(&g, x);
                    let m = weir_ops::math::maximum(t, c(tiny)?)?;
                    let d = weir_ops::math::div(c(beta)?, weir_ops::math::mul(c(two)?, m)?)?;
                    LearningRate::Tensor(weir_ops::math::add(c(l2)?, d)?)
                }
            }
        };
        let l2 = self
            .base
            .scalar(&g, "adjusted_l2_regularization_strength", &l2, dt)?;
        let l2_shrinkage = if self.l2_shrinkage > 0.0 {
            Some(self.base.scalar(
                &g,
                "l2_shrinkage_regularization_strength",
                &value(self.l2_shrinkage),
                dt,
            )?)
        } else {
            None
        };
        let lr_power = self
            .base
            .scalar(&g, "learning_rate_power", &value(self.lr_power), dt)?;
        let slot = |name: &str| {
            self.base
                .slot(var, name)
                .ok_or_else(|| Error::internal(format!("Ftrl has no {name} for {}", var.name())))
        };
        Ok((
            slot("accum")?,
            slot("linear")?,
            FtrlScalars {
                lr,
                l1,
                l2,
                l2_shrinkage,
                lr_power,
            },
        ))
    }
}

impl Optimizer for FtrlOptimizer {
    fn base(&self) -> &OptimizerBase {
        &self.base
    }

    fn base_mut(&mut self) -> &mut OptimizerBase {
        &mut self.base
    }

    fn create_slots(&mut self, vars: &[Variable]) -> Result<()> {
        self.check()?;
        let init = Initializer::Constant(Tensor::from(self.initial_accumulator_value));
        for v in vars {
            self.base.get_or_make_slot(v, "accum", &init)?;
            self.base.zeros_slot(v, "linear")?;
        }
        Ok(())
    }

    fn apply_dense(&mut self, grad: &Output, var: &Variable) -> Result<Output> {
        let (accum, linear, s) = self.scalars(var)?;
        weir_ops::training::apply_ftrl(var, &accum, &linear, grad, s, false)
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
        let (accum, linear, s) = self.scalars(var)?;
        weir_ops::training::sparse_apply_ftrl(var, &accum, &linear, values, indices, s, false)
    }
}
