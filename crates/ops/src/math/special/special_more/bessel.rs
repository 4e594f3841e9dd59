//! The Bessel functions of `tf.math.special` as Eigen evaluates them (its ports of Cephes'
//! `i0`, `i1`, `k0`, `k1` Chebyshev series and `j0`, `j1`, `y0`, `y1` rational and
//! modulus/phase fits), generic over float32 and float64 where Eigen's two versions share
//! their algorithm and separate where its float32 version is Cephes' single-precision one.
//!
//! Each step follows Eigen's order of operations (`1/sqrt` rather than a division, the same
//! groupings) so that the roundings agree; TensorFlow's vectorized `exp`, `log`, `sin`, `cos`
//! are Eigen's own polynomial ones, weir's the C library's, which is where the results can
//! still differ by an ulp or two.

// Constants as Eigen writes them, so they round as its literals do.
#![allow(clippy::excessive_precision)]

use super::coef::*;
use super::Real;

/// Cephes' `chbevl`: the Chebyshev series `sum' c_i T_i(x/2)` by Clenshaw's recurrence.
pub(super) fn chebevl<T: Real>(x: T, coef: &[T]) -> T {
    let mut b0 = coef[0];
    let mut b1 = T::c(0.0);
    let mut b2 = b1;
    for &c in &coef[1..] {
        b2 = b1;
        b1 = b0;
        b0 = x.madd(b1, c) - b2;
    }
    T::c(0.5) * (b0 - b2)
}

/// Cephes' `polevl`: the polynomial with coefficients `coef` (highest power first) by Horner.
pub(super) fn polevl<T: Real>(x: T, coef: &[T]) -> T {
    coef[1..].iter().fold(coef[0], |acc, &c| acc.madd(x, c))
}

fn rsqrt<T: Real>(x: T) -> T {
    T::c(1.0) / x.sqrt()
}

/// The coefficient sets of one precision.
pub(super) struct Fits<T: 'static> {
    i0: (&'static [T], &'static [T]),
    i1: (&'static [T], &'static [T]),
    k0: (&'static [T], &'static [T]),
    k1: (&'static [T], &'static [T]),
}

pub(super) const F32: Fits<f32> = Fits {
    i0: (&I0_A_F32, &I0_B_F32),
    i1: (&I1_A_F32, &I1_B_F32),
    k0: (&K0_A_F32, &K0_B_F32),
    k1: (&K1_A_F32, &K1_B_F32),
};

pub(super) const F64: Fits<f64> = Fits {
    i0: (&I0_A_F64, &I0_B_F64),
    i1: (&I1_A_F64, &I1_B_F64),
    k0: (&K0_A_F64, &K0_B_F64),
    k1: (&K1_A_F64, &K1_B_F64),
};

/// `exp(-|x|) I0(x)`: one series on [0, 8], one in `32/x` beyond.
pub(super) fn i0e<T: Real>(f: &Fits<T>, x: T) -> T {
    let y = x.abs();
    if y <= T::c(8.0) {
        chebevl(T::c(0.5).madd(y, T::c(-2.0)), f.i0.0)
    } else {
        chebevl(T::c(32.0) / y - T::c(2.0), f.i0.1) * rsqrt(y)
    }
}

/// `exp(-|x|) I1(x)`, odd.
pub(super) fn i1e<T: Real>(f: &Fits<T>, x: T) -> T {
    let y = x.abs();
    let r = if y <= T::c(8.0) {
        y * chebevl(T::c(0.5).madd(y, T::c(-2.0)), f.i1.0)
    } else {
        chebevl(T::c(32.0) / y - T::c(2.0), f.i1.1) * rsqrt(y)
    };
    if x < T::c(0.0) {
        -r
    } else {
        r
    }
}

/// `I0(x) = exp(|x|) i0e(x)` (NaN at +-inf, as `inf * 0`).
pub(super) fn i0<T: Real>(f: &Fits<T>, x: T) -> T {
    x.abs().exp() * i0e(f, x)
}

/// `I1(x) = exp(|x|) i1e(x)`.
pub(super) fn i1<T: Real>(f: &Fits<T>, x: T) -> T {
    x.abs().exp() * i1e(f, x)
}

/// `K0` on (0, 2]: `chbevl(x² - 2) - log(x/2) I0(x)`.
fn k0_small<T: Real>(f: &Fits<T>, x: T) -> T {
    let s = chebevl(x.madd(x, T::c(-2.0)), f.k0.0);
    i0(f, x).madd(-(T::c(0.5) * x).ln(), s)
}

