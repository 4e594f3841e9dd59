"""Records what TensorFlow 2.21 (tf.compat.v1, graph mode, CPU) computes for the 3-D convolution
and pooling ops of crates/ops/tests/integration/nn3d.rs and
crates/train/tests/integration/nn3d_grad.rs: Conv3D, Conv3DBackpropInputV2,
Conv3DBackpropFilterV2, conv3d_transpose, MaxPool3D, AvgPool3D, MaxPool3DGrad, AvgPool3DGrad and
MaxPool3DGradGrad on small fixed inputs, with their values, static shapes, errors and
tf.gradients.

oneDNN is switched off (TF_ENABLE_ONEDNN_OPTS=0) so that TensorFlow's own CPU kernels run: the
oneDNN rewrites take NCDHW and dilations but abort the process on several malformed inputs,
while the reference kernels reject those with the errors weir reproduces.

Run: ~/.cache/weir-bench/venv/bin/python make_nn3d.py   (writes expected.json beside it)

Each case: {"name", "op", "inputs": [[name, tensor]...] (in the op's argument order), "attrs",
"dynamic" (inputs fed with unknown shapes, so the kernel and not the shape function checks
them), and either "outputs": [tensor], "static_shape" (null for an unknown dim) and "scale"
(the op on the absolute values of its float inputs, in float64: the sum of |terms| behind each
output, for the tolerance), or "error": {"type", "message"}. Cases with "grads" also have
"grad_ys" and "grads" / "grad_scales": {input name: tensor}. A tensor is {"dtype", "shape",
"values" (flat, row-major; half types as their float values)}.
"""

import json
import math
import os

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = []
f16, f32, f64, i32, i64 = np.float16, np.float32, np.float64, np.int32, np.int64
BF16 = tf.bfloat16.as_numpy_dtype


def enc(a, dtype=None):
    a = np.asarray(a)
    name = dtype or {"float16": "float16", "float32": "float32", "float64": "float64",
                     "int32": "int32", "int64": "int64", "bfloat16": "bfloat16"}[str(a.dtype)]
    if name == "scale":
        # Tolerance scales need few digits (rounded up, so never tighter).
        name = "float64"
        vals = [float("%.6g" % (v * (1 + 1e-6))) for v in np.abs(a.astype(np.float64)).reshape(-1)]
    elif a.dtype.kind in "fV" or name == "bfloat16":
        # float32 and the half types as their shortest round-tripping decimals.
        short = a.astype(np.float32) if name != "float64" else a
        vals = [float(str(v)) if math.isfinite(v) else str(v) for v in short.reshape(-1)]
    else:
        vals = [int(v) for v in a.reshape(-1).tolist()]
    return {"dtype": name, "shape": list(a.shape), "values": vals}


def err_message(e):
    """TensorFlow's own message: without the traceback, the `[[{{node ...}}]]` suffix, or a
    shape function's ` for '{{node ...` context."""
    msg = getattr(e, "message", str(e))
    if "\nNode: '" in msg:
        msg = msg.split("\nNode: '", 1)[1].split("\n", 1)[1]
    msg = msg.split("\n\t [[")[0].split(" for '{{node ")[0]
    return msg.strip()


def weights_like(shape, dt):
    n = int(np.prod(shape))
    w = np.array([0.5 + ((i * 7919 + 13) % 1000) / 1000.0 for i in range(n)])
    return w.reshape(shape).astype(dt)


RAW = {
    "Conv3D": lambda t, a: tf.raw_ops.Conv3D(input=t[0], filter=t[1], **a),
    "Conv3DBackpropInputV2": lambda t, a: tf.raw_ops.Conv3DBackpropInputV2(
        input_sizes=t[0], filter=t[1], out_backprop=t[2], **a),
    "Conv3DBackpropFilterV2": lambda t, a: tf.raw_ops.Conv3DBackpropFilterV2(
        input=t[0], filter_sizes=t[1], out_backprop=t[2], **a),
    "conv3d_transpose": lambda t, a: tf.nn.conv3d_transpose(t[0], t[1], t[2], **a),
    "MaxPool3D": lambda t, a: tf.raw_ops.MaxPool3D(input=t[0], **a),
    "AvgPool3D": lambda t, a: tf.raw_ops.AvgPool3D(input=t[0], **a),
    "MaxPool3DGrad": lambda t, a: tf.raw_ops.MaxPool3DGrad(
        orig_input=t[0], orig_output=t[1], grad=t[2], **a),
    "AvgPool3DGrad": lambda t, a: tf.raw_ops.AvgPool3DGrad(
        orig_input_shape=t[0], grad=t[1], **a),
    "MaxPool3DGradGrad": lambda t, a: tf.raw_ops.MaxPool3DGradGrad(
        orig_input=t[0], orig_output=t[1], grad=t[2], **a),
}

