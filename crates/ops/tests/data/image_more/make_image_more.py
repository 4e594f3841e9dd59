"""Records TensorFlow 2.21's tf.image outputs and errors into expected.json.

Run with TensorFlow 2.21:  python make_image_more.py  (writes expected.json next to this file).

Each case calls one tf.image function (`fn`) in a tf.compat.v1 graph and runs it in a Session:
the Python compositions flip_left_right, flip_up_down, transpose, rot90, rgb_to_grayscale,
grayscale_to_rgb, central_crop, adjust_gamma, resize_with_pad, total_variation,
image_gradients and sobel_edges, and the kernels RGBToHSV, HSVToRGB, CropAndResize,
NonMaxSuppressionV3/V4/V5, DrawBoundingBoxes(V2), SampleDistortedBoundingBoxV2 (run `runs`
times in one session, outputs concatenated), ExtractImagePatches, and the metrics psnr and
ssim.

`inputs` maps an argument name to {dtype, dims, value (flat, row-major)} and, for a placeholder, `shape` (its static
shape, None for unknown dims; the string "unknown" for unknown rank); without `shape` the value
is a constant. `args` holds the Python arguments. Recorded: `static_shapes` (one per output, None
for unknown rank), then either `outputs` ({dtype, shape, values} each) or the error
(`build_error` when building failed, `error` when running did) as TensorFlow's canonical code
and message. Non-finite floats are the strings "nan", "inf" and "-inf", and float64 values are
strings too (Python's repr), which Rust parses to the exact double. Graph-building
messages keep only the part before TensorFlow's " for '{{node ...}}'" suffix.
"""
import json
import math
import os

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.python.ops import gen_image_ops

tf.disable_eager_execution()


def num(v):
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def values_json(a):
    # float64 values are written as strings (Python's shortest round-trip repr): serde_json's
    # default number parser may miss the nearest double by one ulp.
    if a.dtype == np.float64:
        return [str(num(x)) if not isinstance(num(x), str) else num(x)
                for x in a.reshape(-1).tolist()]
    return [num(x) for x in a.reshape(-1).tolist()]


def tensor_json(v):
    a = np.asarray(v)
    return {"dtype": a.dtype.name, "shape": list(a.shape), "values": values_json(a)}


def source(spec):
    value = np.array(spec["value"], dtype=spec["dtype"]).reshape(spec["dims"])
    if "shape" not in spec:
        return tf.constant(value), {}
    shape = None if spec["shape"] == "unknown" else spec["shape"]
    p = tf.placeholder(spec["dtype"], shape)
    return p, {p: value}


def build(c):
    feeds = {}
    t = {}
    for k, spec in c["inputs"].items():
        t[k], f = source(spec)
        feeds.update(f)
    a = c.get("args", {})
    fn = c["fn"]
    x = t.get("x")
    im = tf.image
    if fn == "flip_left_right":
        return [im.flip_left_right(x)], feeds
    if fn == "flip_up_down":
        return [im.flip_up_down(x)], feeds
    if fn == "transpose":
        return [im.transpose(x)], feeds
    if fn == "rot90":
        return [im.rot90(x, t["k"] if "k" in t else a["k"])], feeds
    if fn == "rgb_to_grayscale":
        return [im.rgb_to_grayscale(x)], feeds
    if fn == "grayscale_to_rgb":
        return [im.grayscale_to_rgb(x)], feeds
    if fn == "central_crop":
        return [im.central_crop(x, a["central_fraction"])], feeds
    if fn == "adjust_gamma":
        return [im.adjust_gamma(x, a["gamma"], a["gain"])], feeds
    if fn == "resize_with_pad":
        return [tf.compat.v2.image.resize_with_pad(x, a["target_height"], a["target_width"],
                                                   method=a["method"])], feeds
    if fn == "total_variation":
        return [im.total_variation(x)], feeds
    if fn == "image_gradients":
        return list(im.image_gradients(x)), feeds
    if fn == "sobel_edges":
        return [im.sobel_edges(x)], feeds
    if fn == "rgb_to_hsv":
        return [im.rgb_to_hsv(x)], feeds
    if fn == "hsv_to_rgb":
        return [im.hsv_to_rgb(x)], feeds
    if fn == "crop_and_resize":
        crop_size = t["crop_size"] if "crop_size" in t else a["crop_size"]
        return [tf.compat.v2.image.crop_and_resize(
            x, t["boxes"], t["box_indices"], crop_size, method=a.get("method", "bilinear"),
            extrapolation_value=a.get("extrapolation_value", 0.0))], feeds
    if fn == "nms":
        return [im.non_max_suppression(t["boxes"], t["scores"], a["max_output_size"],
                                       a.get("iou_threshold", 0.5),
                                       a.get("score_threshold", float("-inf")))], feeds
    if fn == "nms_padded":
        with tf.name_scope("non_max_suppression_padded"):
            out = gen_image_ops.non_max_suppression_v4(
                t["boxes"], t["scores"], a["max_output_size"],
                tf.constant(a.get("iou_threshold", 0.5)),
                tf.constant(a.get("score_threshold", float("-inf"))),
                pad_to_max_output_size=a["pad"])
        return list(out), feeds
    if fn == "nms_with_scores":
        return list(im.non_max_suppression_with_scores(
            t["boxes"], t["scores"], a["max_output_size"], a.get("iou_threshold", 0.5),
            a.get("score_threshold", float("-inf")), a.get("soft_nms_sigma", 0.0))), feeds
    if fn == "draw_bounding_boxes":
        colors = t.get("colors")
        if colors is None:
            return [gen_image_ops.draw_bounding_boxes(x, t["boxes"])], feeds
        # tf.image.draw_bounding_boxes cannot take a colors tensor in graph mode (it tests
        # `if colors`), so its op is called directly.
        return [gen_image_ops.draw_bounding_boxes_v2(x, t["boxes"], colors)], feeds
    if fn == "sample_distorted_bounding_box":
        if "graph_seed" in a:
            tf.set_random_seed(a["graph_seed"])
        opts = {k: a[k] for k in ("min_object_covered", "aspect_ratio_range", "area_range",
                                  "max_attempts", "use_image_if_no_bounding_boxes") if k in a}
        if "seed2" in a:
            out = tf.image.sample_distorted_bounding_box(
                t["image_size"], t["boxes"], seed=a["seed"], seed2=a["seed2"], **opts)
        else:
            out = tf.compat.v2.image.sample_distorted_bounding_box(
                t["image_size"], t["boxes"], seed=a.get("seed", 0), **opts)
        return list(out), feeds
    if fn == "extract_patches":
        return [im.extract_patches(x, a["sizes"], a["strides"], a["rates"], a["padding"])], feeds
    if fn == "psnr":
        return [im.psnr(x, t["y"], a["max_val"])], feeds
    if fn == "ssim":
        return [im.ssim(x, t["y"], a["max_val"], filter_size=a.get("filter_size", 11),
                        filter_sigma=a.get("filter_sigma", 1.5), k1=a.get("k1", 0.01),
                        k2=a.get("k2", 0.03))], feeds
    raise ValueError(fn)


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


