//! TensorFlow 1's `tf.feature_column` (`tf.compat.v1.feature_column`): declarative
//! descriptions of model inputs, turned into dense tensors by [`input_layer`] and into a
//! linear prediction by [`linear_model`], with [`make_parse_example_spec`] giving the
//! `parse_example` spec that produces their features.
//!
//! A [`FeatureColumn`] is built once (validated as TensorFlow validates it, its `ValueError`s
//! being InvalidArgument with TensorFlow's message) and cheaply cloned. Dense columns are
//! [`numeric_column`], [`bucketized_column`], [`indicator_column`] and [`embedding_column`];
//! categorical ones are [`categorical_column_with_identity`],
//! [`categorical_column_with_vocabulary_list`], [`categorical_column_with_vocabulary_file`],
//! [`categorical_column_with_hash_bucket`], [`weighted_categorical_column`],
//! [`crossed_column`] and (as ids) [`bucketized_column`]; [`shared_embedding_columns`] makes
//! embedding columns sharing one table.
//!
//! Features are given as a [`FeatureMap`]: by key, a dense `Output` or a [`SparseOutput`]
//! (what `parse_example` returns for `VarLenFeature`s, see [`from_parsed_features`]).
//!
//! ```
//! use std::collections::BTreeMap;
//! use weir_graph::{Graph, Tensor};
//! use weir_ops::{array::constant, state::global_variables_initializer};
//! use weir_session::Session;
//! use weir_train::feature_column::{self as fc, FeatureTensor};
//!
//! let g = Graph::new();
//! let price = fc::numeric_column("price")?;
//! let bucket = fc::bucketized_column(&price, &[10.0, 100.0])?;
//! let mut features = BTreeMap::new();
//! features.insert("price".to_string(), FeatureTensor::from(constant(&g, [5.0f32, 50.0])?));
//! let x = fc::input_layer(&features, &[price, bucket])?;
//! let sess = Session::new(&g)?;
//! sess.run_target(&global_variables_initializer(&g)?)?;
//! // Columns in name order: "price", then "price_bucketized" (one-hot over 3 buckets).
//! assert_eq!(sess.eval(&x)?.to_vec::<f32>()?, [5., 1., 0., 0., 50., 0., 1., 0.]);
//! # Ok::<(), weir_graph::Error>(())
//! ```

mod categorical;
mod crossed;
mod embedding;
mod indicator;
mod input_layer;
mod numeric;
mod repr;
mod shared;
mod transform;
mod vocabulary;
mod weighted;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use weir_graph::{DType, Error, Output, Result, Tensor};
use weir_ops::parsing::{FixedLenFeature, ParsedFeature, ParsedFeatures, VarLenFeature};
use weir_ops::sparse::SparseOutput;

pub use categorical::{
    categorical_column_with_hash_bucket, categorical_column_with_identity, HashedCategoricalColumn,
    IdentityCategoricalColumn,
};
pub use crossed::{crossed_column, CrossKey, CrossedColumn};
pub use embedding::{embedding_column, EmbeddingColumn};
pub use indicator::indicator_column;
pub use input_layer::{
    input_layer, linear_model, make_parse_example_spec, merged_parse_example_spec, InputLayer,
    LinearModel,
};
pub use numeric::{bucketized_column, numeric_column, NormalizerFn, NumericColumn};
pub(crate) use repr::{
    dtype_repr, py_float, py_float_tuple, py_nested, py_tuple, tensor_repr, tf_dtype,
};
pub use shared::{shared_embedding_columns, SharedEmbeddingColumns};
pub use transform::{transform_features, Transformed};
pub use vocabulary::{
    categorical_column_with_vocabulary_file, categorical_column_with_vocabulary_list, Vocabulary,
    VocabularyFileCategoricalColumn, VocabularyListCategoricalColumn,
};
pub use weighted::{weighted_categorical_column, WeightedCategoricalColumn};

/// One input feature: a dense tensor or a sparse one, as TensorFlow's feature dicts hold
/// `Tensor`s and `SparseTensor`s.
#[derive(Clone, Debug)]
pub enum FeatureTensor {
    /// A dense tensor (rank >= 1; rank 1 is taken as one value per example).
    Dense(Output),
    /// A sparse tensor (rank >= 1).
    Sparse(SparseOutput),
}

impl From<Output> for FeatureTensor {
    fn from(o: Output) -> FeatureTensor {
        FeatureTensor::Dense(o)
    }
}

