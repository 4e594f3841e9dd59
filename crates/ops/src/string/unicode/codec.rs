//! The character codecs behind the Unicode ops: input encodings found by ICU's converter names
//! (see [`aliases`](super::aliases)), decoded one step at a time the way TensorFlow's kernels
//! drive ICU's `ucnv_getNextUChar`, and the three output encodings TensorFlow writes from an ICU
//! `UnicodeString`.
//!
//! Decoding follows ICU: an ill-formed sequence is one error step per maximal subpart (Unicode's
//! recommended practice), a truncated sequence at the end of a string is one error step.
//! `"UTF-16"` and `"UTF-32"` detect a byte order mark; like the ICU converter TensorFlow reuses
//! for every string of a tensor, the detected byte order carries over to the next string unless
//! the previous one ended in a step that ICU handles on its generic path (the first step of a
//! string, or an error), which resets it.

/// An input encoding weir decodes (a subset of the converters ICU knows).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Encoding {
    Utf8,
    /// `"UTF-16"`: byte order from a BOM, big-endian without one.
    Utf16,
    Utf16Be,
    Utf16Le,
    /// `"UTF-32"`: byte order from a BOM, big-endian without one.
    Utf32,
    Utf32Be,
    Utf32Le,
    Ascii,
    Latin1,
    /// ICU's `windows-1252` (ibm-5348): bytes it leaves undefined map to U+0080..U+009F.
    Windows1252,
    /// `ISO-8859-15`.
    Latin9,
}

/// windows-1252's code points for bytes 0x80..=0x9F.
const WINDOWS_1252_HIGH: [u16; 32] = [
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039,
    0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
];

/// ISO-8859-15's code point for byte `b`.
fn latin9(b: u8) -> u32 {
    match b {
        0xA4 => 0x20AC,
        0xA6 => 0x0160,
        0xA8 => 0x0161,
        0xB4 => 0x017D,
        0xB8 => 0x017E,
        0xBC => 0x0152,
        0xBD => 0x0153,
        0xBE => 0x0178,
        _ => b as u32,
    }
}

/// One `ucnv_getNextUChar` call as TensorFlow sees it: the code point (0xFFFD for an error,
/// 0xFFFF when a byte order mark ended the string), the bytes it consumed, and whether ICU
/// reported an ill-formed sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Step {
    pub ch: u32,
    pub len: usize,
    pub error: bool,
}

impl Step {
    fn char(ch: u32, len: usize) -> Step {
        Step {
            ch,
            len,
            error: false,
        }
    }
    fn error(len: usize) -> Step {
        Step {
            ch: 0xFFFD,
            len,
            error: true,
        }
    }
}

/// The byte order of a BOM-detecting converter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    /// Not detected yet: the next step looks for a BOM.
    Undetected,
    Big,
    Little,
}

/// A converter for one run of a kernel: it keeps the byte order `"UTF-16"`/`"UTF-32"` detected
/// from one string to the next, as TensorFlow's reused ICU converter does.
pub(crate) struct Decoder {
    enc: Encoding,
    order: Order,
}

/// One UTF-8 step: a code point or one maximal subpart of an ill-formed sequence.
fn utf8_step(s: &[u8]) -> Step {
    let b0 = s[0];
    let (n, lo, hi) = match b0 {
        0x00..=0x7F => return Step::char(b0 as u32, 1),
        0xC2..=0xDF => (2, 0x80, 0xBF),
        0xE0 => (3, 0xA0, 0xBF),
        0xE1..=0xEC | 0xEE | 0xEF => (3, 0x80, 0xBF),
        0xED => (3, 0x80, 0x9F),
        0xF0 => (4, 0x90, 0xBF),
        0xF1..=0xF3 => (4, 0x80, 0xBF),
        0xF4 => (4, 0x80, 0x8F),
        _ => return Step::error(1),
    };
    let mut cp = (b0 as u32) & (0x7F >> n);
    for i in 1..n {
        let Some(&b) = s.get(i) else {
            // Truncated at the end of the string.
            return Step::error(i);
        };
        let (l, h) = if i == 1 { (lo, hi) } else { (0x80, 0xBF) };
        if b < l || b > h {
            return Step::error(i);
        }
        cp = cp << 6 | (b & 0x3F) as u32;
    }
    Step::char(cp, n)
}

