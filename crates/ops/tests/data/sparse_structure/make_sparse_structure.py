"""Records TensorFlow 2.21's structural sparse ops into expected.json.

Run with TensorFlow 2.21:  python make_sparse_structure.py  (writes expected.json next to it).

Each case builds one op in a tf.compat.v1 graph and runs it in a Session. The ops ("op"):
"fill" (`tf.sparse.fill_empty_rows`), "retain" (`tf.sparse.retain`), "slice"
(`tf.sparse.slice`), "split" (`tf.sparse.split`, with `num_split` and `axis`), "transpose"
(`tf.sparse.transpose`, with `perm` or null), "indicator" (`tf.sparse.to_indicator`, with
`vocab_size`), "reset_shape" (`tf.sparse.reset_shape`, with `new_shape` a list, null, or the
fourth input), "softmax" (`tf.sparse.softmax`), "maximum" / "minimum" (`tf.sparse.maximum` /
`tf.sparse.minimum`). The first three inputs are a sparse tensor's indices, values and dense
shape (six for maximum/minimum); further inputs are the op's tensor arguments.

Every input is a placeholder fed its value, of the value's own static shape unless the input
has `shape` (a list with null for an unknown dim, or "unknown"), or a constant when it has
`const`. A tensor is {dtype, dims, values}: values flat, float32/float64 as their bit patterns,
strings as base64. The sparse tensors of the kernel ops are grouped without TensorFlow's
SparseTensor constructor checks (raw ops), so the ops' shape functions meet ill-shaped inputs.
Recorded: `static_shapes` and `outputs` of the results (a sparse result as its indices, values
and dense shape), or the error (`build_error` when building failed, `error` when running did)
as TensorFlow's canonical code and message, without TensorFlow's " for '{{node ...}}'" suffix.
"""
import base64
import json
import os

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.python.framework import tensor_util

tf.disable_eager_execution()

DTYPES = ["float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
          "bool", "string"]
NUMERIC = ["float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16"]


def b64(b):
    return base64.b64encode(b).decode()


def sample(dtype, n, seed=0):
    out = []
    for i in range(n):
        k = i + seed
        if dtype == "float32":
            out.append([1.5, -0.0, float("nan"), float("inf"), 3.25e-3, -7.0][k % 6])
        elif dtype == "float64":
            out.append([2.5, 1e300, -0.0, float("-inf"), 1.0 / 3.0, 42.0][k % 6])
        elif dtype == "bool":
            out.append(k % 3 != 1)
        elif dtype == "string":
            out.append([b"", b"a", b"hello world", bytes(range(256)), b"\x00\xff"][k % 5])
        elif dtype.startswith("uint"):
            out.append([0, 7, 255, 200, 1][k % 5])
        else:
            out.append([-3, 0, 127, -128, 5][k % 5])
    return out


def np_of(spec):
    dt, dims, vals = spec["dtype"], spec["dims"], spec["values"]
    if dt == "string":
        return np.array([base64.b64decode(v) for v in vals], dtype=object).reshape(dims)
    if dt == "float32":
        return np.array(vals, dtype=np.uint32).view(np.float32).reshape(dims)
    if dt == "float64":
        return np.array(vals, dtype=np.uint64).view(np.float64).reshape(dims)
    return np.array(vals, dtype=dt).reshape(dims)


def spec_of(arr, dtype):
    arr = np.asarray(arr) if dtype != "string" else np.asarray(arr, dtype=object)
    dims = list(arr.shape)
    flat = arr.reshape(-1).tolist()
    if dtype == "string":
        vals = [b64(v) for v in flat]
    elif dtype == "float32":
        vals = np.asarray(flat, dtype=np.float32).view(np.uint32).tolist()
    elif dtype == "float64":
        vals = np.asarray(flat, dtype=np.float64).view(np.uint64).tolist()
    elif dtype == "bool":
        vals = [bool(v) for v in flat]
    else:
        vals = [int(v) for v in flat]
    return {"dtype": dtype, "dims": dims, "values": vals}


def tensor(dtype, values, dims):
    if dtype == "string":
        a = np.array(values, dtype=object).reshape(dims)
    else:
        a = np.array(values, dtype=dtype).reshape(dims)
    return spec_of(a, dtype)


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
    if spec.get("const"):
        return tf.constant(np_of(spec), dtype=tf.as_dtype(spec["dtype"]))
    shape = spec.get("shape", spec["dims"])
    shape = None if shape == "unknown" else shape
    p = tf.placeholder(tf.as_dtype(spec["dtype"]), shape)
    feeds[p] = np_of(spec)
    return p


def sparse_parts(st):
    return [st.indices, st.values, st.dense_shape]


