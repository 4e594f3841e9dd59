//! `tf.signal.stft`, `tf.signal.inverse_stft` and `tf.signal.inverse_stft_window_fn`: framing,
//! windowing and real FFTs, composed from weir ops as TensorFlow's `spectral_ops.py` composes
//! them.

use weir_graph::{DType, Error, Graph, Output, Result};

use super::frame::{overlap_and_add, Frame};
use super::window::{periodic_hann, WindowFn};
use crate::array::{pad, reshape, slice, tile, IndexArg};
use crate::complex::real_of;
use crate::math::{mul, realdiv, square, Reduce};
use crate::spectral::{irfft, rfft};

/// The smallest power of two at least `n` (TensorFlow's `_enclosing_power_of_two`).
fn enclosing_power_of_two(n: usize) -> usize {
    n.max(1).next_power_of_two()
}

/// The options of `tf.signal.stft(signals, frame_length, frame_step, fft_length=None,
/// window_fn=hann_window, pad_end=False)`.
#[derive(Clone, Copy)]
pub struct Stft<'a> {
    frame_length: usize,
    frame_step: usize,
    fft_length: Option<usize>,
    window_fn: Option<WindowFn<'a>>,
    pad_end: bool,
}

/// `tf.signal.stft(signals, frame_length, frame_step)`: the short-time Fourier transform of the
/// innermost dim, `[..., frames, fft_length / 2 + 1]` complex, with a periodic Hann window and
/// `fft_length` the smallest power of two holding a frame.
pub fn stft(signals: impl Into<Output>, frame_length: usize, frame_step: usize) -> Result<Output> {
    Stft::new(frame_length, frame_step).build(signals)
}

impl<'a> Stft<'a> {
    /// TensorFlow's defaults.
    pub fn new(frame_length: usize, frame_step: usize) -> Stft<'a> {
        Stft {
            frame_length,
            frame_step,
            fft_length: None,
            window_fn: Some(&periodic_hann),
            pad_end: false,
        }
    }

    /// The FFT length (frames are cropped or zero-padded to it).
    pub fn fft_length(mut self, n: usize) -> Stft<'a> {
        self.fft_length = Some(n);
        self
    }

    /// The window, or `None` for none (`window_fn=None`).
    pub fn window_fn(mut self, f: Option<WindowFn<'a>>) -> Stft<'a> {
        self.window_fn = f;
        self
    }

    /// Pads the signal's end so that its last samples make a frame.
    pub fn pad_end(mut self, pad_end: bool) -> Stft<'a> {
        self.pad_end = pad_end;
        self
    }

    /// Adds the nodes under the name scope `stft`.
    pub fn build(self, signals: impl Into<Output>) -> Result<Output> {
        let x = signals.into();
        let g = x.graph().clone();
        if x.shape().rank() == Some(0) {
            return Err(Error::invalid_argument(
                "Shape () must have rank at least 1".to_string(),
            ));
        }
        let _scope = g.name_scope("stft");
        let fft_length = self
            .fft_length
            .unwrap_or_else(|| enclosing_power_of_two(self.frame_length));
        let mut frames = Frame::new(self.frame_length, self.frame_step)
            .pad_end(self.pad_end)
            .build(&x)?;
        if let Some(w) = self.window_fn {
            let window = w(&g, self.frame_length, frames.dtype())?;
            frames = mul(&frames, &window)?;
        }
        rfft(&frames, Some(IndexArg::List(vec![fft_length as i64])))
    }
}

/// The options of `tf.signal.inverse_stft(stfts, frame_length, frame_step, fft_length=None,
/// window_fn=hann_window)`.
#[derive(Clone, Copy)]
pub struct InverseStft<'a> {
    frame_length: usize,
    frame_step: usize,
    fft_length: Option<usize>,
    window_fn: Option<WindowFn<'a>>,
}

/// `tf.signal.inverse_stft(stfts, frame_length, frame_step)`: each frame's inverse real FFT,
/// cropped or zero-padded to `frame_length`, windowed (periodic Hann) and overlap-added.
pub fn inverse_stft(
    stfts: impl Into<Output>,
    frame_length: usize,
    frame_step: usize,
) -> Result<Output> {
    InverseStft::new(frame_length, frame_step).build(stfts)
}

