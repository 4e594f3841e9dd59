//! The incomplete gamma and beta functions of `tf.math`: `Igamma`, `Igammac`, `IgammaGradA`
//! (the `a`-derivative that `Igamma`'s gradient uses), `RandomGammaGrad` (the `a`-derivative of
//! a gamma sample, from the same iterations) and `Betainc`, computed as TensorFlow's CPU
//! kernels do (Eigen's ports of Cephes), in the element type.

mod beta;
mod gamma;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef, Output,
    Result, Shape, Tensor, TensorType,
};

use super::bcast::{broadcast_shape_fn, broadcast_update};
pub(crate) use gamma::lgamma_f64;
use gamma::Special;

fn binary(op: &str, a: Output, x: Output) -> Result<Output> {
    let g = crate::util::same_graph(&[&a, &x])?.clone();
    crate::new_op(&g, op).input(a).input(x).build()?.output(0)
}

/// `tf.math.igamma(a, x)` (op `Igamma`): the regularized lower incomplete gamma function
/// `P(a, x)`, with broadcasting; NaN where `a <= 0` or `x < 0`.
pub fn igamma(a: impl Into<Output>, x: impl Into<Output>) -> Result<Output> {
    binary("Igamma", a.into(), x.into())
}

/// `tf.math.igammac(a, x)` (op `Igammac`): the regularized upper incomplete gamma function
/// `Q(a, x) = 1 - P(a, x)`, with broadcasting; NaN where `a <= 0` or `x < 0`.
pub fn igammac(a: impl Into<Output>, x: impl Into<Output>) -> Result<Output> {
    binary("Igammac", a.into(), x.into())
}

/// `tf.raw_ops.IgammaGradA(a, x)`: `dP(a, x)/da`, which the gradient of `Igamma` uses.
pub fn igamma_grad_a(a: impl Into<Output>, x: impl Into<Output>) -> Result<Output> {
    binary("IgammaGradA", a.into(), x.into())
}

