"""Writes expected.json beside this file: TensorFlow 2.21's results for tf.compat.v1.nn.ctc_loss
(op CTCLoss, with its gradient output and tf.gradients), ctc_greedy_decoder, ctc_beam_search_decoder
and tf.edit_distance, on varied cases and error cases.

Run with the reference venv: $HOME/.cache/weir-bench/venv/bin/python make_ctc.py
"""

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

CASES = []


def enc(a):
    """A tensor as {dtype, dims, values}; floats as their IEEE bit patterns (exact in JSON)."""
    a = np.asarray(a)
    if a.dtype.kind == "f":
        bits = a.view(np.uint32 if a.dtype == np.float32 else np.uint64)
        return {"dtype": a.dtype.name, "dims": list(a.shape), "values": bits.reshape(-1).tolist()}
    vals = [v.decode() if isinstance(v, bytes) else v for v in a.reshape(-1).tolist()]
    dt = "string" if a.dtype.kind in "SO" else a.dtype.name
    return {"dtype": dt, "dims": list(a.shape), "values": vals}


def static(shape):
    return None if shape.dims is None else [d.value if hasattr(d, "value") else d for d in shape.as_list()]


def err(e):
    """TensorFlow's error: its kind, code, and its own message (without the traceback of where
    the node was defined, the `[[{{node ...}}]]` suffix, or a shape function's node context)."""
    msg = getattr(e, "message", str(e))
    if "\nNode: '" in msg:
        msg = msg.split("\nNode: '", 1)[1].split("\n", 1)[1]
    msg = msg.split("\n\t [[")[0].split(" for '{{node ")[0]
    return {"type": type(e).__name__, "code": getattr(e, "error_code", 3), "message": msg.strip()}


def logits(seed, shape, dtype="float32", scale=2.0):
    return (np.random.RandomState(seed).randn(*shape) * scale).astype(dtype)


def sparse_labels(seqs):
    idx, vals = [], []
    for b, s in enumerate(seqs):
        for t, v in enumerate(s):
            idx.append([b, t])
            vals.append(v)
    width = max([len(s) for s in seqs] + [0])
    return (np.array(idx, dtype=np.int64).reshape(-1, 2), np.array(vals, dtype=np.int32),
            np.array([len(seqs), width], dtype=np.int64))


def run_case(case, build, feeds_of=None):
    g = tf.Graph()
    with g.as_default():
        try:
            outs, extra = build()
        except (ValueError, TypeError) as e:
            case["build_error"] = err(e)
            CASES.append(case)
            return
        case["static_shapes"] = [static(o.shape) for o in outs]
        with tf.Session() as s:
            try:
                vals = s.run(outs + [v for _, v in extra])
            except tf.errors.OpError as e:
                case["error"] = err(e)
                CASES.append(case)
                return
        case["outputs"] = [enc(v) for v in vals[: len(outs)]]
        for (k, _), v in zip(extra, vals[len(outs):]):
            case[k] = enc(v)
    CASES.append(case)


# ---------------------------------------------------------------- ctc_loss
def loss_case(name, x, seqs, seq_len, collapse=False, merge=True, ignore=False, time_major=True,
              raw_labels=None, grads=True):
    idx, vals, shape = raw_labels if raw_labels is not None else sparse_labels(seqs)
    case = {"name": name, "fn": "ctc_loss", "inputs": {
        "logits": enc(x), "labels_indices": enc(idx), "labels_values": enc(vals),
        "labels_shape": enc(shape), "sequence_length": enc(np.array(seq_len, np.int32))},
        "attrs": {"preprocess_collapse_repeated": collapse, "ctc_merge_repeated": merge,
                  "ignore_longer_outputs_than_inputs": ignore, "time_major": time_major}}
    gy = (np.arange(len(seq_len)) * 0.5 + 0.75).astype(x.dtype)
    if grads:
        case["grad_ys"] = enc(gy)

    def build():
        xin = tf.constant(x)
        labels = tf.SparseTensor(tf.constant(idx), tf.constant(vals), tf.constant(shape))
        loss = tf.nn.ctc_loss(labels, xin, tf.constant(np.array(seq_len, np.int32)),
                              preprocess_collapse_repeated=collapse, ctc_merge_repeated=merge,
                              ignore_longer_outputs_than_inputs=ignore, time_major=time_major)
        extra = []
        if grads:
            (d,) = tf.gradients(loss, [xin], grad_ys=[tf.constant(gy)])
            extra.append(("grad_inputs", d))
        return [loss, loss.op.outputs[1]], extra

    run_case(case, build)


