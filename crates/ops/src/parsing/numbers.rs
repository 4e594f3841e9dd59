//! Number syntax of `decode_csv` fields: TensorFlow parses them with absl's `SimpleAtoi` and
//! `SimpleAtof`/`SimpleAtod`, and these functions accept exactly the same texts.
//!
//! Integers: optional surrounding ASCII whitespace, one optional `+`/`-`, then decimal digits
//! only (leading zeros allowed), range checked. Floats: `strtod`-like decimal and `0x` hex
//! floats, `inf`/`infinity`/`nan` in any case, overflow to ±inf, underflow to ±0.

/// absl's `ascii_isspace`: space, `\t`, `\n`, `\v`, `\f`, `\r`.
#[inline]
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

#[inline]
fn trim(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if !is_space(*first) {
            break;
        }
        s = rest;
    }
    while let [rest @ .., last] = s {
        if !is_space(*last) {
            break;
        }
        s = rest;
    }
    s
}

/// Parses a decimal integer the way absl's `SimpleAtoi` does, into the range `[min, max]`.
#[inline]
fn parse_int(s: &[u8], min: i64, max: i64) -> Option<i64> {
    let s = trim(s);
    let (neg, digits) = match s.first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() {
        return None;
    }
    // Accumulate negatively so that i64::MIN is representable.
    let mut v: i64 = 0;
    if digits.len() <= 18 {
        // Below 10^18: no overflow is possible, so no checks per digit.
        for &c in digits {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            v = v * 10 - d as i64;
        }
    } else {
        for &c in digits {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            v = v.checked_mul(10)?.checked_sub(d as i64)?;
        }
    }
    let v = if neg { v } else { v.checked_neg()? };
    (min..=max).contains(&v).then_some(v)
}

/// Eight ASCII zeros, one per byte of a word.
const ZEROS: u64 = 0x3030_3030_3030_3030;

/// The value of the short integer field `rec[start..end]`: an optional sign, then one to eight
/// digits, read as one word of the record around the field instead of byte by byte. `None`
/// for any other text (spaces, more digits, no digits...), which [`parse_int`] then reads.
///
/// Why: the digit loop with its checks cost about 150 instructions per field of CSV files of
/// five-digit numbers, most of decode_csv's time; this is about 40.
#[inline]
fn short_int(rec: &[u8], start: usize, end: usize) -> Option<i64> {
    let first = *rec.get(start)?;
    let neg = first == b'-';
    let digits = start + usize::from(neg || first == b'+');
    let n = end.checked_sub(digits)?;
    if n == 0 || n > 8 || end > rec.len() {
        return None;
    }
    // The digits as the last n bytes of a word (first digit lowest, as in memory), the bytes
    // before them zeros: taken from the 8 bytes that end the field, or those it starts with.
    let fill = (8 - n) * 8; // bits below the digits, 0..=56
    let below = !(u64::MAX << fill);
    let word = if end >= 8 {
        let w = u64::from_le_bytes(rec[end - 8..end].try_into().ok()?);
        (w & !below) | (ZEROS & below)
    } else if digits + 8 <= rec.len() {
        let w = u64::from_le_bytes(rec[digits..digits + 8].try_into().ok()?);
        (w << fill) | (ZEROS & below)
    } else {
        return None;
    };
    // Every byte 0x30..=0x39: its high nibble is 3, and adding 6 keeps it 3.
    const HIGH: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    if word & HIGH != ZEROS || word.wrapping_add(0x0606_0606_0606_0606) & HIGH != ZEROS {
        return None;
    }
    // Pairs of digits, then fours, then all eight (the first digit is the most significant).
    let mut v = word - ZEROS;
    v = v.wrapping_mul(10).wrapping_add(v >> 8);
    const PAIRS: u64 = 0x0000_00FF_0000_00FF;
    const MUL1: u64 = 100 + (1_000_000 << 32);
    const MUL2: u64 = 1 + (10_000 << 32);
    let v = ((v & PAIRS)
        .wrapping_mul(MUL1)
        .wrapping_add(((v >> 16) & PAIRS).wrapping_mul(MUL2)))
        >> 32;
    let v = (v & 0xFFFF_FFFF) as i64;
    Some(if neg { -v } else { v })
}

/// [`parse_i32`] of the field `rec[start..end]`, reading a short field as one word.
#[inline]
pub fn parse_i32_at(rec: &[u8], start: usize, end: usize) -> Option<i32> {
    // At most eight digits always fit in an i32.
    match short_int(rec, start, end) {
        Some(v) => Some(v as i32),
        None => parse_i32(rec.get(start..end)?),
    }
}

