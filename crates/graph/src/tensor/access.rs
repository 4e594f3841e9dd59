//! Reading and writing a tensor's elements as a Rust type: slices, ndarray views, scalars.
//! Writes copy shared elements first, so a tensor never changes under another holder.

use std::sync::Arc;

use bytes::Bytes;
use ndarray::{ArrayD, ArrayViewD, ArrayViewMutD, IxDyn};

use super::{Buf, Inner, Tensor, TensorType};
use crate::shape::format_dims;
use crate::{Error, Result};

impl Tensor {
    fn wrong_dtype<T: TensorType>(&self) -> Error {
        Error::invalid_argument(format!(
            "Tensor has dtype {} but {} was requested",
            self.dtype(),
            T::DTYPE
        ))
    }

    /// An owned copy as an ndarray array; InvalidArgument if `T` is not this tensor's dtype.
    pub fn to_array<T: TensorType>(&self) -> Result<ArrayD<T>> {
        Ok(self.view::<T>()?.to_owned())
    }

    /// A view of the elements.
    pub fn view<T: TensorType>(&self) -> Result<ArrayViewD<'_, T>> {
        let s = self.as_slice::<T>()?;
        ArrayViewD::from_shape(IxDyn(self.shape()), s).map_err(|e| Error::internal(e.to_string()))
    }

    /// The elements in row-major order.
    pub fn as_slice<T: TensorType>(&self) -> Result<&[T]> {
        self.slice_of::<T>().ok_or_else(|| self.wrong_dtype::<T>())
    }

    /// Mutable elements in row-major order; the data is copied first if it is shared.
    pub fn as_slice_mut<T: TensorType>(&mut self) -> Result<&mut [T]> {
        if T::unwrap_ref(&self.0.data).is_none() {
            return Err(self.wrong_dtype::<T>());
        }
        let in_place = Arc::get_mut(&mut self.0)
            .is_some_and(|i| !matches!(T::unwrap_ref(&i.data), Some(Buf::View { .. })));
        if !in_place {
            let elems = self.as_slice::<T>()?;
            let buf = match elems {
                [one] => Buf::One(one.clone()),
                _ => Buf::Owned(elems.to_vec()),
            };
            let shape = self.0.shape.clone();
            self.0 = Arc::new(Inner {
                shape,
                data: T::wrap(buf),
            });
        }
        let inner = Arc::get_mut(&mut self.0)
            .ok_or_else(|| Error::internal("a fresh tensor copy is shared"))?;
        match T::unwrap_mut(&mut inner.data) {
            Some(Buf::Owned(v)) => Ok(v),
            Some(Buf::One(x)) => Ok(std::slice::from_mut(x)),
            _ => Err(Error::internal("a fresh tensor copy is a view")),
        }
    }

    /// A mutable view; the data is copied first if it is shared.
    pub fn view_mut<T: TensorType>(&mut self) -> Result<ArrayViewMutD<'_, T>> {
        let shape = IxDyn(self.shape());
        let s = self.as_slice_mut::<T>()?;
        ArrayViewMutD::from_shape(shape, s).map_err(|e| Error::internal(e.to_string()))
    }

    /// The single value of a tensor with one element (any shape).
    pub fn to_scalar<T: TensorType>(&self) -> Result<T> {
        let s = self.as_slice::<T>()?;
        match s {
            [v] => Ok(v.clone()),
            _ => Err(Error::invalid_argument(format!(
                "Expected a tensor with one element, got shape {}",
                format_dims(self.shape())
            ))),
        }
    }

    /// The elements as a `Vec` (copied).
    pub fn to_vec<T: TensorType>(&self) -> Result<Vec<T>> {
        Ok(self.as_slice::<T>()?.to_vec())
    }

    /// The string elements decoded as UTF-8 (lossily), for tests and printing.
    pub fn to_strings(&self) -> Result<Vec<String>> {
        Ok(self
            .as_slice::<Bytes>()?
            .iter()
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DType;

    #[test]
    fn typed_views_check_dtype() {
        let t = Tensor::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
        assert_eq!(t.dtype(), DType::F32);
        assert_eq!(t.shape(), &[2, 2]);
        assert_eq!(t.as_slice::<f32>().unwrap(), &[1.0, 2.0, 3.0, 4.0]);
        let e = t.as_slice::<i64>().unwrap_err();
        assert!(e.is_invalid_argument(), "{e}");
        assert!(t.to_array::<i64>().is_err());
    }

    #[test]
    fn mutation_copies_shared_data_only() {
        let t = Tensor::from(vec![1i64, 2, 3]);
        let mut u = t.clone();
        u.as_slice_mut::<i64>().unwrap()[0] = 9;
        assert_eq!(t.to_vec::<i64>().unwrap(), vec![1, 2, 3]);
        assert_eq!(u.to_vec::<i64>().unwrap(), vec![9, 2, 3]);
    }
}
