//! `tf.TensorArray` as TensorFlow 1's Python layer builds it (`_GraphTensorArray`): a handle
//! to the array, a "flow" scalar that orders the ops on it, and the element shape learned at
//! graph-build time.
//!
//! Every method that changes the array returns a new [`TensorArray`] with a new flow and the
//! same handle, as Python returns a new `TensorArray`; reads take the flow they are given, so
//! they run after the writes that made it. The element shape is shared by every
//! `TensorArray` of one handle (Python shares its `_element_shape` list the same way), so a
//! write inside a while loop's body teaches the array outside the loop its shape.

use std::sync::Arc;

use parking_lot::Mutex;
use weir_graph::{DType, Error, Graph, Operation, Output, Result, Shape, Tensor};

use super::args::{const_ints, indices_output, node_scope, range_to, same_graph, Int32Arg};
use crate::array::{constant_named, shape, IndexArg, StridedSlice};
use crate::math::cast;

/// The options of a new TensorArray (`tf.TensorArray(dtype, size, ...)`), with TensorFlow's
/// defaults; [`TensorArray::new`] starts one.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::tensor_array::TensorArray;
/// let g = Graph::new();
/// let ta = TensorArray::new(DType::F32).size(3).element_shape(Shape::known(&[2])).build(&g)?;
/// assert_eq!(ta.handle().op().op_type(), "TensorArrayV3");
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct TensorArrayBuilder {
    dtype: DType,
    size: Option<Int32Arg>,
    dynamic_size: bool,
    clear_after_read: bool,
    element_shape: Option<Shape>,
    infer_shape: bool,
    tensor_array_name: String,
    name: Option<String>,
}

impl TensorArrayBuilder {
    /// The number of elements (required): an `i32` or a scalar int32 tensor.
    pub fn size(mut self, size: impl Into<Int32Arg>) -> Self {
        self.size = Some(size.into());
        self
    }

    /// Whether writes past the end grow the array (default false).
    pub fn dynamic_size(mut self, on: bool) -> Self {
        self.dynamic_size = on;
        self
    }

    /// Whether reading an element frees it, so it cannot be read again (default true).
    pub fn clear_after_read(mut self, on: bool) -> Self {
        self.clear_after_read = on;
        self
    }

    /// What every element's shape must be compatible with (default: unknown).
    pub fn element_shape(mut self, shape: impl Into<Shape>) -> Self {
        self.element_shape = Some(shape.into());
        self
    }

    /// Whether every element must have the shape the first write gives (default true): the
    /// element shape is then learned when building and checked on every later write.
    pub fn infer_shape(mut self, on: bool) -> Self {
        self.infer_shape = on;
        self
    }

    /// The name run-time messages give the array (default: the node's name).
    pub fn tensor_array_name(mut self, name: &str) -> Self {
        self.tensor_array_name = name.to_string();
        self
    }

    /// The name of the `TensorArrayV3` node (default `TensorArray`, made unique).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the `TensorArrayV3` node to `graph`.
    pub fn build(&self, graph: &Graph) -> Result<TensorArray> {
        let size = self.size.as_ref().ok_or_else(|| {
            Error::invalid_argument("Argument `size` must be provided if handle is not provided.")
        })?;
        let _scope = graph.name_scope(self.name.as_deref().unwrap_or("TensorArray"));
        let node_name = graph.current_scope();
        let size = size.to_output(graph, "size")?;
        let element_shape = self.element_shape.clone().unwrap_or_else(Shape::unknown);
        let op = crate::new_op(graph, "TensorArrayV3")
            .name(node_name)
            .input(&size)
            .attr("dtype", self.dtype)
            .attr("element_shape", element_shape.clone())
            .attr("dynamic_size", self.dynamic_size)
            .attr("clear_after_read", self.clear_after_read)
            .attr("identical_element_shapes", self.infer_shape)
            .attr("tensor_array_name", self.tensor_array_name.as_str())
            .build()?;
        Ok(TensorArray {
            handle: op.output(0)?,
            flow: op.output(1)?,
            dtype: self.dtype,
            size,
            dynamic_size: self.dynamic_size,
            infer_shape: self.infer_shape,
            element_shape: Arc::new(Mutex::new(element_shape)),
        })
    }
}

