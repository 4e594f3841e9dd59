//! The `tf.image` functions input pipelines use beyond resizing and cropping — flips,
//! `transpose`, `rot90`, grayscale, `central_crop`, `adjust_gamma`, `resize_with_pad`,
//! `total_variation`, `image_gradients`, `sobel_edges`, `RGBToHSV`/`HSVToRGB`,
//! `CropAndResize`, `NonMaxSuppressionV3/V4/V5`, `DrawBoundingBoxes(V2)` and the seeded
//! `SampleDistortedBoundingBoxV2` (several runs of one session), `ExtractImagePatches`, `psnr`
//! and `ssim` — against
//! TensorFlow 2.21 (tests/data/image_more/expected.json, written by make_image_more.py there):
//! values, static shapes, and error codes and messages.
//!
//! Values are compared bit for bit (floats too), except for four compositions whose ops'
//! kernels round differently in weir and a tolerance of a few float32 ulps is allowed: see
//! [`ulps_allowed`]. Messages are compared before TensorFlow's " for '{{node ...}}'" suffix
//! (weir's suffix names the op instead).

use serde_json::Value;
use weir_graph::{Code, DType, Error, Graph, Output, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::image::{
    adjust_gamma, central_crop, draw_bounding_boxes, extract_patches, flip_left_right,
    flip_up_down, grayscale_to_rgb, hsv_to_rgb, image_gradients, psnr, resize_with_pad,
    rgb_to_grayscale, rgb_to_hsv, rot90, sobel_edges, total_variation, transpose, CropAndResize,
    CropMethod, NonMaxSuppression, ResizeMethod, SampleDistortedBoundingBox, Ssim,
};
use weir_ops::nn::Padding;
use weir_session::Session;

use crate::io_util::{check_all_cases, expect_same_outcome, fetch_and_feed, shape_of, usizes};

fn cases() -> Vec<Value> {
    crate::io_util::expected_cases("image_more")
}

/// A JSON number, or a string: a float64 value or a non-finite float. (serde_json's default
/// number parser may miss the nearest double by an ulp, so float32 numbers are rounded to
/// float32 before comparing and float64 ones are written as strings.)
fn f64_of(v: &Value) -> f64 {
    match v {
        Value::String(s) => match s.as_str() {
            "nan" => f64::NAN,
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            // float64 values: Python's repr, parsed to the nearest double.
            other => other.parse().unwrap(),
        },
        v => v.as_f64().unwrap(),
    }
}

fn dtype_of(name: &str) -> DType {
    match name {
        "uint8" => DType::U8,
        "uint16" => DType::U16,
        "int32" => DType::I32,
        "int64" => DType::I64,
        "float32" => DType::F32,
        "float64" => DType::F64,
        other => panic!("dtype {other}"),
    }
}

fn tensor_of(dtype: DType, dims: &[usize], values: &[Value]) -> Tensor {
    let f: Vec<f64> = values.iter().map(f64_of).collect();
    match dtype {
        DType::U8 => Tensor::from_vec(dims, f.iter().map(|&x| x as u8).collect()),
        DType::U16 => Tensor::from_vec(dims, f.iter().map(|&x| x as u16).collect()),
        DType::I32 => Tensor::from_vec(dims, f.iter().map(|&x| x as i32).collect()),
        DType::I64 => Tensor::from_vec(dims, values.iter().map(|x| x.as_i64().unwrap()).collect()),
        DType::F32 => Tensor::from_vec(dims, f.iter().map(|&x| x as f32).collect()),
        DType::F64 => Tensor::from_vec(dims, f),
        other => panic!("dtype {other}"),
    }
    .unwrap()
}

/// Input `key` of case `c`: a constant, or a placeholder of its `shape` fed its value.
fn source(g: &Graph, c: &Value, key: &str, feeds: &mut Vec<(Output, Tensor)>) -> Option<Output> {
    let spec = c["inputs"].get(key)?;
    let dtype = dtype_of(spec["dtype"].as_str().unwrap());
    let value = tensor_of(
        dtype,
        &usizes(&spec["dims"]),
        spec["value"].as_array().unwrap(),
    );
    Some(match spec.get("shape") {
        None => constant(g, value).unwrap(),
        Some(s) => {
            let p = placeholder(g, dtype, shape_of(s)).unwrap();
            feeds.push((p.clone(), value));
            p
        }
    })
}

fn build(g: &Graph, c: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Result<Vec<Output>, Error> {
    let x = source(g, c, "x", feeds);
    let t = |k: &str, feeds: &mut Vec<(Output, Tensor)>| source(g, c, k, feeds).unwrap();
    let a = &c["args"];
    let int = |k: &str| a[k].as_i64().unwrap();
    let flt = |k: &str| a[k].as_f64().unwrap();
    let flt_or = |k: &str, d: f64| a.get(k).map_or(d, |v| v.as_f64().unwrap());
    let one = |r: Result<Output, Error>| r.map(|o| vec![o]);
    let x = || x.clone().unwrap();
    match c["fn"].as_str().unwrap() {
        "flip_left_right" => one(flip_left_right(x())),
        "flip_up_down" => one(flip_up_down(x())),
        "transpose" => one(transpose(x())),
        "rot90" => match source(g, c, "k", feeds) {
            Some(k) => one(rot90(x(), k)),
            None => one(rot90(x(), int("k"))),
        },
        "rgb_to_grayscale" => one(rgb_to_grayscale(x())),
        "grayscale_to_rgb" => one(grayscale_to_rgb(x())),
        "central_crop" => one(central_crop(x(), flt("central_fraction"))),
        "adjust_gamma" => one(adjust_gamma(x(), flt("gamma"), flt("gain"))),
        "resize_with_pad" => {
            let method = match a["method"].as_str().unwrap() {
                "bilinear" => ResizeMethod::Bilinear,
                _ => ResizeMethod::NearestNeighbor,
            };
            one(resize_with_pad(
                x(),
                int("target_height"),
                int("target_width"),
                method,
            ))
        }
        "total_variation" => one(total_variation(x())),
        "image_gradients" => image_gradients(x()).map(|(dy, dx)| vec![dy, dx]),
        "sobel_edges" => one(sobel_edges(x())),
        "rgb_to_hsv" => one(rgb_to_hsv(x())),
        "hsv_to_rgb" => one(hsv_to_rgb(x())),
        "crop_and_resize" => {
            let op = match source(g, c, "crop_size", feeds) {
                Some(size) => CropAndResize::new(size),
                None => CropAndResize::new(usizes(&a["crop_size"])),
            };
            let method = match a.get("method").and_then(Value::as_str) {
                Some("nearest") => CropMethod::Nearest,
                _ => CropMethod::Bilinear,
            };
            let boxes = t("boxes", feeds);
            let idx = t("box_indices", feeds);
            one(op
                .method(method)
                .extrapolation_value(flt_or("extrapolation_value", 0.0) as f32)
                .build(x(), boxes, idx))
        }
        f @ ("nms" | "nms_padded" | "nms_with_scores") => {
            let nms = NonMaxSuppression::new(int("max_output_size"))
                .iou_threshold(flt_or("iou_threshold", 0.5) as f32)
                .score_threshold(flt_or("score_threshold", f64::NEG_INFINITY) as f32)
                .soft_nms_sigma(flt_or("soft_nms_sigma", 0.0) as f32)
                .pad_to_max_output_size(a.get("pad").is_some_and(|p| p.as_bool().unwrap()));
            let boxes = t("boxes", feeds);
            let scores = t("scores", feeds);
            match f {
                "nms" => one(nms.build(boxes, scores)),
                "nms_padded" => nms.build_padded(boxes, scores).map(|(i, n)| vec![i, n]),
                // tf.image.non_max_suppression_with_scores returns V5's first two outputs.
                _ => nms
                    .build_with_scores(boxes, scores)
                    .map(|(i, s, _)| vec![i, s]),
            }
        }
        "draw_bounding_boxes" => {
            let boxes = t("boxes", feeds);
            let colors = source(g, c, "colors", feeds);
            one(draw_bounding_boxes(x(), boxes, colors.as_ref()))
        }
        "sample_distorted_bounding_box" => {
            if let Some(s) = a.get("graph_seed") {
                g.set_random_seed(s.as_i64().unwrap());
            }
            let mut op = SampleDistortedBoundingBox::new();
            op = match a.get("seed2") {
                Some(s2) => op.seeds(int("seed"), s2.as_i64().unwrap()),
                None => op.seed(a.get("seed").map_or(0, |s| s.as_i64().unwrap())),
            };
            let pair = |k: &str| {
                let v = a[k].as_array().unwrap();
                (v[0].as_f64().unwrap() as f32, v[1].as_f64().unwrap() as f32)
            };
            if a.get("min_object_covered").is_some() {
                op = op.min_object_covered(flt("min_object_covered") as f32);
            }
            if a.get("aspect_ratio_range").is_some() {
                let (lo, hi) = pair("aspect_ratio_range");
                op = op.aspect_ratio_range(lo, hi);
            }
            if a.get("area_range").is_some() {
                let (lo, hi) = pair("area_range");
                op = op.area_range(lo, hi);
            }
            if a.get("max_attempts").is_some() {
                op = op.max_attempts(int("max_attempts"));
            }
            if let Some(u) = a.get("use_image_if_no_bounding_boxes") {
                op = op.use_image_if_no_bounding_boxes(u.as_bool().unwrap());
            }
            let size = t("image_size", feeds);
            let boxes = t("boxes", feeds);
            op.build(size, boxes).map(|(b, s, bb)| vec![b, s, bb])
        }
        "extract_patches" => {
            let four = |k: &str| -> [i64; 4] {
                let v: Vec<i64> = a[k]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_i64().unwrap())
                    .collect();
                [v[0], v[1], v[2], v[3]]
            };
            let padding = Padding::parse(a["padding"].as_str().unwrap()).unwrap();
            one(extract_patches(
                x(),
                four("sizes"),
                four("strides"),
                four("rates"),
                padding,
            ))
        }
        "psnr" => one(psnr(x(), t("y", feeds), flt("max_val"))),
        "ssim" => {
            let mut op = Ssim::new(flt("max_val"));
            if a.get("filter_size").is_some() {
                op = op
                    .filter_size(int("filter_size") as i32)
                    .filter_sigma(flt("filter_sigma") as f32)
                    .k(flt("k1") as f32, flt("k2") as f32);
            }
            one(op.build(x(), t("y", feeds)))
        }
        other => panic!("unknown fn {other}"),
    }
}

/// How far an output may be from TensorFlow's, in units in the last place (ulps) of the
/// float32 computation, measured at the tensor's largest magnitude. Zero (bit for bit) except
/// for four functions built from ops whose kernels weir does not reproduce operation for
/// operation:
/// - `rgb_to_grayscale`: a `MatMul`; Eigen sums each three-term dot product as
///   `(r * wr + g * wg) + b * wb`, weir's `MatMul` kernel in another order;
/// - `adjust_gamma`: `Pow`, which Eigen evaluates with its own vectorized `pow`, weir with libm;
/// - `total_variation`: `Sum`, which Eigen reduces with packet-wise partial sums;
/// - `ssim`: a softmax, depthwise convolutions and means, each summed in Eigen's order (and
///   TensorFlow's own static- and unknown-shape graphs differ by as much).
fn ulps_allowed(f: &str) -> u64 {
    match f {
        "rgb_to_grayscale" | "adjust_gamma" | "total_variation" => 4,
        "ssim" => 8,
        _ => 0,
    }
}

/// The spacing of float32 values at `x`.
fn ulp(x: f64) -> f64 {
    let f = (x.abs() as f32).max(f32::MIN_POSITIVE);
    (f32::from_bits(f.to_bits() + 1) - f) as f64
}

fn ints<T: Copy + Into<f64>>(v: &[T]) -> Vec<f64> {
    v.iter().map(|&x| x.into()).collect()
}

fn check_value(name: &str, f: &str, got: &Tensor, want: &Value) {
    assert_eq!(
        got.dtype(),
        dtype_of(want["dtype"].as_str().unwrap()),
        "{name}: dtype"
    );
    assert_eq!(got.shape(), &usizes(&want["shape"])[..], "{name}: shape");
    let want: Vec<f64> = want["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let w = f64_of(v);
            if got.dtype() == DType::F32 {
                w as f32 as f64
            } else {
                w
            }
        })
        .collect();
    let got: Vec<f64> = match got.dtype() {
        DType::F32 => got
            .as_slice::<f32>()
            .unwrap()
            .iter()
            .map(|&v| v as f64)
            .collect(),
        DType::F64 => got.as_slice::<f64>().unwrap().to_vec(),
        DType::U8 => ints(got.as_slice::<u8>().unwrap()),
        DType::U16 => ints(got.as_slice::<u16>().unwrap()),
        DType::I32 => ints(got.as_slice::<i32>().unwrap()),
        DType::I64 => got
            .as_slice::<i64>()
            .unwrap()
            .iter()
            .map(|&v| v as f64)
            .collect(),
        other => panic!("{name}: dtype {other}"),
    };
    let allowed = ulps_allowed(f);
    let exact = |a: f64, b: f64| a == b || (a.is_nan() && b.is_nan());
    if allowed == 0 {
        let same = got
            .iter()
            .zip(&want)
            .all(|(&g, &w)| exact(g, w) && g.is_sign_negative() == w.is_sign_negative());
        assert!(same, "{name}: differs\n got {got:?}\nwant {want:?}");
        return;
    }
    // All four compute in float32, whatever the output's dtype (integer and float64 images are
    // converted), so the tolerance is in float32 ulps.
    let scale = want.iter().fold(0.0f64, |m, &w| m.max(w.abs()));
    let tol = allowed as f64 * ulp(scale);
    for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
        assert!(
            exact(g, w) || (g - w).abs() <= tol,
            "{name}: element {i}: got {g}, TensorFlow {w} (tolerance {tol})\n got {got:?}\nwant {want:?}"
        );
    }
}

