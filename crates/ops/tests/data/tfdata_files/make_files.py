"""Writes the tf.data file-dataset fixtures and records what TensorFlow returns for them.

Run with TensorFlow 2.21 (tf.compat.v1 graph mode):

    python make_files.py

It writes small TFRecord, text and fixed-length files into this folder and `expected.json`:
for each case, the dataset's arguments and the outcome of each `get_next` run in order (a value,
or an error's class and message), up to the first OutOfRange, or up to three runs after the
first error. Messages name files as `<DIR>/<name>`.

TensorFlow 2.21's Python classes make one dataset op per file inside a `flat_map`. Cases marked
`raw` build the op itself over all the files (`gen_dataset_ops`, as weir's op works), which
shows how one op goes from file to file after an error and words its messages.
"""

import gzip
import json
import os
import re
import zlib

import tensorflow as tf
from tensorflow.python.data.ops import dataset_ops
from tensorflow.python.ops import gen_dataset_ops

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_RUNS = 20


def path(name):
    return os.path.join(HERE, name)


def write(name, data):
    with open(path(name), "wb") as f:
        f.write(data)


def tfrecord(name, records, compression=None):
    opts = tf.io.TFRecordOptions(compression_type=compression)
    with tf.io.TFRecordWriter(path(name), opts) as w:
        for r in records:
            w.write(r)


def make_files():
    recs = [b"abc", b"", b"hello world"]
    tfrecord("rec.tfrecord", recs)
    tfrecord("rec2.tfrecord", [b"x", b"yz"])
    tfrecord("rec.tfrecord.gz", recs, "GZIP")
    tfrecord("rec.tfrecord.zlib", recs, "ZLIB")
    with open(path("rec.tfrecord"), "rb") as f:
        plain = f.read()
    data = bytearray(plain)
    data[19 + 12] ^= 1  # the first data byte of record 1 ("", so its footer CRC)
    write("corrupt_data.tfrecord", bytes(data))
    data = bytearray(plain)
    data[0] ^= 1  # the length of record 0
    write("corrupt_len.tfrecord", bytes(data))
    data = bytearray(plain)
    data[19] ^= 1  # the length of record 1
    write("corrupt_len1.tfrecord", bytes(data))
    write("truncated.tfrecord", plain[:-3])
    write("header_only.tfrecord", plain[:5])
    write("empty.bin", b"")

    write("text1.txt", b"a\rb\nc\r\r\nlast\r\n")
    write("text2.txt", b"one\r\ntwo\n\nthree")
    write("text_cr.txt", b"\r")
    write("text_xcr.txt", b"x\r")
    write("text_crlf.txt", b"\r\n")
    write("text_nn.txt", b"\n\n")
    write("text2.txt.gz", gzip.compress(b"one\r\ntwo\n\nthree", mtime=0))
    write("text2.txt.zlib", zlib.compress(b"one\r\ntwo\n\nthree"))

    write("fixed.bin", b"HHaaabbbcccFFF")
    write("fixed_bad.bin", b"HHaaabbbcccddFFF")
    write("fixed_small.bin", b"HHF")
    write("fixed.bin.gz", gzip.compress(b"HHaaabbbcccFFF", mtime=0))
    write("fixed_bad.bin.gz", gzip.compress(b"HHaaabbbcccddFFF", mtime=0))
    write("fixed.bin.zlib", zlib.compress(b"HHaaabbbcccFFF"))
    write("fixed_small.bin.gz", gzip.compress(b"HHF", mtime=0))


def redact(msg):
    """The kernel's own message: without the graph-execution preamble and node trace, and
    without the FlatMapDataset wrapping that TF 2.21's Python adds around each file's
    dataset; paths as `<DIR>`."""
    msg = msg.split("\n\t [[")[0].rstrip()
    msg = re.split(r"\nNode: '[^']*'\n", msg)[-1]
    msg = re.sub(r"^Graph execution error:\n\n", "", msg)
    msg = re.sub(r"^Error in user-defined function passed to FlatMapDataset:\d+ transformation "
                 r"with iterator: Iterator::Root::Prefetch::FlatMap: ", "", msg)
    return msg.replace(HERE, "<DIR>")


