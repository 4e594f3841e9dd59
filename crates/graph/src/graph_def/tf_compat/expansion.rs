//! The builder of one expansion: nodes under the composite's name, and the constants and
//! attributes the expansions share.

use bytes::Bytes;

use super::super::proto::attr_value_proto::Value;
use super::super::proto::{AttrValueProto, ListValue, NodeDef, TensorProto};
use crate::DType;

/// A `type` attribute.
pub(super) fn type_attr(d: DType) -> AttrValueProto {
    AttrValueProto {
        value: Some(Value::Type(d.proto_number())),
    }
}

/// An `int` attribute.
pub(super) fn int_attr(i: i64) -> AttrValueProto {
    AttrValueProto {
        value: Some(Value::I(i)),
    }
}

/// Builds the nodes of one expansion; every node carries the composite's control inputs.
pub(super) struct Expansion<'a> {
    pub(super) name: &'a str,
    pub(super) controls: Vec<String>,
    pub(super) nodes: Vec<NodeDef>,
}

impl Expansion<'_> {
    /// Adds `name/suffix` (or the composite's own name when `suffix` is empty) and returns its
    /// name as an input.
    pub(super) fn add(
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
        self.nodes
            .push(NodeDef::new(name.clone(), op, input, attrs));
        name
    }

    /// A `Const` of dtype `d` and shape `dims` whose value `fill` writes into its TensorProto.
    fn constant(
        &mut self,
        suffix: &str,
        d: DType,
        dims: &[usize],
        fill: impl FnOnce(&mut TensorProto),
    ) -> String {
        let mut t = TensorProto {
            dtype: d.proto_number(),
            tensor_shape: Some(super::super::shape_proto(&crate::Shape::known(dims))),
            ..TensorProto::default()
        };
        fill(&mut t);
        let value = AttrValueProto {
            value: Some(Value::Tensor(t)),
        };
        self.add(
            suffix,
            "Const",
            &[],
            &[("dtype", type_attr(d)), ("value", value)],
        )
    }

    /// A scalar int32 constant.
    pub(super) fn int32_const(&mut self, suffix: &str, v: i32) -> String {
        self.constant(suffix, DType::I32, &[], |t| t.int_val = vec![v])
    }

    /// A vector int32 constant.
    pub(super) fn int32_vec_const(&mut self, suffix: &str, v: &[i32]) -> String {
        self.constant(suffix, DType::I32, &[v.len()], |t| t.int_val = v.to_vec())
    }

    /// A vector int64 constant.
    pub(super) fn int64_vec_const(&mut self, suffix: &str, v: &[i64]) -> String {
        self.constant(suffix, DType::I64, &[v.len()], |t| t.int64_val = v.to_vec())
    }

    /// A string vector constant.
    pub(super) fn string_vec_const(&mut self, suffix: &str, v: &[String]) -> String {
        self.constant(suffix, DType::String, &[v.len()], |t| {
            t.string_val = v
                .iter()
                .map(|s| Bytes::copy_from_slice(s.as_bytes()))
                .collect()
        })
    }

    /// A scalar string constant.
    pub(super) fn string_const(&mut self, suffix: &str, v: &str) -> String {
        self.constant(suffix, DType::String, &[], |t| {
            t.string_val = vec![Bytes::copy_from_slice(v.as_bytes())]
        })
    }

    /// `x[begin:end:strides]` of an int32 or int64 vector or matrix `x` of dtype `d`, with
    /// TensorFlow's begin and end masks (no ellipsis, new or shrunk axes): the constants are
    /// `name/stack`, `name/stack_1` and `name/stack_2`, as Python names them.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn strided_slice(
        &mut self,
        name: &str,
        x: &str,
        d: DType,
        begin: &[i32],
        end: &[i32],
        strides: &[i32],
        begin_mask: i64,
        end_mask: i64,
    ) -> String {
        let b = self.int32_vec_const(&format!("{name}/stack"), begin);
        let e = self.int32_vec_const(&format!("{name}/stack_1"), end);
        let s = self.int32_vec_const(&format!("{name}/stack_2"), strides);
        self.add(
            name,
            "StridedSlice",
            &[x, &b, &e, &s],
            &[
                ("T", type_attr(d)),
                ("Index", type_attr(DType::I32)),
                ("begin_mask", int_attr(begin_mask)),
                ("end_mask", int_attr(end_mask)),
                ("ellipsis_mask", int_attr(0)),
                ("new_axis_mask", int_attr(0)),
                ("shrink_axis_mask", int_attr(0)),
            ],
        )
    }

    /// `GatherV2(params, index, axis=0)` of `t` values with an int32 index.
    pub(super) fn gather(&mut self, suffix: &str, params: &str, index: &str, t: DType) -> String {
        let axis_name = if suffix.is_empty() {
            "axis".to_string()
        } else {
            format!("{suffix}/axis")
        };
        let axis = self.int32_const(&axis_name, 0);
        let i32t = type_attr(DType::I32);
        self.add(
            suffix,
            "GatherV2",
            &[params, index, &axis],
            &[
                ("Tparams", type_attr(t)),
                ("Tindices", i32t.clone()),
                ("Taxis", i32t),
                ("batch_dims", int_attr(0)),
            ],
        )
    }

    /// A scalar constant of real dtype `d` (`v` truncated for an integer dtype), in the field
    /// TensorFlow keeps that dtype in.
    pub(super) fn scalar_const(&mut self, suffix: &str, d: DType, v: f64) -> String {
        self.constant(suffix, d, &[], |t| match d {
            DType::F64 => t.double_val = vec![v],
            DType::F32 => t.float_val = vec![v as f32],
            DType::I64 => t.int64_val = vec![v as i64],
            _ => t.int_val = vec![v as i32],
        })
    }

    /// `x` clipped to `[lo, hi]` (constants of `x`'s dtype `d`) by Maximum then Minimum.
    pub(super) fn clip(&mut self, suffix: &str, x: &str, d: DType, lo: f64, hi: f64) -> String {
        let lo = self.scalar_const(&format!("{suffix}/min"), d, lo);
        let hi = self.scalar_const(&format!("{suffix}/max"), d, hi);
        let above = self.add(
            &format!("{suffix}/Maximum"),
            "Maximum",
            &[x, &lo],
            &[("T", type_attr(d))],
        );
        self.add(
            &format!("{suffix}/Minimum"),
            "Minimum",
            &[&above, &hi],
            &[("T", type_attr(d))],
        )
    }

    /// `x` cast from `from` to `to` (no node when they are the same), as `math_ops.cast`.
    pub(super) fn cast(&mut self, suffix: &str, x: &str, from: DType, to: DType) -> String {
        if from == to {
            return x.to_string();
        }
        self.add(
            suffix,
            "Cast",
            &[x],
            &[("SrcT", type_attr(from)), ("DstT", type_attr(to))],
        )
    }

    /// The composite's outputs `a` and `b` as outputs 0 and 1 of one node under its name.
    pub(super) fn two_outputs(&mut self, a: &str, b: &str, d: DType) {
        let types = AttrValueProto {
            value: Some(Value::List(ListValue {
                r#type: vec![d.proto_number(); 2],
                ..ListValue::default()
            })),
        };
        self.add("", "IdentityN", &[a, b], &[("T", types)]);
    }

    /// `x` as int32, through a Cast when it is not.
    pub(super) fn cast_int32(&mut self, suffix: &str, x: &str, d: DType) -> String {
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

/// A `list(type)` attribute.
pub(super) fn type_list(types: &[DType]) -> AttrValueProto {
    AttrValueProto {
        value: Some(Value::List(ListValue {
            r#type: types.iter().map(|d| d.proto_number()).collect(),
            ..ListValue::default()
        })),
    }
}
