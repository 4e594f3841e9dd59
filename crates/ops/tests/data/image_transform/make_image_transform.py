"""Records what TensorFlow 2.21 (tf.compat.v1 graph mode, CPU) computes for the ops of
crates/ops/tests/integration/image_transform.rs: ImageProjectiveTransformV2/V3 ("proj"),
ExtractVolumePatches ("volume") and ExtractGlimpse / ExtractGlimpseV2 ("glimpse").

Run: ~/.cache/weir-bench/venv/bin/python make_image_transform.py  (writes expected.json here)

Each case: {"name", "op", "attrs", "inputs": [spec...]}. A spec is {dtype, dims, values}
(float32/float64/float16/bfloat16 as bit patterns), fed to a placeholder of its own shape
unless it has "shape" (null dims unknown, or "unknown"), or a constant with "const": true.
Recorded: "static_shapes" and "outputs", or "build_error"/"error" {code, message} (the message
without TensorFlow's node suffix). Glimpse cases with random noise have "noisy": true and
record only the shape and "range" [min, max] of the input, which the noise stays within.
"""
import json
import os

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
BF16 = tf.bfloat16.as_numpy_dtype
BITS = {"float32": np.uint32, "float64": np.uint64, "float16": np.uint16, "bfloat16": np.uint16}


def spec(arr, dtype, **kw):
    a = np.asarray(arr).astype(BF16 if dtype == "bfloat16" else dtype)
    if dtype in BITS:
        vals = a.reshape(-1).view(BITS[dtype]).tolist()
    else:
        vals = [int(v) for v in a.reshape(-1).tolist()]
    d = {"dtype": dtype, "dims": list(a.shape), "values": [int(v) for v in vals]}
    d.update(kw)
    return d


def np_of(s):
    dt = s["dtype"]
    if dt in BITS:
        a = np.array(s["values"], dtype=BITS[dt]).view(BF16 if dt == "bfloat16" else dt)
    else:
        a = np.array(s["values"], dtype=dt)
    return a.reshape(s["dims"])


def source(s, feeds):
    v = np_of(s)
    if s.get("const"):
        return tf.constant(v, dtype=tf.as_dtype(s["dtype"]))
    shape = s.get("shape", s["dims"])
    shape = None if shape == "unknown" else shape
    p = tf.placeholder(tf.as_dtype(s["dtype"]), shape)
    feeds[p] = v
    return p


def build(c, feeds):
    x = [source(s, feeds) for s in c["inputs"]]
    a = c["attrs"]
    op = c["op"]
    if op == "proj":
        if len(x) == 4:
            return tf.raw_ops.ImageProjectiveTransformV3(
                images=x[0], transforms=x[1], output_shape=x[2], fill_value=x[3], **a)
        return tf.raw_ops.ImageProjectiveTransformV2(
            images=x[0], transforms=x[1], output_shape=x[2], **a)
    if op == "volume":
        return tf.raw_ops.ExtractVolumePatches(input=x[0], **a)
    if op == "glimpse":
        return tf.raw_ops.ExtractGlimpseV2(input=x[0], size=x[1], offsets=x[2], **a)
    if op == "glimpse_v1":
        return tf.raw_ops.ExtractGlimpse(input=x[0], size=x[1], offsets=x[2], **a)
    raise ValueError(op)


def message(e):
    m = getattr(e, "message", str(e))
    at = m.rfind("Node: '")
    if at >= 0:
        m = m[m.index("\n", at) + 1:]
    if m.startswith("Graph execution error:\n\n"):
        m = m[len("Graph execution error:\n\n"):]
    m = m.split("\n\t [[")[0].split(" for '{{node")[0].split(" for node {{node")[0]
    return m.split("\n\t; NodeDef")[0].strip()


CODES = {"InvalidArgumentError": 3, "OutOfRangeError": 11, "UnimplementedError": 12,
         "InternalError": 13, "ValueError": 3, "TypeError": 3}


