//! TensorFlow's table factories of `tf.compat.v1` input pipelines (the ex-`tf.contrib.lookup`
//! functions): `index_table_from_tensor`, `index_table_from_file`,
//! `index_to_string_table_from_tensor` and `index_to_string_table_from_file`, with their scopes
//! and op names.

use weir_graph::{DType, Error, Graph, Operation, Output, Result, Tensor};

use super::arg::TensorArg;
use super::initializers::{KeyValueTensorInitializer, TextFileIndex, TextFileInitializer};
use super::static_table::StaticHashTable;
use super::vocabulary::IdTableWithHashBuckets;
use crate::sparse::SparseOutput;

/// What `index_table_from_tensor` and `index_table_from_file` return: the vocabulary table
/// itself without out-of-vocabulary buckets, else the table with its buckets.
#[derive(Clone, Debug)]
pub enum IndexTable {
    /// `num_oov_buckets == 0`: missing keys give the default value.
    Static(StaticHashTable),
    /// `num_oov_buckets > 0`: missing keys fall into hash buckets.
    Hashed(IdTableWithHashBuckets),
}

impl IndexTable {
    /// The table's name (`table.name`).
    pub fn name(&self) -> &str {
        match self {
            IndexTable::Static(t) => t.name(),
            IndexTable::Hashed(t) => t.name(),
        }
    }

    /// The dtype of the keys `lookup` takes (`table.key_dtype`).
    pub fn key_dtype(&self) -> DType {
        match self {
            IndexTable::Static(t) => t.key_dtype(),
            IndexTable::Hashed(t) => t.key_dtype(),
        }
    }

    /// The op that fills the vocabulary table (`table.initializer`).
    pub fn initializer(&self) -> Operation {
        match self {
            IndexTable::Static(t) => t.initializer(),
            IndexTable::Hashed(t) => t.initializer(),
        }
    }

    /// `table.lookup(keys)`: the int64 id of each key (any shape; the result has its shape).
    pub fn lookup(&self, keys: impl Into<Output>) -> Result<Output> {
        match self {
            IndexTable::Static(t) => t.lookup(keys),
            IndexTable::Hashed(t) => t.lookup(keys),
        }
    }

    /// `table.lookup(sparse_keys)`: the ids of a sparse tensor's values, at the same indices.
    pub fn lookup_sparse(&self, keys: &SparseOutput) -> Result<SparseOutput> {
        match self {
            IndexTable::Static(t) => t.lookup_sparse(keys),
            IndexTable::Hashed(t) => t.lookup_sparse(keys),
        }
    }

    /// `table.size()`: the vocabulary size plus the number of buckets, an int64 scalar.
    pub fn size(&self) -> Result<Output> {
        match self {
            IndexTable::Static(t) => t.size(),
            IndexTable::Hashed(t) => t.size(),
        }
    }
}

fn is_integer(d: DType) -> bool {
    DType::INTEGER.contains(&d)
}

/// `math_ops.cast(range(size(x)), int64)` with TensorFlow's names: the positions of a vector.
fn positions(g: &Graph, x: &Output) -> Result<Output> {
    let n = match x.shape().num_elements() {
        // Python folds the size of a fully known shape into a constant.
        Some(n) => crate::array::constant_named(g, Tensor::scalar(n as i32), "Size")?,
        None => crate::array::size(x)?,
    };
    let range = {
        let scope = g.name_scope("range");
        let start = crate::array::constant_named(g, Tensor::scalar(0i32), "start")?;
        let delta = crate::array::constant_named(g, Tensor::scalar(1i32), "delta")?;
        crate::new_op(g, "Range")
            .name(scope.prefix())
            .input(start)
            .input(n)
            .input(delta)
            .build()?
            .output(0)?
    };
    crate::math::cast(&range, DType::I64)
}

/// The options of `index_table_from_tensor(vocabulary_list, num_oov_buckets=0,
/// default_value=-1, dtype=tf.string, name=None)`: a vector of keys, each mapped to its
/// position; see [`index_table_from_tensor`].
#[derive(Clone, Debug)]
pub struct IndexTableFromTensor {
    vocabulary_list: TensorArg,
    num_oov_buckets: i64,
    default_value: i64,
    dtype: DType,
    name: Option<String>,
}

