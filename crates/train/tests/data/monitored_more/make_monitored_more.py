"""Records TensorFlow 2.21's session creators, Scaffold defaults and CheckpointSaverListener
calls, for crates/train/tests/integration/monitored_more.rs. Run with the bench venv's python:

    $HOME/.cache/weir-bench/venv/bin/python make_monitored_more.py
"""
import json
import os
import shutil
import tempfile

import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
tf.disable_resource_variables()

out = {}
root = tempfile.mkdtemp()

# Scaffold defaults: collections, names, and a table initialized by the local init op.
g = tf.Graph()
with g.as_default():
    v = tf.Variable(1.0, name="v")
    table = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(["a", "b"], [1, 2]), -1)
    found = table.lookup(tf.constant(["b", "z"]))
    sc = tf.train.Scaffold()
    with tf.train.MonitoredSession(
            session_creator=tf.train.ChiefSessionCreator(scaffold=sc)) as s:
        out["scaffold"] = {
            "lookup": s.run(found).tolist(),
            "v": float(s.run(v)),
            "collections": sorted(k for k in g.get_all_collection_keys()),
            "finalized_inside": g.finalized,
        }
    out["scaffold"]["finalized_after"] = g.finalized

# A CheckpointSaverListener's calls over 5 steps with save_steps=2.
calls = []


class Listener(tf.train.CheckpointSaverListener):

    def begin(self):
        calls.append(["begin"])

    def before_save(self, session, global_step_value):
        calls.append(["before_save", int(global_step_value)])

    def after_save(self, session, global_step_value):
        calls.append(["after_save", int(global_step_value)])
        return global_step_value >= 4

    def end(self, session, global_step_value):
        calls.append(["end", int(global_step_value)])


g = tf.Graph()
with g.as_default():
    gs = tf.train.get_or_create_global_step()
    train = tf.assign_add(gs, 1)
    d = os.path.join(root, "listener")
    hook = tf.train.CheckpointSaverHook(d, save_steps=2, listeners=[Listener()])
    steps = 0
    with tf.train.SingularMonitoredSession(hooks=[hook]) as s:
        while not s.should_stop() and steps < 10:
            s.run(train)
            steps += 1
    out["listener"] = {"calls": calls, "steps_run": steps,
                       "files": sorted(f for f in os.listdir(d) if f.endswith(".index"))}

# A worker waits for a model nobody initializes, then gives up.
g = tf.Graph()
with g.as_default():
    tf.Variable(1.0, name="w")
    try:
        tf.train.MonitoredSession(session_creator=tf.train.WorkerSessionCreator(
            max_wait_secs=0.2))
        out["worker"] = None
    except Exception as e:  # noqa: BLE001
        out["worker"] = {"type": type(e).__name__, "message": str(e)}

# Restoring from checkpoint_filename_with_path.
g = tf.Graph()
with g.as_default():
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(5.0, name="w")
    step = tf.group(tf.assign(w, 7.0), tf.assign_add(gs, 1))
    ck = os.path.join(root, "ck")
    with tf.train.SingularMonitoredSession(
            hooks=[tf.train.CheckpointSaverHook(ck, save_steps=100)], checkpoint_dir=ck) as s:
        s.run(step)
g = tf.Graph()
with g.as_default():
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(5.0, name="w")
    path = os.path.join(root, "ck", "model.ckpt-0")
    out["restore_path_files"] = sorted(os.listdir(os.path.join(root, "ck")))
    with tf.train.SingularMonitoredSession(checkpoint_filename_with_path=path) as s:
        out["restore_path"] = {"w": float(s.raw_session().run(w))}
    with tf.train.SingularMonitoredSession(checkpoint_dir=os.path.join(root, "ck")) as s:
        out["restore_dir"] = {"w": float(s.raw_session().run(w)), "step": int(s.raw_session().run(gs))}

shutil.rmtree(root)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json"), "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
    f.write("\n")
