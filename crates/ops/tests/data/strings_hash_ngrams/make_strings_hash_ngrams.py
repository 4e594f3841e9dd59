"""Records what TensorFlow 2.21 (tf.compat.v1, graph mode, CPU) computes for StringNGrams
(tf.strings.ngrams and the raw op), Fingerprint (tf.fingerprint) and StringToHashBucket
(tf.compat.v1.string_to_hash_bucket), for crates/ops/tests/integration/strings_hash_ngrams.rs.

Run: ~/.cache/weir-bench/venv/bin/python make_strings_hash_ngrams.py  (writes expected.json)

Each case: {"name", "op", "inputs": {name: tensor}, "placeholders": {name: static shape or
null} (inputs fed through placeholders; the others are constants), op arguments, and
"static_shapes" (a list per output, null for an unknown rank or dim) with "outputs" (tensors),
or "build_error" (adding the node failed: a Python ValueError/TypeError or a shape function) or
"error" (running failed), each {"code", "message"}. A tensor is {"dtype", "dims", "values"}:
strings base64, floats and half types as their bit patterns, complex as (re, im) bit pairs.
"""

import base64
import json
import os

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402
from tensorflow.python.ops import gen_string_ops  # noqa: E402

tf.disable_eager_execution()

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = []
BF16 = tf.bfloat16.as_numpy_dtype
BITS = {"float16": np.uint16, "bfloat16": np.uint16, "float32": np.uint32, "float64": np.uint64}


def enc(a, dtype):
    """A tensor spec of numpy array `a` of TensorFlow dtype name `dtype`."""
    a = np.asarray(a)
    dims = list(a.shape)
    flat = a.reshape(-1)
    if dtype == "string":
        vals = [base64.b64encode(x if isinstance(x, bytes) else x.encode()).decode() for x in flat]
    elif dtype in BITS:
        vals = [int(v) for v in flat.view(BITS[dtype])]
    elif dtype == "complex64":
        vals = [int(v) for v in flat.astype(np.complex64).view(np.float32).view(np.uint32)]
    elif dtype == "bool":
        vals = [bool(v) for v in flat]
    else:
        vals = [int(v) for v in flat.tolist()]
    return {"dtype": dtype, "dims": dims, "values": vals}


def np_of(spec):
    dt = spec["dtype"]
    vals = spec["values"]
    if dt == "string":
        arr = np.array([base64.b64decode(v) for v in vals], dtype=object)
    elif dt in BITS:
        arr = np.array(vals, dtype=BITS[dt]).view({"float16": np.float16, "bfloat16": BF16,
                                                   "float32": np.float32,
                                                   "float64": np.float64}[dt])
    elif dt == "complex64":
        arr = np.array(vals, dtype=np.uint32).view(np.float32).view(np.complex64)
    else:
        arr = np.array(vals, dtype=tf.as_dtype(dt).as_numpy_dtype)
    return arr.reshape(spec["dims"])


def message(e):
    msg = getattr(e, "message", None) or str(e)
    if "\nNode: '" in msg:
        msg = msg.split("\nNode: '", 1)[1].split("\n", 1)[1]
    msg = msg.split("\n\t [[")[0].split(" for '{{node ")[0]
    return msg.strip()


def err(e):
    code = e.error_code if isinstance(e, tf.errors.OpError) else 3
    return {"code": int(code), "message": message(e)}


def strs(*xs):
    return list(xs)


def tensor(c, key, g):
    spec = c["inputs"][key]
    v = np_of(spec)
    dt = tf.as_dtype(spec["dtype"]) if spec["dtype"] != "string" else tf.string
    if key in c.get("placeholders", {}):
        p = tf.placeholder(dt, c["placeholders"][key])
        return p, {p: v}
    return tf.constant(v, dtype=dt), {}


