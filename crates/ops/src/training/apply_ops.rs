//! The graph side of the dense training ops: their `OpDef`s (TensorFlow's input names, the `T`,
//! `use_locking` and `use_nesterov` attrs) and the `tf.raw_ops.Apply*` builders. The kernels
//! are in `apply.rs`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, AttrKind, AttrValue, DType, Error, OpDef, Output, Result};

use super::apply::{make, Rule};
use crate::state::Variable;

fn build(
    op: &str,
    vars: &[&Variable],
    inputs: Vec<Output>,
    attrs: &[(&str, bool)],
) -> Result<Output> {
    let g = vars[0].graph().clone();
    for v in vars {
        if !v.graph().ptr_eq(&g) {
            return Err(Error::invalid_argument(format!(
                "Variable {} is from another graph",
                v.name()
            )));
        }
    }
    let mut b = crate::new_op(&g, op).inputs(vars.iter().map(|v| v.handle().clone()));
    b = b.inputs(inputs).attr("use_locking", false);
    for (k, v) in attrs {
        b = b.attr(k, *v);
    }
    b.build()?.output(0)
}

/// `tf.raw_ops.ApplyGradientDescent`: `var -= alpha * delta`; returns the new value.
pub fn apply_gradient_descent(
    var: &Variable,
    alpha: impl Into<Output>,
    delta: impl Into<Output>,
) -> Result<Output> {
    build(
        "ApplyGradientDescent",
        &[var],
        vec![alpha.into(), delta.into()],
        &[],
    )
}

/// `tf.raw_ops.ApplyMomentum`: `accum = accum * momentum + grad`, then `var -= lr * accum`,
/// or with Nesterov `var -= grad * lr + accum * momentum * lr`.
pub fn apply_momentum(
    var: &Variable,
    accum: &Variable,
    lr: impl Into<Output>,
    grad: impl Into<Output>,
    momentum: impl Into<Output>,
    use_nesterov: bool,
) -> Result<Output> {
    build(
        "ApplyMomentum",
        &[var, accum],
        vec![lr.into(), grad.into(), momentum.into()],
        &[("use_nesterov", use_nesterov)],
    )
}

/// `tf.raw_ops.ApplyAdagrad`: `accum += grad^2`, `var -= lr * grad / sqrt(accum)`.
pub fn apply_adagrad(
    var: &Variable,
    accum: &Variable,
    lr: impl Into<Output>,
    grad: impl Into<Output>,
) -> Result<Output> {
    build(
        "ApplyAdagrad",
        &[var, accum],
        vec![lr.into(), grad.into()],
        &[("update_slots", true)],
    )
}

/// `tf.raw_ops.ApplyRMSProp`: `ms += (grad^2 - ms) * (1 - rho)`,
/// `mom = mom * momentum + lr * grad / sqrt(ms + epsilon)`, `var -= mom`.
#[allow(clippy::too_many_arguments)]
pub fn apply_rms_prop(
    var: &Variable,
    ms: &Variable,
    mom: &Variable,
    lr: impl Into<Output>,
    rho: impl Into<Output>,
    momentum: impl Into<Output>,
    epsilon: impl Into<Output>,
    grad: impl Into<Output>,
) -> Result<Output> {
    build(
        "ApplyRMSProp",
        &[var, ms, mom],
        vec![
            lr.into(),
            rho.into(),
            momentum.into(),
            epsilon.into(),
            grad.into(),
        ],
        &[],
    )
}

/// `tf.raw_ops.ApplyCenteredRMSProp`: RMSProp normalized by the estimated variance,
/// `ms - mg^2`, with `mg += (grad - mg) * (1 - rho)`.
#[allow(clippy::too_many_arguments)]
pub fn apply_centered_rms_prop(
    var: &Variable,
    mg: &Variable,
    ms: &Variable,
    mom: &Variable,
    lr: impl Into<Output>,
    rho: impl Into<Output>,
    momentum: impl Into<Output>,
    epsilon: impl Into<Output>,
    grad: impl Into<Output>,
) -> Result<Output> {
    build(
        "ApplyCenteredRMSProp",
        &[var, mg, ms, mom],
        vec![
            lr.into(),
            rho.into(),
            momentum.into(),
            epsilon.into(),
            grad.into(),
        ],
        &[],
    )
}

