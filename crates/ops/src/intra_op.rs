//! The intra-op pool: helper threads that take part of one kernel's work, as TensorFlow's
//! `intra_op_parallelism_threads` pool does for its products.
//!
//! Why the helpers spin: on a virtual machine, waking an idle vCPU costs tens of microseconds,
//! more than half of the 100-300 us products this pool exists for (an earlier trial that woke a
//! sleeping rayon worker per product made training slower). So after taking part in a kernel, a
//! helper stays awake for `KEEP_AWAKE`, running the next split as soon as it is posted, and
//! yields its core to any other runnable thread while it waits. The first split after a quiet
//! spell runs on the caller alone and starts the helpers spinning for the next, unless it is
//! work of a millisecond or more, which the helpers join as they wake.
//!
//! Why a spinner stands aside when its core is wanted: a yield only lets another thread run
//! for a while, and the scheduler still shares the core evenly, so a spinner took up to half
//! a core from queue-runner threads that had real work. Training the 784-128-10 network from a
//! queue pipeline on 2 vCPUs (`cargo bench --bench training`) ran at ~1,930 steps/s with the
//! pool and ~2,270 without it, against ~2,950 and ~2,750 on preloaded data. So a spinner whose
//! yield gave the core away stops, and splits run on their callers alone for [`STAND_ASIDE`]
//! before the helpers are asked again: the pipeline then trains at 2,150-2,320 steps/s and
//! preloaded data at 2,730-2,940. Standing aside for 0, 1 or 3 ms instead gave 1,920-2,240.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// How long a helper keeps spinning after the last split it was offered: long enough to span
/// the other ops of a training step between its products, short enough that an idle session
/// gives its core back at once.
const KEEP_AWAKE: Duration = Duration::from_millis(2);

/// A spinner's yield that lasted longer than this ran another thread: its core is wanted. (A
/// yield with nothing else to run returns in about a microsecond.)
const CONTENDED: Duration = Duration::from_micros(20);

/// How long splits leave the helpers asleep after a spinner found its core wanted.
const STAND_ASIDE: Duration = Duration::from_millis(10);

/// The thread count asked for by the first session that set `intra_op_threads`.
static REQUESTED: OnceLock<usize> = OnceLock::new();

/// Asks for an intra-op pool of `threads` threads in all (the caller's included), as
/// `ConfigProto(intra_op_parallelism_threads=threads)` does; 0 keeps the default (one per core,
/// or `WEIR_INTRA_OP_THREADS`) and 1 runs every kernel on its caller. The pool is shared by the
/// whole process, as TensorFlow's global pools are, so the first request wins: returns whether
/// this one was taken.
pub fn request_threads(threads: usize) -> bool {
    threads > 0 && REQUESTED.set(threads).is_ok()
}

/// The process-wide pool, or `None` on a single core or when one thread was asked for.
fn pool() -> Option<&'static IntraOpPool> {
    static POOL: OnceLock<Option<IntraOpPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        let from_env = || {
            std::env::var("WEIR_INTRA_OP_THREADS")
                .ok()
                .and_then(|v| v.parse::<usize>().ok())
                .filter(|&n| n > 0)
        };
        let threads = REQUESTED
            .get()
            .copied()
            .or_else(from_env)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        let helpers = threads.checked_sub(1).filter(|&h| h > 0)?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(helpers)
            .thread_name(|i| format!("weir-intra-op-{i}"))
            .build()
            .ok()?;
        Some(IntraOpPool {
            pool,
            epoch: Instant::now(),
            awake_until: AtomicU64::new(0),
            stand_aside_until: AtomicU64::new(0),
            spinning: (0..helpers).map(|_| AtomicBool::new(false)).collect(),
        })
    })
    .as_ref()
}

/// The helpers and their spinners' state.
struct IntraOpPool {
    pool: rayon::ThreadPool,
    /// The origin of `awake_until`.
    epoch: Instant,
    /// Nanoseconds after `epoch` until which the spinners keep going.
    awake_until: AtomicU64,
    /// Nanoseconds after `epoch` until which no spinner is started (see [`STAND_ASIDE`]).
    stand_aside_until: AtomicU64,
    /// Per helper thread: whether it runs a spinner.
    spinning: Vec<AtomicBool>,
}

