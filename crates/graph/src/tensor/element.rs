//! The element types a tensor can hold and the per-dtype storage behind it, plus the macros
//! that turn a run-time [`DType`] back into a Rust type.

use bytes::Bytes;
use half::{bf16, f16};
use num_complex::Complex;

use super::Tensor;
use crate::{DType, ResourceHandle};

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
    U32(Buf<u32>),
    U64(Buf<u64>),
    F16(Buf<f16>),
    BF16(Buf<bf16>),
    C64(Buf<Complex<f32>>),
    C128(Buf<Complex<f64>>),
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
    u32 => U32, 0;
    u64 => U64, 0;
    f16 => F16, f16::ZERO;
    bf16 => BF16, bf16::ZERO;
    Complex<f32> => C64, Complex::new(0.0, 0.0);
    Complex<f64> => C128, Complex::new(0.0, 0.0);
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

/// Runs `$body` with `$T` bound to the Rust type of a real-number `$dtype` other than the half
/// types (all but `F16`, `BF16`, complex, bool, string and resource); evaluates `$other` for the
/// rest.
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
            $crate::DType::U32 => {
                type $T = u32;
                $body
            }
            $crate::DType::U64 => {
                type $T = u64;
                $body
            }
            _ => $other,
        }
    };
}

/// Runs `$body` with `$T` bound to the Rust type of a half `$dtype` (`F16`, `BF16`); evaluates
/// `$other` for the rest.
#[macro_export]
macro_rules! match_half_dtype {
    ($dtype:expr, $T:ident => $body:expr, _ => $other:expr) => {
        match $dtype {
            $crate::DType::F16 => {
                type $T = $crate::f16;
                $body
            }
            $crate::DType::BF16 => {
                type $T = $crate::bf16;
                $body
            }
            _ => $other,
        }
    };
}

/// Runs `$body` with `$T` bound to the Rust type of a complex `$dtype`; evaluates `$other` for
/// the rest.
#[macro_export]
macro_rules! match_complex_dtype {
    ($dtype:expr, $T:ident => $body:expr, _ => $other:expr) => {
        match $dtype {
            $crate::DType::C64 => {
                type $T = $crate::Complex<f32>;
                $body
            }
            $crate::DType::C128 => {
                type $T = $crate::Complex<f64>;
                $body
            }
            _ => $other,
        }
    };
}

/// Runs `$body` with `$T` bound to the Rust type of any data `$dtype` (numbers, complex, bool
/// and [`Bytes`](bytes::Bytes) for strings); evaluates `$other` for resources.
#[macro_export]
macro_rules! match_data_dtype {
    ($dtype:expr, $T:ident => $body:expr, _ => $other:expr) => {
        match $dtype {
            $crate::DType::Bool => { type $T = bool; $body }
            $crate::DType::String => { type $T = $crate::Bytes; $body }
            $crate::DType::C64 => { type $T = $crate::Complex<f32>; $body }
            $crate::DType::C128 => { type $T = $crate::Complex<f64>; $body }
            $crate::DType::F16 => { type $T = $crate::f16; $body }
            $crate::DType::BF16 => { type $T = $crate::bf16; $body }
            other => $crate::match_real_dtype!(other, $T => $body, _ => $other),
        }
    };
}
