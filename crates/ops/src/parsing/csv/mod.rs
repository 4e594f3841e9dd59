//! The CSV engine behind `DecodeCSV`, usable without a graph: field splitting with
//! TensorFlow's RFC 4180 rules, and typed column conversion straight into the output vectors.
//!
//! Records are split in chunks; each chunk's fields are recorded as spans of their record, then
//! every column converts its chunk in one typed loop. String fields are slices of the record
//! ([`Bytes::slice`]), copied only when a quoted field holds doubled quotes.

use bytes::Bytes;
use weir_graph::{Error, Result, Tensor};

mod columns;
mod fields;

pub(super) use columns::{invalid_at, missing_at, unsupported};
use columns::{Chunk, Column};
pub(super) use fields::{
    double_field, field_bytes, float_field, int32_field, int64_field, is_missing, split_record,
};
pub(crate) use fields::{Span, Spans, Splitter};

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

/// The checks `DecodeCSV` makes of its options and record defaults before any record.
pub(crate) fn check_inputs(defaults: &[Tensor], opts: &CsvOptions) -> Result<()> {
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
    check_defaults(defaults)
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
    check_inputs(defaults, opts)?;
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
