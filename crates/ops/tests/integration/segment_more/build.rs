//! The cases of tests/data/segment_more/expected.json (made by make_segment_more.py with
//! TensorFlow 2.21) built as weir graphs: shared by weir-ops' value tests (segment_more.rs) and
//! weir-train's gradient tests (segment_more_grad.rs), which includes this file by path.

#![allow(dead_code)]

use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{Bytes, DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder, placeholder_with_default};
use weir_ops::math::{unsorted_segment_max, unsorted_segment_min, unsorted_segment_prod};
use weir_ops::string::unsorted_segment_join;

/// Every case TensorFlow recorded.
pub fn cases() -> &'static [Value] {
    static E: OnceLock<Value> = OnceLock::new();
    E.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../ops/tests/data/segment_more/expected.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    })["cases"]
        .as_array()
        .unwrap()
}

/// A recorded tensor (non-finite floats are recorded as strings such as "inf").
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

/// `num_segments` as recorded: a scalar, or a vector for the cases checking that it must not
/// be one.
fn num_segments(v: &Value) -> Tensor {
    let dt = DType::from_name(v["dtype"].as_str().unwrap()).unwrap();
    let vals: Vec<i64> = match &v["value"] {
        Value::Array(a) => a.iter().map(|x| x.as_i64().unwrap()).collect(),
        x => vec![x.as_i64().unwrap()],
    };
    let shape: &[usize] = if v["value"].is_array() {
        &[vals.len()]
    } else {
        &[]
    };
    match dt {
        DType::I32 => Tensor::from_vec(shape, vals.iter().map(|&x| x as i32).collect()),
        _ => Tensor::from_vec(shape, vals),
    }
    .unwrap()
}

/// A built case: the data input (a placeholder with a default for differentiable cases), the
/// output, and what to feed.
pub struct Built {
    pub data: Output,
    pub output: Output,
    pub feeds: Vec<(Output, Tensor)>,
}

/// Builds `case`. Fed cases use placeholders of unknown shape, so the kernel's checks run
/// instead of the shape function's, as in the TensorFlow script.
pub fn build(g: &Graph, case: &Value) -> Result<Built> {
    let data_v = tensor(&case["data"]);
    let ids_v = tensor(&case["ids"]);
    let num_v = num_segments(&case["num_segments"]);
    let mut feeds = Vec::new();
    let (data, ids, num) = if case["feed"].as_bool().unwrap() {
        let mut fed = |t: Tensor| -> Result<Output> {
            let p = placeholder(g, t.dtype(), Shape::unknown())?;
            feeds.push((p.clone(), t));
            Ok(p)
        };
        (fed(data_v)?, fed(ids_v)?, fed(num_v)?)
    } else {
        let shape = Shape::known(data_v.shape());
        (
            placeholder_with_default(constant(g, data_v)?, shape)?,
            constant(g, ids_v)?,
            constant(g, num_v)?,
        )
    };
    let output = match case["op"].as_str().unwrap() {
        "max" => unsorted_segment_max(&data, ids, num)?,
        "min" => unsorted_segment_min(&data, ids, num)?,
        "prod" => unsorted_segment_prod(&data, ids, num)?,
        "join" => unsorted_segment_join(&data, ids, num, case["separator"].as_str().unwrap())?,
        op => panic!("unknown op {op}"),
    };
    Ok(Built {
        data,
        output,
        feeds,
    })
}

/// Asserts `got` equals the recorded `want`: same dtype and shape, integers and strings
/// exactly, floats within `rel` relative (absolute below 1).
pub fn assert_tensor(what: &str, got: &Tensor, want: &Value, rel: f64) {
    let want = tensor(want);
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    match want.dtype() {
        DType::F32 | DType::F64 => {
            let as_f64 = |t: &Tensor| -> Vec<f64> {
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
            for (k, (a, b)) in as_f64(got).iter().zip(as_f64(&want)).enumerate() {
                let ok = (a.is_nan() && b.is_nan())
                    || a == &b
                    || (a - b).abs() <= rel * b.abs().max(1.0);
                assert!(ok, "{what}: element {k} is {a}, TensorFlow has {b}");
            }
        }
        _ => assert_eq!(got, &want, "{what}"),
    }
}
