//! The kernels and op defs of the stateful RNG ops.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef, Result,
    Shape, Tensor, TensorType,
};

use super::super::kernels::{fill_dist, int_bounds, uniform_int_i32, uniform_int_i64, Dist};
use super::super::philox::Philox;
use super::super::stateless_v2::{full_int, BinomialPlan, ALG_PHILOX, BINOMIAL_TYPES};
use super::super::{shape_from_input, shape_from_tensor, type_attr_default};
use super::{check_state, philox_of_state, require_philox, skip_of, write_philox};
use crate::state::VariableResource;

/// TensorFlow's `GetScalar`: input `i` must be a scalar.
fn scalar_input<T: TensorType + Copy>(ctx: &OpContext<'_>, i: usize) -> Result<T> {
    let t = ctx.input(i);
    if t.rank() != 0 {
        return Err(Error::invalid_argument(format!(
            "input {i} (0-based) must have shape [], not {}",
            format_dims(t.shape())
        )));
    }
    t.to_scalar::<T>()
}

/// Moves the state of the variable behind input 0 past `skip` blocks under its lock, and
/// returns the state as it was (TensorFlow's `UpdateVariableAndFill` and `RngSkip`).
fn read_and_skip(ctx: &OpContext<'_>, alg: i64, skip: u64) -> Result<(Tensor, Philox)> {
    let var = ctx.resource::<VariableResource>(0)?;
    let mut slot = var.lock_value();
    let old = slot.clone().ok_or_else(|| var.uninitialized_error())?;
    check_state(&old)?;
    require_philox(alg)?;
    let words = old.as_slice::<i64>()?;
    let gen = philox_of_state(words)?;
    let mut next = gen;
    next.skip(skip);
    let new = write_philox(words, &next);
    *slot = Some(Tensor::from_vec(old.shape(), new)?);
    Ok((old, gen))
}

/// What a stateful distribution op draws.
#[derive(Clone, Copy)]
enum Kind {
    Float(Dist),
    /// Ints in `[minval, maxval)` (inputs 3 and 4).
    Int,
    FullInt,
}

struct StatefulKernel {
    kind: Kind,
    dtype: DType,
}

impl Kernel for StatefulKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let alg = scalar_input::<i64>(ctx, 1)?;
        let bounds = match self.kind {
            Kind::Int => Some(int_bounds(ctx.input(3), ctx.input(4))?),
            _ => None,
        };
        let shape = shape_from_tensor(ctx.input(2))?;
        let n: usize = shape.iter().product();
        // The lock is released before drawing, as in TensorFlow: only the state update is
        // serialized, so concurrent runs draw from disjoint counter ranges.
        let (_, gen) = read_and_skip(ctx, alg, skip_of(n as u64))?;
        let out = match (self.kind, bounds) {
            (Kind::Float(dist), _) => fill_dist(dist, self.dtype, &shape, gen)?,
            (Kind::Int, Some((lo, hi))) => match self.dtype {
                DType::I32 => uniform_int_i32(&shape, gen, lo as i32, hi as i32)?,
                _ => uniform_int_i64(&shape, gen, lo, hi)?,
            },
            _ => full_int(self.dtype, &shape, gen)?,
        };
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

/// `RngSkip` (int64 algorithm and delta, no output) and `RngReadAndSkip` (int32 algorithm,
/// uint64 delta, the old state as output).
struct SkipKernel {
    read: bool,
}

impl Kernel for SkipKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (alg, delta) = if self.read {
            (
                scalar_input::<i32>(ctx, 1)? as i64,
                scalar_input::<u64>(ctx, 2)?,
            )
        } else {
            (
                scalar_input::<i64>(ctx, 1)?,
                scalar_input::<i64>(ctx, 2)? as u64,
            )
        };
        let (old, _) = read_and_skip(ctx, alg, skip_of(delta))?;
        if self.read {
            ctx.set_output(0, old);
        }
        Ok(())
    }
}

