//! TensorFlow's `gtl::TopN` (as TensorFlow 2.21 ships it) over beam-entry ids, with libstdc++'s heap algorithms and
//! `std::sort` written out step for step: which of two equally likely beams survives, and the
//! order of equal scores in the decoder's output, are whatever these leave them in.
//!
//! The comparator ("greater") is passed to every call rather than stored, because the beam
//! search changes an entry's score while the entry is held here (it resets the bottom entry
//! before pushing a better one), exactly as TensorFlow mutates entries behind its `TopN`.

use crate::libstdcxx::{make_heap, pop_heap, push_heap, sort, sort_heap};

/// The three states of `gtl::TopN`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    Unordered,
    BottomKnown,
    HeapSorted,
}

/// The `limit` greatest of the ids pushed so far, by a "greater" predicate.
#[derive(Debug)]
pub(super) struct TopN {
    elements: Vec<usize>,
    limit: usize,
    state: State,
}

impl TopN {
    pub(super) fn new(limit: usize) -> TopN {
        TopN {
            elements: Vec::with_capacity(limit.saturating_add(1).min(1024)),
            limit,
            state: State::Unordered,
        }
    }

    /// The number of ids held (at most `limit`).
    pub(super) fn len(&self) -> usize {
        self.elements.len()
    }

    /// The held ids, in no particular order (`unsorted_begin()..unsorted_end()`).
    pub(super) fn unsorted(&self) -> &[usize] {
        &self.elements
    }

    /// Empties it (`Reset`).
    pub(super) fn reset(&mut self) {
        self.elements.clear();
        self.state = State::Unordered;
    }

    /// `push`: keeps `v` if there is room or it beats the lowest held id, which is then dropped.
    pub(super) fn push(&mut self, v: usize, gt: &impl Fn(usize, usize) -> bool) {
        if self.limit == 0 {
            return;
        }
        if self.state != State::HeapSorted {
            self.elements.push(v);
            let last = self.elements.len() - 1;
            if self.elements.len() == self.limit + 1 {
                // One too many: heapify, drop the lowest, and stay a heap from now on.
                make_heap(&mut self.elements, gt);
                pop_heap(&mut self.elements, gt);
                self.elements.pop();
                self.state = State::HeapSorted;
            } else if self.state != State::Unordered && !gt(self.elements[last], self.elements[0]) {
                // Keep the bottom at position 0 (TensorFlow's BOTTOM_KNOWN invariant).
                self.elements.swap(0, last);
            }
        } else if gt(v, self.elements[0]) {
            pop_heap(&mut self.elements, gt);
            let last = self.elements.len() - 1;
            self.elements[last] = v;
            push_heap(&mut self.elements, gt);
        }
    }

    /// `peek_bottom`: the lowest held id (the heap's front, or found by a scan and moved to the
    /// front). `None` when empty, where TensorFlow CHECK-fails.
    pub(super) fn peek_bottom(&mut self, gt: &impl Fn(usize, usize) -> bool) -> Option<usize> {
        if self.len() == 0 {
            return None;
        }
        if self.state == State::Unordered {
            let mut min = 0;
            for i in 1..self.elements.len() {
                if gt(self.elements[min], self.elements[i]) {
                    min = i;
                }
            }
            self.elements.swap(0, min);
            self.state = State::BottomKnown;
        }
        Some(self.elements[0])
    }

    /// `Extract`: the held ids, greatest first, leaving it to be `reset`.
    pub(super) fn extract(&mut self, gt: &impl Fn(usize, usize) -> bool) -> Vec<usize> {
        let mut out = std::mem::take(&mut self.elements);
        if self.state != State::HeapSorted {
            sort(&mut out, gt);
        } else {
            sort_heap(&mut out, gt);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_greatest_and_extracts_them_in_order() {
        let score = [3.0, 1.0, 4.0, 1.5, 9.0, 2.6, 5.0];
        let gt = |a: usize, b: usize| score[a] > score[b];
        let mut t = TopN::new(3);
        for i in 0..score.len() {
            t.push(i, &gt);
        }
        assert_eq!(t.len(), 3);
        assert_eq!(t.peek_bottom(&gt), Some(2));
        assert_eq!(t.extract(&gt), vec![4, 6, 2]);
    }

    #[test]
    fn sorts_long_runs_like_std_sort() {
        let score: Vec<f64> = (0..40).map(|i| ((i * 37) % 11) as f64).collect();
        let gt = |a: usize, b: usize| score[a] > score[b];
        let mut t = TopN::new(100);
        for i in 0..score.len() {
            t.push(i, &gt);
        }
        let out = t.extract(&gt);
        assert_eq!(out.len(), 40);
        assert!(out.windows(2).all(|w| score[w[0]] >= score[w[1]]));
    }

    #[test]
    fn bottom_known_pushes_keep_the_bottom_in_front() {
        let score = [2.0, 1.0, 3.0, 0.5];
        let gt = |a: usize, b: usize| score[a] > score[b];
        let mut t = TopN::new(4);
        t.push(0, &gt);
        t.push(1, &gt);
        assert_eq!(t.peek_bottom(&gt), Some(1));
        t.push(2, &gt);
        t.push(3, &gt);
        assert_eq!(t.peek_bottom(&gt), Some(3));
        assert_eq!(t.extract(&gt), vec![2, 0, 1, 3]);
    }
}
