"""Writes expected.json beside this file: TensorFlow 2.21's results for the V2 stateless random
ops, the stateful RNG ops and `tf.random.Generator`, read by
crates/ops/tests/integration/random_v2.rs.

Tensors are {"dtype", "shape", "hex"} (little-endian element bytes, so values compare bit for
bit); errors are {"type", "code", "message"} (code: TensorFlow's error code number; Python
ValueErrors get code 3, InvalidArgument, which is how weir reports them).

Case kinds:
  raw       one V2 stateless op, every input fed through a placeholder of unknown shape
  stateful  a state variable and a sequence of stateful ops run on it, with the state after each
  python    a tf.random.stateless_* call, its value and node structure
  generator tf.random.Generator.from_seed and a sequence of method calls
  split     Generator.split, run eagerly (TF 2.21's graph mode cannot build it)
  build     graph-construction (shape function) errors

Run with TensorFlow 2.21:  python make_random_v2.py
"""
import json
import os

import numpy as np
import tensorflow as tf
from tensorflow.python.ops import gen_stateful_random_ops as gs
from tensorflow.python.ops import gen_stateless_random_ops
from tensorflow.python.ops import gen_stateless_random_ops_v2 as g2

HERE = os.path.dirname(os.path.abspath(__file__))
v1 = tf.compat.v1


def spec(a, dtype=None):
    a = np.asarray(a, dtype=dtype)
    name = a.dtype.name if a.dtype.name != "bfloat16" else "bfloat16"
    if str(a.dtype) == "bfloat16":
        name = "bfloat16"
    return {"dtype": name, "shape": list(a.shape), "hex": np.ascontiguousarray(a).tobytes().hex()}


def err_message(e):
    msg = getattr(e, "message", str(e))
    if "\nNode: '" in msg:
        msg = msg.split("\nNode: '", 1)[1].split("\n", 1)[1]
    msg = msg.split("\n\t [[")[0].split(" for '{{node ")[0]
    return msg.strip()


def error_of(e):
    code = getattr(e, "error_code", 3)
    return {"type": type(e).__name__, "code": int(code), "message": err_message(e)}


U64 = np.uint64
DT = {"float16": tf.float16, "bfloat16": tf.bfloat16, "float32": tf.float32,
      "float64": tf.float64, "int32": tf.int32, "int64": tf.int64, "uint32": tf.uint32,
      "uint64": tf.uint64}

# ---------------------------------------------------------------- raw V2 stateless ops
RAW_OPS = {
    "StatelessRandomUniformV2": g2.stateless_random_uniform_v2,
    "StatelessRandomNormalV2": g2.stateless_random_normal_v2,
    "StatelessTruncatedNormalV2": g2.stateless_truncated_normal_v2,
    "StatelessRandomUniformFullIntV2": g2.stateless_random_uniform_full_int_v2,
    "StatelessRandomUniformIntV2": g2.stateless_random_uniform_int_v2,
    "StatelessShuffle": g2.stateless_shuffle,
    "StatelessRandomGetKeyCounter": g2.stateless_random_get_key_counter,
    "StatelessRandomGetKeyCounterAlg": g2.stateless_random_get_key_counter_alg,
    "StatelessRandomGammaV3": g2.stateless_random_gamma_v3,
    "StatelessRandomGammaV2": gen_stateless_random_ops.stateless_random_gamma_v2,
    "StatelessRandomPoisson": gen_stateless_random_ops.stateless_random_poisson,
    "StatelessRandomBinomial": gen_stateless_random_ops.stateless_random_binomial,
}


def run_raw(op, inputs, dtype=None):
    """inputs: list of numpy arrays in the op's input order, all fed."""
    with tf.Graph().as_default():
        phs = [v1.placeholder(tf.as_dtype(a.dtype)) for a in inputs]
        kw = {} if dtype is None else {"dtype": DT[dtype]}
        out = RAW_OPS[op](*phs, **kw)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        with v1.Session() as s:
            try:
                vals = s.run(outs, dict(zip(phs, inputs)))
                return {"outputs": [spec(v) for v in vals]}
            except tf.errors.OpError as e:
                return {"error": error_of(e)}


