"""Writes expected.json: tf.sets cases run in TensorFlow 2.21 (graph mode).

Each case names a function (size, intersection, union, difference, or raw_dd for the raw
DenseToDenseSetOperation op), its inputs (dense: shape + flat values; sparse: indices, values,
shape), dtype and attrs, and either TF's outputs or TF's error (exception class and message).
With "feed", every input is a placeholder of unknown shape, so errors come from the kernels.
Run: $HOME/.cache/weir-bench/venv/bin/python make_sets.py
"""
import json
import os

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.python.ops import gen_set_ops

tf.disable_v2_behavior()


def dense(shape, values):
    return {"dense": {"shape": shape, "values": values}}


def sparse(indices, values, shape, width=None):
    """A sparse input; `width` (default: the rank) is the row width of the indices."""
    w = len(shape) if width is None else width
    return {"sparse": {"indices": indices, "values": values, "shape": shape, "width": w}}


def tf_input(spec, dtype, feed, feeds):
    if "dense" in spec:
        d = spec["dense"]
        arr = np.array(d["values"], dtype=object if dtype == "string" else dtype)
        arr = arr.reshape(d["shape"])
        if dtype == "string":
            arr = arr.astype(bytes)
        if feed:
            p = tf.placeholder(dtype)
            feeds[p] = arr
            return p
        return tf.constant(arr, dtype=dtype)
    s = spec["sparse"]
    ix = np.array(s["indices"], dtype=np.int64).reshape(-1, s["width"])
    vals = np.array(s["values"], dtype=object if dtype == "string" else dtype)
    if dtype == "string":
        vals = vals.astype(bytes)
    sh = np.array(s["shape"], dtype=np.int64)
    if feed:
        ps = (tf.placeholder(tf.int64), tf.placeholder(dtype), tf.placeholder(tf.int64))
        feeds.update({ps[0]: ix, ps[1]: vals, ps[2]: sh})
        return tf.SparseTensor(*ps)
    return tf.SparseTensor(ix, tf.constant(vals, dtype=dtype), sh)


def decode(v):
    return [x.decode() if isinstance(x, bytes) else int(x) for x in v.reshape(-1)]


def run(case):
    g = tf.Graph()
    with g.as_default():
        feeds = {}
        feed = case.get("feed", False)
        dtype = case["dtype"]
        try:
            a = tf_input(case["a"], case.get("a_dtype", dtype), feed, feeds)
            b = tf_input(case["b"], dtype, feed, feeds) if "b" in case else None
            v = case.get("validate_indices", True)
            fn = case["fn"]
            if fn == "size":
                out = tf.sets.size(a, validate_indices=v)
            elif fn == "intersection":
                out = tf.sets.intersection(a, b, validate_indices=v)
            elif fn == "union":
                out = tf.sets.union(a, b, validate_indices=v)
            elif fn == "difference":
                out = tf.sets.difference(a, b, aminusb=case.get("aminusb", True), validate_indices=v)
            else:
                out = tf.SparseTensor(*gen_set_ops.dense_to_dense_set_operation(
                    a, b, set_operation=case["set_operation"], validate_indices=v))
            with tf.Session() as sess:
                if fn == "size":
                    r = sess.run(out, feeds)
                    case["expected"] = {"size": decode(r), "shape": list(r.shape)}
                else:
                    r = sess.run(out, feeds)
                    case["expected"] = {
                        "indices": decode(r.indices),
                        "values": decode(r.values),
                        "dense_shape": decode(r.dense_shape),
                    }
        except Exception as e:  # noqa: BLE001 - the error is the expected result
            msg = getattr(e, "message", str(e))
            msg = msg.split("\n\t [[")[0]
            if "\nNode: '" in msg:
                # Graph-mode errors prefix the kernel's message with the node's traceback.
                msg = msg.split("\nNode: '", 1)[1].split("\n", 1)[1]
            case["error"] = {"kind": type(e).__name__, "message": msg}
    return case


