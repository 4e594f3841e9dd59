//! The regularized incomplete gamma functions `P(a, x)` and `Q(a, x)` and `dP/da`, as Eigen
//! computes them for TensorFlow (Cephes' `igam`/`igamc`: a power series where `x <= max(1, a)`,
//! Legendre's continued fraction elsewhere; the derivative by forward-mode differentiation of
//! the same iterations). Each runs in the element type, as TensorFlow's kernels do, so float32
//! results round as TensorFlow's do; `lgamma` and `digamma` are private helpers here.

use num_traits::Float;

/// The float types the incomplete gamma and beta kernels run in, with Cephes' constants.
pub(crate) trait Special: Float {
    /// Half the machine epsilon (`1 - MACHEP == 1`): the convergence threshold.
    const MACHEP: Self;
    /// Where a continued fraction's terms get rescaled, and by how much (`BIGINV`).
    const BIG: Self;
    const BIGINV: Self;
    /// Whether this is float32, whose Cephes variants use fewer iterations and terms.
    const SINGLE: bool;
    /// `ln Γ(x)` for `x > 0`, to within an ulp or two (float32: float64 rounded).
    fn lgamma(self) -> Self;
    /// The asymptotic series of `ψ(s) - ln(s) + 1/(2s)` for `s >= 10`, negated.
    fn digamma_tail(s: Self) -> Self;
    /// A constant of this type.
    fn c(v: f64) -> Self;
}

/// Horner evaluation of `coef[0] x^n + ... + coef[n]`.
fn polevl<T: Float>(x: T, coef: &[T]) -> T {
    coef.iter().fold(T::zero(), |acc, &c| acc * x + c)
}

// Cephes' lgam: a rational approximation on [2, 3], Stirling's series above 13. The
// coefficients are kept digit for digit as Cephes publishes them, hence the lint allowances.
#[allow(clippy::excessive_precision)]
const LGAM_A: [f64; 5] = [
    8.11614167470508450300E-4,
    -5.95061904284301438324E-4,
    7.93650340457716943945E-4,
    -2.77777777730099687205E-3,
    8.33333333333331927722E-2,
];
#[allow(clippy::excessive_precision)]
const LGAM_B: [f64; 6] = [
    -1.37825152569120859100E3,
    -3.88016315134637840924E4,
    -3.31612992738871184744E5,
    -1.16237097492762307383E6,
    -1.72173700820839662146E6,
    -8.53555664245765465627E5,
];
#[allow(clippy::excessive_precision)]
const LGAM_C: [f64; 7] = [
    1.0,
    -3.51815701436523470549E2,
    -1.70642106651881159223E4,
    -2.20528590553854454839E5,
    -1.13933444367982507207E6,
    -2.53252307177582951285E6,
    -2.01889141433532773231E6,
];
/// `ln(sqrt(2 pi))`.
const LS2PI: f64 = 0.918_938_533_204_672_8;

/// `ln Γ(x)` for `x > 0` (NaN for `x <= 0`, which no caller passes).
pub(crate) fn lgamma_f64(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return f64::NAN;
    }
    if x.is_infinite() {
        return x;
    }
    if x < 13.0 {
        // Shift the argument into [2, 3), keeping the product of the shifts in z.
        let (mut z, mut p, mut u) = (1.0, 0.0, x);
        while u >= 3.0 {
            p -= 1.0;
            u = x + p;
            z *= u;
        }
        while u < 2.0 {
            z /= u;
            p += 1.0;
            u = x + p;
        }
        if u == 2.0 {
            return z.ln();
        }
        let t = x + p - 2.0;
        return z.ln() + t * polevl(t, &LGAM_B) / polevl(t, &LGAM_C);
    }
    let q = (x - 0.5) * x.ln() - x + LS2PI;
    if x > 1.0e8 {
        return q;
    }
    let p = 1.0 / (x * x);
    if x >= 1000.0 {
        q + ((7.936_507_936_507_937e-4 * p - 2.777_777_777_777_778e-3) * p
            + 0.083_333_333_333_333_33)
            / x
    } else {
        q + polevl(p, &LGAM_A) / x
    }
}

impl Special for f32 {
    const MACHEP: f32 = f32::EPSILON / 2.0;
    const BIG: f32 = 2.0 / f32::EPSILON;
    const BIGINV: f32 = f32::EPSILON / 2.0;
    const SINGLE: bool = true;
    fn lgamma(self) -> f32 {
        lgamma_f64(f64::from(self)) as f32
    }
    fn digamma_tail(s: f32) -> f32 {
        // Eigen's float coefficients, rounded from their decimal forms as C++ does.
        #[allow(clippy::excessive_precision)]
        const A: [f32; 4] = [
            -4.166_666_666_666_666_7e-3_f64 as f32,
            3.968_253_968_253_968_3e-3_f64 as f32,
            -8.333_333_333_333_333e-3_f64 as f32,
            8.333_333_333_333_333e-2_f64 as f32,
        ];
        if s < 1.0e8 {
            let z = 1.0 / (s * s);
            z * polevl(z, &A)
        } else {
            0.0
        }
    }
    fn c(v: f64) -> f32 {
        v as f32
    }
}

