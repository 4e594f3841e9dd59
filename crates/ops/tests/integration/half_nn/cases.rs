//! The cases of tests/data/half_nn/expected.json (made by make_half_nn.py with TensorFlow
//! 2.21) read back: shared by weir-ops' value tests (half_nn.rs) and weir-train's gradient
//! tests (half_nn_grad.rs), which includes this file by path.

#![allow(dead_code)]

use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{bf16, f16, DType, Graph, Operation, Result, Tensor};
use weir_ops::array::constant;

/// Every case TensorFlow recorded.
pub fn cases() -> &'static [Value] {
    static E: OnceLock<Value> = OnceLock::new();
    E.get_or_init(|| {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../ops/tests/data/half_nn/expected.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    })["cases"]
        .as_array()
        .unwrap()
}

/// A recorded tensor: half types from their bit patterns, others from their values.
pub fn tensor(v: &Value) -> Tensor {
    let dt = DType::from_name(v["dtype"].as_str().unwrap()).unwrap();
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    if let Some(bits) = v.get("bits") {
        let bits = bits
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_u64().unwrap() as u16);
        return match dt {
            DType::F16 => Tensor::from_vec(&shape, bits.map(f16::from_bits).collect()),
            _ => Tensor::from_vec(&shape, bits.map(bf16::from_bits).collect()),
        }
        .unwrap();
    }
    let vals = v["values"].as_array().unwrap();
    match dt {
        DType::F32 => Tensor::from_vec(
            &shape,
            vals.iter().map(|x| x.as_f64().unwrap() as f32).collect(),
        ),
        DType::I32 => Tensor::from_vec(
            &shape,
            vals.iter().map(|x| x.as_i64().unwrap() as i32).collect(),
        ),
        DType::I64 => Tensor::from_vec(&shape, vals.iter().map(|x| x.as_i64().unwrap()).collect()),
        other => panic!("no recorded tensors of {other}"),
    }
    .unwrap()
}

/// A half tensor's bit patterns mapped onto a line where adjacent values differ by one, so
/// the distance of two is their distance in ulp (+0 and -0 both at 0).
fn ordered(bits: u16) -> i32 {
    if bits & 0x8000 != 0 {
        -((bits & 0x7fff) as i32)
    } else {
        bits as i32
    }
}

fn half_bits(t: &Tensor) -> Vec<u16> {
    match t.dtype() {
        DType::F16 => t
            .to_vec::<f16>()
            .unwrap()
            .iter()
            .map(|v| v.to_bits())
            .collect(),
        DType::BF16 => t
            .to_vec::<bf16>()
            .unwrap()
            .iter()
            .map(|v| v.to_bits())
            .collect(),
        other => panic!("not a half tensor: {other}"),
    }
}

/// Asserts `got` equals the recorded `want`: dtype and shape exactly, half values within
/// `ulp` units in the last place (0: bit for bit, NaNs matching any NaN), others exactly.
pub fn assert_tensor(name: &str, got: &Tensor, want: &Value, ulp: i32) {
    let w = tensor(want);
    assert_eq!(got.dtype(), w.dtype(), "{name}: dtype");
    assert_eq!(got.shape(), w.shape(), "{name}: shape");
    if want.get("bits").is_some() {
        let (g, e) = (half_bits(got), half_bits(&w));
        let is_nan = |b: u16, dt: DType| match dt {
            DType::F16 => f16::from_bits(b).is_nan(),
            _ => bf16::from_bits(b).is_nan(),
        };
        for (i, (&a, &b)) in g.iter().zip(&e).enumerate() {
            if is_nan(a, w.dtype()) && is_nan(b, w.dtype()) {
                continue;
            }
            let d = (ordered(a) - ordered(b)).abs();
            assert!(
                d <= ulp,
                "{name}: element {i}: got {a:#06x}, TensorFlow {b:#06x} ({d} ulp apart, {ulp} allowed)"
            );
        }
    } else {
        assert_eq!(format!("{got:?}"), format!("{w:?}"), "{name}");
    }
}

/// Asserts `got` is within `k * eps * max|want|` of the recorded half tensor `want`, element
/// by element (eps 2^-11 for float16, 2^-8 for bfloat16): for kernels TensorFlow accumulates
/// in the half type in an order weir does not reproduce (weir adds in f32 and rounds once).
pub fn assert_scaled(name: &str, got: &Tensor, want: &Value, k: f32) {
    let w = tensor(want);
    assert_eq!(got.dtype(), w.dtype(), "{name}: dtype");
    assert_eq!(got.shape(), w.shape(), "{name}: shape");
    let wide = |t: &Tensor| -> Vec<f32> {
        match t.dtype() {
            DType::F16 => t
                .to_vec::<f16>()
                .unwrap()
                .iter()
                .map(|v| v.to_f32())
                .collect(),
            _ => t
                .to_vec::<bf16>()
                .unwrap()
                .iter()
                .map(|v| v.to_f32())
                .collect(),
        }
    };
    let eps = if w.dtype() == DType::F16 {
        2f32.powi(-11)
    } else {
        2f32.powi(-8)
    };
    let (g, e) = (wide(got), wide(&w));
    let tol = k * eps * e.iter().fold(0f32, |m, v| m.max(v.abs()));
    for (i, (a, b)) in g.iter().zip(&e).enumerate() {
        assert!(
            (a - b).abs() <= tol,
            "{name}: element {i}: got {a}, TensorFlow {b} (tolerance {tol})"
        );
    }
}

/// Builds `op` with the case's recorded inputs (as constants) and attrs.
pub fn build_raw(g: &Graph, op: &str, inputs: &[Value], attrs: &Value) -> Result<Operation> {
    let mut b = g.new_operation(op);
    for v in inputs {
        b = b.input(constant(g, tensor(v))?);
    }
    b = with_attrs(b, attrs);
    b.build()
}

/// Sets the recorded attrs (`{"i"|"f"|"s"|"b"|"ints"|"type": value}` each) on `b`.
pub fn with_attrs(mut b: weir_graph::OpBuilder, attrs: &Value) -> weir_graph::OpBuilder {
    for (k, v) in attrs.as_object().unwrap() {
        let (kind, x) = v.as_object().unwrap().iter().next().unwrap();
        b = match kind.as_str() {
            "i" => b.attr(k, x.as_i64().unwrap()),
            "f" => b.attr(k, x.as_f64().unwrap() as f32),
            "s" => b.attr(k, x.as_str().unwrap()),
            "b" => b.attr(k, x.as_bool().unwrap()),
            "ints" => b.attr(
                k,
                x.as_array()
                    .unwrap()
                    .iter()
                    .map(|i| i.as_i64().unwrap())
                    .collect::<Vec<i64>>(),
            ),
            "type" => b.attr(k, DType::from_name(x.as_str().unwrap()).unwrap()),
            other => panic!("unknown attr kind {other}"),
        };
    }
    b
}
