"""Records TensorFlow 2.21's image, audio, text and tensor summaries into expected.json.

Run with TensorFlow 2.21:  python make_summary_more.py  (writes expected.json next to this file).

Each case builds one `tf.compat.v1.summary.{image,audio,text,tensor_summary}` in a fresh
tf.compat.v1 graph (optionally under `scope`, a name scope; `repeat` builds it that many times
and keeps the last, to see uniquified tags) from constants and runs it in a Session. Inputs:
`values` with `dtype` and `dims` (float32 values as uint32 bit patterns so NaN and Inf survive
JSON). Recorded: `summary` (the serialized Summary, base64), `node` (the op's name, type and input
names), `collection` (how many SUMMARIES there are), and per value its `tag` and, for images,
`height`, `width`, `colorspace` and `pixels` (the PNG decoded to uint8, base64), plus
`png_equals_encode_png` (whether TensorFlow's summary PNG equals `tf.io.encode_png` of the same
pixels). A failure is `build_error` or `error`, as TensorFlow's message without the node suffix.
Also writes graph.pb, one graph of every new summary, and under `graph` what each outputs.
"""
import base64
import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()


def b64(b):
    return base64.b64encode(b).decode()


def build_message(e):
    m = str(e)
    return m.split(" for '{{node")[0].split("\n\t; NodeDef")[0]


def run_message(e):
    lines = e.message.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("Node: '") and i + 1 < len(lines):
            return lines[i + 1]
    rest = [x for x in lines if x.strip() and x != "Graph execution error:"
            and not x.lstrip().startswith("[[")]
    return rest[0] if rest else lines[0]


def value_of(spec):
    dt = spec["dtype"]
    if dt == "float32":
        return np.array(spec["values"], dtype=np.uint32).view(np.float32).reshape(spec["dims"])
    if dt == "string":
        return np.array([v.encode() for v in spec["values"]], dtype=object).reshape(spec["dims"])
    return np.array(spec["values"], dtype=dt).reshape(spec["dims"])


def f32bits(a):
    return [int(x) for x in np.asarray(a, dtype=np.float32).reshape(-1).view(np.uint32)]


RNG = np.random.RandomState(7)


def img(dtype, dims, gen):
    v = gen(int(np.prod(dims)))
    if dtype == "float32":
        vals = f32bits(v)
    elif dtype == "uint8":
        vals = [int(x) for x in v]
    else:
        vals = [float(x) for x in v]
    return {"dtype": dtype, "dims": dims, "values": vals}


def u8(n):
    return RNG.randint(0, 256, size=n)


def pos(n):
    return RNG.uniform(0, 3, size=n)


def mixed(n):
    return RNG.uniform(-2, 1.5, size=n)


def nonfinite(n):
    v = RNG.uniform(-1, 2, size=n)
    v[1] = np.nan
    v[4] = np.inf
    if n > 9:
        v[9] = -np.inf
    return v


CASES = []
for nm, dt, dims, gen, mo in [
    ("u8_rgb_batch_below_max", "uint8", [2, 3, 2, 3], u8, 3),
    ("u8_gray_max1", "uint8", [2, 2, 3, 1], u8, 1),
    ("u8_rgba_batch_above_max", "uint8", [4, 2, 2, 4], u8, 2),
    ("u8_single_image_max3", "uint8", [1, 2, 2, 3], u8, 3),
    ("f32_positive", "float32", [1, 3, 2, 3], pos, 3),
    ("f32_mixed_sign", "float32", [2, 2, 2, 1], mixed, 3),
    ("f32_nonfinite_rgb", "float32", [1, 2, 3, 3], nonfinite, 1),
    ("f32_nonfinite_gray", "float32", [1, 3, 4, 1], nonfinite, 1),
    ("f32_nonfinite_rgba", "float32", [1, 2, 2, 4], nonfinite, 1),
    ("f32_zeros", "float32", [1, 2, 2, 1], lambda n: np.zeros(n), 1),
    ("f32_tiny", "float32", [1, 2, 2, 1], lambda n: np.full(n, 1e-7), 1),
    ("f64_mixed", "float64", [3, 2, 2, 3], mixed, 2),
    ("f64_positive", "float64", [1, 4, 4, 1], pos, 3),
    ("f32_bigger", "float32", [1, 16, 12, 3], mixed, 3),
]:
    CASES.append({"name": nm, "op": "image", "tag": "img", "tensor": img(dt, dims, gen),
                  "max_outputs": mo})