def raw_dataset(kind, filenames, kw):
    """The dataset op itself over all the files, with Python's defaults."""
    comp = kw.get("compression_type", "")
    buf = kw.get("buffer_size", 256 * 1024)
    if kind == "TFRecordDataset":
        v = gen_dataset_ops.tf_record_dataset(filenames, comp, buf)
    elif kind == "TextLineDataset":
        v = gen_dataset_ops.text_line_dataset(filenames, comp, buf)
    else:
        v = gen_dataset_ops.fixed_length_record_dataset_v2(
            filenames, kw.get("header_bytes", 0), kw["record_bytes"],
            kw.get("footer_bytes", 0), buf, comp)
    spec = tf.TensorSpec([], tf.string)
    return dataset_ops.DatasetV1Adapter(dataset_ops._VariantDataset(v, spec))


def run_case(case):
    tf.compat.v1.reset_default_graph()
    files = [path(f) for f in case["files"]]
    filenames = files[0] if case.get("scalar") else tf.constant(files, tf.string)
    kw = dict(case.get("kwargs", {}))
    kind = case["dataset"]
    try:
        if case.get("raw"):
            ds = raw_dataset(kind, filenames, kw)
        elif kind == "TFRecordDataset":
            ds = tf.data.TFRecordDataset(filenames, **kw)
        elif kind == "TextLineDataset":
            ds = tf.data.TextLineDataset(filenames, **kw)
        else:
            ds = tf.data.FixedLengthRecordDataset(filenames, **kw)
        nxt = tf.compat.v1.data.make_one_shot_iterator(ds).get_next()
    except Exception as e:  # noqa: BLE001 - record what Python raised at build time
        return [{"build_error": type(e).__name__, "message": redact(str(e))}]
    out = []
    errors = 0
    with tf.compat.v1.Session() as sess:
        for _ in range(MAX_RUNS):
            try:
                v = sess.run(nxt)
                out.append({"value": v.decode("latin-1")})
            except tf.errors.OpError as e:
                out.append({"error": type(e).__name__, "message": redact(e.message)})
                if isinstance(e, tf.errors.OutOfRangeError):
                    break
                errors += 1
                if errors > 3:
                    break
    return out


