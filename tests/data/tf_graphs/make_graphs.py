"""Writes the GraphDefs in this folder with the real TensorFlow (run once, by hand, in the
shared bench's venv: $HOME/.cache/weir-bench/venv/bin/python make_graphs.py). The tests in
tests/integration/graph_def_import.rs import them and compare with the values printed here,
which are stored in expected.json."""
import json

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()
expected = {}

# A TF1 softmax classifier: ref variables (VariableV2, Assign, Identity reads), a product, a
# bias, the sparse cross entropy and a GradientDescent step.
g = tf.Graph()
with g.as_default():
    x = tf1.placeholder(tf.float32, [None, 4], name="x")
    y = tf1.placeholder(tf.int32, [None], name="y")
    w = tf1.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) * 0.1, name="w", use_resource=False)
    b = tf1.Variable(np.zeros(3, np.float32), name="b", use_resource=False)
    logits = tf.add(tf.matmul(x, w), b, name="logits")
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
    loss = tf.reduce_mean(xent, name="loss")
    # Gradients by hand with primitive ops, so the graph holds no Python-only composites.
    probs = tf.nn.softmax(logits, name="probs")
    onehot = tf.one_hot(y, 3, name="onehot")
    n = tf.cast(tf.shape(x)[0], tf.float32, name="n")
    dlogits = tf.divide(probs - onehot, n, name="dlogits")
    dw = tf.matmul(x, dlogits, transpose_a=True, name="dw")
    db = tf.reduce_sum(dlogits, axis=0, name="db")
    train = tf.group(
        tf1.train.GradientDescentOptimizer(0.5).apply_gradients([(dw, w), (db, b)]),
        name="train",
    )
    init = tf1.global_variables_initializer()
    xs = np.array([[1, 2, 3, 4], [-1, 0.5, 0, 2]], np.float32)
    ys = np.array([2, 0], np.int32)
    with tf1.Session(graph=g) as s:
        s.run(init)
        losses = [float(s.run([loss, train], {x: xs, y: ys})[0]) for _ in range(3)]
        w_after = s.run(w).tolist()
    expected["softmax_train"] = {
        "init": init.name, "train": train.name, "loss": loss.name,
        "x": xs.tolist(), "y": ys.tolist(), "losses": losses, "w_after": w_after,
    }
    gd = g.as_graph_def(add_shapes=True)
    open("softmax_train.pb", "wb").write(gd.SerializeToString())
    # The same GraphDef in text format, as write_graph(as_text=True) writes it.
    open("softmax_train.pbtxt", "w").write(str(gd))

# The same classifier as TensorFlow 2's tf.compat.v1 writes it by default: resource variables
# (VarHandleOp, AssignVariableOp, ReadVariableOp), Adam (ResourceApplyAdam) and TensorFlow's own
# gradients.
g = tf.Graph()
with g.as_default():
    x = tf1.placeholder(tf.float32, [None, 4], name="x")
    y = tf1.placeholder(tf.int32, [None], name="y")
    w = tf1.get_variable("w", initializer=np.arange(12, dtype=np.float32).reshape(4, 3) * 0.1)
    logits = tf.matmul(x, w, name="logits")
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
    loss = tf.reduce_mean(xent, name="loss")
    train = tf1.train.AdamOptimizer(0.1).minimize(loss, name="train")
    init = tf1.global_variables_initializer()
    xs = np.array([[1, 2, 3, 4], [-1, 0.5, 0, 2]], np.float32)
    ys = np.array([2, 0], np.int32)
    with tf1.Session(graph=g) as s:
        s.run(init)
        losses = [float(s.run([loss, train], {x: xs, y: ys})[0]) for _ in range(3)]
        w_after = s.run(w).tolist()
    expected["resource_adam"] = {
        "init": init.name, "train": train.name, "loss": loss.name, "w": "w/Read/ReadVariableOp:0",
        "ops": sorted(set(n.op for n in g.as_graph_def().node)),
        "x": xs.tolist(), "y": ys.tolist(), "losses": losses, "w_after": w_after,
    }
    open("resource_adam.pb", "wb").write(g.as_graph_def().SerializeToString())

# Constants in every layout TensorFlow writes: scalars in typed fields, arrays as
# tensor_content, a filled constant as one repeated value, strings, booleans.
g = tf.Graph()
with g.as_default():
    tf.constant(2.5, name="f_scalar")
    tf.constant([[1.5, -2.0, 3.25]], name="f_matrix")
    tf.constant(7, tf.int64, shape=[2, 3], name="i64_filled")
    tf.constant([1, -2, 3], tf.int32, name="i32")
    tf.constant([200, 3], tf.uint8, name="u8")
    tf.constant(["a\"b", "\u00e9\n", ""], name="strings")
    tf.constant([True, False, True], name="bools")
    tf.constant(3.0, tf.float64, name="f64")
    values = {}
    with tf1.Session(graph=g) as s:
        for op in g.get_operations():
            v = s.run(op.outputs[0])
            values[op.name] = [t.decode("latin-1") for t in v] if v.dtype == object else np.asarray(v).tolist()
    expected["constants"] = values
    open("constants.pb", "wb").write(g.as_graph_def().SerializeToString())

json.dump(expected, open("expected.json", "w"), indent=1, sort_keys=True)
print(json.dumps(expected, indent=1, sort_keys=True))
