"""Records what TensorFlow 2.21 (tf.compat.v1, graph mode, CPU) computes for the ops of
crates/ops/tests/integration/math_odds.rs: EuclideanNorm (tf.math.reduce_euclidean_norm),
CumulativeLogsumexp (tf.math.cumulative_logsumexp), SparseSegment{Sum,Mean,SqrtN}WithNumSegments
(tf.sparse.segment_* with num_segments), the raw ClipByValue, MaxPoolV2, MaxPoolGradV2 and
BiasAddV1: values, static shapes, the op type built, and errors.

oneDNN is switched off (TF_ENABLE_ONEDNN_OPTS=0) so that TensorFlow's own CPU kernels run.

Run: ~/.cache/weir-bench/venv/bin/python make_math_odds.py   (writes expected.json beside it)

Each case: {"name", "kind" (which builder), "inputs": [tensor...], "feed": [bool...] (inputs fed
through placeholders of unknown shape, so the kernel rather than the shape function checks
them), "attrs", "rtol" (0: bit for bit), and either "build_error": {"message"} (TensorFlow
failed while adding the node), or "op_type", "static_shape" (null: unknown rank; null dims
unknown) and "output": tensor or "error": {"code", "message"}. A tensor is {"dtype", "shape",
"values"}: floats (and complex parts, real first) as the integer bits of their values.
"""

import json
import os

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = []
BF16 = tf.bfloat16.as_numpy_dtype
f16, f32, f64, i32, i64 = np.float16, np.float32, np.float64, np.int32, np.int64


def enc(a):
    a = np.asarray(a)
    name = tf.as_dtype(a.dtype).name
    flat = a.reshape(-1)
    if name in ("float16", "bfloat16"):
        vals = [int(v) for v in flat.view(np.uint16)]
    elif name == "float32":
        vals = [int(v) for v in flat.view(np.uint32)]
    elif name == "float64":
        vals = [int(v) for v in flat.view(np.uint64)]
    elif name == "complex64":
        vals = [int(v) for v in flat.view(np.float32).view(np.uint32)]
    elif name == "complex128":
        vals = [int(v) for v in flat.view(np.float64).view(np.uint64)]
    elif name == "bool":
        vals = [bool(v) for v in flat]
    else:
        vals = [int(v) for v in flat]
    return {"dtype": name, "shape": list(a.shape), "values": vals}


def err_message(e):
    """TensorFlow's own message: without the traceback, the `[[{{node ...}}]]` suffix, or a
    shape function's ` for '{{node ...` context."""
    msg = getattr(e, "message", str(e))
    if "\nNode: '" in msg:
        msg = msg.split("\nNode: '", 1)[1].split("\n", 1)[1]
    msg = msg.split("\n\t [[")[0].split(" for '{{node ")[0]
    return msg.strip()


BUILD = {
    "euclidean_norm": lambda t, a: tf.math.reduce_euclidean_norm(
        t[0], axis=t[1] if len(t) > 1 else None, keepdims=a.get("keep_dims", False)),
    "cumulative_logsumexp": lambda t, a: tf.math.cumulative_logsumexp(
        t[0], axis=a.get("axis", 0), exclusive=a.get("exclusive", False),
        reverse=a.get("reverse", False)),
    "sparse_segment": lambda t, a: {
        "sum": tf.sparse.segment_sum, "mean": tf.sparse.segment_mean,
        "sqrt_n": tf.sparse.segment_sqrt_n}[a["mode"]](
            t[0], t[1], t[2], num_segments=t[3] if len(t) > 3 else None),
    "clip": lambda t, a: tf.raw_ops.ClipByValue(t=t[0], clip_value_min=t[1], clip_value_max=t[2]),
    "max_pool_v2": lambda t, a: tf.raw_ops.MaxPoolV2(
        input=t[0], ksize=t[1], strides=t[2], padding=a["padding"]),
    "max_pool_grad_v2": lambda t, a: tf.raw_ops.MaxPoolGradV2(
        orig_input=t[0], orig_output=t[1], grad=t[2], ksize=t[3], strides=t[4],
        padding=a["padding"]),
    "bias_add_v1": lambda t, a: tf.raw_ops.BiasAddV1(value=t[0], bias=t[1]),
}


