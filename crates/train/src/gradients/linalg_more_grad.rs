//! Gradients of `TridiagonalMatMul`, `TridiagonalSolve` and `BandedTriangularSolve`
//! (TensorFlow's `_TridiagonalMatMulGrad`, `_TridiagonalSolveGrad` and
//! `_BandedTriangularSolveGrad` of `linalg_grad.py`), built from the ops TensorFlow's Python
//! emits. `Lu` has no gradient in TensorFlow 2.21, nor here.

use weir_graph::{AttrValue, Error, Graph, Output, Result};
use weir_ops::array::{expand_dims, pad, stack, ArrayExt, ELLIPSIS};
use weir_ops::math::{add, mul, reduce_sum};
use weir_ops::s;

use super::op;
use super::registry::{register_gradient, GradContext};
use super::util::conj;

type Grads = Result<Vec<Option<Output>>>;

fn rank(x: &Output) -> Result<usize> {
    x.shape().rank().ok_or_else(|| {
        Error::unimplemented("The gradient needs the rank of its tensors to be known")
    })
}

/// Zero paddings for all but the last `tail.len()` dimensions of `x`, then `tail`.
fn padded(x: Output, tail: &[[i64; 2]]) -> Result<Output> {
    let r = rank(&x)?;
    let mut p = vec![[0i64, 0]; r - tail.len()];
    p.extend_from_slice(tail);
    pad(x, &p)
}

/// `_LeftShift`: `x[..., 1:, :]` padded with a zero row at the end.
fn left_shift(x: &Output) -> Result<Output> {
    padded(x.at(s![ELLIPSIS, 1.., ..])?, &[[0, 1], [0, 0]])
}

/// `_RightShift`: `x[..., :-1, :]` padded with a zero row at the start.
fn right_shift(x: &Output) -> Result<Output> {
    padded(x.at(s![ELLIPSIS, ..-1, ..])?, &[[1, 0], [0, 0]])
}

/// `array_ops.matrix_transpose(x, conjugate=True)`: `ConjugateTranspose` for complex `x`.
fn adjoint(g: &Graph, x: &Output) -> Result<Output> {
    let r = rank(x)? as i32;
    let mut perm: Vec<i32> = (0..r).collect();
    perm.swap(r as usize - 2, r as usize - 1);
    let p = super::util::konst(g, weir_graph::Tensor::from(perm))?;
    let t = if x.dtype().is_complex() {
        "ConjugateTranspose"
    } else {
        "Transpose"
    };
    op(g, t, &[x, &p], &[])
}

/// `_TridiagonalMatMulGrad`.
fn tridiagonal_matmul_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let grad = ctx.grad0()?;
    let sup = adjoint(g, &ctx.input(0))?;
    let main = adjoint(g, &ctx.input(1))?;
    let sub = adjoint(g, &ctx.input(2))?;
    let rhs = conj(&ctx.input(3))?;
    let sum = |x: Output| reduce_sum(x, -1i64);
    let sup_grad = sum(mul(left_shift(&rhs)?, &grad)?)?;
    let main_grad = sum(mul(&rhs, &grad)?)?;
    let sub_grad = sum(mul(right_shift(&rhs)?, &grad)?)?;
    let rhs_grad = add(
        add(right_shift(&mul(sup, &grad)?)?, mul(main, &grad)?)?,
        left_shift(&mul(sub, &grad)?)?,
    )?;
    Ok(vec![
        Some(expand_dims(sup_grad, -2)?),
        Some(expand_dims(main_grad, -2)?),
        Some(expand_dims(sub_grad, -2)?),
        Some(rhs_grad),
    ])
}

/// `_TransposeTridiagonalMatrix`: the compact diagonals of the transposed matrices.
fn transpose_tridiagonal(diags: &Output) -> Result<Output> {
    let diag = diags.at(s![ELLIPSIS, 1, ..])?;
    let sup = padded(diags.at(s![ELLIPSIS, 2, 1..])?, &[[0, 1]])?;
    let sub = padded(diags.at(s![ELLIPSIS, 0, ..-1])?, &[[1, 0]])?;
    stack(&[sup, diag, sub], -2)
}

