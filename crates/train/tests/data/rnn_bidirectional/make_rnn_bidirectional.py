"""Records what TensorFlow 2.21 (tf.compat.v1, graph mode) computes for
tf.nn.bidirectional_dynamic_rnn, for crates/train/tests/integration/rnn_bidirectional.rs: the
variables it creates (names, shapes), then, with every variable assigned fixed values
(recorded here), the forward and backward outputs, both final states, and the gradients of
sum(w_fw * output_fw) + sum(w_bw * output_bw) + sum(state) with respect to the inputs and every
variable.

Run: ~/.cache/weir-bench/venv/bin/python make_rnn_bidirectional.py   (writes expected.json)
"""

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.python.ops import rnn_cell_impl as rnn

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))


def values(shape, seed):
    r = np.random.RandomState(seed)
    return r.uniform(-0.6, 0.6, size=shape).astype(np.float32)


def weights(shape):
    n = int(np.prod(shape))
    return np.array([0.5 + ((i * 7919 + 13) % 1000) / 1000.0 for i in range(n)],
                    np.float32).reshape(shape)


def run(name, cells, x, **kw):
    g = tf.Graph()
    with g.as_default():
        xt = tf.constant(x, name="x")
        args = dict(kw)
        lengths = args.pop("sequence_length", None)
        if lengths is not None:
            args["sequence_length"] = tf.constant(lengths, name="lengths")
        for k in ("initial_state_fw", "initial_state_bw"):
            if k in args:
                args[k] = tf.constant(args[k])
        (out_fw, out_bw), (st_fw, st_bw) = tf.nn.bidirectional_dynamic_rnn(cells[0](), cells[1](), xt, **args)
        st_fw, st_bw = tf.nest.flatten(st_fw), tf.nest.flatten(st_bw)
        loss = (tf.reduce_sum(tf.constant(weights(out_fw.shape.as_list())) * out_fw)
                + tf.reduce_sum(tf.constant(weights(out_bw.shape.as_list())) * out_bw)
                + tf.add_n([tf.reduce_sum(s) for s in st_fw + st_bw]))
        tvars = tf.trainable_variables()
        grads = tf.gradients(loss, [xt] + tvars)
        fixed = [values(v.shape.as_list(), 100 + i) for i, v in enumerate(tvars)]
        assigns = [v.assign(f) for v, f in zip(tvars, fixed)]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(assigns)
            r = s.run({"out_fw": out_fw, "out_bw": out_bw, "st_fw": st_fw, "st_bw": st_bw, "grads": grads})
    return {
        "name": name,
        "x": x.tolist(),
        "options": {k: (np.asarray(v).tolist() if not isinstance(v, (bool, type(tf.float32))) else
                        (v if isinstance(v, bool) else v.name)) for k, v in kw.items()},
        "vars": [[v.name, v.shape.as_list(), f.reshape(-1).tolist()] for v, f in zip(tvars, fixed)],
        "out_fw": r["out_fw"].reshape(-1).tolist(), "out_fw_shape": list(r["out_fw"].shape),
        "out_bw": r["out_bw"].reshape(-1).tolist(), "out_bw_shape": list(r["out_bw"].shape),
        "st_fw": [t.reshape(-1).tolist() for t in r["st_fw"]],
        "st_bw": [t.reshape(-1).tolist() for t in r["st_bw"]],
        "dx": r["grads"][0].reshape(-1).tolist(),
        "dvars": [t.reshape(-1).tolist() for t in r["grads"][1:]],
    }


x = values((3, 4, 2), 1)
CASES = [
    run("lstm_gru_lengths", (lambda: rnn.BasicLSTMCell(3), lambda: rnn.GRUCell(2)), x,
        sequence_length=np.array([4, 2, 3], np.int32), dtype=tf.float32),
    run("rnn_time_major_no_lengths", (lambda: rnn.BasicRNNCell(3), lambda: rnn.BasicRNNCell(2)),
        values((4, 2, 3), 2), time_major=True, dtype=tf.float32,
        initial_state_fw=values((2, 3), 3)),
    run("lstm_int64_lengths_initial_bw", (lambda: rnn.LSTMCell(2), lambda: rnn.GRUCell(3)), x,
        sequence_length=np.array([1, 4, 0], np.int64), initial_state_bw=values((3, 3), 4),
        dtype=tf.float32),
]

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": CASES}, f, separators=(",", ":"))
for c in CASES:
    print(c["name"], [v[0] for v in c["vars"]])
