//! `tf.layers.Dense`, `Dropout` and `Flatten` (TensorFlow's `legacy_tf_layers/core.py`).

use std::sync::Arc;

use parking_lot::Mutex;
use weir_graph::{scalar_of, Error, Output, Result, Tensor};
use weir_ops::array::{
    concat, constant, expand_dims, identity, reshape, shape, stack, strided_slice_items, transpose,
    SliceItem,
};
use weir_ops::init_ops::Initializer;
use weir_ops::math::{greater_equal, matmul, mul, select_v2};
use weir_ops::nn::{bias_add, Dropout as DropoutOp};
use weir_ops::random::RandomUniform;

use super::base::{activity_regularization, check_rank, float_dtype, LayerCore, Training};
use super::Activation;
use crate::regularizers::Regularizer;
use crate::variable_scope::Reuse;

/// Setters shared by the layers: `name`, `reuse`, `trainable`.
macro_rules! common_setters {
    ($t:ty) => {
        impl $t {
            /// The layer's name, and its variable scope exactly (the function form's `name=`);
            /// by default a unique name made from the layer's kind (`dense`, `dense_1`, ...).
            pub fn name(mut self, name: &str) -> Self {
                self.core.name = Some(name.to_string());
                self
            }

            /// `reuse=True`: the layer's variables must already exist and are shared (with a
            /// name, or the kind's plain name `dense`); `false` inherits the enclosing scope's.
            pub fn reuse(mut self, reuse: bool) -> Self {
                self.core.reuse = reuse.then_some(Reuse::Reuse);
                self
            }

            /// `reuse=tf.AUTO_REUSE`: shares the variables when they exist, creates them
            /// otherwise.
            pub fn auto_reuse(mut self) -> Self {
                self.core.reuse = Some(Reuse::AutoReuse);
                self
            }

            /// `trainable=False` keeps the layer's variables out of `TRAINABLE_VARIABLES`.
            pub fn trainable(mut self, trainable: bool) -> Self {
                self.core.trainable = trainable;
                self
            }

            /// The layer's name (`layer.name`), fixed by its first call; `None` before.
            pub fn layer_name(&self) -> Option<String> {
                self.core.assigned_name()
            }

            /// The full name of its variable scope (`layer.scope_name`), once called.
            pub fn scope_name(&self) -> Option<String> {
                self.core.scope_name()
            }

            /// Its variables in creation order (`layer.variables`), once called.
            pub fn variables(&self) -> Vec<weir_ops::state::Variable> {
                self.core.variables()
            }

            /// Its update ops (`layer.updates`), which also joined `UPDATE_OPS`.
            pub fn updates(&self) -> Vec<weir_graph::Operation> {
                self.core.updates()
            }
        }
    };
}
pub(crate) use common_setters;

/// `tf.layers.Dense(units, activation=None, use_bias=True, kernel_initializer=None,
/// bias_initializer=zeros, kernel_regularizer=None, bias_regularizer=None,
/// activity_regularizer=None, trainable=True, name=None)`: `activation(inputs @ kernel +
/// bias)`, with `kernel` `[input_depth, units]` and `bias` `[units]`. Inputs of rank > 2 are
/// multiplied along their last axis (`tf.tensordot`).
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, init_ops::Initializer};
/// use weir_train::layers::Dense;
/// let g = Graph::new();
/// let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(3)]))?;
/// let layer = Dense::new(4).kernel_initializer(Initializer::Ones);
/// let y = layer.apply(&x)?;
/// assert_eq!(y.shape().python_str(), "(None, 4)");
/// assert_eq!(layer.kernel().unwrap().name(), "dense/kernel");
/// let y2 = layer.apply(&x)?; // the same variables
/// assert_eq!(y2.name(), "dense/BiasAdd_1:0");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct Dense {
    units: usize,
    activation: Option<Activation>,
    use_bias: bool,
    kernel_initializer: Option<Initializer>,
    bias_initializer: Initializer,
    kernel_regularizer: Option<Regularizer>,
    bias_regularizer: Option<Regularizer>,
    activity_regularizer: Option<Regularizer>,
    core: LayerCore,
}

