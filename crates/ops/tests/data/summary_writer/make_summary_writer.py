"""Records TensorFlow 2.21's summary-writer ops for tests/integration/summary_writer.rs.

Each case makes one writer (tf.summary.create_file_writer in a tf.Graph), builds the writes it
lists with tf.summary (TensorBoard's scalar/text, tf.summary.write, write_raw_pb) or the
tf.contrib.summary functions TensorFlow 2 keeps in summary_ops_v2 (scalar, histogram, image,
audio, generic, graph_v1, import_event), runs the listed actions one sess.run at a time, and
stores either every event of every event file (serialized with wall_time zeroed, base64; the
file names with time, host, pid and file id replaced by placeholders) or the error: class,
code and TensorFlow's kernel message.

tf.summary.scalar and tf.summary.text need TensorBoard: pip install --target
~/.cache/weir-bench/tb --no-deps tensorboard==2.21.0 (this script puts that on sys.path).

Run: ~/.cache/weir-bench/venv/bin/python make_summary_writer.py (writes expected.json here).
"""
import base64
import contextlib
import json
import os
import re
import shutil
import socket
import sys
import tempfile

sys.path.append(os.path.expanduser("~/.cache/weir-bench/tb"))

import numpy as np
import tensorflow as tf
from tensorflow.core.framework import summary_pb2
from tensorflow.core.util import event_pb2
from tensorflow.python.ops import gen_summary_ops
from tensorflow.python.ops import summary_ops_v2 as contrib

tf1 = tf.compat.v1
HERE = os.path.dirname(os.path.abspath(__file__))
BITS = {"float16": np.uint16, "float32": np.uint32, "float64": np.uint64}


def b64(b):
    return base64.b64encode(b).decode()


def spec(value, dtype):
    a = np.asarray(value, dtype=object if dtype == "string" else dtype)
    flat = a.reshape(-1)
    if dtype in BITS:
        vals = [int(v) for v in np.asarray(flat, dtype=dtype).view(BITS[dtype])]
    elif dtype == "string":
        vals = [b64(v if isinstance(v, bytes) else v.encode()) for v in flat]
    elif dtype == "bool":
        vals = [bool(v) for v in flat]
    else:
        vals = [int(v) for v in flat]
    return {"dtype": dtype, "dims": list(a.shape), "values": vals}


def tensor(s):
    dt = s["dtype"]
    vals = s["values"]
    if dt in BITS:
        arr = np.array(vals, dtype=BITS[dt]).view(dt)
    elif dt == "string":
        arr = np.array([base64.b64decode(v) for v in vals], dtype=object)
    else:
        arr = np.array(vals, dtype=dt)
    return tf.constant(arr.reshape(s["dims"]), dtype=tf.as_dtype(dt))


def step_of(w):
    st = w.get("step")
    if isinstance(st, dict):
        return tensor(st)
    return st


def build_write(w):
    """The op (or tensor) one write spec makes, under the default writer."""
    fn = w["fn"]
    step = step_of(w)
    scope = w.get("scope")
    if scope:
        with tf.name_scope(scope):
            return build_write({k: v for k, v in w.items() if k != "scope"})
    if fn == "scalar":
        return tf.summary.scalar(w["name"], tensor(w["data"]), step=step, description=w.get("description"))
    if fn == "text":
        return tf.summary.text(w["name"], tensor(w["data"]), step=step, description=w.get("description"))
    if fn == "histogram":
        return tf.summary.histogram(w["name"], tensor(w["data"]), step=step, buckets=w.get("buckets"), description=w.get("description"))
    if fn == "image":
        return tf.summary.image(w["name"], tensor(w["data"]), step=step, max_outputs=w.get("max_outputs", 3), description=w.get("description"))
    if fn == "audio":
        return tf.summary.audio(w["name"], tensor(w["data"]), w["sample_rate"], step=step, max_outputs=w.get("max_outputs", 3), description=w.get("description"))
    if fn == "write":
        md = None
        if "metadata" in w:
            md = summary_pb2.SummaryMetadata()
            md.ParseFromString(base64.b64decode(w["metadata"]))
        return tf.summary.write(w["tag"], tensor(w["data"]), step=step, metadata=md, name=w.get("op_name"))
    if fn == "write_raw_pb":
        return tf.summary.experimental.write_raw_pb(tensor(w["data"]), step=step)
    if fn == "contrib_scalar":
        return contrib.scalar(w["name"], tensor(w["data"]), family=w.get("family"), step=step)
    if fn == "contrib_histogram":
        return contrib.histogram(w["name"], tensor(w["data"]), family=w.get("family"), step=step)
    if fn == "contrib_generic":
        md = None
        if "metadata" in w:
            md = summary_pb2.SummaryMetadata()
            md.ParseFromString(base64.b64decode(w["metadata"]))
        return contrib.generic(w["name"], tensor(w["data"]), metadata=md, family=w.get("family"), step=step)
    if fn == "contrib_image":
        bad = tensor(w["bad_color"]) if "bad_color" in w else None
        return contrib.image(w["name"], tensor(w["data"]), bad_color=bad, max_images=w["max_images"], step=step)
    if fn == "contrib_audio":
        return contrib.audio(w["name"], tensor(w["data"]), w["sample_rate"], w["max_outputs"], step=step)
    if fn == "graph_v1":
        return contrib.graph_v1(tensor(w["data"]), step=step)
    if fn == "import_event":
        return contrib.import_event(tensor(w["data"]))
    raise ValueError(fn)


