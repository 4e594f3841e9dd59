"""Writes expected.json: TensorFlow 2.21's tf.gradients (with a fixed grad_ys) of reduce_prod,
cumprod, segment_prod, unsorted_segment_sum, gather_nd, broadcast_to, pad (REFLECT/SYMMETRIC),
MirrorPadGrad and truncatediv for the cases below, and MirrorPadGrad's forward values, static
shapes and errors. Floats are recorded as the integer bits of their values (complex ones as the
bits of (real, imaginary) pairs), so comparisons can be exact.
Run with the TF venv: python make_math_more_grad.py"""
import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

BITS = {"float16": np.uint16, "bfloat16": np.uint16, "float32": np.uint32, "float64": np.uint64,
        "complex64": np.uint32, "complex128": np.uint64}


def enc(a, dtype=None):
    a = np.asarray(a, dtype=dtype)
    name = tf.as_dtype(a.dtype).name
    if name in BITS:
        flat = np.ascontiguousarray(a.reshape(-1))
        if name.startswith("complex"):
            flat = flat.view(np.float32 if name == "complex64" else np.float64)
        vals = [int(v) for v in flat.view(BITS[name])]
    else:
        vals = a.reshape(-1).tolist()
    return {"dtype": name, "shape": list(a.shape), "values": vals}


def np_dtype(name):
    return tf.as_dtype(name).as_numpy_dtype


def static(t):
    return None if t.shape.rank is None else t.shape.as_list()


def kernel_message(e):
    """The kernel's own message, without the graph-execution wrapper and node trace."""
    if not isinstance(e, tf.errors.OpError):
        return str(e)
    return e.message.split("\n\t [[")[0].split("Node: '")[-1].split("'\n", 1)[-1]


def error(e):
    return {"type": type(e).__name__, "message": kernel_message(e)}


def build(fn, t, attrs):
    """The forward op of case `fn` on input tensors `t`."""
    if fn == "prod":
        return tf.reduce_prod(t["x"], axis=t.get("axis"), keepdims=attrs["keep_dims"])
    if fn == "cumprod":
        return tf.math.cumprod(t["x"], axis=attrs["axis"], exclusive=attrs["exclusive"],
                               reverse=attrs["reverse"])
    if fn == "segment_prod":
        return tf.math.segment_prod(t["x"], t["ids"])
    if fn == "unsorted_segment_sum":
        return tf.math.unsorted_segment_sum(t["x"], t["ids"], t["num"])
    if fn == "gather_nd":
        return tf.gather_nd(t["x"], t["indices"])
    if fn == "broadcast_to":
        return tf.broadcast_to(t["x"], t["shape"])
    if fn == "mirror_pad":
        return tf.pad(t["x"], t["paddings"], mode=attrs["mode"])
    if fn == "mirror_pad_grad":
        return tf.raw_ops.MirrorPadGrad(input=t["x"], paddings=t["paddings"], mode=attrs["mode"])
    if fn == "truncatediv":
        return tf.truncatediv(t["x"], t["y"])
    raise ValueError(fn)


def grad_case(name, fn, inputs, attrs=None, dynamic=False, seed=0):
    """A gradient case: d(sum(y * grad_ys))/dx for the input named x (and y for truncatediv)."""
    attrs = attrs or {}
    inputs = {k: np.asarray(v) for k, v in inputs.items()}
    c = {"name": name, "kind": "grad", "fn": fn, "attrs": attrs, "dynamic": dynamic,
         "inputs": {k: enc(v) for k, v in inputs.items()}}
    g = tf.Graph()
    with g.as_default():
        t = {k: tf.constant(v) for k, v in inputs.items()}
        diff = [k for k in ("x", "y") if k in t]
        for k in diff:
            # A placeholder with a default: static shape as the constant's, or unknown.
            t[k] = tf.placeholder_with_default(t[k], shape=None if dynamic else t[k].shape)
        try:
            y = build(fn, t, attrs)
            rng = np.random.RandomState(seed)
            out = tf.Session().run(y)
            gy = rng.uniform(-2, 2, size=out.shape)
            if out.dtype.kind == "c":
                gy = gy + 1j * rng.uniform(-2, 2, size=out.shape)
            gy = gy.astype(out.dtype)
            grads = tf.gradients(y, [t[k] for k in diff], grad_ys=tf.constant(gy))
            fetch = [tf.convert_to_tensor(d) for d in grads if d is not None]
            vals = iter(tf.Session().run(fetch))
            c["output"] = enc(out)
            c["grad_ys"] = enc(gy)
            c["grads"] = [None if d is None else enc(next(vals)) for d in grads]
        except (tf.errors.OpError, ValueError) as e:
            c["error"] = error(e)
    return c


