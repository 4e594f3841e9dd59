//! The cases of tests/data/spectral/expected.json (made by make_spectral.py there with
//! TensorFlow 2.21) as weir graphs: their input tensors (complex values as `[re, im]` pairs),
//! the builder each names, and value comparison. Shared by the ops tests and weir-train's
//! gradient tests.

use std::path::PathBuf;

use serde_json::Value;
use weir_graph::{Complex, DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder, IndexArg};
use weir_ops::spectral::signal as sig;
use weir_ops::{complex as cx, spectral as sp};

/// Every recorded case.
pub fn cases() -> Vec<Value> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../ops/tests/data/spectral/expected.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str::<Vec<Value>>(&text).unwrap()
}

fn dtype(name: &str) -> DType {
    DType::from_name(name).unwrap_or_else(|_| panic!("dtype {name}"))
}

/// The tensor a `{dtype, dims, values}` spec holds.
pub fn tensor(spec: &Value) -> Tensor {
    let dims: Vec<usize> = spec["dims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let v = spec["values"].as_array().unwrap();
    let f = |x: &Value| x.as_f64().unwrap();
    let pair = |x: &Value| (f(&x[0]), f(&x[1]));
    match dtype(spec["dtype"].as_str().unwrap()) {
        DType::F32 => Tensor::from_vec(&dims, v.iter().map(|x| f(x) as f32).collect()),
        DType::F64 => Tensor::from_vec(&dims, v.iter().map(f).collect()),
        DType::I32 => Tensor::from_vec(
            &dims,
            v.iter().map(|x| x.as_i64().unwrap() as i32).collect(),
        ),
        // The script writes bools as 0/1.
        DType::Bool => {
            Tensor::from_vec(&dims, v.iter().map(|x| x.as_i64().unwrap() != 0).collect())
        }
        DType::C64 => Tensor::from_vec(
            &dims,
            v.iter()
                .map(|x| {
                    let (re, im) = pair(x);
                    Complex::new(re as f32, im as f32)
                })
                .collect(),
        ),
        DType::C128 => Tensor::from_vec(
            &dims,
            v.iter()
                .map(|x| {
                    let (re, im) = pair(x);
                    Complex::new(re, im)
                })
                .collect(),
        ),
        other => panic!("no specs of {other}"),
    }
    .unwrap()
}

/// A case's graph: its inputs (constants, or unknown-shape placeholders with their feeds) and
/// its output.
pub struct Built {
    /// The inputs, in the case's order (the gradient tests differentiate with respect to them).
    #[allow(dead_code)]
    pub inputs: Vec<Output>,
    /// The values to feed (placeholder cases).
    pub feeds: Vec<(Output, Tensor)>,
    /// The case's output.
    pub output: Output,
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

/// Builds `case` in `g`.
pub fn build(g: &Graph, case: &Value) -> Result<Built> {
    let feed = case["feed"].as_bool().unwrap_or(false);
    let mut inputs = Vec::new();
    let mut feeds = Vec::new();
    for spec in case["inputs"].as_array().unwrap() {
        let t = tensor(spec);
        if feed {
            let p = placeholder(g, t.dtype(), Shape::unknown())?;
            feeds.push((p.clone(), t));
            inputs.push(p);
        } else {
            inputs.push(constant(g, t)?);
        }
    }
    let kw = &case["kw"];
    let len = || kw.get("fft_length").map(|v| IndexArg::List(ints(v)));
    let op = case["op"].as_str().unwrap();
    let x = match inputs.first() {
        Some(x) => x.clone(),
        // The windows and the mel matrix take no tensor.
        None => {
            return build_generated(g, op, kw).map(|output| Built {
                inputs,
                feeds,
                output,
            })
        }
    };
    let output = match op {
        "complex" => cx::complex(&x, &inputs[1])?,
        "real" => cx::real(&x)?,
        "imag" => cx::imag(&x)?,
        "angle" => cx::angle(&x)?,
        "complex_abs" => cx::complex_abs(&x)?,
        "conj" => cx::conj(&x)?,
        "conjugate_transpose" => {
            if x.dtype().is_complex() {
                cx::conjugate_transpose(&x, ints(&kw["perm"]))?
            } else {
                // tf.transpose(conjugate=True) of a real tensor is a plain Transpose.
                weir_ops::array::transpose(&x, ints(&kw["perm"]))?
            }
        }
        "adjoint" => cx::adjoint(&x)?,
        "frame" => sig::Frame::new(usize_of(&kw["frame_length"]), usize_of(&kw["frame_step"]))
            .pad_end(kw.get("pad_end").and_then(Value::as_bool).unwrap_or(false))
            .pad_value(kw.get("pad_value").and_then(Value::as_f64).unwrap_or(0.0))
            .axis(kw.get("axis").and_then(Value::as_i64).unwrap_or(-1))
            .build(&x)?,
        "overlap_and_add" => sig::overlap_and_add(&x, usize_of(&kw["frame_step"]))?,
        "stft" => {
            let mut s = sig::Stft::new(usize_of(&kw["frame_length"]), usize_of(&kw["frame_step"]))
                .pad_end(kw.get("pad_end").and_then(Value::as_bool).unwrap_or(false));
            if let Some(n) = kw.get("fft_length") {
                s = s.fft_length(usize_of(n));
            }
            let hamming = |g: &Graph, n: usize, dt: DType| sig::hamming_window(g, n, true, dt);
            s = match kw.get("window").and_then(Value::as_str) {
                Some("none") => s.window_fn(None),
                Some("hamming") => s.window_fn(Some(&hamming)),
                _ => s,
            };
            s.build(&x)?
        }
        "inverse_stft" => {
            let step = usize_of(&kw["frame_step"]);
            let mut s = sig::InverseStft::new(usize_of(&kw["frame_length"]), step);
            if let Some(n) = kw.get("fft_length") {
                s = s.fft_length(usize_of(n));
            }
            let inverse = sig::inverse_stft_window_fn(step, &sig::periodic_hann);
            if kw.get("window").and_then(Value::as_str) == Some("inverse") {
                s = s.window_fn(Some(&inverse));
            }
            s.build(&x)?
        }
        "fft" => sp::fft(&x)?,
        "ifft" => sp::ifft(&x)?,
        "fft2d" => sp::fft2d(&x)?,
        "ifft2d" => sp::ifft2d(&x)?,
        "fft3d" => sp::fft3d(&x)?,
        "ifft3d" => sp::ifft3d(&x)?,
        "rfft" => sp::rfft(&x, len())?,
        "irfft" => sp::irfft(&x, len())?,
        "rfft2d" => sp::rfft2d(&x, len())?,
        "irfft2d" => sp::irfft2d(&x, len())?,
        "rfft3d" => sp::rfft3d(&x, len())?,
        "irfft3d" => sp::irfft3d(&x, len())?,
        raw if raw.starts_with("raw_") => {
            // tf.raw_ops: the op itself, no padding, attrs as given or defaulted.
            let name = raw.trim_start_matches("raw_").to_uppercase();
            weir_ops::register_all_ops();
            let mut b = g.new_operation(&name).input(&x).input(&inputs[1]);
            for attr in ["Tcomplex", "Treal"] {
                if let Some(v) = kw.get(attr) {
                    b = b.attr(attr, dtype(v.as_str().unwrap()));
                }
            }
            b.build()?.output(0)?
        }
        other => panic!("op {other}"),
    };
    Ok(Built {
        inputs,
        feeds,
        output,
    })
}

fn usize_of(v: &Value) -> usize {
    v.as_u64().unwrap() as usize
}

fn dtype_kw(kw: &Value) -> DType {
    kw.get("dtype")
        .map_or(DType::F32, |d| dtype(d.as_str().unwrap()))
}

/// The cases that build a tensor from parameters alone: windows and the mel matrix.
fn build_generated(g: &Graph, op: &str, kw: &Value) -> Result<Output> {
    match op {
        "hann_window" | "hamming_window" => {
            let n = usize_of(&kw["length"]);
            let periodic = kw["periodic"].as_bool().unwrap();
            let dt = match kw.get("dtype").and_then(Value::as_str) {
                Some(name) => DType::from_name(name)?,
                None => DType::F32,
            };
            if op == "hann_window" {
                sig::hann_window(g, n, periodic, dt)
            } else {
                sig::hamming_window(g, n, periodic, dt)
            }
        }
        "mel" => {
            let mut m = sig::LinearToMelWeightMatrix::new().dtype(dtype_kw(kw));
            if let Some(v) = kw.get("num_mel_bins") {
                m = m.num_mel_bins(usize_of(v));
            }
            if let Some(v) = kw.get("num_spectrogram_bins") {
                m = m.num_spectrogram_bins(usize_of(v));
            }
            if let Some(v) = kw.get("sample_rate") {
                m = m.sample_rate(v.as_f64().unwrap());
            }
            if let Some(v) = kw.get("lower_edge_hertz") {
                m = m.lower_edge_hertz(v.as_f64().unwrap());
            }
            if let Some(v) = kw.get("upper_edge_hertz") {
                m = m.upper_edge_hertz(v.as_f64().unwrap());
            }
            m.build(g)
        }
        other => panic!("op {other}"),
    }
}

/// Every value of `got` as (re, im) in f64 (im 0 for real tensors).
pub fn pairs(t: &Tensor) -> Vec<(f64, f64)> {
    match t.dtype() {
        DType::F32 => t
            .as_slice::<f32>()
            .unwrap()
            .iter()
            .map(|&v| (v as f64, 0.0))
            .collect(),
        DType::F64 => t
            .as_slice::<f64>()
            .unwrap()
            .iter()
            .map(|&v| (v, 0.0))
            .collect(),
        DType::C64 => t
            .as_slice::<Complex<f32>>()
            .unwrap()
            .iter()
            .map(|z| (z.re as f64, z.im as f64))
            .collect(),
        DType::C128 => t
            .as_slice::<Complex<f64>>()
            .unwrap()
            .iter()
            .map(|z| (z.re, z.im))
            .collect(),
        DType::I32 => t
            .as_slice::<i32>()
            .unwrap()
            .iter()
            .map(|&v| (v as f64, 0.0))
            .collect(),
        DType::Bool => t
            .as_slice::<bool>()
            .unwrap()
            .iter()
            .map(|&v| (v as u8 as f64, 0.0))
            .collect(),
        other => panic!("values of {other}"),
    }
}

/// Checks `got` against a spec: dtype and shape exactly, every value within `tol` times the
/// largest magnitude in the expected tensor (`tol == 0`: bit-exact, signed zeros included).
pub fn assert_close(name: &str, got: &Tensor, want: &Value, tol: f64) {
    let w = tensor(want);
    assert_eq!(got.dtype(), w.dtype(), "{name}: dtype");
    assert_eq!(got.shape(), w.shape(), "{name}: shape");
    let (g, w) = (pairs(got), pairs(&w));
    let scale = w
        .iter()
        .fold(0.0f64, |m, &(a, b)| m.max(a.abs()).max(b.abs()));
    for (i, (p, q)) in g.iter().zip(&w).enumerate() {
        if tol == 0.0 {
            let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
            assert!(
                same(p.0, q.0) && same(p.1, q.1),
                "{name}[{i}]: got {p:?}, TensorFlow {q:?}"
            );
        } else {
            let err = (p.0 - q.0).abs().max((p.1 - q.1).abs());
            assert!(
                err <= tol * scale,
                "{name}[{i}]: got {p:?}, TensorFlow {q:?} (scale {scale})"
            );
        }
    }
}
