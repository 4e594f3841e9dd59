"""Records TensorFlow's candidate sampling into expected.json.

Run with TensorFlow 2.21:  python make_sampled.py  (writes expected.json next to this file).

* samplers: Uniform-, LogUniform- and FixedUnigramCandidateSampler outputs for fixed graph and
  op seeds, two runs each (the Philox stream continues between runs);
* hits: ComputeAccidentalHits for fixed inputs;
* losses: nce_loss / sampled_softmax_loss values and gradients (w.r.t. weights, biases,
  inputs; IndexedSlices made dense) of sum(loss * lw) for fixed inputs and FIXED
  sampled_values;
* seeded_softmax: sampled_softmax_loss with its own seeded sampler, two runs.
"""
import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()


def enc(a):
    a = np.asarray(a)
    return {"dtype": str(a.dtype), "shape": list(a.shape),
            "data": [float(x) if a.dtype.kind == "f" else int(x) for x in a.reshape(-1)]}


def samplers():
    out = []
    cases = [
        ("uniform", [[3], [7]], 1, 5, True, 10, 1, 2),
        ("uniform", [[3], [7]], 1, 6, False, 10, 5, 9),
        ("uniform", [[0, 1], [2, 3], [4, 5]], 2, 4, True, 7, 42, 3),
        ("uniform", [[1]], 1, 3, True, 3, 8, 8),
        ("uniform", [[1]], 1, 4, False, 1 << 40, 11, 12),
        ("log_uniform", [[3], [7]], 1, 5, True, 10, 1, 2),
        ("log_uniform", [[0], [99]], 1, 8, False, 100, 6, 7),
        ("log_uniform", [[0, 1], [2, 3]], 2, 20, True, 50, 13, 21),
        ("log_uniform", [[5]], 1, 64, True, 1000, 123, 456),
    ]
    fixed = [
        # unigrams, distortion, num_reserved_ids, num_shards, shard
        ([1.0, 2.0, 3.0, 4.0, 0.5, 7.0], 1.0, 0, 1, 0),
        ([5.0, 1.0, 0.0, 2.0, 9.0, 3.0, 1.0], 0.75, 2, 1, 0),
        ([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0], 0.5, 3, 3, 1),
    ]
    for i, (ug, dist, res, nsh, sh) in enumerate(fixed):
        for uq in (True, False):
            g = tf.Graph()
            with g.as_default():
                tf.set_random_seed(10 + i)
                # The shard's range: reserved ids of the shard, then its unigrams.
                nres = len([j for j in range(res) if j % nsh == sh])
                rm = nres + len([j for j in range(len(ug)) if (nres + j) % nsh == sh])
                t = tf.constant(np.array([[0], [1]], np.int64))
                s = tf.random.fixed_unigram_candidate_sampler(
                    t, 1, 3, uq, rm, distortion=dist, num_reserved_ids=res,
                    num_shards=nsh, shard=sh, unigrams=ug, seed=20 + i)
                with tf.Session() as sess:
                    runs = [sess.run(s) for _ in range(2)]
            out.append({"kind": "fixed", "true_classes": enc(np.array([[0], [1]], np.int64)),
                        "num_true": 1, "num_sampled": 3, "unique": uq, "range_max": rm,
                        "unigrams": ug, "distortion": dist, "num_reserved_ids": res,
                        "num_shards": nsh, "shard": sh, "graph_seed": 10 + i,
                        "op_seed": 20 + i,
                        "runs": [[enc(r[0]), enc(r[1]), enc(r[2])] for r in runs]})
    for kind, tc, nt, ns, uq, rm, gseed, oseed in cases:
        g = tf.Graph()
        with g.as_default():
            tf.set_random_seed(gseed)
            t = tf.constant(np.array(tc, np.int64))
            f = (tf.random.uniform_candidate_sampler if kind == "uniform"
                 else tf.random.log_uniform_candidate_sampler)
            s = f(t, nt, ns, uq, rm, seed=oseed)
            with tf.Session() as sess:
                runs = [sess.run(s) for _ in range(2)]
        out.append({"kind": kind, "true_classes": enc(np.array(tc, np.int64)),
                    "num_true": nt, "num_sampled": ns, "unique": uq, "range_max": rm,
                    "graph_seed": gseed, "op_seed": oseed,
                    "runs": [[enc(r[0]), enc(r[1]), enc(r[2])] for r in runs]})
    return out


def hits():
    out = []
    cases = [
        ([[3], [7]], [7, 1, 3], 1),
        ([[1, 2], [2, 5], [9, 9]], [2, 9, 4, 2], 2),
        ([[0]], [5, 6], 1),
        ([[4, 4, 1]], [4, 1, 4], 3),
    ]
    for tc, sc, nt in cases:
        with tf.Graph().as_default(), tf.Session() as sess:
            r = sess.run(tf.nn.compute_accidental_hits(
                tf.constant(np.array(tc, np.int64)), tf.constant(np.array(sc, np.int64)), nt))
        out.append({"true_classes": enc(np.array(tc, np.int64)),
                    "sampled": enc(np.array(sc, np.int64)), "num_true": nt,
                    "outputs": [enc(x) for x in r]})
    return out


