//! Datasets that combine or reshape others: `ZipDataset` (`Dataset.zip`, `Dataset.enumerate`),
//! `ConcatenateDataset` (`Dataset.concatenate`), `UnbatchDataset` (`Dataset.unbatch`) and, in
//! `padded`, `PaddedBatchDatasetV2` (`Dataset.padded_batch`).

mod padded;

use std::sync::Arc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, DType, Error, Kernel, OpContext, Result, Shape, Tensor};

use super::function::build_function;
use super::structure::{ComponentSpec, SparseSpec};
use crate::sparse::{deserialize_sparse, serialize_many_sparse};

use super::{
    dataset_def, dataset_tensor, input_dataset, output_dtypes, Dataset, DatasetBase, Element,
    IteratorBase, IteratorContext, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY,
};

/// The elements of several datasets side by side, until the shortest ends.
struct Zip {
    inputs: Vec<Arc<dyn DatasetBase>>,
    dtypes: Vec<DType>,
}

impl DatasetBase for Zip {
    fn cardinality(&self) -> i64 {
        // The shortest input, an endless one counting as longest.
        let mut n = INFINITE_CARDINALITY;
        for input in &self.inputs {
            match input.cardinality() {
                UNKNOWN_CARDINALITY => return UNKNOWN_CARDINALITY,
                INFINITE_CARDINALITY => {}
                c if n == INFINITE_CARDINALITY => n = c,
                c => n = n.min(c),
            }
        }
        n
    }

    fn output_dtypes(&self) -> &[DType] {
        &self.dtypes
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        let inputs = self
            .inputs
            .iter()
            .map(|d| d.make_iterator())
            .collect::<Result<Vec<_>>>()?;
        Ok(Box::new(ZipIter(inputs)))
    }
}

/// The inputs' iterators; empty once one has ended.
struct ZipIter(Vec<Box<dyn IteratorBase>>);

impl IteratorBase for ZipIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        if self.0.is_empty() {
            return Ok(None);
        }
        let mut out = Vec::new();
        for it in &mut self.0 {
            // As TensorFlow 2.21: the first input to end ends the zip, and the inputs after it
            // are not advanced.
            match it.get_next(ctx)? {
                Some(e) => out.extend(e),
                None => {
                    self.0.clear();
                    return Ok(None);
                }
            }
        }
        Ok(Some(out))
    }
}

struct ZipKernel;

impl Kernel for ZipKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let inputs = (0..ctx.inputs().len())
            .map(|i| input_dataset(ctx, i))
            .collect::<Result<Vec<_>>>()?;
        let dtypes = output_dtypes(ctx.node())?;
        let got: Vec<DType> = inputs
            .iter()
            .flat_map(|d| d.output_dtypes().iter().copied())
            .collect();
        if got != dtypes {
            return Err(Error::invalid_argument(format!(
                "The zipped datasets have output_types {} but the op's output_types are {}",
                dtype_list(&got),
                dtype_list(&dtypes)
            )));
        }
        ctx.set_output(0, dataset_tensor(Arc::new(Zip { inputs, dtypes })));
        Ok(())
    }
}

/// One dataset's elements, then another's.
struct Concatenate {
    first: Arc<dyn DatasetBase>,
    second: Arc<dyn DatasetBase>,
}

impl DatasetBase for Concatenate {
    fn cardinality(&self) -> i64 {
        let (a, b) = (self.first.cardinality(), self.second.cardinality());
        if a == INFINITE_CARDINALITY || b == INFINITE_CARDINALITY {
            INFINITE_CARDINALITY
        } else if a == UNKNOWN_CARDINALITY || b == UNKNOWN_CARDINALITY {
            UNKNOWN_CARDINALITY
        } else {
            a.saturating_add(b)
        }
    }

    fn output_dtypes(&self) -> &[DType] {
        self.first.output_dtypes()
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(ConcatenateIter {
            current: Some(self.first.make_iterator()?),
            second: Some(self.second.clone()),
        }))
    }
}

struct ConcatenateIter {
    /// `None` once both inputs have ended.
    current: Option<Box<dyn IteratorBase>>,
    /// The dataset to read after the current one, until it is started.
    second: Option<Arc<dyn DatasetBase>>,
}

impl IteratorBase for ConcatenateIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        while let Some(it) = self.current.as_mut() {
            if let Some(e) = it.get_next(ctx)? {
                return Ok(Some(e));
            }
            self.current = match self.second.take() {
                Some(d) => Some(d.make_iterator()?),
                None => None,
            };
        }
        Ok(None)
    }
}

