//! The stateful random kernels: `RandomUniform`, `RandomUniformInt`, `RandomStandardNormal`,
//! `TruncatedNormal`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    bf16, f16, format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel,
    Node, OpContext, OpDef, Result, Tensor,
};

use super::philox::{
    box_muller_f32, box_muller_f64, fill_blocks, fill_variable, truncated_f32, truncated_f64,
    u32_to_bf16, u32_to_f16, u32_to_f32, u64_to_f64, GuardedPhilox, Philox,
};
use super::{random_shape_fn, shape_from_tensor};

/// The distributions of the float random ops.
#[derive(Clone, Copy)]
pub(super) enum Dist {
    Uniform,
    Normal,
    Truncated,
}

struct RandomKernel {
    dist: Dist,
    dtype: DType,
    gen: GuardedPhilox,
}

/// TensorFlow reserves 256 blocks per output so that rejecting distributions never overlap the
/// next run's range; every Philox kernel uses the same multiplier to stay in step with it.
const RESERVE_PER_OUTPUT: u64 = 256;

impl Kernel for RandomKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let shape = shape_from_tensor(ctx.input(0))?;
        let n: usize = shape.iter().product();
        let gen = self.gen.reserve_outputs(n as u64, RESERVE_PER_OUTPUT);
        let out = fill_dist(self.dist, self.dtype, &shape, gen)?;
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

/// `shape` values of `dist` drawn from `gen` as TensorFlow's `FillPhiloxRandom` draws them;
/// shared with the stateless kernels, which start from a generator of their seed instead.
pub(super) fn fill_dist(dist: Dist, dtype: DType, shape: &[usize], gen: Philox) -> Result<Tensor> {
    let n: usize = shape.iter().product();
    match (dist, dtype) {
        (Dist::Uniform, DType::F32) => {
            let mut v = vec![0.0f32; n];
            fill_blocks(gen, &mut v, |b| b.map(u32_to_f32));
            Tensor::from_vec(shape, v)
        }
        (Dist::Uniform, DType::F64) => {
            let mut v = vec![0.0f64; n];
            fill_blocks(gen, &mut v, |b| {
                [u64_to_f64(b[0], b[1]), u64_to_f64(b[2], b[3])]
            });
            Tensor::from_vec(shape, v)
        }
        (Dist::Normal, DType::F32) => {
            let mut v = vec![0.0f32; n];
            fill_blocks(gen, &mut v, |b| {
                let (a0, a1) = box_muller_f32(b[0], b[1]);
                let (a2, a3) = box_muller_f32(b[2], b[3]);
                [a0, a1, a2, a3]
            });
            Tensor::from_vec(shape, v)
        }
        (Dist::Normal, DType::F64) => {
            let mut v = vec![0.0f64; n];
            fill_blocks(gen, &mut v, |b| {
                let (a0, a1) = box_muller_f64(b[0], b[1], b[2], b[3]);
                [a0, a1]
            });
            Tensor::from_vec(shape, v)
        }
        (Dist::Truncated, DType::F32) => {
            let mut v = vec![0.0f32; n];
            fill_variable(gen, &mut v, truncated_f32);
            Tensor::from_vec(shape, v)
        }
        (Dist::Truncated, DType::F64) => {
            let mut v = vec![0.0f64; n];
            fill_variable(gen, &mut v, truncated_f64);
            Tensor::from_vec(shape, v)
        }
        (Dist::Uniform, DType::F16) => {
            let mut v = vec![f16::ZERO; n];
            fill_blocks(gen, &mut v, |b| b.map(u32_to_f16));
            Tensor::from_vec(shape, v)
        }
        (Dist::Uniform, DType::BF16) => {
            let mut v = vec![bf16::ZERO; n];
            fill_blocks(gen, &mut v, |b| b.map(u32_to_bf16));
            Tensor::from_vec(shape, v)
        }
        // TensorFlow's half normal and truncated normal draw the float samples (Box-Muller in
        // f32, truncation tested on the f32 value) and round each accepted one to the half type.
        (Dist::Normal | Dist::Truncated, DType::F16 | DType::BF16) => {
            let wide = fill_dist(dist, DType::F32, shape, gen)?;
            crate::math::cast::cast_tensor(&wide, dtype)
        }
        (_, dt) => Err(Error::internal(format!("random kernel built for {dt}"))),
    }
}

/// The float dtypes of TensorFlow's random float ops: `{half, bfloat16, float, double}`.
pub(super) const RANDOM_FLOATS: &[DType] = &[DType::F16, DType::BF16, DType::F32, DType::F64];

struct UniformIntKernel {
    gen: GuardedPhilox,
}

/// `lo + bits % range` for `range = hi - lo` computed unsigned, as TensorFlow does, so ranges
/// wider than the signed type still work.
pub(super) fn uniform_int_i32(shape: &[usize], gen: Philox, lo: i32, hi: i32) -> Result<Tensor> {
    let range = (hi as u32).wrapping_sub(lo as u32);
    let mut v = vec![0i32; shape.iter().product()];
    fill_blocks(gen, &mut v, |b| {
        b.map(|x| lo.wrapping_add((x % range) as i32))
    });
    Tensor::from_vec(shape, v)
}