def case(name, kind, inputs, attrs=None, feed=None, rtol=0.0):
    attrs = attrs or {}
    inputs = [np.asarray(a) for a in inputs]
    feed = feed or [False] * len(inputs)
    c = {"name": name, "kind": kind, "inputs": [enc(a) for a in inputs], "feed": feed,
         "attrs": attrs, "rtol": rtol}
    g = tf.Graph()
    with g.as_default():
        ts, fd = [], {}
        for a, f in zip(inputs, feed):
            if f:
                p = tf.placeholder(tf.as_dtype(a.dtype), shape=None)
                fd[p] = a
                ts.append(p)
            else:
                ts.append(tf.constant(a))
        try:
            out = BUILD[kind](ts, attrs)
        except (ValueError, TypeError) as e:
            c["build_error"] = {"message": err_message(e)}
            CASES.append(c)
            return
        c["op_type"] = out.op.type
        c["static_shape"] = None if out.shape.rank is None else out.shape.as_list()
        with tf.Session() as s:
            try:
                c["output"] = enc(s.run(out, fd))
            except tf.errors.OpError as e:
                c["error"] = {"code": e.error_code, "message": err_message(e)}
    CASES.append(c)


def vals(shape, dt, seed=0, lo=-3.0, hi=3.0):
    r = np.random.RandomState(seed)
    return r.uniform(lo, hi, size=shape).astype(dt)


# --- EuclideanNorm ------------------------------------------------------------------------
x23 = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]], f32)
case("norm_f32_axis1", "euclidean_norm", [x23, np.array([1], i32)], rtol=2e-7)
case("norm_f32_axis0_keep", "euclidean_norm", [x23, np.array([0], i32)], {"keep_dims": True},
     rtol=2e-7)
case("norm_f32_all", "euclidean_norm", [x23], rtol=2e-7)
case("norm_f32_all_keep", "euclidean_norm", [x23], {"keep_dims": True}, rtol=2e-7)
case("norm_f32_neg_axis_i64", "euclidean_norm", [x23, np.array([-1], i64)], rtol=2e-7)
case("norm_f32_scalar_axis", "euclidean_norm", [x23, np.array(0, i32)], rtol=2e-7)
case("norm_f32_no_axes_is_identity", "euclidean_norm", [x23, np.array([], i32)])
case("norm_f32_size1_axis_is_identity", "euclidean_norm",
     [np.array([[-3.0], [4.0]], f32), np.array([1], i32)])
case("norm_f32_empty_axis0", "euclidean_norm", [np.zeros((0, 3), f32), np.array([0], i32)])
case("norm_f32_empty_axis1", "euclidean_norm", [np.zeros((0, 3), f32), np.array([1], i32)])
case("norm_f32_nan_inf", "euclidean_norm",
     [np.array([[np.nan, 1.0], [np.inf, 1.0], [-np.inf, np.nan]], f32), np.array([1], i32)])
case("norm_f32_big_axis1", "euclidean_norm", [vals((7, 33), f32, 1), np.array([1], i32)],
     rtol=1e-6)
case("norm_f32_big_axis0", "euclidean_norm", [vals((7, 33), f32, 2), np.array([0], i32)],
     rtol=1e-6)
case("norm_f32_3d_axes02", "euclidean_norm", [vals((3, 4, 5), f32, 3), np.array([0, 2], i32)],
     rtol=1e-6)
case("norm_f64_all_axes", "euclidean_norm", [vals((4, 5), f64, 4), np.array([0, 1], i32)],
     rtol=1e-15)
case("norm_f16_axis1", "euclidean_norm", [vals((3, 4), f16, 5), np.array([1], i32)])
case("norm_f16_axis0", "euclidean_norm", [vals((5, 3), f16, 6), np.array([0], i32)])
case("norm_bf16_axis0", "euclidean_norm", [vals((3, 4), BF16, 7), np.array([0], i32)])
case("norm_bf16_all", "euclidean_norm", [vals((2, 5), BF16, 8)])
ints = np.array([[3, 4], [6, 8], [1, 1], [2, 3]])
for dt in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64):
    case("norm_%s" % np.dtype(dt).name, "euclidean_norm",
         [ints.astype(dt), np.array([1], i32)])
case("norm_i32_negative", "euclidean_norm", [np.array([[-3, -4]], i32), np.array([1], i32)])
cx = (vals((2, 3), f32, 9) + 1j * vals((2, 3), f32, 10)).astype(np.complex64)
case("norm_c64_axis1", "euclidean_norm", [cx, np.array([1], i32)], rtol=2e-7)
case("norm_c128_all", "euclidean_norm", [cx.astype(np.complex128)], rtol=1e-15)
case("norm_bad_axis_const", "euclidean_norm", [x23, np.array([2], i32)])
case("norm_bad_axis_fed", "euclidean_norm", [x23, np.array([-3], i32)], feed=[False, True])
case("norm_dup_axis_fed", "euclidean_norm", [x23, np.array([0, -2], i32)], feed=[False, True])
case("norm_matrix_axes_fed", "euclidean_norm", [x23, np.array([[0]], i32)], feed=[False, True])
case("norm_unknown_rank", "euclidean_norm", [x23, np.array([1], i32)], feed=[True, False],
     rtol=2e-7)
