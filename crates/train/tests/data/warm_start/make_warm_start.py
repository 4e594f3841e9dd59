"""Records what TensorFlow 2.21's tf.compat.v1.train.warm_start initializes, for
crates/train/tests/integration/warm_start.rs. Run with the bench venv's python:

    $HOME/.cache/weir-bench/venv/bin/python make_warm_start.py

The checkpoint holds dense/kernel [1, 2], dense/bias 3, old_emb 4 and counter 9 (not
trainable); the new model has zeros in dense/kernel, dense/bias, new_emb and counter.
"""
import json
import os
import shutil
import tempfile

import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
tf.disable_resource_variables()

root = tempfile.mkdtemp()
prefix = os.path.join(root, "m")
g = tf.Graph()
with g.as_default():
    tf.Variable([1.0, 2.0], name="dense/kernel")
    tf.Variable(3.0, name="dense/bias")
    tf.Variable(4.0, name="old_emb")
    tf.Variable(9.0, name="counter", trainable=False)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        tf.train.Saver().save(s, prefix)


def model(kernel_size=2):
    return [tf.Variable([0.0] * kernel_size, name="dense/kernel"),
            tf.Variable(0.0, name="dense/bias"),
            tf.Variable(0.0, name="new_emb"),
            tf.Variable(0.0, name="counter", trainable=False)]


def run(name, kernel_size=2, **kw):
    g = tf.Graph()
    with g.as_default():
        vs = model(kernel_size)
        try:
            tf.train.warm_start(prefix, **kw)
        except Exception as e:  # noqa: BLE001
            return {"name": name, "args": kw, "kernel_size": kernel_size, "error": type(e).__name__,
                    "message": str(e).replace(prefix, "PREFIX")}
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            return {"name": name, "args": kw, "kernel_size": kernel_size,
                    "values": {v.op.name: s.run(v).tolist() for v in vs}}


cases = [
    run("regex", vars_to_warm_start="dense/.*"),
    run("prefix", vars_to_warm_start="dense/k"),
    run("list_includes_non_trainable", vars_to_warm_start=["counter", "dense/bias"]),
    run("prev_name", vars_to_warm_start=".*", var_name_to_prev_var_name={"new_emb": "old_emb"}),
    run("unused_prev_name", vars_to_warm_start="dense.*",
        var_name_to_prev_var_name={"new_emb": "old_emb"}),
    run("missing_tensor", vars_to_warm_start=".*"),
    run("shape_mismatch", kernel_size=3, vars_to_warm_start="dense/kernel"),
]
shutil.rmtree(root)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json"), "w") as f:
    json.dump(cases, f, indent=1, sort_keys=True)
    f.write("\n")
