//! `Queue`: the graph-side handle of a queue (TensorFlow's Python `QueueBase`), whose methods
//! add the enqueue, dequeue, close and size ops with TensorFlow's default names.

use std::collections::BTreeMap;

use weir_graph::{AttrValue, DType, Error, Graph, Operation, Output, Result, Shape, Tensor};

use super::op_defs::ELEMENT_SHAPES;
use super::queue::QueueKind;

/// A queue in a graph: TensorFlow's `tf.QueueBase` (what `tf.FIFOQueue(...)` returns).
///
/// Cheap to clone; it holds the queue op's output (the resource handle) and the queue's
/// component dtypes and shapes. Each method adds one op, named after the queue as TensorFlow
/// names it (`q_Dequeue`, `q_DequeueMany`, `q_Close`, ...).
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::constant, data_flow::FifoQueue};
/// let g = Graph::new();
/// let q = FifoQueue::new(10, &[DType::I64]).shapes(&[Shape::scalar()]).name("q").build(&g)?;
/// let enq = q.enqueue_many(&[constant(&g, vec![1i64, 2, 3])?])?;
/// let batch = q.dequeue_many(2)?;
/// assert_eq!(enq.name(), "q_EnqueueMany");
/// assert_eq!(batch[0].name(), "q_DequeueMany:0");
/// assert_eq!(batch[0].shape(), Shape::known(&[2]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Queue {
    handle: Output,
    kind: QueueKind,
    dtypes: Vec<DType>,
    shapes: Option<Vec<Shape>>,
    /// The component names of a queue built with `names`: its elements are then enqueued and
    /// dequeued as dictionaries (`enqueue_dict`, `dequeue_dict`, ...).
    names: Option<Vec<String>>,
    name: String,
    /// The last component of the op name, which TensorFlow's default op names start with.
    base: String,
}

impl Queue {
    /// The queue made by the queue op `op` (`FIFOQueueV2`, ...), e.g. one found by name.
    pub fn from_operation(op: &Operation) -> Result<Queue> {
        let kind = QueueKind::from_op_type(&op.op_type()).ok_or_else(|| {
            Error::invalid_argument(format!(
                "Operation '{}' ({}) is not a queue",
                op.name(),
                op.op_type()
            ))
        })?;
        let (dtypes, shapes) =
            kind.element_signature(op.attr("component_types")?, op.attr("shapes")?);
        Ok(Queue {
            handle: op.output(0)?,
            kind,
            dtypes,
            shapes: (!shapes.is_empty()).then_some(shapes),
            names: None,
            base: op.name().rsplit('/').next().unwrap_or_default().to_string(),
            name: op.name(),
        })
    }

    /// The resource handle tensor (`queue.queue_ref`).
    pub fn queue_ref(&self) -> &Output {
        &self.handle
    }

    /// The queue op.
    pub fn op(&self) -> Operation {
        self.handle.op()
    }

    /// The queue op's name (`queue.name`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The kind of queue.
    pub fn kind(&self) -> QueueKind {
        self.kind
    }

    /// The component dtypes (`queue.dtypes`).
    pub fn dtypes(&self) -> &[DType] {
        &self.dtypes
    }

    /// The component shapes, when specified (`queue.shapes`).
    pub fn shapes(&self) -> Option<&[Shape]> {
        self.shapes.as_deref()
    }

    /// The graph.
    pub fn graph(&self) -> &Graph {
        self.handle.graph()
    }

    fn shape_of(&self, i: usize) -> Shape {
        self.shapes
            .as_ref()
            .map_or_else(Shape::unknown, |s| s[i].clone())
    }

    fn element_shapes(&self) -> Vec<Shape> {
        (0..self.dtypes.len()).map(|i| self.shape_of(i)).collect()
    }

