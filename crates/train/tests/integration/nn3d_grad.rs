//! Gradients of the 3-D convolutions and pools against TensorFlow 2.21's `tf.gradients` (every
//! case of crates/ops/tests/data/nn3d/expected.json with recorded gradients, within a few
//! rounding errors of the sum of |terms|, see `build::assert_close`), and against weir's numeric
//! gradient checker (central differences: within 1e-6 for the float64 cases, 2e-2 for the
//! float32 ones).

#[path = "../../../ops/tests/integration/nn3d/build.rs"]
mod build;

use build::{assert_close, build, cases, tensor};
use serde_json::Value;
use weir_graph::{DType, Graph};
use weir_ops::array::constant;
use weir_session::{RunArgs, Session};
use weir_train::gradients::check::gradient_error;
use weir_train::gradients::gradients;

fn grad_names(case: &Value) -> Vec<String> {
    case["grads"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
fn gradients_match_tensorflow() {
    let mut n = 0;
    for case in cases().iter().filter(|c| c.get("grads").is_some()) {
        let name = case["name"].as_str().unwrap();
        let names = grad_names(case);
        let g = Graph::new();
        let built = build(&g, case).unwrap_or_else(|e| panic!("{name}: {e}"));
        let xs: Vec<_> = names.iter().map(|k| built.inputs[k].clone()).collect();
        let gy = constant(&g, tensor(&case["grad_ys"])).unwrap();
        let grads = gradients(std::slice::from_ref(&built.output), &xs, Some(&[gy]))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
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
            let want = &case["grads"][k];
            // The max-pool gradients only route and add values: their own magnitude bounds
            // the rounding.
            let scale = case.get("grad_scales").map_or(want, |s| &s[k]);
            assert_close(&format!("{name}: d/d{k}"), v, want, scale, false);
            n += 1;
        }
    }
    assert!(n >= 35, "only {n} gradients");
}

/// Where central differences cannot work: `MaxPool3D`'s derivative jumps where two values of
/// a window swap places, and among the 8 to 45 random values of these windows some lie closer
/// than the float32 step (and the tie cases are exact ties). Its gradient is checked against
/// TensorFlow's above; the gradients of `MaxPool3DGrad` and `MaxPool3DGradGrad` with respect to
/// their (linear) `grad` input are checked here, except where ties make them ambiguous.
/// (`*_window_over_input` pools the tied integers too.)
const NOT_NUMERIC: &[&str] = &[
    "max_pool3d_grad_ties",
    "max_pool3d_grad_grad_ties",
    "max_pool3d_grad_window_over_input",
    "max_pool3d_grad_grad_window_over_input",
];

fn numeric_checks(dtype: DType, tolerance: f64) -> usize {
    let mut n = 0;
    for case in cases().iter().filter(|c| c.get("grads").is_some()) {
        let name = case["name"].as_str().unwrap();
        if NOT_NUMERIC.contains(&name) || case["op"] == "MaxPool3D" {
            continue;
        }
        for k in grad_names(case) {
            let pair = case["inputs"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p[0] == k.as_str())
                .unwrap();
            let v = tensor(&pair[1]);
            if v.dtype() != dtype {
                continue;
            }
            let g = Graph::new();
            let built = build(&g, case).unwrap();
            let err = gradient_error(&built.inputs[&k], &v, &built.output, &[])
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(err < tolerance, "{name}: d/d{k} is off by {err}");
            n += 1;
        }
    }
    n
}

#[test]
fn float64_gradients_match_central_differences() {
    let n = numeric_checks(DType::F64, 1e-6);
    assert!(n >= 8, "only {n} numeric checks");
}

#[test]
fn float32_gradients_match_central_differences_roughly() {
    // Central differences in float32 with a step of 1e-3.
    let n = numeric_checks(DType::F32, 2e-2);
    assert!(n >= 20, "only {n} numeric checks");
}
