//! The graph side of the kernels in `apply_more.rs`: their `OpDef`s (TensorFlow's input
//! names, the `T`, `Tindices`, `use_locking` attrs and `multiply_linear_by_lr`,
//! `use_nesterov` or `update_slots`, each also as a `Resource*` op without output) and the
//! `tf.raw_ops` builders of Adadelta, FTRL, the proximal optimizers and AdagradDA (those of the
//! other sparse kernels are in `sparse_apply_ops.rs`).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, AttrKind, AttrValue, DType, Error, OpDef, Output, Result, Shape};

use super::apply_more::{make, Kind, OPS};
use crate::state::Variable;

const INDEX: &[DType] = &[DType::I32, DType::I64];

/// TensorFlow's shape-merge error for `a` and `b`, if they are incompatible.
fn merge_error(a: &Shape, b: &Shape) -> Option<Error> {
    let (Some(x), Some(y)) = (a.dims(), b.dims()) else {
        return None;
    };
    if x.len() != y.len() {
        return Some(Error::invalid_argument(format!(
            "Shapes must be equal rank, but are {} and {}",
            x.len(),
            y.len()
        )));
    }
    let a_known = a.to_known();
    let b_known = b.to_known();
    for (d, (p, q)) in x.iter().zip(y).enumerate() {
        if let (Some(p), Some(q)) = (p, q) {
            if p != q {
                let shapes = match (&a_known, &b_known) {
                    (Some(_), Some(_)) => format!(" Shapes are {a} and {b}."),
                    _ => String::new(),
                };
                return Some(Error::invalid_argument(format!(
                    "Dimension {d} in both shapes must be equal, but are {p} and {q}.{shapes}"
                )));
            }
        }
    }
    None
}

/// Adds `op` on `vars` (the variable, then its slots) and `rest` (the other inputs in
/// TensorFlow's order), with the bool attr `flag` if given, refusing at build time, as
/// TensorFlow's shape functions do, slots whose static shape differs from the variable's and a
/// dense gradient of another shape.
pub(super) fn build(
    op: &str,
    vars: &[&Variable],
    rest: Vec<Output>,
    dense_grad: Option<usize>,
    flag: Option<(&str, bool)>,
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
    let var_shape = vars[0].shape();
    for v in &vars[1..] {
        if let Some(e) = merge_error(&var_shape, &v.shape()) {
            return Err(e);
        }
    }
    if let Some(gi) = dense_grad {
        if let Some(e) = merge_error(&var_shape, &rest[gi].shape()) {
            return Err(e);
        }
    }
    let mut b = crate::new_op(&g, op)
        .inputs(vars.iter().map(|v| v.handle().clone()))
        .inputs(rest)
        .attr("use_locking", false);
    if let Some((name, value)) = flag {
        b = b.attr(name, value);
    }
    b.build()?.output(0)
}

/// `tf.raw_ops.ApplyAdadelta`: `accum = accum * rho + grad^2 * (1 - rho)`,
/// `update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * grad`,
/// `var -= update * lr`, `accum_update = accum_update * rho + update^2 * (1 - rho)`.
#[allow(clippy::too_many_arguments)]
pub fn apply_adadelta(
    var: &Variable,
    accum: &Variable,
    accum_update: &Variable,
    lr: impl Into<Output>,
    rho: impl Into<Output>,
    epsilon: impl Into<Output>,
    grad: impl Into<Output>,
) -> Result<Output> {
    let rest = vec![lr.into(), rho.into(), epsilon.into(), grad.into()];
    build(
        "ApplyAdadelta",
        &[var, accum, accum_update],
        rest,
        Some(3),
        None,
    )
}

/// `tf.raw_ops.SparseApplyAdadelta`: [`apply_adadelta`] on the rows `indices` of the
/// variable and its slots, row `i` of `grad` going to row `indices[i]`.
#[allow(clippy::too_many_arguments)]
pub fn sparse_apply_adadelta(
    var: &Variable,
    accum: &Variable,
    accum_update: &Variable,
    lr: impl Into<Output>,
    rho: impl Into<Output>,
    epsilon: impl Into<Output>,
    grad: impl Into<Output>,
    indices: impl Into<Output>,
) -> Result<Output> {
    let rest = vec![
        lr.into(),
        rho.into(),
        epsilon.into(),
        grad.into(),
        indices.into(),
    ];
    build(
        "SparseApplyAdadelta",
        &[var, accum, accum_update],
        rest,
        None,
        None,
    )
}

/// The scalar inputs of the FTRL ops, in TensorFlow's order; with `l2_shrinkage` the op is
/// `ApplyFtrlV2` / `SparseApplyFtrlV2`.
pub struct FtrlScalars {
    /// The learning rate.
    pub lr: Output,
    /// The L1 regularization strength.
    pub l1: Output,
    /// The L2 regularization strength.
    pub l2: Output,
    /// The L2 shrinkage strength (the V2 ops only).
    pub l2_shrinkage: Option<Output>,
    /// The learning rate power (`-0.5` takes square roots instead of powers).
    pub lr_power: Output,
}