impl From<&Output> for FeatureTensor {
    fn from(o: &Output) -> FeatureTensor {
        FeatureTensor::Dense(o.clone())
    }
}

impl From<SparseOutput> for FeatureTensor {
    fn from(s: SparseOutput) -> FeatureTensor {
        FeatureTensor::Sparse(s)
    }
}

impl From<&SparseOutput> for FeatureTensor {
    fn from(s: &SparseOutput) -> FeatureTensor {
        FeatureTensor::Sparse(s.clone())
    }
}

impl FeatureTensor {
    /// The dtype of the (values of the) tensor.
    pub fn dtype(&self) -> DType {
        match self {
            FeatureTensor::Dense(o) => o.dtype(),
            FeatureTensor::Sparse(s) => s.dtype(),
        }
    }
}

/// The `features` dict the feature-column functions take: tensors by feature key.
pub type FeatureMap = BTreeMap<String, FeatureTensor>;

/// The features `parse_example` returned (dense for `FixedLenFeature`s, sparse for
/// `VarLenFeature`s) as a [`FeatureMap`].
pub fn from_parsed_features(parsed: &ParsedFeatures) -> FeatureMap {
    parsed
        .iter()
        .map(|(k, v)| {
            let t = match v {
                ParsedFeature::Dense(o) => FeatureTensor::Dense(o.clone()),
                ParsedFeature::Sparse(s) => FeatureTensor::Sparse(s.clone().into()),
            };
            (k.to_string(), t)
        })
        .collect()
}

/// One entry of a column's `parse_example_spec`: TensorFlow's `FixedLenFeature(shape, dtype,
/// default_value)` or `VarLenFeature(dtype)`.
#[derive(Clone, Debug, PartialEq)]
pub enum ParseSpec {
    /// `FixedLenFeature(shape, dtype, default_value)`; the default flattened row-major.
    FixedLen {
        /// The shape of one example's value.
        shape: Vec<usize>,
        /// The dtype.
        dtype: DType,
        /// The default when an example lacks the feature.
        default_value: Option<Vec<f64>>,
    },
    /// `VarLenFeature(dtype)`.
    VarLen {
        /// The dtype.
        dtype: DType,
    },
}

impl ParseSpec {
    /// The `parse_example` feature this spec stands for.
    pub fn to_feature(&self) -> Result<weir_ops::parsing::Feature> {
        Ok(match self {
            ParseSpec::FixedLen {
                shape,
                dtype,
                default_value,
            } => {
                let mut f = FixedLenFeature::new(shape, *dtype);
                if let Some(d) = default_value {
                    f = f.default(default_tensor(shape, *dtype, d)?);
                }
                f.into()
            }
            ParseSpec::VarLen { dtype } => VarLenFeature::new(*dtype).into(),
        })
    }
}

/// A default value as a tensor of `dtype` and `shape`.
fn default_tensor(shape: &[usize], dtype: DType, values: &[f64]) -> Result<Tensor> {
    let v = values.iter().copied();
    match dtype {
        DType::F32 => Tensor::from_vec(shape, v.map(|x| x as f32).collect::<Vec<_>>()),
        DType::F64 => Tensor::from_vec(shape, v.collect::<Vec<_>>()),
        DType::I32 => Tensor::from_vec(shape, v.map(|x| x as i32).collect::<Vec<_>>()),
        DType::I64 => Tensor::from_vec(shape, v.map(|x| x as i64).collect::<Vec<_>>()),
        d => Err(Error::invalid_argument(format!(
            "default_value must be compatible with dtype. dtype: {}",
            tf_dtype(d)
        ))),
    }
}

impl fmt::Display for ParseSpec {
    /// TensorFlow's repr, e.g. `FixedLenFeature(shape=(1,), dtype=tf.float32,
    /// default_value=None)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseSpec::FixedLen {
                shape,
                dtype,
                default_value,
            } => write!(
                f,
                "FixedLenFeature(shape={}, dtype={}, default_value={})",
                py_tuple(shape),
                tf_dtype(*dtype),
                match default_value {
                    Some(d) => py_nested(shape, d, *dtype),
                    None => "None".to_string(),
                }
            ),
            ParseSpec::VarLen { dtype } => write!(f, "VarLenFeature(dtype={})", tf_dtype(*dtype)),
        }
    }
}

/// A feature column: TensorFlow's `FeatureColumn` (a `_DenseColumn`, a `_CategoricalColumn`
/// or, for `bucketized_column`, both). Made by the column functions of this module; cheap to
/// clone.
#[derive(Clone)]
pub struct FeatureColumn(Arc<Column>);