def losses():
    out = []
    rng = np.random.RandomState(7)
    cases = [
        # kind, num_classes, dim, batch, num_true, sampled, remove_hits, shards, strategy, dtype
        ("nce", 10, 3, 4, 1, [2, 5, 7], False, 1, "mod", "float32"),
        ("nce", 10, 3, 4, 1, [2, 5, 7], True, 1, "mod", "float32"),
        ("nce", 12, 4, 3, 2, [0, 3, 11, 6], False, 2, "mod", "float32"),
        ("nce", 9, 2, 3, 2, [1, 4, 8], True, 3, "div", "float64"),
        ("softmax", 10, 3, 4, 1, [2, 5, 7], True, 1, "mod", "float32"),
        ("softmax", 10, 3, 4, 1, [2, 5, 7], False, 1, "mod", "float32"),
        ("softmax", 12, 4, 3, 2, [0, 3, 11, 6], True, 2, "div", "float32"),
        ("softmax", 9, 2, 3, 3, [1, 4, 8, 2], True, 2, "mod", "float64"),
    ]
    for kind, nc, dim, batch, nt, sampled, rh, shards, strat, dt in cases:
        w = rng.uniform(-1, 1, (nc, dim)).astype(dt)
        b = rng.uniform(-0.5, 0.5, (nc,)).astype(dt)
        x = rng.uniform(-1, 1, (batch, dim)).astype(dt)
        labels = rng.randint(0, nc, (batch, nt)).astype(np.int64)
        # Make sure some accidental hits exist.
        labels[0, 0] = sampled[0]
        tec = rng.uniform(0.05, 0.9, (batch, nt)).astype(dt)
        sec = rng.uniform(0.05, 0.9, (len(sampled),)).astype(dt)
        lw = rng.uniform(0.5, 1.5, (batch,)).astype(dt)
        if strat == "mod":
            parts = [w[i::shards] for i in range(shards)]
        else:
            parts = np.array_split(w, shards)
        with tf.Graph().as_default(), tf.Session() as sess:
            wt = [tf.constant(p) for p in parts]
            bt = tf.constant(b)
            xt = tf.constant(x)
            sv = (tf.constant(np.array(sampled, np.int64)), tf.constant(tec), tf.constant(sec))
            f = tf.nn.nce_loss if kind == "nce" else tf.nn.sampled_softmax_loss
            loss = f(wt if shards > 1 else wt[0], bt, tf.constant(labels), xt,
                     len(sampled), nc, num_true=nt, sampled_values=sv,
                     remove_accidental_hits=rh, partition_strategy=strat)
            y = tf.reduce_sum(loss * tf.constant(lw))
            grads = tf.gradients(y, wt + [bt, xt])
            grads = [tf.convert_to_tensor(g) for g in grads]
            lv, gv = sess.run([loss, grads])
        out.append({"kind": kind, "num_classes": nc, "num_true": nt, "remove_hits": rh,
                    "strategy": strat, "weights": [enc(p) for p in parts], "biases": enc(b),
                    "inputs": enc(x), "labels": enc(labels),
                    "sampled": enc(np.array(sampled, np.int64)), "true_expected": enc(tec),
                    "sampled_expected": enc(sec), "loss_weights": enc(lw), "loss": enc(lv),
                    "grads": [enc(g) for g in gv]})
    return out


def seeded_softmax():
    """sampled_softmax_loss with its own log-uniform sampler, seeded."""
    rng = np.random.RandomState(3)
    w = rng.uniform(-1, 1, (30, 4)).astype(np.float32)
    b = rng.uniform(-0.5, 0.5, (30,)).astype(np.float32)
    x = rng.uniform(-1, 1, (5, 4)).astype(np.float32)
    labels = rng.randint(0, 30, (5, 1)).astype(np.int64)
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(17)
        loss = tf.nn.sampled_softmax_loss(tf.constant(w), tf.constant(b), tf.constant(labels),
                                          tf.constant(x), 6, 30, seed=4)
        with tf.Session() as sess:
            runs = [sess.run(loss) for _ in range(2)]
    return {"weights": enc(w), "biases": enc(b), "inputs": enc(x), "labels": enc(labels),
            "num_sampled": 6, "num_classes": 30, "graph_seed": 17, "op_seed": 4,
            "runs": [enc(r) for r in runs]}


if __name__ == "__main__":
    data = {"tensorflow": tf.__version__, "samplers": samplers(), "hits": hits(),
            "losses": losses(), "seeded_softmax": seeded_softmax()}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")
    with open(path, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
