//! Spectral ops: TensorFlow's `tf.signal` FFTs. The complex transforms (`FFT`, `IFFT`, their 2-D
//! and 3-D forms) and the real ones (`RFFT`, `IRFFT`, ...) over the innermost dims, computed
//! with `rustfft` (planned once per kernel call).
//!
//! ```
//! use weir_graph::{DType, Graph, Shape};
//! use weir_ops::{array::constant, spectral::rfft};
//!
//! let g = Graph::new();
//! let x = constant(&g, [1.0f32, 2.0, 3.0, 4.0])?;
//! let spec = rfft(&x, None)?;
//! assert_eq!((spec.dtype(), spec.shape()), (DType::C64, Shape::known(&[3])));
//! # Ok::<(), weir_graph::Error>(())
//! ```

mod engine;
mod fft;
mod rfft;
pub mod signal;

pub use fft::{fft, fft2d, fft3d, ifft, ifft2d, ifft3d};
pub use rfft::{irfft, irfft2d, irfft3d, rfft, rfft2d, rfft3d};

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    fft::register();
    rfft::register();
}
