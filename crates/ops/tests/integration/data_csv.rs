//! `tf.data.experimental.CsvDataset` against what TensorFlow 2.21 returned for the same files
//! (`tests/data/tfdata_csv`, written by `make_csv.py` there), run after run: values and dtypes,
//! error classes and messages, and where in the stream each error comes.

use std::path::PathBuf;

use serde_json::Value;
use weir_graph::{Bytes, Code, DType, Error, Graph, Output, Shape, Tensor};
use weir_ops::array::constant;
use weir_ops::data::CsvDataset;
use weir_session::Session;

use crate::io_util::{run, TempDir};

use crate::parsing_support::code_of;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/tfdata_csv")
}

fn dir_str() -> String {
    data_dir().to_string_lossy().into_owned()
}

fn expected() -> Value {
    let p = data_dir().join("expected.json");
    let s = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&s).unwrap()
}

fn dtype_of(name: &str) -> DType {
    match name {
        "int32" => DType::I32,
        "int64" => DType::I64,
        "float32" => DType::F32,
        "float64" => DType::F64,
        "string" => DType::String,
        other => panic!("unexpected dtype {other}"),
    }
}

/// The fixture stores bytes as latin-1 characters.
fn latin1(v: &Value) -> Vec<u8> {
    v.as_str().unwrap().chars().map(|c| c as u8).collect()
}

/// A record default: `[value]`, or `[]` (required) when the fixture has no value.
fn default_tensor(d: &Value) -> Tensor {
    let v = &d["value"];
    let dt = dtype_of(d["dtype"].as_str().unwrap());
    match (dt, v.is_null()) {
        (DType::I32, true) => Tensor::from(Vec::<i32>::new()),
        (DType::I64, true) => Tensor::from(Vec::<i64>::new()),
        (DType::F32, true) => Tensor::from(Vec::<f32>::new()),
        (DType::F64, true) => Tensor::from(Vec::<f64>::new()),
        (_, true) => Tensor::from(Vec::<Bytes>::new()),
        (DType::I32, false) => Tensor::from(vec![v.as_i64().unwrap() as i32]),
        (DType::I64, false) => Tensor::from(vec![v.as_i64().unwrap()]),
        (DType::F32, false) => Tensor::from(vec![v.as_f64().unwrap() as f32]),
        (DType::F64, false) => Tensor::from(vec![v.as_f64().unwrap()]),
        (_, false) => Tensor::from(vec![Bytes::from(latin1(v))]),
    }
}

fn build(case: &Value) -> weir_graph::Result<weir_ops::data::Dataset> {
    let g = Graph::new();
    let dir = data_dir();
    let files: Vec<String> = case["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| dir.join(f.as_str().unwrap()).to_string_lossy().into_owned())
        .collect();
    let names: Output = if case["scalar"].as_bool() == Some(true) {
        constant(&g, files[0].as_str()).unwrap()
    } else {
        constant(&g, Tensor::from(files)).unwrap()
    };
    let defaults: Vec<Output> = case["defaults"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| constant(&g, default_tensor(d)).unwrap())
        .collect();
    let kw = &case["kwargs"];
    let mut b = CsvDataset::new(&names, &defaults);
    if let Some(c) = kw.get("compression_type").and_then(Value::as_str) {
        b = b.compression_type(c);
    }
    if let Some(n) = kw.get("buffer_size").and_then(Value::as_i64) {
        b = b.buffer_size(n);
    }
    if let Some(h) = kw.get("header").and_then(Value::as_bool) {
        b = b.header(h);
    }
    if let Some(d) = kw.get("field_delim").and_then(Value::as_str) {
        b = b.field_delim(d);
    }
    if let Some(q) = kw.get("use_quote_delim").and_then(Value::as_bool) {
        b = b.use_quote_delim(q);
    }
    if let Some(na) = kw.get("na_value").and_then(Value::as_str) {
        b = b.na_value(na);
    }
    let ints = |k: &str| -> Option<Vec<i64>> {
        kw.get(k)
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|v| v.as_i64().unwrap()).collect())
    };
    if let Some(cols) = ints("select_cols") {
        b = b.select_cols(&cols);
    }
    if let Some(cols) = ints("exclude_cols") {
        b = b.exclude_cols(&cols);
    }
    b.build()
}

