//! Graph collections: named lists of operations, tensors and shared objects, kept by id so
//! that they never hold the graph alive.

use std::any::Any;
use std::sync::Arc;

use super::Graph;
use crate::node::{Operation, Output};
use crate::{Error, Result};

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
    /// The check that the model is ready for its local init op (`READY_FOR_LOCAL_INIT_OP`).
    pub const READY_FOR_LOCAL_INIT_OP: &str = "ready_for_local_init_op";
    /// The summary op a `Supervisor` writes (`SUMMARY_OP`).
    pub const SUMMARY_OP: &str = "summary_op";
    /// The training op (`TRAIN_OP`).
    pub const TRAIN_OP: &str = "train_op";
    /// Variables that have moving averages (`MOVING_AVERAGE_VARIABLES`).
    pub const MOVING_AVERAGE_VARIABLES: &str = "moving_average_variables";
    /// Savers (`SAVERS`).
    pub const SAVERS: &str = "savers";
    /// Table initializers (`TABLE_INITIALIZERS`; TensorFlow's value is singular).
    pub const TABLE_INITIALIZERS: &str = "table_initializer";
    /// Constant file names a graph reads, such as vocabularies (`ASSET_FILEPATHS`): what a
    /// SavedModel copies into its assets.
    pub const ASSET_FILEPATHS: &str = "asset_filepaths";
    /// The local variables of streaming metrics, `tf.metrics.*` (`METRIC_VARIABLES`).
    pub const METRIC_VARIABLES: &str = "metric_variables";
    /// Regularization terms that `tf.losses.get_regularization_losses` reads
    /// (`REGULARIZATION_LOSSES`).
    pub const REGULARIZATION_LOSSES: &str = "regularization_losses";
}

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
pub(super) enum ItemRef {
    Op(usize),
    Out(usize, usize),
    Obj(usize),
}

impl Graph {
    /// Appends `item` to collection `key`.
    pub fn add_to_collection(&self, key: &str, item: impl Into<CollectionItem>) -> Result<()> {
        let item = item.into();
        let mut st = self.0.state.write();
        if st.finalized {
            return Err(Graph::finalized_error());
        }
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

    /// Replaces, in every collection, each object of type `T` for which `update` gives a new
    /// value (a variable whose initializer `init_from_checkpoint` changed, for one); returns
    /// how many were replaced.
    pub fn update_collection_objects<T: Any + Send + Sync>(
        &self,
        update: impl Fn(&T) -> Option<T>,
    ) -> usize {
        let mut st = self.0.state.write();
        let mut n = 0;
        for obj in st.objects.iter_mut() {
            if let Some(new) = obj.downcast_ref::<T>().and_then(&update) {
                *obj = Arc::new(new);
                n += 1;
            }
        }
        n
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