    /// `QueueBase.from_list(index, queues)`: the queue among `queues` that the int32 scalar
    /// `index` picks at run time, e.g. a training or an evaluation input queue chosen by a fed
    /// placeholder. The queues must have the same dtypes and names; a component's shape is what
    /// all the queues' shapes have in common. Its handle is `gather(stack(queue refs), index)`,
    /// as in TensorFlow, and its [`Queue::kind`] is that of `queues[0]`.
    pub fn from_list(index: &Output, queues: &[Queue]) -> Result<Queue> {
        let first = queues
            .first()
            .ok_or_else(|| Error::invalid_argument("A list of queues expected"))?;
        if queues.iter().any(|q| q.dtypes != first.dtypes) {
            return Err(Error::invalid_argument(
                "Queues do not have matching component dtypes.",
            ));
        }
        if queues.iter().any(|q| q.names != first.names) {
            return Err(Error::invalid_argument(
                "Queues do not have matching component names.",
            ));
        }
        let shapes: Vec<Shape> = (0..first.dtypes.len())
            .map(|i| {
                queues
                    .iter()
                    .skip(1)
                    .fold(first.shape_of(i), |s, q| common_shape(&s, &q.shape_of(i)))
            })
            .collect();
        let refs: Vec<Output> = queues.iter().map(|q| q.handle.clone()).collect();
        let stacked = crate::array::stack(&refs, 0)?;
        let handle = crate::array::gather(&stacked, index, 0)?;
        let op = handle.op();
        Ok(Queue {
            kind: first.kind,
            dtypes: first.dtypes.clone(),
            shapes: shapes.iter().any(|s| s.rank().is_some()).then_some(shapes),
            names: first.names.clone(),
            base: op.name().rsplit('/').next().unwrap_or_default().to_string(),
            name: op.name(),
            handle,
        })
    }

    /// This queue with component `names` (`QueueBase(..., names=names)`), checked as TensorFlow
    /// checks them.
    pub fn with_names(mut self, names: &[&str]) -> Result<Queue> {
        if names.len() != self.dtypes.len() {
            return Err(Error::invalid_argument(format!(
                "Queue names must have the same length as dtypes,received len(names)={},len {}",
                names.len(),
                self.dtypes.len()
            )));
        }
        self.names = Some(names.iter().map(|n| n.to_string()).collect());
        Ok(self)
    }

    /// The component names (`queue.names`), if the queue has them.
    pub fn names(&self) -> Option<&[String]> {
        self.names.as_deref()
    }

    /// Refuses a list of values for a queue with names, as TensorFlow does.
    fn positional(&self) -> Result<()> {
        match self.names {
            Some(_) => Err(Error::invalid_argument(
                "You must enqueue a dictionary in a Queue with names",
            )),
            None => Ok(()),
        }
    }

    /// The values of a dictionary enqueue, in the queue's component order.
    fn values_of_dict(&self, vals: &[(&str, Output)]) -> Result<Vec<Output>> {
        let names = self.names.as_ref().ok_or_else(|| {
            Error::invalid_argument("Queue must have names to enqueue a dictionary")
        })?;
        let mut keys: Vec<&str> = vals.iter().map(|(k, _)| *k).collect();
        let mut want: Vec<&str> = names.iter().map(String::as_str).collect();
        keys.sort_unstable();
        want.sort_unstable();
        if keys != want {
            return Err(Error::invalid_argument(format!(
                "Keys in dictionary to enqueue do not match names of Queue.  Dictionary: {},Queue: {}",
                python_list(&keys),
                python_list(&want)
            )));
        }
        Ok(names
            .iter()
            .map(|n| {
                let (_, v) = vals.iter().find(|(k, _)| k == n).expect("keys match names");
                v.clone()
            })
            .collect())
    }

    /// The outputs of a dequeue keyed by component name, as TensorFlow returns them from a
    /// queue with names.
    fn to_dict(&self, outs: Vec<Output>) -> Result<BTreeMap<String, Output>> {
        let names = self.names.as_ref().ok_or_else(|| {
            Error::invalid_argument("Queue must have names to dequeue a dictionary")
        })?;
        Ok(names.iter().cloned().zip(outs).collect())
    }

    fn check_values(&self, vals: &[Output], many: bool) -> Result<()> {
        if vals.len() != self.dtypes.len() {
            return Err(Error::invalid_argument(format!(
                "Queue '{}' has {} components but {} values were given",
                self.name,
                self.dtypes.len(),
                vals.len()
            )));
        }
        let mut batch: Option<usize> = None;
        for (i, v) in vals.iter().enumerate() {
            if !v.graph().ptr_eq(self.graph()) {
                return Err(Error::invalid_argument(format!(
                    "Tensor {} must be from the same graph as queue '{}'.",
                    v.name(),
                    self.name
                )));
            }
            if v.dtype() != self.dtypes[i] {
                return Err(Error::invalid_argument(format!(
                    "Expected {}, got {} of dtype {} for component {i} of queue '{}'",
                    self.dtypes[i],
                    v.name(),
                    v.dtype(),
                    self.name
                )));
            }
            let mut shape = v.shape();
            if many {
                let Some(dims) = shape.dims().map(<[_]>::to_vec) else {
                    continue;
                };
                if dims.is_empty() {
                    return Err(Error::invalid_argument(format!(
                        "Shape {shape} must have rank at least 1 (component {i} of enqueue_many)"
                    )));
                }
                if let Some(d) = dims[0] {
                    if batch.is_some_and(|b| b != d) {
                        return Err(Error::invalid_argument(format!(
                            "Dimensions {} and {d} are not compatible (dimension 0 of the components of enqueue_many)",
                            batch.unwrap_or(0)
                        )));
                    }
                    batch = Some(d);
                }
                shape = Shape::new(dims[1..].to_vec());
            }
            let want = self.shape_of(i);
            if !want.is_compatible_with(&shape) {
                return Err(Error::invalid_argument(format!(
                    "Shapes {} and {} are incompatible",
                    shape.python_str(),
                    want.python_str()
                )));
            }
        }
        Ok(())
    }