def raw_cases():
    cases = []
    keys = [[5], [0], [2**64 - 1], [0x0123456789ABCDEF]]
    counters = [[7, 9], [0, 0], [2**64 - 1, 2**64 - 1], [2**32 - 1, 3]]
    shapes = [[3], [2, 5], [7], [], [0], [4, 0, 2]]
    i = 0
    for op in ["StatelessRandomUniformV2", "StatelessRandomNormalV2", "StatelessTruncatedNormalV2"]:
        for dt in ["float16", "bfloat16", "float32", "float64"]:
            for j, shape in enumerate(shapes):
                key = keys[(i + j) % len(keys)]
                counter = counters[(i + 2 * j) % len(counters)]
                alg = [1, 3][(i + j) % 2]
                inputs = [np.array(shape, np.int32 if j % 2 else np.int64),
                          np.array(key, U64), np.array(counter, U64), np.int32(alg)]
                cases.append({"name": f"{op}_{dt}_{j}", "kind": "raw", "op": op, "dtype": dt,
                              "inputs": [spec(a) for a in inputs], **run_raw(op, inputs, dt)})
            i += 1
    for dt in ["int32", "int64", "uint32", "uint64"]:
        for j, shape in enumerate([[5], [3, 3], [0], [1]]):
            inputs = [np.array(shape, np.int32), np.array(keys[j], U64),
                      np.array(counters[j], U64), np.int32(1 + 2 * (j % 2))]
            cases.append({"name": f"full_int_{dt}_{j}", "kind": "raw",
                          "op": "StatelessRandomUniformFullIntV2", "dtype": dt,
                          "inputs": [spec(a) for a in inputs],
                          **run_raw("StatelessRandomUniformFullIntV2", inputs, dt)})
    bounds = {"int32": [(-5, 7), (0, 2**31 - 1), (-2**31, 2**31 - 1), (3, 4)],
              "int64": [(-5, 7), (-2**40, 2**40), (-2**63, 2**63 - 1), (10, 11)]}
    for dt, bs in bounds.items():
        npdt = np.dtype(dt)
        for j, (lo, hi) in enumerate(bs):
            inputs = [np.array([6], np.int32), np.array(keys[j], U64), np.array(counters[j], U64),
                      np.int32(1), np.array(lo, npdt), np.array(hi, npdt)]
            cases.append({"name": f"uniform_int_{dt}_{j}", "kind": "raw",
                          "op": "StatelessRandomUniformIntV2",
                          "inputs": [spec(a) for a in inputs],
                          **run_raw("StatelessRandomUniformIntV2", inputs)})
    # Errors and the empty-output shortcut.
    K, C = np.array([5], U64), np.array([7, 9], U64)
    err = [
        ("alg_0", "StatelessRandomUniformV2", "float32", [[3], K, C, 0]),
        ("alg_2", "StatelessRandomUniformV2", "float32", [[3], K, C, 2]),
        ("alg_4", "StatelessRandomNormalV2", "float32", [[3], K, C, 4]),
        ("alg_neg", "StatelessTruncatedNormalV2", "float64", [[3], K, C, -1]),
        ("alg_2_empty", "StatelessRandomUniformV2", "float32", [[0], K, C, 2]),
        ("alg_5_empty", "StatelessRandomUniformV2", "float32", [[0], K, C, 5]),
        ("alg_vector", "StatelessRandomUniformV2", "float32", [[3], K, C, np.array([1], np.int32)]),
        ("key_2", "StatelessRandomUniformV2", "float32", [[3], np.array([5, 6], U64), C, 1]),
        ("key_scalar", "StatelessRandomNormalV2", "float32", [[3], np.array(5, U64), C, 1]),
        ("key_matrix", "StatelessRandomNormalV2", "float32", [[3], np.array([[5]], U64), C, 1]),
        ("counter_empty", "StatelessRandomUniformV2", "float32", [[3], K, np.array([], U64), 1]),
        ("counter_threefry", "StatelessRandomUniformV2", "float32", [[3], K, np.array([7], U64), 2]),
        ("counter_3", "StatelessRandomUniformV2", "float32", [[3], K, np.array([7, 9, 11], U64), 1]),
        ("counter_matrix", "StatelessRandomUniformV2", "float32", [[3], K, np.array([[7, 9]], U64), 1]),
        ("shape_negative", "StatelessRandomUniformV2", "float32", [[2, -1], K, C, 1]),
        ("shape_matrix", "StatelessRandomUniformV2", "float32", [[[2]], K, C, 1]),
        ("full_int_alg_2", "StatelessRandomUniformFullIntV2", "uint64", [[3], K, C, 2]),
    ]
    for name, op, dt, (shape, key, counter, alg) in err:
        inputs = [np.array(shape, np.int32), key, counter, np.asarray(alg, np.int32)]
        cases.append({"name": name, "kind": "raw", "op": op, "dtype": dt,
                      "inputs": [spec(a) for a in inputs], **run_raw(op, inputs, dt)})
    for name, shape, lo, hi, npdt in [("minval_eq_maxval", [3], 5, 5, np.int32),
                                      ("minval_gt_maxval", [2], 9, -9, np.int64),
                                      ("minval_eq_maxval_empty", [0], 5, 5, np.int32),
                                      ("minval_vector", [2], [1], 5, np.int32),
                                      ("maxval_matrix", [2], 1, [[5]], np.int64)]:
        inputs = [np.array(shape, np.int32), K, C, np.int32(1), np.array(lo, npdt),
                  np.array(hi, npdt)]
        cases.append({"name": name, "kind": "raw", "op": "StatelessRandomUniformIntV2",
                      "inputs": [spec(a) for a in inputs],
                      **run_raw("StatelessRandomUniformIntV2", inputs)})
    # Shuffle.
    values = [np.arange(10), np.arange(12, dtype=np.float32).reshape(4, 3), np.float64(3.5),
              np.array([7], np.int32), np.zeros((0, 2), np.int64), np.array([b"a", b"b", b"c", b"d"]),
              np.arange(300, dtype=np.int16), np.array([True, False, True])]
    for j, v in enumerate(values):
        inputs = [np.asarray(v), np.array(keys[j % 4], U64), np.array(counters[j % 4], U64),
                  np.int32(1 if j % 2 else 3)]
        r = run_raw("StatelessShuffle", inputs)
        if j == 5:
            with tf.Graph().as_default(), v1.Session() as sess:
                ph = [v1.placeholder(tf.string)] + [v1.placeholder(tf.as_dtype(a.dtype))
                                                    for a in inputs[1:]]
                got = sess.run(g2.stateless_shuffle(*ph), dict(zip(ph, inputs)))
            r = {"out_strings": [x.decode() for x in got]}
        cases.append({"name": f"shuffle_{j}", "kind": "raw", "op": "StatelessShuffle",
                      "inputs": [spec(a) for a in inputs] if j != 5 else
                      [None] + [spec(a) for a in inputs[1:]],
                      "strings": [x.decode() for x in v] if j == 5 else None, **r})
    for name, alg in [("shuffle_alg_2", 2), ("shuffle_alg_0", 0)]:
        inputs = [np.arange(4), K, C, np.int32(alg)]
        cases.append({"name": name, "kind": "raw", "op": "StatelessShuffle",
                      "inputs": [spec(a) for a in inputs], **run_raw("StatelessShuffle", inputs)})
    # Key and counter of seeds.
    for j, seed in enumerate([[1, 2], [0, 0], [-1, 7], [2**40, -2**62], [2**31 - 1, -2**31]]):
        for sdt in [np.int32, np.int64]:
            if sdt == np.int32 and any(abs(x) >= 2**31 for x in seed):
                continue
            for op in ["StatelessRandomGetKeyCounter", "StatelessRandomGetKeyCounterAlg"]:
                inputs = [np.array(seed, sdt)]
                cases.append({"name": f"{op}_{j}_{sdt.__name__}", "kind": "raw", "op": op,
                              "inputs": [spec(a) for a in inputs], **run_raw(op, inputs)})
    for seed in [[1, 2, 3], [[1, 2]], 5]:
        inputs = [np.array(seed, np.int64)]
        cases.append({"name": f"get_key_counter_bad_{np.shape(seed)}", "kind": "raw",
                      "op": "StatelessRandomGetKeyCounter", "inputs": [spec(a) for a in inputs],
                      **run_raw("StatelessRandomGetKeyCounter", inputs)})
    with tf.Graph().as_default(), v1.Session() as s:
        cases.append({"name": "get_alg", "kind": "raw", "op": "StatelessRandomGetAlg",
                      "inputs": [], "outputs": [spec(s.run(g2.stateless_random_get_alg()))]})
    return cases