def build(c):
    feeds = {}
    ins = [source(s, feeds) for s in c["inputs"]]
    op = c["op"]
    # Grouped without SparseTensor's own checks, as weir's tests group them.
    sp = tf.SparseTensor.__new__(tf.SparseTensor)
    sp._indices, sp._values, sp._dense_shape = ins[0], ins[1], ins[2]
    sp._dense_shape_default = tensor_util.constant_value_as_shape(ins[2])
    if op == "fill":
        out, ind = tf.sparse.fill_empty_rows(sp, ins[3])
        return sparse_parts(out) + [ind], feeds
    if op == "retain":
        return sparse_parts(tf.sparse.retain(sp, ins[3])), feeds
    if op == "slice":
        return sparse_parts(tf.sparse.slice(sp, ins[3], ins[4])), feeds
    if op == "split":
        outs = tf.sparse.split(sp_input=sp, num_split=c["num_split"], axis=c["axis"])
        return ([o.indices for o in outs] + [o.values for o in outs]
                + [o.dense_shape for o in outs]), feeds
    if op == "transpose":
        return sparse_parts(tf.sparse.transpose(sp, c.get("perm"))), feeds
    if op == "indicator":
        return [tf.sparse.to_indicator(sp, c["vocab_size"])], feeds
    if op == "reset_shape":
        new_shape = ins[3] if len(ins) > 3 else c.get("new_shape")
        return sparse_parts(tf.sparse.reset_shape(sp, new_shape)), feeds
    if op == "softmax":
        return sparse_parts(tf.sparse.softmax(sp)), feeds
    b = tf.SparseTensor.__new__(tf.SparseTensor)
    b._indices, b._values, b._dense_shape = ins[3], ins[4], ins[5]
    b._dense_shape_default = tensor_util.constant_value_as_shape(ins[5])
    fn = tf.sparse.maximum if op == "maximum" else tf.sparse.minimum
    return sparse_parts(fn(sp, b)), feeds


def record(c):
    g = tf.Graph()
    with g.as_default():
        try:
            outs, feeds = build(c)
        except (ValueError, TypeError, tf.errors.OpError) as e:
            code = e.error_code if isinstance(e, tf.errors.OpError) else 3
            c["build_error"] = {"code": code, "message": build_message(e)}
            return c
        outs = [tf.convert_to_tensor(o) for o in outs]
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


def sparse(indices, dtype, values, shape, idx_dims=None, shapes=(None, None, None),
           const_shape=False):
    idx_dims = idx_dims or [len(indices), len(indices[0]) if indices else len(shape)]
    flat = [x for row in indices for x in row]
    specs = [tensor("int64", flat, idx_dims), tensor(dtype, values, [len(values)]),
             tensor("int64", shape, [len(shape)])]
    for s, sh in zip(specs, shapes):
        if sh is not None:
            s["shape"] = sh
    if const_shape:
        specs[2]["const"] = True
    return specs


def with_shape(spec, shape):
    return dict(spec, shape=shape)


CASES = []


def add(name, op, inputs, **kw):
    c = {"name": name, "op": op, "inputs": inputs}
    c.update(kw)
    CASES.append(c)


U = "unknown"
UU = (U, U, U)
I2 = [[0, 1], [2, 0], [2, 3], [4, 1]]

# --- fill_empty_rows -----------------------------------------------------------------------
for dt in DTYPES:
    add(f"fill_{dt}", "fill", sparse(I2, dt, sample(dt, 4), [6, 4]) +
        [tensor(dt, sample(dt, 1, 3), [])])
add("fill_unsorted", "fill",
    sparse([[3, 1], [0, 2], [3, 0], [0, 1]], "int32", [1, 2, 3, 4], [5, 3]) +
    [tensor("int32", [-1], [])])
add("fill_full_ordered", "fill",
    sparse([[0, 1], [1, 0], [1, 2], [2, 2]], "float32", [1.0, 2.0, 3.0, 4.0], [3, 3]) +
    [tensor("float32", [9.0], [])])
add("fill_full_unordered", "fill",
    sparse([[1, 0], [0, 1], [2, 2], [1, 2]], "float32", [1.0, 2.0, 3.0, 4.0], [3, 3]) +
    [tensor("float32", [9.0], [])])
add("fill_within_row_unsorted", "fill",
    sparse([[0, 2], [0, 1], [2, 0]], "int64", [5, 6, 7], [3, 3]) + [tensor("int64", [0], [])])
add("fill_rank1", "fill", sparse([[3], [1]], "float64", [1.0, 2.0], [5]) +
    [tensor("float64", [0.5], [])])
add("fill_rank3", "fill",
    sparse([[1, 0, 2], [1, 1, 0], [3, 2, 1]], "string", [b"a", b"b", b"c"], [4, 3, 3]) +
    [tensor("string", [b"zz"], [])])
add("fill_empty", "fill", sparse([], "float32", [], [3, 4]) + [tensor("float32", [7.0], [])])
add("fill_empty_rank3", "fill", sparse([], "bool", [], [2, 2, 2]) + [tensor("bool", [True], [])])
add("fill_zero_rows", "fill", sparse([], "int32", [], [0, 4]) + [tensor("int32", [1], [])])
add("fill_zero_rows_nonempty", "fill",
    sparse([[0, 0]], "int32", [1], [0, 4]) + [tensor("int32", [1], [])])
add("fill_zero_cols", "fill", sparse([], "int32", [], [2, 0]) + [tensor("int32", [1], [])])
add("fill_row_out_of_range", "fill",
    sparse([[0, 0], [5, 1]], "float32", [1.0, 2.0], [3, 3]) + [tensor("float32", [0.0], [])])
add("fill_row_negative", "fill",
    sparse([[0, 0], [-1, 1]], "float32", [1.0, 2.0], [3, 3]) + [tensor("float32", [0.0], [])])
add("fill_col_out_of_range_kept", "fill",
    sparse([[0, 9]], "float32", [1.0], [2, 3]) + [tensor("float32", [0.0], [])])
add("fill_const_shape", "fill",
    sparse([[1, 1]], "float32", [1.0], [3, 2], const_shape=True) + [tensor("float32", [0.0], [])])
