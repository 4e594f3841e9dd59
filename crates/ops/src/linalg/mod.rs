//! Linear algebra (TensorFlow's `linalg_ops` and the matrix ops of `array_ops`): batched
//! diagonals and bands, inverse, determinant, Cholesky factor, triangular solve, and `einsum`.
//!
//! Every op works on batches of matrices in the last two dimensions; the float-only ones
//! (inverse, determinant, Cholesky, triangular solve) take float32 and float64.

mod batch;
mod cholesky;
mod diag_band;
mod einsum;
mod einsum_plan;
mod lu;
mod matrix_diag;
mod matrix_diag_kernels;

pub use cholesky::{cholesky, matrix_triangular_solve};
pub use diag_band::{band_part, diag, diag_part, matrix_band_part};
pub use einsum::einsum;
pub use lu::{matrix_determinant, matrix_inverse};
pub use matrix_diag::{matrix_diag, matrix_diag_part, matrix_set_diag, Align, MatrixDiag};

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    cholesky::register();
    diag_band::register();
    einsum::register();
    lu::register();
    matrix_diag::register();
}
