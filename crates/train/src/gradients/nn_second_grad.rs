//! Gradients of the backward nn ops, for double backprop (gradient penalties, Hessian-vector
//! products): TensorFlow's `_ReluGradGrad`, `_Relu6GradGrad`, `_EluGradGrad`,
//! `_LeakyReluGradGrad`, `_BiasAddGradGrad`, `_MaxPoolGradGrad` and `_MaxPoolGradGradGrad`
//! (nn_grad.py), `_SigmoidGradGrad`, `_TanhGradGrad`, `_SqrtGradGrad`, `_RsqrtGradGrad` and
//! `_ReciprocalGradGrad` (math_grad.py), and `_FusedBatchNormGradGrad` (V1/V2/V3,
//! nn_fused_batch_norm_grad.py), each built from the ops TensorFlow's builds.

use weir_graph::{AttrValue, DType, Output, Result, Tensor};

use super::op;
use super::registry::{register_gradient, GradContext};
use super::util::{cast_like, conj, konst, scalar_like, shape_of};

type Grads = Result<Vec<Option<Output>>>;

/// The forward node's attrs among `names`, for a backward op with the same configuration.
fn attrs_of(ctx: &GradContext<'_>, names: &[&'static str]) -> Vec<(&'static str, AttrValue)> {
    names
        .iter()
        .filter_map(|n| ctx.attr_value(n).map(|v| (*n, v.clone())))
        .collect()
}

fn mul(a: &Output, b: &Output) -> Result<Output> {
    op(a.graph(), "Mul", &[a, b], &[])
}

fn zeros_like(x: &Output) -> Result<Output> {
    op(x.graph(), "ZerosLike", &[x], &[])
}

/// ReluGrad / Relu6Grad / LeakyReluGrad(gradients, features): the same backward op applied to
/// the incoming gradient (the derivative is piecewise constant in `features`, which gets
/// zeros).
fn piecewise_linear_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x) = (ctx.grad0()?, ctx.input(1));
    let op_type = ctx.op().op_type();
    let attrs = attrs_of(ctx, &["alpha"]);
    let dd = op(ctx.graph(), &op_type, &[&d, &x], &attrs)?;
    Ok(vec![Some(dd), Some(zeros_like(&x)?)])
}

/// EluGrad(gradients, outputs): `EluGrad(grad, outputs)`, and for the outputs
/// `where(outputs < 0, grad * gradients, 0)` (below zero the backprop is
/// `gradients * (outputs + 1)`).
fn elu_grad_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let (d, dy, y) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let dd = op(g, "EluGrad", &[&d, &y], &[])?;
    let neg = op(g, "Less", &[&y, &scalar_like(&y, 0.0)?], &[])?;
    let t = mul(&d, &dy)?;
    let dy_out = op(g, "Select", &[&neg, &t, &zeros_like(&y)?], &[])?;
    Ok(vec![Some(dd), Some(dy_out)])
}

/// SigmoidGrad(y, dy) = dy * y * (1 - y): `grad * dy * (1 - 2y)` for y, `SigmoidGrad(y, grad)`
/// for dy.
fn sigmoid_grad_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let g = ctx.graph();
    let _deps = g.control_dependencies(&[d.op()])?;
    let (a, b) = (conj(&ctx.input(0))?, conj(&ctx.input(1))?);
    let gb = mul(&d, &b)?;
    let two_gb_a = mul(&mul(&scalar_like(&gb, 2.0)?, &gb)?, &a)?;
    let da = op(g, "Sub", &[&gb, &two_gb_a], &[])?;
    let db = op(g, "SigmoidGrad", &[&a, &d], &[])?;
    Ok(vec![Some(da), Some(db)])
}

