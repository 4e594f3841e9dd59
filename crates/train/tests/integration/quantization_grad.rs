//! Gradients of the fake-quantization and quantize-and-dequantize ops against TensorFlow
//! 2.21's `tf.gradients` with a fixed `grad_ys`: every `grads` case of
//! crates/ops/tests/data/quantization/expected.json (made by make_quantization.py there).
//! Each gradient matches bit for bit, is absent where TensorFlow's is `None`, and comes from
//! the same gradient op (`FakeQuantWithMinMax*Gradient`, `QuantizeAndDequantizeV4Grad`);
//! `QuantizeAndDequantizeV2`/`V3` pass the gradient straight through. Differentiating
//! through `QuantizeAndDequantizeV4Grad` fails, as TensorFlow's registered gradient does.

use crate::tf_tensors::{check, tensor};
use serde_json::Value;
use weir_graph::{AttrValue, Graph, Output, Result, Tensor};
use weir_ops::array::constant;
use weir_session::Session;
use weir_train::gradients::gradients;

fn grad_cases() -> &'static [Value] {
    static E: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    E.get_or_init(|| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../ops/tests/data/quantization/expected.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    })["grads"]
        .as_array()
        .unwrap()
}

fn attr(k: &str, v: &Value) -> AttrValue {
    match (k, v) {
        ("min" | "max", v) => AttrValue::Float(v.as_f64().unwrap() as f32),
        (_, Value::Bool(b)) => AttrValue::Bool(*b),
        (_, v) => AttrValue::Int(v.as_i64().unwrap()),
    }
}

/// The case's forward op on constants (its first output) and the constants by argument name.
fn forward(g: &Graph, case: &Value) -> Result<(Output, Vec<(String, Output)>)> {
    weir_ops::register_all_ops();
    let mut b = g.new_operation(case["op"].as_str().unwrap());
    let mut inputs = vec![];
    for input in case["inputs"].as_array().unwrap() {
        let c = constant(g, tensor(&input[1]))?;
        b = b.input(c.clone());
        inputs.push((input[0].as_str().unwrap().to_string(), c));
    }
    for (k, v) in case["attrs"].as_object().unwrap() {
        b = b.attr(k, attr(k, v));
    }
    Ok((b.build()?.output(0)?, inputs))
}

/// The gradients with respect to the case's `wrt` inputs (all of them for an error case).
fn case_gradients(case: &Value) -> Result<(Vec<Option<Output>>, Graph)> {
    let g = Graph::new();
    let (y, inputs) = forward(&g, case)?;
    let wrt: Vec<String> = match case.get("wrt") {
        Some(w) => w
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_string())
            .collect(),
        None => inputs.iter().map(|(n, _)| n.clone()).take(2).collect(),
    };
    let xs: Vec<Output> = wrt
        .iter()
        .map(|n| inputs.iter().find(|(k, _)| k == n).unwrap().1.clone())
        .collect();
    let dy = constant(&g, tensor(&case["grad_ys"]))?;
    Ok((gradients(&[y], &xs, Some(&[dy]))?, g))
}

#[test]
fn gradients_match_tensorflow() {
    let cases = grad_cases();
    assert_eq!(cases.len(), 21);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let got = case_gradients(case);
        if let Some(err) = case.get("error") {
            // TensorFlow's gradient function raised a TypeError.
            let e = got
                .err()
                .unwrap_or_else(|| panic!("{name}: TensorFlow failed: {err}"));
            assert!(e.is_invalid_argument(), "{name}: {e}");
            continue;
        }
        let (grads, g) = got.unwrap_or_else(|e| panic!("{name}: {e}"));
        let want = case["grads"].as_array().unwrap();
        let ops = case["grad_ops"].as_array().unwrap();
        assert_eq!(grads.len(), want.len(), "{name}");
        let sess = Session::new(&g).unwrap();
        for (k, (gr, w)) in grads.iter().zip(want).enumerate() {
            match (gr, w) {
                (None, Value::Null) => {}
                (Some(t), w) if !w.is_null() => {
                    // TensorFlow's pass-through gradient is an Identity of grad_ys.
                    if ops[k] != "Identity" {
                        assert_eq!(t.op().op_type(), ops[k].as_str().unwrap(), "{name}:{k}");
                    }
                    let v: Tensor = sess.eval(t).unwrap();
                    if let Err(e) = check(&format!("{name}:{k}"), &v, w, 0.0) {
                        panic!("{e}");
                    }
                }
                (gr, w) => panic!("{name}: gradient {k} is {gr:?}, TensorFlow's {w}"),
            }
        }
    }
}
