//! The Python-level builders of TensorFlow 2.21's `tf.random.stateless_uniform`,
//! `stateless_normal`, `stateless_truncated_normal` and `tf.random.experimental.stateless_shuffle`,
//! node for node: the seed becomes a key and counter (`StatelessRandomGetKeyCounter`), a V2 op
//! draws, and floats are scaled and shifted as `stateless_random_ops.py` does it.

use weir_graph::{DType, Error, Graph, Output, Result, Tensor};

use super::super::builders::named;
use super::super::stateless::SeedArg;
use super::super::{dtype_repr, python_value, Scalar, ShapeArg};
use super::Algorithm;
use crate::array::constant_named;

/// The key and counter `random_ops_util.get_key_counter_alg` makes of `seed`, and the `alg`
/// the V2 op takes.
///
/// Auto-select and Philox scramble the seed with `StatelessRandomGetKeyCounter` (TensorFlow
/// builds Philox's identical scramble from ordinary ops). ThreeFry keeps a one-word counter,
/// which TensorFlow's CPU kernels reject, as here.
fn key_counter(graph: &Graph, seed: &SeedArg, alg: Algorithm) -> Result<(Output, Output)> {
    let scope = graph.name_scope("StatelessRandomGetKeyCounter");
    let seed = seed.to_output(graph)?;
    let op = crate::new_op(graph, "StatelessRandomGetKeyCounter")
        .name(scope.prefix())
        .input(&seed)
        .build()?;
    drop(scope);
    let key = op.output(0)?;
    let counter = match alg {
        Algorithm::ThreeFry => crate::array::constant(graph, Tensor::from(vec![0u64]))?,
        _ => op.output(1)?,
    };
    Ok((key, counter))
}

/// A V2 op named `name` (a scope prefix ending in `/`, or a plain name in the current scope),
/// its `alg` constant created in the op's own scope as Python converts it.
fn v2_op(
    graph: &Graph,
    op: &str,
    name: Option<&str>,
    inputs: &[&Output],
    alg: Algorithm,
    dtype: Option<DType>,
) -> Result<Output> {
    let scope = graph.name_scope(name.unwrap_or(op));
    let alg = constant_named(graph, Tensor::scalar(alg.id()), "alg")?;
    let mut b = crate::new_op(graph, op).name(scope.prefix());
    for (i, input) in inputs.iter().enumerate() {
        b = b.input(*input);
        if i == 2 {
            b = b.input(&alg);
        }
    }
    if let Some(dtype) = dtype {
        b = b.attr("dtype", dtype);
    }
    let out = b.build()?.output(0);
    drop(scope);
    out
}

/// `tf.random.stateless_uniform(shape, seed)` as TensorFlow 2.21 builds it (V2 ops). See
/// [`StatelessUniformV2`].
pub fn stateless_random_uniform_v2(
    graph: &Graph,
    shape: impl Into<ShapeArg>,
    seed: impl Into<SeedArg>,
) -> Result<Output> {
    StatelessUniformV2::new(shape, seed).build(graph)
}

/// `tf.random.stateless_normal(shape, seed)` as TensorFlow 2.21 builds it. See
/// [`StatelessNormalV2`].
pub fn stateless_random_normal_v2(
    graph: &Graph,
    shape: impl Into<ShapeArg>,
    seed: impl Into<SeedArg>,
) -> Result<Output> {
    StatelessNormalV2::new(shape, seed).build(graph)
}

/// `tf.random.stateless_truncated_normal(shape, seed)` as TensorFlow 2.21 builds it. See
/// [`StatelessTruncatedNormalV2`].
pub fn stateless_truncated_normal_v2(
    graph: &Graph,
    shape: impl Into<ShapeArg>,
    seed: impl Into<SeedArg>,
) -> Result<Output> {
    StatelessTruncatedNormalV2::new(shape, seed).build(graph)
}

/// `tf.random.experimental.stateless_shuffle(value, seed)`. See [`StatelessShuffle`].
pub fn stateless_shuffle(value: &Output, seed: impl Into<SeedArg>) -> Result<Output> {
    StatelessShuffle::new(seed).build(value)
}

