"""Records TensorFlow 2.21's sparse serialization ops into expected.json.

Run with TensorFlow 2.21:  python make_sparse_serialize.py  (writes expected.json next to it).

Each case builds one op in a tf.compat.v1 graph and runs it in a Session: "serialize"
(`SerializeSparse`), "serialize_many" (`SerializeManySparse`), "deserialize"
(`DeserializeSparse`) or "deserialize_many" (`tf.io.deserialize_many_sparse`, with `rank`
when the case has one). Every input is a placeholder fed its value, of the value's own static
shape unless the input has `shape` (a list with null for an unknown dim, or "unknown"), so
shape functions and kernels are both exercised and nothing is constant-folded. A tensor is
{dtype, dims, values}: values flat, float32/float64 as their bit patterns, strings as base64.
Inputs of the deserialize cases are bytes TensorFlow serialized (or protos built here).
Recorded: `static_shapes` and `outputs` (tensors as above), or the error (`build_error` when
building failed, `error` when running did) as TensorFlow's canonical code and message, without
TensorFlow's " for '{{node ...}}'" suffix. Cases that crash TensorFlow 2.21 (int32 indices or a
negative dense dimension inside a batch given to DeserializeSparse) are left out.
"""
import base64
import json
import os
import struct

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.core.framework import tensor_pb2, tensor_shape_pb2, types_pb2

tf.disable_eager_execution()

DTYPES = ["float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
          "bool", "string"]


def b64(b):
    return base64.b64encode(b).decode()


def sample(dtype, n, seed=0):
    """n distinct-ish values of dtype."""
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


def placeholder(spec):
    shape = spec.get("shape", spec["dims"])
    shape = None if shape == "unknown" else shape
    p = tf.placeholder(tf.as_dtype(spec["dtype"]), shape)
    return p, np_of(spec)


def build(c):
    feeds = {}
    ins = []
    for spec in c["inputs"]:
        p, v = placeholder(spec)
        feeds[p] = v
        ins.append(p)
    op = c["op"]
    if op == "serialize":
        return [tf.raw_ops.SerializeSparse(sparse_indices=ins[0], sparse_values=ins[1],
                                           sparse_shape=ins[2])], feeds
    if op == "serialize_many":
        return [tf.raw_ops.SerializeManySparse(sparse_indices=ins[0], sparse_values=ins[1],
                                               sparse_shape=ins[2])], feeds
    dtype = tf.as_dtype(c["dtype"])
    if op == "deserialize":
        return list(tf.raw_ops.DeserializeSparse(serialized_sparse=ins[0], dtype=dtype)), feeds
    sp = tf.io.deserialize_many_sparse(ins[0], dtype, rank=c.get("rank"))
    return [sp.indices, sp.values, sp.dense_shape], feeds


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
        if c["op"].startswith("serialize"):
            c["outputs"] = [spec_of(v[0], "string")]
        else:
            c["outputs"] = [spec_of(v[0], "int64"), spec_of(v[1], c["dtype"]),
                            spec_of(v[2], "int64")]
    return c


def sparse_inputs(indices, dtype, values, shape, idx_dims=None, shapes=(None, None, None)):
    idx_dims = idx_dims or [len(indices), len(indices[0]) if indices else len(shape)]
    flat = [x for row in indices for x in row]
    specs = [tensor("int64", flat, idx_dims), tensor(dtype, values, [len(values)]),
             tensor("int64", shape, [len(shape)])]
    for s, sh in zip(specs, shapes):
        if sh is not None:
            s["shape"] = sh
    return specs


def serialize_bytes(op, indices, dtype, values, shape):
    c = record({"name": "", "op": op, "inputs": sparse_inputs(indices, dtype, values, shape)})
    out = c["outputs"][0]
    return [base64.b64decode(v) for v in out["values"]], out["dims"]


def proto(dtype, dims, **kw):
    p = tensor_pb2.TensorProto(
        dtype=dtype,
        tensor_shape=tensor_shape_pb2.TensorShapeProto(
            dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in dims]),
        **kw)
    return p.SerializeToString()


def strings(byte_list, dims, shape=None):
    s = tensor("string", byte_list, dims)
    if shape is not None:
        s["shape"] = shape
    return s


CASES = []


