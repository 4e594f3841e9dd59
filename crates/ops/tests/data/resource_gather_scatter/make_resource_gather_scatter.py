"""Writes expected.json: what TensorFlow 2.21 (tf.compat.v1, graph mode, CPU) computes for
ResourceGather (`v.sparse_read`, `tf.gather(v, i)` on a resource variable, and the raw op with
batch_dims), ResourceGatherNd (`tf.gather_nd(v, i)`), TensorScatterMax/Min
(`tf.tensor_scatter_nd_max/min`), ScatterNdMax/Min and ResourceScatterNdMax/Min (`v.scatter_nd_max/min` on a ref and on a resource variable), for weir's
crates/ops/tests/integration/resource_gather_scatter.rs.

Run: ~/.cache/weir-bench/venv/bin/python make_resource_gather_scatter.py

Each case: {"name", "kind", "op" (max/min for scatters), "params" (the variable's or tensor's
value), "indices", "updates", "batch_dims", "fed" (indices fed with an unknown shape, so the
kernel and not the shape function sees them), and either "static_shapes" + "outputs", or
"build_error": {"type", "message"} (TensorFlow failed when adding the node), or
"static_shapes" + "error": {"code", "message"} (the run failed). A tensor is {"dtype", "dims",
"values"}: floats (and complex parts) as bit patterns, strings base64.
"""

import base64
import json
import os
import re

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
BF16 = tf.bfloat16.as_numpy_dtype
rng = np.random.RandomState(11)
CASES = []

ALL = ["float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
       "uint64", "float16", "bfloat16", "complex64", "complex128", "bool", "string"]
MINMAX = ["float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
          "uint64", "float16", "bfloat16"]


def np_dtype(name):
    return BF16 if name == "bfloat16" else (object if name == "string" else np.dtype(name))


def dtname(a):
    if a.dtype == BF16:
        return "bfloat16"
    return "string" if a.dtype == object else a.dtype.name


def spec(t, name=None):
    a = np.asarray(t)
    name = name or dtname(a)
    if name == "string":
        vals = [base64.b64encode(x if isinstance(x, bytes) else x.encode()).decode()
                for x in a.ravel().tolist()]
    elif name in ("float32", "complex64"):
        vals = np.ascontiguousarray(a).view(np.uint32).ravel().tolist()
    elif name in ("float64", "complex128"):
        vals = np.ascontiguousarray(a).view(np.uint64).ravel().tolist()
    elif name in ("float16", "bfloat16"):
        vals = np.ascontiguousarray(a).view(np.uint16).ravel().tolist()
    elif name == "bool":
        vals = [bool(x) for x in a.ravel().tolist()]
    else:
        vals = [int(x) for x in a.ravel().tolist()]
    return {"dtype": name, "dims": list(a.shape), "values": vals}


def data(shape, name):
    shape = tuple(shape)
    n = int(np.prod(shape))
    if name == "string":
        return np.array([("s%d" % i).encode() for i in rng.randint(0, 100, size=n)],
                        dtype=object).reshape(shape)
    if name == "bool":
        return rng.rand(*shape) > 0.5
    if name.startswith("complex"):
        return (rng.randn(*shape) + 1j * rng.randn(*shape)).astype(name)
    if name.startswith("uint"):
        return rng.randint(0, 100, size=shape).astype(name)
    if name.startswith("int"):
        return rng.randint(-60, 60, size=shape).astype(name)
    return np.asarray(np.round(rng.randn(*shape) * 8) / 4).astype(np_dtype(name))


def redact(msg):
    msg = msg.split("\n\t [[")[0].rstrip()
    msg = re.split(r"\nNode: '[^']*'\n", msg)[-1]
    return re.sub(r"^Graph execution error:\n\n", "", msg)


def static(t):
    s = t.shape
    return None if s.rank is None else s.as_list()


def index_input(idx, fed):
    k = tf.constant(idx)
    return tf.placeholder_with_default(k, shape=None) if fed else k


