//! Every case of `decode_csv_cases.json` (written by TensorFlow 2.21) through weir's
//! `DecodeCSV`, compared value for value, error kind and message.

use crate::parsing_support;

use parsing_support::*;
use serde_json::Value;
use weir_graph::{Bytes, Graph, Output, Tensor};
use weir_ops::array::constant;
use weir_ops::parsing::DecodeCsv;
use weir_session::{RunArgs, Session};

fn record_bytes(v: &Value) -> Vec<u8> {
    b64(v["b64"].as_str().unwrap())
}

fn default_tensor(d: &Value) -> Tensor {
    let dtype = d["dtype"].as_str().unwrap();
    let v = &d["default"];
    if v.is_null() {
        return Tensor::zeros(weir_graph::DType::from_name(dtype).unwrap(), &[0]).unwrap();
    }
    match dtype {
        "int32" => Tensor::from(vec![v.as_i64().unwrap() as i32]),
        "int64" => Tensor::from(vec![v.as_i64().unwrap()]),
        "float32" => Tensor::from(vec![f32::from_bits(
            hex_u64(d["default_bits"].as_str().unwrap()) as u32,
        )]),
        "float64" => Tensor::from(vec![f64::from_bits(hex_u64(
            d["default_bits"].as_str().unwrap(),
        ))]),
        "string" => Tensor::from(vec![Bytes::from(v.as_str().unwrap().to_string())]),
        other => panic!("unexpected default dtype {other}"),
    }
}

fn run_case(case: &Value) -> Result<Vec<Tensor>, (weir_graph::Error, bool)> {
    let g = Graph::new();
    let records = if case["records"].is_object() {
        Tensor::scalar(Bytes::from(record_bytes(&case["records"])))
    } else {
        nested_strings(&case["records"], &record_bytes)
    };
    let records = constant(&g, records).unwrap();
    let defaults: Vec<Output> = case["record_defaults"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| constant(&g, default_tensor(d)).unwrap())
        .collect();
    let kw = &case["kwargs"];
    let mut op = DecodeCsv::new();
    if let Some(d) = kw["field_delim"].as_str() {
        op = op.field_delim(d);
    }
    if let Some(q) = kw["use_quote_delim"].as_bool() {
        op = op.use_quote_delim(q);
    }
    if let Some(na) = kw["na_value"].as_str() {
        op = op.na_value(na);
    }
    if let Some(sel) = kw["select_cols"].as_array() {
        op = op.select_cols(&sel.iter().map(|c| c.as_i64().unwrap()).collect::<Vec<_>>());
    }
    let outs = op.build(&records, defaults).map_err(|e| (e, true))?;
    let sess = Session::new(&g).unwrap();
    let mut args = RunArgs::new();
    for o in &outs {
        args = args.fetch(o);
    }
    sess.run(&args).map_err(|e| (e, false))
}

#[test]
fn every_decode_csv_case_matches_tensorflow() {
    let fixture = load("decode_csv_cases.json");
    let cases = fixture["cases"].as_array().unwrap();
    assert_eq!(cases.len() as u64, fixture["n_cases"].as_u64().unwrap());
    for case in cases {
        let name = case["name"].as_str().unwrap();
        match (run_case(case), case.get("error")) {
            (Ok(outs), None) => {
                let want = case["output"].as_array().unwrap();
                assert_eq!(outs.len(), want.len(), "{name}: number of outputs");
                for (i, (g, w)) in outs.iter().zip(want).enumerate() {
                    assert_tensor_eq(g, &tensor(w), &format!("{name}: output {i}"));
                }
            }
            (Err((e, at_build)), Some(want)) => {
                assert_eq!(at_build, is_build_error(want), "{name}: error stage of {e}");
                assert_error_eq(&e, want, name);
            }
            (Ok(outs), Some(want)) => panic!("{name}: expected error {want}, got {outs:?}"),
            (Err((e, _)), None) => panic!("{name}: unexpected error {e}"),
        }
    }
}
