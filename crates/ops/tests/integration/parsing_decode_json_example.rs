//! `tf.io.decode_json_example` against TensorFlow 2.21 (tests/data/decode_json_example/
//! expected.json, written by make_decode_json_example.py there): camelCase and proto field
//! names, int64 / float / bytes values in every JSON form protobuf's parser takes or refuses,
//! map entries in JSON order, duplicates, unknown fields, nulls, protobuf's legacy syntax,
//! malformed and non-UTF-8 JSON, deep nesting, and shapes; every output byte for byte, and
//! every error's code and message (TensorFlow's generator collapses the runs of spaces
//! protobuf inserts at random into its messages).

use weir_graph::{Bytes, Code, Graph, Tensor};
use weir_ops::array::constant;
use weir_ops::parsing::{decode_json_example, DecodeJsonExample};
use weir_session::{RunArgs, Session};

use crate::io_util::{b64, shape_of, usizes};

/// Cases whose TensorFlow message quotes a byte of the input that is not UTF-8 (protobuf's
/// `unexpected character: '%c'` of a raw byte), so it is not text: weir's message shows
/// U+FFFD there, and these are compared by code and by the message up to that byte.
const BYTE_IN_MESSAGE: &[&str] = &["non_utf8_outside"];

#[test]
fn decode_json_example_matches_tensorflow() {
    let cases = crate::io_util::expected_cases("decode_json_example");
    assert!(cases.len() >= 199, "{} cases", cases.len());
    let mut byte_messages = Vec::new();
    for c in &cases {
        let name = c["name"].as_str().unwrap();
        let inputs: Vec<Bytes> = c["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| b64(s.as_str().unwrap()).into())
            .collect();
        let t = Tensor::from_vec(&usizes(&c["shape_in"]), inputs).unwrap();
        let g = Graph::new();
        let x = constant(&g, t).unwrap();
        let y = DecodeJsonExample::new().name("decode").build(&x).unwrap();
        assert_eq!(
            y.shape(),
            shape_of(&c["static_shape"]),
            "{name}: static shape"
        );
        let got = Session::new(&g).unwrap().run(&RunArgs::new().fetch(&y));
        match c.get("error") {
            Some(class) => {
                assert_eq!(class, "InvalidArgumentError", "{name}");
                let e = got.expect_err(name);
                assert_eq!(e.code(), Code::InvalidArgument, "{name}: {e}");
                if let Some(want) = c.get("message_b64") {
                    // The message up to the byte that is not UTF-8.
                    let want = b64(want.as_str().unwrap());
                    let text = want.utf8_chunks().next().unwrap().valid();
                    assert!(e.message().starts_with(text), "{name}: {e}");
                    assert!(text.starts_with("Error while parsing JSON: "), "{name}");
                    byte_messages.push(name);
                } else {
                    assert_eq!(e.message(), c["message"].as_str().unwrap(), "{name}");
                }
            }
            None => {
                let out = got.unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(out[0].shape(), &usizes(&c["shape"])[..], "{name}: shape");
                let want: Vec<Vec<u8>> = c["values"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| b64(s.as_str().unwrap()))
                    .collect();
                let got: Vec<Vec<u8>> = out[0]
                    .as_slice::<Bytes>()
                    .unwrap()
                    .iter()
                    .map(|b| b.to_vec())
                    .collect();
                assert_eq!(got, want, "{name}: values");
            }
        }
    }
    assert_eq!(byte_messages, BYTE_IN_MESSAGE);
}

/// The shorthand builds the same op, and its output parses back as the Example written.
#[test]
fn shorthand_output_parses_back() {
    use weir_ops::io::example::Example;
    let ex = Example::builder()
        .int64("id", [3, -4])
        .float("score", [0.5])
        .bytes("name", b"weir".to_vec())
        .build();
    let g = Graph::new();
    let x = constant(&g, Tensor::from_byte_strings(&[ex.to_json()])).unwrap();
    let y = decode_json_example(&x).unwrap();
    let out = Session::new(&g)
        .unwrap()
        .run(&RunArgs::new().fetch(&y))
        .unwrap();
    let back = Example::from_bytes(out[0].as_slice::<Bytes>().unwrap()[0].clone()).unwrap();
    assert_eq!(back, ex);
}