impl<'a> InverseStft<'a> {
    /// TensorFlow's defaults.
    pub fn new(frame_length: usize, frame_step: usize) -> InverseStft<'a> {
        InverseStft {
            frame_length,
            frame_step,
            fft_length: None,
            window_fn: Some(&periodic_hann),
        }
    }

    /// The FFT length the STFT used.
    pub fn fft_length(mut self, n: usize) -> InverseStft<'a> {
        self.fft_length = Some(n);
        self
    }

    /// The synthesis window, or `None` for none.
    pub fn window_fn(mut self, f: Option<WindowFn<'a>>) -> InverseStft<'a> {
        self.window_fn = f;
        self
    }

    /// Adds the nodes under the name scope `inverse_stft`.
    pub fn build(self, stfts: impl Into<Output>) -> Result<Output> {
        let x = stfts.into();
        let g = x.graph().clone();
        let real_dtype = real_of(x.dtype()).ok_or_else(|| {
            Error::invalid_argument(format!(
                "inverse_stft needs complex64 or complex128 stfts, got {}",
                x.dtype().python_name()
            ))
        })?;
        if let Some(r) = x.shape().rank() {
            if r < 2 {
                return Err(Error::invalid_argument(format!(
                    "Shape {} must have rank at least 2",
                    x.shape()
                )));
            }
        }
        let _scope = g.name_scope("inverse_stft");
        let fft_length = self
            .fft_length
            .unwrap_or_else(|| enclosing_power_of_two(self.frame_length));
        let mut frames = irfft(&x, Some(IndexArg::List(vec![fft_length as i64])))?;
        let rank = frames.shape().rank().ok_or_else(|| {
            Error::unimplemented("weir's inverse_stft needs stfts of known rank".to_string())
        })?;
        let fl = self.frame_length;
        if fft_length > fl {
            let mut size = vec![-1i64; rank];
            size[rank - 1] = fl as i64;
            frames = slice(&frames, vec![0i64; rank], size)?;
        } else if fft_length < fl {
            let mut paddings = vec![[0i64, 0]; rank];
            paddings[rank - 1][1] = (fl - fft_length) as i64;
            frames = pad(&frames, &paddings)?;
        }
        if let Some(w) = self.window_fn {
            let window = w(&g, fl, real_dtype)?;
            frames = mul(&frames, &window)?;
        }
        overlap_and_add(&frames, self.frame_step)
    }
}

/// `tf.signal.inverse_stft_window_fn(frame_step, forward_window_fn)`: the window that makes
/// `inverse_stft` invert an `stft` made with `forward_window_fn` (Griffin and Lim's equation
/// 7: the forward window over the sum of its squares overlapping at `frame_step`).
pub fn inverse_stft_window_fn<'a>(
    frame_step: usize,
    forward_window_fn: WindowFn<'a>,
) -> impl Fn(&Graph, usize, DType) -> Result<Output> + 'a {
    move |g: &Graph, frame_length: usize, dtype: DType| {
        if frame_step == 0 {
            return Err(Error::invalid_argument(
                "frame_step must be positive".to_string(),
            ));
        }
        let _scope = g.name_scope("inverse_stft_window_fn");
        let forward = forward_window_fn(g, frame_length, dtype)?;
        let denom = square(&forward)?;
        let overlaps = frame_length.div_ceil(frame_step);
        let denom = pad(
            &denom,
            &[[0, (overlaps * frame_step - frame_length) as i64]],
        )?;
        let denom = reshape(&denom, vec![overlaps as i64, frame_step as i64])?;
        let denom = Reduce::sum().axis(0i64).keep_dims(true).build(&denom)?;
        let denom = tile(&denom, vec![overlaps as i64, 1])?;
        let denom = reshape(&denom, vec![(overlaps * frame_step) as i64])?;
        let denom = slice(&denom, vec![0i64], vec![frame_length as i64])?;
        realdiv(&forward, &denom)
    }
}
