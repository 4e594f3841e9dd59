//! `tf.layers.BatchNormalization` (TensorFlow's `legacy_tf_layers/normalization.py` over Keras'
//! V1 `BatchNormalization`, in graph mode).

use weir_graph::{scalar_of, DType, Error, Graph, Operation, Output, Result, Tensor};
use weir_ops::array::{constant, constant_named, reshape};
use weir_ops::init_ops::Initializer;
use weir_ops::nn::{batch_normalization as batch_norm_op, fused_batch_norm, Moments};
use weir_ops::state::Variable;

use super::base::{check_rank, LayerCore, Training, Vars};
use super::core::common_setters;
use crate::regularizers::{named_op, Regularizer};
use crate::variable_scope::Reuse;

/// `tf.layers.BatchNormalization(axis=-1, momentum=0.99, epsilon=1e-3, center=True,
/// scale=True, beta_initializer=zeros, gamma_initializer=ones, moving_mean_initializer=zeros,
/// moving_variance_initializer=ones, beta_regularizer=None, gamma_regularizer=None,
/// fused=None, trainable=True, name=None)`: `gamma * (x - mean) / sqrt(variance + epsilon) +
/// beta` per feature of `axis`.
///
/// In training the batch's statistics normalize, and two `AssignSub` ops (in `UPDATE_OPS`, not
/// run by themselves) move `moving_mean` and `moving_variance` towards them: `moving -= (moving
/// - batch) * (1 - momentum)`. In inference the moving statistics normalize. As in TensorFlow
/// 1, 4-D and 5-D channels-last inputs use the fused kernel (`FusedBatchNormV3`, whose moving
/// variance follows the batch's unbiased variance) unless `fused(false)`; other ranks compose
/// `tf.nn.moments` and `tf.nn.batch_normalization` (biased variance).
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::array::placeholder;
/// use weir_graph::graph_keys::UPDATE_OPS;
/// use weir_train::layers::BatchNormalization;
/// let g = Graph::new();
/// let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(4)]))?;
/// let layer = BatchNormalization::new();
/// let y = layer.apply(&x, true)?;
/// let names: Vec<String> = layer.variables().iter().map(|v| v.name()).collect();
/// assert_eq!(names, ["batch_normalization/gamma", "batch_normalization/beta",
///     "batch_normalization/moving_mean", "batch_normalization/moving_variance"]);
/// assert_eq!(g.get_collection(UPDATE_OPS).len(), 2);
/// # let _ = y;
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct BatchNormalization {
    axis: Vec<i64>,
    momentum: f64,
    epsilon: f64,
    center: bool,
    scale: bool,
    beta_initializer: Initializer,
    gamma_initializer: Initializer,
    moving_mean_initializer: Initializer,
    moving_variance_initializer: Initializer,
    beta_regularizer: Option<Regularizer>,
    gamma_regularizer: Option<Regularizer>,
    fused: Option<bool>,
    renorm: bool,
    core: LayerCore,
}

common_setters!(BatchNormalization);

impl Default for BatchNormalization {
    fn default() -> Self {
        BatchNormalization::new()
    }
}

/// The momentum of a moving-average update: a Python float, or a tensor (`smart_cond` of the
/// momentum and 1.0 when training is a tensor).
enum Momentum {
    Float(f64),
    Tensor(Output),
}

impl BatchNormalization {
    /// Batch normalization over the last axis, with TensorFlow's defaults.
    pub fn new() -> BatchNormalization {
        BatchNormalization {
            axis: vec![-1],
            momentum: 0.99,
            epsilon: 1e-3,
            center: true,
            scale: true,
            beta_initializer: Initializer::Zeros,
            gamma_initializer: Initializer::Ones,
            moving_mean_initializer: Initializer::Zeros,
            moving_variance_initializer: Initializer::Ones,
            beta_regularizer: None,
            gamma_regularizer: None,
            fused: None,
            renorm: false,
            core: LayerCore::new("batch_normalization"),
        }
    }

    /// The feature axis (default -1); negative counts from the end.
    pub fn axis(mut self, axis: i64) -> Self {
        self.axis = vec![axis];
        self
    }

    /// Several feature axes (statistics per element of their product).
    pub fn axes(mut self, axes: &[i64]) -> Self {
        self.axis = axes.to_vec();
        self
    }

    /// The momentum of the moving averages (default 0.99).
    pub fn momentum(mut self, momentum: f64) -> Self {
        self.momentum = momentum;
        self
    }