/// TanhGrad(y, dy) = dy * (1 - y²): `grad * -2 * dy * y` for y, `TanhGrad(y, grad)` for dy.
fn tanh_grad_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let g = ctx.graph();
    let _deps = g.control_dependencies(&[d.op()])?;
    let (a, b) = (conj(&ctx.input(0))?, conj(&ctx.input(1))?);
    let da = mul(&mul(&mul(&d, &scalar_like(&d, -2.0)?)?, &b)?, &a)?;
    let db = op(g, "TanhGrad", &[&a, &d], &[])?;
    Ok(vec![Some(da), Some(db)])
}

/// SqrtGrad(y, dy) = 0.5 * dy / y, its own output z: `-conj(grad / y) * z` for y,
/// `0.5 * grad / y` for dy.
fn sqrt_grad_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let g = ctx.graph();
    let (a, z) = (ctx.input(0), ctx.output(0));
    let _deps = g.control_dependencies(&[d.op()])?;
    let ga = op(g, "RealDiv", &[&d, &a], &[])?;
    let neg = op(g, "Neg", &[&conj(&ga)?], &[])?;
    let da = mul(&neg, &z)?;
    let db = mul(&scalar_like(&ga, 0.5)?, &ga)?;
    Ok(vec![Some(da), Some(db)])
}

/// RsqrtGrad(y, dy) = -0.5 * dy * y³: `-1.5 * grad * dy * y²` for y, `RsqrtGrad(y, grad)` for
/// dy.
fn rsqrt_grad_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let g = ctx.graph();
    let (a, b) = (ctx.input(0), ctx.input(1));
    let _deps = g.control_dependencies(&[d.op()])?;
    let (ca, cg) = (conj(&a)?, conj(&d)?);
    let t = mul(&mul(&scalar_like(&cg, -1.5)?, &cg)?, &b)?;
    let da = mul(&t, &op(g, "Square", &[&ca], &[])?)?;
    let db = op(g, "RsqrtGrad", &[&ca, &d], &[])?;
    Ok(vec![Some(da), Some(db)])
}

/// ReciprocalGrad(y, dy) = -dy * y²: `grad * -2 * dy * y` for y, `ReciprocalGrad(y, grad)`
/// for dy.
fn reciprocal_grad_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let g = ctx.graph();
    let b = ctx.input(1);
    let _deps = g.control_dependencies(&[d.op()])?;
    let (ca, cg) = (conj(&ctx.input(0))?, conj(&d)?);
    let da = mul(&mul(&mul(&cg, &scalar_like(&cg, -2.0)?)?, &b)?, &ca)?;
    let db = op(g, "ReciprocalGrad", &[&ca, &d], &[])?;
    Ok(vec![Some(da), Some(db)])
}

/// `tf.shape(x)`, folded into a constant when the static shape is fully known, as
/// `array_ops.shape` folds it.
fn shape_folded(x: &Output) -> Result<Output> {
    let dims = x.shape().to_known().and_then(|d| {
        d.iter()
            .map(|&v| i32::try_from(v).ok())
            .collect::<Option<Vec<i32>>>()
    });
    match dims {
        Some(dims) => konst(x.graph(), Tensor::from(dims)),
        None => shape_of(x),
    }
}

/// `v[begin:end]` of a 1-D int32 tensor (`None` for an omitted bound), as Python slicing
/// builds it.
fn slice1(v: &Output, begin: Option<i32>, end: Option<i32>) -> Result<Output> {
    let g = v.graph();
    let ints = |x: i32| konst(g, Tensor::from(vec![x]));
    let mut attrs = Vec::new();
    if begin.is_none() {
        attrs.push(("begin_mask", AttrValue::Int(1)));
    }
    if end.is_none() {
        attrs.push(("end_mask", AttrValue::Int(1)));
    }
    let (b, e, s) = (ints(begin.unwrap_or(0))?, ints(end.unwrap_or(0))?, ints(1)?);
    op(g, "StridedSlice", &[v, &b, &e, &s], &attrs)
}

