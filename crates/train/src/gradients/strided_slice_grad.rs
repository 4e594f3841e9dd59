//! Gradients of the strided-slice ops (TensorFlow's `_StridedSliceGrad`,
//! `_StridedSliceGradGrad` and `_TensorStridedSliceUpdateGrad` in `array_grad.py`).

use weir_graph::{AttrValue, DType, Output, Result, Tensor};

use super::registry::{register_gradient, GradContext};
use super::{op, op_node};

type Grads = Result<Vec<Option<Output>>>;

const MASKS: [&str; 5] = [
    "begin_mask",
    "end_mask",
    "ellipsis_mask",
    "new_axis_mask",
    "shrink_axis_mask",
];

/// The forward op's five masks, to pass on unchanged.
fn masks(ctx: &GradContext<'_>) -> Result<Vec<(&'static str, AttrValue)>> {
    MASKS
        .iter()
        .map(|&m| Ok((m, AttrValue::Int(ctx.attr::<i64>(m)?))))
        .collect()
}

fn with_masks<'a>(
    ctx: &GradContext<'_>,
    mut attrs: Vec<(&'a str, AttrValue)>,
) -> Result<Vec<(&'a str, AttrValue)>> {
    attrs.extend(masks(ctx)?);
    Ok(attrs)
}

/// `tf.shape(x, out_type=dtype)`, a constant when the shape is static (as TensorFlow folds
/// it with `constant_value`).
fn shape_as(x: &Output, dtype: DType) -> Result<Output> {
    let g = x.graph();
    match x.shape().to_known() {
        Some(d) => {
            let t = if dtype == DType::I64 {
                Tensor::from(d.iter().map(|&v| v as i64).collect::<Vec<_>>())
            } else {
                Tensor::from(d.iter().map(|&v| v as i32).collect::<Vec<_>>())
            };
            super::util::konst(g, t)
        }
        None => op(g, "Shape", &[x], &[("out_type", AttrValue::Type(dtype))]),
    }
}

/// StridedSlice: `dy` scattered into zeros of the input's shape by `StridedSliceGrad`.
fn strided_slice_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let (x, begin, end, strides) = (ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3));
    let shape = shape_as(&x, begin.dtype())?;
    let dx = op(
        ctx.graph(),
        "StridedSliceGrad",
        &[&shape, &begin, &end, &strides, &d],
        &with_masks(ctx, vec![])?,
    )?;
    Ok(vec![Some(dx), None, None, None])
}

/// StridedSliceGrad: linear in `dy`, whose gradient is the same slice of the incoming one.
fn strided_slice_grad_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let (begin, end, strides) = (ctx.input(1), ctx.input(2), ctx.input(3));
    let ddy = op(
        ctx.graph(),
        "StridedSlice",
        &[&d, &begin, &end, &strides],
        &with_masks(ctx, vec![])?,
    )?;
    Ok(vec![None, None, None, None, Some(ddy)])
}

/// TensorStridedSliceUpdate: the input's gradient is the incoming one with the slice zeroed;
/// the value's is the slice, summed back over the dims it was broadcast along.
fn tensor_strided_slice_update_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let d = ctx.grad0()?;
    let (begin, end, strides, value) = (ctx.input(1), ctx.input(2), ctx.input(3), ctx.input(4));
    let attrs = with_masks(ctx, vec![])?;
    let dy = op(g, "StridedSlice", &[&d, &begin, &end, &strides], &attrs)?;
    let zeros = op(g, "ZerosLike", &[&dy], &[])?;
    let dx = op(
        g,
        "TensorStridedSliceUpdate",
        &[&d, &begin, &end, &strides, &zeros],
        &attrs,
    )?;
    let index = AttrValue::Type(begin.dtype());
    let slice_shape = op(g, "Shape", &[&dy], &[("out_type", index.clone())])?;
    let value_shape = op(g, "Shape", &[&value], &[("out_type", index)])?;
    let axes = op_node(
        g,
        "BroadcastGradientArgs",
        &[&slice_shape, &value_shape],
        &[],
    )?
    .output(1)?;
    let summed = op(
        g,
        "Sum",
        &[&dy, &axes],
        &[("keep_dims", AttrValue::Bool(true))],
    )?;
    let dvalue = op(g, "Reshape", &[&summed, &value_shape], &[])?;
    Ok(vec![Some(dx), None, None, None, Some(dvalue)])
}

pub(super) fn register() {
    register_gradient("StridedSlice", strided_slice_grad);
    register_gradient("StridedSliceGrad", strided_slice_grad_grad);
    register_gradient("TensorStridedSliceUpdate", tensor_strided_slice_update_grad);
}