def pad_grad_case(name, x, paddings, mode, dtype="float32", pad_dtype="int32", dynamic=False,
                  dynamic_paddings=False):
    """A forward case of MirrorPadGrad: static shape and value, or TensorFlow's error."""
    x = np.asarray(x).astype(np_dtype(dtype))
    p = np.asarray(paddings, dtype=pad_dtype)
    c = {"name": name, "kind": "mirror_pad_grad", "mode": mode, "dynamic": dynamic,
         "dynamic_paddings": dynamic_paddings, "inputs": {"x": enc(x), "paddings": enc(p)}}
    g = tf.Graph()
    with g.as_default():
        xt = tf.constant(x)
        pt = tf.constant(p)
        if dynamic:
            # True: an unknown shape; a list: that partial shape.
            xt = tf.placeholder_with_default(xt, shape=None if dynamic is True else dynamic)
        if dynamic_paddings:
            pt = tf.placeholder_with_default(pt, shape=None)
        try:
            y = tf.raw_ops.MirrorPadGrad(input=xt, paddings=pt, mode=mode)
        except (tf.errors.OpError, ValueError) as e:
            c["build_error"] = error(e)
            return c
        c["static_shape"] = static(y)
        try:
            c["output"] = enc(tf.Session().run(y))
        except tf.errors.OpError as e:
            c["error"] = error(e)
    return c


def rnd(shape, dtype, seed, lo=-2.0, hi=2.0):
    return np.random.RandomState(seed).uniform(lo, hi, size=shape).astype(dtype)


cases = []
# reduce_prod: no zeros, one zero and two zeros in a reduced slice, axis lists, negative axes,
# keep_dims, int64 indices, all axes, no axes, and unknown shapes (the dynamic reduced shape).
zx = np.array([[1.5, 0.0, -2.0, 0.5], [0.0, 3.0, 0.0, 1.25], [2.0, -0.5, 1.5, 0.75]])
for dt in ["float32", "float64"]:
    cases.append(grad_case(f"prod_axis1_{dt}", "prod", {"x": rnd([2, 3, 4], dt, 1),
                           "axis": np.int32(1)}, {"keep_dims": False}, seed=1))
    cases.append(grad_case(f"prod_zeros_axis0_{dt}", "prod", {"x": zx.astype(dt),
                           "axis": np.int32(0)}, {"keep_dims": False}, seed=2))
    cases.append(grad_case(f"prod_zeros_axis1_keep_{dt}", "prod", {"x": zx.astype(dt),
                           "axis": np.array([1], np.int32)}, {"keep_dims": True}, seed=3))
    cases.append(grad_case(f"prod_axes_0_2_keep_{dt}", "prod", {"x": rnd([2, 3, 4], dt, 4),
                           "axis": np.array([0, 2], np.int32)}, {"keep_dims": True}, seed=4))
    cases.append(grad_case(f"prod_neg_axes_{dt}", "prod", {"x": rnd([3, 2, 2], dt, 5),
                           "axis": np.array([-1, 0], np.int32)}, {"keep_dims": False}, seed=5))
    cases.append(grad_case(f"prod_int64_axis_{dt}", "prod", {"x": rnd([3, 4], dt, 6),
                           "axis": np.array([-2], np.int64)}, {"keep_dims": False}, seed=6))
    cases.append(grad_case(f"prod_all_{dt}", "prod", {"x": zx.astype(dt)[:, :2] + 1.0},
                           {"keep_dims": False}, seed=7))
    cases.append(grad_case(f"prod_dynamic_{dt}", "prod", {"x": zx.astype(dt),
                           "axis": np.array([1], np.int32)}, {"keep_dims": False},
                           dynamic=True, seed=8))
    cases.append(grad_case(f"prod_dynamic_keep_{dt}", "prod", {"x": rnd([2, 3, 2], dt, 9),
                           "axis": np.array([0, -1], np.int32)}, {"keep_dims": True},
                           dynamic=True, seed=9))
