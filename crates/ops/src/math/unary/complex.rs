//! Complex (`complex64`, `complex128`) kernels of the elementwise unary ops, with the formulas
//! of the code TensorFlow's CPU kernels run: Eigen's vectorized complex `sign`, `sqrt`, `exp`,
//! `log` and division (which `Reciprocal`, `Log1p` and `Sigmoid` use), its scalar `rsqrt` and
//! `expm1`, and num-complex's functions where TensorFlow calls the C library's (`csin`, ...).
//!
//! TensorFlow runs with denormals flushed to zero: results whose parts are denormal are
//! flushed here too.

use num_traits::Float;
use weir_graph::{Complex, DType, Error, Result, Tensor, TensorType};

use crate::math::bcast::unary_update;

/// A complex unary function TensorFlow's kernels compute.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum CFn {
    Neg,
    Sign,
    Square,
    Sqrt,
    Rsqrt,
    Exp,
    Expm1,
    Log,
    Log1p,
    Sin,
    Cos,
    Tan,
    Sinh,
    Cosh,
    Tanh,
    Sigmoid,
    Reciprocal,
}

/// `f` applied to every element of the complex tensor `x`.
pub(crate) fn apply(f: CFn, x: Tensor) -> Result<Tensor> {
    match x.dtype() {
        DType::C64 => typed::<f32>(f, x),
        DType::C128 => typed::<f64>(f, x),
        dt => Err(Error::internal(format!("complex kernel of {f:?} for {dt}"))),
    }
}

fn typed<T: Float>(f: CFn, x: Tensor) -> Result<Tensor>
where
    Complex<T>: TensorType,
{
    match f {
        CFn::Neg => unary_update(x, |z: Complex<T>| -z),
        CFn::Sign => unary_update(x, |z| flushed(sign(z))),
        CFn::Square => unary_update(x, |z: Complex<T>| flushed(z * z)),
        CFn::Sqrt => unary_update(x, |z| flushed(sqrt(z))),
        CFn::Rsqrt => unary_update(x, |z| flushed(rsqrt(z))),
        CFn::Exp => unary_update(x, |z| flushed(exp(z))),
        CFn::Expm1 => unary_update(x, |z| flushed(expm1(z))),
        CFn::Log => unary_update(x, |z| flushed(log(z))),
        CFn::Log1p => unary_update(x, |z| flushed(log1p(z))),
        CFn::Sin => unary_update(x, |z: Complex<T>| z.sin()),
        CFn::Cos => unary_update(x, |z: Complex<T>| z.cos()),
        CFn::Tan => unary_update(x, |z: Complex<T>| z.tan()),
        CFn::Sinh => unary_update(x, |z: Complex<T>| z.sinh()),
        CFn::Cosh => unary_update(x, |z: Complex<T>| z.cosh()),
        CFn::Tanh => unary_update(x, |z: Complex<T>| z.tanh()),
        CFn::Sigmoid => unary_update(x, |z| flushed(sigmoid(z))),
        CFn::Reciprocal => unary_update(x, |z| flushed(div(c(T::one(), T::zero()), z))),
    }
}

fn c<T: Float>(re: T, im: T) -> Complex<T> {
    Complex::new(re, im)
}

fn two<T: Float>() -> T {
    T::one() + T::one()
}

/// `v`, or a zero of its sign where it is denormal (flush to zero).
fn flush<T: Float>(v: T) -> T {
    if v != T::zero() && v.abs() < T::min_positive_value() {
        T::zero() * v.signum()
    } else {
        v
    }
}

fn flushed<T: Float>(z: Complex<T>) -> Complex<T> {
    c(flush(z.re), flush(z.im))
}

/// x86's `max` as Eigen's packets call it: `a` when either is NaN.
fn pmax<T: Float>(a: T, b: T) -> T {
    if a.is_nan() || b.is_nan() || a >= b {
        a
    } else {
        b
    }
}

fn pmin<T: Float>(a: T, b: T) -> T {
    if a.is_nan() || b.is_nan() || a <= b {
        a
    } else {
        b
    }
}

/// One lane of Eigen's overflow-safe `|z|`: `max * sqrt(1 + (min / max)²)` over the lane's own
/// part `p` and the other part `q` (lanes differ only when a part is NaN).
fn lane_abs<T: Float>(p: T, q: T) -> (T, T) {
    let (max, min) = (pmax(p.abs(), q.abs()), pmin(p.abs(), q.abs()));
    let r = min / max;
    let l = if min == T::zero() {
        max
    } else {
        max * (T::one() + r * r).sqrt()
    };
    (l, max)
}

