"""Records what TensorFlow 2.21 (tf.compat.v1 graph mode, CPU) computes for the fractional
pools of crates/ops/tests/integration/fractional_pool.rs and
crates/train/tests/integration/fractional_pool_grad.rs: FractionalMaxPool and FractionalAvgPool
through tf.nn.fractional_*_pool (v2: seed -> get_seed, deterministic) and
tf.compat.v1.nn.fractional_*_pool (deterministic, seed, seed2 as given), their tf.gradients,
and the FractionalMaxPoolGrad / FractionalAvgPoolGrad ops called directly.

Grappler's constant folding is switched off: folding runs FractionalMaxPoolGrad with its
orig_output buffer forwarded into the scratch maxima, which makes the kernel's check that the
recomputed maxima equal orig_output vacuous; the kernel as a session runs it checks them.

Run: ~/.cache/weir-bench/venv/bin/python make_fractional_pool.py   (writes expected.json)

Each case: {"name", "kind": "pool" | "max_grad" | "avg_grad", ...}. Pool cases have "op"
("max"/"avg"), "api" ("v2"/"v1"), "input" (a tensor), "ratio", "pseudo_random",
"overlapping", "seed" (and for v1 "deterministic", "seed2"), optional "graph_seed", "feed"
(the input is a placeholder of unknown shape) and "random" (seed 0: only the shapes and the
sequences' validity can be compared); then "node" (its name and seed attrs),
"static_shapes", and "outputs" (3 tensors), "error" or "build_error"; some have "grad_ys" and
"grad" (tf.gradients of output 0 with respect to the input). Grad-op cases have "inputs"
(tensors in the op's argument order), "overlapping", and "outputs"/"error"/"build_error".
Tensors are tensor_json.encode's {dtype, shape, values} (floats as bit patterns).
"""
import json
import os
import sys

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402
from tensorflow.core.protobuf import rewriter_config_pb2  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tensor_json import encode  # noqa: E402

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
RNG = np.random.RandomState(20260)
CASES = []


def config():
    c = tf.ConfigProto()
    c.graph_options.rewrite_options.constant_folding = rewriter_config_pb2.RewriterConfig.OFF
    return c


def err(e):
    msg = getattr(e, "message", str(e))
    if "\nNode: '" in msg:
        msg = msg.split("\nNode: '", 1)[1].split("\n", 1)[1]
    msg = msg.split("\n\t [[")[0].split(" for '{{node ")[0]
    return {"type": type(e).__name__, "code": getattr(e, "error_code", 3), "message": msg.strip()}


def shapes(ts):
    return [None if t.shape.rank is None else t.shape.as_list() for t in ts]


def distinct(shape, dtype):
    n = int(np.prod(shape))
    v = RNG.permutation(n).astype(np.float64) - n // 3
    if np.dtype(dtype).kind == "f":
        v = v * 0.37 + RNG.uniform(-0.1, 0.1, n)
    return v.reshape(shape).astype(dtype)


def noisy(shape, dtype):
    if np.dtype(dtype).kind == "f":
        return RNG.normal(0, 3, shape).astype(dtype)
    return RNG.randint(-50, 50, shape).astype(dtype)


def pool_case(name, op, x, ratio, api="v2", pseudo_random=False, overlapping=False, seed=0,
              deterministic=False, seed2=0, graph_seed=None, feed=False, grad=False):
    c = {"name": name, "kind": "pool", "op": op, "api": api, "input": encode(x),
         "ratio": ratio, "pseudo_random": pseudo_random, "overlapping": overlapping,
         "seed": seed, "feed": feed}
    if api == "v1":
        c["deterministic"] = deterministic
        c["seed2"] = seed2
    if graph_seed is not None:
        c["graph_seed"] = graph_seed
    random = (api == "v2" and seed == 0) or (api == "v1" and seed == 0 and seed2 == 0)
    c["random"] = random
    g = tf.Graph()
    with g.as_default():
        if graph_seed is not None:
            tf.set_random_seed(graph_seed)
        if feed:
            v = tf.placeholder(tf.as_dtype(x.dtype))
        else:
            v = tf.constant(x)
        # tf.compat.v1.nn holds the v1 functions: the v2 ones are tf.compat.v2.nn's.
        fn = {("max", "v2"): tf.compat.v2.nn.fractional_max_pool,
              ("avg", "v2"): tf.compat.v2.nn.fractional_avg_pool}
        try:
            if api == "v2":
                outs = fn[(op, api)](v, ratio, pseudo_random=pseudo_random,
                                     overlapping=overlapping, seed=seed)
            else:
                f1 = getattr(tf.compat.v1.nn, "fractional_%s_pool" % op)
                outs = f1(v, ratio, pseudo_random=pseudo_random, overlapping=overlapping,
                          deterministic=deterministic, seed=seed, seed2=seed2)
        except Exception as e:  # noqa: BLE001
            c["build_error"] = err(e)
            CASES.append(c)
            return c
        node = outs[0].op
        c["node"] = {"name": node.name, "seed": node.get_attr("seed"),
                     "seed2": node.get_attr("seed2"),
                     "deterministic": node.get_attr("deterministic"),
                     "pooling_ratio": list(node.get_attr("pooling_ratio"))}
        c["static_shapes"] = shapes(outs)
        fetch = list(outs)
        with tf.Session(config=config()) as s:
            try:
                r = s.run(fetch, {v: x} if feed else None)
            except Exception as e:  # noqa: BLE001
                c["error"] = err(e)
                CASES.append(c)
                return c
            if random:
                c["outputs_shapes"] = [list(t.shape) for t in r]
                c["sequences"] = [r[1].tolist(), r[2].tolist()]
            else:
                c["outputs"] = [encode(t) for t in r]
            if grad and not random:
                gy = noisy(r[0].shape, x.dtype)
                c["grad_ys"] = encode(gy)
                try:
                    d = tf.gradients(outs[0], v, grad_ys=tf.constant(gy))[0]
                    c["grad"] = encode(s.run(d, {v: x} if feed else None))
                except Exception as e:  # noqa: BLE001
                    # _FractionalAvgPoolGrad needs the input's static shape.
                    c["grad_error"] = err(e)
    CASES.append(c)
    return c


