//! `Cholesky` (`tf.linalg.cholesky`) and `MatrixTriangularSolve`
//! (`tf.linalg.triangular_solve`), for batches of matrices; the solve broadcasts the batch
//! dimensions of the matrix and the right-hand side, as TensorFlow 2's kernel does.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef,
    Output, Result, Shape, Tensor,
};

use super::batch::{batch_index, broadcast, count, dims, square_shape, square_size, Real, REAL};
use weir_graph::TensorType;

/// `tf.linalg.cholesky(input)`: the lower-triangular `L` with `L L^T = A` for each symmetric
/// positive-definite matrix `A` of `input`; only the lower triangle of `A` is read.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, linalg::cholesky};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let a = constant(&g, Tensor::from_vec(&[2, 2], vec![4.0f64, 2.0, 2.0, 5.0])?)?;
/// let l = Session::new(&g)?.eval(&cholesky(&a)?)?.to_vec::<f64>()?;
/// assert_eq!(l, vec![2.0, 0.0, 1.0, 2.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn cholesky(input: impl Into<Output>) -> Result<Output> {
    let x = input.into();
    crate::new_op(&x.graph().clone(), "Cholesky")
        .input(x)
        .build()?
        .output(0)
}

/// `tf.linalg.triangular_solve(matrix, rhs, lower=True, adjoint=False)`: `X` with `A X = B`
/// (`A^T X = B` with `adjoint`) for each triangular `A` of `matrix` (its lower triangle with
/// `lower`, else its upper one) and `B` of `rhs`; batch dimensions broadcast.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, linalg::matrix_triangular_solve};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let a = constant(&g, Tensor::from_vec(&[2, 2], vec![2.0f64, 0.0, 1.0, 4.0])?)?;
/// let b = constant(&g, Tensor::from_vec(&[2, 1], vec![2.0f64, 9.0])?)?;
/// let x = matrix_triangular_solve(&a, &b, true, false)?;
/// assert_eq!(Session::new(&g)?.eval(&x)?.to_vec::<f64>()?, vec![1.0, 2.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn matrix_triangular_solve(
    matrix: impl Into<Output>,
    rhs: impl Into<Output>,
    lower: bool,
    adjoint: bool,
) -> Result<Output> {
    let (a, b) = (matrix.into(), rhs.into());
    let g = crate::util::same_graph(&[&a, &b])?.clone();
    crate::new_op(&g, "MatrixTriangularSolve")
        .input(a)
        .input(b)
        .attr("lower", lower)
        .attr("adjoint", adjoint)
        .build()?
        .output(0)
}

/// The Cholesky factor of one matrix into `out` (zero above the diagonal); false when `a` is
/// not positive definite.
fn factor<T: Real>(a: &[T], n: usize, out: &mut [T]) -> bool {
    out.iter_mut().for_each(|v| *v = <T as TensorType>::zero());
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= out[j * n + k] * out[j * n + k];
        }
        if d.is_nan() || d <= <T as TensorType>::zero() {
            return false;
        }
        let ljj = d.sqrt();
        out[j * n + j] = ljj;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= out[i * n + k] * out[j * n + k];
            }
            out[i * n + j] = s / ljj;
        }
    }
    true
}

fn cholesky_typed<T: Real>(x: &Tensor) -> Result<Tensor> {
    let n = square_size(x.shape())?;
    let src = x.as_slice::<T>()?;
    let mut out = vec![<T as TensorType>::zero(); src.len()];
    for b in 0..count(src.len(), n) {
        let r = b * n * n..(b + 1) * n * n;
        if !factor(&src[r.clone()], n, &mut out[r]) {
            return Err(Error::invalid_argument(
                "Cholesky decomposition was not successful. The input might not be valid.",
            ));
        }
    }
    Tensor::from_vec(x.shape(), out)
}

struct CholeskyKernel;

