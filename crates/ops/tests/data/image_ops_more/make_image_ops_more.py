"""Records what TensorFlow 2.21 (tf.compat.v1, graph mode) computes for the image and morphology
ops of crates/ops/tests/integration/image_ops_more.rs and
crates/train/tests/integration/image_ops_more_grad.rs: ResizeBicubic(Grad), ResizeArea, the
resize wrappers that reach them, NonMaxSuppression (V1, V2, WithOverlaps, the padded and
with-scores wrappers), CombinedNonMaxSuppression, MaxPoolWithArgmax(+Grad), Dilation2D (+ its
backprops) and erosion2d, on small fixed inputs, with their values, errors and gradients.

Run: ~/.cache/weir-bench/venv/bin/python make_image_ops_more.py   (writes expected.json beside it)

Each case: {"name", "op" (a raw op type, or "fn:<python function>"), "inputs": [[arg name,
tensor]...] in the op's order, "attrs": {name: {"kind", "value"}}, "dynamic" (inputs fed with
unknown shapes), and either "outputs": [tensor...] or "error": {"type", "message"};
differentiable cases also have "grad" (input names), "grad_ys" and "grads": {name: tensor},
the gradient of sum(grad_ys * output 0)}. A tensor is {"dtype", "shape", "values" (flat,
row-major; non-finite floats as strings)}.
"""

import json
import math
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = []


def enc(a):
    a = np.asarray(a)
    if a.dtype.kind == "f":
        vals = [v if math.isfinite(v) else str(v) for v in a.reshape(-1).tolist()]
    elif a.dtype.kind == "b":
        vals = [bool(v) for v in a.reshape(-1).tolist()]
    else:
        vals = [int(v) for v in a.reshape(-1).tolist()]
    return {"dtype": str(a.dtype), "shape": list(a.shape), "values": vals}


def err_message(e):
    msg = getattr(e, "message", str(e))
    if "\nNode: '" in msg:
        msg = msg.split("\nNode: '", 1)[1].split("\n", 1)[1]
    msg = msg.split("\n\t [[")[0].split(" for '{{node ")[0]
    return msg.strip()


def weights_like(shape):
    n = int(np.prod(shape))
    w = np.array([0.5 + ((i * 7919 + 13) % 1000) / 1000.0 for i in range(n)])
    return w.reshape(shape)


