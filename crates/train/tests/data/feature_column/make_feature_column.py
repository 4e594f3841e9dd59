"""Records TensorFlow 2.21's tf.compat.v1.feature_column results for weir's tests.

Run with the benchmark venv's python from this directory:
    $HOME/.cache/weir-bench/venv/bin/python make_feature_column.py
It writes vocab.txt and expected.json here. Every case builds a fresh tf.compat.v1 graph
(reference variables), feeds constant features, and records outputs, variable names, shapes
and collections, parse specs and error messages. Embedding tables get constant initializers
(except in `embedding_default_init`, which records statistics of the truncated normal).
"""
import json
import os

import numpy as np
import tensorflow as tf
from tensorflow.python.feature_column import feature_column as fc_old

tf1 = tf.compat.v1
tf1.disable_eager_execution()
tf1.disable_resource_variables()
fc = tf1.feature_column

HERE = os.path.dirname(os.path.abspath(__file__))
VOCAB = os.path.join(HERE, "vocab.txt")
with open(VOCAB, "w") as f:
    f.write("apple\nbanana\ncherry\ndate\n")

OUT = {}


def tensor_json(a):
    a = np.asarray(a)
    if a.dtype.kind in ("S", "O", "U"):
        vals = [v.decode() if isinstance(v, bytes) else str(v) for v in a.reshape(-1)]
        dt = "string"
    else:
        vals = a.reshape(-1).tolist()
        dt = str(a.dtype)
    return {"dtype": dt, "shape": list(a.shape), "values": vals}


def dense(values, dtype):
    return {"dense": tensor_json(np.array(values, dtype=dtype))}


def sparse(indices, values, dense_shape, dtype):
    return {"sparse": {"indices": tensor_json(np.array(indices, dtype=np.int64).reshape(-1, len(dense_shape))),
                       "values": tensor_json(np.array(values, dtype=dtype)),
                       "dense_shape": tensor_json(np.array(dense_shape, dtype=np.int64))}}


def make_features(spec):
    out = {}
    for k, v in spec.items():
        if "dense" in v:
            d = v["dense"]
            arr = np.array(d["values"], dtype=object if d["dtype"] == "string" else d["dtype"]).reshape(d["shape"])
            if d["dtype"] == "string":
                arr = arr.astype(bytes)
            out[k] = tf.constant(arr)
        else:
            s = v["sparse"]
            vals = s["values"]
            arr = np.array(vals["values"], dtype=bytes if vals["dtype"] == "string" else vals["dtype"])
            out[k] = tf.SparseTensor(np.array(s["indices"]["values"], dtype=np.int64).reshape(s["indices"]["shape"]),
                                     tf.constant(arr), np.array(s["dense_shape"]["values"], dtype=np.int64))
    return out


def variables_json(g):
    trainable = {v.name for v in g.get_collection(tf1.GraphKeys.TRAINABLE_VARIABLES)}
    model = {v.name for v in g.get_collection(tf1.GraphKeys.MODEL_VARIABLES)}
    mine = {v.name for v in g.get_collection("my_vars")}
    return [{"name": v.op.name, "shape": v.shape.as_list(), "trainable": v.name in trainable,
             "model": v.name in model, "my_vars": v.name in mine}
            for v in g.get_collection(tf1.GraphKeys.GLOBAL_VARIABLES)]


def table(rows, dim, scale=1.0):
    return (np.arange(rows * dim, dtype=np.float32).reshape(rows, dim) * 0.25 - 1.0) * scale


def const_init(rows, dim):
    return tf1.constant_initializer(table(rows, dim))


