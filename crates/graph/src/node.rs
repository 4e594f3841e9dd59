//! Nodes, and the `Output` and `Operation` handles that refer to them.

use std::fmt;
use std::sync::{Arc, OnceLock};

use crate::attr::{get_attr, AttrValue, Attrs, FromAttr};
use crate::{DType, Error, Graph, OpDef, Result, Shape};

/// One node of a graph: TensorFlow's `NodeDef`, plus the output dtypes and static shapes computed
/// when it was added. Immutable once added.
pub struct Node {
    pub(crate) id: usize,
    pub(crate) name: String,
    pub(crate) def: Arc<OpDef>,
    pub(crate) inputs: Vec<(usize, usize)>,
    pub(crate) control_inputs: Vec<usize>,
    pub(crate) attrs: Attrs,
    pub(crate) output_dtypes: Vec<DType>,
    pub(crate) output_shapes: Vec<Shape>,
    /// The control-flow context the node was built in (a `cond` branch), by id.
    pub(crate) context: Option<usize>,
    /// A while loop's `Merge`: the `NextIteration` output that is its last input, set once the
    /// loop's body exists. Kept apart from `inputs` so that a node's inputs still come before it.
    pub(crate) back_edge: OnceLock<(usize, usize)>,
}

impl Node {
    /// The node's index in its graph; inputs always have smaller indices.
    pub fn id(&self) -> usize {
        self.id
    }

    /// The unique name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The op type (`Placeholder`, `MatMul`, ...).
    pub fn op_type(&self) -> &str {
        &self.def.name
    }

    /// The registered signature of the op type.
    pub fn op_def(&self) -> &OpDef {
        &self.def
    }

    /// The data inputs, as (node id, output index).
    pub fn inputs(&self) -> &[(usize, usize)] {
        &self.inputs
    }

    /// The control inputs, as node ids.
    pub fn control_inputs(&self) -> &[usize] {
        &self.control_inputs
    }

    /// All attributes, defaults included.
    pub fn attrs(&self) -> &Attrs {
        &self.attrs
    }

    /// Attribute `name` as `T`; InvalidArgument naming the node if missing or of another kind.
    pub fn attr<T: FromAttr>(&self, name: &str) -> Result<T> {
        get_attr(&self.attrs, name).map_err(|e| e.with_node(&self.name, self.op_type()))
    }

    /// The raw attribute value.
    pub fn attr_value(&self, name: &str) -> Option<&AttrValue> {
        self.attrs.get(name)
    }

    /// The value of a `Const` node, which shape functions may read from their inputs.
    pub fn const_value(&self) -> Option<&crate::Tensor> {
        match (self.op_type(), self.attrs.get("value")) {
            ("Const", Some(AttrValue::Tensor(t))) => Some(t),
            _ => None,
        }
    }

    /// The dtypes of the outputs.
    pub fn output_dtypes(&self) -> &[DType] {
        &self.output_dtypes
    }

    /// The static shapes of the outputs.
    pub fn output_shapes(&self) -> &[Shape] {
        &self.output_shapes
    }

    /// The id of the control-flow context (a branch of `cond`) the node was built in.
    pub fn control_flow_context(&self) -> Option<usize> {
        self.context
    }

    /// Whether the op type is stateful.
    pub fn is_stateful(&self) -> bool {
        self.def.is_stateful
    }

    /// For the `Merge` of a while loop's variable, the `NextIteration` output it also takes:
    /// TensorFlow's back edge, an input added after the node (`op._update_input(1, ..)`).
    /// [`inputs`](Self::inputs) leaves it out, so they always come before the node.
    pub fn loop_back_edge(&self) -> Option<(usize, usize)> {
        self.back_edge.get().copied()
    }

    /// A copy of this node (same id, name, op and attributes) with other inputs and outputs: what
    /// a run plan puts in a node's place when it runs something else there (a whole while loop
    /// in place of its first `Exit`).
    pub fn rewired(
        &self,
        inputs: Vec<(usize, usize)>,
        control_inputs: Vec<usize>,
        output_dtypes: Vec<DType>,
        output_shapes: Vec<Shape>,
    ) -> Node {
        Node {
            id: self.id,
            name: self.name.clone(),
            def: self.def.clone(),
            inputs,
            control_inputs,
            attrs: self.attrs.clone(),
            output_dtypes,
            output_shapes,
            context: self.context,
            back_edge: OnceLock::new(),
        }
    }
}