    /// Added to the variance (default 1e-3).
    pub fn epsilon(mut self, epsilon: f64) -> Self {
        self.epsilon = epsilon;
        self
    }

    /// Whether to add the offset `beta` (default true).
    pub fn center(mut self, center: bool) -> Self {
        self.center = center;
        self
    }

    /// Whether to multiply by `gamma` (default true).
    pub fn scale(mut self, scale: bool) -> Self {
        self.scale = scale;
        self
    }

    /// `beta`'s initializer (default zeros).
    pub fn beta_initializer(mut self, init: Initializer) -> Self {
        self.beta_initializer = init;
        self
    }

    /// `gamma`'s initializer (default ones).
    pub fn gamma_initializer(mut self, init: Initializer) -> Self {
        self.gamma_initializer = init;
        self
    }

    /// `moving_mean`'s initializer (default zeros).
    pub fn moving_mean_initializer(mut self, init: Initializer) -> Self {
        self.moving_mean_initializer = init;
        self
    }

    /// `moving_variance`'s initializer (default ones).
    pub fn moving_variance_initializer(mut self, init: Initializer) -> Self {
        self.moving_variance_initializer = init;
        self
    }

    /// A penalty on `beta`, added to `REGULARIZATION_LOSSES`.
    pub fn beta_regularizer(mut self, r: Regularizer) -> Self {
        self.beta_regularizer = Some(r);
        self
    }

    /// A penalty on `gamma`, added to `REGULARIZATION_LOSSES`.
    pub fn gamma_regularizer(mut self, r: Regularizer) -> Self {
        self.gamma_regularizer = Some(r);
        self
    }

    /// `fused=`: `None` (default) and `true` use the fused kernel where TensorFlow 1 does (4-D
    /// or 5-D float32 input, one channels-last axis); `false` never.
    pub fn fused(mut self, fused: bool) -> Self {
        self.fused = Some(fused);
        self
    }

    /// `renorm=True` (batch renormalization) is not supported: applying refuses it.
    pub fn renorm(mut self, renorm: bool) -> Self {
        self.renorm = renorm;
        self
    }

    /// `layer.gamma`, once called with `scale`.
    pub fn gamma(&self) -> Option<Variable> {
        self.core.variable("gamma")
    }

    /// `layer.beta`, once called with `center`.
    pub fn beta(&self) -> Option<Variable> {
        self.core.variable("beta")
    }

    /// `layer.moving_mean`, once called.
    pub fn moving_mean(&self) -> Option<Variable> {
        self.core.variable("moving_mean")
    }

    /// `layer.moving_variance`, once called.
    pub fn moving_variance(&self) -> Option<Variable> {
        self.core.variable("moving_variance")
    }

    /// Applies the layer (`layer(inputs, training=training)`): `training` is a bool or a
    /// scalar bool tensor.
    pub fn apply(
        &self,
        inputs: impl Into<Output>,
        training: impl Into<Training>,
    ) -> Result<Output> {
        let x = inputs.into();
        let training = training.into();
        if self.renorm {
            return Err(Error::unimplemented(
                "BatchNormalization with renorm=True is not supported",
            ));
        }
        let g = x.graph().clone();
        let layer = self.core.layer_name(&g);
        let rank = x.shape().rank().ok_or_else(|| {
            Error::invalid_argument(format!(
                "Input has undefined rank. Received: input_shape={}",
                x.shape().python_str()
            ))
        })?;
        let axis = validate_axis(&self.axis, rank)?;
        check_rank(&layer, &x, None, Some(rank))?;
        let dtype = x.dtype();
        if !dtype.is_floating() {
            return Err(Error::invalid_argument(format!(
                "BatchNormalization takes floating-point inputs, got {}",
                dtype.python_name()
            )));
        }
        let fused = self.fused != Some(false)
            && (rank == 4 || rank == 5)
            && axis.len() == 1
            && [1, 3, 4].contains(&axis[0])
            && dtype == DType::F32;
        let fused = fused && !(rank == 5 && axis[0] == 3);
        if fused && axis[0] == 1 {
            return Err(Error::unimplemented(
                "fused BatchNormalization over axis 1 (NCHW) is not supported: weir's fused \
                 kernel is channels-last; use fused(false) or a channels-last input",
            ));
        }
        let dims = x.shape().dims().map(<[_]>::to_vec).unwrap_or_default();
        let axis_dims = axis
            .iter()
            .map(|&a| dims[a])
            .collect::<Option<Vec<usize>>>()
            .ok_or_else(|| {
                Error::invalid_argument(format!(
                    "Input has undefined `axis` dimension. Received input with shape {} and \
                     axis={}",
                    x.shape().python_str(),
                    py_tuple(&axis)
                ))
            })?;
        let param_shape: Vec<usize> = if axis.len() == 1 {
            axis_dims.clone()
        } else {
            (0..rank)
                .map(|i| {
                    axis.iter()
                        .position(|&a| a == i)
                        .map_or(1, |p| axis_dims[p])
                })
                .collect()
        };
        self.core.call(
            &g,
            dtype,
            |w| {
                if self.scale {
                    let (i, r) = (&self.gamma_initializer, self.gamma_regularizer.as_ref());
                    w.add("gamma", &param_shape, Some(i), r, true)?;
                }
                if self.center {
                    let (i, r) = (&self.beta_initializer, self.beta_regularizer.as_ref());
                    w.add("beta", &param_shape, Some(i), r, true)?;
                }
                w.add(
                    "moving_mean",
                    &param_shape,
                    Some(&self.moving_mean_initializer),
                    None,
                    false,
                )?;
                let init = &self.moving_variance_initializer;
                w.add("moving_variance", &param_shape, Some(init), None, false)?;
                Ok(())
            },
            |vars| {
                if fused {
                    self.fused_call(&g, &x, vars, &param_shape, &training)
                } else {
                    self.plain_call(&x, vars, &axis, &axis_dims, &training)
                }
            },
        )
    }

