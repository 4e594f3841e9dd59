//! TensorFlow 2's functional control flow lowered to TensorFlow 1's, before import, as
//! TensorFlow's own `LowerFunctionalOpsPass` does before running a graph: an `If` (or
//! `StatelessIf`) becomes a `Switch` per input, the two branch functions inlined behind them and
//! a `Merge` per output; a `PartitionedCall` (or `StatefulPartitionedCall`) becomes its function
//! inlined. Only the taken branch then runs, as in TensorFlow. `While` loops are refused: weir
//! has no loop frames.

use std::borrow::Cow;
use std::collections::HashMap;

use super::proto::attr_value_proto::Value;
use super::proto::{
    AttrValueProto, FunctionDef, GraphDef, ListValue, NodeDef, TensorProto, TensorShapeProto,
};
use crate::{registry, ArgType, Error, Result};

/// `DataType` number of `bool`.
const DT_BOOL: i32 = 10;

/// `DataType` number of `variant`: TensorFlow's cond passes the intermediates its gradient
/// needs out of a branch as optionals (`OptionalFromValue`, `OptionalNone`), which weir, having
/// no variant tensors, passes as the values themselves.
const DT_VARIANT: i32 = 21;

/// The dtype each lowered variant tensor (by `node:index`) really carries.
type VariantTypes = HashMap<String, i32>;

/// How deep functions may call functions (a function calling itself never ends).
const MAX_DEPTH: usize = 32;

/// `def` with every functional op lowered; `def` itself when it has none.
pub(super) fn lower_functional_ops(def: &GraphDef) -> Result<Cow<'_, GraphDef>> {
    if !def.node.iter().any(|n| is_functional(&n.op)) {
        return Ok(Cow::Borrowed(def));
    }
    let library: HashMap<&str, &FunctionDef> = def
        .library
        .iter()
        .flat_map(|l| &l.function)
        .filter_map(|f| Some((f.signature.as_ref()?.name.as_str(), f)))
        .collect();
    let mut out = Vec::with_capacity(def.node.len());
    let mut variants = VariantTypes::new();
    for n in &def.node {
        expand(n.clone(), &library, &mut out, &mut variants, 0)?;
    }
    Ok(Cow::Owned(GraphDef {
        node: out,
        library: None,
        versions: def.versions.clone(),
    }))
}

fn is_functional(op: &str) -> bool {
    matches!(
        op,
        "If" | "StatelessIf"
            | "PartitionedCall"
            | "StatefulPartitionedCall"
            | "While"
            | "StatelessWhile"
    )
}

/// Appends `n` to `out`, lowered (with what its inlined functions hold, lowered too) when it is
/// a functional op.
fn expand(
    n: NodeDef,
    library: &HashMap<&str, &FunctionDef>,
    out: &mut Vec<NodeDef>,
    variants: &mut VariantTypes,
    depth: usize,
) -> Result<()> {
    if !is_functional(&n.op) {
        out.push(n);
        return Ok(());
    }
    if depth > MAX_DEPTH {
        return Err(Error::invalid_argument(format!(
            "Node '{}': functions nest more than {MAX_DEPTH} deep",
            n.name
        )));
    }
    let lowered = match n.op.as_str() {
        "If" | "StatelessIf" => lower_if(&n, library, variants)?,
        "PartitionedCall" | "StatefulPartitionedCall" => lower_call(&n, library)?,
        _ => {
            return Err(Error::unimplemented(format!(
                "Node '{}' is a {} loop (tf.while_loop in TensorFlow 2's control flow); weir has no loops",
                n.name, n.op
            )))
        }
    };
    for m in lowered {
        expand(m, library, out, variants, depth + 1)?;
    }
    Ok(())
}

fn attr<'a>(n: &'a NodeDef, name: &str) -> Result<&'a Value> {
    n.attr
        .get(name)
        .and_then(|a| a.value.as_ref())
        .ok_or_else(|| {
            Error::invalid_argument(format!(
                "Node '{}' ({}) has no attribute '{name}'",
                n.name, n.op
            ))
        })
}

fn function<'a>(
    n: &NodeDef,
    attr_name: &str,
    library: &HashMap<&str, &'a FunctionDef>,
) -> Result<&'a FunctionDef> {
    let Value::Func(f) = attr(n, attr_name)? else {
        return Err(Error::invalid_argument(format!(
            "Node '{}': attribute '{attr_name}' is not a function",
            n.name
        )));
    };
    library.get(f.name.as_str()).copied().ok_or_else(|| {
        Error::not_found(format!(
            "Node '{}': function '{}' is not in the graph's library",
            n.name, f.name
        ))
    })
}