/// `tf.TensorArray` (TensorFlow 1's graph-mode TensorArray): a handle, a flow, and the element
/// shape known so far. Methods that write return a new `TensorArray` (same handle, new flow).
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::constant, tensor_array::TensorArray};
/// let g = Graph::new();
/// let ta = TensorArray::new(DType::F32).size(2).build(&g)?;
/// let ta = ta.write(0, &constant(&g, [1.0f32, 2.0])?)?.write(1, &constant(&g, [3.0f32, 4.0])?)?;
/// assert_eq!(ta.stack()?.shape(), Shape::known(&[2, 2]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct TensorArray {
    pub(super) handle: Output,
    pub(super) flow: Output,
    pub(super) dtype: DType,
    pub(super) size: Output,
    pub(super) dynamic_size: bool,
    pub(super) infer_shape: bool,
    pub(super) element_shape: Arc<Mutex<Shape>>,
}

impl TensorArray {
    /// Starts a new TensorArray of `dtype` (`tf.TensorArray(dtype, ...)`); set its size, then
    /// [`build`](TensorArrayBuilder::build) it.
    #[allow(clippy::new_ret_no_self)]
    pub fn new(dtype: DType) -> TensorArrayBuilder {
        TensorArrayBuilder {
            dtype,
            size: None,
            dynamic_size: false,
            clear_after_read: true,
            element_shape: None,
            infer_shape: true,
            tensor_array_name: String::new(),
            name: None,
        }
    }

    /// The handle (`TensorArray.handle`): a resource tensor.
    pub fn handle(&self) -> &Output {
        &self.handle
    }

    /// The flow (`TensorArray.flow`): a float scalar that orders the ops on the array.
    pub fn flow(&self) -> &Output {
        &self.flow
    }

    /// The element dtype (`TensorArray.dtype`).
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The element shape known so far (`TensorArray.element_shape`).
    pub fn element_shape(&self) -> Shape {
        self.element_shape.lock().clone()
    }

    /// Whether writes past the end grow the array (`TensorArray.dynamic_size`).
    pub fn dynamic_size(&self) -> bool {
        self.dynamic_size
    }

    /// The same array seen through another flow: what a while loop's body makes of the flow
    /// loop variable (TensorFlow's `build_ta_with_new_flow`).
    ///
    /// ```
    /// # use weir_graph::{DType, Graph, Shape};
    /// # use weir_ops::{array::constant, tensor_array::TensorArray};
    /// # let g = Graph::new();
    /// use weir_ops::{control_flow::while_loop, math::{add, cast, less}};
    /// let ta = TensorArray::new(DType::F32).size(3).build(&g)?;
    /// let out = while_loop(
    ///     |v| less(&v[0], &constant(&g, 3i32)?),
    ///     |v| {
    ///         let next = ta.with_flow(&v[1]).write(&v[0], &cast(&v[0], DType::F32)?)?;
    ///         Ok(vec![add(&v[0], &constant(&g, 1i32)?)?, next.flow().clone()])
    ///     },
    ///     &[constant(&g, 0i32)?, ta.flow().clone()],
    /// )?;
    /// let values = ta.with_flow(&out[1]).stack()?; // [0, 1, 2]
    /// assert_eq!(values.shape(), Shape::known(&[3]));
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn with_flow(&self, flow: &Output) -> TensorArray {
        TensorArray {
            flow: flow.clone(),
            ..self.clone()
        }
    }

    /// `TensorArray.identity()`: the same array behind an `Identity` of the flow.
    pub fn identity(&self) -> Result<TensorArray> {
        Ok(self.with_flow(&crate::array::identity(&self.flow)?))
    }

    fn graph(&self) -> &Graph {
        self.handle.graph()
    }

    /// TensorFlow's `_check_element_shape`: `shape` must be compatible with the element shape
    /// (a Python `ValueError`), which then learns from it when `infer_shape` is on.
    fn check_element_shape(&self, shape: &Shape) -> Result<()> {
        let mut es = self.element_shape.lock();
        if !shape.is_compatible_with(&es) {
            return Err(Error::invalid_argument(format!(
                "Inconsistent shapes: saw {} but expected {} ",
                shape.python_str(),
                es.python_str()
            )));
        }
        if self.infer_shape {
            *es = es.merge_with(shape)?;
        }
        Ok(())
    }

