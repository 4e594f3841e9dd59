//! `DecodeWav` and `EncodeWav`: `tf.audio.decode_wav` and `tf.audio.encode_wav`, 16-bit PCM
//! WAV files to and from float32 `[samples, channels]` audio.
//!
//! The codec is [`super::wav_io`], TensorFlow's `wav_io` with its quirks.

use bytes::Bytes;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor,
};

use crate::image::IntScalar;

use super::wav_io::{decode, encode};

/// `tf.audio.decode_wav(contents)`: the `DecodeWav` op with TensorFlow's defaults, returning
/// the float32 audio `[samples, channels]` in [-1, 1) and the int32 sample rate.
///
/// ```
/// use weir_graph::{Graph, Tensor};
/// use weir_ops::array::constant;
/// use weir_ops::audio::{decode_wav, encode_wav};
///
/// let g = Graph::new();
/// let audio = constant(&g, Tensor::from_vec(&[3, 2], vec![0.0f32, 0.5, -0.5, 1.0, -1.0, 0.25])?)?;
/// let wav = encode_wav(&audio, 16000)?;
/// let (decoded, rate) = decode_wav(&wav)?;
/// let sess = weir_session::Session::new(&g)?;
/// let out = sess.run(&weir_session::RunArgs::new().fetch(&decoded).fetch(&rate))?;
/// // 1.0 is clipped to 32767 / 32768.
/// assert_eq!(out[0].to_vec::<f32>()?, vec![0.0, 0.5, -0.5, 32767.0 / 32768.0, -1.0, 0.25]);
/// assert_eq!(out[1].to_scalar::<i32>()?, 16000);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn decode_wav(contents: impl Into<Output>) -> Result<(Output, Output)> {
    DecodeWav::new().build(contents)
}

/// The options of `tf.audio.decode_wav(contents, desired_channels=-1, desired_samples=-1)`
/// (TensorFlow's `DecodeWav` op).
#[derive(Clone, Debug)]
pub struct DecodeWav {
    desired_channels: i32,
    desired_samples: i32,
    name: Option<String>,
}

impl Default for DecodeWav {
    fn default() -> Self {
        DecodeWav::new()
    }
}

impl DecodeWav {
    /// The file's own channels and samples (both -1).
    pub fn new() -> DecodeWav {
        DecodeWav {
            desired_channels: -1,
            desired_samples: -1,
            name: None,
        }
    }

    /// The channels wanted: extra ones repeat the file's last channel, surplus ones are dropped;
    /// -1 keeps the file's.
    pub fn desired_channels(mut self, n: i32) -> DecodeWav {
        self.desired_channels = n;
        self
    }

    /// The samples wanted: the audio is cut or zero-padded to this length; -1 keeps the file's.
    pub fn desired_samples(mut self, n: i32) -> DecodeWav {
        self.desired_samples = n;
        self
    }

    /// The node's name.
    pub fn name(mut self, name: &str) -> DecodeWav {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the node; returns its `audio` and `sample_rate` outputs.
    pub fn build(self, contents: impl Into<Output>) -> Result<(Output, Output)> {
        let contents = contents.into();
        let g = contents.graph().clone();
        let op = crate::new_op(&g, "DecodeWav")
            .input(&contents)
            .maybe_name(self.name.as_deref())
            .attr("desired_channels", i64::from(self.desired_channels))
            .attr("desired_samples", i64::from(self.desired_samples))
            .build()?;
        Ok((op.output(0)?, op.output(1)?))
    }
}

/// `tf.audio.encode_wav(audio, sample_rate)`: the `EncodeWav` op, float32 audio
/// `[samples, channels]` (clipped to [-1, 1]) as the bytes of a 16-bit PCM WAV file.
pub fn encode_wav(audio: impl Into<Output>, sample_rate: impl Into<IntScalar>) -> Result<Output> {
    EncodeWav::new().build(audio, sample_rate)
}

/// The options of `tf.audio.encode_wav(audio, sample_rate, name=None)` (TensorFlow's
/// `EncodeWav` op).
#[derive(Clone, Debug, Default)]
pub struct EncodeWav {
    name: Option<String>,
}

impl EncodeWav {
    /// No options but the name.
    pub fn new() -> EncodeWav {
        EncodeWav { name: None }
    }

