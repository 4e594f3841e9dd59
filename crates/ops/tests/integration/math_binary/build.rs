//! The cases of tests/data/math_binary/expected.json (made by make_math_binary.py with
//! TensorFlow 2.21) built as weir graphs: shared by weir-ops' value tests (math_binary.rs) and
//! weir-train's gradient tests (math_binary_grad.rs), which includes this file by path.

#![allow(dead_code)]

use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder_with_default};
use weir_ops::{bitwise, math};

/// Every case TensorFlow recorded.
pub fn cases() -> &'static [Value] {
    static E: OnceLock<Value> = OnceLock::new();
    E.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../ops/tests/data/math_binary/expected.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    })["cases"]
        .as_array()
        .unwrap()
}

/// A recorded tensor (floats as their bit patterns, so NaN, infinities and -0 survive).
pub fn tensor(v: &Value) -> Tensor {
    let dt = DType::from_name(v["dtype"].as_str().unwrap()).unwrap();
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let vals = v["values"].as_array().unwrap();
    let u = |x: &Value| x.as_u64().unwrap();
    let i = |x: &Value| x.as_i64().unwrap();
    match dt {
        DType::F32 => Tensor::from_vec(
            &shape,
            vals.iter().map(|x| f32::from_bits(u(x) as u32)).collect(),
        ),
        DType::F64 => Tensor::from_vec(&shape, vals.iter().map(|x| f64::from_bits(u(x))).collect()),
        DType::I8 => Tensor::from_vec(&shape, vals.iter().map(|x| i(x) as i8).collect()),
        DType::I16 => Tensor::from_vec(&shape, vals.iter().map(|x| i(x) as i16).collect()),
        DType::I32 => Tensor::from_vec(&shape, vals.iter().map(|x| i(x) as i32).collect()),
        DType::I64 => Tensor::from_vec(&shape, vals.iter().map(i).collect()),
        DType::U8 => Tensor::from_vec(&shape, vals.iter().map(|x| u(x) as u8).collect()),
        DType::U16 => Tensor::from_vec(&shape, vals.iter().map(|x| u(x) as u16).collect()),
        DType::Bool => {
            Tensor::from_vec(&shape, vals.iter().map(|x| x.as_bool().unwrap()).collect())
        }
        _ => panic!("unexpected dtype {dt}"),
    }
    .unwrap()
}

/// A static shape as recorded: `null` for an unknown rank, else sizes with `null` unknown.
pub fn static_shape(v: &Value) -> Shape {
    match v {
        Value::Null => Shape::unknown(),
        v => Shape::new(
            v.as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().map(|n| n as usize))
                .collect::<Vec<_>>(),
        ),
    }
}

/// A case's graph: its inputs (constants; placeholders of unknown shape for `dynamic` cases,
/// of the recorded partial `shapes`, or of the value's shape with `placeholders`, for
/// gradients) and its output.
pub struct Built {
    pub inputs: Vec<Output>,
    pub output: Output,
}

pub fn build(g: &Graph, case: &Value, placeholders: bool) -> Result<Built> {
    let dynamic = case["dynamic"].as_bool().unwrap();
    let mut inputs = Vec::new();
    for (k, v) in case["inputs"].as_array().unwrap().iter().enumerate() {
        let t = tensor(v);
        let shape = Shape::known(t.shape());
        let c = constant(g, t)?;
        inputs.push(if let Some(shapes) = case.get("shapes") {
            placeholder_with_default(c, static_shape(&shapes[k]))?
        } else if dynamic {
            placeholder_with_default(c, Shape::unknown())?
        } else if placeholders {
            placeholder_with_default(c, shape)?
        } else {
            c
        });
    }
    let i = |k: usize| inputs[k].clone();
    let output = match case["op"].as_str().unwrap() {
        "Atan2" => math::atan2(i(0), i(1)),
        "Xlogy" => math::xlogy(i(0), i(1)),
        "Xdivy" => math::xdivy(i(0), i(1)),
        "Xlog1py" => math::xlog1py(i(0), i(1)),
        "MulNoNan" => math::mul_no_nan(i(0), i(1)),
        "Mod" => math::c_mod(i(0), i(1)),
        "NextAfter" => math::nextafter(i(0), i(1)),
        "ApproximateEqual" => match case["attrs"].get("tolerance") {
            Some(t) => math::ApproximateEqual::new()
                .tolerance(t.as_f64().unwrap() as f32)
                .build(i(0), i(1)),
            None => math::approximate_equal(i(0), i(1)),
        },
        "Igamma" => math::igamma(i(0), i(1)),
        "Igammac" => math::igammac(i(0), i(1)),
        "IgammaGradA" => math::igamma_grad_a(i(0), i(1)),
        "Betainc" => math::betainc(i(0), i(1), i(2)),
        "BitwiseAnd" => bitwise::bitwise_and(i(0), i(1)),
        "BitwiseOr" => bitwise::bitwise_or(i(0), i(1)),
        "BitwiseXor" => bitwise::bitwise_xor(i(0), i(1)),
        "LeftShift" => bitwise::left_shift(i(0), i(1)),
        "RightShift" => bitwise::right_shift(i(0), i(1)),
        "Invert" => bitwise::invert(i(0)),
        "PopulationCount" => bitwise::population_count(i(0)),
        other => panic!("unknown op {other}"),
    }?;
    Ok(Built { inputs, output })
}

