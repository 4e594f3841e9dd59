//! `ParameterizedTruncatedNormal`: normal samples with per-batch mean, standard deviation and
//! bounds, drawn as TensorFlow's CPU kernel draws them: per batch it picks normal rejection
//! (bounds wide around the mean), uniform rejection (narrow bounds) or exponential rejection
//! (one far bound, made the lower one by reflection), in the element type.
//!
//! TensorFlow's stream depends on how its thread pool shards the batches; weir reproduces the
//! single-shard stream, which is TensorFlow's for outputs under about a thousand elements.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    f16, format_dims, ArgType, DType, Error, Graph, InferenceContext, Kernel, Node, OpContext,
    OpDef, Output, Result, Tensor, TensorType,
};

use super::kernels::with_seed_attrs;
use super::philox::{box_muller_f32, box_muller_f64, u32_to_f16, u32_to_f32, u64_to_f64};
use super::philox::{GuardedPhilox, Philox};
use super::{shape_from_tensor, ShapeArg};

const MAX_ITERATIONS: usize = 1000;
/// Batches are resized to this many samples when all parameters are scalars.
const DESIRED_BATCH: usize = 100;

/// The element types the kernel samples in: arithmetic rounds to the type after every step, as
/// Eigen's half does.
trait Elem:
    Copy
    + PartialOrd
    + TensorType
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
{
    fn c(v: f64) -> Self;
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn sqrt(self) -> Self;
    fn is_finite(self) -> bool;
    /// TensorFlow's `UniformDistribution<PhiloxRandom, T>` of one block (4 or 2 values).
    fn uniform(gen: &mut Philox) -> ([Self; 4], usize);
    /// TensorFlow's `NormalDistribution<PhiloxRandom, T>` of one block.
    fn normal(gen: &mut Philox) -> ([Self; 4], usize);
}

impl Elem for f32 {
    fn c(v: f64) -> f32 {
        v as f32
    }
    fn exp(self) -> f32 {
        f32::exp(self)
    }
    fn ln(self) -> f32 {
        f32::ln(self)
    }
    fn sqrt(self) -> f32 {
        f32::sqrt(self)
    }
    fn is_finite(self) -> bool {
        f32::is_finite(self)
    }
    fn uniform(gen: &mut Philox) -> ([f32; 4], usize) {
        (gen.next_block().map(u32_to_f32), 4)
    }
    fn normal(gen: &mut Philox) -> ([f32; 4], usize) {
        let b = gen.next_block();
        let (a0, a1) = box_muller_f32(b[0], b[1]);
        let (a2, a3) = box_muller_f32(b[2], b[3]);
        ([a0, a1, a2, a3], 4)
    }
}

impl Elem for f64 {
    fn c(v: f64) -> f64 {
        v
    }
    fn exp(self) -> f64 {
        f64::exp(self)
    }
    fn ln(self) -> f64 {
        f64::ln(self)
    }
    fn sqrt(self) -> f64 {
        f64::sqrt(self)
    }
    fn is_finite(self) -> bool {
        f64::is_finite(self)
    }
    fn uniform(gen: &mut Philox) -> ([f64; 4], usize) {
        let b = gen.next_block();
        (
            [u64_to_f64(b[0], b[1]), u64_to_f64(b[2], b[3]), 0.0, 0.0],
            2,
        )
    }
    fn normal(gen: &mut Philox) -> ([f64; 4], usize) {
        let b = gen.next_block();
        let (a0, a1) = box_muller_f64(b[0], b[1], b[2], b[3]);
        ([a0, a1, 0.0, 0.0], 2)
    }
}

impl Elem for f16 {
    fn c(v: f64) -> f16 {
        f16::from_f32(v as f32)
    }
    fn exp(self) -> f16 {
        f16::from_f32(self.to_f32().exp())
    }
    fn ln(self) -> f16 {
        f16::from_f32(self.to_f32().ln())
    }
    fn sqrt(self) -> f16 {
        f16::from_f32(self.to_f32().sqrt())
    }
    fn is_finite(self) -> bool {
        f16::is_finite(self)
    }
    fn uniform(gen: &mut Philox) -> ([f16; 4], usize) {
        (gen.next_block().map(u32_to_f16), 4)
    }
    fn normal(gen: &mut Philox) -> ([f16; 4], usize) {
        let (v, n) = f32::normal(gen);
        (v.map(f16::from_f32), n)
    }
}

