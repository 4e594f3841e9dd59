"""Records TensorFlow 2.21's ParseSingleExample and ParseSequenceExampleV2 ops (through
tf.raw_ops, in tf.compat.v1 graphs run by a Session) into expected.json, writes GraphDefs
holding each op (graph_*.pb) with the values TensorFlow computed from them (graphs.json), and
the two OpDefs of TensorFlow's registry (op_defs.json).

Run with TensorFlow 2.21:
    $HOME/.cache/weir-bench/venv/bin/python make_parsing_single_and_sequence_v2.py

Tensors are specs {dtype, dims, values}: float32 values as their bit patterns, strings base64,
bools and integers as they are. An output whose value TensorFlow leaves unset (the row splits of
a context RaggedFeature, and the outer splits of a feature-list one, for a scalar input) is
recorded with `"values": null`: only its dtype and shape are TensorFlow's.

A case names its op ("single" or "v2") and the op's arguments in TensorFlow's names;
`serialized_shape` (a list with null for an unknown size, or "unknown") makes `serialized` a
placeholder of that static shape fed the value. Recorded: `static_shapes` (null for an unknown
rank) and `outputs`, or `build_error` / `error` as {code, message}, the message without
TensorFlow's " for '{{node ...}}'" suffix.
"""
import base64
import json
import os
import re

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

HERE = os.path.dirname(os.path.abspath(__file__))
DT = {"int64": tf.int64, "float32": tf.float32, "string": tf.string, "int32": tf.int32,
      "bool": tf.bool}


def b64(b):
    return base64.b64encode(b).decode()


def spec(value, dtype):
    """The JSON spec of `value` (an array of `dtype`, a name of DT)."""
    if dtype == "string":
        a = np.array(value, dtype=object)
        vals = [b64(x) for x in a.reshape(-1).tolist()]
    else:
        a = np.array(value, dtype={"float32": np.float32, "int64": np.int64, "int32": np.int32,
                                   "bool": bool}[dtype])
        if dtype == "float32":
            vals = [int(x) for x in a.reshape(-1).view(np.uint32)]
        elif dtype == "bool":
            vals = [bool(x) for x in a.reshape(-1)]
        else:
            vals = [int(x) for x in a.reshape(-1)]
    return {"dtype": dtype, "dims": list(a.shape), "values": vals}


def tensor_of(s):
    """The numpy value of a spec."""
    vals = s["values"]
    if s["dtype"] == "string":
        return np.array([base64.b64decode(x) for x in vals], dtype=object).reshape(s["dims"])
    if s["dtype"] == "float32":
        return np.array(vals, dtype=np.uint32).view(np.float32).reshape(s["dims"])
    return np.array(vals, dtype={"int64": np.int64, "int32": np.int32,
                                 "bool": bool}[s["dtype"]]).reshape(s["dims"])


def name_of(dt):
    return {tf.int64: "int64", tf.float32: "float32", tf.string: "string", tf.int32: "int32",
            tf.bool: "bool"}[dt]


def out_spec(v, dtype):
    if dtype == tf.string:
        return spec(v, "string")
    return spec(v, name_of(dtype))


def build_message(e):
    m = str(e)
    return m.split(" for '{{node")[0].split("\n\t; NodeDef")[0]


def run_message(e):
    m = re.search(r"Node: '[^']*'\n(.*?)\n\t \[\[", e.message, re.S)
    return m.group(1) if m else e.message


def shape_arg(s):
    return tf.TensorShape(None) if s is None else tf.TensorShape(s)


# ------------------------------------------------------------------ serialized protos


def feature(v):
    """A tf.train.Feature from ("i", [..]) / ("f", [..]) / ("s", [..]), or an empty one (None)."""
    f = tf.train.Feature()
    if v is None:
        return f
    kind, vals = v
    if kind == "i":
        f.int64_list.value.extend(vals)
    elif kind == "f":
        f.float_list.value.extend(vals)
    else:
        f.bytes_list.value.extend(vals)
    return f