/// The scalar inputs of [`apply_adam`], in TensorFlow's order.
pub struct AdamScalars {
    /// `beta1^t`.
    pub beta1_power: Output,
    /// `beta2^t`.
    pub beta2_power: Output,
    /// The learning rate.
    pub lr: Output,
    /// `beta1`.
    pub beta1: Output,
    /// `beta2`.
    pub beta2: Output,
    /// `epsilon`, added outside the square root.
    pub epsilon: Output,
}

/// `tf.raw_ops.ApplyAdam`: `lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)`,
/// `m += (grad - m) * (1 - beta1)`, `v += (grad^2 - v) * (1 - beta2)`,
/// `var -= lr_t * m / (sqrt(v) + epsilon)` (with Nesterov, `m` is replaced by
/// `grad * (1 - beta1) + beta1 * m`).
pub fn apply_adam(
    var: &Variable,
    m: &Variable,
    v: &Variable,
    s: AdamScalars,
    grad: impl Into<Output>,
    use_nesterov: bool,
) -> Result<Output> {
    build(
        "ApplyAdam",
        &[var, m, v],
        vec![
            s.beta1_power,
            s.beta2_power,
            s.lr,
            s.beta1,
            s.beta2,
            s.epsilon,
            grad.into(),
        ],
        &[("use_nesterov", use_nesterov)],
    )
}

pub(super) fn register() {
    let rules = [
        ("ApplyGradientDescent", Rule::GradientDescent),
        ("ApplyMomentum", Rule::Momentum { nesterov: false }),
        ("ApplyAdagrad", Rule::Adagrad { update_slots: true }),
        ("ApplyRMSProp", Rule::RmsProp),
        ("ApplyCenteredRMSProp", Rule::CenteredRmsProp),
        ("ApplyAdam", Rule::Adam { nesterov: false }),
    ];
    // Each also as TensorFlow's ResourceApply op: the same inputs, no output.
    let both = rules
        .iter()
        .flat_map(|&(name, rule)| [(name.to_string(), rule), (format!("Resource{name}"), rule)]);
    for (name, rule) in both {
        let name = name.as_str();
        let resource_op = name.starts_with("Resource");
        let (nv, scalars) = rule.layout();
        let mut def = OpDef::new(name);
        for v in rule.var_names() {
            def = def.input(v, ArgType::Fixed(DType::Resource));
        }
        let mut rest: Vec<&'static str> = vec![""; scalars.len() + 1];
        for (i, s) in scalars.iter().enumerate() {
            rest[rule.scalar_index(i) - nv] = s;
        }
        rest[rule.grad_index() - nv] = if name.ends_with("ApplyGradientDescent") {
            "delta"
        } else {
            "grad"
        };
        for r in rest {
            def = def.input(r, ArgType::Attr("T"));
        }
        if !resource_op {
            def = def.output("out", ArgType::Attr("T"));
        }
        def = def
            .type_attr("T", crate::nn::HALF_FLOATS)
            .attr("use_locking", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .stateful()
            .shape_fn(|ctx| {
                // The gradient has the variable's shape.
                let last = ctx.num_inputs() - 1;
                if ctx.num_outputs() == 0 {
                    return Ok(());
                }
                let gi = if ctx.op_type == "ApplyMomentum" {
                    last - 1
                } else {
                    last
                };
                let s = ctx.input_shape(gi).clone();
                ctx.set_output(0, s);
                Ok(())
            });
        if matches!(rule, Rule::Momentum { .. } | Rule::Adam { .. }) {
            def = def.attr("use_nesterov", AttrKind::Bool, Some(AttrValue::Bool(false)));
        }
        if name.ends_with("ApplyAdagrad") {
            def = def.attr("update_slots", AttrKind::Bool, Some(AttrValue::Bool(true)));
        }
        register_op(def);
        register_kernel(name, make);
    }
}
