//! Gradients of `ImageProjectiveTransformV2`/`V3` and `ExtractVolumePatches` against TensorFlow
//! 2.21's `tf.gradients` (tests/data/image_transform_grad/expected.json, written by
//! make_image_transform_grad.py there). `ExtractVolumePatches`' gradient sums the same terms in
//! the same order as TensorFlow's, so it matches bit for bit. The projective gradient transforms
//! by inverted matrices, and weir's `MatrixInverse` may round an inverse's last bit differently
//! from Eigen's LU, so those compare within 1e-4 of the magnitude (float16: 2e-3). The volume
//! gradient is also checked against central differences in float64.

use serde_json::Value;
use weir_graph::{bf16, f16, DType, Graph, Output, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::image::{extract_volume_patches, FillMode, Interpolation, ProjectiveTransform};
use weir_ops::math::cast;
use weir_ops::nn::Padding;
use weir_session::{RunArgs, Session};
use weir_train::gradients::check::gradient_error;
use weir_train::gradients::gradients;

fn cases() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/image_transform_grad/expected.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn tensor(s: &Value) -> Tensor {
    let dims: Vec<usize> = s["dims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let v = s["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap());
    match s["dtype"].as_str().unwrap() {
        "float32" => Tensor::from_vec(&dims, v.map(|b| f32::from_bits(b as u32)).collect()),
        "float64" => Tensor::from_vec(&dims, v.map(f64::from_bits).collect()),
        "float16" => Tensor::from_vec(&dims, v.map(|b| f16::from_bits(b as u16)).collect()),
        other => panic!("{other}"),
    }
    .unwrap()
}

fn as_f64(t: &Tensor) -> Vec<f64> {
    match t.dtype() {
        DType::F32 => t
            .as_slice::<f32>()
            .unwrap()
            .iter()
            .map(|&v| v as f64)
            .collect(),
        DType::F64 => t.as_slice::<f64>().unwrap().to_vec(),
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
        dt => panic!("{dt}"),
    }
}

fn forward(g: &Graph, c: &Value, x: &Output) -> weir_graph::Result<Output> {
    let a = &c["attrs"];
    if c["op"] == "volume" {
        let five = |k: &str| -> [i64; 5] {
            let v: Vec<i64> = a[k]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_i64().unwrap())
                .collect();
            v.try_into().unwrap()
        };
        let padding = Padding::parse(a["padding"].as_str().unwrap())?;
        return extract_volume_patches(x, five("ksizes"), five("strides"), padding);
    }
    let interp = match a["interpolation"].as_str().unwrap() {
        "NEAREST" => Interpolation::Nearest,
        _ => Interpolation::Bilinear,
    };
    let mode = match a["fill_mode"].as_str().unwrap() {
        "REFLECT" => FillMode::Reflect,
        "WRAP" => FillMode::Wrap,
        "NEAREST" => FillMode::Nearest,
        _ => FillMode::Constant,
    };
    let t = constant(g, tensor(&c["transforms"]))?;
    let size = x.shape().dims().unwrap()[1..3]
        .iter()
        .map(|d| d.unwrap())
        .collect::<Vec<_>>();
    let mut p = ProjectiveTransform::new(interp).fill_mode(mode);
    if c["op"] == "proj_v3" {
        p = p.fill_value(2.5f32);
    }
    p.build(x, &t, size)
}

#[test]
fn gradients_match_tensorflow() {
    let (mut n, mut errors) = (0, 0);
    for c in cases() {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let mut x = constant(&g, tensor(&c["x"])).unwrap();
        if c.get("build_error").is_some() {
            x = cast(&x, DType::BF16).unwrap();
        }
        let y = forward(&g, &c, &x).unwrap_or_else(|e| panic!("{name}: {e}"));
        let gy = cast(constant(&g, tensor(&c["grad_ys"])).unwrap(), y.dtype()).unwrap();
        let d = gradients(&[y], std::slice::from_ref(&x), Some(&[gy]));
        if let Some(want) = c.get("build_error") {
            let e = d
                .err()
                .unwrap_or_else(|| panic!("{name}: TensorFlow fails"));
            // weir's message names the op whose gradient failed before TensorFlow's text.
            let want = want["message"].as_str().unwrap();
            assert!(e.message().ends_with(want), "{name}: {e}");
            errors += 1;
            continue;
        }
        let d = d.unwrap().remove(0).unwrap();
        let got = Session::new(&g)
            .unwrap()
            .run(&RunArgs::new().fetch(&d))
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .remove(0);
        let want = tensor(&c["grad"]);
        assert_eq!(got.shape(), want.shape(), "{name}");
        assert_eq!(got.dtype(), want.dtype(), "{name}");
        let (gv, wv) = (as_f64(&got), as_f64(&want));
        if c["op"] == "volume" {
            assert_eq!(gv, wv, "{name}");
        } else {
            let tol = if got.dtype() == DType::F16 {
                2e-3
            } else {
                1e-4
            };
            let scale = wv.iter().fold(1.0f64, |m, v| m.max(v.abs()));
            for (i, (a, b)) in gv.iter().zip(&wv).enumerate() {
                assert!((a - b).abs() <= tol * scale, "{name}[{i}]: {a} vs {b}");
            }
        }
        n += 1;
    }
    assert_eq!((n, errors), (112, 1));
}

#[test]
fn volume_gradient_matches_central_differences() {
    let mut n = 0;
    for c in cases()
        .iter()
        .filter(|c| c["op"] == "volume" && c["x"]["dtype"] == "float64")
    {
        let g = Graph::new();
        let value = tensor(&c["x"]);
        let x = placeholder(&g, DType::F64, weir_graph::Shape::known(value.shape())).unwrap();
        let y = forward(&g, c, &x).unwrap();
        let err = gradient_error(&x, &value, &y, &[]).unwrap();
        assert!(err < 1e-6, "{}: {err}", c["name"]);
        n += 1;
    }
    assert_eq!(n, 4);
}
