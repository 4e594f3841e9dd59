//! Gradients of the nn ops (TensorFlow's `nn_grad.py`): activations, softmax, the
//! cross-entropy losses, bias_add, l2_loss, dropout, conv2d, max_pool, avg_pool, lrn, top_k and
//! fused_batch_norm.

use weir_graph::{AttrValue, Output, Result, Tensor};

use super::op;
use super::registry::{register_gradient, GradContext};
use super::util::{konst, shape_of};

type Grads = Result<Vec<Option<Output>>>;

/// The forward node's attrs other than its dtype attrs, for a backward op that takes the same
/// configuration (strides, padding, alpha, ...).
fn config_attrs(ctx: &GradContext<'_>, names: &[&'static str]) -> Vec<(&'static str, AttrValue)> {
    names
        .iter()
        .filter_map(|n| ctx.attr_value(n).map(|v| (*n, v.clone())))
        .collect()
}

fn relu_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, y) = (ctx.grad0()?, ctx.output(0));
    Ok(vec![Some(op(ctx.graph(), "ReluGrad", &[&d, &y], &[])?)])
}

fn relu6_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x) = (ctx.grad0()?, ctx.input(0));
    Ok(vec![Some(op(ctx.graph(), "Relu6Grad", &[&d, &x], &[])?)])
}

fn elu_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, y) = (ctx.grad0()?, ctx.output(0));
    Ok(vec![Some(op(ctx.graph(), "EluGrad", &[&d, &y], &[])?)])
}

fn leaky_relu_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x) = (ctx.grad0()?, ctx.input(0));
    let attrs = config_attrs(ctx, &["alpha"]);
    Ok(vec![Some(op(
        ctx.graph(),
        "LeakyReluGrad",
        &[&d, &x],
        &attrs,
    )?)])
}

/// softmax: (d - sum(d * y, -1, keepdims)) * y
fn softmax_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, y) = (ctx.grad0()?, ctx.output(0));
    let g = ctx.graph();
    let dy = op(g, "Mul", &[&d, &y], &[])?;
    let axis = super::util::konst(g, weir_graph::Tensor::from(-1i32))?;
    let s = op(
        g,
        "Sum",
        &[&dy, &axis],
        &[("keep_dims", AttrValue::Bool(true))],
    )?;
    let diff = op(g, "Sub", &[&d, &s], &[])?;
    Ok(vec![Some(op(g, "Mul", &[&diff, &y], &[])?)])
}

/// log_softmax: d - sum(d, -1, keepdims) * exp(y)
fn log_softmax_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, y) = (ctx.grad0()?, ctx.output(0));
    let g = ctx.graph();
    let axis = super::util::konst(g, weir_graph::Tensor::from(-1i32))?;
    let s = op(
        g,
        "Sum",
        &[&d, &axis],
        &[("keep_dims", AttrValue::Bool(true))],
    )?;
    let e = op(g, "Exp", &[&y], &[])?;
    let t = op(g, "Mul", &[&s, &e], &[])?;
    Ok(vec![Some(op(g, "Sub", &[&d, &t], &[])?)])
}

fn bias_add_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let attrs = config_attrs(ctx, &["data_format"]);
    let db = op(ctx.graph(), "BiasAddGrad", &[&d], &attrs)?;
    Ok(vec![Some(d), Some(db)])
}

/// The losses whose second output is d(loss)/d(logits): scale it by the incoming gradient.
fn xent_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let g = ctx.graph();
    let backprop = ctx.output(1);
    let minus_one = super::util::konst(g, weir_graph::Tensor::from(-1i32))?;
    let d = op(g, "ExpandDims", &[&d, &minus_one], &[])?;
    let dlogits = op(g, "Mul", &[&d, &backprop], &[])?;
    // Labels get no gradient (TensorFlow's softmax_cross_entropy_with_logits v1 semantics).
    Ok(vec![Some(dlogits), None])
}

/// sigmoid_cross_entropy_with_logits(labels=z, logits=x): d(loss)/dx = sigmoid(x) - z.
fn sigmoid_xent_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let g = ctx.graph();
    let (labels, logits) = label_logit_inputs(ctx);
    let s = op(g, "Sigmoid", &[&logits], &[])?;
    let diff = op(g, "Sub", &[&s, &labels], &[])?;
    let dx = op(g, "Mul", &[&d, &diff], &[])?;
    let mut v = vec![None, None];
    v[logit_index(ctx)] = Some(dx);
    Ok(v)
}

fn logit_index(ctx: &GradContext<'_>) -> usize {
    ctx.op()
        .node()
        .op_def()
        .inputs
        .iter()
        .position(|a| a.name == "logits")
        .unwrap_or(1)
}

