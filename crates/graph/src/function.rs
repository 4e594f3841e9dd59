//! Functions of a graph that kernels call: TensorFlow's `FunctionLibraryRuntime`, as `tf.data`'s
//! `map` and `filter` and the one-shot iterator's dataset factory use it.
//!
//! A function here is a part of the graph itself: argument nodes (op `_Arg`) that each call
//! feeds, and result tensors that it fetches, named in the calling node's attrs. The session
//! runs it as one of its own runs, so it sees the session's variables and other state.

use std::sync::Arc;

use crate::{CancellationToken, Result, Tensor};

/// What a session lends its kernels to run functions of its graph
/// (TensorFlow's `FunctionLibraryRuntime`).
pub trait FunctionRuntime: Send + Sync {
    /// Prepares the function that feeds the tensors named `args` (`"node:0"`) and returns the
    /// tensors named `results`; NotFound when a name is not in the graph.
    fn instantiate(&self, args: &[String], results: &[String]) -> Result<Arc<dyn GraphFunction>>;
}

/// A prepared function (TensorFlow's `FunctionLibraryRuntime::Handle`): calls may come from
/// many threads at once.
pub trait GraphFunction: Send + Sync {
    /// Runs the function with one value per argument and returns its results in order; a
    /// call blocked in one of its ops ends with `cancellation` (the caller's run, or the
    /// iterator that called it being dropped) as well as with the session, and at `deadline`
    /// (the caller's run's) with DeadlineExceeded.
    fn call(
        &self,
        args: &[Tensor],
        cancellation: &CancellationToken,
        deadline: Option<std::time::Instant>,
    ) -> Result<Vec<Tensor>>;
}
