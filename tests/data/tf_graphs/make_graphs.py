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

# The documented queue pipeline as TensorFlow 2's tf.compat.v1 writes it: string_input_producer
# (its epoch counter is ResourceCountUpTo, its empty-input check an Assert), TFRecordReader,
# parse_single_example (ParseExampleV2 on a scalar), decode_raw and batch; plus parse_example
# (ParseExampleV2 on a vector) with a default and a VarLenFeature. The records are written here
# too (pipeline.tfrecord); the tests point the file names (a placeholder_with_default) at them
# with input_map.
def example(i):
    return tf.train.Example(features=tf.train.Features(feature={
        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
        "image_raw": tf.train.Feature(bytes_list=tf.train.BytesList(value=[bytes([i, i + 1, 2 * i, 250 + i])])),
        "weights": tf.train.Feature(float_list=tf.train.FloatList(value=[0.5 * k + i for k in range(i % 3)])),
    })).SerializeToString()

with tf.io.TFRecordWriter("pipeline.tfrecord") as w:
    for i in range(5):
        w.write(example(i))
g = tf.Graph()
with g.as_default():
    names = tf1.placeholder_with_default(["pipeline.tfrecord"], [None], name="filenames")
    files = tf1.train.string_input_producer(names, num_epochs=2, shuffle=False)
    _, record = tf1.TFRecordReader().read(files)
    parsed = tf1.parse_single_example(record, {
        "label": tf1.FixedLenFeature([], tf.int64),
        "image_raw": tf1.FixedLenFeature([], tf.string),
    })
    image = tf.cast(tf.reshape(tf1.decode_raw(parsed["image_raw"], tf.uint8), [4]), tf.float32)
    images, labels = tf1.train.batch([image, parsed["label"]], batch_size=4, num_threads=1,
                                     allow_smaller_final_batch=True)
    one = tf1.placeholder(tf.string, [], name="one")
    single = tf1.parse_single_example(one, {"weights": tf1.VarLenFeature(tf.float32)})["weights"]
    many = tf1.placeholder(tf.string, [None], name="many")
    batch = tf1.parse_example(many, {
        "label": tf1.FixedLenFeature([], tf.int64, default_value=-1),
        "weights": tf1.VarLenFeature(tf.float32),
    })
    init = tf.group(tf1.global_variables_initializer(), tf1.local_variables_initializer(), name="init")
    coord_batches = []
    with tf1.Session(graph=g) as s:
        s.run(init)
        coord = tf1.train.Coordinator()
        threads = tf1.train.start_queue_runners(s, coord)
        try:
            while True:
                im, lb = s.run([images, labels])
                coord_batches.append({"images": im.tolist(), "labels": lb.tolist()})
        except tf.errors.OutOfRangeError:
            pass
        coord.request_stop()
        coord.join(threads)
        ws = s.run(single, {one: example(2)})
        bt = s.run(batch, {many: [example(1), example(2), b""]})
    runners = tf1.get_collection(tf1.GraphKeys.QUEUE_RUNNERS)
    expected["pipeline"] = {
        "init": init.name,
        "filenames": names.name,
        "images": images.name, "labels": labels.name,
        "runners": [{"queue": r.queue.name, "enqueue_ops": [o.name for o in r.enqueue_ops]} for r in runners],
        "batches": coord_batches,
        "single": {"indices": single.indices.name, "values": single.values.name,
                   "dense_shape": single.dense_shape.name,
                   "got": [ws.indices.tolist(), ws.values.tolist(), ws.dense_shape.tolist()]},
        "batch": {"label": batch["label"].name, "indices": batch["weights"].indices.name,
                  "values": batch["weights"].values.name, "dense_shape": batch["weights"].dense_shape.name,
                  "got": [bt["label"].tolist(), bt["weights"].indices.tolist(),
                          bt["weights"].values.tolist(), bt["weights"].dense_shape.tolist()]},
        "ops": sorted(set(n.op for n in g.as_graph_def().node)),
    }
    # With no file names at run time, the producer's Assert fails the enqueue.
    with tf1.Session(graph=g) as s:
        s.run(init)
        enq = g.get_operation_by_name(expected["pipeline"]["runners"][0]["enqueue_ops"][0])
        try:
            s.run(enq, {names: np.array([], dtype=object)})
        except tf.errors.OpError as e:
            expected["pipeline"]["empty_error"] = [type(e).__name__, [l for l in e.message.split("\n") if "assertion" in l][0]]
    open("pipeline.pb", "wb").write(g.as_graph_def().SerializeToString())

