//! The stock hooks of `tf.train` that act on the global step: `StopAtStepHook`,
//! `CheckpointSaverHook`, `StepCounterHook` and `SummarySaverHook`, with TensorFlow's triggers
//! (each reads the global step before a run, and once more when it is about to act, since the
//! run may have moved it).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use weir_graph::graph_def::write_graph;
use weir_graph::{Code, Error, Graph, Output, Result, Tensor};
use weir_session::SessionHandle;

use super::hook::{
    SecondOrStepTimer, SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues,
};
use super::scaffold::Scaffold;
use crate::summary::{FileWriter, SessionStatus, SummaryWriterCache};
use crate::{get_global_step, Coordinator, Saver};

/// The global step's value tensor, or TensorFlow's RuntimeError (Unknown here) naming `hook`.
pub(super) fn global_step_read(graph: &Graph, hook: &str) -> Result<Output> {
    match get_global_step(graph)? {
        Some(v) => Ok(v.value()),
        None => Err(Error::new(
            Code::Unknown,
            format!("Global step should be created to use {hook}."),
        )),
    }
}

pub(super) use crate::global_step::{read_step, step_of};

/// TensorFlow's two-read trigger of the step hooks: with the step fetched before the run
/// (`stale`), whether the timer fires for the step after it; if so, the real step read now,
/// when the timer fires for that one too.
fn triggered_step(
    timer: &SecondOrStepTimer,
    stale: &Tensor,
    session: &SessionHandle,
    global_step: Option<&Output>,
    hook: &str,
) -> Result<Option<i64>> {
    if !timer.should_trigger_for_step(step_of(stale)? + 1) {
        return Ok(None);
    }
    let gs = global_step.ok_or_else(|| not_begun(hook))?;
    let step = read_step(session, gs)?;
    Ok(timer.should_trigger_for_step(step).then_some(step))
}

/// The global step tensor a hook found in `begin`; FailedPrecondition before that.
pub(super) fn begun<'a>(global_step: &'a Option<Output>, hook: &str) -> Result<&'a Output> {
    global_step.as_ref().ok_or_else(|| not_begun(hook))
}

fn not_begun(hook: &str) -> Error {
    Error::failed_precondition(format!("{hook} was used before its begin() ran"))
}

/// `tf.train.StopAtStepHook(num_steps=None, last_step=None)`: requests a stop once the global
/// step reaches `last_step`, or `num_steps` steps after the session was created.
///
/// ```
/// # use weir_train::StopAtStepHook;
/// let hook = StopAtStepHook::new(Some(1000), None)?;
/// assert!(StopAtStepHook::new(None, None).is_err());
/// # let _ = hook;
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct StopAtStepHook {
    num_steps: Option<i64>,
    last_step: Option<i64>,
    global_step: Option<Output>,
}

impl StopAtStepHook {
    /// Exactly one of `num_steps` and `last_step`, as TensorFlow requires.
    pub fn new(num_steps: Option<i64>, last_step: Option<i64>) -> Result<StopAtStepHook> {
        match (num_steps, last_step) {
            (None, None) => Err(Error::invalid_argument(
                "One of num_steps or last_step must be specified.",
            )),
            (Some(_), Some(_)) => Err(Error::invalid_argument(
                "Only one of num_steps or last_step can be specified.",
            )),
            _ => Ok(StopAtStepHook {
                num_steps,
                last_step,
                global_step: None,
            }),
        }
    }
}

impl SessionRunHook for StopAtStepHook {
    fn begin(&mut self, graph: &Graph) -> Result<()> {
        self.global_step = Some(global_step_read(graph, "StopAtStepHook")?);
        Ok(())
    }

    fn after_create_session(&mut self, session: &SessionHandle, _: &Coordinator) -> Result<()> {
        if self.last_step.is_none() {
            let step = begun(&self.global_step, "StopAtStepHook")?;
            self.last_step = Some(read_step(session, step)? + self.num_steps.unwrap_or(0));
        }
        Ok(())
    }

    fn before_run(&mut self, _: &mut SessionRunContext<'_>) -> Result<SessionRunArgs> {
        let step = begun(&self.global_step, "StopAtStepHook")?;
        Ok(SessionRunArgs::new().fetch(step))
    }

    fn after_run(
        &mut self,
        context: &mut SessionRunContext<'_>,
        values: &SessionRunValues,
    ) -> Result<()> {
        let last = self.last_step.unwrap_or(i64::MAX);
        // The fetched value is the step before the run's update, if it made one.
        if step_of(&values.results[0])? + 1 >= last {
            let step = begun(&self.global_step, "StopAtStepHook")?;
            if read_step(context.session(), step)? >= last {
                context.request_stop();
            }
        }
        Ok(())
    }
}

