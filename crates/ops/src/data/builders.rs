//! The graph side of `tf.data`: [`Dataset`] (`tf.data.Dataset`) and [`Iterator`]
//! (`tf.compat.v1.data.Iterator`).

use weir_graph::{DType, Error, Graph, OpBuilder, Output, Result, Shape};

use super::arg::{I64Arg, RepeatCount};
use super::function::{build_function, BuiltFunction};
use super::graph_iterator::{python_shape, Iterator};
use super::structure::{self, Component, SparseSpec};

/// A dataset in a graph: TensorFlow's `tf.data.Dataset`. Each method adds the op of a new
/// dataset; nothing is read until an iterator made from it runs.
///
/// An element is a list of components (TensorFlow's tuple structure), each with a dtype and
/// a static shape. A component may be a sparse tensor ([`Component`]); the dataset ops carry
/// it serialized, as a string `[..., 3]`, which is what [`output_types`](Self::output_types)
/// and [`output_shapes`](Self::output_shapes) show, while
/// [`element_spec`](Self::element_spec) gives its values' dtype and dense shape.
#[derive(Clone, Debug)]
pub struct Dataset {
    handle: Output,
    dtypes: Vec<DType>,
    shapes: Vec<Shape>,
    /// Per component: what a sparse one is (`None` for a dense one).
    sparse: Vec<Option<SparseSpec>>,
}

/// The dims of `s` after its first, unknown when `s`'s rank is.
fn row_shape(s: &Shape) -> Shape {
    match s.dims() {
        Some(d) if !d.is_empty() => Shape::new(d[1..].to_vec()),
        _ => Shape::unknown(),
    }
}

impl Dataset {
    /// A dataset of the op `op` that the caller has started with its inputs.
    pub(crate) fn build(b: OpBuilder, dtypes: Vec<DType>, shapes: Vec<Shape>) -> Result<Dataset> {
        let op = b
            .attr("output_types", dtypes.clone())
            .attr("output_shapes", shapes.clone())
            .build()?;
        let sparse = vec![None; dtypes.len()];
        Ok(Dataset {
            handle: op.output(0)?,
            dtypes,
            shapes,
            sparse,
        })
    }

    /// A dataset of the op `op` whose elements have this dataset's structure (a `shuffle`, a
    /// `repeat`), sparse components included.
    pub(crate) fn derive(&self, b: OpBuilder) -> Result<Dataset> {
        Dataset::build_like(b, self)
    }

    /// A dataset of the op `op` whose elements have `like`'s structure (an `interleave`'s,
    /// whose elements are those of the datasets its function makes).
    pub(crate) fn build_like(b: OpBuilder, like: &Dataset) -> Result<Dataset> {
        Ok(Dataset::build(b, like.dtypes.clone(), like.shapes.clone())?
            .with_sparse(like.sparse.clone()))
    }

    /// This dataset with the sparse components `sparse` marks (one entry per component).
    pub(crate) fn with_sparse(mut self, sparse: Vec<Option<SparseSpec>>) -> Dataset {
        debug_assert_eq!(sparse.len(), self.dtypes.len());
        self.sparse = sparse;
        self
    }

    /// What each component is, `None` for a dense one.
    pub(crate) fn sparse_specs(&self) -> &[Option<SparseSpec>] {
        &self.sparse
    }

    /// InvalidArgument when an element has a sparse component: `what` (a method name) reads
    /// components as dense tensors only.
    pub(crate) fn dense_only(&self, what: &str) -> Result<()> {
        dense_only(&self.sparse, what)
    }

    /// The dataset behind `handle`, a dataset handle made elsewhere (a window, a function's
    /// argument), with the element structure it has.
    pub(crate) fn from_handle(handle: Output, dtypes: Vec<DType>, shapes: Vec<Shape>) -> Dataset {
        let sparse = vec![None; dtypes.len()];
        Dataset {
            handle,
            dtypes,
            shapes,
            sparse,
        }
    }

    /// The graph the dataset is in.
    pub fn graph(&self) -> &Graph {
        self.handle.graph()
    }

    /// The dataset op's handle output (TensorFlow's `_variant_tensor`).
    pub fn handle(&self) -> &Output {
        &self.handle
    }

    /// The dtype of each component (`output_types`); a sparse component's is its encoding's,
    /// string (see [`element_spec`](Self::element_spec)).
    pub fn output_types(&self) -> &[DType] {
        &self.dtypes
    }

    /// The static shape of each component (`output_shapes`); a sparse component's is its
    /// encoding's, `[..., 3]` (see [`element_spec`](Self::element_spec)).
    pub fn output_shapes(&self) -> &[Shape] {
        &self.shapes
    }

