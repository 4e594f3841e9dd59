//! The cases of tests/data/math_special/expected.json (made by make_math_special.py with
//! TensorFlow 2.21) built as weir graphs: shared by weir-ops' value tests (math_special.rs)
//! and weir-train's gradient tests (math_special_grad.rs), which includes this file by path.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder_with_default};
use weir_ops::{math, nn};

/// Every case TensorFlow recorded.
pub fn cases() -> &'static [Value] {
    static E: OnceLock<Value> = OnceLock::new();
    E.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../ops/tests/data/math_special/expected.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    })["cases"]
        .as_array()
        .unwrap()
}

/// A recorded tensor.
pub fn tensor(v: &Value) -> Tensor {
    let dt = DType::from_name(v["dtype"].as_str().unwrap()).unwrap();
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let vals = v["values"].as_array().unwrap();
    let f = |x: &Value| match x {
        Value::String(s) => s.parse::<f64>().unwrap_or(f64::NAN),
        x => x.as_f64().unwrap(),
    };
    match dt {
        DType::F32 => Tensor::from_vec(&shape, vals.iter().map(|x| f(x) as f32).collect()),
        DType::F64 => Tensor::from_vec(&shape, vals.iter().map(f).collect()),
        DType::I32 => Tensor::from_vec(
            &shape,
            vals.iter().map(|x| x.as_i64().unwrap() as i32).collect(),
        ),
        _ => panic!("unexpected dtype {dt}"),
    }
    .unwrap()
}

/// The values of a float tensor, widened to f64.
pub fn numbers(t: &Tensor) -> Vec<f64> {
    match t.dtype() {
        DType::F32 => t
            .to_vec::<f32>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect(),
        DType::F64 => t.to_vec::<f64>().unwrap(),
        dt => panic!("not a float tensor: {dt}"),
    }
}

/// A weir graph of one case: its output and its inputs by name.
pub struct Built {
    pub output: Output,
    pub inputs: HashMap<String, Output>,
}

fn unary(name: &str, x: &Output) -> Result<Output> {
    match name {
        "tan" => math::tan(x),
        "asin" => math::asin(x),
        "acos" => math::acos(x),
        "atan" => math::atan(x),
        "sinh" => math::sinh(x),
        "cosh" => math::cosh(x),
        "asinh" => math::asinh(x),
        "acosh" => math::acosh(x),
        "atanh" => math::atanh(x),
        "expm1" => math::expm1(x),
        "rint" => math::rint(x),
        "inv" => math::inv(x),
        "erf" => math::erf(x),
        "erfc" => math::erfc(x),
        "erfinv" => math::erfinv(x),
        "ndtri" => math::ndtri(x),
        "lgamma" => math::lgamma(x),
        "digamma" => math::digamma(x),
        "bessel_i0e" => math::bessel_i0e(x),
        "bessel_i1e" => math::bessel_i1e(x),
        "bessel_i0" => math::bessel_i0(x),
        "bessel_i1" => math::bessel_i1(x),
        "softplus" => nn::softplus(x),
        "softsign" => nn::softsign(x),
        "selu" => nn::selu(x),
        other => panic!("unknown function {other}"),
    }
}

/// Builds `case` in `g`. Inputs are placeholders with defaults (with unknown shapes when the
/// case is `dynamic`, so that the kernels, not the shape functions, see them).
pub fn build(g: &Graph, case: &Value) -> Result<Built> {
    let dynamic = case["dynamic"].as_bool().unwrap_or(false);
    let mut inputs = HashMap::new();
    for (name, v) in case["inputs"].as_object().unwrap() {
        let c = constant(g, tensor(v))?;
        let shape = if dynamic { Shape::unknown() } else { c.shape() };
        inputs.insert(name.clone(), placeholder_with_default(&c, shape)?);
    }
    let i = |k: &str| inputs[k].clone();
    let output = match case["fn"].as_str().unwrap() {
        "zeta" => math::zeta(i("x"), i("q"))?,
        "polygamma" => math::polygamma(i("a"), i("x"))?,
        "softplus_grad" => nn::softplus_grad(i("gradients"), i("features"))?,
        "softsign_grad" => nn::softsign_grad(i("gradients"), i("features"))?,
        "selu_grad" => nn::selu_grad(i("gradients"), i("outputs"))?,
        "crelu" => {
            let axis = case["attrs"]["axis"].as_i64().unwrap_or(-1) as i32;
            nn::crelu_with_axis(i("features"), axis)?
        }
        f => unary(f, &i("x"))?,
    };
    Ok(Built { output, inputs })
}
