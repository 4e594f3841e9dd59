//! `DecodeCompressed`: `tf.io.decode_compressed`, each string inflated from ZLIB or GZIP.
//!
//! TensorFlow's kernel reads each string through its `ZlibInputStream` until the input runs
//! out, and the quirks of that loop are kept, because a pipeline that works on TensorFlow must
//! work here: a stream cut short gives what was inflated so far (no error); after a ZLIB stream
//! ends, further bytes are ignored; after a GZIP member ends, the next bytes must be another
//! member (so trailing garbage is an error, and concatenated members are joined); an empty
//! string inflates to an empty one. Damage is DataLoss with zlib's words, as
//! `inflate() failed with error -3: incorrect header check`.

use bytes::Bytes;
use flate2::{Decompress, FlushDecompress, Status};
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef,
    Output, Result, Tensor,
};

/// TensorFlow's kernel reads at most `INT_MAX` bytes from each stream and keeps them: a larger
/// output is cut there, as in TensorFlow.
const MAX_OUTPUT: usize = i32::MAX as usize;

/// The size of TensorFlow's input and output buffers for each string (`kBufferSize`).
const BUFFER: usize = 256 << 10;

/// `tf.io.decode_compressed(bytes, compression_type)`: every string of `bytes` decompressed;
/// `compression_type` is `""` (strings as they are), `"ZLIB"` or `"GZIP"`.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::array::constant;
/// # use weir_session::{RunArgs, Session};
/// use std::io::Write;
/// let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
/// z.write_all(b"hello, weir").unwrap();
/// let g = Graph::new();
/// let packed = constant(&g, Tensor::from_byte_strings(&[z.finish().unwrap()]))?;
/// let text = weir_ops::parsing::decode_compressed(&packed, "ZLIB")?;
/// let out = Session::new(&g)?.run(&RunArgs::new().fetch(&text))?;
/// assert_eq!(out[0].to_strings()?, vec!["hello, weir"]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn decode_compressed(bytes: impl Into<Output>, compression_type: &str) -> Result<Output> {
    DecodeCompressed::new()
        .compression_type(compression_type)
        .build(bytes)
}

/// The options of `tf.io.decode_compressed(bytes, compression_type='', name=None)`.
#[derive(Clone, Debug, Default)]
pub struct DecodeCompressed {
    compression_type: String,
    name: Option<String>,
}

impl DecodeCompressed {
    /// No compression (`compression_type=''`): the strings come out as they are.
    pub fn new() -> DecodeCompressed {
        DecodeCompressed::default()
    }

    /// `""`, `"ZLIB"` or `"GZIP"`; any other value fails when the op runs, as in TensorFlow.
    pub fn compression_type(mut self, compression_type: &str) -> DecodeCompressed {
        self.compression_type = compression_type.to_string();
        self
    }

    /// The node's name.
    pub fn name(mut self, name: &str) -> DecodeCompressed {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the node; the output has the shape of `bytes`.
    pub fn build(self, bytes: impl Into<Output>) -> Result<Output> {
        let bytes = bytes.into();
        crate::new_op(bytes.graph(), "DecodeCompressed")
            .input(&bytes)
            .maybe_name(self.name.as_deref())
            .attr("compression_type", self.compression_type.as_str())
            .build()?
            .output(0)
    }
}

/// How the strings are compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Codec {
    None,
    Zlib,
    Gzip,
}

/// Inflates one string as TensorFlow's `DecodeCompressed` kernel does: through a 256 KiB input
/// buffer, refilled only when a call of `inflate()` produced nothing, and 256 KiB of output per
/// call. The result stops where TensorFlow's read loop stops: when a call produces nothing and
/// no input is left to load. So an empty GZIP member ends the string (TensorFlow never looks
/// at the members after it), as does the end of a ZLIB stream or of the input.
fn inflate(input: &[u8], codec: Codec, chunk: &mut [u8]) -> Result<Bytes> {
    let gzip = codec == Codec::Gzip;
    let fresh = || {
        if gzip {
            Decompress::new_gzip(15)
        } else {
            Decompress::new(true)
        }
    };
    let mut d = fresh();
    let mut out: Vec<u8> = Vec::new();
    // The input TensorFlow's buffer holds: `input[used..loaded]`.
    let (mut used, mut loaded) = (0usize, 0usize);
    while out.len() < MAX_OUTPUT {
        let (in_before, out_before) = (d.total_in(), d.total_out());
        let status = d
            .decompress(&input[used..loaded], chunk, FlushDecompress::None)
            .map_err(|e| inflate_error(&e))?;
        used += (d.total_in() - in_before) as usize;
        let made = (d.total_out() - out_before) as usize;
        if status == Status::StreamEnd && gzip {
            // TensorFlow resets the inflater after each GZIP member.
            d = fresh();
        }
        if made > 0 {
            out.extend_from_slice(&chunk[..made]);
            continue;
        }
        // Nothing came out: load more input, or stop if there is none.
        let room = BUFFER - (loaded - used);
        let more = room.min(input.len() - loaded);
        if more == 0 {
            break;
        }
        loaded += more;
    }
    out.truncate(MAX_OUTPUT);
    Ok(Bytes::from(out))
}