    fn op(&self, op_type: &str) -> OpBuilder {
        crate::new_op(self.graph(), op_type).input(&self.handle)
    }

    fn first_graph(components: &[Output]) -> Result<&Graph> {
        components
            .first()
            .map(|c| c.graph())
            .ok_or_else(|| Error::invalid_argument("A dataset needs at least one component"))
    }

    /// `Dataset.from_tensor_slices(tensors)`: one element per row of the components, which
    /// must share their first dimension (op `TensorSliceDataset`).
    pub fn from_tensor_slices(components: &[Output]) -> Result<Dataset> {
        let g = Self::first_graph(components)?;
        let mut rows: Option<usize> = None;
        for c in components {
            let shape = c.shape();
            if shape.rank() == Some(0) {
                return Err(Error::invalid_argument(
                    "Unbatching a tensor is only supported for rank >= 1",
                ));
            }
            if let Some(Some(n)) = shape.dims().and_then(|d| d.first().copied()) {
                match rows {
                    Some(r) if r != n => {
                        return Err(Error::invalid_argument(format!(
                            "Dimensions {r} and {n} are not compatible"
                        )))
                    }
                    _ => rows = Some(n),
                }
            }
        }
        let dtypes: Vec<DType> = components.iter().map(|c| c.dtype()).collect();
        let shapes = components.iter().map(|c| row_shape(&c.shape())).collect();
        Dataset::build(
            crate::new_op(g, "TensorSliceDataset")
                .inputs(components.iter().cloned())
                .attr("Toutput_types", dtypes.clone()),
            dtypes,
            shapes,
        )
    }

    /// `Dataset.from_tensors(tensors)`: one element, the components themselves (op
    /// `TensorDataset`).
    pub fn from_tensors(components: &[Output]) -> Result<Dataset> {
        let g = Self::first_graph(components)?;
        let dtypes: Vec<DType> = components.iter().map(|c| c.dtype()).collect();
        let shapes = components.iter().map(|c| c.shape()).collect();
        Dataset::build(
            crate::new_op(g, "TensorDataset")
                .inputs(components.iter().cloned())
                .attr("Toutput_types", dtypes.clone()),
            dtypes,
            shapes,
        )
    }

    /// `Dataset.range(start, stop, step)`: int64 scalars from `start` up to (not including)
    /// `stop` (op `RangeDataset`); a zero step fails when the dataset is made.
    pub fn range(
        g: &Graph,
        start: impl Into<I64Arg>,
        stop: impl Into<I64Arg>,
        step: impl Into<I64Arg>,
    ) -> Result<Dataset> {
        Dataset::build(
            crate::new_op(g, "RangeDataset")
                .input(start.into().to_output(g, "start", false)?)
                .input(stop.into().to_output(g, "stop", false)?)
                .input(step.into().to_output(g, "step", false)?),
            vec![DType::I64],
            vec![Shape::scalar()],
        )
    }

    fn function(
        &self,
        name: &str,
        f: impl FnOnce(&[Output]) -> Result<Vec<Output>>,
    ) -> Result<BuiltFunction> {
        self.dense_only(&format!("dataset.{name}"))?;
        build_function(self.graph(), name, &self.dtypes, &self.shapes, f)
    }

    /// Builds `f`, a function of the element's components (sparse ones rebuilt from their
    /// encoding), returning the flat results that carry the components it returns.
    pub(crate) fn component_function(
        &self,
        name: &str,
        f: impl FnOnce(&[Component]) -> Result<Vec<Component>>,
    ) -> Result<(BuiltFunction, Vec<Option<SparseSpec>>)> {
        let mut sparse = Vec::new();
        let func = build_function(self.graph(), name, &self.dtypes, &self.shapes, |args| {
            let components = structure::decode(args, &self.sparse)?;
            let results = f(&components)?;
            let (outputs, mut s) = structure::encode(&results)?;
            // A sparse argument returned as it is keeps its static dense shape, as
            // TensorFlow's keeps the shape its spec gave it.
            structure::keep_argument_shapes(&results, &mut s, &components, &self.sparse);
            sparse = s;
            Ok(outputs)
        })?;
        Ok((func, sparse))
    }

    /// `dataset.map(f)`: each element passed through `f`, which builds the function's graph
    /// from the element's components and returns the new components (op `MapDataset`). Tensors
    /// from outside that `f` reads are captured: evaluated when the dataset is made (for an
    /// initializable iterator, in the initializer's run).
    pub fn map(&self, f: impl FnOnce(&[Output]) -> Result<Vec<Output>>) -> Result<Dataset> {
        let func = self.function("map", f)?;
        self.function_dataset("MapDataset", "f", func)
    }

