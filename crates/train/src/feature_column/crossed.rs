//! `crossed_column`.

use weir_graph::{Error, Result};
use weir_ops::sparse::{sparse_cross_hashed, CrossInput, SparseOutput};

use super::transform::Cache;
use super::{Column, FeatureColumn, FeatureTensor};

/// One key of a [`crossed_column`]: a feature key (its raw values are crossed) or a
/// categorical column (its ids are crossed), as TensorFlow's `keys` holds strings and
/// `CategoricalColumn`s.
#[derive(Clone, Debug)]
pub enum CrossKey {
    /// A feature key: the raw feature, dense or sparse, string or integer.
    Feature(String),
    /// A categorical column (not `categorical_column_with_hash_bucket`).
    Column(FeatureColumn),
}

impl From<&str> for CrossKey {
    fn from(k: &str) -> CrossKey {
        CrossKey::Feature(k.to_string())
    }
}

impl From<String> for CrossKey {
    fn from(k: String) -> CrossKey {
        CrossKey::Feature(k)
    }
}

impl From<FeatureColumn> for CrossKey {
    fn from(c: FeatureColumn) -> CrossKey {
        CrossKey::Column(c)
    }
}

impl From<&FeatureColumn> for CrossKey {
    fn from(c: &FeatureColumn) -> CrossKey {
        CrossKey::Column(c.clone())
    }
}

impl CrossKey {
    /// Python's repr of the key: `'a'` or the column's repr.
    fn repr(&self) -> String {
        match self {
            CrossKey::Feature(k) => format!("'{k}'"),
            CrossKey::Column(c) => c.repr(),
        }
    }
}

/// The options of `tf.feature_column.crossed_column(keys, hash_bucket_size, hash_key=None)`:
/// the cartesian product of the keys' values per example, hashed into `hash_bucket_size`
/// buckets by TensorFlow's `sparse_cross_hashed` (`FingerprintCat64` chained from `hash_key`).
///
/// ```
/// use weir_train::feature_column::{self as fc, CrossKey, CrossedColumn};
/// let price = fc::bucketized_column(&fc::numeric_column("price")?, &[10.0, 100.0])?;
/// let c = CrossedColumn::new([CrossKey::from("zip"), CrossKey::from(&price)], 1000).hash_key(7).build()?;
/// assert_eq!(c.name(), "price_bucketized_X_zip");
/// assert_eq!(c.num_buckets(), Some(1000));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct CrossedColumn {
    pub(crate) keys: Vec<CrossKey>,
    pub(crate) hash_bucket_size: i64,
    pub(crate) hash_key: Option<i64>,
}

impl CrossedColumn {
    /// The cross of `keys` (feature keys and categorical columns) in `hash_bucket_size`
    /// buckets, with TensorFlow's default hash key.
    pub fn new<K: Into<CrossKey>>(
        keys: impl IntoIterator<Item = K>,
        hash_bucket_size: i64,
    ) -> CrossedColumn {
        CrossedColumn {
            keys: keys.into_iter().map(Into::into).collect(),
            hash_bucket_size,
            hash_key: None,
        }
    }

    /// The seed of the fingerprint chain (`hash_key=`; 0 means the default `0xDECAFCAFFE`).
    pub fn hash_key(mut self, hash_key: i64) -> Self {
        self.hash_key = Some(hash_key);
        self
    }

    /// Validates the options as TensorFlow does and makes the column.
    pub fn build(self) -> Result<FeatureColumn> {
        if self.hash_bucket_size < 1 {
            return Err(Error::invalid_argument(format!(
                "hash_bucket_size must be > 1. hash_bucket_size: {}",
                self.hash_bucket_size
            )));
        }
        if self.keys.len() < 2 {
            let keys: Vec<String> = self.keys.iter().map(CrossKey::repr).collect();
            return Err(Error::invalid_argument(format!(
                "keys must be a list with length > 1. Given: [{}]",
                keys.join(", ")
            )));
        }
        for key in &self.keys {
            let CrossKey::Column(c) = key else { continue };
            if !c.is_categorical() {
                return Err(Error::invalid_argument(format!(
                    "Unsupported key type. All keys must be either string, or categorical column except HashedCategoricalColumn. Given: {}",
                    c.repr()
                )));
            }
            if matches!(c.kind(), Column::Hashed(_)) {
                return Err(Error::invalid_argument(format!(
                    "categorical_column_with_hash_bucket is not supported for crossing. Hashing before crossing will increase probability of collision. Instead, use the feature name as a string. Given: {}",
                    c.repr()
                )));
            }
        }
        Ok(FeatureColumn::new(Column::Crossed(self)))
    }

