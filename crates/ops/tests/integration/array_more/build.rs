//! The cases of tests/data/array_more/expected.json (made by make_array_more.py with
//! TensorFlow 2.21) built as weir graphs: shared by weir-ops' value tests (array_more.rs) and
//! weir-train's gradient tests (array_more_grad.rs), which includes this file by path.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{AttrValue, Bytes, DType, Error, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{self, constant, placeholder_with_default};
use weir_ops::nn::{atrous_conv2d, Padding};

/// The folder of expected.json and legacy_graph.pbtxt.
pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../ops/tests/data/array_more")
}

fn expected() -> &'static Value {
    static E: OnceLock<Value> = OnceLock::new();
    E.get_or_init(|| {
        let path = data_dir().join("expected.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    })
}

/// Every case TensorFlow recorded.
pub fn cases() -> &'static [Value] {
    expected()["cases"].as_array().unwrap()
}

/// The recorded values and gradients of legacy_graph.pbtxt.
pub fn legacy_graph() -> &'static Value {
    &expected()["legacy_graph"]
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
    let i = |x: &Value| x.as_i64().unwrap();
    match dt {
        DType::F32 => Tensor::from_vec(&shape, vals.iter().map(|x| f(x) as f32).collect()),
        DType::F64 => Tensor::from_vec(&shape, vals.iter().map(f).collect()),
        DType::I8 => Tensor::from_vec(&shape, vals.iter().map(|x| i(x) as i8).collect()),
        DType::I16 => Tensor::from_vec(&shape, vals.iter().map(|x| i(x) as i16).collect()),
        DType::I32 => Tensor::from_vec(&shape, vals.iter().map(|x| i(x) as i32).collect()),
        DType::I64 => Tensor::from_vec(&shape, vals.iter().map(i).collect()),
        DType::U8 => Tensor::from_vec(&shape, vals.iter().map(|x| i(x) as u8).collect()),
        DType::U16 => Tensor::from_vec(&shape, vals.iter().map(|x| i(x) as u16).collect()),
        DType::Bool => {
            Tensor::from_vec(&shape, vals.iter().map(|x| x.as_bool().unwrap()).collect())
        }
        DType::String => Tensor::from_vec(
            &shape,
            vals.iter()
                .map(|x| Bytes::copy_from_slice(x.as_str().unwrap().as_bytes()))
                .collect(),
        ),
        _ => panic!("unexpected dtype {dt}"),
    }
    .unwrap()
}

/// Compares `got` with a recorded tensor: integers, bools and strings exactly, floats within
/// `rtol` relative.
pub fn assert_tensor(what: &str, got: &Tensor, want: &Value, rtol: f64) {
    let want = tensor(want);
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    match want.dtype() {
        DType::F32 | DType::F64 => {
            let to_f64 = |t: &Tensor| -> Vec<f64> {
                match t.dtype() {
                    DType::F32 => t
                        .to_vec::<f32>()
                        .unwrap()
                        .into_iter()
                        .map(f64::from)
                        .collect(),
                    _ => t.to_vec::<f64>().unwrap(),
                }
            };
            let (g, w) = (to_f64(got), to_f64(&want));
            for (a, b) in g.iter().zip(&w) {
                let ok = (a.is_nan() && b.is_nan()) || (a - b).abs() <= rtol * (b.abs() + 0.1);
                assert!(ok, "{what}: got {g:?}, TensorFlow {w:?}");
            }
        }
        _ => assert!(got == &want, "{what}: got {got:?}, TensorFlow {want:?}"),
    }
}

/// A recorded static shape (`null`: unknown rank; `-1`: unknown dim).
pub fn static_shape(v: &Value) -> Shape {
    match v.as_array() {
        None => Shape::unknown(),
        Some(d) => Shape::new(
            d.iter()
                .map(|x| {
                    let x = x.as_i64().unwrap();
                    (x >= 0).then_some(x as usize)
                })
                .collect::<Vec<_>>(),
        ),
    }
}

/// A weir graph of one case: its outputs and its inputs by name.
pub struct Built {
    pub outputs: Vec<Output>,
    pub inputs: HashMap<String, Output>,
}

