//! `categorical_column_with_vocabulary_list` and `categorical_column_with_vocabulary_file`.

use std::collections::HashSet;

use weir_graph::{DType, Error, Graph, Result, Tensor};
use weir_ops::lookup::{IndexTable, IndexTableFromFile, IndexTableFromTensor};
use weir_ops::math::cast;
use weir_ops::sparse::SparseOutput;

use super::categorical::assert_string_or_int;
use super::transform::{to_sparse_input, Cache};
use super::{dtype_repr, tf_dtype, Column, FeatureColumn};

/// A vocabulary: strings or integers, as TensorFlow's `vocabulary_list`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Vocabulary {
    /// String keys.
    Strings(Vec<String>),
    /// Integer keys.
    Ints(Vec<i64>),
}

impl Vocabulary {
    fn len(&self) -> usize {
        match self {
            Vocabulary::Strings(v) => v.len(),
            Vocabulary::Ints(v) => v.len(),
        }
    }

    /// The dtype numpy gives the list: string or int64.
    fn dtype(&self) -> DType {
        match self {
            Vocabulary::Strings(_) => DType::String,
            Vocabulary::Ints(_) => DType::I64,
        }
    }

    /// Python's repr of the list (`['a', 'b']`) or, with `tuple`, of the tuple.
    fn repr(&self, tuple: bool) -> String {
        let parts: Vec<String> = match self {
            Vocabulary::Strings(v) => v.iter().map(|s| format!("'{s}'")).collect(),
            Vocabulary::Ints(v) => v.iter().map(|x| x.to_string()).collect(),
        };
        match (tuple, parts.len()) {
            (true, 1) => format!("({},)", parts[0]),
            (true, _) => format!("({})", parts.join(", ")),
            (false, _) => format!("[{}]", parts.join(", ")),
        }
    }

    fn has_duplicates(&self) -> bool {
        match self {
            Vocabulary::Strings(v) => v.iter().collect::<HashSet<_>>().len() != v.len(),
            Vocabulary::Ints(v) => v.iter().collect::<HashSet<_>>().len() != v.len(),
        }
    }

    fn to_tensor(&self) -> Tensor {
        match self {
            Vocabulary::Strings(v) => {
                Tensor::from(v.iter().map(String::as_str).collect::<Vec<_>>())
            }
            Vocabulary::Ints(v) => Tensor::from(v.clone()),
        }
    }
}

impl From<Vec<String>> for Vocabulary {
    fn from(v: Vec<String>) -> Vocabulary {
        Vocabulary::Strings(v)
    }
}

impl From<Vec<&str>> for Vocabulary {
    fn from(v: Vec<&str>) -> Vocabulary {
        Vocabulary::Strings(v.into_iter().map(String::from).collect())
    }
}

impl<const N: usize> From<[&str; N]> for Vocabulary {
    fn from(v: [&str; N]) -> Vocabulary {
        Vocabulary::Strings(v.iter().map(|s| s.to_string()).collect())
    }
}

impl From<Vec<i64>> for Vocabulary {
    fn from(v: Vec<i64>) -> Vocabulary {
        Vocabulary::Ints(v)
    }
}

impl<const N: usize> From<[i64; N]> for Vocabulary {
    fn from(v: [i64; N]) -> Vocabulary {
        Vocabulary::Ints(v.to_vec())
    }
}

/// The options of `tf.feature_column.categorical_column_with_vocabulary_list(key,
/// vocabulary_list, dtype=None, default_value=-1, num_oov_buckets=0)`: each value mapped to its
/// position in the vocabulary; others to `default_value`, or to one of `num_oov_buckets` hash
/// buckets after the vocabulary.
///
/// ```
/// use weir_train::feature_column::VocabularyListCategoricalColumn;
/// let c = VocabularyListCategoricalColumn::new("color", ["R", "G", "B"]).num_oov_buckets(2).build()?;
/// assert_eq!(c.num_buckets(), Some(5));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct VocabularyListCategoricalColumn {
    pub(crate) key: String,
    vocabulary: Vocabulary,
    pub(crate) dtype: DType,
    dtype_set: bool,
    default_value: i64,
    pub(crate) num_oov_buckets: i64,
}

impl VocabularyListCategoricalColumn {
    /// The column of feature `key` over `vocabulary_list`, of the vocabulary's dtype (string
    /// or int64), default -1, no buckets.
    pub fn new(key: &str, vocabulary_list: impl Into<Vocabulary>) -> Self {
        let vocabulary = vocabulary_list.into();
        VocabularyListCategoricalColumn {
            key: key.to_string(),
            dtype: vocabulary.dtype(),
            vocabulary,
            dtype_set: false,
            default_value: -1,
            num_oov_buckets: 0,
        }
    }

