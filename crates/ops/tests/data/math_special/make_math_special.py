"""Records what TensorFlow 2.21 (tf.compat.v1, graph mode) computes for the ops of
crates/ops/tests/integration/math_special.rs and
crates/train/tests/integration/math_special_grad.rs: the trigonometric/hyperbolic unaries,
expm1, rint, Inv, the special functions (erf ... zeta, polygamma, Bessel), and softplus,
softsign, selu, crelu with their grad ops; values at ordinary points and at the edges (poles,
negative integers, +-inf, NaN), errors, and gradients.

Run: ~/.cache/weir-bench/venv/bin/python make_math_special.py   (writes expected.json beside it)

Each case: {"name", "fn", "inputs": {name: tensor}, "attrs": {...}, and either "outputs":
[tensor...] or "error": {"type", "message"}; differentiable cases also have "grad_ys" and
"grads": {input name: tensor}} where a tensor is {"dtype", "shape", "values" (flat, row-major;
non-finite floats as strings)}.
"""

import json
import math
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = []
inf, nan = float("inf"), float("nan")


def enc(a):
    a = np.asarray(a)
    if a.dtype.kind == "f":
        vals = [v if math.isfinite(v) else str(v) for v in a.reshape(-1).tolist()]
    elif a.dtype.kind == "b":
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


def weights_like(shape):
    n = int(np.prod(shape))
    w = np.array([0.5 + ((i * 7919 + 13) % 1000) / 1000.0 for i in range(n)])
    return w.reshape(shape)


UNARY = {
    "tan": tf.math.tan, "asin": tf.math.asin, "acos": tf.math.acos, "atan": tf.math.atan,
    "sinh": tf.math.sinh, "cosh": tf.math.cosh, "asinh": tf.math.asinh,
    "acosh": tf.math.acosh, "atanh": tf.math.atanh, "expm1": tf.math.expm1,
    "rint": tf.math.rint, "inv": lambda x: tf.raw_ops.Inv(x=x),
    "erf": tf.math.erf, "erfc": tf.math.erfc, "erfinv": tf.math.erfinv,
    "ndtri": tf.math.ndtri, "lgamma": tf.math.lgamma, "digamma": tf.math.digamma,
    "bessel_i0e": tf.math.special.bessel_i0e, "bessel_i1e": tf.math.special.bessel_i1e,
    "bessel_i0": tf.math.bessel_i0, "bessel_i1": tf.math.bessel_i1,
    "softplus": tf.nn.softplus, "softsign": tf.nn.softsign, "selu": tf.nn.selu,
}

BINARY = {
    "zeta": lambda t: tf.math.zeta(t["x"], t["q"]),
    "polygamma": lambda t: tf.math.polygamma(t["a"], t["x"]),
    "softplus_grad": lambda t: tf.raw_ops.SoftplusGrad(gradients=t["gradients"], features=t["features"]),
    "softsign_grad": lambda t: tf.raw_ops.SoftsignGrad(gradients=t["gradients"], features=t["features"]),
    "selu_grad": lambda t: tf.raw_ops.SeluGrad(gradients=t["gradients"], outputs=t["outputs"]),
}


def case(name, fn, inputs, attrs=None, grad=(), dynamic=False):
    attrs = attrs or {}
    rec = {"name": name, "fn": fn, "inputs": {k: enc(v) for k, v in inputs.items()},
           "attrs": attrs, "dynamic": dynamic}
    g = tf.Graph()
    with g.as_default():
        try:
            ts = {}
            for k, v in inputs.items():
                v = np.asarray(v)
                if dynamic:
                    ts[k] = tf.placeholder_with_default(v, None, name=k)
                else:
                    ts[k] = tf.placeholder_with_default(v, v.shape, name=k)
            if fn in UNARY:
                y = UNARY[fn](ts["x"])
            elif fn == "crelu":
                y = tf.nn.crelu(ts["features"], axis=attrs.get("axis", -1))
            else:
                y = BINARY[fn](ts)
            grads = []
            if grad:
                wy = tf.constant(weights_like(y.shape.as_list()).astype(y.dtype.as_numpy_dtype))
                grads = tf.gradients(y, [ts[k] for k in grad], grad_ys=wy)
            with tf.Session() as s:
                rec["outputs"] = [enc(s.run(y))]
                if grad:
                    rec["grad_ys"] = enc(s.run(wy))
                    rec["grads"] = {k: enc(s.run(d)) for k, d in zip(grad, grads) if d is not None}
                    rec["no_grad"] = [k for k, d in zip(grad, grads) if d is None]
        except (tf.errors.OpError, ValueError, TypeError) as e:
            rec["error"] = {"type": type(e).__name__, "message": err_message(e)}
            rec.pop("outputs", None)
    CASES.append(rec)


