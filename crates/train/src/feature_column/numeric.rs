//! `numeric_column` and `bucketized_column`.

use std::fmt;
use std::sync::Arc;

use weir_graph::{DType, Error, Output, Result};
use weir_ops::array::{
    bucketize, constant, expand_dims, one_hot, reshape, shape, stack, strided_slice_items, tile,
    transpose, SliceItem,
};
use weir_ops::math::{add, cast, mul, range_from};
use weir_ops::sparse::SparseOutput;

use super::transform::Cache;
use super::{py_nested, py_tuple, tf_dtype, Column, FeatureColumn, FeatureTensor};

/// A `normalizer_fn`: applied to a numeric feature before it is cast to float32.
pub type NormalizerFn = Arc<dyn Fn(&Output) -> Result<Output> + Send + Sync>;

/// The options of `tf.feature_column.numeric_column(key, shape=(1,), default_value=None,
/// dtype=tf.float32, normalizer_fn=None)`; [`build`](NumericColumn::build) makes the column.
///
/// ```
/// # use weir_graph::DType;
/// use weir_train::feature_column::NumericColumn;
/// let c = NumericColumn::new("xy").shape(&[2]).default_value(0.0).dtype(DType::I64).build()?;
/// assert_eq!((c.name(), c.variable_shape()), ("xy".to_string(), Some(vec![2])));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone)]
pub struct NumericColumn {
    pub(crate) key: String,
    pub(crate) shape: Vec<usize>,
    pub(crate) default_value: Option<Vec<f64>>,
    default_scalar: Option<f64>,
    pub(crate) dtype: DType,
    pub(crate) normalizer_fn: Option<NormalizerFn>,
}

impl fmt::Debug for NumericColumn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.repr())
    }
}

impl NumericColumn {
    /// The column of feature `key` with TensorFlow's defaults: shape `(1,)`, float32, no
    /// default, no normalizer.
    pub fn new(key: &str) -> NumericColumn {
        NumericColumn {
            key: key.to_string(),
            shape: vec![1],
            default_value: None,
            default_scalar: None,
            dtype: DType::F32,
            normalizer_fn: None,
        }
    }

    /// The shape of one example's value (`shape=`); every dimension must be >= 1.
    pub fn shape(mut self, shape: &[usize]) -> Self {
        self.shape = shape.to_vec();
        self
    }

    /// A scalar `default_value=` filling the shape.
    pub fn default_value(mut self, value: f64) -> Self {
        self.default_scalar = Some(value);
        self.default_value = None;
        self
    }

    /// A full `default_value=`, row-major; it must have as many values as the shape.
    pub fn default_values(mut self, values: Vec<f64>) -> Self {
        self.default_value = Some(values);
        self.default_scalar = None;
        self
    }

    /// The dtype of the feature (`dtype=`, float32 by default); integer or floating.
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = dtype;
        self
    }

    /// `normalizer_fn=`: applied to the feature before the cast to float32.
    pub fn normalizer_fn(
        mut self,
        f: impl Fn(&Output) -> Result<Output> + Send + Sync + 'static,
    ) -> Self {
        self.normalizer_fn = Some(Arc::new(f));
        self
    }

    /// Validates the options as TensorFlow does and makes the column.
    pub fn build(mut self) -> Result<FeatureColumn> {
        if self.shape.iter().any(|&d| d < 1) {
            return Err(Error::invalid_argument(format!(
                "shape dimensions must be greater than 0. shape: {}, key: {}",
                py_tuple(&self.shape),
                self.key
            )));
        }
        if !(self.dtype.is_integer() || self.dtype.is_floating()) {
            return Err(Error::invalid_argument(format!(
                "dtype must be convertible to float. dtype: {}, key: {}",
                super::dtype_repr(self.dtype),
                self.key
            )));
        }
        let n: usize = self.shape.iter().product();
        if let Some(v) = self.default_scalar {
            if !self.dtype.is_floating() && v != v.trunc() {
                return Err(Error::invalid_argument(format!(
                    "default_value must be compatible with dtype. default_value: {}, dtype: {}, key: {}",
                    super::py_float(v),
                    super::dtype_repr(self.dtype),
                    self.key
                )));
            }
            self.default_value = Some(vec![v; n]);
        } else if let Some(v) = &self.default_value {
            if v.len() != n {
                return Err(Error::invalid_argument(format!(
                    "The shape of default_value must be equal to given shape. default_value: {}, shape: {}, key: {}",
                    py_list(v),
                    py_tuple(&self.shape),
                    self.key
                )));
            }
        }
        Ok(FeatureColumn::new(Column::Numeric(self)))
    }

    /// TensorFlow's repr.
    pub(crate) fn repr(&self) -> String {
        format!(
            "NumericColumn(key='{}', shape={}, default_value={}, dtype={}, normalizer_fn={})",
            self.key,
            py_tuple(&self.shape),
            match &self.default_value {
                Some(d) => py_nested(&self.shape, d, self.dtype),
                None => "None".to_string(),
            },
            tf_dtype(self.dtype),
            if self.normalizer_fn.is_some() {
                "<function>"
            } else {
                "None"
            }
        )
    }

    /// `_transform_feature`: the dense feature, normalized, as float32.
    pub(crate) fn transform(&self, cache: &mut Cache<'_>) -> Result<Output> {
        let x = match cache.raw(&self.key)? {
            FeatureTensor::Dense(x) => x,
            FeatureTensor::Sparse(_) => {
                return Err(Error::invalid_argument(format!(
                    "The corresponding Tensor of numerical column must be a Tensor. SparseTensor is not supported. key: {}",
                    self.key
                )))
            }
        };
        let x = match &self.normalizer_fn {
            Some(f) => f(&x)?,
            None => x,
        };
        cast(&x, DType::F32)
    }
}

