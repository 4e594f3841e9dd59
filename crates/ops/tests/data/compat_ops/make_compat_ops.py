"""Records TensorFlow 2.21's results for live ops that older or newer graphs hold beside the
ones weir had: CheckNumericsV2, InvGrad, InTopK (k as an attr), Gather (V1), ToBool,
VariableShape and MaxPoolGradGradV2 (ksize and strides as inputs). Writes expected.json: per
case the op, its inputs and attrs, and TensorFlow's outputs or error."""
import json
import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tensor_json import encode as encode_numeric  # noqa: E402

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
CASES = []


def encode(v):
    a = np.asarray(v)
    if a.dtype.kind in "OS":
        return {"dtype": "string", "shape": list(a.shape),
                "values": [x.decode() for x in a.reshape(-1)]}
    return encode_numeric(a)


def dtype_of(v):
    a = np.asarray(v)
    return tf.string if a.dtype.kind in "OS" else tf.as_dtype(a.dtype)


def err_message(e):
    msg = e.message
    if "\nNode: '" in msg:
        msg = msg.split("\nNode: '", 1)[1].split("\n", 1)[1]
    msg = msg.split("\n\t [[")[0].split(" for '{{node ")[0]
    if msg.startswith("Graph execution error:"):
        msg = msg[len("Graph execution error:"):]
    return msg.strip()


def case(name, op, inputs, attrs, build):
    """`build(placeholders)` makes the op from placeholders fed with `inputs`."""
    g = tf.Graph()
    rec = {"name": name, "op": op, "inputs": [encode(v) for v in inputs], "attrs": attrs}
    with g.as_default():
        phs = [tf.placeholder(dtype_of(v), np.asarray(v).shape)
               for v in inputs]
        try:
            out = build(*phs)
        except (ValueError, TypeError, tf.errors.OpError) as e:
            rec["build_error"] = str(e).split("\n")[0]
            CASES.append(rec)
            return
        outs = out if isinstance(out, (list, tuple)) else [out]
        with tf.Session(graph=g) as s:
            try:
                vals = s.run(list(outs), dict(zip(phs, inputs)))
                rec["outputs"] = [encode(v) for v in vals]
            except tf.errors.OpError as e:
                rec["error"] = {"type": type(e).__name__, "message": err_message(e)}
    CASES.append(rec)


raw = tf.raw_ops
f32 = np.float32


