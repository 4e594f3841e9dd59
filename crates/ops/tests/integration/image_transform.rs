//! `ImageProjectiveTransformV2`/`V3`, `ExtractVolumePatches` and `ExtractGlimpse`/`V2` against
//! TensorFlow 2.21 (tests/data/image_transform/expected.json, written by
//! make_image_transform.py there): every value bit for bit (weir does the kernels' float32
//! arithmetic in their order), static shapes, and errors' codes and messages, both the shape
//! functions' (when the node is added) and the kernels'. Glimpses with random noise are checked
//! for shape and for staying within the image's range.

use serde_json::Value;
use weir_graph::{DType, Error, Graph, Output, Result, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::image::{
    extract_volume_patches, ExtractGlimpse, FillMode, GlimpseNoise, Interpolation,
    ProjectiveTransform,
};
use weir_ops::nn::Padding;

use crate::io_util::{
    check_all_cases, check_spec_outputs, check_tf_error, expected_cases, run_built_case, shape_of,
    spec_tensor, usizes,
};

/// An input: a constant when the spec says so, else a placeholder of the spec's `shape` (its
/// own dims unless given) fed its value.
fn source(g: &Graph, spec: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Output {
    let value = spec_tensor(spec);
    if spec.get("const").and_then(Value::as_bool) == Some(true) {
        return constant(g, value).unwrap();
    }
    let shape = match spec.get("shape") {
        Some(s) => shape_of(s),
        None => weir_graph::Shape::known(value.shape()),
    };
    let p = placeholder(g, value.dtype(), shape).unwrap();
    feeds.push((p.clone(), value));
    p
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

fn build(g: &Graph, c: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Result<Vec<Output>> {
    let x: Vec<Output> = c["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| source(g, s, feeds))
        .collect();
    let a = &c["attrs"];
    let flag = |k: &str, d: bool| a.get(k).and_then(Value::as_bool).unwrap_or(d);
    let out = match c["op"].as_str().unwrap() {
        "proj" => {
            let interp = match a["interpolation"].as_str().unwrap() {
                "NEAREST" => Interpolation::Nearest,
                _ => Interpolation::Bilinear,
            };
            let mode = match a.get("fill_mode").and_then(Value::as_str) {
                Some("REFLECT") => FillMode::Reflect,
                Some("WRAP") => FillMode::Wrap,
                Some("NEAREST") => FillMode::Nearest,
                _ => FillMode::Constant,
            };
            let mut p = ProjectiveTransform::new(interp).fill_mode(mode);
            if let Some(f) = x.get(3) {
                p = p.fill_value(f);
            }
            p.build(&x[0], &x[1], x[2].clone())?
        }
        "volume" => {
            // Lists of the wrong length go through the node directly, as TensorFlow's raw op.
            let (k, s) = (ints(&a["ksizes"]), ints(&a["strides"]));
            let padding = Padding::parse(a["padding"].as_str().unwrap())?;
            match (
                <[i64; 5]>::try_from(k.clone()),
                <[i64; 5]>::try_from(s.clone()),
            ) {
                (Ok(k5), Ok(s5)) => extract_volume_patches(&x[0], k5, s5, padding)?,
                _ => g
                    .new_operation("ExtractVolumePatches")
                    .input(&x[0])
                    .attr("ksizes", k)
                    .attr("strides", s)
                    .attr("padding", padding.as_str())
                    .build()?
                    .output(0)?,
            }
        }
        op => {
            let noise = a.get("noise").and_then(Value::as_str);
            let mut b = ExtractGlimpse::new(x[1].clone())
                .centered(flag("centered", true))
                .normalized(flag("normalized", true));
            b = match noise {
                Some("zero") => b.noise(GlimpseNoise::Zero),
                Some("gaussian") => b.noise(GlimpseNoise::Gaussian),
                _ => b,
            };
            if let Some(u) = a.get("uniform_noise").and_then(Value::as_bool) {
                b = b.uniform_noise(u);
            }
            // Noises the builder has no variant for ("" and unknown ones) go in as the raw attr.
            if let Some(n @ ("" | "pink")) = noise {
                let v1 = op == "glimpse_v1";
                return Ok(vec![g
                    .new_operation(if v1 {
                        "ExtractGlimpse"
                    } else {
                        "ExtractGlimpseV2"
                    })
                    .input(&x[0])
                    .input(&x[1])
                    .input(&x[2])
                    .attr("centered", flag("centered", true))
                    .attr("normalized", flag("normalized", true))
                    .attr("uniform_noise", flag("uniform_noise", v1))
                    .attr("noise", n)
                    .build()?
                    .output(0)?]);
            }
            if op == "glimpse_v1" {
                b.build_v1(&x[0], &x[2])?
            } else {
                b.build(&x[0], &x[2])?
            }
        }
    };
    Ok(vec![out])
}

fn check_noisy(name: &str, c: &Value, got: &[Tensor]) {
    let t = &got[0];
    assert_eq!(
        t.shape(),
        usizes(&c["out_dims"]).as_slice(),
        "{name}: shape"
    );
    assert_eq!(t.dtype(), DType::F32);
    let (lo, hi) = (
        c["range"][0].as_f64().unwrap(),
        c["range"][1].as_f64().unwrap(),
    );
    for &v in t.as_slice::<f32>().unwrap() {
        assert!(
            (lo as f32..=hi as f32).contains(&v),
            "{name}: {v} outside [{lo}, {hi}]"
        );
    }
}

fn run(prefix: &[&str], min_cases: usize) {
    let cases: Vec<Value> = expected_cases("image_transform")
        .into_iter()
        .filter(|c| prefix.contains(&c["op"].as_str().unwrap()))
        .collect();
    assert!(cases.len() >= min_cases, "only {} cases", cases.len());
    check_all_cases(&cases, |c| {
        run_built_case(
            c,
            c.get("build_error"),
            |g, feeds| build(g, c, feeds),
            |name: &str, e: &Error, want: &Value| check_tf_error(name, e, want),
            |name, got| {
                if c.get("noisy").is_some() {
                    check_noisy(name, c, got)
                } else {
                    check_spec_outputs(name, c, got)
                }
            },
        )
    });
}

#[test]
fn projective_transforms_match_tensorflow() {
    run(&["proj"], 180);
}

#[test]
fn volume_patches_match_tensorflow() {
    run(&["volume"], 30);
}

#[test]
fn glimpses_match_tensorflow() {
    run(&["glimpse", "glimpse_v1"], 35);
}