def attr_kind(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "string"
    if isinstance(v, tf.DType):
        return "type"
    if isinstance(v, (list, tuple)) and all(isinstance(x, int) for x in v):
        return "ints"
    if isinstance(v, (list, tuple)):
        return "floats"
    raise TypeError(v)


def case(name, op, inputs, attrs=None, grad=(), dynamic=False, call=None):
    """Builds `op` (tf.raw_ops.<op>, or `call(tensors, attrs)` for "fn:" cases) on `inputs`, a
    list of (name, array). Inputs named in `grad` are differentiated; with `dynamic` every
    input has an unknown shape, so that the kernel checks it."""
    attrs = attrs or {}
    rec = {"name": name, "op": op, "inputs": [[k, enc(v)] for k, v in inputs],
           "attrs": {k: {"kind": attr_kind(v), "value": (v.name if isinstance(v, tf.DType) else v)}
                     for k, v in attrs.items()},
           "dynamic": dynamic}
    g = tf.Graph()
    with g.as_default():
        try:
            ts = {}
            for k, v in inputs:
                v = np.asarray(v)
                if dynamic:
                    ts[k] = tf.placeholder_with_default(v, None, name=k)
                elif k in grad:
                    ts[k] = tf.placeholder_with_default(v, v.shape, name=k)
                else:
                    ts[k] = tf.constant(v, name=k)
            if call is not None:
                out = call(ts, attrs)
            else:
                out = getattr(tf.raw_ops, op)(**ts, **attrs)
            outs = list(out) if isinstance(out, (list, tuple)) else [out]
            grads = []
            if grad:
                y = outs[0]
                wy = tf.constant(weights_like(y.shape.as_list()).astype(y.dtype.as_numpy_dtype))
                grads = tf.gradients(y, [ts[k] for k in grad], grad_ys=wy)
            with tf.Session() as s:
                vals = s.run(outs)
                rec["outputs"] = [enc(v) for v in vals]
                if grad:
                    gv = s.run(grads)
                    rec["grad"] = list(grad)
                    rec["grad_ys"] = enc(s.run(wy))
                    rec["grads"] = {k: enc(v) for k, v in zip(grad, gv)}
        except (tf.errors.OpError, ValueError, TypeError) as e:
            rec["error"] = {"type": type(e).__name__, "message": err_message(e)}
            rec.pop("outputs", None)
    CASES.append(rec)


rng = np.random.RandomState(7)
f32, f64, i32, u8 = np.float32, np.float64, np.int32, np.uint8


def img(shape, dt=f32, lo=0, hi=255):
    if np.dtype(dt).kind == "f":
        return rng.uniform(lo, hi, size=shape).astype(dt)
    return rng.randint(lo, hi, size=shape).astype(dt)


# ---------------------------------------------------------------------------------------------
# 1. ResizeBicubic, ResizeBicubicGrad (through tf.gradients) and ResizeArea.
FLAGS = [("legacy", False, False), ("align", True, False), ("half", False, True)]
x = img((2, 5, 4, 3))
x1 = img((1, 6, 7, 1), lo=-2, hi=2)
for tag, a, h in FLAGS:
    for size in ([8, 7], [3, 2], [5, 4], [1, 1], [11, 3]):
        case(f"bicubic_{tag}_{size[0]}x{size[1]}", "ResizeBicubic",
             [("images", x), ("size", np.array(size, i32))],
             {"align_corners": a, "half_pixel_centers": h})
    case(f"bicubic_{tag}_one_channel", "ResizeBicubic",
         [("images", x1), ("size", np.array([9, 4], i32))],
         {"align_corners": a, "half_pixel_centers": h}, grad=("images",))
    case(f"bicubic_{tag}_f64_grad", "ResizeBicubic",
         [("images", x1.astype(f64)), ("size", np.array([4, 10], i32))],
         {"align_corners": a, "half_pixel_centers": h}, grad=("images",))
    case(f"bicubic_{tag}_u8", "ResizeBicubic",
         [("images", img((1, 4, 4, 2), u8)), ("size", np.array([7, 6], i32))],
         {"align_corners": a, "half_pixel_centers": h})
case("bicubic_align_and_half", "ResizeBicubic", [("images", x), ("size", np.array([3, 3], i32))],
     {"align_corners": True, "half_pixel_centers": True}, dynamic=True)
case("bicubic_zero_size", "ResizeBicubic", [("images", x), ("size", np.array([0, 3], i32))],
     dynamic=True)
case("bicubic_rank2", "ResizeBicubic", [("images", x[0, 0]), ("size", np.array([2, 2], i32))],
     dynamic=True)
case("bicubic_size_3", "ResizeBicubic", [("images", x), ("size", np.array([2, 2, 2], i32))],
     dynamic=True)

gy = rng.uniform(-1, 1, size=(2, 7, 3, 3)).astype(f32)
for tag, a, h in FLAGS:
    for odt in (f32, f64):
        case(f"bicubic_grad_raw_{tag}_{np.dtype(odt).name}", "ResizeBicubicGrad",
             [("grads", gy), ("original_image", x.astype(odt))],
             {"align_corners": a, "half_pixel_centers": h})
case("bicubic_grad_align_and_half", "ResizeBicubicGrad",
     [("grads", gy), ("original_image", x)], {"align_corners": True, "half_pixel_centers": True},
     dynamic=True)
case("bicubic_grad_empty_original", "ResizeBicubicGrad",
     [("grads", gy), ("original_image", np.zeros((2, 0, 4, 3), f32))], dynamic=True)
case("bicubic_grad_empty_grads", "ResizeBicubicGrad",
     [("grads", np.zeros((2, 3, 0, 3), f32)), ("original_image", x)], dynamic=True)

for a in (False, True):
    tag = "align" if a else "plain"
    for size in ([2, 3], [7, 9], [3, 3], [5, 4], [1, 1], [4, 2]):
        case(f"area_{tag}_{size[0]}x{size[1]}", "ResizeArea",
             [("images", x), ("size", np.array(size, i32))], {"align_corners": a})
    case(f"area_{tag}_one_channel", "ResizeArea",
         [("images", x1), ("size", np.array([4, 5], i32))], {"align_corners": a})
    case(f"area_{tag}_i32", "ResizeArea",
         [("images", img((1, 6, 6, 2), i32)), ("size", np.array([4, 4], i32))],
         {"align_corners": a})
case("area_zero_size", "ResizeArea", [("images", x), ("size", np.array([2, 0], i32))],
     dynamic=True)


def v1_resize(method):
    def call(t, at):
        return tf.image.resize_images(t["images"], t["size"], method=method,
                                      align_corners=at.get("align_corners", False))
    return call


def v2_resize(method):
    def call(t, at):
        # tf.image.resize is the v1 function under tf.compat.v1: ask for TensorFlow 2's.
        return tf.compat.v2.image.resize(t["images"], [int(v) for v in SIZE[0]], method=method)
    return call


for rank_img, rtag in ((x[0], "rank3"), (x, "rank4")):
    for a in (False, True):
        for m, mtag in ((tf.image.ResizeMethod.BICUBIC, "bicubic"), (tf.image.ResizeMethod.AREA, "area")):
            case(f"fn_resize_v1_{mtag}_{rtag}_{'align' if a else 'plain'}", "fn:resize_v1_" + mtag,
                 [("images", rank_img), ("size", np.array([7, 3], i32))], {"align_corners": a},
                 call=v1_resize(m))
    for m, mtag in (("bicubic", "bicubic"), ("area", "area")):
        SIZE = [[6, 9]]
        case(f"fn_resize_v2_{mtag}_{rtag}", "fn:resize_v2_" + mtag,
             [("images", rank_img), ("size", np.array([6, 9], i32))], call=v2_resize(m))

# ---------------------------------------------------------------------------------------------
# 2. Non-maximum suppression.
boxes = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11],
                  [0, 10.1, 1, 11.1], [0, 100, 1, 101], [1, 1, 0, 0], [0.5, 0.5, 0.5, 2]], f32)
