//! Gradients of the array ops added with `ReverseSequence` and of the legacy op forms TF 1.x
//! graphs hold, as TensorFlow's array_grad.py, math_grad.py, nn_grad.py and check_ops.py
//! register them: permutations map the gradient back with their inverse op, the legacy forms
//! build the same ops TensorFlow's Python gradient functions build.
//!
//! Not registered, as in TensorFlow (differentiating through them is "No gradient defined"):
//! `Bitcast`, `UniqueV2`, `UniqueWithCountsV2`, `GuaranteeConst`; the integer-valued ops
//! (`UnravelIndex`, `ListDiff`'s indices, `LowerBound`, `UpperBound`, `BroadcastArgs`,
//! `Empty`) pass no float gradient anyway.

use weir_graph::{AttrValue, DType, Error, Graph, Output, Result, Tensor};

use super::registry::{lookup, register_gradient, Entry, GradContext};
use super::util::{cast_like, konst, scalar_like};
use super::{op, op_node};

type Grads = Result<Vec<Option<Output>>>;

/// `_ReverseSequenceGrad`: the same reversal undoes itself.
fn reverse_sequence_grad(ctx: &GradContext<'_>) -> Grads {
    let dx = op(
        ctx.graph(),
        "ReverseSequence",
        &[&ctx.grad0()?, &ctx.input(1)],
        &[
            ("seq_dim", AttrValue::Int(ctx.attr("seq_dim")?)),
            ("batch_dim", AttrValue::Int(ctx.attr("batch_dim")?)),
        ],
    )?;
    Ok(vec![Some(dx), None])
}

/// `_SpaceToBatchNDGrad` / `_BatchToSpaceNDGrad`: the opposite op with the same block and
/// paddings (crops).
fn space_batch_nd_grad(ctx: &GradContext<'_>) -> Grads {
    let other = if ctx.op().op_type() == "SpaceToBatchND" {
        "BatchToSpaceND"
    } else {
        "SpaceToBatchND"
    };
    let dx = op(
        ctx.graph(),
        other,
        &[&ctx.grad0()?, &ctx.input(1), &ctx.input(2)],
        &[],
    )?;
    Ok(vec![Some(dx), None, None])
}

/// `_SpaceToBatchGrad` / `_BatchToSpaceGrad` (V1).
fn space_batch_grad(ctx: &GradContext<'_>) -> Grads {
    let other = if ctx.op().op_type() == "SpaceToBatch" {
        "BatchToSpace"
    } else {
        "SpaceToBatch"
    };
    let dx = op(
        ctx.graph(),
        other,
        &[&ctx.grad0()?, &ctx.input(1)],
        &[("block_size", AttrValue::Int(ctx.attr("block_size")?))],
    )?;
    Ok(vec![Some(dx), None])
}

/// check_ops.py's `_ensure_shape_grad`: the gradient passes through.
fn ensure_shape_grad(ctx: &GradContext<'_>) -> Grads {
    Ok(vec![ctx.grad(0).cloned()])
}

/// `_NthElementGrad`: the gradient split evenly among the elements equal to the selected one.
fn nth_element_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let (d, x, y) = (ctx.grad0()?, ctx.input(0), ctx.output(0));
    let minus_one = konst(g, Tensor::from(-1i32))?;
    let y1 = op(g, "ExpandDims", &[&y, &minus_one], &[])?;
    let eq = op(g, "Equal", &[&y1, &x], &[])?;
    let indicators = cast_like(&eq, d.dtype())?;
    let d1 = op(g, "ExpandDims", &[&d, &minus_one], &[])?;
    let count = op(
        g,
        "Sum",
        &[&indicators, &minus_one],
        &[("keep_dims", AttrValue::Bool(false))],
    )?;
    let count = op(g, "ExpandDims", &[&count, &minus_one], &[])?;
    let share = op(g, "RealDiv", &[&indicators, &count], &[])?;
    let dx = op(g, "Mul", &[&share, &d1], &[])?;
    Ok(vec![Some(dx), None])
}

