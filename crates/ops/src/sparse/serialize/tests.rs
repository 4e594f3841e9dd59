//! Unit tests of the kernels' core: round trips, TensorFlow's checks, and hostile strings.

use prost::Message;
use weir_graph::graph_def::proto::{tensor_shape_proto, TensorProto, TensorShapeProto};
use weir_graph::{Bytes, Code, DType, Tensor};

use super::kernels::{
    check_dense_shape, decode_string_list, deserialize, encode_string_list, indices_valid,
    multiply_without_overflow, proto_bytes, reshape_indices, serialize_many, tensor_of, MAX_FILLED,
};

fn strings(dims: &[usize], parts: Vec<Bytes>) -> Tensor {
    Tensor::from_vec(dims, parts).unwrap()
}

fn serialized(indices: &[i64], rank: usize, values: Tensor, shape: &[i64]) -> Vec<Bytes> {
    let n = values.num_elements();
    vec![
        proto_bytes(&Tensor::from_vec(&[n, rank], indices.to_vec()).unwrap()).unwrap(),
        proto_bytes(&values).unwrap(),
        proto_bytes(&Tensor::from(shape.to_vec())).unwrap(),
    ]
}

fn proto(dtype: DType, dims: &[i64], f: impl FnOnce(&mut TensorProto)) -> Bytes {
    let mut p = TensorProto {
        dtype: dtype.proto_number(),
        tensor_shape: Some(TensorShapeProto {
            dim: dims
                .iter()
                .map(|&size| tensor_shape_proto::Dim { size })
                .collect(),
            unknown_rank: false,
        }),
        ..TensorProto::default()
    };
    f(&mut p);
    Bytes::from(p.encode_to_vec())
}

#[test]
fn serialize_many_then_deserialize_is_the_input() {
    let indices = Tensor::from_vec(&[3, 2], vec![0i64, 1, 0, 3, 2, 0]).unwrap();
    let values = Tensor::from(vec![Bytes::from("a"), Bytes::from("b"), Bytes::from("c")]);
    let out = serialize_many(&indices, &values, &[4, 5]).unwrap();
    assert_eq!(out.shape(), &[4, 3]);
    let [i, v, s] = deserialize(&out, DType::String).unwrap();
    assert_eq!(i.to_vec::<i64>().unwrap(), indices.to_vec::<i64>().unwrap());
    assert_eq!(v.to_strings().unwrap(), vec!["a", "b", "c"]);
    assert_eq!(s.to_vec::<i64>().unwrap(), vec![4, 5]);
    // An empty row holds a [0, 1] index matrix, no values and the row's shape.
    let row1 = &out.as_slice::<Bytes>().unwrap()[3..6];
    let [i, v, s] = deserialize(&strings(&[3], row1.to_vec()), DType::String).unwrap();
    assert_eq!((i.shape(), v.shape()), (&[0usize, 1][..], &[0usize][..]));
    assert_eq!(s.to_vec::<i64>().unwrap(), vec![5]);
}

#[test]
fn deserialize_takes_the_largest_shape_and_reshapes_the_prefix() {
    let mut parts = serialized(&[0, 1], 2, Tensor::from(vec![1.0f32]), &[2, 3]);
    parts.extend(serialized(&[3, 0], 2, Tensor::from(vec![2.0f32]), &[4, 1]));
    parts.extend(serialized(&[], 2, Tensor::from(Vec::<f32>::new()), &[1, 7]));
    parts.extend(serialized(&[1, 1], 2, Tensor::from(vec![3.0f32]), &[2, 2]));
    let [i, v, s] = deserialize(&strings(&[2, 2, 3], parts), DType::F32).unwrap();
    assert_eq!(s.to_vec::<i64>().unwrap(), vec![2, 2, 4, 7]);
    assert_eq!(
        i.to_vec::<i64>().unwrap(),
        vec![0, 0, 0, 1, 0, 1, 3, 0, 1, 1, 1, 1]
    );
    assert_eq!(v.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0]);
}