# Parsers whose feature keys are inputs, as TensorFlow 1.x wrote ParseExample and as
# parse_single_sequence_example writes ParseSingleSequenceExample.
from tensorflow.python.ops import gen_parsing_ops
g = tf.Graph()
with g.as_default():
    many = tf1.placeholder(tf.string, [None], name="many")
    v1 = gen_parsing_ops.parse_example(
        many, names=[], sparse_keys=["weights"], dense_keys=["label"],
        dense_defaults=[tf.constant(-1, tf.int64)], sparse_types=[tf.float32], dense_shapes=[[]],
        name="parse_v1")
    one = tf1.placeholder(tf.string, [], name="one")
    ctx, seq = tf1.io.parse_single_sequence_example(
        one, context_features={"len": tf1.FixedLenFeature([], tf.int64)},
        sequence_features={"tokens": tf1.VarLenFeature(tf.int64),
                           "vecs": tf1.FixedLenSequenceFeature([2], tf.float32)})
    seq_ex = tf.train.SequenceExample(
        context=tf.train.Features(feature={"len": tf.train.Feature(int64_list=tf.train.Int64List(value=[3]))}),
        feature_lists=tf.train.FeatureLists(feature_list={
            "tokens": tf.train.FeatureList(feature=[tf.train.Feature(int64_list=tf.train.Int64List(value=v)) for v in [[5, 6], [], [7]]]),
            "vecs": tf.train.FeatureList(feature=[tf.train.Feature(float_list=tf.train.FloatList(value=v)) for v in [[1, 2], [3, 4]]]),
        })).SerializeToString()
    fetch = {"v1_label": v1.dense_values[0], "v1_indices": v1.sparse_indices[0],
             "v1_values": v1.sparse_values[0], "v1_shape": v1.sparse_shapes[0],
             "len": ctx["len"], "tokens_indices": seq["tokens"].indices,
             "tokens_values": seq["tokens"].values, "vecs": seq["vecs"]}
    with tf1.Session(graph=g) as s:
        got = s.run(fetch, {many: [example(1), example(2), b""], one: seq_ex})
    expected["parse_keys_as_inputs"] = {
        "names": {k: t.name for k, t in fetch.items()},
        "got": {k: np.asarray(v).tolist() for k, v in got.items()},
        "sequence_example": list(seq_ex),
        "ops": sorted(set(n.op for n in g.as_graph_def().node)),
    }
    open("parse_keys_as_inputs.pb", "wb").write(g.as_graph_def().SerializeToString())

# tf.cond as TensorFlow 1 builds it (control flow v1: Switch and Merge): a branch per value of a
# placeholder, a training step whose gradients TensorFlow took through the cond, and two queues
# of which each run dequeues only from the taken branch's.
tf1.disable_control_flow_v2()
g = tf.Graph()
with g.as_default():
    x = tf1.placeholder(tf.float32, [None, 3], name="x")
    p = tf1.placeholder(tf.bool, [], name="is_training")
    w = tf1.Variable(np.array([[0.5, -1.0], [1.5, 0.25], [-0.5, 2.0]], np.float32), name="w", use_resource=False)
    h = tf.matmul(x, w, name="h")
    y = tf1.cond(p, lambda: tf.nn.relu(h) * 2.0, lambda: h - 1.0, name="branch")
    loss = tf.reduce_sum(y * y, name="loss")
    train = tf1.train.GradientDescentOptimizer(0.01).minimize(loss, name="train")
    q1 = tf1.FIFOQueue(10, tf.int32, shapes=[[]], name="q_train")
    q2 = tf1.FIFOQueue(10, tf.int32, shapes=[[]], name="q_eval")
    fill1 = q1.enqueue_many([[1, 2, 3]], name="fill_train")
    fill2 = q2.enqueue_many([[10, 20, 30]], name="fill_eval")
    d = tf1.cond(p, q1.dequeue, q2.dequeue, name="next")
    sizes = [q1.size(name="size_train"), q2.size(name="size_eval")]
    init = tf1.global_variables_initializer()
    xs = np.array([[1, 2, 3], [-1, 0.5, 2]], np.float32)
    flags = [True, False, True, True]
    with tf1.Session(graph=g) as s:
        s.run(init)
        ys = {str(b): s.run(y, {x: xs, p: b}).tolist() for b in [True, False]}
        losses = [float(s.run([loss, train], {x: xs, p: b})[0]) for b in flags]
        w_after = s.run(w).tolist()
        s.run([fill1, fill2])
        taken = [int(s.run(d, {p: b})) for b in [True, False, True]]
        left = [int(v) for v in s.run(sizes)]
    expected["cond_v1"] = {
        "x": xs.tolist(), "y": y.name, "ys": ys, "loss": loss.name, "train": train.name,
        "init": init.name, "flags": flags, "losses": losses, "w_after": w_after,
        "fill": [fill1.name, fill2.name], "next": d.name, "taken": taken,
        "sizes": [t.name for t in sizes], "left": left,
        "ops": sorted(set(n.op for n in g.as_graph_def().node)),
    }
    open("cond_v1.pb", "wb").write(g.as_graph_def().SerializeToString())

