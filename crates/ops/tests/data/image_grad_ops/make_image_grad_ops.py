"""Records what TensorFlow 2.21 (tf.compat.v1, graph mode) computes for the image gradient ops
of crates/ops/tests/integration/image_grad_ops.rs (ResizeBilinearGrad,
ResizeNearestNeighborGrad, CropAndResizeGradImage, CropAndResizeGradBoxes run directly: values,
static shapes and errors) and the gradients of crates/train/tests/integration/image_grad.rs
(tf.gradients of ResizeBilinear, ResizeNearestNeighbor, CropAndResize, ExtractImagePatches and
RGBToHSV), on small fixed inputs.

Run: ~/.cache/weir-bench/venv/bin/python make_image_grad_ops.py   (writes expected.json beside it)

{"tensorflow": version, "ops": [case...], "grads": [case...]}. Every case has "name", "op" (a
raw op type), "inputs": [[arg name, tensor]...] in the op's order, "attrs": {name: {"kind",
"value"}}, and "dynamic": {arg name: static shape fed with (null dims unknown; null = unknown
rank)} for the inputs given as placeholders with defaults (the others are constants).
An op case has "outputs": [tensor...] with "static": [shape...] (TensorFlow's inferred shapes), or
"error": {"type" (the exception class), "message"}. A gradient case has "outputs" (the forward
values), "grad": [input names], "grad_ys" and "grads": {name: tensor, or null for TensorFlow's
None}, and "static": {name: inferred shape of the gradient}.
A tensor is {"dtype", "shape", "values"}: integers as numbers, floats as the integers of their
bit patterns (float16 and bfloat16 16 bits, float32 32, float64 64), so values compare exactly.
"""

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))
OPS, GRADS = [], []
BITS = {"float16": np.uint16, "bfloat16": np.uint16, "float32": np.uint32, "float64": np.uint64}
f16, f32, f64, i32, u8 = np.float16, np.float32, np.float64, np.int32, np.uint8
bf16 = tf.bfloat16.as_numpy_dtype


def enc(a):
    a = np.asarray(a)
    name = str(a.dtype)
    flat = a.reshape(-1)
    if name in BITS:
        vals = [int(v) for v in flat.view(BITS[name]).tolist()]
    elif a.dtype.kind == "b":
        vals = [bool(v) for v in flat.tolist()]
    else:
        vals = [int(v) for v in flat.tolist()]
    return {"dtype": name, "shape": list(a.shape), "values": vals}


def shape_json(s):
    if s.dims is None:
        return None
    return [d for d in s.as_list()]


def err_message(e):
    msg = getattr(e, "message", str(e))
    if "\nNode: '" in msg:
        msg = msg.split("\nNode: '", 1)[1].split("\n", 1)[1]
    msg = msg.split("\n\t [[")[0].split(" for '{{node ")[0]
    return msg.strip()


def attr_json(v):
    if isinstance(v, bool):
        return {"kind": "bool", "value": v}
    if isinstance(v, int):
        return {"kind": "int", "value": v}
    if isinstance(v, float):
        return {"kind": "float", "value": v}
    if isinstance(v, str):
        return {"kind": "string", "value": v}
    if isinstance(v, tf.DType):
        return {"kind": "type", "value": v.name}
    if isinstance(v, (list, tuple)):
        return {"kind": "ints", "value": list(v)}
    raise TypeError(v)


def weights_like(shape):
    n = int(np.prod(shape))
    w = np.array([0.5 + ((i * 7919 + 13) % 1000) / 1000.0 for i in range(n)])
    return w.reshape(shape)


def build_inputs(inputs, dynamic):
    ts = {}
    for k, v in inputs:
        v = np.asarray(v)
        if k in dynamic:
            ts[k] = tf.placeholder_with_default(v, dynamic[k], name=k)
        else:
            ts[k] = tf.constant(v, name=k)
    return ts


