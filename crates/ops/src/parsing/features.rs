//! Feature specs (`tf.io.FixedLenFeature`, `VarLenFeature`, `FixedLenSequenceFeature`,
//! `SparseFeature`), the `features` map the parse functions take, and what they return.

use std::collections::BTreeMap;

use weir_graph::{DType, Error, Output, Result, Shape, Tensor};

/// The dtypes an Example feature can have: int64, float32 and string (bytes).
pub const FEATURE_TYPES: &[DType] = &[DType::I64, DType::F32, DType::String];

fn check_dtype(dtype: DType) -> Result<()> {
    if FEATURE_TYPES.contains(&dtype) {
        Ok(())
    } else {
        Err(Error::invalid_argument(format!(
            "Unsupported dtype {dtype}: features must be int64, float32 or string"
        )))
    }
}

/// `tf.io.FixedLenFeature(shape, dtype, default_value=None)`: exactly `prod(shape)` values per
/// example, or the default when the feature is missing.
#[derive(Clone, Debug)]
pub struct FixedLenFeature {
    pub(crate) shape: Shape,
    pub(crate) dtype: DType,
    pub(crate) default: Option<Tensor>,
}

impl FixedLenFeature {
    /// A required feature of `shape` (`&[]` for a scalar) and `dtype`.
    pub fn new(shape: &[usize], dtype: DType) -> FixedLenFeature {
        FixedLenFeature::with_shape(Shape::known(shape), dtype)
    }

    /// A feature of a static `shape`; every dimension must be known (a `None` first dimension
    /// is TensorFlow's "Consider using FixedLenSequenceFeature" error at build time).
    pub fn with_shape(shape: Shape, dtype: DType) -> FixedLenFeature {
        FixedLenFeature {
            shape,
            dtype,
            default: None,
        }
    }

    /// The value used when an example lacks the feature; it must hold `prod(shape)` values.
    pub fn default(mut self, value: impl Into<Tensor>) -> FixedLenFeature {
        self.default = Some(value.into());
        self
    }
}

/// `tf.io.VarLenFeature(dtype)`: any number of values, returned as a sparse tensor.
#[derive(Clone, Copy, Debug)]
pub struct VarLenFeature {
    pub(crate) dtype: DType,
}

impl VarLenFeature {
    /// A variable-length feature of `dtype`.
    pub fn new(dtype: DType) -> VarLenFeature {
        VarLenFeature { dtype }
    }
}

/// `tf.io.FixedLenSequenceFeature(shape, dtype, allow_missing=False, default_value=None)`: a
/// sequence of values of `shape` each, padded across a batch.
#[derive(Clone, Debug)]
pub struct FixedLenSequenceFeature {
    pub(crate) shape: Shape,
    pub(crate) dtype: DType,
    pub(crate) allow_missing: bool,
    pub(crate) default: Option<Tensor>,
}

impl FixedLenSequenceFeature {
    /// A sequence of elements of `shape` (`&[]` for scalars) and `dtype`.
    pub fn new(shape: &[usize], dtype: DType) -> FixedLenSequenceFeature {
        FixedLenSequenceFeature {
            shape: Shape::known(shape),
            dtype,
            allow_missing: false,
            default: None,
        }
    }

    /// Whether a missing feature is an empty sequence (required by `parse_example`).
    pub fn allow_missing(mut self, allow: bool) -> FixedLenSequenceFeature {
        self.allow_missing = allow;
        self
    }

    /// The scalar that pads shorter sequences of a batch (default 0 or "").
    pub fn default(mut self, value: impl Into<Tensor>) -> FixedLenSequenceFeature {
        self.default = Some(value.into());
        self
    }
}

/// `tf.io.SparseFeature(index_key, value_key, dtype, size, already_sorted=False)`: a sparse
/// tensor whose indices and values are stored in two (or more) int64 / `dtype` features.
#[derive(Clone, Debug)]
pub struct SparseFeature {
    pub(crate) index_keys: Vec<String>,
    pub(crate) value_key: String,
    pub(crate) dtype: DType,
    pub(crate) sizes: Vec<i64>,
    pub(crate) already_sorted: bool,
}

impl SparseFeature {
    /// A 1-D sparse feature: indices in `index_key`, values in `value_key`, dense size `size`.
    pub fn new(index_key: &str, value_key: &str, dtype: DType, size: i64) -> SparseFeature {
        SparseFeature {
            index_keys: vec![index_key.to_string()],
            value_key: value_key.to_string(),
            dtype,
            sizes: vec![size],
            already_sorted: false,
        }
    }

    /// A multi-dimensional sparse feature: one index feature and one size per dimension.
    pub fn new_nd(
        index_keys: &[&str],
        value_key: &str,
        dtype: DType,
        sizes: &[i64],
    ) -> SparseFeature {
        SparseFeature {
            index_keys: index_keys.iter().map(|s| s.to_string()).collect(),
            value_key: value_key.to_string(),
            dtype,
            sizes: sizes.to_vec(),
            already_sorted: false,
        }
    }

