//! The cases of tests/data/nn3d/expected.json (made by make_nn3d.py with TensorFlow 2.21) built
//! as weir graphs: shared by weir-ops' value tests (nn3d.rs) and weir-train's gradient tests
//! (nn3d_grad.rs), which includes this file by path.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{bf16, f16, DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder_with_default};
use weir_ops::nn::{self, Conv3D, Padding, Pool3D};

/// Every case TensorFlow recorded.
pub fn cases() -> &'static [Value] {
    static E: OnceLock<Value> = OnceLock::new();
    E.get_or_init(|| {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../ops/tests/data/nn3d/expected.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    })["cases"]
        .as_array()
        .unwrap()
}

fn float(x: &Value) -> f64 {
    match x {
        Value::String(s) => s.parse::<f64>().unwrap_or(f64::NAN),
        x => x.as_f64().unwrap(),
    }
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
    let vals = v["values"].as_array().unwrap().iter();
    match dt {
        DType::F16 => Tensor::from_vec(&shape, vals.map(|x| f16::from_f64(float(x))).collect()),
        DType::BF16 => Tensor::from_vec(&shape, vals.map(|x| bf16::from_f64(float(x))).collect()),
        DType::F32 => Tensor::from_vec(&shape, vals.map(|x| float(x) as f32).collect()),
        DType::F64 => Tensor::from_vec(&shape, vals.map(float).collect()),
        DType::I32 => Tensor::from_vec(&shape, vals.map(|x| x.as_i64().unwrap() as i32).collect()),
        DType::I64 => Tensor::from_vec(&shape, vals.map(|x| x.as_i64().unwrap()).collect()),
        _ => panic!("unexpected dtype {dt}"),
    }
    .unwrap()
}

/// A float tensor's values as f64.
pub fn numbers(t: &Tensor) -> Vec<f64> {
    match t.dtype() {
        DType::F16 => t
            .as_slice::<f16>()
            .unwrap()
            .iter()
            .map(|v| v.to_f64())
            .collect(),
        DType::BF16 => t
            .as_slice::<bf16>()
            .unwrap()
            .iter()
            .map(|v| v.to_f64())
            .collect(),
        DType::F32 => t
            .as_slice::<f32>()
            .unwrap()
            .iter()
            .map(|&v| v as f64)
            .collect(),
        _ => t.to_vec::<f64>().unwrap(),
    }
}

/// Half the distance from 1 to the next value of `dtype`: the relative rounding error of one
/// operation.
fn eps(dtype: DType) -> f64 {
    match dtype {
        DType::F16 => 2f64.powi(-11),
        DType::BF16 => 2f64.powi(-8),
        DType::F32 => 2f64.powi(-24),
        _ => 2f64.powi(-53),
    }
}

/// `got` against TensorFlow's `want` elementwise: bit for bit when `exact`, otherwise within
/// `8 * eps * scale`, `scale` being the sum of the absolute values of the terms behind each
/// element (the op on |inputs|). Both sides sum the same terms in different orders
/// (TensorFlow's Eigen contractions block and vectorize their sums; weir multiplies patch
/// matrices with ndarray's gemm), so each may carry about `n * eps * scale` of rounding error,
/// n the depth of the summation tree: the worst seen here is 4.2 (a float32 input backprop).
/// Half-type input backprops accumulate in f32 and round once where TensorFlow rounds after
/// every step: within 1.7 `eps(half) * scale`.
pub fn assert_close(what: &str, got: &Tensor, want: &Value, scale: &Value, exact: bool) {
    let want = tensor(want);
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    let (g, w, s) = (numbers(got), numbers(&want), numbers(&tensor(scale)));
    let e = if exact { 0.0 } else { eps(want.dtype()) };
    for (i, ((a, b), s)) in g.iter().zip(&w).zip(&s).enumerate() {
        let ok = a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= 8.0 * e * s.abs();
        assert!(
            ok,
            "{what}: element {i}: got {a}, TensorFlow {b} (scale {s})"
        );
    }
}

/// The graph of one case.
pub struct Built {
    /// The inputs by name: placeholders with the recorded values as defaults.
    pub inputs: HashMap<String, Output>,
    /// The op's output.
    pub output: Output,
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

fn five(v: &[i64]) -> Option<[i64; 5]> {
    v.try_into().ok()
}

/// Builds `case`'s op on placeholders holding its inputs (of unknown dims when `dynamic`),
/// through weir's builders where the attributes fit them, as raw nodes otherwise.
pub fn build(g: &Graph, case: &Value) -> Result<Built> {
    let dynamic = case["dynamic"].as_bool().unwrap_or(false);
    let mut inputs = HashMap::new();
    let mut args = Vec::new();
    for pair in case["inputs"].as_array().unwrap() {
        let name = pair[0].as_str().unwrap();
        let t = tensor(&pair[1]);
        let shape = if dynamic {
            Shape::unknown_of_rank(t.rank())
        } else {
            Shape::known(t.shape())
        };
        let p = placeholder_with_default(constant(g, t)?, shape)?;
        inputs.insert(name.to_string(), p.clone());
        args.push(p);
    }
    let op = case["op"].as_str().unwrap();
    let attrs = &case["attrs"];
    let strides = ints(&attrs["strides"]);
    let padding = Padding::parse(attrs["padding"].as_str().unwrap())?;
    let format = attrs["data_format"].as_str();
    let dilations = attrs.get("dilations").map(ints);
    let ksize = attrs.get("ksize").map(ints);
    let output = match (five(&strides), op) {
        (Some(s), "Conv3D" | "Conv3DBackpropInputV2" | "Conv3DBackpropFilterV2")
            if dilations.as_deref().is_none_or(|d| d.len() == 5) =>
        {
            let mut c = Conv3D::new(s, padding);
            if let Some(f) = format {
                c = c.data_format(f);
            }
            if let Some(d) = dilations.as_deref().and_then(five) {
                c = c.dilations(d);
            }
            match op {
                "Conv3D" => c.build(&args[0], &args[1])?,
                "Conv3DBackpropInputV2" => c.build_backprop_input(&args[0], &args[1], &args[2])?,
                _ => c.build_backprop_filter(&args[0], &args[1], &args[2])?,
            }
        }
        (Some(s), "conv3d_transpose") => {
            nn::conv3d_transpose(&args[0], &args[1], args[2].clone(), s, padding)?
        }
        (Some(s), _) if ksize.as_deref().and_then(five).is_some() => {
            let mut p = Pool3D::new(five(ksize.as_deref().unwrap()).unwrap(), s, padding);
            if let Some(f) = format {
                p = p.data_format(f);
            }
            match op {
                "MaxPool3D" => p.max_pool(&args[0])?,
                "AvgPool3D" => p.avg_pool(&args[0])?,
                "MaxPool3DGrad" => p.max_pool_grad(&args[0], &args[1], &args[2])?,
                "AvgPool3DGrad" => p.avg_pool_grad(&args[0], &args[1])?,
                _ => p.max_pool_grad_grad(&args[0], &args[1], &args[2])?,
            }
        }
        _ => {
            let mut b = g.new_operation(op);
            for a in &args {
                b = b.input(a);
            }
            for (k, v) in attrs.as_object().unwrap() {
                b = match v {
                    Value::String(s) => b.attr(k, s.as_str()),
                    v => b.attr(k, ints(v)),
                };
            }
            b.build()?.output(0)?
        }
    };
    Ok(Built { inputs, output })
}