fn label_logit_inputs(ctx: &GradContext<'_>) -> (Output, Output) {
    let li = logit_index(ctx);
    (ctx.input(1 - li), ctx.input(li))
}

fn l2_loss_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x) = (ctx.grad0()?, ctx.input(0));
    Ok(vec![Some(op(ctx.graph(), "Mul", &[&x, &d], &[])?)])
}

/// Dropout outputs its scaled keep-mask as output 1: the gradient is `d * mask`.
fn dropout_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let mask = ctx.output(1);
    let mut v = vec![None; ctx.num_inputs()];
    v[0] = Some(op(ctx.graph(), "Mul", &[&d, &mask], &[])?);
    Ok(v)
}

const CONV_ATTRS: &[&str] = &[
    "strides",
    "padding",
    "explicit_paddings",
    "data_format",
    "dilations",
];

fn conv2d_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, filter) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let g = ctx.graph();
    let attrs = config_attrs(ctx, CONV_ATTRS);
    let xs = super::util::shape_of(&x)?;
    let fs = super::util::shape_of(&filter)?;
    let dx = op(g, "Conv2DBackpropInput", &[&xs, &filter, &d], &attrs)?;
    let df = op(g, "Conv2DBackpropFilter", &[&x, &fs, &d], &attrs)?;
    Ok(vec![Some(dx), Some(df)])
}

/// Conv2DBackpropInput (TensorFlow's `_Conv2DBackpropInputGrad`, what `conv2d_transpose`
/// differentiates through): the filter gets `Conv2DBackpropFilter(d, shape(filter),
/// out_backprop)`, the out_backprop `Conv2D(d, filter)`; the sizes get none.
fn conv2d_backprop_input_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, filter, dy) = (ctx.grad0()?, ctx.input(1), ctx.input(2));
    let g = ctx.graph();
    let attrs = config_attrs(ctx, CONV_ATTRS);
    let fs = super::util::shape_of(&filter)?;
    let df = op(g, "Conv2DBackpropFilter", &[&d, &fs, &dy], &attrs)?;
    let ddy = op(g, "Conv2D", &[&d, &filter], &attrs)?;
    Ok(vec![None, Some(df), Some(ddy)])
}

/// Conv2DBackpropFilter (TensorFlow's `_Conv2DBackpropFilterGrad`).
fn conv2d_backprop_filter_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, dy) = (ctx.grad0()?, ctx.input(0), ctx.input(2));
    let g = ctx.graph();
    let attrs = config_attrs(ctx, CONV_ATTRS);
    let xs = super::util::shape_of(&x)?;
    let dx = op(g, "Conv2DBackpropInput", &[&xs, &d, &dy], &attrs)?;
    let ddy = op(g, "Conv2D", &[&x, &d], &attrs)?;
    Ok(vec![Some(dx), None, Some(ddy)])
}

const DEPTHWISE_ATTRS: &[&str] = &[
    "strides",
    "padding",
    "explicit_paddings",
    "data_format",
    "dilations",
];

/// DepthwiseConv2dNative (TensorFlow's `_DepthwiseConv2dNativeGrad`).
fn depthwise_conv2d_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, filter) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let g = ctx.graph();
    let attrs = config_attrs(ctx, DEPTHWISE_ATTRS);
    let xs = super::util::shape_of(&x)?;
    let fs = super::util::shape_of(&filter)?;
    let dx = op(
        g,
        "DepthwiseConv2dNativeBackpropInput",
        &[&xs, &filter, &d],
        &attrs,
    )?;
    let df = op(
        g,
        "DepthwiseConv2dNativeBackpropFilter",
        &[&x, &fs, &d],
        &attrs,
    )?;
    Ok(vec![Some(dx), Some(df)])
}

/// DepthwiseConv2dNativeBackpropInput (TensorFlow's
/// `_DepthwiseConv2dNativeBackpropInputGrad`).
fn depthwise_backprop_input_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, filter, dy) = (ctx.grad0()?, ctx.input(1), ctx.input(2));
    let g = ctx.graph();
    let attrs = config_attrs(ctx, DEPTHWISE_ATTRS);
    let fs = super::util::shape_of(&filter)?;
    let df = op(
        g,
        "DepthwiseConv2dNativeBackpropFilter",
        &[&d, &fs, &dy],
        &attrs,
    )?;
    let ddy = op(g, "DepthwiseConv2dNative", &[&d, &filter], &attrs)?;
    Ok(vec![None, Some(df), Some(ddy)])
}

