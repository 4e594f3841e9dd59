//! AddSign and PowerSign (`ApplyAddSign`, `ApplyPowerSign` and their `Resource*` forms), the
//! updates of `tf.contrib.opt.AddSignOptimizer` and `PowerSignOptimizer`: their rules in the
//! float order of TensorFlow's `training_ops.cc` functors, and their `tf.raw_ops` builders. The
//! kernel is in `apply_extra.rs`.
//!
//! PowerSign's `exp` is Eigen's vectorised one (`pexp_float`, `pexp_double`, without fused
//! multiply-adds, as TensorFlow's x86 build computes it), whose last bit differs from the C
//! library's on some inputs; the half types take the float one and round.

use weir_graph::{bf16, f16, Output, Result};

use super::apply_extra::Args;
use super::apply_extra_ops::{build, GradCheck};
use crate::nn::NnFloat;
use crate::state::Variable;

/// `exp` as TensorFlow's Eigen array expressions compute it.
pub(super) trait EigenExp: NnFloat {
    fn eigen_exp(self) -> Self;
}

impl EigenExp for f32 {
    fn eigen_exp(self) -> f32 {
        exp_f32(self)
    }
}

impl EigenExp for f64 {
    fn eigen_exp(self) -> f64 {
        exp_f64(self)
    }
}

impl EigenExp for f16 {
    fn eigen_exp(self) -> f16 {
        f16::from_f32(exp_f32(self.to_f32()))
    }
}

impl EigenExp for bf16 {
    fn eigen_exp(self) -> bf16 {
        bf16::from_f32(exp_f32(self.to_f32()))
    }
}

/// `2^e * a` as Eigen's `pldexp` forms it: three multiplications by `2^floor(e/4)`, then one by
/// the rest, so that no power of two overflows.
fn ldexp_f32(a: f32, e: f32) -> f32 {
    let e = e.clamp(-278.0, 278.0) as i32;
    let b = e >> 2;
    let c = f32::from_bits(((b + 127) as u32) << 23);
    let rest = e - 3 * b;
    a * c * c * c * f32::from_bits(((rest + 127) as u32) << 23)
}

fn ldexp_f64(a: f64, e: f64) -> f64 {
    let e = e.clamp(-2099.0, 2099.0) as i64;
    let b = e >> 2;
    let c = f64::from_bits(((b + 1023) as u64) << 52);
    let rest = e - 3 * b;
    a * c * c * c * f64::from_bits(((rest + 1023) as u64) << 52)
}

/// Eigen's `pexp_float`: a range reduction by `ln 2` in two parts and a degree-7 polynomial.
fn exp_f32(x0: f32) -> f32 {
    if x0 < -104.0 {
        return 0.0;
    }
    if x0.is_nan() {
        return x0;
    }
    let x = x0.min(88.723);
    let m = (x * std::f32::consts::LOG2_E + 0.5).floor();
    let r = m * -0.693_359_4_f32 + x;
    let r = m * 2.121_944_4e-4_f32 + r;
    let r2 = r * r;
    let p_even = r2 * 1.374_496_4e-3_f32 + 4.166_965_2e-2_f32;
    let p_odd = r2 * 8.368_945e-3_f32 + 0.166_665_18_f32;
    let p_even = r2 * p_even + 0.499_999_88_f32;
    let y = r * p_odd + p_even;
    let y = r2 * y + (r + 1.0);
    ldexp_f32(y, m).max(x0)
}

/// Eigen's `pexp_double`: Cephes' rational approximation after the same reduction.
fn exp_f64(x0: f64) -> f64 {
    if x0 < -745.519 {
        return 0.0;
    }
    if x0.is_nan() {
        return x0;
    }
    let x = x0.min(709.784);
    let fx = (std::f64::consts::LOG2_E * x + 0.5).floor();
    let x = x - fx * 0.693_145_751_953_125 - fx * 1.428_606_820_309_417_2e-6;
    let x2 = x * x;
    let px = 1.261_771_930_748_105_9e-4 * x2 + 3.029_944_077_074_419_6e-2;
    let px = (px * x2 + 1.0) * x;
    let qx = 3.001_985_051_386_644_6e-6 * x2 + 2.524_483_403_496_841e-3;
    let qx = qx * x2 + 2.272_655_482_081_550_3e-1;
    let qx = qx * x2 + 2.0;
    let x = px / (qx - px);
    ldexp_f64(2.0 * x + 1.0, fx).max(x0)
}