CASES = [
    dict(name="dd_intersection_i32", fn="intersection", dtype="int32",
         a=dense([2, 3], [1, 2, 3, 4, 5, 6]), b=dense([2, 4], [3, 1, 9, 1, 4, 4, 7, 8])),
    dict(name="dd_union_i64_dups", fn="union", dtype="int64",
         a=dense([2, 2, 3], [5, 5, 1, 0, 0, 0, -3, 2, -3, 9, 8, 7]),
         b=dense([2, 2, 2], [1, 6, 0, 1, 2, 2, 7, 7])),
    dict(name="dd_difference_i8", fn="difference", dtype="int8",
         a=dense([3, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9]), b=dense([3, 2], [2, 3, 9, 9, 7, 8])),
    dict(name="dd_difference_bminusa_u16", fn="difference", dtype="uint16", aminusb=False,
         a=dense([2, 2], [1, 2, 3, 4]), b=dense([2, 3], [2, 65535, 5, 3, 4, 3])),
    dict(name="dd_union_string", fn="union", dtype="string",
         a=dense([2, 2], ["b", "a", "zz", "Z"]), b=dense([2, 1], ["", "zz"])),
    dict(name="dd_intersection_empty", fn="intersection", dtype="int32",
         a=dense([2, 2], [1, 2, 3, 4]), b=dense([2, 2], [5, 6, 7, 8])),
    dict(name="dd_intersection_u8_zero_width", fn="intersection", dtype="uint8",
         a=dense([2, 0], []), b=dense([2, 2], [1, 2, 3, 4])),
    dict(name="ds_intersection_i16", fn="intersection", dtype="int16",
         a=dense([3, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9]),
         b=sparse([0, 0, 0, 1, 2, 0, 2, 3], [3, 1, 9, 8], [3, 4])),
    dict(name="ds_union_3d", fn="union", dtype="int32",
         a=dense([2, 2, 2], [1, 2, 3, 4, 5, 6, 7, 8]),
         b=sparse([0, 1, 0, 1, 0, 0, 1, 0, 1], [9, 0, 5], [2, 2, 2])),
    dict(name="sd_intersection_swapped", fn="intersection", dtype="int64",
         a=sparse([0, 0, 0, 1, 1, 0], [1, 2, 3], [2, 2]), b=dense([2, 2], [2, 5, 3, 3])),
    dict(name="sd_difference_swapped", fn="difference", dtype="int64",
         a=sparse([0, 0, 0, 1, 1, 0], [1, 2, 3], [2, 2]), b=dense([2, 2], [2, 5, 4, 4])),
    dict(name="sd_difference_swapped_bminusa", fn="difference", dtype="int64", aminusb=False,
         a=sparse([0, 0, 0, 1, 1, 0], [1, 2, 3], [2, 2]), b=dense([2, 2], [2, 5, 4, 4])),
    dict(name="ss_union_u8", fn="union", dtype="uint8",
         a=sparse([0, 0, 2, 0, 2, 1], [4, 200, 4], [4, 3]),
         b=sparse([1, 0, 2, 0, 3, 2], [7, 1, 1], [4, 3])),
    dict(name="ss_intersection_string", fn="intersection", dtype="string",
         a=sparse([0, 0, 0, 1, 1, 0], ["x", "y", "x"], [2, 2]),
         b=sparse([0, 0, 1, 0, 1, 1], ["y", "q", "x"], [2, 2])),
    dict(name="ss_difference_empty_b", fn="difference", dtype="int32",
         a=sparse([0, 0, 1, 1], [3, 4], [2, 2]), b=sparse([], [], [2, 5])),
    dict(name="ss_difference_bminusa", fn="difference", dtype="int32", aminusb=False,
         a=sparse([0, 0, 1, 1], [3, 4], [2, 2]), b=sparse([0, 0, 0, 1, 1, 0], [3, 5, 6], [2, 5])),
    dict(name="size_i32_3d", fn="size", dtype="int32",
         a=sparse([0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 2], [1, 1, 2, 3, 4, 3],
                  [2, 2, 3])),
    dict(name="size_string", fn="size", dtype="string",
         a=sparse([0, 0, 0, 1, 2, 0], ["a", "a", "b"], [3, 2])),
    dict(name="size_unvalidated_unsorted", fn="size", dtype="int32", validate_indices=False,
         a=sparse([1, 0, 0, 0, 0, 1, 1, 1], [1, 2, 3, 4], [2, 2])),
    dict(name="ss_union_unvalidated_unsorted", fn="union", dtype="int32", validate_indices=False,
         a=sparse([1, 0, 0, 0], [5, 6], [2, 2]), b=sparse([0, 0, 1, 0], [7, 8], [2, 2])),
    # Errors.
    dict(name="err_dd_mismatched_groups", fn="intersection", dtype="int32", feed=True,
         a=dense([2, 2], [1, 2, 3, 4]), b=dense([3, 1], [1, 2, 3])),
    dict(name="err_dd_rank1", fn="union", dtype="int32", feed=True,
         a=dense([3], [1, 2, 3]), b=dense([3], [1, 2, 3])),
    dict(name="err_dd_rank_mismatch", fn="union", dtype="int32", feed=True,
         a=dense([1, 1, 2], [1, 2]), b=dense([1, 2], [1, 2])),
    dict(name="err_ds_mismatched_groups", fn="union", dtype="int32", feed=True,
         a=dense([2, 2], [1, 2, 3, 4]), b=sparse([0, 0], [1], [3, 2])),
    dict(name="err_ss_out_of_order", fn="union", dtype="int32", feed=True,
         a=sparse([1, 0, 0, 0], [5, 6], [2, 2]), b=sparse([0, 0], [7], [2, 2])),
    dict(name="err_ss_repeated", fn="intersection", dtype="int32", feed=True,
         a=sparse([0, 0], [5], [2, 2]), b=sparse([0, 0, 0, 0], [7, 8], [2, 2])),
    dict(name="err_size_out_of_bounds", fn="size", dtype="int64", feed=True,
         a=sparse([0, 0, 2, 0], [5, 6], [2, 2])),
    dict(name="err_size_rank1", fn="size", dtype="int64", feed=True,
         a=sparse([0, 1], [5, 6], [3])),
    dict(name="err_size_values_rows", fn="size", dtype="int32", feed=True,
         a=sparse([0, 0, 0, 1], [5, 6, 7], [2, 2])),
    dict(name="err_size_negative_dim", fn="size", dtype="int32", feed=True,
         a=sparse([], [], [2, -1])),
    dict(name="err_ds_index_width", fn="union", dtype="int32", feed=True,
         a=dense([2, 2], [1, 2, 3, 4]), b=sparse([0, 0, 0], [1], [2, 2], width=3)),
    dict(name="err_raw_bad_set_operation", fn="raw_dd", dtype="int32", set_operation="xor",
         a=dense([1, 2], [1, 2]), b=dense([1, 2], [1, 2])),
    dict(name="err_type_mismatch", fn="union", dtype="int32", a_dtype="int64",
         a=dense([1, 2], [1, 2]), b=dense([1, 2], [1, 2])),
    dict(name="err_float_dtype", fn="union", dtype="float32",
         a=dense([1, 2], [1, 2]), b=dense([1, 2], [1, 2])),
    dict(name="err_static_rank_mismatch", fn="intersection", dtype="int32",
         a=dense([1, 1], [1]), b=dense([1], [1])),
    dict(name="err_static_group_mismatch", fn="intersection", dtype="int32",
         a=dense([2, 2], [1, 2, 3, 4]), b=dense([3, 1], [1, 2, 3])),
]

out = [run(dict(c)) for c in CASES]
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json"), "w") as f:
    json.dump(out, f, indent=1)
for c in out:
    print(c["name"], c.get("expected", c.get("error")))
