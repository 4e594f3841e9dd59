//! `WindowDataset` (`Dataset.window`): windows of consecutive elements, each a dataset of its
//! own per component, which a [`Windows::flat_map`] turns back into elements.

use std::collections::VecDeque;
use std::sync::Arc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, DType, Error, Kernel, OpContext, Output, Result, Shape};

use super::builders::Dataset;
use super::structure::{self, ComponentSpec, SparseSpec};
use super::{
    dataset_def, dataset_tensor, input_dataset, output_dtypes, DatasetBase, Element, IteratorBase,
    IteratorContext,
};

/// The windows of a dataset (`dataset.window(...)`): a dataset whose elements hold one dataset
/// per component of the input, each with that component's values in the window (a sparse
/// component's window is a dataset of sparse tensors, as TensorFlow's).
#[derive(Clone, Debug)]
pub struct Windows {
    /// The dataset of window handles (one `resource` scalar per component).
    dataset: Dataset,
    /// The input's component dtypes and shapes: each window dataset's element.
    dtypes: Vec<DType>,
    shapes: Vec<Shape>,
    /// The input's sparse components: a window of one is a dataset of sparse tensors.
    sparse: Vec<Option<SparseSpec>>,
}

impl Windows {
    /// The dataset of windows itself: one scalar handle per component.
    pub fn dataset(&self) -> &Dataset {
        &self.dataset
    }

    /// The `element_spec` of each window dataset, one per component of the input (TensorFlow's
    /// `DatasetSpec(element_spec)` of each window): a sparse component's windows hold sparse
    /// tensors of its spec.
    ///
    /// ```
    /// use weir_graph::{DType, Graph, Shape, Tensor};
    /// use weir_ops::array::constant;
    /// use weir_ops::data::{ComponentSpec, Dataset};
    /// use weir_ops::sparse::SparseOutput;
    ///
    /// let g = Graph::new();
    /// let sp = SparseOutput::new(
    ///     constant(&g, Tensor::from_vec(&[2, 2], vec![0i64, 1, 2, 0])?)?,
    ///     constant(&g, [1.5f32, 2.5])?,
    ///     constant(&g, [3i64, 4])?,
    /// )?;
    /// let windows = Dataset::from_component_slices(&[sp.into()])?.window(2, None, 1, false)?;
    /// let spec = ComponentSpec::Sparse { dtype: DType::F32, shape: Shape::from([4]) };
    /// assert_eq!(windows.element_spec(), vec![spec]);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn element_spec(&self) -> Vec<ComponentSpec> {
        structure::specs(&self.dtypes, &self.shapes, &self.sparse)
    }

    /// `windows.flat_map(f)`: the elements of the dataset `f` makes of each window, given as
    /// one [`Dataset`] per component (TensorFlow's `lambda *w: ...`).
    pub fn flat_map(&self, f: impl FnOnce(&[Dataset]) -> Result<Dataset>) -> Result<Dataset> {
        self.dataset
            .flat_map(|handles| f(&self.window_datasets(handles)))
    }

    /// `windows.interleave(f, cycle_length, block_length)`: as [`flat_map`](Self::flat_map),
    /// `cycle_length` windows at a time.
    pub fn interleave(
        &self,
        f: impl FnOnce(&[Dataset]) -> Result<Dataset>,
        cycle_length: i64,
        block_length: i64,
    ) -> Result<Dataset> {
        self.dataset.interleave(
            |handles| f(&self.window_datasets(handles)),
            cycle_length,
            block_length,
        )
    }

    /// The window datasets of the handles a function receives.
    fn window_datasets(&self, handles: &[Output]) -> Vec<Dataset> {
        handles
            .iter()
            .zip(self.dtypes.iter().zip(&self.shapes))
            .zip(&self.sparse)
            .map(|((h, (d, s)), sp)| {
                Dataset::from_handle(h.clone(), vec![*d], vec![s.clone()])
                    .with_sparse(vec![sp.clone()])
            })
            .collect()
    }
}