# The inputs whose absolute values give the sum of |terms| (the others route or size).
LINEAR = {"Conv3D": [0, 1], "Conv3DBackpropInputV2": [1, 2], "Conv3DBackpropFilterV2": [0, 2],
          "conv3d_transpose": [0, 1], "MaxPool3D": [], "AvgPool3D": [0],
          "MaxPool3DGrad": [2], "AvgPool3DGrad": [1], "MaxPool3DGradGrad": [2]}


def run_graph(op, inputs, attrs, dynamic, grad=(), dtype_override=None, gys=None):
    g = tf.Graph()
    with g.as_default():
        ts = []
        for name, v in inputs:
            v = np.asarray(v)
            if v.dtype.kind in "iu" and name not in grad:
                ts.append(tf.placeholder_with_default(v, [None] * v.ndim if dynamic else v.shape, name=name))
            else:
                dt = dtype_override or v.dtype
                c = tf.constant(v.astype(np.float64), dtype=tf.float64) if dt != v.dtype else tf.constant(v)
                c = tf.cast(c, dt) if dt != v.dtype else c
                ts.append(tf.placeholder_with_default(c, [None] * v.ndim if dynamic else v.shape, name=name))
        y = RAW[op](ts, attrs)
        static = None if y.shape.dims is None else y.shape.as_list()
        grads = []
        if grad:
            idx = [[n for n, _ in inputs].index(k) for k in grad]
            wy = tf.constant(gys) if gys is not None else None
            grads = tf.gradients(y, [ts[i] for i in idx], grad_ys=wy)
        with tf.Session() as s:
            out = s.run(y)
            gv = s.run(grads) if grads else []
    return out, static, gv


def case(name, op, inputs, attrs, dynamic=False, grad=(), halves=None):
    """Runs `op` on `inputs` ([(name, array)]); `grad` names inputs to differentiate with
    respect to (sum(w * output)); `halves` casts the float inputs to that half type."""
    rec = {"name": name, "op": op, "attrs": attrs, "dynamic": dynamic}
    try:
        if halves is not None:
            rec["inputs"] = [[n, enc(np.asarray(v).astype(np.float32).astype(halves), str(tf.as_dtype(halves).name)) if np.asarray(v).dtype.kind == "f" else enc(v)] for n, v in inputs]
            inputs = [(n, np.asarray(v).astype(halves) if np.asarray(v).dtype.kind == "f" else v) for n, v in inputs]
        else:
            rec["inputs"] = [[n, enc(v)] for n, v in inputs]
        out, static, _ = run_graph(op, inputs, attrs, dynamic)
        rec["outputs"] = [enc(out)]
        rec["static_shape"] = static
        lin = LINEAR[op]
        # The scale runs in float64, or float32 for the pools (no float64 CPU kernels).
        sdt = f32 if "Pool" in op else f64
        absd = [(n, (np.abs(a.astype(f64)) if i in lin else a.astype(f64)).astype(sdt)
                 if a.dtype.kind in "fV" else a)
                for i, (n, a) in enumerate((n, np.asarray(v)) for n, v in inputs)]
        scale, _, _ = run_graph(op, absd, attrs, dynamic)
        rec["scale"] = enc(np.asarray(scale).astype(np.float64), "scale")
        if grad:
            gys = weights_like(out.shape, out.dtype)
            _, _, gv = run_graph(op, inputs, attrs, False, grad, gys=gys)
            rec["grad_ys"] = enc(gys)
            rec["grads"] = {k: enc(v) for k, v in zip(grad, gv)}
            if not op.startswith("MaxPool3D"):
                _, _, gs = run_graph(op, absd, attrs, False, grad, gys=np.abs(gys.astype(np.float64)).astype(sdt))
                rec["grad_scales"] = {k: enc(np.asarray(v).astype(np.float64), "scale") for k, v in zip(grad, gs)}
    except (tf.errors.OpError, ValueError, TypeError) as e:
        rec["error"] = {"type": type(e).__name__, "message": err_message(e)}
        for k in ("outputs", "static_shape", "scale", "grads", "grad_ys", "grad_scales"):
            rec.pop(k, None)
    CASES.append(rec)


