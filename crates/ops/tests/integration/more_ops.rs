//! The variable scatter ops, `tensor_scatter_nd_*`, the linear-algebra ops, `einsum` and the
//! extra array ops (roll, unique_with_counts, space/depth, lin_space, bucketize,
//! histogram_fixed_width, bincount) against TensorFlow 2.21: every case of
//! tests/data/more_ops/expected.json (made by make_more_ops.py there) run here, its values
//! within 1e-5 relative (integers, strings and shapes exactly), and its errors with
//! TensorFlow's code and, for the kernels' InvalidArgumentErrors, TensorFlow's message. Where
//! TensorFlow's shape functions raise a ValueError (constant inputs), weir must fail with
//! InvalidArgument too, at build or run time.

mod build;

use build::{assert_tensor, build, cases, Built};
use serde_json::Value;
use weir_graph::{Code, Graph, Result, Tensor};
use weir_session::{RunArgs, Session};

/// Cases where weir deliberately differs from TensorFlow 2.21, and how.
const DIFFERENT: &[(&str, &str)] = &[(
    "cholesky_not_pd",
    // TensorFlow 2.21 returns NaNs and uninitialized memory for a matrix that is not
    // positive definite; weir keeps TensorFlow 1's InvalidArgument.
    "Cholesky decomposition was not successful. The input might not be valid.",
)];

fn run(built: &Built, g: &Graph) -> Result<(Vec<Tensor>, Option<Tensor>)> {
    let sess = Session::new(g)?;
    if let Some(v) = &built.var {
        sess.run_target(&v.initializer())?;
    }
    if let Some(op) = &built.target {
        sess.run_target(op)?;
    }
    let mut args = RunArgs::new();
    for o in &built.outputs {
        args = args.fetch(o);
    }
    let outs = if built.outputs.is_empty() {
        vec![]
    } else {
        sess.run(&args)?
    };
    let var = match &built.var {
        Some(v) => Some(sess.eval(&v.read_value()?)?),
        None => None,
    };
    Ok((outs, var))
}

fn check(case: &Value) {
    let name = case["name"].as_str().unwrap();
    let g = Graph::new();
    let result = build(&g, case, &[]).and_then(|b| {
        let r = run(&b, &g)?;
        Ok((b, r))
    });
    if let Some((_, msg)) = DIFFERENT.iter().find(|(n, _)| *n == name) {
        let e = result
            .err()
            .unwrap_or_else(|| panic!("{name}: expected an error"));
        assert_eq!(
            (e.code(), e.message()),
            (Code::InvalidArgument, *msg),
            "{name}"
        );
        return;
    }
    if let Some(err) = case.get("error") {
        let e = match result {
            Err(e) => e,
            Ok((_, (outs, _))) => {
                panic!("{name}: TensorFlow fails with {err}, weir gives {outs:?}")
            }
        };
        assert_eq!(e.code(), Code::InvalidArgument, "{name}: {e}");
        if err["type"] == "InvalidArgumentError" {
            assert_eq!(e.message(), err["message"].as_str().unwrap(), "{name}");
        }
        return;
    }
    let (built, (outs, var)) = result.unwrap_or_else(|e| panic!("{name}: {e}"));
    let rtol = 1e-5;
    if let Some(want) = case.get("outputs") {
        let want = want.as_array().unwrap();
        assert_eq!(outs.len(), want.len(), "{name}: outputs");
        for (i, (o, w)) in outs.iter().zip(want).enumerate() {
            assert_tensor(&format!("{name} output {i}"), o, w, rtol);
            assert!(
                built.outputs[i].shape().is_compatible_with_dims(o.shape()),
                "{name}: static shape {} vs {:?}",
                built.outputs[i].shape(),
                o.shape()
            );
        }
    }
    if let Some(want) = case.get("variable") {
        assert_tensor(
            &format!("{name} variable"),
            var.as_ref().unwrap(),
            want,
            rtol,
        );
    }
}