/// `tf.ones_like(v)` for an int32 vector: `Fill` when its length is static (TensorFlow's
/// `ones_like` then builds `ones(shape)`).
fn ones_like_vec(v: &Output) -> Result<Output> {
    let g = v.graph();
    match v.shape().to_known() {
        Some(d) => {
            let dims = konst(g, Tensor::from(vec![d[0] as i32]))?;
            op(g, "Fill", &[&dims, &konst(g, Tensor::from(1i32))?], &[])
        }
        None => op(g, "OnesLike", &[v], &[]),
    }
}

fn concat0(parts: &[&Output]) -> Result<Output> {
    let g = parts[0].graph().clone();
    let axis = konst(&g, Tensor::from(0i32))?;
    let mut inputs: Vec<&Output> = parts.to_vec();
    inputs.push(&axis);
    op(&g, "ConcatV2", &inputs, &[])
}

/// BiasAddGrad (TensorFlow's `_BiasAddGradGrad`): the incoming `[C]` gradient reshaped to
/// broadcast along the channel dimension and tiled to `out_backprop`'s shape.
fn bias_add_grad_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let g = ctx.graph();
    let shape = shape_folded(&ctx.input(0))?;
    let bias_shape = shape_folded(&d)?;
    let one = konst(g, Tensor::from(vec![1i32]))?;
    let nchw = ctx
        .attr_value("data_format")
        .is_some_and(|v| matches!(v, AttrValue::Str(s) if s == "NCHW"));
    let (expanded, tile) = if nchw {
        let (lead, rest) = (
            slice1(&shape, None, Some(1))?,
            slice1(&shape, Some(2), None)?,
        );
        let expanded = concat0(&[&ones_like_vec(&lead)?, &bias_shape, &ones_like_vec(&rest)?])?;
        let (lead, rest) = (
            slice1(&shape, None, Some(1))?,
            slice1(&shape, Some(2), None)?,
        );
        (expanded, concat0(&[&lead, &one, &rest])?)
    } else {
        let lead = slice1(&shape, None, Some(-1))?;
        let expanded = concat0(&[&ones_like_vec(&lead)?, &bias_shape])?;
        let lead = slice1(&shape, None, Some(-1))?;
        (expanded, concat0(&[&lead, &one])?)
    };
    let reshaped = op(g, "Reshape", &[&d, &expanded], &[])?;
    Ok(vec![Some(op(g, "Tile", &[&reshaped, &tile], &[])?)])
}

const POOL_ATTRS: &[&str] = &["ksize", "strides", "padding", "data_format"];

/// MaxPoolGrad (TensorFlow's `_MaxPoolGradGrad`): `MaxPoolGradGrad` for the incoming gradient;
/// the pool's input and output get zeros.
fn max_pool_grad_grad(ctx: &GradContext<'_>) -> Grads {
    max_pool_backward_grad(ctx, "MaxPoolGradGrad")
}

/// MaxPoolGradGrad (TensorFlow's `_MaxPoolGradGradGrad`): `MaxPoolGrad` again.
fn max_pool_grad_grad_grad(ctx: &GradContext<'_>) -> Grads {
    max_pool_backward_grad(ctx, "MaxPoolGrad")
}

fn max_pool_backward_grad(ctx: &GradContext<'_>, grad_op: &str) -> Grads {
    let d = ctx.grad0()?;
    let (x, y) = (ctx.input(0), ctx.input(1));
    let attrs = attrs_of(ctx, POOL_ATTRS);
    let dd = op(ctx.graph(), grad_op, &[&x, &y, &d], &attrs)?;
    Ok(vec![Some(zeros_like(&x)?), Some(zeros_like(&y)?), Some(dd)])
}

