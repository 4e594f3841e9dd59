//! Gradients of the linear-algebra ops (TensorFlow's `linalg_grad.py` and the matrix parts of
//! `array_grad.py`): diagonals and bands, `MatrixInverse`, `MatrixDeterminant`, `Cholesky`,
//! `MatrixTriangularSolve`, and (in `einsum`) `Einsum`.

mod decompositions;
mod einsum;
mod solve;

use weir_graph::{AttrValue, Error, Graph, Output, Result, Tensor};

use super::op;
use super::registry::{register_gradient, GradContext};
use super::util::{konst, reduce_batch_dims, scalar_like, shape_of};

type Grads = Result<Vec<Option<Output>>>;

fn matmul(g: &Graph, a: &Output, b: &Output, adj_a: bool, adj_b: bool) -> Result<Output> {
    op(
        g,
        "BatchMatMulV2",
        &[a, b],
        &[
            ("adj_x", AttrValue::Bool(adj_a)),
            ("adj_y", AttrValue::Bool(adj_b)),
        ],
    )
}

fn align(ctx: &GradContext<'_>) -> Result<(&'static str, AttrValue)> {
    Ok(("align", AttrValue::Str(ctx.attr::<String>("align")?)))
}

fn diag_part(g: &Graph, x: &Output, k: &Output, align: (&str, AttrValue)) -> Result<Output> {
    op(
        g,
        "MatrixDiagPartV3",
        &[x, k, &scalar_like(x, 0.0)?],
        &[align],
    )
}

fn band(g: &Graph, x: &Output, lower: i64, upper: i64) -> Result<Output> {
    let (lo, up) = (
        konst(g, Tensor::scalar(lower))?,
        konst(g, Tensor::scalar(upper))?,
    );
    op(g, "MatrixBandPart", &[x, &lo, &up], &[])
}

/// The conjugate transpose of the last two dimensions (`_linalg.adjoint`, real here).
fn adjoint(g: &Graph, x: &Output) -> Result<Output> {
    let rank = x.shape().rank().ok_or_else(|| {
        Error::unimplemented("The gradient needs the rank of its matrices to be known")
    })?;
    let mut perm: Vec<i32> = (0..rank as i32).collect();
    perm.swap(rank - 2, rank - 1);
    op(g, "Transpose", &[x, &konst(g, Tensor::from(perm))?], &[])
}

/// `_MatrixDiagV3Grad`: the diagonals of the gradient.
fn matrix_diag_grad(ctx: &GradContext<'_>) -> Grads {
    let dx = diag_part(ctx.graph(), &ctx.grad0()?, &ctx.input(1), align(ctx)?)?;
    Ok(vec![Some(dx), None, None, None, None])
}

/// `_MatrixDiagPartV3Grad`: the gradient put back on the diagonals of a zero matrix.
fn matrix_diag_part_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, k) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let g = ctx.graph();
    let s = x.shape();
    let pad = scalar_like(&d, 0.0)?;
    let dx = match (s.dim(-2), s.dim(-1)) {
        (Some(rows), Some(cols)) => {
            let rows = konst(g, Tensor::scalar(rows as i32))?;
            let cols = konst(g, Tensor::scalar(cols as i32))?;
            op(
                g,
                "MatrixDiagV3",
                &[&d, &k, &rows, &cols, &pad],
                &[align(ctx)?],
            )?
        }
        _ => {
            let zeros = op(g, "ZerosLike", &[&x], &[])?;
            op(g, "MatrixSetDiagV3", &[&zeros, &d, &k], &[align(ctx)?])?
        }
    };
    Ok(vec![Some(dx), None, None])
}

/// `_MatrixSetDiagGradV3`: the input gets the gradient off the diagonals, the diagonal its
/// values on them.
fn matrix_set_diag_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, diagonal, k) = (ctx.grad0()?, ctx.input(1), ctx.input(2));
    let g = ctx.graph();
    let zeros = op(g, "ZerosLike", &[&diagonal], &[])?;
    let dx = op(g, "MatrixSetDiagV3", &[&d, &zeros, &k], &[align(ctx)?])?;
    let dd = diag_part(g, &d, &k, align(ctx)?)?;
    Ok(vec![Some(dx), Some(dd), None])
}

fn diag_grad(ctx: &GradContext<'_>) -> Grads {
    let other = if ctx.op().op_type() == "Diag" {
        "DiagPart"
    } else {
        "Diag"
    };
    Ok(vec![Some(op(ctx.graph(), other, &[&ctx.grad0()?], &[])?)])
}

fn band_part_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, lo, up) = (ctx.grad0()?, ctx.input(1), ctx.input(2));
    Ok(vec![
        Some(op(ctx.graph(), "MatrixBandPart", &[&d, &lo, &up], &[])?),
        None,
        None,
    ])
}

/// `_MatrixInverseGrad`: `-inv^T g inv^T` (with the adjoints swapped for `adjoint=True`).
fn inverse_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, inv) = (ctx.grad0()?, ctx.output(0));
    let adj: bool = ctx.attr("adjoint")?;
    let g = ctx.graph();
    let inner = matmul(g, &d, &inv, adj, !adj)?;
    let outer = matmul(g, &inv, &inner, !adj, false)?;
    Ok(vec![Some(op(g, "Neg", &[&outer], &[])?)])
}

