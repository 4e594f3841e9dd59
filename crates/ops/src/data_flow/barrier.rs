//! `Barrier`: TensorFlow's `data_flow_ops.Barrier`, a key-value map whose values are tuples
//! of tensors inserted one component at a time. An element is complete when all its
//! components are in; `take_many` takes complete elements in the order their keys were first
//! inserted, so separately computed parts of one example meet there before batching.

use weir_graph::{AttrValue, DType, Error, Graph, Operation, Output, Result, Shape, Tensor};

/// Builds a [`Barrier`]: `tf.compat.v1.Barrier(types, shapes=None, shared_name=None,
/// name="barrier")`.
pub struct BarrierBuilder {
    types: Vec<DType>,
    shapes: Option<Vec<Shape>>,
    shared_name: Option<String>,
    name: Option<String>,
}

impl BarrierBuilder {
    /// The fully defined shape of each value component (`shapes=`); without them, every
    /// component of every element is a scalar, as TensorFlow's kernel reads unknown shapes.
    pub fn shapes(mut self, shapes: &[Shape]) -> Self {
        self.shapes = Some(shapes.to_vec());
        self
    }

    /// Shares the barrier between sessions under this name; by default each session has its
    /// own, named `_<N>_<op name>`.
    pub fn shared_name(mut self, name: &str) -> Self {
        self.shared_name = Some(name.to_string());
        self
    }

    /// The barrier op's name (made unique in the current scope); `"barrier"` by default.
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the `Barrier` op, checking the shapes as TensorFlow's Python constructor does.
    pub fn build(self, graph: &Graph) -> Result<Barrier> {
        let shapes = match self.shapes {
            Some(shapes) => {
                if shapes.iter().any(|s| !s.is_fully_defined()) {
                    return Err(Error::invalid_argument(format!(
                        "All shapes must be fully defined: {}",
                        shape_list_repr(&shapes)
                    )));
                }
                if let Some((i, s)) = shapes
                    .iter()
                    .enumerate()
                    .find(|(_, s)| s.num_elements() == Some(0))
                {
                    return Err(Error::invalid_argument(format!(
                        "Empty tensors are not supported, but received shape '{}' at index {i}",
                        s.python_str()
                    )));
                }
                shapes
            }
            None => vec![Shape::unknown(); self.types.len()],
        };
        if self.types.is_empty() {
            return Err(Error::invalid_argument(
                "Attr 'component_types' of 'Barrier' Op passed list of length 0 less than minimum 1.",
            ));
        }
        let op = crate::new_op(graph, "Barrier")
            .name(self.name.unwrap_or_else(|| "barrier".to_string()))
            .attr("component_types", self.types)
            .attr("shapes", AttrValue::Shapes(shapes))
            .attr("capacity", -1i64)
            .attr("container", "")
            .attr("shared_name", self.shared_name.unwrap_or_default())
            .build()?;
        Barrier::from_operation(&op)
    }
}

/// Python's repr of a list of TensorFlow 2 shapes: `[TensorShape([2]), TensorShape(None)]`.
fn shape_list_repr(shapes: &[Shape]) -> String {
    let items: Vec<String> = shapes
        .iter()
        .map(|s| match s.dims() {
            None => "TensorShape(None)".to_string(),
            Some(dims) => {
                let dims: Vec<String> = dims
                    .iter()
                    .map(|d| d.map_or_else(|| "None".to_string(), |n| n.to_string()))
                    .collect();
                format!("TensorShape([{}])", dims.join(", "))
            }
        })
        .collect();
    format!("[{}]", items.join(", "))
}

/// The count of elements a `take_many` asks for: a number (made a constant named
/// `num_elements` under the op) or an int32 scalar tensor.
#[derive(Clone, Debug)]
pub enum NumElements {
    /// A fixed count.
    Count(i32),
    /// An int32 scalar computed or fed at run time.
    Tensor(Output),
}

impl From<i32> for NumElements {
    fn from(n: i32) -> Self {
        NumElements::Count(n)
    }
}

impl From<Output> for NumElements {
    fn from(t: Output) -> Self {
        NumElements::Tensor(t)
    }
}

impl From<&Output> for NumElements {
    fn from(t: &Output) -> Self {
        NumElements::Tensor(t.clone())
    }
}

/// What `barrier.take_many` returns: TensorFlow's `(indices, keys, values)`.
#[derive(Clone, Debug)]
pub struct TakeMany {
    /// int64 `[n]`: for each element, the index of the insert_many call that first inserted
    /// its key, counting from `i64::MIN`.
    pub indices: Output,
    /// string `[n]`: the keys.
    pub keys: Output,
    /// One `[n] + shape` tensor per value component.
    pub values: Vec<Output>,
}