impl IndexTableFromTensor {
    /// The options for the vocabulary `vocabulary_list`, with TensorFlow's defaults.
    ///
    /// ```
    /// # use weir_graph::{DType, Graph};
    /// # use weir_ops::lookup::IndexTableFromTensor;
    /// let g = Graph::new();
    /// let t = IndexTableFromTensor::new(vec![7i64, 11]).dtype(DType::I64).num_oov_buckets(3).build(&g)?;
    /// assert_eq!(t.key_dtype(), DType::I64);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn new(vocabulary_list: impl Into<TensorArg>) -> Self {
        IndexTableFromTensor {
            vocabulary_list: vocabulary_list.into(),
            num_oov_buckets: 0,
            default_value: -1,
            dtype: DType::String,
            name: None,
        }
    }

    /// The number of out-of-vocabulary hash buckets (`num_oov_buckets=`, 0 by default).
    pub fn num_oov_buckets(mut self, n: i64) -> Self {
        self.num_oov_buckets = n;
        self
    }

    /// The id of missing keys without buckets (`default_value=`, -1 by default).
    pub fn default_value(mut self, v: i64) -> Self {
        self.default_value = v;
        self
    }

    /// The dtype of the keys `lookup` takes (`dtype=`, string by default; or an integer type).
    pub fn dtype(mut self, d: DType) -> Self {
        self.dtype = d;
        self
    }

    /// The name scope (`name=`, `string_to_index` by default).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the table to `graph`.
    pub fn build(self, graph: &Graph) -> Result<IndexTable> {
        if self.num_oov_buckets < 0 {
            return Err(Error::invalid_argument(format!(
                "`num_oov_buckets` must be greater or equal than 0, got {}.",
                self.num_oov_buckets
            )));
        }
        if !is_integer(self.dtype) && self.dtype != DType::String {
            return Err(Error::invalid_argument(
                "`dtype` must either be integer or string.",
            ));
        }
        let _scope = graph.name_scope(self.name.as_deref().unwrap_or("string_to_index"));
        let keys = self.vocabulary_list.to_output(graph, None, None, "")?;
        if is_integer(keys.dtype()) != is_integer(self.dtype) {
            return Err(Error::invalid_argument(format!(
                "Invalid `dtype`: Expected {}, got <dtype: '{}'>.",
                if is_integer(self.dtype) {
                    "integer"
                } else {
                    "non-integer"
                },
                keys.dtype().python_name()
            )));
        }
        if !is_integer(self.dtype) && keys.dtype() != self.dtype {
            return Err(Error::invalid_argument(format!(
                "Invalid `dtype`: Expected <dtype: '{}'>, got <dtype: '{}'>.",
                self.dtype.python_name(),
                keys.dtype().python_name()
            )));
        }
        let values = positions(graph, &keys)?;
        let table = {
            let _inner = graph.name_scope("hash_table");
            let table_keys = if is_integer(keys.dtype()) && keys.dtype() != DType::I64 {
                crate::math::cast(&keys, DType::I64)?
            } else {
                keys
            };
            let init = KeyValueTensorInitializer::new(table_keys, values).name("table_init");
            StaticHashTable::new(graph, init, self.default_value)?
        };
        with_buckets(graph, table, self.num_oov_buckets, self.dtype)
    }
}

/// `index_table_from_tensor(vocabulary_list, num_oov_buckets)`: a table mapping each string
/// of the vector `vocabulary_list` to its position (int64); other keys give -1, or fall into
/// `num_oov_buckets` hash buckets after the vocabulary. Duplicate keys fail when the table is
/// initialized. More options: [`IndexTableFromTensor`].
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, lookup::index_table_from_tensor};
/// let g = Graph::new();
/// let table = index_table_from_tensor(&g, ["emerson", "lake", "palmer"], 1)?;
/// let ids = table.lookup(constant(&g, ["emerson", "and", "palmer"])?)?; // [0, 3, 2]
/// assert_eq!(table.initializer().name(), "string_to_index/hash_table/table_init/LookupTableImportV2");
/// # let _ = ids;
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn index_table_from_tensor(
    graph: &Graph,
    vocabulary_list: impl Into<TensorArg>,
    num_oov_buckets: i64,
) -> Result<IndexTable> {
    IndexTableFromTensor::new(vocabulary_list)
        .num_oov_buckets(num_oov_buckets)
        .build(graph)
}