    fn scoped_op(&self, suffix: &str, name: Option<&str>) -> weir_graph::NameScope {
        let base = name.map_or_else(|| format!("{}_{suffix}", self.base), str::to_string);
        self.graph().name_scope(&base)
    }

    /// `queue.enqueue(vals)`: adds one element; the op is `<queue>_enqueue`.
    pub fn enqueue(&self, vals: &[Output]) -> Result<Operation> {
        self.enqueue_with(vals, None)
    }

    /// `queue.enqueue(vals, name=name)`.
    pub fn enqueue_with(&self, vals: &[Output], name: Option<&str>) -> Result<Operation> {
        self.positional()?;
        self.add_enqueue(vals, false, name)
    }

    /// `queue.enqueue({name: value, ...})` on a queue with names: every name exactly once.
    pub fn enqueue_dict(&self, vals: &[(&str, Output)]) -> Result<Operation> {
        self.enqueue_dict_with(vals, None)
    }

    /// `queue.enqueue({name: value, ...}, name=name)`.
    pub fn enqueue_dict_with(
        &self,
        vals: &[(&str, Output)],
        name: Option<&str>,
    ) -> Result<Operation> {
        let vals = self.values_of_dict(vals)?;
        self.add_enqueue(&vals, false, name)
    }

    /// Adds the enqueue op (`enqueue_many` when `many`) of checked values.
    fn add_enqueue(&self, vals: &[Output], many: bool, name: Option<&str>) -> Result<Operation> {
        self.check_values(vals, many)?;
        let (suffix, op) = if many {
            ("EnqueueMany", "QueueEnqueueManyV2")
        } else {
            ("enqueue", "QueueEnqueueV2")
        };
        let scope = self.scoped_op(suffix, name);
        crate::new_op(self.graph(), op)
            .name(scope.prefix())
            .input(&self.handle)
            .inputs(vals)
            .build()
    }

    /// `queue.enqueue_many(vals)`: adds the rows of each component (sliced along dimension 0);
    /// the op is `<queue>_EnqueueMany`.
    pub fn enqueue_many(&self, vals: &[Output]) -> Result<Operation> {
        self.enqueue_many_with(vals, None)
    }

    /// `queue.enqueue_many(vals, name=name)`.
    pub fn enqueue_many_with(&self, vals: &[Output], name: Option<&str>) -> Result<Operation> {
        self.positional()?;
        self.add_enqueue(vals, true, name)
    }

    /// `queue.enqueue_many({name: batch, ...})` on a queue with names.
    pub fn enqueue_many_dict(&self, vals: &[(&str, Output)]) -> Result<Operation> {
        self.enqueue_many_dict_with(vals, None)
    }

    /// `queue.enqueue_many({name: batch, ...}, name=name)`.
    pub fn enqueue_many_dict_with(
        &self,
        vals: &[(&str, Output)],
        name: Option<&str>,
    ) -> Result<Operation> {
        let vals = self.values_of_dict(vals)?;
        self.add_enqueue(&vals, true, name)
    }

    /// `queue.dequeue()`: one element, one output per component (in the order of `names` for
    /// a queue with names); the op is `<queue>_Dequeue`.
    pub fn dequeue(&self) -> Result<Vec<Output>> {
        self.dequeue_with(None)
    }

    /// `queue.dequeue()` on a queue with names: the element as a dictionary.
    pub fn dequeue_dict(&self) -> Result<BTreeMap<String, Output>> {
        self.to_dict(self.dequeue_with(None)?)
    }

    /// `queue.dequeue_many(n)` on a queue with names: the batch as a dictionary.
    pub fn dequeue_many_dict(&self, n: usize) -> Result<BTreeMap<String, Output>> {
        self.to_dict(self.dequeue_many(n)?)
    }

    /// `queue.dequeue_up_to(n)` on a queue with names: the batch as a dictionary.
    pub fn dequeue_up_to_dict(&self, n: usize) -> Result<BTreeMap<String, Output>> {
        self.to_dict(self.dequeue_up_to(n)?)
    }

