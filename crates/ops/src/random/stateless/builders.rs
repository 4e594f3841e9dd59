//! The Python-level builders `tf.random.stateless_uniform`, `tf.random.stateless_normal` and
//! `tf.random.stateless_truncated_normal`: the raw stateless op scaled and shifted as
//! TensorFlow's `stateless_random_ops.py` does it.

use weir_graph::{DType, Error, Graph, Output, Result};

use super::super::builders::named;
use super::super::{dtype_repr, python_value, Scalar, ShapeArg};
use super::SeedArg;
use crate::array::constant_named;
use crate::math::{mul, sub};

/// `tf.random.stateless_uniform(shape, seed)`: float32 values in `[0, 1)` that depend only on
/// `seed`. See [`StatelessRandomUniform`].
pub fn stateless_random_uniform(
    graph: &Graph,
    shape: impl Into<ShapeArg>,
    seed: impl Into<SeedArg>,
) -> Result<Output> {
    StatelessRandomUniform::new(shape, seed).build(graph)
}

/// `tf.random.stateless_normal(shape, seed)`: standard normal float32 values that depend only
/// on `seed`. See [`StatelessRandomNormal`].
pub fn stateless_random_normal(
    graph: &Graph,
    shape: impl Into<ShapeArg>,
    seed: impl Into<SeedArg>,
) -> Result<Output> {
    StatelessRandomNormal::new(shape, seed).build(graph)
}

/// `tf.random.stateless_truncated_normal(shape, seed)`: standard normal float32 values
/// redrawn beyond two standard deviations, depending only on `seed`. See
/// [`StatelessTruncatedNormal`].
pub fn stateless_truncated_normal(
    graph: &Graph,
    shape: impl Into<ShapeArg>,
    seed: impl Into<SeedArg>,
) -> Result<Output> {
    StatelessTruncatedNormal::new(shape, seed).build(graph)
}

/// The options of `tf.random.stateless_uniform(shape, seed, minval=0, maxval=None,
/// dtype=tf.float32)`.
///
/// Floats come from `StatelessRandomUniform` scaled to `[minval, maxval)` (`maxval` defaults
/// to 1); integers come from `StatelessRandomUniformInt` and need `maxval`, or from
/// `StatelessRandomUniformFullInt` over the whole range with [`full_range`](Self::full_range).
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::random::StatelessRandomUniform;
/// let g = Graph::new();
/// let dice = StatelessRandomUniform::new([10], [7, 11])
///     .minval(1)
///     .maxval(7)
///     .dtype(DType::I32)
///     .build(&g)?;
/// assert_eq!(dice.name(), "stateless_random_uniform:0");
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct StatelessRandomUniform {
    shape: ShapeArg,
    seed: SeedArg,
    minval: Option<Scalar>,
    maxval: Option<Scalar>,
    dtype: DType,
    name: Option<String>,
}

impl StatelessRandomUniform {
    /// Float32 values in `[0, 1)` of `shape`, from `seed`.
    pub fn new(shape: impl Into<ShapeArg>, seed: impl Into<SeedArg>) -> StatelessRandomUniform {
        StatelessRandomUniform {
            shape: shape.into(),
            seed: seed.into(),
            minval: Some(Scalar::Int(0)),
            maxval: None,
            dtype: DType::F32,
            name: None,
        }
    }

    /// The inclusive lower bound (default 0).
    pub fn minval(mut self, v: impl Into<Scalar>) -> Self {
        self.minval = Some(v.into());
        self
    }

    /// The exclusive upper bound (default 1 for floats; required for integers).
    pub fn maxval(mut self, v: impl Into<Scalar>) -> Self {
        self.maxval = Some(v.into());
        self
    }

    /// Integers over the whole range of the dtype (Python's `minval=None, maxval=None`).
    pub fn full_range(mut self) -> Self {
        self.minval = None;
        self.maxval = None;
        self
    }