/// Compares weir's error with TensorFlow's: the same code and message, except that weir's
/// stream errors may go on with the file (` in "<file>"`).
fn check_error(ctx: &str, e: &Error, class: &str, want: &str) {
    assert_eq!(e.code(), code_of(class), "{ctx}: {e}");
    let got = e.message().replace(&dir_str(), "<DIR>");
    let extra = got.strip_prefix(want);
    assert!(
        matches!(extra, Some(rest) if rest.is_empty() || rest.starts_with(" in \"")),
        "{ctx}: got {got:?}, TensorFlow said {want:?}"
    );
}

fn check_value(ctx: &str, t: &Tensor, dtype: &str, want: &Value) {
    assert_eq!(t.shape(), &[] as &[usize], "{ctx}");
    match dtype_of(dtype) {
        DType::I32 => assert_eq!(
            i64::from(t.to_scalar::<i32>().unwrap()),
            want.as_i64().unwrap(),
            "{ctx}"
        ),
        DType::I64 => assert_eq!(
            t.to_scalar::<i64>().unwrap(),
            want.as_i64().unwrap(),
            "{ctx}"
        ),
        DType::F32 | DType::F64 => {
            let got = match t.dtype() {
                DType::F32 => f64::from(t.to_scalar::<f32>().unwrap()),
                _ => t.to_scalar::<f64>().unwrap(),
            };
            let want: f64 = want.as_str().unwrap().parse().unwrap();
            assert!(
                got == want || (got.is_nan() && want.is_nan()),
                "{ctx}: got {got}, TensorFlow gave {want}"
            );
        }
        _ => assert_eq!(
            t.to_scalar::<Bytes>().unwrap().as_ref(),
            &latin1(want)[..],
            "{ctx}"
        ),
    }
}