def example(feats):
    ex = tf.train.Example()
    for k, v in feats.items():
        ex.features.feature[k].CopyFrom(feature(v))
    return ex.SerializeToString(deterministic=True)


def seq_example(context=None, lists=None):
    ex = tf.train.SequenceExample()
    for k, v in (context or {}).items():
        ex.context.feature[k].CopyFrom(feature(v))
    for k, rows in (lists or {}).items():
        fl = ex.feature_lists.feature_list[k]
        fl.SetInParent()
        for r in rows:
            fl.feature.add().CopyFrom(feature(r))
    return ex.SerializeToString(deterministic=True)


# ------------------------------------------------------------------ recording


def flat(outs):
    return [x for o in outs for x in (o if isinstance(o, list) else [o])]


def serialized_input(c, feeds):
    value = tensor_of(c["serialized"])
    if "serialized_shape" in c:
        s = c["serialized_shape"]
        p = tf.placeholder(tf.string, None if s == "unknown" else s)
        feeds[p] = value
        return p
    return tf.constant(value, dtype=tf.string)


def build_single(c, feeds):
    return tf.raw_ops.ParseSingleExample(
        serialized=serialized_input(c, feeds),
        dense_defaults=[tf.constant(tensor_of(d), DT[d["dtype"]]) for d in c["dense_defaults"]],
        num_sparse=len(c["sparse_keys"]),
        sparse_keys=c["sparse_keys"],
        dense_keys=c["dense_keys"],
        sparse_types=[DT[t] for t in c["sparse_types"]],
        dense_shapes=[shape_arg(s) for s in c["dense_shapes"]])


V2_KEYS = ["context_sparse_keys", "context_dense_keys", "context_ragged_keys",
           "feature_list_sparse_keys", "feature_list_dense_keys", "feature_list_ragged_keys"]
V2_TYPES = ["context_sparse_types", "context_ragged_value_types", "context_ragged_split_types",
            "feature_list_dense_types", "feature_list_sparse_types",
            "feature_list_ragged_value_types", "feature_list_ragged_split_types"]


def build_v2(c, feeds):
    args = dict(serialized=serialized_input(c, feeds),
                debug_name=tf.constant(tensor_of(c["debug_name"]), tf.string))
    for k in V2_KEYS:
        args[k] = tf.constant(tensor_of(c[k]), tf.string)
    args["feature_list_dense_missing_assumed_empty"] = tf.constant(
        tensor_of(c["feature_list_dense_missing_assumed_empty"]), tf.bool)
    args["context_dense_defaults"] = [tf.constant(tensor_of(d), DT[d["dtype"]])
                                      for d in c["context_dense_defaults"]]
    for k in V2_TYPES:
        args[k] = [DT[t] for t in c[k]]
    args["Ncontext_sparse"] = len(c["context_sparse_types"])
    args["Nfeature_list_sparse"] = len(c["feature_list_sparse_types"])
    args["Nfeature_list_dense"] = len(c["feature_list_dense_types"])
    args["context_dense_shapes"] = [shape_arg(s) for s in c["context_dense_shapes"]]
    args["feature_list_dense_shapes"] = [shape_arg(s) for s in c["feature_list_dense_shapes"]]
    return tf.raw_ops.ParseSequenceExampleV2(**args)


def unset_outputs(c, outs):
    """The outputs TensorFlow leaves unset: scalar context row splits and feature-list outer
    splits."""
    if c["op"] != "v2" or c["serialized"]["dims"] != []:
        return set()
    a = len(c["context_sparse_types"])
    b = len(c["context_dense_defaults"])
    r = len(c["context_ragged_value_types"])
    fs = len(c["feature_list_sparse_types"])
    fd = len(c["feature_list_dense_types"])
    q = len(c["feature_list_ragged_value_types"])
    ctx_splits = range(3 * a + b + r, 3 * a + b + 2 * r)
    outer = 3 * a + b + 2 * r + 3 * fs + 2 * fd + q
    return set(ctx_splits) | set(range(outer, outer + q))


