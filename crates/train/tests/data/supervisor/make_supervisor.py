"""Records what TensorFlow 2.21's tf.compat.v1.train.Supervisor and SessionManager do, for
crates/train/tests/integration/supervisor.rs. Run with the bench venv's python:

    $HOME/.cache/weir-bench/venv/bin/python make_supervisor.py

Timer-driven events race with the training loop, so the file records kinds and counts, not
the order of the service threads' events.
"""
import glob
import json
import os
import shutil
import tempfile

import tensorflow.compat.v1 as tf
from tensorflow.core.util import event_pb2

tf.disable_eager_execution()
tf.disable_resource_variables()

STATUS = {1: "START", 2: "STOP", 3: "CHECKPOINT"}


def event_kinds(path):
    out = []
    for r in tf.io.tf_record_iterator(path):
        e = event_pb2.Event.FromString(r)
        what = e.WhichOneof("what")
        if what == "summary":
            out.append({"kind": "summary", "tags": [v.tag for v in e.summary.value], "step": e.step})
        elif what == "session_log":
            out.append({"kind": STATUS[e.session_log.status], "step": e.step,
                        "path": os.path.basename(e.session_log.checkpoint_path)})
        else:
            out.append({"kind": what, "step": e.step})
    return out


def error(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001
        return {"type": type(e).__name__, "message": str(e)}
    return None


def model():
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(1.0, name="w")
    tf.summary.scalar("w", w)
    train = tf.group(tf.assign_add(w, 1.0), tf.assign_add(gs, 1), name="train")
    return gs, w, train


out = {}
root = tempfile.mkdtemp()
logdir = os.path.join(root, "log")

g = tf.Graph()
with g.as_default():
    gs, w, train = model()
    sv = tf.train.Supervisor(logdir=logdir)
    out["defaults"] = {
        "finalized": g.finalized,
        "init_op": sv.init_op.name,
        "ready_op": sv.ready_op.name,
        "ready_for_local_init_op": sv.ready_for_local_init_op,
        "local_init_op": sv.session_manager._local_init_op.name,
        "local_init_inputs": [i.name for i in sv.session_manager._local_init_op.control_inputs],
        "summary_op": sv.summary_op.name,
        "global_step": sv.global_step.name,
        "save_path": os.path.basename(sv.save_path),
        "save_summaries_secs": sv.save_summaries_secs,
        "save_model_secs": sv.save_model_secs,
        "collections": sorted(g.get_all_collection_keys()),
        "add_op_after": error(lambda: tf.constant(1.0)),
    }
    with sv.managed_session() as sess:
        for _ in range(5):
            sess.run(train)
        saved = sv.saver.save(sess, sv.save_path, global_step=sv.global_step)
        out["defaults"]["w"] = float(sess.run(w))
        out["defaults"]["saved"] = os.path.basename(saved)
    files = sorted(os.listdir(logdir))
    out["defaults"]["files"] = [f for f in files if not f.startswith("events.out")]
    events = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    out["defaults"]["event_files"] = len(events)
    out["defaults"]["events"] = event_kinds(events[0])

g = tf.Graph()
with g.as_default():
    gs, w, train = model()
    sv = tf.train.Supervisor(logdir=logdir, save_model_secs=0, save_summaries_secs=0)
    with sv.managed_session() as sess:
        out["restore"] = {"w": float(sess.run(w)), "global_step": int(sess.run(gs))}
    events = sorted(glob.glob(os.path.join(logdir, "events.out.tfevents.*")), key=os.path.getmtime)
    out["restore"]["event_files"] = len(events)
    out["restore"]["events"] = event_kinds(events[-1])

errors = {}
g = tf.Graph()
with g.as_default():
    tf.Variable(1.0, name="v")
    sv = tf.train.Supervisor(init_op=None, local_init_op=None)
    def run():
        with sv.managed_session():
            pass
    errors["nothing_to_initialize"] = error(run)
g = tf.Graph()
with g.as_default():
    tf.Variable(1.0, name="v")
    sv = tf.train.Supervisor(init_op=tf.no_op())
    def run():
        with sv.managed_session():
            pass
    errors["not_ready"] = error(run)
    errors["summary_computed_without_writer"] = error(
        lambda: sv.summary_computed(None, b""))
g = tf.Graph()
with g.as_default():
    tf.constant(1.0)
    sv = tf.train.Supervisor(is_chief=False)
    def run():
        with sv.managed_session() as sess:
            sv.start_standard_services(sess)
    errors["standard_services_on_a_non_chief"] = error(run)
g = tf.Graph()
with g.as_default():
    tf.Variable(1.0, name="v")
    errors["non_chief_with_variables"] = error(lambda: tf.train.Supervisor(is_chief=False))
g = tf.Graph()
with g.as_default():
    x = tf.placeholder(tf.float32, name="x")
    sv = tf.train.Supervisor()
    def run():
        with sv.managed_session() as sess:
            sess.run(tf.debugging.check_numerics(x, "bad") if False else x)
    errors["body_error"] = error(run)
out["errors"] = errors

g = tf.Graph()
with g.as_default():
    q = tf.train.string_input_producer(["a", "b", "c"], num_epochs=2, shuffle=False)
    item = q.dequeue()
    sv = tf.train.Supervisor()
    got = []
    with sv.managed_session() as sess:
        while not sv.should_stop():
            got.append(sess.run(item).decode())
    out["pipeline"] = {"items": got, "should_stop": sv.should_stop()}

sm = {}
g = tf.Graph()
with g.as_default():
    v = tf.Variable(2.0, name="v")
    tf.Variable(0.0, name="lv", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    init = tf.global_variables_initializer()
    linit = tf.local_variables_initializer()
    ready = tf.report_uninitialized_variables()
    rfl = tf.report_uninitialized_variables(tf.global_variables())
    m = tf.train.SessionManager(local_init_op=linit, ready_op=ready,
                                ready_for_local_init_op=rfl, recovery_wait_secs=0.1)
    sm["both_checkpoint_args"] = error(lambda: m.prepare_session(
        "", checkpoint_dir="/tmp/x", checkpoint_filename_with_path="/tmp/y"))
    sm["no_init_op"] = error(lambda: m.prepare_session(""))
    sm["wait_deadline"] = error(lambda: m.wait_for_session("", max_wait_secs=0.3))
    ck = os.path.join(root, "ck")
    os.makedirs(ck)
    s = m.prepare_session("", init_op=init)
    saver = tf.train.Saver(max_to_keep=2)
    for i in range(3):
        saver.save(s, os.path.join(ck, "m"), global_step=i)
    saver2 = tf.train.Saver(max_to_keep=2)
    s2, ok = m.recover_session("", saver=saver2, checkpoint_dir=ck)
    saver2.save(s2, os.path.join(ck, "m"), global_step=5)
    sm["recover"] = {"recovered": ok, "v": float(s2.run(v)),
                     "files_after_save": sorted(os.listdir(ck))}
    _, ok = m.recover_session("", saver=saver2, checkpoint_dir=os.path.join(root, "none"))
    sm["recover_without_checkpoint"] = ok
    sm["missing_checkpoint_file"] = error(lambda: m.prepare_session(
        "", saver=saver2, checkpoint_filename_with_path=os.path.join(ck, "m-9")))
out["session_manager"] = sm

shutil.rmtree(root)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json"), "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
    f.write("\n")
