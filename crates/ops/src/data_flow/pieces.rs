//! Moving rows between tensors: the batches a dequeue_many assembles from stored pieces (with
//! padding for PaddingFIFOQueue), and the shape checks every enqueue makes.

use ndarray::{ArrayD, IxDyn, Slice};
use weir_graph::{format_dims, match_data_dtype, DType, Error, Result, Shape, Tensor, TensorType};

use super::slots::{BatchParts, RowRef, RowSlots, SlotBatch};

/// Rows taken out of a queue by an unfinished dequeue_many: per component, a list of tensors
/// whose dimension 0 counts rows (zero-copy views of what was enqueued), or rows still in the
/// queue's slots.
#[derive(Default)]
pub(crate) struct Pieces {
    /// `comps[c][p]`: piece `p` of component `c` (a placeholder for a piece in `slots`).
    pub comps: Vec<Vec<Tensor>>,
    /// Rows of each piece.
    pub rows: Vec<usize>,
    /// The pieces whose rows are still in a queue's slots, by piece index; copied out by
    /// [`resolve_slots`](Self::resolve_slots).
    slots: Vec<(usize, SlotBatch)>,
    /// Rows held in all: the sum of `rows`.
    pub total: usize,
}

/// One piece of [`Pieces`], in order.
pub(crate) enum Part {
    /// Tensors whose dimension 0 holds the piece's rows.
    Rows(Vec<Tensor>, usize),
    /// Rows still in the queue's slots.
    Slots(SlotBatch),
}

impl Pieces {
    pub(crate) fn new(num_components: usize) -> Pieces {
        Pieces {
            comps: vec![Vec::new(); num_components],
            rows: Vec::new(),
            slots: Vec::new(),
            total: 0,
        }
    }

    /// Appends one piece of `rows` rows (`parts[c]` has dimension 0 equal to `rows`).
    pub(crate) fn push(&mut self, parts: impl IntoIterator<Item = Tensor>, rows: usize) {
        for (c, t) in parts.into_iter().enumerate() {
            self.comps[c].push(t);
        }
        self.rows.push(rows);
        self.total += rows;
    }

    /// Appends `ids`, rows taken from the queue's `slots`; right after other slot rows they
    /// join the same piece, so rows taken one at a time are still copied out in one go.
    pub(crate) fn push_slots(&mut self, slots: &RowSlots, ids: impl ExactSizeIterator<Item = u32>) {
        self.push_rows(slots, ids.map(RowRef::Slot), Vec::new());
    }

    /// Appends `rows` taken from the queue's `slots` or from the batches `views` (which their
    /// view parts index), joining a slot piece right before them as [`push_slots`] does.
    ///
    /// [`push_slots`]: Self::push_slots
    pub(crate) fn push_rows(
        &mut self,
        slots: &RowSlots,
        rows: impl ExactSizeIterator<Item = RowRef>,
        views: Vec<BatchParts>,
    ) {
        let n = rows.len();
        self.total += n;
        if let Some((p, last)) = self.slots.last_mut() {
            if *p + 1 == self.rows.len() {
                slots.extend_batch_rows(last, rows, views);
                self.rows[*p] += n;
                return;
            }
        }
        for c in &mut self.comps {
            c.push(Tensor::empty_placeholder());
        }
        let mut b = slots.batch([]);
        slots.extend_batch_rows(&mut b, rows, views);
        self.slots.push((self.rows.len(), b));
        self.rows.push(n);
    }

    /// Copies the rows held in slots into their pieces (one tensor per component each) and
    /// gives the slots back. Called without the queue's lock.
    pub(crate) fn resolve_slots(&mut self) -> Result<()> {
        for (p, b) in self.slots.drain(..) {
            for (c, t) in b.gather()?.into_iter().enumerate() {
                self.comps[c][p] = t;
            }
        }
        Ok(())
    }

