//! OpDefs and kernels of the reader ops: the `*ReaderV2` ops that create readers, and
//! `ReaderReadV2`, `ReaderReadUpToV2`, `ReaderNumRecordsProducedV2`,
//! `ReaderNumWorkUnitsCompletedV2`, `ReaderSerializeStateV2`, `ReaderRestoreStateV2`,
//! `ReaderResetV2`.

use std::sync::OnceLock;

use bytes::Bytes;
use weir_graph::registry::{register_alias, register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef,
    ResourceHandle, Result, Shape, Tensor,
};

use super::{ReaderKind, ReaderResource};
use crate::io::options::Compression;

/// Creates the reader once per session and outputs its handle.
struct ReaderKernel {
    name: String,
    container: String,
    kind: ReaderKind,
    handle: OnceLock<Tensor>,
}

impl Kernel for ReaderKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        if let Some(h) = self.handle.get() {
            ctx.set_output(0, h.clone());
            return Ok(());
        }
        let r = ctx
            .resources()
            .lookup_or_create_typed(&self.container, &self.name, || {
                Ok(ReaderResource::new(&self.name, self.kind.clone()))
            })?;
        if r.kind() != &self.kind {
            return Err(Error::invalid_argument(format!(
                "Shared reader '{}' was created as {:?}, not {:?}",
                self.name,
                r.kind(),
                self.kind
            )));
        }
        let h = Tensor::scalar(ResourceHandle::new(&self.container, &self.name, r));
        ctx.set_output(0, self.handle.get_or_init(|| h).clone());
        Ok(())
    }

    fn output_is_fixed(&self) -> bool {
        true
    }
}

fn non_negative(node: &Node, attr: &str) -> Result<usize> {
    let v: i64 = node.attr(attr)?;
    if v < 0 {
        return Err(Error::invalid_argument(format!(
            "{attr} must be >= 0 not {v}"
        )));
    }
    Ok(v as usize)
}

fn make_reader(node: &Node) -> Result<Box<dyn Kernel>> {
    // TensorFlow 1's ref-handle readers (`TextLineReader`) are aliases of the V2 ops.
    let kind = match node.op_type().strip_suffix("V2").unwrap_or(node.op_type()) {
        "TextLineReader" => ReaderKind::TextLine {
            skip_header_lines: non_negative(node, "skip_header_lines")?,
        },
        "FixedLengthRecordReader" => {
            let header_bytes = non_negative(node, "header_bytes")?;
            let record_bytes = non_negative(node, "record_bytes")?;
            let footer_bytes = non_negative(node, "footer_bytes")?;
            let hop_bytes = non_negative(node, "hop_bytes")?;
            // TensorFlow 1's FixedLengthRecordReader has no `encoding` attr.
            let encoding: String = match node.op_type() {
                "FixedLengthRecordReader" => String::new(),
                _ => node.attr("encoding")?,
            };
            ReaderKind::FixedLength {
                header_bytes,
                record_bytes,
                footer_bytes,
                hop_bytes,
                compression: Compression::parse_lenient(&encoding),
            }
        }
        "TFRecordReader" => {
            let c: String = node.attr("compression_type")?;
            // Like TensorFlow's RecordReaderOptions, an unknown codec means none.
            ReaderKind::TfRecord {
                compression: Compression::parse_lenient(&c),
            }
        }
        "WholeFileReader" => ReaderKind::WholeFile,
        _ => ReaderKind::Identity,
    };
    let shared: String = node.attr("shared_name")?;
    Ok(Box::new(ReaderKernel {
        name: if shared.is_empty() {
            node.name().to_string()
        } else {
            shared
        },
        container: node.attr("container")?,
        kind,
        handle: OnceLock::new(),
    }))
}

fn reader_of<'c>(ctx: &'c OpContext<'_>) -> Result<&'c ReaderResource> {
    ctx.resource::<ReaderResource>(0)
}

/// The queue handle input (input 1).
fn queue_handle<'c>(ctx: &'c OpContext<'_>) -> Result<&'c ResourceHandle> {
    ctx.resource_handle(1)
}

struct ReadKernel;