/// `_MatmulExtractingThreeDiagonals(x, y_tr)`: the three middle diagonals of `x y_tr^T`.
fn matmul_three_diagonals(x: &Output, y_tr: &Output) -> Result<Output> {
    let sum = |a: Output| reduce_sum(a, -1i64);
    let diag = sum(mul(x, y_tr)?)?;
    let sup = sum(mul(
        x,
        padded(y_tr.at(s![ELLIPSIS, 1.., ..])?, &[[0, 1], [0, 0]])?,
    )?)?;
    let sub = sum(mul(
        x,
        padded(y_tr.at(s![ELLIPSIS, ..-1, ..])?, &[[1, 0], [0, 0]])?,
    )?)?;
    stack(&[sup, diag, sub], -2)
}

/// `_TridiagonalSolveGrad`: `d rhs` solves the transposed system, `d diagonals` is minus the
/// three diagonals of `d rhs x^T`.
fn tridiagonal_solve_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let (diags, x, grad) = (ctx.input(0), ctx.output(0), ctx.grad0()?);
    let pivoting: bool = ctx.attr("partial_pivoting")?;
    let perturb: bool = ctx.attr("perturb_singular")?;
    let transposed = transpose_tridiagonal(&diags)?;
    let grad_rhs = op(
        g,
        "TridiagonalSolve",
        &[&transposed, &grad],
        &[
            ("partial_pivoting", AttrValue::Bool(pivoting)),
            ("perturb_singular", AttrValue::Bool(perturb)),
        ],
    )?;
    let three = matmul_three_diagonals(&grad_rhs, &x)?;
    let grad_diags = op(g, "Neg", &[&three], &[])?;
    Ok(vec![Some(grad_diags), Some(grad_rhs)])
}

/// `_BandedTriangularSolveGrad`: `d rhs` solves the adjoint system; `d bands` is the band of
/// `-d rhs C^H` (or `-C d rhs^H` for `adjoint`) in the bands' layout, both summed over
/// broadcast batch dimensions.
fn banded_triangular_solve_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let (a, b, c, grad) = (ctx.input(0), ctx.input(1), ctx.output(0), ctx.grad0()?);
    let lower: bool = ctx.attr("lower")?;
    let adj: bool = ctx.attr("adjoint")?;
    let grad_b = op(
        g,
        "BandedTriangularSolve",
        &[&a, &grad],
        &[
            ("lower", AttrValue::Bool(lower)),
            ("adjoint", AttrValue::Bool(!adj)),
        ],
    )?;
    let matmul = |x: &Output, y: &Output| {
        op(
            g,
            "BatchMatMulV2",
            &[x, y],
            &[
                ("adj_x", AttrValue::Bool(false)),
                ("adj_y", AttrValue::Bool(true)),
            ],
        )
    };
    let prod = if adj {
        matmul(&c, &grad_b)?
    } else {
        matmul(&grad_b, &c)?
    };
    let neg = op(g, "Neg", &[&prod], &[])?;
    // `num_bands = shape(a)[-2]`, static here when known.
    let bands = match a.shape().dim(-2) {
        Some(k) => weir_ops::array::constant(g, k as i32)?,
        None => weir_ops::array::shape(&a)?.at(s![-2])?,
    };
    let one = weir_ops::array::constant(g, 1i32)?;
    let span = op(g, "Sub", &[&bands, &one], &[])?;
    let zero = weir_ops::array::constant(g, 0i32)?;
    let k = if lower {
        stack(&[op(g, "Neg", &[&span], &[])?, zero], 0)?
    } else {
        stack(&[zero, span], 0)?
    };
    let pad_value = super::util::scalar_like(&neg, 0.0)?;
    let grad_a = op(
        g,
        "MatrixDiagPartV3",
        &[&neg, &k, &pad_value],
        &[("align", AttrValue::Str("LEFT_RIGHT".to_string()))],
    )?;
    let same = a.shape().is_fully_defined()
        && b.shape().is_fully_defined()
        && a.shape().dims().map(|d| d[..d.len() - 2].to_vec())
            == b.shape().dims().map(|d| d[..d.len() - 2].to_vec());
    if same {
        return Ok(vec![Some(grad_a), Some(grad_b)]);
    }
    Ok(vec![
        Some(super::util::reduce_batch_dims(&grad_a, &a)?),
        Some(super::util::reduce_batch_dims(&grad_b, &b)?),
    ])
}

/// Registers these gradients.
pub(crate) fn register() {
    register_gradient("BandedTriangularSolve", banded_triangular_solve_grad);
    register_gradient("TridiagonalMatMul", tridiagonal_matmul_grad);
    register_gradient("TridiagonalSolve", tridiagonal_solve_grad);
}
