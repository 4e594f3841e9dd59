"""Records TensorFlow 2.21's CPU results of the small TF1 ops weir adds in
crates/ops/src/nn/data_format.rs, crates/ops/src/array/inplace.rs and
crates/ops/src/nn/batch_norm_global.rs, for crates/ops/tests/integration/small_ops_tf1.rs and
crates/train/tests/integration/batch_norm_global_grad.rs:

- DataFormatDimMap and DataFormatVecPermute (int32, int64; 4- and 5-letter formats);
- InplaceUpdate, InplaceAdd, InplaceSub and DeepCopy (every dtype), the inplace_ops helpers;
- ParallelConcat as tf.parallel_stack builds it (every dtype), and its shape errors;
- BatchNormWithGlobalNormalization and its Grad op (float16, float32, float64), the
  composite tf.compat.v1.nn.batch_norm_with_global_normalization, and tf.gradients of the op;
- a GraphDef holding all of them (small_ops_graph.pbtxt) and the values TensorFlow fetches
  from it.

Tensors are written with tensor_json.encode (floats as IEEE bit patterns), strings as
{"dtype": "string", "shape", "values": [text]}. A case's "ulps" (default 0: bit for bit) is
its tolerance in epsilons of its dtype relative to the largest recorded magnitude. Errors are
recorded as {"type", "message", "stage"}: "build" for the Python-side errors of graph
construction (message cut before TensorFlow's " for '{{node ...}}" suffix), "run" for the
kernels' (the kernel's own message).

TensorFlow 2.21's Python refuses to build the deprecated BatchNormWithGlobalNormalization ops
(GraphDef version 9 removed them), so their graphs are GraphDefs of producer version 8 that
tf.import_graph_def loads, as it loads the old Inception graphs that hold them.

Run with TensorFlow 2.21: python make_small_ops_tf1.py (writes expected.json beside it).
"""
import json
import os
import sys

import ml_dtypes
import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.core.framework import graph_pb2, node_def_pb2
from tensorflow.python.framework import tensor_util
from tensorflow.python.ops import gen_array_ops, inplace_ops

tf.disable_v2_behavior()
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tensor_json import encode  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BF16 = ml_dtypes.bfloat16
rng = np.random.default_rng(1995)
CASES = []

NUMBER = ["float32", "float64", "int32", "uint8", "int16", "int8", "int64", "bfloat16",
          "float16", "uint16", "uint32", "uint64", "complex64", "complex128"]
ALL = NUMBER + ["bool", "string"]


def enc(a):
    a = np.asarray(a)
    if a.dtype.kind in "SUO":
        flat = [v.decode() if isinstance(v, bytes) else str(v) for v in a.reshape(-1)]
        return {"dtype": "string", "shape": list(a.shape), "values": flat}
    return encode(a)


def sample(dtype, shape):
    """Values of `dtype` that exercise rounding (floats) and wrapping (integers)."""
    n = int(np.prod(shape))
    if dtype == "string":
        return np.array([("s%d" % k) * (k % 3 + 1) for k in range(n)], dtype=object).reshape(shape)
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.startswith("complex"):
        return (rng.normal(size=shape) * 3 + 1j * rng.normal(size=shape) * 3).astype(dtype)
    if dtype.startswith("float") or dtype == "bfloat16":
        np_dt = BF16 if dtype == "bfloat16" else np.dtype(dtype)
        return (rng.normal(size=shape) * 7).astype(np_dt)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


def tf_dtype(a):
    return tf.string if np.asarray(a).dtype.kind in "SUO" else tf.as_dtype(np.asarray(a).dtype)


def kernel_message(e):
    m = e.message.removeprefix("Graph execution error:\n\n")
    i = m.find("\nNode: '")
    if i >= 0:
        m = m[m.index("\n", i + 1) + 1:]
    return m.split("\n\t [[")[0]