rng = np.random.RandomState(3)


def rnd(*shape, dt=f32):
    return (rng.uniform(-1, 1, size=shape)).astype(dt)


def conv_attrs(strides=(1, 1, 1, 1, 1), padding="SAME", **kw):
    a = {"strides": list(strides), "padding": padding}
    a.update(kw)
    return a


def pool_attrs(ksize, strides, padding):
    return {"ksize": list(ksize), "strides": list(strides), "padding": padding}


# ---------------------------------------------------------------------------------------------
# Conv3D.
S1, S2 = [1, 1, 1, 1, 1], [1, 2, 2, 2, 1]
x1, w1 = rnd(2, 4, 5, 6, 3), rnd(2, 3, 2, 3, 4)
case("conv3d_same_f32", "Conv3D", [("input", x1), ("filter", w1)], conv_attrs(S1), grad=("input", "filter"))
case("conv3d_valid_strided_f32", "Conv3D", [("input", x1), ("filter", rnd(3, 2, 2, 3, 2))],
     conv_attrs([1, 2, 1, 2, 1], "VALID"), grad=("input", "filter"))
x2 = rnd(1, 5, 5, 5, 2, dt=f64)
case("conv3d_same_stride2_f64", "Conv3D", [("input", x2), ("filter", rnd(3, 3, 3, 2, 3, dt=f64))],
     conv_attrs(S2), grad=("input", "filter"))
case("conv3d_valid_f64", "Conv3D", [("input", rnd(3, 4, 3, 5, 2, dt=f64)), ("filter", rnd(2, 2, 3, 2, 1, dt=f64))],
     conv_attrs(S1, "VALID"), grad=("input", "filter"))
case("conv3d_same_kernel_over_input", "Conv3D", [("input", rnd(1, 2, 2, 3, 2)), ("filter", rnd(3, 3, 4, 2, 2))],
     conv_attrs([1, 1, 2, 1, 1]))
case("conv3d_same_stride3_odd", "Conv3D", [("input", rnd(2, 7, 4, 5, 1)), ("filter", rnd(4, 2, 3, 1, 3))],
     conv_attrs([1, 3, 2, 3, 1]))
case("conv3d_f16", "Conv3D", [("input", rnd(1, 3, 4, 4, 3)), ("filter", rnd(2, 2, 2, 3, 2))], conv_attrs(S1), halves=f16)
case("conv3d_bf16", "Conv3D", [("input", rnd(1, 3, 4, 4, 3)), ("filter", rnd(2, 2, 2, 3, 2))], conv_attrs(S1), halves=BF16)
case("conv3d_valid_empty", "Conv3D", [("input", x1), ("filter", rnd(5, 2, 2, 3, 4))], conv_attrs(S1, "VALID"), dynamic=True)
# Errors, from the kernel (dynamic shapes) and from the shape function.
xc = rnd(1, 2, 4, 4, 4)
case("conv3d_ncdhw", "Conv3D", [("input", xc), ("filter", w1[:, :, :, :2, :])], conv_attrs(S1, data_format="NCDHW"), dynamic=True)
case("conv3d_dilations", "Conv3D", [("input", x1), ("filter", w1)], conv_attrs(S1, dilations=[1, 2, 2, 2, 1]), dynamic=True)
case("conv3d_dilations_static", "Conv3D", [("input", x1), ("filter", w1)], conv_attrs(S1, dilations=[1, 1, 2, 1, 1]))
case("conv3d_stride_batch", "Conv3D", [("input", x1), ("filter", w1)], conv_attrs([2, 1, 1, 1, 1]), dynamic=True)
case("conv3d_stride_depth", "Conv3D", [("input", x1), ("filter", w1)], conv_attrs([1, 1, 1, 1, 2]))
case("conv3d_dilation_batch", "Conv3D", [("input", x1), ("filter", w1)], conv_attrs(S1, dilations=[2, 1, 1, 1, 1]), dynamic=True)
case("conv3d_stride_zero", "Conv3D", [("input", x1), ("filter", w1)], conv_attrs([1, 0, 1, 1, 1]))
case("conv3d_dilation_zero", "Conv3D", [("input", x1), ("filter", w1)], conv_attrs(S1, dilations=[1, 1, 0, 1, 1]))
case("conv3d_strides_6", "Conv3D", [("input", x1), ("filter", w1)], conv_attrs([1] * 6))
case("conv3d_depth_mismatch", "Conv3D", [("input", x1), ("filter", rnd(2, 2, 2, 2, 4))], conv_attrs(S1), dynamic=True)
case("conv3d_depth_mismatch_static", "Conv3D", [("input", x1), ("filter", rnd(2, 2, 2, 2, 4))], conv_attrs(S1))
case("conv3d_groups", "Conv3D", [("input", rnd(1, 3, 3, 3, 4)), ("filter", rnd(2, 2, 2, 2, 4))], conv_attrs(S1), dynamic=True)
case("conv3d_groups_static", "Conv3D", [("input", rnd(1, 3, 3, 3, 4)), ("filter", rnd(2, 2, 2, 2, 3))], conv_attrs(S1))
case("conv3d_rank4_static", "Conv3D", [("input", rnd(4, 5, 6, 3)), ("filter", w1)], conv_attrs(S1))
case("conv3d_rank4", "Conv3D", [("input", rnd(4, 5, 6, 3)), ("filter", w1)], conv_attrs(S1), dynamic=True)
case("conv3d_valid_too_big_static", "Conv3D", [("input", x1), ("filter", rnd(5, 2, 2, 3, 4))], conv_attrs(S1, "VALID"))