def record(c):
    g = tf.Graph()
    with g.as_default():
        try:
            outs, feeds = build(c)
        except (ValueError, TypeError, tf.errors.OpError) as e:
            code = e.error_code if isinstance(e, tf.errors.OpError) else 3
            c["build_error"] = {"code": code, "message": build_message(e)}
            return c
        c["static_shapes"] = [o.shape.as_list() if o.shape.rank is not None else None
                              for o in outs]
        with tf.Session() as sess:
            try:
                # A stateful random op draws anew in each run: `runs` runs, outputs concatenated.
                c["outputs"] = [tensor_json(v) for _ in range(c["args"].get("runs", 1))
                                for v in sess.run(outs, feed_dict=feeds)]
            except tf.errors.OpError as e:
                c["error"] = {"code": e.error_code, "message": run_message(e)}
    return c


rng = np.random.RandomState(2024)


def inp(value, dtype, shape=None):
    a = np.asarray(value, dtype=dtype)
    d = {"dtype": dtype, "dims": list(a.shape), "value": values_json(a)}
    if shape is not None:
        d["shape"] = shape
    return d


U8_343 = rng.randint(0, 256, size=(3, 4, 3))
U8_2343 = rng.randint(0, 256, size=(2, 3, 4, 3))
F_343 = rng.uniform(0, 1, size=(3, 4, 3)).astype(np.float32)
F_2343 = rng.uniform(0, 1, size=(2, 3, 4, 3)).astype(np.float32)
F_SQ = rng.uniform(-1, 2, size=(2, 3, 3, 2)).astype(np.float32)
D_343 = rng.uniform(0, 1, size=(3, 4, 3))
U16_343 = rng.randint(0, 65536, size=(3, 4, 3))
I32_343 = rng.randint(0, 2**31 - 1, size=(3, 4, 3))
GRAY_341 = rng.randint(0, 256, size=(3, 4, 1))

CASES = []


def case(name, fn, inputs, **args):
    CASES.append(dict(name=name, fn=fn, inputs=inputs, args=args))


