"""Writes expected.json: the values and gradients TensorFlow computes for the nn extras weir
mirrors (embedding_lookup[_sparse], clip_by_norm, global_norm, clip_by_global_norm,
clip_by_average_norm, l2_normalize, conv2d_transpose, depthwise_conv2d, separable_conv2d and
the sparse segment reductions), on fixed small inputs.

Run with TensorFlow 2.x (checked with 2.21):
    python make_nn_extras.py
Each case lists its float inputs (the tensors gradients are taken with respect to), its
integer inputs, its arguments, TensorFlow's outputs, the weights `w` of each output and the
gradients of sum(w * y) with respect to every float input (IndexedSlices made dense).
"""

import json
import math
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

RS = np.random.RandomState(20240601)


def rnd(*shape, dtype=np.float64, lo=-1.5, hi=1.5):
    return RS.uniform(lo, hi, size=shape).astype(dtype)


def fix(v):
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def enc(a):
    a = np.asarray(a)
    return {
        "shape": list(a.shape),
        "dtype": str(a.dtype),
        "data": [fix(v) for v in a.reshape(-1).tolist()],
    }


def weights(shape, dtype):
    n = int(np.prod(shape))
    w = np.array([0.5 + ((i * 7919 + 13) % 1000) / 1000.0 for i in range(n)])
    return w.reshape(shape).astype(dtype)


CASES = []


def case(kind, args, floats, ints, build):
    """floats, ints: lists of (name, array); build(dict of tensors) -> list of outputs."""
    g = tf.Graph()
    with g.as_default():
        t = {}
        for name, v in floats + ints:
            t[name] = tf.constant(v, name=name)
        ys = build(t)
        outs = [y for y in ys if y is not None]
        with tf.Session() as s:
            out_v = s.run(outs)
        w_v = [weights(o.shape, o.dtype) for o in out_v]
        xs = [t[name] for name, _ in floats]
        grads = tf.gradients(outs, xs, grad_ys=[tf.constant(w) for w in w_v])
        fetch = [tf.convert_to_tensor(d) for d in grads if d is not None]
        with tf.Session() as s:
            grad_v = s.run(fetch)
    it = iter(grad_v)
    CASES.append({
        "kind": kind,
        "args": args,
        "floats": [[name, enc(v)] for name, v in floats],
        "ints": [[name, enc(v)] for name, v in ints],
        "outputs": [enc(o) for o in out_v],
        "weights": [enc(w) for w in w_v],
        "grads": [enc(next(it)) if d is not None else None for d in grads],
    })


# --- embedding_lookup -------------------------------------------------------------------------

def embedding(rows, width, ids, strategy="mod", max_norm=None, ids_dtype=np.int32):
    floats = [("p%d" % i, rnd(r, *width)) for i, r in enumerate(rows)]
    ids = np.asarray(ids, dtype=ids_dtype)
    args = {"strategy": strategy, "max_norm": max_norm}
    case("embedding_lookup", args, floats, [("ids", ids)],
         lambda t: [tf.nn.embedding_lookup([t[n] for n, _ in floats], t["ids"],
                                           partition_strategy=strategy, max_norm=max_norm)])


embedding([5], [3], [[0, 4], [2, 2], [1, 3]])
embedding([5], [3], [[0, 4], [2, 2], [1, 3]], max_norm=1.0)
embedding([5], [3], 3, max_norm=0.5)                          # scalar ids: dynamic-rank clip
embedding([6], [], [3, 0, 3])                                  # 1-D params
embedding([6], [], [3, 0, 5], max_norm=0.7)                    # clip over no axes: |x|
embedding([4, 3, 3], [2], [[0, 9, 4], [7, 7, 1], [2, 5, 8]], "mod")
embedding([4, 3, 3], [2], [[0, 9, 4], [7, 7, 1], [2, 5, 8]], "div")
embedding([4, 3], [3], [6, 0, 3, 4, 1, 1], "div", max_norm=1.2)
embedding([3, 3, 3], [2, 2], [8, 0, 3, 4, 6], "div", ids_dtype=np.int64)
embedding([3, 3, 3], [2, 2], [[8, 0], [3, 4]], "mod", max_norm=1.5, ids_dtype=np.int64)
embedding([2, 2], [2], [3, 1, 0, 2], "div")

# --- embedding_lookup_sparse ------------------------------------------------------------------

# Rows 0, 1 and 3 hold ids (row 1 twice the same id), row 2 none; dense shape [4, 3].
SP_INDICES = np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [3, 0], [3, 2]], np.int64)
SP_IDS = np.array([1, 4, 5, 2, 2, 0, 3], np.int64)
SP_SHAPE = np.array([4, 3], np.int64)