def record(c):
    g = tf.Graph()
    with g.as_default():
        feeds = {}
        try:
            outs = flat(build_single(c, feeds) if c["op"] == "single" else build_v2(c, feeds))
        except (ValueError, TypeError, tf.errors.OpError) as e:
            code = e.error_code if isinstance(e, tf.errors.OpError) else 3
            c["build_error"] = {"code": code, "message": build_message(e)}
            return c
        c["static_shapes"] = [t.shape.as_list() if t.shape.rank is not None else None
                              for t in outs]
        target = [o for o in g.get_operations() if o.type.startswith("Parse")]
        with tf.Session(graph=g) as sess:
            try:
                got = sess.run(outs, feed_dict=feeds) if outs else []
                if not outs:
                    sess.run(target, feed_dict=feeds)
            except tf.errors.OpError as e:
                c["error"] = {"code": e.error_code, "message": run_message(e)}
                return c
        unset = unset_outputs(c, outs)
        c["outputs"] = []
        for k, (v, t) in enumerate(zip(got, outs)):
            s = out_spec(v, t.dtype)
            if k in unset:
                s["values"] = None
            c["outputs"].append(s)
    return c


CASES = []


def ser_spec(examples):
    """`examples` (bytes, or a list of bytes) as a string spec."""
    return spec(examples, "string")


def single(name, serialized, dense=(), sparse=(), **extra):
    """dense: (key, shape, default spec); sparse: (key, dtype name)."""
    c = dict(op="single", name=name, serialized=ser_spec(serialized),
             dense_keys=[d[0] for d in dense], dense_shapes=[d[1] for d in dense],
             dense_defaults=[d[2] for d in dense],
             sparse_keys=[s[0] for s in sparse], sparse_types=[s[1] for s in sparse])
    c.update(extra)
    CASES.append(c)


def v2(name, serialized, names=(), context=(), lists=(), **extra):
    """context: ("sparse", key, dtype) / ("dense", key, shape, default spec) /
    ("ragged", key, dtype, splits); lists: ("sparse", key, dtype) / ("dense", key, dtype,
    shape, missing_assumed_empty) / ("ragged", key, dtype, splits)."""
    c = dict(op="v2", name=name, serialized=ser_spec(serialized),
             debug_name=spec(list(names), "string"))
    ctx = {k: [x for x in context if x[0] == k] for k in ("sparse", "dense", "ragged")}
    fl = {k: [x for x in lists if x[0] == k] for k in ("sparse", "dense", "ragged")}
    c["context_sparse_keys"] = spec([x[1].encode() for x in ctx["sparse"]], "string")
    c["context_dense_keys"] = spec([x[1].encode() for x in ctx["dense"]], "string")
    c["context_ragged_keys"] = spec([x[1].encode() for x in ctx["ragged"]], "string")
    c["feature_list_sparse_keys"] = spec([x[1].encode() for x in fl["sparse"]], "string")
    c["feature_list_dense_keys"] = spec([x[1].encode() for x in fl["dense"]], "string")
    c["feature_list_ragged_keys"] = spec([x[1].encode() for x in fl["ragged"]], "string")
    c["feature_list_dense_missing_assumed_empty"] = spec([x[4] for x in fl["dense"]], "bool")
    c["context_dense_defaults"] = [x[3] for x in ctx["dense"]]
    c["context_dense_shapes"] = [x[2] for x in ctx["dense"]]
    c["context_sparse_types"] = [x[2] for x in ctx["sparse"]]
    c["context_ragged_value_types"] = [x[2] for x in ctx["ragged"]]
    c["context_ragged_split_types"] = [x[3] for x in ctx["ragged"]]
    c["feature_list_sparse_types"] = [x[2] for x in fl["sparse"]]
    c["feature_list_dense_types"] = [x[2] for x in fl["dense"]]
    c["feature_list_dense_shapes"] = [x[3] for x in fl["dense"]]
    c["feature_list_ragged_value_types"] = [x[2] for x in fl["ragged"]]
    c["feature_list_ragged_split_types"] = [x[3] for x in fl["ragged"]]
    c.update(extra)
    CASES.append(c)


