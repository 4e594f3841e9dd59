//! `indicator_column`.

use weir_graph::{DType, Error, Output, Result};
use weir_ops::array::{
    concat, constant, expand_dims, one_hot, scatter_nd, strided_slice_items, SliceItem,
};
use weir_ops::math::{cast, Axes, Reduce};
use weir_ops::sparse::{sparse_reorder, sparse_slice, sparse_tensor_to_dense, SparseOutput};

use super::transform::Cache;
use super::{Column, FeatureColumn};

/// An indicator column: TensorFlow's `IndicatorColumn(categorical_column)`.
pub(crate) struct Indicator {
    pub(crate) categorical_column: FeatureColumn,
}

impl Indicator {
    /// `_transform_feature`: float32 `[batch, num_buckets]` counts of each id per example (or
    /// sums of the weights of a weighted column); ids out of range count nowhere.
    pub(crate) fn transform(&self, cache: &mut Cache<'_>) -> Result<Output> {
        let size = self.categorical_column.num_buckets().ok_or_else(|| {
            Error::invalid_argument("indicator_column needs a categorical column")
        })?;
        let (ids, weights) = cache.sparse_tensors(&self.categorical_column)?;
        let g = ids.graph().clone();
        if let Some(w) = weights {
            let merged = sparse_merge(&ids, &w, size)?;
            let zero = constant(&g, vec![0i64, 0])?;
            let sliced = sparse_slice(&merged, zero, &merged.dense_shape)?;
            return scatter_nd(&sliced.indices, &sliced.values, &sliced.dense_shape);
        }
        let minus_one = constant(&g, weir_graph::scalar_of(ids.dtype(), -1.0)?)?;
        let dense = sparse_tensor_to_dense(&ids, Some(minus_one))?;
        let hot = one_hot(dense, size)?;
        Reduce::sum().axis(Axes::List(vec![-2])).build(hot)
    }
}

/// TensorFlow's `sparse_ops.sparse_merge(sp_ids, sp_values, vocab_size)`: the values at
/// `[row..., id]` of a `[rows..., vocab_size]` sparse tensor, reordered.
fn sparse_merge(
    ids: &SparseOutput,
    values: &SparseOutput,
    vocab_size: i64,
) -> Result<SparseOutput> {
    let g = ids.graph().clone();
    let id_column = expand_dims(cast(&ids.values, DType::I64)?, 1)?;
    let all = SliceItem::from(..);
    let leading = strided_slice_items(&ids.indices, &[all, SliceItem::from(..-1)])?;
    let indices = concat(&[leading, id_column], 1)?;
    let outer = strided_slice_items(&ids.dense_shape, &[SliceItem::from(..-1)])?;
    let shape = concat(&[outer, constant(&g, vec![vocab_size])?], 0)?;
    let merged = SparseOutput::new(indices, values.values.clone(), shape.clone())?;
    let sorted = sparse_reorder(&merged)?;
    SparseOutput::new(sorted.indices, sorted.values, shape)
}

/// `tf.feature_column.indicator_column(categorical_column)`: the multi-hot `[num_buckets]`
/// vector of a categorical column's ids per example (each id counted as often as it occurs;
/// a weighted column's weights summed instead).
///
/// ```
/// # use std::collections::BTreeMap;
/// # use weir_graph::Graph;
/// # use weir_ops::array::constant;
/// # use weir_session::Session;
/// use weir_train::feature_column::{self as fc};
/// let g = Graph::new();
/// let color = fc::indicator_column(&fc::categorical_column_with_vocabulary_list("color", ["R", "G", "B"])?)?;
/// let features = BTreeMap::from([("color".to_string(), weir_ops::array::reshape(constant(&g, ["G", "G", "B", ""])?, [2i64, 2])?.into())]);
/// let x = fc::input_layer(&features, &[color])?;
/// let sess = Session::new(&g)?;
/// sess.run_target(&weir_ops::lookup::tables_initializer(&g)?)?;
/// assert_eq!(sess.eval(&x)?.to_vec::<f32>()?, [0., 2., 0., 0., 0., 1.]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn indicator_column(categorical_column: &FeatureColumn) -> Result<FeatureColumn> {
    if !categorical_column.is_categorical() {
        return Err(Error::invalid_argument(format!(
            "Unsupported input type. Input must be a CategoricalColumn. Given: {}",
            categorical_column.repr()
        )));
    }
    Ok(FeatureColumn::new(Column::Indicator(Indicator {
        categorical_column: categorical_column.clone(),
    })))
}
