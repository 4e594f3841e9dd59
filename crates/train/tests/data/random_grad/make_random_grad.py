"""Records TensorFlow 2.21's gradients of tf.random.gamma w.r.t. alpha and beta into
expected.json.

Run with TensorFlow 2.21:  python make_random_grad.py  (writes expected.json next to this file).

Each case: graph seed 1, samples = tf.random.gamma(shape, alpha, beta, dtype, seed=7),
loss = reduce_sum(samples * samples) (or reduce_sum(samples) with "linear"); recorded: the
samples and tf.gradients(loss, [alpha, beta]) (beta None when not given), floats as doubles.
"""
import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

CASES = [
    dict(name="vector_alpha_f32", shape=[5], alpha=[0.3, 1.0, 2.5, 40.0], dtype="float32"),
    dict(name="vector_alpha_f64", shape=[5], alpha=[0.3, 1.0, 2.5, 40.0], dtype="float64"),
    dict(name="beta_bcast_f32", shape=[3, 2], alpha=[[0.5], [3.0]], beta=[1.0, 2.0, 4.0],
         dtype="float32"),
    dict(name="beta_bcast_f64_linear", shape=[4], alpha=[[0.8], [1.5]], beta=[[2.0, 0.5]],
         dtype="float64", linear=True),
    dict(name="scalar_alpha_f32", shape=[6], alpha=1.7, dtype="float32", linear=True),
    dict(name="scalar_shape_f64", shape=[], alpha=[0.1, 5.0], beta=[3.0], dtype="float64"),
]


def record(c):
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1)
        dt = tf.float32 if c["dtype"] == "float32" else tf.float64
        alpha = tf.constant(c["alpha"], dt)
        beta = tf.constant(c["beta"], dt) if "beta" in c else None
        s = tf.random.gamma(c["shape"], alpha, beta=beta, dtype=dt, seed=7)
        loss = tf.reduce_sum(s) if c.get("linear") else tf.reduce_sum(s * s)
        xs = [alpha] + ([beta] if beta is not None else [])
        grads = tf.gradients(loss, xs)
        with tf.Session() as sess:
            vals = sess.run([s] + grads)
    c["samples"] = np.asarray(vals[0], np.float64).reshape(-1).tolist()
    c["grad_alpha"] = np.asarray(vals[1], np.float64).reshape(-1).tolist()
    if beta is not None:
        c["grad_beta"] = np.asarray(vals[2], np.float64).reshape(-1).tolist()
    return c


out = [record(c) for c in CASES]
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json"), "w") as f:
    json.dump(out, f, indent=0, allow_nan=False)
print(len(out), "cases")