# Flips and transpose: dtypes, ranks, unknown dims and rank.
for fn in ("flip_left_right", "flip_up_down", "transpose"):
    case(f"{fn}_u8_3d", fn, {"x": inp(U8_343, "uint8")})
    case(f"{fn}_u8_4d", fn, {"x": inp(U8_2343, "uint8")})
    case(f"{fn}_f32_3d", fn, {"x": inp(F_343, "float32")})
    case(f"{fn}_f64_3d", fn, {"x": inp(D_343, "float64")})
    case(f"{fn}_i32_3d", fn, {"x": inp(I32_343, "int32")})
    case(f"{fn}_unknown_dims", fn, {"x": inp(F_2343, "float32", [None, None, None, 3])})
    case(f"{fn}_unknown_rank_3d", fn, {"x": inp(U8_343, "uint8", "unknown")})
    # TensorFlow 2.21 runs transpose's rank-3 branch on a 4-D image of unknown rank and
    # fails ("transpose expects a vector of size 4"), a bug weir does not copy.
    if fn != "transpose":
        case(f"{fn}_unknown_rank_4d", fn, {"x": inp(U8_2343, "uint8", "unknown")})
    case(f"{fn}_rank2", fn, {"x": inp([[1.0, 2.0]], "float32")})
    case(f"{fn}_rank5", fn, {"x": inp(np.zeros((1, 1, 2, 2, 1)), "float32")})
    case(f"{fn}_zero_dim", fn, {"x": inp(np.zeros((0, 2, 3)), "float32")})
    # The run-time asserts TensorFlow adds when the inner dims are not all known.
    case(f"{fn}_zero_dim_run", fn, {"x": inp(np.zeros((0, 2, 3)), "float32", [None, None, 3])})
    case(f"{fn}_zero_dim_4d_run", fn,
         {"x": inp(np.zeros((2, 3, 0, 3)), "float32", [None, None, None, 3])})

# rot90: every k, negative and large k, a k tensor, squares and batches.
for k in (-5, -1, 0, 1, 2, 3, 4, 6, 7):
    case(f"rot90_k{k}_3d", "rot90", {"x": inp(U8_343, "uint8")}, k=k)
    case(f"rot90_k{k}_4d", "rot90", {"x": inp(F_2343, "float32")}, k=k)
case("rot90_square", "rot90", {"x": inp(F_SQ, "float32")}, k=1)
case("rot90_k_tensor", "rot90", {"x": inp(U8_343, "uint8"),
                                 "k": inp(3, "int32", [])})
case("rot90_k_tensor_neg", "rot90", {"x": inp(U8_2343, "uint8"),
                                     "k": inp(-2, "int32", [])})
case("rot90_unknown_dims", "rot90", {"x": inp(F_343, "float32", [None, None, 3])}, k=1)
case("rot90_unknown_rank", "rot90", {"x": inp(F_343, "float32", "unknown")}, k=3)
case("rot90_zero_dim_run", "rot90", {"x": inp(np.zeros((2, 0, 3)), "uint8", [None, None, 3])},
     k=1)
case("rot90_rank2", "rot90", {"x": inp([[1.0]], "float32")}, k=1)
case("rot90_rank5", "rot90", {"x": inp(np.zeros((1, 1, 1, 1, 1)), "float32")}, k=1)

# Grayscale.
for dt, v in (("uint8", U8_343), ("float32", F_343), ("float64", D_343), ("uint16", U16_343),
              ("int32", I32_343)):
    case(f"gray_{dt}_3d", "rgb_to_grayscale", {"x": inp(v, dt)})
case("gray_u8_4d", "rgb_to_grayscale", {"x": inp(U8_2343, "uint8")})
case("gray_f32_unknown", "rgb_to_grayscale", {"x": inp(F_2343, "float32", [None, None, None, 3])})
case("gray_f32_unknown_rank", "rgb_to_grayscale", {"x": inp(F_343, "float32", "unknown")})
case("gray_4_channels", "rgb_to_grayscale", {"x": inp(np.zeros((2, 2, 4)), "float32")})
case("to_rgb_u8_3d", "grayscale_to_rgb", {"x": inp(GRAY_341, "uint8")})
case("to_rgb_f32_4d", "grayscale_to_rgb", {"x": inp(F_2343[..., :1], "float32")})
case("to_rgb_2d", "grayscale_to_rgb", {"x": inp([[0.5], [0.25]], "float32")})
case("to_rgb_unknown_rank", "grayscale_to_rgb", {"x": inp(GRAY_341, "uint8", "unknown")})
case("to_rgb_unknown_dims", "grayscale_to_rgb", {"x": inp(GRAY_341, "uint8", [None, None, 1])})
case("to_rgb_3_channels", "grayscale_to_rgb", {"x": inp(U8_343, "uint8")})
case("to_rgb_rank1", "grayscale_to_rgb", {"x": inp([1.0], "float32")})

# central_crop.
BIG = rng.randint(0, 256, size=(7, 10, 2))
for f in (0.1, 0.33, 0.5, 0.75, 0.9, 1.0):
    case(f"central_crop_{f}", "central_crop", {"x": inp(BIG, "uint8")}, central_fraction=f)
case("central_crop_4d", "central_crop", {"x": inp(U8_2343, "uint8")}, central_fraction=0.5)
case("central_crop_unknown_hw", "central_crop", {"x": inp(BIG, "uint8", [None, None, 2])},
     central_fraction=0.6)
