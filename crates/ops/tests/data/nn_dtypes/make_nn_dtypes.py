"""Records TensorFlow 2.21's CPU results of BiasAdd, BiasAddV1 and BiasAddGrad on every number
type (NHWC and NCHW), and of MaxPool, MaxPoolV2, MaxPoolGrad and MaxPoolGradV2 on every real
type, for crates/ops/tests/integration/nn_dtypes.rs.

Tensors are encoded as make_binary_dtypes.py encodes them (half and float elements as their
IEEE bit patterns, complex elements as [re, im] pairs of them, integers as they are). A case
TensorFlow rejects records where ("build": when the node is added; "run": when it runs) and
its message.

Run with TensorFlow 2.21: python make_nn_dtypes.py (writes expected.json beside it).
"""
import json
import os

import ml_dtypes
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
BF16 = ml_dtypes.bfloat16
BITS = {"float16": np.uint16, "bfloat16": np.uint16, "float32": np.uint32, "float64": np.uint64}
NUMBER = {
    "float16": np.float16, "bfloat16": BF16, "float32": np.float32, "float64": np.float64,
    "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
    "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
    "complex64": np.complex64, "complex128": np.complex128,
}
REAL = {k: v for k, v in NUMBER.items() if not k.startswith("complex")}
RS = np.random.RandomState(20261128)


def encode(a):
    """make_binary_dtypes.py's encoding."""
    a = np.asarray(a)
    name = "bfloat16" if a.dtype == BF16 else a.dtype.name
    flat = a.reshape(-1)
    if name in BITS:
        vals = [int(v) for v in flat.view(BITS[name])]
    elif name == "complex64":
        vals = [[int(r), int(i)] for r, i in zip(flat.real.view(np.uint32), flat.imag.view(np.uint32))]
    elif name == "complex128":
        vals = [[int(r), int(i)] for r, i in zip(flat.real.view(np.uint64), flat.imag.view(np.uint64))]
    elif name == "bool":
        vals = [bool(v) for v in flat]
    else:
        vals = [int(v) for v in flat]
    return {"dtype": name, "shape": list(a.shape), "values": vals}
CASES = []


def values(dtype, shape, lo=-6, hi=7):
    """Small values of `dtype`: integers (wrapping for the narrow types), floats with
    fractions, complex with both parts."""
    n = int(np.prod(shape))
    if dtype.startswith("complex"):
        v = RS.uniform(-3, 3, n) + 1j * RS.uniform(-3, 3, n)
    elif dtype.startswith("float") or dtype == "bfloat16":
        v = RS.uniform(-3, 3, n)
    else:
        v = RS.randint(lo, hi, n)
        if dtype.startswith("uint"):
            v = np.abs(v)
    return np.asarray(v).astype(NUMBER[dtype]).reshape(shape)


def record(name, op, inputs, attrs):
    """Runs raw op `op` on constant `inputs` (a list of (name, array)) with `attrs`."""
    case = {
        "name": name,
        "op": op,
        "inputs": [[k, encode(v)] for k, v in inputs],
        "attrs": attrs,
    }
    g = tf.Graph()
    try:
        with g.as_default():
            kw = {k: tf.constant(v) for k, v in inputs}
            y = getattr(tf.raw_ops, op)(**kw, **attrs)
    except (ValueError, TypeError) as e:
        case["error"] = {"stage": "build", "message": str(e)}
        CASES.append(case)
        return
    try:
        with tf.Session(graph=g) as s:
            case["output"] = encode(s.run(y))
    except tf.errors.OpError as e:
        case["error"] = {"stage": "run", "message": e.message.split("\n")[0]}
    CASES.append(case)


