//! The dense training kernels: `ApplyGradientDescent`, `ApplyMomentum`, `ApplyAdagrad`,
//! `ApplyRMSProp`, `ApplyCenteredRMSProp`, `ApplyAdam`, with TensorFlow's update rules
//! (`training_ops.cc`) term for term.
//!
//! Each takes its variables as resource handles and updates them in place under their locks
//! (the variable first, then its slots); its output is the variable's new value, as
//! TensorFlow's ref-variable ops output the updated ref.

use std::sync::Arc;

use weir_graph::{format_dims, Error, Kernel, Node, OpContext, Result, Tensor};

use crate::nn::{match_float_or_half, NnFloat};
use crate::state::VariableResource;
use crate::util::vectorized;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Rule {
    GradientDescent,
    Momentum { nesterov: bool },
    Adagrad { update_slots: bool },
    RmsProp,
    CenteredRmsProp,
    Adam { nesterov: bool },
}

impl Rule {
    /// (number of variable inputs, names of the scalar inputs) in TensorFlow's input order;
    /// the gradient is the last input except for Momentum, where `momentum` follows it.
    pub(super) fn layout(self) -> (usize, &'static [&'static str]) {
        match self {
            Rule::GradientDescent => (1, &["alpha"]),
            Rule::Momentum { .. } => (2, &["lr", "momentum"]),
            Rule::Adagrad { .. } => (2, &["lr"]),
            Rule::RmsProp => (3, &["lr", "rho", "momentum", "epsilon"]),
            Rule::CenteredRmsProp => (4, &["lr", "rho", "momentum", "epsilon"]),
            Rule::Adam { .. } => (
                3,
                &[
                    "beta1_power",
                    "beta2_power",
                    "lr",
                    "beta1",
                    "beta2",
                    "epsilon",
                ],
            ),
        }
    }

    pub(super) fn var_names(self) -> &'static [&'static str] {
        match self {
            Rule::GradientDescent => &["var"],
            Rule::Momentum { .. } | Rule::Adagrad { .. } => &["var", "accum"],
            Rule::RmsProp => &["var", "ms", "mom"],
            Rule::CenteredRmsProp => &["var", "mg", "ms", "mom"],
            Rule::Adam { .. } => &["var", "m", "v"],
        }
    }

    pub(super) fn grad_index(self) -> usize {
        let (nv, ns) = self.layout();
        match self {
            Rule::Momentum { .. } => nv + 1,
            _ => nv + ns.len(),
        }
    }

    pub(super) fn scalar_index(self, i: usize) -> usize {
        let (nv, _) = self.layout();
        match self {
            // ApplyMomentum(var, accum, lr, grad, momentum)
            Rule::Momentum { .. } if i == 1 => nv + 2,
            _ => nv + i,
        }
    }
}

