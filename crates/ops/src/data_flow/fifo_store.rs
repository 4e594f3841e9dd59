//! FIFOQueue and PaddingFIFOQueue storage: a deque of entries in queue order. An enqueue_many
//! batch is kept as it came (zero-copy row views; FIFO order frees it front first), and single
//! elements go into row slots when the component shapes are fully defined, so a per-example
//! pipeline's enqueue allocates nothing and its dequeue_many copies the rows out in one go.

use std::collections::VecDeque;

use weir_graph::{Error, Result, Tensor};

use super::pieces::{Part, Pieces};
use super::slots::{RowRef, RowSlots};
use super::store::as_row;

/// A run of consecutive FIFO elements that came from one enqueue: `comps[c]` has dimension 0
/// holding the rows, of which `start..end` are still queued. A segment from a single
/// `enqueue` holds the element itself (`single`), so it goes in and out without reshaping.
struct Segment {
    comps: Vec<Tensor>,
    start: usize,
    end: usize,
    single: bool,
}

enum Entry {
    Rows(Segment),
    /// Consecutive single elements held in slots.
    Slots(VecDeque<u32>),
}

impl Entry {
    fn len(&self) -> usize {
        match self {
            Entry::Rows(s) => s.end - s.start,
            Entry::Slots(ids) => ids.len(),
        }
    }
}

/// FIFOQueue (and PaddingFIFOQueue) storage.
#[derive(Default)]
pub(crate) struct FifoStore {
    entries: VecDeque<Entry>,
    pub(crate) len: usize,
    /// Present when every component shape is fully defined (never for PaddingFIFOQueue).
    slots: Option<RowSlots>,
}

impl FifoStore {
    /// Storage that keeps single elements in `slots` when given.
    pub(crate) fn new(slots: Option<RowSlots>) -> FifoStore {
        FifoStore {
            entries: VecDeque::new(),
            len: 0,
            slots,
        }
    }

    /// Stores rows `start..end` of a validated batch.
    pub(crate) fn push_rows(&mut self, batch: &[Tensor], start: usize, end: usize) -> Result<()> {
        let whole = start == 0 && batch.first().is_some_and(|t| t.shape()[0] == end);
        let comps = if whole {
            batch.to_vec()
        } else {
            batch
                .iter()
                .map(|t| t.slice_axis0(start, end))
                .collect::<Result<Vec<_>>>()?
        };
        self.entries.push_back(Entry::Rows(Segment {
            comps,
            start: 0,
            end: end - start,
            single: false,
        }));
        self.len += end - start;
        Ok(())
    }

    /// Stores one validated element.
    pub(crate) fn push_element(&mut self, elem: &[Tensor]) -> Result<()> {
        match &mut self.slots {
            Some(slots) => {
                let id = slots.insert(elem, 0)?;
                match self.entries.back_mut() {
                    Some(Entry::Slots(ids)) => ids.push_back(id),
                    _ => self.entries.push_back(Entry::Slots(VecDeque::from([id]))),
                }
            }
            None => self.entries.push_back(Entry::Rows(Segment {
                comps: elem.to_vec(),
                start: 0,
                end: 1,
                single: true,
            })),
        }
        self.len += 1;
        Ok(())
    }

    pub(crate) fn pop_one(&mut self) -> Result<Vec<Tensor>> {
        let front = self
            .entries
            .front_mut()
            .expect("pop from an empty FIFO store");
        self.len -= 1;
        let out = match front {
            Entry::Slots(ids) => {
                let id = ids.pop_front().expect("slot runs are never empty");
                let slots = self.slots.as_mut().expect("slot entries need slots");
                slots.take_one(id)
            }
            Entry::Rows(seg) if seg.single => {
                seg.start = seg.end;
                Ok(std::mem::take(&mut seg.comps))
            }
            Entry::Rows(seg) => {
                let out = seg
                    .comps
                    .iter()
                    .map(|t| t.index_axis0(seg.start))
                    .collect::<Result<Vec<_>>>();
                seg.start += 1;
                out
            }
        };
        if self.entries.front().is_some_and(|e| e.len() == 0) {
            self.entries.pop_front();
        }
        out
    }

