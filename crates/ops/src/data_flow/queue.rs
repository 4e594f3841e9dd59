//! The session side of a queue (TensorFlow's `QueueBase` and its subclasses): two FIFO lists
//! of pending attempts, run head first after every change, so blocked operations complete in
//! strict order; blocking calls that honour cancellation and run deadlines.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::Thread;
use std::time::{Duration, Instant};

use parking_lot::{Mutex, MutexGuard};
use weir_graph::{
    deadline_exceeded, CancellationToken, DType, Error, QueueResource, Resource, Result, Shape,
    Tensor,
};

use super::pieces::{empty_batch, validate_many_tuple, validate_tuple, Pieces};
pub use super::queue_kind::QueueKind;
use super::store::Store;

pub(super) enum Op {
    Enqueue {
        tuple: Vec<Tensor>,
        next: usize,
        end: usize,
        many: bool,
    },
    Close,
    Dequeue,
    DequeueMany {
        remaining: usize,
        allow_small: bool,
        held: Pieces,
    },
}

pub(super) struct Attempt {
    id: u64,
    pub(super) op: Op,
    waiter: Option<Thread>,
    /// A blocked enqueue that now has room was woken to copy its rows itself (see
    /// [`SessionQueue::hand_off`]); it stays at the head of the list until its thread runs it.
    handed_off: bool,
}

pub(super) enum Run {
    NoProgress,
    Progress,
    Complete(Result<Vec<Tensor>>),
    /// A dequeue_many holds all its rows; the batch is assembled outside the lock.
    Batch(Pieces),
}

/// A finished attempt's result, waiting for its thread to pick it up.
pub(super) enum Outcome {
    Ready(Result<Vec<Tensor>>),
    Batch(Pieces),
}

pub(super) struct State {
    pub(super) store: Store,
    pub(super) closed: bool,
    pub(super) enqueues: VecDeque<Attempt>,
    dequeues: VecDeque<Attempt>,
    finished: Vec<(u64, Outcome)>,
    next_id: u64,
}

/// A queue as one session holds it: TensorFlow's `QueueInterface`. Graph ops reach it through
/// their resource handle; readers dequeue work items from it through [`QueueResource`].
///
/// Every blocking call takes the run's cancellation token and deadline: it returns Cancelled
/// ("Enqueue/Dequeue operation was cancelled") when the token fires and DeadlineExceeded
/// ("Timed out waiting for notification") at the deadline.
pub struct SessionQueue {
    pub(super) kind: QueueKind,
    pub(super) name: String,
    pub(super) dtypes: Vec<DType>,
    /// Declared shapes; empty when unspecified (FIFO and RandomShuffle queues only).
    pub(super) shapes: Vec<Shape>,
    /// Element shapes of a dequeue_many batch (partial dims as 0), when shapes are specified.
    pub(super) many_shapes: Vec<Vec<usize>>,
    pub(super) capacity: usize,
    pub(crate) capacity_attr: i64,
    pub(crate) extra: QueueExtra,
    state: Mutex<State>,
    /// Attempts finished by another thread so far, read without the lock by waiters spinning
    /// before they park.
    finishes: AtomicU64,
}

/// How long a blocked attempt watches for its completion before it parks. Parking costs the
/// producer a futex wake-up per batch (in this VM, ~5-9 us: 5% of a CSV reader thread's samples)
/// and the consumer two context switches. A per-example pipeline fills a batch of 128 in
/// 130-250 us, so a consumer waiting for it must spin longer than that not to park on every
/// batch; the spin yields the core between checks, so a runnable thread loses little to it.
/// Spinning before sleeping is what TensorFlow's own Eigen thread pool does.
const SPIN_BEFORE_PARK: Duration = Duration::from_micros(500);

/// How long a blocked enqueue watches before it parks: a producer late to refill a full queue
/// costs nothing while the queue is full, and its spin would take the core from the consumer
/// and the intra-op helpers.
const ENQUEUE_SPIN_BEFORE_PARK: Duration = Duration::from_micros(0);

