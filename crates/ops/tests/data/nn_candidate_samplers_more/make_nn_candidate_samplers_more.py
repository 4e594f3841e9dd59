"""Records TensorFlow 2.21's AllCandidateSampler, LearnedUnigramCandidateSampler and
ThreadUnsafeUnigramCandidateSampler into expected.json (a JSON array of cases).

Run with TensorFlow 2.21:  python make_nn_candidate_samplers_more.py

Each case builds one sampler in a fresh graph (tf.compat.v1 graph mode) and runs it several
times in one or more sessions: the learned samplers keep their unigram counts (and their Philox
stream) per kernel, that is per session and node, so consecutive runs differ and a second
session starts over. A case records, per session, per run, the three outputs (bit patterns, via
tensor_json.encode) or TensorFlow's error; with "feeds", true_classes is a placeholder fed a
different matrix each run. Build errors are recorded as "build_error". Three cases check that
Uniform-, LogUniform- and FixedUnigramCandidateSampler reject true classes outside
[0, range_max) as the new samplers do.
"""
import json
import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tensor_json import encode  # noqa: E402

tf.disable_v2_behavior()


def err(e):
    """TensorFlow's error: its kind, code, and its own message (without the traceback of where
    the node was defined, the `[[{{node ...}}]]` suffix, or a shape function's node context)."""
    msg = getattr(e, "message", str(e))
    if "\nNode: '" in msg:
        msg = msg.split("\nNode: '", 1)[1].split("\n", 1)[1]
    msg = msg.split("\n\t [[")[0].split(" for '{{node ")[0]
    return {"type": type(e).__name__, "code": getattr(e, "error_code", 3), "message": msg.strip()}


def build(c, t):
    seed = c.get("op_seed")
    if c["op"] == "all":
        return tf.random.all_candidate_sampler(t, c["num_true"], c["num_sampled"], c["unique"],
                                               seed=seed)
    if c["op"] == "uniform":
        return tf.random.uniform_candidate_sampler(
            t, c["num_true"], c["num_sampled"], c["unique"], c["range_max"], seed=seed)
    if c["op"] == "log_uniform":
        return tf.random.log_uniform_candidate_sampler(
            t, c["num_true"], c["num_sampled"], c["unique"], c["range_max"], seed=seed)
    if c["op"] == "fixed_unigram":
        return tf.random.fixed_unigram_candidate_sampler(
            t, c["num_true"], c["num_sampled"], c["unique"], c["range_max"],
            unigrams=c["unigrams"], seed=seed)
    if c["op"] == "learned":
        return tf.random.learned_unigram_candidate_sampler(
            t, c["num_true"], c["num_sampled"], c["unique"], c["range_max"], seed=seed)
    # The raw op has no Python wrapper: take the seeds as the wrappers do.
    s1, s2 = tf.get_seed(seed)
    return tf.raw_ops.ThreadUnsafeUnigramCandidateSampler(
        true_classes=t, num_true=c["num_true"], num_sampled=c["num_sampled"],
        unique=c["unique"], range_max=c["range_max"], seed=s1 or 0, seed2=s2 or 0)


def record(c):
    g = tf.Graph()
    with g.as_default():
        if c.get("graph_seed") is not None:
            tf.set_random_seed(c["graph_seed"])
        if "feeds" in c:
            t = tf.placeholder(tf.int64, c.get("placeholder_shape"))
        else:
            t = tf.constant(np.array(c["true_classes"], np.int64))
        try:
            s = build(c, t)
        except Exception as e:  # noqa: BLE001
            c["build_error"] = err(e)
            return c
        op = s[0].op
        c["node"] = {"name": op.name, "type": op.type, "seed": op.get_attr("seed"),
                     "seed2": op.get_attr("seed2")}
        c["static_shapes"] = [None if o.shape.rank is None else o.shape.as_list() for o in s]
        sessions = []
        for _ in range(c.get("sessions", 1)):
            runs = []
            with tf.Session(graph=g) as sess:
                for r in range(c.get("runs", len(c.get("feeds", [])))):
                    fd = {t: np.array(c["feeds"][r], np.int64)} if "feeds" in c else None
                    try:
                        out = sess.run(list(s), feed_dict=fd)
                        runs.append({"outputs": [encode(o) for o in out]})
                    except tf.errors.OpError as e:
                        runs.append({"error": err(e)})
            sessions.append(runs)
        c["results"] = sessions
    return c


