//! Tables of ids with out-of-vocabulary buckets: TensorFlow's
//! `tf.compat.v1.lookup.StaticVocabularyTable` and `IdTableWithHashBuckets` (what
//! `index_table_from_tensor` and `index_table_from_file` return with `num_oov_buckets > 0`).
//! A key missing from the vocabulary gets `vocab size + Fingerprint64(key) % num_oov_buckets`,
//! integer keys hashed as their decimal strings, as TensorFlow's `FastHashSpec` does.

use weir_graph::{DType, Error, Graph, Operation, Output, Result, Tensor};

use super::initializers::TableInitializer;
use super::raw::{self, dtype_repr};
use super::static_table::StaticHashTable;
use crate::sparse::SparseOutput;

/// The parts both table kinds share.
#[derive(Clone, Debug)]
struct Buckets {
    table: Option<StaticHashTable>,
    num_oov_buckets: i64,
    key_dtype: DType,
    name: String,
    /// The op run to initialize: the inner table's, or a `NoOp` without one.
    initializer: Operation,
}

fn is_integer(d: DType) -> bool {
    DType::INTEGER.contains(&d)
}

impl Buckets {
    /// TensorFlow's checks of the inner table and of the lookup key dtype.
    fn new(
        graph: &Graph,
        table: Option<StaticHashTable>,
        num_oov_buckets: i64,
        key_dtype: Option<DType>,
        name: Option<&str>,
        vocabulary: bool,
    ) -> Result<Buckets> {
        let invalid = |m: String| Err(Error::invalid_argument(m));
        let (key_dtype, name) = match &table {
            Some(t) => {
                let key_dtype = key_dtype.unwrap_or(t.key_dtype());
                if !matches!(t.key_dtype(), DType::I64 | DType::String) {
                    return invalid(if vocabulary {
                        format!(
                            "Invalid `key_dtype`, expected one of (tf.int64, tf.string), but got {}.",
                            dtype_repr(t.key_dtype())
                        )
                    } else {
                        format!(
                            "Invalid `key_dtype`, expected one of (tf.int64, tf.string), received {}.",
                            dtype_repr(key_dtype)
                        )
                    });
                }
                if is_integer(t.key_dtype()) != is_integer(key_dtype) {
                    return invalid(format!(
                        "Invalid `key_dtype`, expected {} but got {}.",
                        if is_integer(key_dtype) {
                            "integer"
                        } else {
                            "non-integer"
                        },
                        dtype_repr(t.key_dtype())
                    ));
                }
                if t.value_dtype() != DType::I64 {
                    return invalid(if vocabulary {
                        format!(
                            "Invalid `value_dtype`, expected <dtype: 'int64'> but got {}.",
                            dtype_repr(t.value_dtype())
                        )
                    } else {
                        format!(
                            "Invalid `value_dtype`: expected int64 but got {}.",
                            t.value_dtype().python_name()
                        )
                    });
                }
                (
                    key_dtype,
                    name.map_or_else(|| t.name().to_string(), str::to_string),
                )
            }
            None => {
                if num_oov_buckets <= 0 {
                    return invalid("`oov_buckets` must be > 0 if no `table` is supplied.".into());
                }
                (
                    key_dtype.unwrap_or(DType::String),
                    name.unwrap_or("hash_bucket").to_string(),
                )
            }
        };
        if !is_integer(key_dtype) && key_dtype != DType::String {
            return invalid(format!(
                "Invalid `key_dtype`, expected integer or string, got {}",
                dtype_repr(key_dtype)
            ));
        }
        let initializer = match &table {
            Some(t) => t.initializer(),
            None => {
                let _scope = graph.name_scope("init");
                crate::control_flow::no_op(graph)?
            }
        };
        Ok(Buckets {
            table,
            num_oov_buckets,
            key_dtype,
            name: name.rsplit('/').next().unwrap_or_default().to_string(),
            initializer,
        })
    }

    fn graph(&self) -> &Graph {
        self.initializer.graph()
    }

    fn lookup(&self, keys: Output) -> Result<Output> {
        raw::check_keys(&keys, self.key_dtype)?;
        let g = self.graph().clone();
        let mut values = keys;
        if let Some(t) = &self.table {
            if t.key_dtype() == DType::I64 && values.dtype() != DType::I64 {
                values = crate::math::cast(&values, DType::I64)?;
            }
            if self.num_oov_buckets == 0 {
                return t.lookup(values);
            }
        }
        let _scope = g.name_scope(&format!("{}_Lookup", self.name));
        let strings = if values.dtype() == DType::String {
            values.clone()
        } else {
            crate::string::as_string(&values)?
        };
        let buckets = crate::new_op(&g, "StringToHashBucketFast")
            .name("hash_bucket")
            .input(&strings)
            .attr("num_buckets", self.num_oov_buckets)
            .build()?
            .output(0)?;
        let Some(t) = &self.table else {
            return Ok(buckets);
        };
        let ids = t.lookup(&values)?;
        let size = t.size()?;
        let binary = |op: &str, name: &str, inputs: &[&Output]| -> Result<Output> {
            crate::new_op(&g, op)
                .name(name)
                .inputs(inputs.iter().copied())
                .build()?
                .output(0)
        };
        let buckets = binary("AddV2", "Add", &[&buckets, &size])?;
        let known = binary("NotEqual", "NotEqual", &[&ids, t.default_value()])?;
        binary("SelectV2", "SelectV2", &[&known, &ids, &buckets])
    }

