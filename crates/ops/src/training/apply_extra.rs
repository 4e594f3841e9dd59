//! The kernel of TensorFlow's newer update ops: `ApplyAdaMax`, `ApplyAdagradV2`,
//! `SparseApplyAdagradV2`, `ApplyAddSign`, `ApplyPowerSign` (each also as its `Resource*` form),
//! and the resource-only `ResourceApplyAdamWithAmsgrad`, `ResourceApplyKerasMomentum` and
//! `ResourceSparseApplyKerasMomentum`.
//!
//! One kernel serves them all: it takes the variables' locks (the variable first, then its
//! slots), checks the inputs in the order and with the words of TensorFlow's kernels, and runs
//! the op's update rule (in `apply_adamax.rs`, `apply_signs.rs`, `apply_v2.rs`) element by
//! element: every element of a dense update, the rows `indices` of a sparse one. Unlike
//! TensorFlow's `ResourceSparseApplyKerasMomentum`, which updates the rows before a bad index,
//! a failed update leaves every variable as it was.

use std::sync::Arc;

use weir_graph::{
    bf16, f16, format_dims, Complex, DType, Error, Kernel, Node, OpContext, Result, Tensor,
    TensorType,
};

use super::{apply_adamax, apply_signs, apply_v2};
use crate::state::VariableResource;

/// The update rule of an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Rule {
    AdaMax,
    Amsgrad,
    AddSign,
    PowerSign,
    AdagradV2,
    KerasMomentum,
}

/// Every op of the family: (name without `Resource`, rule, sparse, whether TensorFlow also has
/// the ref-variable form next to the `Resource*` one).
pub(super) const OPS: &[(&str, Rule, bool, bool)] = &[
    ("ApplyAdaMax", Rule::AdaMax, false, true),
    ("ApplyAdamWithAmsgrad", Rule::Amsgrad, false, false),
    ("ApplyAddSign", Rule::AddSign, false, true),
    ("ApplyPowerSign", Rule::PowerSign, false, true),
    ("ApplyAdagradV2", Rule::AdagradV2, false, true),
    ("SparseApplyAdagradV2", Rule::AdagradV2, true, true),
    ("ApplyKerasMomentum", Rule::KerasMomentum, false, false),
    ("SparseApplyKerasMomentum", Rule::KerasMomentum, true, false),
];

const FLOATS: &[DType] = &[DType::F16, DType::BF16, DType::F32, DType::F64];
const FLOATS_COMPLEX: &[DType] = &[
    DType::F16,
    DType::BF16,
    DType::F32,
    DType::F64,
    DType::C64,
    DType::C128,
];

impl Rule {
    /// The variable inputs, in TensorFlow's order.
    pub(super) fn var_names(self) -> &'static [&'static str] {
        match self {
            Rule::AdaMax => &["var", "m", "v"],
            Rule::Amsgrad => &["var", "m", "v", "vhat"],
            Rule::AddSign | Rule::PowerSign => &["var", "m"],
            Rule::AdagradV2 | Rule::KerasMomentum => &["var", "accum"],
        }
    }

    /// The inputs after the variables, in TensorFlow's order (a sparse op's `indices` follows
    /// `grad`).
    pub(super) fn rest(self, sparse: bool) -> Vec<&'static str> {
        let mut r = match self {
            Rule::AdaMax => vec!["beta1_power", "lr", "beta1", "beta2", "epsilon", "grad"],
            Rule::Amsgrad => vec![
                "beta1_power",
                "beta2_power",
                "lr",
                "beta1",
                "beta2",
                "epsilon",
                "grad",
            ],
            Rule::AddSign => vec!["lr", "alpha", "sign_decay", "beta", "grad"],
            Rule::PowerSign => vec!["lr", "logbase", "sign_decay", "beta", "grad"],
            Rule::AdagradV2 => vec!["lr", "epsilon", "grad"],
            Rule::KerasMomentum => vec!["lr", "grad", "momentum"],
        };
        if sparse {
            let g = r.iter().position(|n| *n == "grad").unwrap_or(r.len() - 1);
            r.insert(g + 1, "indices");
        }
        r
    }

    /// The types TensorFlow 2.21 registers CPU kernels for.
    pub(super) fn kernel_types(self) -> &'static [DType] {
        match self {
            Rule::AdaMax => &[DType::F16, DType::F32, DType::F64],
            Rule::AdagradV2 | Rule::KerasMomentum => FLOATS_COMPLEX,
            _ => FLOATS,
        }
    }

    /// The op's bool attr besides `use_locking`, with its default.
    pub(super) fn flag(self) -> Option<(&'static str, bool)> {
        match self {
            Rule::AdagradV2 => Some(("update_slots", true)),
            Rule::KerasMomentum => Some(("use_nesterov", false)),
            _ => None,
        }
    }

    /// TensorFlow's message for a non-scalar `name` (some kernels put a space before the colon).
    fn not_scalar(self, sparse: bool, name: &str, dims: &[usize]) -> Error {
        let spaced = name == "lr"
            && (matches!(self, Rule::AdaMax | Rule::Amsgrad)
                || (sparse && self == Rule::KerasMomentum));
        let sep = if spaced { " : " } else { ": " };
        Error::invalid_argument(format!("{name} is not a scalar{sep}{}", format_dims(dims)))
    }
}

