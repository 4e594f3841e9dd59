//! The fake-quantization and quantize-and-dequantize ops against TensorFlow 2.21: every case of
//! tests/data/quantization/expected.json (made by make_quantization.py there). Raw-op cases
//! build the op on constants or fed placeholders and must match TensorFlow's outputs bit for
//! bit (static shapes included), or fail at the same stage (adding the node, or running it)
//! with TensorFlow's status code and words. The `api` cases call the `tf.quantization`
//! builders the way the script calls TensorFlow's functions and compare node names, inputs,
//! attributes and values.

use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{AttrValue, DType, Error, Graph, Output, Result, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::quantization::{
    fake_quant_with_min_max_args, FakeQuantWithMinMaxArgs, FakeQuantWithMinMaxVars,
    FakeQuantWithMinMaxVarsPerChannel, QuantizeAndDequantize,
};
use weir_session::Session;

use crate::binary_dtypes::data::{check, tensor};
use crate::io_util::{check_all_cases, run_built_case, shape_of};

fn expected() -> &'static Value {
    static E: OnceLock<Value> = OnceLock::new();
    E.get_or_init(|| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/quantization/expected.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    })
}

fn cases(key: &str) -> &'static [Value] {
    expected()[key].as_array().unwrap()
}

/// A recorded attribute: the fake-quant range as a float ("NaN" spelled out), others as they
/// are.
fn attr(k: &str, v: &Value) -> AttrValue {
    match (k, v) {
        ("min" | "max", Value::String(s)) if s == "NaN" => AttrValue::Float(f32::NAN),
        ("min" | "max", v) => AttrValue::Float(v.as_f64().unwrap() as f32),
        (_, Value::Bool(b)) => AttrValue::Bool(*b),
        (_, Value::String(s)) => AttrValue::Str(s.clone()),
        (_, v) => AttrValue::Int(v.as_i64().unwrap()),
    }
}

/// The case's raw op on constants, or on placeholders of the recorded static shape fed the
/// recorded values.
fn build(g: &Graph, c: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Result<Vec<Output>> {
    weir_ops::register_all_ops();
    let mut b = g.new_operation(c["op"].as_str().unwrap());
    if let Some(name) = c.get("node") {
        b = b.name(name.as_str().unwrap());
    }
    for input in c["inputs"].as_array().unwrap() {
        let value = tensor(&input[1]);
        let t = match input.get(2) {
            Some(shape) => {
                let p = placeholder(g, value.dtype(), shape_of(shape))?;
                feeds.push((p.clone(), value));
                p
            }
            None => constant(g, value)?,
        };
        b = b.input(t);
    }
    for (k, v) in c["attrs"].as_object().unwrap() {
        b = b.attr(k, attr(k, v));
    }
    Ok(b.build()?.outputs())
}

/// The messages TensorFlow's Python layer words differently from weir's op-signature checks
/// (a type outside the allowed list, two inputs of one type attribute that disagree); for
/// those only the status code is compared.
fn python_worded(tf: &str) -> bool {
    tf.starts_with("Value passed to parameter") || tf.contains("of argument '")
}

/// A no-kernel message with its attributes sorted (TensorFlow lists them in hash order) and
/// without the kernels of TensorFlow's XLA devices, which weir does not have.
fn sorted_attrs(msg: &str) -> String {
    let key = "with these attrs: [";
    let lines: Vec<&str> = msg
        .trim()
        .lines()
        .filter(|l| !l.contains("device='XLA_"))
        .collect();
    let msg = lines.join("\n");
    let Some(start) = msg.find(key).map(|i| i + key.len()) else {
        return msg;
    };
    let end = start + msg[start..].find(']').unwrap();
    let mut attrs: Vec<&str> = msg[start..end].split(", ").collect();
    attrs.sort_unstable();
    format!("{}{}{}", &msg[..start], attrs.join(", "), &msg[end..])
}

/// Compares weir's error with TensorFlow's recorded one: the code, and the words. A shape
/// function's message names the node as `'{{node X}} = X[...](...)'` where weir names the op
/// type; the words before that and the input shapes after it must be the same.
fn check_error(name: &str, got: &Error, want: &Value) {
    let code = weir_graph::Code::from_proto_number(want["code"].as_i64().unwrap() as i32).unwrap();
    assert_eq!(got.code(), code, "{name}: {got}");
    let tf = want["message"].as_str().unwrap();
    if python_worded(tf) {
        return;
    }
    let msg = got.message();
    match tf.split_once(" for '{{node ") {
        Some((head, rest)) => {
            let (weir_head, weir_rest) = msg
                .split_once(" for '")
                .unwrap_or_else(|| panic!("{name}: {msg:?} names no op; TensorFlow: {tf:?}"));
            assert_eq!(weir_head, head, "{name}");
            let shapes = |s: &str| {
                s.split_once("' with input shapes: ")
                    .map(|(_, t)| t.to_string())
            };
            assert_eq!(shapes(weir_rest), shapes(rest), "{name}: input shapes");
        }
        None => assert_eq!(sorted_attrs(msg), sorted_attrs(tf), "{name}"),
    }
}

fn check_outputs(name: &str, c: &Value, got: &[Tensor]) {
    let want = c["outputs"].as_array().unwrap();
    assert_eq!(got.len(), want.len(), "{name}: outputs");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        if let Err(e) = check(&format!("{name}:{k}"), g, w, 0.0) {
            panic!("{e}");
        }
    }
}

