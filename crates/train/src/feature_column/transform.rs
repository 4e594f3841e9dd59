//! The transformation of features by columns: TensorFlow's `_LazyBuilder` (each raw feature
//! read and each column transformed once per call), `_to_sparse_input_and_drop_ignore_values`
//! and the `_transform_features` entry point.

use std::collections::{BTreeMap, HashMap};

use weir_graph::{scalar_of, DType, Error, Graph, Output, Result, Tensor};
use weir_ops::array::{constant, expand_dims, gather_nd, shape_typed, stack, where_indices};
use weir_ops::sparse::{sparse_reshape_tensor, SparseOutput};

use super::{tensor_repr, Column, FeatureColumn, FeatureMap, FeatureTensor};

/// What a column turns its features into (TensorFlow's `builder.get(column)`): a dense
/// tensor, sparse ids, or sparse ids with their weights.
#[derive(Clone, Debug)]
pub enum Transformed {
    /// Numeric columns (float32), bucketized columns (int32 bucket indices) and indicator
    /// columns (float32 multi-hot).
    Dense(Output),
    /// The int64 ids of a categorical column (also what an embedding column transforms to).
    Sparse(SparseOutput),
    /// A weighted categorical column: the ids and their float weights, at the same indices.
    Weighted {
        /// The ids.
        ids: SparseOutput,
        /// The weights.
        weights: SparseOutput,
    },
}

/// Where variables made while building go: `weight_collections` and `trainable`.
#[derive(Clone, Debug)]
pub(crate) struct VarCtx {
    pub(crate) collections: Vec<String>,
    pub(crate) trainable: bool,
}

/// TensorFlow's `_LazyBuilder`: the features, and what was read or transformed already.
pub(crate) struct Cache<'a> {
    features: &'a FeatureMap,
    raw: HashMap<String, FeatureTensor>,
    columns: HashMap<usize, Transformed>,
}