    /// The dtype of the feature (`dtype=`): string, or an integer type for integer vocabularies.
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = dtype;
        self.dtype_set = true;
        self
    }

    /// The id of values missing from the vocabulary (`default_value=`, -1).
    pub fn default_value(mut self, id: i64) -> Self {
        self.default_value = id;
        self
    }

    /// The number of hash buckets for values missing from the vocabulary (`num_oov_buckets=`).
    pub fn num_oov_buckets(mut self, n: i64) -> Self {
        self.num_oov_buckets = n;
        self
    }

    pub(crate) fn vocabulary_len(&self) -> usize {
        self.vocabulary.len()
    }

    /// Validates the options as TensorFlow does and makes the column.
    pub fn build(self) -> Result<FeatureColumn> {
        let key = &self.key;
        if self.vocabulary.len() < 1 {
            return Err(Error::invalid_argument(format!(
                "vocabulary_list {} must be non-empty, column_name: {key}",
                self.vocabulary.repr(false)
            )));
        }
        if self.vocabulary.has_duplicates() {
            return Err(Error::invalid_argument(format!(
                "Duplicate keys in vocabulary_list {}, column_name: {key}",
                self.vocabulary.repr(false)
            )));
        }
        check_oov(self.num_oov_buckets, self.default_value != -1, key)?;
        let vocab_dtype = self.vocabulary.dtype();
        if self.dtype_set && self.dtype.is_integer() != vocab_dtype.is_integer() {
            return Err(Error::invalid_argument(format!(
                "dtype {} and vocabulary dtype {} do not match, column_name: {key}",
                dtype_repr(self.dtype),
                dtype_repr(vocab_dtype)
            )));
        }
        assert_string_or_int(self.dtype, &format!("column_name: {key}"))?;
        Ok(FeatureColumn::new(Column::VocabularyList(self)))
    }

    pub(crate) fn repr(&self) -> String {
        format!(
            "VocabularyListCategoricalColumn(key='{}', vocabulary_list={}, dtype={}, default_value={}, num_oov_buckets={})",
            self.key,
            self.vocabulary.repr(true),
            tf_dtype(self.dtype),
            self.default_value,
            self.num_oov_buckets
        )
    }

    /// `_transform_feature`: the ids of the values, by a table `<key>_lookup`.
    pub(crate) fn transform(&self, cache: &mut Cache<'_>) -> Result<SparseOutput> {
        let input = to_sparse_input(&cache.raw(&self.key)?, None)?;
        let (input, key_dtype) = check_input(&self.key, self.dtype, input)?;
        let g = input.graph().clone();
        let table = {
            let _lifted = g.init_scope();
            IndexTableFromTensor::new(self.vocabulary.to_tensor())
                .default_value(self.default_value)
                .num_oov_buckets(self.num_oov_buckets)
                .dtype(key_dtype)
                .name(&format!("{}_lookup", self.key))
                .build(&g)?
        };
        lookup(&table, &input)
    }
}

/// `tf.feature_column.categorical_column_with_vocabulary_list(key, vocabulary_list)`; more
/// options: [`VocabularyListCategoricalColumn`].
pub fn categorical_column_with_vocabulary_list(
    key: &str,
    vocabulary_list: impl Into<Vocabulary>,
) -> Result<FeatureColumn> {
    VocabularyListCategoricalColumn::new(key, vocabulary_list).build()
}

/// The options of `tf.compat.v1.feature_column.categorical_column_with_vocabulary_file(key,
/// vocabulary_file, vocabulary_size=None, num_oov_buckets=0, default_value=None,
/// dtype=tf.string)`: each value mapped to its line number in the file (its first
/// `vocabulary_size` lines; all of them, counted when the column is made, by default); others
/// to `default_value` (-1) or to one of `num_oov_buckets` hash buckets.
#[derive(Clone, Debug)]
pub struct VocabularyFileCategoricalColumn {
    pub(crate) key: String,
    vocabulary_file: String,
    pub(crate) vocabulary_size: Option<i64>,
    pub(crate) num_oov_buckets: i64,
    default_value: Option<i64>,
    pub(crate) dtype: DType,
}

impl VocabularyFileCategoricalColumn {
    /// The column of string feature `key` over the lines of `vocabulary_file`.
    pub fn new(key: &str, vocabulary_file: &str) -> Self {
        VocabularyFileCategoricalColumn {
            key: key.to_string(),
            vocabulary_file: vocabulary_file.to_string(),
            vocabulary_size: None,
            num_oov_buckets: 0,
            default_value: None,
            dtype: DType::String,
        }
    }

    /// The number of lines used (`vocabulary_size=`).
    pub fn vocabulary_size(mut self, n: i64) -> Self {
        self.vocabulary_size = Some(n);
        self
    }

    /// The number of hash buckets for values missing from the vocabulary (`num_oov_buckets=`).
    pub fn num_oov_buckets(mut self, n: i64) -> Self {
        self.num_oov_buckets = n;
        self
    }

    /// The id of values missing from the vocabulary (`default_value=`, -1 when unset).
    pub fn default_value(mut self, id: i64) -> Self {
        self.default_value = Some(id);
        self
    }

