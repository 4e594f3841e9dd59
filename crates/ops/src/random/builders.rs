//! The Python-level builders `tf.random.uniform`, `tf.random.normal` and
//! `tf.random.truncated_normal`: a raw random node scaled and shifted the way TensorFlow's
//! `random_ops.py` does it, node for node.

use weir_graph::{DType, Error, Graph, Output, Result};

use super::{Scalar, ShapeArg};
use crate::array::constant_named;
use crate::math::{mul, sub};

/// `tf.random.uniform(shape)`: float32 values in `[0, 1)`, unseeded. See [`RandomUniform`].
pub fn random_uniform(graph: &Graph, shape: impl Into<ShapeArg>) -> Result<Output> {
    RandomUniform::new(shape).build(graph)
}

/// `tf.random.normal(shape)`: standard normal float32 values, unseeded. See [`RandomNormal`].
pub fn random_normal(graph: &Graph, shape: impl Into<ShapeArg>) -> Result<Output> {
    RandomNormal::new(shape).build(graph)
}

/// `tf.random.truncated_normal(shape)`: standard normal float32 values redrawn beyond two
/// standard deviations, unseeded. See [`TruncatedNormal`].
pub fn truncated_normal(graph: &Graph, shape: impl Into<ShapeArg>) -> Result<Output> {
    TruncatedNormal::new(shape).build(graph)
}

/// The options of `tf.random.uniform(shape, minval=0, maxval=None, dtype=tf.float32, seed=None)`.
///
/// Floats come from `RandomUniform` scaled to `[minval, maxval)` (`maxval` defaults to 1);
/// integers come from `RandomUniformInt` and need `maxval`.
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::random::RandomUniform;
/// let g = Graph::new();
/// let dice = RandomUniform::new([10]).minval(1).maxval(7).dtype(DType::I64).seed(42).build(&g)?;
/// assert_eq!(dice.dtype(), DType::I64);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct RandomUniform {
    shape: ShapeArg,
    minval: Scalar,
    maxval: Option<Scalar>,
    dtype: DType,
    seed: Option<i64>,
    name: Option<String>,
}

impl RandomUniform {
    /// Float32 values in `[0, 1)` of `shape`.
    pub fn new(shape: impl Into<ShapeArg>) -> RandomUniform {
        RandomUniform {
            shape: shape.into(),
            minval: Scalar::Int(0),
            maxval: None,
            dtype: DType::F32,
            seed: None,
            name: None,
        }
    }

    /// The inclusive lower bound (default 0).
    pub fn minval(mut self, v: impl Into<Scalar>) -> Self {
        self.minval = v.into();
        self
    }

    /// The exclusive upper bound (default 1 for floats; required for integers).
    pub fn maxval(mut self, v: impl Into<Scalar>) -> Self {
        self.maxval = Some(v.into());
        self
    }

    /// float32, float64, int32 or int64.
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = dtype;
        self
    }

    /// The op-level seed, combined with the graph's seed by `get_seed`.
    pub fn seed(mut self, seed: i64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// The name scope of the nodes (default `random_uniform`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the nodes; the result is named after the scope.
    pub fn build(self, graph: &Graph) -> Result<Output> {
        let dtype = self.dtype;
        if !matches!(dtype, DType::F32 | DType::F64 | DType::I32 | DType::I64) {
            return Err(Error::invalid_argument(format!(
                "Invalid dtype {dtype} for tf.random.uniform: expected float32, float64, int32 or int64"
            )));
        }
        let scope = graph.name_scope(self.name.as_deref().unwrap_or("random_uniform"));
        let shape = self.shape.to_output(graph)?;
        if dtype.is_integer() {
            let maxval = self.maxval.ok_or_else(|| {
                Error::invalid_argument(format!("Must specify maxval for integer dtype {dtype}"))
            })?;
            let lo = constant_named(graph, self.minval.to_tensor(dtype)?, "min")?;
            let hi = constant_named(graph, maxval.to_tensor(dtype)?, "max")?;
            let (s1, s2) = graph.get_seed(self.seed);
            return crate::new_op(graph, "RandomUniformInt")
                .name(scope.prefix())
                .input(shape)
                .input(lo)
                .input(hi)
                .attr("seed", s1)
                .attr("seed2", s2)
                .build()?
                .output(0);
        }
        let min_is_zero = self.minval.is(0.0);
        let max_is_one = self.maxval.is_none_or(|m| m.is(1.0));
        let bounds = if min_is_zero && max_is_one {
            None
        } else {
            let lo = constant_named(graph, self.minval.to_tensor(dtype)?, "min")?;
            let maxval = self.maxval.unwrap_or(Scalar::Int(1));
            let hi = constant_named(graph, maxval.to_tensor(dtype)?, "max")?;
            Some((lo, hi))
        };
        let (s1, s2) = graph.get_seed(self.seed);
        let rnd = crate::new_op(graph, "RandomUniform")
            .input(shape)
            .attr("dtype", dtype)
            .attr("seed", s1)
            .attr("seed2", s2)
            .build()?
            .output(0)?;
        let Some((lo, hi)) = bounds else {
            return Ok(rnd);
        };
        if min_is_zero {
            return mul(&rnd, &hi);
        }
        let range = sub(&hi, &lo)?;
        let scaled = mul(&rnd, &range)?;
        named(graph, "AddV2", &scaled, &lo, scope.prefix())
    }
}

