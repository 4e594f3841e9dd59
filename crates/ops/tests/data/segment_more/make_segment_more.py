"""Writes expected.json: TensorFlow 2.21's UnsortedSegmentMax/Min/Prod and UnsortedSegmentJoin
outputs (and errors) for the cases below, plus tf.gradients of the numeric ops for a fixed
grad_ys. Run with the TF venv: python make_segment_more.py"""
import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

OPS = {
    "max": tf.math.unsorted_segment_max,
    "min": tf.math.unsorted_segment_min,
    "prod": tf.math.unsorted_segment_prod,
    "join": tf.strings.unsorted_segment_join,
}


def enc(a):
    a = np.asarray(a)
    if a.dtype.kind in "SO":
        vals = [v.decode() if isinstance(v, bytes) else v for v in a.reshape(-1).tolist()]
    elif a.dtype.kind == "f":
        vals = [v if np.isfinite(v) else str(v) for v in a.reshape(-1).tolist()]
    else:
        vals = a.reshape(-1).tolist()
    return {"shape": list(a.shape), "dtype": str(a.dtype) if a.dtype.kind not in "SO" else "string",
            "values": vals}


def case(name, op, data, dtype, ids, num, ids_dtype="int32", num_dtype="int32", sep="", grad=False,
         feed=False):
    data = np.array(data, dtype=object if dtype == "string" else dtype)
    if dtype == "string":
        data = data.astype(bytes)
    ids = np.array(ids, dtype=ids_dtype)
    c = {"name": name, "op": op, "data": enc(data), "ids": enc(ids),
         "num_segments": {"dtype": num_dtype, "value": num}, "separator": sep, "feed": feed}
    g = tf.Graph()
    with g.as_default():
        try:
            dt = tf.string if dtype == "string" else dtype
            feeds = {}
            if feed:
                # Unknown shapes, so the kernel's checks run instead of the shape function's.
                d = tf.placeholder(dt)
                i = tf.placeholder(ids_dtype)
                n = tf.placeholder(num_dtype)
                feeds = {d: data, i: ids, n: np.array(num, dtype=num_dtype)}
            else:
                d = tf.constant(data, dtype=dt)
                i = tf.constant(ids)
                n = tf.constant(num, dtype=num_dtype)
            if op == "join":
                y = OPS[op](d, i, n, separator=sep)
            else:
                y = OPS[op](d, i, n)
            c["static_shape"] = None if y.shape.rank is None else [
                -1 if v is None else v for v in y.shape.as_list()]
            fetch = [y]
            if grad:
                rng = np.random.RandomState(len(name))
                gy = rng.uniform(-1, 1, size=y.shape.as_list()).astype(dtype)
                fetch.append(tf.gradients(y, d, grad_ys=tf.constant(gy))[0])
                c["grad_ys"] = enc(gy)
            with tf.Session(graph=g) as s:
                out = s.run(fetch, feed_dict=feeds)
            c["output"] = enc(out[0])
            if grad:
                c["grad"] = enc(out[1])
        except (tf.errors.OpError, ValueError) as e:
            c["error"] = {"type": type(e).__name__,
                          "message": kernel_message(e)}
    return c


def kernel_message(e):
    """The kernel's own message, without the graph-execution wrapper and node trace."""
    if not isinstance(e, tf.errors.OpError):
        return str(e)
    return e.message.split("\n\t [[")[0].split("\n")[-1]