# ---------------------------------------------------------------- stateful ops
def stateful_call(h, call):
    op = call["op"]
    ph = {}

    def fed(name, value, dtype):
        p = v1.placeholder(dtype)
        ph[p] = np.asarray(value, dtype.as_numpy_dtype)
        return p

    alg = fed("alg", call.get("alg", 1), tf.int32 if op == "RngReadAndSkip" else tf.int64)
    if op in ("RngSkip", "RngReadAndSkip"):
        delta = fed("delta", call["delta"], tf.uint64 if op == "RngReadAndSkip" else tf.int64)
        f = gs.rng_skip if op == "RngSkip" else gs.rng_read_and_skip
        return f(h, alg, delta), ph
    if op == "StatefulRandomBinomial":
        shape = fed("shape", call["shape"], tf.int32)
        t = DT[call["T"]]
        n = fed("counts", call["counts"], t)
        p = fed("probs", call["probs"], t)
        return gs.stateful_random_binomial(h, alg, shape, n, p, dtype=DT[call["dtype"]]), ph
    shape = fed("shape", call["shape"], tf.int64)
    if op == "StatefulUniformInt":
        dt = DT[call["dtype"]]
        lo = fed("minval", call["minval"], dt)
        hi = fed("maxval", call["maxval"], dt)
        return gs.stateful_uniform_int(h, alg, shape, lo, hi), ph
    f = {"StatefulUniform": gs.stateful_uniform,
         "StatefulStandardNormalV2": gs.stateful_standard_normal_v2,
         "StatefulTruncatedNormal": gs.stateful_truncated_normal,
         "StatefulUniformFullInt": gs.stateful_uniform_full_int}[op]
    return f(h, alg, shape, dtype=DT[call["dtype"]]), ph