scores = np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.75, 0.8], f32)
tied = np.array([0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5], f32)
for sc, stag in ((scores, "scores"), (tied, "tied")):
    for iou in (0.5, 0.0, 1.0, 0.2):
        for mx in (3, 10):
            case(f"nms_v1_{stag}_{iou}_{mx}", "NonMaxSuppression",
                 [("boxes", boxes), ("scores", sc), ("max_output_size", np.array(mx, i32))],
                 {"iou_threshold": iou})
            case(f"nms_v2_{stag}_{iou}_{mx}", "NonMaxSuppressionV2",
                 [("boxes", boxes), ("scores", sc), ("max_output_size", np.array(mx, i32)),
                  ("iou_threshold", np.array(iou, f32))])
case("nms_v1_neg_inf_score", "NonMaxSuppression",
     [("boxes", boxes[:3]), ("scores", np.array([-np.inf, 0.5, np.nan], f32)),
      ("max_output_size", np.array(5, i32))])
case("nms_v1_bad_iou", "NonMaxSuppression",
     [("boxes", boxes), ("scores", scores), ("max_output_size", np.array(3, i32))],
     {"iou_threshold": 1.5})
case("nms_v2_bad_iou", "NonMaxSuppressionV2",
     [("boxes", boxes), ("scores", scores), ("max_output_size", np.array(3, i32)),
      ("iou_threshold", np.array(-0.5, f32))], dynamic=True)
case("nms_v2_iou_rank1", "NonMaxSuppressionV2",
     [("boxes", boxes), ("scores", scores), ("max_output_size", np.array(3, i32)),
      ("iou_threshold", np.array([0.5], f32))], dynamic=True)
case("nms_v1_three_columns", "NonMaxSuppression",
     [("boxes", boxes[:, :3]), ("scores", scores), ("max_output_size", np.array(3, i32))],
     dynamic=True)
case("nms_v1_scores_mismatch", "NonMaxSuppression",
     [("boxes", boxes), ("scores", scores[:5]), ("max_output_size", np.array(3, i32))],
     dynamic=True)
case("nms_v1_negative_max", "NonMaxSuppression",
     [("boxes", boxes), ("scores", scores), ("max_output_size", np.array(-1, i32))], dynamic=True)
case("nms_v2_static_mismatch", "NonMaxSuppressionV2",
     [("boxes", boxes), ("scores", scores[:5]), ("max_output_size", np.array(3, i32)),
      ("iou_threshold", np.array(0.5, f32))])

ov = rng.uniform(0, 1, size=(6, 6)).astype(f32)
ov = ((ov + ov.T) / 2).astype(f32)
ovs = np.array([0.3, 0.9, 0.5, 0.7, 0.1, 0.8], f32)
for thr in (0.3, 0.5, 0.8):
    for sthr in (-np.inf, 0.4):
        case(f"nms_overlaps_{thr}_{sthr}", "NonMaxSuppressionWithOverlaps",
             [("overlaps", ov), ("scores", ovs), ("max_output_size", np.array(4, i32)),
              ("overlap_threshold", np.array(thr, f32)), ("score_threshold", np.array(sthr, f32))])