/// Where a hook's saver comes from: given, the scaffold's, or one made in `begin`.
enum SaverSource {
    Given(Arc<Saver>),
    Scaffold(Scaffold),
    Default(Option<Arc<Saver>>),
}

/// `tf.compat.v1.train.CheckpointSaverListener`: called by a [`CheckpointSaverHook`] around
/// every checkpoint it saves, e.g. to evaluate or export each one. Every method does nothing
/// by default.
pub trait CheckpointSaverListener: Send {
    /// `begin()`: when the hook's `begin` runs, before the graph is finalized.
    fn begin(&mut self) -> Result<()> {
        Ok(())
    }

    /// `before_save(session, global_step_value)`: just before a checkpoint is saved.
    fn before_save(&mut self, _session: &SessionHandle, _global_step: i64) -> Result<()> {
        Ok(())
    }

    /// `after_save(session, global_step_value)`: just after; `true` asks the training to
    /// stop (after a save in the training loop, not the one at session creation).
    fn after_save(&mut self, _session: &SessionHandle, _global_step: i64) -> Result<bool> {
        Ok(false)
    }

    /// `end(session, global_step_value)`: when the hook's `end` runs, after the last save.
    fn end(&mut self, _session: &SessionHandle, _global_step: i64) -> Result<()> {
        Ok(())
    }
}

/// `tf.train.CheckpointSaverHook(checkpoint_dir, save_secs, save_steps, saver,
/// checkpoint_basename, scaffold, listeners)`: saves `checkpoint_dir/model.ckpt-<global step>`
/// when the session is created, then every `save_steps` steps or `save_secs` seconds, and at
/// the end if the last step is not saved, calling its listeners around each save.
pub struct CheckpointSaverHook {
    listeners: Vec<Box<dyn CheckpointSaverListener>>,
    dir: PathBuf,
    basename: String,
    timer: SecondOrStepTimer,
    saver: SaverSource,
    global_step: Option<Output>,
    writer: Option<Arc<FileWriter>>,
}

impl CheckpointSaverHook {
    /// Saves into `checkpoint_dir` every `save_secs` seconds or `save_steps` steps (exactly one).
    pub fn new(
        checkpoint_dir: impl AsRef<Path>,
        save_secs: Option<f64>,
        save_steps: Option<i64>,
    ) -> Result<CheckpointSaverHook> {
        Ok(CheckpointSaverHook {
            listeners: Vec::new(),
            dir: checkpoint_dir.as_ref().to_path_buf(),
            basename: "model.ckpt".to_string(),
            timer: SecondOrStepTimer::new(save_secs, save_steps)?,
            saver: SaverSource::Default(None),
            global_step: None,
            writer: None,
        })
    }

    /// Saves with `saver` instead of a saver of every global variable.
    pub fn saver(mut self, saver: Arc<Saver>) -> Self {
        self.saver = SaverSource::Given(saver);
        self
    }

    /// Saves with the saver of `scaffold` (known once the monitored session finalizes it).
    pub fn scaffold(mut self, scaffold: &Scaffold) -> Self {
        self.saver = SaverSource::Scaffold(scaffold.clone());
        self
    }

    /// The checkpoint file name before `-<step>` (default `model.ckpt`).
    pub fn checkpoint_basename(mut self, name: &str) -> Self {
        self.basename = name.to_string();
        self
    }

    /// Adds `listener` (`listeners`), called around every save in the order added.
    pub fn listener(mut self, listener: impl CheckpointSaverListener + 'static) -> Self {
        self.listeners.push(Box::new(listener));
        self
    }

    /// `_save`: saves at `step` between the listeners' calls; whether one asked to stop.
    fn save(&mut self, session: &SessionHandle, step: i64) -> Result<bool> {
        for l in &mut self.listeners {
            l.before_save(session, step)?;
        }
        let saver = match &self.saver {
            SaverSource::Given(s) => s.clone(),
            SaverSource::Scaffold(sc) => sc.saver().ok_or_else(|| {
                Error::failed_precondition("The scaffold has no saver: the graph has no variables")
            })?,
            SaverSource::Default(s) => s.clone().ok_or_else(|| not_begun("CheckpointSaverHook"))?,
        };
        let prefix = self.dir.join(&self.basename).to_string_lossy().into_owned();
        saver.save(session, &prefix, Some(step))?;
        if let Some(w) = &self.writer {
            w.add_session_log(SessionStatus::Checkpoint, &prefix, step)?;
        }
        let mut stop = false;
        for l in &mut self.listeners {
            // Every listener hears of the save, even after one asked to stop.
            stop |= l.after_save(session, step)?;
        }
        Ok(stop)
    }
}

