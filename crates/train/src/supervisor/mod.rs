//! `tf.train.Supervisor`: TensorFlow 1's training helper before `MonitoredTrainingSession`. It
//! initializes or restores the model from its log directory, starts the queue runners, and
//! runs services that write summaries and save checkpoints on timers, all under one
//! coordinator.

mod services;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use weir_graph::graph_def::write_graph;
use weir_graph::{graph_keys, Code, Error, Graph, Operation, Output, Result, Tensor};
use weir_ops::state::{
    global_variables, global_variables_initializer, report_uninitialized_variables,
};
use weir_session::{Session, SessionHandle, SessionOptions};

use crate::global_step::read_step;
use crate::meta_graph::ExportMetaGraph;
use crate::monitored::{default_local_init_op, first_output, operation_or, output_or};
use crate::session_manager::{op_text, InitFn};
use crate::summary::SessionStatus;
use crate::{
    get_global_step, start_queue_runners, CoordThread, Coordinator, FileWriter, LooperThread,
    PrepareArgs, Saver, SessionManager,
};
use services::interval;

/// The builder of a [`Supervisor`]: `tf.compat.v1.train.Supervisor(graph, ready_op, is_chief,
/// init_op, logdir, summary_op, saver, global_step, save_summaries_secs, save_model_secs,
/// ...)` with TensorFlow's defaults.
///
/// A setting left alone takes TensorFlow's `USE_DEFAULT`: the first item of the graph's
/// collection of that name, or else a new default op, added to the collection. Setting it to
/// `None` turns it off.
pub struct SupervisorBuilder {
    graph: Graph,
    is_chief: bool,
    ready_op: Option<Option<Output>>,
    ready_for_local_init_op: Option<Option<Output>>,
    init_op: Option<Option<Operation>>,
    init_feeds: Vec<(Output, Tensor)>,
    local_init_op: Option<Option<Operation>>,
    logdir: Option<PathBuf>,
    summary_op: Option<Option<Output>>,
    saver: Option<Option<Arc<Saver>>>,
    global_step: Option<Option<Output>>,
    save_summaries_secs: f64,
    save_model_secs: f64,
    recovery_wait_secs: f64,
    stop_grace_secs: f64,
    checkpoint_basename: String,
    session_manager: Option<SessionManager>,
    summary_writer: Option<Option<Arc<FileWriter>>>,
    init_fn: Option<InitFn>,
}

impl SupervisorBuilder {
    /// Whether this is the chief (default true): only the chief initializes the model, writes
    /// events and saves checkpoints; other tasks wait for the model to be ready.
    pub fn is_chief(mut self, chief: bool) -> Self {
        self.is_chief = chief;
        self
    }

    /// The readiness check (`ready_op`; default `report_uninitialized_variables()`).
    pub fn ready_op(mut self, op: Option<&Output>) -> Self {
        self.ready_op = Some(op.cloned());
        self
    }

    /// The check before the local init op (`ready_for_local_init_op`; default: the
    /// collection's, else none).
    pub fn ready_for_local_init_op(mut self, op: Option<&Output>) -> Self {
        self.ready_for_local_init_op = Some(op.cloned());
        self
    }

    /// Initializes a model that was not restored (`init_op`; default
    /// `global_variables_initializer()`).
    pub fn init_op(mut self, op: Option<&Operation>) -> Self {
        self.init_op = Some(op.cloned());
        self
    }

    /// Feeds `value` to `tensor` when running the init op (`init_feed_dict`).
    pub fn init_feed(mut self, tensor: &Output, value: impl Into<Tensor>) -> Self {
        self.init_feeds.push((tensor.clone(), value.into()));
        self
    }

    /// Runs in every new session (`local_init_op`; default: a group of
    /// `local_variables_initializer()` and `tables_initializer()`).
    pub fn local_init_op(mut self, op: Option<&Operation>) -> Self {
        self.local_init_op = Some(op.cloned());
        self
    }