common_setters!(Dense);

impl Dense {
    /// A dense layer of `units` outputs, with TensorFlow's defaults.
    pub fn new(units: usize) -> Dense {
        Dense {
            units,
            activation: None,
            use_bias: true,
            kernel_initializer: None,
            bias_initializer: Initializer::Zeros,
            kernel_regularizer: None,
            bias_regularizer: None,
            activity_regularizer: None,
            core: LayerCore::new("dense"),
        }
    }

    /// The activation (default none: linear).
    pub fn activation(
        mut self,
        f: impl Fn(&Output) -> Result<Output> + Send + Sync + 'static,
    ) -> Dense {
        self.activation = Some(Arc::new(f));
        self
    }

    /// Whether to add a bias (default true).
    pub fn use_bias(mut self, use_bias: bool) -> Dense {
        self.use_bias = use_bias;
        self
    }

    /// The kernel's initializer (default: the variable scope's, else glorot_uniform).
    pub fn kernel_initializer(mut self, init: Initializer) -> Dense {
        self.kernel_initializer = Some(init);
        self
    }

    /// The bias' initializer (default zeros).
    pub fn bias_initializer(mut self, init: Initializer) -> Dense {
        self.bias_initializer = init;
        self
    }

    /// A penalty on the kernel, added to `REGULARIZATION_LOSSES`.
    pub fn kernel_regularizer(mut self, r: Regularizer) -> Dense {
        self.kernel_regularizer = Some(r);
        self
    }

    /// A penalty on the bias, added to `REGULARIZATION_LOSSES`.
    pub fn bias_regularizer(mut self, r: Regularizer) -> Dense {
        self.bias_regularizer = Some(r);
        self
    }

    /// A penalty on the output, divided by the batch size, added to `REGULARIZATION_LOSSES`.
    pub fn activity_regularizer(mut self, r: Regularizer) -> Dense {
        self.activity_regularizer = Some(r);
        self
    }

    /// The kernel variable, once the layer was called (`layer.kernel`).
    pub fn kernel(&self) -> Option<weir_ops::state::Variable> {
        self.core.variable("kernel")
    }

    /// The bias variable, once the layer was called with `use_bias` (`layer.bias`).
    pub fn bias(&self) -> Option<weir_ops::state::Variable> {
        self.core.variable("bias")
    }

    /// Applies the layer (`layer(inputs)`), making its variables on the first call.
    pub fn apply(&self, inputs: impl Into<Output>) -> Result<Output> {
        let x = inputs.into();
        let g = x.graph().clone();
        let layer = self.core.layer_name(&g);
        check_rank(&layer, &x, Some(2), None)?;
        let dtype = float_dtype("Dense", &x)?;
        let units = self.units;
        self.core.call(
            &g,
            dtype,
            |w| {
                let last = last_dim(&x).ok_or_else(|| {
                    Error::invalid_argument(format!(
                        "The last dimension of the inputs to a Dense layer should be defined. \
                         Found None. Full input shape received: {}",
                        x.shape().python_str()
                    ))
                })?;
                let kr = self.kernel_regularizer.as_ref();
                w.add(
                    "kernel",
                    &[last, units],
                    self.kernel_initializer.as_ref(),
                    kr,
                    true,
                )?;
                if self.use_bias {
                    let (init, br) = (&self.bias_initializer, self.bias_regularizer.as_ref());
                    w.add("bias", &[units], Some(init), br, true)?;
                }
                Ok(())
            },
            |vars| {
                let kernel = vars.value("kernel")?;
                let mut out = match x.shape().rank() {
                    Some(r) if r > 2 => tensordot(&x, &kernel, units)?,
                    _ => matmul(&x, &kernel)?,
                };
                if self.use_bias {
                    out = bias_add(&out, vars.value("bias")?)?;
                }
                if let Some(f) = &self.activation {
                    out = f(&out)?;
                }
                activity_regularization(&out, self.activity_regularizer.as_ref())?;
                Ok((out, Vec::new()))
            },
        )
    }
}

