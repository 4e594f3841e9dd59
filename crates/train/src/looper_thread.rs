//! `LooperThread`: a coordinated thread that runs a function over and over, back to back or on
//! a timer (TensorFlow's `tf.train.LooperThread`), e.g. to write summaries every few seconds
//! while training runs.

use std::time::{Duration, Instant};

use weir_graph::Result;

use crate::coordinator::{CoordThread, Coordinator};

/// `tf.train.LooperThread(coord, timer_interval_secs, target)`: a thread, registered with
/// `coord` (so its `join` waits for it), that calls `target` until a stop is requested: back to
/// back when `timer_interval` is `None`, otherwise once at start and then once per interval,
/// on a fixed schedule. An error or panic from `target` stops the coordinator with it (as
/// `coord.stop_on_exception()` does).
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::sync::Arc;
/// use std::time::Duration;
/// use weir_train::{Coordinator, LooperThread};
///
/// let coord = Coordinator::new();
/// let calls = Arc::new(AtomicUsize::new(0));
/// let c = calls.clone();
/// let t = LooperThread::spawn(&coord, Some(Duration::from_millis(5)), move || {
///     c.fetch_add(1, Ordering::SeqCst);
///     Ok(())
/// })?;
/// while calls.load(Ordering::SeqCst) < 2 {
///     std::thread::sleep(Duration::from_millis(1));
/// }
/// coord.request_stop(None)?;
/// coord.join(&[t], Duration::from_secs(10))?;
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct LooperThread;

impl LooperThread {
    /// The thread, registered with `coord` and not started yet (`LooperThread(...)`); start it
    /// with [`CoordThread::start`].
    pub fn pending(
        coord: &Coordinator,
        timer_interval: Option<Duration>,
        mut target: impl FnMut() -> Result<()> + Send + 'static,
    ) -> CoordThread {
        let c = coord.clone();
        let t = CoordThread::pending("LooperThread", move || {
            c.stop_on_error(|| {
                match timer_interval {
                    None => {
                        while !c.should_stop() {
                            target()?;
                        }
                    }
                    Some(every) => {
                        let mut next = Instant::now();
                        while !c.wait_for_stop(Some(next.saturating_duration_since(Instant::now())))
                        {
                            next += every;
                            target()?;
                        }
                    }
                }
                Ok(())
            })
        });
        coord.register_thread(&t);
        t
    }

    /// `LooperThread.loop(coord, timer_interval_secs, target)`: the thread, registered and
    /// started.
    pub fn spawn(
        coord: &Coordinator,
        timer_interval: Option<Duration>,
        target: impl FnMut() -> Result<()> + Send + 'static,
    ) -> Result<CoordThread> {
        let t = LooperThread::pending(coord, timer_interval, target);
        t.start()?;
        Ok(t)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use weir_graph::{Code, Error};

    use super::*;

    /// Waits (at most 10 s) until `calls` reaches `n`.
    fn wait_for(calls: &AtomicUsize, n: usize) {
        let until = Instant::now() + Duration::from_secs(10);
        while calls.load(Ordering::SeqCst) < n {
            assert!(
                Instant::now() < until,
                "only {} calls",
                calls.load(Ordering::SeqCst)
            );
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn loops_back_to_back_and_on_a_timer_until_the_stop() {
        for interval in [None, Some(Duration::from_millis(2))] {
            let coord = Coordinator::new();
            let calls = Arc::new(AtomicUsize::new(0));
            let c = calls.clone();
            let t = LooperThread::pending(&coord, interval, move || {
                c.fetch_add(1, Ordering::SeqCst);
                Ok(())
            });
            assert_eq!(calls.load(Ordering::SeqCst), 0, "not started");
            t.start().unwrap();
            wait_for(&calls, 5);
            coord.request_stop(None).unwrap();
            // Registered: join waits for it without being given the thread.
            coord.join(&[], Duration::from_secs(10)).unwrap();
            assert!(!t.is_alive());
            let after = calls.load(Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(10));
            assert_eq!(
                calls.load(Ordering::SeqCst),
                after,
                "no call after the stop"
            );
        }
    }

    #[test]
    fn an_error_stops_the_coordinator_with_it() {
        let coord = Coordinator::new();
        let calls = Arc::new(AtomicUsize::new(0));
        let c = calls.clone();
        let t = LooperThread::spawn(&coord, None, move || {
            if c.fetch_add(1, Ordering::SeqCst) == 2 {
                return Err(Error::invalid_argument("third call"));
            }
            Ok(())
        })
        .unwrap();
        let e = coord.join(&[t], Duration::from_secs(10)).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert_eq!(e.message(), "third call");
        assert_eq!(calls.load(Ordering::SeqCst), 3);
    }
}
