"""Writes expected.json in this folder with the real TensorFlow (run once, by hand, in the
shared bench's venv: $HOME/.cache/weir-bench/venv/bin/python make_rnn.py): TensorFlow 1's
recurrent cells run by dynamic_rnn and static_rnn on one batch, their variables (names, shapes,
initial values from a seeded random_uniform initializer), outputs, final states, gradients and
three Adam steps. tests/integration/rnn.rs builds the same graphs in weir and compares."""
import tensorflow as tf, numpy as np, json
tf.compat.v1.disable_v2_behavior()
tf1 = tf.compat.v1
from tensorflow.python.ops import rnn_cell_impl as rnn
X = np.array([[[0.5, -1.0], [1.0, 0.25], [-0.5, 2.0], [0.1, 0.2]],
              [[0.3, 0.3], [-1.0, 0.5], [0.2, -0.2], [1.5, 0.0]]], np.float32)
out = {}
def case(name, build):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(X)
        with tf1.variable_scope("v", initializer=tf1.random_uniform_initializer(-0.5, 0.5, seed=3)):
            outputs, state = build(x)
        flat_state = tf.nest.flatten(state)
        loss = tf.reduce_sum(outputs * outputs) + tf.add_n([tf.reduce_sum(s) for s in flat_state])
        tvars = tf1.trainable_variables()
        grads = tf.gradients(loss, [x] + tvars)
        train = tf1.train.AdamOptimizer(0.05).minimize(loss)
        with tf1.Session() as s:
            s.run(tf1.global_variables_initializer())
            init = s.run(tvars)
            r = s.run([outputs, flat_state, grads])
            losses = [float(s.run([loss, train])[0]) for _ in range(3)]
        out[name] = {"vars": [(v.name, v.shape.as_list()) for v in tvars],
                     "outputs": np.asarray(r[0]).tolist(), "state": [np.asarray(t).tolist() for t in r[1]],
                     "dx": np.asarray(r[2][0]).tolist(), "dvars": [np.asarray(t).tolist() for t in r[2][1:]],
                     "losses": losses, "init": [np.asarray(t).tolist() for t in init]}
case("basic_rnn", lambda x: tf1.nn.dynamic_rnn(rnn.BasicRNNCell(3), x, dtype=tf.float32))
case("basic_lstm_seq", lambda x: tf1.nn.dynamic_rnn(rnn.BasicLSTMCell(3), x, sequence_length=tf.constant([4, 2]), dtype=tf.float32))
case("gru_time_major", lambda x: tf1.nn.dynamic_rnn(rnn.GRUCell(3), tf.transpose(x, [1, 0, 2]), initial_state=tf.constant([[0.1, 0.2, 0.3], [-0.1, 0.0, 0.5]]), time_major=True))
case("lstm_peep_proj", lambda x: tf1.nn.dynamic_rnn(rnn.LSTMCell(3, use_peepholes=True, num_proj=2, cell_clip=1.0), x, dtype=tf.float32))
case("multi", lambda x: tf1.nn.dynamic_rnn(rnn.MultiRNNCell([rnn.BasicRNNCell(3), rnn.GRUCell(2)]), x, dtype=tf.float32))
def static(x):
    outs, st = tf1.nn.static_rnn(rnn.BasicLSTMCell(3), tf.unstack(x, axis=1), dtype=tf.float32)
    return tf.stack(outs, axis=1), st
case("static_lstm", static)
json.dump(out, open("expected.json", "w"), indent=1, sort_keys=True)
for k, v in out.items(): print(k, v["vars"], v["losses"])