/// [`parse_i64`] of the field `rec[start..end]`, reading a short field as one word.
#[inline]
pub fn parse_i64_at(rec: &[u8], start: usize, end: usize) -> Option<i64> {
    match short_int(rec, start, end) {
        Some(v) => Some(v),
        None => parse_i64(rec.get(start..end)?),
    }
}

/// absl's `SimpleAtoi` for int32.
pub fn parse_i32(s: &[u8]) -> Option<i32> {
    parse_int(s, i32::MIN as i64, i32::MAX as i64).map(|v| v as i32)
}

/// absl's `SimpleAtoi` for int64.
pub fn parse_i64(s: &[u8]) -> Option<i64> {
    parse_int(s, i64::MIN, i64::MAX)
}

/// The IEEE formats a parsed float is rounded to.
#[derive(Clone, Copy)]
struct Format {
    /// Significand bits including the implicit one (24 or 53).
    precision: i64,
    /// Exponent of the smallest normal number (-126 or -1022).
    min_exp: i64,
    /// Exponent of the largest finite number (127 or 1023).
    max_exp: i64,
    /// Total bits (32 or 64).
    bits: u32,
}

const F32: Format = Format {
    precision: 24,
    min_exp: -126,
    max_exp: 127,
    bits: 32,
};
const F64: Format = Format {
    precision: 53,
    min_exp: -1022,
    max_exp: 1023,
    bits: 64,
};

/// The IEEE bits of `(-1)^neg * (m + sticky fraction) * 2^e`, rounded to nearest even.
fn round_binary(neg: bool, m: u64, e: i64, sticky: bool, f: Format) -> u64 {
    let sign = (neg as u64) << (f.bits - 1);
    if m == 0 {
        return sign;
    }
    let lz = m.leading_zeros() as i64;
    let m = m << lz;
    let e = e - lz;
    let mut top = e + 63; // exponent of the leading bit
    let inf = sign | ((((f.max_exp * 2 + 1) as u64) << (f.precision - 1)) & !sign);
    if top > f.max_exp {
        return inf;
    }
    let keep = if top >= f.min_exp {
        f.precision
    } else {
        f.precision - (f.min_exp - top)
    };
    if keep < 0 {
        return sign;
    }
    let shift = (64 - keep) as u32; // 1..=64
    let retained = if shift >= 64 { 0 } else { m >> shift };
    let rem = if shift >= 64 {
        m
    } else {
        m & ((1u64 << shift) - 1)
    };
    let half = 1u64 << (shift - 1);
    let up = rem > half || (rem == half && (sticky || retained & 1 == 1));
    let mut r = retained + up as u64;
    if top >= f.min_exp {
        if r == 1u64 << f.precision {
            r >>= 1;
            top += 1;
            if top > f.max_exp {
                return inf;
            }
        }
        let field = (top + f.max_exp) as u64;
        sign | (field << (f.precision - 1)) | (r & ((1u64 << (f.precision - 1)) - 1))
    } else {
        // Subnormal: a carry into the exponent field yields the smallest normal, as it should.
        sign | r
    }
}

/// Parses the hex float after `0x` (`1p3`, `1.8`, `.8p-1`); `None` unless it spans all of `s`.
fn parse_hex(neg: bool, s: &[u8], f: Format) -> Option<u64> {
    let mut m: u64 = 0;
    let mut e: i64 = 0;
    let mut sticky = false;
    let mut digits = 0usize;
    let mut i = 0;
    let mut seen_point = false;
    while i < s.len() {
        let c = s[i];
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            b'.' if !seen_point => {
                seen_point = true;
                i += 1;
                continue;
            }
            _ => break,
        };
        digits += 1;
        if m >> 60 == 0 {
            m = m * 16 + d as u64;
            if seen_point {
                e -= 4;
            }
        } else {
            sticky |= d != 0;
            if !seen_point {
                e += 4;
            }
        }
        i += 1;
    }
    if digits == 0 {
        return None;
    }
    if i < s.len() && (s[i] == b'p' || s[i] == b'P') {
        let mut j = i + 1;
        let mut eneg = false;
        if j < s.len() && (s[j] == b'+' || s[j] == b'-') {
            eneg = s[j] == b'-';
            j += 1;
        }
        let start = j;
        let mut x: i64 = 0;
        while j < s.len() && s[j].is_ascii_digit() {
            x = (x * 10 + (s[j] - b'0') as i64).min(1 << 40);
            j += 1;
        }
        if j > start {
            e += if eneg { -x } else { x };
            i = j;
        }
    }
    (i == s.len()).then(|| round_binary(neg, m, e, sticky, f))
}

