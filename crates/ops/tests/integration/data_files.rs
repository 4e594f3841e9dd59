//! tf.data's file datasets (`TFRecordDataset`, `TextLineDataset`, `FixedLengthRecordDataset`)
//! against what TensorFlow 2.21 returned for the same files (`tests/data/tfdata_files`, written
//! by `make_files.py` there), run after run: values, error classes and messages.

use std::path::PathBuf;

use serde_json::Value;
use weir_graph::{Bytes, Code, DType, Error, Graph, Output, Shape, Tensor};
use weir_ops::array::constant;
use weir_ops::data::{Dataset, FixedLengthRecordDataset, TextLineDataset, TfRecordDataset};
use weir_session::Session;

use crate::io_util::{run, TempDir};

use crate::parsing_support::code_of;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/tfdata_files")
}

fn dir_str() -> String {
    data_dir().to_string_lossy().into_owned()
}

fn expected() -> Value {
    let p = data_dir().join("expected.json");
    let s = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&s).unwrap()
}

/// Cases whose error comes from the dataset op's arguments: TensorFlow's Python makes one
/// dataset per file inside a `flat_map`, so after the error it goes on (here: to the end);
/// weir's op takes all the files, so only the error itself is compared. (Their `_raw` twins,
/// TensorFlow's op over all the files, fail on every run as weir does, and are compared whole.)
const ARGUMENT_ERRORS: &[&str] = &[
    "tfrecord_buffer_minus_two",
    "text_bogus_compression",
    "text_negative_buffer",
    "fixed_bogus_compression",
    "fixed_zero_record",
    "fixed_negative_header",
    "fixed_negative_footer",
    "fixed_negative_buffer",
];

fn build(case: &Value) -> Dataset {
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
    let kw = &case["kwargs"];
    let int = |k: &str| kw.get(k).and_then(Value::as_i64);
    let comp = kw
        .get("compression_type")
        .and_then(Value::as_str)
        .unwrap_or("");
    match case["dataset"].as_str().unwrap() {
        "TFRecordDataset" => {
            let mut b = TfRecordDataset::new(&names).compression_type(comp);
            if let Some(n) = int("buffer_size") {
                b = b.buffer_size(n);
            }
            b.build()
        }
        "TextLineDataset" => {
            let mut b = TextLineDataset::new(&names).compression_type(comp);
            if let Some(n) = int("buffer_size") {
                b = b.buffer_size(n);
            }
            b.build()
        }
        _ => {
            let mut b = FixedLengthRecordDataset::new(&names, int("record_bytes").unwrap())
                .header_bytes(int("header_bytes").unwrap_or(0))
                .footer_bytes(int("footer_bytes").unwrap_or(0))
                .compression_type(comp);
            if let Some(n) = int("buffer_size") {
                b = b.buffer_size(n);
            }
            b.build()
        }
    }
    .unwrap()
}

/// Compares weir's error with TensorFlow's. weir's reader messages start with TensorFlow's
/// words and may go on with what was found and the file (`: data CRC mismatch in "<file>"`,
/// ` in "<file>"`). The iterator path in the Internal message of a per-file dataset names
/// Python's `flat_map` (`Prefetch::FlatMap[0]::`), so that one is compared from `returned` on;
/// the `_raw` cases' is compared whole.
fn check_error(ctx: &str, e: &Error, class: &str, want: &str, raw: bool) {
    assert_eq!(e.code(), code_of(class), "{ctx}: {e}");
    let got = e.message().replace(&dir_str(), "<DIR>");
    if class == "InternalError" && !raw {
        let tail = |m: &str| m.split_once("\" returned").map(|(_, t)| t.to_string());
        assert_eq!(tail(&got), tail(want), "{ctx}: {got}");
        return;
    }
    let extra = got.strip_prefix(want);
    assert!(
        matches!(extra, Some(rest) if rest.is_empty() || rest.starts_with(": ") || rest.starts_with(" in \"")),
        "{ctx}: got {got:?}, TensorFlow said {want:?}"
    );
}

#[test]
fn file_datasets_match_tensorflow() {
    let all = expected();
    let cases = all["cases"].as_array().unwrap();
    assert!(cases.len() >= 58, "only {} cases", cases.len());
    let mut runs = 0;
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let ds = build(case);
        assert_eq!(ds.output_types(), &[DType::String]);
        assert_eq!(ds.output_shapes(), &[Shape::scalar()]);
        let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
        let sess = Session::new(ds.graph()).unwrap();
        let mut outcomes = case["outcomes"].as_array().unwrap().as_slice();
        if ARGUMENT_ERRORS.contains(&name) {
            outcomes = &outcomes[..1];
        }
        for (i, want) in outcomes.iter().enumerate() {
            let ctx = format!("{name} run {i}");
            let got = run(&sess, &[&next[0]]);
            runs += 1;
            match (want.get("value"), got) {
                (Some(v), Ok(t)) => {
                    // The fixture stores bytes as latin-1 characters.
                    let want: Vec<u8> = v.as_str().unwrap().chars().map(|c| c as u8).collect();
                    assert_eq!(
                        t[0].to_scalar::<Bytes>().unwrap().as_ref(),
                        &want[..],
                        "{ctx}"
                    );
                }
                (Some(v), Err(e)) => panic!("{ctx}: expected {v}, got {e}"),
                (None, Ok(t)) => panic!("{ctx}: expected {want}, got {:?}", t[0]),
                (None, Err(e)) => check_error(
                    &ctx,
                    &e,
                    want["error"].as_str().unwrap(),
                    want["message"].as_str().unwrap(),
                    case["raw"].as_bool() == Some(true),
                ),
            }
        }
    }
    assert!(runs >= 240, "{runs} runs");
}

