//! The graph: an append-only list of nodes with unique names, name scopes, control
//! dependencies, collections and a random seed. TensorFlow's `tf.Graph`.

use std::any::Any;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::RwLock;

use crate::node::{Node, Operation, Output};
use crate::{Error, Result};

mod collections;
mod control_flow;
mod op_builder;
mod partial_shape;

use collections::ItemRef;
pub use collections::{graph_keys, CollectionItem};
pub use control_flow::{ControlFlowContext, ControlFlowGuard};
pub use op_builder::OpBuilder;

/// TensorFlow's `DEFAULT_GRAPH_SEED`, used when only an op-level seed is given.
pub const DEFAULT_GRAPH_SEED: i64 = 87654321;

#[derive(Default)]
struct State {
    nodes: Vec<Arc<Node>>,
    by_name: HashMap<String, usize>,
    names_in_use: HashMap<String, usize>,
    scope: Vec<String>,
    control_deps: Vec<Vec<usize>>,
    // Collections keep ids, not handles, so they do not hold the graph alive.
    collections: HashMap<String, Vec<ItemRef>>,
    objects: Vec<Arc<dyn Any + Send + Sync>>,
    seed: Option<i64>,
    /// The op seed the next op without one gets while a graph seed is set (TensorFlow 2's
    /// `Graph._seed_offset`).
    seed_offset: i64,
    /// Every control-flow context ever entered, by id, and the ids of those entered now.
    contexts: Vec<control_flow::ContextEntry>,
    context_stack: Vec<usize>,
    /// Set by `finalize`: no node or collection item may be added.
    finalized: bool,
}

struct Inner {
    id: u64,
    state: RwLock<State>,
}

static NEXT_GRAPH_ID: AtomicU64 = AtomicU64::new(1);

/// A dataflow graph: TensorFlow's `tf.Graph`.
///
/// A shared handle with interior mutability: clones refer to the same graph, builder functions
/// take `&self`, and `Output`s and `Operation`s carry it. Nodes are only ever appended, so a
/// node's inputs always come before it.
#[derive(Clone)]
pub struct Graph(Arc<Inner>);

impl Default for Graph {
    fn default() -> Self {
        Graph::new()
    }
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Graph(#{}, {} nodes)", self.0.id, self.num_nodes())
    }
}

impl Graph {
    /// An empty graph.
    pub fn new() -> Graph {
        Graph(Arc::new(Inner {
            id: NEXT_GRAPH_ID.fetch_add(1, Ordering::Relaxed),
            state: RwLock::new(State::default()),
        }))
    }

    /// A process-unique id of this graph.
    pub fn id(&self) -> u64 {
        self.0.id
    }

    /// Whether both handles refer to the same graph.
    pub fn ptr_eq(&self, other: &Graph) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// `graph.finalize()`: makes the graph read-only, so that adding an op (or a collection
    /// item) is FailedPrecondition "Graph is finalized and cannot be modified.". A
    /// `Supervisor` and a monitored session finalize the graph they run, as TensorFlow's do, so
    /// a training loop that keeps building ops (a leak in TensorFlow) fails at once.
    pub fn finalize(&self) {
        self.0.state.write().finalized = true;
    }

    /// Whether [`finalize`](Self::finalize) was called (`graph.finalized`).
    pub fn finalized(&self) -> bool {
        self.0.state.read().finalized
    }

    /// Makes a finalized graph modifiable again (TensorFlow's `_unsafe_unfinalize`), as a
    /// monitored session does on close for a graph it finalized itself.
    pub fn unsafe_unfinalize(&self) {
        self.0.state.write().finalized = false;
    }

    /// The error of a change to a finalized graph.
    pub(crate) fn finalized_error() -> Error {
        Error::failed_precondition("Graph is finalized and cannot be modified.")
    }

    /// The number of nodes.
    pub fn num_nodes(&self) -> usize {
        self.0.state.read().nodes.len()
    }

    /// Node `id`. Panics only on an id that did not come from this graph's handles.
    pub fn node(&self, id: usize) -> Arc<Node> {
        self.0.state.read().nodes[id].clone()
    }

    /// Runs `f` over every node, in insertion (topological) order, under one read lock.
    pub fn with_nodes<R>(&self, f: impl FnOnce(&[Arc<Node>]) -> R) -> R {
        f(&self.0.state.read().nodes)
    }

