//! Gradients of the array ops (TensorFlow's `array_grad.py`): identity-like ops, reshapes,
//! transpose, concat/split, stack/unstack, slice, gather, tile, pad, reverse.

use weir_graph::{AttrValue, Error, Output, Result, Tensor};

use super::registry::{register_gradient, GradContext};
use super::util::{konst, shape_of};
use super::{op, op_node};

type Grads = Result<Vec<Option<Output>>>;

fn const_value(t: &Output) -> Option<Tensor> {
    match t.op().op_type().as_str() {
        "Const" => t.op().attr::<Tensor>("value").ok(),
        _ => None,
    }
}

fn const_ints(t: &Output) -> Option<Vec<i64>> {
    let v = const_value(t)?;
    match v.dtype() {
        weir_graph::DType::I64 => v.to_vec::<i64>().ok(),
        _ => v
            .to_vec::<i32>()
            .ok()
            .map(|v| v.into_iter().map(i64::from).collect()),
    }
}

/// `x`'s shape as a tensor: a constant when it is known.
fn shape_tensor(x: &Output) -> Result<Output> {
    match x.shape().to_known() {
        Some(d) => konst(
            x.graph(),
            Tensor::from(d.iter().map(|&v| v as i32).collect::<Vec<_>>()),
        ),
        None => shape_of(x),
    }
}

fn pass_through(ctx: &GradContext<'_>) -> Grads {
    Ok((0..ctx.num_inputs())
        .map(|i| ctx.grad(i).cloned())
        .collect())
}

fn first_only(ctx: &GradContext<'_>) -> Grads {
    let mut v = vec![ctx.grad(0).cloned()];
    v.extend((1..ctx.num_inputs()).map(|_| None));
    Ok(v)
}

/// CheckNumerics and CheckNumericsV2: the gradient checked too, with TensorFlow 2.21's message, which shows the
/// forward op's message as Python's repr of bytes (`b'...'`).
fn check_numerics_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let message: String = ctx.attr("message")?;
    // CheckNumericsV2's gradient is checked by CheckNumericsV2.
    let checked = op(
        ctx.graph(),
        ctx.node.op_type(),
        &[&d],
        &[(
            "message",
            AttrValue::Str(format!(
                "Not a number (NaN) or infinity (Inf) values detected in gradient. b'{message}'"
            )),
        )],
    )?;
    Ok(vec![Some(checked)])
}

/// Reshape, ExpandDims, Squeeze: reshape the gradient back to the input's shape.
fn reshape_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x) = (ctx.grad0()?, ctx.input(0));
    let dx = op(ctx.graph(), "Reshape", &[&d, &shape_tensor(&x)?], &[])?;
    let mut v = vec![Some(dx)];
    v.extend((1..ctx.num_inputs()).map(|_| None));
    Ok(v)
}

fn transpose_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, perm) = (ctx.grad0()?, ctx.input(1));
    let g = ctx.graph();
    let inv = match const_ints(&perm) {
        Some(p) => {
            let mut inv = vec![0i32; p.len()];
            for (i, &a) in p.iter().enumerate() {
                inv[a as usize] = i as i32;
            }
            konst(g, Tensor::from(inv))?
        }
        None => op(g, "InvertPermutation", &[&perm], &[])?,
    };
    Ok(vec![Some(op(g, "Transpose", &[&d, &inv], &[])?), None])
}

