//! Complex numbers: building complex64/complex128 tensors from their parts and taking them
//! apart (`tf.complex`, `tf.math.real`, `tf.math.imag`, `tf.math.angle`, `tf.abs` of a complex
//! tensor), `tf.math.conj`, and the conjugate transpose (`tf.linalg.adjoint`).
//!
//! ```
//! use weir_graph::{DType, Graph};
//! use weir_ops::{array::constant, complex::{complex, imag}};
//!
//! let g = Graph::new();
//! let z = complex(constant(&g, [1.0f64])?, constant(&g, [2.0f64])?)?;
//! assert_eq!((z.dtype(), imag(&z)?.dtype()), (DType::C128, DType::F64));
//! # Ok::<(), weir_graph::Error>(())
//! ```

mod conjugate_transpose;
mod parts;

pub use conjugate_transpose::{adjoint, conjugate_transpose};
pub use parts::{angle, complex, complex_abs, conj, imag, real};
pub(crate) use parts::{complex_of, real_of, with_default};

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    conjugate_transpose::register();
    parts::register();
}
