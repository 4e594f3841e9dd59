//! `tf.train.Scaffold`: the ops a monitored session initializes, saves and summarizes with,
//! each defaulting to TensorFlow's choice when the graph is finalized.

use std::sync::{Arc, OnceLock};

use weir_graph::{graph_keys, CollectionItem, Graph, Operation, Output, Result, Tensor};
use weir_ops::control_flow::group;
use weir_ops::lookup::tables_initializer;
use weir_ops::state::{
    global_variables, global_variables_initializer, local_variables_initializer,
    report_uninitialized_variables,
};
use weir_session::SessionHandle;

use crate::session_manager::InitFn;
use crate::Saver;

/// The scaffold's ops once the monitored session has filled in the defaults.
#[derive(Clone)]
pub(crate) struct Finalized {
    pub(crate) init_op: Operation,
    pub(crate) local_init_op: Operation,
    pub(crate) ready_op: Output,
    pub(crate) ready_for_local_init_op: Output,
    pub(crate) saver: Option<Arc<Saver>>,
    pub(crate) summary_op: Option<Output>,
}

#[derive(Clone, Default)]
struct Parts {
    init_op: Option<Operation>,
    init_feeds: Vec<(Output, Tensor)>,
    init_fn: Option<InitFn>,
    ready_op: Option<Output>,
    ready_for_local_init_op: Option<Output>,
    local_init_op: Option<Operation>,
    local_init_feeds: Vec<(Output, Tensor)>,
    saver: Option<Arc<Saver>>,
    summary_op: Option<Output>,
    finalized: Arc<OnceLock<Finalized>>,
}

/// `tf.train.Scaffold(init_op, init_feed_dict, init_fn, ready_op, ready_for_local_init_op,
/// local_init_op, local_init_feed_dict, summary_op, saver)`: what a monitored session runs to
/// initialize variables (when no checkpoint is restored), to initialize local ones and tables
/// (always), to check readiness, and what its hooks save and summarize with.
///
/// Unset parts default when the session is created, as TensorFlow's `finalize` does: to the
/// first item of the graph collection of that name (`init_op`, `local_init_op`, `ready_op`,
/// `ready_for_local_init_op`, `summary_op`, `savers`), or else to `global_variables_initializer()`,
/// a group of `local_variables_initializer()` and `tables_initializer()`,
/// `report_uninitialized_variables()` (of the global variables, before the local init op), the
/// merge of the graph's summaries and a sharded `Saver` of every global variable (none when
/// there is none), each added to its collection. Clones share the finalized ops, so a hook
/// built with a clone sees them.
///
/// ```
/// # use weir_train::Scaffold;
/// let scaffold = Scaffold::new();
/// assert!(scaffold.saver().is_none()); // until a monitored session finalizes it
/// ```
#[derive(Clone, Default)]
pub struct Scaffold(Parts);

impl Scaffold {
    /// Every part at its default.
    pub fn new() -> Scaffold {
        Scaffold::default()
    }

    /// Runs `op` to initialize the model when no checkpoint is restored.
    pub fn init_op(mut self, op: &Operation) -> Scaffold {
        self.0.init_op = Some(op.clone());
        self
    }

    /// Feeds `value` to `tensor` when running the init op (`init_feed_dict`).
    pub fn init_feed(mut self, tensor: &Output, value: impl Into<Tensor>) -> Scaffold {
        self.0.init_feeds.push((tensor.clone(), value.into()));
        self
    }

    /// Calls `f` after the init op when no checkpoint is restored (`init_fn`).
    pub fn init_fn(
        mut self,
        f: impl Fn(&SessionHandle) -> Result<()> + Send + Sync + 'static,
    ) -> Scaffold {
        self.0.init_fn = Some(Arc::new(f));
        self
    }

    /// Checks readiness with `op` (`ready_op`): the model is ready when it gives an empty
    /// string vector.
    pub fn ready_op(mut self, op: &Output) -> Scaffold {
        self.0.ready_op = Some(op.clone());
        self
    }

    /// Checks that the model is ready for the local init op with `op`
    /// (`ready_for_local_init_op`).
    pub fn ready_for_local_init_op(mut self, op: &Output) -> Scaffold {
        self.0.ready_for_local_init_op = Some(op.clone());
        self
    }

    /// Runs `op` after every creation or restore (local variables, tables).
    pub fn local_init_op(mut self, op: &Operation) -> Scaffold {
        self.0.local_init_op = Some(op.clone());
        self
    }

    /// Feeds `value` to `tensor` when running the local init op (`local_init_feed_dict`).
    pub fn local_init_feed(mut self, tensor: &Output, value: impl Into<Tensor>) -> Scaffold {
        self.0.local_init_feeds.push((tensor.clone(), value.into()));
        self
    }

    /// Saves and restores with `saver`.
    pub fn saver(&self) -> Option<Arc<Saver>> {
        match self.0.finalized.get() {
            Some(f) => f.saver.clone(),
            None => self.0.saver.clone(),
        }
    }

    /// Uses `saver` for checkpoints.
    pub fn with_saver(mut self, saver: Saver) -> Scaffold {
        self.0.saver = Some(Arc::new(saver));
        self
    }