    /// `TensorArray.read(index)`: the element at `index` (a `TensorArrayReadV3`), of the
    /// element shape known so far.
    ///
    /// ```
    /// # use weir_graph::{DType, Graph, Shape};
    /// # use weir_ops::{array::constant, tensor_array::TensorArray};
    /// # let g = Graph::new();
    /// let ta = TensorArray::new(DType::F32).size(2).build(&g)?;
    /// let ta = ta.write(0, &constant(&g, [1.0f32, 2.0])?)?;
    /// assert_eq!(ta.read(0)?.shape(), Shape::known(&[2]));
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn read(&self, index: impl Into<Int32Arg>) -> Result<Output> {
        let g = self.graph().clone();
        let (name, _scope) = node_scope(&g, "TensorArrayReadV3");
        let index = index.into().to_output(&g, "index")?;
        crate::new_op(&g, "TensorArrayReadV3")
            .name(name)
            .input(&self.handle)
            .input(index)
            .input(&self.flow)
            .attr("dtype", self.dtype)
            .output_shape(0, self.element_shape())
            .build()?
            .output(0)
    }

    /// `TensorArray.write(index, value)`: writes `value` at `index`; the array after the write.
    ///
    /// ```
    /// # use weir_graph::{DType, Graph, Shape};
    /// # use weir_ops::{array::constant, tensor_array::TensorArray};
    /// # let g = Graph::new();
    /// let ta = TensorArray::new(DType::F32).size(2).build(&g)?;
    /// let written = ta.write(1, &constant(&g, 5.0f32)?)?;
    /// assert_eq!(written.handle(), ta.handle());
    /// assert_eq!(written.element_shape(), Shape::scalar());
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn write(&self, index: impl Into<Int32Arg>, value: &Output) -> Result<TensorArray> {
        let g = self.graph().clone();
        let _scope = g.name_scope("TensorArrayWrite");
        same_graph(&g, value)?;
        self.check_element_shape(&value.shape())?;
        let (name, _op_scope) = node_scope(&g, "TensorArrayWriteV3");
        let index = index.into().to_output(&g, "index")?;
        let flow = crate::new_op(&g, "TensorArrayWriteV3")
            .name(name)
            .input(&self.handle)
            .input(index)
            .input(value)
            .input(&self.flow)
            .build()?
            .output(0)?;
        Ok(self.with_flow(&flow))
    }

    /// `TensorArray.gather(indices)`: the elements at `indices`, stacked along a new first
    /// dimension (a `TensorArrayGatherV3`).
    ///
    /// ```
    /// # use weir_graph::{DType, Graph, Shape};
    /// # use weir_ops::{array::constant, tensor_array::TensorArray};
    /// # let g = Graph::new();
    /// let ta = TensorArray::new(DType::F32).size(3).clear_after_read(false).build(&g)?;
    /// let ta = ta.unstack(&constant(&g, [1.0f32, 2.0, 3.0])?)?;
    /// let picked = ta.gather([2, 0, 2])?; // [3, 1, 3]
    /// assert_eq!(picked.shape(), Shape::known(&[3]));
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn gather(&self, indices: impl Into<IndexArg>) -> Result<Output> {
        self.gather_shaped(indices.into(), None)
    }

    /// A gather whose result is also known to have `shape` (Python's `set_shape` after it).
    fn gather_shaped(&self, indices: IndexArg, shape: Option<Shape>) -> Result<Output> {
        let g = self.graph().clone();
        let element_shape = self.element_shape();
        let (name, _scope) = node_scope(&g, "TensorArrayGatherV3");
        let indices = indices_output(&g, indices)?;
        let inferred = indices.shape().concatenate(&element_shape);
        let shape = match shape {
            Some(s) => inferred.merge_with(&s)?,
            None => inferred,
        };
        crate::new_op(&g, "TensorArrayGatherV3")
            .name(name)
            .input(&self.handle)
            .input(indices)
            .input(&self.flow)
            .attr("dtype", self.dtype)
            .attr("element_shape", element_shape)
            .output_shape(0, shape)
            .build()?
            .output(0)
    }

    /// `TensorArray.stack()`: every element, stacked along a new first dimension.
    ///
    /// ```
    /// # use weir_graph::{DType, Graph, Shape};
    /// # use weir_ops::{array::constant, tensor_array::TensorArray};
    /// # let g = Graph::new();
    /// let ta = TensorArray::new(DType::I32).size(4).build(&g)?;
    /// let ta = ta.write(0, &constant(&g, 7i32)?)?;
    /// assert_eq!(ta.stack()?.shape(), Shape::known(&[4])); // [7, 0, 0, 0]
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn stack(&self) -> Result<Output> {
        self.stack_with_len(None)
    }