f32, f64 = np.float32, np.float64

# ---------------------------------------------------------------------------------------------
# 1. Values, including the edges, in both float types.
EDGES = {
    "tan": [-1.5, -0.3, 0.0, 0.7, 1.2, 3.0, 100.0, nan, inf],
    "asin": [-1.0, -0.5, 0.0, 1e-9, 0.3, 0.99, 1.0, 1.5, nan],
    "acos": [-1.0, -0.5, 0.0, 0.3, 0.99, 1.0, 1.5, nan],
    "atan": [-1e3, -1.0, 0.0, 1e-9, 0.5, 10.0, inf, -inf, nan],
    "sinh": [-5.0, -0.5, 0.0, 1e-8, 2.0, 20.0, 800.0, nan],
    "cosh": [-5.0, -0.5, 0.0, 1e-8, 2.0, 20.0, 800.0, nan],
    "asinh": [-1e200, -2.0, -1e-10, 0.0, 0.5, 3.0, 1e5, inf, nan],
    "acosh": [0.5, 1.0, 1.0000001, 1.5, 2.0, 10.0, 1e200, inf, nan],
    "atanh": [-1.0, -0.5, 0.0, 1e-9, 0.3, 0.9, 1.0, 1.5, nan],
    "expm1": [-50.0, -1.0, -1e-10, 0.0, 1e-5, 0.3, 1.0, 10.0, 800.0, -inf, nan],
    "rint": [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.4, -3.7, 1e20, -0.2, nan],
    "inv": [-2.0, 0.5, 3.0, 0.0, 1e-3, inf, nan],
    "erf": [-3.0, -0.5, -1e-6, 0.0, 0.2, 0.45, 0.8, 1.3, 2.2, 2.4, 3.5, 6.0, inf, nan],
    "erfc": [-3.0, -0.5, 0.0, 0.2, 0.4, 0.8, 1.3, 2.2, 2.5, 3.5, 6.0, 10.0, 26.0, 30.0,
             -inf, nan],
    "erfinv": [-1.0, -0.999, -0.5, -1e-5, 0.0, 1e-10, 0.3, 0.9, 0.999999, 1.0, 1.5, nan],
    "ndtri": [0.0, 1e-300, 1e-20, 1e-5, 0.01, 0.2, 0.3, 0.5, 0.5 + 1e-9, 0.7, 0.8, 0.975,
              1 - 1e-10, 1.0, -0.1, 1.1, nan],
    "lgamma": [-40.5, -3.3, -2.5, -1.2, -1.0, -0.5, 0.0, 1e-300, 1e-8, 0.1, 0.5, 1.0, 1.5,
               2.0, 2.5, 3.7, 7.2, 10.5, 100.0, 1e6, 1e300, inf, -inf, nan],
    "digamma": [-2.5, -1.3, -1.0, 0.0, -0.0, 1e-8, 0.5, 1.0, 2.0, 3.3, 7.5, 10.0, 100.0,
                1e10, inf, -inf, nan],
    "bessel_i0e": [-700.0, -30.0, -5.0, -1.0, -1e-5, 0.0, 0.5, 2.0, 15.0, 29.9, 30.1, 100.0,
                   inf, -inf, nan],
    "bessel_i1e": [-700.0, -30.0, -5.0, -1.0, -1e-5, 0.0, 0.5, 2.0, 15.0, 29.9, 30.1, 100.0,
                   inf, -inf, nan],
    "bessel_i0": [-10.0, -1.0, 0.0, 0.5, 3.0, 50.0],
    "bessel_i1": [-10.0, -1.0, 0.0, 0.5, 3.0, 50.0],
    "softplus": [-800.0, -40.0, -34.0, -20.0, -13.9, -1.0, 0.0, 1e-3, 1.0, 13.9, 20.0, 35.0,
                 40.0, 800.0, nan],
    "softsign": [-inf, -3.0, 0.0, 0.5, 100.0, nan],
    "selu": [-800.0, -2.0, -0.1, 0.0, 0.1, 2.0, nan],
}
for fn, vals in EDGES.items():
    for dt in (f32, f64):
        case(f"{fn}_{dt.__name__}", fn, {"x": np.array(vals, dt)})