    /// Where checkpoints are restored from and saved to, and where events go (`logdir`).
    /// Without one nothing is restored, saved or written.
    pub fn logdir(mut self, dir: impl AsRef<Path>) -> Self {
        self.logdir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// The summary the summary service writes (`summary_op`; default `merge_all()`).
    pub fn summary_op(mut self, op: Option<&Output>) -> Self {
        self.summary_op = Some(op.cloned());
        self
    }

    /// Saves and restores with `saver` (`saver`; default: a `Saver` of every global variable,
    /// none when there is none).
    pub fn saver(mut self, saver: Option<Arc<Saver>>) -> Self {
        self.saver = Some(saver);
        self
    }

    /// The global step tensor (`global_step`; default: the `GLOBAL_STEP` collection's
    /// variable), which names checkpoints and stamps events.
    pub fn global_step(mut self, step: Option<&Output>) -> Self {
        self.global_step = Some(step.cloned());
        self
    }

    /// Seconds between summaries and step-rate records (`save_summaries_secs`, default 120;
    /// 0 turns them off).
    pub fn save_summaries_secs(mut self, secs: f64) -> Self {
        self.save_summaries_secs = secs;
        self
    }

    /// Seconds between checkpoints (`save_model_secs`, default 600; 0 turns them off).
    pub fn save_model_secs(mut self, secs: f64) -> Self {
        self.save_model_secs = secs;
        self
    }

    /// Seconds between checks while waiting for a model or a checkpoint
    /// (`recovery_wait_secs`, default 30).
    pub fn recovery_wait_secs(mut self, secs: f64) -> Self {
        self.recovery_wait_secs = secs;
        self
    }

    /// How long `stop` waits for the threads after the stop request (`stop_grace_secs`,
    /// default 120).
    pub fn stop_grace_secs(mut self, secs: f64) -> Self {
        self.stop_grace_secs = secs;
        self
    }

    /// The checkpoint file name in the log directory (`checkpoint_basename`, default
    /// `model.ckpt`).
    pub fn checkpoint_basename(mut self, name: &str) -> Self {
        self.checkpoint_basename = name.to_string();
        self
    }

    /// Creates sessions with `sm` (`session_manager`) instead of one built from these
    /// settings.
    pub fn session_manager(mut self, sm: SessionManager) -> Self {
        self.session_manager = Some(sm);
        self
    }

    /// Writes events with `writer` (`summary_writer`; default a `FileWriter` on the log
    /// directory), or writes none.
    pub fn summary_writer(mut self, writer: Option<Arc<FileWriter>>) -> Self {
        self.summary_writer = Some(writer);
        self
    }

    /// Calls `f` after the init op on a model that was not restored (`init_fn`).
    pub fn init_fn(
        mut self,
        f: impl Fn(&SessionHandle) -> Result<()> + Send + Sync + 'static,
    ) -> Self {
        self.init_fn = Some(Arc::new(f));
        self
    }

    /// Resolves the defaults, adding the default ops to their collections, and finalizes the
    /// graph, as TensorFlow's constructor does. A non-chief Supervisor refuses a graph with
    /// variables: TensorFlow requires them placed on devices, which weir does not have.
    pub fn build(self) -> Result<Supervisor> {
        let g = self.graph.clone();
        let ready_op = match self.ready_op {
            Some(op) => op,
            None => Some(output_or(&g, graph_keys::READY_OP, || {
                report_uninitialized_variables(&g, None)
            })?),
        };
        let ready_for_local_init_op = match self.ready_for_local_init_op {
            Some(op) => op,
            None => first_output(&g, graph_keys::READY_FOR_LOCAL_INIT_OP),
        };
        let init_op = match self.init_op {
            Some(op) => op,
            None => Some(operation_or(&g, graph_keys::INIT_OP, || {
                global_variables_initializer(&g)
            })?),
        };
        let local_init_op = match self.local_init_op {
            Some(op) => op,
            None => Some(operation_or(&g, graph_keys::LOCAL_INIT_OP, || {
                default_local_init_op(&g)
            })?),
        };
        let saver = match self.saver {
            Some(s) => s,
            None => match g
                .get_collection_of::<Saver>(graph_keys::SAVERS)
                .into_iter()
                .next()
            {
                Some(s) => Some(s),
                None if global_variables(&g)?.is_empty() => None,
                None => {
                    let s = Arc::new(Saver::new(&g)?);
                    g.add_object_to_collection(graph_keys::SAVERS, s.clone());
                    Some(s)
                }
            },
        };
        let summary_op = match self.summary_op {
            Some(op) => op,
            None => match first_output(&g, graph_keys::SUMMARY_OP) {
                Some(op) => Some(op),
                None => {
                    let op = weir_ops::summary::merge_all(&g)?;
                    if let Some(op) = &op {
                        g.add_to_collection(graph_keys::SUMMARY_OP, op.clone())?;
                    }
                    op
                }
            },
        };
        let global_step = match self.global_step {
            Some(s) => s,
            None => default_global_step(&g)?,
        };
        let mut meta = ExportMetaGraph::new(&g);
        if let Some(s) = &saver {
            meta = meta.saver(s);
        }
        let meta_graph_def = meta.build()?;
        let coord = Coordinator::new();
        let (logdir, summary_writer) = if self.is_chief {
            let writer = match self.summary_writer {
                Some(w) => w,
                None => match &self.logdir {
                    Some(dir) => Some(Arc::new(FileWriter::new(dir)?)),
                    None => None,
                },
            };
            (self.logdir, writer)
        } else {
            (None, None)
        };
        let save_path = logdir.as_ref().map(|d| {
            d.join(&self.checkpoint_basename)
                .to_string_lossy()
                .into_owned()
        });
        let session_manager = match self.session_manager {
            Some(sm) => sm,
            None => {
                let mut sm = SessionManager::new(&g)
                    .recovery_wait_secs(self.recovery_wait_secs)
                    .stop_with(&coord);
                if let Some(op) = &local_init_op {
                    sm = sm.local_init_op(op);
                }
                if let Some(op) = &ready_op {
                    sm = sm.ready_op(op);
                }
                if let Some(op) = &ready_for_local_init_op {
                    sm = sm.ready_for_local_init_op(op);
                }
                sm
            }
        };
        if !self.is_chief {
            if let Some(v) = g.operations().iter().find(|o| o.op_type() == "VariableV2") {
                let text = op_text(&g, v)?;
                return Err(Error::invalid_argument(format!(
                    "When using replicas, all Variables must have their device set: {text}"
                )));
            }
        }
        g.finalize();
        Ok(Supervisor {
            graph: g,
            is_chief: self.is_chief,
            coord,
            session_manager,
            ready_op,
            ready_for_local_init_op,
            init_op,
            init_feeds: self.init_feeds,
            local_init_op,
            summary_op,
            saver,
            global_step,
            meta_graph_def,
            logdir,
            save_path,
            save_summaries_secs: if self.is_chief {
                self.save_summaries_secs
            } else {
                0.0
            },
            save_model_secs: if self.is_chief {
                self.save_model_secs
            } else {
                0.0
            },
            stop_grace: Duration::try_from_secs_f64(self.stop_grace_secs.max(0.0))
                .unwrap_or(Duration::MAX),
            summary_writer,
            graph_added_to_summary: AtomicBool::new(false),
            init_fn: self.init_fn,
        })
    }
}

/// `_default_global_step_tensor` after the collection: the graph's `global_step` variable
/// when its dtype is an integer.
fn default_global_step(g: &Graph) -> Result<Option<Output>> {
    if let Some(v) = get_global_step(g)? {
        return Ok(Some(v.value()));
    }
    Ok(g.tensor_by_name("global_step:0")
        .ok()
        .filter(|t| matches!(t.dtype(), weir_graph::DType::I32 | weir_graph::DType::I64)))
}

/// `tf.compat.v1.train.Supervisor`: initializes or restores the model from `logdir`, starts
/// the queue runners, and keeps services running while training: summaries every
/// `save_summaries_secs`, a steps-per-second record, and a checkpoint every `save_model_secs`
/// (the first of each when the session starts). Build it with [`Supervisor::builder`]; it
/// finalizes the graph.
///
/// [`managed_session`](Self::managed_session) is TensorFlow's `with sv.managed_session() as
/// sess:` block: an error from the body stops everything and is returned, except the
/// OutOfRange that ends an input pipeline, which stops cleanly.
///
/// ```
/// use weir_graph::{Graph, Tensor};
/// use weir_ops::array::constant;
/// use weir_session::RunArgs;
/// use weir_train::{get_or_create_global_step, Supervisor};
///
/// let dir = std::env::temp_dir().join(format!("weir-sv-doc-{}", std::process::id()));
/// let g = Graph::new();
/// let step = get_or_create_global_step(&g)?;
/// let train = step.assign_add(constant(&g, Tensor::scalar(1i64))?)?;
/// // No checkpoint service: its first save races with the one below (as in TensorFlow).
/// let sv = Supervisor::builder(&g).logdir(&dir).save_model_secs(0.0).build()?;
/// sv.managed_session(|sess| {
///     for _ in 0..10 {
///         if sv.should_stop() {
///             break;
///         }
///         sess.run(&RunArgs::new().fetch(&train))?;
///     }
///     let path = sv.saver().unwrap().save(sess, sv.save_path().unwrap(), Some(10))?;
///     assert!(path.ends_with("model.ckpt-10"));
///     Ok(())
/// })?;
/// // A new Supervisor on the same directory restores the model.
/// let g = Graph::new();
/// let step = get_or_create_global_step(&g)?;
/// let sv = Supervisor::builder(&g).logdir(&dir).save_model_secs(0.0).build()?;
/// sv.managed_session(|sess| {
///     assert_eq!(sess.eval(step.value())?.to_scalar::<i64>()?, 10);
///     Ok(())
/// })?;
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct Supervisor {
    graph: Graph,
    is_chief: bool,
    coord: Coordinator,
    session_manager: SessionManager,
    ready_op: Option<Output>,
    ready_for_local_init_op: Option<Output>,
    init_op: Option<Operation>,
    init_feeds: Vec<(Output, Tensor)>,
    local_init_op: Option<Operation>,
    summary_op: Option<Output>,
    saver: Option<Arc<Saver>>,
    global_step: Option<Output>,
    meta_graph_def: weir_graph::graph_def::meta_graph::MetaGraphDef,
    logdir: Option<PathBuf>,
    save_path: Option<String>,
    save_summaries_secs: f64,
    save_model_secs: f64,
    stop_grace: Duration,
    summary_writer: Option<Arc<FileWriter>>,
    graph_added_to_summary: AtomicBool,
    init_fn: Option<InitFn>,
}

impl Supervisor {
    /// A builder with TensorFlow's defaults for a Supervisor of `graph`.
    pub fn builder(graph: &Graph) -> SupervisorBuilder {
        SupervisorBuilder {
            graph: graph.clone(),
            is_chief: true,
            ready_op: None,
            ready_for_local_init_op: None,
            init_op: None,
            init_feeds: Vec::new(),
            local_init_op: None,
            logdir: None,
            summary_op: None,
            saver: None,
            global_step: None,
            save_summaries_secs: 120.0,
            save_model_secs: 600.0,
            recovery_wait_secs: 30.0,
            stop_grace_secs: 120.0,
            checkpoint_basename: "model.ckpt".to_string(),
            session_manager: None,
            summary_writer: None,
            init_fn: None,
        }
    }

