//! Gradients of `Atan2`, `Xlogy`, `Xdivy`, `Xlog1py`, `MulNoNan`, `NextAfter`, `Igamma`,
//! `Igammac` and `Betainc` against TensorFlow 2.21's `tf.gradients` (every case of
//! crates/ops/tests/data/math_binary/expected.json with recorded gradients, broadcasting
//! reductions included, `None` where TensorFlow gives none), and against weir's numeric
//! gradient checker (central differences: within 1e-6 for float64, 2e-2 for float32).

#[path = "../../../ops/tests/integration/math_binary/build.rs"]
mod build;

use build::{assert_tensor, build, cases, tensor, tolerance};
use serde_json::Value;
use weir_graph::{Code, DType, Graph, Output};
use weir_ops::array::constant;
use weir_session::{RunArgs, Session};
use weir_train::gradients::check::gradient_error;
use weir_train::gradients::gradients;

fn grad_cases() -> impl Iterator<Item = &'static Value> {
    cases().iter().filter(|c| c.get("grads").is_some())
}

/// How far weir's gradients may be from TensorFlow's, `(relative, absolute)`: the backward
/// graphs are the same ops, so twice the forward tolerances (an input's gradient passes
/// through a few more of the same approximations: `Lgamma`, `Exp`, `Log` in the densities).
fn grad_tolerance(case: &Value, dtype: DType) -> (f64, f64) {
    let (r, a) = tolerance(case, dtype);
    (2.0 * r, a)
}

#[test]
fn gradients_match_tensorflow() {
    let mut n = 0;
    for case in grad_cases() {
        let name = case["name"].as_str().unwrap();
        let g = Graph::new();
        let built = build(&g, case, true).unwrap_or_else(|e| panic!("{name}: {e}"));
        let gy = constant(&g, tensor(&case["grad_ys"])).unwrap();
        let grads = gradients(
            std::slice::from_ref(&built.output),
            &built.inputs,
            Some(&[gy]),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let want = case["grads"].as_array().unwrap();
        let sess = Session::new(&g).unwrap();
        for (k, (d, w)) in grads.iter().zip(want).enumerate() {
            match (d, w) {
                (None, Value::Null) => {}
                (Some(d), w) if !w.is_null() => {
                    let got = sess
                        .run(&RunArgs::new().fetch(d))
                        .unwrap_or_else(|e| panic!("{name}: {e}"))
                        .remove(0);
                    let tol = grad_tolerance(case, got.dtype());
                    assert_tensor(&format!("{name}: d/d input {k}"), &got, w, tol);
                }
                (d, w) => panic!("{name}: input {k}: weir {d:?}, TensorFlow {w}"),
            }
        }
        n += 1;
    }
    assert!(n >= 25, "only {n} gradient cases");
}

/// Cases whose TensorFlow gradient is not the derivative by design: `xlogy` and `xdivy` pass
/// no gradient to `x` where `x == 0` (the mask `x != 0`), though the functions have slope
/// `log(y)` and `1/y` there.
const NOT_NUMERIC: &[&str] = &["Xlogy_zero_x_grad_f64", "Xdivy_zero_x_grad_f64"];

/// The differentiable float inputs of the recorded cases of `dtype`, as (case, input index).
fn numeric_inputs(dtype: DType) -> Vec<(&'static Value, usize)> {
    let mut out = Vec::new();
    for case in grad_cases().filter(|c| !NOT_NUMERIC.iter().any(|n| c["name"] == *n)) {
        for (k, w) in case["grads"].as_array().unwrap().iter().enumerate() {
            if !w.is_null() && tensor(&case["inputs"][k]).dtype() == dtype {
                out.push((case, k));
            }
        }
    }
    out
}

fn numeric_error(case: &Value, k: usize) -> f64 {
    let name = case["name"].as_str().unwrap();
    let g = Graph::new();
    let built = build(&g, case, true).unwrap();
    let v = tensor(&case["inputs"][k]);
    gradient_error(&built.inputs[k], &v, &built.output, &[])
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn float64_gradients_match_central_differences() {
    let inputs = numeric_inputs(DType::F64);
    for &(case, k) in &inputs {
        let err = numeric_error(case, k);
        assert!(
            err < 1e-6,
            "{}: d/d input {k} is off by {err}",
            case["name"]
        );
    }
    assert!(inputs.len() >= 25, "only {} numeric checks", inputs.len());
}

#[test]
fn float32_gradients_match_central_differences_roughly() {
    let inputs = numeric_inputs(DType::F32);
    for &(case, k) in &inputs {
        // Central differences in float32 with a step of 1e-3.
        let err = numeric_error(case, k);
        assert!(
            err < 2e-2,
            "{}: d/d input {k} is off by {err}",
            case["name"]
        );
    }
    assert!(inputs.len() >= 10, "only {} numeric checks", inputs.len());
}

#[test]
fn igamma_gradient_uses_igamma_grad_a() {
    let case = cases()
        .iter()
        .find(|c| c["name"] == "Igamma_grad_f64")
        .unwrap();
    let g = Graph::new();
    let built = build(&g, case, true).unwrap();
    gradients(&[built.output], &built.inputs, None).unwrap();
    let ops: Vec<String> = g.with_nodes(|n| n.iter().map(|n| n.op_type().to_string()).collect());
    assert!(ops.iter().any(|o| o == "IgammaGradA"), "{ops:?}");
    assert!(ops.iter().any(|o| o == "Lgamma"), "{ops:?}");
}

#[test]
fn mod_has_no_gradient() {
    // TensorFlow registers gradients for FloorMod but not for the raw `Mod`.
    let g = Graph::new();
    let x = constant(&g, [5.5f64, -3.0]).unwrap();
    let y = constant(&g, 2.0f64).unwrap();
    let z = weir_ops::math::c_mod(&x, &y).unwrap();
    let e = gradients(&[z], &[x], None).unwrap_err();
    assert_eq!(e.code(), Code::NotFound);
    assert_eq!(
        e.message(),
        "No gradient defined for operation 'Mod' (op type: Mod)"
    );
}

#[test]
fn comparisons_and_bitwise_ops_pass_no_gradient() {
    use weir_ops::math::{cast, mul, ApproximateEqual};
    let g = Graph::new();
    let x = constant(&g, [1.0f32, 2.0]).unwrap();
    let y = constant(&g, [1.0f32, 2.5]).unwrap();
    let close = cast(
        ApproximateEqual::new()
            .tolerance(0.1)
            .build(&x, &y)
            .unwrap(),
        DType::F32,
    )
    .unwrap();
    let bits = weir_ops::bitwise::invert(cast(&x, DType::I32).unwrap()).unwrap();
    let z = mul(mul(&x, &close).unwrap(), cast(&bits, DType::F32).unwrap()).unwrap();
    let d: Vec<Output> = gradients(&[z], &[x.clone(), y.clone()], None)
        .unwrap()
        .into_iter()
        .map(|d| d.unwrap_or_else(|| constant(&g, [0.0f32, 0.0]).unwrap()))
        .collect();
    let sess = Session::new(&g).unwrap();
    let got = sess.run(&RunArgs::new().fetch(&d[0]).fetch(&d[1])).unwrap();
    // d/dx = close * invert(int(x)) = [1 * -2, 0 * -3]; nothing reaches y.
    assert_eq!(got[0].to_vec::<f32>().unwrap(), vec![-2.0, 0.0]);
    assert_eq!(got[1].to_vec::<f32>().unwrap(), vec![0.0, 0.0]);
}
