"""Writes expected.json: TensorFlow 2.21's StridedSliceGrad, TensorStridedSliceUpdate and
StridedSliceAssign (outputs and errors) and the gradients of StridedSlice, StridedSliceGrad and
TensorStridedSliceUpdate, for weir's tests (crates/ops/tests/integration/strided_slice_write.rs
and crates/train/tests/integration/strided_slice_grad.rs).

Run with TensorFlow 2.21: python make_strided_slice_write.py
"""

import json
import os
import re

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.python.ops import gen_array_ops

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
MASKS = ["begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"]
rng = np.random.RandomState(7)


def spec(t):
    """A tensor as {dtype, dims, values}, floats as bit patterns."""
    a = np.asarray(t)
    dt = a.dtype
    if dt == np.float32:
        vals = a.view(np.uint32).ravel().tolist()
    elif dt == np.float64:
        vals = a.view(np.uint64).ravel().tolist()
    elif dt == np.float16:
        vals = a.view(np.uint16).ravel().tolist()
    else:
        vals = a.ravel().tolist()
    return {"dtype": dt.name, "dims": list(a.shape), "values": vals}


def redact(msg):
    msg = msg.split("\n\t [[")[0].rstrip()
    msg = re.split(r"\nNode: '[^']*'\n", msg)[-1]
    return re.sub(r"^Graph execution error:\n\n", "", msg)


def error(e):
    return {"code": e.error_code, "message": redact(e.message)}


def data(shape, dtype):
    shape = tuple(shape)
    if dtype == "bool":
        return rng.rand(*shape).reshape(shape) > 0.5
    if dtype in ("int32", "int64"):
        return rng.randint(-50, 50, size=shape).astype(dtype)
    return np.asarray(rng.randn(*shape) * 3).astype(dtype)


def slice_spec(shape, expr):
    """begin, end, strides and masks of `x[expr]` as TensorFlow's _slice_helper lowers it."""
    g = tf.Graph()
    with g.as_default():
        x = tf.zeros(shape)
        y = eval("x" + expr)
        op = y.op
        assert op.type == "StridedSlice", op.type
        out = {m: op.get_attr(m) for m in MASKS}
        for i, k in enumerate(["begin", "end", "strides"], 1):
            out[k] = tf.get_static_value(op.inputs[i]).tolist()
        out["out_shape"] = y.shape.as_list()
    return out


SPECS = [
    ([6], "[1:5]"),
    ([6], "[::-1]"),
    ([6], "[-2]"),
    ([6], "[1:-1:2]"),
    ([6], "[5:1:-2]"),
    ([6], "[10:20]"),
    ([4, 5], "[1:, ::2]"),
    ([4, 5], "[:, 3]"),
    ([4, 5], "[-1]"),
    ([4, 5], "[tf.newaxis, 1:3]"),
    ([4, 5], "[..., 1:4]"),
    ([4, 5], "[::-1, ::-2]"),
    ([2, 3, 4], "[1, ..., 2]"),
    ([2, 3, 4], "[:, tf.newaxis, 1:, ::3]"),
    ([2, 3, 4], "[..., tf.newaxis]"),
    ([2, 3, 4], "[0, 1:3]"),
    ([2, 3, 4], "[:, ::-1, 1::2]"),
    ([3, 4, 5, 2], "[1:, ..., ::-1, 0]"),
    ([3, 0, 4], "[:, :, 1:3]"),
]


def run(build, feeds=None):
    with tf.Session() as s:
        built = build()
        s.run(tf.global_variables_initializer())
        return s.run(built, feed_dict=feeds)


cases = []

