//! `StatelessRandomBinomial` and the binomial sampler it shares with `StatefulRandomBinomial`:
//! TensorFlow's binomial inversion (for `n * p < 10`) and Hormann's BTRS rejection sampler,
//! each output drawn from its own reserved Philox range, so samples equal TensorFlow's.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    f16, format_dims, ArgType, DType, Error, Graph, InferenceContext, Kernel, OpContext, OpDef,
    Output, Result, Tensor,
};

use super::super::gamma::{as_f64s, Uniforms};
use super::super::philox::Philox;
use super::super::stateless::{check_seed_shape, philox_from_seed};
use super::super::{shape_from_input, type_attr_default, ShapeArg};

/// The number of geometric variables that fit under `count` (binomial inversion).
fn inversion(count: f64, prob: f64, gen: &mut Philox) -> f64 {
    let mut u = Uniforms::new();
    let (mut sum, mut num) = (0.0, 0.0);
    loop {
        let geom = (u.next(gen).ln() / (-prob).ln_1p()).ceil();
        sum += geom;
        if sum > count {
            return num;
        }
        num += 1.0;
    }
}

fn stirling_tail(k: f64) -> f64 {
    const TAIL: [f64; 10] = [
        0.0810614667953272,
        0.0413406959554092,
        0.0276779256849983,
        0.02079067210376509,
        0.0166446911898211,
        0.0138761288230707,
        0.0118967099458917,
        0.0104112652619720,
        0.00925546218271273,
        0.00833056343336287,
    ];
    if k <= 9.0 {
        return TAIL[k as usize];
    }
    let kp1sq = (k + 1.0) * (k + 1.0);
    (1.0 / 12.0 - (1.0 / 360.0 - 1.0 / 1260.0 / kp1sq) / kp1sq) / (k + 1.0)
}

/// Hormann's transformed rejection with squeeze, with TensorFlow's constants.
fn btrs(count: f64, prob: f64, gen: &mut Philox) -> f64 {
    let stddev = (count * prob * (1.0 - prob)).sqrt();
    let b = 1.15 + 2.53 * stddev;
    let a = -0.0873 + 0.0248 * b + 0.01 * prob;
    let c = count * prob + 0.5;
    let v_r = 0.92 - 4.2 / b;
    let r = prob / (1.0 - prob);
    let alpha = (2.83 + 5.1 / b) * stddev;
    let m = ((count + 1.0) * prob).floor();
    let mut uni = Uniforms::new();
    loop {
        let u = uni.next(gen) - 0.5;
        let v = uni.next(gen);
        let us = 0.5 - u.abs();
        let k = ((2.0 * a / us + b) * u + c).floor();
        if us >= 0.07 && v <= v_r {
            return k;
        }
        if k < 0.0 || k > count {
            continue;
        }
        let v = (v * alpha / (a / (us * us) + b)).ln();
        let upper = (m + 0.5) * ((m + 1.0) / (r * (count - m + 1.0))).ln()
            + (count + 1.0) * ((count - m + 1.0) / (count - k + 1.0)).ln()
            + (k + 0.5) * (r * (count - k + 1.0) / (k + 1.0)).ln()
            + stirling_tail(m)
            + stirling_tail(count - m)
            - stirling_tail(k)
            - stirling_tail(count - k);
        if v <= upper {
            return k;
        }
    }
}

/// `a * b` rounded to the parameters' dtype, as TensorFlow compares `count * prob` in `T`.
fn mul_in(dtype: DType, a: f64, b: f64) -> f64 {
    match dtype {
        DType::F16 => f16::from_f32(a as f32 * b as f32).to_f64(),
        DType::F32 => (a as f32 * b as f32) as f64,
        _ => a * b,
    }
}

/// `1 - p` in the parameters' dtype.
fn one_minus_in(dtype: DType, p: f64) -> f64 {
    match dtype {
        DType::F16 => f16::from_f32(1.0 - p as f32).to_f64(),
        DType::F32 => (1.0 - p as f32) as f64,
        _ => 1.0 - p,
    }
}

/// The broadcast of two shapes, or None when they do not broadcast.
fn broadcast(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let n = a.len().max(b.len());
    (0..n)
        .map(|i| {
            let x = if i + a.len() >= n {
                a[i + a.len() - n]
            } else {
                1
            };
            let y = if i + b.len() >= n {
                b[i + b.len() - n]
            } else {
                1
            };
            match (x, y) {
                _ if x == y => Some(x),
                (1, y) => Some(y),
                (x, 1) => Some(x),
                _ => None,
            }
        })
        .collect()
}

