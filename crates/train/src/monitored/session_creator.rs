//! `tf.train.SessionCreator` and its two stock kinds: the chief's, which initializes or
//! restores the model, and a worker's, which waits for it to be ready. A `MonitoredSession`
//! gets its session from one.

use std::path::{Path, PathBuf};
use std::time::Duration;

use weir_graph::{Graph, Result};
use weir_session::{Session, SessionOptions};

use super::scaffold::{Finalized, Scaffold};
use crate::{PrepareArgs, SessionManager};

/// `tf.compat.v1.train.SessionCreator`: makes the session a [`MonitoredSession`] runs.
///
/// [`MonitoredSession`]: super::MonitoredSession
pub trait SessionCreator: Send {
    /// The graph the sessions run (TensorFlow's default graph).
    fn graph(&self) -> &Graph;

    /// `create_session()`: a new session whose model is ready.
    fn create_session(&self) -> Result<Session>;
}

/// The session manager TensorFlow's creators build from a finalized scaffold.
fn session_manager(graph: &Graph, f: &Finalized, scaffold: &Scaffold) -> SessionManager {
    let mut sm = SessionManager::new(graph)
        .local_init_op(&f.local_init_op)
        .ready_op(&f.ready_op)
        .ready_for_local_init_op(&f.ready_for_local_init_op);
    for (t, v) in scaffold.local_init_feeds() {
        sm = sm.local_init_feed(t, v.clone());
    }
    sm
}

/// `tf.compat.v1.train.ChiefSessionCreator(scaffold, master, config, checkpoint_dir,
/// checkpoint_filename_with_path)`: finalizes the scaffold (and so the graph), then prepares a
/// session through a [`SessionManager`]: the latest checkpoint of `checkpoint_dir` (or the
/// checkpoint given) restored, else the scaffold's init op and init function run; then its
/// local init op and the readiness check.
///
/// ```
/// use weir_graph::{Graph, Tensor};
/// use weir_ops::array::constant;
/// use weir_ops::state::Variable;
/// use weir_train::{ChiefSessionCreator, MonitoredSession};
///
/// let g = Graph::new();
/// let v = Variable::builder(constant(&g, Tensor::scalar(3.0f32))?).name("v").build()?;
/// let sess = MonitoredSession::new(ChiefSessionCreator::new(&g), Vec::new())?;
/// assert_eq!(sess.raw_session().eval(v.value())?.to_scalar::<f32>()?, 3.0);
/// sess.close()?;
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct ChiefSessionCreator {
    graph: Graph,
    scaffold: Scaffold,
    config: SessionOptions,
    checkpoint_dir: Option<PathBuf>,
    checkpoint_filename_with_path: Option<String>,
}

impl ChiefSessionCreator {
    /// A creator with TensorFlow's defaults: a default scaffold, no checkpoint.
    pub fn new(graph: &Graph) -> ChiefSessionCreator {
        ChiefSessionCreator {
            graph: graph.clone(),
            scaffold: Scaffold::new(),
            config: SessionOptions::default(),
            checkpoint_dir: None,
            checkpoint_filename_with_path: None,
        }
    }

    /// Uses `scaffold` (`scaffold`).
    pub fn scaffold(mut self, scaffold: Scaffold) -> Self {
        self.scaffold = scaffold;
        self
    }

    /// The session's options (`config`).
    pub fn config(mut self, config: SessionOptions) -> Self {
        self.config = config;
        self
    }

    /// Restores the latest checkpoint of `dir` (`checkpoint_dir`).
    pub fn checkpoint_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.checkpoint_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Restores the checkpoint `path` (`checkpoint_filename_with_path`).
    pub fn checkpoint_filename_with_path(mut self, path: &str) -> Self {
        self.checkpoint_filename_with_path = Some(path.to_string());
        self
    }
}

impl SessionCreator for ChiefSessionCreator {
    fn graph(&self) -> &Graph {
        &self.graph
    }

    fn create_session(&self) -> Result<Session> {
        let f = self.scaffold.finalize(&self.graph)?;
        let mut args = PrepareArgs::new()
            .config(self.config.clone())
            .init_op(&f.init_op)
            .init_fn_arc(self.scaffold.init_fn_arc());
        for (t, v) in self.scaffold.init_feeds() {
            args = args.init_feed(t, v.clone());
        }
        if let Some(saver) = &f.saver {
            args = args.saver(saver.clone());
        }
        if let Some(dir) = &self.checkpoint_dir {
            args = args.checkpoint_dir(dir);
        }
        if let Some(path) = &self.checkpoint_filename_with_path {
            args = args.checkpoint_filename_with_path(path);
        }
        session_manager(&self.graph, &f, &self.scaffold).prepare_session(args)
    }
}

