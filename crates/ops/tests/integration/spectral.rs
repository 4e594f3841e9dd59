//! The FFT ops (`FFT`/`IFFT`/`RFFT`/`IRFFT` in 1-3 D) against TensorFlow 2.21: every FFT case of
//! tests/data/spectral/expected.json (made by make_spectral.py there), with its static shape,
//! its values, and its errors (code, and the kernel's message).
//!
//! Tolerance: TensorFlow 2.21's CPU FFT is DUCC's, rustfft factors lengths and orders its
//! butterflies differently, so results differ in the last bits. A transform's rounding error
//! grows with `log2(n)` times the signal's magnitude, so each value is compared within a bound
//! relative to the largest magnitude of the expected transform: 2e-6 (about 16 float32 ulp of
//! that magnitude, for lengths up to 1000) for complex64/float32, 1e-14 (about 45 float64 ulp)
//! for complex128/float64.

pub mod build;

use build::{assert_close, build, cases};
use serde_json::Value;
use weir_graph::{Code, DType, Graph};
use weir_session::Session;

use crate::io_util::{check_all_cases, shape_of};

/// Compares a weir error with TensorFlow's: InvalidArgument for both Python-level
/// ValueError/TypeError and kernel errors, and the message up to the " for '" where
/// TensorFlow's shape-function messages start naming the node.
pub fn check_error(name: &str, got: &weir_graph::Error, want: &Value) {
    assert_eq!(got.code(), Code::InvalidArgument, "{name}: {got}");
    // Python's messages may show the offending tensor's repr where weir names its dtype.
    let head = |s: &str| {
        let s = s.split(" for '").next().unwrap();
        s.split("Tensor(\"").next().unwrap().to_string()
    };
    let want_msg = head(want["message"].as_str().unwrap());
    let got_msg = head(got.message());
    if want["type"] == "InvalidArgumentError" || want["type"] == "TypeError" {
        assert_eq!(got_msg, want_msg, "{name}");
    } else {
        assert!(
            got_msg.starts_with(&want_msg),
            "{name}: weir {got_msg:?}, TensorFlow {want_msg:?}"
        );
    }
}

/// Runs one case; returns whether it ended in an error. `tol` gives the tolerance of an
/// output dtype.
pub fn run_case(c: &Value, tol: fn(DType) -> f64) -> bool {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let built = build(&g, c);
    let built = match (built, c.get("build_error")) {
        (Ok(b), None) => b,
        (Err(e), Some(want)) => {
            check_error(name, &e, want);
            return true;
        }
        (Ok(b), Some(want)) => panic!("{name}: built {:?}, TensorFlow failed: {want}", b.output),
        (Err(e), None) => panic!("{name}: {e}"),
    };
    let shapes = c["static_shapes"].as_array().unwrap();
    assert_eq!(
        built.output.shape(),
        shape_of(&shapes[0]),
        "{name}: static shape"
    );
    let sess = Session::new(&g).unwrap();
    let mut args = weir_session::RunArgs::new().fetch(&built.output);
    for (p, v) in &built.feeds {
        args = args.feed(p, v.clone());
    }
    match (sess.run(&args), c.get("error")) {
        (Ok(out), None) => {
            let want = &c["outputs"][0];
            assert_close(name, &out[0], want, tol(out[0].dtype()));
            false
        }
        (Err(e), Some(want)) => {
            check_error(name, &e, want);
            true
        }
        (Ok(out), Some(want)) => panic!("{name}: got {:?}, TensorFlow failed: {want}", out[0]),
        (Err(e), None) => panic!("{name}: {e}"),
    }
}

fn fft_tolerance(dt: DType) -> f64 {
    match dt {
        DType::F32 | DType::C64 => 2e-6,
        _ => 1e-14,
    }
}

fn is_fft(c: &Value) -> bool {
    c["op"].as_str().unwrap().contains("fft")
}

/// The `tf.signal` composites' cases.
pub const SIGNAL_OPS: &[&str] = &[
    "hann_window",
    "hamming_window",
    "frame",
    "overlap_and_add",
    "stft",
    "inverse_stft",
    "mel",
];

#[test]
fn signal_composites_match_tensorflow() {
    let cases: Vec<Value> = cases()
        .into_iter()
        .filter(|c| SIGNAL_OPS.contains(&c["op"].as_str().unwrap()))
        .collect();
    assert!(cases.len() >= 25, "{} signal cases", cases.len());
    check_all_cases(&cases, |c| match c["op"].as_str().unwrap() {
        // Gathers and pads move values unchanged.
        "frame" => run_case(c, |_| 0.0),
        // The filters' slopes divide differences of mel values (~2000, 1 float32 ulp =
        // 1.2e-4) by band widths (~100 mel): one ulp of difference in TensorFlow's Log or
        // LinSpace becomes ~1e-6 of a weight.
        "mel" => run_case(c, |dt| match dt {
            DType::F32 => 1e-5,
            _ => 1e-13,
        }),
        // TensorFlow's Cos runs Eigen's vectorized polynomial, weir libm's: a few ulp of the
        // largest value (1 for the windows). Overlap-add sums a handful of values, in the same
        // order.
        "hann_window" | "hamming_window" | "overlap_and_add" => run_case(c, |dt| match dt {
            DType::F32 => 5e-7,
            _ => 1e-15,
        }),
        // Windowing, then the FFT tolerance above.
        _ => run_case(c, fft_tolerance),
    });
}

#[test]
fn fft_ops_match_tensorflow() {
    let cases: Vec<Value> = cases().into_iter().filter(is_fft).collect();
    assert!(cases.len() >= 70, "{} FFT cases", cases.len());
    check_all_cases(&cases, |c| run_case(c, fft_tolerance));
}

#[test]
fn node_names_follow_tensorflow() {
    let g = Graph::new();
    let x = weir_ops::array::constant(&g, [1.0f32, 2.0, 3.0]).unwrap();
    let a = weir_ops::spectral::rfft(&x, Some(vec![5i64].into())).unwrap();
    let b = weir_ops::spectral::rfft(&x, None).unwrap();
    assert_eq!(a.op().name(), "rfft");
    assert_eq!(b.op().name(), "rfft_1");
    // The input was zero-padded to fft_length inside the op's scope.
    assert_eq!(a.op().inputs()[0].op().name(), "rfft/Pad");
    let out = Session::new(&g).unwrap().eval(&a).unwrap();
    assert_eq!(out.shape(), &[3]);
}
