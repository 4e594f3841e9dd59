//! `categorical_column_with_identity` and `categorical_column_with_hash_bucket`.

use weir_graph::{DType, Error, Result};
use weir_ops::array::{constant, fill, shape};
use weir_ops::math::{cast, greater_equal, less, logical_or, select_v2};
use weir_ops::sparse::SparseOutput;
use weir_ops::string::{as_string, string_to_hash_bucket_fast};

use super::transform::{to_sparse_input, Cache};
use super::{dtype_repr, Column, FeatureColumn};

/// The options of `tf.feature_column.categorical_column_with_identity(key, num_buckets,
/// default_value=None)`: integer features used as ids in `[0, num_buckets)`; ids out of range
/// become `default_value` when set (else they reach the lookups unchanged, where an embedding
/// lookup fails on them).
///
/// ```
/// use weir_train::feature_column::IdentityCategoricalColumn;
/// let c = IdentityCategoricalColumn::new("video_id", 1000).default_value(0).build()?;
/// assert_eq!(c.num_buckets(), Some(1000));
/// assert!(IdentityCategoricalColumn::new("video_id", 10).default_value(10).build().is_err());
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct IdentityCategoricalColumn {
    pub(crate) key: String,
    pub(crate) num_buckets: i64,
    pub(crate) default_value: Option<i64>,
}

impl IdentityCategoricalColumn {
    /// The column of feature `key` with ids in `[0, num_buckets)` and no default.
    pub fn new(key: &str, num_buckets: i64) -> IdentityCategoricalColumn {
        IdentityCategoricalColumn {
            key: key.to_string(),
            num_buckets,
            default_value: None,
        }
    }

    /// The id that replaces ids out of range (`default_value=`).
    pub fn default_value(mut self, id: i64) -> Self {
        self.default_value = Some(id);
        self
    }

    /// Validates the options as TensorFlow does and makes the column.
    pub fn build(self) -> Result<FeatureColumn> {
        if self.num_buckets < 1 {
            return Err(Error::invalid_argument(format!(
                "num_buckets {} < 1, column_name {}",
                self.num_buckets, self.key
            )));
        }
        if let Some(d) = self.default_value {
            if d < 0 || d >= self.num_buckets {
                return Err(Error::invalid_argument(format!(
                    "default_value {d} not in range [0, {}), column_name {}",
                    self.num_buckets, self.key
                )));
            }
        }
        Ok(FeatureColumn::new(Column::Identity(self)))
    }

    /// `_transform_feature`: the sparse int64 ids (dense input without its -1 entries).
    pub(crate) fn transform(&self, cache: &mut Cache<'_>) -> Result<SparseOutput> {
        let input = to_sparse_input(&cache.raw(&self.key)?, None)?;
        if !input.dtype().is_integer() {
            return Err(Error::invalid_argument(format!(
                "Invalid input, not integer. key: {} dtype: {}",
                self.key,
                dtype_repr(input.dtype())
            )));
        }
        let g = input.graph().clone();
        let mut values = input.values.clone();
        if values.dtype() != DType::I64 {
            values = cast(&values, DType::I64)?;
        }
        if let Some(d) = self.default_value {
            let num_buckets = constant(&g, self.num_buckets)?;
            let zero = constant(&g, 0i64)?;
            let out_of_range =
                logical_or(less(&values, zero)?, greater_equal(&values, num_buckets)?)?;
            let defaults = fill(shape(&values)?, &constant(&g, d)?)?;
            values = select_v2(out_of_range, defaults, &values)?;
        }
        SparseOutput::new(input.indices, values, input.dense_shape)
    }
}

/// `tf.feature_column.categorical_column_with_identity(key, num_buckets)`; for
/// `default_value`, see [`IdentityCategoricalColumn`].
pub fn categorical_column_with_identity(key: &str, num_buckets: i64) -> Result<FeatureColumn> {
    IdentityCategoricalColumn::new(key, num_buckets).build()
}

/// The options of `tf.feature_column.categorical_column_with_hash_bucket(key,
/// hash_bucket_size, dtype=tf.string)`: string (or integer, hashed as their decimal text)
/// features mapped to `Fingerprint64(value) % hash_bucket_size`, TensorFlow's
/// `StringToHashBucketFast`.
///
/// ```
/// # use weir_graph::DType;
/// use weir_train::feature_column::HashedCategoricalColumn;
/// let c = HashedCategoricalColumn::new("zip", 100).dtype(DType::I64).build()?;
/// assert_eq!(c.num_buckets(), Some(100));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct HashedCategoricalColumn {
    pub(crate) key: String,
    pub(crate) hash_bucket_size: i64,
    pub(crate) dtype: DType,
}

impl HashedCategoricalColumn {
    /// The column of string feature `key` hashed into `hash_bucket_size` buckets.
    pub fn new(key: &str, hash_bucket_size: i64) -> HashedCategoricalColumn {
        HashedCategoricalColumn {
            key: key.to_string(),
            hash_bucket_size,
            dtype: DType::String,
        }
    }

    /// The dtype of the feature (`dtype=`, string by default; or an integer type).
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = dtype;
        self
    }

    /// Validates the options as TensorFlow does and makes the column.
    pub fn build(self) -> Result<FeatureColumn> {
        if self.hash_bucket_size < 1 {
            return Err(Error::invalid_argument(format!(
                "hash_bucket_size must be at least 1. hash_bucket_size: {}, key: {}",
                self.hash_bucket_size, self.key
            )));
        }
        assert_string_or_int(self.dtype, &format!("column_name: {}", self.key))?;
        Ok(FeatureColumn::new(Column::Hashed(self)))
    }

    /// `_transform_feature`: the bucket of each value, at the same indices.
    pub(crate) fn transform(&self, cache: &mut Cache<'_>) -> Result<SparseOutput> {
        let input = to_sparse_input(&cache.raw(&self.key)?, None)?;
        assert_string_or_int(
            input.dtype(),
            &format!("column_name: {} input_tensor", self.key),
        )?;
        if self.dtype.is_integer() != input.dtype().is_integer() {
            return Err(Error::invalid_argument(format!(
                "Column dtype and SparseTensors dtype must be compatible. key: {}, column dtype: {}, tensor dtype: {}",
                self.key,
                dtype_repr(self.dtype),
                dtype_repr(input.dtype())
            )));
        }
        let strings = if self.dtype == DType::String {
            input.values.clone()
        } else {
            as_string(&input.values)?
        };
        let ids = string_to_hash_bucket_fast(strings, self.hash_bucket_size)?;
        SparseOutput::new(input.indices, ids, input.dense_shape)
    }
}

/// `tf.feature_column.categorical_column_with_hash_bucket(key, hash_bucket_size)` for string
/// features; for integer ones, see [`HashedCategoricalColumn`].
pub fn categorical_column_with_hash_bucket(
    key: &str,
    hash_bucket_size: i64,
) -> Result<FeatureColumn> {
    HashedCategoricalColumn::new(key, hash_bucket_size).build()
}

/// TensorFlow's `fc_utils.assert_string_or_int(dtype, prefix)`.
pub(crate) fn assert_string_or_int(dtype: DType, prefix: &str) -> Result<()> {
    if dtype != DType::String && !dtype.is_integer() {
        return Err(Error::invalid_argument(format!(
            "{prefix} dtype must be string or integer. dtype: {}.",
            dtype_repr(dtype)
        )));
    }
    Ok(())
}
