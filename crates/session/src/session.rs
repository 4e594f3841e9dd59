//! `Session`: TensorFlow's `tf.Session`, run from many threads at once.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use parking_lot::{Mutex, RwLock};
use weir_graph::{
    format_dims_python, CancellationToken, Error, Graph, Kernel, Node, Operation, Output,
    ResourceManager, Result, SessionRunState, SessionState, Tensor, TensorStore,
};

use crate::executor::{run_parallel, run_sequential, RunEnv, RunHandles, Scratch};
use crate::plan::{build_plan, Plan, PlanKey};
use crate::run_args::{OpRef, RunArgs, TensorRef};
use crate::step_stats::{Collector, RunMetadata, TraceLevel};

/// Options of a session (the parts of TensorFlow's `ConfigProto` and `RunOptions` weir uses).
#[derive(Clone, Debug)]
pub struct SessionOptions {
    /// Threads of the inter-op pool that runs independent expensive steps in parallel
    /// (`inter_op_parallelism_threads`); 0 or 1 runs every step on the calling thread.
    pub inter_op_threads: usize,
    /// Threads that share the work of one large kernel, the caller's included
    /// (`intra_op_parallelism_threads`); 0 lets weir pick (one per core), 1 keeps each kernel on
    /// its caller. The pool is process-wide, as TensorFlow's is by default, so the first session
    /// that sets it wins.
    pub intra_op_threads: usize,
    /// A default timeout for every run (`RunOptions.timeout_in_ms`); `None` waits as long as
    /// needed (runs stay cancellable by `close`).
    pub run_timeout: Option<Duration>,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            inter_op_threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            intra_op_threads: 0,
            run_timeout: None,
        }
    }
}

impl SessionOptions {
    /// Sets `inter_op_threads`.
    pub fn inter_op_threads(mut self, n: usize) -> Self {
        self.inter_op_threads = n;
        self
    }

    /// Sets `intra_op_threads`.
    pub fn intra_op_threads(mut self, n: usize) -> Self {
        self.intra_op_threads = n;
        self
    }

    /// Sets the default run timeout.
    pub fn run_timeout(mut self, t: Duration) -> Self {
        self.run_timeout = Some(t);
        self
    }
}

static NEXT_SESSION_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

pub(crate) struct Inner {
    /// A process-unique id, so a `RunArgs` can remember which session its plan belongs to.
    id: u64,
    graph: Graph,
    options: SessionOptions,
    resources: Arc<ResourceManager>,
    /// The tensors kept under handles between runs (`tf.get_session_handle`).
    session_state: Arc<SessionState>,
    close_token: CancellationToken,
    closed: AtomicBool,
    plans: RwLock<HashMap<PlanKey, Arc<Plan>>>,
    kernels: Mutex<HashMap<usize, Arc<dyn Kernel>>>,
    pool: OnceLock<Arc<rayon::ThreadPool>>,
}

/// A handle to a session that does not own it: clone it into threads (queue runners) that
/// run the session. Runs through a handle fail once the owning [`Session`] is closed.
#[derive(Clone)]
pub struct SessionHandle {
    inner: Arc<Inner>,
}

/// A session on a graph: TensorFlow's `tf.Session`.
///
/// `run` takes `&self` and the session is `Send + Sync`, so many threads run it at once. Each
/// run executes on its calling thread (independent expensive branches may use the inter-op
/// pool). Stateful resources (variables, queues, readers) live here, not in the graph.
/// Dropping the session closes it. Everything else is on [`SessionHandle`], which a `Session`
/// dereferences to.
pub struct Session {
    handle: SessionHandle,
}

impl std::ops::Deref for Session {
    type Target = SessionHandle;
    fn deref(&self) -> &SessionHandle {
        &self.handle
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.handle.close();
    }
}

impl Session {
    /// A session on `graph` with default options (`tf.Session(graph=graph)`).
    pub fn new(graph: &Graph) -> Result<Session> {
        Session::with_options(graph, SessionOptions::default())
    }

    /// A session with `options`.
    pub fn with_options(graph: &Graph, options: SessionOptions) -> Result<Session> {
        weir_ops::register_all_ops();
        weir_ops::intra_op::request_threads(options.intra_op_threads);
        let inner = Arc::new(Inner {
            id: NEXT_SESSION_ID.fetch_add(1, Ordering::Relaxed),
            graph: graph.clone(),
            options,
            resources: Arc::new(ResourceManager::new()),
            session_state: Arc::new(SessionState::new()),
            close_token: CancellationToken::new(),
            closed: AtomicBool::new(false),
            plans: RwLock::new(HashMap::new()),
            kernels: Mutex::new(HashMap::new()),
            pool: OnceLock::new(),
        });
        inner
            .resources
            .set_function_runtime(Arc::new(crate::functions::SessionFunctions {
                inner: Arc::downgrade(&inner),
            }));
        Ok(Session {
            handle: SessionHandle { inner },
        })
    }

