//! `tf.summary.audio`: TensorFlow's `AudioSummaryV2` op, its builder and kernel.

use bytes::Bytes;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, Kernel, Node, OpContext, OpDef,
    Output, Result,
};

use super::kernels::{encode, scalar_output, scoped_summary};
use super::proto::{summary_value::Value, Summary, SummaryAudio, SummaryValue};

/// `audio`'s sample rate: a number fixed when building (a float32 constant named
/// `sample_rate` in the summary's scope, as `convert_to_tensor` makes it) or a float32 tensor.
#[derive(Clone, Debug)]
pub enum SampleRate {
    /// A fixed rate in Hz.
    Value(f32),
    /// A float32 tensor holding one value.
    Tensor(Output),
}

impl From<f32> for SampleRate {
    fn from(v: f32) -> SampleRate {
        SampleRate::Value(v)
    }
}
impl From<f64> for SampleRate {
    fn from(v: f64) -> SampleRate {
        SampleRate::Value(v as f32)
    }
}
impl From<i32> for SampleRate {
    fn from(v: i32) -> SampleRate {
        SampleRate::Value(v as f32)
    }
}
impl From<Output> for SampleRate {
    fn from(v: Output) -> SampleRate {
        SampleRate::Tensor(v)
    }
}
impl From<&Output> for SampleRate {
    fn from(v: &Output) -> SampleRate {
        SampleRate::Tensor(v.clone())
    }
}

/// `tf.compat.v1.summary.audio(name, tensor, sample_rate, max_outputs)` (op `AudioSummaryV2`):
/// a Summary with the first `max_outputs` clips of the float32 `tensor` (`[batch, frames]` or
/// `[batch, frames, channels]`, samples in `[-1, 1]`) as 16-bit WAV files, tagged `name/audio`
/// when `max_outputs` is 1 and `name/audio/0`, `name/audio/1`... otherwise; added to
/// `SUMMARIES`.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, summary};
/// let g = Graph::new();
/// let clips = constant(&g, Tensor::from_vec(&[2, 100], vec![0.25f32; 200])?)?;
/// let s = summary::audio("speech", &clips, 16000.0f32, 3)?;
/// assert_eq!(s.op().op_type(), "AudioSummaryV2");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn audio(
    name: &str,
    tensor: impl Into<Output>,
    sample_rate: impl Into<SampleRate>,
    max_outputs: i64,
) -> Result<Output> {
    let tensor = tensor.into();
    let sample_rate = sample_rate.into();
    let g = tensor.graph().clone();
    scoped_summary(&g, name, |tag, tags| {
        let rate = match sample_rate {
            SampleRate::Value(v) => crate::array::constant_named(&g, v, "sample_rate")?,
            SampleRate::Tensor(t) if t.dtype() == DType::F32 => t,
            SampleRate::Tensor(t) => {
                return Err(Error::invalid_argument(format!(
                    "Tensor conversion requested dtype float32 for Tensor with dtype {}: {}",
                    t.dtype(),
                    t.name()
                )))
            }
        };
        crate::new_op(&g, "AudioSummaryV2")
            .name(format!("{tag}/"))
            .input(tags)
            .input(tensor)
            .input(rate)
            .attr("max_outputs", max_outputs)
            .build()?
            .output(0)
    })
}

struct AudioKernel {
    max_outputs: i64,
}

impl Kernel for AudioKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (tag, tensor, rate) = (ctx.input(0), ctx.input(1), ctx.input(2));
        if tag.rank() != 0 {
            return Err(Error::invalid_argument("Tag must be a scalar"));
        }
        let shape = tensor.shape();
        if !(2..=3).contains(&shape.len()) {
            return Err(Error::invalid_argument(format!(
                "Tensor must be 3-D or 2-D, got: {}",
                format_dims(shape)
            )));
        }
        let base_tag = String::from_utf8_lossy(&tag.to_scalar::<Bytes>()?).into_owned();
        if rate.num_elements() != 1 {
            return Err(Error::invalid_argument(
                "sample_rate must be rank-0 or contain a single value",
            ));
        }
        let sample_rate = rate.as_slice::<f32>()?[0];
        // NaN is refused too, as in TensorFlow.
        if sample_rate.is_nan() || sample_rate <= 0.0 {
            return Err(Error::invalid_argument("sample_rate must be > 0"));
        }
        let (batch, frames) = (shape[0], shape[1]);
        let channels = if shape.len() == 2 { 1 } else { shape[2] };
        // TensorFlow rounds the rate with `lrintf` (ties to even) for the WAV header.
        let rounded = (sample_rate.round_ties_even() as i64).max(1);
        let header_rate = i32::try_from(rounded).map_err(|_| {
            Error::invalid_argument(format!("sample_rate must be in (0, 2^32), got: {rounded}"))
        })?;
        let samples = tensor.as_slice::<f32>()?;
        let per_clip = frames * channels;
        let n = batch.min(self.max_outputs.max(0) as usize);
        let mut summary = Summary { value: Vec::new() };
        for i in 0..n {
            let tag = if self.max_outputs > 1 {
                format!("{base_tag}/audio/{i}")
            } else {
                format!("{base_tag}/audio")
            };
            let clip = &samples[i * per_clip..(i + 1) * per_clip];
            let wav = crate::audio::wav_io::encode(clip, header_rate, channels, frames)?;
            summary.value.push(SummaryValue {
                tag,
                value: Some(Value::Audio(SummaryAudio {
                    sample_rate,
                    num_channels: channels as i64,
                    length_frames: frames as i64,
                    encoded_audio_string: Bytes::from(wav),
                    content_type: "audio/wav".to_string(),
                })),
                ..SummaryValue::default()
            });
        }
        ctx.set_output(0, encode(&summary));
        Ok(())
    }
}

fn make_kernel(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(AudioKernel {
        max_outputs: node.attr::<i64>("max_outputs").unwrap_or(3),
    }))
}

pub(super) fn register() {
    let mut def = OpDef::new("AudioSummaryV2")
        .input("tag", ArgType::Fixed(DType::String))
        .input("tensor", ArgType::Fixed(DType::F32))
        .input("sample_rate", ArgType::Fixed(DType::F32))
        .output("summary", ArgType::Fixed(DType::String))
        .attr("max_outputs", AttrKind::Int, Some(AttrValue::Int(3)));
    if let Some(a) = def.attrs.last_mut() {
        a.min = Some(1);
    }
    register_op(def.shape_fn(scalar_output));
    register_kernel("AudioSummaryV2", make_kernel);
}