/// `StatefulRandomBinomial`: the binomial sampler of the stateless op, drawing from the state,
/// which moves past TensorFlow's reservation of `200 * (samples + 3) / 4` outputs per batch.
struct BinomialKernel {
    dtype: DType,
}

impl Kernel for BinomialKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (counts, probs) = (ctx.input(3), ctx.input(4));
        let plan = BinomialPlan::new(ctx.input(2), counts, probs)?;
        let alg = ctx.input(1);
        if alg.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "algorithm must be of shape [], not {}",
                format_dims(alg.shape())
            )));
        }
        let alg = alg.to_scalar::<i64>()?;
        let var = ctx.resource::<VariableResource>(0)?;
        let gen = {
            let mut slot = var.lock_value();
            let old = slot.clone().ok_or_else(|| var.uninitialized_error())?;
            check_state(&old)?;
            if alg != ALG_PHILOX as i64 {
                return Err(Error::invalid_argument(format!(
                    "Unsupported algorithm id: {alg}"
                )));
            }
            let words = old.as_slice::<i64>()?;
            if words.len() < 3 {
                return Err(Error::invalid_argument(format!(
                    "For Philox algorithm, the size of state must be at least 3; got {}",
                    words.len()
                )));
            }
            let gen = philox_of_state(words)?;
            let nb = plan.num_batches as u64;
            let outputs = nb * 2 * 100 * (plan.samples_per_batch as u64 + 3) / 4;
            let mut next = gen;
            next.skip(skip_of(outputs));
            *slot = Some(Tensor::from_vec(old.shape(), write_philox(words, &next))?);
            gen
        };
        let out = plan.draw(counts, probs, gen, self.dtype)?;
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

/// The `No OpKernel` error of a dtype TensorFlow's op def allows but no CPU kernel serves.
fn no_kernel(node: &Node, dtype: DType) -> Result<Box<dyn Kernel>> {
    Err(Error::not_found(format!(
        "No OpKernel was registered to support Op '{}' used by {{{{node {}}}}} with these \
         attrs: [dtype={}]",
        node.op_type(),
        node.name(),
        dtype.proto_name()
    )))
}

fn make_stateful(node: &Node) -> Result<Box<dyn Kernel>> {
    let dtype: DType = node.attr("dtype")?;
    let (kind, served): (Kind, &[DType]) = match node.op_type() {
        "StatefulUniform" => (Kind::Float(Dist::Uniform), FLOATS),
        "StatefulStandardNormalV2" => (Kind::Float(Dist::Normal), FLOATS),
        "StatefulTruncatedNormal" => (Kind::Float(Dist::Truncated), FLOATS),
        "StatefulUniformInt" => (Kind::Int, &[DType::I32, DType::I64]),
        "StatefulUniformFullInt" => (Kind::FullInt, FULL_INTS),
        other => return Err(Error::internal(format!("not a stateful RNG op: {other}"))),
    };
    if !served.contains(&dtype) {
        return no_kernel(node, dtype);
    }
    Ok(Box::new(StatefulKernel { kind, dtype }))
}

const FLOATS: &[DType] = &[DType::F16, DType::BF16, DType::F32, DType::F64];
const FULL_INTS: &[DType] = &[DType::I32, DType::I64, DType::U32, DType::U64];

/// TensorFlow's `StatefulRandomShape`: a scalar algorithm, the output shape from the shape input.
fn stateful_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(1, 0)?;
    let s = shape_from_input(ctx, 2)?;
    ctx.set_output(0, s);
    Ok(())
}

fn uniform_int_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(1, 0)?;
    for (i, name) in [(3, "minval"), (4, "maxval")] {
        if ctx.with_rank(i, 0).is_err() {
            return Err(Error::invalid_argument(format!(
                "{name} must be a scalar; got a tensor of shape {}",
                ctx.input_shape(i)
            )));
        }
    }
    let s = shape_from_input(ctx, 2)?;
    ctx.set_output(0, s);
    Ok(())
}