    /// Uses `op` (a serialized `Summary`) as the summary to write.
    pub fn with_summary_op(mut self, op: &Output) -> Scaffold {
        self.0.summary_op = Some(op.clone());
        self
    }

    /// The summary op: the one given, or after finalizing the merge of the graph's summaries.
    pub fn summary_op(&self) -> Option<Output> {
        match self.0.finalized.get() {
            Some(f) => f.summary_op.clone(),
            None => self.0.summary_op.clone(),
        }
    }

    pub(crate) fn init_feeds(&self) -> &[(Output, Tensor)] {
        &self.0.init_feeds
    }

    pub(crate) fn init_fn_arc(&self) -> Option<InitFn> {
        self.0.init_fn.clone()
    }

    pub(crate) fn local_init_feeds(&self) -> &[(Output, Tensor)] {
        &self.0.local_init_feeds
    }

    /// Fills in the defaults (once; later calls return the first result) and finalizes the
    /// graph, as TensorFlow's `Scaffold.finalize` does.
    pub(crate) fn finalize(&self, graph: &Graph) -> Result<Finalized> {
        if let Some(f) = self.0.finalized.get() {
            graph.finalize();
            return Ok(f.clone());
        }
        let p = &self.0;
        let init_op = match &p.init_op {
            Some(op) => op.clone(),
            None => operation_or(graph, graph_keys::INIT_OP, || {
                global_variables_initializer(graph)
            })?,
        };
        let ready_op = match &p.ready_op {
            Some(op) => op.clone(),
            None => output_or(graph, graph_keys::READY_OP, || {
                report_uninitialized_variables(graph, None)
            })?,
        };
        let ready_for_local_init_op = match &p.ready_for_local_init_op {
            Some(op) => op.clone(),
            None => output_or(graph, graph_keys::READY_FOR_LOCAL_INIT_OP, || {
                report_uninitialized_variables(graph, Some(&global_variables(graph)?))
            })?,
        };
        let local_init_op = match &p.local_init_op {
            Some(op) => op.clone(),
            None => operation_or(graph, graph_keys::LOCAL_INIT_OP, || {
                default_local_init_op(graph)
            })?,
        };
        let summary_op = match &p.summary_op {
            Some(op) => Some(op.clone()),
            None => match first_output(graph, graph_keys::SUMMARY_OP) {
                Some(op) => Some(op),
                None => {
                    let op = weir_ops::summary::merge_all(graph)?;
                    if let Some(op) = &op {
                        graph.add_to_collection(graph_keys::SUMMARY_OP, op.clone())?;
                    }
                    op
                }
            },
        };
        let saver = match &p.saver {
            Some(s) => Some(s.clone()),
            None => match graph
                .get_collection_of::<Saver>(graph_keys::SAVERS)
                .into_iter()
                .next()
            {
                Some(s) => Some(s),
                None if global_variables(graph)?.is_empty() => None,
                None => {
                    let s = Arc::new(Saver::sharded(graph)?);
                    graph.add_object_to_collection(graph_keys::SAVERS, s.clone());
                    Some(s)
                }
            },
        };
        let f = Finalized {
            init_op,
            local_init_op,
            ready_op,
            ready_for_local_init_op,
            saver,
            summary_op,
        };
        let f = self.0.finalized.get_or_init(|| f).clone();
        graph.finalize();
        Ok(f)
    }
}

/// `Scaffold.default_local_init_op()`: the local variables' and the tables' initializers,
/// grouped (TensorFlow's `group_deps`).
pub(crate) fn default_local_init_op(graph: &Graph) -> Result<Operation> {
    let parts = [
        local_variables_initializer(graph)?,
        tables_initializer(graph)?,
    ];
    group(graph, &parts, None)
}

/// The first tensor of collection `key`.
pub(crate) fn first_output(g: &Graph, key: &str) -> Option<Output> {
    g.get_collection(key).into_iter().find_map(|i| match i {
        CollectionItem::Output(o) => Some(o),
        _ => None,
    })
}

/// The first operation of collection `key`.
pub(crate) fn first_operation(g: &Graph, key: &str) -> Option<Operation> {
    g.get_collection(key).into_iter().find_map(|i| match i {
        CollectionItem::Operation(o) => Some(o),
        _ => None,
    })
}

/// TensorFlow's `_get_and_default` for an op: the collection's first, or `default()` added
/// to the collection.
pub(crate) fn operation_or(
    g: &Graph,
    key: &str,
    default: impl FnOnce() -> Result<Operation>,
) -> Result<Operation> {
    if let Some(op) = first_operation(g, key) {
        return Ok(op);
    }
    let op = default()?;
    g.add_to_collection(key, op.clone())?;
    Ok(op)
}

/// [`operation_or`] for a tensor.
pub(crate) fn output_or(
    g: &Graph,
    key: &str,
    default: impl FnOnce() -> Result<Output>,
) -> Result<Output> {
    if let Some(op) = first_output(g, key) {
        return Ok(op);
    }
    let op = default()?;
    g.add_to_collection(key, op.clone())?;
    Ok(op)
}