/// A binary node with an exact name (the scope's own, as Python's `name=name` gives it).
pub(super) fn named(graph: &Graph, op: &str, x: &Output, y: &Output, name: &str) -> Result<Output> {
    crate::new_op(graph, op)
        .name(name)
        .input(x)
        .input(y)
        .build()?
        .output(0)
}

macro_rules! normal_builder {
    ($(#[$doc:meta])* $ty:ident, $op:literal, $scope:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $ty {
            shape: ShapeArg,
            mean: Scalar,
            stddev: Scalar,
            dtype: DType,
            seed: Option<i64>,
            name: Option<String>,
        }

        impl $ty {
            /// Standard normal float32 values of `shape`.
            pub fn new(shape: impl Into<ShapeArg>) -> $ty {
                $ty {
                    shape: shape.into(),
                    mean: Scalar::Float(0.0),
                    stddev: Scalar::Float(1.0),
                    dtype: DType::F32,
                    seed: None,
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

            /// The op-level seed, combined with the graph's seed by `get_seed`.
            pub fn seed(mut self, seed: i64) -> Self {
                self.seed = Some(seed);
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
                        "Invalid dtype {dtype} for {}: expected float32 or float64",
                        $scope
                    )));
                }
                let scope = graph.name_scope(self.name.as_deref().unwrap_or($scope));
                let shape = self.shape.to_output(graph)?;
                let mean = constant_named(graph, self.mean.to_tensor(dtype)?, "mean")?;
                let stddev = constant_named(graph, self.stddev.to_tensor(dtype)?, "stddev")?;
                let (s1, s2) = graph.get_seed(self.seed);
                let rnd = crate::new_op(graph, $op)
                    .input(shape)
                    .attr("dtype", dtype)
                    .attr("seed", s1)
                    .attr("seed2", s2)
                    .build()?
                    .output(0)?;
                let scaled = mul(&rnd, &stddev)?;
                named(graph, "AddV2", &scaled, &mean, scope.prefix())
            }
        }
    };
}

normal_builder!(
    /// The options of `tf.random.normal(shape, mean=0.0, stddev=1.0, dtype=tf.float32, seed=None)`
    /// (op `RandomStandardNormal`).
    ///
    /// ```
    /// # use weir_graph::Graph;
    /// # use weir_ops::random::RandomNormal;
    /// let g = Graph::new();
    /// let noise = RandomNormal::new([128, 10]).stddev(0.1).seed(7).build(&g)?;
    /// assert_eq!(noise.name(), "random_normal:0");
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    RandomNormal,
    "RandomStandardNormal",
    "random_normal"
);

normal_builder!(
    /// The options of `tf.random.truncated_normal(shape, mean=0.0, stddev=1.0,
    /// dtype=tf.float32, seed=None)`: values beyond two standard deviations are redrawn.
    TruncatedNormal,
    "TruncatedNormal",
    "truncated_normal"
);
