//! The session side of a barrier (TensorFlow's `barrier::Barrier` resource): a map from key to
//! the components inserted so far, and a priority queue of the complete elements, ordered by
//! the insert_many call that first inserted each key.
//!
//! TensorFlow keeps the complete elements in a `PriorityQueue` whose heap compares priorities
//! only, so elements first inserted by the same call come out in libstdc++'s heap order; the
//! heap here runs libstdc++'s algorithms to give the same order. Blocked take_many calls wait
//! in a FIFO list, as the queue's dequeue attempts do, and end on cancellation or a run's
//! deadline.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Instant;

use parking_lot::MutexGuard;
use weir_graph::{
    format_dims, match_data_dtype, Bytes, CancellationToken, DType, Error, Monitor, Resource,
    Result, Tensor, TensorType,
};

use crate::libstdcxx::{priority_queue_pop, priority_queue_push};

/// An element still missing components: the insert_many index it was first seen at, and the
/// components it has.
struct Incomplete {
    index: i64,
    values: Vec<Option<Tensor>>,
}

/// A complete element.
struct Ready {
    index: i64,
    key: Bytes,
    values: Vec<Tensor>,
}

/// A take_many blocked on the ready queue, with the elements it took before the queue closed.
struct Take {
    id: u64,
    remaining: usize,
    allow_small_batch: bool,
    held: Vec<Ready>,
}

struct State {
    closed: bool,
    cancel_pending_enqueues: bool,
    /// The ready queue's state: TensorFlow closes its inner queue only when a close leaves no
    /// incomplete element (or cancels them).
    queue_closed: bool,
    queue_cancelled: bool,
    /// The index the next new keys get; TensorFlow starts it at the smallest int64.
    input_index: i64,
    incomplete: HashMap<Bytes, Incomplete>,
    /// `(priority, slot)` in libstdc++ heap order; the elements live in `slots`.
    heap: Vec<(i64, u64)>,
    slots: HashMap<u64, Ready>,
    next_slot: u64,
    takes: VecDeque<Take>,
    next_take: u64,
    finished: HashMap<u64, Result<Vec<Ready>>>,
}

/// `std::priority_queue`'s order with TensorFlow's `ComparePriorityTensorPair`: the smallest
/// priority is on top.
fn lower_priority(a: (i64, u64), b: (i64, u64)) -> bool {
    a.0 > b.0
}

/// A barrier as one session holds it: TensorFlow's `Barrier` resource, which the `Barrier` op
/// creates (or finds by shared_name) and the other barrier ops reach through its handle.
pub struct SessionBarrier {
    name: String,
    dtypes: Vec<DType>,
    /// The value component shapes as TensorFlow's kernel reads the attr: an unknown shape is a
    /// scalar.
    shapes: Vec<Vec<usize>>,
    state: Arc<Monitor<State>>,
}

impl Resource for SessionBarrier {
    fn type_name(&self) -> &str {
        "Barrier"
    }
}

impl SessionBarrier {
    pub(crate) fn new(name: String, dtypes: Vec<DType>, shapes: Vec<Vec<usize>>) -> Self {
        SessionBarrier {
            name,
            dtypes,
            shapes,
            state: Monitor::new(State {
                closed: false,
                cancel_pending_enqueues: false,
                queue_closed: false,
                queue_cancelled: false,
                input_index: i64::MIN,
                incomplete: HashMap::new(),
                heap: Vec::new(),
                slots: HashMap::new(),
                next_slot: 0,
                takes: VecDeque::new(),
                next_take: 0,
                finished: HashMap::new(),
            }),
        }
    }

    /// The resource name messages quote (`_3_barrier`, or the shared_name).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The value component dtypes.
    pub fn dtypes(&self) -> &[DType] {
        &self.dtypes
    }

    /// The value component shapes (a barrier made without shapes holds scalars).
    pub fn shapes(&self) -> &[Vec<usize>] {
        &self.shapes
    }

    /// Complete elements not yet taken (`barrier.ready_size()`).
    pub fn ready_size(&self) -> usize {
        self.state.lock().heap.len()
    }

    /// Keys still missing a component (`barrier.incomplete_size()`).
    pub fn incomplete_size(&self) -> usize {
        self.state.lock().incomplete.len()
    }

    /// Whether the barrier is closed.
    pub fn is_closed(&self) -> bool {
        self.state.lock().closed
    }

    /// take_many calls blocked now, waiting for complete elements.
    pub fn pending_takes(&self) -> usize {
        self.state.lock().takes.len()
    }

    fn queue_name(&self) -> String {
        format!("{}_queue", self.name)
    }