I64 = lambda v=(): spec(v, "int64")  # noqa: E731
F32 = lambda v=(): spec(v, "float32")  # noqa: E731
STR = lambda v=(): spec(v, "string")  # noqa: E731

# ------------------------------------------------------------------ ParseSingleExample

ALL = example({
    "i": ("i", [1, -2, 1 << 40]), "f": ("f", [1.5, -0.0, float("inf"), float("nan")]),
    "s": ("s", [b"a", b"", b"\xff\x00z"]), "i1": ("i", [7]), "f1": ("f", [2.5]),
    "s1": ("s", [b"one"]), "m": ("f", [1, 2, 3, 4, 5, 6]), "e": ("i", []), "none": None,
    "vi": ("i", [1, 2, 3, 4, 5, 6]), "vs": ("s", [b"p", b"q"]), "si": ("i", [4, 5]),
    "sf": ("f", [0.125]), "ss": ("s", [b"u", b"v", b"w"]),
})
single("every_kind_and_dtype", ALL,
       dense=[("i", [3], I64()), ("f", [4], F32()), ("s", [3], STR()), ("i1", [], I64()),
              ("f1", [1], F32()), ("s1", [], STR()), ("m", [2, 3], F32()),
              ("vi", [None, 2], I64(0)), ("vs", [None], STR(b""))],
       sparse=[("si", "int64"), ("sf", "float32"), ("ss", "string"), ("e", "int64")])
single("defaults_for_missing_features", ALL,
       dense=[("zi", [2], I64([5, 6])), ("zf", [], F32(0.25)), ("zs", [1, 2], STR([[b"x", b"y"]])),
              ("none", [2], I64([8, 9]))],
       sparse=[("zz", "string"), ("none", "float32")])
single("missing_variable_length_feature_is_empty", ALL,
       dense=[("zv", [None, 3], F32(1.0)), ("zw", [None], STR(b"pad"))])
single("missing_required_feature", ALL, dense=[("i", [3], I64()), ("zf", [2], F32())])
single("missing_required_string_feature", ALL, dense=[("zs", [], STR())])
single("dense_type_mismatch", ALL, dense=[("i", [3], F32())])
single("dense_type_mismatch_string", ALL, dense=[("s", [3], I64())])
single("sparse_type_mismatch", ALL, sparse=[("f", "string")])
single("sparse_type_mismatch_int", ALL, sparse=[("s", "int64")])
single("too_few_int64_values", ALL, dense=[("i", [4], I64())])
single("too_many_float_values", ALL, dense=[("f", [3], F32())])
single("too_many_bytes_values", ALL, dense=[("s", [2], STR())])
single("too_few_bytes_values", ALL, dense=[("s", [4], STR())])
single("too_many_int64_values", ALL, dense=[("i", [2], I64())])
single("too_few_float_values", ALL, dense=[("f", [5], F32())])
single("variable_length_not_divisible", ALL, dense=[("vi", [None, 4], I64(0))])
single("variable_length_strings_not_divisible", ALL, dense=[("s", [None, 2], STR(b""))])
single("variable_length_default_not_one_element", ALL, dense=[("vi", [None], I64([1, 2]))])
single("variable_length_default_empty", ALL, dense=[("vi", [None], I64())])
single("default_of_the_wrong_shape", ALL, dense=[("zz", [2], I64([1, 2, 3]))])
single("default_of_another_rank", ALL, dense=[("zz", [2], I64([[1, 2]]))])
single("default_for_a_matrix", ALL, dense=[("zz", [1, 2], I64([[1, 2]]))])
single("empty_serialized_example", b"",
       dense=[("a", [], I64(3)), ("v", [None], F32(0.0))], sparse=[("b", "string")])
single("unparseable_serialized", b"\n\x05abc", dense=[("a", [], I64(3))])
single("vector_serialized_at_build", [ALL], dense=[("i", [3], I64())])
single("vector_serialized_at_run", [ALL], dense=[("i", [3], I64())], serialized_shape="unknown")
single("scalar_fed_to_unknown_rank", ALL, dense=[("i", [3], I64())], sparse=[("s", "string")],
       serialized_shape="unknown")
