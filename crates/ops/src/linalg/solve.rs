//! `MatrixSolve` (`tf.linalg.solve`) and `MatrixSolveLs` (which `tf.linalg.lstsq` builds for
//! `fast=False` and large batches) for batches of matrices with equal batch dimensions (TensorFlow's `LinearAlgebraOp` checks): LU with
//! partial pivoting for the square solve, the Cholesky-factored normal equations for the
//! least-squares fast path, and the minimum-norm solution (through the SVD) for `fast=False`.

use std::cmp::Ordering;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef,
    Output, Result, Shape, Tensor, TensorType,
};

use super::batch::{checked_len, Real, REAL};
use super::decompose::svd;
use super::lu::lu_in_place;

/// `tf.linalg.solve(matrix, rhs, adjoint=False)`: `X` with `A X = B` (`A^T X = B` with
/// `adjoint`) for each square `A` of `matrix` and `B` of `rhs` (same batch dimensions);
/// InvalidArgument "Input matrix is not invertible." on a zero pivot.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, linalg::matrix_solve};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let a = constant(&g, Tensor::from_vec(&[2, 2], vec![2.0f64, 1.0, 1.0, 3.0])?)?;
/// let b = constant(&g, Tensor::from_vec(&[2, 1], vec![3.0f64, 5.0])?)?;
/// let x = Session::new(&g)?.eval(&matrix_solve(&a, &b, false)?)?.to_vec::<f64>()?;
/// assert!((x[0] - 0.8).abs() < 1e-12 && (x[1] - 1.4).abs() < 1e-12);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn matrix_solve(
    matrix: impl Into<Output>,
    rhs: impl Into<Output>,
    adjoint: bool,
) -> Result<Output> {
    let (a, b) = (matrix.into(), rhs.into());
    let g = crate::util::same_graph(&[&a, &b])?.clone();
    crate::new_op(&g, "MatrixSolve")
        .input(a)
        .input(b)
        .attr("adjoint", adjoint)
        .build()?
        .output(0)
}

/// TensorFlow's `LinearAlgebraOp::AnalyzeInputs`: every matrix input has rank >= 2 and the
/// batch dimensions of the first. Returns the batch dimensions.
pub(crate) fn batch_of(shapes: &[&[usize]]) -> Result<Vec<usize>> {
    let first = shapes[0];
    if first.len() < 2 {
        return Err(Error::invalid_argument(format!(
            "Input tensor 0 must have rank >= 2, got {}",
            first.len()
        )));
    }
    let batch = &first[..first.len() - 2];
    for s in &shapes[1..] {
        if s.len() != first.len() {
            return Err(Error::invalid_argument(
                "All input tensors must have the same rank.",
            ));
        }
        if &s[..s.len() - 2] != batch {
            return Err(Error::invalid_argument(
                "All input tensors must have the same outer dimensions.",
            ));
        }
    }
    Ok(batch.to_vec())
}

fn zero<T: Real>() -> T {
    <T as TensorType>::zero()
}

/// Solves `A X = B` (or `A^T X = B`) for one `n x n` matrix `a` and `n x k` `b`, into `x`;
/// None when a pivot is zero (or NaN, which Eigen's `min_abs_pivot > 0` check also rejects).
fn solve_one<T: Real>(
    a: &[T],
    n: usize,
    b: &[T],
    k: usize,
    adjoint: bool,
    ws: &mut Work<T>,
) -> Option<()> {
    let (lu, perm, z) = (&mut ws.lu, &mut ws.perm, &mut ws.col);
    lu.copy_from_slice(a);
    lu_in_place(lu, n, perm);
    // A NaN pivot fails too, as Eigen's `min_abs_pivot > 0` check does.
    if (0..n).any(|i| lu[i * n + i].abs().partial_cmp(&zero()) != Some(Ordering::Greater)) {
        return None;
    }
    for c in 0..k {
        if adjoint {
            // A = P^T L U, so A^T x = b is U^T L^T (P x) = b.
            for i in 0..n {
                let mut s = b[i * k + c];
                for j in 0..i {
                    s -= lu[j * n + i] * z[j];
                }
                z[i] = s / lu[i * n + i];
            }
            for i in (0..n).rev() {
                let mut s = z[i];
                for j in i + 1..n {
                    s -= lu[j * n + i] * z[j];
                }
                z[i] = s;
            }
            for i in 0..n {
                ws.out[perm[i] * k + c] = z[i];
            }
        } else {
            for i in 0..n {
                let mut s = b[perm[i] * k + c];
                for j in 0..i {
                    s -= lu[i * n + j] * z[j];
                }
                z[i] = s;
            }
            for i in (0..n).rev() {
                let mut s = z[i];
                for j in i + 1..n {
                    s -= lu[i * n + j] * z[j];
                }
                z[i] = s / lu[i * n + i];
            }
            for (i, &zi) in z.iter().enumerate() {
                ws.out[i * k + c] = zi;
            }
        }
    }
    Some(())
}

