"""Records TensorFlow 2.21's session handles (tf.compat.v1 graph mode) for
tests/integration/session_handles.rs: get_session_handle / GetSessionHandleV2,
get_session_tensor, delete_session_tensor and Python's TensorHandle, in sequences of runs.

Each scenario is a list of steps run in order on one graph (and one session unless said);
each step records its value ({"value": tensor}), or its error ({"error": class, "message":
the op's own message, without the "Graph execution error" wrapper and node suffix}).
The Rust test replays the same steps with the same names.

Run with the weir-bench venv:  python make_session_handles.py  (writes expected.json here)."""
import json
import os
import re
import sys

import numpy as np
import tensorflow.compat.v1 as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tensor_json import encode  # noqa: E402

tf.disable_eager_execution()


def core_message(e):
    """The op's message: TF's session wraps it as 'Graph execution error:\\n\\n[Detected at
    node ... Node: 'x'\\n]<message>[\\n\\t [[{{node x}}]]]'."""
    m = e.message if hasattr(e, "message") else str(e)
    m = m.split("Graph execution error:\n\n", 1)[-1]
    node_line = re.search(r"\nNode: '[^']*'\n", m)
    if node_line:
        m = m[node_line.end():]
    m = re.sub(r"\n\t \[\[\{\{node [^}]*\}\}\]\]$", "", m)
    return m


def step(fn):
    try:
        v = fn()
    except Exception as e:  # recorded, not raised
        return {"error": type(e).__name__, "message": core_message(e)}
    if v is None:
        return {"value": None}
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        return {"value": v}
    if isinstance(v, (bytes, str)):
        return {"value": v.decode() if isinstance(v, bytes) else v}
    if hasattr(v, "handle"):
        return {"value": v.handle}
    return {"value": encode(np.asarray(v))}


def basic():
    """Fetch a handle, feed it back, eval, delete, use after delete, delete twice."""
    g = tf.Graph()
    with g.as_default():
        c = tf.multiply(tf.constant(10.0), tf.constant(5.0))
        h = tf.get_session_handle(c)
        sess = tf.Session(graph=g)
        steps = []
        th = sess.run(h)
        steps.append(step(lambda: th))
        p, a = tf.get_session_tensor(th.handle, tf.float32)
        b = tf.multiply(a, 10.0)
        steps.append(step(lambda: sess.run(b, feed_dict={p: th.handle})))
        # Reading does not consume the kept tensor.
        steps.append(step(lambda: sess.run(b, feed_dict={p: th.handle})))
        steps.append(step(lambda: th.eval()))
        steps.append(step(lambda: th.delete()))
        steps.append(step(lambda: sess.run(b, feed_dict={p: th.handle})))
        steps.append(step(lambda: th.eval()))
        steps.append(step(lambda: th.delete()))
        dp, d = tf.delete_session_tensor(th.handle)
        steps.append(step(lambda: sess.run(d, feed_dict={dp: th.handle})))
        names = [h.name, p.name, a.name, dp.name, d.name, str(a.shape), str(h.shape)]
        sess.close()
    return {"steps": steps, "names": names}


def ids():
    """Handle ids count up per session, across handle ops; a new session starts at 0."""
    g = tf.Graph()
    with g.as_default():
        x = tf.constant([1, 2, 3])
        h = tf.get_session_handle(x)
        h1 = tf.get_session_handle(x * 2, name="doubled")
        steps = []
        with tf.Session(graph=g) as sess:
            steps.append(step(lambda: sess.run(h).get_raw_handle()))
            steps.append(step(lambda: sess.run(h).get_raw_handle()))
            steps.append(step(lambda: sess.run(h1).get_raw_handle()))
            p, t = tf.get_session_tensor("doubled;2;", tf.int32)
            steps.append(step(lambda: sess.run(t, feed_dict={p: "doubled;2;/job:localhost/replica:0/task:0/device:CPU:0"})))
            steps.append(step(lambda: sess.run(t, feed_dict={p: "GetSessionHandle;0;/job:localhost/replica:0/task:0/device:CPU:0"})))
        with tf.Session(graph=g) as sess2:
            steps.append(step(lambda: sess2.run(h1).get_raw_handle()))
            # The first session's handle is not in this one.
            steps.append(step(lambda: sess2.run(t, feed_dict={p: "GetSessionHandle;0;/job:localhost/replica:0/task:0/device:CPU:0"})))
    return {"steps": steps, "names": [h1.name, t.name]}