cases.append(grad_case("prod_no_axes", "prod", {"x": rnd([2, 3], "float32", 10),
                       "axis": np.zeros([0], np.int32)}, {"keep_dims": False}, seed=10))
cases.append(grad_case("prod_scalar", "prod", {"x": np.float64(2.5),
                       "axis": np.zeros([0], np.int32)}, {"keep_dims": False}, seed=11))
cases.append(grad_case("prod_empty_slices", "prod", {"x": np.zeros([0, 3], np.float32),
                       "axis": np.int32(0)}, {"keep_dims": False}, seed=12))
cases.append(grad_case("prod_dynamic_all", "prod", {"x": rnd([2, 2], "float64", 13)},
                       {"keep_dims": False}, dynamic=True, seed=13))

# cumprod: every exclusive/reverse combination, both axes, with zeros.
cz = np.array([[1.5, -2.0, 0.5, 3.0], [0.0, 1.25, 2.0, -0.75], [2.0, 0.0, 0.0, 1.5]])
for dt in ["float32", "float64"]:
    for excl in [False, True]:
        for rev in [False, True]:
            tag = f"{'excl' if excl else 'incl'}_{'rev' if rev else 'fwd'}"
            cases.append(grad_case(f"cumprod_{tag}_{dt}", "cumprod", {"x": rnd([3, 4], dt, 20)},
                                   {"axis": 1, "exclusive": excl, "reverse": rev}, seed=21))
            cases.append(grad_case(f"cumprod_zeros_{tag}_{dt}", "cumprod", {"x": cz.astype(dt)},
                                   {"axis": 0, "exclusive": excl, "reverse": rev}, seed=22))
cases.append(grad_case("cumprod_neg_axis", "cumprod", {"x": rnd([2, 3, 2], "float64", 23)},
                       {"axis": -2, "exclusive": False, "reverse": True}, seed=23))

# segment_prod: segments with no, one and two zeros, and an empty segment.
sx = np.array([[2.0, 0.0], [0.5, 3.0], [0.0, 0.0], [1.5, -2.0], [0.0, 4.0], [-1.0, 0.5]])
for dt in ["float32", "float64"]:
    cases.append(grad_case(f"segment_prod_zeros_{dt}", "segment_prod",
                           {"x": sx.astype(dt), "ids": np.array([0, 0, 0, 2, 2, 3], np.int32)},
                           seed=30))
    cases.append(grad_case(f"segment_prod_1d_{dt}", "segment_prod",
                           {"x": rnd([5], dt, 31), "ids": np.array([0, 1, 1, 1, 4], np.int64)},
                           seed=31))

# unsorted_segment_sum: negative ids dropped, 2-D ids, an empty segment, int64 ids, and an id
# past the last segment (the forward op drops it, the gradient's gather fails).
for dt in ["float32", "float64"]:
    cases.append(grad_case(f"unsorted_segment_sum_{dt}", "unsorted_segment_sum",
                           {"x": rnd([5, 2], dt, 40), "ids": np.array([2, -1, 0, 2, -3], np.int32),
                            "num": np.int32(4)}, seed=40))
    cases.append(grad_case(f"unsorted_segment_sum_2d_ids_{dt}", "unsorted_segment_sum",
                           {"x": rnd([2, 3, 2], dt, 41),
                            "ids": np.array([[1, 0, -1], [1, 3, 0]], np.int64),
                            "num": np.int64(4)}, seed=41))
cases.append(grad_case("unsorted_segment_sum_out_of_range", "unsorted_segment_sum",
                       {"x": np.array([1.0, 2.0, 3.0], np.float32),
                        "ids": np.array([0, 5, -1], np.int32), "num": np.int32(2)}, seed=42))

