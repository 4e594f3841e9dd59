//! `InterleaveDataset` (`Dataset.interleave`) and `FlatMapDataset` (`Dataset.flat_map`): a
//! function that makes a dataset of each input element, and the elements of those datasets
//! in turn.

use std::sync::Arc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, AttrKind, AttrValue, DType, Error, Kernel, OpContext, Output, Result};

use super::workers::ParallelMapIter;
use super::{cores, dataset_in, with_captured, AUTOTUNE, MAX_THREADS};
use crate::data::builders::Dataset;
use crate::data::function::{build_function, BoundFunction, BuiltFunction, FunctionAttr};
use crate::data::map::function_dataset_def;
use crate::data::{
    dataset_tensor, input_dataset, output_dtypes, DatasetBase, Element, IteratorBase,
    IteratorContext,
};

/// The options of [`Dataset::interleave_with`]: `dataset.interleave(map_func, cycle_length,
/// block_length, num_parallel_calls, deterministic)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InterleaveOptions {
    /// `cycle_length`: datasets open at once; `None` is [`AUTOTUNE`]: one per core, or with
    /// `num_parallel_calls` that many up to one per core (a third of the cores, rounded up,
    /// when `num_parallel_calls` is [`AUTOTUNE`] too), as TensorFlow 2.21 picks.
    pub cycle_length: Option<i64>,
    /// `block_length`: elements taken from a dataset per turn; `None` is 1.
    pub block_length: Option<i64>,
    /// `num_parallel_calls`: `None` reads on the iterator's thread; `Some(n)` reads up to `n`
    /// of the cycle's datasets ahead on threads ([`AUTOTUNE`]: all of them); at most
    /// `cycle_length`.
    pub num_parallel_calls: Option<i64>,
    /// `deterministic`: accepted for TensorFlow's sake; the order is always `interleave`'s.
    pub deterministic: Option<bool>,
}

impl InterleaveOptions {
    /// `cycle_length` and `block_length`, read on the iterator's thread.
    pub fn new(cycle_length: i64, block_length: i64) -> InterleaveOptions {
        InterleaveOptions {
            cycle_length: Some(cycle_length),
            block_length: Some(block_length),
            ..InterleaveOptions::default()
        }
    }

    /// Sets `num_parallel_calls`.
    pub fn num_parallel_calls(mut self, n: i64) -> InterleaveOptions {
        self.num_parallel_calls = Some(n);
        self
    }

    /// Sets `deterministic`.
    pub fn deterministic(mut self, deterministic: bool) -> InterleaveOptions {
        self.deterministic = Some(deterministic);
        self
    }
}

impl Dataset {
    /// Builds `f`, a function of an element that returns a dataset, and returns it with that
    /// dataset (its types and shapes are the result's).
    pub(super) fn dataset_function(
        &self,
        name: &str,
        f: impl FnOnce(&[Output]) -> Result<Dataset>,
    ) -> Result<(BuiltFunction, Dataset)> {
        let mut inner = None;
        let func = build_function(
            self.graph(),
            name,
            self.output_types(),
            self.output_shapes(),
            |x| {
                let ds = f(x)?;
                let handle = ds.handle().clone();
                inner = Some(ds);
                Ok(vec![handle])
            },
        )?;
        let inner = inner.ok_or_else(|| Error::internal("The function was not built"))?;
        Ok((func, inner))
    }