case("central_crop_unknown_4d", "central_crop", {"x": inp(F_2343, "float32", [2, None, 4, 3])},
     central_fraction=0.5)
case("central_crop_zero", "central_crop", {"x": inp(BIG, "uint8")}, central_fraction=0.0)
case("central_crop_above_one", "central_crop", {"x": inp(BIG, "uint8")}, central_fraction=1.5)
case("central_crop_negative", "central_crop", {"x": inp(BIG, "uint8")}, central_fraction=-0.5)
case("central_crop_rank2", "central_crop", {"x": inp(np.zeros((4, 4)), "float32")},
     central_fraction=0.5)
case("central_crop_rank5", "central_crop", {"x": inp(np.zeros((1, 1, 4, 4, 1)), "float32")},
     central_fraction=0.5)

# adjust_gamma.
for dt, v in (("uint8", U8_343), ("float32", F_343), ("float64", D_343)):
    for gamma, gain in ((1.0, 1.0), (2.2, 1.0), (0.5, 0.8), (0.0, 2.0)):
        case(f"gamma_{dt}_{gamma}_{gain}", "adjust_gamma", {"x": inp(v, dt)},
             gamma=gamma, gain=gain)
case("gamma_negative", "adjust_gamma", {"x": inp(F_343, "float32")}, gamma=-1.0, gain=1.0)
case("gamma_4d", "adjust_gamma", {"x": inp(U8_2343, "uint8")}, gamma=1.5, gain=1.2)

# resize_with_pad.
WIDE = rng.randint(0, 256, size=(3, 6, 2))
for (th, tw) in ((6, 6), (4, 4), (8, 5), (2, 9), (3, 6), (5, 7)):
    for method in ("bilinear", "nearest"):
        case(f"pad_resize_{th}x{tw}_{method}", "resize_with_pad", {"x": inp(WIDE, "uint8")},
             target_height=th, target_width=tw, method=method)
case("pad_resize_4d", "resize_with_pad", {"x": inp(F_2343, "float32")},
     target_height=5, target_width=5, method="bilinear")
for method in ("bilinear", "nearest"):
    case(f"pad_resize_unknown_hw_{method}", "resize_with_pad",
         {"x": inp(WIDE, "uint8", [None, None, 2])}, target_height=5, target_width=7,
         method=method)
    case(f"pad_resize_unknown_rank_{method}", "resize_with_pad",
         {"x": inp(WIDE, "uint8", "unknown")}, target_height=8, target_width=5, method=method)
case("pad_resize_unknown_4d", "resize_with_pad",
     {"x": inp(F_2343, "float32", [None, 3, None, 3])}, target_height=2, target_width=9,
     method="bilinear")
case("pad_resize_zero_dim_run", "resize_with_pad",
     {"x": inp(np.zeros((0, 4, 2)), "uint8", [None, None, 2])}, target_height=5, target_width=7,
     method="bilinear")
case("pad_resize_zero_target", "resize_with_pad", {"x": inp(WIDE, "uint8")},
     target_height=0, target_width=4, method="bilinear")

# total_variation, image_gradients, sobel_edges.
case("tv_f32_3d", "total_variation", {"x": inp(F_343, "float32")})
case("tv_f32_4d", "total_variation", {"x": inp(F_2343, "float32")})
case("tv_f64_4d", "total_variation", {"x": inp(D_343[None], "float64")})
case("tv_i32_3d", "total_variation", {"x": inp(U8_343, "int32")})
case("tv_unknown_batch", "total_variation", {"x": inp(F_2343, "float32", [None, 3, 4, 3])})
case("tv_rank2", "total_variation", {"x": inp(np.zeros((2, 2)), "float32")})
case("grad_f32", "image_gradients", {"x": inp(F_2343, "float32")})
case("grad_u8", "image_gradients", {"x": inp(U8_2343, "int32")})
case("grad_unknown", "image_gradients", {"x": inp(F_2343, "float32", [None, None, None, 3])})
case("grad_3d", "image_gradients", {"x": inp(F_343, "float32")})
case("sobel_f32", "sobel_edges", {"x": inp(F_2343, "float32")})
case("sobel_f64", "sobel_edges", {"x": inp(D_343[None], "float64")})
case("sobel_unknown", "sobel_edges", {"x": inp(F_2343, "float32", [None, None, None, 3])})

# RGBToHSV / HSVToRGB.
PIX = [[0.5, 0.5, 0.5], [0, 0, 0], [1, 1, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0],
       [0.2, 0.4, 0.9], [0.9, 0.3, 0.1], [0.25, 0.75, 0.6], [2.0, 0.5, 1.0], [0.3, 0.3, 0.7],
       [-0.5, 0.2, 0.1], [0.1, 0.9, 0.9]]
