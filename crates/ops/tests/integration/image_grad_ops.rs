//! `ResizeBilinearGrad`, `ResizeNearestNeighborGrad`, `CropAndResizeGradImage` and
//! `CropAndResizeGradBoxes` run directly against TensorFlow 2.21: every "ops" case of
//! tests/data/image_grad_ops/expected.json (made by make_image_grad_ops.py there), with
//! TensorFlow's values bit for bit (the kernels repeat its float operations in its order,
//! float16/bfloat16 rounding included), its static shapes, and its errors (the kernels' code and
//! message; a Python ValueError/TypeError must be InvalidArgument, at build or run time).

use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{bf16, f16, AttrValue, Code, DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder_with_default};
use weir_session::{RunArgs, Session};

use crate::io_util::{check_all_cases, element_bytes, shape_of};

fn expected() -> &'static Value {
    static E: OnceLock<Value> = OnceLock::new();
    E.get_or_init(|| {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/image_grad_ops/expected.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    })
}

/// A recorded tensor: integers as numbers, floats as their bit patterns.
fn tensor(v: &Value) -> Tensor {
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
        DType::F16 => Tensor::from_vec(
            &shape,
            vals.iter().map(|x| f16::from_bits(u(x) as u16)).collect(),
        ),
        DType::BF16 => Tensor::from_vec(
            &shape,
            vals.iter().map(|x| bf16::from_bits(u(x) as u16)).collect(),
        ),
        DType::F32 => Tensor::from_vec(
            &shape,
            vals.iter().map(|x| f32::from_bits(u(x) as u32)).collect(),
        ),
        DType::F64 => Tensor::from_vec(&shape, vals.iter().map(|x| f64::from_bits(u(x))).collect()),
        DType::U8 => Tensor::from_vec(&shape, vals.iter().map(|x| u(x) as u8).collect()),
        DType::U16 => Tensor::from_vec(&shape, vals.iter().map(|x| u(x) as u16).collect()),
        DType::I8 => Tensor::from_vec(&shape, vals.iter().map(|x| i(x) as i8).collect()),
        DType::I16 => Tensor::from_vec(&shape, vals.iter().map(|x| i(x) as i16).collect()),
        DType::I32 => Tensor::from_vec(&shape, vals.iter().map(|x| i(x) as i32).collect()),
        DType::I64 => Tensor::from_vec(&shape, vals.iter().map(i).collect()),
        d => panic!("unexpected dtype {d}"),
    }
    .unwrap()
}

fn attr_value(a: &Value) -> AttrValue {
    let v = &a["value"];
    match a["kind"].as_str().unwrap() {
        "bool" => AttrValue::Bool(v.as_bool().unwrap()),
        "float" => AttrValue::Float(v.as_f64().unwrap() as f32),
        "string" => AttrValue::Str(v.as_str().unwrap().to_string()),
        "type" => AttrValue::Type(DType::from_name(v.as_str().unwrap()).unwrap()),
        k => panic!("attr kind {k}"),
    }
}

/// The case's op on its inputs: constants, or placeholders with defaults of the recorded static
/// shapes where the case says so.
fn build(g: &Graph, case: &Value) -> Result<Output> {
    let mut inputs = Vec::new();
    for pair in case["inputs"].as_array().unwrap() {
        let c = constant(g, tensor(&pair[1]))?;
        inputs.push(match case["dynamic"].get(pair[0].as_str().unwrap()) {
            Some(s) => placeholder_with_default(&c, shape_of(s))?,
            None => c,
        });
    }
    let mut b = g.new_operation(case["op"].as_str().unwrap()).inputs(inputs);
    for (k, v) in case["attrs"].as_object().unwrap() {
        b = b.attr(k, attr_value(v));
    }
    b.build()?.output(0)
}