single("scalar_placeholder", ALL, dense=[("i1", [], I64())], serialized_shape=[])
single("last_of_a_repeated_key_wins",
       example({"a": ("i", [1, 2]), "b": ("s", [b"x"])}) + example({"a": ("i", [3, 4])}),
       dense=[("a", [2], I64())], sparse=[("b", "string")])
single("duplicated_keys_find_nothing", ALL,
       dense=[("i", [3], I64([4, 5, 6])), ("i", [3], I64([7, 8, 9]))], sparse=[("s", "string")])
single("key_both_dense_and_sparse_finds_nothing", ALL,
       dense=[("i1", [], I64(0))], sparse=[("i1", "int64"), ("s", "string")])
single("key_both_dense_and_sparse_required", ALL, dense=[("i1", [], I64())],
       sparse=[("i1", "int64")])
single("sparse_keys_longer_than_types", ALL, sparse=[("i", "int64")],
       sparse_keys=["i", "f"])
single("dense_keys_longer_than_shapes", ALL, dense=[("i", [3], I64())], dense_keys=["i", "f"],
       dense_shapes=[[3]])
single("dense_shapes_longer_than_keys", ALL, dense=[("i", [3], I64())], dense_shapes=[[3], [2]])
single("dense_shape_with_unknown_inner_dim", ALL, dense=[("i", [3, None], I64())])
single("dense_shape_of_unknown_rank", ALL, dense=[("i", None, I64())])
single("no_features", ALL)
single("empty_lists", example({"a": ("i", []), "b": ("f", []), "c": ("s", [])}),
       dense=[("a", [0], I64()), ("b", [None], F32(0.0))], sparse=[("c", "string")])

# ------------------------------------------------------------------ ParseSequenceExampleV2

E1 = seq_example(
    {"cs": ("i", [1, 2]), "cd": ("f", [0.5, 1.5]), "cr": ("s", [b"a", b"bb", b""]),
     "ci": ("i", [9])},
    {"fs": [("f", [1.0]), ("f", []), ("f", [2.0, 3.0])],
     "fd": [("i", [1, 2]), ("i", [3, 4])],
     "fr": [("i", [5, 6]), ("i", []), ("i", [7])],
     "fstr": [("s", [b"x"]), ("s", [b"y"])]})
E2 = seq_example(
    {"cs": ("i", [3]), "cd": ("f", [2.0, 2.5]), "ci": ("i", [8])},
    {"fd": [("i", [5, 6])], "fr": [("i", [8])], "fstr": [("s", [b"z"])]})
E3 = seq_example({"cd": ("f", [3.0, 3.5])}, {"fd": []})
E4 = seq_example({"cd": ("f", [4.0, 4.5])}, {"fr": [("i", [1])]})
EVERY = dict(
    context=[("sparse", "cs", "int64"), ("dense", "cd", [2], F32()),
             ("dense", "ci", [], I64(-1)), ("ragged", "cr", "string", "int32")],
    lists=[("sparse", "fs", "float32"), ("dense", "fd", "int64", [2], False),
           ("ragged", "fr", "int64", "int64"), ("ragged", "fstr", "string", "int32")])

v2("scalar_every_kind", E1, **EVERY)
v2("scalar_with_debug_name", E1, names=[b"only"], **EVERY)
v2("batch_every_kind", [E1, E2, E3], names=[b"e1", b"e2", b"e3"], **EVERY)
v2("batch_without_names", [E1, E2, E3], **EVERY)
v2("empty_batch", [], **EVERY)
v2("empty_batch_with_defaults", [],
   context=[("sparse", "cs", "int64"), ("dense", "cd", [2], F32([0.0, 1.0])),
            ("ragged", "cr", "string", "int64")],
   lists=[("sparse", "fs", "float32"), ("dense", "fd", "int64", [2], True),
          ("ragged", "fr", "int64", "int32")])
