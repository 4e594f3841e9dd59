//! The shape a shape tensor describes when only parts of it are known at build time:
//! TensorFlow's `ShapeRefiner::ConstantPartialShape`, behind `MakeShapeFromShapeTensor`.
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

/// An int scalar constant as a dim (negative: unknown), or unknown for anything else.
fn scalar_dim(node: &Node) -> Option<usize> {
    let t = node.const_value()?;
    if t.rank() != 0 {
        return None;
    }
    let v = match t.dtype() {
        DType::I32 => i64::from(t.to_scalar::<i32>().ok()?),
        DType::I64 => t.to_scalar::<i64>().ok()?,
        _ => return None,
    };
    usize::try_from(v).ok()
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
                    .map(|&(src, _)| scalar_dim(&nodes[src]))
                    .collect(),
            )
        }
        "ConcatV2" if index == 0 => {
            let (&(axis, _), parts) = node.inputs().split_last()?;
            if scalar_dim(&nodes[axis]) != Some(0) {
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
