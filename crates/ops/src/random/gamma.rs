//! `RandomGamma` and its Python builder `tf.random.gamma`: Marsaglia and Tsang's
//! transformation-rejection sampler, drawn the way TensorFlow's CPU kernel draws it (one Philox
//! range of 256 blocks per output, doubles taken from the end of each block, a uniform power
//! boost for `alpha < 1`), so seeded samples equal TensorFlow's.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    f16, ArgType, DType, Error, Graph, InferenceContext, Kernel, Node, OpContext, OpDef, Output,
    Result, Tensor,
};

use super::kernels::with_seed_attrs;
use super::philox::{box_muller_f64, u64_to_f64, GuardedPhilox, Philox};
use super::{shape_from_input, shape_from_tensor, ShapeArg};
use crate::array::constant_named;
use crate::math::cast::cast_tensor;

/// Philox blocks reserved per output by the gamma and Poisson kernels: each output starts at
/// its own offset, so the values do not depend on how TensorFlow shards the work.
pub(super) const RESERVED_PER_OUTPUT: u64 = 256;

/// TensorFlow's `UniformDistribution<PhiloxRandom, double>` consumed last element first, as the
/// kernels' `UNIFORM` macro does.
pub(super) struct Uniforms {
    buf: [f64; 2],
    left: usize,
}

impl Uniforms {
    /// An empty buffer: the first draw takes a block.
    pub(super) fn new() -> Uniforms {
        Uniforms {
            buf: [0.0; 2],
            left: 0,
        }
    }

    /// The next uniform double in `[0, 1)`.
    pub(super) fn next(&mut self, gen: &mut Philox) -> f64 {
        if self.left == 0 {
            let b = gen.next_block();
            self.buf = [u64_to_f64(b[0], b[1]), u64_to_f64(b[2], b[3])];
            self.left = 2;
        }
        self.left -= 1;
        self.buf[self.left]
    }
}

/// The double values of a float tensor (the sampling kernels compute in double).
pub(super) fn as_f64s(t: &Tensor) -> Result<Vec<f64>> {
    Ok(cast_tensor(t, DType::F64)?.as_slice::<f64>()?.to_vec())
}

/// One gamma sample for shape `alpha` from the generator of its output slot.
fn sample(alpha: f64, d: f64, c: f64, mut gen: Philox) -> f64 {
    let mut unif = Uniforms::new();
    if alpha == 1.0 {
        // Exponential: -log(1 - u).
        return -(-unif.next(&mut gen)).ln_1p();
    }
    let (mut norm, mut norm_left) = ([0.0f64; 2], 0usize);
    loop {
        if norm_left == 0 {
            let b = gen.next_block();
            let (n0, n1) = box_muller_f64(b[0], b[1], b[2], b[3]);
            norm = [n0, n1];
            norm_left = 2;
        }
        norm_left -= 1;
        let x = norm[norm_left];
        let mut v = 1.0 + c * x;
        if v <= 0.0 {
            continue;
        }
        v = v * v * v;
        let u = unif.next(&mut gen);
        // The squeeze first: it skips both logs for most samples.
        if u < 1.0 - 0.0331 * (x * x) * (x * x) || u.ln() < 0.5 * x * x + d * (1.0 - v + v.ln()) {
            let mut res = d * v;
            if alpha < 1.0 {
                let b = unif.next(&mut gen);
                res *= b.powf(1.0 / alpha);
            }
            return res;
        }
    }
}

/// `samples_per_alpha` samples for each alpha, laid out `[samples..., alphas...]`.
pub(super) fn draw(alphas: &[f64], samples_per_alpha: usize, rng: Philox) -> Vec<f64> {
    let num_alphas = alphas.len();
    let mut out = vec![0.0f64; samples_per_alpha * num_alphas];
    for (a_idx, &alpha) in alphas.iter().enumerate() {
        let small = alpha < 1.0;
        let d = alpha + if small { 2.0 / 3.0 } else { -1.0 / 3.0 };
        let c = 1.0 / 3.0 / d.sqrt();
        for s_idx in 0..samples_per_alpha {
            let output_idx = (a_idx * samples_per_alpha + s_idx) as u64;
            let mut gen = rng;
            gen.skip(RESERVED_PER_OUTPUT * output_idx);
            out[s_idx * num_alphas + a_idx] = sample(alpha, d, c, gen);
        }
    }
    out
}

