//! `RecordInput` through a session: the op Python's `data_flow_ops.RecordInput` builds, batches
//! of records over epochs (compressed files too), Python's `batches` split, the kernel's
//! argument errors, and runs waiting for records ending on timeout and session close. The
//! order TensorFlow 2.21 gives is checked in `io/record_yielder/tests.rs`.

use std::collections::BTreeMap;
use std::time::Duration;

use bytes::Bytes;
use weir_graph::{Code, DType, Graph, Shape, Tensor};
use weir_ops::io::{Compression, RecordInput, RecordWriter};
use weir_session::{RunArgs, Session};

use crate::io_util::{run, TempDir};

fn write(dir: &TempDir, name: &str, records: &[String], c: Compression) {
    let mut w = RecordWriter::create(dir.path(name), c).unwrap();
    for r in records {
        w.write(r.as_bytes()).unwrap();
    }
    w.close().unwrap();
}

fn strings(t: &Tensor) -> Vec<String> {
    t.to_vec::<Bytes>()
        .unwrap()
        .iter()
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .collect()
}

#[test]
fn the_op_carries_pythons_arguments() {
    let g = Graph::new();
    let y = RecordInput::new("/d/train-*,/d/more-*")
        .batch_size(8)
        .buffer_size(100)
        .parallelism(4)
        .shift_ratio(0.25)
        .seed(7)
        .compression_type(Compression::Zlib)
        .get_yield_op(&g)
        .unwrap();
    let op = y.op();
    assert_eq!(op.name(), "RecordInput");
    assert_eq!(y.dtype(), DType::String);
    assert_eq!(y.shape(), Shape::unknown());
    assert_eq!(
        op.attr::<String>("file_pattern").unwrap(),
        "/d/train-*,/d/more-*"
    );
    assert_eq!(op.attr::<i64>("batch_size").unwrap(), 8);
    assert_eq!(op.attr::<i64>("file_buffer_size").unwrap(), 100);
    assert_eq!(op.attr::<i64>("file_parallelism").unwrap(), 4);
    assert_eq!(op.attr::<f32>("file_shuffle_shift_ratio").unwrap(), 0.25);
    assert_eq!(op.attr::<i64>("file_random_seed").unwrap(), 7);
    assert_eq!(op.attr::<String>("compression_type").unwrap(), "ZLIB");
    // Python's defaults.
    let d = RecordInput::new("x").get_yield_op(&g).unwrap().op();
    assert_eq!(d.name(), "RecordInput_1");
    assert_eq!(d.attr::<i64>("batch_size").unwrap(), 1);
    assert_eq!(d.attr::<i64>("file_buffer_size").unwrap(), 1);
    assert_eq!(d.attr::<i64>("file_parallelism").unwrap(), 1);
    assert_eq!(d.attr::<i64>("file_random_seed").unwrap(), 0);
    assert_eq!(d.attr::<String>("compression_type").unwrap(), "");
}

/// Gzip files read over three epochs, several threads and a buffer: every epoch yields each
/// record once.
#[test]
fn batches_cover_every_record_each_epoch() {
    let dir = TempDir::new("record-input");
    let mut all = Vec::new();
    for f in 0..4 {
        let recs: Vec<String> = (0..(5 + f * 3)).map(|r| format!("f{f}-{r}")).collect();
        write(&dir, &format!("part-{f}.tfr.gz"), &recs, Compression::Gzip);
        all.extend(recs);
    }
    all.sort();
    let g = Graph::new();
    let y = RecordInput::new(format!("{}/part-*", dir.0.display()))
        .batch_size(all.len() as i64)
        .buffer_size(6)
        .parallelism(2)
        .seed(301)
        .compression_type(Compression::Gzip)
        .get_yield_op(&g)
        .unwrap();
    let sess = Session::new(&g).unwrap();
    for epoch in 0..3 {
        let mut got = strings(&run(&sess, &[&y]).unwrap()[0]);
        got.sort();
        assert_eq!(got, all, "epoch {epoch}");
    }
}