def record(case, build, inputs, unknown=False):
    """Runs `build(*input_tensors)` (a list of outputs) on constants, or on
    placeholder_with_default inputs of unknown shape when `unknown`."""
    case["inputs"] = [enc(a) for a in inputs]
    if unknown:
        case["unknown_shape"] = True
    g = tf.Graph()
    with g.as_default():
        ins = [tf.placeholder_with_default(tf.constant(a, dtype=tf_dtype(a)), shape=None)
               if unknown else tf.constant(a, dtype=tf_dtype(a)) for a in inputs]
        try:
            outs = build(*ins)
        except (ValueError, TypeError) as e:
            case["error"] = {"type": type(e).__name__, "stage": "build",
                             "message": str(e).split(" for '{{node")[0]}
            CASES.append(case)
            return
        case["names"] = [o.name for o in outs]
        case["static_shapes"] = [None if o.shape.rank is None else
                                 [d for d in o.shape.as_list()] for o in outs]
        with tf.Session() as s:
            try:
                vals = s.run(outs)
            except tf.errors.OpError as e:
                case["error"] = {"type": type(e).__name__, "stage": "run",
                                 "message": kernel_message(e)}
                CASES.append(case)
                return
    case["outputs"] = [enc(v) for v in vals]
    CASES.append(case)


# ---------------------------------------------------------------------------------------------
# DataFormatDimMap / DataFormatVecPermute.

FORMATS = [("NHWC", "NCHW"), ("NCHW", "NHWC"), ("NHWC", "HWNC"), ("HWNC", "NHWC"),
           ("NHWC", "NWHC"), ("NDHWC", "NCDHW"), ("NCDHW", "NDHWC"), ("NDHWC", "NHWDC"),
           ("NDHWC", "WHDCN"), ("NHWCD", "NDCWH"), ("ABCD", "DCBA"), ("ABCDE", "EDCBA"),
           ("abcd", "dcba")]
BAD_FORMATS = [("NHW", "NHW"), ("NHWC", "NCH"), ("NHWCDE", "NHWCDE"), ("NHWC", "NHWW"),
               ("NNWC", "NNWC"), ("NHWC", "NCHWD"), ("NHWCX", "NCHWY")]


def dim_map_cases():
    for dt in ["int32", "int64"]:
        x = np.arange(-12, 12, dtype=dt).reshape(4, 6)
        for src, dst in FORMATS:
            record({"name": f"dim_map_{src}_{dst}_{dt}", "kind": "dim_map",
                    "attrs": {"src_format": src, "dst_format": dst}},
                   lambda x: [tf.raw_ops.DataFormatDimMap(x=x, src_format=src, dst_format=dst)],
                   [x])
        info = np.iinfo(dt)
        extremes = np.array([info.max, info.min, info.min + 3, info.max - 3, info.max - 5,
                             2 ** 20 + 1, -(2 ** 20) - 7], dtype=dt)
        for src, dst in [("NHWC", "NCHW"), ("NDHWC", "NCDHW")]:
            record({"name": f"dim_map_extremes_{src}_{dt}", "kind": "dim_map",
                    "attrs": {"src_format": src, "dst_format": dst}},
                   lambda x: [tf.raw_ops.DataFormatDimMap(x=x, src_format=src, dst_format=dst)],
                   [extremes])
        # TensorFlow's defaults (NHWC to NCHW), a scalar and an empty input.
        record({"name": f"dim_map_defaults_scalar_{dt}", "kind": "dim_map", "attrs": {}},
               lambda x: [gen_nn_dim_map(x)], [np.array(-1, dtype=dt)])
        record({"name": f"dim_map_empty_{dt}", "kind": "dim_map", "attrs": {}},
               lambda x: [gen_nn_dim_map(x)], [np.zeros((0, 3), dtype=dt)])
    for src, dst in BAD_FORMATS:
        record({"name": f"dim_map_bad_{src}_{dst}", "kind": "dim_map",
                "attrs": {"src_format": src, "dst_format": dst}},
               lambda x: [tf.raw_ops.DataFormatDimMap(x=x, src_format=src, dst_format=dst)],
               [np.arange(4, dtype=np.int32)])
    record({"name": "dim_map_float_input", "kind": "dim_map", "attrs": {}},
           lambda x: [gen_nn_dim_map(x)], [np.zeros(4, np.float32)])