fn unit16(s: &[u8], big: bool) -> u32 {
    if big {
        u16::from_be_bytes([s[0], s[1]]) as u32
    } else {
        u16::from_le_bytes([s[0], s[1]]) as u32
    }
}

/// One UTF-16 step: a code point (a surrogate pair is one), an unpaired surrogate (2 bytes), or a
/// truncated unit or pair at the end.
fn utf16_step(s: &[u8], big: bool) -> Step {
    if s.len() < 2 {
        return Step::error(s.len());
    }
    let u = unit16(s, big);
    match u {
        0xD800..=0xDBFF => {
            if s.len() < 4 {
                return Step::error(s.len());
            }
            let t = unit16(&s[2..], big);
            if (0xDC00..=0xDFFF).contains(&t) {
                Step::char(0x10000 + ((u - 0xD800) << 10) + (t - 0xDC00), 4)
            } else {
                Step::error(2)
            }
        }
        0xDC00..=0xDFFF => Step::error(2),
        _ => Step::char(u, 2),
    }
}

/// One UTF-32 step: a code point, a unit that is none (a surrogate or past U+10FFFF), or a
/// truncated unit at the end.
fn utf32_step(s: &[u8], big: bool) -> Step {
    if s.len() < 4 {
        return Step::error(s.len());
    }
    let b = [s[0], s[1], s[2], s[3]];
    let v = if big {
        u32::from_be_bytes(b)
    } else {
        u32::from_le_bytes(b)
    };
    if v > 0x10FFFF || (0xD800..=0xDFFF).contains(&v) {
        Step::error(4)
    } else {
        Step::char(v, 4)
    }
}

impl Decoder {
    /// A fresh converter (TensorFlow resets or opens one per kernel run).
    pub(crate) fn new(enc: Encoding) -> Decoder {
        Decoder {
            enc,
            order: Order::Undetected,
        }
    }

    fn fixed_step(&self, s: &[u8]) -> Step {
        match self.enc {
            Encoding::Utf8 => utf8_step(s),
            Encoding::Utf16Be => utf16_step(s, true),
            Encoding::Utf16Le => utf16_step(s, false),
            Encoding::Utf32Be => utf32_step(s, true),
            Encoding::Utf32Le => utf32_step(s, false),
            Encoding::Ascii if s[0] < 0x80 => Step::char(s[0] as u32, 1),
            Encoding::Ascii => Step::error(1),
            Encoding::Latin1 => Step::char(s[0] as u32, 1),
            Encoding::Windows1252 => match s[0] {
                b @ 0x80..=0x9F => Step::char(WINDOWS_1252_HIGH[(b - 0x80) as usize] as u32, 1),
                b => Step::char(b as u32, 1),
            },
            Encoding::Latin9 => Step::char(latin9(s[0]), 1),
            // Not called for these (`decode` detects their byte order); big-endian is their
            // default.
            Encoding::Utf16 => utf16_step(s, true),
            Encoding::Utf32 => utf32_step(s, true),
        }
    }

