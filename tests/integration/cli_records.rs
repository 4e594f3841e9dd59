//! The `weir records` command line on the TensorFlow-written fixtures.

use std::path::PathBuf;
use std::process::{Command, Output};

fn fixture(rel: &str) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let beside = root.join("../shared/fixtures");
    let base = if beside.is_dir() {
        beside
    } else {
        root.join("../../shared/fixtures")
    };
    base.join(rel).to_string_lossy().into_owned()
}

fn weir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_weir"))
        .args(args)
        .output()
        .expect("run weir")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

#[test]
fn count_guesses_compression_from_the_extension() {
    let files = [
        fixture("tfrecord/examples.tfrecord"),
        fixture("tfrecord/examples.tfrecord.gz"),
        fixture("tfrecord/examples.tfrecord.zlib"),
    ];
    let o = weir(&["records", "count", &files[0], &files[1], &files[2]]);
    assert!(o.status.success(), "{}", stderr(&o));
    let want = format!(
        "100 {}\n100 {}\n100 {}\n300 total\n",
        files[0], files[1], files[2]
    );
    assert_eq!(stdout(&o), want);
}

#[test]
fn verify_reports_damage_with_exit_status_1() {
    let ok = fixture("tfrecord_corrupt/ok.tfrecord");
    let bad = fixture("tfrecord_corrupt/data_crc_flip.tfrecord");
    let o = weir(&["records", "verify", &ok]);
    assert!(o.status.success());
    assert_eq!(stdout(&o), format!("{ok}: OK (5 records)\n"));
    let o = weir(&["records", "verify", &ok, &bad]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), format!("{ok}: OK (5 records)\n"));
    let err = stderr(&o);
    assert!(err.contains("DataLoss: corrupted record at 43"), "{err}");
    assert!(err.contains(&bad), "{err}");
    let o = weir(&[
        "records",
        "verify",
        &fixture("tfrecord_corrupt/truncated_last_footer.tfrecord"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("truncated record at 149"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn dump_prints_canonical_json() {
    let f = fixture("tfrecord/examples.tfrecord");
    let o = weir(&["records", "dump", &f, "--limit", "3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "{}\n{\"features\":{}}\n{\"features\":{\"feature\":{\"b\":{\"bytesList\":{\"value\":[\"eA==\"]}},\"f\":{\"floatList\":{\"value\":[1.5]}},\"i\":{\"int64List\":{\"value\":[\"42\"]}}}}}\n"
    );
    let o = weir(&["records", "dump", &f]);
    assert_eq!(stdout(&o).lines().count(), 100);
    let o = weir(&[
        "records",
        "dump",
        &fixture("tfrecord/sequence_examples.tfrecord"),
        "--sequence",
        "--limit",
        "1",
    ]);
    assert!(
        stdout(&o).starts_with("{\"context\":{\"feature\":{\"id\":"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn dump_raw_prints_base64_and_stops_at_damage() {
    let o = weir(&[
        "records",
        "dump",
        "--raw",
        &fixture("tfrecord_corrupt/data_crc_flip.tfrecord"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "\"cmVjb3JkLTA6IGhlbGxv\"\n");
    assert!(stderr(&o).contains("corrupted record at 43"));
    let o = weir(&["records", "dump", &fixture("tfrecord_corrupt/ok.tfrecord")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("not a tf.train.Example (use --raw"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn compression_flag_overrides_the_extension() {
    let gz = fixture("tfrecord/examples.tfrecord.gz");
    let o = weir(&["records", "count", "--compression", "none", &gz]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("corrupted record at 0 (Is this even a TFRecord file?)"),
        "{}",
        stderr(&o)
    );
    let o = weir(&["records", "count", "--compression", "zlib", &gz]);
    assert!(
        stderr(&o).contains("incorrect header check"),
        "{}",
        stderr(&o)
    );
    let o = weir(&["records", "count", "--compression", "gzip", &gz]);
    assert!(o.status.success());
    let o = weir(&["records", "count", "--compression", "bogus", &gz]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn missing_files_and_help() {
    let o = weir(&["records", "count", "/nonexistent/x.tfrecord"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("/nonexistent/x.tfrecord; No such file or directory"));
    for args in [
        vec!["--help"],
        vec!["records", "--help"],
        vec!["records", "count", "--help"],
        vec!["records", "verify", "--help"],
        vec!["records", "dump", "--help"],
    ] {
        let o = weir(&args);
        assert!(o.status.success(), "{args:?}");
        assert!(stdout(&o).contains("Usage:"), "{args:?}");
    }
    assert_eq!(weir(&["records", "count"]).status.code(), Some(2));
}