/// Applies `rule` to the slices `v` (variable, then slots in TensorFlow's order) with scalars
/// `s` (in the layout's order) and gradient `g`; `wide` runs the loops compiled for the widest
/// vector units (tests compare it with the baseline build).
// `vectorized` wraps each loop alone: a closure holding the whole match is too large to be
// inlined into the wide-vector variants, and its loops would run 4 lanes wide.
fn update<T: NnFloat>(rule: Rule, v: &mut [&mut [T]], s: &[T], g: &[T], wide: bool) {
    macro_rules! each {
        ($body:block) => {
            if wide {
                vectorized(|| $body)
            } else {
                $body
            }
        };
    }
    let one = T::ONE;
    match (rule, v) {
        (Rule::GradientDescent, [var]) => {
            let lr = s[0];
            each!({
                for (x, &g) in var.iter_mut().zip(g) {
                    *x = *x - g * lr;
                }
            });
        }
        (Rule::Momentum { nesterov }, [var, accum]) => {
            let (lr, momentum) = (s[0], s[1]);
            each!({
                for ((x, a), &g) in var.iter_mut().zip(accum.iter_mut()).zip(g) {
                    *a = *a * momentum + g;
                    *x = if nesterov {
                        *x - (g * lr + *a * momentum * lr)
                    } else {
                        *x - *a * lr
                    };
                }
            });
        }
        (Rule::Adagrad { update_slots }, [var, accum]) => {
            let lr = s[0];
            each!({
                for ((x, a), &g) in var.iter_mut().zip(accum.iter_mut()).zip(g) {
                    if update_slots {
                        *a = *a + g * g;
                    }
                    *x = *x - g * lr * a.rsqrt();
                }
            });
        }
        (Rule::RmsProp, [var, ms, mom]) => {
            let (lr, rho, momentum, eps) = (s[0], s[1], s[2], s[3]);
            each!({
                for (((x, m), p), &g) in
                    var.iter_mut().zip(ms.iter_mut()).zip(mom.iter_mut()).zip(g)
                {
                    *m = *m + (g * g - *m) * (one - rho);
                    *p = *p * momentum + (g * lr) / (*m + eps).sqrt();
                    *x = *x - *p;
                }
            });
        }
        (Rule::CenteredRmsProp, [var, mg, ms, mom]) => {
            let (lr, rho, momentum, eps) = (s[0], s[1], s[2], s[3]);
            let it = var
                .iter_mut()
                .zip(mg.iter_mut())
                .zip(ms.iter_mut())
                .zip(mom.iter_mut());
            each!({
                for ((((x, a), m), p), &g) in it.zip(g) {
                    *m = *m + (g * g - *m) * (one - rho);
                    *a = *a + (g - *a) * (one - rho);
                    let denom = (*m - *a * *a) + eps;
                    *p = *p * momentum + (g * lr) / denom.sqrt();
                    *x = *x - *p;
                }
            });
        }
        (Rule::Adam { nesterov }, [var, m, v]) => {
            let (b1p, b2p, lr, b1, b2, eps) = (s[0], s[1], s[2], s[3], s[4], s[5]);
            let alpha = lr * (one - b2p).sqrt() / (one - b1p);
            each!({
                for (((x, m), v), &g) in var.iter_mut().zip(m.iter_mut()).zip(v.iter_mut()).zip(g) {
                    *m = *m + (g - *m) * (one - b1);
                    *v = *v + (g * g - *v) * (one - b2);
                    *x = if nesterov {
                        *x - ((g * (one - b1) + b1 * *m) * alpha) / (v.sqrt() + eps)
                    } else {
                        *x - (*m * alpha) / (v.sqrt() + eps)
                    };
                }
            });
        }
        _ => {}
    }
}

struct ApplyKernel(Rule);

fn run<T: NnFloat>(
    rule: Rule,
    ctx: &OpContext<'_>,
    vars: &[Arc<VariableResource>],
) -> Result<Tensor> {
    let (_, scalar_names) = rule.layout();
    let mut scalars = Vec::with_capacity(scalar_names.len());
    for (i, name) in scalar_names.iter().enumerate() {
        let t = ctx.input(rule.scalar_index(i));
        if t.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "{name} is not a scalar: {}",
                format_dims(t.shape())
            )));
        }
        scalars.push(t.to_scalar::<T>()?);
    }
    let grad = ctx.input(rule.grad_index());
    let mut guards: Vec<_> = vars.iter().map(|v| v.lock_value()).collect();
    let mut values = Vec::with_capacity(vars.len());
    for (g, var) in guards.iter_mut().zip(vars) {
        values.push(g.as_mut().ok_or_else(|| var.uninitialized_error())?);
    }
    let names = rule.var_names();
    for (i, t) in values.iter().enumerate() {
        if t.dtype() != grad.dtype() {
            return Err(Error::invalid_argument(format!(
                "{} has dtype {} but grad has dtype {}",
                names[i],
                t.dtype(),
                grad.dtype()
            )));
        }
        if i > 0 && t.shape() != values[0].shape() {
            return Err(Error::invalid_argument(format!(
                "var and {} do not have the same shape{} {}",
                names[i],
                format_dims(values[0].shape()),
                format_dims(t.shape())
            )));
        }
    }
    if values[0].shape() != grad.shape() {
        let what = if rule == Rule::GradientDescent {
            "delta"
        } else {
            "grad"
        };
        return Err(Error::invalid_argument(format!(
            "var and {what} do not have the same shape{} {}",
            format_dims(values[0].shape()),
            format_dims(grad.shape())
        )));
    }
    let g = grad.as_slice::<T>()?;
    let slices = values
        .iter_mut()
        .map(|t| t.as_slice_mut::<T>())
        .collect::<Result<Vec<&mut [T]>>>()?;
    update_shared(rule, slices, &scalars, g);
    Ok(values[0].clone())
}

