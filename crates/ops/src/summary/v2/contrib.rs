//! The `tf.contrib.summary` functions TensorFlow 2 keeps in `summary_ops_v2` (`generic`,
//! `scalar`, `histogram`, `image`, `audio`, `graph_v1`, `import_event`): they write with the
//! dedicated ops (`WriteScalarSummary`, `WriteHistogramSummary`, ...) through the default
//! writer, and do nothing (`None`) without one. As in TensorFlow, they write only inside
//! [`always_record_summaries`](super::always_record_summaries) (or `record_if(true)`), and
//! return the constant `false` otherwise.

use bytes::Bytes;
use prost::Message;
use weir_graph::{DType, Error, Graph, Operation, Output, Result, Tensor};

use super::writer::{
    default_writer, get_step, should_record, Step, SummaryWriter, SUMMARY_COLLECTION,
};
use crate::array::{constant, constant_named, identity};
use crate::summary::proto::SummaryMetadata;

/// The step of a contrib summary: `step`, else the default step. (TensorFlow falls back to
/// the global step, which lives in weir-train; InvalidArgument here instead.)
fn contrib_step(g: &Graph, step: Option<Step>) -> Result<Output> {
    let step = step.or_else(get_step).ok_or_else(|| {
        Error::invalid_argument(
            "No step set: pass `step` or set a default step (writer.as_default(step) or \
             set_step)",
        )
    })?;
    step.check()?;
    match step {
        Step::Value(v) => constant(g, v),
        Step::Tensor(t) => Ok(t),
    }
}

/// TensorFlow's `summary_writer_function` with `summary_op_util.summary_scope`: opens the
/// scope `family/name` (made unique), tags the value with that scope (the family prefixed
/// again), lets `function` add the write op named as the scope, and returns the constant
/// `true` that depends on it, added to `_SUMMARY_V2`.
fn summary_writer_function(
    g: &Graph,
    name: &str,
    family: Option<&str>,
    function: impl FnOnce(&SummaryWriter, &str, &str) -> Result<Operation>,
) -> Result<Option<Output>> {
    let Some(writer) = default_writer() else {
        return Ok(None);
    };
    if !should_record(false) {
        let out = constant(g, false)?;
        g.add_to_collection(SUMMARY_COLLECTION, out.clone())?;
        return Ok(Some(out));
    }
    let base = match family {
        Some(f) => format!("{f}/{name}"),
        None => name.to_string(),
    };
    let scope = g.name_scope(&base);
    let scoped = scope.prefix().trim_end_matches('/').to_string();
    let tag = match family {
        Some(f) => format!("{f}/{scoped}"),
        None => scoped,
    };
    let op = function(&writer, &tag, scope.prefix())?;
    let out = {
        let _deps = g.control_dependencies(&[op])?;
        constant(g, true)?
    };
    drop(scope);
    g.add_to_collection(SUMMARY_COLLECTION, out.clone())?;
    Ok(Some(out))
}

/// A `Write*Summary` op named `scope` with the writer, step and tag inputs; the caller adds
/// the rest.
fn write_op(
    g: &Graph,
    op: &str,
    writer: &SummaryWriter,
    step: Output,
    tag: &str,
    scope: &str,
) -> Result<weir_graph::OpBuilder> {
    let tag = constant_named(g, Tensor::from(tag), "tag")?;
    Ok(crate::new_op(g, op)
        .name(scope)
        .input(writer.resource().clone())
        .input(step)
        .input(tag))
}

/// `tf.contrib.summary.generic(name, tensor, metadata=None, family=None, step=None)` (op
/// `WriteSummary`): `tensor` whole, with `metadata`.
pub fn generic(
    name: &str,
    tensor: impl Into<Output>,
    metadata: Option<&SummaryMetadata>,
    family: Option<&str>,
    step: Option<Step>,
) -> Result<Option<Output>> {
    let tensor = tensor.into();
    let g = tensor.graph().clone();
    let serialized = Bytes::from(metadata.map(|m| m.encode_to_vec()).unwrap_or_default());
    summary_writer_function(&g, name, family, |writer, tag, scope| {
        let meta = constant(&g, Tensor::scalar(serialized))?;
        let step = contrib_step(&g, step)?;
        let value = identity(tensor)?;
        let tag = constant_named(&g, Tensor::from(tag), "tag")?;
        crate::new_op(&g, "WriteSummary")
            .name(scope)
            .input(writer.resource().clone())
            .input(step)
            .input(value)
            .input(tag)
            .input(meta)
            .build()
    })
}