/// Eigen's vectorized complex `sign`: `z / |z|`, 0 at 0, each part over its own lane.
fn sign<T: Float>(z: Complex<T>) -> Complex<T> {
    let part = |p: T, q: T| {
        let (l, max) = lane_abs(p, q);
        if max == T::zero() {
            T::zero()
        } else {
            p / l
        }
    };
    c(part(z.re, z.im), part(z.im, z.re))
}

/// Eigen's vectorized `psqrt_complex`: `rho = sqrt((|x| + |z|) / 2)`, the other part
/// `y / 2rho`, mirrored for a negative real part, and C99's results at the infinities.
fn sqrt<T: Float>(z: Complex<T>) -> Complex<T> {
    let (x, y) = (z.re, z.im);
    let (zero, half) = (T::zero(), T::from(0.5).unwrap());
    let (l, _) = lane_abs(x, y);
    let rho = (half * (x.abs() + l)).sqrt();
    let (_, max_im) = lane_abs(y, x);
    let eta = if max_im == zero {
        zero
    } else {
        half * (y / rho)
    };
    let negative = x < zero;
    let mut r = if negative {
        c(eta.abs(), rho.copysign(y))
    } else {
        c(rho, eta)
    };
    if r.re.is_nan() || r.im.is_nan() {
        r = c(T::nan(), T::nan());
    }
    if y.is_infinite() {
        c(T::infinity(), y)
    } else if x.is_infinite() {
        let (a, b) = (x.abs(), y.abs() * zero);
        if negative {
            c(b, a)
        } else {
            c(a, b)
        }
    } else {
        r
    }
}

/// Eigen's scalar `complex_rsqrt`, the same construction for `1 / sqrt(z)` (its denominator
/// flushed like TensorFlow's: tiny inputs give TensorFlow's NaN and infinities).
fn rsqrt<T: Float>(z: Complex<T>) -> Complex<T> {
    let (x, y) = (z.re, z.im);
    let zero = T::zero();
    let abs_z = x.hypot(y);
    let w = (T::from(0.5).unwrap() * (x.abs() + abs_z)).sqrt();
    let woz = w / abs_z;
    let den = flush(two::<T>() * w * abs_z);
    if abs_z == zero {
        c(T::infinity(), T::nan())
    } else if x.is_infinite() || y.is_infinite() {
        c(zero, zero)
    } else if x == zero {
        c(woz, if y < zero { woz } else { -woz })
    } else if x > zero {
        c(woz, -y / den)
    } else {
        c(y.abs() / den, if y < zero { woz } else { -woz })
    }
}

/// Eigen's `phypot_complex`: `sqrt(x² + y²)` refined by one Newton step whose error term is
/// computed with fused multiply-adds (NaN where `x²` or `y²` overflows or underflows alone).
fn hypot<T: Float>(x: T, y: T) -> T {
    let (a, b) = (x.abs(), y.abs());
    if a == T::zero() && b == T::zero() {
        return T::zero();
    }
    let (a2, b2) = (flush(x * x), flush(y * y));
    let h = (a2 + b2).sqrt();
    let h_sq = h * h;
    let err = (h.mul_add(h, -h_sq) - b.mul_add(b, a2 - h_sq)) - a.mul_add(a, -a2);
    h - err / (two::<T>() * h)
}

/// Eigen's `plog_complex`: `(log|z|, atan2(y, x))`, with `+inf` for an infinite part.
fn log<T: Float>(z: Complex<T>) -> Complex<T> {
    let re = if z.re.is_infinite() || z.im.is_infinite() {
        T::infinity()
    } else {
        hypot(z.re, z.im).ln()
    };
    c(re, z.im.atan2(z.re))
}

/// Eigen's `pexp_complex`: `exp(x) cis(y)`, with C99's zeros at `x = -inf`, `(+-inf, NaN)` at
/// `x = +inf` with a non-finite `y`, and the real `exp(x)` where `y` is zero.
fn exp<T: Float>(z: Complex<T>) -> Complex<T> {
    let (x, y) = (z.re, z.im);
    let ex = x.exp();
    let (mut cr, mut ci) = (y.cos(), y.sin());
    if x == T::neg_infinity() {
        cr = T::one().copysign(cr);
        ci = T::one().copysign(ci);
    }
    if x == T::infinity() && (cr.is_nan() || ci.is_nan()) {
        // complex128 has no vectorized exp: the C library's `cexp` gives `(+inf, NaN)`.
        let f64_lanes = std::mem::size_of::<T>() == 8;
        cr = if f64_lanes {
            T::one()
        } else {
            T::one().copysign(y)
        };
        ci = T::zero();
    }
    if y == T::zero() {
        c(ex, y)
    } else {
        c(ex * cr, ex * ci)
    }
}

