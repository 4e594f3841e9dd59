//! `While` lowered: see the parent module.

use std::collections::HashMap;

use super::super::proto::attr_value_proto::Value;
use super::super::proto::{AttrValueProto, FunctionDef, NodeDef};
use super::inline::inline;
use super::{attr, function, merge, split_inputs, stand_in, type_attr, types, DT_VARIANT};
use crate::{Error, Result};

/// `While(inputs...)` as TensorFlow's `LowerWhileOpPass` writes it: each input enters a frame
/// named after the node and is merged with its next value, the condition function is inlined on
/// the merged values into a `LoopCond` that switches each of them into the inlined body or out
/// through an `Exit`; the body's results go back through `NextIteration`s. The While's name goes
/// to an `IdentityN` of the exits.
pub(super) fn lower_while(
    n: &NodeDef,
    library: &HashMap<&str, &FunctionDef>,
) -> Result<Vec<NodeDef>> {
    let (args, controls) = split_inputs(n);
    let t = types(n, "T")?;
    if t.len() != args.len() {
        return Err(Error::invalid_argument(format!(
            "Node '{}': {} inputs but T has {} types",
            n.name,
            args.len(),
            t.len()
        )));
    }
    if let Some(k) = t.iter().position(|&d| d == DT_VARIANT) {
        return Err(Error::unimplemented(format!(
            "Node '{}': loop variable {k} is a variant tensor (a TensorList), which weir does not have",
            n.name
        )));
    }
    let parallel = match attr(n, "parallel_iterations") {
        Ok(Value::I(i)) => *i,
        _ => 10,
    };
    let (cond, body) = (function(n, "cond", library)?, function(n, "body", library)?);
    let p = &n.name;
    let mut out = Vec::new();
    let enter_attrs = |k: usize| {
        [
            ("T", type_attr(t[k])),
            ("frame_name", str_attr(p)),
            ("is_constant", bool_attr(false)),
            ("parallel_iterations", int_attr(parallel)),
        ]
    };
    for (k, a) in args.iter().enumerate() {
        let mut inputs = vec![a.clone()];
        inputs.extend(controls.iter().cloned());
        out.push(NodeDef::new(
            format!("{p}/enter_{k}"),
            "Enter",
            inputs,
            &enter_attrs(k),
        ));
        out.push(merge(
            format!("{p}/merge_{k}"),
            vec![format!("{p}/enter_{k}"), format!("{p}/next_iteration_{k}")],
            t[k],
        ));
    }
    let merged: Vec<String> = (0..args.len()).map(|k| format!("{p}/merge_{k}")).collect();
    // Ops of the condition without inputs wait for the first merge, those of the body for the
    // first value switched into it: they run once per iteration, in the loop's frame.
    let pivot_pred = merged
        .first()
        .map(|m| vec![format!("^{m}")])
        .unwrap_or_default();
    let cond_body = inline(cond, &format!("{p}/cond/"), &merged, &pivot_pred)?;
    let pred = cond_body.outputs.first().cloned().ok_or_else(|| {
        Error::invalid_argument(format!("Node '{}': the condition returns nothing", n.name))
    })?;
    out.extend(cond_body.nodes);
    let mut cond_inputs = vec![pred];
    cond_inputs.extend(cond_body.control_ret.iter().map(|c| format!("^{c}")));
    out.push(NodeDef::new(
        format!("{p}/loop_cond"),
        "LoopCond",
        cond_inputs,
        &[],
    ));
    let mut switched = Vec::new();
    for (k, &ty) in t.iter().enumerate() {
        out.push(NodeDef::new(
            format!("{p}/switch_{k}"),
            "Switch",
            vec![format!("{p}/merge_{k}"), format!("{p}/loop_cond")],
            &[("T", type_attr(ty))],
        ));
        out.push(NodeDef::new(
            format!("{p}/identity_{k}"),
            "Identity",
            vec![format!("{p}/switch_{k}:1")],
            &[("T", type_attr(ty))],
        ));
        switched.push(format!("{p}/identity_{k}"));
    }
    let pivot_body = switched
        .first()
        .map(|s| vec![format!("^{s}")])
        .unwrap_or_default();
    let body_fn = inline(body, &format!("{p}/body/"), &switched, &pivot_body)?;
    if body_fn.outputs.len() != t.len() {
        return Err(Error::invalid_argument(format!(
            "Node '{}': the body returns {} values for {} loop variables",
            n.name,
            body_fn.outputs.len(),
            t.len()
        )));
    }
    out.extend(body_fn.nodes);
    // The body's stateful ops that no result depends on still run in every iteration.
    let after_body: Vec<String> = body_fn
        .control_ret
        .iter()
        .map(|c| format!("^{c}"))
        .collect();
    let mut exits = Vec::new();
    for (k, (o, &ty)) in body_fn.outputs.iter().zip(&t).enumerate() {
        let mut inputs = vec![o.clone()];
        inputs.extend(after_body.iter().cloned());
        out.push(NodeDef::new(
            format!("{p}/next_iteration_{k}"),
            "NextIteration",
            inputs,
            &[("T", type_attr(ty))],
        ));
        out.push(NodeDef::new(
            format!("{p}/exit_{k}"),
            "Exit",
            vec![format!("{p}/switch_{k}")],
            &[("T", type_attr(ty))],
        ));
        exits.push(format!("{p}/exit_{k}"));
    }
    out.push(stand_in(p, exits, t, Vec::new()));
    Ok(out)
}

fn str_attr(s: &str) -> AttrValueProto {
    AttrValueProto {
        value: Some(Value::S(s.as_bytes().to_vec().into())),
    }
}

fn bool_attr(b: bool) -> AttrValueProto {
    AttrValueProto {
        value: Some(Value::B(b)),
    }
}

fn int_attr(i: i64) -> AttrValueProto {
    AttrValueProto {
        value: Some(Value::I(i)),
    }
}
