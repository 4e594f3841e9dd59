//! Tensors: n-dimensional arrays of one [`DType`], shared and cheap to clone.

use std::fmt;

use std::sync::Arc;

use bytes::Bytes;
use ndarray::{ArcArray, Array, ArrayD, ArrayViewD, ArrayViewMutD, Dimension, IxDyn};
use smallvec::SmallVec;

use crate::shape::format_dims;
use crate::{DType, Error, ResourceHandle, Result};

mod sealed {
    pub trait Sealed {}
}

/// A Rust element type that maps to one [`DType`]: `f32`, `i64`, `bool`, [`Bytes`] (strings), ...
pub trait TensorType: sealed::Sealed + Clone + Send + Sync + 'static {
    /// The dtype of tensors holding this type.
    const DTYPE: DType;
    /// The value TensorFlow pads and zero-fills with (`0`, `false`, `""`).
    fn zero() -> Self;
    #[doc(hidden)]
    fn wrap(b: Buf<Self>) -> Data;
    #[doc(hidden)]
    fn unwrap_ref(d: &Data) -> Option<&Buf<Self>>;
    #[doc(hidden)]
    fn unwrap_mut(d: &mut Data) -> Option<&mut Buf<Self>>;
}

/// The elements of one tensor: its own buffer, a single inline value (scalars and other
/// one-element tensors cost no allocation besides the tensor's own), or a window into another
/// tensor's elements (reshapes and row slices).
#[doc(hidden)]
pub enum Buf<T> {
    Owned(Vec<T>),
    One(T),
    View { base: Tensor, start: usize },
}

/// The storage of a tensor, one variant per dtype.
#[doc(hidden)]
#[allow(missing_docs)]
pub enum Data {
    F32(Buf<f32>),
    F64(Buf<f64>),
    I8(Buf<i8>),
    I16(Buf<i16>),
    I32(Buf<i32>),
    I64(Buf<i64>),
    U8(Buf<u8>),
    U16(Buf<u16>),
    Bool(Buf<bool>),
    String(Buf<Bytes>),
    Resource(Buf<ResourceHandle>),
}

macro_rules! tensor_types {
    ($($ty:ty => $variant:ident, $zero:expr;)*) => {
        $(
            impl sealed::Sealed for $ty {}
            impl TensorType for $ty {
                const DTYPE: DType = DType::$variant;
                fn zero() -> Self {
                    $zero
                }
                fn wrap(b: Buf<Self>) -> Data {
                    Data::$variant(b)
                }
                fn unwrap_ref(d: &Data) -> Option<&Buf<Self>> {
                    match d {
                        Data::$variant(a) => Some(a),
                        _ => None,
                    }
                }
                fn unwrap_mut(d: &mut Data) -> Option<&mut Buf<Self>> {
                    match d {
                        Data::$variant(a) => Some(a),
                        _ => None,
                    }
                }
            }
            impl From<$ty> for Tensor {
                fn from(v: $ty) -> Tensor {
                    Tensor::scalar(v)
                }
            }
            impl From<Vec<$ty>> for Tensor {
                fn from(v: Vec<$ty>) -> Tensor {
                    let n = v.len();
                    Tensor::new(&[n], Buf::Owned(v))
                }
            }
            impl From<&[$ty]> for Tensor {
                fn from(v: &[$ty]) -> Tensor {
                    Tensor::from(v.to_vec())
                }
            }
            impl<const N: usize> From<[$ty; N]> for Tensor {
                fn from(v: [$ty; N]) -> Tensor {
                    Tensor::from(v.to_vec())
                }
            }
        )*
    };
}

tensor_types! {
    f32 => F32, 0.0;
    f64 => F64, 0.0;
    i8 => I8, 0;
    i16 => I16, 0;
    i32 => I32, 0;
    i64 => I64, 0;
    u8 => U8, 0;
    u16 => U16, 0;
    bool => Bool, false;
    Bytes => String, Bytes::new();
}

impl sealed::Sealed for ResourceHandle {}
impl TensorType for ResourceHandle {
    const DTYPE: DType = DType::Resource;
    fn zero() -> Self {
        ResourceHandle::empty()
    }
    fn wrap(b: Buf<Self>) -> Data {
        Data::Resource(b)
    }
    fn unwrap_ref(d: &Data) -> Option<&Buf<Self>> {
        match d {
            Data::Resource(a) => Some(a),
            _ => None,
        }
    }
    fn unwrap_mut(d: &mut Data) -> Option<&mut Buf<Self>> {
        match d {
            Data::Resource(a) => Some(a),
            _ => None,
        }
    }
}

