//! `Mfcc`: TensorFlow's mel-frequency cepstral coefficients of a squared-magnitude spectrogram
//! (`contrib_audio.mfcc` in TF1's speech-commands pipeline, `tf.raw_ops.Mfcc` today): per
//! frame, triangular mel bands over the bins' magnitudes, the log of each band energy (floored
//! at 1e-12), then a DCT.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor,
};

use crate::image::IntScalar;

use super::mfcc_mel::{zeros, Dct, MelFilterbank};

/// Band energies below this are raised to it before the log, as TensorFlow's
/// `kFilterbankFloor`.
const FILTERBANK_FLOOR: f64 = 1e-12;

/// `mfcc(spectrogram, sample_rate)`: the `Mfcc` op with TensorFlow's defaults (bands from 20
/// to 4000 Hz, 40 mel channels, 13 coefficients), mapping a `[channels, frames, bins]`
/// squared-magnitude spectrogram (`AudioSpectrogram` with `magnitude_squared`) to
/// `[channels, frames, 13]`.
///
/// ```
/// use weir_graph::{DType, Graph, Shape};
/// use weir_ops::{array::placeholder, audio::{mfcc, AudioSpectrogram}};
///
/// let g = Graph::new();
/// let audio = placeholder(&g, DType::F32, Shape::known(&[16000, 1]))?;
/// let spectrogram = AudioSpectrogram::new(480, 160).magnitude_squared(true).build(&audio)?;
/// let features = mfcc(&spectrogram, 16000)?;
/// assert_eq!(features.shape(), Shape::known(&[1, 98, 13]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn mfcc(spectrogram: impl Into<Output>, sample_rate: impl Into<IntScalar>) -> Result<Output> {
    Mfcc::new().build(spectrogram, sample_rate)
}

/// The options of `mfcc(spectrogram, sample_rate, upper_frequency_limit=4000,
/// lower_frequency_limit=20, filterbank_channel_count=40, dct_coefficient_count=13)`
/// (TensorFlow's `Mfcc` op).
#[derive(Clone, Debug)]
pub struct Mfcc {
    upper_frequency_limit: f32,
    lower_frequency_limit: f32,
    filterbank_channel_count: i64,
    dct_coefficient_count: i64,
    name: Option<String>,
}

impl Default for Mfcc {
    fn default() -> Self {
        Mfcc::new()
    }
}

impl Mfcc {
    /// TensorFlow's defaults.
    pub fn new() -> Mfcc {
        Mfcc {
            upper_frequency_limit: 4000.0,
            lower_frequency_limit: 20.0,
            filterbank_channel_count: 40,
            dct_coefficient_count: 13,
            name: None,
        }
    }

    /// The highest frequency (Hz) the mel bands cover; at most half the sample rate.
    pub fn upper_frequency_limit(mut self, hz: f32) -> Mfcc {
        self.upper_frequency_limit = hz;
        self
    }

    /// The lowest frequency (Hz) the mel bands cover.
    pub fn lower_frequency_limit(mut self, hz: f32) -> Mfcc {
        self.lower_frequency_limit = hz;
        self
    }

    /// The number of mel bands.
    pub fn filterbank_channel_count(mut self, n: i64) -> Mfcc {
        self.filterbank_channel_count = n;
        self
    }

    /// The number of cepstral coefficients per frame (at most the bands').
    pub fn dct_coefficient_count(mut self, n: i64) -> Mfcc {
        self.dct_coefficient_count = n;
        self
    }