    /// Keras' `_fused_batch_norm` in graph mode.
    fn fused_call(
        &self,
        g: &Graph,
        x: &Output,
        vars: &Vars,
        param_shape: &[usize],
        training: &Training,
    ) -> Result<(Output, Vec<Operation>)> {
        let filled = |v: f32| -> Result<Output> {
            let n: usize = param_shape.iter().product();
            constant(g, Tensor::from_vec(param_shape, vec![v; n])?)
        };
        let gamma = match vars.get("gamma") {
            Some(v) => Output::from(v),
            None => filled(1.0)?,
        };
        let beta = match vars.get("beta") {
            Some(v) => Output::from(v),
            None => filled(0.0)?,
        };
        let (mm, mv) = (vars.value("moving_mean")?, vars.value("moving_variance")?);
        let eps = self.epsilon as f32;
        let run = |is_training: bool| -> Result<Vec<Output>> {
            let (y, m, v) = fused_batch_norm(
                x,
                &gamma,
                &beta,
                Some(mm.clone()),
                Some(mv.clone()),
                eps,
                is_training,
            )?;
            Ok(vec![y, m, v])
        };
        let outs = training.select(|| run(true), || run(false))?;
        let (y, mean, variance) = (outs[0].clone(), outs[1].clone(), outs[2].clone());
        if training.constant() == Some(false) {
            return Ok((y, Vec::new()));
        }
        let momentum = match training {
            Training::Bool(_) => constant(g, scalar_of(DType::F32, self.momentum)?)?,
            Training::Tensor(_) => training.select(
                || constant(g, scalar_of(DType::F32, self.momentum)?),
                || constant(g, scalar_of(DType::F32, 1.0)?),
            )?,
        };
        let momentum = Momentum::Tensor(momentum);
        let mean_var = self.var(vars, "moving_mean")?;
        let var_var = self.var(vars, "moving_variance")?;
        let u1 = assign_moving_average(&mean_var, &mean, &momentum)?;
        let u2 = assign_moving_average(&var_var, &variance, &momentum)?;
        Ok((y, vec![u1.op(), u2.op()]))
    }

