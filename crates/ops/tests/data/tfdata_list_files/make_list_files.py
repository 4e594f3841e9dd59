"""Writes expected.json: what TensorFlow 2.21 (tf.compat.v1 graph mode) returns for
`Dataset.list_files` over a folder of FILES (created in a temporary folder; the test makes the
same ones). Names are given without the folder, which errors write as {dir}."""
import json
import os
import tempfile

import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()
FILES = ["b1.txt", "a2.txt", "c3.txt", "a1.txt", "b2.txt", "d4.txt", "e5.txt"]
DIR = tempfile.mkdtemp()
for f in FILES:
    with open(os.path.join(DIR, f), "w") as out:
        out.write(f)

CASES = [
    {"name": "sorted", "patterns": ["*.txt"], "shuffle": False},
    {"name": "two_patterns_sorted_together", "patterns": ["b*.txt", "a*.txt"], "shuffle": False},
    {"name": "op_seed", "patterns": ["*.txt"], "seed": 3},
    {"name": "op_and_graph_seed", "patterns": ["*.txt"], "seed": 3, "graph_seed": 5},
    {"name": "graph_seed", "patterns": ["*.txt"], "graph_seed": 5},
    {"name": "op_seed_two_epochs", "patterns": ["*.txt"], "seed": 3, "repeat": 2},
    {"name": "graph_seed_three_epochs", "patterns": ["*.txt"], "graph_seed": 1, "repeat": 3},
    {"name": "one_match", "patterns": ["e*.txt"], "seed": 11},
    {"name": "scalar_pattern", "patterns": "c*.txt", "seed": 11},
    {"name": "no_match", "patterns": ["*.nope"]},
    {"name": "no_match_two_patterns", "patterns": ["*.nope", "x/*"], "shuffle": False},
]


def pattern_value(c):
    p = c["patterns"]
    return os.path.join(DIR, p) if isinstance(p, str) else [os.path.join(DIR, x) for x in p]


def run(c):
    tf1.reset_default_graph()
    if "graph_seed" in c:
        tf1.set_random_seed(c["graph_seed"])
    ds = tf.data.Dataset.list_files(pattern_value(c), shuffle=c.get("shuffle"), seed=c.get("seed"))
    if "repeat" in c:
        ds = ds.repeat(c["repeat"])
    it = tf1.data.make_initializable_iterator(ds)
    nxt = it.get_next()
    out = []
    with tf1.Session() as s:
        try:
            s.run(it.initializer)
            while True:
                out.append(os.path.basename(s.run(nxt).decode()))
        except tf.errors.OutOfRangeError:
            return out, None
        except tf.errors.OpError as e:
            lines = e.message.split("\n")
            msg = next(l for l in lines if l.startswith("assertion failed"))
            return out, {"kind": type(e).__name__, "message": msg.replace(DIR, "{dir}")}


for c in CASES:
    c["values"], c["error"] = run(c)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json"), "w") as f:
    json.dump({"files": FILES, "cases": CASES}, f, indent=1)
    f.write("\n")
print(len(CASES), "cases")
