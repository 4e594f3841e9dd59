//! `MapAndBatchDataset` (`tf.data.experimental.map_and_batch`): `map` followed by `batch`,
//! fused into one op whose iterator calls the function on up to `num_parallel_calls` elements
//! at once and stacks each `batch_size` of results.
//!
//! The iterator is a parallel map's ([`ParallelMapIter`], at most one thread per core, in
//! input order) whose results it takes `batch_size` at a time. As in
//! TensorFlow, a batch with a failed element (an input error, the function's error, an element
//! whose number of values differs from the batch's first) fails as a whole with the error of
//! its earliest failed element, even a last batch that `drop_remainder` would drop, and reading
//! goes on with the next batch. Threads start at the first `get_next` and stop when the
//! iterator is dropped; a call already running finishes first.

use std::sync::Arc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, AttrKind, AttrValue, DType, Error, Kernel, OpContext, Output, Result};

use super::batch::{check_stackable, stack_elements};
use super::function::{build_function, BoundFunction, BuiltFunction, FunctionAttr};
use super::map::function_dataset_def;
use super::parallel_map::{cores, ParallelMapIter};
use super::structure::{Component, SparseSpec};
use super::{
    dataset_tensor, input_dataset, output_dtypes, Dataset, DatasetBase, Element, IteratorBase,
    IteratorContext, AUTOTUNE,
};

/// The worker threads one iterator runs at most.
const MAX_THREADS: usize = 64;

/// The options of [`Dataset::map_and_batch`]: `tf.data.experimental.map_and_batch(map_func,
/// batch_size, num_parallel_batches=None, drop_remainder=False, num_parallel_calls=None)`.
/// `Default` is TensorFlow's defaults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MapAndBatchOptions {
    /// `num_parallel_batches`: batches to make at once, `batch_size * num_parallel_batches`
    /// calls. Only one of this and `num_parallel_calls` may be set.
    pub num_parallel_batches: Option<i64>,
    /// `drop_remainder`: drop a last batch smaller than `batch_size` (and make the batch
    /// dimension static).
    pub drop_remainder: bool,
    /// `num_parallel_calls`: calls of the function at once ([`AUTOTUNE`]: one per core);
    /// `batch_size` when neither this nor `num_parallel_batches` is set.
    pub num_parallel_calls: Option<i64>,
}

impl MapAndBatchOptions {
    /// Sets `num_parallel_batches`.
    pub fn num_parallel_batches(mut self, n: i64) -> MapAndBatchOptions {
        self.num_parallel_batches = Some(n);
        self
    }

    /// Sets `drop_remainder`.
    pub fn drop_remainder(mut self, drop: bool) -> MapAndBatchOptions {
        self.drop_remainder = drop;
        self
    }

    /// Sets `num_parallel_calls`.
    pub fn num_parallel_calls(mut self, n: i64) -> MapAndBatchOptions {
        self.num_parallel_calls = Some(n);
        self
    }
}

impl Dataset {
    /// `dataset.apply(tf.data.experimental.map_and_batch(f, batch_size, ...))`: each element
    /// passed through `f` (as in [`map`](Dataset::map)) and `batch_size` consecutive results
    /// stacked along a new first dimension (as in [`batch_with`](Dataset::batch_with)), in one
    /// op, `MapAndBatchDataset`, that runs up to `num_parallel_calls` calls of `f` at once.
    /// Values, static shapes and errors are those of `map` then `batch`, except that a failed
    /// element fails its whole batch (see the module's notes). Setting both
    /// `num_parallel_batches` and `num_parallel_calls` fails here, as TensorFlow's Python does; a
    /// `batch_size` or `num_parallel_calls` below 1 (other than [`AUTOTUNE`]) fails when the
    /// dataset is made.
    ///
    /// ```
    /// use weir_graph::{Graph, Shape};
    /// use weir_ops::data::{Dataset, MapAndBatchOptions};
    /// use weir_ops::math::mul;
    ///
    /// let g = Graph::new();
    /// let two = weir_ops::array::constant(&g, 2i64)?;
    /// let ds = Dataset::range(&g, 0, 7, 1)?.map_and_batch(
    ///     |x| Ok(vec![mul(&x[0], &two)?]),
    ///     3,
    ///     MapAndBatchOptions::default().drop_remainder(true),
    /// )?;
    /// assert_eq!(ds.handle().op().op_type(), "MapAndBatchDataset");
    /// assert_eq!(ds.output_shapes(), &[Shape::known(&[3])]);
    /// // In a session: [0, 2, 4], [6, 8, 10], then OutOfRange (the [12] is dropped).
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn map_and_batch(
        &self,
        f: impl FnOnce(&[Output]) -> Result<Vec<Output>>,
        batch_size: i64,
        options: MapAndBatchOptions,
    ) -> Result<Dataset> {
        self.dense_only("dataset.map_and_batch")?;
        let func = build_function(
            self.graph(),
            "map_and_batch",
            self.output_types(),
            self.output_shapes(),
            f,
        )?;
        self.map_and_batch_dataset(func, Vec::new(), batch_size, options)
    }

