"""Writes the input files here and expected.json: what TensorFlow 2.21 (tf.compat.v1 graph
mode) returns for `num_parallel_reads` on the file datasets and for
`tf.data.experimental.parallel_interleave`. Run from this folder with TensorFlow's Python."""
import json
import os

import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
LENS = [3, 1, 4, 2]

for i, n in enumerate(LENS):
    with tf.io.TFRecordWriter(os.path.join(HERE, f"f{i}.tfrecord")) as w:
        for j in range(n):
            w.write(f"{i}-{j}".encode())
    with open(os.path.join(HERE, f"t{i}.txt"), "w") as f:
        f.write("".join(f"{i}-{j}\n" for j in range(n)))
with open(os.path.join(HERE, "f2.tfrecord"), "rb") as f:
    whole = f.read()
with open(os.path.join(HERE, "truncated.tfrecord"), "wb") as f:
    f.write(whole[:-3])


def message(e):
    lines = e.message.split("\n")
    for k, line in enumerate(lines):
        if line.startswith("Node: ") and k + 1 < len(lines):
            return lines[k + 1].replace(HERE, "{dir}")
    return lines[0].replace(HERE, "{dir}")


def run(ds):
    tf1.reset_default_graph()
    out, err = [], None
    nxt = tf1.data.make_one_shot_iterator(ds()).get_next()
    with tf1.Session() as s:
        try:
            while True:
                out.append(s.run(nxt).decode())
        except tf.errors.OutOfRangeError:
            pass
        except tf.errors.OpError as e:
            err = {"kind": type(e).__name__, "message": message(e)}
    return out, err


def path(f):
    return os.path.join(HERE, f)


TFR = [f"f{i}.tfrecord" for i in range(4)]
TXT = [f"t{i}.txt" for i in range(4)]
cases = []


def case(name, kind, files, args, build):
    values, err = run(build)
    cases.append({"name": name, "kind": kind, "files": files, "args": args,
                  "values": values, "error": err})


def reads(kind, files, n, scalar=False):
    def build():
        names = path(files[0]) if scalar else [path(f) for f in files]
        if kind == "tfrecord":
            return tf.data.TFRecordDataset(names, num_parallel_reads=n)
        if kind == "text":
            return tf.data.TextLineDataset(names, num_parallel_reads=n)
        return tf.data.FixedLengthRecordDataset(names, 4, num_parallel_reads=n)
    return build


for n in [1, 2, 3, 8, 0, -2]:
    case(f"tfrecord_reads_{n}", "tfrecord", TFR, {"num_parallel_reads": n},
         reads("tfrecord", TFR, n))
case("text_reads_2", "text", TXT, {"num_parallel_reads": 2}, reads("text", TXT, 2))
case("fixed_reads_2", "fixed", ["t0.txt", "t2.txt"], {"num_parallel_reads": 2},
     reads("fixed", ["t0.txt", "t2.txt"], 2))
case("scalar_reads_3", "tfrecord", ["f0.tfrecord"], {"num_parallel_reads": 3, "scalar": True},
     reads("tfrecord", ["f0.tfrecord"], 3, scalar=True))
missing = ["f0.tfrecord", "nope.tfrecord", "f2.tfrecord"]
case("missing_reads_2", "tfrecord", missing, {"num_parallel_reads": 2},
     reads("tfrecord", missing, 2))
trunc = ["f0.tfrecord", "truncated.tfrecord", "f3.tfrecord"]
case("truncated_reads_2", "tfrecord", trunc, {"num_parallel_reads": 2},
     reads("tfrecord", trunc, 2))

PI = [
    {"cycle_length": 2},
    {"cycle_length": 2, "block_length": 2},
    {"cycle_length": 3, "block_length": 2},
    {"cycle_length": 3, "block_length": 3, "sloppy": False},
    {"cycle_length": 8},
    {"cycle_length": 1, "block_length": 2},
    {"cycle_length": 2, "prefetch_input_elements": 0},
    {"cycle_length": 2, "buffer_output_elements": 1},
    {"cycle_length": 0},
    {"cycle_length": -1},
    {"cycle_length": 2, "block_length": 0},
    {"cycle_length": 2, "buffer_output_elements": 0},
    {"cycle_length": 2, "prefetch_input_elements": -1},
]
for k, args in enumerate(PI):
    def build(args=args):
        names = tf.data.Dataset.from_tensor_slices([path(f) for f in TFR])
        return names.apply(tf.data.experimental.parallel_interleave(
            tf.data.TFRecordDataset, **args))
    case(f"parallel_interleave_{k}", "parallel_interleave", TFR, args, build)

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump(cases, f, indent=1)
    f.write("\n")
print(len(cases), "cases")