    /// The pieces in order, for a queue to take its rows back.
    pub(crate) fn into_parts(self) -> Vec<Part> {
        let Pieces {
            comps, rows, slots, ..
        } = self;
        let n = rows.len();
        let mut per_piece: Vec<Vec<Tensor>> =
            (0..n).map(|_| Vec::with_capacity(comps.len())).collect();
        for comp in comps {
            for (p, t) in comp.into_iter().enumerate() {
                per_piece[p].push(t);
            }
        }
        let mut slots = slots.into_iter().peekable();
        per_piece
            .into_iter()
            .zip(rows)
            .enumerate()
            .map(|(p, (parts, r))| match slots.next_if(|(sp, _)| *sp == p) {
                Some((_, b)) => Part::Slots(b),
                None => Part::Rows(parts, r),
            })
            .collect()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Takes everything out, leaving this empty.
    pub(crate) fn take(&mut self) -> Pieces {
        let n = self.comps.len();
        std::mem::replace(self, Pieces::new(n))
    }

    /// Concatenates the pieces of each component along dimension 0: one allocation per
    /// component. `elem_shapes[c]` is the element shape (used when there are no pieces).
    pub(crate) fn concat(
        &self,
        dtypes: &[DType],
        elem_shapes: &[Vec<usize>],
    ) -> Result<Vec<Tensor>> {
        (0..dtypes.len())
            .map(|c| {
                let mut shape = Vec::with_capacity(elem_shapes[c].len() + 1);
                shape.push(self.total);
                shape.extend_from_slice(&elem_shapes[c]);
                concat_rows(dtypes[c], &self.comps[c], &shape)
            })
            .collect()
    }

    /// Like [`concat`](Self::concat), but each unknown dimension of `partial[c]` becomes the
    /// largest over the batch and shorter elements are padded with zeros (`""` for strings).
    pub(crate) fn concat_padded(&self, dtypes: &[DType], partial: &[Shape]) -> Result<Vec<Tensor>> {
        (0..dtypes.len())
            .map(|c| {
                let dims = partial[c].dims().unwrap_or(&[]);
                let mut out_elem: Vec<usize> = dims.iter().map(|d| d.unwrap_or(0)).collect();
                for p in &self.comps[c] {
                    for (j, d) in dims.iter().enumerate() {
                        if d.is_none() {
                            out_elem[j] = out_elem[j].max(p.shape()[j + 1]);
                        }
                    }
                }
                let mut shape = vec![self.total];
                shape.extend_from_slice(&out_elem);
                if partial[c].is_fully_defined() {
                    concat_rows(dtypes[c], &self.comps[c], &shape)
                } else {
                    pad_rows(dtypes[c], &self.comps[c], &shape)
                }
            })
            .collect()
    }
}

/// Copies the rows of `parts` one after the other into a new tensor of `shape`; a single part
/// that is already the whole batch is returned as is (shared, not copied).
pub(crate) fn concat_rows(dtype: DType, parts: &[Tensor], shape: &[usize]) -> Result<Tensor> {
    if let [only] = parts {
        if only.shape() == shape && only.dtype() == dtype {
            return Ok(only.clone());
        }
    }
    fn go<T: TensorType>(parts: &[Tensor], shape: &[usize]) -> Result<Tensor> {
        let n: usize = shape.iter().product();
        let mut out: Vec<T> = Vec::with_capacity(n);
        for p in parts {
            out.extend_from_slice(p.as_slice::<T>()?);
        }
        if out.len() != n {
            return Err(Error::internal(format!(
                "Cannot assemble a batch of shape {} from {} values",
                format_dims(shape),
                out.len()
            )));
        }
        Tensor::from_vec(shape, out)
    }
    match_data_dtype!(dtype, T => go::<T>(parts, shape),
        _ => Err(Error::unimplemented(format!("Queues cannot batch {dtype} tensors"))))
}

/// Copies each piece into the leading corner of its rows of a zero-filled tensor of `shape`.
fn pad_rows(dtype: DType, parts: &[Tensor], shape: &[usize]) -> Result<Tensor> {
    fn go<T: TensorType>(parts: &[Tensor], shape: &[usize]) -> Result<Tensor> {
        let mut out = ArrayD::<T>::from_elem(IxDyn(shape), T::zero());
        let mut row = 0;
        for p in parts {
            let rows = p.shape()[0];
            if p.num_elements() > 0 {
                let mut view = out.view_mut();
                view.slice_axis_inplace(ndarray::Axis(0), Slice::from(row..row + rows));
                for (ax, &d) in p.shape().iter().enumerate().skip(1) {
                    view.slice_axis_inplace(ndarray::Axis(ax), Slice::from(0..d));
                }
                view.assign(&p.view::<T>()?);
            }
            row += rows;
        }
        Ok(Tensor::from_array(out))
    }
    match_data_dtype!(dtype, T => go::<T>(parts, shape),
        _ => Err(Error::unimplemented(format!("Queues cannot batch {dtype} tensors"))))
}

/// An empty batch (`dequeue_many(0)`): dimension 0 is 0, unknown dimensions are 0.
pub(crate) fn empty_batch(dtype: DType, elem: &Shape) -> Result<Tensor> {
    let mut shape = vec![0];
    shape.extend(elem.dims().unwrap_or(&[]).iter().map(|d| d.unwrap_or(0)));
    Tensor::zeros(dtype, &shape)
}

/// TensorFlow's `TensorShape::DebugString` of a partial shape: `[?,2]`, `<unknown>`.
pub(crate) fn shape_str(s: &Shape) -> String {
    s.to_string()
}

/// Checks the tuple of one `enqueue`: count, dtypes, and shapes (exact for fixed shapes,
/// compatible for partial ones), in TensorFlow's words.
pub(crate) fn validate_tuple(tuple: &[Tensor], dtypes: &[DType], shapes: &[Shape]) -> Result<()> {
    validate_common(tuple, dtypes)?;
    for (i, (t, s)) in tuple.iter().zip(shapes).enumerate() {
        if !s.is_compatible_with_dims(t.shape()) {
            return Err(Error::invalid_argument(format!(
                "Shape mismatch in tuple component {i}. Expected {}, got {}",
                shape_str(s),
                format_dims(t.shape())
            )));
        }
    }
    Ok(())
}

/// Checks the tuple of one `enqueue_many` and returns its batch size.
pub(crate) fn validate_many_tuple(
    tuple: &[Tensor],
    dtypes: &[DType],
    shapes: &[Shape],
) -> Result<usize> {
    validate_common(tuple, dtypes)?;
    let batch = tuple.first().and_then(|t| t.shape().first().copied());
    if shapes.is_empty() {
        let Some(batch) = batch else {
            return Err(Error::invalid_argument(
                "Shape mismatch in tuple component 0. Expected [?], got []",
            ));
        };
        for (i, t) in tuple.iter().enumerate().skip(1) {
            let d = t.shape().first().copied();
            if d != Some(batch) {
                return Err(Error::invalid_argument(format!(
                    "All input tensors must have the same size in the 0th dimension. Component {i} has {}, and should have {batch}",
                    d.map_or_else(|| "no 0th dimension".to_string(), |d| d.to_string())
                )));
            }
        }
        return Ok(batch);
    }
    for (i, (t, s)) in tuple.iter().zip(shapes).enumerate() {
        let expected = s.with_leading(batch);
        if t.rank() == 0 || !expected.is_compatible_with_dims(t.shape()) {
            return Err(Error::invalid_argument(format!(
                "Shape mismatch in tuple component {i}. Expected {}, got {}",
                shape_str(&expected),
                format_dims(t.shape())
            )));
        }
    }
    Ok(batch.unwrap_or(0))
}

fn validate_common(tuple: &[Tensor], dtypes: &[DType]) -> Result<()> {
    if tuple.len() != dtypes.len() {
        return Err(Error::invalid_argument(format!(
            "Wrong number of components in tuple. Expected {}, got {}",
            dtypes.len(),
            tuple.len()
        )));
    }
    for (i, (t, &d)) in tuple.iter().zip(dtypes).enumerate() {
        if t.dtype() != d {
            return Err(Error::invalid_argument(format!(
                "Type mismatch in tuple component {i}. Expected {d}, got {}",
                t.dtype()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use weir_graph::Bytes;

    #[test]
    fn concat_copies_rows_in_order() {
        let a = Tensor::from_vec(&[2, 2], vec![1i64, 2, 3, 4]).unwrap();
        let b = Tensor::from_vec(&[1, 2], vec![5i64, 6]).unwrap();
        let mut p = Pieces::new(1);
        p.push([a], 2);
        p.push([b], 1);
        let out = p.concat(&[DType::I64], &[vec![2]]).unwrap();
        assert_eq!(out[0].shape(), &[3, 2]);
        assert_eq!(out[0].to_vec::<i64>().unwrap(), vec![1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn padded_concat_pads_to_batch_max() {
        let mut p = Pieces::new(2);
        let s = |v: &[&str]| Tensor::from_strings(v);
        p.push(
            [
                Tensor::from_vec(&[1, 3], vec![1i32, 2, 3]).unwrap(),
                s(&["a", "b"]).reshape(&[1, 1, 2]).unwrap(),
            ],
            1,
        );
        p.push(
            [
                Tensor::from_vec(&[1, 1], vec![4i32]).unwrap(),
                s(&["c", "d", "e", "f"]).reshape(&[1, 2, 2]).unwrap(),
            ],
            1,
        );
        let shapes = [Shape::new(vec![None]), Shape::new(vec![None, Some(2)])];
        let out = p
            .concat_padded(&[DType::I32, DType::String], &shapes)
            .unwrap();
        assert_eq!(out[0].shape(), &[2, 3]);
        assert_eq!(out[0].to_vec::<i32>().unwrap(), vec![1, 2, 3, 4, 0, 0]);
        assert_eq!(out[1].shape(), &[2, 2, 2]);
        assert_eq!(
            out[1].to_strings().unwrap(),
            vec!["a", "b", "", "", "c", "d", "e", "f"]
        );
        let _ = Bytes::new();
    }

    #[test]
    fn validation_messages() {
        let t = [Tensor::from(vec![1i32, 2])];
        let e = validate_tuple(&t, &[DType::I32], &[Shape::scalar()]).unwrap_err();
        assert_eq!(
            e.message(),
            "Shape mismatch in tuple component 0. Expected [], got [2]"
        );
        let e = validate_tuple(&t, &[DType::F32], &[]).unwrap_err();
        assert_eq!(
            e.message(),
            "Type mismatch in tuple component 0. Expected float, got int32"
        );
        let m = [Tensor::from_vec(&[1, 2], vec![1i32, 2]).unwrap()];
        let e = validate_many_tuple(&m, &[DType::I32], &[Shape::scalar()]).unwrap_err();
        assert_eq!(
            e.message(),
            "Shape mismatch in tuple component 0. Expected [1], got [1,2]"
        );
        let two = [Tensor::from(vec![1i32, 2]), Tensor::from(vec![1i32])];
        let e = validate_many_tuple(&two, &[DType::I32, DType::I32], &[]).unwrap_err();
        assert!(
            e.message()
                .starts_with("All input tensors must have the same size"),
            "{e}"
        );
        assert_eq!(
            empty_batch(DType::I64, &Shape::new(vec![None, Some(2)]))
                .unwrap()
                .shape(),
            &[0, 0, 2]
        );
    }
}
