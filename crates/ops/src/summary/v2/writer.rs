//! `tf.summary.create_file_writer` and the writer object it returns, with the default writer
//! and default step that the summary functions write with (`writer.as_default(step)`,
//! `tf.summary.experimental.set_step`).

use std::cell::RefCell;

use weir_graph::{DType, Error, Graph, Operation, Output, Result, Tensor};

use crate::array::{constant, constant_named};

/// The collection holding every writer's init op (`_SUMMARY_WRITER_V2`), which
/// [`summary_writer_initializer_op`] returns.
pub const SUMMARY_WRITER_INIT_COLLECTION: &str = "_SUMMARY_WRITER_V2";

/// The collection holding the boolean output of every summary written
/// (`GraphKeys._SUMMARY_COLLECTION`, `_SUMMARY_V2`), which [`all_v2_summary_ops`] returns.
pub const SUMMARY_COLLECTION: &str = "_SUMMARY_V2";

/// A summary step: an `int64`-castable value, made a constant where it is used, or an int64
/// scalar tensor (a global step variable's value).
#[derive(Clone, Debug)]
pub enum Step {
    /// A fixed step.
    Value(i64),
    /// An int64 tensor of one element.
    Tensor(Output),
}

impl From<i64> for Step {
    fn from(v: i64) -> Step {
        Step::Value(v)
    }
}
impl From<i32> for Step {
    fn from(v: i32) -> Step {
        Step::Value(v.into())
    }
}
impl From<Output> for Step {
    fn from(v: Output) -> Step {
        Step::Tensor(v)
    }
}
impl From<&Output> for Step {
    fn from(v: &Output) -> Step {
        Step::Tensor(v.clone())
    }
}

impl Step {
    /// TensorFlow's `_choose_step`: an int64 tensor of one element, else InvalidArgument with
    /// TensorFlow's ValueError message.
    pub(super) fn check(&self) -> Result<()> {
        let Step::Tensor(t) = self else {
            return Ok(());
        };
        if t.dtype() != DType::I64 {
            return Err(Error::invalid_argument(format!(
                "Tensor conversion requested dtype int64 for Tensor with dtype {}: \
                 <tf.Tensor '{}' shape={} dtype={}>",
                t.dtype(),
                t.name(),
                t.shape().python_str(),
                t.dtype()
            )));
        }
        match t.shape().num_elements() {
            Some(n) if n != 1 => Err(Error::invalid_argument(format!(
                "Argument `step` must be a scalar. Received step with shape {}.",
                t.shape().python_str()
            ))),
            _ => Ok(()),
        }
    }

    /// The step as an input of a write op built in the current scope: a value becomes the
    /// int64 constant `step`, as TensorFlow converts it.
    pub(super) fn output(&self, g: &Graph) -> Result<Output> {
        self.check()?;
        match self {
            Step::Value(v) => constant_named(g, *v, "step"),
            Step::Tensor(t) => Ok(t.clone()),
        }
    }
}

/// A summary writer on an event file (`tf.summary.SummaryWriter`, TensorFlow's
/// `_ResourceSummaryWriter`): its resource handle and the op that opens it.
#[derive(Clone, Debug)]
pub struct SummaryWriter {
    resource: Output,
    init_op: Operation,
}

/// The options of `tf.summary.create_file_writer(logdir, max_queue=None, flush_millis=None,
/// filename_suffix=None, name=None)`; unset ones take TensorFlow's defaults (10 events,
/// 120000 ms, `.v2`).
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::summary::v2::{self, CreateFileWriter};
/// let g = Graph::new();
/// let writer = CreateFileWriter::new("/tmp/logs").max_queue(5).build(&g)?;
/// let _default = writer.as_default(Some(3.into()));
/// let loss = weir_ops::array::constant(&g, 0.25f32)?;
/// let written = v2::scalar("loss", &loss, None, None)?;
/// assert_eq!(written.op().control_inputs()[0].op_type(), "WriteSummary");
/// assert_eq!(writer.init().op_type(), "CreateSummaryFileWriter");
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct CreateFileWriter {
    logdir: String,
    max_queue: Option<i32>,
    flush_millis: Option<i32>,
    filename_suffix: Option<String>,
    name: Option<String>,
}