def build(c, g):
    op = c["op"]
    feeds = {}

    def inp(k):
        t, f = tensor(c, k, g)
        feeds.update(f)
        return t

    if op == "ngrams":
        a = c["args"]
        out = tf.strings.ngrams(inp("data"), a["width"], separator=a.get("separator", " "),
                                pad_values=a.get("pad_values"),
                                padding_width=a.get("padding_width"),
                                preserve_short_sequences=a.get("preserve", False))
        return [out], feeds
    if op == "ngrams_ragged":
        a = c["args"]
        rt = tf.RaggedTensor.from_row_splits(inp("data"), inp("splits"), validate=False)
        out = tf.strings.ngrams(rt, a["width"], separator=a.get("separator", " "),
                                pad_values=a.get("pad_values"),
                                padding_width=a.get("padding_width"),
                                preserve_short_sequences=a.get("preserve", False))
        return [out.values, out.row_splits], feeds
    if op == "string_ngrams":
        a = c["attrs"]
        out = gen_string_ops.string_n_grams(inp("data"), inp("splits"), **a)
        return list(out), feeds
    if op == "fingerprint":
        m = inp("method") if "method" in c["inputs"] else c.get("method", "farmhash64")
        return [tf.fingerprint(inp("data"), method=m)], feeds
    if op == "hash_bucket":
        return [tf.compat.v1.string_to_hash_bucket(inp("data"), c["num_buckets"])], feeds
    raise ValueError(op)


def shape_list(t):
    return None if t.shape.dims is None else t.shape.as_list()


def record(c):
    g = tf.Graph()
    with g.as_default():
        try:
            outs, feeds = build(c, g)
        except (ValueError, TypeError) as e:
            c["build_error"] = err(e)
            CASES.append(c)
            return
        c["static_shapes"] = [shape_list(t) for t in outs]
        try:
            with tf.Session() as s:
                vals = s.run(outs, feed_dict=feeds)
        except tf.errors.OpError as e:
            c["error"] = err(e)
            CASES.append(c)
            return
    c["outputs"] = [enc(v, tf.as_dtype(t.dtype).name) for v, t in zip(vals, outs)]
    CASES.append(c)


def S(values, dims=None):
    a = np.array([v.encode() if isinstance(v, str) else v for v in np.array(values, dtype=object).reshape(-1)],
                 dtype=object)
    if dims is None:
        dims = list(np.array(values, dtype=object).shape)
    return enc(a.reshape(dims), "string")


def I(values, dtype="int64"):
    return enc(np.array(values, dtype=dtype), dtype)


# ---------------------------------------------------------------------------------------------
# tf.strings.ngrams on dense data.
WORDS = ["a", "bb", "ccc", "dd", "e", "ff"]
dense = {
    "1d": S(WORDS),
    "2d": S(WORDS, [2, 3]),
    "3d": S(WORDS + WORDS, [2, 2, 3]),
    "short": S(["x", "y"]),
    "one": S(["solo"]),
    "empty1d": S([], [0]),
    "rows0": S([], [0, 3]),
    "cols0": S([], [2, 0]),
    "utf8": S(["café", "日本", "", "ß"]),
}
ARGS = [
    ("w1", {"width": 1}),
    ("w2", {"width": 2}),
    ("w3", {"width": 3}),
    ("w5", {"width": 5}),
    ("w23", {"width": [2, 3]}),
    ("w31", {"width": (3, 1)}),
    ("sep", {"width": 2, "separator": "--"}),
    ("sep_empty", {"width": 3, "separator": ""}),
    ("pad", {"width": 3, "pad_values": "<P>"}),
    ("pad_pair", {"width": 2, "pad_values": ("<s>", "</s>")}),
    ("pad_w1", {"width": 3, "pad_values": ("L", "R"), "padding_width": 1}),
    ("pad_w5", {"width": 3, "pad_values": ("L", "R"), "padding_width": 5}),
    ("pad_1gram", {"width": 1, "pad_values": "P"}),
    ("pad_multi", {"width": [1, 2, 4], "pad_values": ("L", "R")}),
    ("preserve", {"width": 4, "preserve": True}),
    ("preserve_pad", {"width": 6, "pad_values": ("L", "R"), "padding_width": 1, "preserve": True}),
    ("preserve_multi", {"width": [5, 6], "preserve": True, "separator": "_"}),
    ("pad_empty_strings", {"width": 3, "pad_values": ("", ""), "separator": ""}),
]
for dname, d in dense.items():
    for aname, a in ARGS:
        record({"name": f"ngrams_{dname}_{aname}", "op": "ngrams", "inputs": {"data": d}, "args": a})

