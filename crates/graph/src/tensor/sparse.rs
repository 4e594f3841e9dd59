//! Sparse tensors: coordinates, values and a dense shape, each an ordinary [`Tensor`].

use super::Tensor;
use crate::shape::format_dims;
use crate::{DType, Error, Result};

/// A sparse tensor: TensorFlow's `SparseTensor` (and the `SparseTensorValue` a run returns).
///
/// `indices` is int64 `[N, rank]`, `values` is `[N]` of any dtype, `dense_shape` is int64 `[rank]`.
#[derive(Clone, Debug, PartialEq)]
pub struct SparseTensor {
    /// int64 `[N, rank]`: the coordinates of each value.
    pub indices: Tensor,
    /// `[N]`: the values.
    pub values: Tensor,
    /// int64 `[rank]`: the shape of the dense tensor this represents.
    pub dense_shape: Tensor,
}

impl SparseTensor {
    /// A sparse tensor from its three parts; InvalidArgument if their shapes or dtypes disagree.
    pub fn new(indices: Tensor, values: Tensor, dense_shape: Tensor) -> Result<SparseTensor> {
        if indices.dtype() != DType::I64 || dense_shape.dtype() != DType::I64 {
            return Err(Error::invalid_argument(
                "SparseTensor indices and dense_shape must be int64",
            ));
        }
        let (is, vs, ds) = (indices.shape(), values.shape(), dense_shape.shape());
        if is.len() != 2 || vs.len() != 1 || ds.len() != 1 || is[0] != vs[0] || is[1] != ds[0] {
            return Err(Error::invalid_argument(format!(
                "Inconsistent SparseTensor shapes: indices {}, values {}, dense_shape {}",
                format_dims(is),
                format_dims(vs),
                format_dims(ds)
            )));
        }
        Ok(SparseTensor {
            indices,
            values,
            dense_shape,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_tensor_validates_parts() {
        let ok = SparseTensor::new(
            Tensor::from_vec(&[2, 1], vec![0i64, 3]).unwrap(),
            Tensor::from(vec![1.0f32, 2.0]),
            Tensor::from(vec![5i64]),
        );
        assert!(ok.is_ok());
        let bad = SparseTensor::new(
            Tensor::from_vec(&[2, 1], vec![0i64, 3]).unwrap(),
            Tensor::from(vec![1.0f32]),
            Tensor::from(vec![5i64]),
        );
        assert!(bad.unwrap_err().is_invalid_argument());
    }
}