    /// Whether the stored indices are already sorted (skips the reordering).
    pub fn already_sorted(mut self, sorted: bool) -> SparseFeature {
        self.already_sorted = sorted;
        self
    }
}

/// One feature spec of a [`Features`] map.
#[derive(Clone, Debug)]
pub enum Feature {
    /// `FixedLenFeature`.
    FixedLen(FixedLenFeature),
    /// `VarLenFeature`.
    VarLen(VarLenFeature),
    /// `FixedLenSequenceFeature`.
    FixedLenSequence(FixedLenSequenceFeature),
    /// `SparseFeature`.
    Sparse(SparseFeature),
}

impl From<FixedLenFeature> for Feature {
    fn from(f: FixedLenFeature) -> Feature {
        Feature::FixedLen(f)
    }
}
impl From<VarLenFeature> for Feature {
    fn from(f: VarLenFeature) -> Feature {
        Feature::VarLen(f)
    }
}
impl From<FixedLenSequenceFeature> for Feature {
    fn from(f: FixedLenSequenceFeature) -> Feature {
        Feature::FixedLenSequence(f)
    }
}
impl From<SparseFeature> for Feature {
    fn from(f: SparseFeature) -> Feature {
        Feature::Sparse(f)
    }
}

/// The `features` dict of `tf.io.parse_example`: feature specs by name (kept sorted, as
/// TensorFlow orders them).
#[derive(Clone, Debug, Default)]
pub struct Features {
    pub(crate) map: BTreeMap<String, Feature>,
}

impl Features {
    /// An empty map.
    pub fn new() -> Features {
        Features::default()
    }

    /// Adds (or replaces) the spec of feature `name`.
    pub fn add(mut self, name: &str, spec: impl Into<Feature>) -> Features {
        self.map.insert(name.to_string(), spec.into());
        self
    }

    /// The feature names, sorted (the order of `tf.nest`, and of a parsed dict's values).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.map.keys().map(String::as_str)
    }

    /// The spec of `name`.
    pub fn get(&self, name: &str) -> Option<&Feature> {
        self.map.get(name)
    }

    /// The number of features.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether there are no features.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

impl<S: Into<String>, F: Into<Feature>> FromIterator<(S, F)> for Features {
    fn from_iter<I: IntoIterator<Item = (S, F)>>(iter: I) -> Features {
        Features {
            map: iter
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        }
    }
}

/// A parsed sparse feature: the three parts of TensorFlow's `SparseTensor`.
#[derive(Clone, Debug)]
pub struct SparseFeatureOutput {
    /// int64 `[N, rank]`.
    pub indices: Output,
    /// `[N]` values.
    pub values: Output,
    /// int64 `[rank]`.
    pub dense_shape: Output,
}

impl From<SparseFeatureOutput> for crate::sparse::SparseOutput {
    /// The same three outputs as the sparse tensor the sparse ops and batchers take.
    fn from(s: SparseFeatureOutput) -> crate::sparse::SparseOutput {
        crate::sparse::SparseOutput {
            indices: s.indices,
            values: s.values,
            dense_shape: s.dense_shape,
        }
    }
}

/// One parsed feature: a dense tensor or a sparse one.
#[derive(Clone, Debug)]
pub enum ParsedFeature {
    /// A `FixedLenFeature` or `FixedLenSequenceFeature`.
    Dense(Output),
    /// A `VarLenFeature` or `SparseFeature`.
    Sparse(SparseFeatureOutput),
}

/// The dict `tf.io.parse_example` returns: a parsed feature per requested name.
#[derive(Clone, Debug, Default)]
pub struct ParsedFeatures {
    pub(crate) map: BTreeMap<String, ParsedFeature>,
}

impl ParsedFeatures {
    /// The parsed feature `name`.
    pub fn get(&self, name: &str) -> Option<&ParsedFeature> {
        self.map.get(name)
    }

    /// The dense tensor of feature `name`; NotFound or InvalidArgument if it is not one.
    pub fn dense(&self, name: &str) -> Result<Output> {
        match self.map.get(name) {
            Some(ParsedFeature::Dense(o)) => Ok(o.clone()),
            Some(ParsedFeature::Sparse(_)) => Err(Error::invalid_argument(format!(
                "Feature '{name}' is sparse, not dense"
            ))),
            None => Err(Error::not_found(format!(
                "No parsed feature named '{name}'"
            ))),
        }
    }

