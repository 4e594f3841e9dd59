"""Records TensorFlow 2.21's stateless random values, Dataset.random and sample_from_datasets
orders into expected.json.

Run with TensorFlow 2.21:  python make_stateless.py  (writes expected.json next to this file).

Each case builds one graph with tf.compat.v1 and runs it in a Session:

* "uniform", "normal", "truncated": tf.random.stateless_uniform / stateless_normal /
  stateless_truncated_normal of `shape` with `seed` (a constant of `seed_dtype`, or a
  placeholder of unknown shape fed with it when `seed_fed`); `shape_fed` makes the shape an
  int32 placeholder of shape [len(shape)] fed with it. Optional minval, maxval (None for
  full-range ints: `full_range`), mean, stddev.
* "categorical": tf.random.stateless_categorical(logits, num_samples, seed, dtype); -inf logits
  are written as the string "-inf".
* "dataset_random": the first `n` values of tf.data.Dataset.random(seed) under graph seed
  `graph_seed` (None: not set).
* "sample": tf.data.Dataset.sample_from_datasets over range(start, stop) datasets with
  `weights` (None, a list, or {"dataset": [[...], ...]} for a weights dataset), `seed`,
  `stop_on_empty_dataset`, under graph seed `graph_seed`; every element until the end (at
  most `n`). `before` stateless ops without a seed are built first (to move the graph's seed
  counter).

Recorded: the static output shape (None for unknown rank), then the value (`out`: shape and
row-major values; for floats also `bits`, each value's IEEE bits as an unsigned int) or the error
(`build_error` when building failed, `error` when running did) as TensorFlow's canonical code
and message (build messages before TensorFlow's " for '{{node" suffix; run messages the line
TensorFlow reports for the node).
"""
import json
import math
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

DTYPES = {"float32": tf.float32, "float64": tf.float64, "int32": tf.int32, "int64": tf.int64,
          "bool": tf.bool}


def seed_of(c, feeds):
    dt = DTYPES[c.get("seed_dtype", "int64")]
    if c.get("seed_fed"):
        p = tf.placeholder(dt, None)
        feeds[p] = np.array(c["seed"], dt.as_numpy_dtype)
        return p
    return tf.constant(c["seed"], dt)


def shape_of(c, feeds):
    if c.get("shape_fed"):
        p = tf.placeholder(tf.int32, [len(c["shape"])])
        feeds[p] = np.array(c["shape"], np.int32)
        return p
    return c["shape"]


def logit(x):
    return -math.inf if x == "-inf" else x


def build(c):
    op = c["op"]
    feeds = {}
    if op in ("uniform", "normal", "truncated"):
        shape, seed = shape_of(c, feeds), seed_of(c, feeds)
        dt = DTYPES[c.get("dtype", "float32")]
        if op == "uniform":
            kw = {}
            if c.get("full_range"):
                kw = dict(minval=None, maxval=None)
            else:
                if "minval" in c:
                    kw["minval"] = c["minval"]
                if "maxval" in c:
                    kw["maxval"] = c["maxval"]
            return tf.random.stateless_uniform(shape, seed, dtype=dt, **kw), feeds
        kw = {k: c[k] for k in ("mean", "stddev") if k in c}
        f = tf.random.stateless_normal if op == "normal" else tf.random.stateless_truncated_normal
        return f(shape, seed, dtype=dt, **kw), feeds
    if op == "categorical":
        seed = seed_of(c, feeds)
        logits = tf.constant([[logit(x) for x in row] for row in c["logits"]],
                             DTYPES[c.get("logits_dtype", "float32")])
        dt = DTYPES[c["dtype"]] if "dtype" in c else None
        return tf.random.stateless_categorical(logits, c["num_samples"], seed, dtype=dt), feeds
    if c.get("graph_seed") is not None:
        tf.set_random_seed(c["graph_seed"])
    for _ in range(c.get("before", 0)):
        tf.random.uniform([1])
    if op == "dataset_random":
        ds = tf.data.Dataset.random(seed=c["seed"]).take(c["n"])
    elif op == "sample":
        datasets = [tf.data.Dataset.range(a, b) for a, b in c["datasets"]]
        w = c.get("weights")
        if isinstance(w, dict):
            w = tf.data.Dataset.from_tensor_slices(tf.constant(w["dataset"], tf.float32))
        ds = tf.data.Dataset.sample_from_datasets(
            datasets, weights=w, seed=c.get("seed"),
            stop_on_empty_dataset=c["stop_on_empty_dataset"]).take(c["n"])
    else:
        raise ValueError(op)
    return tf.data.make_one_shot_iterator(ds.batch(10_000)).get_next(), feeds