def main():
    # CheckNumericsV2: which kinds of non-finite values, in its words.
    for label, v in [
        ("finite", [1.0, -2.5]), ("nan", [np.nan, 1.0]), ("pos_inf", [np.inf, 0.0]),
        ("neg_inf", [-np.inf]), ("both_inf", [np.inf, -np.inf]),
        ("neg_inf_nan", [-np.inf, np.nan]), ("all", [np.nan, np.inf, -np.inf, 2.0]),
        ("empty", np.zeros([0], f32)),
    ]:
        for dt in [np.float32, np.float64, np.float16]:
            x = np.asarray(v, dt)
            case(f"check_numerics_v2_{label}_{np.dtype(dt).name}", "CheckNumericsV2", [x],
                 {"message": "where"},
                 lambda t: raw.CheckNumericsV2(tensor=t, message="where"))
    # InvGrad: dy * -y^2, as ReciprocalGrad.
    for dt in [np.float32, np.float64, np.float16]:
        y = np.asarray([0.5, -2.0, 3.0, 0.0], dt)
        dy = np.asarray([1.0, 0.25, -1.5, 2.0], dt)
        case(f"inv_grad_{np.dtype(dt).name}", "InvGrad", [y, dy], {},
             lambda a, b: raw.InvGrad(y=a, dy=b))
    y = np.asarray([0.5 + 1j, -2.0], np.complex64)
    case("inv_grad_complex64", "InvGrad", [y, np.asarray([1 - 1j, 2j], np.complex64)], {},
         lambda a, b: raw.InvGrad(y=a, dy=b))
    # InTopK, k an attr: ties, out-of-range targets, non-finite predictions.
    preds = np.asarray([[0.1, 0.3, 0.3, 0.2], [0.5, np.nan, 0.1, 0.2], [1, 2, 3, 4]], f32)
    for k in [0, 1, 2, 4, 5]:
        for tdt in [np.int32, np.int64]:
            t = np.asarray([2, 0, 4], tdt)
            case(f"in_top_k_k{k}_{np.dtype(tdt).name}", "InTopK", [preds, t], {"k": k},
                 lambda p, q, k=k: raw.InTopK(predictions=p, targets=q, k=k))
    case("in_top_k_bad_targets_len", "InTopK", [preds, np.asarray([1, 2], np.int32)], {"k": 1},
         lambda p, q: raw.InTopK(predictions=p, targets=q, k=1))
    case("in_top_k_negative_k", "InTopK", [preds, np.asarray([1, 2, 0], np.int32)], {"k": -1},
         lambda p, q: raw.InTopK(predictions=p, targets=q, k=-1))
    # Gather (V1): axis 0 of params, any rank of indices.
    params = np.arange(12, dtype=f32).reshape(4, 3)
    for idx in [np.asarray([3, 0, 0], np.int32), np.asarray([[1], [2]], np.int64),
                np.asarray(2, np.int32), np.asarray([], np.int32), np.asarray([4], np.int32),
                np.asarray([-1], np.int64)]:
        case(f"gather_{idx.shape}_{idx.dtype.name}_{idx.reshape(-1)[:1]}", "Gather",
             [params, idx], {"validate_indices": True},
             lambda p, i: raw.Gather(params=p, indices=i))
    case("gather_strings_scalar_params", "Gather", [np.asarray(5.0, f32), np.asarray([0], np.int32)],
         {"validate_indices": True}, lambda p, i: raw.Gather(params=p, indices=i))
    # ToBool: a scalar's truth, or whether a tensor has elements.
    for label, v in [("zero", np.float32(0)), ("half", np.float32(0.5)), ("nan", np.float32(np.nan)),
                     ("int", np.int32(-3)), ("int0", np.int64(0)), ("true", np.bool_(True)),
                     ("empty_str", np.asarray(b"", object)), ("str", np.asarray(b"x", object)),
                     ("vec", np.zeros([2], f32)), ("empty_vec", np.zeros([0], np.int32)),
                     ("matrix", np.zeros([1, 1], np.int32))]:
        case(f"to_bool_{label}", "ToBool", [v], {}, lambda t: raw.ToBool(input=t))
    # MaxPoolGradGradV2: MaxPoolGradGrad with ksize and strides as int32 inputs.
    x = np.asarray([[1, 5, 2, 8], [3, 4, 9, 0], [7, 6, 1, 2], [0, 3, 5, 4]], f32).reshape(1, 4, 4, 1)
    for ksize, strides, padding in [([1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
                                    ([1, 3, 3, 1], [1, 1, 1, 1], "SAME"),
                                    ([1, 2, 2, 1], [1, 1, 1, 1], "VALID")]:
        gg = tf.Graph()
        with gg.as_default():
            out = tf.nn.max_pool2d(x, ksize, strides, padding)
            with tf.Session() as s:
                orig_out = s.run(out)
        grad = np.arange(1, x.size + 1, dtype=f32).reshape(x.shape) * 0.5
        case(f"max_pool_grad_grad_v2_{ksize[1]}_{strides[1]}_{padding}", "MaxPoolGradGradV2",
             [x, orig_out, grad, np.asarray(ksize, np.int32), np.asarray(strides, np.int32)],
             {"padding": padding, "data_format": "NHWC"},
             lambda a, b, c, k, st, padding=padding: raw.MaxPoolGradGradV2(
                 orig_input=a, orig_output=b, grad=c, ksize=k, strides=st, padding=padding))
    case("max_pool_grad_grad_v2_bad_ksize", "MaxPoolGradGradV2",
         [x, x, x, np.asarray([1, 2, 2], np.int32), np.asarray([1, 1, 1, 1], np.int32)],
         {"padding": "VALID", "data_format": "NHWC"},
         lambda a, b, c, k, st: raw.MaxPoolGradGradV2(
             orig_input=a, orig_output=b, grad=c, ksize=k, strides=st, padding="VALID"))
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(CASES, f, indent=1)
        f.write("\n")
    print(len(CASES), "cases")


def variable_shape_cases():
    """VariableShape of resource variables (its input is a handle, not a fed value)."""
    out = []
    for shape, out_type in [([2, 3], tf.int32), ([], tf.int64), ([0, 4, 1], tf.int32)]:
        g = tf.Graph()
        with g.as_default():
            v = tf.Variable(tf.zeros(shape), use_resource=True)
            s = raw.VariableShape(input=v.handle, out_type=out_type)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                val = sess.run(s)
        out.append({"name": f"variable_shape_{shape}_{out_type.name}", "op": "VariableShape",
                    "var_shape": shape, "attrs": {"out_type": out_type.name},
                    "outputs": [encode(val)]})
    return out


main()
with open(os.path.join(HERE, "expected.json")) as f:
    all_cases = json.load(f)
all_cases += variable_shape_cases()
with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump(all_cases, f, indent=1)
    f.write("\n")
print(len(all_cases), "cases in all")