/// A barrier in a graph: TensorFlow's `data_flow_ops.Barrier` (`tf.compat.v1` graph mode).
///
/// Cheap to clone; it holds the `Barrier` op's output (the resource handle) and the component
/// dtypes and shapes. Each method adds one op, named after the barrier as TensorFlow names it
/// (`b_BarrierInsertMany`, `b_BarrierTakeMany`, ...).
///
/// ```
/// # use weir_graph::{DType, Graph, Shape, Tensor};
/// # use weir_ops::{array::constant, data_flow::Barrier};
/// let g = Graph::new();
/// let b = Barrier::builder(&[DType::String, DType::I32])
///     .shapes(&[Shape::scalar(), Shape::scalar()])
///     .name("b")
///     .build(&g)?;
/// let keys = constant(&g, Tensor::from_strings(&["k1", "k2"]))?;
/// // Components may arrive in any order, from different steps or threads.
/// let counts = b.insert_many(1, &keys, &constant(&g, vec![1i32, 2])?)?;
/// let names = b.insert_many(0, &keys, &constant(&g, Tensor::from_strings(&["a", "b"]))?)?;
/// let took = b.take_many(2)?;
/// assert_eq!(counts.name(), "b_BarrierInsertMany");
/// assert_eq!(names.name(), "b_BarrierInsertMany_1");
/// assert_eq!(took.keys.shape(), Shape::known(&[2]));
/// assert_eq!(took.values[1].name(), "b_BarrierTakeMany:3");
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Barrier {
    handle: Output,
    types: Vec<DType>,
    shapes: Vec<Shape>,
    /// The last component of the op name, which TensorFlow's default op names start with.
    base: String,
}

impl Barrier {
    /// A builder of a barrier whose values have components of `types`.
    pub fn builder(types: &[DType]) -> BarrierBuilder {
        BarrierBuilder {
            types: types.to_vec(),
            shapes: None,
            shared_name: None,
            name: None,
        }
    }

    /// The barrier made by the `Barrier` op `op`, e.g. one found by name in an imported graph.
    pub fn from_operation(op: &Operation) -> Result<Barrier> {
        if op.op_type() != "Barrier" {
            return Err(Error::invalid_argument(format!(
                "Operation '{}' ({}) is not a Barrier",
                op.name(),
                op.op_type()
            )));
        }
        let types: Vec<DType> = op.attr("component_types")?;
        let mut shapes: Vec<Shape> = op.attr("shapes")?;
        shapes.resize(types.len(), Shape::unknown());
        Ok(Barrier {
            handle: op.output(0)?,
            types,
            shapes,
            base: op.name().rsplit('/').next().unwrap_or_default().to_string(),
        })
    }

    /// The resource handle (`barrier.barrier_ref`).
    pub fn barrier_ref(&self) -> &Output {
        &self.handle
    }

    /// The barrier op's name (`barrier.name`).
    pub fn name(&self) -> String {
        self.handle.op().name()
    }

    /// The barrier op.
    pub fn op(&self) -> Operation {
        self.handle.op()
    }

    /// The value component dtypes.
    pub fn types(&self) -> &[DType] {
        &self.types
    }

    /// The value component shapes (unknown when the barrier was built without shapes).
    pub fn shapes(&self) -> &[Shape] {
        &self.shapes
    }

    /// The graph.
    pub fn graph(&self) -> &Graph {
        self.handle.graph()
    }

    fn op_name(&self, suffix: &str, name: Option<&str>) -> String {
        name.map_or_else(|| format!("{}_{suffix}", self.base), str::to_string)
    }

    /// `barrier.insert_many(component_index, keys, values)`: for each key of the string vector
    /// `keys`, the matching row of `values` becomes component `component_index` of its element;
    /// the op is `<barrier>_BarrierInsertMany`.
    pub fn insert_many(
        &self,
        component_index: i64,
        keys: &Output,
        values: &Output,
    ) -> Result<Operation> {
        self.insert_many_with(component_index, keys, values, None)
    }

    /// `barrier.insert_many(component_index, keys, values, name=name)`.
    pub fn insert_many_with(
        &self,
        component_index: i64,
        keys: &Output,
        values: &Output,
        name: Option<&str>,
    ) -> Result<Operation> {
        crate::new_op(self.graph(), "BarrierInsertMany")
            .name(self.op_name("BarrierInsertMany", name))
            .input(&self.handle)
            .input(keys)
            .input(values)
            .attr("component_index", component_index)
            .build()
    }

