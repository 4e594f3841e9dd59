//! `QueueRunner`: the threads that keep a queue filled (TensorFlow's `tf.train.QueueRunner`),
//! and the `QUEUE_RUNNERS` collection that `start_queue_runners` starts.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use weir_graph::graph_def::meta_graph::{prepend_name_scope, strip_name_scope, QueueRunnerDef};
use weir_graph::{graph_keys, Code, CollectionItem, Error, Graph, Operation, Result};
use weir_ops::data_flow::Queue;
use weir_session::{RunArgs, SessionHandle};

use crate::coordinator::{CoordThread, Coordinator};

/// What the graph's collection keeps of a runner: node ids (so the graph does not keep itself
/// alive) and the runner's shared run-time state.
struct RunnerRecord {
    queue: usize,
    enqueue_ops: Vec<usize>,
    close_op: usize,
    cancel_op: usize,
    closed_codes: Vec<Code>,
    state: Arc<RunnerState>,
}

#[derive(Default)]
struct RunnerState {
    /// Live enqueue threads per session (keyed by the session's identity).
    runs_per_session: Mutex<HashMap<usize, usize>>,
    exceptions_raised: Mutex<Vec<Error>>,
}

/// TensorFlow's `tf.train.QueueRunner`: a queue, the enqueue ops that fill it (one thread
/// each), the op that closes it when the input is exhausted and the op that cancel-closes it
/// when a coordinator stops.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::constant, data_flow::FifoQueue};
/// use weir_train::QueueRunner;
/// let g = Graph::new();
/// let q = FifoQueue::new(100, &[DType::I32]).shapes(&[Shape::scalar()]).name("q").build(&g)?;
/// let enq = q.enqueue(&[constant(&g, 1i32)?])?;
/// let qr = QueueRunner::new(&q, &[enq.clone(), enq])?;
/// assert_eq!(qr.close_op().name(), "q_Close");
/// assert_eq!(qr.cancel_op().name(), "q_Close_1");
/// weir_train::add_queue_runner(&qr, None);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone)]
pub struct QueueRunner {
    graph: Graph,
    record: Arc<RunnerRecord>,
}

/// Options of `QueueRunner(queue, enqueue_ops, close_op, cancel_op,
/// queue_closed_exception_types)`.
pub struct QueueRunnerBuilder {
    queue: Queue,
    enqueue_ops: Vec<Operation>,
    close_op: Option<Operation>,
    cancel_op: Option<Operation>,
    closed_codes: Vec<Code>,
}

impl QueueRunnerBuilder {
    /// The op run when the last enqueue thread finds its input exhausted (default
    /// `queue.close()`).
    pub fn close_op(mut self, op: &Operation) -> Self {
        self.close_op = Some(op.clone());
        self
    }

    /// The op the closer thread runs when the coordinator stops (default
    /// `queue.close(cancel_pending_enqueues=True)`).
    pub fn cancel_op(mut self, op: &Operation) -> Self {
        self.cancel_op = Some(op.clone());
        self
    }

    /// The error kinds that mean "input exhausted" and end a thread quietly (default
    /// OutOfRange); must not be empty.
    pub fn queue_closed_exception_types(mut self, codes: &[Code]) -> Self {
        self.closed_codes = codes.to_vec();
        self
    }

    /// Creates the runner (and the default close ops, `q_Close` and `q_Close_1`).
    pub fn build(self) -> Result<QueueRunner> {
        if self.enqueue_ops.is_empty() {
            return Err(Error::invalid_argument(
                "Must provide queue and enqueue_ops.",
            ));
        }
        if self.closed_codes.is_empty() {
            return Err(Error::invalid_argument(
                "queue_closed_exception_types must be a non-empty tuple of tf.error types",
            ));
        }
        let close_op = match self.close_op {
            Some(op) => op,
            None => self.queue.close(false)?,
        };
        let cancel_op = match self.cancel_op {
            Some(op) => op,
            None => self.queue.close(true)?,
        };
        let graph = self.queue.graph().clone();
        Ok(QueueRunner {
            record: Arc::new(RunnerRecord {
                queue: self.queue.op().id(),
                enqueue_ops: self.enqueue_ops.iter().map(Operation::id).collect(),
                close_op: close_op.id(),
                cancel_op: cancel_op.id(),
                closed_codes: self.closed_codes,
                state: Arc::new(RunnerState::default()),
            }),
            graph,
        })
    }
}

fn session_key(sess: &SessionHandle) -> usize {
    // The resource manager lives as long as the session: its address identifies the session.
    sess.resources() as *const _ as usize
}

impl QueueRunner {
    /// A runner with TensorFlow's defaults for `queue` and `enqueue_ops`.
    pub fn new(queue: &Queue, enqueue_ops: &[Operation]) -> Result<QueueRunner> {
        QueueRunner::builder(queue, enqueue_ops).build()
    }

