//! The TensorFlow forms of weir's variable checks: TensorFlow's `IsVariableInitialized` names
//! the variable's dtype, and `report_uninitialized_variables` is built from it.

use super::expansion::{int_attr, type_attr, Expansion};
use crate::graph_def::proto::attr_value_proto::Value;
use crate::graph_def::proto::AttrValueProto;
use crate::{AttrValue, DType, Node};

/// TensorFlow's check of the variable `producer` makes, as `name/suffix` in `e`: TF1's
/// `IsVariableInitialized` of a `VariableV2` (naming its dtype), or `VarIsInitializedOp` of a
/// resource variable's handle.
fn is_initialized(
    e: &mut Expansion<'_>,
    suffix: &str,
    input: &str,
    producer: &Node,
) -> Option<String> {
    match (producer.op_type(), producer.attrs().get("dtype")) {
        ("VariableV2", Some(AttrValue::Type(d))) => Some(e.add(
            suffix,
            "IsVariableInitialized",
            &[input],
            &[("dtype", type_attr(*d))],
        )),
        ("VarHandleOp", _) => Some(e.add(suffix, "VarIsInitializedOp", &[input], &[])),
        _ => None,
    }
}

/// Adds `node`'s TensorFlow form to `e`; `None` when an input is not a variable of known dtype.
pub(super) fn expand(
    node: &Node,
    inputs: &[String],
    producers: &[(&Node, usize)],
    e: &mut Expansion<'_>,
) -> Option<()> {
    match node.op_type() {
        "IsVariableInitialized" => {
            is_initialized(e, "", &inputs[0], producers.first()?.0)?;
        }
        // variables.report_uninitialized_variables: boolean_mask(names, not(stack(inited))).
        _ => {
            let names = match node.attrs().get("var_names") {
                Some(AttrValue::Strs(n)) => n.clone(),
                _ => return None,
            };
            let string_t = type_attr(DType::String);
            if names.is_empty() {
                e.string_vec_const("", &names);
                return Some(());
            }
            let mut inited = Vec::new();
            for (k, (input, &(producer, _))) in inputs.iter().zip(producers).enumerate() {
                let suffix = if k == 0 {
                    "IsVariableInitialized".to_string()
                } else {
                    format!("IsVariableInitialized_{k}")
                };
                inited.push(is_initialized(e, &suffix, input, producer)?);
            }
            let inited: Vec<&str> = inited.iter().map(String::as_str).collect();
            let bool_t = type_attr(DType::Bool);
            let stacked = e.add(
                "stack",
                "Pack",
                &inited,
                &[
                    ("N", int_attr(inited.len() as i64)),
                    ("T", bool_t.clone()),
                    ("axis", int_attr(0)),
                ],
            );
            let mask = e.add("LogicalNot", "LogicalNot", &[&stacked], &[]);
            let all = e.string_vec_const("Const", &names);
            let where_ = e.add("boolean_mask/Where", "Where", &[&mask], &[("T", bool_t)]);
            let i64t = type_attr(DType::I64);
            let idx = e.add(
                "boolean_mask/Squeeze",
                "Squeeze",
                &[&where_],
                &[
                    ("T", i64t.clone()),
                    (
                        "squeeze_dims",
                        AttrValueProto {
                            value: Some(Value::List(super::super::proto::ListValue {
                                i: vec![1],
                                ..Default::default()
                            })),
                        },
                    ),
                ],
            );
            let axis = e.int32_const("boolean_mask/GatherV2/axis", 0);
            e.add(
                "",
                "GatherV2",
                &[&all, &idx, &axis],
                &[
                    ("Tparams", string_t),
                    ("Tindices", i64t),
                    ("Taxis", type_attr(DType::I32)),
                    ("batch_dims", int_attr(0)),
                ],
            );
        }
    }
    Some(())
}