fn internal(msg: &str) -> Error {
    Error::internal(msg.to_string())
}

/// The samples of one batch, `out` its slice of the output.
fn sample_batch<T: Elem>(
    gen: &mut Philox,
    out: &mut [T],
    (mean, stddev, minval, maxval): (T, T, T, T),
) -> Result<()> {
    let zero = T::c(0.0);
    if !(stddev > zero && minval < maxval && (minval.is_finite() || maxval.is_finite())) {
        return Err(Error::invalid_argument("Invalid parameters"));
    }
    let (mut minval, mut maxval, mut stddev) = (minval, maxval, stddev);
    // Make a one-sided bound the lower one, or both bounds lie above the mean.
    if (!minval.is_finite() && minval < zero) || maxval < mean {
        std::mem::swap(&mut minval, &mut maxval);
        stddev = -stddev;
    }
    let norm_min = (minval - mean) / stddev;
    let norm_max = (maxval - mean) / stddev;
    let sqrt_factor = (norm_min * norm_min + T::c(4.0)).sqrt();
    let cutoff = T::c(2.0) * (T::c(0.5) + (norm_min * (norm_min - sqrt_factor)) / T::c(4.0)).exp()
        / (norm_min + sqrt_factor);
    let diff = norm_max - norm_min;
    let inside = T::c(1.3);
    let (mut n, mut iterations) = (0usize, 0usize);
    if (norm_min < -inside && norm_max >= zero) || (norm_max > inside && norm_min <= zero) {
        while n < out.len() {
            let (r, size) = T::normal(gen);
            for &x in &r[..size] {
                if x >= norm_min && x <= norm_max {
                    out[n] = x * stddev + mean;
                    n += 1;
                    if n >= out.len() {
                        break;
                    }
                    iterations = 0;
                } else {
                    iterations += 1;
                    if iterations > MAX_ITERATIONS {
                        return Err(internal(
                            "TruncatedNormal randn rejection sampler failed to accept a sample.",
                        ));
                    }
                }
            }
        }
    } else if diff < cutoff {
        let plus = if norm_min < zero {
            zero
        } else {
            norm_min * norm_min
        };
        while n < out.len() {
            let (r, size) = T::uniform(gen);
            let mut z = [zero; 4];
            let mut g = [zero; 4];
            for i in 0..size {
                z[i] = r[i] * diff + norm_min;
                g[i] = (plus - z[i] * z[i]) / T::c(2.0);
            }
            let (u, _) = T::uniform(gen);
            for i in 0..size {
                let accept = u[i] <= g[i].exp();
                if accept || iterations + 1 >= MAX_ITERATIONS {
                    if !accept {
                        return Err(internal(
                            "TruncatedNormal uniform rejection sampler failed to  accept a sample.",
                        ));
                    }
                    out[n] = z[i] * stddev + mean;
                    n += 1;
                    if n >= out.len() {
                        break;
                    }
                    iterations = 0;
                } else {
                    iterations += 1;
                }
            }
        }
    } else {
        let alpha = (norm_min + (norm_min * norm_min + T::c(4.0)).sqrt()) / T::c(2.0);
        while n < out.len() {
            let (r, size) = T::uniform(gen);
            let mut i = 0;
            while i < size {
                let z = -r[i].ln() / alpha + norm_min;
                let x = if norm_min < alpha {
                    alpha - z
                } else {
                    norm_min - alpha
                };
                let g = (-x * x / T::c(2.0)).exp();
                let u = r[i + 1];
                i += 2;
                let accept = u <= g && z < norm_max;
                if accept || iterations + 1 >= MAX_ITERATIONS {
                    if !accept {
                        return Err(internal(
                            "TruncatedNormal exponential distribution rejection sampler failed \
                             to accept a sample.",
                        ));
                    }
                    out[n] = z * stddev + mean;
                    n += 1;
                    if n >= out.len() {
                        break;
                    }
                    iterations = 0;
                } else {
                    iterations += 1;
                }
            }
        }
    }
    Ok(())
}

