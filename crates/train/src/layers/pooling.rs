//! `tf.layers.MaxPooling2D` and `AveragePooling2D` (TensorFlow's `legacy_tf_layers/pooling.py`).

use weir_graph::{Output, Result};
use weir_ops::nn::{AvgPool, MaxPool};

use super::base::{check_rank, LayerCore, Pair};
use super::convolutional::{parse_padding, positive_pair, require_channels_last};
use super::core::common_setters;
use crate::variable_scope::Reuse;

/// The options both pooling layers share.
struct Pooling {
    pool_size: Pair,
    strides: Pair,
    padding: String,
    data_format: String,
}

impl Pooling {
    fn new(pool_size: Pair, strides: Pair) -> Pooling {
        Pooling {
            pool_size,
            strides,
            padding: "valid".to_string(),
            data_format: "channels_last".to_string(),
        }
    }

    fn apply(&self, core: &LayerCore, x: Output, kind: &str, max: bool) -> Result<Output> {
        positive_pair(self.pool_size, "pool_size")?;
        let padding = parse_padding(&self.padding)?;
        require_channels_last(&self.data_format, kind)?;
        let g = x.graph().clone();
        let layer = core.layer_name(&g);
        check_rank(&layer, &x, None, Some(4))?;
        let [ph, pw] = self.pool_size.0;
        let [sh, sw] = self.strides.0;
        let ksize = [1, ph as i64, pw as i64, 1];
        let strides = [1, sh as i64, sw as i64, 1];
        core.call(
            &g,
            x.dtype(),
            |_| Ok(()),
            |_| {
                let out = if max {
                    MaxPool::new(ksize, strides, padding).build(&x)?
                } else {
                    AvgPool::new(ksize, strides, padding).build(&x)?
                };
                Ok((out, Vec::new()))
            },
        )
    }
}

macro_rules! pooling_layer {
    ($(#[$doc:meta])* $t:ident, $base:literal, $max:literal, $fn_doc:literal, $f:ident) => {
        $(#[$doc])*
        pub struct $t {
            p: Pooling,
            core: LayerCore,
        }

        common_setters!($t);

        impl $t {
            /// A pooling layer of `pool_size` windows (`2` or `[2, 3]`) moved by `strides`.
            pub fn new(pool_size: impl Into<Pair>, strides: impl Into<Pair>) -> $t {
                $t {
                    p: Pooling::new(pool_size.into(), strides.into()),
                    core: LayerCore::new($base),
                }
            }

            /// `"valid"` (default) or `"same"`, case-insensitive.
            pub fn padding(mut self, padding: &str) -> $t {
                self.p.padding = padding.to_string();
                self
            }

            /// `"channels_last"` (default); `"channels_first"` is refused when applied.
            pub fn data_format(mut self, format: &str) -> $t {
                self.p.data_format = format.to_string();
                self
            }

            /// Applies the layer (`layer(inputs)`) to `[batch, height, width, channels]`
            /// inputs.
            pub fn apply(&self, inputs: impl Into<Output>) -> Result<Output> {
                self.p.apply(&self.core, inputs.into(), stringify!($t), $max)
            }
        }

        #[doc = $fn_doc]
        pub fn $f(
            inputs: impl Into<Output>,
            pool_size: impl Into<Pair>,
            strides: impl Into<Pair>,
        ) -> Result<Output> {
            $t::new(pool_size, strides).apply(inputs)
        }
    };
}

pooling_layer!(
    /// `tf.layers.MaxPooling2D(pool_size, strides, padding="valid",
    /// data_format="channels_last", name=None)`: the maximum of each window (`tf.nn.max_pool`).
    ///
    /// ```
    /// # use weir_graph::{DType, Graph, Shape};
    /// # use weir_ops::array::placeholder;
    /// use weir_train::layers::MaxPooling2D;
    /// let g = Graph::new();
    /// let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(28), Some(28), Some(8)]))?;
    /// let y = MaxPooling2D::new(2, 2).apply(&x)?;
    /// assert_eq!(y.name(), "max_pooling2d/MaxPool:0");
    /// assert_eq!(y.shape().python_str(), "(None, 14, 14, 8)");
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    MaxPooling2D,
    "max_pooling2d",
    true,
    "`tf.layers.max_pooling2d(inputs, pool_size, strides)`: a new [`MaxPooling2D`] applied once.",
    max_pooling2d
);

pooling_layer!(
    /// `tf.layers.AveragePooling2D(pool_size, strides, padding="valid",
    /// data_format="channels_last", name=None)`: the mean of each window (`tf.nn.avg_pool`;
    /// with `"same"` padding, of the window's elements inside the input).
    ///
    /// ```
    /// # use weir_graph::{DType, Graph, Shape};
    /// # use weir_ops::array::placeholder;
    /// use weir_train::layers::AveragePooling2D;
    /// let g = Graph::new();
    /// let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(5), Some(5), Some(2)]))?;
    /// let y = AveragePooling2D::new(2, 2).padding("same").apply(&x)?;
    /// assert_eq!(y.shape().python_str(), "(None, 3, 3, 2)");
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    AveragePooling2D,
    "average_pooling2d",
    false,
    "`tf.layers.average_pooling2d(inputs, pool_size, strides)`: a new [`AveragePooling2D`] \
     applied once.",
    average_pooling2d
);