fn concat_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let n = ctx.num_inputs() - 1;
    let g = ctx.graph();
    let axis_t = ctx.input(n);
    let rank = d.shape().rank();
    let axis = match (const_ints(&axis_t).and_then(|a| a.first().copied()), rank) {
        (Some(a), Some(r)) if a < 0 => a + r as i64,
        (Some(a), _) => a,
        _ => return Err(Error::unimplemented(
            "The gradient of concat needs a constant axis (and a known rank for a negative one)",
        )),
    };
    let values: Vec<Output> = (0..n).map(|i| ctx.input(i)).collect();
    let static_sizes: Option<Vec<i32>> = values
        .iter()
        .map(|v| v.shape().dim(axis as isize).map(|s| s as i32))
        .collect();
    let sizes = match static_sizes {
        Some(s) => konst(g, Tensor::from(s))?,
        None => {
            let idx = konst(g, Tensor::from(axis as i32))?;
            let zero = konst(g, Tensor::from(0i32))?;
            let parts: Vec<Output> = values
                .iter()
                .map(|v| op(g, "GatherV2", &[&shape_of(v)?, &idx, &zero], &[]))
                .collect::<Result<_>>()?;
            let refs: Vec<&Output> = parts.iter().collect();
            op(g, "Pack", &refs, &[("axis", AttrValue::Int(0))])?
        }
    };
    let axis_c = konst(g, Tensor::from(axis as i32))?;
    let split = op_node(
        g,
        "SplitV",
        &[&d, &sizes, &axis_c],
        &[("num_split", AttrValue::Int(n as i64))],
    )?;
    let mut out: Vec<Option<Output>> = split.outputs().into_iter().map(Some).collect();
    out.push(None);
    Ok(out)
}

/// The gradient of every output of a multi-output op, zeros where an output has none (as
/// TensorFlow fills them for Split, Unpack and DynamicPartition).
fn output_grads(ctx: &GradContext<'_>) -> Result<Vec<Output>> {
    let g = ctx.graph();
    ctx.op()
        .outputs()
        .iter()
        .enumerate()
        .map(|(i, o)| match ctx.grad(i) {
            Some(d) => Ok(d.clone()),
            None => op(g, "ZerosLike", &[o], &[]),
        })
        .collect()
}

fn split_grad(ctx: &GradContext<'_>, axis_input: usize, value_input: usize) -> Grads {
    let g = ctx.graph();
    let parts = output_grads(ctx)?;
    let axis = ctx.input(axis_input);
    let mut refs: Vec<&Output> = parts.iter().collect();
    refs.push(&axis);
    let dx = op(g, "ConcatV2", &refs, &[])?;
    let mut v = vec![None; ctx.num_inputs()];
    v[value_input] = Some(dx);
    Ok(v)
}

fn pack_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let axis: i64 = ctx.attr("axis")?;
    let n = ctx.num_inputs();
    let un = op_node(
        ctx.graph(),
        "Unpack",
        &[&d],
        &[
            ("num", AttrValue::Int(n as i64)),
            ("axis", AttrValue::Int(axis)),
        ],
    )?;
    Ok(un.outputs().into_iter().map(Some).collect())
}

fn unpack_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let axis: i64 = ctx.attr("axis")?;
    let parts = output_grads(ctx)?;
    let refs: Vec<&Output> = parts.iter().collect();
    Ok(vec![Some(op(
        g,
        "Pack",
        &refs,
        &[("axis", AttrValue::Int(axis))],
    )?)])
}

/// Slice: pad the gradient with zeros back to the input's shape.
fn slice_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, begin, y) = (ctx.grad0()?, ctx.input(0), ctx.input(1), ctx.output(0));
    let g = ctx.graph();
    let begin = if begin.dtype() == weir_graph::DType::I32 {
        begin
    } else {
        super::util::cast_like(&begin, weir_graph::DType::I32)?
    };
    let end_gap = op(g, "Sub", &[&shape_tensor(&x)?, &begin], &[])?;
    let after = op(g, "Sub", &[&end_gap, &shape_tensor(&y)?], &[])?;
    let paddings = op(g, "Pack", &[&begin, &after], &[("axis", AttrValue::Int(1))])?;
    Ok(vec![Some(op(g, "Pad", &[&d, &paddings], &[])?), None, None])
}

