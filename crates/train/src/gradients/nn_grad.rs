//! Gradients of the nn ops (TensorFlow's `nn_grad.py`): activations, softmax, the
//! cross-entropy losses, bias_add, l2_loss, dropout, conv2d and max_pool.

use weir_graph::{AttrValue, Output, Result};

use super::op;
use super::registry::{register_gradient, GradContext};

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

fn conv2d_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, filter) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let g = ctx.graph();
    let attrs = config_attrs(ctx, &["strides", "padding", "data_format", "dilations"]);
    let xs = super::util::shape_of(&x)?;
    let fs = super::util::shape_of(&filter)?;
    let dx = op(g, "Conv2DBackpropInput", &[&xs, &filter, &d], &attrs)?;
    let df = op(g, "Conv2DBackpropFilter", &[&x, &fs, &d], &attrs)?;
    Ok(vec![Some(dx), Some(df)])
}

fn max_pool_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, y) = (ctx.grad0()?, ctx.input(0), ctx.output(0));
    let attrs = config_attrs(ctx, &["ksize", "strides", "padding", "data_format"]);
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
    register_gradient("MaxPool", max_pool_grad);
    register_gradient("LRN", lrn_grad);
}
