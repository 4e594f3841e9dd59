//! The method builders of [`Generator`]: `uniform`, `uniform_full_int`, `normal`,
//! `truncated_normal` and `binomial`, each a scope of nodes as `stateful_random_ops.py` builds it.

use weir_graph::{DType, Error, Output, Result, Tensor};

use super::super::builders::named;
use super::super::{python_value, Scalar, ShapeArg};
use super::generator::{shape_tensor, Generator};
use crate::array::constant_named;

/// The options of `generator.uniform(shape, minval=0, maxval=None, dtype=tf.float32,
/// name=None)`.
#[derive(Clone, Debug)]
pub struct GeneratorUniform {
    gen: Generator,
    shape: ShapeArg,
    minval: Option<Scalar>,
    maxval: Option<Scalar>,
    dtype: DType,
    name: Option<String>,
}

impl GeneratorUniform {
    pub(super) fn new(gen: &Generator, shape: ShapeArg) -> GeneratorUniform {
        GeneratorUniform {
            gen: gen.clone(),
            shape,
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

    /// The dtype (default float32).
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = dtype;
        self
    }

    /// The name scope (default `stateful_uniform`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the nodes; the result is named after the scope.
    pub fn build(self) -> Result<Output> {
        let dtype = self.dtype;
        let (minval, mut maxval) = (self.minval, self.maxval);
        if dtype.is_integer() {
            if minval.is_none() != maxval.is_none() {
                return Err(Error::invalid_argument(format!(
                    "For integer dtype <dtype: '{}'>, minval and maxval must be both `None` or \
                     both non-`None`; got minval={} and maxval={}",
                    dtype.python_name(),
                    python_value(minval),
                    python_value(maxval)
                )));
            }
        } else if maxval.is_none() {
            maxval = Some(Scalar::Int(1));
        }
        let g = self.gen.graph().clone();
        let scope = g.name_scope(self.name.as_deref().unwrap_or("stateful_uniform"));
        let shape = shape_tensor(&g, &self.shape)?;
        let (Some(minval), Some(maxval)) = (minval, maxval) else {
            return self.gen.draw(
                &g,
                "StatelessRandomUniformFullIntV2",
                Some(scope.prefix()),
                &shape,
                &[],
                Some(dtype),
            );
        };
        let lo = constant_named(&g, minval.to_tensor(dtype)?, "min")?;
        let hi = constant_named(&g, maxval.to_tensor(dtype)?, "max")?;
        if dtype.is_integer() {
            return self.gen.draw(
                &g,
                "StatelessRandomUniformIntV2",
                Some(scope.prefix()),
                &shape,
                &[&lo, &hi],
                None,
            );
        }
        let rnd = self.gen.draw(
            &g,
            "StatelessRandomUniformV2",
            None,
            &shape,
            &[],
            Some(dtype),
        )?;
        let range = named(&g, "Sub", &hi, &lo, "sub")?;
        let scaled = named(&g, "Mul", &rnd, &range, "mul")?;
        named(&g, "AddV2", &scaled, &lo, scope.prefix())
    }
}

/// The options of `generator.uniform_full_int(shape, dtype=tf.uint64, name=None)`.
#[derive(Clone, Debug)]
pub struct GeneratorUniformFullInt {
    gen: Generator,
    shape: ShapeArg,
    dtype: DType,
    name: Option<String>,
}

impl GeneratorUniformFullInt {
    pub(super) fn new(gen: &Generator, shape: ShapeArg) -> GeneratorUniformFullInt {
        GeneratorUniformFullInt {
            gen: gen.clone(),
            shape,
            dtype: DType::U64,
            name: None,
        }
    }

    /// int32, int64, uint32 or uint64 (default uint64).
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = dtype;
        self
    }

