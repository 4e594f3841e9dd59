//! Gradients of `Prod`, `Cumprod`, `SegmentProd`, `UnsortedSegmentSum`, `GatherNd`,
//! `BroadcastTo`, `MirrorPad`/`MirrorPadGrad`, `TruncateDiv` and `FloorMod`, built from the ops
//! TensorFlow's `math_grad.py` and `array_grad.py` emit (`_ProdGrad`, `_CumprodGrad`,
//! `_SegmentProdGrad`, `_UnsortedSegmentSumGrad`, `_GatherNdGrad`, `_BroadcastToGrad`,
//! `_MirrorPadGrad`, `_MirrorPadGradGrad`, `_TruncateDivGrad`, `_FloorModGrad`).

use weir_graph::{AttrValue, DType, Graph, Output, Result, Tensor};

use super::registry::{register_gradient, GradContext};
use super::util::{cast_like, conj, konst, reduce_to_shape_of, scalar_like, shape_of};
use super::{op, op_node};

type Grads = Result<Vec<Option<Output>>>;

fn ints(g: &Graph, v: Vec<i32>) -> Result<Output> {
    konst(g, Tensor::from(v))
}

fn int0(g: &Graph, v: i32) -> Result<Output> {
    konst(g, Tensor::from(v))
}

/// The value of `t` when a `Const` node makes it.
fn const_value(t: &Output) -> Option<Tensor> {
    match t.op().op_type().as_str() {
        "Const" => t.op().attr::<Tensor>("value").ok(),
        _ => None,
    }
}

/// `tf.shape(x, out_type=dtype)`.
fn shape_typed(x: &Output, dtype: DType) -> Result<Output> {
    op(
        x.graph(),
        "Shape",
        &[x],
        &[("out_type", AttrValue::Type(dtype))],
    )
}

/// TensorFlow's `math_ops.reduced_shape(input_shape, axes)`, the shape of a reduction of `x`
/// over `axes` with the reduced dims kept as 1: a constant when `x`'s shape and the axes are
/// known, otherwise a `DynamicStitch` of the input shape and ones at the axes.
fn reduced_shape(input_shape: &Output, x: &Output, axes: &Output) -> Result<Output> {
    let g = x.graph().clone();
    if let (Some(dims), Some(a)) = (x.shape().to_known(), const_value(axes)) {
        let list: Vec<i64> = match a.dtype() {
            DType::I64 => a.to_vec::<i64>()?,
            _ => a.to_vec::<i32>()?.into_iter().map(i64::from).collect(),
        };
        let rank = dims.len() as i64;
        let mut kept: Vec<i32> = dims.iter().map(|&d| d as i32).collect();
        for ax in list {
            // numpy indexing, as TensorFlow's constant path does (the forward op has already
            // checked the range).
            let i = if ax < 0 { ax + rank } else { ax };
            if let Some(k) = kept.get_mut(i as usize) {
                *k = 1;
            }
        }
        return ints(&g, kept);
    }
    let rank = op(
        &g,
        "Size",
        &[input_shape],
        &[("out_type", AttrValue::Type(axes.dtype()))],
    )?;
    let sum = op(&g, "AddV2", &[axes, &rank], &[])?;
    let axes = op(&g, "FloorMod", &[&sum, &rank], &[])?;
    let axes_shape = shape_of(&axes)?;
    let (zero, one) = (
        konst(&g, weir_graph::scalar_of(rank.dtype(), 0.0)?)?,
        konst(&g, weir_graph::scalar_of(rank.dtype(), 1.0)?)?,
    );
    let positions = op(&g, "Range", &[&zero, &rank, &one], &[])?;
    let ones = op(
        &g,
        "Fill",
        &[
            &axes_shape,
            &konst(&g, weir_graph::scalar_of(input_shape.dtype(), 1.0)?)?,
        ],
        &[],
    )?;
    op(
        &g,
        "DynamicStitch",
        &[&positions, &axes, input_shape, &ones],
        &[("N", AttrValue::Int(2))],
    )
}

