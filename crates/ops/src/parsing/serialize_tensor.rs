//! `SerializeTensor` and `ParseTensor`: a tensor as the bytes of its `TensorProto`, and back
//! (`tf.io.serialize_tensor`, `tf.io.parse_tensor`), so records can carry whole tensors.

use prost::Message;
use weir_graph::graph_def::proto::TensorProto;
use weir_graph::graph_def::{tensor_from_proto, tensor_proto_content};
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, Bytes, DType, Error, Kernel, OpContext, OpDef, Output, Result,
    Shape, Tensor,
};

/// `tf.io.serialize_tensor(tensor)` (op `SerializeTensor`): a string scalar holding the
/// tensor's `TensorProto`, byte for byte as TensorFlow writes it.
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::{array::constant, parsing::{parse_tensor, serialize_tensor}};
/// let g = Graph::new();
/// let bytes = serialize_tensor(constant(&g, [1.5f32, 2.0])?)?;
/// let back = parse_tensor(&bytes, DType::F32)?;
/// assert_eq!(back.dtype(), DType::F32);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn serialize_tensor(tensor: impl Into<Output>) -> Result<Output> {
    let t = tensor.into();
    crate::new_op(t.graph(), "SerializeTensor")
        .input(&t)
        .build()?
        .output(0)
}

/// `tf.io.parse_tensor(serialized, out_type)` (op `ParseTensor`): the tensor a serialized
/// `TensorProto` holds, which must be of `out_type`; its shape is known only at run time.
pub fn parse_tensor(serialized: &Output, out_type: DType) -> Result<Output> {
    crate::new_op(serialized.graph(), "ParseTensor")
        .input(serialized)
        .attr("out_type", out_type)
        .build()?
        .output(0)
}

struct SerializeTensorKernel;

impl Kernel for SerializeTensorKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let proto = tensor_proto_content(ctx.input(0))?;
        let bytes = Bytes::from(proto.encode_to_vec());
        ctx.set_output(0, Tensor::scalar(bytes));
        Ok(())
    }
}

struct ParseTensorKernel {
    out_type: DType,
}

impl Kernel for ParseTensorKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let s = ctx.input(0);
        if !s.shape().is_empty() {
            return Err(Error::invalid_argument(format!(
                "Expected `serialized` to be a scalar, got shape: {}",
                format_dims(s.shape())
            )));
        }
        let bytes = &s.as_slice::<Bytes>()?[0];
        let proto = TensorProto::decode(&bytes[..]).map_err(|_| {
            Error::invalid_argument(format!(
                "Could not parse `serialized` as TensorProto, base64: {}",
                standard_base64(bytes)
            ))
        })?;
        let t = tensor_from_proto(&proto).map_err(|e| {
            Error::invalid_argument(format!("Cannot parse tensor from proto: {}", e.message()))
        })?;
        if t.dtype() != self.out_type {
            return Err(Error::invalid_argument(format!(
                "Type mismatch between parsed tensor ({}) and dtype ({})",
                t.dtype().name(),
                self.out_type.name()
            )));
        }
        ctx.set_output(0, t);
        Ok(())
    }
}

/// Standard base64 (`+`, `/`, padded), as TensorFlow's message shows the bytes.
fn standard_base64(bytes: &[u8]) -> String {
    crate::string::base64::encode(bytes, true)
        .into_iter()
        .map(|c| match c {
            b'-' => '+',
            b'_' => '/',
            c => char::from(c),
        })
        .collect()
}

pub(super) fn register() {
    register_op(
        OpDef::new("SerializeTensor")
            .input("tensor", ArgType::Attr("T"))
            .output("serialized", ArgType::Fixed(DType::String))
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(|ctx| {
                ctx.set_output(0, Shape::scalar());
                Ok(())
            }),
    );
    register_kernel("SerializeTensor", |_| Ok(Box::new(SerializeTensorKernel)));
    register_op(
        OpDef::new("ParseTensor")
            .input("serialized", ArgType::Fixed(DType::String))
            .output("output", ArgType::Attr("out_type"))
            .attr("out_type", AttrKind::Type, None)
            .shape_fn(|ctx| {
                ctx.set_output(0, Shape::unknown());
                Ok(())
            }),
    );
    register_kernel("ParseTensor", |node| {
        Ok(Box::new(ParseTensorKernel {
            out_type: node.attr("out_type")?,
        }))
    });
}
