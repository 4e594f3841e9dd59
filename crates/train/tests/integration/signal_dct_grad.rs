//! Gradients of `tf.signal.dct`, `idct` and `mfccs_from_log_mel_spectrograms` (every type and
//! norm, float32 and float64 `[2, 8]` inputs) against TensorFlow 2.21's `tf.gradients` with a
//! fixed `grad_ys` (the "grads" of crates/ops/tests/data/signal_dct/expected.json), and the
//! float64 ones against weir's central-difference checker.
//!
//! Tolerance against TensorFlow: the gradient runs the forward FFTs' adjoints (IRFFT/RFFT), so
//! it inherits the forward tolerance of crates/ops/tests/integration/signal_dct.rs: 1e-6
//! (float32) and 2e-15 (float64) relative to the largest expected magnitude, doubled for the
//! extra transform.

use serde_json::Value;
use weir_graph::{DType, Graph, Output, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::spectral::signal::{mfccs_from_log_mel_spectrograms, Dct};
use weir_session::{RunArgs, Session};
use weir_train::gradients::check::gradient_error;
use weir_train::gradients::gradients;

fn load() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../ops/tests/data/signal_dct/expected.json"
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["grads"].as_array().unwrap().clone()
}

fn values(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn tensor(dtype: DType, shape: &[usize], vals: Vec<f64>) -> Tensor {
    if dtype == DType::F32 {
        Tensor::from_vec(shape, vals.iter().map(|&v| v as f32).collect()).unwrap()
    } else {
        Tensor::from_vec(shape, vals).unwrap()
    }
}

fn dtype_of(c: &Value) -> DType {
    if c["dtype"] == "float32" {
        DType::F32
    } else {
        DType::F64
    }
}

/// The case's transform of `x`.
fn transform(c: &Value, x: &Output) -> Output {
    if c["fn"] == "mfcc" {
        return mfccs_from_log_mel_spectrograms(x).unwrap();
    }
    let mut d = Dct::new().dct_type(c["attrs"]["type"].as_i64().unwrap());
    if let Some(norm) = c["attrs"]["norm"].as_str() {
        d = d.norm(norm);
    }
    if c["fn"] == "idct" {
        d.build_inverse(x).unwrap()
    } else {
        d.build(x).unwrap()
    }
}

#[test]
fn dct_gradients_match_tensorflow() {
    let cases = load();
    assert_eq!(cases.len(), 30);
    for c in &cases {
        let name = c["name"].as_str().unwrap();
        let dt = dtype_of(c);
        let g = Graph::new();
        let x = constant(&g, tensor(dt, &[2, 8], values(&c["input"]))).unwrap();
        let y = transform(c, &x);
        let gy = constant(&g, tensor(dt, &[2, 8], values(&c["grad_ys"]))).unwrap();
        let dx = gradients(&[y], &[x], Some(&[gy])).unwrap_or_else(|e| panic!("{name}: {e}"));
        let dx = dx[0]
            .clone()
            .unwrap_or_else(|| panic!("{name}: no gradient"));
        let out = Session::new(&g)
            .unwrap()
            .run(&RunArgs::new().fetch(&dx))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let got: Vec<f64> = match dt {
            DType::F32 => out[0]
                .as_slice::<f32>()
                .unwrap()
                .iter()
                .map(|&v| v as f64)
                .collect(),
            _ => out[0].as_slice::<f64>().unwrap().to_vec(),
        };
        let want = values(&c["grad"]);
        assert_eq!(got.len(), want.len(), "{name}");
        let scale = want.iter().fold(1f64, |m, v| m.max(v.abs()));
        let tol = if dt == DType::F32 { 2e-6 } else { 4e-15 } * scale;
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                (g - w).abs() <= tol,
                "{name}[{i}]: weir {g}, TensorFlow {w}"
            );
        }
    }
}

#[test]
fn float64_dct_gradients_match_central_differences() {
    let mut n = 0;
    for c in load().iter().filter(|c| c["dtype"] == "float64") {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let x = placeholder(&g, DType::F64, vec![2usize, 8]).unwrap();
        let y = transform(c, &x);
        let v = tensor(DType::F64, &[2, 8], values(&c["input"]));
        let err = gradient_error(&x, &v, &y, &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
        // The transforms are linear, so central differences are exact up to rounding.
        assert!(err < 1e-8, "{name}: off by {err}");
        n += 1;
    }
    assert_eq!(n, 15);
}