# Conv3DBackpropInputV2 / Conv3DBackpropFilterV2 / conv3d_transpose.
dy1 = rnd(2, 4, 5, 6, 4)
case("backprop_input_same_f32", "Conv3DBackpropInputV2",
     [("input_sizes", np.array([2, 4, 5, 6, 3], i32)), ("filter", w1), ("out_backprop", dy1)], conv_attrs(S1),
     grad=("filter", "out_backprop"))
case("backprop_input_stride2_i64_f64", "Conv3DBackpropInputV2",
     [("input_sizes", np.array([1, 5, 5, 5, 2], i64)), ("filter", rnd(3, 3, 3, 2, 3, dt=f64)),
      ("out_backprop", rnd(1, 3, 3, 3, 3, dt=f64))], conv_attrs(S2), grad=("filter", "out_backprop"))
case("backprop_input_valid_f32", "Conv3DBackpropInputV2",
     [("input_sizes", np.array([2, 4, 5, 6, 3], i32)), ("filter", rnd(3, 2, 2, 3, 2)),
      ("out_backprop", rnd(2, 2, 4, 3, 2))], conv_attrs([1, 1, 1, 2, 1], "VALID"))
case("backprop_input_f16", "Conv3DBackpropInputV2",
     [("input_sizes", np.array([1, 3, 4, 4, 3], i32)), ("filter", rnd(2, 2, 2, 3, 2)), ("out_backprop", rnd(1, 3, 4, 4, 2))],
     conv_attrs(S1), halves=f16)
case("backprop_filter_same_f32", "Conv3DBackpropFilterV2",
     [("input", x1), ("filter_sizes", np.array([2, 3, 2, 3, 4], i32)), ("out_backprop", dy1)], conv_attrs(S1),
     grad=("input", "out_backprop"))
case("backprop_filter_stride2_f64", "Conv3DBackpropFilterV2",
     [("input", x2), ("filter_sizes", np.array([3, 3, 3, 2, 3], i32)), ("out_backprop", rnd(1, 3, 3, 3, 3, dt=f64))],
     conv_attrs(S2), grad=("input", "out_backprop"))
case("backprop_filter_bf16", "Conv3DBackpropFilterV2",
     [("input", rnd(1, 3, 4, 4, 3)), ("filter_sizes", np.array([2, 2, 2, 3, 2], i32)), ("out_backprop", rnd(1, 3, 4, 4, 2))],
     conv_attrs(S1), halves=BF16)
case("conv3d_transpose_f32", "conv3d_transpose",
     [("value", rnd(1, 2, 3, 2, 4)), ("filter", rnd(3, 3, 2, 2, 4)), ("output_shape", np.array([1, 4, 5, 4, 2], i32))],
     conv_attrs(S2), grad=("value", "filter"))
