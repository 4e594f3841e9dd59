//! The kernels of TensorFlow's remaining TF1 optimizers, dense and sparse: `ApplyAdadelta`,
//! `ApplyFtrl`, `ApplyFtrlV2`, `ApplyProximalAdagrad`, `ApplyProximalGradientDescent`,
//! `ApplyAdagradDA`, their `SparseApply*` forms (rows picked by `indices`), the sparse kernels of
//! the other optimizers (`SparseApplyMomentum`, `SparseApplyRMSProp`,
//! `SparseApplyCenteredRMSProp`, `SparseApplyAdagrad`; their dense forms are in `apply.rs`) and
//! the `Resource*` forms of all, with the update rules of TensorFlow's `training_ops.cc` in its
//! float order (`apply_more_update.rs`).
//!
//! TensorFlow computes these three ways, with different roundings, and so does weir: the dense
//! ops elementwise (Eigen expressions); the sparse ops on variables of rank 2 or more row by row
//! with the same expressions (AdagradDA with its own, per-step form); the sparse ops on vectors
//! with scalar C++ code, where some of the arithmetic is done in double precision.

use std::sync::Arc;

use weir_graph::{format_dims, DType, Error, Kernel, Node, OpContext, Result, Tensor};

use super::apply_more_update::{update, Params, Path};
use crate::nn::{match_float_or_half, NnFloat};
use crate::state::VariableResource;

/// The optimizer family of an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Adadelta,
    Ftrl { v2: bool },
    ProximalAdagrad,
    ProximalGradientDescent,
    AdagradDa,
    Momentum,
    RmsProp { centered: bool },
    Adagrad,
}

/// Every (op name without `Resource`, kind, sparse) this file implements.
pub(super) const OPS: &[(&str, Kind, bool)] = &[
    ("ApplyAdadelta", Kind::Adadelta, false),
    ("SparseApplyAdadelta", Kind::Adadelta, true),
    ("ApplyFtrl", Kind::Ftrl { v2: false }, false),
    ("SparseApplyFtrl", Kind::Ftrl { v2: false }, true),
    ("ApplyFtrlV2", Kind::Ftrl { v2: true }, false),
    ("SparseApplyFtrlV2", Kind::Ftrl { v2: true }, true),
    ("ApplyProximalAdagrad", Kind::ProximalAdagrad, false),
    ("SparseApplyProximalAdagrad", Kind::ProximalAdagrad, true),
    (
        "ApplyProximalGradientDescent",
        Kind::ProximalGradientDescent,
        false,
    ),
    (
        "SparseApplyProximalGradientDescent",
        Kind::ProximalGradientDescent,
        true,
    ),
    ("ApplyAdagradDA", Kind::AdagradDa, false),
    ("SparseApplyAdagradDA", Kind::AdagradDa, true),
    ("SparseApplyMomentum", Kind::Momentum, true),
    (
        "SparseApplyRMSProp",
        Kind::RmsProp { centered: false },
        true,
    ),
    (
        "SparseApplyCenteredRMSProp",
        Kind::RmsProp { centered: true },
        true,
    ),
    ("SparseApplyAdagrad", Kind::Adagrad, true),
];