    /// A cloneable handle for other threads.
    pub fn handle(&self) -> SessionHandle {
        self.handle.clone()
    }
}

impl SessionHandle {
    pub(crate) fn from_inner(inner: Arc<Inner>) -> SessionHandle {
        SessionHandle { inner }
    }

    /// The token that closing the session cancels.
    pub(crate) fn close_token(&self) -> &CancellationToken {
        &self.inner.close_token
    }

    /// The graph this session runs.
    pub fn graph(&self) -> &Graph {
        &self.inner.graph
    }

    /// The session's resources (variables, queues, readers), keyed by container and name.
    pub fn resources(&self) -> &ResourceManager {
        &self.inner.resources
    }

    /// The tensors the session keeps under handles between runs (TensorFlow's `SessionState`).
    pub fn session_state(&self) -> &SessionState {
        &self.inner.session_state
    }

    /// Whether the session has been closed.
    pub fn is_closed(&self) -> bool {
        self.inner.closed.load(Ordering::Acquire)
    }

    /// Closes the session: every op blocked in a run fails with Cancelled, and later runs fail
    /// with FailedPrecondition "Attempted to use a closed Session.". Closing twice is a no-op.
    pub fn close(&self) {
        if !self.inner.closed.swap(true, Ordering::AcqRel) {
            self.inner.close_token.cancel(Error::cancelled(
                "Session was closed; the run was cancelled",
            ));
        }
    }

    /// Runs the subgraph that `args`' fetches and targets need, with its feeds, and returns the
    /// fetched tensors in order (`sess.run(fetches, feed_dict)`).
    pub fn run(&self, args: &RunArgs) -> Result<Vec<Tensor>> {
        self.run_inner(args, None)
    }

    /// Runs as [`run`](Self::run) does and fills `metadata` (`sess.run(fetches, feed_dict,
    /// options, run_metadata)`): with `args.trace_level(..)` above `NoTrace`, its step stats
    /// list every node the run executed, with its start, duration, thread and outputs, also
    /// when the run fails. [`Timeline`](crate::Timeline) turns them into a Chrome trace.
    ///
    /// ```
    /// # use weir_graph::{DType, Graph, Shape, Tensor};
    /// # use weir_ops::{array::placeholder, math::mul};
    /// use weir_session::{RunArgs, RunMetadata, Session, TraceLevel};
    /// # let g = Graph::new();
    /// # let x = placeholder(&g, DType::F32, Shape::unknown())?;
    /// # let y = mul(&x, &x)?;
    /// # let sess = Session::new(&g)?;
    /// let mut meta = RunMetadata::default();
    /// let args = RunArgs::new()
    ///     .feed(&x, Tensor::from(vec![3.0f32]))
    ///     .fetch(&y)
    ///     .trace_level(TraceLevel::FullTrace);
    /// sess.run_with_metadata(&args, &mut meta)?;
    /// assert!(meta.step_stats.node_stats().any(|n| n.node_name == y.op().name()));
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn run_with_metadata(
        &self,
        args: &RunArgs,
        metadata: &mut RunMetadata,
    ) -> Result<Vec<Tensor>> {
        *metadata = RunMetadata::default();
        self.run_inner(args, Some(metadata))
    }

    fn run_inner(&self, args: &RunArgs, metadata: Option<&mut RunMetadata>) -> Result<Vec<Tensor>> {
        if self.is_closed() {
            return Err(Error::failed_precondition(
                "Attempted to use a closed Session.",
            ));
        }
        // A RunArgs reused across runs of one session remembers its plan: no key to build or
        // hash on the hot path.
        // Borrowed, not cloned: runner threads running one plan at once would contend on its
        // reference count.
        let built;
        let plan = match args.cached_plan(self.inner.id) {
            Some(p) => p,
            None => {
                let key = self.key_of(args)?;
                let feed_shapes: Vec<&[usize]> =
                    args.feeds.iter().map(|(_, v)| v.shape()).collect();
                built = self.plan_for(&key, &feed_shapes)?;
                args.remember_plan(self.inner.id, &built);
                &built
            }
        };
        let trace = match &metadata {
            Some(_) if args.trace_level > TraceLevel::NoTrace => Some(Arc::new(Collector::new())),
            _ => None,
        };
        let mut scratch = Scratch::take();
        let result = self.execute(plan, args, &mut scratch, trace.clone());
        scratch.put_back();
        if let (Some(meta), Some(trace)) = (metadata, trace) {
            // Pool tasks of a failed run may still hold the collector; what they add later is
            // not part of this run's report.
            let trace = Arc::try_unwrap(trace).unwrap_or_else(|shared| shared.snapshot());
            meta.step_stats = trace.finish(plan, &self.inner.graph);
        }
        result
    }