pub(super) fn uniform_int_i64(shape: &[usize], gen: Philox, lo: i64, hi: i64) -> Result<Tensor> {
    let range = (hi as u64).wrapping_sub(lo as u64);
    let mut v = vec![0i64; shape.iter().product()];
    fill_blocks(gen, &mut v, |b| {
        let x0 = b[0] as u64 | (b[1] as u64) << 32;
        let x1 = b[2] as u64 | (b[3] as u64) << 32;
        [
            lo.wrapping_add((x0 % range) as i64),
            lo.wrapping_add((x1 % range) as i64),
        ]
    });
    Tensor::from_vec(shape, v)
}

/// Draws `shape` ints in `[lo, hi)` from `gen` the way `RandomUniformInt` does (after its
/// reservation); shared with the fused random crop.
pub(crate) fn uniform_int(
    dtype: DType,
    shape: &[usize],
    gen: &GuardedPhilox,
    lo: i64,
    hi: i64,
) -> Result<Tensor> {
    let n: usize = shape.iter().product();
    let local = gen.reserve_outputs(n as u64, RESERVE_PER_OUTPUT);
    match dtype {
        DType::I32 => uniform_int_i32(shape, local, lo as i32, hi as i32),
        DType::I64 => uniform_int_i64(shape, local, lo, hi),
        dt => Err(Error::internal(format!("uniform ints of {dt}"))),
    }
}

/// The scalar bounds `minval < maxval` of a uniform int op, in TensorFlow's words when they
/// are not.
pub(super) fn int_bounds(minval: &Tensor, maxval: &Tensor) -> Result<(i64, i64)> {
    for (name, t) in [("minval", minval), ("maxval", maxval)] {
        if t.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "{name} must be 0-D, got shape {}",
                format_dims(t.shape())
            )));
        }
    }
    let (lo, hi) = match minval.dtype() {
        DType::I32 => (
            minval.to_scalar::<i32>()? as i64,
            maxval.to_scalar::<i32>()? as i64,
        ),
        _ => (minval.to_scalar::<i64>()?, maxval.to_scalar::<i64>()?),
    };
    if lo >= hi {
        return Err(Error::invalid_argument(format!(
            "Need minval < maxval, got {lo} >= {hi}"
        )));
    }
    Ok((lo, hi))
}

impl Kernel for UniformIntKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (minval, maxval) = (ctx.input(1), ctx.input(2));
        let (lo, hi) = int_bounds(minval, maxval)?;
        let shape = shape_from_tensor(ctx.input(0))?;
        let out = uniform_int(minval.dtype(), &shape, &self.gen, lo, hi)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

fn uniform_int_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(1, 0)?;
    ctx.with_rank(2, 0)?;
    random_shape_fn(ctx)
}

fn make_random(node: &Node) -> Result<Box<dyn Kernel>> {
    let dist = match node.op_type() {
        "RandomUniform" => Dist::Uniform,
        "RandomStandardNormal" => Dist::Normal,
        "TruncatedNormal" => Dist::Truncated,
        other => return Err(Error::internal(format!("not a random op: {other}"))),
    };
    Ok(Box::new(RandomKernel {
        dist,
        dtype: node.attr("dtype")?,
        gen: GuardedPhilox::from_node(node)?,
    }))
}

/// Adds TensorFlow's `seed` and `seed2` attrs (default 0) to a random op.
pub(crate) fn with_seed_attrs(def: OpDef) -> OpDef {
    def.attr("seed", AttrKind::Int, Some(AttrValue::Int(0)))
        .attr("seed2", AttrKind::Int, Some(AttrValue::Int(0)))
        .stateful()
}

const SHAPE_TYPES: &[DType] = &[DType::I32, DType::I64];

pub(super) fn register() {
    for name in ["RandomUniform", "RandomStandardNormal", "TruncatedNormal"] {
        register_op(with_seed_attrs(
            OpDef::new(name)
                .input("shape", ArgType::Attr("T"))
                .output("output", ArgType::Attr("dtype"))
                .type_attr("dtype", RANDOM_FLOATS)
                .type_attr("T", SHAPE_TYPES)
                .shape_fn(random_shape_fn),
        ));
        register_kernel(name, make_random);
    }
    register_op(with_seed_attrs(
        OpDef::new("RandomUniformInt")
            .input("shape", ArgType::Attr("T"))
            .input("minval", ArgType::Attr("Tout"))
            .input("maxval", ArgType::Attr("Tout"))
            .output("output", ArgType::Attr("Tout"))
            .type_attr("Tout", SHAPE_TYPES)
            .type_attr("T", SHAPE_TYPES)
            .shape_fn(uniform_int_shape_fn),
    ));
    register_kernel("RandomUniformInt", |node| {
        Ok(Box::new(UniformIntKernel {
            gen: GuardedPhilox::from_node(node)?,
        }))
    });
}
