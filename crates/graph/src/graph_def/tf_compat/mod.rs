//! weir's composite ops written as the TensorFlow ops that Python builds in their place, so an
//! exported graph imports into TensorFlow. Each composite becomes a few nodes under its name;
//! the last keeps the name, so its consumers read it unchanged.

mod expansion;

use expansion::{int_attr, type_attr, type_list, Expansion};

use super::proto::attr_value_proto::Value;
use super::proto::{AttrValueProto, NodeDef};
use crate::{AttrValue, DType, Node};

/// A random op's `seed` or `seed2` attribute (0, TensorFlow's default, when unset).
fn seed(node: &Node, attr: &str) -> i64 {
    match node.attrs().get(attr) {
        Some(AttrValue::Int(i)) => *i,
        _ => 0,
    }
}

/// The range of integer dtype `d`; `None` for any other.
fn int_range(d: DType) -> Option<(i128, i128)> {
    Some(match d {
        DType::I8 => (i8::MIN.into(), i8::MAX.into()),
        DType::I16 => (i16::MIN.into(), i16::MAX.into()),
        DType::I32 => (i32::MIN.into(), i32::MAX.into()),
        DType::I64 => (i64::MIN.into(), i64::MAX.into()),
        DType::U8 => (0, u8::MAX.into()),
        DType::U16 => (0, u16::MAX.into()),
        _ => return None,
    })
}

