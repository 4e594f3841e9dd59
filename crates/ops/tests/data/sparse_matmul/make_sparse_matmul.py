"""TensorFlow 2.21's tf.matmul with sparse hints, adjoints and mixed bfloat16 operands: the
nodes its Python builds (op types and names, in order) and the values, plus SparseMatMul's
errors and the gradients of SparseMatMul, written to expected.json for
tests/integration/math_sparse_matmul.rs (and crates/train's gradient test).

Inputs hold small integers (many of them zero), so every product is exact in any summation
order and the values must match bit for bit.

Run: $HOME/.cache/weir-bench/venv/bin/python make_sparse_matmul.py
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tensor_json import encode  # noqa: E402

tf.compat.v1.disable_eager_execution()
rng = np.random.RandomState(7)


def ints(shape, density=0.4):
    v = rng.randint(-4, 5, size=shape).astype(np.float32)
    v[rng.rand(*shape) > density] = 0
    return v


def complex_ints(shape):
    return (ints(shape, 0.8) + 1j * ints(shape, 0.8)).astype(np.complex64)


CASTS = {"float32": tf.float32, "bfloat16": tf.bfloat16, "complex64": tf.complex64,
         "float64": tf.float64, "int32": tf.int32}

cases = []


def kernel_message(e):
    """The kernel's own words: the line before TensorFlow's `[[{{node ...}}]]` trailer."""
    lines = e.message.split("\n")
    for i, line in enumerate(lines):
        if line.strip().startswith("[[") and i > 0:
            return lines[i - 1]
    return lines[0]


def case(name, a, b, da, db, **kw):
    g = tf.Graph()
    with g.as_default():
        x = tf.cast(tf.constant(a), CASTS[da]) if da != "complex64" else tf.constant(a)
        y = tf.cast(tf.constant(b), CASTS[db]) if db != "complex64" else tf.constant(b)
        before = len(g.get_operations())
        entry = {"name": name, "a": encode(a), "b": encode(b), "dtype_a": da, "dtype_b": db,
                 "args": {k: v for k, v in kw.items()}}
        try:
            out = tf.matmul(x, y, **kw)
        except (ValueError, TypeError) as e:
            entry["build_error"] = str(e)
            cases.append(entry)
            return
        entry["nodes"] = [[o.type, o.name] for o in g.get_operations()[before:]]
        with tf.compat.v1.Session() as s:
            try:
                v = s.run(out)
                entry["out"] = encode(v if out.dtype != tf.bfloat16 else v)
            except tf.errors.OpError as e:
                entry["error"] = type(e).__name__
                entry["message"] = kernel_message(e)
    cases.append(entry)


a = ints((3, 5)); b = ints((5, 4))
for kw in [{}, {"a_is_sparse": True}, {"b_is_sparse": True}, {"a_is_sparse": True, "b_is_sparse": True}]:
    case("plain " + str(kw), a, b, "float32", "float32", **kw)
    case("transpose_a " + str(kw), a.T.copy(), b, "float32", "float32", transpose_a=True, **kw)
    case("transpose_b " + str(kw), a, b.T.copy(), "float32", "float32", transpose_b=True, **kw)
    case("adjoint both " + str(kw), a.T.copy(), b.T.copy(), "float32", "float32", adjoint_a=True, adjoint_b=True, **kw)
for da, db in [("bfloat16", "bfloat16"), ("bfloat16", "float32"), ("float32", "bfloat16")]:
    case(f"sparse {da} x {db}", a, b, da, db, a_is_sparse=True)
    case(f"mixed {da} x {db}", a, b, da, db)
    case(f"mixed transposed {da} x {db}", a.T.copy(), b.T.copy(), da, db, transpose_a=True, transpose_b=True)
# Hints on types SparseMatMul does not take fall back to MatMul.
case("sparse hint on float64", a, b, "float64", "float64", a_is_sparse=True)
# Adjoints of complex matrices conjugate.
ca, cb = complex_ints((3, 2)), complex_ints((4, 3))
case("complex adjoint_a", ca, cb.T.copy(), "complex64", "complex64", adjoint_a=True)
case("complex adjoint_b", ca.T.copy(), cb, "complex64", "complex64", adjoint_b=True)
# Batches: a transpose becomes an adjoint of the conjugate.
a3, b3 = ints((2, 3, 4)), ints((2, 5, 4))
case("batched transpose_b", a3, b3, "float32", "float32", transpose_b=True)
case("batched complex transpose_a", (a3 + 1j * a3).astype(np.complex64).transpose(0, 2, 1).copy(),
     (b3 + 0j).astype(np.complex64).transpose(0, 2, 1).copy(), "complex64", "complex64", transpose_a=True)
# Argument and shape errors.
case("transpose and adjoint", a, b, "float32", "float32", transpose_a=True, adjoint_a=True)
case("transpose and adjoint b", a, b, "float32", "float32", transpose_b=True, adjoint_b=True)


def raw_case(name, a, b, **kw):
    g = tf.Graph()
    with g.as_default():
        entry = {"name": name, "a": encode(a), "b": encode(b), "args": kw}
        pa = tf.compat.v1.placeholder(tf.float32)
        pb = tf.compat.v1.placeholder(tf.float32)
        out = tf.raw_ops.SparseMatMul(a=pa, b=pb, **kw)
        with tf.compat.v1.Session() as s:
            try:
                entry["out"] = encode(s.run(out, {pa: a, pb: b}))
            except tf.errors.OpError as e:
                entry["error"] = type(e).__name__
                entry["message"] = kernel_message(e)
    cases.append(entry)


raw_case("raw size mismatch", a, a, a_is_sparse=True)
raw_case("raw vector", np.zeros((3,), np.float32), b)
raw_case("raw empty", np.zeros((0, 3), np.float32), np.zeros((3, 2), np.float32))
raw_case("raw empty inner", np.zeros((2, 0), np.float32), np.zeros((0, 3), np.float32), b_is_sparse=True)

# Gradients of SparseMatMul (the ReluGrad heuristic included).
grads = []
for ta in (False, True):
    for tb in (False, True):
        for da, db in [("float32", "float32"), ("bfloat16", "float32")]:
            for relu in (False, True):
                g = tf.Graph()
                with g.as_default():
                    av = ints((5, 3)) if ta else ints((3, 5))
                    bv = ints((4, 5)) if tb else ints((5, 4))
                    x = tf.cast(tf.constant(av), CASTS[da])
                    y = tf.cast(tf.constant(bv), CASTS[db])
                    p = tf.raw_ops.SparseMatMul(a=x, b=y, transpose_a=ta, transpose_b=tb, a_is_sparse=True)
                    loss_in = tf.nn.relu(p) if relu else p
                    wv = ints((3, 4), 0.9)
                    w = tf.constant(wv)
                    loss = tf.reduce_sum(loss_in * w)
                    before = len(g.get_operations())
                    gx, gy = tf.gradients(loss, [x, y])
                    new_types = sorted(o.type for o in g.get_operations()[before:])
                    with tf.compat.v1.Session() as s:
                        vx, vy = s.run([gx, gy])
                    grads.append({"transpose_a": ta, "transpose_b": tb, "dtype_a": da, "dtype_b": db,
                                  "relu": relu, "a": encode(av), "b": encode(bv), "w": encode(wv),
                                  "grad_a": encode(vx), "grad_b": encode(vy),
                                  "sparse_matmuls": new_types.count("SparseMatMul"),
                                  "matmuls": new_types.count("MatMul")})

json.dump({"tensorflow": tf.__version__, "cases": cases, "grads": grads},
          open(os.path.join(os.path.dirname(__file__) or ".", "expected.json"), "w"), indent=0)