# tf.while_loop as TensorFlow 1 builds it (control flow v1: frames of Enter, Merge, LoopCond,
# Switch, NextIteration and Exit): a loop bounded by a placeholder, one reading values from
# outside, a loop in a loop, a cond in a loop, maximum_iterations, and a loop that dequeues once
# per iteration.
g = tf.Graph()
with g.as_default():
    n = tf1.placeholder(tf.int32, [], name="n")
    x = tf1.placeholder(tf.float32, [3], name="x")
    _, acc = tf1.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a + i * i),
                            [tf.constant(0), tf.constant(0)], name="squares")
    w = tf.reduce_sum(x)
    _, v = tf1.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * w + x),
                          [tf.constant(0), tf.zeros([3])], name="affine")

    def outer(i, s):
        _, s2 = tf1.while_loop(lambda j, s2: j < i, lambda j, s2: (j + 1, s2 + j),
                               [tf.constant(0), s], name="inner")
        return i + 1, s2
    _, nested = tf1.while_loop(lambda i, s: i < n, outer, [tf.constant(0), tf.constant(0)],
                               name="outer")
    _, alt = tf1.while_loop(
        lambda i, y: i < n,
        lambda i, y: (i + 1, tf1.cond(tf.equal(i % 2, 0), lambda: y + tf.cast(i, tf.float32),
                                      lambda: y * 2.0)),
        [tf.constant(0), tf.constant(1.0)], name="alternate")
    capped = tf1.while_loop(lambda i: i < 100, lambda i: i + 1, [tf.constant(0)],
                            maximum_iterations=n, name="capped")
    q = tf1.FIFOQueue(20, tf.float32, shapes=[[]], name="q")
    fill = q.enqueue_many([np.arange(1, 11, dtype=np.float32)], name="fill")
    _, taken = tf1.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + q.dequeue()),
                              [tf.constant(0), tf.constant(0.0)], name="take")
    size = q.size(name="size")
    outs = {"acc": acc, "v": v, "nested": nested, "alt": alt, "capped": capped}
    xs = [1.0, 2.0, 0.5]
    with tf1.Session(graph=g) as s:
        got = {str(k): {name: np.asarray(val).tolist()
                        for name, val in s.run(outs, {n: k, x: xs}).items()} for k in [0, 3, 6]}
        s.run(fill)
        takes = [float(s.run(taken, {n: k})) for k in [2, 3]]
        left = int(s.run(size))
    expected["while_v1"] = {
        "names": {k: t.name for k, t in outs.items()}, "x": xs, "got": got,
        "fill": fill.name, "taken": taken.name, "takes": takes, "size": size.name, "left": left,
        "ops": sorted(set(nd.op for nd in g.as_graph_def().node)),
    }
    open("while_v1.pb", "wb").write(g.as_graph_def().SerializeToString())