def gen_nn_dim_map(x):
    from tensorflow.python.ops import gen_nn_ops
    return gen_nn_ops.data_format_dim_map(x)


def vec_permute_cases():
    shapes = [(2,), (3,), (4,), (5,), (2, 2), (3, 2), (4, 2), (5, 2)]
    for dt in ["int32", "int64"]:
        for src, dst in FORMATS:
            for shape in shapes:
                x = (np.arange(int(np.prod(shape))) * 3 + 10).astype(dt).reshape(shape)
                tag = "x".join(map(str, shape))
                record({"name": f"vec_permute_{src}_{dst}_{tag}_{dt}", "kind": "vec_permute",
                        "attrs": {"src_format": src, "dst_format": dst}},
                       lambda x: [tf.raw_ops.DataFormatVecPermute(x=x, src_format=src,
                                                                  dst_format=dst)],
                       [x], unknown=True)
    for shape in [(), (0,), (0, 2), (4, 3), (2, 2, 2), (1,), (6,), (4, 1)]:
        tag = "x".join(map(str, shape)) or "scalar"
        record({"name": f"vec_permute_bad_shape_{tag}", "kind": "vec_permute", "attrs": {}},
               lambda x: [tf.raw_ops.DataFormatVecPermute(x=x)],
               [np.zeros(shape, np.int32)], unknown=True)
    record({"name": "vec_permute_static_shape", "kind": "vec_permute", "attrs": {}},
           lambda x: [tf.raw_ops.DataFormatVecPermute(x=x)],
           [np.array([5, 6, 7, 8], np.int64)])
    for src, dst in BAD_FORMATS:
        record({"name": f"vec_permute_bad_{src}_{dst}", "kind": "vec_permute",
                "attrs": {"src_format": src, "dst_format": dst}},
               lambda x: [tf.raw_ops.DataFormatVecPermute(x=x, src_format=src, dst_format=dst)],
               [np.arange(4, dtype=np.int32)])


# ---------------------------------------------------------------------------------------------
# Inplace ops, DeepCopy, ParallelConcat.

INPLACE = {"InplaceUpdate": tf.raw_ops.InplaceUpdate, "InplaceAdd": tf.raw_ops.InplaceAdd,
           "InplaceSub": tf.raw_ops.InplaceSub}


def inplace_cases():
    # Rows 1 and 3 (-1) change, row 1 twice (the second update wins; adds accumulate), and
    # 5 wraps to row 1 as TensorFlow's (i % n + n) % n guard maps it.
    idx = np.array([1, -1, 5, 1], np.int32)
    for op, fn in INPLACE.items():
        for dt in ALL:
            x, v = sample(dt, (4, 3)), sample(dt, (4, 3))
            record({"name": f"{op}_{dt}", "kind": "inplace", "op": op},
                   lambda x, i, v, fn=fn: [fn(x=x, i=i, v=v)], [x, idx, v])
        x = np.arange(24, dtype=np.float32).reshape(4, 3, 2)
        edge = [
            ("rank3", x, np.array([2, 0], np.int32), np.ones((2, 3, 2), np.float32), False),
            ("vector", np.arange(5, dtype=np.int64), np.array([-5, 4], np.int32),
             np.array([100, 200], np.int64), False),
            ("empty_i", x, np.zeros(0, np.int32), np.zeros((0, 3, 2), np.float32), False),
            ("empty_x", np.zeros((0, 3), np.float32), np.array([0, 1], np.int32),
             np.ones((2, 3), np.float32), False),
            ("empty_rows", np.zeros((2, 0), np.float32), np.array([0], np.int32),
             np.ones((1, 0), np.float32), False),
            ("i_matrix", x, np.array([[0]], np.int32), np.ones((1, 3, 2), np.float32), True),
            ("i_scalar", x, np.array(0, np.int32), np.ones((1, 3, 2), np.float32), True),
            ("rank_differs", x, np.array([0], np.int32), np.ones((3, 2), np.float32), True),
            ("dim_differs", x, np.array([0], np.int32), np.ones((1, 3, 3), np.float32), True),
            ("count_differs", x, np.array([0, 1], np.int32), np.ones((1, 3, 2), np.float32),
             True),
            ("scalar_x", np.float32(3), np.array([0], np.int32), np.float32(2), True),
        ]
        for tag, x0, i0, v0, unknown in edge:
            record({"name": f"{op}_{tag}", "kind": "inplace", "op": op},
                   lambda x, i, v, fn=fn: [fn(x=x, i=i, v=v)], [x0, i0, v0], unknown=unknown)
    record({"name": "InplaceAdd_i_int64", "kind": "inplace", "op": "InplaceAdd"},
           lambda x, i, v: [tf.raw_ops.InplaceAdd(x=x, i=i, v=v)],
           [np.zeros(2, np.float32), np.array([0], np.int64), np.ones(1, np.float32)])
    for dt in ALL:
        x = sample(dt, (3, 2))
        record({"name": f"DeepCopy_{dt}", "kind": "deep_copy"},
               lambda x: [gen_array_ops.deep_copy(x)], [x])


