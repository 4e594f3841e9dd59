//! Making tensors: from ndarray arrays, vectors, scalars, fills and strings.

use bytes::Bytes;
use ndarray::{ArcArray, Array, Dimension};

use super::{Buf, Tensor, TensorType, EMPTY};
use crate::shape::format_dims;
use crate::{DType, Error, ResourceHandle, Result};

impl Tensor {
    /// A tensor from an ndarray array of any dimension; the data is made row-major if it is not.
    pub fn from_array<T: TensorType, D: Dimension>(a: impl Into<ArcArray<T, D>>) -> Tensor {
        let a: ArcArray<T, D> = a.into();
        let shape = a.shape().to_vec();
        let n = a.len();
        let data: Vec<T> = if a.is_standard_layout() {
            // A uniquely held array gives its buffer up without a copy.
            let (mut v, offset) = a.into_owned().into_raw_vec_and_offset();
            let offset = offset.unwrap_or(0);
            if offset != 0 || v.len() != n {
                v.truncate(offset + n);
                v.drain(..offset);
            }
            v
        } else {
            a.iter().cloned().collect()
        };
        Tensor::new(&shape, Buf::Owned(data))
    }

    /// A tensor of `shape` from row-major `data`; InvalidArgument when the sizes differ.
    pub fn from_vec<T: TensorType>(shape: &[usize], data: Vec<T>) -> Result<Tensor> {
        let n: usize = shape.iter().product();
        if n != data.len() {
            return Err(Error::invalid_argument(format!(
                "Cannot make a tensor of shape {} from {} values",
                format_dims(shape),
                data.len()
            )));
        }
        Ok(Tensor::new(shape, Buf::Owned(data)))
    }

    /// A shared empty float tensor, to leave behind where a value was moved out: a clone of one
    /// per-thread tensor, so it costs a reference count, not an allocation.
    pub fn empty_placeholder() -> Tensor {
        EMPTY.with(Tensor::clone)
    }

    /// A copy with storage of its own (strings and resource handles are cloned), so that
    /// cloning the copy never touches the reference count that `self`'s clones share.
    pub fn deep_copy(&self) -> Tensor {
        fn copy<T: TensorType>(t: &Tensor) -> Tensor {
            match t.slice_of::<T>() {
                Some([v]) => Tensor::new(t.shape(), Buf::One(v.clone())),
                Some(s) => Tensor::new(t.shape(), Buf::Owned(s.to_vec())),
                None => t.clone(),
            }
        }
        crate::match_data_dtype!(self.dtype(), T => copy::<T>(self),
            _ => copy::<ResourceHandle>(self))
    }

    /// A rank-0 tensor; its value is stored inline (no buffer of its own).
    pub fn scalar<T: TensorType>(v: T) -> Tensor {
        Tensor::new(&[], Buf::One(v))
    }

    /// A tensor of `dtype` and `shape` filled with zeros (`false`, `""`).
    pub fn zeros(dtype: DType, shape: &[usize]) -> Result<Tensor> {
        crate::match_data_dtype!(dtype, T => Ok(Tensor::filled::<T>(shape, T::zero())),
            _ => Err(Error::invalid_argument("Cannot make a zero resource tensor")))
    }

    /// A tensor of `shape` with every element `v`.
    pub fn filled<T: TensorType>(shape: &[usize], v: T) -> Tensor {
        let n: usize = shape.iter().product();
        if n == 1 {
            Tensor::new(shape, Buf::One(v))
        } else {
            Tensor::new(shape, Buf::Owned(vec![v; n]))
        }
    }

    /// A 1-D string tensor from UTF-8 strings.
    pub fn from_strings<S: AsRef<str>>(strings: &[S]) -> Tensor {
        Tensor::from(
            strings
                .iter()
                .map(|s| Bytes::copy_from_slice(s.as_ref().as_bytes()))
                .collect::<Vec<_>>(),
        )
    }