impl CreateFileWriter {
    /// A writer into `logdir`, created when the writer's init op runs.
    pub fn new(logdir: &str) -> CreateFileWriter {
        CreateFileWriter {
            logdir: logdir.to_string(),
            max_queue: None,
            flush_millis: None,
            filename_suffix: None,
            name: None,
        }
    }

    /// `max_queue`: events kept in memory before a flush (10).
    pub fn max_queue(mut self, n: i32) -> CreateFileWriter {
        self.max_queue = Some(n);
        self
    }

    /// `flush_millis`: the longest time between flushes (120000).
    pub fn flush_millis(mut self, ms: i32) -> CreateFileWriter {
        self.flush_millis = Some(ms);
        self
    }

    /// `filename_suffix`: appended to the event file's name (`.v2`).
    pub fn filename_suffix(mut self, s: &str) -> CreateFileWriter {
        self.filename_suffix = Some(s.to_string());
        self
    }

    /// `name`: the name scope of the writer's ops (`create_file_writer`), which is also the
    /// resource's shared_name.
    pub fn name(mut self, name: &str) -> CreateFileWriter {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the `SummaryWriter` and `CreateSummaryFileWriter` ops under the writer's name
    /// scope and records the init op in [`SUMMARY_WRITER_INIT_COLLECTION`].
    pub fn build(self, g: &Graph) -> Result<SummaryWriter> {
        let _init = g.init_scope();
        let scope = g.name_scope(self.name.as_deref().unwrap_or("create_file_writer"));
        let logdir = constant(g, Tensor::from(self.logdir.as_str()))?;
        let max_queue = constant(g, self.max_queue.unwrap_or(10))?;
        let flush_millis = constant(g, self.flush_millis.unwrap_or(2 * 60 * 1000))?;
        let suffix = self.filename_suffix.as_deref().unwrap_or(".v2");
        let suffix = constant(g, Tensor::from(suffix))?;
        let shared_name = scope.prefix().trim_end_matches('/').to_string();
        let resource = crate::new_op(g, "SummaryWriter")
            .name(self.name.as_deref().unwrap_or("SummaryWriter"))
            .attr("shared_name", shared_name)
            .attr("container", String::new())
            .build()?
            .output(0)?;
        let init_op = crate::new_op(g, "CreateSummaryFileWriter")
            .input(resource.clone())
            .input(logdir)
            .input(max_queue)
            .input(flush_millis)
            .input(suffix)
            .build()?;
        drop(scope);
        g.add_to_collection(SUMMARY_WRITER_INIT_COLLECTION, init_op.clone())?;
        Ok(SummaryWriter { resource, init_op })
    }
}

/// `tf.summary.create_file_writer(logdir)` with TensorFlow's defaults; see
/// [`CreateFileWriter`] for the other arguments.
pub fn create_file_writer(g: &Graph, logdir: &str) -> Result<SummaryWriter> {
    CreateFileWriter::new(logdir).build(g)
}

impl SummaryWriter {
    /// The writer's resource handle (the `SummaryWriter` op's output).
    pub fn resource(&self) -> &Output {
        &self.resource
    }

    /// `writer.init()`: the `CreateSummaryFileWriter` op, which opens the event file.
    pub fn init(&self) -> Operation {
        self.init_op.clone()
    }

    /// `writer.flush()`: a `FlushSummaryWriter` op.
    pub fn flush(&self) -> Result<Operation> {
        crate::new_op(self.resource.graph(), "FlushSummaryWriter")
            .input(self.resource.clone())
            .build()
    }

    /// `writer.close()`: a `CloseSummaryWriter` op that runs after a flush; running it again
    /// (or writing afterwards) is NotFound until the init op runs again.
    pub fn close(&self) -> Result<Operation> {
        let flush = self.flush()?;
        let g = self.resource.graph();
        let _deps = g.control_dependencies(&[flush])?;
        crate::new_op(g, "CloseSummaryWriter")
            .input(self.resource.clone())
            .build()
    }

    /// `writer.as_default(step)`: makes this the writer summary functions of this thread write
    /// to, and `step` (when given) their default step, until the guard drops.
    pub fn as_default(&self, step: Option<Step>) -> DefaultWriter {
        STATE.with(|s| {
            let mut s = s.borrow_mut();
            let previous_step = step.map(|st| s.step.replace(st));
            DefaultWriter {
                previous_writer: s.writer.replace(self.clone()),
                previous_step,
            }
        })
    }