cases = []
x = [[1.0, 5.0, 3.0], [4.0, 2.0, 6.0], [7.0, 5.0, 0.5], [4.0, 2.0, -1.0]]
for op in ["max", "min", "prod"]:
    cases.append(case(f"{op}_f32", op, x, "float32", [0, 2, 0, 2], 4, grad=True))
    cases.append(case(f"{op}_f64_neg_ids", op, x, "float64", [1, -1, 1, 0], 3, grad=True))
    cases.append(case(f"{op}_i32", op, [3, -7, 2, 9, 0], "int32", [1, 1, 0, 3, 1], 5))
    cases.append(case(f"{op}_i64_ids64", op, [3, -7, 2, 9], "int64", [0, 0, 1, 1], 2,
                      ids_dtype="int64", num_dtype="int64"))
    cases.append(case(f"{op}_2d_ids", op, [[[1.0, 2.0], [3.0, 4.0]], [[5.0, -6.0], [7.0, 8.0]]],
                      "float32", [[0, 1], [1, -1]], 2, grad=True))
    cases.append(case(f"{op}_scalar_data_like", op, [2.5, -1.5, 4.0], "float32", [0, 0, 0], 1,
                      grad=True))
    cases.append(case(f"{op}_zero_segments", op, [1.0, 2.0], "float32", [-1, -2], 0))
    cases.append(case(f"{op}_empty", op, np.zeros((0, 3)), "float32", np.zeros((0,)), 2))
    cases.append(case(f"{op}_out_of_range", op, [1.0, 2.0, 3.0], "float32", [0, 3, 1], 3))
    cases.append(case(f"{op}_out_of_range_2d", op, [[1.0, 2.0], [3.0, 4.0]], "float32",
                      [[0, 1], [5, 0]], 3))
    cases.append(case(f"{op}_shape_mismatch", op, [[1.0, 2.0], [3.0, 4.0]], "float32",
                      [0, 1, 0], 3))
    cases.append(case(f"{op}_num_not_scalar", op, [1.0, 2.0], "float32", [0, 1], [2]))
    cases.append(case(f"{op}_num_negative", op, [1.0, 2.0], "float32", [0, 1], -1))
    nan = float("nan")
    cases.append(case(f"{op}_nan", op, [nan, 1.0, 2.0, nan, 3.0, nan, nan, nan], "float32",
                      [0, 0, 1, 1, 2, 3, 4, 4], 5))
    cases.append(case(f"{op}_fed_shape_mismatch", op, [[1.0, 2.0], [3.0, 4.0]], "float32",
                      [0, 1, 0], 3, feed=True))
    cases.append(case(f"{op}_fed_num_not_scalar", op, [1.0, 2.0], "float32", [0, 1], [2],
                      feed=True))
    cases.append(case(f"{op}_fed_num_negative", op, [1.0, 2.0], "float32", [0, 1], -1,
                      feed=True))
    cases.append(case(f"{op}_fed_2d_ids", op, [[[1.0, 2.0], [3.0, 4.0]], [[5.0, -6.0],
                                                                          [7.0, 8.0]]],
                      "float64", [[1, 1], [0, -3]], 2, feed=True))
# Ties share the gradient; zeros exercise the product gradient's three cases.
cases.append(case("max_ties", "max", [[1.0, 3.0], [3.0, 3.0], [2.0, 3.0], [3.0, 0.0]],
                  "float32", [0, 0, 1, 0], 2, grad=True))
cases.append(case("min_ties", "min", [[1.0, 3.0], [1.0, 3.0], [1.0, 3.0], [2.0, 0.0]],
                  "float64", [0, 0, 0, 1], 3, grad=True))
cases.append(case("prod_zeros", "prod", [[0.0, 2.0, 0.0], [3.0, 0.0, 0.0], [4.0, 5.0, 2.0],
                                          [0.5, 0.0, -1.0]], "float64", [0, 0, 0, 1], 2,
                  grad=True))
cases.append(case("prod_zeros_neg_ids", "prod", [0.0, 2.0, 0.0, 3.0, 0.0], "float32",
                  [0, 0, -1, 1, 1], 2, grad=True))
cases.append(case("join_basic", "join", ["a", "b", "c", "d"], "string", [1, 0, 1, 3], 4,
                  sep="-"))
cases.append(case("join_2d", "join", [["a", "b"], ["c", "d"]], "string", [0, 0], 2, sep=", "))
cases.append(case("join_2d_ids", "join", [["a", "b"], ["c", "d"]], "string", [[1, 0], [1, 1]],
                  2, sep=""))
cases.append(case("join_neg_ids", "join", ["a", "b", "c"], "string", [0, -1, 0], 2, sep="+"))
cases.append(case("join_out_of_range", "join", ["a", "b", "c"], "string", [0, 2, 0], 2))
cases.append(case("join_shape_mismatch", "join", ["a", "b"], "string", [0, 1, 0], 2))
cases.append(case("join_fed_shape_mismatch", "join", ["a", "b"], "string", [0, 1, 0], 2,
                  feed=True))
cases.append(case("join_fed_num_not_scalar", "join", ["a", "b"], "string", [0, 1], [2],
                  feed=True))
cases.append(case("join_fed_num_negative", "join", ["a", "b"], "string", [0, 1], -1,
                  feed=True))
cases.append(case("join_ids64", "join", ["x", "y", "z"], "string", [0, 0, 0], 1, sep="/",
                  ids_dtype="int64", num_dtype="int64"))

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")
with open(out, "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": cases}, f, indent=1)