# Unknown sizes: fed placeholders.
for dname, shape in [("2d", [None, 3]), ("2d", [2, None]), ("2d", [None, None]), ("1d", [None]),
                     ("3d", [None, 2, None]), ("rows0", [None, 3])]:
    for aname, a in [("w2", {"width": 2}), ("pad", {"width": 3, "pad_values": "P"})]:
        tag = "x".join("n" if s is None else str(s) for s in shape)
        record({"name": f"ngrams_fed_{dname}_{tag}_{aname}", "op": "ngrams",
                "inputs": {"data": dense[dname]}, "placeholders": {"data": shape}, "args": a})

# Python-level argument errors. (A tuple of widths with a bad one makes Python's own message
# formatting fail, "not all arguments converted during string formatting"; weir does not
# reproduce that.)
for aname, a in [("width0", {"width": 0}), ("width_neg_list", {"width": [2, -1]}),
                 ("padding_width0", {"width": 2, "pad_values": "P", "padding_width": 0}),
                 ("padding_width_no_pad", {"width": 2, "padding_width": 1})]:
    record({"name": f"ngrams_err_{aname}", "op": "ngrams", "inputs": {"data": dense["2d"]},
            "args": a})
record({"name": "ngrams_err_scalar", "op": "ngrams", "inputs": {"data": S("x", [])},
        "args": {"width": 2}})
record({"name": "ngrams_err_unknown_rank", "op": "ngrams", "inputs": {"data": dense["1d"]},
        "placeholders": {"data": None}, "args": {"width": 2}})

# tf.strings.ngrams on a ragged tensor of ragged rank 1 (values + row splits).
RAGGED = [
    ("basic", S(["a", "b", "c", "d", "e", "f"]), [0, 3, 3, 4, 6]),
    ("all_empty_rows", S([], [0]), [0, 0, 0]),
    ("one_row", S(["p", "q", "r", "s"]), [0, 4]),
]
for rname, vals, splits in RAGGED:
    for dt in ("int64", "int32"):
        for aname, a in [("w2", {"width": 2}), ("w13", {"width": [1, 3]}),
                         ("pad", {"width": 3, "pad_values": ("<", ">")}),
                         ("preserve", {"width": 3, "preserve": True}),
                         ("preserve_pad", {"width": 5, "pad_values": "#", "padding_width": 1,
                                           "preserve": True})]:
            record({"name": f"ragged_{rname}_{dt}_{aname}", "op": "ngrams_ragged",
                    "inputs": {"data": vals, "splits": I(splits, dt)}, "args": a})

# The raw op: attrs the Python wrapper never sets, and the kernel's checks.
BASE = {"separator": " ", "ngram_widths": [2], "left_pad": "L", "right_pad": "R",
        "pad_width": 0, "preserve_short_sequences": False}


def raw(name, data, splits, dt="int64", placeholders=None, **attrs):
    a = dict(BASE)
    a.update(attrs)
    c = {"name": "raw_" + name, "op": "string_ngrams", "inputs": {"data": data, "splits": I(splits, dt)},
         "attrs": a}
    if placeholders:
        c["placeholders"] = placeholders
    record(c)


abcd = S(["a", "b", "c", "d"])
raw("basic", abcd, [0, 2, 4])
raw("int32", abcd, [0, 1, 4], dt="int32", ngram_widths=[1, 2], pad_width=1)
raw("no_widths", abcd, [0, 2, 4], ngram_widths=[])
raw("no_widths_preserve", abcd, [0, 2, 4], ngram_widths=[], preserve_short_sequences=True,
    pad_width=1)
raw("no_widths_preserve_dynamic", abcd, [0, 2, 4], ngram_widths=[],
    preserve_short_sequences=True, pad_width=-1)
raw("no_widths_preserve_empty_row", abcd, [0, 0, 4], ngram_widths=[],
    preserve_short_sequences=True, pad_width=0)
