//! The stateless gamma and Poisson ops: `StatelessRandomGammaV3` (key, counter, algorithm),
//! `StatelessRandomGammaV2` and `StatelessRandomPoisson` (seed). They draw exactly as the
//! stateful `RandomGamma` and `RandomPoissonV2` kernels do, from the generator of their key and
//! counter (or seed), into an output of the requested shape, which must end with the
//! parameter's shape.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, Graph, InferenceContext, Kernel, OpContext, OpDef, Output, Result,
};

use super::super::philox::Philox;
use super::super::stateless::{check_seed_shape, philox_from_seed};
use super::super::ShapeArg;
use super::super::{gamma, poisson, shape_from_input, shape_from_tensor, type_attr_default};
use super::{check_vector_len, KeyCounterAlg};

/// TensorFlow's `EndsWith(samples_shape, param_shape)` check of the stateless samplers.
fn check_ends_with(shape: &[usize], param: &[usize]) -> Result<()> {
    if param.len() > shape.len() || shape[shape.len() - param.len()..] != *param {
        return Err(Error::invalid_argument(
            "Shape passed in must end with broadcasted shape.",
        ));
    }
    Ok(())
}

/// Where a stateless sampler's generator comes from.
#[derive(Clone, Copy)]
enum Source {
    /// A `seed` input at index 1.
    Seed,
    /// `key`, `counter`, `alg` inputs at 1..=3.
    KeyCounter,
}

struct GammaKernel {
    source: Source,
}

impl Kernel for GammaKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (kca, alpha_index) = match self.source {
            Source::KeyCounter => (
                Some(KeyCounterAlg::from_inputs(
                    ctx.input(1),
                    ctx.input(2),
                    ctx.input(3),
                    3,
                )?),
                4,
            ),
            Source::Seed => (None, 2),
        };
        let shape = shape_from_tensor(ctx.input(0))?;
        let seed_gen = match self.source {
            Source::Seed => Some(philox_from_seed(ctx.input(1))?),
            Source::KeyCounter => None,
        };
        let alpha = ctx.input(alpha_index).clone();
        let n: usize = shape.iter().product();
        if n == 0 {
            ctx.set_output(0, gamma::narrow(&shape, vec![], alpha.dtype())?);
            return Ok(());
        }
        check_ends_with(&shape, alpha.shape())?;
        let num_alphas = alpha.num_elements();
        if num_alphas == 0 {
            return Err(Error::invalid_argument(format!(
                "Input alpha should have non-zero element count, got: {num_alphas}"
            )));
        }
        let gen: Philox = match (seed_gen, kca) {
            (Some(g), _) => g,
            (None, Some(kca)) => kca.philox()?,
            (None, None) => return Err(Error::internal("a gamma kernel without a generator")),
        };
        let alphas = gamma::as_f64s(&alpha)?;
        let out = gamma::draw(&alphas, n / num_alphas, gen);
        ctx.set_output(0, gamma::narrow(&shape, out, alpha.dtype())?);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

struct PoissonKernel {
    dtype: DType,
}

impl Kernel for PoissonKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let shape = shape_from_tensor(ctx.input(0))?;
        let gen = philox_from_seed(ctx.input(1))?;
        let lam = ctx.input(2).clone();
        let n: usize = shape.iter().product();
        if n == 0 {
            ctx.set_output(0, poisson::to_dtype(&shape, vec![], self.dtype)?);
            return Ok(());
        }
        check_ends_with(&shape, lam.shape())?;
        let rates = gamma::as_f64s(&lam)?;
        let out = if rates.is_empty() {
            vec![]
        } else {
            poisson::draw(&rates, n / rates.len(), self.dtype, gen)
        };
        ctx.set_output(0, poisson::to_dtype(&shape, out, self.dtype)?);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

fn seed_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    check_seed_shape(ctx, 1)?;
    let s = shape_from_input(ctx, 0)?;
    ctx.set_output(0, s);
    Ok(())
}

fn key_counter_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    check_vector_len(ctx, 1, 1)?;
    ctx.with_rank(2, 1)?;
    ctx.with_rank(3, 0)?;
    let s = shape_from_input(ctx, 0)?;
    ctx.set_output(0, s);
    Ok(())
}

const GAMMA_TYPES: &[DType] = &[DType::F16, DType::F32, DType::F64];
const POISSON_TYPES: &[DType] = &[DType::F16, DType::F32, DType::F64, DType::I32, DType::I64];
const INT_TYPES: &[DType] = &[DType::I32, DType::I64];

