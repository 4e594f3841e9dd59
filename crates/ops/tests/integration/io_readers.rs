//! Reader ops in a Session, fed by a test filename queue, against what TensorFlow 2.21 produced
//! (`../shared/fixtures/reader_cases.json`, `tfrecord_corrupt/corrupt_cases.json`).

use crate::io_util;

use io_util::{b64, drain, fixtures, json, run, scalar_bytes, string_queue, TempDir};
use serde_json::Value;
use weir_graph::{Bytes, Error, Graph};
use weir_ops::io::{
    Compression, FixedLengthRecordReader, IdentityReader, Reader, TextLineReader, TfRecordReader,
    WholeFileReader,
};
use weir_session::Session;

fn fixture(rel: &str) -> String {
    fixtures().join(rel).to_string_lossy().into_owned()
}

/// Replaces each file's path in `key` by `<FILE:basename>` (`<FILE>` when `short`), as the
/// fixtures write keys.
fn redact(key: &str, files: &[String], short: bool) -> String {
    for f in files {
        if let Some(rest) = key.strip_prefix(f.as_str()) {
            let base = std::path::Path::new(f)
                .file_name()
                .unwrap()
                .to_string_lossy();
            return if short {
                format!("<FILE>{rest}")
            } else {
                format!("<FILE:{base}>{rest}")
            };
        }
    }
    key.to_string()
}

fn check_end(ctx: &str, e: &Error, want: &Value) {
    let class = want["error_class"].as_str().unwrap();
    let code = match class {
        "OutOfRangeError" => e.is_out_of_range(),
        "DataLossError" => e.is_data_loss(),
        "InvalidArgumentError" => e.is_invalid_argument(),
        "NotFoundError" => e.is_not_found(),
        other => panic!("{ctx}: unexpected class {other}"),
    };
    assert!(code, "{ctx}: expected {class}, got {e}");
    let msg = want["message"].as_str().unwrap();
    if msg.contains("FIFOQueue") {
        assert!(
            e.message()
                .contains("is closed and has insufficient elements (requested 1, current size 0)"),
            "{ctx}: {e}"
        );
    } else {
        let core = msg.split('\'').next().unwrap();
        assert!(e.message().starts_with(core), "{ctx}: {e} lacks {core:?}");
    }
}

fn build_reader(g: &Graph, family: &str, kwargs: &Value) -> Reader {
    let int = |k: &str| kwargs.get(k).and_then(Value::as_i64).unwrap_or(0);
    match family {
        "TextLineReader" => TextLineReader::new()
            .skip_header_lines(int("skip_header_lines"))
            .build(g),
        _ => FixedLengthRecordReader::new(int("record_bytes"))
            .header_bytes(int("header_bytes"))
            .footer_bytes(int("footer_bytes"))
            .hop_bytes(int("hop_bytes"))
            .build(g),
    }
    .unwrap()
}