    /// The node's name.
    pub fn name(mut self, name: &str) -> Mfcc {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the node; `sample_rate` is a number (a constant `<name>/sample_rate`, as Python's
    /// wrapper converts it) or an int32 scalar tensor.
    pub fn build(
        self,
        spectrogram: impl Into<Output>,
        sample_rate: impl Into<IntScalar>,
    ) -> Result<Output> {
        let spectrogram = spectrogram.into();
        let g = spectrogram.graph().clone();
        let scope = g.name_scope(self.name.as_deref().unwrap_or("Mfcc"));
        let rate = match sample_rate.into() {
            // A tensor goes in as it is, so the op's signature and shape function judge it.
            IntScalar::Tensor(t) => t,
            value => value.to_i32(&g, "sample_rate")?,
        };
        crate::new_op(&g, "Mfcc")
            .input(&spectrogram)
            .input(&rate)
            .name(scope.prefix())
            .attr("upper_frequency_limit", self.upper_frequency_limit)
            .attr("lower_frequency_limit", self.lower_frequency_limit)
            .attr("filterbank_channel_count", self.filterbank_channel_count)
            .attr("dct_coefficient_count", self.dct_coefficient_count)
            .build()?
            .output(0)
    }
}

fn mfcc_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let spectrogram = ctx.with_rank(0, 3)?;
    ctx.with_rank(1, 0)?;
    let coefficients = ctx.attr::<i64>("dct_coefficient_count")?;
    // A negative count makes an unknown dimension, as TensorFlow's MakeDim does.
    let coefficients = usize::try_from(coefficients).ok();
    ctx.set_output(
        0,
        Shape::new(vec![spectrogram.dim(0), spectrogram.dim(1), coefficients]),
    );
    Ok(())
}

struct MfccKernel {
    upper: f64,
    lower: f64,
    channels: i64,
    coefficients: i64,
}

impl Kernel for MfccKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let spectrogram = ctx.input(0);
        if spectrogram.rank() != 3 {
            return Err(Error::invalid_argument(format!(
                "spectrogram must be 3-dimensional{}",
                format_dims(spectrogram.shape())
            )));
        }
        let rate = ctx.input(1);
        if rate.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "Input sample_rate should be a scalar tensor, got {} instead.",
                format_dims(rate.shape())
            )));
        }
        let rate = rate.to_scalar::<i32>()?;
        let dims = spectrogram.shape();
        let (audio_channels, frames, bins) = (dims[0], dims[1], dims[2]);
        let valid =
            MelFilterbank::valid(bins, f64::from(rate), self.channels, self.lower, self.upper)
                && Dct::valid(self.channels, self.coefficients);
        if !valid {
            return Err(Error::invalid_argument(format!(
                "Mfcc initialization failed for channel count {bins}, sample rate {rate} and \
                 filterbank_channel_count {}",
                self.channels
            )));
        }
        // Both counts are positive and below 2^31 once valid.
        let (channels, coefficients) = (self.channels as usize, self.coefficients as usize);
        let bank = MelFilterbank::new(bins, f64::from(rate), channels, self.lower, self.upper)?;
        let dct = Dct::new(channels, coefficients)?;
        let rows = audio_channels * frames;
        let mut out = vec![0.0f32; rows * coefficients];
        let spectrogram = spectrogram.as_slice::<f32>()?;
        let mut energies = zeros(channels)?;
        for (frame, coeffs) in spectrogram
            .chunks_exact(bins)
            .zip(out.chunks_exact_mut(coefficients))
        {
            if bank.compute(frame, &mut energies) {
                for e in energies.iter_mut() {
                    // Not `max`: a NaN energy (from a negative bin) stays NaN, as in TensorFlow.
                    if *e < FILTERBANK_FLOOR {
                        *e = FILTERBANK_FLOOR;
                    }
                    *e = e.ln();
                }
                dct.compute(&energies, coeffs);
            } else {
                // TensorFlow's filterbank refuses the frame and its DCT transforms nothing.
                dct.compute(&[], coeffs);
            }
        }
        ctx.set_output(
            0,
            Tensor::from_vec(&[audio_channels, frames, coefficients], out)?,
        );
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

/// An `int` attr the kernel reads as int32, failing as TensorFlow's `GetAttr` does when it does
/// not fit.
pub(super) fn int32_attr(node: &Node, name: &str) -> Result<i64> {
    let v: i64 = node.attr(name)?;
    if i32::try_from(v).is_err() {
        return Err(Error::invalid_argument(format!(
            "Attr {name} has value {v} out of range for an int32"
        )));
    }
    Ok(v)
}

pub(super) fn register() {
    register_op(
        OpDef::new("Mfcc")
            .input("spectrogram", ArgType::Fixed(DType::F32))
            .input("sample_rate", ArgType::Fixed(DType::I32))
            .output("output", ArgType::Fixed(DType::F32))
            .attr(
                "upper_frequency_limit",
                AttrKind::Float,
                Some(AttrValue::Float(4000.0)),
            )
            .attr(
                "lower_frequency_limit",
                AttrKind::Float,
                Some(AttrValue::Float(20.0)),
            )
            .attr(
                "filterbank_channel_count",
                AttrKind::Int,
                Some(AttrValue::Int(40)),
            )
            .attr(
                "dct_coefficient_count",
                AttrKind::Int,
                Some(AttrValue::Int(13)),
            )
            .shape_fn(mfcc_shape),
    );
    register_kernel("Mfcc", |node: &Node| {
        Ok(Box::new(MfccKernel {
            upper: f64::from(node.attr::<f32>("upper_frequency_limit")?),
            lower: f64::from(node.attr::<f32>("lower_frequency_limit")?),
            channels: int32_attr(node, "filterbank_channel_count")?,
            coefficients: int32_attr(node, "dct_coefficient_count")?,
        }) as Box<dyn Kernel>)
    });
}
