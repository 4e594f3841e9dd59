//! TFRecord files and Example protos against the files TensorFlow 2.21 wrote
//! (`../shared/fixtures/tfrecord*`), without a graph.

use crate::io_util;

use io_util::{b64, fixtures, json, TempDir};
use serde_json::Value;
use weir_ops::io::example::{Example, Feature, SequenceExample};
use weir_ops::io::{
    crc, tf_record_iterator, Compression, FlushMode, RecordReader, TfRecordOptions, TfRecordWriter,
};

fn path(rel: &str) -> String {
    fixtures().join(rel).to_string_lossy().into_owned()
}

/// Compares one decoded feature with the JSON TensorFlow wrote for it.
fn check_feature(ctx: &str, f: &Feature, want: &Value) {
    match want["kind"].as_str() {
        None => assert_eq!(f.kind_name(), None, "{ctx}"),
        Some("int64_list") => {
            let v: Vec<i64> = want["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_i64().unwrap())
                .collect();
            assert_eq!(f.int64_list().expect(ctx), &v[..], "{ctx}");
        }
        Some("float_list") => {
            let bits: Vec<u32> = want["bits"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| {
                    u32::from_str_radix(x.as_str().unwrap().trim_start_matches("0x"), 16).unwrap()
                })
                .collect();
            let got: Vec<u32> = f
                .float_list()
                .expect(ctx)
                .iter()
                .map(|x| x.to_bits())
                .collect();
            assert_eq!(got, bits, "{ctx}");
        }
        Some("bytes_list") => {
            let v: Vec<Vec<u8>> = want["values_b64"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| b64(x.as_str().unwrap()))
                .collect();
            let got: Vec<Vec<u8>> = f
                .bytes_list()
                .expect(ctx)
                .iter()
                .map(|b| b.to_vec())
                .collect();
            assert_eq!(got, v, "{ctx}");
        }
        Some(k) => panic!("{ctx}: unknown kind {k}"),
    }
}

fn check_example(ctx: &str, ex: &Example, want: &Value) {
    assert_eq!(
        ex.features.is_some(),
        want["has_features"].as_bool().unwrap(),
        "{ctx}"
    );
    let feats = want["features"].as_object().unwrap();
    assert_eq!(ex.features().count(), feats.len(), "{ctx}");
    for (k, v) in feats {
        let f = ex
            .feature(k)
            .unwrap_or_else(|| panic!("{ctx}: missing feature {k}"));
        check_feature(&format!("{ctx} feature {k}"), f, v);
    }
}

#[test]
fn examples_read_identically_in_every_compression() {
    let meta = json("tfrecord/examples.json");
    let records = meta["records"].as_array().unwrap();
    for (file, c) in [
        ("examples.tfrecord", Compression::None),
        ("examples.tfrecord.gz", Compression::Gzip),
        ("examples.tfrecord.zlib", Compression::Zlib),
    ] {
        let mut r = RecordReader::open(path(&format!("tfrecord/{file}")), c).unwrap();
        for want in records {
            let i = want["index"].as_u64().unwrap();
            assert_eq!(
                r.offset(),
                want["offset"].as_u64().unwrap(),
                "{file} record {i}"
            );
            let rec = r
                .read_record()
                .unwrap()
                .unwrap_or_else(|| panic!("{file}: ends before {i}"));
            assert_eq!(rec.len() as u64, want["length"].as_u64().unwrap());
            assert_eq!(
                rec.as_ref(),
                &b64(want["serialized_b64"].as_str().unwrap())[..],
                "{file} {i}"
            );
            assert_eq!(
                crc::masked_crc32c(&rec) as u64,
                want["data_crc_masked"].as_u64().unwrap()
            );
            assert_eq!(
                crc::crc32c(&rec) as u64,
                want["data_crc_unmasked"].as_u64().unwrap()
            );
            let len = (rec.len() as u64).to_le_bytes();
            assert_eq!(
                crc::masked_crc32c(&len) as u64,
                want["length_crc_masked"].as_u64().unwrap()
            );
            let ex = Example::from_bytes(rec.clone()).unwrap();
            check_example(&format!("{file} record {i}"), &ex, &want["example"]);
            // Deterministic re-encoding gives TensorFlow's bytes back.
            assert_eq!(ex.to_bytes(), rec, "{file} record {i} re-encoded");
        }
        assert!(
            r.read_record().unwrap().is_none(),
            "{file} has extra records"
        );
        assert_eq!(
            meta["readback_counts"][file].as_u64().unwrap(),
            records.len() as u64
        );
    }
}

#[test]
fn writer_output_is_byte_identical_to_tensorflows() {
    let meta = json("tfrecord/examples.json");
    let tmp = TempDir::new("write");
    let out = tmp.path("examples.tfrecord");
    let mut w = TfRecordWriter::create(&out, Compression::None).unwrap();
    for rec in meta["records"].as_array().unwrap() {
        w.write(b64(rec["serialized_b64"].as_str().unwrap()))
            .unwrap();
    }
    w.close().unwrap();
    let ours = std::fs::read(&out).unwrap();
    let theirs = std::fs::read(path("tfrecord/examples.tfrecord")).unwrap();
    assert_eq!(ours.len(), theirs.len());
    assert!(
        ours == theirs,
        "uncompressed output differs from TensorFlow's"
    );
}

#[test]
fn compressed_writes_read_back_in_every_mode() {
    let tmp = TempDir::new("rt");
    let payloads: Vec<Vec<u8>> = (0..300)
        .map(|i| vec![(i % 251) as u8; (i * 37) % 5000])
        .collect();
    for c in [Compression::None, Compression::Gzip, Compression::Zlib] {
        for flush in [FlushMode::NoFlush, FlushMode::SyncFlush] {
            for level in [0, 1, 9] {
                let p = tmp.path(&format!("rt-{}-{flush:?}-{level}", c.as_str()));
                let opts = TfRecordOptions::new(c)
                    .flush_mode(flush)
                    .compression_level(level)
                    .output_buffer_size(1000);
                let mut w = TfRecordWriter::create(&p, opts).unwrap();
                for r in &payloads {
                    w.write(r).unwrap();
                }
                w.flush().unwrap();
                w.close().unwrap();
                let opts = TfRecordOptions::new(c).input_buffer_size(4096);
                let got: Vec<Vec<u8>> = tf_record_iterator(&p, opts)
                    .unwrap()
                    .map(|r| r.unwrap().to_vec())
                    .collect();
                assert_eq!(got, payloads, "{c:?} {flush:?} {level}");
            }
        }
    }
}

#[test]
fn sync_flush_makes_records_readable_before_close() {
    let tmp = TempDir::new("flush");
    let p = tmp.path("live.tfrecord.gz");
    let mut w = TfRecordWriter::create(&p, TfRecordOptions::new(Compression::Gzip)).unwrap();
    w.write(b"first").unwrap();
    w.flush().unwrap();
    let mut r = RecordReader::open(&p, Compression::Gzip).unwrap();
    // The gzip trailer is missing until close, so the stream ends early after the record.
    assert_eq!(r.read_record().unwrap().unwrap().as_ref(), b"first");
    w.close().unwrap();
}

#[test]
fn sequence_examples_match_tensorflow() {
    let meta = json("tfrecord/sequence_examples.json");
    let file = meta["file"]
        .as_str()
        .unwrap_or("sequence_examples.tfrecord");
    let recs: Vec<_> = tf_record_iterator(path(&format!("tfrecord/{file}")), Compression::None)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let want = meta["records"].as_array().unwrap();
    assert_eq!(recs.len(), want.len());
    for (rec, w) in recs.iter().zip(want) {
        let i = w["index"].as_u64().unwrap();
        assert_eq!(
            rec.as_ref(),
            &b64(w["serialized_b64"].as_str().unwrap())[..]
        );
        let se = SequenceExample::from_bytes(rec.clone()).unwrap();
        assert_eq!(se.to_bytes(), *rec, "sequence example {i} re-encoded");
        let ctx_want = w["sequence_example"]["context"].as_object().unwrap();
        let n_ctx = se.context.as_ref().map_or(0, |c| c.feature.len());
        assert_eq!(n_ctx, ctx_want.len(), "record {i}");
        for (k, v) in ctx_want {
            check_feature(
                &format!("seq {i} context {k}"),
                se.context_feature(k).unwrap(),
                v,
            );
        }
        let lists_want = w["sequence_example"]["feature_lists"].as_object().unwrap();
        let n_lists = se
            .feature_lists
            .as_ref()
            .map_or(0, |l| l.feature_list.len());
        assert_eq!(n_lists, lists_want.len(), "record {i}");
        for (k, steps) in lists_want {
            let got = se.feature_list(k).unwrap();
            let steps = steps.as_array().unwrap();
            assert_eq!(got.len(), steps.len(), "seq {i} list {k}");
            for (j, (f, s)) in got.iter().zip(steps).enumerate() {
                check_feature(&format!("seq {i} list {k} step {j}"), f, s);
            }
        }
    }
}

#[test]
fn corrupt_files_fail_as_in_tensorflow() {
    let meta = json("tfrecord_corrupt/corrupt_cases.json");
    for case in meta["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let file = path(&format!(
            "tfrecord_corrupt/{}",
            case["file"].as_str().unwrap()
        ));
        let c = Compression::parse(case["compression_type"].as_str().unwrap()).unwrap();
        let want = &case["tf_record_iterator"];
        let mut it = tf_record_iterator(&file, c).unwrap();
        let mut got = vec![];
        let mut err = None;
        for r in it.by_ref() {
            match r {
                Ok(r) => got.push(r.to_vec()),
                Err(e) => err = Some(e),
            }
        }
        let want_recs: Vec<Vec<u8>> = want["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| b64(r.as_str().unwrap()))
            .collect();
        assert_eq!(got, want_recs, "{name}: records before the error");
        match (&want["error"], err) {
            (Value::Null, None) => {}
            (w, Some(e)) if !w.is_null() => {
                assert_eq!(w["error_class"], "DataLossError", "{name}");
                assert!(e.is_data_loss(), "{name}: {e}");
                // TensorFlow's whole message, then weir's detail and the file's name.
                let tf = w["message"].as_str().unwrap();
                assert!(
                    e.message().starts_with(tf)
                        && !e.message()[tf.len()..].starts_with(char::is_numeric),
                    "{name}: {e} does not start with {tf:?}"
                );
                assert!(
                    e.message().contains(&file),
                    "{name}: {e} does not name the file"
                );
            }
            (w, e) => panic!("{name}: expected {w}, got {e:?}"),
        }
        assert!(it.next().is_none(), "{name}: iterator is fused");
    }
}