def inplace_helper_cases():
    """inplace_ops' Python helpers: i None (all of x), a scalar row, a vector of rows."""
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    helpers = {"inplace_update": inplace_ops.inplace_update, "inplace_add": inplace_ops.inplace_add,
               "inplace_sub": inplace_ops.inplace_sub,
               "alias_inplace_update": inplace_ops.alias_inplace_update,
               "alias_inplace_add": inplace_ops.alias_inplace_add,
               "alias_inplace_sub": inplace_ops.alias_inplace_sub}
    for name, fn in helpers.items():
        for tag, i, v in [("none", None, np.full((4, 3), 0.5, np.float32)),
                          ("scalar", np.array(2, np.int64), np.array([1.5, 2.5, 3.5], np.float32)),
                          ("rows", np.array([3, 0], np.int32), np.full((2, 3), -2.0, np.float32))]:
            inputs = [x, v] if i is None else [x, i, v]
            build = ((lambda x, v, fn=fn: [fn(x, None, v)]) if i is None
                     else (lambda x, i, v, fn=fn: [fn(x, i, v)]))
            record({"name": f"helper_{name}_{tag}", "kind": "inplace_helper", "fn": name,
                    "index": tag}, build, inputs)


def parallel_stack_cases():
    for dt in ALL:
        vals = [sample(dt, (2, 3)) for _ in range(3)]
        record({"name": f"parallel_stack_{dt}", "kind": "parallel_stack"},
               lambda *v: [tf.parallel_stack(list(v))], vals)
    record({"name": "parallel_stack_scalars", "kind": "parallel_stack"},
           lambda *v: [tf.parallel_stack(list(v))],
           [np.float32(1.5), np.float32(-2.0)])
    record({"name": "parallel_stack_one", "kind": "parallel_stack"},
           lambda *v: [tf.parallel_stack(list(v))], [np.arange(4, dtype=np.int64)])
    record({"name": "parallel_stack_empty_rows", "kind": "parallel_stack"},
           lambda *v: [tf.parallel_stack(list(v))], [np.zeros((0, 2), np.float32)] * 2)
    record({"name": "parallel_stack_mismatch", "kind": "parallel_stack"},
           lambda *v: [tf.parallel_stack(list(v))],
           [np.array([1, 4], np.int32), np.array([2, 5, 6], np.int32)])
    record({"name": "parallel_stack_unknown", "kind": "parallel_stack"},
           lambda *v: [tf.parallel_stack(list(v))], [np.array([1, 4], np.int32)], unknown=True)
    pc = [np.array([[1, 4]], np.int32), np.array([[2, 5]], np.int32)]
    for tag, shape in [("unknown_dim", [None, 2]), ("too_short", [1, 2]), ("wide", [2, 3]),
                       ("rank", [2, 2, 1]), ("unknown_rank", None), ("scalar", [])]:
        record({"name": f"parallel_concat_{tag}", "kind": "parallel_concat", "shape": shape},
               lambda a, b, shape=shape: [tf.raw_ops.ParallelConcat(values=[a, b], shape=shape)],
               pc)
    record({"name": "parallel_concat_first_dim", "kind": "parallel_concat", "shape": [2, 2]},
           lambda a, b: [tf.raw_ops.ParallelConcat(values=[a, b], shape=[2, 2])],
           [np.array([1, 4], np.int32), np.array([2, 5], np.int32)])


