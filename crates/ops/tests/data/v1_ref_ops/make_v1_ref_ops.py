"""Records what TensorFlow 2.21 gives for GraphDefs holding TensorFlow 1.0's ref-handle queue and
reader ops (FIFOQueue, QueueEnqueue, TextLineReader, ReaderRead, ...), which weir registers as
aliases of the V2 ops, and its `Variable` op, which weir's import renames to VariableV2. Each graph is built with the V2 ops, its op types are renamed to the V1
ones and its producer version set to 21 (the readers were deprecated at 26), then TensorFlow
imports that GraphDef into a fresh graph and runs the steps. Writes expected.json."""
import base64
import json
import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tensor_json import encode  # noqa: E402

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))

V1 = {
    "FIFOQueueV2", "PaddingFIFOQueueV2", "RandomShuffleQueueV2", "PriorityQueueV2",
    "QueueEnqueueV2", "QueueEnqueueManyV2", "QueueDequeueV2", "QueueDequeueManyV2",
    "QueueDequeueUpToV2", "QueueCloseV2", "QueueSizeV2", "QueueIsClosedV2",
    "TextLineReaderV2", "FixedLengthRecordReaderV2", "TFRecordReaderV2", "WholeFileReaderV2",
    "IdentityReaderV2", "ReaderReadV2", "ReaderReadUpToV2", "ReaderNumRecordsProducedV2",
    "ReaderNumWorkUnitsCompletedV2", "ReaderSerializeStateV2", "ReaderRestoreStateV2",
    "ReaderResetV2", "VariableV2",
}

# The data files, written here once and kept beside the script.
FILES = {
    "lines.txt": b"header\nalpha\r\nbeta\n\ngamma",
    "more.txt": b"h2\none\ntwo\n",
    "fixed.bin": bytes(range(1, 15)),
}


def write_files():
    for n, b in FILES.items():
        with open(os.path.join(HERE, n), "wb") as f:
            f.write(b)
    with tf.io.TFRecordWriter(os.path.join(HERE, "records.tfrecord")) as w:
        for r in [b"first", b"", b"third record"]:
            w.write(r)


def v1_graph_def(g):
    d = g.as_graph_def()
    for n in d.node:
        if n.op in V1:
            n.op = n.op[:-2]
            if n.op == "FixedLengthRecordReader":
                del n.attr["encoding"]
    d.versions.producer = 21
    return d


def err_message(e):
    """TensorFlow's own message, without the traceback or the `[[{{node ...}}]]` suffix."""
    msg = e.message
    if "\nNode: '" in msg:
        msg = msg.split("\nNode: '", 1)[1].split("\n", 1)[1]
    msg = msg.split("\n\t [[")[0].split(" for '{{node ")[0]
    if msg.startswith("Graph execution error:"):
        msg = msg[len("Graph execution error:"):]
    return msg.strip().replace(HERE, "{DIR}")


def run_steps(d, steps, feeds):
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(d, name="")
    out = []
    with tf.Session(graph=g) as s:
        for st in steps:
            fetch = [g.get_tensor_by_name(t) for t in st.get("fetch", [])]
            targets = [g.get_operation_by_name(t) for t in st.get("targets", [])]
            fd = {g.get_tensor_by_name(k): [os.path.join(HERE, f) for f in v]
                  for k, v in feeds.items()}
            try:
                vals = s.run(fetch + targets, feed_dict=fd,
                             options=tf.RunOptions(timeout_in_ms=10000))[: len(fetch)]
                out.append({"outputs": [enc(v) for v in vals]})
            except tf.errors.OpError as e:
                out.append({"error": {"type": type(e).__name__, "message": err_message(e)}})
    return out