    /// `dataset.interleave(map_func, cycle_length, block_length)`: `map_func` makes a dataset
    /// of each element; the result takes `block_length` elements from each of `cycle_length`
    /// such datasets in turn, and when one ends, the next input element's dataset takes its
    /// place in the cycle (op `InterleaveDataset`). [`AUTOTUNE`] as `cycle_length` is one per
    /// core, as in TensorFlow; other values below 1 fail when the dataset is made.
    ///
    /// Two files read with cycle 2 and block 1 alternate lines until one runs out:
    ///
    /// ```
    /// use weir_graph::{Graph, Tensor};
    /// use weir_ops::array::constant;
    /// use weir_ops::data::Dataset;
    ///
    /// let g = Graph::new();
    /// let rows = constant(&g, Tensor::from_vec(&[2, 3], vec![1i64, 2, 3, 10, 20, 30])?)?;
    /// let ds = Dataset::from_tensor_slices(&[rows])?
    ///     .interleave(|row| Dataset::from_tensor_slices(&[row[0].clone()]), 2, 1)?;
    /// // In a session: 1, 10, 2, 20, 3, 30.
    /// assert_eq!(ds.output_shapes(), &[weir_graph::Shape::scalar()]);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn interleave(
        &self,
        f: impl FnOnce(&[Output]) -> Result<Dataset>,
        cycle_length: i64,
        block_length: i64,
    ) -> Result<Dataset> {
        self.dense_only("dataset.interleave")?;
        self.interleave_with(
            f,
            InterleaveOptions {
                cycle_length: Some(cycle_length),
                block_length: Some(block_length),
                ..InterleaveOptions::default()
            },
        )
    }

    /// `dataset.interleave(map_func, cycle_length, block_length, num_parallel_calls,
    /// deterministic)`: [`interleave`](Dataset::interleave) with TensorFlow's defaults (cycle
    /// [`AUTOTUNE`], block 1); with `num_parallel_calls` (op `ParallelInterleaveDatasetV4`) up
    /// to that many of the cycle's datasets are read ahead on threads of their own, and the
    /// order stays that of `interleave` (TensorFlow's deterministic order; weir keeps it also
    /// with `deterministic = false`).
    ///
    /// ```
    /// use weir_graph::Graph;
    /// use weir_ops::data::{Dataset, InterleaveOptions};
    ///
    /// let g = Graph::new();
    /// let ds = Dataset::range(&g, 0, 4, 1)?.interleave_with(
    ///     |x| Dataset::from_tensors(&[x[0].clone()])?.repeat(Some(3)),
    ///     InterleaveOptions::new(4, 1).num_parallel_calls(4),
    /// )?;
    /// // In a session: 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3.
    /// assert_eq!(ds.handle().op().op_type(), "ParallelInterleaveDatasetV4");
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn interleave_with(
        &self,
        f: impl FnOnce(&[Output]) -> Result<Dataset>,
        options: InterleaveOptions,
    ) -> Result<Dataset> {
        let (func, inner) = self.dataset_function("interleave", f)?;
        let g = self.graph();
        let c = |v: i64| crate::array::constant(g, v);
        let op = match options.num_parallel_calls {
            None => "InterleaveDataset",
            Some(_) => "ParallelInterleaveDatasetV4",
        };
        let mut b = with_captured(crate::new_op(g, op).input(self.handle()), &func)
            .input(c(options.cycle_length.unwrap_or(AUTOTUNE))?)
            .input(c(options.block_length.unwrap_or(1))?);
        if let Some(n) = options.num_parallel_calls {
            let deterministic = match options.deterministic {
                None => "default",
                Some(true) => "true",
                Some(false) => "false",
            };
            // buffer_output_elements and prefetch_input_elements, as Python passes them.
            b = b
                .input(c(AUTOTUNE)?)
                .input(c(AUTOTUNE)?)
                .input(c(n)?)
                .attr("deterministic", deterministic);
        }
        Dataset::build_like(func.attrs(b, "f"), &inner)
    }

    /// `dataset.flat_map(map_func)`: the elements of the dataset `map_func` makes of each
    /// element, one dataset after the other (op `FlatMapDataset`).
    ///
    /// ```
    /// use weir_graph::Graph;
    /// use weir_ops::data::Dataset;
    ///
    /// let g = Graph::new();
    /// let ds = Dataset::range(&g, 1, 4, 1)?
    ///     .flat_map(|x| Dataset::from_tensors(&[x[0].clone()])?.repeat(Some(2)))?;
    /// // In a session: 1, 1, 2, 2, 3, 3.
    /// assert_eq!(ds.output_types(), &[weir_graph::DType::I64]);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn flat_map(&self, f: impl FnOnce(&[Output]) -> Result<Dataset>) -> Result<Dataset> {
        self.dense_only("dataset.flat_map")?;
        let (func, inner) = self.dataset_function("flat_map", f)?;
        let b = with_captured(
            crate::new_op(self.graph(), "FlatMapDataset").input(self.handle()),
            &func,
        );
        Dataset::build_like(func.attrs(b, "f"), &inner)
    }
}