CASES += [
    {"name": "image_in_scope", "op": "image", "tag": "pics", "scope": "outer",
     "tensor": img("uint8", [1, 2, 2, 1], u8), "max_outputs": 3},
    {"name": "image_repeated_name", "op": "image", "tag": "img", "repeat": 2,
     "tensor": img("uint8", [1, 2, 2, 1], u8), "max_outputs": 1},
    {"name": "image_empty_batch", "op": "image", "tag": "img",
     "tensor": img("float32", [0, 2, 2, 3], pos), "max_outputs": 3},
    {"name": "image_rank3", "op": "image", "tag": "img",
     "tensor": img("uint8", [2, 2, 3], u8), "max_outputs": 3},
    {"name": "image_two_channels", "op": "image", "tag": "img",
     "tensor": img("float32", [1, 2, 2, 2], pos), "max_outputs": 3},
    {"name": "image_zero_height", "op": "image", "tag": "img",
     "tensor": img("uint8", [1, 0, 2, 3], u8), "max_outputs": 3},
]


def aud(dims, gen):
    return {"dtype": "float32", "dims": dims, "values": f32bits(gen(int(np.prod(dims))))}


def wave(n):
    return np.sin(np.arange(n) * 0.3) * 0.8


def loud(n):
    return RNG.uniform(-1.5, 1.5, size=n)


CASES += [
    {"name": "audio_mono", "op": "audio", "tag": "snd", "tensor": aud([2, 5], wave),
     "sample_rate": {"dtype": "float32", "dims": [], "values": f32bits([16000.0])},
     "max_outputs": 3},
    {"name": "audio_stereo_max1", "op": "audio", "tag": "snd", "tensor": aud([2, 4, 2], loud),
     "sample_rate": {"dtype": "float32", "dims": [], "values": f32bits([8000.0])},
     "max_outputs": 1},
    {"name": "audio_batch_above_max", "op": "audio", "tag": "snd", "scope": "a",
     "tensor": aud([4, 3, 1], loud),
     "sample_rate": {"dtype": "float32", "dims": [], "values": f32bits([44100.5])},
     "max_outputs": 2},
    {"name": "audio_fractional_rate", "op": "audio", "tag": "snd", "tensor": aud([1, 3], wave),
     "sample_rate": {"dtype": "float32", "dims": [], "values": f32bits([0.4])},
     "max_outputs": 3},
    {"name": "audio_rate_shape_1", "op": "audio", "tag": "snd", "tensor": aud([1, 3], wave),
     "sample_rate": {"dtype": "float32", "dims": [1], "values": f32bits([22050.0])},
     "max_outputs": 3},
    {"name": "audio_rank1", "op": "audio", "tag": "snd", "tensor": aud([3], wave),
     "sample_rate": {"dtype": "float32", "dims": [], "values": f32bits([8000.0])},
     "max_outputs": 3},
    {"name": "audio_rate_vector", "op": "audio", "tag": "snd", "tensor": aud([1, 3], wave),
     "sample_rate": {"dtype": "float32", "dims": [2], "values": f32bits([1.0, 2.0])},
     "max_outputs": 3},
    {"name": "audio_rate_zero", "op": "audio", "tag": "snd", "tensor": aud([1, 3], wave),
     "sample_rate": {"dtype": "float32", "dims": [], "values": f32bits([0.0])},
     "max_outputs": 3},
    {"name": "text_scalar", "op": "text", "tag": "notes",
     "tensor": {"dtype": "string", "dims": [], "values": ["hello *world*"]}},
    {"name": "text_vector_scoped", "op": "text", "tag": "notes", "scope": "run",
     "tensor": {"dtype": "string", "dims": [3], "values": ["a", "", "c\u00e9"]}},
    {"name": "text_matrix", "op": "text", "tag": "t",
     "tensor": {"dtype": "string", "dims": [2, 2], "values": ["1", "2", "3", "4"]}},
    {"name": "text_not_string", "op": "text", "tag": "t",
     "tensor": {"dtype": "float32", "dims": [1], "values": f32bits([1.0])}},
    {"name": "tensor_f32_described", "op": "tensor_summary", "tag": "w",
     "summary_description": "the weights",
     "tensor": {"dtype": "float32", "dims": [2, 3], "values": f32bits([1, -2, 3.5, 0, 1e-3, 7])}},
    {"name": "tensor_i32_scalar", "op": "tensor_summary", "tag": "step",
     "tensor": {"dtype": "int32", "dims": [], "values": [42]}},
    {"name": "tensor_i64_display", "op": "tensor_summary", "tag": "n", "display_name": "Count",
     "summary_description": "d", "scope": "s",
     "tensor": {"dtype": "int64", "dims": [2], "values": [-5, 1 << 40]}},
    {"name": "tensor_bool", "op": "tensor_summary", "tag": "flags",
     "tensor": {"dtype": "bool", "dims": [3], "values": [True, False, True]}},
    {"name": "tensor_f64", "op": "tensor_summary", "tag": "d",
     "tensor": {"dtype": "float64", "dims": [2], "values": [0.1, -2.5]}},
    {"name": "tensor_string", "op": "tensor_summary", "tag": "s",
     "tensor": {"dtype": "string", "dims": [2], "values": ["x", "yz"]}},
    {"name": "tensor_u8", "op": "tensor_summary", "tag": "b",
     "tensor": {"dtype": "uint8", "dims": [2, 2], "values": [0, 1, 254, 255]}},
]