def run_case(name, features, build, assign=False, kind="input_layer"):
    """build(features) -> columns; runs `kind` over them and records the output."""
    g = tf.Graph()
    rec = {"features": features}
    with g.as_default():
        feats = make_features(features)
        cols = build()
        try:
            if kind == "input_layer":
                out = fc.input_layer(feats, cols)
            elif kind == "linear_model":
                out = fc.linear_model(feats, cols, **assign.get("kwargs", {}))
            elif kind == "transform":
                out = fc_old._transform_features(feats, cols)
            else:
                raise ValueError(kind)
        except ValueError as e:
            rec["build_error"] = str(e)
            OUT[name] = rec
            return
        rec["variables"] = variables_json(g)
        with tf1.Session(graph=g) as sess:
            sess.run([tf1.global_variables_initializer(), tf1.tables_initializer()])
            if kind == "linear_model":
                vals = {}
                for v in g.get_collection(tf1.GraphKeys.GLOBAL_VARIABLES):
                    n = int(np.prod(v.shape.as_list()))
                    val = (np.arange(n, dtype=np.float32) * 0.5 - 1.0).reshape(v.shape.as_list())
                    sess.run(v.assign(val))
                    vals[v.op.name] = tensor_json(val)
                rec["assigned"] = vals
            try:
                if kind == "transform":
                    res = {}
                    for col, t in out.items():
                        if isinstance(t, tuple):
                            ids, w = sess.run(t)
                            res[col.name] = {"ids": sparse_json(ids), "weights": sparse_json(w)}
                        elif isinstance(t, tf.SparseTensor):
                            res[col.name] = {"sparse": sparse_json(sess.run(t))}
                        else:
                            res[col.name] = {"dense": tensor_json(sess.run(t))}
                    rec["output"] = res
                else:
                    rec["output"] = tensor_json(sess.run(out))
            except tf.errors.OpError as e:
                rec["run_error"] = {"code": type(e).__name__, "message": e.message}
    OUT[name] = rec


def sparse_json(v):
    return {"indices": tensor_json(v.indices), "values": tensor_json(v.values),
            "dense_shape": tensor_json(v.dense_shape)}


# ---- numeric and bucketized ----
run_case("numeric", {"a": dense([[1.0], [5.0], [-2.5]], np.float32),
                     "b": dense([[1, 2], [3, 4], [5, 6]], np.int64)},
         lambda: [fc.numeric_column("b", shape=(2,), dtype=tf.int64), fc.numeric_column("a")])
run_case("numeric_rank1", {"a": dense([1.0, 2.0, 3.0], np.float32)},
         lambda: [fc.numeric_column("a")])
run_case("numeric_2d", {"m": dense(np.arange(12).reshape(2, 2, 3), np.float32)},
         lambda: [fc.numeric_column("m", shape=(2, 3))])
run_case("numeric_normalizer", {"a": dense([[1.0], [5.0]], np.float64)},
         lambda: [fc.numeric_column("a", dtype=tf.float64, normalizer_fn=lambda x: (x - 3.0) / 2.0)])
run_case("bucketized", {"p": dense([[-5.0], [0.0], [10.0], [99.9], [100.0], [1000.0]], np.float32)},
         lambda: [fc.bucketized_column(fc.numeric_column("p"), [0.0, 10.0, 100.0])])
run_case("bucketized_2d", {"q": dense([[0.5, 1.5], [2.5, 1.0]], np.float32)},
         lambda: [fc.bucketized_column(fc.numeric_column("q", shape=(2,)), [1.0, 2.0])])
run_case("bucketized_transform", {"q": dense([[0.5, 1.5], [2.5, 1.0]], np.float32)},
         lambda: [fc.bucketized_column(fc.numeric_column("q", shape=(2,)), [1.0, 2.0])], kind="transform")
run_case("bucketized_indicator", {"q": dense([[0.5, 1.5], [2.5, 1.0]], np.float32)},
         lambda: [fc.indicator_column(fc.bucketized_column(fc.numeric_column("q", shape=(2,)), [1.0, 2.0]))])

# ---- categorical: transforms and indicators ----
ID_DENSE = {"id": dense([[1, -1], [3, 2], [-1, -1]], np.int64)}
ID_SPARSE = {"id": sparse([[0, 0], [0, 1], [2, 0], [3, 2]], [0, 5, -2, 3], [4, 3], np.int64)}
run_case("identity_dense_transform", ID_DENSE, lambda: [fc.categorical_column_with_identity("id", 4)], kind="transform")
run_case("identity_dense_indicator", ID_DENSE, lambda: [fc.indicator_column(fc.categorical_column_with_identity("id", 4))])
run_case("identity_default_transform", ID_SPARSE,
         lambda: [fc.categorical_column_with_identity("id", 4, default_value=0)], kind="transform")
