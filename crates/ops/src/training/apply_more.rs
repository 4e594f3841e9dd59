//! The kernels of TensorFlow's remaining TF1 optimizers, dense and sparse: `ApplyAdadelta`,
//! `ApplyFtrl`, `ApplyFtrlV2`, `ApplyProximalAdagrad`, `ApplyProximalGradientDescent`,
//! `ApplyAdagradDA`, their `SparseApply*` forms (rows picked by `indices`) and the `Resource*`
//! forms of both, with the update rules of TensorFlow's `training_ops.cc` in its float order.
//!
//! TensorFlow computes these three ways, with different roundings, and so does weir: the dense
//! ops elementwise (Eigen expressions); the sparse ops on variables of rank 2 or more row by row
//! with the same expressions (AdagradDA with its own, per-step form); the sparse ops on vectors
//! with scalar C++ code, where some of the arithmetic is done in double precision.

use std::sync::Arc;

use weir_graph::{format_dims, DType, Error, Kernel, Node, OpContext, Result, Tensor};

use crate::nn::{match_float, NnFloat};
use crate::state::VariableResource;

/// The optimizer family of an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Adadelta,
    Ftrl { v2: bool },
    ProximalAdagrad,
    ProximalGradientDescent,
    AdagradDa,
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
        (_, n @ ("l1" | "l2" | "l2_shrinkage")) => {
            (format!("{} is not a scalar: ", strength(n)), Need::Any)
        }
        (_, n) => (format!("{n} is not a scalar: "), Need::Any),
    }
}

/// Eigen's `sign`: -1, 0 or 1 (0 for NaN).
fn sign<T: NnFloat>(x: T) -> T {
    if x > T::ZERO {
        T::ONE
    } else if x < T::ZERO {
        -T::ONE
    } else {
        T::ZERO
    }
}

/// `training_ops.cc`'s `sgn`: 0 for 0, -1 below, 1 otherwise (NaN included).
fn sgn<T: NnFloat>(x: T) -> T {
    if x == T::ZERO {
        T::ZERO
    } else if x < T::ZERO {
        -T::ONE
    } else {
        T::ONE
    }
}

/// `std::max(a, b)` and Eigen's `cwiseMax`: `a < b ? b : a`.
fn max<T: PartialOrd>(a: T, b: T) -> T {
    if a < b {
        b
    } else {
        a
    }
}

/// `std::min(a, b)` and Eigen's `cwiseMin`: `b < a ? b : a`.
fn min<T: PartialOrd>(a: T, b: T) -> T {
    if b < a {
        b
    } else {
        a
    }
}

fn wide<T: NnFloat>(x: T) -> f64 {
    x.to_f64().unwrap_or(f64::NAN)
}

fn narrow<T: NnFloat>(x: f64) -> T {
    T::from(x).unwrap_or_else(T::nan)
}

/// `x^y` rounded once: TensorFlow's float `pow` is within an ulp and, on the values the tests
/// cover, the correctly rounded result.
fn pow<T: NnFloat>(x: T, y: T) -> T {
    narrow(wide(x).powf(wide(y)))
}

/// How the update is computed: elementwise over the whole variable (dense ops), on one row of a
/// variable of rank 2 or more, or on one element of a vector (sparse ops).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Path {
    Dense,
    Row,
    Scalar,
}

/// The scalar inputs of one run.
pub(super) struct Params<T> {
    /// The floating scalars in [`Kind::scalar_names`] order.
    pub s: Vec<T>,
    /// AdagradDA's global step.
    pub step: i64,
    /// FTRL's `multiply_linear_by_lr`.
    pub mul_lr: bool,
}