impl FtrlScalars {
    fn inputs(self) -> (Vec<Output>, &'static str) {
        let mut v = vec![self.lr, self.l1, self.l2];
        let v2 = self.l2_shrinkage.is_some();
        v.extend(self.l2_shrinkage);
        v.push(self.lr_power);
        (v, if v2 { "V2" } else { "" })
    }
}

/// `tf.raw_ops.ApplyFtrl` (or `ApplyFtrlV2` with an L2 shrinkage): with
/// `grad_s = grad + 2 * l2_shrinkage * var`, `new_accum = accum + grad^2`,
/// `linear += grad_s - (new_accum^-lr_power - accum^-lr_power) / lr * var`,
/// `var = (sign(linear) * l1 - linear) / (new_accum^-lr_power / lr + 2 * l2)` where
/// `|linear| > l1`, else 0; `accum = new_accum`.
pub fn apply_ftrl(
    var: &Variable,
    accum: &Variable,
    linear: &Variable,
    grad: impl Into<Output>,
    s: FtrlScalars,
    multiply_linear_by_lr: bool,
) -> Result<Output> {
    let (scalars, suffix) = s.inputs();
    let mut rest = vec![grad.into()];
    rest.extend(scalars);
    build(
        &format!("ApplyFtrl{suffix}"),
        &[var, accum, linear],
        rest,
        Some(0),
        Some(("multiply_linear_by_lr", multiply_linear_by_lr)),
    )
}

/// `tf.raw_ops.SparseApplyFtrl` (or `SparseApplyFtrlV2`): [`apply_ftrl`] on the rows
/// `indices`.
pub fn sparse_apply_ftrl(
    var: &Variable,
    accum: &Variable,
    linear: &Variable,
    grad: impl Into<Output>,
    indices: impl Into<Output>,
    s: FtrlScalars,
    multiply_linear_by_lr: bool,
) -> Result<Output> {
    let (scalars, suffix) = s.inputs();
    let mut rest = vec![grad.into(), indices.into()];
    rest.extend(scalars);
    build(
        &format!("SparseApplyFtrl{suffix}"),
        &[var, accum, linear],
        rest,
        None,
        Some(("multiply_linear_by_lr", multiply_linear_by_lr)),
    )
}

/// `tf.raw_ops.ApplyProximalAdagrad`: `accum += grad^2`, `rate = lr / sqrt(accum)`,
/// `v = var - grad * rate`, `var = sign(v) * max(|v| - rate * l1, 0) / (1 + rate * l2)`.
pub fn apply_proximal_adagrad(
    var: &Variable,
    accum: &Variable,
    lr: impl Into<Output>,
    l1: impl Into<Output>,
    l2: impl Into<Output>,
    grad: impl Into<Output>,
) -> Result<Output> {
    let rest = vec![lr.into(), l1.into(), l2.into(), grad.into()];
    build("ApplyProximalAdagrad", &[var, accum], rest, Some(3), None)
}

/// `tf.raw_ops.SparseApplyProximalAdagrad`: [`apply_proximal_adagrad`] on the rows `indices`.
pub fn sparse_apply_proximal_adagrad(
    var: &Variable,
    accum: &Variable,
    lr: impl Into<Output>,
    l1: impl Into<Output>,
    l2: impl Into<Output>,
    grad: impl Into<Output>,
    indices: impl Into<Output>,
) -> Result<Output> {
    let rest = vec![lr.into(), l1.into(), l2.into(), grad.into(), indices.into()];
    build(
        "SparseApplyProximalAdagrad",
        &[var, accum],
        rest,
        None,
        None,
    )
}

/// `tf.raw_ops.ApplyProximalGradientDescent`: `v = var - alpha * delta`,
/// `var = sign(v) * max(|v| - alpha * l1, 0) / (1 + alpha * l2)`.
pub fn apply_proximal_gradient_descent(
    var: &Variable,
    alpha: impl Into<Output>,
    l1: impl Into<Output>,
    l2: impl Into<Output>,
    delta: impl Into<Output>,
) -> Result<Output> {
    let rest = vec![alpha.into(), l1.into(), l2.into(), delta.into()];
    build("ApplyProximalGradientDescent", &[var], rest, Some(3), None)
}

/// `tf.raw_ops.SparseApplyProximalGradientDescent`: [`apply_proximal_gradient_descent`] on
/// the rows `indices`.
pub fn sparse_apply_proximal_gradient_descent(
    var: &Variable,
    alpha: impl Into<Output>,
    l1: impl Into<Output>,
    l2: impl Into<Output>,
    grad: impl Into<Output>,
    indices: impl Into<Output>,
) -> Result<Output> {
    let rest = vec![
        alpha.into(),
        l1.into(),
        l2.into(),
        grad.into(),
        indices.into(),
    ];
    build(
        "SparseApplyProximalGradientDescent",
        &[var],
        rest,
        None,
        None,
    )
}