run_case("identity_default_indicator", ID_SPARSE,
         lambda: [fc.indicator_column(fc.categorical_column_with_identity("id", 4, default_value=0))])
run_case("identity_oor_indicator", ID_SPARSE,
         lambda: [fc.indicator_column(fc.categorical_column_with_identity("id", 4))])
run_case("identity_int32_rank1", {"id": dense([2, 0, -1], np.int32)},
         lambda: [fc.indicator_column(fc.categorical_column_with_identity("id", 3))])

WORDS = {"w": dense([["a", "z"], ["", ""], ["c", "b"], ["b", "b"]], object)}
run_case("vocab_list_transform", WORDS,
         lambda: [fc.categorical_column_with_vocabulary_list("w", ["a", "b", "c"], num_oov_buckets=2)], kind="transform")
run_case("vocab_list_default", WORDS,
         lambda: [fc.indicator_column(fc.categorical_column_with_vocabulary_list("w", ["a", "b", "c"], default_value=2))])
run_case("vocab_list_oov_indicator", WORDS,
         lambda: [fc.indicator_column(fc.categorical_column_with_vocabulary_list("w", ["a", "b", "c"], num_oov_buckets=2))])
run_case("vocab_list_ints", {"n": sparse([[0, 0], [1, 0], [1, 1]], [30, 10, 99], [2, 2], np.int32)},
         lambda: [fc.categorical_column_with_vocabulary_list("n", [10, 20, 30], dtype=tf.int32)], kind="transform")
run_case("vocab_file_transform", {"f": dense([["cherry", "kiwi"], ["apple", ""]], object)},
         lambda: [fc.categorical_column_with_vocabulary_file("f", VOCAB, num_oov_buckets=3)], kind="transform")
run_case("vocab_file_size", {"f": dense([["cherry", "date"], ["banana", "apple"]], object)},
         lambda: [fc.indicator_column(fc.categorical_column_with_vocabulary_file("f", VOCAB, vocabulary_size=2, default_value=1))])
run_case("hash_transform", {"h": dense([["Pigs", "Lets"], ["Fly", ""]], object)},
         lambda: [fc.categorical_column_with_hash_bucket("h", 10)], kind="transform")
run_case("hash_int_transform", {"h": sparse([[0, 0], [1, 0], [1, 3]], [7, 12345, -3], [2, 5], np.int64)},
         lambda: [fc.categorical_column_with_hash_bucket("h", 100, dtype=tf.int64)], kind="transform")

W_FEATS = {"id": sparse([[0, 0], [0, 1], [1, 0], [3, 0], [3, 1], [3, 2]], [1, 3, 2, 0, 0, 4], [4, 3], np.int64),
           "w": sparse([[0, 0], [0, 1], [1, 0], [3, 0], [3, 1], [3, 2]], [0.5, 2.0, 0.0, 1.0, -1.0, 3.0], [4, 3], np.float32)}
run_case("weighted_transform", W_FEATS,
         lambda: [fc.weighted_categorical_column(fc.categorical_column_with_identity("id", 5), "w")], kind="transform")
run_case("weighted_indicator", W_FEATS,
         lambda: [fc.indicator_column(fc.weighted_categorical_column(fc.categorical_column_with_identity("id", 5), "w"))])
run_case("weighted_dense_weights", {"id": dense([[1, 2], [0, -1]], np.int64), "w": dense([[2.0, 0.5], [3.0, 0.0]], np.float32)},
         lambda: [fc.indicator_column(fc.weighted_categorical_column(fc.categorical_column_with_identity("id", 3), "w"))])
for comb in ["sum", "mean", "sqrtn"]:
    run_case("weighted_embedding_" + comb, W_FEATS,
             lambda comb=comb: [fc.embedding_column(fc.weighted_categorical_column(fc.categorical_column_with_identity("id", 5), "w"),
                                                    2, combiner=comb, initializer=const_init(5, 2))])

