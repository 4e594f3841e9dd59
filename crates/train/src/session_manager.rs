//! `tf.train.SessionManager`: creates a session and makes the model ready in it, by restoring
//! the latest checkpoint or by running the init op, then the local init op, then checking
//! readiness. `Supervisor` and the monitored session create their sessions through it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use weir_graph::graph_def::node_def_to_text;
use weir_graph::{Bytes, Code, DType, Error, Graph, Operation, Output, Result, Tensor};
use weir_session::{RunArgs, Session, SessionHandle, SessionOptions};

use crate::saver::get_checkpoint_state;
use crate::{Coordinator, Saver};

/// A function that initializes the model in a new session (`init_fn`), after the init op.
pub type InitFn = Arc<dyn Fn(&SessionHandle) -> Result<()> + Send + Sync>;

/// `tf.compat.v1.train.SessionManager(local_init_op, ready_op, ready_for_local_init_op,
/// graph, recovery_wait_secs, local_init_feed_dict)`: makes sessions on `graph` whose model is
/// ready to use.
///
/// - [`prepare_session`](Self::prepare_session) restores the latest checkpoint or, without
///   one, initializes the model; then it runs the local init op and checks readiness.
/// - [`recover_session`](Self::recover_session) only restores, and says whether it could.
/// - [`wait_for_session`](Self::wait_for_session) waits until the model is ready.
///
/// The model is ready when `ready_op` (usually [`report_uninitialized_variables`]) gives an
/// empty string vector. Waits sleep `recovery_wait_secs` between checks (default 30 s); they
/// end early with Cancelled when its [`coordinator`](Self::coordinator) (or the one given to
/// [`stop_with`](Self::stop_with)) is asked to stop.
///
/// [`report_uninitialized_variables`]: weir_ops::state::report_uninitialized_variables
///
/// ```
/// use weir_graph::{Graph, Tensor};
/// use weir_ops::array::constant;
/// use weir_ops::state::{global_variables_initializer, report_uninitialized_variables, Variable};
/// use weir_train::{PrepareArgs, SessionManager};
///
/// let g = Graph::new();
/// let v = Variable::builder(&constant(&g, Tensor::scalar(2.0f32))?).name("v").build()?;
/// let sm = SessionManager::new(&g).ready_op(&report_uninitialized_variables(&g, None)?);
/// let sess = sm.prepare_session(PrepareArgs::new().init_op(&global_variables_initializer(&g)?))?;
/// assert_eq!(sess.eval(v.value())?.to_scalar::<f32>()?, 2.0);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone)]
pub struct SessionManager {
    graph: Graph,
    local_init_op: Option<Operation>,
    ready_op: Option<Output>,
    ready_for_local_init_op: Option<Output>,
    recovery_wait: Duration,
    local_init_feeds: Vec<(Output, Tensor)>,
    stop: Coordinator,
}

/// The arguments of `prepare_session` and `recover_session` besides the master (weir runs
/// in-process), with TensorFlow's defaults: no saver or checkpoint, no waiting for one (at
/// most 7,200 s when asked), no init op.
#[derive(Clone)]
pub struct PrepareArgs {
    config: SessionOptions,
    saver: Option<Arc<Saver>>,
    checkpoint_dir: Option<PathBuf>,
    checkpoint_filename_with_path: Option<String>,
    wait_for_checkpoint: bool,
    max_wait: Duration,
    init_op: Option<Operation>,
    init_feeds: Vec<(Output, Tensor)>,
    init_fn: Option<InitFn>,
}

impl Default for PrepareArgs {
    fn default() -> Self {
        PrepareArgs {
            config: SessionOptions::default(),
            saver: None,
            checkpoint_dir: None,
            checkpoint_filename_with_path: None,
            wait_for_checkpoint: false,
            max_wait: Duration::from_secs(7200),
            init_op: None,
            init_feeds: Vec::new(),
            init_fn: None,
        }
    }
}

impl PrepareArgs {
    /// TensorFlow's defaults.
    pub fn new() -> PrepareArgs {
        PrepareArgs::default()
    }

    /// The new session's options (`config`).
    pub fn config(mut self, config: SessionOptions) -> PrepareArgs {
        self.config = config;
        self
    }

    /// Restores with `saver` (`saver`); without one nothing is restored.
    pub fn saver(mut self, saver: Arc<Saver>) -> PrepareArgs {
        self.saver = Some(saver);
        self
    }