fn run_case(c: &Value) -> bool {
    let want_build = c.get("error").filter(|e| e["stage"] == "build");
    run_built_case(
        c,
        want_build,
        |g, feeds| build(g, c, feeds),
        check_error,
        |name, got| check_outputs(name, c, got),
    )
}

#[test]
fn ops_match_tensorflow() {
    let cases = cases("cases");
    assert!(cases.len() > 700, "{} cases", cases.len());
    check_all_cases(cases, run_case);
}

/// Each `api` case's call, as make_quantization.py makes it on its `x` (constants made in
/// the script's order, so they get the same names).
fn api_call(name: &str, g: &Graph, x_value: &Tensor) -> Result<Vec<Output>> {
    let x = || constant(g, x_value.clone());
    let filled = |v: f32| constant(g, Tensor::filled(x_value.shape(), v));
    let q = QuantizeAndDequantize::new();
    Ok(match name {
        "args_default" => vec![fake_quant_with_min_max_args(x()?)?],
        "args_named" => vec![FakeQuantWithMinMaxArgs::new()
            .min(-1.0)
            .max(3.0)
            .num_bits(4)
            .narrow_range(true)
            .name("fq")
            .build(x()?)?],
        "args_gradient" => vec![FakeQuantWithMinMaxArgs::new()
            .min(-1.0)
            .max(3.0)
            .gradient(filled(1.0)?, x()?)?],
        "vars_numbers" => {
            vec![FakeQuantWithMinMaxVars::new()
                .num_bits(5)
                .build(x()?, -1.0f32, 3.0f32)?]
        }
        "vars_gradient_numbers" => FakeQuantWithMinMaxVars::new()
            .narrow_range(true)
            .gradient(filled(2.0)?, x()?, -1.0, 3.0)?
            .to_vec(),
        "per_channel_numbers" => vec![FakeQuantWithMinMaxVarsPerChannel::new().num_bits(3).build(
            x()?,
            [-1.0f32, 0.0, -0.5, -3.0],
            [1.0f32, 2.0, 0.5, 3.0],
        )?],
        "per_channel_gradient_numbers" => FakeQuantWithMinMaxVarsPerChannel::new()
            .name("pcg")
            .gradient(
                filled(1.0)?,
                x()?,
                [-1.0f32, 0.0, -0.5, -3.0],
                [1.0f32, 2.0, 0.5, 3.0],
            )?
            .to_vec(),
        "qdq_v1_given" => vec![q
            .range_given(true)
            .num_bits(4)
            .round_mode("HALF_UP")
            .quantize_and_dequantize(x()?, -2.0, 2.0)?],
        "qdq_v2_axis_last" => vec![q
            .axis(-1)
            .signed_input(false)
            .num_bits(3)
            .quantize_and_dequantize_v2(x()?, [0.0f32; 4], [0.0f32; 4])?],
        "qdq_v2_axis0" => vec![q
            .axis(0)
            .narrow_range(true)
            .name("q")
            .quantize_and_dequantize_v2(x()?, [0.0f32; 2], [0.0f32; 2])?],
        "qdq_v2_unknown_rank_negative_axis" => {
            let p = placeholder(g, DType::F32, weir_graph::Shape::unknown())?;
            vec![q.axis(-1).quantize_and_dequantize_v2(p, 0.0, 0.0)?]
        }
        "qdq_v2_float64" => {
            let x64: Vec<f64> = x_value
                .to_vec::<f32>()?
                .into_iter()
                .map(f64::from)
                .collect();
            let x64 = constant(g, Tensor::from_vec(x_value.shape(), x64)?)?;
            vec![q
                .range_given(true)
                .quantize_and_dequantize_v2(x64, -1.0, 1.0)?]
        }
        other => panic!("no call for api case {other}"),
    })
}

#[test]
fn api_builders_match_tensorflow() {
    let x_value = tensor(&expected()["api_input"]);
    for c in cases("api") {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let ys = match (api_call(name, &g, &x_value), c.get("error")) {
            (Ok(ys), None) => ys,
            (Err(e), Some(want)) => {
                check_error(name, &e, want);
                continue;
            }
            (got, want) => panic!("{name}: weir {got:?}, TensorFlow {want:?}"),
        };
        let names: Vec<String> = ys.iter().map(Output::name).collect();
        assert_eq!(serde_json::json!(names), c["nodes"], "{name}: node names");
        let op = ys[0].op();
        assert_eq!(op.op_type(), c["op"].as_str().unwrap(), "{name}");
        let inputs: Vec<String> = op.inputs().iter().map(Output::name).collect();
        assert_eq!(serde_json::json!(inputs), c["op_inputs"], "{name}: inputs");
        for (k, v) in c["attrs"].as_object().unwrap() {
            assert_eq!(
                op.node().attr_value(k),
                Some(&attr(k, v)),
                "{name}: attr {k}"
            );
        }
        let sess = Session::new(&g).unwrap();
        let got: Vec<Tensor> = ys.iter().map(|y| sess.eval(y).unwrap()).collect();
        check_outputs(name, c, &got);
    }
}