bsz = lambda v: np.array(v, i32)  # noqa: E731
case("backprop_input_sizes_rank", "Conv3DBackpropInputV2",
     [("input_sizes", bsz([1, 4, 4, 2])), ("filter", rnd(2, 2, 2, 2, 3)), ("out_backprop", rnd(1, 4, 4, 4, 3))], conv_attrs(S1), dynamic=True)
case("backprop_input_dy_size", "Conv3DBackpropInputV2",
     [("input_sizes", bsz([1, 4, 4, 4, 2])), ("filter", rnd(2, 2, 2, 2, 3)), ("out_backprop", rnd(1, 4, 4, 3, 3))], conv_attrs(S1), dynamic=True)
case("backprop_input_depth", "Conv3DBackpropInputV2",
     [("input_sizes", bsz([1, 4, 4, 4, 3])), ("filter", rnd(2, 2, 2, 2, 3)), ("out_backprop", rnd(1, 4, 4, 4, 3))], conv_attrs(S1), dynamic=True)
case("backprop_input_out_depth", "Conv3DBackpropInputV2",
     [("input_sizes", bsz([1, 4, 4, 4, 2])), ("filter", rnd(2, 2, 2, 2, 3)), ("out_backprop", rnd(1, 4, 4, 4, 2))], conv_attrs(S1), dynamic=True)
case("backprop_input_batch", "Conv3DBackpropInputV2",
     [("input_sizes", bsz([2, 4, 4, 4, 2])), ("filter", rnd(2, 2, 2, 2, 3)), ("out_backprop", rnd(1, 4, 4, 4, 3))], conv_attrs(S1), dynamic=True)
case("backprop_input_ncdhw", "Conv3DBackpropInputV2",
     [("input_sizes", bsz([1, 2, 4, 4, 4])), ("filter", rnd(2, 2, 2, 2, 3)), ("out_backprop", rnd(1, 3, 4, 4, 4))],
     conv_attrs(S1, data_format="NCDHW"), dynamic=True)
case("backprop_input_dilations", "Conv3DBackpropInputV2",
     [("input_sizes", bsz([1, 4, 4, 4, 2])), ("filter", rnd(2, 2, 2, 2, 3)), ("out_backprop", rnd(1, 4, 4, 4, 3))],
     conv_attrs(S1, dilations=[1, 2, 1, 1, 1]), dynamic=True)
case("backprop_input_stride_batch", "Conv3DBackpropInputV2",
     [("input_sizes", bsz([1, 4, 4, 4, 2])), ("filter", rnd(2, 2, 2, 2, 3)), ("out_backprop", rnd(1, 4, 4, 4, 3))],
     conv_attrs([1, 1, 1, 1, 2]), dynamic=True)
case("backprop_filter_sizes_rank", "Conv3DBackpropFilterV2",
     [("input", rnd(1, 4, 4, 4, 2)), ("filter_sizes", bsz([2, 2, 2, 3])), ("out_backprop", rnd(1, 4, 4, 4, 3))], conv_attrs(S1), dynamic=True)
case("backprop_filter_out_depth", "Conv3DBackpropFilterV2",
     [("input", rnd(1, 4, 4, 4, 2)), ("filter_sizes", bsz([2, 2, 2, 2, 3])), ("out_backprop", rnd(1, 4, 4, 4, 2))], conv_attrs(S1), dynamic=True)
case("backprop_filter_dy_size", "Conv3DBackpropFilterV2",
     [("input", rnd(1, 4, 4, 4, 2)), ("filter_sizes", bsz([2, 2, 2, 2, 3])), ("out_backprop", rnd(1, 2, 4, 4, 3))], conv_attrs(S1), dynamic=True)
case("backprop_filter_batch", "Conv3DBackpropFilterV2",
     [("input", rnd(2, 4, 4, 4, 2)), ("filter_sizes", bsz([2, 2, 2, 2, 3])), ("out_backprop", rnd(1, 4, 4, 4, 3))], conv_attrs(S1), dynamic=True)
case("backprop_filter_ncdhw", "Conv3DBackpropFilterV2",
     [("input", rnd(1, 2, 4, 4, 4)), ("filter_sizes", bsz([2, 2, 2, 2, 3])), ("out_backprop", rnd(1, 3, 4, 4, 4))],
     conv_attrs(S1, data_format="NCDHW"), dynamic=True)

