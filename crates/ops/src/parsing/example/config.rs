//! The compiled parse configuration: which features to extract, their specs and defaults, and
//! the index that maps a key read from the wire to its output slot.

use std::collections::HashMap;

use weir_graph::{DType, Error, Result, SparseTensor, Tensor};

use crate::parsing::features::{self, DenseSpec};

/// What a compiled config maps a feature key to.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Slot {
    Dense(usize),
    Sparse(usize),
}

/// Finds the config slot of a key: a linear scan for the usual handful of features, a hash map
/// beyond that.
#[derive(Clone, Debug)]
pub(crate) struct KeyIndex {
    keys: Vec<(Box<[u8]>, Slot)>,
    map: Option<HashMap<Box<[u8]>, Slot>>,
}

impl KeyIndex {
    fn new(keys: Vec<(Box<[u8]>, Slot)>) -> KeyIndex {
        let map = (keys.len() > 8).then(|| keys.iter().cloned().collect());
        KeyIndex { keys, map }
    }

    #[inline]
    pub(crate) fn find(&self, k: &[u8]) -> Option<Slot> {
        match &self.map {
            Some(m) => m.get(k).copied(),
            None => self
                .keys
                .iter()
                .find(|(n, _)| n.len() == k.len() && **n == *k)
                .map(|(_, s)| *s),
        }
    }
}

/// The features one parse extracts, compiled once: TensorFlow's `FastParseExampleConfig`.
#[derive(Clone, Debug)]
pub struct ExampleConfig {
    pub(crate) dense: Vec<DenseSpec>,
    pub(crate) sparse: Vec<(String, DType)>,
    pub(crate) index: KeyIndex,
}

impl ExampleConfig {
    /// A config from its dense and sparse (VarLen) features; InvalidArgument for a key requested
    /// twice or an unsupported dtype.
    pub(crate) fn new(
        dense: Vec<DenseSpec>,
        sparse: Vec<(String, DType)>,
    ) -> Result<ExampleConfig> {
        let mut keys: Vec<(Box<[u8]>, Slot)> = Vec::new();
        let names = dense
            .iter()
            .enumerate()
            .map(|(i, d)| (&d.name, Slot::Dense(i), d.dtype))
            .chain(
                sparse
                    .iter()
                    .enumerate()
                    .map(|(i, s)| (&s.0, Slot::Sparse(i), s.1)),
            );
        for (name, slot, dtype) in names {
            if !features::FEATURE_TYPES.contains(&dtype) {
                return Err(Error::invalid_argument(format!(
                    "Invalid config dtype: {dtype}"
                )));
            }
            if keys.iter().any(|(k, _)| **k == *name.as_bytes()) {
                return Err(Error::invalid_argument(format!(
                    "Feature {name} is requested more than once"
                )));
            }
            keys.push((name.as_bytes().into(), slot));
        }
        Ok(ExampleConfig {
            dense,
            sparse,
            index: KeyIndex::new(keys),
        })
    }

    /// A config of dense features `(name, dtype, shape, default)` (fixed length) and sparse
    /// features `(name, dtype)`: the pure-function entry point (for benchmarks and fuzzing).
    pub fn from_parts(
        fixed: Vec<(String, DType, Vec<usize>, Option<Tensor>)>,
        sparse: Vec<(String, DType)>,
    ) -> Result<ExampleConfig> {
        let dense = fixed
            .into_iter()
            .map(|(name, dtype, shape, default)| {
                let mut f = features::FixedLenFeature::new(&shape, dtype);
                f.default = default;
                features::fixed_len_spec(&name, &f)
            })
            .collect::<Result<Vec<_>>>()?;
        ExampleConfig::new(dense, sparse)
    }
}

impl ExampleConfig {
    /// The defaults of the dense features, in order.
    pub(crate) fn defaults(&self) -> Vec<Tensor> {
        self.dense.iter().map(|d| d.default.clone()).collect()
    }

    /// Checks run-time `defaults` against the dense features (count, dtype, size).
    pub(crate) fn check_defaults(&self, defaults: &[Tensor]) -> Result<()> {
        if defaults.len() != self.dense.len() {
            return Err(Error::invalid_argument(format!(
                "Expected {} dense_defaults but got {}",
                self.dense.len(),
                defaults.len()
            )));
        }
        for (spec, d) in self.dense.iter().zip(defaults) {
            let n: usize = spec.shape.iter().product();
            let ok_size = if spec.variable_length {
                d.num_elements() <= 1
            } else {
                d.num_elements() == 0 || d.num_elements() == n
            };
            if d.dtype() != spec.dtype || !ok_size {
                return Err(Error::invalid_argument(format!(
                    "dense_defaults for feature {} must be empty or a {} tensor of {} values, got {:?}",
                    spec.name,
                    spec.dtype,
                    if spec.variable_length { 1 } else { n },
                    d
                )));
            }
        }
        Ok(())
    }
}

/// The tensors one parse produces, in config order.
#[derive(Clone, Debug)]
pub struct ParsedTensors {
    /// One tensor per dense feature.
    pub dense: Vec<Tensor>,
    /// One sparse tensor per sparse (VarLen) feature.
    pub sparse: Vec<SparseTensor>,
}