def sparse(rows, combiner, weighted, strategy="mod", max_norm=None, ids=SP_IDS,
           indices=SP_INDICES, shape=SP_SHAPE):
    floats = [("p%d" % i, rnd(r, 3)) for i, r in enumerate(rows)]
    if weighted:
        w = rnd(len(ids), lo=0.2, hi=2.0)
        if combiner != "sum":
            w[3] = -w[4]            # row 1's weights sum to 0: div_no_nan gives 0
        floats.append(("sp_weights", w))
    ints = [("sp_indices", indices), ("sp_ids", ids), ("sp_shape", shape)]
    args = {"strategy": strategy, "combiner": combiner, "max_norm": max_norm}

    def build(t):
        sp_ids = tf.SparseTensor(t["sp_indices"], t["sp_ids"], t["sp_shape"])
        sp_w = (tf.SparseTensor(t["sp_indices"], t["sp_weights"], t["sp_shape"])
                if weighted else None)
        params = [t[n] for n, _ in floats if n.startswith("p")]
        return [tf.nn.embedding_lookup_sparse(params, sp_ids, sp_w, partition_strategy=strategy,
                                              combiner=combiner, max_norm=max_norm)]

    case("embedding_lookup_sparse", args, floats, ints, build)


for combiner in ["sum", "mean", "sqrtn"]:
    for weighted in [False, True]:
        sparse([6], combiner, weighted)
sparse([6], "mean", False, max_norm=1.0)
sparse([2, 2, 2], "sqrtn", False, "mod")
sparse([2, 2, 2], "sum", True, "div")
sparse([3, 3], "mean", True, "div", max_norm=0.8)
# The last row without ids: the result stops at row 1.
sparse([6], "sum", False, indices=SP_INDICES[:5], ids=SP_IDS[:5])

# --- sparse segment reductions ----------------------------------------------------------------

for op in ["sum", "mean", "sqrt_n"]:
    for idx_dtype in [np.int32, np.int64]:
        f = {"sum": tf.sparse.segment_sum, "mean": tf.sparse.segment_mean,
             "sqrt_n": tf.sparse.segment_sqrt_n}[op]
        case("sparse_segment", {"op": op}, [("data", rnd(4, 2, 3))],
             [("indices", np.array([0, 2, 1, 2, 3], idx_dtype)),
              ("segment_ids", np.array([0, 0, 1, 3, 3], np.int32))],
             lambda t, f=f: [f(t["data"], t["indices"], t["segment_ids"])])

# --- clipping ---------------------------------------------------------------------------------

T23 = rnd(2, 3)
T23_ZERO_ROW = T23.copy()
T23_ZERO_ROW[1] = 0.0
for t_val, clip, axes in [
        (T23, 1.0, None), (T23, 10.0, None), (T23, 1.0, [1]), (T23, 0.8, [0]),
        (T23_ZERO_ROW, 1.0, [1]), (np.zeros((2, 3)), 1.0, None), (T23, -1.0, [1]),
        (rnd(2, 3, 2), 0.9, [0, 2])]:
    case("clip_by_norm", {"clip_norm": clip, "axes": axes}, [("t", t_val)], [],
         lambda t, clip=clip, axes=axes: [tf.clip_by_norm(t["t"], clip, axes=axes)])
case("clip_by_norm", {"clip_norm": None, "axes": [1]},
     [("t", T23), ("clip", np.array(0.7))], [],
     lambda t: [tf.clip_by_norm(t["t"], t["clip"], axes=[1])])


def glist(n, vals):
    return [("t%d" % i, v) for i, v in enumerate(vals)]


A, B, C = rnd(2, 3), rnd(4), rnd(1, 2, 2)
case("global_norm", {"none": []}, glist(3, [A, B, C]), [],
     lambda t: [tf.linalg.global_norm([t["t0"], t["t1"], t["t2"]])])
case("global_norm", {"none": [1]}, glist(2, [A, C]), [],
     lambda t: [tf.linalg.global_norm([t["t0"], None, t["t1"]])])
for clip in [1.0, 100.0]:
    case("clip_by_global_norm", {"clip_norm": clip, "use_norm": False, "none": [1]},
         glist(2, [A, C]), [],
         lambda t, clip=clip: (lambda r: r[0][:1] + r[0][2:] + [r[1]])(
             tf.clip_by_global_norm([t["t0"], None, t["t1"]], clip)))
case("clip_by_global_norm", {"clip_norm": 0.5, "use_norm": True, "none": []},
     glist(2, [A, B]) + [("use_norm", np.array(2.5))], [],
     lambda t: (lambda r: r[0] + [r[1]])(
         tf.clip_by_global_norm([t["t0"], t["t1"]], 0.5, use_norm=t["use_norm"])))
case("clip_by_global_norm", {"clip_norm": 1.0, "use_norm": False, "none": []},
     glist(2, [np.array([np.inf, 1.0]), B]), [],
     lambda t: (lambda r: r[0] + [r[1]])(tf.clip_by_global_norm([t["t0"], t["t1"]], 1.0)))
