//! Linear algebra (TensorFlow's `linalg_ops` and the matrix ops of `array_ops`): batched
//! diagonals and bands, inverse, determinant, Cholesky factor, triangular solve, and `einsum`.
//!
//! Every op works on batches of matrices in the last two dimensions; the float-only ones
//! (inverse, determinant, Cholesky, triangular solve) take float32 and float64.

mod batch;
mod cholesky;
mod cross;
mod decompose;
mod diag_band;
mod eig;
mod einsum;
mod einsum_plan;
mod expm;
mod log_det;
mod lstsq;
mod lu;
mod lu_tridiag;
mod matrix_diag;
mod matrix_diag_kernels;
mod qr;
mod solve;
mod sqrtm;
mod svd;

pub use cholesky::{cholesky, matrix_triangular_solve};
pub use cross::cross;
pub use diag_band::{band_part, diag, diag_part, matrix_band_part};
pub use eig::{self_adjoint_eig, self_adjoint_eigvals};
pub use einsum::einsum;
pub use expm::matrix_exponential;
pub use log_det::{log_matrix_determinant, logdet};
pub use lstsq::matrix_solve_ls;
pub use lu::{matrix_determinant, matrix_inverse};
pub use lu_tridiag::{
    banded_triangular_solve, eig, eigvals, lu, lu_matrix_inverse, lu_reconstruct, lu_solve,
    lu_with_index_type, tridiagonal_mat_mul, tridiagonal_matmul, tridiagonal_solve,
    tridiagonal_solve_op, Diagonals, TridiagonalSolve,
};
pub use matrix_diag::{matrix_diag, matrix_diag_part, matrix_set_diag, Align, MatrixDiag};
pub use qr::qr;
pub use solve::matrix_solve;
pub use sqrtm::matrix_square_root;
pub use svd::{pinv, svd};

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    cholesky::register();
    cross::register();
    diag_band::register();
    eig::register();
    einsum::register();
    log_det::register();
    lu::register();
    lu_tridiag::register();
    matrix_diag::register();
    qr::register();
    solve::register();
    sqrtm::register();
    svd::register();
}
