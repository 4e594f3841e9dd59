//! Gradients of the complex ops, built from the ops TensorFlow's `math_grad.py` and
//! `array_grad.py` build: `Complex` (the real and imaginary parts of the incoming gradient,
//! each summed back to its input's shape), `Real`/`Imag` (the gradient as the real or
//! imaginary part of a complex one), `Conj`, `Angle`, `ComplexAbs` and `ConjugateTranspose`.

use weir_graph::{AttrValue, DType, Output, Result};

use super::op;
use super::registry::{register_gradient, GradContext};
use super::util::{reduce_to_shape_of, scalar_like};

type Grads = Result<Vec<Option<Output>>>;

fn complex_of(dt: DType) -> Result<DType> {
    match dt {
        DType::F32 => Ok(DType::C64),
        DType::F64 => Ok(DType::C128),
        other => Err(weir_graph::Error::invalid_argument(format!(
            "Expected float32 or float64 gradient, got {other}"
        ))),
    }
}

fn real_of(dt: DType) -> Result<DType> {
    match dt {
        DType::C64 => Ok(DType::F32),
        DType::C128 => Ok(DType::F64),
        other => Err(weir_graph::Error::invalid_argument(format!(
            "Expected complex64 or complex128 gradient, got {other}"
        ))),
    }
}

/// `Real` or `Imag` of complex `z`.
fn part(kind: &str, z: &Output) -> Result<Output> {
    let tout = real_of(z.dtype())?;
    op(z.graph(), kind, &[z], &[("Tout", AttrValue::Type(tout))])
}

/// `tf.complex(re, im)` of two real tensors.
fn complex(re: &Output, im: &Output) -> Result<Output> {
    let tout = complex_of(re.dtype())?;
    op(
        re.graph(),
        "Complex",
        &[re, im],
        &[("Tout", AttrValue::Type(tout))],
    )
}

/// `complex(x, y)`: `real(d)` and `imag(d)`, each summed back to its input's shape.
fn complex_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let (x, y) = (ctx.input(0), ctx.input(1));
    let re = part("Real", &d)?;
    let im = part("Imag", &d)?;
    Ok(vec![
        Some(reduce_to_shape_of(&re, &x, &y, 0)?),
        Some(reduce_to_shape_of(&im, &y, &x, 1)?),
    ])
}

/// `real(z)`: `complex(d, 0)`.
fn real_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let zero = scalar_like(&d, 0.0)?;
    Ok(vec![Some(complex(&d, &zero)?)])
}

/// `imag(z)`: `complex(0, d)`.
fn imag_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let zero = scalar_like(&d, 0.0)?;
    Ok(vec![Some(complex(&zero, &d)?)])
}

/// `conj(z)`: `conj(d)`.
fn conj_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    Ok(vec![Some(op(ctx.graph(), "Conj", &[&d], &[])?)])
}

/// `angle(z)`: `-complex(d, 0) / complex(imag(z), real(z))`, after `d` is available (TensorFlow
/// builds it under a control dependency on the gradient).
fn angle_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let z = ctx.input(0);
    let g = ctx.graph();
    let _deps = g.control_dependencies(&[d.op()])?;
    let re = part("Real", &z)?;
    let im = part("Imag", &z)?;
    let swapped = complex(&im, &re)?;
    let inv = op(g, "Reciprocal", &[&swapped], &[])?;
    let zero = scalar_like(&d, 0.0)?;
    let cd = complex(&d, &zero)?;
    let neg = op(g, "Neg", &[&cd], &[])?;
    Ok(vec![Some(op(g, "Mul", &[&neg, &inv], &[])?)])
}

/// `abs(z)`: `div_no_nan(complex(d, 0) * z, complex(|z|, 0))`.
fn complex_abs_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let (z, y) = (ctx.input(0), ctx.output(0));
    let g = ctx.graph();
    let dz = op(g, "ZerosLike", &[&d], &[])?;
    let cd = complex(&d, &dz)?;
    let num = op(g, "Mul", &[&cd, &z], &[])?;
    let yz = op(g, "ZerosLike", &[&y], &[])?;
    let cy = complex(&y, &yz)?;
    Ok(vec![Some(op(g, "DivNoNan", &[&num, &cy], &[])?)])
}

/// `conjugate_transpose(x, perm)`: the conjugate transpose of `d` by the inverse permutation
/// (a plain `Transpose` for real gradients, as `tf.transpose(conjugate=True)` builds).
fn conjugate_transpose_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let g = ctx.graph();
    let inv = op(g, "InvertPermutation", &[&ctx.input(1)], &[])?;
    let kind = if d.dtype().is_complex() {
        "ConjugateTranspose"
    } else {
        "Transpose"
    };
    Ok(vec![Some(op(g, kind, &[&d, &inv], &[])?), None])
}

pub(super) fn register() {
    register_gradient("Complex", complex_grad);
    register_gradient("Real", real_grad);
    register_gradient("Imag", imag_grad);
    register_gradient("Conj", conj_grad);
    register_gradient("Angle", angle_grad);
    register_gradient("ComplexAbs", complex_abs_grad);
    register_gradient("ConjugateTranspose", conjugate_transpose_grad);
}
