//! Splitting a record into fields by TensorFlow's RFC 4180 rules (its `ExtractFields`). Fields
//! are kept as spans of their record, so a string field can later be a slice of it.

use bytes::Bytes;
use smallvec::SmallVec;
use weir_graph::{Error, Result};

use super::CsvOptions;
use crate::parsing::numbers::{parse_f32, parse_f64, parse_i32_at, parse_i64_at};

/// One field of a record: `record[start..end]`, with doubled quotes still in it if `escaped`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Span {
    start: u32,
    end: u32,
    escaped: bool,
}

impl Span {
    /// The field `record[start..end]`; `escaped` when it holds doubled quotes (a quoted field's
    /// content between its quotes).
    pub(crate) fn new(start: u32, end: u32, escaped: bool) -> Span {
        Span {
            start,
            end,
            escaped,
        }
    }

    pub(super) fn is_empty(self) -> bool {
        self.start == self.end
    }
}

const QUOTE_INSIDE: &str = "Quote inside a string has to be escaped by another quote";
const QUOTED_END: &str = "Quoted field has to end with quote followed by delim or end";
const UNQUOTED: &str = "Unquoted fields cannot have quotes/CRLFs inside";

/// The field splitter of one `DecodeCSV` configuration.
pub(crate) struct Splitter<'a> {
    delim: u8,
    quote: bool,
    select: &'a [usize],
    /// Bytes that end or break an unquoted field: the delimiter, `\n`, `\r` and (when quoting) `"`.
    special: [bool; 256],
}

impl<'a> Splitter<'a> {
    pub(crate) fn new(opts: &'a CsvOptions) -> Splitter<'a> {
        let mut special = [false; 256];
        special[opts.field_delim as usize] = true;
        special[b'\n' as usize] = true;
        special[b'\r' as usize] = true;
        if opts.use_quote_delim {
            special[b'"' as usize] = true;
        }
        Splitter {
            delim: opts.field_delim,
            quote: opts.use_quote_delim,
            select: &opts.select_cols,
            special,
        }
    }

    /// The common case, found eight bytes at a time: a record without quotes, `\r` or `\n` is
    /// its delimiter-separated fields, exactly as the byte loop below splits it (a trailing
    /// delimiter ends with an empty field). False, with nothing appended, for other records.
    fn split_plain(&self, rec: &[u8], out: &mut Spans) -> bool {
        let delim = self.delim;
        if matches!(delim, b'\n' | b'\r' | b'"') {
            return false;
        }
        let before = out.len();
        let is_other = |c: u8| c == b'\n' || c == b'\r' || (self.quote && c == b'"');
        let (d, nl, cr) = (splat(delim), splat(b'\n'), splat(b'\r'));
        let quote = if self.quote { splat(b'"') } else { 0 };
        let mut start = 0usize;
        let mut words = rec.chunks_exact(8);
        let mut at = 0usize;
        for w in words.by_ref() {
            let x = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
            let mut other = zero_bytes(x ^ nl) | zero_bytes(x ^ cr);
            if self.quote {
                other |= zero_bytes(x ^ quote);
            }
            if other != 0 {
                out.truncate(before);
                return false;
            }
            let mut m = zero_bytes(x ^ d);
            while m != 0 {
                let p = at + (m.trailing_zeros() / 8) as usize;
                out.push(plain_span(start, p));
                start = p + 1;
                m &= m - 1;
            }
            at += 8;
        }
        for (k, &c) in words.remainder().iter().enumerate() {
            if c == delim {
                out.push(plain_span(start, at + k));
                start = at + k + 1;
            } else if is_other(c) {
                out.truncate(before);
                return false;
            }
        }
        out.push(plain_span(start, rec.len()));
        true
    }

    /// Appends the (selected) fields of `rec` to `out`, as TensorFlow's `ExtractFields` finds
    /// them; an error is one of its quoting messages.
    pub(crate) fn split(
        &self,
        rec: &[u8],
        out: &mut Spans,
    ) -> std::result::Result<(), &'static str> {
        if rec.is_empty() || (self.select.is_empty() && self.split_plain(rec, out)) {
            return Ok(());
        }
        self.split_bytes(rec, out)
    }