/// The options of `index_table_from_file(vocabulary_file, num_oov_buckets=0, vocab_size=None,
/// default_value=-1, key_dtype=tf.string, name=None, key_column_index=WHOLE_LINE,
/// value_column_index=LINE_NUMBER, delimiter='\t')`; see [`index_table_from_file`].
#[derive(Clone, Debug)]
pub struct IndexTableFromFile {
    vocabulary_file: TensorArg,
    num_oov_buckets: i64,
    vocab_size: Option<i64>,
    default_value: i64,
    key_dtype: DType,
    name: Option<String>,
    key_column_index: i64,
    value_column_index: i64,
    delimiter: String,
}

impl IndexTableFromFile {
    /// The options for the vocabulary file `vocabulary_file` (a path, or a string scalar
    /// tensor such as a placeholder), with TensorFlow's defaults.
    ///
    /// ```
    /// # use weir_graph::Graph;
    /// # use weir_ops::lookup::IndexTableFromFile;
    /// let g = Graph::new();
    /// // Lines like "word<TAB>id": the keys in column 0, the ids in column 1.
    /// let t = IndexTableFromFile::new("vocab.tsv")
    ///     .key_column_index(0)
    ///     .value_column_index(1)
    ///     .default_value(0)
    ///     .build(&g)?;
    /// assert_eq!(t.initializer().op_type(), "InitializeTableFromTextFileV2");
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn new(vocabulary_file: impl Into<TensorArg>) -> Self {
        IndexTableFromFile {
            vocabulary_file: vocabulary_file.into(),
            num_oov_buckets: 0,
            vocab_size: None,
            default_value: -1,
            key_dtype: DType::String,
            name: None,
            key_column_index: TextFileIndex::WHOLE_LINE,
            value_column_index: TextFileIndex::LINE_NUMBER,
            delimiter: "\t".to_string(),
        }
    }

    /// The number of out-of-vocabulary hash buckets (`num_oov_buckets=`, 0 by default).
    pub fn num_oov_buckets(mut self, n: i64) -> Self {
        self.num_oov_buckets = n;
        self
    }

    /// The number of lines to read (`vocab_size=`).
    pub fn vocab_size(mut self, n: i64) -> Self {
        self.vocab_size = Some(n);
        self
    }

    /// The id of missing keys without buckets (`default_value=`, -1 by default).
    pub fn default_value(mut self, v: i64) -> Self {
        self.default_value = v;
        self
    }

    /// The dtype of the keys (`key_dtype=`, string by default; or an integer type).
    pub fn key_dtype(mut self, d: DType) -> Self {
        self.key_dtype = d;
        self
    }

    /// The name scope (`name=`, `string_to_index` by default).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// The column of the keys (`key_column_index=`, the whole line by default).
    pub fn key_column_index(mut self, i: i64) -> Self {
        self.key_column_index = i;
        self
    }

    /// The column of the ids (`value_column_index=`, the line number by default).
    pub fn value_column_index(mut self, i: i64) -> Self {
        self.value_column_index = i;
        self
    }

    /// The one-byte column delimiter (`delimiter=`, a tab by default).
    pub fn delimiter(mut self, d: &str) -> Self {
        self.delimiter = d.to_string();
        self
    }