def cases():
    t, x, f = "TFRecordDataset", "TextLineDataset", "FixedLengthRecordDataset"
    fx = {"record_bytes": 3, "header_bytes": 2, "footer_bytes": 3}
    return [
        {"name": "tfrecord_two_files", "dataset": t, "files": ["rec.tfrecord", "rec2.tfrecord"]},
        {"name": "tfrecord_scalar", "dataset": t, "files": ["rec2.tfrecord"], "scalar": True},
        {"name": "tfrecord_no_files", "dataset": t, "files": []},
        {"name": "tfrecord_gzip", "dataset": t, "files": ["rec.tfrecord.gz", "rec2.tfrecord"],
         "kwargs": {"compression_type": "GZIP"}},
        {"name": "tfrecord_zlib", "dataset": t, "files": ["rec.tfrecord.zlib"],
         "kwargs": {"compression_type": "ZLIB", "buffer_size": 1}},
        {"name": "tfrecord_small_buffer", "dataset": t, "files": ["rec.tfrecord"],
         "kwargs": {"buffer_size": 1}},
        {"name": "tfrecord_corrupt_data", "dataset": t,
         "files": ["corrupt_data.tfrecord", "rec2.tfrecord"]},
        {"name": "tfrecord_corrupt_len0", "dataset": t,
         "files": ["corrupt_len.tfrecord", "rec2.tfrecord"]},
        {"name": "tfrecord_corrupt_len1", "dataset": t,
         "files": ["corrupt_len1.tfrecord", "rec2.tfrecord"]},
        {"name": "tfrecord_truncated", "dataset": t,
         "files": ["truncated.tfrecord", "rec2.tfrecord"]},
        {"name": "tfrecord_header_only", "dataset": t,
         "files": ["header_only.tfrecord", "empty.bin", "rec2.tfrecord"]},
        {"name": "tfrecord_missing", "dataset": t,
         "files": ["rec2.tfrecord", "missing.tfrecord", "rec2.tfrecord"]},
        {"name": "tfrecord_gzip_as_plain", "dataset": t, "files": ["rec.tfrecord.gz"]},
        {"name": "tfrecord_plain_as_gzip", "dataset": t, "files": ["rec.tfrecord"],
         "kwargs": {"compression_type": "GZIP"}},
        {"name": "tfrecord_gzip_as_zlib", "dataset": t, "files": ["rec.tfrecord.gz"],
         "kwargs": {"compression_type": "ZLIB"}},
        {"name": "tfrecord_bogus_compression", "dataset": t, "files": ["rec2.tfrecord"],
         "kwargs": {"compression_type": "BOGUS"}},
        {"name": "tfrecord_negative_buffer", "dataset": t, "files": ["rec2.tfrecord"],
         "kwargs": {"buffer_size": -1}},
        {"name": "tfrecord_buffer_minus_two", "dataset": t, "files": ["rec2.tfrecord"],
         "kwargs": {"buffer_size": -2}},
        {"name": "text_two_files", "dataset": x, "files": ["text1.txt", "text2.txt"]},
        {"name": "text_scalar", "dataset": x, "files": ["text2.txt"], "scalar": True},
        {"name": "text_carriage_returns", "dataset": x,
         "files": ["text_cr.txt", "text_xcr.txt", "text_crlf.txt", "text_nn.txt", "empty.bin"]},
        {"name": "text_gzip", "dataset": x, "files": ["text2.txt.gz"],
         "kwargs": {"compression_type": "GZIP"}},
        {"name": "text_zlib", "dataset": x, "files": ["text2.txt.zlib"],
         "kwargs": {"compression_type": "ZLIB", "buffer_size": 2}},
        {"name": "text_missing", "dataset": x, "files": ["text2.txt", "missing.txt", "text_xcr.txt"]},
        {"name": "text_plain_as_gzip", "dataset": x, "files": ["text2.txt", "text_xcr.txt"],
         "kwargs": {"compression_type": "GZIP"}},
        {"name": "text_bogus_compression", "dataset": x, "files": ["text2.txt"],
         "kwargs": {"compression_type": "BOGUS"}},
        {"name": "text_negative_buffer", "dataset": x, "files": ["text2.txt"],
         "kwargs": {"buffer_size": -1}},
        {"name": "fixed_basic", "dataset": f, "files": ["fixed.bin", "fixed.bin"], "kwargs": fx},
        {"name": "fixed_no_header", "dataset": f, "files": ["fixed.bin"],
         "kwargs": {"record_bytes": 7}},
        {"name": "fixed_scalar", "dataset": f, "files": ["fixed.bin"], "scalar": True,
         "kwargs": fx},
        {"name": "fixed_bad_body", "dataset": f, "files": ["fixed_bad.bin", "fixed.bin"],
         "kwargs": fx},
        {"name": "fixed_small", "dataset": f, "files": ["fixed_small.bin", "fixed.bin"],
         "kwargs": fx},
        {"name": "fixed_small_divisible", "dataset": f, "files": ["fixed_small.bin", "fixed.bin"],
         "kwargs": {"record_bytes": 1, "header_bytes": 2, "footer_bytes": 3}},
        {"name": "fixed_empty_file", "dataset": f, "files": ["empty.bin", "fixed.bin"],
         "kwargs": {"record_bytes": 3}},
        {"name": "fixed_gzip", "dataset": f, "files": ["fixed.bin.gz", "fixed.bin.gz"],
         "kwargs": dict(fx, compression_type="GZIP")},
        {"name": "fixed_zlib", "dataset": f, "files": ["fixed.bin.zlib"],
         "kwargs": dict(fx, compression_type="ZLIB", buffer_size=1)},
        {"name": "fixed_gzip_bad_body", "dataset": f, "files": ["fixed_bad.bin.gz", "fixed.bin.gz"],
         "kwargs": dict(fx, compression_type="GZIP")},
        {"name": "fixed_gzip_small", "dataset": f, "files": ["fixed_small.bin.gz", "fixed.bin.gz"],
         "kwargs": dict(fx, compression_type="GZIP")},
        {"name": "fixed_gzip_big_header", "dataset": f,
         "files": ["fixed.bin.gz", "fixed.bin.gz"],
         "kwargs": {"record_bytes": 3, "header_bytes": 20, "compression_type": "GZIP"}},
        {"name": "fixed_missing", "dataset": f, "files": ["fixed.bin", "missing.bin", "fixed.bin"],
         "kwargs": fx},
        {"name": "fixed_gzip_missing", "dataset": f, "files": ["missing.bin"],
         "kwargs": dict(fx, compression_type="GZIP")},
        {"name": "fixed_bogus_compression", "dataset": f, "files": ["fixed.bin"],
         "kwargs": dict(fx, compression_type="BOGUS")},
        {"name": "fixed_zero_record", "dataset": f, "files": ["fixed.bin"],
         "kwargs": {"record_bytes": 0}},
        {"name": "fixed_negative_header", "dataset": f, "files": ["fixed.bin"],
         "kwargs": {"record_bytes": 3, "header_bytes": -1}},
        {"name": "fixed_negative_footer", "dataset": f, "files": ["fixed.bin"],
         "kwargs": {"record_bytes": 3, "footer_bytes": -1}},
        {"name": "fixed_negative_buffer", "dataset": f, "files": ["fixed.bin"],
         "kwargs": {"record_bytes": 3, "buffer_size": -1}},
    ] + [dict(c, name=c["name"] + "_raw", raw=True) for c in RAW_CASES(t, x, f, fx)]