    /// Whether this is the chief (`is_chief`).
    pub fn is_chief(&self) -> bool {
        self.is_chief
    }

    /// The session manager (`session_manager`).
    pub fn session_manager(&self) -> &SessionManager {
        &self.session_manager
    }

    /// The coordinator of every thread this Supervisor starts (`coord`).
    pub fn coord(&self) -> &Coordinator {
        &self.coord
    }

    /// The init op (`init_op`).
    pub fn init_op(&self) -> Option<&Operation> {
        self.init_op.as_ref()
    }

    /// The local init op (`local_init_op` of the session manager).
    pub fn local_init_op(&self) -> Option<&Operation> {
        self.local_init_op.as_ref()
    }

    /// The readiness check (`ready_op`).
    pub fn ready_op(&self) -> Option<&Output> {
        self.ready_op.as_ref()
    }

    /// The check before the local init op (`ready_for_local_init_op`).
    pub fn ready_for_local_init_op(&self) -> Option<&Output> {
        self.ready_for_local_init_op.as_ref()
    }

    /// The event writer (`summary_writer`): the chief's, on the log directory.
    pub fn summary_writer(&self) -> Option<&Arc<FileWriter>> {
        self.summary_writer.as_ref()
    }

    /// The summary op the summary service runs (`summary_op`).
    pub fn summary_op(&self) -> Option<&Output> {
        self.summary_op.as_ref()
    }

