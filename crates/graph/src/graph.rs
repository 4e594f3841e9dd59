//! The graph: an append-only list of nodes with unique names, name scopes, control
//! dependencies, collections and a random seed. TensorFlow's `tf.Graph`.

use std::any::Any;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::RwLock;

use crate::attr::{AttrValue, Attrs};
use crate::node::{Node, Operation, Output};
use crate::{registry, Error, Result, Tensor};

/// TensorFlow's `GraphKeys`: the standard collection names, with TensorFlow's string values.
pub mod graph_keys {
    /// Variables shared across machines, saved in checkpoints (`tf.GraphKeys.GLOBAL_VARIABLES`).
    pub const GLOBAL_VARIABLES: &str = "variables";
    /// Variables local to the process, e.g. epoch counters (`LOCAL_VARIABLES`).
    pub const LOCAL_VARIABLES: &str = "local_variables";
    /// Variables an optimizer trains (`TRAINABLE_VARIABLES`).
    pub const TRAINABLE_VARIABLES: &str = "trainable_variables";
    /// `QueueRunner`s that `start_queue_runners` starts (`QUEUE_RUNNERS`).
    pub const QUEUE_RUNNERS: &str = "queue_runners";
    /// Summary tensors (`SUMMARIES`).
    pub const SUMMARIES: &str = "summaries";
    /// The global step variable (`GLOBAL_STEP`).
    pub const GLOBAL_STEP: &str = "global_step";
    /// Variables of the model (`MODEL_VARIABLES`).
    pub const MODEL_VARIABLES: &str = "model_variables";
    /// Ops to run with each training step, e.g. moving averages (`UPDATE_OPS`).
    pub const UPDATE_OPS: &str = "update_ops";
    /// Loss tensors (`LOSSES`).
    pub const LOSSES: &str = "losses";
    /// The init op (`INIT_OP`).
    pub const INIT_OP: &str = "init_op";
    /// The local init op (`LOCAL_INIT_OP`).
    pub const LOCAL_INIT_OP: &str = "local_init_op";
    /// The readiness check op (`READY_OP`).
    pub const READY_OP: &str = "ready_op";
    /// The training op (`TRAIN_OP`).
    pub const TRAIN_OP: &str = "train_op";
    /// Savers (`SAVERS`).
    pub const SAVERS: &str = "savers";
    /// Table initializers (`TABLE_INITIALIZERS`; TensorFlow's value is singular).
    pub const TABLE_INITIALIZERS: &str = "table_initializer";
}

/// TensorFlow's `DEFAULT_GRAPH_SEED`, used when only an op-level seed is given.
pub const DEFAULT_GRAPH_SEED: i64 = 87654321;

/// One entry of a graph collection.
#[derive(Clone)]
pub enum CollectionItem {
    /// An operation (e.g. an init op).
    Operation(Operation),
    /// A tensor (e.g. a summary or a loss).
    Output(Output),
    /// Any shared object (a variable, a queue runner); read back with
    /// [`Graph::get_collection_of`].
    Object(Arc<dyn Any + Send + Sync>),
}

impl From<Operation> for CollectionItem {
    fn from(o: Operation) -> Self {
        CollectionItem::Operation(o)
    }
}