/// [`update`] with wide vectors, shared with the intra-op pool when the variable is large.
/// Every element's update is independent, so the values are the same however it is shared.
fn update_shared<T: NnFloat>(rule: Rule, mut slices: Vec<&mut [T]>, s: &[T], g: &[T]) {
    if g.len() < SPLIT_ELEMENTS {
        return update(rule, &mut slices, s, g, true);
    }
    let part = g.len().div_ceil(PARTS).next_multiple_of(64);
    let mut parts: Vec<(Vec<&mut [T]>, &[T])> = g
        .chunks(part)
        .map(|gp| (Vec::with_capacity(slices.len()), gp))
        .collect();
    for v in slices {
        for ((vs, _), vp) in parts.iter_mut().zip(v.chunks_mut(part)) {
            vs.push(vp);
        }
    }
    let wake = g.len() >= WAKE_ELEMENTS;
    crate::intra_op::for_each_task(parts.into_iter(), wake, |(mut vs, gp)| {
        update(rule, &mut vs, s, gp, true)
    });
}

/// The variable size (elements) from which an update is shared with the intra-op pool: about
/// 30 us of Adam on one core.
const SPLIT_ELEMENTS: usize = 1 << 15;

/// The variable size from which a shared update wakes sleeping helpers: a millisecond or more.
const WAKE_ELEMENTS: usize = 1 << 21;

/// The parts a shared update is cut into.
const PARTS: usize = 8;

/// The first `n` inputs' variables, owned (the update needs `ctx` while it holds them);
/// InvalidArgument if one variable comes twice, since the update would wait on its own lock.
pub(super) fn distinct_variables(
    ctx: &OpContext<'_>,
    n: usize,
) -> Result<Vec<Arc<VariableResource>>> {
    let mut vars: Vec<Arc<VariableResource>> = Vec::with_capacity(n);
    for i in 0..n {
        let v = ctx.resource_handle(i)?.get::<VariableResource>()?;
        if vars.iter().any(|u| Arc::ptr_eq(u, &v)) {
            return Err(Error::invalid_argument(format!(
                "{} passes one variable as two of its inputs",
                ctx.node().op_type()
            )));
        }
        vars.push(v);
    }
    Ok(vars)
}

impl Kernel for ApplyKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (nv, _) = self.0.layout();
        let vars = distinct_variables(ctx, nv)?;
        let dt = ctx.input(self.0.grad_index()).dtype();
        let out = match_float_or_half!(dt, T => run::<T>(self.0, ctx, &vars)?);
        // The ResourceApply ops have no output.
        if ctx.num_outputs() > 0 {
            ctx.set_output(0, out);
        }
        Ok(())
    }
}