/// The options of TensorFlow 2.21's `tf.random.stateless_uniform(shape, seed, minval=0,
/// maxval=None, dtype=tf.float32, name=None, alg='auto_select')`.
///
/// Floats come from `StatelessRandomUniformV2` scaled to `[minval, maxval)`; ints from
/// `StatelessRandomUniformIntV2`, or from `StatelessRandomUniformFullIntV2` over the whole
/// range with [`full_range`](Self::full_range).
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::random::StatelessUniformV2;
/// let g = Graph::new();
/// let dice = StatelessUniformV2::new([10], [7, 11]).minval(1).maxval(7).dtype(DType::I64).build(&g)?;
/// assert_eq!(dice.op().op_type(), "StatelessRandomUniformIntV2");
/// let bits = StatelessUniformV2::new([3], [7, 11]).full_range().dtype(DType::U64).build(&g)?;
/// assert_eq!(bits.name(), "stateless_random_uniform_1:0");
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct StatelessUniformV2 {
    shape: ShapeArg,
    seed: SeedArg,
    minval: Option<Scalar>,
    maxval: Option<Scalar>,
    dtype: DType,
    name: Option<String>,
    alg: Algorithm,
}

impl StatelessUniformV2 {
    /// Float32 values in `[0, 1)` of `shape`, from `seed`.
    pub fn new(shape: impl Into<ShapeArg>, seed: impl Into<SeedArg>) -> StatelessUniformV2 {
        StatelessUniformV2 {
            shape: shape.into(),
            seed: seed.into(),
            minval: Some(Scalar::Int(0)),
            maxval: None,
            dtype: DType::F32,
            name: None,
            alg: Algorithm::AutoSelect,
        }
    }

    /// The inclusive lower bound (default 0).
    pub fn minval(mut self, v: impl Into<Scalar>) -> Self {
        self.minval = Some(v.into());
        self
    }

    /// The exclusive upper bound (default 1 for floats; required for ints).
    pub fn maxval(mut self, v: impl Into<Scalar>) -> Self {
        self.maxval = Some(v.into());
        self
    }

    /// Ints over the dtype's whole range (Python's `minval=None, maxval=None`).
    pub fn full_range(mut self) -> Self {
        self.minval = None;
        self.maxval = None;
        self
    }

    /// float16, bfloat16, float32, float64, int32, int64, or (full range only) uint32, uint64.
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = dtype;
        self
    }

    /// The name scope of the nodes (default `stateless_random_uniform`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// The RNG algorithm (default auto-select).
    pub fn alg(mut self, alg: Algorithm) -> Self {
        self.alg = alg;
        self
    }

    /// Adds the nodes; the result is named after the scope.
    pub fn build(self, graph: &Graph) -> Result<Output> {
        let dtype = self.dtype;
        if !matches!(
            dtype,
            DType::F16
                | DType::BF16
                | DType::F32
                | DType::F64
                | DType::I32
                | DType::I64
                | DType::U32
                | DType::U64
        ) {
            return Err(Error::invalid_argument(format!(
                "Argument `dtype` got invalid value {}. Accepted dtypes are (tf.float16, \
                 tf.bfloat16, tf.float32, tf.float64, tf.int32, tf.int64, tf.uint32, tf.uint64).",
                dtype_repr(dtype)
            )));
        }
        let (mut minval, mut maxval) = (self.minval, self.maxval);
        if dtype.is_integer() {
            if minval.is_none() != maxval.is_none() {
                return Err(Error::invalid_argument(format!(
                    "For integer `dtype` argument {}, argument `minval` and `maxval` must be \
                     both None or not None. Got `minval`={} and `maxval`={}.",
                    dtype_repr(dtype),
                    python_value(minval),
                    python_value(maxval)
                )));
            }
            if minval.is_some() && matches!(dtype, DType::U32 | DType::U64) {
                return Err(Error::invalid_argument(format!(
                    "Argument `dtype` got invalid value {} when argument `minval` is not None. \
                     Please don't use unsigned integers in this case.",
                    dtype_repr(dtype)
                )));
            }
        } else {
            minval = minval.or(Some(Scalar::Int(0)));
            maxval = maxval.or(Some(Scalar::Int(1)));
        }
        let scope = graph.name_scope(self.name.as_deref().unwrap_or("stateless_random_uniform"));
        let shape = self.shape.to_output(graph)?;
        let (Some(minval), Some(maxval)) = (minval, maxval) else {
            let (key, counter) = key_counter(graph, &self.seed, self.alg)?;
            return v2_op(
                graph,
                "StatelessRandomUniformFullIntV2",
                Some(scope.prefix()),
                &[&shape, &key, &counter],
                self.alg,
                Some(dtype),
            );
        };
        let lo = constant_named(graph, minval.to_tensor(dtype)?, "min")?;
        let hi = constant_named(graph, maxval.to_tensor(dtype)?, "max")?;
        let (key, counter) = key_counter(graph, &self.seed, self.alg)?;
        if dtype.is_integer() {
            return v2_op(
                graph,
                "StatelessRandomUniformIntV2",
                Some(scope.prefix()),
                &[&shape, &key, &counter, &lo, &hi],
                self.alg,
                None,
            );
        }
        let rnd = v2_op(
            graph,
            "StatelessRandomUniformV2",
            None,
            &[&shape, &key, &counter],
            self.alg,
            Some(dtype),
        )?;
        let range = named(graph, "Sub", &hi, &lo, "sub")?;
        let scaled = named(graph, "Mul", &rnd, &range, "mul")?;
        named(graph, "AddV2", &scaled, &lo, scope.prefix())
    }
}

