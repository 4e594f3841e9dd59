//! GraphDefs holding TensorFlow 1.0's ref-handle queue and reader ops (`FIFOQueue`,
//! `QueueEnqueue`, `TextLineReader`, `ReaderRead`, ...) and its `Variable` import and run as TensorFlow 2.21 runs
//! them. tests/data/v1_ref_ops/make_v1_ref_ops.py recorded, for each graph, what TensorFlow gave
//! for the V1 GraphDef and for the V2 graph it was made from.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{json, Value};
use weir_graph::graph_def::{proto::GraphDef, ImportGraphDef, Message};
use weir_graph::{DType, Error, Graph, Tensor};
use weir_ops::import_graph_def;
use weir_session::{RunArgs, Session};

use super::io_util::b64;

const LIMIT: Duration = Duration::from_secs(20);

fn data_dir() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/v1_ref_ops")
        .to_str()
        .unwrap()
        .to_string()
}

/// A tensor in the script's JSON form: floats as bit patterns, strings as text with the data
/// directory written `{DIR}`.
fn encode(t: &Tensor, dir: &str) -> Value {
    let values: Vec<Value> = match t.dtype() {
        DType::I32 => t
            .to_vec::<i32>()
            .unwrap()
            .into_iter()
            .map(Value::from)
            .collect(),
        DType::I64 => t
            .to_vec::<i64>()
            .unwrap()
            .into_iter()
            .map(Value::from)
            .collect(),
        DType::F32 => t
            .to_vec::<f32>()
            .unwrap()
            .into_iter()
            .map(|f| Value::from(f.to_bits()))
            .collect(),
        DType::Bool => t
            .to_vec::<bool>()
            .unwrap()
            .into_iter()
            .map(Value::from)
            .collect(),
        DType::String => t
            .to_vec::<weir_graph::Bytes>()
            .unwrap()
            .iter()
            .map(|b| {
                let s: String = b.iter().map(|&c| c as char).collect();
                Value::from(s.replace(dir, "{DIR}"))
            })
            .collect(),
        other => panic!("no JSON form for {other}"),
    };
    // numpy's names, as the script writes them.
    let dtype = match t.dtype() {
        DType::F32 => "float32",
        d => d.name(),
    };
    json!({"dtype": dtype, "shape": t.shape(), "values": values})
}

/// A queue's default resource name carries a per-process counter (`'_3_q'`), which differs
/// between TensorFlow's process and this one.
fn without_counters(msg: &str) -> String {
    let mut out = String::new();
    let mut rest = msg;
    while let Some(i) = rest.find("'_") {
        out.push_str(&rest[..i + 2]);
        rest = &rest[i + 2..];
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 && rest[digits..].starts_with('_') {
            out.push('N');
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}

fn check_error(what: &str, got: &Error, want: &Value, dir: &str) {
    let kind = want["type"].as_str().unwrap().trim_end_matches("Error");
    assert_eq!(got.code().as_str(), kind, "{what}: {got}");
    let got = got
        .message()
        .split(" for '")
        .next()
        .unwrap()
        .replace(dir, "{DIR}");
    assert_eq!(
        without_counters(&got),
        without_counters(want["message"].as_str().unwrap()),
        "{what}"
    );
}

/// What TensorFlow gave for the step: its V1 result, or, where TensorFlow 2.21's V1
/// `FixedLengthRecordReader` cannot run at all (its kernel reads an `encoding` attr the V1 op
/// does not declare), the V2 result, which is what the op did before that attr existed.
fn tensorflow_result(st: &Value) -> &Value {
    let v1 = &st["v1"];
    let broken = v1["error"]["message"]
        .as_str()
        .is_some_and(|m| m.starts_with("No attr named 'encoding'"));
    if broken {
        &st["v2"]
    } else {
        v1
    }
}

#[test]
fn tensorflow_1_queue_and_reader_graph_defs_run_as_tensorflow_runs_them() {
    weir_ops::register_all_ops();
    let dir = data_dir();
    let cases = expected_cases_object();
    assert_eq!(cases.len(), 7);
    let mut v1_ops = std::collections::BTreeSet::new();
    let mut steps_checked = 0;
    for c in &cases {
        let name = c["name"].as_str().unwrap();
        v1_ops.extend(
            c["v1_ops"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o.as_str().unwrap()),
        );
        let def = GraphDef::decode(&b64(c["graph_def"].as_str().unwrap())[..]).unwrap();
        let g = Graph::new();
        import_graph_def(&g, &ImportGraphDef::new(&def).name(""))
            .unwrap_or_else(|e| panic!("{name}: import: {e}"));
        let sess = Session::new(&g).unwrap();
        for (i, st) in c["steps"].as_array().unwrap().iter().enumerate() {
            let what = format!("{name} step {i}");
            let mut args = RunArgs::new().timeout(LIMIT);
            for (k, files) in c["feeds"].as_object().unwrap() {
                let paths: Vec<String> = files
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| format!("{dir}/{}", f.as_str().unwrap()))
                    .collect();
                args = args.feed_name(k, Tensor::from_strings(&paths));
            }
            for f in st["fetch"].as_array().into_iter().flatten() {
                args = args.fetch_name(f.as_str().unwrap());
            }
            for t in st["targets"].as_array().into_iter().flatten() {
                args = args.target_name(t.as_str().unwrap());
            }
            let want = tensorflow_result(st);
            match sess.run(&args) {
                Ok(got) => {
                    assert!(
                        want.get("error").is_none(),
                        "{what}: TensorFlow failed: {want}"
                    );
                    let got: Vec<Value> = got.iter().map(|t| encode(t, &dir)).collect();
                    assert_eq!(Value::from(got), want["outputs"], "{what}");
                }
                Err(e) => {
                    let w = want.get("error").unwrap_or_else(|| panic!("{what}: {e}"));
                    check_error(&what, &e, w, &dir);
                }
            }
            steps_checked += 1;
        }
    }
    assert_eq!(steps_checked, 47);
    assert_eq!(v1_ops.len(), 24, "{v1_ops:?}");
}

fn expected_cases_object() -> Vec<Value> {
    let path = PathBuf::from(data_dir()).join("expected.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v["cases"].as_array().unwrap().clone()
}

/// The V1 names are aliases: each is registered with its V2 op's signature and kernel, except
/// `FixedLengthRecordReader`, which has no `encoding` attr.
#[test]
fn v1_ops_have_their_v2_signatures() {
    weir_ops::register_all_ops();
    for v1 in [
        "FIFOQueue",
        "QueueDequeueUpTo",
        "ReaderRead",
        "TFRecordReader",
    ] {
        let a = weir_graph::registry::op_def(v1).unwrap();
        let b = weir_graph::registry::op_def(&format!("{v1}V2")).unwrap();
        assert_eq!(a.inputs.len(), b.inputs.len(), "{v1}");
        assert_eq!(a.attrs.len(), b.attrs.len(), "{v1}");
        weir_graph::registry::kernel_factory(v1).unwrap();
    }
    let fixed = weir_graph::registry::op_def("FixedLengthRecordReader").unwrap();
    assert!(fixed.attrs.iter().all(|a| a.name != "encoding"));
    assert!(fixed.attrs.iter().any(|a| a.name == "hop_bytes"));
}