/// The flat index into a tensor of shape `dims` (right-aligned in `out`, size-1 dims repeating)
/// of flat index `i` of the broadcast shape `out`.
fn broadcast_index(i: usize, out: &[usize], dims: &[usize]) -> usize {
    let (mut rem, mut idx, mut stride) = (i, 0, 1);
    for (k, &o) in out.iter().enumerate().rev() {
        let pos = rem % o.max(1);
        rem /= o.max(1);
        let j = k as isize - (out.len() - dims.len()) as isize;
        if j >= 0 {
            let d = dims[j as usize];
            if d != 1 {
                idx += pos * stride;
            }
            stride *= d;
        }
    }
    idx
}

/// The validated layout of a binomial draw: the output dims, its batches (the broadcast of
/// `counts` and `probs`, which must end the shape) and the samples per batch.
pub(crate) struct BinomialPlan {
    pub(crate) dims: Vec<usize>,
    batch_shape: Vec<usize>,
    pub(crate) num_batches: usize,
    pub(crate) samples_per_batch: usize,
}

impl BinomialPlan {
    /// TensorFlow's checks, in its order, of `counts`, `probs` and the shape tensor.
    pub(crate) fn new(shape: &Tensor, counts: &Tensor, probs: &Tensor) -> Result<BinomialPlan> {
        let batch_shape = broadcast(counts.shape(), probs.shape()).ok_or_else(|| {
            Error::invalid_argument(format!(
                "counts and probs must have compatible batch dimensions: {} vs. {}",
                format_dims(counts.shape()),
                format_dims(probs.shape())
            ))
        })?;
        if shape.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "Input shape should be a vector, got shape: {}",
                format_dims(shape.shape())
            )));
        }
        let dims = super::super::shape_from_tensor(shape)?;
        if batch_shape.len() > dims.len() || dims[dims.len() - batch_shape.len()..] != batch_shape {
            return Err(Error::invalid_argument(
                "Shape passed in must end with broadcasted shape.",
            ));
        }
        let split = dims.len() - batch_shape.len();
        Ok(BinomialPlan {
            samples_per_batch: dims[..split].iter().product(),
            num_batches: dims[split..].iter().product(),
            dims,
            batch_shape,
        })
    }

    /// The number of outputs.
    pub(crate) fn num_elements(&self) -> usize {
        self.num_batches * self.samples_per_batch
    }

    /// Draws every output from `gen` (TensorFlow's `RandomBinomialFunctor`), as `dtype`.
    pub(crate) fn draw(
        &self,
        counts: &Tensor,
        probs: &Tensor,
        gen: Philox,
        dtype: DType,
    ) -> Result<Tensor> {
        let t = counts.dtype();
        let (cs, ps) = (as_f64s(counts)?, as_f64s(probs)?);
        let (nb, spb) = (self.num_batches, self.samples_per_batch);
        let mut out = vec![0.0f64; nb * spb];
        for batch in 0..nb {
            let count = cs[broadcast_index(batch, &self.batch_shape, counts.shape())];
            let prob = ps[broadcast_index(batch, &self.batch_shape, probs.shape())];
            let slot = |output_idx: usize, per: u64| {
                let mut g = gen;
                g.skip(per * output_idx as u64);
                g
            };
            for s in 0..spb {
                let idx = batch * spb + s;
                out[s * nb + batch] = if count <= 0.0 || prob <= 0.0 {
                    0.0
                } else if prob >= 1.0 {
                    count
                } else if prob <= 0.5 {
                    if mul_in(t, count, prob) >= 10.0 {
                        btrs(count, prob, &mut slot(idx, 256))
                    } else {
                        inversion(count, prob, &mut slot(idx, 42))
                    }
                } else if prob > 0.5 {
                    let q = one_minus_in(t, prob);
                    if mul_in(t, count, q) >= 10.0 {
                        count - btrs(count, q, &mut slot(idx, 256))
                    } else {
                        count - inversion(count, q, &mut slot(idx, 42))
                    }
                } else {
                    f64::NAN
                };
            }
        }
        super::super::poisson::to_dtype(&self.dims, out, dtype)
    }
}