/// TensorFlow's `_ProdGrad`: the reduced dims are moved to the front and flattened into one,
/// whose exclusive products from the left and from the right multiply to the product of all
/// the other entries of each slice, so zeros need no division.
fn prod_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph().clone();
    let (d, x, axes) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let input_shape = shape_of(&x)?;
    let indices = op(&g, "Reshape", &[&axes, &ints(&g, vec![-1])?], &[])?;
    let d = if ctx.attr::<bool>("keep_dims")? {
        d
    } else {
        let kept = reduced_shape(&input_shape, &x, &axes)?;
        op(&g, "Reshape", &[&d, &kept], &[])?
    };
    let d = op(&g, "BroadcastTo", &[&d, &input_shape], &[])?;
    let rank = op(&g, "Rank", &[&x], &[])?;
    let indices = cast_like(&indices, DType::I32)?;
    let shifted = op(&g, "AddV2", &[&indices, &rank], &[])?;
    let reduced = op(&g, "FloorMod", &[&shifted, &rank], &[])?;
    let all = op(&g, "Range", &[&int0(&g, 0)?, &rank, &int0(&g, 1)?], &[])?;
    let other = op_node(
        &g,
        "ListDiff",
        &[&all, &reduced],
        &[("out_idx", AttrValue::Type(DType::I32))],
    )?
    .output(0)?;
    let perm = op(&g, "ConcatV2", &[&reduced, &other, &int0(&g, 0)?], &[])?;
    let count = |dims: &Output| -> Result<Output> {
        let sizes = op(&g, "GatherV2", &[&input_shape, dims, &int0(&g, 0)?], &[])?;
        op(
            &g,
            "Prod",
            &[&sizes, &ints(&g, vec![0])?],
            &[("keep_dims", AttrValue::Bool(false))],
        )
    };
    let (reduced_num, other_num) = (count(&reduced)?, count(&other)?);
    let permuted = op(&g, "Transpose", &[&x, &perm], &[])?;
    let permuted_shape = shape_of(&permuted)?;
    let matrix_shape = op(
        &g,
        "Pack",
        &[&reduced_num, &other_num],
        &[("axis", AttrValue::Int(0))],
    )?;
    let reshaped = op(&g, "Reshape", &[&permuted, &matrix_shape], &[])?;
    let scan = |reverse: bool| {
        op(
            &g,
            "Cumprod",
            &[&reshaped, &int0(&g, 0)?],
            &[
                ("exclusive", AttrValue::Bool(true)),
                ("reverse", AttrValue::Bool(reverse)),
            ],
        )
    };
    let (left, right) = (scan(false)?, scan(true)?);
    let y = op(&g, "Mul", &[&conj(&left)?, &conj(&right)?], &[])?;
    let y = op(&g, "Reshape", &[&y, &permuted_shape], &[])?;
    let inverse = op(&g, "InvertPermutation", &[&perm], &[])?;
    let y = op(&g, "Transpose", &[&y, &inverse], &[])?;
    let out = op(&g, "Mul", &[&d, &y], &[])?;
    Ok(vec![
        Some(op(&g, "Reshape", &[&out, &input_shape], &[])?),
        None,
    ])
}

/// TensorFlow's `_CumprodGrad`: the products again, times the gradient, summed the other way,
/// divided by the input (0 where it is 0, as `div_no_nan` gives).
fn cumprod_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph().clone();
    let (d, x, axis) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let (exclusive, reverse): (bool, bool) = (ctx.attr("exclusive")?, ctx.attr("reverse")?);
    let prod = op(
        &g,
        "Cumprod",
        &[&x, &axis],
        &[
            ("exclusive", AttrValue::Bool(exclusive)),
            ("reverse", AttrValue::Bool(reverse)),
        ],
    )?;
    let weighted = op(&g, "Mul", &[&prod, &d], &[])?;
    let out = op(
        &g,
        "Cumsum",
        &[&weighted, &axis],
        &[
            ("exclusive", AttrValue::Bool(exclusive)),
            ("reverse", AttrValue::Bool(!reverse)),
        ],
    )?;
    Ok(vec![Some(op(&g, "DivNoNan", &[&out, &x], &[])?), None])
}

