//! `MatrixSquareRoot` (`tf.linalg.sqrtm`): the principal square root of batches of square
//! matrices. Symmetric matrices go through their eigendecomposition (`V sqrt(e) V^T`, exact for
//! singular positive semi-definite ones); others through the scaled product form of the
//! Denman-Beavers iteration (Higham, *Functions of Matrices*, (6.29)). A matrix without a real
//! principal square root (a negative real eigenvalue) gives NaNs, as TensorFlow's Eigen
//! `sqrt` does; so does a singular non-symmetric one, where the iteration needs inverses.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, InferenceContext, Kernel, OpContext, OpDef, Output, Result, Tensor,
};

use super::batch::{count, square_shape, square_size};
use super::decompose::symmetric_eigen;
use super::lu::lu_in_place;

/// `tf.linalg.sqrtm(input)`: the principal square root `R` (`R R = A`) of each square matrix of
/// `input`.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, linalg::matrix_square_root};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let a = constant(&g, Tensor::from_vec(&[2, 2], vec![4.0f64, 0.0, 0.0, 9.0])?)?;
/// let r = Session::new(&g)?.eval(&matrix_square_root(&a)?)?.to_vec::<f64>()?;
/// assert!((r[0] - 2.0).abs() < 1e-12 && (r[3] - 3.0).abs() < 1e-12);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn matrix_square_root(input: impl Into<Output>) -> Result<Output> {
    let x = input.into();
    crate::new_op(&x.graph().clone(), "MatrixSquareRoot")
        .input(x)
        .build()?
        .output(0)
}

fn matmul(a: &[f64], b: &[f64], n: usize, out: &mut [f64]) {
    for i in 0..n {
        for j in 0..n {
            out[i * n + j] = (0..n).map(|k| a[i * n + k] * b[k * n + j]).sum();
        }
    }
}

/// Scratch space of the iteration, allocated once per matrix.
struct Scratch {
    inv: Vec<f64>,
    lu: Vec<f64>,
    perm: Vec<usize>,
    col: Vec<f64>,
    tmp: Vec<f64>,
    next: Vec<f64>,
}

/// The inverse of `a` into `ws.inv`, and `|det a|`; None when a pivot is zero.
fn inverse(a: &[f64], n: usize, ws: &mut Scratch) -> Option<f64> {
    let (inv, lu, perm, col) = (&mut ws.inv, &mut ws.lu, &mut ws.perm, &mut ws.col);
    lu.copy_from_slice(a);
    lu_in_place(lu, n, perm);
    let det = (0..n).map(|i| lu[i * n + i].abs()).product::<f64>();
    if (0..n).any(|i| lu[i * n + i] == 0.0) {
        return None;
    }
    for j in 0..n {
        for (i, c) in col.iter_mut().enumerate() {
            *c = f64::from(u8::from(perm[i] == j));
        }
        for i in 0..n {
            for k in 0..i {
                col[i] -= lu[i * n + k] * col[k];
            }
        }
        for i in (0..n).rev() {
            for k in i + 1..n {
                col[i] -= lu[i * n + k] * col[k];
            }
            col[i] /= lu[i * n + i];
        }
        for i in 0..n {
            inv[i * n + j] = col[i];
        }
    }
    Some(det)
}

/// The principal square root of one non-symmetric matrix by scaled Denman-Beavers; None when
/// it does not converge.
fn denman_beavers(a: &[f64], n: usize) -> Option<Vec<f64>> {
    let (mut m, mut x) = (a.to_vec(), a.to_vec());
    let mut ws = Scratch {
        inv: vec![0.0; n * n],
        lu: vec![0.0; n * n],
        perm: vec![0; n],
        col: vec![0.0; n],
        tmp: vec![0.0; n * n],
        next: vec![0.0; n * n],
    };
    let mut scale = true;
    for _ in 0..100 {
        let det = inverse(&m, n, &mut ws)?;
        let (inv, tmp, next) = (&ws.inv, &mut ws.tmp, &mut ws.next);
        // Determinant scaling speeds up the first steps; near convergence it only costs accuracy.
        let mu = if scale {
            det.powf(-0.5 / n as f64)
        } else {
            1.0
        };
        if !mu.is_finite() || mu == 0.0 {
            return None;
        }
        let (mu2, mu_2) = (mu * mu, 1.0 / (mu * mu));
        // X <- mu X (I + mu^-2 M^-1) / 2
        for i in 0..n {
            for j in 0..n {
                tmp[i * n + j] = mu_2 * inv[i * n + j] + f64::from(u8::from(i == j));
            }
        }
        matmul(&x, tmp, n, next);
        for (xv, nv) in x.iter_mut().zip(next.iter()) {
            *xv = 0.5 * mu * nv;
        }
        // M <- (I + (mu^2 M + mu^-2 M^-1) / 2) / 2
        let mut dist = 0.0f64;
        for i in 0..n {
            for j in 0..n {
                let id = f64::from(u8::from(i == j));
                let v = 0.5 * (id + 0.5 * (mu2 * m[i * n + j] + mu_2 * inv[i * n + j]));
                dist = dist.max((v - id).abs());
                m[i * n + j] = v;
            }
        }
        if !dist.is_finite() {
            return None;
        }
        if dist < 1e-2 {
            scale = false;
        }
        if dist <= 8.0 * f64::EPSILON * n as f64 {
            return Some(x);
        }
    }
    None
}

