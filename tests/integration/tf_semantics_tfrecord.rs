//! TFRecord claims of ../shared/TF_SEMANTICS.md §4 that the other TFRecord tests do not check,
//! one test per claim (from an audit of §3-§5): compressed stream layout, codec mismatches, each
//! damage's DataLoss in TensorFlow's words (then weir's detail and the file), and the writer's
//! options.

use weir::prelude::*;

use crate::tf_semantics;

use tf_semantics::*;

// ---------------------------------------------------------------------------------------------
// §4 TFRecord format.

/// TF_SEMANTICS l.514: "An empty file holds zero records" and l.527: "EOF inside the 12-byte
/// header ... treated as normal end of file: no error, the file counts as completed" (through
/// the reader op: work units completed).
#[test]
fn s4_truncated_header_file_counts_as_a_completed_unit() {
    let tmp = Tmp::new("hdr5");
    let five = tmp.file("five.tfrecord", &[1, 2, 3, 4, 5]);
    let empty = tmp.file("empty.tfrecord", b"");
    let g = Graph::new();
    let (q, enq, close) = string_fifo(&g, "fq", &[&five, &empty]);
    let r = TfRecordReader::new().build(&g).unwrap();
    let (k, v) = r.read(q.queue_ref()).unwrap();
    let units = r.num_work_units_completed().unwrap();
    let sess = Session::new(&g).unwrap();
    fill_and_close(&sess, &enq, &close);
    let e = err_of(fetch2(&sess, &k, &v));
    assert!(e.is_out_of_range(), "{e}");
    assert_eq!(i64_of(&sess, &units), 2);
}

/// TF_SEMANTICS l.517-518: "`ZLIB`: one zlib stream (header `78 9c`) wraps the whole file";
/// "`GZIP`: a gzip container (`1f 8b 08 00`)."
#[test]
fn s4_compressed_stream_magic_bytes() {
    let tmp = Tmp::new("magic");
    let z = tmp.path("x.zlib");
    let gz = tmp.path("x.gz");
    for (p, c) in [(&z, Compression::Zlib), (&gz, Compression::Gzip)] {
        let mut w = TfRecordWriter::create(p, TfRecordOptions::new(c)).unwrap();
        w.write(b"abc").unwrap();
        w.write(b"def").unwrap();
        w.close().unwrap();
    }
    let zb = std::fs::read(&z).unwrap();
    let gb = std::fs::read(&gz).unwrap();
    assert_eq!(&zb[..2], &[0x78, 0x9c]);
    assert_eq!(&gb[..4], &[0x1f, 0x8b, 0x08, 0x00]);
    // One stream for the whole file: a single header, not one per record.
    assert_eq!(zb.windows(2).filter(|w| w == &[0x78, 0x9c]).count(), 1);
}

/// TF_SEMANTICS l.519-520: "A mismatched codec (GZIP read as ZLIB, or plain read as GZIP):
/// DataLoss "inflate() failed with error -3: incorrect header check"" (TF's whole message first).
#[test]
fn s4_codec_mismatch_exact_message() {
    let tmp = Tmp::new("mismatch");
    let plain = tmp.file("p.tfrecord", &framed(&[b"abc"], Compression::None));
    let gz = tmp.file("g.tfrecord.gz", &framed(&[b"abc"], Compression::Gzip));
    for (p, c) in [(&gz, Compression::Zlib), (&plain, Compression::Gzip)] {
        let e = tf_record_iterator(p, c)
            .unwrap()
            .next()
            .unwrap()
            .unwrap_err();
        tf_words_then_file(
            &e,
            "inflate() failed with error -3: incorrect header check",
            p,
        );
    }
}

/// The first error reading `data` as a TFRecord file, with TF's words `tf` then the file.
fn first_error_is(data: &[u8], tf: &str) {
    let tmp = Tmp::new("damage");
    let p = tmp.file("d.tfrecord", data);
    let mut it = tf_record_iterator(&p, Compression::None).unwrap();
    loop {
        match it.next() {
            Some(Ok(_)) => {}
            Some(Err(e)) => return tf_words_then_file(&e, tf, &p),
            None => panic!("no error"),
        }
    }
}

/// TF_SEMANTICS l.528: "Header CRC mismatch | DataLoss "corrupted record at <record offset>""
/// (TF's whole message first, record at 19).
#[test]
fn s4_header_crc_mismatch_exact_message() {
    let mut data = framed(&[b"abc", b"defg"], Compression::None);
    data[19] ^= 1; // the length field of the record at 19
    first_error_is(&data, "corrupted record at 19");
}

/// TF_SEMANTICS l.529: "Data or footer truncated | DataLoss "truncated record at <record
/// offset>' failed with Read less bytes than requested"" (TF's whole message first).
#[test]
fn s4_truncated_record_exact_message() {
    let mut data = framed(&[b"abc", b"defg"], Compression::None);
    data.truncate(data.len() - 2); // inside the footer of the record at 19
    first_error_is(
        &data,
        "truncated record at 19' failed with Read less bytes than requested",
    );
}

/// TF_SEMANTICS l.530: "Data CRC mismatch | DataLoss "corrupted record at <offset of the data, =
/// record offset + 12>". [confirmed: "corrupted record at 12"]" (TF's whole message first).
#[test]
fn s4_data_crc_mismatch_exact_message() {
    let mut data = framed(&[b"abc"], Compression::None);
    data[12] ^= 1;
    first_error_is(&data, "corrupted record at 12");
}

/// TF_SEMANTICS l.531: "Length ≥ SIZE_MAX − 4 | DataLoss "record size too large"" (TF's whole
/// message first).
#[test]
fn s4_record_size_too_large_exact_message() {
    let len = u64::MAX - 2;
    let mut data = len.to_le_bytes().to_vec();
    data.extend_from_slice(&weir::ops::io::crc::masked_crc32c(&len.to_le_bytes()).to_le_bytes());
    first_error_is(&data, "record size too large");
}

/// TF_SEMANTICS l.543: "it is also a context manager" (Rust: dropping an unclosed writer
/// closes it, so everything written is in the file).
#[test]
fn s4_writer_dropped_without_close_keeps_its_records() {
    let tmp = Tmp::new("drop");
    for c in [Compression::None, Compression::Gzip, Compression::Zlib] {
        let p = tmp.path(&format!("d{}.tfrecord", c.as_str()));
        {
            let mut w = TfRecordWriter::create(&p, TfRecordOptions::new(c)).unwrap();
            w.write(b"one").unwrap();
            w.write("two").unwrap();
        }
        let got: Vec<Vec<u8>> = tf_record_iterator(&p, c)
            .unwrap()
            .map(|r| r.unwrap().to_vec())
            .collect();
        assert_eq!(got, vec![b"one".to_vec(), b"two".to_vec()], "{c:?}");
    }
}

/// TF_SEMANTICS l.550-551: "the enum `TFRecordCompressionType` NONE=0, ZLIB=1, GZIP=2" and
/// l.553: "`get_compression_type_string(None) == ''`".
#[test]
fn s4_compression_type_enum_values() {
    assert_eq!(Compression::None as i32, 0);
    assert_eq!(Compression::Zlib as i32, 1);
    assert_eq!(Compression::Gzip as i32, 2);
    assert_eq!(Compression::default().as_str(), "");
    assert_eq!(TfRecordOptions::default().compression, Compression::None);
}
