//! The graph side of the kernel in `apply_extra.rs`: the `OpDef`s of `ApplyAdaMax`,
//! `ApplyAdagradV2`, `SparseApplyAdagradV2`, `ApplyAddSign`, `ApplyPowerSign` and their
//! `Resource*` forms, of `ResourceApplyAdamWithAmsgrad`, `ResourceApplyKerasMomentum` and
//! `ResourceSparseApplyKerasMomentum` (TensorFlow's input names and order, `T: numbertype`,
//! `Tindices`, `use_locking`, `update_slots`, `use_nesterov`), their shape functions, and the
//! checks their builders make when a node is added.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, OpDef, Operation, Output, Result,
    Shape,
};

use super::apply_extra::{make, OPS};
use crate::state::Variable;

/// How a builder's gradient is checked against the variable when the node is added.
pub(super) enum GradCheck {
    /// Not at all: TensorFlow's `Resource*` shape functions read the gradient's shape from
    /// its (absent) resource handle data, so only the kernel checks it.
    None,
    /// `rest[i]` has the variable's shape (TensorFlow's ref-variable ops).
    Dense(usize),
    /// `rest[i]` holds the rows `rest[i + 1]` picks.
    Sparse(usize),
}

/// TensorFlow's `Merge` check of two shapes, with its messages.
fn merge(a: &Shape, b: &Shape) -> Result<()> {
    crate::array::shape_util::merge_shapes(a, b).map(|_| ())
}

/// Adds `op` on `vars` (the variable, then its slots) and `rest` (the other inputs in
/// TensorFlow's order) with the bool attr `flag`, refusing at build time, as TensorFlow's shape
/// functions do, slots whose static shape differs from the variable's and (per `grad`) a
/// gradient that cannot update it.
pub(super) fn build(
    op: &str,
    vars: &[&Variable],
    rest: Vec<Output>,
    grad: GradCheck,
    flag: Option<(&str, bool)>,
) -> Result<Operation> {
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
        merge(&var_shape, &v.shape())?;
    }
    match grad {
        GradCheck::None => {}
        GradCheck::Dense(i) => merge(&var_shape, &rest[i].shape())?,
        GradCheck::Sparse(i) => {
            let (gs, is) = (rest[i].shape(), rest[i + 1].shape());
            let Some(gd) = gs.dims().filter(|d| !d.is_empty()) else {
                return build_op(&g, op, vars, rest, flag);
            };
            // TensorFlow merges the number of indices with the gradient's rows, then the
            // variable with the gradient's shape of any number of rows.
            if let (Some([Some(n)]), Some(rows)) = (is.dims(), gd[0]) {
                if rows != *n {
                    return Err(Error::invalid_argument(format!(
                        "Dimensions must be equal, but are {n} and {rows}"
                    )));
                }
            }
            let mut tail = vec![None];
            tail.extend_from_slice(&gd[1..]);
            merge(&var_shape, &Shape::new(tail))?;
        }
    }
    build_op(&g, op, vars, rest, flag)
}

fn build_op(
    g: &weir_graph::Graph,
    op: &str,
    vars: &[&Variable],
    rest: Vec<Output>,
    flag: Option<(&str, bool)>,
) -> Result<Operation> {
    let mut b = crate::new_op(g, op)
        .inputs(vars.iter().map(|v| v.handle().clone()))
        .inputs(rest)
        .attr("use_locking", false);
    if let Some((name, value)) = flag {
        b = b.attr(name, value);
    }
    b.build()
}

/// TensorFlow's shape functions, as far as they reach without the variables' shapes: every
/// scalar input of rank 0, `indices` of rank 1; the output (of the ref-variable forms) has the
/// gradient's shape, or for a sparse op its rows of any number.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let base = ctx.op_type.strip_prefix("Resource").unwrap_or(ctx.op_type);
    let Some(&(_, rule, sparse, _)) = OPS.iter().find(|(n, ..)| *n == base) else {
        return Ok(());
    };
    let nv = rule.var_names().len();
    let rest = rule.rest(sparse);
    for (i, name) in rest.iter().enumerate() {
        match *name {
            "grad" => {}
            "indices" => {
                ctx.with_rank(nv + i, 1)?;
            }
            _ => {
                ctx.with_rank(nv + i, 0)?;
            }
        }
    }
    if ctx.num_outputs() == 0 {
        return Ok(());
    }
    let at = rest.iter().position(|r| *r == "grad").unwrap_or(0);
    let gs = ctx.input_shape(nv + at).clone();
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
    for &(base, rule, sparse, ref_form) in OPS {
        let names = if ref_form {
            vec![base.to_string(), format!("Resource{base}")]
        } else {
            vec![format!("Resource{base}")]
        };
        for name in names {
            let mut def = OpDef::new(&name);
            for v in rule.var_names() {
                def = def.input(v, ArgType::Fixed(DType::Resource));
            }
            for r in rule.rest(sparse) {
                let ty = match r {
                    "indices" => ArgType::Attr("Tindices"),
                    _ => ArgType::Attr("T"),
                };
                def = def.input(r, ty);
            }
            if !name.starts_with("Resource") {
                def = def.output("out", ArgType::Attr("T"));
            }
            // TensorFlow's `T: numbertype`; the kernel refuses the types it has no kernel for.
            def = def.type_attr("T", DType::NUMBER);
            if sparse {
                def = def.type_attr("Tindices", &[DType::I32, DType::I64]);
            }
            def = def.attr("use_locking", AttrKind::Bool, Some(AttrValue::Bool(false)));
            if let Some((attr, default)) = rule.flag() {
                def = def.attr(attr, AttrKind::Bool, Some(AttrValue::Bool(default)));
            }
            register_op(def.stateful().shape_fn(shape_fn));
            register_kernel(&name, make);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_words_conflicts_as_tensorflow() {
        let e = merge(&Shape::known(&[4, 2]), &Shape::new(vec![None, Some(3)])).unwrap_err();
        assert_eq!(
            e.message(),
            "Dimension 1 in both shapes must be equal, but are 2 and 3. Shapes are [4,2] and \
             [?,3]."
        );
        let e = merge(&Shape::known(&[3]), &Shape::known(&[3, 1])).unwrap_err();
        assert_eq!(e.message(), "Shapes must be equal rank, but are 1 and 2");
        assert!(merge(&Shape::unknown(), &Shape::known(&[1])).is_ok());
    }
}
