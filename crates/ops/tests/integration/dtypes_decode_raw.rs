//! `DecodeRaw` and `DecodePaddedRaw` for every out_type against TensorFlow 2.21, bit for bit
//! (tests/data/dtypes, `op: "decode_raw"` and `"decode_padded_raw"`): both byte orders (a
//! complex's parts swapped separately), batches of rank 1 and 2, lengths that are not a
//! multiple of the type's size, the out_types TensorFlow's op defs reject and the float16 that
//! `DecodePaddedRaw`'s op def takes but no kernel does.

use serde_json::Value;
use weir_graph::{Bytes, DType, Graph, Output, Result, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::parsing::DecodeRaw;
use weir_session::Session;

use super::dtypes_util::{cases, check_each, check_outcome, unhex};
use super::io_util::{fetch_and_feed, usizes};

fn input(c: &Value) -> Tensor {
    let rows: Vec<Bytes> = c["input_hex"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| Bytes::from(unhex(h.as_str().unwrap())))
        .collect();
    let shape = match c.get("input_shape") {
        Some(s) => usizes(s),
        None => vec![rows.len()],
    };
    Tensor::from_vec(&shape, rows).unwrap()
}

/// TensorFlow's C++ message for an out_type outside the op def's list, which the Python
/// TypeError recorded by the script lists with numpy's names.
fn allowed_values_message(c: &Value, want: &Value) -> String {
    let py = want["message"].as_str().unwrap();
    let list: Vec<&str> = py
        .split("allowed values: ")
        .nth(1)
        .unwrap()
        .split(", ")
        .map(|n| DType::from_name(n).unwrap().name())
        .collect();
    let dtype = DType::from_name(c["out_type"].as_str().unwrap()).unwrap();
    format!(
        "Value for attr 'out_type' of {} is not in the list of allowed values: {}",
        dtype,
        list.join(", ")
    )
}

/// Builds the case's graph: a constant batch, and for `DecodePaddedRaw` a fed fixed_length (so
/// the kernel, not the shape function, checks it, as in the script).
fn build(g: &Graph, c: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Result<Output> {
    let out_type = DType::from_name(c["out_type"].as_str().unwrap())?;
    let le = c["little_endian"].as_bool().unwrap();
    let bytes = constant(g, input(c))?;
    if c["op"] == "decode_raw" {
        return DecodeRaw::new(out_type).little_endian(le).build(&bytes);
    }
    let len = placeholder(g, DType::I32, weir_graph::Shape::scalar())?;
    feeds.push((
        len.clone(),
        Tensor::from(c["fixed_length"].as_i64().unwrap() as i32),
    ));
    weir_ops::register_all_ops();
    g.new_operation("DecodePaddedRaw")
        .input(&bytes)
        .input(&len)
        .attr("out_type", out_type)
        .attr("little_endian", le)
        .build()?
        .output(0)
}

fn check(c: &Value) {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let mut feeds = Vec::new();
    let built = build(&g, c, &mut feeds);
    if let Some(want) = c.get("build_error") {
        let e = built.expect_err(name);
        assert_eq!(e.code(), weir_graph::Code::InvalidArgument, "{name}: {e}");
        let msg = e.message().split(" for '").next().unwrap().to_string();
        assert_eq!(msg, allowed_values_message(c, want), "{name}");
        return;
    }
    let out = built.unwrap_or_else(|e| panic!("{name}: {e}"));
    let got = Session::new(&g)
        .unwrap()
        .run(&fetch_and_feed([&out], feeds));
    check_outcome(name, c, got);
}

#[test]
fn decode_raw_matches_tensorflow_for_every_out_type() {
    check_each(&cases("decode_raw"), check);
}

#[test]
fn decode_padded_raw_matches_tensorflow_for_every_out_type() {
    check_each(&cases("decode_padded_raw"), check);
}

/// The builder rejects an out_type before adding the fixed_length constant, with the message
/// of the op def's check.
#[test]
fn padded_builder_rejects_complex_like_the_op_def() {
    let g = Graph::new();
    let bytes = constant(&g, Tensor::from(vec![Bytes::from_static(b"abcd")])).unwrap();
    let e = DecodeRaw::new(DType::C64)
        .fixed_length(8)
        .build(&bytes)
        .unwrap_err();
    assert_eq!(
        e.message(),
        "Value for attr 'out_type' of complex64 is not in the list of allowed values: half, float, double, int32, uint16, uint8, int16, int8, int64, bfloat16"
    );
    assert_eq!(g.num_nodes(), 1);
}
