"""Records TensorFlow 2.21's AudioSpectrogram and Mfcc (the ops of TF1's speech-commands input
pipeline, `contrib_audio.audio_spectrogram` / `contrib_audio.mfcc`, today
`tensorflow.python.ops.gen_audio_ops`) into expected.json, for
crates/ops/tests/integration/audio_features.rs.

Run with TensorFlow 2.21:  python make_audio_features.py  (writes expected.json next to this file).

Each case is built in a tf.compat.v1 graph and run in a Session. `op` is one of
- "spectrogram": `input` -> audio_spectrogram(window_size, stride[, magnitude_squared]);
- "mfcc": `spectrogram`, `sample_rate` -> mfcc(**attrs);
- "pipeline": `input` -> audio_spectrogram(magnitude_squared=True) -> mfcc, both fetched;
- "wav": `contents` (base64 WAV bytes, written by tf.audio.encode_wav) -> decode_wav ->
  audio_spectrogram(magnitude_squared=True) -> mfcc(sample_rate=the decoded rate), all fetched.
Tensor specs are {dtype, dims, values}: float values as their bit patterns (uint32, uint64). An input
spec with `shape` is a placeholder of that static shape (None for an unknown dim, "unknown" for
an unknown rank) fed its value; otherwise a constant. Recorded: `static_shapes` and `outputs`
(tensor specs), or the error (`build_error` when building failed, `error` when running did) as
TensorFlow's canonical code and message, without TensorFlow's " for '{{node ...}}'" suffix.
"""
import base64
import json
import os

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.python.ops import gen_audio_ops as audio_ops

tf.disable_eager_execution()

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = []


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


def spec(a, dtype="float32", shape=None):
    a = np.asarray(a, dtype=dtype)
    if dtype == "float32":
        values = a.reshape(-1).view(np.uint32).tolist()
    elif dtype == "float64":
        values = a.reshape(-1).view(np.uint64).tolist()
    else:
        values = a.reshape(-1).tolist()
    s = {"dtype": dtype, "dims": list(a.shape), "values": values}
    if shape is not None:
        s["shape"] = shape
    return s


def value_of(s):
    if s["dtype"] == "float32":
        return np.array(s["values"], dtype=np.uint32).view(np.float32).reshape(s["dims"])
    if s["dtype"] == "float64":
        return np.array(s["values"], dtype=np.uint64).view(np.float64).reshape(s["dims"])
    if s["dtype"] == "string":
        return np.array([base64.b64decode(v) for v in s["values"]], dtype=object).reshape(s["dims"])
    return np.array(s["values"], dtype=s["dtype"]).reshape(s["dims"])


def source(s):
    v = value_of(s)
    if "shape" not in s:
        return tf.constant(v, dtype=s["dtype"]), {}
    shape = None if s["shape"] == "unknown" else s["shape"]
    p = tf.placeholder(s["dtype"], shape)
    return p, {p: v}


def build(c):
    if c["op"] == "spectrogram":
        x, feeds = source(c["input"])
        kw = {k: c[k] for k in ("magnitude_squared",) if k in c}
        return [audio_ops.audio_spectrogram(x, c["window_size"], c["stride"], **kw)], feeds
    if c["op"] == "mfcc":
        x, feeds = source(c["spectrogram"])
        r, f2 = source(c["sample_rate"])
        feeds.update(f2)
        return [audio_ops.mfcc(x, r, **c["attrs"])], feeds
    if c["op"] == "pipeline":
        x, feeds = source(c["input"])
        s = audio_ops.audio_spectrogram(x, c["window_size"], c["stride"], magnitude_squared=True)
        return [s, audio_ops.mfcc(s, c["sample_rate"], **c["attrs"])], feeds
    x, feeds = source(c["contents"])
    audio, rate = tf.audio.decode_wav(x, desired_channels=c["desired_channels"])
    s = audio_ops.audio_spectrogram(audio, c["window_size"], c["stride"], magnitude_squared=True)
    return [audio, rate, s, audio_ops.mfcc(s, rate, **c["attrs"])], feeds


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
        c["outputs"] = [spec(x, dtype=str(np.asarray(x).dtype)) for x in v]
    return c


def spectrogram(name, audio, window_size, stride, shape=None, **kw):
    CASES.append(dict(name="spectrogram_" + name, op="spectrogram",
                      input=spec(audio, shape=shape), window_size=window_size, stride=stride,
                      **kw))


