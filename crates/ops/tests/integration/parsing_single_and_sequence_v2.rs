//! `ParseSingleExample` (TensorFlow 1.x's `tf.parse_single_example` op) and
//! `ParseSequenceExampleV2` (TensorFlow 2's `tf.io.parse_sequence_example`) against TensorFlow
//! 2.21: tests/data/parsing_single_and_sequence_v2/expected.json, written by
//! make_parsing_single_and_sequence_v2.py there through `tf.raw_ops` in v1 graphs. Every case's
//! static shapes, values (bit for bit) or error code and message; then GraphDefs TensorFlow wrote
//! with each op, imported and run here.

use std::path::PathBuf;

use serde_json::Value;
use weir_graph::graph_def::{proto::GraphDef, ImportGraphDef, Message};
use weir_graph::{DType, Graph, Output, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::import_graph_def;
use weir_ops::parsing::{ParseSequenceExampleV2, ParseSingleExampleV1, VectorInput};
use weir_session::{RunArgs, Session};

use crate::io_util::{
    check_all_cases, check_tf_error, element_bytes, expect_same_outcome, shape_of, spec_dtype,
    spec_tensor, usizes, LIMIT,
};

const DIR: &str = "parsing_single_and_sequence_v2";

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(DIR)
        .join(name)
}

fn strs(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect()
}

fn dtypes(v: &Value) -> Vec<DType> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|t| spec_dtype(t.as_str().unwrap()))
        .collect()
}

fn shapes(v: &Value) -> Vec<Shape> {
    v.as_array().unwrap().iter().map(shape_of).collect()
}

