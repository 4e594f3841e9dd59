//! `tf.data.experimental.parallel_interleave` (op `LegacyParallelInterleaveDatasetV2`), which
//! the file datasets' `num_parallel_reads` also builds.

use weir_graph::{Error, Output, Result, Tensor};

use super::interleave::{size, Sizes, PREFETCH_BUFFER};
use super::{with_captured, MAX_THREADS};
use crate::data::builders::Dataset;

/// The arguments of `tf.data.experimental.parallel_interleave(map_func, cycle_length,
/// block_length=1, sloppy=False, buffer_output_elements=None, prefetch_input_elements=None)`,
/// with its defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParallelInterleaveOptions {
    /// `cycle_length`: datasets open (and read ahead on threads of their own) at once.
    pub cycle_length: i64,
    /// `block_length`: elements taken from a dataset per turn (default 1).
    pub block_length: i64,
    /// `sloppy`: `Some(true)` allows any order; weir keeps the deterministic one anyway.
    /// `None` passes TensorFlow's "default".
    pub sloppy: Option<bool>,
    /// `buffer_output_elements`: elements each reading thread buffers (default
    /// `2 * block_length`).
    pub buffer_output_elements: Option<i64>,
    /// `prefetch_input_elements`: input elements TensorFlow turns into datasets ahead of their
    /// turn (default `2 * cycle_length`); checked but not used, as the order does not depend
    /// on it.
    pub prefetch_input_elements: Option<i64>,
}

impl ParallelInterleaveOptions {
    /// `cycle_length` datasets at once, one element each per turn, deterministic.
    pub fn new(cycle_length: i64) -> ParallelInterleaveOptions {
        ParallelInterleaveOptions {
            cycle_length,
            block_length: 1,
            sloppy: Some(false),
            buffer_output_elements: None,
            prefetch_input_elements: None,
        }
    }

    /// Sets `block_length`.
    pub fn block_length(mut self, n: i64) -> Self {
        self.block_length = n;
        self
    }

    /// Sets `sloppy`.
    pub fn sloppy(mut self, sloppy: bool) -> Self {
        self.sloppy = Some(sloppy);
        self
    }

    /// Sets `buffer_output_elements`.
    pub fn buffer_output_elements(mut self, n: i64) -> Self {
        self.buffer_output_elements = Some(n);
        self
    }

    /// Sets `prefetch_input_elements`.
    pub fn prefetch_input_elements(mut self, n: i64) -> Self {
        self.prefetch_input_elements = Some(n);
        self
    }
}

impl Dataset {
    /// `dataset.apply(tf.data.experimental.parallel_interleave(map_func, ...))`: the order of
    /// [`interleave`](Dataset::interleave) with the same cycle and block, each open dataset
    /// read ahead on a thread of its own (op `LegacyParallelInterleaveDatasetV2`). Arguments
    /// out of range fail when the dataset is made, in TensorFlow's words ("`cycle_length` must
    /// be > 0").
    ///
    /// ```
    /// use weir_graph::Graph;
    /// use weir_ops::data::{Dataset, ParallelInterleaveOptions, TfRecordDataset};
    ///
    /// let g = Graph::new();
    /// let files = weir_ops::array::constant(&g, ["a.tfrecord", "b.tfrecord", "c.tfrecord"])?;
    /// // Four files read at once, records alternating between them.
    /// let records = Dataset::from_tensor_slices(&[files])?.parallel_interleave(
    ///     |f| TfRecordDataset::new(&f[0]).build(),
    ///     ParallelInterleaveOptions::new(4),
    /// )?;
    /// assert_eq!(records.output_types(), &[weir_graph::DType::String]);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn parallel_interleave(
        &self,
        f: impl FnOnce(&[Output]) -> Result<Dataset>,
        options: ParallelInterleaveOptions,
    ) -> Result<Dataset> {
        self.dense_only("dataset.parallel_interleave")?;
        let (func, inner) = self.dataset_function("parallel_interleave", f)?;
        let g = self.graph();
        let c = |v: i64| crate::array::constant(g, v);
        let o = options;
        let buffer = o.buffer_output_elements.unwrap_or(2 * o.block_length);
        let prefetch = o.prefetch_input_elements.unwrap_or(2 * o.cycle_length);
        let deterministic = match o.sloppy {
            None => "default",
            Some(true) => "false",
            Some(false) => "true",
        };
        let b = with_captured(
            crate::new_op(g, "LegacyParallelInterleaveDatasetV2").input(self.handle()),
            &func,
        )
        .input(c(o.cycle_length)?)
        .input(c(o.block_length)?)
        .input(c(buffer)?)
        .input(c(prefetch)?)
        .attr("deterministic", deterministic);
        Dataset::build_like(func.attrs(b, "f"), &inner)
    }

    /// `dataset.apply(transformation_func)`: `f` applied to this dataset, for chaining custom
    /// transformations.
    ///
    /// ```
    /// use weir_graph::Graph;
    /// use weir_ops::data::Dataset;
    ///
    /// let g = Graph::new();
    /// let ds = Dataset::range(&g, 0, 10, 1)?.apply(|d| d.skip(2)?.take(3))?;
    /// // In a session: 2, 3, 4.
    /// assert_eq!(ds.output_types(), &[weir_graph::DType::I64]);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn apply(&self, f: impl FnOnce(&Dataset) -> Result<Dataset>) -> Result<Dataset> {
        f(self)
    }
}

/// `LegacyParallelInterleaveDatasetV2`'s arguments (cycle_length, block_length,
/// buffer_output_elements, prefetch_input_elements), checked in TensorFlow's order and words.
pub(super) fn arguments(args: &[Tensor]) -> Result<Sizes> {
    let arg = |i: usize| args[i].to_scalar::<i64>();
    let (cycle, block, buffer, prefetch) = (arg(0)?, arg(1)?, arg(2)?, arg(3)?);
    for (ok, what) in [
        (cycle > 0, "`cycle_length` must be > 0"),
        (block > 0, "`block_length` must be > 0"),
        (buffer > 0, "`buffer_output_elements` must be > 0"),
        (prefetch >= 0, "`prefetch_input_elements` must be >= 0"),
    ] {
        if !ok {
            return Err(Error::invalid_argument(what));
        }
    }
    Ok(Sizes {
        cycle_length: size(cycle),
        block_length: size(block),
        parallelism: size(cycle).min(MAX_THREADS),
        buffer: size(buffer).min(PREFETCH_BUFFER),
    })
}
