"""Records what TensorFlow 2.21 (tf.compat.v1, graph mode) computes for the ops of
crates/ops/tests/integration/array_more.rs and crates/train/tests/integration/array_more_grad.rs:
ReverseSequence, SpaceToBatch(ND), BatchToSpace(ND), UnravelIndex, ListDiff, EnsureShape,
UniqueV2, UniqueWithCountsV2, LowerBound, UpperBound, NthElement, Bitcast, BroadcastArgs,
GuaranteeConst, PreventGradient, Empty and the legacy forms BatchMatMul, MatrixDiag(V2),
MatrixDiagPart(V2), MatrixSetDiag(V2), Concat, Reverse and TopK; plus legacy_graph.pbtxt, a
GraphDef of legacy nodes, with its outputs and gradients.

Run: ~/.cache/weir-bench/venv/bin/python make_array_more.py   (writes expected.json beside it)

Each case: {"name", "op" (a raw op type) or "fn" (a Python function weir has a builder for),
"inputs": [[name, tensor]...] in argument order, "attrs": {...} (a dtype as {"type": name}),
"dynamic" (the inputs fed as placeholders of unknown shape), and either "outputs": [tensor...] with
"shapes" (the static shapes, null for an unknown rank, -1 for an unknown dim) or "error":
{"type", "message"}; differentiable cases also have "grad_ys" and "grads": {input name:
tensor or null}. A tensor is {"dtype", "shape", "values" (flat, row-major)}.
"""

import json
import math
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = []


def enc(a):
    a = np.asarray(a)
    if a.dtype.kind in "SUO":
        vals = [v.decode() if isinstance(v, bytes) else str(v) for v in a.reshape(-1).tolist()]
    elif a.dtype.kind == "f":
        vals = [v if math.isfinite(v) else str(v) for v in a.reshape(-1).tolist()]
    elif a.dtype.kind == "b":
        vals = [bool(v) for v in a.reshape(-1).tolist()]
    else:
        vals = [int(v) for v in a.reshape(-1).tolist()]
    name = "string" if a.dtype.kind in "SUO" else str(a.dtype)
    return {"dtype": name, "shape": list(a.shape), "values": vals}


def err_message(e):
    """TensorFlow's own message, without the node context TensorFlow appends."""
    msg = getattr(e, "message", str(e))
    if "\nNode: '" in msg:
        msg = msg.split("\nNode: '", 1)[1].split("\n", 1)[1]
    msg = msg.split("\n\t [[")[0].split(" for '{{node ")[0]
    return msg.strip()


def weights_like(shape):
    n = int(np.prod(shape))
    w = np.array([0.5 + ((i * 7919 + 13) % 1000) / 1000.0 for i in range(n)])
    return w.reshape(shape)


def enc_attr(v):
    if isinstance(v, tf.DType):
        return {"type": v.name}
    return v


def static(s):
    if s.dims is None:
        return None
    return [-1 if d is None else d for d in s.as_list()]


def case(name, op, inputs, attrs=None, grad=(), dynamic=False, fn=None, build=None):
    """Runs raw op `op` (or `build(tensors)` for a Python function `fn`) on `inputs` (a list of
    (argument name, numpy array)); `grad` names the float inputs to differentiate (with respect
    to sum(w * output 0))."""
    attrs = attrs or {}
    if dynamic is True:
        dynamic = [k for k, _ in inputs]
    dynamic = list(dynamic or [])
    rec = {"name": name, "inputs": [[k, enc(v)] for k, v in inputs],
           "attrs": {k: enc_attr(v) for k, v in attrs.items()}, "dynamic": dynamic}
    if fn:
        rec["fn"] = fn
    else:
        rec["op"] = op
    g = tf.Graph()
    with g.as_default():
        try:
            ts = {}
            for k, v in inputs:
                v = np.asarray(v)
                if k in dynamic:
                    ts[k] = tf.placeholder_with_default(v, None, name=k)
                elif k in grad:
                    ts[k] = tf.placeholder_with_default(v, v.shape, name=k)
                else:
                    ts[k] = tf.constant(v, name=k)
            if build is not None:
                out = build(ts)
            else:
                raw = dict(attrs)
                if op == "EnsureShape":
                    raw["shape"] = tf.TensorShape([None if d < 0 else d for d in raw["shape"]])
                out = getattr(tf.raw_ops, op)(**ts, **raw)
            outs = list(out) if isinstance(out, (list, tuple)) else [out]
            rec["shapes"] = [static(o.shape) for o in outs]
            grads = []
            if grad:
                y = outs[0]
                wy = tf.placeholder_with_default(
                    tf.constant(weights_like([1])[0], y.dtype) * tf.ones_like(y), None)
                wv = None
                grads = tf.gradients(y, [ts[k] for k in grad], grad_ys=wy)
            with tf.Session() as s:
                vals = s.run(outs)
                rec["outputs"] = [enc(v) for v in vals]
                if grad:
                    wv = weights_like(vals[0].shape).astype(vals[0].dtype)
                    gv = s.run([x for x in grads if x is not None], {wy: wv})
                    it = iter(gv)
                    rec["grad_ys"] = enc(wv)
                    rec["grads"] = {k: (enc(next(it)) if x is not None else None)
                                    for k, x in zip(grad, grads)}
        except (tf.errors.OpError, ValueError, TypeError, LookupError) as e:
            rec["error"] = {"type": type(e).__name__, "message": err_message(e)}
            for k in ("outputs", "shapes", "grads", "grad_ys"):
                rec.pop(k, None)
    CASES.append(rec)


