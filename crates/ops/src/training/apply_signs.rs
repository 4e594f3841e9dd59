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
use crate::math::eigen_exp::{exp_f32, exp_f64};
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
