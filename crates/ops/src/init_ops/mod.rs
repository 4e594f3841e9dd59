//! Variable initializers (`tf.initializers`: zeros, ones, constant, random_uniform,
//! random_normal, truncated_normal, variance_scaling, glorot_uniform, glorot_normal) and the op
//! their random members draw with.
//!
//! The random initializers are one weir op, `RandomInitializer(shape, a, b)` with a
//! `distribution` attr, rather than TensorFlow's `RandomUniform` + `Sub` + `Mul` + `Add`
//! chain: it samples with TensorFlow's generator and distributions (Philox4x32-10, reserving
//! as TensorFlow's kernels do) and applies TensorFlow's affine step in the same dtype, so a
//! seeded initializer yields TensorFlow's numbers. It stands alone so that initializers work
//! without the random-ops family.

pub(crate) mod philox;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, Graph, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor,
};

use philox::{Dist, GuardedPhilox, Sample};

/// How `variance_scaling` divides its scale: TensorFlow's `mode` argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FanMode {
    /// `"fan_in"`: the number of input units.
    FanIn,
    /// `"fan_out"`: the number of output units.
    FanOut,
    /// `"fan_avg"`: their average.
    FanAvg,
}

/// What `variance_scaling` samples from: TensorFlow's `distribution` argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalingDistribution {
    /// `"truncated_normal"` (and the legacy `"normal"`): a normal cut at two standard
    /// deviations, its stddev corrected by 0.8796... so the variance is `scale / n`.
    TruncatedNormal,
    /// `"untruncated_normal"`.
    UntruncatedNormal,
    /// `"uniform"`: within `[-limit, limit]`, `limit = sqrt(3 * scale / n)`.
    Uniform,
}

/// A variable initializer: TensorFlow's `tf.compat.v1.initializers` classes. Build the
/// initial value of a given shape and dtype with [`Initializer::build`].
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::init_ops::Initializer;
/// let g = Graph::new();
/// let w = Initializer::glorot_uniform().seed(3).build(&g, &[784, 10], DType::F32)?;
/// assert_eq!(w.shape(), weir_graph::Shape::known(&[784, 10]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub enum Initializer {
    /// `tf.zeros_initializer()`.
    Zeros,
    /// `tf.ones_initializer()`.
    Ones,
    /// `tf.constant_initializer(value)`: a scalar fills the shape; otherwise the value must
    /// have as many elements as the shape.
    Constant(Tensor),
    /// `tf.random_uniform_initializer(minval, maxval, seed)`.
    RandomUniform {
        /// Lower bound (inclusive).
        minval: f64,
        /// Upper bound (exclusive).
        maxval: f64,
        /// The op-level seed.
        seed: Option<i64>,
    },
    /// `tf.random_normal_initializer(mean, stddev, seed)`.
    RandomNormal {
        /// Mean.
        mean: f64,
        /// Standard deviation.
        stddev: f64,
        /// The op-level seed.
        seed: Option<i64>,
    },
    /// `tf.truncated_normal_initializer(mean, stddev, seed)`.
    TruncatedNormal {
        /// Mean.
        mean: f64,
        /// Standard deviation before truncation.
        stddev: f64,
        /// The op-level seed.
        seed: Option<i64>,
    },
    /// `tf.variance_scaling_initializer(scale, mode, distribution, seed)`.
    VarianceScaling {
        /// Scale (1.0 by default).
        scale: f64,
        /// Which fan divides the scale.
        mode: FanMode,
        /// What to sample from.
        distribution: ScalingDistribution,
        /// The op-level seed.
        seed: Option<i64>,
    },
}

impl Initializer {
    /// `tf.constant_initializer(value)`.
    pub fn constant(value: impl Into<Tensor>) -> Initializer {
        Initializer::Constant(value.into())
    }

    /// `tf.random_uniform_initializer(minval=0, maxval=1)`.
    pub fn random_uniform(minval: f64, maxval: f64) -> Initializer {
        Initializer::RandomUniform {
            minval,
            maxval,
            seed: None,
        }
    }

    /// `tf.random_normal_initializer(mean=0.0, stddev=1.0)`.
    pub fn random_normal(mean: f64, stddev: f64) -> Initializer {
        Initializer::RandomNormal {
            mean,
            stddev,
            seed: None,
        }
    }

