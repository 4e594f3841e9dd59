//! Gradients of `ResizeBicubic` (`ResizeBicubicGrad`), `MaxPoolWithArgmax`
//! (`MaxPoolGradWithArgmax`), `Dilation2D` (its two backprop ops) and `erosion2d` against
//! TensorFlow 2.21's `tf.gradients` (every case of crates/ops/tests/data/image_ops_more with
//! recorded gradients), and against weir's numeric gradient checker (central differences).

#[path = "../../../ops/tests/integration/image_ops_more/build.rs"]
mod build;

use build::{assert_tensor, build, cases, tensor};
use serde_json::Value;
use weir_graph::{DType, Graph, Output};
use weir_ops::array::constant;
use weir_session::{RunArgs, Session};
use weir_train::gradients::check::gradient_error;
use weir_train::gradients::gradients;

fn grad_names(case: &Value) -> Vec<String> {
    case["grad"]
        .as_array()
        .map(|a| a.iter().map(|v| v.as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

fn with_grads() -> impl Iterator<Item = &'static Value> {
    cases().iter().filter(|c| c.get("grads").is_some())
}

#[test]
fn gradients_match_tensorflow() {
    let mut n = 0;
    for case in with_grads() {
        let name = case["name"].as_str().unwrap();
        let names = grad_names(case);
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let g = Graph::new();
        let built = build(&g, case, &refs).unwrap_or_else(|e| panic!("{name}: {e}"));
        let xs: Vec<Output> = names.iter().map(|k| built.inputs[k].clone()).collect();
        let gy = constant(&g, tensor(&case["grad_ys"])).unwrap();
        let grads = gradients(&built.outputs[..1], &xs, Some(&[gy]))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let sess = Session::new(&g).unwrap();
        let mut args = RunArgs::new();
        for (k, d) in names.iter().zip(&grads) {
            let d = d
                .as_ref()
                .unwrap_or_else(|| panic!("{name}: no gradient for {k}"));
            args = args.fetch(d);
        }
        let got = sess.run(&args).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (k, v) in names.iter().zip(&got) {
            // The backward kernels accumulate in TensorFlow's order: equal to the bit (one
            // float32 ulp allows for float64 values parsed from JSON).
            assert_tensor(&format!("{name}: d/d{k}"), v, &case["grads"][k], 1.0);
        }
        n += 1;
    }
    assert!(n >= 45, "only {n} gradient cases");
}

/// Cases whose inputs hold ties (small integers), where the max-based gradients are not
/// derivatives and central differences straddle the kink.
fn has_ties(name: &str) -> bool {
    name.contains("ties")
}

#[test]
fn gradients_match_central_differences() {
    let mut n = 0;
    for case in with_grads() {
        let name = case["name"].as_str().unwrap();
        if has_ties(name) {
            continue;
        }
        for k in grad_names(case) {
            let g = Graph::new();
            let built = build(&g, case, &[k.as_str()]).unwrap();
            let v = tensor(
                &case["inputs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|p| p[0] == k.as_str())
                    .unwrap()[1],
            );
            let err = gradient_error(&built.inputs[&k], &v, &built.outputs[0], &[])
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            // ResizeBicubic reads a float64 image as float32, so a float64 step of 1e-6 is
            // lost in its rounding: its float32 cases check it instead.
            if v.dtype() == DType::F64 && built.outputs[0].dtype() == DType::F32 {
                continue;
            }
            // float64 throughout: central differences with a 1e-6 step are good to ~1e-8;
            // float32 inputs use a 1e-3 step and carry float32 rounding.
            let tol = if v.dtype() == DType::F64 { 1e-6 } else { 2e-2 };
            assert!(err < tol, "{name}: d/d{k} is off by {err}");
            n += 1;
        }
    }
    assert!(n >= 50, "only {n} numeric checks");
}

#[test]
fn backward_graphs_use_tensorflows_ops() {
    let want = [
        ("bicubic_half_one_channel", &["ResizeBicubicGrad"][..]),
        ("argmax_33_22_SAME_True", &["MaxPoolGradWithArgmax"][..]),
        (
            "dilation_22_11_SAME",
            &["Dilation2DBackpropInput", "Dilation2DBackpropFilter"][..],
        ),
    ];
    for (name, ops) in want {
        let case = cases().iter().find(|c| c["name"] == name).unwrap();
        let names = grad_names(case);
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let g = Graph::new();
        let built = build(&g, case, &refs).unwrap();
        let xs: Vec<Output> = names.iter().map(|k| built.inputs[k].clone()).collect();
        gradients(&built.outputs[..1], &xs, None).unwrap();
        let types: Vec<String> =
            g.with_nodes(|n| n.iter().map(|n| n.op_type().to_string()).collect());
        for op in ops {
            assert!(
                types.iter().any(|t| t == op),
                "{name}: no {op} in {types:?}"
            );
        }
    }
}

#[test]
fn resize_area_has_no_gradient_as_in_tensorflow() {
    let case = cases()
        .iter()
        .find(|c| c["name"] == "area_plain_one_channel")
        .unwrap();
    let g = Graph::new();
    let built = build(&g, case, &["images"]).unwrap();
    let e = gradients(&built.outputs[..1], &[built.inputs["images"].clone()], None).unwrap_err();
    assert!(e.message().contains("ResizeArea"), "{e}");
}