    /// Seconds between summaries (`save_summaries_secs`; 0 for a non-chief).
    pub fn save_summaries_secs(&self) -> f64 {
        self.save_summaries_secs
    }

    /// The global step tensor (`global_step`).
    pub fn global_step(&self) -> Option<&Output> {
        self.global_step.as_ref()
    }

    /// The saver (`saver`).
    pub fn saver(&self) -> Option<&Arc<Saver>> {
        self.saver.as_ref()
    }

    /// Seconds between checkpoints (`save_model_secs`; 0 for a non-chief).
    pub fn save_model_secs(&self) -> f64 {
        self.save_model_secs
    }

    /// Where checkpoints go: `<logdir>/<checkpoint_basename>` (`save_path`).
    pub fn save_path(&self) -> Option<&str> {
        self.save_path.as_deref()
    }

    /// `_write_graph`: `graph.pbtxt` in the log directory, and the graph and meta graph in the
    /// event file once per opening of the writer.
    fn write_graph(&self) -> Result<()> {
        if let Some(dir) = &self.logdir {
            write_graph(&self.graph.as_graph_def(true)?, dir, "graph.pbtxt", true)?;
        }
        if let Some(w) = &self.summary_writer {
            if !self.graph_added_to_summary.swap(true, Ordering::AcqRel) {
                w.add_graph(&self.graph)?;
                w.add_meta_graph(&self.meta_graph_def)?;
            }
        }
        Ok(())
    }