impl SessionRunHook for CheckpointSaverHook {
    fn begin(&mut self, graph: &Graph) -> Result<()> {
        self.global_step = Some(global_step_read(graph, "CheckpointSaverHook")?);
        self.writer = Some(SummaryWriterCache::get(&self.dir)?);
        if let SaverSource::Default(s) = &mut self.saver {
            *s = Some(Arc::new(Saver::sharded(graph)?));
        }
        for l in &mut self.listeners {
            l.begin()?;
        }
        Ok(())
    }

    fn after_create_session(&mut self, session: &SessionHandle, _: &Coordinator) -> Result<()> {
        let gs = begun(&self.global_step, "CheckpointSaverHook")?;
        let step = read_step(session, gs)?;
        // Written here, not in begin: other hooks may still add ops in theirs.
        let def = session.graph().as_graph_def(true)?;
        write_graph(&def, &self.dir, "graph.pbtxt", true)?;
        if let Some(w) = &self.writer {
            w.add_graph(session.graph())?;
        }
        // The state the session starts from, as TensorFlow saves it (a stop asked for here is
        // not acted on, as in TensorFlow).
        self.save(session, step)?;
        self.timer.update_last_triggered_step(step);
        Ok(())
    }

    fn before_run(&mut self, _: &mut SessionRunContext<'_>) -> Result<SessionRunArgs> {
        let gs = begun(&self.global_step, "CheckpointSaverHook")?;
        Ok(SessionRunArgs::new().fetch(gs))
    }

    fn after_run(
        &mut self,
        context: &mut SessionRunContext<'_>,
        values: &SessionRunValues,
    ) -> Result<()> {
        let fired = triggered_step(
            &self.timer,
            &values.results[0],
            context.session(),
            self.global_step.as_ref(),
            "CheckpointSaverHook",
        )?;
        if let Some(step) = fired {
            self.timer.update_last_triggered_step(step);
            if self.save(context.session(), step)? {
                context.request_stop();
            }
        }
        Ok(())
    }

    fn end(&mut self, session: &SessionHandle) -> Result<()> {
        let gs = begun(&self.global_step, "CheckpointSaverHook")?;
        let step = read_step(session, gs)?;
        if self.timer.last_triggered_step() != Some(step) {
            self.save(session, step)?;
        }
        for l in &mut self.listeners {
            l.end(session, step)?;
        }
        // The cached writer lives as long as the process and is never dropped: flush now.
        match &self.writer {
            Some(w) => w.flush(),
            None => Ok(()),
        }
    }
}

/// `tf.train.StepCounterHook(every_n_steps=100, every_n_secs=None, output_dir)`: writes the
/// training speed as the scalar summary `global_step/sec`.
pub struct StepCounterHook {
    timer: SecondOrStepTimer,
    output_dir: Option<PathBuf>,
    writer: Option<Arc<FileWriter>>,
    global_step: Option<Output>,
    tag: String,
}

impl StepCounterHook {
    /// Measures every `every_n_steps` steps or `every_n_secs` seconds (exactly one) and writes
    /// to `output_dir` (its cached writer); with no directory it only measures.
    pub fn new(
        every_n_steps: Option<i64>,
        every_n_secs: Option<f64>,
        output_dir: Option<&Path>,
    ) -> Result<StepCounterHook> {
        if every_n_steps.is_none() == every_n_secs.is_none() {
            return Err(Error::invalid_argument(
                "exactly one of every_n_steps and every_n_secs should be provided.",
            ));
        }
        Ok(StepCounterHook {
            timer: SecondOrStepTimer::new(every_n_secs, every_n_steps)?,
            output_dir: output_dir.map(Path::to_path_buf),
            writer: None,
            global_step: None,
            tag: String::new(),
        })
    }
}

impl SessionRunHook for StepCounterHook {
    fn begin(&mut self, graph: &Graph) -> Result<()> {
        let gs = global_step_read(graph, "StepCounterHook")?;
        self.tag = format!(
            "{}/sec",
            get_global_step(graph)?
                .map(|v| v.name())
                .unwrap_or_default()
        );
        self.global_step = Some(gs);
        if let Some(d) = &self.output_dir {
            self.writer = Some(SummaryWriterCache::get(d)?);
        }
        Ok(())
    }

    fn before_run(&mut self, _: &mut SessionRunContext<'_>) -> Result<SessionRunArgs> {
        let gs = begun(&self.global_step, "StepCounterHook")?;
        Ok(SessionRunArgs::new().fetch(gs))
    }

