"""Writes the TensorFlow SavedModels that weir's loader tests read
(crates/train/tests/integration/saved_model.rs).

Run with TensorFlow 2.x (written with 2.21) from any directory:

    python make_saved_model.py

It replaces, beside this script:

* builder/: tf.compat.v1.saved_model.Builder with the `serve` tag: a softmax layer over a
  float input `x` [None, 3] (variables assigned known values) and a vocabulary lookup of a
  string input `words` through index_table_from_file(vocab.txt, num_oov_buckets=1), whose
  vocabulary is an asset (the original file is deleted after the save, so only the copy in
  assets/ can serve it); the tables initializer is the legacy_init_op; the `serving_default`
  signature is predict_signature_def({x, words}, {y, ids}). Its variables are saved by the
  builder's sharded saver.
* simple/: tf.compat.v1.saved_model.simple_save of a two-layer relu network with input `x`
  and output `y`.
* expected.json: per model, the signature (input and output tensor names, dtypes, shapes,
  method name) and the outputs TensorFlow computes for fixed inputs after loading the model
  with tf.compat.v1.saved_model.loader.load.
"""

import json
import os
import shutil
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402
from tensorflow.python.ops import lookup_ops  # noqa: E402

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))
X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32)
WORDS = np.array([b"cat", b"dog", b"emu", b"ant"], object)


def builder_model(path):
    vocab_dir = tempfile.mkdtemp()
    vocab = os.path.join(vocab_dir, "vocab.txt")
    with open(vocab, "w") as f:
        f.write("ant\nbee\ncat\ndog\n")
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        words = tf.placeholder(tf.string, [None], name="words")
        w = tf.get_variable("w", [3, 2], initializer=tf.zeros_initializer())
        b = tf.get_variable("b", [2], initializer=tf.zeros_initializer())
        y = tf.nn.softmax(tf.matmul(x, w) + b, name="y")
        table = lookup_ops.index_table_from_file(vocab, num_oov_buckets=1)
        ids = tf.identity(table.lookup(words), name="ids")
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            sess.run([w.assign([[0.5, -0.25], [0.125, 1.0], [-0.5, 0.75]]), b.assign([0.1, -0.2])])
            builder = tf.saved_model.Builder(path)
            sig = tf.saved_model.predict_signature_def({"x": x, "words": words}, {"y": y, "ids": ids})
            builder.add_meta_graph_and_variables(
                sess, [tf.saved_model.SERVING],
                signature_def_map={"serving_default": sig},
                assets_collection=tf.get_collection(tf.GraphKeys.ASSET_FILEPATHS),
                legacy_init_op=tf.tables_initializer())
            builder.save()
    shutil.rmtree(vocab_dir)


def simple_model(path):
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        with tf.variable_scope("hidden"):
            w1 = tf.get_variable("kernel", [3, 4], initializer=tf.constant_initializer(0.25))
            b1 = tf.get_variable("bias", [4], initializer=tf.constant_initializer(-0.125))
        with tf.variable_scope("out"):
            w2 = tf.get_variable("kernel", [4, 2], initializer=tf.constant_initializer(-0.5))
            b2 = tf.get_variable("bias", [2], initializer=tf.constant_initializer(0.125))
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
        y = tf.add(tf.matmul(h, w2), b2, name="y")
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            tf.saved_model.simple_save(sess, path, inputs={"x": x}, outputs={"y": y})


def describe(path, feeds):
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        meta = tf.saved_model.loader.load(sess, [tf.saved_model.SERVING], path)
        sig = meta.signature_def["serving_default"]
        fetch = {k: v.name for k, v in sig.outputs.items()}
        feed = {sig.inputs[k].name: v for k, v in feeds.items()}
        out = sess.run(fetch, feed)
        info = lambda m: {k: {"name": v.name, "dtype": v.dtype,
                              "shape": [d.size for d in v.tensor_shape.dim]}
                          for k, v in m.items()}
        return {
            "method_name": sig.method_name,
            "inputs": info(sig.inputs),
            "outputs": info(sig.outputs),
            "values": {k: v.tolist() for k, v in out.items()},
            "tags": list(meta.meta_info_def.tags),
            "collections": sorted(meta.collection_def.keys()),
            "saver_sharded": meta.saver_def.sharded,
        }


def main():
    expected = {}
    for name, make, feeds in [
        ("builder", builder_model, {"x": X, "words": WORDS}),
        ("simple", simple_model, {"x": X}),
    ]:
        path = os.path.join(HERE, name)
        shutil.rmtree(path, ignore_errors=True)
        make(path)
        expected[name] = describe(path, feeds)
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