def stateful_case(name, state, calls):
    state = np.asarray(state)
    with tf.Graph().as_default():
        var = tf.Variable(state)
        results = []
        built = [stateful_call(var.handle, c) for c in calls]
        with v1.Session() as s:
            s.run(var.initializer)
            for c, (out, feeds) in zip(calls, built):
                r = {}
                try:
                    v = s.run(out, feeds)
                    r["outputs"] = [] if v is None else [spec(v)]
                except tf.errors.OpError as e:
                    r["error"] = error_of(e)
                r["state"] = spec(s.run(var.value()))
                results.append(r)
    return {"name": name, "kind": "stateful", "state": spec(state), "calls": calls,
            "results": results}


def stateful_cases():
    st = [1234, 0, 0]
    cases = [stateful_case("sequence", st, [
        {"op": "StatefulUniform", "shape": [2, 3], "dtype": "float32"},
        {"op": "StatefulUniform", "shape": [5], "dtype": "float16", "alg": 3},
        {"op": "StatefulUniform", "shape": [3], "dtype": "bfloat16"},
        {"op": "StatefulUniform", "shape": [3], "dtype": "float64"},
        {"op": "StatefulStandardNormalV2", "shape": [3], "dtype": "float64"},
        {"op": "StatefulStandardNormalV2", "shape": [5], "dtype": "float32"},
        {"op": "StatefulStandardNormalV2", "shape": [2], "dtype": "float16"},
        {"op": "StatefulTruncatedNormal", "shape": [6], "dtype": "float32"},
        {"op": "StatefulTruncatedNormal", "shape": [3], "dtype": "float64"},
        {"op": "StatefulTruncatedNormal", "shape": [3], "dtype": "bfloat16"},
        {"op": "StatefulUniformInt", "shape": [4], "dtype": "int32", "minval": -5, "maxval": 7},
        {"op": "StatefulUniformInt", "shape": [3], "dtype": "int64", "minval": -2**40, "maxval": 2**40},
        {"op": "StatefulUniformFullInt", "shape": [3], "dtype": "int32"},
        {"op": "StatefulUniformFullInt", "shape": [3], "dtype": "int64"},
        {"op": "StatefulUniformFullInt", "shape": [3], "dtype": "uint32"},
        {"op": "StatefulUniformFullInt", "shape": [3], "dtype": "uint64"},
        {"op": "RngSkip", "delta": 3},
        {"op": "RngReadAndSkip", "delta": 2},
        {"op": "StatefulUniform", "shape": [0], "dtype": "float32"},
        {"op": "RngSkip", "delta": -1},
        {"op": "RngReadAndSkip", "delta": 2**60},
        {"op": "StatefulUniform", "shape": [2], "dtype": "float32"},
    ])]
    # TensorFlow's StatefulRandomBinomial loses its state update when the variable's buffer is
    # still shared with its initial value (it writes the buffer it read before copying); an
    # RngSkip of 0 first gives the variable its own buffer.
    cases.append(stateful_case("binomial", st, [
        {"op": "RngSkip", "delta": 0},
        {"op": "StatefulRandomBinomial", "shape": [3, 2], "T": "float64", "dtype": "int64",
         "counts": [5.0, 80.0], "probs": [0.3, 0.6]},
        {"op": "StatefulRandomBinomial", "shape": [4], "T": "float32", "dtype": "float32",
         "counts": 30.0, "probs": 0.5},
        {"op": "StatefulRandomBinomial", "shape": [0, 2], "T": "float64", "dtype": "int32",
         "counts": [5.0, 80.0], "probs": 0.5},
        {"op": "StatefulRandomBinomial", "shape": [2], "T": "float64", "dtype": "int32",
         "counts": 5.0, "probs": 0.5, "alg": 3},
        {"op": "StatefulRandomBinomial", "shape": [2], "T": "float64", "dtype": "int32",
         "counts": 5.0, "probs": 0.5, "alg": 2},
        {"op": "StatefulRandomBinomial", "shape": [2, 3], "T": "float64", "dtype": "int32",
         "counts": [5.0, 6.0], "probs": 0.5},
        {"op": "StatefulStandardNormalV2", "shape": [2], "dtype": "float32"},
    ]))
    cases.append(stateful_case("binomial_short_state", [1, 2], [
        {"op": "StatefulRandomBinomial", "shape": [2], "T": "float64", "dtype": "int32",
         "counts": 5.0, "probs": 0.5},
    ]))
    cases.append(stateful_case("carry", [-1, -1, 7], [
        {"op": "RngReadAndSkip", "delta": 1},
        {"op": "StatefulStandardNormalV2", "shape": [4], "dtype": "float32"},
    ]))
    # (RngReadAndSkip of a longer state overruns its [3] output in TensorFlow: not recorded.)
    cases.append(stateful_case("long_state", [5, 6, 7, 8], [
        {"op": "StatefulUniform", "shape": [2], "dtype": "float32"},
        {"op": "RngSkip", "delta": 1},
    ]))
    cases.append(stateful_case("errors", st, [
        {"op": "StatefulUniform", "shape": [2], "dtype": "float32", "alg": 0},
        {"op": "StatefulUniform", "shape": [2], "dtype": "float32", "alg": 2},
        {"op": "StatefulUniform", "shape": [0], "dtype": "float32", "alg": 2},
        {"op": "StatefulStandardNormalV2", "shape": [2], "dtype": "float32", "alg": 4},
        {"op": "StatefulUniformInt", "shape": [3], "dtype": "int32", "minval": 5, "maxval": 5},
        {"op": "StatefulUniformInt", "shape": [0], "dtype": "int64", "minval": 5, "maxval": 1},
        {"op": "RngSkip", "delta": 3, "alg": 2},
        {"op": "RngSkip", "delta": 3, "alg": 9},
        {"op": "RngReadAndSkip", "delta": 3, "alg": 2},
        {"op": "RngReadAndSkip", "delta": 3, "alg": 0},
        {"op": "RngReadAndSkip", "delta": 3, "alg": 3},
        {"op": "StatefulUniform", "shape": [2, -3], "dtype": "float32"},
    ]))
    cases.append(stateful_case("short_state", [1, 2], [
        {"op": "StatefulUniform", "shape": [2], "dtype": "float32"},
        {"op": "RngReadAndSkip", "delta": 1},
        {"op": "RngSkip", "delta": 1, "alg": 0},
    ]))
    cases.append(stateful_case("int32_state", np.array([1, 2, 3], np.int32), [
        {"op": "StatefulUniform", "shape": [2], "dtype": "float32"},
        {"op": "RngReadAndSkip", "delta": 1, "alg": 2},
    ]))
    cases.append(stateful_case("matrix_state", [[1, 2, 3]], [
        {"op": "RngSkip", "delta": 1},
    ]))
    return cases


