"""Records TensorFlow 2.21's second-order gradients of the nn ops for
crates/train/tests/integration/nn_second_grad.rs.

Run: ~/.cache/weir-bench/venv/bin/python make_nn_second_grad.py   (writes expected.json beside it)

Case kinds (all in tf.compat.v1 graph mode, on constants):
- "raw": one backward op (`ReluGrad`, `MaxPoolGrad`, `MaxPoolGradGrad`, `FusedBatchNormGradV3`,
  ...) built with tf.raw_ops from "inputs" and "attrs" in float32, float64, float16 and
  bfloat16 where TensorFlow's kernel takes them (batch norm also in NCHW, NDHWC and NCDHW);
  "outputs" are its values, "grads" is tf.gradients(outputs used, inputs, grad_ys) (null where
  TensorFlow returns None) and "grad_types" the op type of each gradient.
- "chain": tf.gradients of tf.gradients through a forward function "fn": the first gradient
  of its output with grad_ys "gy1" (a constant, differentiated too), then the gradient of those
  first gradients with grad_ys "gy2"; "grads2" by input name (gy1 included).
- "hessian": tf.hessians of a small MLP's loss with respect to w1 and b1.
- "error": a raw op whose run (or construction) fails: "error" {"type", "code", "message"}.

A tensor is {"dtype", "shape", "values"} with float16/bfloat16 values as their bit patterns.
"""

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = []
RNG = np.random.RandomState(7)


def enc(a):
    a = np.asarray(a)
    name = str(a.dtype) if a.dtype != tf.bfloat16.as_numpy_dtype else "bfloat16"
    if name in ("float16", "bfloat16"):
        vals = [int(v) for v in a.reshape(-1).view(np.uint16).tolist()]
    elif a.dtype.kind == "f":
        vals = [float(v) for v in a.reshape(-1).tolist()]
    else:
        vals = [int(v) for v in a.reshape(-1).tolist()]
    return {"dtype": name, "shape": list(a.shape), "values": vals}


def np_dtype(dt):
    return tf.as_dtype(dt).as_numpy_dtype


def err_message(e):
    msg = getattr(e, "message", str(e))
    if "\nNode: '" in msg:
        msg = msg.split("\nNode: '", 1)[1].split("\n", 1)[1]
    msg = msg.split("\n\t [[")[0].split(" for '{{node ")[0]
    return msg.strip()


def rand(shape, dt, lo=-2.0, hi=2.0, away_from=None):
    v = RNG.uniform(lo, hi, size=shape)
    if away_from is not None:
        # Keep clear of kinks (relu at 0, relu6 at 6) so that float rounding of the inputs
        # cannot move an element across one.
        for k in away_from:
            v = np.where(np.abs(v - k) < 0.1, v + 0.25, v)
    return v.astype(np_dtype(dt))


def attr_json(attrs):
    out = {}
    for k, v in attrs.items():
        if isinstance(v, bool):
            out[k] = {"type": "bool", "value": v}
        elif isinstance(v, str):
            out[k] = {"type": "str", "value": v}
        elif isinstance(v, float):
            out[k] = {"type": "float", "value": v}
        else:
            out[k] = {"type": "ints", "value": list(v)}
    return out


def raw(name, op, inputs, attrs=None, n_out=1, grad_inputs=None):
    """`inputs`: list of (arg name, numpy array)."""
    attrs = attrs or {}
    g = tf.Graph()
    with g.as_default():
        ts = [tf.constant(v) for _, v in inputs]
        res = getattr(tf.raw_ops, op)(**{k: t for (k, _), t in zip(inputs, ts)}, **attrs)
        outs = list(res)[:n_out] if n_out > 1 else [res]
        gys = [rand(o.shape.as_list(), o.dtype) for o in outs]
        grads = tf.gradients(outs, ts, [tf.constant(v) for v in gys])
        with tf.Session() as s:
            vals = s.run(outs)
            gvals = s.run([x for x in grads if x is not None])
    it = iter(gvals)
    CASES.append({
        "name": name, "kind": "raw", "op": op,
        "inputs": [[k, enc(v)] for k, v in inputs],
        "attrs": attr_json(attrs),
        "outputs": [enc(v) for v in vals],
        "grad_ys": [enc(v) for v in gys],
        "grads": [None if x is None else enc(next(it)) for x in grads],
        "grad_types": [None if x is None else x.op.type for x in grads],
    })


