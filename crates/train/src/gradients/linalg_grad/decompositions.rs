//! Gradients of the decompositions (TensorFlow's `_QrGrad`, `_SelfAdjointEigV2Grad`,
//! `_SvdGrad` and `_MatrixSquareRootGrad` of `linalg_grad.py`), built from the same math, with
//! TensorFlow's restrictions (statically known matrix dimensions; no `Qr` gradient for a full
//! `Q` of a tall matrix, no `Svd` one for full matrices more than one row or column from
//! square) and its messages. Outputs without a gradient count as zeros, as TensorFlow's
//! gradient driver fills them.

use weir_graph::{AttrValue, Error, Graph, Output, Result, Tensor};

use super::super::op;
use super::super::registry::{register_gradient, GradContext};
use super::super::util::{konst, scalar_like};
use super::{adjoint, band, matmul, Grads};

/// The gradient of output `i`, or zeros of its shape.
pub(super) fn grad_or_zeros(ctx: &GradContext<'_>, i: usize) -> Result<Output> {
    match ctx.grad(i) {
        Some(d) => Ok(d.clone()),
        None => op(ctx.graph(), "ZerosLike", &[&ctx.output(i)], &[]),
    }
}

/// A binary op of `ty` on `x` and `y`.
pub(super) fn binary(g: &Graph, ty: &str, x: &Output, y: &Output) -> Result<Output> {
    op(g, ty, &[x, y], &[])
}

fn right_left() -> (&'static str, AttrValue) {
    ("align", AttrValue::Str("RIGHT_LEFT".into()))
}

/// `array_ops.matrix_diag(d)`.
fn matrix_diag(g: &Graph, d: &Output) -> Result<Output> {
    let k = konst(g, Tensor::scalar(0i32))?;
    let minus1 = konst(g, Tensor::scalar(-1i32))?;
    let pad = scalar_like(d, 0.0)?;
    op(
        g,
        "MatrixDiagV3",
        &[d, &k, &minus1, &minus1, &pad],
        &[right_left()],
    )
}

/// `array_ops.matrix_set_diag(x, d)`.
fn set_diag(g: &Graph, x: &Output, d: &Output) -> Result<Output> {
    let k = konst(g, Tensor::scalar(0i32))?;
    op(g, "MatrixSetDiagV3", &[x, d, &k], &[right_left()])
}

fn expand_dims(g: &Graph, x: &Output, axis: i32) -> Result<Output> {
    op(g, "ExpandDims", &[x, &konst(g, Tensor::scalar(axis))?], &[])
}

/// `_SafeReciprocal(x)`: `x / (x^2 + 1e-20)`, finite where `x` is zero.
fn safe_reciprocal(g: &Graph, x: &Output) -> Result<Output> {
    let sq = binary(g, "Mul", x, x)?;
    let eps = scalar_like(x, 1e-20)?;
    let r = op(g, "Reciprocal", &[&binary(g, "AddV2", &sq, &eps)?], &[])?;
    binary(g, "Mul", x, &r)
}

/// `f(i, j) = 1 / (e_j - e_i)` off the diagonal, 0 on it, for the last axis of `e`.
fn reciprocal_gaps(g: &Graph, e: &Output) -> Result<Output> {
    let diff = binary(g, "Sub", &expand_dims(g, e, -2)?, &expand_dims(g, e, -1)?)?;
    let zeros = op(g, "ZerosLike", &[e], &[])?;
    set_diag(g, &safe_reciprocal(g, &diff)?, &zeros)
}

/// `x[..., :, start:end]` (`end` None for the rest), as TensorFlow's Python slicing builds it.
fn columns(g: &Graph, x: &Output, start: usize, end: Option<usize>) -> Result<Output> {
    let v = |last: i32| konst(g, Tensor::from(vec![0i32, 0, last]));
    let (begin_mask, end_mask) = match (start, end) {
        (0, _) => (6, if end.is_none() { 6 } else { 2 }),
        (_, None) => (2, 6),
        _ => (2, 2),
    };
    op(
        g,
        "StridedSlice",
        &[
            x,
            &v(start as i32)?,
            &v(end.unwrap_or(0) as i32)?,
            &konst(g, Tensor::from(vec![1i32, 1, 1]))?,
        ],
        &[
            ("begin_mask", AttrValue::Int(begin_mask)),
            ("end_mask", AttrValue::Int(end_mask)),
            ("ellipsis_mask", AttrValue::Int(1)),
            ("new_axis_mask", AttrValue::Int(0)),
            ("shrink_axis_mask", AttrValue::Int(0)),
        ],
    )
}