# ---------------------------------------------------------------- Python-level stateless calls
def graph_nodes(g, skip=()):
    return [[n.name, n.op, list(n.input)] for n in g.as_graph_def().node
            if not any(n.name.startswith(p) for p in skip)]


def python_case(name, build, **info):
    with tf.Graph().as_default() as g:
        try:
            out = build()
        except (ValueError, TypeError) as e:
            return {"name": name, "kind": "python", **info, "build_error": error_of(e)}
        with v1.Session() as s:
            try:
                r = {"outputs": [spec(s.run(out))]}
            except tf.errors.OpError as e:
                r = {"error": error_of(e)}
        return {"name": name, "kind": "python", **info, "nodes": graph_nodes(g),
                "result_name": out.name, **r}


def python_cases():
    cases = []
    R = tf.random
    for j, (shape, seed) in enumerate([([2, 3], [1, 2]), ([5], [-7, 2**40]), ([], [3, 4]),
                                       ([0, 2], [1, 1])]):
        for dt in ["float16", "bfloat16", "float32", "float64"]:
            cases.append(python_case(
                f"stateless_uniform_{dt}_{j}",
                lambda: R.stateless_uniform(shape, seed, minval=-2, maxval=3, dtype=DT[dt]),
                fn="uniform", shape=shape, seed=seed, dtype=dt, minval=-2, maxval=3))
            cases.append(python_case(
                f"stateless_normal_{dt}_{j}",
                lambda: R.stateless_normal(shape, seed, mean=1, stddev=2, dtype=DT[dt]),
                fn="normal", shape=shape, seed=seed, dtype=dt, mean=1, stddev=2))
            cases.append(python_case(
                f"stateless_truncated_normal_{dt}_{j}",
                lambda: R.stateless_truncated_normal(shape, seed, dtype=DT[dt]),
                fn="truncated_normal", shape=shape, seed=seed, dtype=dt))
        for dt in ["int32", "int64"]:
            cases.append(python_case(
                f"stateless_uniform_{dt}_{j}",
                lambda: R.stateless_uniform(shape, seed, minval=-3, maxval=1000, dtype=DT[dt]),
                fn="uniform", shape=shape, seed=seed, dtype=dt, minval=-3, maxval=1000))
        for dt in ["int32", "int64", "uint32", "uint64"]:
            cases.append(python_case(
                f"stateless_uniform_full_{dt}_{j}",
                lambda: R.stateless_uniform(shape, seed, minval=None, maxval=None, dtype=DT[dt]),
                fn="uniform", shape=shape, seed=seed, dtype=dt, full_range=True))
    cases.append(python_case("stateless_uniform_default", lambda: R.stateless_uniform([4], [9, 9]),
                             fn="uniform", shape=[4], seed=[9, 9]))
    cases.append(python_case("stateless_uniform_alg_philox",
                             lambda: R.stateless_uniform([4], [9, 9], alg="philox"),
                             fn="uniform", shape=[4], seed=[9, 9], alg="philox", values_only=True))
    cases.append(python_case("stateless_uniform_alg_threefry",
                             lambda: R.stateless_uniform([4], [9, 9], alg="threefry"),
                             fn="uniform", shape=[4], seed=[9, 9], alg="threefry", values_only=True))
    cases.append(python_case("stateless_uniform_int8",
                             lambda: R.stateless_uniform([4], [9, 9], dtype=tf.int8),
                             fn="uniform", shape=[4], seed=[9, 9], dtype="int8"))
    cases.append(python_case("stateless_uniform_int_no_maxval",
                             lambda: R.stateless_uniform([4], [9, 9], dtype=tf.int32),
                             fn="uniform", shape=[4], seed=[9, 9], dtype="int32"))
    cases.append(python_case("stateless_uniform_uint_bounded",
                             lambda: R.stateless_uniform([4], [9, 9], minval=1, maxval=3,
                                                         dtype=tf.uint32),
                             fn="uniform", shape=[4], seed=[9, 9], dtype="uint32", minval=1,
                             maxval=3))
    cases.append(python_case("stateless_uniform_bad_seed",
                             lambda: R.stateless_uniform([4], [1, 2, 3]),
                             fn="uniform", shape=[4], seed=[1, 2, 3]))
    for j, v in enumerate([list(range(10)), [[1.5, 2], [3, 4], [5, 6]], [4]]):
        cases.append(python_case(f"stateless_shuffle_{j}",
                                 lambda: R.experimental.stateless_shuffle(tf.constant(v), [5, j]),
                                 fn="shuffle", value=spec(np.array(v, np.float32 if j == 1 else
                                                                   np.int32)), seed=[5, j]))
    return cases


