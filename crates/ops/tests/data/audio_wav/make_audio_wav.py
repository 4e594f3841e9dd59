"""Records TensorFlow 2.21's DecodeWav and EncodeWav outputs and errors into expected.json.

Run with TensorFlow 2.21:  python make_audio_wav.py  (writes expected.json next to this file).

Each case builds `tf.audio.decode_wav` or `tf.audio.encode_wav` in a tf.compat.v1 graph and
runs it in a Session. Inputs: for "decode", `contents` (base64 strings, `dims` the tensor's
shape) with optional `desired_channels` / `desired_samples`; for "encode", `audio` ({dtype,
dims, values}: float values as float32 bit patterns, or float64 values as Python reprs) and
`sample_rate` ({dtype, dims, values}). An input with `shape` is a placeholder of that static
shape (None for an unknown dim, "unknown" for unknown rank) fed its value; otherwise it is a
constant. Recorded: `static_shapes`, then `outputs` (decode: `audio_shape`, `audio_bits` as the
base64 of the little-endian float32 bytes, `sample_rate`; encode: `contents` base64) or the error
(`build_error` when building failed, `error` when running did) as TensorFlow's canonical code
and message, without TensorFlow's " for '{{node ...}}'" suffix.
"""
import base64
import io
import json
import os
import struct
import wave

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


def source(spec, dtype, value):
    if "shape" not in spec:
        return tf.constant(value, dtype=dtype), {}
    shape = None if spec["shape"] == "unknown" else spec["shape"]
    p = tf.placeholder(dtype, shape)
    return p, {p: value}


def audio_value(spec):
    if spec["dtype"] == "float32":
        bits = np.array(spec["values"], dtype=np.uint32)
        return bits.view(np.float32).reshape(spec["dims"])
    return np.array([float(v) for v in spec["values"]], dtype=spec["dtype"]).reshape(spec["dims"])


def build(c):
    if c["op"] == "decode":
        spec = c["contents"]
        value = np.array([base64.b64decode(s) for s in spec["values"]], dtype=object)
        value = value.reshape(spec["dims"])
        x, feeds = source(spec, tf.string, value)
        kw = {k: c[k] for k in ("desired_channels", "desired_samples") if k in c}
        audio, rate = tf.audio.decode_wav(x, **kw)
        return [audio, rate], feeds
    a, s = c["audio"], c["sample_rate"]
    x, feeds = source(a, a["dtype"], audio_value(a))
    r, f2 = source(s, s["dtype"], np.array(s["values"], dtype=s["dtype"]).reshape(s["dims"]))
    feeds.update(f2)
    return [tf.audio.encode_wav(x, r)], feeds


def record(c):
    g = tf.Graph()
    with g.as_default():
        try:
            outs, feeds = build(c)
        except (ValueError, TypeError, tf.errors.OpError) as e:
            code = e.error_code if isinstance(e, tf.errors.OpError) else 3
            c["build_error"] = {"code": code, "message": build_message(e)}
            return c
        c["static_shapes"] = [o.shape.as_list() if o.shape.rank is not None else None
                              for o in outs]
        with tf.Session() as sess:
            try:
                v = sess.run(outs, feed_dict=feeds)
            except tf.errors.OpError as e:
                c["error"] = {"code": e.error_code, "message": run_message(e)}
                return c
        if c["op"] == "decode":
            audio = np.asarray(v[0], dtype="<f4")
            c["outputs"] = {"audio_shape": list(audio.shape), "audio_bits": b64(audio.tobytes()),
                            "sample_rate": int(v[1])}
        else:
            c["outputs"] = {"contents": b64(v[0])}
    return c


CASES = []


def decode(name, contents, shape=None, dims=None, **kw):
    vals = contents if isinstance(contents, list) else [contents]
    spec = {"values": [b64(x) for x in vals], "dims": dims if dims is not None else []}
    if shape is not None:
        spec["shape"] = shape
    CASES.append(dict(name=name, op="decode", contents=spec, **kw))


