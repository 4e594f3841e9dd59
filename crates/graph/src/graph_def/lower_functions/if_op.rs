//! `If`, `Case` and function calls lowered: see the parent module.

use std::collections::HashMap;

use super::super::proto::attr_value_proto::Value;
use super::super::proto::{AttrValueProto, TensorProto, TensorShapeProto};
use super::super::proto::{FunctionDef, NodeDef};
use super::inline::inline;
use super::{
    attr, function, merge, optional_type, split_inputs, stand_in, tensor_name, type_attr, types,
    zero_constant, VariantTypes, DT_BOOL, DT_INT32, DT_VARIANT,
};
use crate::{Error, Result};

/// `If(cond, inputs...)` as TensorFlow's `LowerIfOpPass` writes it: the predicate switched into
/// two pivots, each input switched on the predicate, each branch inlined behind its side, and a
/// Merge per output; the If's name goes to an `IdentityN` of the merges.
pub(super) fn lower_if(
    n: &NodeDef,
    library: &HashMap<&str, &FunctionDef>,
    variants: &mut VariantTypes,
) -> Result<Vec<NodeDef>> {
    let (data, controls) = split_inputs(n);
    let Some((cond, args)) = data.split_first() else {
        return Err(Error::invalid_argument(format!(
            "Node '{}' ({}) has no condition input",
            n.name, n.op
        )));
    };
    if let Ok(Value::Type(t)) = attr(n, "Tcond") {
        if *t != DT_BOOL {
            return Err(Error::unimplemented(format!(
                "Node '{}': an If on a non-boolean condition (weir lowers only boolean ones)",
                n.name
            )));
        }
    }
    let branches = [
        function(n, "else_branch", library)?,
        function(n, "then_branch", library)?,
    ];
    let (tin, tout) = signature(n, args, &branches, variants)?;
    let p = &n.name;
    let mut out = Vec::new();
    let mut pred_inputs = vec![cond.clone(), cond.clone()];
    pred_inputs.extend(controls.iter().cloned());
    out.push(NodeDef::new(
        format!("{p}/switch_pred"),
        "Switch",
        pred_inputs,
        &[("T", type_attr(DT_BOOL))],
    ));
    let bool_t = [("T", type_attr(DT_BOOL))];
    out.push(NodeDef::new(
        format!("{p}/switch_f"),
        "Identity",
        vec![format!("{p}/switch_pred:0")],
        &bool_t,
    ));
    out.push(NodeDef::new(
        format!("{p}/switch_t"),
        "Identity",
        vec![format!("{p}/switch_pred:1")],
        &bool_t,
    ));
    for (k, (a, &t)) in args.iter().zip(&tin).enumerate() {
        let mut inputs = vec![a.clone(), cond.clone()];
        inputs.extend(controls.iter().cloned());
        out.push(NodeDef::new(
            format!("{p}/input_{k}"),
            "Switch",
            inputs,
            &[("T", type_attr(t))],
        ));
    }
    let sides = [(0, "else", 'f'), (1, "then", 't')].map(|(side, label, pivot)| Branch {
        function: branches[side],
        label: label.to_string(),
        pivot: format!("{p}/switch_{pivot}"),
        args: (0..tin.len())
            .map(|k| format!("{p}/input_{k}:{side}"))
            .collect(),
    });
    join_branches(p, &sides, tout, variants, &mut out)?;
    Ok(out)
}