impl Special for f64 {
    const MACHEP: f64 = f64::EPSILON / 2.0;
    const BIG: f64 = 1.0 / f64::EPSILON;
    const BIGINV: f64 = f64::EPSILON;
    const SINGLE: bool = false;
    fn lgamma(self) -> f64 {
        lgamma_f64(self)
    }
    fn digamma_tail(s: f64) -> f64 {
        const A: [f64; 7] = [
            8.333_333_333_333_333e-2,
            -2.109_279_609_279_609e-2,
            7.575_757_575_757_576e-3,
            -4.166_666_666_666_667e-3,
            3.968_253_968_253_968e-3,
            -8.333_333_333_333_333e-3,
            8.333_333_333_333_333e-2,
        ];
        if s < 1.0e17 {
            let z = 1.0 / (s * s);
            z * polevl(z, &A)
        } else {
            0.0
        }
    }
    fn c(v: f64) -> f64 {
        v
    }
}

/// `ψ(x)` for `x > 0` (the only arguments the derivative needs): the recurrence up to 10, then
/// the asymptotic series, as Eigen's `digamma`.
fn digamma<T: Special>(x: T) -> T {
    let (mut s, mut w) = (x, T::zero());
    let ten = T::c(10.0);
    while s < ten {
        w = w + T::one() / s;
        s = s + T::one();
    }
    s.ln() - T::c(0.5) / s - T::digamma_tail(s) - w
}

/// What an incomplete gamma evaluation computes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Value,
    /// `d/da` of the value.
    Derivative,
    /// `d/da` of a `Gamma(a, 1)` sample `x` (implicit reparameterization): `-(dP/da) / pdf`,
    /// Eigen's `gamma_sample_der_alpha`.
    SampleDerivative,
}

fn iterations<T: Special>(mode: Mode) -> usize {
    match mode {
        Mode::Value => 2000,
        _ if T::SINGLE => 200,
        _ => 500,
    }
}

/// `x^a e^-x / Γ(a)`, or 0 where it underflows (or is NaN).
fn main_term<T: Special>(a: T, x: T) -> T {
    let logax = a * x.ln() - x - a.lgamma();
    if logax < -T::max_value().ln() || logax.is_nan() {
        T::zero()
    } else {
        logax.exp()
    }
}

/// `Q(a, x)` (or its `a`-derivative) by the continued fraction; for `a > 0`, `x >= 1`, `x >= a`.
fn igammac_cf<T: Special>(a: T, x: T, mode: Mode) -> T {
    let (zero, one, two) = (T::zero(), T::one(), T::c(2.0));
    if x.is_infinite() {
        return zero;
    }
    let ax = main_term(a, x);
    if ax == zero {
        return zero;
    }
    let mut y = one - a;
    let mut z = x + y + one;
    let mut c = zero;
    let (mut pkm2, mut qkm2, mut pkm1, mut qkm1) = (one, x, x + one, z * x);
    let mut ans = pkm1 / qkm1;
    let (mut dpkm2, mut dqkm2, mut dpkm1, mut dqkm1) = (zero, zero, zero, -x);
    let mut dans = (dpkm1 - ans * dqkm1) / qkm1;
    for _ in 0..iterations::<T>(mode) {
        c = c + one;
        y = y + one;
        z = z + two;
        let yc = y * c;
        let pk = pkm1 * z - pkm2 * yc;
        let qk = qkm1 * z - qkm2 * yc;
        let dpk = dpkm1 * z - pkm1 - dpkm2 * yc + pkm2 * c;
        let dqk = dqkm1 * z - qkm1 - dqkm2 * yc + qkm2 * c;
        if qk != zero {
            let ans_prev = ans;
            ans = pk / qk;
            let dans_prev = dans;
            dans = (dpk - ans * dqk) / qk;
            let done = match mode {
                Mode::Value => (ans_prev - ans).abs() <= T::MACHEP * ans.abs(),
                _ => (dans - dans_prev).abs() <= T::MACHEP,
            };
            if done {
                break;
            }
        }
        pkm2 = pkm1;
        pkm1 = pk;
        qkm2 = qkm1;
        qkm1 = qk;
        dpkm2 = dpkm1;
        dpkm1 = dpk;
        dqkm2 = dqkm1;
        dqkm1 = dqk;
        if pk.abs() > T::BIG {
            pkm2 = pkm2 * T::BIGINV;
            pkm1 = pkm1 * T::BIGINV;
            qkm2 = qkm2 * T::BIGINV;
            qkm1 = qkm1 * T::BIGINV;
            dpkm2 = dpkm2 * T::BIGINV;
            dpkm1 = dpkm1 * T::BIGINV;
            dqkm2 = dqkm2 * T::BIGINV;
            dqkm1 = dqkm1 * T::BIGINV;
        }
    }
    match mode {
        Mode::Value => ans * ax,
        Mode::Derivative => {
            let dax = ax * (x.ln() - digamma(a));
            ans * dax + dans * ax
        }
        // The density cancels: only ln(ax)'s derivative remains.
        Mode::SampleDerivative => -(dans + ans * (x.ln() - digamma(a))) * x,
    }
}

