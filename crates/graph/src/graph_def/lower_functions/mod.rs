//! TensorFlow 2's functional control flow lowered to TensorFlow 1's, before import, as
//! TensorFlow's own `LowerFunctionalOpsPass` does before running a graph: an `If` (or
//! `StatelessIf`) becomes a `Switch` per input, the two branch functions inlined behind them and
//! a `Merge` per output; a `PartitionedCall` (or `StatefulPartitionedCall`) becomes its function
//! inlined; a `While` (or `StatelessWhile`) becomes TensorFlow 1's loop frame of `Enter`, `Merge`,
//! `LoopCond`, `Switch`, `NextIteration` and `Exit` around its condition and body inlined. Only
//! the taken branch then runs, and the body as many times as the condition says, as in
//! TensorFlow.

use std::borrow::Cow;
use std::collections::HashMap;

use super::proto::attr_value_proto::Value;
use super::proto::{
    AttrValueProto, FunctionDef, GraphDef, ListValue, NodeDef, TensorProto, TensorShapeProto,
};
use crate::{Error, Result};

mod if_op;
mod inline;
mod while_op;

use if_op::{lower_call, lower_case, lower_if};
use while_op::lower_while;

/// `DataType` number of `bool`.
const DT_BOOL: i32 = 10;

/// `DataType` number of `int32`: a Case's branch index.
const DT_INT32: i32 = 3;

/// `DataType` number of `variant`: TensorFlow's cond passes the intermediates its gradient
/// needs out of a branch as optionals (`OptionalFromValue`, `OptionalNone`), which weir, having
/// no variant tensors, passes as the values themselves.
const DT_VARIANT: i32 = 21;

/// The dtype each lowered variant tensor (by `node:index`) really carries.
type VariantTypes = HashMap<String, i32>;

/// How deep functions may call functions (a function calling itself never ends).
const MAX_DEPTH: usize = 32;

/// How many nodes lowering may make: functions calling functions twice at every level would
/// double the graph per level.
const MAX_NODES: usize = 1 << 20;

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
    // Sized first, from each function's size once: functions calling functions twice at every
    // level would otherwise be found too big only after making the nodes.
    let mut sizes = HashMap::new();
    let mut total = 0usize;
    for n in &def.node {
        total = total.saturating_add(expanded_size(n, &library, &mut sizes)?);
    }
    if total > MAX_NODES {
        return Err(Error::invalid_argument(format!(
            "Inlining the graph's functions makes more than {MAX_NODES} nodes"
        )));
    }
    let mut out = Vec::with_capacity(total);
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
            | "Case"
            | "StatelessCase"
            | "PartitionedCall"
            | "StatefulPartitionedCall"
            | "While"
            | "StatelessWhile"
    )
}

/// About how many nodes `n` lowers to (at least as many); functions' sizes are kept in `sizes`
/// (`None` while one is being sized, so a function that calls itself is caught).
fn expanded_size(
    n: &NodeDef,
    library: &HashMap<&str, &FunctionDef>,
    sizes: &mut HashMap<String, Option<usize>>,
) -> Result<usize> {
    let called: &[&str] = match n.op.as_str() {
        "If" | "StatelessIf" => &["then_branch", "else_branch"],
        "PartitionedCall" | "StatefulPartitionedCall" => &["f"],
        "While" | "StatelessWhile" => &["cond", "body"],
        "Case" | "StatelessCase" => &["branches"],
        _ => return Ok(1),
    };
    // The switches, pivots and merges around the bodies.
    let mut size = 8usize.saturating_add(n.input.len().saturating_mul(2));
    // A missing or malformed function is reported by the lowering itself.
    let functions: Vec<&FunctionDef> = called
        .iter()
        .flat_map(|key| match attr(n, key) {
            Ok(Value::Func(f)) => vec![f.name.as_str()],
            Ok(Value::List(l)) => l.func.iter().map(|f| f.name.as_str()).collect(),
            _ => Vec::new(),
        })
        .filter_map(|name| library.get(name).copied())
        .collect();
    // A Case's chain of switches: one per input and branch.
    size = size.saturating_add(functions.len().saturating_mul(n.input.len() + 4));
    for f in functions {
        let name = f.signature.as_ref().map_or("", |s| s.name.as_str());
        let body = match sizes.get(name) {
            Some(Some(done)) => *done,
            Some(None) => {
                return Err(Error::invalid_argument(format!(
                    "Function '{name}' calls itself (through node '{}')",
                    n.name
                )))
            }
            None => {
                sizes.insert(name.to_string(), None);
                let mut body = 0usize;
                for m in &f.node_def {
                    body = body.saturating_add(expanded_size(m, library, sizes)?);
                }
                sizes.insert(name.to_string(), Some(body));
                body
            }
        };
        size = size.saturating_add(body);
    }
    Ok(size)
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
        if out.len() >= MAX_NODES {
            return Err(Error::invalid_argument(format!(
                "Inlining the graph's functions makes more than {MAX_NODES} nodes"
            )));
        }
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
        "Case" | "StatelessCase" => lower_case(&n, library, variants)?,
        "PartitionedCall" | "StatefulPartitionedCall" => lower_call(&n, library)?,
        _ => lower_while(&n, library)?,
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

fn merge(name: String, inputs: Vec<String>, t: i32) -> NodeDef {
    let n = inputs.len() as i64;
    NodeDef::new(
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
        return NodeDef::new(name.to_string(), "NoOp", inputs, &[]);
    }
    let t = AttrValueProto {
        value: Some(Value::List(ListValue {
            r#type: types,
            ..ListValue::default()
        })),
    };
    NodeDef::new(name.to_string(), "IdentityN", inputs, &[("T", t)])
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
    NodeDef::new(
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