# gather_nd: whole rows by [n, 1] indices (IndexedSlices in TensorFlow), elements, partial
# slices, repeated indices, batched indices, int64 indices, unknown shapes.
for dt in ["float32", "float64"]:
    p = rnd([4, 3, 2], dt, 50)
    cases.append(grad_case(f"gather_nd_rows_{dt}", "gather_nd",
                           {"x": p, "indices": np.array([[2], [0], [2]], np.int32)}, seed=50))
    cases.append(grad_case(f"gather_nd_elements_{dt}", "gather_nd",
                           {"x": p, "indices": np.array([[1, 2, 0], [3, 0, 1], [1, 2, 0]],
                                                        np.int32)}, seed=51))
    cases.append(grad_case(f"gather_nd_slices_{dt}", "gather_nd",
                           {"x": p, "indices": np.array([[[0, 1], [3, 2]], [[0, 1], [2, 0]]],
                                                        np.int64)}, seed=52))
cases.append(grad_case("gather_nd_rows_int64", "gather_nd",
                       {"x": rnd([3, 2], "float32", 53),
                        "indices": np.array([[1], [1], [0], [1]], np.int64)}, seed=53))
cases.append(grad_case("gather_nd_batched_rows", "gather_nd",
                       {"x": rnd([3, 2], "float64", 54),
                        "indices": np.array([[[1], [0]], [[1], [2]]], np.int32)}, seed=54))
cases.append(grad_case("gather_nd_dynamic", "gather_nd",
                       {"x": rnd([3, 2], "float64", 55),
                        "indices": np.array([[2], [2]], np.int32)}, dynamic=True, seed=55))

# broadcast_to: new leading dims, stretched ones, both, unchanged, scalars, int64 shapes,
# unknown shapes.
for dt in ["float32", "float64"]:
    cases.append(grad_case(f"broadcast_to_lead_{dt}", "broadcast_to",
                           {"x": rnd([3], dt, 60), "shape": np.array([2, 3], np.int32)}, seed=60))
    cases.append(grad_case(f"broadcast_to_mixed_{dt}", "broadcast_to",
                           {"x": rnd([1, 3], dt, 61), "shape": np.array([4, 2, 3], np.int32)},
                           seed=61))
    cases.append(grad_case(f"broadcast_to_inner_{dt}", "broadcast_to",
                           {"x": rnd([2, 1], dt, 62), "shape": np.array([2, 5], np.int64)},
                           seed=62))
cases.append(grad_case("broadcast_to_same", "broadcast_to",
                       {"x": rnd([2, 2], "float32", 63), "shape": np.array([2, 2], np.int32)},
                       seed=63))
cases.append(grad_case("broadcast_to_scalar", "broadcast_to",
                       {"x": np.float64(1.5), "shape": np.array([2, 3], np.int32)}, seed=64))
cases.append(grad_case("broadcast_to_dynamic", "broadcast_to",
                       {"x": rnd([3, 1], "float64", 65), "shape": np.array([2, 3, 4], np.int32)},
                       dynamic=True, seed=65))

# tf.pad in REFLECT and SYMMETRIC mode (MirrorPad), and MirrorPadGrad's own gradient.
for dt in ["float32", "float64"]:
    for mode in ["REFLECT", "SYMMETRIC"]:
        cases.append(grad_case(f"mirror_pad_1d_{mode.lower()}_{dt}", "mirror_pad",
                               {"x": rnd([4], dt, 70), "paddings": np.array([[3, 2]], np.int32)},
                               {"mode": mode}, seed=70))
        cases.append(grad_case(f"mirror_pad_2d_{mode.lower()}_{dt}", "mirror_pad",
                               {"x": rnd([3, 4], dt, 71),
                                "paddings": np.array([[2, 1], [1, 3]], np.int32)},
                               {"mode": mode}, seed=71))
        cases.append(grad_case(f"mirror_pad_3d_{mode.lower()}_{dt}", "mirror_pad",
                               {"x": rnd([2, 3, 3], dt, 72),
                                "paddings": np.array([[1, 1], [0, 2], [1, 0]], np.int64)},
                               {"mode": mode}, seed=72))
        cases.append(grad_case(f"mirror_pad_grad_grad_{mode.lower()}_{dt}", "mirror_pad_grad",
                               {"x": rnd([6, 5], dt, 73),
                                "paddings": np.array([[1, 2], [1, 1]], np.int32)},
                               {"mode": mode}, seed=73))
cases.append(grad_case("mirror_pad_dynamic", "mirror_pad",
                       {"x": rnd([3, 3], "float64", 74),
                        "paddings": np.array([[2, 0], [1, 1]], np.int32)},
                       {"mode": "REFLECT"}, dynamic=True, seed=74))