    /// `tf.truncated_normal_initializer(mean=0.0, stddev=1.0)`.
    pub fn truncated_normal(mean: f64, stddev: f64) -> Initializer {
        Initializer::TruncatedNormal {
            mean,
            stddev,
            seed: None,
        }
    }

    /// `tf.variance_scaling_initializer(scale, mode, distribution)` (TensorFlow 1.x defaults:
    /// scale 1.0, `fan_in`, truncated normal).
    pub fn variance_scaling(
        scale: f64,
        mode: FanMode,
        distribution: ScalingDistribution,
    ) -> Initializer {
        Initializer::VarianceScaling {
            scale,
            mode,
            distribution,
            seed: None,
        }
    }

    /// `tf.glorot_uniform_initializer()`: variance scaling 1.0, `fan_avg`, uniform. The
    /// default initializer of `get_variable` for floats.
    pub fn glorot_uniform() -> Initializer {
        Initializer::variance_scaling(1.0, FanMode::FanAvg, ScalingDistribution::Uniform)
    }

    /// `tf.glorot_normal_initializer()`: variance scaling 1.0, `fan_avg`, truncated normal.
    pub fn glorot_normal() -> Initializer {
        Initializer::variance_scaling(1.0, FanMode::FanAvg, ScalingDistribution::TruncatedNormal)
    }

    /// The same initializer with op-level seed `seed` (ignored by the constant ones).
    pub fn seed(mut self, s: i64) -> Initializer {
        match &mut self {
            Initializer::RandomUniform { seed, .. }
            | Initializer::RandomNormal { seed, .. }
            | Initializer::TruncatedNormal { seed, .. }
            | Initializer::VarianceScaling { seed, .. } => *seed = Some(s),
            _ => {}
        }
        self
    }

    /// Adds the ops computing an initial value of `shape` and `dtype` in the current name
    /// scope (`zeros`, `ones`, `Const`, `random_uniform`, `random_normal`, `truncated_normal`),
    /// seeded per TensorFlow's rules from the graph seed and this initializer's seed.
    pub fn build(&self, graph: &Graph, shape: &[usize], dtype: DType) -> Result<Output> {
        match self {
            Initializer::Zeros => fill(graph, shape, dtype, 0.0, "zeros"),
            Initializer::Ones => fill(graph, shape, dtype, 1.0, "ones"),
            Initializer::Constant(t) => {
                let n: usize = shape.iter().product();
                let vals = to_f64s(t)?;
                let data = if vals.len() == 1 {
                    vec![vals[0]; n]
                } else if vals.len() == n {
                    vals
                } else {
                    return Err(Error::invalid_argument(format!(
                        "Expected Tensor's shape: {}, got {}.",
                        format_dims(shape),
                        format_dims(t.shape())
                    )));
                };
                let value = from_f64s(dtype, shape, &data)?;
                crate::array::constant_named(graph, value, "Const")
            }
            Initializer::RandomUniform {
                minval,
                maxval,
                seed,
            } => random(graph, shape, dtype, Dist::Uniform, *minval, *maxval, *seed),
            Initializer::RandomNormal { mean, stddev, seed } => {
                random(graph, shape, dtype, Dist::Normal, *mean, *stddev, *seed)
            }
            Initializer::TruncatedNormal { mean, stddev, seed } => random(
                graph,
                shape,
                dtype,
                Dist::TruncatedNormal,
                *mean,
                *stddev,
                *seed,
            ),
            Initializer::VarianceScaling {
                scale,
                mode,
                distribution,
                seed,
            } => {
                if *scale <= 0.0 {
                    return Err(Error::invalid_argument(format!(
                        "`scale` must be positive float. Got: {scale}"
                    )));
                }
                let (fan_in, fan_out) = compute_fans(shape);
                let n = match mode {
                    FanMode::FanIn => fan_in,
                    FanMode::FanOut => fan_out,
                    FanMode::FanAvg => (fan_in + fan_out) / 2.0,
                };
                let s = scale / n.max(1.0);
                match distribution {
                    ScalingDistribution::TruncatedNormal => {
                        // The standard deviation of a unit normal cut at +-2.
                        let stddev = s.sqrt() / 0.879_625_661_034_239_8;
                        random(
                            graph,
                            shape,
                            dtype,
                            Dist::TruncatedNormal,
                            0.0,
                            stddev,
                            *seed,
                        )
                    }
                    ScalingDistribution::UntruncatedNormal => {
                        random(graph, shape, dtype, Dist::Normal, 0.0, s.sqrt(), *seed)
                    }
                    ScalingDistribution::Uniform => {
                        let limit = (3.0 * s).sqrt();
                        random(graph, shape, dtype, Dist::Uniform, -limit, limit, *seed)
                    }
                }
            }
        }
    }
}

