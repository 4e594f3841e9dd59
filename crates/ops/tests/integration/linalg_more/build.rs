//! The cases of tests/data/linalg_more/expected.json (made by make_linalg_more.py with
//! TensorFlow 2.21) built as weir graphs: shared by weir-ops' value tests (linalg_more.rs) and
//! weir-train's gradient tests (linalg_more_grad.rs), which includes this file by path.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder_with_default};
use weir_ops::linalg;

/// Every case TensorFlow recorded.
pub fn cases() -> &'static [Value] {
    static E: OnceLock<Value> = OnceLock::new();
    E.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../ops/tests/data/linalg_more/expected.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    })["cases"]
        .as_array()
        .unwrap()
}

/// A recorded tensor.
pub fn tensor(v: &Value) -> Tensor {
    let dt = DType::from_name(v["dtype"].as_str().unwrap()).unwrap();
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let vals = v["values"].as_array().unwrap();
    let f = |x: &Value| match x {
        Value::String(s) => s.parse::<f64>().unwrap_or(f64::NAN),
        x => x.as_f64().unwrap(),
    };
    match dt {
        DType::F32 => Tensor::from_vec(&shape, vals.iter().map(|x| f(x) as f32).collect()),
        DType::F64 => Tensor::from_vec(&shape, vals.iter().map(f).collect()),
        DType::I32 => Tensor::from_vec(
            &shape,
            vals.iter().map(|x| x.as_i64().unwrap() as i32).collect(),
        ),
        _ => panic!("unexpected dtype {dt}"),
    }
    .unwrap()
}

/// The values of a float or int32 tensor as f64.
pub fn numbers(t: &Tensor) -> Vec<f64> {
    match t.dtype() {
        DType::F32 => t
            .to_vec::<f32>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect(),
        DType::F64 => t.to_vec::<f64>().unwrap(),
        DType::I32 => t
            .to_vec::<i32>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect(),
        d => panic!("unexpected dtype {d}"),
    }
}

/// The tolerance of a comparison relative to the largest magnitude of the expected tensor:
/// float64 results of different but backward-stable algorithms (Jacobi against Eigen's QR
/// iteration and divide-and-conquer SVD) agree to a few hundred ulp of the matrix norm on these
/// well-conditioned inputs; float32 ones to about 1e-5 (weir accumulates in float32 too).
pub fn tolerance(dtype: DType, scale: f64) -> f64 {
    let rel = if dtype == DType::F64 { 1e-12 } else { 2e-5 };
    rel * scale.max(1.0)
}

/// Compares values elementwise (NaNs equal, infinities exactly, the sign of an exact zero
/// too) within `tolerance` of the largest expected magnitude times `factor`.
pub fn assert_close(what: &str, got: &Tensor, want: &Tensor, factor: f64) {
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    let (g, w) = (numbers(got), numbers(want));
    let scale = w
        .iter()
        .filter(|x| x.is_finite())
        .fold(0.0f64, |m, x| m.max(x.abs()));
    let tol = tolerance(want.dtype(), scale) * factor;
    for (a, b) in g.iter().zip(&w) {
        let ok = if b.is_nan() {
            a.is_nan()
        } else if b.is_infinite() || *b == 0.0 && want.dtype() != DType::I32 && *a == 0.0 {
            a == b && a.is_sign_negative() == b.is_sign_negative()
        } else {
            (a - b).abs() <= tol
        };
        assert!(
            ok,
            "{what}: got {g:?}, TensorFlow {w:?} (tolerance {tol:e})"
        );
    }
}

/// A weir graph of one case: its outputs, and its inputs by name.
pub struct Built {
    pub outputs: Vec<Output>,
    pub inputs: HashMap<String, Output>,
}

fn flag(case: &Value, name: &str, default: bool) -> bool {
    case["attrs"][name].as_bool().unwrap_or(default)
}

/// Builds `case` in `g`: its inputs as placeholders with defaults (of unknown shape for
/// dynamic cases, so that kernels rather than shape functions check them).
pub fn build(g: &Graph, case: &Value) -> Result<Built> {
    let mut inputs = HashMap::new();
    for (name, v) in case["inputs"].as_object().unwrap() {
        let c = constant(g, tensor(v))?;
        let shape = if case["dynamic"].as_bool().unwrap_or(false) {
            Shape::unknown()
        } else {
            c.shape()
        };
        inputs.insert(name.clone(), placeholder_with_default(&c, shape)?);
    }
    let x = |k: &str| inputs[k].clone();
    let f = case["fn"].as_str().unwrap();
    let outputs = match f {
        "matrix_solve" => vec![linalg::matrix_solve(
            x("matrix"),
            x("rhs"),
            flag(case, "adjoint", false),
        )?],
        // The raw op, as the TensorFlow side calls `gen_linalg_ops.matrix_solve_ls`.
        "matrix_solve_ls" => {
            let l2 = constant(g, case["attrs"]["l2_regularizer"].as_f64().unwrap())?;
            vec![g
                .new_operation("MatrixSolveLs")
                .input(x("matrix"))
                .input(x("rhs"))
                .input(l2)
                .attr("fast", flag(case, "fast", true))
                .build()?
                .output(0)?]
        }
        "lstsq" => vec![linalg::matrix_solve_ls(
            x("matrix"),
            x("rhs"),
            case["attrs"]["l2_regularizer"].as_f64().unwrap_or(0.0),
            flag(case, "fast", true),
        )?],
        "log_matrix_determinant" => {
            let (s, l) = linalg::log_matrix_determinant(x("input"))?;
            vec![s, l]
        }
        "logdet" => vec![linalg::logdet(x("input"))?],
        "qr" => {
            let (q, r) = linalg::qr(x("input"), flag(case, "full_matrices", false))?;
            vec![q, r]
        }
        "self_adjoint_eig" => {
            let (e, v) = linalg::self_adjoint_eig(x("input"))?;
            vec![e, v]
        }
        "self_adjoint_eigvals" => vec![linalg::self_adjoint_eigvals(x("input"))?],
        "svd" => {
            let uv = flag(case, "compute_uv", true);
            let (s, u, v) = linalg::svd(x("input"), flag(case, "full_matrices", false), uv)?;
            if uv {
                vec![s, u, v]
            } else {
                vec![s]
            }
        }
        "pinv" => vec![linalg::pinv(x("input"), None)?],
        "matrix_square_root" => vec![linalg::matrix_square_root(x("input"))?],
        "expm" => vec![linalg::matrix_exponential(x("input"))?],
        "cross" => vec![linalg::cross(x("a"), x("b"))?],
        other => panic!("unknown fn {other}"),
    };
    Ok(Built { outputs, inputs })
}