# ---------------------------------------------------------------- tf.random.Generator
def generator_case(name, seed, alg, calls):
    with tf.Graph().as_default() as g:
        gen = tf.random.Generator.from_seed(seed, alg=alg)
        init_nodes = {n.name for n in g.as_graph_def().node}
        outs = []
        for c in calls:
            m = c["method"]
            dt = DT.get(c.get("dtype"), None)
            kw = {} if dt is None else {"dtype": dt}
            if m == "uniform":
                kw.update({k: c[k] for k in ("minval", "maxval") if k in c})
                outs.append(gen.uniform(c["shape"], **kw))
            elif m == "normal":
                kw.update({k: c[k] for k in ("mean", "stddev") if k in c})
                outs.append(gen.normal(c["shape"], **kw))
            elif m == "truncated_normal":
                kw.update({k: c[k] for k in ("mean", "stddev") if k in c})
                outs.append(gen.truncated_normal(c["shape"], **kw))
            elif m == "uniform_full_int":
                outs.append(gen.uniform_full_int(c["shape"], **kw))
            elif m == "skip":
                outs.append(gen.skip(c["delta"]))
            elif m == "binomial":
                outs.append(gen.binomial(c["shape"], c["counts"], c["probs"], **kw))
            elif m == "make_seeds":
                outs.append(gen.make_seeds(c["count"]))
        nodes = [n for n in graph_nodes(g) if n[0] not in init_nodes]
        results = []
        with v1.Session() as s:
            s.run(gen.state.initializer)
            for o in outs:
                try:
                    r = {"outputs": [spec(s.run(o))]}
                except tf.errors.OpError as e:
                    r = {"error": error_of(e)}
                r["state"] = spec(s.run(gen.state.value()))
                results.append(r)
        return {"name": name, "kind": "generator", "seed": str(seed), "alg": alg, "calls": calls,
                "nodes": nodes, "result_names": [o.name for o in outs],
                "results": results}


