//! The graph side of `tf.data`: [`Dataset`] (`tf.data.Dataset`) and [`Iterator`]
//! (`tf.compat.v1.data.Iterator`).

use weir_graph::{DType, Error, Graph, OpBuilder, Operation, Output, Result, Shape};

use super::function::{build_function, BuiltFunction};

/// A dataset in a graph: TensorFlow's `tf.data.Dataset`. Each method adds the op of a new
/// dataset; nothing is read until an iterator made from it runs.
///
/// An element is a list of components (TensorFlow's tuple structure), each with a dtype and
/// a static shape.
#[derive(Clone, Debug)]
pub struct Dataset {
    handle: Output,
    dtypes: Vec<DType>,
    shapes: Vec<Shape>,
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
        Ok(Dataset {
            handle: op.output(0)?,
            dtypes,
            shapes,
        })
    }

    /// The dataset behind `handle`, a dataset handle made elsewhere (a window, a function's
    /// argument), with the element structure it has.
    pub(crate) fn from_handle(handle: Output, dtypes: Vec<DType>, shapes: Vec<Shape>) -> Dataset {
        Dataset {
            handle,
            dtypes,
            shapes,
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

    /// The dtype of each component (`output_types`).
    pub fn output_types(&self) -> &[DType] {
        &self.dtypes
    }

    /// The static shape of each component (`output_shapes`).
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
    pub fn range(g: &Graph, start: i64, stop: i64, step: i64) -> Result<Dataset> {
        let c = |v: i64| crate::array::constant(g, v);
        Dataset::build(
            crate::new_op(g, "RangeDataset")
                .input(c(start)?)
                .input(c(stop)?)
                .input(c(step)?),
            vec![DType::I64],
            vec![Shape::scalar()],
        )
    }

    fn function(
        &self,
        name: &str,
        f: impl FnOnce(&[Output]) -> Result<Vec<Output>>,
    ) -> Result<BuiltFunction> {
        build_function(self.graph(), name, &self.dtypes, &self.shapes, f)
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
        let p = &func.results[0];
        if p.dtype() != DType::Bool || p.shape().rank() != Some(0) {
            return Err(Error::invalid_argument(format!(
                "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its \
                 return type is TensorSpec(shape={}, dtype=tf.{}, name=None).",
                python_shape(&p.shape()),
                p.dtype().python_name()
            )));
        }
        let (dtypes, shapes) = (self.dtypes.clone(), self.shapes.clone());
        let b = self
            .op("FilterDataset")
            .inputs(func.captured.iter().cloned())
            .attr("Targuments", types_of(&func.captured));
        Dataset::build(func.attrs(b, "predicate"), dtypes, shapes)
    }

    fn function_dataset(&self, op: &str, prefix: &str, func: BuiltFunction) -> Result<Dataset> {
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
    pub fn batch(&self, batch_size: i64) -> Result<Dataset> {
        self.batch_with(batch_size, false)
    }

    /// `dataset.batch(batch_size, drop_remainder)`: with `drop_remainder`, a last batch smaller
    /// than `batch_size` is dropped and the batch dimension is static.
    pub fn batch_with(&self, batch_size: i64, drop_remainder: bool) -> Result<Dataset> {
        let dim = (drop_remainder && batch_size > 0).then_some(batch_size as usize);
        let size = crate::array::constant(self.graph(), batch_size)?;
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
        Dataset::build(
            self.op("BatchDatasetV2")
                .input(batch_size)
                .input(crate::array::constant(self.graph(), drop_remainder)?),
            self.dtypes.clone(),
            shapes,
        )
    }

    fn counted(&self, op: &str, count: i64) -> Result<Dataset> {
        let c = crate::array::constant(self.graph(), count)?;
        Dataset::build(
            self.op(op).input(c),
            self.dtypes.clone(),
            self.shapes.clone(),
        )
    }

    /// `dataset.repeat(count)`: the elements `count` times over, forever with `None`
    /// (op `RepeatDataset`).
    pub fn repeat(&self, count: Option<i64>) -> Result<Dataset> {
        self.counted("RepeatDataset", count.unwrap_or(-1))
    }

    /// `dataset.skip(count)`: all but the first `count` elements; a negative count skips all
    /// (op `SkipDataset`).
    pub fn skip(&self, count: i64) -> Result<Dataset> {
        self.counted("SkipDataset", count)
    }

    /// `dataset.take(count)`: the first `count` elements; a negative count takes all
    /// (op `TakeDataset`).
    pub fn take(&self, count: i64) -> Result<Dataset> {
        self.counted("TakeDataset", count)
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
        Dataset::build(
            self.op("CacheDataset").input(filename),
            self.dtypes.clone(),
            self.shapes.clone(),
        )
    }

    /// `dataset.shard(num_shards, index)`: elements `index`, `index + num_shards`, ... (one
    /// worker's part of the input, op `ShardDataset`); bad arguments fail when the dataset is
    /// made, as in TensorFlow.
    pub fn shard(&self, num_shards: i64, index: i64) -> Result<Dataset> {
        let g = self.graph();
        Dataset::build(
            self.op("ShardDataset")
                .input(crate::array::constant(g, num_shards)?)
                .input(crate::array::constant(g, index)?),
            self.dtypes.clone(),
            self.shapes.clone(),
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
        Iterator::of_op(
            crate::new_op(g, "OneShotIterator")
                .attr("dataset_factory_feeds", Vec::<String>::new())
                .attr("dataset_factory_results", vec![self.handle.name()]),
            &self.dtypes,
            &self.shapes,
        )
    }

    /// `tf.compat.v1.data.make_initializable_iterator(dataset, shared_name)`: an iterator whose
    /// [`initializer`](Iterator::initializer) (re)starts it; the dataset may read placeholders
    /// fed to that run.
    pub fn make_initializable_iterator(&self) -> Result<Iterator> {
        let mut it = Iterator::from_structure(self.graph(), &self.dtypes, &self.shapes)?;
        it.initializer = Some(it.make_initializer(self)?);
        Ok(it)
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

/// An iterator over a dataset in a graph: TensorFlow's `tf.compat.v1.data.Iterator`.
#[derive(Clone, Debug)]
pub struct Iterator {
    handle: Output,
    initializer: Option<Operation>,
    dtypes: Vec<DType>,
    shapes: Vec<Shape>,
}

impl Iterator {
    /// `Iterator.from_structure(output_types, output_shapes)`: an iterator not bound to a
    /// dataset, which [`make_initializer`](Self::make_initializer) points at any dataset of
    /// that structure (op `IteratorV2`): one iterator for a training and a validation dataset.
    pub fn from_structure(g: &Graph, dtypes: &[DType], shapes: &[Shape]) -> Result<Iterator> {
        Iterator::of_op(
            crate::new_op(g, "IteratorV2").name("Iterator"),
            dtypes,
            shapes,
        )
    }

    /// The iterator that `b` (an op with a handle output) makes, of elements of `dtypes` and
    /// `shapes`.
    fn of_op(b: OpBuilder, dtypes: &[DType], shapes: &[Shape]) -> Result<Iterator> {
        if dtypes.len() != shapes.len() {
            return Err(Error::invalid_argument(format!(
                "{} output types and {} output shapes",
                dtypes.len(),
                shapes.len()
            )));
        }
        let op = b
            .attr("output_types", dtypes.to_vec())
            .attr("output_shapes", shapes.to_vec())
            .build()?;
        Ok(Iterator {
            handle: op.output(0)?,
            initializer: None,
            dtypes: dtypes.to_vec(),
            shapes: shapes.to_vec(),
        })
    }

    /// `Iterator.from_string_handle(string_handle, output_types, output_shapes)`: a feedable
    /// iterator that reads whichever iterator's [`string_handle`](Self::string_handle) is fed to
    /// `string_handle` in a run (op `IteratorFromStringHandleV2`): one `get_next` for a
    /// training and a validation iterator that each keep their place.
    pub fn from_string_handle(
        string_handle: &Output,
        dtypes: &[DType],
        shapes: &[Shape],
    ) -> Result<Iterator> {
        Iterator::of_op(
            crate::new_op(string_handle.graph(), "IteratorFromStringHandleV2").input(string_handle),
            dtypes,
            shapes,
        )
    }

    /// `iterator.string_handle()`: a string scalar naming this iterator, to feed to a
    /// [`from_string_handle`](Self::from_string_handle) iterator (op `IteratorToStringHandle`).
    pub fn string_handle(&self) -> Result<Output> {
        crate::new_op(self.handle.graph(), "IteratorToStringHandle")
            .input(&self.handle)
            .build()?
            .output(0)
    }

    /// The iterator's resource handle (`iterator._iterator_resource`).
    pub fn handle(&self) -> &Output {
        &self.handle
    }

    /// The initializer of an iterator made by
    /// [`make_initializable_iterator`](Dataset::make_initializable_iterator) (`iterator.initializer`).
    pub fn initializer(&self) -> Result<Operation> {
        self.initializer.clone().ok_or_else(|| {
            Error::invalid_argument(
                "This iterator has no initializer: it was made by make_one_shot_iterator or \
                 from_structure (use make_initializer)",
            )
        })
    }

    /// `iterator.make_initializer(dataset)`: an op that (re)starts the iterator at `dataset`'s
    /// first element (op `MakeIterator`). The dataset's types must be the iterator's, and its
    /// shapes compatible.
    pub fn make_initializer(&self, dataset: &Dataset) -> Result<Operation> {
        if dataset.dtypes != self.dtypes {
            return Err(Error::invalid_argument(format!(
                "Expected output types {} but got dataset with output types {}.",
                tf_types(&self.dtypes),
                tf_types(&dataset.dtypes)
            )));
        }
        if self
            .shapes
            .iter()
            .zip(&dataset.shapes)
            .any(|(want, got)| !want.is_compatible_with(got))
        {
            return Err(Error::invalid_argument(format!(
                "Expected output shapes compatible with {} but got dataset with output shapes {}.",
                tf_shapes(&self.shapes),
                tf_shapes(&dataset.shapes)
            )));
        }
        crate::new_op(self.handle.graph(), "MakeIterator")
            .input(&dataset.handle)
            .input(&self.handle)
            .build()
    }

    /// `iterator.get_next()`: the next element's components, one run at a time; OutOfRange
    /// "End of sequence" after the last (op `IteratorGetNext`).
    pub fn get_next(&self) -> Result<Vec<Output>> {
        let op = crate::new_op(self.handle.graph(), "IteratorGetNext")
            .input(&self.handle)
            .attr("output_types", self.dtypes.clone())
            .attr("output_shapes", self.shapes.clone())
            .build()?;
        op.outputs().into_iter().map(Ok).collect()
    }

    /// The dtype of each component.
    pub fn output_types(&self) -> &[DType] {
        &self.dtypes
    }

    /// The static shape of each component.
    pub fn output_shapes(&self) -> &[Shape] {
        &self.shapes
    }
}

/// A structure of dtypes as Python prints it: `tf.int64`, or `(tf.int64, tf.float32)`.
fn tf_types(d: &[DType]) -> String {
    python_structure(
        d.iter()
            .map(|d| format!("tf.{}", d.python_name()))
            .collect(),
    )
}

/// A structure of shapes as Python prints it: `TensorShape([2])`, or a tuple of them.
fn tf_shapes(s: &[Shape]) -> String {
    python_structure(
        s.iter()
            .map(|s| match s.dims() {
                None => "TensorShape(None)".to_string(),
                Some(_) => format!("TensorShape({})", python_list(s)),
            })
            .collect(),
    )
}

fn python_structure(items: Vec<String>) -> String {
    match items.as_slice() {
        [one] => one.clone(),
        _ => format!("({})", items.join(", ")),
    }
}

fn dim_strings(s: &Shape) -> Vec<String> {
    s.dims()
        .unwrap_or(&[])
        .iter()
        .map(|d| d.map_or("None".to_string(), |n| n.to_string()))
        .collect()
}

/// `[2, None]`.
fn python_list(s: &Shape) -> String {
    format!("[{}]", dim_strings(s).join(", "))
}

/// A shape as a Python tuple: `()`, `(1,)`, `(2, None)`; `None` when the rank is unknown.
fn python_shape(s: &Shape) -> String {
    if s.dims().is_none() {
        return "None".to_string();
    }
    match dim_strings(s).as_slice() {
        [one] => format!("({one},)"),
        d => format!("({})", d.join(", ")),
    }
}