def f32_bits(a):
    return np.asarray(a, dtype=np.float32).reshape(-1).view(np.uint32).tolist()


def encode(name, audio, rate, dtype="float32", rate_dtype="int32", shape=None, rate_shape=None):
    a = np.asarray(audio, dtype=dtype)
    values = f32_bits(a) if dtype == "float32" else [repr(float(x)) for x in a.reshape(-1)]
    aspec = {"dtype": dtype, "dims": list(a.shape), "values": values}
    if shape is not None:
        aspec["shape"] = shape
    r = np.asarray(rate)
    rspec = {"dtype": rate_dtype, "dims": list(r.shape), "values": r.reshape(-1).tolist()}
    if rate_shape is not None:
        rspec["shape"] = rate_shape
    CASES.append(dict(name="encode_" + name, op="encode", audio=aspec, sample_rate=rspec))


# --- WAV byte builders ------------------------------------------------------------------------

def chunk(cid, data, size=None, pad=False):
    n = len(data) if size is None else size
    out = cid + struct.pack("<I", n) + data
    if pad and len(data) % 2:
        out += b"\0"
    return out


def fmt(channels=1, rate=16000, bits=16, tag=1, block_align=None, byte_rate=None, size=16,
        extra=b""):
    if block_align is None:
        block_align = (bits * channels + 7) // 8
    if byte_rate is None:
        byte_rate = (block_align * rate) & 0xFFFFFFFF
    body = struct.pack("<HHIIHH", tag, channels, rate, byte_rate, block_align, bits) + extra
    return chunk(b"fmt ", body, size=size)


def riff(*chunks, magic=b"RIFF", kind=b"WAVE", size=None):
    body = kind + b"".join(chunks)
    return magic + struct.pack("<I", len(body) if size is None else size) + body


def pcm(samples):
    return np.asarray(samples, dtype="<i2").tobytes()


def with_wave_module(samples, channels, rate, width=2):
    buf = io.BytesIO()
    w = wave.open(buf, "wb")
    w.setnchannels(channels)
    w.setsampwidth(width)
    w.setframerate(rate)
    w.writeframes(samples)
    w.close()
    return buf.getvalue()


rng = np.random.RandomState(7)
MONO = np.concatenate([[0, 1, -1, 32767, -32768, 16384, -16384], rng.randint(-32768, 32768, 13)])
STEREO = rng.randint(-32768, 32768, size=(9, 2))
THREE = rng.randint(-32768, 32768, size=(4, 3))

W_MONO = with_wave_module(pcm(MONO), 1, 16000)
W_STEREO = with_wave_module(pcm(STEREO), 2, 44100)
W_THREE = riff(fmt(3, 8000), chunk(b"data", pcm(THREE)))

# Decoding files of Python's wave module and hand-built ones.
decode("wave_mono", W_MONO)
decode("wave_stereo", W_STEREO)
decode("three_channels", W_THREE)
decode("wave_mono_placeholder", W_MONO, shape=[])
decode("wave_mono_unknown_rank", W_MONO, shape="unknown")
for dc in (0, 1, 2, 3):
    decode(f"mono_channels_{dc}", W_MONO, desired_channels=dc)
    decode(f"stereo_channels_{dc}", W_STEREO, desired_channels=dc)
decode("three_channels_to_2", W_THREE, desired_channels=2)
decode("three_channels_to_5", W_THREE, desired_channels=5)
for ds in (0, 5, 20, 33):
    decode(f"mono_samples_{ds}", W_MONO, desired_samples=ds)
decode("stereo_samples_4_channels_3", W_STEREO, desired_samples=4, desired_channels=3)
decode("stereo_samples_12_channels_1", W_STEREO, desired_samples=12, desired_channels=1)
decode("stereo_samples_12_placeholder", W_STEREO, shape=[], desired_samples=12)
decode("empty_audio", riff(fmt(1, 16000), chunk(b"data", b"")))
decode("empty_audio_padded", riff(fmt(2, 16000), chunk(b"data", b"")), desired_samples=3)
decode("desired_channels_negative", W_MONO, desired_channels=-2)
decode("desired_samples_negative", W_MONO, desired_samples=-5)