/// DynamicStitch: each data tensor's gradient is the rows its indices name, gathered from the
/// merged gradient (a row two slices both went to feeds both, as in TensorFlow); indices get
/// none.
fn dynamic_stitch_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let g = ctx.graph();
    let n = ctx.num_inputs() / 2;
    let axis = konst(g, Tensor::from(0i32))?;
    let mut grads: Vec<Option<Output>> = vec![None; n];
    for m in 0..n {
        grads.push(Some(op(g, "GatherV2", &[&d, &ctx.input(m), &axis], &[])?));
    }
    Ok(grads)
}

/// DynamicPartition (data_flow_grad.py): the positions of the slices, partitioned the same way,
/// say where each output's gradient rows go back; stitched, then shaped as the data. An output
/// without a gradient contributes zeros; the partitions get none.
fn dynamic_partition_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let (data, parts) = (ctx.input(0), ctx.input(1));
    let num = ctx.op().num_outputs();
    let prefix = shape_of(&parts)?;
    let axis0 = konst(g, Tensor::from(vec![0i32]))?;
    let count = op(
        g,
        "Prod",
        &[&prefix, &axis0],
        &[("keep_dims", AttrValue::Bool(false))],
    )?;
    let (zero, one) = (konst(g, Tensor::from(0i32))?, konst(g, Tensor::from(1i32))?);
    let positions = op(g, "Range", &[&zero, &count, &one], &[])?;
    let positions = op(g, "Reshape", &[&positions, &prefix], &[])?;
    let moved = op_node(
        g,
        "DynamicPartition",
        &[&positions, &parts],
        &[("num_partitions", AttrValue::Int(num as i64))],
    )?
    .outputs();
    let grads = output_grads(ctx)?;
    let mut ins: Vec<&Output> = moved.iter().collect();
    ins.extend(grads.iter());
    let stitched = op(
        g,
        "ParallelDynamicStitch",
        &ins,
        &[("N", AttrValue::Int(num as i64))],
    )?;
    let shape = shape_of(&data)?;
    Ok(vec![
        Some(op(g, "Reshape", &[&stitched, &shape], &[])?),
        None,
    ])
}

/// Gather along axis 0: the gradient rows are summed into the gathered rows.
fn gather_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, params, indices) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let g = ctx.graph();
    // TensorFlow 1's Gather has no axis input: it gathers along axis 0.
    let v1 = ctx.node.op_type() == "Gather";
    let axis = match v1 {
        true => Some(0),
        false => const_ints(&ctx.input(2)).and_then(|a| a.first().copied()),
    };
    if axis != Some(0) {
        return Err(Error::unimplemented(
            "The gradient of gather is implemented for axis 0",
        ));
    }
    let minus_one = konst(g, Tensor::from(vec![-1i32]))?;
    let flat_idx = op(g, "Reshape", &[&indices, &minus_one], &[])?;
    let ps = shape_tensor(&params)?;
    let one = konst(g, Tensor::from(vec![1i32]))?;
    let zero = konst(g, Tensor::from(vec![0i32]))?;
    let rest_len = konst(g, Tensor::from(vec![-1i32]))?;
    let inner = op(g, "Slice", &[&ps, &one, &rest_len], &[])?;
    let axis0 = konst(g, Tensor::from(0i32))?;
    let flat_shape = op(g, "ConcatV2", &[&minus_one, &inner, &axis0], &[])?;
    let flat_d = op(g, "Reshape", &[&d, &flat_shape], &[])?;
    let rows = op(g, "Slice", &[&ps, &zero, &one], &[])?;
    let rows = op(
        g,
        "Reshape",
        &[&rows, &konst(g, Tensor::from(Vec::<i32>::new()))?],
        &[],
    )?;
    let dx = op(g, "UnsortedSegmentSum", &[&flat_d, &flat_idx, &rows], &[])?;
    match v1 {
        true => Ok(vec![Some(dx), None]),
        false => Ok(vec![Some(dx), None, None]),
    }
}

/// TensorFlow's `_ScatterNdGrad`: each update receives the gradient at its coordinate.
fn scatter_nd_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, indices) = (ctx.grad0()?, ctx.input(0));
    let du = op(ctx.graph(), "GatherNd", &[&d, &indices], &[])?;
    Ok(vec![None, Some(du), None])
}

