"""Records what TensorFlow 2.21 (tf.compat.v1, graph mode) computes for the ops of
crates/ops/tests/integration/math_binary.rs and crates/train/tests/integration/math_binary_grad.rs:
Atan2, Xlogy, Xdivy, Xlog1py, MulNoNan, Mod, NextAfter, ApproximateEqual, Igamma, Igammac,
IgammaGradA, Betainc and the tf.bitwise ops, on small fixed inputs (edge values included), with
their values, static shapes, errors and gradients.

Run: ~/.cache/weir-bench/venv/bin/python make_math_binary.py   (writes expected.json beside it)

Each case: {"name", "op", "inputs": [tensor...], "attrs": {...}, "dynamic" (inputs are
placeholders of unknown shape, so the kernel rather than the shape function sees them),
"static_shape" (null when unknown), and either "outputs": [tensor] or "error": {"type",
"message"}; differentiable cases also have "grad_ys" and "grads": [tensor or null per input]}.
A tensor is {"dtype", "shape", "values"}; float values are their IEEE bit patterns (uint32 for
float32, uint64 for float64), so the Rust side reads them exactly, NaN and infinities included.
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
    if a.dtype == np.float32:
        vals = [int(v) for v in a.reshape(-1).view(np.uint32).tolist()]
    elif a.dtype == np.float64:
        vals = [int(v) for v in a.reshape(-1).view(np.uint64).tolist()]
    elif a.dtype == np.bool_:
        vals = [bool(v) for v in a.reshape(-1).tolist()]
    else:
        vals = [int(v) for v in a.reshape(-1).tolist()]
    return {"dtype": str(a.dtype), "shape": list(a.shape), "values": vals}


def err_message(e):
    msg = getattr(e, "message", str(e))
    if "\nNode: '" in msg:
        msg = msg.split("\nNode: '", 1)[1].split("\n", 1)[1]
    msg = msg.split("\n\t [[")[0].split(" for '{{node ")[0]
    return msg.strip()


def weights_like(shape, dtype):
    n = int(np.prod(shape))
    w = np.array([0.5 + ((i * 7919 + 13) % 1000) / 1000.0 for i in range(n)])
    return w.reshape(shape).astype(dtype)


RAW = {
    "Atan2": lambda t, a: tf.math.atan2(t[0], t[1]),
    "Xlogy": lambda t, a: tf.math.xlogy(t[0], t[1]),
    "Xdivy": lambda t, a: tf.math.xdivy(t[0], t[1]),
    "Xlog1py": lambda t, a: tf.math.xlog1py(t[0], t[1]),
    "MulNoNan": lambda t, a: tf.math.multiply_no_nan(t[0], t[1]),
    "Mod": lambda t, a: tf.raw_ops.Mod(x=t[0], y=t[1]),
    "NextAfter": lambda t, a: tf.math.nextafter(t[0], t[1]),
    "ApproximateEqual": lambda t, a: tf.raw_ops.ApproximateEqual(x=t[0], y=t[1], **a),
    "Igamma": lambda t, a: tf.math.igamma(t[0], t[1]),
    "Igammac": lambda t, a: tf.math.igammac(t[0], t[1]),
    "IgammaGradA": lambda t, a: tf.raw_ops.IgammaGradA(a=t[0], x=t[1]),
    "Betainc": lambda t, a: tf.math.betainc(t[0], t[1], t[2]),
    "BitwiseAnd": lambda t, a: tf.bitwise.bitwise_and(t[0], t[1]),
    "BitwiseOr": lambda t, a: tf.bitwise.bitwise_or(t[0], t[1]),
    "BitwiseXor": lambda t, a: tf.bitwise.bitwise_xor(t[0], t[1]),
    "LeftShift": lambda t, a: tf.bitwise.left_shift(t[0], t[1]),
    "RightShift": lambda t, a: tf.bitwise.right_shift(t[0], t[1]),
    "Invert": lambda t, a: tf.bitwise.invert(t[0]),
    "PopulationCount": lambda t, a: tf.raw_ops.PopulationCount(x=t[0]),
}


def case(name, op, inputs, attrs=None, grad=False, dynamic=False, shapes=None):
    """`shapes` (a partial static shape per input, None for an unknown rank) makes the inputs
    placeholders of those shapes, to check static shape inference."""
    attrs = attrs or {}
    inputs = [np.asarray(v) for v in inputs]
    rec = {"name": name, "op": op, "inputs": [enc(v) for v in inputs], "attrs": attrs,
           "dynamic": dynamic}
    if shapes is not None:
        rec["shapes"] = shapes
    g = tf.Graph()
    with g.as_default():
        try:
            if shapes is not None:
                ts = [tf.placeholder_with_default(v, s) for v, s in zip(inputs, shapes)]
            elif dynamic:
                ts = [tf.placeholder_with_default(v, None) for v in inputs]
            elif grad:
                ts = [tf.placeholder_with_default(v, v.shape) for v in inputs]
            else:
                ts = [tf.constant(v) for v in inputs]
            out = RAW[op](ts, attrs)
            rec["static_shape"] = out.shape.as_list() if out.shape.rank is not None else None
            if grad:
                wy = tf.constant(weights_like(out.shape.as_list(), out.dtype.as_numpy_dtype))
                grads = tf.gradients(out, ts, grad_ys=wy)
            with tf.Session() as s:
                rec["outputs"] = [enc(s.run(out))]
                if grad:
                    rec["grad_ys"] = enc(s.run(wy))
                    rec["grads"] = [None if d is None else enc(s.run(d)) for d in grads]
        except (tf.errors.OpError, ValueError, TypeError) as e:
            rec["error"] = {"type": type(e).__name__, "message": err_message(e)}
            rec.pop("outputs", None)
    CASES.append(rec)


f32, f64 = np.float32, np.float64
inf, nan = np.inf, np.nan

# Elementwise float ops, with edge values and broadcasting.
EDGE_X = [0.0, -0.0, 1.5, -2.0, 0.0, 3.0, nan, inf, 0.0, 1e-30]
EDGE_Y = [0.0, nan, 0.0, 2.5, inf, -1.0, 1.0, 0.5, -inf, 7.0]
for op in ["Atan2", "Xlogy", "Xdivy", "Xlog1py", "MulNoNan", "Mod", "NextAfter"]:
    for dt in (f32, f64):
        case(f"{op}_edges_{dt.__name__}", op, [np.array(EDGE_X, dt), np.array(EDGE_Y, dt)])
    grad = op != "Mod"
    case(f"{op}_broadcast_f64", op,
         [np.array([[0.5, 1.25, 2.0], [3.0, 0.75, 1.5]], f64), np.array([0.3, 2.0, 4.5], f64)],
         grad=grad)
    case(f"{op}_broadcast_f32", op,
         [np.array([[0.5], [1.5]], f32), np.array([0.4, 2.5, 3.5], f32)], grad=grad)
    case(f"{op}_scalar_f64", op, [np.array(1.75, f64), np.array([0.5, 1.5, 6.0], f64)], grad=grad)
    case(f"{op}_incompatible", op, [np.ones([2], f32), np.ones([3], f32)])
    case(f"{op}_incompatible_dynamic", op, [np.ones([2], f32), np.ones([3], f32)], dynamic=True)
    case(f"{op}_int32", op, [np.array([7, -7], np.int32), np.array([2, 2], np.int32)])

case("Atan2_quadrants_f64", "Atan2",
     [np.array([1.0, 1.0, -1.0, -1.0, 0.0, -0.0, 0.0, -0.0], f64),
      np.array([1.0, -1.0, 1.0, -1.0, -1.0, -1.0, 0.0, 0.0], f64)])
case("Xlogy_zero_x_grad_f64", "Xlogy", [np.array([0.0, 2.0, 0.0], f64), np.array([0.5, 3.0, 2.0], f64)], grad=True)
case("Xdivy_zero_x_grad_f64", "Xdivy", [np.array([0.0, 2.0, -1.0], f64), np.array([0.5, 3.0, 2.0], f64)], grad=True)
case("MulNoNan_zero_y_grad_f64", "MulNoNan", [np.array([1.0, 2.0, 3.0], f64), np.array([0.0, 3.0, 0.5], f64)], grad=True)
case("Mod_ints_i32", "Mod", [np.array([7, -7, 7, -7, 0, 5], np.int32), np.array([2, 2, -2, -2, 3, 7], np.int32)])
case("Mod_ints_i64", "Mod", [np.array([[9], [-9]], np.int64), np.array([4, -5, 10], np.int64)])
case("Mod_by_zero_i32", "Mod", [np.array([5, -5], np.int32), np.array([0, 2], np.int32)])
case("Mod_by_zero_i64", "Mod", [np.array([5], np.int64), np.array(0, np.int64)])
case("Mod_floats", "Mod", [np.array([5.5, -5.5, 5.5, -5.5, 1e20], f64), np.array([2.0, 2.0, -2.0, -2.0, 3.0], f64)])
case("NextAfter_subnormal_f32", "NextAfter",
     [np.array([0.0, -0.0, 1.4e-45, np.finfo(f32).max, -1.0], f32), np.array([1.0, -1.0, 0.0, inf, -inf], f32)])

# ApproximateEqual: equal shapes only, attribute tolerance.
case("ApproximateEqual_default_f32", "ApproximateEqual",
     [np.array([1.0, 2.0, 3.0, nan, inf], f32), np.array([1.000001, 2.1, 3.0, nan, inf], f32)])
case("ApproximateEqual_tolerance_f64", "ApproximateEqual",
     [np.array([[1.0, 2.0], [3.0, 4.0]], f64), np.array([[1.05, 2.2], [2.91, 4.0]], f64)],
     attrs={"tolerance": 0.1})
case("ApproximateEqual_shape_mismatch", "ApproximateEqual", [np.ones([2], f32), np.ones([3], f32)])
case("ApproximateEqual_rank_mismatch", "ApproximateEqual", [np.ones([2], f32), np.ones([], f32)])
case("ApproximateEqual_dynamic_mismatch", "ApproximateEqual",
     [np.ones([2], f32), np.ones([], f32)], dynamic=True)
case("ApproximateEqual_partial_shapes", "ApproximateEqual",
     [np.ones([2, 3], f32), np.ones([2, 3], f32)], shapes=[[None, 3], [2, None]])
case("ApproximateEqual_int32_no_kernel", "ApproximateEqual",
     [np.array([1, 2], np.int32), np.array([1, 3], np.int32)])
case("ApproximateEqual_dynamic_mismatch2", "ApproximateEqual",
     [np.ones([2, 1], f64), np.ones([3], f64)], dynamic=True)

# Incomplete gamma: a grid over both branches, the edges, and broadcasting.
A = [0.1, 0.5, 1.0, 2.5, 10.0, 55.0]
X = [0.01, 0.5, 1.0, 3.0, 12.0, 80.0]
ga = np.array([[a] for a in A])
gx = np.array([X])
EDGE_A = [1.0, 0.0, -1.0, 2.0, 2.0, 2.0, nan, 2.0, inf, 3.0, 1e-3, 0.5]
EDGE_AX = [0.0, 1.0, 1.0, -1.0, nan, inf, 1.0, 0.0, 2.0, 1e-300, 1e-3, 700.0]
for op in ["Igamma", "Igammac", "IgammaGradA"]:
    for dt in (f32, f64):
        case(f"{op}_grid_{dt.__name__}", op, [ga.astype(dt), gx.astype(dt)])
        case(f"{op}_edges_{dt.__name__}", op, [np.array(EDGE_A, dt), np.array(EDGE_AX, dt)])
    case(f"{op}_incompatible_dynamic", op, [np.ones([2], f32), np.ones([3], f32)], dynamic=True)
for op in ["Igamma", "Igammac"]:
    case(f"{op}_grad_f64", op, [np.array([[0.5], [2.0]], f64), np.array([0.3, 1.7, 4.0], f64)], grad=True)
    case(f"{op}_grad_f32", op, [np.array([1.5, 3.0], f32), np.array([2.0, 1.0], f32)], grad=True)
    case(f"{op}_grad_scalar_a_f64", op, [np.array(2.0, f64), np.array([0.5, 2.0, 6.0], f64)], grad=True)

case("Igamma_large_f64", "Igamma", [np.array([100.0, 500.0, 1000.0, 1e4, 1e-5, 30.0], f64),
                                    np.array([90.0, 520.0, 1000.0, 1.01e4, 1e-3, 0.5], f64)])
case("Igammac_large_f64", "Igammac", [np.array([100.0, 500.0, 1000.0, 1e4, 1e-5, 0.5], f64),
                                      np.array([90.0, 520.0, 1000.0, 1.01e4, 1e-3, 200.0], f64)])
case("IgammaGradA_large_f64", "IgammaGradA", [np.array([100.0, 500.0, 1e-2, 7.0], f64),
                                              np.array([90.0, 520.0, 1e-3, 40.0], f64)])
case("Igamma_partial_shapes", "Igamma", [np.ones([2, 3], f32), np.ones([3], f32)],
     shapes=[[None, 3], [None]])
case("Igammac_unknown_rank", "Igammac", [np.ones([2, 3], f32), np.ones([3], f32)],
     shapes=[None, [3]])

# Betainc: equal shapes or scalars, and the edges.
BA = np.array([0.5, 1.0, 2.0, 5.0, 30.0, 0.2, 100.0, 3.0])
BB = np.array([0.5, 3.0, 2.0, 1.0, 40.0, 8.0, 2.0, 0.1])
BX = np.array([0.2, 0.5, 0.9, 0.3, 0.45, 0.01, 0.99, 0.999])
for dt in (f32, f64):
    case(f"Betainc_grid_{dt.__name__}", "Betainc", [BA.astype(dt), BB.astype(dt), BX.astype(dt)])
    case(f"Betainc_edges_{dt.__name__}", "Betainc",
         [np.array([0.0, -1.0, 2.0, 2.0, 2.0, 2.0, nan, 2.0, inf, 2.0], dt),
          np.array([1.0, 1.0, 0.0, 3.0, 3.0, 3.0, 1.0, nan, 1.0, inf], dt),
          np.array([0.5, 0.5, 0.5, 0.0, 1.0, 1.5, 0.5, 0.5, 0.5, 0.5], dt)])
    case(f"Betainc_scalars_{dt.__name__}", "Betainc",
         [np.array(2.0, dt), np.array(3.0, dt), np.array([[0.1, 0.4], [0.6, 0.95]], dt)])
case("Betainc_all_scalars", "Betainc", [np.array(2.0, f64), np.array(3.0, f64), np.array(0.25, f64)])
case("Betainc_scalar_x", "Betainc", [np.array([1.5, 2.5], f64), np.array([4.0, 0.5], f64), np.array(0.3, f64)])
case("Betainc_large_f64", "Betainc",
     [np.array([200.0, 500.0, 0.01, 1000.0, 5.0, 0.5], f64),
      np.array([300.0, 5.0, 0.02, 1000.0, 2000.0, 1e4], f64),
      np.array([0.4, 0.99, 0.5, 0.5, 0.001, 1e-5], f64)])
case("Betainc_large_f32", "Betainc",
     [np.array([200.0, 50.0, 0.01, 5.0], f32), np.array([300.0, 5.0, 0.02, 200.0], f32),
      np.array([0.4, 0.9, 0.5, 0.01], f32)])
case("Betainc_partial_shapes", "Betainc", [np.ones([2, 3]), np.ones([2, 3]), np.full([2, 3], 0.5)],
     shapes=[[None, 3], [2, None], None])
case("Betainc_partial_with_scalars", "Betainc", [np.ones([]), np.ones([2, 3]), np.array(0.5)],
     shapes=[[], [None, 3], []])
case("Betainc_unknown_and_scalars", "Betainc", [np.ones([]), np.ones([2, 3]), np.array(0.5)],
     shapes=[[], None, []])
case("Betainc_rank_mismatch", "Betainc", [np.ones([2, 3]), np.ones([3]), np.full([2, 3], 0.5)])
case("Betainc_dim_mismatch", "Betainc", [np.ones([1, 3]), np.ones([]), np.full([2, 3], 0.5)])
case("Betainc_dynamic_ab", "Betainc", [np.ones([2, 3]), np.ones([3]), np.full([2, 3], 0.5)], dynamic=True)
case("Betainc_dynamic_ax", "Betainc", [np.ones([2, 3]), np.ones([]), np.full([3, 2], 0.5)], dynamic=True)
case("Betainc_dynamic_bx", "Betainc", [np.ones([]), np.ones([2]), np.full([3], 0.5)], dynamic=True)
case("Betainc_grad_f64", "Betainc",
     [np.array([0.5, 2.0, 3.0], f64), np.array([1.5, 2.0, 0.7], f64), np.array([0.3, 0.6, 0.2], f64)], grad=True)
case("Betainc_grad_f32", "Betainc",
     [np.array([2.0, 4.0], f32), np.array([3.0, 1.5], f32), np.array([0.4, 0.7], f32)], grad=True)
case("Betainc_grad_scalar_x_f64", "Betainc",
     [np.array([1.5, 2.5], f64), np.array([4.0, 3.0], f64), np.array(0.3, f64)], grad=True)

# tf.bitwise, every integer dtype weir has.
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16]
for dt in INTS:
    info = np.iinfo(dt)
    bits = info.bits
    xs = np.array([0, 1, 5, info.max, info.min, 100 % (info.max + 1), 3, 12], dtype=dt)
    ys = np.array([3, 6, 1, info.min, info.max, 7, 2, 10], dtype=dt)
    for op in ["BitwiseAnd", "BitwiseOr", "BitwiseXor"]:
        case(f"{op}_{dt.__name__}", op, [xs, ys])
    shifts = np.array([0, 1, bits - 1, bits, bits + 5, 3, 2, 1], dtype=dt)
    if info.min < 0:
        shifts[6] = -1
        shifts[7] = -bits
    for op in ["LeftShift", "RightShift"]:
        case(f"{op}_{dt.__name__}", op, [xs, shifts])
    for op in ["Invert", "PopulationCount"]:
        case(f"{op}_{dt.__name__}", op, [xs.reshape(2, 4)])
case("BitwiseAnd_broadcast", "BitwiseAnd", [np.array([[12], [10]], np.int32), np.array([6, 3, 255], np.int32)])
case("LeftShift_broadcast", "LeftShift", [np.array([[1], [-3]], np.int64), np.array([0, 4, 63, 64], np.int64)])
case("RightShift_scalar", "RightShift", [np.array(-1024, np.int16), np.array([1, 3, 20], np.int16)])
case("PopulationCount_partial_shape", "PopulationCount", [np.array([[7, 8]], np.int64)],
     shapes=[[None, 2]])
case("BitwiseOr_incompatible", "BitwiseOr", [np.ones([2], np.int32), np.ones([3], np.int32)])
case("BitwiseXor_incompatible_dynamic", "BitwiseXor", [np.ones([2], np.int32), np.ones([3], np.int32)], dynamic=True)
case("BitwiseAnd_float", "BitwiseAnd", [np.ones([2], f32), np.ones([2], f32)])
case("Invert_float", "Invert", [np.ones([2], f32)])

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": CASES}, f, separators=(",", ":"))
print(len(CASES), "cases,", sum("error" in c for c in CASES), "errors,",
      sum("grads" in c for c in CASES), "with gradients")
