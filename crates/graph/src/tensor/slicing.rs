//! Reshapes and row slices: new tensors over another tensor's elements, without copying.

use std::sync::Arc;

use super::{Buf, Data, Dims, Tensor, TensorType};
use crate::shape::format_dims;
use crate::{Error, Result};

impl Tensor {
    /// A tensor of `shape` over this one's elements from element `offset` on (no copy).
    fn window(&self, offset: usize, shape: &[usize]) -> Tensor {
        fn go<T: TensorType>(t: &Tensor, b: &Buf<T>, offset: usize, shape: &[usize]) -> Tensor {
            let (base, start) = match b {
                Buf::View { base, start } => (base.clone(), start + offset),
                _ => (t.clone(), offset),
            };
            Tensor::new::<T>(shape, Buf::View { base, start })
        }
        each_variant!(&self.0.data, b => go(self, b, offset, shape))
    }

    fn check_reshape(&self, shape: &[usize]) -> Result<()> {
        let n: usize = shape.iter().product();
        if n != self.num_elements() {
            return Err(Error::invalid_argument(format!(
                "Cannot reshape a tensor with {} elements to shape {} ({} elements)",
                self.num_elements(),
                format_dims(shape),
                n
            )));
        }
        Ok(())
    }

    /// The same data with another shape of the same size (no copy).
    pub fn reshape(&self, shape: &[usize]) -> Result<Tensor> {
        self.check_reshape(shape)?;
        if shape == self.shape() {
            return Ok(self.clone());
        }
        Ok(self.window(0, shape))
    }

    /// Like [`reshape`](Self::reshape), but a tensor held by no one else changes its shape in
    /// place, so a kernel that took its input can still write to it afterwards.
    pub fn into_reshaped(mut self, shape: &[usize]) -> Result<Tensor> {
        self.check_reshape(shape)?;
        match Arc::get_mut(&mut self.0) {
            Some(inner) => {
                inner.shape = Dims::from_slice(shape);
                Ok(self)
            }
            None => self.reshape(shape),
        }
    }

    /// Element `i` along dimension 0, sharing this tensor's data.
    pub fn index_axis0(&self, i: usize) -> Result<Tensor> {
        let rows = self.slice_axis0(i, i + 1)?;
        rows.into_reshaped(&self.shape()[1..])
    }

    /// Rows `start..end` along dimension 0, sharing this tensor's data.
    pub fn slice_axis0(&self, start: usize, end: usize) -> Result<Tensor> {
        let shape = self.shape();
        if shape.is_empty() || start > end || end > shape[0] {
            return Err(Error::invalid_argument(format!(
                "Cannot slice rows {start}..{end} of a tensor of shape {}",
                format_dims(shape)
            )));
        }
        if start == 0 && end == shape[0] {
            return Ok(self.clone());
        }
        let row: usize = shape[1..].iter().product();
        let mut dims = Dims::from_slice(shape);
        dims[0] = end - start;
        Ok(self.window(start * row, &dims))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reshape_and_slices_share_data() {
        let t = Tensor::from_vec(&[3, 2], (0..6).collect::<Vec<i32>>()).unwrap();
        let r = t.reshape(&[2, 3]).unwrap();
        assert_eq!(r.shape(), &[2, 3]);
        assert!(t.reshape(&[4]).is_err());
        let row = t.index_axis0(1).unwrap();
        assert_eq!(row.shape(), &[2]);
        assert_eq!(row.as_slice::<i32>().unwrap(), &[2, 3]);
        let rows = t.slice_axis0(1, 3).unwrap();
        assert_eq!(rows.as_slice::<i32>().unwrap(), &[2, 3, 4, 5]);
        assert!(t.slice_axis0(2, 4).is_err());
    }

    #[test]
    fn writing_through_a_view_copies_and_leaves_the_base() {
        let t = Tensor::from_vec(&[3, 2], (0..6).collect::<Vec<i32>>()).unwrap();
        let rows = t.slice_axis0(1, 3).unwrap();
        // A window of a window points at the first base, not at the window.
        let mut row = rows.index_axis0(1).unwrap();
        assert_eq!(row.as_slice::<i32>().unwrap(), &[4, 5]);
        assert!(!row.is_unique());
        row.as_slice_mut::<i32>().unwrap()[0] = 40;
        assert_eq!(row.as_slice::<i32>().unwrap(), &[40, 5]);
        assert!(row.is_unique());
        assert_eq!(t.as_slice::<i32>().unwrap(), &[0, 1, 2, 3, 4, 5]);
        assert_eq!(rows.as_slice::<i32>().unwrap(), &[2, 3, 4, 5]);
    }

    #[test]
    fn into_reshaped_keeps_a_unique_buffer() {
        let t = Tensor::from_vec(&[2, 3], (0..6).collect::<Vec<i64>>()).unwrap();
        let p = t.as_slice::<i64>().unwrap().as_ptr();
        assert!(t.is_unique());
        let mut r = t.into_reshaped(&[3, 2]).unwrap();
        assert!(r.is_unique());
        r.as_slice_mut::<i64>().unwrap()[5] = 50;
        assert_eq!(r.as_slice::<i64>().unwrap().as_ptr(), p);
        assert_eq!(r.shape(), &[3, 2]);
        // A shared tensor reshapes into a view instead.
        let s = r.clone();
        let v = s.into_reshaped(&[6]).unwrap();
        assert!(!v.is_unique());
        assert_eq!(v.as_slice::<i64>().unwrap()[5], 50);
    }
}