    /// Checks and places the feeds, runs the plan, and returns the fetched tensors.
    fn execute(
        &self,
        plan: &Arc<Plan>,
        args: &RunArgs,
        scratch: &mut Scratch,
        trace: Option<Arc<Collector>>,
    ) -> Result<Vec<Tensor>> {
        scratch.slots.resize_with(plan.num_slots, || None);
        for (i, (_, value)) in args.feeds.iter().enumerate() {
            let check = &plan.feed_checks[i];
            if value.dtype() != check.dtype {
                return Err(Error::invalid_argument(format!(
                    "Cannot feed value of dtype {} for Tensor {}, which has dtype {}",
                    value.dtype(),
                    check.name,
                    check.dtype
                )));
            }
            if !check.shape.is_compatible_with_dims(value.shape()) {
                return Err(Error::invalid_argument(format!(
                    "Cannot feed value of shape {} for Tensor {}, which has shape {}",
                    format_dims_python(value.shape()),
                    check.name,
                    check.shape.python_str()
                )));
            }
            if let Some(s) = plan.feed_slots[i] {
                scratch.slots[s] = Some(value.clone());
            }
        }
        let timeout = args.timeout.or(self.inner.options.run_timeout);
        let deadline = timeout.map(|t| Instant::now() + t);
        if plan.parallel {
            // A step of its own, so a failing branch cancels the others without closing the
            // session.
            let token = args
                .cancellation
                .0
                .as_ref()
                .unwrap_or(&self.inner.close_token)
                .child();
            let pool = self.pool()?;
            let slots = std::mem::take(&mut scratch.slots);
            let store = Arc::new(TensorStore::new());
            let handles = RunHandles {
                state: self.inner.session_state.clone(),
                store: store.clone(),
            };
            scratch.slots = run_parallel(
                plan,
                slots,
                (&self.inner.resources, handles),
                &token,
                deadline,
                pool,
                trace,
            )?;
            self.keep_fetched_handles(plan, &store)?;
        } else {
            let store = TensorStore::new();
            let env = RunEnv {
                resources: &self.inner.resources,
                cancellation: args
                    .cancellation
                    .0
                    .as_ref()
                    .unwrap_or(&self.inner.close_token),
                deadline,
                trace: trace.as_deref(),
                session: Some(SessionRunState {
                    state: &self.inner.session_state,
                    store: &store,
                }),
            };
            run_sequential(plan, scratch, &env)?;
            self.keep_fetched_handles(plan, &store)?;
        }
        let mut fetched = Vec::with_capacity(plan.fetch_slots.len());
        for (k, &s) in plan.fetch_slots.iter().enumerate() {
            match &scratch.slots[s] {
                Some(t) => fetched.push(t.clone()),
                None if plan.control_flow => return Err(dead_fetch(plan, k)),
                None => return Err(Error::internal("A fetched tensor was not computed")),
            }
        }
        Ok(fetched)
    }

    /// Keeps, after a successful run, the tensors of the handle ops it fetched, as TensorFlow's
    /// `DirectSession::RunInternal` saves its run's `TensorStore`.
    fn keep_fetched_handles(&self, plan: &Plan, store: &TensorStore) -> Result<()> {
        if store.is_empty() {
            return Ok(());
        }
        store.save_tensors(
            plan.fetch_names.iter().map(String::as_str),
            &self.inner.session_state,
        )
    }

    /// Fetches one tensor with no feeds (`sess.run(t)`, `t.eval()`).
    pub fn eval(&self, t: impl Into<Output>) -> Result<Tensor> {
        let mut v = self.run(&RunArgs::new().fetch(t))?;
        v.pop()
            .ok_or_else(|| Error::internal("run returned no value"))
    }