fn attr_value(op: &str, name: &str, v: &Value) -> AttrValue {
    match v {
        Value::Bool(b) => AttrValue::Bool(*b),
        Value::String(s) => AttrValue::Str(s.clone()),
        Value::Object(o) => AttrValue::Type(DType::from_name(o["type"].as_str().unwrap()).unwrap()),
        Value::Array(a) if op == "EnsureShape" && name == "shape" => {
            AttrValue::Shape(static_shape(&Value::Array(a.clone())))
        }
        Value::Array(a) => AttrValue::Ints(a.iter().map(|x| x.as_i64().unwrap()).collect()),
        v => AttrValue::Int(v.as_i64().unwrap()),
    }
}

fn attr_i64(case: &Value, name: &str) -> i64 {
    case["attrs"][name].as_i64().unwrap()
}

fn attr_dtype(case: &Value, name: &str, default: DType) -> DType {
    case["attrs"][name]["type"]
        .as_str()
        .map(|s| DType::from_name(s).unwrap())
        .unwrap_or(default)
}

/// Builds `case` in `g`. Inputs named in `grad` become placeholders with defaults of their
/// static shape (what gradients are taken with respect to); the case's `dynamic` inputs have
/// unknown shapes, so that the kernels, not the shape functions, see them.
pub fn build(g: &Graph, case: &Value, grad: &[&str]) -> Result<Built> {
    let dynamic: Vec<&str> = case["dynamic"]
        .as_array()
        .map(|a| a.iter().map(|v| v.as_str().unwrap()).collect())
        .unwrap_or_default();
    let mut inputs = HashMap::new();
    let mut order = Vec::new();
    for pair in case["inputs"].as_array().unwrap() {
        let name = pair[0].as_str().unwrap();
        let value = constant(g, tensor(&pair[1]))?;
        let t = if dynamic.contains(&name) {
            placeholder_with_default(&value, Shape::unknown())?
        } else if grad.contains(&name) {
            let s = value.shape();
            placeholder_with_default(&value, s)?
        } else {
            value
        };
        inputs.insert(name.to_string(), t.clone());
        order.push(t);
    }
    let input = |k: &str| inputs[k].clone();
    let outputs = if let Some(op) = case["op"].as_str() {
        weir_ops::register_all_ops();
        let mut b = g.new_operation(op);
        for t in &order {
            b = b.input(t);
        }
        for (k, v) in case["attrs"].as_object().unwrap() {
            b = b.attr(k, attr_value(op, k, v));
        }
        b.build()?.outputs()
    } else {
        let f = case["fn"].as_str().unwrap();
        match f {
            "reverse_sequence" => vec![array::reverse_sequence(
                input("input"),
                input("seq_lengths"),
                attr_i64(case, "seq_axis"),
                attr_i64(case, "batch_axis"),
            )?],
            "space_to_batch_nd" => vec![array::space_to_batch_nd(
                input("input"),
                input("block_shape"),
                input("paddings"),
            )?],
            "batch_to_space_nd" => vec![array::batch_to_space_nd(
                input("input"),
                input("block_shape"),
                input("crops"),
            )?],
            "space_to_batch" => vec![array::space_to_batch(
                input("input"),
                input("paddings"),
                attr_i64(case, "block_size"),
            )?],
            "batch_to_space" => vec![array::batch_to_space(
                input("input"),
                input("crops"),
                attr_i64(case, "block_size"),
            )?],
            "setdiff1d" => {
                let (a, b) = array::setdiff1d(input("x"), input("y"), DType::I32)?;
                vec![a, b]
            }
            "unravel_index" => vec![array::unravel_index(input("indices"), input("dims"))?],
            "ensure_shape" => vec![array::ensure_shape(
                input("input"),
                static_shape(&case["attrs"]["shape"]),
            )?],
            "broadcast_dynamic_shape" => vec![array::broadcast_dynamic_shape(
                input("shape_x"),
                input("shape_y"),
            )?],
            "bitcast" => vec![array::bitcast(
                input("input"),
                attr_dtype(case, "type", DType::F32),
            )?],
            "searchsorted" => vec![array::searchsorted(
                input("sorted_sequence"),
                input("values"),
                case["attrs"]["side"].as_str().unwrap(),
                attr_dtype(case, "out_type", DType::I32),
            )?],
            "atrous_conv2d" => {
                let padding = match case["attrs"]["padding"].as_str().unwrap() {
                    "SAME" => Padding::Same,
                    _ => Padding::Valid,
                };
                vec![atrous_conv2d(
                    input("value"),
                    input("filters"),
                    attr_i64(case, "rate"),
                    padding,
                )?]
            }
            other => return Err(Error::invalid_argument(format!("unknown fn {other}"))),
        }
    };
    Ok(Built { outputs, inputs })
}