# ---- embeddings ----
E_FEATS = {"x": sparse([[0, 0], [0, 1], [0, 2], [1, 0], [3, 0], [3, 1], [4, 0]], [0, 2, 2, 5, -1, 1, -1], [5, 3], np.int64)}
for comb in ["sum", "mean", "sqrtn"]:
    run_case("embedding_" + comb, E_FEATS,
             lambda comb=comb: [fc.embedding_column(fc.categorical_column_with_identity("x", 6), 3, combiner=comb,
                                                    initializer=const_init(6, 3))])
run_case("embedding_max_norm", E_FEATS,
         lambda: [fc.embedding_column(fc.categorical_column_with_identity("x", 6), 3, max_norm=1.5, initializer=const_init(6, 3))])
run_case("embedding_oor", E_FEATS,
         lambda: [fc.embedding_column(fc.categorical_column_with_identity("x", 4), 3, initializer=const_init(4, 3))])
run_case("embedding_dense_input", {"x": dense([[1, -1], [-1, -1], [0, 3]], np.int64)},
         lambda: [fc.embedding_column(fc.categorical_column_with_identity("x", 4), 2, initializer=const_init(4, 2))])
run_case("embedding_hash", {"h": dense([["Pigs", "Lets"], ["Fly", ""]], object)},
         lambda: [fc.embedding_column(fc.categorical_column_with_hash_bucket("h", 10), 2, combiner="sum", initializer=const_init(10, 2))])
run_case("embedding_vocab", WORDS,
         lambda: [fc.embedding_column(fc.categorical_column_with_vocabulary_list("w", ["a", "b", "c"], num_oov_buckets=2), 4,
                                      initializer=const_init(5, 4))])
run_case("embedding_not_trainable", {"x": dense([[1], [0]], np.int64)},
         lambda: [fc.embedding_column(fc.categorical_column_with_identity("x", 2), 2, trainable=False, initializer=const_init(2, 2))])

# The default truncated-normal initializer: statistics of a large table.
g = tf.Graph()
with g.as_default():
    tf1.set_random_seed(1)
    col = fc.embedding_column(fc.categorical_column_with_identity("x", 2000), 4)
    out = fc.input_layer({"x": tf.constant([[1]], dtype=tf.int64)}, [col])
    with tf1.Session() as sess:
        sess.run(tf1.global_variables_initializer())
        w = sess.run(g.get_collection(tf1.GraphKeys.GLOBAL_VARIABLES)[0])
OUT["embedding_default_init"] = {"shape": list(w.shape), "mean": float(w.mean()), "std": float(w.std()),
                                 "max_abs": float(np.abs(w).max()), "stddev": 0.5}

# ---- checkpoint-initialized embedding ----
CKPT = os.path.join(HERE, "ckpt", "model")
g = tf.Graph()
with g.as_default():
    saved = tf1.get_variable("saved/table", initializer=table(4, 2, scale=3.0))
    with tf1.Session() as sess:
        sess.run(tf1.global_variables_initializer())
        tf1.train.Saver([saved]).save(sess, CKPT, write_meta_graph=False)
os.remove(os.path.join(HERE, "ckpt", "checkpoint"))  # it holds absolute paths; tests use CKPT
run_case("embedding_ckpt", {"x": dense([[3, 1], [0, -1]], np.int64)},
         lambda: [fc.embedding_column(fc.categorical_column_with_identity("x", 4), 2, combiner="sum",
                                      ckpt_to_load_from=CKPT, tensor_name_in_ckpt="saved/table")])


# ---- tf.compat.v1.nn.safe_embedding_lookup_sparse itself ----
def safe_case(name, ids, weights, shards, **kw):
    g = tf.Graph()
    with g.as_default():
        i = ids["sparse"]
        sp_ids = make_features({"i": ids})["i"]
        sp_w = make_features({"w": weights})["w"] if weights else None
        params = [tf.constant(p) for p in shards]
        out = tf1.nn.safe_embedding_lookup_sparse(params if len(params) > 1 else params[0], sp_ids, sp_w, **kw)
        with tf1.Session() as sess:
            OUT[name] = {"ids": ids, "weights": weights, "params": [tensor_json(p) for p in shards], "kwargs": kw,
                         "static_shape": out.shape.as_list(), "output": tensor_json(sess.run(out))}


