"""Writes expected.json: TensorFlow 2.21's CPU results of weir's elementwise unary math ops
in float16, bfloat16, complex64 and complex128, and the errors of the dtypes TF's op defs
list but its CPU kernels do not take (or its op defs reject).

Values are stored as bit patterns (halves as uint16, complex parts as uint32 / uint64), so
NaN, infinities and signed zeros survive JSON and weir can compare exactly.

Half inputs: every STRIDE-th bit pattern plus the special values; run with STRIDE=1 to check
every float16 / bfloat16 value (the committed file uses a sample to stay small)."""
import json
import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
from tensorflow.python.framework import op_def_registry  # noqa: E402

STRIDE = int(os.environ.get("STRIDE", "127"))
OUT = os.environ.get("OUT", os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json"))

UNARY = ("Neg Abs Sign Square Sqrt Rsqrt Exp Log Log1p Sin Cos Tanh Sigmoid Floor Ceil Round "
         "Reciprocal IsNan IsInf IsFinite Tan Asin Acos Atan Sinh Cosh Asinh Acosh Atanh Expm1 "
         "Rint Inv Erf Erfc Erfinv Ndtri Lgamma Digamma BesselI0e BesselI1e").split()

DTYPES = [tf.float16, tf.bfloat16, tf.complex64, tf.complex128]

# Integer types op defs list without a CPU kernel.
INT_ERRORS = [("Round", tf.int8), ("Round", tf.int16), ("Reciprocal", tf.int32),
              ("Inv", tf.int64)]


def half_inputs(np_dt):
    bits = np.arange(0, 65536, STRIDE, dtype=np.uint32)
    special = [0x0000, 0x8000, 0x0001, 0x8001, 0x3c00, 0xbc00, 0x3800, 0x7c00, 0xfc00, 0x7e00,
               0x7bff, 0xfbff, 0x0400, 0x03ff, 0x3f80, 0xbf80, 0x3f00, 0x7f80, 0xff80, 0x7fc0,
               0x7f7f, 0xff7f, 0x0080, 0x007f, 0x4000, 0xc000]
    bits = np.unique(np.concatenate([bits, np.array(special, dtype=np.uint32)])).astype(np.uint16)
    return bits.view(np_dt), bits


def complex_inputs(np_dt):
    big = 1e30 if np_dt == np.complex64 else 1e200
    tiny = 1e-30 if np_dt == np.complex64 else 1e-200
    parts = [0.0, -0.0, tiny, -tiny, 0.5, -0.5, 1.0, -1.0, 2.0, -3.7, 0.999, 30.0, -30.0,
             100.0, 1e10, -1e10, big, -big, np.inf, -np.inf, np.nan]
    vals = [complex(r, i) for r in parts for i in parts]
    return np.array(vals, dtype=np_dt)


def bits_of(a, dt):
    if dt in (tf.float16, tf.bfloat16):
        return a.view(np.uint16).astype(int).tolist()
    if dt == tf.complex64:
        return a.view(np.float32).view(np.uint32).astype(int).reshape(-1, 2).tolist()
    if dt == tf.complex128:
        return [[int(p) for p in pair] for pair in a.view(np.float64).view(np.uint64).reshape(-1, 2)]
    return a.astype(int).tolist()  # bool


def allowed(op):
    od = op_def_registry.get(op)
    at = [a for a in od.attr if a.name == "T"][0]
    return [tf.as_dtype(t) for t in at.allowed_values.list.type]


def kernel_message(e):
    m = e.message
    start = m.index("No OpKernel")
    end = m.index("\n\t [[", start)
    # weir has no XLA device, so its message lists the CPU kernels only.
    return "".join(l for l in m[start:end].splitlines(True) if "XLA_" not in l)


def run_error(op, dt):
    g = tf.Graph()
    with g.as_default():
        y = getattr(tf.raw_ops, op)(x=tf.zeros([2], dt), name=op)
        try:
            with tf.Session() as s:
                s.run(y)
        except tf.errors.InvalidArgumentError as e:
            return {"op": op, "dtype": dt.name, "kind": type(e).__name__,
                    "message": kernel_message(e)}
    raise AssertionError(f"{op} {dt.name} runs")


def add_n_cases():
    """AddN of 3 and 9 random tensors: the order of the additions decides half roundings."""
    rng = np.random.default_rng(7)
    out = []
    for dt in DTYPES:
        for n in (3, 9):
            vals = rng.normal(size=(n, 64)) * 10.0 ** rng.integers(-3, 4, size=(n, 64))
            if dt.is_complex:
                vals = vals + 1j * rng.normal(size=(n, 64))
            ins = [v.astype(dt.as_numpy_dtype) for v in vals]
            g = tf.Graph()
            with g.as_default():
                y = tf.raw_ops.AddN(inputs=[tf.constant(v) for v in ins])
                with tf.Session() as s:
                    r = s.run(y)
            out.append({"dtype": dt.name, "inputs": [bits_of(v, dt) for v in ins],
                        "sum": bits_of(r, dt)})
    return out


def main():
    cases, errors = [], []
    for op, dt in INT_ERRORS:
        errors.append(run_error(op, dt))
    for dt in DTYPES:
        np_dt = dt.as_numpy_dtype
        if dt.is_complex:
            x_np = complex_inputs(np_dt)
        else:
            x_np, _ = half_inputs(np_dt)
        entry = {"dtype": dt.name, "x": bits_of(x_np, dt), "ops": {}}
        for op in UNARY:
            if dt not in allowed(op):
                errors.append({"op": op, "dtype": dt.name, "kind": "TypeError"})
                continue
            g = tf.Graph()
            with g.as_default():
                x = tf.placeholder(dt, [None])
                y = getattr(tf.raw_ops, op)(x=x, name=op)
                try:
                    with tf.Session() as s:
                        out = s.run(y, {x: x_np})
                except tf.errors.InvalidArgumentError as e:
                    errors.append({"op": op, "dtype": dt.name, "kind": type(e).__name__,
                                   "message": kernel_message(e)})
                    continue
            entry["ops"][op] = bits_of(out, tf.as_dtype(out.dtype) if out.dtype != np.bool_ else None)
        cases.append(entry)
    with open(OUT, "w") as f:
        json.dump({"stride": STRIDE, "cases": cases, "errors": errors, "add_n": add_n_cases()},
                  f, separators=(",", ":"))
    print("wrote", OUT, file=sys.stderr)


if __name__ == "__main__":
    main()
