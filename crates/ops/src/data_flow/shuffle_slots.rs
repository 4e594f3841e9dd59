//! The elements of a RandomShuffleQueue whose component shapes are fully defined: single
//! elements in row slots, and enqueue_many batches kept as they came while most of their rows
//! are still queued.
//!
//! Why keep batches: copying every row of an enqueue_many into a slot was the largest cost of
//! the enqueuing thread in `shuffle_batch(enqueue_many=True)` pipelines (a 400 KB copy per
//! batch of 128 MNIST images, into slots spread over the whole queue), and the dequeue copies
//! each row once more into its batch anyway. Why not keep them for good: rows leave in random
//! order, so a batch would stay alive until its last row left, about an epoch of data later.
//! So the store compacts: when the rows of kept batches that have already left outnumber the
//! elements queued, the batches with the fewest rows still queued have those rows copied into
//! slots and are let go, a batch's worth at a time. Kept batches then hold at most about twice
//! the queued data, and (simulated for a 10,384-element queue taking batches of 128) about one
//! row in seven is ever copied into a slot, at most a batch's worth in one enqueue.

use smallvec::SmallVec;
use weir_graph::{Error, Result, Tensor};

use super::philox::Philox;
use super::pieces::Pieces;
use super::slots::{BatchParts, RowRef, RowSlots};

/// An enqueue_many batch of at least this many rows is kept as it came.
const MIN_KEPT_ROWS: usize = 4;

/// Where a queued element is.
#[derive(Clone, Copy, Debug)]
enum Elem {
    Slot(u32),
    /// Row `row` of kept batch `batch`.
    Kept {
        batch: u32,
        row: u32,
    },
}

/// An enqueue_many batch with rows still queued.
struct Kept {
    /// One tensor per component, rows in dimension 0.
    parts: BatchParts,
    /// Rows this batch brought (its share of the tensors).
    rows: usize,
    /// Rows still queued.
    live: usize,
    /// The `take_into` call that last referenced it, and under which view part.
    stamp: u64,
    part: u32,
}

/// RandomShuffleQueue elements of fully defined shapes; picks are TensorFlow's (a uniformly
/// random element, the last one moved into its place).
pub(crate) struct SlotShuffle {
    slots: RowSlots,
    order: Vec<Elem>,
    kept: Vec<Option<Kept>>,
    free_kept: Vec<u32>,
    /// Rows of all kept batches, and how many of them are still queued.
    kept_rows: usize,
    kept_live: usize,
    takes: u64,
}

