//! `tf.data`: datasets and the iterators that read them, as TensorFlow 1's graph mode builds
//! them (`tf.compat.v1.data`).
//!
//! A dataset op (`TensorSliceDataset`, `MapDataset`, `BatchDatasetV2`, ...) outputs a scalar
//! handle to a [`DatasetBase`]: a description of a sequence of elements, built when the op runs
//! and cheap to build, since nothing is read until an iterator asks. An iterator is a session
//! resource (`IteratorV2`, `OneShotIterator`) that `MakeIterator` points at a dataset and
//! `IteratorGetNext` advances, one element per run, with OutOfRange "End of sequence" at the
//! end. A `map` or `filter` function is a part of the graph called through the session's
//! [`FunctionRuntime`](weir_graph::FunctionRuntime), as TensorFlow calls a function of its
//! library.
//!
//! Dataset handles are `resource` tensors here (TensorFlow's are `variant`), so graphs with
//! datasets do not export to TensorFlow.
//!
//! ```
//! use weir_graph::{Graph, Tensor};
//! use weir_ops::array::constant;
//! use weir_ops::data::Dataset;
//! # use weir_ops::math::mul;
//!
//! let g = Graph::new();
//! let xs = constant(&g, Tensor::from(vec![1i64, 2, 3, 4, 5]))?;
//! let ds = Dataset::from_tensor_slices(&[xs])?
//!     .map(|x| Ok(vec![mul(&x[0], &x[0])?]))?
//!     .batch(2)?;
//! let next = ds.make_one_shot_iterator()?.get_next()?;
//! assert_eq!(next[0].shape(), weir_graph::Shape::new(vec![None]));
//! // In a session: [1, 4], [9, 16], [25], then OutOfRange "End of sequence".
//! # Ok::<(), weir_graph::Error>(())
//! ```

mod arg;
mod batch;
mod bucket;
mod builders;
mod cache;
mod cache_file;
mod cardinality;
mod combine;
mod components;
mod csv;
mod dense_to_sparse_batch;
mod experimental;
mod file_pipeline;
mod files;
mod function;
mod generator;
mod graph_iterator;
mod group_by_reducer;
mod group_by_window;
mod iterator;
mod list_files;
mod make_batched_features;
mod make_csv;
mod map;
mod map_batch;
mod optional;
mod parallel_map;
mod parse_example;
mod random;
mod reduce;
mod repeat;
mod shuffle;
mod sources;
mod structure;
mod tfrecord_writer;
mod window;

use std::sync::Arc;
use std::time::Instant;

use weir_graph::{
    CancellationToken, DType, Error, OpContext, Resource, ResourceHandle, Result, Tensor,
};

pub use arg::{I64Arg, RepeatCount};
pub use bucket::BucketOptions;
pub use builders::Dataset;
pub use csv::CsvDataset;
pub use experimental::SampleWeights;
pub use files::{FixedLengthRecordDataset, TextLineDataset, TfRecordDataset};
pub use generator::GeneratorItem;
pub use graph_iterator::Iterator;
pub use group_by_reducer::Reducer;
pub use make_batched_features::MakeBatchedFeaturesDataset;
pub use make_csv::{CsvColumn, MakeCsvDataset};
pub use map_batch::MapAndBatchOptions;
pub use optional::Optional;
pub use parallel_map::{InterleaveOptions, MapOptions, ParallelInterleaveOptions, AUTOTUNE};
pub use shuffle::Shuffle;
pub use structure::{Component, ComponentSpec};
pub use tfrecord_writer::TfRecordWriter;
pub use window::Windows;

/// One element of a dataset: a value per component, in the dataset's component order.
pub type Element = Vec<Tensor>;

/// `tf.data.INFINITE_CARDINALITY`: the cardinality of a dataset that never ends.
pub const INFINITE_CARDINALITY: i64 = -1;

/// `tf.data.UNKNOWN_CARDINALITY`: the cardinality of a dataset whose length cannot be known
/// without reading it (a `filter`'s, a file's).
pub const UNKNOWN_CARDINALITY: i64 = -2;

