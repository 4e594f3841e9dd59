"""Writes learning_rate.json: TensorFlow 1's learning-rate schedules evaluated by the real
TensorFlow (tf.compat.v1 graph mode, global step fed through an int64 placeholder named
"step"), for weir's tests/integration/learning_rate_decay.rs.

Run with $HOME/.cache/weir-bench/venv/bin/python make_learning_rate.py (TensorFlow 2.21).
Values are stored as the hex bit patterns of the float32/float64 results; arguments keep
Python's int/float distinction (JSON 100 vs 100.0), which decides the graph TensorFlow builds.

"values" come from a session with Grappler off: the graph's own arithmetic, which weir
reproduces bit for bit. "values_grappler" come from TensorFlow's default session, whose
Grappler rewrites `x / constant` into `x * (1 / constant)` (and so differs in the last bits).
"""

import json
import os

import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf import config_pb2

tf1 = tf.compat.v1
tf1.disable_eager_execution()

STEPS = [0, 1, 2, 3, 5, 10, 25, 33, 37, 49, 50, 51, 74, 75, 76, 99, 100, 101, 112, 150, 199,
         200, 201, 299, 300, 301, 350, 599, 600, 700, 701, 1000, 1234, 1500, 3100, 5000, 100000]

# (function, learning rate, args): args in TensorFlow's positional order after global_step.
CASES = [
    ("polynomial_decay", 0.1, dict(decay_steps=100)),
    ("polynomial_decay", 0.1, dict(decay_steps=100, end_learning_rate=0.01, power=2.0)),
    ("polynomial_decay", 0.5, dict(decay_steps=75, end_learning_rate=0.001, power=0.5)),
    ("polynomial_decay", 0.1, dict(decay_steps=100, end_learning_rate=0.01, power=1.0, cycle=True)),
    ("polynomial_decay", 0.3, dict(decay_steps=37.5, end_learning_rate=0.02, power=3.0, cycle=True)),
    ("polynomial_decay", 1.0, dict(decay_steps=50.0, end_learning_rate=0.2, power=0.7)),
    ("polynomial_decay", "f64:0.1", dict(decay_steps=100, end_learning_rate=0.01, power=2.0)),
    ("polynomial_decay", "f64:0.3", dict(decay_steps=37.5, end_learning_rate=0.02, power=0.7)),
    ("natural_exp_decay", 0.1, dict(decay_steps=100, decay_rate=0.5)),
    ("natural_exp_decay", 0.1, dict(decay_steps=100, decay_rate=0.5, staircase=True)),
    ("natural_exp_decay", 2.5, dict(decay_steps=33.3, decay_rate=0.1)),
    ("natural_exp_decay", "f64:0.1", dict(decay_steps=100, decay_rate=0.5)),
    ("natural_exp_decay", "f64:0.7", dict(decay_steps=30, decay_rate=1.3, staircase=True)),
    ("inverse_time_decay", 0.1, dict(decay_steps=100, decay_rate=0.5)),
    ("inverse_time_decay", 0.1, dict(decay_steps=100, decay_rate=0.5, staircase=True)),
    ("inverse_time_decay", 0.9, dict(decay_steps=7.5, decay_rate=2.0)),
    ("inverse_time_decay", "f64:0.1", dict(decay_steps=100, decay_rate=0.3)),
    ("inverse_time_decay", "f64:0.1", dict(decay_steps=100.5, decay_rate=0.3, staircase=True)),
    ("cosine_decay", 0.1, dict(decay_steps=100)),
    ("cosine_decay", 0.1, dict(decay_steps=100, alpha=0.1)),
    ("cosine_decay", 0.7, dict(decay_steps=333, alpha=0.3)),
    ("cosine_decay", 0.2, dict(decay_steps=50.5, alpha=0)),
    ("cosine_decay_restarts", 0.1, dict(first_decay_steps=100)),
    ("cosine_decay_restarts", 0.1, dict(first_decay_steps=100, t_mul=1.0)),
    ("cosine_decay_restarts", 0.1, dict(first_decay_steps=50, t_mul=1.0, m_mul=0.5, alpha=0.1)),
    ("cosine_decay_restarts", 0.4, dict(first_decay_steps=100, t_mul=2.0, m_mul=0.9, alpha=0.05)),
    ("cosine_decay_restarts", 0.4, dict(first_decay_steps=30, t_mul=1.5, m_mul=1.0, alpha=0.0)),
    ("cosine_decay_restarts", 0.4, dict(first_decay_steps=10, t_mul=0.5)),
    ("linear_cosine_decay", 0.1, dict(decay_steps=100)),
    ("linear_cosine_decay", 0.1, dict(decay_steps=100, num_periods=2.0, alpha=0.1, beta=0.01)),
    ("linear_cosine_decay", 0.5, dict(decay_steps=75, num_periods=0.3, alpha=0.0, beta=0.0)),
    ("linear_cosine_decay", 0.5, dict(decay_steps=1000.0, num_periods=4, alpha=1, beta=0.2)),
]
# Seeded noise: graph-level seed, then the schedule is the first random op of the graph.
NOISY = [
    (7, 0.1, dict(decay_steps=100)),
    (1234, 0.1, dict(decay_steps=100, initial_variance=0.5, variance_decay=0.3, num_periods=2.0,
                    alpha=0.1, beta=0.01)),
    (5, 1.0, dict(decay_steps=500.0)),
]
# Arguments TensorFlow rejects while building the graph.
ERRORS = [
    ("polynomial_decay", "f64:0.1", dict(decay_steps=100, cycle=True)),
    ("cosine_decay", "f64:0.1", dict(decay_steps=100)),
    ("cosine_decay_restarts", "f64:0.1", dict(first_decay_steps=100)),
    ("linear_cosine_decay", "f64:0.1", dict(decay_steps=100)),
    ("noisy_linear_cosine_decay", "f64:0.1", dict(decay_steps=100)),
]


