//! `DecodeJSONExample`: `tf.io.decode_json_example`, each string a `tf.train.Example` in
//! protobuf's JSON mapping, converted to the binary proto.
//!
//! TensorFlow's kernel hands each string to protobuf's `JsonToBinaryStream`, which writes the
//! wire format while it reads the JSON. Its output is reproduced byte for byte: fields in the
//! order the JSON gives them (map entries are not sorted), repeated numbers unpacked (one tag
//! per value), a field given twice written twice. So is its lenient legacy syntax (single
//! quotes, bare-word keys, trailing commas, a lone value for a list, nested lists flattened,
//! `null` list elements as zeros, base64 with or without padding in either alphabet), and its
//! errors: InvalidArgument, `Error while parsing JSON: invalid JSON in
//! type.googleapis.com/tensorflow.Example @ <path>: <type>, near <line>:<col> (offset <n>):
//! <what>`. (protobuf doubles some of those spaces at random, a guard against callers parsing
//! the text; weir writes single spaces.)

mod convert;
mod lexer;

use bytes::Bytes;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef, Output, Result, Tensor,
};

/// `tf.io.decode_json_example(json_examples)` (`DecodeJSONExample`): every string, a
/// `tf.train.Example` in JSON, as the binary serialized `Example`; the output has the input's
/// shape.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::array::constant;
/// # use weir_session::{RunArgs, Session};
/// use weir_ops::io::example::Example;
/// let g = Graph::new();
/// let json = constant(&g, Tensor::from_byte_strings(&[
///     r#"{"features":{"feature":{"label":{"int64List":{"value":["7"]}}}}}"#,
/// ]))?;
/// let binary = weir_ops::parsing::decode_json_example(&json)?;
/// let out = Session::new(&g)?.run(&RunArgs::new().fetch(&binary))?;
/// let ex = Example::from_bytes(out[0].as_slice::<weir_graph::Bytes>()?[0].clone())?;
/// assert_eq!(ex.int64_list("label"), Some(&[7i64][..]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn decode_json_example(json_examples: impl Into<Output>) -> Result<Output> {
    DecodeJsonExample::new().build(json_examples)
}

/// The options of `tf.io.decode_json_example(json_examples, name=None)` (`DecodeJSONExample`).
#[derive(Clone, Debug, Default)]
pub struct DecodeJsonExample {
    name: Option<String>,
}

impl DecodeJsonExample {
    /// A `DecodeJSONExample` node with a generated name.
    pub fn new() -> DecodeJsonExample {
        DecodeJsonExample::default()
    }

    /// The node's name.
    pub fn name(mut self, name: &str) -> DecodeJsonExample {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the node; the output has the shape of `json_examples`.
    pub fn build(self, json_examples: impl Into<Output>) -> Result<Output> {
        let json = json_examples.into();
        crate::new_op(json.graph(), "DecodeJSONExample")
            .input(&json)
            .maybe_name(self.name.as_deref())
            .build()?
            .output(0)
    }
}

/// Every string of `json_examples` converted to a binary `tf.train.Example`, in the input's
/// shape: what the `DecodeJSONExample` kernel computes. The first bad string fails the whole
/// tensor with TensorFlow's InvalidArgument.
pub fn decode_json_example_tensor(json_examples: &Tensor) -> Result<Tensor> {
    let out = json_examples
        .as_slice::<Bytes>()?
        .iter()
        .map(|s| {
            convert::json_to_example(s)
                .map(Bytes::from)
                .map_err(|m| Error::invalid_argument(format!("Error while parsing JSON: {m}")))
        })
        .collect::<Result<Vec<_>>>()?;
    Tensor::from_vec(json_examples.shape(), out)
}

struct DecodeJsonExampleKernel;

impl Kernel for DecodeJsonExampleKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let out = decode_json_example_tensor(ctx.input(0))?;
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make(_node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(DecodeJsonExampleKernel))
}

fn same_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    ctx.set_output(0, s);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("DecodeJSONExample")
            .input("json_examples", ArgType::Fixed(DType::String))
            .output("binary_examples", ArgType::Fixed(DType::String))
            .shape_fn(same_shape),
    );
    register_kernel("DecodeJSONExample", make);
}

#[cfg(test)]
mod tests {
    use super::convert::{json_to_example, simple_atod};
    use crate::io::example::Example;

    /// What `Example::to_json` writes (MessageToJson) reads back as the same Example; with
    /// one feature, the bytes are the deterministic serialization too.
    #[test]
    fn round_trips_message_to_json() {
        let examples = [
            Example::builder()
                .int64("a", [1, -2, i64::MAX, i64::MIN])
                .build(),
            Example::builder()
                .float("f", [0.1, -0.0, f32::MAX, f32::NAN, f32::INFINITY])
                .build(),
            Example::builder()
                .bytes_list("b", [&b"\x00\xff"[..], b"", b"text"])
                .build(),
            Example::builder().build(),
        ];
        for ex in examples {
            let bin = json_to_example(ex.to_json().as_bytes()).unwrap();
            let back = Example::from_bytes(bin.clone()).unwrap();
            assert_eq!(format!("{back:?}"), format!("{ex:?}"));
        }
    }

    #[test]
    fn numbers_read_as_absl_does() {
        assert_eq!(simple_atod(" +1.5 "), Some(1.5));
        assert_eq!(simple_atod("0x10"), Some(16.0));
        assert_eq!(simple_atod("0x1.8p1"), Some(3.0));
        assert_eq!(simple_atod("1e400"), Some(f64::INFINITY));
        assert!(simple_atod("nan(12)").unwrap().is_nan());
        assert!(simple_atod("-nan").unwrap().is_sign_negative());
        for bad in ["", "+-1", "++1", "1e", "0x", "abc", "1_0"] {
            assert_eq!(simple_atod(bad), None, "{bad}");
        }
    }

    /// Every prefix of a valid Example, and arbitrary bytes, give a value or an error; never a
    /// panic, however deep the nesting.
    #[test]
    fn any_input_is_a_value_or_an_error() {
        let json = br#"{'features':{feature:{"a\u00e9":{"int64List":{"value":[1,"2",[3],null]}},
            "b":{"floatList":{"value":["NaN",1e3,"0x1p3"]}},"c":{"bytes_list":{"value":"YQ"}},}}}"#;
        assert!(json_to_example(json).is_ok());
        for cut in 0..json.len() {
            let _ = json_to_example(&json[..cut]);
        }
        let mut x = 7u32;
        for len in 0..300 {
            let junk: Vec<u8> = (0..len)
                .map(|_| {
                    x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    json[(x >> 16) as usize % json.len()]
                })
                .collect();
            let _ = json_to_example(&junk);
        }
        let deep = format!("{{\"x\":{}}}", "[".repeat(100_000));
        assert!(json_to_example(deep.as_bytes()).is_err());
        let deep = format!(
            r#"{{"features":{{"feature":{{"f":{{"int64List":{{"value":{}"#,
            "[".repeat(100_000)
        );
        assert!(json_to_example(deep.as_bytes())
            .unwrap_err()
            .contains("too deeply nested"));
    }
}
