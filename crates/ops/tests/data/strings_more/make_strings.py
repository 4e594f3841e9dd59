"""Records TensorFlow 2.21's string-op outputs and errors into expected.json.

Run with TensorFlow 2.21:  python make_strings.py  (writes expected.json next to this file).

Each case builds one op in a tf.compat.v1 graph (ReduceJoin, StaticRegexReplace, RegexReplace,
StringStrip, StringLower, StringUpper, Add, AddV2, StringToHashBucketStrong,
StaticRegexFullMatch) and runs it in a
Session. Inputs given with `input_shape` are placeholders of that static shape (None: unknown
rank) fed with `input`; otherwise constants. Strings that are not UTF-8 are lists of byte
values. Recorded: the static output shape (`static_shape`, None for unknown rank), then either
the value (`out`) or the error (`build_error` when adding the node failed, `error` when running
it did), as TensorFlow's canonical code and message. Graph-building messages keep only the part
before TensorFlow's " for '{{node ...}}'" suffix; run-time messages are the line TensorFlow
reports for the node.
"""
import json
import os
import re

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.python.ops import gen_math_ops, gen_string_ops

tf.disable_eager_execution()


def enc(s):
    if isinstance(s, str):
        return s
    try:
        return s.decode("utf-8")
    except UnicodeDecodeError:
        return list(s)


def dec(s):
    return s if isinstance(s, bytes) else s.encode("utf-8")