add("fill_unknown_shapes", "fill",
    sparse([[1, 1]], "float32", [1.0], [3, 2], shapes=UU) +
    [with_shape(tensor("float32", [0.0], []), U)])
add("fill_default_vector_build", "fill",
    sparse([[1, 1]], "float32", [1.0], [3, 2]) + [tensor("float32", [0.0], [1])])
add("fill_default_vector_run", "fill",
    sparse([[1, 1]], "float32", [1.0], [3, 2], shapes=UU) +
    [with_shape(tensor("float32", [0.0], [1]), U)])
add("fill_values_mismatch_build", "fill",
    sparse([[1, 1]], "float32", [1.0, 2.0], [3, 2]) + [tensor("float32", [0.0], [])])
add("fill_values_mismatch_run", "fill",
    sparse([[1, 1]], "float32", [1.0, 2.0], [3, 2], shapes=UU) + [tensor("float32", [0.0], [])])
add("fill_rank_mismatch_build", "fill",
    sparse([[1, 1]], "float32", [1.0], [3, 2, 2]) + [tensor("float32", [0.0], [])])
add("fill_rank_mismatch_run", "fill",
    sparse([[1, 1]], "float32", [1.0], [3, 2, 2], shapes=UU) + [tensor("float32", [0.0], [])])
add("fill_indices_vector_build", "fill",
    sparse([[1, 1]], "float32", [1.0], [3, 2], idx_dims=[2]) + [tensor("float32", [0.0], [])])
add("fill_indices_vector_run", "fill",
    sparse([[1, 1]], "float32", [1.0], [3, 2], idx_dims=[2], shapes=UU) +
    [tensor("float32", [0.0], [])])
add("fill_values_matrix_run", "fill",
    [with_shape(tensor("int64", [0, 0], [1, 2]), U), with_shape(tensor("float32", [1.0], [1, 1]), U),
     with_shape(tensor("int64", [2, 2], [2]), U), tensor("float32", [0.0], [])])
add("fill_shape_scalar_run", "fill",
    [with_shape(tensor("int64", [0], [1, 1]), U), with_shape(tensor("float32", [1.0], [1]), U),
     with_shape(tensor("int64", [2], []), U), tensor("float32", [0.0], [])])
add("fill_shape_empty_build", "fill",
    [tensor("int64", [], [0, 0]), tensor("float32", [], [0]), tensor("int64", [], [0]),
     tensor("float32", [0.0], [])])
add("fill_shape_empty_run", "fill",
    [with_shape(tensor("int64", [], [0, 0]), U), with_shape(tensor("float32", [], [0]), U),
     with_shape(tensor("int64", [], [0]), U), tensor("float32", [0.0], [])])
add("fill_dtype_mismatch", "fill",
    sparse([[1, 1]], "float32", [1.0], [3, 2]) + [tensor("int32", [0], [])])

# --- retain --------------------------------------------------------------------------------
for dt in DTYPES:
    add(f"retain_{dt}", "retain",
        sparse(I2, dt, sample(dt, 4), [5, 4]) + [tensor("bool", [True, False, False, True], [4])])
add("retain_all", "retain",
    sparse([[0, 0], [1, 1]], "float32", [1.0, 2.0], [2, 2]) + [tensor("bool", [True, True], [2])])
add("retain_none", "retain",
    sparse([[0, 0], [1, 1]], "float32", [1.0, 2.0], [2, 2]) +
    [tensor("bool", [False, False], [2])])
add("retain_empty", "retain", sparse([], "int32", [], [2, 2]) + [tensor("bool", [], [0])])
add("retain_rank1", "retain",
    sparse([[4], [0], [2]], "int64", [1, 2, 3], [5]) + [tensor("bool", [False, True, True], [3])])
add("retain_rank3_unsorted", "retain",
    sparse([[1, 0, 1], [0, 2, 0], [1, 1, 1]], "string", [b"x", b"y", b"z"], [2, 3, 2]) +
    [tensor("bool", [True, True, False], [3])])
add("retain_length_mismatch_build", "retain",
    sparse([[0, 0], [1, 1]], "float32", [1.0, 2.0], [2, 2]) +
    [tensor("bool", [True, False, True], [3])])
add("retain_longer_run", "retain",
    sparse([[0, 0], [1, 1]], "float32", [1.0, 2.0], [2, 2], shapes=UU) +
    [with_shape(tensor("bool", [True, False, True], [3]), [None])])
add("retain_longer_false_run", "retain",
    sparse([[0, 0], [1, 1]], "float32", [1.0, 2.0], [2, 2], shapes=UU) +
    [with_shape(tensor("bool", [True, False, False], [3]), [None])])
add("retain_shorter_run", "retain",
    sparse([[0, 0], [1, 1], [1, 2]], "float32", [1.0, 2.0, 3.0], [2, 3], shapes=UU) +
    [with_shape(tensor("bool", [False, True], [2]), [None])])
add("retain_matrix_build", "retain",
    sparse([[0, 0], [1, 1]], "float32", [1.0, 2.0], [2, 2]) +
    [tensor("bool", [True, False], [1, 2])])
add("retain_unknown_rank_build", "retain",
    sparse([[0, 0], [1, 1]], "float32", [1.0, 2.0], [2, 2]) +
    [with_shape(tensor("bool", [True, False], [2]), U)])
add("retain_int_mask", "retain",
    sparse([[0, 0], [1, 1], [2, 0]], "float32", [1.0, 2.0, 3.0], [3, 2]) +
    [tensor("int32", [0, 5, -1], [3])])
