//! `StaticHashTable`: TensorFlow's `tf.compat.v1.lookup.StaticHashTable`, a `HashTableV2`
//! filled once by its initializer and read-only after.

use weir_graph::{DType, Error, Graph, Operation, Output, Result, Shape};

use super::arg::TensorArg;
use super::initializers::TableInitializer;
use super::raw;
use crate::sparse::SparseOutput;

/// A hash table that its initializer fills once (`tf.compat.v1.lookup.StaticHashTable`): run
/// [`StaticHashTable::initializer`] (or [`tables_initializer`](super::tables_initializer))
/// before looking keys up; missing keys give the default value.
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::{array::constant, lookup::{KeyValueTensorInitializer, StaticHashTable}};
/// let g = Graph::new();
/// let init = KeyValueTensorInitializer::new(["a", "b"], [7i64, 8]);
/// let table = StaticHashTable::new(&g, init, -1)?;
/// let ids = table.lookup(constant(&g, ["a", "z"])?)?;
/// assert_eq!((table.name(), ids.name().as_str()), ("hash_table", "hash_table_Lookup/LookupTableFindV2:0"));
/// assert_eq!(ids.dtype(), DType::I64);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct StaticHashTable {
    handle: Output,
    key_dtype: DType,
    value_dtype: DType,
    default_value: Output,
    initializer: Operation,
    name: String,
}

/// The options of a [`StaticHashTable`]: `StaticHashTable(initializer, default_value,
/// name=None)`.
#[derive(Clone, Debug)]
pub struct StaticHashTableBuilder {
    initializer: TableInitializer,
    default_value: TensorArg,
    name: Option<String>,
}

impl StaticHashTableBuilder {
    /// The name of the `HashTableV2` op (`hash_table` by default).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the table and its init op to `graph`.
    pub fn build(self, graph: &Graph) -> Result<StaticHashTable> {
        let (key_dtype, value_dtype) = self.initializer.dtypes();
        let placed = self.initializer.place(graph)?;
        let default_value = self
            .default_value
            .to_output(graph, Some(value_dtype), None, "")?;
        if !default_value.shape().is_compatible_with(&Shape::scalar()) {
            return Err(Error::invalid_argument(format!(
                "Shapes {} and () are not compatible",
                default_value.shape().python_str()
            )));
        }
        let mut shared = placed.shared_name();
        if shared.is_empty() {
            shared = format!("hash_table_{}", raw::uuid4());
        }
        let op = {
            let _lifted = graph.init_scope();
            crate::new_op(graph, "HashTableV2")
                .name(self.name.as_deref().unwrap_or("hash_table"))
                .attr("container", "")
                .attr("shared_name", shared)
                .attr("use_node_name_sharing", false)
                .attr("key_dtype", key_dtype)
                .attr("value_dtype", value_dtype)
                .build()?
        };
        let handle = op.output(0)?;
        // Inside a cond or while body, the init op is lifted out as TensorFlow lifts it.
        let initializer = if graph.current_control_flow_context().is_some() {
            let _lifted = graph.init_scope();
            placed.initialize(&handle, key_dtype, value_dtype)?
        } else {
            placed.initialize(&handle, key_dtype, value_dtype)?
        };
        Ok(StaticHashTable {
            name: raw::base_name(&op),
            handle,
            key_dtype,
            value_dtype,
            default_value,
            initializer,
        })
    }
}

impl StaticHashTable {
    /// A table filled by `initializer`, whose missing keys give `default_value` (a scalar of
    /// the value dtype, or a value converted to it): `StaticHashTable(initializer,
    /// default_value)`.
    ///
    /// ```
    /// # use weir_graph::Graph;
    /// # use weir_ops::lookup::{KeyValueTensorInitializer, StaticHashTable};
    /// let g = Graph::new();
    /// let t = StaticHashTable::new(&g, KeyValueTensorInitializer::new([1i64, 2], [0.5f32, 2.0]), -1.0)?;
    /// assert_eq!(t.default_value().dtype(), weir_graph::DType::F32);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn new(
        graph: &Graph,
        initializer: impl Into<TableInitializer>,
        default_value: impl Into<TensorArg>,
    ) -> Result<StaticHashTable> {
        StaticHashTable::builder(initializer, default_value).build(graph)
    }

    /// A table with options (`StaticHashTable(initializer, default_value, name=...)`); see
    /// [`StaticHashTableBuilder`].
    ///
    /// ```
    /// # use weir_graph::Graph;
    /// # use weir_ops::lookup::{KeyValueTensorInitializer, StaticHashTable};
    /// let g = Graph::new();
    /// let init = KeyValueTensorInitializer::new(["a"], [1i64]);
    /// let t = StaticHashTable::builder(init, -1).name("ids").build(&g)?;
    /// assert_eq!(t.name(), "ids");
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn builder(
        initializer: impl Into<TableInitializer>,
        default_value: impl Into<TensorArg>,
    ) -> StaticHashTableBuilder {
        StaticHashTableBuilder {
            initializer: initializer.into(),
            default_value: default_value.into(),
            name: None,
        }
    }

    /// The table's name (`table.name`): the last component of its op's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The table's resource handle (`table.resource_handle`).
    pub fn resource_handle(&self) -> &Output {
        &self.handle
    }

    /// The key dtype (`table.key_dtype`).
    pub fn key_dtype(&self) -> DType {
        self.key_dtype
    }

    /// The value dtype (`table.value_dtype`).
    pub fn value_dtype(&self) -> DType {
        self.value_dtype
    }

    /// The default value tensor (`table.default_value`).
    pub fn default_value(&self) -> &Output {
        &self.default_value
    }

    /// The op that fills the table (`table.initializer`), also in the `table_initializer`
    /// collection.
    pub fn initializer(&self) -> Operation {
        self.initializer.clone()
    }

    /// The graph of the table (`table.resource_handle.graph`).
    pub fn graph(&self) -> &Graph {
        self.handle.graph()
    }

    /// `table.lookup(keys)`: the value of each key (any shape; the result has its shape), the
    /// default value for missing keys. FailedPrecondition "Table not initialized." at run time
    /// before the initializer has run.
    pub fn lookup(&self, keys: impl Into<Output>) -> Result<Output> {
        let keys = keys.into();
        raw::check_keys(&keys, self.key_dtype)?;
        let _scope = self.graph().name_scope(&format!("{}_Lookup", self.name));
        raw::find(&self.handle, &keys, &self.default_value, &Shape::scalar())
    }

    /// `table.lookup(sparse_keys)`: the values of a sparse tensor's values, at the same
    /// indices.
    pub fn lookup_sparse(&self, keys: &SparseOutput) -> Result<SparseOutput> {
        let values = self.lookup(&keys.values)?;
        SparseOutput::new(keys.indices.clone(), values, keys.dense_shape.clone())
    }

    /// `table.size()`: the number of entries, an int64 scalar (0 before initialization).
    pub fn size(&self) -> Result<Output> {
        let _scope = self.graph().name_scope(&format!("{}_Size", self.name));
        raw::size(&self.handle)
    }

    /// `table.export()`: every key and its value, in no particular order. Aborted "HashTable
    /// is not initialized." at run time before initialization.
    pub fn export(&self) -> Result<(Output, Output)> {
        let _scope = self.graph().name_scope(&format!("{}_Export", self.name));
        raw::export(
            &self.handle,
            self.key_dtype,
            self.value_dtype,
            &Shape::scalar(),
        )
    }
}
