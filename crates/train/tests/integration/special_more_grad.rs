//! Gradients of `tf.math.special`'s Bessel functions, `dawsn`, `expint`, the Fresnel
//! integrals and `spence` against TensorFlow 2.21's `tf.gradients` (every case of
//! tests/data/special_more_grad/expected.json, made by make_special_more_grad.py there), and in
//! float64 against weir's numeric gradient checker (central differences).

use serde_json::Value;
use weir_graph::{DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::math::special_more as sm;
use weir_session::{RunArgs, Session};
use weir_train::gradients::check::gradient_error;
use weir_train::gradients::gradients;

fn cases() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/special_more_grad/expected.json"
    );
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// A recorded `{"dtype", "dims", "values"}` tensor, floats as bit patterns.
fn tensor(v: &Value) -> Tensor {
    let dims: Vec<usize> = v["dims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let bits = v["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_u64().unwrap());
    match v["dtype"].as_str().unwrap() {
        "float32" => Tensor::from_vec(&dims, bits.map(|b| f32::from_bits(b as u32)).collect()),
        _ => Tensor::from_vec(&dims, bits.map(f64::from_bits).collect()),
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

fn builder(name: &str) -> fn(Output) -> Result<Output> {
    match name {
        "bessel_i0" => |x| sm::bessel_i0(x),
        "bessel_i1" => |x| sm::bessel_i1(x),
        "bessel_k0" => |x| sm::bessel_k0(x),
        "bessel_k0e" => |x| sm::bessel_k0e(x),
        "bessel_k1" => |x| sm::bessel_k1(x),
        "bessel_k1e" => |x| sm::bessel_k1e(x),
        "bessel_j0" => |x| sm::bessel_j0(x),
        "bessel_j1" => |x| sm::bessel_j1(x),
        "bessel_y0" => |x| sm::bessel_y0(x),
        "bessel_y1" => |x| sm::bessel_y1(x),
        "dawsn" => |x| sm::dawsn(x),
        "expint" => |x| sm::expint(x),
        "fresnel_cos" => |x| sm::fresnel_cos(x),
        "fresnel_sin" => |x| sm::fresnel_sin(x),
        "spence" => |x| sm::spence(x),
        other => panic!("no builder {other}"),
    }
}

/// The graph of a case: its input placeholder and output.
fn build(g: &Graph, case: &Value) -> (Output, Output) {
    let x = tensor(&case["x"]);
    let p = placeholder(g, x.dtype(), Shape::known(x.shape())).unwrap();
    let y = builder(case["fn"].as_str().unwrap())(p.clone()).unwrap();
    (p, y)
}

#[test]
fn gradients_match_tensorflow() {
    let all = cases();
    assert_eq!(all.len(), 30);
    for case in &all {
        let name = case["name"].as_str().unwrap();
        let g = Graph::new();
        let (p, y) = build(&g, case);
        let gy = constant(&g, tensor(&case["grad_ys"])).unwrap();
        let d = gradients(&[y], std::slice::from_ref(&p), Some(&[gy])).unwrap()[0]
            .clone()
            .unwrap_or_else(|| panic!("{name}: no gradient"));
        let x = tensor(&case["x"]);
        let got = Session::new(&g)
            .unwrap()
            .run(&RunArgs::new().fetch(&d).feed(&p, x.clone()))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let want = tensor(&case["grad"]);
        assert_eq!(got[0].dtype(), want.dtype(), "{name}");
        // The gradients are the same few ops as TensorFlow's; its exp, log, sin, cos (and
        // float32 Bessel functions) are Eigen's vectorized ones, an ulp or so from weir's, and
        // a difference of two terms carries their absolute error: within 2 ulp of the case's
        // largest gradient element.
        let (eps, ulps) = if want.dtype() == DType::F32 {
            (f32::EPSILON as f64, 2.0)
        } else {
            (f64::EPSILON, 2.0)
        };
        let (gv, wv, xv) = (floats(&got[0]), floats(&want), floats(&x));
        let scale = wv.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for i in 0..wv.len() {
            let (a, b) = (gv[i], wv[i]);
            let ok = (a.is_nan() && b.is_nan())
                || a == b
                || (a - b).abs() <= ulps * eps * (b.abs() + scale);
            assert!(ok, "{name}: at x = {}: got {a:e}, TensorFlow {b:e}", xv[i]);
        }
    }
}

#[test]
fn float64_gradients_match_central_differences() {
    let mut n = 0;
    for case in cases().iter().filter(|c| c["x"]["dtype"] == "float64") {
        let name = case["name"].as_str().unwrap();
        let g = Graph::new();
        let (p, y) = build(&g, case);
        let x = tensor(&case["x"]);
        let err = gradient_error(&p, &x, &y, &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
        let scale = floats(&tensor(&case["grad"]))
            .iter()
            .fold(1.0f64, |m, v| m.max(v.abs()));
        assert!(err < 1e-6 * scale, "{name}: off by {err} (scale {scale})");
        n += 1;
    }
    assert_eq!(n, 15);
}
