//! decode_csv on a single record, the per-line pipeline's case (`TextLineReader.read` then
//! `decode_csv`): the fields go straight into one-element tensors, without the chunked
//! column buffers of the batch path. Errors are the batch path's, in the same order: the
//! record defaults' dtypes, then the split, then the first bad field.

use bytes::Bytes;
use weir_graph::{DType, Result, Tensor, TensorType};

use super::csv::{
    double_field, field_bytes, float_field, int32_field, int64_field, invalid_at, is_missing,
    missing_at, split_record, unsupported, CsvOptions, Span, Spans, Splitter,
};

/// Decodes the one record `rec` (the records tensor has `shape`, of one element) into one
/// tensor of that shape per default. `defaults` were checked by the caller.
pub(super) fn decode_one(
    rec: &Bytes,
    shape: &[usize],
    defaults: &[Tensor],
    opts: &CsvOptions,
) -> Result<Vec<Tensor>> {
    for (f, d) in defaults.iter().enumerate() {
        match d.dtype() {
            DType::I32 | DType::I64 | DType::F32 | DType::F64 | DType::String => {}
            dt => return Err(unsupported(dt, f)),
        }
    }
    fields(rec, defaults, opts, |field, d, c, s| {
        field_tensor(field, d, c, s, shape)
    })
}

/// Field `c` of a record, at span `s`, converted to the dtype of its record default `d` (one of
/// decode_csv's five): a tensor of `shape` filled with the value, or the default when the field
/// is missing (empty or na_value).
pub(crate) fn field_tensor(
    field: &Field<'_>,
    d: &Tensor,
    c: usize,
    s: Span,
    shape: &[usize],
) -> Result<Tensor> {
    Ok(match d.dtype() {
        DType::I32 => Tensor::filled(shape, field.number(d, c, s, "int32", int32_field)?),
        DType::I64 => Tensor::filled(shape, field.number(d, c, s, "int64", int64_field)?),
        DType::F32 => Tensor::filled(shape, field.number(d, c, s, "float", float_field)?),
        DType::F64 => Tensor::filled(shape, field.number(d, c, s, "double", double_field)?),
        _ => Tensor::filled(shape, field.string(d, c, s)?),
    })
}

/// Splits `rec` into one field per default and converts each with `value(field, default,
/// column, span)`, stopping at the first error in column order.
fn fields<T>(
    rec: &Bytes,
    defaults: &[Tensor],
    opts: &CsvOptions,
    value: impl Fn(&Field<'_>, &Tensor, usize, Span) -> Result<T>,
) -> Result<Vec<T>> {
    let mut spans = Spans::new();
    split_record(&Splitter::new(opts), rec, 0, defaults.len(), &mut spans)?;
    let field = Field::new(rec, &opts.na_value, Some(0));
    let mut out = Vec::with_capacity(defaults.len());
    for (c, (d, &s)) in defaults.iter().zip(&spans).enumerate() {
        out.push(value(&field, d, c, s)?);
    }
    Ok(out)
}

/// [`decode_one`] of a scalar record whose defaults all have one dtype, with the fields in one
/// tensor of shape `[defaults.len()]`: `tf.stack(decode_csv(line))` without a tensor per field.
/// The checks and errors are decode_one's, in the same order.
pub(super) fn decode_one_stacked(
    rec: &Bytes,
    defaults: &[Tensor],
    opts: &CsvOptions,
) -> Result<Tensor> {
    let Some(first) = defaults.first() else {
        return Err(weir_graph::Error::invalid_argument(
            "Pack needs at least one input",
        ));
    };
    match first.dtype() {
        DType::I32 => stacked(rec, defaults, opts, |f, d, c, s| {
            f.number(d, c, s, "int32", int32_field)
        }),
        DType::I64 => stacked(rec, defaults, opts, |f, d, c, s| {
            f.number(d, c, s, "int64", int64_field)
        }),
        DType::F32 => stacked(rec, defaults, opts, |f, d, c, s| {
            f.number(d, c, s, "float", float_field)
        }),
        DType::F64 => stacked(rec, defaults, opts, |f, d, c, s| {
            f.number(d, c, s, "double", double_field)
        }),
        DType::String => stacked(rec, defaults, opts, |f, d, c, s| f.string(d, c, s)),
        dt => Err(unsupported(dt, 0)),
    }
}

fn stacked<T: TensorType>(
    rec: &Bytes,
    defaults: &[Tensor],
    opts: &CsvOptions,
    value: impl Fn(&Field<'_>, &Tensor, usize, Span) -> Result<T>,
) -> Result<Tensor> {
    let dt = defaults[0].dtype();
    if let Some(c) = defaults.iter().position(|d| d.dtype() != dt) {
        return Err(weir_graph::Error::invalid_argument(format!(
            "Cannot stack a {} field with {dt} fields (field {c})",
            defaults[c].dtype()
        )));
    }
    Tensor::from_vec(&[defaults.len()], fields(rec, defaults, opts, value)?)
}

/// One record's fields as [`field_tensor`] reads them: the record, the na_value, and the
/// record's number in messages (`None`: unnumbered, as `CsvDataset` words them).
pub(crate) struct Field<'a> {
    rec: &'a Bytes,
    na: &'a [u8],
    record: Option<usize>,
}

impl<'a> Field<'a> {
    pub(crate) fn new(rec: &'a Bytes, na: &'a [u8], record: Option<usize>) -> Field<'a> {
        Field { rec, na, record }
    }

    /// The record default of column `c`, or the error for a required field.
    fn default<T: TensorType>(&self, d: &Tensor, c: usize) -> Result<T> {
        d.as_slice::<T>()?
            .first()
            .cloned()
            .ok_or_else(|| missing_at(c, self.record))
    }

    fn number<T: TensorType>(
        &self,
        d: &Tensor,
        c: usize,
        s: Span,
        kind: &str,
        parse: impl Fn(&[u8], Span) -> Option<T>,
    ) -> Result<T> {
        if is_missing(self.na, self.rec, s) {
            return self.default::<T>(d, c);
        }
        parse(self.rec, s).ok_or_else(|| invalid_at(c, self.record, kind, self.rec, s))
    }

    fn string(&self, d: &Tensor, c: usize, s: Span) -> Result<Bytes> {
        if is_missing(self.na, self.rec, s) {
            return self.default::<Bytes>(d, c);
        }
        Ok(field_bytes(self.rec, s))
    }
}

