//! The Example and SequenceExample parsers on arbitrary bytes: every input must end in values
//! or a typed InvalidArgument error, never a panic, a hang or a huge allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use weir_graph::{Bytes, Code, DType, Tensor};
use weir_ops::parsing::{
    parse_example_batch, parse_sequence_example_tensors, parse_single_example_tensors, ExampleConfig,
    Features, FixedLenFeature, FixedLenSequenceFeature, SequenceConfig, VarLenFeature,
};

fn check<T>(r: weir_graph::Result<T>) {
    if let Err(e) = r {
        assert_eq!(e.code(), Code::InvalidArgument, "{e}");
    }
}

fuzz_target!(|data: &[u8]| {
    let ser = Bytes::copy_from_slice(data);
    // Keys of the fixtures' Examples, as fixed-length, sparse and sequence features.
    let cfg = ExampleConfig::from_parts(
        vec![
            ("label".into(), DType::I64, vec![], Some(Tensor::from(0i64))),
            ("name".into(), DType::String, vec![], Some(Tensor::from(""))),
            ("scores".into(), DType::F32, vec![2], None),
            // Long enough for the shuffle decoder of packed int64 lists (packed_varint.rs).
            ("pixels".into(), DType::I64, vec![24], None),
        ],
        vec![
            ("ids".into(), DType::I64),
            ("tags".into(), DType::String),
            ("floats".into(), DType::F32),
            ("blob".into(), DType::String),
        ],
    )
    .unwrap();
    check(parse_single_example_tensors(&cfg, &ser));
    let half = ser.slice(..ser.len() / 2);
    check(parse_example_batch(&cfg, &[ser.clone(), half, Bytes::new()], &[]));
    let seq = SequenceConfig::new(
        &Features::new()
            .add("id", FixedLenFeature::new(&[], DType::String).default(Tensor::from("")))
            .add("len", VarLenFeature::new(DType::I64)),
        &Features::new()
            .add("vecs", FixedLenSequenceFeature::new(&[2], DType::F32).allow_missing(true))
            .add("tokens", VarLenFeature::new(DType::I64))
            .add("words", VarLenFeature::new(DType::String)),
    )
    .unwrap();
    check(parse_sequence_example_tensors(&seq, &[Tensor::from(vec![""])], &ser, "fuzz"));
});
