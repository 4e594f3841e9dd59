//! `EncodeBase64` and `DecodeBase64`: web-safe base64 (`-` and `_` for `+` and `/`), padding
//! optional, as TensorFlow's `tf.io.encode_base64` / `tf.io.decode_base64`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, Bytes, DType, Error, Kernel, OpContext, OpDef, Output, Result,
};

use super::{same_shape, StringsBuilder};

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// `tf.io.encode_base64(input, pad=False)`: each string in web-safe base64, `=`-padded to a
/// multiple of 4 when `pad`.
pub fn encode_base64(input: impl Into<Output>, pad: bool) -> Result<Output> {
    let input = input.into();
    crate::new_op(input.graph(), "EncodeBase64")
        .input(input)
        .attr("pad", pad)
        .build()?
        .output(0)
}

/// `tf.io.decode_base64(input)`: decodes web-safe base64, padded or not. Other characters fail
/// with "Invalid character found in base64."; a length of 1 modulo 4 with "Base64 string
/// length cannot be 1 modulo 4.".
pub fn decode_base64(input: impl Into<Output>) -> Result<Output> {
    let input = input.into();
    crate::new_op(input.graph(), "DecodeBase64")
        .input(input)
        .build()?
        .output(0)
}

/// Web-safe base64 of `data`.
/// The web-safe base64 of `data`.
pub(crate) fn encode(data: &[u8], pad: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len().div_ceil(3) * 4);
    encode_into(data, pad, &mut out);
    out
}

/// Appends the web-safe base64 of `data` to `out`.
fn encode_into(data: &[u8], pad: bool, out: &mut Vec<u8>) {
    let mut chunks = data.chunks_exact(3);
    for c in &mut chunks {
        let n = (c[0] as u32) << 16 | (c[1] as u32) << 8 | c[2] as u32;
        out.extend([18, 12, 6, 0].map(|s| ALPHABET[(n >> s & 63) as usize]));
    }
    match *chunks.remainder() {
        [a] => {
            let n = (a as u32) << 16;
            out.extend([18, 12].map(|s| ALPHABET[(n >> s & 63) as usize]));
            if pad {
                out.extend(b"==");
            }
        }
        [a, b] => {
            let n = (a as u32) << 16 | (b as u32) << 8;
            out.extend([18, 12, 6].map(|s| ALPHABET[(n >> s & 63) as usize]));
            if pad {
                out.push(b'=');
            }
        }
        _ => {}
    }
}

fn value(c: u8) -> Option<u32> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'-' => 62,
        b'_' => 63,
        _ => return None,
    } as u32)
}

fn quad(q: &[u8]) -> Result<[u8; 3]> {
    let mut n = 0u32;
    for &c in q {
        n = n << 6
            | value(c)
                .ok_or_else(|| Error::invalid_argument("Invalid character found in base64."))?;
    }
    Ok([(n >> 16) as u8, (n >> 8) as u8, n as u8])
}

/// Decodes web-safe base64 the way TensorFlow does: `=` only as the last one or two
/// characters of a length divisible by 4; the unused low bits of the last character are
/// ignored.
#[cfg(test)]
fn decode(data: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(data.len() / 4 * 3 + 3);
    decode_into(data, &mut out)?;
    Ok(out)
}

/// Appends the decoding of `data` to `out`.
fn decode_into(data: &[u8], out: &mut Vec<u8>) -> Result<()> {
    if data.is_empty() {
        return Ok(());
    }
    let mut rest = data;
    while rest.len() > 4 {
        out.extend(quad(&rest[..4])?);
        rest = &rest[4..];
    }
    let mut tail = rest;
    if tail.len() == 4 && tail[3] == b'=' {
        tail = if tail[2] == b'=' {
            &tail[..2]
        } else {
            &tail[..3]
        };
    }
    if tail.len() == 1 {
        return Err(Error::invalid_argument(
            "Base64 string length cannot be 1 modulo 4.",
        ));
    }
    let mut padded = [b'A'; 4];
    padded[..tail.len()].copy_from_slice(tail);
    let bytes = quad(&padded)?;
    out.extend_from_slice(&bytes[..tail.len() - 1]);
    Ok(())
}