/// `P(a, x)` (or its `a`-derivative) by the power series; for `a > 0`, `x > 0`,
/// `!(x > 1 && x > a)`.
fn igamma_series<T: Special>(a: T, x: T, mode: Mode) -> T {
    let (zero, one) = (T::zero(), T::one());
    let mut ax = main_term(a, x);
    if ax == zero {
        return zero;
    }
    ax = ax / a;
    let (mut r, mut c, mut ans) = (a, one, one);
    let (mut dc, mut dans) = (zero, zero);
    for _ in 0..iterations::<T>(mode) {
        r = r + one;
        let term = x / r;
        let dterm = -x / (r * r);
        dc = term * dc + dterm * c;
        dans = dans + dc;
        c = c * term;
        ans = ans + c;
        let done = match mode {
            Mode::Value => c <= T::MACHEP * ans,
            _ => dc.abs() <= T::MACHEP * dans.abs(),
        };
        if done {
            break;
        }
    }
    match mode {
        Mode::Value => ans * ax,
        Mode::Derivative => {
            let dax = ax * (x.ln() - digamma(a + one));
            ans * dax + dans * ax
        }
        Mode::SampleDerivative => -(dans + ans * (x.ln() - digamma(a + one))) * x / a,
    }
}

fn igamma_generic<T: Special>(a: T, x: T, mode: Mode) -> T {
    let (zero, one) = (T::zero(), T::one());
    if x == zero {
        return zero;
    }
    if x < zero || a <= zero || a.is_nan() || x.is_nan() {
        return T::nan();
    }
    if x > one && x > a {
        let q = igammac_cf(a, x, mode);
        return match mode {
            Mode::Value => one - q,
            _ => -q,
        };
    }
    igamma_series(a, x, mode)
}

/// TensorFlow's `Igamma`: the regularized lower incomplete gamma function `P(a, x)`; 0 at
/// `x == 0`, NaN for `x < 0`, `a <= 0` or a NaN.
pub(crate) fn igamma<T: Special>(a: T, x: T) -> T {
    igamma_generic(a, x, Mode::Value)
}

/// TensorFlow's `IgammaGradA`: `dP(a, x)/da`.
pub(crate) fn igamma_grad_a<T: Special>(a: T, x: T) -> T {
    igamma_generic(a, x, Mode::Derivative)
}

/// TensorFlow's `RandomGammaGrad`: `d x/d a` for a sample `x` of `Gamma(a, 1)`; 0 at `x == 0`,
/// NaN for `x < 0`, `a <= 0` or a NaN.
pub(crate) fn gamma_sample_der_alpha<T: Special>(a: T, x: T) -> T {
    igamma_generic(a, x, Mode::SampleDerivative)
}