/// `tf.raw_ops.ApplyAdagradDA`: `g_acc += grad`, `gg_acc += grad^2`, then with `t` the
/// (int64) `global_step`, `var = -sign(g_acc) * lr * max(|g_acc| - t * l1, 0) /
/// (l2 * t * lr + sqrt(gg_acc))`.
#[allow(clippy::too_many_arguments)]
pub fn apply_adagrad_da(
    var: &Variable,
    gradient_accumulator: &Variable,
    gradient_squared_accumulator: &Variable,
    grad: impl Into<Output>,
    lr: impl Into<Output>,
    l1: impl Into<Output>,
    l2: impl Into<Output>,
    global_step: impl Into<Output>,
) -> Result<Output> {
    let rest = vec![
        grad.into(),
        lr.into(),
        l1.into(),
        l2.into(),
        global_step.into(),
    ];
    build(
        "ApplyAdagradDA",
        &[var, gradient_accumulator, gradient_squared_accumulator],
        rest,
        Some(0),
        None,
    )
}

/// `tf.raw_ops.SparseApplyAdagradDA`: [`apply_adagrad_da`] on the rows `indices`.
#[allow(clippy::too_many_arguments)]
pub fn sparse_apply_adagrad_da(
    var: &Variable,
    gradient_accumulator: &Variable,
    gradient_squared_accumulator: &Variable,
    grad: impl Into<Output>,
    indices: impl Into<Output>,
    lr: impl Into<Output>,
    l1: impl Into<Output>,
    l2: impl Into<Output>,
    global_step: impl Into<Output>,
) -> Result<Output> {
    let rest = vec![
        grad.into(),
        indices.into(),
        lr.into(),
        l1.into(),
        l2.into(),
        global_step.into(),
    ];
    build(
        "SparseApplyAdagradDA",
        &[var, gradient_accumulator, gradient_squared_accumulator],
        rest,
        None,
        None,
    )
}

/// The output is the variable: the gradient's shape, or for a sparse update the gradient's
/// rows of any number.
fn output_shape(ctx: &mut weir_graph::InferenceContext<'_>) -> Result<()> {
    if ctx.num_outputs() == 0 {
        return Ok(());
    }
    let Some(&(_, kind, sparse)) = OPS.iter().find(|(n, _, _)| *n == ctx.op_type) else {
        return Ok(());
    };
    let rest = kind.rest(sparse);
    let at = rest
        .iter()
        .position(|r| *r == "grad" || *r == "delta")
        .unwrap_or(0);
    let gs = ctx.input_shape(kind.var_names().len() + at).clone();
    let out = match (sparse, gs.dims()) {
        (false, _) => gs,
        (true, Some(d)) if !d.is_empty() => {
            let mut dims = vec![None];
            dims.extend_from_slice(&d[1..]);
            Shape::new(dims)
        }
        (true, _) => Shape::unknown(),
    };
    ctx.set_output(0, out);
    Ok(())
}

pub(super) fn register() {
    for &(base, kind, sparse) in OPS {
        for resource_op in [false, true] {
            let name = if resource_op {
                format!("Resource{base}")
            } else {
                base.to_string()
            };
            let mut def = OpDef::new(&name);
            for v in kind.var_names() {
                def = def.input(v, ArgType::Fixed(DType::Resource));
            }
            let rest = kind.rest(sparse);
            for r in &rest {
                let ty = match *r {
                    "indices" => ArgType::Attr("Tindices"),
                    "global_step" => ArgType::Fixed(DType::I64),
                    _ => ArgType::Attr("T"),
                };
                def = def.input(r, ty);
            }
            if !resource_op {
                def = def.output("out", ArgType::Attr("T"));
            }
            // TensorFlow 2.21 registers half and bfloat16 for the dense Adadelta and FTRL
            // kernels only (its proximal and DA kernels take float and double).
            let halves = !sparse && matches!(kind, Kind::Adadelta | Kind::Ftrl { .. });
            def = def.type_attr(
                "T",
                if halves {
                    crate::nn::HALF_FLOATS
                } else {
                    DType::FLOAT
                },
            );
            if sparse {
                def = def.type_attr("Tindices", INDEX);
            }
            def = def.attr("use_locking", AttrKind::Bool, Some(AttrValue::Bool(false)));
            let flag = match kind {
                Kind::Ftrl { .. } => Some(("multiply_linear_by_lr", false)),
                Kind::Momentum => Some(("use_nesterov", false)),
                Kind::Adagrad => Some(("update_slots", true)),
                _ => None,
            };
            if let Some((attr, default)) = flag {
                def = def.attr(attr, AttrKind::Bool, Some(AttrValue::Bool(default)));
            }
            def = def.stateful().shape_fn(output_shape);
            register_op(def);
            register_kernel(&name, make);
        }
    }
}
