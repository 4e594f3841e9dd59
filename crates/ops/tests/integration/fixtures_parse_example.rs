//! Every case of `parse_example_cases.json` (written by TensorFlow 2.21) through weir's
//! `parse_single_example`, `parse_example` and `parse_single_sequence_example`.

use crate::parsing_support;

use parsing_support::*;
use serde_json::Value;
use weir_graph::{Bytes, DType, Graph, Output, Shape, Tensor};
use weir_ops::array::constant;
use weir_ops::parsing::{
    Feature, Features, FixedLenFeature, FixedLenSequenceFeature, ParseExample,
    ParseSingleSequenceExample, ParsedFeature, ParsedFeatures, SparseFeature, VarLenFeature,
};
use weir_session::{RunArgs, Session};

fn dtype(v: &Value) -> DType {
    DType::from_name(v.as_str().unwrap()).unwrap()
}

fn shape(v: &Value) -> Shape {
    Shape::known(
        &v.as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap() as usize)
            .collect::<Vec<_>>(),
    )
}

fn dims(v: &Value) -> Vec<usize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect()
}

fn feature(spec: &Value) -> Feature {
    match spec["type"].as_str().unwrap() {
        "FixedLenFeature" => {
            let mut f = FixedLenFeature::with_shape(shape(&spec["shape"]), dtype(&spec["dtype"]));
            if !spec["default_value"].is_null() {
                f = f.default(tensor(&spec["default_value"]));
            }
            f.into()
        }
        "VarLenFeature" => VarLenFeature::new(dtype(&spec["dtype"])).into(),
        "FixedLenSequenceFeature" => {
            let mut f = FixedLenSequenceFeature::new(&dims(&spec["shape"]), dtype(&spec["dtype"]))
                .allow_missing(spec["allow_missing"].as_bool().unwrap());
            if !spec["default_value"].is_null() {
                f = f.default(tensor(&spec["default_value"]));
            }
            f.into()
        }
        "SparseFeature" => SparseFeature::new(
            spec["index_key"].as_str().unwrap(),
            spec["value_key"].as_str().unwrap(),
            dtype(&spec["dtype"]),
            spec["size"].as_i64().unwrap(),
        )
        .already_sorted(spec["already_sorted"].as_bool().unwrap())
        .into(),
        other => panic!("unknown feature type {other}"),
    }
}

fn features(map: &Value) -> Features {
    map.as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), feature(v)))
        .collect()
}

/// Fetches every output of `parsed` and compares it with the fixture's `want` dict.
fn fetch_all(
    sess: &Session,
    parsed: &[&ParsedFeatures],
) -> weir_graph::Result<Vec<(String, Vec<Tensor>)>> {
    let mut args = RunArgs::new();
    let mut names = Vec::new();
    for p in parsed {
        for (k, f) in p.iter() {
            let outs: Vec<&Output> = match f {
                ParsedFeature::Dense(o) => vec![o],
                ParsedFeature::Sparse(s) => vec![&s.indices, &s.values, &s.dense_shape],
            };
            names.push((k.to_string(), outs.len()));
            for o in outs {
                args = args.fetch(o);
            }
        }
    }
    let mut vals = sess.run(&args)?.into_iter();
    Ok(names
        .into_iter()
        .map(|(k, n)| (k, (0..n).map(|_| vals.next().unwrap()).collect()))
        .collect())
}

fn compare(got: &[(String, Vec<Tensor>)], want: &Value, case: &str) {
    let want = want.as_object().unwrap();
    assert_eq!(got.len(), want.len(), "{case}: number of features");
    for (k, ts) in got {
        let w = &want[k];
        let what = format!("{case}: {k}");
        if ts.len() == 3 {
            let sp =
                weir_graph::SparseTensor::new(ts[0].clone(), ts[1].clone(), ts[2].clone()).unwrap();
            assert_sparse_eq(&sp, w, &what);
        } else {
            assert_tensor_eq(&ts[0], &tensor(w), &what);
        }
    }
}

#[test]
fn every_parse_example_case_matches_tensorflow() {
    let fixture = load("parse_example_cases.json");
    let cases = fixture["cases"].as_array().unwrap();
    assert_eq!(cases.len() as u64, fixture["n_cases"].as_u64().unwrap());
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let func = case["function"].as_str().unwrap();
        let g = Graph::new();
        let built: weir_graph::Result<Vec<ParsedFeatures>> = match func {
            "tf.io.parse_single_example" => {
                let ser =
                    Tensor::scalar(Bytes::from(b64(case["serialized_b64"].as_str().unwrap())));
                ParseExample::new()
                    .single(true)
                    .build(constant(&g, ser).unwrap(), &features(&case["features"]))
                    .map(|p| vec![p])
            }
            "tf.io.parse_example" => {
                let ser = nested_strings(&case["serialized_b64"], &|v| b64(v.as_str().unwrap()));
                let ser = if ser.rank() == 0 {
                    Tensor::from(Vec::<Bytes>::new())
                } else {
                    ser
                };
                let mut op = ParseExample::new();
                if let Some(names) = case["example_names"].as_array() {
                    let names: Vec<&str> = names.iter().map(|n| n.as_str().unwrap()).collect();
                    op = op.example_names(constant(&g, names).unwrap());
                }
                op.build(constant(&g, ser).unwrap(), &features(&case["features"]))
                    .map(|p| vec![p])
            }
            "tf.io.parse_single_sequence_example" => {
                let ser =
                    Tensor::scalar(Bytes::from(b64(case["serialized_b64"].as_str().unwrap())));
                ParseSingleSequenceExample::new()
                    .build(
                        constant(&g, ser).unwrap(),
                        &features(&case["features"]["context"]),
                        &features(&case["features"]["sequence"]),
                    )
                    .map(|(c, s)| vec![c, s])
            }
            other => panic!("{name}: unknown function {other}"),
        };
        let parsed = match built {
            Ok(p) => p,
            Err(e) => {
                let want = case
                    .get("error")
                    .unwrap_or_else(|| panic!("{name}: build error {e}"));
                assert!(
                    is_build_error(want),
                    "{name}: weir failed at build time: {e}"
                );
                assert_error_eq(&e, want, name);
                continue;
            }
        };
        let sess = Session::new(&g).unwrap();
        let refs: Vec<&ParsedFeatures> = parsed.iter().collect();
        match (fetch_all(&sess, &refs), case.get("error")) {
            (Ok(got), None) => {
                if func == "tf.io.parse_single_sequence_example" {
                    panic!("{name}: sequence cases with outputs need a context/sequence split");
                }
                compare(&got, &case["output"], name)
            }
            (Err(e), Some(want)) => assert_error_eq(&e, want, name),
            (Ok(got), Some(want)) => panic!("{name}: expected {want}, got {:?}", got),
            (Err(e), None) => panic!("{name}: unexpected error {e}"),
        }
    }
}
