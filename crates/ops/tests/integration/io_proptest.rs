//! Bad input, tried hard: arbitrary and mutated bytes through the TFRecord reader in every
//! compression, and through the Example protos. Every input must end in records or a typed
//! error: never a panic, a hang, or an allocation sized by an untrusted length field.

use std::io::Cursor;

use proptest::prelude::*;
use weir_graph::Code;
use weir_ops::io::crc::masked_crc32c;
use weir_ops::io::example::{Example, SequenceExample};
use weir_ops::io::{Compression, RecordReader, RecordWriter, TfRecordOptions};

const CODECS: [Compression; 3] = [Compression::None, Compression::Gzip, Compression::Zlib];

/// Reads everything; returns the records and the error that ended reading, if any. The loop is
/// bounded: every record consumes at least 16 bytes of the decompressed stream.
fn read_all(data: Vec<u8>, c: Compression) -> (Vec<Vec<u8>>, Option<weir_graph::Error>) {
    let opts = TfRecordOptions::new(c).input_buffer_size(1024);
    let mut r = RecordReader::from_reader(Cursor::new(data), "fuzz", opts);
    let mut out = vec![];
    for _ in 0..1_000_000 {
        match r.read_record() {
            Ok(Some(rec)) => out.push(rec.to_vec()),
            Ok(None) => return (out, None),
            Err(e) => {
                // A failed read is repeatable and leaves the reader in place.
                let off = r.offset();
                let again = r.read_record().expect_err("a failed read must fail again");
                assert_eq!(again.code(), e.code());
                assert_eq!(r.offset(), off);
                return (out, Some(e));
            }
        }
    }
    panic!("reader did not finish");
}

fn encode(records: &[Vec<u8>], c: Compression) -> Vec<u8> {
    let mut w = RecordWriter::new(Vec::new(), c).unwrap();
    for r in records {
        w.write(r).unwrap();
    }
    w.into_inner().unwrap()
}

fn records() -> impl Strategy<Value = Vec<Vec<u8>>> {
    prop::collection::vec(prop::collection::vec(any::<u8>(), 0..300), 0..12)
}

/// A damage applied to an encoded stream.
#[derive(Clone, Debug)]
enum Mutation {
    Flip { at: usize, xor: u8 },
    Truncate { keep: usize },
    Insert { at: usize, bytes: Vec<u8> },
    Delete { at: usize, len: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1..=255u8).prop_map(|(at, xor)| Mutation::Flip { at, xor }),
        any::<usize>().prop_map(|keep| Mutation::Truncate { keep }),
        (any::<usize>(), prop::collection::vec(any::<u8>(), 1..20))
            .prop_map(|(at, bytes)| Mutation::Insert { at, bytes }),
        (any::<usize>(), 1..40usize).prop_map(|(at, len)| Mutation::Delete { at, len }),
    ]
}

fn apply(data: &mut Vec<u8>, m: &Mutation) {
    if data.is_empty() {
        return;
    }
    match m {
        Mutation::Flip { at, xor } => {
            let i = at % data.len();
            data[i] ^= xor;
        }
        Mutation::Truncate { keep } => data.truncate(keep % data.len()),
        Mutation::Insert { at, bytes } => {
            let i = at % (data.len() + 1);
            data.splice(i..i, bytes.iter().copied());
        }
        Mutation::Delete { at, len } => {
            let i = at % data.len();
            let end = (i + len).min(data.len());
            data.drain(i..end);
        }
    }
}

fn is_typed_data_error(e: &weir_graph::Error) -> bool {
    e.code() == Code::DataLoss
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_end_in_records_or_data_loss(data in prop::collection::vec(any::<u8>(), 0..2000)) {
        for c in CODECS {
            let (_, err) = read_all(data.clone(), c);
            if let Some(e) = err {
                prop_assert!(is_typed_data_error(&e), "{c:?}: {e}");
            }
        }
    }

    #[test]
    fn round_trip_in_every_codec(recs in records()) {
        for c in CODECS {
            let (got, err) = read_all(encode(&recs, c), c);
            prop_assert!(err.is_none(), "{c:?}: {err:?}");
            prop_assert_eq!(&got, &recs);
        }
    }

    #[test]
    fn mutated_streams_give_a_prefix_then_a_typed_error(
        recs in records(),
        muts in prop::collection::vec(mutation(), 1..4),
    ) {
        for c in CODECS {
            let mut data = encode(&recs, c);
            for m in &muts {
                apply(&mut data, m);
            }
            let (got, err) = read_all(data, c);
            if let Some(e) = &err {
                prop_assert!(is_typed_data_error(e), "{c:?}: {e}");
            }
            if c == Compression::None {
                // CRCs catch damage, so whatever was delivered is what was written, in order,
                // except where an insertion or deletion shifted a whole valid record.
                let shifted = muts.iter().any(|m| matches!(m, Mutation::Insert { .. } | Mutation::Delete { .. }));
                if !shifted {
                    prop_assert!(got.len() <= recs.len());
                    prop_assert_eq!(&got[..], &recs[..got.len()]);
                }
            }
        }
    }

    #[test]
    fn lying_length_fields_are_data_loss_without_allocating(
        len in (1u64 << 20)..=u64::MAX,
        tail in prop::collection::vec(any::<u8>(), 0..64),
    ) {
        let mut data = len.to_le_bytes().to_vec();
        data.extend_from_slice(&masked_crc32c(&len.to_le_bytes()).to_le_bytes());
        data.extend_from_slice(&tail);
        for c in CODECS {
            let stream = if c == Compression::None { data.clone() } else { encode_raw(&data, c) };
            let (got, err) = read_all(stream, c);
            prop_assert!(got.is_empty());
            let e = err.expect("a record longer than the file is an error");
            prop_assert!(e.is_data_loss(), "{e}");
            prop_assert!(
                e.message().starts_with("truncated record at 0") || e.message().starts_with("record size too large at 0"),
                "{e}"
            );
        }
    }

    #[test]
    fn example_protos_never_panic(data in prop::collection::vec(any::<u8>(), 0..500)) {
        match Example::from_bytes(data.clone()) {
            Ok(ex) => {
                // Whatever parses re-encodes and parses to the same message (compared as bytes,
                // since NaN floats are not equal to themselves).
                let again = Example::from_bytes(ex.to_bytes()).unwrap();
                prop_assert_eq!(again.to_bytes(), ex.to_bytes());
            }
            Err(e) => prop_assert!(e.is_invalid_argument()),
        }
        if let Err(e) = SequenceExample::from_bytes(data) {
            prop_assert!(e.is_invalid_argument());
        }
    }
}

/// `data` compressed as one stream (not TFRecord-framed).
fn encode_raw(data: &[u8], c: Compression) -> Vec<u8> {
    use std::io::Write;
    match c {
        Compression::Gzip => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        _ => {
            let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
    }
}
