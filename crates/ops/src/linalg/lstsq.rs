//! `tf.linalg.lstsq` (`matrix_solve_ls`) as TensorFlow's Python builds it: the `MatrixSolveLs`
//! op for `fast=False` and for large io-bound batches, otherwise the normal equations composed
//! from `Cholesky` and triangular solves (deciding between the two kinds at run time with a
//! `cond` when the matrix dimensions are not known statically).

use weir_graph::{Output, Result};

use crate::array::{constant, shape, strided_slice_items, SliceItem};
use crate::math::{add, greater_equal, mul, MatMul};

/// `tf.linalg.lstsq(matrix, rhs, l2_regularizer=0.0, fast=True)`: the (regularized) least
/// squares solution of `A X = B` for each `A` of `matrix` and `B` of `rhs`: with `fast`, by the
/// Cholesky-factored normal equations (`(A^T A + l2 I)^-1 A^T B`, or `A^T (A A^T + l2 I)^-1 B`
/// for a wide `A`); without, the minimum-norm solution (ignoring `l2_regularizer`).
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, linalg::matrix_solve_ls};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let a = constant(&g, Tensor::from_vec(&[3, 1], vec![1.0f64, 1.0, 1.0])?)?;
/// let b = constant(&g, Tensor::from_vec(&[3, 1], vec![1.0f64, 2.0, 6.0])?)?;
/// let x = Session::new(&g)?.eval(&matrix_solve_ls(&a, &b, 0.0, true)?)?.to_vec::<f64>()?;
/// assert!((x[0] - 3.0).abs() < 1e-12);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn matrix_solve_ls(
    matrix: impl Into<Output>,
    rhs: impl Into<Output>,
    l2_regularizer: f64,
    fast: bool,
) -> Result<Output> {
    let (a, b) = (matrix.into(), rhs.into());
    let g = crate::util::same_graph(&[&a, &b])?.clone();
    if use_composite(&a, fast) {
        let _scope = g.name_scope("matrix_solve_ls");
        let s = a.shape();
        return match (s.dim(-2), s.dim(-1)) {
            (Some(m), Some(n)) if m >= n => overdetermined(&a, &b, l2_regularizer),
            (Some(_), Some(_)) => underdetermined(&a, &b, l2_regularizer),
            _ => {
                let dims = shape(&a)?;
                let at = |i: i64| strided_slice_items(&dims, &[SliceItem::Index(i)]);
                let tall = greater_equal(at(-2)?, at(-1)?)?;
                crate::control_flow::cond(
                    &tall,
                    || overdetermined(&a, &b, l2_regularizer),
                    || underdetermined(&a, &b, l2_regularizer),
                )
            }
        };
    }
    let l2 = constant(&g, l2_regularizer)?;
    crate::new_op(&g, "MatrixSolveLs")
        .input(a)
        .input(b)
        .input(l2)
        .attr("fast", fast)
        .build()?
        .output(0)
}

/// `_use_composite_impl`: the op for `fast=False`, and for tensors over TensorFlow's guess of
/// the L2 cache size whose batch outnumbers the smaller matrix dimension.
fn use_composite(a: &Output, fast: bool) -> bool {
    if !fast {
        return false;
    }
    let Some(dims) = a.shape().to_known() else {
        return true;
    };
    let r = dims.len();
    let bytes = dims.iter().product::<usize>() * a.dtype().size_of().unwrap_or(4);
    let batch: usize = dims[..r.saturating_sub(2)].iter().product();
    let io_bound = r >= 2 && batch > dims[r - 2].min(dims[r - 1]);
    !(bytes > 256_000 && io_bound)
}

/// `_RegularizedGramianCholesky`: the Cholesky factor of `A^T A` (`first_kind`) or `A A^T`,
/// plus `l2 I` when `l2` is not zero.
fn gramian_cholesky(a: &Output, l2: f64, first_kind: bool) -> Result<Output> {
    let gram = MatMul::new()
        .transpose_a(first_kind)
        .transpose_b(!first_kind)
        .build(a, a)?;
    let gram = if l2 != 0.0 {
        let ones = crate::array::ones_like(&super::matrix_diag_part(&gram)?)?;
        let eye = super::matrix_diag(&ones)?;
        let l2 = constant(a.graph(), weir_graph::scalar_of(a.dtype(), l2)?)?;
        add(&gram, mul(&l2, &eye)?)?
    } else {
        gram
    };
    super::cholesky(&gram)
}

/// `linalg_ops.cholesky_solve(chol, rhs)`: `L y = B`, then `L^T x = y`.
fn cholesky_solve(chol: &Output, rhs: &Output) -> Result<Output> {
    let _scope = chol.graph().name_scope("cholesky_solve");
    let y = super::matrix_triangular_solve(chol, rhs, true, false)?;
    super::matrix_triangular_solve(chol, &y, true, true)
}

/// `(A^T A + l2 I)^-1 A^T B`.
fn overdetermined(a: &Output, b: &Output, l2: f64) -> Result<Output> {
    let chol = gramian_cholesky(a, l2, true)?;
    cholesky_solve(&chol, &MatMul::new().transpose_a(true).build(a, b)?)
}

/// `A^T (A A^T + l2 I)^-1 B`.
fn underdetermined(a: &Output, b: &Output, l2: f64) -> Result<Output> {
    let chol = gramian_cholesky(a, l2, false)?;
    MatMul::new()
        .transpose_a(true)
        .build(a, cholesky_solve(&chol, b)?)
}
