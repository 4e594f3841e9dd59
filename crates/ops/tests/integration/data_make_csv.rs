//! `MakeCsvDataset` (`tf.data.experimental.make_csv_dataset`) against TensorFlow 2.21
//! (tests/data/tfdata_make_csv, made by make_csv_cases.py there from the CSV files beside it):
//! component names and dtypes, every batch (the first six of an endless dataset) with shuffled
//! and parallel reads, type inference, and TensorFlow's ValueErrors and run errors.

use std::path::PathBuf;

use serde_json::Value;
use weir_graph::{Code, DType, Graph, Output, Tensor};
use weir_ops::data::{CsvColumn, MakeCsvDataset};
use weir_session::Session;

use crate::io_util::run;

fn here() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/tfdata_make_csv")
}

fn dtype(name: &str) -> DType {
    match name {
        "int32" => DType::I32,
        "int64" => DType::I64,
        "float32" => DType::F32,
        "float64" => DType::F64,
        "string" => DType::String,
        other => panic!("dtype {other}"),
    }
}

fn spec(args: &Value) -> MakeCsvDataset {
    let dir = here();
    let files: Vec<String> = args["file_pattern"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| dir.join(f.as_str().unwrap()).to_string_lossy().into_owned())
        .collect();
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    let mut m = MakeCsvDataset::new(&files, args["batch_size"].as_i64().unwrap());
    let a = args.as_object().unwrap();
    if let Some(v) = a.get("label_name") {
        m = m.label_name(v.as_str().unwrap());
    }
    if let Some(v) = a.get("num_epochs") {
        m = m.num_epochs(v.as_i64());
    }
    if let Some(v) = a.get("shuffle") {
        m = m.shuffle(v.as_bool().unwrap());
    }
    if let Some(v) = a.get("shuffle_seed") {
        m = m.shuffle_seed(v.as_i64().unwrap());
    }
    if let Some(v) = a.get("shuffle_buffer_size") {
        m = m.shuffle_buffer_size(v.as_i64().unwrap());
    }
    if let Some(v) = a.get("header") {
        m = m.header(v.as_bool().unwrap());
    }
    if let Some(v) = a.get("na_value") {
        m = m.na_value(v.as_str().unwrap());
    }
    if let Some(v) = a.get("num_rows_for_inference") {
        m = m.num_rows_for_inference(v.as_u64().map(|n| n as usize));
    }
    if let Some(v) = a.get("num_parallel_reads") {
        m = m.num_parallel_reads(v.as_i64().unwrap());
    }
    if let Some(v) = a.get("column_names") {
        let names: Vec<&str> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap())
            .collect();
        m = m.column_names(&names);
    }
    if let Some(v) = a.get("column_defaults") {
        let types: Vec<DType> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|t| dtype(t.as_str().unwrap()))
            .collect();
        m = m.column_types(&types);
    }
    if let Some(v) = a.get("select_columns") {
        let cols = v
            .as_array()
            .unwrap()
            .iter()
            .map(|c| match c {
                Value::String(s) => CsvColumn::Name(s.clone()),
                n => CsvColumn::Index(n.as_i64().unwrap()),
            })
            .collect();
        m = m.select_columns(cols);
    }
    m
}

/// One batch component as JSON, as the script encodes TensorFlow's.
fn encode(t: &Tensor) -> Value {
    match t.dtype() {
        DType::I32 => serde_json::json!(t.to_vec::<i32>().unwrap()),
        DType::I64 => serde_json::json!(t.to_vec::<i64>().unwrap()),
        DType::F32 => serde_json::json!(t
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .map(|&v| f64::from(v))
            .collect::<Vec<_>>()),
        DType::F64 => serde_json::json!(t.to_vec::<f64>().unwrap()),
        _ => serde_json::json!(t.to_strings().unwrap()),
    }
}

#[test]
fn make_csv_dataset_matches_tensorflow() {
    let cases = crate::io_util::expected_cases("tfdata_make_csv");
    let dir = here().to_string_lossy().into_owned();
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let g = Graph::new();
        let built = spec(&case["args"]).build(&g);
        if let Some(want) = case.get("error") {
            let e = built.expect_err(name);
            assert_eq!(e.code(), Code::InvalidArgument, "{name}");
            assert_eq!(
                e.message(),
                want.as_str().unwrap().replace("{HERE}", &dir),
                "{name}"
            );
            continue;
        }
        let (ds, names) = built.unwrap();
        let want_names: Vec<&str> = case["names"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap())
            .collect();
        assert_eq!(names, want_names, "{name}");
        let want_types: Vec<DType> = case["dtypes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| dtype(t.as_str().unwrap()))
            .collect();
        assert_eq!(ds.output_types(), want_types, "{name}");
        let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
        let fetches: Vec<&Output> = next.iter().collect();
        let sess = Session::new(&g).unwrap();
        let want_batches = case["batches"].as_array().unwrap();
        let endless = case["args"].get("num_epochs").is_none();
        let mut got = vec![];
        let mut err = None;
        for _ in 0..(if endless { 6 } else { 100 }) {
            match run(&sess, &fetches) {
                Ok(v) => got.push(Value::Array(v.iter().map(encode).collect())),
                Err(e) if e.code() == Code::OutOfRange => break,
                Err(e) => {
                    err = Some(e);
                    break;
                }
            }
        }
        assert_eq!(&got, want_batches, "{name}");
        match (case.get("run_error"), err) {
            (None, None) => {}
            (Some(w), Some(e)) => {
                assert_eq!(
                    format!("{:?}Error", e.code()),
                    w[0].as_str().unwrap(),
                    "{name}"
                );
                assert_eq!(e.message(), w[1].as_str().unwrap(), "{name}");
            }
            (w, e) => panic!("{name}: expected {w:?}, got {e:?}"),
        }
    }
}
