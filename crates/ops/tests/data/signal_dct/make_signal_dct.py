"""Writes expected.json: tf.signal.dct / idct / mfccs_from_log_mel_spectrograms cases from
TensorFlow 2.21 (float32 and float64 inputs, every type/norm combination, n, and errors), and
the gradients of each transform ("grads")."""
import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

rng = np.random.RandomState(7)
cases = []


def run(name, fn, x, **kw):
    g = tf.Graph()
    case = {"name": name, "fn": fn, "dtype": str(x.dtype), "shape": list(x.shape),
            "input": x.ravel().tolist(), "attrs": kw}
    with g.as_default():
        try:
            t = tf.constant(x)
            if fn == "mfcc":
                y = tf.signal.mfccs_from_log_mel_spectrograms(t)
            else:
                y = getattr(tf.signal, fn)(t, **kw)
            with tf.Session() as s:
                out = s.run(y)
            case["out_shape"] = list(out.shape)
            case["output"] = out.ravel().astype(np.float64).tolist()
        except (ValueError, NotImplementedError, tf.errors.OpError) as e:
            case["error"] = {"type": type(e).__name__, "message": str(e)}
    cases.append(case)


for dt in (np.float32, np.float64):
    for shape in ((8,), (3, 5), (2, 2, 16), (1, 2)):
        x = rng.uniform(-2, 2, size=shape).astype(dt)
        for fn in ("dct", "idct"):
            for t in (1, 2, 3, 4):
                for norm in (None, "ortho"):
                    if t == 1 and norm == "ortho":
                        continue
                    run(f"{fn}_t{t}_{norm}_{dt.__name__}_{shape}", fn, x, type=t, norm=norm)
        run(f"dct_n3_{dt.__name__}_{shape}", "dct", x, type=2, n=3)
        run(f"dct_n20_{dt.__name__}_{shape}", "dct", x, type=4, n=20, norm="ortho")
        run(f"idct_n6_{dt.__name__}_{shape}", "idct", x, type=2, n=6, norm="ortho")
        run(f"dct1_n4_{dt.__name__}_{shape}", "dct", x, type=1, n=4)
        run(f"mfcc_{dt.__name__}_{shape}", "mfcc", x)

x = rng.uniform(-1, 1, size=(2, 6)).astype(np.float32)
run("err_axis", "dct", x, axis=0)
run("err_n0", "dct", x, n=0)
run("err_type5", "dct", x, type=5)
run("err_t1_ortho", "dct", x, type=1, norm="ortho")
run("err_norm", "idct", x, norm="bogus")
run("err_t1_len1", "dct", x[:, :1], type=1)
run("err_mfcc_empty", "mfcc", x[:, :0])

# Gradients: tf.gradients of each transform of a [2, 8] input with a fixed grad_ys.
grads = []
for dt in (np.float32, np.float64):
    x = rng.uniform(-2, 2, size=(2, 8)).astype(dt)
    gy = rng.uniform(-1, 1, size=(2, 8)).astype(dt)
    combos = [(fn, t, norm) for fn in ("dct", "idct") for t in (1, 2, 3, 4)
              for norm in (None, "ortho") if not (t == 1 and norm == "ortho")]
    for fn, t, norm in combos + [("mfcc", None, None)]:
        g = tf.Graph()
        with g.as_default():
            xt = tf.constant(x)
            if fn == "mfcc":
                y = tf.signal.mfccs_from_log_mel_spectrograms(xt)
            else:
                y = getattr(tf.signal, fn)(xt, type=t, norm=norm)
            (d,) = tf.gradients(y, [xt], grad_ys=[tf.constant(gy)])
            with tf.Session() as s:
                out = s.run(d)
        grads.append({"name": f"grad_{fn}_t{t}_{norm}_{dt.__name__}", "fn": fn, "dtype": str(x.dtype),
                      "attrs": {"type": t, "norm": norm}, "input": x.ravel().tolist(),
                      "grad_ys": gy.ravel().tolist(), "grad": out.ravel().astype(np.float64).tolist()})

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json"), "w") as f:
    json.dump({"cases": cases, "grads": grads}, f)
print(len(cases), "cases", sum("error" in c for c in cases), "errors")
