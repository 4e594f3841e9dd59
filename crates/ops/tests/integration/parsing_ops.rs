//! The parsing ops in graphs run by a Session: builder checks, static shapes, and the
//! TF_SEMANTICS edge cases (section 8) end to end.

use crate::parsing_support;

use parsing_support::*;
use weir_graph::{Bytes, DType, Graph, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::parsing::{
    decode_csv, decode_raw, parse_example, parse_single_example, parse_single_sequence_example,
    DecodeCsv, DecodeRaw, Features, FixedLenFeature, FixedLenSequenceFeature, ParseExample,
    SparseFeature, VarLenFeature,
};
use weir_session::{RunArgs, Session};

fn ex(features: &[(&str, FeatureValue)]) -> Bytes {
    let f: Vec<(String, FeatureValue)> = features
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    Bytes::from(encode_example(&f, true))
}

#[test]
fn decode_csv_keeps_the_shape_of_records() {
    let g = Graph::new();
    let scalar = constant(&g, "1,2").unwrap();
    let cols = decode_csv(
        &scalar,
        [
            constant(&g, vec![0i32]).unwrap(),
            constant(&g, vec![0i64]).unwrap(),
        ],
    )
    .unwrap();
    assert_eq!(cols[0].shape(), Shape::scalar());
    let sess = Session::new(&g).unwrap();
    let out = sess
        .run(&RunArgs::new().fetch(&cols[0]).fetch(&cols[1]))
        .unwrap();
    assert_eq!(out[0].shape(), &[] as &[usize]);
    assert_eq!(out[1].to_scalar::<i64>().unwrap(), 2);

    let g = Graph::new();
    let p = placeholder(&g, DType::String, vec![None, Some(1)]).unwrap();
    let cols = DecodeCsv::new()
        .field_delim(";")
        .na_value("NA")
        .build(
            &p,
            [
                constant(&g, vec![7i32]).unwrap(),
                constant(&g, vec![""]).unwrap(),
            ],
        )
        .unwrap();
    assert_eq!(cols[1].shape(), Shape::new(vec![None, Some(1)]));
    let fed = Tensor::from_vec(
        &[2, 1],
        vec![
            Bytes::from_static(b"NA;x"),
            Bytes::from_static(b"3;\"a;b\""),
        ],
    )
    .unwrap();
    let out = Session::new(&g)
        .unwrap()
        .run(&RunArgs::new().feed(&p, fed).fetch(&cols[0]).fetch(&cols[1]))
        .unwrap();
    assert_eq!(out[0].shape(), &[2, 1]);
    assert_eq!(out[0].to_vec::<i32>().unwrap(), vec![7, 3]);
    assert_eq!(out[1].to_strings().unwrap(), vec!["x", "a;b"]);
}

#[test]
fn decode_csv_builder_rejects_what_python_rejects() {
    let g = Graph::new();
    let r = constant(&g, vec!["1"]).unwrap();
    let two = constant(&g, vec![1i32, 2]).unwrap();
    let e = decode_csv(&r, [two]).unwrap_err();
    assert_eq!(
        e.message(),
        "Shape of a default must be a length-0 or length-1 vector, or a scalar"
    );
    let m = constant(&g, Tensor::from_vec(&[1, 1], vec![1i32]).unwrap()).unwrap();
    assert_eq!(
        decode_csv(&r, [m]).unwrap_err().message(),
        "Shape must be at most rank 1 but is rank 2"
    );
    let b = constant(&g, vec![true]).unwrap();
    assert!(decode_csv(&r, [b])
        .unwrap_err()
        .message()
        .contains("DataType bool not in list of allowed values"));
    let d = constant(&g, vec![1i32]).unwrap();
    let e = DecodeCsv::new()
        .select_cols(&[-1])
        .build(&r, [d])
        .unwrap_err();
    assert_eq!(e.message(), "select_cols contains negative values.");
}

#[test]
fn decode_csv_errors_name_record_and_column_at_run_time() {
    let g = Graph::new();
    let r = constant(&g, vec!["1,2", "3,x"]).unwrap();
    let cols = decode_csv(
        &r,
        [
            constant(&g, vec![0i32]).unwrap(),
            constant(&g, vec![0.0f64]).unwrap(),
        ],
    )
    .unwrap();
    let e = Session::new(&g).unwrap().eval(&cols[1]).unwrap_err();
    assert!(e.is_invalid_argument());
    assert_eq!(e.message(), "Field 1 in record 1 is not a valid double: x");
    assert!(e.node().is_some(), "the error names the node");
}

#[test]
fn decode_raw_shapes_and_padding() {
    let g = Graph::new();
    let p = placeholder(&g, DType::String, vec![None]).unwrap();
    let v = decode_raw(&p, DType::U16).unwrap();
    assert_eq!(v.shape(), Shape::new(vec![None, None]));
    let padded = DecodeRaw::new(DType::I32)
        .fixed_length(8)
        .little_endian(false)
        .build(&p)
        .unwrap();
    assert_eq!(padded.shape(), Shape::new(vec![None, Some(2)]));
    let fed = Tensor::from_byte_strings(&[&[0u8, 0, 0, 1, 0, 0, 0, 2][..], &[0, 0, 1, 0][..]]);
    let out = Session::new(&g)
        .unwrap()
        .run(&RunArgs::new().feed(&p, fed).fetch(&padded).fetch(&v))
        .unwrap_err();
    assert!(out.message().contains("same size"), "{out}");
    assert!(DecodeRaw::new(DType::I32)
        .fixed_length(6)
        .build(&p)
        .unwrap_err()
        .message()
        .contains("evenly divisible by 4"));
    assert!(decode_raw(&p, DType::String).is_err());
}

#[test]
fn mnist_style_parse_then_decode_raw() {
    let g = Graph::new();
    let image: Vec<u8> = (0..784).map(|i| (i % 251) as u8).collect();
    let batch: Vec<Bytes> = (0..5)
        .map(|i| {
            ex(&[
                ("image_raw", FeatureValue::Bytes(vec![image.clone()])),
                ("label", FeatureValue::Int64(vec![i])),
            ])
        })
        .collect();
    let ser = constant(&g, Tensor::from(batch)).unwrap();
    let features = Features::new()
        .add("image_raw", FixedLenFeature::new(&[], DType::String))
        .add("label", FixedLenFeature::new(&[], DType::I64));
    let parsed = parse_example(&ser, &features).unwrap();
    let pixels = decode_raw(parsed.dense("image_raw").unwrap(), DType::U8).unwrap();
    let out = Session::new(&g)
        .unwrap()
        .run(
            &RunArgs::new()
                .fetch(&pixels)
                .fetch(parsed.dense("label").unwrap()),
        )
        .unwrap();
    assert_eq!(out[0].shape(), &[5, 784]);
    assert_eq!(&out[0].as_slice::<u8>().unwrap()[784..1568], &image[..]);
    assert_eq!(out[1].to_vec::<i64>().unwrap(), vec![0, 1, 2, 3, 4]);
}

#[test]
fn parse_builders_check_features_like_python() {
    let g = Graph::new();
    let one = placeholder(&g, DType::String, Shape::scalar()).unwrap();
    let many = placeholder(&g, DType::String, vec![None]).unwrap();
    assert_eq!(
        parse_example(&many, &Features::new())
            .unwrap_err()
            .message(),
        "Invalid argument: features cannot be empty."
    );
    let seq = Features::new().add("a", FixedLenSequenceFeature::new(&[], DType::I64));
    assert_eq!(
        parse_example(&many, &seq).unwrap_err().message(),
        "Unsupported: FixedLenSequenceFeature requires allow_missing to be True."
    );
    let bad_default = Features::new().add(
        "a",
        FixedLenFeature::new(&[2], DType::I64).default(Tensor::from(1i64)),
    );
    assert!(parse_example(&many, &bad_default)
        .unwrap_err()
        .message()
        .starts_with("Cannot reshape a tensor with 1 elements to shape [2]"));
    let unknown = Features::new().add(
        "a",
        FixedLenFeature::with_shape(Shape::new(vec![None]), DType::I64),
    );
    assert_eq!(
        parse_example(&many, &unknown).unwrap_err().message(),
        "First dimension of shape for feature a unknown. Consider using FixedLenSequenceFeature."
    );
    let f = Features::new().add("a", FixedLenFeature::new(&[], DType::I64));
    assert_eq!(
        parse_single_example(&many, &f).unwrap_err().message(),
        "Input serialized must be a scalar"
    );
    assert!(parse_example(
        &one,
        &Features::new().add("a", FixedLenFeature::new(&[], DType::I32))
    )
    .is_err());
}

#[test]
fn single_example_sparse_sequence_and_names() {
    let g = Graph::new();
    let ser = ex(&[
        ("idx", FeatureValue::Int64(vec![4, 1])),
        ("val", FeatureValue::Float(vec![0.5, 1.5])),
        ("seq", FeatureValue::Int64(vec![1, 2, 3, 4])),
    ]);
    let one = constant(&g, Tensor::scalar(ser.clone())).unwrap();
    let features = Features::new()
        .add("sp", SparseFeature::new("idx", "val", DType::F32, 6))
        .add(
            "seq",
            FixedLenSequenceFeature::new(&[2], DType::I64).allow_missing(true),
        )
        .add("idx", VarLenFeature::new(DType::I64));
    let parsed = parse_single_example(&one, &features).unwrap();
    let sp = parsed.sparse("sp").unwrap();
    let sess = Session::new(&g).unwrap();
    let out = sess
        .run(
            &RunArgs::new()
                .fetch(&sp.indices)
                .fetch(&sp.values)
                .fetch(&sp.dense_shape)
                .fetch(parsed.dense("seq").unwrap()),
        )
        .unwrap();
    assert_eq!(out[0].to_vec::<i64>().unwrap(), vec![1, 4]);
    assert_eq!(out[1].to_vec::<f32>().unwrap(), vec![1.5, 0.5]);
    assert_eq!(out[2].to_vec::<i64>().unwrap(), vec![6]);
    assert_eq!(out[3].shape(), &[2, 2]);
    assert_eq!(out[3].to_vec::<i64>().unwrap(), vec![1, 2, 3, 4]);

    let batch = constant(
        &g,
        Tensor::from(vec![
            ser,
            ex(&[("seq", FeatureValue::Int64(vec![1, 2, 3]))]),
        ]),
    )
    .unwrap();
    let names = constant(&g, vec!["first", "second"]).unwrap();
    let parsed = ParseExample::new()
        .example_names(&names)
        .build(&batch, &features)
        .unwrap();
    let e = sess.eval(parsed.dense("seq").unwrap()).unwrap_err();
    assert_eq!(
        e.message(),
        "Name: second, Key: seq, Index: 1.  Number of int64 values is not a multiple of stride length. Saw 3 values but output shape is: [?,2]"
    );
}

#[test]
fn sequence_example_in_a_session() {
    let g = Graph::new();
    let ser = encode_sequence_example(
        &[
            ("len".to_string(), FeatureValue::Int64(vec![2])),
            (
                "tags".to_string(),
                FeatureValue::Bytes(vec![b"a".to_vec(), b"b".to_vec()]),
            ),
        ],
        &[
            (
                "vecs".to_string(),
                vec![
                    FeatureValue::Float(vec![1.0, 2.0]),
                    FeatureValue::Float(vec![3.0, 4.0]),
                ],
            ),
            (
                "tok".to_string(),
                vec![
                    FeatureValue::Int64(vec![5]),
                    FeatureValue::Int64(vec![]),
                    FeatureValue::Int64(vec![6, 7]),
                ],
            ),
        ],
    );
    let s = constant(&g, Tensor::scalar(Bytes::from(ser))).unwrap();
    let (ctx, seq) = parse_single_sequence_example(
        &s,
        &Features::new()
            .add("len", FixedLenFeature::new(&[], DType::I64))
            .add("tags", VarLenFeature::new(DType::String)),
        &Features::new()
            .add("vecs", FixedLenSequenceFeature::new(&[2], DType::F32))
            .add("tok", VarLenFeature::new(DType::I64)),
    )
    .unwrap();
    let tok = seq.sparse("tok").unwrap();
    let tags = ctx.sparse("tags").unwrap();
    let out = Session::new(&g)
        .unwrap()
        .run(
            &RunArgs::new()
                .fetch(ctx.dense("len").unwrap())
                .fetch(&tags.values)
                .fetch(seq.dense("vecs").unwrap())
                .fetch(&tok.indices)
                .fetch(&tok.dense_shape),
        )
        .unwrap();
    assert_eq!(out[0].to_scalar::<i64>().unwrap(), 2);
    assert_eq!(out[1].to_strings().unwrap(), vec!["a", "b"]);
    assert_eq!(out[2].shape(), &[2, 2]);
    assert_eq!(out[2].to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0, 4.0]);
    assert_eq!(out[3].to_vec::<i64>().unwrap(), vec![0, 0, 2, 0, 2, 1]);
    assert_eq!(out[4].to_vec::<i64>().unwrap(), vec![3, 2]);
}
