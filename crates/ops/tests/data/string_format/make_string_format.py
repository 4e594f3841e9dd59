"""Writes expected.json: what TensorFlow 2.21's tf.strings.format (StringFormat) makes of tensors
of every dtype, rank and summarize, its errors, and what tf.print (PrintV2 to a file://
stream) writes, for crates/ops/tests/integration/string_format.rs.

Run with TensorFlow 2.21: python make_string_format.py
"""

import json
import os
import re
import tempfile

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.python.ops import gen_logging_ops, gen_string_ops

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.RandomState(3)


def spec(a):
    """A numpy array as {dtype, dims, values}: floats as bit patterns, strings as base64."""
    import base64
    a = np.asarray(a)
    name = a.dtype.name
    if a.dtype == tf.bfloat16.as_numpy_dtype:
        name, vals = "bfloat16", a.view(np.uint16).ravel().tolist()
    elif a.dtype.kind in "US" or a.dtype == object:
        name = "string"
        vals = [base64.b64encode(x if isinstance(x, bytes) else str(x).encode()).decode() for x in a.ravel()]
    elif a.dtype == np.float32:
        vals = a.view(np.uint32).ravel().tolist()
    elif a.dtype == np.float64:
        vals = a.view(np.uint64).ravel().tolist()
    elif a.dtype == np.float16:
        vals = a.view(np.uint16).ravel().tolist()
    elif a.dtype == np.complex64:
        vals = a.reshape(-1).view(np.uint32).tolist()
    else:
        vals = a.ravel().tolist()
    return {"dtype": name, "dims": list(a.shape), "values": vals}


def redact(msg):
    msg = msg.split("\n\t [[")[0].rstrip()
    msg = re.split(r"\nNode: '[^']*'\n", msg)[-1]
    msg = re.sub(r" for '\{\{node .*", "", msg, flags=re.S)
    return re.sub(r"^Graph execution error:\n\n", "", msg)


def error(e):
    code = getattr(e, "error_code", 3)  # a ValueError at graph construction is InvalidArgument
    return {"code": code, "message": redact(getattr(e, "message", str(e)))}


cases = []


def fmt(name, arrays, template, placeholder="{}", summarize=3, python=False):
    tf.reset_default_graph()
    case = {"kind": "format", "name": name, "inputs": [spec(a) for a in arrays], "template": template,
            "placeholder": placeholder, "summarize": summarize, "python": python}
    try:
        ts = [tf.constant(a) for a in arrays]
        if python:
            out = tf.strings.format(template, ts, placeholder=placeholder, summarize=summarize)
        else:
            out = gen_string_ops.string_format(ts, template=template, placeholder=placeholder,
                                               summarize=summarize)
        with tf.Session() as s:
            case["output"] = list(s.run(out))
    except (ValueError, tf.errors.OpError) as e:
        case["error"] = error(e)
    cases.append(case)


f32 = np.array([1.5, 0.1, 1 / 3, 1e10, 1e-7, np.nan, -np.nan, np.inf, -np.inf, -0.0, 123456789.0,
                3.4028235e38, 1.4e-45, 100000, 1234567], np.float32)
f64 = np.array([1.5, 0.1, 1 / 3, 1e10, 1e-7, 1e16, 1e-5, 123456.7, 2.0 ** 60, 5e-324, -1e300], np.float64)
for s in [-1, 3, 0]:
    fmt(f"float32 summarize {s}", [f32], "{}", summarize=s)
    fmt(f"float64 summarize {s}", [f64], "{}", summarize=s)
fmt("float16", [np.array([0.1, 65504, 6e-8, 1 / 3, -2.5, np.inf], np.float16)], "{}", summarize=-1)
fmt("bfloat16", [np.array([0.1, 1 / 3, 3e38, -7], tf.bfloat16.as_numpy_dtype)], "{}", summarize=-1)
for dt in ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]:
    info = np.iinfo(dt)
    fmt(dt, [np.array([info.min, info.max, 0, 7], dt)], "<{}>", summarize=-1)