/// `tf.layers.dense(inputs, units)`: a new [`Dense`] layer applied once.
pub fn dense(inputs: impl Into<Output>, units: usize) -> Result<Output> {
    Dense::new(units).apply(inputs)
}

fn last_dim(x: &Output) -> Option<usize> {
    x.shape().dims().and_then(|d| d.last().copied().flatten())
}

/// `tf.tensordot(x, kernel, [[rank - 1], [0]])`: `x` as a matrix of its last axis, times the
/// kernel, reshaped back to `x`'s leading dimensions plus `units`.
fn tensordot(x: &Output, kernel: &Output, units: usize) -> Result<Output> {
    let g = x.graph();
    let _s = g.name_scope("Tensordot");
    let dims = x.shape().dims().map(<[_]>::to_vec).unwrap_or_default();
    let last = dims.last().copied().flatten().unwrap_or(0) as i64;
    let flat = reshape(x, vec![-1i64, last])?;
    let prod = matmul(&flat, kernel)?;
    let lead = &dims[..dims.len() - 1];
    let unknown = lead.iter().filter(|d| d.is_none()).count();
    let out_shape = if unknown <= 1 {
        let mut v: Vec<i64> = lead.iter().map(|d| d.map_or(-1, |n| n as i64)).collect();
        v.push(units as i64);
        constant(g, Tensor::from(v))?
    } else {
        let s = shape(x)?;
        let head = strided_slice_items(
            &s,
            &[SliceItem::Range {
                begin: None,
                end: Some(-1),
                step: 1,
            }],
        )?;
        concat(&[head, constant(g, Tensor::from(vec![units as i32]))?], 0)?
    };
    reshape(prod, out_shape)
}

/// Python's `repr` of a float (`0.5`, `2.0`).
pub(crate) fn py_float(x: f64) -> String {
    if x.fract() == 0.0 && x.is_finite() {
        format!("{x:.1}")
    } else {
        format!("{x}")
    }
}

/// `tf.layers.Dropout(rate=0.5, noise_shape=None, seed=None, name=None)`: in training, each
/// element is kept with probability `1 - rate` and scaled by `1 / (1 - rate)`, else zeroed
/// (`tf.nn.dropout`); in inference the input passes unchanged (`tf.identity`).
///
/// `noise_shape` gives the shape of the random keep mask, broadcast over the input (`None`
/// entries take the input's size). With a `seed`, each call that drops draws with the next
/// seed (`seed`, `seed + 1`, ...) as TensorFlow's legacy layers do.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::array::placeholder;
/// use weir_train::layers::Dropout;
/// let g = Graph::new();
/// let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(8)]))?;
/// let is_training = placeholder(&g, DType::Bool, Shape::scalar())?;
/// let y = Dropout::new(0.3).seed(7).apply(&x, &is_training)?;
/// assert_eq!(y.name(), "dropout/cond/Merge:0");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct Dropout {
    rate: f64,
    noise_shape: Option<Vec<Option<usize>>>,
    seed: Mutex<Option<i64>>,
    core: LayerCore,
}

common_setters!(Dropout);

impl Default for Dropout {
    /// `rate=0.5`.
    fn default() -> Dropout {
        Dropout::new(0.5)
    }
}

impl Dropout {
    /// Dropout of `rate`, the fraction of elements dropped (TensorFlow's default 0.5).
    pub fn new(rate: f64) -> Dropout {
        Dropout {
            rate,
            noise_shape: None,
            seed: Mutex::new(None),
            core: LayerCore::new("dropout"),
        }
    }

    /// The shape of the keep mask (`noise_shape`); `None` entries take the input's size.
    pub fn noise_shape(mut self, shape: &[Option<usize>]) -> Dropout {
        self.noise_shape = Some(shape.to_vec());
        self
    }

