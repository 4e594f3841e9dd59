"""Records TensorFlow 2.21's sparse feature crosses into expected.json.

Run with TensorFlow 2.21:  python make_sparse_cross.py  (writes expected.json next to it).

Each case builds one cross in a tf.compat.v1 graph and runs it in a Session. The ops ("op"):
"cross" (`tf.sparse.cross(inputs, separator=...)`, op `SparseCrossV2`), "cross_hashed"
(`tf.sparse.cross_hashed(inputs, num_buckets, hash_key)`, op `SparseCross`), and the raw ops
"raw_v1" (`tf.raw_ops.SparseCross` with `attrs`), "raw_v2" (`tf.raw_ops.SparseCrossV2` with the
`sep` tensor) and "raw_hashed" (`tf.raw_ops.SparseCrossHashed` with the `num_buckets`,
`strong_hash` and `salt` tensors).

The builders' `inputs` is a list of {"sparse": [indices, values, dense_shape]} and {"dense": t}.
The raw ops' `lists` holds the op's four input lists: indices, values, shapes, dense_inputs.
Every tensor is a placeholder fed its value, of the value's own static shape unless the spec has
`shape` ("unknown" for an unknown rank). A tensor is {dtype, dims, values}: values flat,
float32 as bit patterns, strings as base64. Sparse tensors are grouped without TensorFlow's
SparseTensor constructor checks, so the kernels meet ill-shaped inputs.

Recorded: `static_shapes` and `outputs` (the cross's indices, values and dense shape), or the
error (`build_error` when building failed, `error` when running did) as TensorFlow's canonical
code and message, without the " for '{{node ...}}'" suffix. A batch size below zero is not
recorded: TensorFlow's kernel crashes the process on it.
"""
import base64
import json
import os

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.python.framework import tensor_util

tf.disable_eager_execution()


def b64(b):
    return base64.b64encode(b).decode()


def np_of(spec):
    dt, dims, vals = spec["dtype"], spec["dims"], spec["values"]
    if dt == "string":
        return np.array([base64.b64decode(v) for v in vals], dtype=object).reshape(dims)
    if dt == "float32":
        return np.array(vals, dtype=np.uint32).view(np.float32).reshape(dims)
    return np.array(vals, dtype=dt).reshape(dims)


def spec_of(arr, dtype):
    arr = np.asarray(arr) if dtype != "string" else np.asarray(arr, dtype=object)
    dims = list(arr.shape)
    flat = arr.reshape(-1).tolist()
    if dtype == "string":
        vals = [b64(v) for v in flat]
    elif dtype == "float32":
        vals = np.asarray(flat, dtype=np.float32).view(np.uint32).tolist()
    elif dtype == "bool":
        vals = [bool(v) for v in flat]
    else:
        vals = [int(v) for v in flat]
    return {"dtype": dtype, "dims": dims, "values": vals}


def tensor(dtype, values, dims):
    if dtype == "string":
        values = [v.encode() if isinstance(v, str) else v for v in values]
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
    shape = spec.get("shape", spec["dims"])
    shape = None if shape == "unknown" else shape
    p = tf.placeholder(tf.as_dtype(spec["dtype"]), shape)
    feeds[p] = np_of(spec)
    return p


def grouped(parts, feeds):
    ix, vals, shape = [source(s, feeds) for s in parts]
    sp = tf.SparseTensor.__new__(tf.SparseTensor)
    sp._indices, sp._values, sp._dense_shape = ix, vals, shape
    sp._dense_shape_default = tensor_util.constant_value_as_shape(shape)
    return sp


def build(c):
    feeds = {}
    op = c["op"]
    if op in ("cross", "cross_hashed"):
        ins = [grouped(i["sparse"], feeds) if "sparse" in i else source(i["dense"], feeds)
               for i in c["inputs"]]
        if op == "cross":
            kw = {"separator": c["separator"]} if "separator" in c else {}
            st = tf.sparse.cross(ins, **kw)
        else:
            kw = {k: c[k] for k in ("num_buckets", "hash_key") if k in c}
            st = tf.sparse.cross_hashed(ins, **kw)
        return [st.indices, st.values, st.dense_shape], feeds
    lists = [[source(s, feeds) for s in l] for l in c["lists"]]
    kw = dict(indices=lists[0], values=lists[1], shapes=lists[2], dense_inputs=lists[3])
    if op == "raw_v1":
        a = dict(c["attrs"])
        a["out_type"] = tf.as_dtype(a["out_type"])
        a["internal_type"] = tf.as_dtype(a["internal_type"])
        return list(tf.raw_ops.SparseCross(**kw, **a)), feeds
    if op == "raw_v2":
        return list(tf.raw_ops.SparseCrossV2(**kw, sep=source(c["sep"], feeds))), feeds
    return list(tf.raw_ops.SparseCrossHashed(
        **kw, num_buckets=source(c["num_buckets"], feeds),
        strong_hash=source(c["strong_hash"], feeds), salt=source(c["salt"], feeds))), feeds


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