/// `tf.math.betainc(a, b, x)` (op `Betainc`): the regularized incomplete beta function
/// `I_x(a, b)`. The non-scalar operands must have one shape, which scalars take (no other
/// broadcasting); NaN where `a <= 0`, `b <= 0` or `x` is outside `[0, 1]`.
pub fn betainc(a: impl Into<Output>, b: impl Into<Output>, x: impl Into<Output>) -> Result<Output> {
    let (a, b, x) = (a.into(), b.into(), x.into());
    let g = crate::util::same_graph(&[&a, &b, &x])?.clone();
    crate::new_op(&g, "Betainc")
        .input(a)
        .input(b)
        .input(x)
        .build()?
        .output(0)
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum GammaOp {
    P,
    Q,
    GradA,
    SampleGradA,
}

fn gamma_apply<T: Special + TensorType>(op: GammaOp, a: Tensor, x: Tensor) -> Result<Tensor> {
    match op {
        GammaOp::P => broadcast_update(a, x, gamma::igamma::<T>),
        GammaOp::Q => broadcast_update(a, x, gamma::igammac::<T>),
        GammaOp::GradA => broadcast_update(a, x, gamma::igamma_grad_a::<T>),
        GammaOp::SampleGradA => broadcast_update(a, x, gamma::gamma_sample_der_alpha::<T>),
    }
}

struct GammaKernel(GammaOp);

fn gamma_op(op_type: &str) -> Option<GammaOp> {
    match op_type {
        "Igamma" => Some(GammaOp::P),
        "Igammac" => Some(GammaOp::Q),
        "IgammaGradA" => Some(GammaOp::GradA),
        "RandomGammaGrad" => Some(GammaOp::SampleGradA),
        _ => None,
    }
}

fn make_gamma(node: &Node) -> Result<Box<dyn Kernel>> {
    let op = gamma_op(node.op_type())
        .ok_or_else(|| Error::internal(format!("not an igamma op: {}", node.op_type())))?;
    Ok(Box::new(GammaKernel(op)))
}

impl Kernel for GammaKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (a, x) = (ctx.take_input(0), ctx.take_input(1));
        let out = match a.dtype() {
            DType::F32 => gamma_apply::<f32>(self.0, a, x)?,
            DType::F64 => gamma_apply::<f64>(self.0, a, x)?,
            dt => return Err(Error::invalid_argument(format!("Unsupported dtype {dt}"))),
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// `Betainc`'s shape function (TensorFlow's): the non-scalar inputs of known rank merge into
/// the output shape; with all but one input scalar, the output is that input's shape.
fn betainc_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let mut out = Shape::unknown();
    let (mut scalars, mut non_scalar) = (0, Shape::unknown());
    for i in 0..3 {
        let s = ctx.input_shape(i).clone();
        match s.rank() {
            None => non_scalar = s,
            Some(0) => scalars += 1,
            Some(_) => {
                out = super::binary_more::merge_shapes(&out, &s)?;
                non_scalar = out.clone();
            }
        }
    }
    let out = match scalars {
        2 => non_scalar,
        3 => Shape::scalar(),
        _ => out,
    };
    ctx.set_output(0, out);
    Ok(())
}

struct BetaincKernel;

fn betainc_apply<T: Special + TensorType>(
    a: &Tensor,
    b: &Tensor,
    x: &Tensor,
    shape: &[usize],
    f: fn(T, T, T) -> T,
) -> Result<Tensor> {
    let (av, bv, xv) = (a.as_slice::<T>()?, b.as_slice::<T>()?, x.as_slice::<T>()?);
    let n: usize = shape.iter().product();
    // A scalar operand repeats; the others have the output's shape.
    let pick = |v: &[T], t: &Tensor, i: usize| if t.rank() == 0 { v[0] } else { v[i] };
    let out: Vec<T> = (0..n)
        .map(|i| f(pick(av, a, i), pick(bv, b, i), pick(xv, x, i)))
        .collect();
    Tensor::from_vec(shape, out)
}

impl Kernel for BetaincKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (a, b, x) = (ctx.input(0), ctx.input(1), ctx.input(2));
        for (p, q, pn, qn) in [(a, b, "a", "b"), (a, x, "a", "x"), (b, x, "b", "x")] {
            if p.rank() > 0 && q.rank() > 0 && p.shape() != q.shape() {
                return Err(Error::invalid_argument(format!(
                    "Shapes of {pn} and {qn} are inconsistent: {} vs. {}",
                    format_dims(p.shape()),
                    format_dims(q.shape())
                )));
            }
        }
        let shape = [a, b, x]
            .iter()
            .rev()
            .find(|t| t.rank() > 0)
            .map_or_else(Vec::new, |t| t.shape().to_vec());
        let out = match a.dtype() {
            DType::F32 => betainc_apply::<f32>(a, b, x, &shape, beta::betainc_f32)?,
            DType::F64 => betainc_apply::<f64>(a, b, x, &shape, beta::betainc_f64)?,
            dt => return Err(Error::invalid_argument(format!("Unsupported dtype {dt}"))),
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

pub(super) fn register() {
    for name in ["Igamma", "Igammac", "IgammaGradA"] {
        register_op(
            OpDef::new(name)
                .input("a", ArgType::Attr("T"))
                .input("x", ArgType::Attr("T"))
                .output("z", ArgType::Attr("T"))
                .type_attr("T", DType::FLOAT)
                .shape_fn(broadcast_shape_fn),
        );
        register_kernel(name, make_gamma);
    }
    register_op(
        OpDef::new("RandomGammaGrad")
            .input("alpha", ArgType::Attr("T"))
            .input("sample", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", &[DType::F32, DType::F64])
            .shape_fn(broadcast_shape_fn),
    );
    register_kernel("RandomGammaGrad", make_gamma);
    register_op(
        OpDef::new("Betainc")
            .input("a", ArgType::Attr("T"))
            .input("b", ArgType::Attr("T"))
            .input("x", ArgType::Attr("T"))
            .output("z", ArgType::Attr("T"))
            .type_attr("T", DType::FLOAT)
            .shape_fn(betainc_shape_fn),
    );
    register_kernel("Betainc", |_| Ok(Box::new(BetaincKernel)));
}
