//! Gradients of the special unary math ops, Zeta/Polygamma, and softplus/softsign/selu/crelu
//! (with the second-order gradients of SoftplusGrad and SeluGrad) against TensorFlow 2.21's
//! `tf.gradients` (every case of crates/ops/tests/data/math_special/expected.json with recorded
//! gradients), and against weir's numeric gradient checker (central differences).

#[path = "../../../ops/tests/integration/math_special/build.rs"]
mod build;

use build::{build, cases, numbers, tensor};
use serde_json::Value;
use weir_graph::{Code, DType, Graph, Output};
use weir_ops::array::constant;
use weir_session::{RunArgs, Session};
use weir_train::gradients::check::gradient_error;
use weir_train::gradients::gradients;

fn names(case: &Value, key: &str) -> Vec<String> {
    match &case[key] {
        Value::Object(m) => m.keys().cloned().collect(),
        Value::Array(a) => a.iter().map(|v| v.as_str().unwrap().to_string()).collect(),
        _ => vec![],
    }
}

/// Within `ulps` of TensorFlow's value (of its float type), or within `ulps` of the largest
/// gradient element in absolute terms: a gradient is a product and difference of a few ops
/// (e.g. `i0e(x) - y (sign(x) + 1/x)`), each a few ulp off, so small elements that come out of
/// a cancellation carry the absolute error of the larger terms.
fn close(got: &[f64], want: &[f64], eps: f64, ulps: f64) -> bool {
    let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    got.iter().zip(want).all(|(a, b)| {
        (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= ulps * eps * (b.abs() + scale)
    })
}

#[test]
fn gradients_match_tensorflow() {
    let mut n = 0;
    for case in cases().iter().filter(|c| c.get("grad_ys").is_some()) {
        let name = case["name"].as_str().unwrap();
        let with = names(case, "grads");
        let without = names(case, "no_grad");
        let g = Graph::new();
        let built = build(&g, case).unwrap_or_else(|e| panic!("{name}: {e}"));
        let all: Vec<&String> = with.iter().chain(&without).collect();
        let xs: Vec<Output> = all.iter().map(|k| built.inputs[*k].clone()).collect();
        let gy = constant(&g, tensor(&case["grad_ys"])).unwrap();
        let grads = gradients(std::slice::from_ref(&built.output), &xs, Some(&[gy]))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        for (k, d) in all.iter().zip(&grads) {
            assert_eq!(
                d.is_some(),
                with.contains(k),
                "{name}: TensorFlow's gradient for {k} is {}",
                if with.contains(k) { "defined" } else { "None" }
            );
        }
        if with.is_empty() {
            n += 1;
            continue;
        }
        let sess = Session::new(&g).unwrap();
        let mut args = RunArgs::new();
        for d in grads.iter().take(with.len()) {
            args = args.fetch(d.as_ref().unwrap());
        }
        let got = sess.run(&args).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (k, v) in with.iter().zip(&got) {
            let want = tensor(&case["grads"][k]);
            assert_eq!(v.shape(), want.shape(), "{name}: d/d{k} shape");
            let (eps, ulps) = if want.dtype() == DType::F32 {
                (f32::EPSILON as f64, 16.0)
            } else {
                (f64::EPSILON, 16.0)
            };
            assert!(
                close(&numbers(v), &numbers(&want), eps, ulps),
                "{name}: d/d{k}: got {:?}, TensorFlow {:?}",
                numbers(v),
                numbers(&want)
            );
        }
        n += 1;
    }
    assert!(n >= 60, "only {n} gradient cases");
}

#[test]
fn gradients_match_central_differences() {
    let mut n = 0;
    for case in cases().iter().filter(|c| c.get("grads").is_some()) {
        let name = case["name"].as_str().unwrap();
        for k in names(case, "grads") {
            let v = tensor(&case["inputs"][&k]);
            let g = Graph::new();
            let built = build(&g, case).unwrap();
            let err = gradient_error(&built.inputs[&k], &v, &built.output, &[])
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            // Central differences with a step of 1e-6 (float64) or 1e-3 (float32), relative to
            // the gradient's size: the float32 bound allows for the step's truncation error on
            // steep, curved functions (ndtri near 0.01, tan near pi/2).
            let scale = numbers(&tensor(&case["grads"][&k]))
                .iter()
                .fold(1.0f64, |m, v| m.max(v.abs()));
            let bound = if v.dtype() == DType::F64 { 1e-6 } else { 2e-2 };
            assert!(
                err < bound * scale,
                "{name}: d/d{k} is off by {err} (scale {scale})"
            );
            n += 1;
        }
    }
    assert!(n >= 60, "only {n} numeric checks");
}

#[test]
fn softsign_grad_has_no_gradient_as_in_tensorflow() {
    let g = Graph::new();
    let x = weir_ops::array::placeholder_with_default(
        constant(&g, [0.5f32, -2.0]).unwrap(),
        weir_graph::Shape::known(&[2]),
    )
    .unwrap();
    let d = weir_ops::nn::softsign_grad(constant(&g, [1.0f32, 1.0]).unwrap(), &x).unwrap();
    let e = gradients(&[d], &[x], None).unwrap_err();
    assert_eq!(e.code(), Code::NotFound);
    assert!(e.message().contains("op type: SoftsignGrad"), "{e}");
}

#[test]
fn inv_and_reciprocal_backprop_through_reciprocal_grad() {
    let g = Graph::new();
    let x = constant(&g, [0.5f64, -4.0]).unwrap();
    for y in [
        weir_ops::math::inv(&x).unwrap(),
        weir_ops::math::reciprocal(&x).unwrap(),
    ] {
        let d = gradients(&[y], std::slice::from_ref(&x), None).unwrap()[0]
            .clone()
            .unwrap();
        assert_eq!(d.op().op_type(), "ReciprocalGrad");
        let v = Session::new(&g).unwrap().eval(&d).unwrap();
        assert_eq!(v.to_vec::<f64>().unwrap(), vec![-4.0, -0.0625]);
    }
}