add("retain_unknown_values", "retain",
    sparse([[0, 0], [1, 1]], "int32", [1, 2], [2, 2], shapes=(None, U, None)) +
    [tensor("bool", [False, True], [2])])

# --- slice ---------------------------------------------------------------------------------
S = [[0, 2], [0, 4], [0, 5], [1, 0], [1, 1], [3, 6]]


def i64(v):
    return tensor("int64", v, [len(v)])


for dt in DTYPES:
    add(f"slice_{dt}", "slice", sparse(S, dt, sample(dt, 6), [4, 7]) + [i64([0, 1]), i64([2, 4])])
add("slice_all", "slice", sparse(S, "int32", list(range(6)), [4, 7]) + [i64([0, 0]), i64([4, 7])])
add("slice_clipped", "slice",
    sparse(S, "int32", list(range(6)), [4, 7]) + [i64([1, 3]), i64([10, 10])])
add("slice_start_beyond", "slice",
    sparse(S, "int32", list(range(6)), [4, 7]) + [i64([5, 0]), i64([2, 2])])
add("slice_start_at_end", "slice",
    sparse(S, "int32", list(range(6)), [4, 7]) + [i64([4, 0]), i64([2, 2])])
add("slice_zero_size", "slice",
    sparse(S, "int32", list(range(6)), [4, 7]) + [i64([0, 0]), i64([0, 3])])
add("slice_empty_input", "slice", sparse([], "float32", [], [3, 3]) + [i64([1, 1]), i64([1, 1])])
add("slice_rank1", "slice", sparse([[1], [3], [6]], "float64", [1.0, 2.0, 3.0], [8]) +
    [i64([2]), i64([5])])
add("slice_rank3", "slice",
    sparse([[0, 0, 0], [0, 1, 2], [1, 1, 1], [1, 2, 0], [2, 2, 2]], "int64", [1, 2, 3, 4, 5],
           [3, 3, 3]) + [i64([0, 1, 0]), i64([2, 2, 2])])
add("slice_unsorted", "slice",
    sparse([[3, 6], [1, 1], [0, 4], [1, 0]], "int32", [1, 2, 3, 4], [4, 7]) +
    [i64([0, 0]), i64([2, 5])])
add("slice_negative_start", "slice",
    sparse(S, "int32", list(range(6)), [4, 7]) + [i64([-1, 0]), i64([2, 2])])
add("slice_negative_size", "slice",
    sparse(S, "int32", list(range(6)), [4, 7]) + [i64([0, 0]), i64([2, -2])])
add("slice_start_rank_mismatch", "slice",
    sparse(S, "int32", list(range(6)), [4, 7]) + [i64([0]), i64([2, 2])])
add("slice_size_rank_mismatch", "slice",
    sparse(S, "int32", list(range(6)), [4, 7]) + [i64([0, 0]), i64([2, 2, 2])])
add("slice_start_matrix", "slice",
    sparse(S, "int32", list(range(6)), [4, 7]) + [tensor("int64", [0, 0], [1, 2]), i64([2, 2])])
add("slice_indices_vector", "slice",
    sparse([[1, 1]], "float32", [1.0], [3, 2], idx_dims=[2], shapes=UU) + [i64([0, 0]), i64([1, 1])])
add("slice_values_mismatch", "slice",
    sparse([[1, 1]], "float32", [1.0, 2.0], [3, 2], shapes=UU) + [i64([0, 0]), i64([3, 3])])
add("slice_shape_rank_mismatch", "slice",
    sparse([[1, 1]], "float32", [1.0], [3, 2, 2], shapes=UU) + [i64([0, 0, 0]), i64([3, 3, 3])])
add("slice_const_shape", "slice",
    sparse([[1, 1]], "float32", [1.0], [3, 2], const_shape=True) + [i64([0, 0]), i64([3, 3])])
add("slice_out_of_bounds_index", "slice",
    sparse([[1, 9]], "float32", [1.0], [3, 2]) + [i64([0, 0]), i64([3, 10])])
add("slice_huge_size", "slice",
    sparse([[1, 1]], "float32", [1.0], [3, 2]) + [i64([1, 1]), i64([1 << 62, 1 << 62])])

# --- split ---------------------------------------------------------------------------------
SP = [[0, 2], [0, 4], [0, 5], [1, 0], [1, 1]]
for dt in DTYPES:
    add(f"split_{dt}", "split", sparse(SP, dt, sample(dt, 5), [2, 7]), num_split=2, axis=1)
for ax in [0, 1, -1, -2]:
    add(f"split_axis{ax}", "split", sparse(SP, "int32", list(range(5)), [2, 7]), num_split=2,
        axis=ax)
add("split_three_uneven", "split", sparse(SP, "int32", list(range(5)), [2, 7]), num_split=3,
    axis=1)
add("split_one", "split", sparse(SP, "int32", list(range(5)), [2, 7]), num_split=1, axis=1)
add("split_more_than_dim", "split", sparse(SP, "int32", list(range(5)), [2, 7]), num_split=3,
    axis=0)
add("split_rank1", "split", sparse([[0], [3], [5], [6]], "float64", [1.0, 2.0, 3.0, 4.0], [7]),
    num_split=3, axis=0)
add("split_rank3", "split",
    sparse([[0, 0, 0], [0, 1, 2], [1, 1, 1], [1, 2, 0], [2, 2, 2]], "string",
           [b"a", b"b", b"c", b"d", b"e"], [3, 3, 3]), num_split=2, axis=2)