/// `tf.contrib.summary.scalar(name, tensor, family=None, step=None)` (op
/// `WriteScalarSummary`): the first element of the real `tensor` as a `simple_value`.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::summary::v2::{self, contrib};
/// let g = Graph::new();
/// let loss = weir_ops::array::constant(&g, 0.5f32)?;
/// assert!(contrib::scalar("loss", &loss, None, None)?.is_none(), "no default writer");
/// let writer = v2::create_file_writer(&g, "/tmp/logs")?;
/// let _default = writer.as_default(Some(1.into()));
/// let _record = v2::always_record_summaries();
/// assert!(contrib::scalar("loss", &loss, None, None)?.is_some());
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn scalar(
    name: &str,
    tensor: impl Into<Output>,
    family: Option<&str>,
    step: Option<Step>,
) -> Result<Option<Output>> {
    let tensor = tensor.into();
    let g = tensor.graph().clone();
    summary_writer_function(&g, name, family, |writer, tag, scope| {
        let step = contrib_step(&g, step)?;
        let value = identity(tensor)?;
        write_op(&g, "WriteScalarSummary", writer, step, tag, scope)?
            .input(value)
            .build()
    })
}

/// `tf.contrib.summary.histogram(name, tensor, family=None, step=None)` (op
/// `WriteHistogramSummary`): a `HistogramProto` of `tensor` as the V1 histogram summary makes
/// it; NaN or infinity is InvalidArgument when it runs.
pub fn histogram(
    name: &str,
    tensor: impl Into<Output>,
    family: Option<&str>,
    step: Option<Step>,
) -> Result<Option<Output>> {
    let tensor = tensor.into();
    let g = tensor.graph().clone();
    summary_writer_function(&g, name, family, |writer, tag, scope| {
        let step = contrib_step(&g, step)?;
        let value = identity(tensor)?;
        write_op(&g, "WriteHistogramSummary", writer, step, tag, scope)?
            .input(value)
            .build()
    })
}

/// `tf.contrib.summary.image(name, tensor, bad_color=None, max_images=3, family=None,
/// step=None)` (op `WriteImageSummary`): up to `max_images` PNGs of the `[batch, h, w, c]`
/// tensor; non-finite float pixels take `bad_color` (opaque red by default).
pub fn image(
    name: &str,
    tensor: impl Into<Output>,
    bad_color: Option<Output>,
    max_images: i64,
    family: Option<&str>,
    step: Option<Step>,
) -> Result<Option<Output>> {
    let tensor = tensor.into();
    let g = tensor.graph().clone();
    summary_writer_function(&g, name, family, |writer, tag, scope| {
        let bad_color = match bad_color {
            Some(b) => b,
            None => constant(&g, Tensor::from_vec(&[4], vec![255u8, 0, 0, 255])?)?,
        };
        let step = contrib_step(&g, step)?;
        let value = identity(tensor)?;
        write_op(&g, "WriteImageSummary", writer, step, tag, scope)?
            .input(value)
            .input(bad_color)
            .attr("max_images", max_images)
            .build()
    })
}

/// `tf.contrib.summary.audio(name, tensor, sample_rate, max_outputs, family=None, step=None)`
/// (op `WriteAudioSummary`): up to `max_outputs` 16-bit WAV clips of the float32
/// `[batch, frames(, channels)]` tensor at `sample_rate` Hz.
pub fn audio(
    name: &str,
    tensor: impl Into<Output>,
    sample_rate: f32,
    max_outputs: i64,
    family: Option<&str>,
    step: Option<Step>,
) -> Result<Option<Output>> {
    let tensor = tensor.into();
    let g = tensor.graph().clone();
    summary_writer_function(&g, name, family, |writer, tag, scope| {
        let step = contrib_step(&g, step)?;
        let value = identity(tensor)?;
        let rate = constant_named(&g, sample_rate, "sample_rate")?;
        write_op(&g, "WriteAudioSummary", writer, step, tag, scope)?
            .input(value)
            .input(rate)
            .attr("max_outputs", max_outputs)
            .build()
    })
}

/// `tf.contrib.summary.graph(param, step=None, name=None)` (op `WriteGraphSummary`): writes
/// the serialized `GraphDef` in the string scalar `param` as a graph event; `None` without a
/// default writer.
pub fn graph_v1(
    param: &Output,
    step: Option<Step>,
    name: Option<&str>,
) -> Result<Option<Operation>> {
    let Some(writer) = default_writer() else {
        return Ok(None);
    };
    if param.dtype() != DType::String {
        return Err(Error::invalid_argument(format!(
            "graph() needs a string tensor holding a serialized GraphDef, got {}",
            param.dtype()
        )));
    }
    let g = param.graph().clone();
    let step = contrib_step(&g, step)?;
    let tensor = identity(param.clone())?;
    crate::new_op(&g, "WriteGraphSummary")
        .maybe_name(name)
        .input(writer.resource().clone())
        .input(step)
        .input(tensor)
        .build()
        .map(Some)
}

/// `tf.contrib.summary.import_event(tensor, name=None)` (op `ImportEvent`): writes the
/// serialized `tf.Event` in `tensor` as is, through the default writer; InvalidArgument
/// without one (TensorFlow fails on the missing writer too).
pub fn import_event(tensor: &Output, name: Option<&str>) -> Result<Operation> {
    let writer = default_writer()
        .ok_or_else(|| Error::invalid_argument("import_event needs a default summary writer"))?;
    crate::new_op(tensor.graph(), "ImportEvent")
        .maybe_name(name)
        .input(writer.resource().clone())
        .input(tensor.clone())
        .build()
}