def grad_op_case(name, kind, inputs, overlapping=False):
    c = {"name": name, "kind": kind, "inputs": [encode(t) for t in inputs],
         "overlapping": overlapping}
    g = tf.Graph()
    with g.as_default():
        ts = [tf.constant(t) for t in inputs]
        try:
            if kind == "max_grad":
                o = tf.raw_ops.FractionalMaxPoolGrad(
                    orig_input=ts[0], orig_output=ts[1], out_backprop=ts[2],
                    row_pooling_sequence=ts[3], col_pooling_sequence=ts[4],
                    overlapping=overlapping)
            else:
                o = tf.raw_ops.FractionalAvgPoolGrad(
                    orig_input_tensor_shape=ts[0], out_backprop=ts[1],
                    row_pooling_sequence=ts[2], col_pooling_sequence=ts[3],
                    overlapping=overlapping)
        except Exception as e:  # noqa: BLE001
            c["build_error"] = err(e)
            CASES.append(c)
            return
        c["static_shapes"] = shapes([o])
        with tf.Session(config=config()) as s:
            try:
                c["outputs"] = [encode(s.run(o))]
            except Exception as e:  # noqa: BLE001
                c["error"] = err(e)
    CASES.append(c)


f32, f64, i32, i64 = np.float32, np.float64, np.int32, np.int64

# Seeded pools: every dtype, ratio, overlapping and pseudo_random combination on a few shapes.
shapes_list = [(1, 10, 12, 1), (2, 7, 13, 3), (3, 17, 23, 2), (1, 5, 5, 4), (2, 9, 6, 1)]
ratios = [[1.0, 1.5, 1.5, 1.0], [1.0, 2 ** 0.5, 3 ** 0.5, 1.0], [1.0, 1.0, 2.0, 1.0],
          [1.0, 2.5, 1.2, 1.0], [1.0, 13 ** 0.5, 7 ** 0.5, 1.0], [1.0, 1.9, 1.01, 1.0]]
k = 0
for op in ["max", "avg"]:
    for dt in [f32, f64, i32, i64]:
        for pr in [False, True]:
            for ov in [False, True]:
                shp = shapes_list[k % len(shapes_list)]
                ratio = ratios[k % len(ratios)]
                if shp[1] < ratio[1] or shp[2] < ratio[2]:
                    ratio = ratios[0]
                x = distinct(shp, dt) if op == "max" else noisy(shp, dt)
                seed = [7, 341261001, 1, 12345, 99][k % 5]
                grad = dt in (f32, f64)
                pool_case("%s_%s_pr%d_ov%d" % (op, np.dtype(dt).name, pr, ov), op, x, ratio,
                          pseudo_random=pr, overlapping=ov, seed=seed, grad=grad)
                k += 1