def sparse(rows, dtype, shape=None, ix_shape=None, unknown=False, indices=None):
    """A sparse input from its rows' values (a list per row), or explicit `indices`."""
    if indices is None:
        indices = [[r, k] for r, vals in enumerate(rows) for k in range(len(vals))]
        values = [v for vals in rows for v in vals]
        width = max([len(v) for v in rows] + [0])
        shape = shape or [len(rows), width]
    else:
        values = rows
    cols = len(indices[0]) if indices else 2
    flat = [x for i in indices for x in i]
    specs = [tensor("int64", flat, ix_shape or [len(indices), cols]),
             tensor(dtype, values, [len(values)]), tensor("int64", shape, [len(shape)])]
    if unknown:
        for s in specs:
            s["shape"] = "unknown"
    return specs


def sp(rows, dtype="string", **kw):
    return {"sparse": sparse(rows, dtype, **kw)}


def dn(rows, dtype="string", dims=None, unknown=False):
    flat = [v for r in rows for v in r]
    dims = dims or [len(rows), len(rows[0]) if rows else 0]
    t = tensor(dtype, flat, dims)
    if unknown:
        t["shape"] = "unknown"
    return {"dense": t}


CASES = []


def add(name, op, **kw):
    c = {"name": name, "op": op}
    c.update(kw)
    CASES.append(c)


def both(name, inputs, sep=None, **hashed):
    """The same inputs crossed as strings and hashed."""
    kw = {} if sep is None else {"separator": sep}
    add(f"cross_{name}", "cross", inputs=inputs, **kw)
    add(f"hashed_{name}", "cross_hashed", inputs=inputs, **hashed)


A = sp([["a"], ["b", "c"]])
D = sp([["d"], ["e"]])
F = dn([["f"], ["g"]])
I64 = sp([[1, -2], [], [9223372036854775807, -9223372036854775808, 0]], "int64")
S3 = sp([["x", "y"], ["z"], ["w", "", "v"]])
DENSE3 = dn([["p", "q"], ["r", "s"], ["t", "u"]])

# --- the doc examples and orders ------------------------------------------------------------
both("doc_example", [A, D, F])
both("two_sparse", [A, D])
both("dense_first", [F, A, D])
both("dense_between", [A, F, D])
both("single_sparse", [S3])
both("single_dense", [DENSE3])
both("only_dense", [DENSE3, dn([["1"], ["2"], ["3"]])])
both("product_order", [S3, sp([["1", "2"], ["3", "4"], ["5"]]), DENSE3])
both("four_inputs", [S3, sp([["k"], ["l", "m"], ["n", "o"]]), DENSE3,
                     sp([["P", "Q"], ["R"], ["S"]])])
both("four_with_ints", [I64, S3, dn([[7, 8], [9, 10], [11, 12]], "int64"),
                        sp([["P"], ["Q"], ["R", "S"]])])
both("int64_and_string", [I64, S3])
both("int64_only", [I64, sp([[3], [4], [5, 6]], "int64")])
both("int64_dense", [dn([[5, -6], [0, 123456789012]], "int64"), A])
both("int32_cast", [sp([[1, 2], [3]], "int32"), A])
both("float_cast", [sp([[2.75, -1.5], [0.0]], "float32"), A])
both("bool_dense", [dn([[True, False], [False, True]], "bool"), D])
both("uint8_dense", [dn([[255], [7]], "uint8"), D])
both("int_strings_differ", [sp([["1"], ["2"]]), D])
both("int_values_same_digits", [sp([[1], [2]], "int64"), D])

