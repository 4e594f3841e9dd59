//! Element storage of each queue kind: FIFO ([`FifoStore`]), random ([`ShuffleStore`]) and
//! priority order. A dequeue_many takes its rows into [`Pieces`] under the queue's lock; they
//! are copied into the batch after the lock is released.

use std::collections::BinaryHeap;

use weir_graph::{match_data_dtype, Result, Tensor, TensorType};

use super::fifo_store::FifoStore;
use super::pieces::Pieces;
use super::shuffle_store::ShuffleStore;

/// A PriorityQueue element (each component a one-row view): smaller priorities come out
/// first; ties in insertion order.
struct Prioritized {
    priority: i64,
    seq: u64,
    comps: Vec<Tensor>,
}

impl PartialEq for Prioritized {
    fn eq(&self, o: &Self) -> bool {
        self.priority == o.priority && self.seq == o.seq
    }
}
impl Eq for Prioritized {}
impl PartialOrd for Prioritized {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Prioritized {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        // BinaryHeap is a max-heap: reverse so the smallest priority is on top.
        (o.priority, o.seq).cmp(&(self.priority, self.seq))
    }
}

/// PriorityQueue storage: a heap on the int64 first component.
#[derive(Default)]
pub(crate) struct PriorityStore {
    heap: BinaryHeap<Prioritized>,
    seq: u64,
}

/// The storage of one queue.
pub(crate) enum Store {
    Fifo(FifoStore),
    Shuffle(ShuffleStore),
    Priority(PriorityStore),
}

impl Store {
    /// Elements stored (not counting rows held by unfinished dequeue_many attempts).
    pub(crate) fn len(&self) -> usize {
        match self {
            Store::Fifo(s) => s.len,
            Store::Shuffle(s) => s.len(),
            Store::Priority(s) => s.heap.len(),
        }
    }

    /// Elements a dequeue may take now: RandomShuffleQueue keeps min_after_dequeue back while
    /// the queue is open.
    pub(crate) fn available(&self, closed: bool) -> usize {
        match self {
            Store::Shuffle(s) if !closed => s.len().saturating_sub(s.min_after_dequeue),
            _ => self.len(),
        }
    }

    /// Stores rows `start..end` of a validated batch (every component has them in dim 0).
    pub(crate) fn push_rows(&mut self, batch: &[Tensor], start: usize, end: usize) -> Result<()> {
        match self {
            Store::Fifo(s) => s.push_rows(batch, start, end)?,
            Store::Shuffle(s) => s.push_rows(batch, start, end)?,
            Store::Priority(s) => {
                let priorities = batch[0].as_slice::<i64>()?;
                for (i, &priority) in priorities.iter().enumerate().take(end).skip(start) {
                    let comps = batch
                        .iter()
                        .map(|t| t.slice_axis0(i, i + 1))
                        .collect::<Result<Vec<_>>>()?;
                    s.seq += 1;
                    s.heap.push(Prioritized {
                        priority,
                        seq: s.seq,
                        comps,
                    });
                }
            }
        }
        Ok(())
    }

    /// Stores one validated element.
    pub(crate) fn push_element(&mut self, elem: &[Tensor]) -> Result<()> {
        match self {
            Store::Fifo(s) => s.push_element(elem)?,
            Store::Shuffle(s) => s.push_element(elem)?,
            Store::Priority(s) => {
                let priority = elem[0].to_scalar::<i64>()?;
                s.seq += 1;
                s.heap.push(Prioritized {
                    priority,
                    seq: s.seq,
                    comps: elem.iter().map(as_row).collect::<Result<Vec<_>>>()?,
                });
            }
        }
        Ok(())
    }

    /// Removes one element (the next by the queue's order); the store must not be empty.
    pub(crate) fn pop_one(&mut self) -> Result<Vec<Tensor>> {
        match self {
            Store::Fifo(s) => s.pop_one(),
            Store::Shuffle(s) => s.pop_one(),
            Store::Priority(s) => Ok(s
                .heap
                .pop()
                .expect("pop from an empty priority store")
                .comps),
        }
    }

    /// Moves `k` elements (at most `len`) into `held`, in dequeue order.
    pub(crate) fn take_into(&mut self, k: usize, held: &mut Pieces) -> Result<()> {
        match self {
            Store::Fifo(s) => s.take_into(k, held),
            Store::Shuffle(s) => s.take_into(k, held),
            Store::Priority(s) => {
                for _ in 0..k {
                    let e = s.heap.pop().expect("take from a short priority store");
                    held.push(e.comps, 1);
                }
                Ok(())
            }
        }
    }

    /// Gives back the rows of a dequeue_many that the queue's closing cut short: FIFO queues put
    /// them at the front in order; RandomShuffleQueue appends them last-first, as TensorFlow does.
    pub(crate) fn restore(&mut self, held: Pieces) -> Result<()> {
        match self {
            Store::Fifo(s) => s.restore_front(held)?,
            Store::Shuffle(s) => s.restore(held)?,
            Store::Priority(s) => {
                for p in 0..held.rows.len() {
                    for r in 0..held.rows[p] {
                        let comps = (0..held.comps.len())
                            .map(|c| held.comps[c][p].slice_axis0(r, r + 1))
                            .collect::<Result<Vec<_>>>()?;
                        let priority = comps[0].as_slice::<i64>()?[0];
                        s.seq += 1;
                        s.heap.push(Prioritized {
                            priority,
                            seq: s.seq,
                            comps,
                        });
                    }
                }
            }
        }
        Ok(())
    }
}

/// Row `i` of `t` as a one-row tensor with its own buffer.
pub(crate) fn owned_row(t: &Tensor, i: usize) -> Result<Tensor> {
    fn go<T: TensorType>(t: &Tensor, i: usize) -> Result<Tensor> {
        let mut shape = t.shape().to_vec();
        let w: usize = shape[1..].iter().product();
        shape[0] = 1;
        Tensor::from_vec(&shape, t.as_slice::<T>()?[i * w..(i + 1) * w].to_vec())
    }
    match_data_dtype!(t.dtype(), T => go::<T>(t, i), _ => t.slice_axis0(i, i + 1))
}

/// The element as a one-row batch (no copy).
pub(crate) fn as_row(t: &Tensor) -> Result<Tensor> {
    let mut shape = Vec::with_capacity(t.rank() + 1);
    shape.push(1);
    shape.extend_from_slice(t.shape());
    t.reshape(&shape)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(t: &Tensor) -> Vec<i64> {
        t.to_vec::<i64>().unwrap()
    }

    #[test]
    fn priority_pops_smallest_first() {
        let mut s = Store::Priority(PriorityStore::default());
        for p in [5i64, 1, 3, 1] {
            s.push_element(&[Tensor::from(p), Tensor::from(p * 10)])
                .unwrap();
        }
        let got: Vec<i64> = (0..4).map(|_| ints(&s.pop_one().unwrap()[0])[0]).collect();
        assert_eq!(got, vec![1, 1, 3, 5]);
    }
}