    fn size(&self) -> Result<Output> {
        let g = self.graph().clone();
        let _scope = g.name_scope(&format!("{}_Size", self.name));
        let tsize = match &self.table {
            Some(t) => t.size()?,
            None => crate::array::constant(&g, 0i64)?,
        };
        let add = g.name_scope("add");
        let y = crate::array::constant_named(&g, Tensor::scalar(self.num_oov_buckets), "y")?;
        crate::new_op(&g, "AddV2")
            .name(add.prefix())
            .input(&tsize)
            .input(&y)
            .build()?
            .output(0)
    }
}

macro_rules! bucket_methods {
    ($t:ty) => {
        impl $t {
            /// The table's name (`table.name`), which its lookup and size ops are named after.
            pub fn name(&self) -> &str {
                &self.b.name
            }

            /// The number of out-of-vocabulary buckets (`num_oov_buckets`).
            pub fn num_oov_buckets(&self) -> i64 {
                self.b.num_oov_buckets
            }

            /// The dtype of the keys `lookup` takes (`table.key_dtype`).
            pub fn key_dtype(&self) -> DType {
                self.b.key_dtype
            }

            /// The vocabulary table, if there is one (Python's `table._table`).
            pub fn table(&self) -> Option<&StaticHashTable> {
                self.b.table.as_ref()
            }

            /// The op that fills the vocabulary table (`table.initializer`), a `NoOp` when
            /// there is no vocabulary.
            pub fn initializer(&self) -> Operation {
                self.b.initializer.clone()
            }

            /// `table.lookup(keys)`: the id of each key (any shape; the result has its shape),
            /// int64; out-of-vocabulary keys get the id of their hash bucket.
            pub fn lookup(&self, keys: impl Into<Output>) -> Result<Output> {
                self.b.lookup(keys.into())
            }

            /// `table.lookup(sparse_keys)`: the ids of a sparse tensor's values, at the same
            /// indices.
            pub fn lookup_sparse(&self, keys: &SparseOutput) -> Result<SparseOutput> {
                let values = self.b.lookup(keys.values.clone())?;
                SparseOutput::new(keys.indices.clone(), values, keys.dense_shape.clone())
            }

            /// `table.size()`: the vocabulary size plus the number of buckets, an int64 scalar.
            pub fn size(&self) -> Result<Output> {
                self.b.size()
            }
        }
    };
}

/// A vocabulary of ids whose other keys fall into hash buckets
/// (`tf.compat.v1.lookup.StaticVocabularyTable`): a key of the vocabulary maps to its id, any
/// other to `vocab size + Fingerprint64(key) % num_oov_buckets`.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, lookup::{KeyValueTensorInitializer, StaticVocabularyTable}};
/// let g = Graph::new();
/// let init = KeyValueTensorInitializer::new(["emerson", "lake", "palmer"], [0i64, 1, 2]);
/// let table = StaticVocabularyTable::new(&g, init, 5)?;
/// let ids = table.lookup(constant(&g, ["lake", "king"])?)?; // [1, 6] once initialized
/// assert_eq!(ids.name(), "hash_table_Lookup/SelectV2:0");
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct StaticVocabularyTable {
    b: Buckets,
}

bucket_methods!(StaticVocabularyTable);

impl StaticVocabularyTable {
    /// A vocabulary from `initializer` (string or int64 keys, int64 ids) with
    /// `num_oov_buckets` (> 0) buckets: `StaticVocabularyTable(initializer,
    /// num_oov_buckets)`.
    ///
    /// ```
    /// # use weir_graph::Graph;
    /// # use weir_ops::lookup::{KeyValueTensorInitializer, StaticVocabularyTable};
    /// let g = Graph::new();
    /// let init = KeyValueTensorInitializer::new([10i64, 20], [0i64, 1]);
    /// let t = StaticVocabularyTable::new(&g, init, 3)?;
    /// assert_eq!(t.initializer().name(), "key_value_init/LookupTableImportV2");
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn new(
        graph: &Graph,
        initializer: impl Into<TableInitializer>,
        num_oov_buckets: i64,
    ) -> Result<StaticVocabularyTable> {
        StaticVocabularyTable::with_options(
            graph,
            Some(initializer.into()),
            num_oov_buckets,
            None,
            None,
        )
    }