#[test]
fn failed_reads_retry_at_the_same_offset() {
    let file = path("tfrecord_corrupt/data_crc_flip.tfrecord");
    let mut r = RecordReader::open(&file, Compression::None).unwrap();
    r.read_record().unwrap().unwrap();
    let e1 = r.read_record().unwrap_err();
    assert_eq!(r.offset(), 31);
    let e2 = r.read_record().unwrap_err();
    assert_eq!(e1.message(), e2.message());
}

#[test]
fn codec_mismatches_are_data_loss() {
    let gz = path("tfrecord/examples.tfrecord.gz");
    let e = tf_record_iterator(&gz, Compression::Zlib)
        .unwrap()
        .next()
        .unwrap()
        .unwrap_err();
    assert!(e.is_data_loss());
    assert!(
        e.message()
            .starts_with("inflate() failed with error -3: incorrect header check"),
        "{e}"
    );
    let plain = path("tfrecord/examples.tfrecord");
    let e = tf_record_iterator(&plain, Compression::Gzip)
        .unwrap()
        .next()
        .unwrap()
        .unwrap_err();
    assert!(e.is_data_loss(), "{e}");
    assert!(e.message().contains("incorrect header check"), "{e}");
}

#[test]
fn missing_file_is_not_found() {
    let e = tf_record_iterator("/nonexistent/x.tfrecord", Compression::None)
        .err()
        .unwrap();
    assert!(e.is_not_found());
    assert_eq!(
        e.message(),
        "/nonexistent/x.tfrecord; No such file or directory"
    );
}

#[test]
fn a_file_claiming_a_2_pow_40_byte_record_is_data_loss() {
    let tmp = TempDir::new("huge");
    let len = 1u64 << 40;
    let mut data = Vec::new();
    let mut w = weir_ops::io::RecordWriter::new(&mut data, Compression::None).unwrap();
    w.write(b"first").unwrap();
    w.into_inner().unwrap();
    data.extend_from_slice(&len.to_le_bytes());
    data.extend_from_slice(&crc::masked_crc32c(&len.to_le_bytes()).to_le_bytes());
    data.extend_from_slice(b"short");
    let p = tmp.file("huge.tfrecord", &data);
    let mut it = tf_record_iterator(&p, Compression::None).unwrap();
    assert_eq!(it.next().unwrap().unwrap().as_ref(), b"first");
    let e = it.next().unwrap().unwrap_err();
    assert!(e.is_data_loss());
    assert!(e.message().starts_with("truncated record at 21"), "{e}");
    assert!(e.message().contains(&p), "{e}");
}