impl SlotShuffle {
    pub(crate) fn new(slots: RowSlots) -> SlotShuffle {
        SlotShuffle {
            slots,
            order: Vec::new(),
            kept: Vec::new(),
            free_kept: Vec::new(),
            kept_rows: 0,
            kept_live: 0,
            takes: 0,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.order.len()
    }

    /// Stores one element (each component of its element shape).
    pub(crate) fn push_element(&mut self, elem: &[Tensor]) -> Result<()> {
        let s = self.slots.insert(elem, 0)?;
        self.order.push(Elem::Slot(s));
        Ok(())
    }

    /// Stores rows `start..end` of a validated batch.
    pub(crate) fn push_rows(&mut self, batch: &[Tensor], start: usize, end: usize) -> Result<()> {
        if end - start < MIN_KEPT_ROWS {
            for row in start..end {
                let s = self.slots.insert(batch, row)?;
                self.order.push(Elem::Slot(s));
            }
            return Ok(());
        }
        let rows = end - start;
        let k = Kept {
            parts: BatchParts::from(batch),
            rows,
            live: rows,
            stamp: 0,
            part: 0,
        };
        let id = match self.free_kept.pop() {
            Some(id) => {
                self.kept[id as usize] = Some(k);
                id
            }
            None => {
                self.kept.push(Some(k));
                (self.kept.len() - 1) as u32
            }
        };
        self.order.extend((start..end).map(|row| Elem::Kept {
            batch: id,
            row: row as u32,
        }));
        self.kept_rows += rows;
        self.kept_live += rows;
        self.compact(rows)
    }

    /// Removes a uniformly picked element, as TensorFlow picks it.
    fn pick(&mut self, rng: &mut Philox) -> Elem {
        let idx = (rng.next_u32() as usize) % self.order.len();
        self.order.swap_remove(idx)
    }

    /// One row of kept batch `batch` has left the queue; the batch goes once none is left.
    fn left(&mut self, batch: u32) {
        self.kept_live -= 1;
        let k = self.kept[batch as usize]
            .as_mut()
            .expect("a queued row's batch is kept");
        k.live -= 1;
        if k.live == 0 {
            self.kept_rows -= k.rows;
            self.kept[batch as usize] = None;
            self.free_kept.push(batch);
        }
    }

    /// Removes one random element; the store must not be empty.
    pub(crate) fn pop_one(&mut self, rng: &mut Philox) -> Result<Vec<Tensor>> {
        match self.pick(rng) {
            Elem::Slot(s) => self.slots.take_one(s),
            Elem::Kept { batch, row } => {
                let k = self.kept[batch as usize]
                    .as_ref()
                    .expect("a queued row's batch is kept");
                // A copy: the element must not keep its whole batch alive.
                let out = self.slots.copy_row(&k.parts, row as usize);
                self.left(batch);
                out
            }
        }
    }

    /// Moves `k` random elements (at most `len`) into `held`, in pick order; they are copied
    /// out after the queue's lock is released.
    pub(crate) fn take_into(&mut self, k: usize, rng: &mut Philox, held: &mut Pieces) {
        self.takes += 1;
        // A dequeue waiting on per-example enqueues takes one row per flush: no allocation.
        let mut rows: SmallVec<[RowRef; 16]> = SmallVec::with_capacity(k);
        let mut views = Vec::new();
        for _ in 0..k {
            match self.pick(rng) {
                Elem::Slot(s) => rows.push(RowRef::Slot(s)),
                Elem::Kept { batch, row } => {
                    let kb = self.kept[batch as usize]
                        .as_mut()
                        .expect("a queued row's batch is kept");
                    if kb.stamp != self.takes {
                        kb.stamp = self.takes;
                        kb.part = views.len() as u32;
                        views.push(kb.parts.clone());
                    }
                    rows.push(RowRef::View { part: kb.part, row });
                    self.left(batch);
                }
            }
        }
        held.push_rows(&self.slots, rows.into_iter(), views);
    }

    /// Appends the rows of a cut-short batch last-first, as TensorFlow gives them back: rows
    /// still in slots go back as they are, the others are copied into slots.
    pub(crate) fn restore(&mut self, rows: Vec<RowRef>, views: Vec<BatchParts>) -> Result<()> {
        for r in rows.into_iter().rev() {
            let s = match r {
                RowRef::Slot(s) => s,
                RowRef::View { part, row } => {
                    let parts = views
                        .get(part as usize)
                        .ok_or_else(|| Error::internal("A queue row refers to a missing batch"))?;
                    self.slots.insert(parts, row as usize)?
                }
            };
            self.order.push(Elem::Slot(s));
        }
        Ok(())
    }

    /// Appends rows `0..rows` of `piece` (one tensor per component) last-first, copied into
    /// slots.
    pub(crate) fn restore_copies(&mut self, piece: &[Tensor], rows: usize) -> Result<()> {
        for r in (0..rows).rev() {
            let s = self.slots.insert(piece, r)?;
            self.order.push(Elem::Slot(s));
        }
        Ok(())
    }

    /// When more kept rows have left than elements are queued, copies the queued rows of the
    /// batches with the fewest still queued into slots until an enqueue's worth (`pushed`
    /// rows) fewer have left.
    ///
    /// Why so little at a time: this runs under the queue's lock, and a dequeue waits for it.
    /// Freeing down to half the queued rows at once copied up to 2,700 MNIST rows (8 MB, some
    /// milliseconds) every forty batches or so, a stall a training step often hit; freeing a
    /// little at each enqueue copies fewer rows in all (the batches let go are sparser), in
    /// pieces of at most a batch.
    fn compact(&mut self, pushed: usize) -> Result<()> {
        let gone = self.kept_rows - self.kept_live;
        if gone <= self.order.len() {
            return Ok(());
        }
        let slack = (self.order.len() / 2).min(pushed);
        let mut sparse: Vec<(u32, usize, usize)> = self
            .kept
            .iter()
            .enumerate()
            .filter_map(|(id, k)| k.as_ref().map(|k| (id as u32, k.live, k.rows)))
            .collect();
        // Fewest queued per row brought first: the least copying for the most memory.
        sparse.sort_unstable_by(|a, b| (a.1 * b.2).cmp(&(b.1 * a.2)));
        let mut chosen = vec![false; self.kept.len()];
        let mut freed = 0;
        let target = gone - (self.order.len() - slack);
        for &(id, live, rows) in &sparse {
            if freed >= target {
                break;
            }
            chosen[id as usize] = true;
            freed += rows - live;
        }
        for i in 0..self.order.len() {
            if let Elem::Kept { batch, row } = self.order[i] {
                if chosen[batch as usize] {
                    let k = self.kept[batch as usize]
                        .as_ref()
                        .expect("a queued row's batch is kept");
                    let s = self.slots.insert(&k.parts, row as usize)?;
                    self.order[i] = Elem::Slot(s);
                    self.left(batch);
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use weir_graph::DType;

    use super::*;

    fn store(capacity: usize) -> SlotShuffle {
        SlotShuffle::new(RowSlots::new(&[DType::I64], &[vec![2]], capacity).unwrap())
    }

    fn batch(first: i64, rows: usize) -> Tensor {
        let v: Vec<i64> = (0..rows as i64 * 2).map(|i| first * 2 + i).collect();
        Tensor::from_vec(&[rows, 2], v).unwrap()
    }

    fn drain(s: &mut SlotShuffle, rng: &mut Philox, k: usize) -> Vec<i64> {
        let mut held = Pieces::new(1);
        s.take_into(k, rng, &mut held);
        held.resolve_slots().unwrap();
        let t = held.concat(&[DType::I64], &[vec![2]]).unwrap();
        let v = t[0].to_vec::<i64>().unwrap();
        // Each row is (2i, 2i + 1): keep i.
        v.chunks(2)
            .map(|r| {
                assert_eq!(r[1], r[0] + 1);
                r[0] / 2
            })
            .collect()
    }

    #[test]
    fn kept_batches_compact_and_every_row_comes_out_once() {
        let mut s = store(1000);
        let mut rng = Philox::new(7, 9);
        let mut seen = Vec::new();
        let mut next = 0i64;
        for _ in 0..200 {
            while s.len() + 32 <= 600 {
                s.push_rows(&[batch(next, 32)], 0, 32).unwrap();
                next += 32;
            }
            // After an enqueue, kept batches hold at most twice the queued rows.
            assert!(s.kept_rows - s.kept_live <= s.len());
            seen.extend(drain(&mut s, &mut rng, 32));
            assert_eq!(
                s.kept_live,
                s.order
                    .iter()
                    .filter(|e| matches!(e, Elem::Kept { .. }))
                    .count()
            );
        }
        // Some rows were compacted into slots, and most were not.
        let in_slots = s
            .order
            .iter()
            .filter(|e| matches!(e, Elem::Slot(_)))
            .count();
        assert!(in_slots > 0 && in_slots < s.len());
        while s.len() > 0 {
            let k = s.len().min(50);
            seen.extend(drain(&mut s, &mut rng, k));
        }
        assert_eq!(s.kept_rows, 0);
        assert!(s.kept.iter().all(Option::is_none));
        seen.sort_unstable();
        assert_eq!(seen, (0..next).collect::<Vec<_>>());
    }

    #[test]
    fn picks_are_the_same_whether_rows_are_kept_or_in_slots() {
        let mut orders = Vec::new();
        for rows_per_push in [1usize, 8] {
            let mut s = store(100);
            let mut rng = Philox::new(1, 2);
            for first in (0..48).step_by(rows_per_push) {
                s.push_rows(&[batch(first as i64, rows_per_push)], 0, rows_per_push)
                    .unwrap();
            }
            let mut got = drain(&mut s, &mut rng, 20);
            got.extend(
                (0..4).map(|_| s.pop_one(&mut rng).unwrap()[0].to_vec::<i64>().unwrap()[0] / 2),
            );
            let rest = s.len();
            got.extend(drain(&mut s, &mut rng, rest));
            orders.push(got);
        }
        assert_eq!(orders[0], orders[1]);
        let mut all = orders[0].clone();
        all.sort_unstable();
        assert_eq!(all, (0..48).collect::<Vec<_>>());
    }

    #[test]
    fn a_popped_element_and_restored_rows_do_not_share_the_batch() {
        let mut s = store(100);
        let mut rng = Philox::new(3, 4);
        let b = batch(0, 8);
        s.push_rows(std::slice::from_ref(&b), 0, 8).unwrap();
        let one = s.pop_one(&mut rng).unwrap();
        assert_eq!(one[0].shape(), &[2]);
        assert!(one[0].is_unique());
        let mut held = Pieces::new(1);
        s.take_into(3, &mut rng, &mut held);
        assert_eq!(s.len(), 4);
        for part in held.into_parts() {
            match part {
                super::super::pieces::Part::Slots(sb) => {
                    let (rows, views) = sb.into_rows();
                    assert!(rows.iter().all(|r| matches!(r, RowRef::View { .. })));
                    s.restore(rows, views).unwrap();
                }
                super::super::pieces::Part::Rows(..) => panic!("rows were taken as slots"),
            }
        }
        assert_eq!(s.len(), 7);
        let mut rest = drain(&mut s, &mut rng, 7);
        rest.push(one[0].to_vec::<i64>().unwrap()[0] / 2);
        rest.sort_unstable();
        assert_eq!(rest, (0..8).collect::<Vec<_>>());
        // Everything left: the batch is only held by the test.
        assert!(s.kept.iter().all(Option::is_none));
        assert!(b.is_unique());
    }

    /// The training bench's shape: a 10,384-element queue kept at 10,000 or more, batches of
    /// 128 in and out. Compacting a batch's worth at a time copies a small share of the rows
    /// into slots, never more than a batch in one enqueue, and kept batches stay within twice
    /// the queued data.
    #[test]
    fn compaction_copies_a_small_share_of_the_rows() {
        let (cap, floor, b) = (10_384usize, 10_000usize, 128usize);
        let mut s = store(cap);
        let mut rng = Philox::new(5, 6);
        let in_slots = |s: &SlotShuffle| {
            s.order
                .iter()
                .filter(|e| matches!(e, Elem::Slot(_)))
                .count()
        };
        let (mut next, mut pushed, mut copied, mut most) = (0i64, 0usize, 0usize, 0usize);
        for _ in 0..1500 {
            while s.len() + b <= cap {
                let before = in_slots(&s);
                s.push_rows(&[batch(next, b)], 0, b).unwrap();
                let now = in_slots(&s) - before;
                copied += now;
                most = most.max(now);
                next += b as i64;
                pushed += b;
                assert!(s.kept_rows - s.kept_live <= s.len());
            }
            assert!(s.len() >= floor);
            drain(&mut s, &mut rng, b);
        }
        // Freeing down to half the queue at once copied 20% of the rows, up to 2,735 in one
        // enqueue; now 15%, at most 111.
        let share = copied as f64 / pushed as f64;
        assert!(share < 0.17, "{copied} of {pushed} rows copied");
        assert!(most <= b, "one enqueue copied {most} rows");
    }
}
