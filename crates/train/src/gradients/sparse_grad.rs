//! Gradients of the sparse arithmetic ops (TensorFlow's `sparse_grad.py`):
//! `SparseTensorDenseMatMul`, `SparseDenseCwise{Mul,Div,Add}`, `SparseTensorDenseAdd`,
//! `SparseAdd` and `SparseReduceSum`. Indices, dense shapes, axes and thresholds get none;
//! `SparseAddGrad` is not differentiable.

use weir_graph::{AttrValue, DType, Output, Result, Tensor};

use super::op;
use super::registry::{register_gradient, register_not_differentiable, GradContext};
use super::util::konst;

type Grads = Result<Vec<Option<Output>>>;

fn int32(ctx: &GradContext<'_>, v: Vec<i32>) -> Result<Output> {
    konst(ctx.graph(), Tensor::from(v))
}

fn scalar32(ctx: &GradContext<'_>, v: i32) -> Result<Output> {
    konst(ctx.graph(), Tensor::scalar(v))
}

fn transpose(ctx: &GradContext<'_>, x: &Output) -> Result<Output> {
    op(
        ctx.graph(),
        "Transpose",
        &[x, &int32(ctx, vec![1, 0])?],
        &[],
    )
}

/// `_SparseTensorDenseMatMulGrad`: `b` gets `op(a)^T . grad` (transposed back when `b` was
/// adjointed); each value of `a` gets the dot product of the gradient row and the row of
/// `op(b)^T` its index selects.
fn matmul_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let grad = ctx.grad0()?;
    let (ix, values, shape, b) = (ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3));
    let adj_a: bool = ctx.attr("adjoint_a")?;
    let adj_b: bool = ctx.attr("adjoint_b")?;
    let mut b_grad = op(
        g,
        "SparseTensorDenseMatMul",
        &[&ix, &values, &shape, &grad],
        &[
            ("adjoint_a", AttrValue::Bool(!adj_a)),
            ("adjoint_b", AttrValue::Bool(false)),
        ],
    )?;
    if adj_b {
        b_grad = transpose(ctx, &b_grad)?;
    }
    let column = |c: i32| -> Result<Output> {
        op(
            g,
            "GatherV2",
            &[&ix, &scalar32(ctx, c)?, &scalar32(ctx, 1)?],
            &[],
        )
    };
    let (rows, cols) = (column(0)?, column(1)?);
    let axis0 = scalar32(ctx, 0)?;
    let parts_a = op(
        g,
        "GatherV2",
        &[&grad, if adj_a { &cols } else { &rows }, &axis0],
        &[],
    )?;
    let b_rows = if adj_b { transpose(ctx, &b)? } else { b };
    let parts_b = op(
        g,
        "GatherV2",
        &[&b_rows, if adj_a { &rows } else { &cols }, &axis0],
        &[],
    )?;
    let prod = op(g, "Mul", &[&parts_a, &parts_b], &[])?;
    let values_grad = op(
        g,
        "Sum",
        &[&prod, &int32(ctx, vec![1])?],
        &[("keep_dims", AttrValue::Bool(false))],
    )?;
    Ok(vec![None, Some(values_grad), None, Some(b_grad)])
}

/// The indices of the dense operand's entries that a `SparseDenseCwise*` op read: the sparse
/// indices divided by how much each dimension was broadcast, without the dimensions the dense
/// operand lacks (TensorFlow's `scaled_indices`); and the dense shape as int64.
fn scaled_indices(ctx: &GradContext<'_>) -> Result<(Output, Output)> {
    let g = ctx.graph();
    let (x_ix, x_shape, y) = (ctx.input(0), ctx.input(2), ctx.input(3));
    let y_shape = op(
        g,
        "Shape",
        &[&y],
        &[("out_type", AttrValue::Type(DType::I64))],
    )?;
    let size = |t: &Output| op(g, "Size", &[t], &[]);
    let added = op(g, "Sub", &[&size(&x_shape)?, &size(&y_shape)?], &[])?;
    let added = op(g, "ExpandDims", &[&added, &scalar32(ctx, 0)?], &[])?;
    let ones = op(g, "Fill", &[&added, &konst(g, Tensor::scalar(1i64))?], &[])?;
    let augmented = op(g, "ConcatV2", &[&ones, &y_shape, &scalar32(ctx, 0)?], &[])?;
    let scaling = op(g, "FloorDiv", &[&x_shape, &augmented], &[])?;
    let scaled = op(g, "FloorDiv", &[&x_ix, &scaling], &[])?;
    let begin = op(
        g,
        "ConcatV2",
        &[&int32(ctx, vec![0])?, &added, &scalar32(ctx, 0)?],
        &[],
    )?;
    let scaled = op(
        g,
        "Slice",
        &[&scaled, &begin, &int32(ctx, vec![-1, -1])?],
        &[],
    )?;
    Ok((scaled, y_shape))
}