/// The parameters as the element type, each a scalar or a vector.
fn params<T: Elem>(ts: [&Tensor; 4]) -> Result<[Vec<T>; 4]> {
    let v = |t: &Tensor| -> Result<Vec<T>> { Ok(t.as_slice::<T>()?.to_vec()) };
    Ok([v(ts[0])?, v(ts[1])?, v(ts[2])?, v(ts[3])?])
}

fn fill<T: Elem>(
    gen: Philox,
    dims: &[usize],
    num_batches: usize,
    per_batch: usize,
    ps: [&Tensor; 4],
) -> Result<Tensor> {
    let num_elements: usize = dims.iter().product();
    let [m, s, lo, hi] = params::<T>(ps)?;
    let pick = |v: &[T], b: usize| if v.len() == 1 { v[0] } else { v[b] };
    let mut out = vec![T::c(0.0); num_elements];
    let mut gen = gen;
    for b in 0..num_batches {
        let start = (b * per_batch).min(num_elements);
        let end = ((b + 1) * per_batch).min(num_elements);
        let p = (pick(&m, b), pick(&s, b), pick(&lo, b), pick(&hi, b));
        sample_batch(&mut gen, &mut out[start..end], p)?;
    }
    Tensor::from_vec(dims, out)
}

struct PtnKernel {
    gen: GuardedPhilox,
}

impl Kernel for PtnKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let shape_t = ctx.input(0);
        if shape_t.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "Input shape should be a vector, got shape: {}",
                format_dims(shape_t.shape())
            )));
        }
        if shape_t.num_elements() == 0 {
            return Err(Error::invalid_argument(format!(
                "Shape tensor must not be empty, got Tensor<type: {} shape: [0] values: >",
                shape_t.dtype().python_name()
            )));
        }
        let dims = shape_from_tensor(shape_t)?;
        let ps = [ctx.input(1), ctx.input(2), ctx.input(3), ctx.input(4)];
        let names = ["means", "stddevs", "minvals", "maxvals"];
        for (t, name) in ps.iter().zip(names) {
            if t.rank() > 1 {
                return Err(Error::invalid_argument(format!(
                    "Input {name} should be a scalar or vector, got shape: {}",
                    format_dims(t.shape())
                )));
            }
        }
        let mut num_batches = dims[0];
        let mut per_batch: usize = dims[1..].iter().product();
        let one = |t: &Tensor| t.rank() == 0 || t.shape()[0] == 1;
        if one(ps[0]) && one(ps[1]) && ps[2].rank() == 0 && ps[3].rank() == 0 {
            // Shared parameters: TensorFlow regroups the samples into batches of 100.
            num_batches = (num_batches * per_batch).div_ceil(DESIRED_BATCH);
            per_batch = DESIRED_BATCH;
        } else {
            for (t, name) in ps.iter().zip(names) {
                if !(one(t) || t.shape()[0] == num_batches) {
                    return Err(Error::invalid_argument(format!(
                        "Input {name} should have length 1 or shape[0], got shape: {}",
                        format_dims(t.shape())
                    )));
                }
            }
        }
        let blocks = (num_batches * 2 * MAX_ITERATIONS * (per_batch + 3) / 4) as u64;
        let gen = self.gen.reserve_blocks(blocks);
        let out = match ps[0].dtype() {
            DType::F32 => fill::<f32>(gen, &dims, num_batches, per_batch, ps)?,
            DType::F64 => fill::<f64>(gen, &dims, num_batches, per_batch, ps)?,
            DType::F16 => fill::<f16>(gen, &dims, num_batches, per_batch, ps)?,
            dt => return Err(Error::unimplemented(format!(
                "No OpKernel was registered to support Op 'ParameterizedTruncatedNormal' with dtype {}",
                dt.python_name()
            ))),
        };
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    for i in 1..5 {
        if let Some(r) = ctx.input_shape(i).rank().filter(|&r| r > 1) {
            return Err(Error::invalid_argument(format!(
                "Shape must be at most rank 1 but is rank {r} for '{}' (input {i} has shape {})",
                ctx.op_type,
                ctx.input_shape(i)
            )));
        }
    }
    super::random_shape_fn(ctx)
}