case("hsv_f32", "rgb_to_hsv", {"x": inp(PIX, "float32")})
case("hsv_f64", "rgb_to_hsv", {"x": inp(PIX, "float64")})
case("hsv_f32_4d", "rgb_to_hsv", {"x": inp(F_2343, "float32")})
case("hsv_unknown", "rgb_to_hsv", {"x": inp(F_343, "float32", [None, None, None])})
case("hsv_4_channels", "rgb_to_hsv", {"x": inp(np.zeros((2, 4)), "float32")})
case("hsv_4_channels_run", "rgb_to_hsv", {"x": inp(np.zeros((2, 4)), "float32", [None, None])})
case("hsv_scalar", "rgb_to_hsv", {"x": inp(1.0, "float32")})
case("hsv_u8", "rgb_to_hsv", {"x": inp(U8_343, "uint8")})
HSV = [[0.0, 1.0, 1.0], [0.1, 0.5, 0.8], [1 / 6, 1, 1], [0.5, 0.25, 0.9], [0.99, 0.9, 0.5],
       [1.5, 0.5, 0.5], [-0.25, 0.5, 0.5], [0.7, 0.0, 0.3], [0.33, 1.2, 1.0]]
case("rgb_f32", "hsv_to_rgb", {"x": inp(HSV, "float32")})
case("rgb_f64", "hsv_to_rgb", {"x": inp(HSV, "float64")})
case("rgb_f32_4d", "hsv_to_rgb", {"x": inp(F_2343, "float32")})

# CropAndResize.
IMG = rng.uniform(0, 255, size=(2, 4, 5, 2)).astype(np.float32)
BOXES = [[0, 0, 1, 1], [0.1, 0.2, 0.6, 0.9], [0.75, 0.8, 0.25, 0.1], [-0.5, -0.25, 0.5, 1.5],
         [0.3, 0.3, 0.3, 0.3], [1.2, 0.0, 1.5, 1.0]]
IDX = [0, 1, 0, 1, 1, 0]
for method in ("bilinear", "nearest"):
    for size in ([3, 3], [1, 1], [2, 5], [4, 1]):
        case(f"car_{method}_{size[0]}x{size[1]}", "crop_and_resize",
             {"x": inp(IMG, "float32"), "boxes": inp(BOXES, "float32"),
              "box_indices": inp(IDX, "int32")}, crop_size=size, method=method)
    case(f"car_{method}_extrapolate", "crop_and_resize",
         {"x": inp(IMG, "float32"), "boxes": inp(BOXES, "float32"),
          "box_indices": inp(IDX, "int32")}, crop_size=[3, 4], method=method,
         extrapolation_value=-1.5)
    case(f"car_{method}_u8", "crop_and_resize",
         {"x": inp(U8_2343, "uint8"), "boxes": inp(BOXES, "float32"),
          "box_indices": inp(IDX, "int32")}, crop_size=[3, 3], method=method)
case("car_f64", "crop_and_resize",
     {"x": inp(IMG, "float64"), "boxes": inp(BOXES, "float32"),
      "box_indices": inp(IDX, "int32")}, crop_size=[2, 3])
case("car_i32", "crop_and_resize",
     {"x": inp(I32_343[None], "int32"), "boxes": inp(BOXES[:2], "float32"),
      "box_indices": inp([0, 0], "int32")}, crop_size=[2, 3])
case("car_zero_boxes", "crop_and_resize",
     {"x": inp(IMG, "float32"), "boxes": inp(np.zeros((0, 4)), "float32"),
      "box_indices": inp(np.zeros((0,)), "int32")}, crop_size=[2, 2])
case("car_unknown_boxes", "crop_and_resize",
     {"x": inp(IMG, "float32", [None, None, None, 2]),
      "boxes": inp(BOXES, "float32", [None, 4]),
      "box_indices": inp(IDX, "int32", [None])}, crop_size=[2, 2])
case("car_crop_size_tensor", "crop_and_resize",
     {"x": inp(IMG, "float32"), "boxes": inp(BOXES, "float32"),
      "box_indices": inp(IDX, "int32"), "crop_size": inp([2, 3], "int32", [2])})
case("car_bad_index", "crop_and_resize",
     {"x": inp(IMG, "float32"), "boxes": inp(BOXES[:2], "float32"),
      "box_indices": inp([0, 2], "int32")}, crop_size=[2, 2])
case("car_negative_index", "crop_and_resize",
     {"x": inp(IMG, "float32"), "boxes": inp(BOXES[:2], "float32"),
      "box_indices": inp([-1, 0], "int32")}, crop_size=[2, 2])
case("car_nan_box", "crop_and_resize",
     {"x": inp(IMG, "float32"), "boxes": inp([[0, 0, float("nan"), 1]], "float32"),
      "box_indices": inp([0], "int32")}, crop_size=[2, 2])
case("car_zero_crop", "crop_and_resize",
     {"x": inp(IMG, "float32"), "boxes": inp(BOXES[:1], "float32"),
      "box_indices": inp([0], "int32"), "crop_size": inp([0, 2], "int32", [2])})
