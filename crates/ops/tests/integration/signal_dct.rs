//! `tf.signal.dct`, `idct` and `mfccs_from_log_mel_spectrograms` against TensorFlow 2.21: every
//! case of tests/data/signal_dct/expected.json (made by make_signal_dct.py there): output
//! shapes, values, and the Python-level errors (kind and message).
//!
//! Tolerance: the DCTs run through TensorFlow's DUCC real FFT, which rustfft matches only to the
//! last bits (see spectral.rs), with twiddle factors from Exp of a complex argument (Eigen's
//! sin/cos versus libm's). Each value is compared within a bound relative to the largest
//! magnitude of the expected output: 1e-6 for float32 and 2e-15 for float64 (about 8 ulp of
//! that magnitude; the largest differences seen are 2.1e-7 and 3.8e-16, about 2 ulp).

use serde_json::Value;
use weir_graph::{Code, Graph, Tensor};
use weir_ops::array::constant;
use weir_ops::spectral::signal::{mfccs_from_log_mel_spectrograms, Dct};
use weir_session::Session;

fn load() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/signal_dct/expected.json"
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["cases"].as_array().unwrap().clone()
}

fn build(g: &Graph, c: &Value) -> weir_graph::Result<weir_graph::Output> {
    let shape: Vec<usize> = c["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect();
    let vals: Vec<f64> = c["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let t = if c["dtype"] == "float32" {
        Tensor::from_vec(&shape, vals.iter().map(|&v| v as f32).collect())?
    } else {
        Tensor::from_vec(&shape, vals)?
    };
    let x = constant(g, t)?;
    if c["fn"] == "mfcc" {
        return mfccs_from_log_mel_spectrograms(&x);
    }
    let a = &c["attrs"];
    let mut d = Dct::new();
    if let Some(t) = a.get("type").and_then(Value::as_i64) {
        d = d.dct_type(t);
    }
    if let Some(n) = a.get("n").and_then(Value::as_i64) {
        d = d.n(n);
    }
    if let Some(ax) = a.get("axis").and_then(Value::as_i64) {
        d = d.axis(ax);
    }
    if let Some(norm) = a.get("norm").and_then(Value::as_str) {
        d = d.norm(norm);
    }
    if c["fn"] == "idct" {
        d.build_inverse(&x)
    } else {
        d.build(&x)
    }
}

fn as_f64(t: &Tensor) -> Vec<f64> {
    match t.dtype() {
        weir_graph::DType::F32 => t
            .as_slice::<f32>()
            .unwrap()
            .iter()
            .map(|&v| v as f64)
            .collect(),
        _ => t.as_slice::<f64>().unwrap().to_vec(),
    }
}

#[test]
fn dct_matches_tensorflow() {
    let cases = load();
    assert!(cases.len() >= 150, "{} cases", cases.len());
    let mut errors = 0;
    for c in &cases {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let built = build(&g, c);
        if let Some(want) = c.get("error") {
            let e = built.expect_err(name);
            let code = if want["type"] == "NotImplementedError" {
                Code::Unimplemented
            } else {
                Code::InvalidArgument
            };
            assert_eq!(e.code(), code, "{name}: {e}");
            // Python's message may end in the tensor's repr where weir prints its shape.
            let msg = want["message"].as_str().unwrap();
            let head = msg.split("Tensor(\"").next().unwrap();
            assert!(e.message().starts_with(head), "{name}: {e} vs {msg}");
            errors += 1;
            continue;
        }
        let y = built.unwrap_or_else(|e| panic!("{name}: {e}"));
        let want_shape: Vec<usize> = c["out_shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as usize)
            .collect();
        assert_eq!(
            y.shape(),
            weir_graph::Shape::known(&want_shape),
            "{name}: static shape"
        );
        let out = Session::new(&g)
            .unwrap()
            .run(&weir_session::RunArgs::new().fetch(&y))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(out[0].dtype().python_name(), c["dtype"], "{name}: dtype");
        assert_eq!(out[0].shape(), &want_shape[..], "{name}: shape");
        let want: Vec<f64> = c["output"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        let got = as_f64(&out[0]);
        let scale = want.iter().fold(1f64, |m, v| m.max(v.abs()));
        let tol = if c["dtype"] == "float32" { 1e-6 } else { 2e-15 } * scale;
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                (g - w).abs() <= tol,
                "{name}[{i}]: weir {g}, TensorFlow {w}"
            );
        }
    }
    assert_eq!(errors, 7);
}