/// TensorFlow's DataLoss for a failed `inflate()`: its return code, then zlib's message.
fn inflate_error(e: &flate2::DecompressError) -> Error {
    if e.needs_dictionary().is_some() {
        // Z_NEED_DICT; zlib leaves no message for it.
        return Error::data_loss("inflate() failed with error 2");
    }
    match e.message() {
        Some(msg) => Error::data_loss(format!("inflate() failed with error -3: {msg}")),
        None => Error::data_loss("inflate() failed with error -3"),
    }
}

/// Every string of `bytes` decompressed with `compression_type`, in `bytes`' shape: what the
/// `DecodeCompressed` kernel computes.
pub fn decode_compressed_tensor(bytes: &Tensor, compression_type: &str) -> Result<Tensor> {
    let codec = codec_of(compression_type)?;
    let strs = bytes.as_slice::<Bytes>()?;
    let out = match codec {
        Codec::None => strs.to_vec(),
        _ => {
            // One output buffer for all the strings (its size only bounds each call's output).
            let mut chunk = vec![0u8; BUFFER];
            strs.iter()
                .map(|s| inflate(s, codec, &mut chunk))
                .collect::<Result<Vec<_>>>()?
        }
    };
    Tensor::from_vec(bytes.shape(), out)
}

fn codec_of(compression_type: &str) -> Result<Codec> {
    match compression_type {
        "" => Ok(Codec::None),
        "ZLIB" => Ok(Codec::Zlib),
        "GZIP" => Ok(Codec::Gzip),
        // TensorFlow 2.21 also inflates Zstandard; weir has no Zstandard decoder.
        "ZSTD" => Err(Error::unimplemented(
            "DecodeCompressed: ZSTD is not available in weir; ZLIB, GZIP or none are",
        )),
        _ => Err(Error::invalid_argument(
            "Only ZLIB, ZSTD, GZIP or NONE are supported compressions",
        )),
    }
}

struct DecodeCompressedKernel {
    compression_type: String,
}

impl Kernel for DecodeCompressedKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let out = decode_compressed_tensor(ctx.input(0), &self.compression_type)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(DecodeCompressedKernel {
        compression_type: node.attr("compression_type")?,
    }))
}

fn same_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    ctx.set_output(0, s);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("DecodeCompressed")
            .input("bytes", ArgType::Fixed(DType::String))
            .output("output", ArgType::Fixed(DType::String))
            .attr(
                "compression_type",
                AttrKind::Str,
                Some(AttrValue::Str(String::new())),
            )
            .shape_fn(same_shape),
    );
    register_kernel("DecodeCompressed", make);
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn zlib(data: &[u8]) -> Vec<u8> {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(data).unwrap();
        z.finish().unwrap()
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(data).unwrap();
        z.finish().unwrap()
    }

    /// Output larger than the first buffer, several times over, comes out whole.
    #[test]
    fn large_outputs_grow_the_buffer() {
        let big: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
        for (packed, codec) in [(zlib(&big), Codec::Zlib), (gzip(&big), Codec::Gzip)] {
            assert_eq!(
                inflate(&packed, codec, &mut vec![0; BUFFER])
                    .unwrap()
                    .as_ref(),
                &big[..]
            );
        }
    }

    /// Random bytes, and every cut of a stream, end in a value or DataLoss, never a panic.
    #[test]
    fn any_input_is_a_value_or_data_loss() {
        let text = b"the quick brown fox jumps over the lazy dog ".repeat(20);
        for packed in [zlib(&text), gzip(&text)] {
            for cut in 0..packed.len() {
                for codec in [Codec::Zlib, Codec::Gzip] {
                    if let Err(e) = inflate(&packed[..cut], codec, &mut vec![0; BUFFER]) {
                        assert_eq!(e.code(), weir_graph::Code::DataLoss);
                    }
                }
            }
        }
        let mut x = 12345u32;
        for len in 0..200 {
            let junk: Vec<u8> = (0..len)
                .map(|_| {
                    x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    (x >> 16) as u8
                })
                .collect();
            for codec in [Codec::Zlib, Codec::Gzip] {
                if let Err(e) = inflate(&junk, codec, &mut vec![0; BUFFER]) {
                    assert_eq!(e.code(), weir_graph::Code::DataLoss);
                }
            }
        }
    }
}
