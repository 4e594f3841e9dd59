//! `AudioSpectrogram`: TensorFlow's short-time Fourier magnitudes of `[samples, channels]`
//! audio (`contrib_audio.audio_spectrogram` in TF1's speech-commands pipeline,
//! `tf.raw_ops.AudioSpectrogram` today): periodic-Hann-windowed frames every `stride` samples,
//! zero-padded to a power of two and transformed in f64, giving `[channels, frames, fft / 2 + 1]`.

use std::f64::consts::PI;
use std::sync::{Arc, OnceLock};

use rustfft::num_complex::Complex;
use rustfft::{Fft, FftPlanner};
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor,
};

use super::mfcc::int32_attr;

/// `audio_spectrogram(input, window_size, stride)`: the `AudioSpectrogram` op with
/// TensorFlow's default `magnitude_squared=False`, the magnitudes of `[samples, channels]`
/// float32 audio as `[channels, frames, bins]`.
///
/// ```
/// use weir_graph::{DType, Graph, Shape};
/// use weir_ops::{array::placeholder, audio::audio_spectrogram};
///
/// let g = Graph::new();
/// let audio = placeholder(&g, DType::F32, Shape::known(&[16000, 2]))?;
/// // 1 + (16000 - 480) / 160 frames of 1 + 512 / 2 bins.
/// let s = audio_spectrogram(&audio, 480, 160)?;
/// assert_eq!(s.shape(), Shape::known(&[2, 98, 257]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn audio_spectrogram(
    input: impl Into<Output>,
    window_size: i64,
    stride: i64,
) -> Result<Output> {
    AudioSpectrogram::new(window_size, stride).build(input)
}

/// The options of `audio_spectrogram(input, window_size, stride, magnitude_squared=False)`
/// (TensorFlow's `AudioSpectrogram` op).
#[derive(Clone, Debug)]
pub struct AudioSpectrogram {
    window_size: i64,
    stride: i64,
    magnitude_squared: bool,
    name: Option<String>,
}

impl AudioSpectrogram {
    /// Frames of `window_size` samples (more than 1) starting every `stride` (positive) samples.
    pub fn new(window_size: i64, stride: i64) -> AudioSpectrogram {
        AudioSpectrogram {
            window_size,
            stride,
            magnitude_squared: false,
            name: None,
        }
    }

    /// Outputs the squared magnitudes (what `Mfcc` takes) instead of the magnitudes.
    pub fn magnitude_squared(mut self, squared: bool) -> AudioSpectrogram {
        self.magnitude_squared = squared;
        self
    }

    /// The node's name.
    pub fn name(mut self, name: &str) -> AudioSpectrogram {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the node.
    pub fn build(self, input: impl Into<Output>) -> Result<Output> {
        let input = input.into();
        let g = input.graph().clone();
        crate::new_op(&g, "AudioSpectrogram")
            .input(&input)
            .maybe_name(self.name.as_deref())
            .attr("window_size", self.window_size)
            .attr("stride", self.stride)
            .attr("magnitude_squared", self.magnitude_squared)
            .build()?
            .output(0)
    }
}

/// The FFT length: the smallest power of two at least `window_size` (TensorFlow's
/// `NextPowerOfTwo`).
fn fft_length(window_size: usize) -> usize {
    window_size.next_power_of_two()
}

/// The number of whole windows in `samples`.
fn frame_count(samples: usize, window_size: usize, stride: usize) -> usize {
    if samples < window_size {
        0
    } else {
        1 + (samples - window_size) / stride
    }
}

fn spectrogram_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let input = ctx.with_rank(0, 2)?;
    let int32 = |name: &str| -> Result<i64> {
        let v = ctx.attr::<i64>(name)?;
        match i32::try_from(v) {
            Ok(_) => Ok(v),
            Err(_) => Err(Error::invalid_argument(format!(
                "Attr {name} has value {v} out of range for an int32"
            ))),
        }
    };
    let window_size = int32("window_size")?;
    if window_size <= 1 {
        return Err(Error::invalid_argument(format!(
            "window size must be > 1, got {window_size}"
        )));
    }
    let stride = int32("stride")?;
    if stride <= 0 {
        return Err(Error::invalid_argument(format!(
            "stride must be strictly positive, got {stride}"
        )));
    }
    let frames = input
        .dim(0)
        .map(|n| frame_count(n, window_size as usize, stride as usize));
    let bins = 1 + fft_length(window_size as usize) / 2;
    ctx.set_output(0, Shape::new(vec![input.dim(1), frames, Some(bins)]));
    Ok(())
}

