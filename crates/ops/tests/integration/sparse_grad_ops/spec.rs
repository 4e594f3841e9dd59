//! Tensors as the sparse gradient scripts record them (`{dtype, dims, values}`: floats as bit
//! patterns, complex numbers as [real bits, imaginary bits] pairs, strings as base64), and
//! their elements as bits for exact comparison. Shared by weir-ops' sparse_grad_ops.rs and
//! weir-train's sparse_more_grad.rs, which includes this file by path.

#![allow(dead_code)]

use serde_json::Value;
use weir_graph::{bf16, f16, Bytes, Complex, DType, Tensor};

/// The dtype a script names (`"float32"`, `"complex64"`, ...).
pub fn dtype(name: &str) -> DType {
    match name {
        "float16" => DType::F16,
        "bfloat16" => DType::BF16,
        "complex64" => DType::C64,
        "complex128" => DType::C128,
        "uint32" => DType::U32,
        "uint64" => DType::U64,
        other => DType::from_name(other).unwrap_or_else(|_| panic!("dtype {other}")),
    }
}

/// The tensor a spec describes.
pub fn tensor(spec: &Value) -> Tensor {
    let dims: Vec<usize> = spec["dims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let v = spec["values"].as_array().unwrap();
    let int = |x: &Value| x.as_i64().unwrap();
    let uint = |x: &Value| x.as_u64().unwrap();
    let pair = |x: &Value| (uint(&x[0]), uint(&x[1]));
    match dtype(spec["dtype"].as_str().unwrap()) {
        DType::F32 => Tensor::from_vec(
            &dims,
            v.iter().map(|x| f32::from_bits(uint(x) as u32)).collect(),
        ),
        DType::F64 => Tensor::from_vec(&dims, v.iter().map(|x| f64::from_bits(uint(x))).collect()),
        DType::F16 => Tensor::from_vec(
            &dims,
            v.iter().map(|x| f16::from_bits(uint(x) as u16)).collect(),
        ),
        DType::BF16 => Tensor::from_vec(
            &dims,
            v.iter().map(|x| bf16::from_bits(uint(x) as u16)).collect(),
        ),
        DType::C64 => Tensor::from_vec(
            &dims,
            v.iter()
                .map(|x| {
                    let (re, im) = pair(x);
                    Complex::new(f32::from_bits(re as u32), f32::from_bits(im as u32))
                })
                .collect(),
        ),
        DType::C128 => Tensor::from_vec(
            &dims,
            v.iter()
                .map(|x| {
                    let (re, im) = pair(x);
                    Complex::new(f64::from_bits(re), f64::from_bits(im))
                })
                .collect(),
        ),
        DType::I8 => Tensor::from_vec(&dims, v.iter().map(|x| int(x) as i8).collect()),
        DType::I16 => Tensor::from_vec(&dims, v.iter().map(|x| int(x) as i16).collect()),
        DType::I32 => Tensor::from_vec(&dims, v.iter().map(|x| int(x) as i32).collect()),
        DType::I64 => Tensor::from_vec(&dims, v.iter().map(int).collect()),
        DType::U8 => Tensor::from_vec(&dims, v.iter().map(|x| uint(x) as u8).collect()),
        DType::U16 => Tensor::from_vec(&dims, v.iter().map(|x| uint(x) as u16).collect()),
        DType::U32 => Tensor::from_vec(&dims, v.iter().map(|x| uint(x) as u32).collect()),
        DType::U64 => Tensor::from_vec(&dims, v.iter().map(uint).collect()),
        DType::Bool => Tensor::from_vec(&dims, v.iter().map(|x| x.as_bool().unwrap()).collect()),
        DType::String => Tensor::from_vec(
            &dims,
            v.iter()
                .map(|x| Bytes::from(base64(x.as_str().unwrap())))
                .collect(),
        ),
        DType::Resource => unreachable!(),
    }
    .unwrap()
}

/// Standard base64 (weir-train's tests have no base64 crate).
fn base64(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("bad base64 {c}"),
    } as u32;
    let mut out = Vec::new();
    for chunk in s.trim_end_matches('=').as_bytes().chunks(4) {
        let n = chunk.iter().fold(0u32, |acc, &c| acc << 6 | val(c)) << (6 * (4 - chunk.len()));
        out.extend(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

/// Every element's little-endian bytes (NaNs as one pattern: TensorFlow and Rust may differ
/// in a NaN's payload, not in where NaNs are).
pub fn bits(t: &Tensor) -> Vec<Vec<u8>> {
    fn le<T: weir_graph::LeBytes>(t: &Tensor) -> Vec<Vec<u8>> {
        t.as_slice::<T>()
            .unwrap()
            .iter()
            .map(|&x| {
                let mut b = Vec::with_capacity(T::SIZE);
                x.put(&mut b);
                b
            })
            .collect()
    }
    let nan = |x: f64| x.is_nan();
    match t.dtype() {
        DType::F32 if t.as_slice::<f32>().unwrap().iter().any(|x| nan(*x as f64)) => t
            .as_slice::<f32>()
            .unwrap()
            .iter()
            .map(|x| {
                if x.is_nan() {
                    vec![0xff]
                } else {
                    x.to_le_bytes().to_vec()
                }
            })
            .collect(),
        DType::F64 if t.as_slice::<f64>().unwrap().iter().any(|x| nan(*x)) => t
            .as_slice::<f64>()
            .unwrap()
            .iter()
            .map(|x| {
                if x.is_nan() {
                    vec![0xff]
                } else {
                    x.to_le_bytes().to_vec()
                }
            })
            .collect(),
        DType::String => t
            .as_slice::<Bytes>()
            .unwrap()
            .iter()
            .map(|b| b.to_vec())
            .collect(),
        dt => weir_graph::match_le_dtype!(dt, T => le::<T>(t), _ => unreachable!("{dt}")),
    }
}

/// Asserts that `got` has `want`'s dtype, shape and elements, bit for bit.
pub fn assert_same(what: &str, got: &Tensor, want: &Tensor) {
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    assert_eq!(bits(got), bits(want), "{what}: {got:?} vs {want:?}");
}

/// A recorded static shape: a list of sizes with `null` for an unknown one, or `null` for an
/// unknown rank.
pub fn static_shape(v: &Value) -> weir_graph::Shape {
    match v.as_array() {
        None => weir_graph::Shape::unknown(),
        Some(d) => weir_graph::Shape::new(
            d.iter()
                .map(|x| x.as_u64().map(|n| n as usize))
                .collect::<Vec<_>>(),
        ),
    }
}
