//! `tf.train.SessionRunHook` and what a hook sees of a run: the context it may stop, the
//! extra fetches and feeds it asks for, and their values; plus `SecondOrStepTimer`, the
//! every-N-steps-or-seconds trigger the stock hooks share.

use std::time::{Duration, Instant};

use weir_graph::{Error, Graph, Output, Result, Tensor};
use weir_session::{RunArgs, RunMetadata, SessionHandle, TraceLevel};

use crate::Coordinator;

/// `tf.train.SessionRunHook`: code run around every
/// [`MonitoredSession::run`](crate::MonitoredSession::run), with a say in when training stops.
///
/// The calls, in TensorFlow's order: `begin` while the graph can still change; once the
/// session exists and its variables are initialized or restored, `after_create_session`;
/// around each run, `before_run` (which may add fetches and feeds) and `after_run` (which
/// gets their values); `end` when the session closes after a clean finish (not after an
/// error). Every method has a default that does nothing.
pub trait SessionRunHook: Send {
    /// Called once before the session is created: add ops to `graph` here.
    fn begin(&mut self, graph: &Graph) -> Result<()> {
        let _ = graph;
        Ok(())
    }

    /// Called once the session is ready and its queue runners started.
    fn after_create_session(&mut self, session: &SessionHandle, coord: &Coordinator) -> Result<()> {
        let _ = (session, coord);
        Ok(())
    }

    /// Called before each run: what to add to it.
    fn before_run(&mut self, context: &mut SessionRunContext<'_>) -> Result<SessionRunArgs> {
        let _ = context;
        Ok(SessionRunArgs::new())
    }

    /// Called after each successful run with the values of this hook's fetches.
    fn after_run(
        &mut self,
        context: &mut SessionRunContext<'_>,
        values: &SessionRunValues,
    ) -> Result<()> {
        let _ = (context, values);
        Ok(())
    }

    /// Called once when the session closes after a clean finish.
    fn end(&mut self, session: &SessionHandle) -> Result<()> {
        let _ = session;
        Ok(())
    }
}

/// `tf.train.SessionRunContext`: the run being made, and the hooks' way to end training.
pub struct SessionRunContext<'a> {
    session: &'a SessionHandle,
    original_args: &'a RunArgs,
    stop_requested: bool,
}

impl<'a> SessionRunContext<'a> {
    pub(crate) fn new(session: &'a SessionHandle, original_args: &'a RunArgs) -> Self {
        SessionRunContext {
            session,
            original_args,
            stop_requested: false,
        }
    }

    /// The session (hooks may run it, as TensorFlow's read the global step).
    pub fn session(&self) -> &SessionHandle {
        self.session
    }

    /// The caller's fetches and feeds, without the hooks' additions.
    pub fn original_args(&self) -> &RunArgs {
        self.original_args
    }

    /// Asks the monitored session to stop: `should_stop()` is true after this run.
    pub fn request_stop(&mut self) {
        self.stop_requested = true;
    }

    /// Whether a hook has asked to stop during this run.
    pub fn stop_requested(&self) -> bool {
        self.stop_requested
    }
}

/// `tf.train.SessionRunArgs`: the tensors a hook adds to a run's fetches and feeds.
#[derive(Clone, Debug, Default)]
pub struct SessionRunArgs {
    pub(crate) fetches: Vec<Output>,
    pub(crate) feeds: Vec<(Output, Tensor)>,
    pub(crate) trace_level: TraceLevel,
}

impl SessionRunArgs {
    /// Nothing to add.
    pub fn new() -> SessionRunArgs {
        SessionRunArgs::default()
    }

    /// Also fetches `tensor`; its value comes back in [`SessionRunValues::results`], in the
    /// order of the fetches.
    pub fn fetch(mut self, tensor: impl Into<Output>) -> SessionRunArgs {
        self.fetches.push(tensor.into());
        self
    }

    /// Also feeds `value` to `tensor`; InvalidArgument at run time if the caller or another
    /// hook feeds it too.
    pub fn feed(mut self, tensor: impl Into<Output>, value: impl Into<Tensor>) -> SessionRunArgs {
        self.feeds.push((tensor.into(), value.into()));
        self
    }

    /// Asks for this run to be traced (`options=RunOptions(trace_level=...)`); the run uses the
    /// highest level any hook or the caller asks for, and every hook's
    /// [`SessionRunValues::run_metadata`] then holds the step stats.
    pub fn trace_level(mut self, level: TraceLevel) -> SessionRunArgs {
        self.trace_level = level;
        self
    }
}