v2("batch_placeholder_unknown_size", [E1, E2], serialized_shape=[None], **EVERY)
v2("unknown_rank_fed_a_vector", [E1, E2], serialized_shape="unknown", **EVERY)
v2("unknown_rank_fed_a_scalar", E1, serialized_shape="unknown", **EVERY)
v2("matrix_serialized_at_build", [[E1]], **EVERY)
v2("matrix_serialized_at_run", [[E1]], serialized_shape="unknown", **EVERY)
v2("names_of_the_wrong_length", [E1, E2], names=[b"a"], **EVERY)
v2("context_defaults_used", [E2, E3],
   context=[("dense", "zz", [2], I64([4, 5])), ("dense", "zs", [], STR(b"d")),
            ("sparse", "zq", "string"), ("ragged", "zr", "float32", "int64")],
   lists=[("dense", "zd", "float32", [3], True), ("sparse", "zl", "int64"),
          ("ragged", "zg", "string", "int32")])
v2("scalar_missing_everything_allowed", E3,
   context=[("dense", "zz", [2], I64([4, 5])), ("ragged", "zr", "float32", "int64")],
   lists=[("dense", "zd", "float32", [3], True), ("ragged", "zg", "string", "int32")])
v2("missing_required_context_feature", [E1, E3], names=[b"a", b"b"],
   context=[("dense", "ci", [], I64())])
v2("context_default_of_the_wrong_shape", [E1],
   context=[("dense", "cd", [2], F32([1.0]))])
v2("context_dense_type_mismatch", [E1, E2], names=[b"x", b"y"],
   context=[("dense", "cd", [2], I64())])
v2("context_sparse_type_mismatch", E1, context=[("sparse", "cr", "float32")])
v2("context_ragged_type_mismatch", [E1], context=[("ragged", "cs", "string", "int64")])
v2("context_dense_too_many_values", [E1, E2], context=[("dense", "cs", [1], I64([0]))])
v2("context_dense_too_few_in_one_example", [E1, E2], names=[b"p", b"q"],
   context=[("dense", "cs", [2], I64([0, 0]))])
v2("feature_list_type_mismatch", [E1, E2], names=[b"x", b"y"],
   lists=[("sparse", "fd", "float32")])
v2("feature_list_ragged_type_mismatch", E1, lists=[("ragged", "fs", "string", "int32")])
v2("feature_list_dense_type_mismatch", [E2], lists=[("dense", "fd", "string", [2], False)])
v2("required_feature_list_missing", [E2, E4], names=[b"a", b"b"],
   lists=[("dense", "fd", "int64", [2], False)])
v2("feature_list_assumed_empty", [E2, E4, E3],
   lists=[("dense", "fd", "int64", [2], True)])
v2("scalar_feature_list_assumed_empty", E4,
   lists=[("dense", "fd", "string", [], True), ("dense", "fr", "int64", [1], False)])
v2("empty_feature_list_present_but_required", E3,
   lists=[("dense", "fd", "float32", [3], False)])
v2("feature_list_row_of_the_wrong_size", [E1], names=[b"n"],
   lists=[("dense", "fs", "float32", [1], False)])
v2("feature_list_values_not_whole_rows", [E1], lists=[("dense", "fr", "int64", [2], False)])
v2("feature_list_dense_matrix_rows", seq_example(None, {"m": [("f", [1, 2, 3, 4])] * 2}),
   lists=[("dense", "m", "float32", [2, 2], False)])
v2("invalid_protocol_message", [E1, b"\x0a\x05abc"], names=[b"a", b"bad"],
   context=[("sparse", "cs", "int64")])
v2("unknown_fields_are_skipped", E1 + b"\x18\x07",
   context=[("sparse", "cs", "int64")])
v2("context_key_both_sparse_and_ragged", E1,
   context=[("sparse", "cs", "int64"), ("ragged", "cs", "int64", "int32")])
v2("context_key_both_dense_and_sparse", E1,
   context=[("sparse", "cs", "int64"), ("dense", "cs", [2], I64())])
v2("feature_list_key_both_sparse_and_ragged", E1,
   lists=[("sparse", "fr", "int64"), ("ragged", "fr", "int64", "int32")])