def record(name, build, steps, feeds=None):
    """Runs the steps on the V1 GraphDef and, for comparison, on the V2 one it came from."""
    g = tf.Graph()
    with g.as_default():
        build()
    feeds = feeds or {}
    d = v1_graph_def(g)
    v1 = run_steps(d, steps, feeds)
    v2 = run_steps(g.as_graph_def(), steps, feeds)
    CASES.append({
        "name": name,
        "v1_ops": sorted({n.op for n in d.node} & {o[:-2] for o in V1}),
        "graph_def": base64.b64encode(d.SerializeToString()).decode(),
        "feeds": feeds,
        "steps": [dict(st, v1=a, v2=b) for st, a, b in zip(steps, v1, v2)],
    })


def enc(v):
    """A tensor as JSON; strings as text, with this directory written `{DIR}` (keys hold the
    files' paths, and the test's checkout is elsewhere)."""
    if isinstance(v, (bytes, np.bytes_)) or (isinstance(v, np.ndarray) and v.dtype.kind in "OS"):
        a = np.asarray(v, dtype=object)
        return {"dtype": "string", "shape": list(a.shape),
                "values": [x.decode("latin-1").replace(HERE, "{DIR}") for x in a.reshape(-1)]}
    return encode(v)


CASES = []


def queue_basics():
    q = tf.FIFOQueue(10, [tf.int64, tf.float32], shapes=[[], [2]], name="q")
    q.enqueue_many([tf.range(5, dtype=tf.int64),
                    tf.reshape(tf.range(10, dtype=tf.float32), [5, 2])], name="put_many")
    q.enqueue([tf.constant(9, tf.int64), tf.constant([0.5, 1.5])], name="put")
    q.dequeue_many(3, name="take3")
    q.dequeue_up_to(4, name="take_up_to")
    q.dequeue(name="take")
    q.size(name="size")
    q.close(name="close")
    q.is_closed(name="is_closed")


def other_queues():
    p = tf.PaddingFIFOQueue(10, [tf.int32], shapes=[[None]], name="pad")
    p.enqueue([tf.constant([1, 2, 3])], name="pad_put3")
    p.enqueue([tf.constant([4])], name="pad_put1")
    p.dequeue_many(2, name="pad_take")
    r = tf.RandomShuffleQueue(20, 0, [tf.int32], shapes=[[]], seed=7, name="shuf")
    r.enqueue_many([tf.range(8)], name="shuf_put")
    r.dequeue_many(8, name="shuf_take")
    pq = tf.PriorityQueue(10, [tf.string], shapes=[[]], name="prio")
    pq.enqueue_many([tf.constant([3, 1, 2], tf.int64), tf.constant([b"c", b"a", b"b"])],
                    name="prio_put")
    pq.dequeue_many(3, name="prio_take")


def readers():
    files = tf.placeholder(tf.string, [None], name="files")
    fq = tf.FIFOQueue(10, [tf.string], shapes=[[]], name="filenames")
    fq.enqueue_many([files], name="add_files")
    fq.close(name="no_more_files")
    r = tf.TextLineReader(skip_header_lines=1, name="lines")
    r.read(fq, name="read")
    r.read_up_to(fq, 3, name="read_up_to")
    r.num_records_produced(name="produced")
    r.num_work_units_completed(name="completed")
    r.serialize_state(name="state")
    r.reset(name="reset")


def other_readers():
    files = tf.placeholder(tf.string, [None], name="files")
    fq = tf.FIFOQueue(10, [tf.string], shapes=[[]], name="filenames")
    fq.enqueue_many([files], name="add_files")
    fq.close(name="no_more_files")
    tf.FixedLengthRecordReader(3, header_bytes=1, footer_bytes=2, name="fixed").read_up_to(
        fq, 10, name="fixed_read")


def tfrecord_reader():
    files = tf.placeholder(tf.string, [None], name="files")
    fq = tf.FIFOQueue(10, [tf.string], shapes=[[]], name="filenames")
    fq.enqueue_many([files], name="add_files")
    fq.close(name="no_more_files")
    tf.TFRecordReader(name="records").read_up_to(fq, 10, name="records_read")