def kernel_message(msg):
    """The kernel's own message inside a graph-mode session error."""
    m = re.search(r"\nNode: '[^']*'\n(.*?)\n\t \[\[", msg, re.S)
    if m:
        return m.group(1)
    return msg.split("\n\t [[")[0]


def placeholder_name(n):
    host = re.escape(socket.gethostname())
    return re.sub(r"^events\.out\.tfevents\.\d{10}\.%s\.%d\.\d+" % (host, os.getpid()),
                  "events.out.tfevents.<secs>.<host>.<pid>.<id>", n)


def run_case(c):
    root = tempfile.mkdtemp()
    logdir = os.path.join(root, c.get("logdir", "logs"))
    if c.get("block_logdir"):
        open(os.path.join(root, "file"), "w").close()
        logdir = os.path.join(root, "file", "sub")
    out = {k: v for k, v in c.items()}
    g = tf.Graph()
    try:
        with g.as_default():
            wr = c.get("writer", {})
            writer = tf.summary.create_file_writer(
                logdir, max_queue=wr.get("max_queue"), flush_millis=wr.get("flush_millis"),
                filename_suffix=wr.get("filename_suffix"), name=wr.get("name"))
            ops = {"init": writer.init(), "flush": writer.flush(), "close": writer.close()}
            default_step = c.get("default_step")
            # The contrib functions record only inside record_if(True) (always_record_summaries),
            # which every case but those naming record_if (None: no record_if) opens.
            record = c.get("record_if", True)
            recording = contextlib.nullcontext() if record is None else contrib.record_if(record)
            with writer.as_default(step=default_step), recording:
                for i, w in enumerate(c["writes"]):
                    ops["w%d" % i] = build_write(w)
            out["nodes"] = [[op.name, op.type] for op in g.get_operations()
                            if op.type in ("WriteSummary", "WriteScalarSummary", "WriteHistogramSummary",
                                           "WriteImageSummary", "WriteAudioSummary", "WriteRawProtoSummary",
                                           "WriteGraphSummary", "ImportEvent", "SummaryWriter",
                                           "CreateSummaryFileWriter")]
            out["outputs"] = {k: v.name for k, v in ops.items() if hasattr(v, "dtype")}
            with tf1.Session() as sess:
                for i, a in enumerate(c["actions"]):
                    try:
                        v = sess.run(ops[a])
                        if isinstance(v, (bool, np.bool_)):
                            out.setdefault("fetched", {})[a] = bool(v)
                    except tf.errors.OpError as e:
                        msg = kernel_message(e.message).replace(root, "<root>")
                        out["error"] = {"at": i, "class": type(e).__name__, "code": e.error_code, "message": msg}
                        break
    except (ValueError, TypeError) as e:
        out["build_error"] = {"class": type(e).__name__, "message": str(e)}
    files = sorted(os.listdir(logdir)) if os.path.isdir(logdir) else []
    files.sort(key=lambda n: int(n.split(".")[6]) if len(n.split(".")) > 6 and n.split(".")[6].isdigit() else 0)
    out["files"] = []
    for f in files:
        events = []
        for j, e in enumerate(tf1.train.summary_iterator(os.path.join(logdir, f))):
            # import_event writes the event as given, its wall_time too.
            if j not in c.get("keep_wall_time", []):
                e.wall_time = 0
            events.append(b64(e.SerializeToString()))
        out["files"].append({"name": placeholder_name(f), "events": events})
    shutil.rmtree(root)
    return out