#[cfg(test)]
mod tests {
    use super::super::csv::decode_csv_tensors;
    use super::*;

    /// decode_csv of `line` alone and in a batch of two copies of it (the chunked path): the
    /// same values, or the same error (the first record's).
    fn both(line: &str, defaults: &[Tensor], opts: &CsvOptions) -> Result<Vec<Tensor>> {
        let one = decode_csv_tensors(&Tensor::from(vec![line]).reshape(&[])?, defaults, opts);
        let batch = decode_csv_tensors(&Tensor::from(vec![line, line]), defaults, opts);
        match (&one, &batch) {
            (Ok(o), Ok(b)) => {
                for (x, y) in o.iter().zip(b) {
                    assert_eq!(x.shape(), &[] as &[usize]);
                    assert_eq!(x.reshape(&[1])?, y.slice_axis0(0, 1)?, "{line:?}");
                }
            }
            (Err(e), Err(f)) => {
                assert_eq!(e.code(), f.code());
                assert_eq!(e.message(), f.message(), "{line:?}");
            }
            _ => panic!("{line:?}: {one:?} vs {batch:?}"),
        }
        one
    }

    #[test]
    fn one_record_matches_the_batch_path() {
        let defaults = [
            Tensor::from(vec![0i32]),
            Tensor::from(vec![7i64]),
            Tensor::from(vec![0.5f32]),
            Tensor::from(vec![0.25f64]),
            Tensor::from(vec!["d"]),
        ];
        let o = CsvOptions::default();
        let v = both("1,2,3.5,4.5,\"a,\"\"b\"", &defaults, &o).unwrap();
        assert_eq!(v[0].to_scalar::<i32>().unwrap(), 1);
        assert_eq!(v[4].to_strings().unwrap(), vec!["a,\"b"]);
        let v = both("1,,,,", &defaults, &o).unwrap();
        assert_eq!(v[1].to_scalar::<i64>().unwrap(), 7);
        assert_eq!(v[4].to_strings().unwrap(), vec!["d"]);
        // Errors: required field, bad number, field count, quoting.
        let required = [Tensor::from(Vec::<i32>::new()), Tensor::from(vec![0i32])];
        assert!(both(",1", &required, &o).is_err());
        assert!(both("x,1", &defaults[..2], &o).is_err());
        assert!(both("1", &defaults[..2], &o).is_err());
        assert!(both("\"1,2", &defaults[..2], &o).is_err());
        let na = CsvOptions {
            na_value: b"NA".to_vec(),
            ..CsvOptions::default()
        };
        let v = both("NA,3", &defaults[..2], &na).unwrap();
        assert_eq!(v[0].to_scalar::<i32>().unwrap(), 0);
        let bad_dtype = [Tensor::from(vec![true])];
        let e = both("1", &bad_dtype, &o).unwrap_err();
        assert!(e.message().contains("not supported in field 0"), "{e}");
    }
}