# StridedSliceGrad and TensorStridedSliceUpdate: values, every spec, a few dtypes.
for n, (shape, expr) in enumerate(SPECS):
    sp = slice_spec(shape, expr)
    for dtype in ["float32"] + (["float64", "int32", "bool", "float16"] if n % 4 == 0 else []):
        index = "int64" if n % 3 == 1 else "int32"
        dy = data(sp["out_shape"], dtype)
        x = data(shape, dtype)
        masks = {m: sp[m] for m in MASKS}
        idx = lambda k: np.array(sp[k], dtype=index)
        tf.reset_default_graph()
        out = run(lambda: gen_array_ops.strided_slice_grad(
            np.array(shape, dtype=index), idx("begin"), idx("end"), idx("strides"), dy, **masks))
        base = dict(expr=expr, index=index, begin=sp["begin"], end=sp["end"], strides=sp["strides"], **masks)
        cases.append(dict(base, kind="grad_op", name=f"grad_op {shape}{expr} {dtype}",
                          shape=shape, dy=spec(dy), outputs=[spec(out)]))
        # the update, with a value of the slice's shape and with one that broadcasts
        for vshape in [sp["out_shape"], [1] * min(len(sp["out_shape"]), 1) + sp["out_shape"][1:]]:
            v = data(vshape, dtype)
            tf.reset_default_graph()
            out = run(lambda: gen_array_ops.tensor_strided_slice_update(
                x, idx("begin"), idx("end"), idx("strides"), v, **masks))
            cases.append(dict(base, kind="update", name=f"update {shape}{expr} {dtype} value{vshape}",
                              x=spec(x), value=spec(v), outputs=[spec(out)]))

# StridedSliceAssign on a TF1 variable: v[expr].assign(value).
for shape, expr, vshape in [([4, 5], "[1:, ::2]", [3, 3]), ([4, 5], "[1:, ::2]", [3]),
                            ([4, 5], "[1:, ::2]", [1, 1, 3]), ([6], "[::-1]", [6]),
                            ([2, 3, 4], "[1, ..., 2]", []), ([2, 3, 4], "[:, tf.newaxis, 1:, ::3]", [2, 1, 2, 2])]:
    sp = slice_spec(shape, expr)
    x, v = data(shape, "float32"), data(vshape, "float32")
    tf.reset_default_graph()

    def build():
        var = tf.Variable(x, use_resource=False)
        return eval("var" + expr).assign(v)

    out = run(build)
    cases.append(dict(kind="assign", name=f"assign {shape}{expr} value{vshape}", expr=expr, index="int32",
                      begin=sp["begin"], end=sp["end"], strides=sp["strides"],
                      **{m: sp[m] for m in MASKS}, x=spec(x), value=spec(v), outputs=[spec(out)]))

# Errors, with every index input fed at run time so that the kernel reports them.
ERRORS = [
    ("grad_op", [6, 4], [1, 0], [3, 4], [1, 2], [2, 3], {}),
    ("grad_op", [6, 4], [1, 0], [3, 4], [1, 2], [4], {}),
    ("grad_op", [[6, 4]], [1, 0], [3, 4], [1, 2], [2, 2], {}),
    ("grad_op", [6, 4], [1, 0], [3, 4], [1, 0], [2, 2], {}),
    ("grad_op", [6], [7], [8], [1], [], {"shrink_axis_mask": 1}),
    ("grad_op", [6, -1], [1, 0], [3, 4], [1, 2], [2, 2], {}),
    ("grad_op", [6, 4], [1, 0, 0], [3, 4], [1, 2], [2, 2], {}),
    ("grad_op", [6, 4], [0, 0], [1, 1], [1, 1], [1, 1], {"ellipsis_mask": 3}),
    ("update", [3, 4], [1, 0], [3, 4], [1, 2], [2, 3], {}),
    ("update", [3, 4], [0], [3], [1], [3], {}),
    ("update", [3, 4], [1], [2], [1], [2, 1, 4], {"shrink_axis_mask": 1}),
    ("update", [3, 4], [0, 0], [1, 1], [1, 1], [5], {"shrink_axis_mask": 3, "end_mask": 0}),
    ("update", [3, 4], [4], [5], [1], [4], {"shrink_axis_mask": 1}),
    ("assign", [3, 4], [1, 0], [3, 4], [1, 2], [2, 3], {}),
    ("assign", [3, 4], [0], [1], [-1], [4], {"shrink_axis_mask": 1}),
]
for kind, shape, b, e, st, vshape, masks in ERRORS:
    v = data(vshape, "float32")
    tf.reset_default_graph()
    fed = lambda a: tf.placeholder_with_default(np.array(a, dtype=np.int32), None)

    def build():
        if kind == "grad_op":
            return gen_array_ops.strided_slice_grad(fed(shape), fed(b), fed(e), fed(st), v, **masks)
        x = np.arange(12, dtype=np.float32).reshape(shape)
        if kind == "update":
            return gen_array_ops.tensor_strided_slice_update(x, fed(b), fed(e), fed(st), v, **masks)
        var = tf.Variable(x, use_resource=False)
        return gen_array_ops.strided_slice_assign(var, fed(b), fed(e), fed(st), v, **masks)

    try:
        run(build)
        raise SystemExit(f"no error: {kind} {shape} {b} {e} {st} {vshape}")
    except tf.errors.OpError as err:
        full = {m: masks.get(m, 0) for m in MASKS}
        cases.append(dict(kind=kind, name=f"error {kind} {shape} {b}:{e}:{st} {masks} value{vshape}",
                          shape=shape, begin=b, end=e, strides=st, value=spec(v), fed=True,
                          error=error(err), **full))