# Chunks around "data".
DATA = chunk(b"data", pcm(MONO[:6]))
decode("list_chunk_before_data", riff(fmt(), chunk(b"LIST", b"INFOISFT\x04\0\0\0abc\0"), DATA))
decode("chunk_after_data", riff(fmt(), DATA, chunk(b"LIST", b"INFOxxxx")))
decode("odd_chunk_padded", riff(fmt(), chunk(b"LIST", b"abc", pad=True), DATA))
decode("odd_chunk_unpadded", riff(fmt(), chunk(b"LIST", b"abc"), DATA))
decode("odd_chunk_padded_after", riff(fmt(), DATA, chunk(b"LIST", b"abc", pad=True)))
decode("junk_before_fmt", riff(chunk(b"JUNK", b"\0" * 28), fmt(), DATA))
decode("bext_before_fmt", riff(chunk(b"bext", b"xyzw"), fmt(), DATA))
decode("list_before_fmt", riff(chunk(b"LIST", b"xyzw"), fmt(), DATA))
decode("junk_before_fmt_huge", riff(chunk(b"JUNK", b"", size=0xFFFFFFF0), fmt(), DATA))
decode("junk_before_fmt_too_long", riff(chunk(b"JUNK", b"ab", size=100)))
decode("no_data_chunk", riff(fmt(), chunk(b"LIST", b"abcd")))
decode("two_data_chunks", riff(fmt(), DATA, DATA))
decode("fmt_size_18", riff(fmt(size=18, extra=b"\0\0"), DATA))
decode("fmt_size_40", riff(fmt(size=40, extra=b"\0" * 24), DATA))
decode("fmt_size_18_at_end", riff(fmt(size=18)))
decode("data_odd_size", riff(fmt(), chunk(b"data", pcm(MONO[:3]) + b"\x11")))
decode("data_odd_size_then_bytes", riff(fmt(), chunk(b"data", pcm(MONO[:3]) + b"\x11"),
                                       b"\0\0\0\0\0\0\0\0"))
decode("stereo_data_not_whole_frames", riff(fmt(2), chunk(b"data", pcm(MONO[:5]))))
decode("riff_size_wrong", riff(fmt(), DATA, size=3))

# Formats TensorFlow does not read.
decode("float_format", riff(fmt(tag=3, bits=32), chunk(b"data", np.float32([0.5]).tobytes())))
decode("extensible_format", riff(fmt(tag=0xFFFE, size=16), DATA))
decode("eight_bit_wave", with_wave_module(bytes([0, 128, 255]), 1, 8000, width=1))
decode("twenty_four_bit_wave", with_wave_module(b"\x01\x02\x03" * 4, 1, 8000, width=3))
decode("zero_channels", riff(fmt(0, block_align=0), DATA))
decode("bad_block_align", riff(fmt(2, block_align=2), DATA))
decode("bad_byte_rate", riff(fmt(1, 16000, byte_rate=16000), DATA))
decode("huge_sample_rate", riff(fmt(1, 0xFFFFFFFF), DATA))
decode("sample_rate_2_31", riff(fmt(2, 0x80000000), chunk(b"data", pcm(STEREO[:2]))))