/// Tile with a known input shape and constant multiples: sum the tiled copies.
fn tile_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, multiples) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let g = ctx.graph();
    let (Some(xd), Some(m)) = (x.shape().to_known(), const_ints(&multiples)) else {
        return Err(Error::unimplemented(
            "The gradient of tile needs a known input shape and constant multiples",
        ));
    };
    let mut split_shape = Vec::with_capacity(2 * xd.len());
    for (&s, &k) in xd.iter().zip(&m) {
        split_shape.push(k as i32);
        split_shape.push(s as i32);
    }
    let axes: Vec<i32> = (0..xd.len() as i32).map(|i| 2 * i).collect();
    let r = op(
        g,
        "Reshape",
        &[&d, &konst(g, Tensor::from(split_shape))?],
        &[],
    )?;
    let s = op(
        g,
        "Sum",
        &[&r, &konst(g, Tensor::from(axes))?],
        &[("keep_dims", AttrValue::Bool(false))],
    )?;
    Ok(vec![Some(s), None])
}

/// Pad: slice the unpadded region back out.
fn pad_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, x, paddings) = (ctx.grad0()?, ctx.input(0), ctx.input(1));
    let g = ctx.graph();
    let begin = match const_value(&paddings) {
        Some(p) => {
            let v: Vec<i64> = match p.dtype() {
                weir_graph::DType::I64 => p.to_vec::<i64>()?,
                _ => p.to_vec::<i32>()?.into_iter().map(i64::from).collect(),
            };
            konst(
                g,
                Tensor::from(v.iter().step_by(2).map(|&b| b as i32).collect::<Vec<_>>()),
            )?
        }
        None => {
            let first = op_node(
                g,
                "Unpack",
                &[&paddings],
                &[("num", AttrValue::Int(2)), ("axis", AttrValue::Int(1))],
            )?;
            first.output(0)?
        }
    };
    let dx = op(g, "Slice", &[&d, &begin, &shape_tensor(&x)?], &[])?;
    let mut v = vec![None; ctx.num_inputs()];
    v[0] = Some(dx);
    Ok(v)
}

fn reverse_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, axis) = (ctx.grad0()?, ctx.input(1));
    Ok(vec![
        Some(op(ctx.graph(), "ReverseV2", &[&d, &axis], &[])?),
        None,
    ])
}

pub(super) fn register() {
    register_gradient("Identity", pass_through);
    register_gradient("IdentityN", pass_through);
    register_gradient("PlaceholderWithDefault", first_only);
    register_gradient("Print", first_only);
    register_gradient("CheckNumerics", check_numerics_grad);
    register_gradient("CheckNumericsV2", check_numerics_grad);
    register_gradient("Reshape", reshape_grad);
    register_gradient("ExpandDims", reshape_grad);
    register_gradient("Squeeze", reshape_grad);
    register_gradient("Transpose", transpose_grad);
    register_gradient("ConcatV2", concat_grad);
    register_gradient("Split", |c| split_grad(c, 0, 1));
    register_gradient("SplitV", |c| split_grad(c, 2, 0));
    register_gradient("Pack", pack_grad);
    register_gradient("Unpack", unpack_grad);
    register_gradient("Slice", slice_grad);
    register_gradient("GatherV2", gather_grad);
    register_gradient("Gather", gather_grad);
    register_gradient("DynamicPartition", dynamic_partition_grad);
    register_gradient("DynamicStitch", dynamic_stitch_grad);
    register_gradient("ParallelDynamicStitch", dynamic_stitch_grad);
    register_gradient("ScatterNd", scatter_nd_grad);
    register_gradient("Tile", tile_grad);
    register_gradient("Pad", pad_grad);
    register_gradient("PadV2", pad_grad);
    register_gradient("ReverseV2", reverse_grad);
}
