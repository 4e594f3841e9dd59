//! The error function family in float64: `erf`, `erfc`, the normal quantile `ndtri` and
//! TensorFlow's `erfinv` (which it computes as `ndtri((x + 1) / 2) / sqrt(2)`).
//!
//! TensorFlow calls the C library's `erf`/`erfc` and Cephes' rational `ndtri`; these are
//! written from convergent series instead and agree with them to a few ulp: the power series
//! near 0 for erf, Taylor expansions about tabulated centres in the middle (where `1 - erf` would
//! cancel), and the continued fraction of the upper incomplete gamma function in the tail.

use std::f64::consts::{FRAC_2_SQRT_PI, PI, SQRT_2};

/// `exp(-x * x)` without the rounding error of `x * x`, which `exp` would magnify by `x²`.
pub(super) fn exp_neg_sq(x: f64) -> f64 {
    let p = x * x;
    let e = x.mul_add(x, -p);
    (-p).exp() * (1.0 - e)
}

/// `erfc` at `0.5 + k / 4` for k in 0..8 (rounded from 50-digit values).
const ERFC_CENTRES: [f64; 8] = [
    0.4795001221869535,
    0.28884436634648486,
    0.15729920705028513,
    0.07709987174354177,
    0.033894853524689274,
    0.013328328780817557,
    0.004677734981047266,
    0.0014627165866811518,
];

/// The Maclaurin series `2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1))`, for `|x| < 0.5`
/// where its terms fall by `x²` each.
fn erf_small(x: f64) -> f64 {
    let x2 = x * x;
    let mut pow = x;
    let mut sum = x;
    let mut n = 0.0;
    loop {
        n += 1.0;
        pow *= -x2 / n;
        let term = pow / (2.0 * n + 1.0);
        sum += term;
        if term.abs() <= sum.abs() * 1e-17 || n > 40.0 {
            return FRAC_2_SQRT_PI * sum;
        }
    }
}

/// `erfc(c + h)` from its Taylor series about a tabulated centre `c`: the n-th derivative of
/// erfc is `(-1)^n 2/sqrt(pi) H_{n-1}(c) exp(-c²)` with `H` the Hermite polynomials.
fn erfc_taylor(x: f64) -> f64 {
    let k = ((x - 0.5) * 4.0).round().clamp(0.0, 7.0);
    let c = 0.5 + k / 4.0;
    let h = x - c;
    // H_{-1} is not used; start from H_0 = 1, H_1 = 2c.
    let (mut h_prev, mut h_cur) = (1.0, 2.0 * c);
    let mut pow = -h; // (-h)^1 / 1!
    let mut sum = pow; // n = 1: (-1)^1 H_0 h / 1!
    let mut n = 1.0;
    loop {
        n += 1.0;
        pow *= -h / n;
        let term = h_cur * pow;
        sum += term;
        if term.abs() <= 1e-18 * sum.abs().max(1e-300) || n > 60.0 {
            break;
        }
        let next = 2.0 * c * h_cur - 2.0 * (n - 1.0) * h_prev;
        h_prev = h_cur;
        h_cur = next;
    }
    ERFC_CENTRES[k as usize] + FRAC_2_SQRT_PI * exp_neg_sq(c) * sum
}

/// `erfc(x)` for `x >= 2.375` from the continued fraction of `Gamma(1/2, x²)` (modified
/// Lentz), which converges in under 30 steps there.
fn erfc_tail(x: f64) -> f64 {
    let z = x * x;
    if z > 800.0 {
        return 0.0;
    }
    const TINY: f64 = 1e-300;
    let mut b = z + 0.5;
    let mut c = 1.0 / TINY;
    let mut d = 1.0 / b;
    let mut h = d;
    let mut i = 1.0;
    while i < 300.0 {
        let an = -i * (i - 0.5);
        b += 2.0;
        d = an * d + b;
        if d.abs() < TINY {
            d = TINY;
        }
        c = b + an / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let delta = d * c;
        h *= delta;
        if (delta - 1.0).abs() < 1e-17 {
            break;
        }
        i += 1.0;
    }
    exp_neg_sq(x) * (x / PI.sqrt()) * h
}

/// The error function (TensorFlow's `Erf`).
pub fn erf(x: f64) -> f64 {
    let a = x.abs();
    let r = if a.is_nan() {
        return x;
    } else if a < 0.5 {
        return erf_small(x);
    } else if a < 2.375 {
        // erfc <= 0.48 here, so 1 - erfc loses nothing.
        1.0 - erfc_taylor(a)
    } else if a < 6.0 {
        1.0 - erfc_tail(a)
    } else {
        1.0
    };
    r.copysign(x)
}

/// The complementary error function `1 - erf(x)`, accurate in the tail (TensorFlow's `Erfc`).
pub fn erfc(x: f64) -> f64 {
    if x.is_nan() {
        x
    } else if x < 0.375 {
        1.0 - erf(x)
    } else if x < 2.375 {
        erfc_taylor(x)
    } else {
        erfc_tail(x)
    }
}

