//! Arithmetic of the half and complex types with the semantics of TensorFlow's CPU kernels.
//!
//! `Eigen::half` and `Eigen::bfloat16` convert each operand to float, compute one operation
//! and round the result back (to nearest even), so a half op is "widen, compute, round", and an
//! expression of two operations (`floor(x / y)`) rounds twice.
//!
//! Complex division differs between Eigen's two code paths: elements evaluated in SIMD packets
//! use Eigen's `pdiv_complex` (both operands scaled by `max(|c|, |d|)`), while the few trailing
//! elements that do not fill a packet go through `std::complex`'s operator, Smith's algorithm.
//! [`ComplexArith::PACKET`] is the number of complex elements in one of TensorFlow's AVX packets
//! (4 complex64, 2 complex128), which fixes where the scalar tail starts.

use num_traits::Float;
use weir_graph::{bf16, f16, Complex, DType, HalfFloat, TensorType};

use super::binary::Arith;

/// Every real, half and complex type.
pub(crate) const ALL_NUMBERS: &[DType] = DType::NUMBER;

/// The real types and the halves (no complex).
pub(crate) const REAL_AND_HALF: &[DType] = DType::REAL_AND_HALF;

/// The float, half and complex types.
pub(crate) const FLOAT_COMPLEX: &[DType] = &[
    DType::F32,
    DType::F64,
    DType::F16,
    DType::BF16,
    DType::C64,
    DType::C128,
];

/// The half types compute in float and round each result back, as `Eigen::half` and
/// `Eigen::bfloat16` do.
macro_rules! half_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            fn div(a: Self, b: Self) -> Self { via(a, b, <f32 as Arith>::div) }
            // TensorFlow's `floor(x / y)` rounds the quotient to the half type before flooring.
            fn floordiv(a: Self, b: Self) -> Self {
                <$t>::from_f32(Self::div(a, b).to_f32().floor())
            }
            fn truncdiv(a: Self, b: Self) -> Self {
                <$t>::from_f32(Self::div(a, b).to_f32().trunc())
            }
            // `fmod` is exact, so only the final `r + y` rounds, as it does in float.
            fn floormod(a: Self, b: Self) -> Self { via(a, b, <f32 as Arith>::floormod) }
            fn truncmod(a: Self, b: Self) -> Self { via(a, b, <f32 as Arith>::truncmod) }
            fn pow(a: Self, b: Self) -> Self { via(a, b, <f32 as Arith>::pow) }
            fn add(a: Self, b: Self) -> Self { via(a, b, <f32 as Arith>::add) }
            fn sub(a: Self, b: Self) -> Self { via(a, b, <f32 as Arith>::sub) }
            fn mul(a: Self, b: Self) -> Self { via(a, b, <f32 as Arith>::mul) }
            // `std::max`/`std::min` after NaN checks, as Eigen's `PropagateNaN`: ties (-0 and 0)
            // give `a`.
            fn max(a: Self, b: Self) -> Self {
                if a.is_nan() { a } else if b.is_nan() || a < b { b } else { a }
            }
            fn min(a: Self, b: Self) -> Self {
                if a.is_nan() { a } else if b.is_nan() || b < a { b } else { a }
            }
            fn one() -> Self { <$t>::ONE }
            fn lowest() -> Self { <$t>::NEG_INFINITY }
            fn highest() -> Self { <$t>::INFINITY }
            const INTEGER: bool = false;
            fn is_negative(v: Self) -> bool { v.to_f32() < 0.0 }
            fn div_count(v: Self, n: usize) -> Self { <$t>::from_f32(v.to_f32() / n as f32) }
        }
    )*};
}
half_arith!(f16, bf16);

/// `f(a, b)` computed in float, rounded back to the half type `H`.
pub(crate) fn via<H: HalfFloat>(a: H, b: H, f: impl Fn(f32, f32) -> f32) -> H {
    H::from_f32(f(a.to_f32(), b.to_f32()))
}

/// Complex arithmetic as TensorFlow's CPU kernels compute it, for `Complex<f32>` and
/// `Complex<f64>`.
pub(crate) trait ComplexArith: TensorType + Copy + PartialEq + Default {
    /// The real component type.
    type Real: Float;
    /// Complex elements per SIMD packet in TensorFlow's build (AVX).
    const PACKET: usize;
    fn add(a: Self, b: Self) -> Self;
    fn sub(a: Self, b: Self) -> Self;
    fn mul(a: Self, b: Self) -> Self;
    /// Division in a packet (Eigen's `pdiv_complex`).
    fn div_packet(a: Self, b: Self) -> Self;
    /// Division of a lone element (`std::complex`'s Smith algorithm).
    fn div_scalar(a: Self, b: Self) -> Self;
    /// `std::pow(a, b)`: glibc's `cpow`, `cexp(b * clog(a))`.
    fn pow(a: Self, b: Self) -> Self;
    fn conj(a: Self) -> Self;
    fn one() -> Self;
    /// `a / n`, dividing both components (what dividing by `complex(n, 0)` gives).
    fn div_count(a: Self, n: usize) -> Self;
}

