//! Gradients of the math ops (TensorFlow's `math_grad.py`): elementwise ops with broadcasting
//! reduced back to each input's shape, matmul with its transposes, reductions, cast, add_n.

use weir_graph::{AttrValue, Output, Result, Tensor};

use super::op;
use super::registry::{register_gradient, GradContext};
use super::util::{cast_like, conj, konst, reduce_to_shape_of, scalar_like};

type Grads = Result<Vec<Option<Output>>>;

fn g(ctx: &GradContext<'_>) -> weir_graph::Graph {
    ctx.graph().clone()
}

fn bin(ctx: &GradContext<'_>, dx: Option<Output>, dy: Option<Output>) -> Grads {
    let (x, y) = (ctx.input(0), ctx.input(1));
    let dx = dx.map(|d| reduce_to_shape_of(&d, &x, &y, 0)).transpose()?;
    let dy = dy.map(|d| reduce_to_shape_of(&d, &y, &x, 1)).transpose()?;
    Ok(vec![dx, dy])
}

fn add_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    bin(ctx, Some(d.clone()), Some(d))
}

fn sub_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let neg = op(&g(ctx), "Neg", &[&d], &[])?;
    bin(ctx, Some(d), Some(neg))
}

fn mul_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, y) = (ctx.grad0()?, conj(&ctx.input(0))?, conj(&ctx.input(1))?);
    let gr = g(ctx);
    let dx = op(&gr, "Mul", &[&d, &y], &[])?;
    let dy = op(&gr, "Mul", &[&x, &d], &[])?;
    bin(ctx, Some(dx), Some(dy))
}

fn div_grad(ctx: &GradContext<'_>) -> Grads {
    // d(x/y) = d/y, -d*x/y^2 (conjugated for complex)
    let (d, x, y) = (ctx.grad0()?, conj(&ctx.input(0))?, conj(&ctx.input(1))?);
    let gr = g(ctx);
    let dx = op(&gr, "RealDiv", &[&d, &y], &[])?;
    let neg_x = op(&gr, "Neg", &[&x], &[])?;
    let t = op(&gr, "RealDiv", &[&neg_x, &y], &[])?;
    let t = op(&gr, "RealDiv", &[&t, &y], &[])?;
    let dy = op(&gr, "Mul", &[&d, &t], &[])?;
    bin(ctx, Some(dx), Some(dy))
}

/// TensorFlow's `_DivNoNanGrad`: `div_no_nan(d, y)` and `d * div_no_nan(div_no_nan(-x, y), y)`,
/// so a zero divisor passes no gradient either way.
fn div_no_nan_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, y) = (ctx.grad0()?, conj(&ctx.input(0))?, conj(&ctx.input(1))?);
    let gr = g(ctx);
    let dx = op(&gr, "DivNoNan", &[&d, &y], &[])?;
    let neg_x = op(&gr, "Neg", &[&x], &[])?;
    let t = op(&gr, "DivNoNan", &[&neg_x, &y], &[])?;
    let t = op(&gr, "DivNoNan", &[&t, &y], &[])?;
    let dy = op(&gr, "Mul", &[&d, &t], &[])?;
    bin(ctx, Some(dx), Some(dy))
}

fn max_min_grad(ctx: &GradContext<'_>, cmp: &str) -> Grads {
    // The gradient goes to the input that was picked (x on ties, as TensorFlow does).
    let (d, x, y) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let gr = g(ctx);
    let mask = op(&gr, cmp, &[&x, &y], &[])?;
    let zeros = op(&gr, "ZerosLike", &[&d], &[])?;
    let dx = op(&gr, "SelectV2", &[&mask, &d, &zeros], &[])?;
    let dy = op(&gr, "SelectV2", &[&mask, &zeros, &d], &[])?;
    bin(ctx, Some(dx), Some(dy))
}

fn squared_difference_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, y) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let gr = g(ctx);
    let two = scalar_like(&d, 2.0)?;
    let diff = op(&gr, "Sub", &[&x, &y], &[])?;
    let t = op(&gr, "Mul", &[&two, &diff], &[])?;
    let dx = op(&gr, "Mul", &[&d, &t], &[])?;
    let dy = op(&gr, "Neg", &[&dx], &[])?;
    bin(ctx, Some(dx), Some(dy))
}