def op_case(name, op, inputs, attrs=None, dynamic=None, all_dynamic=False):
    """Runs tf.raw_ops.<op>. With `all_dynamic` every input has an unknown shape, so that the
    kernel (not the shape function) checks it."""
    attrs = attrs or {}
    if all_dynamic:
        dynamic = {k: None for k, _ in inputs}
    dynamic = dynamic or {}
    rec = {"name": name, "op": op, "inputs": [[k, enc(v)] for k, v in inputs],
           "attrs": {k: attr_json(v) for k, v in attrs.items()},
           "dynamic": {k: (None if s is None else list(s)) for k, s in dynamic.items()}}
    g = tf.Graph()
    with g.as_default():
        try:
            ts = build_inputs(inputs, dynamic)
            out = getattr(tf.raw_ops, op)(**ts, **attrs)
            with tf.Session() as s:
                rec["static"] = [shape_json(out.shape)]
                rec["outputs"] = [enc(s.run(out))]
        except (tf.errors.OpError, ValueError, TypeError) as e:
            rec.pop("static", None)
            rec["error"] = {"type": type(e).__name__, "message": err_message(e)}
    OPS.append(rec)


def grad_case(name, op, inputs, attrs=None, grad=(), dynamic=None):
    """Runs tf.raw_ops.<op> and tf.gradients of sum(grad_ys * output 0) with respect to the
    inputs named in `grad` (always placeholders with defaults)."""
    attrs = attrs or {}
    dynamic = dict(dynamic or {})
    for k, v in inputs:
        if k in grad and k not in dynamic:
            dynamic[k] = np.asarray(v).shape
    rec = {"name": name, "op": op, "inputs": [[k, enc(v)] for k, v in inputs],
           "attrs": {k: attr_json(v) for k, v in attrs.items()},
           "dynamic": {k: (None if s is None else list(s)) for k, s in dynamic.items()},
           "grad": list(grad)}
    g = tf.Graph()
    with g.as_default():
        ts = build_inputs(inputs, dynamic)
        y = getattr(tf.raw_ops, op)(**ts, **attrs)
        with tf.Session(config=PLAIN) as s:
            yv = s.run(y)
            w = tf.constant(weights_like(yv.shape).astype(yv.dtype))
            grads = tf.gradients(y, [ts[k] for k in grad], grad_ys=w)
            rec["outputs"] = [enc(yv)]
            rec["grad_ys"] = enc(s.run(w))
            rec["grads"] = {}
            rec["static"] = {}
            for k, d in zip(grad, grads):
                if d is None:
                    rec["grads"][k] = None
                else:
                    rec["grads"][k] = enc(s.run(d))
                    rec["static"][k] = shape_json(d.shape)
    GRADS.append(rec)


# Gradients run without Grappler: its arithmetic optimizer rewrites the composed gradients
# (hoisting common factors, folding constant chains), which changes the last bits of the float
# results; without it the session computes the graph tf.gradients built, as weir does.
PLAIN = tf.ConfigProto()
PLAIN.graph_options.rewrite_options.disable_meta_optimizer = True

rng = np.random.RandomState(11)


def uni(shape, lo=-1.0, hi=1.0, dt=f32):
    return rng.uniform(lo, hi, size=shape).astype(dt)


FLAGS = [("legacy", False, False), ("align", True, False), ("half", False, True)]

# ---------------------------------------------------------------------------------------------
# 1. ResizeBilinearGrad and ResizeNearestNeighborGrad, run directly.
gy = uni((2, 5, 7, 3))
for tag, a, h in FLAGS:
    fl = {"align_corners": a, "half_pixel_centers": h}
    for oh, ow in ((3, 4), (8, 9), (5, 7), (1, 1), (10, 3), (2, 13)):
        for dt in (f32, f64):
            op_case(f"bilinear_grad_{tag}_{oh}x{ow}_{np.dtype(dt).name}", "ResizeBilinearGrad",
                    [("grads", gy), ("original_image", np.zeros((2, oh, ow, 3), dt))], fl)
    for dt, dn in ((f16, "float16"), (bf16, "bfloat16")):
        op_case(f"bilinear_grad_{tag}_{dn}", "ResizeBilinearGrad",
                [("grads", gy * 40), ("original_image", np.zeros((2, 3, 4, 3), dt))], fl)
    # Many resized pixels onto one original: sums where float32 rounding shows.
    op_case(f"bilinear_grad_{tag}_sum", "ResizeBilinearGrad",
            [("grads", uni((1, 64, 64, 1), 0, 1)), ("original_image", np.zeros((1, 2, 3, 1), f32))], fl)
    op_case(f"bilinear_grad_{tag}_sum_float16", "ResizeBilinearGrad",
            [("grads", uni((1, 64, 64, 1), 0, 1)), ("original_image", np.zeros((1, 2, 3, 1), f16))], fl)
