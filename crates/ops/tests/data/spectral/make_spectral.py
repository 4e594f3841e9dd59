"""Writes expected.json: TensorFlow 2.21's outputs, static shapes, errors and gradients for
weir's complex ops (Complex, Real, Imag, Angle, ComplexAbs, Conj, ConjugateTranspose) and FFT
ops (FFT/IFFT/RFFT/IRFFT in 1-3 D).

Run with the TensorFlow venv: python make_spectral.py. Complex values are [re, im] pairs;
float values are written as Python floats (exact for float32 and float64)."""

import json
import os
import re

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

rng = np.random.RandomState(7)
CASES = []

REAL = {"float32": np.float32, "float64": np.float64}
CPLX = {"complex64": np.complex64, "complex128": np.complex128}


def rand(dtype, dims):
    if dtype in REAL:
        return np.round(rng.uniform(-2, 2, dims), 3).astype(REAL[dtype])
    re = np.round(rng.uniform(-2, 2, dims), 3)
    im = np.round(rng.uniform(-2, 2, dims), 3)
    return (re + 1j * im).astype(CPLX[dtype])


def spec(a):
    a = np.asarray(a)
    dt = a.dtype.name
    flat = a.reshape(-1)
    if a.dtype.kind == "c":
        values = [[float(z.real), float(z.imag)] for z in flat]
    elif a.dtype.kind == "f":
        values = [float(v) for v in flat]
    else:
        values = [int(v) for v in flat]
    return {"dtype": dt, "dims": list(a.shape), "values": values}


def shape_of(t):
    s = t.shape
    if s.rank is None:
        return None
    return [d for d in s.as_list()]


def error_of(e):
    """The error's class, code and message (a kernel's own message, without the traceback
    and node annotations TensorFlow's Python adds around it)."""
    msg = getattr(e, "message", str(e))
    m = re.search(r"\nNode: '[^']*'\n(.*?)\n\t \[\[", msg, re.S)
    if m:
        msg = m.group(1)
    return {"type": type(e).__name__, "code": getattr(e, "error_code", 3), "message": msg}


BUILDERS = {
    "complex": lambda a, k: tf.complex(a[0], a[1]),
    "real": lambda a, k: tf.math.real(a[0]),
    "imag": lambda a, k: tf.math.imag(a[0]),
    "angle": lambda a, k: tf.math.angle(a[0]),
    "complex_abs": lambda a, k: tf.abs(a[0]),
    "conj": lambda a, k: tf.math.conj(a[0]),
    "conjugate_transpose": lambda a, k: tf.transpose(a[0], k["perm"], conjugate=True),
    "adjoint": lambda a, k: tf.linalg.adjoint(a[0]),
    "fft": lambda a, k: tf.signal.fft(a[0]),
    "ifft": lambda a, k: tf.signal.ifft(a[0]),
    "fft2d": lambda a, k: tf.signal.fft2d(a[0]),
    "ifft2d": lambda a, k: tf.signal.ifft2d(a[0]),
    "fft3d": lambda a, k: tf.signal.fft3d(a[0]),
    "ifft3d": lambda a, k: tf.signal.ifft3d(a[0]),
}
DT = lambda k: tf.as_dtype(k.get("dtype", "float32"))
WINDOWS = {"hann": tf.signal.hann_window, "hamming": tf.signal.hamming_window, "none": None}
BUILDERS.update({
    "hann_window": lambda a, k: tf.signal.hann_window(k["length"], k["periodic"], DT(k)),
    "hamming_window": lambda a, k: tf.signal.hamming_window(k["length"], k["periodic"], DT(k)),
    "frame": lambda a, k: tf.signal.frame(a[0], k["frame_length"], k["frame_step"],
                                          pad_end=k.get("pad_end", False),
                                          pad_value=k.get("pad_value", 0), axis=k.get("axis", -1)),
    "overlap_and_add": lambda a, k: tf.signal.overlap_and_add(a[0], k["frame_step"]),
    "stft": lambda a, k: tf.signal.stft(a[0], k["frame_length"], k["frame_step"],
                                        fft_length=k.get("fft_length"),
                                        window_fn=WINDOWS[k.get("window", "hann")],
                                        pad_end=k.get("pad_end", False)),
    "inverse_stft": lambda a, k: tf.signal.inverse_stft(
        a[0], k["frame_length"], k["frame_step"], fft_length=k.get("fft_length"),
        window_fn=(tf.signal.inverse_stft_window_fn(k["frame_step"])
                   if k.get("window") == "inverse" else WINDOWS[k.get("window", "hann")])),
    "mel": lambda a, k: tf.signal.linear_to_mel_weight_matrix(
        **{n: v for n, v in k.items() if n != "dtype"}, dtype=DT(k)),
})
for r in ["", "2d", "3d"]:
    for inv in ["", "i"]:
        name = inv + "rfft" + r
        BUILDERS[name] = (lambda n: lambda a, k: getattr(tf.signal, n)(a[0], k.get("fft_length")))(name)
        raw = {"": "", "2d": "2D", "3d": "3D"}[r]
        op = ("I" if inv else "") + "RFFT" + raw
        BUILDERS["raw_" + name] = (lambda op: lambda a, k: getattr(tf.raw_ops, op)(
            input=a[0], fft_length=a[1],
            **({"Tcomplex": tf.as_dtype(k["Tcomplex"])} if "Tcomplex" in k else {}),
            **({"Treal": tf.as_dtype(k["Treal"])} if "Treal" in k else {})))(op)