def error(name, op, inputs, attrs):
    g = tf.Graph()
    with g.as_default():
        try:
            ts = [tf.constant(v) for _, v in inputs]
            res = getattr(tf.raw_ops, op)(**{k: t for (k, _), t in zip(inputs, ts)}, **attrs)
            with tf.Session() as s:
                s.run(res)
            raise AssertionError(f"{name}: no error")
        except (tf.errors.OpError, ValueError) as e:
            code = getattr(e, "error_code", 3)
            err = {"type": type(e).__name__, "code": int(code), "message": err_message(e)}
    CASES.append({
        "name": name, "kind": "error", "op": op,
        "inputs": [[k, enc(v)] for k, v in inputs],
        "attrs": attr_json(attrs), "error": err,
    })


FORWARD = {
    "relu": lambda t, a: tf.nn.relu(t["x"]),
    "relu6": lambda t, a: tf.nn.relu6(t["x"]),
    "elu": lambda t, a: tf.nn.elu(t["x"]),
    "leaky_relu": lambda t, a: tf.nn.leaky_relu(t["x"], alpha=a["alpha"]),
    "sigmoid": lambda t, a: tf.sigmoid(t["x"]),
    "tanh": lambda t, a: tf.tanh(t["x"]),
    "sqrt": lambda t, a: tf.sqrt(t["x"]),
    "rsqrt": lambda t, a: tf.math.rsqrt(t["x"]),
    "reciprocal": lambda t, a: tf.math.reciprocal(t["x"]),
    "bias_add": lambda t, a: tf.nn.bias_add(t["x"], t["b"]),
    "max_pool": lambda t, a: tf.nn.max_pool(t["x"], a["ksize"], a["strides"], a["padding"]),
    "fused_batch_norm": lambda t, a: tf.nn.fused_batch_norm(
        t["x"], t["scale"], t["offset"], mean=t.get("mean"), variance=t.get("variance"),
        epsilon=a["epsilon"], is_training=a["is_training"])[0],
}


def chain(name, fn, inputs, attrs=None, wrt=None):
    """Second derivative through `fn`: d/d(inputs, gy1) of sum(gy2 * d(sum(gy1 * y))/dx)."""
    attrs = attrs or {}
    wrt = wrt or [k for k, _ in inputs]
    g = tf.Graph()
    with g.as_default():
        t = {k: tf.constant(v) for k, v in inputs}
        y = FORWARD[fn](t, attrs)
        gy1_v = rand(y.shape.as_list(), y.dtype)
        gy1 = tf.constant(gy1_v)
        g1 = tf.gradients([y], [t[k] for k in wrt], [gy1])
        gy2_v = [rand(x.shape.as_list(), x.dtype) for x in g1]
        xs = [t[k] for k in wrt] + [gy1]
        g2 = tf.gradients(g1, xs, [tf.constant(v) for v in gy2_v])
        with tf.Session() as s:
            yv, g1v = s.run([y, g1])
            g2v = s.run([x for x in g2 if x is not None])
    it = iter(g2v)
    CASES.append({
        "name": name, "kind": "chain", "fn": fn,
        "inputs": [[k, enc(v)] for k, v in inputs], "attrs": attrs, "wrt": wrt,
        "y": enc(yv), "gy1": enc(gy1_v), "g1": [enc(v) for v in g1v],
        "gy2": [enc(v) for v in gy2_v],
        "grads2": {k: (None if x is None else enc(next(it)))
                   for k, x in zip(wrt + ["gy1"], g2)},
    })


def hessian(name, act, dt):
    g = tf.Graph()
    with g.as_default():
        vals = {
            "x": rand([4, 3], dt), "w1": rand([3, 4], dt, -1, 1), "b1": rand([4], dt, -0.5, 0.5),
            "w2": rand([4, 2], dt, -1, 1),
        }
        t = {k: tf.constant(v) for k, v in vals.items()}
        h = tf.nn.relu(tf.nn.bias_add(tf.matmul(t["x"], t["w1"]), t["b1"]))
        out = tf.matmul(h, t["w2"])
        out = tf.tanh(out) if act == "tanh" else tf.sigmoid(out)
        loss = tf.reduce_sum(tf.square(out))
        hs = tf.hessians(loss, [t["w1"], t["b1"]])
        with tf.Session() as s:
            lv, hv = s.run([loss, hs])
    CASES.append({
        "name": name, "kind": "hessian", "act": act,
        "inputs": [[k, enc(v)] for k, v in vals.items()],
        "loss": enc(lv), "hessians": {"w1": enc(hv[0]), "b1": enc(hv[1])},
    })