def build_message(e):
    m = str(e)
    return m.split(" for '{{node")[0].split("\n\t; NodeDef")[0]


def run_message(e):
    lines = e.message.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("Node: '") and i + 1 < len(lines):
            return lines[i + 1]
    return lines[0]


def tensor_json(v):
    a = np.asarray(v)
    out = {"shape": list(a.shape), "values": a.reshape(-1).tolist()}
    if a.dtype in (np.float32, np.float64):
        # The exact bits too: JSON readers need not parse decimal floats exactly.
        bits = np.uint32 if a.dtype == np.float32 else np.uint64
        out["bits"] = a.reshape(-1).view(bits).tolist()
    return out


def record(c):
    g = tf.Graph()
    with g.as_default():
        try:
            out, feeds = build(c)
        except (ValueError, TypeError, tf.errors.OpError) as e:
            code = e.error_code if isinstance(e, tf.errors.OpError) else 3
            c["build_error"] = {"code": code, "message": build_message(e)}
            return c
        c["static_shape"] = out.shape.as_list() if out.shape.rank is not None else None
        with tf.Session() as sess:
            try:
                c["out"] = tensor_json(sess.run(out, feed_dict=feeds))
            except tf.errors.OpError as e:
                c["error"] = {"code": e.error_code, "message": run_message(e)}
    return c


SEEDS = [
    ([1, 2], "int32"),
    ([0, 0], "int32"),
    ([-1, 7], "int32"),
    ([-2147483648, 2147483647], "int32"),
    ([1, 2], "int64"),
    ([-5, -9], "int64"),
    ([2**40 + 3, -(2**62)], "int64"),
    ([9223372036854775807, -9223372036854775808], "int64"),
]

CASES = []
for seed, sdt in SEEDS:
    tag = f"{sdt}_{seed[0]}_{seed[1]}"
    for dt in ("float32", "float64"):
        for op in ("uniform", "normal", "truncated"):
            for shape in ([7], [2, 3]):
                CASES.append(dict(name=f"{op}_{dt}_{tag}_{len(shape)}d", op=op, shape=shape,
                                  seed=seed, seed_dtype=sdt, dtype=dt))
    for dt in ("int32", "int64"):
        CASES.append(dict(name=f"uniform_{dt}_{tag}", op="uniform", shape=[9], seed=seed,
                          seed_dtype=sdt, dtype=dt, minval=-3, maxval=100))
        CASES.append(dict(name=f"full_{dt}_{tag}", op="uniform", shape=[5], seed=seed,
                          seed_dtype=sdt, dtype=dt, full_range=True))
    CASES.append(dict(name=f"categorical_{tag}", op="categorical",
                      logits=[[0.0, 1.0, 2.0], [1.0, 1.0, 1.0], [-1.0, 3.0, 0.5]],
                      num_samples=9, seed=seed, seed_dtype=sdt))

for n in (1, 2, 3, 4, 5, 6, 8, 9, 11, 13, 17, 33):
    for dt in ("float32", "float64"):
        for op in ("uniform", "normal", "truncated"):
            CASES.append(dict(name=f"{op}_{dt}_odd_{n}", op=op, shape=[n], seed=[7, 8],
                              seed_dtype="int64", dtype=dt))
    for dt in ("int32", "int64"):
        CASES.append(dict(name=f"uniform_{dt}_odd_{n}", op="uniform", shape=[n], seed=[7, 8],
                          seed_dtype="int32", dtype=dt, minval=0, maxval=10))