    /// Adds the table to `graph`.
    pub fn build(self, graph: &Graph) -> Result<IndexTable> {
        let file = self.vocabulary_file.const_string();
        if file.as_deref() == Some("") {
            return Err(Error::invalid_argument(
                "`vocabulary_file` must be specified and must not be empty.",
            ));
        }
        if self.num_oov_buckets < 0 {
            return Err(Error::invalid_argument(format!(
                "num_oov_buckets must be greater or equal than 0, got {}.",
                self.num_oov_buckets
            )));
        }
        if let Some(n) = self.vocab_size.filter(|n| *n < 1) {
            return Err(Error::invalid_argument(format!(
                "`vocab_size` must be greater than 0, got {n} for vocabulary_file: {}.",
                file.as_deref().unwrap_or("?")
            )));
        }
        if !is_integer(self.key_dtype) && self.key_dtype != DType::String {
            return Err(Error::invalid_argument(
                "Dtype for `keys` should be either integer or string.",
            ));
        }
        let _scope = graph.name_scope(self.name.as_deref().unwrap_or("string_to_index"));
        let table = {
            let _inner = graph.name_scope("hash_table");
            let key_dtype = if is_integer(self.key_dtype) {
                DType::I64
            } else {
                self.key_dtype
            };
            let mut init = TextFileInitializer::new(
                self.vocabulary_file.clone(),
                key_dtype,
                self.key_column_index,
                DType::I64,
                self.value_column_index,
            )
            .delimiter(&self.delimiter)
            .name("table_init");
            if let Some(n) = self.vocab_size {
                init = init.vocab_size(n);
            }
            StaticHashTable::new(graph, init, self.default_value)?
        };
        with_buckets(graph, table, self.num_oov_buckets, self.key_dtype)
    }
}

/// `index_table_from_file(vocabulary_file, num_oov_buckets)`: a table mapping each line of the
/// vocabulary file to its line number (int64); other keys give -1, or fall into
/// `num_oov_buckets` hash buckets after the vocabulary. Run its initializer (or
/// [`tables_initializer`](super::tables_initializer)) first. More options:
/// [`IndexTableFromFile`].
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, lookup::index_table_from_file};
/// let g = Graph::new();
/// let table = index_table_from_file(&g, "vocab.txt", 2)?;
/// let ids = table.lookup(constant(&g, ["emerson", "king"])?)?;
/// assert_eq!(ids.name(), "hash_table_Lookup/SelectV2:0");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn index_table_from_file(
    graph: &Graph,
    vocabulary_file: impl Into<TensorArg>,
    num_oov_buckets: i64,
) -> Result<IndexTable> {
    IndexTableFromFile::new(vocabulary_file)
        .num_oov_buckets(num_oov_buckets)
        .build(graph)
}

/// `index_to_string_table_from_tensor(vocabulary_list, default_value="UNK", name=None)`: a
/// table mapping each position (int64) of the string vector `vocabulary_list` to its string;
/// other ids give `default_value`.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, lookup::index_to_string_table_from_tensor};
/// let g = Graph::new();
/// let table = index_to_string_table_from_tensor(&g, ["emerson", "lake"], "UNKNOWN", None)?;
/// let words = table.lookup(constant(&g, vec![1i64, 5])?)?; // ["lake", "UNKNOWN"]
/// assert_eq!(table.initializer().name(), "index_to_string/table_init/LookupTableImportV2");
/// # let _ = words;
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn index_to_string_table_from_tensor(
    graph: &Graph,
    vocabulary_list: impl Into<TensorArg>,
    default_value: impl Into<TensorArg>,
    name: Option<&str>,
) -> Result<StaticHashTable> {
    let _scope = graph.name_scope(name.unwrap_or("index_to_string"));
    let vocabulary = vocabulary_list
        .into()
        .to_output(graph, Some(DType::String), None, "")?;
    let keys = positions(graph, &vocabulary)?;
    let init = KeyValueTensorInitializer::new(keys, vocabulary).name("table_init");
    StaticHashTable::new(graph, init, default_value)
}

/// The options of `index_to_string_table_from_file(vocabulary_file, vocab_size=None,
/// default_value="UNK", name=None, key_column_index=LINE_NUMBER,
/// value_column_index=WHOLE_LINE, delimiter='\t')`; see [`index_to_string_table_from_file`].
#[derive(Clone, Debug)]
pub struct IndexToStringTableFromFile {
    vocabulary_file: TensorArg,
    vocab_size: Option<i64>,
    default_value: TensorArg,
    name: Option<String>,
    key_column_index: i64,
    value_column_index: i64,
    delimiter: String,
}