    /// `sv.start_standard_services(sess)`: records the session's start in the event file and
    /// starts the summary, step-counter and checkpoint services that are on. Only the chief
    /// has them (Unknown otherwise, TensorFlow's RuntimeError); without a log directory none
    /// starts.
    pub fn start_standard_services(&self, sess: &SessionHandle) -> Result<Vec<CoordThread>> {
        if !self.is_chief {
            return Err(Error::new(
                Code::Unknown,
                "Only chief supervisor can start standard services. Because only chief \
                 supervisors can write events.",
            ));
        }
        if self.logdir.is_none() {
            eprintln!("weir: Standard services need a 'logdir' passed to the SessionManager");
            return Ok(Vec::new());
        }
        if let (Some(step), Some(w)) = (&self.global_step, &self.summary_writer) {
            w.add_session_log(SessionStatus::Start, "", read_step(sess, step)?)?;
        }
        let mut threads = Vec::new();
        if let (Some(every), Some(w)) = (interval(self.save_summaries_secs), &self.summary_writer) {
            if let Some(op) = &self.summary_op {
                threads.push(services::summary_thread(
                    &self.coord,
                    every,
                    sess,
                    op,
                    self.global_step.as_ref(),
                    w,
                ));
            }
            if let Some(step) = &self.global_step {
                threads.push(services::step_counter_thread(
                    &self.coord,
                    every,
                    sess,
                    step,
                    w,
                ));
            }
        }
        if let (Some(saver), Some(every), Some(path)) =
            (&self.saver, interval(self.save_model_secs), &self.save_path)
        {
            threads.push(services::checkpoint_thread(
                &self.coord,
                every,
                sess,
                saver,
                path,
                self.global_step.as_ref(),
                self.summary_writer.as_ref(),
            ));
        }
        for t in &threads {
            t.start()?;
        }
        Ok(threads)
    }