def record(case, build):
    """Builds with `build(graph) -> (outputs, init ops)`, runs, records the outcome."""
    g = tf.Graph()
    with g.as_default():
        try:
            outs, init = build()
        except (ValueError, TypeError) as e:
            case["build_error"] = {"type": type(e).__name__, "message": redact(str(e))}
            CASES.append(case)
            return
        case["static_shapes"] = [static(o) for o in outs]
        with tf.Session() as s:
            if init is not None:
                s.run(init)
            try:
                vals = s.run(outs)
                case["outputs"] = [spec(v, case.get("dtype")) for v in vals]
            except tf.errors.OpError as e:
                case["error"] = {"code": e.error_code, "message": redact(e.message)}
    CASES.append(case)


def gather_case(name, params, idx, kind="sparse_read", batch_dims=0, fed=False, dtype=None,
                idx_dtype=None):
    params = np.asarray(params)
    dtype = dtype or dtname(params)
    idx = np.asarray(idx, dtype=idx_dtype or np.int32)
    case = {"name": name, "kind": kind, "dtype": dtype, "params": spec(params, dtype),
            "indices": spec(idx), "batch_dims": batch_dims, "fed": fed}

    def build():
        v = tf.Variable(params, use_resource=True, name="v")
        i = index_input(idx, fed)
        if kind == "sparse_read":
            out = v.sparse_read(i)
            assert out.op.type == "ResourceGather", out.op.type
        elif kind == "tf_gather":
            out = tf.gather(v, i)
            assert out.op.type == "ResourceGather", out.op.type
        elif kind == "raw_gather":
            from tensorflow.python.ops import gen_resource_variable_ops as r
            out = r.resource_gather(v.handle, i, dtype=v.dtype, batch_dims=batch_dims)
        elif kind == "gather_nd":
            out = tf.gather_nd(v, i)
            assert out.op.inputs[0].op.type == "ResourceGatherNd", out.op.type
        else:
            raise ValueError(kind)
        return [out], v.initializer

    record(case, build)


def scatter_case(name, kind, op, params, idx, upd, fed=False, idx_dtype=None):
    params, upd = np.asarray(params), np.asarray(upd)
    dtype = dtname(params)
    idx = np.asarray(idx, dtype=idx_dtype or np.int32)
    case = {"name": name, "kind": kind, "op": op, "dtype": dtype, "params": spec(params, dtype),
            "indices": spec(idx), "updates": spec(upd), "fed": fed}

    def build():
        i = index_input(idx, fed)
        if kind == "tensor_scatter":
            f = tf.tensor_scatter_nd_max if op == "max" else tf.tensor_scatter_nd_min
            out = f(tf.constant(params), i, tf.constant(upd))
            assert out.op.type == "TensorScatter" + op.capitalize(), out.op.type
            return [out], None
        if kind == "scatter_nd_ref":
            v = tf.Variable(params, use_resource=False, name="v")
            out = getattr(v, "scatter_nd_" + op)(i, tf.constant(upd))
            assert out.op.type == "ScatterNd" + op.capitalize(), out.op.type
            return [out], v.initializer
        v = tf.Variable(params, use_resource=True, name="v")
        up = getattr(v, "scatter_nd_" + op)(i, tf.constant(upd)).op
        assert up.type == "ResourceScatterNd" + op.capitalize(), up.type
        with tf.control_dependencies([up]):
            out = v.read_value()
        return [out], v.initializer

    record(case, build)


# ---- ResourceGather ----
for dt in ALL:
    gather_case("sparse_read_%s" % dt, data([5, 3], dt), [4, 0, 4, 2])
for it in (np.int32, np.int64):
    gather_case("tf_gather_matrix_idx_%s" % np.dtype(it).name, data([6, 2], "float32"),
                [[1, 5], [0, 0], [3, 2]], kind="tf_gather", idx_dtype=it)