/// The elements of the datasets `f` makes of `input`'s elements, `block_length` at a time
/// from each of `cycle_length` open ones (a flat map is cycle 1, block 1).
struct Interleave {
    input: Arc<dyn DatasetBase>,
    f: BoundFunction,
    dtypes: Vec<DType>,
    cycle_length: usize,
    block_length: usize,
    /// Open datasets read ahead on threads of their own, at most (0: none).
    parallelism: usize,
    /// Elements each read-ahead thread buffers.
    buffer: usize,
    /// Whether the cycle moves as in `LegacyParallelInterleaveDatasetV2` (see [`InterleaveIter`]).
    legacy: bool,
}

impl DatasetBase for Interleave {
    fn output_dtypes(&self) -> &[DType] {
        &self.dtypes
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(InterleaveIter {
            input: Some(self.input.make_iterator()?),
            f: self.f.clone(),
            dtypes: self.dtypes.clone(),
            cycle_length: self.cycle_length,
            block_length: self.block_length,
            parallelism: self.parallelism,
            buffer: self.buffer,
            legacy: self.legacy,
            slots: Vec::new(),
            cycle_index: 0,
            block_index: 0,
            open: 0,
            prefetching: 0,
        }))
    }
}

/// An open dataset of the cycle.
struct Slot {
    iterator: Box<dyn IteratorBase>,
    /// Whether it is read ahead on a thread of its own.
    prefetched: bool,
}

/// TensorFlow's `InterleaveDatasetOp::Dataset::Iterator`, step for step.
///
/// With `legacy`, the order of TensorFlow's `LegacyParallelInterleaveDatasetV2` when its
/// threads keep ahead of the consumer (the usual case, and the only one whose order does not
/// depend on timing): a dataset that ends is replaced at once by the next input element's, and
/// the turn passes to the next slot; once the input has ended, the turn passes on without
/// starting a new block, so the next slot only completes the block. (Two files of 3 and 1
/// records ahead of files of 4 and 2, cycle 3, block 2, give `0-0 0-1 1-0 2-0 2-1 0-2 3-0
/// 2-2 2-3 3-1` where `interleave` gives `... 0-2 3-0 3-1 2-2 2-3`.)
struct InterleaveIter {
    /// `None` once the input has ended.
    input: Option<Box<dyn IteratorBase>>,
    f: BoundFunction,
    dtypes: Vec<DType>,
    cycle_length: usize,
    block_length: usize,
    parallelism: usize,
    buffer: usize,
    legacy: bool,
    /// The cycle's open datasets; a slot past the end is empty (so a huge `cycle_length`
    /// costs nothing until that many are open).
    slots: Vec<Option<Slot>>,
    cycle_index: usize,
    /// Elements taken from the current slot in this turn.
    block_index: usize,
    /// Open slots.
    open: usize,
    /// Open slots read ahead on threads.
    prefetching: usize,
}

impl InterleaveIter {
    fn advance(&mut self) {
        self.block_index = 0;
        self.step();
    }

    /// Moves to the next slot, within the same block.
    fn step(&mut self) {
        self.cycle_index += 1;
        // Past the last slot ever opened, every slot is empty: once the input has ended they
        // would only be stepped over.
        if self.cycle_index == self.cycle_length
            || (self.input.is_none() && self.cycle_index >= self.slots.len())
        {
            self.cycle_index = 0;
        }
    }

    /// The dataset `f` makes of `element`, read ahead on a thread while fewer than
    /// `parallelism` are.
    fn open_dataset(&mut self, element: Element, ctx: &IteratorContext) -> Result<Slot> {
        let made = self.f.call(element, ctx)?;
        let [handle] = made.as_slice() else {
            return Err(Error::invalid_argument(format!(
                "The interleave function returned {} values, not one dataset",
                made.len()
            )));
        };
        let ds = dataset_in(handle)?;
        if ds.output_dtypes() != self.dtypes.as_slice() {
            return Err(Error::invalid_argument(format!(
                "The interleave function's dataset has dtypes {:?}, not {:?}",
                ds.output_dtypes(),
                self.dtypes
            )));
        }
        let iterator = ds.make_iterator()?;
        if self.prefetching < self.parallelism {
            self.prefetching += 1;
            return Ok(Slot {
                iterator: Box::new(ParallelMapIter::new(iterator, None, self.buffer, 1, true)),
                prefetched: true,
            });
        }
        Ok(Slot {
            iterator,
            prefetched: false,
        })
    }

