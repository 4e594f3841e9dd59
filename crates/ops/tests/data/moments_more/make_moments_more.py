"""Writes expected.json: TensorFlow 2.21's tf.nn.sufficient_statistics,
tf.nn.weighted_moments and tf.nn.moments of float16 (values as float bit patterns, static shapes, op types), for
crates/ops/tests/integration/moments_more.rs.

Run with TensorFlow 2.21: python make_moments_more.py
"""

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.RandomState(2)
cases = []


def bits(a):
    a = np.asarray(a)
    view = {np.float16: np.uint16, np.float32: np.uint32, np.float64: np.uint64}[a.dtype.type]
    return {"dtype": a.dtype.name, "shape": list(a.shape), "bits": a.reshape(-1).view(view).tolist()}


def run(kind, name, x, axes, keepdims, other=None):
    g = tf.Graph()
    with g.as_default():
        xt = tf.constant(x)
        ot = None if other is None else tf.constant(other)
        if kind == "moments":
            outs = list(tf.nn.moments(xt, axes, keepdims=keepdims))
        elif kind == "sufficient":
            c, m, v, _ = tf.nn.sufficient_statistics(xt, axes, shift=ot, keepdims=keepdims)
            outs = [c, m, v]
        else:
            outs = list(tf.nn.weighted_moments(xt, axes, ot, keepdims=keepdims))
        ops = sorted(n.op for n in g.as_graph_def().node if n.op != "Const")
        with tf.Session() as s:
            vals = s.run(outs)
    cases.append({"kind": kind, "name": name, "x": bits(x), "axes": axes, "keepdims": keepdims,
                  "other": None if other is None else bits(other), "ops": ops,
                  "static": [o.shape.as_list() for o in outs], "outputs": [bits(v) for v in vals]})


x = rng.randn(3, 4, 5).astype(np.float32)
for axes, keep in [([0], False), ([0, 2], True), ([-1], False), ([1, 1], False)]:
    run("sufficient", f"no shift {axes} {keep}", x, axes, keep)
    run("sufficient", f"shift {axes} {keep}", x, axes, keep, np.float32(0.25))
run("sufficient", "float64", rng.randn(4, 3), [0], False, rng.randn(3))
w = rng.uniform(0, 3, size=(3, 4, 1)).astype(np.float32)
for axes, keep in [([0], False), ([0, 1], True), ([2], False), ([0, 1, 2], False)]:
    run("weighted", f"weights {axes} {keep}", x, axes, keep, w)
run("weighted", "zero weights", x, [0], False, np.zeros((3, 1, 1), np.float32))
run("weighted", "float64 weights", x, [1], False, np.array([1, 2, 0, 3], np.float64).reshape(1, 4, 1))
run("weighted", "float16", rng.randn(4, 6).astype(np.float16), [0], False, rng.uniform(0, 2, size=(4, 1)).astype(np.float16))
run("weighted", "float64", rng.randn(5, 2), [0], True, rng.uniform(0, 2, size=(5, 2)))

# tf.nn.moments of float16 computes in float32.
h = (rng.randn(6, 5) * 30).astype(np.float16)
run("moments", "moments float16", h, [0], False)
run("moments", "moments float16 keepdims", h, [0, 1], True)

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump(cases, f, indent=1)
print(len(cases), "cases")