    /// One step of a BOM-detecting converter on the rest `s` of a string.
    fn detecting_step(&mut self, s: &[u8], wide: bool) -> Step {
        let unit = |s: &[u8], big: bool| {
            if wide {
                utf32_step(s, big)
            } else {
                utf16_step(s, big)
            }
        };
        match self.order {
            Order::Big | Order::Little => {
                let step = unit(s, self.order == Order::Big);
                // An error goes through ICU's generic path, which resets the converter when it
                // reaches the end of the input.
                if step.error && step.len == s.len() {
                    self.order = Order::Undetected;
                }
                step
            }
            Order::Undetected => {
                let (bom, order) = match (wide, s) {
                    (false, [0xFE, 0xFF, ..]) => (2, Order::Big),
                    (false, [0xFF, 0xFE, ..]) => (2, Order::Little),
                    (true, [0x00, 0x00, 0xFE, 0xFF, ..]) => (4, Order::Big),
                    (true, [0xFF, 0xFE, 0x00, 0x00, ..]) => (4, Order::Little),
                    _ => (0, Order::Big),
                };
                let rest = &s[bom..];
                if rest.is_empty() {
                    // A BOM alone: ICU returns no character (0xFFFF) and no error.
                    return Step::char(0xFFFF, s.len());
                }
                let mut step = unit(rest, order == Order::Big);
                step.len += bom;
                // ICU's generic path resets the converter when it consumed all the input.
                self.order = if step.len == s.len() {
                    Order::Undetected
                } else {
                    order
                };
                step
            }
        }
    }

    /// Calls `f` with each step over string `s`.
    pub(crate) fn decode(&mut self, s: &[u8], mut f: impl FnMut(Step)) {
        let mut pos = 0;
        while pos < s.len() {
            let rest = &s[pos..];
            let step = match self.enc {
                Encoding::Utf16 => self.detecting_step(rest, false),
                Encoding::Utf32 => self.detecting_step(rest, true),
                _ => self.fixed_step(rest),
            };
            // Every step consumes at least one byte.
            pos += step.len.max(1);
            f(step);
        }
    }
}

/// An ICU `UnicodeString`: UTF-16 code units, where a lone surrogate may stand.
#[derive(Default)]
pub(crate) struct Utf16Buf(pub Vec<u16>);

impl Utf16Buf {
    /// `UnicodeString::append(UChar32)`: values past U+10FFFF are dropped.
    pub(crate) fn push(&mut self, cp: u32) {
        if cp <= 0xFFFF {
            self.0.push(cp as u16);
        } else if cp <= 0x10FFFF {
            let v = cp - 0x10000;
            self.0.push(0xD800 | (v >> 10) as u16);
            self.0.push(0xDC00 | (v & 0x3FF) as u16);
        }
    }

    /// The code points, pairs joined; a lone surrogate comes out as itself.
    fn code_points(&self) -> impl Iterator<Item = u32> + '_ {
        char::decode_utf16(self.0.iter().copied()).map(|r| match r {
            Ok(c) => c as u32,
            Err(e) => e.unpaired_surrogate() as u32,
        })
    }

    /// Appends the string in `enc` to `out` as TensorFlow's `Encode` writes it: UTF-8 with a
    /// lone surrogate as U+FFFD, UTF-16-BE unit by unit, UTF-32-BE code point by code point.
    pub(crate) fn write(&self, enc: OutputEncoding, out: &mut Vec<u8>) {
        match enc {
            OutputEncoding::Utf8 => {
                for cp in self.code_points() {
                    let c = char::from_u32(cp).unwrap_or(char::REPLACEMENT_CHARACTER);
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
            }
            OutputEncoding::Utf16Be => {
                for u in &self.0 {
                    out.extend_from_slice(&u.to_be_bytes());
                }
            }
            OutputEncoding::Utf32Be => {
                for cp in self.code_points() {
                    out.extend_from_slice(&cp.to_be_bytes());
                }
            }
        }
    }
}

/// The encodings TensorFlow's Unicode ops write (their `output_encoding` attr).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OutputEncoding {
    /// `"UTF-8"`.
    #[default]
    Utf8,
    /// `"UTF-16-BE"`.
    Utf16Be,
    /// `"UTF-32-BE"`.
    Utf32Be,
}

