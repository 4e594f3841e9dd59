//! `Atan2`, `Xlogy`, `Xdivy`, `Xlog1py`, `MulNoNan`, `Mod`, `NextAfter`, `ApproximateEqual`,
//! `Igamma`, `Igammac`, `IgammaGradA`, `Betainc` and the `tf.bitwise` ops against TensorFlow
//! 2.21: every case of tests/data/math_binary/expected.json (made by make_math_binary.py
//! there), its values within [`build::tolerance`] (integers and bools exactly), its static
//! shape, and its errors with TensorFlow's code and, for the kernels' InvalidArgumentErrors,
//! TensorFlow's message. Where TensorFlow's Python layer raises a ValueError (shape functions)
//! or TypeError (dtypes), weir must fail with InvalidArgument when the node is built.

mod build;

use build::{assert_tensor, build, cases, static_shape, tolerance};
use serde_json::Value;
use weir_graph::{Code, Graph};
use weir_session::Session;

/// Checks one case; returns whether it ended in an error.
fn check(case: &Value) -> bool {
    let name = case["name"].as_str().unwrap();
    let g = Graph::new();
    let built = build(&g, case, false);
    let err = case.get("error");
    let at_build = err.is_some_and(|e| e["type"] != "InvalidArgumentError");
    let built = match (built, at_build) {
        (Ok(b), false) => b,
        (Err(e), true) => {
            assert_eq!(e.code(), Code::InvalidArgument, "{name}: {e}");
            return true;
        }
        (Ok(_), true) => panic!("{name}: TensorFlow fails to build with {}", err.unwrap()),
        (Err(e), false) => panic!("{name}: {e}"),
    };
    let want_shape = static_shape(&case["static_shape"]);
    assert_eq!(built.output.shape(), want_shape, "{name}: static shape");
    let ran = Session::new(&g).and_then(|s| s.eval(&built.output));
    match (ran, err) {
        (Ok(t), None) => {
            let tol = tolerance(case, t.dtype());
            assert_tensor(name, &t, &case["outputs"][0], tol);
            false
        }
        (Err(e), Some(want)) => {
            assert_eq!(e.code(), Code::InvalidArgument, "{name}: {e}");
            let want = want["message"].as_str().unwrap();
            if want.starts_with("No OpKernel") {
                // The list of registered kernels is TensorFlow's (with its GPU/XLA builds).
                let head = want.split(" used by").next().unwrap();
                assert!(e.message().starts_with(head), "{name}: {e}");
            } else {
                assert_eq!(e.message().split(" for '").next().unwrap(), want, "{name}");
            }
            true
        }
        (Ok(t), Some(want)) => panic!("{name}: got {t:?}, TensorFlow failed with {want}"),
        (Err(e), None) => panic!("{name}: {e}"),
    }
}

/// Runs every case of the ops in `ops`, reporting all that differ together.
fn check_ops(ops: &[&str], min_cases: usize) {
    let (mut n, mut failed) = (0, Vec::new());
    for case in cases() {
        if !ops.contains(&case["op"].as_str().unwrap()) {
            continue;
        }
        n += 1;
        let r = std::panic::catch_unwind(|| check(case));
        if r.is_err() {
            failed.push(case["name"].as_str().unwrap());
        }
    }
    assert!(
        failed.is_empty(),
        "{} cases differ: {failed:?}",
        failed.len()
    );
    assert!(n >= min_cases, "only {n} cases for {ops:?}");
}

#[test]
fn elementwise_float_ops_match_tensorflow() {
    check_ops(
        &[
            "Atan2",
            "Xlogy",
            "Xdivy",
            "Xlog1py",
            "MulNoNan",
            "NextAfter",
        ],
        50,
    );
}

#[test]
fn mod_matches_tensorflow() {
    check_ops(&["Mod"], 12);
}

#[test]
fn approximate_equal_matches_tensorflow() {
    check_ops(&["ApproximateEqual"], 8);
}

#[test]
fn incomplete_gamma_matches_tensorflow() {
    check_ops(&["Igamma", "Igammac", "IgammaGradA"], 25);
}

#[test]
fn incomplete_beta_matches_tensorflow() {
    check_ops(&["Betainc"], 20);
}

#[test]
fn bitwise_ops_match_tensorflow() {
    check_ops(
        &[
            "BitwiseAnd",
            "BitwiseOr",
            "BitwiseXor",
            "LeftShift",
            "RightShift",
            "Invert",
            "PopulationCount",
        ],
        45,
    );
}

#[test]
fn builders_name_nodes_as_tensorflow() {
    let g = Graph::new();
    let f = weir_ops::array::constant(&g, 1.0f32).unwrap();
    let names: Vec<String> = [
        weir_ops::math::xdivy(&f, &f).unwrap(),
        weir_ops::math::xlog1py(&f, &f).unwrap(),
        weir_ops::math::mul_no_nan(&f, &f).unwrap(),
        weir_ops::math::atan2(&f, &f).unwrap(),
    ]
    .iter()
    .map(|o| o.op().name().to_string())
    .collect();
    assert_eq!(
        names,
        vec!["xdivy/Xdivy", "xlog1py/Xlog1py", "multiply_no_nan", "Atan2"]
    );
}