impl IndexToStringTableFromFile {
    /// The options for the vocabulary file `vocabulary_file`, with TensorFlow's defaults.
    ///
    /// ```
    /// # use weir_graph::Graph;
    /// # use weir_ops::lookup::IndexToStringTableFromFile;
    /// let g = Graph::new();
    /// let t = IndexToStringTableFromFile::new("vocab.txt").default_value("<unk>").build(&g)?;
    /// assert_eq!(t.name(), "hash_table");
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn new(vocabulary_file: impl Into<TensorArg>) -> Self {
        IndexToStringTableFromFile {
            vocabulary_file: vocabulary_file.into(),
            vocab_size: None,
            default_value: "UNK".into(),
            name: None,
            key_column_index: TextFileIndex::LINE_NUMBER,
            value_column_index: TextFileIndex::WHOLE_LINE,
            delimiter: "\t".to_string(),
        }
    }

    /// The number of lines to read (`vocab_size=`).
    pub fn vocab_size(mut self, n: i64) -> Self {
        self.vocab_size = Some(n);
        self
    }

    /// The string of missing ids (`default_value=`, `UNK` by default).
    pub fn default_value(mut self, v: impl Into<TensorArg>) -> Self {
        self.default_value = v.into();
        self
    }

    /// The name scope (`name=`, `index_to_string` by default).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// The column of the ids (`key_column_index=`, the line number by default).
    pub fn key_column_index(mut self, i: i64) -> Self {
        self.key_column_index = i;
        self
    }

    /// The column of the strings (`value_column_index=`, the whole line by default).
    pub fn value_column_index(mut self, i: i64) -> Self {
        self.value_column_index = i;
        self
    }

    /// The one-byte column delimiter (`delimiter=`, a tab by default).
    pub fn delimiter(mut self, d: &str) -> Self {
        self.delimiter = d.to_string();
        self
    }

    /// Adds the table to `graph`.
    pub fn build(self, graph: &Graph) -> Result<StaticHashTable> {
        if self.vocabulary_file.const_string().as_deref() == Some("") {
            return Err(Error::invalid_argument(
                "`vocabulary_file` must be specified and must not be empty.",
            ));
        }
        if let Some(n) = self.vocab_size.filter(|n| *n < 1) {
            return Err(Error::invalid_argument(format!(
                "`vocab_size` must be greater than 0, got {n}."
            )));
        }
        let _scope = graph.name_scope(self.name.as_deref().unwrap_or("index_to_string"));
        let mut init = TextFileInitializer::new(
            self.vocabulary_file,
            DType::I64,
            self.key_column_index,
            DType::String,
            self.value_column_index,
        )
        .delimiter(&self.delimiter)
        .name("table_init");
        if let Some(n) = self.vocab_size {
            init = init.vocab_size(n);
        }
        StaticHashTable::new(graph, init, self.default_value)
    }
}

/// `index_to_string_table_from_file(vocabulary_file)`: a table mapping each line number
/// (int64) of the vocabulary file to its line; other ids give `UNK`. More options:
/// [`IndexToStringTableFromFile`].
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, lookup::index_to_string_table_from_file};
/// let g = Graph::new();
/// let table = index_to_string_table_from_file(&g, "vocab.txt")?;
/// let words = table.lookup(constant(&g, vec![0i64, 9])?)?;
/// assert_eq!(words.dtype(), weir_graph::DType::String);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn index_to_string_table_from_file(
    graph: &Graph,
    vocabulary_file: impl Into<TensorArg>,
) -> Result<StaticHashTable> {
    IndexToStringTableFromFile::new(vocabulary_file).build(graph)
}

/// `table` as TensorFlow's index tables return it: as it is without out-of-vocabulary buckets,
/// else behind `num_oov_buckets` hash buckets for keys of `key_dtype`.
fn with_buckets(
    graph: &Graph,
    table: StaticHashTable,
    num_oov_buckets: i64,
    key_dtype: DType,
) -> Result<IndexTable> {
    if num_oov_buckets == 0 {
        return Ok(IndexTable::Static(table));
    }
    Ok(IndexTable::Hashed(IdTableWithHashBuckets::new(
        graph,
        Some(table),
        num_oov_buckets,
        Some(key_dtype),
    )?))
}
