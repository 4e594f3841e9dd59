//! `Lu` (and `lu_solve`, `lu_matrix_inverse`, `lu_reconstruct`), `TridiagonalSolve` and
//! `TridiagonalMatMul` (and their Python wrappers in every `diagonals_format`) against
//! TensorFlow 2.21: every case of tests/data/linalg_lu_tridiag/expected.json (made by
//! make_linalg_lu_tridiag.py there), with its static shapes, its errors (code and message; a
//! Python ValueError/TypeError must be an InvalidArgument when the graph is built, with the
//! ValueError's message), permutations exactly and values as `close` says.

use serde_json::Value;
use weir_graph::{Complex, DType, Graph, Output, Result, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::linalg::{
    banded_triangular_solve, eig, eigvals, lu_matrix_inverse, lu_reconstruct, lu_solve,
    lu_with_index_type, tridiagonal_mat_mul, tridiagonal_matmul, tridiagonal_solve_op, Diagonals,
    TridiagonalSolve,
};

use super::io_util::{check_all_cases, check_tf_error, expected_cases, run_built_case, usizes};

/// A float recorded as the bits of its float64 value (JSON numbers would not round-trip).
fn num(v: &Value) -> f64 {
    f64::from_bits(v.as_u64().unwrap())
}

fn dtype(name: &str) -> DType {
    match name {
        "float32" => DType::F32,
        "float64" => DType::F64,
        "complex64" => DType::C64,
        "complex128" => DType::C128,
        "float16" => DType::F16,
        "int32" => DType::I32,
        "int64" => DType::I64,
        other => panic!("dtype {other}"),
    }
}

/// A spec's tensor: floats as the bits of their float64 values, complex as pairs.
fn tensor(spec: &Value) -> Tensor {
    let dims = usizes(&spec["dims"]);
    let v: Vec<&Value> = spec["values"].as_array().unwrap().iter().collect();
    let pairs = || v.chunks(2).map(|p| (num(p[0]), num(p[1])));
    match dtype(spec["dtype"].as_str().unwrap()) {
        DType::F32 => Tensor::from_vec(&dims, v.iter().map(|x| num(x) as f32).collect()),
        DType::F64 => Tensor::from_vec(&dims, v.iter().map(|x| num(x)).collect()),
        DType::F16 => Tensor::from_vec(
            &dims,
            v.iter()
                .map(|x| weir_graph::f16::from_f64(num(x)))
                .collect(),
        ),
        DType::C64 => Tensor::from_vec(
            &dims,
            pairs()
                .map(|(a, b)| Complex::new(a as f32, b as f32))
                .collect(),
        ),
        DType::C128 => Tensor::from_vec(&dims, pairs().map(|(a, b)| Complex::new(a, b)).collect()),
        DType::I32 => Tensor::from_vec(
            &dims,
            v.iter().map(|x| x.as_i64().unwrap() as i32).collect(),
        ),
        DType::I64 => Tensor::from_vec(&dims, v.iter().map(|x| x.as_i64().unwrap()).collect()),
        _ => unreachable!(),
    }
    .unwrap()
}

/// Every element as (re, im) in f64.
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
        DType::C64 => t
            .as_slice::<Complex<f32>>()
            .unwrap()
            .iter()
            .map(|c| (c.re as f64, c.im as f64))
            .collect(),
        DType::C128 => t
            .as_slice::<Complex<f64>>()
            .unwrap()
            .iter()
            .map(|c| (c.re, c.im))
            .collect(),
        DType::I32 => t
            .as_slice::<i32>()
            .unwrap()
            .iter()
            .map(|&x| (x as f64, 0.0))
            .collect(),
        DType::I64 => t
            .as_slice::<i64>()
            .unwrap()
            .iter()
            .map(|&x| (x as f64, 0.0))
            .collect(),
        dt => panic!("{dt}"),
    }
}

/// Whether weir does TensorFlow's arithmetic in TensorFlow's order for this case, so the values
/// match bit for bit: the real tridiagonal kernels (elementwise row operations, as Eigen's
/// unfused packet code does them) and the real unblocked LU (Eigen factors matrices of up to 16
/// rows without blocking). Complex division (Eigen's packet formula against Rust's), Eigen's
/// blocked LU and the composites' triangular solves and products sum in other orders.
fn exact(c: &Value, dt: DType) -> bool {
    if dt.is_complex() {
        return false;
    }
    let f = c["fn"].as_str().unwrap();
    match f {
        "lu" => usizes(&c["inputs"][0]["dims"])
            .last()
            .is_some_and(|&n| n <= 16),
        "banded_triangular_solve" => true,
        _ => f.starts_with("tridiagonal") || f.starts_with("raw_"),
    }
}