/// `inf`, `infinity`, `nan` and `nan(chars)` in any case.
fn parse_special(s: &[u8]) -> Option<bool> {
    let lower = |t: &[u8], w: &[u8]| t.len() == w.len() && t.eq_ignore_ascii_case(w);
    if lower(s, b"inf") || lower(s, b"infinity") {
        return Some(true);
    }
    if s.len() >= 3 && lower(&s[..3], b"nan") {
        let rest = &s[3..];
        if rest.is_empty() {
            return Some(false);
        }
        if rest.len() >= 2
            && rest[0] == b'('
            && rest[rest.len() - 1] == b')'
            && rest[1..rest.len() - 1]
                .iter()
                .all(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            return Some(false);
        }
    }
    None
}

/// Splits the sign the way `SimpleAtof` does: one leading `+` is dropped (but not `+-`), then
/// one `-` is the sign.
fn split_sign(s: &[u8]) -> Option<(bool, &[u8])> {
    let mut s = trim(s);
    if let [b'+', rest @ ..] = s {
        if rest.first() == Some(&b'-') {
            return None;
        }
        s = rest;
    }
    Some(match s {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, s),
    })
}

fn parse_float_bits(s: &[u8], f: Format) -> Option<FloatText<'_>> {
    let (neg, body) = split_sign(s)?;
    match body {
        [b'0', b'x' | b'X', hex @ ..] => return parse_hex(neg, hex, f).map(FloatText::Bits),
        [c, ..] if c.is_ascii_digit() || *c == b'.' => {}
        _ => {
            return parse_special(body).map(|inf| FloatText::Special { neg, inf });
        }
    }
    if let Some(q) = fast_decimal(body) {
        return Some(FloatText::Exact { neg, value: q });
    }
    // What remains is `digits [. digits] [e [sign] digits]`, which Rust's correctly rounding
    // parser reads with the same grammar.
    let text = std::str::from_utf8(body).ok()?;
    Some(FloatText::Decimal { neg, text })
}

const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Clinger's fast path for the common CSV number `digits[.digits]`: with a mantissa below
/// 2^53 and at most 22 decimals, `m / 10^k` in f64 is the correctly rounded value.
#[inline]
fn fast_decimal(b: &[u8]) -> Option<f64> {
    let mut m: u64 = 0;
    let mut digits = 0u32;
    let mut frac: Option<u32> = None;
    for &c in b {
        match c {
            b'0'..=b'9' => {
                m = m.wrapping_mul(10).wrapping_add((c - b'0') as u64);
                digits += 1;
                if let Some(f) = frac.as_mut() {
                    *f += 1;
                }
            }
            b'.' if frac.is_none() => frac = Some(0),
            _ => return None,
        }
    }
    let k = frac.unwrap_or(0) as usize;
    if digits == 0 || digits > 15 || k >= POW10.len() {
        return None;
    }
    Some(m as f64 / POW10[k])
}

/// `q` (a correctly rounded f64) as the correctly rounded f32 of the same decimal, unless
/// rounding twice could differ from rounding once (q on an f32 halfway point, or outside the
/// normal f32 range), where the caller takes the slow path.
#[inline]
fn narrow_exact(q: f64) -> Option<f32> {
    let a = q.abs();
    if a == 0.0 {
        return Some(q as f32);
    }
    if !(f32::MIN_POSITIVE as f64..=f32::MAX as f64).contains(&a) {
        return None;
    }
    if q.to_bits() & 0x1fff_ffff == 0x1000_0000 {
        return None;
    }
    Some(q as f32)
}

enum FloatText<'a> {
    Bits(u64),
    /// The f64 value of a plain decimal, exact to f64 rounding.
    Exact {
        neg: bool,
        value: f64,
    },
    Special {
        neg: bool,
        inf: bool,
    },
    Decimal {
        neg: bool,
        text: &'a str,
    },
}

