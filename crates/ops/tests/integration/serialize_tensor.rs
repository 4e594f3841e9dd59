//! `SerializeTensor` and `ParseTensor`: the bytes TensorFlow 2.21's `tf.io.serialize_tensor`
//! wrote for the same tensors, and its `parse_tensor` messages.

use weir_graph::{Bytes, Code, DType, Graph, Result, Shape, Tensor};
use weir_ops::array::constant;
use weir_ops::parsing::{parse_tensor, serialize_tensor};
use weir_session::Session;

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn serialized_bytes_are_tensorflows() -> Result<()> {
    let g = Graph::new();
    let cases: Vec<(Tensor, &str)> = vec![
        (Tensor::scalar(3.0f32), "08011200220400004040"),
        (
            Tensor::from(vec![1i32, 2]),
            "080312041202080222080100000002000000",
        ),
        (
            Tensor::from_vec(&[1, 2], vec![true, false])?,
            "080a1208120208011202080222020100",
        ),
        (
            Tensor::from(vec!["ab", "c"]),
            "080712041202080242026162420163",
        ),
        (Tensor::scalar(7i64), "0809120022080700000000000000"),
        (
            Tensor::from_vec(&[0, 2], Vec::<f32>::new())?,
            "08011206120012020802",
        ),
        (Tensor::from(vec![1u8, 200]), "0804120412020802220201c8"),
    ];
    let outs: Vec<_> = cases
        .iter()
        .map(|(t, _)| serialize_tensor(constant(&g, t.clone())?))
        .collect::<Result<_>>()?;
    let back: Vec<_> = cases
        .iter()
        .zip(&outs)
        .map(|((t, _), s)| parse_tensor(s, t.dtype()))
        .collect::<Result<_>>()?;
    assert_eq!(back[0].shape(), Shape::unknown());
    let sess = Session::new(&g)?;
    for (((t, want), s), b) in cases.iter().zip(&outs).zip(&back) {
        let bytes = sess.eval(s)?;
        assert_eq!(bytes.shape(), &[] as &[usize]);
        assert_eq!(hex(&bytes.as_slice::<Bytes>()?[0]), *want, "{t:?}");
        let parsed = sess.eval(b)?;
        assert_eq!((parsed.dtype(), parsed.shape()), (t.dtype(), t.shape()));
        assert_eq!(parsed.summarize_value(-1), t.summarize_value(-1));
    }
    Ok(())
}

#[test]
fn parse_errors_are_tensorflows() -> Result<()> {
    let g = Graph::new();
    let floats = serialize_tensor(constant(&g, [1.5f32, 2.0])?)?;
    let as_int = parse_tensor(&floats, DType::I32)?;
    let garbage = parse_tensor(
        &constant(&g, Tensor::scalar(Bytes::from_static(b"\xff\xff")))?,
        DType::F32,
    )?;
    let vector = parse_tensor(&constant(&g, Tensor::from(vec!["a"]))?, DType::F32)?;
    // A proto claiming three floats with the bytes of one.
    let short = Bytes::from(vec![
        0x08, 0x01, 0x12, 0x04, 0x12, 0x02, 0x08, 0x03, 0x22, 0x04, 0, 0, 0x40, 0x40,
    ]);
    let short = parse_tensor(&constant(&g, Tensor::scalar(short))?, DType::F32)?;
    // No content at all: zeros, as TensorFlow fills them.
    let zeros = Bytes::from(vec![0x08, 0x01, 0x12, 0x04, 0x12, 0x02, 0x08, 0x03]);
    let zeros = parse_tensor(&constant(&g, Tensor::scalar(zeros))?, DType::F32)?;
    let sess = Session::new(&g)?;
    let message = |t| {
        let e = sess.eval(t).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        e.message().to_string()
    };
    assert_eq!(
        message(&as_int),
        "Type mismatch between parsed tensor (float) and dtype (int32)"
    );
    assert_eq!(
        message(&garbage),
        "Could not parse `serialized` as TensorProto, base64: //8="
    );
    assert_eq!(
        message(&vector),
        "Expected `serialized` to be a scalar, got shape: [1]"
    );
    assert!(message(&short).starts_with("Cannot parse tensor from proto: "));
    assert_eq!(sess.eval(&zeros)?.to_vec::<f32>()?, [0.0, 0.0, 0.0]);
    Ok(())
}
