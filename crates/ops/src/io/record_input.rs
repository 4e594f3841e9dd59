//! TensorFlow's `RecordInput` op and its Python class (`data_flow_ops.RecordInput`): a batch of
//! records, drawn at random from a buffer that background threads keep filling from TFRecord
//! files, epoch after epoch. TensorFlow 1.x's benchmark input pipelines read ImageNet this way.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    AttrKind, AttrValue, DType, Error, Graph, Kernel, Node, OpContext, OpDef, Output, Result,
    Shape, Tensor,
};

use super::matching_files::matching_paths_listed;
use super::options::Compression;
use super::record_yielder::{RecordYielder, YielderOptions};

/// `data_flow_ops.RecordInput(file_pattern, batch_size=1, buffer_size=1, parallelism=1,
/// shift_ratio=0, seed=0, name=None, batches=None, compression_type=None)`: the builder of a
/// `RecordInput` op, whose every run yields `batch_size` (times `batches`) records.
///
/// Each epoch reads every record of the files matching `file_pattern` (comma-separated globs)
/// once, in an order randomized by `seed`; the op starts yielding once the buffer of
/// `buffer_size` records is half full. A run waiting for records ends on cancellation.
///
/// ```
/// use weir_graph::{DType, Graph};
/// use weir_ops::io::{Compression, RecordInput};
///
/// let g = Graph::new();
/// let records = RecordInput::new("/data/train-*")
///     .batch_size(32)
///     .buffer_size(10_000)
///     .parallelism(8)
///     .compression_type(Compression::Gzip)
///     .get_yield_op(&g)?;
/// assert_eq!(records.dtype(), DType::String);
/// assert_eq!(records.op().op_type(), "RecordInput");
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct RecordInput {
    file_pattern: String,
    batch_size: i64,
    buffer_size: i64,
    parallelism: i64,
    shift_ratio: f32,
    seed: i64,
    name: Option<String>,
    batches: Option<usize>,
    compression_type: Compression,
}

impl RecordInput {
    /// Reads the files matching `file_pattern`, with Python's defaults for the rest.
    pub fn new(file_pattern: impl Into<String>) -> RecordInput {
        RecordInput {
            file_pattern: file_pattern.into(),
            batch_size: 1,
            buffer_size: 1,
            parallelism: 1,
            shift_ratio: 0.0,
            seed: 0,
            name: None,
            batches: None,
            compression_type: Compression::None,
        }
    }

    /// Records per batch (default 1).
    pub fn batch_size(mut self, n: i64) -> Self {
        self.batch_size = n;
        self
    }

    /// The most records the randomizing buffer holds (default 1).
    pub fn buffer_size(mut self, n: i64) -> Self {
        self.buffer_size = n;
        self
    }

    /// How many threads read files at once (default 1).
    pub fn parallelism(mut self, n: i64) -> Self {
        self.parallelism = n;
        self
    }

    /// The fraction of the file list each epoch starts further along (default 0; values
    /// outside `[0, 1)` mean 0).
    pub fn shift_ratio(mut self, r: f32) -> Self {
        self.shift_ratio = r;
        self
    }

    /// The seed of the file and record shuffling (default 0).
    pub fn seed(mut self, s: i64) -> Self {
        self.seed = s;
        self
    }

    /// The op's name (default `RecordInput`).
    pub fn name(mut self, n: impl Into<String>) -> Self {
        self.name = Some(n.into());
        self
    }

    /// Yields `n` batches per run instead of one: see [`get_yield_op_batches`](Self::get_yield_op_batches).
    pub fn batches(mut self, n: usize) -> Self {
        self.batches = Some(n);
        self
    }

    /// The files' compression (default none).
    pub fn compression_type(mut self, c: Compression) -> Self {
        self.compression_type = c;
        self
    }

    fn records_per_run(&self) -> Result<i64> {
        let k = i64::try_from(self.batches.unwrap_or(1))
            .map_err(|_| Error::invalid_argument("batches is too large"))?;
        self.batch_size
            .checked_mul(k)
            .ok_or_else(|| Error::invalid_argument("batch_size * batches overflows int64"))
    }