struct ConcatenateKernel;

impl Kernel for ConcatenateKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let first = input_dataset(ctx, 0)?;
        let second = input_dataset(ctx, 1)?;
        if first.output_dtypes() != second.output_dtypes() {
            return Err(Error::invalid_argument(format!(
                "input dataset and dataset to concatenate have different output_types {} and {}",
                dtype_list(first.output_dtypes()),
                dtype_list(second.output_dtypes())
            )));
        }
        ctx.set_output(0, dataset_tensor(Arc::new(Concatenate { first, second })));
        Ok(())
    }
}

/// Each element of the input split along its first dimension.
struct Unbatch {
    input: Arc<dyn DatasetBase>,
}

impl DatasetBase for Unbatch {
    fn output_dtypes(&self) -> &[DType] {
        self.input.output_dtypes()
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(UnbatchIter {
            input: Some(self.input.make_iterator()?),
            batch: Vec::new(),
            rows: 0,
            next: 0,
        }))
    }
}

struct UnbatchIter {
    /// `None` once the input has ended.
    input: Option<Box<dyn IteratorBase>>,
    /// The input element being split, `rows` rows of which `next` comes next.
    batch: Element,
    rows: usize,
    next: usize,
}

impl IteratorBase for UnbatchIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        let mut empty_batches = 0u32;
        while self.next >= self.rows {
            let Some(input) = self.input.as_mut() else {
                return Ok(None);
            };
            self.batch.clear();
            (self.rows, self.next) = (0, 0);
            let Some(batch) = input.get_next(ctx)? else {
                self.input = None;
                return Ok(None);
            };
            self.rows = batch_rows(&batch)?;
            self.batch = batch;
            empty_batches += 1;
            if empty_batches % 1024 == 0 {
                ctx.check()?;
            }
        }
        let i = self.next;
        self.next += 1;
        self.batch
            .iter()
            .map(|t| t.index_axis0(i))
            .collect::<Result<Vec<_>>>()
            .map(Some)
    }
}

/// The first dimension every component of `batch` shares, in TensorFlow's words when they do
/// not.
fn batch_rows(batch: &[Tensor]) -> Result<usize> {
    let Some(first) = batch.first() else {
        return Ok(0);
    };
    let mut rows = 0;
    for (i, t) in batch.iter().enumerate() {
        let Some(&n) = t.shape().first() else {
            return Err(Error::invalid_argument(
                "Input element must have a non-scalar value in each component.",
            ));
        };
        if i == 0 {
            rows = n;
        } else if n != rows {
            return Err(Error::invalid_argument(format!(
                "Input element must have the same batch size in each component. Component 0 \
                 had size {} but component {i} had size, {n}.",
                first.shape()[0]
            )));
        }
    }
    Ok(rows)
}

struct UnbatchKernel;

impl Kernel for UnbatchKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = input_dataset(ctx, 0)?;
        ctx.set_output(0, dataset_tensor(Arc::new(Unbatch { input })));
        Ok(())
    }
}

/// `[int64, string]`, as TensorFlow's `DataTypeVectorString`.
fn dtype_list(d: &[DType]) -> String {
    let names: Vec<String> = d.iter().map(|d| d.to_string()).collect();
    format!("[{}]", names.join(", "))
}

/// An element's components as Python prints a dataset's `element_spec`:
/// `TensorSpec(shape=(), dtype=tf.int64, name=None)`, or a tuple of them.
fn element_spec(dtypes: &[DType], shapes: &[Shape]) -> String {
    let specs: Vec<String> = dtypes
        .iter()
        .zip(shapes)
        .map(|(d, s)| {
            format!(
                "TensorSpec(shape={}, dtype=tf.{}, name=None)",
                s.python_str(),
                d.python_name()
            )
        })
        .collect();
    match specs.as_slice() {
        [one] => one.clone(),
        _ => format!("({})", specs.join(", ")),
    }
}

/// The most specific shape both `a` and `b` have (TensorFlow's
/// `most_specific_common_supertype`): dimensions that differ become unknown, and so does the
/// rank when the ranks differ.
fn common_supertype(a: &Shape, b: &Shape) -> Shape {
    match (a.dims(), b.dims()) {
        (Some(x), Some(y)) if x.len() == y.len() => Shape::new(
            x.iter()
                .zip(y)
                .map(|(p, q)| if p == q { *p } else { None })
                .collect::<Vec<_>>(),
        ),
        _ => Shape::unknown(),
    }
}

