//! The stock hooks of `tf.train` that work on tensors: `LoggingTensorHook`, `NanTensorHook`,
//! `FeedFnHook` and `FinalOpsHook`.

use std::sync::Arc;

use weir_graph::{Code, DType, Error, Graph, Output, Result, Tensor};
use weir_session::{RunArgs, SessionHandle};

use super::hook::{
    SecondOrStepTimer, SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues,
};

/// Where [`LoggingTensorHook`] writes its lines.
type LogSink = Box<dyn FnMut(&str) + Send>;

/// `tf.train.LoggingTensorHook(tensors, every_n_iter, every_n_secs, at_end)`: logs
/// `name = value, ...` every N runs or seconds, and at the end if asked; lines go to stderr
/// (TensorFlow's INFO log) unless [`sink`](Self::sink) says otherwise.
pub struct LoggingTensorHook {
    tensors: Vec<(String, Output)>,
    timer: Option<SecondOrStepTimer>,
    at_end: bool,
    iter: i64,
    triggered: bool,
    sink: LogSink,
}

impl LoggingTensorHook {
    /// Logs `tensors` (tagged with their names) every `every_n_iter` runs or `every_n_secs`
    /// seconds (exactly one), and/or once at the end; InvalidArgument otherwise, in
    /// TensorFlow's words.
    pub fn new(
        tensors: &[Output],
        every_n_iter: Option<i64>,
        every_n_secs: Option<f64>,
        at_end: bool,
    ) -> Result<LoggingTensorHook> {
        let only_at_end = at_end && every_n_iter.is_none() && every_n_secs.is_none();
        if !only_at_end && every_n_iter.is_none() == every_n_secs.is_none() {
            return Err(Error::invalid_argument(
                "either at_end and/or exactly one of every_n_iter and every_n_secs must be provided.",
            ));
        }
        if let Some(n) = every_n_iter.filter(|&n| n <= 0) {
            return Err(Error::invalid_argument(format!(
                "invalid every_n_iter={n}."
            )));
        }
        let timer = if only_at_end {
            None
        } else {
            Some(SecondOrStepTimer::new(every_n_secs, every_n_iter)?)
        };
        Ok(LoggingTensorHook {
            tensors: tensors.iter().map(|t| (t.name(), t.clone())).collect(),
            timer,
            at_end,
            iter: 0,
            triggered: false,
            sink: Box::new(|line| eprintln!("{line}")),
        })
    }

    /// Sends each line to `sink` instead of stderr.
    pub fn sink(mut self, sink: impl FnMut(&str) + Send + 'static) -> Self {
        self.sink = Box::new(sink);
        self
    }

    fn log(&mut self, values: &[Tensor], elapsed: Option<f64>) {
        let mut line = self
            .tensors
            .iter()
            .zip(values)
            .map(|((tag, _), v)| format!("{tag} = {v}"))
            .collect::<Vec<_>>()
            .join(", ");
        if let Some(secs) = elapsed {
            line.push_str(&format!(" ({secs:.3} sec)"));
        }
        (self.sink)(&line);
    }
}

impl SessionRunHook for LoggingTensorHook {
    fn begin(&mut self, _: &Graph) -> Result<()> {
        self.iter = 0;
        Ok(())
    }

    fn before_run(&mut self, _: &mut SessionRunContext<'_>) -> Result<SessionRunArgs> {
        self.triggered = self
            .timer
            .as_ref()
            .is_some_and(|t| t.should_trigger_for_step(self.iter));
        let mut args = SessionRunArgs::new();
        if self.triggered {
            for (_, t) in &self.tensors {
                args = args.fetch(t);
            }
        }
        Ok(args)
    }

    fn after_run(
        &mut self,
        _: &mut SessionRunContext<'_>,
        values: &SessionRunValues,
    ) -> Result<()> {
        if self.triggered {
            let elapsed = self
                .timer
                .as_mut()
                .and_then(|t| t.update_last_triggered_step(self.iter))
                .map(|(secs, _)| secs);
            self.log(&values.results, elapsed);
        }
        self.iter += 1;
        Ok(())
    }