/// TensorFlow's `_PowGrad`: `d * (y * x^(y-1))` and `d * z * log(x)` where `x > 0` (`x != 0`
/// for complex, whose inputs and output are conjugated), 0 elsewhere.
fn pow_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, y) = (ctx.grad0()?, conj(&ctx.input(0))?, conj(&ctx.input(1))?);
    let z = conj(&ctx.output(0))?;
    let gr = g(ctx);
    let one = scalar_like(&y, 1.0)?;
    let ym1 = op(&gr, "Sub", &[&y, &one], &[])?;
    let p = op(&gr, "Pow", &[&x, &ym1], &[])?;
    let t = op(&gr, "Mul", &[&y, &p], &[])?;
    let dx = op(&gr, "Mul", &[&d, &t], &[])?;
    let zero = scalar_like(&x, 0.0)?;
    let mask = if x.dtype().is_complex() {
        op(
            &gr,
            "NotEqual",
            &[&x, &zero],
            &[("incompatible_shape_error", AttrValue::Bool(true))],
        )?
    } else {
        op(&gr, "Greater", &[&x, &zero], &[])?
    };
    // `array_ops.ones_like`/`zeros_like`: fills of x's shape.
    let shape = super::util::shape_of(&x)?;
    let ones = op(&gr, "Fill", &[&shape, &scalar_like(&x, 1.0)?], &[])?;
    let safe_x = op(&gr, "SelectV2", &[&mask, &x, &ones], &[])?;
    let log_x = op(&gr, "Log", &[&safe_x], &[])?;
    let zeros = op(&gr, "Fill", &[&shape, &zero], &[])?;
    let log_x = op(&gr, "SelectV2", &[&mask, &log_x, &zeros], &[])?;
    let t = op(&gr, "Mul", &[&d, &z], &[])?;
    let dy = op(&gr, "Mul", &[&t, &log_x], &[])?;
    bin(ctx, Some(dx), Some(dy))
}

/// TensorFlow's `_MatMulGrad`, on the conjugated inputs (complex gradients are adjoints).
fn matmul_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, a, b) = (ctx.grad0()?, conj(&ctx.input(0))?, conj(&ctx.input(1))?);
    let (ta, tb): (bool, bool) = (ctx.attr("transpose_a")?, ctx.attr("transpose_b")?);
    let gr = g(ctx);
    let mm = |x: &Output, y: &Output, t1: bool, t2: bool| {
        op(
            &gr,
            "MatMul",
            &[x, y],
            &[
                ("transpose_a", AttrValue::Bool(t1)),
                ("transpose_b", AttrValue::Bool(t2)),
            ],
        )
    };
    let (da, db) = match (ta, tb) {
        (false, false) => (mm(&d, &b, false, true)?, mm(&a, &d, true, false)?),
        (false, true) => (mm(&d, &b, false, false)?, mm(&d, &a, true, false)?),
        (true, false) => (mm(&b, &d, false, true)?, mm(&a, &d, false, false)?),
        (true, true) => (mm(&b, &d, true, true)?, mm(&d, &a, true, true)?),
    };
    Ok(vec![Some(da), Some(db)])
}

