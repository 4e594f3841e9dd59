"""Records TensorFlow 2.21's CPU results of the fake-quantization and quantize-and-dequantize
ops for crates/ops/tests/integration/quantization.rs (key "cases": raw ops; "api": the
tf.quantization functions, their node names and attributes) and for
crates/train/tests/integration/quantization_grad.rs (key "grads": tf.gradients through them).

FakeQuantWithMinMaxArgs/Vars/VarsPerChannel and their gradient ops: values on, between and
just around the nudged grid (ties, one ulp either side), outside the range, NaN, +-inf and
-0.0, num_bits 2..16, narrow_range, ranges that straddle, touch or miss zero, per-channel
ranks 1 to 5, zero ranges, and the errors (attributes, ranks, sizes). Gradient sums use small
integers, exact in any summation order.

QuantizeAndDequantizeV2/V3/V4/V4Grad on float32 and float64: signed and unsigned, num_bits 1
to 62, narrow_range, given or computed ranges, HALF_TO_EVEN and HALF_UP on exact ties, per
axis, and the errors, including float16/bfloat16 (no CPU kernel). A computed range never sees
NaN (TensorFlow's vectorized minimum skips NaN or not depending on where it lies).

Tensors are encoded by ../tensor_json.py (floats as IEEE bit patterns). An input with "feed"
is a placeholder of that static shape (null: unknown rank), fed its value; otherwise a
constant. A case TensorFlow rejects records where ("build": when the node is added; "run":
when it runs), the status code and the message without TensorFlow's node trailer.

Run with TensorFlow 2.21: python make_quantization.py (writes expected.json beside it).
"""
import json
import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tensor_json import encode  # noqa: E402

F32, F64 = np.float32, np.float64
RS = np.random.RandomState(20260305)
CASES, API, GRADS = [], [], []


def message(e):
    """The kernel's words, without TensorFlow's "Graph execution error", traceback and node
    trailer lines around them (a no-kernel message keeps its lines)."""
    keep = [ln for ln in e.message.split("\n")
            if not ln.startswith(("Graph execution", "Detected at", "    ", "Node: ", "\t"))]
    return "\n".join(keep).strip()


def static(t):
    return None if t.shape.rank is None else [d for d in t.shape.as_list()]


def record(name, op, inputs, attrs, node=None):
    """Runs raw op `op` on `inputs`: (arg, array) for a constant, or (arg, array, shape) for a
    placeholder of that static shape fed the array."""
    # JSON has no NaN: a NaN attribute is written as the string "NaN".
    case = {"name": name, "op": op, "inputs": [],
            "attrs": {k: "NaN" if isinstance(v, float) and v != v else v for k, v in attrs.items()}}
    if node:
        case["node"] = node
    g = tf.Graph()
    feeds = {}
    with g.as_default():
        kw = {}
        for item in inputs:
            arg, v = item[0], np.asarray(item[1])
            enc = [arg, encode(v)]
            if len(item) == 3:
                p = tf.placeholder(tf.as_dtype(v.dtype), item[2])
                feeds[p] = v
                enc.append(item[2])
                kw[arg] = p
            else:
                kw[arg] = tf.constant(v)
            case["inputs"].append(enc)
        try:
            y = getattr(tf.raw_ops, op)(**kw, **attrs, **({"name": node} if node else {}))
        except (ValueError, TypeError) as e:
            case["error"] = {"stage": "build", "code": 3, "message": str(e)}
            CASES.append(case)
            return
    ys = list(y) if isinstance(y, (tuple, list)) else [y]
    case["static_shapes"] = [static(t) for t in ys]
    try:
        with tf.Session(graph=g) as s:
            case["outputs"] = [encode(v) for v in s.run(ys, feeds)]
    except tf.errors.OpError as e:
        case["error"] = {"stage": "run", "code": e.error_code, "message": message(e)}
    CASES.append(case)


# ---------------------------------------------------------------------------------------------
# Fake quantization.

def nudge(mn, mx, bits, narrow):
    """TensorFlow's nudged range, to put test values on and around its grid."""
    qmin, qmax = F32(1 if narrow else 0), F32((1 << bits) - 1)
    mn, mx = F32(mn), F32(mx)
    scale = (mx - mn) / (qmax - qmin)
    zp = qmin - mn / scale
    z = qmin if zp < qmin else qmax if zp > qmax else F32(np.floor(abs(zp) + 0.5) * np.sign(zp))
    return (qmin - z) * scale, (qmax - z) * scale, scale


def grid_values(mn, mx, bits, narrow, n=40):
    """Grid points, midpoints (ties) and their neighbours one ulp away, values outside the
    range, and the special values."""
    lo, hi, s = nudge(mn, mx, bits, narrow)
    steps = int(round(float((hi - lo) / s)))
    ks = np.unique(np.linspace(0, steps, min(n, steps + 1)).round().astype(np.int64))
    pts = (lo + ks.astype(F32) * s).astype(F32)
    mids = (pts + F32(0.5) * s).astype(F32)
    v = [pts, mids, np.nextafter(mids, F32(np.inf)), np.nextafter(mids, F32(-np.inf)),
         np.nextafter(pts, F32(np.inf)), np.nextafter(pts, F32(-np.inf)),
         F32([lo - s, hi + s, lo * 3 - 1, hi * 3 + 1, 0.0, -0.0, np.nan, np.inf, -np.inf])]
    return np.concatenate(v).astype(F32)


RANGES = [(-6.0, 6.0), (-1.0, 1.0), (0.0, 1.0), (-0.1, 25.4), (-3.7, 0.2), (0.5, 2.0),
          (-2.0, -0.5), (-1e-3, 1e-3), (-128.0, 127.0), (-0.3, 0.7)]