# ---------------------------------------------------------------------------------------------
# Pools.
K2, K3 = [1, 2, 2, 2, 1], [1, 3, 3, 3, 1]
px = rnd(2, 5, 4, 6, 3)
# Integer-valued inputs with ties, and values 1e-6 apart (within MaxPool3DGrad's 1e-5).
ties = (rng.randint(0, 4, size=(1, 4, 4, 5, 2))).astype(f32)
ties[0, 0, 0, 1, 0] = ties[0, 0, 0, 0, 0] + 1e-6
for pname, op in [("max", "MaxPool3D"), ("avg", "AvgPool3D")]:
    case(f"{pname}_pool3d_same_k2", op, [("input", px)], pool_attrs(K2, S1, "SAME"), grad=("input",))
    case(f"{pname}_pool3d_valid_strided", op, [("input", px)], pool_attrs([1, 1, 3, 2, 1], [1, 2, 1, 2, 1], "VALID"), grad=("input",))
    case(f"{pname}_pool3d_same_k3_s2", op, [("input", px)], pool_attrs(K3, S2, "SAME"), grad=("input",))
    case(f"{pname}_pool3d_window_over_input", op, [("input", rnd(1, 2, 3, 2, 2))], pool_attrs([1, 3, 5, 3, 1], S1, "SAME"), grad=("input",))
    case(f"{pname}_pool3d_ties", op, [("input", ties)], pool_attrs(K2, [1, 1, 2, 1, 1], "SAME"), grad=("input",))
    case(f"{pname}_pool3d_bf16", op, [("input", rnd(1, 3, 4, 4, 2))], pool_attrs(K2, S1, "SAME"), halves=BF16)
    case(f"{pname}_pool3d_f16", op, [("input", rnd(1, 3, 4, 4, 2))], pool_attrs(K2, S1, "SAME"), halves=f16)
    case(f"{pname}_pool3d_f64", op, [("input", rnd(1, 3, 4, 4, 2, dt=f64))], pool_attrs(K2, S1, "SAME"))
    case(f"{pname}_pool3d_ncdhw", op, [("input", rnd(1, 2, 4, 4, 4))], {**pool_attrs([1, 1, 2, 2, 2], S1, "SAME"), "data_format": "NCDHW"}, dynamic=True)
    case(f"{pname}_pool3d_batch", op, [("input", px)], pool_attrs([2, 2, 2, 2, 1], S1, "SAME"), dynamic=True)
    case(f"{pname}_pool3d_depth", op, [("input", px)], pool_attrs([1, 2, 2, 2, 3], S1, "SAME"), dynamic=True)
    case(f"{pname}_pool3d_depth_stride", op, [("input", px)], pool_attrs(K2, [1, 1, 1, 1, 2], "SAME"), dynamic=True)
    case(f"{pname}_pool3d_rank4", op, [("input", rnd(4, 4, 4, 2))], pool_attrs(K2, S1, "SAME"), dynamic=True)
    case(f"{pname}_pool3d_rank4_static", op, [("input", rnd(4, 4, 4, 2))], pool_attrs(K2, S1, "SAME"))
    case(f"{pname}_pool3d_valid_too_big", op, [("input", px)], pool_attrs([1, 6, 2, 2, 1], S1, "VALID"), dynamic=True)
    case(f"{pname}_pool3d_valid_too_big_static", op, [("input", px)], pool_attrs([1, 6, 2, 2, 1], S1, "VALID"))
    case(f"{pname}_pool3d_stride_zero", op, [("input", px)], pool_attrs(K2, [1, 0, 1, 1, 1], "VALID"))
    case(f"{pname}_pool3d_ksize_6", op, [("input", px)], pool_attrs([1] * 6, S1, "VALID"))
    case(f"{pname}_pool3d_strides_6", op, [("input", px)], pool_attrs(K2, [1] * 6, "VALID"))


def max_pool3d_np(x, attrs):
    g = tf.Graph()
    with g.as_default(), tf.Session() as s:
        return s.run(tf.raw_ops.MaxPool3D(input=tf.constant(x), **attrs))