/// Per-matrix scratch space, allocated once per kernel call.
struct Work<T> {
    lu: Vec<T>,
    perm: Vec<usize>,
    col: Vec<T>,
    out: Vec<T>,
}

fn matrix_solve_typed<T: Real>(a: &Tensor, b: &Tensor, adjoint: bool) -> Result<Tensor> {
    let (sa, sb) = (a.shape(), b.shape());
    let batch = batch_of(&[sa, sb])?;
    let r = sa.len();
    let n = sa[r - 1];
    if sa[r - 2] != n {
        return Err(Error::invalid_argument(
            "First input (lhs) must be a square matrix.",
        ));
    }
    if sb[r - 2] != n {
        return Err(Error::invalid_argument(
            "Input matrix and rhs are incompatible.",
        ));
    }
    let k = sb[r - 1];
    let mut shape = batch;
    shape.extend([n, k]);
    let mut out = vec![zero::<T>(); checked_len(&shape)?];
    let (xa, xb) = (a.as_slice::<T>()?, b.as_slice::<T>()?);
    if n * k > 0 {
        let mut ws = Work {
            lu: vec![zero(); n * n],
            perm: vec![0; n],
            col: vec![zero(); n],
            out: vec![zero(); n * k],
        };
        for (i, o) in out.chunks_exact_mut(n * k).enumerate() {
            solve_one(
                &xa[i * n * n..(i + 1) * n * n],
                n,
                &xb[i * n * k..(i + 1) * n * k],
                k,
                adjoint,
                &mut ws,
            )
            .ok_or_else(|| Error::invalid_argument("Input matrix is not invertible."))?;
            o.copy_from_slice(&ws.out);
        }
    }
    Tensor::from_vec(&shape, out)
}

/// The lower Cholesky factor of the symmetric `n x n` `g` (its lower triangle) in place, as
/// Eigen's `LLT`; false when `g` is not positive definite.
fn llt<T: Real>(g: &mut [T], n: usize) -> bool {
    for j in 0..n {
        let mut d = g[j * n + j];
        for k in 0..j {
            d -= g[j * n + k] * g[j * n + k];
        }
        if d.is_nan() || d <= zero() {
            return false;
        }
        let d = d.sqrt();
        g[j * n + j] = d;
        for i in j + 1..n {
            let mut s = g[i * n + j];
            for k in 0..j {
                s -= g[i * n + k] * g[j * n + k];
            }
            g[i * n + j] = s / d;
        }
    }
    true
}

/// Solves `L L^T x = b` in place for the factor of [`llt`] and the `n x k` `b`.
fn llt_solve<T: Real>(l: &[T], n: usize, b: &mut [T], k: usize) {
    for c in 0..k {
        for i in 0..n {
            let mut s = b[i * k + c];
            for j in 0..i {
                s -= l[i * n + j] * b[j * k + c];
            }
            b[i * k + c] = s / l[i * n + i];
        }
        for i in (0..n).rev() {
            let mut s = b[i * k + c];
            for j in i + 1..n {
                s -= l[j * n + i] * b[j * k + c];
            }
            b[i * k + c] = s / l[i * n + i];
        }
    }
}

