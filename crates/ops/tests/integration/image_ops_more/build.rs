//! The cases of tests/data/image_ops_more/expected.json (made by make_image_ops_more.py with
//! TensorFlow 2.21) built as weir graphs: shared by weir-ops' value tests (image_ops_more.rs)
//! and weir-train's gradient tests (image_ops_more_grad.rs), which includes this file by path.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{AttrValue, DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder_with_default};
use weir_ops::image::{self, CombinedNonMaxSuppression, Resize, ResizeMethod};
use weir_ops::nn::{self, MaxPoolWithArgmax, Padding};

/// Every case TensorFlow recorded.
pub fn cases() -> &'static [Value] {
    static E: OnceLock<Value> = OnceLock::new();
    E.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../ops/tests/data/image_ops_more/expected.json");
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
    let i = |x: &Value| x.as_i64().unwrap();
    match dt {
        DType::F32 => Tensor::from_vec(&shape, vals.iter().map(|x| f(x) as f32).collect()),
        DType::F64 => Tensor::from_vec(&shape, vals.iter().map(f).collect()),
        DType::I32 => Tensor::from_vec(&shape, vals.iter().map(|x| i(x) as i32).collect()),
        DType::I64 => Tensor::from_vec(&shape, vals.iter().map(i).collect()),
        DType::U8 => Tensor::from_vec(&shape, vals.iter().map(|x| i(x) as u8).collect()),
        _ => panic!("unexpected dtype {dt}"),
    }
    .unwrap()
}

/// The values of a numeric tensor as f64.
pub fn numbers(t: &Tensor) -> Vec<f64> {
    match t.dtype() {
        DType::F32 => t
            .as_slice::<f32>()
            .unwrap()
            .iter()
            .map(|&v| v as f64)
            .collect(),
        DType::F64 => t.as_slice::<f64>().unwrap().to_vec(),
        DType::I32 => t
            .as_slice::<i32>()
            .unwrap()
            .iter()
            .map(|&v| v as f64)
            .collect(),
        DType::I64 => t
            .as_slice::<i64>()
            .unwrap()
            .iter()
            .map(|&v| v as f64)
            .collect(),
        DType::U8 => t
            .as_slice::<u8>()
            .unwrap()
            .iter()
            .map(|&v| v as f64)
            .collect(),
        d => panic!("not numeric: {d}"),
    }
}

/// Compares a weir result with TensorFlow's: dtype, shape, integers exactly, floats within
/// `ulps` units in the last place of float32 (of the larger magnitude), NaN with NaN.
pub fn assert_tensor(what: &str, got: &Tensor, want: &Value, ulps: f64) {
    let want = tensor(want);
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    let (g, w) = (numbers(got), numbers(&want));
    let float = want.dtype().is_floating();
    for (k, (a, b)) in g.iter().zip(&w).enumerate() {
        let ok = if float {
            let ulp = f32::EPSILON as f64 * a.abs().max(b.abs()).max(f32::MIN_POSITIVE as f64);
            (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= ulps * ulp
        } else {
            a == b
        };
        assert!(ok, "{what}: element {k}: got {a}, TensorFlow {b}");
    }
}

/// A weir graph of one case: its outputs and its inputs by name.
pub struct Built {
    pub outputs: Vec<Output>,
    pub inputs: HashMap<String, Output>,
}

fn attr_value(a: &Value) -> AttrValue {
    let v = &a["value"];
    match a["kind"].as_str().unwrap() {
        "bool" => AttrValue::Bool(v.as_bool().unwrap()),
        "int" => AttrValue::Int(v.as_i64().unwrap()),
        "float" => AttrValue::Float(v.as_f64().unwrap() as f32),
        "string" => AttrValue::Str(v.as_str().unwrap().to_string()),
        "type" => AttrValue::Type(DType::from_name(v.as_str().unwrap()).unwrap()),
        "ints" => AttrValue::Ints(
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_i64().unwrap())
                .collect(),
        ),
        "floats" => AttrValue::Floats(
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect(),
        ),
        k => panic!("attr kind {k}"),
    }
}