add("split_unsorted", "split",
    sparse([[1, 1], [0, 5], [1, 0], [0, 2]], "int32", [1, 2, 3, 4], [2, 7]), num_split=2, axis=1)
add("split_empty", "split", sparse([], "float32", [], [4, 4]), num_split=2, axis=0)
add("split_axis_out_of_range", "split", sparse(SP, "int32", list(range(5)), [2, 7]), num_split=2,
    axis=2)
add("split_axis_negative_out_of_range", "split", sparse(SP, "int32", list(range(5)), [2, 7]),
    num_split=2, axis=-3)
add("split_zero", "split", sparse(SP, "int32", list(range(5)), [2, 7]), num_split=0, axis=1)
add("split_index_out_of_range", "split", sparse([[0, 9]], "int32", [1], [2, 7]), num_split=2,
    axis=1)
add("split_values_mismatch", "split",
    sparse([[0, 1]], "int32", [1, 2], [2, 7], shapes=UU), num_split=2, axis=1)
add("split_indices_vector", "split",
    sparse([[0, 1]], "int32", [1], [2, 7], idx_dims=[2], shapes=UU), num_split=2, axis=1)
add("split_rank_mismatch", "split",
    sparse([[0, 1]], "int32", [1], [2, 7, 3], shapes=UU), num_split=2, axis=1)
add("split_const_shape", "split",
    sparse([[0, 1]], "int32", [1], [2, 7], const_shape=True), num_split=2, axis=1)
add("split_unknown_shapes", "split",
    sparse([[0, 1]], "int32", [1], [2, 7], shapes=UU), num_split=2, axis=1)
add("split_zero_dim", "split", sparse([], "int32", [], [2, 0]), num_split=2, axis=1)

# --- transpose -----------------------------------------------------------------------------
T3 = [[0, 1, 2], [1, 0, 1], [1, 2, 0], [0, 0, 3]]
for dt in DTYPES:
    add(f"transpose_{dt}", "transpose", sparse(I2, dt, sample(dt, 4), [5, 4]))
add("transpose_rank3_default", "transpose",
    sparse(T3, "int32", [1, 2, 3, 4], [2, 3, 4]))
add("transpose_rank3_perm", "transpose",
    sparse(T3, "int32", [1, 2, 3, 4], [2, 3, 4]), perm=[1, 0, 2])
add("transpose_rank3_perm2", "transpose",
    sparse(T3, "float32", [1.0, 2.0, 3.0, 4.0], [2, 3, 4]), perm=[2, 0, 1])
add("transpose_identity", "transpose", sparse(T3, "int32", [1, 2, 3, 4], [2, 3, 4]),
    perm=[0, 1, 2])
add("transpose_rank1", "transpose", sparse([[3], [1]], "int32", [1, 2], [5]))
add("transpose_empty", "transpose", sparse([], "int32", [], [3, 2]))
add("transpose_const_shape", "transpose",
    sparse([[0, 1], [1, 0]], "int32", [1, 2], [2, 3], const_shape=True))
add("transpose_const_shape_perm", "transpose",
    sparse(T3, "int32", [1, 2, 3, 4], [2, 3, 4], const_shape=True), perm=[2, 0, 1])
add("transpose_unknown_shapes", "transpose",
    sparse([[0, 1], [1, 0]], "int32", [1, 2], [2, 3], shapes=(U, U, [None])))
add("transpose_bad_perm", "transpose", sparse(T3, "int32", [1, 2, 3, 4], [2, 3, 4]),
    perm=[0, 3, 1])
add("transpose_short_perm", "transpose", sparse(T3, "int32", [1, 2, 3, 4], [2, 3, 4]),
    perm=[1, 0])
add("transpose_repeated_perm", "transpose", sparse(T3, "int32", [1, 2, 3, 4], [2, 3, 4]),
    perm=[1, 1, 0])
add("transpose_negative_perm", "transpose", sparse(T3, "int32", [1, 2, 3, 4], [2, 3, 4]),
    perm=[-1, 0, 1])

# --- to_indicator --------------------------------------------------------------------------
for dt in ["int32", "int64"]:
    add(f"indicator_{dt}", "indicator",
        sparse([[0, 0], [0, 1], [1, 0], [1, 2]], dt, [1, 3, 0, 1], [3, 3]), vocab_size=4)
add("indicator_rank3", "indicator",
    sparse([[0, 0, 0], [0, 1, 0], [1, 0, 3], [1, 1, 1], [1, 1, 2], [1, 1, 3], [1, 2, 1]],
           "int64", [0, 10, 103, 150, 149, 150, 121], [2, 3, 4]), vocab_size=200)
add("indicator_rank1", "indicator", sparse([[0], [2]], "int64", [2, 0], [3]), vocab_size=3)
add("indicator_repeats", "indicator",
    sparse([[0, 0], [0, 1], [0, 2]], "int32", [2, 2, 2], [1, 3]), vocab_size=3)
add("indicator_empty", "indicator", sparse([], "int64", [], [2, 5]), vocab_size=2)
add("indicator_unsorted", "indicator",
    sparse([[1, 0], [0, 0]], "int64", [1, 0], [2, 2]), vocab_size=2)
add("indicator_out_of_range", "indicator",
    sparse([[0, 0], [1, 0]], "int64", [1, 5], [2, 2]), vocab_size=3)