f32, f64, i32, i64 = np.float32, np.float64, np.int32, np.int64


def arr(v, dt):
    return np.array(v, dtype=dt)


def rng_f(shape, seed, dt=f64):
    r = np.random.RandomState(seed)
    return r.uniform(-2, 2, size=shape).astype(dt)


# ---------------------------------------------------------------------------------------------
# ReverseSequence.
x34 = rng_f((3, 4, 2), 1)
case("reverse_sequence_basic", "ReverseSequence", [("input", x34), ("seq_lengths", arr([4, 0, 2], i64))],
     {"seq_dim": 1, "batch_dim": 0}, grad=("input",))
case("reverse_sequence_batch1", "ReverseSequence", [("input", rng_f((4, 3), 2)), ("seq_lengths", arr([1, 3, 4], i32))],
     {"seq_dim": 0, "batch_dim": 1}, grad=("input",))
case("reverse_sequence_neg_dim", "ReverseSequence", [("input", rng_f((2, 3), 3)), ("seq_lengths", arr([1, 2], i32))],
     {"seq_dim": -1, "batch_dim": 0}, dynamic=True)
case("reverse_sequence_int", "ReverseSequence", [("input", arr(np.arange(24).reshape(2, 3, 4), i32)), ("seq_lengths", arr([3, 2], i32))],
     {"seq_dim": 2, "batch_dim": 0})
case("reverse_sequence_too_long", "ReverseSequence", [("input", rng_f((2, 3), 4)), ("seq_lengths", arr([1, 4], i64))],
     {"seq_dim": 1, "batch_dim": 0}, dynamic=True)
case("reverse_sequence_negative_len", "ReverseSequence", [("input", rng_f((2, 3), 4)), ("seq_lengths", arr([-1, 1], i64))],
     {"seq_dim": 1, "batch_dim": 0}, dynamic=True)
case("reverse_sequence_same_dims", "ReverseSequence", [("input", rng_f((2, 3), 4)), ("seq_lengths", arr([1, 1], i64))],
     {"seq_dim": 0, "batch_dim": 0}, dynamic=True)
case("reverse_sequence_wrong_count", "ReverseSequence", [("input", rng_f((2, 3), 4)), ("seq_lengths", arr([1, 1, 1], i64))],
     {"seq_dim": 1, "batch_dim": 0}, dynamic=True)
case("reverse_sequence_static_count", "ReverseSequence", [("input", rng_f((2, 3), 4)), ("seq_lengths", arr([1, 1, 1], i64))],
     {"seq_dim": 1, "batch_dim": 0})
case("reverse_sequence_seq_dim_range", "ReverseSequence", [("input", rng_f((2, 3), 4)), ("seq_lengths", arr([1, 1], i64))],
     {"seq_dim": 2, "batch_dim": 0}, dynamic=True)
case("reverse_sequence_fn", None, [("input", x34), ("seq_lengths", arr([4, 0, 2], i64))],
     {"seq_axis": 1, "batch_axis": 0}, fn="reverse_sequence",
     build=lambda t: tf.reverse_sequence(t["input"], t["seq_lengths"], seq_axis=1, batch_axis=0))

# ---------------------------------------------------------------------------------------------
# SpaceToBatchND / BatchToSpaceND and the V1 forms.
img = rng_f((2, 4, 5, 3), 5)
case("space_to_batch_nd_2d", "SpaceToBatchND", [("input", img), ("block_shape", arr([2, 3], i32)), ("paddings", arr([[0, 0], [1, 0]], i32))],
     grad=("input",))