#[test]
fn reshape_follows_tensorflows_arithmetic_outside_the_shape() {
    // Four rows of [2] in dense shape [1]: offsets 2..5 of [4, 1] read in [2, 2, 1].
    let idx = [0, 2, 1, 2, 2, 2, 3, 2];
    let out = reshape_indices(&idx, &[4, 1], &[2, 2, 1]).unwrap();
    assert_eq!(out, vec![1, 0, 0, 1, 1, 0, 2, 0, 0, 2, 1, 0]);
    let e = reshape_indices(&[0, 1], &[2, 0], &[1, 2, 0]).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
}

#[test]
fn tensorflows_shape_checks() {
    assert_eq!(multiply_without_overflow(2, 1 << 62), i64::MIN);
    assert_eq!(multiply_without_overflow(4, 1 << 62), -1);
    let e = check_dense_shape(&[2, 1 << 62, 4]).unwrap_err();
    assert_eq!(
        e.message(),
        "Encountered overflow when multiplying 2 with 4611686018427387904, result: -9223372036854775808"
    );
    let e = check_dense_shape(&[2, -3]).unwrap_err();
    assert_eq!(
        e.message(),
        "Expected shape dimensions to be non-negative, got -3"
    );
    assert!(check_dense_shape(&[0, i64::MAX]).is_ok());
}

#[test]
fn indices_valid_reports_like_tensorflow() {
    let e = indices_valid(&[0, 2, 0, 1], 2, &[2, 3]).unwrap_err();
    assert!(e
        .message()
        .starts_with("indices[1] = [0,1] is out of order."));
    let e = indices_valid(&[1, 1, 1, 1], 2, &[2, 3]).unwrap_err();
    assert_eq!(e.message(), "indices[1] = [1,1] is repeated");
    let e = indices_valid(&[0, 0, 5, 0], 2, &[2, 3]).unwrap_err();
    assert_eq!(
        e.message(),
        "indices[1] = [5,0] is out of bounds: need 0 <= index < [2,3]"
    );
    assert!(indices_valid(&[0, 2, 1, 0], 2, &[2, 3]).is_ok());
}

#[test]
fn hostile_protos_are_typed_errors() {
    let bad = |b: &[u8]| {
        tensor_of(b, &mut { MAX_FILLED })
            .unwrap_err()
            .message()
            .to_string()
    };
    assert_eq!(bad(b"\xff\xff"), "Could not parse serialized proto");
    assert_eq!(bad(b""), "Could not construct tensor from proto");
    // A huge shape with nothing to fill it, a negative one, an overflowing one, and content
    // of the wrong length.
    let huge = proto(DType::String, &[1 << 40], |_| {});
    assert_eq!(bad(&huge), "Could not construct tensor from proto");
    let big = proto(DType::I64, &[MAX_FILLED as i64 + 2], |p| {
        p.int64_val = vec![1]
    });
    assert_eq!(bad(&big), "Could not construct tensor from proto");
    for dims in [&[-1i64][..], &[1 << 62, 1 << 62]] {
        assert_eq!(
            bad(&proto(DType::F32, dims, |_| {})),
            "Could not construct tensor from proto"
        );
    }
    let short = proto(DType::F32, &[2], |p| {
        p.tensor_content = Bytes::from_static(b"abc")
    });
    assert_eq!(bad(&short), "Could not construct tensor from proto");
    // Extra values are ignored and missing ones repeat the last, as in TensorFlow.
    let extra = proto(DType::F32, &[1], |p| p.float_val = vec![1.5, 2.0]);
    assert_eq!(
        tensor_of(&extra, &mut 0).unwrap().to_vec::<f32>().unwrap(),
        vec![1.5]
    );
    let fill = proto(DType::String, &[3], |p| {
        p.string_val = vec![Bytes::from("a")]
    });
    assert_eq!(
        tensor_of(&fill, &mut 2).unwrap().to_strings().unwrap(),
        vec!["a"; 3]
    );
}