def record(c):
    g = tf.Graph()
    with g.as_default():
        feeds = {}
        try:
            y = build(c, feeds)
        except Exception as e:  # noqa: BLE001
            c["build_error"] = {"code": CODES[type(e).__name__], "message": message(e)}
            return c
        c["static_shapes"] = [None if y.shape.rank is None else
                              [d for d in y.shape.as_list()]]
        with tf.Session(graph=g) as s:
            try:
                v = s.run(y, feeds)
            except tf.errors.OpError as e:
                c["error"] = {"code": e.error_code, "message": message(e)}
                return c
    if c.get("noisy"):
        img = np_of(c["inputs"][0])
        c["out_dims"] = list(v.shape)
        c["range"] = [float(img.min()), float(img.max())] if img.size else [0.0, 0.0]
        assert v.size == 0 or (v.min() >= img.min() and v.max() <= img.max())
    else:
        c["outputs"] = [spec(v, c["out_dtype"])]
    return c


CASES = []


def case(name, op, inputs, attrs, out_dtype="float32", **kw):
    d = {"name": name, "op": op, "inputs": inputs, "attrs": attrs, "out_dtype": out_dtype}
    d.update(kw)
    CASES.append(d)


rng = np.random.RandomState(7)
IMG = rng.uniform(0, 200, size=(2, 5, 6, 2))


def rot(theta, tx=0.0, ty=0.0, s=1.0):
    c, si = np.cos(theta) / s, np.sin(theta) / s
    return [c, -si, tx, si, c, ty, 0.0, 0.0]