case("car_boxes_mismatch", "crop_and_resize",
     {"x": inp(IMG, "float32"), "boxes": inp(BOXES[:2], "float32"),
      "box_indices": inp([0, 0, 1], "int32")}, crop_size=[2, 2])
case("car_boxes_mismatch_run", "crop_and_resize",
     {"x": inp(IMG, "float32"), "boxes": inp(BOXES[:2], "float32", [None, 4]),
      "box_indices": inp([0, 0, 1], "int32", [None])}, crop_size=[2, 2])
case("car_boxes_3_columns", "crop_and_resize",
     {"x": inp(IMG, "float32"), "boxes": inp([[0, 0, 1]], "float32"),
      "box_indices": inp([0], "int32")}, crop_size=[2, 2])
case("car_image_rank3", "crop_and_resize",
     {"x": inp(F_343, "float32"), "boxes": inp(BOXES[:1], "float32"),
      "box_indices": inp([0], "int32")}, crop_size=[2, 2])

# Non-maximum suppression.
NB = [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1],
      [0, 100, 1, 101], [1, 1, 0, 0], [0.5, 0.5, 0.5, 0.9]]
NS = [0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.9, 0.99]
TIE_S = [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]
for iou in (0.0, 0.3, 0.5, 0.9, 1.0):
    case(f"nms_iou_{iou}", "nms", {"boxes": inp(NB, "float32"), "scores": inp(NS, "float32")},
         max_output_size=10, iou_threshold=iou)
for st in (0.55, 0.9, 0.99, 1.0):
    case(f"nms_score_{st}", "nms", {"boxes": inp(NB, "float32"), "scores": inp(NS, "float32")},
         max_output_size=10, iou_threshold=0.5, score_threshold=st)
case("nms_ties", "nms", {"boxes": inp(NB, "float32"), "scores": inp(TIE_S, "float32")},
     max_output_size=10, iou_threshold=0.5)
case("nms_max_0", "nms", {"boxes": inp(NB, "float32"), "scores": inp(NS, "float32")},
     max_output_size=0)
case("nms_max_2", "nms", {"boxes": inp(NB, "float32"), "scores": inp(NS, "float32")},
     max_output_size=2)
case("nms_no_boxes", "nms", {"boxes": inp(np.zeros((0, 4)), "float32"),
                             "scores": inp(np.zeros((0,)), "float32")}, max_output_size=3)
case("nms_unknown", "nms", {"boxes": inp(NB, "float32", [None, None]),
                            "scores": inp(NS, "float32", [None])}, max_output_size=4)
case("nms_bad_iou", "nms", {"boxes": inp(NB, "float32"), "scores": inp(NS, "float32")},
     max_output_size=3, iou_threshold=1.5)
case("nms_negative_max", "nms", {"boxes": inp(NB, "float32"), "scores": inp(NS, "float32")},
     max_output_size=-1)
case("nms_scores_mismatch", "nms", {"boxes": inp(NB, "float32"),
                                    "scores": inp(NS[:3], "float32")}, max_output_size=3)
case("nms_scores_mismatch_run", "nms", {"boxes": inp(NB, "float32", [None, 4]),
                                        "scores": inp(NS[:3], "float32", [None])},
     max_output_size=3)
case("nms_boxes_5_columns", "nms", {"boxes": inp(np.zeros((2, 5)), "float32"),
                                    "scores": inp([1, 2], "float32")}, max_output_size=3)
for pad in (False, True):
    case(f"nms_v4_pad_{pad}", "nms_padded", {"boxes": inp(NB, "float32"),
                                             "scores": inp(NS, "float32")},
         max_output_size=6, iou_threshold=0.5, score_threshold=0.4, pad=pad)
case("nms_v4_pad_unknown", "nms_padded", {"boxes": inp(NB, "float32", [None, 4]),
                                          "scores": inp(NS, "float32", [None])},
     max_output_size=3, pad=True)
for sigma in (0.0, 0.5, 1.0):
    case(f"nms_v5_sigma_{sigma}", "nms_with_scores",
         {"boxes": inp(NB, "float32"), "scores": inp(NS, "float32")},
         max_output_size=10, iou_threshold=0.5, score_threshold=0.1, soft_nms_sigma=sigma)
case("nms_v5_negative_sigma", "nms_with_scores",
     {"boxes": inp(NB, "float32"), "scores": inp(NS, "float32")},
     max_output_size=10, soft_nms_sigma=-1.0)

# DrawBoundingBoxes(V2).
CANVAS = np.zeros((2, 5, 6, 3), np.float32) + 0.25
DB = [[[0, 0, 1, 1], [0.2, 0.2, 0.6, 0.8], [0.5, 0.5, 0.2, 0.9]],
      [[-0.5, -0.5, 0.5, 0.5], [0.4, 0.1, 2.0, 1.5], [2, 2, 3, 3]]]
