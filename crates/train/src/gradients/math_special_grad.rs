//! Gradients of the trigonometric, hyperbolic and special-function ops and of the smooth
//! activations, built from the ops TensorFlow's `math_grad.py` and `nn_grad.py` emit: e.g.
//! `Erf -> 2/sqrt(pi) exp(-x²)`, `Lgamma -> Digamma`, `Digamma -> Polygamma(1, x)`,
//! `Inv`/`Reciprocal -> ReciprocalGrad`, `Selu -> SeluGrad`, `Softplus -> grad * sigmoid(x)`.
//! As in TensorFlow, `Rint` passes no gradient, nor do `Zeta`'s `x` and `Polygamma`'s `a`.
//! For complex inputs the trigonometric and hyperbolic derivatives are conjugated, as
//! TensorFlow conjugates them; constants take the input's dtype, so half gradients stay half.

use std::f64::consts::PI;

use weir_graph::{Graph, Output, Result};

use super::op;
use super::registry::{register_gradient, GradContext};
use super::util::conj;
use super::util::{reduce_to_shape_of, scalar_like};

type Grads = Result<Vec<Option<Output>>>;

fn un(g: &Graph, op_type: &str, x: &Output) -> Result<Output> {
    op(g, op_type, &[x], &[])
}

fn bin(g: &Graph, op_type: &str, a: &Output, b: &Output) -> Result<Output> {
    op(g, op_type, &[a, b], &[])
}

/// `1 / sqrt(1 - x²)`, the shared factor of `Asin` and `Acos`.
fn inv_sqrt_one_minus_sq(g: &Graph, x: &Output) -> Result<Output> {
    let x2 = un(g, "Square", x)?;
    let den = un(g, "Sqrt", &bin(g, "Sub", &scalar_like(x, 1.0)?, &x2)?)?;
    un(g, "Reciprocal", &den)
}

/// The unary ops whose derivative is built from `x` or the output `y` alone.
fn unary_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, y) = (ctx.grad0()?, ctx.input(0), ctx.output(0));
    let g = ctx.graph().clone();
    let mul = |a: &Output, b: &Output| bin(&g, "Mul", a, b);
    // TensorFlow's gradients use conj(x) and conj(y): the same tensors for real dtypes.
    let (x, y) = (conj(&x)?, conj(&y)?);
    let dx = match ctx.op().op_type().as_str() {
        // sec(x)² = 1 / cos(x)²
        "Tan" => {
            let sec = un(&g, "Reciprocal", &un(&g, "Cos", &x)?)?;
            mul(&un(&g, "Square", &sec)?, &d)?
        }
        "Asin" => mul(&d, &inv_sqrt_one_minus_sq(&g, &x)?)?,
        "Acos" => mul(&un(&g, "Neg", &d)?, &inv_sqrt_one_minus_sq(&g, &x)?)?,
        // 1 / (1 + x²)
        "Atan" => {
            let x2 = un(&g, "Square", &x)?;
            let inv = un(
                &g,
                "Reciprocal",
                &bin(&g, "AddV2", &scalar_like(&x, 1.0)?, &x2)?,
            )?;
            mul(&d, &inv)?
        }
        "Sinh" => mul(&d, &un(&g, "Cosh", &x)?)?,
        "Cosh" => mul(&d, &un(&g, "Sinh", &x)?)?,
        // 1 / cosh(y) and 1 / sinh(y), from the output
        "Asinh" => bin(&g, "RealDiv", &d, &un(&g, "Cosh", &y)?)?,
        "Acosh" => bin(&g, "RealDiv", &d, &un(&g, "Sinh", &y)?)?,
        // 1 / (1 - x²)
        "Atanh" => {
            let x2 = un(&g, "Square", &x)?;
            let inv = un(
                &g,
                "Reciprocal",
                &bin(&g, "Sub", &scalar_like(&x, 1.0)?, &x2)?,
            )?;
            mul(&d, &inv)?
        }
        "Expm1" => mul(&d, &un(&g, "Exp", &x)?)?,
        // -grad conj(y)²: what TensorFlow's complex `ReciprocalGrad` kernel computes, built from
        // `Mul` and `Neg` because weir's `ReciprocalGrad` kernel takes no complex.
        "Inv" | "Reciprocal" if y.dtype().is_complex() => un(&g, "Neg", &mul(&mul(&y, &y)?, &d)?)?,
        "Inv" | "Reciprocal" => bin(&g, "ReciprocalGrad", &ctx.output(0), &d)?,
        // +-2/sqrt(pi) exp(-x²)
        "Erf" | "Erfc" => {
            let c = 2.0 / PI.sqrt();
            let c = if ctx.op().op_type() == "Erfc" { -c } else { c };
            let e = un(&g, "Exp", &un(&g, "Neg", &un(&g, "Square", &x)?)?)?;
            mul(&mul(&d, &scalar_like(&x, c)?)?, &e)?
        }
        // sqrt(pi)/2 exp(y²)
        "Erfinv" => {
            let e = un(&g, "Exp", &un(&g, "Square", &y)?)?;
            mul(&mul(&d, &scalar_like(&y, PI.sqrt() / 2.0)?)?, &e)?
        }
        // sqrt(2 pi) exp(y² / 2)
        "Ndtri" => {
            let half_sq = bin(
                &g,
                "RealDiv",
                &un(&g, "Square", &y)?,
                &scalar_like(&y, 2.0)?,
            )?;
            let e = un(&g, "Exp", &half_sq)?;
            mul(&mul(&d, &scalar_like(&y, (2.0 * PI).sqrt())?)?, &e)?
        }
        "Lgamma" => mul(&d, &un(&g, "Digamma", &x)?)?,
        "Digamma" => {
            let one = scalar_like(&x, 1.0)?;
            mul(&d, &bin(&g, "Polygamma", &one, &x)?)?
        }
        // i0e' = i1e(x) - sign(x) i0e(x)
        "BesselI0e" => {
            let i1e = weir_ops::math::bessel_i1e(&x)?;
            let partial = bin(&g, "Sub", &i1e, &mul(&un(&g, "Sign", &x)?, &y)?)?;
            mul(&d, &partial)?
        }
        // i1e' = i0e(x) - i1e(x) (sign(x) + 1/x), and 1/2 at 0 where that divides by zero
        "BesselI1e" => {
            let i0e = weir_ops::math::bessel_i0e(&x)?;
            let s = bin(
                &g,
                "AddV2",
                &un(&g, "Sign", &x)?,
                &un(&g, "Reciprocal", &x)?,
            )?;
            let main = bin(&g, "Sub", &i0e, &mul(&y, &s)?)?;
            let at_zero = bin(&g, "Equal", &x, &scalar_like(&x, 0.0)?)?;
            let dy_dx = op(
                &g,
                "SelectV2",
                &[&at_zero, &scalar_like(&x, 0.5)?, &main],
                &[],
            )?;
            mul(&d, &dy_dx)?
        }
        "Softplus" => mul(&d, &un(&g, "Sigmoid", &x)?)?,
        "Softsign" => bin(&g, "SoftsignGrad", &d, &x)?,
        "Selu" => bin(&g, "SeluGrad", &d, &y)?,
        other => {
            return Err(weir_graph::Error::internal(format!(
                "math_special_grad registered for {other}"
            )))
        }
    };
    Ok(vec![Some(dx)])
}

