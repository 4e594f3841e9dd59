//! MatrixSolve, MatrixSolveLs, LogMatrixDeterminant (and logdet), Qr, SelfAdjointEigV2, Svd
//! (and pinv), MatrixSquareRoot, expm and Cross against TensorFlow 2.21: every case of
//! tests/data/linalg_more/expected.json (made by make_linalg_more.py there), values within the
//! tolerance of `build::tolerance` (integers exactly), errors with TensorFlow's code and, for
//! kernel errors, its message (a shape function's ValueError must be an InvalidArgument at
//! build or run time).
//!
//! Eigenvectors and singular vectors are unique only up to sign: they are compared column by
//! column up to sign, and the decompositions are also checked for their defining invariants
//! (`A = U S V^T`, `Q^T Q = I`, `R` upper triangular, `A V = V diag(e)`).

mod build;

use build::{assert_close, build, cases, numbers, tensor, tolerance};
use serde_json::Value;
use weir_graph::{Code, Graph, Result, Tensor};
use weir_session::{RunArgs, Session};

fn run(case: &Value) -> Result<Vec<Tensor>> {
    let g = Graph::new();
    let built = build(&g, case)?;
    let sess = Session::new(&g)?;
    let mut args = RunArgs::new();
    for o in &built.outputs {
        args = args.fetch(o);
    }
    let outs = sess.run(&args)?;
    for (o, t) in built.outputs.iter().zip(&outs) {
        assert!(
            o.shape().is_compatible_with_dims(t.shape()),
            "{}: static shape {} vs {:?}",
            case["name"],
            o.shape(),
            t.shape()
        );
    }
    Ok(outs)
}

fn expected_code(kind: &str) -> Code {
    match kind {
        "FailedPreconditionError" => Code::FailedPrecondition,
        _ => Code::InvalidArgument,
    }
}

/// Compares the columns of the last two dimensions up to a sign each, skipping columns from
/// `free_from` on (an arbitrary orthonormal completion).
fn assert_columns_up_to_sign(what: &str, got: &Tensor, want: &Tensor, free_from: Option<usize>) {
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    let s = want.shape();
    let (r, c) = (s[s.len() - 2], s[s.len() - 1]);
    let (g, w) = (numbers(got), numbers(want));
    let tol = tolerance(want.dtype(), 1.0);
    for b in 0..w.len().checked_div(r * c).unwrap_or(0) {
        for j in 0..free_from.unwrap_or(c).min(c) {
            let col =
                |v: &[f64]| -> Vec<f64> { (0..r).map(|i| v[b * r * c + i * c + j]).collect() };
            let (gc, wc) = (col(&g), col(&w));
            let dot: f64 = gc.iter().zip(&wc).map(|(x, y)| x * y).sum();
            let sign = if dot < 0.0 { -1.0 } else { 1.0 };
            let ok = gc
                .iter()
                .zip(&wc)
                .all(|(x, y)| (sign * x - y).abs() <= tol || (x.is_nan() && y.is_nan()));
            assert!(
                ok,
                "{what}: column {j} of matrix {b}: {gc:?} vs TensorFlow {wc:?}"
            );
        }
    }
}

/// Row-major matrix `b` of the batch in `t` (`[..., r, c]`) as f64.
fn mat(t: &Tensor, b: usize) -> (Vec<f64>, usize, usize) {
    let s = t.shape();
    let (r, c) = (s[s.len() - 2], s[s.len() - 1]);
    (numbers(t)[b * r * c..(b + 1) * r * c].to_vec(), r, c)
}

fn matmul(a: &[f64], b: &[f64], m: usize, k: usize, n: usize, ta: bool, tb: bool) -> Vec<f64> {
    let (sa, sb) = (if ta { m } else { k }, if tb { k } else { n });
    (0..m * n)
        .map(|x| {
            let (i, j) = (x / n, x % n);
            (0..k)
                .map(|l| {
                    let av = if ta { a[l * sa + i] } else { a[i * sa + l] };
                    let bv = if tb { b[j * sb + l] } else { b[l * sb + j] };
                    av * bv
                })
                .sum()
        })
        .collect()
}

fn assert_all_close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    for (a, b) in got.iter().zip(want) {
        assert!((a - b).abs() <= tol, "{what}: {got:?} vs {want:?}");
    }
}