/// TensorFlow's `_SegmentProdGrad`: the segment's product divided by the input in a segment
/// without zeros; in a segment with one zero, the product of the others at the zero and 0
/// elsewhere; 0 throughout a segment with two or more zeros.
fn segment_prod_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph().clone();
    let (d, x, ids) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let is_zero = op(&g, "Equal", &[&x, &scalar_like(&x, 0.0)?], &[])?;
    let zero_counts = op(
        &g,
        "SegmentSum",
        &[&cast_like(&is_zero, DType::I32)?, &ids],
        &[],
    )?;
    let many = op(&g, "Greater", &[&zero_counts, &int0(&g, 1)?], &[])?;
    let d_zeros = op(&g, "ZerosLike", &[&d], &[])?;
    let d = op(&g, "SelectV2", &[&many, &d_zeros, &d], &[])?;
    let ones = op(&g, "OnesLike", &[&x], &[])?;
    let non_zero = op(&g, "SelectV2", &[&is_zero, &ones, &x], &[])?;
    let non_zero_prod = op(&g, "SegmentProd", &[&non_zero, &ids], &[])?;
    let gather = |t: &Output| op(&g, "GatherV2", &[t, &ids, &int0(&g, 0)?], &[]);
    let gathered_prod = gather(&ctx.output(0))?;
    let gathered_non_zero = gather(&non_zero_prod)?;
    let by_element = op(&g, "RealDiv", &[&gathered_prod, &non_zero], &[])?;
    let partial = op(
        &g,
        "SelectV2",
        &[&is_zero, &gathered_non_zero, &by_element],
        &[],
    )?;
    let dx = op(&g, "Mul", &[&gather(&d)?, &partial], &[])?;
    Ok(vec![Some(dx), None])
}

/// TensorFlow's `_GatherDropNegatives(params, ids)[0]`: the rows of `params` the ids pick,
/// zero where an id is negative (the row the forward op dropped). An id past the last
/// segment fails in the gather, as in TensorFlow.
fn gather_drop_negatives(params: &Output, ids: &Output) -> Result<Output> {
    let g = params.graph().clone();
    let clipped = op(
        &g,
        "Maximum",
        &[ids, &op(&g, "ZerosLike", &[ids], &[])?],
        &[],
    )?;
    let gathered = op(&g, "GatherV2", &[params, &clipped, &int0(&g, 0)?], &[])?;
    let positive = op(&g, "GreaterEqual", &[ids, &scalar_like(ids, 0.0)?], &[])?;
    // The mask padded with trailing ones to the gathered rank, then broadcast to its shape
    // by a logical and with all-true, as `where` needs.
    let mask_shape = shape_of(&positive)?;
    let extra = op(
        &g,
        "Sub",
        &[
            &op(&g, "Rank", &[&gathered], &[])?,
            &op(&g, "Rank", &[&positive], &[])?,
        ],
        &[],
    )?;
    let extra = op(&g, "Pack", &[&extra], &[("axis", AttrValue::Int(0))])?;
    let ones = op(&g, "Fill", &[&extra, &int0(&g, 1)?], &[])?;
    let padded = op(&g, "ConcatV2", &[&mask_shape, &ones, &int0(&g, 0)?], &[])?;
    let positive = op(&g, "Reshape", &[&positive, &padded], &[])?;
    let all_true = op(
        &g,
        "Fill",
        &[&shape_of(&gathered)?, &konst(&g, Tensor::from(true))?],
        &[],
    )?;
    let positive = op(&g, "LogicalAnd", &[&positive, &all_true], &[])?;
    let zeros = op(&g, "ZerosLike", &[&gathered], &[])?;
    op(&g, "SelectV2", &[&positive, &gathered, &zeros], &[])
}

/// TensorFlow's `_UnsortedSegmentSumGrad`: each input row gets its segment's gradient.
fn unsorted_segment_sum_grad(ctx: &GradContext<'_>) -> Grads {
    let dx = gather_drop_negatives(&ctx.grad0()?, &ctx.input(1))?;
    Ok(vec![Some(dx), None, None])
}