    /// `insert_many(component, keys, values)`: row `i` of `values` becomes component
    /// `component` of key `keys[i]`; elements it completes join the ready queue. Never blocks.
    ///
    /// As in TensorFlow, a failure part way leaves the keys before it inserted, and loses the
    /// elements they completed.
    pub fn insert_many(&self, component: usize, keys: &Tensor, values: &Tensor) -> Result<()> {
        let keys = keys.as_slice::<Bytes>()?;
        let vshape = values.shape();
        if !keys.is_empty() && vshape.iter().product::<usize>() == 0 {
            return Err(Error::invalid_argument(format!(
                "Tensors with no elements are not supported {}: received shape {}",
                self.name,
                format_dims(vshape)
            )));
        }
        let rows = vshape.first().copied().unwrap_or(1);
        if keys.len() > rows {
            return Err(Error::invalid_argument(format!(
                "Barrier {}: {} keys but values has {rows} rows (shape {})",
                self.name,
                keys.len(),
                format_dims(vshape)
            )));
        }
        let mut st = self.state.lock();
        if st.closed
            && (st.cancel_pending_enqueues || (!keys.is_empty() && st.incomplete.is_empty()))
        {
            return Err(Error::cancelled(format!(
                "Barrier {} is closed.  Pending enqueues cancelled: {}.  Number of new insertions: {}.  Number of incomplete keys: {}.",
                self.name,
                u8::from(st.cancel_pending_enqueues),
                keys.len(),
                st.incomplete.len()
            )));
        }
        let mut ready = Vec::new();
        let mut new_elements = false;
        for (i, key) in keys.iter().enumerate() {
            let row = if vshape.is_empty() {
                values.deep_copy()
            } else {
                values.index_axis0(i)?.deep_copy()
            };
            if let Some(r) = self.insert_one(&mut st, component, key, i, row, &mut new_elements)? {
                ready.push(r);
            }
        }
        if new_elements {
            st.input_index += 1;
        }
        if st.input_index == i64::MAX {
            return Err(Error::internal(format!(
                "Barrier has had {} insertions and can no longer keep track of new ones.",
                st.input_index
            )));
        }
        if ready.is_empty() {
            return Ok(());
        }
        for r in ready {
            let slot = st.next_slot;
            st.next_slot += 1;
            priority_queue_push(&mut st.heap, (r.index, slot), &lower_priority);
            st.slots.insert(slot, r);
        }
        self.flush(&mut st);
        Ok(())
    }

    /// Sets one component of one key; the element, if that completes it.
    fn insert_one(
        &self,
        st: &mut State,
        component: usize,
        key: &Bytes,
        i: usize,
        row: Tensor,
        new_elements: &mut bool,
    ) -> Result<Option<Ready>> {
        let n = self.dtypes.len();
        let index = st.input_index;
        if st.closed && !st.incomplete.contains_key(key) {
            return Err(Error::cancelled(format!(
                "Barrier {} is closed, but attempted to insert a brand new key: {}.  Pending enqueues cancelled: {}.  Insertion index: {i}.  Number of incomplete keys: {}.",
                self.name,
                String::from_utf8_lossy(key),
                u8::from(st.cancel_pending_enqueues),
                st.incomplete.len()
            )));
        }
        let element = st.incomplete.entry(key.clone()).or_insert_with(|| {
            *new_elements = true;
            Incomplete {
                index,
                values: vec![None; n],
            }
        });
        if element.values[component].is_some() {
            return Err(Error::invalid_argument(format!(
                "Key {} already has a value for component {component} in barrier {}",
                String::from_utf8_lossy(key),
                self.name
            )));
        }
        element.values[component] = Some(row);
        if element.values.iter().any(Option::is_none) {
            return Ok(None);
        }
        // Complete: it leaves the map before its shapes are checked, so a mismatch loses it.
        let element = st
            .incomplete
            .remove(key)
            .expect("the element was just updated");
        let values: Vec<Tensor> = element.values.into_iter().flatten().collect();
        for (j, (v, want)) in values.iter().zip(&self.shapes).enumerate() {
            if v.shape() != want.as_slice() {
                return Err(Error::invalid_argument(format!(
                    "Shape mismatch in tuple component {}. Expected {}, got {}",
                    j + 2,
                    format_dims(want),
                    format_dims(v.shape())
                )));
            }
        }
        Ok(Some(Ready {
            index: element.index,
            key: key.clone(),
            values,
        }))
    }

