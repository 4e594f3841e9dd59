//! `MutableHashTable`: TensorFlow's `tf.lookup.experimental.MutableHashTable`, a table that
//! ops insert into and remove from while the graph runs.

use weir_graph::{DType, Graph, Operation, Output, Result, Shape};

use super::arg::TensorArg;
use super::raw::{self, check_keys};

/// A hash table that ops fill and empty at run time
/// (`tf.lookup.experimental.MutableHashTable`). Values are scalars, or vectors when the default
/// value is a vector (`MutableHashTableOfTensorsV2`); missing keys give the default value.
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::{array::constant, lookup::MutableHashTable};
/// let g = Graph::new();
/// let table = MutableHashTable::new(&g, DType::String, DType::I64, -1)?;
/// let insert = table.insert(["a", "b"], [7i64, 8])?;
/// let found = table.lookup(constant(&g, ["a", "c"])?)?; // [7, -1] after `insert` runs
/// assert_eq!(insert.name(), "MutableHashTable_lookup_table_insert/LookupTableInsertV2");
/// assert_eq!(found.name(), "MutableHashTable_lookup_table_find/LookupTableFindV2:0");
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct MutableHashTable {
    handle: Output,
    key_dtype: DType,
    value_dtype: DType,
    default_value: Output,
    value_shape: Shape,
    name: String,
}

/// The options of a [`MutableHashTable`]: `MutableHashTable(key_dtype, value_dtype,
/// default_value, name='MutableHashTable', checkpoint=True)`.
#[derive(Clone, Debug)]
pub struct MutableHashTableBuilder {
    key_dtype: DType,
    value_dtype: DType,
    default_value: TensorArg,
    name: String,
    checkpoint: bool,
}

impl MutableHashTableBuilder {
    /// The name of the table op (`MutableHashTable` by default).
    pub fn name(mut self, name: &str) -> Self {
        self.name = name.to_string();
        self
    }

    /// Whether the table is saved in checkpoints (`checkpoint=`, true by default). A
    /// checkpointed table is shared by its node name, and its export op for the saver is added
    /// to the graph, as TensorFlow adds it.
    pub fn checkpoint(mut self, checkpoint: bool) -> Self {
        self.checkpoint = checkpoint;
        self
    }

    /// Adds the table to `graph`.
    pub fn build(self, graph: &Graph) -> Result<MutableHashTable> {
        let default_value =
            self.default_value
                .to_output(graph, Some(self.value_dtype), None, "")?;
        let value_shape = default_value.shape();
        let mut b = match value_shape.rank() {
            Some(0) => crate::new_op(graph, "MutableHashTableV2"),
            _ => crate::new_op(graph, "MutableHashTableOfTensorsV2")
                .attr("value_shape", value_shape.clone()),
        };
        b = b
            .name(&self.name)
            .attr("container", "")
            .attr("shared_name", "")
            .attr("use_node_name_sharing", self.checkpoint)
            .attr("key_dtype", self.key_dtype)
            .attr("value_dtype", self.value_dtype);
        let op = b.build()?;
        let table = MutableHashTable {
            name: raw::base_name(&op),
            handle: op.output(0)?,
            key_dtype: self.key_dtype,
            value_dtype: self.value_dtype,
            default_value,
            value_shape,
        };
        if self.checkpoint {
            // TensorFlow's saveable exports the table when it is made.
            table.export()?;
        }
        Ok(table)
    }
}

impl MutableHashTable {
    /// An empty table of `key_dtype` keys and `value_dtype` values whose missing keys give
    /// `default_value` (converted to `value_dtype`): `MutableHashTable(key_dtype, value_dtype,
    /// default_value)`.
    ///
    /// ```
    /// # use weir_graph::{DType, Graph};
    /// # use weir_ops::lookup::MutableHashTable;
    /// let g = Graph::new();
    /// let t = MutableHashTable::new(&g, DType::I64, DType::F32, 0.0)?;
    /// assert_eq!(t.resource_handle().op().op_type(), "MutableHashTableV2");
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn new(
        graph: &Graph,
        key_dtype: DType,
        value_dtype: DType,
        default_value: impl Into<TensorArg>,
    ) -> Result<MutableHashTable> {
        MutableHashTable::builder(key_dtype, value_dtype, default_value).build(graph)
    }