    /// The operation at node index `id` (e.g. one recorded in a collection object).
    pub fn operation(&self, id: usize) -> Result<Operation> {
        if id < self.num_nodes() {
            Ok(Operation {
                graph: self.clone(),
                id,
            })
        } else {
            Err(Error::not_found(format!("Graph has no node {id}")))
        }
    }

    /// Output `index` of node `id`.
    pub fn output(&self, id: usize, index: usize) -> Result<Output> {
        self.operation(id)?.output(index)
    }

    /// Every operation, in insertion order.
    pub fn operations(&self) -> Vec<Operation> {
        (0..self.num_nodes())
            .map(|id| Operation {
                graph: self.clone(),
                id,
            })
            .collect()
    }

    /// The operation named `name`, if any.
    pub fn operation_by_name(&self, name: &str) -> Option<Operation> {
        let id = *self.0.state.read().by_name.get(name)?;
        Some(Operation {
            graph: self.clone(),
            id,
        })
    }

    /// The tensor named `"node:index"`; InvalidArgument for a malformed name, NotFound when the
    /// node or output does not exist (TensorFlow's `get_tensor_by_name`).
    pub fn tensor_by_name(&self, name: &str) -> Result<Output> {
        let (op_name, idx) = name.rsplit_once(':').ok_or_else(|| {
            Error::invalid_argument(format!(
                "The name '{name}' looks like an (invalid) Operation name, not a Tensor. Tensor names must be of the form \"<op_name>:<output_index>\"."
            ))
        })?;
        let index: usize = idx.parse().map_err(|_| {
            Error::invalid_argument(format!("The name '{name}' has a malformed output index"))
        })?;
        let op = self.operation_by_name(op_name).ok_or_else(|| {
            Error::not_found(format!(
                "The name '{name}' refers to a Tensor which does not exist. The operation, '{op_name}', does not exist in the graph."
            ))
        })?;
        if index >= op.num_outputs() {
            return Err(Error::not_found(format!(
                "The name '{name}' refers to a Tensor which does not exist. The operation, '{op_name}', exists but only has {} outputs.",
                op.num_outputs()
            )));
        }
        op.output(index)
    }

    /// Makes `name` unique in the graph the way TensorFlow does (`x`, `x_1`, `x_2`, ...),
    /// case-insensitively, and marks it used.
    pub fn unique_name(&self, name: &str) -> String {
        let mut st = self.0.state.write();
        Self::unique_name_locked(&mut st, name)
    }

    fn unique_name_locked(st: &mut State, name: &str) -> String {
        let key = name.to_lowercase();
        let mut i = st.names_in_use.get(&key).copied().unwrap_or(0);
        st.names_in_use.insert(key.clone(), i + 1);
        if i == 0 {
            return name.to_string();
        }
        let mut candidate = format!("{key}_{i}");
        while st.names_in_use.contains_key(&candidate) {
            i += 1;
            candidate = format!("{key}_{i}");
        }
        st.names_in_use.insert(candidate, 1);
        format!("{name}_{i}")
    }

    /// The current name scope prefix, e.g. `"batch/"`, or `""` at top level.
    pub fn current_scope(&self) -> String {
        self.0
            .state
            .read()
            .scope
            .last()
            .cloned()
            .unwrap_or_default()
    }

    /// Enters name scope `name` until the guard drops (Python's `with tf.name_scope(name)`).
    /// The scope name is made unique (`a`, then `a_1`); a name ending in `/` is used as is.
    pub fn name_scope(&self, name: &str) -> NameScope {
        let mut st = self.0.state.write();
        let prefix = if name.is_empty() {
            String::new()
        } else if name.ends_with('/') {
            name.to_string()
        } else {
            let full = format!("{}{name}", st.scope.last().cloned().unwrap_or_default());
            format!("{}/", Self::unique_name_locked(&mut st, &full))
        };
        st.scope.push(prefix.clone());
        NameScope {
            graph: self.clone(),
            prefix,
        }
    }

    /// Makes every operation built until the guard drops depend on `ops` (Python's
    /// `with tf.control_dependencies(ops)`).
    pub fn control_dependencies(&self, ops: &[Operation]) -> Result<ControlDependencies> {
        for op in ops {
            if !op.graph.ptr_eq(self) {
                return Err(Error::invalid_argument(format!(
                    "Control dependency '{}' is from another graph",
                    op.name()
                )));
            }
        }
        self.0
            .state
            .write()
            .control_deps
            .push(ops.iter().map(|o| o.id).collect());
        Ok(ControlDependencies {
            graph: self.clone(),
        })
    }