/// Eigen's `sign`: -1, 0 or 1.
fn sign<T: NnFloat>(x: T) -> T {
    if x > T::ZERO {
        T::ONE
    } else if x < T::ZERO {
        -T::ONE
    } else {
        T::ZERO
    }
}

/// `m = m * beta + g * (1 - beta)` and `sign(g) * sign(m)` with the new `m`.
fn moment<T: NnFloat>(beta: T, st: &mut [T], g: T) -> T {
    st[1] = st[1] * beta + g * (T::ONE - beta);
    sign(g) * sign(st[1])
}

/// AddSign on one element, scalars `[lr, alpha, sign_decay, beta]`:
/// `var -= lr * (alpha + sign_decay * sign(g) * sign(m)) * g`.
pub(super) fn add_sign<T: NnFloat>(a: &Args<'_, T>, st: &mut [T], g: T) {
    let (lr, alpha, decay, beta) = (a.s[0], a.s[1], a.s[2], a.s[3]);
    let sgm = moment(beta, st, g);
    st[0] = st[0] - lr * (alpha + decay * sgm) * g;
}

/// PowerSign on one element, scalars `[lr, logbase, sign_decay, beta]`:
/// `var -= lr * exp(logbase * sign_decay * sign(g) * sign(m)) * g`.
pub(super) fn power_sign<T: EigenExp>(a: &Args<'_, T>, st: &mut [T], g: T) {
    let (lr, logbase, decay, beta) = (a.s[0], a.s[1], a.s[2], a.s[3]);
    let sgm = moment(beta, st, g);
    let scale = (logbase * decay * sgm).eigen_exp();
    st[0] = st[0] - lr * scale * g;
}

/// `tf.raw_ops.ApplyAddSign`: `m = beta * m + (1 - beta) * grad`, then
/// `var -= lr * (alpha + sign_decay * sign(grad) * sign(m)) * grad`; returns the new value.
#[allow(clippy::too_many_arguments)]
pub fn apply_add_sign(
    var: &Variable,
    m: &Variable,
    lr: impl Into<Output>,
    alpha: impl Into<Output>,
    sign_decay: impl Into<Output>,
    beta: impl Into<Output>,
    grad: impl Into<Output>,
) -> Result<Output> {
    let rest = vec![
        lr.into(),
        alpha.into(),
        sign_decay.into(),
        beta.into(),
        grad.into(),
    ];
    build("ApplyAddSign", &[var, m], rest, GradCheck::Dense(4), None)?.output(0)
}

/// `tf.raw_ops.ApplyPowerSign`: `m = beta * m + (1 - beta) * grad`, then
/// `var -= lr * exp(logbase * sign_decay * sign(grad) * sign(m)) * grad`; returns the new
/// value.
#[allow(clippy::too_many_arguments)]
pub fn apply_power_sign(
    var: &Variable,
    m: &Variable,
    lr: impl Into<Output>,
    logbase: impl Into<Output>,
    sign_decay: impl Into<Output>,
    beta: impl Into<Output>,
    grad: impl Into<Output>,
) -> Result<Output> {
    let rest = vec![
        lr.into(),
        logbase.into(),
        sign_decay.into(),
        beta.into(),
        grad.into(),
    ];
    build("ApplyPowerSign", &[var, m], rest, GradCheck::Dense(4), None)?.output(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eigen_exp_gives_tensorflows_values() {
        // TensorFlow 2.21's PowerSign scales by 3.3849049 here (numpy's float32 exp: 3.3849046).
        let x = 1.234_567_8f32 * 0.987_654;
        assert_eq!(exp_f32(x), 3.384_904_9);
        assert_eq!(exp_f32(0.0), 1.0);
        assert_eq!(exp_f64(0.0), 1.0);
        assert!((exp_f64(1.0) - std::f64::consts::E).abs() < 1e-15);
        assert_eq!(exp_f32(-200.0), 0.0);
    }

    #[test]
    fn add_sign_scales_by_alpha_plus_or_minus_the_decay() {
        let s = [0.1f64, 1.0, 0.5, 0.9];
        let args = Args {
            s: &s,
            flag: false,
            packet: false,
        };
        // m turns positive with g: (1 + 0.5) * g.
        let mut st = [0.0, 0.0];
        add_sign(&args, &mut st, 2.0);
        assert!((st[0] - -0.3).abs() < 1e-15);
        // m stays positive, g negative: (1 - 0.5) * g.
        add_sign(&args, &mut st, -0.1);
        assert!((st[0] - (-0.3 + 0.1 * 0.5 * 0.1)).abs() < 1e-15);
    }
}