case("norm_bool_input", "euclidean_norm", [np.array([True]), np.array([0], i32)])

# --- CumulativeLogsumexp ------------------------------------------------------------------
v5 = np.array([0.5, -1.0, 2.0, 0.0, 3.5], f32)
for ex in (False, True):
    for rev in (False, True):
        case("lse_f32_ex%d_rev%d" % (ex, rev), "cumulative_logsumexp", [v5],
             {"exclusive": ex, "reverse": rev}, rtol=1e-6)
case("lse_f32_2d_axis1", "cumulative_logsumexp", [vals((3, 4), f32, 11)], {"axis": 1}, rtol=1e-6)
case("lse_f32_2d_axis0", "cumulative_logsumexp", [vals((3, 4), f32, 12)], {"axis": 0}, rtol=1e-6)
case("lse_f32_3d_axis1_wide", "cumulative_logsumexp", [vals((2, 9, 10), f32, 13)],
     {"axis": 1, "reverse": True}, rtol=1e-6)
case("lse_f32_3d_axis_neg1_excl", "cumulative_logsumexp", [vals((2, 3, 9), f32, 14)],
     {"axis": -1, "exclusive": True}, rtol=1e-6)
case("lse_f64", "cumulative_logsumexp", [vals((6,), f64, 15)], rtol=1e-14)
case("lse_f64_excl_rev", "cumulative_logsumexp", [vals((6,), f64, 16)],
     {"exclusive": True, "reverse": True}, rtol=1e-14)
case("lse_f16", "cumulative_logsumexp", [vals((6,), f16, 17)], rtol=1e-3)
case("lse_bf16", "cumulative_logsumexp", [vals((6,), BF16, 18)], rtol=8e-3)
inf, nan = np.inf, np.nan
specials = {
    "neg_infs": [-inf, -inf, 1.0, -inf],
    "pos_infs": [inf, inf, 1.0],
    "inf_then_finite": [1.0, inf, 2.0],
    "nan_first": [nan, 1.0, 2.0],
    "nan_later": [1.0, nan, 2.0],
    "neg_inf_then_nan": [-inf, nan, 3.0],
    "huge": [1e30, 1e30, -1e30],
    "tiny_spread": [-100.0, 0.0, 100.0],
}
for k, v in specials.items():
    case("lse_f32_" + k, "cumulative_logsumexp", [np.array(v, f32)], rtol=1e-6)
    case("lse_f64_" + k, "cumulative_logsumexp", [np.array(v, f64)], {"exclusive": True},
         rtol=1e-14)
case("lse_empty", "cumulative_logsumexp", [np.zeros((0,), f32)])
case("lse_empty_axis1", "cumulative_logsumexp", [np.zeros((2, 0), f32)], {"axis": 1})
case("lse_bad_axis", "cumulative_logsumexp", [v5], {"axis": 1})
case("lse_int_input", "cumulative_logsumexp", [np.array([1, 2], i32)])

# --- SparseSegment*WithNumSegments --------------------------------------------------------
data = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]], f32)
idx, seg = np.array([0, 1, 3], i32), np.array([0, 0, 2], i32)
for mode in ("sum", "mean", "sqrt_n"):
    case("ss_%s_n4" % mode, "sparse_segment", [data, idx, seg, np.array(4, i32)],
         {"mode": mode})
    case("ss_%s_n3" % mode, "sparse_segment", [data, idx, seg, np.array(3, i32)],
         {"mode": mode})
    case("ss_%s_fed_n" % mode, "sparse_segment", [data, idx, seg, np.array(5, i32)],
         {"mode": mode}, feed=[False, False, False, True])
    case("ss_%s_no_n" % mode, "sparse_segment", [data, idx, seg], {"mode": mode})
    case("ss_%s_f64_i64" % mode, "sparse_segment",
         [data.astype(f64), idx.astype(i64), seg.astype(i64), np.array(3, i64)], {"mode": mode})
    case("ss_%s_too_few" % mode, "sparse_segment", [data, idx, seg, np.array(2, i32)],
         {"mode": mode})
case("ss_sum_i32", "sparse_segment", [data.astype(i32), idx, seg, np.array(4, i32)],
     {"mode": "sum"})