def add(name, op, inputs, kw=None, feed=False, grads=None):
    """One case: `inputs` numpy arrays (as constants, or as placeholders of unknown shape fed
    at run time when `feed`); `grads`: names of inputs to differentiate (grad_ys recorded)."""
    kw = kw or {}
    case = {"name": name, "op": op, "inputs": [spec(a) for a in inputs], "kw": kw, "feed": feed}
    g = tf.Graph()
    with g.as_default():
        if feed:
            xs = [tf.placeholder(tf.as_dtype(a.dtype), shape=None) for a in inputs]
        else:
            xs = [tf.constant(a) for a in inputs]
        try:
            y = BUILDERS[op](xs, kw)
        except (ValueError, TypeError, tf.errors.OpError) as e:
            case["build_error"] = error_of(e)
            CASES.append(case)
            return
        case["static_shapes"] = [shape_of(y)]
        case["node"] = y.op.type
        feed_dict = dict(zip(xs, inputs)) if feed else {}
        with tf.Session() as s:
            try:
                out = s.run(y, feed_dict)
            except tf.errors.OpError as e:
                case["error"] = error_of(e)
                CASES.append(case)
                return
            case["outputs"] = [spec(out)]
            if grads:
                gy = rand(out.dtype.name, out.shape)
                ds = tf.gradients(y, [xs[i] for i in grads], grad_ys=tf.constant(gy))
                vals = s.run(ds, feed_dict)
                case["grad_ys"] = spec(gy)
                case["grads"] = {str(i): spec(v) for i, v in zip(grads, vals)}
    CASES.append(case)


# --- complex basics ---------------------------------------------------------------------
for dt in ["float32", "float64"]:
    add(f"complex_{dt}", "complex", [rand(dt, [2, 3]), rand(dt, [2, 3])], grads=[0, 1])
    add(f"complex_bcast_{dt}", "complex", [rand(dt, [3, 1]), rand(dt, [4])], grads=[0, 1])
add("complex_scalar", "complex", [np.float32(1.5), rand("float32", [2])], grads=[0, 1])
add("complex_mixed_types", "complex", [rand("float32", [2]), rand("float64", [2])])
add("complex_int", "complex", [np.array([1, 2], np.int32), np.array([1, 2], np.int32)])
add("complex_bad_shapes", "complex", [rand("float32", [2, 3]), rand("float32", [4])])
add("complex_bad_shapes_fed", "complex", [rand("float32", [2, 3]), rand("float32", [4])], feed=True)
for dt in ["complex64", "complex128"]:
    for op in ["real", "imag", "angle", "complex_abs", "conj"]:
        g = [0]
        add(f"{op}_{dt}", op, [rand(dt, [2, 3])], grads=g)
add("angle_small_grad", "angle", [np.array([1e-3 + 0j, -2 + 1j], np.complex128)], grads=[0])
add("abs_zero_grad", "complex_abs", [np.array([0j, 3 - 4j], np.complex64)], grads=[0])
add("angle_axes", "angle", [np.array([1, -1, 1j, -1j, 0, -0.0 - 0j, 3 - 4j], np.complex64)])
add("complex_abs_big", "complex_abs", [np.array([3e30 + 4e30j, 1e-30 + 0j, -0.0j], np.complex64)])
add("real_of_real", "real", [rand("float32", [3])])
add("imag_of_real", "imag", [rand("float64", [3])])
add("conj_of_real", "conj", [rand("float32", [3])])
add("conj_bool", "conj", [np.array([True])])
add("ct_2d", "conjugate_transpose", [rand("complex64", [2, 3])], {"perm": [1, 0]}, grads=[0])
add("ct_3d", "conjugate_transpose", [rand("complex128", [2, 3, 4])], {"perm": [2, 0, 1]}, grads=[0])
add("ct_real", "conjugate_transpose", [rand("float32", [2, 3])], {"perm": [1, 0]})
add("ct_bad_perm", "conjugate_transpose", [rand("complex64", [2, 3])], {"perm": [0, 0]})
add("ct_bad_perm_fed", "conjugate_transpose", [rand("complex64", [2, 3])], {"perm": [0, 2]}, feed=True)
add("adjoint", "adjoint", [rand("complex64", [2, 2, 3])], grads=[0])