add("indicator_negative", "indicator",
    sparse([[0, 0], [1, 0]], "int64", [1, -1], [2, 2]), vocab_size=3)
add("indicator_const_shape", "indicator",
    sparse([[0, 0], [1, 0]], "int64", [1, 0], [2, 2], const_shape=True), vocab_size=3)
add("indicator_float", "indicator", sparse([[0, 0]], "float32", [1.0], [2, 2]), vocab_size=3)
add("indicator_string", "indicator", sparse([[0, 0]], "string", [b"a"], [2, 2]), vocab_size=3)

# --- reset_shape ---------------------------------------------------------------------------
for dt in DTYPES:
    add(f"reset_{dt}", "reset_shape", sparse(I2, dt, sample(dt, 4), [9, 9]))
add("reset_rank3", "reset_shape", sparse(T3, "int32", [1, 2, 3, 4], [5, 5, 5]))
add("reset_empty", "reset_shape", sparse([], "int32", [], [5, 5]))
add("reset_new_shape", "reset_shape", sparse(I2, "int32", [1, 2, 3, 4], [5, 4]),
    new_shape=[7, 9])
add("reset_new_shape_const_input", "reset_shape",
    sparse(I2, "int32", [1, 2, 3, 4], [5, 4], const_shape=True), new_shape=[7, 9])
add("reset_new_shape_smaller_const", "reset_shape",
    sparse(I2, "int32", [1, 2, 3, 4], [5, 4], const_shape=True), new_shape=[4, 9])
add("reset_new_shape_smaller_run", "reset_shape",
    sparse(I2, "int32", [1, 2, 3, 4], [5, 4]), new_shape=[4, 9])
add("reset_new_shape_rank_build", "reset_shape",
    sparse(I2, "int32", [1, 2, 3, 4], [5, 4]), new_shape=[4, 9, 2])
add("reset_new_shape_rank_run", "reset_shape",
    sparse(I2, "int32", [1, 2, 3, 4], [5, 4], shapes=(None, None, [None])), new_shape=[5, 9, 2])
add("reset_new_shape_tensor", "reset_shape",
    sparse(I2, "int32", [1, 2, 3, 4], [5, 4]) + [tensor("int32", [6, 6], [2])])
add("reset_new_shape_tensor_small", "reset_shape",
    sparse(I2, "int32", [1, 2, 3, 4], [5, 4]) + [tensor("int64", [5, 3], [2])])
add("reset_new_shape_matrix", "reset_shape",
    sparse(I2, "int32", [1, 2, 3, 4], [5, 4]) + [tensor("int64", [5, 3], [1, 2])])

# --- softmax -------------------------------------------------------------------------------
SM = [[0, 0], [0, 2], [0, 3], [1, 1], [3, 0], [3, 3]]
for dt in ["float32", "float64"]:
    add(f"softmax_{dt}", "softmax", sparse(SM, dt, [1.0, 2.0, 3.0, -4.0, 0.5, 0.25], [4, 4]))
    add(f"softmax_large_{dt}", "softmax",
        sparse([[0, 0], [0, 1], [1, 0]], dt, [1000.0, 999.0, -1000.0], [2, 2]))
    add(f"softmax_specials_{dt}", "softmax",
        sparse([[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1]], dt,
               [float("inf"), 1.0, float("nan"), 2.0, float("-inf"), float("-inf")], [3, 2]))
add("softmax_rank3", "softmax",
    sparse([[0, 0, 0], [0, 0, 2], [0, 1, 1], [1, 1, 0], [1, 1, 1], [1, 1, 2]], "float32",
           [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], [2, 2, 3]))
add("softmax_rank1", "softmax", sparse([[0], [2], [3]], "float32", [1.0, 2.0, 3.0], [4]))
add("softmax_empty", "softmax", sparse([], "float32", [], [2, 2]))
add("softmax_unsorted", "softmax",
    sparse([[1, 1], [0, 0], [1, 0], [0, 1]], "float32", [1.0, 2.0, 3.0, 4.0], [2, 2]))
add("softmax_interleaved_rows", "softmax",
    sparse([[0, 0], [1, 0], [0, 1]], "float32", [1.0, 2.0, 3.0], [2, 2]))
add("softmax_int", "softmax", sparse([[0, 0]], "int32", [1], [2, 2]))
add("softmax_rank0", "softmax",
    [tensor("int64", [], [1, 0]), tensor("float32", [1.0], [1]), tensor("int64", [], [0])])
add("softmax_values_mismatch", "softmax",
    sparse([[0, 0]], "float32", [1.0, 2.0], [2, 2], shapes=UU))
add("softmax_indices_vector", "softmax",
    sparse([[0, 0]], "float32", [1.0], [2, 2], idx_dims=[2], shapes=UU))
add("softmax_indices_vector_build", "softmax",
    sparse([[0, 0]], "float32", [1.0], [2, 2], idx_dims=[2]))
add("softmax_shape_matrix", "softmax",
    [with_shape(tensor("int64", [0, 0], [1, 2]), U), with_shape(tensor("float32", [1.0], [1]), U),
     with_shape(tensor("int64", [2, 2], [1, 2]), U)])
add("softmax_rank_mismatch", "softmax",
    sparse([[0, 0]], "float32", [1.0], [2, 2, 2], shapes=UU))
