//! Reading and comparing the bit-exact tensors of tests/data/binary_dtypes/expected.json;
//! shared with weir-train's gradient tests, which include this file by path.

#![allow(dead_code)]

use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{bf16, f16, Complex, DType, Tensor};

/// Every case TensorFlow recorded.
pub fn cases() -> &'static [Value] {
    static E: OnceLock<Value> = OnceLock::new();
    E.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../ops/tests/data/binary_dtypes/expected.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    })["cases"]
        .as_array()
        .unwrap()
}

fn bits(v: &Value) -> u64 {
    v.as_u64().unwrap()
}

/// A recorded tensor (floats as bit patterns, complex as pairs of them).
pub fn tensor(v: &Value) -> Tensor {
    let dt = DType::from_name(v["dtype"].as_str().unwrap()).unwrap();
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let vals = v["values"].as_array().unwrap();
    let pair = |x: &Value| (bits(&x[0]), bits(&x[1]));
    match dt {
        DType::F16 => Tensor::from_vec(
            &shape,
            vals.iter()
                .map(|x| f16::from_bits(bits(x) as u16))
                .collect(),
        ),
        DType::BF16 => Tensor::from_vec(
            &shape,
            vals.iter()
                .map(|x| bf16::from_bits(bits(x) as u16))
                .collect(),
        ),
        DType::F32 => Tensor::from_vec(
            &shape,
            vals.iter()
                .map(|x| f32::from_bits(bits(x) as u32))
                .collect(),
        ),
        DType::F64 => Tensor::from_vec(
            &shape,
            vals.iter().map(|x| f64::from_bits(bits(x))).collect(),
        ),
        DType::C64 => Tensor::from_vec(
            &shape,
            vals.iter()
                .map(|x| {
                    let (r, i) = pair(x);
                    Complex::new(f32::from_bits(r as u32), f32::from_bits(i as u32))
                })
                .collect(),
        ),
        DType::C128 => Tensor::from_vec(
            &shape,
            vals.iter()
                .map(|x| {
                    let (r, i) = pair(x);
                    Complex::new(f64::from_bits(r), f64::from_bits(i))
                })
                .collect(),
        ),
        DType::Bool => {
            Tensor::from_vec(&shape, vals.iter().map(|x| x.as_bool().unwrap()).collect())
        }
        // Integers as JSON numbers (uint64 ones above i64::MAX as u64), recorded in range.
        _ => weir_graph::match_real_dtype!(dt, T => Tensor::from_vec(
            &shape,
            vals.iter()
                .map(|x| match (x.as_i64(), x.as_u64()) {
                    (Some(v), _) => v as T,
                    (None, Some(v)) => v as T,
                    _ => panic!("{x} is not a {dt}"),
                })
                .collect(),
        ), _ => panic!("unexpected dtype {dt}")),
    }
    .unwrap()
}

/// The elements of a float, half or complex tensor as f64 components (two per complex
/// element), with the type's epsilon; `None` for other types.
pub fn components(t: &Tensor) -> Option<(Vec<f64>, f64)> {
    Some(match t.dtype() {
        DType::F16 => (
            t.as_slice::<f16>()
                .unwrap()
                .iter()
                .map(|v| f64::from(v.to_f32()))
                .collect(),
            2f64.powi(-10),
        ),
        DType::BF16 => (
            t.as_slice::<bf16>()
                .unwrap()
                .iter()
                .map(|v| f64::from(v.to_f32()))
                .collect(),
            2f64.powi(-7),
        ),
        DType::F32 => (
            t.as_slice::<f32>()
                .unwrap()
                .iter()
                .map(|&v| f64::from(v))
                .collect(),
            2f64.powi(-23),
        ),
        DType::F64 => (t.as_slice::<f64>().unwrap().to_vec(), 2f64.powi(-52)),
        DType::C64 => (
            t.as_slice::<Complex<f32>>()
                .unwrap()
                .iter()
                .flat_map(|c| [f64::from(c.re), f64::from(c.im)])
                .collect(),
            2f64.powi(-23),
        ),
        DType::C128 => (
            t.as_slice::<Complex<f64>>()
                .unwrap()
                .iter()
                .flat_map(|c| [c.re, c.im])
                .collect(),
            2f64.powi(-52),
        ),
        _ => return None,
    })
}

/// Asserts `got` equals the recorded tensor: same dtype and shape, and elements bit for bit
/// (any NaN matching any NaN), or within `ulps` units of the type's epsilon relative to the
/// largest recorded magnitude (cancellation in a sum is judged against its terms' scale).
pub fn compare(name: &str, got: &Tensor, want: &Value, ulps: f64) {
    if let Err(e) = check(name, got, want, ulps) {
        panic!("{e}");
    }
}

/// [`compare`], reporting the first difference.
pub fn check(name: &str, got: &Tensor, want: &Value, ulps: f64) -> Result<(), String> {
    let want = tensor(want);
    if (got.dtype(), got.shape()) != (want.dtype(), want.shape()) {
        return Err(format!(
            "{name}: {} {:?} vs TensorFlow's {} {:?}",
            got.dtype(),
            got.shape(),
            want.dtype(),
            want.shape()
        ));
    }
    let Some((g, eps)) = components(got) else {
        let dt = got.dtype();
        let same = match dt {
            DType::Bool => got.to_vec::<bool>().unwrap() == want.to_vec::<bool>().unwrap(),
            _ => weir_graph::match_real_dtype!(dt,
                T => got.to_vec::<T>().unwrap() == want.to_vec::<T>().unwrap(),
                _ => return Err(format!("{name}: unexpected dtype {dt}"))),
        };
        return if same {
            Ok(())
        } else {
            Err(format!("{name}: {got:?} vs TensorFlow's {want:?}"))
        };
    };
    let (w, _) = components(&want).unwrap();
    let scale = w
        .iter()
        .filter(|v| v.is_finite())
        .fold(0f64, |m, v| m.max(v.abs()));
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        let ok = if a.is_nan() || b.is_nan() {
            a.is_nan() && b.is_nan()
        } else if ulps == 0.0 || !b.is_finite() {
            a == b && a.is_sign_negative() == b.is_sign_negative()
        } else {
            (a - b).abs() <= ulps * eps * scale
        };
        if !ok {
            return Err(format!(
                "{name}: component {i} of {}: weir {a:e}, TensorFlow {b:e}",
                g.len()
            ));
        }
    }
    Ok(())
}