impl Kernel for ReadKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let reader = reader_of(ctx)?;
        // Pipelines rarely read the key: then it is neither formatted nor output.
        let want_key = ctx.output_required(0);
        let queue = queue_handle(ctx)?.queue()?;
        let (k, v) = reader.read(queue, want_key, ctx.cancellation(), ctx.deadline())?;
        if want_key {
            ctx.set_output(0, Tensor::scalar(k));
        }
        ctx.set_output(1, Tensor::scalar(v));
        Ok(())
    }

    /// Waits for a file name while the filename queue is empty and open.
    fn may_block(&self) -> bool {
        true
    }
}

struct ReadUpToKernel;

impl Kernel for ReadUpToKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let reader = reader_of(ctx)?;
        let n = ctx.input(2).to_scalar::<i64>()?;
        if n < 0 {
            // TensorFlow aborts the process here (std::length_error); weir refuses instead.
            return Err(Error::invalid_argument(format!(
                "num_records must be >= 0, got {n}"
            )));
        }
        let want_keys = ctx.output_required(0);
        let (k, v) = reader.read_up_to(
            n as usize,
            queue_handle(ctx)?.queue()?,
            want_keys,
            ctx.cancellation(),
            ctx.deadline(),
        )?;
        if want_keys {
            ctx.set_output(0, Tensor::from(k));
        }
        ctx.set_output(1, Tensor::from(v));
        Ok(())
    }

    /// Waits for a file name while the filename queue is empty and open.
    fn may_block(&self) -> bool {
        true
    }
}

#[derive(Clone, Copy)]
enum Query {
    Produced,
    Completed,
}

struct QueryKernel(Query);

impl Kernel for QueryKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let reader = reader_of(ctx)?;
        let v = match self.0 {
            Query::Produced => reader.num_records_produced(),
            Query::Completed => reader.num_work_units_completed(),
        };
        ctx.set_output(0, Tensor::scalar(v));
        Ok(())
    }
}

struct ResetKernel;

impl Kernel for ResetKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        reader_of(ctx)?.reset(ctx.cancellation(), ctx.deadline())
    }
}

struct SerializeKernel;

impl Kernel for SerializeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let s = reader_of(ctx)?.serialize_state(ctx.cancellation(), ctx.deadline())?;
        ctx.set_output(0, Tensor::scalar(s));
        Ok(())
    }
}

struct RestoreKernel;

impl Kernel for RestoreKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let reader = reader_of(ctx)?;
        let state: Bytes = ctx.input(1).to_scalar::<Bytes>()?;
        reader.restore_state(&state, ctx.cancellation(), ctx.deadline())
    }
}

fn scalar_outputs(ctx: &mut InferenceContext<'_>) -> Result<()> {
    for i in 0..ctx.num_outputs() {
        ctx.set_output(i, Shape::scalar());
    }
    Ok(())
}

fn vector_outputs(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(2, 0)?;
    for i in 0..ctx.num_outputs() {
        ctx.set_output(i, Shape::new(vec![None]));
    }
    Ok(())
}

fn reader_def(name: &str) -> OpDef {
    OpDef::new(name)
        .output("reader_handle", ArgType::Fixed(DType::Resource))
        .resource_name_attrs()
        .stateful()
        .shape_fn(scalar_outputs)
}

fn int_default(v: i64) -> Option<AttrValue> {
    Some(AttrValue::Int(v))
}

fn str_default(v: &str) -> Option<AttrValue> {
    Some(AttrValue::Str(v.to_string()))
}