raw("width0", abcd, [0, 4], ngram_widths=[2, 0])
raw("width_neg", abcd, [0, 4], ngram_widths=[-1])
raw("pad_neg2", abcd, [0, 4], ngram_widths=[3], pad_width=-2)
raw("pad_big", abcd, [0, 4], ngram_widths=[3], pad_width=100)
raw("pad_overflow", abcd, [0, 4], ngram_widths=[2147483647], pad_width=1073741822)
raw("pad_overflow_dynamic", abcd, [0, 4], ngram_widths=[2147483647], pad_width=-1)
raw("first_split", abcd, [1, 4])
raw("first_split_neg", abcd, [-1, 4])
raw("split_decreasing", abcd, [0, 3, 2, 4])
raw("split_past_end", abcd, [0, 5])
raw("last_split", abcd, [0, 3])
raw("last_split_int32", abcd, [0, 2, 3], dt="int32")
raw("no_splits", abcd, [])
raw("single_split", abcd, [0])
raw("empty_data", S([], [0]), [0, 0])
raw("empty_data_bad_split", S([], [0]), [0, 1])
raw("empty_both", S([], [0]), [])
raw("data_rank2", S(["a", "b"], [1, 2]), [0, 2])
raw("splits_rank2", abcd, [[0, 4]])
raw("fed_data_rank2", S(["a", "b", "c", "d"], [2, 2]), [0, 4], placeholders={"data": None})
raw("fed_data_rank2_no_splits", S(["a", "b", "c", "d"], [2, 2]), [], placeholders={"data": None})
raw("fed_unknown", abcd, [0, 1, 4], placeholders={"data": [None], "splits": None})
raw("empty_pads_sep", abcd, [0, 4], ngram_widths=[4], pad_width=3, left_pad="", right_pad="",
    separator="")
raw("long_pads", abcd, [0, 1, 2, 4], ngram_widths=[6, 2], pad_width=5, left_pad="<<",
    right_pad=">>>", separator="|")

# ---------------------------------------------------------------------------------------------
# tf.fingerprint over every dtype and shape.
rng = np.random.RandomState(7)
NUM = {
    "float32": np.array([0.0, -0.0, 1.5, np.nan, np.inf, -3.25], np.float32),
    "float64": np.array([0.0, -0.0, 1e300, np.nan, -np.inf, 2.5], np.float64),
    "float16": np.array([0.0, -0.0, 1.5, np.nan, 65504, -2], np.float16),
    "bfloat16": np.array([0.0, -0.0, 1.5, 3, -7, 1e10], BF16),
    "int8": np.array([0, -1, 127, -128, 5, 6], np.int8),
    "int16": np.array([0, -1, 32767, -32768, 5, 6], np.int16),
    "int32": np.array([0, -1, 2**31 - 1, -2**31, 5, 6], np.int32),
    "int64": np.array([0, -1, 2**63 - 1, -2**63, 5, 6], np.int64),
    "uint8": np.array([0, 1, 255, 128, 5, 6], np.uint8),
    "uint16": np.array([0, 1, 65535, 128, 5, 6], np.uint16),
    "uint32": np.array([0, 1, 2**32 - 1, 128, 5, 6], np.uint32),
    "uint64": np.array([0, 1, 2**64 - 1, 128, 5, 6], np.uint64),
    "bool": np.array([True, False, True, True, False, False]),
    "complex64": np.array([1 + 2j, -0.0, 3j, 4, 5 - 1j, 0], np.complex64),
}
for dt, arr in NUM.items():
    for dims in ([6], [3, 2], [2, 3], [1, 6], [2, 1, 3], [6, 1]):
        record({"name": f"fp_{dt}_{'x'.join(map(str, dims))}", "op": "fingerprint",
                "inputs": {"data": enc(arr.reshape(dims), dt)}})
    record({"name": f"fp_{dt}_empty_rows", "op": "fingerprint",
            "inputs": {"data": enc(arr[:0].reshape([0, 3]), dt)}})
    record({"name": f"fp_{dt}_empty_cols", "op": "fingerprint",
            "inputs": {"data": enc(arr[:0].reshape([2, 0]), dt)}})
for n in (0, 1, 3, 7, 8, 9, 16, 17, 33, 64, 65, 200):
    bs = bytes(rng.randint(0, 256, size=n).astype(np.uint8))
    record({"name": f"fp_uint8_len{n}", "op": "fingerprint",
            "inputs": {"data": enc(np.frombuffer(bs, np.uint8).reshape([1, n]), "uint8")}})
STRS = ["", "a", "hello", "café", "x" * 100, "\x00\x01", "TensorFlow", "日本語"]
for dims in ([8], [4, 2], [2, 4], [1, 8], [2, 2, 2], [8, 1]):
    record({"name": f"fp_string_{'x'.join(map(str, dims))}", "op": "fingerprint",
            "inputs": {"data": S(STRS, dims)}})