impl OutputEncoding {
    /// The attr value.
    pub fn attr(self) -> &'static str {
        match self {
            OutputEncoding::Utf8 => "UTF-8",
            OutputEncoding::Utf16Be => "UTF-16-BE",
            OutputEncoding::Utf32Be => "UTF-32-BE",
        }
    }

    pub(crate) fn parse(s: &str) -> Option<OutputEncoding> {
        Some(match s {
            "UTF-8" => OutputEncoding::Utf8,
            "UTF-16-BE" => OutputEncoding::Utf16Be,
            "UTF-32-BE" => OutputEncoding::Utf32Be,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(enc: Encoding, strings: &[&[u8]]) -> Vec<Vec<(u32, usize, bool)>> {
        let mut d = Decoder::new(enc);
        strings
            .iter()
            .map(|s| {
                let mut v = Vec::new();
                d.decode(s, |st| v.push((st.ch, st.len, st.error)));
                v
            })
            .collect()
    }

    const E: u32 = 0xFFFD;

    // Steps printed by TensorFlow 2.21's UnicodeDecodeWithOffsets.
    #[test]
    fn utf8_maximal_subparts() {
        let s = steps(
            Encoding::Utf8,
            &[
                b"a\xffb",
                b"\xed\xa0\x80",
                b"\xe2\x82x",
                b"\xf0\x9f",
                b"\xf4\x90\x80\x80",
            ],
        );
        assert_eq!(s[0], [(97, 1, false), (E, 1, true), (98, 1, false)]);
        assert_eq!(s[1], [(E, 1, true); 3]);
        assert_eq!(s[2], [(E, 2, true), (120, 1, false)]);
        assert_eq!(s[3], [(E, 2, true)]);
        assert_eq!(s[4], [(E, 1, true); 4]);
        assert_eq!(utf8_step("\u{1F600}".as_bytes()), Step::char(0x1F600, 4));
    }

    #[test]
    fn utf16_byte_order_carries_over() {
        // After a string whose last step was native, the order stays; BOM-only strings give
        // 0xFFFF.
        let s = steps(
            Encoding::Utf16,
            &[
                b"\x00\x00\xfe\xff",
                b"\xff\xfe\x00\x00",
                b"\xff\xfea\x00",
                b"\xfe\xff",
            ],
        );
        assert_eq!(s[0], [(0, 2, false), (0xFEFF, 2, false)]);
        assert_eq!(s[1], [(0xFFFE, 2, false), (0, 2, false)]);
        assert_eq!(s[2], [(0xFFFE, 2, false), (0x6100, 2, false)]);
        assert_eq!(s[3], [(0xFEFF, 2, false)]);
        let s = steps(Encoding::Utf16, &[b"\xff\xfea\x00", b"b\x00", b"\xfe\xff"]);
        assert_eq!(s[0], [(97, 4, false)]);
        assert_eq!(s[1], [(0x6200, 2, false)]);
        assert_eq!(s[2], [(0xFFFF, 2, false)]);
    }

    #[test]
    fn utf32_steps() {
        let s = steps(
            Encoding::Utf32,
            &[
                b"\x00\x00\xfe\xff\x00\x00\x00a\x00\x00\x00b",
                b"\x00\x00\xd8\x00\x00",
            ],
        );
        assert_eq!(s[0], [(97, 8, false), (98, 4, false)]);
        assert_eq!(s[1], [(E, 4, true), (E, 1, true)]);
    }

    #[test]
    fn output_encodings() {
        let mut b = Utf16Buf::default();
        for cp in [0x61, 0xD83D, 0xDE00, 0xD800, 0x10FFFF, 0x110000] {
            b.push(cp);
        }
        let mut out = Vec::new();
        b.write(OutputEncoding::Utf8, &mut out);
        assert_eq!(out, "a\u{1F600}\u{FFFD}\u{10FFFF}".as_bytes());
        out.clear();
        b.write(OutputEncoding::Utf32Be, &mut out);
        assert_eq!(
            out,
            [0, 0, 0, 0x61, 0, 1, 0xF6, 0, 0, 0, 0xD8, 0, 0, 0x10, 0xFF, 0xFF]
        );
    }
}
