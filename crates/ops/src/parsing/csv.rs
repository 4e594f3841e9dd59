//! The CSV engine behind `DecodeCSV`, usable without a graph: field splitting with
//! TensorFlow's RFC 4180 rules, and typed column conversion straight into the output vectors.
//!
//! Records are split in chunks; each chunk's fields are recorded as spans of their record, then
//! every column converts its chunk in one typed loop. String fields are slices of the record
//! ([`Bytes::slice`]), copied only when a quoted field holds doubled quotes.

use bytes::Bytes;
use smallvec::SmallVec;
use weir_graph::{DType, Error, Result, Tensor, TensorType};

use super::numbers::{parse_f32, parse_f64, parse_i32, parse_i64};

/// The options of `tf.io.decode_csv` besides the records and defaults.
#[derive(Clone, Debug)]
pub struct CsvOptions {
    /// The one-byte field delimiter (`field_delim`, default `,`).
    pub field_delim: u8,
    /// Whether `"` quotes fields (RFC 4180); if false quotes are ordinary bytes.
    pub use_quote_delim: bool,
    /// A field equal to this (besides the empty field) takes the column default.
    pub na_value: Vec<u8>,
    /// The columns to keep, strictly increasing; empty keeps every column.
    pub select_cols: Vec<usize>,
}

impl Default for CsvOptions {
    fn default() -> Self {
        CsvOptions {
            field_delim: b',',
            use_quote_delim: true,
            na_value: Vec::new(),
            select_cols: Vec::new(),
        }
    }
}

/// One field of a record: `record[start..end]`, with doubled quotes still in it if `escaped`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Span {
    start: u32,
    end: u32,
    escaped: bool,
}

