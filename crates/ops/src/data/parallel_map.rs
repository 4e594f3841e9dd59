//! `ParallelMapDatasetV2` (`Dataset.map` with `num_parallel_calls`), and in [`interleave`]
//! `InterleaveDataset` (`Dataset.interleave`) and `FlatMapDataset` (`Dataset.flat_map`).
//!
//! A parallel map's iterator owns its `num_parallel_calls` worker threads: each reserves a
//! place in a buffer of results (at least [`MIN_BUFFER`]), reads the next input element (one thread at a time), calls
//! the function with no lock held, and files the result under the element's position. The
//! consumer takes results in input order (or, with `deterministic = false`, the first finished
//! one). Threads start at the first `get_next` and stop when the iterator is dropped (a
//! re-initialization, the session's end); a call already running finishes first.

mod interleave;
mod legacy;
mod workers;

pub use interleave::InterleaveOptions;
pub use legacy::ParallelInterleaveOptions;
pub(crate) use workers::ParallelMapIter;

use std::sync::Arc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, Kernel, OpContext, Output, ResourceHandle, Result,
    Shape, Tensor,
};

use super::builders::Dataset;
use super::function::{build_function, BoundFunction, BuiltFunction, FunctionAttr};
use super::map::function_dataset_def;
use super::{
    dataset_tensor, input_dataset, output_dtypes, DatasetBase, DatasetResource, IteratorBase,
};

/// `tf.data.AUTOTUNE`: as `num_parallel_calls` or `cycle_length`, one per core here (TensorFlow
/// starts there and then tunes; weir does not tune).
pub const AUTOTUNE: i64 = -1;

/// The worker threads one parallel map's iterator runs at most; its buffer still holds
/// `num_parallel_calls` elements.
const MAX_THREADS: usize = 64;

/// Finished results a parallel map keeps ahead of its consumer at least, whatever
/// `num_parallel_calls` (which bounds only the calls running at once). Why: with a buffer of
/// `num_parallel_calls` (2 in TensorFlow's benchmark pipelines) every element handed a thread
/// wake-up to the other side, and context switches took half the time of a per-element
/// `map(parse) -> shuffle` pipeline (perf, tfdata_mnist_bytes_single).
const MIN_BUFFER: usize = 32;

/// The options of [`Dataset::map_with`]: `dataset.map(f, num_parallel_calls, deterministic)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MapOptions {
    /// `num_parallel_calls`: `None` calls `f` on the iterator's thread, one element at a time
    /// (op `MapDataset`); `Some(n)` runs up to `n` calls at once ([`AUTOTUNE`]: one per core).
    pub num_parallel_calls: Option<i64>,
    /// `deterministic`: `None` or `Some(true)` keeps the input order; `Some(false)` lets an
    /// element that finished early overtake the ones before it.
    pub deterministic: Option<bool>,
}

impl MapOptions {
    /// `num_parallel_calls=n`, deterministic.
    pub fn parallel(num_parallel_calls: i64) -> MapOptions {
        MapOptions {
            num_parallel_calls: Some(num_parallel_calls),
            deterministic: None,
        }
    }

    /// Sets `deterministic`.
    pub fn deterministic(mut self, deterministic: bool) -> MapOptions {
        self.deterministic = Some(deterministic);
        self
    }
}

/// The number of cores, what [`AUTOTUNE`] stands for.
pub(super) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn types_of(outputs: &[Output]) -> Vec<DType> {
    outputs.iter().map(|o| o.dtype()).collect()
}

/// `b` with the captured inputs of `func` and their `Targuments`.
fn with_captured(b: weir_graph::OpBuilder, func: &BuiltFunction) -> weir_graph::OpBuilder {
    b.inputs(func.captured.iter().cloned())
        .attr("Targuments", types_of(&func.captured))
}

