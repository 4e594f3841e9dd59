//! Cancellation of blocked kernels: TensorFlow's `CancellationManager`, plus a monitor whose
//! waits honour cancellation and run deadlines.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Instant;

use parking_lot::{Condvar, Mutex, MutexGuard};

use crate::{Error, Result};

type Callback = Arc<dyn Fn() + Send + Sync>;

#[derive(Default)]
struct State {
    error: Option<Error>,
    next_id: u64,
    callbacks: Vec<(u64, Callback)>,
}

struct Inner {
    cancelled: AtomicBool,
    state: Mutex<State>,
    // Keeps this token's registration on its parent alive.
    parent: Mutex<Option<CancelRegistration>>,
}

/// A cancellation signal that blocked kernels watch: a session's close, or a failed step.
///
/// Kernels that wait register a callback that wakes them; [`cancel`](Self::cancel) runs every
/// callback once. Clones share the same signal.
#[derive(Clone)]
pub struct CancellationToken(Arc<Inner>);

/// Keeps a callback registered on a [`CancellationToken`]; dropping it deregisters the callback.
pub struct CancelRegistration {
    token: Weak<Inner>,
    id: u64,
}

impl Drop for CancelRegistration {
    fn drop(&mut self) {
        if let Some(inner) = self.token.upgrade() {
            let removed = {
                let mut st = inner.state.lock();
                let at = st.callbacks.iter().position(|(id, _)| *id == self.id);
                at.map(|i| st.callbacks.remove(i))
            };
            // Dropped after the lock: a callback may own the last handle of a token whose
            // own registration is on this one (a child), and that drop takes this lock.
            drop(removed);
        }
    }
}

impl Default for CancellationToken {
    fn default() -> Self {
        CancellationToken::new()
    }
}

impl CancellationToken {
    /// A token that is not cancelled.
    pub fn new() -> CancellationToken {
        CancellationToken(Arc::new(Inner {
            cancelled: AtomicBool::new(false),
            state: Mutex::new(State::default()),
            parent: Mutex::new(None),
        }))
    }

    /// A token cancelled when this one is (with this one's error), or on its own.
    pub fn child(&self) -> CancellationToken {
        let child = CancellationToken::new();
        let weak = Arc::downgrade(&child.0);
        let parent = self.clone();
        match self.register(move || {
            if let Some(inner) = weak.upgrade() {
                let err = parent
                    .error()
                    .unwrap_or_else(|| Error::cancelled("Cancelled"));
                CancellationToken(inner).cancel(err);
            }
        }) {
            Some(reg) => *child.0.parent.lock() = Some(reg),
            None => child.cancel(
                self.error()
                    .unwrap_or_else(|| Error::cancelled("Cancelled")),
            ),
        }
        child
    }

    /// Cancels: records `error` (the first one wins) and runs every registered callback once.
    pub fn cancel(&self, error: Error) {
        let callbacks = {
            let mut st = self.0.state.lock();
            if self.0.cancelled.load(Ordering::Acquire) {
                return;
            }
            st.error = Some(error);
            self.0.cancelled.store(true, Ordering::Release);
            std::mem::take(&mut st.callbacks)
        };
        // Outside the lock: callbacks take their own locks and may deregister.
        for (_, cb) in callbacks {
            cb();
        }
    }

    /// Whether [`cancel`](Self::cancel) has been called.
    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::Acquire)
    }

    /// The error given to [`cancel`](Self::cancel), if cancelled.
    pub fn error(&self) -> Option<Error> {
        self.0.state.lock().error.clone()
    }

    /// Registers `f` to run on cancellation; `None` (and `f` is not kept) if already cancelled.
    pub fn register(&self, f: impl Fn() + Send + Sync + 'static) -> Option<CancelRegistration> {
        let mut st = self.0.state.lock();
        if self.0.cancelled.load(Ordering::Acquire) {
            return None;
        }
        let id = st.next_id;
        st.next_id += 1;
        st.callbacks.push((id, Arc::new(f)));
        Some(CancelRegistration {
            token: Arc::downgrade(&self.0),
            id,
        })
    }
}

/// The error a wait returns when its run's deadline passes, in TensorFlow's words.
pub fn deadline_exceeded() -> Error {
    Error::deadline_exceeded("Timed out waiting for notification")
}

/// A mutex-protected state with a condition variable whose waits end on cancellation or at a
/// deadline: the building block of blocking kernels (queues, readers waiting for work).
pub struct Monitor<S> {
    state: Mutex<S>,
    cv: Condvar,
}