/// `resource`, `algorithm` and `shape`, the inputs every stateful distribution op starts with.
/// TensorFlow leaves `dtype` and `shape_dtype` unconstrained in the op def; its kernels serve
/// the float or int dtypes each op draws.
fn stateful_def(name: &str, default: DType) -> OpDef {
    let def = OpDef::new(name)
        .input("resource", ArgType::Fixed(DType::Resource))
        .input("algorithm", ArgType::Fixed(DType::I64))
        .input("shape", ArgType::Attr("shape_dtype"));
    let def = type_attr_default(def, "dtype", DType::ALL_DATA, default);
    type_attr_default(def, "shape_dtype", DType::ALL_DATA, DType::I64).stateful()
}

pub(super) fn register() {
    for name in [
        "StatefulUniform",
        "StatefulStandardNormalV2",
        "StatefulTruncatedNormal",
    ] {
        register_op(
            stateful_def(name, DType::F32)
                .output("output", ArgType::Attr("dtype"))
                .shape_fn(stateful_shape_fn),
        );
        register_kernel(name, make_stateful);
    }
    register_op(
        stateful_def("StatefulUniformFullInt", DType::U64)
            .output("output", ArgType::Attr("dtype"))
            .shape_fn(stateful_shape_fn),
    );
    register_kernel("StatefulUniformFullInt", make_stateful);
    register_op(
        stateful_def("StatefulUniformInt", DType::I64)
            .input("minval", ArgType::Attr("dtype"))
            .input("maxval", ArgType::Attr("dtype"))
            .output("output", ArgType::Attr("dtype"))
            .shape_fn(uniform_int_shape_fn),
    );
    register_kernel("StatefulUniformInt", make_stateful);
    let def = OpDef::new("StatefulRandomBinomial")
        .input("resource", ArgType::Fixed(DType::Resource))
        .input("algorithm", ArgType::Fixed(DType::I64))
        .input("shape", ArgType::Attr("S"))
        .input("counts", ArgType::Attr("T"))
        .input("probs", ArgType::Attr("T"))
        .output("output", ArgType::Attr("dtype"))
        .type_attr("S", &[DType::I32, DType::I64])
        .stateful()
        .shape_fn(|ctx| {
            ctx.with_rank(1, 0)?;
            let s = shape_from_input(ctx, 2)?;
            ctx.set_output(0, s);
            Ok(())
        });
    let def = type_attr_default(def, "T", BINOMIAL_TYPES, DType::F64);
    register_op(type_attr_default(def, "dtype", BINOMIAL_TYPES, DType::I64));
    register_kernel("StatefulRandomBinomial", |node| {
        let t: DType = node.attr("T")?;
        if !FLOATS.contains(&t) || t == DType::BF16 {
            return no_kernel(node, t);
        }
        Ok(Box::new(BinomialKernel {
            dtype: node.attr("dtype")?,
        }))
    });

    register_op(
        OpDef::new("RngSkip")
            .input("resource", ArgType::Fixed(DType::Resource))
            .input("algorithm", ArgType::Fixed(DType::I64))
            .input("delta", ArgType::Fixed(DType::I64))
            .stateful()
            .shape_fn(|ctx| {
                ctx.with_rank(1, 0)?;
                ctx.with_rank(2, 0)?;
                Ok(())
            }),
    );
    register_kernel("RngSkip", |_| Ok(Box::new(SkipKernel { read: false })));
    register_op(
        OpDef::new("RngReadAndSkip")
            .input("resource", ArgType::Fixed(DType::Resource))
            .input("alg", ArgType::Fixed(DType::I32))
            .input("delta", ArgType::Fixed(DType::U64))
            .output("value", ArgType::Fixed(DType::I64))
            .stateful()
            .shape_fn(|ctx| {
                ctx.with_rank(1, 0)?;
                ctx.with_rank(2, 0)?;
                ctx.set_output(0, Shape::known(&[3]));
                Ok(())
            }),
    );
    register_kernel("RngReadAndSkip", |_| {
        Ok(Box::new(SkipKernel { read: true }))
    });
}