add("softmax_out_of_bounds", "softmax", sparse([[0, 5]], "float32", [1.0], [2, 2]))
add("softmax_unknown_shapes", "softmax",
    sparse([[0, 0], [0, 1]], "float64", [1.0, 2.0], [2, 2], shapes=UU))

# --- maximum / minimum ---------------------------------------------------------------------
A = [[0, 0], [0, 2], [1, 1], [2, 0]]
B = [[0, 2], [1, 0], [1, 1], [2, 3]]
for op in ["maximum", "minimum"]:
    for dt in NUMERIC:
        add(f"{op}_{dt}", op, sparse(A, dt, sample(dt, 4), [3, 4]) +
            sparse(B, dt, sample(dt, 4, 2), [3, 4]))
    add(f"{op}_rank1", op, sparse([[0], [3]], "float32", [-1.0, 2.0], [5]) +
        sparse([[3], [4]], "float32", [5.0, -6.0], [5]))
    add(f"{op}_rank3", op,
        sparse([[0, 0, 1], [1, 1, 1]], "int32", [4, -4], [2, 2, 2]) +
        sparse([[0, 0, 1], [1, 0, 0]], "int32", [3, 9], [2, 2, 2]))
    add(f"{op}_empty_a", op, sparse([], "float32", [], [2, 2]) +
        sparse([[1, 1]], "float32", [-3.0], [2, 2]))
    add(f"{op}_both_empty", op, sparse([], "int64", [], [2, 2]) + sparse([], "int64", [], [2, 2]))
    add(f"{op}_nan", op, sparse([[0, 0], [0, 1]], "float32", [float("nan"), 1.0], [2, 2]) +
        sparse([[0, 0], [0, 1]], "float32", [1.0, float("nan")], [2, 2]))
    add(f"{op}_shape_mismatch", op, sparse([[0, 0]], "float32", [1.0], [2, 2]) +
        sparse([[0, 0]], "float32", [1.0], [2, 3]))
    add(f"{op}_rank_mismatch", op, sparse([[0, 0]], "float32", [1.0], [2, 2]) +
        sparse([[0, 0, 0]], "float32", [1.0], [2, 2, 2]))
    add(f"{op}_unsorted_a", op, sparse([[1, 1], [0, 0]], "float32", [1.0, 2.0], [2, 2]) +
        sparse([[0, 0]], "float32", [3.0], [2, 2]))
    add(f"{op}_repeated", op, sparse([[0, 0], [0, 0]], "float32", [1.0, 2.0], [2, 2]) +
        sparse([[0, 0]], "float32", [3.0], [2, 2]))
    add(f"{op}_out_of_bounds", op, sparse([[0, 5]], "float32", [1.0], [2, 2]) +
        sparse([[0, 0]], "float32", [3.0], [2, 2]))
    add(f"{op}_values_mismatch", op, sparse([[0, 0]], "float32", [1.0, 2.0], [2, 2], shapes=UU) +
        sparse([[0, 0]], "float32", [3.0], [2, 2]))
    add(f"{op}_indices_vector", op,
        sparse([[0, 0]], "float32", [1.0], [2, 2], idx_dims=[2], shapes=UU) +
        sparse([[0, 0]], "float32", [3.0], [2, 2]))
    add(f"{op}_indices_vector_build", op,
        sparse([[0, 0]], "float32", [1.0], [2, 2], idx_dims=[2]) +
        sparse([[0, 0]], "float32", [3.0], [2, 2]))
    add(f"{op}_index_rank_mismatch", op,
        sparse([[0, 0]], "float32", [1.0], [2, 2, 2], shapes=UU) +
        sparse([[0, 0]], "float32", [3.0], [2, 2]))
    add(f"{op}_bool", op, sparse([[0, 0]], "bool", [True], [2, 2]) +
        sparse([[0, 0]], "bool", [False], [2, 2]))
    add(f"{op}_dtype_mismatch", op, sparse([[0, 0]], "float32", [1.0], [2, 2]) +
        sparse([[0, 0]], "float64", [3.0], [2, 2]))

# --- more edge cases -----------------------------------------------------------------------
add("fill_negative_rows", "fill", sparse([], "float32", [], [-2, 3]) +
    [tensor("float32", [0.0], [])])
add("fill_rank1_full", "fill", sparse([[0], [1]], "int8", [1, 2], [2]) + [tensor("int8", [0], [])])
add("fill_string_unsorted", "fill",
    sparse([[2, 0], [0, 1], [2, 1]], "string", [b"c", b"a", b"d"], [4, 2]) +
    [tensor("string", [b""], [])])
add("slice_negative_shape", "slice", sparse([], "float32", [], [-2, 3]) +
    [i64([0, 0]), i64([1, 1])])
add("slice_values_matrix", "slice",
    [with_shape(tensor("int64", [0, 0], [1, 2]), U), with_shape(tensor("float32", [1.0], [1, 1]), U),
     with_shape(tensor("int64", [2, 2], [2]), U), i64([0, 0]), i64([1, 1])])
add("slice_size_matrix", "slice",
    sparse(S, "int32", list(range(6)), [4, 7]) + [i64([0, 0]), tensor("int64", [2, 2], [2, 1])])
add("slice_bool_rank3_unsorted", "slice",
    sparse([[2, 2, 2], [0, 1, 0], [1, 1, 1], [0, 0, 0]], "bool", [True, False, True, True],
           [3, 3, 3]) + [i64([0, 0, 0]), i64([3, 2, 2])])