op_case("bilinear_grad_unknown_original", "ResizeBilinearGrad",
        [("grads", gy), ("original_image", np.zeros((2, 3, 4, 3), f32))],
        dynamic={"original_image": None})
op_case("bilinear_grad_align_and_half", "ResizeBilinearGrad",
        [("grads", gy), ("original_image", np.zeros((2, 3, 4, 3), f32))],
        {"align_corners": True, "half_pixel_centers": True}, all_dynamic=True)
op_case("bilinear_grad_rank5", "ResizeBilinearGrad",
        [("grads", gy[None]), ("original_image", np.zeros((2, 3, 4, 3), f32))], all_dynamic=True)
op_case("bilinear_grad_resized_zero", "ResizeBilinearGrad",
        [("grads", np.zeros((2, 0, 4, 3), f32)), ("original_image", np.zeros((2, 3, 4, 3), f32))],
        all_dynamic=True)
op_case("bilinear_grad_original_rank3", "ResizeBilinearGrad",
        [("grads", gy), ("original_image", np.zeros((3, 4, 3), f32))], all_dynamic=True)
op_case("bilinear_grad_original_zero", "ResizeBilinearGrad",
        [("grads", gy), ("original_image", np.zeros((2, 3, 0, 3), f32))], all_dynamic=True)
op_case("bilinear_grad_int_original", "ResizeBilinearGrad",
        [("grads", gy), ("original_image", np.zeros((2, 3, 4, 3), i32))])

ngy = uni((2, 5, 7, 3), -4, 4)
FLAGS_NN = FLAGS + [("align_half", True, True)]
for tag, a, h in FLAGS_NN:
    fl = {"align_corners": a, "half_pixel_centers": h}
    for oh, ow in ((3, 4), (8, 9), (5, 7), (1, 1), (10, 3), (2, 13)):
        op_case(f"nearest_grad_{tag}_{oh}x{ow}", "ResizeNearestNeighborGrad",
                [("grads", ngy), ("size", np.array([oh, ow], i32))], fl)
    for dt in (f64, f16, bf16, i32):
        op_case(f"nearest_grad_{tag}_{np.dtype(dt).name}", "ResizeNearestNeighborGrad",
                [("grads", (ngy * 30).astype(dt)), ("size", np.array([2, 3], i32))], fl)
    for dt in (u8, np.int8):
        op_case(f"nearest_grad_{tag}_{np.dtype(dt).name}_wraps", "ResizeNearestNeighborGrad",
                [("grads", rng.randint(0, 120, size=(1, 6, 5, 2)).astype(dt)),
                 ("size", np.array([2, 2], i32))], fl)
op_case("nearest_grad_size_unknown", "ResizeNearestNeighborGrad",
        [("grads", ngy), ("size", np.array([3, 4], i32))], dynamic={"size": [2]})
op_case("nearest_grad_grads_unknown", "ResizeNearestNeighborGrad",
        [("grads", ngy), ("size", np.array([3, 4], i32))], dynamic={"grads": [None, None, None, 3]})
op_case("nearest_grad_rank2", "ResizeNearestNeighborGrad",
        [("grads", ngy[0, 0]), ("size", np.array([3, 4], i32))], all_dynamic=True)
op_case("nearest_grad_size_rank2", "ResizeNearestNeighborGrad",
        [("grads", ngy), ("size", np.array([[3, 4]], i32))], all_dynamic=True)
op_case("nearest_grad_size_3", "ResizeNearestNeighborGrad",
        [("grads", ngy), ("size", np.array([3, 4, 5], i32))], all_dynamic=True)