def generator_cases():
    calls = [
        {"method": "uniform", "shape": [2, 3]},
        {"method": "normal", "shape": [2], "mean": 1.0, "stddev": 0.5},
        {"method": "skip", "delta": 5},
        {"method": "truncated_normal", "shape": [3], "dtype": "float64"},
        {"method": "uniform", "shape": [4], "minval": -3, "maxval": 9, "dtype": "int64"},
        {"method": "uniform", "shape": [3], "minval": 0, "maxval": 100, "dtype": "int32"},
        {"method": "uniform_full_int", "shape": [2]},
        {"method": "uniform_full_int", "shape": [3], "dtype": "int32"},
        {"method": "uniform", "shape": [], "dtype": "float16"},
        {"method": "normal", "shape": [0]},
        {"method": "make_seeds", "count": 3},
        {"method": "uniform", "shape": [2], "dtype": "float64", "minval": 2.0, "maxval": 4.0},
        {"method": "binomial", "shape": [3, 2], "counts": [10.0, 50.0], "probs": [0.2, 0.9]},
        {"method": "binomial", "shape": [4], "counts": 30.0, "probs": 0.5, "dtype": "float32"},
    ]
    cases = [generator_case("from_seed_1234", 1234, "philox", calls),
             generator_case("from_seed_big_auto", 2**64 + 77, "auto_select", calls[:4]),
             generator_case("from_seed_threefry", 5, "threefry", calls[:1]),
             generator_case("from_seed_words", 0, "philox", [{"method": "skip", "delta": 2**33}])]
    return cases


def split_cases():
    gen = tf.random.Generator.from_seed(99, alg="philox")
    kids = gen.split(3)
    out = {"name": "split", "kind": "split", "seed": 99, "count": 3,
           "parent_state": spec(gen.state.numpy()),
           "child_states": [spec(k.state.numpy()) for k in kids],
           "child_normals": [spec(k.normal([3]).numpy()) for k in kids]}
    return [out]


# ---------------------------------------------------------------- shape-function errors
def build_case(name, fn):
    with tf.Graph().as_default():
        try:
            outs = fn()
            outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
            return {"name": name, "kind": "build",
                    "shapes": [None if o.shape.rank is None else
                               [d for d in o.shape.as_list()] for o in outs]}
        except (ValueError, tf.errors.OpError) as e:
            return {"name": name, "kind": "build", "build_error": error_of(e)}


def build_cases():
    u = tf.uint64
    k1, c2 = (lambda: tf.constant([1], u)), (lambda: tf.constant([1, 2], u))
    return [
        build_case("key_counter_ok", lambda: g2.stateless_random_get_key_counter([1, 2])),
        build_case("key_counter_alg_ok", lambda: g2.stateless_random_get_key_counter_alg([1, 2])),
        build_case("key_counter_seed_3", lambda: g2.stateless_random_get_key_counter([1, 2, 3])),
        build_case("key_counter_seed_matrix", lambda: g2.stateless_random_get_key_counter([[1, 2]])),
        build_case("uniform_ok", lambda: g2.stateless_random_uniform_v2([2, 3], k1(), c2(), 1)),
        build_case("uniform_key_2", lambda: g2.stateless_random_uniform_v2([2, 3], c2(), c2(), 1)),
        build_case("uniform_alg_vector", lambda: g2.stateless_random_uniform_v2([2, 3], k1(), c2(), [1])),
        build_case("uniform_counter_scalar",
                   lambda: g2.stateless_random_uniform_v2([2, 3], k1(), tf.constant(1, u), 1)),
        build_case("uniform_int_minval_vector",
                   lambda: g2.stateless_random_uniform_int_v2([2], k1(), c2(), 1, [1], 2)),
        build_case("shuffle_shape", lambda: g2.stateless_shuffle([[1, 2]], k1(), c2(), 1)),
    ]