pub(super) fn register() {
    register_op(with_seed_attrs(
        OpDef::new("ParameterizedTruncatedNormal")
            .input("shape", ArgType::Attr("T"))
            .input("means", ArgType::Attr("dtype"))
            .input("stdevs", ArgType::Attr("dtype"))
            .input("minvals", ArgType::Attr("dtype"))
            .input("maxvals", ArgType::Attr("dtype"))
            .output("output", ArgType::Attr("dtype"))
            .type_attr("dtype", &[DType::F16, DType::BF16, DType::F32, DType::F64])
            .type_attr("T", &[DType::I32, DType::I64])
            .shape_fn(shape_fn),
    ));
    register_kernel("ParameterizedTruncatedNormal", |node: &Node| {
        Ok(Box::new(PtnKernel {
            gen: GuardedPhilox::from_node(node)?,
        }))
    });
}

/// The options of TensorFlow's `random_ops.parameterized_truncated_normal(shape, means=0.0,
/// stddevs=1.0, minvals=-2.0, maxvals=2.0, dtype=tf.float32, seed=None, name=None)` (op
/// `ParameterizedTruncatedNormal`, not exported under `tf.random`): the parameters are scalars
/// or vectors over the first dimension of `shape`.
#[derive(Clone, Debug)]
pub struct ParameterizedTruncatedNormal {
    shape: ShapeArg,
    params: [Option<Output>; 4],
    dtype: DType,
    seed: Option<i64>,
    name: Option<String>,
}

impl ParameterizedTruncatedNormal {
    /// Float32 samples of `shape` from the standard normal cut at ±2.
    pub fn new(shape: impl Into<ShapeArg>) -> ParameterizedTruncatedNormal {
        ParameterizedTruncatedNormal {
            shape: shape.into(),
            params: [None, None, None, None],
            dtype: DType::F32,
            seed: None,
            name: None,
        }
    }

    /// The means (default 0).
    pub fn means(mut self, v: impl Into<Output>) -> Self {
        self.params[0] = Some(v.into());
        self
    }

    /// The standard deviations (default 1).
    pub fn stddevs(mut self, v: impl Into<Output>) -> Self {
        self.params[1] = Some(v.into());
        self
    }

    /// The lower bounds (default -2).
    pub fn minvals(mut self, v: impl Into<Output>) -> Self {
        self.params[2] = Some(v.into());
        self
    }

    /// The upper bounds (default 2).
    pub fn maxvals(mut self, v: impl Into<Output>) -> Self {
        self.params[3] = Some(v.into());
        self
    }

    /// float16, float32 (the default) or float64; given parameters must have it.
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = dtype;
        self
    }

    /// The op-level seed, combined with the graph's seed by `get_seed`.
    pub fn seed(mut self, seed: i64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// The name scope (default `parameterized_truncated_normal`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the nodes.
    pub fn build(self, graph: &Graph) -> Result<Output> {
        let _scope = graph.name_scope(
            self.name
                .as_deref()
                .unwrap_or("parameterized_truncated_normal"),
        );
        let shape = self.shape.to_output(graph)?;
        let defaults = [
            (0.0, "means"),
            (1.0, "stddevs"),
            (-2.0, "minvals"),
            (2.0, "maxvals"),
        ];
        let mut inputs = Vec::with_capacity(4);
        for (p, (d, name)) in self.params.into_iter().zip(defaults) {
            inputs.push(match p {
                Some(o) => o,
                None => crate::array::constant_named(
                    graph,
                    weir_graph::scalar_of(self.dtype, d)?,
                    name,
                )?,
            });
        }
        let (s1, s2) = graph.get_seed(self.seed);
        let mut op = crate::new_op(graph, "ParameterizedTruncatedNormal").input(shape);
        for i in inputs {
            op = op.input(i);
        }
        op.attr("seed", s1).attr("seed2", s2).build()?.output(0)
    }
}

/// `parameterized_truncated_normal(shape)` with TensorFlow's defaults. See
/// [`ParameterizedTruncatedNormal`].
pub fn parameterized_truncated_normal(graph: &Graph, shape: impl Into<ShapeArg>) -> Result<Output> {
    ParameterizedTruncatedNormal::new(shape).build(graph)
}
