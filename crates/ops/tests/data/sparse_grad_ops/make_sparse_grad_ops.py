"""Records TensorFlow 2.21's sparse backward ops into expected.json.

Run with TensorFlow 2.21:  python make_sparse_grad_ops.py  (writes expected.json next to it).

Each case builds one raw op in a tf.compat.v1 graph and runs it in a Session: "fill_grad"
(`SparseFillEmptyRowsGrad(reverse_index_map, grad_values)`) or "slice_grad"
(`SparseSliceGrad(backprop_val_grad, input_indices, input_start, output_indices)`).

Every input is a placeholder fed its value, of the value's own static shape unless the input
has `shape` (a list with null for an unknown dim, or "unknown"). A tensor is {dtype, dims,
values}: values flat; float32/float64/float16/bfloat16 as their bit patterns; complex64 and
complex128 as [real bits, imaginary bits] pairs; strings as base64. Recorded: `static_shapes`
and `outputs`, or the error (`build_error` when building failed, `error` when running did) as
TensorFlow's canonical code (3 for a Python TypeError/ValueError) and message, without
TensorFlow's " for '{{node ...}}'" suffix.
"""
import base64
import json
import os

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.python.ops import gen_sparse_ops

tf.disable_eager_execution()

NUMBER = ["float32", "float64", "int32", "uint8", "int16", "int8", "complex64", "int64",
          "bfloat16", "uint16", "complex128", "float16", "uint32", "uint64"]

BITS = {"float32": np.uint32, "float64": np.uint64, "float16": np.uint16}


def np_dtype(dt):
    return tf.as_dtype(dt).as_numpy_dtype


def sample(dtype, n, seed=0):
    out = []
    for i in range(n):
        k = i + seed
        if dtype in ("float32", "float64", "float16", "bfloat16"):
            out.append([1.5, -0.0, 0.1, -7.25, 3.25e-3, 42.0, float("inf")][k % 7])
        elif dtype.startswith("complex"):
            out.append([1.5 - 2j, 0.1j, -7.25 + 0.5j, 3.0][k % 4])
        elif dtype == "bool":
            out.append(k % 3 != 1)
        elif dtype == "string":
            out.append([b"", b"a", b"xyz"][k % 3])
        elif dtype.startswith("uint"):
            out.append([0, 7, 255, 200, 1][k % 5])
        else:
            out.append([-3, 0, 127, -128, 5][k % 5])
    return out


def float_bits(flat, dt):
    if dt == "bfloat16":
        a = np.asarray(flat, dtype=np.float32).view(np.uint32) >> 16
        return [int(x) for x in a]
    return [int(x) for x in np.asarray(flat, dtype=dt).view(BITS[dt])]


def spec_of(arr, dtype):
    arr = np.asarray(arr, dtype=object) if dtype == "string" else np.asarray(arr)
    dims = list(arr.shape)
    flat = arr.reshape(-1).tolist()
    if dtype == "string":
        vals = [base64.b64encode(v).decode() for v in flat]
    elif dtype in ("float32", "float64", "float16"):
        vals = float_bits(flat, dtype)
    elif dtype == "bfloat16":
        vals = float_bits([float(v) for v in flat], dtype)
    elif dtype.startswith("complex"):
        part = "float32" if dtype == "complex64" else "float64"
        re = float_bits([complex(v).real for v in flat], part)
        im = float_bits([complex(v).imag for v in flat], part)
        vals = [[a, b] for a, b in zip(re, im)]
    elif dtype == "bool":
        vals = [bool(v) for v in flat]
    else:
        vals = [int(v) for v in flat]
    return {"dtype": dtype, "dims": dims, "values": vals}


def np_of(spec):
    dt, dims, vals = spec["dtype"], spec["dims"], spec["values"]
    if dt == "string":
        return np.array([base64.b64decode(v) for v in vals], dtype=object).reshape(dims)
    if dt in BITS:
        return np.array(vals, dtype=BITS[dt]).view(dt).reshape(dims)
    if dt == "bfloat16":
        f = (np.array(vals, dtype=np.uint32) << 16).view(np.float32)
        return f.astype(np_dtype(dt)).reshape(dims)
    if dt.startswith("complex"):
        part = "float32" if dt == "complex64" else "float64"
        re = np.array([v[0] for v in vals], dtype=BITS[part]).view(part)
        im = np.array([v[1] for v in vals], dtype=BITS[part]).view(part)
        return (re + 1j * im).astype(dt).reshape(dims)
    return np.array(vals, dtype=dt).reshape(dims)


