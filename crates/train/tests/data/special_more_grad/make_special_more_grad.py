"""Records TensorFlow 2.21's tf.gradients (tf.compat.v1, graph mode, CPU) of the functions of
crates/train/tests/integration/special_more_grad.rs: tf.math.special.bessel_i0 ... bessel_y1,
dawsn, expint, fresnel_cos, fresnel_sin and spence, in float32 and float64, at points in each
function's domain (and where math_grad.py patches a 0/0: x = 0 for bessel_i1 and bessel_j1,
x = 1 for spence), with weighted grad_ys.

Run: ~/.cache/weir-bench/venv/bin/python make_special_more_grad.py   (writes expected.json)

Each case: {"name", "fn", "x": tensor, "grad_ys": tensor, "grad": tensor}; a tensor is
{"dtype", "dims", "values"} with floats as their bit patterns.
"""

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))
BITS = {"float32": np.uint32, "float64": np.uint64}


def enc(a):
    a = np.asarray(a)
    return {"dtype": str(a.dtype), "dims": list(a.shape),
            "values": [int(v) for v in a.view(BITS[str(a.dtype)]).reshape(-1)]}


POSITIVE = [0.1, 0.5, 1.0, 1.7, 2.5, 3.3, 4.9, 6.0, 7.5, 9.0, 12.0, 20.0]
SIGNED = [-7.5, -3.3, -1.2, -0.4, 0.0, 0.3, 0.9, 1.8, 2.6, 4.0, 5.5, 8.5, 11.0, 25.0]
POINTS = {
    "bessel_i0": SIGNED, "bessel_i1": SIGNED, "bessel_j0": SIGNED, "bessel_j1": SIGNED,
    "bessel_k0": POSITIVE, "bessel_k0e": POSITIVE, "bessel_k1": POSITIVE,
    "bessel_k1e": POSITIVE, "bessel_y0": POSITIVE, "bessel_y1": POSITIVE,
    "dawsn": SIGNED, "fresnel_cos": SIGNED, "fresnel_sin": SIGNED,
    "expint": [0.05, 0.3, 1.0, 1.9, 2.5, 5.0, 9.0, 17.0, 40.0, 70.0],
    "spence": [0.05, 0.3, 0.5, 0.8, 1.0, 1.3, 1.7, 2.5, 4.0, 10.0],
}

CASES = []
for fn, pts in POINTS.items():
    for dt in [np.float64, np.float32]:
        x = np.array(pts, dt)
        w = np.array([0.5 + ((i * 7919 + 13) % 1000) / 1000.0 for i in range(len(pts))], dt)
        g = tf.Graph()
        with g.as_default():
            p = tf.placeholder(tf.as_dtype(dt), x.shape)
            y = getattr(tf.math.special, fn)(p)
            (d,) = tf.gradients(y, [p], grad_ys=tf.constant(w))
            with tf.Session() as s:
                grad = s.run(d, {p: x})
        CASES.append({"name": f"{fn}_{dt.__name__}", "fn": fn, "x": enc(x), "grad_ys": enc(w),
                      "grad": enc(grad)})

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump(CASES, f, indent=0)
print(len(CASES), "cases")