    /// `sv.prepare_or_wait_for_session(master, config, wait_for_checkpoint, max_wait_secs,
    /// start_standard_services)`: the chief restores the latest checkpoint of the log
    /// directory or initializes the model, writes the graph, and starts the standard
    /// services; another task waits for the model to be ready. Then the queue runners start.
    pub fn prepare_or_wait_for_session(&self, options: &ManagedSessionOptions) -> Result<Session> {
        self.coord.clear_stop();
        if let Some(w) = &self.summary_writer {
            w.reopen()?;
        }
        let sess = if self.is_chief {
            let mut args = PrepareArgs::new()
                .config(options.config.clone())
                .wait_for_checkpoint(options.wait_for_checkpoint)
                .max_wait_secs(options.max_wait_secs)
                .init_fn_arc(self.init_fn.clone());
            if let Some(op) = &self.init_op {
                args = args.init_op(op);
            }
            for (t, v) in &self.init_feeds {
                args = args.init_feed(t, v.clone());
            }
            if let Some(s) = &self.saver {
                args = args.saver(s.clone());
            }
            if let Some(dir) = &self.logdir {
                args = args.checkpoint_dir(dir);
            }
            let sess = self.session_manager.prepare_session(args)?;
            self.write_graph()?;
            if options.start_standard_services {
                self.start_standard_services(&sess)?;
            }
            sess
        } else {
            let max = Duration::try_from_secs_f64(options.max_wait_secs.max(0.0)).ok();
            self.session_manager
                .wait_for_session(options.config.clone(), max)?
        };
        if options.start_standard_services {
            self.start_queue_runners(&sess)?;
        }
        Ok(sess)
    }

    /// `sv.start_queue_runners(sess)`: starts the graph's queue runners under this
    /// Supervisor's coordinator.
    pub fn start_queue_runners(&self, sess: &SessionHandle) -> Result<Vec<CoordThread>> {
        start_queue_runners(sess, &self.coord)
    }

    /// `sv.loop(timer_interval_secs, target)`: a thread under the coordinator that calls
    /// `target` every `interval` (back to back with `None`) until the stop.
    pub fn looper(
        &self,
        interval: Option<Duration>,
        target: impl FnMut() -> Result<()> + Send + 'static,
    ) -> Result<CoordThread> {
        LooperThread::spawn(&self.coord, interval, target)
    }

    /// `sv.stop(threads, close_summary_writer, ignore_live_threads)`: requests the stop and
    /// joins every thread started under the coordinator and `threads`, waiting
    /// `stop_grace_secs` at most; then records the stop in the event file and closes it. An
    /// error reported to the coordinator is returned.
    pub fn stop(
        &self,
        threads: &[CoordThread],
        close_summary_writer: bool,
        ignore_live_threads: bool,
    ) -> Result<()> {
        let _ = self.coord.request_stop(None);
        let joined = self
            .coord
            .join_with(threads, self.stop_grace, ignore_live_threads);
        let mut closed = Ok(());
        if close_summary_writer {
            if let Some(w) = &self.summary_writer {
                closed = w
                    .add_session_log(SessionStatus::Stop, "", 0)
                    .and_then(|()| w.close());
                self.graph_added_to_summary.store(false, Ordering::Release);
            }
        }
        joined.and(closed)
    }

    /// `sv.request_stop(ex)`: asks every thread to stop, recording `error` unless it is the
    /// OutOfRange of a clean stop.
    pub fn request_stop(&self, error: Option<Error>) -> Result<()> {
        self.coord.request_stop(error)
    }

    /// `sv.should_stop()`: whether a stop was requested.
    pub fn should_stop(&self) -> bool {
        self.coord.should_stop()
    }