# ---------------------------------------------------------------------------------------------
# BatchNormWithGlobalNormalization.

def const_node(name, arr):
    n = node_def_pb2.NodeDef(name=name, op="Const")
    n.attr["value"].tensor.CopyFrom(tensor_util.make_tensor_proto(arr))
    n.attr["dtype"].type = tf.as_dtype(arr.dtype).as_datatype_enum
    return n


def old_graph(op, inputs, attrs, unknown):
    """A producer-8 GraphDef: constants (behind unknown-shape PlaceholderWithDefaults when
    `unknown`) feeding one `op` node named "op"."""
    gd = graph_pb2.GraphDef()
    gd.versions.producer = 8
    names = []
    for k, a in enumerate(inputs):
        gd.node.append(const_node(f"in{k}", a))
        names.append(f"in{k}")
        if unknown:
            p = node_def_pb2.NodeDef(name=f"p{k}", op="PlaceholderWithDefault", input=[f"in{k}"])
            p.attr["dtype"].type = tf.as_dtype(a.dtype).as_datatype_enum
            p.attr["shape"].shape.unknown_rank = True
            gd.node.append(p)
            names[-1] = f"p{k}"
    n = node_def_pb2.NodeDef(name="op", op=op, input=names)
    n.attr["T"].type = tf.as_dtype(inputs[0].dtype).as_datatype_enum
    n.attr["variance_epsilon"].f = attrs["variance_epsilon"]
    n.attr["scale_after_normalization"].b = attrs["scale_after_normalization"]
    gd.node.append(n)
    return gd


def record_old(case, op, inputs, attrs, nout, unknown=False):
    case.update({"kind": "bn_op", "op": op, "attrs": attrs, "inputs": [enc(a) for a in inputs]})
    if unknown:
        case["unknown_shape"] = True
    g = tf.Graph()
    with g.as_default():
        try:
            tf.import_graph_def(old_graph(op, inputs, attrs, unknown), name="")
        except ValueError as e:
            case["error"] = {"type": "ValueError", "stage": "build",
                             "message": str(e).split(" for '{{node")[0]}
            CASES.append(case)
            return
        outs = [g.get_tensor_by_name(f"op:{k}") for k in range(nout)]
        with tf.Session() as s:
            try:
                vals = s.run(outs)
            except tf.errors.OpError as e:
                case["error"] = {"type": type(e).__name__, "stage": "run",
                                 "message": kernel_message(e)}
                CASES.append(case)
                return
    case["outputs"] = [enc(v) for v in vals]
    CASES.append(case)


def bn_inputs(dt, shape, grad):
    np_dt = np.dtype(dt)
    d = shape[-1]
    t = (rng.normal(size=shape) * 3).astype(np_dt)
    m = rng.normal(size=d).astype(np_dt)
    v = rng.uniform(0.01, 4, size=d).astype(np_dt)
    beta = rng.normal(size=d).astype(np_dt)
    gamma = rng.normal(size=d).astype(np_dt)
    if grad:
        return [t, m, v, gamma, (rng.normal(size=shape)).astype(np_dt)]
    return [t, m, v, beta, gamma]