impl Kernel for CholeskyKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let out = match x.dtype() {
            DType::F64 => cholesky_typed::<f64>(x)?,
            _ => cholesky_typed::<f32>(x)?,
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// Solves one system in place: `b` (n x m, row-major) becomes `X`. Forward substitution when
/// the effective matrix (`A`, or `A^T` with `adjoint`) is lower triangular, back otherwise.
fn solve<T: Real>(a: &[T], n: usize, b: &mut [T], m: usize, lower: bool, adjoint: bool) {
    // Element (i, k) of the effective matrix.
    let at = |i: usize, k: usize| if adjoint { a[k * n + i] } else { a[i * n + k] };
    let forward = lower != adjoint;
    for step in 0..n {
        let i = if forward { step } else { n - 1 - step };
        let d = at(i, i);
        for c in 0..m {
            let mut s = b[i * m + c];
            let (k0, k1) = if forward { (0, i) } else { (i + 1, n) };
            for k in k0..k1 {
                s -= at(i, k) * b[k * m + c];
            }
            b[i * m + c] = s / d;
        }
    }
}

fn triangular_solve_typed<T: Real>(
    a: &Tensor,
    b: &Tensor,
    lower: bool,
    adjoint: bool,
) -> Result<Tensor> {
    let (sa, sb) = (a.shape(), b.shape());
    for (i, s) in [sa, sb].iter().enumerate() {
        if s.len() < 2 {
            return Err(Error::invalid_argument(format!(
                "In[{i}] ndims must be >= 2: {}",
                s.len()
            )));
        }
    }
    let (n0, n1) = (sa[sa.len() - 2], sa[sa.len() - 1]);
    if n0 != n1 {
        return Err(Error::invalid_argument(format!(
            "In[0] matrices in the last dimensions must be square ({n1} =/= {n0})"
        )));
    }
    let (ba, bb) = (&sa[..sa.len() - 2], &sb[..sb.len() - 2]);
    let batch = broadcast(ba, bb).ok_or_else(|| {
        Error::invalid_argument(format!(
            "In[0] and In[1] must have compatible batch dimensions: {} vs. {}",
            dims(sa),
            dims(sb)
        ))
    })?;
    let (d2, m) = (sb[sb.len() - 2], sb[sb.len() - 1]);
    if n1 != d2 {
        return Err(Error::invalid_argument(format!(
            "In[0] mismatch In[1] shape: {n1} vs. {d2}: {} {} {} {}",
            dims(sa),
            dims(sb),
            u8::from(lower),
            u8::from(adjoint)
        )));
    }
    let n = n0;
    let (xa, xb) = (a.as_slice::<T>()?, b.as_slice::<T>()?);
    let mut shape = batch;
    shape.extend([n, m]);
    let len = super::batch::checked_len(&shape)?;
    let mut out = crate::array::alloc_filled(&shape, len, <T as TensorType>::zero(), a.dtype())?;
    let batch = &shape[..shape.len() - 2];
    if n * m > 0 {
        for (k, o) in out.chunks_exact_mut(n * m).enumerate() {
            let (ia, ib) = (batch_index(batch, ba, k), batch_index(batch, bb, k));
            o.copy_from_slice(&xb[ib * n * m..(ib + 1) * n * m]);
            solve(&xa[ia * n * n..(ia + 1) * n * n], n, o, m, lower, adjoint);
        }
    }
    Tensor::from_vec(&shape, out)
}

struct SolveKernel {
    lower: bool,
    adjoint: bool,
}

impl Kernel for SolveKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (a, b) = (ctx.input(0), ctx.input(1));
        let out = match a.dtype() {
            DType::F64 => triangular_solve_typed::<f64>(a, b, self.lower, self.adjoint)?,
            _ => triangular_solve_typed::<f32>(a, b, self.lower, self.adjoint)?,
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn cholesky_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = square_shape(ctx, 0)?;
    ctx.set_output(0, s);
    Ok(())
}

fn solve_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let a = square_shape(ctx, 0)?;
    let b = ctx.input_shape(1).clone();
    let (Some(da), Some(db)) = (a.dims(), b.dims()) else {
        return Ok(());
    };
    if db.len() < 2 {
        return Err(Error::invalid_argument(format!(
            "Shape must be at least rank 2 but is rank {}",
            db.len()
        )));
    }
    let (n, k) = (da[da.len() - 1], db[db.len() - 2]);
    if let (Some(n), Some(k)) = (n, k) {
        if n != k {
            return Err(Error::invalid_argument(format!(
                "Dimensions must be equal, but are {n} and {k}"
            )));
        }
    }
    let (ba, bb) = (&da[..da.len() - 2], &db[..db.len() - 2]);
    let known = |s: &[Option<usize>]| s.iter().copied().collect::<Option<Vec<usize>>>();
    let mut out: Vec<Option<usize>> = match (known(ba), known(bb)) {
        (Some(x), Some(y)) => broadcast(&x, &y)
            .ok_or_else(|| {
                Error::invalid_argument(format!(
                    "Incompatible batch shapes: {} and {}",
                    Shape::new(ba.to_vec()),
                    Shape::new(bb.to_vec())
                ))
            })?
            .into_iter()
            .map(Some)
            .collect(),
        _ if ba.len() == bb.len() => ba
            .iter()
            .zip(bb)
            .map(|(x, y)| if x == y { *x } else { None })
            .collect(),
        _ => return Ok(()),
    };
    out.extend([n.or(k), db[db.len() - 1]]);
    ctx.set_output(0, Shape::new(out));
    Ok(())
}