    /// `queue.dequeue(name=name)`.
    pub fn dequeue_with(&self, name: Option<&str>) -> Result<Vec<Output>> {
        let base = name.map_or_else(|| format!("{}_Dequeue", self.base), str::to_string);
        let op = crate::new_op(self.graph(), "QueueDequeueV2")
            .name(base)
            .input(&self.handle)
            .attr("component_types", self.dtypes.clone())
            .attr(ELEMENT_SHAPES, AttrValue::Shapes(self.element_shapes()))
            .build()?;
        Ok(op.outputs())
    }

    fn dequeue_n(
        &self,
        op_type: &str,
        suffix: &str,
        n: usize,
        name: Option<&str>,
    ) -> Result<Vec<Output>> {
        let n = i32::try_from(n).map_err(|_| {
            Error::invalid_argument(format!("Input 'n' must fit in int32, but is {n}"))
        })?;
        let scope = self.scoped_op(suffix, name);
        let n = crate::array::constant_named(self.graph(), Tensor::scalar(n), "n")?;
        let op = crate::new_op(self.graph(), op_type)
            .name(scope.prefix())
            .input(&self.handle)
            .input(n)
            .attr("component_types", self.dtypes.clone())
            .attr(ELEMENT_SHAPES, AttrValue::Shapes(self.element_shapes()))
            .build()?;
        Ok(op.outputs())
    }

    /// `queue.dequeue_many(n)`: exactly `n` elements stacked along a new dimension 0; blocks
    /// until they are there; the op is `<queue>_DequeueMany`.
    pub fn dequeue_many(&self, n: usize) -> Result<Vec<Output>> {
        self.dequeue_n("QueueDequeueManyV2", "DequeueMany", n, None)
    }

    /// `queue.dequeue_many(n, name=name)`.
    pub fn dequeue_many_with(&self, n: usize, name: Option<&str>) -> Result<Vec<Output>> {
        self.dequeue_n("QueueDequeueManyV2", "DequeueMany", n, name)
    }

    /// `queue.dequeue_up_to(n)`: like `dequeue_many`, but once the queue is closed it returns
    /// what is left (at least one); the op is `<queue>_DequeueUpTo`.
    pub fn dequeue_up_to(&self, n: usize) -> Result<Vec<Output>> {
        self.dequeue_n("QueueDequeueUpToV2", "DequeueUpTo", n, None)
    }

    /// `queue.dequeue_up_to(n, name=name)`.
    pub fn dequeue_up_to_with(&self, n: usize, name: Option<&str>) -> Result<Vec<Output>> {
        self.dequeue_n("QueueDequeueUpToV2", "DequeueUpTo", n, name)
    }

    /// `queue.close(cancel_pending_enqueues)`: the op is `<queue>_Close` (`_Close_1`, ...).
    pub fn close(&self, cancel_pending_enqueues: bool) -> Result<Operation> {
        self.close_with(cancel_pending_enqueues, None)
    }

    /// `queue.close(cancel_pending_enqueues, name=name)`.
    pub fn close_with(
        &self,
        cancel_pending_enqueues: bool,
        name: Option<&str>,
    ) -> Result<Operation> {
        let base = name.map_or_else(|| format!("{}_Close", self.base), str::to_string);
        crate::new_op(self.graph(), "QueueCloseV2")
            .name(base)
            .input(&self.handle)
            .attr("cancel_pending_enqueues", cancel_pending_enqueues)
            .build()
    }

    /// `queue.size()`: an int32 scalar, the elements stored now; the op is `<queue>_Size`.
    pub fn size(&self) -> Result<Output> {
        self.size_with(None)
    }

    /// `queue.size(name=name)`.
    pub fn size_with(&self, name: Option<&str>) -> Result<Output> {
        let base = name.map_or_else(|| format!("{}_Size", self.base), str::to_string);
        crate::new_op(self.graph(), "QueueSizeV2")
            .name(base)
            .input(&self.handle)
            .build()?
            .output(0)
    }

    /// `queue.is_closed()`: a bool scalar; the op is `<queue>_Is_Closed`.
    pub fn is_closed(&self) -> Result<Output> {
        let base = format!("{}_Is_Closed", self.base);
        crate::new_op(self.graph(), "QueueIsClosedV2")
            .name(base)
            .input(&self.handle)
            .build()?
            .output(0)
    }
}

/// Python's repr of a list of strings: `['a', 'b']`.
fn python_list(items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| format!("'{s}'")).collect();
    format!("[{}]", quoted.join(", "))
}

/// The most specific shape compatible with both `a` and `b` (TensorFlow's `_shape_common`):
/// unknown when their ranks differ, else each dimension where they agree.
fn common_shape(a: &Shape, b: &Shape) -> Shape {
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