def mfcc(name, spectro, rate=16000, shape=None, rate_shape=None, rate_dtype="int32", **attrs):
    CASES.append(dict(name="mfcc_" + name, op="mfcc", spectrogram=spec(spectro, shape=shape),
                      sample_rate=spec(rate, dtype=rate_dtype, shape=rate_shape), attrs=attrs))


def pipeline(name, audio, window_size, stride, rate=16000, shape=None, **attrs):
    CASES.append(dict(name="pipeline_" + name, op="pipeline", input=spec(audio, shape=shape),
                      window_size=window_size, stride=stride, sample_rate=rate, attrs=attrs))


# --- Signals -----------------------------------------------------------------------------------

RATE = 16000
rng = np.random.RandomState(1234)


def t(n, rate=RATE):
    return np.arange(n) / rate


def sine(n, freq, amp=0.5, rate=RATE):
    return (amp * np.sin(2 * np.pi * freq * t(n, rate))).astype(np.float32)


def chirp(n, f0=100.0, f1=6000.0, amp=0.6, rate=RATE):
    tt = t(n, rate)
    k = (f1 - f0) / tt[-1]
    return (amp * np.sin(2 * np.pi * (f0 * tt + 0.5 * k * tt * tt))).astype(np.float32)


def noise(n, amp=0.3):
    return (amp * rng.uniform(-1, 1, n)).astype(np.float32)


def col(*chans):
    return np.stack(chans, axis=1)


N = 1200
SINE = sine(N, 440.0)
CHIRP = chirp(N)
NOISE = noise(N)
SILENCE = np.zeros(N, np.float32)
IMPULSE = np.zeros(N, np.float32)
IMPULSE[777] = 1.0
DC = np.full(N, 0.25, np.float32)
LOUD = (4.0 * rng.uniform(-1, 1, N)).astype(np.float32)  # outside [-1, 1]: not clipped
TINY = (1e-6 * rng.uniform(-1, 1, N)).astype(np.float32)

# --- AudioSpectrogram: values --------------------------------------------------------------------

for sq in (False, True):
    tag = "sq" if sq else "mag"
    for sig_name, sig in [("sine", SINE), ("chirp", CHIRP), ("noise", NOISE),
                          ("silence", SILENCE), ("impulse", IMPULSE), ("dc", DC),
                          ("loud", LOUD), ("tiny", TINY)]:
        spectrogram(f"{sig_name}_256_128_{tag}", col(sig), 256, 128, magnitude_squared=sq)
    spectrogram(f"stereo_480_160_{tag}", col(SINE, NOISE), 480, 160, magnitude_squared=sq)
    spectrogram(f"three_channels_400_100_{tag}", col(CHIRP, IMPULSE, DC), 400, 100,
                magnitude_squared=sq)
for ws, st in [(2, 1), (3, 1), (3, 2), (4, 4), (5, 3), (64, 100), (100, 100), (255, 50),
               (257, 129), (512, 256), (1000, 33), (1200, 1), (1025, 7)]:
    n = N if ws > 100 else 300
    spectrogram(f"noise_{ws}_{st}", col(NOISE[:n]), ws, st)
# A NaN sample makes every bin of the frames that hold it NaN.
NAN_AT = NOISE[:600].copy()
NAN_AT[300] = np.nan
spectrogram("nan_sample", col(NAN_AT), 128, 64)
# The default magnitude_squared, spelled out.
spectrogram("explicit_false", col(CHIRP[:600]), 128, 64, magnitude_squared=False)
# No full window: zero frames.
spectrogram("window_longer_than_input", col(SINE[:500]), 1000, 10)
spectrogram("window_one_longer", col(SINE[:255]), 256, 1)
spectrogram("no_samples", np.zeros((0, 2), np.float32), 16, 8)
spectrogram("no_channels", np.zeros((300, 0), np.float32), 16, 8)
# Static shapes: unknown dims, unknown rank, known length.
spectrogram("unknown_dims", col(SINE[:700], NOISE[:700]), 256, 100, shape=[None, None])
spectrogram("unknown_rank", col(SINE[:700]), 256, 100, shape="unknown")
spectrogram("known_length", col(CHIRP[:700]), 200, 50, shape=[700, None])
spectrogram("unknown_length", col(CHIRP[:700]), 200, 50, shape=[None, 1])