case("ss_sum_empty", "sparse_segment",
     [data, np.zeros((0,), i32), np.zeros((0,), i32), np.array(3, i32)], {"mode": "sum"})
case("ss_sum_empty_zero", "sparse_segment",
     [data, np.zeros((0,), i32), np.zeros((0,), i32), np.array(0, i32)], {"mode": "sum"})
case("ss_sum_neg_n_fed", "sparse_segment", [data, idx, seg, np.array(-1, i32)],
     {"mode": "sum"}, feed=[False, False, False, True])
case("ss_sum_vector_n_fed", "sparse_segment", [data, idx, seg, np.array([4, 4], i32)],
     {"mode": "sum"}, feed=[False, False, False, True])
case("ss_sum_vector_n_const", "sparse_segment", [data, idx, seg, np.array([4, 4], i32)],
     {"mode": "sum"})
case("ss_sum_bad_index", "sparse_segment", [data, np.array([0, 9, 1], i32), seg,
                                            np.array(4, i32)], {"mode": "sum"})
case("ss_mean_unsorted", "sparse_segment", [data, idx, np.array([1, 0, 2], i32),
                                            np.array(4, i32)], {"mode": "mean"})
case("ss_sum_negative_id", "sparse_segment", [data, idx, np.array([-1, 0, 0], i32),
                                              np.array(4, i32)], {"mode": "sum"})
case("ss_sum_length_mismatch", "sparse_segment", [data, idx, np.array([0, 0], i32),
                                                  np.array(4, i32)], {"mode": "sum"})

# --- ClipByValue --------------------------------------------------------------------------
t = np.array([[-2.0, 0.5, 3.0], [np.nan, 1.0, -0.0]], f32)
case("clip_f32_scalars", "clip", [t, np.array(0.0, f32), np.array(1.0, f32)])
case("clip_f32_tensors", "clip", [t, np.full((2, 3), -1.0, f32), np.array(
    [[0.0, 0.2, 5.0], [1.0, 0.5, 2.0]], f32)])
case("clip_f32_tensor_lo", "clip", [t, np.full((2, 3), -1.0, f32), np.array(2.0, f32)])
case("clip_f32_tensor_hi", "clip", [t, np.array(-1.0, f32), np.full((2, 3), 0.7, f32)])
case("clip_f32_lo_above_hi", "clip", [t, np.array(2.0, f32), np.array(1.0, f32)])
case("clip_f32_nan_bound", "clip", [t, np.array(np.nan, f32), np.array(1.0, f32)])
case("clip_f32_empty", "clip", [np.zeros((0, 2), f32), np.array(0.0, f32), np.array(1.0, f32)])
case("clip_f32_scalar_input", "clip", [np.array(5.0, f32), np.array(0.0, f32),
                                       np.array(1.0, f32)])
for dt in (f64, f16, BF16):
    case("clip_" + tf.as_dtype(dt).name, "clip", [t.astype(dt), np.array(0.0, dt),
                                                   np.array(1.0, dt)])
for dt in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16):
    case("clip_" + np.dtype(dt).name, "clip", [np.array([0, 5, 9, 3], dt), np.array(2, dt),
                                               np.array(6, dt)])
case("clip_c64", "clip", [np.array([3 + 3j, -1 - 2j, 0.5 + 0.1j], np.complex64),
                          np.array(0 - 1j, np.complex64), np.array(1 + 1j, np.complex64)])
case("clip_bad_bound_shape", "clip", [t, np.array([0.0, 1.0], f32), np.array(1.0, f32)])
case("clip_bad_bound_shape_hi", "clip", [t, np.array(0.0, f32), np.ones((3, 2), f32)])

# --- MaxPoolV2 / MaxPoolGradV2 ------------------------------------------------------------
img = vals((2, 5, 5, 3), f32, 20)
k22, s22 = np.array([1, 2, 2, 1], i32), np.array([1, 2, 2, 1], i32)
k33, s11 = np.array([1, 3, 3, 1], i32), np.array([1, 1, 1, 1], i32)
case("mp_valid_22", "max_pool_v2", [img, k22, s22], {"padding": "VALID"})
case("mp_same_33_s2", "max_pool_v2", [img, k33, s22], {"padding": "SAME"})
case("mp_same_33_s1", "max_pool_v2", [img, k33, s11], {"padding": "SAME"})
case("mp_f64", "max_pool_v2", [img.astype(f64), k22, s11], {"padding": "VALID"})
case("mp_f16", "max_pool_v2", [img.astype(f16), k33, s22], {"padding": "SAME"})
case("mp_bf16", "max_pool_v2", [img.astype(BF16), k22, s22], {"padding": "SAME"})
case("mp_fed_ksize", "max_pool_v2", [img, k22, s22], {"padding": "VALID"},
     feed=[False, True, False])