    /// Restores the latest checkpoint of `dir` (`checkpoint_dir`).
    pub fn checkpoint_dir(mut self, dir: impl AsRef<Path>) -> PrepareArgs {
        self.checkpoint_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Restores the checkpoint `path` (`checkpoint_filename_with_path`).
    pub fn checkpoint_filename_with_path(mut self, path: &str) -> PrepareArgs {
        self.checkpoint_filename_with_path = Some(path.to_string());
        self
    }

    /// Waits for a checkpoint to appear in the checkpoint directory (`wait_for_checkpoint`).
    pub fn wait_for_checkpoint(mut self, wait: bool) -> PrepareArgs {
        self.wait_for_checkpoint = wait;
        self
    }

    /// How long to wait for a checkpoint at most (`max_wait_secs`, default 7,200).
    pub fn max_wait_secs(mut self, secs: f64) -> PrepareArgs {
        self.max_wait = Duration::try_from_secs_f64(secs.max(0.0)).unwrap_or(Duration::MAX);
        self
    }

    /// Runs `op` to initialize a model that was not restored (`init_op`).
    pub fn init_op(mut self, op: &Operation) -> PrepareArgs {
        self.init_op = Some(op.clone());
        self
    }

    /// Feeds `value` to `tensor` when running the init op (`init_feed_dict`).
    pub fn init_feed(mut self, tensor: &Output, value: impl Into<Tensor>) -> PrepareArgs {
        self.init_feeds.push((tensor.clone(), value.into()));
        self
    }

    /// Calls `f` after the init op on a model that was not restored (`init_fn`).
    pub fn init_fn(
        mut self,
        f: impl Fn(&SessionHandle) -> Result<()> + Send + Sync + 'static,
    ) -> PrepareArgs {
        self.init_fn = Some(Arc::new(f));
        self
    }

    pub(crate) fn init_fn_arc(mut self, f: Option<InitFn>) -> PrepareArgs {
        self.init_fn = f;
        self
    }
}

/// How TensorFlow's messages print a model's init op (`_maybe_name`) and init function.
fn op_name(op: Option<&Operation>) -> String {
    op.map_or("None".to_string(), |o| o.name().to_string())
}

fn fn_name(f: Option<&InitFn>) -> &'static str {
    if f.is_some() {
        "<init_fn>"
    } else {
        "None"
    }
}

impl SessionManager {
    /// A manager for sessions on `graph`, with TensorFlow's defaults: no local init op, no
    /// readiness checks, 30 s between checks.
    pub fn new(graph: &Graph) -> SessionManager {
        SessionManager {
            graph: graph.clone(),
            local_init_op: None,
            ready_op: None,
            ready_for_local_init_op: None,
            recovery_wait: Duration::from_secs(30),
            local_init_feeds: Vec::new(),
            stop: Coordinator::new(),
        }
    }

    /// Runs `op` in every new session, restored or not (`local_init_op`): local variables,
    /// tables.
    pub fn local_init_op(mut self, op: &Operation) -> SessionManager {
        self.local_init_op = Some(op.clone());
        self
    }

    /// Checks readiness with `op` (`ready_op`): ready when it gives an empty vector (or int32
    /// values, as TensorFlow accepts); otherwise it names what is not initialized.
    pub fn ready_op(mut self, op: &Output) -> SessionManager {
        self.ready_op = Some(op.clone());
        self
    }

    /// Runs the local init op only once `op` reports the model ready for it
    /// (`ready_for_local_init_op`); needs a local init op.
    pub fn ready_for_local_init_op(mut self, op: &Output) -> SessionManager {
        self.ready_for_local_init_op = Some(op.clone());
        self
    }

    /// Seconds between readiness or checkpoint checks while waiting (`recovery_wait_secs`).
    pub fn recovery_wait_secs(mut self, secs: f64) -> SessionManager {
        self.recovery_wait = Duration::try_from_secs_f64(secs.max(0.0)).unwrap_or(Duration::MAX);
        self
    }

    /// Feeds `value` to `tensor` when running the local init op (`local_init_feed_dict`).
    pub fn local_init_feed(mut self, tensor: &Output, value: impl Into<Tensor>) -> SessionManager {
        self.local_init_feeds.push((tensor.clone(), value.into()));
        self
    }

    /// Ends waits with Cancelled once `coord` is asked to stop (weir's addition: every
    /// blocking wait can be cancelled; a `Supervisor` passes its coordinator). Without it the
    /// manager has a coordinator of its own, [`coordinator`](Self::coordinator).
    pub fn stop_with(mut self, coord: &Coordinator) -> SessionManager {
        self.stop = coord.clone();
        self
    }

