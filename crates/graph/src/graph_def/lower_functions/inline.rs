//! Inlining a function body: see the parent module.

use std::collections::HashMap;

use super::super::proto::attr_value_proto::Value;
use super::super::proto::{FunctionDef, NodeDef};
use super::{attr, is_functional, type_attr};
use crate::{registry, ArgType, Error, Result};

/// A function body inlined: its nodes, renamed; its results as tensor names; the nodes its
/// control results name.
pub(super) struct Inlined {
    pub(super) nodes: Vec<NodeDef>,
    pub(super) outputs: Vec<String>,
    pub(super) control_ret: Vec<String>,
}

/// Inlines `f` with each node renamed `prefix + name`, its arguments read from `args`, and
/// `controls` added to every node that has no input at all (so that it runs only when the call
/// does: the pivot of an If's branch).
pub(super) fn inline(
    f: &FunctionDef,
    prefix: &str,
    args: &[String],
    controls: &[String],
) -> Result<Inlined> {
    let sig = f
        .signature
        .as_ref()
        .ok_or_else(|| Error::invalid_argument("A function of the library has no signature"))?;
    let fname = &sig.name;
    if sig.input_arg.len() != args.len() {
        return Err(Error::invalid_argument(format!(
            "Function '{fname}' takes {} arguments, called with {}",
            sig.input_arg.len(),
            args.len()
        )));
    }
    let arg_of: HashMap<&str, &String> = sig
        .input_arg
        .iter()
        .map(|a| a.name.as_str())
        .zip(args)
        .collect();
    let body: HashMap<&str, &NodeDef> = f.node_def.iter().map(|n| (n.name.as_str(), n)).collect();
    let resolve = |input: &str| -> Result<String> {
        if let Some(c) = input.strip_prefix('^') {
            return match body.contains_key(c) {
                true => Ok(format!("^{prefix}{c}")),
                false => Err(Error::invalid_argument(format!(
                    "Function '{fname}': control input '{input}' names no node of its body"
                ))),
            };
        }
        if let Some(a) = arg_of.get(input) {
            return Ok((*a).clone());
        }
        let mut parts = input.split(':');
        let (node_name, arg, index) = (parts.next(), parts.next(), parts.next());
        let m = node_name.and_then(|name| body.get(name)).ok_or_else(|| {
            Error::invalid_argument(format!(
                "Function '{fname}': input '{input}' names no argument or node"
            ))
        })?;
        let flat = match (arg, index) {
            (None, _) => 0,
            (Some(arg), index) => {
                let index: usize = index.unwrap_or("0").parse().map_err(|_| {
                    Error::invalid_argument(format!("Function '{fname}': bad input '{input}'"))
                })?;
                output_index(m, arg)? + index
            }
        };
        Ok(format!("{prefix}{}:{flat}", m.name))
    };
    let mut nodes = Vec::with_capacity(f.node_def.len());
    for m in &f.node_def {
        if m.attr
            .values()
            .any(|a| matches!(a.value, Some(Value::Placeholder(_))))
        {
            return Err(Error::unimplemented(format!(
                "Function '{fname}': node '{}' has an attribute set by the function's own attributes",
                m.name
            )));
        }
        let mut input = m
            .input
            .iter()
            .map(|i| resolve(i))
            .collect::<Result<Vec<_>>>()?;
        if input.is_empty() {
            input.extend(controls.iter().cloned());
        }
        let mut m = NodeDef {
            name: format!("{prefix}{}", m.name),
            input,
            ..m.clone()
        };
        // An optional of one value is the value itself here (see DT_VARIANT).
        if let ("OptionalFromValue" | "OptionalGetValue", Some(t)) =
            (m.op.as_str(), optional_component(&m))
        {
            m = NodeDef::new(m.name, "Identity", m.input, &[("T", type_attr(t))]);
        }
        nodes.push(m);
    }
    let outputs = sig
        .output_arg
        .iter()
        .map(|o| {
            let v = f.ret.get(&o.name).ok_or_else(|| {
                Error::invalid_argument(format!(
                    "Function '{fname}' returns no value for its result '{}'",
                    o.name
                ))
            })?;
            resolve(v)
        })
        .collect::<Result<Vec<_>>>()?;
    let control_ret = f
        .control_ret
        .values()
        .map(|c| match body.contains_key(c.as_str()) {
            true => Ok(format!("{prefix}{c}")),
            false => Err(Error::invalid_argument(format!(
                "Function '{fname}': control result '{c}' names no node of its body"
            ))),
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Inlined {
        nodes,
        outputs,
        control_ret,
    })
}

/// The one component's dtype of an `OptionalFromValue` or `OptionalGetValue`.
fn optional_component(m: &NodeDef) -> Option<i32> {
    let key = match m.op.as_str() {
        "OptionalFromValue" => "Toutput_types",
        _ => "output_types",
    };
    match attr(m, key) {
        Ok(Value::List(l)) if l.r#type.len() == 1 => Some(l.r#type[0]),
        _ => None,
    }
}

/// The flat index of the first tensor of output argument `arg` of body node `m`, from its op's
/// signature (a list argument's length comes from the node's attributes).
fn output_index(m: &NodeDef, arg: &str) -> Result<usize> {
    // The optionals' one output argument each (see DT_VARIANT), and the functional ops' (a
    // nested If or call, lowered later): ops weir has no signature for.
    if matches!(
        (m.op.as_str(), arg),
        ("OptionalFromValue" | "OptionalNone", "optional") | ("OptionalGetValue", "components")
    ) || (is_functional(&m.op) && arg == "output")
    {
        return Ok(0);
    }
    let def = registry::op_def(&m.op).map_err(|e| e.with_node(&m.name, &m.op))?;
    let mut at = 0;
    for o in &def.outputs {
        if o.name == arg {
            return Ok(at);
        }
        let count = |a: &str| -> Result<usize> {
            match m.attr.get(a).and_then(|v| v.value.as_ref()) {
                Some(Value::I(i)) => Ok(*i as usize),
                Some(Value::List(l)) => Ok(l.r#type.len()),
                _ => Err(Error::invalid_argument(format!(
                    "Node '{}' ({}): attribute '{a}' is missing",
                    m.name, m.op
                ))),
            }
        };
        at += match o.ty {
            ArgType::Fixed(_) | ArgType::Attr(_) => 1,
            ArgType::Repeated { count: c, .. } | ArgType::RepeatedFixed { count: c, .. } => {
                count(c)?
            }
            ArgType::List(l) => count(l)?,
        };
    }
    Err(Error::invalid_argument(format!(
        "Node '{}' ({}) has no output argument '{arg}'",
        m.name, m.op
    )))
}
