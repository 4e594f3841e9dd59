//! Gradients of the sparse variable reads and of the max/min tensor scatters, as TensorFlow's
//! `resource_variable_ops.py` (`_GatherGrad` for `ResourceGather`) and `array_grad.py`
//! (`_ResourceGatherNdGrad`, `_TensorScatterMinOrMaxGrad`) build them.
//!
//! TensorFlow's gradient of a variable's `ResourceGather` is `IndexedSlices(values, indices,
//! params_shape)` with respect to the variable's handle. weir has no `IndexedSlices`, so the
//! gradient is their dense form, `UnsortedSegmentSum(values, indices, params_shape[0])`, the
//! same form its `GatherV2` gradient takes: the optimizers recognise it and apply the rows
//! sparsely where TensorFlow's `_apply_sparse` would. `ScatterNdMax`/`Min` and their resource
//! forms have no gradient in TensorFlow and get none here.

use weir_graph::{AttrValue, DType, Output, Result, Shape, Tensor};

use super::registry::{register_gradient, GradContext};
use super::util::{cast_like, konst};
use super::{op, op_node};

type Grads = Result<Vec<Option<Output>>>;

/// TensorFlow's `variable_shape(handle, out_type)`: a constant when the variable's shape is
/// fully known (its handle data), else the shape of a fresh read of it.
fn variable_shape(ctx: &GradContext<'_>, out_type: DType) -> Result<Output> {
    let g = ctx.graph();
    let handle = ctx.input(0);
    let known = handle
        .op()
        .attr::<Shape>("shape")
        .ok()
        .and_then(|s| s.to_known());
    if let Some(dims) = known {
        let t = match out_type {
            DType::I64 => Tensor::from(dims.iter().map(|&d| d as i64).collect::<Vec<_>>()),
            _ => Tensor::from(dims.iter().map(|&d| d as i32).collect::<Vec<_>>()),
        };
        return konst(g, t);
    }
    let dtype: DType = ctx.attr("dtype")?;
    let value = op(
        g,
        "ReadVariableOp",
        &[&handle],
        &[("dtype", AttrValue::Type(dtype))],
    )?;
    op(
        g,
        "Shape",
        &[&value],
        &[("out_type", AttrValue::Type(out_type))],
    )
}

fn int_vec(ctx: &GradContext<'_>, v: Vec<i32>) -> Result<Output> {
    konst(ctx.graph(), Tensor::from(v))
}

/// `shape[begin:]` or, with `shrink`, the scalar `shape[begin]` (TensorFlow's `shape[1:]` and
/// `shape[0]` on a shape tensor).
fn shape_part(ctx: &GradContext<'_>, shape: &Output, begin: i32, shrink: bool) -> Result<Output> {
    let (b, e, s) = (
        int_vec(ctx, vec![begin])?,
        int_vec(ctx, vec![begin + 1])?,
        int_vec(ctx, vec![1])?,
    );
    let masks: &[(&str, AttrValue)] = if shrink {
        &[("shrink_axis_mask", AttrValue::Int(1))]
    } else {
        &[("end_mask", AttrValue::Int(1))]
    };
    op(ctx.graph(), "StridedSlice", &[shape, &b, &e, &s], masks)
}

/// `_GatherGrad` (registered for `ResourceGather`): the gradient reshaped to one row per index,
/// the indices flattened, summed into the variable's rows.
fn resource_gather_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let (d, indices) = (ctx.grad0()?, ctx.input(1));
    let params_shape = variable_shape(ctx, DType::I32)?;
    let count = op(
        g,
        "Size",
        &[&indices],
        &[("out_type", AttrValue::Type(DType::I32))],
    )?;
    let zero = konst(g, Tensor::from(0i32))?;
    let size = op(g, "ExpandDims", &[&count, &zero], &[])?;
    let rest = shape_part(ctx, &params_shape, 1, false)?;
    let values_shape = op(g, "ConcatV2", &[&size, &rest, &zero], &[])?;
    let values = op(g, "Reshape", &[&d, &values_shape], &[])?;
    let flat = op(g, "Reshape", &[&indices, &size], &[])?;
    let rows = shape_part(ctx, &params_shape, 0, true)?;
    let dense = op(g, "UnsortedSegmentSum", &[&values, &flat, &rows], &[])?;
    Ok(vec![Some(dense), None])
}

/// `_ResourceGatherNdGrad`: indices of static shape `[n, 1]` pick whole rows (TensorFlow's
/// `IndexedSlices`, dense here); other indices scatter the gradient into the variable's shape.
fn resource_gather_nd_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let (d, indices) = (ctx.grad0()?, ctx.input(1));
    let ref_shape = variable_shape(ctx, indices.dtype())?;
    let s = indices.shape();
    let dense = if s.rank() == Some(2) && s.dim(1) == Some(1) {
        let rows = op(
            g,
            "Squeeze",
            &[&indices],
            &[("squeeze_dims", AttrValue::Ints(vec![-1]))],
        )?;
        let n = op_node(
            g,
            "StridedSlice",
            &[
                &ref_shape,
                &konst(g, Tensor::from(vec![0i32]))?,
                &konst(g, Tensor::from(vec![1i32]))?,
                &konst(g, Tensor::from(vec![1i32]))?,
            ],
            &[("shrink_axis_mask", AttrValue::Int(1))],
        )?
        .output(0)?;
        op(g, "UnsortedSegmentSum", &[&d, &rows, &n], &[])?
    } else {
        op(g, "ScatterNd", &[&indices, &d, &ref_shape], &[])?
    };
    Ok(vec![Some(dense), None])
}

/// `_TensorScatterMinOrMaxGrad`: the gradient goes to whichever of the tensor and the updates
/// equal the output, split evenly between them where several do.
fn tensor_scatter_min_max_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let d = ctx.grad0()?;
    let (x, indices, y, output) = (ctx.input(0), ctx.input(1), ctx.input(2), ctx.output(0));
    let x_ind = cast_like(&op(g, "Equal", &[&x, &output], &[])?, d.dtype())?;
    let y_out = op(g, "GatherNd", &[&output, &indices], &[])?;
    let y_ind = cast_like(&op(g, "Equal", &[&y, &y_out], &[])?, d.dtype())?;
    let x_shape = op(
        g,
        "Shape",
        &[&x],
        &[("out_type", AttrValue::Type(indices.dtype()))],
    )?;
    let ys_ind = op(g, "ScatterNd", &[&indices, &y_ind, &x_shape], &[])?;
    let indicators = op(g, "AddV2", &[&x_ind, &ys_ind], &[])?;
    let x_grad = op(
        g,
        "RealDiv",
        &[&op(g, "Mul", &[&d, &x_ind], &[])?, &indicators],
        &[],
    )?;
    let shared = op(g, "RealDiv", &[&d, &indicators], &[])?;
    let y_grad = op(
        g,
        "Mul",
        &[&op(g, "GatherNd", &[&shared, &indices], &[])?, &y_ind],
        &[],
    )?;
    Ok(vec![Some(x_grad), None, Some(y_grad)])
}

pub(super) fn register() {
    register_gradient("ResourceGather", resource_gather_grad);
    register_gradient("ResourceGatherNd", resource_gather_nd_grad);
    register_gradient("TensorScatterMax", tensor_scatter_min_max_grad);
    register_gradient("TensorScatterMin", tensor_scatter_min_max_grad);
}