/// `_BatchMatMul` (V1): products with the gradient, as `math_ops.matmul` builds them for
/// batches; V1's batch dims are equal, so nothing is summed away.
fn batch_matmul_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let (d, x, y) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let (adj_x, adj_y): (bool, bool) = (ctx.attr("adj_x")?, ctx.attr("adj_y")?);
    let mm = |a: &Output, b: &Output, ta: bool, tb: bool| {
        op(
            g,
            "BatchMatMulV2",
            &[a, b],
            &[
                ("adj_x", AttrValue::Bool(ta)),
                ("adj_y", AttrValue::Bool(tb)),
            ],
        )
    };
    let (dx, dy) = match (adj_x, adj_y) {
        (false, false) => (mm(&d, &y, false, true)?, mm(&x, &d, true, false)?),
        (false, true) => (mm(&d, &y, false, false)?, mm(&d, &x, true, false)?),
        (true, false) => (mm(&y, &d, false, true)?, mm(&x, &d, false, false)?),
        (true, true) => (mm(&y, &d, true, true)?, mm(&d, &x, true, true)?),
    };
    Ok(vec![Some(dx), Some(dy)])
}

/// The `align` of the V3 ops a V1/V2 gradient builds. V2 packs a band as V3's `LEFT_LEFT`
/// does, and so do its gradients here. (TensorFlow 2.21's V2 gradients call array_ops' diag
/// functions, which now default to `RIGHT_LEFT`, so a superdiagonal shorter than the longest
/// diagonal gets its gradient shifted; the TensorFlow of the V2 era, before V3, and central
/// differences agree with `LEFT_LEFT`.) V1 has only the main diagonal, where it does not
/// matter; it gets array_ops' default.
fn align_for(ctx: &GradContext<'_>) -> (&'static str, AttrValue) {
    let v2 = ctx.op().op_type().ends_with("V2");
    let a = if v2 { "LEFT_LEFT" } else { "RIGHT_LEFT" };
    ("align", AttrValue::Str(a.into()))
}

fn k0(g: &Graph) -> Result<Output> {
    konst(g, Tensor::from(0i32))
}

fn diag_part(ctx: &GradContext<'_>, x: &Output, k: &Output) -> Result<Output> {
    op(
        ctx.graph(),
        "MatrixDiagPartV3",
        &[x, k, &scalar_like(x, 0.0)?],
        &[align_for(ctx)],
    )
}

/// `_MatrixDiagGrad` and `_MatrixDiagV2Grad`: `matrix_diag_part(grad, k)`.
fn matrix_diag_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let v2 = ctx.num_inputs() > 1;
    let k = if v2 { ctx.input(1) } else { k0(g)? };
    let dx = diag_part(ctx, &ctx.grad0()?, &k)?;
    let mut out = vec![Some(dx)];
    if v2 {
        out.extend([None, None, None, None]);
    }
    Ok(out)
}

/// `_MatrixDiagPartGrad` and `_MatrixDiagPartV2Grad`: the gradient on the diagonals of a zero
/// matrix: `matrix_diag` with the input's size when it is static (V1: and square),
/// `matrix_set_diag` on zeros otherwise.
fn matrix_diag_part_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let (d, x) = (ctx.grad0()?, ctx.input(0));
    let v2 = ctx.num_inputs() > 1;
    let k = if v2 { ctx.input(1) } else { k0(g)? };
    let s = x.shape();
    let dims = match (s.dim(-2), s.dim(-1)) {
        (Some(r), Some(c)) if v2 || r == c => Some((r as i32, c as i32)),
        _ => None,
    };
    let dx = match dims {
        Some((r, c)) => {
            // V1 calls `matrix_diag(grad)`, whose sizes stay -1 (inferred, square).
            let (r, c) = if v2 { (r, c) } else { (-1, -1) };
            let rows = konst(g, Tensor::from(r))?;
            let cols = konst(g, Tensor::from(c))?;
            op(
                g,
                "MatrixDiagV3",
                &[&d, &k, &rows, &cols, &scalar_like(&d, 0.0)?],
                &[align_for(ctx)],
            )?
        }
        None => {
            let zeros = op(g, "ZerosLike", &[&x], &[])?;
            op(g, "MatrixSetDiagV3", &[&zeros, &d, &k], &[align_for(ctx)])?
        }
    };
    let mut out = vec![Some(dx)];
    if v2 {
        out.extend([None, None]);
    }
    Ok(out)
}

