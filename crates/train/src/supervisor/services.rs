//! The Supervisor's standard services: threads that write summaries, count steps per second
//! and save checkpoints on timers while training runs (TensorFlow's `SVSummaryThread`,
//! `SVStepCounterThread` and `SVTimerCheckpointThread`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use weir_graph::Output;
use weir_session::{RunArgs, SessionHandle};

use crate::global_step::{read_step, step_of};
use crate::summary::SessionStatus;
use crate::{CoordThread, Coordinator, FileWriter, LooperThread, Saver};

/// Seconds as a timer interval; `None` for a non-positive or unrepresentable number.
pub(crate) fn interval(secs: f64) -> Option<Duration> {
    (secs > 0.0)
        .then(|| Duration::try_from_secs_f64(secs).ok())
        .flatten()
}

/// `SVSummaryThread`: every `every`, runs the summary op (with the global step) and writes
/// the summary at that step.
pub(crate) fn summary_thread(
    coord: &Coordinator,
    every: Duration,
    sess: &SessionHandle,
    summary_op: &Output,
    global_step: Option<&Output>,
    writer: &Arc<FileWriter>,
) -> CoordThread {
    let (sess, op, step, writer) = (
        sess.clone(),
        summary_op.clone(),
        global_step.cloned(),
        writer.clone(),
    );
    LooperThread::pending(coord, Some(every), move || {
        let mut args = RunArgs::new().fetch(&op);
        if let Some(s) = &step {
            args = args.fetch(s);
        }
        let out = sess.run(&args)?;
        let at = match &step {
            Some(_) => step_of(&out[1])?,
            None => 0,
        };
        writer.add_summary(&out[0], at)
    })
}

/// `SVStepCounterThread`: every `every`, writes the global steps per second since the last
/// time under the tag `<global step op>/sec` (`global_step/sec`).
pub(crate) fn step_counter_thread(
    coord: &Coordinator,
    every: Duration,
    sess: &SessionHandle,
    global_step: &Output,
    writer: &Arc<FileWriter>,
) -> CoordThread {
    let (sess, step, writer) = (sess.clone(), global_step.clone(), writer.clone());
    // TensorFlow's tag is the global step variable's name: `global_step/sec`. weir's step
    // tensor is the variable's read, `global_step/read`.
    let op = step.op().name();
    let tag = format!("{}/sec", op.strip_suffix("/read").unwrap_or(&op));
    // TensorFlow's start_loop: the first reading is taken when the thread starts, just before
    // the first run_loop.
    let mut last: Option<(Instant, i64)> = None;
    LooperThread::pending(coord, Some(every), move || {
        let (last_time, last_step) = match last {
            Some(l) => l,
            None => (Instant::now(), read_step(&sess, &step)?),
        };
        let current = read_step(&sess, &step)?;
        let now = Instant::now();
        let elapsed = now.duration_since(last_time).as_secs_f64();
        let rate = if elapsed > 0.0 {
            (current - last_step) as f64 / elapsed
        } else {
            f64::INFINITY
        };
        last = Some((now, current));
        writer.add_scalar(&tag, rate as f32, current)
    })
}

/// `SVTimerCheckpointThread`: every `every`, saves a checkpoint at `save_path-<global step>`
/// and records it in the event file.
pub(crate) fn checkpoint_thread(
    coord: &Coordinator,
    every: Duration,
    sess: &SessionHandle,
    saver: &Arc<Saver>,
    save_path: &str,
    global_step: Option<&Output>,
    writer: Option<&Arc<FileWriter>>,
) -> CoordThread {
    let (sess, saver, path, step, writer) = (
        sess.clone(),
        saver.clone(),
        save_path.to_string(),
        global_step.cloned(),
        writer.cloned(),
    );
    LooperThread::pending(coord, Some(every), move || {
        let at = step.as_ref().map(|s| read_step(&sess, s)).transpose()?;
        saver.save(&sess, &path, at)?;
        if let (Some(w), Some(s)) = (&writer, &step) {
            w.add_session_log(SessionStatus::Checkpoint, &path, read_step(&sess, s)?)?;
        }
        Ok(())
    })
}