    /// [`split`](Self::split) one byte at a time: every record, quoted or not.
    fn split_bytes(&self, rec: &[u8], out: &mut Spans) -> std::result::Result<(), &'static str> {
        let n = rec.len();
        let delim = self.delim;
        let select = self.select;
        let all = select.is_empty();
        let mut i = 0usize;
        let mut parsed = 0usize;
        let mut sel = 0usize;
        while i < n {
            let c = rec[i];
            if c == b'\n' || c == b'\r' {
                i += 1;
                continue;
            }
            let include = all || select[sel] == parsed;
            let span;
            if self.quote && c == b'"' {
                i += 1;
                let start = i;
                let mut escaped = false;
                while i < n - 1 && (rec[i] != b'"' || rec[i + 1] != delim) {
                    if rec[i] != b'"' {
                        i += 1;
                    } else if rec[i + 1] == b'"' {
                        escaped = true;
                        i += 2;
                    } else {
                        return Err(QUOTE_INSIDE);
                    }
                }
                if !(i < n && rec[i] == b'"' && (i == n - 1 || rec[i + 1] == delim)) {
                    return Err(QUOTED_END);
                }
                span = Span {
                    start: start as u32,
                    end: i as u32,
                    escaped,
                };
                i += 2;
            } else {
                let start = i;
                while i < n && !self.special[rec[i] as usize] {
                    i += 1;
                }
                if i < n && rec[i] != delim {
                    return Err(UNQUOTED);
                }
                span = Span {
                    start: start as u32,
                    end: i as u32,
                    escaped: false,
                };
                i += 1;
            }
            parsed += 1;
            if include {
                out.push(span);
                sel += 1;
                if !all && sel == select.len() {
                    return Ok(());
                }
            }
        }
        let include = all || select[sel] == parsed;
        if include && rec[n - 1] == delim {
            out.push(Span {
                start: n as u32,
                end: n as u32,
                escaped: false,
            });
        }
        Ok(())
    }
}

/// `b` in every byte of a word.
#[inline]
fn splat(b: u8) -> u64 {
    u64::from(b) * 0x0101_0101_0101_0101
}

/// 0x80 in exactly the bytes of `v` that are zero (no borrow crosses bytes, so no false hits).
#[inline]
fn zero_bytes(v: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    !(((v & LOW7).wrapping_add(LOW7)) | v | LOW7)
}

#[inline]
fn plain_span(start: usize, end: usize) -> Span {
    Span {
        start: start as u32,
        end: end as u32,
        escaped: false,
    }
}

/// The content of a field: the slice itself, or (rarely) a copy without the doubled quotes.
pub(crate) fn field_bytes(rec: &Bytes, s: Span) -> Bytes {
    let raw = rec.slice(s.start as usize..s.end as usize);
    if !s.escaped {
        return raw;
    }
    Bytes::from(unescape(&raw))
}

fn unescape(raw: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        v.push(raw[i]);
        // Inside a validated quoted field every quote is the first of a pair.
        i += if raw[i] == b'"' { 2 } else { 1 };
    }
    v
}