struct StatelessBinomialKernel {
    dtype: DType,
}

impl Kernel for StatelessBinomialKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let seed = ctx.input(1);
        if !(seed.rank() == 1 && seed.shape()[0] == 2) {
            return Err(Error::invalid_argument(format!(
                "seed must have shape [2], not {}",
                format_dims(seed.shape())
            )));
        }
        let (counts, probs) = (ctx.input(2), ctx.input(3));
        let plan = BinomialPlan::new(ctx.input(0), counts, probs)?;
        let out = if plan.num_elements() == 0 {
            super::super::poisson::to_dtype(&plan.dims, vec![], self.dtype)?
        } else {
            plan.draw(counts, probs, philox_from_seed(seed)?, self.dtype)?
        };
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

/// The parameter and output dtypes of the binomial ops.
pub(crate) const BINOMIAL_TYPES: &[DType] =
    &[DType::F16, DType::F32, DType::F64, DType::I32, DType::I64];

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    check_seed_shape(ctx, 1)?;
    let s = shape_from_input(ctx, 0)?;
    ctx.set_output(0, s);
    Ok(())
}

pub(super) fn register() {
    let def = OpDef::new("StatelessRandomBinomial")
        .input("shape", ArgType::Attr("S"))
        .input("seed", ArgType::Attr("Tseed"))
        .input("counts", ArgType::Attr("T"))
        .input("probs", ArgType::Attr("T"))
        .output("output", ArgType::Attr("dtype"))
        .type_attr("S", &[DType::I32, DType::I64])
        .shape_fn(shape_fn);
    let def = type_attr_default(def, "Tseed", &[DType::I32, DType::I64], DType::I64);
    let def = type_attr_default(def, "T", BINOMIAL_TYPES, DType::F64);
    register_op(type_attr_default(def, "dtype", BINOMIAL_TYPES, DType::I64));
    register_kernel("StatelessRandomBinomial", |node| {
        let t: DType = node.attr("T")?;
        if !matches!(t, DType::F16 | DType::F32 | DType::F64) {
            return Err(Error::not_found(format!(
                "No OpKernel was registered to support Op 'StatelessRandomBinomial' used by \
                 {{{{node {}}}}} with these attrs: [T={}]",
                node.name(),
                t.proto_name()
            )));
        }
        Ok(Box::new(StatelessBinomialKernel {
            dtype: node.attr("dtype")?,
        }))
    });
}

/// `StatelessRandomBinomial(shape, seed, counts, probs, dtype)`: binomial samples of `shape`
/// (which ends with the broadcast shape of `counts` and `probs`) as `dtype`.
pub fn stateless_random_binomial(
    graph: &Graph,
    shape: impl Into<ShapeArg>,
    seed: &Output,
    counts: &Output,
    probs: &Output,
    dtype: DType,
) -> Result<Output> {
    let shape = shape.into().to_output(graph)?;
    crate::new_op(graph, "StatelessRandomBinomial")
        .input(&shape)
        .input(seed)
        .input(counts)
        .input(probs)
        .attr("dtype", dtype)
        .build()?
        .output(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_broadcast_into_batches() {
        assert_eq!(broadcast(&[3, 1], &[4]), Some(vec![3, 4]));
        assert_eq!(broadcast(&[2], &[3]), None);
        // Batch 5 of a [3, 4] broadcast is row 1, column 1.
        assert_eq!(broadcast_index(5, &[3, 4], &[3, 1]), 1);
        assert_eq!(broadcast_index(5, &[3, 4], &[4]), 1);
        assert_eq!(broadcast_index(5, &[3, 4], &[]), 0);
    }

    #[test]
    fn degenerate_probabilities_need_no_draws() {
        let shape = Tensor::from(vec![2i32, 3]);
        let counts = Tensor::from(vec![5.0f64, 7.0, 9.0]);
        let probs = Tensor::from(vec![0.0f64, 1.0, -1.0]);
        let plan = BinomialPlan::new(&shape, &counts, &probs).unwrap();
        let t = plan
            .draw(&counts, &probs, Philox::new(1, 2), DType::I64)
            .unwrap();
        assert_eq!(t.to_vec::<i64>().unwrap(), [0, 7, 0, 0, 7, 0]);
    }
}