gather_case("sparse_read_scalar_idx", data([4, 3], "float32"), 2)
gather_case("sparse_read_1d_var", data([7], "int32"), [6, 0, 3])
gather_case("sparse_read_3d_var", data([3, 2, 2], "float64"), [[2], [0]])
gather_case("sparse_read_empty_idx", data([4, 3], "float32"), np.zeros([0], np.int32))
gather_case("sparse_read_empty_idx_2d", data([4, 3], "float32"), np.zeros([2, 0], np.int32))
gather_case("sparse_read_empty_var_empty_idx", data([0, 3], "float32"), np.zeros([0], np.int32))
gather_case("sparse_read_zero_width", data([4, 0], "float32"), [3, 1])
gather_case("sparse_read_fed", data([5, 2], "int64"), [[4, 1], [0, 3]], fed=True)
gather_case("sparse_read_out_of_range", data([5, 3], "float32"), [0, 7])
gather_case("sparse_read_negative", data([5, 3], "float32"), [0, 1, -1])
gather_case("sparse_read_out_of_range_2d", data([5, 3], "float32"), [[0, 1], [5, 2]])
gather_case("sparse_read_out_of_range_empty_var", data([0, 3], "float32"), [0])
gather_case("sparse_read_out_of_range_int64", data([5, 3], "float32"), [2, 1 << 40],
            idx_dtype=np.int64)
gather_case("sparse_read_scalar_var", np.float32(3.0), [0])
gather_case("sparse_read_float_indices", data([5, 3], "float32"), [0.0, 1.0],
            idx_dtype=np.float32)
gather_case("raw_gather_batch_dims_1", data([2, 4, 3], "float32"), [[3, 0], [1, 1]],
            kind="raw_gather", batch_dims=1)
gather_case("raw_gather_batch_dims_1_fed", data([3, 4], "int32"), [[3, 0, 2], [1, 1, 0],
            [0, 3, 3]], kind="raw_gather", batch_dims=1, fed=True)
gather_case("raw_gather_batch_dims_2", data([2, 2, 3, 2], "float32"),
            [[[2], [0]], [[1], [1]]], kind="raw_gather", batch_dims=2)
gather_case("raw_gather_batch_dims_1_out_of_range", data([2, 4, 3], "float32"),
            [[3, 0], [1, 4]], kind="raw_gather", batch_dims=1)
gather_case("raw_gather_batch_dims_too_big", data([2, 4], "float32"), [[1], [0]],
            kind="raw_gather", batch_dims=2)
gather_case("raw_gather_batch_dims_idx_rank", data([2, 4, 3], "float32"), [1, 0],
            kind="raw_gather", batch_dims=2)
gather_case("raw_gather_batch_dims_negative", data([2, 4], "float32"), [[1], [0]],
            kind="raw_gather", batch_dims=-1)

# ---- ResourceGatherNd ----
for dt in ALL:
    gather_case("gather_nd_%s" % dt, data([3, 2, 2], dt), [[2, 1], [0, 0], [2, 1]],
                kind="gather_nd")
for it in (np.int32, np.int64):
    gather_case("gather_nd_rows_%s" % np.dtype(it).name, data([4, 3], "float32"),
                [[3], [1]], kind="gather_nd", idx_dtype=it)
gather_case("gather_nd_full", data([4, 3], "int32"), [[[3, 2]], [[0, 1]]], kind="gather_nd")
gather_case("gather_nd_empty_coords", data([2, 3], "float32"), np.zeros([2, 0], np.int32),
            kind="gather_nd")
gather_case("gather_nd_no_rows", data([2, 3], "float32"), np.zeros([0, 2], np.int32),
            kind="gather_nd")
gather_case("gather_nd_1d_idx", data([4, 3], "float32"), [2, 1], kind="gather_nd")
gather_case("gather_nd_fed", data([4, 3], "float64"), [[1, 2], [3, 0]], kind="gather_nd",
            fed=True)