def main():
    shape = [2, 3, 4]
    kinks = [0.0, 6.0]
    for dt in ["float32", "float64", "float16", "bfloat16"]:
        f = lambda s=shape, lo=-2.0, hi=2.0, away=None: rand(s, dt, lo, hi, away)
        raw(f"relu_grad_{dt}", "ReluGrad", [("gradients", f()), ("features", f(away=kinks))])
        raw(f"relu6_grad_{dt}", "Relu6Grad",
            [("gradients", f()), ("features", f(lo=-3, hi=8, away=kinks))])
        raw(f"elu_grad_{dt}", "EluGrad",
            [("gradients", f()), ("outputs", f(lo=-0.9, hi=2.0, away=[0.0]))])
        raw(f"leaky_relu_grad_{dt}", "LeakyReluGrad",
            [("gradients", f()), ("features", f(away=kinks))], {"alpha": 0.3})
        raw(f"sigmoid_grad_{dt}", "SigmoidGrad", [("y", f(lo=0.05, hi=0.95)), ("dy", f())])
        raw(f"tanh_grad_{dt}", "TanhGrad", [("y", f(lo=-0.95, hi=0.95)), ("dy", f())])
        raw(f"sqrt_grad_{dt}", "SqrtGrad", [("y", f(lo=0.5, hi=2.0)), ("dy", f())])
        raw(f"rsqrt_grad_{dt}", "RsqrtGrad", [("y", f(lo=0.5, hi=2.0)), ("dy", f())])
        raw(f"reciprocal_grad_{dt}", "ReciprocalGrad", [("y", f(lo=0.5, hi=2.0)), ("dy", f())])
        raw(f"bias_add_grad_{dt}", "BiasAddGrad", [("out_backprop", f([2, 3, 5]))])
        if dt in ("float32", "float64"):
            raw(f"bias_add_grad_4d_{dt}", "BiasAddGrad", [("out_backprop", f([2, 2, 3, 4]))])
        # Distinct inputs (a permutation) so that every window has one maximum.
        for pad, ks, st in [("VALID", 2, 2), ("SAME", 3, 2), ("VALID", 2, 1)]:
            x = (RNG.permutation(2 * 5 * 4 * 3).reshape([2, 5, 4, 3]) / 8.0).astype(np_dtype(dt))
            attrs = {"ksize": [1, ks, ks, 1], "strides": [1, st, st, 1], "padding": pad}
            g = tf.Graph()
            with g.as_default(), tf.Session() as s:
                y = s.run(tf.nn.max_pool(tf.constant(x), attrs["ksize"], attrs["strides"], pad))
            tag = f"{pad.lower()}{ks}s{st}_{dt}"
            raw(f"max_pool_grad_{tag}", "MaxPoolGrad",
                [("orig_input", x), ("orig_output", y), ("grad", f(list(y.shape)))], attrs)
            raw(f"max_pool_grad_grad_{tag}", "MaxPoolGradGrad",
                [("orig_input", x), ("orig_output", y), ("grad", f(list(x.shape)))], attrs)
    # Ties: TensorFlow's MaxPoolGrad and MaxPoolGradGrad both take the first maximum.
    x = np.array([[1, 3, 3, 0], [3, 2, 0, 0], [5, 5, 1, 1], [5, 0, 1, 1]], np.float32)
    x = x.reshape([1, 4, 4, 1])
    y = np.array([3, 3, 5, 1], np.float32).reshape([1, 2, 2, 1])
    attrs = {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID"}
    raw("max_pool_grad_grad_ties", "MaxPoolGradGrad",
        [("orig_input", x), ("orig_output", y), ("grad", rand([1, 4, 4, 1], "float32"))], attrs)
    raw("max_pool_grad_grad_int32", "MaxPoolGradGrad",
        [("orig_input", x.astype(np.int32)), ("orig_output", y.astype(np.int32)),
         ("grad", np.arange(16, dtype=np.int32).reshape([1, 4, 4, 1]))], attrs, n_out=1)

    # FusedBatchNormGrad: V1 (float), V2/V3 (float, half), training and inference.
    for version, dts in [("", ["float32"]), ("V2", ["float32", "float16"]),
                         ("V3", ["float32", "float16", "bfloat16"])]:
        for dt in dts:
            for training in [True, False]:
                n, c = [2, 3, 2, 4], 4
                inputs = [("y_backprop", rand(n, dt)), ("x", rand(n, dt)),
                          ("scale", rand([c], "float32", 0.5, 1.5)),
                          ("reserve_space_1", rand([c], "float32", -0.5, 0.5)),
                          ("reserve_space_2", rand([c], "float32", 0.5, 1.5))]
                if version == "V3":
                    inputs.append(("reserve_space_3", rand([c], "float32")))
                if version == "":
                    inputs = [(k, v.astype(np_dtype(dt))) for k, v in inputs]
                raw(f"fused_batch_norm_grad{version.lower()}_{dt}_{'train' if training else 'infer'}",
                    f"FusedBatchNormGrad{version}", inputs,
                    {"epsilon": 0.001, "is_training": training}, n_out=3)

    # Channels-first and 5-D layouts in training (TensorFlow's CPU kernel runs inference in
    # NHWC/NDHWC only).
    for fmt, n in [("NCHW", [2, 4, 3, 2]), ("NDHWC", [2, 2, 1, 3, 4]), ("NCDHW", [2, 4, 2, 1, 3])]:
        c = 4
        inputs = [("y_backprop", rand(n, "float32")), ("x", rand(n, "float32")),
                  ("scale", rand([c], "float32", 0.5, 1.5)),
                  ("reserve_space_1", rand([c], "float32", -0.5, 0.5)),
                  ("reserve_space_2", rand([c], "float32", 0.5, 1.5)),
                  ("reserve_space_3", rand([c], "float32"))]
        raw(f"fused_batch_norm_gradv3_float32_train_{fmt.lower()}", "FusedBatchNormGradV3", inputs,
            {"epsilon": 0.001, "is_training": True, "data_format": fmt}, n_out=3)

    # Through the forward ops: tf.gradients of tf.gradients.
    for dt in ["float32", "float64"]:
        x = rand(shape, dt, away_from=kinks)
        for fn in ["relu", "elu", "sigmoid", "tanh"]:
            chain(f"chain_{fn}_{dt}", fn, [("x", x)])
        chain(f"chain_relu6_{dt}", "relu6", [("x", rand(shape, dt, -3, 8, kinks))])
        chain(f"chain_leaky_relu_{dt}", "leaky_relu", [("x", x)], {"alpha": 0.2})
        pos = rand(shape, dt, 0.5, 2.0)
        for fn in ["sqrt", "rsqrt", "reciprocal"]:
            chain(f"chain_{fn}_{dt}", fn, [("x", pos)])
        chain(f"chain_bias_add_{dt}", "bias_add", [("x", rand([2, 3, 4], dt)), ("b", rand([4], dt))])
        xp = (RNG.permutation(2 * 4 * 4 * 2).reshape([2, 4, 4, 2]) / 8.0).astype(np_dtype(dt))
        chain(f"chain_max_pool_{dt}", "max_pool", [("x", xp)],
              {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID"})
    for training in [True, False]:
        ins = [("x", rand([2, 2, 3, 3], "float32")), ("scale", rand([3], "float32", 0.5, 1.5)),
               ("offset", rand([3], "float32"))]
        if not training:
            ins += [("mean", rand([3], "float32", -0.5, 0.5)),
                    ("variance", rand([3], "float32", 0.5, 1.5))]
        chain(f"chain_fused_batch_norm_{'train' if training else 'infer'}", "fused_batch_norm",
              ins, {"epsilon": 0.001, "is_training": training}, wrt=["x", "scale", "offset"])

    for act in ["tanh", "sigmoid"]:
        for dt in ["float32", "float64"]:
            hessian(f"hessian_mlp_{act}_{dt}", act, dt)

    # MaxPoolGradGrad's errors.
    x = rand([1, 4, 4, 2], "float32")
    base = {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID"}
    y = rand([1, 2, 2, 2], "float32")
    for name, ins, attrs in [
        ("depth_window", [x, rand([1, 2, 2, 1], "float32"), x], {"ksize": [1, 2, 2, 2]}),
        ("batch_stride", [x, rand([1, 3, 3, 2], "float32"), x], {"strides": [2, 1, 1, 1]}),
        ("nchw", [rand([1, 2, 4, 4], "float32"), y, rand([1, 2, 4, 4], "float32")],
         {"data_format": "NCHW", "ksize": [1, 1, 2, 2], "strides": [1, 1, 2, 2]}),
        ("ksize_length", [x, y, x], {"ksize": [1, 2, 2, 1, 1]}),
        ("orig_output_shape", [x, rand([1, 3, 3, 2], "float32"), x], {}),
        ("grad_shape", [x, y, rand([1, 4, 4, 3], "float32")], {}),
        ("input_rank", [rand([4, 4, 2], "float32"), y, x], {}),
    ]:
        a = dict(base)
        a.update(attrs)
        error(f"max_pool_grad_grad_error_{name}", "MaxPoolGradGrad",
              list(zip(["orig_input", "orig_output", "grad"], ins)), a)

    with open(os.path.join(HERE, "expected.json"), "w") as fh:
        json.dump({"cases": CASES}, fh, indent=None, separators=(",", ":"))
    print(len(CASES), "cases")


main()