    /// `barrier.take_many(num_elements)`: exactly `num_elements` complete elements, blocking
    /// until they are there; the op is `<barrier>_BarrierTakeMany`.
    pub fn take_many(&self, num_elements: i32) -> Result<TakeMany> {
        self.take_many_with(num_elements, false, None, None)
    }

    /// `barrier.take_many(num_elements, allow_small_batch, timeout, name)`. Once the barrier
    /// is closed, `allow_small_batch` takes what is complete (at least one) instead of failing.
    ///
    /// TensorFlow's Python passes `timeout` where the op expects the bool
    /// `wait_for_incomplete`, so any timeout fails as it does there.
    pub fn take_many_with(
        &self,
        num_elements: impl Into<NumElements>,
        allow_small_batch: bool,
        timeout: Option<i64>,
        name: Option<&str>,
    ) -> Result<TakeMany> {
        if let Some(t) = timeout {
            return Err(Error::invalid_argument(format!(
                "Expected bool for argument 'wait_for_incomplete' not {t}."
            )));
        }
        let g = self.graph().clone();
        let scope = g.name_scope(&self.op_name("BarrierTakeMany", name));
        let (n, known) = match num_elements.into() {
            NumElements::Count(n) => (
                crate::array::constant_named(&g, Tensor::scalar(n), "num_elements")?,
                Some(n),
            ),
            NumElements::Tensor(t) => {
                let known = t
                    .op()
                    .node()
                    .const_value()
                    .and_then(|v| v.to_scalar::<i32>().ok());
                (t, known)
            }
        };
        let batch = match known {
            _ if allow_small_batch => None,
            Some(n) if n < 0 => {
                return Err(Error::invalid_argument(format!(
                    "Dimension {n} must be >= 0"
                )))
            }
            k => k.map(|n| n as usize),
        };
        let lead = Shape::new(vec![batch]);
        let mut b = crate::new_op(&g, "BarrierTakeMany")
            .name(scope.prefix())
            .input(&self.handle)
            .input(n)
            .attr("component_types", self.types.clone())
            .attr("allow_small_batch", allow_small_batch)
            .attr("wait_for_incomplete", false)
            .attr("timeout_ms", -1i64)
            .output_shape(0, lead.clone())
            .output_shape(1, lead.clone());
        for (i, s) in self.shapes.iter().enumerate() {
            b = b.output_shape(2 + i, lead.concatenate(s));
        }
        let op = b.build()?;
        let mut outs = op.outputs();
        let values = outs.split_off(2);
        let keys = outs.pop().expect("take_many has a keys output");
        let indices = outs.pop().expect("take_many has an indices output");
        Ok(TakeMany {
            indices,
            keys,
            values,
        })
    }

    /// `barrier.close(cancel_pending_enqueues)`: the op is `<barrier>_BarrierClose`.
    pub fn close(&self, cancel_pending_enqueues: bool) -> Result<Operation> {
        self.close_with(cancel_pending_enqueues, None)
    }

    /// `barrier.close(cancel_pending_enqueues, name=name)`.
    pub fn close_with(
        &self,
        cancel_pending_enqueues: bool,
        name: Option<&str>,
    ) -> Result<Operation> {
        crate::new_op(self.graph(), "BarrierClose")
            .name(self.op_name("BarrierClose", name))
            .input(&self.handle)
            .attr("cancel_pending_enqueues", cancel_pending_enqueues)
            .build()
    }

    /// `barrier.ready_size()`: an int32 scalar, the complete elements not yet taken; the op is
    /// `<barrier>_BarrierReadySize`.
    pub fn ready_size(&self) -> Result<Output> {
        self.ready_size_with(None)
    }

    /// `barrier.ready_size(name=name)`.
    pub fn ready_size_with(&self, name: Option<&str>) -> Result<Output> {
        self.size_op("BarrierReadySize", name)
    }

    /// `barrier.incomplete_size()`: an int32 scalar, the keys still missing a component; the
    /// op is `<barrier>_BarrierIncompleteSize`.
    pub fn incomplete_size(&self) -> Result<Output> {
        self.incomplete_size_with(None)
    }

    /// `barrier.incomplete_size(name=name)`.
    pub fn incomplete_size_with(&self, name: Option<&str>) -> Result<Output> {
        self.size_op("BarrierIncompleteSize", name)
    }

    fn size_op(&self, op_type: &str, name: Option<&str>) -> Result<Output> {
        crate::new_op(self.graph(), op_type)
            .name(self.op_name(op_type, name))
            .input(&self.handle)
            .build()?
            .output(0)
    }
}

pub(super) fn register() {
    super::barrier_kernels::register();
}
