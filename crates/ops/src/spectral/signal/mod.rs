//! `tf.signal`'s composites, built from weir ops as TensorFlow's Python builds them: `frame`
//! and `overlap_and_add`, the Hann and Hamming windows, `stft` and `inverse_stft` (with
//! `inverse_stft_window_fn`), `linear_to_mel_weight_matrix`, `dct` and `idct` (types 1 to 4)
//! and `mfccs_from_log_mel_spectrograms`.
//!
//! ```
//! use weir_graph::{DType, Graph, Shape, Tensor};
//! use weir_ops::{array::constant, spectral::signal::stft};
//!
//! let g = Graph::new();
//! let x = constant(&g, Tensor::from_vec(&[1, 100], vec![0.5f32; 100])?)?;
//! let s = stft(&x, 20, 10)?;
//! assert_eq!((s.dtype(), s.shape()), (DType::C64, Shape::known(&[1, 9, 17])));
//! # Ok::<(), weir_graph::Error>(())
//! ```

mod dct;
mod frame;
mod mel;
mod stft;
mod window;

pub use dct::{dct, idct, mfccs_from_log_mel_spectrograms, Dct};
pub use frame::{frame, overlap_and_add, Frame};
pub use mel::{linear_to_mel_weight_matrix, LinearToMelWeightMatrix};
pub use stft::{inverse_stft, inverse_stft_window_fn, stft, InverseStft, Stft};
pub use window::{hamming_window, hann_window, periodic_hann, WindowFn};