case("mp_fed_input", "max_pool_v2", [img, k22, s22], {"padding": "SAME"},
     feed=[True, False, False])
case("mp_ksize3_const", "max_pool_v2", [img, np.array([1, 2, 2], i32), s22], {"padding": "VALID"})
case("mp_ksize3_fed", "max_pool_v2", [img, np.array([1, 2, 2], i32), s22], {"padding": "VALID"},
     feed=[False, True, False])
case("mp_strides3_fed", "max_pool_v2", [img, k22, np.array([1, 2, 2], i32)],
     {"padding": "VALID"}, feed=[False, False, True])
case("mp_batch_fed", "max_pool_v2", [img, np.array([2, 1, 1, 1], i32), s22],
     {"padding": "VALID"}, feed=[False, True, False])
case("mp_ksize_matrix_const", "max_pool_v2", [img, np.ones((2, 2), i32), s22],
     {"padding": "VALID"})
case("mp_rank3_input", "max_pool_v2", [img[0], k22, s22], {"padding": "VALID"})
case("mp_window_too_big", "max_pool_v2", [img, np.array([1, 6, 6, 1], i32), s22],
     {"padding": "VALID"})
with tf.Graph().as_default(), tf.Session() as s:
    y_valid = s.run(tf.nn.max_pool(img, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"))
    y_same = s.run(tf.nn.max_pool(img, [1, 3, 3, 1], [1, 2, 2, 1], "SAME"))
    y_same16 = s.run(tf.nn.max_pool(img.astype(f16), [1, 3, 3, 1], [1, 2, 2, 1], "SAME"))
dy_valid = vals(y_valid.shape, f32, 21)
dy_same = vals(y_same.shape, f32, 22)
case("mpg_valid", "max_pool_grad_v2", [img, y_valid, dy_valid, k22, s22], {"padding": "VALID"})
case("mpg_same", "max_pool_grad_v2", [img, y_same, dy_same, k33, s22], {"padding": "SAME"})
case("mpg_f16", "max_pool_grad_v2", [img.astype(f16), y_same16, dy_same.astype(f16), k33, s22],
     {"padding": "SAME"})
case("mpg_depth_fed", "max_pool_grad_v2",
     [img, y_valid, dy_valid, np.array([1, 2, 2, 2], i32), s22], {"padding": "VALID"},
     feed=[False, False, False, True, False])
case("mpg_ksize3_fed", "max_pool_grad_v2",
     [img, y_valid, dy_valid, np.array([1, 2, 2], i32), s22], {"padding": "VALID"},
     feed=[False, False, False, True, False])
case("mpg_strides3_fed", "max_pool_grad_v2",
     [img, y_valid, dy_valid, k22, np.array([1, 2, 2], i32)], {"padding": "VALID"},
     feed=[False, False, False, False, True])
case("mpg_batch_fed", "max_pool_grad_v2",
     [img, y_valid, dy_valid, np.array([2, 2, 2, 1], i32), s22], {"padding": "VALID"},
     feed=[False, False, False, True, False])

# --- BiasAddV1 ----------------------------------------------------------------------------
case("bias_v1_f32", "bias_add_v1", [vals((2, 3), f32, 30), vals((3,), f32, 31)])
case("bias_v1_f64_3d", "bias_add_v1", [vals((2, 2, 3), f64, 32), vals((3,), f64, 33)])
case("bias_v1_f16", "bias_add_v1", [vals((2, 3), f16, 34), vals((3,), f16, 35)])
case("bias_v1_bf16", "bias_add_v1", [vals((2, 3), BF16, 36), vals((3,), BF16, 37)])
case("bias_v1_mismatch_const", "bias_add_v1", [vals((2, 3), f32, 38), vals((2,), f32, 39)])
case("bias_v1_mismatch_fed", "bias_add_v1", [vals((2, 3), f32, 38), vals((2,), f32, 39)],
     feed=[True, True])
case("bias_v1_rank1_const", "bias_add_v1", [vals((3,), f32, 40), vals((3,), f32, 41)])
case("bias_v1_rank1_fed", "bias_add_v1", [vals((3,), f32, 40), vals((3,), f32, 41)],
     feed=[True, False])

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump(CASES, f, indent=0)
print(len(CASES), "cases,", sum("error" in c or "build_error" in c for c in CASES), "errors")