macro_rules! complex_arith {
    ($t:ty, $packet:expr, $wide:ty) => {
        impl ComplexArith for Complex<$t> {
            type Real = $t;
            const PACKET: usize = $packet;
            fn add(a: Self, b: Self) -> Self {
                Complex::new(a.re + b.re, a.im + b.im)
            }
            fn sub(a: Self, b: Self) -> Self {
                Complex::new(a.re - b.re, a.im - b.im)
            }
            fn mul(a: Self, b: Self) -> Self {
                Complex::new(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re)
            }
            fn div_packet(a: Self, b: Self) -> Self {
                let m = b.re.abs().max(b.im.abs());
                let (c, d) = (b.re / m, b.im / m);
                let denom = c * c + d * d;
                Complex::new(
                    (a.re * c + a.im * d) / denom / m,
                    (a.im * c - a.re * d) / denom / m,
                )
            }
            fn div_scalar(a: Self, b: Self) -> Self {
                let (c, d) = (b.re, b.im);
                let q = if c.abs() >= d.abs() {
                    let r = d / c;
                    let den = c + d * r;
                    Complex::new((a.re + a.im * r) / den, (a.im - a.re * r) / den)
                } else {
                    let r = c / d;
                    let den = c * r + d;
                    Complex::new((a.re * r + a.im) / den, (a.im * r - a.re) / den)
                };
                if !(q.re.is_nan() && q.im.is_nan()) {
                    return q;
                }
                // C99 Annex G, as libgcc's `__divsc3` recovers infinities and zeros.
                let inf = <$t>::INFINITY;
                let unit = |v: $t| (if v.is_infinite() { 1.0 } else { 0.0 } as $t).copysign(v);
                if c == 0.0 && d == 0.0 && !(a.re.is_nan() && a.im.is_nan()) {
                    let s = inf.copysign(c);
                    Complex::new(s * a.re, s * a.im)
                } else if (a.re.is_infinite() || a.im.is_infinite())
                    && c.is_finite()
                    && d.is_finite()
                {
                    let (x, y) = (unit(a.re), unit(a.im));
                    Complex::new(inf * (x * c + y * d), inf * (y * c - x * d))
                } else if (c.is_infinite() || d.is_infinite())
                    && a.re.is_finite()
                    && a.im.is_finite()
                {
                    let (c, d) = (unit(c), unit(d));
                    Complex::new(0.0 * (a.re * c + a.im * d), 0.0 * (a.im * c - a.re * d))
                } else {
                    q
                }
            }
            fn pow(a: Self, b: Self) -> Self {
                // clog: log|a| computed wide (glibc computes it to within an ulp), arg by atan2.
                let abs = (a.re as $wide).hypot(a.im as $wide);
                let l = Complex::new(abs.ln() as $t, a.im.atan2(a.re));
                let e = Self::mul(b, l);
                let r = e.re.exp();
                Complex::new(r * e.im.cos(), r * e.im.sin())
            }
            fn conj(a: Self) -> Self {
                Complex::new(a.re, -a.im)
            }
            fn one() -> Self {
                Complex::new(1.0, 0.0)
            }
            fn div_count(a: Self, n: usize) -> Self {
                let n = n as $t;
                Complex::new(a.re / n, a.im / n)
            }
        }
    };
}
complex_arith!(f32, 4, f64);
complex_arith!(f64, 2, f64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_floor_division_rounds_the_quotient_first() {
        // 2047.9 / 1 rounds to 2048 in half before flooring.
        let a = f16::from_f32(2047.9);
        assert_eq!(f16::floordiv(a, f16::ONE).to_f32(), 2048.0);
        assert_eq!(
            f16::truncdiv(f16::from_f32(-7.5), f16::from_f32(2.0)).to_f32(),
            -3.0
        );
    }

    #[test]
    fn complex_division_paths_agree_on_easy_values_and_scale_hard_ones() {
        let a = Complex::new(1.0f32, 2.0);
        let b = Complex::new(3.0f32, -4.0);
        let want = Complex::new(-0.2f32, 0.4);
        for q in [
            <Complex<f32>>::div_packet(a, b),
            <Complex<f32>>::div_scalar(a, b),
        ] {
            assert!((q - want).norm() < 1e-6, "{q}");
        }
        // The naive formula overflows on |b|^2; both of Eigen's paths scale.
        let big = Complex::new(1e30f32, 1e30);
        assert_eq!(<Complex<f32>>::div_packet(big, big), Complex::new(1.0, 0.0));
        assert_eq!(<Complex<f32>>::div_scalar(big, big), Complex::new(1.0, 0.0));
    }
}
