//! Gradients of `TridiagonalSolve`, `TridiagonalMatMul` (raw and through the `sequence`
//! format's wrappers), `BandedTriangularSolve` and the `lu_*` composites against TensorFlow
//! 2.21's `tf.gradients` with fixed `grad_ys` (tests/data/linalg_lu_tridiag_grad/expected.json,
//! made by make_linalg_lu_tridiag_grad.py), plus weir's numeric gradient checker for the float64 cases.
//! `Lu` itself has no gradient in TensorFlow 2.21, and none here.
//!
//! Values agree within a few hundred epsilons of each gradient's largest magnitude: the
//! backward graphs reduce (`Sum`) and multiply matrices in another order than Eigen.

use std::path::Path;

use serde_json::Value;
use weir_graph::{Complex, DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::linalg::{
    banded_triangular_solve, lu, lu_matrix_inverse, lu_reconstruct, lu_solve, tridiagonal_matmul,
    Diagonals, TridiagonalSolve,
};
use weir_session::{RunArgs, Session};
use weir_train::gradients::check::gradient_error;
use weir_train::gradients::gradients;

/// The number of cases the script writes, so a truncated file cannot pass.
const CASES: usize = 53;

fn cases() -> Vec<Value> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/linalg_lu_tridiag_grad/expected.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn tensor(v: &Value) -> Tensor {
    let dims: Vec<usize> = v["dims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let vals = v["values"].as_array().unwrap();
    let f = |x: &Value| f64::from_bits(x.as_u64().unwrap());
    match v["dtype"].as_str().unwrap() {
        "float32" => Tensor::from_vec(&dims, vals.iter().map(|x| f(x) as f32).collect()),
        "float64" => Tensor::from_vec(&dims, vals.iter().map(f).collect()),
        "complex128" => Tensor::from_vec(
            &dims,
            vals.chunks(2)
                .map(|p| Complex::new(f(&p[0]), f(&p[1])))
                .collect(),
        ),
        "int32" => Tensor::from_vec(
            &dims,
            vals.iter().map(|x| x.as_i64().unwrap() as i32).collect(),
        ),
        d => panic!("dtype {d}"),
    }
    .unwrap()
}

fn parts(t: &Tensor) -> Vec<(f64, f64)> {
    match t.dtype() {
        DType::F32 => t
            .as_slice::<f32>()
            .unwrap()
            .iter()
            .map(|&x| (x as f64, 0.0))
            .collect(),
        DType::F64 => t
            .as_slice::<f64>()
            .unwrap()
            .iter()
            .map(|&x| (x, 0.0))
            .collect(),
        DType::C128 => t
            .as_slice::<Complex<f64>>()
            .unwrap()
            .iter()
            .map(|c| (c.re, c.im))
            .collect(),
        d => panic!("{d}"),
    }
}

fn assert_close(name: &str, got: &Tensor, want: &Tensor) {
    assert_eq!(got.dtype(), want.dtype(), "{name}: dtype");
    assert_eq!(got.shape(), want.shape(), "{name}: shape");
    let eps = if got.dtype() == DType::F32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    let (g, w) = (parts(got), parts(want));
    let scale = w.iter().map(|p| p.0.hypot(p.1)).fold(1.0f64, f64::max);
    for (k, (a, b)) in g.iter().zip(&w).enumerate() {
        let err = (a.0 - b.0).hypot(a.1 - b.1);
        assert!(
            err <= 256.0 * eps * scale,
            "{name}: element {k}: {a:?} vs TensorFlow {b:?}"
        );
    }
}

fn flag(c: &Value, key: &str, default: bool) -> bool {
    c["kwargs"]
        .get(key)
        .and_then(Value::as_bool)
        .unwrap_or(default)
}

/// The case's forward function of `xs` with weir's builders.
fn forward(c: &Value, xs: &[Output]) -> Result<Output> {
    let x = |i: usize| xs[i].clone();
    let solve = TridiagonalSolve::new()
        .partial_pivoting(flag(c, "partial_pivoting", true))
        .perturb_singular(flag(c, "perturb_singular", false));
    match c["fn"].as_str().unwrap() {
        "tridiagonal_solve" => solve.build(x(0), x(1)),
        "tridiagonal_solve_seq" => solve.build(Diagonals::Sequence(x(0), x(1), x(2)), x(3)),
        "tridiagonal_matmul" => tridiagonal_matmul(x(0), x(1)),
        "tridiagonal_matmul_seq" => tridiagonal_matmul(Diagonals::Sequence(x(0), x(1), x(2)), x(3)),
        "banded_triangular_solve" => banded_triangular_solve(
            x(0),
            x(1),
            flag(c, "lower", true),
            flag(c, "adjoint", false),
        ),
        "lu" => Ok(lu(x(0))?.0),
        "lu_solve" => lu_solve(x(0), x(1), x(2)),
        "lu_reconstruct" => lu_reconstruct(x(0), x(1)),
        "lu_matrix_inverse" => lu_matrix_inverse(x(0), x(1)),
        f => panic!("fn {f}"),
    }
}

fn wrt(c: &Value) -> Vec<usize> {
    c["wrt"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect()
}

fn check_case(c: &Value) {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let xs: Vec<Output> = c["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| constant(&g, tensor(s)).unwrap())
        .collect();
    let y = forward(c, &xs).unwrap();
    let before = g.operations().len();
    let gy = constant(&g, tensor(&c["grad_ys"])).unwrap();
    let targets: Vec<Output> = wrt(c).iter().map(|&i| xs[i].clone()).collect();
    let grads = gradients(std::slice::from_ref(&y), &targets, Some(&[gy]));
    if let Some(e) = c.get("error") {
        let err = grads.expect_err(name);
        assert!(
            err.message()
                .starts_with("No gradient defined for operation"),
            "{name}: {err} (TensorFlow: {e})"
        );
        return;
    }
    let grads: Vec<Output> = grads
        .unwrap()
        .into_iter()
        .map(|d| d.unwrap_or_else(|| panic!("{name}: no gradient")))
        .collect();
    let built: Vec<String> = g.operations()[before..]
        .iter()
        .map(|o| o.op_type().to_string())
        .collect();
    let f = c["fn"].as_str().unwrap();
    let want_ops: &[&str] = if f.starts_with("tridiagonal_solve") {
        &["TridiagonalSolve", "Neg", "Pack", "Sum"]
    } else if f == "banded_triangular_solve" {
        &["BandedTriangularSolve", "MatrixDiagPartV3", "Neg"]
    } else if f.starts_with("tridiagonal_matmul") {
        &["Pad", "Sum", "Mul"]
    } else {
        &["MatrixBandPart"]
    };
    for t in want_ops {
        assert!(built.iter().any(|b| b == t), "{name}: no {t} in {built:?}");
    }
    let mut args = RunArgs::new().fetch(&y);
    for d in &grads {
        args = args.fetch(d);
    }
    let out = Session::new(&g).unwrap().run(&args).unwrap();
    assert_close(&format!("{name} (forward)"), &out[0], &tensor(&c["y"]));
    for (k, w) in c["grads"].as_array().unwrap().iter().enumerate() {
        assert_close(&format!("{name}: gradient {k}"), &out[k + 1], &tensor(w));
    }
}

#[test]
fn gradients_match_tensorflow() {
    let cases = cases();
    assert_eq!(cases.len(), CASES);
    let mut failed = Vec::new();
    for c in &cases {
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check_case(c)));
        if run.is_err() {
            failed.push(c["name"].as_str().unwrap().to_string());
        }
    }
    assert!(failed.is_empty(), "cases differ: {failed:?}");
}

#[test]
fn float64_gradients_match_numeric_ones() {
    let mut checked = 0;
    for c in cases()
        .iter()
        .filter(|c| c["inputs"][0]["dtype"] == "float64" && c.get("error").is_none())
    {
        let name = c["name"].as_str().unwrap();
        for i in wrt(c) {
            let g = Graph::new();
            let vals: Vec<Tensor> = c["inputs"].as_array().unwrap().iter().map(tensor).collect();
            let x = placeholder(&g, DType::F64, Shape::known(vals[i].shape())).unwrap();
            let xs: Vec<Output> = vals
                .iter()
                .enumerate()
                .map(|(k, v)| {
                    if k == i {
                        x.clone()
                    } else {
                        constant(&g, v.clone()).unwrap()
                    }
                })
                .collect();
            let y = forward(c, &xs).unwrap();
            let err = gradient_error(&x, &vals[i], &y, &[])
                .unwrap_or_else(|e| panic!("{name} input {i}: {e}"));
            assert!(
                err < 1e-6,
                "{name} input {i}: numeric gradient differs by {err}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 41);
}