def tensor(dtype, values, dims):
    if dtype == "string":
        return spec_of(np.array(values, dtype=object).reshape(dims), dtype)
    if dtype == "bfloat16":
        return spec_of(np.array(values, dtype=np.float32).reshape(dims), dtype)
    return spec_of(np.array(values, dtype=np_dtype(dtype)).reshape(dims), dtype)


def build_message(e):
    m = str(e)
    return m.split(" for '{{node")[0].split("\n\t; NodeDef")[0]


def run_message(e):
    m = e.message
    at = m.rfind("Node: '")
    if at >= 0:
        m = m[m.index("\n", at) + 1:]
    elif m.startswith("Graph execution error:\n\n"):
        m = m[len("Graph execution error:\n\n"):]
    m = m.split("\n\t [[")[0]
    return m.split(" for node {{node")[0]


def source(spec, feeds):
    shape = spec.get("shape", spec["dims"])
    shape = None if shape == "unknown" else shape
    p = tf.placeholder(tf.as_dtype(spec["dtype"]), shape)
    feeds[p] = np_of(spec)
    return p


def build(c):
    feeds = {}
    ins = [source(s, feeds) for s in c["inputs"]]
    if c["op"] == "fill_grad":
        d_values, d_default = gen_sparse_ops.sparse_fill_empty_rows_grad(
            reverse_index_map=ins[0], grad_values=ins[1])
        return [d_values, d_default], feeds
    return [gen_sparse_ops.sparse_slice_grad(*ins)], feeds


def record(c):
    g = tf.Graph()
    with g.as_default():
        try:
            outs, feeds = build(c)
        except (ValueError, TypeError, tf.errors.OpError) as e:
            code = e.error_code if isinstance(e, tf.errors.OpError) else 3
            c["build_error"] = {"code": code, "message": build_message(e)}
            return c
        c["static_shapes"] = [o.shape.as_list() if o.shape.rank is not None else None
                              for o in outs]
        with tf.Session(graph=g) as sess:
            try:
                v = sess.run(outs, feed_dict=feeds)
            except tf.errors.OpError as e:
                c["error"] = {"code": e.error_code, "message": run_message(e)}
                return c
        c["outputs"] = [spec_of(x, o.dtype.name) for x, o in zip(v, outs)]
    return c


CASES = []


def add(name, op, inputs):
    CASES.append({"name": name, "op": op, "inputs": inputs})


def i64(values, dims):
    return tensor("int64", values, dims)


def matrix(rows, cols=None):
    cols = cols if cols is not None else (len(rows[0]) if rows else 0)
    return i64([x for r in rows for x in r], [len(rows), cols])


def unknown(spec):
    return dict(spec, shape="unknown")


# --- SparseFillEmptyRowsGrad ---------------------------------------------------------------
# The map of an unsorted input [[3,1],[0,2],[3,0],[0,1]] in a 5-row tensor: rows 1, 2 and 4
# filled, so output entries 0..6 with inputs at 5, 0, 6, 1.
MAP = [5, 0, 6, 1]
for dt in NUMBER:
    add(f"fill_grad_{dt}", "fill_grad", [i64(MAP, [4]), tensor(dt, sample(dt, 8), [8])])
for dt in ["float32", "float64"]:
    add(f"fill_grad_repeated_{dt}", "fill_grad",
        [i64([2, 2, 0], [3]), tensor(dt, [0.25, 1.5, -3.0, 8.0], [4])])
    add(f"fill_grad_all_filled_{dt}", "fill_grad",
        [i64([], [0]), tensor(dt, [0.5, 1.25, -2.0], [3])])
    add(f"fill_grad_none_filled_{dt}", "fill_grad",
        [i64([1, 0, 2], [3]), tensor(dt, [0.5, 1.25, -2.0], [3])])
add("fill_grad_empty", "fill_grad", [i64([], [0]), tensor("float32", [], [0])])
# Sums that show the accumulation type and order: 4096 gradients of 0.1 and mixed magnitudes.
for dt in ["float16", "bfloat16", "float32"]:
    add(f"fill_grad_long_sum_{dt}", "fill_grad",
        [i64([0], [1]), tensor(dt, [0.1] * 4096, [4096])])
add("fill_grad_mixed_sum_float32", "fill_grad",
    [i64([3], [1]), tensor("float32", [1e8 if i % 97 == 0 else 0.3 + i for i in range(1000)],
                           [1000])])