    /// The op-level seed of the first call that drops.
    pub fn seed(self, seed: i64) -> Dropout {
        *self.seed.lock() = Some(seed);
        self
    }

    /// Applies the layer (`layer(inputs, training=training)`); `training` is a bool or a
    /// scalar bool tensor.
    pub fn apply(
        &self,
        inputs: impl Into<Output>,
        training: impl Into<Training>,
    ) -> Result<Output> {
        let x = inputs.into();
        let training = training.into();
        if !(0.0..=1.0).contains(&self.rate) {
            return Err(Error::invalid_argument(format!(
                "Invalid value {} received for `rate`, expected a value between 0 and 1.",
                py_float(self.rate)
            )));
        }
        let g = x.graph().clone();
        self.core.layer_name(&g);
        self.core.call(
            &g,
            x.dtype(),
            |_| Ok(()),
            |_| {
                if self.rate == 0.0 {
                    return Ok((identity(&x)?, Vec::new()));
                }
                let out = training.select(|| self.dropped(&x), || identity(&x))?;
                Ok((out, Vec::new()))
            },
        )
    }

    /// `tf.nn.dropout(x, rate, noise_shape, seed)`.
    fn dropped(&self, x: &Output) -> Result<Output> {
        let dtype = x.dtype();
        if !dtype.is_floating() {
            return Err(Error::invalid_argument(format!(
                "`x.dtype` must be a floating point tensor as `x` will be scaled. Received: \
                 x_dtype={}",
                dtype.python_name()
            )));
        }
        if self.rate >= 1.0 {
            return Err(Error::invalid_argument(format!(
                "`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate={}",
                py_float(self.rate)
            )));
        }
        let seed = {
            let mut s = self.seed.lock();
            let current = *s;
            if let Some(v) = s.as_mut() {
                *v += 1;
            }
            current
        };
        let g = x.graph();
        let Some(noise) = &self.noise_shape else {
            // weir's fused Dropout computes TensorFlow's formula with the same draws.
            let keep = constant(g, scalar_of(dtype, 1.0 - self.rate)?)?;
            let mut op = DropoutOp::new();
            if let Some(s) = seed {
                op = op.seed(s);
            }
            return op.build(x, keep);
        };
        let _s = g.name_scope("dropout");
        let scale = constant(g, scalar_of(dtype, 1.0 / (1.0 - self.rate))?)?;
        let ret = mul(x, scale)?;
        let mut uniform = RandomUniform::new(noise_shape_tensor(x, noise)?).dtype(dtype);
        if let Some(s) = seed {
            uniform = uniform.seed(s);
        }
        let u = uniform.build(g)?;
        let keep = greater_equal(&u, constant(g, scalar_of(dtype, self.rate)?)?)?;
        select_v2(&keep, &ret, constant(g, scalar_of(dtype, 0.0)?)?)
    }
}

/// The keep mask's shape: `noise` with `None` entries taken from `x` (statically when known).
fn noise_shape_tensor(x: &Output, noise: &[Option<usize>]) -> Result<Output> {
    let g = x.graph();
    let dims = x.shape().dims().map(<[_]>::to_vec);
    if let Some(d) = &dims {
        if d.len() != noise.len() {
            return Err(Error::invalid_argument(format!(
                "noise_shape {:?} must have one entry per dimension of the input {}",
                noise,
                x.shape().python_str()
            )));
        }
    }
    let fixed: Option<Vec<i32>> = noise
        .iter()
        .enumerate()
        .map(|(i, n)| {
            n.or_else(|| dims.as_ref().and_then(|d| d[i]))
                .map(|v| v as i32)
        })
        .collect();
    if let Some(v) = fixed {
        return constant(g, Tensor::from(v));
    }
    let s = shape(x)?;
    let parts = noise
        .iter()
        .enumerate()
        .map(|(i, n)| match n {
            Some(v) => constant(g, *v as i32),
            None => strided_slice_items(&s, &[SliceItem::Index(i as i64)]),
        })
        .collect::<Result<Vec<_>>>()?;
    stack(&parts, 0)
}

