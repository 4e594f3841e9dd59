//! Reading a table's entries from a text file, line by line, as TensorFlow's
//! `TextFileLineIterator` does (`InitializeTableFromTextFileV2`): each line gives one key and one
//! value, taken from a column of the line split on a one-byte delimiter, from the whole line
//! (index -2) or from the line number (index -1), with TensorFlow's messages naming the file and
//! the line.

use weir_graph::{Bytes, DType, Error, Result, Tensor};

/// `TextFileIndex.WHOLE_LINE`: the key or value is the whole line.
pub(super) const WHOLE_LINE: i64 = -2;
/// `TextFileIndex.LINE_NUMBER`: the key or value is the line number (int64).
pub(super) const LINE_NUMBER: i64 = -1;

/// How the lines of a file become entries: the op's attrs.
#[derive(Clone, Debug)]
pub(super) struct TextFileSpec {
    /// How many lines to read (-1: all of them, which must then number exactly this many).
    pub vocab_size: i64,
    pub delimiter: u8,
    pub key_index: i64,
    pub value_index: i64,
    /// Added to line numbers and to int32 fields, as TensorFlow adds it.
    pub offset: i64,
}

/// The entries read from a file: the keys and values of the lines before the first bad one,
/// and the error that line gave (none when the file ended as it should).
pub(super) struct Entries {
    pub keys: Tensor,
    pub values: Tensor,
    pub error: Option<Error>,
    /// The number of entries the file holds for TensorFlow's "same data" check: `vocab_size`
    /// when given, else the number of lines.
    pub total: i64,
}

/// TensorFlow's dtype checks of `InitializeTableFromTextFile` for a table of these dtypes.
pub(super) fn check_dtypes(spec: &TextFileSpec, key: DType, value: DType) -> Result<()> {
    let integer = |d: DType| DType::INTEGER.contains(&d);
    if spec.key_index == LINE_NUMBER && key != DType::I64 {
        return Err(Error::invalid_argument(format!(
            "Key index for line number requires table key dtype of int64, got {key}"
        )));
    }
    if spec.key_index == WHOLE_LINE && !integer(key) && key != DType::String {
        return Err(Error::invalid_argument(format!(
            "Key index for whole line requires string or integer table key, got {key}"
        )));
    }
    if spec.value_index == LINE_NUMBER && value != DType::I64 {
        return Err(Error::invalid_argument(format!(
            "Value index for line number requires table value dtype of int64, got {value}"
        )));
    }
    if spec.value_index == WHOLE_LINE && !integer(value) && value != DType::String {
        return Err(Error::invalid_argument(format!(
            "Value index for whole line requires table value dtype of integer or string, got {value}"
        )));
    }
    Ok(())
}

/// Reads `path` whole; TensorFlow's messages for a file that cannot be opened.
fn read_file(path: &str) -> Result<Bytes> {
    let meta = std::fs::metadata(path).map_err(|e| crate::io::open_error(path, &e))?;
    if meta.is_dir() {
        return Err(Error::failed_precondition(format!(
            "{path}; Is a directory"
        )));
    }
    let data = std::fs::read(path).map_err(|e| crate::io::open_error(path, &e))?;
    Ok(Bytes::from(data))
}

/// The lines of a file as TensorFlow's `InputBuffer::ReadLine` gives them: without the `\n` and
/// a `\r` before it, a last line without `\n` included unless it is empty. Each line comes with
/// the offset just past it (`InputBuffer::Tell`).
struct Lines {
    data: Bytes,
    pos: usize,
}

impl Iterator for Lines {
    type Item = (Bytes, usize);

    fn next(&mut self) -> Option<(Bytes, usize)> {
        let start = self.pos;
        if start >= self.data.len() {
            return None;
        }
        let (end, next) = match memchr::memchr(b'\n', &self.data[start..]) {
            Some(i) => (start + i, start + i + 1),
            None => (self.data.len(), self.data.len()),
        };
        self.pos = next;
        let end = if end > start && self.data[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        if end == start && next == self.data.len() && self.data[next - 1] != b'\n' {
            // A last line that is empty (or only `\r`) is the end of the file.
            return None;
        }
        Some((self.data.slice(start..end), next))
    }
}

/// The values of one column as they are parsed.
enum Column {
    I32(Vec<i32>),
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    Str(Vec<Bytes>),
    /// A dtype no line converts to: the first value fails.
    Unsupported(DType),
}

impl Column {
    fn new(dtype: DType) -> Column {
        match dtype {
            DType::I32 => Column::I32(Vec::new()),
            DType::I64 => Column::I64(Vec::new()),
            DType::F32 => Column::F32(Vec::new()),
            DType::F64 => Column::F64(Vec::new()),
            DType::String => Column::Str(Vec::new()),
            other => Column::Unsupported(other),
        }
    }