P5 = table(5, 2)
safe_case("safe_rank3", sparse([[0, 0, 0], [0, 0, 2], [0, 1, 0], [1, 1, 1], [1, 1, 2]], [1, 3, -1, 4, 0], [2, 2, 3], np.int64),
          None, [P5], combiner="mean")
safe_case("safe_default_id", sparse([[0, 0], [0, 1], [2, 0], [3, 0], [3, 1]], [1, 2, 3, -5, 4], [5, 2], np.int64),
          sparse([[0, 0], [0, 1], [2, 0], [3, 0], [3, 1]], [2.0, 1.0, 0.0, 1.0, 0.5], [5, 2], np.float32),
          [P5], combiner="sqrtn", default_id=1)
safe_case("safe_sum_negative_weights", sparse([[0, 0], [0, 1], [1, 0], [2, 0]], [1, 2, 3, 0], [4, 2], np.int32),
          sparse([[0, 0], [0, 1], [1, 0], [2, 0]], [-1.0, 2.0, 0.0, 0.5], [4, 2], np.float32), [P5], combiner="sum")
safe_case("safe_partitioned", sparse([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2]], [0, 4, 2, 3, 3], [3, 3], np.int64),
          None, [P5[:3], P5[3:]], combiner="mean", max_norm=1.0)


# ---- input_layer over several columns, twice, with options ----
MULTI = {"price": dense([[1.5], [20.0]], np.float32),
         "id": sparse([[0, 0], [1, 0], [1, 1]], [2, 0, 1], [2, 2], np.int64),
         "word": dense([["b", ""], ["a", "c"]], object)}


def multi_cols():
    price = fc.numeric_column("price")
    return [fc.embedding_column(fc.categorical_column_with_identity("id", 3), 2, initializer=const_init(3, 2)),
            price,
            fc.indicator_column(fc.categorical_column_with_vocabulary_list("word", ["a", "b", "c"])),
            fc.bucketized_column(price, [5.0, 10.0])]


run_case("input_layer_multi", MULTI, multi_cols)

g = tf.Graph()
with g.as_default():
    feats = make_features(MULTI)
    a = fc.input_layer(feats, multi_cols())
    b = fc.input_layer(feats, multi_cols(), weight_collections=["my_vars"], trainable=False)
    rec = {"features": MULTI, "variables": variables_json(g)}
    with tf1.Session() as sess:
        sess.run([tf1.global_variables_initializer(), tf1.tables_initializer()])
        rec["output"] = tensor_json(sess.run(a))
        rec["output2"] = tensor_json(sess.run(b))
OUT["input_layer_twice"] = rec

# ---- linear_model ----
LIN = {"price": dense([[1.5, 3.0], [20.0, -1.0], [0.0, 0.5]], np.float32),
       "id": sparse([[0, 0], [1, 0], [1, 1], [2, 0]], [2, 0, 1, 1], [3, 2], np.int64),
       "w": sparse([[0, 0], [1, 0], [1, 1], [2, 0]], [2.0, 0.5, 1.5, -1.0], [3, 2], np.float32),
       "p1": dense([[3.0], [12.0], [7.0]], np.float32)}


def lin_cols():
    return [fc.numeric_column("price", shape=(2,)),
            fc.bucketized_column(fc.numeric_column("p1"), [5.0, 10.0]),
            fc.weighted_categorical_column(fc.categorical_column_with_identity("id", 3), "w"),
            fc.embedding_column(fc.categorical_column_with_identity("id", 3), 2, initializer=const_init(3, 2))]


for comb in ["sum", "mean", "sqrtn"]:
    run_case("linear_model_" + comb, LIN, lin_cols, assign={"kwargs": {"units": 2, "sparse_combiner": comb}}, kind="linear_model")
run_case("linear_model_units1", {"id": LIN["id"]}, lambda: [fc.categorical_column_with_identity("id", 3)],
         assign={"kwargs": {}}, kind="linear_model")

