//! `tf.train.GlobalStepWaiterHook`: holds a worker's first run back until the global step
//! reaches a value, so that workers start one after another.

use std::time::Duration;

use weir_graph::{Error, Graph, Output, Result};
use weir_session::SessionHandle;

use super::basic_hooks::{global_step_read, read_step};
use super::hook::{SessionRunArgs, SessionRunContext, SessionRunHook};
use crate::Coordinator;

/// How often the global step is read while waiting (TensorFlow's 0.5 s).
const POLL: Duration = Duration::from_millis(500);

/// `tf.compat.v1.train.GlobalStepWaiterHook(wait_until_step)`: before the first run, waits
/// until the global step is at least `wait_until_step` (another thread or task trains it);
/// at most 0 starts at once. The wait reads the step every 0.5 s and ends with Cancelled when
/// the session's coordinator is asked to stop or the session is closed.
///
/// ```
/// use weir_graph::{Graph, Tensor};
/// use weir_ops::array::constant;
/// use weir_session::RunArgs;
/// use weir_train::{get_or_create_global_step, GlobalStepWaiterHook, MonitoredTrainingSession};
///
/// let g = Graph::new();
/// let step = get_or_create_global_step(&g)?;
/// let train = step.assign_add(constant(&g, Tensor::scalar(1i64))?)?;
/// let mut sess = MonitoredTrainingSession::new(&g)
///     .hook(GlobalStepWaiterHook::new(0)) // nothing to wait for
///     .build()?;
/// sess.run(&RunArgs::new().fetch(&train))?;
/// sess.close()?;
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct GlobalStepWaiterHook {
    wait_until_step: i64,
    global_step: Option<Output>,
    coord: Option<Coordinator>,
    started: bool,
}

impl GlobalStepWaiterHook {
    /// Waits for global step `wait_until_step` before the first run.
    pub fn new(wait_until_step: i64) -> GlobalStepWaiterHook {
        GlobalStepWaiterHook {
            wait_until_step,
            global_step: None,
            coord: None,
            started: false,
        }
    }

    fn wait(&self, session: &SessionHandle, step: &Output) -> Result<()> {
        loop {
            if read_step(session, step)? >= self.wait_until_step {
                return Ok(());
            }
            let stopped = match &self.coord {
                Some(c) => c.wait_for_stop(Some(POLL)),
                None => {
                    std::thread::sleep(POLL);
                    false
                }
            };
            if stopped || session.is_closed() {
                return Err(Error::cancelled(format!(
                    "GlobalStepWaiterHook: the wait for global step {} was cancelled",
                    self.wait_until_step
                )));
            }
        }
    }
}

impl SessionRunHook for GlobalStepWaiterHook {
    fn begin(&mut self, graph: &Graph) -> Result<()> {
        self.global_step = Some(global_step_read(graph, "_GlobalStepWaiterHook")?);
        Ok(())
    }

    fn after_create_session(&mut self, _: &SessionHandle, coord: &Coordinator) -> Result<()> {
        self.coord = Some(coord.clone());
        Ok(())
    }

    fn before_run(&mut self, context: &mut SessionRunContext<'_>) -> Result<SessionRunArgs> {
        if !self.started && self.wait_until_step > 0 {
            let step = self.global_step.clone().ok_or_else(|| {
                Error::failed_precondition("GlobalStepWaiterHook was used before its begin() ran")
            })?;
            self.wait(context.session(), &step)?;
        }
        self.started = true;
        Ok(SessionRunArgs::new())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use weir_graph::{Code, Tensor};
    use weir_ops::array::constant;
    use weir_session::RunArgs;

    use super::*;
    use crate::{get_or_create_global_step, MonitoredTrainingSession};

    #[test]
    fn without_a_global_step_it_is_tensorflows_runtime_error() {
        let g = Graph::new();
        constant(&g, 1.0f32).unwrap();
        let e = MonitoredTrainingSession::new(&g)
            .hook(GlobalStepWaiterHook::new(5))
            .build()
            .err()
            .unwrap();
        assert_eq!(e.code(), Code::Unknown);
        assert_eq!(
            e.message(),
            "Global step should be created to use _GlobalStepWaiterHook."
        );
    }

    #[test]
    fn the_first_run_waits_for_the_step_and_a_stop_cancels_the_wait() {
        let g = Graph::new();
        let step = get_or_create_global_step(&g).unwrap();
        let bump = step
            .assign_add(constant(&g, Tensor::scalar(1i64)).unwrap())
            .unwrap();
        let mut sess = MonitoredTrainingSession::new(&g)
            .hook(GlobalStepWaiterHook::new(3))
            .build()
            .unwrap();
        // Another thread advances the step on the same session.
        let raw = sess.raw_session().clone();
        let bumper = std::thread::spawn(move || {
            for _ in 0..3 {
                raw.run(&RunArgs::new().fetch(&bump)).unwrap();
            }
        });
        let read = RunArgs::new().fetch(step.value());
        let out = sess.run(&read).unwrap();
        bumper.join().unwrap();
        assert!(out[0].to_scalar::<i64>().unwrap() >= 3);
        sess.close().unwrap();

        let g = Graph::new();
        let step = get_or_create_global_step(&g).unwrap();
        let mut sess = MonitoredTrainingSession::new(&g)
            .hook(GlobalStepWaiterHook::new(1_000))
            .build()
            .unwrap();
        let coord = sess.coordinator().clone();
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            coord.request_stop(None).unwrap();
        });
        let t0 = Instant::now();
        let e = sess.run(&RunArgs::new().fetch(step.value())).unwrap_err();
        stopper.join().unwrap();
        assert_eq!(e.code(), Code::Cancelled);
        assert!(t0.elapsed() < Duration::from_secs(30));
    }
}