    /// `dataset.filter(predicate)`: the elements for which `predicate` (a scalar bool of the
    /// element's components) is true (op `FilterDataset`).
    pub fn filter(&self, predicate: impl FnOnce(&[Output]) -> Result<Output>) -> Result<Dataset> {
        let func = self.function("filter", |x| Ok(vec![predicate(x)?]))?;
        self.filter_dataset(func)
    }

    /// The `FilterDataset` of the built predicate `func`.
    pub(crate) fn filter_dataset(&self, func: BuiltFunction) -> Result<Dataset> {
        let p = &func.results[0];
        if p.dtype() != DType::Bool || p.shape().rank() != Some(0) {
            return Err(Error::invalid_argument(format!(
                "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its \
                 return type is TensorSpec(shape={}, dtype=tf.{}, name=None).",
                python_shape(&p.shape()),
                p.dtype().python_name()
            )));
        }
        let b = self
            .op("FilterDataset")
            .inputs(func.captured.iter().cloned())
            .attr("Targuments", types_of(&func.captured));
        self.derive(func.attrs(b, "predicate"))
    }

    pub(crate) fn function_dataset(
        &self,
        op: &str,
        prefix: &str,
        func: BuiltFunction,
    ) -> Result<Dataset> {
        let dtypes = types_of(&func.results);
        let shapes = func.results.iter().map(|r| r.shape()).collect();
        let b = self
            .op(op)
            .inputs(func.captured.iter().cloned())
            .attr("Targuments", types_of(&func.captured));
        Dataset::build(func.attrs(b, prefix), dtypes, shapes)
    }

    /// `dataset.batch(batch_size)`: consecutive elements stacked along a new first dimension;
    /// the last batch may be smaller (op `BatchDatasetV2`).
    pub fn batch(&self, batch_size: impl Into<I64Arg>) -> Result<Dataset> {
        self.batch_with(batch_size, false)
    }

    /// `dataset.batch(batch_size, drop_remainder)`: with `drop_remainder`, a last batch smaller
    /// than `batch_size` is dropped and the batch dimension is static.
    pub fn batch_with(
        &self,
        batch_size: impl Into<I64Arg>,
        drop_remainder: bool,
    ) -> Result<Dataset> {
        let batch_size = batch_size.into();
        let dim = batch_size
            .value()
            .filter(|&b| drop_remainder && b > 0)
            .map(|b| b as usize);
        let size = batch_size.to_output(self.graph(), "batch_size", false)?;
        self.batch_op(&size, drop_remainder, dim)
    }

    /// The `BatchDatasetV2` op of a batch size given as a tensor (a function's, in
    /// `bucket_by_sequence_length`), its batch dimension `dim` statically.
    pub(crate) fn batch_op(
        &self,
        batch_size: &Output,
        drop_remainder: bool,
        dim: Option<usize>,
    ) -> Result<Dataset> {
        let shapes = self.shapes.iter().map(|s| batched(s, dim)).collect();
        let sparse = self
            .sparse
            .iter()
            .map(|sp| {
                sp.as_ref().map(|sp| SparseSpec {
                    dtype: sp.dtype,
                    shape: batched(&sp.shape, dim),
                })
            })
            .collect();
        Ok(Dataset::build(
            self.op("BatchDatasetV2")
                .input(batch_size)
                .input(crate::array::constant(self.graph(), drop_remainder)?),
            self.dtypes.clone(),
            shapes,
        )?
        .with_sparse(sparse))
    }

    fn counted(&self, op: &str, count: I64Arg) -> Result<Dataset> {
        let c = count.to_output(self.graph(), "count", false)?;
        self.derive(self.op(op).input(c))
    }

    /// `dataset.repeat(count)`: the elements `count` times over, forever with `None` or -1
    /// (op `RepeatDataset`); `count` may be a tensor ([`RepeatCount`]).
    pub fn repeat(&self, count: impl Into<RepeatCount>) -> Result<Dataset> {
        self.counted("RepeatDataset", count.into().0)
    }

    /// `dataset.skip(count)`: all but the first `count` elements; a negative count skips all
    /// (op `SkipDataset`).
    pub fn skip(&self, count: impl Into<I64Arg>) -> Result<Dataset> {
        self.counted("SkipDataset", count.into())
    }

    /// `dataset.take(count)`: the first `count` elements; a negative count takes all
    /// (op `TakeDataset`).
    pub fn take(&self, count: impl Into<I64Arg>) -> Result<Dataset> {
        self.counted("TakeDataset", count.into())
    }