impl Kind {
    /// The variable inputs, in TensorFlow's order.
    pub(super) fn var_names(self) -> &'static [&'static str] {
        match self {
            Kind::Adadelta => &["var", "accum", "accum_update"],
            Kind::Ftrl { .. } => &["var", "accum", "linear"],
            Kind::ProximalAdagrad => &["var", "accum"],
            Kind::ProximalGradientDescent => &["var"],
            Kind::AdagradDa => &[
                "var",
                "gradient_accumulator",
                "gradient_squared_accumulator",
            ],
            Kind::Momentum | Kind::Adagrad => &["var", "accum"],
            Kind::RmsProp { centered: false } => &["var", "ms", "mom"],
            Kind::RmsProp { centered: true } => &["var", "mg", "ms", "mom"],
        }
    }

    /// The inputs after the variables, in TensorFlow's order.
    pub(super) fn rest(self, sparse: bool) -> Vec<&'static str> {
        let mut r: Vec<&'static str> = match self {
            Kind::Adadelta => vec!["lr", "rho", "epsilon", "grad"],
            Kind::Ftrl { v2: false } => vec!["grad", "lr", "l1", "l2", "lr_power"],
            Kind::Ftrl { v2: true } => vec!["grad", "lr", "l1", "l2", "l2_shrinkage", "lr_power"],
            Kind::ProximalAdagrad => vec!["lr", "l1", "l2", "grad"],
            Kind::ProximalGradientDescent if sparse => vec!["alpha", "l1", "l2", "grad"],
            Kind::ProximalGradientDescent => vec!["alpha", "l1", "l2", "delta"],
            Kind::AdagradDa => vec!["grad", "lr", "l1", "l2", "global_step"],
            Kind::Momentum => vec!["lr", "grad", "momentum"],
            Kind::RmsProp { .. } => vec!["lr", "rho", "momentum", "epsilon", "grad"],
            Kind::Adagrad => vec!["lr", "grad"],
        };
        if sparse {
            let g = r.iter().position(|n| *n == "grad").unwrap_or(r.len() - 1);
            r.insert(g + 1, "indices");
        }
        r
    }

    /// The floating scalar inputs, in the order the update rules read them.
    fn scalar_names(self) -> &'static [&'static str] {
        match self {
            Kind::Adadelta => &["lr", "rho", "epsilon"],
            Kind::Ftrl { v2: false } => &["lr", "l1", "l2", "lr_power"],
            Kind::Ftrl { v2: true } => &["lr", "l1", "l2", "l2_shrinkage", "lr_power"],
            Kind::ProximalAdagrad | Kind::AdagradDa => &["lr", "l1", "l2"],
            Kind::ProximalGradientDescent => &["alpha", "l1", "l2"],
            Kind::Momentum => &["lr", "momentum"],
            Kind::RmsProp { .. } => &["lr", "rho", "momentum", "epsilon"],
            Kind::Adagrad => &["lr"],
        }
    }
}

/// What a scalar input must be: any value, positive, non-negative or non-positive.
#[derive(Clone, Copy, PartialEq)]
enum Need {
    Any,
    Positive,
    PositiveOrZeroIf(bool),
    NonNegative,
    NonPositive,
}

/// TensorFlow's check and message for scalar input `name` of the op.
fn scalar_rule(kind: Kind, sparse: bool, mul_lr: bool, name: &str) -> (String, Need) {
    let strength = |n: &str| match n {
        "l1" => "l1 regularization strength",
        "l2" => "l2 regularization strength",
        _ => "l2 shrinkage regularization strength",
    };
    match (kind, name) {
        (Kind::Ftrl { .. }, "lr") if sparse => (
            "lr is not a positive scalar (or zero if multiply_linear_by_lr is set): ".into(),
            Need::PositiveOrZeroIf(mul_lr),
        ),
        (Kind::Ftrl { .. }, "lr_power") if sparse => (
            "lr_power is not a non-positive scalar: ".into(),
            Need::NonPositive,
        ),
        (Kind::Ftrl { .. }, "lr_power") => ("lr_power is not a scalar".into(), Need::Any),
        (Kind::Ftrl { .. }, n) if n != "lr" && sparse => (
            format!("{} is not a non-negative scalar: ", strength(n)),
            Need::NonNegative,
        ),
        (Kind::ProximalAdagrad, "lr") => ("lr is not a positive scalar: ".into(), Need::Positive),
        (Kind::ProximalAdagrad, n) => (
            format!("{} is not a non-negative scalar: ", strength(n)),
            Need::NonNegative,
        ),
        (Kind::ProximalGradientDescent, "alpha") if sparse => {
            ("lr is not a scalar: ".into(), Need::Any)
        }
        // Sic: SparseApplyMomentum's message has a space before the colon.
        (Kind::Momentum, "lr") => ("lr is not a scalar : ".into(), Need::Any),
        (_, n @ ("l1" | "l2" | "l2_shrinkage")) => {
            (format!("{} is not a scalar: ", strength(n)), Need::Any)
        }
        (_, n) => (format!("{n} is not a scalar: "), Need::Any),
    }
}

