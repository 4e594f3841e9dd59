//! Finding one CSV record in a stream, by the rules of TensorFlow's `CSVDatasetV2` iterator:
//! records end at `\n`, `\r\n` or a lone `\r` outside quotes, and a quoted field may hold the
//! delimiter, doubled quotes and line ends. This grammar is not `decode_csv`'s (that one splits
//! a line already cut out, treats `\r` inside it as an error and stops at the first bad quote),
//! so the records are found here; their fields are then converted by decode_csv's code
//! ([`crate::parsing::csv_field_tensor`]).
//!
//! Like TensorFlow, a record with an error is still read to its end, so that the next call
//! starts at the next record; the error reported is the first in field order.

use weir_graph::Error;

use crate::parsing::CsvSpan;

const QUOTE_INSIDE: &str = "Quote inside a string has to be escaped by another quote";
const UNQUOTED: &str = "Unquoted fields cannot have quotes inside";
const QUOTED_EOF: &str = "Reached end of file without closing quoted field in record";

/// Which columns of a record become outputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Columns {
    /// Every column (neither `select_cols` nor `exclude_cols`).
    All,
    /// `select_cols`: these, strictly increasing; later columns are read but not counted.
    Select(Vec<usize>),
    /// `exclude_cols`: all but these, strictly increasing.
    Exclude(Vec<usize>),
    /// None (a header line, read and dropped).
    Skip,
}

/// The record grammar of one dataset.
pub(super) struct Grammar {
    pub(super) delim: u8,
    pub(super) quote: bool,
    pub(super) columns: Columns,
    /// How many outputs a record has.
    pub(super) outputs: usize,
}

/// A record found at the start of the unread bytes.
pub(super) struct Record {
    /// Bytes the record takes, its line end included.
    pub(super) len: usize,
    /// How many output fields were found (at most `outputs`); their spans are in the caller's
    /// list, relative to the record's start.
    pub(super) found: usize,
    /// The first parse error, after how many output fields (those before it are converted
    /// first: a bad value among them is reported instead).
    pub(super) error: Option<(usize, Error)>,
}

/// What [`Grammar::scan`] found.
pub(super) enum Scan {
    Record(Record),
    /// The stream is over: no bytes left at a record's start.
    End,
    /// The record goes on past the bytes given: scan again with more.
    More,
}

/// The state of a scan of one record.
struct Fields<'a> {
    grammar: &'a Grammar,
    spans: &'a mut Vec<CsvSpan>,
    /// Raw column index of the next field.
    column: usize,
    /// Position in `select_cols` / `exclude_cols`.
    cursor: usize,
    found: usize,
    error: Option<(usize, Error)>,
}

impl Fields<'_> {
    /// Whether the next field is an output, and advances to the field after it.
    fn include_next(&mut self) -> bool {
        let col = self.column;
        self.column += 1;
        match &self.grammar.columns {
            Columns::All => true,
            Columns::Skip => false,
            Columns::Select(s) => {
                let hit = s.get(self.cursor) == Some(&col);
                self.cursor += usize::from(hit);
                hit
            }
            Columns::Exclude(x) => {
                let hit = x.get(self.cursor) == Some(&col);
                self.cursor += usize::from(hit);
                !hit
            }
        }
    }

    fn fail(&mut self, message: String) {
        if self.error.is_none() {
            self.error = Some((self.found, Error::invalid_argument(message)));
        }
    }

    /// A field ends: `bad` is its own parse error, if any.
    fn field(&mut self, start: usize, end: usize, escaped: bool, bad: Option<&str>) {
        let include = self.include_next();
        if let Some(m) = bad {
            self.fail(m.to_string());
        } else if include && self.found >= self.grammar.outputs {
            let n = self.grammar.outputs;
            self.fail(format!("Expect {n} fields but have more in record"));
        }
        if include && self.found < self.grammar.outputs {
            self.spans
                .push(CsvSpan::new(start as u32, end as u32, escaped));
            self.found += 1;
        }
    }

    fn done(self, len: usize) -> Scan {
        Scan::Record(Record {
            len,
            found: self.found,
            error: self.error,
        })
    }
}

/// The length of a line end at `buf[i]` (`\n`, `\r\n` or `\r`), or `None` when a `\r` is the
/// last byte given and more may follow.
#[inline]
fn line_end(buf: &[u8], i: usize, eof: bool) -> Option<usize> {
    if buf[i] == b'\n' {
        return Some(1);
    }
    match buf.get(i + 1) {
        Some(b'\n') => Some(2),
        Some(_) => Some(1),
        None if eof => Some(1),
        None => None,
    }
}