/// Kind-specific creation attributes, compared when a shared_name is reused.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct QueueExtra {
    pub min_after_dequeue: i64,
    pub seed: i64,
    pub seed2: i64,
}

impl Resource for SessionQueue {
    fn type_name(&self) -> &str {
        self.kind.class_name()
    }

    fn as_queue(&self) -> Option<&dyn QueueResource> {
        Some(self)
    }
}

impl QueueResource for SessionQueue {
    fn queue_name(&self) -> &str {
        &self.name
    }

    fn component_dtypes(&self) -> &[DType] {
        &self.dtypes
    }

    fn dequeue(
        &self,
        cancel: &CancellationToken,
        deadline: Option<Instant>,
    ) -> Result<Vec<Tensor>> {
        SessionQueue::dequeue(self, cancel, deadline)
    }
}

impl SessionQueue {
    pub(crate) fn new(
        kind: QueueKind,
        name: String,
        dtypes: Vec<DType>,
        shapes: Vec<Shape>,
        capacity_attr: i64,
        extra: QueueExtra,
        store: Store,
    ) -> SessionQueue {
        let many_shapes = shapes
            .iter()
            .map(|s| {
                s.dims()
                    .unwrap_or(&[])
                    .iter()
                    .map(|d| d.unwrap_or(0))
                    .collect()
            })
            .collect();
        SessionQueue {
            kind,
            name,
            dtypes,
            shapes,
            many_shapes,
            capacity: if capacity_attr < 0 {
                usize::MAX
            } else {
                capacity_attr as usize
            },
            capacity_attr,
            extra,
            state: Mutex::new(State {
                store,
                closed: false,
                enqueues: VecDeque::new(),
                dequeues: VecDeque::new(),
                finished: Vec::new(),
                next_id: 0,
            }),
            finishes: AtomicU64::new(0),
        }
    }

    /// The queue's kind.
    pub fn kind(&self) -> QueueKind {
        self.kind
    }

    /// The resource name messages quote (`_3_batch/fifo_queue`, or the shared_name).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The component dtypes.
    pub fn dtypes(&self) -> &[DType] {
        &self.dtypes
    }

    /// The declared component shapes (empty when unspecified).
    pub fn shapes(&self) -> &[Shape] {
        &self.shapes
    }

    /// The capacity; `None` when unbounded (a negative capacity attr).
    pub fn capacity(&self) -> Option<usize> {
        (self.capacity != usize::MAX).then_some(self.capacity)
    }

    /// Elements stored now (`queue.size()`), not counting those held by unfinished
    /// dequeue_many calls.
    pub fn size(&self) -> usize {
        self.state.lock().store.len()
    }

    /// Whether the queue is closed (`queue.is_closed()`).
    pub fn is_closed(&self) -> bool {
        self.state.lock().closed
    }

    /// The fraction of capacity filled, for monitoring (0 for an unbounded queue).
    pub fn fill(&self) -> f32 {
        match self.capacity() {
            Some(c) if c > 0 => self.size() as f32 / c as f32,
            _ => 0.0,
        }
    }

    pub(super) fn closed_error(&self) -> Error {
        Error::cancelled(format!(
            "{} '{}' is closed.",
            self.kind.class_name(),
            self.name
        ))
    }

    pub(super) fn insufficient(&self, requested: usize, size: usize) -> Error {
        Error::out_of_range(format!(
            "{} '{}' is closed and has insufficient elements (requested {requested}, current size {size})",
            self.kind.class_name(),
            self.name
        ))
    }

    fn validate(&self, tuple: &[Tensor]) -> Result<()> {
        // A PriorityQueue checks its priority before the component shapes, as TensorFlow's
        // does (its declared shape [] would otherwise report a plain shape mismatch).
        let priority = tuple.first().filter(|p| {
            self.kind == QueueKind::Priority
                && tuple.len() == self.dtypes.len()
                && p.dtype() == DType::I64
        });
        if let Some(p) = priority.filter(|p| p.rank() != 0) {
            return Err(Error::invalid_argument(format!(
                "Expected the priority element to be a scalar, but received shape: {}",
                weir_graph::format_dims(p.shape())
            )));
        }
        validate_tuple(tuple, &self.dtypes, &self.shapes)
    }