# truncatediv: TensorFlow's gradient is None for both inputs.
cases.append(grad_case("truncatediv", "truncatediv",
                       {"x": np.array([7.5, -3.0], np.float32),
                        "y": np.array([2.0, 2.0], np.float32)}, seed=80))

# Complex and 16-bit float gradients: TensorFlow conjugates the complex products, and computes
# each op of the backward graph in the half type.
cx = rnd([3, 4], "float64", 85) + 1j * rnd([3, 4], "float64", 86)
cx[1, 2] = 0
cases.append(grad_case("prod_complex64", "prod", {"x": cx.astype("complex64"),
                       "axis": np.int32(0)}, {"keep_dims": False}, seed=85))
cases.append(grad_case("prod_complex128_keep", "prod", {"x": cx, "axis": np.array([1], np.int32)},
                       {"keep_dims": True}, seed=86))
cases.append(grad_case("cumprod_complex128", "cumprod", {"x": cx},
                       {"axis": 1, "exclusive": True, "reverse": False}, seed=87))
cases.append(grad_case("segment_prod_complex64", "segment_prod",
                       {"x": cx.astype("complex64"), "ids": np.array([0, 0, 2], np.int32)}, seed=88))
for dt in ["float16", "bfloat16"]:
    cases.append(grad_case(f"prod_{dt}", "prod", {"x": rnd([3, 4], dt, 89, 0.5, 1.5),
                           "axis": np.int32(1)}, {"keep_dims": False}, seed=89))
    cases.append(grad_case(f"cumprod_{dt}", "cumprod", {"x": rnd([5], dt, 90, 0.5, 1.5)},
                           {"axis": 0, "exclusive": False, "reverse": True}, seed=90))
    cases.append(grad_case(f"gather_nd_{dt}", "gather_nd", {"x": rnd([3, 2], dt, 91),
                           "indices": np.array([[1, 0], [2, 1], [1, 0]], np.int32)}, seed=91))
    cases.append(grad_case(f"unsorted_segment_sum_{dt}", "unsorted_segment_sum",
                           {"x": rnd([4], dt, 92), "ids": np.array([1, -1, 1, 0], np.int32),
                            "num": np.int32(3)}, seed=92))
    cases.append(grad_case(f"mirror_pad_{dt}", "mirror_pad",
                           {"x": rnd([5], dt, 93), "paddings": np.array([[2, 3]], np.int32)},
                           {"mode": "REFLECT"}, seed=93))
cases.append(grad_case("broadcast_to_complex64", "broadcast_to",
                       {"x": cx.astype("complex64")[:1], "shape": np.array([2, 3, 4], np.int32)},
                       seed=94))

# MirrorPadGrad forward: dtypes (half sums that round, integer wrap-around), both modes,
# ranks 0-5, int64 paddings, partial and unknown shapes, and errors.
x34 = np.arange(12).reshape(3, 4)
for dt in ["float32", "float64", "int32", "int64", "int8", "uint8", "int16", "uint16", "uint32",
           "uint64", "complex64", "complex128"]:
    cases.append(pad_grad_case(f"pad_grad_{dt}", x34 + (3 if dt.startswith("u") else -5),
                               [[1, 0], [1, 1]], "SYMMETRIC", dtype=dt))
h = np.random.RandomState(90).uniform(-3, 3, size=[7, 6])
for dt in ["float16", "bfloat16", "float32", "complex64"]:
    for mode in ["REFLECT", "SYMMETRIC"]:
        vals = h + 1j * h[::-1] if dt.startswith("complex") else h
        cases.append(pad_grad_case(f"pad_grad_round_{mode.lower()}_{dt}", vals,
                                   [[2, 2], [2, 1]], mode, dtype=dt))
# Both borders fold onto 2048: 2048 + 1 rounds back to 2048 twice in float16 (2050 wider).
cases.append(pad_grad_case("pad_grad_f16_big", [1.0, 5.0, 2048.0, 7.0, 1.0], [[1, 1]], "REFLECT",
                           dtype="float16"))
cases.append(pad_grad_case("pad_grad_int8_wrap", [[100, 100, 100, 100, 100]], [[0, 0], [1, 1]],
                           "REFLECT", dtype="int8"))
