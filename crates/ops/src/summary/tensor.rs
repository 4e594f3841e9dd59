//! `tf.summary.text` and `tf.summary.tensor_summary`: TensorFlow's `TensorSummaryV2` op, its
//! builders and kernel.

use bytes::Bytes;
use prost::Message;
use weir_graph::graph_def::{tensor_proto, tensor_proto_content};
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, DType, Error, Kernel, OpContext, OpDef, Output, Result, Tensor};

use super::kernels::{encode, scalar_output, scoped_summary};
use super::proto::{summary_value::Value, PluginData, Summary, SummaryMetadata, SummaryValue};

/// `tf.compat.v1.summary.text(name, tensor)`: a `TensorSummaryV2` of the string `tensor` (any
/// shape) with the `text` plugin's metadata, which TensorBoard's Text dashboard shows; added to
/// `SUMMARIES`. A non-string tensor is InvalidArgument (TensorFlow's ValueError).
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, summary};
/// let g = Graph::new();
/// let s = summary::text("notes", constant(&g, Tensor::from("hello"))?)?;
/// assert_eq!(s.op().op_type(), "TensorSummaryV2");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn text(name: &str, tensor: impl Into<Output>) -> Result<Output> {
    let tensor = tensor.into();
    if tensor.dtype() != DType::String {
        return Err(Error::invalid_argument(format!(
            "Expected tensor {} to have dtype string, got {}",
            tensor.name(),
            tensor.dtype()
        )));
    }
    let metadata = SummaryMetadata {
        plugin_data: Some(PluginData {
            plugin_name: "text".to_string(),
            content: Bytes::new(),
        }),
        ..SummaryMetadata::default()
    };
    tensor_summary_with(name, tensor, &metadata)
}

/// `tf.compat.v1.summary.tensor_summary(name, tensor)`: a `TensorSummaryV2` holding `tensor`
/// whole as a `TensorProto`, added to `SUMMARIES`. [`TensorSummary`] sets its description and
/// display name.
pub fn tensor_summary(name: &str, tensor: impl Into<Output>) -> Result<Output> {
    TensorSummary::new().build(name, tensor)
}

/// The options of `tf.compat.v1.summary.tensor_summary(name, tensor, summary_description=None,
/// display_name=None)`, which land in the value's `SummaryMetadata`.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, summary::TensorSummary};
/// let g = Graph::new();
/// let w = constant(&g, Tensor::from(vec![1.0f32, 2.0]))?;
/// let s = TensorSummary::new().summary_description("the weights").build("w", &w)?;
/// assert_eq!(s.name(), "w:0");
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct TensorSummary {
    summary_description: Option<String>,
    display_name: Option<String>,
}

impl TensorSummary {
    /// No description or display name.
    pub fn new() -> TensorSummary {
        TensorSummary::default()
    }

    /// `summary_description`: a longer description TensorBoard can show.
    pub fn summary_description(mut self, d: &str) -> TensorSummary {
        self.summary_description = Some(d.to_string());
        self
    }

    /// `display_name`: the name TensorBoard shows instead of the tag.
    pub fn display_name(mut self, d: &str) -> TensorSummary {
        self.display_name = Some(d.to_string());
        self
    }

    /// Adds the summary of `tensor` under `name`.
    pub fn build(self, name: &str, tensor: impl Into<Output>) -> Result<Output> {
        let metadata = SummaryMetadata {
            summary_description: self.summary_description.unwrap_or_default(),
            display_name: self.display_name.unwrap_or_default(),
            ..SummaryMetadata::default()
        };
        tensor_summary_with(name, tensor.into(), &metadata)
    }
}

fn tensor_summary_with(name: &str, tensor: Output, metadata: &SummaryMetadata) -> Result<Output> {
    let g = tensor.graph().clone();
    scoped_summary(&g, name, |tag, tags| {
        let serialized = Tensor::scalar(Bytes::from(metadata.encode_to_vec()));
        let meta = crate::array::constant_named(&g, serialized, "serialized_summary_metadata")?;
        crate::new_op(&g, "TensorSummaryV2")
            .name(format!("{tag}/"))
            .input(tags)
            .input(tensor)
            .input(meta)
            .build()?
            .output(0)
    })
}

struct TensorSummaryKernel;

impl Kernel for TensorSummaryKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let tag = ctx.input(0).to_scalar::<Bytes>()?;
        let tensor = ctx.input(1);
        // TensorFlow writes strings field by field and everything else as tensor_content.
        let proto = if tensor.dtype() == DType::String {
            tensor_proto(tensor)?
        } else {
            tensor_proto_content(tensor)?
        };
        // Like TensorFlow's `ParseFromString`, a metadata string that does not parse leaves it
        // empty rather than failing.
        let metadata =
            SummaryMetadata::decode(ctx.input(2).to_scalar::<Bytes>()?).unwrap_or_default();
        let summary = Summary {
            value: vec![SummaryValue {
                tag: String::from_utf8_lossy(&tag).into_owned(),
                metadata: Some(metadata),
                value: Some(Value::Tensor(proto)),
                ..SummaryValue::default()
            }],
        };
        ctx.set_output(0, encode(&summary));
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        OpDef::new("TensorSummaryV2")
            .input("tag", ArgType::Fixed(DType::String))
            .input("tensor", ArgType::Attr("T"))
            .input("serialized_summary_metadata", ArgType::Fixed(DType::String))
            .output("summary", ArgType::Fixed(DType::String))
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(scalar_output),
    );
    register_kernel("TensorSummaryV2", |_| Ok(Box::new(TensorSummaryKernel)));
}