/// FusedBatchNormGrad / V2 / V3 (TensorFlow's `_FusedBatchNormGradGrad`): TensorFlow writes
/// the backward pass out of ordinary ops (`_BatchNormGrad`) and differentiates that with a
/// tape; weir builds the same ops and differentiates them with [`super::gradients`]. The tape
/// sees only the ops it recorded, so the sources are fresh `Identity` nodes of `y_backprop`,
/// `x` and `scale`: otherwise the path from `x` through the forward pass to `y_backprop` would
/// count twice. The statistics inputs get no gradient, as in TensorFlow.
fn fused_batch_norm_grad_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let mut upstream = Vec::with_capacity(3);
    for i in 0..3 {
        upstream.push(match ctx.grad(i) {
            Some(d) => d.clone(),
            None => zeros_like(&ctx.output(i))?,
        });
    }
    let sources: Vec<Output> = (0..3)
        .map(|i| op(g, "Identity", &[&ctx.input(i)], &[]))
        .collect::<Result<_>>()?;
    let format = match ctx.attr_value("data_format") {
        Some(AttrValue::Str(s)) => s.clone(),
        _ => "NHWC".to_string(),
    };
    let config = BatchNormConfig {
        epsilon: ctx.attr::<f32>("epsilon")?,
        format,
        is_training: ctx.attr("is_training")?,
    };
    let (pop_mean, pop_var) = (ctx.input(3), ctx.input(4));
    let outs = batch_norm_grad(
        &sources[0],
        &sources[1],
        &sources[2],
        &pop_mean,
        &pop_var,
        &config,
    )?;
    let mut grads = super::gradients(&outs, &sources, Some(&upstream))?;
    grads.resize(ctx.num_inputs(), None);
    Ok(grads)
}

/// The configuration `_BatchNormGrad` reads from the FusedBatchNormGrad node.
struct BatchNormConfig {
    epsilon: f32,
    format: String,
    is_training: bool,
}

