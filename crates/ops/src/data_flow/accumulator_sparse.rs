//! The sparse gradients of TensorFlow's `SparseConditionalAccumulator`: slices of a tensor,
//! named by their row indices (an `IndexedSlices`), summed per row.
//!
//! TensorFlow keeps the first gradient's indices in their given order, then merges each later
//! gradient into the running sum as two sorted lists would merge: a row whose index equals the
//! current one of the other list is added to it, anything else is copied across. Sorted,
//! distinct indices therefore give the sorted union; unsorted or repeated ones give the
//! order (and the repeated rows) that merge produces, which weir reproduces step for step. A
//! MEAN divides each row by the number of gradients that contributed to it.

use weir_graph::{format_dims, Error, Result, Shape, Tensor};

use super::accumulator_dense::{match_accum_dtype, Elem};

/// One sparse gradient as the apply op receives it.
pub(super) struct SparseGrad<'a> {
    pub indices: &'a Tensor,
    pub values: &'a Tensor,
    /// The dense shape, when the op's `has_known_shape` is set.
    pub dense_shape: Option<&'a Tensor>,
}

/// The running sum: its row indices, the rows (`values`, dimension 0 one per index), and how
/// many gradients contributed to each row.
pub(super) struct SparseSum {
    indices: Vec<i64>,
    values: Tensor,
    counts: Vec<i32>,
}

fn mismatch(what: String) -> Error {
    Error::invalid_argument(format!("Shape mismatch: {what}"))
}