/// TensorFlow's `Igammac`: the regularized upper incomplete gamma function `Q(a, x)`; NaN for
/// `x < 0`, `a <= 0` or a NaN.
pub(crate) fn igammac<T: Special>(a: T, x: T) -> T {
    let one = T::one();
    if x < T::zero() || a <= T::zero() || a.is_nan() || x.is_nan() {
        return T::nan();
    }
    if x < one || x < a {
        return one - igamma_series(a, x, Mode::Value);
    }
    igammac_cf(a, x, Mode::Value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lgamma_matches_known_values() {
        // ln Γ(n) = ln((n-1)!), and Γ(1/2) = sqrt(pi).
        let cases = [
            (1.0, 0.0),
            (2.0, 0.0),
            (3.0, 2f64.ln()),
            (10.0, 362_880f64.ln()),
            (0.5, std::f64::consts::PI.sqrt().ln()),
            (20.0, 121_645_100_408_832_000f64.ln()),
        ];
        for (x, want) in cases {
            let got = lgamma_f64(x);
            assert!(
                (got - want).abs() <= 4e-16 * want.abs().max(1.0),
                "{x}: {got} vs {want}"
            );
        }
        // Stirling's region, against ln Γ(x+1) = ln x + ln Γ(x).
        for x in [13.5, 150.25, 2500.0] {
            let d = lgamma_f64(x + 1.0) - lgamma_f64(x) - f64::ln(x);
            assert!(d.abs() < 1e-12 * lgamma_f64(x), "{x}: {d}");
        }
    }

    #[test]
    #[allow(clippy::excessive_precision)] // mpmath's digits, as printed.
    fn lgamma_matches_high_precision_values() {
        // mpmath at 40 digits; Cephes' error is absolute below 1 in magnitude, relative above.
        for (x, want) in [
            (1.5, -0.120_782_237_635_245_222_3),
            (2.5, 0.284_682_870_472_919_16),
            (0.001, 6.907_178_885_383_853_7),
            (7.25, 7.052_185_450_738_539_4),
            (123.4, 469.336_097_442_190_6),
        ] {
            let got = lgamma_f64(x);
            let tol = 2.0 * f64::EPSILON * f64::max(1.0, want.abs());
            assert!((got - want).abs() <= tol, "{x}: {got}");
        }
    }

    #[test]
    #[allow(clippy::excessive_precision)] // mpmath's digits, as printed.
    fn incomplete_gamma_matches_high_precision_values() {
        // (a, x, P, Q, dP/da) from mpmath at 40 digits.
        let cases = [
            (
                0.5,
                0.3,
                0.561_421_973_919_000_1,
                0.438_578_026_080_999_86,
                -0.770_570_351_375_351_9,
            ),
            (
                2.5,
                4.0,
                0.843_764_372_422_277_7,
                0.156_235_627_577_722_33,
                -0.147_656_869_087_187_15,
            ),
            (
                10.0,
                3.0,
                1.102_488_130_115_479_7e-3,
                0.998_897_511_869_884_5,
                -1.415_636_460_575_209_3e-3,
            ),
            (
                55.0,
                80.0,
                0.998_681_673_782_297_3,
                1.318_326_217_702_724_9e-3,
                -5.496_921_246_347_599e-4,
            ),
            (
                100.0,
                90.0,
                0.158_220_989_186_430_17,
                0.841_779_010_813_569_8,
                -2.461_191_684_397_991e-2,
            ),
            (
                0.1,
                12.0,
                0.999_999_935_505_229_7,
                6.449_477_029_349_751e-8,
                -8.372_408_919_998_285e-7,
            ),
        ];
        let close = |got: f64, want: f64, rtol: f64| (got - want).abs() <= rtol * want.abs();
        for (a, x, p, q, dp) in cases {
            assert!(
                close(igamma(a, x), p, 1e-14),
                "P({a}, {x}) = {}",
                igamma(a, x)
            );
            assert!(
                close(igammac(a, x), q, 1e-13),
                "Q({a}, {x}) = {}",
                igammac(a, x)
            );
            let d = igamma_grad_a(a, x);
            assert!(close(d, dp, 1e-12), "dP/da({a}, {x}) = {d}");
        }
    }

    #[test]
    fn digamma_matches_known_values() {
        let euler = 0.577_215_664_901_532_9;
        assert!((digamma(1.0f64) + euler).abs() < 1e-15);
        assert!((digamma(0.5f64) + euler + 2.0 * 2f64.ln()).abs() < 1e-15);
        assert!((digamma(1.0f32) + euler as f32).abs() < 1e-6);
    }

    #[test]
    fn incomplete_gamma_matches_closed_forms() {
        // P(1, x) = 1 - e^-x and P(a, x) + Q(a, x) = 1.
        for x in [0.1f64, 0.9, 1.5, 4.0, 30.0] {
            let want = -(-x).exp_m1();
            assert!((igamma(1.0, x) - want).abs() < 1e-15, "{x}");
            assert!((igamma(2.5, x) + igammac(2.5, x) - 1.0).abs() < 1e-15);
        }
        assert_eq!(igamma(2.0f64, 0.0), 0.0);
        assert!(igamma(0.0f64, 1.0).is_nan());
        assert!(igammac(1.0f64, -1.0).is_nan());
        assert_eq!(igamma(3.0f64, f64::INFINITY), 1.0);
        assert_eq!(igammac(3.0f64, f64::INFINITY), 0.0);
        // dP(a, x)/da by central differences.
        for (a, x) in [(0.5f64, 0.3), (2.0, 5.0), (3.0, 1.0)] {
            let h = 1e-6;
            let num = (igamma(a + h, x) - igamma(a - h, x)) / (2.0 * h);
            assert!((igamma_grad_a(a, x) - num).abs() < 1e-8, "{a} {x}");
        }
    }
}
