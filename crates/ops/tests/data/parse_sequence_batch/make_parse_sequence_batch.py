"""Records TensorFlow 2.21's tf.io.parse_sequence_example (op ParseSequenceExampleV2) outputs and
errors into expected.json.

Run with TensorFlow 2.21:
    $HOME/.cache/weir-bench/venv/bin/python make_parse_sequence_batch.py
(writes expected.json next to this file).

Each case builds `tf.io.parse_sequence_example` in a tf.compat.v1 graph and runs it in a Session.
Inputs: `serialized` ({values: base64 strings, dims: the tensor's shape, optional `shape`: the
static shape of a placeholder fed the value, None for an unknown dim, "unknown" for an unknown
rank}), `context` and `sequence` (feature specs: key, kind "fixed" / "var" / "fixed_seq", dtype,
shape, optional default / allow_missing), optional `example_names` (a list of strings).
Recorded: `static` (per output group and key: a dense shape, or the three shapes of a sparse
tensor's indices, values and dense_shape) and `outputs` (the same layout with {dims, values}:
float32 values as their bit patterns, strings as base64), or the error (`build_error` when
building failed, `error` when running did) as TensorFlow's canonical code and message, without
TensorFlow's " for '{{node ...}}'" suffix.
"""
import base64
import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

DT = {"int64": tf.int64, "float32": tf.float32, "string": tf.string}


def b64(b):
    return base64.b64encode(b).decode()


def build_message(e):
    m = str(e)
    return m.split(" for '{{node")[0].split("\n\t; NodeDef")[0]


def run_message(e):
    lines = e.message.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("Node: '") and i + 1 < len(lines):
            return lines[i + 1]
    rest = [x for x in lines if x.strip() and x != "Graph execution error:"
            and not x.lstrip().startswith("[[")]
    return rest[0] if rest else lines[0]


# ------------------------------------------------------------------ building SequenceExamples


def feature(v):
    """A tf.train.Feature from a typed value: ("i", [..]) / ("f", [..]) / ("s", [..]) / None."""
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


def seq_example(context=None, lists=None):
    """context: {key: typed value}; lists: {key: [typed value, ...]}."""
    ex = tf.train.SequenceExample()
    for k, v in (context or {}).items():
        ex.context.feature[k].CopyFrom(feature(v))
    for k, rows in (lists or {}).items():
        fl = ex.feature_lists.feature_list[k]
        fl.SetInParent()
        for r in rows:
            fl.feature.add().CopyFrom(feature(r))
    return ex.SerializeToString()


def spec_feature(s):
    dt = DT[s["dtype"]]
    if s["kind"] == "var":
        return tf.io.VarLenFeature(dt)
    if s["kind"] == "fixed":
        d = s.get("default")
        if d is not None and s["dtype"] == "string":
            d = [base64.b64decode(x) for x in d]
        if d is not None:
            d = np.array(d, dtype=object if s["dtype"] == "string" else s["dtype"])
            d = d.reshape(s["shape"])
        return tf.io.FixedLenFeature(s["shape"], dt, default_value=d)
    return tf.io.FixedLenSequenceFeature(s["shape"], dt, allow_missing=s.get("allow_missing", False),
                                         default_value=s.get("default"))


def encode(v, dtype):
    a = np.asarray(v)
    if dtype == tf.string:
        vals = [b64(x) for x in a.reshape(-1).tolist()]
    elif dtype == tf.float32:
        vals = a.astype("<f4").reshape(-1).view(np.uint32).tolist()
    else:
        vals = [int(x) for x in a.reshape(-1)]
    return {"dims": list(a.shape), "values": vals}


def static(t):
    return t.shape.as_list() if t.shape.rank is not None else None


def layout(d, f_dense, f_sparse):
    out = {}
    for k, t in sorted(d.items()):
        if isinstance(t, tf.SparseTensor):
            out[k] = f_sparse(t)
        else:
            out[k] = f_dense(t)
    return out