#[test]
fn csv_dataset_matches_tensorflow() {
    let all = expected();
    let cases = all["cases"].as_array().unwrap();
    assert!(cases.len() >= 70, "only {} cases", cases.len());
    let mut runs = 0;
    for case in cases {
        let name = case["name"].as_str().unwrap();
        if let Some(want) = case.get("build_error") {
            let e = build(case).err().unwrap_or_else(|| panic!("{name}: built"));
            assert!(
                e.message().contains(want["message"].as_str().unwrap()),
                "{name}: {e}"
            );
            continue;
        }
        let ds = build(case).unwrap_or_else(|e| panic!("{name}: {e}"));
        let dtypes: Vec<&str> = case["dtypes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_str().unwrap())
            .collect();
        let want_types: Vec<DType> = dtypes.iter().map(|d| dtype_of(d)).collect();
        assert_eq!(ds.output_types(), &want_types[..], "{name}");
        assert_eq!(ds.output_shapes(), &vec![Shape::scalar(); dtypes.len()][..]);
        let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
        let fetches: Vec<&Output> = next.iter().collect();
        let sess = Session::new(ds.graph()).unwrap();
        for (i, want) in case["outcomes"].as_array().unwrap().iter().enumerate() {
            let ctx = format!("{name} run {i}");
            let got = run(&sess, &fetches);
            runs += 1;
            match (want.get("value"), got) {
                (Some(v), Ok(ts)) => {
                    let v = v.as_array().unwrap();
                    assert_eq!(ts.len(), v.len(), "{ctx}");
                    for (c, (t, w)) in ts.iter().zip(v).enumerate() {
                        check_value(&format!("{ctx} column {c}"), t, dtypes[c], w);
                    }
                }
                (Some(v), Err(e)) => panic!("{ctx}: expected {v}, got {e}"),
                (None, Ok(t)) => panic!("{ctx}: expected {want}, got {t:?}"),
                (None, Err(e)) => check_error(
                    &ctx,
                    &e,
                    want["error"].as_str().unwrap(),
                    want["message"].as_str().unwrap(),
                ),
            }
        }
    }
    assert!(runs >= 250, "{runs} runs");
}

/// Every element of `next` until the first error: string columns' bytes, and the error.
fn drain(sess: &Session, next: &[Output]) -> (Vec<Vec<Vec<u8>>>, Error) {
    let fetches: Vec<&Output> = next.iter().collect();
    let mut out = vec![];
    for _ in 0..10_000 {
        match run(sess, &fetches) {
            Ok(ts) => out.push(
                ts.iter()
                    .map(|t| t.to_scalar::<Bytes>().unwrap().to_vec())
                    .collect(),
            ),
            Err(e) => return (out, e),
        }
    }
    panic!("the iterator did not end");
}

#[test]
fn long_records_and_quoted_newlines_cross_read_chunks() {
    let tmp = TempDir::new("data-csv-chunks");
    let mut data = Vec::new();
    let mut want = Vec::new();
    for i in 0..300 {
        let text = format!("line {i}\n{}\"", "x".repeat(i * 37 % 3000));
        data.extend_from_slice(format!("{i},\"{}\"\r\n", text.replace('"', "\"\"")).as_bytes());
        want.push(vec![i.to_string().into_bytes(), text.into_bytes()]);
    }
    let f = tmp.file("long.csv", &data);
    let g = Graph::new();
    let d = constant(&g, Tensor::from(vec![""])).unwrap();
    let ds = CsvDataset::from_files(&g, &[&f], &[d.clone(), d])
        .unwrap()
        .buffer_size(1)
        .build()
        .unwrap();
    let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    let (got, end) = drain(&sess, &next);
    assert_eq!(got.len(), want.len());
    assert!(got == want, "records differ");
    assert_eq!(end.code(), Code::OutOfRange);
}

#[test]
fn string_fields_are_slices_of_the_read_buffer() {
    let tmp = TempDir::new("data-csv-slices");
    let f = tmp.file("s.csv", b"abc,defg\n");
    let g = Graph::new();
    let d = constant(&g, Tensor::from(vec![""])).unwrap();
    let ds = CsvDataset::from_files(&g, &[&f], &[d.clone(), d])
        .unwrap()
        .build()
        .unwrap();
    let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    let ts = run(&sess, &[&next[0], &next[1]]).unwrap();
    let a = ts[0].to_scalar::<Bytes>().unwrap();
    let b = ts[1].to_scalar::<Bytes>().unwrap();
    assert_eq!((a.as_ref(), b.as_ref()), (&b"abc"[..], &b"defg"[..]));
    assert_eq!(b.as_ptr() as usize - a.as_ptr() as usize, 4);
}

#[test]
fn build_checks_mirror_tensorflows_python() {
    let g = Graph::new();
    let names = constant(&g, Tensor::from(vec!["x.csv"])).unwrap();
    let e = CsvDataset::new(&names, &[]).build().unwrap_err();
    assert_eq!(
        e.message(),
        "Attr 'output_types' of 'CSVDatasetV2' Op passed list of length 0 less than minimum 1."
    );
    let b = constant(&g, Tensor::from(vec![true])).unwrap();
    let e = CsvDataset::new(&names, &[b]).build().unwrap_err();
    assert!(e.message().contains("has DataType bool not in list"), "{e}");
    let two = constant(&g, Tensor::from(vec![1i32, 2])).unwrap();
    let e = CsvDataset::new(&names, &[two]).build().unwrap_err();
    assert!(
        e.message()
            .contains("Shape of a default must be a length-0 or length-1 vector, or a scalar."),
        "{e}"
    );
    let matrix = constant(
        &g,
        Tensor::from_vec(&[1, 1], vec![Bytes::from("x.csv")]).unwrap(),
    )
    .unwrap();
    let one = constant(&g, Tensor::from(vec![1i32])).unwrap();
    let e = CsvDataset::new(&matrix, std::slice::from_ref(&one))
        .build()
        .unwrap_err();
    assert!(
        e.message()
            .contains("Shape must be at most rank 1 but is rank 2"),
        "{e}"
    );
    // A scalar default is allowed, as in TensorFlow.
    let scalar = constant(&g, Tensor::scalar(3i64)).unwrap();
    let ds = CsvDataset::new(&names, &[scalar, one]).build().unwrap();
    assert_eq!(ds.output_types(), &[DType::I64, DType::I32]);
    let node = g.node(ds.handle().node_id());
    assert_eq!(node.op_type(), "CSVDatasetV2");
    assert_eq!(node.inputs().len(), 11);
}