# TensorFlow sums with denormals flushed to zero (its threads set DAZ and FTZ) but copies them.
add("fill_grad_denormal_float32", "fill_grad",
    [i64([0], [1]), tensor("float32", [1e-40, 2e-40, -3e-39, 1e-38], [4])])
add("fill_grad_denormal_float64", "fill_grad",
    [i64([1], [1]), tensor("float64", [1e-310, 5e-309, -1e-308, 2e-300], [4])])
add("fill_grad_denormal_bfloat16", "fill_grad",
    [i64([0], [1]), tensor("bfloat16", [1e-39, 1e-39, 2e-38], [3])])
add("fill_grad_subnormal_float16", "fill_grad",
    [i64([2], [1]), tensor("float16", [1e-6, 3e-7, 1.0], [3])])
add("fill_grad_denormal_complex64", "fill_grad",
    [i64([], [0]), tensor("complex64", [1e-40 + 1e-40j, 1e-38 - 2e-39j], [2])])
add("fill_grad_index_too_big", "fill_grad", [i64([0, 7], [2]), tensor("float32", [1.0] * 7, [7])])
add("fill_grad_index_negative", "fill_grad",
    [i64([-1], [1]), tensor("float64", [1.0, 2.0], [2])])
add("fill_grad_index_into_empty", "fill_grad", [i64([0], [1]), tensor("int32", [], [0])])
add("fill_grad_map_matrix_build", "fill_grad",
    [i64([0, 1], [1, 2]), tensor("float32", [1.0, 2.0], [2])])
add("fill_grad_map_matrix_run", "fill_grad",
    [unknown(i64([0, 1], [1, 2])), unknown(tensor("float32", [1.0, 2.0], [2]))])
add("fill_grad_grad_scalar_build", "fill_grad", [i64([0], [1]), tensor("float32", [1.0], [])])
add("fill_grad_grad_scalar_run", "fill_grad",
    [unknown(i64([0], [1])), unknown(tensor("float32", [1.0], []))])
add("fill_grad_partial_shapes", "fill_grad",
    [dict(i64([1, 0], [2]), shape=[None]), dict(tensor("float32", [1.0, 2.0, 3.0], [3]),
                                                shape=[None])])
add("fill_grad_unknown_shapes", "fill_grad",
    [unknown(i64([1, 0], [2])), unknown(tensor("float64", [1.0, 2.0, 3.0], [3]))])
add("fill_grad_string", "fill_grad", [i64([0], [1]), tensor("string", [b"a", b"b"], [2])])
add("fill_grad_bool", "fill_grad", [i64([0], [1]), tensor("bool", [True, False], [2])])

# --- SparseSliceGrad -----------------------------------------------------------------------
# tf.sparse.slice of [[0,1],[1,0],[1,3],[2,2],[3,1]] at start [1,1], size [2,3]: keeps entries
# 2 ([1,3] -> [0,2]) and 3 ([2,2] -> [1,1]).
IN2 = [[0, 1], [1, 0], [1, 3], [2, 2], [3, 1]]
OUT2 = [[0, 2], [1, 1]]
for dt in NUMBER:
    add(f"slice_grad_{dt}", "slice_grad",
        [tensor(dt, sample(dt, 2, 1), [2]), matrix(IN2), i64([1, 1], [2]), matrix(OUT2)])
add("slice_grad_denormal", "slice_grad",
    [tensor("float32", [1e-40], [1]), matrix([[0, 0], [1, 1]]), i64([1, 1], [2]),
     matrix([[0, 0]])])
add("slice_grad_rank1", "slice_grad",
    [tensor("float64", [2.5, -1.0, 4.0], [3]), matrix([[0], [2], [3], [5], [9]]), i64([2], [1]),
     matrix([[0], [1], [3]])])
add("slice_grad_rank3_unsorted", "slice_grad",
    [tensor("float32", [1.0, 2.0, 3.0], [3]),
     matrix([[2, 0, 1], [0, 0, 0], [1, 1, 1], [1, 0, 2], [2, 2, 2]]), i64([1, 0, 1], [3]),
     matrix([[1, 0, 0], [0, 1, 0], [0, 0, 1]])])
add("slice_grad_all_kept", "slice_grad",
    [tensor("float32", [1.0, 2.0], [2]), matrix([[0, 0], [1, 1]]), i64([0, 0], [2]),
     matrix([[0, 0], [1, 1]])])
add("slice_grad_none_kept", "slice_grad",
    [tensor("float64", [], [0]), matrix([[0, 0], [1, 1]]), i64([5, 5], [2]), matrix([], 2)])
