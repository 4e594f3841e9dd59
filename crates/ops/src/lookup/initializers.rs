//! Table initializers: TensorFlow's `tf.lookup.KeyValueTensorInitializer` and
//! `tf.lookup.TextFileInitializer`. An initializer describes the table's data; the table
//! constructor turns it into the graph's init op (`LookupTableImportV2` or
//! `InitializeTableFromTextFileV2`) and adds that op to the `table_initializer` collection.

use weir_graph::{graph_keys, DType, Error, Graph, Operation, Output, Result};

use super::arg::{tensor_str, TensorArg};
use super::text_file::{LINE_NUMBER, WHOLE_LINE};

/// `tf.lookup.TextFileIndex`: the special key and value indices of a [`TextFileInitializer`].
///
/// ```
/// # use weir_ops::lookup::TextFileIndex;
/// assert_eq!((TextFileIndex::WHOLE_LINE, TextFileIndex::LINE_NUMBER), (-2, -1));
/// ```
pub struct TextFileIndex;

impl TextFileIndex {
    /// `TextFileIndex.WHOLE_LINE`: the whole line is the key or value (string or integer).
    pub const WHOLE_LINE: i64 = WHOLE_LINE;
    /// `TextFileIndex.LINE_NUMBER`: the zero-based line number is the key or value (int64).
    pub const LINE_NUMBER: i64 = LINE_NUMBER;
}

/// `tf.lookup.KeyValueTensorInitializer(keys, values, key_dtype=None, value_dtype=None,
/// name=None)`: the table maps `keys[i]` to `values[i]`.
///
/// ```
/// # use weir_graph::DType;
/// # use weir_ops::lookup::KeyValueTensorInitializer;
/// let init = KeyValueTensorInitializer::new(["a", "b"], [1, 2]).value_dtype(DType::I64);
/// # let _ = init;
/// ```
#[derive(Clone, Debug)]
pub struct KeyValueTensorInitializer {
    keys: TensorArg,
    values: TensorArg,
    key_dtype: Option<DType>,
    value_dtype: Option<DType>,
    name: Option<String>,
}

impl KeyValueTensorInitializer {
    /// An initializer of the pairs (`keys[i]`, `values[i]`): values given when building or
    /// tensors of the table's graph (`KeyValueTensorInitializer(keys, values)`).
    ///
    /// ```
    /// # use weir_graph::{DType, Graph};
    /// # use weir_ops::{array::constant, lookup::{KeyValueTensorInitializer, TableInitializer}};
    /// let g = Graph::new();
    /// let init = KeyValueTensorInitializer::new(constant(&g, ["a", "b"])?, [1i64, 2]);
    /// assert_eq!(TableInitializer::from(init).dtypes(), (DType::String, DType::I64));
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn new(keys: impl Into<TensorArg>, values: impl Into<TensorArg>) -> Self {
        KeyValueTensorInitializer {
            keys: keys.into(),
            values: values.into(),
            key_dtype: None,
            value_dtype: None,
            name: None,
        }
    }

    /// The dtype the keys are converted to (`key_dtype=`), e.g. int64 for integer literals.
    pub fn key_dtype(mut self, dtype: DType) -> Self {
        self.key_dtype = Some(dtype);
        self
    }

    /// The dtype the values are converted to (`value_dtype=`).
    pub fn value_dtype(mut self, dtype: DType) -> Self {
        self.value_dtype = Some(dtype);
        self
    }

    /// The name scope of the init op (`name=`; `key_value_init` by default).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }
}

/// `tf.lookup.TextFileInitializer(filename, key_dtype, key_index, value_dtype, value_index,
/// vocab_size=None, delimiter='\t', name=None, value_index_offset=0)`: one entry per line of a
/// text file, the key and value taken from a column of the line split on `delimiter`, from the
/// whole line ([`TextFileIndex::WHOLE_LINE`]) or from the line number
/// ([`TextFileIndex::LINE_NUMBER`]).
///
/// The file name is a string or a string scalar tensor (e.g. a placeholder, so that a saved
/// graph finds its vocabulary where it is fed). Like TensorFlow, tables from the same file
/// name with the same indices share one table per session; a file name given as a `Const`
/// counts as its string.
///
/// ```
/// # use weir_graph::DType;
/// # use weir_ops::lookup::{TextFileIndex, TextFileInitializer};
/// let init = TextFileInitializer::new(
///     "vocab.txt",
///     DType::String,
///     TextFileIndex::WHOLE_LINE,
///     DType::I64,
///     TextFileIndex::LINE_NUMBER,
/// )
/// .vocab_size(3);
/// # let _ = init;
/// ```
#[derive(Clone, Debug)]
pub struct TextFileInitializer {
    filename: TensorArg,
    key_dtype: DType,
    key_index: i64,
    value_dtype: DType,
    value_index: i64,
    vocab_size: Option<i64>,
    delimiter: String,
    name: Option<String>,
    offset: i64,
}