impl Dataset {
    /// `dataset.map(f, num_parallel_calls=n)`: [`map`](Dataset::map) with up to `n` calls of
    /// `f` at once on the iterator's threads ([`AUTOTUNE`]: one per core); elements still come
    /// out in input order (op `ParallelMapDatasetV2`).
    ///
    /// ```
    /// use weir_graph::Graph;
    /// use weir_ops::data::{Dataset, AUTOTUNE};
    /// use weir_ops::math::mul;
    ///
    /// let g = Graph::new();
    /// let squares = Dataset::range(&g, 0, 100, 1)?
    ///     .map_parallel(|x| Ok(vec![mul(&x[0], &x[0])?]), AUTOTUNE)?;
    /// // In a session: 0, 1, 4, 9, ... in order, four calls at a time on four cores.
    /// assert_eq!(squares.output_types(), &[weir_graph::DType::I64]);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn map_parallel(
        &self,
        f: impl FnOnce(&[Output]) -> Result<Vec<Output>>,
        num_parallel_calls: i64,
    ) -> Result<Dataset> {
        self.map_with(f, MapOptions::parallel(num_parallel_calls))
    }

    /// `dataset.map(f, num_parallel_calls, deterministic)`: [`map`](Dataset::map) with
    /// TensorFlow's options; without `num_parallel_calls` it is the plain map (op `MapDataset`),
    /// with it op `ParallelMapDatasetV2`. A `num_parallel_calls` below 1 other than
    /// [`AUTOTUNE`] fails when the dataset is made, as in TensorFlow.
    ///
    /// ```
    /// use weir_graph::Graph;
    /// use weir_ops::data::{Dataset, MapOptions};
    /// use weir_ops::math::add;
    ///
    /// let g = Graph::new();
    /// let one = weir_ops::array::constant(&g, 1i64)?;
    /// let ds = Dataset::range(&g, 0, 10, 1)?.map_with(
    ///     |x| Ok(vec![add(&x[0], &one)?]),
    ///     MapOptions::parallel(4).deterministic(false),
    /// )?;
    /// // In a session: 1..=10, in whatever order the calls finish.
    /// assert_eq!(ds.handle().op().op_type(), "ParallelMapDatasetV2");
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn map_with(
        &self,
        f: impl FnOnce(&[Output]) -> Result<Vec<Output>>,
        options: MapOptions,
    ) -> Result<Dataset> {
        if options.num_parallel_calls.is_none() {
            return self.map(f);
        }
        self.dense_only("dataset.map")?;
        let func = build_function(
            self.graph(),
            "map",
            self.output_types(),
            self.output_shapes(),
            f,
        )?;
        self.parallel_map_dataset(options, func)
    }

    /// The dataset of the built map function `func` called as `options` say: a
    /// `ParallelMapDatasetV2`, or a `MapDataset` without `num_parallel_calls`.
    pub(crate) fn parallel_map_dataset(
        &self,
        options: MapOptions,
        func: BuiltFunction,
    ) -> Result<Dataset> {
        let Some(n) = options.num_parallel_calls else {
            return self.function_dataset("MapDataset", "f", func);
        };
        let g = self.graph();
        let dtypes = types_of(&func.results);
        let shapes: Vec<Shape> = func.results.iter().map(|r| r.shape()).collect();
        let deterministic = match options.deterministic {
            None => "default",
            Some(true) => "true",
            Some(false) => "false",
        };
        let b = with_captured(
            crate::new_op(g, "ParallelMapDatasetV2").input(self.handle()),
            &func,
        )
        .input(crate::array::constant(g, n)?)
        .attr("deterministic", deterministic);
        Dataset::build(func.attrs(b, "f"), dtypes, shapes)
    }
}

/// The dataset behind a dataset handle tensor, as a function that returns a dataset (an
/// `interleave`'s `map_func`) gives it.
pub(super) fn dataset_in(t: &Tensor) -> Result<Arc<dyn DatasetBase>> {
    let not_a_dataset = || {
        Error::invalid_argument(format!(
            "Expected a dataset handle, got a {} tensor of shape {:?}",
            t.dtype(),
            t.shape()
        ))
    };
    if t.dtype() != DType::Resource || t.num_elements() != 1 {
        return Err(not_a_dataset());
    }
    let handles = t.as_slice::<ResourceHandle>()?;
    let r = handles[0]
        .get::<DatasetResource>()
        .map_err(|_| not_a_dataset())?;
    Ok(r.0.clone())
}

/// The elements of `input` passed through `f`, up to `buffer` calls at once.
struct ParallelMap {
    input: Arc<dyn DatasetBase>,
    f: BoundFunction,
    dtypes: Vec<DType>,
    buffer: usize,
    deterministic: bool,
}

impl DatasetBase for ParallelMap {
    fn cardinality(&self) -> i64 {
        self.input.cardinality()
    }

    fn output_dtypes(&self) -> &[DType] {
        &self.dtypes
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(workers::ParallelMapIter::new(
            self.input.make_iterator()?,
            Some(self.f.clone()),
            self.buffer.max(MIN_BUFFER),
            self.buffer.min(MAX_THREADS),
            self.deterministic,
        )))
    }
}

struct ParallelMapKernel {
    f: FunctionAttr,
    deterministic: bool,
}

impl Kernel for ParallelMapKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = input_dataset(ctx, 0)?;
        let n = ctx.inputs().len();
        let captured = ctx.inputs()[1..n - 1].to_vec();
        let calls = ctx.input(n - 1).to_scalar::<i64>()?;
        let buffer = match calls {
            AUTOTUNE => cores(),
            c if c > 0 => usize::try_from(c).unwrap_or(usize::MAX),
            _ => {
                return Err(Error::invalid_argument(
                    "num_parallel_calls must be greater than zero.",
                ))
            }
        };
        let ds = ParallelMap {
            input,
            f: BoundFunction::new(self.f.get(ctx)?, captured),
            dtypes: output_dtypes(ctx.node())?,
            buffer,
            deterministic: self.deterministic,
        };
        ctx.set_output(0, dataset_tensor(Arc::new(ds)));
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        function_dataset_def("ParallelMapDatasetV2", "f")
            .input("num_parallel_calls", ArgType::Fixed(DType::I64))
            .attr(
                "deterministic",
                AttrKind::Str,
                Some(AttrValue::Str("default".to_string())),
            ),
    );
    register_kernel("ParallelMapDatasetV2", |node| {
        let deterministic: String = node.attr("deterministic")?;
        let deterministic = match deterministic.as_str() {
            "default" | "true" => true,
            "false" => false,
            other => {
                return Err(Error::invalid_argument(format!(
                    "Invalid `deterministic` value: {other}; expected \"true\", \"false\" or \
                     \"default\""
                )))
            }
        };
        Ok(Box::new(ParallelMapKernel {
            f: FunctionAttr::from_node(node, "f")?,
            deterministic,
        }))
    });
    interleave::register();
}