/// `_MatrixSetDiagGrad` and `_MatrixSetDiagGradV2`: the gradient with the set diagonals
/// zeroed, and those diagonals for `diagonal` (zeros of `diagonal`'s shape stand in for the
/// shape TensorFlow computes).
fn matrix_set_diag_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let (d, diagonal) = (ctx.grad0()?, ctx.input(1));
    let v2 = ctx.num_inputs() > 2;
    let k = if v2 { ctx.input(2) } else { k0(g)? };
    let zeros = op(g, "ZerosLike", &[&diagonal], &[])?;
    let dx = op(g, "MatrixSetDiagV3", &[&d, &zeros, &k], &[align_for(ctx)])?;
    let dd = diag_part(ctx, &d, &k)?;
    let mut out = vec![Some(dx), Some(dd)];
    if v2 {
        out.push(None);
    }
    Ok(out)
}

/// `_ConcatGrad` (V1, `concat_dim` first): slices of the gradient at the offsets
/// `ConcatOffset` computes from the inputs' shapes, as `_ConcatGradHelper` builds them.
fn concat_v1_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let d = ctx.grad0()?;
    let n = ctx.num_inputs() - 1;
    if n == 1 {
        return Ok(vec![None, Some(d)]);
    }
    let values: Vec<Output> = (1..=n).map(|i| ctx.input(i)).collect();
    let rank = op(g, "Rank", &[&values[0]], &[])?;
    let dim = op(g, "FloorMod", &[&ctx.input(0), &rank], &[])?;
    let refs: Vec<&Output> = values.iter().collect();
    let shapes = op_node(
        g,
        "ShapeN",
        &refs,
        &[("out_type", AttrValue::Type(DType::I32))],
    )?
    .outputs();
    let mut offset_inputs = vec![&dim];
    offset_inputs.extend(shapes.iter());
    let offsets = op_node(g, "ConcatOffset", &offset_inputs, &[])?.outputs();
    let mut out = vec![None];
    for (begin, size) in offsets.iter().zip(&shapes) {
        out.push(Some(op(g, "Slice", &[&d, begin, size], &[])?));
    }
    Ok(out)
}

/// `_ReverseGrad` (V1): the same mask reverses the gradient back.
fn reverse_v1_grad(ctx: &GradContext<'_>) -> Grads {
    let dx = op(ctx.graph(), "Reverse", &[&ctx.grad0()?, &ctx.input(1)], &[])?;
    Ok(vec![Some(dx), None])
}

/// TopK (V1): TopKV2's gradient for the values, without the entry for V2's `k` input.
/// (TensorFlow's `_TopKGrad` returns that entry for V1 too, which `tf.gradients` rejects.)
fn top_k_v1_grad(ctx: &GradContext<'_>) -> Grads {
    let Some(Entry::Gradient(v2)) = lookup("TopKV2") else {
        return Err(Error::internal("TopKV2 has no registered gradient"));
    };
    let mut grads = v2(ctx)?;
    grads.truncate(1);
    Ok(grads)
}

pub(super) fn register() {
    register_gradient("ReverseSequence", reverse_sequence_grad);
    register_gradient("SpaceToBatchND", space_batch_nd_grad);
    register_gradient("BatchToSpaceND", space_batch_nd_grad);
    register_gradient("SpaceToBatch", space_batch_grad);
    register_gradient("BatchToSpace", space_batch_grad);
    register_gradient("EnsureShape", ensure_shape_grad);
    register_gradient("NthElement", nth_element_grad);
    register_gradient("BatchMatMul", batch_matmul_grad);
    register_gradient("MatrixDiag", matrix_diag_grad);
    register_gradient("MatrixDiagV2", matrix_diag_grad);
    register_gradient("MatrixDiagPart", matrix_diag_part_grad);
    register_gradient("MatrixDiagPartV2", matrix_diag_part_grad);
    register_gradient("MatrixSetDiag", matrix_set_diag_grad);
    register_gradient("MatrixSetDiagV2", matrix_set_diag_grad);
    register_gradient("Concat", concat_v1_grad);
    register_gradient("Reverse", reverse_v1_grad);
    register_gradient("TopK", top_k_v1_grad);
}