/// `exp(x) K1(x)`'s series part on (0, 2]: `chbevl(x² - 2)/x + log(x/2) I1(x)`.
fn k1_small<T: Real>(f: &Fits<T>, x: T) -> T {
    let s = chebevl(x.madd(x, T::c(-2.0)), f.k1.0) / x;
    i1(f, x).madd((T::c(0.5) * x).ln(), s)
}

/// The series in `8/x - 2` for x > 2.
fn k_large<T: Real>(coef: &[T], x: T) -> T {
    chebevl(T::c(8.0) / x - T::c(2.0), coef) * rsqrt(x)
}

/// `K0(x)`: +inf for x <= 0.
pub(super) fn k0<T: Real>(f: &Fits<T>, x: T) -> T {
    if x <= T::c(2.0) {
        if x <= T::c(0.0) {
            T::INFINITY
        } else {
            k0_small(f, x)
        }
    } else {
        (-x).exp() * chebevl(T::c(8.0) / x - T::c(2.0), f.k0.1) * rsqrt(x)
    }
}

/// `exp(x) K0(x)`: +inf for x <= 0.
pub(super) fn k0e<T: Real>(f: &Fits<T>, x: T) -> T {
    if x <= T::c(2.0) {
        if x <= T::c(0.0) {
            T::INFINITY
        } else {
            x.exp() * k0_small(f, x)
        }
    } else {
        k_large(f.k0.1, x)
    }
}

/// `K1(x)`: +inf for x <= 0.
pub(super) fn k1<T: Real>(f: &Fits<T>, x: T) -> T {
    if x <= T::c(2.0) {
        if x <= T::c(0.0) {
            T::INFINITY
        } else {
            k1_small(f, x)
        }
    } else {
        (-x).exp() * k_large(f.k1.1, x)
    }
}

/// `exp(x) K1(x)`: +inf for x <= 0.
pub(super) fn k1e<T: Real>(f: &Fits<T>, x: T) -> T {
    if x <= T::c(2.0) {
        if x <= T::c(0.0) {
            T::INFINITY
        } else {
            k1_small(f, x) * x.exp()
        }
    } else {
        k_large(f.k1.1, x)
    }
}

const NEG_PIO4_F32: f32 = -std::f32::consts::FRAC_PI_4;
const NEG_THPIO4_F32: f32 = -2.35619449019234492885;
const TWOOPI_F32: f32 = std::f32::consts::FRAC_2_PI;
const NEG_PIO4: f64 = -std::f64::consts::FRAC_PI_4;
const NEG_THPIO4: f64 = -2.35619449019234492885;
const SQ2OPI: f64 = 7.9788456080286535587989E-1;
const TWOOPI: f64 = std::f64::consts::FRAC_2_PI;

/// Cephes' float modulus/phase form for x > 2: `M(1/x)/sqrt(x) * trig(x + theta)`.
fn modulus_phase_f32(y: f32, mo: &[f32], ph: &[f32], shift: f32, sine: bool) -> f32 {
    let q = (1.0 / y).flush();
    let p = rsqrt(y) * polevl(q, mo);
    let phase = q.madd(polevl(q * q, ph), shift) + y;
    p * if sine { phase.sin() } else { phase.cos() }
}

/// The float64 asymptotic form for x > 5: `sqrt(2/(pi x)) (P cos(xn) - 5/x Q sin(xn))` (or
/// with sine and cosine swapped for Y).
fn asymptotic_f64(x: f64, pq: [&[f64]; 4], shift: f64, second_kind: bool) -> f64 {
    let s = 25.0 / (x * x);
    let p = polevl(s, pq[0]) / polevl(s, pq[1]);
    let q = polevl(s, pq[2]) / polevl(s, pq[3]);
    let xn = x + shift;
    let p = if second_kind {
        p.madd(xn.sin(), (5.0 / x) * (q * xn.cos()))
    } else {
        p.madd(xn.cos(), (-5.0 / x) * (q * xn.sin()))
    };
    p * (SQ2OPI * rsqrt(x))
}

/// float32 `J0`, even.
pub(super) fn j0_f32(x: f32) -> f32 {
    let y = x.abs();
    if y <= 2.0 {
        let z = y * y;
        if y < 1.0e-3 {
            z.madd(-0.25, 1.0)
        } else {
            (z - 5.78318596294678452118) * polevl(z, &J0_JP_F32)
        }
    } else {
        modulus_phase_f32(y, &J0_MO_F32, &J0_PH_F32, NEG_PIO4_F32, false)
    }
}