impl Span {
    fn is_empty(self) -> bool {
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
pub(super) fn field_bytes(rec: &Bytes, s: Span) -> Bytes {
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
fn field_text(rec: &[u8], s: Span) -> std::borrow::Cow<'_, [u8]> {
    let text = raw(rec, s);
    if s.escaped {
        std::borrow::Cow::Owned(unescape(text))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// The fields of the records of one chunk; a single record's stay inline.
pub(crate) type Spans = SmallVec<[Span; 32]>;

/// One output column: its values so far and its default (`None` = required).
enum Column {
    I32(Vec<i32>, Option<i32>),
    I64(Vec<i64>, Option<i64>),
    F32(Vec<f32>, Option<f32>),
    F64(Vec<f64>, Option<f64>),
    Str(Vec<Bytes>, Option<Bytes>),
}

fn default_of<T: TensorType>(t: &Tensor, n: usize) -> Result<(Vec<T>, Option<T>)> {
    let d = t.as_slice::<T>()?.first().cloned();
    Ok((Vec::with_capacity(n), d))
}

impl Column {
    fn new(default: &Tensor, n: usize, f: usize) -> Result<Column> {
        Ok(match default.dtype() {
            DType::I32 => {
                let (v, d) = default_of(default, n)?;
                Column::I32(v, d)
            }
            DType::I64 => {
                let (v, d) = default_of(default, n)?;
                Column::I64(v, d)
            }
            DType::F32 => {
                let (v, d) = default_of(default, n)?;
                Column::F32(v, d)
            }
            DType::F64 => {
                let (v, d) = default_of(default, n)?;
                Column::F64(v, d)
            }
            DType::String => {
                let (v, d) = default_of(default, n)?;
                Column::Str(v, d)
            }
            dt => return Err(unsupported(dt, f)),
        })
    }

    fn into_tensor(self, shape: &[usize]) -> Result<Tensor> {
        match self {
            Column::I32(v, _) => Tensor::from_vec(shape, v),
            Column::I64(v, _) => Tensor::from_vec(shape, v),
            Column::F32(v, _) => Tensor::from_vec(shape, v),
            Column::F64(v, _) => Tensor::from_vec(shape, v),
            Column::Str(v, _) => Tensor::from_vec(shape, v),
        }
    }
}

/// What a column conversion needs to see of a chunk.
struct Chunk<'a> {
    records: &'a [Bytes],
    /// Record index of the chunk's first row.
    first: usize,
    rows: usize,
    spans: &'a [Span],
    ncols: usize,
    na: &'a [u8],
}

impl Chunk<'_> {
    #[inline]
    fn field(&self, row: usize, col: usize) -> (&Bytes, Span) {
        (
            &self.records[self.first + row],
            self.spans[row * self.ncols + col],
        )
    }

    /// Whether the field takes the default: empty, or equal to na_value.
    #[inline]
    fn is_missing(&self, rec: &[u8], s: Span) -> bool {
        is_missing(self.na, rec, s)
    }
}

/// Whether field `s` of `rec` takes the default: empty, or equal to `na` (when set).
#[inline]
pub(super) fn is_missing(na: &[u8], rec: &[u8], s: Span) -> bool {
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
pub(super) fn split_record(
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

/// The error for a record default of a dtype decode_csv cannot produce.
pub(super) fn unsupported(dt: DType, f: usize) -> Error {
    Error::invalid_argument(format!("csv: data type {dt} not supported in field {f}"))
}

/// The raw text of field `s` (no unescaping).
pub(super) fn raw(rec: &[u8], s: Span) -> &[u8] {
    &rec[s.start as usize..s.end as usize]
}

pub(super) fn missing(col: usize, record: usize) -> Error {
    Error::invalid_argument(format!(
        "Field {col} is required but missing in record {record}!"
    ))
}

pub(super) fn invalid(col: usize, record: usize, kind: &str, rec: &[u8], s: Span) -> Error {
    Error::invalid_argument(format!(
        "Field {col} in record {record} is not a valid {kind}: {}",
        String::from_utf8_lossy(&field_text(rec, s))
    ))
}

/// Converts column `col` of `chunk` with `parse`; on failure, the chunk row and the error.
#[inline]
fn convert<T: Clone>(
    out: &mut Vec<T>,
    default: &Option<T>,
    chunk: &Chunk<'_>,
    col: usize,
    kind: &str,
    parse: impl Fn(&[u8]) -> Option<T>,
) -> std::result::Result<(), (usize, Error)> {
    // Without na_value, only an empty field is missing: the check stays out of the loop.
    let no_na = chunk.na.is_empty();
    for row in 0..chunk.rows {
        let (rec, s) = chunk.field(row, col);
        let v = if (no_na && s.is_empty()) || (!no_na && chunk.is_missing(rec, s)) {
            match default {
                Some(d) => d.clone(),
                None => return Err((row, missing(col, chunk.first + row))),
            }
        } else {
            match parse(raw(rec, s)) {
                Some(v) => v,
                None => return Err((row, invalid(col, chunk.first + row, kind, rec, s))),
            }
        };
        out.push(v);
    }
    Ok(())
}

impl Column {
    fn convert_chunk(
        &mut self,
        chunk: &Chunk<'_>,
        col: usize,
    ) -> std::result::Result<(), (usize, Error)> {
        match self {
            Column::I32(out, d) => convert(out, d, chunk, col, "int32", parse_i32),
            Column::I64(out, d) => convert(out, d, chunk, col, "int64", parse_i64),
            Column::F32(out, d) => convert(out, d, chunk, col, "float", parse_f32),
            Column::F64(out, d) => convert(out, d, chunk, col, "double", parse_f64),
            Column::Str(out, d) => {
                for row in 0..chunk.rows {
                    let (rec, s) = chunk.field(row, col);
                    if chunk.is_missing(rec, s) {
                        match d {
                            Some(d) => out.push(d.clone()),
                            None => return Err((row, missing(col, chunk.first + row))),
                        }
                    } else {
                        out.push(field_bytes(rec, s));
                    }
                }
                Ok(())
            }
        }
    }
}

const CHUNK_ROWS: usize = 256;

/// Checks the run-time defaults the way the `DecodeCSV` kernel does.
pub(crate) fn check_defaults(defaults: &[Tensor]) -> Result<()> {
    for (i, d) in defaults.iter().enumerate() {
        if d.rank() > 1 {
            return Err(Error::invalid_argument(
                "Each record default should be at most rank 1",
            ));
        }
        if d.num_elements() >= 2 {
            return Err(Error::invalid_argument(format!(
                "There should only be 1 default per field but field {i} has {}",
                d.num_elements()
            )));
        }
    }
    Ok(())
}

/// Decodes string `records` (any shape) into one tensor per default, each of the records'
/// shape: what the `DecodeCSV` kernel computes for `tf.io.decode_csv`.
///
/// ```
/// use weir_graph::Tensor;
/// use weir_ops::parsing::{decode_csv_tensors, CsvOptions};
/// let out = decode_csv_tensors(
///     &Tensor::from(vec!["1,2.5,abc", "3,,x"]),
///     &[Tensor::from(vec![0i32]), Tensor::from(vec![0.0f32]), Tensor::from(vec![""])],
///     &CsvOptions::default(),
/// )?;
/// assert_eq!(out[0].to_vec::<i32>()?, vec![1, 3]);
/// assert_eq!(out[1].to_vec::<f32>()?, vec![2.5, 0.0]);
/// assert_eq!(out[2].to_strings()?, vec!["abc", "x"]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn decode_csv_tensors(
    records: &Tensor,
    defaults: &[Tensor],
    opts: &CsvOptions,
) -> Result<Vec<Tensor>> {
    if !opts.select_cols.is_empty() && opts.select_cols.len() != defaults.len() {
        return Err(Error::invalid_argument(
            "select_cols should match output size",
        ));
    }
    if opts.select_cols.windows(2).any(|w| w[0] >= w[1]) {
        return Err(Error::invalid_argument(
            "select_cols should be strictly increasing indices",
        ));
    }
    check_defaults(defaults)?;
    let recs = records.as_slice::<Bytes>()?;
    if let [one] = recs {
        return super::csv_record::decode_one(one, records.shape(), defaults, opts);
    }
    let n = recs.len();
    let ncols = defaults.len();
    let mut columns = defaults
        .iter()
        .enumerate()
        .map(|(f, d)| Column::new(d, n, f))
        .collect::<Result<Vec<_>>>()?;
    let splitter = Splitter::new(opts);
    let mut spans = Spans::with_capacity(CHUNK_ROWS.min(n.max(1)) * ncols + 1);
    let mut first = 0usize;
    while first < n {
        let end = (first + CHUNK_ROWS).min(n);
        spans.clear();
        let mut split_error = None;
        let mut rows = 0usize;
        for (r, rec) in recs[first..end].iter().enumerate() {
            if let Err(e) = split_record(&splitter, rec, first + r, ncols, &mut spans) {
                split_error = Some(e);
                break;
            }
            rows += 1;
        }
        let chunk = Chunk {
            records: recs,
            first,
            rows,
            spans: &spans,
            ncols,
            na: &opts.na_value,
        };
        // TensorFlow stops at the first bad field in record order: the earliest (row, column).
        let mut first_error: Option<(usize, usize, Error)> = None;
        for (c, col) in columns.iter_mut().enumerate() {
            if let Err((row, e)) = col.convert_chunk(&chunk, c) {
                if first_error.as_ref().is_none_or(|(r, _, _)| row < *r) {
                    first_error = Some((row, c, e));
                }
            }
        }
        if let Some((_, _, e)) = first_error {
            return Err(e);
        }
        if let Some(e) = split_error {
            return Err(e);
        }
        first = end;
    }
    columns
        .into_iter()
        .map(|c| c.into_tensor(records.shape()))
        .collect()
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

    #[test]
    fn converts_columns_and_reports_first_error_in_record_order() {
        let o = CsvOptions::default();
        let defaults = [Tensor::from(vec![0i32]), Tensor::from(Vec::<i64>::new())];
        let e = decode_csv_tensors(&Tensor::from(vec!["1,x", "y,2"]), &defaults, &o).unwrap_err();
        assert_eq!(e.message(), "Field 1 in record 0 is not a valid int64: x");
        let e =
            decode_csv_tensors(&Tensor::from(vec!["1,2", "1,", "1"]), &defaults, &o).unwrap_err();
        assert_eq!(e.message(), "Field 1 is required but missing in record 1!");
        let e = decode_csv_tensors(&Tensor::from(vec!["1,2", "3"]), &defaults, &o).unwrap_err();
        assert_eq!(e.message(), "Expect 2 fields but have 1 in record 1");
        let e = decode_csv_tensors(&Tensor::from(vec!["x,2", "3"]), &defaults, &o).unwrap_err();
        assert_eq!(e.message(), "Field 0 in record 0 is not a valid int32: x");
    }

    #[test]
    fn errors_across_chunks_keep_record_order() {
        let mut recs: Vec<String> = (0..600).map(|i| format!("{i}")).collect();
        recs[300] = "bad".into();
        recs[599] = "1,2".into();
        let t = Tensor::from(recs);
        let e = decode_csv_tensors(&t, &[Tensor::from(vec![0i64])], &CsvOptions::default())
            .unwrap_err();
        assert_eq!(
            e.message(),
            "Field 0 in record 300 is not a valid int64: bad"
        );
    }

    #[test]
    fn string_fields_share_the_record_buffer() {
        let rec = Bytes::from_static(b"abc,def");
        let t = Tensor::from(vec![rec.clone()]);
        let out = decode_csv_tensors(
            &t,
            &[Tensor::from(vec![""]), Tensor::from(vec![""])],
            &CsvOptions::default(),
        )
        .unwrap();
        let s = &out[1].as_slice::<Bytes>().unwrap()[0];
        assert_eq!(&s[..], b"def");
        assert_eq!(s.as_ptr(), rec[4..].as_ptr());
    }
}