def fake_quant_cases():
    for i, (mn, mx) in enumerate(RANGES):
        for bits, narrow in [(8, False), (8, True), (2 + i % 15, i % 2 == 0), (16, False)]:
            tag = f"{mn}_{mx}_{bits}{'n' if narrow else ''}"
            x = grid_values(mn, mx, bits, narrow)
            attrs = {"num_bits": bits, "narrow_range": narrow}
            record(f"args_{tag}", "FakeQuantWithMinMaxArgs", [("inputs", x)],
                   {"min": mn, "max": mx, **attrs})
            record(f"vars_{tag}", "FakeQuantWithMinMaxVars",
                   [("inputs", x), ("min", F32(mn)), ("max", F32(mx))], attrs)
            g = RS.randint(-4, 5, x.shape).astype(F32)
            record(f"args_grad_{tag}", "FakeQuantWithMinMaxArgsGradient",
                   [("gradients", g), ("inputs", x)], {"min": mn, "max": mx, **attrs})
            record(f"vars_grad_{tag}", "FakeQuantWithMinMaxVarsGradient",
                   [("gradients", g), ("inputs", x), ("min", F32(mn)), ("max", F32(mx))], attrs)
    for bits in range(2, 17):
        x = (RS.uniform(-3, 3, 64)).astype(F32)
        record(f"args_bits_{bits}", "FakeQuantWithMinMaxArgs", [("inputs", x)],
               {"min": -2.5, "max": 1.5, "num_bits": bits})
        record(f"vars_bits_{bits}", "FakeQuantWithMinMaxVars",
               [("inputs", x, [None]), ("min", F32(-1.7), []), ("max", F32(2.2), [])],
               {"num_bits": bits, "narrow_range": True})
    x = F32([[-1.5, 0.3], [2.0, -0.0]])
    record("args_default_2d", "FakeQuantWithMinMaxArgs", [("inputs", x * 5)], {})
    record("args_empty", "FakeQuantWithMinMaxArgs", [("inputs", np.zeros((0, 3), F32))], {})
    # Vars with degenerate ranges: both zero (zeros out), equal, reversed.
    for tag, mn, mx in [("zero", 0.0, 0.0), ("equal", 1.0, 1.0), ("reversed", 1.0, -1.0),
                        ("neg_zero", -0.0, 0.0)]:
        x = F32([-2, -0.5, 0, 0.25, 3, np.nan, np.inf])
        record(f"vars_range_{tag}", "FakeQuantWithMinMaxVars",
               [("inputs", x), ("min", F32(mn)), ("max", F32(mx))], {})
        record(f"vars_grad_range_{tag}", "FakeQuantWithMinMaxVarsGradient",
               [("gradients", F32([1, 2, 3, 4, 5, np.inf, 7])), ("inputs", x),
                ("min", F32(mn)), ("max", F32(mx))], {})
    # Gradients of NaN and infinities: the mask multiplies them.
    x = F32([-9, -1, 0, 1, 9, np.nan, np.inf, -np.inf])
    gi = F32([np.inf, np.nan, -np.inf, 2, -3, 4, 5, 6])
    record("vars_grad_specials", "FakeQuantWithMinMaxVarsGradient",
           [("gradients", gi), ("inputs", x), ("min", F32(-1)), ("max", F32(1))], {})
    record("args_grad_specials", "FakeQuantWithMinMaxArgsGradient",
           [("gradients", gi), ("inputs", x)], {"min": -1.0, "max": 1.0})
    record("vars_grad_2d", "FakeQuantWithMinMaxVarsGradient",
           [("gradients", RS.randint(-3, 4, (3, 5)).astype(F32)),
            ("inputs", RS.uniform(-4, 4, (3, 5)).astype(F32)), ("min", F32(-1)),
            ("max", F32(2))], {"num_bits": 4})
    # Errors.
    x = F32([0.5, -0.5])
    for tag, attrs in [("min_above_max", {"min": 1.0, "max": -1.0}),
                       ("min_equals_max", {"min": 0.5, "max": 0.5}),
                       ("min_nan", {"min": float("nan"), "max": 1.0}),
                       ("message_floats", {"min": 0.1, "max": -0.3}),
                       ("message_exponents", {"min": 1e20, "max": -3e-7}),
                       ("bits_1", {"num_bits": 1}), ("bits_17", {"num_bits": 17}),
                       ("bits_and_range", {"num_bits": 30, "min": 3.0, "max": 1.0})]:
        record(f"args_error_{tag}", "FakeQuantWithMinMaxArgs", [("inputs", x)], attrs)
        record(f"args_grad_error_{tag}", "FakeQuantWithMinMaxArgsGradient",
               [("gradients", x), ("inputs", x)], attrs)
    record("args_grad_error_shapes", "FakeQuantWithMinMaxArgsGradient",
           [("gradients", np.zeros((3, 4), F32)), ("inputs", F32(1), None)], {}, node="foo")
    record("args_grad_error_sizes", "FakeQuantWithMinMaxArgsGradient",
           [("gradients", np.zeros(9, F32)), ("inputs", np.zeros(3, F32))], {})
    v = np.zeros(4, F32)
    for bits in [0, 1, 17, 100]:
        record(f"vars_error_bits_{bits}", "FakeQuantWithMinMaxVars",
               [("inputs", v), ("min", F32(-1)), ("max", F32(1))], {"num_bits": bits})
    record("vars_error_min_rank_build", "FakeQuantWithMinMaxVars",
           [("inputs", v), ("min", F32([-1])), ("max", F32(1))], {})
    record("vars_error_max_rank_build", "FakeQuantWithMinMaxVars",
           [("inputs", v), ("min", F32(-1)), ("max", F32([1]))], {})
    record("vars_error_min_rank_run", "FakeQuantWithMinMaxVars",
           [("inputs", v), ("min", F32([-1]), None), ("max", F32([1]), None)], {})
    record("vars_error_max_rank_run", "FakeQuantWithMinMaxVars",
           [("inputs", v), ("min", F32(-1), None), ("max", F32([1]), None)], {})
    record("vars_error_min_float64", "FakeQuantWithMinMaxVars",
           [("inputs", v), ("min", F64(-1)), ("max", F32(1))], {})
    record("vars_grad_error_sizes_run", "FakeQuantWithMinMaxVarsGradient",
           [("gradients", np.zeros(2, F32), None), ("inputs", v), ("min", F32([1]), None),
            ("max", F32(2))], {})
    record("vars_grad_error_sizes_build", "FakeQuantWithMinMaxVarsGradient",
           [("gradients", np.zeros(2, F32)), ("inputs", v), ("min", F32(1)), ("max", F32(2))],
           {})
    record("vars_grad_error_min_rank_run", "FakeQuantWithMinMaxVarsGradient",
           [("gradients", v), ("inputs", v), ("min", F32([1]), None), ("max", F32([2]), None)],
           {})
    record("vars_grad_error_max_rank_run", "FakeQuantWithMinMaxVarsGradient",
           [("gradients", v), ("inputs", v), ("min", F32(1), None), ("max", F32([2]), None)], {})
    record("vars_grad_error_max_rank_build", "FakeQuantWithMinMaxVarsGradient",
           [("gradients", v), ("inputs", v), ("min", F32(1)), ("max", F32([2]))], {})
    record("vars_grad_error_bits", "FakeQuantWithMinMaxVarsGradient",
           [("gradients", v), ("inputs", v), ("min", F32(-1)), ("max", F32(1))],
           {"num_bits": 20})