loss_case("loss_basic", logits(1, (5, 2, 4)), [[0, 1], [2, 2, 1]], [5, 5])
loss_case("loss_lengths", logits(2, (6, 3, 5)), [[1, 0, 1], [2], [3, 3]], [6, 3, 5])
loss_case("loss_collapse", logits(3, (6, 2, 4)), [[1, 1, 2], [0, 0, 0]], [6, 4], collapse=True)
loss_case("loss_no_merge", logits(4, (6, 2, 4)), [[1, 1, 2], [0, 2]], [6, 5], merge=False)
loss_case("loss_collapse_no_merge", logits(5, (6, 2, 4)), [[1, 1, 2], [0, 0]], [6, 5],
          collapse=True, merge=False)
loss_case("loss_batch_major", logits(6, (3, 7, 5)), [[0, 1, 2], [3], [1, 1]], [7, 6, 4],
          time_major=False)
loss_case("loss_float64", logits(7, (6, 3, 5), "float64"), [[0, 1, 2], [3, 0], [1, 1]], [6, 6, 4])
loss_case("loss_float64_batch_major", logits(8, (2, 5, 4), "float64"), [[0, 2], [1]], [5, 2],
          time_major=False)
loss_case("loss_ignore_longer", logits(9, (4, 3, 4)), [[0, 1, 2, 0, 1], [1], [2, 2]], [4, 4, 1],
          ignore=True)
loss_case("loss_zero_length_ignored", logits(10, (4, 2, 4)), [[0, 1], [1]], [4, 0], ignore=True)
loss_case("loss_no_valid_path", logits(11, (2, 2, 4)), [[1, 1], [0]], [2, 2])
loss_case("loss_large_logits", logits(12, (5, 2, 4), scale=40.0), [[0, 1], [2, 2]], [5, 5])
loss_case("loss_blank_label_tail", logits(13, (5, 2, 4)), [[0, 3], [1, 3, 3]], [5, 5])
loss_case("loss_single_step", logits(14, (1, 2, 3)), [[0], [1]], [1, 1])
loss_case("loss_float64_single_step", logits(17, (1, 3, 4), "float64"), [[0], [2], [1]], [1, 1, 1])
# Wider class dimensions: the softmax sums whole AVX packets (8 floats, 4 doubles), with two
# accumulators from two packets on.
loss_case("loss_classes_9", logits(18, (6, 2, 9)), [[0, 7, 3], [8 - 1]], [6, 5])
loss_case("loss_classes_37", logits(19, (8, 2, 37), scale=3.0), [[5, 35, 12, 0], [20, 20]], [8, 7])
loss_case("loss_float64_classes_11", logits(20, (6, 2, 11), "float64"), [[9, 1, 4], [3]], [6, 4])
loss_case("loss_long", logits(15, (30, 2, 6)), [[0, 1, 2, 3, 4, 0, 1, 2], [4, 4, 4, 1]], [30, 21])
loss_case("loss_float64_no_merge", logits(16, (7, 2, 4), "float64"), [[1, 1, 0], [2]], [7, 7],
          merge=False)
# Errors
loss_case("loss_err_not_enough_time", logits(20, (3, 2, 4)), [[0, 1, 2, 0], [1]], [3, 3])
loss_case("loss_err_seq_len_gt_max_time", logits(21, (3, 2, 4)), [[0], [1]], [3, 4])
loss_case("loss_err_unordered", logits(22, (4, 2, 4)), None, [4, 4], raw_labels=(
    np.array([[1, 0], [0, 0]], np.int64), np.array([1, 2], np.int32), np.array([2, 1], np.int64)))