def not_kept():
    """A failed run keeps nothing (its id is used), nor does a run that fetches only a value
    computed from the handle."""
    g = tf.Graph()
    with g.as_default():
        x = tf.constant([[1.5, -2.0]])
        h = tf.get_session_handle(x)
        p, t = tf.get_session_tensor("GetSessionHandle;0;", tf.float32)
        with tf.control_dependencies([h.op]):
            fails = tf.raw_ops.GetSessionTensor(handle=tf.constant("nope"), dtype=tf.float32)
        z = tf.identity(h)
        dev = ";/job:localhost/replica:0/task:0/device:CPU:0"
        steps = []
        with tf.Session(graph=g) as sess:
            steps.append(step(lambda: sess.run([h, fails])))
            steps.append(step(lambda: sess.run(t, feed_dict={p: "GetSessionHandle;0" + dev})))
            steps.append(step(lambda: sess.run(z)))
            steps.append(step(lambda: sess.run(t, feed_dict={p: "GetSessionHandle;1" + dev})))
            steps.append(step(lambda: sess.run(h).get_raw_handle()))
            steps.append(step(lambda: sess.run(t, feed_dict={p: "GetSessionHandle;2" + dev})))
    return {"steps": steps}


def wrong_dtype_and_missing():
    """Reading with another dtype, a handle that never existed, several dtypes kept, Python's
    check of the device part of a handle."""
    g = tf.Graph()
    with g.as_default():
        f = tf.get_session_handle(tf.constant([1.0, 2.0]), name="f")
        s = tf.get_session_handle(tf.constant(["a", "bc"]), name="s")
        bo = tf.get_session_handle(tf.constant([[True], [False]]), name="b")
        raw = tf.placeholder(tf.string, name="raw")
        read_raw = tf.raw_ops.GetSessionTensor(handle=raw, dtype=tf.float32)
        dev = ";/job:localhost/replica:0/task:0/device:CPU:0"
        steps = []
        with tf.Session(graph=g) as sess:
            for op in (f, s, bo):
                steps.append(step(lambda: sess.run(op).get_raw_handle()))
            pi, ti = tf.get_session_tensor("f;0" + dev, tf.int32, name="as_int")
            steps.append(step(lambda: sess.run(ti, feed_dict={pi: "f;0" + dev})))
            ps, ts = tf.get_session_tensor("s;1" + dev, tf.string)
            steps.append(step(lambda: [v.decode() for v in sess.run(ts, feed_dict={ps: "s;1" + dev})]))
            pb, tb = tf.get_session_tensor("b;2" + dev, tf.bool)
            steps.append(step(lambda: sess.run(tb, feed_dict={pb: "b;2" + dev})))
            steps.append(step(lambda: sess.run(read_raw, feed_dict={raw: "garbage"})))
            steps.append(step(lambda: sess.run(read_raw, feed_dict={raw: "f;0" + dev})))
            steps.append(step(lambda: tf.delete_session_tensor("s;1;x", name="free")))
            steps.append(step(lambda: tf.get_session_tensor("s;1;/job:a/cpu:0/zz:1", tf.string)))
            dp, d = tf.delete_session_tensor("s;1" + dev, name="free")
            steps.append(step(lambda: sess.run(d, feed_dict={dp: "s;1" + dev})))
            steps.append(step(lambda: sess.run(ts, feed_dict={ps: "s;1" + dev})))
            steps.append(step(lambda: sess.run(d, feed_dict={dp: "s;1" + dev})))
        names = [ti.name, ts.name, d.name, dp.name]
    return {"steps": steps, "names": names}


def v2():
    """GetSessionHandleV2's handle is a scalar resource; its tensor is kept under the handle
    string the V1 op would give."""
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(7, dtype=tf.int64)
        hv = tf.raw_ops.GetSessionHandleV2(value=c)
        h = tf.get_session_handle(c)
        dev = ";/job:localhost/replica:0/task:0/device:CPU:0"
        p, t = tf.get_session_tensor("GetSessionHandleV2;0" + dev, tf.int64)
        steps = []
        with tf.Session(graph=g) as sess:
            sess.run(hv)
            steps.append(step(lambda: sess.run(t, feed_dict={p: "GetSessionHandleV2;0" + dev})))
            steps.append(step(lambda: sess.run(h).get_raw_handle()))
        info = {"dtype": hv.dtype.name, "shape": str(hv.shape), "name": hv.name}
    return {"steps": steps, "info": info}


if __name__ == "__main__":
    out = {
        "tf_version": tf.__version__,
        "basic": basic(),
        "ids": ids(),
        "not_kept": not_kept(),
        "wrong_dtype_and_missing": wrong_dtype_and_missing(),
        "v2": v2(),
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")
    with open(path, "w") as fh:
        json.dump(out, fh, indent=1)
        fh.write("\n")
