use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::Value;
use weir_graph::Code;

use super::*;
use crate::io::tfrecord::RecordWriter;

static DIRS: AtomicUsize = AtomicUsize::new(0);

/// A fresh directory under the system's temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> TempDir {
        let n = DIRS.fetch_add(1, Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("weir-yielder-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn write_records(path: &Path, records: &[String]) {
    let mut w = RecordWriter::create(path, Compression::None).unwrap();
    for r in records {
        w.write(r.as_bytes()).unwrap();
    }
    w.close().unwrap();
}

fn options(
    pattern: &str,
    seed: i64,
    ratio: f32,
    bufsize: u64,
    parallelism: usize,
) -> YielderOptions {
    YielderOptions {
        file_pattern: pattern.to_string(),
        seed,
        shift_ratio: ratio,
        bufsize,
        parallelism,
        compression: Compression::None,
    }
}

/// A lister that returns `files` (in that order) for any pattern.
fn fixed(files: Vec<String>) -> Lister {
    Box::new(move |_| Ok(files.clone()))
}

fn strings(v: Vec<Bytes>) -> Vec<String> {
    v.iter()
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .collect()
}

fn take(y: &RecordYielder, n: usize) -> Result<Vec<String>> {
    let deadline = Instant::now() + Duration::from_secs(30);
    y.yield_batch(n, &CancellationToken::new(), Some(deadline))
        .map(strings)
}

/// TensorFlow 2.21's order for a one-record buffer and one thread, over several epochs,
/// starting from the directory listing TensorFlow saw (tests/data/record_input).
#[test]
fn one_thread_and_a_one_record_buffer_give_tensorflows_order() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/record_input/expected.json"
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases = doc["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 14);
    for c in cases {
        let dir = TempDir::new();
        let per_file = c["records_per_file"].as_u64().unwrap() as usize;
        let mut listed = Vec::new();
        for f in c["files"].as_array().unwrap() {
            let name = f.as_str().unwrap();
            let stem = name.trim_end_matches(".tfr");
            let records: Vec<String> = (0..per_file).map(|r| format!("{stem}r{r:02}")).collect();
            let p = dir.0.join(name);
            write_records(&p, &records);
            listed.push(p.to_string_lossy().into_owned());
        }
        let seed = c["seed"].as_i64().unwrap();
        let ratio = c["shift_ratio"].as_f64().unwrap() as f32;
        let y = RecordYielder::start(options("unused", seed, ratio, 1, 1), fixed(listed)).unwrap();
        let n = c["batch_size"].as_u64().unwrap() as usize;
        for (k, want) in c["batches"].as_array().unwrap().iter().enumerate() {
            let want: Vec<&str> = want
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            assert_eq!(
                take(&y, n).unwrap(),
                want,
                "seed {seed}, ratio {ratio}, batch {k}"
            );
        }
    }
}

/// With several threads and a larger buffer the order depends on timing, but each epoch still
/// yields every record exactly once.
#[test]
fn every_epoch_yields_each_record_once() {
    let dir = TempDir::new();
    let mut all = Vec::new();
    for f in 0..5 {
        let records: Vec<String> = (0..(f * 7 + 3)).map(|r| format!("f{f}r{r}")).collect();
        write_records(&dir.0.join(format!("f{f}.tfr")), &records);
        all.extend(records);
    }
    all.sort();
    let pattern = format!("{}/f*.tfr", dir.0.display());
    let y = RecordYielder::start(
        options(&pattern, 301, 0.3, 8, 3),
        Box::new(crate::io::matching_files::matching_paths_listed),
    )
    .unwrap();
    for epoch in 0..3 {
        let mut got = take(&y, all.len()).unwrap();
        got.sort();
        assert_eq!(got, all, "epoch {epoch}");
    }
}

#[test]
fn comma_separated_patterns_are_read_together() {
    let dir = TempDir::new();
    write_records(&dir.0.join("a.tfr"), &["a0".into(), "a1".into()]);
    write_records(&dir.0.join("b.tfr"), &["b0".into()]);
    let pattern = format!("{0}/a.tfr,{0}/b*", dir.0.display());
    let y = RecordYielder::start(
        options(&pattern, 0, 0.0, 2, 2),
        Box::new(crate::io::matching_files::matching_paths_listed),
    )
    .unwrap();
    let mut got = take(&y, 3).unwrap();
    got.sort();
    assert_eq!(got, ["a0", "a1", "b0"]);
}

#[test]
fn no_files_is_not_found_and_stays_so() {
    let y =
        RecordYielder::start(options("/no/such/dir/*", 0, 0.0, 1, 1), fixed(Vec::new())).unwrap();
    for _ in 0..2 {
        let e = take(&y, 1).unwrap_err();
        assert_eq!(e.code(), Code::NotFound);
        assert_eq!(e.message(), "Found no files at /no/such/dir/*");
    }
}

/// A damaged file fails every later batch with the reader's DataLoss (naming the file and
/// offset); the records before the damage may come out first, as in TensorFlow.
#[test]
fn a_damaged_file_is_data_loss_naming_it() {
    let dir = TempDir::new();
    let p = dir.0.join("bad.tfr");
    write_records(&p, &["x0".into(), "x1".into()]);
    let mut bytes = std::fs::read(&p).unwrap();
    bytes.truncate(bytes.len() - 3);
    std::fs::write(&p, bytes).unwrap();
    let file = p.to_string_lossy().into_owned();
    let y = RecordYielder::start(options("bad", 0, 0.0, 1, 1), fixed(vec![file.clone()])).unwrap();
    let e = take(&y, 3).unwrap_err();
    assert_eq!(e.code(), Code::DataLoss);
    assert!(
        e.message().starts_with("truncated record at 18"),
        "{}",
        e.message()
    );
    assert!(e.message().contains(&file), "{}", e.message());
    assert_eq!(take(&y, 1).unwrap_err().code(), Code::DataLoss);
}

#[test]
fn a_file_that_cannot_be_opened_is_invalid_argument() {
    let y = RecordYielder::start(
        options("x", 0, 0.0, 1, 1),
        fixed(vec!["/no/such/file.tfr".into()]),
    )
    .unwrap();
    let e = take(&y, 1).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message().starts_with("Can't open /no/such/file.tfr"),
        "{}",
        e.message()
    );
}

