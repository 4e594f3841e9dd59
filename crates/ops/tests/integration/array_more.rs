//! ReverseSequence, SpaceToBatch(ND)/BatchToSpace(ND), UnravelIndex, ListDiff, EnsureShape,
//! UniqueV2, UniqueWithCountsV2, LowerBound/UpperBound, NthElement, Bitcast, BroadcastArgs,
//! GuaranteeConst, PreventGradient, Empty and the legacy BatchMatMul, MatrixDiag* (V1, V2),
//! Concat, Reverse and TopK, and `tf.nn.atrous_conv2d` (built on SpaceToBatchND) against
//! TensorFlow 2.21: every case of
//! tests/data/array_more/expected.json (made by make_array_more.py there), its values within
//! 1e-6 relative (the kernels move elements or sum a handful of products, so only the
//! products' rounding order can differ; integers, bools and strings exactly), its static
//! shapes exactly, and its errors with TensorFlow's code and, for the kernels'
//! InvalidArgumentErrors, TensorFlow's message. Where TensorFlow's shape functions raise a
//! ValueError (constant inputs), weir must fail with InvalidArgument too, at build or run time.
//! Then legacy_graph.pbtxt, a GraphDef of legacy nodes, imported and run.

mod build;

use build::{assert_tensor, build, cases, data_dir, legacy_graph, static_shape};
use serde_json::Value;
use weir_graph::graph_def::{parse_text, ImportGraphDef};
use weir_graph::{Code, Graph, Result, Tensor};
use weir_session::{RunArgs, Session};

/// TensorFlow names the input tensor in EnsureShape's message; weir's kernel names its own
/// node (which the case names alike), so the message is compared past the name.
fn normalize(name: &str, msg: &str) -> String {
    if name.starts_with("ensure_shape") {
        if let Some(rest) = msg.strip_prefix("Shape of tensor ") {
            return rest.split_once(' ').map_or(rest, |(_, r)| r).to_string();
        }
    }
    msg.to_string()
}

fn run(outputs: &[weir_graph::Output], g: &Graph) -> Result<Vec<Tensor>> {
    let sess = Session::new(g)?;
    let mut args = RunArgs::new();
    for o in outputs {
        args = args.fetch(o);
    }
    sess.run(&args)
}

fn check(case: &Value) {
    let name = case["name"].as_str().unwrap();
    let g = Graph::new();
    let result = build(&g, case, &[]).and_then(|b| {
        let r = run(&b.outputs, &g)?;
        Ok((b, r))
    });
    if let Some(err) = case.get("error") {
        let kind = err["type"].as_str().unwrap();
        if kind == "LookupError" {
            // A gradient error: the forward graph runs (checked in weir-train's tests).
            result.unwrap_or_else(|e| panic!("{name}: {e}"));
            return;
        }
        let e = match result {
            Err(e) => e,
            Ok((_, outs)) => panic!("{name}: TensorFlow fails with {err}, weir gives {outs:?}"),
        };
        assert_eq!(e.code(), Code::InvalidArgument, "{name}: {e}");
        if kind == "InvalidArgumentError" {
            assert_eq!(
                normalize(name, e.message()),
                normalize(name, err["message"].as_str().unwrap()),
                "{name}"
            );
        }
        return;
    }
    let (built, outs) = result.unwrap_or_else(|e| panic!("{name}: {e}"));
    let want = case["outputs"].as_array().unwrap();
    assert_eq!(outs.len(), want.len(), "{name}: outputs");
    for (i, (o, w)) in outs.iter().zip(want).enumerate() {
        assert_tensor(&format!("{name} output {i}"), o, w, 1e-6);
        assert_eq!(
            built.outputs[i].shape(),
            static_shape(&case["shapes"][i]),
            "{name}: static shape of output {i}"
        );
    }
}

fn check_family(prefixes: &[&str]) -> usize {
    let mut n = 0;
    for case in cases() {
        let name = case["name"].as_str().unwrap();
        if prefixes.iter().any(|p| name.starts_with(p)) {
            check(case);
            n += 1;
        }
    }
    assert!(n > 0, "no cases for {prefixes:?}");
    n
}

const FAMILIES: &[&[&str]] = &[
    &["reverse_sequence"],
    &["space_to_batch", "batch_to_space", "atrous_conv2d"],
    &["unravel_index", "list_diff", "setdiff1d"],
    &[
        "ensure_shape",
        "guarantee_const",
        "prevent_gradient",
        "empty",
    ],
    &["broadcast_", "bitcast"],
    &["unique_"],
    &["lower_bound", "upper_bound", "searchsorted"],
    &["nth_element"],
    &[
        "batch_mat_mul",
        "matrix_",
        "concat_v1",
        "reverse_v1",
        "top_k_v1",
    ],
];

#[test]
fn reverse_sequence_matches_tensorflow() {
    check_family(FAMILIES[0]);
}

#[test]
fn space_batch_matches_tensorflow() {
    check_family(FAMILIES[1]);
}

#[test]
fn unravel_and_setdiff_match_tensorflow() {
    check_family(FAMILIES[2]);
}

#[test]
fn checks_and_empty_match_tensorflow() {
    check_family(FAMILIES[3]);
}

#[test]
fn broadcast_args_and_bitcast_match_tensorflow() {
    check_family(FAMILIES[4]);
}

#[test]
fn unique_v2_matches_tensorflow() {
    check_family(FAMILIES[5]);
}

#[test]
fn search_sorted_matches_tensorflow() {
    check_family(FAMILIES[6]);
}

#[test]
fn nth_element_matches_tensorflow() {
    check_family(FAMILIES[7]);
}

#[test]
fn legacy_forms_match_tensorflow() {
    check_family(FAMILIES[8]);
}

#[test]
fn every_case_has_a_family() {
    for case in cases() {
        let name = case["name"].as_str().unwrap();
        assert!(
            FAMILIES
                .iter()
                .flat_map(|f| f.iter())
                .any(|p| name.starts_with(p)),
            "{name} is not tested"
        );
    }
    assert!(cases().len() >= 100, "only {} cases", cases().len());
}

#[test]
fn legacy_graph_def_imports_and_runs_like_tensorflow() {
    let text = std::fs::read_to_string(data_dir().join("legacy_graph.pbtxt")).unwrap();
    let def = parse_text(&text).unwrap();
    let g = Graph::new();
    weir_ops::import_graph_def(&g, &ImportGraphDef::new(&def).name("")).unwrap();
    let fetches = legacy_graph()["fetches"].as_object().unwrap();
    let sess = Session::new(&g).unwrap();
    for (name, want) in fetches {
        let t = if name.contains(':') {
            name.clone()
        } else {
            format!("{name}:0")
        };
        let out = g.tensor_by_name(&t).unwrap();
        let got = sess.eval(&out).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_tensor(name, &got, want, 1e-6);
    }
}