/// `Case(branch_index, inputs...)` (and `StatelessCase`): TensorFlow's `LowerCaseOpPass`
/// routes the inputs with one `_SwitchN`; weir, which has no `_SwitchN`, routes them through a
/// chain of Switches, one per branch but the last, each on `branch_index == k` and taking the
/// false side of the one before. An index out of range reaches the last branch, TensorFlow's
/// default. Each branch is inlined behind its pivot and a Merge per output joins them.
pub(super) fn lower_case(
    n: &NodeDef,
    library: &HashMap<&str, &FunctionDef>,
    variants: &mut VariantTypes,
) -> Result<Vec<NodeDef>> {
    let (data, controls) = split_inputs(n);
    let Some((index, args)) = data.split_first() else {
        return Err(Error::invalid_argument(format!(
            "Node '{}' ({}) has no branch_index input",
            n.name, n.op
        )));
    };
    let Value::List(list) = attr(n, "branches")? else {
        return Err(Error::invalid_argument(format!(
            "Node '{}': attribute 'branches' is not a list of functions",
            n.name
        )));
    };
    let branches: Vec<&FunctionDef> = list
        .func
        .iter()
        .map(|f| {
            library.get(f.name.as_str()).copied().ok_or_else(|| {
                Error::not_found(format!(
                    "Node '{}': function '{}' is not in the graph's library",
                    n.name, f.name
                ))
            })
        })
        .collect::<Result<_>>()?;
    if branches.is_empty() {
        return Err(Error::invalid_argument(format!(
            "Node '{}': a Case needs at least one branch",
            n.name
        )));
    }
    let (tin, tout) = signature(n, args, &branches, variants)?;
    let p = &n.name;
    let bool_t = [("T", type_attr(DT_BOOL))];
    let mut out = Vec::new();
    // A token live while no branch before k was taken: the false side of the switch before it.
    // Its value is never read; it starts as a constant run once the index is known.
    let mut token = format!("{p}/token");
    let mut after = controls.clone();
    after.push(format!("^{}", index.split(':').next().unwrap_or(index)));
    out.push(zero_constant(&token, DT_BOOL, after));
    let mut inputs: Vec<String> = args.to_vec();
    let mut sides = Vec::with_capacity(branches.len());
    for (k, f) in branches.iter().enumerate() {
        let label = format!("branch{k}");
        if k + 1 == branches.len() {
            out.push(NodeDef::new(
                format!("{p}/pivot_{k}"),
                "Identity",
                vec![token.clone()],
                &bool_t,
            ));
        } else {
            let pred = format!("{p}/is_{k}");
            out.push(int32_constant(&format!("{p}/index_{k}"), k as i32, index));
            out.push(NodeDef::new(
                pred.clone(),
                "Equal",
                vec![index.clone(), format!("{p}/index_{k}")],
                &[("T", type_attr(DT_INT32))],
            ));
            out.push(NodeDef::new(
                format!("{p}/switch_{k}"),
                "Switch",
                vec![token.clone(), pred.clone()],
                &bool_t,
            ));
            out.push(NodeDef::new(
                format!("{p}/pivot_{k}"),
                "Identity",
                vec![format!("{p}/switch_{k}:1")],
                &bool_t,
            ));
            token = format!("{p}/switch_{k}:0");
            let mut taken = Vec::with_capacity(inputs.len());
            for (j, (a, &t)) in inputs.iter_mut().zip(&tin).enumerate() {
                let sw = format!("{p}/input_{j}_{k}");
                let mut inputs = vec![a.clone(), pred.clone()];
                inputs.extend(controls.iter().cloned());
                out.push(NodeDef::new(
                    sw.clone(),
                    "Switch",
                    inputs,
                    &[("T", type_attr(t))],
                ));
                taken.push(format!("{sw}:1"));
                *a = format!("{sw}:0");
            }
            sides.push(Branch {
                function: f,
                label,
                pivot: format!("{p}/pivot_{k}"),
                args: taken,
            });
            continue;
        }
        sides.push(Branch {
            function: f,
            label,
            pivot: format!("{p}/pivot_{k}"),
            args: inputs.clone(),
        });
    }
    join_branches(p, &sides, tout, variants, &mut out)?;
    Ok(out)
}

/// A scalar int32 constant `v` named `name`, run in the frame of `anchor`'s node.
fn int32_constant(name: &str, v: i32, anchor: &str) -> NodeDef {
    let value = AttrValueProto {
        value: Some(Value::Tensor(TensorProto {
            dtype: DT_INT32,
            tensor_shape: Some(TensorShapeProto::default()),
            int_val: vec![v],
            ..TensorProto::default()
        })),
    };
    NodeDef::new(
        name.to_string(),
        "Const",
        vec![format!("^{}", anchor.split(':').next().unwrap_or(anchor))],
        &[("dtype", type_attr(DT_INT32)), ("value", value)],
    )
}