    /// Moves the first `k` elements (at most `len`) into `held`, in order.
    pub(crate) fn take_into(&mut self, mut k: usize, held: &mut Pieces) -> Result<()> {
        while k > 0 {
            let front = self
                .entries
                .front_mut()
                .expect("take from a short FIFO store");
            let m = k.min(front.len());
            match front {
                Entry::Slots(ids) => {
                    let slots = self.slots.as_ref().expect("slot entries need slots");
                    held.push_slots(slots, ids.drain(..m));
                }
                Entry::Rows(seg) if seg.single => {
                    let parts = seg.comps.iter().map(as_row).collect::<Result<Vec<_>>>()?;
                    seg.start = seg.end;
                    held.push(parts, 1);
                }
                Entry::Rows(seg)
                    if seg.start == 0 && m == seg.end && seg.comps[0].shape()[0] == m =>
                {
                    held.push(std::mem::take(&mut seg.comps), m);
                    seg.start = seg.end;
                }
                Entry::Rows(seg) => {
                    let parts = seg
                        .comps
                        .iter()
                        .map(|t| t.slice_axis0(seg.start, seg.start + m))
                        .collect::<Result<Vec<_>>>()?;
                    held.push(parts, m);
                    seg.start += m;
                }
            }
            if self.entries.front().is_some_and(|e| e.len() == 0) {
                self.entries.pop_front();
            }
            self.len -= m;
            k -= m;
        }
        Ok(())
    }

    /// Puts a cut-short batch's rows back at the front, in their original order (rows still
    /// in slots go back without a copy).
    pub(crate) fn restore_front(&mut self, held: Pieces) -> Result<()> {
        let total = held.total;
        for part in held.into_parts().into_iter().rev() {
            match part {
                Part::Rows(comps, r) => self.entries.push_front(Entry::Rows(Segment {
                    comps,
                    start: 0,
                    end: r,
                    single: false,
                })),
                Part::Slots(b) => {
                    // A FIFO queue's slot pieces only ever hold slots: its batches are views
                    // of their own (`Entry::Rows`).
                    let ids = b
                        .into_rows()
                        .0
                        .into_iter()
                        .map(|r| match r {
                            RowRef::Slot(s) => Ok(s),
                            RowRef::View { .. } => Err(Error::internal(
                                "A FIFO queue's batch held rows outside its slots",
                            )),
                        })
                        .collect::<Result<VecDeque<u32>>>()?;
                    if !ids.is_empty() {
                        self.entries.push_front(Entry::Slots(ids));
                    }
                }
            }
        }
        self.len += total;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use weir_graph::DType;

    use super::*;

    fn ints(t: &Tensor) -> Vec<i64> {
        t.to_vec::<i64>().unwrap()
    }

    fn stores() -> [FifoStore; 2] {
        let slots = RowSlots::new(&[DType::I64], &[vec![]], 100);
        assert!(slots.is_some());
        [FifoStore::new(None), FifoStore::new(slots)]
    }

    #[test]
    fn rows_keep_order_across_entries() {
        for mut s in stores() {
            s.push_rows(&[Tensor::from(vec![0i64, 1, 2, 3])], 1, 4)
                .unwrap();
            s.push_element(&[Tensor::from(9i64)]).unwrap();
            s.push_element(&[Tensor::from(10i64)]).unwrap();
            assert_eq!(s.len, 5);
            assert_eq!(ints(&s.pop_one().unwrap()[0]), vec![1]);
            let mut held = Pieces::new(1);
            s.take_into(3, &mut held).unwrap();
            // Put back before being copied out: the order is kept.
            s.push_element(&[Tensor::from(11i64)]).unwrap();
            s.restore_front(held).unwrap();
            let mut held = Pieces::new(1);
            s.take_into(4, &mut held).unwrap();
            held.resolve_slots().unwrap();
            let out = held.concat(&[DType::I64], &[vec![]]).unwrap();
            assert_eq!(ints(&out[0]), vec![2, 3, 9, 10]);
            let order: Vec<i64> = (0..1).map(|_| ints(&s.pop_one().unwrap()[0])[0]).collect();
            assert_eq!(order, vec![11]);
            assert_eq!(s.len, 0);
        }
    }

    #[test]
    fn single_elements_taken_one_at_a_time_join_one_piece() {
        let [_, mut s] = stores();
        let mut held = Pieces::new(1);
        for v in 0..5i64 {
            s.push_element(&[Tensor::from(v)]).unwrap();
            s.take_into(1, &mut held).unwrap();
        }
        assert_eq!(held.rows, vec![5]);
        held.resolve_slots().unwrap();
        let out = held.concat(&[DType::I64], &[vec![]]).unwrap();
        assert_eq!(ints(&out[0]), vec![0, 1, 2, 3, 4]);
    }
}
