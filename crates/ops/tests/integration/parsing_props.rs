//! Property tests of the decoders: round trips through the test encoders, agreement of the
//! number syntax with reference parsers, and arbitrary or mutated bytes that must end in values
//! or a typed InvalidArgument error, never a panic.

use crate::parsing_support;

use parsing_support::*;
use proptest::prelude::*;
use weir_graph::{Bytes, Code, DType, Tensor};
use weir_ops::parsing::numbers::{parse_f32, parse_f64, parse_i32, parse_i64};
use weir_ops::parsing::{
    decode_csv_tensors, decode_raw_tensor, parse_example_batch, parse_sequence_example_tensors,
    parse_single_example_tensors, CsvOptions, ExampleConfig, Features, FixedLenFeature,
    FixedLenSequenceFeature, SequenceConfig, VarLenFeature,
};

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

fn feature_value() -> impl Strategy<Value = FeatureValue> {
    prop_oneof![
        Just(FeatureValue::None),
        prop::collection::vec(prop::collection::vec(any::<u8>(), 0..6), 0..4)
            .prop_map(FeatureValue::Bytes),
        prop::collection::vec(any::<u32>().prop_map(f32::from_bits), 0..5)
            .prop_map(FeatureValue::Float),
        prop::collection::vec(any::<i64>(), 0..5).prop_map(FeatureValue::Int64),
    ]
}

fn expected(f: &FeatureValue) -> (DType, Tensor) {
    match f {
        FeatureValue::None => (DType::I64, Tensor::from(Vec::<i64>::new())),
        FeatureValue::Bytes(v) => (DType::String, Tensor::from_byte_strings(v)),
        FeatureValue::Float(v) => (DType::F32, Tensor::from(v.clone())),
        FeatureValue::Int64(v) => (DType::I64, Tensor::from(v.clone())),
    }
}

/// Checks that a decoder result is values or a typed InvalidArgument.
fn typed<T>(r: weir_graph::Result<T>) -> Result<(), TestCaseError> {
    if let Err(e) = r {
        prop_assert_eq!(e.code(), Code::InvalidArgument, "{}", e);
    }
    Ok(())
}

fn fixture_payloads() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = Vec::new();
    for f in ["tfrecord/examples.json", "tfrecord/sequence_examples.json"] {
        for r in load(f)["records"].as_array().unwrap() {
            v.push(b64(r["serialized_b64"].as_str().unwrap()));
        }
    }
    v
}

fn mixed_config() -> ExampleConfig {
    ExampleConfig::from_parts(
        vec![
            ("label".into(), DType::I64, vec![], Some(Tensor::from(0i64))),
            ("name".into(), DType::String, vec![], Some(Tensor::from(""))),
            (
                "scores".into(),
                DType::F32,
                vec![2],
                Some(Tensor::from(vec![0.0f32, 0.0])),
            ),
        ],
        vec![
            ("ids".into(), DType::I64),
            ("tags".into(), DType::String),
            ("floats".into(), DType::F32),
        ],
    )
    .unwrap()
}

fn sequence_config() -> SequenceConfig {
    SequenceConfig::new(
        &Features::new()
            .add(
                "id",
                FixedLenFeature::new(&[], DType::String).default(Tensor::from("")),
            )
            .add("len", VarLenFeature::new(DType::I64)),
        &Features::new()
            .add(
                "vecs",
                FixedLenSequenceFeature::new(&[2], DType::F32).allow_missing(true),
            )
            .add("tokens", VarLenFeature::new(DType::I64))
            .add("words", VarLenFeature::new(DType::String)),
    )
    .unwrap()
}

