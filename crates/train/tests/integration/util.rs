//! Helpers shared by the test modules that compare values with TensorFlow's JSON.

use serde_json::Value;
use weir_graph::{DType, Tensor};

/// A float32 or int64 tensor's values as f64.
pub fn f64s(t: &Tensor) -> Vec<f64> {
    match t.dtype() {
        DType::F32 => t
            .to_vec::<f32>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect(),
        DType::I64 => t
            .to_vec::<i64>()
            .unwrap()
            .into_iter()
            .map(|x| x as f64)
            .collect(),
        d => panic!("unexpected dtype {d}"),
    }
}

/// The numbers of a (nested) JSON array, flattened row-major.
pub fn flat(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(items) => items.iter().flat_map(flat).collect(),
        Value::Number(n) => vec![n.as_f64().unwrap()],
        other => panic!("not a number: {other}"),
    }
}

/// Float32 values recorded as the hexadecimal strings of their bits, so JSON keeps them exact.
pub fn f32_bits(v: &Value) -> Vec<f32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|h| f32::from_bits(u32::from_str_radix(h.as_str().unwrap(), 16).unwrap()))
        .collect()
}