/// The field's text for messages and na_value comparison.
pub(super) fn field_text(rec: &[u8], s: Span) -> std::borrow::Cow<'_, [u8]> {
    let text = raw(rec, s);
    if s.escaped {
        std::borrow::Cow::Owned(unescape(text))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// The fields of the records of one chunk; a single record's stay inline.
pub(crate) type Spans = SmallVec<[Span; 32]>;

/// Whether field `s` of `rec` takes the default: empty, or equal to `na` (when set).
#[inline]
pub(crate) fn is_missing(na: &[u8], rec: &[u8], s: Span) -> bool {
    if s.is_empty() {
        return true;
    }
    if na.is_empty() {
        return false;
    }
    if !s.escaped {
        return raw(rec, s) == na;
    }
    *field_text(rec, s) == *na
}

/// Appends the `ncols` fields of record number `index` to `spans`; errors in TensorFlow's
/// words for a record too long to index, bad quoting, or a wrong field count.
pub(crate) fn split_record(
    splitter: &Splitter<'_>,
    rec: &[u8],
    index: usize,
    ncols: usize,
    spans: &mut Spans,
) -> Result<()> {
    if rec.len() > u32::MAX as usize - 2 {
        return Err(Error::invalid_argument(format!(
            "Record {index} is too long for decode_csv ({} bytes)",
            rec.len()
        )));
    }
    let before = spans.len();
    splitter
        .split(rec, spans)
        .map_err(Error::invalid_argument)?;
    let got = spans.len() - before;
    if got != ncols {
        return Err(Error::invalid_argument(format!(
            "Expect {ncols} fields but have {got} in record {index}"
        )));
    }
    Ok(())
}

/// The raw text of field `s` (no unescaping).
pub(crate) fn raw(rec: &[u8], s: Span) -> &[u8] {
    &rec[s.start as usize..s.end as usize]
}

#[inline]
/// The int32 value of field `s` of `rec` (absl's `SimpleAtoi`), `None` for a bad number.
pub(crate) fn int32_field(rec: &[u8], s: Span) -> Option<i32> {
    parse_i32_at(rec, s.start as usize, s.end as usize)
}

#[inline]
/// The int64 value of field `s` of `rec` (absl's `SimpleAtoi`), `None` for a bad number.
pub(crate) fn int64_field(rec: &[u8], s: Span) -> Option<i64> {
    parse_i64_at(rec, s.start as usize, s.end as usize)
}

/// The float value of field `s` of `rec` (absl's `SimpleAtof`), `None` for a bad number.
pub(crate) fn float_field(rec: &[u8], s: Span) -> Option<f32> {
    parse_f32(raw(rec, s))
}

/// The double value of field `s` of `rec` (absl's `SimpleAtod`), `None` for a bad number.
pub(crate) fn double_field(rec: &[u8], s: Span) -> Option<f64> {
    parse_f64(raw(rec, s))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-at-a-time splitter agrees with the byte loop on every record it accepts, and
    /// accepts every record without quotes, `\r` or `\n`.
    #[test]
    fn plain_split_matches_the_byte_loop() {
        let alphabet = b"a1 ,,;\"\r\n";
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for quote in [true, false] {
            for delim in [b',', b';'] {
                let opts = CsvOptions {
                    field_delim: delim,
                    use_quote_delim: quote,
                    ..CsvOptions::default()
                };
                let sp = Splitter::new(&opts);
                for _ in 0..20_000 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let len = (x % 40) as usize + 1;
                    // Half the records draw from the plain bytes only.
                    let letters = if x & 1 == 0 { alphabet.len() } else { 6 };
                    let rec: Vec<u8> = (0..len)
                        .map(|k| alphabet[((x >> (k % 50)) as usize + k * 7) % letters])
                        .collect();
                    let (mut fast, mut slow) = (Spans::new(), Spans::new());
                    let plain = sp.split_plain(&rec, &mut fast);
                    let slow_ok = sp.split_bytes(&rec, &mut slow);
                    let special = |c: &u8| *c == b'\r' || *c == b'\n' || (quote && *c == b'"');
                    assert_eq!(plain, !rec.iter().any(special), "{rec:?}");
                    if plain {
                        assert_eq!(slow_ok, Ok(()), "{rec:?}");
                        assert_eq!(fast, slow, "{rec:?}");
                    } else {
                        assert!(fast.is_empty());
                    }
                }
            }
        }
    }

    fn fields(rec: &str, opts: &CsvOptions) -> std::result::Result<Vec<String>, &'static str> {
        let mut v = Spans::new();
        Splitter::new(opts).split(rec.as_bytes(), &mut v)?;
        let b = Bytes::copy_from_slice(rec.as_bytes());
        Ok(v.into_iter()
            .map(|s| String::from_utf8(field_bytes(&b, s).to_vec()).unwrap())
            .collect())
    }

    #[test]
    fn splits_like_tensorflow() {
        let o = CsvOptions::default();
        assert_eq!(fields("", &o).unwrap(), Vec::<String>::new());
        assert_eq!(fields("1,2,", &o).unwrap(), vec!["1", "2", ""]);
        assert_eq!(fields(",", &o).unwrap(), vec!["", ""]);
        assert_eq!(fields("\n1,\n2", &o).unwrap(), vec!["1", "2"]);
        assert_eq!(fields("1,\n", &o).unwrap(), vec!["1"]);
        assert_eq!(
            fields(r#""a,b","c""d","""#, &o).unwrap(),
            vec!["a,b", "c\"d", ""]
        );
        assert_eq!(fields("\"a\nb\",x", &o).unwrap(), vec!["a\nb", "x"]);
        assert_eq!(fields("1,2\r\n", &o), Err(UNQUOTED));
        assert_eq!(fields(" \"a\"", &o), Err(UNQUOTED));
        assert_eq!(fields("\"ab\"c,d", &o), Err(QUOTE_INSIDE));
        assert_eq!(fields("\"a\" ,b", &o), Err(QUOTE_INSIDE));
        assert_eq!(fields("\"abc", &o), Err(QUOTED_END));
        assert_eq!(fields("\"", &o), Err(QUOTED_END));
        assert_eq!(fields("\"ab\"\"", &o), Err(QUOTED_END));
        let nq = CsvOptions {
            use_quote_delim: false,
            ..CsvOptions::default()
        };
        assert_eq!(fields("\"a,b\"", &nq).unwrap(), vec!["\"a", "b\""]);
        let sel = CsvOptions {
            select_cols: vec![1, 3],
            ..CsvOptions::default()
        };
        assert_eq!(fields("1,2,3,4,5", &sel).unwrap(), vec!["2", "4"]);
        assert_eq!(fields("1,2", &sel).unwrap(), vec!["2"]);
        assert_eq!(fields("1,2,3,", &sel).unwrap(), vec!["2", ""]);
    }
}