/// The defining invariants of weir's own decompositions of the case's input.
fn check_invariants(case: &Value, outs: &[Tensor]) {
    let name = case["name"].as_str().unwrap();
    let f = case["fn"].as_str().unwrap();
    if !["qr", "self_adjoint_eig", "svd"].contains(&f) {
        return;
    }
    let input = tensor(&case["inputs"]["input"]);
    let s = input.shape();
    let (m, n) = (s[s.len() - 2], s[s.len() - 1]);
    if m * n == 0 || numbers(&input).iter().any(|x| !x.is_finite()) {
        return;
    }
    let nb = numbers(&input).len() / (m * n);
    let a_max = numbers(&input).iter().fold(0.0f64, |x, y| x.max(y.abs()));
    // Products of n factors: a few n ulp of the norm on top of the elementwise tolerance.
    let tol = tolerance(input.dtype(), a_max) * 10.0;
    for b in 0..nb {
        let (a, _, _) = mat(&input, b);
        match f {
            "qr" => {
                let ((q, _, p), (r, _, _)) = (mat(&outs[0], b), mat(&outs[1], b));
                assert_all_close(name, &matmul(&q, &r, m, p, n, false, false), &a, tol);
                let eye: Vec<f64> = (0..p * p)
                    .map(|i| f64::from(u8::from(i / p == i % p)))
                    .collect();
                assert_all_close(name, &matmul(&q, &q, p, m, p, true, false), &eye, tol);
                for i in 0..p {
                    for j in 0..i.min(n) {
                        assert_eq!(r[i * n + j], 0.0, "{name}: R is not upper triangular");
                    }
                }
            }
            "self_adjoint_eig" => {
                let e = numbers(&outs[0])[b * n..(b + 1) * n].to_vec();
                assert!(
                    e.windows(2).all(|w| w[0] <= w[1]),
                    "{name}: {e:?} not ascending"
                );
                let (v, _, _) = mat(&outs[1], b);
                // The matrix the op sees: the lower triangle mirrored.
                let sym: Vec<f64> = (0..n * n)
                    .map(|x| {
                        let (i, j) = (x / n, x % n);
                        if i >= j {
                            a[x]
                        } else {
                            a[j * n + i]
                        }
                    })
                    .collect();
                let av = matmul(&sym, &v, n, n, n, false, false);
                let ve: Vec<f64> = (0..n * n).map(|x| v[x] * e[x % n]).collect();
                assert_all_close(name, &av, &ve, tol);
            }
            "svd" if outs.len() == 3 => {
                let k = m.min(n);
                let sv = numbers(&outs[0])[b * k..(b + 1) * k].to_vec();
                assert!(
                    sv.windows(2).all(|w| w[0] >= w[1]),
                    "{name}: {sv:?} not descending"
                );
                let ((u, _, uc), (v, _, vc)) = (mat(&outs[1], b), mat(&outs[2], b));
                let us: Vec<f64> = (0..m * k)
                    .map(|x| u[(x / k) * uc + x % k] * sv[x % k])
                    .collect();
                let vk: Vec<f64> = (0..n * k).map(|x| v[(x / k) * vc + x % k]).collect();
                assert_all_close(name, &matmul(&us, &vk, m, k, n, false, true), &a, tol);
                for (w, rows, cols) in [(&u, m, uc), (&v, n, vc)] {
                    let eye: Vec<f64> = (0..cols * cols)
                        .map(|i| f64::from(u8::from(i / cols == i % cols)))
                        .collect();
                    assert_all_close(
                        name,
                        &matmul(w, w, cols, rows, cols, true, false),
                        &eye,
                        tol,
                    );
                }
            }
            _ => {}
        }
    }
}

fn check(case: &Value) {
    let name = case["name"].as_str().unwrap();
    let result = run(case);
    if let Some(err) = case.get("error") {
        let e = match result {
            Err(e) => e,
            Ok(outs) => panic!("{name}: TensorFlow fails with {err}, weir gives {outs:?}"),
        };
        let kind = err["type"].as_str().unwrap();
        assert_eq!(e.code(), expected_code(kind), "{name}: {e}");
        if kind != "ValueError" {
            assert_eq!(e.message(), err["message"].as_str().unwrap(), "{name}");
        }
        return;
    }
    let outs = result.unwrap_or_else(|e| panic!("{name}: {e}"));
    let want = case["outputs"].as_array().unwrap();
    assert_eq!(outs.len(), want.len(), "{name}: outputs");
    let sign_free: Vec<u64> = case["sign_free"]
        .as_array()
        .map(|v| v.iter().map(|x| x.as_u64().unwrap()).collect())
        .unwrap_or_default();
    for (i, (o, w)) in outs.iter().zip(want).enumerate() {
        let what = format!("{name} output {i}");
        if sign_free.contains(&(i as u64)) {
            let free = case["free_from"][i.to_string()]
                .as_u64()
                .map(|v| v as usize);
            assert_columns_up_to_sign(&what, o, &tensor(w), free);
        } else {
            assert_close(&what, o, &tensor(w), 1.0);
        }
    }
    check_invariants(case, &outs);
}

