//! A reader of the protobuf wire format with the semantics of protobuf's `CodedInputStream`
//! as TensorFlow's fast Example parser drives it, and the `BytesList` / `FloatList` /
//! `Int64List` decoders that write straight into output buffers.
//!
//! Lengths are never trusted: a limit is clipped to the bytes actually present, and nothing is
//! allocated from a length field; values are only ever appended one by one as they are read.

mod lists;
mod reader;

pub(crate) use lists::{bytes_list, feature_kind, float_list, int64_list, Fixed, Kind, Sink};
pub(crate) use reader::Reader;

/// The first byte of a field with number `n` and wire type varint / length-delimited / fixed32.
pub(crate) const fn varint_tag(n: u8) -> u8 {
    n << 3
}
pub(crate) const fn delimited_tag(n: u8) -> u8 {
    (n << 3) | 2
}
pub(crate) const fn fixed32_tag(n: u8) -> u8 {
    (n << 3) | 5
}

/// One `features` map entry of an Example: the key's and the serialized `Feature`'s ranges.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Entry {
    pub(crate) key: (usize, usize),
    pub(crate) value: (usize, usize),
}

fn map_entry(r: &mut Reader<'_>) -> Option<Entry> {
    let len = r.read_varint32()?;
    let old = r.push_limit(len);
    let mut e = Entry {
        key: (r.pos(), r.pos()),
        value: (r.pos(), r.pos()),
    };
    // Key and value may come in either order; exactly two fields.
    for _ in 0..2 {
        match r.read_tag()? {
            t if t == delimited_tag(1) as u32 => e.key = r.read_string()?,
            t if t == delimited_tag(2) as u32 => e.value = r.read_string()?,
            _ => return None,
        }
    }
    if !r.at_end() {
        return None;
    }
    r.pop_limit(old);
    Some(e)
}

/// Splits a serialized `Example` into its feature map entries (in wire order; concatenated
/// Examples add theirs), as TensorFlow's fast `ParseExample`; false when malformed.
pub(crate) fn example_entries(buf: &[u8], out: &mut Vec<Entry>) -> bool {
    out.clear();
    let mut r = Reader::new(buf, 0, buf.len());
    while !r.at_end() {
        if r.expect_tag(delimited_tag(1)) {
            let Some(len) = r.read_varint32() else {
                return false;
            };
            let old = r.push_limit(len);
            while !r.at_end() {
                if !r.expect_tag(delimited_tag(1)) {
                    return false;
                }
                match map_entry(&mut r) {
                    Some(e) => out.push(e),
                    None => return false,
                }
            }
            r.pop_limit(old);
        } else if !r.skip_unknown_field() {
            return false;
        }
    }
    true
}

/// Bytes as Python prints them inside quotes, for messages quoting raw input: printable ASCII
/// as is, `\n` `\r` `\t` `\\` `\'`, anything else `\xNN`; long input is cut after 4096 bytes.
pub(crate) fn escape_bytes(b: &[u8]) -> String {
    const MAX: usize = 4096;
    let mut s = String::with_capacity(b.len().min(MAX) + 8);
    for &c in b.iter().take(MAX) {
        match c {
            b'\n' => s.push_str("\\n"),
            b'\r' => s.push_str("\\r"),
            b'\t' => s.push_str("\\t"),
            b'\\' => s.push_str("\\\\"),
            b'\'' => s.push_str("\\'"),
            0x20..=0x7e => s.push(c as char),
            _ => s.push_str(&format!("\\x{c:02x}")),
        }
    }
    if b.len() > MAX {
        s.push_str("...");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn packed_and_unpacked_int64_lists() {
        // {a: int64 [1, 2]} packed, and {a: [1]} unpacked (TF_SEMANTICS 5.3).
        for (h, want) in [
            ("0a0d0a0b0a016112061a040a020102", vec![1i64, 2]),
            ("0a0b0a090a016112041a020801", vec![1]),
        ] {
            let b = hex(h);
            let mut entries = Vec::new();
            assert!(example_entries(&b, &mut entries));
            assert_eq!(entries.len(), 1);
            let e = entries[0];
            assert_eq!(&b[e.key.0..e.key.1], b"a");
            assert_eq!(feature_kind(&b, e.value.0, e.value.1), Ok(Kind::Int64));
            let mut v: Vec<i64> = Vec::new();
            assert!(int64_list(&b, e.value.0, e.value.1, &mut v));
            assert_eq!(v, want);
        }
    }

    #[test]
    fn fixed_sink_counts_past_its_end() {
        let b = hex("0a0d0a0b0a016112061a040a020102");
        let mut entries = Vec::new();
        example_entries(&b, &mut entries);
        let e = entries[0];
        let mut out = [0i64; 1];
        let mut f = Fixed::new(&mut out);
        assert!(int64_list(&b, e.value.0, e.value.1, &mut f));
        assert_eq!(f.n, 2);
        assert!(!f.is_full());
        assert_eq!(out, [1]);
    }

    #[test]
    fn malformed_inputs_fail_without_panicking() {
        let mut entries = Vec::new();
        assert!(!example_entries(b"\x0a\x05abc", &mut entries));
        assert!(!example_entries(&[0xff; 4], &mut entries));
        assert!(example_entries(b"", &mut entries));
        assert!(entries.is_empty());
        // A huge claimed length is clipped to what is there, never allocated.
        assert!(!example_entries(&hex("0affffffff0f0a"), &mut entries));
        let mut v = Vec::new();
        assert!(!float_list(&hex("12ffffffff0f0affffffff0f"), 0, 12, &mut v));
    }

    #[test]
    fn escapes_like_python() {
        assert_eq!(escape_bytes(b"\n\x05abc"), "\\n\\x05abc");
        assert_eq!(escape_bytes(&[0xff, 0xff]), "\\xff\\xff");
    }
}