    /// `enqueue`: blocks while the queue is full; Cancelled "... is closed." once closed.
    pub fn enqueue(
        &self,
        tuple: Vec<Tensor>,
        cancel: &CancellationToken,
        deadline: Option<Instant>,
    ) -> Result<()> {
        self.validate(&tuple)?;
        self.submit(
            Op::Enqueue {
                tuple,
                next: 0,
                end: 1,
                many: false,
            },
            true,
            cancel,
            deadline,
        )
        .map(|_| ())
    }

    /// `enqueue_many`: slices every component along dimension 0 and pushes as many rows as fit,
    /// then blocks for the rest; rows already pushed stay if it is cancelled. An empty batch
    /// succeeds at once, even on a closed queue.
    pub fn enqueue_many(
        &self,
        tuple: Vec<Tensor>,
        cancel: &CancellationToken,
        deadline: Option<Instant>,
    ) -> Result<()> {
        let n = validate_many_tuple(&tuple, &self.dtypes, &self.shapes)?;
        if self.kind == QueueKind::Priority {
            if let Some(t) = tuple.first().filter(|t| t.rank() != 1) {
                return Err(Error::invalid_argument(format!(
                    "Expected the priority element to be a scalar, but received shape: {}",
                    weir_graph::format_dims(&t.shape()[1..])
                )));
            }
        }
        if n == 0 {
            return Ok(());
        }
        self.submit(
            Op::Enqueue {
                tuple,
                next: 0,
                end: n,
                many: true,
            },
            true,
            cancel,
            deadline,
        )
        .map(|_| ())
    }

    /// `dequeue`: blocks while no element is available; OutOfRange once closed and empty.
    pub fn dequeue(
        &self,
        cancel: &CancellationToken,
        deadline: Option<Instant>,
    ) -> Result<Vec<Tensor>> {
        self.submit(Op::Dequeue, false, cancel, deadline)
    }

    /// `dequeue_many(n)` (`allow_small = false`) or `dequeue_up_to(n)` (`true`).
    pub fn dequeue_many(
        &self,
        n: usize,
        allow_small: bool,
        cancel: &CancellationToken,
        deadline: Option<Instant>,
    ) -> Result<Vec<Tensor>> {
        if self.shapes.is_empty() {
            let msg = match self.kind {
                QueueKind::Priority => "PriorityQueue's DequeueMany requires the components to have specified shapes.".to_string(),
                k => format!(
                    "{}'s DequeueMany and DequeueUpTo require the components to have specified shapes.",
                    k.class_name()
                ),
            };
            return Err(Error::invalid_argument(msg));
        }
        if n == 0 {
            return self
                .dtypes
                .iter()
                .zip(&self.shapes)
                .map(|(&d, s)| empty_batch(d, s))
                .collect();
        }
        let held = Pieces::new(self.dtypes.len());
        self.submit(
            Op::DequeueMany {
                remaining: n,
                allow_small,
                held,
            },
            false,
            cancel,
            deadline,
        )
    }

    /// `close(cancel_pending_enqueues)`. Without cancelling, the close waits behind pending
    /// enqueues, and closing a closed queue is Cancelled `"Queue '<name>' is already closed."`.
    /// With it, pending enqueues fail with Cancelled and the queue closes at once.
    pub fn close(
        &self,
        cancel_pending_enqueues: bool,
        cancel: &CancellationToken,
        deadline: Option<Instant>,
    ) -> Result<()> {
        if !cancel_pending_enqueues {
            return self.submit(Op::Close, true, cancel, deadline).map(|_| ());
        }
        let mut st = self.state.lock();
        st.closed = true;
        let pending: Vec<Attempt> = st.enqueues.drain(..).collect();
        for a in pending {
            self.finish(
                &mut st,
                a,
                Outcome::Ready(Err(Error::cancelled("Enqueue operation was cancelled"))),
                None,
            );
        }
        self.flush(&mut st, None);
        Ok(())
    }