/// Applies the update of `kind` to one element: `st` holds the variable, then its slots.
pub(super) fn update<T: NnFloat>(kind: Kind, path: Path, p: &Params<T>, st: &mut [T], g: T) {
    let one = T::ONE;
    let two = one + one;
    match kind {
        Kind::Adadelta => {
            let (lr, rho, eps) = (p.s[0], p.s[1], p.s[2]);
            let (v, a, u) = (st[0], st[1], st[2]);
            let a = a * rho + g * g * (one - rho);
            let update = (u + eps).sqrt() * (one / (a + eps).sqrt()) * g;
            st[0] = v - update * lr;
            st[1] = a;
            st[2] = u * rho + update * update * (one - rho);
        }
        Kind::Ftrl { v2 } => {
            let (lr, l1, l2) = (p.s[0], p.s[1], p.s[2]);
            let (l2s, lr_power) = if v2 {
                (p.s[3], p.s[4])
            } else {
                (T::ZERO, p.s[3])
            };
            let (v, a, l) = (st[0], st[1], st[2]);
            let gs = if v2 { g + two * l2s * v } else { g };
            let na = a + g * g;
            let half = lr_power == -(one / two);
            let root = |x: T| if half { x.sqrt() } else { pow(x, -lr_power) };
            let (l1, l2x) = if p.mul_lr {
                (l1 * lr, two * l2 * lr)
            } else {
                (l1, two * l2)
            };
            let (nl, quadratic) = if path == Path::Scalar {
                let mut sigma = pow(na, -lr_power) - pow(a, -lr_power);
                if p.mul_lr {
                    (l + gs * lr - sigma * v, root(na) + l2x)
                } else {
                    sigma = sigma / lr;
                    (l + gs - sigma * v, root(na) / lr + l2x)
                }
            } else if p.mul_lr {
                (l + (gs * lr - (root(na) - root(a)) * v), root(na) + l2x)
            } else {
                (
                    l + (gs - (root(na) - root(a)) / lr * v),
                    root(na) / lr + l2x,
                )
            };
            st[0] = if path == Path::Dense {
                if nl.abs() > l1 {
                    (l1 * sign(nl) - nl) / quadratic
                } else {
                    T::ZERO
                }
            } else {
                (max(min(nl, l1), -l1) - nl) / quadratic
            };
            st[1] = na;
            st[2] = nl;
        }
        Kind::ProximalAdagrad | Kind::ProximalGradientDescent => {
            let (lr, l1, l2) = (p.s[0], p.s[1], p.s[2]);
            let mut v = st[0];
            let rate = if kind == Kind::ProximalAdagrad {
                st[1] = st[1] + g * g;
                if path == Path::Scalar {
                    lr / st[1].sqrt()
                } else {
                    lr * (one / st[1].sqrt())
                }
            } else {
                lr
            };
            if path == Path::Scalar {
                v = v - rate * g;
                // `... / (1.0 + l2 * rate)`: a double denominator.
                let denom = 1.0 + wide(l2 * rate);
                st[0] = if l1 > T::ZERO {
                    narrow(wide(sgn(v) * max(v.abs() - rate * l1, T::ZERO)) / denom)
                } else {
                    narrow(wide(v) / denom)
                };
            } else {
                v = v - g * rate;
                let denom = one + l2 * rate;
                st[0] = if l1 > T::ZERO {
                    sign(v) * max(v.abs() - rate * l1, T::ZERO) / denom
                } else {
                    v / denom
                };
            }
        }
        Kind::AdagradDa => {
            let (lr, l1, l2) = (p.s[0], p.s[1], p.s[2]);
            let steps = p.step as f32 as f64;
            match path {
                Path::Dense | Path::Row => {
                    let k: T = narrow(steps);
                    let ga = st[1] + g;
                    let gg = st[2] + g * g;
                    st[0] = if path == Path::Dense {
                        let denom = l2 * (k * lr) + gg.sqrt();
                        if l1 > T::ZERO {
                            lr * -one * sign(ga) * max(ga.abs() - k * l1, T::ZERO) / denom
                        } else {
                            lr * ga * -one / denom
                        }
                    } else {
                        let denom = l2 + gg.sqrt() / (k * lr);
                        if l1 > T::ZERO {
                            -one * sign(ga) * max(ga.abs() / k - l1, T::ZERO) / denom
                        } else {
                            -one * (ga / k) / denom
                        }
                    };
                    st[1] = ga;
                    st[2] = gg;
                }
                Path::Scalar => {
                    // The gradient and the hyperparameters are read as doubles.
                    let g = wide(g);
                    let ga: T = narrow(wide(st[1]) + g);
                    let gg: T = narrow(wide(st[2]) + g * g);
                    let (lr, l1, l2) = (wide(lr), wide(l1), wide(l2));
                    let k = p.step as f64;
                    let denom = k * l2 * lr + wide(gg.sqrt());
                    st[0] = if l1 > 0.0 {
                        narrow(wide(sgn(-ga)) * lr * max(wide(ga.abs()) - k * l1, 0.0) / denom)
                    } else {
                        narrow(-wide(ga) * lr / denom)
                    };
                    st[1] = ga;
                    st[2] = gg;
                }
            }
        }
    }
}

struct MoreKernel {
    kind: Kind,
    sparse: bool,
    mul_lr: bool,
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
                let path = if var_shape.len() == 1 {
                    Path::Scalar
                } else {
                    Path::Row
                };
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
        let mut vars: Vec<Arc<VariableResource>> = Vec::with_capacity(nv);
        for i in 0..nv {
            let v = ctx.resource_handle(i)?.get::<VariableResource>()?;
            // The same variable twice would wait on its own lock.
            if vars.iter().any(|u| Arc::ptr_eq(u, &v)) {
                return Err(Error::invalid_argument(format!(
                    "{} passes one variable as two of its inputs",
                    ctx.node().op_type()
                )));
            }
            vars.push(v);
        }
        let first_scalar = self.kind.scalar_names()[0];
        let dt = ctx
            .input(input_index(self.kind, self.sparse, first_scalar))
            .dtype();
        let out = match_float!(dt, T => self.run::<T>(ctx, &vars)?);
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
    let mul_lr = if matches!(kind, Kind::Ftrl { .. }) {
        node.attr("multiply_linear_by_lr")?
    } else {
        false
    };
    Ok(Box::new(MoreKernel {
        kind,
        sparse,
        mul_lr,
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

    #[test]
    fn ftrl_zeroes_weights_whose_linear_term_is_within_l1() {
        let p = Params {
            s: vec![0.1f64, 10.0, 0.0, -0.5],
            step: 0,
            mul_lr: false,
        };
        for path in [Path::Dense, Path::Row, Path::Scalar] {
            let mut st = [1.0, 0.1, 0.0];
            update(Kind::Ftrl { v2: false }, path, &p, &mut st, 0.5);
            assert_eq!(st[0], 0.0, "{path:?}");
            assert!((st[1] - 0.35).abs() < 1e-15);
        }
    }
}
