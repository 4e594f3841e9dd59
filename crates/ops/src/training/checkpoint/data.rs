//! A tensor's bytes in a checkpoint's data file, as TensorFlow's `BundleWriter` writes them,
//! and the CRC32C its `BundleEntryProto` records for them.
//!
//! Numbers are little-endian and row-major, bools one byte each (0 or 1); the CRC is that of
//! the bytes. A string tensor is every element's length as a varint64, then a masked CRC32C
//! (u32le) of the lengths, each taken as a u32le (a u64le when it exceeds `u32::MAX`, never the
//! varint bytes), then every element's bytes; its CRC covers the lengths (as u32/u64), the four
//! length-checksum bytes and the string bytes.

use std::io::Write;

use weir_graph::{Bytes, DType, Error, LeBytes, Result, Tensor};

use super::table::{get_varint, put_varint};
use crate::io::crc::{mask, unmask};

/// The bytes one element of `dt` takes in the data file; `None` for strings.
pub(crate) fn element_size(dt: DType) -> Option<usize> {
    match dt {
        DType::String | DType::Resource => None,
        dt => weir_graph::match_le_dtype!(dt, T => Some(<T as LeBytes>::SIZE), _ => None),
    }
}

/// Elements encoded per write, so a large tensor never needs a second full-size buffer.
const CHUNK_BYTES: usize = 1 << 16;

/// Writes `t`'s bytes to `out`; returns how many were written and their CRC32C (unmasked, as
/// TensorFlow computes it before masking it into the entry).
pub(crate) fn write_tensor(t: &Tensor, out: &mut impl Write) -> Result<(u64, u32)> {
    fn numbers<T: LeBytes>(t: &Tensor, out: &mut impl Write) -> Result<(u64, u32)> {
        let s = t.as_slice::<T>()?;
        let mut buf = Vec::with_capacity(CHUNK_BYTES.min(s.len() * T::SIZE));
        let mut crc = 0;
        for chunk in s.chunks((CHUNK_BYTES / T::SIZE).max(1)) {
            buf.clear();
            for &v in chunk {
                v.put(&mut buf);
            }
            crc = crc32c::crc32c_append(crc, &buf);
            out.write_all(&buf)?;
        }
        Ok(((s.len() * T::SIZE) as u64, crc))
    }
    match t.dtype() {
        DType::String => {
            let s = t.as_slice::<Bytes>()?;
            let mut lengths = Vec::with_capacity(s.len());
            let mut crc = 0;
            for b in s {
                let n = b.len() as u64;
                put_varint(&mut lengths, n);
                crc = match u32::try_from(n) {
                    Ok(n32) => crc32c::crc32c_append(crc, &n32.to_le_bytes()),
                    Err(_) => crc32c::crc32c_append(crc, &n.to_le_bytes()),
                };
            }
            let length_crc = mask(crc).to_le_bytes();
            crc = crc32c::crc32c_append(crc, &length_crc);
            out.write_all(&lengths)?;
            out.write_all(&length_crc)?;
            let mut size = (lengths.len() + 4) as u64;
            for b in s {
                crc = crc32c::crc32c_append(crc, b);
                out.write_all(b)?;
                size += b.len() as u64;
            }
            Ok((size, crc))
        }
        dt => weir_graph::match_le_dtype!(dt, T => numbers::<T>(t, out),
            _ => Err(Error::invalid_argument(format!("Cannot save a {dt} tensor in a checkpoint")))),
    }
}

/// Decodes `bytes`, one tensor's data, into a tensor of `dtype` and `shape` (`n` elements),
/// checking its CRC against `stored_crc` (masked, as the entry holds it). A failure is
/// described for the caller to turn into DataLoss naming the file.
pub(crate) fn decode_tensor(
    dtype: DType,
    shape: &[usize],
    n: usize,
    bytes: Bytes,
    stored_crc: u32,
) -> std::result::Result<Tensor, String> {
    let check = |actual: u32| {
        if unmask(stored_crc) == actual {
            Ok(())
        } else {
            Err(format!(
                "Checksum does not match: stored {:08} vs. calculated on the restored bytes {actual}",
                unmask(stored_crc)
            ))
        }
    };
    fn numbers<T: LeBytes>(shape: &[usize], b: &[u8]) -> std::result::Result<Tensor, String> {
        Tensor::from_vec(shape, b.chunks_exact(T::SIZE).map(T::get).collect())
            .map_err(|e| e.message().to_string())
    }
    match dtype {
        DType::String => {
            let (strings, actual) = decode_strings(n, bytes)?;
            check(actual)?;
            Tensor::from_vec(shape, strings).map_err(|e| e.message().to_string())
        }
        dt => {
            check(crc32c::crc32c(&bytes))?;
            weir_graph::match_le_dtype!(dt, T => numbers::<T>(shape, &bytes),
                _ => Err(format!("cannot restore a {dt} tensor")))
        }
    }
}