/// absl's `SimpleAtof`: a float32 from text, or `None` when the text is not a number.
pub fn parse_f32(s: &[u8]) -> Option<f32> {
    let v = match parse_float_bits(s, F32)? {
        FloatText::Bits(b) => f32::from_bits(b as u32),
        FloatText::Exact { neg, value } => {
            let v = match narrow_exact(value) {
                Some(v) => v,
                None => std::str::from_utf8(trim(s))
                    .ok()?
                    .trim_start_matches(['+', '-'])
                    .parse()
                    .ok()?,
            };
            if neg {
                -v
            } else {
                v
            }
        }
        FloatText::Special { neg, inf } => {
            let v = if inf { f32::INFINITY } else { f32::NAN };
            if neg {
                -v
            } else {
                v
            }
        }
        FloatText::Decimal { neg, text } => {
            let v: f32 = text.parse().ok()?;
            if neg {
                -v
            } else {
                v
            }
        }
    };
    Some(v)
}

/// absl's `SimpleAtod`: a float64 from text, or `None` when the text is not a number.
pub fn parse_f64(s: &[u8]) -> Option<f64> {
    let v = match parse_float_bits(s, F64)? {
        FloatText::Bits(b) => f64::from_bits(b),
        FloatText::Exact { neg, value } => {
            if neg {
                -value
            } else {
                value
            }
        }
        FloatText::Special { neg, inf } => {
            let v = if inf { f64::INFINITY } else { f64::NAN };
            if neg {
                -v
            } else {
                v
            }
        }
        FloatText::Decimal { neg, text } => {
            let v: f64 = text.parse().ok()?;
            if neg {
                -v
            } else {
                v
            }
        }
    };
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-at-a-time reading of short fields agrees with the byte loop on every field of
    /// random records (digits, signs, spaces, delimiters, other bytes), wherever the field sits
    /// in its record.
    #[test]
    fn short_fields_read_as_words_match_the_byte_loop() {
        let alphabet = b"0123456789012345678901234567890123456789-+ ,x\t\n9";
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut short = 0;
        for _ in 0..200_000 {
            let len = (next() % 14) as usize;
            let rec: Vec<u8> = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            for start in 0..=len {
                for end in start..=len {
                    let field = &rec[start..end];
                    assert_eq!(
                        parse_i32_at(&rec, start, end),
                        parse_i32(field),
                        "{:?} in {:?}",
                        String::from_utf8_lossy(field),
                        String::from_utf8_lossy(&rec)
                    );
                    assert_eq!(parse_i64_at(&rec, start, end), parse_i64(field));
                    short += usize::from(short_int(&rec, start, end).is_some());
                }
            }
        }
        // The word path was taken, not only the fallback.
        assert!(short > 100_000, "{short}");
        for v in [
            0i64,
            7,
            -7,
            12_345_678,
            -99_999_999,
            99_999_999,
            10_000_000,
            1,
        ] {
            let padded = format!("{}00{}", if v < 0 { "-" } else { "" }, v.abs());
            for text in [format!("{v}"), format!("{v:+}"), padded] {
                let rec = format!("ab,{text},cd");
                let (s, e) = (3, 3 + text.len());
                assert_eq!(
                    parse_i64_at(rec.as_bytes(), s, e),
                    parse_i64(text.as_bytes())
                );
                assert_eq!(
                    parse_i64_at(text.as_bytes(), 0, text.len()),
                    Some(v),
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn ints_accept_absl_syntax() {
        for (s, v) in [
            (" 1", 1),
            ("1 ", 1),
            ("+5", 5),
            ("007", 7),
            ("-0", 0),
            ("\t3\t", 3),
        ] {
            assert_eq!(parse_i32(s.as_bytes()), Some(v), "{s:?}");
        }
        for s in [
            "0x10",
            "1.0",
            "1e3",
            "true",
            "-",
            "+",
            "",
            "1_000",
            "+-1",
            "- 1",
            "2147483648",
        ] {
            assert_eq!(parse_i32(s.as_bytes()), None, "{s:?}");
        }
        assert_eq!(parse_i32(b"-2147483648"), Some(i32::MIN));
        assert_eq!(parse_i64(b"9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_i64(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_i64(b"9223372036854775808"), None);
        // Around the 18 digits below which no overflow check runs.
        assert_eq!(
            parse_i64(b"999999999999999999"),
            Some(999_999_999_999_999_999)
        );
        assert_eq!(
            parse_i64(b"-1000000000000000000"),
            Some(-1_000_000_000_000_000_000)
        );
        assert_eq!(parse_i64(b"0000000000000000000000042"), Some(42));
        assert_eq!(parse_i32(b"100000000000000000"), None);
        assert_eq!(parse_i64(b"99999999999999999999"), None);
        assert_eq!(parse_i64(b"-9223372036854775809"), None);
    }

    #[test]
    fn floats_accept_strtod_syntax() {
        let cases: &[(&str, f32)] = &[
            ("1e39", f32::INFINITY),
            ("-1e39", f32::NEG_INFINITY),
            ("0x1p3", 8.0),
            ("0x10", 16.0),
            (".5", 0.5),
            ("5.", 5.0),
            (" 2.5 ", 2.5),
            ("+1", 1.0),
            ("-Inf", f32::NEG_INFINITY),
            ("infinity", f32::INFINITY),
            ("INF", f32::INFINITY),
            ("1e-46", 0.0),
            ("0x.8p1", 1.0),
            ("0X1.8P+1", 3.0),
        ];
        for (s, v) in cases {
            assert_eq!(parse_f32(s.as_bytes()), Some(*v), "{s:?}");
        }
        assert!(parse_f32(b"nan").unwrap().is_nan());
        assert!(parse_f32(b"NaN").unwrap().is_nan());
        assert!(parse_f32(b"nan(abc_1)").unwrap().is_nan());
        assert_eq!(parse_f32(b"-0").unwrap().to_bits(), 0x8000_0000);
        assert_eq!(parse_f32(b"1e-45").unwrap().to_bits(), 1);
        for s in [
            "1.5x", "", ".", "e5", "1e", "+-1", "-+1", "0x", "0xg", "1,000.5", "infin", "nan(",
            "1_0", "0x1p",
        ] {
            assert_eq!(parse_f32(s.as_bytes()), None, "{s:?}");
        }
        assert_eq!(parse_f64(b"1e309"), Some(f64::INFINITY));
        assert_eq!(parse_f64(b"0.1"), Some(0.1));
    }

    #[test]
    fn plain_decimals_take_the_fast_path_and_agree_with_the_slow_one() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let digits = (x % 15 + 1) as usize;
            let m = x % 10u64.pow(digits as u32);
            let point = (x >> 40) as usize % (digits + 1);
            let s = format!("{m:0digits$}");
            let s = format!("{}.{}", &s[..digits - point], &s[digits - point..]);
            assert_eq!(
                parse_f32(s.as_bytes()).map(f32::to_bits),
                s.parse::<f32>().ok().map(f32::to_bits),
                "{s}"
            );
            assert_eq!(
                parse_f64(s.as_bytes()).map(f64::to_bits),
                s.parse::<f64>().ok().map(f64::to_bits),
                "{s}"
            );
        }
        // A 15-digit decimal just above an f32 halfway point between 1 and 1 + 2^-23.
        assert_eq!(parse_f32(b"1.00000005960465"), Some(1.0 + f32::EPSILON));
        assert_eq!(parse_f32(b"1.00000005960464"), Some(1.0));
    }

    #[test]
    fn hex_floats_round_to_nearest_even() {
        // 2^-149 is the smallest f32 subnormal; 2^-150 ties to even (0), a bit more rounds up.
        assert_eq!(parse_f32(b"0x1p-149").unwrap().to_bits(), 1);
        assert_eq!(parse_f32(b"0x1p-150").unwrap().to_bits(), 0);
        assert_eq!(parse_f32(b"0x1.0000001p-150").unwrap().to_bits(), 1);
        // 1 + 2^-24 is a tie between 1 and 1 + 2^-23: even wins; with a sticky bit it rounds up.
        assert_eq!(parse_f32(b"0x1.000001p0"), Some(1.0));
        assert_eq!(
            parse_f32(b"0x1.0000010000000000001p0"),
            Some(1.0 + f32::EPSILON)
        );
        assert_eq!(parse_f32(b"0x1.fffffep127"), Some(f32::MAX));
        assert_eq!(parse_f32(b"0x1.ffffffp127"), Some(f32::INFINITY));
        assert_eq!(parse_f64(b"0x1.fffffffffffffp1023"), Some(f64::MAX));
        assert_eq!(parse_f64(b"0x1p-1074").unwrap().to_bits(), 1);
        assert_eq!(parse_f64(b"0x0.0000000000001p-1022").unwrap().to_bits(), 1);
        assert_eq!(parse_f64(b"-0x1p1"), Some(-2.0));
        assert_eq!(
            parse_f64(b"0x123456789abcdef0123p0"),
            Some(0x0123_4567_89ab_cdef_0123_u128 as f64)
        );
    }
}