/// TensorFlow's `_compute_fans`: (fan_in, fan_out) of a weight shape; convolution kernels
/// multiply by their receptive field.
pub fn compute_fans(shape: &[usize]) -> (f64, f64) {
    match shape.len() {
        0 => (1.0, 1.0),
        1 => (shape[0] as f64, shape[0] as f64),
        2 => (shape[0] as f64, shape[1] as f64),
        r => {
            let field: usize = shape[..r - 2].iter().product();
            ((shape[r - 2] * field) as f64, (shape[r - 1] * field) as f64)
        }
    }
}

fn fill(graph: &Graph, shape: &[usize], dtype: DType, v: f64, name: &str) -> Result<Output> {
    let n: usize = shape.iter().product();
    let value = match dtype {
        DType::Bool => Tensor::from_vec(shape, vec![v != 0.0; n])?,
        DType::String if v == 0.0 => Tensor::zeros(DType::String, shape)?,
        _ => from_f64s(dtype, shape, &vec![v; n])?,
    };
    crate::array::constant_named(graph, value, name)
}

/// The elements of a real-number tensor as `f64`.
fn to_f64s(t: &Tensor) -> Result<Vec<f64>> {
    let dt = t.dtype();
    if !dt.is_numeric() {
        return Err(Error::invalid_argument(format!(
            "A constant initializer needs numbers, got {dt}"
        )));
    }
    crate::math::cast::cast_tensor(t, DType::F64)?.to_vec::<f64>()
}

/// A tensor of `dtype` from `f64` values, converted as numpy's `astype` does.
fn from_f64s(dtype: DType, shape: &[usize], v: &[f64]) -> Result<Tensor> {
    if !dtype.is_numeric() {
        return Err(Error::invalid_argument(format!(
            "Cannot initialize a {dtype} variable with numbers"
        )));
    }
    crate::math::cast::cast_tensor(&Tensor::from_vec(shape, v.to_vec())?, dtype)
}

fn random(
    graph: &Graph,
    shape: &[usize],
    dtype: DType,
    dist: Dist,
    a: f64,
    b: f64,
    seed: Option<i64>,
) -> Result<Output> {
    if !dtype.is_floating() {
        return Err(Error::invalid_argument(format!(
            "Random initializers need a floating-point dtype, got {dtype}"
        )));
    }
    let (base, a_name, b_name) = match dist {
        Dist::Uniform => ("random_uniform", "min", "max"),
        Dist::Normal => ("random_normal", "mean", "stddev"),
        Dist::TruncatedNormal => ("truncated_normal", "mean", "stddev"),
    };
    let scope = graph.name_scope(base);
    let dims: Vec<i32> = shape.iter().map(|&d| d as i32).collect();
    let shape_t = crate::array::constant_named(graph, dims, "shape")?;
    let a = crate::array::constant_named(graph, from_f64s(dtype, &[], &[a])?, a_name)?;
    let b = crate::array::constant_named(graph, from_f64s(dtype, &[], &[b])?, b_name)?;
    let (seed, seed2) = graph.get_seed(seed);
    // The node takes the scope's own name, as TensorFlow's final Add does.
    let name = scope.prefix().to_string();
    crate::new_op(graph, "RandomInitializer")
        .name(name)
        .input(shape_t)
        .input(a)
        .input(b)
        .attr("dtype", dtype)
        .attr("distribution", dist_name(dist))
        .attr("seed", seed)
        .attr("seed2", seed2)
        .build()?
        .output(0)
}