fn types(n: &NodeDef, name: &str) -> Result<Vec<i32>> {
    match attr(n, name)? {
        Value::List(l) => Ok(l.r#type.clone()),
        _ => Err(Error::invalid_argument(format!(
            "Node '{}': attribute '{name}' is not a list of types",
            n.name
        ))),
    }
}

fn type_attr(t: i32) -> AttrValueProto {
    AttrValueProto {
        value: Some(Value::Type(t)),
    }
}

fn node(name: String, op: &str, input: Vec<String>, attrs: &[(&str, AttrValueProto)]) -> NodeDef {
    NodeDef {
        name,
        op: op.to_string(),
        input,
        device: String::new(),
        attr: attrs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    }
}

fn merge(name: String, inputs: Vec<String>, t: i32) -> NodeDef {
    let n = inputs.len() as i64;
    node(
        name,
        "Merge",
        inputs,
        &[
            ("T", type_attr(t)),
            (
                "N",
                AttrValueProto {
                    value: Some(Value::I(n)),
                },
            ),
        ],
    )
}

/// The node that takes the functional op's name: an `IdentityN` of `outputs` (of `types`), or a
/// `NoOp` when there are none, running after `controls`.
fn stand_in(name: &str, outputs: Vec<String>, types: Vec<i32>, controls: Vec<String>) -> NodeDef {
    let mut inputs = outputs;
    let empty = inputs.is_empty();
    inputs.extend(controls);
    if empty {
        return node(name.to_string(), "NoOp", inputs, &[]);
    }
    let t = AttrValueProto {
        value: Some(Value::List(ListValue {
            r#type: types,
            ..ListValue::default()
        })),
    };
    node(name.to_string(), "IdentityN", inputs, &[("T", t)])
}

/// `node:index` for an input naming `node` or `node:index`.
fn tensor_name(input: &str) -> String {
    match input.contains(':') {
        true => input.to_string(),
        false => format!("{input}:0"),
    }
}

/// The dtype of the value in the optional a function returns as output `i`, when that output
/// is made by `OptionalFromValue` of one value.
fn optional_type(f: &FunctionDef, i: usize) -> Option<i32> {
    let out = f.signature.as_ref()?.output_arg.get(i)?;
    let node_name = f.ret.get(&out.name)?.split(':').next()?;
    let m = f.node_def.iter().find(|m| m.name == node_name)?;
    match (m.op.as_str(), attr(m, "Toutput_types")) {
        ("OptionalFromValue", Ok(Value::List(l))) if l.r#type.len() == 1 => Some(l.r#type[0]),
        _ => None,
    }
}

/// A scalar zero of dtype `t` named `name`.
fn zero_constant(name: &str, t: i32, input: Vec<String>) -> NodeDef {
    let value = AttrValueProto {
        value: Some(Value::Tensor(TensorProto {
            dtype: t,
            tensor_shape: Some(TensorShapeProto::default()),
            ..TensorProto::default()
        })),
    };
    node(
        name.to_string(),
        "Const",
        input,
        &[("dtype", type_attr(t)), ("value", value)],
    )
}

/// The data and control inputs of `n`.
fn split_inputs(n: &NodeDef) -> (Vec<String>, Vec<String>) {
    n.input.iter().cloned().partition(|i| !i.starts_with('^'))
}

/// `If(cond, inputs...)` as TensorFlow's `LowerIfOpPass` writes it: the predicate switched into
/// two pivots, each input switched on the predicate, each branch inlined behind its side, and a
/// Merge per output; the If's name goes to an `IdentityN` of the merges.
fn lower_if(
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
    out.push(node(
        format!("{p}/switch_pred"),
        "Switch",
        pred_inputs,
        &[("T", type_attr(DT_BOOL))],
    ));
    let bool_t = [("T", type_attr(DT_BOOL))];
    out.push(node(
        format!("{p}/switch_f"),
        "Identity",
        vec![format!("{p}/switch_pred:0")],
        &bool_t,
    ));
    out.push(node(
        format!("{p}/switch_t"),
        "Identity",
        vec![format!("{p}/switch_pred:1")],
        &bool_t,
    ));
    for (k, (a, &t)) in args.iter().zip(&tin).enumerate() {
        let mut inputs = vec![a.clone(), cond.clone()];
        inputs.extend(controls.iter().cloned());
        out.push(node(
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
        out.push(node(
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
fn lower_call(n: &NodeDef, library: &HashMap<&str, &FunctionDef>) -> Result<Vec<NodeDef>> {
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

/// A function body inlined: its nodes, renamed; its results as tensor names; the nodes its
/// control results name.
struct Inlined {
    nodes: Vec<NodeDef>,
    outputs: Vec<String>,
    control_ret: Vec<String>,
}

/// Inlines `f` with each node renamed `prefix + name`, its arguments read from `args`, and
/// `controls` added to every node that has no input at all (so that it runs only when the call
/// does: the pivot of an If's branch).
fn inline(f: &FunctionDef, prefix: &str, args: &[String], controls: &[String]) -> Result<Inlined> {
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
            m = node(m.name, "Identity", m.input, &[("T", type_attr(t))]);
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