/// TensorFlow's `_SparseMatMulGrad`: the two products through `tf.matmul` with each operand's
/// sparse hint (an incoming gradient made by `ReluGrad` counts as sparse), a transposed second
/// operand transposed explicitly, each cast back to its input's dtype.
fn sparse_matmul_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let (a, b) = (ctx.input(0), ctx.input(1));
    let (ta, tb): (bool, bool) = (ctx.attr("transpose_a")?, ctx.attr("transpose_b")?);
    let (a_sparse, b_sparse): (bool, bool) = (ctx.attr("a_is_sparse")?, ctx.attr("b_is_sparse")?);
    let d_sparse = d.op().op_type() == "ReluGrad";
    let hint = |x: &Output| {
        if x == &a {
            a_sparse
        } else if x == &b {
            b_sparse
        } else {
            d_sparse
        }
    };
    let product = |t1: &Output, t2: &Output, out: weir_graph::DType, t_a: bool, t_b: bool| {
        let (s1, s2) = (hint(t1), hint(t2));
        let t2 = if t_b {
            weir_ops::array::transpose_default(t2)?
        } else {
            t2.clone()
        };
        let p = weir_ops::math::MatMul::new()
            .transpose_a(t_a)
            .a_is_sparse(s1)
            .b_is_sparse(s2)
            .build(t1, &t2)?;
        if p.dtype() == out {
            Ok(p)
        } else {
            weir_ops::math::cast(p, out)
        }
    };
    let (da, db) = (a.dtype(), b.dtype());
    let (ga, gb) = match (ta, tb) {
        (false, false) => (
            product(&d, &b, da, false, true)?,
            product(&a, &d, db, true, false)?,
        ),
        (false, true) => (
            product(&d, &b, da, false, false)?,
            product(&d, &a, db, true, false)?,
        ),
        (true, false) => (
            product(&b, &d, da, false, true)?,
            product(&a, &d, db, false, false)?,
        ),
        (true, true) => (
            product(&b, &d, da, true, true)?,
            product(&d, &a, db, true, true)?,
        ),
    };
    Ok(vec![Some(ga), Some(gb)])
}

fn batch_matmul_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, a, b) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let (adj_a, adj_b): (bool, bool) = (ctx.attr("adj_x")?, ctx.attr("adj_y")?);
    let gr = g(ctx);
    let mm = |x: &Output, y: &Output, t1: bool, t2: bool| {
        op(
            &gr,
            "BatchMatMulV2",
            &[x, y],
            &[
                ("adj_x", AttrValue::Bool(t1)),
                ("adj_y", AttrValue::Bool(t2)),
            ],
        )
    };
    let (da, db) = match (adj_a, adj_b) {
        (false, false) => (mm(&d, &b, false, true)?, mm(&a, &d, true, false)?),
        (false, true) => (mm(&d, &b, false, false)?, mm(&d, &a, true, false)?),
        (true, false) => (mm(&b, &d, false, true)?, mm(&a, &d, false, false)?),
        (true, true) => (mm(&b, &d, true, true)?, mm(&d, &a, true, true)?),
    };
    // Broadcast batch dimensions are summed back to each input's shape.
    let da = super::util::reduce_batch_dims(&da, &a)?;
    let db = super::util::reduce_batch_dims(&db, &b)?;
    Ok(vec![Some(da), Some(db)])
}

/// Sum: the gradient is broadcast back over the reduced axes.
fn sum_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, axes) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    Ok(vec![Some(super::util::unreduce(&d, &x, &axes)?), None])
}

fn mean_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, axes, y) = (ctx.grad0()?, ctx.input(0), ctx.input(1), ctx.output(0));
    let gr = g(ctx);
    let spread = super::util::unreduce(&d, &x, &axes)?;
    // The number of elements averaged: |x| / |y|, static when both shapes are known.
    let factor = match (x.shape().num_elements(), y.shape().num_elements()) {
        (Some(nx), Some(ny)) if ny > 0 => scalar_like(&d, (nx / ny) as f64)?,
        _ => {
            let sx = op(&gr, "Size", &[&x], &[])?;
            let sy = op(&gr, "Size", &[&y], &[])?;
            let sy = op(
                &gr,
                "Maximum",
                &[&sy, &konst(&gr, Tensor::from(1i32))?],
                &[],
            )?;
            let f = op(&gr, "FloorDiv", &[&sx, &sy], &[])?;
            cast_like(&f, d.dtype())?
        }
    };
    Ok(vec![
        Some(op(&gr, "RealDiv", &[&spread, &factor], &[])?),
        None,
    ])
}

/// Max/Min reductions: the gradient goes to the elements equal to the result, shared evenly
/// among ties, as TensorFlow does.
fn reduce_extreme_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, axes, y) = (ctx.grad0()?, ctx.input(0), ctx.input(1), ctx.output(0));
    let gr = g(ctx);
    let y_full = super::util::unreduce(&y, &x, &axes)?;
    let eq = op(&gr, "Equal", &[&x, &y_full], &[])?;
    let ind = cast_like(&eq, x.dtype())?;
    let count = op(
        &gr,
        "Sum",
        &[&ind, &axes],
        &[("keep_dims", AttrValue::Bool(false))],
    )?;
    let share = op(&gr, "RealDiv", &[&d, &count], &[])?;
    let share = super::util::unreduce(&share, &x, &axes)?;
    Ok(vec![Some(op(&gr, "Mul", &[&ind, &share], &[])?), None])
}

