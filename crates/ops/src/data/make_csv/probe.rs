//! Probing CSV files at graph-building time, as `make_csv_dataset`'s Python does: the header
//! row's column names, and each column's type inferred from the first rows.

use std::io::{BufRead, BufReader};

use weir_graph::{DType, Error, Result, Tensor};

use super::MakeCsvDataset;

/// The files, read row by row as Python's `csv.reader` reads them, for names and types: only
/// the rows needed are read (a header, the first `num_rows_for_inference`), as TensorFlow's
/// Python reads them, so a large file costs no more than its first rows.
pub(super) struct ProbeFiles<'a> {
    files: &'a [String],
    gzip: bool,
    delim: u8,
    quote: bool,
    header: bool,
    na_value: &'a str,
    /// `num_rows_for_inference`.
    limit: Option<usize>,
}

impl<'a> ProbeFiles<'a> {
    pub(super) fn new(spec: &'a MakeCsvDataset, files: &'a [String]) -> Result<ProbeFiles<'a>> {
        let probing = spec.column_names.is_none() || spec.column_defaults.is_none();
        let gzip = match spec.compression_type.as_deref() {
            None | Some("") => false,
            Some("GZIP") => true,
            Some("ZLIB") if probing => {
                return Err(Error::invalid_argument(
                    "`compression_type` ZLIB is not supported for probing columns.",
                ))
            }
            Some("ZLIB") => false,
            Some(other) => {
                return Err(Error::invalid_argument(format!(
                    "Received unknown `compression_type` {other}. Expected: GZIP, ZLIB or  \
                     (empty string)."
                )))
            }
        };
        Ok(ProbeFiles {
            files,
            gzip,
            delim: spec.field_delim.bytes().next().unwrap_or(b','),
            quote: spec.use_quote_delim,
            header: spec.header,
            na_value: &spec.na_value,
            limit: spec.num_rows_for_inference,
        })
    }

    /// The rows of file `f`, read as they are asked for.
    fn rows(&self, f: &str) -> Result<impl Iterator<Item = Result<Vec<String>>> + '_> {
        let file = std::fs::File::open(f).map_err(|e| crate::io::open_error(f, &e))?;
        let reader: Box<dyn BufRead> = if self.gzip {
            Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(file)))
        } else {
            Box::new(BufReader::new(file))
        };
        let name = f.to_string();
        Ok(reader.split(b'\n').map(move |line| {
            let line = line.map_err(|e| Error::from(e).with_prefix(&format!("{name}: ")))?;
            Ok(split_row(
                &String::from_utf8_lossy(&line),
                self.delim,
                self.quote,
            ))
        }))
    }

    /// The header row of the first file, which every file must share.
    pub(super) fn column_names(&self) -> Result<Vec<String>> {
        let mut names: Option<Vec<String>> = None;
        for f in self.files {
            let first = self.rows(f)?.next().transpose()?.ok_or_else(|| {
                Error::invalid_argument(format!(
                    "Failed when reading the header line of {f}. Is it an empty file?"
                ))
            })?;
            match &names {
                None => names = Some(first),
                Some(n) if *n != first => {
                    return Err(Error::invalid_argument(format!(
                        "All input CSV files should have the same column names in the header \
                         row. File {f} has different column names."
                    )))
                }
                Some(_) => {}
            }
        }
        names.ok_or_else(|| Error::invalid_argument("No files to read column names from"))
    }

    /// TensorFlow's `_infer_column_defaults`: each (selected) column's narrowest type over the
    /// first rows, defaulting to 0 of it ("" for strings).
    pub(super) fn infer_defaults(
        &self,
        num_cols: usize,
        select: Option<&[usize]>,
    ) -> Result<Vec<Tensor>> {
        let all: Vec<usize> = (0..num_cols).collect();
        let select = select.unwrap_or(&all);
        let mut types: Vec<Option<DType>> = vec![None; select.len()];
        let mut seen = 0usize;
        'files: for f in self.files {
            let first_row = if self.header { 2 } else { 1 };
            for (k, row) in self.rows(f)?.skip(usize::from(self.header)).enumerate() {
                if self.limit.is_some_and(|n| seen >= n) {
                    break 'files;
                }
                let row = row?;
                if row.len() != num_cols {
                    return Err(Error::invalid_argument(format!(
                        "Problem inferring types: CSV row {} has {} number of fields. \
                         Expected: {num_cols}.",
                        first_row + k,
                        row.len()
                    )));
                }
                for (j, &c) in select.iter().enumerate() {
                    types[j] = infer_type(&row[c], self.na_value, types[j]);
                }
                seen += 1;
            }
        }
        Ok(types
            .into_iter()
            .map(|t| match t.unwrap_or(DType::String) {
                DType::I32 => Tensor::from(vec![0i32]),
                DType::I64 => Tensor::from(vec![0i64]),
                DType::F32 => Tensor::from(vec![0f32]),
                DType::F64 => Tensor::from(vec![0f64]),
                _ => Tensor::from(vec![""]),
            })
            .collect())
    }
}

