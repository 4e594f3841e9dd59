//! `tf.layers.Conv2D` (TensorFlow's `legacy_tf_layers/convolutional.py` over Keras' `Conv`).

use std::sync::Arc;

use weir_graph::{Error, Output, Result};
use weir_ops::init_ops::Initializer;
use weir_ops::nn::{bias_add, Conv2D as Conv2DOp, Padding};

use super::base::{activity_regularization, check_rank, float_dtype, LayerCore, Pair};
use super::core::{channels_first, common_setters};
use super::Activation;
use crate::regularizers::Regularizer;
use crate::variable_scope::Reuse;

/// Keras' `normalize_tuple(value, 2, name)` for sizes that must be positive.
pub(crate) fn positive_pair(p: Pair, name: &str) -> Result<()> {
    if p.0.contains(&0) {
        return Err(Error::invalid_argument(format!(
            "The `{name}` argument must be a tuple of 2 integers. Received: {} including {{0}} \
             that does not satisfy the requirement `> 0`.",
            p.python()
        )));
    }
    Ok(())
}

/// Keras' `normalize_padding`, then the op's padding.
pub(crate) fn parse_padding(padding: &str) -> Result<Padding> {
    match padding.to_lowercase().as_str() {
        "valid" => Ok(Padding::Valid),
        "same" => Ok(Padding::Same),
        "causal" => Err(Error::invalid_argument(
            "Causal padding is only supported for `Conv1D`and `SeparableConv1D`.",
        )),
        other => Err(Error::invalid_argument(format!(
            "The `padding` argument must be a list/tuple or one of \"valid\", \"same\" (or \
             \"causal\", only for `Conv1D). Received: {other}"
        ))),
    }
}

/// Refuses `channels_first`, which weir's NHWC kernels do not run.
pub(crate) fn require_channels_last(data_format: &str, layer: &str) -> Result<()> {
    if channels_first(data_format)? {
        return Err(Error::unimplemented(format!(
            "{layer} with data_format=\"channels_first\" is not supported: weir's kernels are \
             channels-last (NHWC); transpose the input and use \"channels_last\""
        )));
    }
    Ok(())
}

/// `tf.layers.Conv2D(filters, kernel_size, strides=(1, 1), padding="valid",
/// data_format="channels_last", dilation_rate=(1, 1), activation=None, use_bias=True,
/// kernel_initializer=None, bias_initializer=zeros, kernel_regularizer=None,
/// bias_regularizer=None, activity_regularizer=None, trainable=True, name=None)`: a 2-D
/// convolution of NHWC inputs, `kernel` `[kh, kw, in_channels, filters]`, `bias` `[filters]`.
///
/// `channels_first` and dilation rates above 1 are refused (Unimplemented).
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::array::placeholder;
/// use weir_train::layers::Conv2D;
/// let g = Graph::new();
/// let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(28), Some(28), Some(1)]))?;
/// let layer = Conv2D::new(32, 5).padding("same").activation(|x| weir_ops::nn::relu(x));
/// let y = layer.apply(&x)?;
/// assert_eq!(y.shape().python_str(), "(None, 28, 28, 32)");
/// assert_eq!(layer.kernel().unwrap().name(), "conv2d/kernel");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct Conv2D {
    filters: usize,
    kernel_size: Pair,
    strides: Pair,
    padding: String,
    data_format: String,
    dilation_rate: Pair,
    activation: Option<Activation>,
    use_bias: bool,
    kernel_initializer: Option<Initializer>,
    bias_initializer: Initializer,
    kernel_regularizer: Option<Regularizer>,
    bias_regularizer: Option<Regularizer>,
    activity_regularizer: Option<Regularizer>,
    core: LayerCore,
}

common_setters!(Conv2D);

impl Conv2D {
    /// A convolution with `filters` output channels and a `kernel_size` window (`3` or `[3,
    /// 5]`), with TensorFlow's defaults.
    pub fn new(filters: usize, kernel_size: impl Into<Pair>) -> Conv2D {
        Conv2D {
            filters,
            kernel_size: kernel_size.into(),
            strides: Pair([1, 1]),
            padding: "valid".to_string(),
            data_format: "channels_last".to_string(),
            dilation_rate: Pair([1, 1]),
            activation: None,
            use_bias: true,
            kernel_initializer: None,
            bias_initializer: Initializer::Zeros,
            kernel_regularizer: None,
            bias_regularizer: None,
            activity_regularizer: None,
            core: LayerCore::new("conv2d"),
        }
    }

    /// The strides (default `(1, 1)`).
    pub fn strides(mut self, strides: impl Into<Pair>) -> Conv2D {
        self.strides = strides.into();
        self
    }

    /// `"valid"` (default) or `"same"`, case-insensitive.
    pub fn padding(mut self, padding: &str) -> Conv2D {
        self.padding = padding.to_string();
        self
    }

    /// `"channels_last"` (default); `"channels_first"` is refused when applied.
    pub fn data_format(mut self, format: &str) -> Conv2D {
        self.data_format = format.to_string();
        self
    }

    /// The dilation rate (default `(1, 1)`; larger rates are refused when applied).
    pub fn dilation_rate(mut self, rate: impl Into<Pair>) -> Conv2D {
        self.dilation_rate = rate.into();
        self
    }