def record(c):
    g = tf.Graph()
    with g.as_default():
        s = c["serialized"]
        value = np.array([base64.b64decode(x) for x in s["values"]], dtype=object).reshape(s["dims"])
        feeds = {}
        if "shape" in s:
            shape = None if s["shape"] == "unknown" else s["shape"]
            ser = tf.placeholder(tf.string, shape)
            feeds[ser] = value
        else:
            ser = tf.constant(value, dtype=tf.string)
        try:
            ctx = {x["key"]: spec_feature(x) for x in c.get("context", [])} or None
            seq = {x["key"]: spec_feature(x) for x in c.get("sequence", [])} or None
            out = tf.io.parse_sequence_example(ser, ctx, seq, example_names=c.get("example_names"))
        except (ValueError, TypeError, tf.errors.OpError) as e:
            code = e.error_code if isinstance(e, tf.errors.OpError) else 3
            c["build_error"] = {"code": code, "message": build_message(e)}
            return c
        c["static"] = [layout(d, static, lambda t: [static(t.indices), static(t.values),
                                                    static(t.dense_shape)]) for d in out]
        with tf.Session() as sess:
            try:
                v = sess.run(out, feed_dict=feeds)
            except tf.errors.OpError as e:
                c["error"] = {"code": e.error_code, "message": run_message(e)}
                return c
        outs = []
        for got, d in zip(v, out):
            entry = {}
            for k in sorted(got):
                t = d[k]
                if isinstance(t, tf.SparseTensor):
                    sv = got[k]
                    entry[k] = {"indices": encode(sv.indices, tf.int64),
                                "values": encode(sv.values, t.dtype),
                                "dense_shape": encode(sv.dense_shape, tf.int64)}
                else:
                    entry[k] = encode(got[k], t.dtype)
            outs.append(entry)
        c["outputs"] = outs
    return c


CASES = []


def case(name, examples, context=(), sequence=(), names=None, dims=None, shape="vector"):
    ser = {"values": [b64(x) for x in examples]}
    ser["dims"] = dims if dims is not None else [len(examples)]
    if shape == "vector":
        pass
    elif shape is not None:
        ser["shape"] = shape
    c = dict(name=name, serialized=ser, context=list(context), sequence=list(sequence))
    if names is not None:
        c["example_names"] = names
    CASES.append(c)


def fixed(key, dtype, shape=(), default=None):
    d = dict(key=key, kind="fixed", dtype=dtype, shape=list(shape))
    if default is not None:
        d["default"] = default
    return d


def var(key, dtype):
    return dict(key=key, kind="var", dtype=dtype)


def fseq(key, dtype, shape=(), allow_missing=False, default=None):
    d = dict(key=key, kind="fixed_seq", dtype=dtype, shape=list(shape), allow_missing=allow_missing)
    if default is not None:
        d["default"] = default
    return d


def sb(*xs):
    return [base64.b64encode(x).decode() for x in xs]


# ------------------------------------------------------------------ examples

E0 = seq_example(
    {"len": ("i", [2]), "label": ("s", [b"cat"]), "w": ("f", [0.5, 1.5]), "tags": ("s", [b"a", b"b"])},
    {"tok": [("i", [1]), ("i", [2])], "vec": [("f", [1, 2]), ("f", [3, 4])],
     "word": [("s", [b"x"]), ("s", [b"y"])], "ragged": [("i", [1, 2, 3]), ("i", [])],
     "fr": [("f", [0.25])]})
E1 = seq_example(
    {"len": ("i", [3]), "label": ("s", [b"dog"]), "w": ("f", [2.5, 3.5])},
    {"tok": [("i", [5]), ("i", [6]), ("i", [7])], "vec": [("f", [5, 6]), ("f", [7, 8]), ("f", [9, 10])],
     "word": [("s", [b"p"]), ("s", [b"q"]), ("s", [b"r"])], "ragged": [("i", [4]), ("i", [5, 6]), ("i", [])],
     "sr": [("s", [b"u", b"v"])]})
E2 = seq_example(
    {"len": ("i", [0]), "label": ("s", [b"emu"]), "w": ("f", [4.5, 5.5]), "tags": ("s", [b"c"])},
    {"tok": [], "vec": [], "word": [], "ragged": []})
E_EMPTY = seq_example()

CTX = [fixed("len", "int64"), fixed("label", "string"), fixed("w", "float32", [2]), var("tags", "string")]
SEQ = [fseq("tok", "int64"), fseq("vec", "float32", [2]), fseq("word", "string"),
       var("ragged", "int64")]

case("batch3_all_kinds", [E0, E1, E2], CTX, SEQ)
case("batch1", [E0], CTX, SEQ)
case("batch0", [], CTX, SEQ)
case("batch0_seq_only", [], sequence=SEQ)
case("batch3_names", [E0, E1, E2], CTX, SEQ, names=["a", "b", "c"])
case("batch2_reordered", [E2, E0], CTX, SEQ)
case("scalar_input", [E1], CTX, SEQ, dims=[])
case("scalar_placeholder", [E1], CTX, SEQ, dims=[], shape=[])
case("placeholder_unknown_batch", [E0, E1], CTX, SEQ, shape=[None])
case("placeholder_unknown_rank", [E0, E1], CTX, SEQ, shape="unknown")
case("placeholder_fixed_batch", [E0, E1, E2], CTX, SEQ, shape=[3])
case("context_only", [E0, E1], CTX)
case("sequence_only", [E0, E1, E2], sequence=SEQ)
case("sequence_float_var", [E0, E1], sequence=[var("fr", "float32"), var("sr", "string")])
case("context_defaults",
     [E_EMPTY, E0],
     [fixed("len", "int64", default=[-1]), fixed("label", "string", default=sb(b"none")),
      fixed("w", "float32", [2], default=[9.0, 8.0]), fixed("m", "int64", [2, 2], default=[[1, 2], [3, 4]])])
