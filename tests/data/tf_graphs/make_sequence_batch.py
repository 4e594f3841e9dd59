"""Writes parse_sequence_batch.pb, a TensorFlow 2.21 graph (tf.compat.v1 graph mode) of
tf.io.parse_sequence_example on a batch (op ParseSequenceExampleV2, keys as inputs), and
parse_sequence_batch.json: the two SequenceExamples fed to it (as byte lists) and what TensorFlow
returned for each fetched output. Run: python make_sequence_batch.py
"""
import json
import os

import tensorflow.compat.v1 as tf

tf.disable_eager_execution()


def seq_example(n, tags, vecs, toks):
    ex = tf.train.SequenceExample()
    ex.context.feature["len"].int64_list.value.append(n)
    ex.context.feature["tags"].bytes_list.value.extend(tags)
    fl = ex.feature_lists.feature_list["vecs"]
    for v in vecs:
        fl.feature.add().float_list.value.extend(v)
    tl = ex.feature_lists.feature_list["toks"]
    for v in toks:
        tl.feature.add().int64_list.value.extend(v)
    return ex.SerializeToString()


EXAMPLES = [
    seq_example(3, [b"a", b"b"], [[1, 2], [3, 4], [5, 6]], [[5], [6, 7]]),
    seq_example(1, [], [[7, 8]], [[], [1, 2, 3], [4]]),
]

g = tf.Graph()
with g.as_default():
    s = tf.placeholder(tf.string, [None], name="serialized")
    ctx, fl, lens = tf.io.parse_sequence_example(
        s,
        context_features={"len": tf.io.FixedLenFeature([], tf.int64, default_value=-1),
                          "tags": tf.io.VarLenFeature(tf.string)},
        sequence_features={"vecs": tf.io.FixedLenSequenceFeature([2], tf.float32),
                           "toks": tf.io.VarLenFeature(tf.int64)})
    fetch = {
        "len": ctx["len"], "tags_indices": ctx["tags"].indices,
        "tags_values": ctx["tags"].values, "tags_shape": ctx["tags"].dense_shape,
        "vecs": fl["vecs"], "vecs_length": lens["vecs"],
        "toks_indices": fl["toks"].indices, "toks_values": fl["toks"].values,
        "toks_shape": fl["toks"].dense_shape,
    }
    with tf.Session() as sess:
        got = sess.run(fetch, {s: EXAMPLES})
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "parse_sequence_batch.pb"), "wb") as f:
    f.write(g.as_graph_def().SerializeToString())
out = {
    "ops": sorted({n.op for n in g.as_graph_def().node}),
    "examples": [list(e) for e in EXAMPLES],
    "names": {k: v.name for k, v in fetch.items()},
    "got": {k: [x.decode() if isinstance(x, bytes) else x for x in v.reshape(-1).tolist()]
            for k, v in got.items()},
    "shapes": {k: list(v.shape) for k, v in got.items()},
}
with open(os.path.join(here, "parse_sequence_batch.json"), "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
print(out["ops"], out["shapes"])
