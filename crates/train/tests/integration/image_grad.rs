//! Gradients of `ResizeBilinear`, `ResizeNearestNeighbor`, `CropAndResize` (image and boxes),
//! `ExtractImagePatches` and `RGBToHSV` against TensorFlow 2.21's `tf.gradients`: every
//! "grads" case of crates/ops/tests/data/image_grad_ops/expected.json (made by
//! make_image_grad_ops.py there), bit for bit, with TensorFlow's `None`s and static shapes; and
//! against weir's numeric gradient checker (central differences).

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{AttrValue, DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder, placeholder_with_default};
use weir_session::{RunArgs, Session};
use weir_train::gradients::check::gradient_error;
use weir_train::gradients::gradients;

fn cases() -> &'static [Value] {
    static E: OnceLock<Value> = OnceLock::new();
    E.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../ops/tests/data/image_grad_ops/expected.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    })["grads"]
        .as_array()
        .unwrap()
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
    match dt {
        DType::F32 => Tensor::from_vec(
            &shape,
            vals.iter()
                .map(|x| f32::from_bits(x.as_u64().unwrap() as u32))
                .collect(),
        ),
        DType::F64 => Tensor::from_vec(
            &shape,
            vals.iter()
                .map(|x| f64::from_bits(x.as_u64().unwrap()))
                .collect(),
        ),
        DType::I32 => Tensor::from_vec(
            &shape,
            vals.iter().map(|x| x.as_i64().unwrap() as i32).collect(),
        ),
        d => panic!("unexpected dtype {d}"),
    }
    .unwrap()
}

/// A static shape as recorded: `null` for an unknown rank, `null` dims unknown.
fn static_shape(v: &Value) -> Shape {
    match v.as_array() {
        None => Shape::unknown(),
        Some(d) => Shape::new(
            d.iter()
                .map(|x| x.as_u64().map(|n| n as usize))
                .collect::<Vec<_>>(),
        ),
    }
}

fn attr_value(a: &Value) -> AttrValue {
    let v = &a["value"];
    match a["kind"].as_str().unwrap() {
        "bool" => AttrValue::Bool(v.as_bool().unwrap()),
        "float" => AttrValue::Float(v.as_f64().unwrap() as f32),
        "string" => AttrValue::Str(v.as_str().unwrap().to_string()),
        "ints" => AttrValue::Ints(
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_i64().unwrap())
                .collect(),
        ),
        k => panic!("attr kind {k}"),
    }
}

struct Built {
    y: Output,
    inputs: HashMap<String, Output>,
}

/// The case's forward op: inputs are constants, or placeholders with defaults of the recorded
/// static shapes (those gradients are taken with respect to).
fn build(g: &Graph, case: &Value) -> Result<Built> {
    let mut inputs = HashMap::new();
    let mut order = Vec::new();
    for pair in case["inputs"].as_array().unwrap() {
        let name = pair[0].as_str().unwrap();
        let c = constant(g, tensor(&pair[1]))?;
        let o = match case["dynamic"].get(name) {
            Some(s) => placeholder_with_default(&c, static_shape(s))?,
            None => c,
        };
        order.push(o.clone());
        inputs.insert(name.to_string(), o);
    }
    let mut b = g.new_operation(case["op"].as_str().unwrap()).inputs(order);
    for (k, v) in case["attrs"].as_object().unwrap() {
        b = b.attr(k, attr_value(v));
    }
    let y = b.build()?.output(0)?;
    Ok(Built { y, inputs })
}