case("context_var_missing_everywhere", [E_EMPTY, E_EMPTY], [var("tags", "string"), var("n", "int64")])
case("allow_missing", [E0, E_EMPTY, E1],
     sequence=[fseq("tok", "int64", allow_missing=True), fseq("vec", "float32", [2], allow_missing=True),
               fseq("word", "string", allow_missing=True)])
case("allow_missing_all_missing", [E_EMPTY, E_EMPTY],
     sequence=[fseq("tok", "int64", allow_missing=True), fseq("vec", "float32", [2], allow_missing=True)])
case("missing_required_list", [E0, E_EMPTY], sequence=[fseq("tok", "int64")])
case("missing_required_list_named", [E0, E_EMPTY], sequence=[fseq("tok", "int64")], names=["first", "second"])
case("missing_required_context", [E0, E_EMPTY], [fixed("len", "int64")])
case("missing_required_context_named", [E_EMPTY], [fixed("len", "int64")], names=["only"])
case("context_type_mismatch", [E0, E1], [fixed("len", "float32")], names=["x0", "x1"])
case("context_var_type_mismatch", [E0], [var("tags", "int64")])
case("list_type_mismatch", [E0, E1], sequence=[fseq("tok", "float32")], names=["x0", "x1"])
case("list_var_type_mismatch", [E1], sequence=[var("word", "int64")])
case("context_wrong_count_max", [E0, E1], [fixed("w", "float32", [3])])
case("context_wrong_count_some",
     [seq_example({"w": ("f", [1, 2])}), seq_example({"w": ("f", [1])})], [fixed("w", "float32", [2])],
     names=["good", "short"])
case("context_wrong_count_default",
     [E_EMPTY, seq_example({"w": ("f", [1])})], [fixed("w", "float32", [2], default=[0.0, 0.0])])
case("context_empty_feature",
     [seq_example({"w": None})], [fixed("w", "float32", [2], default=[1.0, 2.0])])
case("context_empty_list",
     [seq_example({"w": ("f", [])}), seq_example({"w": ("f", [1, 2])})], [fixed("w", "float32", [2])])
case("list_wrong_row_size", [seq_example(lists={"v": [("f", [1, 2]), ("f", [1, 2, 3, 4])]})],
     sequence=[fseq("v", "float32", [2])])
case("list_row_too_short", [seq_example(lists={"v": [("f", [1, 2, 3]), ("f", [1])]})],
     sequence=[fseq("v", "float32", [2])], names=["ex"])
case("list_not_multiple", [seq_example(lists={"v": [("f", [1, 2, 3])]})],
     sequence=[fseq("v", "float32", [2])])
case("list_empty_row_in_dense", [seq_example(lists={"v": [("f", [1]), None]})],
     sequence=[fseq("v", "float32")])
case("list_empty_typed_row_in_dense", [seq_example(lists={"v": [("f", [1]), ("f", [])]})],
     sequence=[fseq("v", "float32")])
case("list_empty_rows_sparse", [seq_example(lists={"v": [None, ("f", []), ("f", [1, 2])]}), E_EMPTY],
     sequence=[var("v", "float32")])
case("list_2d_rows", [seq_example(lists={"m": [("i", [1, 2, 3, 4, 5, 6])]}),
                      seq_example(lists={"m": [("i", [0] * 6), ("i", list(range(6)))]})],
     sequence=[fseq("m", "int64", [2, 3])])
# Not recorded: a FixedLenSequenceFeature of shape [0] crashes TensorFlow 2.21 (SIGFPE, a division
# by the row size 0 in ParseSequenceDenseFeatures).
case("list_empty_feature_list", [seq_example(lists={"tok": []}), E0], sequence=[fseq("tok", "int64")])
case("invalid_proto", [E0, b"\xff\xff\xff"], CTX, SEQ, names=["ok", "bad"])
case("invalid_proto_unnamed", [b"\x0a\x05abc"], CTX, SEQ)
case("garbage_tail", [E0 + b"\x12"], CTX, SEQ)
case("unknown_field_skipped", [E0 + b"\x18\x05"], CTX, SEQ)
case("names_wrong_length", [E0, E1], CTX, SEQ, names=["only_one"])
case("rank2_input", [E0, E1], CTX, SEQ, dims=[1, 2])
case("rank2_placeholder_unknown", [E0, E1], CTX, SEQ, dims=[1, 2], shape="unknown")
case("no_features", [E0])
case("seq_default_value", [E0], sequence=[fseq("tok", "int64", default=0)])
case("seq_default_value_allow_missing", [E0], sequence=[fseq("tok", "int64", allow_missing=True, default=7)])
case("scalar_missing_list", [E_EMPTY], sequence=[fseq("tok", "int64")], dims=[])
case("duplicate_context_key_last_wins",
     [seq_example({"len": ("i", [1])}) + seq_example({"len": ("i", [9])})], [fixed("len", "int64")])
