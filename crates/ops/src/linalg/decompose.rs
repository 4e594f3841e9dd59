//! The dense factorizations behind `Qr`, `SelfAdjointEigV2`, `Svd` and `MatrixSolveLs`, each on
//! one row-major matrix: Householder QR with Eigen's reflector convention (so that `Q` and `R`
//! come out as TensorFlow's), cyclic Jacobi for symmetric eigenproblems and one-sided
//! (Hestenes) Jacobi for the SVD, both accurate to a few ulp relative to the matrix norm.

use super::batch::Real;
use weir_graph::TensorType;

fn zero<T: Real>() -> T {
    <T as TensorType>::zero()
}

/// Householder QR of the row-major `m x n` matrix `a`, in place: `R` on and above the
/// diagonal, the essential parts of the reflectors below it, their factors in `tau`
/// (`min(m, n)` of them). Each reflector is Eigen's `makeHouseholder`: `beta = -sign(c0)|x|`,
/// and none (`tau = 0`, `beta = c0`) when the column below the diagonal is already zero, so
/// `R`'s diagonal has the signs TensorFlow's kernel gives.
pub(crate) fn householder_qr<T: Real>(a: &mut [T], m: usize, n: usize, tau: &mut [T]) {
    for k in 0..m.min(n) {
        let c0 = a[k * n + k];
        let mut tail = zero::<T>();
        for i in k + 1..m {
            tail += a[i * n + k] * a[i * n + k];
        }
        if tail <= T::min_positive_value() {
            tau[k] = zero();
            for i in k + 1..m {
                a[i * n + k] = zero();
            }
            continue;
        }
        let mut beta = (c0 * c0 + tail).sqrt();
        if c0 >= zero() {
            beta = -beta;
        }
        let scale = c0 - beta;
        for i in k + 1..m {
            a[i * n + k] = a[i * n + k] / scale;
        }
        let t = (beta - c0) / beta;
        tau[k] = t;
        a[k * n + k] = beta;
        // Apply H = I - tau v v^T (v = [1, essential]) to the remaining columns.
        for j in k + 1..n {
            let mut w = a[k * n + j];
            for i in k + 1..m {
                w += a[i * n + k] * a[i * n + j];
            }
            w = w * t;
            a[k * n + j] -= w;
            for i in k + 1..m {
                let v = a[i * n + k];
                a[i * n + j] -= w * v;
            }
        }
    }
}

/// The first `cols` columns of `Q = H_0 H_1 ... H_{k-1}` from [`householder_qr`]'s output, as
/// a row-major `m x cols` matrix in `q`.
pub(crate) fn householder_q<T: Real>(
    qr: &[T],
    m: usize,
    n: usize,
    tau: &[T],
    q: &mut [T],
    cols: usize,
) {
    q.iter_mut().for_each(|v| *v = zero());
    for i in 0..m.min(cols) {
        q[i * cols + i] = T::one();
    }
    for k in (0..m.min(n)).rev() {
        let t = tau[k];
        if t == zero() {
            continue;
        }
        for j in 0..cols {
            let mut w = q[k * cols + j];
            for i in k + 1..m {
                w += qr[i * n + k] * q[i * cols + j];
            }
            w = w * t;
            q[k * cols + j] -= w;
            for i in k + 1..m {
                let v = qr[i * n + k];
                q[i * cols + j] -= w * v;
            }
        }
    }
}

/// The rotation `(c, s)` that annihilates the off-diagonal of the symmetric 2x2
/// `[[app, apq], [apq, aqq]]` (Golub & Van Loan's symmetric Schur decomposition); `t = s / c`.
fn jacobi_rotation<T: Real>(app: T, aqq: T, apq: T) -> (T, T, T) {
    let two = T::one() + T::one();
    let theta = (aqq - app) / (two * apq);
    // For a huge theta, 1 + theta^2 overflows; t is then 1 / (2 theta) to working precision.
    let t = if theta.abs() > T::one() / T::epsilon() {
        T::one() / (two * theta)
    } else {
        let t = T::one() / (theta.abs() + (T::one() + theta * theta).sqrt());
        if theta < zero() {
            -t
        } else {
            t
        }
    };
    let c = T::one() / (T::one() + t * t).sqrt();
    (c, t * c, t)
}

