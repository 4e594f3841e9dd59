//! One SequenceExample's feature values read into growing buffers: the per-example work of
//! `FastParseSequenceExample`, shared by `parse_single_sequence_example` (one example) and
//! `parse_sequence_example` (a batch), with TensorFlow's error texts.

use bytes::Bytes;
use weir_graph::{format_dims, DType, Error, Result, Tensor};

use super::example::{sequence_shape_string, Value};
use super::features::DenseSpec;
use super::sequence::{feature_values, skip_empty_feature, ListSpec};
use super::wire::{delimited_tag, Reader};

/// Checks the largest number of values of a context dense feature (default included) against
/// its shape.
pub(crate) fn check_context_length(spec: &DenseSpec, length: usize) -> Result<()> {
    let n: usize = spec.shape.iter().product();
    if length != n {
        return Err(Error::invalid_argument(format!(
            "Inconsistent max number of elements for feature {}: expected {n}, but found {length}",
            spec.name
        )));
    }
    Ok(())
}

/// Appends one example's values of a context dense feature (or its default) to `out`; they must
/// be `length` values.
pub(crate) fn push_context_dense<T: Value>(
    spec: &DenseSpec,
    default: &Tensor,
    base: &Bytes,
    proto: Option<(usize, usize)>,
    length: usize,
    name: &str,
    out: &mut Vec<T>,
) -> Result<()> {
    let unexpected =
        || Error::invalid_argument(format!("Unexpected number of elements in example {name}"));
    let before = out.len();
    match proto {
        None => {
            if default.num_elements() == 0 {
                return Err(Error::invalid_argument(format!(
                    "Feature: {} (data type: {}) is required but could not be found.",
                    spec.name, spec.dtype
                )));
            }
            out.extend(default.to_vec::<T>()?);
        }
        Some(p) if p.0 == p.1 => {}
        Some(p) => {
            let mut r = Reader::new(base, p.0, p.1);
            feature_values::<T>(base, &mut r, out, false).ok_or_else(unexpected)?;
        }
    }
    if out.len() - before != length {
        return Err(unexpected());
    }
    Ok(())
}

/// Appends one example's values of a context sparse feature to `out`; returns their number.
pub(crate) fn push_context_sparse<T: Value>(
    base: &Bytes,
    proto: Option<(usize, usize)>,
    key: &str,
    out: &mut Vec<T>,
) -> Result<usize> {
    let Some(p) = proto.filter(|p| p.0 != p.1) else {
        return Ok(0);
    };
    let mut r = Reader::new(base, p.0, p.1);
    feature_values::<T>(base, &mut r, out, false).ok_or_else(|| {
        Error::invalid_argument(format!(
            "Unexpected total number of elements in feature {key}"
        ))
    })
}

/// The number of rows of a dense feature list whose longest example holds `length` values;
/// TensorFlow's error if `length` is not a whole number of rows.
pub(crate) fn list_rows(spec: &ListSpec, length: usize) -> Result<usize> {
    let stride: usize = spec.row.iter().product();
    if (stride == 0 && length != 0) || (stride != 0 && length % stride != 0) {
        return Err(Error::invalid_argument(format!(
            "Feature list '{}' has an unexpected number of values.  Total values size: {length} is not consistent with output shape: {}",
            spec.name,
            sequence_shape_string(&spec.row)
        )));
    }
    Ok(length.checked_div(stride).unwrap_or(0))
}

/// Appends the rows of one example's dense feature list to `values` (nothing when it is missing
/// and allowed to be); returns the number of rows.
pub(crate) fn push_list_dense<T: Value>(
    spec: &ListSpec,
    base: &Bytes,
    proto: Option<(usize, usize)>,
    name: &str,
    values: &mut Vec<T>,
) -> Result<usize> {
    let stride: usize = spec.row.iter().product();
    let bad = || {
        Error::invalid_argument(format!(
            "Error in sequence feature {} in example {name}",
            spec.name
        ))
    };
    let mut rows = 0usize;
    match proto {
        None if !spec.allow_missing => {
            return Err(Error::invalid_argument(format!(
                "Name: {name}, Feature list '{}' is required but could not be found.  Did you mean to include it in feature_list_dense_missing_assumed_empty or feature_list_dense_defaults?",
                spec.name
            )))
        }
        None => {}
        Some(p) => {
            let mut r = Reader::new(base, p.0, p.1);
            while !r.at_end() {
                if !r.expect_tag(delimited_tag(1)) {
                    return Err(bad());
                }
                let fl = r.read_varint32().ok_or_else(bad)?;
                let old = r.push_limit(fl);
                let added = if fl > 2 {
                    feature_values::<T>(base, &mut r, values, false).ok_or_else(bad)?
                } else {
                    0
                };
                if added != stride {
                    return Err(Error::invalid_argument(format!(
                        "Name: {name}, Key: {}, Index: {rows}.  Number of values != expected.  values size: {added} but output shape: {}",
                        spec.name,
                        format_dims(&spec.row)
                    )));
                }
                rows += 1;
                r.pop_limit(old);
            }
        }
    }
    Ok(rows)
}

/// Appends one example's sparse feature list to `values`, and each value's `[example,] row,
/// column` to `indices` (`example`: its index in a batch); returns the number of rows and the
/// longest row.
#[allow(clippy::too_many_arguments)]
pub(crate) fn push_list_sparse<T: Value>(
    base: &Bytes,
    proto: Option<(usize, usize)>,
    dtype: DType,
    key: &str,
    name: &str,
    example: Option<i64>,
    values: &mut Vec<T>,
    indices: &mut Vec<i64>,
) -> Result<(usize, usize)> {
    let mut max_cols = 0usize;
    let mut row = 0i64;
    let rows = push_list_rows(base, proto, dtype, key, name, values, |added| {
        max_cols = max_cols.max(added);
        for i in 0..added {
            indices.extend(example);
            indices.push(row);
            indices.push(i as i64);
        }
        row += 1;
    })?;
    Ok((rows, max_cols))
}

/// Appends the values of one example's feature list to `values` row by row, calling `row` with
/// each row's number of values (0 for an empty `Feature`); returns the number of rows. The pass
/// TensorFlow's sparse and ragged feature lists share.
pub(crate) fn push_list_rows<T: Value>(
    base: &Bytes,
    proto: Option<(usize, usize)>,
    dtype: DType,
    key: &str,
    name: &str,
    values: &mut Vec<T>,
    mut row: impl FnMut(usize),
) -> Result<usize> {
    let bad =
        || Error::invalid_argument(format!("Error in sequence feature {key} in example {name}"));
    let mut rows = 0usize;
    if let Some(p) = proto.filter(|p| p.0 != p.1) {
        let mut r = Reader::new(base, p.0, p.1);
        while !r.at_end() {
            if !r.expect_tag(delimited_tag(1)) {
                return Err(bad());
            }
            let fl = r.read_varint32().ok_or_else(bad)?;
            let mut added = 0;
            if fl > 2 {
                let old = r.push_limit(fl);
                added = feature_values::<T>(base, &mut r, values, false).ok_or_else(bad)?;
                r.pop_limit(old);
            } else if fl == 2 {
                if !skip_empty_feature(&mut r, dtype) {
                    return Err(bad());
                }
            } else if fl != 0 {
                return Err(bad());
            }
            row(added);
            rows += 1;
        }
    }
    Ok(rows)
}