def to_json(v):
    if isinstance(v, dict):
        return {k: to_json(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [to_json(x) for x in v]
    if isinstance(v, bytes):
        return enc(v)
    return v


def tensor_json(v):
    a = np.asarray(v)
    flat = a.reshape(-1).tolist()
    if a.dtype == object:
        flat = [enc(x) for x in flat]
    return {"shape": list(a.shape), "values": flat}


def source(c, key, dtype):
    """A constant, or a placeholder of c[key + '_shape'] and its feed."""
    value = c[key]
    if dtype == tf.string:
        arr = np.array(value, dtype=object)
        value = np.array([dec(x) for x in arr.reshape(-1)], dtype=object).reshape(arr.shape)
    shape_key = key + "_shape"
    if shape_key not in c:
        return tf.constant(value, dtype=dtype), {}
    p = tf.placeholder(dtype, c[shape_key])
    return p, {p: value}


def build(c):
    op = c["op"]
    x, feeds = source(c, "input", tf.string)
    if op == "reduce_join":
        if "axis_shape" in c:
            axis, more = source(c, "axis", tf.int32)
            feeds.update(more)
            return gen_string_ops.reduce_join(x, axis, keep_dims=c["keepdims"],
                                              separator=c["separator"]), feeds
        return tf.strings.reduce_join(x, axis=c["axis"], keepdims=c["keepdims"],
                                      separator=c["separator"]), feeds
    if op == "regex_replace":
        return tf.strings.regex_replace(x, c["pattern"], c["rewrite"],
                                        replace_global=c["replace_global"]), feeds
    if op == "regex_replace_tensor":
        p, more = source(c, "pattern", tf.string)
        feeds.update(more)
        r, more = source(c, "rewrite", tf.string)
        feeds.update(more)
        return tf.strings.regex_replace(x, p, r, replace_global=c["replace_global"]), feeds
    if op == "regex_full_match":
        return tf.strings.regex_full_match(x, c["pattern"]), feeds
    if op == "strip":
        return tf.strings.strip(x), feeds
    if op in ("lower", "upper"):
        f = tf.strings.lower if op == "lower" else tf.strings.upper
        return f(x, encoding=c["encoding"]), feeds
    if op in ("add", "add_v2"):
        y, more = source(c, "y", tf.string)
        feeds.update(more)
        f = gen_math_ops.add if op == "add" else gen_math_ops.add_v2
        return f(x, y), feeds
    if op == "hash_strong":
        return tf.strings.to_hash_bucket_strong(x, c["num_buckets"], c["key"]), feeds
    raise ValueError(op)


def build_message(e):
    m = str(e)
    return m.split(" for '{{node")[0].split("\n\t; NodeDef")[0]


def run_message(e):
    lines = e.message.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("Node: '") and i + 1 < len(lines):
            return lines[i + 1]
    return lines[0]


def record(c):
    g = tf.Graph()
    with g.as_default():
        try:
            out, feeds = build(c)
        except (ValueError, TypeError, tf.errors.OpError) as e:
            code = e.error_code if isinstance(e, tf.errors.OpError) else 3
            c["build_error"] = {"code": code, "message": build_message(e)}
            return c
        c["static_shape"] = out.shape.as_list() if out.shape.rank is not None else None
        with tf.Session() as sess:
            try:
                c["out"] = tensor_json(sess.run(out, feed_dict=feeds))
            except tf.errors.OpError as e:
                c["error"] = {"code": e.error_code, "message": run_message(e)}
    return c


M23 = [["a", "b", "c"], ["d", "e", "f"]]
M234 = np.arange(24).astype(str).reshape(2, 3, 4).tolist()


def rj(name, axis, keepdims=False, sep="-", x=M23, **kw):
    return dict(name=name, op="reduce_join", input=x, axis=axis, keepdims=keepdims,
                separator=sep, **kw)


CASES = [
    rj("rj_all", None),
    rj("rj_all_keep", None, True),
    rj("rj_last", [-1]),
    rj("rj_first_keep", [0], True),
    rj("rj_both_listed", [0, 1]),
    rj("rj_both_reversed", [1, 0], True),
    rj("rj_empty_axes", []),
    rj("rj_empty_axes_keep", [], True),
    rj("rj_3d_0_1", [0, 1], x=M234, sep=","),
    rj("rj_3d_2_0", [2, 0], x=M234, sep=","),
    rj("rj_3d_1_neg1", [1, -1], True, x=M234, sep=""),
    rj("rj_3d_all", None, x=M234, sep=" "),
    rj("rj_scalar_all", None, x="s"),
    rj("rj_scalar_empty_axes", [], x="s"),
    rj("rj_zero_size_rows", [1], x=[[], []]),
    rj("rj_zero_size_cols", [0], True, x=[[], []]),
    rj("rj_unicode_sep", [1], sep="\u2192", x=[["\u00e9", "b"], ["c", "d"]]),
    rj("rj_out_of_range", [2]),
    rj("rj_out_of_range_neg", [-3]),
    rj("rj_scalar_axis_0", [0], x="s"),
    rj("rj_duplicate", [0, 0]),
    rj("rj_duplicate_neg", [0, -2]),
    rj("rj_duplicate_before_range", [0, 0, 5]),
    rj("rj_range_before_duplicate", [5, 0, 0]),
    rj("rj_axis_rank2", [[1]]),
    rj("rj_axis_scalar_tensor", 1, axis_shape=[]),
    rj("rj_axis_unknown", [1], axis_shape=[None]),
    rj("rj_axis_unknown_keep", [1], True, axis_shape=[None]),
    rj("rj_axis_unknown_dup", [0, 0], axis_shape=[None]),
    rj("rj_axis_unknown_range", [5], axis_shape=[None]),
    rj("rj_axis_unknown_dup_then_range", [0, 0, 5], axis_shape=[None]),
    rj("rj_axis_unknown_range_then_dup", [5, 0, 0], axis_shape=[None]),
    rj("rj_axis_unknown_neg", [-1, -2], axis_shape=[None], x=M234, sep=","),
    rj("rj_input_partial", [1], input_shape=[None, None]),
    rj("rj_input_unknown", [1], input_shape=None),
    rj("rj_input_unknown_keep", [1], True, input_shape=None),
    rj("rj_input_unknown_all", None, input_shape=None),
    rj("rj_input_unknown_all_keep", None, True, input_shape=None),
]


def rr(name, x, pattern, rewrite, replace_global=True, tensor=False, **kw):
    return dict(name=name, op="regex_replace_tensor" if tensor else "regex_replace", input=x,
                pattern=pattern, rewrite=rewrite, replace_global=replace_global, **kw)


for tensor in (False, True):
    t = "_t" if tensor else ""
    CASES += [
        rr("rr_html" + t, "Text with tags.<br /><b>contains html</b>", "<[^>]+>", " ",
           tensor=tensor),
        rr("rr_swap" + t, ["hello world", "a b", "x"], r"(\w+) (\w+)", r"\2 \1", tensor=tensor),
        rr("rr_first_only" + t, [["aaa", "bab"]], "a", "c", False, tensor=tensor),
        rr("rr_empty_star" + t, ["baaac", "abc", ""], "a*", "-", tensor=tensor),
        rr("rr_empty_pattern" + t, ["abc", "\u00e9", "", b"a\xffb"], "", "-", tensor=tensor),
        rr("rr_alternation_empty" + t, ["aaa"], "a|", "-", tensor=tensor),
        rr("rr_dollar_literal" + t, ["hello"], "(l)", "$1${1}$$", tensor=tensor),
        rr("rr_escaped_backslash" + t, ["hello", "a.b.c"], r"(l)|\.", r"\\1", tensor=tensor),
        rr("rr_whole_match" + t, ["hello"], "l+", r"<\0>", tensor=tensor),
        rr("rr_unmatched_group" + t, ["hello"], "(l)|(z)", r"[\2]", tensor=tensor),
        rr("rr_missing_group" + t, ["hello"], "(l)", r"\2", tensor=tensor),
        rr("rr_bad_escape" + t, ["hello"], "(l)", r"x\y", tensor=tensor),
        rr("rr_trailing_backslash" + t, ["hello"], "(l)", "a\\", tensor=tensor),
        rr("rr_bad_escape_first" + t, ["hello"], "(l)", r"x\y", False, tensor=tensor),
        rr("rr_word_boundary" + t, ["hello world"], r"\b", "|", tensor=tensor),
        rr("rr_multiline" + t, ["hello\nworld"], "(?m)^", "> ", tensor=tensor),
        rr("rr_case_insensitive" + t, ["AbC"], "(?i)b", "x", tensor=tensor),
        rr("rr_unicode" + t, ["h\u00e9llo w\u00f6rld"], r"[^\x00-\x7f]", "?", tensor=tensor),
        rr("rr_invalid_paren" + t, ["x"], "(", "", tensor=tensor),
        rr("rr_invalid_class" + t, ["x"], "[a", "", tensor=tensor),
        rr("rr_invalid_lookbehind" + t, ["x"], "(?<=a)b", "", tensor=tensor),
    ]
# RE2's syntax where Rust's regex crate differs: ASCII Perl classes and word boundaries,
# \Q...\E, octal escapes, \C.
RE2_TEXT = ["caf\u00e9 \u0663""4 a\u00a0b\x0bc\u2003d", "x_1 \u00c9t\u00e9"]
for i, pattern in enumerate([r"\w+", r"\W+", r"\d", r"\D+", r"\s", r"\S+", r"\b", r"\B",
                             r"[\w]+", r"[^\w ]+", r"[\d\s]", r"[\D]+", r"[[:alpha:]]+",
                             r"[[:^alpha:]]+", r"\pL+", "(?i)CAF\u00c9", r"\QA.B\E",
                             r"\Qe\E \x{e9}?", r"\141", r"\C", r"(?U)a+", r"[]a]+", r"\z"]):
    CASES.append(rr(f"re2_syntax_{i}", RE2_TEXT, pattern, "X"))
CASES += [
    dict(name=f"full_match_{i}", op="regex_full_match", input=RE2_TEXT + ["abc", "123", ""],
         pattern=pattern)
    for i, pattern in enumerate([r"\w+", r"[\w\s]+", r"\S+ \S+", r"\d+", r"\QA.B\E|abc", ""])
]
CASES += [
    rr("rr_t_pattern_vector", ["a"], ["a"], "b", tensor=True, pattern_shape=[None]),
    rr("rr_t_rewrite_vector", ["a"], "a", ["b"], tensor=True, rewrite_shape=[None]),
    rr("rr_t_pattern_rank1_static", ["a"], ["a"], "b", tensor=True),
    rr("rr_t_fed", ["ab", "cb"], "b", "!", tensor=True, pattern_shape=[], rewrite_shape=[],
       input_shape=None),
]

TEXTS = ["  Hello World \t\n", "\u00c0\u00c9\u00ce \u00e0\u00e9\u00ee", "stra\u00dfe",
         "\u03a3\u0391\u03a3 \u039f\u0394\u039f\u03a3", "\u0130I", "\u01c5", "\ufb01",
         b"A\xffb", "\x0b\x0cx\x0b\x0c", "\u00a0x\u00a0", "", "MiXeD 123"]
CASES += [
    dict(name="strip", op="strip", input=TEXTS),
    dict(name="strip_2d", op="strip", input=[[" a ", "b "], ["\tc", "  "]]),
    dict(name="strip_scalar", op="strip", input="  x  "),
]
for op in ("lower", "upper"):
    for encoding in ("", "utf-8", "UTF-8", "latin1"):
        CASES.append(dict(name=f"{op}_{encoding or 'ascii'}", op=op, input=TEXTS,
                          encoding=encoding))
CASES.append(dict(name="lower_sigma", op="lower", input=["A\u03a3.", "\u03a3", "A\u03a3b"],
                  encoding="utf-8"))

CASES += [
    dict(name="add_same", op="add", input=["a", "b"], y=["c", "d"]),
    dict(name="add_scalar", op="add", input=["a", "b"], y="!"),
    dict(name="add_broadcast", op="add", input=[["a"], ["b"]], y=["1", "2", "3"]),
    dict(name="add_empty", op="add", input=[], y="x"),
    dict(name="add_mismatch", op="add", input=["a", "b"], y=["1", "2", "3"]),
    dict(name="add_mismatch_run", op="add", input=["a", "b"], y=["1", "2", "3"],
         y_shape=[None]),
    dict(name="add_v2_string", op="add_v2", input=["a"], y=["b"]),
]

WORDS = ["", "a", "hello", "Hello, world!", "x" * 100, "\u00e9", "Pigs", "Lets", "Fly"] + [
    "a" * n for n in (7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65)]
CASES += [
    dict(name="hs_big", op="hash_strong", input=WORDS, num_buckets=2**62, key=[1, 2]),
    dict(name="hs_zero_key", op="hash_strong", input=WORDS, num_buckets=10, key=[0, 0]),
    dict(name="hs_negative_key", op="hash_strong", input=[WORDS], num_buckets=1000,
         key=[-1, 12345678901234]),
    dict(name="hs_max_key", op="hash_strong", input=WORDS, num_buckets=2**63 - 1,
         key=[2**63 - 1, -2**63]),
    dict(name="hs_short_key", op="hash_strong", input=WORDS, num_buckets=10, key=[1]),
    dict(name="hs_long_key", op="hash_strong", input=WORDS, num_buckets=10, key=[1, 2, 3]),
    dict(name="hs_zero_buckets", op="hash_strong", input=WORDS, num_buckets=0, key=[1, 2]),
]


def main():
    out = []
    for c in CASES:
        out.append(to_json(record(dict(c))))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"{len(out)} cases written to {path}")


if __name__ == "__main__":
    main()