fn quad(case: &Value, name: &str) -> [i64; 4] {
    let v: Vec<i64> = case["attrs"][name]["value"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect();
    v.try_into().unwrap()
}

/// Builds `case` in `g`. Inputs named in `grad` become placeholders with defaults (what
/// gradients are taken with respect to); with the case's `dynamic`, all inputs have unknown
/// shapes, so the kernels, not the shape functions, see them.
pub fn build(g: &Graph, case: &Value, grad: &[&str]) -> Result<Built> {
    weir_ops::register_all_ops();
    let dynamic = case["dynamic"].as_bool().unwrap_or(false);
    let mut inputs = HashMap::new();
    let mut order = Vec::new();
    for pair in case["inputs"].as_array().unwrap() {
        let name = pair[0].as_str().unwrap().to_string();
        let c = constant(g, tensor(&pair[1]))?;
        let o = if dynamic {
            placeholder_with_default(&c, Shape::unknown())?
        } else if grad.contains(&name.as_str()) {
            let s = c.shape();
            placeholder_with_default(&c, s)?
        } else {
            c
        };
        order.push(o.clone());
        inputs.insert(name, o);
    }
    let attrs = &case["attrs"];
    let a_f32 = |n: &str, d: f32| attrs[n]["value"].as_f64().map_or(d, |v| v as f32);
    let a_i64 = |n: &str| attrs[n]["value"].as_i64().unwrap();
    let a_bool = |n: &str, d: bool| attrs[n]["value"].as_bool().unwrap_or(d);
    let inp = |n: &str| inputs[n].clone();
    let op = case["op"].as_str().unwrap();
    let outputs: Vec<Output> = match op.strip_prefix("fn:") {
        None => {
            let mut b = g.new_operation(op).inputs(order);
            for (k, v) in attrs.as_object().unwrap() {
                b = b.attr(k, attr_value(v));
            }
            let node = b.build()?;
            (0..node.num_outputs())
                .map(|i| node.output(i))
                .collect::<Result<_>>()?
        }
        Some(f) if f.starts_with("resize_") => {
            let method = if f.ends_with("bicubic") {
                ResizeMethod::Bicubic
            } else {
                ResizeMethod::Area
            };
            let r = Resize::new(inp("size")).method(method);
            let r = if f.starts_with("resize_v1") {
                r.half_pixel_centers(false)
                    .align_corners(a_bool("align_corners", false))
            } else {
                r
            };
            vec![r.build(inp("images"))?]
        }
        Some("non_max_suppression_overlaps") => vec![image::non_max_suppression_overlaps(
            inp("overlaps"),
            inp("scores"),
            a_i64("max_output_size"),
            a_f32("overlap_threshold", 0.5),
            a_f32("score_threshold", f32::NEG_INFINITY),
        )?],
        Some("non_max_suppression_padded") => {
            let (i, n) = image::non_max_suppression_padded(
                inp("boxes"),
                inp("scores"),
                a_i64("max_output_size"),
                a_f32("iou_threshold", 0.5),
                a_f32("score_threshold", f32::NEG_INFINITY),
                a_bool("pad_to_max_output_size", false),
            )?;
            vec![i, n]
        }
        Some("non_max_suppression_with_scores") => {
            let (i, s) = image::non_max_suppression_with_scores(
                inp("boxes"),
                inp("scores"),
                a_i64("max_output_size"),
                a_f32("iou_threshold", 0.5),
                a_f32("score_threshold", f32::NEG_INFINITY),
                a_f32("soft_nms_sigma", 0.0),
            )?;
            vec![i, s]
        }
        Some("combined_non_max_suppression") => {
            let (b, s, c, n) = CombinedNonMaxSuppression::new(
                a_i64("max_output_size_per_class"),
                a_i64("max_total_size"),
            )
            .iou_threshold(a_f32("iou_threshold", 0.5))
            .score_threshold(a_f32("score_threshold", f32::NEG_INFINITY))
            .pad_per_class(a_bool("pad_per_class", false))
            .clip_boxes(a_bool("clip_boxes", true))
            .build(inp("boxes"), inp("scores"))?;
            vec![b, s, c, n]
        }
        Some("max_pool_with_argmax") => {
            let pad = Padding::parse(attrs["padding"]["value"].as_str().unwrap())?;
            let (y, at) = MaxPoolWithArgmax::new(quad(case, "ksize"), quad(case, "strides"), pad)
                .build(inp("input"))?;
            vec![y, at]
        }
        Some("erosion2d") => {
            let pad = Padding::parse(attrs["padding"]["value"].as_str().unwrap())?;
            vec![nn::erosion2d(
                inp("value"),
                inp("kernel"),
                quad(case, "strides"),
                quad(case, "rates"),
                pad,
            )?]
        }
        Some(f) => panic!("unknown function {f}"),
    };
    Ok(Built { outputs, inputs })
}
