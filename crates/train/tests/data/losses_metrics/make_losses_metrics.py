"""Writes expected.json, what TensorFlow's `tf.compat.v1.losses` and `tf.compat.v1.metrics` give
on fixed inputs, for weir's tests (crates/train/tests/integration/losses.rs and metrics.rs).

Run with TensorFlow 2.x (written with 2.21) from any directory:

    python make_losses_metrics.py

Every case is built in a fresh graph (tf.compat.v1, graph mode, ref variables) from constants
(losses) or fixed-shape placeholders fed batch by batch (metrics), in the order the Rust tests
build theirs, so tensor and variable names can be compared too.

* "losses": each loss function x weights (none, Python scalars, 0.0, a scalar tensor, and
  tensors of several broadcastable and non-broadcastable shapes) x every Reduction: the loss
  value, its gradient with respect to predictions/logits, the loss tensor's name and the
  "losses" collection; or "error" with the exception's class when TensorFlow refuses the case.
* "collections": get_losses / get_total_loss / get_regularization_loss(es) on one graph.
* "metrics": each streaming metric, with and without weights: the value before any update, the
  update op's result and the value after batch 1 and after batch 3, the local variables' names,
  the value and update tensors' names and the metrics/updates collections' contents; and the
  names of its input arrays.
* "arrays": the metrics' inputs, 3 batches each (dtype, shape with the batch axis first, data).
"""

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()
tf.get_logger().setLevel("ERROR")

HERE = os.path.dirname(os.path.abspath(__file__))

F = np.float32
LABELS = np.array([[0, 1, 1, 0], [1, 0, 0.5, 1], [0.2, 0.8, 1, 0]], F)
BINARY = np.array([[0, 1, 1, 0], [1, 0, 0, 1], [1, 1, 0, 0]], F)
PREDS = np.array([[0.1, 0.8, 0.6, 0.3], [0.9, 0.2, 0.4, 0.7], [0.35, 0.55, 0.95, 0.05]], F)
WIDE = PREDS * 3 - 1  # errors past huber's delta
LOGITS = np.array([[1.5, -0.5, 0.3, 2.0], [-1.2, 0.7, 0.1, -0.3], [0.4, -2.2, 1.1, 0.9]], F)
ONEHOT = np.eye(4, dtype=F)[[3, 1, 2]]
SPARSE = np.array([3, 1, 2], np.int32)

REDUCTIONS = ["none", "weighted_sum", "weighted_mean", "weighted_sum_over_batch_size",
              "weighted_sum_by_nonzero_weights"]

# Weights: a Python float, or a constant tensor (made before the loss), by name.
W_GRID = {
    "default": None,
    "scalar": 2.5,
    "zero": 0.0,
    "tscalar": np.array(0.5, F),
    "col": np.array([[1], [0], [2]], F),
    "row": np.array([[1, 0, 0.5, 2]], F),
    "full": np.array([[1, 0, 2, 1], [0, 0, 0, 0], [0.5, 1, 1, 3]], F),
    "bad_rank": np.array([1, 2, 3], F),
    "bad_dim": np.array([[1, 2], [3, 4], [5, 6]], F),
}
W_BATCH = {
    "default": None,
    "scalar": 2.5,
    "zero": 0.0,
    "tscalar": np.array(0.5, F),
    "vec": np.array([1, 0, 2], F),
    "col": np.array([[1], [0], [2]], F),
    "bad": np.array([1, 2, 3, 4], F),
}
W_COS = {k: W_GRID[k] for k in ["default", "scalar", "zero", "tscalar", "col", "row", "full"]}

