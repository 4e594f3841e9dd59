"""Generates expected.json: tf.data interleave / flat_map / parallel map orders and errors,
as TensorFlow 2.21 gives them in tf.compat.v1 graph mode.

Run: $HOME/.cache/weir-bench/venv/bin/python make_tfdata_interleave.py
"""
import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()

# Inner datasets of uneven lengths: row i holds i*10 + j for j < LENS[i], padded with -1.
LENS = [3, 1, 4, 0, 2, 5, 1]
WIDTH = max(LENS)
ROWS = [[i * 10 + j if j < n else -1 for j in range(WIDTH)] for i, n in enumerate(LENS)]


def first_line(message):
    """The kernel's own message, without graph mode's preamble, traceback and node lines."""
    lines = [l.strip() for l in message.split("\n") if l.strip()]
    for l in lines:
        if not (l.startswith(("Graph execution error", "Detected at node", "File ", "Node:", "[["))):
            return l
    return lines[0]


def drain(ds, limit=1000):
    """Every get_next until OutOfRange: ["ok", value] or ["err", code name, message]."""
    g = tf.compat.v1.get_default_graph()
    nxt = tf1.data.make_one_shot_iterator(ds).get_next()
    out = []
    with tf1.Session(graph=g) as sess:
        for _ in range(limit):
            try:
                v = sess.run(nxt)
                out.append(["ok", v.tolist() if hasattr(v, "tolist") else v])
            except tf.errors.OutOfRangeError:
                return out
            except tf.errors.OpError as e:
                out.append(["err", type(e).__name__, first_line(e.message)])
                if len(out) >= 3 and all(r[0] == "err" for r in out[-3:]):
                    out.append(["stopped after three errors in a row"])
                    return out
    raise RuntimeError("no end")


def rows_ds():
    return tf.data.Dataset.from_tensor_slices(tf.constant(ROWS, tf.int64))


def inner(row):
    return tf.data.Dataset.from_tensor_slices(row).filter(lambda v: v >= 0)


def values(res):
    assert all(r[0] == "ok" for r in res), res
    return [r[1] for r in res]


out = {"lens": LENS, "rows": ROWS, "interleave": [], "map_errors": [], "build_errors": []}

for cycle in [1, 2, 3, 4, 8]:
    for block in [1, 2, 3]:
        with tf.Graph().as_default():
            got = values(drain(rows_ds().interleave(inner, cycle_length=cycle, block_length=block)))
        out["interleave"].append({"cycle": cycle, "block": block, "values": got})

# With num_parallel_calls (ParallelInterleaveDatasetV4, deterministic): num_parallel_calls may
# not exceed a fixed cycle_length.
out["parallel_interleave"] = []
for cycle in [1, 2, 3, 4, 8]:
    for block in [1, 2, 3]:
        for npc in [n for n in [1, 2, 4] if n <= cycle]:
            with tf.Graph().as_default():
                ds = rows_ds().interleave(inner, cycle_length=cycle, block_length=block, num_parallel_calls=npc)
                assert ds._variant_tensor.op.type == "ParallelInterleaveDatasetV4"
                got = values(drain(ds))
            out["parallel_interleave"].append({"cycle": cycle, "block": block, "num_parallel_calls": npc, "values": got})

with tf.Graph().as_default():
    out["flat_map"] = values(drain(rows_ds().flat_map(inner)))

# Two "files": alternate until one runs out.
with tf.Graph().as_default():
    files = tf.data.Dataset.from_tensor_slices(tf.constant([[1, 2, 3, 4, 5], [6, 7, -1, -1, -1]], tf.int64))
    out["two_files"] = values(drain(files.interleave(inner, cycle_length=2, block_length=1)))

for npc in [1, 4, -1]:
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(30).map(lambda x: x * x, num_parallel_calls=npc)
        out.setdefault("parallel_map", []).append({"num_parallel_calls": npc, "values": values(drain(ds))})


def bad_at_3(x):
    # 1 / (x - 3) is an infinity at x == 3.
    y = tf.math.reciprocal(tf.cast(x - 3, tf.float32))
    return tf.debugging.check_numerics(y, "bad element")


for npc in [None, 1, 3]:
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(7).map(bad_at_3, num_parallel_calls=npc)
        res = drain(ds)
        out["map_errors"].append({"num_parallel_calls": npc, "results": res})


def build_error(name, make):
    with tf.Graph().as_default():
        try:
            res = drain(make())
            out["build_errors"].append({"case": name, "where": "run", "results": res})
        except tf.errors.OpError as e:
            out["build_errors"].append({"case": name, "where": "run", "code": type(e).__name__, "message": first_line(e.message)})
        except Exception as e:  # noqa: BLE001
            out["build_errors"].append({"case": name, "where": "python", "type": type(e).__name__, "message": str(e).split("\n")[0]})


build_error("cycle_length 0", lambda: rows_ds().interleave(inner, cycle_length=0, block_length=1))
build_error("block_length 0", lambda: rows_ds().interleave(inner, cycle_length=2, block_length=0))
build_error("block_length -1", lambda: rows_ds().interleave(inner, cycle_length=2, block_length=-1))
build_error("cycle_length -2", lambda: rows_ds().interleave(inner, cycle_length=-2, block_length=1))
build_error("interleave num_parallel_calls 3 cycle_length 2", lambda: rows_ds().interleave(inner, cycle_length=2, block_length=1, num_parallel_calls=3))
build_error("interleave num_parallel_calls 0 cycle_length 2", lambda: rows_ds().interleave(inner, cycle_length=2, block_length=1, num_parallel_calls=0))
build_error("num_parallel_calls 0", lambda: tf.data.Dataset.range(3).map(lambda x: x, num_parallel_calls=0))
build_error("num_parallel_calls -2", lambda: tf.data.Dataset.range(3).map(lambda x: x, num_parallel_calls=-2))

out["cpu_count"] = os.cpu_count()
with tf.Graph().as_default():
    out["interleave_autotune"] = values(drain(rows_ds().interleave(inner, cycle_length=tf.data.AUTOTUNE, block_length=1)))

# cycle_length AUTOTUNE with num_parallel_calls: that many up to one per core; with both
# AUTOTUNE, ceil(cores / 3).
out["parallel_interleave_autotune"] = []
for npc in [1, 2, -1]:
    with tf.Graph().as_default():
        ds = rows_ds().interleave(inner, cycle_length=tf.data.AUTOTUNE, block_length=1, num_parallel_calls=npc)
        out["parallel_interleave_autotune"].append({"num_parallel_calls": npc, "values": values(drain(ds))})

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "expected.json"), "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
print("ok")
