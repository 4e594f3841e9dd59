"""TensorFlow 2.21's RecordInput (data_flow_ops.RecordInput) on small TFRecord files, written to
expected.json for weir's tests (crates/ops/src/io/record_yielder.rs and
tests/integration/io_record_input.rs).

With buffer_size=1 and parallelism=1 TensorFlow's order is deterministic: each epoch shuffles
the file list (mt19937_64 seeded by Hash64 of the epoch number and the seed, libstdc++'s
std::shuffle), rotates it by shift_ratio, and one shard thread hands records over through a
one-record buffer. The file list starts in the order the directory listing gave it (TensorFlow's
GetMatchingPaths does not sort), so each case records that listing with the output.

Run: $HOME/.cache/weir-bench/venv/bin/python make_record_input.py
"""
import json
import os
import shutil
import tempfile

import tensorflow as tf
from tensorflow.python.ops import data_flow_ops

tf.compat.v1.disable_eager_execution()


def write_files(d, prefix, n_files, n_records, options=None):
    names = []
    for f in range(n_files):
        name = f"{prefix}{f:02d}.tfr"
        with tf.io.TFRecordWriter(os.path.join(d, name), options=options) as w:
            for r in range(n_records):
                w.write(f"{prefix}{f:02d}r{r:02d}".encode())
        names.append(name)
    return names


def run(pattern, runs, **kw):
    g = tf.Graph()
    with g.as_default():
        y = data_flow_ops.RecordInput(file_pattern=pattern, **kw).get_yield_op()
        out = []
        with tf.compat.v1.Session() as s:
            try:
                for _ in range(runs):
                    out.append([x.decode() for x in s.run(y)])
            except tf.errors.OpError as e:
                out.append({"error": type(e).__name__, "message": e.message.split("\n")[0]})
        return out


def main():
    d = tempfile.mkdtemp()
    cases = []
    # One record per file: the whole epoch stays in the shard's pending list (under 16
    # records), so it comes out last-read first.
    write_files(d, "a", 9, 1)
    # 28 records per epoch: the pending list reaches 16 and then hands over one record per read.
    write_files(d, "b", 4, 7)
    listing = os.listdir(d)
    for prefix, batch, epochs in [("a", 9, 3), ("b", 28, 2)]:
        files = [n for n in listing if n.startswith(prefix)]
        for seed, ratio in [(0, 0.0), (301, 0.0), (7, 0.5), (12345, 0.25), (-3, 0.9), (5, 1.5), (11, -0.5)]:
            out = run(os.path.join(d, prefix + "*.tfr"), epochs, batch_size=batch,
                      buffer_size=1, parallelism=1, seed=seed, shift_ratio=ratio)
            cases.append({"files": files, "records_per_file": 1 if prefix == "a" else 7,
                          "seed": seed, "shift_ratio": ratio, "batch_size": batch,
                          "batches": out})
    shutil.rmtree(d)
    json.dump({"tensorflow": tf.__version__, "cases": cases}, open("expected.json", "w"), indent=1)


main()