add("slice_grad_empty", "slice_grad",
    [tensor("float32", [], [0]), matrix([], 2), i64([0, 0], [2]), matrix([], 2)])
add("slice_grad_zero_dims", "slice_grad",
    [tensor("float32", [4.0, 5.0], [2]), matrix([[], [], []], 0), i64([], [0]),
     matrix([[], []], 0)])
add("slice_grad_negative_start", "slice_grad",
    [tensor("float32", [4.0], [1]), matrix([[0, 0], [1, 1]]), i64([-1, -1], [2]),
     matrix([[2, 2]])])
add("slice_grad_not_propagated", "slice_grad",
    [tensor("float32", [1.0, 2.0], [2]), matrix(IN2), i64([1, 1], [2]), matrix([[1, 1], [0, 2]])])
add("slice_grad_indices_vector_build", "slice_grad",
    [tensor("float32", [1.0], [1]), i64([0, 1], [2]), i64([0, 0], [2]), matrix([[0, 1]])])
add("slice_grad_indices_vector_run", "slice_grad",
    [tensor("float32", [1.0], [1]), unknown(i64([0, 1], [2])), i64([0, 0], [2]),
     matrix([[0, 1]])])
add("slice_grad_output_vector_run", "slice_grad",
    [tensor("float32", [1.0], [1]), matrix([[0, 1]]), i64([0, 0], [2]),
     unknown(i64([0, 1], [2]))])
add("slice_grad_backprop_matrix", "slice_grad",
    [tensor("float32", [1.0], [1, 1]), matrix([[0, 1]]), i64([0, 0], [2]), matrix([[0, 1]])])
add("slice_grad_ndims_mismatch", "slice_grad",
    [tensor("float32", [1.0], [1]), matrix([[0, 1]]), i64([0, 0], [2]), matrix([[0, 1, 2]])])
add("slice_grad_too_many_outputs", "slice_grad",
    [tensor("float32", [1.0, 2.0], [2]), matrix([[0, 1]]), i64([0, 0], [2]),
     matrix([[0, 1], [0, 1]])])
add("slice_grad_count_mismatch", "slice_grad",
    [tensor("float32", [1.0, 2.0, 3.0], [3]), matrix([[0, 1], [1, 1]]), i64([0, 0], [2]),
     matrix([[0, 1]])])
add("slice_grad_start_matrix", "slice_grad",
    [tensor("float32", [1.0], [1]), matrix([[0, 1]]), i64([0, 0], [1, 2]), matrix([[0, 1]])])
add("slice_grad_start_length", "slice_grad",
    [tensor("float32", [1.0], [1]), matrix([[0, 1]]), i64([0, 0, 0], [3]), matrix([[0, 1]])])
add("slice_grad_partial_shapes", "slice_grad",
    [dict(tensor("float32", [1.0], [1]), shape=[None]), dict(matrix(IN2), shape=[None, None]),
     dict(i64([1, 1], [2]), shape=[None]), dict(matrix([[0, 2]]), shape=[None, 2])])
add("slice_grad_unknown_shapes", "slice_grad",
    [unknown(tensor("float64", [1.0], [1])), unknown(matrix(IN2)), unknown(i64([1, 1], [2])),
     unknown(matrix([[0, 2]]))])
add("slice_grad_string", "slice_grad",
    [tensor("string", [b"a"], [1]), matrix([[0, 1]]), i64([0, 0], [2]), matrix([[0, 1]])])
add("slice_grad_bool", "slice_grad",
    [tensor("bool", [True], [1]), matrix([[0, 1]]), i64([0, 0], [2]), matrix([[0, 1]])])


# --- tf.gradients of the forward ops --------------------------------------------------------
# Each "gradient" case builds forward op `fn` on fed placeholders (inputs in the raw op's
# order), takes `tf.gradients(outputs[y], [inputs[i] for i in xs], grad_ys)` with a fixed
# `grad_ys` of the output's run-time shape, and records the gradients (null where TensorFlow
# returns None), or the error TensorFlow raises while building them (`grad_error`: the
# exception's class name and message, and `code` 3 for an InvalidArgument-like ValueError).