struct EncodeKernel {
    pad: bool,
}

impl Kernel for EncodeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = ctx.input(0);
        let strings = t.as_slice::<Bytes>()?;
        let total: usize = strings.iter().map(|s| s.len().div_ceil(3) * 4).sum();
        let mut out =
            StringsBuilder::with_capacity(strings.len(), total / strings.len().max(1) + 1);
        for s in strings {
            encode_into(s, self.pad, out.buf());
            out.finish_one();
        }
        let out = out.build(t.shape())?;
        ctx.set_output(0, out);
        Ok(())
    }
}

struct DecodeKernel;

impl Kernel for DecodeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = ctx.input(0);
        let strings = t.as_slice::<Bytes>()?;
        let total: usize = strings.iter().map(|s| s.len() / 4 * 3 + 3).sum();
        let mut out =
            StringsBuilder::with_capacity(strings.len(), total / strings.len().max(1) + 1);
        for s in strings {
            decode_into(s, out.buf())?;
            out.finish_one();
        }
        let out = out.build(t.shape())?;
        ctx.set_output(0, out);
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        OpDef::new("EncodeBase64")
            .input("input", ArgType::Fixed(DType::String))
            .output("output", ArgType::Fixed(DType::String))
            .attr("pad", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .shape_fn(same_shape),
    );
    register_kernel("EncodeBase64", |node| {
        Ok(Box::new(EncodeKernel {
            pad: node.attr("pad")?,
        }))
    });
    register_op(
        OpDef::new("DecodeBase64")
            .input("input", ArgType::Fixed(DType::String))
            .output("output", ArgType::Fixed(DType::String))
            .shape_fn(same_shape),
    );
    register_kernel("DecodeBase64", |_| Ok(Box::new(DecodeKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;

    // Cases printed by TensorFlow 2.21.
    #[test]
    fn encodes_like_tensorflow() {
        let e = |s: &[u8], pad| String::from_utf8(encode(s, pad)).unwrap();
        assert_eq!(e(b"", false), "");
        assert_eq!(e(b"a", false), "YQ");
        assert_eq!(e(b"ab", false), "YWI");
        assert_eq!(e(b"abc", false), "YWJj");
        assert_eq!(e("\u{ff}\u{fe}".as_bytes(), false), "w7_Dvg");
        assert_eq!(e(b"hello world", false), "aGVsbG8gd29ybGQ");
        assert_eq!(e(b"a", true), "YQ==");
        assert_eq!(e(b"ab", true), "YWI=");
        assert_eq!(e("\u{ff}\u{fe}?".as_bytes(), true), "w7_Dvj8=");
    }

    #[test]
    fn decodes_like_tensorflow() {
        let d = |s: &str| decode(s.as_bytes()).map(|v| String::from_utf8_lossy(&v).into_owned());
        assert_eq!(d("").unwrap(), "");
        assert_eq!(d("YQ").unwrap(), "a");
        assert_eq!(d("YQ==").unwrap(), "a");
        assert_eq!(d("YWI").unwrap(), "ab");
        assert_eq!(d("YWJj").unwrap(), "abc");
        assert_eq!(d("aGVsbG8gd29ybGQ").unwrap(), "hello world");
        assert_eq!(d("YR==").unwrap(), "a");
        for bad in ["YW+j", "YQ==YQ==", "YQ=", "YW Jj", "a/8="] {
            assert_eq!(
                d(bad).unwrap_err().message(),
                "Invalid character found in base64.",
                "{bad}"
            );
        }
        assert_eq!(
            d("YWJjZ").unwrap_err().message(),
            "Base64 string length cannot be 1 modulo 4."
        );
    }
}