loss_case("loss_err_negative_label", logits(23, (4, 2, 4)), [[0, -1], [1]], [4, 4])
loss_case("loss_err_nonnull_after_null", logits(24, (4, 2, 4)), [[3, 0], [1]], [4, 4])
loss_case("loss_err_empty_label", logits(25, (4, 2, 4)), [[0, 1], []], [4, 4])
loss_case("loss_err_seq_len_size", logits(26, (4, 2, 4)), [[0], [1]], [4, 4, 4])
loss_case("loss_err_batch_index", logits(27, (4, 2, 4)), None, [4, 4], raw_labels=(
    np.array([[0, 0], [2, 0]], np.int64), np.array([1, 2], np.int32), np.array([3, 1], np.int64)))
loss_case("loss_err_label_above_classes", logits(28, (4, 2, 4)), [[0, 7], [1]], [4, 4])
loss_case("loss_err_negative_seq_len", logits(29, (4, 2, 4)), [[0], [1]], [4, -1])


# ---------------------------------------------------------------- greedy
def greedy_case(name, x, seq_len, merge=True, blank_index=None):
    case = {"name": name, "fn": "ctc_greedy", "inputs": {
        "logits": enc(x), "sequence_length": enc(np.array(seq_len, np.int32))},
        "attrs": {"merge_repeated": merge, "blank_index": blank_index}}

    def build():
        (d,), lp = tf.nn.ctc_greedy_decoder(tf.constant(x), tf.constant(np.array(seq_len, np.int32)),
                                            merge_repeated=merge, blank_index=blank_index)
        return [d.indices, d.values, d.dense_shape, lp], []

    run_case(case, build)


gx = np.array([[[0.1, 0.5, 0.2, 0.2], [0.6, 0.1, 0.1, 0.2]],
               [[0.1, 0.5, 0.2, 0.2], [0.6, 0.1, 0.1, 0.2]],
               [[0.1, 0.1, 0.1, 0.7], [0.1, 0.1, 0.1, 0.7]],
               [[0.1, 0.5, 0.2, 0.2], [0.3, 0.3, 0.3, 0.1]],
               [[0.2, 0.1, 0.6, 0.1], [0.6, 0.1, 0.1, 0.2]]], np.float32)
greedy_case("greedy_merge", gx, [5, 4])
greedy_case("greedy_no_merge", gx, [5, 4], merge=False)
greedy_case("greedy_float64", logits(30, (7, 3, 5), "float64"), [7, 2, 5])
greedy_case("greedy_zero_length", logits(31, (4, 2, 3)), [0, 4])
greedy_case("greedy_blank_first", logits(32, (6, 2, 4)), [6, 6], blank_index=0)
greedy_case("greedy_blank_negative", logits(33, (6, 2, 4)), [6, 5], blank_index=-2)
greedy_case("greedy_random", logits(34, (12, 4, 6)), [12, 1, 7, 10])
greedy_case("greedy_err_seq_len", logits(35, (3, 2, 4)), [3, 4])
greedy_case("greedy_err_seq_len_size", logits(36, (3, 2, 4)), [3])
greedy_case("greedy_err_blank_index", logits(37, (3, 2, 4)), [3, 3], blank_index=4)
greedy_case("greedy_err_empty", np.zeros((0, 2, 4), np.float32), [0, 0])


# ---------------------------------------------------------------- beam search
def beam_case(name, x, seq_len, beam_width=100, top_paths=1, merge=True):
    case = {"name": name, "fn": "ctc_beam", "inputs": {
        "logits": enc(x), "sequence_length": enc(np.array(seq_len, np.int32))},
        "attrs": {"beam_width": beam_width, "top_paths": top_paths, "merge_repeated": merge}}

    def build():
        ds, lp = tf.nn.ctc_beam_search_decoder(
            tf.constant(x), tf.constant(np.array(seq_len, np.int32)), beam_width=beam_width,
            top_paths=top_paths, merge_repeated=merge)
        outs = []
        for d in ds:
            outs += [d.indices, d.values, d.dense_shape]
        return outs + [lp], []

    run_case(case, build)


