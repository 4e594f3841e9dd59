"""Records what TensorFlow 2.21's `tf.data.experimental.cardinality` gives for many datasets
(-1 infinite, -2 unknown), for tests/integration/data_cardinality.rs, whose `build` makes the
same datasets in weir by name.

Run with the TF venv: $HOME/.cache/weir-bench/venv/bin/python make_cardinality.py
"""
import json
import os

import tensorflow as tf

tf.compat.v1.disable_eager_execution()
v1 = tf.compat.v1
D = tf.data.Dataset
R = D.range
exp = tf.data.experimental

CASES = {
    "range_10": lambda: R(10),
    "range_0": lambda: R(0),
    "range_neg": lambda: R(5, 0),
    "range_step3": lambda: R(1, 11, 3),
    "range_down": lambda: R(10, 0, -3),
    "tensors": lambda: D.from_tensors([1, 2, 3]),
    "slices": lambda: D.from_tensor_slices([1, 2, 3]),
    "batch_3": lambda: R(10).batch(3),
    "batch_3_drop": lambda: R(10).batch(3, drop_remainder=True),
    "batch_inf": lambda: R(10).repeat().batch(3),
    "batch_unknown": lambda: R(10).filter(lambda x: x > 2).batch(3),
    "padded_batch_4": lambda: R(10).padded_batch(4, padded_shapes=[]),
    "padded_batch_4_drop": lambda: R(10).padded_batch(4, padded_shapes=[], drop_remainder=True),
    "map": lambda: R(7).map(lambda x: x + 1),
    "map_parallel": lambda: R(7).map(lambda x: x + 1, num_parallel_calls=2),
    "filter": lambda: R(7).filter(lambda x: x > 2),
    "flat_map": lambda: R(3).flat_map(lambda x: R(x)),
    "interleave": lambda: R(3).interleave(lambda x: R(x), cycle_length=2),
    "take_3": lambda: R(10).take(3),
    "take_20": lambda: R(10).take(20),
    "take_neg": lambda: R(10).take(-1),
    "take_of_inf": lambda: R(10).repeat().take(4),
    "take_of_unknown": lambda: R(10).filter(lambda x: x > 2).take(4),
    "take_0_of_unknown": lambda: R(10).filter(lambda x: x > 2).take(0),
    "skip_3": lambda: R(10).skip(3),
    "skip_20": lambda: R(10).skip(20),
    "skip_neg": lambda: R(10).skip(-1),
    "skip_of_inf": lambda: R(10).repeat().skip(4),
    "skip_of_unknown": lambda: R(10).filter(lambda x: x > 2).skip(4),
    "repeat_3": lambda: R(4).repeat(3),
    "repeat_inf": lambda: R(4).repeat(),
    "repeat_0": lambda: R(4).repeat(0),
    "repeat_empty_inf": lambda: R(0).repeat(),
    "repeat_unknown": lambda: R(4).filter(lambda x: x > 2).repeat(2),
    "repeat_unknown_inf": lambda: R(4).filter(lambda x: x > 2).repeat(),
    "shuffle": lambda: R(9).shuffle(4),
    "shuffle_repeat": lambda: R(9).shuffle(4).repeat(2),
    "shuffle_and_repeat": lambda: R(9).apply(exp.shuffle_and_repeat(4, 2)),
    "shuffle_and_repeat_inf": lambda: R(9).apply(exp.shuffle_and_repeat(4)),
    "prefetch": lambda: R(9).prefetch(2),
    "cache": lambda: R(9).cache(),
    "concatenate": lambda: R(4).concatenate(R(5)),
    "concatenate_inf": lambda: R(4).concatenate(R(5).repeat()),
    "concatenate_unknown": lambda: R(4).concatenate(R(5).filter(lambda x: x > 2)),
    "concatenate_inf_unknown": lambda: R(4).repeat().concatenate(R(5).filter(lambda x: x > 2)),
    "zip": lambda: D.zip((R(4), R(6))),
    "zip_inf": lambda: D.zip((R(4), R(6).repeat())),
    "zip_all_inf": lambda: D.zip((R(4).repeat(), R(6).repeat())),
    "zip_unknown": lambda: D.zip((R(4), R(6).filter(lambda x: x > 2))),
    "shard_3_0": lambda: R(10).shard(3, 0),
    "shard_3_1": lambda: R(10).shard(3, 1),
    "shard_3_2": lambda: R(10).shard(3, 2),
    "shard_inf": lambda: R(10).repeat().shard(3, 2),
    "enumerate": lambda: R(5).enumerate(),
    "unbatch": lambda: R(10).batch(3).unbatch(),
    "unbatch_drop": lambda: R(10).batch(3, drop_remainder=True).unbatch(),
    "unbatch_slices": lambda: D.from_tensor_slices([[1, 2], [3, 4], [5, 6]]).unbatch(),
    "window_3": lambda: R(10).window(3).flat_map(lambda w: w.batch(3)),
    "map_and_batch": lambda: R(10).apply(exp.map_and_batch(lambda x: x, 3)),
    "map_and_batch_drop": lambda: R(10).apply(exp.map_and_batch(lambda x: x, 3, drop_remainder=True)),
    "scan": lambda: R(6).apply(exp.scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s))),
    "take_while": lambda: R(6).apply(exp.take_while(lambda x: x < 3)),
    "unique": lambda: R(6).apply(exp.unique()),
    "ignore_errors": lambda: R(6).apply(exp.ignore_errors()),
    "group_by_window": lambda: R(6).apply(exp.group_by_window(lambda x: x % 2, lambda k, w: w.batch(2), 2)),
    "choose": lambda: exp.choose_from_datasets([R(3), R(4)], R(2).repeat(3)),
    "text_lines": lambda: tf.data.TextLineDataset(["/dev/null"]),
    "tfrecords": lambda: tf.data.TFRecordDataset(["/dev/null"]),
    "from_generator": lambda: D.from_generator(lambda: iter([1, 2]), tf.int64),
    "list_files": lambda: D.list_files("/dev/null", shuffle=False),
    "cache_repeat": lambda: R(3).cache().repeat(2),
    "batch_take_of_inf": lambda: R(3).repeat().take(10).batch(4),
}

out = []
for name, make in CASES.items():
    g = tf.Graph()
    with g.as_default():
        c = exp.cardinality(make())
        with v1.Session() as s:
            out.append({"name": name, "cardinality": int(s.run(c))})

# Windows: every (n, size, shift, stride, drop_remainder) below, in one session.
windows = [(n, size, shift, stride, drop)
           for n in [0, 1, 5, 10, 11] for size in [1, 3, 4] for shift in [1, 2, 5]
           for stride in [1, 2] for drop in [False, True]]
g = tf.Graph()
with g.as_default():
    cs = [exp.cardinality(R(n).window(size, shift, stride, drop))
          for (n, size, shift, stride, drop) in windows]
    with v1.Session() as s:
        for (n, size, shift, stride, drop), c in zip(windows, s.run(cs)):
            out.append({"name": "window", "n": n, "size": size, "shift": shift,
                        "stride": stride, "drop_remainder": drop, "cardinality": int(c)})

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json"), "w") as f:
    json.dump(out, f, indent=1)
print(len(out), "cases")
