//! Building blocks shared by gradient functions: constants, shapes, and undoing broadcasting
//! and reductions (statically when shapes are known, with shape ops otherwise).

use weir_graph::{AttrValue, DType, Graph, Output, Result, Tensor};

use super::op;

/// A constant in `g`.
pub(crate) fn konst(g: &Graph, t: Tensor) -> Result<Output> {
    let dtype = t.dtype();
    g.new_operation("Const")
        .attr("dtype", dtype)
        .attr("value", t)
        .build()?
        .output(0)
}

/// A scalar constant of `like`'s dtype.
pub(crate) fn scalar_like(like: &Output, v: f64) -> Result<Output> {
    konst(like.graph(), weir_graph::scalar_of(like.dtype(), v)?)
}

/// `tf.math.conj(x)`: a `Conj` node for a complex `x`, `x` itself otherwise (TensorFlow adds no
/// node for a real tensor); TensorFlow's gradients conjugate so that a complex gradient is that
/// of the (real, imaginary) pair.
pub(crate) fn conj(x: &Output) -> Result<Output> {
    if x.dtype().is_complex() {
        op(x.graph(), "Conj", &[x], &[])
    } else {
        Ok(x.clone())
    }
}

/// `tf.shape(x)` as int32.
pub(crate) fn shape_of(x: &Output) -> Result<Output> {
    op(
        x.graph(),
        "Shape",
        &[x],
        &[("out_type", AttrValue::Type(DType::I32))],
    )
}

/// `tf.cast(x, dtype)`.
pub(crate) fn cast_like(x: &Output, dtype: DType) -> Result<Output> {
    if x.dtype() == dtype {
        return Ok(x.clone());
    }
    op(x.graph(), "Cast", &[x], &[("DstT", AttrValue::Type(dtype))])
}

fn int_vec(g: &Graph, v: Vec<i32>) -> Result<Output> {
    konst(g, Tensor::from(v))
}

/// Sums `grad` (the gradient of a broadcasting op's output) back to the shape of input `x`,
/// whose partner input is `other`; `which` says whether `x` is the op's first input.
pub(crate) fn reduce_to_shape_of(
    grad: &Output,
    x: &Output,
    other: &Output,
    which: usize,
) -> Result<Output> {
    let g = x.graph().clone();
    let (gs, xs) = (grad.shape(), x.shape());
    if let (Some(gd), Some(xd)) = (gs.to_known(), xs.to_known()) {
        if gd == xd {
            return Ok(grad.clone());
        }
        let lead = gd.len().saturating_sub(xd.len());
        let mut axes: Vec<i32> = (0..lead as i32).collect();
        for (i, &d) in xd.iter().enumerate() {
            if d == 1 && gd[lead + i] != 1 {
                axes.push((lead + i) as i32);
            }
        }
        let summed = if axes.is_empty() {
            grad.clone()
        } else {
            op(
                &g,
                "Sum",
                &[grad, &int_vec(&g, axes)?],
                &[("keep_dims", AttrValue::Bool(false))],
            )?
        };
        let shape: Vec<i32> = xd.iter().map(|&d| d as i32).collect();
        return op(&g, "Reshape", &[&summed, &int_vec(&g, shape)?], &[]);
    }
    let sx = shape_of(x)?;
    let so = shape_of(other)?;
    let (s0, s1) = if which == 0 { (&sx, &so) } else { (&so, &sx) };
    let args = super::op_node(&g, "BroadcastGradientArgs", &[s0, s1], &[])?;
    let axes = args.output(which)?;
    let summed = op(
        &g,
        "Sum",
        &[grad, &axes],
        &[("keep_dims", AttrValue::Bool(false))],
    )?;
    op(&g, "Reshape", &[&summed, &sx], &[])
}

/// Sums the broadcast batch dimensions of a batched-matmul gradient back to `x`'s shape.
pub(crate) fn reduce_batch_dims(grad: &Output, x: &Output) -> Result<Output> {
    reduce_to_shape_of(grad, x, grad, 0)
}

/// Broadcasts `d`, the gradient of a reduction of `x` over `axes` (without kept dims), back to
/// `x`'s shape.
pub(crate) fn unreduce(d: &Output, x: &Output, axes: &Output) -> Result<Output> {
    let g = x.graph().clone();
    let const_axes = match axes.op().op_type().as_str() {
        "Const" => axes.op().attr::<Tensor>("value").ok(),
        _ => None,
    };
    if let (Some(xd), Some(a)) = (x.shape().to_known(), const_axes) {
        let rank = xd.len() as i64;
        let list: Vec<i64> = match a.dtype() {
            DType::I64 => a.to_vec::<i64>()?,
            _ => a.to_vec::<i32>()?.into_iter().map(i64::from).collect(),
        };
        let mut kept: Vec<i32> = xd.iter().map(|&v| v as i32).collect();
        for ax in list {
            let ax = if ax < 0 { ax + rank } else { ax };
            if let Some(k) = kept.get_mut(ax as usize) {
                *k = 1;
            }
        }
        let full: Vec<i32> = xd.iter().map(|&v| v as i32).collect();
        let reshaped = op(&g, "Reshape", &[d, &int_vec(&g, kept)?], &[])?;
        return op(&g, "BroadcastTo", &[&reshaped, &int_vec(&g, full)?], &[]);
    }
    let sx = shape_of(x)?;
    let kept = op(&g, "ReducedShape", &[&sx, axes], &[])?;
    let reshaped = op(&g, "Reshape", &[d, &kept], &[])?;
    op(&g, "BroadcastTo", &[&reshaped, &sx], &[])
}
