//! Lookup tables: TensorFlow's `tf.lookup` / `tf.compat.v1.lookup` (the ex-`tf.contrib.lookup`),
//! as input pipelines use them to map strings to ids and back.
//!
//! A table is a session resource, like a queue: its op (`HashTableV2`, `MutableHashTableV2`,
//! `MutableHashTableOfTensorsV2`) finds or makes the table of the session that runs it, by
//! container and shared_name (or its node name with `use_node_name_sharing`), and outputs its
//! handle; the ops that use a table take that handle. A [`StaticHashTable`] is filled once by
//! its initializer's op, which joins the graph's `table_initializer` collection so that
//! [`tables_initializer`] runs it; looking a key up before gives FailedPrecondition
//! "Table not initialized.". A [`MutableHashTable`] takes inserts and removals at any time.
//!
//! ```
//! use weir_graph::{DType, Graph};
//! use weir_ops::{array::constant, lookup};
//!
//! let g = Graph::new();
//! let table = lookup::index_table_from_tensor(&g, ["emerson", "lake", "palmer"], 2)?;
//! let ids = table.lookup(constant(&g, ["lake", "king"])?)?; // [1, 3 + bucket of "king"]
//! let init = lookup::tables_initializer(&g)?; // run it once per session before `ids`
//! assert_eq!((init.name(), ids.dtype()), ("init_all_tables".to_string(), DType::I64));
//! # Ok::<(), weir_graph::Error>(())
//! ```

mod anonymous;
mod arg;
mod dense_hash_table;
mod dense_store;
mod dense_table;
mod index_tables;
mod initializers;
mod kernels;
mod mutable_table;
mod op_defs;
mod raw;
mod ref_ops;
mod static_table;
mod store;
mod table;
mod text_file;
mod vocabulary;

pub use arg::TensorArg;
pub use dense_hash_table::{DenseHashTable, DenseHashTableBuilder};
pub use index_tables::{
    index_table_from_file, index_table_from_tensor, index_to_string_table_from_file,
    index_to_string_table_from_tensor, IndexTable, IndexTableFromFile, IndexTableFromTensor,
    IndexToStringTableFromFile,
};
pub use initializers::{
    KeyValueTensorInitializer, TableInitializer, TextFileIndex, TextFileInitializer,
};
pub use mutable_table::{MutableHashTable, MutableHashTableBuilder};
pub use static_table::{StaticHashTable, StaticHashTableBuilder};
pub use vocabulary::{IdTableWithHashBuckets, StaticVocabularyTable};

use weir_graph::{graph_keys, CollectionItem, Graph, Operation, Result};

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    op_defs::register();
    dense_table::register();
    anonymous::register();
    ref_ops::register();
}

/// `tf.compat.v1.tables_initializer()`: one op that runs every init op of the graph's
/// `table_initializer` collection (a bare `NoOp` when there is none), named
/// `init_all_tables` (`init_all_tables_1`, ... after the first).
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::lookup::{tables_initializer, KeyValueTensorInitializer, StaticHashTable};
/// let g = Graph::new();
/// let table = StaticHashTable::new(&g, KeyValueTensorInitializer::new(["a"], [1i64]), -1)?;
/// let init = tables_initializer(&g)?;
/// assert_eq!(init.control_inputs()[0].name(), table.initializer().name());
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn tables_initializer(graph: &Graph) -> Result<Operation> {
    tables_initializer_named(graph, "init_all_tables")
}

/// `tf.compat.v1.tables_initializer(name=name)`: [`tables_initializer`] with another name.
///
/// ```
/// # use weir_graph::Graph;
/// let g = Graph::new();
/// let init = weir_ops::lookup::tables_initializer_named(&g, "tables")?; // a NoOp: no tables
/// assert_eq!((init.name(), init.op_type()), ("tables".to_string(), "NoOp".to_string()));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn tables_initializer_named(graph: &Graph, name: &str) -> Result<Operation> {
    let inits: Vec<Operation> = graph
        .get_collection(graph_keys::TABLE_INITIALIZERS)
        .into_iter()
        .filter_map(|item| match item {
            CollectionItem::Operation(op) => Some(op),
            CollectionItem::Output(o) => Some(o.op()),
            CollectionItem::Object(_) => None,
        })
        .collect();
    crate::control_flow::group(graph, &inits, Some(name))
}