/// TensorFlow's `_BatchNormGrad`: the gradients of x, scale and offset of a batch norm, from
/// ordinary ops (computed in float32 for half inputs).
fn batch_norm_grad(
    grad_y: &Output,
    x: &Output,
    scale: &Output,
    pop_mean: &Output,
    pop_var: &Output,
    cfg: &BatchNormConfig,
) -> Result<Vec<Output>> {
    let g = x.graph().clone();
    let x_dtype = x.dtype();
    let (x, grad_y) = if matches!(x_dtype, DType::F16 | DType::BF16) {
        (cast_like(x, DType::F32)?, cast_like(grad_y, DType::F32)?)
    } else {
        (x.clone(), grad_y.clone())
    };
    let channels_first = matches!(cfg.format.as_str(), "NCHW" | "NCDHW");
    let rank = if cfg.format.len() == 5 { 5 } else { 4 };
    let axes: Vec<i32> = if channels_first {
        std::iter::once(0).chain(2..rank).collect()
    } else {
        (0..rank - 1).collect()
    };
    let axis = || konst(&g, Tensor::from(axes.clone()));
    let reduce = |kind: &str, t: &Output, keep: bool| -> Result<Output> {
        op(
            &g,
            kind,
            &[t, &axis()?],
            &[("keep_dims", AttrValue::Bool(keep))],
        )
    };
    // `[1, size(v), 1, 1(, 1)]`, the broadcastable shape of a per-channel vector.
    let channel_shape = |v: &Output| -> Result<Output> {
        let size = op(
            &g,
            "Size",
            &[v],
            &[("out_type", AttrValue::Type(DType::I32))],
        )?;
        let one = konst(&g, Tensor::from(1i32))?;
        let mut parts = vec![&one, &size];
        parts.extend(std::iter::repeat_n(&one, rank as usize - 2));
        op(&g, "Pack", &parts, &[("axis", AttrValue::Int(0))])
    };
    let to_channels = |v: &Output| -> Result<Output> {
        if channels_first {
            op(&g, "Reshape", &[v, &channel_shape(v)?], &[])
        } else {
            Ok(v.clone())
        }
    };
    let plus_eps = |v: &Output| -> Result<Output> {
        let eps = konst(
            &g,
            weir_graph::scalar_of(v.dtype(), f64::from(cfg.epsilon))?,
        )?;
        op(&g, "AddV2", &[v, &eps], &[])
    };
    let sub = |a: &Output, b: &Output| op(&g, "Sub", &[a, b], &[]);
    if cfg.is_training {
        let keep = channels_first;
        let scale = to_channels(scale)?;
        let mean_grad_y = reduce("Mean", &grad_y, keep)?;
        let mean_x = reduce("Mean", &x, keep)?;
        let stopped = op(&g, "StopGradient", &[&mean_x], &[])?;
        let sq = op(&g, "SquaredDifference", &[&x, &stopped], &[])?;
        let var_x = reduce("Mean", &sq, keep)?;
        let grad_y_offset = sub(&grad_y, &mean_grad_y)?;
        let x_offset = sub(&x, &mean_x)?;
        let mean = reduce("Mean", &mul(&grad_y, &x_offset)?, keep)?;
        let rsqrt = op(&g, "Rsqrt", &[&plus_eps(&var_x)?], &[])?;
        let coef = mul(&scale, &rsqrt)?;
        let recip = op(&g, "Reciprocal", &[&plus_eps(&var_x)?], &[])?;
        let corr = mul(&mul(&recip, &mean)?, &x_offset)?;
        let grad_x = mul(&coef, &sub(&grad_y_offset, &corr)?)?;
        let rsqrt2 = op(&g, "Rsqrt", &[&plus_eps(&var_x)?], &[])?;
        let summed = reduce("Sum", &mul(&grad_y, &x_offset)?, keep)?;
        let mut grad_scale = mul(&rsqrt2, &summed)?;
        if channels_first {
            grad_scale = op(&g, "Squeeze", &[&grad_scale], &[])?;
        }
        let grad_offset = reduce("Sum", &grad_y, false)?;
        Ok(vec![cast_like(&grad_x, x_dtype)?, grad_scale, grad_offset])
    } else {
        let pop_mean = to_channels(pop_mean)?;
        let pop_var = to_channels(pop_var)?;
        let scale = to_channels(scale)?;
        let grad_offset = reduce("Sum", &grad_y, false)?;
        let var_rsqrt = op(&g, "Rsqrt", &[&plus_eps(&pop_var)?], &[])?;
        let centered = mul(&grad_y, &sub(&x, &pop_mean)?)?;
        let grad_scale = reduce("Sum", &mul(&centered, &var_rsqrt)?, false)?;
        let grad_x = mul(&mul(&grad_y, &scale)?, &var_rsqrt)?;
        Ok(vec![cast_like(&grad_x, x_dtype)?, grad_scale, grad_offset])
    }
}

pub(super) fn register() {
    register_gradient("ReluGrad", piecewise_linear_grad);
    register_gradient("Relu6Grad", piecewise_linear_grad);
    register_gradient("LeakyReluGrad", piecewise_linear_grad);
    register_gradient("EluGrad", elu_grad_grad);
    register_gradient("SigmoidGrad", sigmoid_grad_grad);
    register_gradient("TanhGrad", tanh_grad_grad);
    register_gradient("SqrtGrad", sqrt_grad_grad);
    register_gradient("RsqrtGrad", rsqrt_grad_grad);
    register_gradient("ReciprocalGrad", reciprocal_grad_grad);
    register_gradient("BiasAddGrad", bias_add_grad_grad);
    register_gradient("MaxPoolGrad", max_pool_grad_grad);
    register_gradient("MaxPoolGradGrad", max_pool_grad_grad_grad);
    register_gradient("FusedBatchNormGrad", fused_batch_norm_grad_grad);
    register_gradient("FusedBatchNormGradV2", fused_batch_norm_grad_grad);
    register_gradient("FusedBatchNormGradV3", fused_batch_norm_grad_grad);
}