impl fmt::Debug for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Node({} = {})", self.name, self.def.name)
    }
}

/// A handle to a node: TensorFlow's `tf.Operation`. Knows its graph; cheap to clone.
#[derive(Clone)]
pub struct Operation {
    pub(crate) graph: Graph,
    pub(crate) id: usize,
}

impl Operation {
    /// The graph the operation belongs to.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The node's index in its graph.
    pub fn id(&self) -> usize {
        self.id
    }

    /// The node.
    pub fn node(&self) -> Arc<Node> {
        self.graph.node(self.id)
    }

    /// The unique name.
    pub fn name(&self) -> String {
        self.node().name.clone()
    }

    /// The op type.
    pub fn op_type(&self) -> String {
        self.node().def.name.clone()
    }

    /// The number of outputs.
    pub fn num_outputs(&self) -> usize {
        self.node().output_dtypes.len()
    }

    /// Output `index`; InvalidArgument if there is no such output.
    pub fn output(&self, index: usize) -> Result<Output> {
        let n = self.num_outputs();
        if index >= n {
            return Err(Error::invalid_argument(format!(
                "Operation '{}' has {n} outputs, not {}",
                self.name(),
                index + 1
            )));
        }
        Ok(Output {
            graph: self.graph.clone(),
            node: self.id,
            index,
        })
    }

    /// Every output.
    pub fn outputs(&self) -> Vec<Output> {
        (0..self.num_outputs())
            .map(|index| Output {
                graph: self.graph.clone(),
                node: self.id,
                index,
            })
            .collect()
    }

    /// The data inputs.
    pub fn inputs(&self) -> Vec<Output> {
        self.node()
            .inputs
            .iter()
            .map(|&(node, index)| Output {
                graph: self.graph.clone(),
                node,
                index,
            })
            .collect()
    }

    /// The control inputs.
    pub fn control_inputs(&self) -> Vec<Operation> {
        self.node()
            .control_inputs
            .iter()
            .map(|&id| Operation {
                graph: self.graph.clone(),
                id,
            })
            .collect()
    }

    /// Attribute `name` as `T`.
    pub fn attr<T: FromAttr>(&self, name: &str) -> Result<T> {
        self.node().attr(name)
    }
}

impl PartialEq for Operation {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id && self.graph.ptr_eq(&other.graph)
    }
}
impl Eq for Operation {}

impl std::hash::Hash for Operation {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id.hash(state);
    }
}

impl fmt::Debug for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.node();
        write!(f, "Operation({} = {})", n.name, n.def.name)
    }
}

/// One output of a node: TensorFlow's symbolic `tf.Tensor` (`"x:0"`). Knows its graph; cheap to
/// clone.
#[derive(Clone)]
pub struct Output {
    pub(crate) graph: Graph,
    pub(crate) node: usize,
    pub(crate) index: usize,
}

impl Output {
    /// The graph the output belongs to.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The producing operation.
    pub fn op(&self) -> Operation {
        Operation {
            graph: self.graph.clone(),
            id: self.node,
        }
    }

    /// The producing node's index in its graph.
    pub fn node_id(&self) -> usize {
        self.node
    }

    /// Which output of the node this is.
    pub fn index(&self) -> usize {
        self.index
    }

    /// TensorFlow's tensor name, `node:index`.
    pub fn name(&self) -> String {
        format!("{}:{}", self.graph.node(self.node).name, self.index)
    }

    /// The dtype.
    pub fn dtype(&self) -> DType {
        self.graph.node(self.node).output_dtypes[self.index]
    }

    /// The static shape (possibly partly unknown).
    pub fn shape(&self) -> Shape {
        self.graph.node(self.node).output_shapes[self.index].clone()
    }
}

impl From<&Output> for Output {
    fn from(o: &Output) -> Output {
        o.clone()
    }
}

impl PartialEq for Output {
    fn eq(&self, other: &Self) -> bool {
        self.node == other.node && self.index == other.index && self.graph.ptr_eq(&other.graph)
    }
}
impl Eq for Output {}

impl std::hash::Hash for Output {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.node.hash(state);
        self.index.hash(state);
    }
}

impl fmt::Debug for Output {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Output({} {} {})",
            self.name(),
            self.dtype(),
            self.shape()
        )
    }
}
