//! `RandomPoissonV2` (and the deprecated `RandomPoisson`) and the builder `tf.random.poisson`:
//! Knuth's multiplication method for rates below 10 and Hörmann's transformed rejection above,
//! computed in double and drawn the way TensorFlow's CPU kernel draws (one Philox range of 256
//! blocks per output), so seeded samples equal TensorFlow's.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    f16, ArgType, AttrDef, AttrKind, AttrValue, DType, Error, Graph, Kernel, Node, OpContext,
    OpDef, Output, Result, Tensor,
};

use super::gamma::{as_f64s, concat_shape_fn, Uniforms, RESERVED_PER_OUTPUT, SHAPE_TYPES};
use super::kernels::with_seed_attrs;
use super::philox::{GuardedPhilox, Philox};
use super::{shape_from_tensor, ShapeArg};
use crate::math::lgamma_f64;

/// The largest value of the output dtype, which a sample must not exceed.
fn highest(dtype: DType) -> f64 {
    match dtype {
        DType::F16 => f16::MAX.to_f64(),
        DType::F32 => f32::MAX as f64,
        DType::I32 => i32::MAX as f64,
        DType::I64 => i64::MAX as f64,
        _ => f64::MAX,
    }
}

/// One sample of rate `rate < 10` (Knuth): the number of uniforms whose product stays above
/// `e^-rate`.
fn knuth(exp_neg_rate: f64, highest: f64, mut gen: Philox) -> f64 {
    let mut unif = Uniforms::new();
    let (mut prod, mut x) = (1.0f64, 0.0f64);
    loop {
        prod *= unif.next(&mut gen);
        if prod <= exp_neg_rate && x <= highest {
            return x;
        }
        x += 1.0;
    }
}

/// Hörmann's constants for one rate `>= 10`.
struct Ptrs {
    rate: f64,
    log_rate: f64,
    a: f64,
    b: f64,
    inv_alpha: f64,
}

impl Ptrs {
    fn new(rate: f64) -> Ptrs {
        let b = 0.931 + 2.53 * rate.sqrt();
        Ptrs {
            rate,
            log_rate: rate.ln(),
            a: -0.059 + 0.02483 * b,
            b,
            inv_alpha: 1.1239 + 1.1328 / (b - 3.4),
        }
    }

    /// One sample by transformed rejection: `k = floor(G(u))` accepted against the Poisson
    /// mass, with a quick acceptance box first.
    fn sample(&self, highest: f64, mut gen: Philox) -> f64 {
        let Ptrs {
            rate,
            log_rate,
            a,
            b,
            inv_alpha,
        } = *self;
        let mut unif = Uniforms::new();
        loop {
            let u = unif.next(&mut gen) - 0.5;
            let v = unif.next(&mut gen);
            let u_shifted = 0.5 - u.abs();
            let k = ((2.0 * a / u_shifted + b) * u + rate + 0.43).floor();
            if k > highest {
                continue;
            }
            if u_shifted >= 0.07 && v <= 0.9277 - 3.6224 / (b - 2.0) {
                return k;
            }
            if k < 0.0 || (u_shifted < 0.013 && v > u_shifted) {
                continue;
            }
            let s = (v * inv_alpha / (a / (u_shifted * u_shifted) + b)).ln();
            let t = -rate + k * log_rate - lgamma_f64(k + 1.0);
            if s <= t {
                return k;
            }
        }
    }
}

/// `num_samples` samples per rate, laid out `[samples..., rates...]`, as doubles.
pub(super) fn draw(rates: &[f64], num_samples: usize, dtype: DType, rng: Philox) -> Vec<f64> {
    let num_rate = rates.len();
    let top = highest(dtype);
    let mut out = vec![0.0f64; num_samples * num_rate];
    for (r_idx, &rate) in rates.iter().enumerate() {
        let slot = |s_idx: usize| {
            let mut gen = rng;
            gen.skip(RESERVED_PER_OUTPUT * (r_idx * num_samples + s_idx) as u64);
            gen
        };
        // TensorFlow fills an infinite rate with the dtype's infinity (0 for integers). A NaN
        // rate, or one beyond the range of a half output, never ends TensorFlow's rejection
        // loop; weir gives NaN and infinity there instead of hanging.
        let fixed = if rate.is_nan() {
            Some(f64::NAN)
        } else if rate.is_infinite() && rate > 0.0 || rate >= 10.0 && rate > top {
            Some(f64::INFINITY)
        } else {
            None
        };
        for s_idx in 0..num_samples {
            out[s_idx * num_rate + r_idx] = match fixed {
                Some(v) => v,
                None if rate < 10.0 => knuth((-rate).exp(), top, slot(s_idx)),
                None => Ptrs::new(rate).sample(top, slot(s_idx)),
            };
        }
    }
    out
}

/// Double samples as the output dtype; the non-finite ones become 0 in integer dtypes, as
/// Eigen's integer infinity is 0.
pub(super) fn to_dtype(dims: &[usize], v: Vec<f64>, dtype: DType) -> Result<Tensor> {
    let int = |x: f64| if x.is_finite() { x } else { 0.0 };
    match dtype {
        DType::I32 => Tensor::from_vec(dims, v.into_iter().map(|x| int(x) as i32).collect()),
        DType::I64 => Tensor::from_vec(dims, v.into_iter().map(|x| int(x) as i64).collect()),
        dt => super::gamma::narrow(dims, v, dt),
    }
}