    /// `take_many(num_elements, allow_small_batch)`: the indices, keys and value components of
    /// `num_elements` complete elements (fewer with `allow_small_batch` once closed), blocking
    /// while there are too few. OutOfRange once closed with too few, Cancelled when `cancel`
    /// fires, DeadlineExceeded at `deadline`.
    pub fn take_many(
        &self,
        num_elements: usize,
        allow_small_batch: bool,
        cancel: &CancellationToken,
        deadline: Option<Instant>,
    ) -> Result<(Tensor, Tensor, Vec<Tensor>)> {
        let mut st = self.state.lock();
        let mut deliver = num_elements;
        if st.closed {
            let mut available = st.heap.len();
            if allow_small_batch {
                deliver = deliver.min(available);
            } else {
                available += st.incomplete.len();
            }
            if available < deliver.max(1) {
                return Err(Error::out_of_range(format!(
                    "Barrier '{}' is closed and has insufficient elements (requested {deliver}, total size {available})",
                    self.name
                )));
            }
        }
        if deliver == 0 {
            drop(st);
            return self.batch(Vec::new());
        }
        let id = st.next_take;
        st.next_take += 1;
        st.takes.push_back(Take {
            id,
            remaining: deliver,
            allow_small_batch,
            held: Vec::new(),
        });
        self.flush(&mut st);
        let waited = self
            .state
            .wait_while(&mut st, cancel, deadline, |s| !s.finished.contains_key(&id));
        let outcome = match st.finished.remove(&id) {
            Some(r) => r,
            None => {
                // Cancelled or timed out: the attempt goes, with any elements it held, and the
                // takes behind it may now run.
                st.takes.retain(|t| t.id != id);
                self.flush(&mut st);
                let e = waited.expect_err("a take_many ended without a result");
                return Err(if e.is_deadline_exceeded() {
                    e
                } else {
                    Error::cancelled("Dequeue operation was cancelled")
                });
            }
        };
        drop(st);
        self.batch(outcome?)
    }

    /// Runs the blocked takes in order, as TensorFlow's PriorityQueue runs its dequeue attempts,
    /// and wakes their threads when any finishes.
    fn flush(&self, st: &mut MutexGuard<'_, State>) {
        let mut finished = false;
        while let Some(take) = st.takes.front() {
            let size = st.heap.len();
            let (remaining, small) = (take.remaining, take.allow_small_batch);
            if st.queue_closed && (size == 0 || (!small && size < remaining)) {
                let take = st.takes.pop_front().expect("a front take");
                let e = Error::out_of_range(format!(
                    "PriorityQueue '{}' is closed and has insufficient elements (requested {remaining}, current size {size})",
                    self.queue_name()
                ));
                st.finished.insert(take.id, Err(e));
                finished = true;
                continue;
            }
            // The whole batch at once, so that it comes out sorted.
            if size < remaining && (size == 0 || !(st.queue_closed && small)) {
                break;
            }
            let k = size.min(remaining);
            let mut taken = Vec::with_capacity(k);
            for _ in 0..k {
                let (_, slot) =
                    priority_queue_pop(&mut st.heap, &lower_priority).expect("k <= heap size");
                taken.push(st.slots.remove(&slot).expect("every heap entry has a slot"));
            }
            let take = st.takes.front_mut().expect("a front take");
            take.held.extend(taken);
            take.remaining -= k;
            if take.remaining == 0 {
                let take = st.takes.pop_front().expect("a front take");
                st.finished.insert(take.id, Ok(take.held));
                finished = true;
            }
            // A closed queue cut the batch short: the next round fails it, as TensorFlow's
            // does, and the elements it took are lost.
        }
        if finished {
            self.state.notify_all();
        }
    }

    /// `close(cancel_pending_enqueues)`: no new keys from now on; with
    /// `cancel_pending_enqueues`, incomplete elements are dropped and no component may be
    /// inserted any more. Closing twice is Cancelled, unless the second close cancels and the
    /// first did not.
    pub fn close(&self, cancel_pending_enqueues: bool) -> Result<()> {
        let mut st = self.state.lock();
        if st.closed && (st.cancel_pending_enqueues || !cancel_pending_enqueues) {
            return Err(Error::cancelled(format!(
                "Barrier '{}' is already closed.",
                self.name
            )));
        }
        st.cancel_pending_enqueues = cancel_pending_enqueues;
        st.closed = true;
        if cancel_pending_enqueues || st.incomplete.is_empty() {
            st.incomplete.clear();
            if (!cancel_pending_enqueues && st.queue_closed)
                || (cancel_pending_enqueues && st.queue_cancelled)
            {
                return Ok(());
            }
            // TensorFlow never finishes a cancelling close of a barrier whose ready queue an
            // earlier close already closed (its callback is skipped); here it succeeds.
            st.queue_closed = true;
            st.queue_cancelled |= cancel_pending_enqueues;
            self.flush(&mut st);
        }
        Ok(())
    }

