//! Gradients of the sparse structure ops (TensorFlow's `sparse_grad.py`): `SparseReorder`,
//! `SparseSlice` (with `SparseSliceGrad`), `SparseSoftmax`, `SparseFillEmptyRows` (with
//! `SparseFillEmptyRowsGrad`) and `SparseToDense`; `SparseSparseMaximum` and
//! `SparseSparseMinimum` have a registered gradient that fails, as TensorFlow's does.
//! Indices, dense shapes, starts and sizes get none.

use weir_graph::{AttrValue, Error, Output, Result, Shape, Tensor};

use super::op;
use super::registry::{register_gradient, GradContext};
use super::util::{konst, shape_of};

type Grads = Result<Vec<Option<Output>>>;

fn int32(ctx: &GradContext<'_>, v: Vec<i32>) -> Result<Output> {
    konst(ctx.graph(), Tensor::from(v))
}

fn scalar32(ctx: &GradContext<'_>, v: i32) -> Result<Output> {
    konst(ctx.graph(), Tensor::scalar(v))
}

/// `_SparseReorderGrad`: the value gradients undo the reorder's permutation, found by
/// reordering the entries' positions `0..N` the same way and inverting the result.
fn reorder_grad(ctx: &GradContext<'_>) -> Grads {
    let Some(grad) = ctx.grad(1).cloned() else {
        return Ok(vec![None; 3]);
    };
    let g = ctx.graph();
    let (ix, shape) = (ctx.input(0), ctx.input(2));
    // TensorFlow takes `tf.shape(indices)[0]`, and its shape inference evaluates that when
    // the shape is static, so the gradient's static shape is known then: a constant here.
    let n = match ix.shape().dim(0).and_then(|n| i32::try_from(n).ok()) {
        Some(n) => scalar32(ctx, n)?,
        None => op(
            g,
            "StridedSlice",
            &[
                &shape_of(&ix)?,
                &int32(ctx, vec![0])?,
                &int32(ctx, vec![1])?,
                &int32(ctx, vec![1])?,
            ],
            &[("shrink_axis_mask", AttrValue::Int(1))],
        )?,
    };
    let positions = op(
        g,
        "Range",
        &[&scalar32(ctx, 0)?, &n, &scalar32(ctx, 1)?],
        &[],
    )?;
    let reordered = super::op_node(g, "SparseReorder", &[&ix, &positions, &shape], &[])?;
    let inverse = op(g, "InvertPermutation", &[&reordered.output(1)?], &[])?;
    let values_grad = op(g, "GatherV2", &[&grad, &inverse, &scalar32(ctx, 0)?], &[])?;
    Ok(vec![None, Some(values_grad), None])
}

/// `_SparseSliceGrad`: `SparseSliceGrad` matches the slice's output indices (shifted by
/// `start`) against the input's.
fn slice_grad(ctx: &GradContext<'_>) -> Grads {
    let Some(grad) = ctx.grad(1).cloned() else {
        return Ok(vec![None; 5]);
    };
    let values_grad = op(
        ctx.graph(),
        "SparseSliceGrad",
        &[&grad, &ctx.input(0), &ctx.input(3), &ctx.output(0)],
        &[],
    )?;
    Ok(vec![None, Some(values_grad), None, None, None])
}

/// `_SparseSoftmaxGrad`: softmax's gradient over the present entries,
/// `(grad - sum(grad * softmax)) * softmax`, with the sum over each innermost row
/// (`SparseReduceSum` keeping dims) broadcast back by `SparseDenseCwiseAdd`.
fn softmax_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let grad = ctx.grad0()?;
    let (ix, shape, out) = (ctx.input(0), ctx.input(2), ctx.output(0));
    let product = op(g, "Mul", &[&out, &grad], &[])?;
    let summed = op(
        g,
        "SparseReduceSum",
        &[&ix, &product, &shape, &int32(ctx, vec![-1])?],
        &[("keep_dims", AttrValue::Bool(true))],
    )?;
    let neg = op(g, "Neg", &[&summed], &[])?;
    let shifted = op(g, "SparseDenseCwiseAdd", &[&ix, &grad, &shape, &neg], &[])?;
    let values_grad = op(g, "Mul", &[&shifted, &out], &[])?;
    Ok(vec![None, Some(values_grad), None])
}