def per_channel_cases():
    for shape in [(6,), (7, 3), (2, 3, 4), (2, 2, 3, 5), (1, 2, 1, 2, 3)]:
        d = shape[-1]
        for bits, narrow in [(8, False), (3, True), (16, False), (5, False)]:
            tag = f"{'x'.join(map(str, shape))}_{bits}{'n' if narrow else ''}"
            mn = (-RS.uniform(0, 3, d)).astype(F32)
            mx = RS.uniform(0.01, 3, d).astype(F32)
            mn[0], mx[0] = F32(0.5), F32(2.0)  # above zero: nudged down to start at zero
            if d > 2:
                mn[2], mx[2] = F32(0.0), F32(0.0)  # a zero range: zeros, gradient passes
            x = RS.uniform(-4, 4, shape).astype(F32)
            flat = x.reshape(-1)
            flat[:: 7] = F32(0.0)
            flat[1] = F32(np.nan)
            flat[3 % flat.size] = F32(np.inf)
            attrs = {"num_bits": bits, "narrow_range": narrow}
            record(f"per_channel_{tag}", "FakeQuantWithMinMaxVarsPerChannel",
                   [("inputs", x), ("min", mn), ("max", mx)], attrs)
            g = RS.randint(-4, 5, shape).astype(F32)
            record(f"per_channel_grad_{tag}", "FakeQuantWithMinMaxVarsPerChannelGradient",
                   [("gradients", g), ("inputs", x), ("min", mn), ("max", mx)], attrs)
    # Grid points and ties of two channels with different ranges.
    cols = [grid_values(-1.0, 1.0, 4, False, 12), grid_values(-0.3, 5.0, 4, True, 12)]
    n = min(len(c) for c in cols)
    x = np.stack([c[:n] for c in cols], 1)
    record("per_channel_grid", "FakeQuantWithMinMaxVarsPerChannel",
           [("inputs", x), ("min", F32([-1.0, -0.3])), ("max", F32([1.0, 5.0]))],
           {"num_bits": 4, "narrow_range": False})
    record("per_channel_grid_narrow", "FakeQuantWithMinMaxVarsPerChannel",
           [("inputs", x), ("min", F32([-1.0, -0.3])), ("max", F32([1.0, 5.0]))],
           {"num_bits": 4, "narrow_range": True})
    record("per_channel_empty", "FakeQuantWithMinMaxVarsPerChannel",
           [("inputs", np.zeros((2, 0), F32)), ("min", np.zeros(0, F32)),
            ("max", np.zeros(0, F32))], {})
    record("per_channel_grad_empty_batch", "FakeQuantWithMinMaxVarsPerChannelGradient",
           [("gradients", np.zeros((0, 3), F32)), ("inputs", np.zeros((0, 3), F32)),
            ("min", F32([-1, -1, -1])), ("max", F32([1, 1, 1]))], {})
    record("per_channel_grad_rank5_fed", "FakeQuantWithMinMaxVarsPerChannelGradient",
           [("gradients", F32([1, 2, 3]).reshape(1, 1, 1, 1, 3), None),
            ("inputs", F32([-5, 0.2, 5]).reshape(1, 1, 1, 1, 3), None),
            ("min", F32([-1, -1, -1])), ("max", F32([1, 1, 1]))], {})
    # Errors.
    x = np.zeros((3, 4), F32)
    m4 = F32([-1, -1, -1, -1])
    for tag, mn, mx, fed in [
            ("min_size_build", F32([-1, -1]), m4, False),
            ("max_size_build", m4, F32([1, 1]), False),
            ("min_max_differ_build", F32([-1, -1]), F32([1, 1, 1]), False),
            ("min_rank_build", F32([[-1, -1, -1, -1]]), m4, False),
            ("min_size_run", F32([-1, -1]), m4, True),
            ("max_size_run", m4, F32([1]), True),
            ("min_rank_run", F32([[-1, -1, -1, -1]]), m4, True),
            ("max_rank_run", m4, F32([[1, 1, 1, 1]]), True),
            ("min_size_before_max_rank", F32([1, 2]), F32([[2]]), True)]:
        ins = [("inputs", x), ("min", mn, None) if fed else ("min", mn),
               ("max", mx, None) if fed else ("max", mx)]
        record(f"per_channel_error_{tag}", "FakeQuantWithMinMaxVarsPerChannel", ins, {})
        record(f"per_channel_grad_error_{tag}", "FakeQuantWithMinMaxVarsPerChannelGradient",
               [("gradients", x)] + ins, {})
    record("per_channel_error_scalar_build", "FakeQuantWithMinMaxVarsPerChannel",
           [("inputs", F32(1)), ("min", F32([-1])), ("max", F32([1]))], {})
    record("per_channel_error_bits", "FakeQuantWithMinMaxVarsPerChannel",
           [("inputs", x), ("min", m4), ("max", -m4)], {"num_bits": 17})
    record("per_channel_grad_error_rank5_build", "FakeQuantWithMinMaxVarsPerChannelGradient",
           [("gradients", np.zeros((1, 1, 1, 1, 2), F32)),
            ("inputs", np.zeros((1, 1, 1, 1, 2), F32)), ("min", F32([-1, -1])),
            ("max", F32([1, 1]))], {})
    record("per_channel_grad_error_sizes", "FakeQuantWithMinMaxVarsPerChannelGradient",
           [("gradients", x[:2], None), ("inputs", x), ("min", F32([[1, 2]]), None),
            ("max", F32([[2]]), None)], {})
    record("per_channel_grad_error_shapes_build", "FakeQuantWithMinMaxVarsPerChannelGradient",
           [("gradients", x[:2]), ("inputs", x), ("min", m4), ("max", -m4)], {})