case("space_to_batch_nd_1d", "SpaceToBatchND", [("input", rng_f((1, 5, 2), 6)), ("block_shape", arr([2], i64)), ("paddings", arr([[2, 1]], i64))],
     grad=("input",))
case("space_to_batch_nd_int", "SpaceToBatchND", [("input", arr(np.arange(16).reshape(1, 4, 4, 1), i32)), ("block_shape", arr([2, 2], i32)), ("paddings", arr([[0, 0], [0, 0]], i32))])
case("space_to_batch_nd_dynamic", "SpaceToBatchND", [("input", img), ("block_shape", arr([2, 3], i32)), ("paddings", arr([[0, 0], [1, 0]], i32))], dynamic=("input",))
case("space_to_batch_nd_not_divisible", "SpaceToBatchND", [("input", img), ("block_shape", arr([3, 3], i32)), ("paddings", arr([[0, 0], [1, 0]], i32))], dynamic=("input",))
case("space_to_batch_nd_static_not_divisible", "SpaceToBatchND", [("input", img), ("block_shape", arr([3, 3], i32)), ("paddings", arr([[0, 0], [1, 0]], i32))])
case("space_to_batch_nd_negative_pad", "SpaceToBatchND", [("input", img), ("block_shape", arr([2, 3], i32)), ("paddings", arr([[0, 0], [-1, 2]], i32))], dynamic=("input",))
case("space_to_batch_nd_bad_block", "SpaceToBatchND", [("input", img), ("block_shape", arr([0, 3], i32)), ("paddings", arr([[0, 0], [1, 0]], i32))], dynamic=("input",))
case("space_to_batch_nd_bad_paddings", "SpaceToBatchND", [("input", img), ("block_shape", arr([2, 3], i32)), ("paddings", arr([0, 0], i32))], dynamic=("input",))
case("space_to_batch_nd_low_rank", "SpaceToBatchND", [("input", rng_f((2, 3), 4)), ("block_shape", arr([2, 3], i32)), ("paddings", arr([[0, 0], [1, 0]], i32))], dynamic=("input",))
bimg = rng_f((12, 2, 2, 3), 7)
case("batch_to_space_nd_2d", "BatchToSpaceND", [("input", bimg), ("block_shape", arr([2, 3], i32)), ("crops", arr([[0, 1], [2, 0]], i32))],
     grad=("input",))
case("batch_to_space_nd_int64", "BatchToSpaceND", [("input", arr(np.arange(16).reshape(4, 2, 2, 1), i64)), ("block_shape", arr([2, 2], i64)), ("crops", arr([[0, 0], [0, 0]], i64))])
case("batch_to_space_nd_dynamic", "BatchToSpaceND", [("input", bimg), ("block_shape", arr([2, 3], i32)), ("crops", arr([[0, 1], [2, 0]], i32))], dynamic=("input",))
case("batch_to_space_nd_batch_not_divisible", "BatchToSpaceND", [("input", bimg), ("block_shape", arr([5, 1], i32)), ("crops", arr([[0, 0], [0, 0]], i32))], dynamic=("input",))
case("batch_to_space_nd_negative_crop", "BatchToSpaceND", [("input", bimg), ("block_shape", arr([2, 3], i32)), ("crops", arr([[0, -1], [0, 0]], i32))], dynamic=("input",))
case("batch_to_space_nd_too_much_crop", "BatchToSpaceND", [("input", bimg), ("block_shape", arr([2, 3], i32)), ("crops", arr([[3, 2], [0, 0]], i32))], dynamic=("input",))
case("space_to_batch_v1", "SpaceToBatch", [("input", rng_f((1, 3, 4, 2), 8)), ("paddings", arr([[1, 0], [0, 0]], i32))],
     {"block_size": 2}, grad=("input",))
case("batch_to_space_v1", "BatchToSpace", [("input", rng_f((4, 2, 2, 2), 9)), ("crops", arr([[1, 0], [0, 1]], i32))],
     {"block_size": 2}, grad=("input",))
case("space_to_batch_v1_rank3", "SpaceToBatch", [("input", rng_f((3, 4, 2), 8)), ("paddings", arr([[0, 0], [0, 0]], i32))],
     {"block_size": 2}, dynamic=True)