/// TensorFlow's `_SparseSparseMaximumGrad` / `_SparseSparseMinimumGrad` raise
/// `NotImplementedError` (in 2.21 a `TypeError` first: they take one gradient for the op's two
/// outputs); weir fails with Unimplemented when the gradient is built.
fn min_max_grad(ctx: &GradContext<'_>) -> Grads {
    Err(Error::unimplemented(format!(
        "Gradient for {} is not implemented.",
        ctx.op().op_type()
    )))
}

/// `_SparseFillEmptyRowsGrad`: `SparseFillEmptyRowsGrad` routes the output values' gradient
/// back through `reverse_index_map`; the default value gets what the filled rows received.
fn fill_empty_rows_grad(ctx: &GradContext<'_>) -> Grads {
    let Some(grad) = ctx.grad(1).cloned() else {
        return Ok(vec![None; 4]);
    };
    let node = super::op_node(
        ctx.graph(),
        "SparseFillEmptyRowsGrad",
        &[&ctx.output(3), &grad],
        &[],
    )?;
    Ok(vec![
        None,
        Some(node.output(0)?),
        None,
        Some(node.output(1)?),
    ])
}

/// `tf.reduce_sum(x)` over every axis: a constant axis list when `x`'s rank is known,
/// `Range(0, Rank(x), 1)` otherwise (TensorFlow's `_ReductionDims`).
fn sum_all(ctx: &GradContext<'_>, x: &Output) -> Result<Output> {
    let g = ctx.graph();
    let axes = match x.shape().rank() {
        Some(r) => int32(ctx, (0..r as i32).collect())?,
        None => {
            let rank = op(g, "Rank", &[x], &[])?;
            op(
                g,
                "Range",
                &[&scalar32(ctx, 0)?, &rank, &scalar32(ctx, 1)?],
                &[],
            )?
        }
    };
    op(
        g,
        "Sum",
        &[x, &axes],
        &[("keep_dims", AttrValue::Bool(false))],
    )
}

/// A static shape as Python prints a `TensorShape`: `()`, `(2,)`, `(2, None)`.
fn python_shape(s: &Shape) -> String {
    let Some(dims) = s.dims() else {
        return "<unknown>".to_string();
    };
    let parts: Vec<String> = dims
        .iter()
        .map(|d| d.map_or("None".to_string(), |d| d.to_string()))
        .collect();
    match parts.len() {
        1 => format!("({},)", parts[0]),
        _ => format!("({})", parts.join(", ")),
    }
}

/// TensorFlow's `tf.gradients` check that a gradient's static shape fits its input's: a
/// scalar `sparse_values` broadcast by `SparseToDense` gets a gradient per index, which
/// TensorFlow rejects (ValueError) when both shapes are known.
fn check_grad_shape(ctx: &GradContext<'_>, i: usize, grad: &Output) -> Result<()> {
    let (want, got) = (ctx.input(i).shape(), grad.shape());
    if want.is_compatible_with(&got) {
        return Ok(());
    }
    Err(Error::invalid_argument(format!(
        "Incompatible shapes between op input and calculated input gradient. Forward \
         operation: {}. Input index: {i}. Original input shape: {}. Calculated input gradient \
         shape: {}",
        ctx.op().name(),
        python_shape(&want),
        python_shape(&got)
    )))
}

/// `_SparseToDenseGrad`: each value gets the gradient at its index; the default value the
/// rest (the total minus what the values took). Indices and shape get zeros, as TensorFlow's
/// returns them.
fn to_dense_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let grad = ctx.grad0()?;
    let (ix, shape) = (ctx.input(0), ctx.input(1));
    let values_grad = op(g, "GatherNd", &[&grad, &ix], &[])?;
    check_grad_shape(ctx, 2, &values_grad)?;
    let default_grad = op(
        g,
        "Sub",
        &[&sum_all(ctx, &grad)?, &sum_all(ctx, &values_grad)?],
        &[],
    )?;
    Ok(vec![
        Some(op(g, "ZerosLike", &[&ix], &[])?),
        Some(op(g, "ZerosLike", &[&shape], &[])?),
        Some(values_grad),
        Some(default_grad),
    ])
}

pub(super) fn register() {
    register_gradient("SparseReorder", reorder_grad);
    register_gradient("SparseSlice", slice_grad);
    register_gradient("SparseSoftmax", softmax_grad);
    register_gradient("SparseSparseMaximum", min_max_grad);
    register_gradient("SparseSparseMinimum", min_max_grad);
    register_gradient("SparseFillEmptyRows", fill_empty_rows_grad);
    register_gradient("SparseToDense", to_dense_grad);
}
