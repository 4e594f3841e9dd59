//! Gradients of the basic elementwise unary math ops (TensorFlow's `math_grad.py`): `Neg`,
//! `Square`, `Sqrt`, `Rsqrt`, `Exp`, `Log`, `Log1p`, `Sin`, `Cos`, `Tanh`, `Sigmoid`, `Abs`.
//!
//! For complex inputs the derivative is conjugated, as TensorFlow conjugates it (`Exp`:
//! `grad * conj(y)`, `Log`: `grad * reciprocal(conj(x))`, ...), with a `Conj` node where its
//! gradient has one; half and complex gradients are built and run in the input's dtype.
//! `Sqrt`, `Rsqrt`, `Tanh` and `Sigmoid` of real inputs emit TensorFlow's fused `SqrtGrad`,
//! `RsqrtGrad`, `TanhGrad` and `SigmoidGrad` (so the graph and its rounding are TensorFlow's);
//! weir's kernels of those take no complex numbers, so complex inputs get the same derivative
//! built from `Mul` and `Sub`.

use weir_graph::{Output, Result};

use super::op;
use super::registry::{register_gradient, GradContext};
use super::util::{conj, scalar_like};

type Grads = Result<Vec<Option<Output>>>;

/// Unary ops: the gradient is `d * f'(x)`, with `f'` built from x or the output y.
fn unary_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, y) = (ctx.grad0()?, ctx.input(0), ctx.output(0));
    let gr = ctx.graph().clone();
    let mul = |a: &Output, b: &Output| op(&gr, "Mul", &[a, b], &[]);
    let complex = x.dtype().is_complex();
    let fused = |name: &str| op(&gr, name, &[&y, &d], &[]);
    let dx = match ctx.op().op_type().as_str() {
        "Neg" => op(&gr, "Neg", &[&d], &[])?,
        "Square" => {
            let x = conj(&x)?;
            mul(&d, &mul(&scalar_like(&x, 2.0)?, &x)?)?
        }
        "Sqrt" if !complex => fused("SqrtGrad")?,
        "Rsqrt" if !complex => fused("RsqrtGrad")?,
        "Tanh" if !complex => fused("TanhGrad")?,
        "Sigmoid" if !complex => fused("SigmoidGrad")?,
        // 0.5 / conj(y)
        "Sqrt" => {
            let y = conj(&y)?;
            let half = mul(&d, &scalar_like(&y, 0.5)?)?;
            op(
                &gr,
                if complex { "Div" } else { "RealDiv" },
                &[&half, &y],
                &[],
            )?
        }
        // -0.5 * conj(y)^3
        "Rsqrt" => {
            let y = conj(&y)?;
            let y3 = mul(&mul(&y, &y)?, &y)?;
            mul(&d, &mul(&scalar_like(&y, -0.5)?, &y3)?)?
        }
        "Exp" => mul(&d, &conj(&y)?)?,
        "Log" if complex => mul(&d, &op(&gr, "Reciprocal", &[&conj(&x)?], &[])?)?,
        "Log" => op(&gr, "RealDiv", &[&d, &x], &[])?,
        "Log1p" if complex => {
            let xp1 = op(&gr, "AddV2", &[&scalar_like(&x, 1.0)?, &conj(&x)?], &[])?;
            mul(&d, &op(&gr, "Reciprocal", &[&xp1], &[])?)?
        }
        "Log1p" => {
            let xp1 = op(&gr, "AddV2", &[&x, &scalar_like(&x, 1.0)?], &[])?;
            op(&gr, "RealDiv", &[&d, &xp1], &[])?
        }
        "Sin" => mul(&d, &op(&gr, "Cos", &[&conj(&x)?], &[])?)?,
        "Cos" => {
            let s = op(&gr, "Sin", &[&conj(&x)?], &[])?;
            op(&gr, "Neg", &[&mul(&d, &s)?], &[])?
        }
        // 1 - conj(y)^2
        "Tanh" => {
            let y = conj(&y)?;
            let t = op(&gr, "Sub", &[&scalar_like(&y, 1.0)?, &mul(&y, &y)?], &[])?;
            mul(&d, &t)?
        }
        // conj(y) (1 - conj(y))
        "Sigmoid" => {
            let y = conj(&y)?;
            let t = op(&gr, "Sub", &[&scalar_like(&y, 1.0)?, &y], &[])?;
            mul(&d, &mul(&y, &t)?)?
        }
        "Abs" => mul(&d, &op(&gr, "Sign", &[&x], &[])?)?,
        other => {
            return Err(weir_graph::Error::internal(format!(
                "unary_grad registered for {other}"
            )))
        }
    };
    Ok(vec![Some(dx)])
}

pub(super) fn register() {
    for u in [
        "Neg", "Square", "Sqrt", "Rsqrt", "Exp", "Log", "Log1p", "Sin", "Cos", "Tanh", "Sigmoid",
        "Abs",
    ] {
        register_gradient(u, unary_grad);
    }
}