/// Eigen's `pdiv_complex`: `x / y` scaled by `max(|c|, |d|)` of `y = c + di`, per lane.
fn div<T: Float>(x: Complex<T>, y: Complex<T>) -> Complex<T> {
    let (mr, mi) = (pmax(y.re.abs(), y.im.abs()), pmax(y.im.abs(), y.re.abs()));
    let (cs, ds) = (y.re / mr, y.im / mi);
    let (den_r, den_i) = (cs * cs + ds * ds, ds * ds + cs * cs);
    let (a, b) = (x.re, x.im);
    let (nr, ni) = (-(b * -ds) + a * cs, b * cs + a * -ds);
    c(nr / den_r / mr, ni / den_i / mi)
}

/// Eigen's generic `log1p`: `x * log(1 + x) / ((1 + x) - 1)`, which cancels the rounding of
/// `1 + x`; `x` itself where `1 + x` rounds to 1 or equals its logarithm. Its logarithm is the
/// scalar one, `(log(hypot(x, y)), atan2(y, x))`, which does not overflow.
fn log1p<T: Float>(z: Complex<T>) -> Complex<T> {
    let one = c(T::one(), T::zero());
    // A real 1 added: the imaginary part keeps its sign (`-0` stays `-0`).
    let xp1 = c(T::one() + z.re, z.im);
    let l = c(xp1.re.hypot(xp1.im).ln(), xp1.im.atan2(xp1.re));
    if xp1 == one || xp1 == l {
        z
    } else if l.re == T::neg_infinity() {
        // C99's complex product `z * (-inf, NaN)` at `z = -1`: the infinity survives.
        c(T::neg_infinity(), T::nan())
    } else {
        z * div(l, xp1 - one)
    }
}

/// Eigen's scalar complex `expm1`: `(expm1(x) - 2 e^x sin²(y/2), e^x sin(y))`.
fn expm1<T: Float>(z: Complex<T>) -> Complex<T> {
    let (x, y) = (z.re, z.im);
    let erm1 = x.exp_m1();
    let er = erm1 + T::one();
    let s2 = (y / two::<T>()).sin();
    c(erm1 - two::<T>() * er * (s2 * s2), er * y.sin())
}

/// Eigen's generic `logistic`: `e / (1 + e)` for `e = exp(z)`, 1 where `e` overflows.
fn sigmoid<T: Float>(z: Complex<T>) -> Complex<T> {
    let one = c(T::one(), T::zero());
    let e = exp(z);
    if e.re.is_infinite() || e.im.is_infinite() {
        one
    } else {
        div(e, one + e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqrt_keeps_the_sign_of_a_zero_imaginary_part() {
        assert_eq!(sqrt(c(-4.0f64, -0.0)), c(0.0, -2.0));
        assert_eq!(sqrt(c(-4.0f64, 0.0)), c(0.0, 2.0));
        assert_eq!(
            sqrt(c(0.5f32, f32::INFINITY)),
            c(f32::INFINITY, f32::INFINITY)
        );
        let n = sqrt(c(0.5f32, f32::NAN));
        assert!(n.re.is_nan() && n.im.is_nan());
    }

    #[test]
    fn eigen_quirks_tensorflow_shows() {
        // phypot_complex's Newton step: NaN where y² alone overflows (TensorFlow's output).
        assert!(log(c(0.0f32, 1e30)).re.is_nan());
        assert_eq!(log(c(3.0f64, 4.0)).re, 5f64.ln());
        // The scaled division keeps 1 / (i * 1e-30) finite.
        assert_eq!(div(c(1.0f32, 0.0), c(0.0, 1e-30)), c(0.0, -1e30));
        // sign's lanes: the real one ignores the NaN imaginary part.
        let s = sign(c(1e-30f32, f32::NAN));
        assert!((s.re - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-7 && s.im.is_nan());
        assert_eq!(flushed(c(1e-40f32, -1e-40)), c(0.0, -0.0));
    }
}