/// One row as Python's `csv.reader` splits it: `"` quotes a field (with `""` for a quote)
/// when `quote` is set; an empty line is a row of no fields.
fn split_row(line: &str, delim: u8, quote: bool) -> Vec<String> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if line.is_empty() {
        return Vec::new();
    }
    let b = line.as_bytes();
    let mut fields = Vec::new();
    let mut field = Vec::new();
    let mut i = 0;
    let mut quoted = false;
    while i < b.len() {
        let c = b[i];
        if quoted {
            if c == b'"' {
                if b.get(i + 1) == Some(&b'"') {
                    field.push(b'"');
                    i += 1;
                } else {
                    quoted = false;
                }
            } else {
                field.push(c);
            }
        } else if c == delim {
            fields.push(String::from_utf8_lossy(&field).into_owned());
            field.clear();
        } else if quote && c == b'"' && field.is_empty() {
            quoted = true;
        } else {
            field.push(c);
        }
        i += 1;
    }
    fields.push(String::from_utf8_lossy(&field).into_owned());
    fields
}

/// TensorFlow's `_infer_type`: the narrowest of int32, int64, float32, float64 and string that
/// reads `text` and is no narrower than `prev`; an empty or NA field leaves `prev`.
fn infer_type(text: &str, na_value: &str, prev: Option<DType>) -> Option<DType> {
    if text.is_empty() || text == na_value {
        return prev;
    }
    const ORDER: [DType; 5] = [
        DType::I32,
        DType::I64,
        DType::F32,
        DType::F64,
        DType::String,
    ];
    let int = python_int(text);
    let float = python_float(text);
    for (i, &t) in ORDER.iter().enumerate() {
        let valid = match t {
            DType::I32 => int.is_some_and(|v| i32::try_from(v).is_ok()),
            DType::I64 => int.is_some(),
            // numpy's float32(text) < inf: finite or -inf.
            DType::F32 => float.is_some_and(|v| (v as f32) < f32::INFINITY),
            DType::F64 => float.is_some_and(|v| v < f64::INFINITY),
            _ => true,
        };
        if valid && prev.is_none_or(|p| ORDER[..=i].contains(&p)) {
            return Some(t);
        }
    }
    Some(DType::String)
}

/// Python's `int(text)` within int64: surrounding whitespace, a sign, digits with single
/// underscores between them.
fn python_int(text: &str) -> Option<i64> {
    let t = text.trim();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return None;
    }
    let clean: String = t.chars().filter(|&c| c != '_').collect();
    if !clean
        .trim_start_matches(['+', '-'])
        .bytes()
        .all(|c| c.is_ascii_digit())
    {
        return None;
    }
    clean.parse::<i64>().ok()
}

/// Python's `float(text)` (numpy's parse of a string is the same): surrounding whitespace,
/// decimal or exponent forms, `inf`/`infinity`/`nan` in any case.
fn python_float(text: &str) -> Option<f64> {
    let t = text.trim();
    if t.contains("__") || t.starts_with('_') || t.ends_with('_') {
        return None;
    }
    let clean: String = t.chars().filter(|&c| c != '_').collect();
    clean.parse::<f64>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_are_inferred_as_tensorflows_python_does() {
        let t = |v: &[&str]| {
            v.iter()
                .fold(None, |p, s| infer_type(s, "NA", p))
                .unwrap_or(DType::String)
        };
        assert_eq!(t(&["1", "2"]), DType::I32);
        assert_eq!(t(&["1", "3000000000"]), DType::I64);
        assert_eq!(t(&["3000000000", "1"]), DType::I64);
        assert_eq!(t(&["1", "2.5"]), DType::F32);
        assert_eq!(t(&["1e39"]), DType::F64);
        assert_eq!(t(&["-1e39"]), DType::F32);
        assert_eq!(t(&["inf"]), DType::String);
        assert_eq!(t(&["nan"]), DType::String);
        assert_eq!(t(&["", "NA"]), DType::String);
        assert_eq!(t(&["1_000", " 7 "]), DType::I32);
        assert_eq!(t(&["x", "1"]), DType::String);
        assert_eq!(t(&["1.5", "2"]), DType::F32);
    }

    #[test]
    fn rows_split_as_pythons_csv_reader() {
        assert_eq!(
            split_row("a,\"b,c\",\"d\"\"e\"", b',', true),
            ["a", "b,c", "d\"e"]
        );
        assert_eq!(split_row("a,\"b", b',', false), ["a", "\"b"]);
        assert_eq!(split_row("", b',', true), Vec::<String>::new());
        assert_eq!(split_row("x,\r", b',', true), ["x", ""]);
    }
}