/// `_SparseDenseCwiseMulOrDivGrad`, and the add's gradient: the sparse values get the
/// gradient times (or divided by) the dense entries they met; the dense operand gets the
/// gradient of each entry summed over every sparse value that met it.
fn cwise_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let grad = ctx.grad0()?;
    let (x_values, y) = (ctx.input(1), ctx.input(3));
    let (scaled, y_shape) = scaled_indices(ctx)?;
    let (dx, dy_val) = match ctx.op().op_type().as_str() {
        "SparseDenseCwiseAdd" => (op(g, "Identity", &[&grad], &[])?, grad.clone()),
        kind => {
            let dense_vals = op(g, "GatherNd", &[&y, &scaled], &[])?;
            if kind == "SparseDenseCwiseMul" {
                (
                    op(g, "Mul", &[&grad, &dense_vals], &[])?,
                    op(g, "Mul", &[&grad, &x_values], &[])?,
                )
            } else {
                let sq = op(g, "Square", &[&dense_vals], &[])?;
                let neg = op(g, "Neg", &[&x_values], &[])?;
                let q = op(g, "RealDiv", &[&neg, &sq], &[])?;
                (
                    op(g, "RealDiv", &[&grad, &dense_vals], &[])?,
                    op(g, "Mul", &[&grad, &q], &[])?,
                )
            }
        }
    };
    // Indices can repeat after scaling, so the values are added into zeros.
    let zeros = op(g, "ZerosLike", &[&y], &[])?;
    let dy = op(
        g,
        "SparseTensorDenseAdd",
        &[&scaled, &dy_val, &y_shape, &zeros],
        &[],
    )?;
    Ok(vec![None, Some(dx), None, Some(dy)])
}

/// `_SparseTensorDenseAddGrad`: the values get the gradient at their indices, the dense
/// operand all of it.
fn dense_add_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let grad = ctx.grad0()?;
    let values_grad = op(g, "GatherNd", &[&grad, &ctx.input(0)], &[])?;
    let dense_grad = op(g, "Identity", &[&grad], &[])?;
    Ok(vec![None, Some(values_grad), None, Some(dense_grad)])
}

/// `_SparseAddGrad`: `SparseAddGrad` matches both operands' indices against the sum's.
fn sparse_add_grad(ctx: &GradContext<'_>) -> Grads {
    let Some(val_grad) = ctx.grad(1).cloned() else {
        return Ok(vec![None; 7]);
    };
    let node = super::op_node(
        ctx.graph(),
        "SparseAddGrad",
        &[&val_grad, &ctx.input(0), &ctx.input(3), &ctx.output(0)],
        &[],
    )?;
    let (a, b) = (node.output(0)?, node.output(1)?);
    Ok(vec![None, Some(a), None, None, Some(b), None, None])
}

/// `_SparseReduceSumGrad`: each value gets the gradient of the output entry it was summed
/// into.
fn reduce_sum_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let grad = ctx.grad0()?;
    let (ix, shape, axes) = (ctx.input(0), ctx.input(2), ctx.input(3));
    let kept = op(g, "ReducedShape", &[&shape, &axes], &[])?;
    let reshaped = op(g, "Reshape", &[&grad, &kept], &[])?;
    let scale = op(g, "FloorDiv", &[&shape, &kept], &[])?;
    let at = op(g, "FloorDiv", &[&ix, &scale], &[])?;
    let values_grad = op(g, "GatherNd", &[&reshaped, &at], &[])?;
    Ok(vec![None, Some(values_grad), None, None])
}

pub(super) fn register() {
    register_gradient("SparseTensorDenseMatMul", matmul_grad);
    register_gradient("SparseDenseCwiseMul", cwise_grad);
    register_gradient("SparseDenseCwiseDiv", cwise_grad);
    register_gradient("SparseDenseCwiseAdd", cwise_grad);
    register_gradient("SparseTensorDenseAdd", dense_add_grad);
    register_gradient("SparseAdd", sparse_add_grad);
    register_gradient("SparseReduceSum", reduce_sum_grad);
    register_not_differentiable("SparseAddGrad");
}