#[test]
fn linalg_ops_match_tensorflow() {
    let mut per_fn = std::collections::BTreeMap::<String, usize>::new();
    for case in cases() {
        check(case);
        *per_fn
            .entry(case["fn"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    for f in [
        "matrix_solve",
        "matrix_solve_ls",
        "lstsq",
        "log_matrix_determinant",
        "logdet",
        "qr",
        "self_adjoint_eig",
        "self_adjoint_eigvals",
        "svd",
        "pinv",
        "matrix_square_root",
        "expm",
        "cross",
    ] {
        assert!(per_fn.get(f).copied().unwrap_or(0) > 0, "no case for {f}");
    }
}

#[test]
fn decompositions_of_larger_matrices_keep_their_invariants() {
    // A 12x7 matrix with a wide spread of singular values, and its Gram matrix.
    let (m, n) = (12usize, 7usize);
    let a: Vec<f64> = (0..m * n)
        .map(|i| {
            ((i * 7919 + 17) % 101) as f64 / 50.0 - 1.0 + if i % (n + 1) == 0 { 5.0 } else { 0.0 }
        })
        .collect();
    let g = Graph::new();
    let x = weir_ops::array::constant(&g, Tensor::from_vec(&[m, n], a.clone()).unwrap()).unwrap();
    let case = |f: &str| {
        serde_json::json!({
            "name": format!("{f}_large"),
            "fn": f,
            "inputs": {"input": {"dtype": "float64", "shape": [m, n], "values": a.clone()}},
        })
    };
    let sess = Session::new(&g).unwrap();
    let (q, r) = weir_ops::linalg::qr(&x, false).unwrap();
    let (s, u, v) = weir_ops::linalg::svd(&x, true, true).unwrap();
    let outs = sess.run(&RunArgs::new().fetch(&q).fetch(&r)).unwrap();
    check_invariants(&case("qr"), &outs);
    let outs = sess
        .run(&RunArgs::new().fetch(&s).fetch(&u).fetch(&v))
        .unwrap();
    check_invariants(&case("svd"), &outs);
    let gram = weir_ops::math::MatMul::new()
        .transpose_a(true)
        .build(&x, &x)
        .unwrap();
    let (e, ev) = weir_ops::linalg::self_adjoint_eig(&gram).unwrap();
    let outs = sess
        .run(&RunArgs::new().fetch(&gram).fetch(&e).fetch(&ev))
        .unwrap();
    let gram_case = serde_json::json!({
        "name": "eig_large", "fn": "self_adjoint_eig",
        "inputs": {"input": {"dtype": "float64", "shape": [n, n], "values": numbers(&outs[0])}},
    });
    check_invariants(&gram_case, &outs[1..]);
    // The squared singular values are the Gram matrix's eigenvalues (in reverse order).
    let sv = numbers(&sess.eval(&s).unwrap());
    let ev = numbers(&outs[1]);
    for (i, x) in sv.iter().enumerate() {
        let want = ev[n - 1 - i];
        assert!((x * x - want).abs() <= 1e-12 * ev[n - 1], "{x} {want}");
    }
}

#[test]
fn lstsq_builds_tensorflows_composite_or_op() {
    use weir_graph::Shape;
    let ops_of = |g: &Graph| -> Vec<String> {
        g.with_nodes(|n| n.iter().map(|n| n.op_type().to_string()).collect())
    };
    let g = Graph::new();
    let a =
        weir_ops::array::constant(&g, Tensor::from_vec(&[3, 2], vec![1.0f64; 6]).unwrap()).unwrap();
    let b =
        weir_ops::array::constant(&g, Tensor::from_vec(&[3, 1], vec![1.0f64; 3]).unwrap()).unwrap();
    let x = weir_ops::linalg::matrix_solve_ls(&a, &b, 0.0, true).unwrap();
    assert!(x.name().starts_with("matrix_solve_ls/"), "{}", x.name());
    let ops = ops_of(&g);
    assert!(ops.contains(&"Cholesky".to_string()) && !ops.contains(&"MatrixSolveLs".to_string()));
    weir_ops::linalg::matrix_solve_ls(&a, &b, 0.0, false).unwrap();
    assert!(ops_of(&g).contains(&"MatrixSolveLs".to_string()));
    let g = Graph::new();
    let c =
        weir_ops::array::constant(&g, Tensor::from_vec(&[3, 2], vec![1.0f64; 6]).unwrap()).unwrap();
    let a = weir_ops::array::placeholder_with_default(&c, Shape::unknown()).unwrap();
    let b =
        weir_ops::array::constant(&g, Tensor::from_vec(&[3, 1], vec![1.0f64; 3]).unwrap()).unwrap();
    weir_ops::linalg::matrix_solve_ls(&a, &b, 0.0, true).unwrap();
    let ops = ops_of(&g);
    assert!(ops.contains(&"Switch".to_string()) && ops.contains(&"Merge".to_string()));
}
