"""Writes expected.json: TensorFlow 2.21's tf.gradients of the elementwise unary math ops in
float16, bfloat16 and complex64 (with a fixed grad_ys), for weir's unary_dtypes_grad test.

Half values are stored as bit patterns (uint16); complex ones as [re, im] float pairs."""
import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")

# Inputs inside each op's domain.
POS = [0.3, 0.7, 1.2, 2.5]
UNIT = [-0.6, -0.2, 0.3, 0.8]
ANY = [-1.7, -0.4, 0.6, 1.9]
ABOVE_ONE = [1.2, 1.7, 2.5, 4.0]

REAL_OPS = {
    "Neg": ANY, "Abs": ANY, "Square": ANY, "Sqrt": POS, "Rsqrt": POS, "Exp": ANY, "Log": POS,
    "Log1p": POS, "Sin": ANY, "Cos": ANY, "Tanh": ANY, "Sigmoid": ANY, "Tan": UNIT,
    "Sinh": ANY, "Cosh": ANY, "Expm1": ANY, "Reciprocal": ANY, "Inv": ANY, "Asin": UNIT,
    "Acos": UNIT, "Atan": ANY, "Asinh": ANY, "Acosh": ABOVE_ONE, "Atanh": UNIT, "Erf": ANY,
    "Erfc": ANY, "Lgamma": POS, "BesselI0e": ANY, "BesselI1e": ANY,
}
# float16 only where TensorFlow has no bfloat16 kernel (Digamma: its gradient, Polygamma,
# takes no half type).
NO_BF16 = {"Lgamma", "BesselI0e", "BesselI1e"}
COMPLEX_OPS = ["Neg", "Square", "Sqrt", "Rsqrt", "Exp", "Log", "Log1p", "Sin", "Cos", "Tanh",
               "Sigmoid", "Tan", "Sinh", "Cosh", "Expm1", "Reciprocal", "Inv"]
COMPLEX_X = [0.3 + 0.4j, -0.7 + 0.2j, 1.2 - 0.5j, -0.4 - 0.9j]
GRAD_Y = [0.5, -1.25, 2.0, 0.75]
COMPLEX_GRAD_Y = [0.5 - 0.25j, -1.25 + 1.0j, 2.0 + 0.5j, 0.75 - 1.5j]


def grad(op, dt, x, gy):
    g = tf.Graph()
    with g.as_default():
        xt = tf.constant(np.array(x, dtype=dt.as_numpy_dtype))
        y = getattr(tf.raw_ops, op)(x=xt)
        d = tf.gradients(y, xt, grad_ys=tf.constant(np.array(gy, dtype=dt.as_numpy_dtype)))[0]
        with tf.Session() as s:
            return s.run([xt, y, d])


def enc(a):
    if np.iscomplexobj(a):
        return [[float(v.real), float(v.imag)] for v in a]
    return a.view(np.uint16).astype(int).tolist()


def main():
    cases = []
    for dt in (tf.float16, tf.bfloat16):
        for op, x in REAL_OPS.items():
            if dt == tf.bfloat16 and op in NO_BF16:
                continue
            xv, y, d = grad(op, dt, x, GRAD_Y)
            cases.append({"op": op, "dtype": dt.name, "x": enc(xv), "grad_ys": enc(
                np.array(GRAD_Y, dtype=dt.as_numpy_dtype)), "y": enc(y), "dx": enc(d)})
    for op in COMPLEX_OPS:
        xv, y, d = grad(op, tf.complex64, COMPLEX_X, COMPLEX_GRAD_Y)
        cases.append({"op": op, "dtype": "complex64", "x": enc(xv),
                      "grad_ys": enc(np.array(COMPLEX_GRAD_Y, np.complex64)), "y": enc(y),
                      "dx": enc(d)})
    with open(OUT, "w") as f:
        json.dump(cases, f, indent=0)


if __name__ == "__main__":
    main()
