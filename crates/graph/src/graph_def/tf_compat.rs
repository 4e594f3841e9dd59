//! weir's composite ops written as the TensorFlow ops that Python builds in their place, so an
//! exported graph imports into TensorFlow. Each composite becomes a few nodes under its name;
//! the last keeps the name, so its consumers read it unchanged.

use bytes::Bytes;

use super::data_type_number;
use super::proto::attr_value_proto::Value;
use super::proto::{AttrValueProto, NodeDef, TensorProto, TensorShapeProto};
use crate::{AttrValue, DType, Node};

fn type_attr(d: DType) -> AttrValueProto {
    AttrValueProto {
        value: Some(Value::Type(data_type_number(d))),
    }
}

fn int_attr(i: i64) -> AttrValueProto {
    AttrValueProto {
        value: Some(Value::I(i)),
    }
}

/// Builds the nodes of one expansion; every node carries the composite's control inputs.
struct Expansion<'a> {
    name: &'a str,
    controls: Vec<String>,
    nodes: Vec<NodeDef>,
}

impl Expansion<'_> {
    /// Adds `name/suffix` (or the composite's own name when `suffix` is empty) and returns its
    /// name as an input.
    fn add(
        &mut self,
        suffix: &str,
        op: &str,
        inputs: &[&str],
        attrs: &[(&str, AttrValueProto)],
    ) -> String {
        let name = if suffix.is_empty() {
            self.name.to_string()
        } else {
            format!("{}/{suffix}", self.name)
        };
        let mut input: Vec<String> = inputs.iter().map(|s| s.to_string()).collect();
        input.extend(self.controls.iter().cloned());
        self.nodes.push(NodeDef {
            name: name.clone(),
            op: op.to_string(),
            input,
            device: String::new(),
            attr: attrs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        });
        name
    }

    fn int32_const(&mut self, suffix: &str, v: i32) -> String {
        let value = AttrValueProto {
            value: Some(Value::Tensor(TensorProto {
                dtype: data_type_number(DType::I32),
                tensor_shape: Some(TensorShapeProto::default()),
                int_val: vec![v],
                tensor_content: Bytes::new(),
                ..TensorProto::default()
            })),
        };
        self.add(
            suffix,
            "Const",
            &[],
            &[("dtype", type_attr(DType::I32)), ("value", value)],
        )
    }

    /// `x` as int32, through a Cast when it is not.
    fn cast_int32(&mut self, suffix: &str, x: &str, d: DType) -> String {
        if d == DType::I32 {
            return x.to_string();
        }
        self.add(
            suffix,
            "Cast",
            &[x],
            &[("SrcT", type_attr(d)), ("DstT", type_attr(DType::I32))],
        )
    }
}

/// `node`'s TensorFlow form when it is one of weir's composites, given its data input names and
/// control input names (`^node`); `None` for an op TensorFlow has.
pub(super) fn expand(node: &Node, inputs: &[String], controls: &[String]) -> Option<Vec<NodeDef>> {
    let mut e = Expansion {
        name: node.name(),
        controls: controls.to_vec(),
        nodes: Vec::new(),
    };
    let ty = |k: &str| match node.attrs().get(k) {
        Some(AttrValue::Type(d)) => Some(*d),
        _ => None,
    };
    match node.op_type() {
        // math_ops.reduced_shape: the input shape with the reduced axes set to 1.
        "ReducedShape" => {
            let (t, tidx) = (ty("T")?, ty("Tidx")?);
            let i32t = type_attr(DType::I32);
            let shape = e.cast_int32("shape_int32", &inputs[0], t);
            let axes = e.cast_int32("axes_int32", &inputs[1], tidx);
            let rank = e.add(
                "rank",
                "Size",
                &[&shape],
                &[("T", i32t.clone()), ("out_type", i32t.clone())],
            );
            let sum = e.add("add", "AddV2", &[&axes, &rank], &[("T", i32t.clone())]);
            let axes = e.add("mod", "FloorMod", &[&sum, &rank], &[("T", i32t.clone())]);
            let axes_shape = e.add(
                "axes_shape",
                "Shape",
                &[&axes],
                &[("T", i32t.clone()), ("out_type", i32t.clone())],
            );
            let one = e.int32_const("one", 1);
            let zero = e.int32_const("zero", 0);
            let ones = e.add(
                "ones",
                "Fill",
                &[&axes_shape, &one],
                &[("T", i32t.clone()), ("index_type", i32t.clone())],
            );
            let range = e.add(
                "range",
                "Range",
                &[&zero, &rank, &one],
                &[("Tidx", i32t.clone())],
            );
            let stitched_name = if t == DType::I32 { "" } else { "stitch" };
            let stitched = e.add(
                stitched_name,
                "DynamicStitch",
                &[&range, &axes, &shape, &ones],
                &[("N", int_attr(2)), ("T", i32t.clone())],
            );
            if t != DType::I32 {
                e.add(
                    "",
                    "Cast",
                    &[&stitched],
                    &[("SrcT", i32t), ("DstT", type_attr(t))],
                );
            }
        }
        // init_ops: a standard draw, scaled and shifted (uniform: a + (b - a) * u; the normals:
        // a + b * z).
        "RandomInitializer" => {
            let dt = ty("dtype")?;
            let dist = match node.attrs().get("distribution") {
                Some(AttrValue::Str(s)) => s.as_str(),
                _ => return None,
            };
            let op = match dist {
                "uniform" => "RandomUniform",
                "normal" => "RandomStandardNormal",
                "truncated_normal" => "TruncatedNormal",
                _ => return None,
            };
            let seed = |k: &str| match node.attrs().get(k) {
                Some(AttrValue::Int(i)) => *i,
                _ => 0,
            };
            let draw = e.add(
                op,
                op,
                &[&inputs[0]],
                &[
                    ("dtype", type_attr(dt)),
                    ("T", type_attr(DType::I32)),
                    ("seed", int_attr(seed("seed"))),
                    ("seed2", int_attr(seed("seed2"))),
                ],
            );
            let scale = if dist == "uniform" {
                e.add(
                    "sub",
                    "Sub",
                    &[&inputs[2], &inputs[1]],
                    &[("T", type_attr(dt))],
                )
            } else {
                inputs[2].clone()
            };
            let scaled = e.add("mul", "Mul", &[&draw, &scale], &[("T", type_attr(dt))]);
            e.add("", "AddV2", &[&scaled, &inputs[1]], &[("T", type_attr(dt))]);
        }
        _ => return None,
    }
    Some(e.nodes)
}
