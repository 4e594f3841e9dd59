//! Meta graphs: `tf.train.export_meta_graph` and `tf.train.import_meta_graph`.
//!
//! A meta graph (`.meta` file, a `MetaGraphDef`) holds a graph together with its collections
//! and its saver, so that another program can pick up a model without the code that built it:
//! import the meta graph, restore the checkpoint through the saver it returns, and find the
//! train op, the loss or the queue runners in the collections by name. `Saver::save` writes one
//! beside each checkpoint, as TensorFlow's does, and the files are TensorFlow's: a meta graph
//! written by TensorFlow 1 (or by `tf.compat.v1` in TensorFlow 2) imports here, and weir's
//! import into TensorFlow.
//!
//! What each collection becomes, both ways (TensorFlow's encodings):
//! - operations and tensors: a node list of their names (`train_op`, `summaries`, `losses`);
//! - variables (`variables`, `trainable_variables`, `local_variables`, `global_step`, ...):
//!   `VariableDef` protos;
//! - queue runners (`queue_runners`): `QueueRunnerDef` protos, so `start_queue_runners` starts
//!   the imported pipeline's threads;
//! - other bytes, integer and float lists: kept as [`CollectionValue`]s and written back.
//!
//! Collections of other objects (weir's internal `__` keys, for one) are left out of an export;
//! TensorFlow's control-flow contexts (`cond_context`, `while_context`) are not read, since weir
//! runs imported loops and conds without them.

mod export;
mod import;

pub use export::{export_meta_graph, ExportMetaGraph};
pub use import::{import_meta_graph, ImportMetaGraph};

use bytes::Bytes;
use weir_graph::graph_keys;

/// An item of an imported collection that is neither a graph element nor a variable or queue
/// runner: a bytes, int64 or float list entry, as TensorFlow's Python keeps it. Read them with
/// `graph.get_collection_of::<CollectionValue>(key)`.
#[derive(Clone, Debug, PartialEq)]
pub enum CollectionValue {
    /// An entry of a bytes list (a serialized proto of a kind weir does not read, or plain
    /// bytes).
    Bytes(Bytes),
    /// An entry of an int64 list.
    Int64(i64),
    /// An entry of a float list.
    Float(f32),
}

/// The collections whose bytes are `VariableDef`s (TensorFlow registers this proto for them).
const VARIABLE_KEYS: [&str; 8] = [
    graph_keys::GLOBAL_VARIABLES,
    graph_keys::LOCAL_VARIABLES,
    graph_keys::TRAINABLE_VARIABLES,
    graph_keys::MODEL_VARIABLES,
    graph_keys::MOVING_AVERAGE_VARIABLES,
    graph_keys::GLOBAL_STEP,
    "metric_variables",
    "concatenated_variables",
];

/// Whether collection `key` holds variables in a meta graph.
fn is_variable_key(key: &str) -> bool {
    VARIABLE_KEYS.contains(&key)
}