fn cast_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x) = (ctx.grad0()?, ctx.input(0));
    if x.dtype().is_floating() && d.dtype().is_floating() {
        Ok(vec![Some(cast_like(&d, x.dtype())?)])
    } else {
        Ok(vec![None])
    }
}

fn add_n_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    Ok((0..ctx.num_inputs()).map(|_| Some(d.clone())).collect())
}

/// `Select` (TensorFlow 1's `where`): the gradient goes to `x` where the condition held, to
/// `y` elsewhere, by `Select` again, so a vector condition keeps choosing rows
/// (TensorFlow's `_SelectGrad`).
fn select_v1_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, c) = (ctx.grad0()?, ctx.input(0));
    let gr = g(ctx);
    let zeros = op(&gr, "ZerosLike", &[&ctx.input(1)], &[])?;
    let dx = op(&gr, "Select", &[&c, &d, &zeros], &[])?;
    let dy = op(&gr, "Select", &[&c, &zeros, &d], &[])?;
    Ok(vec![None, Some(dx), Some(dy)])
}

fn select_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, c, x, y) = (ctx.grad0()?, ctx.input(0), ctx.input(1), ctx.input(2));
    let gr = g(ctx);
    let zeros = op(&gr, "ZerosLike", &[&d], &[])?;
    let dx = op(&gr, "SelectV2", &[&c, &d, &zeros], &[])?;
    let dy = op(&gr, "SelectV2", &[&c, &zeros, &d], &[])?;
    let dx = reduce_to_shape_of(&dx, &x, &y, 0)?;
    let dy = reduce_to_shape_of(&dy, &y, &x, 1)?;
    Ok(vec![None, Some(dx), Some(dy)])
}

fn cumsum_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, axis) = (ctx.grad0()?, ctx.input(1));
    let (exclusive, reverse): (bool, bool) = (ctx.attr("exclusive")?, ctx.attr("reverse")?);
    let dx = op(
        &g(ctx),
        "Cumsum",
        &[&d, &axis],
        &[
            ("exclusive", AttrValue::Bool(exclusive)),
            ("reverse", AttrValue::Bool(!reverse)),
        ],
    )?;
    Ok(vec![Some(dx), None])
}

fn clip_grad(ctx: &GradContext<'_>) -> Grads {
    // Passes where lo <= x <= hi.
    let (d, x, lo, hi) = (ctx.grad0()?, ctx.input(0), ctx.input(1), ctx.input(2));
    let gr = g(ctx);
    let above = op(&gr, "GreaterEqual", &[&x, &lo], &[])?;
    let below = op(&gr, "LessEqual", &[&x, &hi], &[])?;
    let inside = op(&gr, "LogicalAnd", &[&above, &below], &[])?;
    let zeros = op(&gr, "ZerosLike", &[&d], &[])?;
    Ok(vec![
        Some(op(&gr, "SelectV2", &[&inside, &d, &zeros], &[])?),
        None,
        None,
    ])
}

/// Rows of `t` picked by the segment ids of the forward op (TensorFlow's `gather`).
fn gather_by_ids(ctx: &GradContext<'_>, t: &Output) -> Result<Output> {
    let gr = g(ctx);
    let axis = konst(&gr, Tensor::from(0i32))?;
    op(&gr, "GatherV2", &[t, &ctx.input(1), &axis], &[])
}

/// TensorFlow's `_SegmentSumGrad`.
fn segment_sum_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    Ok(vec![Some(gather_by_ids(ctx, &d)?), None])
}