/// The inputs of one element's update: the scalar inputs in TensorFlow's order (without `grad`
/// and `indices`), the op's flag (`update_slots`, `use_nesterov`), and whether TensorFlow
/// computes the element in a SIMD packet (which changes complex division).
pub(super) struct Args<'a, T> {
    pub s: &'a [T],
    pub flag: bool,
    pub packet: bool,
}

/// Updates one element: `st` holds the variable, then its slots; `g` is the gradient.
pub(super) type Update<T> = fn(&Args<'_, T>, &mut [T], T);

/// An element type and the update rules it has kernels for.
pub(super) trait Elem: TensorType + Copy + Send + Sync + 'static {
    /// Elements per SIMD packet in TensorFlow's build, where packet arithmetic differs from
    /// that of lone elements (complex division); 0 where it does not.
    const PACKET: usize = 0;
    /// The update of `rule` on one element.
    fn update(rule: Rule) -> Option<Update<Self>>;
}

macro_rules! real_elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            fn update(rule: Rule) -> Option<Update<Self>> {
                Some(match rule {
                    Rule::AdaMax => apply_adamax::ada_max::<$t>,
                    Rule::Amsgrad => apply_adamax::amsgrad::<$t>,
                    Rule::AddSign => apply_signs::add_sign::<$t>,
                    Rule::PowerSign => apply_signs::power_sign::<$t>,
                    Rule::AdagradV2 => apply_v2::adagrad_v2::<$t>,
                    Rule::KerasMomentum => apply_v2::keras_momentum::<$t>,
                })
            }
        }
    )*};
}
real_elem!(f16, bf16, f32, f64);

macro_rules! complex_elem {
    ($($t:ty => $packet:expr),*) => {$(
        impl Elem for Complex<$t> {
            const PACKET: usize = $packet;
            fn update(rule: Rule) -> Option<Update<Self>> {
                match rule {
                    Rule::AdagradV2 => Some(apply_v2::adagrad_v2::<Self>),
                    Rule::KerasMomentum => Some(apply_v2::keras_momentum::<Self>),
                    _ => None,
                }
            }
        }
    )*};
}
// AVX packets: 4 complex64, 2 complex128.
complex_elem!(f32 => 4, f64 => 2);

struct ExtraKernel {
    rule: Rule,
    sparse: bool,
    flag: bool,
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

impl ExtraKernel {
    fn index(&self, name: &str) -> usize {
        let nv = self.rule.var_names().len();
        nv + self
            .rule
            .rest(self.sparse)
            .iter()
            .position(|n| *n == name)
            .unwrap_or(0)
    }

    /// The scalar input `name`, refused with TensorFlow's message when it is not a scalar.
    fn scalar<T: Elem>(&self, ctx: &OpContext<'_>, name: &str) -> Result<T> {
        let t = ctx.input(self.index(name));
        if t.rank() != 0 {
            return Err(self.rule.not_scalar(self.sparse, name, t.shape()));
        }
        t.to_scalar::<T>()
    }

    /// The scalars in TensorFlow's input order, `after` (a sparse op's late ones) excluded.
    fn scalars<T: Elem>(&self, ctx: &OpContext<'_>, after: &[&str]) -> Result<Vec<T>> {
        let names = self.rule.rest(self.sparse);
        let mut s = Vec::with_capacity(names.len());
        for n in names {
            if !matches!(n, "grad" | "indices") && !after.contains(&n) {
                s.push(self.scalar::<T>(ctx, n)?);
            }
        }
        Ok(s)
    }