/// `tf.train.SessionRunValues`: the values of one hook's fetches.
#[derive(Clone, Debug, Default)]
pub struct SessionRunValues {
    /// One tensor per [`SessionRunArgs::fetch`], in order.
    pub results: Vec<Tensor>,
    /// The run's metadata: its step stats when the caller or a hook asked for a trace.
    pub run_metadata: RunMetadata,
}

/// `tf.train.SecondOrStepTimer`: triggers every `every_steps` global steps or every
/// `every_secs` seconds, and on the first step it is asked about.
#[derive(Clone, Debug)]
pub struct SecondOrStepTimer {
    every_secs: Option<Duration>,
    every_steps: Option<i64>,
    last: Option<(Instant, i64)>,
}

impl SecondOrStepTimer {
    /// A timer on seconds or on steps; InvalidArgument unless exactly one is given, in
    /// TensorFlow's words.
    pub fn new(every_secs: Option<f64>, every_steps: Option<i64>) -> Result<SecondOrStepTimer> {
        match (every_secs, every_steps) {
            (None, None) => Err(Error::invalid_argument(
                "Either every_secs or every_steps should be provided.",
            )),
            (Some(_), Some(_)) => Err(Error::invalid_argument(
                "Can not provide both every_secs and every_steps.",
            )),
            (Some(s), None) if !(s.is_finite() && s >= 0.0) => Err(Error::invalid_argument(
                format!("every_secs must be a non-negative number of seconds, got {s}"),
            )),
            _ => Ok(SecondOrStepTimer {
                every_secs: every_secs.map(Duration::from_secs_f64),
                every_steps,
                last: None,
            }),
        }
    }

    /// Whether the timer fires at global step `step`: never twice at one step.
    pub fn should_trigger_for_step(&self, step: i64) -> bool {
        let Some((at, last_step)) = self.last else {
            return true;
        };
        if last_step == step {
            return false;
        }
        if let Some(secs) = self.every_secs {
            if at.elapsed() >= secs {
                return true;
            }
        }
        if let Some(n) = self.every_steps {
            if step >= last_step + n {
                return true;
            }
        }
        false
    }

    /// Records a firing at `step`; returns the seconds and steps since the previous one
    /// (None the first time).
    pub fn update_last_triggered_step(&mut self, step: i64) -> Option<(f64, i64)> {
        let now = Instant::now();
        let since = self
            .last
            .map(|(at, s)| (now.duration_since(at).as_secs_f64(), step - s));
        self.last = Some((now, step));
        since
    }

    /// The step of the last firing.
    pub fn last_triggered_step(&self) -> Option<i64> {
        self.last.map(|(_, s)| s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_timer_fires_first_then_every_n_steps_never_twice_at_one_step() {
        let mut t = SecondOrStepTimer::new(None, Some(10)).unwrap();
        assert!(t.should_trigger_for_step(3));
        assert_eq!(t.update_last_triggered_step(3), None);
        assert!(!t.should_trigger_for_step(3));
        assert!(!t.should_trigger_for_step(12));
        assert!(t.should_trigger_for_step(13));
        let (secs, steps) = t.update_last_triggered_step(13).unwrap();
        assert_eq!(steps, 10);
        assert!(secs >= 0.0);
        assert_eq!(t.last_triggered_step(), Some(13));
    }

    #[test]
    fn a_zero_second_timer_fires_at_every_new_step() {
        let mut t = SecondOrStepTimer::new(Some(0.0), None).unwrap();
        t.update_last_triggered_step(1);
        assert!(!t.should_trigger_for_step(1));
        assert!(t.should_trigger_for_step(2));
        let mut hour = SecondOrStepTimer::new(Some(3600.0), None).unwrap();
        hour.update_last_triggered_step(1);
        assert!(!hour.should_trigger_for_step(1000));
    }

    #[test]
    fn a_timer_takes_exactly_one_period() {
        for (secs, steps, msg) in [
            (
                None,
                None,
                "Either every_secs or every_steps should be provided.",
            ),
            (
                Some(1.0),
                Some(1),
                "Can not provide both every_secs and every_steps.",
            ),
        ] {
            let e = SecondOrStepTimer::new(secs, steps).unwrap_err();
            assert!(e.is_invalid_argument());
            assert_eq!(e.message(), msg);
        }
    }
}