    /// Adds an attempt, runs the lists, and waits for the attempt's result.
    fn submit(
        &self,
        op: Op,
        enqueue: bool,
        cancel: &CancellationToken,
        deadline: Option<Instant>,
    ) -> Result<Vec<Tensor>> {
        let mut st = self.state.lock();
        let id = st.next_id;
        st.next_id += 1;
        let mut attempt = Attempt {
            id,
            op,
            waiter: None,
            handed_off: false,
        };
        let list_empty = if enqueue {
            st.enqueues.is_empty()
        } else {
            st.dequeues.is_empty()
        };
        if list_empty {
            // This attempt is the head of its list: run it now, as the flush would.
            match self.run(&mut st, &mut attempt) {
                Run::Complete(r) => {
                    self.flush(&mut st, None);
                    return r;
                }
                Run::Batch(rows) => {
                    self.flush(&mut st, None);
                    drop(st);
                    return self.assemble(rows);
                }
                Run::Progress | Run::NoProgress => {}
            }
        }
        if enqueue {
            st.enqueues.push_back(attempt);
        } else {
            st.dequeues.push_back(attempt);
        }
        self.flush(&mut st, Some(id));
        if let Some(r) = take_finished(&mut st, id) {
            drop(st);
            return self.resolve(r);
        }
        self.wait(st, id, enqueue, cancel, deadline)
    }

    /// The result of a finished attempt, its batch assembled (with no lock held).
    fn resolve(&self, outcome: Outcome) -> Result<Vec<Tensor>> {
        match outcome {
            Outcome::Ready(r) => r,
            Outcome::Batch(rows) => self.assemble(rows),
        }
    }

