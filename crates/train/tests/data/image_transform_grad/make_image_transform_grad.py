"""Records TensorFlow 2.21's tf.gradients (tf.compat.v1 graph mode, CPU) of
ImageProjectiveTransformV2/V3 and ExtractVolumePatches with respect to their image/volume
input, for crates/train/tests/integration/image_transform_grad.rs.

Run: ~/.cache/weir-bench/venv/bin/python make_image_transform_grad.py  (writes expected.json)

Each case: {"name", "op" ("proj_v2", "proj_v3", "volume"), "attrs", "x", "transforms" (proj),
"grad_ys", "grad"} with tensors as {dtype, dims, values} (floats as bit patterns), or
"build_error" {message} when tf.gradients raises.
"""
import json
import os

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
BITS = {"float32": np.uint32, "float64": np.uint64, "float16": np.uint16}


def spec(a, dtype):
    a = np.asarray(a).astype(dtype)
    vals = a.reshape(-1).view(BITS[dtype]).tolist() if dtype in BITS else a.reshape(-1).tolist()
    return {"dtype": dtype, "dims": list(a.shape), "values": [int(v) for v in vals]}


rng = np.random.RandomState(3)
CASES = []
TRANSFORMS = {
    "shift": [[1, 0, 1, 0, 1, -2, 0, 0], [1, 0, -1, 0, 1, 0, 0, 0]],
    "scale": [[2, 0, 0, 0, 0.5, 1, 0, 0]],
    "rot": [[0.8, -0.6, 1.0, 0.6, 0.8, -0.5, 0, 0], [0.6, 0.8, 0.0, -0.8, 0.6, 2.0, 0, 0]],
}
for dt in ["float32", "float64", "float16"]:
    for tname, tr in TRANSFORMS.items():
        for interp in ["NEAREST", "BILINEAR"]:
            for mode in ["CONSTANT", "REFLECT", "WRAP", "NEAREST"]:
                for v in ["proj_v2", "proj_v3"]:
                    if dt == "float16" and (mode != "CONSTANT" or tname == "rot"):
                        continue
                    CASES.append({"name": f"{v}_{dt}_{tname}_{interp}_{mode}", "op": v,
                                  "attrs": {"interpolation": interp, "fill_mode": mode},
                                  "x": spec(rng.uniform(-1, 1, (2, 4, 5, 2)), dt),
                                  "transforms": spec(tr, "float32"),
                                  "grad_ys": spec(rng.uniform(-1, 1, (2, 4, 5, 2)), dt)})
CASES.append({"name": "proj_v2_bfloat16", "op": "proj_v2",
              "attrs": {"interpolation": "BILINEAR", "fill_mode": "CONSTANT"},
              "x": spec(rng.uniform(-1, 1, (1, 3, 3, 1)), "float32"), "bf16": True,
              "transforms": spec([[1, 0, 0, 0, 1, 0, 0, 0]], "float32"),
              "grad_ys": spec(rng.uniform(-1, 1, (1, 3, 3, 1)), "float32")})
for dt in ["float32", "float64"]:
    for k, s, p in [([1, 2, 2, 2, 1], [1, 1, 1, 1, 1], "VALID"), ([1, 2, 3, 2, 1], [1, 1, 2, 3, 1], "SAME"),
                    ([1, 3, 2, 2, 1], [1, 2, 1, 2, 1], "SAME"), ([1, 1, 1, 1, 1], [1, 2, 2, 2, 1], "VALID")]:
        x = rng.uniform(-1, 1, (2, 3, 4, 5, 2))
        CASES.append({"name": f"volume_{dt}_{''.join(map(str, k[1:4]))}_{''.join(map(str, s[1:4]))}_{p}",
                      "op": "volume", "attrs": {"ksizes": k, "strides": s, "padding": p},
                      "x": spec(x, dt)})


def np_of(s):
    dt = s["dtype"]
    return np.array(s["values"], dtype=BITS[dt]).view(dt).reshape(s["dims"])


for c in CASES:
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(np_of(c["x"]))
        if c.pop("bf16", False):
            x = tf.cast(x, tf.bfloat16)
        a = c["attrs"]
        if c["op"] == "volume":
            y = tf.raw_ops.ExtractVolumePatches(input=x, **a)
            with tf.Session() as s:
                shape = s.run(tf.shape(y))
            gy = rng.uniform(-1, 1, shape)
            c["grad_ys"] = spec(gy, c["x"]["dtype"])
        else:
            t = tf.constant(np_of(c["transforms"]))
            size = tf.constant([4, 5]) if c["x"]["dims"][1] == 4 else tf.constant([3, 3])
            if c["op"] == "proj_v3":
                y = tf.raw_ops.ImageProjectiveTransformV3(images=x, transforms=t, output_shape=size,
                                                          fill_value=2.5, **a)
            else:
                y = tf.raw_ops.ImageProjectiveTransformV2(images=x, transforms=t, output_shape=size, **a)
        gy_t = tf.constant(np_of(c["grad_ys"]))
        if gy_t.dtype != y.dtype:
            gy_t = tf.cast(gy_t, y.dtype)
        try:
            d = tf.gradients(y, x, grad_ys=gy_t)[0]
        except Exception as e:  # noqa: BLE001
            c["build_error"] = {"message": str(e)}
            continue
        with tf.Session() as s:
            c["grad"] = spec(s.run(d), c["x"]["dtype"])

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump(CASES, f, indent=0)
print(len(CASES), "cases")
