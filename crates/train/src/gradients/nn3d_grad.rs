//! Gradients of the 3-D convolutions and pools (TensorFlow's `nn_grad.py`): `_Conv3DGrad`,
//! `_Conv3DBackpropInputGrad`, `_Conv3DBackpropFilterGrad`, `_AvgPool3DGrad`,
//! `_AvgPool3DGradGrad`, `_MaxPool3DGrad`, `_MaxPool3DGradGrad` and `_MaxPool3DGradGradGrad`,
//! each built from the ops TensorFlow's builds.

use weir_graph::{AttrValue, DType, Output, Result};

use super::op;
use super::registry::{register_gradient, GradContext};
use super::util::shape_of;

type Grads = Result<Vec<Option<Output>>>;

const CONV_ATTRS: &[&str] = &["strides", "padding", "data_format", "dilations"];
const POOL_ATTRS: &[&str] = &["ksize", "strides", "padding", "data_format"];

/// The forward node's attrs among `names`, for a backward op with the same configuration.
fn attrs_of(ctx: &GradContext<'_>, names: &[&'static str]) -> Vec<(&'static str, AttrValue)> {
    names
        .iter()
        .filter_map(|n| ctx.attr_value(n).map(|v| (*n, v.clone())))
        .collect()
}

/// Conv3D: `Conv3DBackpropInputV2(shape(input), filter, grad)` and
/// `Conv3DBackpropFilterV2(input, shape(filter), grad)`, the two shapes from one `ShapeN`.
fn conv3d_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, f) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let g = ctx.graph();
    let attrs = attrs_of(ctx, CONV_ATTRS);
    let shapes = super::op_node(
        g,
        "ShapeN",
        &[&x, &f],
        &[
            ("N", AttrValue::Int(2)),
            ("out_type", AttrValue::Type(DType::I32)),
        ],
    )?;
    let (xs, fs) = (shapes.output(0)?, shapes.output(1)?);
    let dx = op(g, "Conv3DBackpropInputV2", &[&xs, &f, &d], &attrs)?;
    let df = op(g, "Conv3DBackpropFilterV2", &[&x, &fs, &d], &attrs)?;
    Ok(vec![Some(dx), Some(df)])
}

/// Conv3DBackpropInputV2 (what `conv3d_transpose` differentiates through): the filter gets
/// `Conv3DBackpropFilterV2(grad, shape(filter), out_backprop)`, the out_backprop
/// `Conv3D(grad, filter)`; the sizes get none.
fn conv3d_backprop_input_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, f, dy) = (ctx.grad0()?, ctx.input(1), ctx.input(2));
    let g = ctx.graph();
    let attrs = attrs_of(ctx, CONV_ATTRS);
    let df = op(
        g,
        "Conv3DBackpropFilterV2",
        &[&d, &shape_of(&f)?, &dy],
        &attrs,
    )?;
    let ddy = op(g, "Conv3D", &[&d, &f], &attrs)?;
    Ok(vec![None, Some(df), Some(ddy)])
}

/// Conv3DBackpropFilterV2: the input gets `Conv3DBackpropInputV2(shape(input), grad,
/// out_backprop)`, the out_backprop `Conv3D(input, grad)`; the sizes get none.
fn conv3d_backprop_filter_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, dy) = (ctx.grad0()?, ctx.input(0), ctx.input(2));
    let g = ctx.graph();
    let attrs = attrs_of(ctx, CONV_ATTRS);
    let dx = op(
        g,
        "Conv3DBackpropInputV2",
        &[&shape_of(&x)?, &d, &dy],
        &attrs,
    )?;
    let ddy = op(g, "Conv3D", &[&x, &d], &attrs)?;
    Ok(vec![Some(dx), None, Some(ddy)])
}

/// AvgPool3D: `AvgPool3DGrad(shape(input), grad)`.
fn avg_pool3d_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x) = (ctx.grad0()?, ctx.input(0));
    let attrs = attrs_of(ctx, POOL_ATTRS);
    let dx = op(ctx.graph(), "AvgPool3DGrad", &[&shape_of(&x)?, &d], &attrs)?;
    Ok(vec![Some(dx)])
}

/// AvgPool3DGrad: `AvgPool3D(grad)` for the gradient input. TensorFlow returns
/// `stop_gradient(orig_input_shape)` for the int32 shape, which carries nothing; weir says so
/// with `None`.
fn avg_pool3d_grad_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let attrs = attrs_of(ctx, POOL_ATTRS);
    Ok(vec![
        None,
        Some(op(ctx.graph(), "AvgPool3D", &[&d], &attrs)?),
    ])
}

/// MaxPool3D: `MaxPool3DGrad(input, output, grad)`.
fn max_pool3d_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, y) = (ctx.grad0()?, ctx.input(0), ctx.output(0));
    let attrs = attrs_of(ctx, POOL_ATTRS);
    let dx = op(ctx.graph(), "MaxPool3DGrad", &[&x, &y, &d], &attrs)?;
    Ok(vec![Some(dx)])
}

/// MaxPool3DGrad / MaxPool3DGradGrad: zeros for the original input and output, and the other
/// of the pair (`MaxPool3DGradGrad` / `MaxPool3DGrad`) applied to the incoming gradient.
fn max_pool3d_second_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, y) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let g = ctx.graph();
    let attrs = attrs_of(ctx, POOL_ATTRS);
    let next = if ctx.op().op_type() == "MaxPool3DGrad" {
        "MaxPool3DGradGrad"
    } else {
        "MaxPool3DGrad"
    };
    let zx = op(g, "ZerosLike", &[&x], &[])?;
    let zy = op(g, "ZerosLike", &[&y], &[])?;
    let dd = op(g, next, &[&x, &y, &d], &attrs)?;
    Ok(vec![Some(zx), Some(zy), Some(dd)])
}

pub(super) fn register() {
    register_gradient("Conv3D", conv3d_grad);
    register_gradient("Conv3DBackpropInputV2", conv3d_backprop_input_grad);
    register_gradient("Conv3DBackpropFilterV2", conv3d_backprop_filter_grad);
    register_gradient("AvgPool3D", avg_pool3d_grad);
    register_gradient("AvgPool3DGrad", avg_pool3d_grad_grad);
    register_gradient("MaxPool3D", max_pool3d_grad);
    register_gradient("MaxPool3DGrad", max_pool3d_second_grad);
    register_gradient("MaxPool3DGradGrad", max_pool3d_second_grad);
}
