//! Running one attempt of a queue's enqueue or dequeue list: TensorFlow's per-kind
//! `TryEnqueue`/`TryDequeueMany` callbacks, which finish, progress or wait.

use weir_graph::{Error, Result, Tensor};

use super::pieces::Pieces;
use super::queue::{Attempt, Op, QueueKind, Run, SessionQueue, State};

impl SessionQueue {
    pub(super) fn run(&self, st: &mut State, attempt: &mut Attempt) -> Run {
        match &mut attempt.op {
            Op::Close => {
                if st.closed {
                    Run::Complete(Err(Error::cancelled(format!(
                        "Queue '{}' is already closed.",
                        self.name
                    ))))
                } else {
                    st.closed = true;
                    Run::Complete(Ok(Vec::new()))
                }
            }
            Op::Enqueue {
                tuple,
                next,
                end,
                many,
            } => {
                if st.closed {
                    return Run::Complete(Err(self.closed_error()));
                }
                let room = self.capacity.saturating_sub(st.store.len());
                let k = room.min(*end - *next);
                if k == 0 {
                    return Run::NoProgress;
                }
                let pushed = if *many {
                    st.store.push_rows(tuple, *next, *next + k)
                } else {
                    st.store.push_element(tuple)
                };
                if let Err(e) = pushed {
                    return Run::Complete(Err(e));
                }
                *next += k;
                if *next == *end {
                    Run::Complete(Ok(Vec::new()))
                } else {
                    Run::Progress
                }
            }
            Op::Dequeue => {
                let size = st.store.len();
                if st.closed && size == 0 {
                    return Run::Complete(Err(self.insufficient(1, 0)));
                }
                if st.store.available(st.closed) > 0 {
                    Run::Complete(st.store.pop_one())
                } else {
                    Run::NoProgress
                }
            }
            Op::DequeueMany {
                remaining,
                allow_small,
                held,
            } => {
                if self.kind == QueueKind::Priority {
                    return self.run_priority_many(st, remaining, *allow_small, held);
                }
                let size = st.store.len();
                if st.closed && size < *remaining {
                    if !held.is_empty() {
                        if let Err(e) = st.store.restore(held.take()) {
                            return Run::Complete(Err(e));
                        }
                    }
                    let now = st.store.len();
                    if *allow_small && now > 0 {
                        *remaining = now;
                    } else {
                        if *allow_small && !st.enqueues.is_empty() {
                            // Wait for pending enqueues that may still add elements.
                            return Run::Progress;
                        }
                        return Run::Complete(Err(self.insufficient(*remaining, size)));
                    }
                }
                let k = st.store.available(st.closed).min(*remaining);
                if k == 0 {
                    return Run::NoProgress;
                }
                if let Err(e) = st.store.take_into(k, held) {
                    return Run::Complete(Err(e));
                }
                *remaining -= k;
                if *remaining == 0 {
                    Run::Batch(held.take())
                } else {
                    Run::Progress
                }
            }
        }
    }

    /// PriorityQueue's dequeue_many waits for the whole batch so that it comes out sorted.
    fn run_priority_many(
        &self,
        st: &mut State,
        remaining: &mut usize,
        allow_small: bool,
        held: &mut Pieces,
    ) -> Run {
        let s = st.store.len();
        if st.closed && (s == 0 || (!allow_small && s < *remaining)) {
            return Run::Complete(Err(self.insufficient(*remaining, s)));
        }
        if s < *remaining && (s == 0 || !(st.closed && allow_small)) {
            return Run::NoProgress;
        }
        let k = s.min(*remaining);
        if let Err(e) = st.store.take_into(k, held) {
            return Run::Complete(Err(e));
        }
        *remaining = 0;
        Run::Batch(held.take())
    }

    /// Copies a finished dequeue_many's rows into its batch. Called after the queue's lock is
    /// released, by the dequeuing thread, so enqueuers never wait behind the copy.
    pub(super) fn assemble(&self, mut h: Pieces) -> Result<Vec<Tensor>> {
        h.resolve_slots()?;
        if self.kind == QueueKind::PaddingFifo {
            h.concat_padded(&self.dtypes, &self.shapes)
        } else {
            h.concat(&self.dtypes, &self.many_shapes)
        }
    }
}
