//! Element storage of each queue kind. Elements are kept as zero-copy row views of the tensors
//! that were enqueued; nothing is copied until a dequeue_many assembles its batch.

use std::collections::{BinaryHeap, VecDeque};

use weir_graph::{match_data_dtype, DType, Result, Shape, Tensor, TensorType};

use super::philox::Philox;
use super::pieces::Pieces;
use super::slots::RowSlots;

/// A run of consecutive FIFO elements that came from one enqueue: `comps[c]` has dimension 0
/// holding the rows, of which `start..end` are still queued. A segment from a single
/// `enqueue` holds the element itself (`single`), so it goes in and out without reshaping.
struct Segment {
    comps: Vec<Tensor>,
    start: usize,
    end: usize,
    single: bool,
}

/// FIFOQueue (and PaddingFIFOQueue) storage: a deque of row segments.
#[derive(Default)]
pub(crate) struct FifoStore {
    segs: VecDeque<Segment>,
    len: usize,
}

impl FifoStore {
    fn push_segment(&mut self, comps: Vec<Tensor>, rows: usize, single: bool) {
        self.segs.push_back(Segment {
            comps,
            start: 0,
            end: rows,
            single,
        });
        self.len += rows;
    }

    fn pop_one(&mut self) -> Result<Vec<Tensor>> {
        if self.segs.front().is_some_and(|s| s.single) {
            self.len -= 1;
            return Ok(self.segs.pop_front().expect("front exists").comps);
        }
        let seg = self.segs.front_mut().expect("pop from an empty FIFO store");
        let out = seg
            .comps
            .iter()
            .map(|t| t.index_axis0(seg.start))
            .collect::<Result<Vec<_>>>()?;
        seg.start += 1;
        if seg.start == seg.end {
            self.segs.pop_front();
        }
        self.len -= 1;
        Ok(out)
    }

    fn take_into(&mut self, mut k: usize, held: &mut Pieces) -> Result<()> {
        while k > 0 {
            let seg = self.segs.front_mut().expect("take from a short FIFO store");
            let m = k.min(seg.end - seg.start);
            if seg.single {
                let seg = self.segs.pop_front().expect("front exists");
                held.push(seg.comps.iter().map(as_row).collect::<Result<Vec<_>>>()?, 1);
            } else if seg.start == 0 && m == seg.end && seg.comps[0].shape()[0] == m {
                let seg = self.segs.pop_front().expect("front exists");
                held.push(seg.comps, m);
            } else {
                let parts = seg
                    .comps
                    .iter()
                    .map(|t| t.slice_axis0(seg.start, seg.start + m))
                    .collect::<Result<Vec<_>>>()?;
                held.push(parts, m);
                seg.start += m;
                if seg.start == seg.end {
                    self.segs.pop_front();
                }
            }
            self.len -= m;
            k -= m;
        }
        Ok(())
    }

    /// Puts a cancelled batch's rows back at the front, in their original order.
    fn restore_front(&mut self, held: Pieces) {
        let Pieces {
            comps, rows, total, ..
        } = held;
        let n = rows.len();
        let mut per_piece: Vec<Vec<Tensor>> =
            (0..n).map(|_| Vec::with_capacity(comps.len())).collect();
        for comp in comps {
            for (p, t) in comp.into_iter().enumerate() {
                per_piece[p].push(t);
            }
        }
        for (parts, r) in per_piece.into_iter().zip(rows).rev() {
            self.segs.push_front(Segment {
                comps: parts,
                start: 0,
                end: r,
                single: false,
            });
        }
        self.len += total;
    }
}

/// How a RandomShuffleQueue holds its elements.
enum Shuffled {
    /// Fully defined component shapes: each element is copied into a reusable slot.
    Slots { slots: RowSlots, order: Vec<u32> },
    /// Otherwise each component is kept as a one-row tensor; element `i` is
    /// `elems[i * ncomp .. (i + 1) * ncomp]`.
    Tensors(Vec<Tensor>),
}

/// RandomShuffleQueue storage; a pick takes a uniformly random element and moves the last one
/// into its place, as TensorFlow does.
pub(crate) struct ShuffleStore {
    ncomp: usize,
    elems: Shuffled,
    pub(crate) min_after_dequeue: usize,
    rng: Philox,
}

impl ShuffleStore {
    /// Storage for elements of `dtypes`; `shapes` are the queue's element shapes (empty when
    /// unspecified) and `capacity` its capacity.
    pub(crate) fn new(
        dtypes: &[DType],
        shapes: &[Shape],
        capacity: usize,
        min_after_dequeue: usize,
        rng: Philox,
    ) -> ShuffleStore {
        let fixed: Option<Vec<Vec<usize>>> = (shapes.len() == dtypes.len())
            .then(|| shapes.iter().map(Shape::to_known).collect())
            .flatten();
        let elems = fixed
            .and_then(|f| RowSlots::new(dtypes, &f, capacity))
            .map_or(Shuffled::Tensors(Vec::new()), |slots| Shuffled::Slots {
                slots,
                order: Vec::new(),
            });
        ShuffleStore {
            ncomp: dtypes.len(),
            elems,
            min_after_dequeue,
            rng,
        }
    }