/// Waiting for records ends at the run's deadline and on cancellation; dropping the yielder
/// stops its threads even while they wait for room.
#[test]
fn waits_end_on_deadline_cancellation_and_drop() {
    let dir = TempDir::new();
    let records: Vec<String> = (0..100).map(|r| format!("r{r}")).collect();
    write_records(&dir.0.join("many.tfr"), &records);
    let file = dir.0.join("many.tfr").to_string_lossy().into_owned();

    // No threads: nothing ever arrives.
    let idle = RecordYielder::start(options("x", 0, 0.0, 4, 0), fixed(vec![file.clone()])).unwrap();
    let soon = Instant::now() + Duration::from_millis(50);
    let e = idle
        .yield_batch(1, &CancellationToken::new(), Some(soon))
        .unwrap_err();
    assert_eq!(e.code(), Code::DeadlineExceeded);
    let token = CancellationToken::new();
    let t2 = token.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        t2.cancel(Error::cancelled("run cancelled"));
    });
    let far = Instant::now() + Duration::from_secs(30);
    let e = idle.yield_batch(1, &token, Some(far)).unwrap_err();
    assert_eq!(e.code(), Code::Cancelled);
    canceller.join().unwrap();

    // A full buffer: the shard waits for room when the yielder is dropped.
    let busy = RecordYielder::start(options("x", 0, 0.0, 2, 1), fixed(vec![file])).unwrap();
    assert_eq!(take(&busy, 1).unwrap().len(), 1);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        drop(busy);
        tx.send(()).unwrap();
    });
    rx.recv_timeout(Duration::from_secs(30))
        .expect("dropping the yielder did not stop its threads");
}

/// Records come out of every epoch at the buffer's pace: the count per epoch is the files'.
#[test]
fn epochs_follow_each_other() {
    let dir = TempDir::new();
    write_records(
        &dir.0.join("e.tfr"),
        &["e0".into(), "e1".into(), "e2".into()],
    );
    let file = dir.0.join("e.tfr").to_string_lossy().into_owned();
    let y = RecordYielder::start(options("x", 0, 0.0, 10, 1), fixed(vec![file])).unwrap();
    let mut counts = BTreeMap::new();
    for r in take(&y, 9).unwrap() {
        *counts.entry(r).or_insert(0) += 1;
    }
    assert_eq!(counts.values().copied().collect::<Vec<_>>(), [3, 3, 3]);
}