/// `_TriangularSolve(x, r)`: `x r^-T` for the upper-triangular `r`.
fn solve_right_upper(g: &Graph, x: &Output, r: &Output) -> Result<Output> {
    let s = op(
        g,
        "MatrixTriangularSolve",
        &[r, &adjoint(g, x)?],
        &[
            ("lower", AttrValue::Bool(false)),
            ("adjoint", AttrValue::Bool(false)),
        ],
    )?;
    adjoint(g, &s)
}

/// `_QrGradSquareAndDeepMatrices`.
fn qr_grad_deep(g: &Graph, q: &Output, r: &Output, dq: &Output, dr: &Output) -> Result<Output> {
    let qdq = matmul(g, q, dq, true, false)?;
    let qdq_ = binary(g, "Sub", &qdq, &adjoint(g, &qdq)?)?;
    let rdr = matmul(g, r, dr, false, true)?;
    let rdr_ = binary(g, "Sub", &rdr, &adjoint(g, &rdr)?)?;
    let tril = band(g, &binary(g, "AddV2", &qdq_, &rdr_)?, -1, 0)?;
    let inner = binary(g, "AddV2", dr, &solve_right_upper(g, &tril, r)?)?;
    let grad_a = matmul(g, q, &inner, false, false)?;
    let rest = binary(g, "Sub", dq, &matmul(g, q, &qdq, false, false)?)?;
    let grad_b = solve_right_upper(g, &rest, r)?;
    binary(g, "AddV2", &grad_a, &grad_b)
}

/// `_QrGrad` (https://arxiv.org/abs/2009.10071): square and tall matrices directly, wide ones
/// by splitting off the columns past the square part.
fn qr_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let (q, r) = (ctx.output(0), ctx.output(1));
    let rs = r.shape();
    let (Some(rm), Some(rn)) = (rs.dim(-2), rs.dim(-1)) else {
        return Err(Error::unimplemented(format!(
            "QrGrad not implemented with dynamic shapes. Received r.shape: {}",
            rs.python_str()
        )));
    };
    if rm > rn && q.shape().dim(-2) == q.shape().dim(-1) {
        return Err(Error::unimplemented(format!(
            "QrGrad not implemented when nrows > ncols and full_matrices is true. Received \
             r.shape={} with nrows={rm}and ncols={rn}.",
            rs.python_str()
        )));
    }
    let (dq, dr) = (grad_or_zeros(ctx, 0)?, grad_or_zeros(ctx, 1)?);
    let m = q
        .shape()
        .dim(-2)
        .ok_or_else(|| Error::unimplemented("QrGrad not implemented with dynamic shapes."))?;
    if m >= rn {
        return Ok(vec![Some(qr_grad_deep(g, &q, &r, &dq, &dr)?)]);
    }
    let a = ctx.input(0);
    let y = columns(g, &a, m, None)?;
    let u = columns(g, &r, 0, Some(m))?;
    let dv = columns(g, &dr, m, None)?;
    let du = columns(g, &dr, 0, Some(m))?;
    let dy = matmul(g, &q, &dv, false, false)?;
    let dq2 = binary(g, "AddV2", &dq, &matmul(g, &y, &dv, false, true)?)?;
    let dx = qr_grad_deep(g, &q, &u, &dq2, &du)?;
    let axis = konst(g, Tensor::scalar(-1i32))?;
    Ok(vec![Some(op(g, "ConcatV2", &[&dx, &dy, &axis], &[])?)])
}

/// `_SelfAdjointEigV2Grad`: `V (diag(de) + F * V^T dV) V^T`, then symmetrized onto the lower
/// triangle the forward op reads, with the diagonal halved.
fn eig_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let e = ctx.output(0);
    let grad_e = grad_or_zeros(ctx, 0)?;
    let compute_v: bool = ctx.attr("compute_v")?;
    let grad_a = if compute_v {
        let v = ctx.output(1);
        let grad_v = grad_or_zeros(ctx, 1)?;
        let f = reciprocal_gaps(g, &e)?;
        let vgv = matmul(g, &v, &grad_v, true, false)?;
        let mid = binary(
            g,
            "AddV2",
            &matrix_diag(g, &grad_e)?,
            &binary(g, "Mul", &f, &vgv)?,
        )?;
        matmul(g, &v, &matmul(g, &mid, &v, false, true)?, false, false)?
    } else {
        let node = super::super::op_node(
            g,
            "SelfAdjointEigV2",
            &[&ctx.input(0)],
            &[("compute_v", AttrValue::Bool(true))],
        )?;
        let v = node.output(1)?;
        let mid = matmul(g, &matrix_diag(g, &grad_e)?, &v, false, true)?;
        matmul(g, &v, &mid, false, false)?
    };
    let sym = band(
        g,
        &binary(g, "AddV2", &grad_a, &adjoint(g, &grad_a)?)?,
        -1,
        0,
    )?;
    let k = konst(g, Tensor::scalar(0i32))?;
    let pad = scalar_like(&sym, 0.0)?;
    let diag = op(g, "MatrixDiagPartV3", &[&sym, &k, &pad], &[right_left()])?;
    let half = binary(g, "Mul", &scalar_like(&sym, 0.5)?, &diag)?;
    Ok(vec![Some(set_diag(g, &sym, &half)?)])
}

