"""Writes lookup_graph.pb with the real TensorFlow 2.21 (run once, by hand, in the shared bench's
venv: $HOME/.cache/weir-bench/venv/bin/python make_lookup_graph.py). The graph reads its
vocabulary file from the placeholder `vocab_file`, so the test feeds the path of vocab.txt here
instead of an absolute path baked into the graph. crates/ops/tests/integration/lookup_graph_def.rs
imports it and compares with the values printed here."""
import os

import tensorflow as tf
from tensorflow.python.ops import lookup_ops

tf1 = tf.compat.v1
tf1.disable_eager_execution()
here = os.path.dirname(os.path.abspath(__file__))

g = tf.Graph()
with g.as_default():
    vocab_file = tf1.placeholder(tf.string, [], name="vocab_file")
    lines = tf1.placeholder(tf.string, [None], name="lines")
    word, count = tf1.io.decode_csv(lines, [[""], [0]], name="decode")
    ids_table = lookup_ops.index_table_from_file(vocab_file, num_oov_buckets=2)
    ids = tf.identity(ids_table.lookup(word), name="ids")
    size = tf.identity(ids_table.size(), name="size")
    names = lookup_ops.index_to_string_table_from_file(vocab_file, default_value="<unk>")
    back = tf.identity(names.lookup(ids), name="back")
    weights = tf1.lookup.StaticHashTable(
        tf1.lookup.KeyValueTensorInitializer(["lake", "palmer"], [0.5, 2.0]), -1.0)
    weight = tf.identity(weights.lookup(word), name="weight")
    counts = tf1.lookup.experimental.MutableHashTable(tf.string, tf.int32, 0, name="counts")
    update = counts.insert(word, count, name="update")
    seen = tf.identity(counts.lookup(word), name="seen")
    init = tf1.tables_initializer()
    print("init:", init.name)
    with open(os.path.join(here, "lookup_graph.pb"), "wb") as f:
        f.write(g.as_graph_def().SerializeToString())
    feed = {vocab_file: os.path.join(here, "vocab.txt"),
            lines: ["lake,3", "king,1", "emerson,7", "crimson,2", "tarkus,5", "palmer,4"]}
    with tf1.Session(graph=g) as s:
        s.run(init, feed)
        print("ids:", s.run(ids, feed).tolist())
        print("size:", s.run(size, feed))
        print("back:", s.run(back, feed).tolist())
        print("weight:", s.run(weight, feed).tolist())
        print("seen before:", s.run(seen, feed).tolist())
        s.run(update, feed)
        print("seen after:", s.run(seen, feed).tolist())
    print([n.op for n in g.as_graph_def().node])