v2("feature_list_key_both_dense_and_ragged", E1,
   lists=[("ragged", "fd", "int64", "int32"), ("dense", "fd", "int64", [2], False)])
v2("same_key_in_context_and_feature_lists", E1,
   context=[("sparse", "fd", "int64")], lists=[("sparse", "fd", "int64")])
v2("context_sparse_keys_more_than_types", E1, context=[("sparse", "cs", "int64")],
   context_sparse_keys=STR([b"cs", b"ci"]))
v2("context_dense_keys_fewer_than_types", E1, context=[("dense", "cd", [2], F32())],
   context_dense_keys=STR([]))
ONE = dict(context=[("sparse", "cs", "int64")])
v2("context_ragged_keys_more_than_types", E1, context_ragged_keys=STR([b"cr"]), **ONE)
v2("feature_list_sparse_keys_more_than_types", E1, feature_list_sparse_keys=STR([b"fs"]), **ONE)
v2("feature_list_dense_keys_more_than_types", E1, feature_list_dense_keys=STR([b"fd"]), **ONE)
v2("feature_list_ragged_keys_more_than_types", E1, feature_list_ragged_keys=STR([b"fr"]), **ONE)
v2("keys_as_a_matrix", E1, context_sparse_keys=STR([[b"cs"]]), **ONE)
v2("keys_as_a_scalar", E1, context_sparse_keys=STR(b"cs"), **ONE)
v2("debug_name_as_a_matrix", [E1], names=[[b"a"]], **ONE)
v2("assumed_empty_as_a_scalar", E1, lists=[("dense", "fd", "int64", [2], False)],
   feature_list_dense_missing_assumed_empty=spec(True, "bool"))
v2("missing_assumed_empty_of_the_wrong_length", E1,
   lists=[("dense", "fd", "int64", [2], False)],
   feature_list_dense_missing_assumed_empty=spec([True, False], "bool"))
v2("ragged_split_types_fewer_than_value_types", E1,
   context=[("ragged", "cr", "string", "int32")], context_ragged_split_types=[])
v2("feature_list_ragged_split_types_more", E1,
   lists=[("ragged", "fr", "int64", "int64")],
   feature_list_ragged_split_types=["int64", "int32"])
v2("feature_list_dense_shapes_fewer_than_types", E1,
   lists=[("dense", "fd", "int64", [2], False)], feature_list_dense_shapes=[])
v2("context_dense_shapes_more_than_defaults", E1,
   context=[("dense", "cd", [2], F32())], context_dense_shapes=[[2], [1]])
v2("nothing_requested", [E1, E2])


# ------------------------------------------------------------------ GraphDefs


