//! `Eig` (`tf.linalg.eig`, `tf.linalg.eigvals`): eigenvalues and eigenvectors of batches of
//! general square matrices, as Eigen's `ComplexEigenSolver` computes them for TensorFlow's CPU
//! kernel: complex Schur form (Householder Hessenberg reduction, shifted QR), eigenvectors by
//! back substitution normalised to unit length, everything sorted by ascending modulus.
//!
//! Eigenvectors are unique only up to a complex phase, and eigenvalues of equal modulus (a
//! conjugate pair) may come in either order: weir's follow from its own QR sweeps.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, Complex, DType, Error, InferenceContext, Kernel, Node, OpContext,
    OpDef, Output, Result, Shape, Tensor,
};

use super::super::batch::square_size;
use super::scalar::Field;
use super::shapes::{at_least, batch, dim_back, merge_dim};

type C = Complex<f64>;

/// `tf.linalg.eig(tensor)`: `(e, v)`, the eigenvalues (complex, by ascending modulus) and unit
/// eigenvectors (the columns of `v`) of each square matrix of `tensor` (float32 and complex64
/// give complex64, float64 and complex128 complex128).
pub fn eig(tensor: impl Into<Output>) -> Result<(Output, Output)> {
    let op = eig_op(tensor.into(), true)?;
    Ok((op.output(0)?, op.output(1)?))
}

/// `tf.linalg.eigvals(tensor)`: the eigenvalues of [`eig`] alone (`compute_v=False`).
pub fn eigvals(tensor: impl Into<Output>) -> Result<Output> {
    eig_op(tensor.into(), false)?.output(0)
}

fn eig_op(x: Output, compute_v: bool) -> Result<weir_graph::Operation> {
    let tout = match x.dtype() {
        DType::F32 | DType::C64 => DType::C64,
        _ => DType::C128,
    };
    crate::new_op(&x.graph().clone(), "Eig")
        .input(x)
        .attr("compute_v", compute_v)
        .attr("Tout", tout)
        .build()
}

/// A Givens rotation `[c s; -conj(s) c]` (real `c`) taking `(a, b)` to `(r, 0)`.
fn givens(a: C, b: C) -> (f64, C) {
    let (na, nb) = (a.norm(), b.norm());
    if nb == 0.0 {
        return (1.0, C::new(0.0, 0.0));
    }
    if na == 0.0 {
        return (0.0, b.conj() / nb);
    }
    let r = na.hypot(nb);
    let c = na / r;
    let s = (a / na) * b.conj() / r;
    (c, s)
}

/// Applies the rotation to rows `p`, `p+1` of the row-major `n x n` `m`, columns `from..n`.
fn rot_rows(m: &mut [C], n: usize, p: usize, (c, s): (f64, C), from: usize) {
    for j in from..n {
        let (x, y) = (m[p * n + j], m[(p + 1) * n + j]);
        m[p * n + j] = x * c + s * y;
        m[(p + 1) * n + j] = -s.conj() * x + y * c;
    }
}

/// Applies the rotation's adjoint on the right to columns `p`, `p+1`, rows `0..to`.
fn rot_cols(m: &mut [C], n: usize, p: usize, (c, s): (f64, C), to: usize) {
    for i in 0..to {
        let (x, y) = (m[i * n + p], m[i * n + p + 1]);
        m[i * n + p] = x * c + y * s.conj();
        m[i * n + p + 1] = -s * x + y * c;
    }
}