impl IntraOpPool {
    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    /// Pushes the spinners' deadline out by [`KEEP_AWAKE`] and returns how many helpers are
    /// spinning, ready for work now; when some are not, starts their spinners for the next
    /// split.
    fn keep_awake(&'static self) -> usize {
        let now = self.now();
        let until = now.saturating_add(KEEP_AWAKE.as_nanos() as u64);
        self.awake_until.fetch_max(until, Ordering::Relaxed);
        let ready = self
            .spinning
            .iter()
            .filter(|f| f.load(Ordering::Acquire))
            .count();
        if ready < self.spinning.len() && now >= self.stand_aside_until.load(Ordering::Relaxed) {
            // A helper already spinning finds its own flag set and returns at once.
            self.pool.spawn_broadcast(move |ctx| self.spin(ctx.index()));
        }
        ready
    }

    /// Helper `index`'s spinner: runs posted work until the deadline passes with nothing to do.
    fn spin(&self, index: usize) {
        let Some(flag) = self.spinning.get(index) else {
            return;
        };
        if flag.swap(true, Ordering::AcqRel) {
            return;
        }
        let mut idle = 0u32;
        loop {
            if let Some(rayon::Yield::Executed) = self.pool.yield_now() {
                idle = 0;
                continue;
            }
            idle = idle.wrapping_add(1);
            if idle % 64 == 0 {
                if self.now() > self.awake_until.load(Ordering::Relaxed) {
                    break;
                }
                // Let a runnable thread that shares this core (a queue runner) have it, and
                // stop spinning if one took it.
                if core_wanted() {
                    let until = self.now().saturating_add(STAND_ASIDE.as_nanos() as u64);
                    self.stand_aside_until.fetch_max(until, Ordering::Relaxed);
                    break;
                }
            } else {
                std::hint::spin_loop();
            }
        }
        flag.store(false, Ordering::Release);
    }
}

/// Yields the core and tells whether another thread took it for a while. (Asking for two such
/// yields in a row, so that a thread waking on this core for a moment would not count, kept
/// less of the gain: 1,960-2,280 steps/s on the pipeline above.)
fn core_wanted() -> bool {
    let yielded = Instant::now();
    std::thread::yield_now();
    yielded.elapsed() > CONTENDED
}

/// The pool and how many of its helpers to share work with now: those spinning, or (when
/// `wake` and none is) all of them, to join as they wake. `None` when the caller should work
/// alone; sleeping helpers are then woken for the next split.
fn ready(wake: bool) -> Option<(&'static IntraOpPool, usize)> {
    let pool = pool()?;
    let spinning = pool.keep_awake();
    let helpers = if spinning == 0 && wake {
        pool.spinning.len()
    } else {
        spinning
    };
    (helpers > 0).then_some((pool, helpers))
}

/// Runs `work` on every task, on the calling thread and the pool's helpers together. Each task
/// is handed out once, so the result is the same however the tasks are shared. Sleeping helpers
/// join as they wake when `wake` (worth it for a millisecond of work or more, where the
/// wake-up is small); otherwise tasks offered while they sleep run on the caller alone, and
/// wake them for the next.
pub(crate) fn for_each_task<I>(tasks: I, wake: bool, work: impl Fn(I::Item) + Sync)
where
    I: ExactSizeIterator + Send,
    I::Item: Send,
{
    if tasks.len() <= 1 {
        return tasks.for_each(work);
    }
    match ready(wake) {
        Some((pool, helpers)) => pool.share(tasks, helpers, work),
        None => tasks.for_each(work),
    }
}

impl IntraOpPool {
    /// Hands `tasks` out to the caller and up to `helpers` helpers, one at a time, until none
    /// is left.
    fn share<I>(&self, tasks: I, helpers: usize, work: impl Fn(I::Item) + Sync)
    where
        I: ExactSizeIterator + Send,
        I::Item: Send,
    {
        let pending = AtomicUsize::new(tasks.len());
        let helpers = helpers.min(tasks.len().saturating_sub(1));
        let queue = Mutex::new(tasks);
        let take = || loop {
            let next = queue.lock().next();
            let Some(task) = next else { break };
            // Counted done even if `work` panics, so the caller's wait below ends and the scope
            // re-raises the panic.
            let _done = Done(&pending);
            work(task);
        };
        self.pool.in_place_scope(|s| {
            for _ in 0..helpers {
                s.spawn(|_| take());
            }
            take();
            // The helpers finish their last tasks while the caller waits here, spinning:
            // sleeping on the scope's latch would cost the wake-up this pool exists to avoid.
            while pending.load(Ordering::Acquire) != 0 {
                std::hint::spin_loop();
            }
        });
    }
}

