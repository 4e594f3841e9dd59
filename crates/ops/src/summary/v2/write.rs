//! TensorFlow 2's summary functions in graph mode (`tf.summary.write`, `scalar`, `text`,
//! `experimental.write_raw_pb`): each writes through the thread's default writer and returns
//! a boolean: true when written, false without a default writer or inside `record_if(false)`.

use bytes::Bytes;
use prost::Message;
use weir_graph::{DType, Error, Graph, Operation, Output, Result, Tensor};

use super::writer::{
    default_writer, get_step, should_record, Step, SummaryWriter, SUMMARY_COLLECTION,
};
use crate::array::{constant, constant_named, identity};
use crate::summary::proto::{PluginData, SummaryMetadata};

/// The step to write at: `step`, else the default step; InvalidArgument with TensorFlow's
/// ValueError message when neither is set.
fn resolve_step(step: Option<Step>) -> Result<Step> {
    step.or_else(get_step).ok_or_else(|| {
        Error::invalid_argument(
            "No step set. Please specify one either through the `step` argument or through \
             tf.summary.experimental.set_step()",
        )
    })
}

/// Opens the scope `name` (else `default_name`) and, with a default writer that records (see
/// `record_if`), lets `record` add the write op named as the scope; then returns the constant
/// `true` that depends on it. Without a writer, or not recording, it is the constant `false`.
/// With a writer, the result joins the `_SUMMARY_V2` collection.
pub(super) fn written(
    g: &Graph,
    name: Option<&str>,
    default_name: &str,
    step: Option<Step>,
    record: impl FnOnce(&SummaryWriter, Step, &str) -> Result<Operation>,
) -> Result<Output> {
    if let Some(s) = &step {
        s.check()?;
    }
    let scope = g.name_scope(name.unwrap_or(default_name));
    let Some(writer) = default_writer() else {
        return constant(g, false);
    };
    if !should_record(true) {
        let out = constant(g, false)?;
        drop(scope);
        g.add_to_collection(SUMMARY_COLLECTION, out.clone())?;
        return Ok(out);
    }
    let step = resolve_step(step)?;
    // TensorFlow's helper ops keep their constants in scopes of their own, so the returned
    // constant is the scope's `Const`; weir's may not, so the name is taken first.
    let result_name = g.unique_name(&format!("{}Const", scope.prefix()));
    let op = record(&writer, step, scope.prefix())?;
    let out = {
        let _deps = g.control_dependencies(&[op])?;
        constant_named(g, true, &format!("{result_name}/"))?
    };
    drop(scope);
    g.add_to_collection(SUMMARY_COLLECTION, out.clone())?;
    Ok(out)
}

/// `tf.summary.write(tag, tensor, step=None, metadata=None, name=None)` (op `WriteSummary`):
/// writes `tensor` whole under `tag` with the serialized `metadata`, at `step` or the default
/// step, to the default writer. The op is named as the scope (`write_summary`), its inputs
/// `Identity`, `step`, `tag` and `summary_metadata` inside it.
pub fn write(
    tag: &str,
    tensor: impl Into<Output>,
    step: Option<Step>,
    metadata: Option<&SummaryMetadata>,
    name: Option<&str>,
) -> Result<Output> {
    let tensor = tensor.into();
    let g = tensor.graph().clone();
    let metadata = metadata.cloned();
    written(&g, name, "write_summary", step, |writer, step, scope| {
        let value = identity(tensor)?;
        write_op(&g, writer, step, value, tag, metadata.as_ref(), scope)
    })
}

/// The `WriteSummary` op named `scope` (the write's scope), its `step`, `tag` and
/// `summary_metadata` constants inside it.
pub(super) fn write_op(
    g: &Graph,
    writer: &SummaryWriter,
    step: Step,
    tensor: Output,
    tag: &str,
    metadata: Option<&SummaryMetadata>,
    scope: &str,
) -> Result<Operation> {
    let serialized = Bytes::from(metadata.map(|m| m.encode_to_vec()).unwrap_or_default());
    let step = step.output(g)?;
    let tag = constant_named(g, Tensor::from(tag), "tag")?;
    let meta = constant_named(g, Tensor::scalar(serialized), "summary_metadata")?;
    crate::new_op(g, "WriteSummary")
        .name(scope)
        .input(writer.resource().clone())
        .input(step)
        .input(tensor)
        .input(tag)
        .input(meta)
        .build()
}