case("space_to_batch_nd_fn", None, [("input", img), ("block_shape", arr([2, 3], i32)), ("paddings", arr([[0, 0], [1, 0]], i32))],
     fn="space_to_batch_nd", build=lambda t: tf.space_to_batch_nd(t["input"], t["block_shape"], t["paddings"]))
case("batch_to_space_nd_fn", None, [("input", bimg), ("block_shape", arr([2, 3], i32)), ("crops", arr([[0, 1], [2, 0]], i32))],
     fn="batch_to_space_nd", build=lambda t: tf.batch_to_space_nd(t["input"], t["block_shape"], t["crops"]))
case("space_to_batch_fn", None, [("input", rng_f((1, 3, 4, 2), 8)), ("paddings", arr([[1, 0], [0, 0]], i32))],
     {"block_size": 2}, fn="space_to_batch", build=lambda t: tf.space_to_batch(t["input"], t["paddings"], 2))
case("batch_to_space_fn", None, [("input", rng_f((4, 2, 2, 2), 9)), ("crops", arr([[1, 0], [0, 1]], i32))],
     {"block_size": 2}, fn="batch_to_space", build=lambda t: tf.batch_to_space(t["input"], t["crops"], 2))

# tf.nn.atrous_conv2d: SpaceToBatchND, a VALID Conv2D and BatchToSpaceND.
av, af = rng_f((2, 7, 6, 2), 50), rng_f((3, 2, 2, 3), 51)
for pad in ("SAME", "VALID"):
    case("atrous_conv2d_" + pad.lower(), None, [("value", av), ("filters", af)], {"rate": 2, "padding": pad},
         fn="atrous_conv2d", grad=("value", "filters"),
         build=lambda t, pad=pad: tf.nn.atrous_conv2d(t["value"], t["filters"], 2, pad))
case("atrous_conv2d_rate3_dynamic", None, [("value", av), ("filters", af)], {"rate": 3, "padding": "SAME"},
     fn="atrous_conv2d", dynamic=("value",),
     build=lambda t: tf.nn.atrous_conv2d(t["value"], t["filters"], 3, "SAME"))

# ---------------------------------------------------------------------------------------------
# UnravelIndex, ListDiff.
case("unravel_index_vector", "UnravelIndex", [("indices", arr([1, 5, 4], i32)), ("dims", arr([2, 3], i32))])
case("unravel_index_scalar", "UnravelIndex", [("indices", arr(22, i64)), ("dims", arr([2, 3, 4], i64))])
case("unravel_index_out_of_bounds", "UnravelIndex", [("indices", arr([7], i32)), ("dims", arr([2, 3], i32))])
case("unravel_index_matrix", "UnravelIndex", [("indices", arr([[1, 2]], i32)), ("dims", arr([2, 3], i32))], dynamic=True)
case("unravel_index_zero_dim", "UnravelIndex", [("indices", arr([0], i32)), ("dims", arr([0, 3], i32))])
case("list_diff_basic", "ListDiff", [("x", arr([1, 2, 3, 4, 2, 6], i32)), ("y", arr([2, 5, 6], i32))])
case("list_diff_int64_idx", "ListDiff", [("x", arr([1.5, -2, 3], f32)), ("y", arr([3], f32))], {"out_idx": tf.int64})
case("list_diff_strings", "ListDiff", [("x", np.array([b"a", b"b", b"c"])), ("y", np.array([b"b"]))])
case("list_diff_not_vector", "ListDiff", [("x", arr([[1, 2]], i32)), ("y", arr([2], i32))], dynamic=True)
case("setdiff1d_fn", None, [("x", arr([1, 2, 3, 4, 2, 6], i32)), ("y", arr([2, 5, 6], i32))], fn="setdiff1d",
     build=lambda t: tf.setdiff1d(t["x"], t["y"]))
case("unravel_index_fn", None, [("indices", arr([1, 5, 4], i32)), ("dims", arr([2, 3], i32))], fn="unravel_index",
     build=lambda t: tf.unravel_index(t["indices"], t["dims"]))