fn check_family(prefixes: &[&str]) {
    let mut n = 0;
    for case in cases() {
        let f = case["fn"].as_str().unwrap();
        if prefixes.iter().any(|p| f.starts_with(p)) {
            check(case);
            n += 1;
        }
    }
    assert!(n > 0, "no cases for {prefixes:?}");
}

#[test]
fn variable_scatters_match_tensorflow() {
    check_family(&["scatter_", "resource_scatter"]);
}

#[test]
fn tensor_scatters_match_tensorflow() {
    check_family(&["tensor_scatter"]);
}

#[test]
fn diagonals_and_bands_match_tensorflow() {
    check_family(&["matrix_diag", "matrix_set_diag", "diag", "matrix_band_part"]);
}

#[test]
fn inverse_determinant_cholesky_and_solve_match_tensorflow() {
    check_family(&[
        "matrix_inverse",
        "matrix_determinant",
        "cholesky",
        "matrix_triangular",
    ]);
}

#[test]
fn einsum_matches_tensorflow() {
    check_family(&["einsum"]);
}

#[test]
fn array_ops_match_tensorflow() {
    check_family(&[
        "roll",
        "unique_with_counts",
        "space_to_depth",
        "depth_to_space",
        "lin_space",
        "bucketize",
        "histogram_fixed_width",
        "bincount",
    ]);
}

#[test]
fn every_case_has_a_family() {
    let families = [
        "scatter_",
        "resource_scatter",
        "tensor_scatter",
        "matrix_diag",
        "matrix_set_diag",
        "diag",
        "matrix_band_part",
        "matrix_inverse",
        "matrix_determinant",
        "cholesky",
        "matrix_triangular",
        "einsum",
        "roll",
        "unique_with_counts",
        "space_to_depth",
        "depth_to_space",
        "lin_space",
        "bucketize",
        "histogram_fixed_width",
        "bincount",
    ];
    for case in cases() {
        let f = case["fn"].as_str().unwrap();
        assert!(
            families.iter().any(|p| f.starts_with(p)),
            "{f} is not tested"
        );
    }
}

#[test]
fn scatter_updates_accumulate_across_runs_and_keep_earlier_reads() {
    use weir_ops::array::constant;
    use weir_ops::state::{scatter_add, Variable};
    let g = Graph::new();
    let v = Variable::new(constant(&g, [1.0f32, 2.0, 3.0]).unwrap()).unwrap();
    let up = scatter_add(
        &v,
        constant(&g, [2, 2]).unwrap(),
        constant(&g, [1.0f32, 1.0]).unwrap(),
    )
    .unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_target(&v.initializer()).unwrap();
    let before = sess.eval(v.value()).unwrap();
    assert_eq!(
        sess.eval(&up).unwrap().to_vec::<f32>().unwrap(),
        vec![1.0, 2.0, 5.0]
    );
    assert_eq!(
        sess.eval(&up).unwrap().to_vec::<f32>().unwrap(),
        vec![1.0, 2.0, 7.0]
    );
    assert_eq!(before.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0]);
    // A failed update leaves the variable as it was.
    let bad = scatter_add(
        &v,
        constant(&g, [0, 9]).unwrap(),
        constant(&g, [1.0f32, 1.0]).unwrap(),
    )
    .unwrap();
    let e = sess.eval(&bad).unwrap_err();
    assert_eq!(e.message(), "indices[1] = 9 is not in [0, 3)");
    assert_eq!(
        sess.eval(v.value()).unwrap().to_vec::<f32>().unwrap(),
        vec![1.0, 2.0, 7.0]
    );
}

#[test]
fn scatter_into_an_uninitialized_variable_is_a_failed_precondition() {
    use weir_ops::array::constant;
    use weir_ops::state::{scatter_update, Variable};
    let g = Graph::new();
    let v = Variable::builder(constant(&g, [1, 2]).unwrap())
        .name("v")
        .build()
        .unwrap();
    let up = scatter_update(&v, constant(&g, [0]).unwrap(), constant(&g, [5]).unwrap()).unwrap();
    let e = Session::new(&g).unwrap().eval(&up).unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert_eq!(e.message(), "Attempting to use uninitialized value v");
}