record({"name": "fp_string_empty_rows", "op": "fingerprint", "inputs": {"data": S([], [0, 2])}})
record({"name": "fp_string_fed", "op": "fingerprint", "inputs": {"data": S(STRS, [4, 2])},
        "placeholders": {"data": [None, 2]}})
record({"name": "fp_int32_fed_unknown_rank", "op": "fingerprint",
        "inputs": {"data": enc(NUM["int32"].reshape([2, 3]), "int32")},
        "placeholders": {"data": None}})
# Errors: the shape function, and the kernel when shapes or the method are only known later.
record({"name": "fp_err_scalar", "op": "fingerprint",
        "inputs": {"data": enc(np.int32(3), "int32")}})
record({"name": "fp_err_fed_scalar", "op": "fingerprint",
        "inputs": {"data": enc(np.int32(3), "int32")}, "placeholders": {"data": None}})
record({"name": "fp_err_method", "op": "fingerprint", "method": "md5",
        "inputs": {"data": enc(NUM["int32"], "int32")}})
record({"name": "fp_err_method_rank1", "op": "fingerprint",
        "inputs": {"data": enc(NUM["int32"], "int32"), "method": S(["farmhash64"])}})
record({"name": "fp_err_scalar_and_method_rank1", "op": "fingerprint",
        "inputs": {"data": enc(np.int32(3), "int32"), "method": S(["farmhash64"])}})
record({"name": "fp_method_fed", "op": "fingerprint",
        "inputs": {"data": enc(NUM["int32"], "int32"), "method": S("farmhash64", [])},
        "placeholders": {"method": []}})
record({"name": "fp_err_method_fed", "op": "fingerprint",
        "inputs": {"data": enc(NUM["int32"], "int32"), "method": S("sha1", [])},
        "placeholders": {"method": []}})
record({"name": "fp_err_method_fed_rank1", "op": "fingerprint",
        "inputs": {"data": enc(NUM["int32"], "int32"), "method": S(["farmhash64"])},
        "placeholders": {"method": None}})
record({"name": "fp_err_method_fed_before_data", "op": "fingerprint",
        "inputs": {"data": enc(np.int32(3), "int32"), "method": S("md5", [])},
        "placeholders": {"data": None, "method": []}})

# ---------------------------------------------------------------------------------------------
# tf.compat.v1.string_to_hash_bucket (legacy Hash64).
HASH_STRS = ["", "a", "ab", "abc", "abcd", "abcde", "abcdef", "abcdefg", "abcdefgh", "abcdefghi",
             "abcdefghij", "abcdefghijk", "abcdefghijkl", "abcdefghijklm", "abcdefghijklmn",
             "abcdefghijklmno", "abcdefghijklmnop", "abcdefghijklmnopq", "Hello", "TensorFlow",
             "2.x", "café", "日本語テキスト", "\xff\x80", "x" * 1000, "The quick brown fox"]
HASH_STRS += [bytes(rng.randint(0, 256, size=n).astype(np.uint8)) for n in range(0, 40)]
record({"name": "hash_many_2pow62", "op": "hash_bucket", "num_buckets": 2**62,
        "inputs": {"data": S(HASH_STRS, [len(HASH_STRS)])}})
record({"name": "hash_many_max", "op": "hash_bucket", "num_buckets": 2**63 - 1,
        "inputs": {"data": S(HASH_STRS, [len(HASH_STRS)])}})
for nb in (1, 3, 10, 1000):
    record({"name": f"hash_2d_{nb}", "op": "hash_bucket", "num_buckets": nb,
            "inputs": {"data": S(HASH_STRS[:24], [4, 6])}})
record({"name": "hash_scalar", "op": "hash_bucket", "num_buckets": 7,
        "inputs": {"data": S("Hello", [])}})
record({"name": "hash_empty", "op": "hash_bucket", "num_buckets": 7,
        "inputs": {"data": S([], [0, 3])}})
record({"name": "hash_fed", "op": "hash_bucket", "num_buckets": 100,
        "inputs": {"data": S(HASH_STRS[:6], [2, 3])}, "placeholders": {"data": [None, 3]}})
record({"name": "hash_err_buckets0", "op": "hash_bucket", "num_buckets": 0,
        "inputs": {"data": S(["a"])}})

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump(CASES, f, indent=0, ensure_ascii=False)
print(len(CASES), "cases,", sum("error" in c or "build_error" in c for c in CASES), "errors")
