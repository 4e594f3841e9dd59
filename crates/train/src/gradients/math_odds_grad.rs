//! Gradients of the less common math and nn ops, built as TensorFlow's `math_grad.py` and
//! `nn_grad.py` build them: `EuclideanNorm`, `CumulativeLogsumexp`, the
//! `SparseSegment*WithNumSegments` ops, `MaxPoolV2` and `BiasAddV1`.

use weir_graph::{AttrValue, DType, Output, Result, Tensor};

use super::op;
use super::registry::{register_gradient, GradContext};
use super::util::{konst, scalar_like, shape_of};

type Grads = Result<Vec<Option<Output>>>;

/// TensorFlow's `_EuclideanNormGrad`: `x / (norm / grad)`, with the norm and the gradient
/// reshaped to keep the reduced dims when the op dropped them.
fn euclidean_norm_grad(ctx: &GradContext<'_>) -> Grads {
    let (mut d, x, axes, mut y) = (ctx.grad0()?, ctx.input(0), ctx.input(1), ctx.output(0));
    let g = ctx.graph();
    if !ctx.attr::<bool>("keep_dims")? {
        let kept = op(g, "ReducedShape", &[&shape_of(&x)?, &axes], &[])?;
        y = op(g, "Reshape", &[&y, &kept], &[])?;
        d = op(g, "Reshape", &[&d, &kept], &[])?;
    }
    let ratio = op(g, "RealDiv", &[&y, &d], &[])?;
    Ok(vec![Some(op(g, "RealDiv", &[&x, &ratio], &[])?), None])
}

/// The lowest finite value of a float dtype (numpy's `finfo(dtype).min`, TensorFlow's
/// `dtype.min`).
fn lowest(dtype: DType) -> f64 {
    match dtype {
        DType::F16 => -65504.0,
        DType::BF16 => f64::from(weir_graph::bf16::MIN.to_f32()),
        DType::F32 => f64::from(f32::MIN),
        _ => f64::MIN,
    }
}

/// TensorFlow's `_CumulativeLogsumexpGrad`: the incoming gradient split into its positive and
/// negative parts, each taken to log space (`dtype.min` where the part is absent), scanned
/// backwards by `CumulativeLogsumexp` against the forward result, and exponentiated.
fn cumulative_logsumexp_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, axis, y) = (ctx.grad0()?, ctx.input(0), ctx.input(1), ctx.output(0));
    let g = ctx.graph();
    let exclusive: bool = ctx.attr("exclusive")?;
    let reverse: bool = ctx.attr("reverse")?;
    let zero = scalar_like(&d, 0.0)?;
    let min = scalar_like(&d, lowest(d.dtype()))?;
    let part = |cmp: &str, negate: bool| -> Result<Output> {
        let mask = op(g, cmp, &[&d, &zero], &[])?;
        let v = if negate {
            op(g, "Neg", &[&d], &[])?
        } else {
            d.clone()
        };
        let log = op(g, "Log", &[&v], &[])?;
        let log_grad = op(g, "SelectV2", &[&mask, &log, &min], &[])?;
        let shifted = op(g, "Sub", &[&log_grad, &y], &[])?;
        let scanned = op(
            g,
            "CumulativeLogsumexp",
            &[&shifted, &axis],
            &[
                ("exclusive", AttrValue::Bool(exclusive)),
                ("reverse", AttrValue::Bool(!reverse)),
            ],
        )?;
        let sum = op(g, "AddV2", &[&scanned, &x], &[])?;
        op(g, "Exp", &[&sum], &[])
    };
    let pos = part("Greater", false)?;
    let neg = part("Less", true)?;
    Ok(vec![Some(op(g, "Sub", &[&pos, &neg], &[])?), None])
}

/// TensorFlow's `_SparseSegment{Sum,Mean,SqrtN}WithNumSegmentsGrad` (dense form): the
/// matching `SparseSegment*Grad` op spreads each segment's gradient over the rows its
/// indices picked, into `data`'s first dimension.
fn sparse_segment_num_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let g = ctx.graph();
    let op_type = ctx.op().op_type();
    let grad_op = format!("{}Grad", op_type.trim_end_matches("WithNumSegments"));
    let ints = |v: Vec<i32>| konst(g, Tensor::from(v));
    let dim0 = op(
        g,
        "StridedSlice",
        &[
            &shape_of(&ctx.input(0))?,
            &ints(vec![0])?,
            &ints(vec![1])?,
            &ints(vec![1])?,
        ],
        &[("shrink_axis_mask", AttrValue::Int(1))],
    )?;
    let dx = op(g, &grad_op, &[&d, &ctx.input(1), &ctx.input(2), &dim0], &[])?;
    Ok(vec![Some(dx), None, None, None])
}

/// TensorFlow's `_MaxPoolGradV2`: `MaxPoolGradV2` with the forward op's window tensors.
fn max_pool_v2_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, y) = (ctx.grad0()?, ctx.input(0), ctx.output(0));
    let attrs: Vec<(&str, AttrValue)> = ["padding", "data_format"]
        .iter()
        .filter_map(|n| ctx.attr_value(n).map(|v| (*n, v.clone())))
        .collect();
    let dx = op(
        ctx.graph(),
        "MaxPoolGradV2",
        &[&x, &y, &d, &ctx.input(1), &ctx.input(2)],
        &attrs,
    )?;
    Ok(vec![Some(dx), None, None])
}

/// TensorFlow's `_BiasAddGradV1`: the gradient itself for the value, and its sum over every
/// dimension but the last (`range(rank(grad) - 1)`) for the bias.
fn bias_add_v1_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let g = ctx.graph();
    let int = |v: i32| konst(g, Tensor::from(v));
    let rank = op(g, "Rank", &[&d], &[])?;
    let last = op(g, "Sub", &[&rank, &int(1)?], &[])?;
    let axes = op(g, "Range", &[&int(0)?, &last, &int(1)?], &[])?;
    let db = op(
        g,
        "Sum",
        &[&d, &axes],
        &[("keep_dims", AttrValue::Bool(false))],
    )?;
    Ok(vec![Some(d), Some(db)])
}

pub(super) fn register() {
    register_gradient("EuclideanNorm", euclidean_norm_grad);
    register_gradient("CumulativeLogsumexp", cumulative_logsumexp_grad);
    for s in [
        "SparseSegmentSumWithNumSegments",
        "SparseSegmentMeanWithNumSegments",
        "SparseSegmentSqrtNWithNumSegments",
    ] {
        register_gradient(s, sparse_segment_num_grad);
    }
    register_gradient("MaxPoolV2", max_pool_v2_grad);
    register_gradient("BiasAddV1", bias_add_v1_grad);
}
