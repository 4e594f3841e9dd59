//! `num_parallel_reads` of the file datasets and `tf.data.experimental.parallel_interleave`
//! against what TensorFlow 2.21 returned for the same files (`tests/data/tfdata_parallel_reads`,
//! written by `make_parallel_reads.py` there): record order, error classes and messages.

use std::path::PathBuf;

use serde_json::Value;
use weir_graph::{Bytes, Code, Graph, Output, Tensor};
use weir_ops::array::constant;
use weir_ops::data::{
    Dataset, FixedLengthRecordDataset, ParallelInterleaveOptions, TextLineDataset, TfRecordDataset,
    AUTOTUNE,
};
use weir_session::Session;

use crate::io_util::run;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/tfdata_parallel_reads")
}

fn cases() -> Vec<Value> {
    let p = data_dir().join("expected.json");
    let s = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str::<Value>(&s)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn paths(case: &Value) -> Vec<String> {
    case["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let p = data_dir().join(f.as_str().unwrap());
            p.to_string_lossy().into_owned()
        })
        .collect()
}

/// The case's dataset, built as its TensorFlow twin was.
fn build(g: &Graph, case: &Value) -> Dataset {
    let args = &case["args"];
    let int = |k: &str| args.get(k).and_then(Value::as_i64);
    let files = paths(case);
    let names: Output = if args["scalar"].as_bool() == Some(true) {
        constant(g, files[0].as_str()).unwrap()
    } else {
        constant(g, Tensor::from(files)).unwrap()
    };
    let reads = || int("num_parallel_reads").unwrap();
    match case["kind"].as_str().unwrap() {
        "tfrecord" => TfRecordDataset::new(&names)
            .num_parallel_reads(reads())
            .build(),
        "text" => TextLineDataset::new(&names)
            .num_parallel_reads(reads())
            .build(),
        "fixed" => FixedLengthRecordDataset::new(&names, 4)
            .num_parallel_reads(reads())
            .build(),
        "parallel_interleave" => {
            let mut o = ParallelInterleaveOptions::new(int("cycle_length").unwrap());
            if let Some(b) = int("block_length") {
                o = o.block_length(b);
            }
            if let Some(s) = args.get("sloppy").and_then(Value::as_bool) {
                o = o.sloppy(s);
            }
            if let Some(b) = int("buffer_output_elements") {
                o = o.buffer_output_elements(b);
            }
            if let Some(p) = int("prefetch_input_elements") {
                o = o.prefetch_input_elements(p);
            }
            Dataset::from_tensor_slices(&[names])
                .unwrap()
                .parallel_interleave(|f| TfRecordDataset::new(&f[0]).build(), o)
        }
        other => panic!("unknown kind {other}"),
    }
    .unwrap()
}

/// The records until the end or the first error.
fn drain(sess: &Session, next: &Output) -> (Vec<String>, Option<weir_graph::Error>) {
    let mut out = vec![];
    for _ in 0..1000 {
        match run(sess, &[next]) {
            Ok(t) => {
                let b = t[0].to_scalar::<Bytes>().unwrap();
                out.push(String::from_utf8(b.to_vec()).unwrap());
            }
            Err(e) if e.code() == Code::OutOfRange => return (out, None),
            Err(e) => return (out, Some(e)),
        }
    }
    panic!("more than 1000 records");
}

fn tf_code(kind: &str) -> Code {
    match kind {
        "InvalidArgumentError" => Code::InvalidArgument,
        "NotFoundError" => Code::NotFound,
        "DataLossError" => Code::DataLoss,
        other => panic!("unexpected TensorFlow error {other}"),
    }
}

#[test]
fn orders_and_errors_match_tensorflow() {
    let cases = cases();
    assert_eq!(cases.len(), 24);
    let dir = data_dir().to_string_lossy().into_owned();
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let g = Graph::new();
        let next = build(&g, case)
            .make_one_shot_iterator()
            .unwrap()
            .get_next()
            .unwrap();
        let sess = Session::new(&g).unwrap();
        let (values, err) = drain(&sess, &next[0]);
        let want: Vec<&str> = case["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(values, want, "{name}");
        match (&case["error"], err) {
            (Value::Null, None) => {}
            (Value::Object(e), Some(got)) => {
                assert_eq!(got.code(), tf_code(e["kind"].as_str().unwrap()), "{name}");
                // weir's reader messages start with TensorFlow's words and may go on with
                // what was found and the file (`: the record needs 19 bytes, ...`).
                let message = e["message"].as_str().unwrap().replace("{dir}", &dir);
                let extra = got.message().strip_prefix(message.as_str());
                assert!(
                    matches!(extra, Some(rest) if rest.is_empty() || rest.starts_with(": ")),
                    "{name}: got {:?}, TensorFlow said {message:?}",
                    got.message()
                );
            }
            (want, got) => panic!("{name}: expected {want}, got {got:?}"),
        }
    }
}

/// AUTOTUNE interleaves with TensorFlow's automatic cycle, which depends on the cores: every
/// record comes once, and each file's records in their order.
#[test]
fn autotune_reads_every_record_once_in_file_order() {
    let g = Graph::new();
    let files: Vec<String> = (0..4)
        .map(|i| data_dir().join(format!("f{i}.tfrecord")))
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let names = constant(&g, Tensor::from(files)).unwrap();
    let ds = TfRecordDataset::new(&names)
        .num_parallel_reads(AUTOTUNE)
        .build()
        .unwrap();
    assert_eq!(ds.handle().op().op_type(), "ParallelInterleaveDatasetV4");
    let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    let (values, err) = drain(&sess, &next[0]);
    assert!(err.is_none(), "{err:?}");
    let mut sorted = values.clone();
    sorted.sort();
    let want: Vec<String> = [3, 1, 4, 2]
        .iter()
        .enumerate()
        .flat_map(|(i, &n)| (0..n).map(move |j| format!("{i}-{j}")))
        .collect();
    assert_eq!(sorted, want);
    for i in 0..4 {
        let of_file: Vec<&String> = values
            .iter()
            .filter(|v| v.starts_with(&format!("{i}-")))
            .collect();
        let mut in_order = of_file.clone();
        in_order.sort();
        assert_eq!(of_file, in_order);
    }
}

/// Without `num_parallel_reads` one op reads the files; with it, the op TensorFlow builds.
#[test]
fn the_ops_are_tensorflows() {
    let g = Graph::new();
    let names = constant(&g, ["a", "b"]).unwrap();
    let plain = TfRecordDataset::new(&names).build().unwrap();
    assert_eq!(plain.handle().op().op_type(), "TFRecordDataset");
    let parallel = TextLineDataset::new(&names)
        .num_parallel_reads(4)
        .build()
        .unwrap();
    let op = parallel.handle().op();
    assert_eq!(op.op_type(), "LegacyParallelInterleaveDatasetV2");
    assert_eq!(op.attr::<String>("deterministic").unwrap(), "true");
    let applied = Dataset::range(&g, 0, 10, 1)
        .unwrap()
        .apply(|d| d.skip(2)?.take(3))
        .unwrap();
    let next = applied
        .make_one_shot_iterator()
        .unwrap()
        .get_next()
        .unwrap();
    let sess = Session::new(&g).unwrap();
    let got: Vec<i64> = (0..3)
        .map(|_| {
            run(&sess, &[&next[0]]).unwrap()[0]
                .to_scalar::<i64>()
                .unwrap()
        })
        .collect();
    assert_eq!(got, [2, 3, 4]);
    assert_eq!(
        run(&sess, &[&next[0]]).unwrap_err().code(),
        Code::OutOfRange
    );
}