    /// A 1-D string tensor from byte strings.
    pub fn from_byte_strings<S: AsRef<[u8]>>(strings: &[S]) -> Tensor {
        Tensor::from(
            strings
                .iter()
                .map(|s| Bytes::copy_from_slice(s.as_ref()))
                .collect::<Vec<_>>(),
        )
    }
}

impl<T: TensorType, D: Dimension> From<Array<T, D>> for Tensor {
    fn from(a: Array<T, D>) -> Tensor {
        Tensor::from_array(a)
    }
}

impl<T: TensorType, D: Dimension> From<ArcArray<T, D>> for Tensor {
    fn from(a: ArcArray<T, D>) -> Tensor {
        Tensor::from_array(a)
    }
}

impl From<&str> for Tensor {
    fn from(s: &str) -> Tensor {
        Tensor::scalar(Bytes::copy_from_slice(s.as_bytes()))
    }
}

impl From<String> for Tensor {
    fn from(s: String) -> Tensor {
        Tensor::scalar(Bytes::from(s))
    }
}

impl From<Vec<&str>> for Tensor {
    fn from(v: Vec<&str>) -> Tensor {
        Tensor::from_strings(&v)
    }
}

impl From<&[&str]> for Tensor {
    fn from(v: &[&str]) -> Tensor {
        Tensor::from_strings(v)
    }
}

impl<const N: usize> From<[&str; N]> for Tensor {
    fn from(v: [&str; N]) -> Tensor {
        Tensor::from_strings(&v)
    }
}

impl From<Vec<String>> for Tensor {
    fn from(v: Vec<String>) -> Tensor {
        Tensor::from(v.into_iter().map(Bytes::from).collect::<Vec<_>>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn from_vec_checks_size() {
        assert!(Tensor::from_vec(&[2, 3], vec![1i32; 5])
            .unwrap_err()
            .is_invalid_argument());
    }

    #[test]
    fn a_deep_copy_is_equal_and_shares_no_storage() {
        let tensors = [
            Tensor::scalar(0.5f32),
            Tensor::from_vec(&[2, 3], vec![1i64, 2, 3, 4, 5, 6]).unwrap(),
            Tensor::from_strings(&["a", "bc"]),
            Tensor::scalar(ResourceHandle::empty()),
            Tensor::from_vec(&[0, 4], Vec::<u8>::new()).unwrap(),
        ];
        for t in tensors {
            let c = t.deep_copy();
            assert!(c == t, "{c:?} != {t:?}");
            assert_eq!(c.shape(), t.shape());
            assert!(t.is_unique() && c.is_unique());
        }
    }

    #[test]
    fn non_standard_layout_is_normalized() {
        let a = array![[1, 2, 3], [4, 5, 6]];
        let t = Tensor::from(a.t().to_owned());
        assert_eq!(t.shape(), &[3, 2]);
        assert_eq!(t.as_slice::<i32>().unwrap(), &[1, 4, 2, 5, 3, 6]);
    }

    #[test]
    fn one_element_tensors_are_stored_inline() {
        let mut s = Tensor::scalar(2.5f64);
        assert_eq!(s.shape(), &[] as &[usize]);
        s.as_slice_mut::<f64>().unwrap()[0] = 3.5;
        assert_eq!(s.to_scalar::<f64>().unwrap(), 3.5);
        let f = Tensor::filled(&[1, 1], 7u8);
        assert_eq!(f.shape(), &[1, 1]);
        assert_eq!(f.reshape(&[1]).unwrap().to_vec::<u8>().unwrap(), vec![7]);
        assert_eq!(Tensor::filled(&[2, 0], 1i32).num_elements(), 0);
    }

    #[test]
    fn scalars_and_zeros() {
        assert_eq!(Tensor::from(7i64).to_scalar::<i64>().unwrap(), 7);
        let z = Tensor::zeros(DType::String, &[2]).unwrap();
        assert_eq!(z.to_strings().unwrap(), vec!["", ""]);
        assert!(Tensor::from(vec![1i32, 2]).to_scalar::<i32>().is_err());
    }
}
