//! Gradients of the detection and morphology ops as TensorFlow registers them: `ResizeBicubic`
//! (`image_grad.py`: a `ResizeBicubicGrad` for float images), `MaxPoolWithArgmax` (a
//! `MaxPoolGradWithArgmax` through the forward argmax) and `Dilation2D` (its two backprop ops)
//! from `nn_grad.py`; and the suppressions TensorFlow declares not differentiable.
//! `ResizeArea` and `CombinedNonMaxSuppression` have no gradient there, so none here.

use weir_graph::{AttrValue, DType, Output, Result};

use super::op;
use super::registry::{register_gradient, register_not_differentiable, GradContext};

type Grads = Result<Vec<Option<Output>>>;

fn attrs(ctx: &GradContext<'_>, names: &[&'static str]) -> Vec<(&'static str, AttrValue)> {
    names
        .iter()
        .filter_map(|n| ctx.attr_value(n).map(|v| (*n, v.clone())))
        .collect()
}

/// `_ResizeBicubicGrad`: only float32 and float64 images get a gradient; the size none.
fn resize_bicubic_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x) = (ctx.grad0()?, ctx.input(0));
    if !matches!(x.dtype(), DType::F32 | DType::F64) {
        return Ok(vec![None, None]);
    }
    let a = attrs(ctx, &["align_corners", "half_pixel_centers"]);
    let dx = op(ctx.graph(), "ResizeBicubicGrad", &[&d, &x], &a)?;
    Ok(vec![Some(dx), None])
}

/// `_MaxPoolGradWithArgmax`: the output's gradient scattered through the forward argmax (the
/// argmax output's own gradient is ignored).
fn max_pool_with_argmax_grad(ctx: &GradContext<'_>) -> Grads {
    let Some(d) = ctx.grad(0).cloned() else {
        return Ok(vec![None]);
    };
    let (x, at) = (ctx.input(0), ctx.output(1));
    let a = attrs(
        ctx,
        &["ksize", "strides", "padding", "include_batch_in_index"],
    );
    let dx = op(ctx.graph(), "MaxPoolGradWithArgmax", &[&x, &d, &at], &a)?;
    Ok(vec![Some(dx)])
}

/// `_Dilation2DGrad`: `Dilation2DBackpropInput` and `Dilation2DBackpropFilter`.
fn dilation2d_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, f) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let a = attrs(ctx, &["strides", "rates", "padding"]);
    let g = ctx.graph();
    Ok(vec![
        Some(op(g, "Dilation2DBackpropInput", &[&x, &f, &d], &a)?),
        Some(op(g, "Dilation2DBackpropFilter", &[&x, &f, &d], &a)?),
    ])
}

pub(super) fn register() {
    register_gradient("ResizeBicubic", resize_bicubic_grad);
    register_gradient("MaxPoolWithArgmax", max_pool_with_argmax_grad);
    register_gradient("Dilation2D", dilation2d_grad);
    for op in [
        "NonMaxSuppression",
        "NonMaxSuppressionV2",
        "NonMaxSuppressionWithOverlaps",
    ] {
        register_not_differentiable(op);
    }
}
