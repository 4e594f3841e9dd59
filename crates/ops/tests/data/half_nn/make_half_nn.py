"""Records what TensorFlow 2.21 (tf.compat.v1, graph mode, CPU) computes in float16 and
bfloat16 for the nn ops, random ops, initializers and training apply ops of
crates/ops/tests/integration/half_nn.rs, and the float16 gradients of
crates/train/tests/integration/half_nn_grad.rs.

Run: ~/.cache/weir-bench/venv/bin/python make_half_nn.py   (writes expected.json beside it)

A tensor is {"dtype", "shape", and "bits" (the 16-bit patterns of a float16/bfloat16 tensor,
so values compare bit for bit) or "values"}. Each case has a "kind":
- "raw": one op, `tf.raw_ops.<op>` with "inputs" (in the op's input order), "attrs"
  ({name: {"i"|"f"|"s"|"b"|"ints"|"type": value}}), then "outputs" or "error" {"type",
  "message"}; "ulp" (when present) is the tolerance in units in the last place, "scaled"
  (when present) a tolerance of `scaled * eps * max|output|` (eps 2^-11 for float16, 2^-8
  for bfloat16) for the kernels TensorFlow accumulates in the half type itself.
- "apply": a training op on variables: "vars" (their initial values; the op's first inputs),
  "inputs" (the rest), "attrs", "resource" (ResourceApply* form), "vars_after".
- "init": an initializer: "init", "args", "seed", "shape", "dtype", "outputs".
- "grad": `tf.gradients` of a named model in float16 with fixed "grad_ys": "inputs",
  "outputs", "grads".
- "train": a float16 softmax regression trained by GradientDescent: "inputs",
  "learning_rate", and per step the "loss" (before the step) and the weights "w", "b" after.
"""

import json
import os

import ml_dtypes
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = []
HALVES = {"float16": (tf.float16, np.float16), "bfloat16": (tf.bfloat16, ml_dtypes.bfloat16)}
RNG = np.random.RandomState(20261127)


def enc(a):
    a = np.asarray(a)
    name = str(a.dtype)
    if name in HALVES:
        return {"dtype": name, "shape": list(a.shape),
                "bits": [int(v) for v in a.view(np.uint16).reshape(-1)]}
    if a.dtype.kind == "f":
        return {"dtype": name, "shape": list(a.shape),
                "values": [float(v) for v in a.reshape(-1)]}
    if a.dtype.kind == "b":
        return {"dtype": "bool", "shape": list(a.shape),
                "values": [bool(v) for v in a.reshape(-1)]}
    return {"dtype": name, "shape": list(a.shape), "values": [int(v) for v in a.reshape(-1)]}


def err_message(e):
    msg = getattr(e, "message", str(e))
    if "\nNode: '" in msg:
        msg = msg.split("\nNode: '", 1)[1].split("\n", 1)[1]
    return msg.split("\n\t [[")[0].split(" for '{{node ")[0].strip()


def half(dt, shape, scale=1.0, lo=None, hi=None):
    np_dt = HALVES[dt][1]
    if lo is not None:
        v = RNG.uniform(lo, hi, size=shape)
    else:
        v = RNG.randn(*shape) * scale
    return v.astype(np.float32).astype(np_dt)


def attr_value(v):
    if isinstance(v, bool):
        return {"b": v}
    if isinstance(v, int):
        return {"i": v}
    if isinstance(v, float):
        return {"f": v}
    if isinstance(v, str):
        return {"s": v}
    if isinstance(v, tf.DType):
        return {"type": v.name}
    return {"ints": list(v)}


def raw(name, op, inputs, attrs=None, ulp=None, scaled=None, compare=None):
    """`inputs`: [(arg name, numpy array)] in the op's order; `attrs`: {name: value}; `ulp`
    or `scaled` (see the module doc) loosen the comparison."""
    attrs = attrs or {}
    c = {"kind": "raw", "name": name, "op": op, "inputs": [enc(a) for _, a in inputs],
         "attrs": {k: attr_value(v) for k, v in attrs.items()}}
    if ulp is not None:
        c["ulp"] = ulp
    if scaled is not None:
        c["scaled"] = scaled
    if compare is not None:
        c["compare_outputs"] = compare
    g = tf.Graph()
    try:
        with g.as_default():
            kw = {n: tf.constant(a) for n, a in inputs}
            kw.update(attrs)
            out = getattr(tf.raw_ops, op)(**kw)
            outs = list(out) if isinstance(out, (list, tuple)) else [out]
            with tf.Session() as s:
                c["outputs"] = [enc(v) for v in s.run(outs)]
    except Exception as e:  # noqa: BLE001 - TensorFlow's error kind is the record
        c["error"] = {"type": type(e).__name__, "message": err_message(e)}
    CASES.append(c)