gather_case("gather_nd_out_of_range", data([4, 3], "float32"), [[1, 2], [3, 3]],
            kind="gather_nd")
gather_case("gather_nd_negative", data([4, 3], "float32"), [[[-1]]], kind="gather_nd")
gather_case("gather_nd_too_deep", data([4, 3], "float32"), [[1, 2, 0]], kind="gather_nd")
gather_case("gather_nd_too_deep_fed", data([4, 3], "float32"), [[1, 2, 0]], kind="gather_nd",
            fed=True)
gather_case("gather_nd_scalar_idx", data([4, 3], "float32"), 1, kind="gather_nd")
gather_case("gather_nd_scalar_idx_fed", data([4, 3], "float32"), 1, kind="gather_nd", fed=True)
gather_case("gather_nd_scalar_var", np.float32(2.0), np.zeros([1, 0], np.int32),
            kind="gather_nd")
gather_case("gather_nd_empty_var", data([0, 3], "float32"), [[0]], kind="gather_nd")

# ---- the max/min scatters ----
for kind in ("tensor_scatter", "scatter_nd_ref", "scatter_nd_resource"):
    for op in ("max", "min"):
        for dt in MINMAX:
            scatter_case("%s_%s_%s" % (kind, op, dt), kind, op, data([5, 2], dt),
                         [[4], [0], [4]], data([3, 2], dt))
        scatter_case("%s_%s_elements_int64" % (kind, op), kind, op, data([3, 4], "float32"),
                     [[0, 3], [2, 1], [0, 3]], data([3], "float32"), idx_dtype=np.int64)
        nan = np.float32(np.nan)
        scatter_case("%s_%s_nan_and_zeros" % (kind, op), kind, op,
                     np.array([nan, 1, -0.0, 0.0, 2], np.float32), [[0], [1], [2], [3], [4]],
                     np.array([1, nan, 0.0, -0.0, 2], np.float32))
        scatter_case("%s_%s_empty_updates" % (kind, op), kind, op, data([4], "int32"),
                     np.zeros([0, 1], np.int32), np.zeros([0], np.int32))
        scatter_case("%s_%s_3d_slices_fed" % (kind, op), kind, op, data([2, 3, 2], "float64"),
                     [[[1, 2]], [[0, 0]]], data([2, 1, 2], "float64"), fed=True)
        scatter_case("%s_%s_out_of_range" % (kind, op), kind, op, data([5], "float32"),
                     [[1], [7]], data([2], "float32"))
        scatter_case("%s_%s_negative" % (kind, op), kind, op, data([3, 2], "float32"),
                     [[0, 1], [-1, 0]], data([2], "float32"))
        scatter_case("%s_%s_bad_updates_shape" % (kind, op), kind, op, data([4, 3], "float32"),
                     [[1]], data([1, 2], "float32"))
        scatter_case("%s_%s_bad_updates_shape_fed" % (kind, op), kind, op,
                     data([4, 3], "float32"), [[1]], data([1, 2], "float32"), fed=True)
        scatter_case("%s_%s_outer_mismatch" % (kind, op), kind, op, data([4, 3], "float32"),
                     [[1], [2]], data([3, 3], "float32"))
        scatter_case("%s_%s_outer_mismatch_fed" % (kind, op), kind, op,
                     data([4, 3], "float32"), [[1], [2]], data([3, 3], "float32"), fed=True)
        scatter_case("%s_%s_scalar_updates" % (kind, op), kind, op, data([4], "float32"),
                     [[1]], np.float32(5))
        scatter_case("%s_%s_empty_params" % (kind, op), kind, op, data([0, 2], "float32"),
                     [[0]], data([1, 2], "float32"))
        scatter_case("%s_%s_too_deep_fed" % (kind, op), kind, op, data([4], "float32"),
                     [[1, 0]], data([1], "float32"), fed=True)

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump(CASES, f, indent=1)
print(len(CASES), "cases,", sum("error" in c or "build_error" in c for c in CASES), "errors")
