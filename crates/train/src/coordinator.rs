//! `Coordinator`: stops a set of threads together and reports the first error that stopped
//! them (TensorFlow's `tf.train.Coordinator`).

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use weir_graph::{Code, Error, Result};

enum ThreadState {
    Pending(Box<dyn FnOnce() + Send + 'static>),
    Running(JoinHandle<()>),
    Joined,
    Starting,
}

struct ThreadInner {
    name: String,
    state: Mutex<ThreadState>,
}

/// A named thread that a [`Coordinator`] can watch: Python's `threading.Thread` as the
/// coordinator and queue runners use it. Created running ([`spawn`](Self::spawn)) or pending
/// ([`pending`](Self::pending), started by [`start`](Self::start)). Clones share the thread.
#[derive(Clone)]
pub struct CoordThread(Arc<ThreadInner>);

impl std::fmt::Debug for CoordThread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "CoordThread({}, alive: {})",
            self.0.name,
            self.is_alive()
        )
    }
}

impl CoordThread {
    /// A thread named `name` running `f`.
    pub fn spawn(name: &str, f: impl FnOnce() + Send + 'static) -> Result<CoordThread> {
        let t = CoordThread::pending(name, f);
        t.start()?;
        Ok(t)
    }

    /// A thread named `name` that will run `f` once started.
    pub fn pending(name: &str, f: impl FnOnce() + Send + 'static) -> CoordThread {
        CoordThread(Arc::new(ThreadInner {
            name: name.to_string(),
            state: Mutex::new(ThreadState::Pending(Box::new(f))),
        }))
    }

    /// Starts a pending thread; a no-op if it was already started.
    pub fn start(&self) -> Result<()> {
        let mut st = self.0.state.lock();
        let ThreadState::Pending(_) = &*st else {
            return Ok(());
        };
        let ThreadState::Pending(f) = std::mem::replace(&mut *st, ThreadState::Starting) else {
            unreachable!("checked above")
        };
        let handle = std::thread::Builder::new()
            .name(self.0.name.clone())
            .spawn(f)
            .map_err(|e| {
                Error::resource_exhausted(format!("Cannot start thread {}: {e}", self.0.name))
            })?;
        *st = ThreadState::Running(handle);
        Ok(())
    }

    /// The thread's name.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// Whether the thread has started and not finished (Python's `is_alive`).
    pub fn is_alive(&self) -> bool {
        matches!(&*self.0.state.lock(), ThreadState::Running(h) if !h.is_finished())
    }

    /// Waits for a started thread to end (at most `timeout`); returns whether it has ended.
    /// A thread that panicked gives Internal naming it.
    pub fn join(&self, timeout: Option<Duration>) -> Result<bool> {
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut sleep = Duration::from_millis(1);
        loop {
            {
                let mut st = self.0.state.lock();
                match &*st {
                    ThreadState::Running(h) if h.is_finished() => {
                        let ThreadState::Running(h) =
                            std::mem::replace(&mut *st, ThreadState::Joined)
                        else {
                            unreachable!("matched above")
                        };
                        return h.join().map(|_| true).map_err(|_| {
                            Error::internal(format!("Thread {} panicked", self.0.name))
                        });
                    }
                    ThreadState::Running(_) => {}
                    ThreadState::Joined | ThreadState::Pending(_) => return Ok(true),
                    ThreadState::Starting => {}
                }
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Ok(false);
            }
            let nap = match deadline {
                Some(d) => sleep.min(d.saturating_duration_since(Instant::now())),
                None => sleep,
            };
            std::thread::sleep(nap);
            sleep = (sleep * 2).min(Duration::from_millis(20));
        }
    }
}

#[derive(Default)]
struct State {
    stop: bool,
    joined: bool,
    error: Option<Error>,
    registered: Vec<CoordThread>,
}

struct Inner {
    clean_stop: Vec<Code>,
    state: Mutex<State>,
    cv: Condvar,
}

/// TensorFlow's `tf.train.Coordinator`: threads check [`should_stop`](Self::should_stop),
/// any of them can [`request_stop`](Self::request_stop) (with the error that ended it), and
/// [`join`](Self::join) waits for all of them and re-raises the first error. Clones share one
/// coordinator.
///
/// ```
/// use weir_train::{Coordinator, CoordThread};
/// use std::time::Duration;
///
/// let coord = Coordinator::new();
/// let c = coord.clone();
/// let worker = CoordThread::spawn("worker", move || {
///     while !c.should_stop() {
///         c.stop_on_error(|| Err(weir_graph::Error::invalid_argument("bad record")));
///     }
/// })?;
/// let e = coord.join(&[worker], Duration::from_secs(10)).unwrap_err();
/// assert_eq!(e.message(), "bad record");
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone)]
pub struct Coordinator(Arc<Inner>);

