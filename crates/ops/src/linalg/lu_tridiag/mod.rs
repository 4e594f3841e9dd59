//! LU factors and tridiagonal systems: `Lu` (`tf.linalg.lu`) with the Python functions over
//! its factors (`lu_solve`, `lu_matrix_inverse`, `lu_reconstruct`), and `TridiagonalSolve` /
//! `TridiagonalMatMul` with `tf.linalg.tridiagonal_solve` / `tridiagonal_matmul`, for float32,
//! float64, complex64 and complex128 as TensorFlow's CPU kernels; and `Eig` (`tf.linalg.eig`,
//! `tf.linalg.eigvals`) of general matrices.

mod banded_triangular_solve;
mod eig_general;
mod lu_composites;
mod lu_op;
mod scalar;
mod shapes;
mod tridiagonal_matmul;
mod tridiagonal_py;
mod tridiagonal_solve;

use weir_graph::{Error, Output, Result};

pub use banded_triangular_solve::banded_triangular_solve;
pub use eig_general::{eig, eigvals};
pub use lu_composites::{lu_matrix_inverse, lu_reconstruct, lu_solve};
pub use lu_op::{lu, lu_with_index_type};
pub use tridiagonal_matmul::tridiagonal_mat_mul;
pub use tridiagonal_py::{tridiagonal_matmul, tridiagonal_solve, Diagonals, TridiagonalSolve};
pub use tridiagonal_solve::tridiagonal_solve_op;

/// `array_ops.matrix_transpose(x)`: swaps the last two dimensions (of a known rank).
pub(crate) fn matrix_transpose(x: &Output) -> Result<Output> {
    let r = x.shape().rank().ok_or_else(|| {
        Error::invalid_argument("matrix_transpose needs the rank of its input to be known")
    })?;
    if r < 2 {
        return Err(Error::invalid_argument(format!(
            "Argument `a` should be a (batch) matrix with rank >= 2.  Received `a` = {x:?} with \
             shape: {}",
            x.shape().python_str()
        )));
    }
    let mut perm: Vec<i64> = (0..r as i64).collect();
    perm.swap(r - 2, r - 1);
    crate::array::transpose(x, perm)
}

/// Registers the ops of this module.
pub(super) fn register() {
    banded_triangular_solve::register();
    eig_general::register();
    lu_op::register();
    tridiagonal_matmul::register();
    tridiagonal_solve::register();
}