def build(case):
    t = tf.constant(value_of(case["tensor"]), dtype=case["tensor"]["dtype"])
    op = case["op"]
    if op == "image":
        return tf.summary.image(case["tag"], t, max_outputs=case["max_outputs"])
    if op == "audio":
        r = tf.constant(value_of(case["sample_rate"]), dtype=tf.float32)
        return tf.summary.audio(case["tag"], t, r, max_outputs=case["max_outputs"])
    if op == "text":
        return tf.summary.text(case["tag"], t)
    return tf.summary.tensor_summary(case["tag"], t,
                                     summary_description=case.get("summary_description"),
                                     display_name=case.get("display_name"))


def run_case(case):
    out = {"name": case["name"]}
    g = tf.Graph()
    with g.as_default():
        try:
            s = None
            for _ in range(case.get("repeat", 1)):
                if "scope" in case:
                    with tf.name_scope(case["scope"]):
                        s = build(case)
                else:
                    s = build(case)
        except (ValueError, TypeError, tf.errors.OpError) as e:
            out["build_error"] = build_message(e)
            return out
        out["node"] = {"name": s.op.name, "type": s.op.type,
                       "inputs": [x.op.name for x in s.op.inputs]}
        out["collection"] = len(tf.get_collection(tf.GraphKeys.SUMMARIES))
        with tf.Session() as sess:
            try:
                raw = sess.run(s)
            except tf.errors.OpError as e:
                out["error"] = {"code": type(e).__name__, "message": run_message(e)}
                return out
            summ = tf.Summary.FromString(raw)
            out["summary"] = b64(raw)
            vals = []
            for v in summ.value:
                d = {"tag": v.tag}
                if v.HasField("image"):
                    im = v.image
                    px = sess.run(tf.io.decode_png(im.encoded_image_string,
                                                   channels=im.colorspace))
                    again = sess.run(tf.io.encode_png(px))
                    d.update(height=im.height, width=im.width, colorspace=im.colorspace,
                             pixels=b64(px.tobytes()),
                             png_equals_encode_png=again == im.encoded_image_string)
                vals.append(d)
            out["values"] = vals
    return out


def image_values(sess, raw):
    vals = []
    for v in tf.Summary.FromString(raw).value:
        im = v.image
        px = sess.run(tf.io.decode_png(im.encoded_image_string, channels=im.colorspace))
        vals.append({"tag": v.tag, "height": im.height, "width": im.width,
                     "colorspace": im.colorspace, "pixels": b64(px.tobytes())})
    return vals


def graph_def_case(here):
    """One graph holding every new summary (and merge_all) written as graph.pb, with what each
    summary node outputs: `summary` base64 and, for images, `values` as for the cases."""
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(value_of(img("float32", [2, 3, 2, 3], mixed)))
        tf.summary.image("img", x, max_outputs=1)
        tf.summary.image("img8", tf.constant(value_of(img("uint8", [1, 2, 2, 4], u8))))
        tf.summary.audio("snd", tf.constant(value_of(aud([1, 6, 2], loud))), 8000.0)
        tf.summary.text("txt", tf.constant(["a", "b"]))
        tf.summary.tensor_summary("ten", tf.constant([[1, 2]], tf.int64),
                                  summary_description="desc")
        tf.summary.merge_all()
        names = ["img", "img8", "snd", "txt", "ten"]
        out = {}
        with tf.Session() as sess:
            for n in names:
                raw = sess.run(g.get_tensor_by_name(n + ":0"))
                d = {"summary": b64(raw)}
                if n.startswith("img"):
                    d["values"] = image_values(sess, raw)
                out[n] = d
        with open(os.path.join(here, "graph.pb"), "wb") as f:
            f.write(g.as_graph_def().SerializeToString())
    return out


def main():
    results = [run_case(c) for c in CASES]
    here = os.path.dirname(os.path.abspath(__file__))
    graph = graph_def_case(here)
    with open(os.path.join(here, "expected.json"), "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": CASES, "results": results,
                   "graph": graph}, f, indent=1)


if __name__ == "__main__":
    main()