    /// float32, float64, int32 or int64.
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = dtype;
        self
    }

    /// The name scope of the nodes (default `stateless_random_uniform`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the nodes; the result is named after the scope.
    pub fn build(self, graph: &Graph) -> Result<Output> {
        let dtype = self.dtype;
        if !matches!(dtype, DType::F32 | DType::F64 | DType::I32 | DType::I64) {
            return Err(Error::invalid_argument(format!(
                "Argument `dtype` got invalid value {}. Accepted dtypes are (tf.float16, \
                 tf.bfloat16, tf.float32, tf.float64, tf.int32, tf.int64, tf.uint32, tf.uint64).",
                dtype_repr(dtype)
            )));
        }
        if dtype.is_integer() && self.minval.is_none() != self.maxval.is_none() {
            return Err(Error::invalid_argument(format!(
                "For integer `dtype` argument {}, argument `minval` and `maxval` must be both \
                 None or not None. Got `minval`={} and `maxval`={}.",
                dtype_repr(dtype),
                python_value(self.minval),
                python_value(self.maxval)
            )));
        }
        let scope = graph.name_scope(self.name.as_deref().unwrap_or("stateless_random_uniform"));
        let shape = self.shape.to_output(graph)?;
        let (Some(minval), maxval) = (self.minval, self.maxval) else {
            let seed = self.seed.to_output(graph)?;
            return crate::new_op(graph, "StatelessRandomUniformFullInt")
                .name(scope.prefix())
                .input(shape)
                .input(seed)
                .attr("dtype", dtype)
                .build()?
                .output(0);
        };
        let lo = constant_named(graph, minval.to_tensor(dtype)?, "min")?;
        let maxval = maxval.unwrap_or(Scalar::Int(1));
        let hi = constant_named(graph, maxval.to_tensor(dtype)?, "max")?;
        let seed = self.seed.to_output(graph)?;
        if dtype.is_integer() {
            return crate::new_op(graph, "StatelessRandomUniformInt")
                .name(scope.prefix())
                .input(shape)
                .input(seed)
                .input(lo)
                .input(hi)
                .build()?
                .output(0);
        }
        let rnd = crate::new_op(graph, "StatelessRandomUniform")
            .input(shape)
            .input(seed)
            .attr("dtype", dtype)
            .build()?
            .output(0)?;
        let scaled = mul(&rnd, &sub(&hi, &lo)?)?;
        named(graph, "AddV2", &scaled, &lo, scope.prefix())
    }
}

macro_rules! stateless_normal_builder {
    ($(#[$doc:meta])* $ty:ident, $op:literal, $scope:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $ty {
            shape: ShapeArg,
            seed: SeedArg,
            mean: Scalar,
            stddev: Scalar,
            dtype: DType,
            name: Option<String>,
        }

        impl $ty {
            /// Standard normal float32 values of `shape`, from `seed`.
            pub fn new(shape: impl Into<ShapeArg>, seed: impl Into<SeedArg>) -> $ty {
                $ty {
                    shape: shape.into(),
                    seed: seed.into(),
                    mean: Scalar::Float(0.0),
                    stddev: Scalar::Float(1.0),
                    dtype: DType::F32,
                    name: None,
                }
            }

            /// The mean (default 0).
            pub fn mean(mut self, v: impl Into<Scalar>) -> Self {
                self.mean = v.into();
                self
            }

            /// The standard deviation (default 1).
            pub fn stddev(mut self, v: impl Into<Scalar>) -> Self {
                self.stddev = v.into();
                self
            }

            /// float32 or float64.
            pub fn dtype(mut self, dtype: DType) -> Self {
                self.dtype = dtype;
                self
            }

            /// The name scope of the nodes.
            pub fn name(mut self, name: &str) -> Self {
                self.name = Some(name.to_string());
                self
            }

            /// Adds the nodes: the raw op, then `* stddev + mean` as TensorFlow builds it.
            pub fn build(self, graph: &Graph) -> Result<Output> {
                let dtype = self.dtype;
                if !dtype.is_floating() {
                    return Err(Error::invalid_argument(format!(
                        "Value passed to parameter 'dtype' has DataType {} not in list of \
                         allowed values: float16, bfloat16, float32, float64",
                        dtype.python_name()
                    )));
                }
                let scope = graph.name_scope(self.name.as_deref().unwrap_or($scope));
                let shape = self.shape.to_output(graph)?;
                let mean = constant_named(graph, self.mean.to_tensor(dtype)?, "mean")?;
                let stddev = constant_named(graph, self.stddev.to_tensor(dtype)?, "stddev")?;
                let seed = self.seed.to_output(graph)?;
                let rnd = crate::new_op(graph, $op)
                    .input(shape)
                    .input(seed)
                    .attr("dtype", dtype)
                    .build()?
                    .output(0)?;
                let scaled = mul(&rnd, &stddev)?;
                named(graph, "AddV2", &scaled, &mean, scope.prefix())
            }
        }
    };
}

stateless_normal_builder!(
    /// The options of `tf.random.stateless_normal(shape, seed, mean=0.0, stddev=1.0,
    /// dtype=tf.float32)` (op `StatelessRandomNormal`).
    ///
    /// ```
    /// # use weir_graph::Graph;
    /// # use weir_ops::random::StatelessRandomNormal;
    /// let g = Graph::new();
    /// let noise = StatelessRandomNormal::new([128, 10], [3, 4]).stddev(0.1).build(&g)?;
    /// assert_eq!(noise.name(), "stateless_random_normal:0");
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    StatelessRandomNormal,
    "StatelessRandomNormal",
    "stateless_random_normal"
);

stateless_normal_builder!(
    /// The options of `tf.random.stateless_truncated_normal(shape, seed, mean=0.0,
    /// stddev=1.0, dtype=tf.float32)` (op `StatelessTruncatedNormal`): values beyond two
    /// standard deviations are redrawn.
    StatelessTruncatedNormal,
    "StatelessTruncatedNormal",
    "stateless_truncated_normal"
);