/// How far weir's floats may be from TensorFlow's in `case`, as `(relative, absolute)`.
///
/// The elementary ops are the same IEEE operations on both sides except for `atan2`, `log` and
/// `log1p`, which TensorFlow takes from Eigen's vectorized approximations and weir from the
/// platform's libm: both within an ulp or so of exact, so 4 ulp.
///
/// The special functions run Eigen's Cephes iterations step for step in the element type, but
/// `lgamma` (in the `x^a e^-x / Γ(a)` and `x^a (1-x)^b / B(a, b)` prefactors, computed as
/// exponentials of sums of logs) is a different implementation. An ulp of difference in a term
/// of size `~a ln a` moves the result by `eps * a ln a` relative, so the tolerance grows with
/// the largest argument (see [`argument_scale`]): for arguments up to ~10, 5e-14 in float64
/// (2.4e-14 seen) and 2e-6 in float32 (14 ulp seen); with a = 200, b = 300 in float32 an ulp
/// of `lgamma(500)` alone is 2.4e-4 of the result. Neither side is exact there: against mpmath, weir's float64 values
/// are as close as TensorFlow's or closer (the unit tests of `incomplete` check some). And
/// TensorFlow flushes subnormal intermediates to zero, which changes results that are
/// themselves near underflow (below 1e-30 in float32, 1e-300 in float64): those compare
/// absolutely.
pub fn tolerance(case: &Value, dtype: DType) -> (f64, f64) {
    let op = case["op"].as_str().unwrap();
    let special = matches!(op, "Igamma" | "Igammac" | "IgammaGradA" | "Betainc");
    let scale = if special { argument_scale(case) } else { 1.0 };
    match (special, dtype) {
        (false, DType::F32) => (4.0 * f64::from(f32::EPSILON), 1e-38),
        (false, _) => (4.0 * f64::EPSILON, 1e-300),
        (true, DType::F32) => (2e-6 * scale, 1e-30),
        (true, _) => (5e-14 * scale, 1e-300),
    }
}

/// `max(1, m ln(m) / 10)` for `m` the largest finite float input of `case`: the size of the
/// `lgamma` terms relative to those of arguments up to 10.
fn argument_scale(case: &Value) -> f64 {
    let mut m = 1.0f64;
    for v in case["inputs"].as_array().unwrap() {
        let t = tensor(v);
        if t.dtype().is_floating() {
            for x in numbers(&t) {
                if x.is_finite() {
                    m = m.max(x.abs());
                }
            }
        }
    }
    (m * m.ln() / 10.0).max(1.0)
}

fn numbers(t: &Tensor) -> Vec<f64> {
    match t.dtype() {
        DType::F32 => t
            .as_slice::<f32>()
            .unwrap()
            .iter()
            .map(|&v| f64::from(v))
            .collect(),
        DType::F64 => t.to_vec::<f64>().unwrap(),
        dt => panic!("not a float tensor: {dt}"),
    }
}

/// Compares a weir tensor with a recorded one: dtype and shape exactly, integers and bools
/// exactly, floats within `tol` (NaN matching NaN, infinities exactly).
pub fn assert_tensor(what: &str, got: &Tensor, want: &Value, tol: (f64, f64)) {
    let want = tensor(want);
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    if !want.dtype().is_floating() {
        assert!(got == &want, "{what}: got {got:?}, TensorFlow {want:?}");
        return;
    }
    let (g, w) = (numbers(got), numbers(&want));
    for (k, (a, b)) in g.iter().zip(&w).enumerate() {
        let ok = if b.is_nan() {
            a.is_nan()
        } else if b.is_infinite() {
            a == b
        } else {
            (a - b).abs() <= tol.0 * b.abs() + tol.1
        };
        assert!(
            ok,
            "{what}: element {k}: got {a:e}, TensorFlow {b:e}\n  got {g:?}\n  want {w:?}"
        );
    }
}