def sampler_cases():
    """StatelessRandomGammaV3/V2 and StatelessRandomPoisson."""
    cases = []
    K, C = np.array([5], U64), np.array([7, 9], U64)
    alphas = [(np.array(0.3), [4]), (np.array([0.5, 1.0, 7.5]), [5, 3]),
              (np.array([[2.0, 0.1, 1.5], [30.0, 1.0, 0.9]]), [2, 2, 3]), (np.array([4.0]), [0, 1]),
              (np.array([3.0, 1.0]), [3, 2])]
    for dt in [np.float16, np.float32, np.float64]:
        for j, (a, shape) in enumerate(alphas):
            a = a.astype(dt)
            inputs = [np.array(shape, np.int32), K, np.array([j, 2**63 + j], U64), np.int32(1), a]
            cases.append({"name": f"gamma_v3_{np.dtype(dt).name}_{j}", "kind": "raw",
                          "op": "StatelessRandomGammaV3", "inputs": [spec(x) for x in inputs],
                          **run_raw("StatelessRandomGammaV3", inputs)})
            inputs = [np.array(shape, np.int64), np.array([j, -3], np.int64), a]
            cases.append({"name": f"gamma_v2_{np.dtype(dt).name}_{j}", "kind": "raw",
                          "op": "StatelessRandomGammaV2", "inputs": [spec(x) for x in inputs],
                          **run_raw("StatelessRandomGammaV2", inputs)})
    for name, shape, a, alg in [("gamma_v3_bad_shape", [3, 2], [1.0, 2.0, 3.0], 1),
                                ("gamma_v3_alg_2", [3], [1.0, 2.0, 3.0], 2),
                                ("gamma_v3_no_alpha", [2, 0], np.zeros(0), 1),
                                ("gamma_v3_no_alpha_nonempty", [2], np.zeros(0), 1)]:
        inputs = [np.array(shape, np.int32), K, C, np.int32(alg), np.array(a, np.float32)]
        cases.append({"name": name, "kind": "raw", "op": "StatelessRandomGammaV3",
                      "inputs": [spec(x) for x in inputs],
                      **run_raw("StatelessRandomGammaV3", inputs)})
    lams = [(np.array([2.5, 0.5, 30.0]), [4, 3]), (np.array(12.0), [5]), (np.array([[1.0], [100.0]]), [2, 2, 1])]
    for out_dt in ["float16", "float32", "float64", "int32", "int64"]:
        for j, (lam, shape) in enumerate(lams):
            for lam_dt in ([np.float32, np.int64] if j == 0 else [np.float64]):
                inputs = [np.array(shape, np.int32), np.array([j + 1, 9], np.int32),
                          lam.astype(lam_dt)]
                cases.append({"name": f"poisson_{out_dt}_{j}_{np.dtype(lam_dt).name}",
                              "kind": "raw", "op": "StatelessRandomPoisson", "dtype": out_dt,
                              "inputs": [spec(x) for x in inputs],
                              **run_raw("StatelessRandomPoisson", inputs, out_dt)})
    inputs = [np.array([3, 2], np.int32), np.array([1, 2], np.int32), np.array([1.0, 2.0, 3.0], np.float32)]
    cases.append({"name": "poisson_bad_shape", "kind": "raw", "op": "StatelessRandomPoisson",
                  "dtype": "float32", "inputs": [spec(x) for x in inputs],
                  **run_raw("StatelessRandomPoisson", inputs, "float32")})
    inputs = [np.array([3], np.int32), np.array([1, 2, 3], np.int32), np.array(1.0, np.float32)]
    cases.append({"name": "poisson_bad_seed", "kind": "raw", "op": "StatelessRandomPoisson",
                  "dtype": "float32", "inputs": [spec(x) for x in inputs],
                  **run_raw("StatelessRandomPoisson", inputs, "float32")})
    # Binomial: inversion (n * p < 10), BTRS, p > 0.5 mirrored, degenerate p, broadcasting.
    params = [(np.array([3.0, 20.0, 50.0]), np.array(0.3), [4, 3]),
              (np.array([[10.0], [100.0]]), np.array([0.2, 0.7, 0.95]), [5, 2, 3]),
              (np.array(40.0), np.array([0.0, 1.0, 0.5, 0.01]), [2, 4]),
              (np.array([7.0, 200.0]), np.array([0.99, 0.6]), [3, 2])]
    for t in [np.float16, np.float32, np.float64]:
        for o, out_dt in enumerate(["int32", "int64", "float32", "float64", "float16"]):
            for j, (n, p, shape) in enumerate(params):
                if (t != np.float64 or out_dt != "int64") and j != (o + 2) % 4 and j != 1:
                    continue
                inputs = [np.array(shape, np.int32), np.array([j + 3, -1], np.int64),
                          n.astype(t), p.astype(t)]
                cases.append({"name": f"binomial_{np.dtype(t).name}_{out_dt}_{j}", "kind": "raw",
                              "op": "StatelessRandomBinomial", "dtype": out_dt,
                              "inputs": [spec(x) for x in inputs],
                              **run_raw("StatelessRandomBinomial", inputs, out_dt)})
    for name, shape, n, p in [("binomial_incompatible", [2, 3], [1.0, 2.0], [0.5, 0.5, 0.5]),
                              ("binomial_bad_shape", [3, 2], [1.0, 2.0, 3.0], 0.5),
                              ("binomial_empty", [0, 3], [1.0, 2.0, 3.0], 0.5)]:
        inputs = [np.array(shape, np.int32), np.array([1, 2], np.int64),
                  np.array(n, np.float64), np.array(p, np.float64)]
        cases.append({"name": name, "kind": "raw", "op": "StatelessRandomBinomial",
                      "dtype": "int64", "inputs": [spec(x) for x in inputs],
                      **run_raw("StatelessRandomBinomial", inputs, "int64")})
    return cases


def main():
    cases = raw_cases() + sampler_cases() + stateful_cases() + python_cases() + build_cases()
    cases += generator_cases()
    cases += split_cases()
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(cases, f, indent=1)
    print(len(cases), "cases")


if __name__ == "__main__":
    main()