const RANK_DEFICIENT: &str = "Input matrix was rank deficient or ill-conditioned. Try setting \
                              fast=False or provide a larger l2_regularizer > 0.";

/// The fast path for one `m x n` `a` and `m x k` `b` into the `n x k` `x`: the normal
/// equations of the first kind (`m >= n`) or, for the minimum-norm solution, of the second.
fn lstsq_fast<T: Real>(
    a: &[T],
    m: usize,
    n: usize,
    b: &[T],
    k: usize,
    l2: T,
    x: &mut [T],
) -> Result<()> {
    let s = m.min(n);
    let mut gram = vec![zero::<T>(); s * s];
    for i in 0..s {
        for j in 0..=i {
            gram[i * s + j] = if m >= n {
                (0..m).fold(zero(), |acc, r| acc + a[r * n + i] * a[r * n + j])
            } else {
                (0..n).fold(zero(), |acc, c| acc + a[i * n + c] * a[j * n + c])
            };
        }
        if l2 > zero() {
            gram[i * s + i] += l2;
        }
    }
    if !llt(&mut gram, s) {
        return Err(Error::invalid_argument(RANK_DEFICIENT));
    }
    if m >= n {
        for i in 0..n {
            for c in 0..k {
                x[i * k + c] = (0..m).fold(zero(), |acc, r| acc + a[r * n + i] * b[r * k + c]);
            }
        }
        llt_solve(&gram, n, x, k);
    } else {
        let mut y = b.to_vec();
        llt_solve(&gram, m, &mut y, k);
        for i in 0..n {
            for c in 0..k {
                x[i * k + c] = (0..m).fold(zero(), |acc, r| acc + a[r * n + i] * y[r * k + c]);
            }
        }
    }
    Ok(())
}

/// `fast=False`: the minimum-norm least-squares solution `V S^+ U^T B`, treating singular
/// values below `eps * max(m, n) * s_max` as zero (the rank threshold of Eigen's
/// `CompleteOrthogonalDecomposition`, which TensorFlow uses; it ignores the regularizer too).
fn lstsq_complete<T: Real>(a: &[T], m: usize, n: usize, b: &[T], k: usize, x: &mut [T]) {
    let r = m.min(n);
    let (mut s, mut u, mut v) = (
        vec![zero::<T>(); r],
        vec![zero::<T>(); m * r],
        vec![zero::<T>(); n * r],
    );
    svd(a, m, n, &mut s, Some((&mut u, &mut v, false)));
    let max_dim = T::from(m.max(n)).unwrap_or_else(T::one);
    let cutoff = T::epsilon() * max_dim * s.first().copied().unwrap_or_else(zero);
    x.iter_mut().for_each(|v| *v = zero());
    for j in 0..r {
        if s[j].partial_cmp(&cutoff) != Some(Ordering::Greater) {
            continue;
        }
        for c in 0..k {
            let w = (0..m).fold(zero::<T>(), |acc, i| acc + u[i * r + j] * b[i * k + c]) / s[j];
            for i in 0..n {
                x[i * k + c] += v[i * r + j] * w;
            }
        }
    }
}