    fn len(&self) -> usize {
        match &self.elems {
            Shuffled::Slots { order, .. } => order.len(),
            Shuffled::Tensors(e) => e.len() / self.ncomp.max(1),
        }
    }

    /// A uniformly random index below `len()`.
    fn pick_index(&mut self) -> usize {
        (self.rng.next_u32() as usize) % self.len()
    }

    /// Moves a uniformly picked tensor element to the end of `elems` and returns where it
    /// starts.
    fn pick_tensors(&mut self) -> usize {
        let idx = self.pick_index();
        let last = self.len() - 1;
        let n = self.ncomp;
        if let Shuffled::Tensors(elems) = &mut self.elems {
            if idx != last {
                for c in 0..n {
                    elems.swap(idx * n + c, last * n + c);
                }
            }
        }
        last * n
    }

    /// Stores row `row` of every component of `tuple` (`single`: the tuple is one element).
    fn push(&mut self, tuple: &[Tensor], row: usize, single: bool) -> Result<()> {
        match &mut self.elems {
            Shuffled::Slots { slots, order } => {
                order.push(slots.insert(tuple, row)?);
            }
            Shuffled::Tensors(elems) => {
                for t in tuple {
                    elems.push(if single {
                        as_row(t)?
                    } else {
                        owned_row(t, row)?
                    });
                }
            }
        }
        Ok(())
    }

    fn pop_one(&mut self) -> Result<Vec<Tensor>> {
        if let Shuffled::Slots { .. } = self.elems {
            let idx = self.pick_index();
            let Shuffled::Slots { slots, order } = &mut self.elems else {
                unreachable!("matched above")
            };
            let slot = order.swap_remove(idx);
            return slots.take_one(slot);
        }
        let at = self.pick_tensors();
        match &mut self.elems {
            Shuffled::Tensors(elems) => elems.drain(at..).map(|t| t.index_axis0(0)).collect(),
            Shuffled::Slots { .. } => unreachable!("matched above"),
        }
    }

    fn take_into(&mut self, k: usize, held: &mut Pieces) -> Result<()> {
        if let Shuffled::Slots { .. } = self.elems {
            let mut picked = Vec::with_capacity(k);
            for _ in 0..k {
                let idx = self.pick_index();
                let Shuffled::Slots { order, .. } = &mut self.elems else {
                    unreachable!("matched above")
                };
                picked.push(order.swap_remove(idx));
            }
            let Shuffled::Slots { slots, .. } = &mut self.elems else {
                unreachable!("matched above")
            };
            held.push_slots(slots.batch(picked));
            return Ok(());
        }
        for _ in 0..k {
            let at = self.pick_tensors();
            if let Shuffled::Tensors(elems) = &mut self.elems {
                held.push(elems.drain(at..), 1);
            }
        }
        Ok(())
    }