/// Runs one case; whether it ended in an error (as TensorFlow's did).
fn run_case(case: &Value) -> bool {
    let name = case["name"].as_str().unwrap();
    let g = Graph::new();
    let result = build(&g, case).and_then(|out| {
        let got = Session::new(&g)?.run(&RunArgs::new().fetch(&out))?;
        Ok((out, got))
    });
    if let Some(err) = case.get("error") {
        let e = match result {
            Err(e) => e,
            Ok((_, got)) => panic!("{name}: TensorFlow fails with {err}, weir gives {got:?}"),
        };
        let code = match err["type"].as_str().unwrap() {
            "InvalidArgumentError" => Some(Code::InvalidArgument),
            "OutOfRangeError" => Some(Code::OutOfRange),
            // A shape function's ValueError or a dtype's TypeError: weir's message differs.
            _ => None,
        };
        assert_eq!(
            e.code(),
            code.unwrap_or(Code::InvalidArgument),
            "{name}: {e}"
        );
        if code.is_some() {
            let msg = e.message().split(" for '").next().unwrap();
            assert_eq!(msg, err["message"].as_str().unwrap(), "{name}");
        }
        return true;
    }
    let (out, got) = result.unwrap_or_else(|e| panic!("{name}: {e}"));
    let want = tensor(&case["outputs"][0]);
    assert_eq!(got[0].dtype(), want.dtype(), "{name}: dtype");
    assert_eq!(got[0].shape(), want.shape(), "{name}: shape");
    assert_eq!(
        element_bytes(&got[0]),
        element_bytes(&want),
        "{name}: values"
    );
    assert_eq!(
        out.shape(),
        shape_of(&case["static"][0]),
        "{name}: static shape"
    );
    false
}

fn cases(prefix: &str) -> Vec<Value> {
    let all = expected()["ops"].as_array().unwrap();
    all.iter()
        .filter(|c| c["name"].as_str().unwrap().starts_with(prefix))
        .cloned()
        .collect()
}

#[test]
fn resize_bilinear_grad_matches_tensorflow() {
    let cases = cases("bilinear_grad_");
    assert!(cases.len() >= 50, "{}", cases.len());
    check_all_cases(&cases, run_case);
}

#[test]
fn resize_nearest_neighbor_grad_matches_tensorflow() {
    let cases = cases("nearest_grad_");
    assert!(cases.len() >= 55, "{}", cases.len());
    check_all_cases(&cases, run_case);
}

#[test]
fn crop_and_resize_grad_image_matches_tensorflow() {
    let cases = cases("crop_grad_image_");
    assert!(cases.len() >= 45, "{}", cases.len());
    check_all_cases(&cases, run_case);
}

#[test]
fn crop_and_resize_grad_boxes_matches_tensorflow() {
    let cases = cases("crop_grad_boxes_");
    assert!(cases.len() >= 50, "{}", cases.len());
    check_all_cases(&cases, run_case);
}

#[test]
fn every_case_is_tested() {
    let families = [
        "bilinear_grad_",
        "nearest_grad_",
        "crop_grad_image_",
        "crop_grad_boxes_",
    ];
    for c in expected()["ops"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        assert!(
            families.iter().any(|p| name.starts_with(p)),
            "{name} is not tested"
        );
    }
}

/// weir's rank-3 extension of the resize ops reaches their gradients: one image gives the same
/// values as a batch of one.
#[test]
fn rank3_gradients_equal_a_batch_of_one() {
    let g = Graph::new();
    let grads: Vec<f32> = (0..5 * 7 * 2).map(|i| (i as f32 * 0.37).sin()).collect();
    let g3 = constant(&g, Tensor::from_vec(&[5, 7, 2], grads.clone()).unwrap()).unwrap();
    let g4 = constant(&g, Tensor::from_vec(&[1, 5, 7, 2], grads).unwrap()).unwrap();
    let orig =
        |dims: &[usize]| constant(&g, Tensor::from_vec(dims, vec![0.0f32; 24]).unwrap()).unwrap();
    let size = constant(&g, Tensor::from(vec![3i32, 4])).unwrap();
    let flags = |b: weir_graph::OpBuilder| b.attr("half_pixel_centers", true);
    let bl = |gr: &Output, o: &Output| {
        flags(g.new_operation("ResizeBilinearGrad").input(gr).input(o))
            .build()
            .unwrap()
            .output(0)
            .unwrap()
    };
    let nn = |gr: &Output| {
        flags(
            g.new_operation("ResizeNearestNeighborGrad")
                .input(gr)
                .input(&size),
        )
        .build()
        .unwrap()
        .output(0)
        .unwrap()
    };
    let outs = [
        bl(&g3, &orig(&[3, 4, 2])),
        bl(&g4, &orig(&[1, 3, 4, 2])),
        nn(&g3),
        nn(&g4),
    ];
    assert_eq!(outs[0].shape(), Shape::known(&[3, 4, 2]));
    assert_eq!(outs[2].shape(), Shape::known(&[3, 4, 2]));
    let mut args = RunArgs::new();
    for o in &outs {
        args = args.fetch(o);
    }
    let got = Session::new(&g).unwrap().run(&args).unwrap();
    for pair in got.chunks(2) {
        assert_eq!(pair[0].shape(), &[3, 4, 2][..]);
        assert_eq!(
            pair[0].as_slice::<f32>().unwrap(),
            pair[1].as_slice::<f32>().unwrap()
        );
    }
}