# --- AudioSpectrogram: errors --------------------------------------------------------------------

spectrogram("window_1", col(SINE[:100]), 1, 1)
spectrogram("window_0", col(SINE[:100]), 0, 1)
spectrogram("window_negative", col(SINE[:100]), -4, 1)
spectrogram("stride_0", col(SINE[:100]), 16, 0)
spectrogram("stride_negative", col(SINE[:100]), 16, -2)
spectrogram("rank_1", SINE[:100], 16, 8)
spectrogram("rank_3", SINE[:100].reshape(10, 5, 2), 16, 8)
spectrogram("rank_1_dynamic", SINE[:100], 16, 8, shape="unknown")
spectrogram("rank_3_dynamic", SINE[:100].reshape(10, 5, 2), 16, 8, shape="unknown")
spectrogram("scalar_dynamic", SINE[:1].reshape(()), 16, 8, shape="unknown")
CASES.append(dict(name="spectrogram_float64_input", op="spectrogram",
                  input=spec(col(SINE[:100]), dtype="float64"), window_size=16, stride=8))
CASES.append(dict(name="spectrogram_int32_attr_overflow", op="spectrogram",
                  input=spec(col(SINE[:100])), window_size=2**31, stride=8))

# --- Mfcc: values --------------------------------------------------------------------------------


def tf_spectrogram(audio, ws, st):
    with tf.Graph().as_default(), tf.Session() as s:
        return s.run(audio_ops.audio_spectrogram(audio, ws, st, magnitude_squared=True))


SPEC_CHIRP = tf_spectrogram(col(CHIRP, NOISE), 480, 160)  # [2, 10, 257]
SPEC_SINE = tf_spectrogram(col(SINE), 256, 128)  # [1, 14, 129]
RANDOM_SPEC = (rng.uniform(0, 3, (2, 3, 129)) ** 4).astype(np.float32)

mfcc("chirp_noise_defaults", SPEC_CHIRP)
mfcc("sine_defaults", SPEC_SINE)
mfcc("random_defaults", RANDOM_SPEC)
mfcc("zeros_floor", np.zeros((1, 2, 129), np.float32))
mfcc("tiny_floor", np.full((1, 2, 129), 1e-26, np.float32))
mfcc("rate_8000", RANDOM_SPEC, 8000)
mfcc("rate_44100", SPEC_CHIRP, 44100, upper_frequency_limit=8000.0)
mfcc("all_attrs", SPEC_CHIRP, 16000, upper_frequency_limit=7600.0, lower_frequency_limit=125.0,
     filterbank_channel_count=64, dct_coefficient_count=30)
mfcc("fractional_limits", RANDOM_SPEC, 16000, upper_frequency_limit=3999.7,
     lower_frequency_limit=20.3)
mfcc("dct_equals_channels", RANDOM_SPEC, 16000, filterbank_channel_count=20,
     dct_coefficient_count=20)
mfcc("one_channel_one_coefficient", RANDOM_SPEC, 16000, filterbank_channel_count=1,
     dct_coefficient_count=1)
mfcc("lower_zero", SPEC_SINE, 16000, lower_frequency_limit=0.0)
# More channels than FFT bins: TensorFlow only logs the empty bands, which hit the floor.
mfcc("too_many_channels", RANDOM_SPEC, 16000, filterbank_channel_count=200)
# An upper limit above Nyquist: TensorFlow's filterbank refuses the frame, the DCT sees no input.
mfcc("upper_above_nyquist", RANDOM_SPEC, 16000, upper_frequency_limit=9000.0)
# Band edges inside one FFT bin: no bin in use, every band at the floor.
mfcc("narrow_band", RANDOM_SPEC, 16000, lower_frequency_limit=300.0, upper_frequency_limit=301.0,
     filterbank_channel_count=4, dct_coefficient_count=4)
mfcc("upper_at_nyquist", RANDOM_SPEC, 8000, upper_frequency_limit=4000.0)
mfcc("width_2", RANDOM_SPEC[:, :, :2], 16000, filterbank_channel_count=1,
     dct_coefficient_count=1)
mfcc("width_3", RANDOM_SPEC[:, :, :3], 16000, filterbank_channel_count=2,
     dct_coefficient_count=2)
