//! Gradients of ReverseSequence, SpaceToBatch(ND)/BatchToSpace(ND), EnsureShape, NthElement and
//! the legacy BatchMatMul, MatrixDiag* (V1, V2), Concat, Reverse and TopK against TensorFlow
//! 2.21's `tf.gradients` (every case of crates/ops/tests/data/array_more/expected.json with
//! recorded gradients, within 1e-6 relative: the gradients move elements or sum a few products
//! in float64), against weir's numeric gradient checker (central differences, within 1e-6 for
//! float64), through legacy_graph.pbtxt imported with import_graph_def, and the errors of
//! PreventGradient and GuaranteeConst (TensorFlow's LookupError, weir's NotFound).

#[path = "../../../ops/tests/integration/array_more/build.rs"]
mod build;

use build::{assert_tensor, build, cases, data_dir, legacy_graph, tensor};
use serde_json::Value;
use weir_graph::graph_def::{parse_text, ImportGraphDef};
use weir_graph::{Code, DType, Graph, Output};
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

fn input_value(case: &Value, name: &str) -> weir_graph::Tensor {
    let pair = case["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p[0] == name)
        .unwrap();
    tensor(&pair[1])
}

/// Where weir's gradient deliberately differs from TensorFlow 2.21's: the V2 diagonal ops on a
/// band whose superdiagonal is shorter than the longest diagonal. TensorFlow 2.21 builds their
/// gradients with array_ops' default `RIGHT_LEFT` alignment although V2 packs `LEFT_LEFT`, so
/// its gradient is shifted (wrong by central differences); weir aligns them as the forward op
/// does, which the numeric check below confirms.
const DIFFERENT: &[&str] = &[
    "matrix_diag_v2_short_band",
    "matrix_diag_part_v2_short_band",
    "matrix_set_diag_v2_short_band",
];

#[test]
fn gradients_match_tensorflow() {
    let mut n = 0;
    for case in cases().iter().filter(|c| c.get("grads").is_some()) {
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
        let mut differs = false;
        for (k, d) in names.iter().zip(&grads) {
            let want = &case["grads"][k];
            match d {
                None => assert!(want.is_null(), "{name}: no gradient for {k}"),
                Some(d) => {
                    let got = sess.eval(d).unwrap_or_else(|e| panic!("{name}: {e}"));
                    if DIFFERENT.contains(&name) {
                        differs |= got != tensor(want);
                        continue;
                    }
                    assert_tensor(&format!("{name}: d/d{k}"), &got, want, 1e-6);
                }
            }
        }
        if DIFFERENT.contains(&name) {
            assert!(
                differs,
                "{name}: TensorFlow 2.21's gradient is no longer shifted"
            );
        }
        n += 1;
    }
    assert!(n >= 20, "only {n} gradient cases");
}

/// Where central differences cannot see TensorFlow's gradient: NthElement at a tie, where it
/// splits the gradient among the equal elements but a nudge moves it to one of them.
const NOT_NUMERIC: &[&str] = &["nth_element_ties"];

#[test]
fn float64_gradients_match_central_differences() {
    let mut n = 0;
    for case in cases().iter().filter(|c| c.get("grads").is_some()) {
        let name = case["name"].as_str().unwrap();
        if NOT_NUMERIC.contains(&name) {
            continue;
        }
        for k in grad_names(case) {
            let v = input_value(case, &k);
            if v.dtype() != DType::F64 {
                continue;
            }
            let g = Graph::new();
            let built = build(&g, case, &[k.as_str()]).unwrap();
            let err = gradient_error(&built.inputs[&k], &v, &built.outputs[0], &[])
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(err < 1e-6, "{name}: d/d{k} is off by {err}");
            n += 1;
        }
    }
    assert!(n >= 20, "only {n} numeric checks");
}

#[test]
fn gradient_errors_match_tensorflow() {
    let mut n = 0;
    for case in cases() {
        let Some(err) = case.get("error").filter(|e| e["type"] == "LookupError") else {
            continue;
        };
        let name = case["name"].as_str().unwrap();
        let g = Graph::new();
        let built = build(&g, case, &["input"]).unwrap();
        let e = gradients(&built.outputs[..1], &[built.inputs["input"].clone()], None)
            .err()
            .unwrap_or_else(|| panic!("{name}: expected {err}"));
        assert_eq!(e.code(), Code::NotFound, "{name}: {e}");
        if name == "prevent_gradient" {
            // TensorFlow quotes the message attr as Python bytes (b'no way'); weir's
            // PreventGradient (with the CTC ops) quotes it as is.
            let want = err["message"]
                .as_str()
                .unwrap()
                .replace("b'no way'", "no way");
            assert!(e.message().ends_with(&want), "{e}");
        } else {
            assert!(e.message().starts_with("No gradient defined"), "{e}");
        }
        n += 1;
    }
    assert_eq!(n, 2);
}

#[test]
fn imported_legacy_graph_differentiates_like_tensorflow() {
    let text = std::fs::read_to_string(data_dir().join("legacy_graph.pbtxt")).unwrap();
    let def = parse_text(&text).unwrap();
    let g = Graph::new();
    weir_ops::import_graph_def(&g, &ImportGraphDef::new(&def).name("")).unwrap();
    let sess = Session::new(&g).unwrap();
    let cases = legacy_graph()["grads"].as_array().unwrap();
    assert_eq!(cases.len(), 6);
    for c in cases {
        let y_name = c["y"].as_str().unwrap();
        let y = g.tensor_by_name(&format!("{y_name}:0")).unwrap();
        let want = c["grads"].as_object().unwrap();
        let xs: Vec<Output> = want
            .keys()
            .map(|k| g.tensor_by_name(&format!("{k}:0")).unwrap())
            .collect();
        let gy = constant(&g, tensor(&c["grad_ys"])).unwrap();
        let grads = gradients(&[y], &xs, Some(&[gy])).unwrap_or_else(|e| panic!("{y_name}: {e}"));
        let mut args = RunArgs::new();
        for d in &grads {
            args = args.fetch(d.as_ref().unwrap());
        }
        let got = sess.run(&args).unwrap_or_else(|e| panic!("{y_name}: {e}"));
        for ((k, w), v) in want.iter().zip(&got) {
            assert_tensor(&format!("d{y_name}/d{k}"), v, w, 1e-6);
        }
    }
}