# The same model as TensorFlow 2 writes it by default (control flow v2): the cond is an If on
# two branch functions of the graph's library, its gradient an If on their gradient functions;
# random_flip_left_right is a StatelessIf; a tf.function call is a StatefulPartitionedCall.
tf1.enable_control_flow_v2()
g = tf.Graph()
with g.as_default():
    x = tf1.placeholder(tf.float32, [None, 3], name="x")
    p = tf1.placeholder(tf.bool, [], name="is_training")
    w = tf1.Variable(np.array([[0.5, -1.0], [1.5, 0.25], [-0.5, 2.0]], np.float32), name="w")
    h = tf.matmul(x, w, name="h")
    y = tf.cond(p, lambda: tf.nn.relu(h) * 2.0, lambda: h - 1.0, name="branch")
    y = tf.identity(y, name="y")
    loss = tf.reduce_sum(y * y, name="loss")
    train = tf1.train.GradientDescentOptimizer(0.01).minimize(loss, name="train")
    img = tf.reshape(tf.range(24, dtype=tf.float32), [2, 4, 3], name="img")
    flipped = tf.identity(tf.image.random_flip_left_right(img, seed=7), name="flipped")

    @tf.function
    def double_plus(a, b):
        return a * 2.0 + b

    called = tf.identity(double_plus(h, 1.0), name="called")
    init = tf1.global_variables_initializer()
    xs = np.array([[1, 2, 3], [-1, 0.5, 2]], np.float32)
    flags = [True, False, True, True]
    with tf1.Session(graph=g) as s:
        s.run(init)
        ys = {str(b): s.run(y, {x: xs, p: b}).tolist() for b in [True, False]}
        doubled = s.run(called, {x: xs}).tolist()
        losses = [float(s.run([loss, train], {x: xs, p: b})[0]) for b in flags]
        w_after = s.run(w).tolist()
        flips = [s.run(flipped)[0, :, 0].tolist() for _ in range(6)]
    gd = g.as_graph_def()
    expected["cond_v2"] = {
        "x": xs.tolist(), "y": y.name, "ys": ys, "loss": loss.name, "train": train.name,
        "init": init.name, "flags": flags, "losses": losses, "w_after": w_after,
        "w_read": "w/Read/ReadVariableOp:0", "called": called.name, "doubled": doubled,
        "flipped": flipped.name, "flips": flips,
        "ops": sorted(set(n.op for n in gd.node)),
        "functions": sorted(f.signature.name for f in gd.library.function),
    }
    open("cond_v2.pb", "wb").write(gd.SerializeToString())

# An LSTM trained through tf.nn.dynamic_rnn as TensorFlow 1 builds it: TensorArrays in a v1
# loop, and TensorFlow's own gradient loop (GradLoopState: stacks of the forward values, a
# backward counter, ControlTrigger, ShapeN, ConcatOffset, TanhGrad and SigmoidGrad).
from tensorflow.python.ops import rnn_cell_impl
tf1.disable_control_flow_v2()
g = tf.Graph()
with g.as_default():
    x = tf1.placeholder(tf.float32, [None, 4, 2], name="x")
    y = tf1.placeholder(tf.float32, [None, 3], name="y")
    with tf1.variable_scope("v", initializer=tf1.random_uniform_initializer(-0.5, 0.5, seed=3)):
        _, state = tf1.nn.dynamic_rnn(rnn_cell_impl.BasicLSTMCell(3), x, dtype=tf.float32)
    loss = tf.reduce_mean(tf.square(state.h - y), name="loss")
    train = tf1.train.GradientDescentOptimizer(0.5).minimize(loss, name="train")
    init = tf1.global_variables_initializer()
    xs = np.array([[[0.5, -1.0], [1.0, 0.25], [-0.5, 2.0], [0.1, 0.2]],
                   [[0.3, 0.3], [-1.0, 0.5], [0.2, -0.2], [1.5, 0.0]]], np.float32)
    ys = np.array([[0.1, -0.2, 0.3], [0.0, 0.5, -0.5]], np.float32)
    with tf1.Session(graph=g) as s:
        s.run(init)
        losses = [float(s.run([loss, train], {x: xs, y: ys})[0]) for _ in range(4)]
    expected["rnn_train_v1"] = {
        "x": xs.tolist(), "y": ys.tolist(), "loss": loss.name, "train": train.name,
        "init": init.name, "losses": losses,
        "ops": sorted(set(nd.op for nd in g.as_graph_def().node)),
    }
    open("rnn_train_v1.pb", "wb").write(g.as_graph_def().SerializeToString())
tf1.enable_control_flow_v2()

