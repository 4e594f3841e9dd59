//! The lists inside a `Feature` (`BytesList`, `FloatList`, `Int64List`), decoded straight into
//! a [`Sink`], and the feature kind that says which one a `Feature` holds.

use bytes::Bytes;

use super::{delimited_tag, fixed32_tag, varint_tag, Reader};
use crate::parsing::packed_varint::{decode_short_varints, VarintElem};

/// A varint at the start of `b` (at most 10 bytes): its value and length.
#[inline]
fn decode_varint(b: &[u8]) -> Option<(u64, usize)> {
    let mut v: u64 = 0;
    for (i, &byte) in b.iter().take(10).enumerate() {
        v |= ((byte & 0x7f) as u64) << (7 * i as u32).min(63);
        if byte < 0x80 {
            return Some((v, i + 1));
        }
    }
    None
}

/// How many bytes at the start of `b` are below 0x80 (one-byte varints), testing eight at a
/// time.
#[inline]
fn one_byte_run(b: &[u8]) -> usize {
    let mut n = 0;
    while let Some(word) = b.get(n..n + 8) {
        let w = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        let high = w & 0x8080_8080_8080_8080;
        if high != 0 {
            return n + (high.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    while n < b.len() && b[n] < 0x80 {
        n += 1;
    }
    n
}

/// Where decoded list values go: a growing `Vec`, or a fixed slice of an output buffer that
/// counts (without storing) values past its end, like TensorFlow's `LimitedArraySlice`.
pub(crate) trait Sink<T> {
    fn push(&mut self, v: T);
    /// Pushes each byte as a value (a run of one-byte varints).
    #[inline]
    fn push_bytes(&mut self, b: &[u8])
    where
        T: From<u8>,
    {
        for &x in b {
            self.push(T::from(x));
        }
    }
    /// The slots not yet filled, for a decoder that writes values in place and then reports
    /// them with `count_only`; empty when the sink has no such slots.
    fn unfilled(&mut self) -> &mut [T] {
        &mut []
    }
    /// How many more values can be stored.
    fn room(&self) -> usize;
    /// Counts `n` values that were not stored.
    fn count_only(&mut self, n: usize);
}

impl<T> Sink<T> for Vec<T> {
    #[inline]
    fn push(&mut self, v: T) {
        Vec::push(self, v)
    }
    #[inline]
    fn room(&self) -> usize {
        usize::MAX
    }
    #[inline]
    fn count_only(&mut self, _: usize) {}
}

/// A slice of an output buffer with a count of the values offered to it.
pub(crate) struct Fixed<'a, T> {
    pub(crate) out: &'a mut [T],
    pub(crate) n: usize,
}

impl<'a, T> Fixed<'a, T> {
    pub(crate) fn new(out: &'a mut [T]) -> Self {
        Fixed { out, n: 0 }
    }
    /// Whether exactly as many values came as the slice holds.
    pub(crate) fn is_full(&self) -> bool {
        self.n == self.out.len()
    }
}

impl<T> Sink<T> for Fixed<'_, T> {
    #[inline]
    fn push(&mut self, v: T) {
        if let Some(slot) = self.out.get_mut(self.n) {
            *slot = v;
        }
        self.n += 1;
    }
    #[inline]
    fn push_bytes(&mut self, b: &[u8])
    where
        T: From<u8>,
    {
        let start = self.n.min(self.out.len());
        let k = b.len().min(self.out.len() - start);
        for (o, &x) in self.out[start..start + k].iter_mut().zip(b) {
            *o = T::from(x);
        }
        self.n = self.n.saturating_add(b.len());
    }
    #[inline]
    fn unfilled(&mut self) -> &mut [T] {
        let start = self.n.min(self.out.len());
        &mut self.out[start..]
    }
    #[inline]
    fn room(&self) -> usize {
        self.out.len().saturating_sub(self.n)
    }
    #[inline]
    fn count_only(&mut self, n: usize) {
        self.n = self.n.saturating_add(n);
    }
}

/// The kind a `Feature` holds (its oneof), read from its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// No kind set (an empty `Feature`).
    None,
    Bytes,
    Float,
    Int64,
}

/// The kind of the serialized `Feature` in `buf[start..end]`; `Err` for any other first byte
/// (TensorFlow's "Unsupported datatype.").
#[inline]
pub(crate) fn feature_kind(buf: &[u8], start: usize, end: usize) -> Result<Kind, ()> {
    if start >= end {
        return Ok(Kind::None);
    }
    match buf[start] {
        b if b == delimited_tag(1) => Ok(Kind::Bytes),
        b if b == delimited_tag(2) => Ok(Kind::Float),
        b if b == delimited_tag(3) => Ok(Kind::Int64),
        _ => Err(()),
    }
}

/// A reader of a `Feature`'s list, just after its kind byte.
#[inline]
fn list_reader(buf: &[u8], start: usize, end: usize) -> Option<Reader<'_>> {
    let mut r = Reader::new(buf, start + 1, end);
    let len = r.read_varint32()?;
    r.push_limit(len);
    Some(r)
}

