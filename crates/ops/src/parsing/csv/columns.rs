//! Typed column conversion: each output column converts a chunk of split records in one loop,
//! straight into its output vector.

use bytes::Bytes;
use weir_graph::{DType, Error, Result, Tensor, TensorType};

use super::fields::{
    double_field, field_bytes, field_text, float_field, int32_field, int64_field, is_missing, Span,
};

/// One output column: its values so far and its default (`None` = required).
pub(super) enum Column {
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
    pub(super) fn new(default: &Tensor, n: usize, f: usize) -> Result<Column> {
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

    pub(super) fn into_tensor(self, shape: &[usize]) -> Result<Tensor> {
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
pub(super) struct Chunk<'a> {
    pub(super) records: &'a [Bytes],
    /// Record index of the chunk's first row.
    pub(super) first: usize,
    pub(super) rows: usize,
    pub(super) spans: &'a [Span],
    pub(super) ncols: usize,
    pub(super) na: &'a [u8],
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

/// The error for a record default of a dtype decode_csv cannot produce.
pub(crate) fn unsupported(dt: DType, f: usize) -> Error {
    Error::invalid_argument(format!("csv: data type {dt} not supported in field {f}"))
}

pub(crate) fn missing(col: usize, record: usize) -> Error {
    missing_at(col, Some(record))
}

/// The error for a required field that is missing; `record` is `None` where TensorFlow does
/// not number records (`CsvDataset`).
pub(crate) fn missing_at(col: usize, record: Option<usize>) -> Error {
    Error::invalid_argument(format!(
        "Field {col} is required but missing in record{}!",
        record_label(record)
    ))
}

pub(crate) fn invalid(col: usize, record: usize, kind: &str, rec: &[u8], s: Span) -> Error {
    invalid_at(col, Some(record), kind, rec, s)
}

/// The error for a field that is not a valid `kind`; `record` as in [`missing_at`].
pub(crate) fn invalid_at(
    col: usize,
    record: Option<usize>,
    kind: &str,
    rec: &[u8],
    s: Span,
) -> Error {
    Error::invalid_argument(format!(
        "Field {col} in record{} is not a valid {kind}: {}",
        record_label(record),
        String::from_utf8_lossy(&field_text(rec, s))
    ))
}

/// ` <n>` after "record" in messages, or nothing.
fn record_label(record: Option<usize>) -> String {
    record.map(|r| format!(" {r}")).unwrap_or_default()
}

/// Converts column `col` of `chunk` with `parse` (of a record and a field's span in it); on
/// failure, the chunk row and the error.
#[inline]
fn convert<T: Clone>(
    out: &mut Vec<T>,
    default: &Option<T>,
    chunk: &Chunk<'_>,
    col: usize,
    kind: &str,
    parse: impl Fn(&[u8], Span) -> Option<T>,
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
            match parse(rec, s) {
                Some(v) => v,
                None => return Err((row, invalid(col, chunk.first + row, kind, rec, s))),
            }
        };
        out.push(v);
    }
    Ok(())
}

impl Column {
    pub(super) fn convert_chunk(
        &mut self,
        chunk: &Chunk<'_>,
        col: usize,
    ) -> std::result::Result<(), (usize, Error)> {
        match self {
            Column::I32(out, d) => convert(out, d, chunk, col, "int32", int32_field),
            Column::I64(out, d) => convert(out, d, chunk, col, "int64", int64_field),
            Column::F32(out, d) => convert(out, d, chunk, col, "float", float_field),
            Column::F64(out, d) => convert(out, d, chunk, col, "double", double_field),
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
