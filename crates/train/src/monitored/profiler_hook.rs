//! `tf.train.ProfilerHook`: every N steps or seconds, traces one run and writes its timeline.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use weir_graph::{Error, Graph, Output, Result};
use weir_session::{SessionHandle, Timeline, TraceLevel};

use super::basic_hooks::{begun, global_step_read, read_step, step_of};
use super::hook::{
    SecondOrStepTimer, SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues,
};
use crate::summary::{FileWriter, SummaryWriterCache};

/// `tf.train.ProfilerHook(save_steps, save_secs, output_dir, show_dataflow, show_memory)`:
/// every `save_steps` steps or `save_secs` seconds, runs one step with a full trace and writes
/// its Chrome trace to `output_dir/timeline-{global_step}.json` (open it in `chrome://tracing`
/// or Perfetto) and its run metadata, tagged `step_{global_step}`, to the directory's event file
/// for TensorBoard. Needs a global step.
///
/// ```
/// # use weir_train::ProfilerHook;
/// let hook = ProfilerHook::new(Some(100), None, "/tmp/train")?.show_memory(true);
/// assert!(ProfilerHook::new(None, None, "/tmp/train").is_err());
/// # let _ = hook;
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct ProfilerHook {
    timer: SecondOrStepTimer,
    output_dir: PathBuf,
    show_dataflow: bool,
    show_memory: bool,
    global_step: Option<Output>,
    next_step: Option<i64>,
    requested: bool,
    writer: Option<Arc<FileWriter>>,
}

impl ProfilerHook {
    /// Traces every `save_steps` steps or `save_secs` seconds (exactly one) into `output_dir`,
    /// with TensorFlow's defaults: dataflow arrows shown, memory not.
    pub fn new(
        save_steps: Option<i64>,
        save_secs: Option<f64>,
        output_dir: impl AsRef<Path>,
    ) -> Result<ProfilerHook> {
        Ok(ProfilerHook {
            timer: SecondOrStepTimer::new(save_secs, save_steps)?,
            output_dir: output_dir.as_ref().to_path_buf(),
            show_dataflow: true,
            show_memory: false,
            global_step: None,
            next_step: None,
            requested: false,
            writer: None,
        })
    }

    /// Whether the timelines draw arrows from each tensor's producer to its consumers.
    pub fn show_dataflow(mut self, show: bool) -> ProfilerHook {
        self.show_dataflow = show;
        self
    }

    /// Whether the timelines show each tensor's lifetime and the bytes allocated over time.
    pub fn show_memory(mut self, show: bool) -> ProfilerHook {
        self.show_memory = show;
        self
    }
}

impl SessionRunHook for ProfilerHook {
    fn begin(&mut self, graph: &Graph) -> Result<()> {
        self.next_step = None;
        self.global_step = Some(global_step_read(graph, "ProfilerHook")?);
        self.writer = Some(SummaryWriterCache::get(&self.output_dir)?);
        Ok(())
    }

    fn end(&mut self, _: &SessionHandle) -> Result<()> {
        match &self.writer {
            Some(w) => w.flush(),
            None => Ok(()),
        }
    }

    fn before_run(&mut self, _: &mut SessionRunContext<'_>) -> Result<SessionRunArgs> {
        let gs = begun(&self.global_step, "ProfilerHook")?;
        // The first run only starts the timer, as in TensorFlow.
        self.requested = self
            .next_step
            .is_some_and(|s| self.timer.should_trigger_for_step(s));
        let args = SessionRunArgs::new().fetch(gs);
        Ok(if self.requested {
            args.trace_level(TraceLevel::FullTrace)
        } else {
            args
        })
    }

    fn after_run(
        &mut self,
        context: &mut SessionRunContext<'_>,
        values: &SessionRunValues,
    ) -> Result<()> {
        let stale = step_of(&values.results[0])?;
        if self.next_step.is_none() {
            self.timer.update_last_triggered_step(stale);
        }
        let mut step = stale + 1;
        if self.requested {
            if let Some(gs) = &self.global_step {
                step = read_step(context.session(), gs)?;
            }
            self.timer.update_last_triggered_step(step);
            let path = self.output_dir.join(format!("timeline-{step}.json"));
            let trace = Timeline::new(&values.run_metadata.step_stats)
                .generate_chrome_trace_format(self.show_dataflow, self.show_memory);
            std::fs::create_dir_all(&self.output_dir)
                .and_then(|()| std::fs::write(&path, trace))
                .map_err(|e| {
                    Error::from(e).with_prefix(&format!("Failed to write {}: ", path.display()))
                })?;
            if let Some(w) = &self.writer {
                w.add_run_metadata(&values.run_metadata, &format!("step_{step}"), step)?;
            }
        }
        self.next_step = Some(step + 1);
        Ok(())
    }
}
