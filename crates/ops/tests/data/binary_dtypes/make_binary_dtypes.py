"""Records TensorFlow 2.21's CPU results of the binary math, comparison, select, reduction,
scan, segment, arg-max and matmul ops on float16, bfloat16, complex64 and complex128 inputs, for
crates/ops/tests/integration/binary_dtypes.rs.

Tensors are written bit for bit: half and float elements as their IEEE bit patterns (unsigned
integers), complex elements as [re, im] pairs of bit patterns, integers and bools as they are.
Each case has a tolerance in ulps ("ulps", 0 = bit-exact; a NaN matches any NaN).

Run with TensorFlow 2.21: python make_binary_dtypes.py (writes expected.json beside it).
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
NP = {
    "float16": np.float16,
    "bfloat16": BF16,
    "float32": np.float32,
    "float64": np.float64,
    "complex64": np.complex64,
    "complex128": np.complex128,
    "int32": np.int32,
    "int64": np.int64,
    "bool": np.bool_,
}


rng = np.random.default_rng(2021)
CASES = []


def record(name, op, inputs, attrs=None, ulps=0, note=None):
    """Runs tf.raw_ops.<op>(**inputs, **attrs) and records its output (or error)."""
    attrs = attrs or {}
    g = tf.Graph()
    case = {"name": name, "op": op, "inputs": [[k, encode(v)] for k, v in inputs],
            "attrs": {k: v for k, v in attrs.items()}, "ulps": ulps}
    try:
        with g.as_default():
            ts = {k: tf.constant(v) for k, v in inputs}
            out = getattr(tf.raw_ops, op)(**ts, **attrs)
            with tf.Session(graph=g) as s:
                case["output"] = encode(s.run(out))
    except Exception as e:  # noqa: BLE001 - the kind is what is recorded
        case["error"] = {"type": type(e).__name__, "message": str(e).split("\n")[0]}
    if note:
        case["note"] = note
    CASES.append(case)


def randn(shape, dt, scale=1.0):
    dt = NP[dt]
    if np.issubdtype(dt, np.complexfloating):
        return (rng.normal(size=shape) * scale + 1j * rng.normal(size=shape) * scale).astype(dt)
    return (rng.normal(size=shape) * scale).astype(dt)


HALVES = ["float16", "bfloat16"]
COMPLEX = ["complex64", "complex128"]

# ---- binary ops -------------------------------------------------------------------------------
SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.5, -7.5, 0.1, 1e-3, 65504.0, 3e4, float("inf"), float("-inf"), float("nan"), 0.3333, 2047.9, 5.0]
SPECIAL_Y = [1.0, 0.0, 0.0, 3.0, -2.0, 2.0, 0.3, 7.0, 2.0, 2.0, 2.0, float("inf"), 1.0, 0.1, 1.0, -0.0]
for dt in HALVES:
    x = np.array(SPECIAL + list(rng.normal(size=16) * 10), NP[dt])
    y = np.array(SPECIAL_Y + list(rng.normal(size=16) * 3), NP[dt])
    for op in ["AddV2", "Sub", "Mul", "RealDiv", "Div", "DivNoNan", "FloorDiv", "FloorMod",
               "TruncateDiv", "Maximum", "Minimum", "SquaredDifference"]:
        record(f"{op}_{dt}", op, [("x", x), ("y", y)])
    px = np.abs(x[16:]).astype(NP[dt])
    record(f"Pow_{dt}", "Pow", [("x", px), ("y", (y[16:] / 3).astype(NP[dt]))])
    record(f"AddV2_{dt}_bcast", "AddV2", [("x", randn([3, 1], dt)), ("y", randn([4], dt))])
    record(f"Mul_{dt}_scalar", "Mul", [("x", randn([5], dt)), ("y", np.array(0.1, NP[dt]))])
    for op in ["Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual"]:
        record(f"{op}_{dt}", op, [("x", x), ("y", y)])
    record(f"SelectV2_{dt}", "SelectV2", [("condition", rng.random([2, 3]) < 0.5), ("t", randn([2, 3], dt)), ("e", randn([3], dt))])

for dt in COMPLEX:
    n = 1003
    x = randn([n], dt)
    y = randn([n], dt)
    x[:4] = [1 + 1j, 1e30 + 1e30j, 1 + 0j, 3 - 4j]
    y[:4] = [1e-30 + 1e-30j, 1e30 + 1e30j, 0j, 0j]
    x[-2:] = [1e30 + 1e30j, 2 - 1j]
    y[-2:] = [1e30 + 1e30j, 0j]
    for op in ["AddV2", "Sub", "Mul", "RealDiv", "Div", "DivNoNan", "SquaredDifference"]:
        record(f"{op}_{dt}", op, [("x", x), ("y", y)])
    record(f"Div_{dt}_bcast", "Div", [("x", randn([5, 3], dt)), ("y", randn([3], dt))])
    record(f"Mul_{dt}_bcast", "Mul", [("x", randn([2, 1, 3], dt)), ("y", randn([4, 1], dt))])
    record(f"DivNoNan_{dt}_bcast", "DivNoNan", [("x", randn([7], dt)), ("y", np.array([0j, 1 + 2j, 0j, 3j, 1, 0j, 2], NP[dt]))])
    # glibc's cpow against a hand-written one: a few ulps.
    record(f"Pow_{dt}", "Pow", [("x", randn([9], dt)), ("y", randn([9], dt) * 0.5)], ulps=8)
    record(f"Equal_{dt}", "Equal", [("x", x[:6]), ("y", np.concatenate([x[:3], y[3:6]]))])
    record(f"SelectV2_{dt}", "SelectV2", [("condition", rng.random([2, 3]) < 0.5), ("t", randn([2, 3], dt)), ("e", randn([3], dt))])
    record(f"Select_{dt}", "Select", [("condition", np.array([True, False])), ("x", randn([2, 2], dt)), ("y", randn([2, 2], dt))])
    record(f"Maximum_{dt}", "Maximum", [("x", x[:2]), ("y", y[:2])])

# ---- tf.math's x*f(y) ops, MulNoNan and Atan2 ------------------------------------------------
for dt in HALVES:
    x = np.array([0.0, 1.5, -2.0, 0.0, 3.0, 0.25, -1.0, 7.0], NP[dt])
    y = np.array([0.0, 0.5, 3.0, float("nan"), 0.0, 9.0, 2.0, -0.5], NP[dt])
    for op in ["Xlogy", "Xdivy", "Xlog1py", "MulNoNan"]:
        record(f"{op}_{dt}", op, [("x", x), ("y", y)])
    record(f"Atan2_{dt}", "Atan2", [("y", x), ("x", y)])
for dt in COMPLEX:
    x = randn([6], dt)
    x[0] = 0
    y = randn([6], dt)
    y[1] = 0
    record(f"MulNoNan_{dt}", "MulNoNan", [("x", x), ("y", y)])
    # clog's |y| by hypot against glibc's own: a few ulps.
    record(f"Xlogy_{dt}", "Xlogy", [("x", x), ("y", y)], ulps=4)

# ---- reductions -------------------------------------------------------------------------------
LAYOUTS = [
    ("all37", [37], [0]),
    ("all1701", [1701], [0]),
    ("all5003", [5003], [0]),
    ("all2d", [40, 41], [0, 1]),
    ("outer", [300, 7], [0]),
    ("outer16", [20, 16], [0]),
    ("inner", [7, 300], [1]),
    ("inner_long", [3, 1800], [1]),
    ("middle", [3, 20, 9], [1]),
    ("middle8", [2, 17, 16], [1]),
    ("ends", [4, 5, 6], [0, 2]),
    ("transpose", [2, 3, 4, 5], [0, 2]),
    ("none", [3, 4], []),
]
for dt in HALVES + COMPLEX:
    for lname, shape, axes in LAYOUTS:
        x = randn(shape, dt)
        for op in ["Sum", "Mean"]:
            # Complex sums: Eigen's packets of 4 (complex64) or 2 (complex128) are reproduced,
            # so these are exact too.
            record(f"{op}_{dt}_{lname}", op, [("input", x), ("axis", np.array(axes, np.int32))], {"keep_dims": lname == "middle"})
        if dt in HALVES:
            for op in ["Max", "Min"]:
                record(f"{op}_{dt}_{lname}", op, [("input", x), ("axis", np.array(axes, np.int32))])
    for lname, shape, axes in [("all", [300], [0]), ("outer", [20, 9], [0]), ("inner", [5, 40], [1])]:
        if dt in COMPLEX:
            x = (np.exp(1j * rng.uniform(-0.3, 0.3, shape)) * rng.uniform(0.95, 1.05, shape)).astype(NP[dt])
        else:
            x = rng.uniform(0.95, 1.05, shape).astype(NP[dt])
        record(f"Prod_{dt}_{lname}", "Prod", [("input", x), ("axis", np.array(axes, np.int32))])
for dt in HALVES:
    for n in [1000, 4096, 10000]:
        x = np.full([n], 0.1, NP[dt])
        record(f"Sum_{dt}_tenths_{n}", "Sum", [("input", x), ("axis", np.array([0], np.int32))])
        record(f"Mean_{dt}_tenths_{n}", "Mean", [("input", x), ("axis", np.array([0], np.int32))])
    # Partial sums beyond 65504 overflow float16 (and its Mean divides by a count of inf).
    record(f"Sum_{dt}_overflow", "Sum", [("input", np.full([70000], 1.0, NP[dt])), ("axis", np.array([0], np.int32))],
           note="70000 values: large enough that TensorFlow might split the work between threads")
    record(f"ArgMax_{dt}", "ArgMax", [("input", randn([4, 6], dt)), ("dimension", np.array(1, np.int32))])
    record(f"ArgMin_{dt}", "ArgMin", [("input", randn([4, 6], dt)), ("dimension", np.array(0, np.int32))])

# ---- scans ------------------------------------------------------------------------------------
for dt in HALVES + COMPLEX:
    x = randn([4, 300], dt)
    record(f"Cumsum_{dt}", "Cumsum", [("x", x), ("axis", np.array(1, np.int32))])
    record(f"Cumsum_{dt}_exclusive_reverse", "Cumsum", [("x", x), ("axis", np.array(0, np.int32))], {"exclusive": True, "reverse": True})
    p = (rng.uniform(0.9, 1.1, [3, 20])).astype(NP[dt]) if dt in HALVES else (np.exp(1j * rng.uniform(-1, 1, [3, 20]))).astype(NP[dt])
    record(f"Cumprod_{dt}", "Cumprod", [("x", p), ("axis", np.array(1, np.int32))])
for dt in HALVES:
    record(f"Cumsum_{dt}_tenths", "Cumsum", [("x", np.full([4096], 0.1, NP[dt])), ("axis", np.array(0, np.int32))])

# ---- matmul -----------------------------------------------------------------------------------
for dt in HALVES:
    record(f"MatMul_{dt}_tenths", "MatMul", [("a", np.full([2, 4096], 0.1, NP[dt])), ("b", np.full([4096, 2], 1.0, NP[dt]))])
    for ta in [False, True]:
        for tb in [False, True]:
            a = randn([5, 7] if not ta else [7, 5], dt)
            b = randn([7, 3] if not tb else [3, 7], dt)
            record(f"MatMul_{dt}_{int(ta)}{int(tb)}", "MatMul", [("a", a), ("b", b)], {"transpose_a": ta, "transpose_b": tb})
    record(f"BatchMatMulV2_{dt}", "BatchMatMulV2", [("x", randn([2, 1, 3, 40], dt)), ("y", randn([3, 40, 2], dt))])
for dt in COMPLEX:
    for ta in [False, True]:
        for tb in [False, True]:
            a = randn([5, 7] if not ta else [7, 5], dt)
            b = randn([7, 3] if not tb else [3, 7], dt)
            # Eigen's blocked complex product sums in another order: a few ulps.
            record(f"MatMul_{dt}_{int(ta)}{int(tb)}", "MatMul", [("a", a), ("b", b)], {"transpose_a": ta, "transpose_b": tb}, ulps=16)
            record(f"BatchMatMulV2_{dt}_{int(ta)}{int(tb)}", "BatchMatMulV2", [("x", randn([2, 1] + ([5, 7] if not ta else [7, 5]), dt)), ("y", randn([3] + ([7, 3] if not tb else [3, 7]), dt))], {"adj_x": ta, "adj_y": tb}, ulps=16)

# ---- segments ---------------------------------------------------------------------------------
for dt in HALVES:
    data = randn([9, 3], dt)
    seg = np.array([0, 0, 0, 1, 3, 3, 3, 3, 4], np.int32)
    for op in ["SegmentSum", "SegmentMean", "SegmentProd", "SegmentMax", "SegmentMin"]:
        record(f"{op}_{dt}", op, [("data", data), ("segment_ids", seg)])
    useg = np.array([2, 0, 2, 1, 0, -1, 2, 0, 1], np.int32)
    for op in ["UnsortedSegmentSum", "UnsortedSegmentProd", "UnsortedSegmentMax", "UnsortedSegmentMin"]:
        record(f"{op}_{dt}", op, [("data", data), ("segment_ids", useg), ("num_segments", np.array(4, np.int32))])

# ---- gradients -------------------------------------------------------------------------------
GRADS = []


def record_grad(name, op, inputs, attrs=None, ulps=0, note=None):
    """tf.gradients of tf.raw_ops.<op>(inputs) with respect to every input, for a fixed grad_ys."""
    attrs = attrs or {}
    g = tf.Graph()
    with g.as_default():
        ts = [tf.constant(v) for _, v in inputs]
        out = getattr(tf.raw_ops, op)(**{k: t for (k, _), t in zip(inputs, ts)}, **attrs)
        gy = randn(out.shape.as_list(), out.dtype.name)
        wrt = [i for i, t in enumerate(ts) if t.dtype.is_floating or t.dtype.is_complex]
        grads = tf.gradients(out, [ts[i] for i in wrt], grad_ys=tf.constant(gy))
        with tf.Session(graph=g) as s:
            vals = s.run(grads)
    case = {"name": name, "op": op, "inputs": [[k, encode(v)] for k, v in inputs], "attrs": attrs,
            "grad_ys": encode(gy), "wrt": wrt, "grads": [encode(v) for v in vals], "ulps": ulps}
    if note:
        case["note"] = note
    GRADS.append(case)


for dt in ["float16", "complex64"]:
    x = randn([3, 4], dt)
    y = randn([4], dt)
    ypos = (np.abs(randn([4], "float32")) + 0.5).astype(NP[dt])
    for op in ["AddV2", "Sub", "Mul", "RealDiv", "Div", "DivNoNan", "SquaredDifference"]:
        record_grad(f"grad_{op}_{dt}", op, [("x", x), ("y", ypos if "Div" in op else y)], ulps=0 if dt == "float16" else 4)
    base = (np.abs(randn([3, 4], "float32")) + 0.5).astype(NP[dt])
    record_grad(f"grad_Pow_{dt}", "Pow", [("x", base), ("y", (y * 0.5).astype(NP[dt]))], ulps=8 if dt == "float16" else 16,
                note="Pow, Log: weir's approximations differ from glibc's by an ulp")
    for op in ["Sum", "Mean"]:
        record_grad(f"grad_{op}_{dt}", op, [("input", x), ("axis", np.array([0], np.int32))])
    record_grad(f"grad_MatMul_{dt}", "MatMul", [("a", randn([2, 3], dt)), ("b", randn([3, 4], dt))], ulps=0 if dt == "float16" else 16)
    record_grad(f"grad_MatMul_{dt}_tt", "MatMul", [("a", randn([3, 2], dt)), ("b", randn([4, 3], dt))], {"transpose_a": True, "transpose_b": True}, ulps=0 if dt == "float16" else 16)
    record_grad(f"grad_BatchMatMulV2_{dt}", "BatchMatMulV2", [("x", randn([2, 2, 3], dt)), ("y", randn([3, 4], dt))], {"adj_x": False, "adj_y": False}, ulps=0 if dt == "float16" else 16)
    record_grad(f"grad_BatchMatMulV2_{dt}_adj", "BatchMatMulV2", [("x", randn([2, 3, 2], dt)), ("y", randn([2, 4, 3], dt))], {"adj_x": True, "adj_y": True}, ulps=0 if dt == "float16" else 16)
    record_grad(f"grad_Cumsum_{dt}", "Cumsum", [("x", x), ("axis", np.array(1, np.int32))])
    record_grad(f"grad_SelectV2_{dt}", "SelectV2", [("condition", rng.random([3, 4]) < 0.5), ("t", x), ("e", y)])
for dt in HALVES:
    x = randn([3, 4], dt)
    y = randn([4], dt)
    for op in ["Maximum", "Minimum"]:
        record_grad(f"grad_{op}_{dt}", op, [("x", x), ("y", y)])
    if dt == "bfloat16":
        for op in ["AddV2", "Mul", "RealDiv"]:
            record_grad(f"grad_{op}_{dt}", op, [("x", x), ("y", (np.abs(y.astype(np.float32)) + 0.5).astype(NP[dt]))])

for dt in HALVES:
    # Segments of 40 rows: Eigen reduces each with four accumulators per column.
    data = randn([100, 19], dt)
    seg = np.repeat(np.array([0, 1, 3], np.int32), [40, 20, 40])
    for op in ["SegmentSum", "SegmentMean", "SegmentProd"]:
        record(f"{op}_{dt}_long", op, [("data", data if op != "SegmentProd" else rng.uniform(0.9, 1.1, [100, 19]).astype(NP[dt])), ("segment_ids", seg)])
for dt in COMPLEX:
    record(f"UnsortedSegmentSum_{dt}", "UnsortedSegmentSum", [("data", randn([6, 2], dt)), ("segment_ids", np.array([1, 0, 1, -1, 3, 1], np.int32)), ("num_segments", np.array(4, np.int64))])

for dt in HALVES:
    xh = np.array([[0.0, 1.5, -2.0, 0.5], [3.0, 0.25, -1.0, 0.0]], NP[dt])
    yh = np.array([0.5, 2.0, 3.0, 0.75], NP[dt])
    for op in ["Xlogy", "Xdivy", "Xlog1py", "MulNoNan"]:
        record_grad(f"grad_{op}_{dt}", op, [("x", xh), ("y", yh)])

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")
with open(out, "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": CASES, "grads": GRADS}, f, separators=(",", ":"))
print(len(CASES), "cases,", sum("error" in c for c in CASES), "errors,", len(GRADS), "gradient cases")