struct MoreKernel {
    kind: Kind,
    sparse: bool,
    /// FTRL's `multiply_linear_by_lr`.
    mul_lr: bool,
    /// Momentum's `use_nesterov`.
    nesterov: bool,
    /// Adagrad's `update_slots`.
    update_slots: bool,
}

fn input_index(kind: Kind, sparse: bool, name: &str) -> usize {
    let nv = kind.var_names().len();
    nv + kind
        .rest(sparse)
        .iter()
        .position(|n| *n == name)
        .unwrap_or(0)
}

fn indices_of(t: &Tensor) -> Result<Vec<i64>> {
    match t.dtype() {
        DType::I32 => Ok(t.as_slice::<i32>()?.iter().map(|&i| i as i64).collect()),
        DType::I64 => Ok(t.as_slice::<i64>()?.to_vec()),
        other => Err(Error::invalid_argument(format!(
            "indices must be int32 or int64, not {other}"
        ))),
    }
}

impl MoreKernel {
    fn params<T: NnFloat>(&self, ctx: &OpContext<'_>) -> Result<Params<T>> {
        let mut s = Vec::new();
        for name in self.kind.scalar_names() {
            let t = ctx.input(input_index(self.kind, self.sparse, name));
            let (msg, need) = scalar_rule(self.kind, self.sparse, self.mul_lr, name);
            let bad =
                |t: &Tensor| Error::invalid_argument(format!("{msg}{}", format_dims(t.shape())));
            if t.rank() != 0 {
                return Err(bad(t));
            }
            let x = t.to_scalar::<T>()?;
            let ok = match need {
                Need::Any => true,
                Need::Positive => x > T::ZERO,
                Need::PositiveOrZeroIf(zero_ok) => x > T::ZERO || (zero_ok && x == T::ZERO),
                Need::NonNegative => x >= T::ZERO,
                Need::NonPositive => x <= T::ZERO,
            };
            if !ok {
                return Err(bad(t));
            }
            s.push(x);
        }
        let mut step = 0;
        if self.kind == Kind::AdagradDa {
            let t = ctx.input(input_index(self.kind, self.sparse, "global_step"));
            if t.rank() != 0 {
                return Err(Error::invalid_argument(format!(
                    "global_step is not a scalar: {}",
                    format_dims(t.shape())
                )));
            }
            step = t.to_scalar::<i64>()?;
        }
        Ok(Params {
            s,
            step,
            mul_lr: self.mul_lr,
            nesterov: self.nesterov,
            update_slots: self.update_slots,
        })
    }