/// The largest value of float dtype `d` not above the integer `v` (numpy's `nextafter` toward
/// zero in `saturate_cast`, when `v` itself rounds up).
fn float_floor(d: DType, v: i128) -> f64 {
    if d == DType::F32 {
        let f = v as f32;
        let f = if f as i128 > v {
            f32::from_bits(f.to_bits() - 1)
        } else {
            f
        };
        f64::from(f)
    } else {
        let f = v as f64;
        if f as i128 > v {
            f64::from_bits(f.to_bits() - 1)
        } else {
            f
        }
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
        // image_ops.per_image_standardization: (x - mean) / max(stddev, rsqrt(N)) over the
        // last three dimensions, in float32; stddev is reduce_std's sqrt of the mean squared
        // deviation.
        "PerImageStandardization" => {
            let t = ty("T")?;
            let (f32t, i32t) = (type_attr(DType::F32), type_attr(DType::I32));
            let x = e.cast("Cast", &inputs[0], t, DType::F32);
            let axes = e.int32_vec_const("axes", &[-1, -2, -3]);
            let keep = || {
                (
                    "keep_dims",
                    AttrValueProto {
                        value: Some(Value::B(true)),
                    },
                )
            };
            let mean_attrs = [("T", f32t.clone()), ("Tidx", i32t.clone()), keep()];
            let mean = e.add("Mean", "Mean", &[&x, &axes], &mean_attrs);
            let dev = e.add(
                "reduce_std/sub",
                "Sub",
                &[&x, &mean],
                &[("T", f32t.clone())],
            );
            let sq = e.add(
                "reduce_std/Square",
                "Square",
                &[&dev],
                &[("T", f32t.clone())],
            );
            let var = e.add("reduce_std/Mean", "Mean", &[&sq, &axes], &mean_attrs);
            let std = e.add("reduce_std/Sqrt", "Sqrt", &[&var], &[("T", f32t.clone())]);
            let shape = e.add(
                "Shape",
                "Shape",
                &[&x],
                &[("T", f32t.clone()), ("out_type", i32t.clone())],
            );
            let (begin, end, stride) = (
                e.int32_vec_const("strided_slice/stack", &[-3]),
                e.int32_vec_const("strided_slice/stack_1", &[0]),
                e.int32_vec_const("strided_slice/stack_2", &[1]),
            );
            let mask = |k: &'static str, v: i64| (k, int_attr(v));
            let last3 = e.add(
                "strided_slice",
                "StridedSlice",
                &[&shape, &begin, &end, &stride],
                &[
                    ("T", i32t.clone()),
                    ("Index", i32t.clone()),
                    mask("begin_mask", 0),
                    mask("end_mask", 1),
                    mask("ellipsis_mask", 0),
                    mask("new_axis_mask", 0),
                    mask("shrink_axis_mask", 0),
                ],
            );
            let axis0 = e.int32_vec_const("Const", &[0]);
            let n = e.add(
                "Prod",
                "Prod",
                &[&last3, &axis0],
                &[
                    ("T", i32t.clone()),
                    ("Tidx", i32t),
                    (
                        "keep_dims",
                        AttrValueProto {
                            value: Some(Value::B(false)),
                        },
                    ),
                ],
            );
            let n = e.cast("Cast_1", &n, DType::I32, DType::F32);
            let min_std = e.add("Rsqrt", "Rsqrt", &[&n], &[("T", f32t.clone())]);
            let adjusted = e.add(
                "Maximum",
                "Maximum",
                &[&std, &min_std],
                &[("T", f32t.clone())],
            );
            let centered = e.add("sub", "Sub", &[&x, &mean], &[("T", f32t.clone())]);
            e.add("", "RealDiv", &[&centered, &adjusted], &[("T", f32t)]);
        }
        // image_ops.convert_image_dtype: integers scale by the ratio of the types' maxima,
        // floats are [0, 1] (to an integer: times max + 0.5, then cast); saturate_cast clips to
        // the target's range (in the source type) before casting.
        "ConvertImageDtype" => {
            let (t, u) = (ty("T")?, ty("dtype")?);
            let saturate = matches!(node.attrs().get("saturate"), Some(AttrValue::Bool(true)));
            let x = &inputs[0];
            match (t.is_floating(), u.is_floating()) {
                (true, true) => {
                    e.cast("", x, t, u);
                }
                (false, true) => {
                    let (_, max) = int_range(t)?;
                    let cast = e.cast("Cast", x, t, u);
                    let scale = e.scalar_const("mul/y", u, 1.0 / max as f64);
                    e.add("", "Mul", &[&cast, &scale], &[("T", type_attr(u))]);
                }
                (true, false) => {
                    let (lo, hi) = int_range(u)?;
                    let scale = e.scalar_const("mul/y", t, hi as f64 + 0.5);
                    let mut v = e.add("mul", "Mul", &[x, &scale], &[("T", type_attr(t))]);
                    if saturate {
                        v = e.clip("saturate_cast", &v, t, lo as f64, float_floor(t, hi));
                    }
                    e.cast("", &v, t, u);
                }
                (false, false) => {
                    let ((tlo, thi), (ulo, uhi)) = (int_range(t)?, int_range(u)?);
                    let (lo, hi) = (tlo.max(ulo) as f64, thi.min(uhi) as f64);
                    if thi > uhi {
                        let scale = e.scalar_const("floordiv/y", t, ((thi + 1) / (uhi + 1)) as f64);
                        let mut v =
                            e.add("floordiv", "FloorDiv", &[x, &scale], &[("T", type_attr(t))]);
                        if saturate {
                            v = e.clip("saturate_cast", &v, t, lo, hi);
                        }
                        e.cast("", &v, t, u);
                    } else {
                        let mut v = x.clone();
                        if saturate && tlo < ulo {
                            v = e.clip("saturate_cast", &v, t, lo, hi);
                        }
                        let cast = e.cast("Cast", &v, t, u);
                        let scale = e.scalar_const("mul/y", u, ((uhi + 1) / (thi + 1)) as f64);
                        e.add("", "Mul", &[&cast, &scale], &[("T", type_attr(u))]);
                    }
                }
            }
        }
        // The input helpers' private ops (weir_ops::data_flow::input_ops), as the general ops
        // TensorFlow's tf.train builds in their place.
        // with_dependencies([Assert(size(x) > 0, [message])], x)
        "_AssertNonEmpty" => {
            let t = ty("T")?;
            let message = match node.attrs().get("message") {
                Some(AttrValue::Str(m)) => m.clone(),
                _ => return None,
            };
            let i32t = type_attr(DType::I32);
            let x = &inputs[0];
            let size = e.add(
                "Size",
                "Size",
                &[x],
                &[("T", type_attr(t)), ("out_type", i32t.clone())],
            );
            let zero = e.int32_const("Greater/y", 0);
            let cond = e.add("Greater", "Greater", &[&size, &zero], &[("T", i32t)]);
            let data = e.string_const("Assert/data_0", &message);
            let check = e.add(
                "Assert",
                "Assert",
                &[&cond, &data],
                &[
                    ("T", type_list(&[DType::String])),
                    ("summarize", int_attr(3)),
                ],
            );
            e.add(
                "",
                "Identity",
                &[x, &format!("^{check}")],
                &[("T", type_attr(t))],
            );
        }
        // tf.range(limit)
        "_RangeTo" => {
            let start = e.int32_const("start", 0);
            let delta = e.int32_const("delta", 1);
            e.add(
                "",
                "Range",
                &[&start, &inputs[0], &delta],
                &[("Tidx", type_attr(DType::I32))],
            );
        }
        // tf.shape(x)[0]
        "_Dim0" => {
            let t = ty("T")?;
            let i32t = type_attr(DType::I32);
            let shape = e.add(
                "Shape",
                "Shape",
                &[&inputs[0]],
                &[("T", type_attr(t)), ("out_type", i32t)],
            );
            let index = e.int32_const("index", 0);
            e.gather("", &shape, &index, DType::I32);
        }
        // tf.gather(params, index)
        "_GatherRow" => {
            let t = ty("T")?;
            e.gather("", &inputs[0], &inputs[1], t);
        }
        "_MatchingFiles" => {
            e.add("", "MatchingFiles", &[&inputs[0]], &[]);
        }
        _ => return None,
    }
    Some(e.nodes)
}
