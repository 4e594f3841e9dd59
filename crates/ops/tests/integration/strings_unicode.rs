//! `UnicodeTranscode`, `UnicodeDecode`, `UnicodeDecodeWithOffsets`, `UnicodeEncode`,
//! `UnicodeScript`, and `StringLength`/`Substr` counting UTF-8 characters, against TensorFlow
//! 2.21 (tests/data/strings_unicode/expected.json, written by make_unicode.py there): values,
//! dtypes, static shapes, and error codes and messages.
//!
//! Messages are compared whole, before TensorFlow's " for '{{node ..." suffix of shape-function
//! messages (weir's suffix names the op instead).

use serde_json::Value;
use weir_graph::{Bytes, Code, DType, Error, Graph, Output, Result, Tensor};
use weir_ops::string::{
    string_length, unicode_script, OutputEncoding, Substr, UnicodeDecode, UnicodeEncode,
    UnicodeErrors, UnicodeTranscode, Unit,
};

use crate::io_util::{bytes_of, check_all_cases, run_built_case, source, tensor_of};

fn cases() -> Vec<Value> {
    crate::io_util::expected_cases("strings_unicode")
}

fn errors_of(s: &str) -> Option<UnicodeErrors> {
    Some(match s {
        "strict" => UnicodeErrors::Strict,
        "replace" => UnicodeErrors::Replace,
        "ignore" => UnicodeErrors::Ignore,
        _ => return None,
    })
}

fn output_encoding_of(s: &str) -> Option<OutputEncoding> {
    Some(match s {
        "UTF-8" => OutputEncoding::Utf8,
        "UTF-16-BE" => OutputEncoding::Utf16Be,
        "UTF-32-BE" => OutputEncoding::Utf32Be,
        _ => return None,
    })
}

fn splits_dtype(c: &Value) -> DType {
    match c["tsplits"].as_str().unwrap() {
        "int32" => DType::I32,
        _ => DType::I64,
    }
}

/// The case's node with attrs the builders cannot express (values outside their enums).
fn raw_node(g: &Graph, op: &str, inputs: Vec<Output>, c: &Value) -> Result<Vec<Output>> {
    let mut b = g.new_operation(op);
    for i in inputs {
        b = b.input(i);
    }
    for key in ["input_encoding", "output_encoding", "errors"] {
        if let Some(v) = c.get(key) {
            b = b.attr(key, v.as_str().unwrap());
        }
    }
    b = b.attr("replacement_char", c["replacement_char"].as_i64().unwrap());
    if let Some(v) = c.get("replace_control_characters") {
        b = b.attr("replace_control_characters", v.as_bool().unwrap());
    }
    let op = b.build()?;
    (0..op.num_outputs()).map(|i| op.output(i)).collect()
}