# --- complex FFTs -----------------------------------------------------------------------
for dt in ["complex64", "complex128"]:
    for n in [1, 5, 8, 12, 17]:
        add(f"fft_{n}_{dt}", "fft", [rand(dt, [3, n])])
        add(f"ifft_{n}_{dt}", "ifft", [rand(dt, [2, n])])
    add(f"fft2d_{dt}", "fft2d", [rand(dt, [2, 6, 5])])
    add(f"ifft2d_{dt}", "ifft2d", [rand(dt, [3, 4])])
    add(f"fft3d_{dt}", "fft3d", [rand(dt, [2, 3, 4, 5])])
    add(f"ifft3d_{dt}", "ifft3d", [rand(dt, [3, 2, 7])])
add("fft_empty", "fft", [rand("complex64", [0, 4])])
add("fft_big", "fft", [rand("complex64", [2, 1000])])
add("fft_scalar", "fft", [np.complex64(1)])
add("fft2d_rank1_fed", "fft2d", [rand("complex64", [4])], feed=True)
add("fft_fed", "fft", [rand("complex128", [2, 6])], feed=True)

# --- real FFTs --------------------------------------------------------------------------
for dt in ["float32", "float64"]:
    for n in [1, 2, 7, 8, 15]:
        add(f"rfft_{n}_{dt}", "rfft", [rand(dt, [2, n])])
    add(f"rfft_crop_{dt}", "rfft", [rand(dt, [3, 10])], {"fft_length": [6]})
    add(f"rfft_pad_{dt}", "rfft", [rand(dt, [3, 5])], {"fft_length": [9]})
    add(f"rfft2d_{dt}", "rfft2d", [rand(dt, [2, 5, 6])])
    add(f"rfft2d_len_{dt}", "rfft2d", [rand(dt, [4, 6])], {"fft_length": [3, 8]})
    add(f"rfft3d_{dt}", "rfft3d", [rand(dt, [3, 4, 5])])
cdt = {"float32": "complex64", "float64": "complex128"}
for dt in ["float32", "float64"]:
    c = cdt[dt]
    add(f"irfft_5_{dt}", "irfft", [rand(c, [2, 5])])
    add(f"irfft_odd_{dt}", "irfft", [rand(c, [2, 5])], {"fft_length": [9]})
    add(f"irfft_crop_{dt}", "irfft", [rand(c, [2, 7])], {"fft_length": [6]})
    add(f"irfft_pad_{dt}", "irfft", [rand(c, [2, 3])], {"fft_length": [10]})
    add(f"irfft2d_{dt}", "irfft2d", [rand(c, [2, 4, 5])])
    add(f"irfft2d_len_{dt}", "irfft2d", [rand(c, [5, 5])], {"fft_length": [3, 7]})
    add(f"irfft3d_{dt}", "irfft3d", [rand(c, [3, 2, 4])], {"fft_length": [3, 2, 5]})
add("rfft_short", "raw_rfft", [rand("float32", [2, 4]), np.array([6], np.int32)])
add("rfft_short_fed", "raw_rfft", [rand("float32", [2, 4]), np.array([6], np.int32)], feed=True)
add("irfft_short_fed", "raw_irfft", [rand("complex64", [2, 3]), np.array([6], np.int32)], feed=True)
add("rfft_negative_fed", "raw_rfft", [rand("float32", [2, 4]), np.array([-2], np.int32)], feed=True)
add("rfft_len_shape_fed", "raw_rfft", [rand("float32", [2, 4]), np.array([4, 4], np.int32)], feed=True)
add("rfft2d_len_shape", "raw_rfft2d", [rand("float32", [2, 4]), np.array([4], np.int32)])
add("rfft_wrong_tcomplex_fed", "raw_rfft", [rand("float64", [4]), np.array([4], np.int32)],
    {"Tcomplex": "complex64"}, feed=True)
add("irfft_fed", "raw_irfft", [rand("complex128", [3, 5]), np.array([8], np.int32)], feed=True)
add("rfft2d_fed", "raw_rfft2d", [rand("float32", [3, 6]), np.array([2, 5], np.int32)], feed=True)
add("rfft_of_int", "rfft", [np.array([1, 2], np.int32)])