    /// `dataset.cache()`: the elements kept in memory by the first pass that reads them all
    /// and replayed to later passes (a `repeat` after it reads the input once); op
    /// `CacheDataset`.
    pub fn cache(&self) -> Result<Dataset> {
        self.cache_file("")
    }

    /// `dataset.cache(filename)`: the first pass that reads the input to its end writes it to
    /// the TensorFlow cache files `filename.index` and `filename.data-00000-of-00001`, and
    /// every later iterator (in this process or another, TensorFlow's included) reads them
    /// instead of the input; op `CacheDataset`. An empty `filename` caches in memory.
    ///
    /// ```
    /// # use weir_graph::{DType, Graph};
    /// # use weir_ops::data::Dataset;
    /// let g = Graph::new();
    /// let path = std::env::temp_dir().join("weir_doc_cache").join("range");
    /// let ds = Dataset::range(&g, 0, 10, 1)?.cache_file(path.to_str().unwrap())?;
    /// assert_eq!(ds.output_types(), [DType::I64]);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn cache_file(&self, filename: &str) -> Result<Dataset> {
        let filename = crate::array::constant(self.graph(), filename)?;
        self.derive(self.op("CacheDataset").input(filename))
    }

    /// `dataset.shard(num_shards, index)`: elements `index`, `index + num_shards`, ... (one
    /// worker's part of the input, op `ShardDataset`); bad arguments fail when the dataset is
    /// made, as in TensorFlow.
    pub fn shard(
        &self,
        num_shards: impl Into<I64Arg>,
        index: impl Into<I64Arg>,
    ) -> Result<Dataset> {
        let g = self.graph();
        self.derive(
            self.op("ShardDataset")
                .input(num_shards.into().to_output(g, "num_shards", false)?)
                .input(index.into().to_output(g, "index", false)?),
        )
    }

    /// `tf.compat.v1.data.make_one_shot_iterator(dataset)`: an iterator that needs no
    /// initializer (op `OneShotIterator`). The dataset may not depend on a placeholder.
    pub fn make_one_shot_iterator(&self) -> Result<Iterator> {
        if let Some(p) = placeholder_ancestor(&self.handle) {
            return Err(Error::invalid_argument(format!(
                "Cannot capture a placeholder (name:{p}, type:Placeholder) by value."
            )));
        }
        let g = self.graph();
        Ok(Iterator::of_op(
            crate::new_op(g, "OneShotIterator")
                .attr("dataset_factory_feeds", Vec::<String>::new())
                .attr("dataset_factory_results", vec![self.handle.name()]),
            &self.dtypes,
            &self.shapes,
        )?
        .with_sparse(self.sparse.clone()))
    }

    /// `tf.compat.v1.data.make_initializable_iterator(dataset, shared_name)`: an iterator whose
    /// [`initializer`](Iterator::initializer) (re)starts it; the dataset may read placeholders
    /// fed to that run.
    pub fn make_initializable_iterator(&self) -> Result<Iterator> {
        let it = Iterator::from_structure(self.graph(), &self.dtypes, &self.shapes)?
            .with_sparse(self.sparse.clone());
        let init = it.make_initializer(self)?;
        Ok(it.with_initializer(init))
    }
}

/// InvalidArgument when `sparse` marks a sparse component: `what` takes dense ones only.
pub(super) fn dense_only(sparse: &[Option<SparseSpec>], what: &str) -> Result<()> {
    match sparse.iter().position(Option::is_some) {
        None => Ok(()),
        Some(i) => Err(Error::invalid_argument(format!(
            "{what}: component {i} of the elements is a SparseTensor, which {what} does not \
             take here; read it with the *_components methods (map_components, \
             get_next_components, ...)"
        ))),
    }
}

fn types_of(outputs: &[Output]) -> Vec<DType> {
    outputs.iter().map(|o| o.dtype()).collect()
}

/// `s` with a leading batch dimension `dim`.
fn batched(s: &Shape, dim: Option<usize>) -> Shape {
    match s.dims() {
        Some(d) => {
            let mut v = Vec::with_capacity(d.len() + 1);
            v.push(dim);
            v.extend_from_slice(d);
            Shape::new(v)
        }
        None => Shape::unknown(),
    }
}

/// The name of a placeholder `out` depends on, if any.
fn placeholder_ancestor(out: &Output) -> Option<String> {
    let g = out.graph();
    let mut stack = vec![out.node_id()];
    let mut seen = std::collections::HashSet::new();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let node = g.node(id);
        if node.op_type() == "Placeholder" {
            return Some(node.name().to_string());
        }
        stack.extend(node.inputs().iter().map(|&(n, _)| n));
        stack.extend(node.control_inputs().iter().copied());
    }
    None
}