/// The checks TensorFlow makes of a gradient that is not stale, in its order and words: the
/// indices are a vector with one values row each, the dense shape (when known) and indices fit
/// the declared `shape`, and the rows have the shape of those accumulated so far (or, for the
/// first gradient, of the declared shape).
pub(super) fn validate(
    shape: &Shape,
    grad: &SparseGrad<'_>,
    sum: Option<&SparseSum>,
) -> Result<()> {
    let (indices, values) = (grad.indices, grad.values);
    if indices.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "Input indices should be vector but received shape: {}",
            format_dims(indices.shape())
        )));
    }
    let nnz = indices.shape()[0];
    if values.rank() == 0 {
        return Err(Error::invalid_argument("Values cannot be 0-dimensional."));
    }
    if values.shape()[0] != nnz {
        return Err(Error::invalid_argument(format!(
            "Expected {nnz} non-empty input values, got {}",
            values.shape()[0]
        )));
    }
    let declared = shape.dims().unwrap_or(&[]);
    if let Some(dense) = grad.dense_shape {
        let dense = dense.as_slice::<i64>()?;
        if declared.len() > dense.len() {
            return Err(mismatch(format!(
                "expected shape rank at least {}, got {}",
                declared.len(),
                dense.len()
            )));
        }
        for (i, (d, &got)) in declared.iter().zip(dense).enumerate() {
            if let Some(d) = *d {
                if d as i64 != got {
                    return Err(mismatch(format!(
                        "expected shape dim {i} to be {d}, got {got}"
                    )));
                }
            }
        }
    }
    if let Some(Some(rows)) = declared.first() {
        for (i, &idx) in indices.as_slice::<i64>()?.iter().enumerate() {
            if idx >= *rows as i64 {
                return Err(mismatch(format!(
                    "index of slice {i} exceeded limits of shape; index is {idx} exceeded {rows}"
                )));
            }
        }
    }
    let got = values.shape();
    match sum {
        Some(sum) => {
            let have = sum.values.shape();
            if have.len() != got.len() {
                return Err(mismatch(format!(
                    "expected values rank {}, got {}",
                    have.len(),
                    got.len()
                )));
            }
            for i in 1..have.len() {
                if have[i] != got[i] {
                    return Err(mismatch(format!(
                        "expected values dim {i} to be {}, got {}",
                        have[i], got[i]
                    )));
                }
            }
        }
        None => {
            if declared.len() > got.len() {
                return Err(mismatch(format!(
                    "expected values rank at least {}, got {}",
                    declared.len(),
                    got.len()
                )));
            }
            for (i, d) in declared.iter().enumerate().skip(1) {
                if let Some(d) = *d {
                    if d != got[i] {
                        return Err(mismatch(format!(
                            "expected values dim {i} to be {d}, got {}",
                            got[i]
                        )));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Where a row of a merged sum comes from.
#[derive(Clone, Copy)]
enum Source {
    Sum(usize),
    Grad(usize),
    Both(usize, usize),
}

impl SparseSum {
    /// The sum of one gradient: its indices as given, each row counted once.
    pub(super) fn first(grad: &SparseGrad<'_>) -> Result<SparseSum> {
        let indices = grad.indices.to_vec::<i64>()?;
        Ok(SparseSum {
            counts: vec![1; indices.len()],
            indices,
            values: grad.values.clone(),
        })
    }

    /// This sum plus `grad` (validated against it), merged as TensorFlow merges them.
    pub(super) fn add(self, grad: &SparseGrad<'_>) -> Result<SparseSum> {
        let theirs = grad.indices.as_slice::<i64>()?;
        let (mut i, mut j) = (0, 0);
        let mut plan = Vec::with_capacity(self.indices.len() + theirs.len());
        while i < self.indices.len() && j < theirs.len() {
            let (a, b) = (self.indices[i], theirs[j]);
            if a < b {
                plan.push(Source::Sum(i));
                i += 1;
            } else if a > b {
                plan.push(Source::Grad(j));
                j += 1;
            } else {
                plan.push(Source::Both(i, j));
                i += 1;
                j += 1;
            }
        }
        plan.extend((i..self.indices.len()).map(Source::Sum));
        plan.extend((j..theirs.len()).map(Source::Grad));

        let mut indices = Vec::with_capacity(plan.len());
        let mut counts = Vec::with_capacity(plan.len());
        for src in &plan {
            let (index, count) = match *src {
                Source::Sum(a) => (self.indices[a], self.counts[a]),
                Source::Grad(b) => (theirs[b], 1),
                Source::Both(a, _) => (self.indices[a], self.counts[a] + 1),
            };
            indices.push(index);
            counts.push(count);
        }
        let mut shape = grad.values.shape().to_vec();
        shape[0] = plan.len();
        let values = match_accum_dtype!(self.values.dtype(), T => {
            merge_rows::<T>(&self.values, grad.values, &plan, &shape)
        })?;
        Ok(SparseSum {
            indices,
            values,
            counts,
        })
    }

    /// The gradient `TakeGrad` outputs: indices, values (each row divided by its count for a
    /// MEAN), and the dense shape, whose first dimension is the declared one (-1 when unknown)
    /// and whose others are the rows'.
    pub(super) fn into_outputs(self, mean: bool, declared: &Shape) -> Result<Vec<Tensor>> {
        let values = if mean {
            match_accum_dtype!(self.values.dtype(), T => {
                divide_rows::<T>(self.values, &self.counts)
            })?
        } else {
            self.values
        };
        let first = match declared.dims().and_then(|d| d.first()) {
            Some(Some(n)) => *n as i64,
            _ => -1,
        };
        let mut dense: Vec<i64> = values.shape().iter().map(|&d| d as i64).collect();
        dense[0] = first;
        let n = self.indices.len();
        Ok(vec![
            Tensor::from_vec(&[n], self.indices)?,
            values,
            Tensor::from_vec(&[dense.len()], dense)?,
        ])
    }
}

fn merge_rows<T: Elem>(
    sum: &Tensor,
    grad: &Tensor,
    plan: &[Source],
    shape: &[usize],
) -> Result<Tensor> {
    let width: usize = shape[1..].iter().product();
    let (a, b) = (sum.as_slice::<T>()?, grad.as_slice::<T>()?);
    fn row<T>(s: &[T], r: usize, width: usize) -> &[T] {
        &s[r * width..(r + 1) * width]
    }
    let mut out = Vec::with_capacity(plan.len() * width);
    for src in plan {
        match *src {
            Source::Sum(i) => out.extend_from_slice(row(a, i, width)),
            Source::Grad(j) => out.extend_from_slice(row(b, j, width)),
            Source::Both(i, j) => out.extend(
                row(b, j, width)
                    .iter()
                    .zip(row(a, i, width))
                    .map(|(&x, &y)| x + y),
            ),
        }
    }
    Tensor::from_vec(shape, out)
}

fn divide_rows<T: Elem>(mut values: Tensor, counts: &[i32]) -> Result<Tensor> {
    let rows = counts.len();
    let elems = values.as_slice_mut::<T>()?;
    let width = elems.len().checked_div(rows).unwrap_or(0);
    for (r, &c) in counts.iter().enumerate() {
        let c = T::from_count(c);
        for v in &mut elems[r * width..(r + 1) * width] {
            *v = *v / c;
        }
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grad<'a>(indices: &'a Tensor, values: &'a Tensor) -> SparseGrad<'a> {
        SparseGrad {
            indices,
            values,
            dense_shape: None,
        }
    }

    fn rows(indices: &[i64], width: usize, base: f32) -> (Tensor, Tensor) {
        let n = indices.len();
        let vals = (0..n * width).map(|k| base + k as f32).collect();
        (
            Tensor::from_vec(&[n], indices.to_vec()).unwrap(),
            Tensor::from_vec(&[n, width], vals).unwrap(),
        )
    }

    #[test]
    fn sorted_gradients_merge_into_their_sorted_union_with_counts() {
        let (i1, v1) = rows(&[0, 2, 5], 1, 1.0);
        let (i2, v2) = rows(&[2, 3], 1, 10.0);
        let sum = SparseSum::first(&grad(&i1, &v1)).unwrap();
        let sum = sum.add(&grad(&i2, &v2)).unwrap();
        assert_eq!(sum.indices, vec![0, 2, 3, 5]);
        assert_eq!(sum.counts, vec![1, 2, 1, 1]);
        let out = sum.into_outputs(true, &Shape::known(&[6, 1])).unwrap();
        assert_eq!(out[0].to_vec::<i64>().unwrap(), vec![0, 2, 3, 5]);
        assert_eq!(out[1].to_vec::<f32>().unwrap(), vec![1.0, 6.0, 11.0, 3.0]);
        assert_eq!(out[2].to_vec::<i64>().unwrap(), vec![6, 1]);
    }

    #[test]
    fn unsorted_indices_merge_as_tensorflow_merges_them() {
        let (i1, v1) = rows(&[5, 1, 1, 3], 1, 0.0);
        let (i2, v2) = rows(&[1, 4], 1, 0.0);
        let sum = SparseSum::first(&grad(&i1, &v1)).unwrap();
        let sum = sum.add(&grad(&i2, &v2)).unwrap();
        assert_eq!(sum.indices, vec![1, 4, 5, 1, 1, 3]);
        let out = sum.into_outputs(false, &Shape::unknown()).unwrap();
        assert_eq!(out[2].to_vec::<i64>().unwrap(), vec![-1, 1]);
    }

    #[test]
    fn checks_come_in_tensorflows_order_and_words() {
        let declared = Shape::new(vec![Some(3), Some(2)]);
        let (i, v) = rows(&[0, 3], 2, 0.0);
        let e = validate(&declared, &grad(&i, &v), None).unwrap_err();
        assert_eq!(
            e.message(),
            "Shape mismatch: index of slice 1 exceeded limits of shape; index is 3 exceeded 3"
        );
        let (i, v) = rows(&[0], 3, 0.0);
        let e = validate(&declared, &grad(&i, &v), None).unwrap_err();
        assert_eq!(
            e.message(),
            "Shape mismatch: expected values dim 1 to be 2, got 3"
        );
        let (i, _) = rows(&[0, 1], 2, 0.0);
        let (_, v) = rows(&[0, 1, 2], 2, 0.0);
        let e = validate(&declared, &grad(&i, &v), None).unwrap_err();
        assert_eq!(e.message(), "Expected 2 non-empty input values, got 3");
        let dense = Tensor::from_vec(&[1], vec![3i64]).unwrap();
        let (i, v) = rows(&[0], 2, 0.0);
        let g = SparseGrad {
            indices: &i,
            values: &v,
            dense_shape: Some(&dense),
        };
        let e = validate(&declared, &g, None).unwrap_err();
        assert_eq!(
            e.message(),
            "Shape mismatch: expected shape rank at least 2, got 1"
        );
    }
}