/// `tf.layers.dropout(inputs, rate=0.5, training=False)`: a new [`Dropout`] layer applied once.
pub fn dropout(
    inputs: impl Into<Output>,
    rate: f64,
    training: impl Into<Training>,
) -> Result<Output> {
    Dropout::new(rate).apply(inputs, training)
}

/// `tf.layers.Flatten(data_format="channels_last", name=None)`: the input as `[batch, -1]`
/// (a vector becomes `[n, 1]`). With `channels_first`, the channel axis is moved last first,
/// so the order of the features matches a channels-last model's.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::array::placeholder;
/// let g = Graph::new();
/// let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(4), Some(4), Some(2)]))?;
/// let y = weir_train::layers::flatten(&x)?;
/// assert_eq!(y.shape().python_str(), "(None, 32)");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct Flatten {
    channels_first: Result<bool>,
    core: LayerCore,
}

common_setters!(Flatten);

impl Default for Flatten {
    fn default() -> Flatten {
        Flatten::new()
    }
}

impl Flatten {
    /// A channels-last flatten layer.
    pub fn new() -> Flatten {
        Flatten {
            channels_first: Ok(false),
            core: LayerCore::new("flatten"),
        }
    }

    /// `"channels_last"` (default) or `"channels_first"`; anything else is refused when applied.
    pub fn data_format(mut self, format: &str) -> Flatten {
        self.channels_first = channels_first(format);
        self
    }

    /// Applies the layer (`layer(inputs)`).
    pub fn apply(&self, inputs: impl Into<Output>) -> Result<Output> {
        let x = inputs.into();
        let channels_first = self.channels_first.clone()?;
        let g = x.graph().clone();
        let layer = self.core.layer_name(&g);
        check_rank(&layer, &x, Some(1), None)?;
        self.core.call(
            &g,
            x.dtype(),
            |_| Ok(()),
            |_| {
                let mut x = x.clone();
                let rank = x.shape().rank();
                if channels_first && rank.is_some_and(|r| r > 1) {
                    let r = rank.unwrap_or(0) as i32;
                    let mut perm = vec![0i32];
                    perm.extend(2..r);
                    perm.push(1);
                    x = transpose(&x, constant(&g, Tensor::from(perm))?)?;
                }
                let dims = x.shape().dims().map(<[_]>::to_vec);
                let out = match dims.as_deref() {
                    Some([_]) => expand_dims(&x, 1)?,
                    Some([batch, rest @ ..]) => {
                        let known: Option<usize> = rest.iter().copied().product();
                        let target = match (known, batch) {
                            (Some(n), _) => constant(&g, Tensor::from(vec![-1i32, n as i32]))?,
                            (None, Some(b)) => constant(&g, Tensor::from(vec![*b as i32, -1]))?,
                            (None, None) => batch_by_minus_one(&x)?,
                        };
                        reshape(&x, target)?
                    }
                    _ => reshape(&x, batch_by_minus_one(&x)?)?,
                };
                Ok((out, Vec::new()))
            },
        )
    }
}

/// `[tf.shape(x)[0], -1]`.
fn batch_by_minus_one(x: &Output) -> Result<Output> {
    let first = strided_slice_items(shape(x)?, &[SliceItem::Index(0)])?;
    stack(&[first, constant(x.graph(), -1i32)?], 0)
}

/// Keras' `normalize_data_format`: whether the format is channels-first.
pub(crate) fn channels_first(format: &str) -> Result<bool> {
    match format.to_lowercase().as_str() {
        "channels_last" => Ok(false),
        "channels_first" => Ok(true),
        _ => Err(Error::invalid_argument(format!(
            "The `data_format` argument must be one of \"channels_first\", \"channels_last\". \
             Received: {format}"
        ))),
    }
}

/// `tf.layers.flatten(inputs)`: a new [`Flatten`] layer applied once.
pub fn flatten(inputs: impl Into<Output>) -> Result<Output> {
    Flatten::new().apply(inputs)
}