/// Splits a string tensor's bytes into its `n` elements (slices of `bytes`, no copies) and
/// computes the CRC TensorFlow checks them against.
fn decode_strings(n: usize, bytes: Bytes) -> std::result::Result<(Vec<Bytes>, u32), String> {
    if n == 0 && bytes.is_empty() {
        // TensorFlow reads a zero-size string entry as no elements.
        return Ok((Vec::new(), 0));
    }
    // Each element takes at least one length byte, and the length checksum four.
    if n > bytes.len().saturating_sub(4) {
        return Err(format!(
            "{} bytes cannot hold {n} string lengths and their checksum",
            bytes.len()
        ));
    }
    let mut lengths = Vec::with_capacity(n);
    let mut pos = 0;
    let mut crc = 0;
    let mut total: u64 = 0;
    for i in 0..n {
        let (len, used) = get_varint(&bytes[pos..], 10)
            .ok_or_else(|| format!("bad varint length of string {i} at byte {pos}"))?;
        pos += used;
        crc = match u32::try_from(len) {
            Ok(l) => crc32c::crc32c_append(crc, &l.to_le_bytes()),
            Err(_) => crc32c::crc32c_append(crc, &len.to_le_bytes()),
        };
        total = total.saturating_add(len);
        lengths.push(len as usize);
    }
    let Some(raw) = bytes.get(pos..pos + 4) else {
        return Err(format!(
            "String lengths longer than expected: they end at byte {pos} of {}",
            bytes.len()
        ));
    };
    let raw: [u8; 4] = [raw[0], raw[1], raw[2], raw[3]];
    let length_crc = u32::from_le_bytes(raw);
    if unmask(length_crc) != crc {
        return Err(format!(
            "The length checksum does not match: expected {:08} but actual is {crc:08}",
            unmask(length_crc)
        ));
    }
    crc = crc32c::crc32c_append(crc, &raw);
    pos += 4;
    if total != (bytes.len() - pos) as u64 {
        return Err(format!(
            "the strings' lengths add up to {total} bytes but {} follow them",
            bytes.len() - pos
        ));
    }
    let mut out = Vec::with_capacity(n);
    for len in lengths {
        let s = bytes.slice(pos..pos + len);
        crc = crc32c::crc32c_append(crc, &s);
        out.push(s);
        pos += len;
    }
    Ok((out, crc))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(t: &Tensor) {
        let mut out = Vec::new();
        let (size, crc) = write_tensor(t, &mut out).unwrap();
        assert_eq!(size as usize, out.len());
        if t.dtype() != DType::String {
            assert_eq!(
                crc,
                crc32c::crc32c(&out),
                "a number's CRC covers exactly its bytes"
            );
        }
        let back = decode_tensor(
            t.dtype(),
            t.shape(),
            t.num_elements(),
            Bytes::from(out),
            mask(crc),
        );
        assert_eq!(&back.unwrap(), t);
    }

    #[test]
    fn string_layout_is_tensorflows() {
        // The bytes TensorFlow 2.21 wrote for tf.Variable([b"x", b"", b"hello"]).
        let t = Tensor::from(vec!["x", "", "hello"]);
        let mut out = Vec::new();
        write_tensor(&t, &mut out).unwrap();
        let mut want = vec![1u8, 0, 5, 0xc5, 0x63, 0xd0, 0x96];
        want.extend_from_slice(b"xhello");
        assert_eq!(out, want);
    }

    #[test]
    fn every_dtype_round_trips() {
        round_trip(&Tensor::from_vec(&[2, 2], vec![1.5f32, -2.0, 0.0, f32::MAX]).unwrap());
        round_trip(&Tensor::from(vec![1e300f64, -0.0]));
        round_trip(&Tensor::from(vec![i8::MIN, 0, i8::MAX]));
        round_trip(&Tensor::from(vec![i16::MIN, i16::MAX]));
        round_trip(&Tensor::from(vec![i32::MIN, i32::MAX]));
        round_trip(&Tensor::from(7i64));
        round_trip(&Tensor::from(vec![0u8, 255]));
        round_trip(&Tensor::from(vec![0u16, 65535]));
        round_trip(&Tensor::from(vec![true, false]));
        round_trip(&Tensor::from(vec![
            "a".repeat(300),
            String::new(),
            "wörld".into(),
        ]));
        round_trip(&Tensor::from_vec(&[0, 3], Vec::<Bytes>::new()).unwrap());
        round_trip(&Tensor::from_vec(&[0], Vec::<f32>::new()).unwrap());
        let big: Vec<f32> = (0..100_000).map(|i| i as f32).collect();
        round_trip(&Tensor::from_vec(&[100_000], big).unwrap());
    }
}
