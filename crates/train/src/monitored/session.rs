//! `tf.train.MonitoredTrainingSession` and the `MonitoredSession` it makes: a session that
//! initializes or restores the model, starts the queue runners under a coordinator, runs
//! hooks around every run, and stops them all on close.

use std::path::{Path, PathBuf};
use std::time::Duration;

use weir_graph::{Code, Error, Graph, Result, Tensor};
use weir_session::{RunArgs, RunMetadata, Session, SessionHandle, SessionOptions, TraceLevel};

use super::basic_hooks::{CheckpointSaverHook, StepCounterHook, SummarySaverHook};
use super::hook::{SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues};
use super::scaffold::Scaffold;
use super::session_creator::{ChiefSessionCreator, SessionCreator};
use crate::{start_queue_runners, CoordThread, Coordinator};

/// A setting left to TensorFlow's `USE_DEFAULT`, or set (possibly to none).
#[derive(Clone, Copy, Debug)]
enum Setting<T> {
    Default,
    Set(Option<T>),
}

impl<T> Setting<T> {
    fn or(self, default: Option<T>) -> Option<T> {
        match self {
            Setting::Default => default,
            Setting::Set(v) => v,
        }
    }

    fn is_default(&self) -> bool {
        matches!(self, Setting::Default)
    }
}

/// `tf.compat.v1.train.MonitoredTrainingSession(checkpoint_dir, scaffold, hooks, ...)`: the
/// builder of a chief's [`MonitoredSession`], with TensorFlow's defaults. With a
/// `checkpoint_dir` it restores the latest checkpoint there (or initializes the variables when
/// there is none) and adds the stock hooks TensorFlow adds: a [`CheckpointSaverHook`] every 600
/// seconds, a [`SummarySaverHook`] every 100 steps and a [`StepCounterHook`] every 100 steps,
/// writing to `summary_dir` (default: the checkpoint directory). Those need a global step.
///
/// ```
/// use weir_graph::{Graph, Tensor};
/// use weir_ops::array::constant;
/// use weir_session::RunArgs;
/// use weir_train::{get_or_create_global_step, MonitoredTrainingSession, StopAtStepHook};
///
/// let g = Graph::new();
/// let step = get_or_create_global_step(&g)?;
/// let train = step.assign_add(constant(&g, Tensor::scalar(1i64))?)?;
/// let mut sess = MonitoredTrainingSession::new(&g)
///     .hook(StopAtStepHook::new(None, Some(5))?)
///     .build()?;
/// while !sess.should_stop() {
///     sess.run(&RunArgs::new().fetch(&train))?;
/// }
/// assert_eq!(sess.raw_session().eval(step.value())?.to_scalar::<i64>()?, 5);
/// sess.close()?;
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct MonitoredTrainingSession {
    graph: Graph,
    checkpoint_dir: Option<PathBuf>,
    summary_dir: Option<PathBuf>,
    scaffold: Scaffold,
    hooks: Vec<Box<dyn SessionRunHook>>,
    chief_only_hooks: Vec<Box<dyn SessionRunHook>>,
    save_checkpoint_secs: Setting<f64>,
    save_checkpoint_steps: Setting<i64>,
    save_summaries_steps: Setting<i64>,
    save_summaries_secs: Setting<f64>,
    log_step_count_steps: Option<i64>,
    stop_grace_period: Duration,
    config: SessionOptions,
}

impl MonitoredTrainingSession {
    /// A session on `graph` with every argument at TensorFlow's default.
    pub fn new(graph: &Graph) -> MonitoredTrainingSession {
        MonitoredTrainingSession {
            graph: graph.clone(),
            checkpoint_dir: None,
            summary_dir: None,
            scaffold: Scaffold::new(),
            hooks: Vec::new(),
            chief_only_hooks: Vec::new(),
            save_checkpoint_secs: Setting::Default,
            save_checkpoint_steps: Setting::Default,
            save_summaries_steps: Setting::Default,
            save_summaries_secs: Setting::Default,
            log_step_count_steps: Some(100),
            stop_grace_period: Duration::from_secs(120),
            config: SessionOptions::default(),
        }
    }

    /// Restores from and saves checkpoints (and summaries) in `dir`.
    pub fn checkpoint_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.checkpoint_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Writes summaries to `dir` instead of the checkpoint directory.
    pub fn summary_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.summary_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Initializes, saves and summarizes with `scaffold`'s ops.
    pub fn scaffold(mut self, scaffold: Scaffold) -> Self {
        self.scaffold = scaffold;
        self
    }

