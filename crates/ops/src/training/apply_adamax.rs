//! AdaMax (`ApplyAdaMax`, `ResourceApplyAdaMax`) and Adam with AMSGrad
//! (`ResourceApplyAdamWithAmsgrad`): their update rules in the float order of TensorFlow's
//! `training_ops.cc` functors (each operation rounded in the variable's type, as Eigen's half
//! types round), and their `tf.raw_ops` builders. The kernel is in `apply_extra.rs`.

use weir_graph::{Operation, Output, Result};

use super::apply_extra::Args;
use super::apply_extra_ops::{build, GradCheck};
use super::AdamScalars;
use crate::nn::NnFloat;
use crate::state::Variable;

/// Eigen's `cwiseMax`: `a < b ? b : a`.
fn max<T: NnFloat>(a: T, b: T) -> T {
    if a < b {
        b
    } else {
        a
    }
}

/// AdaMax on one element, scalars `[beta1_power, lr, beta1, beta2, epsilon]`:
/// `m += (g - m) * (1 - beta1)`, `v = max(beta2 * v, |g|)`,
/// `var -= lr / (1 - beta1_power) * (m / (v + epsilon))`.
pub(super) fn ada_max<T: NnFloat>(a: &Args<'_, T>, st: &mut [T], g: T) {
    let (b1p, lr, b1, b2, eps) = (a.s[0], a.s[1], a.s[2], a.s[3], a.s[4]);
    let one = T::ONE;
    let m = st[1] + (g - st[1]) * (one - b1);
    let v = max(b2 * st[2], g.abs());
    st[0] = st[0] - lr / (one - b1p) * (m / (v + eps));
    st[1] = m;
    st[2] = v;
}

/// Adam with AMSGrad on one element, scalars `[beta1_power, beta2_power, lr, beta1, beta2,
/// epsilon]`: Adam's moments, `vhat = max(vhat, v)`, and
/// `var -= m * alpha / (sqrt(vhat) + epsilon)` with
/// `alpha = lr * sqrt(1 - beta2_power) / (1 - beta1_power)`.
pub(super) fn amsgrad<T: NnFloat>(a: &Args<'_, T>, st: &mut [T], g: T) {
    let (b1p, b2p, lr, b1, b2, eps) = (a.s[0], a.s[1], a.s[2], a.s[3], a.s[4], a.s[5]);
    let one = T::ONE;
    let alpha = lr * (one - b2p).sqrt() / (one - b1p);
    let m = st[1] + (g - st[1]) * (one - b1);
    let v = st[2] + (g * g - st[2]) * (one - b2);
    let vhat = max(st[3], v);
    st[0] = st[0] - (m * alpha) / (vhat.sqrt() + eps);
    st[1] = m;
    st[2] = v;
    st[3] = vhat;
}

/// `tf.raw_ops.ApplyAdaMax`: the AdaMax step of `tf.contrib.opt.AdaMaxOptimizer`,
/// `m = beta1 * m + (1 - beta1) * grad`, `v = max(beta2 * v, |grad|)`,
/// `var -= lr / (1 - beta1_power) * m / (v + epsilon)`; returns the new value.
///
/// ```
/// use weir_graph::Graph;
/// use weir_ops::array::constant;
/// use weir_ops::state::{global_variables_initializer, Variable};
/// use weir_ops::training::apply_ada_max;
/// use weir_session::Session;
///
/// let g = Graph::new();
/// let var = |name: &str, x: f32| Variable::builder(constant(&g, [x]).unwrap()).name(name).build();
/// let (w, m, v) = (var("w", 1.0)?, var("m", 0.0)?, var("v", 0.0)?);
/// let c = |x: f32| constant(&g, x).unwrap();
/// let step = apply_ada_max(&w, &m, &v, c(0.9), c(0.1), c(0.9), c(0.999), c(0.0),
///     constant(&g, [2.0f32])?)?;
/// let sess = Session::new(&g)?;
/// sess.run_target(&global_variables_initializer(&g)?)?;
/// // m = 0.2, v = 2: w -= 0.1 / 0.1 * (0.2 / 2).
/// let w1 = sess.eval(&step)?.to_scalar::<f32>()?;
/// assert!((w1 - 0.9).abs() < 1e-6);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn apply_ada_max(
    var: &Variable,
    m: &Variable,
    v: &Variable,
    beta1_power: impl Into<Output>,
    lr: impl Into<Output>,
    beta1: impl Into<Output>,
    beta2: impl Into<Output>,
    epsilon: impl Into<Output>,
    grad: impl Into<Output>,
) -> Result<Output> {
    let rest = vec![
        beta1_power.into(),
        lr.into(),
        beta1.into(),
        beta2.into(),
        epsilon.into(),
        grad.into(),
    ];
    build("ApplyAdaMax", &[var, m, v], rest, GradCheck::Dense(5), None)?.output(0)
}

/// `tf.raw_ops.ResourceApplyAdamWithAmsgrad`: Adam (`s` as for [`super::apply_adam`]) whose
/// step divides by the largest second moment seen, `vhat = max(vhat, v)`:
/// `var -= lr_t * m / (sqrt(vhat) + epsilon)`. The op has no output.
pub fn resource_apply_adam_with_amsgrad(
    var: &Variable,
    m: &Variable,
    v: &Variable,
    vhat: &Variable,
    s: AdamScalars,
    grad: impl Into<Output>,
) -> Result<Operation> {
    let rest = vec![
        s.beta1_power,
        s.beta2_power,
        s.lr,
        s.beta1,
        s.beta2,
        s.epsilon,
        grad.into(),
    ];
    build(
        "ResourceApplyAdamWithAmsgrad",
        &[var, m, v, vhat],
        rest,
        GradCheck::None,
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ada_max_takes_the_larger_of_the_decayed_norm_and_the_gradient() {
        let s = [0.9f64, 0.1, 0.9, 0.5, 0.0];
        let args = Args {
            s: &s,
            flag: false,
            packet: false,
        };
        let mut st = [1.0, 0.0, 4.0];
        ada_max(&args, &mut st, -1.0);
        assert_eq!(st[2], 2.0);
        assert!((st[1] - -0.1).abs() < 1e-15);
        assert!((st[0] - (1.0 - 0.1 / 0.1 * (-0.1 / 2.0))).abs() < 1e-12);
        ada_max(&args, &mut st, 3.0);
        assert_eq!(st[2], 3.0);
    }

    #[test]
    fn amsgrad_keeps_the_largest_second_moment() {
        let s = [0.9f32, 0.999, 0.01, 0.9, 0.999, 1e-8];
        let args = Args {
            s: &s,
            flag: false,
            packet: false,
        };
        let mut st = [1.0f32, 0.0, 0.0, 5.0];
        amsgrad(&args, &mut st, 2.0);
        assert_eq!(st[3], 5.0);
        assert!((st[2] - 0.004).abs() < 1e-7);
        let alpha = 0.01f32 * (1.0f32 - 0.999).sqrt() / (1.0 - 0.9);
        assert!((st[0] - (1.0 - 0.2 * alpha / (5.0f32.sqrt() + 1e-8))).abs() < 1e-6);
    }
}