# Broken files.
decode("empty_string", b"")
decode("wrong_riff_magic", b"RIFX" + W_MONO[4:])
decode("wrong_wave_magic", W_MONO[:8] + b"AVI " + W_MONO[12:])
decode("wrong_fmt_id", riff(chunk(b"fmt_", b"\0" * 16), DATA))
decode("truncated_riff", W_MONO[:6])
decode("truncated_fmt", W_MONO[:30])
decode("truncated_data", W_MONO[:-7])
decode("header_only", W_MONO[:44][:-8])
decode("data_size_past_end", riff(fmt(), chunk(b"data", pcm(MONO[:4]), size=1000)))
decode("data_size_2_31_minus_1", riff(fmt(), chunk(b"data", pcm(MONO[:4]), size=0x7FFFFFFF)))
decode("data_size_4gb", riff(fmt(), chunk(b"data", pcm(MONO[:4]), size=0xFFFFFFFF)))
decode("other_chunk_4gb", riff(fmt(), chunk(b"LIST", b"", size=0x80000000), DATA))
decode("other_chunk_2_31_minus_1", riff(fmt(), chunk(b"LIST", b"ab", size=0x7FFFFFFF), DATA))
decode("trailing_partial_chunk_header", riff(fmt(), DATA, b"LI"))
decode("contents_vector", [W_MONO, W_MONO], dims=[2])
decode("contents_vector_unknown_rank", [W_MONO, W_MONO], dims=[2], shape="unknown")



def tf_encode(audio, rate):
    with tf.Graph().as_default(), tf.Session() as sess:
        return sess.run(tf.audio.encode_wav(np.asarray(audio, np.float32), rate))


# Files TensorFlow's encode_wav wrote.
decode("tf_encoded_mono", tf_encode(MONO.reshape(-1, 1) / 32768.0, 16000))
decode("tf_encoded_stereo_clipped", tf_encode(STEREO / 20000.0, 22050), desired_channels=1)
decode("tf_encoded_empty", tf_encode(np.zeros((0, 3)), 8000), desired_samples=2)
decode("tf_encoded_65535_channels", tf_encode(np.zeros((0, 65535)), 8000))

# Encoding.
M = rng.uniform(-1, 1, size=(7, 1)).astype(np.float32)
S = rng.uniform(-1, 1, size=(5, 2)).astype(np.float32)
encode("mono", M, 16000)
encode("stereo", S, 44100)
encode("three_channels", rng.uniform(-1, 1, size=(3, 3)), 8000)
half = np.float32(1 / 32768)
encode("rounding_and_clipping", np.array([[0.0], [-0.0], [1.0], [-1.0], [1.5], [-2.0],
                                          [0.5 * half], [-0.5 * half], [1.5 * half],
                                          [-1.5 * half], [2.5 * half], [0.49 * half],
                                          [32767.5 * half], [-32768.5 * half], [1e30],
                                          [-1e30]], dtype=np.float32), 16000)
encode("non_finite", np.array([[np.inf, -np.inf, np.nan, -np.nan]], dtype=np.float32), 16000)
encode("zero_samples", np.zeros((0, 2), np.float32), 16000)
encode("zero_channels", np.zeros((3, 0), np.float32), 16000)
encode("zero_by_zero", np.zeros((0, 0), np.float32), 16000)
encode("many_channels", np.zeros((0, 70000), np.float32), 16000)
encode("max_channels", np.zeros((0, 65535), np.float32), 16000)
for rate in (1, 22050, 2147483647, 0, -1):
    encode(f"rate_{rate}", M[:2], rate)
encode("rate_placeholder", M[:2], 8000, rate_shape=[])
encode("audio_placeholder", S, 8000, shape=[None, None])
encode("audio_rank_1", M.reshape(-1), 16000)
encode("audio_rank_3", S.reshape(5, 2, 1), 16000)
encode("audio_rank_1_unknown", M.reshape(-1), 16000, shape="unknown")
encode("audio_rank_3_unknown", S.reshape(5, 2, 1), 16000, shape="unknown")
encode("rate_vector", M, [16000])
encode("rate_vector_unknown", M, [16000], rate_shape="unknown")
encode("rate_matrix_unknown", M, [[16000]], rate_shape="unknown")
encode("audio_float64", M.astype(np.float64), 16000, dtype="float64")
encode("rate_int64", M, 16000, rate_dtype="int64")


def main():
    out = [record(dict(c)) for c in CASES]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(f"{len(out)} cases written to {path}")


if __name__ == "__main__":
    main()