/// The column kinds.
pub(crate) enum Column {
    Numeric(NumericColumn),
    Bucketized(numeric::Bucketized),
    Identity(IdentityCategoricalColumn),
    Hashed(HashedCategoricalColumn),
    VocabularyList(VocabularyListCategoricalColumn),
    VocabularyFile(VocabularyFileCategoricalColumn),
    Weighted(WeightedCategoricalColumn),
    Crossed(CrossedColumn),
    Indicator(indicator::Indicator),
    Embedding(EmbeddingColumn),
    SharedEmbedding(shared::SharedEmbedding),
}

impl FeatureColumn {
    pub(crate) fn new(c: Column) -> FeatureColumn {
        FeatureColumn(Arc::new(c))
    }

    pub(crate) fn kind(&self) -> &Column {
        &self.0
    }

    /// An identity for the transformation cache (TensorFlow keys it by the column itself).
    pub(crate) fn id(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    /// The column's name (`column.name`): the key, or e.g. `price_bucketized`,
    /// `word_embedding`, `word_indicator`, `word_weighted_by_freq`.
    pub fn name(&self) -> String {
        match self.kind() {
            Column::Numeric(c) => c.key.clone(),
            Column::Bucketized(c) => format!("{}_bucketized", c.source.name()),
            Column::Identity(c) => c.key.clone(),
            Column::Hashed(c) => c.key.clone(),
            Column::VocabularyList(c) => c.key.clone(),
            Column::VocabularyFile(c) => c.key.clone(),
            Column::Weighted(c) => format!(
                "{}_weighted_by_{}",
                c.categorical_column.name(),
                c.weight_feature_key
            ),
            Column::Crossed(c) => c.name(),
            Column::Indicator(c) => format!("{}_indicator", c.categorical_column.name()),
            Column::Embedding(c) => format!("{}_embedding", c.categorical_column.name()),
            Column::SharedEmbedding(c) => c.name(),
        }
    }

    /// The variable scope the column's variables go in (`column._var_scope_name`): the name,
    /// or a shared embedding's collection name.
    pub(crate) fn var_scope_name(&self) -> String {
        match self.kind() {
            Column::SharedEmbedding(c) => c.collection.clone(),
            _ => self.name(),
        }
    }

    /// Whether the column gives a dense tensor (TensorFlow's `_DenseColumn`): numeric,
    /// bucketized, indicator and (shared) embedding columns.
    pub fn is_dense(&self) -> bool {
        matches!(
            self.kind(),
            Column::Numeric(_)
                | Column::Bucketized(_)
                | Column::Indicator(_)
                | Column::Embedding(_)
                | Column::SharedEmbedding(_)
        )
    }

    /// Whether the column gives sparse ids (TensorFlow's `_CategoricalColumn`): the
    /// `categorical_column_*` columns, weighted, crossed and bucketized columns.
    pub fn is_categorical(&self) -> bool {
        matches!(
            self.kind(),
            Column::Bucketized(_)
                | Column::Identity(_)
                | Column::Hashed(_)
                | Column::VocabularyList(_)
                | Column::VocabularyFile(_)
                | Column::Weighted(_)
                | Column::Crossed(_)
        )
    }

    /// The number of ids of a categorical column (`column.num_buckets`); `None` for the
    /// others.
    pub fn num_buckets(&self) -> Option<i64> {
        match self.kind() {
            Column::Bucketized(c) => Some(
                (c.boundaries.len() as i64 + 1)
                    * c.source_shape().first().copied().unwrap_or(1) as i64,
            ),
            Column::Identity(c) => Some(c.num_buckets),
            Column::Hashed(c) => Some(c.hash_bucket_size),
            Column::VocabularyList(c) => Some(c.vocabulary_len() as i64 + c.num_oov_buckets),
            Column::VocabularyFile(c) => c.vocabulary_size.map(|s| s + c.num_oov_buckets),
            Column::Weighted(c) => c.categorical_column.num_buckets(),
            Column::Crossed(c) => Some(c.hash_bucket_size),
            _ => None,
        }
    }

    /// The shape of a dense column's value per example (`column.variable_shape`): `shape` for
    /// numeric columns, `shape + [len(boundaries) + 1]` for bucketized ones, `[1, num_buckets]`
    /// for indicators, `[dimension]` for (shared) embeddings; `None` for categorical columns.
    pub fn variable_shape(&self) -> Option<Vec<usize>> {
        match self.kind() {
            Column::Numeric(c) => Some(c.shape.clone()),
            Column::Bucketized(c) => {
                let mut s = c.source_shape();
                s.push(c.boundaries.len() + 1);
                Some(s)
            }
            Column::Indicator(c) => Some(vec![1, c.categorical_column.num_buckets()? as usize]),
            Column::Embedding(c) => Some(vec![c.dimension]),
            Column::SharedEmbedding(c) => Some(vec![c.embedding.dimension]),
            _ => None,
        }
    }

    /// The features this column parses (`column.parse_example_spec`), by key.
    pub fn parse_example_spec(&self) -> Result<BTreeMap<String, ParseSpec>> {
        let one = |key: &str, spec: ParseSpec| Ok(BTreeMap::from([(key.to_string(), spec)]));
        match self.kind() {
            Column::Numeric(c) => one(
                &c.key,
                ParseSpec::FixedLen {
                    shape: c.shape.clone(),
                    dtype: c.dtype,
                    default_value: c.default_value.clone(),
                },
            ),
            Column::Bucketized(c) => c.source.parse_example_spec(),
            Column::Identity(c) => one(&c.key, ParseSpec::VarLen { dtype: DType::I64 }),
            Column::Hashed(c) => one(&c.key, ParseSpec::VarLen { dtype: c.dtype }),
            Column::VocabularyList(c) => one(&c.key, ParseSpec::VarLen { dtype: c.dtype }),
            Column::VocabularyFile(c) => one(&c.key, ParseSpec::VarLen { dtype: c.dtype }),
            Column::Weighted(c) => {
                let mut config = c.categorical_column.parse_example_spec()?;
                if let Some(existing) = config.get(&c.weight_feature_key) {
                    return Err(Error::invalid_argument(format!(
                        "Parse config {existing} already exists for {}.",
                        c.weight_feature_key
                    )));
                }
                config.insert(
                    c.weight_feature_key.clone(),
                    ParseSpec::VarLen { dtype: c.dtype },
                );
                Ok(config)
            }
            Column::Crossed(c) => {
                let mut config = BTreeMap::new();
                for key in &c.keys {
                    match key {
                        CrossKey::Feature(k) => {
                            config.insert(
                                k.clone(),
                                ParseSpec::VarLen {
                                    dtype: DType::String,
                                },
                            );
                        }
                        CrossKey::Column(col) => config.extend(col.parse_example_spec()?),
                    }
                }
                Ok(config)
            }
            Column::Indicator(c) => c.categorical_column.parse_example_spec(),
            Column::Embedding(c) => c.categorical_column.parse_example_spec(),
            Column::SharedEmbedding(c) => c.categorical_column().parse_example_spec(),
        }
    }

    /// The column's repr as TensorFlow prints it in errors, e.g.
    /// `NumericColumn(key='x', shape=(1,), default_value=None, dtype=tf.float32,
    /// normalizer_fn=None)`.
    pub fn repr(&self) -> String {
        match self.kind() {
            Column::Numeric(c) => c.repr(),
            Column::Bucketized(c) => format!(
                "BucketizedColumn(source_column={}, boundaries={})",
                c.source.repr(),
                py_float_tuple(&c.boundaries)
            ),
            Column::Identity(c) => format!(
                "IdentityCategoricalColumn(key='{}', number_buckets={}, default_value={})",
                c.key,
                c.num_buckets,
                c.default_value.map_or("None".to_string(), |d| d.to_string())
            ),
            Column::Hashed(c) => format!(
                "HashedCategoricalColumn(key='{}', hash_bucket_size={}, dtype={})",
                c.key,
                c.hash_bucket_size,
                tf_dtype(c.dtype)
            ),
            Column::VocabularyList(c) => c.repr(),
            Column::VocabularyFile(c) => c.repr(),
            Column::Weighted(c) => format!(
                "WeightedCategoricalColumn(categorical_column={}, weight_feature_key='{}', dtype={})",
                c.categorical_column.repr(),
                c.weight_feature_key,
                tf_dtype(c.dtype)
            ),
            Column::Indicator(c) => format!(
                "IndicatorColumn(categorical_column={})",
                c.categorical_column.repr()
            ),
            Column::Crossed(c) => c.repr(),
            Column::Embedding(c) => c.repr(),
            Column::SharedEmbedding(c) => c.repr(),
        }
    }
}

impl fmt::Debug for FeatureColumn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.repr())
    }
}