impl<S: Send + 'static> Monitor<S> {
    /// A monitor around `state`.
    pub fn new(state: S) -> Arc<Monitor<S>> {
        Arc::new(Monitor {
            state: Mutex::new(state),
            cv: Condvar::new(),
        })
    }

    /// Locks the state.
    pub fn lock(&self) -> MutexGuard<'_, S> {
        self.state.lock()
    }

    /// Wakes every waiter so it re-checks its condition.
    pub fn notify_all(&self) {
        self.cv.notify_all();
    }

    /// Waits while `blocked(state)` holds. Returns `Ok` once it does not, Cancelled (with the
    /// token's error) if `cancel` fires, DeadlineExceeded if `deadline` passes first.
    pub fn wait_while(
        self: &Arc<Self>,
        guard: &mut MutexGuard<'_, S>,
        cancel: &CancellationToken,
        deadline: Option<Instant>,
        mut blocked: impl FnMut(&mut S) -> bool,
    ) -> Result<()> {
        if !blocked(guard) {
            return Ok(());
        }
        let me = Arc::clone(self);
        // Taking the lock before notifying means the wake-up cannot fall between our check of
        // the token and our wait.
        let _reg = cancel.register(move || {
            let _g = me.state.lock();
            me.cv.notify_all();
        });
        loop {
            if cancel.is_cancelled() {
                return Err(cancel
                    .error()
                    .unwrap_or_else(|| Error::cancelled("Cancelled")));
            }
            if !blocked(guard) {
                return Ok(());
            }
            match deadline {
                Some(d) => {
                    if self.cv.wait_until(guard, d).timed_out() && blocked(guard) {
                        return Err(deadline_exceeded());
                    }
                }
                None => self.cv.wait(guard),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn callbacks_run_once_and_deregister() {
        let t = CancellationToken::new();
        let hits = Arc::new(Mutex::new(0));
        let h = hits.clone();
        let reg = t.register(move || *h.lock() += 1).unwrap();
        let h2 = hits.clone();
        let reg2 = t.register(move || *h2.lock() += 10).unwrap();
        drop(reg2);
        t.cancel(Error::cancelled("x"));
        t.cancel(Error::cancelled("y"));
        assert_eq!(*hits.lock(), 1);
        assert_eq!(t.error().unwrap().message(), "x");
        assert!(t.register(|| {}).is_none());
        drop(reg);
    }

    #[test]
    fn child_follows_parent() {
        let p = CancellationToken::new();
        let c = p.child();
        assert!(!c.is_cancelled());
        p.cancel(Error::cancelled("closed"));
        assert!(c.is_cancelled());
        assert_eq!(c.error().unwrap().message(), "closed");
        let c2 = p.child();
        assert!(c2.is_cancelled());
    }

    #[test]
    fn monitor_wait_ends_on_cancel() {
        let m = Monitor::new(0);
        let t = CancellationToken::new();
        let t2 = t.clone();
        let h = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            t2.cancel(Error::cancelled("session closed"));
        });
        let mut g = m.lock();
        let deadline = Instant::now() + Duration::from_secs(10);
        let e = m
            .wait_while(&mut g, &t, Some(deadline), |s| *s == 0)
            .unwrap_err();
        assert!(e.is_cancelled(), "{e}");
        h.join().unwrap();
    }

    #[test]
    fn monitor_wait_times_out() {
        let m = Monitor::new(0);
        let t = CancellationToken::new();
        let mut g = m.lock();
        let e = m
            .wait_while(
                &mut g,
                &t,
                Some(Instant::now() + Duration::from_millis(30)),
                |s| *s == 0,
            )
            .unwrap_err();
        assert!(e.is_deadline_exceeded());
        assert_eq!(e.message(), "Timed out waiting for notification");
    }

    #[test]
    fn monitor_wait_wakes_on_change() {
        let m = Monitor::new(0);
        let t = CancellationToken::new();
        let m2 = m.clone();
        let h = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            *m2.lock() = 1;
            m2.notify_all();
        });
        let mut g = m.lock();
        m.wait_while(
            &mut g,
            &t,
            Some(Instant::now() + Duration::from_secs(10)),
            |s| *s == 0,
        )
        .unwrap();
        assert_eq!(*g, 1);
        drop(g);
        h.join().unwrap();
    }

    #[test]
    fn dropping_a_registration_whose_callback_owns_a_child_does_not_deadlock() {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let parent = CancellationToken::new();
            // The callback holds the only handle of a child registered on the same parent.
            let child = parent.child();
            let reg = parent.register(move || child.cancel(Error::cancelled("x")));
            drop(reg);
            tx.send(()).unwrap();
        });
        rx.recv_timeout(std::time::Duration::from_secs(10))
            .expect("dropping the registration deadlocked");
    }
}
