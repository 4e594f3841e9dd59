//! Gradients of the binary math ops of `math_binary_more` and the incomplete gamma and beta
//! functions, built from the ops TensorFlow's `math_grad.py` builds (`IgammaGradA` for
//! `Igamma`'s `a`, `Lgamma` in the log-space factors, `Xlogy`/`Xdivy` for the `x*f(y)` ops),
//! each reduced back to its input's shape. `Mod` has no gradient, as in TensorFlow; the
//! comparisons and `tf.bitwise` are not differentiable.

use weir_graph::{AttrValue, Output, Result};

use super::op;
use super::registry::{register_gradient, register_not_differentiable, GradContext};
use super::util::{cast_like, reduce_to_shape_of, scalar_like, shape_of};

type Grads = Result<Vec<Option<Output>>>;

/// `d` (the gradient of a broadcasting binary op's output) summed back to input `i`'s shape.
fn reduce(ctx: &GradContext<'_>, d: &Output, i: usize) -> Result<Output> {
    let other = if i == 0 { 1 } else { 0 };
    reduce_to_shape_of(d, &ctx.input(i), &ctx.input(other), i)
}

fn both(ctx: &GradContext<'_>, dx: Output, dy: Output) -> Grads {
    Ok(vec![Some(reduce(ctx, &dx, 0)?), Some(reduce(ctx, &dy, 1)?)])
}

/// `atan2(y, x)`: `d * x / (y^2 + x^2)` and `-d * y / (y^2 + x^2)`.
fn atan2_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, y, x) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let g = ctx.graph();
    let y2 = op(g, "Square", &[&y], &[])?;
    let x2 = op(g, "Square", &[&x], &[])?;
    let sum = op(g, "AddV2", &[&y2, &x2], &[])?;
    let grad_inv = op(g, "RealDiv", &[&d, &sum], &[])?;
    let gy = op(g, "Mul", &[&x, &grad_inv], &[])?;
    let neg_y = op(g, "Neg", &[&y], &[])?;
    let gx = op(g, "Mul", &[&neg_y, &grad_inv], &[])?;
    both(ctx, gy, gx)
}

/// `cast(x != 0, x.dtype)`: where the `x*f(y)` ops depend on `f(y)` at all.
fn not_zero(x: &Output) -> Result<Output> {
    let zero = scalar_like(x, 0.0)?;
    let ne = op(
        x.graph(),
        "NotEqual",
        &[x, &zero],
        &[("incompatible_shape_error", AttrValue::Bool(true))],
    )?;
    cast_like(&ne, x.dtype())
}

/// The `x*f(y)` ops: `d * partial_x` and `d * partial_y`, each reduced.
fn times_partials(ctx: &GradContext<'_>, partial_x: Output, partial_y: Output) -> Grads {
    let d = ctx.grad0()?;
    let g = ctx.graph();
    let dx = op(g, "Mul", &[&partial_x, &d], &[])?;
    let dy = op(g, "Mul", &[&partial_y, &d], &[])?;
    both(ctx, dx, dy)
}

/// `xlogy(x, y)`: `xlogy(x != 0, y)` and `xdivy(x, y)`.
fn xlogy_grad(ctx: &GradContext<'_>) -> Grads {
    let (x, y) = (ctx.input(0), ctx.input(1));
    let g = ctx.graph();
    let px = op(g, "Xlogy", &[&not_zero(&x)?, &y], &[])?;
    let py = op(g, "Xdivy", &[&x, &y], &[])?;
    times_partials(ctx, px, py)
}

/// `xlog1py(x, y)`: `xlog1py(x != 0, y)` and `xdivy(x, y + 1)`.
fn xlog1py_grad(ctx: &GradContext<'_>) -> Grads {
    let (x, y) = (ctx.input(0), ctx.input(1));
    let g = ctx.graph();
    let px = op(g, "Xlog1py", &[&not_zero(&x)?, &y], &[])?;
    let y1 = op(g, "AddV2", &[&y, &scalar_like(&y, 1.0)?], &[])?;
    let py = op(g, "Xdivy", &[&x, &y1], &[])?;
    times_partials(ctx, px, py)
}

/// `xdivy(x, y)`: `xdivy(x != 0, y)` and `xdivy(-x, y^2)`.
fn xdivy_grad(ctx: &GradContext<'_>) -> Grads {
    let (x, y) = (ctx.input(0), ctx.input(1));
    let g = ctx.graph();
    let px = op(g, "Xdivy", &[&not_zero(&x)?, &y], &[])?;
    let neg_x = op(g, "Neg", &[&x], &[])?;
    let y2 = op(g, "Pow", &[&y, &scalar_like(&y, 2.0)?], &[])?;
    let py = op(g, "Xdivy", &[&neg_x, &y2], &[])?;
    times_partials(ctx, px, py)
}

/// `mul_no_nan(x, y)`: `mul_no_nan(d, y)` and `mul_no_nan(x, d)`.
fn mul_no_nan_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, y) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let g = ctx.graph();
    let gx = op(g, "MulNoNan", &[&d, &y], &[])?;
    let gy = op(g, "MulNoNan", &[&x, &d], &[])?;
    both(ctx, gx, gy)
}

