"""Records TensorFlow 2.21's tf.compat.v1.feature_column crossed_column and
shared_embedding_columns results for weir's tests (feature_column_more.rs).

Run with the benchmark venv's python from this directory:
    $HOME/.cache/weir-bench/venv/bin/python make_feature_column_more.py
It writes expected_more.json here, with the conventions of make_feature_column.py: every
case builds a fresh tf.compat.v1 graph (reference variables), feeds constant features and
records outputs, variable names, shapes and collections, parse specs and error messages.
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
VOCAB = os.path.join(HERE, "vocab.txt")  # written by make_feature_column.py
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


def sparse_json(v):
    return {"indices": tensor_json(v.indices), "values": tensor_json(v.values),
            "dense_shape": tensor_json(v.dense_shape)}


def run_case(name, features, build, kind="input_layer", kwargs=None, collections=None):
    """build() -> columns; runs `kind` over them and records the output."""
    g = tf.Graph()
    rec = {"features": features}
    with g.as_default():
        feats = make_features(features)
        cols = build()
        rec["names"] = [c.name for c in cols]
        try:
            if kind == "input_layer":
                out = fc.input_layer(feats, cols, **(kwargs or {}))
            elif kind == "input_layer_twice":
                out = fc.input_layer(feats, cols)
                out2 = fc.input_layer(feats, cols, weight_collections=["my_vars"], trainable=False)
            elif kind == "linear_model":
                out = fc.linear_model(feats, cols, **(kwargs or {}))
            elif kind == "transform":
                out = fc_old._transform_features(feats, cols)
            else:
                raise ValueError(kind)
        except ValueError as e:
            rec["build_error"] = str(e)
            OUT[name] = rec
            return
        rec["variables"] = variables_json(g)
        if collections:
            rec["collections"] = {k: [v.op.name for v in g.get_collection(k)] for k in collections}
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
                        if isinstance(t, tf.SparseTensor):
                            res[col.name] = {"sparse": sparse_json(sess.run(t))}
                        else:
                            res[col.name] = {"dense": tensor_json(sess.run(t))}
                    rec["output"] = res
                else:
                    rec["output"] = tensor_json(sess.run(out))
                    if kind == "input_layer_twice":
                        rec["output2"] = tensor_json(sess.run(out2))
            except tf.errors.OpError as e:
                rec["run_error"] = {"code": type(e).__name__, "message": e.message}
    OUT[name] = rec


# ---- crossed_column ----
S2 = {"a": dense([["x", "y"], ["z", ""], ["", ""]], object),
      "b": dense([["p"], ["q"], ["r"]], object)}
run_case("cross_dense_strings", S2, lambda: [fc.crossed_column(["a", "b"], 10)], kind="transform")
run_case("cross_hash_key", S2, lambda: [fc.crossed_column(["b", "a"], 1000, hash_key=12345)], kind="transform")
run_case("cross_no_modulo_key_order", S2, lambda: [fc.crossed_column(["b", "a"], 1000)], kind="transform")
MIX = {"s": sparse([[0, 0], [0, 1], [2, 0], [3, 0]], ["u", "v", "w", "u"], [4, 2], object),
       "n": dense([3, -1, 7, 100], np.int64),
       "f": dense([[1.7], [-2.5], [0.2], [9.9]], np.float32),
       "i32": sparse([[0, 0], [1, 0], [2, 0], [2, 1], [3, 0]], [5, 6, 7, 8, 9], [4, 2], np.int32)}
run_case("cross_sparse_dense_mix", MIX, lambda: [fc.crossed_column(["s", "n"], 50)], kind="transform")
run_case("cross_float_and_int32", MIX, lambda: [fc.crossed_column(["f", "i32", "n"], 30)], kind="transform")
run_case("cross_nested", MIX,
         lambda: [fc.crossed_column([fc.crossed_column(["s", "n"], 5), "i32"], 40)], kind="transform")

BV = {"p": dense([[-5.0], [3.0], [20.0], [7.0]], np.float32),
      "w": dense([["a", "b"], ["c", ""], ["zz", "a"], ["", ""]], object),
      "id": sparse([[0, 0], [1, 0], [1, 1], [2, 0], [3, 0]], [1, 0, 2, 5, 3], [4, 2], np.int64),
      "q": dense([[0.5, 2.5], [1.5, 0.0], [3.0, 3.0], [1.0, 2.0]], np.float32)}
VOC = lambda: fc.categorical_column_with_vocabulary_list("w", ["a", "b", "c"], num_oov_buckets=1)
BUCK = lambda: fc.bucketized_column(fc.numeric_column("p"), [0.0, 10.0])
run_case("cross_bucketized_vocab_transform", BV, lambda: [fc.crossed_column([BUCK(), VOC()], 20)], kind="transform")
run_case("cross_bucketized_2d_identity", BV,
         lambda: [fc.crossed_column([fc.bucketized_column(fc.numeric_column("q", shape=(2,)), [1.0, 2.0]),
                                     fc.categorical_column_with_identity("id", 6)], 25)], kind="transform")
run_case("cross_vocab_file_string", {"f": dense([["cherry", "kiwi"], ["apple", ""]], object),
                                     "k": dense([["m"], ["n"]], object)},
         lambda: [fc.crossed_column([fc.categorical_column_with_vocabulary_file("f", VOCAB, num_oov_buckets=2), "k"], 9)],
         kind="transform")
run_case("cross_indicator", BV, lambda: [fc.indicator_column(fc.crossed_column([BUCK(), VOC()], 20))])
for comb in ["sum", "mean", "sqrtn"]:
    run_case("cross_embedding_" + comb, BV,
             lambda comb=comb: [fc.embedding_column(fc.crossed_column([BUCK(), "w"], 12), 3, combiner=comb,
                                                    initializer=const_init(12, 3))])
run_case("cross_input_layer_multi", BV,
         lambda: [fc.indicator_column(fc.crossed_column(["w", fc.categorical_column_with_identity("id", 6)], 7)),
                  fc.numeric_column("p"),
                  fc.embedding_column(fc.crossed_column([BUCK(), VOC()], 20), 2, initializer=const_init(20, 2))])
for comb in ["sum", "mean"]:
    run_case("cross_linear_model_" + comb, BV,
             lambda: [fc.crossed_column([BUCK(), VOC()], 20), fc.crossed_column(["w", "id"], 8), fc.numeric_column("p")],
             kind="linear_model", kwargs={"units": 2, "sparse_combiner": comb})
run_case("cross_err_weighted", {"id": dense([[1]], np.int64), "wt": dense([[1.0]], np.float32), "k": dense([["a"]], object)},
         lambda: [fc.indicator_column(fc.crossed_column(
             [fc.weighted_categorical_column(fc.categorical_column_with_identity("id", 3), "wt"), "k"], 5))])
run_case("cross_err_not_dense", S2, lambda: [fc.crossed_column(["a", "b"], 10)])
run_case("cross_err_missing", S2, lambda: [fc.indicator_column(fc.crossed_column(["a", "zz"], 10))])


# ---- shared_embedding_columns ----
SH = {"a": sparse([[0, 0], [0, 1], [1, 0], [3, 0]], [0, 3, 2, 1], [4, 2], np.int64),
      "b": dense([[1, -1], [-1, -1], [3, 3], [0, 2]], np.int64),
      "wa": sparse([[0, 0], [0, 1], [1, 0], [3, 0]], [1.0, 2.0, 0.5, 3.0], [4, 2], np.float32),
      "u": dense([["x", "y"], ["", ""], ["y", "q"], ["z", "x"]], object),
      "v": sparse([[0, 0], [2, 0], [2, 1]], ["z", "x", "x"], [4, 2], object),
      "p": dense([[1.0], [2.0], [3.0], [4.0]], np.float32)}
ID = lambda k, n=4: fc.categorical_column_with_identity(k, n)
for comb in ["sum", "mean", "sqrtn"]:
    run_case("shared_" + comb, SH,
             lambda comb=comb: fc.shared_embedding_columns([ID("b"), ID("a")], 2, combiner=comb, initializer=const_init(4, 2)),
             collections=["a_b_shared_embedding"])
run_case("shared_named_collection", SH,
         lambda: fc.shared_embedding_columns([ID("a"), ID("b")], 3, shared_embedding_collection_name="my_shared",
                                             initializer=const_init(4, 3)) + [fc.numeric_column("p")],
         collections=["my_shared"])
run_case("shared_weighted_vocab", SH,
         lambda: fc.shared_embedding_columns(
             [fc.weighted_categorical_column(ID("a"), "wa"), ID("b")], 2, initializer=const_init(4, 2), max_norm=1.0),
         collections=["a_weighted_by_wa_b_shared_embedding"])
run_case("shared_vocab_lists", SH,
         lambda: fc.shared_embedding_columns(
             [fc.categorical_column_with_vocabulary_list(k, ["x", "y", "z"]) for k in ["v", "u"]], 2,
             combiner="sum", initializer=const_init(3, 2), trainable=False))
run_case("shared_crossed", SH,
         lambda: fc.shared_embedding_columns([fc.crossed_column(["u", "a"], 6), fc.crossed_column(["v", "b"], 6)], 2,
                                             initializer=const_init(6, 2)))
run_case("shared_twice", SH,
         lambda: fc.shared_embedding_columns([ID("a"), ID("b")], 2, initializer=const_init(4, 2)), kind="input_layer_twice")
run_case("shared_options", SH,
         lambda: fc.shared_embedding_columns([ID("a"), ID("b")], 2, initializer=const_init(4, 2)),
         kwargs={"weight_collections": ["my_vars"], "trainable": False})
run_case("shared_linear_model", SH,
         lambda: fc.shared_embedding_columns([ID("a"), ID("b")], 2, initializer=const_init(4, 2),
                                             shared_embedding_collection_name="zz") + [fc.numeric_column("p"), ID("a")],
         kind="linear_model", kwargs={"units": 2})
run_case("shared_err_collection_shape", dict(SH, u_id=dense([[4], [0], [1], [2]], np.int64), v_id=dense([[1], [2], [3], [4]], np.int64)),
         lambda: fc.shared_embedding_columns([ID("a"), ID("b")], 2, shared_embedding_collection_name="c",
                                             initializer=const_init(4, 2)) +
         fc.shared_embedding_columns([ID("u_id", 5), ID("v_id", 5)], 2, shared_embedding_collection_name="c",
                                     initializer=const_init(5, 2)))

# the default initializer: statistics of a large table
g = tf.Graph()
with g.as_default():
    tf1.set_random_seed(1)
    cols = fc.shared_embedding_columns([ID("x", 2000), ID("y", 2000)], 4)
    out = fc.input_layer({"x": tf.constant([[1]], dtype=tf.int64), "y": tf.constant([[2]], dtype=tf.int64)}, cols)
    with tf1.Session() as sess:
        sess.run(tf1.global_variables_initializer())
        w = sess.run(g.get_collection(tf1.GraphKeys.GLOBAL_VARIABLES)[0])
OUT["shared_default_init"] = {"shape": list(w.shape), "mean": float(w.mean()), "std": float(w.std()),
                              "max_abs": float(np.abs(w).max()), "stddev": 0.5, "variables": variables_json(g)}


# ---- names, parse specs, errors ----
def spec_json(spec):
    out = {}
    for k, v in spec.items():
        out[k] = repr(v)
    return out


def err(f):
    try:
        f()
    except (ValueError, TypeError, AttributeError) as e:
        return {"type": type(e).__name__, "message": str(e)}
    return None


NUM = lambda: fc.numeric_column("x")
OUT["cross_names"] = {
    "simple": fc.crossed_column(["b", "a"], 5).name,
    "columns": fc.crossed_column([BUCK(), VOC(), "c"], 5).name,
    "nested": fc.crossed_column([fc.crossed_column(["z", "a"], 3), BUCK()], 5).name,
    "embedding": fc.embedding_column(fc.crossed_column(["b", "a"], 5), 2).name,
    "indicator": fc.indicator_column(fc.crossed_column(["b", "a"], 5)).name,
    "num_buckets": fc.crossed_column(["b", "a"], 5)._num_buckets,
    "shared": [c.name for c in fc.shared_embedding_columns([ID("b"), ID("a")], 2)],
    "shared_weighted": [c.name for c in fc.shared_embedding_columns([fc.weighted_categorical_column(ID("b"), "w"), ID("a")], 2)],
}
OUT["cross_spec"] = spec_json(fc.make_parse_example_spec(
    [fc.crossed_column([BUCK(), VOC(), "c", fc.crossed_column(["d", ID("e")], 3)], 5)]))
OUT["shared_spec"] = spec_json(fc.make_parse_example_spec(
    fc.shared_embedding_columns([fc.weighted_categorical_column(ID("a"), "wa"), ID("b")], 2)))
OUT["errors"] = {
    "cross_bucket_size": err(lambda: fc.crossed_column(["a", "b"], 0)),
    "cross_one_key": err(lambda: fc.crossed_column(["a"], 10)),
    "cross_hashed_key": err(lambda: fc.crossed_column([fc.categorical_column_with_hash_bucket("h", 10), "b"], 10)),
    "cross_numeric_key": err(lambda: fc.crossed_column([NUM(), "b"], 10)),
    "cross_embedding_key": err(lambda: fc.crossed_column([fc.embedding_column(ID("e"), 2), "b"], 10)),
    "shared_dimension": err(lambda: fc.shared_embedding_columns([ID("a"), ID("b")], 0)),
    "shared_ckpt": err(lambda: fc.shared_embedding_columns([ID("a"), ID("b")], 2, tensor_name_in_ckpt="t")),
    "shared_types": err(lambda: fc.shared_embedding_columns([ID("a"), fc.categorical_column_with_vocabulary_list("b", ["x", "y", "z", "w"])], 2)),
    "shared_types_bucketized": err(lambda: fc.shared_embedding_columns([fc.crossed_column(["a", "c"], 4), BUCK()], 2)),
    "shared_buckets": err(lambda: fc.shared_embedding_columns([ID("a", 4), ID("b", 5)], 2)),
    "shared_weighted_buckets": err(lambda: fc.shared_embedding_columns([fc.weighted_categorical_column(ID("b", 5), "w"), ID("a", 4)], 2)),
    "shared_not_categorical": err(lambda: fc.shared_embedding_columns([BUCK(), NUM()], 2)),
}

with open(os.path.join(HERE, "expected_more.json"), "w") as f:
    json.dump(OUT, f, indent=1, sort_keys=True)
print("wrote", len(OUT), "cases")