op_case("nearest_grad_size_zero", "ResizeNearestNeighborGrad",
        [("grads", ngy), ("size", np.array([0, 4], i32))], all_dynamic=True)
op_case("nearest_grad_static_rank2", "ResizeNearestNeighborGrad",
        [("grads", ngy[0, 0]), ("size", np.array([3, 4], i32))])
op_case("nearest_grad_static_size_3", "ResizeNearestNeighborGrad",
        [("grads", ngy), ("size", np.array([3, 4, 5], i32))])
op_case("nearest_grad_empty_grads", "ResizeNearestNeighborGrad",
        [("grads", np.zeros((2, 0, 3, 2), f32)), ("size", np.array([3, 4], i32))], all_dynamic=True)

# ---------------------------------------------------------------------------------------------
# 2. CropAndResizeGradImage and CropAndResizeGradBoxes, run directly.
boxes = np.array([[0.1, 0.2, 0.8, 0.9], [0.9, 0.7, 0.05, 0.1], [-0.2, -0.1, 1.3, 0.6],
                  [0.25, 0.3, 0.25, 0.3], [0.0, 0.0, 1.0, 1.0]], f32)
bind = np.array([0, 1, 1, 0, 0], i32)
for ch, cw in ((4, 5), (1, 1), (1, 4), (3, 1), (9, 11)):
    cg = uni((5, ch, cw, 2))
    for method in ("bilinear", "nearest"):
        for dt in (tf.float32, tf.float64, tf.float16):
            op_case(f"crop_grad_image_{method}_{ch}x{cw}_{dt.name}", "CropAndResizeGradImage",
                    [("grads", cg), ("boxes", boxes), ("box_ind", bind),
                     ("image_size", np.array([2, 6, 7, 2], i32))], {"T": dt, "method": method})
    img6 = uni((2, 6, 7, 2), 0, 255)
    for dt in (f32, f64, f16, u8, np.uint16, np.int8, np.int16, i32, np.int64):
        im = img6.astype(dt) if np.dtype(dt).kind == "f" else (img6 - (128 if np.dtype(dt).kind == "i" and np.dtype(dt).itemsize == 1 else 0)).astype(dt)
        op_case(f"crop_grad_boxes_{ch}x{cw}_{np.dtype(dt).name}", "CropAndResizeGradBoxes",
                [("grads", cg), ("image", im), ("boxes", boxes), ("box_ind", bind)])
cg = uni((5, 4, 5, 2))
img = uni((2, 6, 7, 2))
size = np.array([2, 6, 7, 2], i32)
op_case("crop_grad_image_size_unknown", "CropAndResizeGradImage",
        [("grads", cg), ("boxes", boxes), ("box_ind", bind), ("image_size", size)],
        {"T": tf.float32}, dynamic={"image_size": [4]})
op_case("crop_grad_image_size_rank_unknown", "CropAndResizeGradImage",
        [("grads", cg), ("boxes", boxes), ("box_ind", bind), ("image_size", size)],
        {"T": tf.float32}, dynamic={"image_size": None})
op_case("crop_grad_boxes_unknown", "CropAndResizeGradBoxes",
        [("grads", cg), ("image", img), ("boxes", boxes), ("box_ind", bind)],
        dynamic={"boxes": [None, 4]})
op_case("crop_grad_image_static_size_3", "CropAndResizeGradImage",
        [("grads", cg), ("boxes", boxes), ("box_ind", bind), ("image_size", size[:3])],
        {"T": tf.float32})
op_case("crop_grad_image_empty", "CropAndResizeGradImage",
        [("grads", np.zeros((0, 4, 5, 2), f32)), ("boxes", np.zeros((0, 4), f32)),
         ("box_ind", np.zeros((0,), i32)), ("image_size", size)], {"T": tf.float32})
op_case("crop_grad_boxes_empty", "CropAndResizeGradBoxes",
        [("grads", np.zeros((0, 4, 5, 2), f32)), ("image", img), ("boxes", np.zeros((0, 4), f32)),
         ("box_ind", np.zeros((0,), i32))])