# name -> (tf function, labels, predictions/logits, extra kwargs, weights grid, has reduction)
LOSSES = {
    "absolute_difference": (tf.losses.absolute_difference, LABELS, PREDS, {}, W_GRID, True),
    "mean_squared_error": (tf.losses.mean_squared_error, LABELS, PREDS, {}, W_GRID, True),
    "huber_loss": (tf.losses.huber_loss, LABELS, WIDE, {}, W_GRID, True),
    "huber_loss_delta": (tf.losses.huber_loss, LABELS, WIDE, {"delta": 0.3}, W_GRID, True),
    "log_loss": (tf.losses.log_loss, BINARY, PREDS, {}, W_GRID, True),
    "hinge_loss": (tf.losses.hinge_loss, BINARY, LOGITS, {}, W_GRID, True),
    "cosine_distance": (tf.losses.cosine_distance, LABELS, PREDS, {"axis": 1}, W_COS, True),
    "mean_pairwise_squared_error": (
        tf.losses.mean_pairwise_squared_error, LABELS, PREDS, {}, W_GRID, False),
    "sigmoid_cross_entropy": (tf.losses.sigmoid_cross_entropy, BINARY, LOGITS, {}, W_GRID, True),
    "sigmoid_cross_entropy_smooth": (
        tf.losses.sigmoid_cross_entropy, BINARY, LOGITS, {"label_smoothing": 0.2}, W_GRID, True),
    "softmax_cross_entropy": (tf.losses.softmax_cross_entropy, ONEHOT, LOGITS, {}, W_BATCH, True),
    "softmax_cross_entropy_smooth": (
        tf.losses.softmax_cross_entropy, ONEHOT, LOGITS, {"label_smoothing": 0.1}, W_BATCH, True),
    "sparse_softmax_cross_entropy": (
        tf.losses.sparse_softmax_cross_entropy, SPARSE, LOGITS, {}, W_BATCH, True),
    "sparse_softmax_cross_entropy_col": (
        tf.losses.sparse_softmax_cross_entropy, SPARSE.reshape(3, 1), LOGITS, {}, W_BATCH, True),
}


def tolist(v):
    return np.asarray(v, np.float64).tolist()


def loss_case(fn, labels, preds, extra, weights, reduction):
    g = tf.Graph()
    with g.as_default():
        lab = tf.constant(labels)
        pred = tf.constant(preds)
        kwargs = dict(extra)
        if weights is not None:
            kwargs["weights"] = tf.constant(weights) if isinstance(weights, np.ndarray) else weights
        if reduction is not None:
            kwargs["reduction"] = reduction
        try:
            loss = fn(lab, pred, **kwargs)
        except (ValueError, TypeError) as e:
            return {"error": type(e).__name__, "message": str(e).split(" Received")[0]}
        grad = tf.gradients(loss, pred)[0]
        with tf.Session() as s:
            v, gv = s.run([loss, grad])
        return {
            "loss": tolist(v),
            "grad": tolist(gv),
            "name": loss.name,
            "collection": [t.name for t in tf.get_collection("losses")],
        }


def all_losses():
    out = {}
    for name, (fn, labels, preds, extra, grid, has_reduction) in LOSSES.items():
        for wname, w in grid.items():
            for red in REDUCTIONS if has_reduction else [None]:
                key = f"{name}/{wname}/{red or 'mean'}"
                out[key] = loss_case(fn, labels, preds, extra, w, red)
    return out


def collections():
    g = tf.Graph()
    with g.as_default():
        lab = tf.constant(LABELS)
        pred = tf.constant(PREDS)
        a = tf.losses.absolute_difference(lab, pred)
        with tf.name_scope("tower"):
            m = tf.losses.mean_squared_error(lab, pred, weights=2.0)
        tf.losses.huber_loss(lab, pred, loss_collection=None)
        c = tf.losses.log_loss(BINARY, pred, loss_collection="custom")
        tf.losses.add_loss(tf.constant(0.25, name="extra"))
        reg1 = tf.constant(0.5, name="reg1")
        reg2 = tf.constant(0.125, name="reg2")
        no_reg = tf.losses.get_regularization_loss()
        tf.add_to_collection("regularization_losses", reg1)
        tf.add_to_collection("regularization_losses", reg2)
        total = tf.losses.get_total_loss()
        total_no_reg = tf.losses.get_total_loss(add_regularization_losses=False, name="plain")
        reg = tf.losses.get_regularization_loss()
        try:
            tf.losses.get_total_loss(scope="nothing")
            empty_error = None
        except ValueError as e:
            empty_error = str(e)
        with tf.Session() as s:
            vals = s.run([a, m, c, no_reg, total, total_no_reg, reg])
        return {
            "losses": [t.name for t in tf.losses.get_losses()],
            "tower": [t.name for t in tf.losses.get_losses(scope="tower")],
            "custom": [t.name for t in tf.losses.get_losses(loss_collection="custom")],
            "regularization": [t.name for t in tf.losses.get_regularization_losses()],
            "names": [no_reg.name, total.name, total_no_reg.name, reg.name],
            "values": [float(v) for v in vals],
            "empty_error": empty_error,
        }


def batches(*arrays):
    return [[np.asarray(a[i]) for a in arrays] for i in range(3)]


