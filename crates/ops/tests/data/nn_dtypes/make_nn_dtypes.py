"""Records TensorFlow 2.21's CPU results of BiasAdd, BiasAddV1 and BiasAddGrad on every number
type (NHWC and NCHW), of MaxPool, MaxPoolV2, MaxPoolGrad and MaxPoolGradV2 on every real type,
and of padding="EXPLICIT" (explicit_paddings) in MaxPool, MaxPoolGrad, Conv2D,
Conv2DBackpropInput, Conv2DBackpropFilter and the DepthwiseConv2dNative family, and of
MaxPoolWithArgmax and MaxPoolGradWithArgmax on the half and integer types, of Relu, Relu6 and
their gradients on the integer types, of TopKV2 on the half types, and of Dilation2D and its
backprops on the half types and with wrapping integer sums, for
crates/ops/tests/integration/nn_dtypes.rs.
The convolutions' inputs are small integers, so their float sums are exact in any order.

Tensors are encoded by ../tensor_json.py (half and float elements as their IEEE bit patterns,
complex elements as [re, im] pairs of them, integers as they are). A case
TensorFlow rejects records where ("build": when the node is added; "run": when it runs) and
its message.

Run with TensorFlow 2.21: python make_nn_dtypes.py (writes expected.json beside it).
"""
import json
import os
import sys

import ml_dtypes
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tensor_json import encode  # noqa: E402
BF16 = ml_dtypes.bfloat16
NUMBER = {
    "float16": np.float16, "bfloat16": BF16, "float32": np.float32, "float64": np.float64,
    "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
    "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
    "complex64": np.complex64, "complex128": np.complex128,
}
REAL = {k: v for k, v in NUMBER.items() if not k.startswith("complex")}
RS = np.random.RandomState(20261128)


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


def small_ints(dtype, shape, lo, hi):
    """Integer values in [lo, hi) as `dtype`: float sums of them are exact in any order."""
    return RS.randint(lo, hi, int(np.prod(shape))).astype(NUMBER[dtype]).reshape(shape)


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
            got = s.run(y)
            if isinstance(got, (tuple, list)):
                case["outputs"] = [encode(v) for v in got]
            else:
                case["output"] = encode(got)
    except tf.errors.OpError as e:
        # The kernel's words, without TensorFlow's "Graph execution error", "Node: ..." and
        # traceback lines around them.
        lines = [ln for ln in e.message.split("\n")
                 if ln.strip() and not ln.startswith((" ", "\t", "Node: ", "Graph execution",
                                                      "Detected at"))]
        case["error"] = {"stage": "run", "message": lines[0]}
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