CASES += [
    dict(name="uniform_range_f32", op="uniform", shape=[6], seed=[3, 4], minval=-2.5,
         maxval=7.25),
    dict(name="uniform_range_f64", op="uniform", shape=[6], seed=[3, 4], minval=-2.5,
         maxval=7.25, dtype="float64"),
    dict(name="uniform_maxval_only", op="uniform", shape=[4], seed=[3, 4], maxval=10.0),
    dict(name="normal_mean_stddev", op="normal", shape=[5], seed=[3, 4], mean=2.0, stddev=0.5),
    dict(name="truncated_mean_stddev_f64", op="truncated", shape=[5], seed=[3, 4], mean=-1.0,
         stddev=3.0, dtype="float64"),
    dict(name="truncated_big", op="truncated", shape=[3, 41], seed=[11, 12]),
    dict(name="uniform_int_wide_i32", op="uniform", shape=[8], seed=[5, 6], dtype="int32",
         minval=-2147483648, maxval=2147483647),
    dict(name="uniform_int_wide_i64", op="uniform", shape=[8], seed=[5, 6], dtype="int64",
         minval=-(2**62), maxval=2**62),
    dict(name="uniform_empty", op="uniform", shape=[0], seed=[1, 2]),
    dict(name="uniform_empty_2d", op="uniform", shape=[3, 0], seed=[1, 2]),
    dict(name="normal_empty", op="normal", shape=[0, 4], seed=[1, 2]),
    dict(name="truncated_empty", op="truncated", shape=[0], seed=[1, 2], dtype="float64"),
    dict(name="uniform_scalar", op="uniform", shape=[], seed=[1, 2]),
    dict(name="uniform_int_empty_bad_range", op="uniform", shape=[0], seed=[1, 2],
         dtype="int32", minval=5, maxval=5),
    dict(name="uniform_int_bad_range", op="uniform", shape=[2], seed=[1, 2], dtype="int32",
         minval=5, maxval=5),
    dict(name="uniform_int_bad_range_i64", op="uniform", shape=[2], seed=[1, 2],
         dtype="int64", minval=10, maxval=-3),
    dict(name="uniform_int_no_maxval", op="uniform", shape=[2], seed=[1, 2], dtype="int32"),
    dict(name="uniform_bad_dtype", op="uniform", shape=[2], seed=[1, 2], dtype="bool"),
    dict(name="seed_len_3", op="uniform", shape=[2], seed=[1, 2, 3]),
    dict(name="seed_len_3_normal", op="normal", shape=[2], seed=[1, 2, 3], seed_dtype="int32"),
    dict(name="seed_fed_len_3", op="uniform", shape=[2], seed=[1, 2, 3], seed_fed=True),
    dict(name="seed_fed_matrix", op="normal", shape=[2], seed=[[1, 2]], seed_fed=True),
    dict(name="seed_fed_ok", op="truncated", shape=[3], seed=[1, 2], seed_fed=True),
    dict(name="shape_fed", op="uniform", shape=[2, 3], seed=[1, 2], shape_fed=True),
    dict(name="shape_fed_int", op="uniform", shape=[4], seed=[1, 2], shape_fed=True,
         dtype="int64", minval=0, maxval=3),
    dict(name="categorical_neg_inf", op="categorical",
         logits=[["-inf", 0.0, "-inf", 1.0], [2.0, "-inf", "-inf", "-inf"]],
         num_samples=12, seed=[4, 5]),
    dict(name="categorical_zero_samples", op="categorical", logits=[[0.0, 1.0]],
         num_samples=0, seed=[4, 5]),
    dict(name="categorical_one_class", op="categorical", logits=[[3.0], [1.0]],
         num_samples=5, seed=[4, 5]),
    dict(name="categorical_i32", op="categorical", logits=[[0.1, 0.2, 0.3, 0.4, 0.5]],
         num_samples=7, seed=[9, 9], dtype="int32"),
    dict(name="categorical_f64", op="categorical", logits=[[0.5, -2.0, 1.5], [0.0, 0.0, 9.0]],
         logits_dtype="float64", num_samples=6, seed=[-3, 2**33], seed_dtype="int64"),
    dict(name="categorical_many_rows", op="categorical",
         logits=[[float(i % 5), float(i % 3), 1.0] for i in range(7)], num_samples=3,
         seed=[21, 22]),
    dict(name="categorical_bad_dtype", op="categorical", logits=[[0.0, 1.0]], num_samples=2,
         seed=[4, 5], dtype="float32"),
    dict(name="categorical_bad_seed", op="categorical", logits=[[0.0, 1.0]], num_samples=2,
         seed=[4, 5, 6]),
    dict(name="categorical_fed_bad_seed", op="categorical", logits=[[0.0, 1.0]],
         num_samples=2, seed=[4], seed_fed=True),
    dict(name="categorical_no_classes", op="categorical", logits=[[], []], num_samples=2,
         seed=[4, 5]),
]