#[test]
fn reader_cases_match_tensorflow() {
    let cases = json("reader_cases.json");
    let mut n = 0;
    for family in ["FixedLengthRecordReader", "TextLineReader"] {
        for case in cases[family].as_array().unwrap() {
            let name = format!("{family}: {}", case["name"].as_str().unwrap());
            let files: Vec<String> = case["files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| fixture(&format!("readers/{}", f.as_str().unwrap())))
                .collect();
            let want = &case[family];
            let g = Graph::new();
            let fq = string_queue(
                &g,
                "fifo_queue",
                &files.iter().map(String::as_str).collect::<Vec<_>>(),
                true,
            );
            let reader = build_reader(&g, family, &case["kwargs"]);
            let (k, v) = reader.read(&fq).unwrap();
            let produced = reader.num_records_produced().unwrap();
            let sess = Session::new(&g).unwrap();
            let (got, err) = drain(&sess, &k, &v);
            let want_recs = want["records"].as_array().unwrap();
            assert_eq!(got.len(), want_recs.len(), "{name}: {got:?}");
            for ((gk, gv), w) in got.iter().zip(want_recs) {
                assert_eq!(
                    redact(gk, &files, false),
                    w["key"].as_str().unwrap(),
                    "{name}"
                );
                assert_eq!(gv, &b64(w["value_b64"].as_str().unwrap()), "{name} {gk}");
            }
            let end = if want["error"].is_null() {
                &want["end"]
            } else {
                &want["error"]
            };
            check_end(&name, &err, end);
            let p = run(&sess, &[&produced]).unwrap()[0]
                .to_scalar::<i64>()
                .unwrap();
            assert_eq!(p, want["num_records_produced"].as_i64().unwrap(), "{name}");
            n += 1;
        }
    }
    assert!(n >= 20, "only {n} cases ran");
}

#[test]
fn corrupt_tfrecords_through_the_reader_op() {
    let meta = json("tfrecord_corrupt/corrupt_cases.json");
    for case in meta["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let file = fixture(&format!(
            "tfrecord_corrupt/{}",
            case["file"].as_str().unwrap()
        ));
        let c = Compression::parse(case["compression_type"].as_str().unwrap()).unwrap();
        let want = &case["TFRecordReader"];
        let g = Graph::new();
        let fq = string_queue(&g, "fifo_queue", &[&file], true);
        let reader = TfRecordReader::new().compression(c).build(&g).unwrap();
        let (k, v) = reader.read(&fq).unwrap();
        let sess = Session::new(&g).unwrap();
        let (got, err) = drain(&sess, &k, &v);
        let files = vec![file.clone()];
        let keys: Vec<String> = got.iter().map(|(k, _)| redact(k, &files, true)).collect();
        let want_keys: Vec<&str> = want["keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap())
            .collect();
        assert_eq!(keys, want_keys, "{name}");
        let want_recs: Vec<Vec<u8>> = want["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| b64(r.as_str().unwrap()))
            .collect();
        let recs: Vec<Vec<u8>> = got.into_iter().map(|(_, v)| v).collect();
        assert_eq!(recs, want_recs, "{name}");
        check_end(name, &err, &want["error"]);
        if err.is_data_loss() {
            assert!(
                err.message().contains(&file),
                "{name}: {err} should name the file"
            );
        }
        let again = run(&sess, &[&k, &v]).unwrap_err();
        check_end(
            &format!("{name} (after error)"),
            &again,
            &want["after_error"],
        );
    }
}

#[test]
fn tfrecord_reader_keys_are_offsets_in_every_compression() {
    let meta = json("tfrecord/examples.json");
    let records = meta["records"].as_array().unwrap();
    for (f, c) in [
        ("examples.tfrecord", Compression::None),
        ("examples.tfrecord.gz", Compression::Gzip),
        ("examples.tfrecord.zlib", Compression::Zlib),
    ] {
        let file = fixture(&format!("tfrecord/{f}"));
        let g = Graph::new();
        let fq = string_queue(&g, "fq", &[&file], true);
        let reader = TfRecordReader::new().compression(c).build(&g).unwrap();
        let (k, v) = reader.read_up_to(&fq, 1000).unwrap();
        let sess = Session::new(&g).unwrap();
        let out = run(&sess, &[&k, &v]).unwrap();
        let keys = out[0].to_strings().unwrap();
        let values = out[1].as_slice::<Bytes>().unwrap();
        assert_eq!(keys.len(), records.len(), "{f}");
        for ((key, val), w) in keys.iter().zip(values).zip(records) {
            assert_eq!(key, &format!("{file}:{}", w["offset"].as_u64().unwrap()));
            assert_eq!(
                val.as_ref(),
                &b64(w["serialized_b64"].as_str().unwrap())[..]
            );
        }
        if c == Compression::None {
            // Values are slices of one read buffer: consecutive records sit 16 framing bytes apart.
            for (i, w) in values.windows(2).enumerate() {
                let gap = w[1].as_ptr() as usize - w[0].as_ptr() as usize;
                assert_eq!(gap, w[0].len() + 16, "record {i} was copied");
            }
        }
        assert!(run(&sess, &[&k, &v]).unwrap_err().is_out_of_range());
    }
}

#[test]
fn read_up_to_never_spans_files() {
    let tmp = TempDir::new("upto");
    let a = tmp.file("a.txt", b"1\n2\n3\n4\n5\n");
    let b = tmp.file("b.txt", b"6\n7\n");
    let e = tmp.file("empty.txt", b"");
    let g = Graph::new();
    let fq = string_queue(&g, "fq", &[&a, &e, &b], true);
    let reader = TextLineReader::new().build(&g).unwrap();
    let (k, v) = reader.read_up_to(&fq, 3).unwrap();
    let produced = reader.num_records_produced().unwrap();
    let units = reader.num_work_units_completed().unwrap();
    let sess = Session::new(&g).unwrap();
    let mut sizes = vec![];
    let mut all = vec![];
    let err = loop {
        match run(&sess, &[&k, &v]) {
            Ok(t) => {
                sizes.push(t[0].shape()[0]);
                all.extend(t[1].to_strings().unwrap());
            }
            Err(e) => break e,
        }
    };
    assert_eq!(sizes, vec![3, 2, 2]);
    assert_eq!(all, ["1", "2", "3", "4", "5", "6", "7"]);
    assert!(err.is_out_of_range(), "{err}");
    let c = run(&sess, &[&produced, &units]).unwrap();
    assert_eq!(c[0].to_scalar::<i64>().unwrap(), 7);
    assert_eq!(c[1].to_scalar::<i64>().unwrap(), 3);
}

#[test]
fn read_up_to_zero_does_not_touch_the_queue_and_negative_fails() {
    let g = Graph::new();
    let fq = string_queue(&g, "fq", &[], false);
    let reader = TextLineReader::new().build(&g).unwrap();
    let (k, _) = reader.read_up_to(&fq, 0).unwrap();
    let (kn, _) = reader.read_up_to(&fq, -1).unwrap();
    let sess = Session::new(&g).unwrap();
    assert_eq!(run(&sess, &[&k]).unwrap()[0].shape(), &[0]);
    let e = run(&sess, &[&kn]).unwrap_err();
    assert!(e.is_invalid_argument(), "{e}");
}

#[test]
fn missing_file_is_not_found_and_the_next_read_moves_on() {
    let tmp = TempDir::new("missing");
    let ok = tmp.file("ok.txt", b"x\n");
    let missing = tmp.path("missing.txt");
    let g = Graph::new();
    let fq = string_queue(&g, "fq", &[&missing, &ok], true);
    let reader = TextLineReader::new().build(&g).unwrap();
    let (k, v) = reader.read(&fq).unwrap();
    let units = reader.num_work_units_completed().unwrap();
    let sess = Session::new(&g).unwrap();
    let e = run(&sess, &[&k, &v]).unwrap_err();
    assert!(e.is_not_found());
    assert_eq!(e.message(), format!("{missing}; No such file or directory"));
    let t = run(&sess, &[&k, &v]).unwrap();
    assert_eq!(scalar_bytes(&t[1]), b"x");
    assert!(run(&sess, &[&k, &v]).unwrap_err().is_out_of_range());
    assert_eq!(
        run(&sess, &[&units]).unwrap()[0]
            .to_scalar::<i64>()
            .unwrap(),
        1
    );
}

#[test]
fn reset_drops_the_current_file_and_counters() {
    let tmp = TempDir::new("reset");
    let a = tmp.file("a.txt", b"a1\na2\na3\n");
    let b = tmp.file("b.txt", b"b1\n");
    let g = Graph::new();
    let fq = string_queue(&g, "fq", &[&a, &b], true);
    let reader = TextLineReader::new().build(&g).unwrap();
    let (k, v) = reader.read(&fq).unwrap();
    let produced = reader.num_records_produced().unwrap();
    let units = reader.num_work_units_completed().unwrap();
    let reset = reader.reset().unwrap();
    let sess = Session::new(&g).unwrap();
    assert_eq!(scalar_bytes(&run(&sess, &[&k, &v]).unwrap()[1]), b"a1");
    assert_eq!(
        run(&sess, &[&produced]).unwrap()[0]
            .to_scalar::<i64>()
            .unwrap(),
        1
    );
    sess.run_target(&reset).unwrap();
    let c = run(&sess, &[&produced, &units]).unwrap();
    assert_eq!(
        (
            c[0].to_scalar::<i64>().unwrap(),
            c[1].to_scalar::<i64>().unwrap()
        ),
        (0, 0)
    );
    let t = run(&sess, &[&k, &v]).unwrap();
    assert_eq!(scalar_bytes(&t[1]), b"b1");
    assert_eq!(
        String::from_utf8(scalar_bytes(&t[0])).unwrap(),
        format!("{b}:1")
    );
}

#[test]
fn text_line_endings_follow_tensorflow() {
    let tmp = TempDir::new("lines");
    let f1 = tmp.file("1.txt", b"a\rb\nc\r\r\nlast\r\n");
    let f2 = tmp.file("2.txt", b"only\r");
    let f3 = tmp.file("3.txt", b"\r\n");
    let long_line = vec![b'z'; 700_000];
    let mut big = long_line.clone();
    big.extend_from_slice(b"\nend");
    let f4 = tmp.file("4.txt", &big);
    let g = Graph::new();
    let fq = string_queue(&g, "fq", &[&f1, &f2, &f3, &f4], true);
    let (k, v) = TextLineReader::new().build(&g).unwrap().read(&fq).unwrap();
    let sess = Session::new(&g).unwrap();
    let (got, e) = drain(&sess, &k, &v);
    assert!(e.is_out_of_range());
    let values: Vec<Vec<u8>> = got.iter().map(|(_, v)| v.clone()).collect();
    let want: Vec<Vec<u8>> = vec![
        b"a\rb".to_vec(),
        b"c\r".to_vec(),
        b"last".to_vec(),
        b"only".to_vec(),
        b"".to_vec(),
        long_line,
        b"end".to_vec(),
    ];
    assert_eq!(values, want);
    assert_eq!(got[6].0, format!("{f4}:2"));
}

#[test]
fn text_line_negative_skip_is_invalid_argument() {
    let g = Graph::new();
    let fq = string_queue(&g, "fq", &[], true);
    let (k, _) = TextLineReader::new()
        .skip_header_lines(-1)
        .build(&g)
        .unwrap()
        .read(&fq)
        .unwrap();
    let sess = Session::new(&g).unwrap();
    let e = run(&sess, &[&k]).unwrap_err();
    assert!(e.is_invalid_argument());
    assert!(
        e.message()
            .contains("skip_header_lines must be >= 0 not -1"),
        "{e}"
    );
}

#[test]
fn fixed_length_semantics_and_gzip_encoding() {
    use std::io::Write;
    let tmp = TempDir::new("flr");
    let plain = b"HHaaabbbcccddFFF";
    let f = tmp.file("f.bin", plain);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(plain).unwrap();
    let fgz = tmp.file("f.bin.gz", &gz.finish().unwrap());
    let ten = tmp.file("ten.bin", b"0123456789");
    let cases: Vec<(FixedLengthRecordReader, &str, Vec<&str>)> = vec![
        (
            FixedLengthRecordReader::new(3)
                .header_bytes(2)
                .footer_bytes(3),
            &f,
            vec!["aaa", "bbb", "ccc"],
        ),
        (
            FixedLengthRecordReader::new(4)
                .hop_bytes(2)
                .header_bytes(1)
                .footer_bytes(1),
            &f,
            vec!["Haaa", "aabb", "bbbc", "bccc", "ccdd", "ddFF"],
        ),
        (
            FixedLengthRecordReader::new(3)
                .header_bytes(2)
                .footer_bytes(3)
                .encoding("GZIP"),
            &fgz,
            vec!["aaa", "bbb", "ccc"],
        ),
        (
            FixedLengthRecordReader::new(4).hop_bytes(2),
            &ten,
            vec!["0123", "2345", "4567", "6789"],
        ),
        (
            FixedLengthRecordReader::new(4)
                .hop_bytes(2)
                .header_bytes(1)
                .footer_bytes(1),
            &ten,
            vec!["1234", "3456", "5678"],
        ),
        (
            FixedLengthRecordReader::new(3).hop_bytes(5),
            &ten,
            vec!["012", "567"],
        ),
        (FixedLengthRecordReader::new(4), &ten, vec!["0123", "4567"]),
        (
            FixedLengthRecordReader::new(4).encoding("BOGUS"),
            &ten,
            vec!["0123", "4567"],
        ),
    ];
    for (i, (r, file, want)) in cases.into_iter().enumerate() {
        let g = Graph::new();
        let fq = string_queue(&g, "fq", &[file], true);
        let (k, v) = r.build(&g).unwrap().read(&fq).unwrap();
        let sess = Session::new(&g).unwrap();
        let (got, e) = drain(&sess, &k, &v);
        assert!(e.is_out_of_range(), "case {i}: {e}");
        let vals: Vec<String> = got
            .iter()
            .map(|(_, v)| String::from_utf8(v.clone()).unwrap())
            .collect();
        assert_eq!(vals, want, "case {i}");
        assert_eq!(got.last().unwrap().0, format!("{file}:{}", want.len() - 1));
    }
}

#[test]
fn whole_file_and_identity_readers() {
    let tmp = TempDir::new("whole");
    let a = tmp.file("a.bin", &[0u8, 1, 2, 255]);
    let e = tmp.file("e.bin", b"");
    let g = Graph::new();
    let fq = string_queue(&g, "fq", &[&a, &e], true);
    let (k, v) = WholeFileReader::new().build(&g).unwrap().read(&fq).unwrap();
    let iq = string_queue(&g, "iq", &["w1", "w2"], true);
    let ir = IdentityReader::new().build(&g).unwrap();
    let (ik, iv) = ir.read(&iq).unwrap();
    let units = ir.num_work_units_completed().unwrap();
    let sess = Session::new(&g).unwrap();
    let (got, err) = drain(&sess, &k, &v);
    assert!(err.is_out_of_range());
    assert_eq!(
        got,
        vec![(a.clone(), vec![0, 1, 2, 255]), (e.clone(), vec![])]
    );
    let (got, err) = drain(&sess, &ik, &iv);
    assert!(err.is_out_of_range());
    assert_eq!(
        got,
        vec![("w1".into(), b"w1".to_vec()), ("w2".into(), b"w2".to_vec())]
    );
    assert_eq!(
        run(&sess, &[&units]).unwrap()[0]
            .to_scalar::<i64>()
            .unwrap(),
        2
    );
}
