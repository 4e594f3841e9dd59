"""Records TensorFlow 2.21's RandomGamma, RandomPoissonV2 and ParameterizedTruncatedNormal
samples into expected.json.

Run with TensorFlow 2.21:  python make_random_more.py  (writes expected.json next to this file).

Each case builds one tf.compat.v1 graph with graph seed `graph_seed` and runs it in a Session:
* "gamma": tf.random.gamma(shape, alpha, beta, dtype, seed) (alpha/beta nested lists).
* "poisson": tf.random.poisson(lam, shape, dtype, seed) with lam of `lam_dtype`.
* "ptn": random_ops.parameterized_truncated_normal(shape, means, stddevs, minvals, maxvals,
  dtype, seed) (each parameter a number or a list; shape fed through an int32 placeholder of
  unknown shape when `shape_fed`).
* "gamma_grad": tf.raw_ops.RandomGammaGrad(alpha, sample).
Recorded: `static_shape` (None for unknown rank) and `out` ({dtype, dims, values}, floats as
IEEE bit patterns), or `build_error`/`error` as {code, message}.
"""
import json
import os

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.python.ops import random_ops

tf.disable_eager_execution()

DT = {"float16": tf.float16, "float32": tf.float32, "float64": tf.float64, "int32": tf.int32,
      "int64": tf.int64}
BITS = {np.float16: np.uint16, np.float32: np.uint32, np.float64: np.uint64}


def spec(a):
    a = np.asarray(a)
    vals = a.reshape(-1)
    if a.dtype.type in BITS:
        vals = vals.view(BITS[a.dtype.type])
    return {"dtype": a.dtype.name, "dims": list(a.shape), "values": vals.tolist()}


def build(c, feeds):
    op, dt = c["op"], DT[c.get("dtype", "float32")]
    if op == "gamma":
        alpha = tf.constant(c["alpha"], dt)
        beta = tf.constant(c["beta"], dt) if "beta" in c else None
        return tf.random.gamma(c["shape"], alpha, beta=beta, dtype=dt, seed=c.get("seed"))
    if op == "poisson":
        lam = tf.constant(c["lam"], DT[c.get("lam_dtype", "float32")])
        return tf.random.poisson(lam, c["shape"], dtype=dt, seed=c.get("seed"))
    if op == "ptn":
        shape = c["shape"]
        if c.get("shape_fed"):
            p = tf.placeholder(tf.int32, None)
            feeds[p] = np.array(shape, np.int32)
            shape = p
        kw = {k: tf.constant(c[k], dt) for k in ("means", "stddevs", "minvals", "maxvals")
              if k in c}
        return random_ops.parameterized_truncated_normal(shape, dtype=dt, seed=c.get("seed"),
                                                         **kw)
    if op == "gamma_grad":
        return tf.raw_ops.RandomGammaGrad(alpha=tf.constant(c["alpha"], dt),
                                          sample=tf.constant(c["sample"], dt))
    raise ValueError(op)


def run_message(e):
    lines = e.message.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("Node: '") and i + 1 < len(lines):
            return lines[i + 1]
    return lines[0]


def record(c):
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(c.get("graph_seed", 1))
        feeds = {}
        try:
            out = build(c, feeds)
        except (ValueError, TypeError, tf.errors.OpError) as e:
            code = e.error_code if isinstance(e, tf.errors.OpError) else 3
            c["build_error"] = {"code": code,
                                "message": str(e).split(" for '{{node")[0]}
            return c
        c["static_shape"] = out.shape.as_list() if out.shape.rank is not None else None
        with tf.Session() as sess:
            try:
                c["out"] = spec(sess.run(out, feed_dict=feeds))
            except tf.errors.OpError as e:
                c["error"] = {"code": e.error_code, "message": run_message(e)}
    return c


C = []
FLOATS = ("float16", "float32", "float64")
for seed in (None, 0, 3, 77, 2**31 - 1):
    for dt in FLOATS:
        C.append(dict(op="gamma", name=f"gamma_{dt}_{seed}", shape=[4, 3], seed=seed, dtype=dt,
                      alpha=[0.01, 0.5, 0.999, 1.0, 1.5, 7.0, 250.0]))
C += [
    dict(op="gamma", name="gamma_beta_bcast", shape=[2, 2], seed=5, alpha=[[1.0], [2.0]],
         beta=[1.0, 2.0, 3.0]),
    dict(op="gamma", name="gamma_beta_f64", shape=[3], seed=5, alpha=[0.3, 4.0], beta=[2.0],
         dtype="float64"),
    dict(op="gamma", name="gamma_scalar_alpha", shape=[5], seed=6, alpha=2.5),
    dict(op="gamma", name="gamma_empty_shape", shape=[0], seed=6, alpha=[1.0, 2.0]),
    dict(op="gamma", name="gamma_empty_alpha", shape=[3], seed=6, alpha=[]),
    dict(op="gamma", name="gamma_scalar_shape", shape=[], seed=6, alpha=[0.2, 3.0]),
    dict(op="gamma", name="gamma_edges", shape=[3], seed=2,
         alpha=[float("inf"), -1.0, 0.0, -0.5, 1e-30]),
    dict(op="gamma", name="gamma_bad_bcast", shape=[2], seed=2, alpha=[1.0, 2.0],
         beta=[1.0, 2.0, 3.0]),
]
for seed in (None, 1, 42):
    for dt in FLOATS + ("int32", "int64"):
        for ldt in ("float32", "float64", "int32"):
            lam = [0, 1, 3, 9, 10, 25, 1000] if ldt == "int32" else [
                0.0, 1e-30, 0.5, 3.0, 9.9, 10.0, 10.5, 150.0, 1e6 if dt != "float16" else 5e4]
            C.append(dict(op="poisson", name=f"poisson_{dt}_{ldt}_{seed}", shape=[3, 2],
                          seed=seed, dtype=dt, lam=lam, lam_dtype=ldt))