/// Double samples as the output dtype: half through float, as Eigen narrows a double.
pub(super) fn narrow(dims: &[usize], v: Vec<f64>, dtype: DType) -> Result<Tensor> {
    match dtype {
        DType::F64 => Tensor::from_vec(dims, v),
        DType::F32 => Tensor::from_vec(dims, v.into_iter().map(|x| x as f32).collect()),
        DType::F16 => Tensor::from_vec(
            dims,
            v.into_iter().map(|x| f16::from_f32(x as f32)).collect(),
        ),
        dt => Err(Error::internal(format!("random samples of {dt}"))),
    }
}

struct GammaKernel {
    gen: GuardedPhilox,
}

impl Kernel for GammaKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let alpha_t = ctx.input(1).clone();
        let mut dims = shape_from_tensor(ctx.input(0))?;
        let samples_per_alpha: usize = dims.iter().product();
        dims.extend_from_slice(alpha_t.shape());
        let total = samples_per_alpha * alpha_t.num_elements();
        let out = if total == 0 {
            vec![]
        } else {
            let alphas = as_f64s(&alpha_t)?;
            let rng = self.gen.reserve_outputs(total as u64, RESERVED_PER_OUTPUT);
            draw(&alphas, samples_per_alpha, rng)
        };
        ctx.set_output(0, narrow(&dims, out, alpha_t.dtype())?);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

/// The output shape of `RandomGamma` and `RandomPoisson(V2)`: the shape input's value followed
/// by the parameter's shape.
pub(super) fn concat_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = shape_from_input(ctx, 0)?;
    let out = s.concatenate(ctx.input_shape(1));
    ctx.set_output(0, out);
    Ok(())
}

/// The shape input types of the random ops (`S: {int32, int64}`).
pub(super) const SHAPE_TYPES: &[DType] = &[DType::I32, DType::I64];
const GAMMA_TYPES: &[DType] = &[DType::F16, DType::F32, DType::F64];

