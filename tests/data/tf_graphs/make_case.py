"""Writes case_v2.pb and case_v2.json with the real TensorFlow 2.21 (run by hand in the shared
bench's venv: $HOME/.cache/weir-bench/venv/bin/python make_case.py): `tf.switch_case` as
TensorFlow 2 builds it by default, a `Case` (or `StatelessCase`) op on branch functions of the
graph's library, its gradient included. tests/integration/graph_def_case.rs imports the graph
and compares with the values recorded here."""
import json

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()
tf1.enable_control_flow_v2()

g = tf.Graph()
with g.as_default():
    i = tf1.placeholder(tf.int32, [], name="i")
    x = tf1.placeholder(tf.float32, [None, 2], name="x")
    w = tf1.Variable(np.array([[0.5, -1.0], [1.5, 0.25]], np.float32), name="w")
    h = tf.matmul(x, w, name="h")
    # Three branches with different ops; an index outside [0, 3) takes the last one.
    y = tf.switch_case(i, [lambda: h * 2.0, lambda: tf.nn.relu(h) - 1.0, lambda: h * h],
                       name="pick")
    y = tf.identity(y, name="y")
    # A stateless one with two outputs and an int result.
    a, b = tf.switch_case(i, [lambda: (x + 1.0, tf.constant(10)),
                              lambda: (x * 0.0, tf.constant(20))], name="pair")
    a = tf.identity(a, name="a")
    b = tf.identity(b, name="b")
    # A branch with a side effect: only the taken branch may run it.
    counter = tf1.Variable(0, name="counter")
    bumped = tf.switch_case(i, [lambda: counter.assign_add(1).read_value(),
                                lambda: counter.assign_add(100).read_value()], name="bump")
    bumped = tf.identity(bumped, name="bumped")
    loss = tf.reduce_sum(y * y, name="loss")
    train = tf1.train.GradientDescentOptimizer(0.01).minimize(loss, name="train")
    init = tf1.global_variables_initializer()
    xs = np.array([[1, 2], [-1, 0.5]], np.float32)
    idxs = [0, 1, 2, 5, -1]
    with tf1.Session(graph=g) as s:
        s.run(init)
        ys = {str(k): s.run(y, {x: xs, i: k}).tolist() for k in idxs}
        pairs = {str(k): [s.run(a, {x: xs, i: k}).tolist(), int(s.run(b, {x: xs, i: k}))]
                 for k in idxs}
        bumps = [int(s.run(bumped, {i: k})) for k in [0, 1, 1, 7, 0]]
        flags = [0, 1, 2, 1, 9]
        losses = [float(s.run([loss, train], {x: xs, i: k})[0]) for k in flags]
        w_after = s.run(w).tolist()
    gd = g.as_graph_def()
    out = {
        "x": xs.tolist(), "idxs": idxs, "ys": ys, "pairs": pairs,
        "bump_idxs": [0, 1, 1, 7, 0], "bumps": bumps,
        "flags": flags, "losses": losses, "w_after": w_after,
        "init": init.name, "train": train.name, "loss": loss.name,
        "w_read": "w/Read/ReadVariableOp:0",
        "ops": sorted(set(n.op for n in gd.node)),
        "functions": sorted(f.signature.name for f in gd.library.function),
    }
    open("case_v2.pb", "wb").write(gd.SerializeToString())
    with open("case_v2.json", "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(out["ops"], out["bumps"], out["losses"])