# ---------------------------------------------------------------------------------------------
# Quantize and dequantize.

def qdq_cases():
    for dt in [F32, F64]:
        dn = np.dtype(dt).name
        # Ties at a power-of-two scale: signed 8 bits over [-2, 127/64] scales by 64.
        ties = (np.arange(-140, 140, dtype=np.float64) / 64 + 1 / 128).astype(dt)
        for mode in ["HALF_TO_EVEN", "HALF_UP"]:
            for op in ["QuantizeAndDequantizeV2", "QuantizeAndDequantizeV4"]:
                record(f"{op}_ties_{mode}_{dn}", op,
                       [("input", ties), ("input_min", dt(-2)), ("input_max", dt(127 / 64))],
                       {"range_given": True, "round_mode": mode})
                record(f"{op}_ties_computed_{mode}_{dn}", op,
                       [("input", ties[10:-10]), ("input_min", dt(0)), ("input_max", dt(0))],
                       {"round_mode": mode})
        configs = []
        for signed in [True, False]:
            for bits in [1, 2, 3, 4, 7, 8, 12, 16, 23, 24, 25, 31, 32, 53, 61]:
                for narrow in [False, True]:
                    configs.append((signed, bits, narrow))
        for k, (signed, bits, narrow) in enumerate(configs):
            x = (RS.uniform(-3, 3, 37) * RS.choice([1, 0.01, 100])).astype(dt)
            x[::5] = np.round(x[::5] * 4) / 4
            x[3] = dt(0.0)
            x[4] = dt(-0.0)
            rg = k % 2 == 0
            mode = ["HALF_TO_EVEN", "HALF_UP"][(k // 2) % 2]
            if rg:
                mn, mx = dt(-RS.uniform(0, 3)), dt(RS.uniform(0, 3))
                if k % 8 == 0:
                    mn = dt(RS.uniform(0, 1))  # the range need not hold zero
                mx = max(mn, mx)
                x[6], x[7], x[8] = dt(np.inf), dt(-np.inf), dt(np.nan)
            else:
                mn, mx = dt(0), dt(0)
            op = ["QuantizeAndDequantizeV2", "QuantizeAndDequantizeV4"][k % 3 == 0]
            tag = f"{dn}_{'s' if signed else 'u'}{bits}{'n' if narrow else ''}_{k}"
            record(f"qdq_{tag}", op, [("input", x), ("input_min", mn), ("input_max", mx)],
                   {"signed_input": signed, "num_bits": bits, "narrow_range": narrow,
                    "range_given": rg, "round_mode": mode})
            if bits < 62:
                record(f"qdq_v3_{tag}", "QuantizeAndDequantizeV3",
                       [("input", x), ("input_min", mn), ("input_max", mx),
                        ("num_bits", np.int32(bits), [])],
                       {"signed_input": signed, "narrow_range": narrow, "range_given": rg})
        # Per axis, with computed ranges (V2/V4) and given ones (V3).
        x = (RS.uniform(-3, 3, (3, 4, 5)) * F64([[[1]], [[10]], [[0.1]]])).astype(dt)
        x[1, 2, :] = dt(0.0)
        x[2] = np.abs(x[2])
        for axis in [0, 1, 2]:
            d = x.shape[axis]
            for op in ["QuantizeAndDequantizeV2", "QuantizeAndDequantizeV4"]:
                record(f"{op}_axis{axis}_{dn}", op,
                       [("input", x), ("input_min", np.zeros(d, dt)),
                        ("input_max", np.zeros(d, dt))],
                       {"axis": axis, "num_bits": 4, "signed_input": axis != 1})
            mn = (-RS.uniform(0, 2, d)).astype(dt)
            mx = RS.uniform(0, 2, d).astype(dt)
            for rg in [True, False]:
                record(f"v3_axis{axis}_{'given' if rg else 'computed'}_{dn}",
                       "QuantizeAndDequantizeV3",
                       [("input", x), ("input_min", mn), ("input_max", mx),
                        ("num_bits", np.int32(5))],
                       {"axis": axis, "range_given": rg, "narrow_range": axis == 2})
            g = RS.randint(-3, 4, x.shape).astype(dt)
            g.reshape(-1)[::11] = dt(np.inf)
            record(f"v4_grad_axis{axis}_{dn}", "QuantizeAndDequantizeV4Grad",
                   [("gradients", g), ("input", x), ("input_min", mn), ("input_max", mx)],
                   {"axis": axis})
        xs = F64([-3, -1, -0.5, 0, 0.5, 1, 1.5, 3, np.nan, np.inf, -np.inf]).astype(dt)
        gs = F64([1, -2, 3, -4, 5, 6, np.nan, np.inf, 9, 10, 11]).astype(dt)
        record(f"v4_grad_{dn}", "QuantizeAndDequantizeV4Grad",
               [("gradients", gs), ("input", xs), ("input_min", dt(-1)),
                ("input_max", dt(1.5))], {})
        record(f"v4_grad_fed_{dn}", "QuantizeAndDequantizeV4Grad",
               [("gradients", gs, None), ("input", xs, [None]), ("input_min", dt(-1), None),
                ("input_max", dt(1.5), None)], {})
        # Infinities in a computed range, and an unsigned grid for negative values.
        for tag, v, signed in [("inf", [1, np.inf, -2, 3], True),
                               ("all_inf", [np.inf, np.inf], True),
                               ("neg_unsigned", [-1, -2, -3.3], False),
                               ("pos", [1, 2, 3.3], True), ("zeros", [0, 0, 0], True),
                               ("huge", [3e38, 3.4e38, -1e38], False)]:
            record(f"qdq_{tag}_{dn}", "QuantizeAndDequantizeV4",
                   [("input", F64(v).astype(dt)), ("input_min", dt(0)), ("input_max", dt(0))],
                   {"signed_input": signed})
        record(f"qdq_given_zero_range_{dn}", "QuantizeAndDequantizeV4",
               [("input", F64([1, np.nan, -2, 3, np.inf, -np.inf]).astype(dt)),
                ("input_min", dt(0)), ("input_max", dt(0))], {"range_given": True})
        record(f"qdq_empty_{dn}", "QuantizeAndDequantizeV4",
               [("input", np.zeros((0, 3), dt)), ("input_min", dt(1)), ("input_max", dt(2))],
               {"range_given": True})
        record(f"qdq_empty_axis_{dn}", "QuantizeAndDequantizeV2",
               [("input", np.zeros((0, 3), dt)), ("input_min", np.zeros(3, dt)),
                ("input_max", np.zeros(3, dt))], {"axis": 1})
        record(f"qdq_fed_{dn}", "QuantizeAndDequantizeV4",
               [("input", F64([[0.1, -0.7], [0.33, 0.9]]).astype(dt), [None, 2]),
                ("input_min", dt(-1), None), ("input_max", dt(1), None)],
               {"range_given": True, "num_bits": 3})
        record(f"v3_fed_bits_{dn}", "QuantizeAndDequantizeV3",
               [("input", F64([0.1, -0.7, 0.33, 0.9]).astype(dt)),
                ("input_min", dt(-1), None), ("input_max", dt(1), None),
                ("num_bits", np.int32(3), None)], {})
    qdq_error_cases()


def qdq_error_cases():
    x = (np.arange(12, dtype=F32).reshape(3, 4) - 5)
    f = F32
    v2, v3, v4, vg = ("QuantizeAndDequantizeV2", "QuantizeAndDequantizeV3",
                      "QuantizeAndDequantizeV4", "QuantizeAndDequantizeV4Grad")
    r = lambda mn, mx, fed=False: [("input_min", mn, None), ("input_max", mx, None)] if fed \
        else [("input_min", mn), ("input_max", mx)]  # noqa: E731
    for op in [v2, v4]:
        e = [
            ("bits_0", [("input", x)] + r(f(-1), f(1)), {"num_bits": 0}),
            ("bits_62_signed", [("input", x)] + r(f(-1), f(1)), {"num_bits": 62}),
            ("bits_62_unsigned", [("input", x)] + r(f(-1), f(1)),
             {"num_bits": 62, "signed_input": False}),
            ("bits_63_unsigned", [("input", x)] + r(f(-1), f(1)),
             {"num_bits": 63, "signed_input": False}),
            ("round_mode", [("input", x)] + r(f(-1), f(1)), {"round_mode": "HALF_DOWN"}),
            ("min_above_max", [("input", x)] + r(f(2), f(1)), {"range_given": True}),
            ("min_above_max_computed", [("input", x)] + r(f(3), f(-3)), {}),
            ("min_nan", [("input", x)] + r(f(np.nan), f(2)), {"range_given": True}),
            ("message_floats", [("input", x)] + r(f(0.1), f(-0.3)), {"range_given": True}),
            ("message_doubles", [("input", x.astype(F64))] + r(F64(1e20), F64(-1 / 3)),
             {"range_given": True}),
            ("axis_given_vectors", [("input", x)] + r(f([-1, -2, -3]), f([1, 2, 3])),
             {"range_given": True, "axis": 0}),
            ("axis_given_vectors_fed", [("input", x, None)] + r(f([-1, -2, -3]), f([1, 2, 3]),
                                                              True),
             {"range_given": True, "axis": 0}),
            ("axis_given_scalars", [("input", x)] + r(f(-1), f(1), True),
             {"range_given": True, "axis": 0}),
            ("axis_given_min_scalar", [("input", x)] + r(f(-1), f([1, 2, 3]), True),
             {"range_given": True, "axis": 0}),
            ("given_vectors", [("input", x)] + r(f([-1]), f([1]), True), {"range_given": True}),
            ("given_max_vector", [("input", x)] + r(f(-1), f([1]), True), {"range_given": True}),
            ("computed_vectors", [("input", x)] + r(f([-1]), f([1]), True), {}),
            ("axis_computed_scalars", [("input", x)] + r(f(-1), f(1), True), {"axis": 0}),
            ("axis_run_rank", [("input", x, None)] + r(f([1, 2]), f([1, 2]), True), {"axis": 2}),
            ("axis_build_rank", [("input", x)] + r(f([1, 2]), f([1, 2])), {"axis": 2}),
            ("axis_below", [("input", x, None)] + r(f([1, 2]), f([1, 2]), True), {"axis": -2}),
            ("axis_below_scalars", [("input", x)] + r(f(1), f(2)), {"axis": -2}),
            ("min_rank_build", [("input", x)] + r(f([1]), f(2)), {}),
            ("max_rank_build", [("input", x)] + r(f(1), f([2])), {}),
            ("axis_min_rank_build", [("input", x)] + r(f(1), f([2])), {"axis": 0}),
            ("axis_dims_build", [("input", x)] + r(f([1, 2]), f([2, 3])), {"axis": 0}),
            ("axis_min_max_differ", [("input", x)] + r(f([1, 2, 3]), f([2, 3])), {"axis": 0}),
            ("scalar_input_axis", [("input", f(1), None)] + r(f([1]), f([2]), True),
             {"axis": 0}),
            ("half", [("input", x.astype(np.float16))] + r(np.float16(-1), np.float16(1)), {}),
            ("bfloat16", [("input", x.astype(tf.bfloat16.as_numpy_dtype))]
             + r(tf.bfloat16.as_numpy_dtype(-1), tf.bfloat16.as_numpy_dtype(1)), {}),
            ("int32", [("input", x.astype(np.int32))] + r(np.int32(-1), np.int32(1)), {}),
            ("dtypes_differ", [("input", x)] + r(F64(-1), f(1)), {}),
        ]
        for tag, ins, attrs in e:
            record(f"{op}_error_{tag}", op, ins, attrs)
    b = lambda n, fed=False: ("num_bits", np.asarray(n, np.int32), None) if fed \
        else ("num_bits", np.asarray(n, np.int32))  # noqa: E731
    for tag, ins, attrs in [
            ("bits_vector", [("input", x)] + r(f(-1), f(1)) + [b([8], True)], {}),
            ("bits_0", [("input", x)] + r(f(-1), f(1)) + [b(0)], {}),
            ("bits_62", [("input", x)] + r(f(-1), f(1)) + [b(62)], {}),
            ("bits_63_unsigned", [("input", x)] + r(f(-1), f(1)) + [b(63)],
             {"signed_input": False}),
            ("axis_run", [("input", x, None)] + r(f([1, 2]), f([1, 2]), True) + [b(8)],
             {"axis": 5}),
            ("axis_below", [("input", x, None)] + r(f([1, 2]), f([1, 2]), True) + [b(8)],
             {"axis": -2}),
            ("axis_below_bits_vector", [("input", x)] + r(f([1]), f([2])) + [b([8])],
             {"axis": -3}),
            ("axis_dims_bits_vector", [("input", x)] + r(f([1]), f([2])) + [b([8])],
             {"axis": 0}),
            ("axis_rank_bits_vector", [("input", x)] + r(f([1]), f([2])) + [b([8])],
             {"axis": 4}),
            ("min_rank_bits_vector", [("input", x)] + r(f([1]), f(2)) + [b([8])], {}),
            ("bits_rank_build", [("input", x)] + r(f(1), f(2)) + [b([8])], {}),
            ("scalar_input_axis", [("input", f(1), None)] + r(f([1]), f([2]), True) + [b(8)],
             {"axis": 0}),
            ("min_size", [("input", x, None)] + r(f([1, 2]), f([1, 2]), True) + [b(8)],
             {"axis": 0}),
            ("max_size", [("input", x, None)] + r(f([1, 2, 3]), f([1, 2]), True) + [b(8)],
             {"axis": 0}),
            ("min_scalar_axis", [("input", x, None)] + r(f(1), f(2), True) + [b(8)],
             {"axis": 0}),
            ("max_scalar_axis", [("input", x, None)] + r(f([1, 2, 3]), f(2), True) + [b(8)],
             {"axis": 0}),
            ("min_size_max_scalar", [("input", x, None)] + r(f([1, 2]), f(2), True) + [b(8)],
             {"axis": 0}),
            ("min_above_max", [("input", x)] + r(f(2), f(1)) + [b(8)], {}),
            ("min_one_element", [("input", x, None)] + r(f([-1]), f(2), True) + [b(8)], {}),
            ("size_build", [("input", x)] + r(f([1, 2]), f([1, 2])) + [b(8)], {"axis": 0}),
            ("half", [("input", x.astype(np.float16))] + r(np.float16(-1), np.float16(1))
             + [b(8)], {})]:
        record(f"{v3}_error_{tag}", v3, ins, attrs)
    g = lambda a, fed=True: ("gradients", a, None) if fed else ("gradients", a)  # noqa: E731
    i = lambda a, fed=True: ("input", a, None) if fed else ("input", a)  # noqa: E731
    for tag, ins, attrs in [
            ("axis_run", [g(x), i(x)] + r(f([1, 2]), f([1, 2]), True), {"axis": 2}),
            ("axis_below", [g(x), i(x)] + r(f([1, 2]), f([1, 2]), True), {"axis": -2}),
            ("sizes_run", [g(x[:2]), i(x)] + r(f(1), f(1), True), {}),
            ("min_rank2", [g(x), i(x)] + r(f([[1]]), f(1), True), {}),
            ("max_rank2", [g(x), i(x)] + r(f(1), f([[1]]), True), {}),
            ("min_size", [g(x), i(x)] + r(f([1, 2]), f([1, 2, 3]), True), {"axis": 0}),
            ("max_size", [g(x), i(x)] + r(f([1, 2, 3]), f([1, 2]), True), {"axis": 0}),
            ("min_scalar_axis", [g(x), i(x)] + r(f(1), f(1), True), {"axis": 0}),
            ("max_scalar_axis", [g(x), i(x)] + r(f([1, 2, 3]), f(1), True), {"axis": 0}),
            ("min_scalar_max_size", [g(x), i(x)] + r(f(1), f([1, 2]), True), {"axis": 0}),
            ("min_vector_no_axis", [g(x), i(x)] + r(f([1]), f(1), True), {}),
            ("max_vector_no_axis", [g(x), i(x)] + r(f(1), f([1]), True), {}),
            ("sizes_build", [g(x[:2], False), i(x, False)] + r(f(1), f(1)), {}),
            ("min_rank_build", [g(x[:2], False), i(x, False)] + r(f([1]), f(1)), {}),
            ("sizes_before_dims", [g(x[:2], False), i(x, False)] + r(f([1, 2]), f([1, 2])),
             {"axis": 0}),
            ("axis_below_build", [g(x[:2], False), i(x, False)] + r(f([1, 2]), f([1, 2])),
             {"axis": -2}),
            ("axis_rank_build", [g(x[:2], False), i(x, False)] + r(f([1, 2]), f([1, 2])),
             {"axis": 3}),
            ("axis_rank_of_gradients", [g(x, False), i(x)] + r(f([1]), f([2])), {"axis": 3}),
            ("axis_rank_of_input_run", [g(x), i(x, False)] + r(f([1]), f([2])), {"axis": 3}),
            ("dims_of_gradients", [("gradients", x, [None, None]), i(x, False)]
             + r(f([1]), f([2])), {"axis": 0}),
            ("half", [g(x.astype(np.float16), False), i(x.astype(np.float16), False)]
             + r(np.float16(-1), np.float16(1)), {})]:
        record(f"{vg}_error_{tag}", vg, ins, attrs)


# ---------------------------------------------------------------------------------------------
# The tf.quantization functions: names, attributes and values.

def api(name, fn, build, feeds=None):
    g = tf.Graph()
    case = {"name": name, "fn": fn}
    with g.as_default():
        try:
            y = build()
        except (ValueError, TypeError) as e:
            case["error"] = {"stage": "build", "code": 3, "message": str(e)}
            API.append(case)
            return
        ys = list(y) if isinstance(y, (tuple, list)) else [y]
        case["nodes"] = [t.name for t in ys]
        op = ys[0].op
        case["op"] = op.type
        case["op_inputs"] = [t.name for t in op.inputs]
        case["attrs"] = {k: op.get_attr(k) for k in ["axis", "num_bits", "narrow_range",
                                                       "range_given", "round_mode",
                                                       "signed_input", "min", "max"]
                         if k in op.node_def.attr}
        if isinstance(case["attrs"].get("round_mode"), bytes):
            case["attrs"]["round_mode"] = case["attrs"]["round_mode"].decode()
        with tf.Session() as s:
            case["outputs"] = [encode(v) for v in s.run(ys, feeds or {})]
    API.append(case)


API_INPUT = F32([[-7.0, -0.3, 0.0, 0.26], [1.1, 2.5, 6.2, -2.2]])


def api_cases():
    """The same calls are made in quantization.rs, by case name, on API_INPUT."""
    q = tf.quantization
    x = API_INPUT
    api("args_default", "fake_quant_with_min_max_args",
        lambda: q.fake_quant_with_min_max_args(tf.constant(x)))
    api("args_named", "fake_quant_with_min_max_args",
        lambda: q.fake_quant_with_min_max_args(tf.constant(x), min=-1.0, max=3.0, num_bits=4,
                                               narrow_range=True, name="fq"))
    api("args_gradient", "fake_quant_with_min_max_args_gradient",
        lambda: q.fake_quant_with_min_max_args_gradient(tf.constant(x * 0 + 1), tf.constant(x),
                                                        min=-1.0, max=3.0))
    api("vars_numbers", "fake_quant_with_min_max_vars",
        lambda: q.fake_quant_with_min_max_vars(tf.constant(x), -1.0, 3.0, num_bits=5))
    api("vars_gradient_numbers", "fake_quant_with_min_max_vars_gradient",
        lambda: q.fake_quant_with_min_max_vars_gradient(tf.constant(x * 0 + 2), tf.constant(x),
                                                        -1.0, 3.0, narrow_range=True))
    api("per_channel_numbers", "fake_quant_with_min_max_vars_per_channel",
        lambda: q.fake_quant_with_min_max_vars_per_channel(
            tf.constant(x), [-1.0, 0.0, -0.5, -3.0], [1.0, 2.0, 0.5, 3.0], num_bits=3))
    api("per_channel_gradient_numbers", "fake_quant_with_min_max_vars_per_channel_gradient",
        lambda: q.fake_quant_with_min_max_vars_per_channel_gradient(
            tf.constant(x * 0 + 1), tf.constant(x), [-1.0, 0.0, -0.5, -3.0],
            [1.0, 2.0, 0.5, 3.0], name="pcg"))
    api("qdq_v1_given", "quantize_and_dequantize",
        lambda: q.quantize_and_dequantize(tf.constant(x), -2.0, 2.0, range_given=True,
                                          num_bits=4, round_mode="HALF_UP"))
    api("qdq_v2_axis_last", "quantize_and_dequantize_v2",
        lambda: q.quantize_and_dequantize_v2(tf.constant(x), [0.0] * 4, [0.0] * 4, axis=-1,
                                             signed_input=False, num_bits=3))
    api("qdq_v2_axis0", "quantize_and_dequantize_v2",
        lambda: q.quantize_and_dequantize_v2(tf.constant(x), [0.0] * 2, [0.0] * 2, axis=0,
                                             narrow_range=True, name="q"))
    api("qdq_v2_unknown_rank_negative_axis", "quantize_and_dequantize_v2",
        lambda: q.quantize_and_dequantize_v2(tf.placeholder(tf.float32), 0.0, 0.0, axis=-1))
    api("qdq_v2_float64", "quantize_and_dequantize_v2",
        lambda: q.quantize_and_dequantize_v2(tf.constant(x.astype(F64)), -1.0, 1.0,
                                             range_given=True))


# ---------------------------------------------------------------------------------------------
# tf.gradients through the forward ops.

def grad(name, build, xs_names):
    """`build(g)` returns (y, {name: tensor}); the gradients of y (weighted by a recorded
    grad_ys) with respect to the named tensors, each recorded or None."""
    g = tf.Graph()
    case = {"name": name}
    with g.as_default():
        y, inputs, spec = build()
        case.update(spec)
        dy = RS.randint(-3, 4, y.shape.as_list()).astype(np.dtype(y.dtype.as_numpy_dtype))
        case["grad_ys"] = encode(dy)
        try:
            gr = tf.gradients(y, [inputs[n] for n in xs_names], grad_ys=tf.constant(dy))
        except Exception as e:  # TypeError from a gradient function
            case["error"] = {"stage": "gradients", "message": f"{type(e).__name__}: {e}"}
            GRADS.append(case)
            return
        case["wrt"] = xs_names
        with tf.Session() as s:
            case["grads"] = [None if t is None else encode(s.run(t)) for t in gr]
            case["grad_ops"] = [None if t is None else t.op.type for t in gr]
    GRADS.append(case)


def grad_cases():
    x = RS.uniform(-4, 4, (3, 4)).astype(F32)
    x[0, 0], x[0, 1] = F32(-1.0), F32(2.0)

    def fwd(op, attrs, **ins):
        spec = {"op": op, "attrs": attrs, "inputs": [[k, encode(v)] for k, v in ins.items()]}
        ts = {k: tf.constant(v) for k, v in ins.items()}
        return getattr(tf.raw_ops, op)(**ts, **attrs), ts, spec

    grad("args", lambda: fwd("FakeQuantWithMinMaxArgs", {"min": -1.0, "max": 2.0},
                             inputs=x), ["inputs"])
    grad("vars", lambda: fwd("FakeQuantWithMinMaxVars", {"num_bits": 4, "narrow_range": True},
                             inputs=x, min=F32(-1.5), max=F32(2.5)), ["inputs", "min", "max"])
    grad("per_channel", lambda: fwd("FakeQuantWithMinMaxVarsPerChannel", {},
                                    inputs=x, min=F32([-1, -2, 0, -0.5]),
                                    max=F32([1, 0.5, 3, 0.5])), ["inputs", "min", "max"])
    x4 = RS.uniform(-2, 2, (2, 2, 2, 3)).astype(F32)
    grad("per_channel_4d", lambda: fwd("FakeQuantWithMinMaxVarsPerChannel", {"num_bits": 5},
                                       inputs=x4, min=F32([-1, -0.5, 0]),
                                       max=F32([1, 0.5, 0])), ["inputs", "min", "max"])
    for dt in [F32, F64]:
        dn = np.dtype(dt).name
        xd = x.astype(dt)
        for op in ["QuantizeAndDequantizeV2", "QuantizeAndDequantizeV4"]:
            grad(f"{op}_given_{dn}", lambda: fwd(op, {"range_given": True}, input=xd,
                                                 input_min=dt(-1), input_max=dt(2)),
                 ["input", "input_min", "input_max"])
            grad(f"{op}_computed_{dn}", lambda: fwd(op, {}, input=xd, input_min=dt(0),
                                                    input_max=dt(0)),
                 ["input", "input_min", "input_max"])
            grad(f"{op}_axis_{dn}", lambda: fwd(op, {"axis": 1}, input=xd,
                                                input_min=np.zeros(4, dt),
                                                input_max=np.zeros(4, dt)),
                 ["input", "input_min", "input_max"])
        grad(f"v3_{dn}", lambda: fwd("QuantizeAndDequantizeV3", {}, input=xd,
                                     input_min=dt(-1), input_max=dt(2),
                                     num_bits=np.int32(4)),
             ["input", "input_min", "input_max", "num_bits"])
    # The gradient ops have none; V4Grad's registered gradient fails in TensorFlow 2.21.
    grad("args_gradient_op", lambda: fwd("FakeQuantWithMinMaxArgsGradient", {},
                                         gradients=x, inputs=x), ["gradients", "inputs"])
    grad("vars_gradient_op", lambda: (lambda r: (r[0][0], r[1], r[2]))(
        fwd("FakeQuantWithMinMaxVarsGradient", {}, gradients=x, inputs=x, min=F32(-1),
            max=F32(1))), ["gradients", "inputs", "min", "max"])
    grad("v4_grad_op", lambda: (lambda r: (r[0][0], r[1], r[2]))(
        fwd("QuantizeAndDequantizeV4Grad", {}, gradients=x, input=x, input_min=F32(-1),
            input_max=F32(1))), ["gradients", "input"])


fake_quant_cases()
per_channel_cases()
qdq_cases()
api_cases()
grad_cases()
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json"), "w") as f:
    json.dump({"cases": CASES, "api_input": encode(API_INPUT), "api": API, "grads": GRADS}, f, separators=(",", ":"))
print(len(CASES), "cases,", len(API), "api,", len(GRADS), "grads,",
      sum("error" in c for c in CASES), "errors")
