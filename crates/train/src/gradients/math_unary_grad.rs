//! Gradients of the basic elementwise unary math ops (TensorFlow's `math_grad.py`): `Neg`,
//! `Square`, `Sqrt`, `Rsqrt`, `Exp`, `Log`, `Log1p`, `Sin`, `Cos`, `Tanh`, `Sigmoid`, `Abs`.

use weir_graph::{Output, Result};

use super::op;
use super::registry::{register_gradient, GradContext};
use super::util::scalar_like;

type Grads = Result<Vec<Option<Output>>>;

/// Unary ops: the gradient is `d * f'(x)`, with `f'` built from x or the output y.
fn unary_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, y) = (ctx.grad0()?, ctx.input(0), ctx.output(0));
    let gr = ctx.graph().clone();
    let mul = |a: &Output, b: &Output| op(&gr, "Mul", &[a, b], &[]);
    let dx = match ctx.op().op_type().as_str() {
        "Neg" => op(&gr, "Neg", &[&d], &[])?,
        "Square" => mul(&d, &mul(&scalar_like(&x, 2.0)?, &x)?)?,
        // 0.5 / y
        "Sqrt" => op(
            &gr,
            "RealDiv",
            &[&mul(&d, &scalar_like(&y, 0.5)?)?, &y],
            &[],
        )?,
        // -0.5 * y^3
        "Rsqrt" => {
            let y3 = mul(&mul(&y, &y)?, &y)?;
            mul(&d, &mul(&scalar_like(&y, -0.5)?, &y3)?)?
        }
        "Exp" => mul(&d, &y)?,
        "Log" => op(&gr, "RealDiv", &[&d, &x], &[])?,
        "Log1p" => {
            let xp1 = op(&gr, "AddV2", &[&x, &scalar_like(&x, 1.0)?], &[])?;
            op(&gr, "RealDiv", &[&d, &xp1], &[])?
        }
        "Sin" => mul(&d, &op(&gr, "Cos", &[&x], &[])?)?,
        "Cos" => op(&gr, "Neg", &[&mul(&d, &op(&gr, "Sin", &[&x], &[])?)?], &[])?,
        // 1 - y^2
        "Tanh" => {
            let t = op(&gr, "Sub", &[&scalar_like(&y, 1.0)?, &mul(&y, &y)?], &[])?;
            mul(&d, &t)?
        }
        // y (1 - y)
        "Sigmoid" => {
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