case("draw_default", "draw_bounding_boxes", {"x": inp(CANVAS, "float32"),
                                             "boxes": inp(DB, "float32")})
case("draw_colors", "draw_bounding_boxes",
     {"x": inp(CANVAS, "float32"), "boxes": inp(DB, "float32"),
      "colors": inp([[1, 0, 0, 1], [0, 0.5, 1, 1]], "float32")})
case("draw_empty_colors", "draw_bounding_boxes",
     {"x": inp(CANVAS, "float32"), "boxes": inp(DB, "float32"),
      "colors": inp(np.zeros((0, 3)), "float32")})
case("draw_gray", "draw_bounding_boxes",
     {"x": inp(CANVAS[..., :1], "float32"), "boxes": inp(DB, "float32")})
case("draw_rgba", "draw_bounding_boxes",
     {"x": inp(np.zeros((2, 4, 4, 4)), "float32"), "boxes": inp(DB, "float32"),
      "colors": inp([[0.1, 0.2, 0.3, 0.4, 0.5]], "float32")})
case("draw_few_color_channels", "draw_bounding_boxes",
     {"x": inp(CANVAS, "float32"), "boxes": inp(DB, "float32"),
      "colors": inp([[1, 0]], "float32")})
case("draw_depth_2", "draw_bounding_boxes",
     {"x": inp(np.zeros((1, 2, 2, 2)), "float32"), "boxes": inp(np.zeros((1, 1, 4)), "float32")})
case("draw_batch_mismatch", "draw_bounding_boxes",
     {"x": inp(CANVAS, "float32"), "boxes": inp(DB[:1], "float32")})
case("draw_unknown", "draw_bounding_boxes",
     {"x": inp(CANVAS, "float32", [None, None, None, 3]),
      "boxes": inp(DB, "float32", [None, None, 4])})

# SampleDistortedBoundingBoxV2: seeded three runs in a row each.
SZ = [240, 320, 3]
OBJ = [[[0.1, 0.2, 0.5, 0.9]]]
TWO = [[[0.05, 0.05, 0.3, 0.4], [0.5, 0.6, 0.95, 0.9]]]


def sdbb(name, size=SZ, boxes=OBJ, size_dtype="int32", **args):
    args.setdefault("runs", 3)
    case(name, "sample_distorted_bounding_box",
         {"image_size": inp(size, size_dtype), "boxes": inp(boxes, "float32")}, **args)


sdbb("sdbb_defaults", seed=7, graph_seed=42)
sdbb("sdbb_op_seed_only", seed=3)
sdbb("sdbb_inception", seed=11, graph_seed=1, min_object_covered=0.1,
     aspect_ratio_range=[0.75, 1.33], area_range=[0.05, 1.0], max_attempts=100,
     use_image_if_no_bounding_boxes=True, boxes=np.zeros((1, 0, 4)), runs=5)
sdbb("sdbb_resnet", seed=5, graph_seed=9, min_object_covered=0.1,
     aspect_ratio_range=[3 / 4, 4 / 3], area_range=[0.08, 1.0], max_attempts=1,
     use_image_if_no_bounding_boxes=True, boxes=np.zeros((1, 0, 4)), runs=5)
sdbb("sdbb_v1_seeds", seed=1, seed2=2, min_object_covered=0.3)
sdbb("sdbb_two_boxes", seed=13, graph_seed=2, boxes=TWO, min_object_covered=0.5,
     area_range=[0.1, 0.6])
sdbb("sdbb_cover_all", seed=4, graph_seed=4, min_object_covered=1.0, max_attempts=20)
sdbb("sdbb_one_attempt", seed=21, graph_seed=3, max_attempts=1, min_object_covered=0.99,
     area_range=[0.05, 0.1])
sdbb("sdbb_u8_size", seed=6, graph_seed=6, size=[200, 100, 3], size_dtype="uint8")
sdbb("sdbb_i64_size", seed=8, graph_seed=8, size=[31, 517, 1], size_dtype="int64",
     aspect_ratio_range=[0.2, 5.0], area_range=[0.01, 0.5])
sdbb("sdbb_tiny_image", seed=9, graph_seed=9, size=[3, 2, 3], area_range=[0.1, 1.0],
     use_image_if_no_bounding_boxes=True, boxes=np.zeros((1, 0, 4)))
sdbb("sdbb_box_out_of_range", seed=1, boxes=[[[0.1, 0.2, 1.5, 0.9]]], runs=1)
sdbb("sdbb_no_boxes", seed=1, boxes=np.zeros((1, 0, 4)), runs=1)
sdbb("sdbb_bad_area", seed=1, area_range=[0.5, 1.5], runs=1)
sdbb("sdbb_bad_aspect", seed=1, aspect_ratio_range=[0.0, 1.5], runs=1)
sdbb("sdbb_zero_attempts", seed=1, max_attempts=0, runs=1)
sdbb("sdbb_negative_cover", seed=1, min_object_covered=-0.5, runs=1)
sdbb("sdbb_size_2", seed=1, size=[240, 320], runs=1)