# ---- make_parse_example_spec and parsing ----
def spec_json(spec):
    out = {}
    for k, v in spec.items():
        if isinstance(v, tf.io.FixedLenFeature):
            d = v.default_value
            out[k] = {"kind": "fixed", "shape": list(v.shape), "dtype": v.dtype.name,
                      "default": None if d is None else np.array(d, dtype=np.float64).reshape(-1).tolist(),
                      "repr": repr(v)}
        else:
            out[k] = {"kind": "var", "dtype": v.dtype.name, "repr": repr(v)}
    return out


def spec_cols():
    return [fc.numeric_column("price", shape=(2,), default_value=0.0),
            fc.numeric_column("age", dtype=tf.int64, default_value=30),
            fc.bucketized_column(fc.numeric_column("age", dtype=tf.int64, default_value=30), [18, 65]),
            fc.embedding_column(fc.weighted_categorical_column(fc.categorical_column_with_hash_bucket("word", 50), "word_w"), 3,
                                initializer=const_init(50, 3)),
            fc.indicator_column(fc.categorical_column_with_identity("cls", 4)),
            fc.categorical_column_with_vocabulary_list("color", ["r", "g"])]


g = tf.Graph()
with g.as_default():
    spec = fc.make_parse_example_spec(spec_cols())
    examples = []
    for price, age, words, cls, color in [([1.0, 2.0], 20, [(b"hello", 1.0), (b"world", 2.0)], [1, 3], [b"g"]),
                                          (None, None, [], [], []),
                                          ([5.0, -1.0], 70, [(b"x", 0.5)], [2], [b"r", b"b"])]:
        feat = {}
        if price is not None:
            feat["price"] = tf.train.Feature(float_list=tf.train.FloatList(value=price))
        if age is not None:
            feat["age"] = tf.train.Feature(int64_list=tf.train.Int64List(value=[age]))
        feat["word"] = tf.train.Feature(bytes_list=tf.train.BytesList(value=[w for w, _ in words]))
        feat["word_w"] = tf.train.Feature(float_list=tf.train.FloatList(value=[x for _, x in words]))
        feat["cls"] = tf.train.Feature(int64_list=tf.train.Int64List(value=cls))
        feat["color"] = tf.train.Feature(bytes_list=tf.train.BytesList(value=color))
        examples.append(tf.train.Example(features=tf.train.Features(feature=feat)).SerializeToString())
    parsed = tf1.io.parse_example(tf.constant(examples), spec)
    cols = [c for c in spec_cols() if not isinstance(c, fc_old._CategoricalColumn) or isinstance(c, fc_old._DenseColumn)]
    out = fc.input_layer(parsed, cols)
    with tf1.Session() as sess:
        sess.run([tf1.global_variables_initializer(), tf1.tables_initializer()])
        res = sess.run(out)
OUT["parse_example_spec"] = {"spec": spec_json(spec), "examples": [e.hex() for e in examples],
                             "output": tensor_json(res), "variables": variables_json(g)}


# ---- errors ----
def err(f):
    try:
        f()
    except (ValueError, TypeError) as e:
        return str(e)
    return None