/// DepthwiseConv2dNativeBackpropFilter (TensorFlow's
/// `_DepthwiseConv2dNativeBackpropFilterGrad`).
fn depthwise_backprop_filter_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, dy) = (ctx.grad0()?, ctx.input(0), ctx.input(2));
    let g = ctx.graph();
    let attrs = config_attrs(ctx, DEPTHWISE_ATTRS);
    let xs = super::util::shape_of(&x)?;
    let dx = op(
        g,
        "DepthwiseConv2dNativeBackpropInput",
        &[&xs, &d, &dy],
        &attrs,
    )?;
    let ddy = op(g, "DepthwiseConv2dNative", &[&x, &d], &attrs)?;
    Ok(vec![Some(dx), None, Some(ddy)])
}

fn max_pool_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, y) = (ctx.grad0()?, ctx.input(0), ctx.output(0));
    let attrs = config_attrs(
        ctx,
        &[
            "ksize",
            "strides",
            "padding",
            "explicit_paddings",
            "data_format",
        ],
    );
    Ok(vec![Some(op(
        ctx.graph(),
        "MaxPoolGrad",
        &[&x, &y, &d],
        &attrs,
    )?)])
}

fn lrn_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, y) = (ctx.grad0()?, ctx.input(0), ctx.output(0));
    let attrs = config_attrs(ctx, &["depth_radius", "bias", "alpha", "beta"]);
    Ok(vec![Some(op(
        ctx.graph(),
        "LRNGrad",
        &[&d, &x, &y],
        &attrs,
    )?)])
}

/// TopKV2 (TensorFlow's `_TopKGrad`): each value's gradient goes back to the input column it
/// was taken from, zeros elsewhere; indices and `k` get none. TensorFlow scatters with
/// `ScatterNd`; weir has none, so each row's indices are offset by `row * cols` into flat
/// positions and the gradients summed there by `UnsortedSegmentSum` (the positions in a row are
/// distinct, so the sum only places them). The offsets come from the indices' own leading
/// shape, so k = 0 and empty rows need no special case.
fn top_k_grad(ctx: &GradContext<'_>) -> Grads {
    let Some(d) = ctx.grad(0).cloned() else {
        return Ok(vec![None, None]);
    };
    let g = ctx.graph();
    let (x, idx) = (ctx.input(0), ctx.output(1));
    let ints = |v: Vec<i32>| konst(g, Tensor::from(v));
    let scalar = |v: i32| konst(g, Tensor::from(v));
    // A static input shape keeps the gradient's static shape.
    let dims = x.shape().to_known().and_then(|d| {
        d.iter()
            .map(|&v| i32::try_from(v).ok())
            .collect::<Option<Vec<i32>>>()
    });
    let xs = match dims {
        Some(dims) => ints(dims)?,
        None => shape_of(&x)?,
    };
    let cols = op(
        g,
        "StridedSlice",
        &[&xs, &ints(vec![-1])?, &ints(vec![0])?, &ints(vec![1])?],
        &[
            ("end_mask", AttrValue::Int(1)),
            ("shrink_axis_mask", AttrValue::Int(1)),
        ],
    )?;
    let lead = op(
        g,
        "StridedSlice",
        &[
            &shape_of(&idx)?,
            &ints(vec![0])?,
            &ints(vec![-1])?,
            &ints(vec![1])?,
        ],
        &[],
    )?;
    let axis0 = ints(vec![0])?;
    let no_keep = [("keep_dims", AttrValue::Bool(false))];
    let rows = op(g, "Prod", &[&lead, &axis0], &no_keep)?;
    let total = op(g, "Prod", &[&xs, &axis0], &no_keep)?;
    let row_ids = op(g, "Range", &[&scalar(0)?, &rows, &scalar(1)?], &[])?;
    let starts = op(g, "Mul", &[&row_ids, &cols], &[])?;
    let starts = op(g, "Reshape", &[&starts, &lead], &[])?;
    let starts = op(g, "ExpandDims", &[&starts, &scalar(-1)?], &[])?;
    let flat = ints(vec![-1])?;
    let positions = op(g, "AddV2", &[&idx, &starts], &[])?;
    let positions = op(g, "Reshape", &[&positions, &flat], &[])?;
    let values = op(g, "Reshape", &[&d, &flat], &[])?;
    let dx = op(g, "UnsortedSegmentSum", &[&values, &positions, &total], &[])?;
    Ok(vec![Some(op(g, "Reshape", &[&dx, &xs], &[])?), None])
}

/// AvgPool (TensorFlow's `_AvgPoolGrad`): `AvgPoolGrad(shape(x), d)` with the forward config.
fn avg_pool_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x) = (ctx.grad0()?, ctx.input(0));
    let g = ctx.graph();
    let attrs = config_attrs(ctx, &["ksize", "strides", "padding", "data_format"]);
    // `array_ops.shape` folds a fully known static shape into a constant, which also gives
    // the gradient its static shape.
    let dims = x.shape().to_known().and_then(|d| {
        d.iter()
            .map(|&v| i32::try_from(v).ok())
            .collect::<Option<Vec<i32>>>()
    });
    let xs = match dims {
        Some(dims) => super::util::konst(g, weir_graph::Tensor::from(dims))?,
        None => super::util::shape_of(&x)?,
    };
    Ok(vec![Some(op(g, "AvgPoolGrad", &[&xs, &d], &attrs)?)])
}