    /// The dtype of the feature (`dtype=`, string by default; or an integer type).
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = dtype;
        self
    }

    /// Validates the options as TensorFlow does (counting the file's lines when no size is
    /// given) and makes the column.
    pub fn build(mut self) -> Result<FeatureColumn> {
        let key = self.key.clone();
        if self.vocabulary_file.is_empty() {
            return Err(Error::invalid_argument(format!(
                "Missing vocabulary_file in {key}."
            )));
        }
        let size = match self.vocabulary_size {
            Some(n) => n,
            None => {
                let Ok(bytes) = std::fs::read(&self.vocabulary_file) else {
                    return Err(Error::invalid_argument(format!(
                        "vocabulary_file in {key} does not exist."
                    )));
                };
                // Python counts the lines of the file read in binary, a last line without
                // a newline included.
                let n = bytes.split(|&b| b == b'\n').count() as i64;
                if bytes.ends_with(b"\n") || bytes.is_empty() {
                    n - 1
                } else {
                    n
                }
            }
        };
        if size < 1 {
            return Err(Error::invalid_argument(format!(
                "Invalid vocabulary_size in {key}."
            )));
        }
        self.vocabulary_size = Some(size);
        check_oov(self.num_oov_buckets, self.default_value.is_some(), &key)?;
        assert_string_or_int(self.dtype, &format!("column_name: {key}"))?;
        Ok(FeatureColumn::new(Column::VocabularyFile(self)))
    }

    pub(crate) fn repr(&self) -> String {
        format!(
            "VocabularyFileCategoricalColumn(key='{}', vocabulary_file='{}', vocabulary_size={}, num_oov_buckets={}, dtype={}, default_value={}, file_format=None)",
            self.key,
            self.vocabulary_file,
            self.vocabulary_size.unwrap_or(0),
            self.num_oov_buckets,
            tf_dtype(self.dtype),
            self.default_value.unwrap_or(-1)
        )
    }

    /// `_transform_feature`: the ids of the values, by a table `<key>_lookup`.
    pub(crate) fn transform(&self, cache: &mut Cache<'_>) -> Result<SparseOutput> {
        let input = to_sparse_input(&cache.raw(&self.key)?, None)?;
        let (input, key_dtype) = check_input(&self.key, self.dtype, input)?;
        let g: Graph = input.graph().clone();
        let table = {
            let _lifted = g.init_scope();
            let mut t = IndexTableFromFile::new(self.vocabulary_file.as_str())
                .num_oov_buckets(self.num_oov_buckets)
                .default_value(self.default_value.unwrap_or(-1))
                .key_dtype(key_dtype)
                .name(&format!("{}_lookup", self.key));
            if let Some(n) = self.vocabulary_size {
                t = t.vocab_size(n);
            }
            t.build(&g)?
        };
        lookup(&table, &input)
    }
}

/// `tf.compat.v1.feature_column.categorical_column_with_vocabulary_file(key,
/// vocabulary_file)`; more options: [`VocabularyFileCategoricalColumn`].
pub fn categorical_column_with_vocabulary_file(
    key: &str,
    vocabulary_file: &str,
) -> Result<FeatureColumn> {
    VocabularyFileCategoricalColumn::new(key, vocabulary_file).build()
}

/// TensorFlow's checks of `num_oov_buckets` against a set `default_value`.
fn check_oov(num_oov_buckets: i64, default_set: bool, key: &str) -> Result<()> {
    if num_oov_buckets != 0 {
        if default_set {
            return Err(Error::invalid_argument(format!(
                "Can't specify both num_oov_buckets and default_value in {key}."
            )));
        }
        if num_oov_buckets < 0 {
            return Err(Error::invalid_argument(format!(
                "Invalid num_oov_buckets {num_oov_buckets} in {key}."
            )));
        }
    }
    Ok(())
}

/// The input's dtype checks; integer inputs are cast to int64 and looked up as int64 keys.
fn check_input(key: &str, dtype: DType, input: SparseOutput) -> Result<(SparseOutput, DType)> {
    if dtype.is_integer() != input.dtype().is_integer() {
        return Err(Error::invalid_argument(format!(
            "Column dtype and SparseTensors dtype must be compatible. key: {key}, column dtype: {}, tensor dtype: {}",
            dtype_repr(dtype),
            dtype_repr(input.dtype())
        )));
    }
    assert_string_or_int(input.dtype(), &format!("column_name: {key} input_tensor"))?;
    if input.dtype().is_integer() {
        let values = cast(&input.values, DType::I64)?;
        let input = SparseOutput::new(input.indices, values, input.dense_shape)?;
        return Ok((input, DType::I64));
    }
    Ok((input, dtype))
}

fn lookup(table: &IndexTable, input: &SparseOutput) -> Result<SparseOutput> {
    table.lookup_sparse(input)
}