/// `tf.compat.v1.train.WorkerSessionCreator(scaffold, master, config, max_wait_secs)`:
/// finalizes the scaffold, then waits (at most `max_wait_secs`, default 30 minutes) for a
/// session whose model another task made ready, running the local init op in it.
pub struct WorkerSessionCreator {
    graph: Graph,
    scaffold: Scaffold,
    config: SessionOptions,
    max_wait: Duration,
}

impl WorkerSessionCreator {
    /// A creator with TensorFlow's defaults.
    pub fn new(graph: &Graph) -> WorkerSessionCreator {
        WorkerSessionCreator {
            graph: graph.clone(),
            scaffold: Scaffold::new(),
            config: SessionOptions::default(),
            max_wait: Duration::from_secs(30 * 60),
        }
    }

    /// Uses `scaffold` (`scaffold`).
    pub fn scaffold(mut self, scaffold: Scaffold) -> Self {
        self.scaffold = scaffold;
        self
    }

    /// The session's options (`config`).
    pub fn config(mut self, config: SessionOptions) -> Self {
        self.config = config;
        self
    }

    /// How long to wait for a ready model (`max_wait_secs`).
    pub fn max_wait_secs(mut self, secs: f64) -> Self {
        self.max_wait = Duration::try_from_secs_f64(secs.max(0.0)).unwrap_or(Duration::MAX);
        self
    }
}

impl SessionCreator for WorkerSessionCreator {
    fn graph(&self) -> &Graph {
        &self.graph
    }

    fn create_session(&self) -> Result<Session> {
        let f = self.scaffold.finalize(&self.graph)?;
        session_manager(&self.graph, &f, &self.scaffold)
            .wait_for_session(self.config.clone(), Some(self.max_wait))
    }
}

/// `tf.compat.v1.train.SingularMonitoredSession(hooks, scaffold, master, config,
/// checkpoint_dir, stop_grace_period_secs, checkpoint_filename_with_path)`: the builder of a
/// [`MonitoredSession`] made by a [`ChiefSessionCreator`], for a single process (its
/// `raw_session()` gives the plain session).
///
/// [`MonitoredSession`]: super::MonitoredSession
///
/// ```
/// use weir_graph::{Graph, Tensor};
/// use weir_ops::array::constant;
/// use weir_session::RunArgs;
/// use weir_train::{get_or_create_global_step, SingularMonitoredSession, StopAtStepHook};
///
/// let g = Graph::new();
/// let step = get_or_create_global_step(&g)?;
/// let train = step.assign_add(constant(&g, Tensor::scalar(1i64))?)?;
/// let mut sess = SingularMonitoredSession::new(&g)
///     .hook(StopAtStepHook::new(Some(3), None)?)
///     .build()?;
/// while !sess.should_stop() {
///     sess.run(&RunArgs::new().fetch(&train))?;
/// }
/// assert_eq!(sess.raw_session().eval(step.value())?.to_scalar::<i64>()?, 3);
/// sess.close()?;
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct SingularMonitoredSession {
    creator: ChiefSessionCreator,
    hooks: Vec<Box<dyn super::SessionRunHook>>,
    stop_grace_period: Duration,
}

impl SingularMonitoredSession {
    /// A session on `graph` with TensorFlow's defaults: no hooks, a default scaffold, no
    /// checkpoint, 120 s of grace when stopping.
    pub fn new(graph: &Graph) -> SingularMonitoredSession {
        SingularMonitoredSession {
            creator: ChiefSessionCreator::new(graph),
            hooks: Vec::new(),
            stop_grace_period: Duration::from_secs(120),
        }
    }

    /// Adds `hook` (`hooks`).
    pub fn hook(mut self, hook: impl super::SessionRunHook + 'static) -> Self {
        self.hooks.push(Box::new(hook));
        self
    }

    /// Uses `scaffold` (`scaffold`).
    pub fn scaffold(mut self, scaffold: Scaffold) -> Self {
        self.creator = self.creator.scaffold(scaffold);
        self
    }

    /// The session's options (`config`).
    pub fn config(mut self, config: SessionOptions) -> Self {
        self.creator = self.creator.config(config);
        self
    }

    /// Restores the latest checkpoint of `dir` (`checkpoint_dir`).
    pub fn checkpoint_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.creator = self.creator.checkpoint_dir(dir);
        self
    }

    /// Restores the checkpoint `path` (`checkpoint_filename_with_path`).
    pub fn checkpoint_filename_with_path(mut self, path: &str) -> Self {
        self.creator = self.creator.checkpoint_filename_with_path(path);
        self
    }

    /// How long closing waits for the threads (`stop_grace_period_secs`).
    pub fn stop_grace_period_secs(mut self, secs: f64) -> Self {
        self.stop_grace_period =
            Duration::try_from_secs_f64(secs.max(0.0)).unwrap_or(Duration::MAX);
        self
    }

    /// Creates the session.
    pub fn build(self) -> Result<super::MonitoredSession> {
        super::MonitoredSession::with_stop_grace_period(
            self.creator,
            self.hooks,
            self.stop_grace_period,
        )
    }
}