def add(name, op, inputs, **kw):
    c = {"name": name, "op": op, "inputs": inputs}
    c.update(kw)
    CASES.append(c)


U = "unknown"
# --- SerializeSparse ---------------------------------------------------------------------
for dt in DTYPES:
    add(f"ser_{dt}", "serialize", sparse_inputs([[0, 1], [1, 0], [2, 3]], dt, sample(dt, 3),
                                                [3, 4]))
    add(f"ser_empty_{dt}", "serialize", sparse_inputs([], dt, [], [2, 5]))
add("ser_nan_specials", "serialize", sparse_inputs([[i] for i in range(6)], "float32",
                                                   sample("float32", 6), [6]))
add("ser_f64_specials", "serialize", sparse_inputs([[i] for i in range(6)], "float64",
                                                   sample("float64", 6), [9]))
add("ser_rank1", "serialize", sparse_inputs([[4], [1]], "int32", [1, 2], [5]))
add("ser_rank3", "serialize", sparse_inputs([[0, 1, 2], [1, 0, 0]], "string", [b"x", b"yz"],
                                            [2, 2, 3]))
add("ser_rank0", "serialize", sparse_inputs([[]], "float32", [2.0], [], idx_dims=[1, 0]))
add("ser_unsorted", "serialize", sparse_inputs([[1, 1], [0, 0]], "int64", [9, 8], [2, 2]))
add("ser_negative_shape", "serialize", sparse_inputs([[0]], "int64", [1], [-4]))
add("ser_mismatch_unchecked", "serialize",
    sparse_inputs([[0, 0]], "float32", [1.0, 2.0], [2, 3, 4], shapes=(U, U, U)))
add("ser_indices_vector_build", "serialize",
    sparse_inputs([[0, 1]], "float32", [1.0], [3], idx_dims=[2]))
add("ser_indices_vector_run", "serialize",
    sparse_inputs([[0, 1]], "float32", [1.0], [3], idx_dims=[2], shapes=(U, U, U)))
add("ser_values_matrix_build", "serialize",
    [tensor("int64", [0], [1, 1]), tensor("float32", [1.0], [1, 1]), tensor("int64", [3], [1])])
add("ser_values_matrix_run", "serialize",
    [dict(tensor("int64", [0], [1, 1]), shape=U), dict(tensor("float32", [1.0], [1, 1]), shape=U),
     dict(tensor("int64", [3], [1]), shape=U)])
add("ser_shape_scalar_run", "serialize",
    [dict(tensor("int64", [0], [1, 1]), shape=U), dict(tensor("float32", [1.0], [1]), shape=U),
     dict(tensor("int64", [3], []), shape=U)])
add("ser_shape_scalar_build", "serialize",
    [tensor("int64", [0], [1, 1]), tensor("float32", [1.0], [1]), tensor("int64", [3], [])])

# --- SerializeManySparse -----------------------------------------------------------------
for dt in DTYPES:
    add(f"many_{dt}", "serialize_many",
        sparse_inputs([[0, 1], [0, 3], [2, 0]], dt, sample(dt, 3, 1), [4, 5]))
add("many_rank3", "serialize_many",
    sparse_inputs([[0, 0, 1], [0, 2, 0], [1, 1, 1], [3, 0, 0]], "float32",
                  [1.0, 2.0, 3.0, 4.0], [4, 3, 2]))
add("many_all_empty", "serialize_many", sparse_inputs([], "string", [], [3, 4]))
add("many_zero_rows", "serialize_many", sparse_inputs([], "int32", [], [0, 4]))
add("many_zero_cols", "serialize_many", sparse_inputs([], "int32", [], [2, 0]))
add("many_rank1", "serialize_many", sparse_inputs([[0]], "float32", [1.0], [2]))
add("many_unsorted", "serialize_many",
    sparse_inputs([[1, 0], [0, 1]], "float32", [1.0, 2.0], [2, 3]))
add("many_unsorted_inner", "serialize_many",
    sparse_inputs([[0, 2], [0, 1]], "float32", [1.0, 2.0], [2, 3]))
add("many_repeated", "serialize_many",
    sparse_inputs([[0, 0], [0, 0]], "float32", [1.0, 2.0], [2, 3]))
