//! Gradients of the rest of `tf.math.special`, built from the ops TensorFlow's `math_grad.py`
//! emits: `BesselI0 -> I1`, `BesselI1 -> I0 - y/x` (1 at 0), `BesselK0 -> -K1`,
//! `BesselK0e -> y - K1e`, `BesselK1 -> -K0 - y/x`, `BesselK1e -> y (1 - 1/x) - K0e`,
//! `BesselJ0 -> -J1`, `BesselJ1 -> J0 - y/x` (1/2 at 0), `BesselY0 -> -Y1`,
//! `BesselY1 -> Y0 - y/x`, `Dawsn -> 1 - 2xy`, `Expint -> exp(x)/x`,
//! `FresnelCos -> cos(pi x²/2)`, `FresnelSin -> sin(pi x²/2)`, `Spence -> log(x)/(1 - x)`
//! (-1 at 1); each times the incoming gradient.

use std::f64::consts::PI;

use weir_graph::{Graph, Output, Result};
use weir_ops::math::special_more as sm;

use super::op;
use super::registry::{register_gradient, GradContext};
use super::util::scalar_like;

type Grads = Result<Vec<Option<Output>>>;

fn un(g: &Graph, op_type: &str, x: &Output) -> Result<Output> {
    op(g, op_type, &[x], &[])
}

fn bin(g: &Graph, op_type: &str, a: &Output, b: &Output) -> Result<Output> {
    op(g, op_type, &[a, b], &[])
}

/// `where(x == at, value, main)`, TensorFlow's patch of a derivative that divides by zero.
fn patched(g: &Graph, x: &Output, at: f64, value: f64, main: &Output) -> Result<Output> {
    let hit = bin(g, "Equal", x, &scalar_like(x, at)?)?;
    op(g, "SelectV2", &[&hit, &scalar_like(x, value)?, main], &[])
}

/// `dy/dx` of the op, from its input `x` and output `y`.
fn derivative(g: &Graph, op_type: &str, x: &Output, y: &Output) -> Result<Output> {
    let y_over_x = || bin(g, "RealDiv", y, x);
    Ok(match op_type {
        "BesselI0" => sm::bessel_i1(x)?,
        "BesselI1" => {
            let main = bin(g, "Sub", &sm::bessel_i0(x)?, &y_over_x()?)?;
            patched(g, x, 0.0, 1.0, &main)?
        }
        "BesselK0" => un(g, "Neg", &sm::bessel_k1(x)?)?,
        "BesselK0e" => bin(g, "Sub", y, &sm::bessel_k1e(x)?)?,
        "BesselK1" => bin(g, "Sub", &un(g, "Neg", &sm::bessel_k0(x)?)?, &y_over_x()?)?,
        "BesselK1e" => {
            let one_minus = bin(g, "Sub", &scalar_like(x, 1.0)?, &un(g, "Reciprocal", x)?)?;
            bin(
                g,
                "Sub",
                &bin(g, "Mul", y, &one_minus)?,
                &sm::bessel_k0e(x)?,
            )?
        }
        "BesselJ0" => un(g, "Neg", &sm::bessel_j1(x)?)?,
        "BesselJ1" => {
            let main = bin(g, "Sub", &sm::bessel_j0(x)?, &y_over_x()?)?;
            patched(g, x, 0.0, 0.5, &main)?
        }
        "BesselY0" => un(g, "Neg", &sm::bessel_y1(x)?)?,
        "BesselY1" => bin(g, "Sub", &sm::bessel_y0(x)?, &y_over_x()?)?,
        "Dawsn" => {
            let two_x = bin(g, "Mul", &scalar_like(x, 2.0)?, x)?;
            bin(g, "Sub", &scalar_like(x, 1.0)?, &bin(g, "Mul", &two_x, y)?)?
        }
        "FresnelCos" | "FresnelSin" => {
            let arg = bin(g, "Mul", &scalar_like(x, PI / 2.0)?, &un(g, "Square", x)?)?;
            let trig = if op_type == "FresnelCos" {
                "Cos"
            } else {
                "Sin"
            };
            un(g, trig, &arg)?
        }
        "Spence" => {
            let one_minus_x = bin(g, "Sub", &scalar_like(x, 1.0)?, x)?;
            let main = bin(g, "RealDiv", &un(g, "Log", x)?, &one_minus_x)?;
            patched(g, x, 1.0, -1.0, &main)?
        }
        other => {
            return Err(weir_graph::Error::internal(format!(
                "special_more_grad registered for {other}"
            )))
        }
    })
}

fn special_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, y) = (ctx.grad0()?, ctx.input(0), ctx.output(0));
    let g = ctx.graph().clone();
    let op_type = ctx.op().op_type();
    // `grad * exp(x) / x`, in TensorFlow's order.
    if op_type == "Expint" {
        let num = bin(&g, "Mul", &d, &un(&g, "Exp", &x)?)?;
        return Ok(vec![Some(bin(&g, "RealDiv", &num, &x)?)]);
    }
    let dy_dx = derivative(&g, &op_type, &x, &y)?;
    Ok(vec![Some(bin(&g, "Mul", &d, &dy_dx)?)])
}

/// Registers the gradients of `BesselI0` ... `BesselY1`, `Dawsn`, `Expint`, `FresnelCos`,
/// `FresnelSin` and `Spence`.
pub(super) fn register() {
    for name in [
        "BesselI0",
        "BesselI1",
        "BesselK0",
        "BesselK0e",
        "BesselK1",
        "BesselK1e",
        "BesselJ0",
        "BesselJ1",
        "BesselY0",
        "BesselY1",
        "Dawsn",
        "Expint",
        "FresnelCos",
        "FresnelSin",
        "Spence",
    ] {
        register_gradient(name, special_grad);
    }
}