# ---------------------------------------------------------------------------------------------
# EnsureShape, GuaranteeConst, PreventGradient, Empty, BroadcastArgs, Bitcast.
case("ensure_shape_ok", "EnsureShape", [("input", rng_f((2, 3), 10))], {"shape": [-1, 3]}, grad=("input",), dynamic=True)
case("ensure_shape_static", "EnsureShape", [("input", rng_f((2, 3), 10))], {"shape": [2, -1]}, grad=("input",))
case("ensure_shape_mismatch", "EnsureShape", [("input", rng_f((2, 3), 10))], {"shape": [3, -1]}, dynamic=True)
case("ensure_shape_rank_mismatch", "EnsureShape", [("input", rng_f((2, 3), 10))], {"shape": [6]}, dynamic=True)
case("ensure_shape_static_mismatch", "EnsureShape", [("input", rng_f((2, 3), 10))], {"shape": [3, -1]})
case("ensure_shape_fn", None, [("input", rng_f((2, 3), 10))], {"shape": [-1, 3]}, fn="ensure_shape", dynamic=True,
     build=lambda t: tf.ensure_shape(t["input"], [None, 3]))
case("guarantee_const", "GuaranteeConst", [("input", rng_f((2, 2), 11))], grad=("input",))
case("prevent_gradient", "PreventGradient", [("input", rng_f((3,), 12))], {"message": "no way"}, grad=("input",))
case("prevent_gradient_value", "PreventGradient", [("input", rng_f((3,), 12))], {"message": "no way"})
case("empty_init", "Empty", [("shape", arr([2, 3], i32))], {"dtype": tf.float32, "init": True})
case("empty_init_int", "Empty", [("shape", arr([0, 3], i32))], {"dtype": tf.int64, "init": True})
case("empty_negative", "Empty", [("shape", arr([-1, 3], i32))], {"dtype": tf.float32, "init": True}, dynamic=True)
case("broadcast_args", "BroadcastArgs", [("s0", arr([2, 1], i32)), ("s1", arr([4, 1, 3], i32))])
case("broadcast_args_int64", "BroadcastArgs", [("s0", arr([5, 1], i64)), ("s1", arr([], i64))])
case("broadcast_args_zero", "BroadcastArgs", [("s0", arr([0, 1], i32)), ("s1", arr([1, 4], i32))], dynamic=True)
case("broadcast_args_bad", "BroadcastArgs", [("s0", arr([2, 2], i32)), ("s1", arr([4, 1, 3], i32))], dynamic=True)
case("broadcast_dynamic_shape_fn", None, [("shape_x", arr([2, 1], i32)), ("shape_y", arr([4, 1, 3], i32))],
     fn="broadcast_dynamic_shape", build=lambda t: tf.broadcast_dynamic_shape(t["shape_x"], t["shape_y"]))
case("bitcast_f32_to_i16", "Bitcast", [("input", arr([1.0, -2.5], f32))], {"type": tf.int16})
case("bitcast_i16_to_i32", "Bitcast", [("input", arr([[1, 2], [-3, 4]], np.int16))], {"type": tf.int32})
case("bitcast_f64_to_i64", "Bitcast", [("input", arr([1.0, -0.0], f64))], {"type": tf.int64})
case("bitcast_u8_to_f32", "Bitcast", [("input", arr([[0, 0, 128, 63], [0, 0, 0, 192]], np.uint8))], {"type": tf.float32})
case("bitcast_bad_shape", "Bitcast", [("input", arr([1, 2, 3], np.int16))], {"type": tf.int32}, dynamic=True)
case("bitcast_static_bad_shape", "Bitcast", [("input", arr([1, 2, 3], np.int16))], {"type": tf.int32})
case("bitcast_scalar_to_smaller", "Bitcast", [("input", arr(7, i32))], {"type": tf.uint8})
case("bitcast_fn", None, [("input", arr([1.0, -2.5], f32))], {"type": {"type": "int16"}}, fn="bitcast",
     build=lambda t: tf.bitcast(t["input"], tf.int16))

# ---------------------------------------------------------------------------------------------
# UniqueV2, UniqueWithCountsV2.
m = arr([[1, 2, 1], [3, 4, 3], [1, 2, 1]], i32)
case("unique_v2_axis0", "UniqueV2", [("x", m), ("axis", arr([0], i32))])
case("unique_v2_axis1", "UniqueV2", [("x", m), ("axis", arr([1], i64))], {"out_idx": tf.int64})
case("unique_v2_axis_neg", "UniqueV2", [("x", m), ("axis", arr([-1], i32))])
case("unique_v2_empty_axis", "UniqueV2", [("x", arr([3, 1, 3, 2], f32)), ("axis", arr([], i32))])
case("unique_v2_bad_axis", "UniqueV2", [("x", m), ("axis", arr([2], i32))], dynamic=True)
case("unique_v2_two_axes", "UniqueV2", [("x", m), ("axis", arr([0, 1], i32))], dynamic=True)
case("unique_v2_3d", "UniqueV2", [("x", arr(np.array([[[1, 1], [2, 2]], [[1, 1], [2, 3]]]), i64)), ("axis", arr([2], i32))])
case("unique_with_counts_v2_axis0", "UniqueWithCountsV2", [("x", m), ("axis", arr([0], i32))])
case("unique_with_counts_v2_flat", "UniqueWithCountsV2", [("x", arr([5, 5, 1], i32)), ("axis", arr([], i64))], {"out_idx": tf.int64})
case("unique_with_counts_v2_strings", "UniqueWithCountsV2", [("x", np.array([[b"a", b"b"], [b"a", b"b"]])), ("axis", arr([0], i32))])