impl Dataset {
    /// `tf.data.Dataset.zip((a, b, ...))`: the datasets' elements side by side, their
    /// components one after the other, until the shortest dataset ends (op `ZipDataset`).
    ///
    /// ```
    /// use weir_graph::{Graph, Shape, Tensor};
    /// use weir_ops::array::constant;
    /// use weir_ops::data::Dataset;
    ///
    /// let g = Graph::new();
    /// let a = Dataset::range(&g, 0, 5, 1)?;
    /// let b = Dataset::from_tensor_slices(&[constant(&g, Tensor::from_strings(&["x", "y"]))?])?;
    /// let z = Dataset::zip(&[a, b])?;
    /// assert_eq!(z.output_shapes(), &[Shape::scalar(), Shape::scalar()]);
    /// // In a session: (0, "x"), (1, "y"), then OutOfRange "End of sequence".
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn zip(datasets: &[Dataset]) -> Result<Dataset> {
        let Some(first) = datasets.first() else {
            return Err(Error::invalid_argument(
                "Must pass at least one dataset to `zip`.",
            ));
        };
        let mut dtypes = Vec::new();
        let mut shapes = Vec::new();
        let mut sparse = Vec::new();
        for d in datasets {
            dtypes.extend_from_slice(d.output_types());
            shapes.extend_from_slice(d.output_shapes());
            sparse.extend_from_slice(d.sparse_specs());
        }
        Ok(Dataset::build(
            crate::new_op(first.graph(), "ZipDataset")
                .inputs(datasets.iter().map(|d| d.handle().clone())),
            dtypes,
            shapes,
        )?
        .with_sparse(sparse))
    }

    /// `dataset.concatenate(other)`: this dataset's elements, then `other`'s (op
    /// `ConcatenateDataset`). The dtypes must be the same; each static shape is the most
    /// specific one both datasets' shapes fit.
    ///
    /// ```
    /// use weir_graph::{Graph, Shape};
    /// use weir_ops::data::Dataset;
    ///
    /// let g = Graph::new();
    /// let ds = Dataset::range(&g, 0, 3, 1)?.concatenate(&Dataset::range(&g, 10, 12, 1)?)?;
    /// assert_eq!(ds.output_shapes(), &[Shape::scalar()]);
    /// // In a session: 0, 1, 2, 10, 11, then OutOfRange "End of sequence".
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn concatenate(&self, other: &Dataset) -> Result<Dataset> {
        let (mine, theirs) = (self.element_spec(), other.element_spec());
        if self.output_types() != other.output_types()
            || mine
                .iter()
                .zip(&theirs)
                .any(|(a, b)| a.is_sparse() != b.is_sparse() || a.dtype() != b.dtype())
        {
            return Err(Error::invalid_argument(format!(
                "Incompatible dataset elements:\n  {} vs.   {}",
                element_spec(self.output_types(), self.output_shapes()),
                element_spec(other.output_types(), other.output_shapes())
            )));
        }
        let shapes = self
            .output_shapes()
            .iter()
            .zip(other.output_shapes())
            .map(|(a, b)| common_supertype(a, b))
            .collect();
        let sparse = mine
            .iter()
            .zip(&theirs)
            .map(|(a, b)| match (a, b) {
                (
                    ComponentSpec::Sparse { dtype, shape },
                    ComponentSpec::Sparse { shape: s2, .. },
                ) => Some(SparseSpec {
                    dtype: *dtype,
                    shape: common_supertype(shape, s2),
                }),
                _ => None,
            })
            .collect();
        Ok(Dataset::build(
            crate::new_op(self.graph(), "ConcatenateDataset")
                .input(self.handle())
                .input(other.handle()),
            self.output_types().to_vec(),
            shapes,
        )?
        .with_sparse(sparse))
    }