fn names(case: &Value) -> Vec<String> {
    case["grad"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

fn bits(t: &Tensor) -> Vec<u64> {
    match t.dtype() {
        DType::F32 => t
            .as_slice::<f32>()
            .unwrap()
            .iter()
            .map(|v| v.to_bits() as u64)
            .collect(),
        DType::F64 => t
            .as_slice::<f64>()
            .unwrap()
            .iter()
            .map(|v| v.to_bits())
            .collect(),
        d => panic!("not a float: {d}"),
    }
}

fn assert_same(what: &str, got: &Tensor, want: &Value) {
    let want = tensor(want);
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    assert_eq!(bits(got), bits(&want), "{what}: values");
}

/// The forward values and the gradients (TensorFlow's `None`s included) equal to the bit: the
/// backward kernels and the composed gradients repeat TensorFlow's float operations in order.
#[test]
fn gradients_match_tensorflow() {
    let mut checked = HashMap::<&str, usize>::new();
    for case in cases() {
        let name = case["name"].as_str().unwrap();
        let g = Graph::new();
        let built = build(&g, case).unwrap_or_else(|e| panic!("{name}: {e}"));
        let names = names(case);
        let xs: Vec<Output> = names.iter().map(|k| built.inputs[k].clone()).collect();
        let gy = constant(&g, tensor(&case["grad_ys"])).unwrap();
        let grads = gradients(std::slice::from_ref(&built.y), &xs, Some(&[gy]))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut args = RunArgs::new().fetch(&built.y);
        for (k, d) in names.iter().zip(&grads) {
            let want = &case["grads"][k];
            match d {
                None => assert!(want.is_null(), "{name}: no gradient for {k}"),
                Some(d) => {
                    assert!(
                        !want.is_null(),
                        "{name}: TensorFlow has no gradient for {k}"
                    );
                    assert_eq!(
                        d.shape(),
                        static_shape(&case["static"][k]),
                        "{name}: static shape of d/d{k}"
                    );
                    args = args.fetch(d);
                }
            }
        }
        let got = Session::new(&g)
            .unwrap()
            .run(&args)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_same(&format!("{name}: forward"), &got[0], &case["outputs"][0]);
        let present = names
            .iter()
            .filter(|k| !case["grads"][k.as_str()].is_null());
        for (k, v) in present.zip(&got[1..]) {
            assert_same(&format!("{name}: d/d{k}"), v, &case["grads"][k]);
        }
        *checked.entry(case["op"].as_str().unwrap()).or_default() += 1;
    }
    let want = [
        ("ResizeBilinear", 19),
        ("ResizeNearestNeighbor", 20),
        ("CropAndResize", 19),
        ("ExtractImagePatches", 13),
        ("RGBToHSV", 5),
    ];
    for (op, n) in want {
        assert!(
            checked.get(op).copied().unwrap_or(0) >= n,
            "{op}: {checked:?}"
        );
    }
}

/// Cases whose inputs hold ties or zeros (where TensorFlow's HSV gradient picks one side of a
/// kink) or boxes on pixel edges and the image border (where a crop sample jumps between
/// pixels, or to the extrapolation value).
fn numeric_skip(case: &Value, input: &str) -> bool {
    let name = case["name"].as_str().unwrap();
    name.contains("ties") || input == "boxes"
}

/// Central differences of the forward op agree with the symbolic gradient: within 1e-6 for the
/// float64 cases (a step of 1e-6), 2e-2 for float32 ones (a step of 1e-3 carrying float32
/// rounding of values up to 10). ResizeBilinear and CropAndResize compute in float32 whatever
/// the image, so their float64 cases are checked through the float32 ones.
#[test]
fn gradients_match_central_differences() {
    let mut n = 0;
    for case in cases() {
        let name = case["name"].as_str().unwrap();
        for k in names(case) {
            if numeric_skip(case, &k) || case["dynamic"][k.as_str()].is_null() {
                continue;
            }
            let g = Graph::new();
            let built = build(&g, case).unwrap();
            let x = &built.inputs[&k];
            let v = tensor(
                &case["inputs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|p| p[0] == k.as_str())
                    .unwrap()[1],
            );
            if x.dtype() == DType::F64 && built.y.dtype() == DType::F32 {
                continue;
            }
            let err =
                gradient_error(x, &v, &built.y, &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
            let tol = if v.dtype() == DType::F64 { 1e-6 } else { 2e-2 };
            assert!(err < tol, "{name}: d/d{k} is off by {err}");
            n += 1;
        }
    }
    assert!(n >= 60, "only {n} numeric checks");
}

/// The boxes' gradient against central differences, on boxes whose samples stay inside the
/// image and away from pixel edges (where bilinear sampling is differentiable).
#[test]
fn crop_box_gradients_match_central_differences() {
    let image: Vec<f32> = (0..2 * 6 * 7 * 2)
        .map(|i| ((i * 37 % 101) as f32 * 0.1).sin() * 5.0)
        .collect();
    let boxes = Tensor::from_vec(
        &[3, 4],
        vec![
            0.13f32, 0.21, 0.77, 0.88, 0.91, 0.72, 0.07, 0.17, 0.33, 0.41, 0.52, 0.69,
        ],
    )
    .unwrap();
    for (crop, method) in [
        ([3i32, 4], "bilinear"),
        ([1, 1], "bilinear"),
        ([4, 3], "nearest"),
    ] {
        let g = Graph::new();
        let img = constant(&g, Tensor::from_vec(&[2, 6, 7, 2], image.clone()).unwrap()).unwrap();
        let b = placeholder(&g, DType::F32, Shape::known(&[3, 4])).unwrap();
        let ind = constant(&g, Tensor::from(vec![0i32, 1, 1])).unwrap();
        let size = constant(&g, Tensor::from(crop.to_vec())).unwrap();
        let y = g
            .new_operation("CropAndResize")
            .inputs(vec![img, b.clone(), ind, size])
            .attr("method", method)
            .build()
            .unwrap()
            .output(0)
            .unwrap();
        let err = gradient_error(&b, &boxes, &y, &[]).unwrap();
        if method == "bilinear" {
            // Box derivatives reach (image size - 1) * pixel differences, ~50: float32 steps of
            // 1e-3 are good to a few 1e-2 there.
            assert!(err < 0.1, "{crop:?}: off by {err}");
        } else {
            // Nearest sampling is piecewise constant in the boxes, while TensorFlow's gradient
            // (and weir's) is the bilinear one: they differ, by design.
            assert!(
                err > 0.1,
                "{crop:?}: nearest boxes gradient unexpectedly numeric"
            );
        }
    }
}

/// The backward graphs use TensorFlow's ops: the `...Grad` kernels, `StridedSlice` of the
/// image's shape when its size is not static, `UnsortedSegmentSum` over patched indices and
/// `DivNoNan` reciprocals.
#[test]
fn backward_graphs_use_tensorflows_ops() {
    let want: [(&str, &[&str]); 6] = [
        ("bilinear_half_7x8", &["ResizeBilinearGrad"]),
        ("nearest_align_3x2", &["ResizeNearestNeighborGrad"]),
        (
            "nearest_dynamic",
            &["Shape", "StridedSlice", "ResizeNearestNeighborGrad"],
        ),
        (
            "crop_bilinear_4x5_0.0",
            &["CropAndResizeGradImage", "CropAndResizeGradBoxes"],
        ),
        (
            "patches_23_12_11_SAME",
            &[
                "Range",
                "ExtractImagePatches",
                "UnsortedSegmentSum",
                "Transpose",
            ],
        ),
        (
            "hsv_float32",
            &["DivNoNan", "LogicalAnd", "Pack", "RealDiv"],
        ),
    ];
    for (name, ops) in want {
        let case = cases().iter().find(|c| c["name"] == name).unwrap();
        let g = Graph::new();
        let built = build(&g, case).unwrap();
        let xs: Vec<Output> = names(case)
            .iter()
            .map(|k| built.inputs[k].clone())
            .collect();
        let before = g.with_nodes(|n| n.len());
        gradients(std::slice::from_ref(&built.y), &xs, None).unwrap();
        let types: Vec<String> = g.with_nodes(|n| {
            n[before..]
                .iter()
                .map(|n| n.op_type().to_string())
                .collect()
        });
        for op in ops {
            assert!(
                types.iter().any(|t| t == op),
                "{name}: no {op} in {types:?}"
            );
        }
    }
    // An integer image gets no CropAndResizeGradImage (TensorFlow's dtype check).
    let case = cases()
        .iter()
        .find(|c| c["name"] == "crop_int_image")
        .unwrap();
    let g = Graph::new();
    let built = build(&g, case).unwrap();
    gradients(
        std::slice::from_ref(&built.y),
        &[built.inputs["boxes"].clone()],
        None,
    )
    .unwrap();
    let types: Vec<String> = g.with_nodes(|n| n.iter().map(|n| n.op_type().to_string()).collect());
    assert!(!types.iter().any(|t| t == "CropAndResizeGradImage"));
    assert!(types.iter().any(|t| t == "CropAndResizeGradBoxes"));
}

/// `ResizeBilinearGrad` is declared not differentiable (`ops.NotDifferentiable`): a second
/// derivative through it is `None`, not an error.
#[test]
fn resize_bilinear_grad_is_not_differentiable() {
    let g = Graph::new();
    let d = placeholder(&g, DType::F32, Shape::known(&[1, 4, 4, 1])).unwrap();
    let orig = placeholder(&g, DType::F32, Shape::known(&[1, 2, 2, 1])).unwrap();
    let dx = g
        .new_operation("ResizeBilinearGrad")
        .inputs(vec![d.clone(), orig.clone()])
        .build()
        .unwrap()
        .output(0)
        .unwrap();
    let got = gradients(&[dx], &[d, orig], None).unwrap();
    assert!(got.iter().all(Option::is_none));
}

/// weir's rank-3 images (one image, no batch) reach the gradients of the resize ops: the same
/// values as a batch of one.
#[test]
fn rank3_resize_gradients_equal_a_batch_of_one() {
    let vals: Vec<f32> = (0..4 * 5 * 2).map(|i| (i as f32 * 0.61).cos()).collect();
    for op in ["ResizeBilinear", "ResizeNearestNeighbor"] {
        let g = Graph::new();
        let x3 = placeholder(&g, DType::F32, Shape::known(&[4, 5, 2])).unwrap();
        let x4 = placeholder(&g, DType::F32, Shape::known(&[1, 4, 5, 2])).unwrap();
        let size = constant(&g, Tensor::from(vec![7i32, 3])).unwrap();
        let resize = |x: &Output| {
            g.new_operation(op)
                .inputs(vec![x.clone(), size.clone()])
                .attr("half_pixel_centers", true)
                .build()
                .unwrap()
                .output(0)
                .unwrap()
        };
        let (y3, y4) = (resize(&x3), resize(&x4));
        let d3 = gradients(&[y3], std::slice::from_ref(&x3), None).unwrap()[0]
            .clone()
            .unwrap();
        let d4 = gradients(&[y4], std::slice::from_ref(&x4), None).unwrap()[0]
            .clone()
            .unwrap();
        assert_eq!(d3.shape(), Shape::known(&[4, 5, 2]), "{op}");
        let args = RunArgs::new()
            .feed(&x3, Tensor::from_vec(&[4, 5, 2], vals.clone()).unwrap())
            .feed(&x4, Tensor::from_vec(&[1, 4, 5, 2], vals.clone()).unwrap())
            .fetch(&d3)
            .fetch(&d4);
        let got = Session::new(&g).unwrap().run(&args).unwrap();
        assert_eq!(got[0].shape(), &[4, 5, 2][..], "{op}");
        assert_eq!(
            got[0].as_slice::<f32>().unwrap(),
            got[1].as_slice::<f32>().unwrap(),
            "{op}"
        );
    }
}