/// `tf.summary.experimental.write_raw_pb(tensor, step=None, name=None)` (op
/// `WriteRawProtoSummary`): writes the values of the serialized `tf.compat.v1.Summary`
/// protos in the string `tensor` as one event.
pub fn write_raw_pb(
    tensor: impl Into<Output>,
    step: Option<Step>,
    name: Option<&str>,
) -> Result<Output> {
    let tensor = tensor.into();
    let g = tensor.graph().clone();
    written(&g, name, "write_raw_pb", step, |writer, step, scope| {
        let step = step.output(&g)?;
        let value = identity(tensor)?;
        crate::new_op(&g, "WriteRawProtoSummary")
            .name(scope)
            .input(writer.resource().clone())
            .input(step)
            .input(value)
            .build()
    })
}

/// TensorBoard's `summary_scope`: the tag is `name` under the current name scope (never made
/// unique), and the ops go in a scope `name` that is.
pub(super) fn summary_tag(g: &Graph, name: &str) -> String {
    format!("{}{name}", g.current_scope())
}

/// A plugin's `SummaryMetadata` as TensorBoard makes it: the plugin name, empty content
/// (version 0 of its settings), and the description.
pub(super) fn plugin_metadata(plugin: &str, description: Option<&str>) -> SummaryMetadata {
    SummaryMetadata {
        plugin_data: Some(PluginData {
            plugin_name: plugin.to_string(),
            content: Bytes::new(),
        }),
        summary_description: description.unwrap_or_default().to_string(),
        ..SummaryMetadata::default()
    }
}

/// `tf.summary.scalar(name, data, step=None, description=None)`: writes the real scalar
/// `data` as a float32 tensor with the `scalars` plugin's metadata, under the tag `name`
/// (prefixed by the current name scope), through [`write`].
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::summary::v2;
/// let g = Graph::new();
/// let writer = v2::create_file_writer(&g, "/tmp/logs")?;
/// let _default = writer.as_default(None);
/// let acc = weir_ops::array::constant(&g, 0.75f64)?;
/// let ok = v2::scalar("accuracy", &acc, Some(10.into()), Some("top-1"))?;
/// assert_eq!(ok.name(), "accuracy/write_summary/Const:0");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn scalar(
    name: &str,
    data: impl Into<Output>,
    step: Option<Step>,
    description: Option<&str>,
) -> Result<Output> {
    let data = data.into();
    let g = data.graph().clone();
    let tag = summary_tag(&g, name);
    let _scope = g.name_scope(name);
    // `tf.debugging.assert_scalar`'s ValueError, when the shape says so already.
    if data.shape().rank().is_some_and(|r| r != 0) {
        return Err(Error::invalid_argument(format!(
            "Expected scalar shape for {}, saw shape: {}.",
            data.name(),
            data.shape().python_str()
        )));
    }
    let value = if data.dtype() == DType::F32 {
        data
    } else {
        crate::math::cast(data, DType::F32)?
    };
    write(
        &tag,
        value,
        step,
        Some(&plugin_metadata("scalars", description)),
        None,
    )
}

/// `tf.summary.text(name, data, step=None, description=None)`: writes the string tensor
/// `data` (any shape) with the `text` plugin's metadata, through [`write`]; another dtype is
/// InvalidArgument.
pub fn text(
    name: &str,
    data: impl Into<Output>,
    step: Option<Step>,
    description: Option<&str>,
) -> Result<Output> {
    let data = data.into();
    if data.dtype() != DType::String {
        return Err(Error::invalid_argument(format!(
            "{} must be of type <dtype: 'string'>; got {}",
            data.name(),
            data.dtype()
        )));
    }
    let g = data.graph().clone();
    let tag = summary_tag(&g, name);
    let _scope = g.name_scope(name);
    write(
        &tag,
        data,
        step,
        Some(&plugin_metadata("text", description)),
        None,
    )
}