    /// The outputs of a take: indices, keys, and each value component stacked on a new
    /// dimension 0.
    fn batch(&self, elements: Vec<Ready>) -> Result<(Tensor, Tensor, Vec<Tensor>)> {
        let n = elements.len();
        let indices = Tensor::from_vec(&[n], elements.iter().map(|e| e.index).collect())?;
        let keys = Tensor::from_vec(&[n], elements.iter().map(|e| e.key.clone()).collect())?;
        let values = self
            .dtypes
            .iter()
            .zip(&self.shapes)
            .enumerate()
            .map(|(j, (&dtype, shape))| {
                let mut dims = vec![n];
                dims.extend_from_slice(shape);
                stack(dtype, &dims, elements.iter().map(|e| &e.values[j]))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok((indices, keys, values))
    }
}

/// The elements (all of one shape) one after another in a tensor of shape `dims`.
fn stack<'a>(
    dtype: DType,
    dims: &[usize],
    items: impl Iterator<Item = &'a Tensor>,
) -> Result<Tensor> {
    fn go<'a, T: TensorType>(
        dims: &[usize],
        items: impl Iterator<Item = &'a Tensor>,
    ) -> Result<Tensor> {
        let mut data = Vec::with_capacity(dims.iter().product());
        for t in items {
            data.extend_from_slice(t.as_slice::<T>()?);
        }
        Tensor::from_vec(dims, data)
    }
    match_data_dtype!(dtype, T => go::<T>(dims, items),
        _ => Err(Error::invalid_argument(format!("A barrier cannot hold {dtype} values"))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn barrier() -> SessionBarrier {
        SessionBarrier::new("B".into(), vec![DType::I32], vec![vec![]])
    }

    fn keys<S: AsRef<str>>(k: &[S]) -> Tensor {
        Tensor::from_strings(k)
    }

    fn take(b: &SessionBarrier, n: usize) -> Result<(Vec<i64>, Vec<String>, Vec<i32>)> {
        let (i, k, v) = b.take_many(n, false, &CancellationToken::new(), None)?;
        Ok((i.to_vec::<i64>()?, k.to_strings()?, v[0].to_vec::<i32>()?))
    }

    #[test]
    fn equal_priorities_come_out_in_libstdcxx_heap_order() {
        let b = barrier();
        let k: Vec<String> = (0..7).map(|i| format!("k{i}")).collect();
        b.insert_many(
            0,
            &keys(&k),
            &Tensor::from_vec(&[7], (0..7).collect()).unwrap(),
        )
        .unwrap();
        let (idx, got, vals) = take(&b, 7).unwrap();
        // What TensorFlow 2.21 returns: std::pop_heap's order for seven equal priorities.
        assert_eq!(got, ["k0", "k2", "k5", "k6", "k4", "k1", "k3"]);
        assert_eq!(vals, [0, 2, 5, 6, 4, 1, 3]);
        assert!(idx.iter().all(|&i| i == i64::MIN));
    }

    #[test]
    fn earlier_first_insertions_come_out_first() {
        let b = SessionBarrier::new(
            "B".into(),
            vec![DType::I32, DType::I32],
            vec![vec![], vec![]],
        );
        let one = |v: i32| Tensor::from_vec(&[1], vec![v]).unwrap();
        b.insert_many(0, &keys(&["a"]), &one(1)).unwrap();
        b.insert_many(0, &keys(&["b"]), &one(2)).unwrap();
        b.insert_many(1, &keys(&["b"]), &one(20)).unwrap();
        b.insert_many(1, &keys(&["a"]), &one(10)).unwrap();
        let (i, k, v) = b
            .take_many(2, false, &CancellationToken::new(), None)
            .unwrap();
        assert_eq!(k.to_strings().unwrap(), ["a", "b"]);
        assert_eq!(i.to_vec::<i64>().unwrap(), [i64::MIN, i64::MIN + 1]);
        assert_eq!(v[1].to_vec::<i32>().unwrap(), [10, 20]);
    }

    #[test]
    fn a_blocked_take_ends_at_its_deadline_and_leaves_the_list() {
        let b = barrier();
        let deadline = Instant::now() + std::time::Duration::from_millis(30);
        let e = b
            .take_many(1, false, &CancellationToken::new(), Some(deadline))
            .unwrap_err();
        assert!(e.is_deadline_exceeded(), "{e}");
        assert_eq!(b.pending_takes(), 0);
    }

    #[test]
    fn a_cancelled_take_reports_cancelled() {
        let b = Arc::new(barrier());
        let token = CancellationToken::new();
        let (b2, t2) = (b.clone(), token.clone());
        let h = std::thread::spawn(move || b2.take_many(1, false, &t2, None));
        let start = Instant::now();
        while b.pending_takes() == 0 {
            assert!(start.elapsed().as_secs() < 20, "the take never blocked");
            std::thread::yield_now();
        }
        token.cancel(Error::cancelled("Session has been closed."));
        let e = h.join().unwrap().unwrap_err();
        assert!(e.is_cancelled());
        assert_eq!(e.message(), "Dequeue operation was cancelled");
        assert_eq!(b.pending_takes(), 0);
    }
}