/// The complex Schur form `A = U T U*` in place (`a` becomes `T`, `u` gets `U`); false when
/// the QR iteration does not converge in Eigen's `30 n` iterations.
fn schur(a: &mut [C], u: &mut [C], n: usize) -> bool {
    for (i, v) in u.iter_mut().enumerate() {
        *v = if i / n == i % n {
            C::new(1.0, 0.0)
        } else {
            C::new(0.0, 0.0)
        };
    }
    // Householder reduction to Hessenberg form.
    let mut v = vec![C::new(0.0, 0.0); n];
    for k in 0..n.saturating_sub(2) {
        let norm = (k + 1..n)
            .map(|i| a[i * n + k].norm_sqr())
            .sum::<f64>()
            .sqrt();
        if norm == 0.0 {
            continue;
        }
        let x0 = a[(k + 1) * n + k];
        let phase = if x0.norm() == 0.0 {
            C::new(1.0, 0.0)
        } else {
            x0 / x0.norm()
        };
        let alpha = -phase * norm;
        for i in k + 1..n {
            v[i] = a[i * n + k];
        }
        v[k + 1] -= alpha;
        let vn = (k + 1..n).map(|i| v[i].norm_sqr()).sum::<f64>().sqrt();
        if vn == 0.0 {
            continue;
        }
        for x in &mut v[k + 1..n] {
            *x /= vn;
        }
        // A = H A H, U = U H with H = I - 2 v v*.
        for j in 0..n {
            let d: C = (k + 1..n).map(|i| v[i].conj() * a[i * n + j]).sum();
            for i in k + 1..n {
                a[i * n + j] -= v[i] * d * 2.0;
            }
        }
        for m in [&mut *a, &mut *u] {
            for i in 0..n {
                let d: C = (k + 1..n).map(|j| m[i * n + j] * v[j]).sum();
                for j in k + 1..n {
                    m[i * n + j] -= d * v[j].conj() * 2.0;
                }
            }
        }
        for i in k + 2..n {
            a[i * n + k] = C::new(0.0, 0.0);
        }
    }
    let eps = f64::EPSILON;
    let small = |a: &[C], i: usize| {
        a[i * n + i - 1].l1_norm()
            <= eps * (a[(i - 1) * n + i - 1].l1_norm() + a[i * n + i].l1_norm())
    };
    let max_iter = 30 * n;
    let (mut iu, mut iter, mut total) = (n.saturating_sub(1), 0usize, 0usize);
    while iu > 0 {
        if small(a, iu) {
            a[iu * n + iu - 1] = C::new(0.0, 0.0);
            iu -= 1;
            iter = 0;
            continue;
        }
        iter += 1;
        total += 1;
        if total > max_iter {
            return false;
        }
        let mut il = iu - 1;
        while il > 0 && !small(a, il) {
            il -= 1;
        }
        if il > 0 {
            a[il * n + il - 1] = C::new(0.0, 0.0);
        }
        // Wilkinson's shift (the eigenvalue of the trailing 2x2 nearer its last entry), with
        // exceptional shifts to break cycles.
        let shift = if iter == 10 || iter == 30 {
            let below = if iu >= 2 {
                a[(iu - 1) * n + iu - 2].re.abs()
            } else {
                0.0
            };
            C::new(a[iu * n + iu - 1].re.abs() + below, 0.0)
        } else {
            let (p, q) = (a[(iu - 1) * n + iu - 1], a[iu * n + iu]);
            let t = (p + q) * 0.5;
            let det = p * q - a[(iu - 1) * n + iu] * a[iu * n + iu - 1];
            let disc = (t * t - det).sqrt();
            let (l1, l2) = (t + disc, t - disc);
            if (l1 - q).norm() <= (l2 - q).norm() {
                l1
            } else {
                l2
            }
        };
        let mut rot = givens(a[il * n + il] - shift, a[(il + 1) * n + il]);
        rot_rows(a, n, il, rot, il);
        rot_cols(a, n, il, rot, (il + 3).min(iu + 1));
        rot_cols(u, n, il, rot, n);
        for i in il + 1..iu {
            rot = givens(a[i * n + i - 1], a[(i + 1) * n + i - 1]);
            rot_rows(a, n, i, rot, i - 1);
            a[(i + 1) * n + i - 1] = C::new(0.0, 0.0);
            rot_cols(a, n, i, rot, (i + 3).min(iu + 1));
            rot_cols(u, n, i, rot, n);
        }
    }
    true
}