    /// [`map_and_batch`](Self::map_and_batch) for elements that may hold sparse tensors: `f`
    /// reads and returns [`Component`]s, as [`map_components`](Self::map_components)'s does,
    /// and a sparse result is batched as `batch` batches one (the largest dense shape).
    pub fn map_and_batch_components(
        &self,
        f: impl FnOnce(&[Component]) -> Result<Vec<Component>>,
        batch_size: i64,
        options: MapAndBatchOptions,
    ) -> Result<Dataset> {
        let (func, sparse) = self.component_function("map_and_batch", f)?;
        self.map_and_batch_dataset(func, sparse, batch_size, options)
    }

    /// The `MapAndBatchDataset` of the built function `func`, whose results `sparse` marks
    /// (empty: all dense).
    fn map_and_batch_dataset(
        &self,
        func: BuiltFunction,
        sparse: Vec<Option<SparseSpec>>,
        batch_size: i64,
        options: MapAndBatchOptions,
    ) -> Result<Dataset> {
        let calls = match (options.num_parallel_batches, options.num_parallel_calls) {
            (None, None) => batch_size,
            (Some(b), None) => batch_size.checked_mul(b).ok_or_else(|| {
                Error::invalid_argument(format!(
                    "batch_size * num_parallel_batches overflows int64: {batch_size} * {b}"
                ))
            })?,
            (None, Some(c)) => c,
            (Some(b), Some(c)) => {
                return Err(Error::invalid_argument(format!(
                    "`map_and_batch` allows only one of `num_parallel_batches` and \
                     `num_parallel_calls` to be set, but `num_parallel_batches` was set to {b} \
                     and `num_parallel_calls` as set to {c}."
                )))
            }
        };
        let g = self.graph();
        let dim = (options.drop_remainder && batch_size > 0).then_some(batch_size as usize);
        let dtypes: Vec<DType> = func.results.iter().map(Output::dtype).collect();
        let shapes = func
            .results
            .iter()
            .map(|r| r.shape().with_leading(dim))
            .collect();
        let batch_size = crate::array::constant_named(g, batch_size, "batch_size")?;
        let calls = crate::array::constant_named(g, calls, "num_parallel_calls")?;
        let drop = crate::array::constant_named(g, options.drop_remainder, "drop_remainder")?;
        let b = crate::new_op(g, "MapAndBatchDataset")
            .input(self.handle())
            .inputs(func.captured.iter().cloned())
            .attr(
                "Targuments",
                func.captured.iter().map(Output::dtype).collect::<Vec<_>>(),
            )
            .input(batch_size)
            .input(calls)
            .input(drop)
            .attr("preserve_cardinality", true);
        let ds = Dataset::build(func.attrs(b, "f"), dtypes, shapes)?;
        if sparse.is_empty() {
            return Ok(ds);
        }
        let sparse = sparse
            .into_iter()
            .map(|sp| {
                sp.map(|sp| SparseSpec {
                    dtype: sp.dtype,
                    shape: sp.shape.with_leading(dim),
                })
            })
            .collect();
        Ok(ds.with_sparse(sparse))
    }
}

/// The elements of `input` passed through `f`, `batch_size` at a time.
struct MapAndBatch {
    input: Arc<dyn DatasetBase>,
    f: BoundFunction,
    dtypes: Vec<DType>,
    batch_size: usize,
    drop_remainder: bool,
    calls: usize,
    preserve_cardinality: bool,
}

impl DatasetBase for MapAndBatch {
    fn cardinality(&self) -> i64 {
        super::batch::batched_cardinality(
            self.input.cardinality(),
            self.batch_size,
            self.drop_remainder,
        )
    }