impl Grammar {
    /// Scans the record at the start of `buf`; `eof` when no bytes follow `buf`. The spans of
    /// its output fields go to `spans` (cleared first).
    pub(super) fn scan(&self, buf: &[u8], eof: bool, spans: &mut Vec<CsvSpan>) -> Scan {
        spans.clear();
        if buf.is_empty() {
            return if eof { Scan::End } else { Scan::More };
        }
        let n = buf.len();
        let mut f = Fields {
            grammar: self,
            spans,
            column: 0,
            cursor: 0,
            found: 0,
            error: None,
        };
        let delim = self.delim;
        let mut i = 0usize;
        loop {
            if i == n {
                // The stream ends right after a delimiter: an empty last field.
                if !eof {
                    return Scan::More;
                }
                f.field(i, i, false, None);
                return f.done(n);
            }
            if self.quote && buf[i] == b'"' {
                let start = i + 1;
                let mut j = start;
                let mut escaped = false;
                let mut bad = None;
                loop {
                    let Some(k) = memchr::memchr(b'"', &buf[j..]) else {
                        if !eof {
                            return Scan::More;
                        }
                        // The rest of the stream was this field: it is the record's last.
                        f.field(start, n, escaped, Some(QUOTED_EOF));
                        return f.done(n);
                    };
                    let q = j + k;
                    let Some(&next) = buf.get(q + 1) else {
                        if !eof {
                            return Scan::More;
                        }
                        f.field(start, q, escaped, bad);
                        return f.done(n);
                    };
                    if next == b'"' {
                        escaped = true;
                        j = q + 2;
                    } else if next == delim {
                        f.field(start, q, escaped, bad);
                        i = q + 2;
                        break;
                    } else if next == b'\n' || next == b'\r' {
                        let Some(end) = line_end(buf, q + 1, eof) else {
                            return Scan::More;
                        };
                        f.field(start, q, escaped, bad);
                        return f.done(q + 1 + end);
                    } else {
                        // TensorFlow goes on reading the field as quoted.
                        bad.get_or_insert(QUOTE_INSIDE);
                        j = q + 1;
                    }
                }
                continue;
            }
            let mut j = i;
            let mut bad = None;
            while j < n {
                let c = buf[j];
                if c == delim || c == b'\n' || c == b'\r' {
                    break;
                }
                if self.quote && c == b'"' {
                    bad = Some(UNQUOTED);
                }
                j += 1;
            }
            if j == n {
                if !eof {
                    return Scan::More;
                }
                f.field(i, j, false, bad);
                return f.done(n);
            }
            if buf[j] == delim {
                f.field(i, j, false, bad);
                i = j + 1;
                continue;
            }
            let Some(end) = line_end(buf, j, eof) else {
                return Scan::More;
            };
            f.field(i, j, false, bad);
            return f.done(j + end);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parsing::{csv_field_tensor, CsvField};
    use bytes::Bytes;
    use weir_graph::Tensor;

    fn grammar(columns: Columns, outputs: usize) -> Grammar {
        Grammar {
            delim: b',',
            quote: true,
            columns,
            outputs,
        }
    }

    /// Every record of `data`, as (fields, error message), the fields as string outputs.
    fn records(g: &Grammar, data: &[u8]) -> Vec<(Vec<String>, Option<String>)> {
        let mut spans = Vec::new();
        let mut at = 0;
        let mut out = vec![];
        // Give the bytes one at a time, as a stream would at worst.
        let mut have = 0;
        loop {
            let eof = have == data.len() - at;
            match g.scan(&data[at..at + have], eof, &mut spans) {
                Scan::End => return out,
                Scan::More => have += 1,
                Scan::Record(r) => {
                    assert_eq!(r.found, spans.len());
                    let rec = Bytes::copy_from_slice(&data[at..at + r.len]);
                    let field = CsvField::new(&rec, b"", None);
                    let empty = Tensor::from(vec![""]);
                    let fields = spans
                        .iter()
                        .enumerate()
                        .map(|(c, &s)| {
                            let t = csv_field_tensor(&field, &empty, c, s, &[]).unwrap();
                            let v = t.to_scalar::<Bytes>().unwrap();
                            String::from_utf8_lossy(&v).into_owned()
                        })
                        .collect();
                    out.push((fields, r.error.map(|(_, e)| e.message().to_string())));
                    at += r.len;
                    have = 0;
                }
            }
        }
    }

    fn ok(fields: &[&str]) -> (Vec<String>, Option<String>) {
        (fields.iter().map(|s| s.to_string()).collect(), None)
    }

    #[test]
    fn records_end_at_any_line_end_outside_quotes() {
        let g = grammar(Columns::All, 2);
        let got = records(&g, b"1,a\r\n2,\"b\nc\"\r3,\"\"\"\"\n\n");
        assert_eq!(
            got,
            vec![
                ok(&["1", "a"]),
                ok(&["2", "b\nc"]),
                ok(&["3", "\""]),
                ok(&[""])
            ]
        );
        assert_eq!(records(&g, b"1,"), vec![ok(&["1", ""])]);
        assert_eq!(records(&g, b"\"x\""), vec![ok(&["x"])]);
        assert!(records(&g, b"").is_empty());
    }

    #[test]
    fn errors_keep_the_first_and_read_to_the_record_end() {
        let g = grammar(Columns::All, 2);
        let got = records(&g, b"1,\"ab\"c\",1\n2,3,4\na\"b,5\n\"x\"y,z\n9,9\n");
        let errs: Vec<_> = got
            .iter()
            .map(|r| r.1.clone().unwrap_or_default())
            .collect();
        assert_eq!(
            errs,
            vec![
                QUOTE_INSIDE.to_string(),
                "Expect 2 fields but have more in record".to_string(),
                UNQUOTED.to_string(),
                QUOTED_EOF.to_string(),
            ]
        );
        let sel = grammar(Columns::Select(vec![1]), 1);
        assert_eq!(records(&sel, b"1,2,3\n"), vec![ok(&["2"])]);
        let ex = grammar(Columns::Exclude(vec![0]), 1);
        assert_eq!(records(&ex, b"1,2\n"), vec![ok(&["2"])]);
    }
}