macro_rules! normal_v2_builder {
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
            alg: Algorithm,
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
                    alg: Algorithm::AutoSelect,
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

            /// float16, bfloat16, float32 or float64.
            pub fn dtype(mut self, dtype: DType) -> Self {
                self.dtype = dtype;
                self
            }

            /// The name scope of the nodes.
            pub fn name(mut self, name: &str) -> Self {
                self.name = Some(name.to_string());
                self
            }

            /// The RNG algorithm (default auto-select).
            pub fn alg(mut self, alg: Algorithm) -> Self {
                self.alg = alg;
                self
            }

            /// Adds the nodes: the V2 op, then `* stddev + mean`.
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
                let (key, counter) = key_counter(graph, &self.seed, self.alg)?;
                let rnd = v2_op(graph, $op, None, &[&shape, &key, &counter], self.alg, Some(dtype))?;
                let scaled = named(graph, "Mul", &rnd, &stddev, "mul")?;
                named(graph, "AddV2", &scaled, &mean, scope.prefix())
            }
        }
    };
}

normal_v2_builder!(
    /// The options of TensorFlow 2.21's `tf.random.stateless_normal(shape, seed, mean=0.0,
    /// stddev=1.0, dtype=tf.float32, name=None, alg='auto_select')` (op
    /// `StatelessRandomNormalV2`).
    ///
    /// ```
    /// # use weir_graph::Graph;
    /// # use weir_ops::random::StatelessNormalV2;
    /// let g = Graph::new();
    /// let noise = StatelessNormalV2::new([128, 10], [3, 4]).stddev(0.1).build(&g)?;
    /// assert_eq!(noise.name(), "stateless_random_normal:0");
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    StatelessNormalV2,
    "StatelessRandomNormalV2",
    "stateless_random_normal"
);

normal_v2_builder!(
    /// The options of TensorFlow 2.21's `tf.random.stateless_truncated_normal(shape, seed,
    /// mean=0.0, stddev=1.0, dtype=tf.float32, name=None, alg='auto_select')` (op
    /// `StatelessTruncatedNormalV2`): values beyond two standard deviations are redrawn.
    StatelessTruncatedNormalV2,
    "StatelessTruncatedNormalV2",
    "stateless_truncated_normal"
);

/// The options of `tf.random.experimental.stateless_shuffle(value, seed, alg='auto_select',
/// name=None)`: `value` permuted along its first dimension, the permutation depending only on
/// `seed`.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, random::StatelessShuffle};
/// let g = Graph::new();
/// let x = constant(&g, [1i32, 2, 3, 4])?;
/// let y = StatelessShuffle::new([5, 6]).build(&x)?;
/// assert_eq!(y.name(), "stateless_shuffle/StatelessShuffle:0");
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct StatelessShuffle {
    seed: SeedArg,
    alg: Algorithm,
    name: Option<String>,
}

impl StatelessShuffle {
    /// A shuffle by `seed`.
    pub fn new(seed: impl Into<SeedArg>) -> StatelessShuffle {
        StatelessShuffle {
            seed: seed.into(),
            alg: Algorithm::AutoSelect,
            name: None,
        }
    }

    /// The RNG algorithm (default auto-select).
    pub fn alg(mut self, alg: Algorithm) -> Self {
        self.alg = alg;
        self
    }

    /// The name scope of the nodes (default `stateless_shuffle`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the nodes shuffling `value`.
    pub fn build(self, value: &Output) -> Result<Output> {
        let graph = value.graph().clone();
        let _scope = graph.name_scope(self.name.as_deref().unwrap_or("stateless_shuffle"));
        let (key, counter) = key_counter(&graph, &self.seed, self.alg)?;
        v2_op(
            &graph,
            "StatelessShuffle",
            None,
            &[value, &key, &counter],
            self.alg,
            None,
        )
    }
}