/// The periodic Hann window and the forward FFT plan, made on the first frame: a window size
/// no input is long enough for never allocates them.
struct Plan {
    window: Vec<f64>,
    fft: Arc<dyn Fft<f64>>,
}

struct AudioSpectrogramKernel {
    window_size: usize,
    stride: usize,
    magnitude_squared: bool,
    plan: OnceLock<Plan>,
}

impl AudioSpectrogramKernel {
    fn plan(&self) -> &Plan {
        self.plan.get_or_init(|| {
            let n = self.window_size;
            let window = (0..n)
                .map(|i| 0.5 - 0.5 * ((2.0 * PI * i as f64) / n as f64).cos())
                .collect();
            let fft = FftPlanner::new().plan_fft_forward(fft_length(n));
            Plan { window, fft }
        })
    }
}

impl Kernel for AudioSpectrogramKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = ctx.input(0);
        if input.rank() != 2 {
            return Err(Error::invalid_argument(format!(
                "input must be 2-dimensional{}",
                format_dims(input.shape())
            )));
        }
        let (samples, channels) = (input.shape()[0], input.shape()[1]);
        let frames = frame_count(samples, self.window_size, self.stride);
        let fft_len = fft_length(self.window_size);
        let bins = 1 + fft_len / 2;
        let mut out = vec![0.0f32; channels * frames * bins];
        if frames > 0 && channels > 0 {
            let audio = input.as_slice::<f32>()?;
            let Plan { window, fft } = self.plan();
            let zero = Complex::new(0.0, 0.0);
            let mut buf = vec![zero; fft_len];
            let mut scratch = vec![zero; fft.get_inplace_scratch_len()];
            for (c, slice) in out.chunks_exact_mut(frames * bins).enumerate() {
                for (f, row) in slice.chunks_exact_mut(bins).enumerate() {
                    let start = f * self.stride;
                    // The window in f64 over the f32 samples, then zeros to the FFT length.
                    for (j, (b, w)) in buf.iter_mut().zip(window).enumerate() {
                        let x = audio[(start + j) * channels + c];
                        *b = Complex::new(f64::from(x) * w, 0.0);
                    }
                    buf[self.window_size..].fill(zero);
                    fft.process_with_scratch(&mut buf, &mut scratch);
                    // TensorFlow rounds the squared magnitude to f32 and takes its f32 root.
                    for (o, z) in row.iter_mut().zip(&buf) {
                        let squared = (z.re * z.re + z.im * z.im) as f32;
                        *o = if self.magnitude_squared {
                            squared
                        } else {
                            squared.sqrt()
                        };
                    }
                }
            }
        }
        ctx.set_output(0, Tensor::from_vec(&[channels, frames, bins], out)?);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

pub(super) fn register() {
    register_op(
        OpDef::new("AudioSpectrogram")
            .input("input", ArgType::Fixed(DType::F32))
            .output("spectrogram", ArgType::Fixed(DType::F32))
            .attr("window_size", AttrKind::Int, None)
            .attr("stride", AttrKind::Int, None)
            .attr(
                "magnitude_squared",
                AttrKind::Bool,
                Some(AttrValue::Bool(false)),
            )
            .shape_fn(spectrogram_shape),
    );
    register_kernel("AudioSpectrogram", |node: &Node| {
        let window_size = int32_attr(node, "window_size")?;
        let stride = int32_attr(node, "stride")?;
        // The constructor's checks; the shape function has already made the same ones.
        if window_size <= 1 {
            return Err(Error::invalid_argument(format!(
                "window_size must be > 1, got {window_size}"
            )));
        }
        if stride <= 0 {
            return Err(Error::invalid_argument(format!(
                "stride must be > 0, got {stride}"
            )));
        }
        Ok(Box::new(AudioSpectrogramKernel {
            window_size: window_size as usize,
            stride: stride as usize,
            magnitude_squared: node.attr("magnitude_squared")?,
            plan: OnceLock::new(),
        }) as Box<dyn Kernel>)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_and_fft_lengths_follow_tensorflow() {
        assert_eq!(fft_length(2), 2);
        assert_eq!(fft_length(256), 256);
        assert_eq!(fft_length(257), 512);
        assert_eq!(frame_count(16000, 480, 160), 98);
        assert_eq!(frame_count(479, 480, 160), 0);
        assert_eq!(frame_count(480, 480, 160), 1);
        // A stride past the window skips samples between frames.
        assert_eq!(frame_count(300, 64, 100), 3);
    }
}