pub(super) fn register() {
    register_op(with_seed_attrs(
        OpDef::new("RandomGamma")
            .input("shape", ArgType::Attr("S"))
            .input("alpha", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("S", SHAPE_TYPES)
            .type_attr("T", GAMMA_TYPES)
            .shape_fn(concat_shape_fn),
    ));
    register_kernel("RandomGamma", |node: &Node| {
        Ok(Box::new(GammaKernel {
            gen: GuardedPhilox::from_node(node)?,
        }))
    });
}

/// `tf.random.gamma(shape, alpha)`: float32 samples of shape `shape + alpha.shape`, unseeded.
/// See [`RandomGamma`].
pub fn random_gamma(
    graph: &Graph,
    shape: impl Into<ShapeArg>,
    alpha: impl Into<Output>,
) -> Result<Output> {
    RandomGamma::new(shape, alpha).build(graph)
}

/// The options of `tf.random.gamma(shape, alpha, beta=None, dtype=tf.float32, seed=None,
/// name=None)` (`tf.compat.v1.random_gamma`): `RandomGamma` on `alpha` broadcast against
/// `beta`, divided by `beta`, floored at the dtype's smallest normal number as TensorFlow's
/// Python does.
#[derive(Clone, Debug)]
pub struct RandomGamma {
    shape: ShapeArg,
    alpha: Output,
    beta: Option<Output>,
    dtype: DType,
    seed: Option<i64>,
    name: Option<String>,
}

impl RandomGamma {
    /// Samples of `shape` for every alpha.
    pub fn new(shape: impl Into<ShapeArg>, alpha: impl Into<Output>) -> RandomGamma {
        RandomGamma {
            shape: shape.into(),
            alpha: alpha.into(),
            beta: None,
            dtype: DType::F32,
            seed: None,
            name: None,
        }
    }

    /// The inverse scale (default 1), broadcast with `alpha`.
    pub fn beta(mut self, beta: impl Into<Output>) -> Self {
        self.beta = Some(beta.into());
        self
    }

    /// float16, float32 (the default) or float64; `alpha` and `beta` must have it.
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = dtype;
        self
    }

    /// The op-level seed, combined with the graph's seed by `get_seed`.
    pub fn seed(mut self, seed: i64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// The name scope of the nodes (default `random_gamma`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the nodes.
    pub fn build(self, graph: &Graph) -> Result<Output> {
        let dtype = self.dtype;
        if !GAMMA_TYPES.contains(&dtype) {
            return Err(Error::invalid_argument(format!(
                "Invalid dtype {dtype} for tf.random.gamma: expected float16, float32 or float64"
            )));
        }
        for (what, t) in [("alpha", Some(&self.alpha)), ("beta", self.beta.as_ref())] {
            if let Some(t) = t.filter(|t| t.dtype() != dtype) {
                return Err(Error::invalid_argument(format!(
                    "{what}: Tensor conversion requested dtype {} for Tensor with dtype {}",
                    dtype.python_name(),
                    t.dtype().python_name()
                )));
            }
        }
        let _scope = graph.name_scope(self.name.as_deref().unwrap_or("random_gamma"));
        let shape = self.shape.to_output(graph)?;
        let beta = match self.beta {
            Some(b) => b,
            None => constant_named(graph, weir_graph::scalar_of(dtype, 1.0)?, "beta")?,
        };
        let known = (self.alpha.shape().to_known(), beta.shape().to_known());
        let bshape = if let (Some(a), Some(b)) = known {
            // Known shapes broadcast now, which keeps the static shape TensorFlow infers from
            // its constant-folded `BroadcastArgs`.
            let dims = static_broadcast(&a, &b)?;
            let dims = dims.iter().map(|&d| d as i64).collect::<Vec<_>>();
            crate::array::constant(graph, Tensor::from(dims))?
        } else {
            crate::array::broadcast_dynamic_shape(
                crate::array::shape(&self.alpha)?,
                crate::array::shape(&beta)?,
            )?
        };
        let alpha = crate::array::broadcast_to(&self.alpha, bshape)?;
        let (s1, s2) = graph.get_seed(self.seed);
        let rnd = crate::new_op(graph, "RandomGamma")
            .input(shape)
            .input(alpha)
            .attr("seed", s1)
            .attr("seed2", s2)
            .build()?
            .output(0)?;
        let scaled = crate::math::realdiv(rnd, beta)?;
        let tiny = match dtype {
            DType::F16 => f16::MIN_POSITIVE.to_f64(),
            DType::F32 => f32::MIN_POSITIVE as f64,
            _ => f64::MIN_POSITIVE,
        };
        let tiny = crate::array::constant(graph, weir_graph::scalar_of(dtype, tiny)?)?;
        crate::math::maximum(tiny, scaled)
    }
}

/// The broadcast of two known shapes; TensorFlow's shape-function error (raised there by the
/// division by `beta`) when they do not broadcast.
fn static_broadcast(a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let n = a.len().max(b.len());
    let at = |s: &[usize], i: usize| (i + s.len()).checked_sub(n).map_or(1, |j| s[j]);
    (0..n)
        .map(|i| match (at(a, i), at(b, i)) {
            (x, y) if x == y || y == 1 => Ok(x),
            (1, y) => Ok(y),
            (x, y) => Err(Error::invalid_argument(format!(
                "Dimensions must be equal, but are {x} and {y}"
            ))),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_positive_and_seeded() {
        let a = draw(&[0.5, 1.0, 3.0], 4, Philox::new(1, 2));
        let b = draw(&[0.5, 1.0, 3.0], 4, Philox::new(1, 2));
        assert_eq!(a, b);
        assert!(a.iter().all(|&x| x >= 0.0 && x.is_finite()));
    }
}