    /// A builder for the other arguments.
    pub fn builder(queue: &Queue, enqueue_ops: &[Operation]) -> QueueRunnerBuilder {
        QueueRunnerBuilder {
            queue: queue.clone(),
            enqueue_ops: enqueue_ops.to_vec(),
            close_op: None,
            cancel_op: None,
            closed_codes: vec![Code::OutOfRange],
        }
    }

    fn op(&self, id: usize) -> Operation {
        self.graph
            .operation(id)
            .expect("runner ops are nodes of its graph")
    }

    /// The queue (`qr.queue`).
    pub fn queue(&self) -> Result<Queue> {
        Queue::from_operation(&self.op(self.record.queue))
    }

    /// The runner's name: the queue op's name (`qr.name`).
    pub fn name(&self) -> String {
        self.op(self.record.queue).name()
    }

    /// The enqueue ops, one thread each (`qr.enqueue_ops`).
    pub fn enqueue_ops(&self) -> Vec<Operation> {
        self.record
            .enqueue_ops
            .iter()
            .map(|&i| self.op(i))
            .collect()
    }

    /// The close op (`qr.close_op`).
    pub fn close_op(&self) -> Operation {
        self.op(self.record.close_op)
    }

    /// The cancel op (`qr.cancel_op`).
    pub fn cancel_op(&self) -> Operation {
        self.op(self.record.cancel_op)
    }

    /// The error kinds that end a thread quietly (`qr.queue_closed_exception_types`).
    pub fn queue_closed_exception_types(&self) -> &[Code] {
        &self.record.closed_codes
    }

    /// Errors that ended threads run without a coordinator (`qr.exceptions_raised`).
    pub fn exceptions_raised(&self) -> Vec<Error> {
        self.record.state.exceptions_raised.lock().clone()
    }

    /// `create_threads(sess, coord, start)`: one thread per enqueue op, named
    /// `QueueRunnerThread-<queue>-<op>`, plus, with a coordinator, a closer thread
    /// `QueueRunnerThread-<queue>-close_on_stop` that runs the cancel op once a stop is
    /// requested. Every thread is registered with the coordinator. Returns no threads while
    /// threads of this runner still run for this session.
    pub fn create_threads(
        &self,
        sess: &SessionHandle,
        coord: Option<&Coordinator>,
        start: bool,
    ) -> Result<Vec<CoordThread>> {
        if !sess.graph().ptr_eq(&self.graph) {
            return Err(Error::invalid_argument(format!(
                "QueueRunner {} belongs to another graph than the session's",
                self.name()
            )));
        }
        let key = session_key(sess);
        {
            let mut runs = self.record.state.runs_per_session.lock();
            if runs.get(&key).copied().unwrap_or(0) > 0 {
                return Ok(Vec::new());
            }
            runs.insert(key, self.record.enqueue_ops.len());
            self.record.state.exceptions_raised.lock().clear();
        }
        let qname = self.name();
        let mut threads = Vec::new();
        for op in self.enqueue_ops() {
            let name = format!("QueueRunnerThread-{qname}-{}", op.name());
            let body = EnqueueLoop {
                sess: sess.clone(),
                enqueue: RunArgs::new().target(&op),
                close: RunArgs::new().target(&self.close_op()),
                coord: coord.cloned(),
                record: self.record.clone(),
                key,
            };
            threads.push(CoordThread::pending(&name, move || body.run()));
        }
        if let Some(c) = coord {
            let name = format!("QueueRunnerThread-{qname}-close_on_stop");
            let (sess, c2, cancel) = (
                sess.clone(),
                c.clone(),
                RunArgs::new().target(&self.cancel_op()),
            );
            threads.push(CoordThread::pending(&name, move || {
                c2.wait_for_stop(None);
                // Errors of the cancel op are ignored, as in TensorFlow.
                let _ = sess.run(&cancel);
            }));
        }
        for t in &threads {
            if let Some(c) = coord {
                c.register_thread(t);
            }
            if start {
                t.start()?;
            }
        }
        Ok(threads)
    }
}

/// One enqueue thread of a runner.
struct EnqueueLoop {
    sess: SessionHandle,
    enqueue: RunArgs,
    close: RunArgs,
    coord: Option<Coordinator>,
    record: Arc<RunnerRecord>,
    key: usize,
}

impl EnqueueLoop {
    /// Decrements this session's live-thread count; returns whether this was the last thread.
    fn leave(&self) -> bool {
        let mut runs = self.record.state.runs_per_session.lock();
        let n = runs.entry(self.key).or_insert(1);
        *n = n.saturating_sub(1);
        *n == 0
    }

    fn run(self) {
        let outcome = loop {
            if self.coord.as_ref().is_some_and(Coordinator::should_stop) {
                break Ok(());
            }
            if let Err(e) = self.sess.run(&self.enqueue) {
                break Err(e);
            }
        };
        match outcome {
            Err(e) if self.record.closed_codes.contains(&e.code()) => {
                if self.leave() {
                    // The last thread closes the queue; errors of the close are ignored.
                    let _ = self.sess.run(&self.close);
                }
            }
            Err(e) => {
                self.leave();
                match &self.coord {
                    Some(c) => {
                        let _ = c.request_stop(Some(e));
                    }
                    None => {
                        eprintln!("Exception in QueueRunner: {e}");
                        self.record.state.exceptions_raised.lock().push(e);
                    }
                }
            }
            Ok(()) => {
                self.leave();
            }
        }
    }
}