/// float64 `J0`, even.
pub(super) fn j0_f64(x: f64) -> f64 {
    let y = x.abs();
    let z = y * y;
    if y <= 5.0 {
        if y < 1.0e-5 {
            z.madd(-0.25, 1.0)
        } else {
            ((z - 5.78318596294678452118E0) * (z - 3.04712623436620863991E1))
                * (polevl(z, &J0_RP_F64) / polevl(z, &J0_RQ_F64))
        }
    } else {
        let pq = [&J0_PP_F64[..], &J0_PQ_F64, &J0_QP_F64, &J0_QQ_F64];
        asymptotic_f64(y, pq, NEG_PIO4, false)
    }
}

/// float32 `J1`, odd.
pub(super) fn j1_f32(x: f32) -> f32 {
    let y = x.abs();
    if y <= 2.0 {
        let z = y * y;
        (z - 1.46819706421238932572E1) * (x * polevl(z, &J1_JP_F32))
    } else {
        let r = modulus_phase_f32(y, &J1_MO1_F32, &J1_PH1_F32, NEG_THPIO4_F32, false);
        if x < 0.0 {
            -r
        } else {
            r
        }
    }
}

/// float64 `J1`, odd.
pub(super) fn j1_f64(x: f64) -> f64 {
    let y = x.abs();
    let z = y * y;
    if y <= 5.0 {
        let r = polevl(z, &J1_RP_F64) / polevl(z, &J1_RQ_F64);
        ((r * x) * (z - 1.46819706421238932572E1)) * (z - 4.92184563216946036703E1)
    } else {
        let pq = [&J1_PP_F64[..], &J1_PQ_F64, &J1_QP_F64, &J1_QQ_F64];
        let r = asymptotic_f64(y, pq, NEG_THPIO4, false);
        if x < 0.0 {
            -r
        } else {
            r
        }
    }
}

/// float32 `Y0`: -inf for x <= 0.
pub(super) fn y0_f32(x: f32) -> f32 {
    if x <= 2.0 {
        if x <= 0.0 {
            return f32::NEG_INFINITY;
        }
        let z = x * x;
        let log_part = TWOOPI_F32 * (x.ln() * j0_f32(x));
        (z - 0.43221455686510834878).madd(polevl(z, &Y0_YP_F32), log_part)
    } else {
        modulus_phase_f32(x, &J0_MO_F32, &J0_PH_F32, NEG_PIO4_F32, true)
    }
}

/// float64 `Y0`: -inf for x <= 0.
pub(super) fn y0_f64(x: f64) -> f64 {
    if x <= 5.0 {
        if x <= 0.0 {
            return f64::NEG_INFINITY;
        }
        let z = x * x;
        let r = polevl(z, &Y0_YP_F64) / polevl(z, &Y0_YQ_F64);
        (TWOOPI * x.ln()).madd(j0_f64(x), r)
    } else {
        let pq = [&J0_PP_F64[..], &J0_PQ_F64, &J0_QP_F64, &J0_QQ_F64];
        asymptotic_f64(x, pq, NEG_PIO4, true)
    }
}

/// float32 `Y1`: -inf for x < 0 (NaN at 0, where Eigen's `log(0) j1(0)` is `-inf * -0`).
pub(super) fn y1_f32(x: f32) -> f32 {
    if x <= 2.0 {
        if x < 0.0 {
            return f32::NEG_INFINITY;
        }
        let z = x * x;
        let r = (z - 4.66539330185668857532) * polevl(z, &Y1_YP_F32);
        r.madd(x, TWOOPI_F32 * j1_f32(x).madd(x.ln(), -1.0 / x))
    } else {
        modulus_phase_f32(x, &J1_MO1_F32, &J1_PH1_F32, NEG_THPIO4_F32, true)
    }
}

/// float64 `Y1`: -inf for x <= 0.
pub(super) fn y1_f64(x: f64) -> f64 {
    if x <= 5.0 {
        if x <= 0.0 {
            return f64::NEG_INFINITY;
        }
        let z = x * x;
        let r = polevl(z, &Y1_YP_F64) / polevl(z, &Y1_YQ_F64);
        r.madd(x, TWOOPI * j1_f64(x).madd(x.ln(), -1.0 / x))
    } else {
        let pq = [&J1_PP_F64[..], &J1_PQ_F64, &J1_QP_F64, &J1_QQ_F64];
        asymptotic_f64(x, pq, NEG_THPIO4, true)
    }
}