    fn wait(
        &self,
        mut st: MutexGuard<'_, State>,
        id: u64,
        enqueue: bool,
        cancel: &CancellationToken,
        deadline: Option<Instant>,
    ) -> Result<Vec<Tensor>> {
        let me = std::thread::current();
        {
            let State {
                enqueues, dequeues, ..
            } = &mut *st;
            if let Some(a) = enqueues
                .iter_mut()
                .chain(dequeues.iter_mut())
                .find(|a| a.id == id)
            {
                a.waiter = Some(me.clone());
            }
        }
        let _reg = {
            let t = me.clone();
            cancel.register(move || t.unpark())
        };
        loop {
            if let Some(r) = take_finished(&mut st, id) {
                drop(st);
                return self.resolve(r);
            }
            if cancel.is_cancelled() {
                self.abandon(&mut st, id);
                let what = if enqueue { "Enqueue" } else { "Dequeue" };
                return Err(Error::cancelled(format!("{what} operation was cancelled")));
            }
            if enqueue && take_hand_off(&mut st, id) {
                self.flush(&mut st, Some(id));
                continue;
            }
            match deadline {
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        self.abandon(&mut st, id);
                        return Err(deadline_exceeded());
                    }
                    let seen = self.finishes.load(Ordering::Acquire);
                    MutexGuard::unlocked(&mut st, || {
                        if !self.spin_for_finish(seen, cancel, d) {
                            std::thread::park_timeout(d.saturating_duration_since(Instant::now()));
                        }
                    });
                }
                None => {
                    let seen = self.finishes.load(Ordering::Acquire);
                    MutexGuard::unlocked(&mut st, || {
                        let spin = if enqueue {
                            ENQUEUE_SPIN_BEFORE_PARK
                        } else {
                            SPIN_BEFORE_PARK
                        };
                        let until = Instant::now() + spin;
                        if !self.spin_for_finish(seen, cancel, until) {
                            std::thread::park();
                        }
                    });
                }
            }
        }
    }

    /// Spins for at most [`SPIN_BEFORE_PARK`] (and not past `deadline`) until an attempt
    /// finishes after `seen` or the run is cancelled; false if neither happened.
    fn spin_for_finish(&self, seen: u64, cancel: &CancellationToken, deadline: Instant) -> bool {
        let start = Instant::now();
        let until = deadline.min(start + SPIN_BEFORE_PARK);
        loop {
            // Reading the clock costs more than a check: look at it every 64 rounds.
            for _ in 0..64 {
                if self.finishes.load(Ordering::Acquire) != seen || cancel.is_cancelled() {
                    return true;
                }
                std::hint::spin_loop();
            }
            if Instant::now() >= until {
                return false;
            }
            // Runner threads may outnumber cores: let a ready one have this core meanwhile.
            std::thread::yield_now();
        }
    }

    /// Drops a cancelled attempt (a dequeue_many loses the rows it held, as in TensorFlow) and
    /// lets the attempts behind it run.
    fn abandon(&self, st: &mut State, id: u64) {
        st.enqueues.retain(|a| a.id != id);
        st.dequeues.retain(|a| a.id != id);
        self.flush(st, None);
    }

    /// Runs the head attempts of both lists until neither makes progress. `owner` is the
    /// attempt of the calling thread, if it has one queued: the only blocked enqueue this
    /// thread copies rows for.
    fn flush(&self, st: &mut State, owner: Option<u64>) {
        loop {
            let a = self.try_list(st, true, owner);
            let b = self.try_list(st, false, owner);
            if !(a || b) {
                break;
            }
        }
    }

    fn try_list(&self, st: &mut State, enqueue: bool, owner: Option<u64>) -> bool {
        let mut progress = false;
        loop {
            let front = if enqueue {
                st.enqueues.pop_front()
            } else {
                st.dequeues.pop_front()
            };
            let Some(mut attempt) = front else { break };
            if enqueue && self.hand_off(st, &mut attempt, owner) {
                st.enqueues.push_front(attempt);
                break;
            }
            match self.run(st, &mut attempt) {
                Run::Complete(r) => {
                    progress = true;
                    self.finish(st, attempt, Outcome::Ready(r), owner);
                }
                Run::Batch(rows) => {
                    progress = true;
                    self.finish(st, attempt, Outcome::Batch(rows), owner);
                }
                other => {
                    if matches!(other, Run::Progress) {
                        progress = true;
                    }
                    if enqueue {
                        st.enqueues.push_front(attempt);
                    } else {
                        st.dequeues.push_front(attempt);
                    }
                    break;
                }
            }
        }
        progress
    }

    /// Records a queued attempt's result and wakes its thread (a spinning one sees the count),
    /// unless that thread is the caller.
    fn finish(&self, st: &mut State, attempt: Attempt, r: Outcome, owner: Option<u64>) {
        st.finished.push((attempt.id, r));
        self.finishes.fetch_add(1, Ordering::Release);
        if owner != Some(attempt.id) {
            if let Some(t) = attempt.waiter {
                t.unpark();
            }
        }
    }

    /// Leaves a blocked enqueue that now has room to its own thread, waking it, instead of
    /// copying its rows here; true if the attempt was (or already is) handed off.
    ///
    /// TensorFlow runs a blocked enqueue on whichever thread freed the room: in a training
    /// loop that is the step's thread, which then copies a whole batch into the queue (a sixth
    /// of a softmax step) while the runner thread that made the batch sits idle. Handing it back
    /// keeps the order (the attempt stays at the head of its list, and nothing behind it runs
    /// first) and the outcome; only the thread that does the copy changes. An attempt without a
    /// waiter belongs to the calling thread, which is about to run it anyway, and a closed
    /// queue fails the attempt at once.
    fn hand_off(&self, st: &State, attempt: &mut Attempt, owner: Option<u64>) -> bool {
        if !matches!(attempt.op, Op::Enqueue { .. }) || owner == Some(attempt.id) || st.closed {
            return false;
        }
        let Some(t) = &attempt.waiter else {
            return false;
        };
        if st.store.len() >= self.capacity {
            return false;
        }
        if !attempt.handed_off {
            attempt.handed_off = true;
            self.finishes.fetch_add(1, Ordering::Release);
            t.unpark();
        }
        true
    }
}