case("nms_overlaps_not_square", "NonMaxSuppressionWithOverlaps",
     [("overlaps", ov[:5]), ("scores", ovs), ("max_output_size", np.array(4, i32)),
      ("overlap_threshold", np.array(0.5, f32)), ("score_threshold", np.array(0.0, f32))],
     dynamic=True)
case("nms_overlaps_threshold_rank1", "NonMaxSuppressionWithOverlaps",
     [("overlaps", ov), ("scores", ovs), ("max_output_size", np.array(4, i32)),
      ("overlap_threshold", np.array([0.5], f32)), ("score_threshold", np.array(0.0, f32))],
     dynamic=True)
case("fn_nms_overlaps", "fn:non_max_suppression_overlaps",
     [("overlaps", ov), ("scores", ovs)], {"max_output_size": 3, "overlap_threshold": 0.6},
     call=lambda t, at: tf.image.non_max_suppression_overlaps(
         t["overlaps"], t["scores"], at["max_output_size"], overlap_threshold=at["overlap_threshold"]))
# TensorFlow 1.15's non_max_suppression_padded is one NonMaxSuppressionV4 (2.x pads with another
# algorithm); weir follows 1.15, so the padded case records the V4 op.
for pad in (False, True):
    case(f"fn_nms_padded_{pad}", "fn:non_max_suppression_padded",
         [("boxes", boxes), ("scores", scores)],
         {"max_output_size": 6, "iou_threshold": 0.4, "score_threshold": 0.55,
          "pad_to_max_output_size": pad},
         call=lambda t, at: tf.raw_ops.NonMaxSuppressionV4(
             boxes=t["boxes"], scores=t["scores"], max_output_size=at["max_output_size"],
             iou_threshold=at["iou_threshold"], score_threshold=at["score_threshold"],
             pad_to_max_output_size=at["pad_to_max_output_size"]))
for sigma in (0.0, 0.5):
    case(f"fn_nms_with_scores_{sigma}", "fn:non_max_suppression_with_scores",
         [("boxes", boxes), ("scores", scores)],
         {"max_output_size": 6, "iou_threshold": 0.5, "score_threshold": 0.1,
          "soft_nms_sigma": sigma},
         call=lambda t, at: tf.image.non_max_suppression_with_scores(
             t["boxes"], t["scores"], at["max_output_size"], at["iou_threshold"],
             at["score_threshold"], at["soft_nms_sigma"]))

cboxes = rng.uniform(-0.2, 1.2, size=(2, 7, 1, 4)).astype(f32)
cboxes3 = rng.uniform(-0.2, 1.2, size=(2, 7, 3, 4)).astype(f32)
cscores = rng.uniform(0, 1, size=(2, 7, 3)).astype(f32)
for bx, btag in ((cboxes, "q1"), (cboxes3, "q3")):
    for per, total in ((2, 4), (3, 20), (5, 3)):
        for pad in (False, True):
            for clip in (True, False):
                case(f"combined_{btag}_{per}_{total}_{pad}_{clip}", "fn:combined_non_max_suppression",
                     [("boxes", bx), ("scores", cscores)],
                     {"max_output_size_per_class": per, "max_total_size": total,
                      "iou_threshold": 0.3, "score_threshold": 0.2, "pad_per_class": pad,
                      "clip_boxes": clip},
                     call=lambda t, at: tf.image.combined_non_max_suppression(
                         t["boxes"], t["scores"], at["max_output_size_per_class"],
                         at["max_total_size"], at["iou_threshold"], at["score_threshold"],
                         at["pad_per_class"], at["clip_boxes"]))
case("combined_defaults", "fn:combined_non_max_suppression",
     [("boxes", cboxes), ("scores", cscores)],
     {"max_output_size_per_class": 3, "max_total_size": 5},
     call=lambda t, at: tf.image.combined_non_max_suppression(
         t["boxes"], t["scores"], at["max_output_size_per_class"], at["max_total_size"]))
# Equal scores across and within classes: the kernel's priority queue and std::sort decide.
tboxes = np.array([[[i * 0.08, 0.1, i * 0.08 + 0.05, 0.3]] for i in range(12)], f32)[None]
tscores = np.array([[[0.5, 0.25, 0.5][(i + c) % 3] for c in range(3)] for i in range(12)], f32)[None]
for per, total in ((8, 30), (5, 7), (12, 40)):
    case(f"combined_ties_{per}_{total}", "fn:combined_non_max_suppression",
         [("boxes", tboxes), ("scores", tscores)],
         {"max_output_size_per_class": per, "max_total_size": total},
         call=lambda t, at: tf.image.combined_non_max_suppression(
             t["boxes"], t["scores"], at["max_output_size_per_class"], at["max_total_size"]))