/// A Python list of floats: `[1.0, 2.0]`.
fn py_list(v: &[f64]) -> String {
    let parts: Vec<String> = v.iter().map(|&x| super::py_float(x)).collect();
    format!("[{}]", parts.join(", "))
}

/// `tf.feature_column.numeric_column(key)`: a float32 feature of shape `(1,)`. More options:
/// [`NumericColumn`].
pub fn numeric_column(key: &str) -> Result<FeatureColumn> {
    NumericColumn::new(key).build()
}

/// A bucketized column: TensorFlow's `BucketizedColumn(source_column, boundaries)`.
pub(crate) struct Bucketized {
    pub(crate) source: FeatureColumn,
    pub(crate) boundaries: Vec<f64>,
}

impl Bucketized {
    /// The source column's shape.
    pub(crate) fn source_shape(&self) -> Vec<usize> {
        match self.source.kind() {
            Column::Numeric(n) => n.shape.clone(),
            _ => vec![1],
        }
    }

    /// `_transform_feature`: the int32 bucket of each value of the source column.
    pub(crate) fn transform(&self, cache: &mut Cache<'_>) -> Result<Output> {
        let source = match cache.get(&self.source)? {
            super::Transformed::Dense(t) => t,
            _ => {
                return Err(Error::internal(
                    "a numeric column transformed to a sparse tensor",
                ))
            }
        };
        let b: Vec<f32> = self.boundaries.iter().map(|&x| x as f32).collect();
        bucketize(source, &b)
    }

    /// `_get_dense_tensor`: one-hot over the buckets, float32 `[..., len(boundaries) + 1]`.
    pub(crate) fn one_hot(&self, buckets: &Output) -> Result<Output> {
        one_hot(cast(buckets, DType::I64)?, self.boundaries.len() as i64 + 1)
    }

    /// `_get_sparse_tensors`: id `bucket + (len(boundaries) + 1) * i` at `[example, i]` for the
    /// `i`-th value of each example.
    pub(crate) fn sparse_ids(&self, buckets: &Output) -> Result<SparseOutput> {
        let g = buckets.graph().clone();
        let batch = strided_slice_items(shape(buckets)?, &[SliceItem::Index(0)])?;
        let dim = self.source_shape().first().copied().unwrap_or(1) as i32;
        let zero = constant(&g, 0i32)?;
        let one = constant(&g, 1i32)?;
        let dim_t = constant(&g, dim)?;
        let rows = expand_dims(range_from(&zero, &batch, &one)?, 1)?;
        let multiples = stack(&[one.clone(), dim_t.clone()], 0)?;
        let i1 = reshape(tile(rows, multiples)?, [-1i64])?;
        let i2 = tile(range_from(&zero, &dim_t, &one)?, reshape(&batch, [1i64])?)?;
        let width = constant(&g, self.boundaries.len() as i32 + 1)?;
        let ids = add(reshape(buckets, [-1i64])?, mul(width, &i2)?)?;
        let indices = cast(transpose(stack(&[i1, i2], 0)?, [1i32, 0])?, DType::I64)?;
        let dense_shape = cast(stack(&[batch, dim_t], 0)?, DType::I64)?;
        SparseOutput::new(indices, ids, dense_shape)
    }
}

/// `tf.feature_column.bucketized_column(source_column, boundaries)`: the bucket of each value
/// of a one-dimensional numeric column, buckets split at the sorted `boundaries` (bucket `i`
/// holds `boundaries[i-1] <= x < boundaries[i]`). Dense, it is one-hot per value; as a
/// categorical column, `(len(boundaries) + 1) * shape[0]` ids.
///
/// ```
/// use weir_train::feature_column::{bucketized_column, numeric_column};
/// let age = bucketized_column(&numeric_column("age")?, &[18.0, 65.0])?;
/// assert_eq!((age.name(), age.num_buckets()), ("age_bucketized".to_string(), Some(3)));
/// assert!(bucketized_column(&numeric_column("age")?, &[65.0, 18.0]).is_err());
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn bucketized_column(
    source_column: &FeatureColumn,
    boundaries: &[f64],
) -> Result<FeatureColumn> {
    let Column::Numeric(n) = source_column.kind() else {
        return Err(Error::invalid_argument(format!(
            "source_column must be a column generated with numeric_column(). Given: {}",
            source_column.repr()
        )));
    };
    if n.shape.len() > 1 {
        return Err(Error::invalid_argument(format!(
            "source_column must be one-dimensional column. Given: {}",
            source_column.repr()
        )));
    }
    if boundaries.is_empty() {
        return Err(Error::invalid_argument("boundaries must not be empty."));
    }
    if boundaries.windows(2).any(|w| w[0] >= w[1]) {
        return Err(Error::invalid_argument("boundaries must be a sorted list."));
    }
    Ok(FeatureColumn::new(Column::Bucketized(Bucketized {
        source: source_column.clone(),
        boundaries: boundaries.to_vec(),
    })))
}