impl Dataset {
    /// `dataset.window(size, shift=None, stride=1, drop_remainder=False)`: windows of `size`
    /// elements taken `stride` apart, a new one every `shift` elements (`None`: `size`); the
    /// last windows may be smaller unless `drop_remainder` (op `WindowDataset`). Sizes below
    /// 1 fail where the dataset is made, as "Window size must be greater than zero.". A
    /// sparse component's window is a dataset of its sparse tensors, whose `batch` stacks them
    /// as TensorFlow's does (see [`Windows::element_spec`]).
    ///
    /// ```
    /// use weir_graph::Graph;
    /// use weir_ops::data::Dataset;
    ///
    /// let g = Graph::new();
    /// // Sliding windows of 3: [0 1 2], [1 2 3], [2 3 4].
    /// let ds = Dataset::range(&g, 0, 5, 1)?
    ///     .window(3, Some(1), 1, true)?
    ///     .flat_map(|w| w[0].batch(3))?;
    /// assert_eq!(ds.output_shapes(), &[weir_graph::Shape::new(vec![None])]);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn window(
        &self,
        size: i64,
        shift: Option<i64>,
        stride: i64,
        drop_remainder: bool,
    ) -> Result<Windows> {
        let g = self.graph();
        let c = |v: i64, name: &str| crate::array::constant_named(g, v, name);
        let n = self.output_types().len();
        let dataset = Dataset::build(
            crate::new_op(g, "WindowDataset")
                .input(self.handle())
                .input(c(size, "size")?)
                .input(c(shift.unwrap_or(size), "shift")?)
                .input(c(stride, "stride")?)
                .input(crate::array::constant_named(
                    g,
                    drop_remainder,
                    "drop_remainder",
                )?),
            vec![DType::Resource; n],
            vec![Shape::scalar(); n],
        )?;
        Ok(Windows {
            dataset,
            dtypes: self.output_types().to_vec(),
            shapes: self.output_shapes().to_vec(),
            sparse: self.sparse_specs().to_vec(),
        })
    }
}

/// A dataset of elements held in memory: a window's values of one component, or a group of
/// `group_by_window`.
pub(super) struct InMemory {
    pub(super) elements: Arc<[Element]>,
    pub(super) dtypes: Vec<DType>,
}

impl DatasetBase for InMemory {
    fn output_dtypes(&self) -> &[DType] {
        &self.dtypes
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(InMemoryIter {
            elements: self.elements.clone(),
            next: 0,
        }))
    }
}

struct InMemoryIter {
    elements: Arc<[Element]>,
    next: usize,
}

impl IteratorBase for InMemoryIter {
    fn get_next(&mut self, _: &IteratorContext) -> Result<Option<Element>> {
        let e = self.elements.get(self.next).cloned();
        self.next += 1;
        Ok(e)
    }
}

struct Window {
    input: Arc<dyn DatasetBase>,
    dtypes: Vec<DType>,
    size: usize,
    shift: usize,
    stride: usize,
    drop_remainder: bool,
}

impl DatasetBase for Window {
    fn cardinality(&self) -> i64 {
        let n = self.input.cardinality();
        if n < 0 {
            return n;
        }
        let as_i64 = |v: usize| i64::try_from(v).unwrap_or(i64::MAX);
        let (size, shift, stride) = (as_i64(self.size), as_i64(self.shift), as_i64(self.stride));
        if self.drop_remainder {
            // The elements after the last one of the first whole window.
            let span = (size - 1).saturating_mul(stride).saturating_add(1);
            let rest = n - span;
            if rest < 0 {
                0
            } else {
                rest / shift + 1
            }
        } else {
            n / shift + i64::from(n % shift != 0)
        }
    }

