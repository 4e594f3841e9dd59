//! Gradients of `UnsortedSegmentMax`, `UnsortedSegmentMin` and `UnsortedSegmentProd`, built
//! from the ops TensorFlow's `math_grad.py` emits (`_UnsortedSegmentMinOrMaxGrad`,
//! `_UnsortedSegmentProdGrad`). `UnsortedSegmentJoin` has no gradient (strings).

use weir_graph::{AttrValue, DType, Output, Result, Tensor};

use super::op;
use super::registry::{register_gradient, register_not_differentiable, GradContext};
use super::util::{cast_like, konst, scalar_like, shape_of};

type Grads = Result<Vec<Option<Output>>>;

/// TensorFlow's `_GatherDropNegatives`: the rows of `params` picked by `ids`, zero where an id
/// is negative. `clipped` and `is_positive` are reused from an earlier call when given (the
/// mask then already has the gathered shape).
fn gather_drop_negatives(
    params: &Output,
    ids: &Output,
    clipped: Option<Output>,
    is_positive: Option<Output>,
) -> Result<(Output, Output, Output)> {
    let g = params.graph().clone();
    let clipped = match clipped {
        Some(c) => c,
        None => {
            let zeros = op(&g, "ZerosLike", &[ids], &[])?;
            op(&g, "Maximum", &[ids, &zeros], &[])?
        }
    };
    let axis = konst(&g, Tensor::from(0i32))?;
    let gathered = op(&g, "GatherV2", &[params, &clipped, &axis], &[])?;
    let is_positive = match is_positive {
        Some(p) => p,
        None => {
            // `where` needs the mask in the gathered shape: the ids' shape padded with ones,
            // then broadcast by a logical and with an all-true tensor.
            let positive = op(&g, "GreaterEqual", &[ids, &scalar_like(ids, 0.0)?], &[])?;
            let pos_shape = shape_of(&positive)?;
            let rank_diff = op(
                &g,
                "Sub",
                &[
                    &op(&g, "Rank", &[&gathered], &[])?,
                    &op(&g, "Rank", &[&positive], &[])?,
                ],
                &[],
            )?;
            let dims = op(&g, "Pack", &[&rank_diff], &[("axis", AttrValue::Int(0))])?;
            let ones = op(&g, "Fill", &[&dims, &konst(&g, Tensor::from(1i32))?], &[])?;
            let new_shape = op(&g, "ConcatV2", &[&pos_shape, &ones, &axis], &[])?;
            let reshaped = op(&g, "Reshape", &[&positive, &new_shape], &[])?;
            let all_true = op(
                &g,
                "Fill",
                &[&shape_of(&gathered)?, &konst(&g, Tensor::from(true))?],
                &[],
            )?;
            op(&g, "LogicalAnd", &[&reshaped, &all_true], &[])?
        }
    };
    let zeros = op(&g, "ZerosLike", &[&gathered], &[])?;
    let picked = op(&g, "SelectV2", &[&is_positive, &gathered, &zeros], &[])?;
    Ok((picked, clipped, is_positive))
}

/// TensorFlow's `_UnsortedSegmentMinOrMaxGrad`: each segment's gradient goes to the inputs
/// equal to its result, shared evenly among ties; dropped (negative-id) inputs get zero.
fn min_or_max_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph().clone();
    let (d, x, ids, n) = (ctx.grad0()?, ctx.input(0), ctx.input(1), ctx.input(2));
    let (picked, clipped, is_positive) = gather_drop_negatives(&ctx.output(0), &ids, None, None)?;
    let equal = op(&g, "Equal", &[&x, &picked], &[])?;
    let selected = op(&g, "LogicalAnd", &[&equal, &is_positive], &[])?;
    let counts = op(
        &g,
        "UnsortedSegmentSum",
        &[&cast_like(&selected, d.dtype())?, &ids, &n],
        &[],
    )?;
    let weighted = op(&g, "RealDiv", &[&d, &counts], &[])?;
    let (spread, _, _) = gather_drop_negatives(&weighted, &ids, Some(clipped), Some(is_positive))?;
    let zeros = op(&g, "ZerosLike", &[&spread], &[])?;
    let dx = op(&g, "SelectV2", &[&selected, &spread, &zeros], &[])?;
    Ok(vec![Some(dx), None, None])
}

/// TensorFlow's `_UnsortedSegmentProdGrad`: the segment's product divided by the input where
/// the segment holds no zero; for a segment with one zero, the product of the others at the
/// zero and 0 elsewhere; 0 throughout a segment with two or more zeros.
fn prod_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph().clone();
    let (d, x, ids, n) = (ctx.grad0()?, ctx.input(0), ctx.input(1), ctx.input(2));
    let is_zero = op(&g, "Equal", &[&x, &scalar_like(&x, 0.0)?], &[])?;
    let zero_counts = op(
        &g,
        "UnsortedSegmentSum",
        &[&cast_like(&is_zero, DType::I32)?, &ids, &n],
        &[],
    )?;
    let many = op(
        &g,
        "Greater",
        &[&zero_counts, &konst(&g, Tensor::from(1i32))?],
        &[],
    )?;
    let d_zeros = op(&g, "ZerosLike", &[&d], &[])?;
    let d = op(&g, "SelectV2", &[&many, &d_zeros, &d], &[])?;
    let ones = op(&g, "OnesLike", &[&x], &[])?;
    let non_zero = op(&g, "SelectV2", &[&is_zero, &ones, &x], &[])?;
    let non_zero_prod = op(&g, "UnsortedSegmentProd", &[&non_zero, &ids, &n], &[])?;
    let id_zeros = op(&g, "ZerosLike", &[&ids], &[])?;
    let clipped = op(&g, "Maximum", &[&ids, &id_zeros], &[])?;
    let axis = konst(&g, Tensor::from(0i32))?;
    let gathered_prod = op(&g, "GatherV2", &[&ctx.output(0), &clipped, &axis], &[])?;
    let gathered_non_zero = op(&g, "GatherV2", &[&non_zero_prod, &clipped, &axis], &[])?;
    // Infinite or NaN where the input is zero; those entries are replaced just below.
    let by_element = op(&g, "RealDiv", &[&gathered_prod, &x], &[])?;
    let partial = op(
        &g,
        "SelectV2",
        &[&is_zero, &gathered_non_zero, &by_element],
        &[],
    )?;
    let (gathered_d, _, _) = gather_drop_negatives(&d, &ids, Some(clipped), None)?;
    let dx = op(&g, "Mul", &[&gathered_d, &partial], &[])?;
    Ok(vec![Some(dx), None, None])
}

pub(super) fn register() {
    register_gradient("UnsortedSegmentMax", min_or_max_grad);
    register_gradient("UnsortedSegmentMin", min_or_max_grad);
    register_gradient("UnsortedSegmentProd", prod_grad);
    register_not_differentiable("UnsortedSegmentJoin");
}