/// TensorFlow's `_SegmentMeanGrad`: the gradient shared by the rows of each segment. Empty
/// segments divide by zero, but no input row gathers them.
fn segment_mean_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x) = (ctx.grad0()?, ctx.input(0));
    let gr = g(ctx);
    let ones = op(&gr, "OnesLike", &[&x], &[])?;
    let counts = op(&gr, "SegmentSum", &[&ones, &ctx.input(1)], &[])?;
    let scaled = op(&gr, "RealDiv", &[&d, &counts], &[])?;
    Ok(vec![Some(gather_by_ids(ctx, &scaled)?), None])
}

/// TensorFlow's `_SegmentMinOrMaxGrad`: the gradient goes to the rows equal to the segment's
/// result, shared evenly among ties.
fn segment_min_max_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, y) = (ctx.grad0()?, ctx.input(0), ctx.output(0));
    let gr = g(ctx);
    let picked = gather_by_ids(ctx, &y)?;
    let selected = op(&gr, "Equal", &[&x, &picked], &[])?;
    let ind = cast_like(&selected, d.dtype())?;
    let count = op(&gr, "SegmentSum", &[&ind, &ctx.input(1)], &[])?;
    let weighted = op(&gr, "RealDiv", &[&d, &count], &[])?;
    let spread = gather_by_ids(ctx, &weighted)?;
    let zeros = op(&gr, "ZerosLike", &[&x], &[])?;
    Ok(vec![
        Some(op(&gr, "SelectV2", &[&selected, &spread, &zeros], &[])?),
        None,
    ])
}

/// SparseSegmentSum / Mean / SqrtN (TensorFlow's `_SparseSegment*Grad`): the matching
/// `SparseSegment*Grad` op spreads each segment's gradient over the rows its indices picked,
/// into a dense gradient of `data`'s shape (TensorFlow's `sparse_gradient=True` variant makes
/// IndexedSlices of the same values).
fn sparse_segment_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let gr = g(ctx);
    let grad_op = format!("{}Grad", ctx.op().op_type());
    let shape = super::util::shape_of(&ctx.input(0))?;
    let ints = |v: Vec<i32>| konst(&gr, Tensor::from(v));
    let dim0 = op(
        &gr,
        "StridedSlice",
        &[&shape, &ints(vec![0])?, &ints(vec![1])?, &ints(vec![1])?],
        &[("shrink_axis_mask", AttrValue::Int(1))],
    )?;
    let dx = op(
        &gr,
        &grad_op,
        &[&d, &ctx.input(1), &ctx.input(2), &dim0],
        &[],
    )?;
    Ok(vec![Some(dx), None, None])
}

pub(super) fn register() {
    register_gradient("AddV2", add_grad);
    register_gradient("Add", add_grad);
    register_gradient("Sub", sub_grad);
    register_gradient("Mul", mul_grad);
    register_gradient("RealDiv", div_grad);
    register_gradient("Div", div_grad);
    register_gradient("DivNoNan", div_no_nan_grad);
    register_gradient("Maximum", |c| max_min_grad(c, "GreaterEqual"));
    register_gradient("Minimum", |c| max_min_grad(c, "LessEqual"));
    register_gradient("SquaredDifference", squared_difference_grad);
    register_gradient("Pow", pow_grad);
    register_gradient("MatMul", matmul_grad);
    register_gradient("BatchMatMulV2", batch_matmul_grad);
    register_gradient("SparseMatMul", sparse_matmul_grad);
    register_gradient("Sum", sum_grad);
    register_gradient("Mean", mean_grad);
    register_gradient("Max", reduce_extreme_grad);
    register_gradient("Min", reduce_extreme_grad);
    register_gradient("Cast", cast_grad);
    register_gradient("AddN", add_n_grad);
    register_gradient("Select", select_v1_grad);
    register_gradient("SelectV2", select_grad);
    register_gradient("Cumsum", cumsum_grad);
    register_gradient("ClipByValue", clip_grad);
    register_gradient("SegmentSum", segment_sum_grad);
    register_gradient("SegmentMean", segment_mean_grad);
    register_gradient("SegmentMax", segment_min_max_grad);
    register_gradient("SegmentMin", segment_min_max_grad);
    for s in [
        "SparseSegmentSum",
        "SparseSegmentMean",
        "SparseSegmentSqrtN",
    ] {
        register_gradient(s, sparse_segment_grad);
    }
}