impl QueueRunner {
    /// `tf.train.QueueRunner(queue_runner_def=def, import_scope=scope)`: the runner whose nodes
    /// `def` names, found in `graph` under `import_scope`. NotFound names a missing node;
    /// InvalidArgument an unknown error code.
    pub fn from_proto(
        graph: &Graph,
        def: &QueueRunnerDef,
        import_scope: Option<&str>,
    ) -> Result<QueueRunner> {
        let op = |name: &str| {
            let full = prepend_name_scope(name, import_scope);
            graph.operation_by_name(&full).ok_or_else(|| {
                Error::not_found(format!(
                    "QueueRunnerDef of {}: the operation {full} is not in the graph",
                    def.queue_name
                ))
            })
        };
        let queue = Queue::from_operation(&op(&def.queue_name)?)?;
        let enqueue_ops = def
            .enqueue_op_name
            .iter()
            .map(|n| op(n))
            .collect::<Result<Vec<_>>>()?;
        let codes = def
            .queue_closed_exception_types
            .iter()
            .map(|&n| {
                Code::from_proto_number(n).ok_or_else(|| {
                    Error::invalid_argument(format!(
                        "QueueRunnerDef of {}: unknown error code {n}",
                        def.queue_name
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let mut b = QueueRunner::builder(&queue, &enqueue_ops);
        // TensorFlow defaults an empty list to OutOfRange, as the builder does.
        if !codes.is_empty() {
            b = b.queue_closed_exception_types(&codes);
        }
        b.close_op(&op(&def.close_op_name)?)
            .cancel_op(&op(&def.cancel_op_name)?)
            .build()
    }

    /// `qr.to_proto(export_scope)`: the `QueueRunnerDef` naming this runner's nodes without
    /// the leading `export_scope`; `None` when the queue is not under it.
    pub fn to_proto(&self, export_scope: Option<&str>) -> Option<QueueRunnerDef> {
        let name = |op: Operation| strip_name_scope(&op.name(), export_scope);
        Some(QueueRunnerDef {
            queue_name: name(self.op(self.record.queue))?,
            enqueue_op_name: self
                .enqueue_ops()
                .into_iter()
                .map(name)
                .collect::<Option<Vec<_>>>()?,
            close_op_name: name(self.close_op())?,
            cancel_op_name: name(self.cancel_op())?,
            queue_closed_exception_types: self
                .record
                .closed_codes
                .iter()
                .map(|c| c.proto_number())
                .collect(),
        })
    }

    /// The runner that collection item `item` of `graph` holds, if it holds one.
    pub fn from_collection_item(graph: &Graph, item: &CollectionItem) -> Option<QueueRunner> {
        match item {
            CollectionItem::Object(o) => {
                let record = o.clone().downcast::<RunnerRecord>().ok()?;
                Some(QueueRunner {
                    graph: graph.clone(),
                    record,
                })
            }
            _ => None,
        }
    }
}

/// `tf.train.add_queue_runner(qr, collection)`: adds the runner to `collection` (default
/// `QUEUE_RUNNERS`) of its graph.
pub fn add_queue_runner(qr: &QueueRunner, collection: Option<&str>) {
    let key = collection.unwrap_or(graph_keys::QUEUE_RUNNERS);
    qr.graph.add_object_to_collection(key, qr.record.clone());
}

/// The runners in `collection` (default `QUEUE_RUNNERS`) of `graph`.
pub fn queue_runners(graph: &Graph, collection: Option<&str>) -> Vec<QueueRunner> {
    let key = collection.unwrap_or(graph_keys::QUEUE_RUNNERS);
    graph
        .get_collection_of::<RunnerRecord>(key)
        .into_iter()
        .map(|record| QueueRunner {
            graph: graph.clone(),
            record,
        })
        .collect()
}

/// `tf.train.start_queue_runners(sess, coord)`: starts the threads of every runner in the
/// session graph's `QUEUE_RUNNERS` collection and returns them.
pub fn start_queue_runners(sess: &SessionHandle, coord: &Coordinator) -> Result<Vec<CoordThread>> {
    start_queue_runners_with(sess, Some(coord), None)
}

/// `start_queue_runners(sess, coord, collection=...)` with an optional coordinator and
/// collection.
pub fn start_queue_runners_with(
    sess: &SessionHandle,
    coord: Option<&Coordinator>,
    collection: Option<&str>,
) -> Result<Vec<CoordThread>> {
    let mut threads = Vec::new();
    for qr in queue_runners(sess.graph(), collection) {
        threads.extend(qr.create_threads(sess, coord, true)?);
    }
    Ok(threads)
}