/// Compares values: bit for bit where `exact`, otherwise within `tol` times the largest
/// magnitude of the expected output (the solves here are well conditioned: diagonally dominant
/// or random matrices of size <= 40, so a few hundred epsilons of the output scale bound the
/// difference in summation order).
fn close(name: &str, c: &Value, k: usize, got: &Tensor, want: &Tensor) {
    assert_eq!(got.dtype(), want.dtype(), "{name}: dtype of output {k}");
    assert_eq!(got.shape(), want.shape(), "{name}: shape of output {k}");
    let (g, w) = (parts(got), parts(want));
    let dt = want.dtype();
    if matches!(dt, DType::I32 | DType::I64) || exact(c, dt) {
        for (i, (a, b)) in g.iter().zip(&w).enumerate() {
            let same = |x: f64, y: f64| x == y || (x.is_nan() && y.is_nan());
            assert!(
                same(a.0, b.0) && same(a.1, b.1),
                "{name}: output {k}[{i}]: {a:?} vs {b:?}"
            );
        }
        return;
    }
    let eps = if matches!(dt, DType::F32 | DType::C64) {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    let scale = w
        .iter()
        .map(|p| p.0.hypot(p.1))
        .filter(|x| x.is_finite())
        .fold(1.0f64, f64::max);
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        if b.0.is_nan() || b.1.is_nan() {
            assert!(
                a.0.is_nan() || a.1.is_nan(),
                "{name}: output {k}[{i}]: {a:?} vs NaN"
            );
            continue;
        }
        let err = (a.0 - b.0).hypot(a.1 - b.1);
        assert!(
            err <= 512.0 * eps * scale,
            "{name}: output {k}[{i}]: {a:?} vs {b:?} (error {err:e}, scale {scale})"
        );
    }
}

/// `Eig`'s outputs up to the conventions TensorFlow documents: the eigenvalues of each matrix
/// as a multiset (each of TensorFlow's matched to the nearest unused one of weir's), and each
/// eigenvector column by its residual `|A v - e v|` and unit length (its phase, and the order
/// of eigenvalues of equal modulus, being arbitrary).
fn check_eig(name: &str, c: &Value, got: &[Tensor]) {
    let want: Vec<Tensor> = c["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(tensor)
        .collect();
    assert_eq!(got.len(), want.len(), "{name}: outputs");
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.dtype(), w.dtype(), "{name}: dtype of output {k}");
        assert_eq!(g.shape(), w.shape(), "{name}: shape of output {k}");
    }
    let a = parts(&tensor(&c["inputs"][0]));
    let n = *want[0].shape().last().unwrap_or(&0);
    if n == 0 {
        return;
    }
    let eps = if want[0].dtype() == DType::C64 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    let (ge, we) = (parts(&got[0]), parts(&want[0]));
    for (b, (gb, wb)) in ge.chunks(n).zip(we.chunks(n)).enumerate() {
        let ab = &a[b * n * n..(b + 1) * n * n];
        let scale = ab
            .iter()
            .map(|p| p.0.hypot(p.1))
            .filter(|x| x.is_finite())
            .fold(1.0f64, f64::max);
        let mut used = vec![false; n];
        for w in wb {
            let (j, d) = (0..n)
                .filter(|&j| !used[j])
                .map(|j| (j, (gb[j].0 - w.0).hypot(gb[j].1 - w.1)))
                .fold(
                    (n, f64::INFINITY),
                    |acc, x| if x.1 < acc.1 { x } else { acc },
                );
            assert!(
                j < n && d <= 1e3 * eps * scale,
                "{name}: eigenvalue {w:?} of matrix {b}: weir {gb:?}"
            );
            used[j] = true;
        }
        if got.len() < 2 {
            continue;
        }
        let gv = parts(&got[1]);
        let vb = &gv[b * n * n..(b + 1) * n * n];
        let wv = parts(&want[1]);
        let tf_nan = wv[b * n * n..(b + 1) * n * n]
            .iter()
            .any(|p| p.0.is_nan() || p.1.is_nan());
        if tf_nan {
            assert!(
                vb.iter().any(|p| p.0.is_nan() || p.1.is_nan()),
                "{name}: TensorFlow's vectors have NaN"
            );
            continue;
        }
        let mul = |x: (f64, f64), y: (f64, f64)| (x.0 * y.0 - x.1 * y.1, x.0 * y.1 + x.1 * y.0);
        for col in 0..n {
            let e = gb[col];
            let norm: f64 = (0..n)
                .map(|i| vb[i * n + col].0.hypot(vb[i * n + col].1).powi(2))
                .sum::<f64>()
                .sqrt();
            assert!((norm - 1.0).abs() <= 1e2 * eps, "{name}: |v{col}| = {norm}");
            for i in 0..n {
                let mut r = (0.0, 0.0);
                for j in 0..n {
                    let t = mul(ab[i * n + j], vb[j * n + col]);
                    r = (r.0 + t.0, r.1 + t.1);
                }
                let t = mul(e, vb[i * n + col]);
                let res = (r.0 - t.0).hypot(r.1 - t.1);
                assert!(
                    res <= 1e3 * eps * scale,
                    "{name}: residual {res:e} of vector {col} of matrix {b}"
                );
            }
        }
    }
}