    /// Adds a hook (run after the stock ones, in the order added).
    pub fn hook(mut self, hook: impl SessionRunHook + 'static) -> Self {
        self.hooks.push(Box::new(hook));
        self
    }

    /// Adds hooks (`hooks=[...]`).
    pub fn hooks(mut self, hooks: Vec<Box<dyn SessionRunHook>>) -> Self {
        self.hooks.extend(hooks);
        self
    }

    /// Adds hooks that only the chief runs (`chief_only_hooks`; this session is always the
    /// chief).
    pub fn chief_only_hooks(mut self, hooks: Vec<Box<dyn SessionRunHook>>) -> Self {
        self.chief_only_hooks.extend(hooks);
        self
    }

    /// Saves a checkpoint every `secs` seconds (None: not on time). Default 600, unless
    /// only `save_checkpoint_steps` is set.
    pub fn save_checkpoint_secs(mut self, secs: Option<f64>) -> Self {
        self.save_checkpoint_secs = Setting::Set(secs);
        self
    }

    /// Saves a checkpoint every `steps` global steps (None: not on steps).
    pub fn save_checkpoint_steps(mut self, steps: Option<i64>) -> Self {
        self.save_checkpoint_steps = Setting::Set(steps);
        self
    }

    /// Writes summaries every `steps` global steps (None: not on steps). Default 100, unless
    /// only `save_summaries_secs` is set.
    pub fn save_summaries_steps(mut self, steps: Option<i64>) -> Self {
        self.save_summaries_steps = Setting::Set(steps);
        self
    }

    /// Writes summaries every `secs` seconds (None: not on time).
    pub fn save_summaries_secs(mut self, secs: Option<f64>) -> Self {
        self.save_summaries_secs = Setting::Set(secs);
        self
    }

    /// Writes `global_step/sec` every `steps` steps (default 100; None or 0 turns it off).
    pub fn log_step_count_steps(mut self, steps: Option<i64>) -> Self {
        self.log_step_count_steps = steps;
        self
    }

    /// How long `close` waits for the queue-runner threads after asking them to stop
    /// (default 120 s).
    pub fn stop_grace_period_secs(mut self, secs: f64) -> Self {
        self.stop_grace_period = Duration::from_secs_f64(secs.max(0.0));
        self
    }

    /// The session's options (`config`).
    pub fn config(mut self, options: SessionOptions) -> Self {
        self.config = options;
        self
    }

    /// Creates the session: hooks' `begin`, the scaffold's defaults, restore or initialize,
    /// queue runners, hooks' `after_create_session`.
    pub fn build(self) -> Result<MonitoredSession> {
        // TensorFlow's order: chief-only hooks, the stock hooks, then the caller's.
        let mut hooks = self.chief_only_hooks;
        let (ckpt_secs, ckpt_steps) = defaults(
            self.save_checkpoint_secs,
            self.save_checkpoint_steps,
            Some(600.0),
        );
        let (sum_steps, sum_secs) = defaults(
            self.save_summaries_steps,
            self.save_summaries_secs,
            Some(100),
        );
        let summary_dir = self.summary_dir.or_else(|| self.checkpoint_dir.clone());
        if let Some(dir) = &summary_dir {
            if let Some(n) = self.log_step_count_steps.filter(|&n| n > 0) {
                hooks.push(Box::new(StepCounterHook::new(Some(n), None, Some(dir))?));
            }
            let steps = sum_steps.filter(|&n| n > 0);
            let secs = sum_secs.filter(|&s| s > 0.0);
            if steps.is_some() || secs.is_some() {
                let h =
                    SummarySaverHook::new(steps, if steps.is_some() { None } else { secs }, dir)?
                        .scaffold(&self.scaffold);
                hooks.push(Box::new(h));
            }
        }
        if let Some(dir) = &self.checkpoint_dir {
            let steps = ckpt_steps.filter(|&n| n > 0);
            let secs = ckpt_secs.filter(|&s| s > 0.0);
            if steps.is_some() || secs.is_some() {
                let h = CheckpointSaverHook::new(
                    dir,
                    if steps.is_some() { None } else { secs },
                    steps,
                )?
                .scaffold(&self.scaffold);
                hooks.push(Box::new(h));
            }
        }
        hooks.extend(self.hooks);
        let mut creator = ChiefSessionCreator::new(&self.graph)
            .scaffold(self.scaffold)
            .config(self.config);
        if let Some(dir) = &self.checkpoint_dir {
            creator = creator.checkpoint_dir(dir);
        }
        MonitoredSession::with_stop_grace_period(creator, hooks, self.stop_grace_period)
    }
}