    fn after_run(
        &mut self,
        context: &mut SessionRunContext<'_>,
        values: &SessionRunValues,
    ) -> Result<()> {
        let fired = triggered_step(
            &self.timer,
            &values.results[0],
            context.session(),
            self.global_step.as_ref(),
            "StepCounterHook",
        )?;
        if let Some(step) = fired {
            if let Some((secs, steps)) = self.timer.update_last_triggered_step(step) {
                if secs > 0.0 {
                    if let Some(w) = &self.writer {
                        w.add_scalar(&self.tag, (steps as f64 / secs) as f32, step)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn end(&mut self, _: &SessionHandle) -> Result<()> {
        match &self.writer {
            Some(w) => w.flush(),
            None => Ok(()),
        }
    }
}

/// `tf.train.SummarySaverHook(save_steps, save_secs, output_dir, scaffold, summary_op)`:
/// evaluates the summary op every `save_steps` steps or `save_secs` seconds and writes it at
/// the global step; marks the session's start in the event file.
pub struct SummarySaverHook {
    timer: SecondOrStepTimer,
    output_dir: PathBuf,
    summary_ops: Vec<Output>,
    scaffold: Option<Scaffold>,
    writer: Option<Arc<FileWriter>>,
    global_step: Option<Output>,
    next_step: Option<i64>,
    requested: bool,
}

impl SummarySaverHook {
    /// Writes into `output_dir` every `save_steps` steps or `save_secs` seconds (exactly one).
    /// The summary comes from [`summary_op`](Self::summary_op) or the scaffold's (the merge of
    /// every summary in the graph).
    pub fn new(
        save_steps: Option<i64>,
        save_secs: Option<f64>,
        output_dir: impl AsRef<Path>,
    ) -> Result<SummarySaverHook> {
        Ok(SummarySaverHook {
            timer: SecondOrStepTimer::new(save_secs, save_steps)?,
            output_dir: output_dir.as_ref().to_path_buf(),
            summary_ops: Vec::new(),
            scaffold: None,
            writer: None,
            global_step: None,
            next_step: None,
            requested: false,
        })
    }

    /// Writes this (serialized `Summary`) tensor; call again to write several.
    pub fn summary_op(mut self, op: Output) -> Self {
        self.summary_ops.push(op);
        self
    }

    /// Writes the summary op of `scaffold`.
    pub fn scaffold(mut self, scaffold: &Scaffold) -> Self {
        self.scaffold = Some(scaffold.clone());
        self
    }

    fn ops(&self) -> Vec<Output> {
        match &self.scaffold {
            Some(s) if self.summary_ops.is_empty() => s.summary_op().into_iter().collect(),
            _ => self.summary_ops.clone(),
        }
    }
}

impl SessionRunHook for SummarySaverHook {
    fn begin(&mut self, graph: &Graph) -> Result<()> {
        if self.summary_ops.is_empty() == self.scaffold.is_none() {
            return Err(Error::invalid_argument(
                "Exactly one of scaffold or summary_op must be provided.",
            ));
        }
        self.global_step = Some(global_step_read(graph, "SummarySaverHook")?);
        self.writer = Some(SummaryWriterCache::get(&self.output_dir)?);
        self.next_step = None;
        Ok(())
    }

    fn before_run(&mut self, _: &mut SessionRunContext<'_>) -> Result<SessionRunArgs> {
        let gs = begun(&self.global_step, "SummarySaverHook")?;
        self.requested = match self.next_step {
            None => true,
            Some(s) => self.timer.should_trigger_for_step(s),
        };
        let mut args = SessionRunArgs::new().fetch(gs);
        if self.requested {
            for op in self.ops() {
                args = args.fetch(op);
            }
        }
        Ok(args)
    }

    fn after_run(
        &mut self,
        context: &mut SessionRunContext<'_>,
        values: &SessionRunValues,
    ) -> Result<()> {
        let Some(writer) = self.writer.clone() else {
            return Ok(());
        };
        let mut step = step_of(&values.results[0])? + 1;
        if self.next_step.is_none() || self.requested {
            let gs = begun(&self.global_step, "SummarySaverHook")?;
            step = read_step(context.session(), gs)?;
        }
        if self.next_step.is_none() {
            writer.add_session_log(SessionStatus::Start, "", step)?;
        }
        if self.requested {
            self.timer.update_last_triggered_step(step);
            for summary in &values.results[1..] {
                writer.add_summary(summary, step)?;
            }
        }
        self.next_step = Some(step + 1);
        Ok(())
    }

    fn end(&mut self, _: &SessionHandle) -> Result<()> {
        match &self.writer {
            Some(w) => w.flush(),
            None => Ok(()),
        }
    }
}