impl TextFileInitializer {
    /// An initializer reading `filename`: keys of `key_dtype` from column `key_index`, values
    /// of `value_dtype` from column `value_index`, lines split on tabs
    /// (`TextFileInitializer(filename, key_dtype, key_index, value_dtype, value_index)`).
    ///
    /// ```
    /// # use weir_graph::{DType, Graph, Shape};
    /// # use weir_ops::{array::placeholder, lookup::{StaticHashTable, TextFileIndex, TextFileInitializer}};
    /// let g = Graph::new();
    /// let file = placeholder(&g, DType::String, Shape::scalar())?; // fed when initializing
    /// let init = TextFileInitializer::new(&file, DType::I64, TextFileIndex::LINE_NUMBER,
    ///     DType::String, TextFileIndex::WHOLE_LINE);
    /// let words = StaticHashTable::new(&g, init, "UNK")?;
    /// assert_eq!(words.initializer().name(), "text_file_init/InitializeTableFromTextFileV2");
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn new(
        filename: impl Into<TensorArg>,
        key_dtype: DType,
        key_index: i64,
        value_dtype: DType,
        value_index: i64,
    ) -> Self {
        TextFileInitializer {
            filename: filename.into(),
            key_dtype,
            key_index,
            value_dtype,
            value_index,
            vocab_size: None,
            delimiter: "\t".to_string(),
            name: None,
            offset: 0,
        }
    }

    /// The number of lines to read (`vocab_size=`): the file must have at least this many,
    /// and later lines are ignored.
    pub fn vocab_size(mut self, n: i64) -> Self {
        self.vocab_size = Some(n);
        self
    }

    /// The one-byte column delimiter (`delimiter=`, a tab by default).
    pub fn delimiter(mut self, d: &str) -> Self {
        self.delimiter = d.to_string();
        self
    }

    /// The name scope of the init op (`name=`; `text_file_init` by default).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Added to line numbers and int32 fields (`value_index_offset=`).
    pub fn value_index_offset(mut self, offset: i64) -> Self {
        self.offset = offset;
        self
    }

    /// The Python constructor's checks, with its messages.
    fn check(&self) -> Result<()> {
        let fail = |m: String| Err(Error::invalid_argument(m));
        if self.filename.const_string().is_some_and(|s| s.is_empty()) {
            return fail(
                "`filename` argument required for tf.lookup.TextFileInitializer".to_string(),
            );
        }
        let (k, v) = (self.key_dtype, self.value_dtype);
        let int_or_string = |d: DType| DType::INTEGER.contains(&d) || d == DType::String;
        let repr = |d: DType| format!("<dtype: '{}'>", d.python_name());
        if self.key_index < -2 {
            return fail(format!(
                "`key_index` should be >= -2, received: {}.",
                self.key_index
            ));
        }
        if self.key_index == LINE_NUMBER && k != DType::I64 {
            return fail(format!(
                "`key_dtype` must be int64 if `key_index` is -1, received: {}",
                repr(k)
            ));
        }
        if self.key_index == WHOLE_LINE && !int_or_string(k) {
            return fail(format!(
                "`key_dtype` should be either integer or string for `key_index` -2, received: {}",
                repr(k)
            ));
        }
        if self.value_index < -2 {
            return fail(format!(
                "`value_index` should be >= -2, received: {}",
                self.value_index
            ));
        }
        if self.value_index == LINE_NUMBER && v != DType::I64 {
            return fail(format!(
                "`value_dtype` must be int64 for `value_index` -1, received: {}",
                repr(v)
            ));
        }
        if self.value_index == WHOLE_LINE && !int_or_string(v) {
            return fail(format!(
                "`value_dtype` should be either integer or string for `value_index` -2, received: {}",
                repr(v)
            ));
        }
        if let Some(n) = self.vocab_size.filter(|n| *n <= 0) {
            return fail(format!("`vocab_size` should be > 0, received: {n}"));
        }
        Ok(())
    }

    /// TensorFlow's `TextFileInitializer._shared_name`: tables of one file and the same
    /// indices share a table.
    fn shared_name(&self, filename: &Output) -> String {
        let file = self
            .filename
            .const_string()
            .unwrap_or_else(|| tensor_str(filename));
        let (k, v) = (self.key_index, self.value_index);
        let mut s = format!("hash_table_{file}");
        if let Some(n) = self.vocab_size.filter(|n| *n != 0) {
            s.push_str(&format!("_{n}"));
        }
        s.push_str(&format!("_{k}_{v}"));
        if self.offset != 0 {
            s.push_str(&format!("_{}", self.offset));
        }
        s
    }
}

/// The data a table is initialized with: one of the two initializers.
#[derive(Clone, Debug)]
pub enum TableInitializer {
    /// Keys and values given as tensors.
    KeyValue(KeyValueTensorInitializer),
    /// Keys and values read from a text file.
    TextFile(TextFileInitializer),
}

