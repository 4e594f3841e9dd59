//! `SerializeSparse`, `SerializeManySparse`, `DeserializeSparse` and `DeserializeManySparse`
//! against TensorFlow 2.21 (tests/data/sparse_serialize/expected.json, written by
//! make_sparse_serialize.py there): serialized strings byte for byte for every dtype, the
//! deserialized indices, values (floats bit for bit) and dense shapes, static shapes, and
//! every error's code and message. Messages are compared before TensorFlow's
//! " for '{{node ...}}'" suffix (weir's suffix names the op instead).

use serde_json::Value;
use weir_graph::{Error, Graph, Output, Tensor};
use weir_ops::array::placeholder;
use weir_ops::sparse::{
    deserialize_many_sparse, deserialize_sparse, serialize_many_sparse, serialize_sparse,
    SparseOutput,
};
use weir_session::Session;

use crate::io_util::{
    check_all_cases, element_bytes, fetch_and_feed, run_built_case, shape_of, spec_dtype,
    spec_tensor,
};

/// An input: a placeholder of the spec's `shape` (its own dims unless given) fed its value.
fn source(g: &Graph, spec: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Output {
    let value = spec_tensor(spec);
    let shape = match spec.get("shape") {
        Some(s) => shape_of(s),
        None => weir_graph::Shape::known(value.shape()),
    };
    let p = placeholder(g, value.dtype(), shape).unwrap();
    feeds.push((p.clone(), value));
    p
}

fn build(g: &Graph, c: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Result<Vec<Output>, Error> {
    let ins: Vec<Output> = c["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| source(g, s, feeds))
        .collect();
    let op = c["op"].as_str().unwrap();
    if op.starts_with("serialize") {
        // Grouped directly, so that the ops' own shape checks meet ill-shaped inputs.
        let sp = SparseOutput {
            indices: ins[0].clone(),
            values: ins[1].clone(),
            dense_shape: ins[2].clone(),
        };
        let out = if op == "serialize" {
            serialize_sparse(&sp)
        } else {
            serialize_many_sparse(&sp)
        };
        return out.map(|o| vec![o]);
    }
    let dtype = spec_dtype(c["dtype"].as_str().unwrap());
    let sp = if op == "deserialize" {
        deserialize_sparse(&ins[0], dtype)?
    } else {
        let rank = c.get("rank").and_then(Value::as_u64).map(|r| r as usize);
        deserialize_many_sparse(&ins[0], dtype, rank)?
    };
    Ok(sp.outputs().to_vec())
}

/// Runs one case; returns whether it ended in an error (at build or run time).
fn run_case(c: &Value) -> bool {
    run_built_case(
        c,
        c.get("build_error"),
        |g, feeds| build(g, c, feeds),
        crate::io_util::check_tf_error,
        |name, v| crate::io_util::check_spec_outputs(name, c, v),
    )
}

#[test]
fn every_case_matches_tensorflow() {
    let cases = crate::io_util::expected_cases("sparse_serialize");
    assert!(cases.len() >= 150, "{} cases", cases.len());
    check_all_cases(&cases, run_case);
}

/// Serialize and deserialize in one graph: what TensorFlow serialized from a minibatch, weir
/// serializes the same and reads back as the minibatch, for every dtype.
#[test]
fn serialize_many_then_deserialize_many_round_trips() {
    for c in crate::io_util::expected_cases("sparse_serialize") {
        let name = c["name"].as_str().unwrap();
        if c["op"] != "serialize_many" || c.get("outputs").is_none() {
            continue;
        }
        let g = Graph::new();
        let mut feeds = Vec::new();
        let ins: Vec<Output> = c["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| source(&g, s, &mut feeds))
            .collect();
        let sp = SparseOutput::new(ins[0].clone(), ins[1].clone(), ins[2].clone()).unwrap();
        let ser = serialize_many_sparse(&sp).unwrap();
        let back = deserialize_many_sparse(&ser, sp.dtype(), None).unwrap();
        let run = Session::new(&g)
            .unwrap()
            .run(&fetch_and_feed(&back.outputs(), feeds.clone()));
        let rows = feeds[2].1.to_vec::<i64>().unwrap()[0];
        let Ok(out) = run else {
            // No row at all: TensorFlow refuses to deserialize an empty batch.
            assert_eq!(rows, 0, "{name}");
            continue;
        };
        for (k, (got, fed)) in out.iter().zip(&feeds).enumerate() {
            if k == 2 {
                // The batch's dense shape is the largest row shape, and every row has the input's.
                assert_eq!(
                    got.to_vec::<i64>().unwrap(),
                    fed.1.to_vec::<i64>().unwrap(),
                    "{name}"
                );
            } else {
                assert_eq!(
                    element_bytes(got),
                    element_bytes(&fed.1),
                    "{name}: output {k}"
                );
            }
        }
    }
}
