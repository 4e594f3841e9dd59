//! The [`Dataset`] methods that take and give [`Component`]s, so elements can hold sparse
//! tensors: `from_tensor_slices` and `from_tensors` of sparse tensors,
//! `from_sparse_tensor_slices`, and `map` and `filter` functions that read and return them.

use weir_graph::{Output, Result};

use super::structure::{self, Component, ComponentSpec};
use super::{Dataset, MapOptions};
use crate::sparse::SparseOutput;

impl Dataset {
    /// `Dataset.from_tensor_slices(tensors)` of components that may be sparse tensors: one
    /// element per row of the first dimension; a sparse component's elements are its rows, of
    /// the dense shape after the first dimension (op `TensorSliceDataset` of their
    /// `SerializeManySparse` encoding).
    ///
    /// ```
    /// use weir_graph::{DType, Graph, Shape, Tensor};
    /// use weir_ops::array::constant;
    /// use weir_ops::data::{Component, ComponentSpec, Dataset};
    /// use weir_ops::sparse::SparseOutput;
    ///
    /// let g = Graph::new();
    /// let sp = SparseOutput::new(
    ///     constant(&g, Tensor::from_vec(&[2, 2], vec![0i64, 1, 2, 0])?)?,
    ///     constant(&g, [1.5f32, 2.5])?,
    ///     constant(&g, [3i64, 4])?,
    /// )?;
    /// let ds = Dataset::from_component_slices(&[sp.into()])?;
    /// let spec = ComponentSpec::Sparse { dtype: DType::F32, shape: Shape::from([4]) };
    /// assert_eq!(ds.element_spec(), vec![spec]);
    /// // In a session: three sparse tensors of dense shape [4]; the second is empty.
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn from_component_slices(components: &[Component]) -> Result<Dataset> {
        let (outputs, sparse) = structure::encode_rows(components)?;
        Ok(Dataset::from_tensor_slices(&outputs)?.with_sparse(sparse))
    }

    /// `Dataset.from_tensors(tensors)` of components that may be sparse tensors: one element,
    /// the components themselves.
    pub fn from_components(components: &[Component]) -> Result<Dataset> {
        let (outputs, sparse) = structure::encode(components)?;
        Ok(Dataset::from_tensors(&outputs)?.with_sparse(sparse))
    }

    /// `tf.compat.v1.data.Dataset.from_sparse_tensor_slices(sparse_tensor)`: one element per
    /// row of `sparse`'s first dimension, as TensorFlow 1's dataset gives it: three dense
    /// components, the row's int64 `indices` `[n, rank - 1]`, its `values` `[n]` and its
    /// `dense_shape` `[rank - 1]` (so rows with different numbers of values do not batch).
    pub fn from_sparse_tensor_slices(sparse: &SparseOutput) -> Result<Dataset> {
        Dataset::from_component_slices(&[Component::Sparse(sparse.clone())])?.map_components(|x| {
            let s = x[0].sparse()?;
            Ok(vec![
                s.indices.clone().into(),
                s.values.clone().into(),
                s.dense_shape.clone().into(),
            ])
        })
    }

    /// `dataset.element_spec`: the type of each component, a sparse one's as its values'
    /// dtype and static dense shape.
    pub fn element_spec(&self) -> Vec<ComponentSpec> {
        structure::specs(
            self.output_types(),
            self.output_shapes(),
            self.sparse_specs(),
        )
    }

    /// `dataset.map(f)` for elements that may hold sparse tensors: `f` reads each component
    /// as a tensor or a sparse tensor and may return either (`parse_single_example` with a
    /// `VarLenFeature` returns a sparse one). Op `MapDataset`.
    ///
    /// ```
    /// use weir_graph::{DType, Graph};
    /// use weir_ops::array::constant;
    /// use weir_ops::data::Dataset;
    /// use weir_ops::parsing::{parse_single_example, Features, VarLenFeature};
    ///
    /// let g = Graph::new();
    /// let records = constant(&g, weir_graph::Tensor::from_strings(&[""]))?;
    /// let features = Features::new().add("tags", VarLenFeature::new(DType::String));
    /// let ds = Dataset::from_tensor_slices(&[records])?.map_components(|x| {
    ///     let parsed = parse_single_example(x[0].tensor()?, &features)?;
    ///     Ok(vec![parsed.sparse("tags")?.into()])
    /// })?;
    /// assert!(ds.element_spec()[0].is_sparse());
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn map_components(
        &self,
        f: impl FnOnce(&[Component]) -> Result<Vec<Component>>,
    ) -> Result<Dataset> {
        let (func, sparse) = self.component_function("map", f)?;
        Ok(self
            .function_dataset("MapDataset", "f", func)?
            .with_sparse(sparse))
    }

    /// [`map_components`](Self::map_components) with `num_parallel_calls` and
    /// `deterministic` (op `ParallelMapDatasetV2`, as [`map_with`](Self::map_with)).
    pub fn map_components_with(
        &self,
        f: impl FnOnce(&[Component]) -> Result<Vec<Component>>,
        options: MapOptions,
    ) -> Result<Dataset> {
        let (func, sparse) = self.component_function("map", f)?;
        Ok(self
            .parallel_map_dataset(options, func)?
            .with_sparse(sparse))
    }

    /// `dataset.filter(predicate)` for elements that may hold sparse tensors: `predicate`
    /// reads the components as [`map_components`](Self::map_components)'s function does and
    /// returns a scalar bool (op `FilterDataset`).
    pub fn filter_components(
        &self,
        predicate: impl FnOnce(&[Component]) -> Result<Output>,
    ) -> Result<Dataset> {
        let (func, _) = self.component_function("filter", |x| Ok(vec![predicate(x)?.into()]))?;
        self.filter_dataset(func)
    }
}