    /// The sparse tensor of feature `name`; NotFound or InvalidArgument if it is not one.
    pub fn sparse(&self, name: &str) -> Result<SparseFeatureOutput> {
        match self.map.get(name) {
            Some(ParsedFeature::Sparse(s)) => Ok(s.clone()),
            Some(ParsedFeature::Dense(_)) => Err(Error::invalid_argument(format!(
                "Feature '{name}' is dense, not sparse"
            ))),
            None => Err(Error::not_found(format!(
                "No parsed feature named '{name}'"
            ))),
        }
    }

    /// Every parsed feature, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &ParsedFeature)> {
        self.map.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The number of parsed features.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether nothing was parsed.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// A dense feature as the parse ops see it.
#[derive(Clone, Debug)]
pub(crate) struct DenseSpec {
    pub(crate) name: String,
    pub(crate) dtype: DType,
    /// The full shape of a fixed-length feature; the element shape of a sequence feature.
    pub(crate) shape: Vec<usize>,
    /// A `FixedLenSequenceFeature`: the output has a leading sequence dimension.
    pub(crate) variable_length: bool,
    /// The default (fixed length: `prod(shape)` values) or padding scalar (sequence); an empty
    /// tensor of `dtype` when there is none.
    pub(crate) default: Tensor,
}

/// Checks a static feature shape and returns its dimensions.
fn known_dims(name: &str, shape: &Shape, fixed_len: bool) -> Result<Vec<usize>> {
    let dims = shape.dims().ok_or_else(|| {
        Error::invalid_argument(format!("Shape of feature {name} must have a known rank"))
    })?;
    if fixed_len && dims.first().is_some_and(Option::is_none) {
        return Err(Error::invalid_argument(format!(
            "First dimension of shape for feature {name} unknown. Consider using FixedLenSequenceFeature."
        )));
    }
    dims.iter()
        .map(|d| {
            d.ok_or_else(|| {
                Error::invalid_argument(format!(
                    "All dimensions of shape for feature {name} need to be known but received {shape}."
                ))
            })
        })
        .collect()
}

fn empty_of(dtype: DType) -> Result<Tensor> {
    Tensor::zeros(dtype, &[0])
}

fn check_default_dtype(name: &str, d: &Tensor, dtype: DType) -> Result<()> {
    if d.dtype() != dtype {
        return Err(Error::invalid_argument(format!(
            "Default value of feature {name} has dtype {} but the feature is {dtype}",
            d.dtype()
        )));
    }
    Ok(())
}

/// The dense spec of a `FixedLenFeature`, validated as Python's `parse_example` does.
pub(crate) fn fixed_len_spec(name: &str, f: &FixedLenFeature) -> Result<DenseSpec> {
    check_dtype(f.dtype)?;
    let shape = known_dims(name, &f.shape, true)?;
    let n: usize = shape.iter().product();
    let default = match &f.default {
        Some(d) => {
            check_default_dtype(name, d, f.dtype)?;
            if d.num_elements() != n {
                return Err(Error::invalid_argument(format!(
                    "Cannot reshape a tensor with {} elements to shape {} ({n} elements)",
                    d.num_elements(),
                    weir_graph::format_dims(&shape)
                )));
            }
            d.reshape(&shape)?
        }
        None => empty_of(f.dtype)?,
    };
    Ok(DenseSpec {
        name: name.to_string(),
        dtype: f.dtype,
        shape,
        variable_length: false,
        default,
    })
}

/// The dense spec of a `FixedLenSequenceFeature`.
pub(crate) fn sequence_spec(name: &str, f: &FixedLenSequenceFeature) -> Result<DenseSpec> {
    check_dtype(f.dtype)?;
    let shape = known_dims(name, &f.shape, false)?;
    let default = match &f.default {
        Some(d) => {
            check_default_dtype(name, d, f.dtype)?;
            if d.num_elements() != 1 {
                return Err(Error::invalid_argument(format!(
                    "Padding value of feature {name} must be a scalar, got {} values",
                    d.num_elements()
                )));
            }
            d.reshape(&[])?
        }
        None => empty_of(f.dtype)?,
    };
    Ok(DenseSpec {
        name: name.to_string(),
        dtype: f.dtype,
        shape,
        variable_length: true,
        default,
    })
}

/// Checks the dtype of a `VarLenFeature`.
pub(crate) fn var_len_dtype(f: &VarLenFeature) -> Result<DType> {
    check_dtype(f.dtype)?;
    Ok(f.dtype)
}

/// Checks a `SparseFeature`.
pub(crate) fn check_sparse_feature(name: &str, f: &SparseFeature) -> Result<()> {
    check_dtype(f.dtype)?;
    if f.index_keys.is_empty() || f.index_keys.len() != f.sizes.len() {
        return Err(Error::invalid_argument(format!(
            "SparseFeature {name} needs one size per index key, got {} keys and {} sizes",
            f.index_keys.len(),
            f.sizes.len()
        )));
    }
    Ok(())
}
