//! Tensors: n-dimensional arrays of one [`DType`], shared and cheap to clone.

use std::sync::Arc;

use smallvec::SmallVec;

use crate::{DType, ResourceHandle};

// Defined before the submodules so that they can use it too: a `macro_rules!` macro is only in
// scope after its definition.
/// Evaluates `$body` with `$a` bound to the array of whichever variant `$data` holds.
macro_rules! each_variant {
    ($data:expr, $a:ident => $body:expr) => {
        match $data {
            Data::F32($a) => $body,
            Data::F64($a) => $body,
            Data::I8($a) => $body,
            Data::I16($a) => $body,
            Data::I32($a) => $body,
            Data::I64($a) => $body,
            Data::U8($a) => $body,
            Data::U16($a) => $body,
            Data::U32($a) => $body,
            Data::U64($a) => $body,
            Data::F16($a) => $body,
            Data::BF16($a) => $body,
            Data::C64($a) => $body,
            Data::C128($a) => $body,
            Data::Bool($a) => $body,
            Data::String($a) => $body,
            Data::Resource($a) => $body,
        }
    };
}

mod access;
mod construct;
mod display;
mod element;
mod half_float;
mod le_bytes;
mod slicing;
mod sparse;
mod summarize;

pub use element::{Buf, Data, TensorType};
pub use half_float::HalfFloat;
pub use le_bytes::LeBytes;
pub use sparse::SparseTensor;

/// The shape of a tensor: up to four dimensions are kept inline.
type Dims = SmallVec<[usize; 4]>;

struct Inner {
    shape: Dims,
    data: Data,
}

/// An n-dimensional array of one dtype: TensorFlow's `Tensor` value (what `sess.run` returns).
///
/// A tensor is one pointer to shared, immutable storage, so cloning or moving it never copies
/// elements, and the executor moves values between steps for the price of a word. Elements are
/// row-major; strings are [`Bytes`](bytes::Bytes), so they too share their buffers. Writing through
/// [`as_slice_mut`](Tensor::as_slice_mut) copies the elements first when anyone else holds them.
#[derive(Clone)]
pub struct Tensor(Arc<Inner>);

thread_local! {
    // Per thread, so the kernels of two runner threads never contend on one reference count.
    static EMPTY: Tensor = Tensor::from(Vec::<f32>::new());
}

impl Tensor {
    fn new<T: TensorType>(shape: &[usize], buf: Buf<T>) -> Tensor {
        Tensor(Arc::new(Inner {
            shape: Dims::from_slice(shape),
            data: T::wrap(buf),
        }))
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        match &self.0.data {
            Data::F32(_) => DType::F32,
            Data::F64(_) => DType::F64,
            Data::I8(_) => DType::I8,
            Data::I16(_) => DType::I16,
            Data::I32(_) => DType::I32,
            Data::I64(_) => DType::I64,
            Data::U8(_) => DType::U8,
            Data::U16(_) => DType::U16,
            Data::U32(_) => DType::U32,
            Data::U64(_) => DType::U64,
            Data::F16(_) => DType::F16,
            Data::BF16(_) => DType::BF16,
            Data::C64(_) => DType::C64,
            Data::C128(_) => DType::C128,
            Data::Bool(_) => DType::Bool,
            Data::String(_) => DType::String,
            Data::Resource(_) => DType::Resource,
        }
    }

    /// The run-time shape.
    pub fn shape(&self) -> &[usize] {
        &self.0.shape
    }

    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.0.shape.len()
    }

    /// The number of elements.
    pub fn num_elements(&self) -> usize {
        self.0.shape.iter().product()
    }

    /// The elements, or None for another dtype.
    fn slice_of<T: TensorType>(&self) -> Option<&[T]> {
        match T::unwrap_ref(&self.0.data)? {
            Buf::Owned(v) => Some(v),
            Buf::One(x) => Some(std::slice::from_ref(x)),
            Buf::View { base, start } => {
                let n = self.num_elements();
                base.slice_of::<T>().map(|s| &s[*start..*start + n])
            }
        }
    }

    /// Whether no other tensor shares these elements, so writing to them will not copy.
    pub fn is_unique(&self) -> bool {
        Arc::strong_count(&self.0) == 1
            && Arc::weak_count(&self.0) == 0
            && !each_variant!(&self.0.data, b => matches!(b, Buf::View { .. }))
    }
}

impl PartialEq for Tensor {
    fn eq(&self, other: &Tensor) -> bool {
        if self.dtype() != other.dtype() || self.shape() != other.shape() {
            return false;
        }
        match self.dtype() {
            DType::Resource => {
                self.slice_of::<ResourceHandle>() == other.slice_of::<ResourceHandle>()
            }
            d => crate::match_data_dtype!(d, T => self.slice_of::<T>() == other.slice_of::<T>(),
                _ => false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clone_shares_data() {
        let t = Tensor::from(vec![1i64, 2, 3]);
        let u = t.clone();
        assert_eq!(
            t.as_slice::<i64>().unwrap().as_ptr(),
            u.as_slice::<i64>().unwrap().as_ptr()
        );
    }
}