# Gradients: of x[expr] (StridedSlice), of the StridedSliceGrad op in dy, and of the update in
# its input and its (broadcast) value.
for n, (shape, expr) in enumerate(SPECS):
    sp = slice_spec(shape, expr)
    for dtype in ["float32", "float64"] if n % 3 == 0 else ["float32"]:
        x = data(shape, dtype)
        gy = data(sp["out_shape"], dtype)
        base = dict(expr=expr, index="int32", begin=sp["begin"], end=sp["end"], strides=sp["strides"],
                    **{m: sp[m] for m in MASKS})
        tf.reset_default_graph()

        def build():
            xt = tf.constant(x)
            return tf.gradients(eval("xt" + expr), [xt], grad_ys=[tf.constant(gy)])

        cases.append(dict(base, kind="grad_of_slice", name=f"d slice {shape}{expr} {dtype}",
                          x=spec(x), grad_ys=spec(gy), grads=[spec(g) for g in run(build)]))
        dy = data(sp["out_shape"], dtype)
        gx = data(shape, dtype)
        tf.reset_default_graph()

        def build():
            dyt = tf.constant(dy)
            idx = lambda k: np.array(sp[k], dtype=np.int32)
            y = gen_array_ops.strided_slice_grad(np.array(shape, np.int32), idx("begin"), idx("end"),
                                                 idx("strides"), dyt, **{m: sp[m] for m in MASKS})
            return tf.gradients(y, [dyt], grad_ys=[tf.constant(gx)])

        cases.append(dict(base, kind="grad_of_grad_op", name=f"d grad_op {shape}{expr} {dtype}",
                          shape=shape, dy=spec(dy), grad_ys=spec(gx), grads=[spec(g) for g in run(build)]))
        for vshape in [sp["out_shape"], [1] * min(len(sp["out_shape"]), 1) + sp["out_shape"][1:]]:
            v = data(vshape, dtype)
            tf.reset_default_graph()

            def build():
                xt, vt = tf.constant(x), tf.constant(v)
                idx = lambda k: np.array(sp[k], dtype=np.int32)
                y = gen_array_ops.tensor_strided_slice_update(xt, idx("begin"), idx("end"), idx("strides"),
                                                              vt, **{m: sp[m] for m in MASKS})
                return tf.gradients(y, [xt, vt], grad_ys=[tf.constant(gx)])

            try:
                grads = [spec(g) for g in run(build)]
            except (tf.errors.OpError, ValueError) as err:
                print("skipped update gradient", shape, expr, vshape, type(err).__name__)
                continue
            cases.append(dict(base, kind="grad_of_update", name=f"d update {shape}{expr} {dtype} value{vshape}",
                              x=spec(x), value=spec(v), grad_ys=spec(gx), grads=grads))

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump(cases, f, indent=1)
print(len(cases), "cases")