def forward(c, ins):
    fn = c["fn"]
    if fn == "reorder":
        return list(gen_sparse_ops.sparse_reorder(*ins))
    if fn == "slice":
        return list(gen_sparse_ops.sparse_slice(*ins))
    if fn == "softmax":
        return [gen_sparse_ops.sparse_softmax(*ins)]
    if fn == "fill":
        return list(gen_sparse_ops.sparse_fill_empty_rows(*ins))
    if fn == "to_dense":
        return [gen_sparse_ops.sparse_to_dense(*ins, validate_indices=c["validate"])]
    if fn == "maximum":
        return list(gen_sparse_ops.sparse_sparse_maximum(*ins))
    return list(gen_sparse_ops.sparse_sparse_minimum(*ins))


def grad_ys_of(value, dtype):
    n = value.size
    vals = [0.5 + ((i * 37 + 5) % 17) / 8.0 for i in range(n)]
    return tensor(dtype, vals, list(value.shape))


def record_grad(c):
    g = tf.Graph()
    with g.as_default():
        feeds = {}
        ins = [source(s, feeds) for s in c["inputs"]]
        y = forward(c, ins)[c["y"]]
        with tf.Session(graph=g) as sess:
            y_val = sess.run(y, feed_dict=feeds)
        c["grad_ys"] = grad_ys_of(y_val, y.dtype.name)
        gy = tf.constant(np_of(c["grad_ys"]), dtype=y.dtype)
        try:
            grads = tf.gradients(y, [ins[i] for i in c["xs"]], grad_ys=gy)
        except (ValueError, TypeError, NotImplementedError, LookupError) as e:
            c["grad_error"] = {"type": type(e).__name__, "message": build_message(e)}
            return c
        c["grad_shapes"] = [d.shape.as_list() if d is not None and d.shape.rank is not None
                            else None for d in grads]
        with tf.Session(graph=g) as sess:
            vals = sess.run([d for d in grads if d is not None], feed_dict=feeds)
        it = iter(vals)
        c["grads"] = [None if d is None else spec_of(next(it), d.dtype.name) for d in grads]
    return c


GRAD_CASES = []


def grad_case(name, fn, inputs, y, xs, **kw):
    c = {"name": name, "op": "gradient", "fn": fn, "inputs": inputs, "y": y, "xs": xs}
    c.update(kw)
    GRAD_CASES.append(c)


def sp(rows, dtype, values, shape):
    return [matrix(rows, len(shape)), tensor(dtype, values, [len(values)]),
            i64(shape, [len(shape)])]


def vals(n, seed=0):
    return [round(0.25 + ((i * 7 + seed * 3) % 11) / 4.0 - 1.0, 4) for i in range(n)]


UNSORTED = [[2, 1], [0, 3], [1, 0], [0, 1], [2, 0]]
for dt in ["float32", "float64", "float16"]:
    grad_case(f"reorder_unsorted_{dt}", "reorder", sp(UNSORTED, dt, vals(5), [3, 4]), 1, [1])
    grad_case(f"slice_unsorted_{dt}", "slice",
              sp(UNSORTED, dt, vals(5, 1), [3, 4]) + [i64([0, 1], [2]), i64([3, 3], [2])], 1, [1])
    grad_case(f"fill_unsorted_{dt}", "fill",
              sp([[3, 1], [0, 2], [3, 0], [0, 1]], dt, vals(4, 2), [5, 3]) +
              [tensor(dt, [0.75], [])], 1, [1, 3])
for dt in ["float32", "float64"]:
    grad_case(f"softmax_{dt}", "softmax",
              sp([[0, 0], [0, 2], [0, 3], [2, 1], [3, 0], [3, 3]], dt, vals(6, 3), [5, 4]), 0,
              [1])
    grad_case(f"to_dense_{dt}", "to_dense",
              [matrix([[0, 1], [1, 0], [2, 3]]), i64([3, 4], [2]), tensor(dt, vals(3, 4), [3]),
               tensor(dt, [0.5], [])], 0, [2, 3], validate=True)
grad_case("reorder_sorted", "reorder", sp([[0, 1], [1, 0], [1, 2]], "float64", vals(3), [2, 3]),
          1, [1])
grad_case("reorder_repeated", "reorder",
          sp([[1, 1], [0, 0], [1, 1], [0, 0]], "float64", vals(4, 5), [2, 2]), 1, [1])
grad_case("reorder_rank1", "reorder", sp([[4], [0], [2]], "float32", vals(3, 1), [5]), 1, [1])
grad_case("reorder_rank3", "reorder",
          sp([[1, 0, 2], [0, 1, 1], [1, 0, 0], [0, 0, 3]], "float64", vals(4, 2), [2, 2, 4]), 1,
          [1])