for nm, bx, sc, per, total in (("combined_zero_total", cboxes, cscores, 2, 0),
                               ("combined_zero_per_class", cboxes, cscores, 0, 3),
                               ("combined_bad_q", cboxes3[:, :, :2], cscores, 2, 3),
                               ("combined_batch_mismatch", cboxes[:1], cscores, 2, 3)):
    case(nm, "CombinedNonMaxSuppression",
         [("boxes", bx), ("scores", sc), ("max_output_size_per_class", np.array(per, i32)),
          ("max_total_size", np.array(total, i32)), ("iou_threshold", np.array(0.5, f32)),
          ("score_threshold", np.array(0.0, f32))], dynamic=True)

# ---------------------------------------------------------------------------------------------
# 3. MaxPoolWithArgmax (+ MaxPoolGradWithArgmax through tf.gradients).
px = rng.randint(0, 6, size=(2, 5, 6, 3)).astype(f32)  # small integers: ties
pxc = rng.uniform(-1, 1, size=(2, 5, 6, 3)).astype(f32)
for k, s, pad in (((2, 2), (2, 2), "VALID"), ((3, 3), (2, 2), "SAME"), ((2, 3), (1, 2), "SAME"),
                  ((3, 2), (2, 1), "VALID")):
    for batch_idx in (False, True):
        at = {"ksize": [1, k[0], k[1], 1], "strides": [1, s[0], s[1], 1], "padding": pad,
              "include_batch_in_index": batch_idx}
        tag = f"{k[0]}{k[1]}_{s[0]}{s[1]}_{pad}_{batch_idx}"
        case(f"argmax_ties_{tag}", "MaxPoolWithArgmax", [("input", px)], at, grad=("input",))
        case(f"argmax_{tag}", "MaxPoolWithArgmax", [("input", pxc)], at, grad=("input",))
        case(f"argmax_f64_{tag}", "MaxPoolWithArgmax", [("input", pxc.astype(f64))], at,
             grad=("input",))
case("argmax_int32_index", "MaxPoolWithArgmax", [("input", pxc)],
     {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "SAME", "Targmax": tf.int32})
case("argmax_int_input", "MaxPoolWithArgmax", [("input", px.astype(i32))],
     {"ksize": [1, 2, 2, 1], "strides": [1, 1, 1, 1], "padding": "VALID"})
