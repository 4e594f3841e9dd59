//! Gradients of MatrixSolve, MatrixSolveLs, LogMatrixDeterminant (and logdet), Qr,
//! SelfAdjointEigV2, Svd (and pinv), MatrixSquareRoot, expm and Cross against TensorFlow 2.21's
//! `tf.gradients` (every case of crates/ops/tests/data/linalg_more/expected.json with recorded
//! gradients, of the recorded sign-invariant objective), against TensorFlow's gradient errors,
//! and against weir's numeric gradient checker (central differences) for the float64 cases.

#[path = "../../../ops/tests/integration/linalg_more/build.rs"]
mod build;

use build::{assert_close, build, cases, tensor};
use serde_json::Value;
use weir_graph::{Code, DType, Graph, Output, Result};
use weir_ops::array::constant;
use weir_ops::math::{add_n, mul, reduce_sum, square, Axes};
use weir_session::{RunArgs, Session};
use weir_train::gradients::check::gradient_error;
use weir_train::gradients::gradients;

/// The case's objective `sum_i sum(w_i * f_i(output_i))` and its inputs.
fn objective(g: &Graph, case: &Value) -> Result<(Output, build::Built)> {
    let built = build(g, case)?;
    let mut terms = Vec::new();
    let loss = case["loss"].as_array().unwrap();
    for (spec, w) in loss.iter().zip(case["weights"].as_array().unwrap()) {
        let y = built.outputs[spec[0].as_u64().unwrap() as usize].clone();
        let y = if spec[1] == "square" { square(&y)? } else { y };
        terms.push(reduce_sum(mul(constant(g, tensor(w))?, &y)?, Axes::All)?);
    }
    Ok((add_n(&terms)?, built))
}

fn grad_names(case: &Value) -> Vec<String> {
    match case.get("grads") {
        Some(m) => m.as_object().unwrap().keys().cloned().collect(),
        None => case["grad_names"]
            .as_array()
            .map(|v| v.iter().map(|x| x.as_str().unwrap().to_string()).collect())
            .unwrap_or_default(),
    }
}

/// Gradients go through inverses and eigen-gaps, so they carry the conditioning of the inputs:
/// 100 times the value tolerance.
const GRAD_FACTOR: f64 = 100.0;

#[test]
fn gradients_match_tensorflow() {
    let mut n = 0;
    for case in cases().iter().filter(|c| c.get("grads").is_some()) {
        let name = case["name"].as_str().unwrap();
        let g = Graph::new();
        let (loss, built) = objective(&g, case).unwrap_or_else(|e| panic!("{name}: {e}"));
        let names = grad_names(case);
        let xs: Vec<Output> = names.iter().map(|k| built.inputs[k].clone()).collect();
        let grads = gradients(&[loss], &xs, None).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut args = RunArgs::new();
        for (k, d) in names.iter().zip(&grads) {
            let d = d
                .as_ref()
                .unwrap_or_else(|| panic!("{name}: no gradient for {k}"));
            args = args.fetch(d);
        }
        let got = Session::new(&g)
            .unwrap()
            .run(&args)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        for (k, v) in names.iter().zip(&got) {
            let want = tensor(&case["grads"][k]);
            assert_close(&format!("{name}: d/d{k}"), v, &want, GRAD_FACTOR);
        }
        n += 1;
    }
    assert!(n >= 30, "only {n} gradient cases");
}

#[test]
fn unsupported_gradients_fail_as_tensorflow() {
    let mut n = 0;
    for case in cases().iter().filter(|c| c.get("grad_error").is_some()) {
        let name = case["name"].as_str().unwrap();
        let g = Graph::new();
        let (loss, built) = objective(&g, case).unwrap();
        let xs: Vec<Output> = grad_names(case)
            .iter()
            .map(|k| built.inputs[k].clone())
            .collect();
        let e = gradients(&[loss], &xs, None)
            .err()
            .unwrap_or_else(|| panic!("{name}: expected an error"));
        let err = &case["grad_error"];
        let code = match err["type"].as_str().unwrap() {
            "NotImplementedError" => Code::Unimplemented,
            _ => Code::InvalidArgument,
        };
        assert_eq!(e.code(), code, "{name}: {e}");
        // TensorFlow's message ends with the Python repr of the input tensor; weir's with its
        // name: compare up to there.
        let want = err["message"].as_str().unwrap();
        let want = want.split(" from op input=").next().unwrap();
        assert!(e.message().contains(want), "{name}: {e} vs {want}");
        n += 1;
    }
    assert_eq!(n, 3);
}

/// `logdet` goes through Cholesky, which reads one triangle but has a symmetric gradient (as
/// TensorFlow's), so central differences see only half of each off-diagonal pair.
const NOT_NUMERIC: &[&str] = &["logdet"];

#[test]
fn float64_gradients_match_central_differences() {
    let mut n = 0;
    for case in cases().iter().filter(|c| c.get("grads").is_some()) {
        let name = case["name"].as_str().unwrap();
        if NOT_NUMERIC.contains(&case["fn"].as_str().unwrap()) {
            continue;
        }
        for k in grad_names(case) {
            let v = tensor(&case["inputs"][&k]);
            if v.dtype() != DType::F64 {
                continue;
            }
            let g = Graph::new();
            let (loss, built) = objective(&g, case).unwrap();
            let err = gradient_error(&built.inputs[&k], &v, &loss, &[])
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            // Central differences are accurate to about 1e-8 of the gradient's magnitude (the
            // exponential of a large matrix has entries near 1e5).
            let scale = build::numbers(&tensor(&case["grads"][&k]))
                .iter()
                .fold(1.0f64, |m, x| m.max(x.abs()));
            assert!(
                err < 1e-6 * scale,
                "{name}: d/d{k} is off by {err} (scale {scale})"
            );
            n += 1;
        }
    }
    assert!(n >= 25, "only {n} numeric checks");
}

#[test]
fn gradients_need_static_matrix_dimensions_where_tensorflow_does() {
    use weir_graph::{Shape, Tensor};
    let g = Graph::new();
    let a = constant(
        &g,
        Tensor::from_vec(&[3, 2], vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 7.0]).unwrap(),
    )
    .unwrap();
    let x = weir_ops::array::placeholder_with_default(&a, Shape::unknown()).unwrap();
    let (q, _r) = weir_ops::linalg::qr(&x, false).unwrap();
    let e = gradients(&[q], std::slice::from_ref(&x), None).unwrap_err();
    assert_eq!(e.code(), Code::Unimplemented);
    assert!(
        e.message()
            .contains("QrGrad not implemented with dynamic shapes"),
        "{e}"
    );
    let (_s, u, _v) = weir_ops::linalg::svd(&x, false, true).unwrap();
    let e = gradients(&[u], &[x], None).unwrap_err();
    assert!(
        e.message()
            .contains("SVD gradient has not been implemented"),
        "{e}"
    );
}