impl<'a> Cache<'a> {
    pub(crate) fn new(features: &'a FeatureMap) -> Cache<'a> {
        Cache {
            features,
            raw: HashMap::new(),
            columns: HashMap::new(),
        }
    }

    /// The feature `key`, rank-1 tensors expanded to `[batch, 1]` (`builder.get(key)`).
    pub(crate) fn raw(&mut self, key: &str) -> Result<FeatureTensor> {
        if let Some(t) = self.raw.get(key) {
            return Ok(t.clone());
        }
        let Some(t) = self.features.get(key) else {
            return Err(Error::invalid_argument(format!(
                "Feature {key} is not in features dictionary."
            )));
        };
        let t = match t {
            FeatureTensor::Dense(o) => match o.shape().rank() {
                Some(0) => {
                    return Err(Error::invalid_argument(format!(
                        "Feature (key: {key}) cannot have rank 0. Given: {}",
                        tensor_repr(o)
                    )))
                }
                Some(1) => FeatureTensor::Dense(expand_dims(o, -1)?),
                Some(_) => t.clone(),
                None => {
                    return Err(Error::invalid_argument(format!(
                        "Feature (key: {key}) must have a known rank. Given: {}",
                        tensor_repr(o)
                    )))
                }
            },
            FeatureTensor::Sparse(s) => match s.dense_shape.shape().dim(0) {
                Some(0) => {
                    return Err(Error::invalid_argument(format!(
                        "Feature (key: {key}) cannot have rank 0."
                    )))
                }
                Some(1) => {
                    let g = s.graph().clone();
                    let batch = weir_ops::array::strided_slice_items(
                        &s.dense_shape,
                        &[weir_ops::array::SliceItem::Index(0)],
                    )?;
                    let shape = stack(&[batch, constant(&g, 1i64)?], 0)?;
                    FeatureTensor::Sparse(sparse_reshape_tensor(s, shape)?)
                }
                Some(_) => t.clone(),
                None => {
                    return Err(Error::invalid_argument(format!(
                        "Feature (key: {key}) must have a known rank."
                    )))
                }
            },
        };
        self.raw.insert(key.to_string(), t.clone());
        Ok(t)
    }

    /// The column transformed (`builder.get(column)`), once per cache.
    pub(crate) fn get(&mut self, column: &FeatureColumn) -> Result<Transformed> {
        if let Some(t) = self.columns.get(&column.id()) {
            return Ok(t.clone());
        }
        let t = match column.kind() {
            Column::Numeric(c) => Transformed::Dense(c.transform(self)?),
            Column::Bucketized(c) => Transformed::Dense(c.transform(self)?),
            Column::Identity(c) => Transformed::Sparse(c.transform(self)?),
            Column::Hashed(c) => Transformed::Sparse(c.transform(self)?),
            Column::VocabularyList(c) => Transformed::Sparse(c.transform(self)?),
            Column::VocabularyFile(c) => Transformed::Sparse(c.transform(self)?),
            Column::Weighted(c) => {
                let (ids, weights) = c.transform(self)?;
                Transformed::Weighted { ids, weights }
            }
            Column::Indicator(c) => Transformed::Dense(c.transform(self)?),
            Column::Crossed(c) => Transformed::Sparse(c.transform(self)?),
            Column::Embedding(c) => self.get(&c.categorical_column)?,
            Column::SharedEmbedding(c) => self.get(c.categorical_column())?,
        };
        self.columns.insert(column.id(), t.clone());
        Ok(t)
    }

    /// A dense column's tensor (`column._get_dense_tensor(builder, weight_collections,
    /// trainable)`).
    pub(crate) fn dense_tensor(&mut self, column: &FeatureColumn, ctx: &VarCtx) -> Result<Output> {
        match (column.kind(), self.get(column)?) {
            (Column::Bucketized(c), Transformed::Dense(t)) => c.one_hot(&t),
            (Column::Embedding(c), _) => c.dense_tensor(self, ctx),
            (Column::SharedEmbedding(c), _) => c.dense_tensor(self, ctx, &column.name()),
            (Column::Numeric(_) | Column::Indicator(_), Transformed::Dense(t)) => Ok(t),
            _ => Err(Error::invalid_argument(format!(
                "Column {} is not a _DenseColumn.",
                column.name()
            ))),
        }
    }

    /// A categorical column's ids and weights (`column._get_sparse_tensors(builder)`).
    pub(crate) fn sparse_tensors(
        &mut self,
        column: &FeatureColumn,
    ) -> Result<(SparseOutput, Option<SparseOutput>)> {
        match (column.kind(), self.get(column)?) {
            (Column::Bucketized(c), Transformed::Dense(t)) => Ok((c.sparse_ids(&t)?, None)),
            (_, Transformed::Sparse(ids)) if column.is_categorical() => Ok((ids, None)),
            (_, Transformed::Weighted { ids, weights }) => Ok((ids, Some(weights))),
            _ => Err(Error::invalid_argument(format!(
                "Column {} is not a _CategoricalColumn.",
                column.name()
            ))),
        }
    }
}

/// TensorFlow's `_to_sparse_input_and_drop_ignore_values(input_tensor, ignore_value)`: a
/// sparse input as it is; a dense one as the sparse tensor of its entries other than
/// `ignore_value` (by default `""` for strings, -1 for integers, 0 for floats).
pub(crate) fn to_sparse_input(
    t: &FeatureTensor,
    ignore_value: Option<f64>,
) -> Result<SparseOutput> {
    let x = match t {
        FeatureTensor::Sparse(s) => return Ok(s.clone()),
        FeatureTensor::Dense(x) => x.clone(),
    };
    let g: Graph = x.graph().clone();
    let _scope = g.name_scope("to_sparse_input");
    let dtype = x.dtype();
    let ignore = if dtype == DType::String {
        weir_ops::array::constant_named(&g, Tensor::from(""), "ignore_value")?
    } else {
        let v = ignore_value.unwrap_or(if dtype.is_integer() { -1.0 } else { 0.0 });
        weir_ops::array::constant_named(&g, scalar_of(dtype, v)?, "ignore_value")?
    };
    let keep = weir_ops::math::not_equal(&x, ignore)?;
    let indices = where_indices(keep)?;
    let values = gather_nd(&x, &indices)?;
    let dense_shape = shape_typed(&x, DType::I64)?;
    SparseOutput::new(indices, values, dense_shape)
}

/// TensorFlow's `feature_column._transform_features(features, feature_columns)`: every column
/// (sorted by name) transformed, by column name, in the name scope `transform_features`.
///
/// ```
/// # use std::collections::BTreeMap;
/// # use weir_graph::Graph;
/// # use weir_ops::array::constant;
/// # use weir_session::Session;
/// use weir_train::feature_column::{self as fc, Transformed};
/// let g = Graph::new();
/// let ids = fc::categorical_column_with_identity("id", 4)?;
/// let features = BTreeMap::from([("id".to_string(), constant(&g, weir_graph::Tensor::from_vec(&[2, 2], vec![1i64, -1, 3, 2])?)?.into())]);
/// let out = fc::transform_features(&features, &[ids])?;
/// let Transformed::Sparse(sp) = &out["id"] else { unreachable!() };
/// assert_eq!(Session::new(&g)?.eval(&sp.values)?.to_vec::<i64>()?, [1, 3, 2]); // -1 dropped
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn transform_features(
    features: &FeatureMap,
    feature_columns: &[FeatureColumn],
) -> Result<BTreeMap<String, Transformed>> {
    let columns = normalize(feature_columns)?;
    let g = graph_of(features)?;
    let _scope = g.name_scope("transform_features");
    let mut cache = Cache::new(features);
    let mut out = BTreeMap::new();
    for c in sorted(&columns) {
        let _col = g.name_scope(&c.name());
        out.insert(c.name(), cache.get(&c)?);
    }
    Ok(out)
}

/// TensorFlow's `_normalize_feature_columns`: a non-empty list without two columns of one
/// name.
pub(crate) fn normalize(feature_columns: &[FeatureColumn]) -> Result<Vec<FeatureColumn>> {
    if feature_columns.is_empty() {
        return Err(Error::invalid_argument(
            "feature_columns must not be empty.",
        ));
    }
    let mut seen: HashMap<String, &FeatureColumn> = HashMap::new();
    for c in feature_columns {
        if let Some(prev) = seen.get(&c.name()) {
            return Err(Error::invalid_argument(format!(
                "Duplicate feature column name found for columns: {} and {}. This usually means that these columns refer to same base feature. Either one must be discarded or a duplicated but renamed item must be inserted in features dict.",
                c.repr(),
                prev.repr()
            )));
        }
        seen.insert(c.name(), c);
    }
    Ok(feature_columns.to_vec())
}

/// The columns sorted by name.
pub(crate) fn sorted(columns: &[FeatureColumn]) -> Vec<FeatureColumn> {
    let mut v = columns.to_vec();
    v.sort_by_key(|c| c.name());
    v
}

/// The graph of the features.
pub(crate) fn graph_of(features: &FeatureMap) -> Result<Graph> {
    features
        .values()
        .next()
        .map(|t| match t {
            FeatureTensor::Dense(o) => o.graph().clone(),
            FeatureTensor::Sparse(s) => s.graph().clone(),
        })
        .ok_or_else(|| Error::invalid_argument("features must not be empty."))
}