# ---------------------------------------------------------------------------------------------
# LowerBound, UpperBound (tf.searchsorted).
seq = arr([[1, 3, 3, 7], [0, 2, 4, 6]], f32)
vals = arr([[3, 8, 0], [-1, 4, 6]], f32)
case("lower_bound", "LowerBound", [("sorted_inputs", seq), ("values", vals)])
case("upper_bound", "UpperBound", [("sorted_inputs", seq), ("values", vals)], {"out_type": tf.int64})
case("lower_bound_int", "LowerBound", [("sorted_inputs", arr([[1, 1, 2]], i32)), ("values", arr([[1, 2, 3, 0]], i32))])
case("lower_bound_batch_mismatch", "LowerBound", [("sorted_inputs", seq), ("values", arr([[1.0]], f32))], dynamic=True)
case("searchsorted_left_fn", None, [("sorted_sequence", seq), ("values", vals)], {"side": "left"}, fn="searchsorted",
     build=lambda t: tf.searchsorted(t["sorted_sequence"], t["values"], side="left"))
case("searchsorted_right_fn", None, [("sorted_sequence", arr([1, 3, 3, 7], f64)), ("values", arr([3, 7, 9], f64))],
     {"side": "right", "out_type": {"type": "int64"}}, fn="searchsorted",
     build=lambda t: tf.searchsorted(t["sorted_sequence"], t["values"], side="right", out_type=tf.int64))

# ---------------------------------------------------------------------------------------------
# NthElement.
nx = rng_f((2, 3, 5), 13)
case("nth_element", "NthElement", [("input", nx), ("n", arr(2, i32))], grad=("input",))
case("nth_element_reverse", "NthElement", [("input", nx), ("n", arr(0, i32))], {"reverse": True}, grad=("input",))
case("nth_element_ties", "NthElement", [("input", arr([[1, 2, 2, 0], [4, 4, 4, 4]], f64)), ("n", arr(2, i32))], grad=("input",))
case("nth_element_int", "NthElement", [("input", arr([5, 1, 4, 2], i32)), ("n", arr(1, i32))], {"reverse": True})
case("nth_element_too_big", "NthElement", [("input", nx), ("n", arr(5, i32))], dynamic=True)
case("nth_element_static_too_big", "NthElement", [("input", nx), ("n", arr(5, i32))])
case("nth_element_negative", "NthElement", [("input", nx), ("n", arr(-1, i32))], dynamic=True)
case("nth_element_scalar", "NthElement", [("input", arr(1.0, f32)), ("n", arr(0, i32))], dynamic=True)

# ---------------------------------------------------------------------------------------------
# Legacy forms.
a = rng_f((2, 2, 3), 14)
b = rng_f((2, 3, 4), 15)
case("batch_mat_mul_v1", "BatchMatMul", [("x", a), ("y", b)], grad=("x", "y"))
case("batch_mat_mul_v1_adj", "BatchMatMul", [("x", rng_f((2, 3, 2), 16)), ("y", rng_f((2, 4, 3), 17))], {"adj_x": True, "adj_y": True}, grad=("x", "y"))
case("batch_mat_mul_v1_adj_y", "BatchMatMul", [("x", a), ("y", rng_f((2, 4, 3), 17))], {"adj_y": True}, grad=("x", "y"))
case("batch_mat_mul_v1_no_broadcast", "BatchMatMul", [("x", a), ("y", rng_f((1, 3, 4), 18))], dynamic=True)
case("batch_mat_mul_v1_static_no_broadcast", "BatchMatMul", [("x", a), ("y", rng_f((1, 3, 4), 18))])
case("batch_mat_mul_v1_ranks", "BatchMatMul", [("x", a), ("y", rng_f((3, 4), 18))], dynamic=True)
dg = rng_f((2, 3), 19)
case("matrix_diag_v1", "MatrixDiag", [("diagonal", dg)], grad=("diagonal",))
case("matrix_diag_part_v1", "MatrixDiagPart", [("input", rng_f((2, 3, 4), 20))], grad=("input",))
case("matrix_set_diag_v1", "MatrixSetDiag", [("input", rng_f((2, 3, 4), 21)), ("diagonal", dg)], grad=("input", "diagonal"))
case("matrix_diag_part_v1_vector", "MatrixDiagPart", [("input", rng_f((3,), 20))], dynamic=True)
case("matrix_diag_v2_band", "MatrixDiagV2", [("diagonal", rng_f((2, 3), 22)), ("k", arr([-1, 0], i32)), ("num_rows", arr(-1, i32)),
     ("num_cols", arr(-1, i32)), ("padding_value", arr(9, f64))], grad=("diagonal",))