def whole_and_identity():
    files = tf.placeholder(tf.string, [None], name="files")
    fq = tf.FIFOQueue(10, [tf.string], shapes=[[]], name="filenames")
    fq.enqueue_many([files], name="add_files")
    fq.close(name="no_more_files")
    tf.WholeFileReader(name="whole").read(fq, name="whole_read")
    w = tf.FIFOQueue(10, [tf.string], shapes=[[]], name="work")
    w.enqueue_many([tf.constant([b"k1", b"k2"])], name="add_work")
    w.close(name="no_more_work")
    tf.IdentityReader(name="ident").read(w, name="ident_read")


def variable_v1():
    v = tf.Variable(3.0, use_resource=False, name="v")
    v.assign_add(2.0, name="bump")
    tf.identity(v * 10.0, name="scaled")


def main():
    write_files()
    record("queue_basics", queue_basics, [
        {"targets": ["put_many"]},
        {"targets": ["put"]},
        {"fetch": ["size:0"]},
        {"fetch": ["take3:0", "take3:1"]},
        {"fetch": ["is_closed:0"]},
        {"targets": ["close"]},
        {"fetch": ["take_up_to:0", "take_up_to:1"]},
        {"fetch": ["is_closed:0", "size:0"]},
        {"fetch": ["take:0", "take:1"]},
        {"targets": ["put"]},
    ])
    record("other_queues", other_queues, [
        {"targets": ["pad_put3"]},
        {"targets": ["pad_put1"]},
        {"fetch": ["pad_take:0"]},
        {"targets": ["shuf_put"]},
        {"fetch": ["shuf_take:0"]},
        {"targets": ["prio_put"]},
        {"fetch": ["prio_take:0", "prio_take:1"]},
    ])
    record("text_line_reader", readers, [
        {"targets": ["add_files"]},
        {"targets": ["no_more_files"]},
        {"fetch": ["read:0", "read:1"]},
        {"fetch": ["read_up_to:0", "read_up_to:1"]},
        {"fetch": ["produced:0", "completed:0"]},
        {"fetch": ["read:0", "read:1"]},
        {"fetch": ["read_up_to:0", "read_up_to:1"]},
        {"fetch": ["read:0", "read:1"]},
        {"fetch": ["produced:0", "completed:0"]},
        {"targets": ["reset"]},
        {"fetch": ["produced:0", "completed:0"]},
    ], feeds={"files:0": ["lines.txt", "more.txt"]})
    record("fixed_length_reader", other_readers, [
        {"targets": ["add_files"]},
        {"targets": ["no_more_files"]},
        {"fetch": ["fixed_read:0", "fixed_read:1"]},
        {"fetch": ["fixed_read:0", "fixed_read:1"]},
    ], feeds={"files:0": ["fixed.bin"]})
    record("tfrecord_reader", tfrecord_reader, [
        {"targets": ["add_files"]},
        {"targets": ["no_more_files"]},
        {"fetch": ["records_read:0", "records_read:1"]},
        {"fetch": ["records_read:0", "records_read:1"]},
    ], feeds={"files:0": ["records.tfrecord"]})
    record("whole_file_and_identity_readers", whole_and_identity, [
        {"targets": ["add_files", "add_work"]},
        {"targets": ["no_more_files", "no_more_work"]},
        {"fetch": ["whole_read:0", "whole_read:1"]},
        {"fetch": ["ident_read:0", "ident_read:1"]},
        {"fetch": ["ident_read:0", "ident_read:1"]},
        {"fetch": ["ident_read:0", "ident_read:1"]},
    ], feeds={"files:0": ["lines.txt"]})
    record("variable", variable_v1, [
        {"fetch": ["v/read:0"]},
        {"targets": ["v/Assign"]},
        {"fetch": ["v/read:0", "scaled:0"]},
        {"fetch": ["bump:0"]},
        {"fetch": ["scaled:0"]},
    ])
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump({"cases": CASES}, f, indent=1)
        f.write("\n")
    print(len(CASES), "cases,", sum(len(c["steps"]) for c in CASES), "steps")


main()