/// `Zeta(x, q)`: only `q` gets a gradient, `-x zeta(x + 1, q)`, summed back over broadcasting.
fn zeta_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, q) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let g = ctx.graph().clone();
    let z = bin(
        &g,
        "Zeta",
        &bin(&g, "AddV2", &x, &scalar_like(&x, 1.0)?)?,
        &q,
    )?;
    let partial = bin(&g, "Mul", &un(&g, "Neg", &x)?, &z)?;
    let dq = bin(&g, "Mul", &partial, &d)?;
    Ok(vec![None, Some(reduce_to_shape_of(&dq, &q, &x, 1)?)])
}

/// `Polygamma(n, x)`: only `x` gets a gradient, `polygamma(n + 1, x)`.
fn polygamma_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, n, x) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let g = ctx.graph().clone();
    let n1 = bin(&g, "AddV2", &n, &scalar_like(&n, 1.0)?)?;
    let partial = bin(&g, "Polygamma", &n1, &x)?;
    let dx = bin(&g, "Mul", &partial, &d)?;
    Ok(vec![None, Some(reduce_to_shape_of(&dx, &x, &n, 1)?)])
}

/// `SoftplusGrad(dy, x)`: `(softplus_grad(ddx, x), ddx dy / (exp(-x) + 2 + exp(x)))`.
fn softplus_grad_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, dy, x) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let g = ctx.graph().clone();
    let ddy = bin(&g, "SoftplusGrad", &d, &x)?;
    let e_neg = un(&g, "Exp", &un(&g, "Neg", &x)?)?;
    let den = bin(&g, "AddV2", &e_neg, &scalar_like(&x, 2.0)?)?;
    let den = bin(&g, "AddV2", &den, &un(&g, "Exp", &x)?)?;
    let d2x = bin(&g, "RealDiv", &bin(&g, "Mul", &d, &dy)?, &den)?;
    Ok(vec![Some(ddy), Some(d2x)])
}

/// `SeluGrad(dy, y)`: `(selu_grad(ddx, y), where(y < 0, ddx dy, 0))`.
fn selu_grad_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, dy, y) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let g = ctx.graph().clone();
    let ddy = bin(&g, "SeluGrad", &d, &y)?;
    let neg = bin(&g, "Less", &y, &scalar_like(&y, 0.0)?)?;
    let prod = bin(&g, "Mul", &d, &dy)?;
    let zeros = un(&g, "ZerosLike", &y)?;
    let dsecond = op(&g, "SelectV2", &[&neg, &prod, &zeros], &[])?;
    Ok(vec![Some(ddy), Some(dsecond)])
}

pub(super) fn register() {
    for u in [
        "Tan",
        "Asin",
        "Acos",
        "Atan",
        "Sinh",
        "Cosh",
        "Asinh",
        "Acosh",
        "Atanh",
        "Expm1",
        "Inv",
        "Reciprocal",
        "Erf",
        "Erfc",
        "Erfinv",
        "Ndtri",
        "Lgamma",
        "Digamma",
        "BesselI0e",
        "BesselI1e",
        "Softplus",
        "Softsign",
        "Selu",
    ] {
        register_gradient(u, unary_grad);
    }
    // TensorFlow's `_RintGrad` returns None: rounding is flat almost everywhere.
    register_gradient("Rint", |_| Ok(vec![None]));
    register_gradient("Zeta", zeta_grad);
    register_gradient("Polygamma", polygamma_grad);
    register_gradient("SoftplusGrad", softplus_grad_grad);
    register_gradient("SeluGrad", selu_grad_grad);
}
