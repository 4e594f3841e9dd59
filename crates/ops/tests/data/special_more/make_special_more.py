"""Records what TensorFlow 2.21 (tf.compat.v1, graph mode, CPU) computes for the ops of
crates/ops/tests/integration/special_more.rs: BesselI0, BesselI1, BesselK0, BesselK0e,
BesselK1, BesselK1e, BesselJ0, BesselJ1, BesselY0, BesselY1, Dawsn, Expint, FresnelCos,
FresnelSin and Spence (through tf.math.special.*), on sweeps across every branch of their
Cephes fits and at the edges (0, -0, negative arguments, huge ones, +-inf, NaN), in every
dtype the op accepts (the missing kernels as errors), in several shapes.

Run: ~/.cache/weir-bench/venv/bin/python make_special_more.py   (writes expected.json beside it)

Each case: {"name", "fn" (the tf.math.special function), "op", "input": tensor, "dynamic"
(fed with an unknown shape), "static_shapes": [shape or null], and either "outputs": [tensor]
or "error": {"code", "message"} (a kernel error) or "build_error": {...} (graph
construction)}; a tensor is {"dtype", "dims", "values"} with floats as their bit patterns.
"""

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))
BF16 = tf.bfloat16.as_numpy_dtype
BITS = {"float16": np.uint16, "bfloat16": np.uint16, "float32": np.uint32, "float64": np.uint64}
inf, nan = float("inf"), float("nan")

FNS = {
    "bessel_i0": "BesselI0", "bessel_i1": "BesselI1", "bessel_k0": "BesselK0",
    "bessel_k0e": "BesselK0e", "bessel_k1": "BesselK1", "bessel_k1e": "BesselK1e",
    "bessel_j0": "BesselJ0", "bessel_j1": "BesselJ1", "bessel_y0": "BesselY0",
    "bessel_y1": "BesselY1", "dawsn": "Dawsn", "expint": "Expint",
    "fresnel_cos": "FresnelCos", "fresnel_sin": "FresnelSin", "spence": "Spence",
}
BESSEL = [f for f in FNS if f.startswith("bessel")]


def enc(a):
    a = np.asarray(a)
    name = "bfloat16" if a.dtype == BF16 else str(a.dtype)
    if name in BITS:
        vals = [int(v) for v in a.view(BITS[name]).reshape(-1)]
    else:
        vals = [int(v) for v in a.reshape(-1)]
    return {"dtype": name, "dims": list(a.shape), "values": vals}


def err(e):
    msg = getattr(e, "message", str(e))
    if "\nNode: '" in msg:
        msg = msg.split("\nNode: '", 1)[1].split("\n", 1)[1]
    msg = msg.split("\n\t [[")[0].split(" for '{{node ")[0].strip()
    return {"code": getattr(e, "error_code", 3), "message": msg}


CASES = []


def case(name, fn, x, dynamic=False):
    rec = {"name": name, "fn": fn, "op": FNS[fn], "input": enc(x), "dynamic": dynamic}
    g = tf.Graph()
    with g.as_default():
        try:
            p = tf.placeholder(tf.as_dtype(x.dtype), None if dynamic else x.shape, name="x")
            y = getattr(tf.math.special, fn)(p)
            assert y.op.name == fn + "/" + FNS[fn], y.op.name
        except (TypeError, ValueError) as e:
            rec["build_error"] = {"code": 3, "message": str(e).split("\n")[0]}
            CASES.append(rec)
            return
        rec["static_shapes"] = [None if y.shape.dims is None else y.shape.as_list()]
        try:
            with tf.Session() as s:
                rec["outputs"] = [enc(s.run(y, {p: x}))]
        except tf.errors.OpError as e:
            rec["error"] = err(e)
    CASES.append(rec)


EDGES = [0.0, -0.0, inf, -inf, nan, 1e-30, -1e-30, 1e-8, -1e-8, 1e30, -1e30, 3e38]
BOUNDS = {
    # Each function's branch points, probed on both sides.
    "bessel": [1e-5, 1e-3, 2.0, 5.0, 8.0],
    "dawsn": [3.25, 6.25, 1e9],
    "expint": [2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 700.0, 720.0],
    "fresnel_cos": [1.6, 36974.0], "fresnel_sin": [1.6, 36974.0],
    "spence": [0.5, 1.0, 1.5, 2.0],
}


def sweep(fn, dt):
    key = "bessel" if fn in BESSEL else fn
    pts = [0.05 * i for i in range(1, 41)] + [2.0 + 0.37 * i for i in range(40)]
    pts += [17.3, 25.0, 31.7, 45.5, 63.9, 80.0, 99.5, 150.0, 333.3, 700.1, 1234.5, 1e5, 3e7]
    for b in BOUNDS[key]:
        pts += [b * (1 - 1e-6), b, b * (1 + 1e-6)]
    pts += [-p for p in pts[::3]]
    pts += EDGES
    if dt == np.float64:
        pts += [1e-300, 1e200, -1e200, 1e300, 5e-324]
    return np.array(pts, dtype=np.float64).astype(dt)


for fn in FNS:
    for dt in [np.float64, np.float32]:
        x = sweep(fn, dt)
        case(f"{fn}_{dt.__name__}_sweep", fn, x)
        case(f"{fn}_{dt.__name__}_2d", fn, x[:12].reshape(3, 4))
        case(f"{fn}_{dt.__name__}_dynamic", fn, x[10:17], dynamic=True)
    case(f"{fn}_scalar", fn, np.array(1.75, np.float32))
    case(f"{fn}_empty", fn, np.zeros([0, 3], np.float64))
    # float16 (a kernel only for the Bessel functions) and bfloat16 (no kernel at all).
    h = np.array([0.0, 0.1, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.5, 7.0, 9.0, 12.0, 30.0, 100.0,
                  -0.7, -3.0, 65504.0, inf, -inf, nan, 6e-5, 1e-7], np.float64)
    case(f"{fn}_float16", fn, h.astype(np.float16))
    case(f"{fn}_bfloat16", fn, h.astype(BF16))
    case(f"{fn}_int32", fn, np.array([1, 2], np.int32))

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump(CASES, f, indent=0)
print(len(CASES), "cases")