/// Counts one chunk done when dropped.
struct Done<'a>(&'a AtomicUsize);

impl Drop for Done<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_task_is_done_once() {
        for (rows, per_chunk) in [(0usize, 4usize), (1, 4), (7, 2), (64, 8), (100, 7)] {
            // Repeated so later rounds find the helpers spinning and share the chunks.
            for _ in 0..20 {
                let mut out = vec![0usize; rows * 3];
                let chunks = out.chunks_mut(3 * per_chunk).enumerate();
                for_each_task(chunks, false, |(c, chunk)| {
                    let first = c * per_chunk;
                    for (r, row) in chunk.chunks_mut(3).enumerate() {
                        for v in row {
                            *v += first + r + 1;
                        }
                    }
                });
                let want: Vec<usize> = (0..rows).flat_map(|r| [r + 1; 3]).collect();
                assert_eq!(out, want, "rows {rows}, {per_chunk} per chunk");
            }
        }
    }

    #[test]
    fn a_helper_takes_chunks_once_it_is_spinning() {
        if pool().is_none() {
            return;
        }
        let caller = std::thread::current().id();
        let start = Instant::now();
        // The first split wakes the helper; later ones, made while it spins, are shared. Each
        // chunk waits a little, so the caller cannot take them all before the helper looks; it
        // waits busy, since a caller waking from a sleep on the helper's core would make the
        // helper stand aside.
        loop {
            // Another test may have made the helpers stand aside; this one is about sharing.
            if let Some(p) = pool() {
                p.stand_aside_until.store(0, Ordering::Relaxed);
            }
            let others = AtomicUsize::new(0);
            let mut out = [0u8; 64];
            for_each_task(out.chunks_mut(8), false, |chunk| {
                if std::thread::current().id() != caller {
                    others.fetch_add(1, Ordering::Relaxed);
                }
                chunk.fill(1);
                let t = Instant::now();
                while t.elapsed() < Duration::from_micros(200) {
                    std::hint::spin_loop();
                }
            });
            assert!(out.iter().all(|&v| v == 1));
            if others.load(Ordering::Relaxed) > 0 {
                return;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "no helper took a chunk in 10 s"
            );
        }
    }

    /// With a busy thread for every core, a spinning helper's yields run one of them, so the
    /// helpers stand aside.
    #[test]
    fn helpers_stand_aside_when_their_cores_are_wanted() {
        let Some(p) = pool() else { return };
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let stop = AtomicBool::new(false);
        let start = Instant::now();
        std::thread::scope(|s| {
            for _ in 0..cores {
                s.spawn(|| {
                    while !stop.load(Ordering::Relaxed) && start.elapsed() < Duration::from_secs(10)
                    {
                        std::hint::spin_loop();
                    }
                });
            }
            let mut out = [0u8; 64];
            let stood_aside = loop {
                // Each split keeps the helpers spinning (or starts them) while they may.
                for_each_task(out.chunks_mut(8), false, |chunk| chunk.fill(1));
                if p.stand_aside_until.load(Ordering::Relaxed) > p.now() {
                    break true;
                }
                if start.elapsed() > Duration::from_secs(10) {
                    break false;
                }
                std::thread::sleep(Duration::from_micros(500));
            };
            stop.store(true, Ordering::Relaxed);
            assert!(stood_aside, "no helper stood aside in 10 s of busy cores");
        });
    }

    #[test]
    fn a_panicking_chunk_reaches_the_caller() {
        for _ in 0..20 {
            a_panic_reaches_the_caller_once();
        }
    }

    fn a_panic_reaches_the_caller_once() {
        let got = std::panic::catch_unwind(|| {
            let mut out = [0u8; 64];
            // Whichever thread holds row 32 (the caller, alone or not, or a helper) panics.
            for_each_task(out.chunks_mut(8).enumerate(), false, |(c, rows)| {
                let first = c * 8;
                assert!(!(first..first + rows.len()).contains(&32), "row 32");
            });
        });
        assert!(got.is_err());
    }
}
