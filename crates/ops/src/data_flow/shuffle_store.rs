//! RandomShuffleQueue storage: elements in row slots and kept batches when the component shapes
//! are fully defined ([`SlotShuffle`]), otherwise as one-row tensors; a pick takes a uniformly
//! random element and moves the last one into its place, as TensorFlow does.

use weir_graph::{Error, Result, Tensor};

use super::philox::Philox;
use super::pieces::{Part, Pieces};
use super::shuffle_slots::SlotShuffle;
use super::slots::RowSlots;
use super::store::{as_row, owned_row};

/// How a RandomShuffleQueue holds its elements.
enum Shuffled {
    /// Fully defined component shapes: elements in slots or kept batches.
    Slots(SlotShuffle),
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
    /// Storage for elements of `ncomp` components, in `slots` when given.
    pub(crate) fn new(
        ncomp: usize,
        slots: Option<RowSlots>,
        min_after_dequeue: usize,
        rng: Philox,
    ) -> ShuffleStore {
        let elems = match slots {
            Some(slots) => Shuffled::Slots(SlotShuffle::new(slots)),
            None => Shuffled::Tensors(Vec::new()),
        };
        ShuffleStore {
            ncomp,
            elems,
            min_after_dequeue,
            rng,
        }
    }

    pub(crate) fn len(&self) -> usize {
        match &self.elems {
            Shuffled::Slots(s) => s.len(),
            Shuffled::Tensors(e) => e.len() / self.ncomp.max(1),
        }
    }

    /// Stores one element.
    pub(crate) fn push_element(&mut self, elem: &[Tensor]) -> Result<()> {
        match &mut self.elems {
            Shuffled::Slots(s) => s.push_element(elem),
            Shuffled::Tensors(elems) => {
                for t in elem {
                    elems.push(as_row(t)?);
                }
                Ok(())
            }
        }
    }

    /// Stores rows `start..end` of a validated batch.
    pub(crate) fn push_rows(&mut self, batch: &[Tensor], start: usize, end: usize) -> Result<()> {
        match &mut self.elems {
            Shuffled::Slots(s) => s.push_rows(batch, start, end),
            Shuffled::Tensors(elems) => {
                // Each row is copied, as TensorFlow's enqueue_many copies it: a view would keep
                // its whole batch alive until its last row left.
                for row in start..end {
                    for t in batch {
                        elems.push(owned_row(t, row)?);
                    }
                }
                Ok(())
            }
        }
    }

    pub(crate) fn pop_one(&mut self) -> Result<Vec<Tensor>> {
        let n = self.ncomp;
        match &mut self.elems {
            Shuffled::Slots(s) => s.pop_one(&mut self.rng),
            Shuffled::Tensors(elems) => {
                let at = pick_tensors(&mut self.rng, elems, n);
                elems.drain(at..).map(|t| t.index_axis0(0)).collect()
            }
        }
    }

    pub(crate) fn take_into(&mut self, k: usize, held: &mut Pieces) -> Result<()> {
        let (n, rng) = (self.ncomp, &mut self.rng);
        match &mut self.elems {
            Shuffled::Slots(s) => s.take_into(k, rng, held),
            Shuffled::Tensors(elems) => {
                for _ in 0..k {
                    let at = pick_tensors(rng, elems, n);
                    held.push(elems.drain(at..), 1);
                }
            }
        }
        Ok(())
    }

    /// Appends the rows of `held` last-first, as TensorFlow gives back a cut-short batch.
    pub(crate) fn restore(&mut self, held: Pieces) -> Result<()> {
        for part in held.into_parts().into_iter().rev() {
            match (part, &mut self.elems) {
                (Part::Slots(b), Shuffled::Slots(s)) => {
                    let (rows, views) = b.into_rows();
                    s.restore(rows, views)?
                }
                (Part::Slots(_), Shuffled::Tensors(_)) => {
                    return Err(Error::internal(
                        "Rows held in slots given back to a queue that keeps tensors",
                    ))
                }
                (Part::Rows(parts, r), Shuffled::Slots(s)) => s.restore_copies(&parts, r)?,
                (Part::Rows(parts, r), Shuffled::Tensors(elems)) => {
                    for r in (0..r).rev() {
                        for t in &parts {
                            elems.push(t.slice_axis0(r, r + 1)?);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// Moves a uniformly picked element of `elems` (`ncomp` tensors each) to the end and returns
/// where it starts.
fn pick_tensors(rng: &mut Philox, elems: &mut [Tensor], ncomp: usize) -> usize {
    let len = elems.len() / ncomp.max(1);
    let (idx, last) = ((rng.next_u32() as usize) % len, len - 1);
    if idx != last {
        for c in 0..ncomp {
            elems.swap(idx * ncomp + c, last * ncomp + c);
        }
    }
    last * ncomp
}

#[cfg(test)]
mod tests {
    use weir_graph::DType;

    use super::*;
    use crate::data_flow::store::Store;

    fn ints(t: &Tensor) -> Vec<i64> {
        t.to_vec::<i64>().unwrap()
    }

    /// A RandomShuffleQueue store; with `shapes` its elements go in slots.
    fn shuffle(dtypes: &[DType], shapes: Option<&[Vec<usize>]>, min_after: usize) -> Store {
        let slots = shapes.map(|s| RowSlots::new(dtypes, s, 100).expect("storable dtypes"));
        Store::Shuffle(ShuffleStore::new(
            dtypes.len(),
            slots,
            min_after,
            Philox::new(1, 2),
        ))
    }

    #[test]
    fn shuffle_is_a_permutation_and_holds_back_while_open() {
        // With slots and with tensors: the same picks.
        let mut orders = Vec::new();
        for shapes in [Some(&[vec![]][..]), None] {
            let mut s = shuffle(&[DType::I64], shapes, 3);
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
    fn slots_take_batches_and_take_back_rows_last_first() {
        let mut got = Vec::new();
        for shapes in [Some(&[vec![]][..]), None] {
            let mut s = shuffle(&[DType::I64], shapes, 0);
            for v in 0..6i64 {
                s.push_element(&[Tensor::from(v)]).unwrap();
            }
            let mut held = Pieces::new(1);
            s.take_into(4, &mut held).unwrap();
            assert_eq!(held.total, 4);
            assert_eq!(s.len(), 2);
            s.restore(held).unwrap();
            assert_eq!(s.len(), 6);
            got.push(
                (0..6)
                    .map(|_| ints(&s.pop_one().unwrap()[0])[0])
                    .collect::<Vec<_>>(),
            );
        }
        // Slots give the rows back in the same places as tensors do.
        assert_eq!(got[0], got[1]);
        let mut all = got[0].clone();
        all.sort();
        assert_eq!(all, (0..6).collect::<Vec<_>>());
    }

    #[test]
    fn shuffle_copies_rows_of_a_batch() {
        let dtypes = [DType::I64, DType::String];
        for shapes in [Some(&[vec![2], vec![]][..]), None] {
            let mut s = shuffle(&dtypes, shapes, 0);
            let a = Tensor::from_vec(&[3, 2], vec![0i64, 1, 10, 11, 20, 21]).unwrap();
            let b = Tensor::from_strings(&["x", "y", "z"]);
            s.push_rows(&[a, b], 1, 3).unwrap();
            let mut held = Pieces::new(2);
            s.take_into(2, &mut held).unwrap();
            held.resolve_slots().unwrap();
            let out = held.concat(&dtypes, &[vec![2], vec![]]).unwrap();
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
}