/// Eigenvalues (ascending, into `w`) and eigenvectors (the columns of the row-major `n x n`
/// `v`, when given) of the symmetric matrix whose lower triangle is that of `a`, by cyclic
/// Jacobi. `a` is overwritten.
pub(crate) fn symmetric_eigen<T: Real>(
    a: &mut [T],
    n: usize,
    w: &mut [T],
    mut v: Option<&mut [T]>,
) {
    for i in 0..n {
        for j in i + 1..n {
            a[i * n + j] = a[j * n + i];
        }
    }
    if let Some(v) = v.as_deref_mut() {
        v.iter_mut().for_each(|x| *x = zero());
        for i in 0..n {
            v[i * n + i] = T::one();
        }
    }
    for _sweep in 0..100 {
        let mut rotated = false;
        for p in 0..n {
            for q in p + 1..n {
                let apq = a[p * n + q];
                let (app, aqq) = (a[p * n + p], a[q * n + q]);
                // Off-diagonal entries below eps * sqrt(|app aqq|) no longer change the
                // eigenvalues to working precision (Demmel & Veselic's criterion).
                if apq.abs() <= T::epsilon() * (app.abs() * aqq.abs()).sqrt()
                    || apq.abs() < T::min_positive_value()
                {
                    a[p * n + q] = zero();
                    a[q * n + p] = zero();
                    continue;
                }
                rotated = true;
                let (c, s, t) = jacobi_rotation(app, aqq, apq);
                a[p * n + p] = app - t * apq;
                a[q * n + q] = aqq + t * apq;
                a[p * n + q] = zero();
                a[q * n + p] = zero();
                for r in 0..n {
                    if r == p || r == q {
                        continue;
                    }
                    let (arp, arq) = (a[r * n + p], a[r * n + q]);
                    let (np, nq) = (c * arp - s * arq, s * arp + c * arq);
                    a[r * n + p] = np;
                    a[p * n + r] = np;
                    a[r * n + q] = nq;
                    a[q * n + r] = nq;
                }
                if let Some(v) = v.as_deref_mut() {
                    for r in 0..n {
                        let (vp, vq) = (v[r * n + p], v[r * n + q]);
                        v[r * n + p] = c * vp - s * vq;
                        v[r * n + q] = s * vp + c * vq;
                    }
                }
            }
        }
        if !rotated {
            break;
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| {
        a[i * n + i]
            .partial_cmp(&a[j * n + j])
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    for (k, &i) in order.iter().enumerate() {
        w[k] = a[i * n + i];
    }
    if let Some(v) = v {
        // Reuse `a` (now diagonal) for the permuted eigenvectors.
        for r in 0..n {
            for (k, &i) in order.iter().enumerate() {
                a[r * n + k] = v[r * n + i];
            }
        }
        v.copy_from_slice(&a[..n * n]);
    }
}

/// The thin SVD of a column-major `m x n` matrix with `m >= n` (columns `cols[j*m..(j+1)*m]`),
/// by one-sided Jacobi: `cols` becomes `U S`, `v` (column-major `n x n`) `V`. Returns when the
/// columns are orthogonal to working precision.
fn one_sided_jacobi<T: Real>(cols: &mut [T], m: usize, n: usize, v: &mut [T]) {
    v.iter_mut().for_each(|x| *x = zero());
    for i in 0..n {
        v[i * n + i] = T::one();
    }
    let dot = |x: &[T], y: &[T]| x.iter().zip(y).fold(zero::<T>(), |s, (&a, &b)| s + a * b);
    for _sweep in 0..100 {
        let mut rotated = false;
        for p in 0..n {
            for q in p + 1..n {
                let (cp, cq) = (&cols[p * m..(p + 1) * m], &cols[q * m..(q + 1) * m]);
                let (alpha, beta, gamma) = (dot(cp, cp), dot(cq, cq), dot(cp, cq));
                if gamma.abs() <= T::epsilon() * (alpha * beta).sqrt()
                    || gamma.abs() < T::min_positive_value()
                {
                    continue;
                }
                rotated = true;
                // The rotation diagonalizing the Gram matrix [[alpha, gamma], [gamma, beta]].
                let (c, s, _) = jacobi_rotation(alpha, beta, gamma);
                for i in 0..m {
                    let (x, y) = (cols[p * m + i], cols[q * m + i]);
                    cols[p * m + i] = c * x - s * y;
                    cols[q * m + i] = s * x + c * y;
                }
                for i in 0..n {
                    let (x, y) = (v[p * n + i], v[q * n + i]);
                    v[p * n + i] = c * x - s * y;
                    v[q * n + i] = s * x + c * y;
                }
            }
        }
        if !rotated {
            break;
        }
    }
}

/// Completes the first `have` orthonormal columns of the column-major `m x k` matrix `u` to
/// `k` orthonormal columns, by Gram-Schmidt (twice) on the unit vectors.
fn complete_basis<T: Real>(u: &mut [T], m: usize, k: usize, mut have: usize, tmp: &mut [T]) {
    let mut e = 0;
    while have < k && e < m {
        tmp.iter_mut().for_each(|x| *x = zero());
        tmp[e] = T::one();
        e += 1;
        for _ in 0..2 {
            for j in 0..have {
                let col = &u[j * m..(j + 1) * m];
                let d = col
                    .iter()
                    .zip(tmp.iter())
                    .fold(zero::<T>(), |s, (&a, &b)| s + a * b);
                for (t, &c) in tmp.iter_mut().zip(col) {
                    *t -= d * c;
                }
            }
        }
        let norm = tmp.iter().fold(zero::<T>(), |s, &x| s + x * x).sqrt();
        // A unit vector nearly in the span so far is skipped; one of the m is far from it.
        if norm > T::one() / (T::one() + T::one()) {
            for (i, &t) in tmp.iter().enumerate() {
                u[have * m + i] = t / norm;
            }
            have += 1;
        }
    }
}

/// The SVD of one row-major `m x n` matrix `a`: singular values descending into `s`
/// (`min(m, n)`), and with `uv` the row-major `U` (`m x ucols`) and `V` (`n x vcols`), where
/// `ucols`/`vcols` are `min(m, n)` for the thin SVD or `m`/`n` for the full one.
pub(crate) fn svd<T: Real>(
    a: &[T],
    m: usize,
    n: usize,
    s: &mut [T],
    uv: Option<(&mut [T], &mut [T], bool)>,
) {
    let k = m.min(n);
    // Jacobi works on the columns of the tall one of A and A^T, stored column-major (so a
    // wide A's rows are already the columns of A^T).
    let (tm, tn, wide) = if m >= n { (m, n, false) } else { (n, m, true) };
    let mut cols = vec![zero::<T>(); tm * tn];
    for i in 0..m {
        for j in 0..n {
            if wide {
                cols[i * n + j] = a[i * n + j];
            } else {
                cols[j * m + i] = a[i * n + j];
            }
        }
    }
    let mut v = vec![zero::<T>(); tn * tn];
    one_sided_jacobi(&mut cols, tm, tn, &mut v);
    let norms: Vec<T> = (0..tn)
        .map(|j| {
            cols[j * tm..(j + 1) * tm]
                .iter()
                .fold(zero::<T>(), |s, &x| s + x * x)
                .sqrt()
        })
        .collect();
    let mut order: Vec<usize> = (0..tn).collect();
    order.sort_by(|&i, &j| {
        norms[j]
            .partial_cmp(&norms[i])
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    for (d, &i) in s.iter_mut().zip(&order) {
        *d = norms[i];
    }
    let Some((u_out, v_out, full)) = uv else {
        return;
    };
    // The tall side's left vectors (column-major tm x tcols), normalized, then completed.
    let tcols = if full { tm } else { k };
    let mut left = vec![zero::<T>(); tm * tcols];
    let mut have = 0;
    for &i in &order {
        if norms[i] == zero() {
            break;
        }
        for r in 0..tm {
            left[have * tm + r] = cols[i * tm + r] / norms[i];
        }
        have += 1;
    }
    let mut tmp = vec![zero::<T>(); tm];
    complete_basis(&mut left, tm, tcols, have, &mut tmp);
    // The short side's vectors: V's columns in `order` (column-major tn x tn).
    let (u_cols, v_cols) = if wide { (tn, tcols) } else { (tcols, tn) };
    let u_cols = if full { u_cols } else { k };
    let v_cols = if full { v_cols } else { k };
    for r in 0..m {
        for c in 0..u_cols {
            u_out[r * u_cols + c] = if wide {
                v[order[c] * tn + r]
            } else {
                left[c * tm + r]
            };
        }
    }
    for r in 0..n {
        for c in 0..v_cols {
            v_out[r * v_cols + c] = if wide {
                left[c * tm + r]
            } else {
                v[order[c] * tn + r]
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matmul(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
        let mut c = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                c[i * n + j] = (0..k).map(|l| a[i * k + l] * b[l * n + j]).sum();
            }
        }
        c
    }

    fn transpose(a: &[f64], m: usize, n: usize) -> Vec<f64> {
        let mut t = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                t[j * m + i] = a[i * n + j];
            }
        }
        t
    }

    fn close(a: &[f64], b: &[f64], tol: f64) {
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() <= tol, "{a:?} vs {b:?}");
        }
    }

    fn sample(m: usize, n: usize) -> Vec<f64> {
        (0..m * n)
            .map(|i| ((i * 37 + 11) % 17) as f64 / 7.0 - 1.1)
            .collect()
    }

    #[test]
    fn qr_reconstructs_with_orthonormal_q() {
        for (m, n) in [(4, 3), (3, 4), (3, 3), (1, 2)] {
            let a = sample(m, n);
            let mut qr = a.clone();
            let mut tau = vec![0.0; m.min(n)];
            householder_qr(&mut qr, m, n, &mut tau);
            let mut q = vec![0.0; m * m];
            householder_q(&qr, m, n, &tau, &mut q, m);
            let r: Vec<f64> = (0..m * n)
                .map(|i| if i % n >= i / n { qr[i] } else { 0.0 })
                .collect();
            close(&matmul(&q, &r, m, m, n), &a, 1e-13);
            let eye: Vec<f64> = (0..m * m)
                .map(|i| f64::from(u8::from(i % m == i / m)))
                .collect();
            close(&matmul(&transpose(&q, m, m), &q, m, m, m), &eye, 1e-13);
        }
    }

    #[test]
    fn symmetric_eigen_diagonalizes_and_sorts() {
        let n = 4;
        let b = sample(n, n);
        let a = matmul(&b, &transpose(&b, n, n), n, n, n);
        let (mut work, mut w, mut v) = (a.clone(), vec![0.0; n], vec![0.0; n * n]);
        symmetric_eigen(&mut work, n, &mut w, Some(&mut v));
        assert!(w.windows(2).all(|p| p[0] <= p[1]), "{w:?}");
        let av = matmul(&a, &v, n, n, n);
        let vl: Vec<f64> = (0..n * n).map(|i| v[i] * w[i % n]).collect();
        close(&av, &vl, 1e-12);
    }

    #[test]
    fn svd_reconstructs_tall_and_wide_matrices() {
        for (m, n, full) in [(4, 2, true), (2, 4, false), (3, 3, false), (2, 5, true)] {
            let a = sample(m, n);
            let k = m.min(n);
            let (uc, vc) = if full { (m, n) } else { (k, k) };
            let (mut s, mut u, mut v) = (vec![0.0; k], vec![0.0; m * uc], vec![0.0; n * vc]);
            svd(&a, m, n, &mut s, Some((&mut u, &mut v, full)));
            assert!(s.windows(2).all(|p| p[0] >= p[1]), "{s:?}");
            let mut us = vec![0.0; m * k];
            for i in 0..m {
                for j in 0..k {
                    us[i * k + j] = u[i * uc + j] * s[j];
                }
            }
            let vk: Vec<f64> = (0..n * k).map(|i| v[(i / k) * vc + i % k]).collect();
            close(&matmul(&us, &transpose(&vk, n, k), m, k, n), &a, 1e-13);
            let eye: Vec<f64> = (0..uc * uc)
                .map(|i| f64::from(u8::from(i % uc == i / uc)))
                .collect();
            close(&matmul(&transpose(&u, m, uc), &u, uc, m, uc), &eye, 1e-13);
        }
    }
}