case("clip_by_global_norm", {"clip_norm": 1.0, "use_norm": False, "none": []},
     glist(1, [np.zeros(3)]), [],
     lambda t: (lambda r: r[0] + [r[1]])(tf.clip_by_global_norm([t["t0"]], 1.0)))
for clip in [0.2, 5.0]:
    case("clip_by_average_norm", {"clip_norm": clip}, [("t", rnd(2, 3, dtype=np.float32))], [],
         lambda t, clip=clip: [tf.clip_by_average_norm(t["t"], clip)])

# --- l2_normalize -----------------------------------------------------------------------------

for x, axis, eps in [(T23, 1, 1e-12), (T23, 0, 1e-12), (T23, None, 1e-12),
                     (T23_ZERO_ROW, 1, 1e-12), (T23, [0, 1], 1e-12), (T23 * 1e-3, 1, 1e-4),
                     (rnd(2, 2, 3), -1, 1e-12)]:
    case("l2_normalize", {"axis": axis, "epsilon": eps}, [("x", x)], [],
         lambda t, axis=axis, eps=eps: [tf.nn.l2_normalize(t["x"], axis=axis, epsilon=eps)])

# --- convolutions -----------------------------------------------------------------------------

for vshape, fshape, out, strides, padding in [
        ([2, 3, 3, 2], [3, 3, 4, 2], [2, 3, 3, 4], [1, 1, 1, 1], "SAME"),
        ([2, 3, 3, 2], [3, 3, 4, 2], [2, 5, 5, 4], [1, 2, 2, 1], "SAME"),
        ([2, 3, 3, 2], [3, 3, 4, 2], [2, 6, 6, 4], [1, 2, 2, 1], "SAME"),
        ([1, 2, 3, 3], [3, 2, 2, 3], [1, 5, 7, 2], [1, 2, 2, 1], "VALID"),
        ([1, 3, 2, 1], [2, 3, 2, 1], [1, 4, 5, 2], [1, 1, 2, 1], "VALID")]:
    case("conv2d_transpose", {"output_shape": out, "strides": strides, "padding": padding},
         [("value", rnd(*vshape)), ("filter", rnd(*fshape))], [],
         lambda t, out=out, strides=strides, padding=padding: [
             tf.nn.conv2d_transpose(t["value"], t["filter"], out, strides, padding)])

for xshape, fshape, strides, padding, rate in [
        ([2, 5, 5, 3], [3, 3, 3, 2], [1, 1, 1, 1], "SAME", None),
        ([2, 5, 5, 3], [3, 3, 3, 2], [1, 2, 2, 1], "SAME", None),
        ([2, 6, 5, 3], [2, 3, 3, 1], [1, 2, 2, 1], "VALID", None),
        ([1, 4, 4, 2], [2, 2, 2, 3], [1, 1, 1, 1], "SAME", None),
        ([2, 7, 6, 3], [3, 3, 3, 2], [1, 1, 1, 1], "SAME", [2, 2]),
        ([1, 7, 7, 2], [3, 2, 2, 2], [1, 1, 1, 1], "VALID", [2, 2]),
        ([1, 6, 6, 2], [2, 2, 2, 1], [1, 1, 1, 1], "SAME", [2, 1])]:
    case("depthwise_conv2d", {"strides": strides, "padding": padding, "rate": rate},
         [("input", rnd(*xshape)), ("filter", rnd(*fshape))], [],
         lambda t, strides=strides, padding=padding, rate=rate: [
             tf.nn.depthwise_conv2d(t["input"], t["filter"], strides, padding, rate=rate)])

for xshape, dshape, pshape, strides, padding, rate in [
        ([2, 5, 5, 3], [3, 3, 3, 2], [1, 1, 6, 4], [1, 1, 1, 1], "SAME", None),
        ([1, 6, 6, 2], [2, 2, 2, 1], [1, 1, 2, 3], [1, 2, 2, 1], "VALID", None),
        ([1, 6, 6, 2], [3, 3, 2, 2], [1, 1, 4, 2], [1, 1, 1, 1], "SAME", [2, 2])]:
    case("separable_conv2d", {"strides": strides, "padding": padding, "rate": rate},
         [("input", rnd(*xshape)), ("depthwise_filter", rnd(*dshape)),
          ("pointwise_filter", rnd(*pshape))], [],
         lambda t, strides=strides, padding=padding, rate=rate: [
             tf.nn.separable_conv2d(t["input"], t["depthwise_filter"], t["pointwise_filter"],
                                    strides, padding, rate=rate)])

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")
with open(out, "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": CASES}, f, separators=(",", ":"))
print("wrote", len(CASES), "cases to", out)