/// The principal square root of one matrix, NaNs when it has none that is real.
fn sqrtm_one(a: &[f64], n: usize) -> Vec<f64> {
    let nan = || vec![f64::NAN; n * n];
    if a.iter().any(|v| !v.is_finite()) {
        return nan();
    }
    let symmetric = (0..n).all(|i| (0..i).all(|j| a[i * n + j] == a[j * n + i]));
    if !symmetric {
        return denman_beavers(a, n).unwrap_or_else(nan);
    }
    let (mut work, mut e, mut v) = (a.to_vec(), vec![0.0; n], vec![0.0; n * n]);
    symmetric_eigen(&mut work, n, &mut e, Some(&mut v));
    // Rounding can leave the zero eigenvalues of a semi-definite matrix slightly negative.
    let tiny = 8.0 * f64::EPSILON * n as f64 * e.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if e.iter().any(|&x| x < -tiny) {
        return nan();
    }
    let r: Vec<f64> = e.iter().map(|&x| x.max(0.0).sqrt()).collect();
    (0..n * n)
        .map(|x| {
            let (i, j) = (x / n, x % n);
            (0..n).map(|k| v[i * n + k] * r[k] * v[j * n + k]).sum()
        })
        .collect()
}

fn sqrtm_tensor(x: &Tensor) -> Result<Tensor> {
    let n = square_size(x.shape())?;
    let src: Vec<f64> = match x.dtype() {
        DType::F64 => x.to_vec::<f64>()?,
        _ => x.to_vec::<f32>()?.into_iter().map(f64::from).collect(),
    };
    let mut out = vec![0.0; src.len()];
    for b in 0..count(src.len(), n) {
        let r = b * n * n..(b + 1) * n * n;
        out[r.clone()].copy_from_slice(&sqrtm_one(&src[r], n));
    }
    match x.dtype() {
        DType::F64 => Tensor::from_vec(x.shape(), out),
        _ => Tensor::from_vec(x.shape(), out.into_iter().map(|v| v as f32).collect()),
    }
}

struct SqrtmKernel;

impl Kernel for SqrtmKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let out = sqrtm_tensor(ctx.input(0))?;
        ctx.set_output(0, out);
        Ok(())
    }
}

fn sqrtm_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = square_shape(ctx, 0)?;
    ctx.set_output(0, s);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("MatrixSquareRoot")
            .input("input", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", super::batch::REAL)
            .shape_fn(sqrtm_shape_fn),
    );
    register_kernel("MatrixSquareRoot", |_| Ok(Box::new(SqrtmKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_back_and_gives_nan_without_a_real_root() {
        for a in [
            vec![1.0, -2.0, 2.0, 1.0],
            vec![4.0, 1.0, 0.5, 3.0],
            vec![1.0, 1.0, 0.0, 1.0],
        ] {
            let r = sqrtm_one(&a, 2);
            let mut rr = vec![0.0; 4];
            matmul(&r, &r, 2, &mut rr);
            for (x, y) in rr.iter().zip(&a) {
                assert!((x - y).abs() < 1e-13, "{a:?}: {rr:?}");
            }
        }
        assert_eq!(
            sqrtm_one(&[0.0, 0.0, 0.0, 1.0], 2),
            vec![0.0, 0.0, 0.0, 1.0]
        );
        assert!(sqrtm_one(&[-1.0, 0.0, 0.0, 4.0], 2)
            .iter()
            .all(|v| v.is_nan()));
        assert!(sqrtm_one(&[-1.0, 1.0, 0.0, 4.0], 2)
            .iter()
            .all(|v| v.is_nan()));
    }
}