# Values where float32 and float64 differ by much more than rounding go in float64 only.
case("lgamma_near_poles_float64", "lgamma", {"x": np.array([-4.99, -5.01, -0.001, 170.5], f64)})
case("digamma_near_root_float64", "digamma", {"x": np.array([1.4616, 1.47, 0.001, -0.999], f64)})

# Dense sweeps over each function's domain (fixed seed), to catch what the edges miss.
rng = np.random.RandomState(7)


def spread(lo, hi, n=48):
    return np.concatenate([rng.uniform(lo, hi, n // 2),
                           np.sign(rng.uniform(-1, 1, n // 2)) * np.exp(rng.uniform(-12, np.log(max(abs(lo), abs(hi))), n // 2))])


SWEEPS = {
    "tan": spread(-10, 10), "asin": rng.uniform(-1, 1, 48), "acos": rng.uniform(-1, 1, 48),
    "atan": spread(-1e4, 1e4), "sinh": spread(-60, 60), "cosh": spread(-60, 60),
    "asinh": spread(-1e6, 1e6), "acosh": 1 + np.exp(rng.uniform(-20, 12, 48)),
    "atanh": rng.uniform(-1, 1, 48), "expm1": spread(-40, 40),
    "erf": spread(-6, 6), "erfc": np.concatenate([rng.uniform(-3, 27, 40), rng.uniform(0.3, 2.5, 24)]),
    "erfinv": rng.uniform(-1, 1, 48), "ndtri": np.concatenate([rng.uniform(0, 1, 32), np.exp(rng.uniform(-700, -1, 16))]),
    "lgamma": np.concatenate([rng.uniform(-20, 0, 16), rng.uniform(0, 4, 24), np.exp(rng.uniform(-20, 20, 16))]),
    "digamma": np.concatenate([rng.uniform(-20, 0, 16), rng.uniform(0, 4, 16), np.exp(rng.uniform(-20, 20, 16))]),
    "bessel_i0e": spread(-80, 80, 64), "bessel_i1e": spread(-80, 80, 64),
    "softplus": spread(-50, 50), "selu": spread(-20, 20),
}
for fn, vals in SWEEPS.items():
    for dt in (f32, f64):
        case(f"{fn}_sweep_{dt.__name__}", fn, {"x": np.asarray(vals, dt)})
zx = np.concatenate([rng.uniform(1.01, 12, 24), rng.randint(2, 9, 8).astype(float)])
zq = np.concatenate([np.exp(rng.uniform(-5, 5, 24)), rng.uniform(-6, 0, 8)])
pn = rng.randint(0, 6, 32).astype(float)
px = np.concatenate([np.exp(rng.uniform(-5, 5, 24)), rng.uniform(-6, 0, 8)])
for dt in (f32, f64):
    case(f"zeta_sweep_{dt.__name__}", "zeta", {"x": zx.astype(dt), "q": zq.astype(dt)})
    case(f"polygamma_sweep_{dt.__name__}", "polygamma", {"a": pn.astype(dt), "x": px.astype(dt)})

ZX = [1.0, 0.5, 2.0, 2.0, 2.0, -1.0, inf, 3.0, nan, 2.0, 3.0, 4.0, 1.5, 2.0, 3.5, 10.0, 50.0,
      1.1, 4.0]
ZQ = [1.0, 1.0, 0.0, -1.0, -1.5, 1.0, 1.0, -2.0, 1.0, inf, -2.5, -2.0, -1.0, 0.3, 2.5, 1.0,
      3.0, 1.0, 1e9]
PN = [0.0, 1.0, 1.5, -1.0, 2.0, 3.0, 1.0, 1.0, 1.0, inf, 2.0, 0.0, 0.0, 4.0, 1.0, 10.0, nan,
      0.0, 3.0]
PX = [1.0, 1.0, 1.0, 1.0, 0.0, -1.0, inf, -inf, nan, 1.0, -1.5, 0.0, -1.0, 0.5, 25.0, 3.0,
      1.0, -2.5, 1e-3]
for dt in (f32, f64):
    case(f"zeta_{dt.__name__}", "zeta", {"x": np.array(ZX, dt), "q": np.array(ZQ, dt)})
    case(f"polygamma_{dt.__name__}", "polygamma", {"a": np.array(PN, dt), "x": np.array(PX, dt)})
case("zeta_broadcast", "zeta", {"x": np.array([[2.0], [3.5]], f64),
                                "q": np.array([0.5, 1.0, 7.0], f64)})
case("polygamma_broadcast", "polygamma", {"a": np.array([[0.0], [1.0], [3.0]], f32),
                                          "x": np.array([0.5, 2.0], f32)})

G = np.array([1.5, -2.0, 0.5, 3.0, -1.0, 2.5], f64)
F = np.array([-3.0, -0.5, 0.0, 0.5, 2.0, 40.0], f64)
for dt in (f32, f64):
    case(f"softplus_grad_{dt.__name__}", "softplus_grad",
         {"gradients": G.astype(dt), "features": F.astype(dt)})
    case(f"softsign_grad_{dt.__name__}", "softsign_grad",
         {"gradients": G.astype(dt), "features": F.astype(dt)})
    case(f"selu_grad_{dt.__name__}", "selu_grad",
         {"gradients": G.astype(dt), "outputs": np.array([-1.7, -0.5, 0.0, 0.5, 2.0, 4.0], dt)})
    case(f"crelu_{dt.__name__}", "crelu",
         {"features": np.array([[1.0, -2.0, 0.0], [-0.5, 3.0, -4.0]], dt)})
case("crelu_axis0", "crelu", {"features": np.array([[1.0, -2.0], [-0.5, 3.0]], f32)},
     {"axis": 0})

# ---------------------------------------------------------------------------------------------
# 2. Errors.
case("erf_int32", "erf", {"x": np.array([1, 2], np.int32)})
case("zeta_static_mismatch", "zeta", {"x": np.array([2.0, 3.0], f32),
                                      "q": np.array([1.0, 2.0, 3.0], f32)})
case("zeta_dynamic_mismatch", "zeta", {"x": np.array([2.0, 3.0], f32),
                                       "q": np.array([1.0, 2.0, 3.0], f32)}, dynamic=True)
case("polygamma_dynamic_mismatch", "polygamma", {"a": np.array([[1.0, 2.0]], f64),
                                                 "x": np.array([[1.0], [2.0], [3.0]], f64)[:, :1].repeat(3, 1)},
     dynamic=True)
case("selu_grad_mismatch", "selu_grad", {"gradients": np.array([1.0, 2.0], f32),
                                         "outputs": np.array([1.0, 2.0, 3.0], f32)}, dynamic=True)

# ---------------------------------------------------------------------------------------------
# 3. Gradients (inputs inside each function's domain).
GRAD_X = {
    "tan": [-1.2, -0.3, 0.1, 0.5, 0.9, 1.3],
    "asin": [-0.9, -0.3, 0.0, 0.2, 0.6, 0.95],
    "acos": [-0.9, -0.3, 0.0, 0.2, 0.6, 0.95],
    "atan": [-3.0, -0.3, 0.0, 0.2, 1.6, 9.5],
    "sinh": [-3.0, -0.3, 0.0, 0.2, 1.6, 4.5],
    "cosh": [-3.0, -0.3, 0.0, 0.2, 1.6, 4.5],
    "asinh": [-3.0, -0.3, 0.0, 0.2, 1.6, 40.5],
    "acosh": [1.1, 1.3, 2.0, 3.2, 7.6, 40.5],
    "atanh": [-0.9, -0.3, 0.0, 0.2, 0.6, 0.95],
    "expm1": [-3.0, -0.3, 0.0, 0.2, 1.6, 4.5],
    "inv": [-3.0, -0.3, 0.7, 0.2, 1.6, 4.5],
    "erf": [-2.0, -0.3, 0.0, 0.2, 1.1, 2.5],
    "erfc": [-2.0, -0.3, 0.0, 0.2, 1.1, 2.5],
    "erfinv": [-0.9, -0.3, 0.0, 0.2, 0.6, 0.95],
    "ndtri": [0.01, 0.2, 0.45, 0.5, 0.7, 0.99],
    "lgamma": [-2.5, -0.3, 0.4, 1.2, 3.6, 12.5],
    "digamma": [-2.5, -0.3, 0.4, 1.2, 3.6, 12.5],
    "bessel_i0e": [-8.0, -0.3, 0.0, 0.2, 1.6, 35.0],
    "bessel_i1e": [-8.0, -0.3, 0.0, 0.2, 1.6, 35.0],
    "bessel_i0": [-4.0, -0.3, 0.1, 0.2, 1.6, 3.0],
    "bessel_i1": [-4.0, -0.3, 0.1, 0.2, 1.6, 3.0],
    "softplus": [-30.0, -0.3, 0.0, 0.2, 1.6, 30.0],
    "softsign": [-3.0, -0.3, 0.1, 0.2, 1.6, 4.5],
    "selu": [-3.0, -0.3, -0.1, 0.2, 1.6, 4.5],
    "rint": [-3.2, -0.3, 0.1, 0.2, 1.6, 4.4],
}
for fn, vals in GRAD_X.items():
    for dt in (f32, f64):
        case(f"{fn}_grad_{dt.__name__}", fn, {"x": np.array(vals, dt).reshape(2, 3)}, grad=("x",))
for dt in (f32, f64):
    case(f"zeta_grad_{dt.__name__}", "zeta",
         {"x": np.array([[2.0], [3.5]], dt), "q": np.array([0.5, 1.0, 7.0], dt)}, grad=("x", "q"))
    case(f"polygamma_grad_{dt.__name__}", "polygamma",
         {"a": np.array([[0.0], [1.0], [2.0]], dt), "x": np.array([0.5, 2.0], dt)},
         grad=("a", "x"))
    case(f"crelu_grad_{dt.__name__}", "crelu",
         {"features": np.array([[1.0, -2.0, 0.5], [-0.5, 3.0, -4.0]], dt)}, grad=("features",))
    case(f"softplus_grad_grad_{dt.__name__}", "softplus_grad",
         {"gradients": G.astype(dt), "features": np.array([-3.0, -0.5, 0.1, 0.5, 2.0, 3.0], dt)},
         grad=("gradients", "features"))
    case(f"selu_grad_grad_{dt.__name__}", "selu_grad",
         {"gradients": G.astype(dt), "outputs": np.array([-1.7, -0.5, -0.1, 0.5, 2.0, 4.0], dt)},
         grad=("gradients", "outputs"))

# SoftsignGrad has no gradient in TensorFlow (LookupError); math_special_grad.rs checks weir's
# NotFound for it.

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": CASES}, f, indent=None)
    f.write("\n")
print(len(CASES), "cases")