C += [
    dict(op="poisson", name="poisson_edges_f32", shape=[3], seed=9,
         lam=[float("inf"), float("-inf"), -1.0, -20.0]),
    dict(op="poisson", name="poisson_edges_i64", shape=[3], seed=9, dtype="int64",
         lam=[float("inf"), float("-inf"), -1.0]),
    dict(op="poisson", name="poisson_half_lam", shape=[4], seed=9, lam=[2.0, 30.0],
         lam_dtype="float16", dtype="float16"),
    dict(op="poisson", name="poisson_empty", shape=[0, 2], seed=9, lam=[2.0]),
    dict(op="poisson", name="poisson_scalar_lam", shape=[6], seed=9, lam=12.0),
]
PT = [
    ("std", {}),
    ("wide", dict(means=0.0, stddevs=1.0, minvals=-5.0, maxvals=5.0)),
    ("narrow", dict(means=1.0, stddevs=2.0, minvals=0.5, maxvals=1.5)),
    ("tail", dict(means=0.0, stddevs=1.0, minvals=3.0, maxvals=10.0)),
    ("one_sided", dict(means=0.0, stddevs=1.0, minvals=2.0, maxvals=float("inf"))),
    ("neg_one_sided", dict(means=0.0, stddevs=1.0, minvals=float("-inf"), maxvals=-2.5)),
    ("below_mean", dict(means=5.0, stddevs=0.5, minvals=-1.0, maxvals=4.0)),
    ("uniform_mid", dict(means=0.0, stddevs=1.0, minvals=-0.3, maxvals=0.4)),
]
for dt in FLOATS:
    for tag, kw in PT:
        for shape in ([7], [3, 5], [250]):
            C.append(dict(op="ptn", name=f"ptn_{tag}_{dt}_{len(shape)}_{shape[0]}", shape=shape,
                          seed=4, dtype=dt, **kw))
    C.append(dict(op="ptn", name=f"ptn_batched_{dt}", shape=[4, 3], seed=8, dtype=dt,
                  means=[0.0, 1.0, -2.0, 3.0], stddevs=[1.0, 0.5, 2.0, 1.0],
                  minvals=[-1.0, 2.0, -10.0, 3.5], maxvals=[1.0, 3.0, -1.0, 100.0]))
C += [
    dict(op="ptn", name="ptn_mixed_len1", shape=[3, 2], seed=2, means=[0.5], stddevs=1.0,
         minvals=[-1.0, -2.0, 3.0], maxvals=[1.0, -1.0, 5.0]),
    dict(op="ptn", name="ptn_bad_means_len", shape=[3, 2], seed=2, means=[0.0, 1.0],
         minvals=[-1.0, -2.0, 3.0], maxvals=[1.0, -1.0, 5.0]),
    dict(op="ptn", name="ptn_min_eq_max", shape=[3], seed=2, minvals=1.0, maxvals=1.0),
    dict(op="ptn", name="ptn_neg_stddev", shape=[3], seed=2, stddevs=-1.0),
    dict(op="ptn", name="ptn_both_inf", shape=[3], seed=2, minvals=float("-inf"),
         maxvals=float("inf")),
    dict(op="ptn", name="ptn_empty_shape_tensor", shape=[], seed=2),
    dict(op="ptn", name="ptn_zero_elems", shape=[0], seed=2),
    dict(op="ptn", name="ptn_zero_batch_inner", shape=[2, 0], seed=2, minvals=[1.0, 0.0],
         maxvals=[0.0, 1.0]),
    dict(op="ptn", name="ptn_rank2_param", shape=[2, 2], seed=2, means=[[0.0]]),
    dict(op="ptn", name="ptn_fed_shape", shape=[2, 3], seed=2, shape_fed=True),
    dict(op="ptn", name="ptn_fed_negative", shape=[-1, 3], seed=2, shape_fed=True),
    dict(op="ptn", name="ptn_graph_seed_only", shape=[9], graph_seed=123),
]
for dt in ("float32", "float64"):
    C += [
        dict(op="gamma_grad", name=f"gamma_grad_{dt}", dtype=dt,
             alpha=[0.1, 0.5, 1.0, 1.0, 2.0, 3.0, 10.0, 100.0, -1.0, 0.0, 2.0, 0.7],
             sample=[0.001, 0.3, 1.0, 5.0, 0.5, 7.0, 9.0, 120.0, 1.0, 1.0, 0.0, 1e-30]),
        dict(op="gamma_grad", name=f"gamma_grad_bcast_{dt}", dtype=dt, alpha=[[0.5], [4.0]],
             sample=[0.2, 1.0, 3.0]),
    ]
C.append(dict(op="gamma_grad", name="gamma_grad_bad", alpha=[1.0, 2.0], sample=[1.0, 2.0, 3.0]))

def finite(v):
    """Non-finite parameters as the strings "inf", "-inf", "nan" (JSON has no such numbers)."""
    if isinstance(v, float) and not np.isfinite(v):
        return str(v)
    if isinstance(v, list):
        return [finite(x) for x in v]
    if isinstance(v, dict):
        return {k: finite(x) for k, x in v.items()}
    return v


out = [finite(record(c)) for c in C]
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")
with open(path, "w") as f:
    json.dump(out, f, indent=0, allow_nan=False)
print(len(out), "cases")