for seed, gseed, before in ((5, None, 0), (0, None, 0), (123456789, None, 0), (None, 7, 0),
                            (None, 7, 3), (11, 3, 0), (-4, None, 0)):
    CASES.append(dict(name=f"dataset_random_{seed}_{gseed}_{before}", op="dataset_random",
                      seed=seed, graph_seed=gseed, before=before, n=13))


def sample(name, datasets, weights, seed, graph_seed, stop, n=200, before=0):
    CASES.append(dict(name=name, op="sample", datasets=datasets, weights=weights, seed=seed,
                      graph_seed=graph_seed, stop_on_empty_dataset=stop, n=n, before=before))


for stop in (False, True):
    s = "stop" if stop else "go"
    sample(f"sample_uniform_2_{s}", [(0, 5), (100, 110)], None, 42, None, stop)
    sample(f"sample_uniform_3_{s}", [(0, 4), (100, 107), (200, 213)], None, 1, None, stop)
    sample(f"sample_weights_{s}", [(0, 8), (100, 120), (200, 203)], [0.2, 0.7, 0.1], 7, None,
           stop)
    sample(f"sample_graph_seed_{s}", [(0, 6), (100, 109)], [0.5, 0.5], None, 99, stop)
    sample(f"sample_both_seeds_{s}", [(0, 6), (100, 109), (200, 204)], [1.0, 2.0, 3.0], 5, 17,
           stop)
    sample(f"sample_zero_weight_{s}", [(0, 6), (100, 109), (200, 204)], [1.0, 0.0, 3.0], 3,
           None, stop)
    sample(f"sample_weights_ds_{s}", [(0, 5), (100, 105)],
           {"dataset": [[0.9, 0.1]] * 4 + [[0.1, 0.9]] * 20}, 8, None, stop)
sample("sample_uneven", [(0, 30), (100, 103)], [0.95, 0.05], 2, None, False)
sample("sample_before", [(0, 6), (100, 106)], None, None, 5, False, before=2)
sample("sample_negative_seed", [(0, 6), (100, 106)], [0.3, 0.7], -12, None, False)
sample("sample_all_zero", [(0, 6), (100, 106)], [0.0, 0.0], 1, None, False)
sample("sample_one_dataset", [(0, 4)], None, 1, None, False)
sample("sample_take", [(0, 1000), (1000, 2000)], [0.4, 0.6], 31, None, False, n=40)
sample("sample_bad_weight_len", [(0, 4), (5, 9)], [1.0], 1, None, False)


def main():
    out = [record(dict(c)) for c in CASES]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"{len(out)} cases -> {path}")


if __name__ == "__main__":
    main()