/// `serialized`: a constant, or a placeholder of `serialized_shape` fed the value.
fn serialized(g: &Graph, c: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Output {
    let value = spec_tensor(&c["serialized"]);
    match c.get("serialized_shape") {
        None => constant(g, value).unwrap(),
        Some(s) => {
            let p = placeholder(g, DType::String, shape_of(s)).unwrap();
            feeds.push((p.clone(), value));
            p
        }
    }
}

fn constants(g: &Graph, specs: &Value) -> Vec<Output> {
    specs
        .as_array()
        .unwrap()
        .iter()
        .map(|s| constant(g, spec_tensor(s)).unwrap())
        .collect()
}

fn build_single(
    g: &Graph,
    c: &Value,
    feeds: &mut Vec<(Output, Tensor)>,
) -> weir_graph::Result<Vec<Output>> {
    let ser = serialized(g, c, feeds);
    let out = ParseSingleExampleV1::new()
        .sparse_keys(&strs(&c["sparse_keys"]))
        .dense_keys(&strs(&c["dense_keys"]))
        .sparse_types(&dtypes(&c["sparse_types"]))
        .dense_shapes(&shapes(&c["dense_shapes"]))
        .build(&ser, &constants(g, &c["dense_defaults"]))?;
    Ok([
        out.sparse_indices,
        out.sparse_values,
        out.sparse_shapes,
        out.dense_values,
    ]
    .concat())
}

fn build_v2(
    g: &Graph,
    c: &Value,
    feeds: &mut Vec<(Output, Tensor)>,
) -> weir_graph::Result<Vec<Output>> {
    let ser = serialized(g, c, feeds);
    let v = |k: &str| VectorInput::Value(spec_tensor(&c[k]));
    let out = ParseSequenceExampleV2::new()
        .debug_name(v("debug_name"))
        .context_sparse_keys(v("context_sparse_keys"))
        .context_dense_keys(v("context_dense_keys"))
        .context_ragged_keys(v("context_ragged_keys"))
        .feature_list_sparse_keys(v("feature_list_sparse_keys"))
        .feature_list_dense_keys(v("feature_list_dense_keys"))
        .feature_list_ragged_keys(v("feature_list_ragged_keys"))
        .feature_list_dense_missing_assumed_empty(v("feature_list_dense_missing_assumed_empty"))
        .context_dense_defaults(&constants(g, &c["context_dense_defaults"]))
        .context_sparse_types(&dtypes(&c["context_sparse_types"]))
        .context_ragged_value_types(&dtypes(&c["context_ragged_value_types"]))
        .context_ragged_split_types(&dtypes(&c["context_ragged_split_types"]))
        .context_dense_shapes(&shapes(&c["context_dense_shapes"]))
        .feature_list_dense_types(&dtypes(&c["feature_list_dense_types"]))
        .feature_list_sparse_types(&dtypes(&c["feature_list_sparse_types"]))
        .feature_list_ragged_value_types(&dtypes(&c["feature_list_ragged_value_types"]))
        .feature_list_ragged_split_types(&dtypes(&c["feature_list_ragged_split_types"]))
        .feature_list_dense_shapes(&shapes(&c["feature_list_dense_shapes"]))
        .build(&ser)?;
    Ok(out.all())
}

/// A tensor against a recorded spec: dtype, shape and every element's bytes; only dtype and
/// shape when TensorFlow leaves the value unset (`"values": null`).
fn check_tensor(what: &str, got: &Tensor, want: &Value) {
    assert_eq!(
        got.dtype(),
        spec_dtype(want["dtype"].as_str().unwrap()),
        "{what}: dtype"
    );
    assert_eq!(got.shape(), &usizes(&want["dims"])[..], "{what}: shape");
    if !want["values"].is_null() {
        assert_eq!(
            element_bytes(got),
            element_bytes(&spec_tensor(want)),
            "{what}"
        );
    }
}

/// Runs one case; returns whether it ended in an error (at build or run time).
fn run_case(c: &Value) -> bool {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let mut feeds = Vec::new();
    let built = match c["op"].as_str().unwrap() {
        "single" => build_single(&g, c, &mut feeds),
        _ => build_v2(&g, c, &mut feeds),
    };
    let Some(outs) = expect_same_outcome(name, built, c.get("build_error"), check_tf_error) else {
        return true;
    };
    let want_shapes = c["static_shapes"].as_array().unwrap();
    assert_eq!(outs.len(), want_shapes.len(), "{name}: outputs");
    for (k, (o, s)) in outs.iter().zip(want_shapes).enumerate() {
        assert_eq!(o.shape(), shape_of(s), "{name}: static shape of output {k}");
    }
    let mut args = RunArgs::new().timeout(LIMIT);
    for o in &outs {
        args = args.fetch(o);
    }
    for (p, v) in feeds {
        args = args.feed(&p, v);
    }
    // An op without outputs runs as a target, as TensorFlow's script ran it.
    if outs.is_empty() {
        for op in g.operations() {
            if op.op_type().starts_with("Parse") {
                args = args.target(&op);
            }
        }
    }
    let ran = Session::new(&g).unwrap().run(&args);
    let Some(got) = expect_same_outcome(name, ran, c.get("error"), check_tf_error) else {
        return true;
    };
    let want = c["outputs"].as_array().unwrap();
    assert_eq!(got.len(), want.len(), "{name}: fetched");
    for (k, (t, w)) in got.iter().zip(want).enumerate() {
        check_tensor(&format!("{name} output {k}"), t, w);
    }
    false
}

#[test]
fn every_case_matches_tensorflow() {
    let cases = crate::io_util::expected_cases(DIR);
    let count = |op: &str| cases.iter().filter(|c| c["op"] == op).count();
    assert!(
        count("single") >= 35 && count("v2") >= 50,
        "{} cases",
        cases.len()
    );
    check_all_cases(&cases, run_case);
}

/// The GraphDefs TensorFlow wrote (graphs.json names them, their feeds and fetches, and the
/// values TensorFlow computed) import and compute the same values here, the one with ragged
/// features included: the importer keeps `ParseSequenceExampleV2` as it is.
#[test]
fn graph_defs_written_by_tensorflow_import_and_run() {
    let text = std::fs::read_to_string(data("graphs.json")).unwrap();
    let graphs: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert_eq!(graphs.len(), 3);
    for spec in &graphs {
        let file = spec["graph"].as_str().unwrap();
        let bytes = std::fs::read(data(file)).unwrap();
        let def = GraphDef::decode(&bytes[..]).unwrap();
        let tf_ops = strs(&spec["ops"]);
        assert!(
            def.node.iter().any(|n| n.op == tf_ops[0]),
            "{file}: no {} node",
            tf_ops[0]
        );
        let g = Graph::new();
        import_graph_def(&g, &ImportGraphDef::new(&def).name(""))
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        if tf_ops[0] == "ParseSingleExample" {
            let kept = g.operations().iter().any(|o| o.op_type() == tf_ops[0]);
            assert!(kept, "{file}: the op is imported as it is");
        }
        let mut args = RunArgs::new().timeout(LIMIT);
        for (name, value) in spec["feeds"].as_object().unwrap() {
            args = args.feed_name(name, spec_tensor(value));
        }
        for f in strs(&spec["fetches"]) {
            args = args.fetch_name(f);
        }
        let got = Session::new(&g).unwrap().run(&args).unwrap();
        let want = spec["outputs"].as_array().unwrap();
        assert_eq!(got.len(), want.len(), "{file}");
        for (k, (t, w)) in got.iter().zip(want).enumerate() {
            check_tensor(&format!("{file} output {k}"), t, w);
        }
    }
}

/// Both OpDefs are TensorFlow's (op_defs.json lists its registry's): the same inputs and outputs
/// in the same order, the same attrs of the same kinds, defaults where TensorFlow has them.
#[test]
fn op_defs_match_tensorflows() {
    use weir_graph::AttrKind;
    weir_ops::register_all_ops();
    let text = std::fs::read_to_string(data("op_defs.json")).unwrap();
    let defs: Value = serde_json::from_str(&text).unwrap();
    for (op, tf) in defs.as_object().unwrap() {
        let def = weir_graph::registry::op_def(op).unwrap();
        let names = |args: &[weir_graph::ArgDef]| args.iter().map(|a| a.name).collect::<Vec<_>>();
        assert_eq!(names(&def.inputs), strs(&tf["inputs"]), "{op} inputs");
        assert_eq!(names(&def.outputs), strs(&tf["outputs"]), "{op} outputs");
        let tf_attrs = tf["attrs"].as_object().unwrap();
        assert_eq!(def.attrs.len(), tf_attrs.len(), "{op} attrs");
        for a in &def.attrs {
            let kind = match a.kind {
                AttrKind::Int => "int",
                AttrKind::Strs => "list(string)",
                AttrKind::Types => "list(type)",
                AttrKind::Shapes => "list(shape)",
                other => panic!("{op}.{}: {other:?}", a.name),
            };
            assert_eq!(tf_attrs[a.name], kind, "{op}.{}", a.name);
            let has_default = strs(&tf["defaults"]).contains(&a.name);
            assert_eq!(a.default.is_some(), has_default, "{op}.{} default", a.name);
        }
    }
}