    /// `get_yield_op()` without `batches`: the `RecordInput` op's output, a string vector of
    /// `batch_size` records (`batch_size × batches` when `batches` is set).
    pub fn get_yield_op(&self, graph: &Graph) -> Result<Output> {
        crate::new_op(graph, "RecordInput")
            .maybe_name(self.name.as_deref())
            .attr("file_pattern", self.file_pattern.as_str())
            .attr("file_buffer_size", self.buffer_size)
            .attr("file_parallelism", self.parallelism)
            .attr("file_shuffle_shift_ratio", self.shift_ratio)
            .attr("batch_size", self.records_per_run()?)
            .attr("file_random_seed", self.seed)
            .attr("compression_type", self.compression_type.as_str())
            .build()?
            .output(0)
    }

    /// `get_yield_op()` with `batches`: `batches` lists of `batch_size` scalar records, record
    /// `i` of a run going to list `i % batches`, as Python splits them.
    pub fn get_yield_op_batches(&self, graph: &Graph) -> Result<Vec<Vec<Output>>> {
        let Some(batches) = self.batches.filter(|b| *b > 0) else {
            return Err(Error::invalid_argument(
                "get_yield_op_batches needs RecordInput.batches(n) with n > 0",
            ));
        };
        let records = self.get_yield_op(graph)?;
        let n = usize::try_from(self.records_per_run()?)
            .map_err(|_| Error::invalid_argument("batch_size must be non-negative"))?;
        let scope = self.name.as_deref().map(|s| graph.name_scope(s));
        let pieces = crate::array::split(records, n, 0)?;
        let mut lists = vec![Vec::new(); batches];
        for (i, p) in pieces.into_iter().enumerate() {
            lists[i % batches].push(crate::array::reshape(p, Vec::<i64>::new())?);
        }
        drop(scope);
        Ok(lists)
    }
}

/// One session's `RecordInput` node: its yielder starts with the kernel, as TensorFlow's does
/// in the kernel's constructor, and stops when the session drops it.
struct RecordInputKernel {
    batch_size: usize,
    yielder: RecordYielder,
}

impl Kernel for RecordInputKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let records =
            self.yielder
                .yield_batch(self.batch_size, ctx.cancellation(), ctx.deadline())?;
        ctx.set_output(0, Tensor::from_vec(&[records.len()], records)?);
        Ok(())
    }

    /// Waits while the buffer is short of records.
    fn may_block(&self) -> bool {
        true
    }
}

fn make_kernel(node: &Node) -> Result<Box<dyn Kernel>> {
    let parallelism: i64 = node.attr("file_parallelism")?;
    let batch_size: i64 = node.attr("batch_size")?;
    if parallelism < 0 {
        return Err(Error::invalid_argument(format!(
            "file_parallelism should >= 0, got {parallelism}"
        )));
    }
    if batch_size < 0 {
        return Err(Error::invalid_argument(format!(
            "batch_size must be non-negative but got {batch_size}"
        )));
    }
    let bufsize: i64 = node.attr("file_buffer_size")?;
    let compression: String = node.attr("compression_type")?;
    let opts = YielderOptions {
        file_pattern: node.attr("file_pattern")?,
        seed: node.attr("file_random_seed")?,
        shift_ratio: node.attr("file_shuffle_shift_ratio")?,
        // TensorFlow stores the int64 attr in a uint64.
        bufsize: bufsize as u64,
        parallelism: usize::try_from(parallelism).unwrap_or(0),
        compression: Compression::parse_lenient(&compression),
    };
    Ok(Box::new(RecordInputKernel {
        batch_size: batch_size as usize,
        yielder: RecordYielder::start(opts, Box::new(matching_paths_listed))?,
    }))
}

pub(super) fn register() {
    let int = |v: i64| Some(AttrValue::Int(v));
    register_op(
        OpDef::new("RecordInput")
            .output("records", weir_graph::ArgType::Fixed(DType::String))
            .attr("file_pattern", AttrKind::Str, None)
            .attr("file_random_seed", AttrKind::Int, int(301))
            .attr(
                "file_shuffle_shift_ratio",
                AttrKind::Float,
                Some(AttrValue::Float(0.0)),
            )
            .attr("file_buffer_size", AttrKind::Int, int(10_000))
            .attr("file_parallelism", AttrKind::Int, int(16))
            .attr("batch_size", AttrKind::Int, int(32))
            .attr(
                "compression_type",
                AttrKind::Str,
                Some(AttrValue::Str(String::new())),
            )
            .stateful()
            .shape_fn(|ctx| {
                ctx.set_output(0, Shape::unknown());
                Ok(())
            }),
    );
    register_kernel("RecordInput", make_kernel);
}