/// `_MatrixDeterminantGrad`: `g * det * inv(A)^T`.
fn determinant_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, a, c) = (ctx.grad0()?, ctx.input(0), ctx.output(0));
    let g = ctx.graph();
    let a_adj_inv = op(
        g,
        "MatrixInverse",
        &[&a],
        &[("adjoint", AttrValue::Bool(true))],
    )?;
    let shape = match c.shape().to_known() {
        Some(dims) => {
            let mut v: Vec<i32> = dims.iter().map(|&x| x as i32).collect();
            v.extend([1, 1]);
            konst(g, Tensor::from(v))?
        }
        None => {
            let ones = konst(g, Tensor::from(vec![1i32, 1]))?;
            let axis = konst(g, Tensor::scalar(0i32))?;
            op(g, "ConcatV2", &[&shape_of(&c)?, &ones, &axis], &[])?
        }
    };
    let multipliers = op(g, "Reshape", &[&op(g, "Mul", &[&d, &c], &[])?, &shape], &[])?;
    Ok(vec![Some(op(g, "Mul", &[&multipliers, &a_adj_inv], &[])?)])
}

/// `_CholeskyGrad`: `L^-H ((L^H g) * (tril(ones) - eye/2)) L^-1`, symmetrized.
fn cholesky_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, l) = (ctx.grad0()?, ctx.output(0));
    let g = ctx.graph();
    let k0 = konst(g, Tensor::scalar(0i32))?;
    let no = || ("align", AttrValue::Str("RIGHT_LEFT".into()));
    // The identity of L's batch shape (`linalg_ops.eye(num_rows, batch_shape)`).
    let ones = op(g, "OnesLike", &[&diag_part(g, &l, &k0, no())?], &[])?;
    let minus1 = konst(g, Tensor::scalar(-1i32))?;
    let eye = op(
        g,
        "MatrixDiagV3",
        &[&ones, &k0, &minus1, &minus1, &scalar_like(&l, 0.0)?],
        &[no()],
    )?;
    let l_inv = op(
        g,
        "MatrixTriangularSolve",
        &[&l, &eye],
        &[
            ("lower", AttrValue::Bool(true)),
            ("adjoint", AttrValue::Bool(false)),
        ],
    )?;
    let middle = matmul(g, &l, &d, true, false)?;
    let half_diag = op(
        g,
        "Mul",
        &[&scalar_like(&l, 0.5)?, &diag_part(g, &middle, &k0, no())?],
        &[],
    )?;
    let middle = op(g, "MatrixSetDiagV3", &[&middle, &half_diag, &k0], &[no()])?;
    let middle = band(g, &middle, -1, 0)?;
    let grad_a = matmul(
        g,
        &matmul(g, &l_inv, &middle, true, false)?,
        &l_inv,
        false,
        false,
    )?;
    let grad_a = op(g, "AddV2", &[&grad_a, &adjoint(g, &grad_a)?], &[])?;
    Ok(vec![Some(op(
        g,
        "Mul",
        &[&grad_a, &scalar_like(&l, 0.5)?],
        &[],
    )?)])
}

/// `_MatrixTriangularSolveGrad`, with broadcast batch dimensions summed back.
fn triangular_solve_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, a, b, c) = (ctx.grad0()?, ctx.input(0), ctx.input(1), ctx.output(0));
    let (adj, lower): (bool, bool) = (ctx.attr("adjoint")?, ctx.attr("lower")?);
    let g = ctx.graph();
    let grad_b = op(
        g,
        "MatrixTriangularSolve",
        &[&a, &d],
        &[
            ("lower", AttrValue::Bool(lower)),
            ("adjoint", AttrValue::Bool(!adj)),
        ],
    )?;
    let prod = if adj {
        matmul(g, &c, &grad_b, false, true)?
    } else {
        matmul(g, &grad_b, &c, false, true)?
    };
    let grad_a = op(g, "Neg", &[&prod], &[])?;
    let grad_a = if lower {
        band(g, &grad_a, -1, 0)?
    } else {
        band(g, &grad_a, 0, -1)?
    };
    let (sa, sb) = (a.shape(), b.shape());
    let batch = |s: &weir_graph::Shape| s.dims().map(|d| d[..d.len().saturating_sub(2)].to_vec());
    if sa.is_fully_defined() && sb.is_fully_defined() && batch(&sa) == batch(&sb) {
        return Ok(vec![Some(grad_a), Some(grad_b)]);
    }
    Ok(vec![
        Some(reduce_batch_dims(&grad_a, &a)?),
        Some(reduce_batch_dims(&grad_b, &b)?),
    ])
}

pub(super) fn register() {
    register_gradient("MatrixDiagV3", matrix_diag_grad);
    register_gradient("MatrixDiagPartV3", matrix_diag_part_grad);
    register_gradient("MatrixSetDiagV3", matrix_set_diag_grad);
    register_gradient("Diag", diag_grad);
    register_gradient("DiagPart", diag_grad);
    register_gradient("MatrixBandPart", band_part_grad);
    register_gradient("MatrixInverse", inverse_grad);
    register_gradient("MatrixDeterminant", determinant_grad);
    register_gradient("Cholesky", cholesky_grad);
    register_gradient("MatrixTriangularSolve", triangular_solve_grad);
    register_gradient("Einsum", einsum::einsum_grad);
    decompositions::register();
    solve::register();
}
