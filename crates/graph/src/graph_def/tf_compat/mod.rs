//! weir's composite ops written as the TensorFlow ops that Python builds in their place, so an
//! exported graph imports into TensorFlow. Each composite becomes a few nodes under its name;
//! the last keeps the name, so its consumers read it unchanged.

mod expansion;
mod input;
mod parsing;
mod variables;

use expansion::{int_attr, type_attr, Expansion};

use super::proto::attr_value_proto::Value;
use super::proto::{AttrValueProto, NodeDef};
use crate::{AttrValue, DType, Node};

/// `node`'s type attribute `k`, if it has one.
fn type_of(node: &Node, k: &str) -> Option<DType> {
    match node.attrs().get(k) {
        Some(AttrValue::Type(d)) => Some(*d),
        _ => None,
    }
}

/// A random op's `seed` or `seed2` attribute (0, TensorFlow's default, when unset).
fn seed(node: &Node, attr: &str) -> i64 {
    match node.attrs().get(attr) {
        Some(AttrValue::Int(i)) => *i,
        _ => 0,
    }
}

/// `node`'s TensorFlow form when it is one of weir's composites, given its data input names and
/// control input names (`^node`); `None` for an op TensorFlow has.
/// `producers` are the nodes of the data inputs and which of their outputs each is, in order.
pub(super) fn expand(
    node: &Node,
    inputs: &[String],
    producers: &[(&Node, usize)],
    controls: &[String],
) -> Option<Vec<NodeDef>> {
    let mut e = Expansion {
        name: node.name(),
        controls: controls.to_vec(),
        nodes: Vec::new(),
    };
    let ty = |k: &str| type_of(node, k);
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
            let draw = e.add(
                op,
                op,
                &[&inputs[0]],
                &[
                    ("dtype", type_attr(dt)),
                    ("T", type_attr(DType::I32)),
                    ("seed", int_attr(seed(node, "seed"))),
                    ("seed2", int_attr(seed(node, "seed2"))),
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
        // learning_rate_decay.exponential_decay: lr * rate ^ (step / steps), floored when
        // staircase, every operand cast to the rate's dtype.
        "ExponentialDecay" => {
            let t = ty("T")?;
            let step = e.cast("Cast", &inputs[1], ty("Tstep")?, t);
            let steps = e.cast("Cast_1", &inputs[2], ty("Tsteps")?, t);
            let rate = e.cast("Cast_2", &inputs[3], ty("Trate")?, t);
            let mut p = e.add(
                "truediv",
                "RealDiv",
                &[&step, &steps],
                &[("T", type_attr(t))],
            );
            if let Some(AttrValue::Bool(true)) = node.attrs().get("staircase") {
                p = e.add("Floor", "Floor", &[&p], &[("T", type_attr(t))]);
            }
            let pow = e.add("Pow", "Pow", &[&rate, &p], &[("T", type_attr(t))]);
            e.add("", "Mul", &[&inputs[0], &pow], &[("T", type_attr(t))]);
        }
        // piecewise_constant: values[number of boundaries below x] (boundaries increase), the
        // case TensorFlow's Python builds as control flow.
        "PiecewiseConstant" => {
            let (tx, t) = (ty("Tx")?, ty("T")?);
            let below = e.add(
                "Less",
                "Less",
                &[&inputs[1], &inputs[0]],
                &[("T", type_attr(tx))],
            );
            let counts = e.cast("Cast", &below, DType::Bool, DType::I32);
            let axis = e.int32_const("axis", 0);
            let index = e.add(
                "Sum",
                "Sum",
                &[&counts, &axis],
                &[
                    ("T", type_attr(DType::I32)),
                    ("Tidx", type_attr(DType::I32)),
                    (
                        "keep_dims",
                        AttrValueProto {
                            value: Some(Value::B(false)),
                        },
                    ),
                ],
            );
            e.add(
                "",
                "GatherV2",
                &[&inputs[2], &index, &axis],
                &[
                    ("Tparams", type_attr(t)),
                    ("Tindices", type_attr(DType::I32)),
                    ("Taxis", type_attr(DType::I32)),
                    ("batch_dims", int_attr(0)),
                ],
            );
        }
        // nn_ops.dropout: kept where a uniform draw is at least rate = 1 - keep_prob, scaled by
        // 1 / (1 - rate); the second output is that scale where kept (weir's mask).
        "Dropout" => {
            let t = ty("T")?;
            let ta = || type_attr(t);
            let one = e.scalar_const("one", t, 1.0);
            let rate = e.add("rate", "Sub", &[&one, &inputs[1]], &[("T", ta())]);
            let kept_share = e.add("sub", "Sub", &[&one, &rate], &[("T", ta())]);
            let scale = e.add("truediv", "RealDiv", &[&one, &kept_share], &[("T", ta())]);
            let shape = e.add(
                "Shape",
                "Shape",
                &[&inputs[0]],
                &[("T", ta()), ("out_type", type_attr(DType::I32))],
            );
            let draw = e.add(
                "random_uniform",
                "RandomUniform",
                &[&shape],
                &[
                    ("dtype", ta()),
                    ("T", type_attr(DType::I32)),
                    ("seed", int_attr(seed(node, "seed"))),
                    ("seed2", int_attr(seed(node, "seed2"))),
                ],
            );
            let keep = e.add(
                "GreaterEqual",
                "GreaterEqual",
                &[&draw, &rate],
                &[("T", ta())],
            );
            let keep = e.cast("Cast", &keep, DType::Bool, t);
            let scaled = e.add("mul", "Mul", &[&inputs[0], &scale], &[("T", ta())]);
            let out = e.add("mul_1", "Mul", &[&scaled, &keep], &[("T", ta())]);
            let mask = e.add("mask", "Mul", &[&scale, &keep], &[("T", ta())]);
            e.two_outputs(&out, &mask, t);
        }
        "DropoutGrad" => {
            let t = ty("T")?;
            e.add("", "Mul", &[&inputs[0], &inputs[1]], &[("T", type_attr(t))]);
        }
        // nn_impl.sigmoid_cross_entropy_with_logits:
        // max(x, 0) - x * z + log1p(exp(-|x|)), with the max and -|x| as selects.
        "SigmoidCrossEntropyWithLogits" => {
            let t = ty("T")?;
            let ta = || type_attr(t);
            let (x, z) = (&inputs[0], &inputs[1]);
            let zeros = e.add("zeros_like", "ZerosLike", &[x], &[("T", ta())]);
            let cond = e.add("GreaterEqual", "GreaterEqual", &[x, &zeros], &[("T", ta())]);
            let relu = e.add("SelectV2", "SelectV2", &[&cond, x, &zeros], &[("T", ta())]);
            let neg = e.add("Neg", "Neg", &[x], &[("T", ta())]);
            let neg_abs = e.add("SelectV2_1", "SelectV2", &[&cond, &neg, x], &[("T", ta())]);
            let xz = e.add("mul", "Mul", &[x, z], &[("T", ta())]);
            let diff = e.add("sub", "Sub", &[&relu, &xz], &[("T", ta())]);
            let exp = e.add("Exp", "Exp", &[&neg_abs], &[("T", ta())]);
            let log = e.add("Log1p", "Log1p", &[&exp], &[("T", ta())]);
            e.add("", "AddV2", &[&diff, &log], &[("T", ta())]);
        }
        // Its gradient: d/dx = g * (sigmoid(x) - z), d/dz = -(g * x).
        "SigmoidCrossEntropyWithLogitsGrad" => {
            let t = ty("T")?;
            let ta = || type_attr(t);
            let (x, z, g) = (&inputs[0], &inputs[1], &inputs[2]);
            let sig = e.add("Sigmoid", "Sigmoid", &[x], &[("T", ta())]);
            let diff = e.add("sub", "Sub", &[&sig, z], &[("T", ta())]);
            let dx = e.add("mul", "Mul", &[g, &diff], &[("T", ta())]);
            let gx = e.add("mul_1", "Mul", &[g, x], &[("T", ta())]);
            let dz = e.add("Neg", "Neg", &[&gx], &[("T", ta())]);
            e.two_outputs(&dx, &dz, t);
        }
        "ParseExample" | "ParseSingleSequenceExample" | "SparseFeatureMerge" => {
            parsing::expand(node, inputs, &mut e)?
        }
        "IsVariableInitialized" | "ReportUninitializedVariables" => {
            variables::expand(node, inputs, producers, &mut e)?
        }
        _ => input::expand(node, inputs, producers, &mut e)?,
    }
    Some(e.nodes)
}