/// `_SvdGrad` (Giles; Townsend for the thin case): for a tall matrix, the gradient of its
/// transpose, transposed back.
fn svd_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let a = ctx.input(0);
    let grad_s = grad_or_zeros(ctx, 0)?;
    let grad_s_mat = matrix_diag(g, &grad_s)?;
    if !ctx.attr::<bool>("compute_uv")? {
        let node = super::super::op_node(
            g,
            "Svd",
            &[&a],
            &[
                ("compute_uv", AttrValue::Bool(true)),
                ("full_matrices", AttrValue::Bool(false)),
            ],
        )?;
        let (u, v) = (node.output(1)?, node.output(2)?);
        let inner = matmul(g, &grad_s_mat, &v, false, true)?;
        return Ok(vec![Some(matmul(g, &u, &inner, false, false)?)]);
    }
    let full: bool = ctx.attr("full_matrices")?;
    let (mut grad_u, mut grad_v) = (grad_or_zeros(ctx, 1)?, grad_or_zeros(ctx, 2)?);
    let sh = a.shape();
    let (Some(mut m), Some(mut n)) = (
        sh.dim(-2).or(grad_u.shape().dim(-2)),
        sh.dim(-1).or(grad_v.shape().dim(-2)),
    ) else {
        return Err(Error::unimplemented(
            "SVD gradient has not been implemented for input with unknown inner matrix shape.",
        ));
    };
    let (s, mut u, mut v) = (ctx.output(0), ctx.output(1), ctx.output(2));
    let use_adjoint = m > n;
    if use_adjoint {
        std::mem::swap(&mut m, &mut n);
        std::mem::swap(&mut u, &mut v);
        std::mem::swap(&mut grad_u, &mut grad_v);
    }
    if full && n - m > 1 {
        return Err(Error::unimplemented(format!(
            "svd gradient is not implemented for abs(m - n) > 1 when full_matrices is True. \
             Received: m={m} and n={n} from op input={} with shape={}.",
            a.name(),
            sh.python_str()
        )));
    }
    let s_mat = matrix_diag(g, &s)?;
    let s2 = op(g, "Square", &[&s], &[])?;
    let f = reciprocal_gaps(g, &s2)?;
    let s_inv_mat = matrix_diag(g, &safe_reciprocal(g, &s)?)?;
    let v1 = columns(g, &v, 0, Some(m))?;
    let grad_v1 = columns(g, &grad_v, 0, Some(m))?;
    let u_gu = matmul(g, &u, &grad_u, true, false)?;
    let v_gv = matmul(g, &v1, &grad_v1, true, false)?;
    let f_u = binary(g, "Mul", &f, &u_gu)?;
    let f_v = binary(g, "Mul", &f, &v_gv)?;
    let sym_u = binary(g, "AddV2", &f_u, &adjoint(g, &f_u)?)?;
    let sym_v = binary(g, "AddV2", &f_v, &adjoint(g, &f_v)?)?;
    let term1_nouv = binary(
        g,
        "AddV2",
        &binary(
            g,
            "AddV2",
            &grad_s_mat,
            &matmul(g, &sym_u, &s_mat, false, false)?,
        )?,
        &matmul(g, &s_mat, &sym_v, false, false)?,
    )?;
    let term1 = matmul(
        g,
        &u,
        &matmul(g, &term1_nouv, &v1, false, true)?,
        false,
        false,
    )?;
    let grad = if m == n {
        term1
    } else {
        let gv1t = adjoint(g, &grad_v1)?;
        let gv1t_v1 = matmul(g, &gv1t, &v1, false, false)?;
        let mut term2_nous = binary(g, "Sub", &gv1t, &matmul(g, &gv1t_v1, &v1, false, true)?)?;
        if full {
            let v2 = columns(g, &v, m, Some(n))?;
            let grad_v2 = columns(g, &grad_v, m, Some(n))?;
            let v1t_gv2 = matmul(g, &v1, &grad_v2, true, false)?;
            term2_nous = binary(
                g,
                "Sub",
                &term2_nous,
                &matmul(g, &v1t_gv2, &v2, false, true)?,
            )?;
        }
        let u_s_inv = matmul(g, &u, &s_inv_mat, false, false)?;
        let term2 = matmul(g, &u_s_inv, &term2_nous, false, false)?;
        binary(g, "AddV2", &term1, &term2)?
    };
    let grad = if use_adjoint {
        adjoint(g, &grad)?
    } else {
        grad
    };
    Ok(vec![Some(grad)])
}