    /// The name scope (default `stateful_uniform_full_int`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the nodes; the result is named after the scope.
    pub fn build(self) -> Result<Output> {
        let g = self.gen.graph().clone();
        let scope = g.name_scope(self.name.as_deref().unwrap_or("stateful_uniform_full_int"));
        let shape = shape_tensor(&g, &self.shape)?;
        self.gen.draw(
            &g,
            "StatelessRandomUniformFullIntV2",
            Some(scope.prefix()),
            &shape,
            &[],
            Some(self.dtype),
        )
    }
}

/// The options of `generator.normal(...)` and `generator.truncated_normal(...)` (`shape,
/// mean=0.0, stddev=1.0, dtype=tf.float32, name=None`).
#[derive(Clone, Debug)]
pub struct GeneratorNormal {
    gen: Generator,
    shape: ShapeArg,
    truncated: bool,
    mean: Scalar,
    stddev: Scalar,
    dtype: DType,
    name: Option<String>,
}

impl GeneratorNormal {
    pub(super) fn new(gen: &Generator, shape: ShapeArg, truncated: bool) -> GeneratorNormal {
        GeneratorNormal {
            gen: gen.clone(),
            shape,
            truncated,
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

    /// The standard deviation (default 1; before truncation for `truncated_normal`).
    pub fn stddev(mut self, v: impl Into<Scalar>) -> Self {
        self.stddev = v.into();
        self
    }

    /// float16, bfloat16, float32 or float64.
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = dtype;
        self
    }

    /// The name scope (default `stateful_normal`, or `truncated_normal`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the nodes: the V2 op, then `* stddev + mean`.
    pub fn build(self) -> Result<Output> {
        let g = self.gen.graph().clone();
        let default = if self.truncated {
            "truncated_normal"
        } else {
            "stateful_normal"
        };
        let scope = g.name_scope(self.name.as_deref().unwrap_or(default));
        let shape = shape_tensor(&g, &self.shape)?;
        let mean = constant_named(&g, self.mean.to_tensor(self.dtype)?, "mean")?;
        let stddev = constant_named(&g, self.stddev.to_tensor(self.dtype)?, "stddev")?;
        let op = if self.truncated {
            "StatelessTruncatedNormalV2"
        } else {
            "StatelessRandomNormalV2"
        };
        let rnd = self.gen.draw(&g, op, None, &shape, &[], Some(self.dtype))?;
        let scaled = named(&g, "Mul", &rnd, &stddev, "mul")?;
        named(&g, "AddV2", &scaled, &mean, scope.prefix())
    }
}

/// The options of `generator.binomial(shape, counts, probs, dtype=tf.int32, name=None)`
/// (op `StatefulRandomBinomial`, Philox only).
#[derive(Clone, Debug)]
pub struct GeneratorBinomial {
    gen: Generator,
    shape: ShapeArg,
    counts: Tensor,
    probs: Tensor,
    dtype: DType,
    name: Option<String>,
}

impl GeneratorBinomial {
    pub(super) fn new(
        gen: &Generator,
        shape: ShapeArg,
        counts: Tensor,
        probs: Tensor,
    ) -> GeneratorBinomial {
        GeneratorBinomial {
            gen: gen.clone(),
            shape,
            counts,
            probs,
            dtype: DType::I32,
            name: None,
        }
    }

    /// The output dtype (default int32).
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = dtype;
        self
    }

    /// The name scope (default `binomial`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the nodes; the result is named after the scope.
    pub fn build(self) -> Result<Output> {
        let g = self.gen.graph().clone();
        let scope = g.name_scope(self.name.as_deref().unwrap_or("binomial"));
        let counts = constant_named(&g, self.counts, "counts")?;
        let probs = constant_named(&g, self.probs, "probs")?;
        let shape = shape_tensor(&g, &self.shape)?;
        let alg = constant_named(
            &g,
            Tensor::scalar(self.gen.algorithm().id() as i64),
            "algorithm",
        )?;
        crate::new_op(&g, "StatefulRandomBinomial")
            .name(scope.prefix())
            .input(self.gen.state().handle())
            .input(&alg)
            .input(&shape)
            .input(&counts)
            .input(&probs)
            .attr("dtype", self.dtype)
            .build()?
            .output(0)
    }
}