def explicit_cases():
    shape = (2, 5, 6, 3)
    geoms = [  # ksize (or filter size), strides, explicit paddings (top, bottom, left, right)
        ((3, 3), (2, 2), (1, 2, 2, 0)),
        ((2, 3), (1, 2), (0, 1, 1, 1)),
        ((3, 2), (2, 1), (2, 2, 0, 1)),
    ]
    for dt in ["float32", "float64", "int32", "uint8", "float16"]:
        x = values(dt, shape, -40, 41)
        for (kh, kw), (sh, sw), (t, b, l, r) in geoms:
            tag = f"{dt}_k{kh}{kw}_s{sh}{sw}_p{t}{b}{l}{r}"
            attrs = {"ksize": [1, kh, kw, 1], "strides": [1, sh, sw, 1], "padding": "EXPLICIT",
                     "explicit_paddings": [0, 0, t, b, l, r, 0, 0]}
            record(f"explicit_max_pool_{tag}", "MaxPool", [("input", x)], attrs)
            oh = (shape[1] + t + b - kh) // sh + 1
            ow = (shape[2] + l + r - kw) // sw + 1
            y = values(dt, (2, oh, ow, 3), -40, 41)
            dy = values(dt, (2, oh, ow, 3), -5, 6)
            record(f"explicit_max_pool_grad_{tag}", "MaxPoolGrad",
                   [("orig_input", x), ("orig_output", y), ("grad", dy)], attrs)
    f = np.float32
    x = values("float32", shape, -40, 41)
    base = {"ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1], "padding": "EXPLICIT"}
    for name, pads in [("pad_not_below_window", [0, 0, 3, 0, 0, 0, 0, 0]),
                       ("pad_right_not_below_window", [0, 0, 0, 0, 0, 3, 0, 0]),
                       ("seven_values", [0, 0, 1, 1, 1, 1, 0]),
                       ("negative", [0, 0, -1, 1, 1, 1, 0, 0]),
                       ("batch_padded", [1, 0, 1, 1, 1, 1, 0, 0]),
                       ("depth_padded", [0, 0, 1, 1, 1, 1, 0, 2]),
                       ("missing", [])]:
        record(f"explicit_max_pool_{name}", "MaxPool", [("input", x)],
               {**base, "explicit_paddings": pads})
    record("explicit_max_pool_with_same", "MaxPool", [("input", x)],
           {**base, "padding": "SAME", "explicit_paddings": [0, 0, 1, 1, 1, 1, 0, 0]})
    record("max_pool_grad_wrong_orig_output", "MaxPoolGrad",
           [("orig_input", x), ("orig_output", np.zeros((2, 2, 2, 3), f)),
            ("grad", np.zeros((2, 3, 3, 3), f))],
           {**base, "explicit_paddings": [0, 0, 1, 1, 1, 1, 0, 0]})
    # Convolutions: small integer values, exact in any summation order. TensorFlow's depthwise
    # CPU kernels take equal strides only (weir's take any).
    dw_geoms = [((3, 3), (2, 2), (1, 2, 2, 0)), ((2, 3), (1, 1), (0, 1, 1, 1)),
                ((3, 2), (2, 2), (2, 2, 0, 1))]
    for ops, out_per_in, out_c, conv_geoms in [
            (("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"), 4, 4, geoms),
            (("DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput",
              "DepthwiseConv2dNativeBackpropFilter"), 2, 6, dw_geoms)]:
        for dt in ["float32", "float64"]:
            x = small_ints(dt, shape, -4, 5)
            for (kh, kw), (sh, sw), (t, b, l, r) in conv_geoms:
                tag = f"{ops[0]}_{dt}_k{kh}{kw}_s{sh}{sw}_p{t}{b}{l}{r}"
                w = small_ints(dt, (kh, kw, 3, out_per_in), -3, 4)
                attrs = {"strides": [1, sh, sw, 1], "padding": "EXPLICIT",
                         "explicit_paddings": [0, 0, t, b, l, r, 0, 0]}
                record(f"explicit_{tag}", ops[0], [("input", x), ("filter", w)], attrs)
                oh = (shape[1] + t + b - kh) // sh + 1
                ow = (shape[2] + l + r - kw) // sw + 1
                dy = small_ints(dt, (2, oh, ow, out_c), -3, 4)
                record(f"explicit_backprop_input_{tag}", ops[1],
                       [("input_sizes", np.array(shape, np.int32)), ("filter", w),
                        ("out_backprop", dy)], attrs)
                record(f"explicit_backprop_filter_{tag}", ops[2],
                       [("input", x), ("filter_sizes", np.array([kh, kw, 3, out_per_in], np.int32)),
                        ("out_backprop", dy)], attrs)
    x = small_ints("float32", shape, -4, 5)
    w = small_ints("float32", (3, 3, 3, 4), -3, 4)
    record("explicit_conv2d_batch_padded", "Conv2D", [("input", x), ("filter", w)],
           {"strides": [1, 1, 1, 1], "padding": "EXPLICIT",
            "explicit_paddings": [0, 1, 1, 1, 1, 1, 0, 0]})
    record("explicit_conv2d_negative_output", "Conv2D",
           [("input", small_ints("float32", (1, 2, 2, 3), -4, 5)), ("filter", w)],
           {"strides": [1, 1, 1, 1], "padding": "EXPLICIT",
            "explicit_paddings": [0, 0, 0, 0, 0, 0, 0, 0]})


def argmax_cases():
    """MaxPoolWithArgmax and its gradient on the types weir took no kernel for."""
    shape = (2, 4, 5, 3)
    for dt in ["float16", "bfloat16", "int8", "uint8", "int64"]:
        x = values(dt, shape, -40, 41)
        for pad, k, st in [("VALID", [1, 2, 2, 1], [1, 2, 2, 1]), ("SAME", [1, 3, 3, 1], [1, 2, 2, 1])]:
            for with_batch in [False, True]:
                tag = f"{dt}_{pad}_{'batch' if with_batch else 'image'}"
                attrs = {"ksize": k, "strides": st, "padding": pad,
                         "include_batch_in_index": with_batch}
                record(f"max_pool_with_argmax_{tag}", "MaxPoolWithArgmax", [("input", x)], attrs)
                g = tf.Graph()
                with g.as_default():
                    _, at = tf.raw_ops.MaxPoolWithArgmax(input=tf.constant(x), **attrs)
                    with tf.Session() as sess:
                        at = sess.run(at)
                dy = values(dt, at.shape, -5, 6)
                record(f"max_pool_grad_with_argmax_{tag}", "MaxPoolGradWithArgmax",
                       [("input", x), ("grad", dy), ("argmax", at)], attrs)
    # Overlapping windows send several gradients to one input: int8 sums wrap.
    x = np.zeros((1, 3, 3, 1), np.int8)
    x[0, 1, 1, 0] = 9
    attrs = {"ksize": [1, 3, 3, 1], "strides": [1, 1, 1, 1], "padding": "SAME",
             "include_batch_in_index": False}
    record("max_pool_grad_with_argmax_wraps_int8", "MaxPoolGradWithArgmax",
           [("input", x), ("grad", np.full((1, 3, 3, 1), 100, np.int8)),
            ("argmax", np.full((1, 3, 3, 1), 4, np.int64))], attrs)


def relu_top_k_cases():
    """Relu, Relu6 and their gradients on the integer types; TopKV2 on the half types."""
    for dt in ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]:
        x = values(dt, (3, 7), -9, 10)
        g = values(dt, (3, 7), -5, 6)
        for op in ["Relu", "Relu6"]:
            record(f"{op.lower()}_{dt}", op, [("features", x)], {})
            record(f"{op.lower()}_grad_{dt}", f"{op}Grad", [("gradients", g), ("features", x)], {})
    for dt in ["float16", "bfloat16"]:
        rows = values(dt, (4, 21), -3, 3)
        rows[1, 5] = rows[1, 9] = rows[1, 14]  # ties
        rows[2, 3] = np.nan
        rows[3, 20] = np.nan  # a NaN last
        for k in [1, 3, 21]:
            for sorted_ in [True, False]:
                record(f"top_k_{dt}_k{k}_{'sorted' if sorted_ else 'unsorted'}", "TopKV2",
                       [("input", rows), ("k", np.array(k, np.int32))], {"sorted": sorted_})


