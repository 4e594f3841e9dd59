//! Splitting one large kernel over the cores: weir's counterpart of TensorFlow's intra-op
//! thread pool (`intra_op_parallelism_threads`), used by the few kernels big enough to pay a
//! thread hand-off (large matrix products).
//!
//! Why a claim instead of a plain fork-join: a session's cores are often shared with
//! queue-runner threads, so the helper may not get a core soon. The calling thread never waits
//! for a helper that has not started: when its own part is done it takes back the unstarted
//! part and runs it itself. It waits only for a part a helper is already computing.

use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, OnceLock};

use parking_lot::{Condvar, Mutex};

/// The helper thread: one when there are two cores or more, since kernels split in two halves
/// and the calling thread computes one. `WEIR_INTRA_OP_THREADS` (threads per kernel, the caller
/// included, like TensorFlow's `intra_op_parallelism_threads`) overrides the core count; 1 turns
/// splitting off.
fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        let total = std::env::var("WEIR_INTRA_OP_THREADS")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or_else(|| {
                std::thread::available_parallelism()
                    .map(|n| n.get())
                    .unwrap_or(1)
            });
        let helpers = total.saturating_sub(1).min(1);
        if helpers == 0 {
            return None;
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(helpers)
            .thread_name(|i| format!("weir-intra-op-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// Whether a helper thread exists, so that splitting a kernel can pay off.
pub(crate) fn can_split() -> bool {
    pool().is_some()
}

enum Part<B> {
    /// Not started: whoever takes it runs it.
    Waiting(Box<dyn FnOnce() -> B + Send>),
    /// A helper is computing it.
    Running,
    /// A helper finished it (or panicked in it).
    Done(std::thread::Result<B>),
    /// Its result has been handed out.
    Taken,
}

struct Shared<B> {
    part: Mutex<Part<B>>,
    done: Condvar,
}

/// Runs `mine` on this thread and `theirs` on a helper thread if one starts it in time, else on
/// this thread after `mine`; returns both results. `theirs` owns what it reads (tensors are
/// cheap to clone), so this thread never has to wait for a helper that has not started.
pub(crate) fn join<A, B: Send + 'static>(
    mine: impl FnOnce() -> A,
    theirs: impl FnOnce() -> B + Send + 'static,
) -> (A, B) {
    let Some(pool) = pool() else {
        let a = mine();
        return (a, theirs());
    };
    let shared = Arc::new(Shared {
        part: Mutex::new(Part::Waiting(Box::new(theirs))),
        done: Condvar::new(),
    });
    let helper = shared.clone();
    pool.spawn(move || {
        let f = {
            let mut part = helper.part.lock();
            match std::mem::replace(&mut *part, Part::Running) {
                Part::Waiting(f) => f,
                other => {
                    *part = other;
                    return;
                }
            }
        };
        // A panic must reach the caller, not the pool (which would abort) nor leave it waiting.
        let out = panic::catch_unwind(AssertUnwindSafe(f));
        *helper.part.lock() = Part::Done(out);
        helper.done.notify_one();
    });
    let a = mine();
    let mut part = shared.part.lock();
    loop {
        match std::mem::replace(&mut *part, Part::Taken) {
            Part::Waiting(f) => {
                drop(part);
                return (a, f());
            }
            Part::Running => {
                *part = Part::Running;
                shared.done.wait(&mut part);
            }
            Part::Done(Ok(b)) => return (a, b),
            Part::Done(Err(p)) => panic::resume_unwind(p),
            Part::Taken => unreachable!("only the caller takes the result"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn both_parts_run_once_and_return_their_results() {
        let calls = Arc::new(AtomicUsize::new(0));
        for i in 0..200u64 {
            let c = calls.clone();
            let (a, b) = join(
                || i * 2,
                move || {
                    c.fetch_add(1, Ordering::SeqCst);
                    i * 3
                },
            );
            assert_eq!((a, b), (i * 2, i * 3));
        }
        assert_eq!(calls.load(Ordering::SeqCst), 200);
    }

    #[test]
    fn a_panic_in_the_helper_part_reaches_the_caller() {
        let r = panic::catch_unwind(|| {
            join(
                || std::thread::sleep(std::time::Duration::from_millis(20)),
                || -> () { panic!("helper part failed") },
            )
        });
        assert!(r.is_err());
        // The pool survives it.
        assert_eq!(join(|| 1, || 2), (1, 2));
    }
}