/// Registers the reader ops and kernels.
pub(crate) fn register() {
    let res = || ArgType::Fixed(DType::Resource);
    register_op(reader_def("TextLineReaderV2").attr(
        "skip_header_lines",
        AttrKind::Int,
        int_default(0),
    ));
    register_op(
        reader_def("FixedLengthRecordReaderV2")
            .attr("header_bytes", AttrKind::Int, int_default(0))
            .attr("record_bytes", AttrKind::Int, None)
            .attr("footer_bytes", AttrKind::Int, int_default(0))
            .attr("hop_bytes", AttrKind::Int, int_default(0))
            .attr("encoding", AttrKind::Str, str_default("")),
    );
    register_op(
        reader_def("FixedLengthRecordReader")
            .attr("header_bytes", AttrKind::Int, int_default(0))
            .attr("record_bytes", AttrKind::Int, None)
            .attr("footer_bytes", AttrKind::Int, int_default(0))
            .attr("hop_bytes", AttrKind::Int, int_default(0)),
    );
    register_kernel("FixedLengthRecordReader", make_reader);
    register_op(reader_def("TFRecordReaderV2").attr(
        "compression_type",
        AttrKind::Str,
        str_default(""),
    ));
    register_op(reader_def("WholeFileReaderV2"));
    register_op(reader_def("IdentityReaderV2"));
    for op in [
        "TextLineReaderV2",
        "FixedLengthRecordReaderV2",
        "TFRecordReaderV2",
        "WholeFileReaderV2",
        "IdentityReaderV2",
    ] {
        register_kernel(op, make_reader);
    }

    register_op(
        OpDef::new("ReaderReadV2")
            .input("reader_handle", res())
            .input("queue_handle", res())
            .output("key", ArgType::Fixed(DType::String))
            .output("value", ArgType::Fixed(DType::String))
            .stateful()
            .shape_fn(scalar_outputs),
    );
    register_kernel("ReaderReadV2", |_| Ok(Box::new(ReadKernel)));
    register_op(
        OpDef::new("ReaderReadUpToV2")
            .input("reader_handle", res())
            .input("queue_handle", res())
            .input("num_records", ArgType::Fixed(DType::I64))
            .output("keys", ArgType::Fixed(DType::String))
            .output("values", ArgType::Fixed(DType::String))
            .stateful()
            .shape_fn(vector_outputs),
    );
    register_kernel("ReaderReadUpToV2", |_| Ok(Box::new(ReadUpToKernel)));
    for (op, q) in [
        ("ReaderNumRecordsProducedV2", Query::Produced),
        ("ReaderNumWorkUnitsCompletedV2", Query::Completed),
    ] {
        register_op(
            OpDef::new(op)
                .input("reader_handle", res())
                .output(
                    if matches!(q, Query::Produced) {
                        "records_produced"
                    } else {
                        "units_completed"
                    },
                    ArgType::Fixed(DType::I64),
                )
                .stateful()
                .shape_fn(scalar_outputs),
        );
    }
    register_kernel("ReaderNumRecordsProducedV2", |_| {
        Ok(Box::new(QueryKernel(Query::Produced)))
    });
    register_kernel("ReaderNumWorkUnitsCompletedV2", |_| {
        Ok(Box::new(QueryKernel(Query::Completed)))
    });
    register_op(
        OpDef::new("ReaderSerializeStateV2")
            .input("reader_handle", res())
            .output("state", ArgType::Fixed(DType::String))
            .stateful()
            .shape_fn(scalar_outputs),
    );
    register_kernel("ReaderSerializeStateV2", |_| Ok(Box::new(SerializeKernel)));
    register_op(
        OpDef::new("ReaderRestoreStateV2")
            .input("reader_handle", res())
            .input("state", ArgType::Fixed(DType::String))
            .stateful(),
    );
    register_kernel("ReaderRestoreStateV2", |_| Ok(Box::new(RestoreKernel)));
    register_op(
        OpDef::new("ReaderResetV2")
            .input("reader_handle", res())
            .stateful(),
    );
    register_kernel("ReaderResetV2", |_| Ok(Box::new(ResetKernel)));

    // TensorFlow 1.0's ref-handle ops, which GraphDefs of that time hold.
    for v1 in [
        "TextLineReader",
        "TFRecordReader",
        "WholeFileReader",
        "IdentityReader",
        "ReaderRead",
        "ReaderReadUpTo",
        "ReaderNumRecordsProduced",
        "ReaderNumWorkUnitsCompleted",
        "ReaderSerializeState",
        "ReaderRestoreState",
        "ReaderReset",
    ] {
        register_alias(&format!("{v1}V2"), v1);
    }
}