/// TensorFlow's resolution of a pair of `USE_DEFAULT` settings: both default gives `default`
/// to the first; one set leaves the other unset.
fn defaults<A: Copy, B: Copy>(
    a: Setting<A>,
    b: Setting<B>,
    default: Option<A>,
) -> (Option<A>, Option<B>) {
    if a.is_default() && b.is_default() {
        (default, None)
    } else {
        (a.or(None), b.or(None))
    }
}

/// `tf.train.MonitoredSession`: a session whose runs go through hooks, made by
/// [`MonitoredTrainingSession`]. Loop while [`should_stop`](Self::should_stop) is false; the
/// input running out shows as OutOfRange from [`run`](Self::run), which ends the loop as
/// TensorFlow's `with` block ends it. [`close`](Self::close) runs the hooks' `end` (a final
/// checkpoint, say), stops the queue runners and closes the session; dropping it unclosed
/// stops the threads and closes the session without the hooks' `end`, as an error leaving
/// TensorFlow's `with` block does.
pub struct MonitoredSession {
    session: Session,
    handle: SessionHandle,
    hooks: Vec<Box<dyn SessionRunHook>>,
    coord: Coordinator,
    threads: Vec<CoordThread>,
    stop_requested: bool,
    stop_grace_period: Duration,
    closed: bool,
    /// Whether the graph was finalized before this session finalized it; if not, closing
    /// makes it modifiable again, as TensorFlow's close does.
    graph_was_finalized: bool,
}

impl MonitoredSession {
    /// `tf.compat.v1.train.MonitoredSession(session_creator, hooks)`: calls every hook's
    /// `begin`, creates the session with `creator` (which finalizes the graph), starts the
    /// queue runners and calls the hooks' `after_create_session`. Closing it stops the
    /// threads after `stop_grace_period_secs` (120) at most; see
    /// [`with_stop_grace_period`](Self::with_stop_grace_period).
    pub fn new(
        creator: impl SessionCreator,
        hooks: Vec<Box<dyn SessionRunHook>>,
    ) -> Result<MonitoredSession> {
        MonitoredSession::with_stop_grace_period(creator, hooks, Duration::from_secs(120))
    }

    /// [`new`](Self::new) with `stop_grace_period_secs`.
    pub fn with_stop_grace_period(
        creator: impl SessionCreator,
        mut hooks: Vec<Box<dyn SessionRunHook>>,
        stop_grace_period: Duration,
    ) -> Result<MonitoredSession> {
        let graph = creator.graph().clone();
        let graph_was_finalized = graph.finalized();
        for h in &mut hooks {
            h.begin(&graph)?;
        }
        let session = creator.create_session()?;
        let handle = session.handle();
        let coord = Coordinator::new();
        let threads = start_queue_runners(&handle, &coord)?;
        let mut s = MonitoredSession {
            session,
            handle,
            hooks,
            coord,
            threads,
            stop_requested: false,
            stop_grace_period,
            closed: false,
            graph_was_finalized,
        };
        // On an error from here on, dropping `s` stops the threads just started.
        let MonitoredSession {
            handle,
            hooks,
            coord,
            ..
        } = &mut s;
        for h in hooks.iter_mut() {
            h.after_create_session(handle, coord)?;
        }
        Ok(s)
    }

    /// `run(fetches, feed_dict)` with the hooks around it: their fetches and feeds are added,
    /// their `after_run` sees the values, and a stop they request shows in `should_stop`.
    /// Returns the caller's fetches only. A run after a stop is Unknown "Run called even after
    /// should_stop requested." (TensorFlow's RuntimeError).
    pub fn run(&mut self, args: &RunArgs) -> Result<Vec<Tensor>> {
        self.run_with_metadata(args, &mut RunMetadata::default())
    }