    /// Opens the next input element's dataset in slot `ci`; false when the input has ended.
    fn fill(&mut self, ci: usize, ctx: &IteratorContext) -> Result<bool> {
        let Some(input) = self.input.as_mut() else {
            return Ok(false);
        };
        let Some(element) = input.get_next(ctx)? else {
            self.input = None;
            return Ok(false);
        };
        ctx.check()?;
        let slot = self.open_dataset(element, ctx)?;
        while self.slots.len() <= ci {
            self.slots.push(None);
        }
        self.slots[ci] = Some(slot);
        self.open += 1;
        Ok(true)
    }

    fn close(&mut self, ci: usize) {
        if let Some(slot) = self.slots.get_mut(ci).and_then(Option::take) {
            self.open -= 1;
            if slot.prefetched {
                self.prefetching -= 1;
            }
        }
    }
}

/// Elements a read-ahead thread buffers: a block, up to this many.
pub(super) const PREFETCH_BUFFER: usize = 64;

impl IteratorBase for InterleaveIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        if self.legacy && self.slots.is_empty() {
            // TensorFlow's legacy op opens the whole cycle before the first element.
            let mut ci = 0;
            while ci < self.cycle_length && self.fill(ci, ctx)? {
                ci += 1;
            }
        }
        while self.input.is_some() || self.open > 0 {
            let ci = self.cycle_index;
            match self.slots.get_mut(ci).and_then(Option::as_mut) {
                Some(slot) if self.block_index < self.block_length => {
                    match slot.iterator.get_next(ctx)? {
                        Some(e) => {
                            self.block_index += 1;
                            return Ok(Some(e));
                        }
                        None if self.legacy => {
                            self.close(ci);
                            if self.fill(ci, ctx)? {
                                self.advance();
                            } else {
                                self.step();
                            }
                        }
                        None => {
                            self.close(ci);
                            self.advance();
                        }
                    }
                }
                Some(_) => self.advance(),
                None if self.input.is_none() => {
                    if self.legacy {
                        self.step();
                    } else {
                        self.advance();
                    }
                }
                None => {
                    self.fill(ci, ctx)?;
                }
            }
        }
        Ok(None)
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    FlatMap,
    Interleave,
    Parallel,
    /// `LegacyParallelInterleaveDatasetV2`: every open dataset is read ahead.
    Legacy,
}

impl Kind {
    /// How many scalar arguments end the op's inputs.
    fn scalars(self) -> usize {
        match self {
            Kind::FlatMap => 0,
            Kind::Interleave => 2,
            Kind::Legacy => 4,
            Kind::Parallel => 5,
        }
    }
}

/// `InterleaveDataset`, `ParallelInterleaveDatasetV4`, `LegacyParallelInterleaveDatasetV2` or
/// `FlatMapDataset`.
struct InterleaveKernel {
    f: FunctionAttr,
    kind: Kind,
}

/// An interleave's sizes, from its scalar arguments.
pub(super) struct Sizes {
    pub(super) cycle_length: usize,
    pub(super) block_length: usize,
    /// Open datasets read ahead on threads, at most.
    pub(super) parallelism: usize,
    /// Elements buffered per read-ahead thread.
    pub(super) buffer: usize,
}