fn matrix_solve_ls_typed<T: Real>(
    a: &Tensor,
    b: &Tensor,
    l2: &Tensor,
    fast: bool,
) -> Result<Tensor> {
    if !l2.shape().is_empty() {
        return Err(Error::invalid_argument(format!(
            "l2_regularizer must be scalar, got shape {}",
            super::batch::dims(l2.shape())
        )));
    }
    let l2 = l2.to_scalar::<f64>()?;
    let (sa, sb) = (a.shape(), b.shape());
    let batch = batch_of(&[sa, sb])?;
    let r = sa.len();
    let (m, n, k) = (sa[r - 2], sa[r - 1], sb[r - 1]);
    if sb[r - 2] != m {
        return Err(Error::invalid_argument(
            "Input matrix and rhs are incompatible.",
        ));
    }
    if l2 < 0.0 {
        return Err(Error::invalid_argument("l2_regularizer must be >= 0."));
    }
    let l2 = T::from(l2).unwrap_or_else(zero);
    let mut shape = batch;
    shape.extend([n, k]);
    let mut out = vec![zero::<T>(); checked_len(&shape)?];
    let (xa, xb) = (a.as_slice::<T>()?, b.as_slice::<T>()?);
    if m * n * k > 0 {
        for (i, x) in out.chunks_exact_mut(n * k).enumerate() {
            let (ai, bi) = (
                &xa[i * m * n..(i + 1) * m * n],
                &xb[i * m * k..(i + 1) * m * k],
            );
            if fast {
                lstsq_fast(ai, m, n, bi, k, l2, x)?;
            } else {
                lstsq_complete(ai, m, n, bi, k, x);
            }
        }
    }
    Tensor::from_vec(&shape, out)
}

struct SolveKernel(bool);

impl Kernel for SolveKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (a, b) = (ctx.input(0), ctx.input(1));
        let out = match a.dtype() {
            DType::F64 => matrix_solve_typed::<f64>(a, b, self.0)?,
            _ => matrix_solve_typed::<f32>(a, b, self.0)?,
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

struct SolveLsKernel(bool);

impl Kernel for SolveLsKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (a, b, l2) = (ctx.input(0), ctx.input(1), ctx.input(2));
        let out = match a.dtype() {
            DType::F64 => matrix_solve_ls_typed::<f64>(a, b, l2, self.0)?,
            _ => matrix_solve_ls_typed::<f32>(a, b, l2, self.0)?,
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// A static dimension check in TensorFlow's words.
pub(crate) fn merge_dim(a: Option<usize>, b: Option<usize>) -> Result<Option<usize>> {
    match (a, b) {
        (Some(x), Some(y)) if x != y => Err(Error::invalid_argument(format!(
            "Dimensions must be equal, but are {x} and {y}"
        ))),
        (x, y) => Ok(x.or(y)),
    }
}

/// A static rank-at-least-2 check; the dims when the rank is known.
pub(crate) fn matrix_dims(s: &Shape) -> Result<Option<Vec<Option<usize>>>> {
    match s.dims() {
        Some(d) if d.len() < 2 => Err(Error::invalid_argument(format!(
            "Shape must be at least rank 2 but is rank {}",
            d.len()
        ))),
        Some(d) => Ok(Some(d.to_vec())),
        None => Ok(None),
    }
}

/// TensorFlow's `MatrixSolveShapeFn` (`square`) and `MatrixSolveLs`'s: equal batch
/// dimensions and rows; the output has the matrix's columns and the rhs's.
fn solve_shape(ctx: &mut InferenceContext<'_>, square: bool) -> Result<()> {
    let (a, b) = (
        matrix_dims(ctx.input_shape(0))?,
        matrix_dims(ctx.input_shape(1))?,
    );
    if !square {
        if let Some(r) = ctx.input_shape(2).rank().filter(|&r| r != 0) {
            return Err(Error::invalid_argument(format!(
                "Shape must be rank 0 but is rank {r}"
            )));
        }
    }
    let (Some(mut a), Some(b)) = (a, b) else {
        ctx.set_output(0, Shape::unknown());
        return Ok(());
    };
    let (ra, rb) = (a.len(), b.len());
    if square {
        let n = merge_dim(a[ra - 2], a[ra - 1])?;
        a[ra - 2] = n;
        a[ra - 1] = n;
    }
    if ra != rb {
        return Err(Error::invalid_argument(format!(
            "Shape must be rank {ra} but is rank {rb}"
        )));
    }
    let mut out = Vec::with_capacity(ra);
    for i in 0..ra - 2 {
        out.push(merge_dim(a[i], b[i])?);
    }
    let rows = merge_dim(a[ra - 2], b[rb - 2])?;
    out.push(if square { rows } else { a[ra - 1] });
    out.push(b[rb - 1]);
    ctx.set_output(0, Shape::new(out));
    Ok(())
}

fn make_solve(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(SolveKernel(node.attr("adjoint")?)))
}

fn make_solve_ls(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(SolveLsKernel(node.attr("fast")?)))
}

