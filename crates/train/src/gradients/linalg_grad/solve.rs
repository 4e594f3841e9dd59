//! Gradients of the solves and their relatives (TensorFlow's `_MatrixSolveGrad`,
//! `_MatrixSolveLsGrad` (the fast path: TensorFlow has none for `fast=False`),
//! `_LogMatrixDeterminantGrad` of `linalg_grad.py` and `_CrossGrad` of `math_grad.py`), built
//! from the ops TensorFlow's Python emits.

use weir_graph::{AttrValue, Error, Graph, Output, Result, Tensor};

use super::super::op;
use super::super::registry::{register_gradient, GradContext};
use super::super::util::{cast_like, konst, scalar_like, shape_of};
use super::decompositions::{binary, grad_or_zeros};
use super::{adjoint, matmul, Grads};

fn neg(g: &Graph, x: &Output) -> Result<Output> {
    op(g, "Neg", &[x], &[])
}

/// `_MatrixSolveGrad`: `dB = A^-T g` and `dA = -dB X^T` (transposed for `adjoint`).
fn solve_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let (d, a, c) = (ctx.grad0()?, ctx.input(0), ctx.output(0));
    let adj: bool = ctx.attr("adjoint")?;
    let grad_b = op(
        g,
        "MatrixSolve",
        &[&a, &d],
        &[("adjoint", AttrValue::Bool(!adj))],
    )?;
    let prod = if adj {
        matmul(g, &c, &grad_b, false, true)?
    } else {
        matmul(g, &grad_b, &c, false, true)?
    };
    Ok(vec![Some(neg(g, &prod)?), Some(grad_b)])
}

/// `linalg_ops.cholesky_solve(chol, rhs)`: two triangular solves.
fn cholesky_solve(g: &Graph, chol: &Output, rhs: &Output) -> Result<Output> {
    let tri = |x: &Output, adj: bool| {
        op(
            g,
            "MatrixTriangularSolve",
            &[chol, x],
            &[
                ("lower", AttrValue::Bool(true)),
                ("adjoint", AttrValue::Bool(adj)),
            ],
        )
    };
    tri(&tri(rhs, false)?, true)
}

/// `_RegularizedGramianCholesky`: the Cholesky factor of `A^T A + l2 I` (`first_kind`) or
/// `A A^T + l2 I`; the identity is the diagonal of ones of the gramian's shape.
fn gramian_cholesky(g: &Graph, a: &Output, l2: &Output, first_kind: bool) -> Result<Output> {
    let gram = matmul(g, a, a, first_kind, !first_kind)?;
    let (k, minus1) = (
        konst(g, Tensor::scalar(0i32))?,
        konst(g, Tensor::scalar(-1i32))?,
    );
    let align = || ("align", AttrValue::Str("RIGHT_LEFT".into()));
    let pad = scalar_like(a, 0.0)?;
    let diag = op(g, "MatrixDiagPartV3", &[&gram, &k, &pad], &[align()])?;
    let ones = op(g, "OnesLike", &[&diag], &[])?;
    let eye = op(
        g,
        "MatrixDiagV3",
        &[&ones, &k, &minus1, &minus1, &pad],
        &[align()],
    )?;
    let gram = binary(g, "AddV2", &gram, &binary(g, "Mul", l2, &eye)?)?;
    op(g, "Cholesky", &[&gram], &[])
}

/// `_MatrixSolveLsGrad`, the backprop of the normal equations of the first kind (tall or
/// square `A`) or of the second (wide `A`).
fn solve_ls_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    if !ctx.attr::<bool>("fast")? {
        return Err(Error::invalid_argument(
            "Gradient not defined for fast=False",
        ));
    }
    let (d, a, b, x) = (ctx.grad0()?, ctx.input(0), ctx.input(1), ctx.output(0));
    let s = a.shape();
    let (Some(m), Some(n)) = (s.dim(-2), s.dim(-1)) else {
        // TensorFlow picks the branch with a `cond` at run time.
        return Err(Error::unimplemented(
            "The MatrixSolveLs gradient needs the matrix dimensions statically known",
        ));
    };
    let l2 = cast_like(&ctx.input(2), a.dtype())?;
    if m >= n {
        let chol = gramian_cholesky(g, &a, &l2, true)?;
        let z = cholesky_solve(g, &chol, &d)?;
        let xzt = matmul(g, &x, &z, false, true)?;
        let zx_sym = binary(g, "AddV2", &xzt, &adjoint(g, &xzt)?)?;
        let grad_a = binary(
            g,
            "AddV2",
            &neg(g, &matmul(g, &a, &zx_sym, false, false)?)?,
            &matmul(g, &b, &z, false, true)?,
        )?;
        let grad_b = matmul(g, &a, &z, false, false)?;
        return Ok(vec![Some(grad_a), Some(grad_b), None]);
    }
    let chol = gramian_cholesky(g, &a, &l2, false)?;
    let grad_b = cholesky_solve(g, &chol, &matmul(g, &a, &d, false, false)?)?;
    let tmp = cholesky_solve(g, &chol, &b)?;
    let a1 = matmul(g, &tmp, &a, true, false)?;
    let a1 = neg(g, &matmul(g, &grad_b, &a1, false, false)?)?;
    let a2 = binary(g, "Sub", &d, &matmul(g, &a, &grad_b, true, false)?)?;
    let a2 = matmul(g, &tmp, &a2, false, true)?;
    Ok(vec![
        Some(binary(g, "AddV2", &a1, &a2)?),
        Some(grad_b),
        None,
    ])
}

/// `_LogMatrixDeterminantGrad`: `g * inv(A)^T` per matrix (the sign has no gradient).
fn log_det_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let (a, c) = (ctx.input(0), ctx.output(1));
    let d = grad_or_zeros(ctx, 1)?;
    let a_adj_inv = op(
        g,
        "MatrixInverse",
        &[&a],
        &[("adjoint", AttrValue::Bool(true))],
    )?;
    let ones = konst(g, Tensor::from(vec![1i32, 1]))?;
    let axis = konst(g, Tensor::scalar(0i32))?;
    let shape = op(g, "ConcatV2", &[&shape_of(&c)?, &ones, &axis], &[])?;
    let multipliers = op(g, "Reshape", &[&d, &shape], &[])?;
    Ok(vec![Some(binary(g, "Mul", &multipliers, &a_adj_inv)?)])
}

/// `_CrossGrad`: `(b x g, g x a)`.
fn cross_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let (d, u, v) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    Ok(vec![
        Some(binary(g, "Cross", &v, &d)?),
        Some(binary(g, "Cross", &d, &u)?),
    ])
}

pub(super) fn register() {
    register_gradient("MatrixSolve", solve_grad);
    register_gradient("MatrixSolveLs", solve_ls_grad);
    register_gradient("LogMatrixDeterminant", log_det_grad);
    register_gradient("Cross", cross_grad);
}