    fn output_dtypes(&self) -> &[DType] {
        &self.dtypes
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        let threads = self.calls.min(cores()).clamp(1, MAX_THREADS);
        // Room for the batch being taken and the next one being made.
        let capacity = self.calls.max(self.batch_size).saturating_mul(2);
        Ok(Box::new(MapAndBatchIter {
            mapped: ParallelMapIter::new(
                self.input.make_iterator()?,
                Some(self.f.clone()),
                capacity,
                threads,
                true,
            ),
            batch_size: self.batch_size,
            drop_remainder: self.drop_remainder,
            preserve_cardinality: self.preserve_cardinality,
        }))
    }
}

/// A parallel map's results, `batch_size` at a time.
struct MapAndBatchIter {
    mapped: ParallelMapIter,
    batch_size: usize,
    drop_remainder: bool,
    preserve_cardinality: bool,
}

impl IteratorBase for MapAndBatchIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        let mut batch = Vec::with_capacity(self.batch_size);
        let mut taken = 0;
        let mut error: Option<Error> = None;
        while taken < self.batch_size {
            match self.mapped.get_next(ctx) {
                Ok(Some(e)) => {
                    if error.is_none() {
                        batch.push(e);
                    }
                }
                Ok(None) => break,
                // The run's own end is not an element's error: the batch is not taken.
                Err(e) if ctx.check().is_err() => return Err(e),
                Err(e) => {
                    error.get_or_insert_with(|| {
                        if self.preserve_cardinality && e.is_out_of_range() {
                            Error::invalid_argument(format!(
                                "Function invocation produced OutOfRangeError: {}",
                                e.message()
                            ))
                        } else {
                            e
                        }
                    });
                }
            }
            taken += 1;
        }
        if let Some(e) = error {
            check_stackable(&batch)?;
            return Err(e);
        }
        if taken == 0 || (self.drop_remainder && taken < self.batch_size) {
            return Ok(None);
        }
        check_stackable(&batch)?;
        stack_elements(&batch).map(Some)
    }
}

struct MapAndBatchKernel {
    f: FunctionAttr,
    preserve_cardinality: bool,
}

impl Kernel for MapAndBatchKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = input_dataset(ctx, 0)?;
        let n = ctx.inputs().len();
        if n < 4 {
            return Err(Error::invalid_argument(format!(
                "{} has {n} inputs; MapAndBatchDataset needs at least 4",
                ctx.node().name()
            )));
        }
        let captured = ctx.inputs()[1..n - 3].to_vec();
        let batch_size = ctx.input(n - 3).to_scalar::<i64>()?;
        if batch_size <= 0 {
            return Err(Error::invalid_argument(
                "batch_size must be greater than zero.",
            ));
        }
        let calls = match ctx.input(n - 2).to_scalar::<i64>()? {
            AUTOTUNE => cores(),
            c if c > 0 => usize::try_from(c).unwrap_or(usize::MAX),
            _ => {
                return Err(Error::invalid_argument(
                    "num_parallel_calls must be greater than zero.",
                ))
            }
        };
        let drop_remainder = ctx.input(n - 1).to_scalar::<bool>()?;
        let ds = MapAndBatch {
            input,
            f: BoundFunction::new(self.f.get(ctx)?, captured),
            dtypes: output_dtypes(ctx.node())?,
            batch_size: usize::try_from(batch_size).unwrap_or(usize::MAX),
            drop_remainder,
            calls,
            preserve_cardinality: self.preserve_cardinality,
        };
        ctx.set_output(0, dataset_tensor(Arc::new(ds)));
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        function_dataset_def("MapAndBatchDataset", "f")
            .input("batch_size", ArgType::Fixed(DType::I64))
            .input("num_parallel_calls", ArgType::Fixed(DType::I64))
            .input("drop_remainder", ArgType::Fixed(DType::Bool))
            .attr(
                "preserve_cardinality",
                AttrKind::Bool,
                Some(AttrValue::Bool(false)),
            ),
    );
    register_kernel("MapAndBatchDataset", |node| {
        Ok(Box::new(MapAndBatchKernel {
            f: FunctionAttr::from_node(node, "f")?,
            preserve_cardinality: node.attr("preserve_cardinality")?,
        }))
    });
}