# --- empty rows -------------------------------------------------------------------------------
both("empty_middle_row", [sp([["a"], [], ["c"]]), sp([["d"], ["e"], ["f"]])])
both("empty_row_other_input", [sp([["a"], ["b"], ["c"]]), sp([["d"], ["e"], []])])
both("empty_first_row", [sp([[], ["b"], ["c"]]), DENSE3])
both("all_rows_empty", [sp([[], [], []], shape=[3, 4]), DENSE3])
both("all_empty_single", [sp([[], []], shape=[2, 5])])
both("zero_batch", [sp([], shape=[0, 3]), dn([], dims=[0, 2])])
both("zero_batch_sparse", [sp([], shape=[0, 3]), sp([], shape=[0, 1])])
both("dense_zero_cols", [A, dn([], dims=[2, 0])])
both("wide_shape_ignored", [sp([["a"], ["b"]], shape=[2, 100]), D])
both("shape_cols_zero", [sp([["a"], ["b"]], shape=[2, 0]), D])

# --- index layouts --------------------------------------------------------------------------
both("unsorted_rows", [sp(["r1", "r0", "r1b"], indices=[[1, 0], [0, 0], [1, 1]], shape=[2, 2]),
                       D])
both("rows_descending", [sp(["b", "a"], indices=[[1, 0], [0, 0]], shape=[2, 1]), D])
both("row_beyond_batch", [sp(["a", "z"], indices=[[0, 0], [5, 0]], shape=[2, 1]), D])
both("negative_row", [sp(["n", "a"], indices=[[-1, 0], [0, 0]], shape=[2, 1]), D])
both("column_ignored", [sp(["a", "b"], indices=[[0, 7], [0, -3]], shape=[2, 1]), D])
both("unknown_shapes", [sp([["a"], ["b", "c"]], unknown=True), dn([["f"], ["g"]], unknown=True)])

# --- strings ---------------------------------------------------------------------------------
both("bytes", [sp([[b"\x00\xff", b""], [bytes(range(40))]]), sp([["\u00e9"], ["long" * 20]])])

# --- separators ------------------------------------------------------------------------------
for i, s in enumerate(["_Y_", "", "||", "\u00e9", "a very long separator " * 3]):
    add(f"cross_separator_{i}", "cross", inputs=[A, D, F], separator=s)
add("cross_separator_int_values", "cross", inputs=[I64, S3], separator="-")

# --- hashing parameters -------------------------------------------------------------------
HIN = [S3, I64, DENSE3]
for nb in [0, 1, 10, 1000, 9223372036854775807]:
    add(f"hashed_buckets_{nb}", "cross_hashed", inputs=HIN, num_buckets=nb)
for k in [0, 1, -5, 12345, 9223372036854775807, -9223372036854775808]:
    add(f"hashed_key_{k}", "cross_hashed", inputs=HIN, hash_key=k)
    add(f"hashed_key_{k}_buckets", "cross_hashed", inputs=HIN, hash_key=k, num_buckets=97)
add("hashed_default_key_explicit", "cross_hashed", inputs=HIN, hash_key=0xDECAFCAFFE)
add("hashed_negative_buckets", "cross_hashed", inputs=HIN, num_buckets=-1)

# --- errors ------------------------------------------------------------------------------------
both("batch_mismatch_sparse", [A, sp([["d"], ["e"], ["f"]])])
both("batch_mismatch_dense", [A, DENSE3])
both("batch_mismatch_dense_dense", [DENSE3, F])
both("batch_mismatch_third", [A, D, sp([["x"]])])
both("dense_vector", [A, {"dense": tensor("string", ["f", "g"], [2])}])
both("dense_rank3", [A, {"dense": tensor("string", ["f", "g"], [2, 1, 1])}])
both("indices_three_cols", [sp(["a"], indices=[[0, 0, 0]], shape=[2, 1]), D])
both("indices_vector", [{"sparse": sparse(["a"], "string", indices=[[0, 0]], shape=[2, 1],
                                          ix_shape=[2])}, D])
both("shape_rank3", [sp(["a"], indices=[[0, 0]], shape=[2, 1, 1]), D])
both("shape_matrix", [{"sparse": [tensor("int64", [0, 0], [1, 2]), tensor("string", ["a"], [1]),
                                  dict(tensor("int64", [2, 1], [1, 2]), shape="unknown")]}, D])
both("values_matrix", [{"sparse": [tensor("int64", [0, 0], [1, 2]),
                                   tensor("string", ["a"], [1, 1]),
                                   tensor("int64", [2, 1], [2])]}, D])
both("values_length_mismatch", [{"sparse": [tensor("int64", [0, 0], [1, 2]),
                                            tensor("string", ["a", "b"], [2]),
                                            tensor("int64", [2, 1], [2])]}, D])