/// Checks a weir error against TensorFlow's `want` ({code, message}), as the module doc says.
fn check_error(name: &str, got: &Error, want: &Value) {
    let code = Code::from_proto_number(want["code"].as_i64().unwrap() as i32).unwrap();
    assert_eq!(got.code(), code, "{name}: {got}");
    let want = want["message"].as_str().unwrap();
    let got = got.message();
    if want.starts_with("Value passed to parameter") {
        assert!(got.contains("allowed values"), "{name}: {got:?}");
    } else {
        assert_eq!(got.split(" for '").next().unwrap(), want, "{name}");
    }
}

/// Runs one case; returns whether it ended in an error (at build or run time).
fn run_case(c: &Value) -> bool {
    let name = c["name"].as_str().unwrap();
    let f = c["fn"].as_str().unwrap();
    let g = Graph::new();
    let mut feeds = Vec::new();
    let built = build(&g, c, &mut feeds);
    let Some(outs) = expect_same_outcome(name, built, c.get("build_error"), check_error) else {
        return true;
    };
    let shapes = c["static_shapes"].as_array().unwrap();
    assert_eq!(outs.len(), shapes.len(), "{name}: outputs");
    for (o, s) in outs.iter().zip(shapes) {
        assert_eq!(o.shape(), shape_of(s), "{name}: static shape");
    }
    let args = fetch_and_feed(&outs, feeds);
    // A stateful random op draws anew in each run: `runs` runs of one session, concatenated.
    let session = Session::new(&g).unwrap();
    let runs = c["args"].get("runs").map_or(1, |r| r.as_u64().unwrap());
    let result = (0..runs).try_fold(Vec::new(), |mut all, _| {
        all.extend(session.run(&args)?);
        Ok::<_, Error>(all)
    });
    match expect_same_outcome(name, result, c.get("error"), check_error) {
        Some(v) => {
            for (got, want) in v.iter().zip(c["outputs"].as_array().unwrap()) {
                check_value(name, f, got, want);
            }
            false
        }
        None => true,
    }
}

#[test]
fn every_case_matches_tensorflow() {
    let cases = cases();
    assert!(cases.len() > 150);
    check_all_cases(&cases, run_case);
}

#[test]
fn every_function_is_covered() {
    let cases = cases();
    for f in [
        "flip_left_right",
        "flip_up_down",
        "transpose",
        "rot90",
        "rgb_to_grayscale",
        "grayscale_to_rgb",
        "central_crop",
        "adjust_gamma",
        "resize_with_pad",
        "total_variation",
        "image_gradients",
        "sobel_edges",
        "rgb_to_hsv",
        "hsv_to_rgb",
        "crop_and_resize",
        "nms",
        "nms_padded",
        "nms_with_scores",
        "draw_bounding_boxes",
        "sample_distorted_bounding_box",
        "extract_patches",
        "psnr",
        "ssim",
    ] {
        assert!(cases.iter().any(|c| c["fn"] == f), "{f}");
    }
}
