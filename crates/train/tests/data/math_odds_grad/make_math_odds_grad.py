"""Records TensorFlow 2.21's tf.gradients (tf.compat.v1, graph mode, CPU) for the ops of
crates/train/tests/integration/math_odds_grad.rs: EuclideanNorm, CumulativeLogsumexp,
SparseSegment{Sum,Mean,SqrtN}WithNumSegments, MaxPoolV2 and BiasAddV1, with a fixed grad_ys,
and the op types of each backward graph (to show which ops TensorFlow's Python builds).

oneDNN is switched off (TF_ENABLE_ONEDNN_OPTS=0) so that TensorFlow's own CPU kernels run.

Run: ~/.cache/weir-bench/venv/bin/python make_math_odds_grad.py   (writes expected.json)

Each case: {"name", "kind", "x" (the differentiated input), "attrs", "extra" (other inputs,
constants), "grad_ys", "y" (forward value), "grad" (d y / d x with grad_ys), "rtol",
"backward_ops" (sorted op types TensorFlow added for the gradient)}. A tensor is {"dtype",
"shape", "values"}: floats as the integer bits of their values.
"""

import json
import os

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = []
f32, f64, i32 = np.float32, np.float64, np.int32


def enc(a):
    a = np.asarray(a)
    name = tf.as_dtype(a.dtype).name
    flat = a.reshape(-1)
    if name == "float32":
        vals = [int(v) for v in flat.view(np.uint32)]
    elif name == "float64":
        vals = [int(v) for v in flat.view(np.uint64)]
    else:
        vals = [int(v) for v in flat]
    return {"dtype": name, "shape": list(a.shape), "values": vals}


def vals(shape, dt, seed, lo=-2.0, hi=2.0):
    return np.random.RandomState(seed).uniform(lo, hi, size=shape).astype(dt)


BUILD = {
    "euclidean_norm": lambda x, e, a: tf.math.reduce_euclidean_norm(
        x, axis=a.get("axis"), keepdims=a.get("keep_dims", False)),
    "cumulative_logsumexp": lambda x, e, a: tf.math.cumulative_logsumexp(
        x, axis=a.get("axis", 0), exclusive=a.get("exclusive", False),
        reverse=a.get("reverse", False)),
    "sparse_segment": lambda x, e, a: {
        "sum": tf.sparse.segment_sum, "mean": tf.sparse.segment_mean,
        "sqrt_n": tf.sparse.segment_sqrt_n}[a["mode"]](x, e[0], e[1], num_segments=e[2]),
    "max_pool_v2": lambda x, e, a: tf.raw_ops.MaxPoolV2(
        input=x, ksize=e[0], strides=e[1], padding=a["padding"]),
    "bias_add_v1": lambda x, e, a: tf.raw_ops.BiasAddV1(value=e[0], bias=x),
    "bias_add_v1_value": lambda x, e, a: tf.raw_ops.BiasAddV1(value=x, bias=e[0]),
}


def case(name, kind, x, attrs=None, extra=(), rtol=0.0, seed=0):
    attrs = attrs or {}
    g = tf.Graph()
    with g.as_default():
        xt = tf.constant(x)
        et = [tf.constant(v) for v in extra]
        y = BUILD[kind](xt, et, attrs)
        before = {op.name for op in g.get_operations()}
        gy_val = vals(y.shape.as_list(), x.dtype, seed + 1000)
        gy = tf.constant(gy_val)
        before.add(gy.op.name)
        (dx,) = tf.gradients(y, [xt], grad_ys=gy)
        ops = sorted(op.type for op in g.get_operations() if op.name not in before)
        with tf.Session() as s:
            yv, dv = s.run([y, dx])
    CASES.append({"name": name, "kind": kind, "x": enc(x), "attrs": attrs,
                  "extra": [enc(v) for v in extra], "grad_ys": enc(gy_val), "y": enc(yv),
                  "grad": enc(dv), "rtol": rtol, "backward_ops": ops})


# EuclideanNorm
case("norm_axis1", "euclidean_norm", vals((2, 3), f32, 1), {"axis": 1}, rtol=1e-6)
case("norm_axis0_keep", "euclidean_norm", vals((2, 3), f32, 2), {"axis": 0, "keep_dims": True},
     rtol=1e-6)
case("norm_all", "euclidean_norm", vals((3, 4), f32, 3), rtol=1e-6)
case("norm_f64_axes02", "euclidean_norm", vals((2, 3, 4), f64, 4), {"axis": [0, 2]},
     rtol=1e-14)
case("norm_zero_row", "euclidean_norm", np.array([[0.0, 0.0], [3.0, 4.0]], f32), {"axis": 1})
# CumulativeLogsumexp
for ex in (False, True):
    for rev in (False, True):
        case("lse_ex%d_rev%d" % (ex, rev), "cumulative_logsumexp", vals((5,), f32, 10 + ex + 2 * rev),
             {"exclusive": ex, "reverse": rev}, rtol=2e-5)
case("lse_2d_axis1", "cumulative_logsumexp", vals((3, 4), f32, 20), {"axis": 1}, rtol=2e-5)
case("lse_f64", "cumulative_logsumexp", vals((6,), f64, 21), {"reverse": True}, rtol=1e-12)
# SparseSegment*WithNumSegments
data = vals((4, 2), f32, 30)
ss_extra = (np.array([0, 1, 3, 1], i32), np.array([0, 0, 2, 2], i32), np.array(4, i32))
for mode in ("sum", "mean", "sqrt_n"):
    case("ss_" + mode, "sparse_segment", data, {"mode": mode}, ss_extra, seed=31)
    case("ss_%s_f64" % mode, "sparse_segment", data.astype(f64), {"mode": mode}, ss_extra,
         seed=32)
# MaxPoolV2
img = vals((1, 4, 4, 2), f32, 40)
case("mp_valid", "max_pool_v2", img, {"padding": "VALID"},
     (np.array([1, 2, 2, 1], i32), np.array([1, 2, 2, 1], i32)))
case("mp_same", "max_pool_v2", vals((2, 5, 5, 1), f32, 41), {"padding": "SAME"},
     (np.array([1, 3, 3, 1], i32), np.array([1, 2, 2, 1], i32)))
# BiasAddV1
case("bias_v1_bias", "bias_add_v1", vals((3,), f32, 50), extra=(vals((2, 3), f32, 51),))
case("bias_v1_bias_3d", "bias_add_v1", vals((3,), f64, 52), extra=(vals((2, 4, 3), f64, 53),),
     rtol=1e-15)
case("bias_v1_value", "bias_add_v1_value", vals((2, 3), f32, 54), extra=(vals((3,), f32, 55),))

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump(CASES, f, indent=0)
print(len(CASES), "cases")
for c in CASES:
    print(c["name"], c["backward_ops"])