    /// `StaticVocabularyTable(initializer, num_oov_buckets, lookup_key_dtype, name)`: without
    /// an initializer every key is hashed (string keys); `lookup_key_dtype` is the dtype of the
    /// keys `lookup` takes (an integer type for a vocabulary of int64 keys).
    ///
    /// ```
    /// # use weir_graph::Graph;
    /// # use weir_ops::{array::constant, lookup::StaticVocabularyTable};
    /// let g = Graph::new();
    /// let buckets = StaticVocabularyTable::with_options(&g, None, 100, None, Some("words"))?;
    /// let ids = buckets.lookup(constant(&g, ["any", "word"])?)?; // Fingerprint64 % 100
    /// assert_eq!(ids.name(), "words_Lookup/hash_bucket:0");
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn with_options(
        graph: &Graph,
        initializer: Option<TableInitializer>,
        num_oov_buckets: i64,
        lookup_key_dtype: Option<DType>,
        name: Option<&str>,
    ) -> Result<StaticVocabularyTable> {
        if num_oov_buckets <= 0 {
            return Err(Error::invalid_argument(
                "`num_oov_buckets` must be > 0; use StaticHashTable.",
            ));
        }
        let name = name.map(|n| n.trim_end_matches('/'));
        let (table, key_dtype) = match initializer {
            Some(init) => {
                let (k, v) = init.dtypes();
                let lookup = lookup_key_dtype.unwrap_or(k);
                if !matches!(k, DType::I64 | DType::String) {
                    return Err(Error::invalid_argument(format!(
                        "Invalid `key_dtype`, expected one of (tf.int64, tf.string), but got {}.",
                        dtype_repr(k)
                    )));
                }
                if is_integer(k) != is_integer(lookup) {
                    return Err(Error::invalid_argument(format!(
                        "Invalid `key_dtype`, expected {} but got {}.",
                        if is_integer(lookup) {
                            "integer"
                        } else {
                            "non-integer"
                        },
                        dtype_repr(k)
                    )));
                }
                if v != DType::I64 {
                    return Err(Error::invalid_argument(format!(
                        "Invalid `value_dtype`, expected <dtype: 'int64'> but got {}.",
                        dtype_repr(v)
                    )));
                }
                (Some(StaticHashTable::new(graph, init, -1i64)?), lookup)
            }
            None => (None, DType::String),
        };
        Ok(StaticVocabularyTable {
            b: Buckets::new(graph, table, num_oov_buckets, Some(key_dtype), name, true)?,
        })
    }
}

/// A table of ids whose missing keys fall into hash buckets (`IdTableWithHashBuckets`), what
/// [`index_table_from_tensor`](super::index_table_from_tensor) and
/// [`index_table_from_file`](super::index_table_from_file) build with `num_oov_buckets > 0`.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, lookup::{IdTableWithHashBuckets, KeyValueTensorInitializer, StaticHashTable}};
/// let g = Graph::new();
/// let vocab = StaticHashTable::new(&g, KeyValueTensorInitializer::new(["a"], [0i64]), -1)?;
/// let table = IdTableWithHashBuckets::new(&g, Some(vocab), 3, None)?;
/// assert_eq!(table.lookup(constant(&g, ["a", "b"])?)?.name(), "hash_table_Lookup/SelectV2:0");
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct IdTableWithHashBuckets {
    b: Buckets,
}

bucket_methods!(IdTableWithHashBuckets);

impl IdTableWithHashBuckets {
    /// `IdTableWithHashBuckets(table, num_oov_buckets, key_dtype=key_dtype)`: `table` maps
    /// string or int64 keys to int64 ids (without one, every key is hashed); `key_dtype` is the
    /// dtype of the keys `lookup` takes (the table's by default).
    ///
    /// ```
    /// # use weir_graph::{DType, Graph};
    /// # use weir_ops::lookup::IdTableWithHashBuckets;
    /// let g = Graph::new();
    /// let hashed = IdTableWithHashBuckets::new(&g, None, 10, Some(DType::I32))?;
    /// assert_eq!((hashed.name(), hashed.key_dtype()), ("hash_bucket", DType::I32));
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn new(
        graph: &Graph,
        table: Option<StaticHashTable>,
        num_oov_buckets: i64,
        key_dtype: Option<DType>,
    ) -> Result<IdTableWithHashBuckets> {
        Ok(IdTableWithHashBuckets {
            b: Buckets::new(graph, table, num_oov_buckets, key_dtype, None, false)?,
        })
    }
}
