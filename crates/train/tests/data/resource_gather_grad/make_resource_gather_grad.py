"""Writes expected.json: TensorFlow 2.21's (tf.compat.v1, graph mode, CPU) gradients through
ResourceGather (`v.sparse_read`), ResourceGatherNd (`tf.gather_nd(v, i)`) and
TensorScatterMax/Min (`tf.tensor_scatter_nd_max/min`), and training steps of GradientDescent
and Momentum on an embedding lookup of a resource variable, for weir's
crates/train/tests/integration/resource_gather_grad.rs.

TensorFlow's gradient of a gathered variable is an IndexedSlices; it is recorded dense
(`tf.convert_to_tensor`, an unsorted_segment_sum), the form weir's gradient takes.

Run: ~/.cache/weir-bench/venv/bin/python make_resource_gather_grad.py

Each case: {"name", "kind", ...inputs as tensors..., "grad_ys", "grads": {input: tensor}} or, for
"optimizer" cases, {"optimizer", "learning_rate", "momentum", "ids", "weights", "init",
"steps": [variable value after each step]}. A tensor is {"dtype", "dims", "values"} with floats
as bit patterns.
"""

import json
import os

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.RandomState(5)
CASES = []


def spec(t):
    a = np.asarray(t)
    if a.dtype == np.float32:
        vals = a.view(np.uint32).ravel().tolist()
    elif a.dtype == np.float64:
        vals = a.view(np.uint64).ravel().tolist()
    else:
        vals = [int(x) for x in a.ravel().tolist()]
    return {"dtype": a.dtype.name, "dims": list(a.shape), "values": vals}


def rand(shape, dtype):
    return np.asarray(rng.randn(*shape)).astype(dtype)


def dense(g):
    return tf.convert_to_tensor(g)


def gather_case(name, kind, params, idx, mixed=False):
    idx = np.asarray(idx, np.int32)
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(params, use_resource=True, name="v")
        i = tf.constant(idx)
        out = v.sparse_read(i) if kind == "sparse_read" else tf.gather_nd(v, i)
        gy = rand(out.shape.as_list(), params.dtype)
        ys = [out]
        grad_ys = [tf.constant(gy)]
        if mixed:
            ys.append(v.read_value() * 3)
            grad_ys.append(tf.ones_like(v.read_value()))
        (d,) = tf.gradients(ys, [v], grad_ys)
        sparse = isinstance(d, tf.IndexedSlices)
        with tf.Session() as s:
            s.run(v.initializer)
            dv = s.run(dense(d))
    CASES.append({"name": name, "kind": kind, "params": spec(params), "indices": spec(idx),
                  "mixed": mixed, "grad_ys": spec(gy), "tf_indexed_slices": sparse,
                  "grads": {"params": spec(dv)}})


def scatter_case(name, op, x, idx, upd):
    idx = np.asarray(idx, np.int32)
    g = tf.Graph()
    with g.as_default():
        xt, ut = tf.constant(x), tf.constant(upd)
        f = tf.tensor_scatter_nd_max if op == "max" else tf.tensor_scatter_nd_min
        out = f(xt, tf.constant(idx), ut)
        gy = rand(list(x.shape), x.dtype)
        dx, du = tf.gradients([out], [xt, ut], [tf.constant(gy)])
        with tf.Session() as s:
            dx, du = s.run([dx, du])
    CASES.append({"name": name, "kind": "tensor_scatter", "op": op, "tensor": spec(x),
                  "indices": spec(idx), "updates": spec(upd), "grad_ys": spec(gy),
                  "grads": {"tensor": spec(dx), "updates": spec(du)}})


def optimizer_case(name, optimizer, init, ids, weights, steps=3, lr=0.5, momentum=0.5):
    ids = np.asarray(ids, np.int32)
    g = tf.Graph()
    with g.as_default():
        v = tf.get_variable("emb", initializer=init, use_resource=True)
        rows = tf.nn.embedding_lookup(v, tf.constant(ids))
        loss = tf.reduce_sum(rows * tf.constant(weights))
        if optimizer == "gd":
            opt = tf.train.GradientDescentOptimizer(lr)
        else:
            opt = tf.train.MomentumOptimizer(lr, momentum)
        train = opt.minimize(loss)
        values = []
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for _ in range(steps):
                s.run(train)
                values.append(spec(s.run(v.read_value())))
    CASES.append({"name": name, "kind": "optimizer", "optimizer": optimizer,
                  "learning_rate": lr, "momentum": momentum, "init": spec(init),
                  "ids": spec(ids), "weights": spec(weights), "steps": values})


for dt in (np.float32, np.float64):
    n = np.dtype(dt).name
    gather_case("sparse_read_%s" % n, "sparse_read", rand([5, 3], dt), [4, 0, 4, 2])
    gather_case("sparse_read_matrix_%s" % n, "sparse_read", rand([4, 2, 2], dt),
                [[1, 3, 1], [0, 0, 2]])
    gather_case("gather_nd_rows_%s" % n, "gather_nd", rand([4, 3], dt), [[3], [1], [3]])
    gather_case("gather_nd_elements_%s" % n, "gather_nd", rand([4, 3], dt),
                [[3, 2], [1, 0], [3, 2]])
    for op in ("max", "min"):
        x = rand([5, 2], dt)
        upd = rand([3, 2], dt)
        # Ties: an update equal to the current value, and a repeated index whose updates tie.
        upd[0, 0] = x[4, 0]
        upd[2, 1] = upd[0, 1]
        scatter_case("tensor_scatter_%s_%s" % (op, n), op, x, [[4], [0], [4]], upd)
        scatter_case("tensor_scatter_%s_elements_%s" % (op, n), op, rand([3, 3], dt),
                     [[0, 2], [2, 1]], rand([2], dt))
gather_case("sparse_read_scalar_idx", "sparse_read", rand([3, 2], np.float32), 2)
gather_case("sparse_read_mixed_with_dense_read", "sparse_read", rand([4, 2], np.float32),
            [1, 1, 3], mixed=True)
gather_case("gather_nd_partial_3d", "gather_nd", rand([2, 3, 2], np.float64), [[1, 2], [0, 1]])

init = (np.arange(12, dtype=np.float32).reshape(6, 2) / 4 - 1).astype(np.float32)
w = (np.array([[1, -2], [0.5, 0.25], [-1, 1], [2, 0.5]], np.float32))
optimizer_case("gd_embedding", "gd", init, [3, 0, 3, 5], w)
optimizer_case("momentum_embedding", "momentum", init, [3, 0, 3, 5], w)
optimizer_case("gd_embedding_f64", "gd", init.astype(np.float64), [1, 1, 1, 4],
               w.astype(np.float64), lr=0.1)

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump(CASES, f, indent=1)
print(len(CASES), "cases")