NUM = lambda: fc.numeric_column("x")
ERRORS = {
    "numeric_shape": err(lambda: fc.numeric_column("x", shape=(2, 0))),
    "numeric_dtype": err(lambda: fc.numeric_column("x", dtype=tf.string)),
    "numeric_default_shape": err(lambda: fc.numeric_column("x", shape=(2,), default_value=[1.0, 2.0, 3.0])),
    "bucketized_unsorted": err(lambda: fc.bucketized_column(NUM(), [1.0, 1.0])),
    "bucketized_empty": err(lambda: fc.bucketized_column(NUM(), [])),
    "bucketized_source": err(lambda: fc.bucketized_column(fc.categorical_column_with_identity("x", 3), [1.0])),
    "bucketized_2d": err(lambda: fc.bucketized_column(fc.numeric_column("x", shape=(2, 2)), [1.0])),
    "identity_buckets": err(lambda: fc.categorical_column_with_identity("x", 0)),
    "identity_default": err(lambda: fc.categorical_column_with_identity("x", 3, default_value=3)),
    "hash_size": err(lambda: fc.categorical_column_with_hash_bucket("x", 0)),
    "hash_dtype": err(lambda: fc.categorical_column_with_hash_bucket("x", 10, dtype=tf.float32)),
    "vocab_empty": err(lambda: fc.categorical_column_with_vocabulary_list("x", [])),
    "vocab_duplicate": err(lambda: fc.categorical_column_with_vocabulary_list("x", ["a", "b", "a"])),
    "vocab_oov_and_default": err(lambda: fc.categorical_column_with_vocabulary_list("x", ["a"], default_value=0, num_oov_buckets=1)),
    "vocab_negative_oov": err(lambda: fc.categorical_column_with_vocabulary_list("x", ["a"], num_oov_buckets=-1)),
    "vocab_dtype": err(lambda: fc.categorical_column_with_vocabulary_list("x", ["a"], dtype=tf.int64)),
    "vocab_file_missing": err(lambda: fc.categorical_column_with_vocabulary_file("x", "/nonexistent/vocab.txt")),
    "vocab_file_empty": err(lambda: fc.categorical_column_with_vocabulary_file("x", "")),
    "vocab_file_size": err(lambda: fc.categorical_column_with_vocabulary_file("x", VOCAB, vocabulary_size=0)),
    "weighted_dtype": err(lambda: fc.weighted_categorical_column(fc.categorical_column_with_identity("x", 3), "w", dtype=tf.string)),
    "indicator_input": err(lambda: fc.indicator_column(NUM())),
    "embedding_dimension": err(lambda: fc.embedding_column(fc.categorical_column_with_identity("x", 3), 0)),
    "embedding_ckpt": err(lambda: fc.embedding_column(fc.categorical_column_with_identity("x", 3), 2, ckpt_to_load_from="a")),
    "parse_spec_conflict": err(lambda: fc.make_parse_example_spec([fc.numeric_column("x"), fc.categorical_column_with_identity("x", 3)])),
    "weighted_spec_conflict": err(lambda: fc.make_parse_example_spec([fc.weighted_categorical_column(fc.categorical_column_with_identity("x", 3), "x")])),
}
OUT["errors"] = ERRORS

run_case("err_not_dense", {"x": dense([[1]], np.int64)}, lambda: [fc.categorical_column_with_identity("x", 3)])
run_case("err_empty_columns", {"x": dense([[1.0]], np.float32)}, lambda: [])
run_case("err_duplicate", {"x": dense([[1.0]], np.float32)}, lambda: [fc.numeric_column("x"), fc.numeric_column("x", shape=(1,))])
run_case("err_missing_feature", {"x": dense([[1.0]], np.float32)}, lambda: [fc.numeric_column("y")])
run_case("err_rank0", {"x": dense(1.0, np.float32)}, lambda: [fc.numeric_column("x")])
run_case("err_sparse_numeric", {"x": sparse([[0, 0]], [1.0], [1, 1], np.float32)}, lambda: [fc.numeric_column("x")])
run_case("err_batch_size", {"a": dense([[1.0], [2.0]], np.float32), "b": dense([[1.0], [2.0], [3.0]], np.float32)},
         lambda: [fc.numeric_column("a"), fc.numeric_column("b")])
run_case("err_identity_float", {"x": dense([[1.0]], np.float32)},
         lambda: [fc.indicator_column(fc.categorical_column_with_identity("x", 3))])
run_case("err_hash_int_input", {"h": dense([[1]], np.int64)},
         lambda: [fc.indicator_column(fc.categorical_column_with_hash_bucket("h", 3))])
run_case("err_vocab_dtype_input", {"w": dense([[1]], np.int64)},
         lambda: [fc.indicator_column(fc.categorical_column_with_vocabulary_list("w", ["a"]))])
run_case("err_weight_dtype", {"id": dense([[1]], np.int64), "w": dense([[1.0]], np.float64)},
         lambda: [fc.indicator_column(fc.weighted_categorical_column(fc.categorical_column_with_identity("id", 3), "w"))])
run_case("err_combiner", E_FEATS,
         lambda: [fc.embedding_column(fc.categorical_column_with_identity("x", 6), 3, combiner="max", initializer=const_init(6, 3))])

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump(OUT, f, indent=1, sort_keys=True)
print("wrote", len(OUT), "cases")