    /// The coordinator whose stop request cancels this manager's waits (for a checkpoint or a
    /// ready model) from another thread.
    pub fn coordinator(&self) -> &Coordinator {
        &self.stop
    }
    /// TensorFlow's constructor check (a ValueError there, InvalidArgument here).
    fn check(&self) -> Result<()> {
        if let (Some(r), None) = (&self.ready_for_local_init_op, &self.local_init_op) {
            return Err(Error::invalid_argument(format!(
                "If you pass a ready_for_local_init_op you must also pass a local_init_op , \
                 ready_for_local_init_op [{}]",
                r.name()
            )));
        }
        Ok(())
    }

    /// Sleeps `d`, or fails with Cancelled as soon as a stop is requested.
    fn sleep(&self, d: Duration, waiting_for: &str) -> Result<()> {
        if self.stop.wait_for_stop(Some(d)) {
            return Err(Error::cancelled(format!(
                "A stop was requested while waiting for {waiting_for}."
            )));
        }
        Ok(())
    }

    /// `_restore_checkpoint`: a new session and whether a checkpoint was restored into it.
    fn restore_checkpoint(&self, args: &PrepareArgs) -> Result<(Session, bool)> {
        self.check()?;
        let sess = Session::with_options(&self.graph, args.config.clone())?;
        if args.checkpoint_dir.is_some() && args.checkpoint_filename_with_path.is_some() {
            return Err(Error::invalid_argument(
                "Can not provide both checkpoint_dir and checkpoint_filename_with_path.",
            ));
        }
        let Some(saver) = &args.saver else {
            return Ok((sess, false));
        };
        if let Some(path) = &args.checkpoint_filename_with_path {
            saver.restore(&sess, path)?;
            return Ok((sess, true));
        }
        let Some(dir) = &args.checkpoint_dir else {
            return Ok((sess, false));
        };
        let start = Instant::now();
        let state = loop {
            match get_checkpoint_state(dir)? {
                Some(s) if !s.model_checkpoint_path.is_empty() => break s,
                _ if args.wait_for_checkpoint && start.elapsed() < args.max_wait => {
                    self.sleep(self.recovery_wait, "a checkpoint")?;
                }
                _ => return Ok((sess, false)),
            }
        };
        saver.restore(&sess, &state.model_checkpoint_path)?;
        saver.recover_last_checkpoints(&state.all_model_checkpoint_paths);
        Ok((sess, true))
    }

    /// `sm.prepare_session(master, init_op, saver, checkpoint_dir, ...)`: a new session with
    /// the model restored from the checkpoint when there is one (then the init op and init
    /// function do not run), else initialized by the init op and then the init function; then
    /// the local init op, if the model is ready for it; then the readiness check.
    ///
    /// Errors (TensorFlow's RuntimeError, Unknown here): "Model is not initialized and no
    /// init_op or init_fn or local_init_op was given" when there is nothing to run; "Init
    /// operations did not make model ready for local_init. ..." and "Init operations did not
    /// make model ready. ..." with what is not initialized. Both checkpoint arguments at once is
    /// InvalidArgument.
    pub fn prepare_session(&self, args: PrepareArgs) -> Result<Session> {
        let (sess, restored) = self.restore_checkpoint(&args)?;
        if !restored {
            if args.init_op.is_none() && args.init_fn.is_none() && self.local_init_op.is_none() {
                return Err(Error::new(
                    Code::Unknown,
                    "Model is not initialized and no init_op or init_fn or local_init_op was \
                     given",
                ));
            }
            if let Some(op) = &args.init_op {
                let mut run = RunArgs::new().target(op);
                for (t, v) in &args.init_feeds {
                    run = run.feed(t, v.clone());
                }
                sess.run(&run)?;
            }
            if let Some(f) = &args.init_fn {
                f(&sess)?;
            }
        }
        let init_op = op_name(args.init_op.as_ref());
        let init_fn = fn_name(args.init_fn.as_ref());
        if let Some(msg) = self.try_run_local_init_op(&sess)? {
            return Err(Error::new(
                Code::Unknown,
                format!(
                    "Init operations did not make model ready for local_init.  Init op: \
                     {init_op}, init fn: {init_fn}, error: {msg}"
                ),
            ));
        }
        if let Some(msg) = self.model_not_ready(&sess)? {
            let local = match &self.local_init_op {
                Some(op) => op_text(&self.graph, op)?,
                None => "None".to_string(),
            };
            return Err(Error::new(
                Code::Unknown,
                format!(
                    "Init operations did not make model ready.  Init op: {init_op}, init fn: \
                     {init_fn}, local_init_op: {local}, error: {msg}"
                ),
            ));
        }
        Ok(sess)
    }