    fn into_tensor(self) -> Tensor {
        match self {
            Column::I32(v) => Tensor::from(v),
            Column::I64(v) => Tensor::from(v),
            Column::F32(v) => Tensor::from(v),
            Column::F64(v) => Tensor::from(v),
            Column::Str(v) => Tensor::from(v),
            Column::Unsupported(d) => {
                Tensor::zeros(d, &[0]).unwrap_or_else(|_| Tensor::from(Vec::<i64>::new()))
            }
        }
    }

    /// Parses `token` of line `line_no` onto the column (TensorFlow's `SetValue`).
    fn push(&mut self, token: &Bytes, line_no: i64, offset: i64) -> Result<()> {
        let bad = |ty: &str| {
            Error::invalid_argument(format!(
                "Field {} in line {line_no} is not a valid {ty}.",
                String::from_utf8_lossy(token)
            ))
        };
        match self {
            Column::I32(v) => {
                let x = parse_int(token)
                    .and_then(|x| i32::try_from(x).ok())
                    .ok_or_else(|| bad("int32"))?;
                v.push(i64::from(x).wrapping_add(offset) as i32);
            }
            Column::I64(v) => v.push(parse_int(token).ok_or_else(|| bad("int64"))?),
            Column::F32(v) => v.push(parse_float(token).ok_or_else(|| bad("float"))?),
            Column::F64(v) => v.push(parse_float(token).ok_or_else(|| bad("double"))?),
            Column::Str(v) => v.push(token.clone()),
            Column::Unsupported(d) => {
                return Err(Error::invalid_argument(format!(
                    "Data type {d} not supported."
                )))
            }
        }
        Ok(())
    }

    fn push_line_number(&mut self, n: i64) {
        if let Column::I64(v) = self {
            v.push(n);
        }
    }
}

/// C's `isspace`.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

fn trim(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|&b| !is_space(b)).unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|&b| !is_space(b))
        .map_or(start, |e| e + 1);
    &s[start..end]
}