both("batch_mismatch_unknown", [sp([["a"], ["b"]], unknown=True), sp([["d"]], unknown=True)])


# --- the raw ops -------------------------------------------------------------------------------
def lists(*inputs):
    ix, vals, shapes, dense = [], [], [], []
    for i in inputs:
        if "sparse" in i:
            ix.append(i["sparse"][0])
            vals.append(i["sparse"][1])
            shapes.append(i["sparse"][2])
        else:
            dense.append(i["dense"])
    return [ix, vals, shapes, dense]


def v1(hashed_output, out_type, internal_type, num_buckets=0, hash_key=0xDECAFCAFFE):
    return {"hashed_output": hashed_output, "num_buckets": num_buckets, "hash_key": hash_key,
            "out_type": out_type, "internal_type": internal_type}


STR_IN = lists(A, D, F)
INT_IN = lists(sp([[1], [2, 3]], "int64"), D, dn([[4], [5]], "int64"))
add("raw_v1_strings", "raw_v1", lists=STR_IN, attrs=v1(False, "string", "string"))
add("raw_v1_ints_as_strings", "raw_v1", lists=INT_IN, attrs=v1(False, "string", "int64"))
add("raw_v1_strings_internal_int64", "raw_v1", lists=STR_IN, attrs=v1(False, "string", "int64"))
add("raw_v1_int_values_internal_string", "raw_v1", lists=INT_IN,
    attrs=v1(False, "string", "string"))
add("raw_v1_int_dense_internal_string", "raw_v1", lists=lists(A, dn([[4], [5]], "int64")),
    attrs=v1(False, "string", "string"))
add("raw_v1_hashed_internal_string", "raw_v1", lists=STR_IN,
    attrs=v1(True, "int64", "string", 100, 7))
add("raw_v1_hashed_ints_internal_string", "raw_v1", lists=INT_IN,
    attrs=v1(True, "int64", "string", 100, 7))
add("raw_v1_hashed_ints", "raw_v1", lists=INT_IN, attrs=v1(True, "int64", "int64", 0, 0))
add("raw_v1_hashed_attr_ignored_string_out", "raw_v1", lists=STR_IN,
    attrs=v1(True, "string", "string", 10, 3))
add("raw_v1_unhashed_attr_int_out", "raw_v1", lists=STR_IN,
    attrs=v1(False, "int64", "string", 10, 3))
add("raw_v1_no_inputs", "raw_v1", lists=[[], [], [], []], attrs=v1(True, "int64", "int64"))
add("raw_v1_only_dense", "raw_v1", lists=lists(DENSE3), attrs=v1(False, "string", "string"))
add("raw_v1_int32_values", "raw_v1",
    lists=[[A["sparse"][0]], [tensor("int32", [1, 2, 3], [3])], [A["sparse"][2]], []],
    attrs=v1(False, "string", "int64"))
add("raw_v1_float_dense", "raw_v1", lists=[[], [], [], [tensor("float32", [1.0], [1, 1])]],
    attrs=v1(False, "string", "int64"))
add("raw_v1_float_out_type", "raw_v1", lists=STR_IN, attrs=v1(False, "float32", "string"))
add("raw_v1_bool_internal_type", "raw_v1", lists=STR_IN, attrs=v1(False, "string", "bool"))
add("raw_v1_shapes_count_mismatch", "raw_v1",
    lists=[STR_IN[0], STR_IN[1], STR_IN[2][:1], STR_IN[3]], attrs=v1(False, "string", "string"))
add("raw_v1_values_count_mismatch", "raw_v1",
    lists=[STR_IN[0], STR_IN[1][:1], STR_IN[2], STR_IN[3]], attrs=v1(False, "string", "string"))
add("raw_v1_negative_buckets", "raw_v1", lists=STR_IN,
    attrs=v1(True, "int64", "string", -3, 7))

add("raw_v2_sep_scalar", "raw_v2", lists=STR_IN, sep=tensor("string", ["::"], []))
add("raw_v2_sep_vector", "raw_v2", lists=STR_IN, sep=tensor("string", ["x", "y"], [2]))
add("raw_v2_sep_long_vector", "raw_v2", lists=STR_IN,
    sep=tensor("string", ["x", "y", "z", "w"], [4]))