    /// `sm.recover_session(master, saver, checkpoint_dir, ...)`: a new session, and whether a
    /// checkpoint was restored into it and made the model ready (after the local init op).
    /// The init op and init function of `args` are not used.
    pub fn recover_session(&self, args: PrepareArgs) -> Result<(Session, bool)> {
        let (sess, restored) = self.restore_checkpoint(&args)?;
        let local_init_failed = self.try_run_local_init_op(&sess)?.is_some();
        if !restored || local_init_failed {
            return Ok((sess, false));
        }
        let ready = self.model_not_ready(&sess)?.is_none();
        Ok((sess, ready))
    }

    /// `sm.wait_for_session(master, config, max_wait_secs)`: creates sessions until one has a
    /// ready model (another thread or process initializing it), checking every
    /// `recovery_wait_secs`. `max_wait` `None` waits for ever (TensorFlow's default); when the
    /// next check would come after it, DeadlineExceeded "Session was not ready after waiting
    /// N secs.".
    pub fn wait_for_session(
        &self,
        config: SessionOptions,
        max_wait: Option<Duration>,
    ) -> Result<Session> {
        self.check()?;
        let start = Instant::now();
        loop {
            let sess = Session::with_options(&self.graph, config.clone())?;
            if self.try_run_local_init_op(&sess)?.is_none()
                && self.model_not_ready(&sess)?.is_none()
            {
                return Ok(sess);
            }
            drop(sess);
            if let Some(max) = max_wait {
                let remaining = max.saturating_sub(start.elapsed());
                if remaining < self.recovery_wait {
                    return Err(Error::new(
                        Code::DeadlineExceeded,
                        format!(
                            "Session was not ready after waiting {} secs.",
                            max.as_secs()
                        ),
                    ));
                }
            }
            self.sleep(self.recovery_wait, "the model to be ready")?;
        }
    }

    /// `_try_run_local_init_op`: runs the local init op if the model is ready for it; the
    /// reason when it is not.
    fn try_run_local_init_op(&self, sess: &SessionHandle) -> Result<Option<String>> {
        let Some(op) = &self.local_init_op else {
            return Ok(None);
        };
        if let Some(msg) = not_ready(self.ready_for_local_init_op.as_ref(), sess)? {
            return Ok(Some(msg));
        }
        let mut run = RunArgs::new().target(op);
        for (t, v) in &self.local_init_feeds {
            run = run.feed(t, v.clone());
        }
        sess.run(&run)?;
        Ok(None)
    }

    /// `_model_ready`: why the model is not ready, if it is not.
    fn model_not_ready(&self, sess: &SessionHandle) -> Result<Option<String>> {
        not_ready(self.ready_op.as_ref(), sess)
    }
}

/// `op` as Python prints an `Operation` (`str(op)`), which TensorFlow's messages quote: its
/// NodeDef in text form.
pub(crate) fn op_text(graph: &Graph, op: &Operation) -> Result<String> {
    let def = graph.as_graph_def(false)?;
    Ok(def
        .node
        .iter()
        .find(|n| n.name == op.name())
        .map_or_else(|| op.name().to_string(), node_def_to_text))
}

