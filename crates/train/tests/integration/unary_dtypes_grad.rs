//! Gradients of the elementwise unary math ops in float16, bfloat16 and complex64 against
//! TensorFlow 2.21's `tf.gradients` (tests/data/unary_dtypes_grad/expected.json, made by
//! make_unary_dtypes_grad.py there, with a fixed `grad_ys`): the gradient graphs build and
//! run in the input's dtype, and conjugate for complex inputs as TensorFlow's do.
//!
//! Tolerances: TensorFlow fuses some derivatives into one kernel that rounds once
//! (`SqrtGrad`, `TanhGrad`, ...), where weir's graph rounds after each `Mul`/`Sub` in the half
//! type, so half results may differ by a few ulps: 4 float16 ulps (2^-11 relative each) and 4
//! bfloat16 ulps (2^-8). complex64 agrees to float32 rounding (1e-5 relative to the largest
//! part).

use serde_json::Value;
use weir_graph::{bf16, f16, Complex, DType, Graph, Output, Tensor};
use weir_ops::array::constant;
use weir_session::Session;
use weir_train::gradients::gradients;

fn cases() -> Vec<Value> {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/unary_dtypes_grad/expected.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str::<Value>(&text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn dtype(name: &str) -> DType {
    match name {
        "float16" => DType::F16,
        "bfloat16" => DType::BF16,
        _ => DType::C64,
    }
}

fn tensor(dt: DType, v: &Value) -> Tensor {
    let items = v.as_array().unwrap();
    match dt {
        DType::F16 => Tensor::from(
            items
                .iter()
                .map(|b| f16::from_bits(b.as_u64().unwrap() as u16))
                .collect::<Vec<_>>(),
        ),
        DType::BF16 => Tensor::from(
            items
                .iter()
                .map(|b| bf16::from_bits(b.as_u64().unwrap() as u16))
                .collect::<Vec<_>>(),
        ),
        _ => Tensor::from(
            items
                .iter()
                .map(|p| Complex::new(p[0].as_f64().unwrap() as f32, p[1].as_f64().unwrap() as f32))
                .collect::<Vec<_>>(),
        ),
    }
}

/// The values of a half or complex64 tensor as (re, im) pairs of f64.
fn values(t: &Tensor) -> Vec<(f64, f64)> {
    match t.dtype() {
        DType::F16 => t
            .to_vec::<f16>()
            .unwrap()
            .into_iter()
            .map(|v| (v.to_f64(), 0.0))
            .collect(),
        DType::BF16 => t
            .to_vec::<bf16>()
            .unwrap()
            .into_iter()
            .map(|v| (v.to_f64(), 0.0))
            .collect(),
        _ => t
            .to_vec::<Complex<f32>>()
            .unwrap()
            .into_iter()
            .map(|z| (z.re as f64, z.im as f64))
            .collect(),
    }
}

fn close(what: &str, got: &Tensor, want: &Tensor) {
    assert_eq!(got.dtype(), want.dtype(), "{what}");
    let rel = match got.dtype() {
        DType::F16 => 4.0 * 2f64.powi(-11),
        DType::BF16 => 4.0 * 2f64.powi(-8),
        _ => 1e-5,
    };
    for (i, (g, w)) in values(got).iter().zip(values(want)).enumerate() {
        let scale = w.0.abs().max(w.1.abs()).max(1e-3);
        let err = (g.0 - w.0).abs().max((g.1 - w.1).abs());
        assert!(
            err <= rel * scale,
            "{what}[{i}]: weir {g:?}, TensorFlow {w:?}"
        );
    }
}

fn unary(g: &Graph, op: &str, x: &Output) -> Output {
    weir_ops::register_all_ops();
    g.new_operation(op)
        .input(x.clone())
        .build()
        .unwrap()
        .output(0)
        .unwrap()
}

#[test]
fn half_and_complex_gradients_match_tensorflow() {
    let mut n = 0;
    for case in cases() {
        let (op, dt) = (
            case["op"].as_str().unwrap(),
            dtype(case["dtype"].as_str().unwrap()),
        );
        let what = format!("{op} {dt}");
        let g = Graph::new();
        let x = constant(&g, tensor(dt, &case["x"])).unwrap();
        let y = unary(&g, op, &x);
        let gy = constant(&g, tensor(dt, &case["grad_ys"])).unwrap();
        let dx = gradients(std::slice::from_ref(&y), &[x], Some(&[gy]))
            .unwrap_or_else(|e| panic!("{what}: {e}"))
            .remove(0)
            .unwrap_or_else(|| panic!("{what}: no gradient"));
        assert_eq!(dx.dtype(), dt, "{what}");
        let sess = Session::new(&g).unwrap();
        let got_y = sess.eval(&y).unwrap();
        close(&format!("{what} y"), &got_y, &tensor(dt, &case["y"]));
        let got = sess.eval(&dx).unwrap_or_else(|e| panic!("{what}: {e}"));
        close(&format!("{what} dx"), &got, &tensor(dt, &case["dx"]));
        n += 1;
    }
    assert!(n >= 60, "only {n} cases");
}