add("raw_v2_sep_one", "raw_v2", lists=STR_IN, sep=tensor("string", ["x"], [1, 1]))
add("raw_v2_int_values", "raw_v2", lists=INT_IN, sep=tensor("string", ["+"], []))
add("raw_v2_int32_values", "raw_v2",
    lists=[[A["sparse"][0]], [tensor("int32", [1, 2, 3], [3])], [A["sparse"][2]], []],
    sep=tensor("string", ["+"], []))
add("raw_v2_no_inputs", "raw_v2", lists=[[], [], [], []], sep=tensor("string", ["+"], []))
add("raw_v2_batch_mismatch", "raw_v2", lists=lists(A, DENSE3), sep=tensor("string", ["+"], []))


def hashed(name, ins, nb, strong, salt, salt_dims=None, **kw):
    add(f"raw_hashed_{name}", "raw_hashed", lists=ins, num_buckets=tensor("int64", [nb], []),
        strong_hash=tensor("bool", [strong], []),
        salt=tensor("int64", salt, salt_dims or [len(salt)]), **kw)


MIXED = lists(sp([[1, -7], [300]], "int64"), A, dn([[4, 9], [-5, 2]], "int64"),
              dn([["f"], ["g"]]))
# TensorFlow's kernel crashes on a dense int64 input with strong_hash: only the fast hash
# meets one.
MIXED_SPARSE = lists(sp([[1, -7], [300]], "int64"), A, dn([["f", "h"], ["g", "i"]]))
INT_SPARSE = lists(sp([[1], [2, 3]], "int64"), D, sp([[-4, 0], [5]], "int64"))
for strong in [False, True]:
    t = "strong" if strong else "fast"
    hashed(f"{t}_strings", STR_IN, 0, strong, [1, 2])
    hashed(f"{t}_strings_buckets", STR_IN, 1000, strong, [1, 2])
    hashed(f"{t}_sparse_ints", INT_SPARSE, 0, strong, [1, 2])
    hashed(f"{t}_mixed_sparse", MIXED_SPARSE, 0, strong, [-1, 9223372036854775807])
    hashed(f"{t}_mixed_sparse_buckets", MIXED_SPARSE, 13, strong, [5, 6])
    hashed(f"{t}_single_sparse_int", lists(I64), 0, strong, [3, 4])
    hashed(f"{t}_big_ints", lists(sp([[4294967296 + 5], [5]], "int64"), D), 0, strong, [3, 4])
    hashed(f"{t}_zero_salt", STR_IN, 7, strong, [0, 0])
hashed("fast_ints", INT_IN, 0, False, [1, 2])
hashed("fast_mixed", MIXED, 0, False, [-1, 9223372036854775807])
hashed("fast_mixed_buckets", MIXED, 13, False, [5, 6])
hashed("fast_single_dense_int", lists(dn([[4, 9], [-5, 2]], "int64")), 0, False, [3, 4])
hashed("negative_buckets", STR_IN, -4, False, [1, 2])
hashed("salt_length_3", STR_IN, 0, False, [1, 2, 3])
hashed("salt_length_1", STR_IN, 0, False, [1])
hashed("salt_matrix", STR_IN, 0, True, [1, 2], salt_dims=[1, 2])
hashed("no_inputs", [[], [], [], []], 0, False, [1, 2])
hashed("batch_mismatch", lists(A, DENSE3), 0, False, [1, 2])
hashed("unsorted_rows", lists(sp(["r1", "r0"], indices=[[1, 0], [0, 0]], shape=[2, 1]), D), 0,
       False, [1, 2])
add("raw_hashed_num_buckets_vector_one", "raw_hashed", lists=STR_IN,
    num_buckets=tensor("int64", [10], [1]), strong_hash=tensor("bool", [True], [1, 1]),
    salt=tensor("int64", [1, 2], [2]))
add("raw_hashed_int32_values", "raw_hashed",
    lists=[[A["sparse"][0]], [tensor("int32", [1, 2, 3], [3])], [A["sparse"][2]], []],
    num_buckets=tensor("int64", [0], []), strong_hash=tensor("bool", [False], []),
    salt=tensor("int64", [1, 2], [2]))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    names = [c["name"] for c in CASES]
    assert len(names) == len(set(names)), "duplicate case names"
    out = [record(dict(c)) for c in CASES]
    with open(os.path.join(here, "expected.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    errors = sum(1 for c in out if "error" in c or "build_error" in c)
    print(f"{len(out)} cases, {errors} errors")


if __name__ == "__main__":
    main()