ACTS = ["Relu", "Relu6", "Elu", "Selu", "Softplus", "Softsign"]
GRADS = [("ReluGrad", "features"), ("Relu6Grad", "features"), ("EluGrad", "outputs"),
         ("SeluGrad", "outputs"), ("SoftplusGrad", "features"), ("SoftsignGrad", "features")]
UNARY_GRADS = ["TanhGrad", "SigmoidGrad", "SqrtGrad", "RsqrtGrad", "ReciprocalGrad"]


def nn_cases(dt):
    np_dt = HALVES[dt][1]
    x = np.concatenate([half(dt, [60], lo=-9.0, hi=9.0),
                        np.array([0.0, -0.0, 6.0, -20.0, 20.0, 1e-3], np.float32).astype(np_dt)])
    x = x.reshape(6, 11)
    for op in ACTS:
        raw(f"{op}_{dt}", op, [("features", x)])
    for alpha in (0.2, 0.3):
        raw(f"LeakyRelu_{alpha}_{dt}", "LeakyRelu", [("features", x)], {"alpha": alpha})
    g = half(dt, [6, 11], scale=2.0)
    for op, second in GRADS:
        v = x if op != "EluGrad" else np.maximum(x.astype(np.float32), -1.0).astype(np_dt)
        raw(f"{op}_{dt}", op, [("gradients", g), (second, v)])
    raw(f"LeakyReluGrad_{dt}", "LeakyReluGrad", [("gradients", g), ("features", x)],
        {"alpha": 0.3})
    y = half(dt, [6, 11], lo=0.05, hi=0.95)
    for op in UNARY_GRADS:
        raw(f"{op}_{dt}", op, [("y", y), ("dy", g)])
    # Softmax rows shorter than Eigen's 8-lane packet, a few packets, and a long row whose
    # unrolled packet order TensorFlow picks by SIMD width (compared within a few ulp).
    for shape in ([5, 3], [4, 7], [6, 10], [4, 33]):
        lg = half(dt, shape, scale=2.0)
        raw(f"Softmax_{shape[1]}_{dt}", "Softmax", [("logits", lg)])
        raw(f"LogSoftmax_{shape[1]}_{dt}", "LogSoftmax", [("logits", lg)])
    lg = half(dt, [3, 300], scale=2.0)
    raw(f"Softmax_300_{dt}", "Softmax", [("logits", lg)], ulp=4)
    raw(f"LogSoftmax_300_{dt}", "LogSoftmax", [("logits", lg)], ulp=4)
    v = half(dt, [4, 3, 5])
    raw(f"BiasAdd_{dt}", "BiasAdd", [("value", v), ("bias", half(dt, [5]))])
    raw(f"BiasAdd_bad_{dt}", "BiasAdd", [("value", v), ("bias", half(dt, [4]))])
    raw(f"BiasAddGrad_{dt}", "BiasAddGrad", [("out_backprop", half(dt, [300, 3]))])
    raw(f"BiasAddGrad_4d_{dt}", "BiasAddGrad", [("out_backprop", half(dt, [2, 3, 4, 5]))])
    for n, c in ((6, 5), (4, 7), (3, 20)):
        lg = half(dt, [n, c], scale=2.0)
        labels = RNG.randint(0, c, size=n).astype(np.int32)
        raw(f"SparseXent_{c}_{dt}", "SparseSoftmaxCrossEntropyWithLogits",
            [("features", lg), ("labels", labels)])
        p = RNG.uniform(0, 1, size=[n, c])
        p = (p / p.sum(1, keepdims=True)).astype(np.float32).astype(np_dt)
        raw(f"Xent_{c}_{dt}", "SoftmaxCrossEntropyWithLogits",
            [("features", lg), ("labels", p)])
    raw(f"SparseXent_bad_label_{dt}", "SparseSoftmaxCrossEntropyWithLogits",
        [("features", half(dt, [2, 3])), ("labels", np.array([0, 3], np.int32))])
    for n in (5, 7, 30):
        raw(f"L2Loss_{n}_{dt}", "L2Loss", [("t", half(dt, [n]))])
    conv = dict(strides=[1, 1, 1, 1], padding="VALID")
    for cin, pad, stride in ((1, "VALID", 1), (3, "SAME", 2), (8, "VALID", 1)):
        at = dict(strides=[1, stride, stride, 1], padding=pad)
        x4 = half(dt, [2, 6, 5, cin])
        f4 = half(dt, [3, 3, cin, 2])
        raw(f"Conv2D_{cin}_{pad}_{dt}", "Conv2D", [("input", x4), ("filter", f4)], at)
        with tf.Graph().as_default(), tf.Session() as s:
            oshape = s.run(tf.nn.conv2d(x4.astype(np.float32), f4.astype(np.float32),
                                        at["strides"], pad)).shape
        dy = half(dt, list(oshape))
        # TensorFlow's half backprops add their partial sums in the half type (errors of a
        # few eps times the largest output); weir's add in f32 and round once.
        raw(f"Conv2DBackpropInput_{cin}_{pad}_{dt}", "Conv2DBackpropInput",
            [("input_sizes", np.array(x4.shape, np.int32)), ("filter", f4),
             ("out_backprop", dy)], at, scaled=4)
        raw(f"Conv2DBackpropFilter_{cin}_{pad}_{dt}", "Conv2DBackpropFilter",
            [("input", x4), ("filter_sizes", np.array(f4.shape, np.int32)),
             ("out_backprop", dy)], at, scaled=4)
    del conv
    x4 = half(dt, [2, 6, 6, 3])
    for pad in ("VALID", "SAME"):
        at = dict(ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding=pad)
        raw(f"MaxPool_{pad}_{dt}", "MaxPool", [("input", x4)], at)
        raw(f"AvgPool_{pad}_{dt}", "AvgPool", [("value", x4)], at)
        with tf.Graph().as_default(), tf.Session() as s:
            y4 = s.run(tf.nn.max_pool(tf.constant(x4), at["ksize"], at["strides"], pad))
        dy = half(dt, list(y4.shape))
        raw(f"MaxPoolGrad_{pad}_{dt}", "MaxPoolGrad",
            [("orig_input", x4), ("orig_output", y4), ("grad", dy)], at)
        raw(f"AvgPoolGrad_{pad}_{dt}", "AvgPoolGrad",
            [("orig_input_shape", np.array(x4.shape, np.int32)), ("grad", dy)], at,
            scaled=4 if dt == "bfloat16" else None)
    # FusedBatchNormV3: half x, float statistics. Inference (all outputs) and training (y).
    x4 = half(dt, [2, 3, 3, 4], scale=2.0)
    stats = [("scale", RNG.uniform(0.5, 1.5, 4).astype(np.float32)),
             ("offset", RNG.randn(4).astype(np.float32)),
             ("mean", RNG.randn(4).astype(np.float32)),
             ("variance", RNG.uniform(0.5, 2.0, 4).astype(np.float32))]
    raw(f"FusedBatchNormV3_infer_{dt}", "FusedBatchNormV3", [("x", x4)] + stats,
        {"is_training": False, "epsilon": 0.001}, compare=3)
    raw(f"FusedBatchNormV3_train_{dt}", "FusedBatchNormV3",
        [("x", x4)] + stats[:2] + [("mean", np.zeros(0, np.float32)),
                                   ("variance", np.zeros(0, np.float32))],
        {"is_training": True, "epsilon": 0.001}, compare=1)
    # TensorFlow's InTopK takes float predictions only.
    raw(f"InTopKV2_{dt}", "InTopKV2",
        [("predictions", half(dt, [2, 3])), ("targets", np.array([0, 1], np.int32)),
         ("k", np.array(1, np.int32))])