/// AvgPoolGrad (TensorFlow's `_AvgPoolGradGrad`): AvgPool of the incoming gradient. TensorFlow
/// returns `stop_gradient(orig_input_shape)` for the int32 shape input, which carries nothing;
/// weir says so with `None`.
fn avg_pool_grad_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let attrs = config_attrs(ctx, &["ksize", "strides", "padding", "data_format"]);
    Ok(vec![None, Some(op(ctx.graph(), "AvgPool", &[&d], &attrs)?)])
}

/// FusedBatchNorm / V2 / V3 (TensorFlow's `_BaseFusedBatchNormGrad`): one backward node for
/// x, scale and offset. In training it reads the batch statistics the forward pass saved in
/// its reserve-space outputs; in inference the population mean and variance inputs, which
/// are constants of the forward computation, so `mean` and `variance` get no gradient in
/// either mode. (TensorFlow's transposes for NCHW inference are left out: weir's kernels run
/// channels-last data only.)
fn fused_batch_norm_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let y = ctx.output(0);
    // TensorFlow's gradients fill a missing output gradient with zeros for a multi-output op.
    let d = match ctx.grad(0) {
        Some(d) => d.clone(),
        None => op(g, "ZerosLike", &[&y], &[])?,
    };
    let op_type = ctx.op().op_type();
    let grad_op = match op_type.as_str() {
        "FusedBatchNormV3" => "FusedBatchNormGradV3",
        "FusedBatchNormV2" => "FusedBatchNormGradV2",
        _ => "FusedBatchNormGrad",
    };
    let is_training: bool = ctx.attr("is_training")?;
    let (x, scale) = (ctx.input(0), ctx.input(1));
    let (mean, var) = if is_training {
        (ctx.output(3), ctx.output(4))
    } else {
        (ctx.input(3), ctx.input(4))
    };
    let mut inputs = vec![&d, &x, &scale, &mean, &var];
    let reserve3 = (grad_op == "FusedBatchNormGradV3").then(|| ctx.output(5));
    if let Some(r) = &reserve3 {
        inputs.push(r);
    }
    let attrs = config_attrs(ctx, &["epsilon", "data_format", "is_training"]);
    let node = super::op_node(g, grad_op, &inputs, &attrs)?;
    Ok(vec![
        Some(node.output(0)?),
        Some(node.output(1)?),
        Some(node.output(2)?),
        None,
        None,
    ])
}

pub(super) fn register() {
    register_gradient("Relu", relu_grad);
    register_gradient("Relu6", relu6_grad);
    register_gradient("Elu", elu_grad);
    register_gradient("LeakyRelu", leaky_relu_grad);
    register_gradient("Softmax", softmax_grad);
    register_gradient("LogSoftmax", log_softmax_grad);
    register_gradient("BiasAdd", bias_add_grad);
    register_gradient("SparseSoftmaxCrossEntropyWithLogits", xent_grad);
    register_gradient("SoftmaxCrossEntropyWithLogits", xent_grad);
    register_gradient("SigmoidCrossEntropyWithLogits", sigmoid_xent_grad);
    register_gradient("L2Loss", l2_loss_grad);
    register_gradient("Dropout", dropout_grad);
    register_gradient("Conv2D", conv2d_grad);
    register_gradient("Conv2DBackpropInput", conv2d_backprop_input_grad);
    register_gradient("Conv2DBackpropFilter", conv2d_backprop_filter_grad);
    register_gradient("DepthwiseConv2dNative", depthwise_conv2d_grad);
    register_gradient(
        "DepthwiseConv2dNativeBackpropInput",
        depthwise_backprop_input_grad,
    );
    register_gradient(
        "DepthwiseConv2dNativeBackpropFilter",
        depthwise_backprop_filter_grad,
    );
    register_gradient("MaxPool", max_pool_grad);
    register_gradient("AvgPool", avg_pool_grad);
    register_gradient("AvgPoolGrad", avg_pool_grad_grad);
    register_gradient("LRN", lrn_grad);
    register_gradient("TopKV2", top_k_grad);
    register_gradient("FusedBatchNorm", fused_batch_norm_grad);
    register_gradient("FusedBatchNormV2", fused_batch_norm_grad);
    register_gradient("FusedBatchNormV3", fused_batch_norm_grad);
}