    /// [`stack`](Self::stack), with the number of elements also known to be `len` when given
    /// (what `map_fn` and `scan` set on their results).
    pub(crate) fn stack_with_len(&self, len: Option<usize>) -> Result<Output> {
        let g = self.graph().clone();
        let _scope = g.name_scope("TensorArrayStack");
        let size = self.size()?;
        let indices = range_to(&g, &size)?;
        let es = self.element_shape();
        let mut shape = None;
        if let Some(dims) = es.dims() {
            let known = if self.dynamic_size {
                None
            } else {
                const_ints(&self.size).and_then(|v| usize::try_from(*v.first()?).ok())
            };
            let mut d = vec![known.or(len)];
            d.extend_from_slice(dims);
            shape = Some(Shape::new(d));
        }
        self.gather_shaped(IndexArg::Tensor(indices), shape)
    }

    /// `TensorArray.concat()`: every element joined along its first dimension (a
    /// `TensorArrayConcatV3`).
    ///
    /// ```
    /// # use weir_graph::{DType, Graph, Shape};
    /// # use weir_ops::{array::constant, tensor_array::TensorArray};
    /// # let g = Graph::new();
    /// let ta = TensorArray::new(DType::F32).size(2).infer_shape(false).build(&g)?;
    /// let ta = ta.split(&constant(&g, [1.0f32, 2.0, 3.0])?, [1, 2])?;
    /// assert_eq!(ta.concat()?.shape(), Shape::unknown()); // [1, 2, 3]
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn concat(&self) -> Result<Output> {
        let g = self.graph().clone();
        let es = self.element_shape();
        let except0 = match es.dims() {
            Some(d) => Shape::new(d.get(1..).unwrap_or(&[]).to_vec()),
            None => Shape::unknown(),
        };
        let mut out_shape = Shape::unknown();
        if let Some(dims) = es.dims() {
            let mut dim0 = None;
            if self.infer_shape {
                let size = if self.dynamic_size {
                    None
                } else {
                    const_ints(&self.size).and_then(|v| v.first().copied())
                };
                if let Some(size) = size {
                    // Python indexes the element shape's first dimension here.
                    let Some(first) = dims.first() else {
                        return Err(Error::invalid_argument(
                            "Cannot concat a TensorArray of scalars: its elements must be at least vectors (use stack).",
                        ));
                    };
                    dim0 = first.map(|d| d * size.max(0) as usize);
                }
            }
            let mut d = vec![dim0];
            d.extend_from_slice(dims.get(1..).unwrap_or(&[]));
            out_shape = Shape::new(d);
        }
        crate::new_op(&g, "TensorArrayConcatV3")
            .input(&self.handle)
            .input(&self.flow)
            .attr("dtype", self.dtype)
            .attr("element_shape_except0", except0)
            .output_shape(0, out_shape)
            .build()?
            .output(0)
    }

    /// `TensorArray.unstack(value)`: row `i` of `value` written at index `i`; the array after.
    ///
    /// ```
    /// # use weir_graph::{DType, Graph, Shape};
    /// # use weir_ops::{array::constant, tensor_array::TensorArray};
    /// # let g = Graph::new();
    /// let ta = TensorArray::new(DType::F32).size(2).build(&g)?;
    /// let ta = ta.unstack(&constant(&g, [1.0f32, 2.0])?)?;
    /// assert_eq!(ta.flow().op().op_type(), "TensorArrayScatterV3");
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn unstack(&self, value: &Output) -> Result<TensorArray> {
        let g = self.graph().clone();
        let _scope = g.name_scope("TensorArrayUnstack");
        same_graph(&g, value)?;
        let num = StridedSlice::new()
            .shrink_axis_mask(1)
            .build(shape(value)?, &[0], &[1], &[1])?;
        let indices = range_to(&g, &num)?;
        self.scatter(indices, value)
    }

    /// `TensorArray.scatter(indices, value)`: row `k` of `value` written at `indices[k]`; the
    /// array after.
    ///
    /// ```
    /// # use weir_graph::{DType, Graph, Shape};
    /// # use weir_ops::{array::constant, tensor_array::TensorArray};
    /// # let g = Graph::new();
    /// let ta = TensorArray::new(DType::F32).size(3).build(&g)?;
    /// let ta = ta.scatter([2, 0], &constant(&g, [1.0f32, 2.0])?)?;
    /// assert_eq!(ta.stack()?.shape(), Shape::known(&[3])); // [2, 0, 1]
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn scatter(&self, indices: impl Into<IndexArg>, value: &Output) -> Result<TensorArray> {
        let g = self.graph().clone();
        let _scope = g.name_scope("TensorArrayScatter");
        same_graph(&g, value)?;
        let rows = match value.shape().dims() {
            Some(d) => Shape::new(d.get(1..).unwrap_or(&[]).to_vec()),
            None => Shape::unknown(),
        };
        self.check_element_shape(&rows)?;
        let (name, _op_scope) = node_scope(&g, "TensorArrayScatterV3");
        let indices = indices_output(&g, indices.into())?;
        let flow = crate::new_op(&g, "TensorArrayScatterV3")
            .name(name)
            .input(&self.handle)
            .input(indices)
            .input(value)
            .input(&self.flow)
            .build()?
            .output(0)?;
        Ok(self.with_flow(&flow))
    }