fn make_solve(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(SolveKernel {
        lower: node.attr("lower")?,
        adjoint: node.attr("adjoint")?,
    }))
}

pub(super) fn register() {
    register_op(
        OpDef::new("Cholesky")
            .input("input", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", REAL)
            .shape_fn(cholesky_shape_fn),
    );
    register_kernel("Cholesky", |_| Ok(Box::new(CholeskyKernel)));
    register_op(
        OpDef::new("MatrixTriangularSolve")
            .input("matrix", ArgType::Attr("T"))
            .input("rhs", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .attr("lower", AttrKind::Bool, Some(AttrValue::Bool(true)))
            .attr("adjoint", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .type_attr("T", REAL)
            .shape_fn(solve_shape_fn),
    );
    register_kernel("MatrixTriangularSolve", make_solve);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cholesky_reads_the_lower_triangle_and_rejects_indefinite_input() {
        let a = Tensor::from_vec(&[2, 2], vec![4.0f64, 100.0, 2.0, 5.0]).unwrap();
        assert_eq!(
            cholesky_typed::<f64>(&a).unwrap().to_vec::<f64>().unwrap(),
            vec![2.0, 0.0, 1.0, 2.0]
        );
        let bad = Tensor::from_vec(&[2, 2], vec![1.0f32, 2.0, 2.0, 1.0]).unwrap();
        let e = cholesky_typed::<f32>(&bad).unwrap_err();
        assert!(e.is_invalid_argument());
    }

    #[test]
    fn solves_broadcast_batches_and_check_shapes() {
        let a = Tensor::from_vec(&[2, 2], vec![2.0f64, 0.0, 1.0, 4.0]).unwrap();
        let b = Tensor::from_vec(&[2, 2, 1], vec![2.0f64, 9.0, 4.0, 2.0]).unwrap();
        let x = triangular_solve_typed::<f64>(&a, &b, true, false).unwrap();
        assert_eq!(x.shape(), &[2, 2, 1]);
        assert_eq!(x.to_vec::<f64>().unwrap(), vec![1.0, 2.0, 2.0, 0.0]);
        // A^T = [[2, 1], [0, 4]]: back substitution.
        let x = triangular_solve_typed::<f64>(&a, &b, true, true).unwrap();
        assert_eq!(x.to_vec::<f64>().unwrap(), vec![-0.125, 2.25, 1.75, 0.5]);
        let bad = Tensor::from_vec(&[1, 2], vec![1.0f64, 2.0]).unwrap();
        let e = triangular_solve_typed::<f64>(&a, &bad, true, false).unwrap_err();
        assert_eq!(
            e.message(),
            "In[0] mismatch In[1] shape: 2 vs. 1: [2,2] [1,2] 1 0"
        );
        assert_eq!(broadcast(&[2, 1], &[3]), Some(vec![2, 3]));
        assert_eq!(broadcast(&[2], &[3]), None);
    }
}