    fn end(&mut self, session: &SessionHandle) -> Result<()> {
        if self.at_end {
            let mut args = RunArgs::new();
            for (_, t) in &self.tensors {
                args = args.fetch(t);
            }
            let values = session.run(&args)?;
            self.log(&values, None);
        }
        Ok(())
    }
}

/// `tf.train.NanTensorHook(loss_tensor, fail_on_nan_loss=True)`: checks the loss after every
/// run; a NaN fails the run (Unknown "NaN loss during training.", TensorFlow's
/// `NanLossDuringTrainingError`) or, with `fail_on_nan_loss` false, requests a stop.
pub struct NanTensorHook {
    loss: Output,
    fail: bool,
}

impl NanTensorHook {
    /// Watches `loss` (a float scalar).
    pub fn new(loss: &Output, fail_on_nan_loss: bool) -> NanTensorHook {
        NanTensorHook {
            loss: loss.clone(),
            fail: fail_on_nan_loss,
        }
    }
}

impl SessionRunHook for NanTensorHook {
    fn before_run(&mut self, _: &mut SessionRunContext<'_>) -> Result<SessionRunArgs> {
        Ok(SessionRunArgs::new().fetch(&self.loss))
    }

    fn after_run(
        &mut self,
        context: &mut SessionRunContext<'_>,
        values: &SessionRunValues,
    ) -> Result<()> {
        let t = &values.results[0];
        let loss = match t.dtype() {
            DType::F64 => t.to_scalar::<f64>()?,
            _ => f64::from(t.to_scalar::<f32>()?),
        };
        if loss.is_nan() {
            // TensorFlow logs this line either way (an error, or a warning when it stops).
            eprintln!("Model diverged with loss = NaN.");
            if self.fail {
                return Err(Error::new(Code::Unknown, "NaN loss during training."));
            }
            context.request_stop();
        }
        Ok(())
    }
}

/// `tf.train.FeedFnHook(feed_fn)`: feeds what `feed_fn` returns on every run.
pub struct FeedFnHook {
    feed_fn: Box<dyn FnMut() -> Vec<(Output, Tensor)> + Send>,
}

impl FeedFnHook {
    /// Calls `feed_fn` before each run for its (tensor, value) feeds.
    pub fn new(feed_fn: impl FnMut() -> Vec<(Output, Tensor)> + Send + 'static) -> FeedFnHook {
        FeedFnHook {
            feed_fn: Box::new(feed_fn),
        }
    }
}

impl SessionRunHook for FeedFnHook {
    fn before_run(&mut self, _: &mut SessionRunContext<'_>) -> Result<SessionRunArgs> {
        Ok((self.feed_fn)()
            .into_iter()
            .fold(SessionRunArgs::new(), |a, (t, v)| a.feed(t, v)))
    }
}

/// `tf.train.FinalOpsHook(final_ops)`: evaluates tensors when the session ends cleanly (the
/// values of streaming metrics, say); read them with [`final_ops_values`](Self::final_ops_values).
pub struct FinalOpsHook {
    ops: Vec<Output>,
    values: Arc<parking_lot::Mutex<Option<Vec<Tensor>>>>,
}

impl FinalOpsHook {
    /// Evaluates `final_ops` in `end`.
    pub fn new(final_ops: &[Output]) -> FinalOpsHook {
        FinalOpsHook {
            ops: final_ops.to_vec(),
            values: Arc::default(),
        }
    }

    /// A handle on the values, filled once the monitored session closes (the hook itself has
    /// moved into the session by then).
    pub fn final_ops_values(&self) -> Arc<parking_lot::Mutex<Option<Vec<Tensor>>>> {
        self.values.clone()
    }
}

impl SessionRunHook for FinalOpsHook {
    fn end(&mut self, session: &SessionHandle) -> Result<()> {
        let args = self.ops.iter().fold(RunArgs::new(), |a, t| a.fetch(t));
        *self.values.lock() = Some(session.run(&args)?);
        Ok(())
    }
}