def bias_cases():
    for dt in NUMBER:
        for fmt, shape in [("NHWC", (3, 4)), ("NHWC", (2, 2, 3, 4)), ("NCHW", (2, 4, 3)),
                           ("NCHW", (2, 4, 2, 3)), ("NCHW", (1, 4, 2, 2, 2)),
                           ("NHWC", (1, 2, 1, 2, 2, 4)), ("NCHW", (1, 4, 1, 2, 2, 2))]:
            tag = f"{dt}_{fmt}_{'x'.join(map(str, shape))}"
            c = shape[-1] if fmt == "NHWC" else shape[1]
            record(f"bias_add_{tag}", "BiasAdd",
                   [("value", values(dt, shape)), ("bias", values(dt, (c,)))],
                   {"data_format": fmt})
            record(f"bias_add_grad_{tag}", "BiasAddGrad",
                   [("out_backprop", values(dt, shape))], {"data_format": fmt})
        record(f"bias_add_v1_{dt}", "BiasAddV1",
               [("value", values(dt, (2, 3))), ("bias", values(dt, (3,)))], {})
    # Integer sums and sums of biases wrap around.
    for dt in ["int8", "uint8", "int16", "uint16"]:
        info = np.iinfo(NUMBER[dt])
        v = np.full((6, 2, 3), info.max - 2, NUMBER[dt])
        record(f"bias_add_wraps_{dt}", "BiasAdd",
               [("value", v), ("bias", np.full((3,), 5, NUMBER[dt]))], {"data_format": "NHWC"})
        record(f"bias_add_grad_wraps_{dt}_NHWC", "BiasAddGrad", [("out_backprop", v)],
               {"data_format": "NHWC"})
        record(f"bias_add_grad_wraps_{dt}_NCHW", "BiasAddGrad", [("out_backprop", v)],
               {"data_format": "NCHW"})
    # Empty tensors.
    record("bias_add_empty_NCHW", "BiasAdd",
           [("value", np.zeros((0, 3, 2), np.int32)), ("bias", np.arange(3, dtype=np.int32))],
           {"data_format": "NCHW"})
    record("bias_add_grad_empty_batch_NCHW", "BiasAddGrad",
           [("out_backprop", np.zeros((0, 3, 2), np.float32))], {"data_format": "NCHW"})
    record("bias_add_grad_empty_spatial_NCHW", "BiasAddGrad",
           [("out_backprop", np.zeros((2, 3, 0), np.int64))], {"data_format": "NCHW"})
    # Errors.
    f = np.float32
    record("bias_add_nchw_rank2", "BiasAdd",
           [("value", np.zeros((3, 4), f)), ("bias", np.zeros(4, f))], {"data_format": "NCHW"})
    record("bias_add_grad_nchw_rank2", "BiasAddGrad",
           [("out_backprop", np.zeros((3, 4), f))], {"data_format": "NCHW"})
    record("bias_add_nchw_wrong_channels", "BiasAdd",
           [("value", np.zeros((2, 3, 4), f)), ("bias", np.zeros(4, f))], {"data_format": "NCHW"})
    record("bias_add_bad_format", "BiasAdd",
           [("value", np.zeros((2, 3), f)), ("bias", np.zeros(3, f))], {"data_format": "NCDHW"})
    record("bias_add_bool", "BiasAdd",
           [("value", np.zeros((2, 3), np.bool_)), ("bias", np.zeros(3, np.bool_))],
           {"data_format": "NHWC"})


def pool_input(dt, shape):
    # Distinct values, half of them negative, so ties and all-negative SAME windows both occur.
    v = values(dt, shape, -40, 41)
    return v


def max_pool_cases():
    geoms = [("VALID", [1, 2, 2, 1], [1, 2, 2, 1]), ("SAME", [1, 3, 3, 1], [1, 2, 2, 1]),
             ("SAME", [1, 2, 3, 1], [1, 1, 2, 1])]
    shape = (2, 4, 5, 3)
    for dt in REAL:
        x = pool_input(dt, shape)
        for pad, k, s in geoms:
            tag = f"{dt}_{pad}_k{k[1]}{k[2]}_s{s[1]}{s[2]}"
            attrs = {"ksize": k, "strides": s, "padding": pad}
            record(f"max_pool_{tag}", "MaxPool", [("input", x)], attrs)
            record(f"max_pool_v2_{tag}", "MaxPoolV2",
                   [("input", x), ("ksize", np.array(k, np.int32)),
                    ("strides", np.array(s, np.int32))], {"padding": pad})
            g = tf.Graph()
            with g.as_default():
                y = tf.nn.max_pool(tf.constant(x.astype(np.float32)), k, s, pad)
                with tf.Session() as sess:
                    oshape = sess.run(tf.shape(y))
            y = values(dt, tuple(oshape), -40, 41)  # orig_output is not read on CPU
            dy = values(dt, tuple(oshape), -5, 6)
            record(f"max_pool_grad_{tag}", "MaxPoolGrad",
                   [("orig_input", x), ("orig_output", y), ("grad", dy)], attrs)
            record(f"max_pool_grad_v2_{tag}", "MaxPoolGradV2",
                   [("orig_input", x), ("orig_output", y), ("grad", dy),
                    ("ksize", np.array(k, np.int32)), ("strides", np.array(s, np.int32))],
                   {"padding": pad})
    # Overlapping windows send several gradients to one input; integer sums wrap.
    x = np.zeros((1, 3, 3, 1), np.int8)
    x[0, 1, 1, 0] = 9
    record("max_pool_grad_wraps_int8", "MaxPoolGrad",
           [("orig_input", x), ("orig_output", np.zeros((1, 3, 3, 1), np.int8)),
            ("grad", np.full((1, 3, 3, 1), 100, np.int8))],
           {"ksize": [1, 3, 3, 1], "strides": [1, 1, 1, 1], "padding": "SAME"})


def main():
    bias_cases()
    max_pool_cases()
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")
    with open(out, "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": CASES}, f, separators=(",", ":"))
    print(f"{len(CASES)} cases -> {out}")


if __name__ == "__main__":
    main()