beam_case("beam_default", logits(40, (6, 2, 5)), [6, 4])
beam_case("beam_top3", logits(41, (6, 2, 5)), [6, 5], beam_width=10, top_paths=3)
beam_case("beam_top3_no_merge", logits(41, (6, 2, 5)), [6, 5], beam_width=10, top_paths=3,
          merge=False)
beam_case("beam_repeats", np.log(np.array(
    [[[0.5, 0.1, 0.4]], [[0.5, 0.1, 0.4]], [[0.4, 0.1, 0.5]], [[0.6, 0.2, 0.2]], [[0.1, 0.8, 0.1]]],
    np.float32)), [5], beam_width=4, top_paths=4)
beam_case("beam_repeats_no_merge", np.log(np.array(
    [[[0.5, 0.1, 0.4]], [[0.5, 0.1, 0.4]], [[0.4, 0.1, 0.5]], [[0.6, 0.2, 0.2]], [[0.1, 0.8, 0.1]]],
    np.float32)), [5], beam_width=4, top_paths=4, merge=False)
beam_case("beam_width1", logits(42, (8, 3, 4)), [8, 5, 1], beam_width=1)
beam_case("beam_narrow", logits(43, (10, 2, 6)), [10, 9], beam_width=3, top_paths=2)
beam_case("beam_float64", logits(44, (7, 3, 5), "float64"), [7, 3, 6], beam_width=8, top_paths=4)
beam_case("beam_uniform_ties", np.zeros((3, 1, 4), np.float32), [3], beam_width=5, top_paths=5)
beam_case("beam_uniform_ties_wide", np.zeros((4, 1, 5), np.float32), [4], beam_width=30,
          top_paths=20)
beam_case("beam_uniform_ties_float64", np.zeros((3, 2, 3), np.float64), [3, 3], beam_width=6,
          top_paths=6)
beam_case("beam_err_less_leaves_short", np.zeros((3, 2, 3), np.float64), [3, 2], beam_width=6,
          top_paths=6)
for steps, classes, width in [(3, 5, 30), (4, 4, 30), (4, 5, 10), (4, 5, 17), (4, 5, 20),
                              (3, 6, 40), (2, 6, 12), (5, 3, 8)]:
    beam_case(f"beam_ties_{steps}_{classes}_{width}", np.zeros((steps, 1, classes), np.float32),
              [steps], beam_width=width, top_paths=5)
beam_case("beam_long", logits(45, (25, 2, 7)), [25, 18], beam_width=20, top_paths=5)
beam_case("beam_zero_length", logits(46, (3, 2, 4)), [0, 3])
beam_case("beam_err_top_paths_gt_width", logits(47, (3, 1, 4)), [3], beam_width=2, top_paths=3)
beam_case("beam_err_less_leaves", logits(48, (3, 2, 4)), [0, 3], beam_width=4, top_paths=2)
beam_case("beam_err_seq_len", logits(49, (3, 2, 4)), [3, 5])
beam_case("beam_err_seq_len_size", logits(50, (3, 2, 4)), [3, 3, 3])


# ---------------------------------------------------------------- edit distance
def ed_case(name, hyp, truth, normalize=True, dtype=np.int64, feed_shapes=False):
    def sp(t):
        idx, vals, shape = t
        return (np.array(idx, np.int64).reshape(len(vals), -1) if vals else np.zeros((0, len(shape)), np.int64), np.array(vals, dtype),
                np.array(shape, np.int64))

    h, t = sp(hyp), sp(truth)
    case = {"name": name, "fn": "edit_distance", "inputs": {
        "hypothesis_indices": enc(h[0]), "hypothesis_values": enc(h[1]),
        "hypothesis_shape": enc(h[2]), "truth_indices": enc(t[0]), "truth_values": enc(t[1]),
        "truth_shape": enc(t[2])}, "attrs": {"normalize": normalize, "feed_shapes": feed_shapes}}

    def build():
        def mk(a):
            if feed_shapes:
                return tf.placeholder_with_default(a, [None])
            return tf.constant(a)

        hs = tf.SparseTensor(tf.constant(h[0]), tf.constant(h[1]), mk(h[2]))
        ts = tf.SparseTensor(tf.constant(t[0]), tf.constant(t[1]), mk(t[2]))
        return [tf.edit_distance(hs, ts, normalize=normalize)], []

    run_case(case, build)


