//! Gradients of `EuclideanNorm`, `CumulativeLogsumexp`, `SparseSegment*WithNumSegments`,
//! `MaxPoolV2` and `BiasAddV1` against TensorFlow 2.21's `tf.gradients` with a fixed `grad_ys`
//! (tests/data/math_odds_grad/expected.json, made by make_math_odds_grad.py), against the op
//! types TensorFlow's backward graph uses, and, for the float64 cases, against weir's numeric
//! gradient checker.
//!
//! Values are bit for bit where a case's `rtol` is 0; otherwise within that relative
//! tolerance (a norm's sum, or `exp`/`log1p`, computed in another order or library).

use std::path::Path;

use serde_json::Value;
use weir_graph::{DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::math::{Reduce, Scan, SparseSegment};
use weir_ops::nn::{bias_add_v1, max_pool_v2, Padding};
use weir_session::Session;
use weir_train::gradients::check::gradient_error;
use weir_train::gradients::gradients;

/// The number of cases make_math_odds_grad.py writes, so a truncated file cannot pass.
const CASES: usize = 22;

fn cases() -> Vec<Value> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/math_odds_grad/expected.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// A recorded tensor: floats as the integer bits of their values.
fn tensor(v: &Value) -> Tensor {
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let vals = v["values"].as_array().unwrap();
    match v["dtype"].as_str().unwrap() {
        "float32" => Tensor::from_vec(
            &shape,
            vals.iter()
                .map(|x| f32::from_bits(x.as_u64().unwrap() as u32))
                .collect(),
        ),
        "float64" => Tensor::from_vec(
            &shape,
            vals.iter()
                .map(|x| f64::from_bits(x.as_u64().unwrap()))
                .collect(),
        ),
        "int32" => Tensor::from_vec(
            &shape,
            vals.iter().map(|x| x.as_i64().unwrap() as i32).collect(),
        ),
        d => panic!("unexpected dtype {d}"),
    }
    .unwrap()
}

fn floats(t: &Tensor) -> Vec<f64> {
    match t.dtype() {
        DType::F32 => t
            .to_vec::<f32>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect(),
        _ => t.to_vec::<f64>().unwrap(),
    }
}

fn assert_close(name: &str, got: &Tensor, want: &Tensor, rtol: f64) {
    assert_eq!(got.dtype(), want.dtype(), "{name}: dtype");
    assert_eq!(got.shape(), want.shape(), "{name}: shape");
    for (k, (a, b)) in floats(got).into_iter().zip(floats(want)).enumerate() {
        let ok = (a.is_nan() && b.is_nan())
            || a == b
            || (rtol > 0.0 && (a - b).abs() <= rtol * b.abs().max(f64::MIN_POSITIVE));
        assert!(ok, "{name}: element {k}: got {a:e}, TensorFlow {b:e}");
    }
}

/// The case's forward op of `x` with weir's builders.
fn forward(c: &Value, x: &Output, g: &Graph) -> Result<Output> {
    let a = &c["attrs"];
    let flag = |k: &str| a[k].as_bool().unwrap_or(false);
    let extra: Vec<Output> = c["extra"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| constant(g, tensor(e)))
        .collect::<Result<_>>()?;
    match c["kind"].as_str().unwrap() {
        "euclidean_norm" => {
            let r = Reduce::euclidean_norm().keep_dims(flag("keep_dims"));
            let r = match &a["axis"] {
                Value::Null => r,
                Value::Number(n) => r.axis(n.as_i64().unwrap()),
                v => r.axis(
                    v.as_array()
                        .unwrap()
                        .iter()
                        .map(|d| d.as_i64().unwrap())
                        .collect::<Vec<_>>(),
                ),
            };
            r.build(x)
        }
        "cumulative_logsumexp" => Scan::logsumexp()
            .axis(a["axis"].as_i64().unwrap_or(0))
            .exclusive(flag("exclusive"))
            .reverse(flag("reverse"))
            .build(x),
        "sparse_segment" => match a["mode"].as_str().unwrap() {
            "sum" => SparseSegment::sum(),
            "mean" => SparseSegment::mean(),
            _ => SparseSegment::sqrt_n(),
        }
        .num_segments(&extra[2])
        .build(x, &extra[0], &extra[1]),
        "max_pool_v2" => {
            let p = match a["padding"].as_str().unwrap() {
                "SAME" => Padding::Same,
                _ => Padding::Valid,
            };
            max_pool_v2(x, &extra[0], &extra[1], p)
        }
        "bias_add_v1" => bias_add_v1(&extra[0], x),
        "bias_add_v1_value" => bias_add_v1(x, &extra[0]),
        k => panic!("unknown kind {k}"),
    }
}

/// Op types that only move shapes and constants around, which TensorFlow's Python folds
/// where weir may build them (or the reverse).
const PLUMBING: &[&str] = &[
    "Const",
    "Identity",
    "Shape",
    "Rank",
    "Reshape",
    "ReducedShape",
    "StridedSlice",
];

fn check_case(c: &Value) {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let x = constant(&g, tensor(&c["x"])).unwrap();
    let y = forward(c, &x, &g).unwrap();
    let before = g.operations().len();
    let gy = constant(&g, tensor(&c["grad_ys"])).unwrap();
    let dx = gradients(
        std::slice::from_ref(&y),
        std::slice::from_ref(&x),
        Some(&[gy]),
    )
    .unwrap()
    .remove(0)
    .unwrap_or_else(|| panic!("{name}: no gradient"));
    let built: Vec<String> = g.operations()[before..]
        .iter()
        .map(|o| o.op_type().to_string())
        .collect();
    for t in c["backward_ops"].as_array().unwrap() {
        let t = t.as_str().unwrap();
        if !PLUMBING.contains(&t) {
            assert!(built.iter().any(|b| b == t), "{name}: no {t} in {built:?}");
        }
    }
    let out = Session::new(&g)
        .unwrap()
        .run(&weir_session::RunArgs::new().fetch(&y).fetch(&dx))
        .unwrap();
    let rtol = c["rtol"].as_f64().unwrap();
    assert_close(
        &format!("{name} (forward)"),
        &out[0],
        &tensor(&c["y"]),
        rtol,
    );
    assert_close(name, &out[1], &tensor(&c["grad"]), rtol);
}

#[test]
fn gradients_match_tensorflow() {
    let cases = cases();
    assert_eq!(cases.len(), CASES);
    let mut failed = Vec::new();
    for c in &cases {
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check_case(c)));
        if run.is_err() {
            failed.push(c["name"].as_str().unwrap().to_string());
        }
    }
    assert!(failed.is_empty(), "cases differ: {failed:?}");
}

#[test]
fn float64_gradients_match_numeric_ones() {
    let mut checked = 0;
    for c in cases().iter().filter(|c| c["x"]["dtype"] == "float64") {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let xv = tensor(&c["x"]);
        let x = placeholder(&g, DType::F64, Shape::known(xv.shape())).unwrap();
        let y = forward(c, &x, &g).unwrap();
        let err = gradient_error(&x, &xv, &y, &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(err < 1e-6, "{name}: numeric gradient differs by {err}");
        checked += 1;
    }
    assert_eq!(checked, 6);
}