fn build(g: &Graph, c: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Result<Vec<Output>> {
    let str_of = |k: &str| c[k].as_str().unwrap();
    let rc = || c["replacement_char"].as_i64().unwrap() as i32;
    let errors = c.get("errors").and_then(|e| errors_of(e.as_str().unwrap()));
    let out_enc = c
        .get("output_encoding")
        .and_then(|e| output_encoding_of(e.as_str().unwrap()));
    match c["op"].as_str().unwrap() {
        "transcode" => {
            let x = source(g, c, "input", DType::String, feeds);
            let (Some(errors), Some(oe)) = (errors, out_enc) else {
                return raw_node(g, "UnicodeTranscode", vec![x], c);
            };
            let t = UnicodeTranscode::new(str_of("input_encoding"), oe)
                .errors(errors)
                .replacement_char(rc())
                .replace_control_characters(c["replace_control_characters"].as_bool().unwrap())
                .build(&x)?;
            Ok(vec![t])
        }
        op @ ("decode" | "decode_offsets") => {
            let x = source(g, c, "input", DType::String, feeds);
            let Some(errors) = errors else {
                let name = if op == "decode" {
                    "UnicodeDecode"
                } else {
                    "UnicodeDecodeWithOffsets"
                };
                return raw_node(g, name, vec![x], c);
            };
            let d = UnicodeDecode::new(str_of("input_encoding"))
                .errors(errors)
                .replacement_char(rc())
                .replace_control_characters(c["replace_control_characters"].as_bool().unwrap())
                .splits_dtype(splits_dtype(c));
            let d = if op == "decode" {
                d.build(&x)?
            } else {
                d.build_with_offsets(&x)?
            };
            Ok([
                Some(d.row_splits),
                Some(d.char_values),
                d.char_to_byte_starts,
            ]
            .into_iter()
            .flatten()
            .collect())
        }
        "encode" => {
            let v = source(g, c, "values", DType::I32, feeds);
            let s = source(g, c, "splits", splits_dtype(c), feeds);
            let (Some(errors), Some(oe)) = (errors, out_enc) else {
                return raw_node(g, "UnicodeEncode", vec![v, s], c);
            };
            let e = UnicodeEncode::new(oe)
                .errors(errors)
                .replacement_char(rc())
                .build(&v, &s)?;
            Ok(vec![e])
        }
        "script" => Ok(vec![unicode_script(source(
            g,
            c,
            "input",
            DType::I32,
            feeds,
        ))?]),
        "length" => {
            let x = source(g, c, "input", DType::String, feeds);
            Ok(vec![string_length(&x, unit_of(str_of("unit")))?])
        }
        "substr" => {
            let x = source(g, c, "input", DType::String, feeds);
            let (pos, len) = (c["pos"].as_i64().unwrap(), c["len"].as_i64().unwrap());
            Ok(vec![Substr::new()
                .unit(unit_of(str_of("unit")))
                .build(&x, pos, len)?])
        }
        other => panic!("unknown op {other}"),
    }
}

fn unit_of(s: &str) -> Unit {
    match s {
        "UTF8_CHAR" => Unit::Utf8Char,
        _ => Unit::Byte,
    }
}

/// Checks a weir error against TensorFlow's `want` ({code, message}).
fn check_error(name: &str, got: &Error, want: &Value) {
    let code = Code::from_proto_number(want["code"].as_i64().unwrap() as i32).unwrap();
    assert_eq!(got.code(), code, "{name}: {got}");
    let want = want["message"].as_str().unwrap();
    assert_eq!(
        got.message().split(" for '").next().unwrap(),
        want,
        "{name}"
    );
}

fn ints(t: &Tensor) -> Vec<i64> {
    match t.dtype() {
        DType::I32 => t
            .as_slice::<i32>()
            .unwrap()
            .iter()
            .map(|&x| x as i64)
            .collect(),
        _ => t.to_vec::<i64>().unwrap(),
    }
}

/// The dtypes TensorFlow gives the case's outputs.
fn dtypes(c: &Value) -> Vec<DType> {
    match c["op"].as_str().unwrap() {
        "transcode" | "encode" | "substr" => vec![DType::String],
        "script" | "length" => vec![DType::I32],
        "decode" => vec![splits_dtype(c), DType::I32],
        _ => vec![splits_dtype(c), DType::I32, DType::I64],
    }
}

fn check_outputs(c: &Value, name: &str, got: &[Tensor]) {
    let want = c["out"].as_array().unwrap();
    assert_eq!(got.len(), want.len(), "{name}: outputs");
    for (k, ((t, w), dtype)) in got.iter().zip(want).zip(dtypes(c)).enumerate() {
        assert_eq!(t.dtype(), dtype, "{name}: dtype of output {k}");
        let shape: Vec<usize> = crate::io_util::usizes(&w["shape"]);
        assert_eq!(t.shape(), &shape[..], "{name}: shape of output {k}");
        let values = w["values"].as_array().unwrap();
        if t.dtype() == DType::String {
            let want: Vec<Bytes> = values.iter().map(bytes_of).collect();
            assert_eq!(
                t.as_slice::<Bytes>().unwrap(),
                &want[..],
                "{name}: output {k}"
            );
        } else {
            let want: Vec<i64> = values.iter().map(|v| v.as_i64().unwrap()).collect();
            assert_eq!(ints(t), want, "{name}: output {k}");
        }
    }
}

fn run_case(c: &Value) -> bool {
    run_built_case(
        c,
        c.get("build_error"),
        |g, feeds| build(g, c, feeds),
        check_error,
        |name, got| check_outputs(c, name, got),
    )
}

#[test]
fn every_case_matches_tensorflow() {
    let cases = cases();
    assert!(cases.len() > 1000, "{}", cases.len());
    check_all_cases(&cases, run_case);
}

#[test]
fn every_op_and_mode_is_covered() {
    let cases = cases();
    for op in [
        "transcode",
        "decode",
        "decode_offsets",
        "encode",
        "script",
        "length",
        "substr",
    ] {
        assert!(cases.iter().any(|c| c["op"] == op), "{op}");
    }
    for mode in ["replace", "ignore", "strict"] {
        for op in ["transcode", "decode_offsets", "encode"] {
            assert!(
                cases
                    .iter()
                    .any(|c| c["op"] == op && c["errors"] == mode && c.get("out").is_some()),
                "{op} {mode}"
            );
        }
    }
}

/// Runs `GRAPH_FETCHES` of graph_expected.json in `g` fed its input, checking TensorFlow's values.
fn check_graph_values(g: &Graph, want: &Value) {
    let input = tensor_of(&want["input"], DType::String);
    let fetches = want["fetches"].as_array().unwrap();
    let mut args = weir_session::RunArgs::new().feed_name("x:0", input);
    for f in fetches {
        args = args.fetch_name(f["name"].as_str().unwrap());
    }
    let got = weir_session::Session::new(g).unwrap().run(&args).unwrap();
    for (t, f) in got.iter().zip(fetches) {
        let name = f["name"].as_str().unwrap();
        assert_eq!(
            t.shape(),
            &crate::io_util::usizes(&f["shape"])[..],
            "{name}"
        );
        let values = f["values"].as_array().unwrap();
        if t.dtype() == DType::String {
            let want: Vec<Bytes> = values.iter().map(bytes_of).collect();
            assert_eq!(t.as_slice::<Bytes>().unwrap(), &want[..], "{name}");
        } else {
            let want: Vec<i64> = values.iter().map(|v| v.as_i64().unwrap()).collect();
            assert_eq!(ints(t), want, "{name}");
        }
    }
}

/// TensorFlow's GraphDef of the Unicode ops (graph.pb) imports and runs as TensorFlow ran it,
/// and weir's export of the imported graph imports and runs the same again.
#[test]
fn tensorflows_graph_def_imports_runs_and_exports() {
    use weir_graph::graph_def::{proto::GraphDef, ImportGraphDef, Message};
    let dir =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/strings_unicode");
    let bytes = std::fs::read(dir.join("graph.pb")).unwrap();
    let text = std::fs::read_to_string(dir.join("graph_expected.json")).unwrap();
    let want: Value = serde_json::from_str(&text).unwrap();
    let def = GraphDef::decode(&bytes[..]).unwrap();
    let g = Graph::new();
    weir_ops::import_graph_def(&g, &ImportGraphDef::new(&def).name("")).unwrap();
    check_graph_values(&g, &want);
    let exported = g.as_graph_def(false).unwrap();
    let g2 = Graph::new();
    weir_ops::import_graph_def(&g2, &ImportGraphDef::new(&exported).name("")).unwrap();
    check_graph_values(&g2, &want);
}
