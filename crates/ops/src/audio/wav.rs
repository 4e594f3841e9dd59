//! `DecodeWav` and `EncodeWav`: `tf.audio.decode_wav` and `tf.audio.encode_wav`, 16-bit PCM
//! WAV files to and from float32 `[samples, channels]` audio.
//!
//! The codec reads files as TensorFlow's `wav_io` does, quirks included: chunks before
//! `"fmt "` are skipped only for a fixed list of ids (`JUNK`, `bext`, ...), chunks after it of
//! any id; odd-sized chunks are not padded; a data chunk that is not whole frames leaves its
//! tail to be read as the next chunk's header. Every length field is checked against the bytes
//! present before anything is allocated.

use bytes::Bytes;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor,
};

use crate::image::IntScalar;

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
// The codec.

/// Decoded 16-bit PCM audio: interleaved samples in [-1, 1).
#[derive(Debug, PartialEq)]
struct Decoded {
    samples: Vec<f32>,
    frames: u32,
    channels: u16,
    sample_rate: u32,
}

/// A read position in a WAV file, moved as TensorFlow's `IncrementOffset` moves it.
struct Reader<'a> {
    data: &'a [u8],
    offset: i64,
}

fn too_short() -> Error {
    Error::invalid_argument("Data too short when trying to read string")
}

impl<'a> Reader<'a> {
    /// The offset `n` bytes on, if that is inside the data.
    fn ahead(&self, n: i64) -> Result<i64> {
        let size = self.data.len() as i64;
        if self.offset > size {
            return Err(Error::invalid_argument(format!(
                "Initial offset is outside data range: {}",
                self.offset
            )));
        }
        let end = self.offset + n;
        if end > size {
            return Err(too_short());
        }
        Ok(end)
    }

    fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.ahead(n as i64)?;
        let s = &self.data[self.offset as usize..end as usize];
        self.offset = end;
        Ok(s)
    }

    fn u16(&mut self) -> Result<u16> {
        let b = self.bytes(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&mut self) -> Result<u32> {
        let b = self.bytes(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn expect(&mut self, text: &str) -> Result<()> {
        let found = self.bytes(text.len())?;
        if found != text.as_bytes() {
            return Err(Error::invalid_argument(format!(
                "Header mismatch: Expected {text} but found {}",
                String::from_utf8_lossy(found)
            )));
        }
        Ok(())
    }
}

/// The chunk ids TensorFlow skips between `"WAVE"` and `"fmt "`.
const SKIPPED_BEFORE_FMT: &[&[u8]] = &[
    b"JUNK", b"bext", b"iXML", b"qlty", b"mext", b"levl", b"link", b"axml",
];

/// Decodes a 16-bit PCM WAV file: TensorFlow's `DecodeLin16WaveAsFloatVector`.
fn decode(wav: &[u8]) -> Result<Decoded> {
    let bad = |m: String| Err(Error::invalid_argument(m));
    let mut r = Reader {
        data: wav,
        offset: 0,
    };
    r.expect("RIFF")?;
    r.u32()?; // The RIFF size, which TensorFlow does not check.
    r.expect("WAVE")?;
    let mut id = r.bytes(4)?;
    while id != b"fmt " {
        if !SKIPPED_BEFORE_FMT.contains(&id) {
            return bad(format!("Unexpected field {}", String::from_utf8_lossy(id)));
        }
        let size = r.u32()?;
        r.offset = r.ahead(i64::from(size))?;
        id = r.bytes(4)?;
    }
    let fmt_size = r.u32()?;
    if fmt_size != 16 && fmt_size != 18 {
        return bad(format!(
            "Bad format chunk size for WAV: Expected 16 or 18, but got{fmt_size}"
        ));
    }
    let format = r.u16()?;
    if format != 1 {
        return bad(format!(
            "Bad audio format for WAV: Expected 1 (PCM), but got{format}"
        ));
    }
    let channels = r.u16()?;
    if channels < 1 {
        return bad(format!(
            "Bad number of channels for WAV: Expected at least 1, but got {channels}"
        ));
    }
    let sample_rate = r.u32()?;
    let bytes_per_second = r.u32()?;
    let block_align = r.u16()?;
    let bits = r.u16()?;
    if bits != 16 {
        return bad(format!(
            "Can only read 16-bit WAV files, but received {bits}"
        ));
    }
    let want_align = (u32::from(bits) * u32::from(channels)).div_ceil(8);
    if u32::from(block_align) != want_align {
        return bad(format!(
            "Bad bytes per sample in WAV header: Expected {want_align} but got {block_align}"
        ));
    }
    let want_rate = u64::from(block_align) * u64::from(sample_rate);
    if u64::from(bytes_per_second) != want_rate {
        return bad(format!(
            "Bad bytes per second in WAV header: Expected {want_rate} but got {bytes_per_second} (sample_rate={sample_rate}, bytes_per_sample={block_align})"
        ));
    }
    if fmt_size == 18 {
        r.offset += 2; // cbSize, unused (and not checked against the end here).
    }
    let mut found: Option<(Vec<f32>, u32)> = None;
    while r.offset < wav.len() as i64 {
        let id = r.bytes(4)?;
        let size = r.u32()?;
        if size > i32::MAX as u32 {
            return bad(format!(
                "WAV data chunk '{}' is too large: {size} bytes, but the limit is {}",
                String::from_utf8_lossy(id),
                i32::MAX
            ));
        }
        if id != b"data" {
            r.offset += i64::from(size);
            continue;
        }
        if found.is_some() {
            return bad("More than one data chunk found in WAV".to_string());
        }
        let frames = size / u32::from(block_align);
        let count = frames * u32::from(channels);
        // A slice of the file, so checked against its end before anything is allocated.
        let raw = r.bytes(2 * count as usize)?;
        let samples = raw
            .chunks_exact(2)
            .map(|b| f32::from(i16::from_le_bytes([b[0], b[1]])) * (1.0 / 32768.0))
            .collect();
        found = Some((samples, frames));
    }
    match found {
        Some((samples, frames)) => Ok(Decoded {
            samples,
            frames,
            channels,
            sample_rate,
        }),
        None => bad("No data chunk found in WAV".to_string()),
    }
}

/// TensorFlow's `FloatToInt16Sample`: scaled by 2^15, rounded half away from zero, clipped;
/// NaN becomes 0.
fn to_i16(x: f32) -> i16 {
    let v = (x * 32768.0).round();
    if v.is_nan() {
        0
    } else {
        v.clamp(-32768.0, 32767.0) as i16
    }
}

/// Encodes `audio` (`frames` x `channels`, interleaved) as a 16-bit PCM WAV file: TensorFlow's
/// `EncodeAudioAsS16LEWav`, with `sample_rate` as the kernel passes it (an int32 widened to
/// an unsigned 64-bit number, so negative rates are huge).
fn encode(audio: &[f32], sample_rate: i32, channels: usize, frames: usize) -> Result<Vec<u8>> {
    let bad = |m: String| Err(Error::invalid_argument(m));
    if audio.is_empty() && frames > 0 {
        return bad("audio is null".to_string());
    }
    let rate = sample_rate as i64 as u64;
    if rate == 0 || rate > u64::from(u32::MAX) {
        return bad(format!("sample_rate must be in (0, 2^32), got: {rate}"));
    }
    if channels == 0 || channels > usize::from(u16::MAX) {
        return bad(format!(
            "num_channels must be in (0, 2^16), got: {channels}"
        ));
    }
    let samples = frames * channels;
    let file_size = 44 + samples as u64 * 2;
    if file_size > u64::from(u32::MAX) {
        return bad("Provided channels and frames cannot be encoded as a WAV.".to_string());
    }
    let block_align = 2 * channels as u64;
    let mut out = Vec::with_capacity(file_size as usize);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&((file_size - 8) as u32).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt \x10\0\0\0\x01\0"); // 16-byte format chunk, PCM.
    out.extend_from_slice(&(channels as u16).to_le_bytes());
    out.extend_from_slice(&(rate as u32).to_le_bytes());
    out.extend_from_slice(&(rate.wrapping_mul(block_align) as u32).to_le_bytes());
    out.extend_from_slice(&(block_align as u16).to_le_bytes());
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&((samples * 2) as u32).to_le_bytes());
    for &x in &audio[..samples] {
        out.extend_from_slice(&to_i16(x).to_le_bytes());
    }
    Ok(out)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(r: Result<Decoded>) -> String {
        r.unwrap_err().message().to_string()
    }

    #[test]
    fn round_trips_and_clips() {
        let audio = [0.0f32, 0.5, -0.5, 1.5, -2.0, f32::NAN];
        let wav = encode(&audio, 8000, 2, 3).unwrap();
        assert_eq!(wav.len(), 44 + 12);
        assert_eq!(&wav[..4], b"RIFF");
        let d = decode(&wav).unwrap();
        assert_eq!((d.frames, d.channels, d.sample_rate), (3, 2, 8000));
        assert_eq!(
            d.samples,
            vec![0.0, 0.5, -0.5, 32767.0 / 32768.0, -1.0, 0.0]
        );
    }

    #[test]
    fn rounds_half_away_from_zero() {
        let h = 1.0f32 / 32768.0;
        let got: Vec<i16> = [0.5 * h, -0.5 * h, 1.5 * h, 0.49 * h]
            .into_iter()
            .map(to_i16)
            .collect();
        assert_eq!(got, vec![1, -1, 2, 0]);
    }

    #[test]
    fn encode_errors_use_tensorflow_wording() {
        let e = encode(&[0.0], 0, 1, 1).unwrap_err();
        assert_eq!(e.message(), "sample_rate must be in (0, 2^32), got: 0");
        let e = encode(&[0.0], -1, 1, 1).unwrap_err();
        assert_eq!(
            e.message(),
            "sample_rate must be in (0, 2^32), got: 18446744073709551615"
        );
        assert_eq!(encode(&[], 1, 0, 3).unwrap_err().message(), "audio is null");
        let e = encode(&[], 1, 70000, 0).unwrap_err();
        assert_eq!(e.message(), "num_channels must be in (0, 2^16), got: 70000");
    }

    #[test]
    fn lying_lengths_are_errors_not_allocations() {
        let mut wav = encode(&[0.25; 4], 16000, 1, 4).unwrap();
        wav[40..44].copy_from_slice(&0x7fff_fff0u32.to_le_bytes());
        assert_eq!(
            msg(decode(&wav)),
            "Data too short when trying to read string"
        );
        wav[40..44].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(
            msg(decode(&wav)),
            "WAV data chunk 'data' is too large: 4294967295 bytes, but the limit is 2147483647"
        );
        assert_eq!(
            msg(decode(b"")),
            "Data too short when trying to read string"
        );
        assert_eq!(
            msg(decode(b"RIFX\0\0\0\0WAVE")),
            "Header mismatch: Expected RIFF but found RIFX"
        );
    }

    #[test]
    fn skips_chunks_tensorflow_skips() {
        let wav = encode(&[0.5, -0.5], 16000, 1, 2).unwrap();
        // A LIST chunk between "fmt " and "data".
        let mut with_list = wav[..36].to_vec();
        with_list.extend_from_slice(b"LIST\x04\0\0\0abcd");
        with_list.extend_from_slice(&wav[36..]);
        assert_eq!(decode(&with_list).unwrap().samples, vec![0.5, -0.5]);
        // Before "fmt ", only the listed ids.
        let mut junk = wav[..12].to_vec();
        junk.extend_from_slice(b"JUNK\x02\0\0\0xy");
        junk.extend_from_slice(&wav[12..]);
        assert_eq!(decode(&junk).unwrap().frames, 2);
        junk[12..16].copy_from_slice(b"LIST");
        assert_eq!(msg(decode(&junk)), "Unexpected field LIST");
    }
}