def bn_cases():
    # Depth 6 (< every packet width) takes Eigen's scalar paths; depth 19 its packet paths
    # (and a scalar tail); 18 or 20 rows (16 or more) its four-accumulator column sums.
    for dt in ["float16", "float32", "float64"]:
        for shape in [(1, 3, 6, 6), (2, 1, 10, 19), (1, 1, 3, 6)]:
            for scale in [True, False]:
                attrs = {"variance_epsilon": 0.001, "scale_after_normalization": scale}
                tag = f"{dt}_d{shape[-1]}_{'scaled' if scale else 'unscaled'}"
                # float32's packet rsqrt is a hardware estimate refined by one Newton step
                # (within 4 ulp of 1/sqrt); weir computes 1/sqrt.
                ulps = 16 if dt == "float32" and shape[-1] >= 8 else 0
                record_old({"name": f"bn_{tag}", "ulps": ulps},
                           "BatchNormWithGlobalNormalization", bn_inputs(dt, shape, False),
                           attrs, 1)
                record_old({"name": f"bn_grad_{tag}", "ulps": 4 * ulps},
                           "BatchNormWithGlobalNormalizationGrad", bn_inputs(dt, shape, True),
                           attrs, 5)
    attrs = {"variance_epsilon": 0.25, "scale_after_normalization": True}
    x = [a.astype(np.float32) for a in bn_inputs("float32", (1, 2, 2, 3), False)]
    for name, bad in [("t_rank", 0), ("m_rank", 1), ("v_rank", 2), ("beta_rank", 3),
                      ("gamma_rank", 4)]:
        ins = list(x)
        ins[bad] = ins[bad].reshape(-1) if bad == 0 else ins[bad].reshape(1, -1)
        record_old({"name": f"bn_bad_{name}"}, "BatchNormWithGlobalNormalization", ins, attrs,
                   1, unknown=True)
        record_old({"name": f"bn_bad_{name}_static"}, "BatchNormWithGlobalNormalization", ins,
                   attrs, 1)
    g = [a.astype(np.float32) for a in bn_inputs("float32", (1, 2, 2, 3), True)]
    for name, bad in [("t_rank", 0), ("m_rank", 1), ("v_rank", 2), ("gamma_rank", 3),
                      ("backprop_rank", 4)]:
        ins = list(g)
        ins[bad] = ins[bad].reshape(-1) if bad in (0, 4) else ins[bad].reshape(1, -1)
        record_old({"name": f"bn_grad_bad_{name}"}, "BatchNormWithGlobalNormalizationGrad", ins,
                   attrs, 5, unknown=True)
    record_old({"name": "bn_depth_mismatch_static"}, "BatchNormWithGlobalNormalization",
               x[:1] + [a[:2] for a in x[1:]], attrs, 1)
    for dt in ["int32", "bfloat16", "complex64"]:
        np_dt = BF16 if dt == "bfloat16" else np.dtype(dt)
        record_old({"name": f"bn_no_kernel_{dt}"}, "BatchNormWithGlobalNormalization",
                   [a.astype(np_dt) for a in x], attrs, 1)
        record_old({"name": f"bn_grad_no_kernel_{dt}"}, "BatchNormWithGlobalNormalizationGrad",
                   [a.astype(np_dt) for a in g], attrs, 5)
    # The Python function: tf.nn.batch_normalization's composite, not the op.
    for dt in ["float32", "float64"]:
        for scale in [True, False]:
            ins = bn_inputs(dt, (2, 3, 4, 5), False)
            record({"name": f"bn_composite_{dt}_{scale}", "kind": "bn_composite",
                    "variance_epsilon": 0.001, "scale_after_normalization": scale},
                   lambda t, m, v, b, g, s=scale: [tf.nn.batch_norm_with_global_normalization(
                       t, m, v, b, g, 0.001, s)], ins)