# The loops of while_v1.pb as TensorFlow 2 writes them by default (control flow v2): While ops
# on condition and body functions of the graph's library (values from outside passed in as
# extra loop variables), a While in a body function, an If in a body function, and a resource
# variable assigned in every iteration (a body function with a control output).
g = tf.Graph()
with g.as_default():
    n = tf1.placeholder(tf.int32, [], name="n")
    x = tf1.placeholder(tf.float32, [3], name="x")
    _, acc = tf.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a + i * i),
                           [tf.constant(0), tf.constant(0)], name="squares")
    w = tf.reduce_sum(x)
    _, v = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * w + x),
                         [tf.constant(0), tf.zeros([3])], name="affine")

    def outer2(i, s):
        _, s2 = tf.while_loop(lambda j, s2: j < i, lambda j, s2: (j + 1, s2 + j),
                              [tf.constant(0), s], name="inner")
        return i + 1, s2
    _, nested = tf.while_loop(lambda i, s: i < n, outer2, [tf.constant(0), tf.constant(0)],
                              name="outer")
    _, alt = tf.while_loop(
        lambda i, y: i < n,
        lambda i, y: (i + 1, tf.cond(tf.equal(i % 2, 0), lambda: y + tf.cast(i, tf.float32),
                                     lambda: y * 2.0)),
        [tf.constant(0), tf.constant(1.0)], name="alternate")
    capped = tf.while_loop(lambda i: i < 100, lambda i: i + 1, [tf.constant(0)],
                           maximum_iterations=n, name="capped")[0]
    counter = tf1.Variable(0.0, name="counter")

    def count(i):
        with tf.control_dependencies([counter.assign_add(2.0)]):
            return i + 1
    counted = tf.while_loop(lambda i: i < n, count, [tf.constant(0)], name="counting")[0]
    outs = {"acc": acc, "v": v, "nested": nested, "alt": alt, "capped": capped,
            "counted": counted}
    init = tf1.global_variables_initializer()
    xs = [1.0, 2.0, 0.5]
    with tf1.Session(graph=g) as s:
        s.run(init)
        got = {str(k): {name: np.asarray(val).tolist()
                        for name, val in s.run(outs, {n: k, x: xs}).items()} for k in [0, 3, 6]}
        counter_after = float(s.run(counter))
    gd = g.as_graph_def()
    expected["while_v2"] = {
        "names": {k: t.name for k, t in outs.items()}, "x": xs, "got": got,
        "init": init.name, "counter": "counter/Read/ReadVariableOp:0",
        "counter_after": counter_after,
        "ops": sorted(set(nd.op for nd in gd.node)),
        "functions": sorted(f.signature.name for f in gd.library.function),
    }
    open("while_v2.pb", "wb").write(gd.SerializeToString())

# Batch normalization switched by an is_training placeholder, as tf.layers wrote it in
# TensorFlow 1: a v1 cond between FusedBatchNormV3 on the batch and on the moving statistics,
# the moving averages updated by assignments, and a training step through both.
tf1.disable_control_flow_v2()
g = tf.Graph()
with g.as_default():
    x = tf1.placeholder(tf.float32, [None, 2, 2, 3], name="x")
    t = tf1.placeholder(tf.bool, [], name="training")
    gamma = tf1.Variable(tf.ones([3]), name="gamma", use_resource=False)
    beta = tf1.Variable(tf.zeros([3]), name="beta", use_resource=False)
    mm = tf1.Variable(tf.zeros([3]), name="moving_mean", trainable=False, use_resource=False)
    mv = tf1.Variable(tf.ones([3]), name="moving_var", trainable=False, use_resource=False)
    y, bm, bv = tf1.cond(
        t,
        lambda: tf1.nn.fused_batch_norm(x, gamma, beta, epsilon=1e-3)[:3],
        lambda: tf1.nn.fused_batch_norm(x, gamma, beta, mean=mm, variance=mv, epsilon=1e-3,
                                        is_training=False)[:3])
    y = tf.identity(y, name="y")
    update = tf.group(tf1.assign(mm, 0.9 * mm + 0.1 * bm), tf1.assign(mv, 0.9 * mv + 0.1 * bv),
                      name="update")
    loss = tf.reduce_sum(y * y, name="loss")
    train = tf1.train.GradientDescentOptimizer(0.1).minimize(loss, name="train")
    init = tf1.global_variables_initializer()
    xs = (np.arange(24, dtype=np.float32).reshape(2, 2, 2, 3) / 10.0) ** 2
    with tf1.Session(graph=g) as s:
        s.run(init)
        train_y = s.run(y, {x: xs, t: True}).ravel().tolist()
        s.run(update, {x: xs, t: True})
        eval_y = s.run(y, {x: xs, t: False}).ravel().tolist()
        losses = [float(s.run([loss, train], {x: xs, t: True})[0]) for _ in range(3)]
        eval_after = s.run(y, {x: xs, t: False}).ravel().tolist()
    expected["batch_norm_cond"] = {
        "x": xs.ravel().tolist(), "train_y": train_y, "eval_y": eval_y, "losses": losses,
        "eval_after": eval_after, "ops": sorted(set(n.op for n in g.as_graph_def().node)),
    }
    open("batch_norm_cond.pb", "wb").write(g.as_graph_def().SerializeToString())

json.dump(expected, open("expected.json", "w"), indent=1, sort_keys=True)
print(json.dumps(expected, indent=1, sort_keys=True))
