//! `weighted_categorical_column`.

use weir_graph::{DType, Error, Result};
use weir_ops::math::cast;
use weir_ops::sparse::SparseOutput;

use super::transform::{to_sparse_input, Cache};
use super::{dtype_repr, Column, FeatureColumn};

/// The options of `tf.feature_column.weighted_categorical_column(categorical_column,
/// weight_feature_key, dtype=tf.float32)`: a categorical column whose ids carry the weights
/// of feature `weight_feature_key` (same indices); embedding and linear combiners weigh them,
/// indicator columns sum them.
///
/// ```
/// use weir_train::feature_column::{categorical_column_with_identity, WeightedCategoricalColumn};
/// let ids = categorical_column_with_identity("word", 100)?;
/// let c = WeightedCategoricalColumn::new(&ids, "count").build()?;
/// assert_eq!(c.name(), "word_weighted_by_count");
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct WeightedCategoricalColumn {
    pub(crate) categorical_column: FeatureColumn,
    pub(crate) weight_feature_key: String,
    pub(crate) dtype: DType,
}

impl WeightedCategoricalColumn {
    /// The ids of `categorical_column` weighted by the float32 feature `weight_feature_key`.
    pub fn new(categorical_column: &FeatureColumn, weight_feature_key: &str) -> Self {
        WeightedCategoricalColumn {
            categorical_column: categorical_column.clone(),
            weight_feature_key: weight_feature_key.to_string(),
            dtype: DType::F32,
        }
    }

    /// The dtype of the weight feature (`dtype=`, float32; integer or floating).
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = dtype;
        self
    }

    /// Validates the options as TensorFlow does and makes the column.
    pub fn build(self) -> Result<FeatureColumn> {
        if !(self.dtype.is_integer() || self.dtype.is_floating()) {
            return Err(Error::invalid_argument(format!(
                "dtype {} is not convertible to float.",
                dtype_repr(self.dtype)
            )));
        }
        if !self.categorical_column.is_categorical() {
            return Err(Error::invalid_argument(format!(
                "categorical_column must be a CategoricalColumn. Given: {}",
                self.categorical_column.repr()
            )));
        }
        Ok(FeatureColumn::new(Column::Weighted(self)))
    }

    /// `_transform_feature`: the column's ids and the sparse (dense: without zeros) weights.
    pub(crate) fn transform(&self, cache: &mut Cache<'_>) -> Result<(SparseOutput, SparseOutput)> {
        let raw = cache.raw(&self.weight_feature_key)?;
        if raw.dtype() != self.dtype {
            return Err(Error::invalid_argument(format!(
                "Bad dtype, expected {}, but got {}.",
                dtype_repr(self.dtype),
                dtype_repr(raw.dtype())
            )));
        }
        let mut weights = to_sparse_input(&raw, Some(0.0))?;
        if !weights.dtype().is_floating() {
            let values = cast(&weights.values, DType::F32)?;
            weights = SparseOutput::new(weights.indices, values, weights.dense_shape)?;
        }
        let (ids, _) = cache.sparse_tensors(&self.categorical_column)?;
        Ok((ids, weights))
    }
}

/// `tf.feature_column.weighted_categorical_column(categorical_column, weight_feature_key)`
/// with float32 weights; see [`WeightedCategoricalColumn`].
pub fn weighted_categorical_column(
    categorical_column: &FeatureColumn,
    weight_feature_key: &str,
) -> Result<FeatureColumn> {
    WeightedCategoricalColumn::new(categorical_column, weight_feature_key).build()
}
