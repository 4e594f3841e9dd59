//! `DenseHashTable`: TensorFlow's `tf.lookup.experimental.DenseHashTable`, a mutable table
//! stored as open-addressed buckets (`MutableDenseHashTableV2`).

use weir_graph::{DType, Graph, Operation, Output, Result, Shape};

use super::arg::TensorArg;
use super::raw::{self, dtype_repr};

/// A mutable hash table with faster lookups and more memory than a
/// [`MutableHashTable`](super::MutableHashTable) (`tf.lookup.experimental.DenseHashTable`):
/// open addressing with quadratic probing over a power-of-two number of buckets. Two keys of
/// the key space mark empty and deleted buckets and can never be inserted, removed or looked up.
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::{array::constant, lookup::DenseHashTable};
/// let g = Graph::new();
/// let table = DenseHashTable::builder(DType::String, DType::I64, -1, "", "$")
///     .initial_num_buckets(16)
///     .build(&g)?;
/// let insert = table.insert(["a", "b"], [7i64, 8])?;
/// let found = table.lookup(constant(&g, ["a", "c"])?)?; // [7, -1] after `insert` runs
/// assert_eq!(insert.name(), "MutableDenseHashTable_lookup_table_insert/LookupTableInsertV2");
/// assert_eq!(found.name(), "MutableDenseHashTable_lookup_table_find/LookupTableFindV2:0");
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct DenseHashTable {
    handle: Output,
    key_dtype: DType,
    value_dtype: DType,
    default_value: Output,
    value_shape: Shape,
    /// The rank of a key: 0, or 1 when the empty key is a vector.
    key_rank: Option<usize>,
    name: String,
}

/// The options of a [`DenseHashTable`]: `DenseHashTable(key_dtype, value_dtype, default_value,
/// empty_key, deleted_key, initial_num_buckets=None, name='MutableDenseHashTable',
/// checkpoint=True, experimental_is_anonymous=False)`.
#[derive(Clone, Debug)]
pub struct DenseHashTableBuilder {
    key_dtype: DType,
    value_dtype: DType,
    default_value: TensorArg,
    empty_key: TensorArg,
    deleted_key: TensorArg,
    initial_num_buckets: Option<i64>,
    name: String,
    checkpoint: bool,
    experimental_is_anonymous: bool,
}

impl DenseHashTableBuilder {
    /// The initial number of buckets, a power of two of at least 4 (`initial_num_buckets=`;
    /// TensorFlow's default is 2^17 = 131072).
    pub fn initial_num_buckets(mut self, n: i64) -> Self {
        self.initial_num_buckets = Some(n);
        self
    }

    /// The name of the table op (`MutableDenseHashTable` by default).
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

    /// Whether the table is anonymous (`experimental_is_anonymous=`, false by default): an
    /// `AnonymousMutableDenseHashTable`, a fresh table on every run that no name reaches.
    pub fn experimental_is_anonymous(mut self, anonymous: bool) -> Self {
        self.experimental_is_anonymous = anonymous;
        self
    }

    /// Adds the table to `graph`.
    pub fn build(self, graph: &Graph) -> Result<DenseHashTable> {
        let default_value = self.default_value.to_output(
            graph,
            Some(self.value_dtype),
            Some("default_value"),
            "",
        )?;
        let empty_key =
            self.empty_key
                .to_output(graph, Some(self.key_dtype), Some("empty_key"), "")?;
        let deleted_key =
            self.deleted_key
                .to_output(graph, Some(self.key_dtype), Some("deleted_key"), "")?;
        let value_shape = default_value.shape();
        let op_type = if self.experimental_is_anonymous {
            "AnonymousMutableDenseHashTable"
        } else {
            "MutableDenseHashTableV2"
        };
        let mut b = crate::new_op(graph, op_type)
            .name(&self.name)
            .input(&empty_key)
            .input(&deleted_key)
            .attr("value_dtype", self.value_dtype)
            .attr("value_shape", value_shape.clone());
        if !self.experimental_is_anonymous {
            b = b
                .attr("container", "")
                .attr("shared_name", "")
                .attr("use_node_name_sharing", self.checkpoint);
        }
        if let Some(n) = self.initial_num_buckets {
            b = b.attr("initial_num_buckets", n);
        }
        let op = b.build()?;
        let table = DenseHashTable {
            name: raw::base_name(&op),
            handle: op.output(0)?,
            key_dtype: self.key_dtype,
            value_dtype: self.value_dtype,
            default_value,
            value_shape,
            key_rank: empty_key.shape().rank(),
        };
        if self.checkpoint {
            // TensorFlow's saveable exports the table when it is made.
            table.export()?;
        }
        Ok(table)
    }
}