for nm, x, a in [("same_k2", px, pool_attrs(K2, S1, "SAME")),
                 ("valid_strided", px, pool_attrs([1, 1, 3, 2, 1], [1, 2, 1, 2, 1], "VALID")),
                 ("same_k3_s2", px, pool_attrs(K3, S2, "SAME")),
                 ("window_over_input", ties[:, :2, :3, :2], pool_attrs([1, 3, 5, 3, 1], S1, "SAME")),
                 ("ties", ties, pool_attrs(K2, [1, 1, 2, 1, 1], "SAME"))]:
    y = max_pool3d_np(x, a)
    case(f"max_pool3d_grad_{nm}", "MaxPool3DGrad", [("orig_input", x), ("orig_output", y), ("grad", rnd(*y.shape))], a, grad=("grad",))
    case(f"max_pool3d_grad_grad_{nm}", "MaxPool3DGradGrad", [("orig_input", x), ("orig_output", y), ("grad", rnd(*x.shape))], a, grad=("grad",))
    case(f"avg_pool3d_grad_{nm}", "AvgPool3DGrad", [("orig_input_shape", np.array(x.shape, i32)), ("grad", rnd(*y.shape))], a, grad=("grad",))
y = max_pool3d_np(px, pool_attrs(K2, S1, "SAME"))
pa = pool_attrs(K2, S1, "SAME")
case("max_pool3d_grad_bf16", "MaxPool3DGrad", [("orig_input", px[:1]), ("orig_output", y[:1]), ("grad", rnd(*y[:1].shape))], pa, halves=BF16)
case("avg_pool3d_grad_bf16", "AvgPool3DGrad", [("orig_input_shape", np.array(px[:1].shape, i32)), ("grad", rnd(*y[:1].shape))], pa, halves=BF16)
case("max_pool3d_grad_grad_bf16", "MaxPool3DGradGrad", [("orig_input", px[:1]), ("orig_output", y[:1]), ("grad", rnd(*px[:1].shape))], pa, halves=BF16)
case("avg_pool3d_grad_f64", "AvgPool3DGrad", [("orig_input_shape", np.array(px.shape, i32)), ("grad", rnd(*y.shape, dt=f64))], pa)
case("max_pool3d_grad_grad_f64", "MaxPool3DGradGrad", [("orig_input", px.astype(f64)), ("orig_output", y.astype(f64)), ("grad", rnd(*px.shape, dt=f64))], pa)
case("max_pool3d_grad_rank", "MaxPool3DGrad", [("orig_input", px), ("orig_output", y), ("grad", rnd(5, 4, 6, 3))], pa, dynamic=True)
case("max_pool3d_grad_shape", "MaxPool3DGrad", [("orig_input", px), ("orig_output", y), ("grad", rnd(2, 5, 4, 5, 3))], pa, dynamic=True)
case("max_pool3d_grad_output_shape", "MaxPool3DGrad", [("orig_input", px), ("orig_output", y[:, :4]), ("grad", y)], pa, dynamic=True)
case("max_pool3d_grad_grad_shape", "MaxPool3DGradGrad", [("orig_input", px), ("orig_output", y[:, :4]), ("grad", px)], pa, dynamic=True)
case("max_pool3d_grad_grad_grad_shape", "MaxPool3DGradGrad", [("orig_input", px), ("orig_output", y), ("grad", px[:, :4])], pa, dynamic=True)
case("max_pool3d_grad_grad_static", "MaxPool3DGradGrad", [("orig_input", px), ("orig_output", y[:, :4]), ("grad", px)], pa)
case("avg_pool3d_grad_shape_rank", "AvgPool3DGrad", [("orig_input_shape", bsz([2, 5, 4, 6])), ("grad", y)], pa, dynamic=True)
case("avg_pool3d_grad_batch", "AvgPool3DGrad", [("orig_input_shape", bsz([1, 5, 4, 6, 3])), ("grad", y)], pa, dynamic=True)
case("avg_pool3d_grad_depth", "AvgPool3DGrad", [("orig_input_shape", bsz([2, 5, 4, 6, 2])), ("grad", y)], pa, dynamic=True)
case("avg_pool3d_grad_rank", "AvgPool3DGrad", [("orig_input_shape", bsz([2, 5, 4, 6, 3])), ("grad", y[0])], pa, dynamic=True)
case("avg_pool3d_grad_static_rank", "AvgPool3DGrad", [("orig_input_shape", bsz([2, 5, 4, 6])), ("grad", y)], pa)

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump({"cases": CASES}, f, indent=None, separators=(",", ":"))
print(len(CASES), "cases,", sum("error" in c for c in CASES), "errors")