def random_cases(dt):
    tf_dt = HALVES[dt][0]
    shape = np.array([3, 5], np.int32)
    for op in ("RandomUniform", "RandomStandardNormal", "TruncatedNormal"):
        for seed, seed2 in ((1, 2), (87654321, 7)):
            raw(f"{op}_{seed}_{dt}", op, [("shape", shape)],
                {"dtype": tf_dt, "seed": seed, "seed2": seed2})
    for op in ("StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal"):
        raw(f"{op}_{dt}", op, [("shape", shape), ("seed", np.array([3, 4], np.int64))],
            {"dtype": tf_dt})


def init_cases():
    dt = "float16"
    specs = [
        ("zeros", [], lambda: tf.zeros_initializer()),
        ("ones", [], lambda: tf.ones_initializer()),
        ("constant", [0.3], lambda: tf.constant_initializer(0.3)),
        ("random_uniform", [-0.5, 2.0],
         lambda: tf.random_uniform_initializer(-0.5, 2.0, seed=5)),
        ("random_normal", [0.5, 2.0],
         lambda: tf.random_normal_initializer(0.5, 2.0, seed=5)),
        ("truncated_normal", [0.5, 2.0],
         lambda: tf.truncated_normal_initializer(0.5, 2.0, seed=5)),
        ("glorot_uniform", [], lambda: tf.glorot_uniform_initializer(seed=5)),
        ("glorot_normal", [], lambda: tf.glorot_normal_initializer(seed=5)),
        ("variance_scaling_fan_in_untruncated", [2.0],
         lambda: tf.variance_scaling_initializer(2.0, "fan_in", "untruncated_normal", seed=5)),
    ]
    for name, args, make in specs:
        shape = [7, 5]
        with tf.Graph().as_default(), tf.Session() as s:
            v = s.run(make()(shape, dtype=tf.float16))
        CASES.append({"kind": "init", "name": f"init_{name}_{dt}", "init": name, "args": args,
                      "seed": 5, "shape": shape, "dtype": dt, "outputs": [enc(v)]})