VALUES = np.array([[[1, 2, 3], [4, 5, 6]], [[-1, 0.5, 2], [3, 3, 3]], [[0, 0, 1], [7, -2, 4]]], F)
VW = np.array([[[1, 0, 2], [1, 1, 1]], [[0, 0, 0], [0, 0, 0]], [[0.5, 1, 0], [2, 0, 1]]], F)
VW_ROW = np.array([[1, 0], [0, 0], [2, 0.5]], F)
REG_LABELS = np.array([[[1, 2, 3], [0, 1, 0]], [[2, 2, 2], [1, 1, 1]], [[0, 0, 1], [3, -1, 2]]], F)
REG_PREDS = np.array([[[1.5, 2, 2], [0, 0, 0]], [[2, 1, 3], [1, 2, 0]], [[1, 0, 1], [2, 2, 2]]], F)
ACC_LABELS = np.array([[1, 2, 0, 1], [0, 0, 1, 2], [2, 2, 1, 0]], np.int64)
ACC_PREDS = np.array([[1, 0, 0, 1], [0, 1, 1, 2], [1, 2, 2, 0]], np.int64)
W4 = np.array([[1, 0, 2, 1], [0, 0, 0, 0], [0.5, 1, 1, 3]], F)
BIN_LABELS = np.array([[1, 0, 1, 1, 0, 0], [0, 0, 1, 1, 1, 0], [1, 1, 0, 0, 0, 1]], np.int64)
BIN_PREDS = np.array([[1, 1, 0, 0.7, 0, 0], [0, 1, 1, 1, 0, 0], [0, 1, 1, 0, 1, 1]], F)
W6 = np.array([[1, 2, 0, 1, 1, 0.5], [0, 0, 0, 0, 0, 0], [3, 1, 1, 0, 2, 1]], F)
SCORES = np.array([[0.9, 0.2, 0.5, 0.75, 0.1, 0.5], [0.3, 0.6, 0.8, 0.4, 0.45, 0.0],
                   [1.0, 0.55, 0.25, 0.33, 0.65, 0.7]], F)
CLS_LABELS = np.array([[0, 1, 2, 2, 1, 0], [1, 1, 0, 2, 2, 2], [0, 0, 1, 1, 2, 0]], np.int32)
CLS_PREDS = np.array([[0, 2, 2, 1, 1, 0], [1, 0, 0, 2, 1, 2], [2, 0, 1, 1, 2, 1]], np.int32)


def ph(a):
    return tf.placeholder(tf.as_dtype(a.dtype), a.shape[1:])


def metric_case(fn, arrays, weights=None, kwargs=None):
    g = tf.Graph()
    with g.as_default():
        phs = [ph(a) for a in arrays]
        feeds = list(zip(phs, arrays))
        kw = dict(kwargs or {})
        if weights is not None:
            w = ph(weights)
            kw["weights"] = w
            feeds.append((w, weights))
        value, update = fn(*phs, metrics_collections=["mc"], updates_collections=["uc"], **kw)
        with tf.Session() as s:
            s.run(tf.local_variables_initializer())
            rec = {"value0": tolist(s.run(value))}
            for i in range(3):
                u = s.run(update, {p: a[i] for p, a in feeds})
                v = s.run(value)
                if i == 0:
                    rec["update1"], rec["value1"] = tolist(u), tolist(v)
            rec["update3"], rec["value3"] = tolist(u), tolist(v)
        rec["variables"] = [v.name for v in tf.local_variables()]
        rec["metric_variables"] = [v.name for v in tf.get_collection("metric_variables")]
        rec["trainable"] = len(tf.trainable_variables())
        rec["global"] = len(tf.global_variables())
        rec["value_name"] = value.name
        rec["update_name"] = update.name
        rec["mc"] = [t.name for t in tf.get_collection("mc")]
        rec["uc"] = [t.name for t in tf.get_collection("uc")]
        return rec


ARRAYS = {
    "VALUES": VALUES, "VW": VW, "VW_ROW": VW_ROW, "REG_LABELS": REG_LABELS,
    "REG_PREDS": REG_PREDS, "ACC_LABELS": ACC_LABELS, "ACC_PREDS": ACC_PREDS, "W4": W4,
    "BIN_LABELS": BIN_LABELS, "BIN_PREDS": BIN_PREDS, "W6": W6, "SCORES": SCORES,
    "CLS_LABELS": CLS_LABELS, "CLS_PREDS": CLS_PREDS,
}


