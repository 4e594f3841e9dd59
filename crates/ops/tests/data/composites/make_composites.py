"""Writes expected.json: TensorFlow 2.21's tf.tensordot, tf.meshgrid and
tf.math.unsorted_segment_mean / unsorted_segment_sqrt_n (values, shapes, the op types of the
graph they build, and errors), for crates/ops/tests/integration/composites.rs.

Run with TensorFlow 2.21: python make_composites.py
"""

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.RandomState(5)
cases = []


def ops_of(g):
    return sorted(n.op for n in g.as_graph_def().node if n.op not in ("Const",))


def run(kind, name, inputs, build, **kw):
    g = tf.Graph()
    with g.as_default():
        case = {"kind": kind, "name": name, "inputs": [{"dtype": a.dtype.name, "shape": list(a.shape), "values": a.ravel().tolist()} for a in inputs], **kw}
        try:
            outs = build(*[tf.constant(a) for a in inputs])
            outs = outs if isinstance(outs, list) else [outs]
            case["static"] = [o.shape.as_list() for o in outs]
            case["ops"] = ops_of(g)
            with tf.Session() as s:
                case["outputs"] = [{"shape": list(v.shape), "values": v.ravel().tolist()} for v in s.run(outs)]
        except (ValueError, tf.errors.OpError) as e:
            case["error"] = str(getattr(e, "message", e)).split("\n")[0]
    cases.append(case)


f = lambda *s: rng.uniform(-2, 2, size=s).astype(np.float32)
for name, a, b, axes in [
    ("matmul", f(2, 3), f(3, 4), 1),
    ("outer", f(2), f(3), 0),
    ("full", f(2, 3), f(2, 3), 2),
    ("pairs", f(2, 3, 4), f(4, 3, 5), [[1, 2], [1, 0]]),
    ("negative", f(2, 3, 4), f(4, 5), [[-1], [0]]),
    ("scalar pair", f(3, 4), f(4, 2), [[1], [0]]),
    ("first axes", f(3, 2), f(3, 5), [[0], [0]]),
    ("rank4", f(2, 2, 3, 2), f(3, 2, 2), [[2, 3], [0, 1]]),
    ("too many", f(2, 3), f(3, 4), 3),
    ("unequal", f(2, 3), f(3, 4), [[1], [0, 1]]),
]:
    run("tensordot", name, [a, b], lambda x, y, axes=axes: tf.tensordot(x, y, axes), axes=axes)
run("tensordot", "float64", [rng.randn(3, 4), rng.randn(4, 2)], lambda x, y: tf.tensordot(x, y, 1), axes=1)

for name, arrs, idx in [
    ("xy 2", [np.array([1, 2, 3], np.int32), np.array([10, 20], np.int32)], "xy"),
    ("ij 2", [np.array([1, 2, 3], np.int32), np.array([10, 20], np.int32)], "ij"),
    ("xy 3", [np.array([1.5, 2], np.float32), np.array([3, 4, 5], np.float32), np.array([7, 8, 9, 10], np.float32)], "xy"),
    ("ij 3", [np.array([1.5, 2], np.float32), np.array([3, 4, 5], np.float32), np.array([7, 8, 9, 10], np.float32)], "ij"),
    ("one", [np.array([4, 5], np.int64)], "xy"),
]:
    run("meshgrid", name, arrs, lambda *xs, idx=idx: tf.meshgrid(*xs, indexing=idx), indexing=idx)

for fn in ["mean", "sqrt_n"]:
    op = getattr(tf.math, "unsorted_segment_" + fn)
    for name, data, ids, n in [
        ("vector", f(6), np.array([0, 0, 2, -1, 2, 2], np.int32), 4),
        ("rows", f(5, 3), np.array([1, 1, 0, 3, 1], np.int32), 4),
        ("2-d ids", f(2, 3, 2), np.array([[0, 1, 1], [2, 0, -1]], np.int64), 3),
        ("float64", rng.randn(4), np.array([0, 1, 0, 0], np.int32), 2),
    ]:
        run("segment", f"{fn} {name}", [data, ids], lambda d, i, op=op, n=n: op(d, i, n), fn=fn, num_segments=n)

with open(os.path.join(HERE, "expected.json"), "w") as fh:
    json.dump(cases, fh, indent=1)
print(len(cases), "cases", sum("error" in c for c in cases), "errors")