    fn run<T: Elem>(
        &self,
        ctx: &OpContext<'_>,
        vars: &[Arc<VariableResource>],
        update: Update<T>,
    ) -> Result<Tensor> {
        let grad = ctx.input(self.index("grad"));
        let mut guards: Vec<_> = vars.iter().map(|v| v.lock_value()).collect();
        let mut values = Vec::with_capacity(vars.len());
        for (g, var) in guards.iter_mut().zip(vars) {
            values.push(g.as_mut().ok_or_else(|| var.uninitialized_error())?);
        }
        let names = self.rule.var_names();
        for (i, t) in values.iter().enumerate() {
            if t.dtype() != grad.dtype() {
                return Err(Error::invalid_argument(format!(
                    "{} has dtype {} but grad has dtype {}",
                    names[i],
                    t.dtype(),
                    grad.dtype()
                )));
            }
        }
        let slot_shapes = |values: &[&mut Tensor]| -> Result<()> {
            for (i, t) in values.iter().enumerate().skip(1) {
                if t.shape() != values[0].shape() {
                    return Err(Error::invalid_argument(format!(
                        "var and {} do not have the same shape{} {}",
                        names[i],
                        format_dims(values[0].shape()),
                        format_dims(t.shape())
                    )));
                }
            }
            Ok(())
        };
        let var_shape = values[0].shape().to_vec();
        let (s, rows) = if self.sparse {
            slot_shapes(&values)?;
            let late: &[&str] = match self.rule {
                Rule::KerasMomentum => &["momentum"],
                _ => &[],
            };
            let (s, rows) = self.check_sparse::<T>(ctx, &var_shape, grad, late)?;
            (s, Some(rows))
        } else {
            let s = self.scalars::<T>(ctx, &[])?;
            slot_shapes(&values)?;
            if var_shape != grad.shape() {
                return Err(Error::invalid_argument(format!(
                    "var and grad do not have the same shape{} {}",
                    format_dims(&var_shape),
                    format_dims(grad.shape())
                )));
            }
            (s, None)
        };
        let g = grad.as_slice::<T>()?;
        let mut slices = values
            .iter_mut()
            .map(|t| t.as_slice_mut::<T>())
            .collect::<Result<Vec<&mut [T]>>>()?;
        let mut st: Vec<T> = Vec::with_capacity(slices.len());
        // Eigen evaluates whole packets first, then the last `len % PACKET` elements alone.
        let packed = |len: usize| match T::PACKET {
            0 => 0,
            p => len - len % p,
        };
        let mut apply = |at: usize, gv: T, packet: bool| {
            st.clear();
            st.extend(slices.iter().map(|v| v[at]));
            let args = Args {
                s: &s,
                flag: self.flag,
                packet,
            };
            update(&args, &mut st, gv);
            for (v, x) in slices.iter_mut().zip(&st) {
                v[at] = *x;
            }
        };
        match rows {
            None => {
                let whole = packed(g.len());
                for (i, &gv) in g.iter().enumerate() {
                    apply(i, gv, i < whole);
                }
            }
            Some(idx) => {
                // Each row is an Eigen chip of its own: packets, then a tail.
                let inner: usize = var_shape[1..].iter().product();
                let whole = packed(inner);
                for (k, &row) in idx.iter().enumerate() {
                    for j in 0..inner {
                        apply(row * inner + j, g[k * inner + j], j < whole);
                    }
                }
            }
        }
        Ok(values[0].clone())
    }

    /// The checks of TensorFlow's sparse kernels, in their order: the scalars (but `late`, read
    /// after the rows are checked) and the rows `indices` picks, as `usize`.
    fn check_sparse<T: Elem>(
        &self,
        ctx: &OpContext<'_>,
        var_shape: &[usize],
        grad: &Tensor,
        late: &[&str],
    ) -> Result<(Vec<T>, Vec<usize>)> {
        if var_shape.is_empty() {
            return Err(Error::invalid_argument(
                "var must be at least 1 dimensional",
            ));
        }
        let mut s = self.scalars::<T>(ctx, late)?;
        let indices = ctx.input(self.index("indices"));
        if indices.rank() != 1 {
            return Err(Error::invalid_argument("indices must be one-dimensional"));
        }
        let gs = grad.shape();
        let adagrad = self.rule == Rule::AdagradV2;
        if adagrad && gs.len() != var_shape.len() {
            return Err(Error::invalid_argument(
                "grad must have the same number of dimensions as var",
            ));
        }
        for (d, dim) in var_shape.iter().enumerate().skip(1) {
            if gs.get(d) != Some(dim) {
                return Err(Error::invalid_argument(format!(
                    "var and grad must match in dimension {d}"
                )));
            }
        }
        let idx = indices_of(indices)?;
        if gs.first() != Some(&idx.len()) {
            return Err(Error::invalid_argument(
                "grad must be the same size as indices in the first dimension.",
            ));
        }
        let inner: usize = var_shape[1..].iter().product();
        if adagrad && inner == 0 {
            return Err(Error::invalid_argument(
                "Inner dimension should be greater than zero.",
            ));
        }
        // TensorFlow's Keras kernel reads the gradient as rows of its trailing dimensions,
        // so trailing dimensions of 1 beyond the variable's rank are harmless; others are not.
        if gs[1..].iter().product::<usize>() != inner {
            return Err(Error::invalid_argument(format!(
                "var and grad must match in dimension {}",
                var_shape.len()
            )));
        }
        for n in late {
            s.push(self.scalar::<T>(ctx, n)?);
        }
        let rows = var_shape[0];
        let mut out = Vec::with_capacity(idx.len());
        for (k, &i) in idx.iter().enumerate() {
            if i < 0 || i as usize >= rows {
                return Err(Error::invalid_argument(match self.rule {
                    Rule::KerasMomentum => format!("indices[{k}] = {i} is not in [0, {rows})"),
                    _ => format!("Index {i} at offset {k} in indices is out of range"),
                }));
            }
            out.push(i as usize);
        }
        Ok((s, out))
    }
}

impl Kernel for ExtraKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let nv = self.rule.var_names().len();
        let vars = super::apply::distinct_variables(ctx, nv)?;
        let dt = ctx.input(self.index("grad")).dtype();
        let out = dispatch(self, ctx, &vars, dt)?;
        // The Resource* ops have no output.
        if ctx.num_outputs() > 0 {
            ctx.set_output(0, out);
        }
        Ok(())
    }
}

