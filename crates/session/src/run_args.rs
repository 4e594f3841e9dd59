//! The feeds, fetches and targets of one `Session::run` call.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use weir_graph::{Operation, Output, Tensor};

use crate::plan::Plan;
use crate::step_stats::TraceLevel;

#[derive(Clone, Debug)]
pub(crate) enum TensorRef {
    Output(Output),
    Name(String),
}

#[derive(Clone, Debug)]
pub(crate) enum OpRef {
    Op(Operation),
    Name(String),
}

/// What one run feeds, fetches and targets, in TensorFlow's words: `sess.run(fetches,
/// feed_dict)` with operations as targets, plus `RunOptions(timeout_in_ms, trace_level)`.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape, Tensor};
/// # use weir_ops::array::placeholder;
/// # use weir_session::RunArgs;
/// # let g = Graph::new();
/// # let x = placeholder(&g, DType::F32, Shape::unknown())?;
/// let args = RunArgs::new()
///     .feed(&x, Tensor::from(vec![1.0f32, 2.0]))
///     .fetch(&x)
///     .timeout(std::time::Duration::from_secs(5));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct RunArgs {
    pub(crate) feeds: Vec<(TensorRef, Tensor)>,
    pub(crate) fetches: Vec<TensorRef>,
    pub(crate) targets: Vec<OpRef>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) trace_level: TraceLevel,
    /// The token the run waits on instead of the session's own (a child of it): how a
    /// function called by a kernel ends with its caller.
    pub(crate) cancellation: RunCancellation,
    /// The plan of the first session that ran these args (its id, the plan). Feeds' values may
    /// change between runs; their keys, fetches and targets cannot, so the plan stays valid.
    plan: PlanCache,
}

/// A run's own cancellation token, if it has one.
#[derive(Clone, Default)]
pub(crate) struct RunCancellation(pub(crate) Option<weir_graph::CancellationToken>);

impl std::fmt::Debug for RunCancellation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Some(token)"
        } else {
            "None"
        })
    }
}

/// The remembered plan; emptied by every change to the feeds, fetches or targets.
#[derive(Clone, Default)]
struct PlanCache(OnceLock<(u64, Arc<Plan>)>);

impl std::fmt::Debug for PlanCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.get().is_some() {
            "PlanCache(set)"
        } else {
            "PlanCache(empty)"
        })
    }
}

impl RunArgs {
    /// No feeds, fetches or targets.
    pub fn new() -> RunArgs {
        RunArgs::default()
    }

    /// Feeds `value` in place of `tensor` (any tensor, not only a placeholder); the run
    /// skips whatever only that tensor needed.
    pub fn feed(mut self, tensor: impl Into<Output>, value: impl Into<Tensor>) -> RunArgs {
        self.plan = PlanCache::default();
        self.feeds
            .push((TensorRef::Output(tensor.into()), value.into()));
        self
    }

    /// Feeds the tensor named `"node:index"`.
    pub fn feed_name(mut self, name: &str, value: impl Into<Tensor>) -> RunArgs {
        self.plan = PlanCache::default();
        self.feeds
            .push((TensorRef::Name(name.to_string()), value.into()));
        self
    }

    /// Fetches `tensor`; results come back in the order of the fetches.
    pub fn fetch(mut self, tensor: impl Into<Output>) -> RunArgs {
        self.plan = PlanCache::default();
        self.fetches.push(TensorRef::Output(tensor.into()));
        self
    }

    /// Fetches the tensor named `"node:index"`.
    pub fn fetch_name(mut self, name: &str) -> RunArgs {
        self.plan = PlanCache::default();
        self.fetches.push(TensorRef::Name(name.to_string()));
        self
    }

    /// Runs `op` for its effect (TensorFlow's targets; fetching an Operation in Python).
    pub fn target(mut self, op: &Operation) -> RunArgs {
        self.plan = PlanCache::default();
        self.targets.push(OpRef::Op(op.clone()));
        self
    }

    /// Runs the operation named `name`.
    pub fn target_name(mut self, name: &str) -> RunArgs {
        self.plan = PlanCache::default();
        self.targets.push(OpRef::Name(name.to_string()));
        self
    }

    /// Fails the run with DeadlineExceeded if it blocks for longer than `timeout`
    /// (`RunOptions(timeout_in_ms)`); overrides the session's default.
    pub fn timeout(mut self, timeout: Duration) -> RunArgs {
        self.timeout = Some(timeout);
        self
    }

    /// Asks [`Session::run_with_metadata`](crate::SessionHandle::run_with_metadata) to record each
    /// node's execution (`RunOptions(trace_level=...)`); plain `run` ignores it.
    pub fn trace_level(mut self, level: TraceLevel) -> RunArgs {
        self.trace_level = level;
        self
    }

    /// The trace level these args ask for ([`trace_level`](Self::trace_level)).
    pub fn requested_trace_level(&self) -> TraceLevel {
        self.trace_level
    }

    /// How many tensors these args fetch (the length of a run's result).
    pub fn fetch_count(&self) -> usize {
        self.fetches.len()
    }

    /// Whether these args feed `tensor`, given as an output or by its name.
    pub fn feeds_tensor(&self, tensor: &Output) -> bool {
        self.feeds.iter().any(|(r, _)| match r {
            TensorRef::Output(o) => o == tensor,
            TensorRef::Name(n) => *n == tensor.name(),
        })
    }

    pub(crate) fn cached_plan(&self, session: u64) -> Option<&Arc<Plan>> {
        match self.plan.0.get() {
            Some((id, p)) if *id == session => Some(p),
            _ => None,
        }
    }

    pub(crate) fn remember_plan(&self, session: u64, plan: &Arc<Plan>) {
        let _ = self.plan.0.set((session, plan.clone()));
    }

    /// Replaces the value of feed number `i` (in the order the feeds were added), so one
    /// `RunArgs` can serve a loop.
    pub fn set_feed_value(&mut self, i: usize, value: impl Into<Tensor>) {
        if let Some(f) = self.feeds.get_mut(i) {
            f.1 = value.into();
        }
    }
}