add("many_row_out_of_range", "serialize_many",
    sparse_inputs([[0, 0], [3, 1]], "float32", [1.0, 2.0], [2, 3]))
add("many_col_out_of_range", "serialize_many",
    sparse_inputs([[0, 5]], "float32", [1.0], [2, 3]))
add("many_negative_index", "serialize_many",
    sparse_inputs([[0, 1], [1, -1]], "float32", [1.0, 2.0], [2, 3]))
add("many_negative_shape", "serialize_many", sparse_inputs([], "float32", [], [-1, 3]))
add("many_negative_inner_shape", "serialize_many", sparse_inputs([], "float32", [], [2, -3]))
add("many_shape_overflow", "serialize_many",
    sparse_inputs([], "float32", [], [2, 1 << 62, 4]))
add("many_values_mismatch", "serialize_many",
    sparse_inputs([[0, 0]], "float32", [1.0, 2.0], [2, 3], shapes=(U, U, U)))
add("many_rank_mismatch", "serialize_many",
    sparse_inputs([[0, 0]], "float32", [1.0], [2, 3, 4]))
add("many_indices_vector_build", "serialize_many",
    sparse_inputs([[0, 1]], "float32", [1.0], [3, 2], idx_dims=[2]))
add("many_indices_vector_run", "serialize_many",
    sparse_inputs([[0, 1]], "float32", [1.0], [3, 2], idx_dims=[2], shapes=(U, U, U)))
add("many_unknown_shapes", "serialize_many",
    sparse_inputs([[1, 1]], "bool", [True], [2, 2], shapes=(U, [None], U)))

# --- DeserializeSparse -------------------------------------------------------------------
for dt in DTYPES:
    one, _ = serialize_bytes("serialize", [[0, 1], [1, 0], [2, 3]], dt, sample(dt, 3), [3, 4])
    add(f"de_p0_{dt}", "deserialize", [strings(one, [3])], dtype=dt)
    many, dims = serialize_bytes("serialize_many", [[0, 1], [0, 3], [2, 0]], dt,
                                 sample(dt, 3, 1), [4, 5])
    add(f"de_p1_{dt}", "deserialize", [strings(many, dims)], dtype=dt)
    add(f"demany_{dt}", "deserialize_many", [strings(many, dims)], dtype=dt)
a, _ = serialize_bytes("serialize", [[0, 1], [1, 2]], "float32", [1.0, 2.0], [2, 3])
b, _ = serialize_bytes("serialize", [[3, 0]], "float32", [5.0], [4, 1])
e, _ = serialize_bytes("serialize", [], "float32", [], [1, 7])
u, _ = serialize_bytes("serialize", [[1, 1], [0, 2], [1, 0]], "float32", [7.0, 8.0, 9.0], [2, 3])
r3, _ = serialize_bytes("serialize", [[0, 0, 1]], "float32", [1.0], [1, 1, 5])
s0, _ = serialize_bytes("serialize", [[]], "int32", [4], [])
s0e, _ = serialize_bytes("serialize", [], "int32", [], [])
i32 = serialize_bytes("serialize", [[0, 0]], "int32", [3], [1, 1])[0]
add("de_p1_one", "deserialize", [strings(a, [1, 3])], dtype="float32")
add("de_p1_max_shape", "deserialize", [strings(a + b + e, [3, 3])], dtype="float32")
add("de_p2_max_shape", "deserialize", [strings(a + b + e + u, [2, 2, 3])], dtype="float32")
add("de_p2_wide", "deserialize", [strings(e + a + b + e + u + a, [2, 3, 3])], dtype="float32")
add("de_p3", "deserialize", [strings(b + a + u + e, [2, 1, 2, 3])], dtype="float32")
add("de_unsorted_kept", "deserialize", [strings(u + a, [2, 3])], dtype="float32")
add("de_p0_unsorted", "deserialize", [strings(u, [3])], dtype="float32")
add("de_scalar_elements", "deserialize", [strings(s0 + s0e + s0, [3, 3])], dtype="int32")
add("de_scalar_p0", "deserialize", [strings(s0, [3])], dtype="int32")
add("de_scalar_p2", "deserialize", [strings(s0 + s0 + s0e + s0, [2, 2, 3])], dtype="int32")
add("de_unknown_shape", "deserialize", [strings(a + b, [2, 3], shape=U)], dtype="float32")
add("de_partial_shape", "deserialize", [strings(a + b, [2, 3], shape=[None, None])],
    dtype="float32")