/// TensorFlow's `safe_strto64`: spaces around, an optional `-`, decimal digits, no overflow.
fn parse_int(s: &[u8]) -> Option<i64> {
    let s = trim(s);
    let (neg, digits) = match s.strip_prefix(b"-") {
        Some(d) => (true, d),
        None => (false, s),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut v: i64 = 0;
    for &d in digits {
        let d = i64::from(d - b'0');
        v = v.checked_mul(10)?;
        v = if neg {
            v.checked_sub(d)?
        } else {
            v.checked_add(d)?
        };
    }
    Some(v)
}

/// TensorFlow's `safe_strtof`/`safe_strtod`: a decimal or special number with spaces around,
/// shorter than 32 bytes.
fn parse_float<T: std::str::FromStr>(s: &[u8]) -> Option<T> {
    if s.len() >= 32 {
        return None;
    }
    std::str::from_utf8(trim(s)).ok()?.parse::<T>().ok()
}

/// The entries of `path` for a table of `key`/`value` dtypes, read as `spec` says. Errors
/// before any entry (the file cannot be read, the first line is bad, the file is empty) are
/// returned as errors; later ones come back in [`Entries::error`].
pub(super) fn read_entries(
    path: &str,
    spec: &TextFileSpec,
    key: DType,
    value: DType,
) -> Result<Entries> {
    let data = read_file(path)?;
    let mut keys = Column::new(if spec.key_index == LINE_NUMBER {
        DType::I64
    } else {
        key
    });
    let mut values = Column::new(if spec.value_index == LINE_NUMBER {
        DType::I64
    } else {
        value
    });
    let columns = spec.key_index.max(spec.value_index) + 1;
    let mut next_id: i64 = 0;
    let mut lines = Lines {
        data: data.clone(),
        pos: 0,
    };
    let error = loop {
        let Some((line, end)) = lines.next() else {
            if spec.vocab_size != -1 && next_id != spec.vocab_size {
                break Some(Error::invalid_argument(format!(
                    "Invalid vocab_size in {path}: expected {} but got {next_id}",
                    spec.vocab_size
                )));
            }
            if next_id == 0 {
                break Some(Error::out_of_range("Read less bytes than requested"));
            }
            break None;
        };
        if spec.vocab_size != -1 && next_id >= spec.vocab_size {
            if next_id == 0 {
                break Some(Error::out_of_range(format!(
                    "Finished reading {} of lines from {path}",
                    spec.vocab_size
                )));
            }
            break None;
        }
        if line.is_empty() {
            break Some(Error::invalid_argument(format!(
                "Invalid content in {path}: empty line found at position {end}."
            )));
        }
        let tokens: Vec<Bytes> = if columns > 0 {
            let tokens: Vec<Bytes> = line
                .split(|&b| b == spec.delimiter)
                .map(|t| line.slice_ref(t))
                .collect();
            if (tokens.len() as i64) < columns {
                break Some(Error::invalid_argument(format!(
                    "Invalid number of columns in {path} line {next_id} ({}) : expected at least {columns} got {}",
                    String::from_utf8_lossy(&line),
                    tokens.len()
                )));
            }
            tokens
        } else {
            Vec::new()
        };
        let set = |col: &mut Column, index: i64| -> Result<()> {
            match index {
                LINE_NUMBER => {
                    col.push_line_number(next_id.wrapping_add(spec.offset));
                    Ok(())
                }
                WHOLE_LINE => col.push(&line, next_id, spec.offset),
                i => col.push(&tokens[i as usize], next_id, spec.offset),
            }
        };
        if let Err(e) = set(&mut keys, spec.key_index) {
            break Some(e);
        }
        if let Err(e) = set(&mut values, spec.value_index) {
            // The key of this line is not an entry.
            keys.truncate(next_id as usize);
            break Some(e);
        }
        next_id += 1;
    };
    if next_id == 0 {
        if let Some(e) = error {
            return Err(e);
        }
    }
    let total = if spec.vocab_size != -1 {
        spec.vocab_size
    } else {
        Lines { data, pos: 0 }.count() as i64
    };
    Ok(Entries {
        keys: keys.into_tensor(),
        values: values.into_tensor(),
        error,
        total,
    })
}

impl Column {
    fn truncate(&mut self, n: usize) {
        match self {
            Column::I32(v) => v.truncate(n),
            Column::I64(v) => v.truncate(n),
            Column::F32(v) => v.truncate(n),
            Column::F64(v) => v.truncate(n),
            Column::Str(v) => v.truncate(n),
            Column::Unsupported(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<(String, usize)> {
        Lines {
            data: Bytes::from(s.to_string()),
            pos: 0,
        }
        .map(|(l, e)| (String::from_utf8(l.to_vec()).unwrap(), e))
        .collect()
    }

    #[test]
    fn lines_end_as_tensorflows_read_line_ends_them() {
        assert_eq!(lines("a\nb\n"), vec![("a".into(), 2), ("b".into(), 4)]);
        assert_eq!(lines("a\r\nb"), vec![("a".into(), 3), ("b".into(), 4)]);
        assert_eq!(
            lines("a\n\nc\r"),
            vec![("a".into(), 2), ("".into(), 3), ("c".into(), 5)]
        );
        assert_eq!(lines(""), vec![]);
        assert_eq!(lines("\r"), vec![]);
    }

    #[test]
    fn numbers_parse_as_tensorflows_safe_conversions() {
        assert_eq!(parse_int(b" 12 "), Some(12));
        assert_eq!(parse_int(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_int(b"9223372036854775808"), None);
        assert_eq!(parse_int(b"+8"), None);
        assert_eq!(parse_int(b""), None);
        assert_eq!(parse_float::<f32>(b" 1e3"), Some(1000.0));
        assert_eq!(parse_float::<f64>(b"x"), None);
    }
}