add("split_negative_shape", "split", sparse([], "float32", [], [-2, 3]), num_split=2, axis=1)
add("split_values_matrix", "split",
    [with_shape(tensor("int64", [0, 0], [1, 2]), U), with_shape(tensor("float32", [1.0], [1, 1]), U),
     with_shape(tensor("int64", [2, 2], [2]), U)], num_split=2, axis=1)
add("split_shape_matrix", "split",
    [with_shape(tensor("int64", [0, 0], [1, 2]), U), with_shape(tensor("float32", [1.0], [1]), U),
     with_shape(tensor("int64", [2, 2], [1, 2]), U)], num_split=1, axis=0)
add("split_rank3_axis0_five", "split",
    sparse([[0, 0, 0], [1, 1, 2], [2, 1, 1], [3, 2, 0], [4, 2, 2], [6, 0, 1]], "uint16",
           [1, 2, 3, 4, 5, 6], [7, 3, 3]), num_split=5, axis=-3)
add("split_negative_index", "split", sparse([[0, -1]], "int32", [1], [2, 7]), num_split=2,
    axis=1)
add("transpose_string_rank3", "transpose",
    sparse(T3, "string", [b"a", b"b", b"c", b"d"], [2, 3, 4]), perm=[2, 1, 0])
add("transpose_unknown_rank", "transpose",
    sparse(T3, "int32", [1, 2, 3, 4], [2, 3, 4], shapes=(None, None, U)))
add("transpose_unsorted", "transpose",
    sparse([[1, 2], [0, 0], [1, 0]], "float64", [1.0, 2.0, 3.0], [2, 3]))
add("indicator_rank1_unsorted", "indicator",
    sparse([[3], [0]], "int32", [4, 1], [5]), vocab_size=6)
add("indicator_uint8", "indicator", sparse([[0, 0]], "uint8", [2], [1, 1]), vocab_size=3)
add("reset_unsorted", "reset_shape",
    sparse([[1, 5], [3, 0], [0, 2]], "float32", [1.0, 2.0, 3.0], [9, 9]))
add("reset_rank1", "reset_shape", sparse([[2], [7]], "string", [b"x", b"y"], [10]))
add("reset_new_shape_equal", "reset_shape",
    sparse(I2, "int32", [1, 2, 3, 4], [5, 4], const_shape=True), new_shape=[5, 4])
add("reset_new_shape_unknown", "reset_shape",
    sparse(I2, "int32", [1, 2, 3, 4], [5, 4]) + [with_shape(tensor("int64", [6, 4], [2]), [None])])
add("softmax_long_row_float32", "softmax",
    sparse([[0, k] for k in range(37)] + [[1, k] for k in range(0, 40, 2)], "float32",
           [((k * 7919) % 97) / 13.0 - 3.0 for k in range(57)], [2, 40]))
add("softmax_long_row_float64", "softmax",
    sparse([[0, k] for k in range(37)] + [[1, k] for k in range(0, 40, 2)], "float64",
           [((k * 7919) % 97) / 13.0 - 3.0 for k in range(57)], [2, 40]))
add("softmax_negative_shape", "softmax", sparse([[0, 0]], "float32", [1.0], [-2, 3]))
add("softmax_rank3_unsorted", "softmax",
    sparse([[1, 0, 1], [0, 1, 0], [1, 0, 0], [0, 1, 2], [0, 0, 0]], "float64",
           [0.5, -1.0, 2.0, 3.0, 7.0], [2, 2, 3]))
for op in ["maximum", "minimum"]:
    add(f"{op}_unsorted_b", op, sparse([[0, 0], [1, 1]], "int16", [5, -5], [2, 2]) +
        sparse([[1, 1], [0, 1]], "int16", [1, 2], [2, 2]))
    add(f"{op}_shape_matrix", op,
        [with_shape(tensor("int64", [0, 0], [1, 2]), U), with_shape(tensor("float32", [1.0], [1]), U),
         with_shape(tensor("int64", [2, 2], [1, 2]), U)] + sparse([[0, 0]], "float32", [3.0], [2, 2]))
    add(f"{op}_negative_shape", op, sparse([], "float32", [], [-2, 3]) +
        sparse([], "float32", [], [-2, 3]))
    add(f"{op}_b_out_of_bounds", op, sparse([[0, 0]], "uint8", [1], [2, 2]) +
        sparse([[2, 0]], "uint8", [3], [2, 2]))
    add(f"{op}_string", op, sparse([[0, 0]], "string", [b"a"], [2, 2]) +
        sparse([[0, 0]], "string", [b"b"], [2, 2]))
    add(f"{op}_rank3_infs", op,
        sparse([[0, 0, 0], [0, 1, 1]], "float64", [float("-inf"), float("inf")], [1, 2, 2]) +
        sparse([[0, 0, 0], [0, 1, 0]], "float64", [-0.0, float("-inf")], [1, 2, 2]))

for n in [8, 9, 16, 31, 32, 33, 64, 100, 257]:
    for dt in ["float32", "float64"]:
        vals = [(((k + n) * 7919) % 211) / 17.0 - 6.0 for k in range(n + 3)]
        add(f"softmax_row{n}_{dt}", "softmax",
            sparse([[0, k] for k in range(n)] + [[2, 1], [2, 4], [2, 5]], dt, vals, [3, n + 5]))

if __name__ == "__main__":
    out = [record(c) for c in CASES]
    names = [c["name"] for c in out]
    assert len(names) == len(set(names)), "duplicate case names"
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"{len(out)} cases")