fn dist_name(d: Dist) -> &'static str {
    match d {
        Dist::Uniform => "uniform",
        Dist::Normal => "normal",
        Dist::TruncatedNormal => "truncated_normal",
    }
}

struct RandomInitKernel {
    dist: Dist,
    gen: GuardedPhilox,
}

fn draw<T: Sample + weir_graph::TensorType + num_traits::Float>(
    k: &RandomInitKernel,
    shape: &[usize],
    a: &Tensor,
    b: &Tensor,
) -> Result<Tensor> {
    let n: usize = shape.iter().product();
    let (a, b) = (a.to_scalar::<T>()?, b.to_scalar::<T>()?);
    let mut out = vec![T::default(); n];
    T::fill(k.gen.reserve_outputs(n), k.dist, &mut out);
    match k.dist {
        Dist::Uniform => {
            let range = b - a;
            for v in &mut out {
                *v = *v * range + a;
            }
        }
        _ => {
            for v in &mut out {
                *v = *v * b + a;
            }
        }
    }
    Tensor::from_vec(shape, out)
}

impl Kernel for RandomInitKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let dims = ctx.input(0).as_slice::<i32>()?;
        if let Some(d) = dims.iter().find(|&&d| d < 0) {
            return Err(Error::invalid_argument(format!(
                "Dimension {d} must be >= 0"
            )));
        }
        let shape: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
        let (a, b) = (ctx.input(1), ctx.input(2));
        let out = match a.dtype() {
            DType::F32 => draw::<f32>(self, &shape, a, b)?,
            DType::F64 => draw::<f64>(self, &shape, a, b)?,
            DType::F16 => draw::<weir_graph::f16>(self, &shape, a, b)?,
            DType::BF16 => draw::<weir_graph::bf16>(self, &shape, a, b)?,
            dt => return Err(Error::invalid_argument(format!("Unsupported dtype {dt}"))),
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let dist = match node.attr::<String>("distribution")?.as_str() {
        "uniform" => Dist::Uniform,
        "normal" => Dist::Normal,
        "truncated_normal" => Dist::TruncatedNormal,
        other => {
            return Err(Error::invalid_argument(format!(
                "Unknown distribution '{other}'"
            )))
        }
    };
    Ok(Box::new(RandomInitKernel {
        dist,
        gen: GuardedPhilox::new(node.attr("seed")?, node.attr("seed2")?),
    }))
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = match ctx.input_const(0) {
        Some(t) => Shape::from_i64(
            &t.as_slice::<i32>()?
                .iter()
                .map(|&d| d as i64)
                .collect::<Vec<_>>(),
        ),
        None => Shape::unknown(),
    };
    ctx.set_output(0, s);
    Ok(())
}

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    register_op(
        OpDef::new("RandomInitializer")
            .input("shape", ArgType::Fixed(DType::I32))
            .input("a", ArgType::Attr("dtype"))
            .input("b", ArgType::Attr("dtype"))
            .output("output", ArgType::Attr("dtype"))
            .type_attr("dtype", &[DType::F16, DType::BF16, DType::F32, DType::F64])
            .attr("distribution", AttrKind::Str, None)
            .attr("seed", AttrKind::Int, Some(AttrValue::Int(0)))
            .attr("seed2", AttrKind::Int, Some(AttrValue::Int(0)))
            .stateful()
            .shape_fn(shape_fn),
    );
    register_kernel("RandomInitializer", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fans_follow_tensorflow() {
        assert_eq!(compute_fans(&[]), (1.0, 1.0));
        assert_eq!(compute_fans(&[5]), (5.0, 5.0));
        assert_eq!(compute_fans(&[784, 10]), (784.0, 10.0));
        assert_eq!(compute_fans(&[5, 5, 3, 64]), (75.0, 1600.0));
    }

    #[test]
    fn conversions_round_trip() {
        let t = from_f64s(DType::I32, &[2], &[1.0, -2.0]).unwrap();
        assert_eq!(t.to_vec::<i32>().unwrap(), vec![1, -2]);
        assert_eq!(to_f64s(&t).unwrap(), vec![1.0, -2.0]);
        assert!(from_f64s(DType::String, &[], &[1.0]).is_err());
    }
}
