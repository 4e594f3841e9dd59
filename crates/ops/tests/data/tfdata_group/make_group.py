"""Writes expected.json: what TensorFlow 2.21 (tf.compat.v1 graph mode) returns for
`Dataset.group_by_window` and `Dataset.bucket_by_sequence_length`, run after run (up to 3
errors in a row are recorded)."""
import json
import os

import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

SEQS = [[1], [1, 2, 3], [1, 2], [1, 2, 3, 4, 5], [1, 2, 3, 4], [7], [8, 9], [1, 2, 3, 4, 5, 6, 7]]
KEYS = [100, 3, 57, 8, 1000, 2, -5, 77, 6, 12, 40, 9]


def seqs():
    return tf.data.Dataset.from_generator(lambda: iter(SEQS), tf.int64, tf.TensorShape([None]))


def length(x):
    return tf.shape(x)[0]


def batch10(_, d):
    return d.batch(10)


r = tf.data.Dataset.range
CASES = [
    ("mod3_window2", lambda: r(10).group_by_window(lambda x: x % 3, batch10, 2)),
    ("window_size_func", lambda: r(12).group_by_window(
        lambda x: x % 3, batch10, window_size_func=lambda k: k + 1)),
    ("leftovers_by_key", lambda: r(14).group_by_window(lambda x: (x * 5) % 7, batch10, 100)),
    ("leftovers_negative_keys", lambda: r(12).group_by_window(
        lambda x: tf.constant(KEYS, tf.int64)[x], batch10, 100)),
    ("reduce_uses_key", lambda: r(6).group_by_window(
        lambda x: x % 2, lambda k, d: d.map(lambda v: v * 100 + k), 2)),
    ("window_size_zero", lambda: r(4).group_by_window(
        lambda x: x % 2, batch10, window_size_func=lambda k: k - 1)),
    ("bucket", lambda: seqs().bucket_by_sequence_length(length, [3, 5], [2, 2, 2])),
    ("bucket_pad_to_boundary", lambda: seqs().take(5).bucket_by_sequence_length(
        length, [3, 6], [2, 2, 2], pad_to_bucket_boundary=True)),
    ("bucket_pad_to_boundary_too_long", lambda: seqs().bucket_by_sequence_length(
        length, [3, 6], [2, 2, 2], pad_to_bucket_boundary=True)),
    ("bucket_no_padding", lambda: seqs().map(tf.size).bucket_by_sequence_length(
        lambda x: x, [3, 5], [2, 3, 1], no_padding=True)),
    ("bucket_drop_remainder", lambda: seqs().bucket_by_sequence_length(
        length, [3, 5], [2, 2, 2], drop_remainder=True)),
    ("bucket_drop_remainder_big", lambda: seqs().bucket_by_sequence_length(
        length, [3, 5], [3, 2, 2], drop_remainder=True)),
    ("bucket_padding_value", lambda: seqs().bucket_by_sequence_length(
        length, [3, 5], [2, 2, 2], padding_values=tf.constant(-1, tf.int64))),
    ("bucket_padded_shapes", lambda: seqs().bucket_by_sequence_length(
        length, [3, 5], [2, 2, 2], padded_shapes=[8])),
    ("bucket_one_boundary", lambda: seqs().bucket_by_sequence_length(
        tf.size, [4], [3, 1])),
]


def message(e):
    lines = e.message.split("\n")
    for k, line in enumerate(lines):
        if line.startswith("Node: ") and k + 1 < len(lines):
            return lines[k + 1]
    return [l for l in lines if l and not l.startswith("\t")][-1]


out = []
for name, build in CASES:
    tf1.reset_default_graph()
    runs = []
    nxt = tf1.data.make_one_shot_iterator(build()).get_next()
    with tf1.Session() as s:
        errors = 0
        for _ in range(40):
            try:
                runs.append({"value": s.run(nxt).tolist()})
                errors = 0
            except tf.errors.OutOfRangeError:
                break
            except tf.errors.OpError as e:
                runs.append({"error": type(e).__name__, "message": message(e)})
                errors += 1
                if errors == 3:
                    break
    out.append({"name": name, "runs": runs})

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json"), "w") as f:
    json.dump({"seqs": SEQS, "keys": KEYS, "cases": out}, f, indent=1)
    f.write("\n")
print(len(out), "cases")
