//! The TensorFlow forms of weir's Example parsers, which name their feature keys in
//! attributes: TensorFlow's ops take the keys as (constant) inputs.

use super::expansion::{int_attr, type_attr, type_list, Expansion};
use crate::graph_def::attr_proto;
use crate::graph_def::proto::AttrValueProto;
use crate::{AttrValue, DType, Node};

/// Adds `node`'s TensorFlow form to `e`; `None` when an attribute is missing.
pub(super) fn expand(node: &Node, inputs: &[String], e: &mut Expansion<'_>) -> Option<()> {
    let attr = |k: &str| -> Option<AttrValueProto> { attr_proto(node.attrs().get(k)?).ok() };
    let keys = |k: &str| match node.attrs().get(k) {
        Some(AttrValue::Strs(v)) => Some(v.clone()),
        _ => None,
    };
    match node.op_type() {
        // weir's ParseExample names its keys in attributes; TensorFlow 2 writes ParseExampleV2,
        // whose keys are constant inputs (with the same outputs, in the same order).
        "ParseExample" => {
            let (sparse_keys, dense_keys) = (keys("sparse_keys")?, keys("dense_keys")?);
            let sk = e.string_vec_const("sparse_keys", &sparse_keys);
            let dk = e.string_vec_const("dense_keys", &dense_keys);
            let rk = e.string_vec_const("ragged_keys", &[]);
            let mut ins: Vec<&str> = vec![&inputs[0], &inputs[1], &sk, &dk, &rk];
            ins.extend(inputs[2..].iter().map(String::as_str));
            let no_types = type_list(&[]);
            e.add(
                "",
                "ParseExampleV2",
                &ins,
                &[
                    ("Tdense", attr("Tdense")?),
                    ("num_sparse", int_attr(sparse_keys.len() as i64)),
                    ("sparse_types", attr("sparse_types")?),
                    ("ragged_value_types", no_types.clone()),
                    ("ragged_split_types", no_types),
                    ("dense_shapes", attr("dense_shapes")?),
                ],
            );
        }
        // sparse_ops.sparse_merge_impl (a SparseFeature of parse_example): the indices but
        // their last column, then each id as a column; the shape but its last entry, then the
        // sizes; SparseReorder unless the ids are already sorted.
        "SparseFeatureMerge" => {
            let t = super::type_of(node, "T")?;
            let sizes = match node.attrs().get("sizes") {
                Some(AttrValue::Ints(v)) => v.clone(),
                _ => return None,
            };
            let sorted = matches!(
                node.attrs().get("already_sorted"),
                Some(AttrValue::Bool(true))
            );
            let ids = &inputs[2..inputs.len() - 1];
            let values = inputs.last()?;
            let (i32t, i64t) = (type_attr(DType::I32), type_attr(DType::I64));
            let kept = e.strided_slice(
                "strided_slice",
                &inputs[0],
                DType::I64,
                &[0, 0],
                &[0, -1],
                &[1, 1],
                3,
                1,
            );
            let mut columns = vec![kept];
            for (k, id) in ids.iter().enumerate() {
                let axis = e.int32_const(&format!("ExpandDims_{k}/dim"), 1);
                columns.push(e.add(
                    &format!("ExpandDims_{k}"),
                    "ExpandDims",
                    &[id, &axis],
                    &[("T", i64t.clone()), ("Tdim", i32t.clone())],
                ));
            }
            let concat = |e: &mut Expansion<'_>, name: &str, parts: &[String], axis: i32| {
                let axis = e.int32_const(&format!("{name}/axis"), axis);
                let mut ins: Vec<&str> = parts.iter().map(String::as_str).collect();
                ins.push(&axis);
                e.add(
                    name,
                    "ConcatV2",
                    &ins,
                    &[
                        ("N", int_attr(parts.len() as i64)),
                        ("T", type_attr(DType::I64)),
                        ("Tidx", type_attr(DType::I32)),
                    ],
                )
            };
            let indices = concat(e, "concat", &columns, 1);
            let outer = e.strided_slice(
                "strided_slice_1",
                &inputs[1],
                DType::I64,
                &[0],
                &[-1],
                &[1],
                1,
                0,
            );
            let vocab = e.int64_vec_const("vocab_size", &sizes);
            let shape = concat(e, "concat_1", &[outer, vocab], 0);
            let (indices, values) = if sorted {
                (indices, values.clone())
            } else {
                let r = e.add(
                    "SparseReorder",
                    "SparseReorder",
                    &[&indices, values, &shape],
                    &[("T", type_attr(t))],
                );
                (format!("{r}:0"), format!("{r}:1"))
            };
            e.add(
                "",
                "IdentityN",
                &[&indices, &values, &shape],
                &[("T", type_list(&[DType::I64, t, DType::I64]))],
            );
        }
        // parsing_ops.parse_single_sequence_example: one scalar constant per key.
        _ => {
            let mut ins: Vec<String> = vec![inputs[0].clone()];
            let missing = keys("feature_list_dense_missing_assumed_empty")?;
            ins.push(e.string_vec_const("feature_list_dense_missing_assumed_empty", &missing));
            let mut counts = Vec::new();
            for (group, count) in [
                ("context_sparse_keys", "Ncontext_sparse"),
                ("context_dense_keys", "Ncontext_dense"),
                ("feature_list_sparse_keys", "Nfeature_list_sparse"),
                ("feature_list_dense_keys", "Nfeature_list_dense"),
            ] {
                let ks = keys(group)?;
                for (k, key) in ks.iter().enumerate() {
                    ins.push(e.string_const(&format!("{group}_{k}"), key));
                }
                counts.push((count, int_attr(ks.len() as i64)));
            }
            ins.extend(inputs[1..].iter().cloned());
            let name = match node.attrs().get("example_name") {
                Some(AttrValue::Str(n)) if n != "<unknown>" => n.clone(),
                _ => String::new(),
            };
            ins.push(e.string_const("debug_name", &name));
            let ins: Vec<&str> = ins.iter().map(String::as_str).collect();
            let mut attrs = counts;
            for k in [
                "context_sparse_types",
                "Tcontext_dense",
                "feature_list_dense_types",
                "context_dense_shapes",
                "feature_list_sparse_types",
                "feature_list_dense_shapes",
            ] {
                attrs.push((k, attr(k)?));
            }
            e.add("", "ParseSingleSequenceExample", &ins, &attrs);
        }
    }
    Some(())
}