    /// `with sv.stop_on_exception():`: runs `body`, turning its error into a stop request.
    pub fn stop_on_exception(&self, body: impl FnOnce() -> Result<()>) {
        self.coord.stop_on_error(body)
    }

    /// `sv.wait_for_stop()`: blocks until a stop is requested.
    pub fn wait_for_stop(&self) {
        self.coord.wait_for_stop(None);
    }

    /// `sv.summary_computed(sess, summary, global_step)`: writes a serialized `Summary` at
    /// `global_step` (default: the global step's value). Unknown (TensorFlow's RuntimeError)
    /// without a summary writer.
    pub fn summary_computed(
        &self,
        sess: &SessionHandle,
        summary: &Tensor,
        global_step: Option<i64>,
    ) -> Result<()> {
        let Some(w) = &self.summary_writer else {
            return Err(Error::new(
                Code::Unknown,
                "Writing a summary requires a summary writer.",
            ));
        };
        let step = match (global_step, &self.global_step) {
            (Some(s), _) => s,
            (None, Some(t)) => read_step(sess, t)?,
            (None, None) => 0,
        };
        w.add_summary(summary, step)
    }

    /// `with sv.managed_session() as sess:`, with TensorFlow's defaults. See
    /// [`managed_session_with`](Self::managed_session_with).
    pub fn managed_session(&self, body: impl FnOnce(&Session) -> Result<()>) -> Result<()> {
        self.managed_session_with(&ManagedSessionOptions::default(), body)
    }

    /// `with sv.managed_session(master, config, start_standard_services,
    /// close_summary_writer) as sess:` runs `body` with a prepared session, then stops the
    /// services and queue runners, closes the session and returns the outcome. An error from
    /// `body` (or from preparing) is reported to the coordinator, so OutOfRange ends the
    /// block cleanly and any other error is returned; a panic stops everything and goes on.
    pub fn managed_session_with(
        &self,
        options: &ManagedSessionOptions,
        body: impl FnOnce(&Session) -> Result<()>,
    ) -> Result<()> {
        let mut session = None;
        let outcome = match self.prepare_or_wait_for_session(options) {
            Ok(sess) => {
                let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(&sess)));
                session = Some(sess);
                run
            }
            Err(e) => Ok(Err(e)),
        };
        match outcome {
            Ok(result) => {
                if let Err(e) = result {
                    let _ = self.request_stop(Some(e));
                }
                let stopped = self.stop(&[], options.close_summary_writer, false);
                if let Some(s) = session {
                    s.close();
                }
                stopped
            }
            Err(panic) => {
                let _ = self.stop(&[], options.close_summary_writer, true);
                if let Some(s) = session {
                    s.close();
                }
                std::panic::resume_unwind(panic)
            }
        }
    }
}

/// The arguments of `managed_session` and `prepare_or_wait_for_session`, with TensorFlow's
/// defaults: default session options, standard services and queue runners started, the
/// summary writer closed at the end, no waiting for a checkpoint (at most 7,200 s when asked).
#[derive(Clone, Debug)]
pub struct ManagedSessionOptions {
    /// The session's options (`config`).
    pub config: SessionOptions,
    /// Whether to start the standard services and the queue runners
    /// (`start_standard_services`).
    pub start_standard_services: bool,
    /// Whether the end of the block closes the summary writer (`close_summary_writer`).
    pub close_summary_writer: bool,
    /// Whether the chief waits for a checkpoint to appear (`wait_for_checkpoint`).
    pub wait_for_checkpoint: bool,
    /// How long to wait for a checkpoint or a ready model (`max_wait_secs`).
    pub max_wait_secs: f64,
}

impl Default for ManagedSessionOptions {
    fn default() -> Self {
        ManagedSessionOptions {
            config: SessionOptions::default(),
            start_standard_services: true,
            close_summary_writer: true,
            wait_for_checkpoint: false,
            max_wait_secs: 7200.0,
        }
    }
}