    /// Keras' non-fused path: `tf.nn.moments` over the other axes, `tf.nn.batch_normalization`.
    fn plain_call(
        &self,
        x: &Output,
        vars: &Vars,
        axis: &[usize],
        axis_dims: &[usize],
        training: &Training,
    ) -> Result<(Output, Vec<Operation>)> {
        let ndims = x.shape().rank().unwrap_or(0);
        let reduction: Vec<usize> = (0..ndims).filter(|i| !axis.contains(i)).collect();
        let needs_broadcast = axis.len() == 1 && reduction != (0..ndims - 1).collect::<Vec<_>>();
        let broadcast = |v: Output| -> Result<Output> {
            if !needs_broadcast {
                return Ok(v);
            }
            let mut shape = vec![1i64; ndims];
            shape[axis[0]] = axis_dims[0] as i64;
            reshape(v, shape)
        };
        let scale = vars.get("gamma").map(|v| broadcast(v.into())).transpose()?;
        let offset = vars.get("beta").map(|v| broadcast(v.into())).transpose()?;
        let (mm, mv) = (vars.value("moving_mean")?, vars.value("moving_variance")?);
        let mut updates = Vec::new();
        let (mean, variance) = if training.constant() == Some(false) {
            (mm, mv)
        } else {
            let axes: Vec<i64> = reduction.iter().map(|&a| a as i64).collect();
            let (m, v) = Moments::new(&axes).keep_dims(axis.len() > 1).build(x)?;
            let mean = training.select(|| Ok(m.clone()), || Ok(mm.clone()))?;
            let variance = training.select(|| Ok(v.clone()), || Ok(mv.clone()))?;
            let momentum = Momentum::Float(self.momentum);
            for (name, new) in [("moving_mean", &mean), ("moving_variance", &variance)] {
                let var = self.var(vars, name)?;
                let update = training.select(
                    || assign_moving_average(&var, new, &momentum),
                    || Ok(Output::from(&var)),
                )?;
                updates.push(update.op());
            }
            (mean, variance)
        };
        let y = batch_norm_op(
            x,
            broadcast(mean)?,
            broadcast(variance)?,
            offset,
            scale,
            self.epsilon,
        )?;
        Ok((y, updates))
    }

    fn var(&self, vars: &Vars, name: &str) -> Result<Variable> {
        vars.get(name)
            .cloned()
            .ok_or_else(|| Error::internal(format!("the layer has no variable {name}")))
    }
}

/// Keras' `_assign_moving_average`: `variable -= (variable - value) * (1 - momentum)`, an
/// `AssignSub` named by the name scope `AssignMovingAvg`.
fn assign_moving_average(
    variable: &Variable,
    value: &Output,
    momentum: &Momentum,
) -> Result<Output> {
    let g = variable.graph().clone();
    let dtype = variable.dtype();
    let _s = g.name_scope("AssignMovingAvg");
    let name = g.current_scope();
    let decay = match momentum {
        Momentum::Float(m) => constant_named(&g, scalar_of(dtype, 1.0 - m)?, "decay")?,
        Momentum::Tensor(m) => {
            let one = constant_named(&g, scalar_of(m.dtype(), 1.0)?, "sub/x")?;
            let d = named_op(&g, "Sub", &[one, m.clone()], "sub")?;
            if d.dtype() != dtype {
                weir_ops::math::cast(d, dtype)?
            } else {
                d
            }
        }
    };
    let diff = named_op(&g, "Sub", &[Output::from(variable), value.clone()], "sub")?;
    let delta = named_op(&g, "Mul", &[diff, decay], "mul")?;
    g.new_operation("AssignSub")
        .name(&name)
        .input(variable.handle())
        .input(delta)
        .build()?
        .output(0)
}

/// Keras' `validate_axis`: the axes made non-negative, checked against the rank.
fn validate_axis(axis: &[i64], rank: usize) -> Result<Vec<usize>> {
    let r = rank as i64;
    let mut out = Vec::new();
    for &a in axis {
        let v = if a < 0 { a + r } else { a };
        if !(0..r).contains(&v) {
            return Err(Error::invalid_argument(format!(
                "Invalid value for `axis` argument. Expected 0 <= axis < inputs.rank (with \
                 inputs.rank={rank}). Received: axis={}",
                py_tuple(axis)
            )));
        }
        out.push(v as usize);
    }
    let mut seen = out.clone();
    seen.sort_unstable();
    seen.dedup();
    if seen.len() != out.len() {
        return Err(Error::invalid_argument(format!(
            "Duplicate axis: {}",
            py_tuple(&out)
        )));
    }
    Ok(out)
}

/// A Python tuple of numbers: `(1,)`, `(1, 2)`.
fn py_tuple<T: std::fmt::Display>(v: &[T]) -> String {
    let parts: Vec<String> = v.iter().map(ToString::to_string).collect();
    if parts.len() == 1 {
        format!("({},)", parts[0])
    } else {
        format!("({})", parts.join(", "))
    }
}

/// `tf.layers.batch_normalization(inputs, training=False)`: a new [`BatchNormalization`]
/// applied once.
pub fn batch_normalization(
    inputs: impl Into<Output>,
    training: impl Into<Training>,
) -> Result<Output> {
    BatchNormalization::new().apply(inputs, training)
}