add("de_zero_prefix", "deserialize", [strings([], [0, 3])], dtype="float32")
add("de_zero_prefix_inner", "deserialize", [strings([], [2, 0, 3])], dtype="float32")
add("de_scalar_build", "deserialize", [strings([b""], [])], dtype="float32")
add("de_scalar_run", "deserialize", [strings([b""], [], shape=U)], dtype="float32")
add("de_last_4_build", "deserialize", [strings(a + [b""], [4])], dtype="float32")
add("de_last_4_run", "deserialize", [strings(a + [b""], [4], shape=U)], dtype="float32")
add("de_last_2_run", "deserialize", [strings(a[:2] * 2, [2, 2], shape=[None, None])],
    dtype="float32")
add("de_dtype_p0", "deserialize", [strings(a, [3])], dtype="int32")
add("de_dtype_p1", "deserialize", [strings(a + i32, [2, 3])], dtype="float32")
add("de_dtype_string", "deserialize", [strings(a, [1, 3])], dtype="string")
add("de_rank_differs", "deserialize", [strings(a + r3, [2, 3])], dtype="float32")
add("de_rank_differs_scalar", "deserialize", [strings(s0 + i32, [2, 3])], dtype="int32")
garbage = b"\xff\xff\xff"
for col in range(3):
    bad = list(a)
    bad[col] = garbage
    add(f"de_garbage_col{col}", "deserialize", [strings(a + bad, [2, 3])], dtype="float32")
    bad[col] = b""
    add(f"de_empty_col{col}", "deserialize", [strings(bad, [3])], dtype="float32")
add("de_garbage_p0", "deserialize", [strings([b"x", b"y", b"z"], [3])], dtype="float32")
F, I64, I32, STR = types_pb2.DT_FLOAT, types_pb2.DT_INT64, types_pb2.DT_INT32, types_pb2.DT_STRING
good_idx = proto(I64, [1, 1], int64_val=[2])
good_val = proto(F, [1], float_val=[1.5])
good_shape = proto(I64, [1], int64_val=[5])
add("de_indices_vector", "deserialize",
    [strings([proto(I64, [2], int64_val=[1, 2]), good_val, good_shape], [3])], dtype="float32")
add("de_values_matrix", "deserialize",
    [strings([good_idx, proto(F, [1, 1], float_val=[1.0]), good_shape], [1, 3])],
    dtype="float32")
add("de_shape_matrix", "deserialize",
    [strings([good_idx, good_val, proto(I64, [1, 1], int64_val=[5])], [3])], dtype="float32")
add("de_row_mismatch", "deserialize",
    [strings(a + [good_idx, proto(F, [2], float_val=[1.0, 2.0]), good_shape], [2, 3])],
    dtype="float32")
add("de_col_mismatch", "deserialize",
    [strings([good_idx, good_val, proto(I64, [2], int64_val=[5, 5])], [3])], dtype="float32")
add("de_fill_values", "deserialize",
    [strings([proto(I64, [3, 1], int64_val=[2]), proto(F, [3], float_val=[1.5, 2.0]),
              good_shape], [3])], dtype="float32")
add("de_fill_zero", "deserialize",
    [strings([proto(I64, [2, 1]), proto(F, [2]), good_shape], [1, 3])], dtype="float32")
add("de_extra_values", "deserialize",
    [strings([good_idx, proto(F, [1], float_val=[1.5, 2.0]), good_shape], [3])],
    dtype="float32")
add("de_extra_strings", "deserialize",
    [strings([good_idx, proto(STR, [1], string_val=[b"a", b"b"]), good_shape], [3])],
    dtype="string")
add("de_fill_strings", "deserialize",
    [strings([proto(I64, [2, 1], int64_val=[2]), proto(STR, [2], string_val=[b"a"]),
              good_shape], [1, 3])], dtype="string")
add("de_string_content", "deserialize",
    [strings([proto(I64, [2, 1], int64_val=[0, 3]),
              proto(STR, [2], tensor_content=b"\x03\x00abc"), good_shape], [1, 3])],
    dtype="string")