/// A dataset: TensorFlow's `DatasetBase`. Immutable once built; every iterator made from it
/// reads it from the start.
pub trait DatasetBase: Send + Sync + 'static {
    /// The dtype of each component of an element.
    fn output_dtypes(&self) -> &[DType];

    /// A new iterator at the first element (TensorFlow's `MakeIterator`).
    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>>;

    /// How many elements the dataset has, known without reading it (TensorFlow's
    /// `Cardinality`): [`INFINITE_CARDINALITY`] for an endless one, [`UNKNOWN_CARDINALITY`]
    /// (the default) when only reading would tell.
    fn cardinality(&self) -> i64 {
        UNKNOWN_CARDINALITY
    }
}

/// A position in a dataset: TensorFlow's `IteratorBase`.
pub trait IteratorBase: Send {
    /// The next element, or `None` once the dataset is exhausted (and on every call after).
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>>;
}

/// What an iterator needs from the run that advances it: TensorFlow's `IteratorContext`.
#[derive(Clone)]
pub struct IteratorContext {
    /// Cancelled when the run is (its timeout, the session's close).
    pub cancellation: CancellationToken,
    /// The run's deadline, if it has one.
    pub deadline: Option<Instant>,
}

impl IteratorContext {
    /// The context of the run `ctx` belongs to.
    pub fn of(ctx: &OpContext<'_>) -> IteratorContext {
        IteratorContext {
            cancellation: ctx.cancellation().clone(),
            deadline: ctx.deadline(),
        }
    }

    /// Cancelled or DeadlineExceeded when the run should stop waiting.
    pub fn check(&self) -> Result<()> {
        if let Some(e) = self.cancellation.error() {
            return Err(e);
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(weir_graph::deadline_exceeded());
        }
        Ok(())
    }
}

/// A dataset in a tensor: the resource behind a dataset op's handle.
struct DatasetResource(Arc<dyn DatasetBase>);

impl Resource for DatasetResource {
    fn type_name(&self) -> &str {
        "Dataset"
    }
}

/// The scalar handle tensor a dataset op outputs for `dataset`.
pub(crate) fn dataset_tensor(dataset: Arc<dyn DatasetBase>) -> Tensor {
    Tensor::scalar(ResourceHandle::new(
        "",
        "dataset",
        Arc::new(DatasetResource(dataset)),
    ))
}

/// The dataset behind input `i` of the running op.
pub(crate) fn input_dataset(ctx: &OpContext<'_>, i: usize) -> Result<Arc<dyn DatasetBase>> {
    let handle = ctx.resource_handle(i)?;
    let r = handle.get::<DatasetResource>().map_err(|_| {
        Error::invalid_argument(format!(
            "Input {i} of {} is not a dataset",
            ctx.node().name()
        ))
    })?;
    Ok(r.0.clone())
}

/// Registers the `tf.data` ops and kernels.
pub(crate) fn register_all_ops() {
    function::register();
    iterator::register();
    sources::register();
    map::register();
    batch::register();
    dense_to_sparse_batch::register();
    repeat::register();
    cache::register();
    cardinality::register();
    tfrecord_writer::register();
    optional::register();
    files::register();
    generator::register();
    csv::register();
    shuffle::register();
    parallel_map::register();
    map_batch::register();
    combine::register();
    reduce::register();
    experimental::register();
    random::register();
    window::register();
    group_by_window::register();
    group_by_reducer::register();
}

/// The signature every dataset op shares: a scalar handle out, and the element's
/// `output_types` and `output_shapes` as attrs.
pub(crate) fn dataset_def(name: &str) -> weir_graph::OpDef {
    weir_graph::OpDef::new(name)
        .output("handle", weir_graph::ArgType::Fixed(DType::Resource))
        .attr("output_types", weir_graph::AttrKind::Types, None)
        .attr("output_shapes", weir_graph::AttrKind::Shapes, None)
        .shape_fn(|ctx| {
            ctx.set_output(0, weir_graph::Shape::scalar());
            Ok(())
        })
}

/// The `output_types` attr of a dataset op's node.
pub(crate) fn output_dtypes(node: &weir_graph::Node) -> Result<Vec<DType>> {
    node.attr("output_types")
}
