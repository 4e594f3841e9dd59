"""Writes ref_cond_v1.pb and ref_cond_v1.json beside this script: a TensorFlow 1 graph whose
conds assign reference variables (tf.disable_resource_variables), so TensorFlow builds RefSwitch
and RefIdentity for them, as a tf.layers batch normalization with a training tensor does for
its moving averages. Run with TensorFlow 2.x (written with 2.21): python make_ref_cond.py

The JSON gives, for each feed of `training`, the fetched `out` and the variables after the run.
"""

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()
tf.disable_resource_variables()
HERE = os.path.dirname(os.path.abspath(__file__))

with tf.Graph().as_default() as g:
    training = tf.placeholder_with_default(False, [], name="training")
    avg = tf.Variable([1.0, 2.0], name="avg")
    count = tf.Variable(0, name="count")
    x = tf.constant([3.0, 5.0], name="x")

    def update():
        a = tf.assign_sub(avg, (avg - x) * 0.5)
        c = tf.assign_add(count, 1)
        with tf.control_dependencies([c]):
            return tf.identity(a)

    out = tf.identity(tf.cond(training, update, lambda: tf.identity(avg)), name="out")
    init = tf.variables_initializer([avg, count], name="init")
    ops = sorted({n.op for n in g.as_graph_def().node})
    with open(os.path.join(HERE, "ref_cond_v1.pb"), "wb") as f:
        f.write(g.as_graph_def().SerializeToString())
    runs = []
    with tf.Session() as s:
        s.run(init)
        for t in [False, True, True, False]:
            o = s.run(out, {training: t})
            runs.append({"training": t, "out": o.tolist(),
                         "avg": s.run(avg).tolist(), "count": int(s.run(count))})
with open(os.path.join(HERE, "ref_cond_v1.json"), "w") as f:
    json.dump({"ops": ops, "runs": runs}, f, indent=1)
    f.write("\n")