    /// The node's name.
    pub fn name(mut self, name: &str) -> EncodeWav {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the node; `sample_rate` is a number or an int32 scalar tensor.
    pub fn build(
        self,
        audio: impl Into<Output>,
        sample_rate: impl Into<IntScalar>,
    ) -> Result<Output> {
        let audio = audio.into();
        let g = audio.graph().clone();
        let rate = match sample_rate.into() {
            IntScalar::Value(v) => {
                let v = i32::try_from(v).map_err(|_| {
                    Error::invalid_argument(format!("Can't convert Python int {v} to int32"))
                })?;
                crate::array::constant(&g, v)?
            }
            IntScalar::Tensor(t) => t,
        };
        crate::new_op(&g, "EncodeWav")
            .input(&audio)
            .input(&rate)
            .maybe_name(self.name.as_deref())
            .build()?
            .output(0)
    }
}

// ---------------------------------------------------------------------------------------------
// Shape functions and kernels.

fn decode_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(0, 0)?;
    let dim = |what: &str, n: i64| -> Result<Option<usize>> {
        match n {
            -1 => Ok(None),
            n if n < 0 => Err(Error::invalid_argument(format!(
                "{what} must be non-negative, got {n}"
            ))),
            n => Ok(Some(n as usize)),
        }
    };
    let channels = dim("channels", ctx.attr::<i64>("desired_channels")?)?;
    let samples = dim("samples", ctx.attr::<i64>("desired_samples")?)?;
    ctx.set_output(0, Shape::new(vec![samples, channels]));
    ctx.set_output(1, Shape::scalar());
    Ok(())
}

fn encode_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(0, 2)?;
    ctx.with_rank(1, 0)?;
    ctx.set_output(0, Shape::scalar());
    Ok(())
}

struct DecodeWavKernel {
    desired_channels: i64,
    desired_samples: i64,
}

impl Kernel for DecodeWavKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let contents = ctx.input(0);
        if contents.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "contents must be scalar, got shape {}",
                format_dims(contents.shape())
            )));
        }
        let wav = contents.to_scalar::<Bytes>()?;
        if wav.len() > i32::MAX as usize {
            return Err(Error::invalid_argument(format!(
                "WAV contents are too large for int: {}",
                wav.len()
            )));
        }
        let d = decode(&wav)?;
        let (dc, ds) = (self.desired_channels, self.desired_samples);
        if dc < -1 {
            return Err(Error::invalid_argument(format!(
                "desired_channels must be >= -1, got {dc}"
            )));
        }
        if ds < -1 {
            return Err(Error::invalid_argument(format!(
                "desired_samples must be >= -1, got {ds}"
            )));
        }
        let frames = if ds == -1 {
            d.frames as usize
        } else {
            ds as usize
        };
        let channels = if dc == -1 {
            usize::from(d.channels)
        } else {
            dc as usize
        };
        let have = usize::from(d.channels);
        let mut out = Vec::with_capacity(frames * channels);
        if channels > 0 {
            for row in d.samples.chunks_exact(have).take(frames) {
                out.extend((0..channels).map(|c| row[c.min(have - 1)]));
            }
        }
        // Samples past the file's are zeros.
        out.resize(frames * channels, 0.0);
        ctx.set_output(0, Tensor::from_vec(&[frames, channels], out)?);
        ctx.set_output(1, Tensor::scalar(d.sample_rate as i32));
        Ok(())
    }
}

struct EncodeWavKernel;

impl Kernel for EncodeWavKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let audio = ctx.input(0);
        if audio.rank() != 2 {
            return Err(Error::invalid_argument(format!(
                "audio must be 2-dimensional{}",
                format_dims(audio.shape())
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
        if audio.num_elements() >= i32::MAX as usize {
            return Err(Error::invalid_argument(
                "Cannot encode audio with >= max int32 elements",
            ));
        }
        let (frames, channels) = (audio.shape()[0], audio.shape()[1]);
        let bytes = encode(audio.as_slice::<f32>()?, rate, channels, frames)?;
        ctx.set_output(0, Tensor::scalar(Bytes::from(bytes)));
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        OpDef::new("DecodeWav")
            .input("contents", ArgType::Fixed(DType::String))
            .output("audio", ArgType::Fixed(DType::F32))
            .output("sample_rate", ArgType::Fixed(DType::I32))
            .attr("desired_channels", AttrKind::Int, Some(AttrValue::Int(-1)))
            .attr("desired_samples", AttrKind::Int, Some(AttrValue::Int(-1)))
            .shape_fn(decode_shape),
    );
    register_kernel("DecodeWav", |node: &Node| {
        Ok(Box::new(DecodeWavKernel {
            desired_channels: node.attr("desired_channels")?,
            desired_samples: node.attr("desired_samples")?,
        }) as Box<dyn Kernel>)
    });
    register_op(
        OpDef::new("EncodeWav")
            .input("audio", ArgType::Fixed(DType::F32))
            .input("sample_rate", ArgType::Fixed(DType::I32))
            .output("contents", ArgType::Fixed(DType::String))
            .shape_fn(encode_shape),
    );
    register_kernel("EncodeWav", |_: &Node| {
        Ok(Box::new(EncodeWavKernel) as Box<dyn Kernel>)
    });
}