fn dispatch(
    k: &ExtraKernel,
    ctx: &OpContext<'_>,
    vars: &[Arc<VariableResource>],
    dt: DType,
) -> Result<Tensor> {
    fn go<T: Elem>(
        k: &ExtraKernel,
        ctx: &OpContext<'_>,
        vars: &[Arc<VariableResource>],
    ) -> Result<Tensor> {
        let update = T::update(k.rule)
            .ok_or_else(|| Error::internal(format!("no {:?} update for {}", k.rule, T::DTYPE)))?;
        k.run::<T>(ctx, vars, update)
    }
    match dt {
        DType::F16 => go::<f16>(k, ctx, vars),
        DType::BF16 => go::<bf16>(k, ctx, vars),
        DType::F32 => go::<f32>(k, ctx, vars),
        DType::F64 => go::<f64>(k, ctx, vars),
        DType::C64 => go::<Complex<f32>>(k, ctx, vars),
        DType::C128 => go::<Complex<f64>>(k, ctx, vars),
        other => Err(Error::invalid_argument(format!(
            "{:?} has no kernel for {other}",
            k.rule
        ))),
    }
}

/// The kernel of node `node`; TensorFlow's InvalidArgument (when the session places the node)
/// for a type it registers no CPU kernel for.
pub(super) fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let op = node.op_type();
    let base = op.strip_prefix("Resource").unwrap_or(op);
    let (_, rule, sparse, _) = OPS
        .iter()
        .find(|(n, ..)| *n == base)
        .copied()
        .ok_or_else(|| Error::internal(format!("No training kernel for {op}")))?;
    let t: DType = node.attr("T")?;
    if !rule.kernel_types().contains(&t) {
        let mut attrs = vec![format!("T={}", t.proto_name())];
        if sparse {
            let ti: DType = node.attr("Tindices")?;
            attrs.push(format!("Tindices={}", ti.proto_name()));
        }
        return Err(Error::invalid_argument(format!(
            "No OpKernel was registered to support Op '{op}' used by {{{{node {}}}}} with these \
             attrs: [{}]",
            node.name(),
            attrs.join(", ")
        )));
    }
    let flag = match rule.flag() {
        Some((name, _)) => node.attr(name)?,
        None => false,
    };
    Ok(Box::new(ExtraKernel { rule, sparse, flag }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_orders_follow_tensorflow() {
        assert_eq!(
            Rule::KerasMomentum.rest(true),
            ["lr", "grad", "indices", "momentum"]
        );
        assert_eq!(
            Rule::AdagradV2.rest(true),
            ["lr", "epsilon", "grad", "indices"]
        );
        assert_eq!(Rule::Amsgrad.rest(false).len(), 7);
        let k = ExtraKernel {
            rule: Rule::KerasMomentum,
            sparse: true,
            flag: false,
        };
        assert_eq!(k.index("momentum"), 5);
        assert_eq!(k.index("indices"), 4);
    }

    #[test]
    fn messages_keep_tensorflows_spacing() {
        let e = Rule::AdaMax.not_scalar(false, "lr", &[2]);
        assert_eq!(e.message(), "lr is not a scalar : [2]");
        let e = Rule::KerasMomentum.not_scalar(false, "lr", &[2]);
        assert_eq!(e.message(), "lr is not a scalar: [2]");
        let e = Rule::KerasMomentum.not_scalar(true, "lr", &[2, 1]);
        assert_eq!(e.message(), "lr is not a scalar : [2,1]");
    }
}