IMG_ERRORS = [
    ("grads_rank3", cg[0], boxes, bind, size),
    ("grads_zero", np.zeros((5, 0, 5, 2), f32), boxes, bind, size),
    ("boxes_rank1", cg, boxes[0], bind, size),
    ("boxes_3_columns", cg, boxes[:, :3], bind, size),
    ("box_ind_rank2", cg, boxes, bind[None], size),
    ("box_ind_short", cg, boxes, bind[:4], size),
    ("grads_boxes_mismatch", cg[:4], boxes, bind, size),
    ("size_rank2", cg, boxes, bind, size[None]),
    ("size_3", cg, boxes, bind, size[:3]),
    ("image_zero", cg, boxes, bind, np.array([2, 0, 7, 2], i32)),
    ("depth_mismatch", cg, boxes, bind, np.array([2, 6, 7, 3], i32)),
    ("box_ind_outside", cg, boxes, np.array([0, 2, 1, 0, 0], i32), size),
    ("box_ind_negative", cg, boxes, np.array([0, -1, 1, 0, 0], i32), size),
    ("batch_negative", cg, boxes, bind, np.array([-1, 6, 7, 2], i32)),
]
for tag, gr, bx, bi, sz in IMG_ERRORS:
    op_case(f"crop_grad_image_error_{tag}", "CropAndResizeGradImage",
            [("grads", gr), ("boxes", bx), ("box_ind", bi), ("image_size", sz)], {"T": tf.float32},
            all_dynamic=True)
BOX_ERRORS = [
    ("grads_rank3", cg[0], img, boxes, bind),
    ("grads_zero", np.zeros((5, 4, 0, 2), f32), img, boxes, bind),
    ("image_rank3", cg, img[0], boxes, bind),
    ("image_zero", cg, np.zeros((2, 6, 0, 2), f32), boxes, bind),
    ("depth_mismatch", cg, img[..., :1], boxes, bind),
    ("boxes_3_columns", cg, img, boxes[:, :3], bind),
    ("box_ind_short", cg, img, boxes, bind[:3]),
    ("grads_boxes_mismatch", cg[:2], img, boxes, bind),
    ("box_ind_outside", cg, img, boxes, np.array([0, 1, 5, 0, 0], i32)),
]
for tag, gr, im, bx, bi in BOX_ERRORS:
    op_case(f"crop_grad_boxes_error_{tag}", "CropAndResizeGradBoxes",
            [("grads", gr), ("image", im), ("boxes", bx), ("box_ind", bi)], all_dynamic=True)

# ---------------------------------------------------------------------------------------------
# 3. tf.gradients of the forward ops.
x = uni((2, 4, 5, 3), 0, 10)
for tag, a, h in FLAGS:
    fl = {"align_corners": a, "half_pixel_centers": h}
    for oh, ow in ((7, 8), (3, 2), (4, 5), (1, 1), (9, 3)):
        grad_case(f"bilinear_{tag}_{oh}x{ow}", "ResizeBilinear",
                  [("images", x), ("size", np.array([oh, ow], i32))], fl, grad=("images",))
        grad_case(f"nearest_{tag}_{oh}x{ow}", "ResizeNearestNeighbor",
                  [("images", x), ("size", np.array([oh, ow], i32))], fl, grad=("images",))
    grad_case(f"bilinear_{tag}_f64", "ResizeBilinear",
              [("images", x.astype(f64)), ("size", np.array([6, 3], i32))], fl, grad=("images",))
    grad_case(f"nearest_{tag}_f64", "ResizeNearestNeighbor",
              [("images", x.astype(f64)), ("size", np.array([6, 3], i32))], fl, grad=("images",))
grad_case("nearest_dynamic", "ResizeNearestNeighbor",
          [("images", x), ("size", np.array([7, 3], i32))], {"half_pixel_centers": True},
          grad=("images",), dynamic={"images": [None, None, 5, 3]})
grad_case("nearest_unknown_rank", "ResizeNearestNeighbor",
          [("images", x), ("size", np.array([3, 8], i32))], grad=("images",),
          dynamic={"images": None})