/// One matrix: eigenvalues into `e` and (with `v`) unit eigenvectors into `v`'s columns,
/// sorted by ascending modulus; false on non-convergence or an infinite entry.
fn eig_one(a: &mut [C], n: usize, e: &mut [C], v: Option<&mut [C]>, u: &mut [C]) -> bool {
    // Eigen scales the matrix by its largest modulus first: an infinite entry turns it all to
    // NaN and the iteration never converges, while a NaN is skipped by `maxCoeff`.
    if a.iter().any(|x| x.re.is_infinite() || x.im.is_infinite()) {
        return false;
    }
    let norm = a.iter().map(|x| x.norm()).fold(0.0, f64::max);
    if !schur(a, u, n) {
        return false;
    }
    for i in 0..n {
        e[i] = a[i * n + i];
    }
    let mut x = v;
    if let Some(out) = x.as_deref_mut() {
        let mut y = vec![C::new(0.0, 0.0); n * n];
        for k in (0..n).rev() {
            y[k * n + k] = C::new(1.0, 0.0);
            for i in (0..k).rev() {
                let mut s = -a[i * n + k];
                for j in i + 1..k {
                    s -= a[i * n + j] * y[j * n + k];
                }
                let mut z = a[i * n + i] - a[k * n + k];
                if z == C::new(0.0, 0.0) {
                    // Equal eigenvalues: a small divisor instead (only an all-zero matrix has a
                    // zero norm, and its zero numerators must stay zero, as Eigen's do).
                    z = C::new((f64::EPSILON * norm).max(f64::MIN_POSITIVE), 0.0);
                }
                y[i * n + k] = s.quot(z);
            }
        }
        for i in 0..n {
            for k in 0..n {
                out[i * n + k] = (0..n).map(|j| u[i * n + j] * y[j * n + k]).sum();
            }
        }
        for k in 0..n {
            let nn = (0..n)
                .map(|i| out[i * n + k].norm_sqr())
                .sum::<f64>()
                .sqrt();
            if nn > 0.0 {
                for i in 0..n {
                    out[i * n + k] /= nn;
                }
            }
        }
    }
    // Eigen's `sortEigenvalues`: a selection sort on the modulus, swapping columns along.
    for i in 0..n {
        let mut k = i;
        for j in i + 1..n {
            if e[j].norm() < e[k].norm() {
                k = j;
            }
        }
        if k != i {
            e.swap(i, k);
            if let Some(out) = x.as_deref_mut() {
                for r in 0..n {
                    out.swap(r * n + i, r * n + k);
                }
            }
        }
    }
    true
}

fn input_as_c128(x: &Tensor) -> Result<Vec<C>> {
    Ok(match x.dtype() {
        DType::F32 => x
            .as_slice::<f32>()?
            .iter()
            .map(|&v| C::new(v as f64, 0.0))
            .collect(),
        DType::F64 => x
            .as_slice::<f64>()?
            .iter()
            .map(|&v| C::new(v, 0.0))
            .collect(),
        DType::C64 => x
            .as_slice::<Complex<f32>>()?
            .iter()
            .map(|v| C::new(v.re as f64, v.im as f64))
            .collect(),
        _ => x.as_slice::<C>()?.to_vec(),
    })
}

fn to_tensor(dims: &[usize], v: Vec<C>, tout: DType) -> Result<Tensor> {
    if tout == DType::C64 {
        Tensor::from_vec(
            dims,
            v.iter()
                .map(|c| Complex::new(c.re as f32, c.im as f32))
                .collect(),
        )
    } else {
        Tensor::from_vec(dims, v)
    }
}

struct EigKernel {
    compute_v: bool,
    tout: DType,
}