APPLY = [
    ("ApplyGradientDescent", ["var"], [("alpha", 0.5)], "delta"),
    ("ApplyMomentum", ["var", "accum"], [("lr", 0.1), ("grad", None), ("momentum", 0.9)], None),
    ("ApplyAdagrad", ["var", "accum"], [("lr", 0.1)], "grad"),
    ("ApplyRMSProp", ["var", "ms", "mom"],
     [("lr", 0.01), ("rho", 0.9), ("momentum", 0.5), ("epsilon", 1e-3)], "grad"),
    ("ApplyCenteredRMSProp", ["var", "mg", "ms", "mom"],
     [("lr", 0.01), ("rho", 0.9), ("momentum", 0.5), ("epsilon", 1e-3)], "grad"),
    ("ApplyAdam", ["var", "m", "v"],
     [("beta1_power", 0.9), ("beta2_power", 0.999), ("lr", 0.01), ("beta1", 0.9),
      ("beta2", 0.999), ("epsilon", 1e-3)], "grad"),
    ("ApplyAdadelta", ["var", "accum", "accum_update"],
     [("lr", 1.0), ("rho", 0.95), ("epsilon", 1e-3)], "grad"),
    ("ApplyFtrl", ["var", "accum", "linear"],
     [("grad", None), ("lr", 0.1), ("l1", 0.01), ("l2", 0.02), ("lr_power", -0.5)], None),
]


def apply_cases(dt):
    tf_dt, np_dt = HALVES[dt]
    for op, var_names, scalars, grad_name in APPLY:
        for resource in (False, True):
            for nesterov in ((False, True) if op in ("ApplyMomentum", "ApplyAdam") else (False,)):
                init = [half(dt, [2, 5])]
                init += [half(dt, [2, 5], lo=0.1, hi=1.0) for _ in var_names[1:]]
                if op == "ApplyFtrl":
                    init[2] = half(dt, [2, 5])
                grad = half(dt, [2, 5])
                rest = []
                for n, v in scalars:
                    rest.append((n, grad if v is None else np.array(v, np.float32).astype(np_dt)))
                if grad_name:
                    rest.append((grad_name, grad))
                attrs = {"use_nesterov": True} if nesterov else {}
                name = ("Resource" if resource else "") + op
                g = tf.Graph()
                with g.as_default():
                    vs = [tf.Variable(a, use_resource=resource) for a in init]
                    kw = {n: (v.handle if resource else v) for n, v in zip(var_names, vs)}
                    kw.update({n: tf.constant(a) for n, a in rest})
                    kw.update(attrs)
                    upd = getattr(tf.raw_ops, name)(**kw)
                    with tf.Session() as s:
                        s.run(tf.global_variables_initializer())
                        s.run(upd)
                        after = s.run([v.read_value() if resource else v for v in vs])
                CASES.append({"kind": "apply", "name": f"{name}{'_nesterov' if nesterov else ''}_{dt}",
                              "op": name, "vars": [enc(a) for a in init],
                              "inputs": [enc(a) for _, a in rest],
                              "attrs": {k: attr_value(v) for k, v in attrs.items()},
                              "vars_after": [enc(a) for a in after]})