pub(super) fn register() {
    register_op(type_attr_default(
        OpDef::new("StatelessRandomGammaV3")
            .input("shape", ArgType::Attr("shape_dtype"))
            .input("key", ArgType::Fixed(DType::U64))
            .input("counter", ArgType::Fixed(DType::U64))
            .input("alg", ArgType::Fixed(DType::I32))
            .input("alpha", ArgType::Attr("dtype"))
            .output("output", ArgType::Attr("dtype"))
            .type_attr("dtype", GAMMA_TYPES)
            .shape_fn(key_counter_shape_fn),
        "shape_dtype",
        INT_TYPES,
        DType::I32,
    ));
    register_kernel("StatelessRandomGammaV3", |_| {
        Ok(Box::new(GammaKernel {
            source: Source::KeyCounter,
        }))
    });
    register_op(type_attr_default(
        OpDef::new("StatelessRandomGammaV2")
            .input("shape", ArgType::Attr("T"))
            .input("seed", ArgType::Attr("Tseed"))
            .input("alpha", ArgType::Attr("dtype"))
            .output("output", ArgType::Attr("dtype"))
            .type_attr("dtype", GAMMA_TYPES)
            .type_attr("T", INT_TYPES)
            .shape_fn(seed_shape_fn),
        "Tseed",
        INT_TYPES,
        DType::I64,
    ));
    register_kernel("StatelessRandomGammaV2", |_| {
        Ok(Box::new(GammaKernel {
            source: Source::Seed,
        }))
    });
    register_op(type_attr_default(
        OpDef::new("StatelessRandomPoisson")
            .input("shape", ArgType::Attr("T"))
            .input("seed", ArgType::Attr("Tseed"))
            .input("lam", ArgType::Attr("Rtype"))
            .output("output", ArgType::Attr("dtype"))
            .type_attr("Rtype", POISSON_TYPES)
            .type_attr("dtype", POISSON_TYPES)
            .type_attr("T", INT_TYPES)
            .shape_fn(seed_shape_fn),
        "Tseed",
        INT_TYPES,
        DType::I64,
    ));
    register_kernel("StatelessRandomPoisson", |node| {
        Ok(Box::new(PoissonKernel {
            dtype: node.attr("dtype")?,
        }))
    });
}

/// `StatelessRandomGammaV3(shape, key, counter, alg, alpha)`: gamma samples of `shape` (which
/// ends with `alpha`'s shape) with concentrations `alpha` (float16, float32 or float64).
pub fn stateless_random_gamma_v3(
    graph: &Graph,
    shape: impl Into<ShapeArg>,
    key: &Output,
    counter: &Output,
    alg: &Output,
    alpha: &Output,
) -> Result<Output> {
    let shape = shape.into().to_output(graph)?;
    crate::new_op(graph, "StatelessRandomGammaV3")
        .input(&shape)
        .input(key)
        .input(counter)
        .input(alg)
        .input(alpha)
        .build()?
        .output(0)
}

/// `StatelessRandomGammaV2(shape, seed, alpha)`: gamma samples drawn from a shape-`[2]` seed.
pub fn stateless_random_gamma_v2(
    graph: &Graph,
    shape: impl Into<ShapeArg>,
    seed: &Output,
    alpha: &Output,
) -> Result<Output> {
    let shape = shape.into().to_output(graph)?;
    crate::new_op(graph, "StatelessRandomGammaV2")
        .input(&shape)
        .input(seed)
        .input(alpha)
        .build()?
        .output(0)
}

/// `StatelessRandomPoisson(shape, seed, lam, dtype)`: Poisson samples of `shape` (which ends
/// with `lam`'s shape) as `dtype`.
pub fn stateless_random_poisson(
    graph: &Graph,
    shape: impl Into<ShapeArg>,
    seed: &Output,
    lam: &Output,
    dtype: DType,
) -> Result<Output> {
    let shape = shape.into().to_output(graph)?;
    crate::new_op(graph, "StatelessRandomPoisson")
        .input(&shape)
        .input(seed)
        .input(lam)
        .attr("dtype", dtype)
        .build()?
        .output(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_must_end_the_shape() {
        assert!(check_ends_with(&[4, 2, 3], &[2, 3]).is_ok());
        assert!(check_ends_with(&[4], &[]).is_ok());
        let e = check_ends_with(&[3, 2], &[3]).unwrap_err();
        assert_eq!(
            e.message(),
            "Shape passed in must end with broadcasted shape."
        );
        assert!(check_ends_with(&[2], &[1, 2]).is_err());
    }
}