impl Default for Coordinator {
    fn default() -> Self {
        Coordinator::new()
    }
}

impl Coordinator {
    /// A coordinator whose clean-stop error kind is OutOfRange (TensorFlow's default): an
    /// OutOfRange passed to `request_stop` stops without being reported.
    pub fn new() -> Coordinator {
        Coordinator::with_clean_stop_exception_types(&[Code::OutOfRange])
    }

    /// `Coordinator(clean_stop_exception_types)`: the error kinds that stop cleanly.
    pub fn with_clean_stop_exception_types(codes: &[Code]) -> Coordinator {
        Coordinator(Arc::new(Inner {
            clean_stop: codes.to_vec(),
            state: Mutex::new(State::default()),
            cv: Condvar::new(),
        }))
    }

    /// Whether a stop was requested.
    pub fn should_stop(&self) -> bool {
        self.0.state.lock().stop
    }

    /// Requests a stop. Only the first error reported before the stop is recorded (clean-stop
    /// kinds are not recorded). After `join` has completed, an error is returned back at once
    /// (TensorFlow re-raises it); without one this is a no-op.
    pub fn request_stop(&self, error: Option<Error>) -> Result<()> {
        let error = error.filter(|e| !self.0.clean_stop.contains(&e.code()));
        let mut st = self.0.state.lock();
        if st.joined {
            return match error {
                Some(e) => Err(e),
                None => Ok(()),
            };
        }
        if !st.stop {
            if st.error.is_none() {
                st.error = error;
            }
            st.stop = true;
            self.0.cv.notify_all();
        }
        Ok(())
    }

    /// Resets the stop flag, the joined flag and the recorded error, so the coordinator can be
    /// used again.
    pub fn clear_stop(&self) {
        let mut st = self.0.state.lock();
        st.stop = false;
        st.joined = false;
        st.error = None;
    }

    /// Waits until a stop is requested or `timeout` passes (forever with `None`); returns
    /// whether a stop was requested.
    pub fn wait_for_stop(&self, timeout: Option<Duration>) -> bool {
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut st = self.0.state.lock();
        while !st.stop {
            match deadline {
                Some(d) => {
                    if self.0.cv.wait_until(&mut st, d).timed_out() {
                        return st.stop;
                    }
                }
                None => self.0.cv.wait(&mut st),
            }
        }
        true
    }