/// The standard normal CDF below `x` minus `p` (or `p - 0.5` when `centred`), the residual
/// the quantile's Newton steps drive to zero without cancellation.
fn ndtr_residual(x: f64, target: f64, centred: bool) -> f64 {
    if centred {
        0.5 * erf(x / SQRT_2) - target
    } else {
        0.5 * erfc(-x / SQRT_2) - target
    }
}

/// The inverse of the standard normal CDF (TensorFlow's `Ndtri`): -inf at 0, inf at 1, NaN
/// outside [0, 1].
pub fn ndtri(p: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    if p > 0.75 {
        // 1 - p is exact for p in [0.5, 1].
        return -ndtri(1.0 - p);
    }
    // Near the median the residual is taken against p - 0.5 (exact), so that tiny quantiles
    // keep their relative precision.
    let centred = p >= 0.25;
    let target = if centred { p - 0.5 } else { p };
    let mut x = if centred {
        target * (2.0 * PI).sqrt()
    } else {
        // Abramowitz & Stegun 26.2.23 (error below 4.5e-4) as the starting point.
        let t = (-2.0 * p.ln()).sqrt();
        let num = 2.515517 + t * (0.802853 + t * 0.010328);
        let den = 1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308));
        -(t - num / den)
    };
    // Halley's method: cubic convergence, four steps reach the rounding floor.
    for _ in 0..8 {
        let r = ndtr_residual(x, target, centred);
        let pdf = exp_neg_sq(x / SQRT_2) / (2.0 * PI).sqrt();
        if pdf == 0.0 {
            break;
        }
        let u = r / pdf;
        let step = u / (1.0 + 0.5 * x * u);
        x -= step;
        if step.abs() <= 1e-17 * x.abs() {
            break;
        }
    }
    x
}

/// TensorFlow's `Erfinv` on float64: `ndtri((x + 1) / 2) / sqrt(2)` (so, like TensorFlow, it
/// loses the relative precision of tiny `x` in `x + 1`).
pub fn erfinv(x: f64) -> f64 {
    ndtri((x + 1.0) / 2.0) / SQRT_2
}

/// TensorFlow's `Erfinv` on float32: the halving happens in float32, as TensorFlow's kernel
/// does it, and the quantile in float64.
pub fn erfinv_f32(x: f32) -> f32 {
    (ndtri(((x + 1.0) / 2.0) as f64) / SQRT_2) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ulps(a: f64, b: f64) -> f64 {
        ((a - b) / b).abs() / f64::EPSILON
    }

    #[test]
    fn erf_and_erfc_match_50_digit_values() {
        // (x, erf(x), erfc(x)) from mpmath at 50 digits.
        let cases = [
            (1e-10, 1.1283791670955126e-10, 0.999999999887162),
            (0.3, 0.3286267594591274, 0.6713732405408726),
            (0.7, 0.6778011938374184, 0.32219880616258156),
            (1.0, 0.8427007929497149, 0.15729920705028513),
            (1.3, 0.9340079449406524, 0.06599205505934755),
            (2.0, 0.9953222650189527, 0.004677734981047266),
            (3.0, 0.9999779095030014, 2.209049699858544e-05),
            (5.0, 0.9999999999984626, 1.537459794428035e-12),
            (10.0, 1.0, 2.088487583762545e-45),
            (23.00808328215196, 1.0, 3.0608492691509212e-232),
            (26.0, 1.0, 5.663192408856143e-296),
        ];
        for (x, e, c) in cases {
            assert!(ulps(erf(x), e) <= 2.0, "erf({x}) = {} vs {e}", erf(x));
            assert!(ulps(erf(-x), -e) <= 2.0);
            assert!(ulps(erfc(x), c) <= 3.0, "erfc({x}) = {} vs {c}", erfc(x));
        }
        assert_eq!(erfc(-30.0), 2.0);
        assert_eq!(erfc(30.0), 0.0);
        assert!(erf(f64::NAN).is_nan());
        assert_eq!(erf(f64::NEG_INFINITY), -1.0);
    }

    #[test]
    fn ndtri_inverts_the_normal_cdf() {
        // (p, ndtri(p)) from mpmath.
        let cases = [
            (0.975, 1.9599639845400543),
            (1e-20, -9.262340089798407),
            (1e-300, -37.0470962993612),
            (0.3, -0.5244005127080408),
            (0.5 + 1e-12, 2.5065728237018603e-12),
        ];
        for (p, want) in cases {
            assert!(ulps(ndtri(p), want) <= 4.0, "ndtri({p}) = {}", ndtri(p));
        }
        assert_eq!(ndtri(0.5), 0.0);
        assert_eq!(ndtri(0.0), f64::NEG_INFINITY);
        assert!(ndtri(1.5).is_nan());
    }
}