ed_case("ed_basic", ([[0, 0], [1, 0], [1, 1]], [1, 2, 3], [2, 2]),
        ([[0, 0], [0, 1], [1, 0], [1, 1]], [1, 3, 2, 4], [2, 2]))
ed_case("ed_unnormalized", ([[0, 0], [1, 0], [1, 1]], [1, 2, 3], [2, 2]),
        ([[0, 0], [0, 1], [1, 0], [1, 1]], [1, 3, 2, 4], [2, 2]), normalize=False)
ed_case("ed_rank3", ([[0, 0, 0], [0, 1, 0], [0, 1, 1], [1, 0, 0]], [b"a", b"b", b"c", b"d"], [2, 2, 2]),
        ([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 1, 0]], [b"a", b"x", b"b", b"d"], [2, 2, 2]),
        dtype=object)
ed_case("ed_missing_truth", ([[0, 0], [0, 1], [1, 0]], [1, 2, 3], [2, 2]),
        ([[1, 0]], [3], [2, 2]))
ed_case("ed_missing_truth_unnormalized", ([[0, 0], [0, 1], [1, 0]], [1, 2, 3], [2, 2]),
        ([[1, 0]], [3], [2, 2]), normalize=False)
ed_case("ed_missing_hypothesis", ([[1, 0]], [3], [3, 2]),
        ([[0, 0], [0, 1], [1, 0], [2, 0]], [1, 2, 4, 5], [3, 2]))
ed_case("ed_missing_hypothesis_unnormalized", ([[1, 0]], [3], [3, 2]),
        ([[0, 0], [0, 1], [1, 0], [2, 0]], [1, 2, 4, 5], [3, 2]), normalize=False)
ed_case("ed_shapes_differ", ([[0, 0], [2, 1]], [1.5, 2.5], [3, 4]),
        ([[0, 0], [1, 0], [1, 2]], [1.5, 2.0, 3.0], [2, 6]), dtype=np.float32)
ed_case("ed_fed_shapes", ([[0, 0], [1, 0], [1, 1]], [1, 2, 3], [2, 2]),
        ([[0, 0], [0, 1], [1, 1]], [1, 3, 3], [2, 2]), feed_shapes=True, dtype=np.int32)
ed_case("ed_long", ([[0, i] for i in range(7)] + [[1, i] for i in range(3)],
                    [3, 1, 4, 1, 5, 9, 2, 6, 5, 3], [2, 7]),
        ([[0, i] for i in range(6)] + [[1, i] for i in range(5)],
         [3, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8], [2, 6]), normalize=False)
ed_case("ed_empty_both", ([], [], [2, 3]), ([], [], [2, 3]))
ed_case("ed_err_rank_mismatch", ([[0, 0]], [1], [2, 2]), ([[0, 0, 0]], [1], [2, 2, 2]))
ed_case("ed_err_rank_mismatch_fed", ([[0, 0]], [1], [2, 2]), ([[0, 0, 0]], [1], [2, 2, 2]),
        feed_shapes=True)
ed_case("ed_err_truth_rank1", ([[0]], [1], [2]), ([[0]], [1], [2]), feed_shapes=True)
ed_case("ed_err_indices_cols", ([[0, 0, 0]], [1], [2, 2]), ([[0, 0]], [1], [2, 2]),
        feed_shapes=True)

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json"), "w") as f:
    json.dump(CASES, f, indent=1)
print(len(CASES), "cases")
