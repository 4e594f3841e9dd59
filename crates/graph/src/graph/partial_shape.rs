//! The shape a shape tensor describes when only parts of it are known at build time:
//! TensorFlow's `ShapeRefiner::ConstantPartialShape`, behind `MakeShapeFromShapeTensor`, with
//! the small constant evaluation it does for scalars (`tf.shape(x)[1] * 28`).
//!
//! `reshape(x, stack([shape(x)[0], 784]))` is `[?, 784]` statically, not `[?, ?]`, so a layer
//! after it knows its input width; Fill and Reshape read it through
//! [`InferenceContext::input_partial_shape`](crate::InferenceContext::input_partial_shape).

use std::sync::Arc;

use crate::{DType, Node, Shape};

/// How many producers deep the walk goes (a Cast of a Concat of Packs is three).
const MAX_DEPTH: usize = 8;

/// The dims of an int constant vector, `-1` (or any negative) as unknown.
fn const_dims(node: &Node) -> Option<Vec<Option<usize>>> {
    let t = node.const_value()?;
    if t.rank() != 1 {
        return None;
    }
    let v: Vec<i64> = match t.dtype() {
        DType::I32 => t.to_vec::<i32>().ok()?.into_iter().map(i64::from).collect(),
        DType::I64 => t.to_vec::<i64>().ok()?,
        _ => return None,
    };
    Some(v.into_iter().map(|d| usize::try_from(d).ok()).collect())
}

/// An int scalar constant's value.
fn const_scalar(node: &Node) -> Option<i64> {
    let t = node.const_value()?;
    if t.rank() != 0 {
        return None;
    }
    match t.dtype() {
        DType::I32 => t.to_scalar::<i32>().ok().map(i64::from),
        DType::I64 => t.to_scalar::<i64>().ok(),
        _ => None,
    }
}

/// The one value of an int constant of one element (a strided slice's begin, end, stride).
fn const_single(node: &Node) -> Option<i64> {
    let t = node.const_value()?;
    if t.num_elements() != 1 {
        return None;
    }
    match t.dtype() {
        DType::I32 => t.to_vec::<i32>().ok().map(|v| i64::from(v[0])),
        DType::I64 => t.to_vec::<i64>().ok().map(|v| v[0]),
        _ => None,
    }
}

/// The value of an int scalar known at build time, as TensorFlow evaluates small constant
/// subgraphs: a constant, an element of a partly known shape vector (`tf.shape(x)[1]` when
/// `x`'s second dim is static), and sums, differences and products of such values.
fn scalar_value(nodes: &[Arc<Node>], id: usize, depth: usize) -> Option<i64> {
    if depth > MAX_DEPTH {
        return None;
    }
    let node = &nodes[id];
    if let Some(v) = const_scalar(node) {
        return Some(v);
    }
    let input = |k: usize| node.inputs().get(k).copied();
    let operand = |k: usize| scalar_value(nodes, input(k)?.0, depth + 1);
    match node.op_type() {
        "Cast" | "Identity" => operand(0),
        "Add" | "AddV2" => operand(0)?.checked_add(operand(1)?),
        "Sub" => operand(0)?.checked_sub(operand(1)?),
        "Mul" => operand(0)?.checked_mul(operand(1)?),
        "StridedSlice" if node.attr::<i64>("shrink_axis_mask").ok()? == 1 => {
            let plain = ["ellipsis_mask", "new_axis_mask", "begin_mask"]
                .iter()
                .all(|m| node.attr::<i64>(m).ok() == Some(0));
            if !plain {
                return None;
            }
            let (src, i) = input(0)?;
            let dims = walk(nodes, src, i, depth + 1)?;
            let at = const_single(&nodes[input(1)?.0])?;
            let at = if at < 0 { at + dims.len() as i64 } else { at };
            let d = (*dims.get(usize::try_from(at).ok()?)?)?;
            i64::try_from(d).ok()
        }
        _ => None,
    }
}

/// A strided slice (positive stride, no ellipsis, new or shrunk axes) of a partly known shape
/// vector: `tf.shape(x)[1:]`, `tf.shape(x)[:-1]`.
fn sliced(nodes: &[Arc<Node>], node: &Node, depth: usize) -> Option<Vec<Option<usize>>> {
    for m in ["ellipsis_mask", "new_axis_mask", "shrink_axis_mask"] {
        if node.attr::<i64>(m).ok()? != 0 {
            return None;
        }
    }
    let input = |k: usize| node.inputs().get(k).copied();
    let (src, i) = input(0)?;
    let dims = walk(nodes, src, i, depth + 1)?;
    let n = dims.len() as i64;
    let stride = const_single(&nodes[input(3)?.0])?;
    if stride <= 0 {
        return None;
    }
    let bound = |k: usize, mask: &str, open: i64| -> Option<i64> {
        if node.attr::<i64>(mask).ok()? & 1 == 1 {
            return Some(open);
        }
        let v = const_single(&nodes[input(k)?.0])?;
        Some((if v < 0 { v + n } else { v }).clamp(0, n))
    };
    let (begin, end) = (bound(1, "begin_mask", 0)?, bound(2, "end_mask", n)?);
    let mut out = Vec::new();
    let mut at = begin;
    while at < end {
        out.push(dims[at as usize]);
        at += stride;
    }
    Some(out)
}

/// The partial shape output `index` of node `id` describes, if any of it is known: from a
/// constant, a `Shape` op, a `Pack` of scalars (constants known, others unknown), a `ConcatV2`
/// of such vectors, or a `Cast`/`Identity` of one.
pub(crate) fn partial_shape(nodes: &[Arc<Node>], id: usize, index: usize) -> Option<Shape> {
    walk(nodes, id, index, 0).map(Shape::new)
}

fn walk(nodes: &[Arc<Node>], id: usize, index: usize, depth: usize) -> Option<Vec<Option<usize>>> {
    if depth > MAX_DEPTH {
        return None;
    }
    let node = &nodes[id];
    if let Some(d) = const_dims(node) {
        return Some(d);
    }
    let input = |k: usize| node.inputs().get(k).copied();
    match node.op_type() {
        "Shape" if index == 0 => {
            let (src, i) = input(0)?;
            nodes[src].output_shapes()[i].dims().map(<[_]>::to_vec)
        }
        "Cast" | "Identity" if index == 0 => {
            let (src, i) = input(0)?;
            walk(nodes, src, i, depth + 1)
        }
        "Pack" if index == 0 => {
            if node.attr::<i64>("axis").ok()? != 0 {
                return None;
            }
            Some(
                node.inputs()
                    .iter()
                    .map(|&(src, _)| {
                        let v = scalar_value(nodes, src, depth + 1)?;
                        usize::try_from(v).ok()
                    })
                    .collect(),
            )
        }
        "StridedSlice" if index == 0 => sliced(nodes, node, depth),
        "ConcatV2" if index == 0 => {
            let (&(axis, _), parts) = node.inputs().split_last()?;
            if const_scalar(&nodes[axis]) != Some(0) {
                return None;
            }
            let mut dims = Vec::new();
            for &(src, i) in parts {
                match walk(nodes, src, i, depth + 1) {
                    Some(d) => dims.extend(d),
                    // A part of known length whose values are unknown.
                    None => match nodes[src].output_shapes()[i].dims() {
                        Some([Some(n)]) => dims.extend(std::iter::repeat_n(None, *n)),
                        _ => return None,
                    },
                }
            }
            Some(dims)
        }
        _ => None,
    }
}