/// Decodes an `Int64List` (packed or not) of the `Feature` at `buf[start..end]`, each value as
/// `T` (int64, or float32 where a parse converts for a following Cast).
pub(crate) fn int64_list<T: VarintElem>(
    buf: &[u8],
    start: usize,
    end: usize,
    sink: &mut impl Sink<T>,
) -> bool {
    let Some(mut r) = list_reader(buf, start, end) else {
        return false;
    };
    if r.at_end() {
        return true;
    }
    match r.peek() {
        t if t == delimited_tag(1) => {
            r.expect_tag(t);
            let Some(len) = r.read_varint32() else {
                return false;
            };
            r.push_limit(len);
            let bytes = &buf[r.pos..r.limit];
            let (mut i, made) = decode_short_varints(bytes, sink.unfilled());
            sink.count_only(made);
            // What the shuffle decoder left (no AVX2, a long varint, the tail, a growing
            // sink): most values are one-byte varints, so runs of them are found eight bytes
            // at a time and stored in bulk; two-byte values are decoded inline.
            while i < bytes.len() {
                let run = one_byte_run(&bytes[i..]);
                sink.push_bytes(&bytes[i..i + run]);
                i += run;
                if i == bytes.len() {
                    break;
                }
                match bytes.get(i + 1) {
                    Some(&b1) if b1 < 0x80 => {
                        sink.push(T::from_i64((bytes[i] & 0x7f) as i64 | (b1 as i64) << 7));
                        i += 2;
                    }
                    _ => match decode_varint(&bytes[i..]) {
                        Some((v, n)) => {
                            sink.push(T::from_i64(v as i64));
                            i += n;
                        }
                        None => return false,
                    },
                }
            }
            true
        }
        t if t == varint_tag(1) => {
            while !r.at_end() {
                if !r.expect_tag(t) {
                    return false;
                }
                match r.read_varint64() {
                    Some(v) => sink.push(T::from_i64(v as i64)),
                    None => return false,
                }
            }
            true
        }
        _ => false,
    }
}

/// Decodes a `FloatList` (packed or not) of the `Feature` at `buf[start..end]`.
pub(crate) fn float_list(buf: &[u8], start: usize, end: usize, sink: &mut impl Sink<f32>) -> bool {
    let Some(mut r) = list_reader(buf, start, end) else {
        return false;
    };
    if r.at_end() {
        return true;
    }
    match r.peek() {
        t if t == delimited_tag(1) => {
            r.expect_tag(t);
            let Some(len) = r.read_varint32() else {
                return false;
            };
            // TensorFlow sizes the list from the packed length (a trailing partial float is
            // ignored) and reads only what fits the output.
            let count = len as usize / 4;
            let take = count.min(sink.room());
            let Some((s, e)) = r.read_raw(take * 4) else {
                return false;
            };
            for c in buf[s..e].chunks_exact(4) {
                sink.push(f32::from_le_bytes([c[0], c[1], c[2], c[3]]));
            }
            sink.count_only(count - take);
            true
        }
        t if t == fixed32_tag(1) => {
            while !r.at_end() {
                if !r.expect_tag(t) {
                    return false;
                }
                match r.read_le32() {
                    Some(v) => sink.push(f32::from_bits(v)),
                    None => return false,
                }
            }
            true
        }
        _ => false,
    }
}

/// Decodes a `BytesList` of the `Feature` at `base[start..end]`; every value is a slice of
/// `base`. Like TensorFlow, more values than `sink` has room for is a failure.
pub(crate) fn bytes_list(
    base: &Bytes,
    start: usize,
    end: usize,
    sink: &mut impl Sink<Bytes>,
) -> bool {
    let Some(mut r) = list_reader(base, start, end) else {
        return false;
    };
    while !r.at_end() {
        if !r.expect_tag(delimited_tag(1)) {
            return false;
        }
        let Some(len) = r.read_varint32() else {
            return false;
        };
        if sink.room() == 0 {
            return false;
        }
        match r.read_raw(len as usize) {
            Some((s, e)) => sink.push(base.slice(s..e)),
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn varint(mut v: u64, out: &mut Vec<u8>) {
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    /// A `Feature` holding a packed `Int64List` of `values`.
    fn packed_int64_feature(values: &[i64]) -> Vec<u8> {
        let mut payload = Vec::new();
        for &v in values {
            varint(v as u64, &mut payload);
        }
        let mut list = vec![0x0a];
        varint(payload.len() as u64, &mut list);
        list.extend_from_slice(&payload);
        let mut feature = vec![0x1a];
        varint(list.len() as u64, &mut feature);
        feature.extend_from_slice(&list);
        feature
    }

    #[test]
    fn packed_runs_of_one_byte_values_decode_like_single_values() {
        // Runs of one-byte values of every length around the 8-byte word, broken by two-byte,
        // large and negative (ten-byte) values.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut values = Vec::new();
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push(match x % 10 {
                0..=5 => 0,
                6 => (x >> 8) as i64 % 128,
                7 => 128 + (x >> 8) as i64 % 16_000,
                8 => (x >> 8) as i64,
                _ => -((x >> 8) as i64 % 1000) - 1,
            });
        }
        let f = packed_int64_feature(&values);
        let mut v: Vec<i64> = Vec::new();
        assert!(int64_list(&f, 0, f.len(), &mut v));
        assert_eq!(v, values);
        // A fixed sink stores what fits and counts the rest.
        let mut out = vec![-7i64; 1500];
        let mut sink = Fixed::new(&mut out);
        assert!(int64_list(&f, 0, f.len(), &mut sink));
        assert_eq!(sink.n, 2000);
        assert_eq!(out, values[..1500]);
        // One- and two-byte values only, into a sink of exactly their number: the shuffle
        // decoder (packed_varint.rs) takes all but the last few.
        let short: Vec<i64> = values.iter().map(|v| v.rem_euclid(16_384)).collect();
        let f = packed_int64_feature(&short);
        let mut out = vec![-7i64; short.len()];
        let mut sink = Fixed::new(&mut out);
        assert!(int64_list(&f, 0, f.len(), &mut sink));
        assert!(sink.is_full());
        assert_eq!(out, short);
        // A varint cut off at the end of the list fails.
        let mut cut = packed_int64_feature(&[5, 300]);
        let n = cut.len();
        cut[n - 1] |= 0x80;
        assert!(!int64_list(&cut, 0, n, &mut Vec::<i64>::new()));
    }
}