struct PoissonKernel {
    gen: GuardedPhilox,
    dtype: DType,
}

impl Kernel for PoissonKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let rate_t = ctx.input(1).clone();
        let mut dims = shape_from_tensor(ctx.input(0))?;
        let num_samples: usize = dims.iter().product();
        dims.extend_from_slice(rate_t.shape());
        let total = num_samples * rate_t.num_elements();
        let out = if total == 0 {
            vec![]
        } else {
            let rates = as_f64s(&rate_t)?;
            let rng = self.gen.reserve_outputs(total as u64, RESERVED_PER_OUTPUT);
            draw(&rates, num_samples, self.dtype, rng)
        };
        ctx.set_output(0, to_dtype(&dims, out, self.dtype)?);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

const POISSON_TYPES: &[DType] = &[DType::F16, DType::F32, DType::F64, DType::I32, DType::I64];

fn type_attr(mut def: OpDef, name: &'static str, default: DType) -> OpDef {
    def.attrs.push(AttrDef {
        name,
        kind: AttrKind::Type,
        default: Some(AttrValue::Type(default)),
        allowed: Some(POISSON_TYPES),
        min: None,
    });
    def
}

pub(super) fn register() {
    let v2 = OpDef::new("RandomPoissonV2")
        .input("shape", ArgType::Attr("S"))
        .input("rate", ArgType::Attr("R"))
        .output("output", ArgType::Attr("dtype"))
        .type_attr("S", SHAPE_TYPES)
        .shape_fn(concat_shape_fn);
    let v2 = type_attr(type_attr(v2, "R", DType::F64), "dtype", DType::I64);
    register_op(with_seed_attrs(v2));
    register_kernel("RandomPoissonV2", |node: &Node| {
        Ok(Box::new(PoissonKernel {
            gen: GuardedPhilox::from_node(node)?,
            dtype: node.attr("dtype")?,
        }))
    });
    register_op(with_seed_attrs(
        OpDef::new("RandomPoisson")
            .input("shape", ArgType::Attr("S"))
            .input("rate", ArgType::Attr("dtype"))
            .output("output", ArgType::Attr("dtype"))
            .type_attr("S", SHAPE_TYPES)
            .type_attr("dtype", &[DType::F16, DType::F32, DType::F64])
            .shape_fn(concat_shape_fn),
    ));
    register_kernel("RandomPoisson", |node: &Node| {
        Ok(Box::new(PoissonKernel {
            gen: GuardedPhilox::from_node(node)?,
            dtype: node.attr("dtype")?,
        }))
    });
}

/// `tf.random.poisson(lam, shape)` (v1 argument order; `tf.random.poisson(shape, lam)` in v2):
/// float32 samples of shape `shape + lam.shape`, unseeded. See [`RandomPoisson`].
pub fn random_poisson(
    graph: &Graph,
    shape: impl Into<ShapeArg>,
    lam: impl Into<Output>,
) -> Result<Output> {
    RandomPoisson::new(shape, lam).build(graph)
}

/// The options of `tf.random.poisson(shape, lam, dtype=tf.float32, seed=None, name=None)`
/// (op `RandomPoissonV2`): `lam` may be float16, float32, float64, int32 or int64, and so may
/// the samples.
#[derive(Clone, Debug)]
pub struct RandomPoisson {
    shape: ShapeArg,
    lam: Output,
    dtype: DType,
    seed: Option<i64>,
    name: Option<String>,
}

impl RandomPoisson {
    /// Samples of `shape` for every rate in `lam`.
    pub fn new(shape: impl Into<ShapeArg>, lam: impl Into<Output>) -> RandomPoisson {
        RandomPoisson {
            shape: shape.into(),
            lam: lam.into(),
            dtype: DType::F32,
            seed: None,
            name: None,
        }
    }

    /// The samples' dtype (default float32).
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = dtype;
        self
    }

    /// The op-level seed, combined with the graph's seed by `get_seed`.
    pub fn seed(mut self, seed: i64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// The name scope of the nodes (default `random_poisson`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the nodes.
    pub fn build(self, graph: &Graph) -> Result<Output> {
        if !POISSON_TYPES.contains(&self.dtype) {
            return Err(Error::invalid_argument(format!(
                "Value for attr 'dtype' of {} is not in the list of allowed values: half, \
                 float, double, int32, int64",
                self.dtype.python_name()
            )));
        }
        let _scope = graph.name_scope(self.name.as_deref().unwrap_or("random_poisson"));
        let shape = self.shape.to_output(graph)?;
        let (s1, s2) = graph.get_seed(self.seed);
        crate::new_op(graph, "RandomPoissonV2")
            .input(shape)
            .input(self.lam)
            .attr("dtype", self.dtype)
            .attr("seed", s1)
            .attr("seed2", s2)
            .build()?
            .output(0)
    }
}