    /// Lifts the ops built until the guard drops out of every `control_dependencies` guard in
    /// force (TensorFlow's `ops.init_scope()`, or `control_dependencies(None)`): what creates
    /// variables and their initializers (optimizer slots, moving averages) uses it, so that
    /// initializing them never runs a training step's ops. It lifts them out of any
    /// control-flow context too (a `cond` branch), as TensorFlow's does: a variable made in a
    /// branch is initialized without the branch's predicate.
    pub fn init_scope(&self) -> InitScope {
        let mut st = self.0.state.write();
        let saved = std::mem::take(&mut st.control_deps);
        let saved_contexts = std::mem::take(&mut st.context_stack);
        InitScope {
            graph: self.clone(),
            saved,
            saved_contexts,
        }
    }

    /// Whether a `control_dependencies` guard is in force (ops built now get control inputs).
    pub fn has_control_dependencies(&self) -> bool {
        self.0
            .state
            .read()
            .control_deps
            .iter()
            .any(|d| !d.is_empty())
    }

    /// Sets the graph-level random seed (`tf.set_random_seed`).
    pub fn set_random_seed(&self, seed: i64) {
        self.0.state.write().seed = Some(seed);
    }

    /// The graph-level random seed, if set.
    pub fn random_seed(&self) -> Option<i64> {
        self.0.state.read().seed
    }

    /// The (seed, seed2) pair for an op with `op_seed`, by TensorFlow's `get_seed` rules: both
    /// 0 means "draw fresh random seeds". With a graph seed, ops without a seed of their own
    /// get 0, 1, 2, ... in the order they are built, as TensorFlow 2.21's graphs number them
    /// (TensorFlow 1 took the graph's op count); seeds are reduced modulo 2^31 - 1, as its
    /// `_truncate_seed` does. Each call for an op without a seed takes the next number, so a
    /// builder calls this once per op.
    pub fn get_seed(&self, op_seed: Option<i64>) -> (i64, i64) {
        const MAX_INT32: i64 = i32::MAX as i64;
        let truncate = |s: i64| s.rem_euclid(MAX_INT32);
        let mut st = self.0.state.write();
        let seeds = match (st.seed, op_seed) {
            (Some(g), Some(o)) => (truncate(g), truncate(o)),
            (Some(g), None) => {
                let o = st.seed_offset;
                st.seed_offset += 1;
                (truncate(g), truncate(o))
            }
            (None, Some(o)) => (DEFAULT_GRAPH_SEED, truncate(o)),
            (None, None) => return (0, 0),
        };
        // (0, 0) would mean "random"; TensorFlow avoids it this way.
        if seeds == (0, 0) {
            (0, MAX_INT32)
        } else {
            seeds
        }
    }
}

/// Keeps a name scope open; see [`Graph::name_scope`].
#[must_use = "the scope ends when this guard is dropped"]
pub struct NameScope {
    graph: Graph,
    prefix: String,
}

impl NameScope {
    /// The scope's prefix, e.g. `"batch/"`.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }
}

impl Drop for NameScope {
    fn drop(&mut self) {
        self.graph.0.state.write().scope.pop();
    }
}

/// Keeps control dependencies in force; see [`Graph::control_dependencies`].
#[must_use = "the dependencies end when this guard is dropped"]
pub struct ControlDependencies {
    graph: Graph,
}

impl Drop for ControlDependencies {
    fn drop(&mut self) {
        self.graph.0.state.write().control_deps.pop();
    }
}

/// Suspends the control dependencies in force; see [`Graph::init_scope`].
#[must_use = "the dependencies come back when this guard is dropped"]
pub struct InitScope {
    graph: Graph,
    saved: Vec<Vec<usize>>,
    saved_contexts: Vec<usize>,
}

impl Drop for InitScope {
    fn drop(&mut self) {
        let mut st = self.graph.0.state.write();
        // Guards opened inside were dropped first; what is left is ours to put back under.
        let inner = std::mem::take(&mut st.control_deps);
        st.control_deps = std::mem::take(&mut self.saved);
        st.control_deps.extend(inner);
        let inner = std::mem::take(&mut st.context_stack);
        st.context_stack = std::mem::take(&mut self.saved_contexts);
        st.context_stack.extend(inner);
    }
}
