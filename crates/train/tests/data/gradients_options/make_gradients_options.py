"""Writes expected.json: TensorFlow 2.21's tf.gradients with stop_gradients and
unconnected_gradients, and tf.hessians, on small float64 functions, for
crates/train/tests/integration/gradients_options.rs (which builds the same functions).

Run with TensorFlow 2.21: python make_gradients_options.py
"""

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.RandomState(11)
X = rng.uniform(-1, 1, size=(2, 3))
W = rng.uniform(-1, 1, size=(3, 2))
V = rng.uniform(0.5, 1.5, size=(4,))


def function(name):
    """The functions, by name; weir's test builds the same ones."""
    x, w, v = tf.constant(X), tf.constant(W), tf.constant(V)
    if name == "cube":
        return [tf.reduce_sum(v * v * v)], [v]
    if name == "mlp":
        h = tf.tanh(tf.matmul(x, w))
        return [tf.reduce_sum(tf.sigmoid(h) * h)], [x, w]
    if name == "log_softmax":
        return [tf.reduce_sum(tf.nn.log_softmax(tf.matmul(x, w)) * tf.constant([[1.0, 0.0], [0.0, 1.0]], tf.float64))], [w]
    if name == "two_ys":
        return [tf.reduce_sum(tf.exp(v)), tf.reduce_sum(tf.square(v) * tf.log(v))], [v]
    raise ValueError(name)


cases = [{"kind": "inputs", "X": X.ravel().tolist(), "W": W.ravel().tolist(), "V": V.ravel().tolist()}]
for name in ["cube", "mlp", "log_softmax", "two_ys"]:
    tf.reset_default_graph()
    ys, xs = function(name)
    hs = tf.hessians(ys, xs)
    with tf.Session() as s:
        cases.append({"kind": "hessians", "name": name,
                      "hessians": [{"shape": list(h.shape), "values": h.ravel().tolist()} for h in s.run(hs)]})

# stop_gradients (the example of tf.gradients' docstring, and a chain) and unconnected zeros.
tf.reset_default_graph()
a = tf.constant(0.5, tf.float64)
b = 2 * a
c = tf.sin(b) * a
u = tf.constant(3.0, tf.float64)
gs = [
    ("doc", tf.gradients(a + b, [a, b], stop_gradients=[a, b])),
    ("chain stop b", tf.gradients(c, [a, b], stop_gradients=[b])),
    ("chain no stop", tf.gradients(c, [a, b])),
    ("unconnected zero", tf.gradients(c, [a, u], unconnected_gradients="zero")),
    ("unconnected none", tf.gradients(c, [a, u])),
]
with tf.Session() as s:
    for name, g in gs:
        cases.append({"kind": "stop", "name": name, "grads": [None if t is None else float(s.run(t)) for t in g]})

# FloorMod's gradient (_FloorModGrad), with broadcasting, float32 and float64.
for dt in (np.float32, np.float64):
    fx = rng.uniform(-5, 5, size=(2, 3)).astype(dt)
    fy = np.array([1.5, -2.0, 0.75], dt)
    gy = rng.uniform(-1, 1, size=(2, 3)).astype(dt)
    tf.reset_default_graph()
    xt, yt = tf.constant(fx), tf.constant(fy)
    d = tf.gradients(tf.floormod(xt, yt), [xt, yt], grad_ys=[tf.constant(gy)])
    with tf.Session() as s:
        dx, dy = s.run(d)
    cases.append({"kind": "floormod", "name": f"floormod {dt.__name__}", "dtype": dt.__name__,
                  "x": fx.ravel().tolist(), "y": fy.tolist(), "grad_ys": gy.ravel().tolist(),
                  "dx": dx.ravel().tolist(), "dy": dy.ravel().tolist()})

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump(cases, f, indent=1)
print(len(cases), "cases")