fmt("bool", [np.array([[True, False], [False, True]])], "{}")
fmt("strings", [np.array([b"a", b"b c", b'q"x', b"", "é".encode(), b"\n\t'\\\x01\x7f\xff"])], "{}", summarize=-1)
fmt("string scalar", [np.array(b"scalar")], "{}")
fmt("complex64", [np.array([1 + 2j, 3.5 - 1j, 0, 1j], np.complex64)], "{}", summarize=2)
fmt("complex64 all", [np.array([[1 + 2j], [3.5 - 1j]], np.complex64)], "{}", summarize=-1)
fmt("complex scalar", [np.array(1 + 2j, np.complex64)], "{}")
for shape in [[], [0], [0, 3], [2, 0], [3, 0, 2], [10], [7], [6], [1, 1, 1], [2, 3, 4], [10, 10], [3, 1, 5],
              [4, 5, 6], [2, 2, 2, 2], [9, 2]]:
    n = int(np.prod(shape))
    a = np.arange(n, dtype=np.int32).reshape(shape)
    for s in [0, 1, 2, 3, -1]:
        fmt(f"int32 {shape} summarize {s}", [a], "{}", summarize=s)
fmt("floats matrix", [rng.randn(4, 7).astype(np.float32)], "m={}", summarize=2)
fmt("two tensors", [np.array([1, 2]), np.array(["x"])], "a {} b {} c")
fmt("custom placeholder", [np.array(1), np.array(2.5)], "x=%s, y=%s", placeholder="%s")
fmt("placeholder at the ends", [np.array(1), np.array(2)], "{}{}")
fmt("no tensors", [], "plain {x}")
fmt("python too few", [np.array(1)], "{} {}", python=True)
fmt("python too many", [np.array(1), np.array(2)], "{}", python=True)
fmt("op too few", [np.array(1)], "{} {}")
fmt("op none", [np.array(1)], "none")

# tf.print to a file: what one run writes, and the graph it builds.
tmp = tempfile.mkdtemp()


def arg(a):
    return {"text": a} if isinstance(a, str) else {"tensor": spec(a)}


def prnt(case_name, args, **kw):
    tf.reset_default_graph()
    path = os.path.join(tmp, "out.txt")
    if os.path.exists(path):
        os.remove(path)
    case = {"kind": "print", "name": case_name, "args": [arg(a) for a in args],
            "options": kw}
    try:
        op = tf.print(*[a if isinstance(a, str) else tf.constant(a) for a in args],
                      output_stream="file://" + path, **kw)
        nodes = tf.get_default_graph().as_graph_def().node
        case["format_nodes"] = [{"name": n.name, "template": n.attr["template"].s.decode(),
                                 "placeholder": n.attr["placeholder"].s.decode()}
                                for n in nodes if n.op == "StringFormat"]
        case["print_node"] = [n.name for n in nodes if n.op == "PrintV2"][0]
        with tf.Session() as s:
            s.run(op)
            s.run(op)
        case["written"] = open(path).read()
    except (ValueError, tf.errors.OpError) as e:
        case["error"] = error(e)
    cases.append(case)


prnt("text and tensors", ["loss:", np.array([1.5, 2.0], np.float32), "step", np.array(3)])
prnt("lone string scalar", [np.array(b"just a string")])
prnt("lone string vector", [np.array([b"a"])])
prnt("sep and end", ["a{}b", np.array(1)], sep="|", end="$")
prnt("placeholder collisions", ["{}", "{}9", np.array(1)])
prnt("nothing", [])
prnt("named", ["text only"], name="myprint")
prnt("named with tensor", ["x", np.array([[1, 2], [3, 4]])], name="p")
prnt("summarize 2", [np.arange(100).reshape(10, 10)], summarize=2)
prnt("summarize all", [np.arange(30).reshape(3, 10)], summarize=-1)
prnt("quote in text", ["q'uote", np.array(1)])
prnt("floats", [np.array([0.1, 1 / 3], np.float64), np.array(np.float32(1 / 3))])

# PrintV2's own errors.
for name, build in [
    ("print vector", lambda: gen_logging_ops.print_v2(
        tf.placeholder_with_default(tf.constant(["a", "b"]), None), output_stream="stderr")),
    ("print missing dir", lambda: gen_logging_ops.print_v2(
        tf.constant("a"), output_stream="file:///nonexistent_weir_dir/x.txt")),
    ("print bogus stream", lambda: gen_logging_ops.print_v2(tf.constant("a"), output_stream="bogus")),
]:
    tf.reset_default_graph()
    try:
        op = build()
        with tf.Session() as s:
            s.run(op)
        raise SystemExit(name + ": no error")
    except tf.errors.OpError as e:
        cases.append({"kind": "print_op", "name": name, "error": error(e),
                      "stream": op.get_attr("output_stream").decode(),
                      "input": spec(np.array([b"a", b"b"]) if "vector" in name else np.array(b"a"))})

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump(cases, f, indent=1)
print(len(cases), "cases")
