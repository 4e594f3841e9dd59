//! The OpDefs and kernels of TensorFlow's summary writer ops (`summary_ops.cc`,
//! `summary_kernels.cc`): `SummaryWriter`, `CreateSummaryFileWriter`, `FlushSummaryWriter`,
//! `CloseSummaryWriter` and the `Write*Summary` / `ImportEvent` ops that append events.

use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use prost::Message;
use weir_graph::graph_def::proto::GraphDef;
use weir_graph::graph_def::{tensor_proto, tensor_proto_content};
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, Kernel, Node, OpContext, OpDef,
    ResourceHandle, Result, Shape, Tensor,
};

use super::convert;
use super::event_file::{wall_time, EventFile};
use super::resource::SummaryWriterResource;
use crate::summary::proto::{
    event::What, summary_value::Value, Event, Summary, SummaryMetadata, SummaryValue,
};

/// `SummaryWriter`: finds or makes the writer's slot under (container, shared_name, or the
/// node name) and outputs its handle.
struct SummaryWriterKernel {
    container: String,
    name: String,
    handle: OnceLock<Tensor>,
}

impl Kernel for SummaryWriterKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        if let Some(h) = self.handle.get() {
            ctx.set_output(0, h.clone());
            return Ok(());
        }
        let r = ctx
            .resources()
            .lookup_or_create_typed(&self.container, &self.name, || {
                Ok(SummaryWriterResource::new(&self.container, &self.name))
            })?;
        let h = Tensor::scalar(ResourceHandle::new(&self.container, &self.name, r));
        ctx.set_output(0, self.handle.get_or_init(|| h).clone());
        Ok(())
    }

    fn output_is_fixed(&self) -> bool {
        true
    }
}

fn make_summary_writer(node: &Node) -> Result<Box<dyn Kernel>> {
    let shared: String = node.attr("shared_name")?;
    Ok(Box::new(SummaryWriterKernel {
        container: node.attr("container")?,
        name: if shared.is_empty() {
            node.name().to_string()
        } else {
            shared
        },
        handle: OnceLock::new(),
    }))
}

fn writer<'c>(ctx: &'c OpContext<'_>) -> Result<&'c SummaryWriterResource> {
    ctx.resource::<SummaryWriterResource>(0)
}

/// Input `i` as the one scalar TensorFlow reads with `scalar<T>()`; InvalidArgument
/// `"<what> must be a scalar"` (where TensorFlow would abort) otherwise.
fn scalar_input<'c>(ctx: &'c OpContext<'_>, i: usize, what: &str) -> Result<&'c Tensor> {
    let t = ctx.input(i);
    if t.rank() != 0 {
        return Err(Error::invalid_argument(format!("{what} must be a scalar")));
    }
    Ok(t)
}

fn string_input(ctx: &OpContext<'_>, i: usize, what: &str) -> Result<String> {
    let b = scalar_input(ctx, i, what)?.to_scalar::<Bytes>()?;
    Ok(String::from_utf8_lossy(&b).into_owned())
}

/// The `step` input at `i`; InvalidArgument `"step must be scalar, got shape [..]"` as
/// `WriteRawProtoSummary` words it.
fn step_input(ctx: &OpContext<'_>, i: usize) -> Result<i64> {
    let t = ctx.input(i);
    if t.rank() != 0 {
        return Err(Error::invalid_argument(format!(
            "step must be scalar, got shape {}",
            format_dims(t.shape())
        )));
    }
    t.to_scalar::<i64>()
}

fn summary_event(step: i64, value: Vec<SummaryValue>) -> Event {
    Event {
        wall_time: wall_time(),
        step,
        what: Some(What::Summary(Summary { value })),
        source_metadata: None,
    }
}

struct CreateFileWriterKernel;

impl Kernel for CreateFileWriterKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let logdir = string_input(ctx, 1, "logdir")?;
        let max_queue = scalar_input(ctx, 2, "max_queue")?.to_scalar::<i32>()?;
        let flush_millis = scalar_input(ctx, 3, "flush_millis")?.to_scalar::<i32>()?;
        let suffix = string_input(ctx, 4, "filename_suffix")?;
        writer(ctx)?.open_with(|| EventFile::create(&logdir, max_queue, flush_millis, &suffix))
    }
}

struct FlushKernel;

impl Kernel for FlushKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let file = writer(ctx)?.file()?;
        file.flush()
    }
}

struct CloseKernel;

impl Kernel for CloseKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        writer(ctx)?.close()
    }
}

/// What one `Write*` op appends: how it reads its inputs into an event.
#[derive(Clone, Copy)]
enum Write {
    Tensor,
    Scalar,
    Histogram,
    Image { max_images: i64 },
    Audio { max_outputs: i64 },
    RawProto,
    Graph,
    ImportEvent,
}

struct WriteKernel(Write);