/// `nextafter(x1, x2)`: the gradient passes to `x1` (ones) and not to `x2` (zeros), as
/// TensorFlow's `_NextAfterGrad` has it.
fn nextafter_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x1, x2) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let g = ctx.graph();
    let ones = op(g, "Fill", &[&shape_of(&x1)?, &scalar_like(&x1, 1.0)?], &[])?;
    let zeros = op(g, "Fill", &[&shape_of(&x2)?, &scalar_like(&x2, 0.0)?], &[])?;
    let d1 = op(g, "Mul", &[&ones, &d], &[])?;
    let d2 = op(g, "Mul", &[&zeros, &d], &[])?;
    both(ctx, d1, d2)
}

/// `igamma(a, x)`: `IgammaGradA(a, x)` for `a`, and the gamma density
/// `exp(-x + (a - 1) log x - lgamma(a))` for `x`, in log space because `Γ(a)` overflows early.
fn igamma_partials(ctx: &GradContext<'_>) -> Result<(Output, Output)> {
    let (d, a, x) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let g = ctx.graph();
    let partial_a = op(g, "IgammaGradA", &[&a, &x], &[])?;
    let neg_x = op(g, "Neg", &[&x], &[])?;
    let am1 = op(g, "Sub", &[&a, &scalar_like(&a, 1.0)?], &[])?;
    let log_x = op(g, "Log", &[&x], &[])?;
    let t = op(g, "Mul", &[&am1, &log_x], &[])?;
    let t = op(g, "AddV2", &[&neg_x, &t], &[])?;
    let lg = op(g, "Lgamma", &[&a], &[])?;
    let t = op(g, "Sub", &[&t, &lg], &[])?;
    let partial_x = op(g, "Exp", &[&t], &[])?;
    let da = op(g, "Mul", &[&partial_a, &d], &[])?;
    let dx = op(g, "Mul", &[&partial_x, &d], &[])?;
    Ok((reduce(ctx, &da, 0)?, reduce(ctx, &dx, 1)?))
}

fn igamma_grad(ctx: &GradContext<'_>) -> Grads {
    let (da, dx) = igamma_partials(ctx)?;
    Ok(vec![Some(da), Some(dx)])
}

/// `igammac = 1 - igamma`: the negated gradients of `igamma`.
fn igammac_grad(ctx: &GradContext<'_>) -> Grads {
    let (da, dx) = igamma_partials(ctx)?;
    let g = ctx.graph();
    Ok(vec![
        Some(op(g, "Neg", &[&da], &[])?),
        Some(op(g, "Neg", &[&dx], &[])?),
    ])
}

/// `betainc(a, b, x)`: only `x` gets a gradient (TensorFlow has none for `a` and `b`), the beta
/// density `exp(xlog1py(b - 1, -x) + xlogy(a - 1, x) - log B(a, b))`, reduced against `a`'s
/// shape as TensorFlow's `_BetaincGrad` does.
fn betainc_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, a, b, x) = (ctx.grad0()?, ctx.input(0), ctx.input(1), ctx.input(2));
    let g = ctx.graph();
    let lga = op(g, "Lgamma", &[&a], &[])?;
    let lgb = op(g, "Lgamma", &[&b], &[])?;
    let ab = op(g, "AddV2", &[&a, &b], &[])?;
    let lgab = op(g, "Lgamma", &[&ab], &[])?;
    let t = op(g, "AddV2", &[&lga, &lgb], &[])?;
    let log_beta = op(g, "Sub", &[&t, &lgab], &[])?;
    let bm1 = op(g, "Sub", &[&b, &scalar_like(&b, 1.0)?], &[])?;
    let neg_x = op(g, "Neg", &[&x], &[])?;
    let t1 = op(g, "Xlog1py", &[&bm1, &neg_x], &[])?;
    let am1 = op(g, "Sub", &[&a, &scalar_like(&a, 1.0)?], &[])?;
    let t2 = op(g, "Xlogy", &[&am1, &x], &[])?;
    let t = op(g, "AddV2", &[&t1, &t2], &[])?;
    let t = op(g, "Sub", &[&t, &log_beta], &[])?;
    let partial_x = op(g, "Exp", &[&t], &[])?;
    let dx = op(g, "Mul", &[&partial_x, &d], &[])?;
    let dx = reduce_to_shape_of(&dx, &x, &a, 1)?;
    Ok(vec![None, None, Some(dx)])
}

/// Ops TensorFlow declares not differentiable (`ops.NotDifferentiable`).
const NOT_DIFFERENTIABLE: &[&str] = &[
    "ApproximateEqual",
    "BitwiseAnd",
    "BitwiseOr",
    "BitwiseXor",
    "Invert",
    "PopulationCount",
    "LeftShift",
    "RightShift",
];

pub(super) fn register() {
    register_gradient("Atan2", atan2_grad);
    register_gradient("Xlogy", xlogy_grad);
    register_gradient("Xlog1py", xlog1py_grad);
    register_gradient("Xdivy", xdivy_grad);
    register_gradient("MulNoNan", mul_no_nan_grad);
    register_gradient("NextAfter", nextafter_grad);
    register_gradient("Igamma", igamma_grad);
    register_gradient("Igammac", igammac_grad);
    register_gradient("Betainc", betainc_grad);
    for op in NOT_DIFFERENTIABLE {
        register_not_differentiable(op);
    }
}