/// Whether `id` is an enqueue handed back to its thread (see [`SessionQueue::hand_off`]);
/// clears the mark, since the caller is about to run it.
fn take_hand_off(st: &mut State, id: u64) -> bool {
    match st.enqueues.front_mut() {
        Some(a) if a.id == id && a.handed_off => {
            a.handed_off = false;
            true
        }
        _ => false,
    }
}

fn take_finished(st: &mut State, id: u64) -> Option<Outcome> {
    let i = st.finished.iter().position(|(f, _)| *f == id)?;
    Some(st.finished.swap_remove(i).1)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::thread;
    use std::time::{Duration, Instant};

    use weir_graph::{CancellationToken, DType, Shape, Tensor};

    use super::super::fifo_store::FifoStore;
    use super::super::slots::RowSlots;
    use super::*;

    const WAIT: Duration = Duration::from_secs(10);

    fn fifo(capacity: i64) -> Arc<SessionQueue> {
        let slots = RowSlots::new(&[DType::I64], &[vec![]], capacity as usize);
        Arc::new(SessionQueue::new(
            QueueKind::Fifo,
            "q".into(),
            vec![DType::I64],
            vec![Shape::scalar()],
            capacity,
            QueueExtra {
                min_after_dequeue: 0,
                seed: 0,
                seed2: 0,
            },
            Store::Fifo(FifoStore::new(slots)),
        ))
    }

    fn values(t: &[Tensor]) -> Vec<i64> {
        t[0].to_vec::<i64>().unwrap()
    }

    /// Waits (bounded) until `n` enqueues are blocked in the queue.
    fn until_blocked(q: &SessionQueue, n: usize) {
        let start = Instant::now();
        while q
            .state
            .lock()
            .enqueues
            .iter()
            .filter(|a| a.waiter.is_some())
            .count()
            < n
        {
            assert!(start.elapsed() < WAIT, "enqueues never blocked");
            thread::sleep(Duration::from_millis(1));
        }
    }

    fn dequeue_many(q: &SessionQueue, n: usize) -> Vec<i64> {
        let deadline = Some(Instant::now() + WAIT);
        values(
            &q.dequeue_many(n, false, &CancellationToken::new(), deadline)
                .unwrap(),
        )
    }

    #[test]
    fn blocked_enqueues_run_on_their_own_threads_in_order() {
        let q = fifo(2);
        let enqueue = |rows: Vec<i64>| {
            let q = q.clone();
            thread::spawn(move || {
                let n = rows.len();
                let t = Tensor::from_vec(&[n], rows).unwrap();
                q.enqueue_many(
                    vec![t],
                    &CancellationToken::new(),
                    Some(Instant::now() + WAIT),
                )
            })
        };
        let a = enqueue(vec![1, 2, 3, 4]);
        until_blocked(&q, 1);
        let b = enqueue(vec![5]);
        until_blocked(&q, 2);
        // Room for two: the dequeuing thread leaves the head enqueue to its own thread, and the
        // enqueue behind it cannot overtake it meanwhile.
        assert_eq!(dequeue_many(&q, 2), [1, 2]);
        {
            let st = q.state.lock();
            if let Some(head) = st.enqueues.front() {
                assert!(
                    head.handed_off || st.store.len() > 0,
                    "the head enqueue was neither handed off nor run"
                );
            }
        }
        assert_eq!(dequeue_many(&q, 2), [3, 4]);
        assert_eq!(dequeue_many(&q, 1), [5]);
        for h in [a, b] {
            h.join().unwrap().unwrap();
        }
        let st = q.state.lock();
        assert!(st.enqueues.is_empty() && st.dequeues.is_empty() && st.finished.is_empty());
    }
}