    fn output_dtypes(&self) -> &[DType] {
        &self.dtypes
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(WindowIter {
            input: Some(self.input.make_iterator()?),
            components: self.input.output_dtypes().to_vec(),
            size: self.size,
            shift: self.shift,
            stride: self.stride,
            drop_remainder: self.drop_remainder,
            buffer: VecDeque::new(),
        }))
    }
}

struct WindowIter {
    /// `None` once the input has ended.
    input: Option<Box<dyn IteratorBase>>,
    components: Vec<DType>,
    size: usize,
    shift: usize,
    stride: usize,
    drop_remainder: bool,
    /// Input elements read and not yet shifted out; an element that failed keeps its error,
    /// which the windows that take it return.
    buffer: VecDeque<Result<Element>>,
}

impl IteratorBase for WindowIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        // The elements a full window spans.
        let span = (self.size - 1)
            .saturating_mul(self.stride)
            .saturating_add(1);
        while self.buffer.len() < span {
            let Some(input) = self.input.as_mut() else {
                break;
            };
            ctx.check()?;
            match input.get_next(ctx) {
                Ok(Some(e)) => self.buffer.push_back(Ok(e)),
                Ok(None) => self.input = None,
                Err(e) => {
                    // A run that is stopping is not an element's error.
                    ctx.check()?;
                    self.buffer.push_back(Err(e));
                }
            }
        }
        if self.buffer.is_empty() || (self.drop_remainder && self.buffer.len() < span) {
            return Ok(None);
        }
        let taken = 1 + (self.buffer.len() - 1) / self.stride;
        let window: Result<Vec<&Element>> = (0..taken)
            .map(|i| self.buffer[i * self.stride].as_ref().map_err(Clone::clone))
            .collect();
        let out = window.map(|elements| {
            (0..self.components.len())
                .map(|c| {
                    let values: Arc<[Element]> =
                        elements.iter().map(|e| vec![e[c].clone()]).collect();
                    dataset_tensor(Arc::new(InMemory {
                        elements: values,
                        dtypes: vec![self.components[c]],
                    }))
                })
                .collect()
        });
        // Shift, reading past the buffer (and dropping what is read, errors too) when the
        // shift is longer than it.
        if self.shift >= self.buffer.len() {
            for _ in self.buffer.len()..self.shift {
                let Some(input) = self.input.as_mut() else {
                    break;
                };
                ctx.check()?;
                match input.get_next(ctx) {
                    Ok(None) => self.input = None,
                    Err(_) => ctx.check()?,
                    Ok(Some(_)) => {}
                }
            }
            self.buffer.clear();
        } else {
            self.buffer.drain(..self.shift);
        }
        out.map(Some)
    }
}

struct WindowKernel;

impl Kernel for WindowKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = input_dataset(ctx, 0)?;
        let int = |i: usize, what: &str| -> Result<usize> {
            let v = ctx.input(i).to_scalar::<i64>()?;
            if v <= 0 {
                return Err(Error::invalid_argument(format!(
                    "Window {what} must be greater than zero."
                )));
            }
            Ok(usize::try_from(v).unwrap_or(usize::MAX))
        };
        let (size, shift, stride) = (int(1, "size")?, int(2, "shift")?, int(3, "stride")?);
        let ds = Window {
            input,
            dtypes: output_dtypes(ctx.node())?,
            size,
            shift,
            stride,
            drop_remainder: ctx.input(4).to_scalar::<bool>()?,
        };
        ctx.set_output(0, dataset_tensor(Arc::new(ds)));
        Ok(())
    }
}

pub(super) fn register() {
    let i = || ArgType::Fixed(DType::I64);
    register_op(
        dataset_def("WindowDataset")
            .input("input_dataset", ArgType::Fixed(DType::Resource))
            .input("size", i())
            .input("shift", i())
            .input("stride", i())
            .input("drop_remainder", ArgType::Fixed(DType::Bool)),
    );
    register_kernel("WindowDataset", |_| Ok(Box::new(WindowKernel)));
}