impl From<Output> for CollectionItem {
    fn from(o: Output) -> Self {
        CollectionItem::Output(o)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ItemRef {
    Op(usize),
    Out(usize, usize),
    Obj(usize),
}

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

    /// Starts building a node of `op_type`.
    pub fn new_operation(&self, op_type: &str) -> OpBuilder {
        OpBuilder {
            graph: self.clone(),
            op_type: op_type.to_string(),
            name: None,
            inputs: Vec::new(),
            control_inputs: Vec::new(),
            attrs: Attrs::new(),
        }
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
    /// 0 means "draw fresh random seeds".
    pub fn get_seed(&self, op_seed: Option<i64>) -> (i64, i64) {
        let st = self.0.state.read();
        let seeds = match (st.seed, op_seed) {
            (Some(g), Some(o)) => (g, o),
            (Some(g), None) => (g, st.nodes.len() as i64),
            (None, Some(o)) => (DEFAULT_GRAPH_SEED, o),
            (None, None) => return (0, 0),
        };
        // (0, 0) would mean "random"; TensorFlow avoids it this way.
        if seeds == (0, 0) {
            (0, i32::MAX as i64)
        } else {
            seeds
        }
    }

    /// Appends `item` to collection `key`.
    pub fn add_to_collection(&self, key: &str, item: impl Into<CollectionItem>) -> Result<()> {
        let item = item.into();
        let mut st = self.0.state.write();
        let r = match item {
            CollectionItem::Operation(op) => {
                self.check_same(&op.graph, "collection item")?;
                ItemRef::Op(op.id)
            }
            CollectionItem::Output(o) => {
                self.check_same(&o.graph, "collection item")?;
                ItemRef::Out(o.node, o.index)
            }
            CollectionItem::Object(obj) => {
                st.objects.push(obj);
                ItemRef::Obj(st.objects.len() - 1)
            }
        };
        st.collections.entry(key.to_string()).or_default().push(r);
        Ok(())
    }

    /// Appends a shared object (a variable, a queue runner) to collection `key`.
    pub fn add_object_to_collection<T: Any + Send + Sync>(&self, key: &str, obj: Arc<T>) {
        let mut st = self.0.state.write();
        st.objects.push(obj);
        let r = ItemRef::Obj(st.objects.len() - 1);
        st.collections.entry(key.to_string()).or_default().push(r);
    }

    /// The items of collection `key`, in insertion order (empty if none).
    pub fn get_collection(&self, key: &str) -> Vec<CollectionItem> {
        let st = self.0.state.read();
        st.collections
            .get(key)
            .map(|items| {
                items
                    .iter()
                    .map(|r| match *r {
                        ItemRef::Op(id) => CollectionItem::Operation(Operation {
                            graph: self.clone(),
                            id,
                        }),
                        ItemRef::Out(node, index) => CollectionItem::Output(Output {
                            graph: self.clone(),
                            node,
                            index,
                        }),
                        ItemRef::Obj(i) => CollectionItem::Object(st.objects[i].clone()),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The objects of type `T` in collection `key`.
    pub fn get_collection_of<T: Any + Send + Sync>(&self, key: &str) -> Vec<Arc<T>> {
        self.get_collection(key)
            .into_iter()
            .filter_map(|item| match item {
                CollectionItem::Object(o) => o.downcast::<T>().ok(),
                _ => None,
            })
            .collect()
    }

    /// The names of every non-empty collection, sorted.
    pub fn collection_keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self
            .0
            .state
            .read()
            .collections
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, _)| k.clone())
            .collect();
        keys.sort();
        keys
    }

    /// Empties collection `key`.
    pub fn clear_collection(&self, key: &str) {
        self.0.state.write().collections.remove(key);
    }

    fn check_same(&self, other: &Graph, what: &str) -> Result<()> {
        if self.ptr_eq(other) {
            Ok(())
        } else {
            Err(Error::invalid_argument(format!(
                "The {what} is not an element of this graph."
            )))
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

/// Builds one node: op type, name, inputs, control inputs and attrs; validated by the op's
/// registered [`OpDef`](crate::OpDef) when built.
pub struct OpBuilder {
    graph: Graph,
    op_type: String,
    name: Option<String>,
    inputs: Vec<Output>,
    control_inputs: Vec<Operation>,
    attrs: Attrs,
}

impl OpBuilder {
    /// The node's name (made unique and put in the current scope); defaults to the op type.
    pub fn name(mut self, name: impl Into<String>) -> OpBuilder {
        self.name = Some(name.into());
        self
    }

    /// Sets the name only when `name` is given.
    pub fn maybe_name(self, name: Option<&str>) -> OpBuilder {
        match name {
            Some(n) => self.name(n),
            None => self,
        }
    }

    /// Adds a data input.
    pub fn input(mut self, input: impl Into<Output>) -> OpBuilder {
        self.inputs.push(input.into());
        self
    }

    /// Adds data inputs.
    pub fn inputs<I: Into<Output>>(mut self, inputs: impl IntoIterator<Item = I>) -> OpBuilder {
        self.inputs.extend(inputs.into_iter().map(Into::into));
        self
    }

    /// Adds a control input: the node runs only after `op`.
    pub fn control_input(mut self, op: &Operation) -> OpBuilder {
        self.control_inputs.push(op.clone());
        self
    }

    /// Sets attribute `name`.
    pub fn attr(mut self, name: &str, value: impl Into<AttrValue>) -> OpBuilder {
        self.attrs.insert(name.to_string(), value.into());
        self
    }

    /// Validates and adds the node; errors name the node and its op type.
    pub fn build(self) -> Result<Operation> {
        let OpBuilder {
            graph,
            op_type,
            name,
            inputs,
            control_inputs,
            mut attrs,
        } = self;
        let def = registry::op_def(&op_type)?;
        let mut st = graph.0.state.write();
        let base = name.unwrap_or_else(|| op_type.clone());
        let name = if let Some(exact) = base.strip_suffix('/') {
            // TensorFlow's trailing-slash convention: an exact name, typically a name scope's
            // own (already unique) name, as a variable takes it.
            if st.by_name.contains_key(exact) {
                return Err(Error::already_exists(format!(
                    "Duplicate node name in graph: '{exact}'"
                ))
                .with_node(exact, &op_type));
            }
            exact.to_string()
        } else {
            let full = format!("{}{base}", st.scope.last().cloned().unwrap_or_default());
            Graph::unique_name_locked(&mut st, &full)
        };
        let fail = |e: Error| e.with_node(&name, &op_type);
        for (i, inp) in inputs.iter().enumerate() {
            if !inp.graph.ptr_eq(&graph) {
                return Err(fail(Error::invalid_argument(format!(
                    "Input {i} of '{name}' is a Tensor from another graph; it must be from the same graph."
                ))));
            }
        }
        for c in &control_inputs {
            if !c.graph.ptr_eq(&graph) {
                return Err(fail(Error::invalid_argument(format!(
                    "Control input '{}' of '{name}' is from another graph",
                    c.id
                ))));
            }
        }
        let in_nodes: Vec<&Arc<Node>> = inputs.iter().map(|o| &st.nodes[o.node]).collect();
        let input_dtypes: Vec<_> = inputs
            .iter()
            .zip(&in_nodes)
            .map(|(o, n)| n.output_dtypes[o.index])
            .collect();
        let input_shapes: Vec<_> = inputs
            .iter()
            .zip(&in_nodes)
            .map(|(o, n)| n.output_shapes[o.index].clone())
            .collect();
        let input_consts: Vec<Option<Tensor>> =
            in_nodes.iter().map(|n| n.const_value().cloned()).collect();
        let output_dtypes = def.resolve(&input_dtypes, &mut attrs).map_err(fail)?;
        let output_shapes = def
            .infer_output_shapes(
                input_dtypes,
                input_shapes,
                input_consts,
                &attrs,
                &output_dtypes,
            )
            .map_err(fail)?;
        let mut control: Vec<usize> = control_inputs.iter().map(|c| c.id).collect();
        for deps in &st.control_deps {
            control.extend(deps.iter().copied());
        }
        control.sort_unstable();
        control.dedup();
        let id = st.nodes.len();
        let node = Node {
            id,
            name: name.clone(),
            def,
            inputs: inputs.iter().map(|o| (o.node, o.index)).collect(),
            control_inputs: control,
            attrs,
            output_dtypes,
            output_shapes,
        };
        st.nodes.push(Arc::new(node));
        st.by_name.insert(name, id);
        drop(st);
        Ok(Operation { graph, id })
    }
}
