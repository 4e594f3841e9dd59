//! `tf.data.experimental.parse_example_dataset`: batches of serialized `Example`s parsed into
//! their features, sparse ones included.

use weir_graph::{DType, Error, Result, Shape};

use super::structure::{python_element_spec, Component, ComponentSpec, SparseSpec};
use super::{Dataset, MapOptions};
use crate::parsing::{parse_example, Features, ParsedFeature};
use crate::sparse::SparseOutput;

impl Dataset {
    /// `dataset.apply(tf.data.experimental.parse_example_dataset(features,
    /// num_parallel_calls, deterministic))`: each element, a vector of serialized `Example`s,
    /// parsed as `tf.io.parse_example` parses it. TensorFlow's element is a dict; weir's
    /// components are its values in `tf.nest`'s order (by feature name), returned with the
    /// names. A `VarLenFeature` or `SparseFeature` gives a sparse component of dense shape
    /// `[batch, ...]`; a `FixedLenFeature` a dense `[batch] + shape` one. `options` carries
    /// `num_parallel_calls` (TensorFlow's default is 1) and `deterministic`.
    ///
    /// ```
    /// use weir_graph::{DType, Graph, Tensor};
    /// use weir_ops::array::constant;
    /// use weir_ops::data::{Dataset, MapOptions};
    /// use weir_ops::parsing::{Features, FixedLenFeature, VarLenFeature};
    ///
    /// let g = Graph::new();
    /// let records = constant(&g, Tensor::from_strings(&["", ""]))?;
    /// let features = Features::new()
    ///     .add("age", FixedLenFeature::new(&[], DType::I64).default(-1i64))
    ///     .add("kws", VarLenFeature::new(DType::String));
    /// let (ds, names) = Dataset::from_tensor_slices(&[records])?
    ///     .batch(2)?
    ///     .parse_example_dataset(&features, MapOptions::parallel(1))?;
    /// assert_eq!(names, ["age", "kws"]);
    /// assert!(ds.element_spec()[1].is_sparse());
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn parse_example_dataset(
        &self,
        features: &Features,
        options: MapOptions,
    ) -> Result<(Dataset, Vec<String>)> {
        let spec = self.element_spec();
        let vectors_of_strings = match spec.as_slice() {
            [ComponentSpec::Tensor { dtype, shape }] => {
                *dtype == DType::String && shape.rank().is_none_or(|r| r == 1)
            }
            _ => false,
        };
        if !vectors_of_strings {
            return Err(Error::invalid_argument(format!(
                "Input dataset should be a dataset of vectors of strings. Instead it is `{}`.",
                python_element_spec(&spec)
            )));
        }
        let batch = spec[0].shape().dim(0);
        let mut names = Vec::new();
        let ds = self.map_components_with(
            |x| {
                let parsed = parse_example(x[0].tensor()?, features)?;
                let mut out = Vec::with_capacity(parsed.len());
                for (name, f) in parsed.iter() {
                    names.push(name.to_string());
                    out.push(match f {
                        ParsedFeature::Dense(o) => Component::Tensor(o.clone()),
                        ParsedFeature::Sparse(s) => {
                            Component::Sparse(SparseOutput::from(s.clone()))
                        }
                    });
                }
                Ok(out)
            },
            options,
        )?;
        // The batch dimension that TensorFlow's element spec gives the sparse features.
        let sparse = ds
            .sparse_specs()
            .iter()
            .map(|sp| {
                sp.as_ref().map(|sp| SparseSpec {
                    dtype: sp.dtype,
                    shape: match sp.shape.dims() {
                        Some([_, rest @ ..]) => {
                            let mut d = vec![batch];
                            d.extend_from_slice(rest);
                            Shape::new(d)
                        }
                        _ => sp.shape.clone(),
                    },
                })
            })
            .collect();
        Ok((ds.with_sparse(sparse), names))
    }
}
