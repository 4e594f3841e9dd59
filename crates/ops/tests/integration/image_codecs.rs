//! The image decoders against what TensorFlow 2.21 decoded from the same files:
//! tests/data/images/expected.json, written by tests/data/images/make_images.py. PNG, GIF and
//! BMP must match bit for bit; JPEG within the measured difference between `jpeg-decoder` and
//! libjpeg-turbo (documented in `weir_ops::image::codecs`).

use std::io::Read;
use std::path::PathBuf;

use base64::Engine;
use serde_json::Value;
use weir_graph::{DType, Tensor};
use weir_ops::image::{DecodeBmp, DecodeGif, DecodeImage, DecodeJpeg, DecodePng, ExtractJpegShape};

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/images")
}

/// The cases of expected.json.
pub(crate) fn cases() -> Vec<Value> {
    let text = std::fs::read_to_string(data_dir().join("expected.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v["cases"].as_array().unwrap().clone()
}

pub(crate) fn file(name: &str) -> Vec<u8> {
    std::fs::read(data_dir().join(name)).unwrap()
}

fn attr_i64(c: &Value, k: &str, default: i64) -> i64 {
    c["attrs"].get(k).and_then(Value::as_i64).unwrap_or(default)
}

fn attr_bool(c: &Value, k: &str, default: bool) -> bool {
    c["attrs"]
        .get(k)
        .and_then(Value::as_bool)
        .unwrap_or(default)
}

fn dtype(name: &str) -> DType {
    match name {
        "uint8" => DType::U8,
        "uint16" => DType::U16,
        "float32" => DType::F32,
        "float64" => DType::F64,
        "int32" => DType::I32,
        "int64" => DType::I64,
        other => panic!("dtype {other}"),
    }
}

/// Runs a case's op on its file without a graph.
pub(crate) fn run_case(c: &Value) -> weir_graph::Result<Tensor> {
    let data = file(c["file"].as_str().unwrap());
    let attrs = &c["attrs"];
    let dt = |d: DType| attrs.get("dtype").and_then(Value::as_str).map_or(d, dtype);
    match c["op"].as_str().unwrap() {
        "decode_png" => DecodePng::new()
            .channels(attr_i64(c, "channels", 0))
            .dtype(dt(DType::U8))
            .decode(&data),
        "decode_bmp" => DecodeBmp::new()
            .channels(attr_i64(c, "channels", 0))
            .decode(&data),
        "decode_gif" => DecodeGif::new().decode(&data),
        "decode_image" => DecodeImage::new()
            .channels(attr_i64(c, "channels", 0))
            .dtype(dt(DType::U8))
            .expand_animations(attr_bool(c, "expand_animations", true))
            .decode(&data),
        "decode_jpeg" => {
            let mut d = DecodeJpeg::new()
                .channels(attr_i64(c, "channels", 0))
                .ratio(attr_i64(c, "ratio", 1))
                .fancy_upscaling(attr_bool(c, "fancy_upscaling", true))
                .try_recover_truncated(attr_bool(c, "try_recover_truncated", false));
            if let Some(m) = attrs.get("dct_method").and_then(Value::as_str) {
                d = d.dct_method(m);
            }
            d.decode(&data)
        }
        "extract_jpeg_shape" => ExtractJpegShape::new()
            .output_type(
                attrs
                    .get("output_type")
                    .and_then(Value::as_str)
                    .map_or(DType::I32, dtype),
            )
            .extract(&data),
        other => panic!("op {other}"),
    }
}

/// The raw little-endian bytes of a tensor of TensorFlow's output dtypes.
pub(crate) fn raw_bytes(t: &Tensor) -> Vec<u8> {
    match t.dtype() {
        DType::U8 => t.to_vec::<u8>().unwrap(),
        DType::U16 => t
            .to_vec::<u16>()
            .unwrap()
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect(),
        DType::F32 => t
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect(),
        DType::I32 => t
            .to_vec::<i32>()
            .unwrap()
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect(),
        DType::I64 => t
            .to_vec::<i64>()
            .unwrap()
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect(),
        other => panic!("dtype {other}"),
    }
}

/// The raw output TensorFlow produced for a case (stored zlib-compressed, in base64).
pub(crate) fn expected_bytes(c: &Value) -> Vec<u8> {
    let z = base64::engine::general_purpose::STANDARD
        .decode(c["zdata"].as_str().unwrap())
        .unwrap();
    let mut out = Vec::new();
    flate2::read::ZlibDecoder::new(&z[..])
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn describe(c: &Value) -> String {
    format!("{} {} {}", c["file"], c["op"], c["attrs"])
}

/// Whether a case's pixels are compared with a tolerance: JPEG decodes that succeed.
fn approximate(c: &Value) -> bool {
    c["file"].as_str().unwrap().starts_with("jpeg/")
        && c.get("error").is_none()
        && c["op"] != "extract_jpeg_shape"
}

/// Checks every case whose file is under `prefix` exactly (JPEG pixels aside): same shape and
/// bytes, or the same error message.
fn check_exact(prefix: &str) {
    let mut n = 0;
    let mut failures = vec![];
    for c in cases() {
        if !c["file"].as_str().unwrap().starts_with(prefix) || approximate(&c) {
            continue;
        }
        n += 1;
        let got = run_case(&c);
        match (c.get("error"), got) {
            (Some(_), Ok(t)) => failures.push(format!(
                "{}: want error {}, got {:?}",
                describe(&c),
                c["message"],
                t.shape()
            )),
            (Some(_), Err(e)) => {
                if e.message() != c["message"].as_str().unwrap() {
                    failures.push(format!(
                        "{}: want {}, got {}",
                        describe(&c),
                        c["message"],
                        e.message()
                    ));
                }
            }
            (None, Err(e)) => failures.push(format!("{}: {e}", describe(&c))),
            (None, Ok(t)) => {
                let shape: Vec<usize> = c["shape"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| d.as_u64().unwrap() as usize)
                    .collect();
                if t.shape() != shape.as_slice() || t.dtype() != dtype(c["dtype"].as_str().unwrap())
                {
                    failures.push(format!(
                        "{}: want {:?} {}, got {:?} {}",
                        describe(&c),
                        shape,
                        c["dtype"],
                        t.shape(),
                        t.dtype()
                    ));
                } else if raw_bytes(&t) != expected_bytes(&c) {
                    let (a, b) = (raw_bytes(&t), expected_bytes(&c));
                    let at = a.iter().zip(&b).position(|(x, y)| x != y).unwrap_or(0);
                    failures.push(format!(
                        "{}: bytes differ from {at}: got {:?} want {:?}",
                        describe(&c),
                        &a[at..(at + 8).min(a.len())],
                        &b[at..(at + 8).min(b.len())]
                    ));
                }
            }
        }
    }
    assert!(n > 0, "no cases under {prefix}");
    assert!(
        failures.is_empty(),
        "{} of {n} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn png_decodes_as_tensorflow() {
    check_exact("png/");
}

#[test]
fn gif_decodes_as_tensorflow() {
    check_exact("gif/");
}

#[test]
fn bmp_decodes_as_tensorflow() {
    check_exact("bmp/");
}

#[test]
fn jpeg_errors_and_shapes_are_tensorflow_s() {
    check_exact("jpeg/");
    check_exact("misc/");
}

/// The kind of JPEG decode a case is, for its tolerance.
fn jpeg_kind(c: &Value) -> &'static str {
    let a = &c["attrs"];
    let file = c["file"].as_str().unwrap();
    if a.get("try_recover_truncated").is_some() {
        "recovered"
    } else if file.contains("cmyk") || file.contains("ycck") {
        "cmyk"
    } else if a.get("ratio").is_some() {
        "ratio"
    } else if a.get("fancy_upscaling").is_some() {
        "no_fancy"
    } else if a.get("dct_method").is_some() {
        "accurate"
    } else if a.get("channels") == Some(&Value::from(1)) {
        "gray_of_color"
    } else {
        "default"
    }
}

/// (max, mean) absolute difference bounds per kind, measured on these files (TensorFlow uses
/// libjpeg-turbo's fast integer IDCT by default; `jpeg-decoder` an accurate one).
fn jpeg_bounds(kind: &str) -> (u32, f64) {
    match kind {
        "default" => (14, 2.5),
        "accurate" => (4, 0.2),
        "gray_of_color" => (10, 1.6),
        "ratio" => (24, 3.0),
        "no_fancy" => (64, 6.0),
        "cmyk" => (6, 1.0),
        _ => (255, 255.0),
    }
}

#[test]
fn jpeg_decodes_close_to_tensorflow() {
    let mut report = vec![];
    let mut failures = vec![];
    for c in cases().iter().filter(|c| approximate(c)) {
        let got = run_case(c).unwrap_or_else(|e| panic!("{}: {e}", describe(c)));
        let shape: Vec<usize> = c["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap() as usize)
            .collect();
        assert_eq!(got.shape(), shape.as_slice(), "{}", describe(c));
        let kind = jpeg_kind(c);
        if kind == "recovered" {
            continue;
        }
        let (a, b) = (raw_bytes(&got), expected_bytes(c));
        // uint8 samples, or float32 ones compared in units of 1/255.
        let diffs: Vec<u32> = if got.dtype() == DType::F32 {
            let f = |v: &[u8]| -> Vec<f32> {
                v.chunks_exact(4)
                    .map(|x| f32::from_le_bytes([x[0], x[1], x[2], x[3]]))
                    .collect()
            };
            f(&a)
                .iter()
                .zip(f(&b))
                .map(|(x, y)| ((x - y).abs() * 255.0).round() as u32)
                .collect()
        } else {
            a.iter()
                .zip(&b)
                .map(|(x, y)| u32::from(x.abs_diff(*y)))
                .collect()
        };
        let max = diffs.iter().copied().max().unwrap_or(0);
        let mean = diffs.iter().map(|&d| f64::from(d)).sum::<f64>() / diffs.len().max(1) as f64;
        report.push(format!(
            "{kind:14} max {max:3} mean {mean:6.3}  {}",
            describe(c)
        ));
        let (bmax, bmean) = jpeg_bounds(kind);
        if max > bmax || mean > bmean {
            failures.push(format!(
                "{kind}: max {max} mean {mean:.3} over ({bmax}, {bmean}) for {}",
                describe(c)
            ));
        }
    }
    println!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