fn int_vec(g: &Graph, v: Vec<i32>) -> Result<Output> {
    konst(g, Tensor::from(v))
}

/// `shape[begin:end]` of an int32 shape vector (`end` 0 for the rest), or `shape[begin]` with
/// `shrink`.
fn shape_part(g: &Graph, shape: &Output, begin: i32, end: i32, shrink: bool) -> Result<Output> {
    let end_mask = i64::from(end == 0 && !shrink);
    op(
        g,
        "StridedSlice",
        &[
            shape,
            &int_vec(g, vec![begin])?,
            &int_vec(g, vec![end])?,
            &int_vec(g, vec![1])?,
        ],
        &[
            ("begin_mask", AttrValue::Int(0)),
            ("end_mask", AttrValue::Int(end_mask)),
            ("ellipsis_mask", AttrValue::Int(0)),
            ("new_axis_mask", AttrValue::Int(0)),
            ("shrink_axis_mask", AttrValue::Int(i64::from(shrink))),
        ],
    )
}

fn concat(g: &Graph, parts: &[&Output]) -> Result<Output> {
    let axis = konst(g, Tensor::scalar(0i32))?;
    let mut inputs: Vec<&Output> = parts.to_vec();
    inputs.push(&axis);
    op(g, "ConcatV2", &inputs, &[])
}

/// `_KroneckerProduct(b1, b2)` of two batches of `n x n` matrices with batch shape `batch`.
fn kronecker(g: &Graph, b1: &Output, b2: &Output, batch: &Output, n: &Output) -> Result<Output> {
    let one = int_vec(g, vec![1])?;
    let s1 = concat(g, &[batch, n, &one, n, &one])?;
    let s2 = concat(g, &[batch, &one, n, &one, n])?;
    let r1 = op(g, "Reshape", &[b1, &s1], &[])?;
    let r2 = op(g, "Reshape", &[b2, &s2], &[])?;
    let nn = binary(g, "Mul", n, n)?;
    let shape = concat(g, &[batch, &nn, &nn])?;
    op(g, "Reshape", &[&binary(g, "Mul", &r1, &r2)?, &shape], &[])
}

/// `_MatrixSquareRootGrad`: `dA` solves the Sylvester equation `R dA + dA R = g` through its
/// Kronecker form `(I (x) R^T + R (x) I) vec(dA^T) = vec(g^T)`.
fn sqrtm_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let (d, r) = (ctx.grad0()?, ctx.output(0));
    let shape = op(
        g,
        "Shape",
        &[&r],
        &[("out_type", AttrValue::Type(weir_graph::DType::I32))],
    )?;
    let n = shape_part(g, &shape, -1, 0, false)?;
    let batch = shape_part(g, &shape, 0, -2, false)?;
    let k = konst(g, Tensor::scalar(0i32))?;
    let pad = scalar_like(&r, 0.0)?;
    let diag = op(g, "MatrixDiagPartV3", &[&r, &k, &pad], &[right_left()])?;
    let eye = matrix_diag(g, &op(g, "OnesLike", &[&diag], &[])?)?;
    let k1 = kronecker(g, &eye, &adjoint(g, &r)?, &batch, &n)?;
    let k2 = kronecker(g, &r, &eye, &batch, &n)?;
    let ksum = binary(g, "AddV2", &k1, &k2)?;
    let nn = binary(g, "Mul", &n, &n)?;
    let vec_shape = concat(g, &[&batch, &nn, &int_vec(g, vec![1])?])?;
    let vec_da = op(g, "Reshape", &[&adjoint(g, &d)?, &vec_shape], &[])?;
    let vec_dr = op(
        g,
        "MatrixSolve",
        &[&ksum, &vec_da],
        &[("adjoint", AttrValue::Bool(false))],
    )?;
    let dr_t = op(g, "Reshape", &[&vec_dr, &shape], &[])?;
    Ok(vec![Some(adjoint(g, &dr_t)?)])
}

pub(super) fn register() {
    register_gradient("MatrixSquareRoot", sqrtm_grad);
    register_gradient("Qr", qr_grad);
    register_gradient("SelfAdjointEigV2", eig_grad);
    register_gradient("Svd", svd_grad);
}
