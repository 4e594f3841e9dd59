"""Writes expected.json: what TensorFlow 2.21 (tf.compat.v1 graph mode) returns for
`Dataset.window` followed by `flat_map(lambda w: w.batch(100))`, run after run (an error is
recorded and the runs go on)."""
import json
import os

import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

CASES = [
    {"name": "size3", "n": 7, "size": 3},
    {"name": "sliding", "n": 7, "size": 3, "shift": 1},
    {"name": "stride2", "n": 7, "size": 3, "shift": 2, "stride": 2},
    {"name": "drop", "n": 7, "size": 3, "drop_remainder": True},
    {"name": "sliding_drop", "n": 5, "size": 3, "shift": 1, "drop_remainder": True},
    {"name": "shift_past_window", "n": 10, "size": 2, "shift": 5},
    {"name": "shift_past_end", "n": 11, "size": 2, "shift": 5},
    {"name": "stride_past_end", "n": 4, "size": 3, "stride": 3},
    {"name": "stride_drop", "n": 9, "size": 3, "shift": 1, "stride": 3, "drop_remainder": True},
    {"name": "size1", "n": 3, "size": 1},
    {"name": "larger_than_input", "n": 3, "size": 5},
    {"name": "larger_than_input_drop", "n": 3, "size": 5, "drop_remainder": True},
    {"name": "empty", "n": 0, "size": 2},
    {"name": "size0", "n": 7, "size": 0},
    {"name": "shift0", "n": 7, "size": 2, "shift": 0},
    {"name": "stride_negative", "n": 7, "size": 2, "stride": -1},
    # Elements 1 and 4 fail (strings that are not numbers): windows that take them fail.
    {"name": "errors", "strings": ["1", "x", "3", "4", "y", "6", "7"], "size": 2},
    {"name": "errors_strided", "strings": ["1", "x", "3", "4", "y", "6", "7"], "size": 2,
     "shift": 3, "stride": 2},
    {"name": "errors_skipped_by_shift", "strings": ["1", "2", "x", "4", "5", "y", "7"],
     "size": 2, "shift": 3},
]


def build(c):
    if "strings" in c:
        ds = tf.data.Dataset.from_tensor_slices(c["strings"]).map(
            lambda s: tf.strings.to_number(s, tf.int64))
    else:
        ds = tf.data.Dataset.range(c["n"])
    w = ds.window(c["size"], shift=c.get("shift"), stride=c.get("stride", 1),
                  drop_remainder=c.get("drop_remainder", False))
    return w.flat_map(lambda x: x.batch(100))


def message(e):
    lines = e.message.split("\n")
    for k, line in enumerate(lines):
        if line.startswith("Node: ") and k + 1 < len(lines):
            return lines[k + 1]
    return [l for l in lines if l and not l.startswith("\t")][-1]


for c in CASES:
    tf1.reset_default_graph()
    runs = []
    nxt = tf1.data.make_one_shot_iterator(build(c)).get_next()
    with tf1.Session() as s:
        for _ in range(30):
            try:
                runs.append({"value": s.run(nxt).tolist()})
            except tf.errors.OutOfRangeError:
                break
            except tf.errors.OpError as e:
                runs.append({"error": type(e).__name__, "message": message(e)})
                if message(e).startswith("Window "):
                    break
    c["runs"] = runs

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json"), "w") as f:
    json.dump(CASES, f, indent=1)
    f.write("\n")
print(len(CASES), "cases")