# psnr and ssim.
P1 = rng.randint(0, 256, size=(2, 12, 12, 3))
P2 = np.clip(P1 + rng.randint(-20, 21, size=P1.shape), 0, 255)
Q1 = rng.uniform(0, 1, size=(2, 12, 12, 3)).astype(np.float32)
Q2 = np.clip(Q1 + rng.normal(0, 0.05, size=Q1.shape), 0, 1).astype(np.float32)
case("psnr_u8", "psnr", {"x": inp(P1, "uint8"), "y": inp(P2, "uint8")}, max_val=255)
case("psnr_f32", "psnr", {"x": inp(Q1, "float32"), "y": inp(Q2, "float32")}, max_val=1.0)
case("psnr_3d", "psnr", {"x": inp(Q1[0], "float32"), "y": inp(Q2[0], "float32")}, max_val=1.0)
case("psnr_same", "psnr", {"x": inp(Q1, "float32"), "y": inp(Q1, "float32")}, max_val=1.0)
case("psnr_unknown", "psnr", {"x": inp(Q1, "float32", [None, None, None, 3]),
                              "y": inp(Q2, "float32", [None, None, None, 3])}, max_val=1.0)
case("psnr_rank2", "psnr", {"x": inp(Q1[0, 0], "float32"), "y": inp(Q2[0, 0], "float32")},
     max_val=1.0)
case("psnr_mismatch", "psnr", {"x": inp(Q1[:, :6], "float32"), "y": inp(Q2, "float32")},
     max_val=1.0)
case("ssim_u8", "ssim", {"x": inp(P1, "uint8"), "y": inp(P2, "uint8")}, max_val=255)
case("ssim_f32", "ssim", {"x": inp(Q1, "float32"), "y": inp(Q2, "float32")}, max_val=1.0)
case("ssim_3d_small_filter", "ssim", {"x": inp(Q1[0], "float32"), "y": inp(Q2[0], "float32")},
     max_val=1.0, filter_size=5, filter_sigma=0.8, k1=0.02, k2=0.04)
case("ssim_same", "ssim", {"x": inp(Q1, "float32"), "y": inp(Q1, "float32")}, max_val=1.0)
case("ssim_unknown", "ssim", {"x": inp(Q1, "float32", [None, None, None, 3]),
                              "y": inp(Q2, "float32", [None, None, None, 3])}, max_val=1.0)
case("ssim_rank2", "ssim", {"x": inp(Q1[0, 0], "float32"), "y": inp(Q2[0, 0], "float32")},
     max_val=1.0)
case("ssim_mismatch", "ssim", {"x": inp(Q1[:, :6], "float32"), "y": inp(Q2, "float32")},
     max_val=1.0)

# extract_patches.
PIMG = np.arange(2 * 5 * 6 * 2).reshape(2, 5, 6, 2)
for pad in ("VALID", "SAME"):
    for sizes, strides, rates in (([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1]),
                                  ([1, 3, 2, 1], [1, 2, 3, 1], [1, 1, 1, 1]),
                                  ([1, 2, 2, 1], [1, 1, 2, 1], [1, 2, 2, 1]),
                                  ([1, 1, 1, 1], [1, 4, 4, 1], [1, 1, 1, 1])):
        tag = "_".join(str(v) for v in sizes[1:3] + strides[1:3] + rates[1:3])
        case(f"patches_{pad}_{tag}", "extract_patches", {"x": inp(PIMG, "int32")},
             sizes=sizes, strides=strides, rates=rates, padding=pad)
case("patches_f32_unknown", "extract_patches", {"x": inp(F_2343, "float32", [None, None, 4, 3])},
     sizes=[1, 2, 3, 1], strides=[1, 1, 1, 1], rates=[1, 1, 1, 1], padding="SAME")
case("patches_u8", "extract_patches", {"x": inp(U8_2343, "uint8")},
     sizes=[1, 3, 3, 1], strides=[1, 2, 2, 1], rates=[1, 1, 1, 1], padding="SAME")
case("patches_too_big", "extract_patches", {"x": inp(PIMG, "int32")},
     sizes=[1, 7, 2, 1], strides=[1, 1, 1, 1], rates=[1, 1, 1, 1], padding="VALID")
case("patches_batch_size", "extract_patches", {"x": inp(PIMG, "int32")},
     sizes=[2, 2, 2, 1], strides=[1, 1, 1, 1], rates=[1, 1, 1, 1], padding="VALID")
case("patches_rank3", "extract_patches", {"x": inp(U8_343, "uint8")},
     sizes=[1, 2, 2, 1], strides=[1, 1, 1, 1], rates=[1, 1, 1, 1], padding="VALID")


def main():
    out = [record(dict(c)) for c in CASES]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(f"{len(out)} cases written to {path}")


if __name__ == "__main__":
    main()