impl DenseHashTable {
    /// An empty table of `key_dtype` keys and `value_dtype` values whose missing keys give
    /// `default_value`; `empty_key` and `deleted_key` mark free buckets:
    /// `DenseHashTable(key_dtype, value_dtype, default_value, empty_key, deleted_key)`.
    ///
    /// ```
    /// # use weir_graph::{DType, Graph};
    /// # use weir_ops::lookup::DenseHashTable;
    /// let g = Graph::new();
    /// let t = DenseHashTable::new(&g, DType::I64, DType::F32, 0.0, 0i64, -1i64)?;
    /// assert_eq!(t.resource_handle().op().op_type(), "MutableDenseHashTableV2");
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn new(
        graph: &Graph,
        key_dtype: DType,
        value_dtype: DType,
        default_value: impl Into<TensorArg>,
        empty_key: impl Into<TensorArg>,
        deleted_key: impl Into<TensorArg>,
    ) -> Result<DenseHashTable> {
        DenseHashTable::builder(
            key_dtype,
            value_dtype,
            default_value,
            empty_key,
            deleted_key,
        )
        .build(graph)
    }

    /// A table with options; see [`DenseHashTableBuilder`].
    pub fn builder(
        key_dtype: DType,
        value_dtype: DType,
        default_value: impl Into<TensorArg>,
        empty_key: impl Into<TensorArg>,
        deleted_key: impl Into<TensorArg>,
    ) -> DenseHashTableBuilder {
        DenseHashTableBuilder {
            key_dtype,
            value_dtype,
            default_value: default_value.into(),
            empty_key: empty_key.into(),
            deleted_key: deleted_key.into(),
            initial_num_buckets: None,
            name: "MutableDenseHashTable".to_string(),
            checkpoint: true,
            experimental_is_anonymous: false,
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

    /// The graph of the table.
    pub fn graph(&self) -> &Graph {
        self.handle.graph()
    }

    /// `table.size()`: the number of entries, an int64 scalar.
    pub fn size(&self) -> Result<Output> {
        let _scope = self.graph().name_scope(&format!("{}_Size", self.name));
        raw::size(&self.handle)
    }

    /// `table.lookup(keys)`: the value of each key (the result has the keys' shape without the
    /// key's own dims, followed by the value shape), the default value for missing keys.
    pub fn lookup(&self, keys: impl Into<TensorArg>) -> Result<Output> {
        let g = self.graph();
        let _scope = g.name_scope(&format!("{}_lookup_table_find", self.name));
        let keys = keys
            .into()
            .to_output(g, Some(self.key_dtype), Some("keys"), "keys: ")?;
        let shape = match (keys.shape().dims(), self.key_rank) {
            (Some(d), Some(r)) if d.len() >= r => {
                Shape::new(d[..d.len() - r].to_vec()).concatenate(&self.value_shape)
            }
            _ => Shape::unknown(),
        };
        crate::new_op(g, "LookupTableFindV2")
            .input(&self.handle)
            .input(keys)
            .input(&self.default_value)
            .output_shape(0, shape)
            .build()?
            .output(0)
    }

    /// `table.insert_or_assign(keys, values)`: adds each key with its value, replacing what it
    /// had.
    pub fn insert_or_assign(
        &self,
        keys: impl Into<TensorArg>,
        values: impl Into<TensorArg>,
    ) -> Result<Operation> {
        self.keys_values_op("LookupTableInsertV2", "lookup_table_insert", keys, values)
    }

    /// `table.insert(keys, values)`: [`DenseHashTable::insert_or_assign`].
    pub fn insert(
        &self,
        keys: impl Into<TensorArg>,
        values: impl Into<TensorArg>,
    ) -> Result<Operation> {
        self.insert_or_assign(keys, values)
    }

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

    /// `table.erase(keys)`: removes the keys present; others are ignored. Keys of another dtype
    /// are refused with TensorFlow's TypeError message.
    pub fn erase(&self, keys: impl Into<Output>) -> Result<Operation> {
        let keys = keys.into();
        if keys.dtype() != self.key_dtype {
            return Err(weir_graph::Error::invalid_argument(format!(
                "Signature mismatch. Keys must be dtype {}, got {}.",
                dtype_repr(self.key_dtype),
                dtype_repr(keys.dtype())
            )));
        }
        let _scope = self
            .graph()
            .name_scope(&format!("{}_lookup_table_remove", self.name));
        crate::new_op(self.graph(), "LookupTableRemoveV2")
            .input(&self.handle)
            .input(keys)
            .build()
    }

    /// `table.remove(keys)`: [`DenseHashTable::erase`].
    pub fn remove(&self, keys: impl Into<Output>) -> Result<Operation> {
        self.erase(keys)
    }

    /// `table.export()`: every bucket's key (`[buckets, key size]`, the empty and deleted keys
    /// included) and value (`[buckets, value size]`), in bucket order.
    pub fn export(&self) -> Result<(Output, Output)> {
        let g = self.graph();
        let _scope = g.name_scope(&format!("{}_lookup_table_export_values", self.name));
        let op = crate::new_op(g, "LookupTableExportV2")
            .input(&self.handle)
            .attr("Tkeys", self.key_dtype)
            .attr("Tvalues", self.value_dtype)
            .output_shape(0, Shape::unknown())
            .output_shape(1, Shape::unknown())
            .build()?;
        Ok((op.output(0)?, op.output(1)?))
    }

    /// `LookupTableImportV2`, as a checkpoint restore runs it: the buckets become `keys` and
    /// `values`, as [`DenseHashTable::export`] gives them.
    pub fn import(
        &self,
        keys: impl Into<TensorArg>,
        values: impl Into<TensorArg>,
    ) -> Result<Operation> {
        self.keys_values_op("LookupTableImportV2", "table_restore", keys, values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::constant;
    use weir_graph::Tensor;

    #[test]
    fn dense_hash_table_builder_names_ops_as_python() {
        let g = Graph::new();
        let t = DenseHashTable::builder(
            DType::I64,
            DType::F32,
            vec![0.0f32, 1.0],
            vec![0i64, 0],
            vec![-1i64, -1],
        )
        .initial_num_buckets(8)
        .build(&g)
        .unwrap();
        assert_eq!(t.name(), "MutableDenseHashTable");
        let op = t.resource_handle().op();
        assert!(op.attr::<bool>("use_node_name_sharing").unwrap());
        assert_eq!(op.attr::<i64>("initial_num_buckets").unwrap(), 8);
        let keys = constant(&g, Tensor::from_vec(&[1, 2], vec![1i64, 2]).unwrap()).unwrap();
        // TensorFlow: lookup of [1, 2] keys of shape [2] gives shape (1, 2); export is unknown.
        assert_eq!(
            t.lookup(keys).unwrap().shape(),
            weir_graph::Shape::known(&[1, 2])
        );
        let (k, _) = t.export().unwrap();
        assert_eq!(
            k.name(),
            "MutableDenseHashTable_lookup_table_export_values_1/LookupTableExportV2:0"
        );
        assert_eq!(
            t.size().unwrap().name(),
            "MutableDenseHashTable_Size/LookupTableSizeV2:0"
        );
        let e = t.remove(constant(&g, vec![1i32]).unwrap()).unwrap_err();
        assert_eq!(
            e.message(),
            "Signature mismatch. Keys must be dtype <dtype: 'int64'>, got <dtype: 'int32'>."
        );
        let anon = DenseHashTable::builder(DType::I64, DType::I64, -1i64, 0i64, -1i64)
            .experimental_is_anonymous(true)
            .checkpoint(false)
            .name("anon")
            .build(&g)
            .unwrap();
        assert_eq!(
            anon.resource_handle().op().op_type(),
            "AnonymousMutableDenseHashTable"
        );
    }
}