    /// Runs `body`; an error it returns (or a panic) becomes `request_stop(error)` and is
    /// swallowed (TensorFlow's `with coord.stop_on_exception():`). A clean return does not stop.
    pub fn stop_on_error(&self, body: impl FnOnce() -> Result<()>) {
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(body));
        let error = match outcome {
            Ok(Ok(())) => return,
            Ok(Err(e)) => e,
            Err(p) => {
                let what = p
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic".to_string());
                Error::internal(format!("Thread panicked: {what}"))
            }
        };
        // After join the error has nowhere to go; TensorFlow would raise it in the thread.
        let _ = self.request_stop(Some(error));
    }

    /// Adds a thread for [`join`](Self::join) to wait for.
    pub fn register_thread(&self, thread: &CoordThread) {
        self.0.state.lock().registered.push(thread.clone());
    }

    /// Whether `join` has completed.
    pub fn joined(&self) -> bool {
        self.0.state.lock().joined
    }

    /// The recorded error, if any, as `Err` (`raise_requested_exception`).
    pub fn raise_requested_exception(&self) -> Result<()> {
        match &self.0.state.lock().error {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// `join(threads, stop_grace_period_secs)`: waits for the registered threads and
    /// `threads` until a stop is requested and they end, giving stragglers
    /// `stop_grace_period` after the stop. Returns the recorded error first; otherwise
    /// Unknown `"Coordinator stopped with threads still running: <names>"` (TensorFlow raises a
    /// RuntimeError) if some did not end.
    pub fn join(&self, threads: &[CoordThread], stop_grace_period: Duration) -> Result<()> {
        self.join_with(threads, stop_grace_period, false)
    }

    /// `join` with `ignore_live_threads`: stragglers are only logged (to stderr), not an error.
    pub fn join_with(
        &self,
        threads: &[CoordThread],
        stop_grace_period: Duration,
        ignore_live_threads: bool,
    ) -> Result<()> {
        let mut all: Vec<CoordThread> = self.0.state.lock().registered.clone();
        for t in threads {
            if !all.iter().any(|a| Arc::ptr_eq(&a.0, &t.0)) {
                all.push(t.clone());
            }
        }
        // Until a stop is requested, wait for the threads to end by themselves.
        while all.iter().any(CoordThread::is_alive)
            && !self.wait_for_stop(Some(Duration::from_millis(10)))
        {}
        let deadline = Instant::now() + stop_grace_period;
        let mut nap = Duration::from_millis(1);
        while all.iter().any(CoordThread::is_alive) && Instant::now() < deadline {
            std::thread::sleep(nap.min(deadline.saturating_duration_since(Instant::now())));
            nap = (nap * 2).min(Duration::from_millis(100));
        }
        let stragglers: Vec<String> = all
            .iter()
            .filter(|t| t.is_alive())
            .map(|t| t.name().to_string())
            .collect();
        let mut panicked = None;
        for t in all.iter().filter(|t| !t.is_alive()) {
            if let Err(e) = t.join(Some(Duration::ZERO)) {
                panicked.get_or_insert(e);
            }
        }
        let error = {
            let mut st = self.0.state.lock();
            st.joined = true;
            st.registered.clear();
            st.error.clone()
        };
        if let Some(e) = error.or(panicked) {
            return Err(e);
        }
        if !stragglers.is_empty() {
            let msg = format!(
                "Coordinator stopped with threads still running: {}",
                stragglers.join(" ")
            );
            if ignore_live_threads {
                eprintln!("{msg}");
            } else {
                return Err(Error::unknown(msg));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_error_wins_and_clean_stop_is_not_recorded() {
        let c = Coordinator::new();
        c.request_stop(Some(Error::out_of_range("done"))).unwrap();
        assert!(c.should_stop());
        assert!(c.raise_requested_exception().is_ok());
        c.clear_stop();
        assert!(!c.should_stop());
        c.request_stop(Some(Error::invalid_argument("first")))
            .unwrap();
        c.request_stop(Some(Error::not_found("second"))).unwrap();
        let e = c.join(&[], Duration::from_secs(1)).unwrap_err();
        assert_eq!(e.message(), "first");
        assert!(c.joined());
        // After join, an error comes straight back; a plain stop is a no-op.
        assert_eq!(
            c.request_stop(Some(Error::internal("late")))
                .unwrap_err()
                .message(),
            "late"
        );
        c.request_stop(None).unwrap();
    }

    #[test]
    fn custom_clean_stop_types_record_out_of_range() {
        let c = Coordinator::with_clean_stop_exception_types(&[Code::Cancelled]);
        c.request_stop(Some(Error::out_of_range("eof"))).unwrap();
        assert!(c
            .join(&[], Duration::from_secs(1))
            .unwrap_err()
            .is_out_of_range());
    }

    #[test]
    fn wait_for_stop_times_out() {
        let c = Coordinator::new();
        let t0 = Instant::now();
        assert!(!c.wait_for_stop(Some(Duration::from_millis(30))));
        assert!(t0.elapsed() >= Duration::from_millis(30));
        let c2 = c.clone();
        let h = std::thread::spawn(move || c2.wait_for_stop(Some(Duration::from_secs(10))));
        std::thread::sleep(Duration::from_millis(20));
        c.request_stop(None).unwrap();
        assert!(h.join().unwrap());
    }

    #[test]
    fn join_reports_stragglers() {
        let c = Coordinator::new();
        let stuck =
            CoordThread::spawn("stuck", || std::thread::sleep(Duration::from_millis(600))).unwrap();
        c.register_thread(&stuck);
        c.request_stop(None).unwrap();
        let t0 = Instant::now();
        let e = c.join(&[], Duration::from_millis(100)).unwrap_err();
        assert!(t0.elapsed() < Duration::from_millis(500));
        assert_eq!(
            e.message(),
            "Coordinator stopped with threads still running: stuck"
        );
        assert!(stuck.join(Some(Duration::from_secs(5))).unwrap());
    }

    #[test]
    fn stop_on_error_swallows_and_records() {
        let c = Coordinator::new();
        c.stop_on_error(|| Ok(()));
        assert!(!c.should_stop());
        c.stop_on_error(|| Err(Error::data_loss("bad crc")));
        assert!(c.should_stop());
        assert!(c.raise_requested_exception().unwrap_err().is_data_loss());
        let p = Coordinator::new();
        p.stop_on_error(|| panic!("boom"));
        assert!(p
            .raise_requested_exception()
            .unwrap_err()
            .message()
            .contains("boom"));
    }

    #[test]
    fn join_waits_for_threads_that_end_without_a_stop() {
        let c = Coordinator::new();
        let t =
            CoordThread::spawn("quick", || std::thread::sleep(Duration::from_millis(20))).unwrap();
        c.join(std::slice::from_ref(&t), Duration::from_secs(1))
            .unwrap();
        assert!(!t.is_alive());
        let pending = CoordThread::pending("later", || {});
        assert!(!pending.is_alive());
    }
}