cases.append(pad_grad_case("pad_grad_rank0", 3.5, np.zeros([0, 2]), "REFLECT"))
cases.append(pad_grad_case("pad_grad_rank5", np.arange(2 * 3 * 2 * 3 * 5).reshape(2, 3, 2, 3, 5),
                           [[1, 0], [0, 1], [0, 0], [1, 1], [1, 2]], "SYMMETRIC",
                           dtype="float64"))
cases.append(pad_grad_case("pad_grad_no_padding", x34, [[0, 0], [0, 0]], "REFLECT"))
cases.append(pad_grad_case("pad_grad_int64_paddings", x34, [[1, 0], [0, 1]], "SYMMETRIC",
                           pad_dtype="int64"))
cases.append(pad_grad_case("pad_grad_dynamic", x34, [[0, 1], [1, 0]], "REFLECT", dynamic=True))
cases.append(pad_grad_case("pad_grad_unknown_paddings", x34, [[1, 0], [0, 1]], "SYMMETRIC",
                           dynamic_paddings=True))
for name, shape, p, mode in [
        ("sym_total", [4], [2, 2], "SYMMETRIC"), ("sym_total_over", [3], [2, 2], "SYMMETRIC"),
        ("empty_dim", [2, 0], [0, 0, 0, 0], "REFLECT"), ("reflect_out", [4], [2, 1], "REFLECT"),
        ("reflect_total", [4], [3, 3], "REFLECT"), ("reflect_edge", [2], [1, 0], "REFLECT"),
        ("sym_out", [2, 5], [0, 0, 3, 1], "SYMMETRIC"), ("negative", [2, 3], [0, 0, -1, 5],
                                                         "REFLECT"),
        ("sym_second_dim", [2, 3], [1, 0, 3, 0], "SYMMETRIC")]:
    x = np.arange(np.prod(shape)).reshape(shape)
    cases.append(pad_grad_case(f"pad_grad_err_{name}", x, np.reshape(p, [len(shape), 2]), mode,
                               dynamic=True, dynamic_paddings=True))
cases.append(pad_grad_case("pad_grad_err_rank6", np.ones([1, 1, 1, 1, 1, 3]),
                           [[0, 0]] * 5 + [[1, 0]], "SYMMETRIC", dynamic=True))
cases.append(pad_grad_case("pad_grad_err_paddings_vector", x34, [1, 1], "SYMMETRIC",
                           dynamic=True, dynamic_paddings=True))
cases.append(pad_grad_case("pad_grad_err_paddings_3_cols", x34, [[1, 1, 1], [1, 1, 1]],
                           "SYMMETRIC", dynamic=True, dynamic_paddings=True))
cases.append(pad_grad_case("pad_grad_err_paddings_rows", x34, [[1, 1]], "SYMMETRIC",
                           dynamic=True, dynamic_paddings=True))
cases.append(pad_grad_case("pad_grad_err_bool", np.ones([2, 3], bool), [[0, 0], [1, 0]],
                           "SYMMETRIC", dtype="bool"))
# Caught by the shape function when the graph is built.
cases.append(pad_grad_case("pad_grad_build_vector", x34, [1, 1], "SYMMETRIC"))
cases.append(pad_grad_case("pad_grad_build_rank", x34, [[1, 1]], "SYMMETRIC"))
cases.append(pad_grad_case("pad_grad_build_cols", x34, [[1, 1, 1], [1, 1, 1]], "SYMMETRIC",
                           dynamic=True))
cases.append(pad_grad_case("pad_grad_build_negative", x34, [[-1, 1], [0, 0]], "SYMMETRIC"))
cases.append(pad_grad_case("pad_grad_build_too_big", x34, [[2, 2], [0, 0]], "SYMMETRIC"))
cases.append(pad_grad_case("pad_grad_build_mode", x34, [[0, 0], [0, 0]], "CONSTANT"))
# Not caught by the shape function: REFLECT's own limit is the kernel's.
cases.append(pad_grad_case("pad_grad_reflect_static", x34, [[1, 1], [0, 0]], "REFLECT"))
cases.append(pad_grad_case("pad_grad_partial_shape", x34, [[1, 0], [0, 1]], "SYMMETRIC",
                           dynamic=[None, 4]))

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "expected.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": cases}, f, indent=1)
print(len(cases), "cases,", sum("grads" in c for c in cases), "gradient cases")
