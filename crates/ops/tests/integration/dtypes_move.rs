//! The ops that only move values (Identity, Reshape, ConcatV2, Pack/Unpack, GatherV2, Slice,
//! StridedSlice, Transpose, Tile, Pad, ZerosLike, OnesLike, Fill, ExpandDims, Select, Where,
//! a fed Placeholder) with uint32, uint64, float16, bfloat16, complex64 and complex128, against
//! TensorFlow 2.21 (tests/data/dtypes, `op: "move"`): each takes the dtypes TensorFlow's kernels
//! take, with TensorFlow's error for the others, and moves the bits unchanged.

use serde_json::Value;
use weir_graph::{Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{
    concat, constant, expand_dims, fill, gather, ones_like, pad, placeholder, reshape, slice,
    stack, tile, transpose, unstack, where_indices, zeros_like, StridedSlice,
};
use weir_ops::math::{select, where_};
use weir_session::Session;

use super::dtypes_util::{cases, check_each, check_outcome, spec_tensor};
use super::io_util::fetch_and_feed;

/// The graph of the script's `MOVE_OPS[op]` applied to constant (or fed) `x` of shape [2, 3].
fn build(g: &Graph, op: &str, x: Tensor, feeds: &mut Vec<(Output, Tensor)>) -> Result<Output> {
    if op == "placeholder" {
        let p = placeholder(g, x.dtype(), Shape::known(&[2, 3]))?;
        feeds.push((p.clone(), x));
        return weir_ops::array::identity(&p);
    }
    let x = constant(g, x)?;
    let mask = || {
        constant(
            g,
            Tensor::from_vec(&[2, 3], vec![true, false, true, false, true, true]).unwrap(),
        )
    };
    match op {
        "identity" => weir_ops::array::identity(&x),
        "reshape" => reshape(&x, vec![3i64, 2]),
        "concat" => concat(&[x.clone(), x], 1),
        "stack" => stack(&[x.clone(), x], 1),
        "unstack" => Ok(unstack(&x, None, 1)?.remove(2)),
        "gather" => gather(&x, constant(g, vec![2i32, 0])?, 1),
        "slice" => slice(&x, vec![0i64, 1], vec![2i64, 2]),
        "strided_slice" => {
            StridedSlice::new()
                .begin_mask(1)
                .end_mask(3)
                .build(&x, &[0, 1], &[0, 0], &[-1, 2])
        }
        "transpose" => transpose(&x, vec![1i64, 0]),
        "tile" => tile(&x, vec![2i64, 1]),
        "pad" => pad(&x, &[[1, 0], [0, 1]]),
        "zeros_like" => zeros_like(&x),
        "ones_like" => ones_like(&x),
        "fill" => {
            let v = StridedSlice::new()
                .shrink_axis_mask(3)
                .build(&x, &[0, 1], &[1, 2], &[1, 1])?;
            fill(vec![2i64, 2], &v)
        }
        "expand_dims" => expand_dims(&x, 1),
        "where" => where_(mask()?, &x, zeros_like(&x)?),
        "select" => select(constant(g, vec![true, false])?, &x, zeros_like(&x)?),
        "where_indices" => where_indices(&x),
        other => panic!("no op {other}"),
    }
}

fn check(c: &Value) {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let mut feeds = Vec::new();
    let got = build(
        &g,
        c["move_op"].as_str().unwrap(),
        spec_tensor(&c["x"]),
        &mut feeds,
    )
    .and_then(|y| Session::new(&g)?.run(&fetch_and_feed([&y], feeds)));
    check_outcome(name, c, got);
}

#[test]
fn move_only_ops_take_the_new_dtypes_as_tensorflow_does() {
    check_each(&cases("move"), check);
}