impl Kernel for EigKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let n = square_size(x.shape())?;
        let s = x.shape().to_vec();
        let mut work = input_as_c128(x)?;
        let bdims = &s[..s.len() - 2];
        let nb: usize = bdims.iter().product();
        let mut e = vec![C::new(0.0, 0.0); nb * n];
        let mut v = vec![C::new(0.0, 0.0); if self.compute_v { nb * n * n } else { 0 }];
        let mut u = vec![C::new(0.0, 0.0); n * n];
        if n > 0 {
            for b in 0..nb {
                let vb = if self.compute_v {
                    Some(&mut v[b * n * n..(b + 1) * n * n])
                } else {
                    None
                };
                let a = &mut work[b * n * n..(b + 1) * n * n];
                if !eig_one(a, n, &mut e[b * n..(b + 1) * n], vb, &mut u) {
                    return Err(Error::invalid_argument(
                        "Eigen decomposition was not successful. The input might not be valid.",
                    ));
                }
            }
        }
        let mut edims = bdims.to_vec();
        edims.push(n);
        ctx.set_output(0, to_tensor(&edims, e, self.tout)?);
        let v = if self.compute_v {
            to_tensor(&s, v, self.tout)?
        } else {
            to_tensor(&[0], v, self.tout)?
        };
        ctx.set_output(1, v);
        Ok(())
    }
}

/// `SelfAdjointEigV2ShapeFn`, which `Eig` shares.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let d = at_least(ctx.input_shape(0), 2)?;
    let n = merge_dim(dim_back(&d, 2), dim_back(&d, 1))?;
    let b = batch(&d);
    ctx.set_output(0, b.concatenate(&Shape::new(vec![n])));
    let compute_v: bool = ctx.attr("compute_v")?;
    ctx.set_output(
        1,
        if compute_v {
            b.concatenate(&Shape::new(vec![n, n]))
        } else {
            Shape::known(&[0])
        },
    );
    Ok(())
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let t: DType = node.attr("T")?;
    let tout: DType = node.attr("Tout")?;
    let ok = matches!(
        (t, tout),
        (DType::F32 | DType::C64, DType::C64) | (DType::F64 | DType::C128, DType::C128)
    );
    if !ok {
        return Err(Error::invalid_argument(format!(
            "No OpKernel was registered to support Op 'Eig' used by {{{{node {}}}}} with these \
             attrs: [compute_v={}, T={}, Tout={}]",
            node.name(),
            node.attr::<bool>("compute_v")?,
            t.proto_name(),
            tout.proto_name()
        )));
    }
    Ok(Box::new(EigKernel {
        compute_v: node.attr("compute_v")?,
        tout,
    }))
}

pub(super) fn register() {
    register_op(
        OpDef::new("Eig")
            .input("input", ArgType::Attr("T"))
            .output("e", ArgType::Attr("Tout"))
            .output("v", ArgType::Attr("Tout"))
            .attr("compute_v", AttrKind::Bool, Some(AttrValue::Bool(true)))
            .type_attr("T", &[DType::F32, DType::F64, DType::C64, DType::C128])
            .type_attr("Tout", &[DType::C64, DType::C128])
            .shape_fn(shape_fn),
    );
    register_kernel("Eig", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rotation_has_eigenvalues_plus_and_minus_i() {
        let mut a = vec![
            C::new(0.0, 0.0),
            C::new(-1.0, 0.0),
            C::new(1.0, 0.0),
            C::new(0.0, 0.0),
        ];
        let (mut e, mut v, mut u) = (
            vec![C::new(0.0, 0.0); 2],
            vec![C::new(0.0, 0.0); 4],
            vec![C::new(0.0, 0.0); 4],
        );
        assert!(eig_one(&mut a, 2, &mut e, Some(&mut v), &mut u));
        let mut im: Vec<f64> = e.iter().map(|z| z.im).collect();
        im.sort_by(f64::total_cmp);
        assert!(
            (im[0] + 1.0).abs() < 1e-12 && (im[1] - 1.0).abs() < 1e-12,
            "{e:?}"
        );
        assert!(e.iter().all(|z| z.re.abs() < 1e-12));
        let mut inf = vec![C::new(f64::INFINITY, 0.0); 4];
        assert!(!eig_one(&mut inf, 2, &mut e, None, &mut u));
    }
}