# --- FFT gradients ----------------------------------------------------------------------
add("grad_fft", "fft", [rand("complex64", [2, 8])], grads=[0])
add("grad_ifft", "ifft", [rand("complex128", [3, 5])], grads=[0])
add("grad_fft2d", "fft2d", [rand("complex128", [3, 4])], grads=[0])
add("grad_ifft2d", "ifft2d", [rand("complex64", [2, 3, 4])], grads=[0])
add("grad_fft3d", "fft3d", [rand("complex128", [2, 3, 4])], grads=[0])
add("grad_ifft3d", "ifft3d", [rand("complex128", [2, 2, 3])], grads=[0])
add("grad_rfft_even", "rfft", [rand("float64", [2, 8])], grads=[0])
add("grad_rfft_odd", "rfft", [rand("float32", [7])], grads=[0])
add("grad_rfft_pad", "rfft", [rand("float64", [5])], {"fft_length": [8]}, grads=[0])
add("grad_rfft2d", "rfft2d", [rand("float64", [3, 6])], grads=[0])
add("grad_rfft2d_odd_batch", "rfft2d", [rand("float32", [2, 4, 5])], grads=[0])
add("grad_irfft_even", "irfft", [rand("complex128", [2, 5])], grads=[0])
add("grad_irfft_odd", "irfft", [rand("complex64", [3, 4])], {"fft_length": [7]}, grads=[0])
add("grad_irfft2d", "irfft2d", [rand("complex128", [3, 4])], {"fft_length": [3, 6]}, grads=[0])

# --- tf.signal composites ----------------------------------------------------------------
for length in [1, 8, 9]:
    for periodic in [True, False]:
        add(f"hann_{length}_{periodic}", "hann_window", [], {"length": length, "periodic": periodic})
add("hann_64_f64", "hann_window", [], {"length": 64, "periodic": True, "dtype": "float64"})
add("hamming_10", "hamming_window", [], {"length": 10, "periodic": True})
add("hamming_7_f64", "hamming_window", [], {"length": 7, "periodic": False, "dtype": "float64"})
add("hann_int", "hann_window", [], {"length": 4, "periodic": True, "dtype": "int32"})
add("frame_basic", "frame", [rand("float32", [2, 10])], {"frame_length": 4, "frame_step": 3})
add("frame_pad_end", "frame", [rand("float32", [2, 10])],
    {"frame_length": 4, "frame_step": 3, "pad_end": True, "pad_value": 1.5})
add("frame_axis0", "frame", [rand("float64", [10, 2])], {"frame_length": 5, "frame_step": 2, "axis": 0})
add("frame_short", "frame", [rand("float32", [3])], {"frame_length": 5, "frame_step": 2})
add("frame_short_pad", "frame", [rand("float32", [3])], {"frame_length": 5, "frame_step": 2, "pad_end": True})
add("ola_basic", "overlap_and_add", [rand("float32", [2, 4, 5])], {"frame_step": 2})
add("ola_no_overlap", "overlap_and_add", [rand("float64", [3, 4])], {"frame_step": 4})
add("ola_step3", "overlap_and_add", [rand("float64", [5, 7])], {"frame_step": 3})
sig = rand("float32", [2, 100])
add("stft_basic", "stft", [sig], {"frame_length": 20, "frame_step": 10})
add("stft_fft64_pad", "stft", [sig], {"frame_length": 20, "frame_step": 7, "fft_length": 64, "pad_end": True})
add("stft_hamming", "stft", [rand("float64", [50])], {"frame_length": 16, "frame_step": 4, "window": "hamming"})
add("stft_no_window", "stft", [rand("float32", [40])], {"frame_length": 10, "frame_step": 5, "window": "none"})
add("stft_short_fft", "stft", [rand("float32", [40])], {"frame_length": 10, "frame_step": 5, "fft_length": 8})
spec_in = rand("complex64", [2, 9, 17])
add("istft_basic", "inverse_stft", [spec_in], {"frame_length": 20, "frame_step": 10})
add("istft_inverse_window", "inverse_stft", [spec_in], {"frame_length": 20, "frame_step": 10, "window": "inverse"})
add("istft_long_frame", "inverse_stft", [rand("complex128", [5, 5])],
    {"frame_length": 12, "frame_step": 4, "fft_length": 8})
add("mel_default", "mel", [], {})
add("mel_custom_f64", "mel", [], {"num_mel_bins": 8, "num_spectrogram_bins": 33, "sample_rate": 16000,
                                  "lower_edge_hertz": 20.0, "upper_edge_hertz": 8000.0, "dtype": "float64"})
add("mel_bad_edges", "mel", [], {"lower_edge_hertz": 500.0, "upper_edge_hertz": 100.0})

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json"), "w") as f:
    json.dump(CASES, f, indent=None, separators=(",", ":"), allow_nan=False)
print(len(CASES), "cases")
