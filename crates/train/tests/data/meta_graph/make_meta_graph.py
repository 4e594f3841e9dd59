"""Writes the TensorFlow meta graph and checkpoint that weir's import_meta_graph tests read
(crates/train/tests/integration/meta_graph.rs).

Run with TensorFlow 2.x (written with 2.21) from any directory:

    python make_meta_graph.py

It replaces, beside this script:

* ref/model.ckpt-3.{meta,index,data-00000-of-00001} and ref/checkpoint: a TF1 training
  program (tf.compat.v1, graph mode) whose input is a queue pipeline (slice_input_producer of
  constants, shuffle=False, then batch(4), one thread each), a 3 -> 2 linear model under
  variable scopes, softmax cross-entropy, a loss summary, MomentumOptimizer with a global step,
  and the train op in the `train_op` collection; saved by tf.compat.v1.train.Saver after 3 steps.
  Its variables are TensorFlow 1's (VariableV2, read through Identity, ApplyMomentum).
* resource/...: the same program with resource variables (VarHandleOp, ReadVariableOp,
  ResourceApplyMomentum), as tf.compat.v1 builds it by default in TensorFlow 2.
* expected.json, per directory: what TensorFlow gives when a new program imports that meta graph
  (import_meta_graph), restores the checkpoint, starts the queue runners and runs the
  `train_op` collection's op 4 times: the loss of each run, then the variables' values; and the
  collection keys and sizes of the meta graph, and its SaverDef.
"""

import json
import os
import shutil

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_eager_execution()

HERE = os.path.dirname(os.path.abspath(__file__))

X = np.array([[i * 0.25 - 1.0, (i % 3) * 0.5, 1.0 - (i % 4) * 0.125] for i in range(12)], np.float32)
Y = np.array([i % 2 for i in range(12)], np.int32)


def build():
    x, y = tf.train.slice_input_producer([tf.constant(X), tf.constant(Y)], shuffle=False)
    xb, yb = tf.train.batch([x, y], batch_size=4, num_threads=1, capacity=16)
    with tf.variable_scope("linear"):
        w = tf.get_variable("weights", [3, 2], initializer=tf.constant_initializer(0.125))
        b = tf.get_variable("biases", [2], initializer=tf.zeros_initializer())
    logits = tf.matmul(xb, w) + b
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=yb, logits=logits), name="loss")
    tf.summary.scalar("loss", loss)
    step = tf.train.get_or_create_global_step()
    train = tf.train.MomentumOptimizer(0.5, 0.9).minimize(loss, global_step=step)
    tf.add_to_collection("train_op", train)
    tf.add_to_collection("loss", loss)
    return loss, train


def run(kind):
    train_dir = os.path.join(HERE, kind)
    shutil.rmtree(train_dir, ignore_errors=True)
    os.makedirs(train_dir)
    if kind == "ref":
        tf.disable_resource_variables()
    else:
        tf.enable_resource_variables()
    with tf.Graph().as_default() as g:
        loss, train = build()
        saver = tf.train.Saver()
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            for _ in range(3):
                sess.run(train)
            path = saver.save(sess, os.path.join(train_dir, "model.ckpt"), global_step=3)
            coord.request_stop()
            coord.join(threads)
    meta = tf.train.import_meta_graph  # the program under test, in TensorFlow
    with tf.Graph().as_default() as g:
        restorer = meta(path + ".meta")
        with tf.Session(graph=g) as sess:
            restorer.restore(sess, path)
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            train = tf.get_collection("train_op")[0]
            loss = tf.get_collection("loss")[0]
            losses = [float(sess.run([loss, train])[0]) for _ in range(4)]
            coord.request_stop()
            coord.join(threads)
            variables = {v.op.name: sess.run(v).tolist() for v in tf.global_variables()}
            md = restorer.export_meta_graph()
            expected = {
                "losses": losses,
                "variables": variables,
                "collections": {k: len(tf.get_collection(k)) for k in sorted(md.collection_def)},
                "saver_def": {
                    "filename_tensor_name": md.saver_def.filename_tensor_name,
                    "save_tensor_name": md.saver_def.save_tensor_name,
                    "restore_op_name": md.saver_def.restore_op_name,
                    "max_to_keep": md.saver_def.max_to_keep,
                    "version": md.saver_def.version,
                },
            }
    return expected


def main():
    expected = {kind: run(kind) for kind in ("ref", "resource")}
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
