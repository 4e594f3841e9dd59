//! `ResizeBicubic`, `ResizeArea` (and `tf.image.resize` reaching them), `NonMaxSuppression`,
//! `NonMaxSuppressionV2`, `NonMaxSuppressionWithOverlaps`, the padded and with-scores NMS
//! wrappers, `CombinedNonMaxSuppression`, `MaxPoolWithArgmax`, `Dilation2D` with its backprops,
//! `erosion2d` and the seeded `SampleDistortedBoundingBox` (V1) against TensorFlow 2.21: every
//! case of tests/data/image_ops_more/expected.json (made by make_image_ops_more.py there), with
//! TensorFlow's values, static shapes, and errors (TensorFlow's code and, for the kernels'
//! errors, its message; a shape function's ValueError must be InvalidArgument at build or run
//! time).

mod build;

use build::{assert_tensor, build, cases};
use serde_json::Value;
use weir_graph::{Code, Graph, Tensor};
use weir_session::{RunArgs, Session};

/// The float tolerance, in float32 ulps of the larger magnitude. The kernels repeat
/// TensorFlow's float operations in its order, and the float32 results agree to the bit; the one
/// ulp allows for float64 values, which serde_json does not always parse to the nearest double.
const ULPS: f64 = 1.0;

fn run(case: &Value) -> weir_graph::Result<(build::Built, Vec<Tensor>)> {
    let g = Graph::new();
    let built = build(&g, case, &[])?;
    let sess = Session::new(&g)?;
    let mut args = RunArgs::new();
    for o in &built.outputs {
        args = args.fetch(o);
    }
    let outs = sess.run(&args)?;
    Ok((built, outs))
}

fn check(case: &Value) {
    let name = case["name"].as_str().unwrap();
    let result = run(case);
    if let Some(err) = case.get("error") {
        let e = match result {
            Err(e) => e,
            Ok((_, outs)) => panic!("{name}: TensorFlow fails with {err}, weir gives {outs:?}"),
        };
        let (code, check_message) = match err["type"].as_str().unwrap() {
            "InvalidArgumentError" => (Code::InvalidArgument, true),
            "UnimplementedError" => (Code::Unimplemented, true),
            _ => (Code::InvalidArgument, false),
        };
        assert_eq!(e.code(), code, "{name}: {e}");
        if check_message {
            assert_eq!(e.message(), err["message"].as_str().unwrap(), "{name}");
        }
        return;
    }
    let (built, outs) = result.unwrap_or_else(|e| panic!("{name}: {e}"));
    let want = case["outputs"].as_array().unwrap();
    assert_eq!(outs.len(), want.len(), "{name}: outputs");
    for (i, (o, w)) in outs.iter().zip(want).enumerate() {
        assert_tensor(&format!("{name} output {i}"), o, w, ULPS);
        assert!(
            built.outputs[i].shape().is_compatible_with_dims(o.shape()),
            "{name}: static shape {} vs {:?}",
            built.outputs[i].shape(),
            o.shape()
        );
    }
}

fn check_family(prefixes: &[&str]) -> usize {
    let mut n = 0;
    for case in cases() {
        let name = case["name"].as_str().unwrap();
        if prefixes.iter().any(|p| name.starts_with(p)) {
            check(case);
            n += 1;
        }
    }
    assert!(n > 0, "no cases for {prefixes:?}");
    n
}

#[test]
fn resize_bicubic_matches_tensorflow() {
    assert!(check_family(&["bicubic_"]) >= 25);
}

#[test]
fn resize_area_matches_tensorflow() {
    assert!(check_family(&["area_"]) >= 15);
}

#[test]
fn resize_builder_reaches_bicubic_and_area() {
    assert!(check_family(&["fn_resize_"]) >= 12);
}

#[test]
fn single_image_suppressions_match_tensorflow() {
    check_family(&["nms_", "fn_nms_"]);
}

#[test]
fn combined_suppression_matches_tensorflow() {
    assert!(check_family(&["combined_"]) >= 25);
}

#[test]
fn max_pool_with_argmax_matches_tensorflow() {
    check_family(&["argmax_", "fn_max_pool_with_argmax"]);
}

#[test]
fn dilation_and_erosion_match_tensorflow() {
    check_family(&["dilation_", "erosion_"]);
}

#[test]
fn sample_distorted_bounding_box_v1_matches_tensorflow() {
    assert!(check_family(&["sample_box_v1_"]) >= 36);
}

#[test]
fn every_case_has_a_family() {
    let families = [
        "bicubic_",
        "area_",
        "fn_resize_",
        "nms_",
        "fn_nms_",
        "combined_",
        "argmax_",
        "fn_max_pool_with_argmax",
        "dilation_",
        "erosion_",
        "sample_box_v1_",
    ];
    for case in cases() {
        let name = case["name"].as_str().unwrap();
        assert!(
            families.iter().any(|p| name.starts_with(p)),
            "{name} is not tested"
        );
    }
}

/// The node names TensorFlow 2.21 gives `tf.nn.erosion2d`, `combined_non_max_suppression` and
/// `non_max_suppression_overlaps` in a fresh graph (placeholders aside).
#[test]
fn node_names_follow_tensorflow() {
    use weir_graph::{DType, Shape};
    use weir_ops::array::placeholder;
    let g = Graph::new();
    let p = |dims: &[usize]| placeholder(&g, DType::F32, Shape::known(dims)).unwrap();
    let (x, k) = (p(&[1, 4, 4, 1]), p(&[2, 2, 1]));
    let one = [1, 1, 1, 1];
    weir_ops::nn::erosion2d(&x, &k, one, one, weir_ops::nn::Padding::Same).unwrap();
    let (b, s) = (p(&[2, 5, 1, 4]), p(&[2, 5, 3]));
    weir_ops::image::combined_non_max_suppression(&b, &s, 2, 4).unwrap();
    let (o, os) = (p(&[3, 3]), p(&[3]));
    weir_ops::image::non_max_suppression_overlaps(&o, &os, 2, 0.5, f32::NEG_INFINITY).unwrap();
    let names: Vec<(String, String)> = g.with_nodes(|n| {
        n.iter()
            .filter(|n| n.op_type() != "Placeholder")
            .map(|n| (n.name().to_string(), n.op_type().to_string()))
            .collect()
    });
    let want = [
        ("erosion2d/Neg", "Neg"),
        ("erosion2d/ReverseV2/axis", "Const"),
        ("erosion2d/ReverseV2", "ReverseV2"),
        ("erosion2d", "Dilation2D"),
        ("erosion2d/Neg_1", "Neg"),
        ("combined_non_max_suppression/iou_threshold", "Const"),
        ("combined_non_max_suppression/score_threshold", "Const"),
        ("combined_non_max_suppression/Const", "Const"),
        (
            "combined_non_max_suppression/CombinedNonMaxSuppression/max_output_size_per_class",
            "Const",
        ),
        (
            "combined_non_max_suppression/CombinedNonMaxSuppression",
            "CombinedNonMaxSuppression",
        ),
        ("non_max_suppression_overlaps/overlap_threshold", "Const"),
        (
            "non_max_suppression_overlaps/NonMaxSuppressionWithOverlaps/max_output_size",
            "Const",
        ),
        (
            "non_max_suppression_overlaps/NonMaxSuppressionWithOverlaps/score_threshold",
            "Const",
        ),
        (
            "non_max_suppression_overlaps/NonMaxSuppressionWithOverlaps",
            "NonMaxSuppressionWithOverlaps",
        ),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(names, want);
}