    /// `writer.set_as_default(step)`: [`as_default`](Self::as_default) for the rest of the
    /// thread's life.
    pub fn set_as_default(&self, step: Option<Step>) {
        std::mem::forget(self.as_default(step));
    }
}

#[derive(Default)]
struct State {
    writer: Option<SummaryWriter>,
    step: Option<Step>,
    /// Set by [`record_if`]; unset, TensorFlow 2's functions record and the contrib ones do
    /// not.
    recording: Option<bool>,
}

thread_local! {
    // TensorFlow's `_summary_state` is thread-local too.
    static STATE: RefCell<State> = RefCell::default();
}

/// Keeps a writer (and step) the default until dropped; see [`SummaryWriter::as_default`].
#[must_use = "the writer stops being the default when this guard is dropped"]
pub struct DefaultWriter {
    previous_writer: Option<SummaryWriter>,
    previous_step: Option<Option<Step>>,
}

impl Drop for DefaultWriter {
    fn drop(&mut self) {
        STATE.with(|s| {
            let mut s = s.borrow_mut();
            s.writer = self.previous_writer.take();
            if let Some(step) = self.previous_step.take() {
                s.step = step;
            }
        });
    }
}

/// The thread's default writer, if a [`SummaryWriter::as_default`] guard is alive.
pub fn default_writer() -> Option<SummaryWriter> {
    STATE.with(|s| s.borrow().writer.clone())
}

/// `tf.summary.experimental.set_step(step)`: the thread's default step (`None` unsets it).
pub fn set_step(step: Option<Step>) {
    STATE.with(|s| s.borrow_mut().step = step);
}

/// `tf.summary.experimental.get_step()`: the thread's default step.
pub fn get_step() -> Option<Step> {
    STATE.with(|s| s.borrow().step.clone())
}

/// Keeps a [`record_if`] condition until dropped.
#[must_use = "the condition ends when this guard is dropped"]
pub struct RecordIf {
    previous: Option<bool>,
}

impl Drop for RecordIf {
    fn drop(&mut self) {
        STATE.with(|s| s.borrow_mut().recording = self.previous);
    }
}

/// `tf.summary.record_if(condition)` with a condition known when building: summaries built
/// until the guard drops are written only when `condition` holds (otherwise they return
/// `false`). TensorFlow also takes a boolean tensor or a callable; weir only a fixed value.
pub fn record_if(condition: bool) -> RecordIf {
    STATE.with(|s| RecordIf {
        previous: s.borrow_mut().recording.replace(condition),
    })
}

/// `tf.contrib.summary.always_record_summaries()`: [`record_if`]`(true)`, which the contrib
/// functions need to write at all.
pub fn always_record_summaries() -> RecordIf {
    record_if(true)
}

/// `tf.contrib.summary.never_record_summaries()`: [`record_if`]`(false)`.
pub fn never_record_summaries() -> RecordIf {
    record_if(false)
}

/// Whether summaries built now record: the [`record_if`] condition, else `default`
/// (TensorFlow 2's functions record by default, the contrib ones do not).
pub(super) fn should_record(default: bool) -> bool {
    STATE.with(|s| s.borrow().recording.unwrap_or(default))
}

/// `tf.summary.flush(writer=None)`: a `FlushSummaryWriter` op on `writer`, else on the
/// default writer; `None` when there is neither.
pub fn flush(writer: Option<&SummaryWriter>) -> Result<Option<Operation>> {
    match writer.cloned().or_else(default_writer) {
        Some(w) => w.flush().map(Some),
        None => Ok(None),
    }
}

/// `tf.compat.v1.summary.summary_writer_initializer_op()`: the init ops of every writer
/// created in `g`.
pub fn summary_writer_initializer_op(g: &Graph) -> Vec<Operation> {
    g.get_collection(SUMMARY_WRITER_INIT_COLLECTION)
        .into_iter()
        .filter_map(|i| match i {
            weir_graph::CollectionItem::Operation(o) => Some(o),
            _ => None,
        })
        .collect()
}

/// `tf.compat.v1.summary.all_v2_summary_ops()`: the outputs of every summary written in `g`.
pub fn all_v2_summary_ops(g: &Graph) -> Vec<Output> {
    g.get_collection(SUMMARY_COLLECTION)
        .into_iter()
        .filter_map(|i| match i {
            weir_graph::CollectionItem::Output(o) => Some(o),
            _ => None,
        })
        .collect()
}