TRANSFORMS = {
    "rot": [rot(0.4, 1.5, -0.7), rot(-1.1, 2.25, 0.5, 1.3)],
    "persp": [[1.1, 0.2, -0.5, -0.1, 0.9, 0.3, 0.02, -0.05], [0.8, 0.0, 1.0, 0.0, 1.2, -2.0, 0.1, 0.0]],
    "far": [[1.0, 0.0, 17.3, 0.0, 1.0, -23.6, 0.0, 0.0], [-1.0, 0.0, 3.5, 0.0, -1.5, 40.25, 0.0, 0.0]],
}
DTYPES = ["uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
for dt in DTYPES:
    img = IMG if dt.startswith(("float", "bfloat")) else np.floor(IMG)
    for tname, tr in TRANSFORMS.items():
        for interp in ["NEAREST", "BILINEAR"]:
            for mode in ["REFLECT", "WRAP", "CONSTANT", "NEAREST"]:
                case(f"proj_{dt}_{tname}_{interp}_{mode}", "proj",
                     [spec(img, dt), spec(tr, "float32"), spec([4, 7], "int32", const=True)]
                     + ([spec(9.5, "float32")] if tname != "far" else []),
                     {"interpolation": interp, "fill_mode": mode}, out_dtype=dt)
# Shared transform, unknown static sizes, a fed output shape.
case("proj_shared_fed_shape", "proj",
     [spec(IMG, "float32", shape=[None, None, None, 2]), spec([rot(0.3, 0.5, 0.25)], "float32"),
      spec([6, 5], "int32")], {"interpolation": "BILINEAR", "fill_mode": "REFLECT"})
case("proj_default_fill_mode", "proj",
     [spec(IMG, "float32"), spec([rot(0.3, 0.5, 0.25)], "float32"), spec([5, 6], "int32", const=True)],
     {"interpolation": "NEAREST"})
case("proj_zero_projection", "proj",
     [spec(IMG[:1], "float32"), spec([[1, 0, 0, 0, 1, 0, -0.5, 0]], "float32"),
      spec([3, 4], "int32", const=True), spec(-3.0, "float32")],
     {"interpolation": "BILINEAR", "fill_mode": "CONSTANT"})
case("proj_nan_transform", "proj",
     [spec(IMG[:1], "float32"), spec([[np.nan, 0, 0, 0, 1, 0, 0, 0]], "float32"),
      spec([2, 2], "int32", const=True), spec(4.0, "float32")],
     {"interpolation": "NEAREST", "fill_mode": "CONSTANT"})
for mode in ["REFLECT", "WRAP", "NEAREST"]:
    case(f"proj_single_pixel_{mode}", "proj",
         [spec(IMG[:, :1, :1], "float32"), spec([[1, 0, -2.5, 0, 1, 3.7, 0, 0]], "float32"),
          spec([3, 2], "int32", const=True)],
         {"interpolation": "BILINEAR", "fill_mode": mode})
case("proj_empty_batch", "proj",
     [spec(np.zeros((0, 3, 3, 1)), "float32"), spec([rot(0.1)], "float32"),
      spec([2, 2], "int32", const=True)], {"interpolation": "BILINEAR"})
case("proj_uint8_big_fill", "proj",
     [spec(np.floor(IMG[:1]), "uint8"), spec([[1, 0, 9, 0, 1, 0, 0, 0]], "float32"),
      spec([2, 2], "int32", const=True), spec(300.0, "float32")],
     {"interpolation": "NEAREST"}, out_dtype="uint8")
# Errors.
case("proj_rank3_images", "proj",
     [spec(IMG[0], "float32"), spec([rot(0.1)], "float32"), spec([2, 2], "int32", const=True)],
     {"interpolation": "BILINEAR"})
case("proj_rank3_fed", "proj",
     [spec(IMG[0], "float32", shape="unknown"), spec([rot(0.1)], "float32"),
      spec([2, 2], "int32", const=True)], {"interpolation": "BILINEAR"})
case("proj_transform_batch", "proj",
     [spec(IMG, "float32"), spec([rot(0.1)] * 3, "float32"), spec([2, 2], "int32", const=True)],
     {"interpolation": "BILINEAR"})
case("proj_transform_width", "proj",
     [spec(IMG, "float32"), spec([rot(0.1)[:7]], "float32"), spec([2, 2], "int32", const=True)],
     {"interpolation": "BILINEAR"})
case("proj_transform_vector", "proj",
     [spec(IMG, "float32"), spec(rot(0.1), "float32"), spec([2, 2], "int32", const=True)],
     {"interpolation": "BILINEAR"})
case("proj_shape_three", "proj",
     [spec(IMG, "float32"), spec([rot(0.1)], "float32"), spec([2, 2, 2], "int32", const=True)],
     {"interpolation": "BILINEAR"})
case("proj_shape_three_fed", "proj",
     [spec(IMG, "float32"), spec([rot(0.1)], "float32"), spec([2, 2, 2], "int32", shape=[None])],
     {"interpolation": "BILINEAR"})
case("proj_shape_matrix_fed", "proj",
     [spec(IMG, "float32"), spec([rot(0.1)], "float32"), spec([[2, 2]], "int32", shape="unknown")],
     {"interpolation": "BILINEAR"})
case("proj_shape_zero", "proj",
     [spec(IMG, "float32"), spec([rot(0.1)], "float32"), spec([0, 3], "int32", const=True)],
     {"interpolation": "BILINEAR"})
case("proj_fill_vector", "proj",
     [spec(IMG, "float32"), spec([rot(0.1)], "float32"), spec([2, 2], "int32", const=True),
      spec([1.0, 2.0], "float32")], {"interpolation": "BILINEAR"})

# ExtractVolumePatches.
VOL = np.arange(2 * 4 * 5 * 6 * 2).reshape(2, 4, 5, 6, 2) % 97
VDT = ["float32", "float64", "int32", "uint8", "int8", "int16", "int64", "uint16", "uint32",
       "uint64", "float16", "bfloat16"]
for dt in VDT:
    case(f"volume_{dt}", "volume", [spec(VOL, dt)],
         {"ksizes": [1, 2, 3, 2, 1], "strides": [1, 1, 2, 3, 1], "padding": "SAME"}, out_dtype=dt)
for k, s, p in [([1, 1, 1, 1, 1], [1, 1, 1, 1, 1], "VALID"), ([1, 3, 2, 4, 1], [1, 2, 2, 1, 1], "VALID"),
                ([1, 3, 2, 4, 1], [1, 2, 2, 1, 1], "SAME"), ([1, 4, 5, 6, 1], [1, 1, 1, 1, 1], "VALID"),
                ([1, 2, 2, 2, 1], [1, 3, 3, 4, 1], "SAME"), ([1, 1, 1, 1, 1], [1, 3, 4, 5, 1], "SAME"),
                ([1, 5, 6, 7, 1], [1, 2, 2, 2, 1], "SAME")]:
    case(f"volume_k{''.join(map(str, k[1:4]))}_s{''.join(map(str, s[1:4]))}_{p}", "volume",
         [spec(VOL, "float32")], {"ksizes": k, "strides": s, "padding": p})
case("volume_negative_eigen_pad", "volume", [spec(np.arange(9 * 9 * 2).reshape(1, 9, 1, 9, 2), "float32")],
     {"ksizes": [1, 1, 1, 1, 1], "strides": [1, 5, 1, 5, 1], "padding": "SAME"})
case("volume_unknown_spatial", "volume", [spec(VOL, "float32", shape=[None, None, 5, 6, 2])],
     {"ksizes": [1, 2, 2, 2, 1], "strides": [1, 1, 1, 1, 1], "padding": "VALID"})
case("volume_empty", "volume", [spec(np.zeros((0, 2, 2, 2, 1)), "float32")],
     {"ksizes": [1, 2, 2, 2, 1], "strides": [1, 1, 1, 1, 1], "padding": "VALID"})
case("volume_too_small_valid", "volume", [spec(VOL, "float32")],
     {"ksizes": [1, 5, 1, 1, 1], "strides": [1, 1, 1, 1, 1], "padding": "VALID"})
case("volume_too_small_valid_fed", "volume", [spec(VOL, "float32", shape="unknown")],
     {"ksizes": [1, 6, 1, 1, 1], "strides": [1, 1, 1, 1, 1], "padding": "VALID"})
case("volume_batch_ksize", "volume", [spec(VOL, "float32")],
     {"ksizes": [2, 1, 1, 1, 1], "strides": [1, 1, 1, 1, 1], "padding": "VALID"})
case("volume_zero_ksize", "volume", [spec(VOL, "float32", shape="unknown")],
     {"ksizes": [1, 0, 1, 1, 1], "strides": [1, 1, 1, 1, 1], "padding": "VALID"})
case("volume_zero_stride", "volume", [spec(VOL, "float32", shape="unknown")],
     {"ksizes": [1, 1, 1, 1, 1], "strides": [1, 1, 0, 1, 1], "padding": "VALID"})
case("volume_six_ksizes", "volume", [spec(VOL, "float32")],
     {"ksizes": [1, 1, 1, 1, 1, 1], "strides": [1, 1, 1, 1, 1], "padding": "VALID"})
case("volume_six_strides", "volume", [spec(VOL, "float32")],
     {"ksizes": [1, 1, 1, 1, 1], "strides": [1, 1, 1, 1, 1, 1], "padding": "VALID"})
case("volume_rank4", "volume", [spec(VOL[0], "float32")],
     {"ksizes": [1, 1, 1, 1, 1], "strides": [1, 1, 1, 1, 1], "padding": "VALID"})
case("volume_rank4_fed", "volume", [spec(VOL[0], "float32", shape="unknown")],
     {"ksizes": [1, 1, 1, 1, 1], "strides": [1, 1, 1, 1, 1], "padding": "VALID"})

# Glimpses.
GI = rng.uniform(-5, 5, size=(3, 6, 7, 2))
OFFS = {
    "normalized_centered": (True, True, [[0.0, 0.0], [-0.9, 0.7], [1.2, -1.5]]),
    "normalized": (False, True, [[0.5, 0.5], [0.1, 0.95], [-0.3, 1.4]]),
    "pixels_centered": (True, False, [[0.0, 0.0], [-2.6, 1.3], [4.0, -5.5]]),
    "pixels": (False, False, [[1.0, 2.0], [-1.7, 5.9], [5.5, -0.4]]),
}
for name, (centered, normalized, offs) in OFFS.items():
    for size in [[3, 4], [8, 9], [1, 1]]:
        for op in ["glimpse", "glimpse_v1"]:
            attrs = {"centered": centered, "normalized": normalized, "noise": "zero"}
            # tf.image.extract_glimpse (V2) passes uniform_noise=False, as V1 must for "zero".
            attrs["uniform_noise"] = False
            case(f"{op}_{name}_{size[0]}x{size[1]}", op,
                 [spec(GI, "float32"), spec(size, "int32", const=True), spec(offs, "float32")], attrs)
case("glimpse_fed_size", "glimpse",
     [spec(GI, "float32", shape=[None, 6, 7, 2]), spec([2, 5], "int32"), spec([[0, 0]] * 3, "float32")],
     {"noise": "zero", "uniform_noise": False})
case("glimpse_zero_size", "glimpse",
     [spec(GI, "float32"), spec([0, 3], "int32", const=True), spec([[0, 0]] * 3, "float32")],
     {"noise": "zero", "uniform_noise": False})
for noise, op, attrs in [("uniform", "glimpse", {}), ("gaussian", "glimpse", {"noise": "gaussian", "uniform_noise": False}),
                         ("v1_default", "glimpse_v1", {}),
                         ("v1_gaussian", "glimpse_v1", {"uniform_noise": False, "noise": ""})]:
    case(f"glimpse_noise_{noise}", op,
         [spec(GI, "float32"), spec([4, 5], "int32", const=True),
          spec([[0.9, 0.9], [-1.0, 0.2], [3.0, 3.0]], "float32")], attrs, noisy=True)
case("glimpse_uniform_and_zero", "glimpse",
     [spec(GI, "float32"), spec([2, 2], "int32", const=True), spec([[0, 0]] * 3, "float32")],
     {"uniform_noise": True, "noise": "zero"})
case("glimpse_bad_noise", "glimpse",
     [spec(GI, "float32"), spec([2, 2], "int32", const=True), spec([[0, 0]] * 3, "float32")],
     {"noise": "pink", "uniform_noise": False})
case("glimpse_offsets_batch", "glimpse",
     [spec(GI, "float32"), spec([2, 2], "int32", const=True), spec([[0, 0]] * 2, "float32")], {})
case("glimpse_offsets_batch_fed", "glimpse",
     [spec(GI, "float32"), spec([2, 2], "int32", const=True),
      spec([[0, 0]] * 2, "float32", shape="unknown")], {})
case("glimpse_offsets_width", "glimpse",
     [spec(GI, "float32"), spec([2, 2], "int32", const=True), spec([[0, 0, 0]] * 3, "float32")], {})
case("glimpse_offsets_width_fed", "glimpse",
     [spec(GI, "float32"), spec([2, 2], "int32", const=True),
      spec([[0, 0, 0]] * 3, "float32", shape="unknown")], {})
case("glimpse_size_three_fed", "glimpse",
     [spec(GI, "float32"), spec([2, 2, 2], "int32", shape=[None]), spec([[0, 0]] * 3, "float32")], {})
case("glimpse_rank3_fed", "glimpse",
     [spec(GI[0], "float32", shape="unknown"), spec([2, 2], "int32", const=True),
      spec([[0, 0]] * 3, "float32")], {})
case("glimpse_negative_size", "glimpse",
     [spec(GI, "float32"), spec([-2, 2], "int32"), spec([[0, 0]] * 3, "float32")], {"noise": "zero", "uniform_noise": False})

out = [record(c) for c in CASES]
for c in out:
    c.pop("out_dtype", None)
with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump(out, f, indent=0)
print(len(out), "cases,", sum(1 for c in out if "error" in c or "build_error" in c), "errors")