/// TensorFlow's `_ready(op, sess)`: `None` when `op` is absent or gives an empty vector or
/// int32 values, else "Variables not initialized: a, b". A FailedPrecondition that mentions
/// "uninitialized" (a variable read before its initialization) is a reason too; other errors
/// are errors.
fn not_ready(op: Option<&Output>, sess: &SessionHandle) -> Result<Option<String>> {
    let Some(op) = op else {
        return Ok(None);
    };
    let value = match sess.eval(op) {
        Ok(v) => v,
        Err(e) if e.code() == Code::FailedPrecondition && e.message().contains("uninitialized") => {
            return Ok(Some(e.message().to_string()));
        }
        Err(e) => return Err(e),
    };
    if value.dtype() == DType::I32 || value.num_elements() == 0 {
        return Ok(None);
    }
    if value.dtype() != DType::String {
        return Err(Error::invalid_argument(format!(
            "The ready op {} gave {:?} values; it must give the names of the variables that are \
             not initialized (strings)",
            op.name(),
            value.dtype()
        )));
    }
    let names: Vec<String> = value
        .to_vec::<Bytes>()?
        .iter()
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .collect();
    Ok(Some(format!(
        "Variables not initialized: {}",
        names.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use weir_ops::array::constant;
    use weir_ops::state::{
        global_variables_initializer, local_variables_initializer, report_uninitialized_variables,
        Variable,
    };

    use super::*;

    fn model() -> (Graph, Variable, Variable) {
        let g = Graph::new();
        let v = Variable::builder(constant(&g, Tensor::scalar(2.0f32)).unwrap())
            .name("v")
            .build()
            .unwrap();
        let lv = Variable::builder(constant(&g, Tensor::scalar(0.0f32)).unwrap())
            .name("lv")
            .collections(&[weir_graph::graph_keys::LOCAL_VARIABLES])
            .build()
            .unwrap();
        (g, v, lv)
    }

    #[test]
    fn prepare_initializes_then_runs_the_local_init_op() {
        let (g, v, lv) = model();
        let sm = SessionManager::new(&g)
            .local_init_op(&local_variables_initializer(&g).unwrap())
            .ready_op(&report_uninitialized_variables(&g, None).unwrap());
        let sess = sm
            .prepare_session(PrepareArgs::new().init_op(&global_variables_initializer(&g).unwrap()))
            .unwrap();
        assert_eq!(
            sess.eval(v.value()).unwrap().to_scalar::<f32>().unwrap(),
            2.0
        );
        assert_eq!(
            sess.eval(lv.value()).unwrap().to_scalar::<f32>().unwrap(),
            0.0
        );
    }

    #[test]
    fn nothing_to_run_and_not_ready_are_tensorflows_runtime_errors() {
        let (g, _, _) = model();
        let ready = report_uninitialized_variables(&g, None).unwrap();
        let e = SessionManager::new(&g)
            .ready_op(&ready)
            .prepare_session(PrepareArgs::new())
            .err()
            .unwrap();
        assert_eq!(e.code(), Code::Unknown);
        assert_eq!(
            e.message(),
            "Model is not initialized and no init_op or init_fn or local_init_op was given"
        );
        let noop = weir_ops::control_flow::no_op(&g).unwrap();
        let e = SessionManager::new(&g)
            .ready_op(&ready)
            .prepare_session(PrepareArgs::new().init_op(&noop))
            .err()
            .unwrap();
        assert_eq!(
            e.message(),
            "Init operations did not make model ready.  Init op: NoOp, init fn: None, \
             local_init_op: None, error: Variables not initialized: v, lv"
        );
    }

    #[test]
    fn ready_for_local_init_needs_a_local_init_op() {
        let (g, _, _) = model();
        let ready = report_uninitialized_variables(&g, None).unwrap();
        let e = SessionManager::new(&g)
            .ready_for_local_init_op(&ready)
            .prepare_session(PrepareArgs::new())
            .err()
            .unwrap();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert!(e.message().starts_with(
            "If you pass a ready_for_local_init_op you must also pass a local_init_op"
        ));
    }

    #[test]
    fn waiting_for_a_model_nobody_initializes_ends_at_the_deadline_or_the_stop() {
        let (g, _, _) = model();
        let sm = SessionManager::new(&g)
            .ready_op(&report_uninitialized_variables(&g, None).unwrap())
            .recovery_wait_secs(0.05);
        let e = sm
            .wait_for_session(SessionOptions::default(), Some(Duration::from_millis(120)))
            .err()
            .unwrap();
        assert_eq!(e.code(), Code::DeadlineExceeded);
        assert_eq!(e.message(), "Session was not ready after waiting 0 secs.");

        let coord = Coordinator::new();
        let sm = sm.recovery_wait_secs(3600.0).stop_with(&coord);
        let c = coord.clone();
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            c.request_stop(None).unwrap();
        });
        let t0 = Instant::now();
        let e = sm
            .wait_for_session(SessionOptions::default(), None)
            .err()
            .unwrap();
        stopper.join().unwrap();
        assert_eq!(e.code(), Code::Cancelled);
        assert!(t0.elapsed() < Duration::from_secs(60));
    }

    #[test]
    fn a_ready_op_of_int32_values_counts_as_ready() {
        let g = Graph::new();
        let ready = constant(&g, Tensor::from(vec![1i32, 2])).unwrap();
        let sm = SessionManager::new(&g).ready_op(&ready);
        assert!(sm
            .wait_for_session(SessionOptions::default(), Some(Duration::from_secs(1)))
            .is_ok());
    }
}