pub(super) fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let op = node.op_type();
    let rule = match op.strip_prefix("Resource").unwrap_or(op) {
        "ApplyGradientDescent" => Rule::GradientDescent,
        "ApplyMomentum" => Rule::Momentum {
            nesterov: node.attr("use_nesterov")?,
        },
        "ApplyAdagrad" => Rule::Adagrad {
            update_slots: node.attr("update_slots")?,
        },
        "ApplyRMSProp" => Rule::RmsProp,
        "ApplyCenteredRMSProp" => Rule::CenteredRmsProp,
        _ => Rule::Adam {
            nesterov: node.attr("use_nesterov")?,
        },
    };
    Ok(Box::new(ApplyKernel(rule)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_follow_tensorflow_input_order() {
        let m = Rule::Momentum { nesterov: false };
        assert_eq!(m.scalar_index(0), 2);
        assert_eq!(m.grad_index(), 3);
        assert_eq!(m.scalar_index(1), 4);
        let a = Rule::Adam { nesterov: false };
        assert_eq!(a.scalar_index(0), 3);
        assert_eq!(a.grad_index(), 9);
        assert_eq!(Rule::CenteredRmsProp.grad_index(), 8);
    }

    #[test]
    fn wide_vector_updates_match_the_scalar_ones_bit_for_bit() {
        // `vectorized` must not change results: no fused multiply-adds, no reassociation.
        let rules = [
            (Rule::GradientDescent, 1, 1),
            (Rule::Momentum { nesterov: true }, 2, 2),
            (Rule::Adagrad { update_slots: true }, 2, 1),
            (Rule::RmsProp, 3, 4),
            (Rule::CenteredRmsProp, 4, 4),
            (Rule::Adam { nesterov: false }, 3, 6),
        ];
        let n = 1003;
        let val = |k: usize| ((k * 7919 % 1000) as f32 - 500.0) / 97.0;
        for (rule, nvars, nscalars) in rules {
            let s: Vec<f32> = (0..nscalars).map(|k| 0.9 - 0.1 * k as f32).collect();
            let g: Vec<f32> = (0..n).map(|k| val(k + 13)).collect();
            let fresh = || -> Vec<Vec<f32>> {
                (0..nvars)
                    .map(|v| (0..n).map(|k| val(k * (v + 2)).abs() + 0.5).collect())
                    .collect()
            };
            let (mut wide, mut plain) = (fresh(), fresh());
            {
                let mut w: Vec<&mut [f32]> = wide.iter_mut().map(|v| v.as_mut_slice()).collect();
                update(rule, &mut w, &s, &g, true);
                let mut p: Vec<&mut [f32]> = plain.iter_mut().map(|v| v.as_mut_slice()).collect();
                update(rule, &mut p, &s, &g, false);
            }
            for (a, b) in wide.iter().flatten().zip(plain.iter().flatten()) {
                assert_eq!(a.to_bits(), b.to_bits(), "{rule:?}");
            }
        }
    }

    #[test]
    fn shared_updates_of_large_variables_match_the_whole_one() {
        let n = SPLIT_ELEMENTS * 3 + 17;
        let val = |k: usize| ((k * 7919 % 1000) as f32 - 500.0) / 97.0;
        let s = [0.9f32, 0.999, 0.01, 0.9, 0.999, 1e-7];
        let g: Vec<f32> = (0..n).map(|k| val(k + 13)).collect();
        let fresh = || -> Vec<Vec<f32>> {
            (0..3)
                .map(|v| (0..n).map(|k| val(k * (v + 2)).abs() + 0.5).collect())
                .collect()
        };
        let rule = Rule::Adam { nesterov: false };
        let mut whole = fresh();
        {
            let mut w: Vec<&mut [f32]> = whole.iter_mut().map(|v| v.as_mut_slice()).collect();
            update(rule, &mut w, &s, &g, true);
        }
        // Several rounds, so that later ones find the pool's helpers awake and share the parts.
        for round in 0..5 {
            let mut shared = fresh();
            update_shared(
                rule,
                shared.iter_mut().map(|v| v.as_mut_slice()).collect(),
                &s,
                &g,
            );
            for (i, (a, b)) in shared
                .iter()
                .flatten()
                .zip(whole.iter().flatten())
                .enumerate()
            {
                assert_eq!(a.to_bits(), b.to_bits(), "round {round}, element {i}");
            }
        }
    }

    #[test]
    fn adam_step_in_f64() {
        let (mut var, mut m, mut v) = (vec![1.0f64], vec![0.0], vec![0.0]);
        let s = [0.9, 0.999, 0.1, 0.9, 0.999, 1e-8];
        update(
            Rule::Adam { nesterov: false },
            &mut [&mut var, &mut m, &mut v],
            &s,
            &[2.0],
            true,
        );
        let alpha = 0.1 * (1.0f64 - 0.999).sqrt() / (1.0 - 0.9);
        let (m1, v1) = (0.2, 0.004);
        assert!((m[0] - m1).abs() < 1e-15 && (v[0] - v1).abs() < 1e-15);
        assert!((var[0] - (1.0 - m1 * alpha / (v1.sqrt() + 1e-8))).abs() < 1e-15);
    }
}
