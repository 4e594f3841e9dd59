//! TensorFlow's Example parsers whose feature keys are inputs (`ParseExample` as TensorFlow 1.x
//! writes it, `ParseSingleSequenceExample`), read as weir's forms of the same ops, which name the
//! keys in attributes. The keys must be constants, as TensorFlow's Python writes them.
//! TensorFlow 2's `ParseSequenceExampleV2` takes its keys as inputs in weir too, so it imports
//! as it is.

use std::collections::HashMap;

use super::import::tensor_from_proto;
use super::proto::attr_value_proto::Value;
use super::proto::{AttrValueProto, ListValue, NodeDef};
use crate::{Error, Result, Tensor};

/// A node in weir's form: its op, which of its inputs it keeps (by position; control inputs
/// always stay) and its attributes.
pub(super) struct WeirForm {
    pub(super) op: &'static str,
    pub(super) keep: Vec<usize>,
    pub(super) attrs: Vec<(String, AttrValueProto)>,
}

/// The attributes TensorFlow's sequence parsers share with weir's, unchanged.
const SEQUENCE_ATTRS: &[&str] = &[
    "Ncontext_sparse",
    "context_sparse_types",
    "Tcontext_dense",
    "context_dense_shapes",
    "Nfeature_list_sparse",
    "feature_list_sparse_types",
    "feature_list_dense_types",
    "feature_list_dense_shapes",
];

fn strs(v: Vec<String>) -> AttrValueProto {
    AttrValueProto {
        value: Some(Value::List(ListValue {
            s: v.into_iter().map(bytes::Bytes::from).collect(),
            ..ListValue::default()
        })),
    }
}

fn count(n: &NodeDef, attr: &str) -> Result<usize> {
    match n.attr.get(attr).and_then(|a| a.value.as_ref()) {
        Some(Value::I(i)) => usize::try_from(*i)
            .map_err(|_| Error::invalid_argument(format!("Node '{}': {attr} is {i}", n.name))),
        _ => Err(Error::invalid_argument(format!(
            "Node '{}' has no int attribute {attr}",
            n.name
        ))),
    }
}

/// The strings of the constant feeding input `i` of `n`.
fn constant_strings(
    n: &NodeDef,
    i: usize,
    by_name: &HashMap<&str, &NodeDef>,
) -> Result<Vec<String>> {
    constant(n, i, by_name)?.to_strings()
}

/// The value of the constant feeding input `i` of `n`.
fn constant(n: &NodeDef, i: usize, by_name: &HashMap<&str, &NodeDef>) -> Result<Tensor> {
    let input = n
        .input
        .get(i)
        .ok_or_else(|| Error::invalid_argument(format!("Node '{}' has too few inputs", n.name)))?;
    let src = input.split(':').next().unwrap_or(input);
    let producer = by_name
        .get(src)
        .filter(|p| p.op == "Const")
        .ok_or_else(|| {
            Error::unimplemented(format!(
                "Node '{}': weir reads {}'s feature keys from constants, and '{src}' is not one",
                n.name, n.op
            ))
        })?;
    match producer.attr.get("value").and_then(|a| a.value.as_ref()) {
        Some(Value::Tensor(t)) => tensor_from_proto(t),
        _ => Err(Error::invalid_argument(format!(
            "Constant '{src}' has no value"
        ))),
    }
}

/// weir's `example_name` attribute from the debug name constant at input `i` (`<unknown>`, as
/// weir's messages call an unnamed example, when it is empty).
fn example_name(
    n: &NodeDef,
    i: usize,
    by_name: &HashMap<&str, &NodeDef>,
) -> Result<(String, AttrValueProto)> {
    let name = constant_strings(n, i, by_name)?
        .pop()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "<unknown>".to_string());
    let value = AttrValueProto {
        value: Some(Value::S(name.into())),
    };
    Ok(("example_name".into(), value))
}

/// The keys of `count` scalar key inputs from `first` on, as one list.
fn key_list(
    n: &NodeDef,
    first: usize,
    count: usize,
    by_name: &HashMap<&str, &NodeDef>,
) -> Result<Vec<String>> {
    let mut keys = Vec::with_capacity(count);
    for i in first..first + count {
        keys.extend(constant_strings(n, i, by_name)?);
    }
    Ok(keys)
}

/// `n` in weir's form when it is one of TensorFlow's key-input parsers; `None` otherwise.
pub(super) fn weir_form(
    n: &NodeDef,
    by_name: &HashMap<&str, &NodeDef>,
) -> Result<Option<WeirForm>> {
    let copy = |names: &[&str]| -> Vec<(String, AttrValueProto)> {
        names
            .iter()
            .filter_map(|k| n.attr.get(*k).map(|v| (k.to_string(), v.clone())))
            .collect()
    };
    match n.op.as_str() {
        // TensorFlow 1.x: serialized, names, Nsparse key scalars, Ndense key scalars, defaults.
        "ParseExample" if n.attr.contains_key("Ndense") => {
            let (ns, nd) = (count(n, "Nsparse")?, count(n, "Ndense")?);
            let sparse_keys = key_list(n, 2, ns, by_name)?;
            let dense_keys = key_list(n, 2 + ns, nd, by_name)?;
            let mut attrs = copy(&["Nsparse", "sparse_types", "Tdense", "dense_shapes"]);
            attrs.push(("sparse_keys".into(), strs(sparse_keys)));
            attrs.push(("dense_keys".into(), strs(dense_keys)));
            let keep = [0, 1]
                .into_iter()
                .chain(2 + ns + nd..2 + ns + 2 * nd)
                .collect();
            Ok(Some(WeirForm {
                op: "ParseExample",
                keep,
                attrs,
            }))
        }
        // serialized, feature_list_dense_missing_assumed_empty, the four groups of key
        // scalars, the context defaults, debug_name.
        "ParseSingleSequenceExample" if n.attr.contains_key("Ncontext_dense") => {
            let groups = [
                ("context_sparse_keys", count(n, "Ncontext_sparse")?),
                ("context_dense_keys", count(n, "Ncontext_dense")?),
                (
                    "feature_list_sparse_keys",
                    count(n, "Nfeature_list_sparse")?,
                ),
                ("feature_list_dense_keys", count(n, "Nfeature_list_dense")?),
            ];
            let mut attrs = copy(SEQUENCE_ATTRS);
            let missing = constant_strings(n, 1, by_name)?;
            attrs.push((
                "feature_list_dense_missing_assumed_empty".into(),
                strs(missing),
            ));
            let mut at = 2;
            for (group, count) in groups {
                attrs.push((group.into(), strs(key_list(n, at, count, by_name)?)));
                at += count;
            }
            let defaults = groups[1].1;
            attrs.push(example_name(n, at + defaults, by_name)?);
            let keep = std::iter::once(0).chain(at..at + defaults).collect();
            Ok(Some(WeirForm {
                op: "ParseSingleSequenceExample",
                keep,
                attrs,
            }))
        }
        _ => Ok(None),
    }
}