case("matrix_diag_v2_k1", "MatrixDiagV2", [("diagonal", rng_f((2,), 22)), ("k", arr(1, i32)), ("num_rows", arr(3, i32)),
     ("num_cols", arr(-1, i32)), ("padding_value", arr(0, f64))], grad=("diagonal",))
case("matrix_diag_part_v2_band", "MatrixDiagPartV2", [("input", rng_f((3, 4), 23)), ("k", arr([-1, 1], i32)), ("padding_value", arr(7, f64))],
     grad=("input",))
case("matrix_set_diag_v2_band", "MatrixSetDiagV2", [("input", rng_f((3, 4), 24)), ("diagonal", rng_f((2, 3), 25)), ("k", arr([0, 1], i32))],
     grad=("input", "diagonal"))
# Bands whose superdiagonal is shorter than the main one: V2 packs it LEFT_LEFT, while
# TensorFlow's V2 gradients call array_ops' diag functions with their default RIGHT_LEFT.
case("matrix_diag_v2_short_band", "MatrixDiagV2", [("diagonal", rng_f((2, 3), 40)), ("k", arr([0, 1], i32)), ("num_rows", arr(-1, i32)),
     ("num_cols", arr(-1, i32)), ("padding_value", arr(0, f64))], grad=("diagonal",))
case("matrix_diag_part_v2_short_band", "MatrixDiagPartV2", [("input", rng_f((3, 3), 41)), ("k", arr([0, 1], i32)), ("padding_value", arr(0, f64))],
     grad=("input",))
case("matrix_set_diag_v2_short_band", "MatrixSetDiagV2", [("input", rng_f((3, 3), 42)), ("diagonal", rng_f((2, 3), 43)), ("k", arr([0, 1], i32))],
     grad=("input", "diagonal"))
case("matrix_diag_part_v2_int", "MatrixDiagPartV2", [("input", arr(np.arange(12).reshape(3, 4), i32)), ("k", arr([-2, 1], i32)), ("padding_value", arr(-1, i32))])
cx, cy = rng_f((2, 3), 26), rng_f((2, 1), 27)
case("concat_v1", "Concat", [("concat_dim", arr(1, i32)), ("values_0", cx), ("values_1", cy)], grad=("values_0", "values_1"),
     build=lambda t: tf.raw_ops.Concat(concat_dim=t["concat_dim"], values=[t["values_0"], t["values_1"]]))
case("concat_v1_neg_axis", "Concat", [("concat_dim", arr(-2, i32)), ("values_0", cx), ("values_1", cx), ("values_2", cx)],
     build=lambda t: tf.raw_ops.Concat(concat_dim=t["concat_dim"], values=[t["values_0"], t["values_1"], t["values_2"]]))
case("reverse_v1", "Reverse", [("tensor", rng_f((2, 3, 2), 28)), ("dims", arr([True, False, True], bool))], grad=("tensor",))
case("reverse_v1_int", "Reverse", [("tensor", arr(np.arange(6).reshape(2, 3), i32)), ("dims", arr([False, True], bool))])
case("reverse_v1_wrong_len", "Reverse", [("tensor", arr(np.arange(6).reshape(2, 3), i32)), ("dims", arr([True], bool))], dynamic=True)
def top_k_v1(t, k, sorted=True):
    """TensorFlow 2.21 cannot run a V1 `TopK` (Python refuses to add one past GraphDef version
    7, and its CPU kernels are registered with TopKV2's `index_type` constraint, which a V1 node
    lacks), so the V1 cases record TopKV2 with the same k: the same op, k moved to an input.
    Its gradient is TopKV2's too (TensorFlow's _TopKGrad returns two gradients, which a V1
    node, with one input, would reject)."""
    return tf.math.top_k(t["input"], k, sorted=sorted)