    /// Appends the rows of `held` last-first, as TensorFlow gives back a cut-short batch.
    fn restore(&mut self, mut held: Pieces) -> Result<()> {
        if let Some(b) = held.slots.take() {
            if let Shuffled::Slots { order, .. } = &mut self.elems {
                // The rows never left their slots.
                order.extend(b.into_slots().into_iter().rev());
            }
        }
        for p in (0..held.rows.len()).rev() {
            let piece: Vec<Tensor> = (0..self.ncomp).map(|c| held.comps[c][p].clone()).collect();
            for r in (0..held.rows[p]).rev() {
                match &mut self.elems {
                    Shuffled::Slots { slots, order } => order.push(slots.insert(&piece, r)?),
                    Shuffled::Tensors(elems) => {
                        for t in &piece {
                            elems.push(t.slice_axis0(r, r + 1)?);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

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
            Store::Fifo(s) => {
                let whole = start == 0 && batch.first().is_some_and(|t| t.shape()[0] == end);
                let comps = if whole {
                    batch.to_vec()
                } else {
                    batch
                        .iter()
                        .map(|t| t.slice_axis0(start, end))
                        .collect::<Result<Vec<_>>>()?
                };
                s.push_segment(comps, end - start, false);
            }
            Store::Shuffle(s) => {
                // Rows leave in random order, so a view would keep its whole batch alive until
                // the last row goes: about an epoch of data. Each row is copied, as
                // TensorFlow's enqueue_many copies it.
                for i in start..end {
                    s.push(batch, i, false)?;
                }
            }
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
            Store::Fifo(s) => s.push_segment(elem.to_vec(), 1, true),
            Store::Shuffle(s) => s.push(elem, 0, true)?,
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
            Store::Fifo(s) => s.restore_front(held),
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
fn owned_row(t: &Tensor, i: usize) -> Result<Tensor> {
    fn go<T: TensorType>(t: &Tensor, i: usize) -> Result<Tensor> {
        let mut shape = t.shape().to_vec();
        let w: usize = shape[1..].iter().product();
        shape[0] = 1;
        Tensor::from_vec(&shape, t.as_slice::<T>()?[i * w..(i + 1) * w].to_vec())
    }
    match_data_dtype!(t.dtype(), T => go::<T>(t, i), _ => t.slice_axis0(i, i + 1))
}

/// The element as a one-row batch (no copy).
fn as_row(t: &Tensor) -> Result<Tensor> {
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
    fn fifo_rows_keep_order_across_segments() {
        let mut s = Store::Fifo(FifoStore::default());
        s.push_rows(&[Tensor::from(vec![0i64, 1, 2, 3])], 1, 4)
            .unwrap();
        s.push_element(&[Tensor::from(9i64)]).unwrap();
        assert_eq!(s.len(), 4);
        assert_eq!(ints(&s.pop_one().unwrap()[0]), vec![1]);
        let mut held = Pieces::new(1);
        s.take_into(3, &mut held).unwrap();
        let out = held.concat(&[weir_graph::DType::I64], &[vec![]]).unwrap();
        assert_eq!(ints(&out[0]), vec![2, 3, 9]);
        assert_eq!(s.len(), 0);
        s.push_element(&[Tensor::from(10i64)]).unwrap();
        s.restore(held).unwrap();
        let order: Vec<i64> = (0..4).map(|_| ints(&s.pop_one().unwrap()[0])[0]).collect();
        assert_eq!(order, vec![2, 3, 9, 10]);
    }

    fn scalar_i64_shuffle(shapes: &[Shape], min_after: usize) -> Store {
        Store::Shuffle(ShuffleStore::new(
            &[DType::I64],
            shapes,
            100,
            min_after,
            Philox::new(1, 2),
        ))
    }

    #[test]
    fn shuffle_is_a_permutation_and_holds_back_while_open() {
        // With slots (a known shape) and with tensors (no shape): the same picks.
        let mut orders = Vec::new();
        for shapes in [vec![Shape::scalar()], vec![]] {
            let mut s = scalar_i64_shuffle(&shapes, 3);
            s.push_rows(&[Tensor::from((0..10i64).collect::<Vec<_>>())], 0, 10)
                .unwrap();
            assert_eq!(s.available(false), 7);
            assert_eq!(s.available(true), 10);
            let got: Vec<i64> = (0..10).map(|_| ints(&s.pop_one().unwrap()[0])[0]).collect();
            assert_ne!(got, (0..10).collect::<Vec<_>>());
            let mut sorted = got.clone();
            sorted.sort();
            assert_eq!(sorted, (0..10).collect::<Vec<_>>());
            orders.push(got);
        }
        assert_eq!(orders[0], orders[1]);
    }

    #[test]
    fn shuffle_slots_take_batches_and_take_back_rows() {
        let mut s = scalar_i64_shuffle(&[Shape::scalar()], 0);
        for v in 0..6i64 {
            s.push_element(&[Tensor::from(v)]).unwrap();
        }
        let mut held = Pieces::new(1);
        s.take_into(4, &mut held).unwrap();
        assert!(held.comps[0].is_empty(), "the rows stay in their slots");
        assert_eq!(held.total, 4);
        assert_eq!(s.len(), 2);
        s.restore(held).unwrap();
        assert_eq!(s.len(), 6);
        let mut all: Vec<i64> = (0..6).map(|_| ints(&s.pop_one().unwrap()[0])[0]).collect();
        all.sort();
        assert_eq!(all, (0..6).collect::<Vec<_>>());
    }

    #[test]
    fn shuffle_copies_rows_of_a_batch() {
        for shapes in [vec![Shape::known(&[2]), Shape::scalar()], vec![]] {
            let mut s = Store::Shuffle(ShuffleStore::new(
                &[DType::I64, DType::String],
                &shapes,
                10,
                0,
                Philox::new(3, 4),
            ));
            let a = Tensor::from_vec(&[3, 2], vec![0i64, 1, 10, 11, 20, 21]).unwrap();
            let b = Tensor::from_strings(&["x", "y", "z"]);
            s.push_rows(&[a, b], 1, 3).unwrap();
            let mut held = Pieces::new(2);
            s.take_into(2, &mut held).unwrap();
            held.resolve_slots().unwrap();
            let out = held
                .concat(&[DType::I64, DType::String], &[vec![2], vec![]])
                .unwrap();
            let mut rows: Vec<(Vec<i64>, String)> = ints(&out[0])
                .chunks(2)
                .map(<[i64]>::to_vec)
                .zip(out[1].to_strings().unwrap())
                .collect();
            rows.sort();
            assert_eq!(
                rows,
                vec![
                    (vec![10, 11], "y".to_string()),
                    (vec![20, 21], "z".to_string())
                ]
            );
        }
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
