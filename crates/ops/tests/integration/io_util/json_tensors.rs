//! Tensors from recorded JSON cases: strings (or byte lists for non-UTF-8 ones) and ints,
//! nested to any rank, as constants or fed placeholders.

use serde_json::Value;
use weir_graph::{Bytes, DType, Graph, Output, Tensor};
use weir_ops::array::{constant, placeholder};

use super::shape_of;

/// A JSON string, or a list of byte values for one that is not UTF-8.
pub fn bytes_of(v: &Value) -> Bytes {
    match v {
        Value::String(s) => Bytes::from(s.clone().into_bytes()),
        Value::Array(b) => b.iter().map(|x| x.as_u64().unwrap() as u8).collect(),
        other => panic!("not a string: {other}"),
    }
}

/// The shape and row-major leaves of a nested JSON list of strings or ints.
fn flatten(v: &Value, dtype: DType, shape: &mut Vec<usize>, depth: usize, out: &mut Vec<Value>) {
    let is_leaf = match v {
        Value::Array(items) => {
            dtype == DType::String && !items.is_empty() && items.iter().all(Value::is_number)
        }
        _ => true,
    };
    if is_leaf {
        out.push(v.clone());
        return;
    }
    let items = v.as_array().unwrap();
    if shape.len() == depth {
        shape.push(items.len());
    }
    for x in items {
        flatten(x, dtype, shape, depth + 1, out);
    }
}

pub fn tensor_of(v: &Value, dtype: DType) -> Tensor {
    let (mut shape, mut leaves) = (Vec::new(), Vec::new());
    flatten(v, dtype, &mut shape, 0, &mut leaves);
    let int = |x: &Value| x.as_i64().unwrap();
    match dtype {
        DType::String => Tensor::from_vec(&shape, leaves.iter().map(bytes_of).collect()),
        DType::I64 => Tensor::from_vec(&shape, leaves.iter().map(int).collect()),
        _ => Tensor::from_vec(&shape, leaves.iter().map(|x| int(x) as i32).collect()),
    }
    .unwrap()
}

/// Input `key` of case `c`: a constant, or a placeholder of `c[key_shape]` fed its value.
pub fn source(
    g: &Graph,
    c: &Value,
    key: &str,
    dtype: DType,
    feeds: &mut Vec<(Output, Tensor)>,
) -> Output {
    let value = tensor_of(&c[key], dtype);
    match c.get(format!("{key}_shape")) {
        None => constant(g, value).unwrap(),
        Some(s) => {
            let p = placeholder(g, dtype, shape_of(s)).unwrap();
            feeds.push((p.clone(), value));
            p
        }
    }
}