def bn_gradient_cases():
    """tf.gradients of the op with respect to all five inputs, for a fixed grad_ys."""
    for dt, shape in [("float32", (2, 3, 4, 5)), ("float64", (2, 3, 4, 5)),
                      ("float16", (2, 3, 4, 5)), ("float32", (1, 4, 5, 9))]:
        for scale in [True, False]:
            attrs = {"variance_epsilon": 0.001, "scale_after_normalization": scale}
            ins = bn_inputs(dt, shape, False)
            dy = rng.normal(size=shape).astype(ins[0].dtype)
            g = tf.Graph()
            with g.as_default():
                tf.import_graph_def(old_graph("BatchNormWithGlobalNormalization", ins, attrs,
                                              False), name="")
                xs = [g.get_tensor_by_name(f"in{k}:0") for k in range(5)]
                y = g.get_tensor_by_name("op:0")
                grads = tf.gradients(y, xs, grad_ys=tf.constant(dy))
                ops = sorted({o.type for o in g.get_operations()})
                with tf.Session() as s:
                    vals = s.run([y] + grads)
            ulps = 16 if dt == "float32" and shape[-1] >= 8 else 0
            CASES.append({"name": f"bn_gradients_{dt}_d{shape[-1]}_{scale}",
                          "kind": "bn_gradients", "attrs": attrs, "ulps": ulps,
                          "inputs": [enc(a) for a in ins], "grad_ys": enc(dy),
                          "op_types": ops, "outputs": [enc(v) for v in vals]})


def graph_def_case():
    """An old-style GraphDef (producer version 8) holding every op of this family, written as
    small_ops_graph.pbtxt: the DataFormat ops with their default attrs left out (the importer
    fills them in), and the batch norm ops as the Inception-era graphs hold them."""
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(np.arange(-4, 4, dtype=np.int32), name="axes")
        tf.raw_ops.DataFormatDimMap(x=x, name="dim_map")
        tf.raw_ops.DataFormatVecPermute(x=tf.constant(np.array([[1, 2], [3, 4], [5, 6], [7, 8]],
                                                               np.int64)), name="vec_permute")
        rows = tf.constant(sample("float32", (4, 3)), name="rows")
        tf.raw_ops.InplaceAdd(x=rows, i=tf.constant([3, 0], name="i"),
                              v=tf.constant(sample("float32", (2, 3))), name="inplace_add")
        tf.parallel_stack([tf.constant(sample("int16", (2,))) for _ in range(3)])
    gd = g.as_graph_def()
    gd.versions.producer = 8
    for n in gd.node:
        if n.op.startswith("DataFormat"):
            for a in ["T", "src_format", "dst_format"]:
                if a != "T" or n.attr[a].type == tf.int32.as_datatype_enum:
                    del n.attr[a]
    ins = bn_inputs("float32", (1, 2, 3, 4), False)
    for k, a in enumerate(ins):
        gd.node.append(const_node(f"bn/in{k}", a))
    attrs = {"variance_epsilon": 0.001, "scale_after_normalization": True}
    for op, names in [("BatchNormWithGlobalNormalization", [0, 1, 2, 3, 4]),
                      ("BatchNormWithGlobalNormalizationGrad", [0, 1, 2, 4, 0])]:
        n = node_def_pb2.NodeDef(name=op, op=op, input=[f"bn/in{k}" for k in names])
        n.attr["T"].type = tf.float32.as_datatype_enum
        n.attr["variance_epsilon"].f = attrs["variance_epsilon"]
        n.attr["scale_after_normalization"].b = True
        gd.node.append(n)
    fetches = ["dim_map:0", "vec_permute:0", "inplace_add:0", "parallel_stack/ParallelConcat:0",
               "BatchNormWithGlobalNormalization:0"] + [
        f"BatchNormWithGlobalNormalizationGrad:{k}" for k in range(5)]
    # Written first: tf.import_graph_def fills the defaults into the GraphDef it is given.
    with open(os.path.join(HERE, "small_ops_graph.pbtxt"), "w") as f:
        f.write(str(gd))
    g2 = tf.Graph()
    with g2.as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session() as s:
            vals = s.run(fetches)
    CASES.append({"name": "graph_def", "kind": "graph_def", "fetches": fetches,
                  "outputs": [enc(v) for v in vals]})


dim_map_cases()
vec_permute_cases()
inplace_cases()
inplace_helper_cases()
parallel_stack_cases()
bn_cases()
bn_gradient_cases()
graph_def_case()
with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": CASES}, f, indent=None, separators=(",", ":"))
    f.write("\n")
print(len(CASES), "cases;", sum("error" in c for c in CASES), "errors")