impl WriteKernel {
    fn event(&self, ctx: &OpContext<'_>) -> Result<Event> {
        Ok(match self.0 {
            Write::Tensor => {
                let step = step_input(ctx, 1)?;
                let t = ctx.input(2);
                let tag = string_input(ctx, 3, "tag")?;
                let meta = scalar_input(ctx, 4, "summary_metadata")?.to_scalar::<Bytes>()?;
                // Strings field by field, so Python's MakeNdarray reads them; the rest as
                // tensor_content.
                let proto = if t.dtype() == DType::String {
                    tensor_proto(t)?
                } else {
                    tensor_proto_content(t)?
                };
                // TensorFlow sets the metadata only when given, and keeps what parsed of a bad
                // one.
                let metadata =
                    (!meta.is_empty()).then(|| SummaryMetadata::decode(meta).unwrap_or_default());
                summary_event(
                    step,
                    vec![SummaryValue {
                        tag,
                        metadata,
                        value: Some(Value::Tensor(proto)),
                        ..SummaryValue::default()
                    }],
                )
            }
            Write::Scalar => {
                let step = step_input(ctx, 1)?;
                let tag = string_input(ctx, 2, "tag")?;
                summary_event(step, vec![convert::scalar(ctx.input(3), &tag)?])
            }
            Write::Histogram => {
                let step = step_input(ctx, 1)?;
                let tag = string_input(ctx, 2, "tag")?;
                summary_event(step, vec![convert::histogram(ctx.input(3), &tag)?])
            }
            Write::Image { max_images } => {
                let step = step_input(ctx, 1)?;
                let tag = string_input(ctx, 2, "tag")?;
                let bad_color = ctx.input(4);
                if bad_color.rank() != 1 {
                    return Err(Error::invalid_argument(format!(
                        "bad_color must be a vector, got shape {}",
                        format_dims(bad_color.shape())
                    )));
                }
                let values = convert::images(ctx.input(3), &tag, max_images, bad_color)?;
                summary_event(step, values)
            }
            Write::Audio { max_outputs } => {
                let step = step_input(ctx, 1)?;
                let tag = string_input(ctx, 2, "tag")?;
                let rate = scalar_input(ctx, 4, "sample_rate")?.to_scalar::<f32>()?;
                summary_event(step, convert::audio(ctx.input(3), &tag, max_outputs, rate)?)
            }
            Write::RawProto => {
                let step = step_input(ctx, 1)?;
                // Summary has one repeated field, so merging the protos concatenates their
                // values.
                let mut values = Vec::new();
                for (i, pb) in ctx.input(2).as_slice::<Bytes>()?.iter().enumerate() {
                    let s = Summary::decode(pb.clone()).map_err(|_| {
                        Error::data_loss(format!(
                            "Bad tf.compat.v1.Summary binary proto tensor string at index {i}"
                        ))
                    })?;
                    values.extend(s.value);
                }
                summary_event(step, values)
            }
            Write::Graph => {
                let step = step_input(ctx, 1)?;
                let bytes = scalar_input(ctx, 2, "tensor")?.to_scalar::<Bytes>()?;
                let graph = GraphDef::decode(bytes)
                    .map_err(|_| Error::data_loss("Bad tf.GraphDef binary proto tensor string"))?;
                // Re-serialized as TensorFlow does, attrs in key order.
                Event {
                    wall_time: wall_time(),
                    step,
                    what: Some(What::GraphDef(Bytes::from(graph.encode_to_vec()))),
                    source_metadata: None,
                }
            }
            Write::ImportEvent => {
                let bytes = scalar_input(ctx, 1, "event")?.to_scalar::<Bytes>()?;
                Event::decode(bytes)
                    .map_err(|_| Error::data_loss("Bad tf.Event binary proto tensor string"))?
            }
        })
    }
}

impl Kernel for WriteKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        // The writer first: TensorFlow looks it up before reading any other input.
        let file: Arc<EventFile> = writer(ctx)?.file()?;
        let event = self.event(ctx)?;
        file.write_event(&event)
    }
}

fn make_write(node: &Node) -> Result<Box<dyn Kernel>> {
    let kind = match node.op_type() {
        "WriteSummary" => Write::Tensor,
        "WriteScalarSummary" => Write::Scalar,
        "WriteHistogramSummary" => Write::Histogram,
        "WriteImageSummary" => {
            let max_images: i64 = node.attr("max_images")?;
            if max_images >= 1 << 31 {
                return Err(Error::invalid_argument("max_images must be < 2^31"));
            }
            Write::Image { max_images }
        }
        "WriteAudioSummary" => {
            let max_outputs: i64 = node.attr("max_outputs")?;
            if max_outputs <= 0 {
                return Err(Error::invalid_argument("max_outputs must be > 0"));
            }
            Write::Audio { max_outputs }
        }
        "WriteRawProtoSummary" => Write::RawProto,
        "WriteGraphSummary" => Write::Graph,
        _ => Write::ImportEvent,
    };
    Ok(Box::new(WriteKernel(kind)))
}

