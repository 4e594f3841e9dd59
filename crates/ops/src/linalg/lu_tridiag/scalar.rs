//! The element types of `Lu`, `TridiagonalSolve` and `TridiagonalMatMul` (TensorFlow's float,
//! double, complex64 and complex128 kernels): field arithmetic plus the modulus Eigen pivots on.

use std::ops::{Add, Mul, Neg, Sub};

use num_traits::Float;
use weir_graph::{Complex, DType, TensorType};

/// A real or complex element with Eigen's `std::abs` (the modulus, `hypot` for complex).
pub(crate) trait Field:
    TensorType
    + Copy
    + PartialEq
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Neg<Output = Self>
{
    /// The real type of the modulus.
    type Real: Float;
    fn fzero() -> Self;
    fn fone() -> Self;
    /// `std::abs`: |x|, the complex modulus by `hypot`.
    fn modulus(self) -> Self::Real;
    /// `std::real`.
    fn re(self) -> Self::Real;
    fn from_real(r: Self::Real) -> Self;
    /// `std::numeric_limits<Scalar>::quiet_NaN()`: NaN for the reals, but `complex()` (zero)
    /// for `std::complex`, which `numeric_limits` does not specialise.
    fn limits_nan() -> Self;
    /// `self / d`: plain division for the reals; for complex numbers Smith's scaled
    /// algorithm, which (like the C runtime's complex division TensorFlow compiles to) stays
    /// finite where the textbook formula over- or underflows.
    fn quot(self, d: Self) -> Self;
    /// The complex conjugate (the value itself for the reals).
    fn conjugate(self) -> Self;
}

macro_rules! real {
    ($t:ty) => {
        impl Field for $t {
            type Real = $t;
            fn fzero() -> Self {
                0.0
            }
            fn fone() -> Self {
                1.0
            }
            fn modulus(self) -> $t {
                self.abs()
            }
            fn re(self) -> $t {
                self
            }
            fn from_real(r: $t) -> Self {
                r
            }
            fn limits_nan() -> Self {
                <$t>::NAN
            }
            fn quot(self, d: Self) -> Self {
                self / d
            }
            fn conjugate(self) -> Self {
                self
            }
        }
    };
}

macro_rules! complex {
    ($t:ty) => {
        impl Field for Complex<$t> {
            type Real = $t;
            fn fzero() -> Self {
                Complex::new(0.0, 0.0)
            }
            fn fone() -> Self {
                Complex::new(1.0, 0.0)
            }
            fn modulus(self) -> $t {
                self.re.hypot(self.im)
            }
            fn re(self) -> $t {
                self.re
            }
            fn from_real(r: $t) -> Self {
                Complex::new(r, 0.0)
            }
            fn limits_nan() -> Self {
                Complex::new(0.0, 0.0)
            }
            fn quot(self, d: Self) -> Self {
                let (a, b, c, e) = (self.re, self.im, d.re, d.im);
                if c.abs() >= e.abs() {
                    let r = e / c;
                    let den = c + e * r;
                    Complex::new((a + b * r) / den, (b - a * r) / den)
                } else {
                    let r = c / e;
                    let den = c * r + e;
                    Complex::new((a * r + b) / den, (b * r - a) / den)
                }
            }
            fn conjugate(self) -> Self {
                self.conj()
            }
        }
    };
}

real!(f32);
real!(f64);
complex!(f32);
complex!(f64);

/// The dtypes these ops' CPU kernels take.
pub(crate) const FIELDS: &[DType] = &[DType::F64, DType::F32, DType::C64, DType::C128];

/// Runs `$body` with `$T` the element type of `$dtype` (one of [`FIELDS`]).
macro_rules! with_field {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            weir_graph::DType::F32 => {
                type $T = f32;
                $body
            }
            weir_graph::DType::F64 => {
                type $T = f64;
                $body
            }
            weir_graph::DType::C64 => {
                type $T = weir_graph::Complex<f32>;
                $body
            }
            weir_graph::DType::C128 => {
                type $T = weir_graph::Complex<f64>;
                $body
            }
            other => Err(weir_graph::Error::invalid_argument(format!(
                "unsupported dtype {other}"
            ))),
        }
    };
}
pub(crate) use with_field;