/// Runs `$body` with `$T` bound to the Rust type of a real-number `$dtype` (all but bool, string
/// and resource); evaluates `$other` for the rest.
#[macro_export]
macro_rules! match_real_dtype {
    ($dtype:expr, $T:ident => $body:expr, _ => $other:expr) => {
        match $dtype {
            $crate::DType::F32 => {
                type $T = f32;
                $body
            }
            $crate::DType::F64 => {
                type $T = f64;
                $body
            }
            $crate::DType::I8 => {
                type $T = i8;
                $body
            }
            $crate::DType::I16 => {
                type $T = i16;
                $body
            }
            $crate::DType::I32 => {
                type $T = i32;
                $body
            }
            $crate::DType::I64 => {
                type $T = i64;
                $body
            }
            $crate::DType::U8 => {
                type $T = u8;
                $body
            }
            $crate::DType::U16 => {
                type $T = u16;
                $body
            }
            _ => $other,
        }
    };
}

/// Runs `$body` with `$T` bound to the Rust type of any data `$dtype` (numbers, bool and
/// [`Bytes`](bytes::Bytes) for strings); evaluates `$other` for resources.
#[macro_export]
macro_rules! match_data_dtype {
    ($dtype:expr, $T:ident => $body:expr, _ => $other:expr) => {
        match $dtype {
            $crate::DType::Bool => { type $T = bool; $body }
            $crate::DType::String => { type $T = $crate::Bytes; $body }
            other => $crate::match_real_dtype!(other, $T => $body, _ => $other),
        }
    };
}

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
            Data::Bool($a) => $body,
            Data::String($a) => $body,
            Data::Resource($a) => $body,
        }
    };
}

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
/// row-major; strings are [`Bytes`], so they too share their buffers. Writing through
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

    fn wrong_dtype<T: TensorType>(&self) -> Error {
        Error::invalid_argument(format!(
            "Tensor has dtype {} but {} was requested",
            self.dtype(),
            T::DTYPE
        ))
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

/// A string element printed the way Python prints bytes: `b'abc\n'`.
struct ByteStr<'a>(&'a [u8]);

impl fmt::Display for ByteStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("b'")?;
        for &c in self.0 {
            match c {
                b'\\' => f.write_str("\\\\")?,
                b'\'' => f.write_str("\\'")?,
                b'\n' => f.write_str("\\n")?,
                b'\r' => f.write_str("\\r")?,
                b'\t' => f.write_str("\\t")?,
                0x20..=0x7e => write!(f, "{}", c as char)?,
                _ => write!(f, "\\x{c:02x}")?,
            }
        }
        f.write_str("'")
    }
}

impl fmt::Display for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bad = |_| fmt::Error;
        match self.dtype() {
            DType::String => {
                let shown = self
                    .view::<Bytes>()
                    .map_err(bad)?
                    .map(|b| ByteStr(b).to_string());
                write!(f, "{shown}")
            }
            DType::Resource => {
                let shown = self
                    .view::<ResourceHandle>()
                    .map_err(bad)?
                    .map(|h| format!("<resource {}>", h.name()));
                write!(f, "{shown}")
            }
            d => crate::match_real_dtype!(d, T => write!(f, "{}", self.view::<T>().map_err(bad)?),
                _ => write!(f, "{}", self.view::<bool>().map_err(bad)?)),
        }
    }
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Tensor<{}, {}>({self})",
            self.dtype(),
            format_dims(self.shape())
        )
    }
}

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
    use ndarray::array;

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
    fn from_vec_checks_size() {
        assert!(Tensor::from_vec(&[2, 3], vec![1i32; 5])
            .unwrap_err()
            .is_invalid_argument());
    }

    #[test]
    fn clone_shares_data() {
        let t = Tensor::from(vec![1i64, 2, 3]);
        let u = t.clone();
        assert_eq!(
            t.as_slice::<i64>().unwrap().as_ptr(),
            u.as_slice::<i64>().unwrap().as_ptr()
        );
    }

    #[test]
    fn mutation_copies_shared_data_only() {
        let t = Tensor::from(vec![1i64, 2, 3]);
        let mut u = t.clone();
        u.as_slice_mut::<i64>().unwrap()[0] = 9;
        assert_eq!(t.to_vec::<i64>().unwrap(), vec![1, 2, 3]);
        assert_eq!(u.to_vec::<i64>().unwrap(), vec![9, 2, 3]);
    }

    #[test]
    fn non_standard_layout_is_normalized() {
        let a = array![[1, 2, 3], [4, 5, 6]];
        let t = Tensor::from(a.t().to_owned());
        assert_eq!(t.shape(), &[3, 2]);
        assert_eq!(t.as_slice::<i32>().unwrap(), &[1, 4, 2, 5, 3, 6]);
    }

    #[test]
    fn strings_and_display() {
        let t = Tensor::from(vec!["a", "b\n"]);
        assert_eq!(t.dtype(), DType::String);
        assert_eq!(t.to_strings().unwrap(), vec!["a", "b\n"]);
        assert_eq!(t.to_string(), "[b'a', b'b\\n']");
        assert_eq!(Tensor::from(3.5f32).to_string(), "3.5");
        assert_eq!(
            format!("{:?}", Tensor::from(vec![1i32, 2])),
            "Tensor<int32, [2]>([1, 2])"
        );
    }

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