    /// Runs `op` for its effect, with no feeds (`sess.run(op)`, `op.run()`).
    pub fn run_target(&self, op: &Operation) -> Result<()> {
        self.run(&RunArgs::new().target(op)).map(|_| ())
    }

    fn pool(&self) -> Result<&Arc<rayon::ThreadPool>> {
        if let Some(p) = self.inner.pool.get() {
            return Ok(p);
        }
        let p = rayon::ThreadPoolBuilder::new()
            .num_threads(self.inner.options.inter_op_threads.max(1))
            .thread_name(|i| format!("weir-inter-op-{i}"))
            .build()
            .map_err(|e| {
                Error::resource_exhausted(format!("Cannot start the inter-op pool: {e}"))
            })?;
        Ok(self.inner.pool.get_or_init(|| Arc::new(p)))
    }

    fn resolve_output(&self, r: &TensorRef) -> Result<(usize, usize)> {
        match r {
            TensorRef::Output(o) => self.check_graph(o).map(|_| (o.node_id(), o.index())),
            TensorRef::Name(n) => {
                let o = self.inner.graph.tensor_by_name(n)?;
                Ok((o.node_id(), o.index()))
            }
        }
    }

    fn check_graph(&self, o: &Output) -> Result<()> {
        if o.graph().ptr_eq(&self.inner.graph) {
            Ok(())
        } else {
            Err(Error::invalid_argument(format!(
                "Tensor {} is not an element of this graph.",
                o.name()
            )))
        }
    }

    fn resolve_op(&self, r: &OpRef) -> Result<usize> {
        match r {
            OpRef::Op(op) => {
                if op.graph().ptr_eq(&self.inner.graph) {
                    Ok(op.id())
                } else {
                    Err(Error::invalid_argument(format!(
                        "Operation {} is not an element of this graph.",
                        op.name()
                    )))
                }
            }
            OpRef::Name(n) => self
                .inner
                .graph
                .operation_by_name(n)
                .map(|o: Operation| o.id())
                .ok_or_else(|| {
                    Error::not_found(format!(
                        "The name '{n}' refers to an Operation not in the graph."
                    ))
                }),
        }
    }

    fn key_of(&self, args: &RunArgs) -> Result<PlanKey> {
        Ok(PlanKey {
            feeds: args
                .feeds
                .iter()
                .map(|(r, _)| self.resolve_output(r))
                .collect::<Result<_>>()?,
            fetches: args
                .fetches
                .iter()
                .map(|r| self.resolve_output(r))
                .collect::<Result<_>>()?,
            targets: args
                .targets
                .iter()
                .map(|r| self.resolve_op(r))
                .collect::<Result<_>>()?,
        })
    }

    fn plan_for(&self, key: &PlanKey, feed_shapes: &[&[usize]]) -> Result<Arc<Plan>> {
        if let Some(p) = self.inner.plans.read().get(key) {
            return Ok(p.clone());
        }
        let parallel_allowed = self.inner.options.inter_op_threads > 1;
        let plan = Arc::new(build_plan(
            &self.inner.graph,
            key,
            feed_shapes,
            parallel_allowed,
            |node| self.kernel_for(node),
        )?);
        Ok(self
            .inner
            .plans
            .write()
            .entry(key.clone())
            .or_insert(plan)
            .clone())
    }

    /// The session's one kernel instance for `node`, made on first use.
    fn kernel_for(&self, node: &Arc<Node>) -> Result<Arc<dyn Kernel>> {
        let mut kernels = self.inner.kernels.lock();
        if let Some(k) = kernels.get(&node.id()) {
            return Ok(k.clone());
        }
        let make = weir_graph::registry::kernel_factory(node.op_type())
            .map_err(|e| e.with_node(node.name(), node.op_type()))?;
        let k: Arc<dyn Kernel> =
            Arc::from(make(node).map_err(|e| e.with_node(node.name(), node.op_type()))?);
        kernels.insert(node.id(), k.clone());
        Ok(k)
    }
}

/// The error for fetching a value of an untaken `cond` branch. TensorFlow's session sorts the
/// fetched names before running, and its message counts in that order.
fn dead_fetch(plan: &Plan, k: usize) -> Error {
    let mut names: Vec<&str> = plan.fetch_names.iter().map(String::as_str).collect();
    names.sort_unstable();
    names.dedup();
    let index = names
        .iter()
        .position(|n| *n == plan.fetch_names[k])
        .unwrap_or(k);
    Error::invalid_argument(format!("Retval[{index}] does not have value"))
}