/// `batches(3)` with `batch_size(2)`: three lists of two scalar records, six distinct records
/// per run.
#[test]
fn batches_split_a_run_as_python_does() {
    let dir = TempDir::new("record-input-batches");
    let recs: Vec<String> = (0..6).map(|r| format!("r{r}")).collect();
    write(&dir, "a.tfr", &recs, Compression::None);
    let g = Graph::new();
    let lists = RecordInput::new(dir.path("a.tfr"))
        .batch_size(2)
        .batches(3)
        .buffer_size(3)
        .get_yield_op_batches(&g)
        .unwrap();
    assert_eq!(lists.len(), 3);
    assert!(lists.iter().all(|l| l.len() == 2));
    let records = lists[0][0].op().inputs()[0].op().inputs()[1].clone();
    assert_eq!(records.op().attr::<i64>("batch_size").unwrap(), 6);
    let fetches: Vec<_> = lists.iter().flatten().collect();
    assert!(fetches.iter().all(|o| o.shape() == Shape::scalar()));
    let sess = Session::new(&g).unwrap();
    let out = run(&sess, &fetches).unwrap();
    let mut got: Vec<String> = out
        .iter()
        .map(|t| String::from_utf8_lossy(&t.to_scalar::<Bytes>().unwrap()).into_owned())
        .collect();
    got.sort();
    assert_eq!(got, recs);
    let e = RecordInput::new("x").get_yield_op_batches(&g).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
}

#[test]
fn bad_arguments_and_bad_files_are_tensorflows_errors() {
    let dir = TempDir::new("record-input-errors");
    let recs: Vec<String> = (0..3).map(|r| format!("r{r}")).collect();
    write(&dir, "z.tfr.gz", &recs, Compression::Gzip);
    let cases: Vec<(RecordInput, Code, String)> = vec![
        (
            RecordInput::new("x").batch_size(-1),
            Code::InvalidArgument,
            "batch_size must be non-negative but got -1".into(),
        ),
        (
            RecordInput::new("x").parallelism(-2),
            Code::InvalidArgument,
            "file_parallelism should >= 0, got -2".into(),
        ),
        (
            RecordInput::new(dir.path("nothing*")),
            Code::NotFound,
            format!("Found no files at {}", dir.path("nothing*")),
        ),
        // A gzip file read as plain TFRecords.
        (
            RecordInput::new(dir.path("z.tfr.gz")).batch_size(2),
            Code::DataLoss,
            "corrupted record at 0".into(),
        ),
    ];
    for (ri, code, msg) in cases {
        let g = Graph::new();
        let y = ri.get_yield_op(&g).unwrap();
        let sess = Session::new(&g).unwrap();
        let e = run(&sess, &[&y]).unwrap_err();
        assert_eq!(e.code(), code, "{e}");
        assert!(e.message().contains(&msg), "{e}");
    }
    // batch_size 0 gives an empty batch.
    let g = Graph::new();
    let y = RecordInput::new(dir.path("z.tfr.gz"))
        .batch_size(0)
        .get_yield_op(&g)
        .unwrap();
    let out = run(&Session::new(&g).unwrap(), &[&y]).unwrap();
    assert_eq!(out[0].shape(), &[0]);
}

/// With no reader threads nothing ever arrives: the run ends at its timeout, and a run with no
/// timeout ends when another thread closes the session.
#[test]
fn waiting_runs_end_on_timeout_and_on_session_close() {
    let dir = TempDir::new("record-input-wait");
    write(&dir, "w.tfr", &["w".to_string()], Compression::None);
    let g = Graph::new();
    let y = RecordInput::new(dir.path("w.tfr"))
        .parallelism(0)
        .get_yield_op(&g)
        .unwrap();
    let sess = Session::new(&g).unwrap();
    let args = RunArgs::new().fetch(&y).timeout(Duration::from_millis(100));
    assert_eq!(sess.run(&args).unwrap_err().code(), Code::DeadlineExceeded);

    let sess = std::sync::Arc::new(sess);
    let s2 = sess.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    let y2 = y.clone();
    std::thread::spawn(move || {
        tx.send(s2.run(&RunArgs::new().fetch(&y2)).map(|_| ()))
            .unwrap();
    });
    std::thread::sleep(Duration::from_millis(100));
    sess.close();
    let r = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("closing the session did not end the waiting run");
    assert_eq!(r.unwrap_err().code(), Code::Cancelled);
}

/// Each session has its own reader threads and epochs.
#[test]
fn two_sessions_read_independently() {
    let dir = TempDir::new("record-input-sessions");
    let recs: Vec<String> = (0..4).map(|r| format!("s{r}")).collect();
    write(&dir, "s.tfr", &recs, Compression::None);
    let g = Graph::new();
    let y = RecordInput::new(dir.path("s.tfr"))
        .batch_size(4)
        .buffer_size(2)
        .get_yield_op(&g)
        .unwrap();
    let (a, b) = (Session::new(&g).unwrap(), Session::new(&g).unwrap());
    let mut counts = BTreeMap::new();
    for s in [&a, &b, &a] {
        for r in strings(&run(s, &[&y]).unwrap()[0]) {
            *counts.entry(r).or_insert(0) += 1;
        }
    }
    assert_eq!(counts.values().copied().collect::<Vec<_>>(), [3, 3, 3, 3]);
}