    /// [`run`](Self::run) that also fills `metadata` (`run(fetches, feed_dict, options,
    /// run_metadata)`): the step stats when `args` or a hook asked for a trace.
    pub fn run_with_metadata(
        &mut self,
        args: &RunArgs,
        metadata: &mut RunMetadata,
    ) -> Result<Vec<Tensor>> {
        if self.closed {
            return Err(Error::new(Code::Unknown, "Session is already closed."));
        }
        if self.should_stop() {
            return Err(Error::new(
                Code::Unknown,
                "Run called even after should_stop requested.",
            ));
        }
        let MonitoredSession {
            handle,
            hooks,
            stop_requested,
            ..
        } = self;
        let mut ctx = SessionRunContext::new(handle, args);
        let mut extra: Vec<SessionRunArgs> = Vec::with_capacity(hooks.len());
        for h in hooks.iter_mut() {
            extra.push(h.before_run(&mut ctx)?);
        }
        // The deepest trace anyone asked for, as TensorFlow merges the hooks' RunOptions.
        let level = extra
            .iter()
            .map(|a| a.trace_level)
            .fold(args.requested_trace_level(), TraceLevel::max);
        let mut results = if level == args.requested_trace_level()
            && extra
                .iter()
                .all(|a| a.fetches.is_empty() && a.feeds.is_empty())
        {
            handle.run_with_metadata(args, metadata)?
        } else {
            let full = with_hook_args(args, &extra)?.trace_level(level);
            handle.run_with_metadata(&full, metadata)?
        };
        let mut hook_values = results.split_off(args.fetch_count()).into_iter();
        for (h, a) in hooks.iter_mut().zip(&extra) {
            let values = SessionRunValues {
                results: hook_values.by_ref().take(a.fetches.len()).collect(),
                run_metadata: metadata.clone(),
            };
            h.after_run(&mut ctx, &values)?;
        }
        if ctx.stop_requested() {
            *stop_requested = true;
        }
        Ok(results)
    }

    /// Whether to stop: a hook asked, the coordinator was asked (a queue runner failed, say),
    /// or the session is closed.
    pub fn should_stop(&self) -> bool {
        self.closed || self.stop_requested || self.coord.should_stop()
    }

    /// The underlying session, for runs that should not go through the hooks.
    pub fn raw_session(&self) -> &SessionHandle {
        &self.handle
    }

    /// The coordinator of the queue-runner threads.
    pub fn coordinator(&self) -> &Coordinator {
        &self.coord
    }

    /// Ends a clean run: the hooks' `end`, then stop and join the queue runners (an error a
    /// runner recorded is returned here), then close the session. The first error is returned
    /// after everything is stopped.
    pub fn close(mut self) -> Result<()> {
        self.close_internal(true)
    }

    fn close_internal(&mut self, clean: bool) -> Result<()> {
        if self.closed {
            return Ok(());
        }
        self.closed = true;
        let mut first: Option<Error> = None;
        if clean {
            for h in &mut self.hooks {
                if let Err(e) = h.end(&self.handle) {
                    first.get_or_insert(e);
                    break;
                }
            }
        }
        let _ = self.coord.request_stop(None);
        if let Err(e) = self.coord.join(&self.threads, self.stop_grace_period) {
            first.get_or_insert(e);
        }
        self.session.close();
        if !self.graph_was_finalized {
            self.session.graph().unsafe_unfinalize();
        }
        first.map_or(Ok(()), Err)
    }
}

impl Drop for MonitoredSession {
    fn drop(&mut self) {
        // Errors cannot be reported from drop; `close` reports them.
        let _ = self.close_internal(false);
    }
}

/// The caller's args plus every hook's fetches (after the caller's, hook by hook) and feeds;
/// InvalidArgument when a tensor is fed twice, in TensorFlow's words.
fn with_hook_args(args: &RunArgs, extra: &[SessionRunArgs]) -> Result<RunArgs> {
    let mut full = args.clone();
    let mut fed = Vec::new();
    for a in extra {
        for (t, v) in &a.feeds {
            if args.feeds_tensor(t) {
                return Err(Error::invalid_argument(
                    "Same tensor is fed by a SessionRunHook and user.",
                ));
            }
            if fed.contains(t) {
                return Err(Error::invalid_argument("Same tensor is fed by two hooks."));
            }
            fed.push(t.clone());
            full = full.feed(t, v.clone());
        }
        for t in &a.fetches {
            full = full.fetch(t);
        }
    }
    Ok(full)
}