add("de_string_content_short", "deserialize",
    [strings([good_idx, proto(STR, [1], tensor_content=b"\x05abc"), good_shape], [3])],
    dtype="string")
add("de_string_content_long", "deserialize",
    [strings([good_idx, proto(STR, [1], tensor_content=b"\x01ab"), good_shape], [3])],
    dtype="string")
add("de_string_content_no_lengths", "deserialize",
    [strings([good_idx, proto(STR, [4], tensor_content=b"\x01a"), good_shape], [3])],
    dtype="string")
add("de_bad_content", "deserialize",
    [strings([good_idx, proto(F, [1], tensor_content=b"abc"), good_shape], [3])],
    dtype="float32")
add("de_negative_proto_dim", "deserialize",
    [strings([good_idx, proto(F, [-1]), good_shape], [3])], dtype="float32")
add("de_int32_indices_p0", "deserialize",
    [strings([proto(I32, [1, 1], int_val=[2]), good_val, good_shape], [3])], dtype="float32")
add("de_int32_shape_p0", "deserialize",
    [strings([good_idx, good_val, proto(I32, [1], int_val=[5])], [3])], dtype="float32")
add("de_negative_shape_p0", "deserialize",
    [strings([good_idx, good_val, proto(I64, [1], int64_val=[-5])], [3])], dtype="float32")
small_shape = proto(I64, [1], int64_val=[1])
add("de_out_of_bounds_p1", "deserialize", [strings([good_idx, good_val, small_shape], [1, 3])],
    dtype="float32")
add("de_out_of_bounds_p2", "deserialize",
    [strings([good_idx, good_val, small_shape] * 4, [2, 2, 3])], dtype="float32")
add("de_negative_index_p2", "deserialize",
    [strings([proto(I64, [1, 1], int64_val=[-3]), good_val, proto(I64, [1], int64_val=[2])] * 4,
             [2, 2, 3])], dtype="float32")
huge = proto(I64, [1], int64_val=[1 << 62])
add("de_shape_overflow_p1", "deserialize", [strings([good_idx, good_val, huge] * 4, [4, 3])],
    dtype="float32")
add("de_shape_overflow_p2", "deserialize",
    [strings([good_idx, good_val, huge] * 4, [2, 2, 3])], dtype="float32")

# --- DeserializeManySparse ---------------------------------------------------------------
add("demany_rank", "deserialize_many", [strings(a + b, [2, 3])], dtype="float32", rank=3)
add("demany_rank_wrong", "deserialize_many", [strings(a + b, [2, 3])], dtype="float32", rank=5)
add("demany_rank_unknown_input", "deserialize_many", [strings(a + b, [2, 3], shape=U)],
    dtype="float32", rank=3)
add("demany_max_shape", "deserialize_many", [strings(a + b + e + u, [4, 3])], dtype="float32")
add("demany_scalars", "deserialize_many", [strings(s0 + s0e, [2, 3])], dtype="int32")
add("demany_vector_build", "deserialize_many", [strings(a, [3])], dtype="float32")
add("demany_vector_run", "deserialize_many", [strings(a, [3], shape=U)], dtype="float32")
add("demany_rank3_build", "deserialize_many", [strings(a + b, [1, 2, 3])], dtype="float32")
add("demany_rank3_run", "deserialize_many", [strings(a + b, [2, 1, 3], shape=U)],
    dtype="float32")
add("demany_cols_build", "deserialize_many", [strings(a + b[:1], [1, 4])], dtype="float32")
add("demany_cols_run", "deserialize_many", [strings(a + b[:1], [1, 4], shape=[None, None])],
    dtype="float32")
add("demany_empty", "deserialize_many", [strings([], [0, 3])], dtype="float32")
add("demany_dtype", "deserialize_many", [strings(a + b, [2, 3])], dtype="float64")
add("demany_rank_differs", "deserialize_many", [strings(r3 + a, [2, 3])], dtype="float32")
add("demany_garbage", "deserialize_many", [strings(a + [b"\x08", b"", b""], [2, 3])],
    dtype="float32")

if __name__ == "__main__":
    out = [record(c) for c in CASES]
    names = [c["name"] for c in out]
    assert len(names) == len(set(names)), "duplicate case names"
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"{len(out)} cases")