fn strings(sess: &Session, next: &Output) -> (Vec<Vec<u8>>, Error) {
    let mut out = vec![];
    for _ in 0..1000 {
        match run(sess, &[next]) {
            Ok(t) => out.push(t[0].to_scalar::<Bytes>().unwrap().to_vec()),
            Err(e) => return (out, e),
        }
    }
    panic!("the iterator did not end");
}

fn fixture(name: &str) -> String {
    data_dir().join(name).to_string_lossy().into_owned()
}

#[test]
fn files_are_opened_when_the_iterator_reaches_them() {
    let tmp = TempDir::new("data-files-lazy");
    let first = tmp.file("a.txt", b"1\n2\n");
    let later = tmp.path("b.txt");
    let g = Graph::new();
    let ds = TextLineDataset::from_files(&g, &[&first, &later])
        .unwrap()
        .build()
        .unwrap();
    let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    for want in ["1", "2"] {
        let t = run(&sess, &[&next[0]]).unwrap();
        assert_eq!(t[0].to_scalar::<Bytes>().unwrap().as_ref(), want.as_bytes());
    }
    // The second file is created only now: the dataset (and the iterator) were made before.
    std::fs::write(&later, b"3\r\n").unwrap();
    let (rest, end) = strings(&sess, &next[0]);
    assert_eq!(rest, vec![b"3".to_vec()]);
    assert_eq!(end.code(), Code::OutOfRange);
    assert_eq!(end.message(), "End of sequence");
}

#[test]
fn records_are_slices_of_the_read_buffer() {
    let g = Graph::new();
    let ds = TfRecordDataset::from_files(&g, &[&fixture("rec.tfrecord")])
        .unwrap()
        .build()
        .unwrap();
    let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    let a = run(&sess, &[&next[0]]).unwrap()[0]
        .to_scalar::<Bytes>()
        .unwrap();
    let _empty = run(&sess, &[&next[0]]).unwrap();
    let c = run(&sess, &[&next[0]]).unwrap()[0]
        .to_scalar::<Bytes>()
        .unwrap();
    assert_eq!(c.as_ref(), b"hello world");
    // "abc" sits at byte 12 of the file and "hello world" at 47, in one buffer.
    assert_eq!(c.as_ptr() as usize - a.as_ptr() as usize, 35);
}

#[test]
fn a_file_dataset_repeats_and_reads_a_matrix_of_names() {
    let g = Graph::new();
    let f = fixture("fixed.bin");
    let names = constant(
        &g,
        Tensor::from_vec(&[2, 1], vec![Bytes::from(f.clone()), Bytes::from(f)]).unwrap(),
    )
    .unwrap();
    let ds = FixedLengthRecordDataset::new(&names, 3)
        .header_bytes(2)
        .footer_bytes(3)
        .build()
        .unwrap()
        .repeat(Some(2))
        .unwrap();
    let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    let (got, end) = strings(&sess, &next[0]);
    assert_eq!(got.len(), 12);
    assert_eq!(got[3], b"aaa");
    assert_eq!(got[11], b"ccc");
    assert_eq!(end.message(), "End of sequence");
}

#[test]
fn filenames_must_be_strings() {
    let g = Graph::new();
    let ints = constant(&g, Tensor::from(vec![1i64, 2])).unwrap();
    let e = TfRecordDataset::new(&ints).build().unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert_eq!(
        e.message(),
        "`filenames` must be a `tf.Tensor` of `tf.string` elements."
    );
}

#[test]
fn the_ops_carry_tensorflows_defaults() {
    let g = Graph::new();
    let ds = TextLineDataset::from_files(&g, &["x"])
        .unwrap()
        .build()
        .unwrap();
    let node = g.node(ds.handle().node_id());
    assert_eq!(node.op_type(), "TextLineDataset");
    let ds = FixedLengthRecordDataset::from_files(&g, &["x"], 4)
        .unwrap()
        .build()
        .unwrap();
    let node = g.node(ds.handle().node_id());
    assert_eq!(node.op_type(), "FixedLengthRecordDatasetV2");
    assert_eq!(node.inputs().len(), 6);
}