fn no_outputs(_: &mut weir_graph::InferenceContext<'_>) -> Result<()> {
    Ok(())
}

/// `writer: resource` then `step: int64`, the head of every `Write*` op.
fn write_op(name: &'static str) -> OpDef {
    OpDef::new(name)
        .input("writer", ArgType::Fixed(DType::Resource))
        .input("step", ArgType::Fixed(DType::I64))
        .stateful()
        .shape_fn(no_outputs)
}

/// `int >= 1 = 3`, the image and audio ops' count attrs.
fn count_attr(def: OpDef, name: &'static str) -> OpDef {
    let mut def = def.attr(name, AttrKind::Int, Some(AttrValue::Int(3)));
    if let Some(a) = def.attrs.last_mut() {
        a.min = Some(1);
    }
    def
}

/// `WriteHistogramSummary`'s types: the real numbers and bool.
const REAL_NUMBER_AND_BOOL: &[DType] = &[
    DType::F32,
    DType::F64,
    DType::I32,
    DType::U8,
    DType::I16,
    DType::I8,
    DType::I64,
    DType::BF16,
    DType::U16,
    DType::F16,
    DType::U32,
    DType::U64,
    DType::Bool,
];

pub(super) fn register() {
    let resource = || ArgType::Fixed(DType::Resource);
    let string = || ArgType::Fixed(DType::String);
    register_op(
        OpDef::new("SummaryWriter")
            .output("writer", resource())
            .attr(
                "shared_name",
                AttrKind::Str,
                Some(AttrValue::Str(String::new())),
            )
            .attr(
                "container",
                AttrKind::Str,
                Some(AttrValue::Str(String::new())),
            )
            .stateful()
            .shape_fn(|ctx| {
                ctx.set_output(0, Shape::scalar());
                Ok(())
            }),
    );
    register_kernel("SummaryWriter", make_summary_writer);
    register_op(
        OpDef::new("CreateSummaryFileWriter")
            .input("writer", resource())
            .input("logdir", string())
            .input("max_queue", ArgType::Fixed(DType::I32))
            .input("flush_millis", ArgType::Fixed(DType::I32))
            .input("filename_suffix", string())
            .stateful()
            .shape_fn(no_outputs),
    );
    register_kernel("CreateSummaryFileWriter", |_| {
        Ok(Box::new(CreateFileWriterKernel))
    });
    for name in ["FlushSummaryWriter", "CloseSummaryWriter"] {
        register_op(
            OpDef::new(name)
                .input("writer", resource())
                .stateful()
                .shape_fn(no_outputs),
        );
    }
    register_kernel("FlushSummaryWriter", |_| Ok(Box::new(FlushKernel)));
    register_kernel("CloseSummaryWriter", |_| Ok(Box::new(CloseKernel)));

    register_op(
        write_op("WriteSummary")
            .input("tensor", ArgType::Attr("T"))
            .input("tag", string())
            .input("summary_metadata", string())
            .type_attr("T", DType::ALL_DATA),
    );
    register_op(
        write_op("WriteScalarSummary")
            .input("tag", string())
            .input("value", ArgType::Attr("T"))
            .type_attr("T", DType::REAL_AND_HALF),
    );
    let mut histogram = write_op("WriteHistogramSummary")
        .input("tag", string())
        .input("values", ArgType::Attr("T"))
        .type_attr("T", REAL_NUMBER_AND_BOOL);
    if let Some(a) = histogram.attrs.last_mut() {
        a.default = Some(AttrValue::Type(DType::F32));
    }
    register_op(histogram);
    let image = count_attr(
        write_op("WriteImageSummary")
            .input("tag", string())
            .input("tensor", ArgType::Attr("T"))
            .input("bad_color", ArgType::Fixed(DType::U8)),
        "max_images",
    );
    let mut image = image.type_attr("T", &[DType::U8, DType::F64, DType::F32, DType::F16]);
    if let Some(a) = image.attrs.last_mut() {
        a.default = Some(AttrValue::Type(DType::F32));
    }
    register_op(image);
    register_op(count_attr(
        write_op("WriteAudioSummary")
            .input("tag", string())
            .input("tensor", ArgType::Fixed(DType::F32))
            .input("sample_rate", ArgType::Fixed(DType::F32)),
        "max_outputs",
    ));
    register_op(write_op("WriteRawProtoSummary").input("tensor", string()));
    register_op(write_op("WriteGraphSummary").input("tensor", string()));
    register_op(
        OpDef::new("ImportEvent")
            .input("writer", resource())
            .input("event", string())
            .stateful()
            .shape_fn(no_outputs),
    );
    for name in [
        "WriteSummary",
        "WriteScalarSummary",
        "WriteHistogramSummary",
        "WriteImageSummary",
        "WriteAudioSummary",
        "WriteRawProtoSummary",
        "WriteGraphSummary",
        "ImportEvent",
    ] {
        register_kernel(name, make_write);
    }
}