case("argmax_batch_window", "MaxPoolWithArgmax", [("input", pxc)],
     {"ksize": [2, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "SAME"}, dynamic=True)
case("argmax_ksize_3", "MaxPoolWithArgmax", [("input", pxc)],
     {"ksize": [1, 2, 2], "strides": [1, 2, 2, 1], "padding": "SAME"}, dynamic=True)
case("fn_max_pool_with_argmax", "fn:max_pool_with_argmax", [("input", pxc)],
     {"ksize": [1, 3, 2, 1], "strides": [1, 2, 2, 1], "padding": "SAME"},
     call=lambda t, at: tf.nn.max_pool_with_argmax(t["input"], at["ksize"], at["strides"], at["padding"]),
     grad=("input",))

# ---------------------------------------------------------------------------------------------
# 4. Dilation2D (+ backprops through tf.gradients) and erosion2d.
dx = rng.uniform(-1, 1, size=(2, 6, 5, 2)).astype(f32)
dk = rng.uniform(-1, 1, size=(3, 2, 2)).astype(f32)
for s, r, pad in (((1, 1), (1, 1), "VALID"), ((1, 1), (1, 1), "SAME"), ((2, 2), (1, 1), "SAME"),
                  ((1, 2), (2, 1), "SAME"), ((2, 1), (2, 2), "VALID"), ((3, 3), (1, 2), "SAME")):
    at = {"strides": [1, s[0], s[1], 1], "rates": [1, r[0], r[1], 1], "padding": pad}
    tag = f"{s[0]}{s[1]}_{r[0]}{r[1]}_{pad}"
    case(f"dilation_{tag}", "Dilation2D", [("input", dx), ("filter", dk)], at,
         grad=("input", "filter"))
    case(f"dilation_f64_{tag}", "Dilation2D", [("input", dx.astype(f64)), ("filter", dk.astype(f64))],
         at, grad=("input", "filter"))
    case(f"erosion_{tag}", "fn:erosion2d", [("value", dx), ("kernel", dk)], at,
         call=lambda t, at: tf.nn.erosion2d(t["value"], t["kernel"], at["strides"], at["rates"], at["padding"]),
         grad=("value", "kernel"))
at = {"strides": [1, 1, 1, 1], "rates": [1, 1, 1, 1], "padding": "SAME"}
ix, ik = rng.randint(-3, 4, size=(1, 4, 4, 2)).astype(i32), rng.randint(-1, 2, size=(2, 2, 2)).astype(i32)
case("dilation_int32", "Dilation2D", [("input", ix), ("filter", ik)], at)
case("dilation_ties_grad", "Dilation2D", [("input", ix.astype(f32)), ("filter", ik.astype(f32))], at,
     grad=("input", "filter"))
case("dilation_backprop_input_raw", "Dilation2DBackpropInput",
     [("input", dx), ("filter", dk), ("out_backprop", rng.uniform(size=(2, 6, 5, 2)).astype(f32))], at)
case("dilation_backprop_filter_raw", "Dilation2DBackpropFilter",
     [("input", dx), ("filter", dk), ("out_backprop", rng.uniform(size=(2, 6, 5, 2)).astype(f32))], at)
case("dilation_depth_mismatch", "Dilation2D", [("input", dx), ("filter", dk[:, :, :1])], at,
     dynamic=True)
case("dilation_filter_rank", "Dilation2D", [("input", dx), ("filter", dk[0])], at, dynamic=True)
case("dilation_depth_mismatch_static", "Dilation2D", [("input", dx), ("filter", dk[:, :, :1])], at)
case("dilation_batch_stride", "Dilation2D", [("input", dx), ("filter", dk)],
     {"strides": [2, 1, 1, 1], "rates": [1, 1, 1, 1], "padding": "SAME"}, dynamic=True)
case("dilation_backprop_bad_size", "Dilation2DBackpropInput",
     [("input", dx), ("filter", dk), ("out_backprop", np.ones((2, 3, 5, 2), f32))], at, dynamic=True)

# ---------------------------------------------------------------------------------------------
# 5. SampleDistortedBoundingBox (V1, min_object_covered an attr): seeded, so one draw each.
sbox = np.array([[[0.1, 0.2, 0.5, 0.9], [0.3, 0.3, 0.8, 0.6]]], f32)
for seed, seed2 in ((1, 2), (7, 0), (0, 5), (42, 42)):
    for cov in (0.1, 0.5, 0.9):
        for size, sdt in (([240, 320, 3], i32), ([33, 17, 1], np.int64), ([100, 60, 3], u8)):
            case(f"sample_box_v1_{seed}_{seed2}_{cov}_{size[0]}_{np.dtype(sdt).name}",
                 "SampleDistortedBoundingBox",
                 [("image_size", np.array(size, sdt)), ("bounding_boxes", sbox)],
                 {"seed": seed, "seed2": seed2, "min_object_covered": cov,
                  "area_range": [0.05, 0.9], "aspect_ratio_range": [0.5, 2.0], "max_attempts": 50})
case("sample_box_v1_image_fallback", "SampleDistortedBoundingBox",
     [("image_size", np.array([50, 80, 3], i32)), ("bounding_boxes", np.zeros((1, 0, 4), f32))],
     {"seed": 3, "seed2": 4, "use_image_if_no_bounding_boxes": True})
case("sample_box_v1_no_boxes", "SampleDistortedBoundingBox",
     [("image_size", np.array([50, 80, 3], i32)), ("bounding_boxes", np.zeros((1, 0, 4), f32))],
     {"seed": 3, "seed2": 4})
case("sample_box_v1_negative_cover", "SampleDistortedBoundingBox",
     [("image_size", np.array([50, 80, 3], i32)), ("bounding_boxes", sbox)],
     {"seed": 3, "seed2": 4, "min_object_covered": -0.5})
case("sample_box_v1_bad_box", "SampleDistortedBoundingBox",
     [("image_size", np.array([50, 80, 3], i32)), ("bounding_boxes", sbox * 2)],
     {"seed": 3, "seed2": 4})

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": CASES}, f, separators=(",", ":"))
print(len(CASES), "cases,", sum("error" in c for c in CASES), "errors,",
      sum("grads" in c for c in CASES), "with gradients")