#[test]
fn hostile_batches_are_typed_errors() {
    let f32s = || Tensor::from(vec![1.0f32]);
    // A negative dimension inside a batch (TensorFlow 2.21 aborts on it).
    let mut parts = serialized(&[0], 1, f32s(), &[-5]);
    parts.extend(serialized(&[0], 1, f32s(), &[1]));
    let e = deserialize(&strings(&[2, 3], parts), DType::F32).unwrap_err();
    assert_eq!(
        e.message(),
        "Expected shape dimensions to be non-negative, got -5"
    );
    // int32 indices inside a batch (TensorFlow 2.21 aborts on them too).
    let i32_indices = proto_bytes(&Tensor::from_vec(&[1, 1], vec![0i32]).unwrap()).unwrap();
    let mut parts = vec![i32_indices];
    parts.extend(serialized(&[0], 1, f32s(), &[1])[1..].iter().cloned());
    let e = deserialize(&strings(&[1, 3], parts.clone()), DType::F32).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    let e = deserialize(&strings(&[3], parts), DType::F32).unwrap_err();
    assert_eq!(e.code(), Code::Internal);
    // Protos that leave values out share one allowance across the batch.
    let quarter = MAX_FILLED as i64 / 4 + 1;
    let filled = vec![
        proto(DType::I64, &[quarter, 1], |_| {}),
        proto(DType::F32, &[quarter], |_| {}),
        proto(DType::I64, &[1], |p| p.int64_val = vec![1]),
    ];
    let one = deserialize(&strings(&[1, 3], filled.clone()), DType::F32).unwrap();
    assert_eq!(one[1].num_elements(), quarter as usize);
    let two = [filled.clone(), filled].concat();
    let e = deserialize(&strings(&[2, 3], two), DType::F32).unwrap_err();
    assert_eq!(e.message(), "Could not construct tensor from proto");
    // Zero elements, and a last dimension that is not 3.
    let e = deserialize(&strings(&[0, 3], vec![]), DType::F32).unwrap_err();
    assert!(e.message().contains("at least 1 serialized tensor"));
    let e = deserialize(&strings(&[2], vec![Bytes::new(), Bytes::new()]), DType::F32).unwrap_err();
    assert!(e.message().contains("3 as the last dimension [2]"));
}

#[test]
fn string_lists_are_tensorflows_encoding() {
    let long = Bytes::from(vec![7u8; 300]);
    let strings = vec![Bytes::new(), Bytes::from("a"), long.clone()];
    let enc = encode_string_list(&strings);
    assert_eq!(&enc[..4], &[0, 1, 0xac, 0x02]);
    assert_eq!(enc.len(), 4 + 1 + 300);
    let enc = Bytes::from(enc);
    assert_eq!(decode_string_list(&enc, 3), Some(strings));
    // Too few or too many bytes after the lengths, too many lengths, an endless varint.
    assert_eq!(decode_string_list(&enc, 2), None);
    assert_eq!(decode_string_list(&Bytes::from_static(b"\x05abc"), 1), None);
    assert_eq!(decode_string_list(&Bytes::from_static(b"\x01a"), 4), None);
    assert_eq!(decode_string_list(&Bytes::from_static(&[0xff; 9]), 1), None);
    // A string proto as SerializeSparse writes it reads back.
    let t = Tensor::from_vec(&[1, 3], vec![Bytes::from("x"), Bytes::new(), long]).unwrap();
    let back = tensor_of(&proto_bytes(&t).unwrap(), &mut 0).unwrap();
    assert_eq!(back.shape(), &[1, 3]);
    assert_eq!(
        back.as_slice::<Bytes>().unwrap(),
        t.as_slice::<Bytes>().unwrap()
    );
}
