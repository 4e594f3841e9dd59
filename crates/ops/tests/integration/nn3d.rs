//! The 3-D convolutions and pools against TensorFlow 2.21's CPU kernels: every case of
//! tests/data/nn3d/expected.json (made by make_nn3d.py there) run here, its values bit for bit
//! where weir reproduces TensorFlow's order of operations (see `exact`) and otherwise within a
//! few rounding errors of the sum of |terms| (see `build::assert_close`), its static shape exactly,
//! and its errors with TensorFlow's code and message. Where TensorFlow's shape functions or
//! argument checks raise a ValueError or TypeError at graph construction, weir must fail with
//! InvalidArgument when the node is added, with TensorFlow's message for the ValueErrors.

mod build;

use build::{assert_close, build, cases};
use serde_json::Value;
use weir_graph::{Code, Graph, Shape};
use weir_session::Session;

fn check_error(name: &str, e: &weir_graph::Error, want: &Value, at_build: bool) {
    let (kind, msg) = (
        want["type"].as_str().unwrap(),
        want["message"].as_str().unwrap(),
    );
    let code = match kind {
        "UnimplementedError" => Code::Unimplemented,
        _ => Code::InvalidArgument,
    };
    assert_eq!(e.code(), code, "{name}: {e}");
    match kind {
        "TypeError" => assert!(
            at_build,
            "{name}: TensorFlow fails when building, weir runs"
        ),
        "ValueError" => {
            assert!(
                at_build,
                "{name}: TensorFlow fails when building, weir runs"
            );
            // weir's shape-function messages go on to name the node and shapes.
            let got = e.message().split(" for '").next().unwrap();
            assert_eq!(got, msg, "{name}");
        }
        _ if msg.starts_with("No OpKernel was registered") => {
            let prefix = |m: &str| m.split(" with these attrs").next().unwrap().to_string();
            assert_eq!(prefix(e.message()), prefix(msg), "{name}");
        }
        _ => assert_eq!(e.message(), msg, "{name}"),
    }
}

/// The cases weir computes in TensorFlow's order of operations, so bit for bit: the pools and
/// their gradients, `Conv3D` in float32 (ndarray's gemm happens to sum these short patches in
/// Eigen's order) and in the half types (sequential fused steps, as Eigen's half contraction),
/// and `Conv3DBackpropFilterV2` in the half types.
fn exact(case: &Value) -> bool {
    let dtype = case["outputs"][0]["dtype"].as_str().unwrap();
    let half = dtype == "float16" || dtype == "bfloat16";
    match case["op"].as_str().unwrap() {
        "Conv3D" => half || dtype == "float32",
        "Conv3DBackpropFilterV2" => half,
        "Conv3DBackpropInputV2" | "conv3d_transpose" => false,
        _ => true,
    }
}

fn check(case: &Value) {
    let name = case["name"].as_str().unwrap();
    let g = Graph::new();
    let built = match build(&g, case) {
        Ok(b) => b,
        Err(e) => {
            let want = case
                .get("error")
                .unwrap_or_else(|| panic!("{name}: weir fails to build: {e}"));
            check_error(name, &e, want, true);
            return;
        }
    };
    let ran = Session::new(&g).unwrap().eval(&built.output);
    match (ran, case.get("error")) {
        (Err(e), Some(want)) => check_error(name, &e, want, false),
        (Ok(v), Some(want)) => panic!("{name}: weir gives {v:?}, TensorFlow fails with {want}"),
        (Err(e), None) => panic!("{name}: {e}"),
        (Ok(v), None) => {
            let want = &case["static_shape"];
            let dims: Vec<Option<usize>> = want
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().map(|n| n as usize))
                .collect();
            assert_eq!(
                built.output.shape(),
                Shape::new(dims),
                "{name}: static shape"
            );
            assert_close(name, &v, &case["outputs"][0], &case["scale"], exact(case));
        }
    }
}

fn check_ops(ops: &[&str]) {
    let mut failed = Vec::new();
    let mut n = 0;
    for case in cases()
        .iter()
        .filter(|c| ops.contains(&c["op"].as_str().unwrap()))
    {
        n += 1;
        if std::panic::catch_unwind(|| check(case)).is_err() {
            failed.push(case["name"].as_str().unwrap());
        }
    }
    assert!(n > 0, "no cases for {ops:?}");
    assert!(
        failed.is_empty(),
        "{} of {n} cases differ: {failed:?}",
        failed.len()
    );
}

#[test]
fn conv3d_matches_tensorflow() {
    check_ops(&["Conv3D"]);
}

#[test]
fn conv3d_backprops_match_tensorflow() {
    check_ops(&[
        "Conv3DBackpropInputV2",
        "Conv3DBackpropFilterV2",
        "conv3d_transpose",
    ]);
}

#[test]
fn pools3d_match_tensorflow() {
    check_ops(&["MaxPool3D", "AvgPool3D"]);
}

#[test]
fn pool3d_gradients_match_tensorflow() {
    check_ops(&["MaxPool3DGrad", "AvgPool3DGrad", "MaxPool3DGradGrad"]);
}

#[test]
fn builders_name_nodes_as_tensorflow() {
    use weir_graph::DType;
    use weir_ops::array::placeholder;
    use weir_ops::nn::{avg_pool3d, conv3d, conv3d_transpose, max_pool3d, Padding};
    let g = Graph::new();
    let x = placeholder(&g, DType::F32, Shape::known(&[1, 4, 4, 4, 2])).unwrap();
    let w = placeholder(&g, DType::F32, Shape::known(&[2, 2, 2, 2, 3])).unwrap();
    let s = [1, 2, 2, 2, 1];
    let y = conv3d(&x, &w, s, Padding::Same).unwrap();
    assert_eq!(
        (y.name().as_str(), y.shape()),
        ("Conv3D:0", Shape::known(&[1, 2, 2, 2, 3]))
    );
    let t = conv3d_transpose(&y, &w, [1, 4, 4, 4, 2], s, Padding::Same).unwrap();
    assert_eq!(t.name(), "conv3d_transpose:0");
    assert_eq!(t.shape(), Shape::known(&[1, 4, 4, 4, 2]));
    let m = max_pool3d(&x, [1, 2, 2, 2, 1], s, Padding::Valid).unwrap();
    assert_eq!(m.name(), "MaxPool3D:0");
    let a = avg_pool3d(&x, [1, 3, 3, 3, 1], s, Padding::Same).unwrap();
    assert_eq!(
        (a.name().as_str(), a.shape()),
        ("AvgPool3D:0", Shape::known(&[1, 2, 2, 2, 2]))
    );
}