case("top_k_v1", "TopK", [("input", arr([[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]], f64))], {"k": 3}, grad=("input",), build=lambda t: top_k_v1(t, 3))
case("top_k_v1_unsorted", "TopK", [("input", arr([[3, 1, 4, 1, 5, 9, 2, 6]], f32))], {"k": 4, "sorted": False}, build=lambda t: top_k_v1(t, 4, False))
case("top_k_v1_too_big", "TopK", [("input", arr([[3, 1]], f32))], {"k": 3}, dynamic=True, build=lambda t: top_k_v1(t, 3))


# ---------------------------------------------------------------------------------------------
# A GraphDef of legacy nodes (what a TF 1.x graph holds), with its values and gradients.
def legacy_graph():
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(rng_f((2, 2, 3), 30), name="x")
        y = tf.constant(rng_f((2, 3, 2), 31), name="y")
        d = tf.constant(rng_f((2, 3), 32), name="d")
        v = tf.constant(rng_f((2, 4), 33), name="v")
        bmm = tf.raw_ops.BatchMatMul(x=x, y=y, adj_x=False, adj_y=False, name="bmm")
        diag = tf.raw_ops.MatrixDiag(diagonal=d, name="diag")
        part = tf.raw_ops.MatrixDiagPart(input=bmm, name="part")
        e = tf.constant(rng_f((2, 3), 34), name="e")
        setd = tf.raw_ops.MatrixSetDiag(input=diag, diagonal=e, name="setd")
        diag2 = tf.raw_ops.MatrixDiagV2(diagonal=d, k=tf.constant(1, name="k1"), num_rows=tf.constant(-1, name="nr"),
                                        num_cols=tf.constant(-1, name="nc"), padding_value=tf.constant(0.0, tf.float64, name="pad"),
                                        name="diag2")
        part2 = tf.raw_ops.MatrixDiagPartV2(input=diag2, k=tf.constant([0, 1], name="k01"),
                                            padding_value=tf.constant(0.0, tf.float64, name="pad2"), name="part2")
        set2 = tf.raw_ops.MatrixSetDiagV2(input=diag2, diagonal=part2, k=tf.constant([0, 1], name="k01b"), name="set2")
        cat = tf.raw_ops.Concat(concat_dim=tf.constant(1, name="axis"), values=[d, part], name="cat")
        rev = tf.raw_ops.Reverse(tensor=v, dims=tf.constant([False, True], name="dims"), name="rev")
        # Recorded with TopKV2 (see top_k_v1); the pbtxt gets a V1 TopK node in its place below.
        topk = tf.math.top_k(rev, 2, name="topk")
        fetch = {"bmm": bmm, "diag": diag, "part": part, "setd": setd, "diag2": diag2, "part2": part2,
                 "set2": set2, "cat": cat, "rev": rev, "topk": topk.values, "topk:1": topk.indices}
        xs = {"x": x, "y": y, "d": d, "v": v, "e": e}
        gd = g.as_graph_def()
        for n in gd.node:
            if n.name == "topk":
                n.op = "TopK"
                del n.input[1:]
                n.attr["k"].i = 2
                for a in ("Tk", "index_type"):
                    if a in n.attr:
                        del n.attr[a]
        gd.node.remove(next(n for n in gd.node if n.name == "topk/k"))
        tf.io.write_graph(gd, HERE, "legacy_graph.pbtxt", as_text=True)
        grads = []
        for name in ["bmm", "setd", "set2", "cat", "rev", "topk"]:
            out = fetch[name]
            w = tf.constant(weights_like(out.shape.as_list()), out.dtype)
            gs = tf.gradients(out, list(xs.values()), grad_ys=w)
            grads.append((name, w, gs))
        with tf.Session() as s:
            vals = s.run(fetch)
            rec = {"fetches": {k: enc(v) for k, v in vals.items()}, "grads": []}
            for name, w, gs in grads:
                live = [(k, t) for k, t in zip(xs, gs) if t is not None]
                gv = s.run([t for _, t in live])
                rec["grads"].append({"y": name, "grad_ys": enc(s.run(w)),
                                     "grads": {k: enc(v) for (k, _), v in zip(live, gv)}})
    return rec


LEGACY = legacy_graph()

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": CASES, "legacy_graph": LEGACY}, f, separators=(",", ":"))
print(len(CASES), "cases")