def dilation_cases():
    """Dilation2D and its backprops on the half types, and integer sums that wrap."""
    attrs = {"strides": [1, 1, 2, 1], "rates": [1, 2, 1, 1], "padding": "SAME"}
    for dt in ["float16", "bfloat16", "int8", "uint8"]:
        lo, hi = (100, 127) if dt == "int8" else (-6, 7)
        x = values(dt, (2, 5, 6, 2), lo, hi)
        w = values(dt, (2, 3, 2), lo, hi)
        record(f"dilation2d_{dt}", "Dilation2D", [("input", x), ("filter", w)], attrs)
        dy = values(dt, (2, 5, 3, 2), lo, hi)
        record(f"dilation2d_backprop_input_{dt}", "Dilation2DBackpropInput",
               [("input", x), ("filter", w), ("out_backprop", dy)], attrs)
        record(f"dilation2d_backprop_filter_{dt}", "Dilation2DBackpropFilter",
               [("input", x), ("filter", w), ("out_backprop", dy)], attrs)


def main():
    bias_cases()
    max_pool_cases()
    explicit_cases()
    argmax_cases()
    relu_top_k_cases()
    dilation_cases()
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")
    with open(out, "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": CASES}, f, separators=(",", ":"))
    print(f"{len(CASES)} cases -> {out}")


if __name__ == "__main__":
    main()
