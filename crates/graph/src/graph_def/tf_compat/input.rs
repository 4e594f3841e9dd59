//! The TensorFlow forms of the input pipeline's one-kernel ops: the image ops, the random crop
//! and the private ops of the `tf.train` input helpers.

use super::expansion::{int_attr, type_attr, type_list, Expansion};
use super::{seed, type_of};
use crate::graph_def::proto::attr_value_proto::Value;
use crate::graph_def::proto::AttrValueProto;
use crate::{AttrValue, DType, Node};

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

/// Adds `node`'s TensorFlow form to `e` when it is one of these ops; `None` otherwise.
/// `producers` are the nodes of the data inputs and which of their outputs each is.
pub(super) fn expand(
    node: &Node,
    inputs: &[String],
    producers: &[(&Node, usize)],
    e: &mut Expansion<'_>,
) -> Option<()> {
    let ty = |k: &str| type_of(node, k);
    match node.op_type() {
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
            let last3 =
                e.strided_slice("strided_slice", &shape, DType::I32, &[-3], &[0], &[1], 0, 1);
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
        // random_ops.random_crop: an Assert that the value is large enough, then offsets drawn
        // as random_uniform(int32 max) % (shape - size + 1), and a Slice.
        "RandomCropAnyRank" => {
            let t = ty("T")?;
            if ty("Tsize")? != DType::I32 {
                return None;
            }
            let (value, size) = (&inputs[0], &inputs[1]);
            let i32t = type_attr(DType::I32);
            let shape = e.add(
                "Shape",
                "Shape",
                &[value],
                &[("T", type_attr(t)), ("out_type", i32t.clone())],
            );
            let ge = e.add(
                "GreaterEqual",
                "GreaterEqual",
                &[&shape, size],
                &[("T", i32t.clone())],
            );
            let axis = e.int32_vec_const("Const", &[0]);
            let all = e.add(
                "All",
                "All",
                &[&ge, &axis],
                &[
                    ("Tidx", i32t.clone()),
                    (
                        "keep_dims",
                        AttrValueProto {
                            value: Some(Value::B(false)),
                        },
                    ),
                ],
            );
            let text = e.string_const("Assert/data_0", "Need value.shape >= size, got ");
            let check = e.add(
                "Assert",
                "Assert",
                &[&all, &text, &shape, size],
                &[
                    ("T", type_list(&[DType::String, DType::I32, DType::I32])),
                    ("summarize", int_attr(1000)),
                ],
            );
            let shape = e.add(
                "control_dependency",
                "Identity",
                &[&shape, &format!("^{check}")],
                &[("T", i32t.clone())],
            );
            let sub = e.add("sub", "Sub", &[&shape, size], &[("T", i32t.clone())]);
            let one = e.int32_const("add/y", 1);
            let limit = e.add("add", "AddV2", &[&sub, &one], &[("T", i32t.clone())]);
            let rank = e.add(
                "Shape_1",
                "Shape",
                &[&shape],
                &[("T", i32t.clone()), ("out_type", i32t.clone())],
            );
            let lo = e.int32_const("random_uniform/min", 0);
            let hi = e.int32_const("random_uniform/max", i32::MAX);
            let draw = e.add(
                "random_uniform",
                "RandomUniformInt",
                &[&rank, &lo, &hi],
                &[
                    ("T", i32t.clone()),
                    ("Tout", i32t.clone()),
                    ("seed", int_attr(seed(node, "seed"))),
                    ("seed2", int_attr(seed(node, "seed2"))),
                ],
            );
            let offset = e.add("mod", "FloorMod", &[&draw, &limit], &[("T", i32t.clone())]);
            e.add(
                "",
                "Slice",
                &[value, &offset, size],
                &[("T", type_attr(t)), ("Index", i32t)],
            );
        }
        // image_ops._random_flip, for an image of known rank: one uniform draw, mirrored when it
        // is below 0.5 (rank 3; TensorFlow's cond, written as a SelectV2 of both branches), or
        // one draw per image, mirrored where it rounds to 1 (rank 4, TensorFlow's arithmetic).
        "RandomFlipLeftRight" | "RandomFlipUpDown" => {
            let t = ty("T")?;
            let rank = node.output_shapes().first()?.rank()?;
            if rank == 4 && !t.is_numeric() {
                // TensorFlow's batch form is arithmetic.
                return None;
            }
            let axis = match (node.op_type() == "RandomFlipLeftRight", rank) {
                (true, 3) => 1,
                (false, 3) => 0,
                (true, 4) => 2,
                (false, 4) => 1,
                _ => return None,
            };
            let (ta, i32t, f32t) = (type_attr(t), type_attr(DType::I32), type_attr(DType::F32));
            let image = &inputs[0];
            let seeds = [
                ("seed", int_attr(seed(node, "seed"))),
                ("seed2", int_attr(seed(node, "seed2"))),
            ];
            let uniform_attrs = |shape_t: AttrValueProto| {
                let mut a = vec![("dtype", f32t.clone()), ("T", shape_t)];
                a.extend(seeds.iter().cloned());
                a
            };
            let axes = e.int32_vec_const("ReverseV2/axis", &[axis]);
            let flipped = e.add(
                "ReverseV2",
                "ReverseV2",
                &[image, &axes],
                &[("T", ta.clone()), ("Tidx", i32t.clone())],
            );
            if rank == 3 {
                let shape = e.int32_vec_const("random_uniform/shape", &[]);
                let u = e.add(
                    "random_uniform/RandomUniform",
                    "RandomUniform",
                    &[&shape],
                    &uniform_attrs(i32t),
                );
                let half = e.scalar_const("Less/y", DType::F32, 0.5);
                let mirror = e.add("Less", "Less", &[&u, &half], &[("T", f32t)]);
                e.add("", "SelectV2", &[&mirror, &flipped, image], &[("T", ta)]);
            } else {
                let shape = e.add(
                    "Shape",
                    "Shape",
                    &[image],
                    &[("T", ta.clone()), ("out_type", i32t.clone())],
                );
                let batch =
                    e.strided_slice("strided_slice", &shape, DType::I32, &[0], &[1], &[1], 0, 0);
                let u = e.add(
                    "random_uniform/RandomUniform",
                    "RandomUniform",
                    &[&batch],
                    &uniform_attrs(i32t.clone()),
                );
                let per_image = e.int32_vec_const("Reshape/shape", &[-1, 1, 1, 1]);
                let u = e.add(
                    "Reshape",
                    "Reshape",
                    &[&u, &per_image],
                    &[("T", f32t.clone()), ("Tshape", i32t)],
                );
                let flips = e.add("Round", "Round", &[&u], &[("T", f32t)]);
                let flips = e.cast("Cast", &flips, DType::F32, t);
                let kept = e.add("mul", "Mul", &[&flips, &flipped], &[("T", ta.clone())]);
                let one = e.scalar_const("sub/x", t, 1.0);
                let rest = e.add("sub", "Sub", &[&one, &flips], &[("T", ta.clone())]);
                let orig = e.add("mul_1", "Mul", &[&rest, image], &[("T", ta.clone())]);
                e.add("", "AddV2", &[&kept, &orig], &[("T", ta)]);
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
        // The batchers' keep_input: input.py's _select_which_to_enqueue (DynamicPartition by the
        // cast mask) for a mask of rows; for a scalar, every row of each tensor (made a batch of
        // one when `expand`) partitioned by it, which is TensorFlow's cond of an enqueue
        // without the cond.
        "_KeepInputRows" => {
            let (keep_node, keep_out) = *producers.first()?;
            let scalar = match keep_node.output_shapes().get(keep_out)?.rank()? {
                0 => true,
                1 => false,
                _ => return None,
            };
            let expand = matches!(node.attrs().get("expand"), Some(AttrValue::Bool(true)));
            let types = match node.attrs().get("T") {
                Some(AttrValue::Types(t)) => t.clone(),
                _ => return None,
            };
            let i32t = type_attr(DType::I32);
            let part = e.cast("Cast", &inputs[0], DType::Bool, DType::I32);
            let mut kept = Vec::new();
            for (k, (x, &t)) in inputs[1..].iter().zip(&types).enumerate() {
                let ta = type_attr(t);
                let mut rows = x.clone();
                let mut partitions = part.clone();
                if scalar {
                    if expand {
                        let axis = e.int32_const(&format!("ExpandDims_{k}/dim"), 0);
                        rows = e.add(
                            &format!("ExpandDims_{k}"),
                            "ExpandDims",
                            &[x, &axis],
                            &[("T", ta.clone()), ("Tdim", i32t.clone())],
                        );
                    }
                    let shape = e.add(
                        &format!("Shape_{k}"),
                        "Shape",
                        &[&rows],
                        &[("T", ta.clone()), ("out_type", i32t.clone())],
                    );
                    let count = e.strided_slice(
                        &format!("rows_{k}"),
                        &shape,
                        DType::I32,
                        &[0],
                        &[1],
                        &[1],
                        0,
                        0,
                    );
                    partitions = e.add(
                        &format!("Fill_{k}"),
                        "Fill",
                        &[&count, &part],
                        &[("T", i32t.clone()), ("index_type", i32t.clone())],
                    );
                }
                let split = e.add(
                    &format!("DynamicPartition_{k}"),
                    "DynamicPartition",
                    &[&rows, &partitions],
                    &[("T", ta), ("num_partitions", int_attr(2))],
                );
                kept.push(format!("{split}:1"));
            }
            let kept: Vec<&str> = kept.iter().map(String::as_str).collect();
            e.add("", "IdentityN", &kept, &[("T", type_list(&types))]);
        }
        _ => return None,
    }
    Some(())
}