pub(super) fn register() {
    register_op(
        OpDef::new("MatrixSolve")
            .input("matrix", ArgType::Attr("T"))
            .input("rhs", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .attr("adjoint", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .type_attr("T", REAL)
            .shape_fn(|ctx| solve_shape(ctx, true)),
    );
    register_kernel("MatrixSolve", make_solve);
    register_op(
        OpDef::new("MatrixSolveLs")
            .input("matrix", ArgType::Attr("T"))
            .input("rhs", ArgType::Attr("T"))
            .input("l2_regularizer", ArgType::Fixed(DType::F64))
            .output("output", ArgType::Attr("T"))
            .attr("fast", AttrKind::Bool, Some(AttrValue::Bool(true)))
            .type_attr("T", REAL)
            .shape_fn(|ctx| solve_shape(ctx, false)),
    );
    register_kernel("MatrixSolveLs", make_solve_ls);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_with_pivoting_and_adjoint() {
        let a = Tensor::from_vec(
            &[3, 3],
            vec![0.0f64, 1.0, 2.0, 1.0, 0.0, 3.0, 4.0, -3.0, 8.0],
        )
        .unwrap();
        let b = Tensor::from_vec(&[3, 1], vec![1.0f64, 2.0, 3.0]).unwrap();
        let x = matrix_solve_typed::<f64>(&a, &b, false)
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        let av = a.to_vec::<f64>().unwrap();
        for i in 0..3 {
            let r: f64 = (0..3).map(|j| av[i * 3 + j] * x[j]).sum();
            assert!((r - (i + 1) as f64).abs() < 1e-12, "{x:?}");
        }
        let x = matrix_solve_typed::<f64>(&a, &b, true)
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        for i in 0..3 {
            let r: f64 = (0..3).map(|j| av[j * 3 + i] * x[j]).sum();
            assert!((r - (i + 1) as f64).abs() < 1e-12, "{x:?}");
        }
        let s = Tensor::from_vec(&[2, 2], vec![1.0f32, 2.0, 2.0, 4.0]).unwrap();
        let b2 = Tensor::from_vec(&[2, 1], vec![1.0f32, 2.0]).unwrap();
        let e = matrix_solve_typed::<f32>(&s, &b2, false).unwrap_err();
        assert_eq!(e.message(), "Input matrix is not invertible.");
    }

    #[test]
    fn least_squares_paths_agree_on_full_rank_input() {
        let a = Tensor::from_vec(&[3, 2], vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 7.0]).unwrap();
        let b = Tensor::from_vec(&[3, 1], vec![1.0f64, 1.0, 1.0]).unwrap();
        let l2 = Tensor::scalar(0.0f64);
        let fast = matrix_solve_ls_typed::<f64>(&a, &b, &l2, true)
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        let full = matrix_solve_ls_typed::<f64>(&a, &b, &l2, false)
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        for (x, y) in fast.iter().zip(&full) {
            assert!((x - y).abs() < 1e-12, "{fast:?} {full:?}");
        }
        assert!((full[0] + 8.0 / 7.0).abs() < 1e-12 && (full[1] - 1.0).abs() < 1e-12);
        let ones = Tensor::from_vec(&[3, 2], vec![1.0f64; 6]).unwrap();
        let e = matrix_solve_ls_typed::<f64>(&ones, &b, &l2, true).unwrap_err();
        assert_eq!(e.message(), RANK_DEFICIENT);
        let x = matrix_solve_ls_typed::<f64>(&ones, &b, &l2, false)
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        assert!(
            (x[0] - 0.5).abs() < 1e-12 && (x[1] - 0.5).abs() < 1e-12,
            "{x:?}"
        );
    }
}