def learning_rate(lr):
    if isinstance(lr, str):
        return tf.constant(float(lr[4:]), tf.float64)
    return lr


def bits(v):
    v = np.asarray(v)
    if v.dtype == np.float32:
        return "%08x" % v.view(np.uint32)
    return "%016x" % v.view(np.uint64)


def nodes(g):
    return [[op.name, op.type, [i.name for i in op.inputs]]
            for op in g.get_operations() if op.name != "step"]


def evaluate(fn, lr, args, seed=None, steps=STEPS):
    g = tf1.Graph()
    with g.as_default():
        if seed is not None:
            tf1.set_random_seed(seed)
        step = tf1.placeholder(tf.int64, [], name="step")
        out = getattr(tf1.train, fn)(learning_rate(lr), step, **args)
        plain = config_pb2.ConfigProto()
        plain.graph_options.rewrite_options.disable_meta_optimizer = True
        with tf1.Session(graph=g, config=plain) as sess:
            values = [bits(sess.run(out, {step: s})) for s in steps]
        with tf1.Session(graph=g) as sess:
            values_grappler = [bits(sess.run(out, {step: s})) for s in steps]
    rec = dict(fn=fn, lr=lr, args=args, steps=steps, values=values,
               values_grappler=values_grappler, dtype=out.dtype.name, name=out.name,
               nodes=nodes(g))
    if seed is not None:
        rec["seed"] = seed
        rnd = [op for op in g.get_operations() if op.type == "RandomStandardNormal"]
        rec["seeds"] = [rnd[0].get_attr("seed"), rnd[0].get_attr("seed2")]
    return rec


def main():
    out = dict(tf_version=tf.__version__, cases=[], noisy=[], errors=[])
    for fn, lr, args in CASES:
        out["cases"].append(evaluate(fn, lr, args))
    for seed, lr, args in NOISY:
        out["noisy"].append(evaluate("noisy_linear_cosine_decay", lr, args, seed=seed,
                                     steps=STEPS + STEPS))
    for fn, lr, args in ERRORS:
        g = tf1.Graph()
        with g.as_default():
            step = tf1.placeholder(tf.int64, [], name="step")
            try:
                getattr(tf1.train, fn)(learning_rate(lr), step, **args)
            except (TypeError, ValueError) as e:
                out["errors"].append(dict(fn=fn, lr=lr, args=args, error=str(e)))
                continue
        raise AssertionError("%s did not fail" % fn)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "learning_rate.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
