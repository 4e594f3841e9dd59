//! `tf.train.Scaffold`: the ops a monitored session initializes, saves and summarizes with,
//! each defaulting to TensorFlow's choice when the graph is finalized.

use std::sync::{Arc, OnceLock};

use weir_graph::{Graph, Operation, Output, Result};
use weir_ops::state::{
    global_variables, global_variables_initializer, local_variables_initializer,
    report_uninitialized_variables,
};

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
    local_init_op: Option<Operation>,
    saver: Option<Arc<Saver>>,
    summary_op: Option<Output>,
    finalized: Arc<OnceLock<Finalized>>,
}

/// `tf.train.Scaffold(init_op, local_init_op, saver, summary_op)`: what a monitored session
/// runs to initialize variables (when no checkpoint is restored), to initialize local ones
/// (always), and what its hooks save and summarize with. Unset parts default, when the
/// session is created, to `global_variables_initializer()`, `local_variables_initializer()`, a
/// `Saver` of every global variable (none when there is none) and `merge_all()` of the graph's
/// summaries. Clones share the finalized ops, so a hook built with a clone sees them.
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

    /// Runs `op` after every creation or restore (local variables, tables).
    pub fn local_init_op(mut self, op: &Operation) -> Scaffold {
        self.0.local_init_op = Some(op.clone());
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

    /// Fills in the defaults (once; later calls return the first result).
    pub(crate) fn finalize(&self, graph: &Graph) -> Result<Finalized> {
        if let Some(f) = self.0.finalized.get() {
            return Ok(f.clone());
        }
        let p = &self.0;
        let init_op = match &p.init_op {
            Some(op) => op.clone(),
            None => global_variables_initializer(graph)?,
        };
        let local_init_op = match &p.local_init_op {
            Some(op) => op.clone(),
            None => local_variables_initializer(graph)?,
        };
        let saver = match &p.saver {
            Some(s) => Some(s.clone()),
            None if global_variables(graph)?.is_empty() => None,
            None => Some(Arc::new(Saver::sharded(graph)?)),
        };
        let summary_op = match &p.summary_op {
            Some(op) => Some(op.clone()),
            None => weir_ops::summary::merge_all(graph)?,
        };
        let f = Finalized {
            init_op,
            local_init_op,
            ready_op: report_uninitialized_variables(graph, None)?,
            ready_for_local_init_op: report_uninitialized_variables(
                graph,
                Some(&global_variables(graph)?),
            )?,
            saver,
            summary_op,
        };
        Ok(self.0.finalized.get_or_init(|| f).clone())
    }
}