pub(super) fn size(v: i64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

/// Checks an interleave's scalar arguments as TensorFlow does, from the op's inputs after the
/// captured ones.
fn arguments(kind: Kind, args: &[weir_graph::Tensor]) -> Result<Sizes> {
    if kind == Kind::FlatMap {
        return Ok(Sizes {
            cycle_length: 1,
            block_length: 1,
            parallelism: 0,
            buffer: 1,
        });
    }
    if kind == Kind::Legacy {
        return super::legacy::arguments(args);
    }
    let arg = |i: usize| args[i].to_scalar::<i64>();
    let (cycle, block) = (arg(0)?, arg(1)?);
    let calls = if kind == Kind::Parallel {
        Some(arg(4)?)
    } else {
        None
    };
    let cores = cores() as i64;
    let cycle_length = match (cycle, calls) {
        // TensorFlow's choices: one per core; with num_parallel_calls, that many up to one per
        // core; and when that is AUTOTUNE too, a third of the cores (each open dataset may
        // have three threads), rounded up.
        (AUTOTUNE, None) => cores,
        (AUTOTUNE, Some(AUTOTUNE)) => (cores + 2) / 3,
        (AUTOTUNE, Some(n)) => n.min(cores),
        (c, _) => c,
    };
    if cycle_length <= 0 {
        return Err(Error::invalid_argument(
            "cycle_length must be greater than zero.",
        ));
    }
    if block <= 0 {
        return Err(Error::invalid_argument(
            "block_length must be greater than zero.",
        ));
    }
    let parallelism = match calls {
        None => 0,
        Some(AUTOTUNE) => cycle_length,
        Some(n) if n <= 0 => {
            return Err(Error::invalid_argument(
                "num_parallel_calls must be greater than zero.",
            ))
        }
        Some(n) if cycle != AUTOTUNE && n > cycle => {
            return Err(Error::invalid_argument(format!(
                "If `cycle_length` is set to a fixed value, `num_parallel_calls` must be either \
                 `tf.data.AUTOTUNE` or a value less than or equal to `cycle_length`. However, \
                 `num_parallel_calls` is {n} and `cycle_length` is {cycle}"
            )))
        }
        Some(n) => n,
    };
    Ok(Sizes {
        cycle_length: size(cycle_length),
        block_length: size(block),
        parallelism: size(parallelism).min(MAX_THREADS),
        buffer: size(block).clamp(1, PREFETCH_BUFFER),
    })
}

impl Kernel for InterleaveKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = input_dataset(ctx, 0)?;
        let n = ctx.inputs().len();
        let scalars = self.kind.scalars();
        let sizes = arguments(self.kind, &ctx.inputs()[n - scalars..])?;
        let ds = Interleave {
            input,
            f: BoundFunction::new(self.f.get(ctx)?, ctx.inputs()[1..n - scalars].to_vec()),
            dtypes: output_dtypes(ctx.node())?,
            cycle_length: sizes.cycle_length,
            block_length: sizes.block_length,
            parallelism: sizes.parallelism,
            buffer: sizes.buffer,
            legacy: self.kind == Kind::Legacy,
        };
        ctx.set_output(0, dataset_tensor(Arc::new(ds)));
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        function_dataset_def("InterleaveDataset", "f")
            .input("cycle_length", ArgType::Fixed(DType::I64))
            .input("block_length", ArgType::Fixed(DType::I64)),
    );
    register_op(
        function_dataset_def("ParallelInterleaveDatasetV4", "f")
            .input("cycle_length", ArgType::Fixed(DType::I64))
            .input("block_length", ArgType::Fixed(DType::I64))
            .input("buffer_output_elements", ArgType::Fixed(DType::I64))
            .input("prefetch_input_elements", ArgType::Fixed(DType::I64))
            .input("num_parallel_calls", ArgType::Fixed(DType::I64))
            .attr(
                "deterministic",
                AttrKind::Str,
                Some(AttrValue::Str("default".to_string())),
            ),
    );
    register_op(
        function_dataset_def("LegacyParallelInterleaveDatasetV2", "f")
            .input("cycle_length", ArgType::Fixed(DType::I64))
            .input("block_length", ArgType::Fixed(DType::I64))
            .input("buffer_output_elements", ArgType::Fixed(DType::I64))
            .input("prefetch_input_elements", ArgType::Fixed(DType::I64))
            .attr(
                "deterministic",
                AttrKind::Str,
                Some(AttrValue::Str("default".to_string())),
            ),
    );
    register_op(function_dataset_def("FlatMapDataset", "f"));
    register_kernel("LegacyParallelInterleaveDatasetV2", |node| {
        kernel(node, Kind::Legacy)
    });
    register_kernel("InterleaveDataset", |node| kernel(node, Kind::Interleave));
    register_kernel("ParallelInterleaveDatasetV4", |node| {
        kernel(node, Kind::Parallel)
    });
    register_kernel("FlatMapDataset", |node| kernel(node, Kind::FlatMap));
}

fn kernel(node: &weir_graph::Node, kind: Kind) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(InterleaveKernel {
        f: FunctionAttr::from_node(node, "f")?,
        kind,
    }))
}
