//! TensorFlow's conditional accumulators (`ConditionalAccumulatorBase`): the session resource
//! that sums the gradients of several workers and hands out their mean once enough arrived,
//! as `SyncReplicasOptimizer` aggregates them.
//!
//! Each gradient comes with the step it was computed at: one older than the accumulator's
//! global step is stale and silently dropped. `take` waits until `num_required` gradients
//! were summed, then outputs their MEAN (or SUM), starts a new sum and advances the global
//! step. Takes are served in the order they arrived, by whichever call completes the
//! condition (an apply completes the take at the front there and then, so a gradient applied
//! after it counts towards the next one), exactly as TensorFlow's attempts queue does.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Instant;

use weir_graph::{CancellationToken, DType, Error, Monitor, Resource, Result, Shape, Tensor};

use super::accumulator_builders::ReductionType;
use super::accumulator_dense as dense;
use super::accumulator_sparse::{self as sparse, SparseGrad, SparseSum};

/// TensorFlow's error for a take whose run was cancelled (the session closed).
fn cancelled() -> Error {
    Error::cancelled("TakeGrad operation was cancelled")
}

/// A gradient offered to an accumulator.
pub(super) enum Gradient<'a> {
    Dense(&'a Tensor),
    Sparse(SparseGrad<'a>),
}

/// The gradients summed since the last take.
enum Sum {
    Dense(Tensor),
    Sparse(SparseSum),
}

struct State {
    /// Gradients summed since the last take (TensorFlow's `counter_`).
    counter: i32,
    global_step: i64,
    sum: Option<Sum>,
    /// Waiting takes, first come first served: (attempt id, num_required).
    attempts: VecDeque<(u64, i32)>,
    /// Takes completed on behalf of their callers, until those wake up and collect them.
    done: HashMap<u64, Result<Vec<Tensor>>>,
    next_attempt: u64,
}

/// One accumulator of a session: TensorFlow's `ConditionalAccumulator` (dense gradients) or
/// `SparseConditionalAccumulator`.
pub(super) struct Accumulator {
    name: String,
    dtype: DType,
    shape: Shape,
    reduction: ReductionType,
    sparse: bool,
    monitor: Arc<Monitor<State>>,
}

impl Resource for Accumulator {
    fn type_name(&self) -> &str {
        if self.sparse {
            "SparseConditionalAccumulator"
        } else {
            "ConditionalAccumulator"
        }
    }
}

impl Accumulator {
    /// An empty accumulator at global step 0.
    pub(super) fn new(
        name: &str,
        dtype: DType,
        shape: Shape,
        reduction: ReductionType,
        sparse: bool,
    ) -> Accumulator {
        Accumulator {
            name: name.to_string(),
            dtype,
            shape,
            reduction,
            sparse,
            monitor: Monitor::new(State {
                counter: 0,
                global_step: 0,
                sum: None,
                attempts: VecDeque::new(),
                done: HashMap::new(),
                next_attempt: 0,
            }),
        }
    }

    /// The gradients' dtype.
    pub(super) fn dtype(&self) -> DType {
        self.dtype
    }

    /// Whether the accumulator sums sparse gradients.
    pub(super) fn is_sparse(&self) -> bool {
        self.sparse
    }

    /// The accumulator's resource name, as messages quote it.
    pub(super) fn name(&self) -> &str {
        &self.name
    }

    /// `TryApplyGrad`: adds `grad` unless `local_step` is older than the global step (a stale
    /// gradient is dropped unchecked), then completes whatever takes that satisfies.
    pub(super) fn apply(&self, local_step: i64, grad: Gradient<'_>) -> Result<()> {
        let mut st = self.monitor.lock();
        let added = if local_step >= st.global_step {
            self.add(&mut st, grad)
        } else {
            Ok(())
        };
        if self.flush(&mut st) {
            self.monitor.notify_all();
        }
        added
    }

    fn add(&self, st: &mut State, grad: Gradient<'_>) -> Result<()> {
        let current = if st.counter > 0 { st.sum.take() } else { None };
        let next = match (grad, current) {
            (Gradient::Dense(g), None) => dense::validate(&self.shape, None, g)
                .map(|()| Sum::Dense(g.clone()))
                .map_err(|e| (None, e)),
            (Gradient::Dense(g), Some(Sum::Dense(t))) => {
                match dense::validate(&self.shape, Some(&t), g) {
                    // Only a dtype mismatch fails to add, which the kernels rule out.
                    Ok(()) => dense::add(t, g).map(Sum::Dense).map_err(|e| (None, e)),
                    Err(e) => Err((Some(Sum::Dense(t)), e)),
                }
            }
            (Gradient::Sparse(g), None) => sparse::validate(&self.shape, &g, None)
                .and_then(|()| SparseSum::first(&g))
                .map(Sum::Sparse)
                .map_err(|e| (None, e)),
            (Gradient::Sparse(g), Some(Sum::Sparse(s))) => {
                match sparse::validate(&self.shape, &g, Some(&s)) {
                    Ok(()) => s.add(&g).map(Sum::Sparse).map_err(|e| (None, e)),
                    Err(e) => Err((Some(Sum::Sparse(s)), e)),
                }
            }
            (_, Some(sum)) => Err((
                Some(sum),
                Error::internal(format!(
                    "accumulator {} was given a gradient of the other kind",
                    self.name
                )),
            )),
        };
        match next {
            Ok(sum) => {
                st.sum = Some(sum);
                st.counter += 1;
                Ok(())
            }
            Err((kept, e)) => {
                if kept.is_none() {
                    st.counter = 0;
                }
                st.sum = kept;
                Err(e)
            }
        }
    }

    /// `TryTakeGrad`: the reduced gradient once `num_required` gradients were summed (TensorFlow's
    /// outputs: the dense mean or sum; or indices, values and dense shape). Blocks until then;
    /// Cancelled ("TakeGrad operation was cancelled") when `cancel` fires, DeadlineExceeded
    /// at `deadline`.
    pub(super) fn take(
        &self,
        num_required: i32,
        cancel: &CancellationToken,
        deadline: Option<Instant>,
    ) -> Result<Vec<Tensor>> {
        if num_required <= 0 {
            return Err(Error::invalid_argument(format!(
                "Argument num_required must be positive, but was {num_required}"
            )));
        }
        let mut st = self.monitor.lock();
        if cancel.is_cancelled() {
            return Err(cancelled());
        }
        let id = st.next_attempt;
        st.next_attempt += 1;
        st.attempts.push_back((id, num_required));
        if self.flush(&mut st) {
            self.monitor.notify_all();
        }
        let waited = self
            .monitor
            .wait_while(&mut st, cancel, deadline, |s| !s.done.contains_key(&id));
        // A take completed by an apply as the run was being cancelled still counts: the
        // gradients it reset are in its result.
        if let Some(out) = st.done.remove(&id) {
            return out;
        }
        // Withdrawn, it no longer holds up the takes behind it.
        st.attempts.retain(|&(a, _)| a != id);
        if self.flush(&mut st) {
            self.monitor.notify_all();
        }
        match waited {
            Err(e) if e.is_deadline_exceeded() => Err(e),
            Err(_) => Err(cancelled()),
            Ok(()) => Err(Error::internal("a take ended without its gradient")),
        }
    }

    /// Completes the takes at the front of the queue while enough gradients are summed;
    /// whether any completed.
    fn flush(&self, st: &mut State) -> bool {
        let mut progress = false;
        while let Some(&(id, need)) = st.attempts.front() {
            if st.counter < need {
                break;
            }
            st.attempts.pop_front();
            let out = self.take_locked(st);
            st.done.insert(id, out);
            progress = true;
        }
        progress
    }

    /// TensorFlow's `TakeGradLockedHelper`: advances the global step and reduces the sum.
    fn take_locked(&self, st: &mut State) -> Result<Vec<Tensor>> {
        st.global_step += 1;
        let count = std::mem::take(&mut st.counter);
        let mean = self.reduction == ReductionType::Mean;
        match st.sum.take() {
            Some(Sum::Dense(t)) if mean => Ok(vec![dense::divide(t, count)?]),
            Some(Sum::Dense(t)) => Ok(vec![t]),
            Some(Sum::Sparse(s)) => s.into_outputs(mean, &self.shape),
            None => Err(Error::internal(format!(
                "accumulator {} counted {count} gradients but holds none",
                self.name
            ))),
        }
    }

    /// `SetGlobalStep`: gradients older than `step` are stale from now on. TensorFlow only
    /// logs a warning when the step goes back.
    pub(super) fn set_global_step(&self, step: i64) {
        self.monitor.lock().global_step = step;
    }

    /// The number of gradients summed since the last take.
    pub(super) fn num_accumulated(&self) -> i32 {
        self.monitor.lock().counter
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn dense_acc(reduction: ReductionType) -> Arc<Accumulator> {
        Arc::new(Accumulator::new(
            "acc",
            DType::F32,
            Shape::known(&[2]),
            reduction,
            false,
        ))
    }

    fn grad(a: f32, b: f32) -> Tensor {
        Tensor::from_vec(&[2], vec![a, b]).unwrap()
    }

    fn soon() -> Option<Instant> {
        Some(Instant::now() + Duration::from_secs(20))
    }

    /// Waits (at most 20 s) until `n` takes are queued.
    fn until_waiting(acc: &Accumulator, n: usize) {
        let start = Instant::now();
        while acc.monitor.lock().attempts.len() < n {
            assert!(start.elapsed() < Duration::from_secs(20), "no take queued");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn takes_are_served_first_come_first_served() {
        let acc = dense_acc(ReductionType::Sum);
        let token = CancellationToken::new();
        let (a, t) = (acc.clone(), token.clone());
        let first = std::thread::spawn(move || a.take(2, &t, soon()));
        until_waiting(&acc, 1);
        let (a, t) = (acc.clone(), token.clone());
        let second = std::thread::spawn(move || a.take(1, &t, soon()));
        until_waiting(&acc, 2);
        // One gradient would do for the second take, but the first is ahead of it.
        acc.apply(0, Gradient::Dense(&grad(1.0, 2.0))).unwrap();
        assert_eq!(acc.num_accumulated(), 1);
        acc.apply(0, Gradient::Dense(&grad(3.0, 4.0))).unwrap();
        let got = first.join().unwrap().unwrap();
        assert_eq!(got[0].to_vec::<f32>().unwrap(), vec![4.0, 6.0]);
        // The first take advanced the global step: a gradient of step 0 is stale now.
        acc.apply(0, Gradient::Dense(&grad(9.0, 9.0))).unwrap();
        assert_eq!(acc.num_accumulated(), 0);
        acc.apply(1, Gradient::Dense(&grad(5.0, 6.0))).unwrap();
        let got = second.join().unwrap().unwrap();
        assert_eq!(got[0].to_vec::<f32>().unwrap(), vec![5.0, 6.0]);
    }

    #[test]
    fn a_cancelled_take_steps_aside() {
        let acc = dense_acc(ReductionType::Mean);
        let token = CancellationToken::new();
        let (a, t) = (acc.clone(), token.clone());
        let blocked = std::thread::spawn(move || a.take(5, &t, soon()));
        until_waiting(&acc, 1);
        acc.apply(0, Gradient::Dense(&grad(2.0, 4.0))).unwrap();
        token.cancel(Error::cancelled("Session has been closed."));
        let e = blocked.join().unwrap().unwrap_err();
        assert!(e.is_cancelled(), "{e}");
        assert_eq!(e.message(), "TakeGrad operation was cancelled");
        assert!(acc.monitor.lock().attempts.is_empty());
        let fresh = CancellationToken::new();
        let got = acc.take(1, &fresh, soon()).unwrap();
        assert_eq!(got[0].to_vec::<f32>().unwrap(), vec![2.0, 4.0]);
        let e = acc.take(1, &token, soon()).unwrap_err();
        assert!(e.is_cancelled());
    }

    #[test]
    fn a_failed_gradient_leaves_the_sum_as_it_was() {
        let acc = dense_acc(ReductionType::Mean);
        acc.apply(0, Gradient::Dense(&grad(1.0, 3.0))).unwrap();
        let e = acc
            .apply(0, Gradient::Dense(&Tensor::scalar(1f32)))
            .unwrap_err();
        assert_eq!(e.message(), "Shape mismatch: expected [2], got []");
        acc.apply(0, Gradient::Dense(&grad(3.0, 5.0))).unwrap();
        let got = acc.take(2, &CancellationToken::new(), soon()).unwrap();
        assert_eq!(got[0].to_vec::<f32>().unwrap(), vec![2.0, 4.0]);
        let e = acc.take(0, &CancellationToken::new(), soon()).unwrap_err();
        assert_eq!(
            e.message(),
            "Argument num_required must be positive, but was 0"
        );
    }
}