    /// The activation (default none: linear).
    pub fn activation(
        mut self,
        f: impl Fn(&Output) -> Result<Output> + Send + Sync + 'static,
    ) -> Conv2D {
        self.activation = Some(Arc::new(f));
        self
    }

    /// Whether to add a bias (default true).
    pub fn use_bias(mut self, use_bias: bool) -> Conv2D {
        self.use_bias = use_bias;
        self
    }

    /// The kernel's initializer (default: the variable scope's, else glorot_uniform).
    pub fn kernel_initializer(mut self, init: Initializer) -> Conv2D {
        self.kernel_initializer = Some(init);
        self
    }

    /// The bias' initializer (default zeros).
    pub fn bias_initializer(mut self, init: Initializer) -> Conv2D {
        self.bias_initializer = init;
        self
    }

    /// A penalty on the kernel, added to `REGULARIZATION_LOSSES`.
    pub fn kernel_regularizer(mut self, r: Regularizer) -> Conv2D {
        self.kernel_regularizer = Some(r);
        self
    }

    /// A penalty on the bias, added to `REGULARIZATION_LOSSES`.
    pub fn bias_regularizer(mut self, r: Regularizer) -> Conv2D {
        self.bias_regularizer = Some(r);
        self
    }

    /// A penalty on the output, divided by the batch size, added to `REGULARIZATION_LOSSES`.
    pub fn activity_regularizer(mut self, r: Regularizer) -> Conv2D {
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

    /// Keras' `Conv.__init__` checks, in its order.
    fn validate(&self) -> Result<Padding> {
        if self.filters == 0 {
            return Err(Error::invalid_argument(
                "Invalid value for argument `filters`. Expected a strictly positive value. \
                 Received filters=0.",
            ));
        }
        positive_pair(self.kernel_size, "kernel_size")?;
        let padding = parse_padding(&self.padding)?;
        require_channels_last(&self.data_format, "Conv2D")?;
        positive_pair(self.dilation_rate, "dilation_rate")?;
        if self.strides.0.contains(&0) {
            return Err(Error::invalid_argument(format!(
                "The argument `strides` cannot contains 0(s). Received: {}",
                self.strides.python()
            )));
        }
        let (s, d) = (self.strides.0, self.dilation_rate.0);
        if s.iter().max() > Some(&1) && d.iter().max() > Some(&1) {
            return Err(Error::invalid_argument(format!(
                "`strides > 1` not supported in conjunction with `dilation_rate > 1`. \
                 Received: strides={} and dilation_rate={}",
                self.strides.python(),
                self.dilation_rate.python()
            )));
        }
        if d != [1, 1] {
            return Err(Error::unimplemented(format!(
                "Conv2D with dilation_rate={} is not supported: weir's Conv2D kernel runs \
                 dilations of 1 only",
                self.dilation_rate.python()
            )));
        }
        Ok(padding)
    }

    /// Applies the layer (`layer(inputs)`) to `[batch, height, width, channels]` inputs,
    /// making its variables on the first call.
    pub fn apply(&self, inputs: impl Into<Output>) -> Result<Output> {
        let x = inputs.into();
        let padding = self.validate()?;
        let g = x.graph().clone();
        let layer = self.core.layer_name(&g);
        check_rank(&layer, &x, Some(4), None)?;
        if let Some(r) = x.shape().rank().filter(|&r| r > 4) {
            return Err(Error::unimplemented(format!(
                "Conv2D on inputs of rank {r} (extra batch dimensions) is not supported; \
                 reshape them to rank 4"
            )));
        }
        let dtype = float_dtype("Conv2D", &x)?;
        let (filters, [kh, kw], [sh, sw]) = (self.filters, self.kernel_size.0, self.strides.0);
        self.core.call(
            &g,
            dtype,
            |w| {
                let channels = x
                    .shape()
                    .dims()
                    .and_then(|d| d.last().copied().flatten())
                    .ok_or_else(|| {
                        Error::invalid_argument(format!(
                            "The channel dimension of the inputs should be defined. The \
                             input_shape received is {}, where axis -1 (0-based) is the \
                             channel dimension, which found to be `None`.",
                            x.shape().python_str()
                        ))
                    })?;
                let kr = self.kernel_regularizer.as_ref();
                let init = self.kernel_initializer.as_ref();
                w.add("kernel", &[kh, kw, channels, filters], init, kr, true)?;
                if self.use_bias {
                    let (init, br) = (&self.bias_initializer, self.bias_regularizer.as_ref());
                    w.add("bias", &[filters], Some(init), br, true)?;
                }
                Ok(())
            },
            |vars| {
                let strides = [1, sh as i64, sw as i64, 1];
                let mut out = Conv2DOp::new(strides, padding).build(&x, vars.value("kernel")?)?;
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

/// `tf.layers.conv2d(inputs, filters, kernel_size)`: a new [`Conv2D`] layer applied once.
pub fn conv2d(
    inputs: impl Into<Output>,
    filters: usize,
    kernel_size: impl Into<Pair>,
) -> Result<Output> {
    Conv2D::new(filters, kernel_size).apply(inputs)
}