impl From<KeyValueTensorInitializer> for TableInitializer {
    fn from(i: KeyValueTensorInitializer) -> Self {
        TableInitializer::KeyValue(i)
    }
}

impl From<TextFileInitializer> for TableInitializer {
    fn from(i: TextFileInitializer) -> Self {
        TableInitializer::TextFile(i)
    }
}

/// An initializer whose tensors are in the graph: what the table ops take.
pub(super) enum Placed {
    KeyValue {
        init: KeyValueTensorInitializer,
        keys: Output,
        values: Output,
    },
    TextFile {
        init: TextFileInitializer,
        filename: Output,
    },
}

impl TableInitializer {
    /// The key and value dtypes of the table it fills (`initializer.key_dtype`,
    /// `initializer.value_dtype`).
    pub fn dtypes(&self) -> (DType, DType) {
        match self {
            TableInitializer::KeyValue(i) => (
                i.key_dtype.unwrap_or_else(|| i.keys.dtype()),
                i.value_dtype.unwrap_or_else(|| i.values.dtype()),
            ),
            TableInitializer::TextFile(i) => (i.key_dtype, i.value_dtype),
        }
    }

    /// Checks the initializer and adds its tensors to `graph` (`keys` and `values` consts, or
    /// the `asset_path` const of a file name), as TensorFlow's constructor does.
    pub(super) fn place(&self, graph: &Graph) -> Result<Placed> {
        match self {
            TableInitializer::KeyValue(i) => {
                let keys = i.keys.to_output(graph, i.key_dtype, Some("keys"), "")?;
                let values = i
                    .values
                    .to_output(graph, i.value_dtype, Some("values"), "")?;
                Ok(Placed::KeyValue {
                    init: i.clone(),
                    keys,
                    values,
                })
            }
            TableInitializer::TextFile(i) => {
                i.check()?;
                let filename =
                    i.filename
                        .to_output(graph, Some(DType::String), Some("asset_path"), "")?;
                if filename.shape().rank().is_some_and(|r| r != 0) {
                    return Err(Error::invalid_argument(format!(
                        "The file name must be a string scalar, got shape {}",
                        filename.shape().python_str()
                    )));
                }
                Ok(Placed::TextFile {
                    init: i.clone(),
                    filename,
                })
            }
        }
    }
}

impl Placed {
    /// The shared name of the table (`initializer._shared_name`): empty for tensors (the
    /// table then takes a unique one).
    pub(super) fn shared_name(&self) -> String {
        match self {
            Placed::KeyValue { .. } => String::new(),
            Placed::TextFile { init, filename } => init.shared_name(filename),
        }
    }

    /// `initializer.initialize(table)`: adds the init op of the table `handle` (of
    /// `key_dtype`/`value_dtype`) to the graph and to the `table_initializer` collection.
    pub(super) fn initialize(
        &self,
        handle: &Output,
        key_dtype: DType,
        value_dtype: DType,
    ) -> Result<Operation> {
        let graph = handle.graph();
        let (k, v) = match self {
            Placed::KeyValue { keys, values, .. } => (keys.dtype(), values.dtype()),
            Placed::TextFile { init, .. } => (init.key_dtype, init.value_dtype),
        };
        if k != key_dtype {
            return Err(Error::invalid_argument(format!(
                "Invalid key dtype for table, expected <dtype: '{}'> but got <dtype: '{}'>.",
                key_dtype.python_name(),
                k.python_name()
            )));
        }
        if v != value_dtype {
            return Err(Error::invalid_argument(format!(
                "Invalid value dtype for table, expected <dtype: '{}'> but got <dtype: '{}'>.",
                value_dtype.python_name(),
                v.python_name()
            )));
        }
        let op = match self {
            Placed::KeyValue { init, keys, values } => {
                let scope = graph.name_scope(init.name.as_deref().unwrap_or("key_value_init"));
                let op = crate::new_op(graph, "LookupTableImportV2")
                    .input(handle)
                    .input(keys)
                    .input(values)
                    .build()?;
                drop(scope);
                op
            }
            Placed::TextFile { init, filename } => {
                // As TensorFlow's initializer, a constant file name is an asset of the graph.
                if filename.op().op_type() == "Const" {
                    graph.add_to_collection(graph_keys::ASSET_FILEPATHS, filename.clone())?;
                }
                let scope = graph.name_scope(init.name.as_deref().unwrap_or("text_file_init"));
                let op = crate::new_op(graph, "InitializeTableFromTextFileV2")
                    .input(handle)
                    .input(filename)
                    .attr("key_index", init.key_index)
                    .attr("value_index", init.value_index)
                    .attr("vocab_size", init.vocab_size.unwrap_or(-1))
                    .attr("delimiter", init.delimiter.as_str())
                    .attr("offset", init.offset)
                    .build()?;
                drop(scope);
                op
            }
        };
        graph.add_to_collection(graph_keys::TABLE_INITIALIZERS, op.clone())?;
        Ok(op)
    }
}