    fn run<T: NnFloat>(
        &self,
        ctx: &OpContext<'_>,
        vars: &[Arc<VariableResource>],
    ) -> Result<Tensor> {
        let grad_name = if self.kind == Kind::ProximalGradientDescent && !self.sparse {
            "delta"
        } else {
            "grad"
        };
        let grad = ctx.input(input_index(self.kind, self.sparse, grad_name));
        let mut guards: Vec<_> = vars.iter().map(|v| v.lock_value()).collect();
        let mut values = Vec::with_capacity(vars.len());
        for (g, var) in guards.iter_mut().zip(vars) {
            values.push(g.as_mut().ok_or_else(|| var.uninitialized_error())?);
        }
        let names = self.kind.var_names();
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
        let var_shape = values[0].shape().to_vec();
        let indices = if self.sparse {
            if var_shape.is_empty() {
                return Err(Error::invalid_argument(
                    "var must be at least 1 dimensional",
                ));
            }
            let t = ctx.input(input_index(self.kind, true, "indices"));
            if t.rank() != 1 {
                return Err(Error::invalid_argument("indices must be one-dimensional"));
            }
            Some(indices_of(t)?)
        } else {
            None
        };
        let params = self.params::<T>(ctx)?;
        let g = grad.as_slice::<T>()?;
        let mut slices = values
            .iter_mut()
            .map(|t| t.as_slice_mut::<T>())
            .collect::<Result<Vec<&mut [T]>>>()?;
        let mut st = vec![T::ZERO; slices.len()];
        let mut apply = |slices: &mut [&mut [T]], at: usize, gv: T, path: Path| {
            for (s, v) in st.iter_mut().zip(slices.iter()) {
                *s = v[at];
            }
            update(self.kind, path, &params, &mut st, gv);
            for (s, v) in st.iter().zip(slices.iter_mut()) {
                v[at] = *s;
            }
        };
        match indices {
            None => {
                if var_shape != grad.shape() {
                    return Err(Error::invalid_argument(format!(
                        "var and {grad_name} do not have the same shape{} {}",
                        format_dims(&var_shape),
                        format_dims(grad.shape())
                    )));
                }
                for (i, &gv) in g.iter().enumerate() {
                    apply(&mut slices, i, gv, Path::Dense);
                }
            }
            Some(idx) => {
                let gs = grad.shape();
                for d in 1..var_shape.len().max(gs.len()) {
                    if gs.get(d) != var_shape.get(d) {
                        return Err(Error::invalid_argument(format!(
                            "var and grad must match in dimension {d}"
                        )));
                    }
                }
                if gs.first() != Some(&idx.len()) {
                    return Err(Error::invalid_argument(
                        "grad must be the same size as indices in the first dimension.",
                    ));
                }
                let rows = var_shape[0];
                for (k, &i) in idx.iter().enumerate() {
                    if i < 0 || i as usize >= rows {
                        return Err(Error::invalid_argument(format!(
                            "Index {i} at offset {k} in indices is out of range"
                        )));
                    }
                }
                let inner: usize = var_shape[1..].iter().product();
                // TensorFlow's SparseApplyAdagrad takes its scalar form on rows of one
                // element; the others on vectors.
                let scalar = match self.kind {
                    Kind::Adagrad => inner == 1,
                    _ => var_shape.len() == 1,
                };
                let path = if scalar { Path::Scalar } else { Path::Row };
                for (k, &i) in idx.iter().enumerate() {
                    let i = i as usize;
                    for j in 0..inner {
                        apply(&mut slices, i * inner + j, g[k * inner + j], path);
                    }
                }
            }
        }
        Ok(values[0].clone())
    }
}

impl Kernel for MoreKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let nv = self.kind.var_names().len();
        let vars = super::apply::distinct_variables(ctx, nv)?;
        let first_scalar = self.kind.scalar_names()[0];
        let dt = ctx
            .input(input_index(self.kind, self.sparse, first_scalar))
            .dtype();
        let out = match_float_or_half!(dt, T => self.run::<T>(ctx, &vars)?);
        if ctx.num_outputs() > 0 {
            ctx.set_output(0, out);
        }
        Ok(())
    }
}

pub(super) fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let op = node.op_type();
    let base = op.strip_prefix("Resource").unwrap_or(op);
    let (_, kind, sparse) = OPS
        .iter()
        .find(|(n, _, _)| *n == base)
        .copied()
        .ok_or_else(|| Error::internal(format!("No training kernel for {op}")))?;
    let flag = |attr: &str, applies: bool, default: bool| -> Result<bool> {
        if applies {
            node.attr(attr)
        } else {
            Ok(default)
        }
    };
    Ok(Box::new(MoreKernel {
        kind,
        sparse,
        mul_lr: flag(
            "multiply_linear_by_lr",
            matches!(kind, Kind::Ftrl { .. }),
            false,
        )?,
        nesterov: flag("use_nesterov", kind == Kind::Momentum, false)?,
        update_slots: flag("update_slots", kind == Kind::Adagrad, true)?,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_orders_follow_tensorflow() {
        assert_eq!(
            Kind::Ftrl { v2: true }.rest(true),
            [
                "grad",
                "indices",
                "lr",
                "l1",
                "l2",
                "l2_shrinkage",
                "lr_power"
            ]
        );
        assert_eq!(
            Kind::ProximalGradientDescent.rest(true),
            ["alpha", "l1", "l2", "grad", "indices"]
        );
        assert_eq!(input_index(Kind::AdagradDa, false, "global_step"), 7);
        assert_eq!(input_index(Kind::Adadelta, true, "indices"), 7);
    }
}