    /// `dataset.unbatch()`: each element split along its first dimension into as many
    /// elements, which every component must share (op `UnbatchDataset`).
    ///
    /// ```
    /// use weir_graph::{Graph, Shape};
    /// use weir_ops::data::Dataset;
    ///
    /// let g = Graph::new();
    /// let ds = Dataset::range(&g, 0, 7, 1)?.batch(3)?.unbatch()?;
    /// assert_eq!(ds.output_shapes(), &[Shape::scalar()]);
    /// // In a session: 0, 1, ..., 6, then OutOfRange "End of sequence".
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn unbatch(&self) -> Result<Dataset> {
        let spec = self.element_spec();
        if spec
            .iter()
            .any(|c| c.is_sparse() && c.shape().rank() == Some(0))
        {
            return Err(Error::invalid_argument(
                "Unbatching a sparse tensor is only supported for rank >= 1",
            ));
        }
        if spec.iter().any(|c| c.shape().rank() == Some(0)) {
            return Err(Error::invalid_argument(
                "Cannot unbatch an input with scalar components.",
            ));
        }
        let mut known: Option<usize> = None;
        for s in spec.iter().map(ComponentSpec::shape) {
            if let Some(n) = s.dim(0) {
                match known {
                    Some(k) if k != n => {
                        return Err(Error::invalid_argument(format!(
                            "`unbatch()` is only supported for datasets of elements whose \
                             components have a matching leading dimension. Encountered both \
                             {k} and {n}."
                        )))
                    }
                    _ => known = Some(n),
                }
            }
        }
        let row = |s: &Shape| match s.dims() {
            Some(d) => Shape::new(d[1..].to_vec()),
            None => Shape::unknown(),
        };
        let input = self.sparse_rows()?;
        let rows = input.output_shapes().iter().map(row).collect();
        let sparse = self
            .sparse_specs()
            .iter()
            .map(|sp| {
                sp.as_ref().map(|sp| SparseSpec {
                    dtype: sp.dtype,
                    shape: row(&sp.shape),
                })
            })
            .collect();
        Ok(Dataset::build(
            crate::new_op(self.graph(), "UnbatchDataset").input(input.handle()),
            self.output_types().to_vec(),
            rows,
        )?
        .with_sparse(sparse))
    }

    /// This dataset with each sparse component encoded row by row (`[rows, 3]`, by
    /// `SerializeManySparse`), so that slicing the encoding along its first dimension slices
    /// the sparse tensor; itself when it has none. TensorFlow's `normalize_to_dense`, which
    /// its `unbatch` applies first: each row gets the dense shape of the whole after the first
    /// dimension, however the rows were batched.
    fn sparse_rows(&self) -> Result<Dataset> {
        if self.sparse_specs().iter().all(Option::is_none) {
            return Ok(self.clone());
        }
        let sparse = self.sparse_specs().to_vec();
        let func = build_function(
            self.graph(),
            "normalize_to_dense",
            self.output_types(),
            self.output_shapes(),
            |args| {
                args.iter()
                    .zip(&sparse)
                    .map(|(a, sp)| match sp {
                        None => Ok(a.clone()),
                        Some(sp) => serialize_many_sparse(&deserialize_sparse(a, sp.dtype)?),
                    })
                    .collect()
            },
        )?;
        Ok(self
            .function_dataset("MapDataset", "f", func)?
            .with_sparse(sparse))
    }

    /// `dataset.enumerate(start)`: each element after its int64 index, counting from `start`
    /// (TensorFlow builds it as a zip of `Dataset.range(start, int64 max)` and the dataset).
    ///
    /// ```
    /// use weir_graph::{DType, Graph, Tensor};
    /// use weir_ops::array::constant;
    /// use weir_ops::data::Dataset;
    ///
    /// let g = Graph::new();
    /// let words = constant(&g, Tensor::from_strings(&["a", "b"]))?;
    /// let ds = Dataset::from_tensor_slices(&[words])?.enumerate(5)?;
    /// assert_eq!(ds.output_types(), &[DType::I64, DType::String]);
    /// // In a session: (5, "a"), (6, "b"), then OutOfRange "End of sequence".
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn enumerate(&self, start: i64) -> Result<Dataset> {
        let range = Dataset::range(self.graph(), start, i64::MAX, 1)?;
        Dataset::zip(&[range, self.clone()])
    }
}

pub(super) fn register() {
    register_op(
        dataset_def("ZipDataset")
            .input(
                "input_datasets",
                ArgType::RepeatedFixed {
                    count: "N",
                    dtype: DType::Resource,
                },
            )
            .int_attr_min("N", 1),
    );
    register_kernel("ZipDataset", |_| Ok(Box::new(ZipKernel)));
    register_op(
        dataset_def("ConcatenateDataset")
            .input("input_dataset", ArgType::Fixed(DType::Resource))
            .input("another_dataset", ArgType::Fixed(DType::Resource)),
    );
    register_kernel("ConcatenateDataset", |_| Ok(Box::new(ConcatenateKernel)));
    register_op(
        dataset_def("UnbatchDataset").input("input_dataset", ArgType::Fixed(DType::Resource)),
    );
    register_kernel("UnbatchDataset", |_| Ok(Box::new(UnbatchKernel)));
    padded::register();
}