fn flag(c: &Value, key: &str, default: bool) -> bool {
    c["kwargs"]
        .get(key)
        .and_then(Value::as_bool)
        .unwrap_or(default)
}

fn build(c: &Value, g: &Graph, feeds: &mut Vec<(Output, Tensor)>) -> Result<Vec<Output>> {
    let mut xs = Vec::new();
    for spec in c["inputs"].as_array().unwrap() {
        let t = tensor(spec);
        if c["unknown"].as_bool().unwrap() {
            let p = placeholder(g, t.dtype(), weir_graph::Shape::unknown())?;
            feeds.push((p.clone(), t));
            xs.push(p);
        } else {
            xs.push(constant(g, t)?);
        }
    }
    let solve = TridiagonalSolve::new()
        .partial_pivoting(flag(c, "partial_pivoting", true))
        .perturb_singular(flag(c, "perturb_singular", false))
        .transpose_rhs(flag(c, "transpose_rhs", false))
        .conjugate_rhs(flag(c, "conjugate_rhs", false));
    let x = |i: usize| xs[i].clone();
    Ok(match c["fn"].as_str().unwrap() {
        "lu" => {
            let idx = c["kwargs"]
                .get("output_idx_type")
                .map_or(DType::I32, |v| dtype(v.as_str().unwrap()));
            let (a, b) = lu_with_index_type(x(0), idx)?;
            vec![a, b]
        }
        "banded_triangular_solve" => vec![banded_triangular_solve(
            x(0),
            x(1),
            flag(c, "lower", true),
            flag(c, "adjoint", false),
        )?],
        "eig" => {
            let (e, v) = eig(x(0))?;
            vec![e, v]
        }
        "eigvals" => vec![eigvals(x(0))?],
        "lu_solve" => vec![lu_solve(x(0), x(1), x(2))?],
        "lu_matrix_inverse" => vec![lu_matrix_inverse(x(0), x(1))?],
        "lu_reconstruct" => vec![lu_reconstruct(x(0), x(1))?],
        "tridiagonal_solve" => vec![solve.build(x(0), x(1))?],
        "tridiagonal_solve_seq" => {
            vec![solve.build(Diagonals::Sequence(x(0), x(1), x(2)), x(3))?]
        }
        "tridiagonal_solve_matrix" => vec![solve.build(Diagonals::Matrix(x(0)), x(1))?],
        "tridiagonal_matmul" => vec![tridiagonal_matmul(x(0), x(1))?],
        "tridiagonal_matmul_seq" => {
            vec![tridiagonal_matmul(
                Diagonals::Sequence(x(0), x(1), x(2)),
                x(3),
            )?]
        }
        "tridiagonal_matmul_matrix" => vec![tridiagonal_matmul(Diagonals::Matrix(x(0)), x(1))?],
        "raw_tridiagonal_solve" => vec![tridiagonal_solve_op(
            x(0),
            x(1),
            flag(c, "partial_pivoting", true),
            flag(c, "perturb_singular", false),
        )?],
        "raw_tridiagonal_matmul" => vec![tridiagonal_mat_mul(x(0), x(1), x(2), x(3))?],
        other => panic!("fn {other}"),
    })
}

fn check_error(name: &str, e: &weir_graph::Error, want: &Value) {
    if let Some(kind) = want.get("type").and_then(Value::as_str) {
        assert_eq!(e.code(), weir_graph::Code::InvalidArgument, "{name}: {e}");
        if kind == "ValueError" {
            let msg = want["message"].as_str().unwrap();
            let got = e.message().split(" for '").next().unwrap();
            let msg = msg.split(" for '").next().unwrap();
            assert_eq!(got, msg, "{name}");
        }
        return;
    }
    let msg = want["message"].as_str().unwrap();
    if msg.starts_with("No OpKernel was registered") {
        assert_eq!(e.code(), weir_graph::Code::InvalidArgument, "{name}: {e}");
        let head = |m: &str| m.split(" used by").next().unwrap().to_string();
        assert_eq!(head(e.message()), head(msg), "{name}");
        return;
    }
    check_tf_error(name, e, want);
}

#[test]
fn lu_and_tridiagonal_ops_match_tensorflow() {
    let cases = expected_cases("linalg_lu_tridiag");
    assert!(cases.len() >= 329, "{} cases", cases.len());
    check_all_cases(&cases, |c| {
        run_built_case(
            c,
            c.get("build_error"),
            |g, feeds| build(c, g, feeds),
            check_error,
            |name, got| {
                let want = c["outputs"].as_array().unwrap();
                if c["fn"].as_str().unwrap().starts_with("eig") {
                    check_eig(name, c, got);
                    return;
                }
                assert_eq!(got.len(), want.len(), "{name}: outputs");
                for (k, (g, w)) in got.iter().zip(want).enumerate() {
                    close(name, c, k, g, &tensor(w));
                }
            },
        )
    });
}