    /// TensorFlow's `_collect_leaf_level_keys`: the keys with nested crosses expanded.
    pub(crate) fn leaf_keys(&self) -> Vec<CrossKey> {
        let mut out = Vec::new();
        for k in &self.keys {
            match k {
                CrossKey::Column(c) => match c.kind() {
                    Column::Crossed(inner) => out.extend(inner.leaf_keys()),
                    _ => out.push(k.clone()),
                },
                CrossKey::Feature(_) => out.push(k.clone()),
            }
        }
        out
    }

    /// `name`: the leaf keys' names, sorted, joined by `_X_`.
    pub(crate) fn name(&self) -> String {
        let mut names: Vec<String> = self
            .leaf_keys()
            .iter()
            .map(|k| match k {
                CrossKey::Feature(s) => s.clone(),
                CrossKey::Column(c) => c.name(),
            })
            .collect();
        names.sort();
        names.join("_X_")
    }

    pub(crate) fn repr(&self) -> String {
        let keys: Vec<String> = self.keys.iter().map(CrossKey::repr).collect();
        format!(
            "CrossedColumn(keys=({}), hash_bucket_size={}, hash_key={})",
            keys.join(", "),
            self.hash_bucket_size,
            self.hash_key.map_or("None".to_string(), |k| k.to_string())
        )
    }

    /// `_transform_feature`: the hashed cross of the leaf keys' raw features or ids.
    pub(crate) fn transform(&self, cache: &mut Cache<'_>) -> Result<SparseOutput> {
        let mut inputs = Vec::new();
        for key in self.leaf_keys() {
            match key {
                CrossKey::Feature(k) => inputs.push(match cache.raw(&k)? {
                    FeatureTensor::Dense(d) => CrossInput::Dense(d),
                    FeatureTensor::Sparse(s) => CrossInput::Sparse(s),
                }),
                CrossKey::Column(c) => {
                    let (ids, weights) = cache.sparse_tensors(&c)?;
                    if weights.is_some() {
                        return Err(Error::invalid_argument(format!(
                            "crossed_column does not support weight_tensor, but the given column populates weight_tensor. Given column: {}",
                            c.name()
                        )));
                    }
                    inputs.push(CrossInput::Sparse(ids));
                }
            }
        }
        sparse_cross_hashed(inputs, self.hash_bucket_size, self.hash_key)
    }
}

/// `tf.feature_column.crossed_column(keys, hash_bucket_size)`: a categorical column of the
/// hashed cross of `keys` (feature keys, categorical columns other than hashed ones, or other
/// crosses); for `hash_key`, see [`CrossedColumn`].
///
/// ```
/// # use std::collections::BTreeMap;
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::array::constant;
/// # use weir_session::Session;
/// use weir_train::feature_column::{self as fc};
/// let g = Graph::new();
/// let cross = fc::crossed_column(["country", "lang"], 100)?;
/// let x = fc::input_layer(
///     &BTreeMap::from([
///         ("country".to_string(), constant(&g, ["US", "FR"])?.into()),
///         ("lang".to_string(), constant(&g, Tensor::from_strings(&["en", "es", "fr", ""]).reshape(&[2, 2])?)?.into()),
///     ]),
///     &[fc::indicator_column(&cross)?],
/// )?;
/// let counts = Session::new(&g)?.eval(&x)?.to_vec::<f32>()?;
/// // Every pair of one row is crossed, the empty string too: two crosses per example.
/// assert_eq!(counts.iter().sum::<f32>(), 4.0);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn crossed_column<K: Into<CrossKey>>(
    keys: impl IntoIterator<Item = K>,
    hash_bucket_size: i64,
) -> Result<FeatureColumn> {
    CrossedColumn::new(keys, hash_bucket_size).build()
}