grad_case("bilinear_dynamic", "ResizeBilinear",
          [("images", x), ("size", np.array([7, 3], i32))], {"half_pixel_centers": True},
          grad=("images",), dynamic={"images": [None, 4, None, 3]})

cimg = uni((2, 6, 7, 2), 0, 10)
for ch, cw in ((4, 5), (1, 1), (1, 4), (3, 1)):
    for method in ("bilinear", "nearest"):
        for ev in (0.0, 2.5):
            grad_case(f"crop_{method}_{ch}x{cw}_{ev}", "CropAndResize",
                      [("image", cimg), ("boxes", boxes), ("box_ind", bind),
                       ("crop_size", np.array([ch, cw], i32))],
                      {"method": method, "extrapolation_value": ev}, grad=("image", "boxes"))
grad_case("crop_f64", "CropAndResize",
          [("image", cimg.astype(f64)), ("boxes", boxes), ("box_ind", bind),
           ("crop_size", np.array([3, 4], i32))], grad=("image", "boxes"))
grad_case("crop_int_image", "CropAndResize",
          [("image", (cimg * 20).astype(i32)), ("boxes", boxes), ("box_ind", bind),
           ("crop_size", np.array([3, 4], i32))], grad=("boxes",))
grad_case("crop_dynamic", "CropAndResize",
          [("image", cimg), ("boxes", boxes), ("box_ind", bind),
           ("crop_size", np.array([3, 4], i32))], grad=("image", "boxes"),
          dynamic={"image": [None, 6, 7, 2]})

px = uni((2, 5, 6, 3))
for k, s, r, pad in (((2, 3), (1, 2), (1, 1), "SAME"), ((3, 3), (2, 2), (1, 1), "VALID"),
                     ((2, 2), (1, 1), (2, 2), "SAME"), ((1, 1), (3, 2), (1, 1), "VALID"),
                     ((3, 2), (2, 3), (2, 1), "SAME"), ((5, 6), (1, 1), (1, 1), "VALID")):
    at = {"ksizes": [1, k[0], k[1], 1], "strides": [1, s[0], s[1], 1],
          "rates": [1, r[0], r[1], 1], "padding": pad}
    tag = f"{k[0]}{k[1]}_{s[0]}{s[1]}_{r[0]}{r[1]}_{pad}"
    grad_case(f"patches_{tag}", "ExtractImagePatches", [("images", px)], at, grad=("images",))
    grad_case(f"patches_f64_{tag}", "ExtractImagePatches", [("images", px.astype(f64))], at,
              grad=("images",))
grad_case("patches_dynamic", "ExtractImagePatches", [("images", px)],
          {"ksizes": [1, 2, 2, 1], "strides": [1, 2, 1, 1], "rates": [1, 1, 1, 1],
           "padding": "SAME"}, grad=("images",), dynamic={"images": [None, None, None, 3]})

rgb = uni((4, 5, 3), 0, 1)
# Ties (grey, two equal channels), zeros and a black pixel exercise the masks.
rgb_ties = np.array([[0.5, 0.5, 0.5], [0.8, 0.8, 0.2], [0.1, 0.7, 0.7], [0.3, 0.9, 0.3],
                     [0.0, 0.0, 0.0], [0.0, 0.4, 0.9], [0.6, 0.0, 0.2], [0.2, 0.5, 0.0],
                     [1.0, 0.25, 0.25], [0.9, 0.1, 0.9]], f32)
for dt in (f32, f64):
    grad_case(f"hsv_{np.dtype(dt).name}", "RGBToHSV", [("images", rgb.astype(dt))],
              grad=("images",))
    grad_case(f"hsv_ties_{np.dtype(dt).name}", "RGBToHSV", [("images", rgb_ties.astype(dt))],
              grad=("images",))
grad_case("hsv_batch", "RGBToHSV", [("images", uni((2, 3, 4, 3), 0, 1))], grad=("images",))

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "ops": OPS, "grads": GRADS}, f, separators=(",", ":"))
print(len(OPS), "op cases,", sum("error" in c for c in OPS), "errors;", len(GRADS), "gradient cases")