def grad_cases():
    """float16 gradients of the nn ops alone, and of a small MLP (MatMul + BiasAdd + Relu +
    sparse softmax cross-entropy + sum)."""
    dt, np_dt = tf.float16, np.float16
    x = half("float16", [4, 6])
    w1 = half("float16", [6, 5], scale=0.5)
    b1 = half("float16", [5], scale=0.1)
    w2 = half("float16", [5, 3], scale=0.5)
    b2 = half("float16", [3], scale=0.1)
    labels = np.array([0, 2, 1, 2], np.int32)

    def run(name, build, inputs, wrt=None):
        g = tf.Graph()
        with g.as_default():
            ts = {n: tf.constant(a) for n, a in inputs.items()}
            y = build(ts)
            gy = half("float16", y.shape.as_list(), lo=0.5, hi=1.5)
            names = wrt or [n for n, a in inputs.items() if a.dtype == np_dt]
            grads = tf.gradients(y, [ts[n] for n in names], grad_ys=tf.constant(gy))
            with tf.Session() as s:
                yv, gv = s.run([y, grads])
        CASES.append({"kind": "grad", "name": name, "model": name,
                      "inputs": {n: enc(a) for n, a in inputs.items()},
                      "grad_ys": enc(gy), "outputs": [enc(yv)],
                      "grads": {n: enc(v) for n, v in zip(names, gv)}})

    feats = half("float16", [4, 6], scale=3.0)
    for act in ("relu", "relu6", "elu", "selu", "softplus", "softsign", "leaky_relu",
                "sigmoid", "tanh"):
        fn = getattr(tf.nn, act)
        run(f"grad_{act}", lambda t, fn=fn: fn(t["x"]), {"x": feats})
    run("grad_softmax", lambda t: tf.nn.softmax(t["x"]), {"x": feats})
    run("grad_log_softmax", lambda t: tf.nn.log_softmax(t["x"]), {"x": feats})
    run("grad_bias_add", lambda t: tf.nn.bias_add(t["x"], t["b"]),
        {"x": feats, "b": half("float16", [6])})
    run("grad_l2_loss", lambda t: tf.nn.l2_loss(t["x"]), {"x": feats})
    run("grad_sparse_xent",
        lambda t: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=t["labels"],
                                                                  logits=t["x"]),
        {"x": feats, "labels": np.array([0, 5, 2, 3], np.int32)})
    # TensorFlow 1's softmax_cross_entropy_with_logits: no gradient into the labels.
    run("grad_xent",
        lambda t: tf.nn.softmax_cross_entropy_with_logits(labels=t["p"], logits=t["x"]),
        {"x": feats, "p": np.full([4, 6], 1.0 / 6.0, np.float32).astype(np_dt)}, wrt=["x"])
    x4 = half("float16", [1, 5, 5, 2])
    f4 = half("float16", [2, 2, 2, 3])
    run("grad_conv2d", lambda t: tf.nn.conv2d(t["x"], t["f"], [1, 1, 1, 1], "VALID"),
        {"x": x4, "f": f4})
    run("grad_max_pool", lambda t: tf.nn.max_pool(t["x"], [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
        {"x": x4})
    run("grad_avg_pool", lambda t: tf.nn.avg_pool(t["x"], [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
        {"x": x4})

    def mlp(t):
        h = tf.nn.relu(tf.nn.bias_add(tf.matmul(t["x"], t["w1"]), t["b1"]))
        logits = tf.nn.bias_add(tf.matmul(h, t["w2"]), t["b2"])
        return tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=t["labels"], logits=logits))
    run("grad_mlp", mlp, {"x": x, "w1": w1, "b1": b1, "w2": w2, "b2": b2, "labels": labels})


def train_case():
    """A float16 softmax regression trained by GradientDescent on fixed data: the weights
    after each step (crates/train/tests/integration/half_training.rs)."""
    x = half("float16", [8, 4])
    labels = np.array([0, 1, 2, 1, 0, 2, 2, 1], np.int32)
    w0 = half("float16", [4, 3], scale=0.3)
    b0 = half("float16", [3], scale=0.1)
    steps = []
    with tf.Graph().as_default():
        w = tf.Variable(w0, name="w")
        b = tf.Variable(b0, name="b")
        logits = tf.nn.bias_add(tf.matmul(tf.constant(x), w), b)
        loss = tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.constant(labels), logits=logits))
        train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for _ in range(5):
                _, lv = s.run([train, loss])
                wv, bv = s.run([w, b])
                steps.append({"loss": enc(lv), "w": enc(wv), "b": enc(bv)})
    CASES.append({"kind": "train", "name": "softmax_regression_gd_float16",
                  "inputs": {"x": enc(x), "labels": enc(labels), "w": enc(w0), "b": enc(b0)},
                  "learning_rate": 0.05, "steps": steps})


def main():
    for dt in HALVES:
        nn_cases(dt)
        random_cases(dt)
        apply_cases(dt)
    # TensorFlow has no bfloat16 LRN kernel (weir's LRN takes float and double only).
    raw("LRN_bfloat16", "LRN", [("input", half("bfloat16", [1, 2, 2, 6]))])
    init_cases()
    grad_cases()
    train_case()
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": CASES}, f, separators=(",", ":"))
        f.write("\n")
    print(len(CASES), "cases")


if __name__ == "__main__":
    main()