# v1 with explicit seeds and deterministic; graph seeds through v2's get_seed.
x = distinct((2, 11, 14, 2), f32)
for op in ["max", "avg"]:
    pool_case(op + "_v1_seeds", op, x, [1.0, 1.44, 1.73, 1.0], api="v1", deterministic=True,
              seed=3, seed2=4, pseudo_random=False, grad=True)
    pool_case(op + "_v1_seeds_pseudo_overlap", op, x, [1.0, 1.44, 1.73, 1.0], api="v1",
              deterministic=True, seed=87654321, seed2=123456, pseudo_random=True,
              overlapping=True)
    pool_case(op + "_v1_seed2_only", op, x, [1.0, 2.0, 1.5, 1.0], api="v1", deterministic=True,
              seed=0, seed2=5)
    pool_case(op + "_graph_seed", op, x, [1.0, 1.6, 1.3, 1.0], seed=11, graph_seed=42,
              grad=True)
    pool_case(op + "_large_seed", op, x, [1.0, 1.3, 1.3, 1.0], seed=2 ** 40 + 5)
    pool_case(op + "_ratio_1", op, x, [1.0, 1.0, 1.0, 1.0], seed=5)
    pool_case(op + "_ratio_equal_dim", op, x, [1.0, 11.0, 14.0, 1.0], seed=5,
              overlapping=True)
    pool_case(op + "_fed", op, x, [1.0, 1.5, 1.7, 1.0], seed=9, feed=True, grad=True)
    pool_case(op + "_v1_fed", op, x, [1.0, 1.5, 1.7, 1.0], api="v1", deterministic=True, seed=9,
              seed2=10, feed=True)
    # Random (seed 0) pools: properties only.
    pool_case(op + "_random", op, x, [1.0, 1.5, 1.7, 1.0])
    pool_case(op + "_random_pseudo", op, x, [1.0, 1.5, 1.7, 1.0], pseudo_random=True)
    pool_case(op + "_v1_random_deterministic", op, x, [1.0, 1.5, 1.7, 1.0], api="v1",
              deterministic=True)

# Ties: integers from a small range, max gradient picks the first maximum.
xt = RNG.randint(0, 3, (2, 9, 10, 2)).astype(f64)
pool_case("max_ties_f64", "max", xt, [1.0, 1.5, 1.5, 1.0], seed=31, grad=True)
pool_case("max_ties_overlap_f64", "max", xt, [1.0, 1.5, 1.5, 1.0], seed=31, overlapping=True,
          grad=True)
pool_case("max_ties_pseudo_overlap_f32", "max", xt.astype(f32), [1.0, 1.7, 1.4, 1.0], seed=32,
          overlapping=True, pseudo_random=True, grad=True)
pool_case("avg_int_truncates", "avg", RNG.randint(-9, 9, (1, 7, 7, 2)).astype(i32),
          [1.0, 1.5, 1.5, 1.0], seed=4, overlapping=True)

# Errors.
x = distinct((1, 10, 12, 2), f32)
for op in ["max", "avg"]:
    pool_case(op + "_ratio_below_1", op, x, [1.0, 0.5, 1.5, 1.0], api="v1",
              deterministic=True, seed=1, seed2=2)
    pool_case(op + "_ratio_below_1_fed", op, x, [1.0, 0.5, 1.5, 1.0], api="v1",
              deterministic=True, seed=1, seed2=2, feed=True)
    pool_case(op + "_ratio_batch", op, x, [2.0, 1.5, 1.5, 1.0], api="v1", deterministic=True,
              seed=1, seed2=2)
    pool_case(op + "_ratio_channel", op, x, [1.0, 1.5, 1.5, 2.0], api="v1",
              deterministic=True, seed=1, seed2=2)
    pool_case(op + "_ratio_above_dim", op, x, [1.0, 11.0, 1.5, 1.0], api="v1",
              deterministic=True, seed=1, seed2=2)
    pool_case(op + "_ratio_above_dim_sqrt", op, x, [1.0, 1.5, 12.0001, 1.0], seed=3)
    pool_case(op + "_ratio_above_dim_fed", op, x, [1.0, 1.2, 13.0, 1.0], seed=3, feed=True)
    pool_case(op + "_seed_not_deterministic", op, x, [1.0, 1.5, 1.5, 1.0], api="v1",
              deterministic=False, seed=1, seed2=2)
    pool_case(op + "_ratio_len3", op, x, [1.0, 1.5, 1.5], api="v1", deterministic=True, seed=1,
              seed2=2)
    pool_case(op + "_rank3", op, x[0], [1.0, 1.5, 1.5, 1.0], seed=1)
    pool_case(op + "_rank3_fed", op, x[0], [1.0, 1.5, 1.5, 1.0], seed=1, feed=True)
# tf.nn.fractional_max_pool's own Python checks (v2).
pool_case("max_v2_first_not_1", "max", x, [2.0, 1.5, 1.5, 1.0], seed=1)
pool_case("max_v2_below_1", "max", x, [1.0, 0.5, 1.5, 1.0], seed=1)
pool_case("max_v2_scalar", "max", x, 1.5, seed=1)
pool_case("max_v2_scalar_below_1", "max", x, 0.5, seed=1)
pool_case("max_v2_pair_ones", "max", x, [1.0, 1.0], seed=1)