proptest! {
    #[test]
    fn ints_agree_with_a_reference(s in "[ \t+\\-0-9a.]{0,22}") {
        let t = s.trim_matches(is_space);
        prop_assert_eq!(parse_i64(s.as_bytes()), t.parse::<i64>().ok());
        prop_assert_eq!(parse_i32(s.as_bytes()), t.parse::<i32>().ok());
    }

    #[test]
    fn decimal_floats_agree_with_a_reference(s in "[0-9]{0,25}(\\.[0-9]{0,25})?([eE][+-]?[0-9]{1,4})?") {
        prop_assert_eq!(parse_f64(s.as_bytes()).map(f64::to_bits), s.parse::<f64>().ok().map(f64::to_bits));
        prop_assert_eq!(parse_f32(s.as_bytes()).map(f32::to_bits), s.parse::<f32>().ok().map(f32::to_bits));
    }

    #[test]
    fn floats_round_trip(bits in any::<u32>(), wide in any::<u64>()) {
        let x = f32::from_bits(bits);
        if x.is_finite() {
            prop_assert_eq!(parse_f32(format!(" {x:e} ").as_bytes()).map(f32::to_bits), Some(bits));
        }
        let y = f64::from_bits(wide);
        if y.is_finite() {
            prop_assert_eq!(parse_f64(format!("{y:?}").as_bytes()).map(f64::to_bits), Some(wide));
        }
    }

    #[test]
    fn csv_rows_round_trip(rows in prop::collection::vec((any::<i32>(), any::<i64>(), -1e300f64..1e300, "[a-z\",\n\r ]{1,8}"), 1..20)) {
        let lines: Vec<String> = rows
            .iter()
            .map(|(a, b, c, s)| format!("{a},{b},{c:?},\"{}\"", s.replace('"', "\"\"")))
            .collect();
        let defaults = [
            Tensor::from(Vec::<i32>::new()),
            Tensor::from(Vec::<i64>::new()),
            Tensor::from(Vec::<f64>::new()),
            Tensor::from(Vec::<Bytes>::new()),
        ];
        let out = decode_csv_tensors(&Tensor::from(lines), &defaults, &CsvOptions::default()).unwrap();
        prop_assert_eq!(out[0].to_vec::<i32>().unwrap(), rows.iter().map(|r| r.0).collect::<Vec<_>>());
        prop_assert_eq!(out[1].to_vec::<i64>().unwrap(), rows.iter().map(|r| r.1).collect::<Vec<_>>());
        prop_assert_eq!(out[2].to_vec::<f64>().unwrap(), rows.iter().map(|r| r.2).collect::<Vec<_>>());
        prop_assert_eq!(out[3].to_strings().unwrap(), rows.iter().map(|r| r.3.clone()).collect::<Vec<_>>());
    }

    #[test]
    fn decode_csv_never_panics(
        records in prop::collection::vec(prop::collection::vec(prop::sample::select(b"0123,\"\n\r aeE.-+x;".to_vec()), 0..24), 0..8),
        delim in prop::sample::select(b",;\"\n".to_vec()),
        quote in any::<bool>(),
        na in prop::sample::select(vec!["", "NA", "1"]),
        select in prop::sample::select(vec![vec![], vec![0usize, 2], vec![1usize, 3]]),
    ) {
        let recs = Tensor::from(records.into_iter().map(Bytes::from).collect::<Vec<_>>());
        let defaults = vec![
            Tensor::from(vec![0i32]),
            Tensor::from(Vec::<f32>::new()),
            Tensor::from(vec!["d"]),
            Tensor::from(vec![1.5f64]),
        ];
        let defaults = if select.is_empty() { defaults } else { defaults[..2].to_vec() };
        let opts = CsvOptions { field_delim: delim, use_quote_delim: quote, na_value: na.as_bytes().to_vec(), select_cols: select };
        typed(decode_csv_tensors(&recs, &defaults, &opts))?;
    }

    #[test]
    fn decode_raw_never_panics(strs in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..9), 0..4), le in any::<bool>(), fixed in prop::option::of(-2i32..10)) {
        let t = Tensor::from_byte_strings(&strs);
        for dt in [DType::F32, DType::F64, DType::I8, DType::I16, DType::I32, DType::I64, DType::U8, DType::U16, DType::Bool] {
            match decode_raw_tensor(&t, dt, le, fixed) {
                Ok(out) => prop_assert_eq!(out.shape()[0], strs.len()),
                Err(e) => prop_assert_eq!(e.code(), Code::InvalidArgument),
            }
        }
    }

    #[test]
    fn examples_round_trip(
        feats in prop::collection::btree_map("[a-d]{1,2}", feature_value(), 0..6),
        packed in any::<bool>(),
    ) {
        let feats: Vec<(String, FeatureValue)> = feats.into_iter().collect();
        let ser = Bytes::from(encode_example(&feats, packed));
        let sparse: Vec<(String, DType)> = feats.iter().map(|(k, f)| (k.clone(), expected(f).0)).collect();
        let cfg = ExampleConfig::from_parts(vec![], sparse).unwrap();
        let single = parse_single_example_tensors(&cfg, &ser).unwrap();
        let batch = parse_example_batch(&cfg, &[ser.clone(), Bytes::new(), ser], &[]).unwrap();
        for (i, (_, f)) in feats.iter().enumerate() {
            let want = expected(f).1;
            assert_tensor_eq(&single.sparse[i].values, &want, "single");
            let n = want.num_elements();
            let vals = &batch.sparse[i].values;
            assert_tensor_eq(&vals.slice_axis0(0, n).unwrap(), &want, "batch row 0");
            assert_tensor_eq(&vals.slice_axis0(n, 2 * n).unwrap(), &want, "batch row 2");
            prop_assert_eq!(batch.sparse[i].dense_shape.to_vec::<i64>().unwrap(), vec![3, n as i64]);
        }
    }

    #[test]
    fn sequence_examples_round_trip(steps in prop::collection::vec(prop::collection::vec(any::<i64>(), 0..4), 0..5), id in "[a-z]{0,4}") {
        let ser = Bytes::from(encode_sequence_example(
            &[("id".to_string(), FeatureValue::Bytes(vec![id.clone().into_bytes()]))],
            &[("tokens".to_string(), steps.iter().cloned().map(FeatureValue::Int64).collect())],
        ));
        let cfg = sequence_config();
        let out = parse_sequence_example_tensors(&cfg, &[Tensor::from(vec![""])], &ser, "<unknown>").unwrap();
        prop_assert_eq!(out.context.dense[0].to_strings().unwrap(), vec![id]);
        let tokens = &out.feature_lists.sparse[0];
        prop_assert_eq!(tokens.values.to_vec::<i64>().unwrap(), steps.concat());
        let max = steps.iter().map(Vec::len).max().unwrap_or(0);
        prop_assert_eq!(tokens.dense_shape.to_vec::<i64>().unwrap(), vec![steps.len() as i64, max as i64]);
    }

    #[test]
    fn arbitrary_bytes_never_panic_the_example_parsers(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let ser = Bytes::from(bytes);
        typed(parse_single_example_tensors(&mixed_config(), &ser))?;
        typed(parse_example_batch(&mixed_config(), &[ser.clone(), ser.clone()], &[]))?;
        typed(parse_sequence_example_tensors(&sequence_config(), &[Tensor::from(vec![""])], &ser, "x"))?;
    }

    #[test]
    fn mutated_fixture_payloads_never_panic(pick in any::<prop::sample::Index>(), edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..6)) {
        let payloads = fixture_payloads();
        let mut p = payloads[pick.index(payloads.len())].clone();
        for (at, byte, op) in edits {
            if p.is_empty() {
                p.push(byte);
                continue;
            }
            let i = at.index(p.len());
            match op {
                0 => p[i] = byte,
                1 => p.insert(i, byte),
                _ => p.truncate(i),
            }
        }
        let ser = Bytes::from(p);
        typed(parse_single_example_tensors(&mixed_config(), &ser))?;
        typed(parse_example_batch(&mixed_config(), std::slice::from_ref(&ser), &[]))?;
        typed(parse_sequence_example_tensors(&sequence_config(), &[Tensor::from(vec![""])], &ser, "x"))?;
    }
}

#[test]
fn a_length_field_claiming_terabytes_is_an_error_not_an_allocation() {
    // Features claiming 2^35 bytes, a bytes value claiming 2^32-1, a packed float list claiming
    // 2^32-1: each must fail fast.
    let cases: [&[u8]; 3] = [
        &[0x0a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x0a],
        &[
            0x0a, 0x0d, 0x0a, 0x0b, 0x0a, 0x04, b'n', b'a', b'm', b'e', 0x12, 0x03, 0x0a, 0x01,
            0x0a,
        ],
        &[
            0x0a, 0x12, 0x0a, 0x10, 0x0a, 0x06, b's', b'c', b'o', b'r', b'e', b's', 0x12, 0x06,
            0x12, 0x04, 0x0a, 0xff, 0xff, 0x03,
        ],
    ];
    for c in cases {
        let r = parse_single_example_tensors(&mixed_config(), &Bytes::copy_from_slice(c));
        assert!(r.is_err(), "{c:?} parsed: {r:?}");
    }
}