def cases():
    out = []

    def add(name, op, **kw):
        out.append(dict(name=name, op=op, **kw))

    # AllCandidateSampler: every class of [0, num_sampled), expected counts of 1.
    add("all_basic", "all", true_classes=[[1], [2]], num_true=1, num_sampled=4, unique=True,
        op_seed=3, runs=3)
    add("all_num_true_2", "all", true_classes=[[0, 5], [2, 3], [4, 1]], num_true=2,
        num_sampled=6, unique=False, graph_seed=7, runs=2)
    add("all_unseeded_one_class", "all", true_classes=[[0]], num_true=1, num_sampled=1,
        unique=False, runs=2)
    add("all_true_class_out_of_range", "all", true_classes=[[1], [7]], num_true=1,
        num_sampled=4, unique=False, op_seed=1, runs=2)
    add("all_negative_true_class", "all", true_classes=[[-2]], num_true=1, num_sampled=3,
        unique=True, op_seed=1, runs=1)
    add("all_rank_1", "all", true_classes=[1, 2], num_true=1, num_sampled=3, unique=True)
    add("all_num_true_mismatch", "all", feeds=[[[1, 2]], [[1]]], placeholder_shape=None,
        num_true=1, num_sampled=3, unique=True, op_seed=2)

    for op in ("learned", "thread_unsafe"):
        p = op + "_"
        add(p + "unique", op, true_classes=[[1], [2]], num_true=1, num_sampled=4, unique=True,
            range_max=6, op_seed=3, runs=5)
        add(p + "not_unique", op, true_classes=[[1], [2]], num_true=1, num_sampled=4,
            unique=False, range_max=6, op_seed=3, runs=5)
        add(p + "num_true_3", op, true_classes=[[0, 1, 2], [2, 2, 9]], num_true=3,
            num_sampled=5, unique=True, range_max=10, graph_seed=5, op_seed=11, runs=4)
        add(p + "skewed", op, true_classes=[[3], [3], [3], [7]], num_true=1, num_sampled=20,
            unique=False, range_max=8, graph_seed=1, op_seed=2, runs=4)
        add(p + "fed_classes", op, feeds=[[[0, 1]], [[5, 5], [5, 6]], [[11, 0]], [[5, 5]]],
            placeholder_shape=[None, 2], num_true=2, num_sampled=6, unique=True, range_max=12,
            op_seed=42)
        add(p + "range_1000", op, true_classes=[[5], [999], [500]], num_true=1, num_sampled=64,
            unique=True, range_max=1000, graph_seed=123, op_seed=456, runs=3)
        add(p + "range_1", op, true_classes=[[0]], num_true=1, num_sampled=3, unique=False,
            range_max=1, op_seed=9, runs=3)
        add(p + "range_16", op, true_classes=[[3, 4], [5, 6]], num_true=2, num_sampled=4,
            unique=False, range_max=16, graph_seed=21, op_seed=22, runs=3)
        add(p + "unique_all_classes", op, true_classes=[[0], [0], [0]], num_true=1,
            num_sampled=5, unique=True, range_max=5, op_seed=17, runs=3)
        add(p + "graph_seed_only", op, true_classes=[[2]], num_true=1, num_sampled=3,
            unique=False, range_max=7, graph_seed=77, runs=2)
        add(p + "two_sessions", op, true_classes=[[1], [2]], num_true=1, num_sampled=4,
            unique=True, range_max=6, op_seed=3, runs=3, sessions=2)
        # A failed run samples nothing and learns nothing.
        add(p + "error_then_runs", op, feeds=[[[1], [9]], [[1], [2]], [[1], [-1]], [[1], [2]]],
            placeholder_shape=[None, 1], num_true=1, num_sampled=4, unique=True, range_max=6,
            op_seed=3)
        add(p + "range_too_small", op, true_classes=[[1], [2]], num_true=1, num_sampled=7,
            unique=True, range_max=6, op_seed=3, runs=2)
        add(p + "range_too_small_beats_class_check", op, true_classes=[[10]], num_true=1,
            num_sampled=7, unique=True, range_max=6, op_seed=3, runs=1)
        add(p + "not_unique_more_than_range", op, true_classes=[[1]], num_true=1,
            num_sampled=9, unique=False, range_max=3, op_seed=4, runs=2)
        add(p + "true_class_out_of_range", op, true_classes=[[1], [6]], num_true=1,
            num_sampled=2, unique=False, range_max=6, op_seed=3, runs=1)
        add(p + "num_true_mismatch", op, feeds=[[[1, 2], [3, 4]]], placeholder_shape=None,
            num_true=1, num_sampled=2, unique=False, range_max=6, op_seed=3)
        add(p + "rank_1", op, true_classes=[1, 2], num_true=1, num_sampled=2, unique=False,
            range_max=6, op_seed=3)
    add("learned_num_sampled_0", "learned", true_classes=[[1]], num_true=1, num_sampled=0,
        unique=False, range_max=6, op_seed=3)
    add("all_num_true_0", "all", true_classes=[[1]], num_true=0, num_sampled=2, unique=False)
    # The older samplers check the true classes the same way (shared with the new ones).
    add("uniform_true_class_out_of_range", "uniform", true_classes=[[1], [9]], num_true=1,
        num_sampled=4, unique=False, range_max=6, op_seed=3, runs=1)
    add("log_uniform_negative_true_class", "log_uniform", true_classes=[[0, -3]], num_true=2,
        num_sampled=2, unique=True, range_max=6, op_seed=3, runs=1)
    add("fixed_unigram_true_class_out_of_range", "fixed_unigram", true_classes=[[3]],
        num_true=1, num_sampled=2, unique=False, range_max=3, unigrams=[1.0, 2.0, 3.0],
        op_seed=3, runs=1)
    add("learned_range_max_too_large", "learned", true_classes=[[1]], num_true=1,
        num_sampled=2, unique=False, range_max=2 ** 31, op_seed=3)
    return out


def main():
    recorded = [record(c) for c in cases()]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")
    with open(path, "w") as f:
        json.dump(recorded, f, indent=1)
        f.write("\n")
    print(f"wrote {len(recorded)} cases to {path}")


if __name__ == "__main__":
    main()