grad_case("reorder_empty", "reorder", sp([], "float32", [], [2, 3]), 1, [1])
grad_case("slice_rank1", "slice",
          sp([[5], [1], [3], [7]], "float64", vals(4), [8]) + [i64([2], [1]), i64([4], [1])], 1,
          [1])
grad_case("slice_rank3", "slice",
          sp([[1, 0, 2], [0, 1, 1], [1, 1, 0], [0, 0, 3]], "float32", vals(4, 3), [2, 2, 4]) +
          [i64([0, 1, 0], [3]), i64([2, 1, 3], [3])], 1, [1])
grad_case("slice_none_kept", "slice",
          sp([[0, 0], [1, 1]], "float64", vals(2), [2, 2]) + [i64([5, 5], [2]),
                                                              i64([1, 1], [2])], 1, [1])
grad_case("slice_all_kept", "slice",
          sp([[1, 1], [0, 0]], "float32", vals(2), [2, 2]) + [i64([0, 0], [2]),
                                                              i64([2, 2], [2])], 1, [1])
grad_case("softmax_rank3", "softmax",
          sp([[0, 0, 0], [0, 0, 1], [0, 1, 2], [1, 1, 0], [1, 1, 1], [1, 1, 2]], "float64",
             vals(6, 1), [2, 2, 3]), 0, [1])
grad_case("softmax_unsorted", "softmax",
          sp([[1, 1], [0, 2], [1, 0], [0, 0]], "float64", vals(4, 2), [2, 3]), 0, [1])
grad_case("softmax_denormal_output", "softmax",
          sp([[0, 0], [0, 1], [0, 2]], "float32", [80.0, -20.0, 79.5], [1, 3]), 0, [1])
grad_case("softmax_large_values", "softmax",
          sp([[0, 0], [0, 1], [0, 2]], "float32", [80.0, 61.0, 79.5], [1, 3]), 0, [1])
grad_case("fill_full_ordered", "fill",
          sp([[0, 1], [1, 0], [2, 2]], "float64", vals(3), [3, 3]) +
          [tensor("float64", [2.0], [])], 1, [1, 3])
grad_case("fill_all_empty", "fill",
          sp([], "float32", [], [3, 2]) + [tensor("float32", [1.5], [])], 1, [1, 3])
grad_case("fill_rank1", "fill",
          sp([[3], [1]], "float64", vals(2, 1), [5]) + [tensor("float64", [0.5], [])], 1, [1, 3])
grad_case("fill_rank3", "fill",
          sp([[2, 0, 1], [0, 1, 1], [2, 1, 0]], "float32", vals(3, 4), [4, 2, 2]) +
          [tensor("float32", [-1.0], [])], 1, [1, 3])
grad_case("to_dense_rank3", "to_dense",
          [matrix([[0, 0, 1], [1, 1, 0], [1, 2, 1]]), i64([2, 3, 2], [3]),
           tensor("float64", vals(3, 1), [3]), tensor("float64", [0.0], [])], 0, [2, 3],
          validate=True)
grad_case("to_dense_unsorted_unvalidated", "to_dense",
          [matrix([[2, 1], [0, 0], [1, 1]]), i64([3, 2], [2]), tensor("float64", vals(3, 2), [3]),
           tensor("float64", [1.0], [])], 0, [2, 3], validate=False)
grad_case("to_dense_int32_indices", "to_dense",
          [tensor("int32", [0, 2, 1, 1], [2, 2]), tensor("int32", [2, 3], [2]),
           tensor("float32", vals(2, 3), [2]), tensor("float32", [0.25], [])], 0, [2, 3],
          validate=True)
grad_case("to_dense_scalar_value", "to_dense",
          [matrix([[0, 1], [1, 0]]), i64([2, 2], [2]), tensor("float64", [3.0], []),
           tensor("float64", [0.0], [])], 0, [2, 3], validate=True)
grad_case("to_dense_vector_indices", "to_dense",
          [i64([1, 3], [2]), i64([5], [1]), tensor("float32", [1.0, 2.0], [2]),
           tensor("float32", [0.5], [])], 0, [2, 3], validate=True)
for fn in ["maximum", "minimum"]:
    grad_case(f"{fn}_not_differentiable", fn,
              sp([[0, 0], [1, 1]], "float64", [1.0, 2.0], [2, 2]) +
              sp([[0, 0], [1, 0]], "float64", [3.0, 0.5], [2, 2]), 1, [1, 4])


def main():
    out = [record(c) for c in CASES] + [record_grad(c) for c in GRAD_CASES]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"{len(out)} cases")


if __name__ == "__main__":
    main()