def write_graphs():
    """GraphDefs written by TensorFlow holding each op, and the values TensorFlow computed."""
    graphs = []

    def save(name, g, feeds, outs):
        fetch = [tf.identity(t, name=f"out_{k}") for k, t in enumerate(outs)]
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(g.as_graph_def().SerializeToString())
        with tf.Session(graph=g) as sess:
            vals = sess.run(fetch, feed_dict={g.get_tensor_by_name(k): v for k, v in feeds.items()})
        graphs.append(dict(
            graph=name,
            ops=sorted({n.op for n in g.as_graph_def().node if n.op.startswith("Parse")}),
            feeds={k: out_spec(v, tf.string) for k, v in feeds.items()},
            fetches=[f"out_{k}:0" for k in range(len(outs))],
            outputs=[out_spec(v, t.dtype) for v, t in zip(vals, outs)]))

    # TensorFlow 1.x's tf.parse_single_example wrote this op; 2.21 builds it through raw_ops.
    g = tf.Graph()
    with g.as_default():
        ser = tf.placeholder(tf.string, [], name="serialized")
        o = tf.raw_ops.ParseSingleExample(
            serialized=ser,
            dense_defaults=[tf.constant([-1, -2], tf.int64), tf.constant([], tf.float32),
                            tf.constant(b"", tf.string)],
            num_sparse=2, sparse_keys=["tags", "w"], dense_keys=["ids", "score", "words"],
            sparse_types=[tf.string, tf.float32],
            dense_shapes=[tf.TensorShape([2]), tf.TensorShape([]), tf.TensorShape([None])])
        outs = flat(o)
        # Outputs wired into other ops, as a model's input pipeline does.
        outs.append(tf.reduce_sum(o.dense_values[0], name="ids_sum"))
        ex = example({"score": ("f", [0.75]), "words": ("s", [b"a", b"b", b"c"]),
                      "tags": ("s", [b"t"])})
        save("graph_parse_single_example.pb", g, {"serialized:0": ex}, outs)

    # What tf.io.parse_sequence_example builds in TensorFlow 2.21.
    g = tf.Graph()
    with g.as_default():
        ser = tf.placeholder(tf.string, [None], name="serialized")
        ctx, seq, lens = tf.io.parse_sequence_example(
            ser,
            context_features={"len": tf.io.FixedLenFeature([], tf.int64, default_value=0),
                              "tags": tf.io.VarLenFeature(tf.string)},
            sequence_features={"vec": tf.io.FixedLenSequenceFeature([2], tf.float32,
                                                                     allow_missing=True),
                               "tok": tf.io.VarLenFeature(tf.int64)})
        outs = [ctx["len"], ctx["tags"].indices, ctx["tags"].values, ctx["tags"].dense_shape,
                seq["vec"], seq["tok"].indices, seq["tok"].values, seq["tok"].dense_shape,
                lens["vec"]]
        exs = [seq_example({"len": ("i", [3]), "tags": ("s", [b"a", b"b"])},
                           {"vec": [("f", [1, 2]), ("f", [3, 4])], "tok": [("i", [1]), ("i", [])]}),
               seq_example({}, {"tok": [("i", [5, 6])]})]
        save("graph_parse_sequence_example.pb", g, {"serialized:0": exs}, outs)

    # tf.io.parse_single_sequence_example with RaggedFeatures: the op's ragged outputs.
    g = tf.Graph()
    with g.as_default():
        ser = tf.placeholder(tf.string, [], name="serialized")
        ctx, seq = tf.io.parse_single_sequence_example(
            ser,
            context_features={"words": tf.io.RaggedFeature(tf.string),
                              "n": tf.io.FixedLenFeature([], tf.int64)},
            sequence_features={"rows": tf.io.RaggedFeature(tf.int64, row_splits_dtype=tf.int32),
                               "v": tf.io.VarLenFeature(tf.float32)})
        outs = [ctx["words"], ctx["n"], seq["rows"].values, seq["rows"].row_splits,
                seq["v"].indices, seq["v"].values, seq["v"].dense_shape]
        ex = seq_example({"words": ("s", [b"x", b"y"]), "n": ("i", [2])},
                         {"rows": [("i", [1, 2]), ("i", []), ("i", [3])],
                          "v": [("f", [0.5]), ("f", [1.5, 2.5])]})
        save("graph_parse_sequence_example_ragged.pb", g, {"serialized:0": ex}, outs)

    with open(os.path.join(HERE, "graphs.json"), "w") as f:
        json.dump(graphs, f, indent=1)


def write_op_defs():
    """Each op's signature in TensorFlow's registry: argument names in order, and attrs."""
    from tensorflow.python.framework import op_def_registry
    defs = {}
    for name in ["ParseSingleExample", "ParseSequenceExampleV2"]:
        d = op_def_registry.get(name)
        defs[name] = dict(
            inputs=[a.name for a in d.input_arg],
            outputs=[a.name for a in d.output_arg],
            attrs={a.name: a.type for a in d.attr},
            defaults=sorted(a.name for a in d.attr if a.HasField("default_value")))
    with open(os.path.join(HERE, "op_defs.json"), "w") as f:
        json.dump(defs, f, indent=1)


def main():
    write_op_defs()
    out = [record(c) for c in CASES]
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(out, f, indent=1)
    write_graphs()
    errs = sum(1 for c in out if "error" in c or "build_error" in c)
    print(f"{len(out)} cases ({errs} errors)")


if __name__ == "__main__":
    main()