case("packed_and_unpacked",
     [seq_example({"n": ("i", [1, 2, 300000, -5])}, {"l": [("i", [-1]), ("i", [2**40])]})],
     [var("n", "int64")], [fseq("l", "int64")])
case("strings_padding", [seq_example(lists={"s": [("s", [b"a"]), ("s", [b"bb"])]}),
                         seq_example(lists={"s": [("s", [b""])]}), E_EMPTY],
     sequence=[fseq("s", "string", allow_missing=True)])
case("context_fixed_string_2d", [seq_example({"s": ("s", [b"a", b"b", b"c", b"d"])})] * 2,
     [fixed("s", "string", [2, 2])])
case("sparse_wide_and_long", [seq_example(lists={"v": [("i", list(range(7)))]}),
                              seq_example(lists={"v": [("i", [1])] * 5})], sequence=[var("v", "int64")])

case("batch0_defaults", [],
     [fixed("len", "int64", default=[-1]), fixed("w", "float32", [2], default=[1.0, 2.0]), var("tags", "string")],
     [fseq("tok", "int64", allow_missing=True), fseq("vec", "float32", [2]), var("ragged", "int64")])
case("batch0_placeholder", [], [var("tags", "string")], [fseq("vec", "float32", [2])], shape=[None])
case("scalar_sparse_ranks", [E0], [var("tags", "string"), fixed("len", "int64")],
     [var("ragged", "int64"), fseq("tok", "int64")], dims=[])
case("scalar_named_error", [E_EMPTY], sequence=[fseq("tok", "int64")], dims=[], names=["solo"])
case("scalar_names_placeholder", [E0], [fixed("len", "int64")], dims=[], shape="unknown")
case("context_special_floats",
     [seq_example({"f": ("f", [float("nan"), float("inf"), -0.0])}),
      seq_example({"f": ("f", [-float("inf"), 1e-45, 3.4e38])})],
     [fixed("f", "float32", [3]), var("f2", "float32")])
case("context_var_empty_feature", [seq_example({"v": None}), seq_example({"v": ("i", [4, 5])})],
     [var("v", "int64")])
case("list_sparse_wrong_empty_kind", [seq_example(lists={"v": [("f", [1.0]), ("i", [])]})],
     sequence=[var("v", "float32")], names=["k"])
case("list_duplicate_key_last_wins",
     [seq_example(lists={"v": [("i", [1])]}) + seq_example(lists={"v": [("i", [2]), ("i", [3])]})],
     sequence=[fseq("v", "int64"), var("w", "int64")])


def raw_list_example(key, rows):
    """A SequenceExample whose feature list `key` holds the raw Feature bytes `rows`."""
    def delim(tag, b):
        n, out = len(b), bytearray([tag << 3 | 2])
        while True:
            if n < 0x80:
                out.append(n)
                break
            out.append(n & 0x7F | 0x80)
            n >>= 7
        return bytes(out) + b
    fl = b"".join(delim(1, r) for r in rows)
    entry = delim(1, key.encode()) + delim(2, fl)
    return delim(2, delim(1, entry))


case("list_row_one_byte", [E0, raw_list_example("v", [b"\x00"])], sequence=[var("v", "int64")],
     names=["a", "b"])
case("list_row_bad_kind_dense", [raw_list_example("v", [b"\x1a\x03\x0a\x01\x05"])],
     sequence=[fseq("v", "float32")])
case("list_row_truncated", [raw_list_example("v", [b"\x1a\x05\x0a\x01"])],
     sequence=[var("v", "int64")])
case("many_examples", [E0, E1, E2, E_EMPTY, E1, E0],
     [fixed("len", "int64", default=[0]), var("tags", "string")],
     [fseq("vec", "float32", [2], allow_missing=True), var("ragged", "int64"),
      fseq("word", "string", allow_missing=True)])


def main():
    out = [record(c) for c in CASES]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(len(out), "cases,", sum(1 for c in out if "error" in c or "build_error" in c), "errors")


if __name__ == "__main__":
    main()
