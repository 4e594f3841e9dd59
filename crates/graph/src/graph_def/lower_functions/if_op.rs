//! `If` and function calls lowered: see the parent module.

use std::collections::HashMap;

use super::super::proto::attr_value_proto::Value;
use super::super::proto::{FunctionDef, NodeDef};
use super::inline::inline;
use super::{
    attr, function, merge, optional_type, split_inputs, stand_in, tensor_name, type_attr, types,
    zero_constant, VariantTypes, DT_BOOL, DT_VARIANT,
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
    if let Ok(Value::Type(t)) = attr(n, "Tcond") {
        if *t != DT_BOOL {
            return Err(Error::unimplemented(format!(
                "Node '{}': an If on a non-boolean condition (weir lowers only boolean ones)",
                n.name
            )));
        }
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
    let branches = [
        function(n, "else_branch", library)?,
        function(n, "then_branch", library)?,
    ];
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
    let mut results = Vec::new();
    let mut done = Vec::new();
    for (side, branch) in [(0, "else"), (1, "then")] {
        let f = branches[side];
        let args: Vec<String> = (0..tin.len())
            .map(|k| format!("{p}/input_{k}:{side}"))
            .collect();
        let pivot = format!("{p}/switch_{}", if side == 1 { 't' } else { 'f' });
        let mut body = inline(f, &format!("{p}/{branch}/"), &args, &[format!("^{pivot}")])?;
        // An empty optional stands for a value only the other branch has: any value of the
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
        let mut ready = vec![pivot];
        ready.extend(body.control_ret.into_iter().map(|c| format!("^{c}")));
        out.push(NodeDef::new(
            format!("{p}/{branch}_done"),
            "Identity",
            ready,
            &bool_t,
        ));
        done.push(format!("{p}/{branch}_done"));
        results.push(body.outputs);
    }
    out.push(merge(format!("{p}/branch_executed"), done, DT_BOOL));
    let (else_out, then_out) = (&results[0], &results[1]);
    if else_out.len() != tout.len() || then_out.len() != tout.len() {
        return Err(Error::invalid_argument(format!(
            "Node '{}': the branches return {} and {} values for {} types in Tout",
            n.name,
            then_out.len(),
            else_out.len(),
            tout.len()
        )));
    }
    let mut merged = Vec::new();
    for (i, ((e, t), &ty)) in else_out.iter().zip(then_out).zip(&tout).enumerate() {
        out.push(merge(
            format!("{p}/output_{i}"),
            vec![e.clone(), t.clone()],
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
    Ok(out)
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