def RAW_CASES(t, x, f, fx):  # noqa: N802 - a table
    gz = dict(fx, compression_type="GZIP")
    return [
        {"name": "tfrecord_corrupt_data", "dataset": t,
         "files": ["corrupt_data.tfrecord", "rec2.tfrecord"]},
        {"name": "tfrecord_truncated", "dataset": t,
         "files": ["truncated.tfrecord", "rec.tfrecord.gz", "rec2.tfrecord"]},
        {"name": "tfrecord_missing", "dataset": t,
         "files": ["rec2.tfrecord", "missing.tfrecord", "rec2.tfrecord"]},
        {"name": "tfrecord_buffer_minus_two", "dataset": t, "files": ["rec2.tfrecord"],
         "kwargs": {"buffer_size": -2}},
        {"name": "text_plain_as_gzip", "dataset": x, "files": ["text2.txt", "text_xcr.txt"],
         "kwargs": {"compression_type": "GZIP"}},
        {"name": "text_bogus_compression", "dataset": x, "files": ["text2.txt"],
         "kwargs": {"compression_type": "BOGUS"}},
        {"name": "text_two_files", "dataset": x, "files": ["text1.txt", "text_cr.txt", "text2.txt"]},
        {"name": "fixed_bad_body", "dataset": f, "files": ["fixed_bad.bin", "fixed.bin"],
         "kwargs": fx},
        {"name": "fixed_zero_record", "dataset": f, "files": ["fixed.bin"],
         "kwargs": {"record_bytes": 0}},
        {"name": "fixed_gzip_bad_body", "dataset": f, "files": ["fixed_bad.bin.gz", "fixed.bin.gz"],
         "kwargs": gz},
        {"name": "fixed_gzip_small", "dataset": f, "files": ["fixed_small.bin.gz", "fixed.bin.gz"],
         "kwargs": gz},
        {"name": "fixed_gzip_big_header", "dataset": f, "files": ["fixed.bin.gz", "fixed.bin.gz"],
         "kwargs": {"record_bytes": 3, "header_bytes": 20, "compression_type": "GZIP"}},
    ]


def main():
    tf.compat.v1.disable_eager_execution()
    make_files()
    out = []
    for case in cases():
        case = dict(case)
        case["outcomes"] = run_case(case)
        out.append(case)
    with open(path("expected.json"), "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": out}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