/// The input and output dtypes of a conditional `n` over `args`, with each variant (cond_v2's
/// optionals of one value) replaced by the dtype of the value it holds.
fn signature(
    n: &NodeDef,
    args: &[String],
    branches: &[&FunctionDef],
    variants: &VariantTypes,
) -> Result<(Vec<i32>, Vec<i32>)> {
    let mut tin = types(n, "Tin")?;
    let mut tout = types(n, "Tout")?;
    if tin.len() != args.len() {
        return Err(Error::invalid_argument(format!(
            "Node '{}': {} inputs but Tin has {} types",
            n.name,
            args.len(),
            tin.len()
        )));
    }
    for (t, a) in tin.iter_mut().zip(args) {
        if *t == DT_VARIANT {
            *t = *variants.get(&tensor_name(a)).ok_or_else(|| {
                Error::unimplemented(format!(
                    "Node '{}': input '{a}' is a variant tensor weir cannot follow",
                    n.name
                ))
            })?;
        }
    }
    for (i, t) in tout.iter_mut().enumerate() {
        if *t == DT_VARIANT {
            *t = branches
                .iter()
                .find_map(|f| optional_type(f, i))
                .ok_or_else(|| {
                    Error::unimplemented(format!(
                        "Node '{}': output {i} is a variant weir cannot follow",
                        n.name
                    ))
                })?;
        }
    }
    Ok((tin, tout))
}

/// One branch of a conditional: its function, the label its nodes are named under, the pivot
/// that is live only when it is taken, and the inputs it reads.
struct Branch<'a> {
    function: &'a FunctionDef,
    label: String,
    pivot: String,
    args: Vec<String>,
}

/// Inlines each branch behind its pivot, joins their outputs with a Merge each and their
/// completion with a `branch_executed` Merge, and gives the conditional's name to an
/// `IdentityN` of the merged outputs.
fn join_branches(
    p: &str,
    branches: &[Branch<'_>],
    tout: Vec<i32>,
    variants: &mut VariantTypes,
    out: &mut Vec<NodeDef>,
) -> Result<()> {
    let bool_t = [("T", type_attr(DT_BOOL))];
    let mut results = Vec::new();
    let mut done = Vec::new();
    for b in branches {
        let label = &b.label;
        let mut body = inline(
            b.function,
            &format!("{p}/{label}/"),
            &b.args,
            &[format!("^{}", b.pivot)],
        )?;
        // An empty optional stands for a value only another branch has: any value of the
        // dtype will do, since only the branch that made the real one reads it.
        for (o, &t) in body.outputs.iter().zip(&tout) {
            let name = o.split(':').next().unwrap_or(o);
            if let Some(m) = body
                .nodes
                .iter_mut()
                .find(|m| m.name == name && m.op == "OptionalNone")
            {
                *m = zero_constant(&m.name, t, m.input.clone());
            }
        }
        out.extend(body.nodes);
        let mut ready = vec![b.pivot.clone()];
        ready.extend(body.control_ret.into_iter().map(|c| format!("^{c}")));
        out.push(NodeDef::new(
            format!("{p}/{label}_done"),
            "Identity",
            ready,
            &bool_t,
        ));
        done.push(format!("{p}/{label}_done"));
        if body.outputs.len() != tout.len() {
            return Err(Error::invalid_argument(format!(
                "Node '{p}': branch '{label}' returns {} values for {} types in Tout",
                body.outputs.len(),
                tout.len()
            )));
        }
        results.push(body.outputs);
    }
    out.push(merge(format!("{p}/branch_executed"), done, DT_BOOL));
    let mut merged = Vec::new();
    for (i, &ty) in tout.iter().enumerate() {
        out.push(merge(
            format!("{p}/output_{i}"),
            results.iter().map(|r| r[i].clone()).collect(),
            ty,
        ));
        merged.push(format!("{p}/output_{i}"));
        variants.insert(format!("{p}:{i}"), ty);
    }
    out.push(stand_in(
        p,
        merged,
        tout,
        vec![format!("^{p}/branch_executed")],
    ));
    Ok(())
}

/// `PartitionedCall(args...)`: the function inlined under the call's name, which goes to an
/// `IdentityN` of its results.
pub(super) fn lower_call(
    n: &NodeDef,
    library: &HashMap<&str, &FunctionDef>,
) -> Result<Vec<NodeDef>> {
    let (args, controls) = split_inputs(n);
    let f = function(n, "f", library)?;
    let tout = types(n, "Tout")?;
    let p = &n.name;
    let body = inline(f, &format!("{p}/"), &args, &controls)?;
    let mut out = body.nodes;
    let after: Vec<String> = body
        .control_ret
        .into_iter()
        .map(|c| format!("^{c}"))
        .collect();
    out.push(stand_in(p, body.outputs, tout, after));
    Ok(out)
}