    /// A table with options (`MutableHashTable(..., name=..., checkpoint=...)`); see
    /// [`MutableHashTableBuilder`].
    ///
    /// ```
    /// # use weir_graph::{DType, Graph};
    /// # use weir_ops::lookup::MutableHashTable;
    /// let g = Graph::new();
    /// let t = MutableHashTable::builder(DType::String, DType::I32, vec![0i32, 0])
    ///     .name("pairs")
    ///     .checkpoint(false)
    ///     .build(&g)?;
    /// assert_eq!(t.resource_handle().op().op_type(), "MutableHashTableOfTensorsV2");
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn builder(
        key_dtype: DType,
        value_dtype: DType,
        default_value: impl Into<TensorArg>,
    ) -> MutableHashTableBuilder {
        MutableHashTableBuilder {
            key_dtype,
            value_dtype,
            default_value: default_value.into(),
            name: "MutableHashTable".to_string(),
            checkpoint: true,
        }
    }

    /// The table's name (`table.name`).
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

    /// The default value tensor (`table._default_value`).
    pub fn default_value(&self) -> &Output {
        &self.default_value
    }

    /// The graph of the table (`table.resource_handle.graph`).
    pub fn graph(&self) -> &Graph {
        self.handle.graph()
    }

    /// `table.lookup(keys)`: the value of each key (any shape; the result has the keys' shape
    /// followed by the value shape), the default value for missing keys.
    pub fn lookup(&self, keys: impl Into<TensorArg>) -> Result<Output> {
        self.find(keys.into(), None)
    }

    /// `table.lookup(keys, dynamic_default_values)`: like [`MutableHashTable::lookup`], a
    /// missing key getting its own entry of `defaults` when `defaults` has the result's shape
    /// (the table's default shape gives every missing key the same one).
    pub fn lookup_with_defaults(
        &self,
        keys: impl Into<TensorArg>,
        defaults: impl Into<Output>,
    ) -> Result<Output> {
        self.find(keys.into(), Some(defaults.into()))
    }

    fn find(&self, keys: TensorArg, defaults: Option<Output>) -> Result<Output> {
        let g = self.graph();
        let _scope = g.name_scope(&format!("{}_lookup_table_find", self.name));
        let keys = keys.to_output(g, Some(self.key_dtype), Some("keys"), "keys: ")?;
        let default = defaults.unwrap_or_else(|| self.default_value.clone());
        raw::find(&self.handle, &keys, &default, &self.value_shape)
    }

    /// `table.insert(keys, values)`: adds each key with its value, replacing what it had; the
    /// values have the keys' shape followed by the value shape.
    pub fn insert(
        &self,
        keys: impl Into<TensorArg>,
        values: impl Into<TensorArg>,
    ) -> Result<Operation> {
        self.keys_values_op("LookupTableInsertV2", "lookup_table_insert", keys, values)
    }

    /// An op of `op_type` on the table, the keys and the values, in the scope `<name>_<scope>`.
    fn keys_values_op(
        &self,
        op_type: &str,
        scope: &str,
        keys: impl Into<TensorArg>,
        values: impl Into<TensorArg>,
    ) -> Result<Operation> {
        let g = self.graph();
        let _scope = g.name_scope(&format!("{}_{scope}", self.name));
        let keys = keys
            .into()
            .to_output(g, Some(self.key_dtype), Some("keys"), "keys: ")?;
        let values =
            values
                .into()
                .to_output(g, Some(self.value_dtype), Some("values"), "values: ")?;
        crate::new_op(g, op_type)
            .input(&self.handle)
            .input(keys)
            .input(values)
            .build()
    }

    /// `table.remove(keys)`: removes the keys present; others are ignored.
    pub fn remove(&self, keys: impl Into<Output>) -> Result<Operation> {
        let keys = keys.into();
        check_keys(&keys, self.key_dtype)?;
        let _scope = self
            .graph()
            .name_scope(&format!("{}_lookup_table_remove", self.name));
        crate::new_op(self.graph(), "LookupTableRemoveV2")
            .input(&self.handle)
            .input(keys)
            .build()
    }

    /// `table.size()`: the number of entries, an int64 scalar.
    pub fn size(&self) -> Result<Output> {
        let _scope = self.graph().name_scope(&format!("{}_Size", self.name));
        raw::size(&self.handle)
    }

    /// `table.export()`: every key and its value, in no particular order.
    pub fn export(&self) -> Result<(Output, Output)> {
        let _scope = self
            .graph()
            .name_scope(&format!("{}_lookup_table_export_values", self.name));
        raw::export(
            &self.handle,
            self.key_dtype,
            self.value_dtype,
            &self.value_shape,
        )
    }

    /// `LookupTableImportV2`: replaces every entry by the pairs (`keys[i]`, `values[i]`), as a
    /// checkpoint restore does.
    pub fn import(
        &self,
        keys: impl Into<TensorArg>,
        values: impl Into<TensorArg>,
    ) -> Result<Operation> {
        self.keys_values_op("LookupTableImportV2", "table_restore", keys, values)
    }
}
