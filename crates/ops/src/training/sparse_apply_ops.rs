//! The `tf.raw_ops` builders of the sparse kernels of Momentum, RMSProp and Adagrad
//! (`SparseApplyMomentum`, `SparseApplyRMSProp`, `SparseApplyCenteredRMSProp`,
//! `SparseApplyAdagrad`), which TensorFlow's optimizers use for gathered (IndexedSlices)
//! gradients: they update only the rows `indices` of the variable and its slots, row `i` of
//! `grad` going to row `indices[i]`. Their OpDefs and kernels are registered with those of
//! `apply_more.rs`.

use weir_graph::{Output, Result};

use super::apply_more_ops::build;
use crate::state::Variable;

/// `tf.raw_ops.SparseApplyMomentum`: on each row `indices[i]`,
/// `accum = accum * momentum + grad[i]`, then `var -= lr * accum`, or with `use_nesterov`
/// `var -= lr * grad[i] + lr * momentum * accum`.
pub fn sparse_apply_momentum(
    var: &Variable,
    accum: &Variable,
    lr: impl Into<Output>,
    grad: impl Into<Output>,
    indices: impl Into<Output>,
    momentum: impl Into<Output>,
    use_nesterov: bool,
) -> Result<Output> {
    let rest = vec![lr.into(), grad.into(), indices.into(), momentum.into()];
    build(
        "SparseApplyMomentum",
        &[var, accum],
        rest,
        None,
        Some(("use_nesterov", use_nesterov)),
    )
}

/// `tf.raw_ops.SparseApplyRMSProp`: on each row `indices[i]`,
/// `ms = ms * rho + grad[i]^2 * (1 - rho)`,
/// `mom = mom * momentum + rsqrt(ms + epsilon) * lr * grad[i]`, `var -= mom`.
#[allow(clippy::too_many_arguments)]
pub fn sparse_apply_rms_prop(
    var: &Variable,
    ms: &Variable,
    mom: &Variable,
    lr: impl Into<Output>,
    rho: impl Into<Output>,
    momentum: impl Into<Output>,
    epsilon: impl Into<Output>,
    grad: impl Into<Output>,
    indices: impl Into<Output>,
) -> Result<Output> {
    let rest = vec![
        lr.into(),
        rho.into(),
        momentum.into(),
        epsilon.into(),
        grad.into(),
        indices.into(),
    ];
    build("SparseApplyRMSProp", &[var, ms, mom], rest, None, None)
}

/// `tf.raw_ops.SparseApplyCenteredRMSProp`: [`sparse_apply_rms_prop`] with the mean gradient
/// `mg = mg * rho + grad[i] * (1 - rho)` subtracted: `rsqrt(ms + epsilon - mg^2)`.
#[allow(clippy::too_many_arguments)]
pub fn sparse_apply_centered_rms_prop(
    var: &Variable,
    mg: &Variable,
    ms: &Variable,
    mom: &Variable,
    lr: impl Into<Output>,
    rho: impl Into<Output>,
    momentum: impl Into<Output>,
    epsilon: impl Into<Output>,
    grad: impl Into<Output>,
    indices: impl Into<Output>,
) -> Result<Output> {
    let rest = vec![
        lr.into(),
        rho.into(),
        momentum.into(),
        epsilon.into(),
        grad.into(),
        indices.into(),
    ];
    build(
        "SparseApplyCenteredRMSProp",
        &[var, mg, ms, mom],
        rest,
        None,
        None,
    )
}

/// `tf.raw_ops.SparseApplyAdagrad`: on each row `indices[i]`, `accum += grad[i]^2` (with
/// `update_slots`), then `var -= lr * grad[i] / sqrt(accum)`.
pub fn sparse_apply_adagrad(
    var: &Variable,
    accum: &Variable,
    lr: impl Into<Output>,
    grad: impl Into<Output>,
    indices: impl Into<Output>,
    update_slots: bool,
) -> Result<Output> {
    let rest = vec![lr.into(), grad.into(), indices.into()];
    build(
        "SparseApplyAdagrad",
        &[var, accum],
        rest,
        None,
        Some(("update_slots", update_slots)),
    )
}