# The backward ops directly.
xg = distinct((1, 4, 6, 2), f32)
ob = np.arange(12, dtype=np.float32).reshape(1, 2, 3, 2) + 0.5
rows, cols = np.array([0, 2, 4], i64), np.array([0, 2, 4, 6], i64)
ymax = np.zeros((1, 2, 3, 2), f32)
for r in range(2):
    for q in range(3):
        ymax[0, r, q] = xg[0, rows[r]:rows[r + 1], cols[q]:cols[q + 1]].max(axis=(0, 1))
grad_op_case("max_grad_direct", "max_grad", [xg, ymax, ob, rows, cols])
ymax_ov = np.zeros((1, 2, 3, 2), f32)
for r in range(2):
    for q in range(3):
        ymax_ov[0, r, q] = xg[0, rows[r]:min(rows[r + 1] + 1, 4),
                              cols[q]:min(cols[q + 1] + 1, 6)].max(axis=(0, 1))
grad_op_case("max_grad_direct_overlap", "max_grad", [xg, ymax_ov, ob, rows, cols], True)
grad_op_case("max_grad_wrong_output", "max_grad", [xg, ob, ob, rows, cols])
grad_op_case("max_grad_input_rank3", "max_grad", [xg[0], ymax, ob, rows, cols])
grad_op_case("max_grad_output_rank3", "max_grad", [xg, ymax[0], ob, rows, cols])
grad_op_case("max_grad_backprop_rank3", "max_grad", [xg, ymax, ob[0], rows, cols])
grad_op_case("max_grad_empty_input", "max_grad", [np.zeros((1, 0, 6, 2), f32), ymax, ob, rows,
                                                  cols])
grad_op_case("max_grad_empty_output", "max_grad", [xg, np.zeros((1, 0, 3, 2), f32), ob, rows,
                                                   cols])
grad_op_case("max_grad_region_too_big", "max_grad",
             [xg[:, :2, :3], ymax, ob, np.arange(6, dtype=i64), cols])
grad_op_case("max_grad_depth_mismatch", "max_grad", [xg[..., :1], ymax, ob, rows, cols])
xi = RNG.randint(0, 2, (2, 5, 5, 1)).astype(i64)
yi = np.zeros((2, 2, 2, 1), i64)
ri, ci = np.array([0, 2, 5], i64), np.array([0, 3, 5], i64)
for b in range(2):
    for r in range(2):
        for q in range(2):
            yi[b, r, q] = xi[b, ri[r]:ri[r + 1], ci[q]:ci[q + 1]].max(axis=(0, 1))
grad_op_case("max_grad_int64_ties", "max_grad",
             [xi, yi, np.arange(8, dtype=i64).reshape(2, 2, 2, 1) + 1, ri, ci])

shp = np.array([1, 4, 6, 2], i64)
for dt in [f32, f64, i32, i64]:
    g_ = (np.arange(12).reshape(1, 2, 3, 2) * 7 + 1).astype(dt)
    grad_op_case("avg_grad_%s" % np.dtype(dt).name, "avg_grad", [shp, g_, rows, cols])
    grad_op_case("avg_grad_%s_overlap" % np.dtype(dt).name, "avg_grad", [shp, g_, rows, cols],
                 True)
obf = noisy((2, 3, 4, 3), f32)
grad_op_case("avg_grad_bigger_shape", "avg_grad",
             [np.array([3, 7, 9, 4], i64), obf, np.array([0, 3, 5, 7], i64),
              np.array([0, 2, 5, 7, 9], i64)], True)
grad_op_case("avg_grad_seq_past_end", "avg_grad", [shp, ob, np.array([0, 2, 9], i64), cols])
grad_op_case("avg_grad_long_seq", "avg_grad", [shp, ob, np.array([0, 2, 4, 5], i64), cols])
grad_op_case("avg_grad_negative_row", "avg_grad", [shp, ob, np.array([-1, 2, 4], i64), cols])
grad_op_case("avg_grad_negative_col", "avg_grad",
             [shp, ob, rows, np.array([0, -2, 4, 6], i64)])
grad_op_case("avg_grad_short_row", "avg_grad", [shp, ob, np.array([0, 2], i64), cols])
grad_op_case("avg_grad_short_col", "avg_grad", [shp, ob, rows, np.array([0, 2, 4], i64)])
grad_op_case("avg_grad_shape_len3", "avg_grad", [np.array([1, 4, 6], i64), ob, rows, cols])
grad_op_case("avg_grad_backprop_rank3", "avg_grad", [shp, ob[0], rows, cols])
grad_op_case("avg_grad_negative_shape", "avg_grad",
             [np.array([1, -4, 6, 2], i64), ob, rows, cols])

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump(CASES, f, indent=0)
print(len(CASES), "cases")
for c in CASES:
    e = c.get("error") or c.get("build_error") or c.get("grad_error")
    if e:
        print(c["name"], e["type"], e["message"][:150])