    /// `TensorArray.split(value, lengths)`: `value` cut along its first dimension into pieces
    /// of `lengths` rows, piece `i` written at index `i`; the array after.
    ///
    /// ```
    /// # use weir_graph::{DType, Graph, Shape};
    /// # use weir_ops::{array::constant, tensor_array::TensorArray};
    /// # let g = Graph::new();
    /// let ta = TensorArray::new(DType::F32).size(2).build(&g)?;
    /// let ta = ta.split(&constant(&g, [1.0f32, 2.0, 3.0, 4.0])?, [2, 2])?;
    /// assert_eq!(ta.read(1)?.shape(), Shape::known(&[2])); // [3, 4]
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn split(&self, value: &Output, lengths: impl Into<IndexArg>) -> Result<TensorArray> {
        let g = self.graph().clone();
        let _scope = g.name_scope("TensorArraySplit");
        same_graph(&g, value)?;
        if value.dtype() != self.dtype {
            return Err(Error::invalid_argument(format!(
                "Tensor conversion requested dtype {} for Tensor with dtype {}: {}",
                self.dtype.python_name(),
                value.dtype().python_name(),
                value.name()
            )));
        }
        let (lengths, known) = match lengths.into() {
            IndexArg::List(v) => (
                constant_named(&g, Tensor::from(v.clone()), "lengths")?,
                Some(v),
            ),
            IndexArg::Tensor(o) => {
                same_graph(&g, &o)?;
                let known = const_ints(&o);
                let o = if o.dtype() == DType::I64 {
                    o
                } else {
                    cast(&o, DType::I64)?
                };
                (o, known)
            }
        };
        if let (Some(dims), Some(v)) = (value.shape().dims(), known) {
            if let Some(&l0) = v.first() {
                if v.iter().all(|&l| l == l0) && l0 >= 0 {
                    let mut d = vec![Some(l0 as usize)];
                    d.extend_from_slice(dims.get(1..).unwrap_or(&[]));
                    self.check_element_shape(&Shape::new(d))?;
                }
            }
        }
        let (name, _op_scope) = node_scope(&g, "TensorArraySplitV3");
        let flow = crate::new_op(&g, "TensorArraySplitV3")
            .name(name)
            .input(&self.handle)
            .input(value)
            .input(lengths)
            .input(&self.flow)
            .build()?
            .output(0)?;
        Ok(self.with_flow(&flow))
    }

    /// `TensorArray.size()`: the number of elements. For an array of fixed size this is the
    /// size it was built with; otherwise a `TensorArraySizeV3`.
    ///
    /// ```
    /// # use weir_graph::{DType, Graph, Shape};
    /// # use weir_ops::{array::constant, tensor_array::TensorArray};
    /// # let g = Graph::new();
    /// let ta = TensorArray::new(DType::F32).size(0).dynamic_size(true).build(&g)?;
    /// let ta = ta.write(4, &constant(&g, 1.0f32)?)?;
    /// assert_eq!(ta.size()?.op().op_type(), "TensorArraySizeV3"); // 5
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn size(&self) -> Result<Output> {
        if !self.dynamic_size {
            return Ok(self.size.clone());
        }
        crate::new_op(self.graph(), "TensorArraySizeV3")
            .input(&self.handle)
            .input(&self.flow)
            .build()?
            .output(0)
    }

    /// `TensorArray.close()`: frees every element; later uses of the array fail.
    ///
    /// ```
    /// # use weir_graph::{DType, Graph, Shape};
    /// # use weir_ops::{array::constant, tensor_array::TensorArray};
    /// # let g = Graph::new();
    /// let ta = TensorArray::new(DType::F32).size(2).build(&g)?;
    /// assert_eq!(ta.close()?.op_type(), "TensorArrayCloseV3");
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn close(&self) -> Result<Operation> {
        crate::new_op(self.graph(), "TensorArrayCloseV3")
            .input(&self.handle)
            .build()
    }
}
