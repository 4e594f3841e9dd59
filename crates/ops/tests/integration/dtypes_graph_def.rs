//! A GraphDef written by TensorFlow 2.21 (text and binary) holding constants, scalar and not,
//! and placeholders of every numeric, half, complex and bool dtype, imported by weir
//! (tests/data/dtypes, `op: "graph_def"`): every constant evaluates to TensorFlow's bits,
//! every placeholder takes a feed of its dtype, and weir's own GraphDef of the imported graph
//! (text and binary) imports again to the same values.

use serde_json::Value;
use weir_graph::graph_def::proto::GraphDef;
use weir_graph::graph_def::{parse_text, to_text, ImportGraphDef, Message};
use weir_graph::{DType, Graph, Tensor};
use weir_session::Session;

use super::dtypes_util::{assert_spec, cases, unhex};
use super::io_util::{fetch_and_feed, run};

fn import(def: &GraphDef) -> Graph {
    let g = Graph::new();
    weir_ops::import_graph_def(&g, &ImportGraphDef::new(def).name("")).unwrap();
    g
}

/// Every constant of `values` in `g` evaluates to its spec; every `ph_<dtype>` takes a feed.
fn check_graph(what: &str, g: &Graph, values: &serde_json::Map<String, Value>) {
    let sess = Session::new(g).unwrap();
    for (name, spec) in values {
        let t = g.tensor_by_name(&format!("{name}:0")).unwrap();
        let got = run(&sess, &[&t]).unwrap_or_else(|e| panic!("{what} {name}: {e}"));
        assert_spec(&format!("{what} {name}"), &got[0], spec);
        if let Some(dtype) = name
            .strip_prefix("const_")
            .and_then(|n| n.strip_suffix("_2d"))
        {
            let p = g.tensor_by_name(&format!("ph_{dtype}:0")).unwrap();
            assert_eq!(p.dtype(), DType::from_name(dtype).unwrap(), "{what}");
            let feed: Tensor = got[0].clone();
            let out = sess
                .run(&fetch_and_feed([&p], vec![(p.clone(), feed)]))
                .unwrap_or_else(|e| panic!("{what} ph_{dtype}: {e}"));
            assert_spec(&format!("{what} ph_{dtype}"), &out[0], spec);
        }
    }
}

#[test]
fn tensorflow_graph_def_of_every_dtype_imports_and_round_trips() {
    let c = &cases("graph_def")[0];
    let values = c["values"].as_object().unwrap();
    let text = parse_text(c["pbtxt"].as_str().unwrap()).unwrap();
    let binary = GraphDef::decode(&unhex(c["pb_hex"].as_str().unwrap())[..]).unwrap();
    for (what, def) in [("pbtxt", text), ("pb", binary)] {
        let g = import(&def);
        check_graph(what, &g, values);
        let ours = g.as_graph_def(false).unwrap();
        // With WEIR_GRAPH_DEF_OUT set, weir's GraphDefs are written there for make_dtypes.py
        // (`--check-weir DIR`) to import into TensorFlow and evaluate.
        if let Ok(dir) = std::env::var("WEIR_GRAPH_DEF_OUT") {
            std::fs::write(format!("{dir}/weir_{what}.pbtxt"), to_text(&ours)).unwrap();
            std::fs::write(format!("{dir}/weir_{what}.pb"), ours.encode_to_vec()).unwrap();
        }
        let again_text = parse_text(&to_text(&ours)).unwrap();
        check_graph(
            &format!("{what} -> weir pbtxt"),
            &import(&again_text),
            values,
        );
        let again_pb = GraphDef::decode(&ours.encode_to_vec()[..]).unwrap();
        check_graph(&format!("{what} -> weir pb"), &import(&again_pb), values);
    }
}