NEGATIVE = RANDOM_SPEC.copy()
NEGATIVE[0, 1, 10] = -1.0  # a negative power has a NaN root: that frame's bands go NaN
mfcc("negative_bin", NEGATIVE)
mfcc("no_frames", np.zeros((2, 0, 129), np.float32))
mfcc("no_audio_channels", np.zeros((0, 4, 129), np.float32))
mfcc("unknown_dims", RANDOM_SPEC, shape=[None, None, None])
mfcc("unknown_rank", RANDOM_SPEC, shape="unknown", rate_shape="unknown")
mfcc("fed_rate", RANDOM_SPEC, 22050, rate_shape=[])
mfcc("negative_dct_static", RANDOM_SPEC, dct_coefficient_count=-1)

# --- Mfcc: errors --------------------------------------------------------------------------------

mfcc("rate_0", RANDOM_SPEC, 0)
mfcc("rate_negative", RANDOM_SPEC, -16000)
mfcc("width_1", RANDOM_SPEC[:, :, :1], 16000)
mfcc("lower_negative", RANDOM_SPEC, lower_frequency_limit=-1.0)
mfcc("upper_equals_lower", RANDOM_SPEC, upper_frequency_limit=300.0, lower_frequency_limit=300.0)
mfcc("upper_below_lower", RANDOM_SPEC, upper_frequency_limit=10.0)
mfcc("filterbank_0", RANDOM_SPEC, filterbank_channel_count=0, dct_coefficient_count=1)
mfcc("filterbank_negative", RANDOM_SPEC, filterbank_channel_count=-3)
mfcc("filterbank_int_max", RANDOM_SPEC, filterbank_channel_count=2**31 - 1,
     dct_coefficient_count=1)
mfcc("dct_0", RANDOM_SPEC, dct_coefficient_count=0)
mfcc("dct_above_channels", RANDOM_SPEC, filterbank_channel_count=10, dct_coefficient_count=11)
mfcc("rank_2", RANDOM_SPEC[0])
mfcc("rank_2_dynamic", RANDOM_SPEC[0], shape="unknown")
mfcc("rank_4_dynamic", RANDOM_SPEC.reshape(1, 2, 3, 129), shape="unknown")
mfcc("rate_vector", RANDOM_SPEC, [16000, 8000])
mfcc("rate_vector_dynamic", RANDOM_SPEC, [16000], rate_shape="unknown")
mfcc("rate_int64", RANDOM_SPEC, 16000, rate_dtype="int64")
mfcc("rate_error_beats_no_frames", np.zeros((1, 0, 129), np.float32), 0)

# --- The pipeline: spectrogram (squared) then mfcc -------------------------------------------------

LONG = np.concatenate([chirp(8000), noise(4000, 0.05), sine(4000, 1000.0, 0.8)])  # 1 s
pipeline("speech_commands_quarter_second", col(LONG[7000:11000]), 480, 160)
pipeline("stereo_256_128", col(CHIRP, SINE), 256, 128, filterbank_channel_count=20,
         dct_coefficient_count=10)
pipeline("silence", col(SILENCE), 480, 160)
pipeline("rate_8000", col(chirp(2000, rate=8000)), 200, 80, 8000, upper_frequency_limit=3800.0)
pipeline("unknown_shape", col(NOISE), 400, 200, shape=[None, None])

# --- A WAV file through DecodeWav, AudioSpectrogram and Mfcc ---------------------------------------


def wav_bytes(audio, rate):
    with tf.Graph().as_default(), tf.Session() as s:
        return s.run(tf.audio.encode_wav(audio, rate))


for name, audio, rate, dc, ws, st, attrs in [
        ("speech_commands_mono", col(LONG), 16000, 1, 480, 160, {}),
        ("stereo_8000", col(chirp(3000, rate=8000), noise(3000, 0.5)), 8000, -1, 256, 128,
         {"upper_frequency_limit": 3900.0}),
        ("stereo_to_mono", col(SINE, CHIRP), 16000, 1, 300, 150,
         {"dct_coefficient_count": 20}),
]:
    CASES.append(dict(name="wav_" + name, op="wav",
                      contents={"dtype": "string", "dims": [], "values": [b64(wav_bytes(audio, rate))]},
                      desired_channels=dc, window_size=ws, stride=st, attrs=attrs))

out = [record(c) for c in CASES]
with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump(out, f, separators=(",", ":"))
    f.write("\n")
print(len(out), "cases,", sum(1 for c in out if "error" in c or "build_error" in c), "errors")