/// TensorFlow's `_GatherNdGrad`: the gradient scattered (and summed where indices repeat) into
/// the params' shape. Indices of shape `[n, 1]` pick whole rows: TensorFlow returns
/// `IndexedSlices` there, which become dense through `unsorted_segment_sum`, as here.
fn gather_nd_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph().clone();
    let (d, params, indices) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let params_shape = shape_typed(&params, indices.dtype())?;
    let dims = indices.shape();
    let dx = if dims.rank() == Some(2) && dims.dim(1) == Some(1) {
        let rows = op(
            &g,
            "Squeeze",
            &[&indices],
            &[("squeeze_dims", AttrValue::Ints(vec![-1]))],
        )?;
        let n = op(
            &g,
            "StridedSlice",
            &[
                &params_shape,
                &ints(&g, vec![0])?,
                &ints(&g, vec![1])?,
                &ints(&g, vec![1])?,
            ],
            &[("shrink_axis_mask", AttrValue::Int(1))],
        )?;
        op(&g, "UnsortedSegmentSum", &[&d, &rows, &n], &[])?
    } else {
        // The forward op's policy for bad indices, when it has one (weir's default has none).
        let policy = ctx
            .attr::<String>("bad_indices_policy")
            .ok()
            .filter(|p| !p.is_empty());
        let attrs: Vec<(&str, AttrValue)> = policy
            .map(|p| ("bad_indices_policy", AttrValue::Str(p)))
            .into_iter()
            .collect();
        op(&g, "ScatterNd", &[&indices, &d, &params_shape], &attrs)?
    };
    Ok(vec![Some(dx), None])
}

/// TensorFlow's `_BroadcastToGrad`: the gradient summed over the broadcast dims (kept), then
/// shaped as the input. A target shape known when the graph is built becomes a constant, as
/// TensorFlow's `try_evaluate_constant` makes it.
fn broadcast_to_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph().clone();
    let (d, x, shape) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let dtype = shape.dtype();
    let x_shape = shape_typed(&x, dtype)?;
    let target = match ctx.output(0).shape().to_known() {
        Some(dims) => konst(
            &g,
            match dtype {
                DType::I64 => Tensor::from(dims.iter().map(|&v| v as i64).collect::<Vec<_>>()),
                _ => Tensor::from(dims.iter().map(|&v| v as i32).collect::<Vec<_>>()),
            },
        )?,
        None => shape,
    };
    let axes = op_node(&g, "BroadcastGradientArgs", &[&target, &x_shape], &[])?.output(1)?;
    let summed = op(
        &g,
        "Sum",
        &[&d, &axes],
        &[("keep_dims", AttrValue::Bool(true))],
    )?;
    Ok(vec![
        Some(op(&g, "Reshape", &[&summed, &x_shape], &[])?),
        None,
    ])
}

/// `_MirrorPadGrad` and `_MirrorPadGradGrad`: the other op of the pair, same paddings and mode.
fn mirror_pad_pair_grad(ctx: &GradContext<'_>) -> Grads {
    let other = match ctx.op().op_type().as_str() {
        "MirrorPad" => "MirrorPadGrad",
        _ => "MirrorPad",
    };
    let mode: String = ctx.attr("mode")?;
    let dx = op(
        ctx.graph(),
        other,
        &[&ctx.grad0()?, &ctx.input(1)],
        &[("mode", AttrValue::Str(mode))],
    )?;
    Ok(vec![Some(dx), None])
}

/// FloorMod, `x - floor(x / y) * y`: `(grad, -grad * floor_div(x, y))`, each summed back over
/// its broadcast dims (`_FloorModGrad`).
fn floor_mod_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let d = ctx.grad0()?;
    let (x, y) = (conj(&ctx.input(0))?, conj(&ctx.input(1))?);
    let floor_xy = op(g, "FloorDiv", &[&x, &y], &[])?;
    let gx = reduce_to_shape_of(&d, &x, &y, 0)?;
    let neg = op(g, "Neg", &[&floor_xy], &[])?;
    let gy = reduce_to_shape_of(&op(g, "Mul", &[&d, &neg], &[])?, &y, &x, 1)?;
    Ok(vec![Some(gx), Some(gy)])
}

pub(super) fn register() {
    register_gradient("FloorMod", floor_mod_grad);
    register_gradient("Prod", prod_grad);
    register_gradient("Cumprod", cumprod_grad);
    register_gradient("SegmentProd", segment_prod_grad);
    register_gradient("UnsortedSegmentSum", unsorted_segment_sum_grad);
    register_gradient("GatherNd", gather_nd_grad);
    register_gradient("BroadcastTo", broadcast_to_grad);
    register_gradient("MirrorPad", mirror_pad_pair_grad);
    register_gradient("MirrorPadGrad", mirror_pad_pair_grad);
    // TensorFlow registers a gradient of nothing (`_TruncateDivGrad`): integer-like division.
    register_gradient("TruncateDiv", |_| Ok(vec![None, None]));
}