def array_name(a):
    return next(k for k, v in ARRAYS.items() if v is a)


def all_metrics():
    m = tf.metrics
    cases = {
        "mean": (m.mean, [VALUES], {}),
        "accuracy": (m.accuracy, [ACC_LABELS, ACC_PREDS], {}),
        "mean_absolute_error": (m.mean_absolute_error, [REG_LABELS, REG_PREDS], {}),
        "mean_squared_error": (m.mean_squared_error, [REG_LABELS, REG_PREDS], {}),
        "root_mean_squared_error": (m.root_mean_squared_error, [REG_LABELS, REG_PREDS], {}),
        "true_positives": (m.true_positives, [BIN_LABELS, BIN_PREDS], {}),
        "false_positives": (m.false_positives, [BIN_LABELS, BIN_PREDS], {}),
        "true_negatives": (m.true_negatives, [BIN_LABELS, BIN_PREDS], {}),
        "false_negatives": (m.false_negatives, [BIN_LABELS, BIN_PREDS], {}),
        "precision": (m.precision, [BIN_LABELS, BIN_PREDS], {}),
        "recall": (m.recall, [BIN_LABELS, BIN_PREDS], {}),
        "mean_iou": (m.mean_iou, [CLS_LABELS, CLS_PREDS], {"num_classes": 3}),
        "mean_per_class_accuracy": (
            m.mean_per_class_accuracy, [CLS_LABELS, CLS_PREDS], {"num_classes": 3}),
        "auc": (m.auc, [BIN_LABELS, SCORES], {}),
        "auc_pr": (m.auc, [BIN_LABELS, SCORES], {"curve": "PR"}),
        "auc_pr_careful": (m.auc, [BIN_LABELS, SCORES],
                           {"curve": "PR", "summation_method": "careful_interpolation"}),
        "auc_minoring": (m.auc, [BIN_LABELS, SCORES], {"summation_method": "minoring"}),
        "auc_majoring": (m.auc, [BIN_LABELS, SCORES], {"summation_method": "majoring"}),
        "auc_5": (m.auc, [BIN_LABELS, SCORES], {"num_thresholds": 5}),
        "auc_thresholds": (m.auc, [BIN_LABELS, SCORES], {"thresholds": [0.6, 0.3]}),
        "precision_at_thresholds": (m.precision_at_thresholds, [BIN_LABELS, SCORES],
                                    {"thresholds": [0.25, 0.5, 0.75]}),
        "recall_at_thresholds": (m.recall_at_thresholds, [BIN_LABELS, SCORES],
                                 {"thresholds": [0.25, 0.5, 0.75]}),
        "true_positives_at_thresholds": (m.true_positives_at_thresholds, [BIN_LABELS, SCORES],
                                         {"thresholds": [0.25, 0.5, 0.75]}),
        "false_positives_at_thresholds": (m.false_positives_at_thresholds,
                                          [BIN_LABELS, SCORES], {"thresholds": [0.25, 0.5]}),
        "true_negatives_at_thresholds": (m.true_negatives_at_thresholds, [BIN_LABELS, SCORES],
                                         {"thresholds": [0.25, 0.5]}),
        "false_negatives_at_thresholds": (m.false_negatives_at_thresholds,
                                          [BIN_LABELS, SCORES], {"thresholds": [0.5]}),
    }
    weights = {
        "mean": [VW, VW_ROW], "accuracy": [W4],
        "mean_absolute_error": [VW], "mean_squared_error": [VW, VW_ROW],
        "root_mean_squared_error": [VW_ROW], "mean_iou": [W6], "mean_per_class_accuracy": [W6],
    }
    out = {}
    for name, (fn, arrays, kw) in cases.items():
        inputs = [array_name(a) for a in arrays]
        out[name] = dict(metric_case(fn, arrays, None, kw), inputs=inputs, weights=None)
        for i, w in enumerate(weights.get(name, [W6])):
            out[f"{name}/weighted{i}"] = dict(
                metric_case(fn, arrays, w, kw), inputs=inputs, weights=array_name(w))
    return out


def main():
    expected = {
        "losses": all_losses(),
        "collections": collections(),
        "metrics": all_metrics(),
        "arrays": {k: {"dtype": v.dtype.name, "shape": list(v.shape), "data": v.ravel().tolist()}
                   for k, v in ARRAYS.items()},
    }
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