def summary_bytes(*values):
    s = summary_pb2.Summary()
    for tag, v in values:
        s.value.add(tag=tag, simple_value=v)
    return s.SerializeToString()


def metadata_bytes():
    m = summary_pb2.SummaryMetadata()
    m.plugin_data.plugin_name = "custom"
    m.plugin_data.content = b"xyz"
    m.display_name = "Shown"
    return m.SerializeToString()


def graph_bytes():
    g = tf.Graph()
    with g.as_default():
        tf.constant([1.0, 2.0], name="c")
    return g.as_graph_def().SerializeToString()


def event_bytes():
    e = event_pb2.Event(wall_time=123.5, step=42)
    e.summary.value.add(tag="imported", simple_value=2.5)
    return e.SerializeToString()


F = "float32"
ALL = ["init"]
CASES = [
    {"name": "v2_scalar", "writes": [
        {"fn": "scalar", "name": "loss", "data": spec(0.5, F), "step": 3, "description": "the loss"},
        {"fn": "scalar", "scope": "sc", "name": "acc", "data": spec(0.25, "float64"), "step": 7},
        {"fn": "scalar", "name": "count", "data": spec(12, "int32"), "step": 1},
        {"fn": "scalar", "name": "loss", "data": spec(-1.5, F), "step": {"dtype": "int64", "dims": [], "values": [9]}},
    ]},
    {"name": "v2_text", "writes": [
        {"fn": "text", "name": "notes", "data": spec("hello", "string"), "step": 2},
        {"fn": "text", "name": "grid", "data": spec([["a", "b"], ["c", "d"]], "string"), "step": 2, "description": "a grid"},
    ]},
    {"name": "v2_histogram", "writes": [
        {"fn": "histogram", "name": "h", "data": spec([1.0, 2.0, 3.0, -0.5, 2.25], F), "step": 1},
        {"fn": "histogram", "scope": "sc", "name": "i", "data": spec([[3, -7], [10, 3]], "int32"), "step": 2, "buckets": 4, "description": "ints"},
        {"fn": "histogram", "name": "same", "data": spec([5.0, 5.0, 5.0], "float64"), "step": 3, "buckets": 3},
        {"fn": "histogram", "name": "empty", "data": spec(np.zeros([0]), F), "step": 4, "buckets": 2},
        {"fn": "histogram", "name": "none", "data": spec([1.0, 2.0], F), "step": 5, "buckets": 0},
        {"fn": "histogram", "name": "one", "data": spec([0.1, 0.7, 0.3], F), "step": 6, "buckets": 1},
        {"fn": "histogram", "name": "many", "data": spec(np.linspace(-3, 7, 101), "float64"), "step": 7, "buckets": 7},
    ]},
    {"name": "v2_image", "writes": [
        {"fn": "image", "name": "u8", "data": spec(np.arange(2 * 2 * 3 * 3).reshape(2, 2, 3, 3) * 7 % 256, "uint8"), "step": 1, "max_outputs": 1},
        {"fn": "image", "name": "f", "data": spec(np.linspace(-0.2, 1.2, 12).reshape(1, 2, 2, 3), F), "step": 2, "description": "floats"},
        {"fn": "image", "name": "gray", "data": spec(np.linspace(0, 1, 8).reshape(2, 2, 2, 1), "float64"), "step": 3},
        {"fn": "image", "name": "none", "data": spec(np.zeros([2, 1, 1, 4]), "uint8"), "step": 4, "max_outputs": 0},
    ]},
    {"name": "v2_audio", "writes": [
        {"fn": "audio", "name": "mono", "data": spec([[[0.0], [0.5], [-0.5], [1.0], [-1.0]], [[0.25]] * 5], F), "sample_rate": 8000, "step": 1, "max_outputs": 1},
        {"fn": "audio", "name": "stereo", "data": spec([[[0.1, -0.1], [0.2, -0.2], [0.3, -0.3], [2.0, -2.0]]], F), "sample_rate": 44100, "step": 2, "description": "two channels"},
        {"fn": "audio", "name": "none", "data": spec(np.zeros([2, 3, 1]), F), "sample_rate": 16000, "step": 3, "max_outputs": 0},
    ]},
    {"name": "v2_write", "writes": [
        {"fn": "write", "tag": "raw", "data": spec([1, 2], "int32"), "step": 5},
        {"fn": "write", "tag": "meta", "data": spec([[1.5, -2.0]], F), "step": 6, "metadata": b64(metadata_bytes())},
        {"fn": "write", "tag": "flags", "data": spec([True, False, True], "bool"), "step": 0},
        {"fn": "write", "tag": "words", "data": spec(["x", "yz"], "string"), "step": -4},
        {"fn": "write", "tag": "half", "data": spec([0.5, 65504.0], "float16"), "step": 8, "op_name": "my_write"},
        {"fn": "write", "tag": "big", "data": spec(2**40, "int64"), "step": 2**35},
    ]},
    {"name": "v2_default_step", "default_step": 11, "writes": [
        {"fn": "scalar", "name": "a", "data": spec(1.0, F)},
        {"fn": "write", "tag": "b", "data": spec([3], "int64")},
    ]},
    {"name": "v2_write_raw_pb", "writes": [
        {"fn": "write_raw_pb", "data": spec([summary_bytes(("p", 1.0)), summary_bytes(("q", 2.0), ("r", 3.0))], "string"), "step": 4},
        {"fn": "write_raw_pb", "data": spec(summary_bytes(("s", -1.0)), "string"), "step": 5},
    ]},
    {"name": "contrib_scalar", "writes": [
        {"fn": "contrib_scalar", "name": "first", "data": spec([9, 4], "int64"), "step": 1},
        {"fn": "contrib_scalar", "name": "x", "data": spec(0.125, "float64"), "family": "fam", "step": 2},
        {"fn": "contrib_scalar", "name": "h", "data": spec(1.5, "float16"), "step": 3},
        {"fn": "contrib_scalar", "name": "u", "data": spec(7, "uint8"), "step": 4},
    ]},
    {"name": "contrib_histogram", "writes": [
        {"fn": "contrib_histogram", "name": "f", "data": spec([-1.0, 0.0, 0.5, 2.0, 2.0, 1e-13], F), "step": 1},
        {"fn": "contrib_histogram", "name": "i", "data": spec([[3, -7], [100000, 3]], "int32"), "step": 2},
        {"fn": "contrib_histogram", "name": "b", "data": spec([True, False, True], "bool"), "step": 3},
        {"fn": "contrib_histogram", "name": "e", "data": spec(np.zeros([0]), F), "step": 4},
        {"fn": "contrib_histogram", "name": "d", "data": spec([1e300, -1e-300, 3.25], "float64"), "step": 5},
    ]},
    {"name": "contrib_generic", "writes": [
        {"fn": "contrib_generic", "name": "g", "data": spec([[1, 2, 3]], "int16"), "step": 1},
        {"fn": "contrib_generic", "name": "m", "data": spec("s", "string"), "metadata": b64(metadata_bytes()), "family": "fam", "step": 2},
    ]},
    {"name": "contrib_image", "writes": [
        {"fn": "contrib_image", "name": "u8", "data": spec(np.arange(2 * 2 * 3 * 3).reshape(2, 2, 3, 3) * 7 % 256, "uint8"), "max_images": 3, "step": 1},
        {"fn": "contrib_image", "name": "f", "data": spec([[[[0.5, -1.0, 2.0], [float("nan"), 0.0, 1.0]]], [[[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]]], F), "max_images": 1, "step": 2},
        {"fn": "contrib_image", "name": "gray", "data": spec(np.linspace(0, 3, 8).reshape(2, 2, 2, 1), "float64"), "max_images": 2, "step": 3},
        {"fn": "contrib_image", "name": "bad", "data": spec([[[[float("inf"), 0.25, 0.5, 1.0]]]], F), "bad_color": spec([0, 255, 0, 128], "uint8"), "max_images": 3, "step": 4},
        {"fn": "contrib_image", "name": "half", "data": spec([[[[0.1], [0.7]], [[-0.3], [0.2]]]], "float16"), "max_images": 3, "step": 5},
    ]},
    {"name": "contrib_audio", "writes": [
        {"fn": "contrib_audio", "name": "mono", "data": spec([[0.0, 0.5, -0.5, 1.0, -1.0], [0.25] * 5], F), "sample_rate": 8000.0, "max_outputs": 1, "step": 1},
        {"fn": "contrib_audio", "name": "stereo", "data": spec([[[0.1, -0.1], [0.2, -0.2], [0.3, -0.3], [2.0, -2.0]]], F), "sample_rate": 22050.5, "max_outputs": 3, "step": 2},
    ]},
    {"name": "graph_and_import", "writes": [
        {"fn": "graph_v1", "data": spec(graph_bytes(), "string"), "step": 0},
        {"fn": "import_event", "data": spec(event_bytes(), "string")},
    ], "keep_wall_time": [2]},
    {"name": "writer_options", "writer": {"max_queue": 1, "flush_millis": 50, "filename_suffix": "custom", "name": "my_writer"},
     "writes": [{"fn": "write", "tag": "t", "data": spec(1, "int32"), "step": 1}]},
    {"name": "contrib_default_not_recording", "record_if": None, "writes": [
        {"fn": "contrib_scalar", "name": "s", "data": spec(1.0, F), "step": 1},
        {"fn": "scalar", "name": "v", "data": spec(2.0, F), "step": 2},
    ]},
    {"name": "never_record", "record_if": False, "writes": [
        {"fn": "scalar", "name": "v", "data": spec(2.0, F)},
        {"fn": "contrib_histogram", "name": "h", "data": spec([1.0], F), "step": 1},
    ]},
    {"name": "reopen", "writes": [{"fn": "write", "tag": "t", "data": spec(1, "int32"), "step": 1}],
     "actions": ["init", "w0", "init", "close", "init", "w0", "flush", "close"]},
    {"name": "empty_suffix", "writer": {"filename_suffix": ""}, "writes": [], "actions": ["init", "close"]},
    # Errors.
    {"name": "write_before_init", "writes": [{"fn": "scalar", "name": "loss", "data": spec(0.5, F), "step": 1}],
     "actions": ["w0"]},
    {"name": "flush_before_init", "writes": [], "actions": ["flush"]},
    {"name": "write_after_close", "writes": [{"fn": "scalar", "name": "loss", "data": spec(0.5, F), "step": 1}],
     "actions": ["init", "close", "w0"]},
    {"name": "close_twice", "writes": [], "actions": ["init", "close", "close"]},
    {"name": "histogram_nan", "writes": [{"fn": "contrib_histogram", "name": "h", "data": spec([1.0, float("nan")], F), "step": 1}]},
    {"name": "histogram_inf", "writes": [{"fn": "contrib_histogram", "name": "h", "data": spec([float("-inf")], "float64"), "step": 1}]},
    {"name": "image_bad_rank", "writes": [{"fn": "contrib_image", "name": "i", "data": spec(np.zeros([2, 3]), F), "max_images": 3, "step": 1}]},
    {"name": "image_bad_depth", "writes": [{"fn": "contrib_image", "name": "i", "data": spec(np.zeros([1, 2, 2, 2]), "uint8"), "max_images": 3, "step": 1}]},
    {"name": "image_scalar_bad_color", "writes": [{"fn": "contrib_image", "name": "i", "data": spec(np.zeros([1, 1, 1, 3]), F), "bad_color": spec(255, "uint8"), "max_images": 3, "step": 1}]},
    {"name": "image_short_bad_color", "writes": [{"fn": "contrib_image", "name": "i", "data": spec(np.zeros([1, 1, 1, 3]), F), "bad_color": spec([255], "uint8"), "max_images": 3, "step": 1}]},
    {"name": "audio_zero_rate", "writes": [{"fn": "contrib_audio", "name": "a", "data": spec(np.zeros([1, 3]), F), "sample_rate": 0.0, "max_outputs": 3, "step": 1}]},
    {"name": "raw_pb_bad_proto", "writes": [{"fn": "write_raw_pb", "data": spec([summary_bytes(("p", 1.0)), b"\xff\xff"], "string"), "step": 1}]},
    {"name": "import_bad_event", "writes": [{"fn": "import_event", "data": spec(b"\x0a", "string")}]},
    {"name": "graph_bad_proto", "writes": [{"fn": "graph_v1", "data": spec(b"\xff", "string"), "step": 1}]},
    {"name": "logdir_under_file", "block_logdir": True, "writes": [], "actions": ["init"]},
    {"name": "step_int32", "writes": [{"fn": "write", "tag": "t", "data": spec(1, "int32"), "step": {"dtype": "int32", "dims": [], "values": [1]}}]},
    {"name": "step_vector", "writes": [{"fn": "write", "tag": "t", "data": spec(1, "int32"), "step": {"dtype": "int64", "dims": [2], "values": [1, 2]}}]},
    {"name": "no_step", "writes": [{"fn": "scalar", "name": "t", "data": spec(1.0, F)}]},
    {"name": "scalar_of_vector", "writes": [{"fn": "scalar", "name": "t", "data": spec([1.0, 2.0], F), "step": 1}]},
]


def main():
    out = []
    for c in CASES:
        c = dict(c)
        c.setdefault("actions", ["init"] + ["w%d" % i for i in range(len(c["writes"]))] + ["close"])
        out.append(run_case(c))
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(len(out), "cases")


if __name__ == "__main__":
    main()
