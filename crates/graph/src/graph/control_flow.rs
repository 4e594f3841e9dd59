//! Control-flow contexts: while a branch of `tf.cond` or the body of a `tf.while_loop` is being
//! built, every op added to the graph passes through its context, which brings in the values the
//! op reads from outside (TensorFlow's `ControlFlowContext`, entered and exited around `true_fn`
//! and `false_fn`, or `cond` and `body`).

use std::any::Any;
use std::sync::Arc;

use super::Graph;
use crate::node::{Operation, Output};
use crate::{Error, Result};

/// A context ops are built in, such as one branch of a conditional: TensorFlow's
/// `ControlFlowContext` (`CondContext`).
///
/// The graph calls [`add_op`](ControlFlowContext::add_op) for each op built while the context is
/// the innermost one entered, before the op is added: the context may replace data inputs (with
/// values it guards) and add control inputs, as TensorFlow's `CondContext.AddOp` does.
pub trait ControlFlowContext: Any + Send + Sync {
    /// Rewrites the inputs of the op about to be added under `name`; ops built from here (a
    /// `Switch` guarding an input) are themselves built in this context.
    fn add_op(
        &self,
        graph: &Graph,
        name: &str,
        inputs: &mut [Output],
        control_inputs: &mut Vec<Operation>,
    ) -> Result<()>;

    /// The value ops built in this context read for `x` (TensorFlow's `AddValue`): `x` itself
    /// when it comes from within the context, otherwise `x` brought in (through a `Switch` into
    /// a branch, an `Enter` into a loop), after the enclosing contexts brought it into theirs.
    fn add_value(&self, graph: &Graph, x: &Output) -> Result<Output>;

    /// The context as `Any`, to reach its concrete type.
    fn as_any(&self) -> &dyn Any;
}

/// One entered context (its id is its index in the graph's list) and the id of the context it
/// was entered in.
#[derive(Clone)]
pub(super) struct ContextEntry {
    pub outer: Option<usize>,
    pub context: Arc<dyn ControlFlowContext>,
}

/// Keeps a control-flow context entered; see [`Graph::enter_control_flow_context`].
#[must_use = "the context is exited when the guard drops"]
pub struct ControlFlowGuard {
    graph: Graph,
    id: usize,
}

impl ControlFlowGuard {
    /// The id of the entered context, as [`Graph::control_flow_context_of`] reports it for the
    /// nodes built in it.
    pub fn id(&self) -> usize {
        self.id
    }
}

impl Drop for ControlFlowGuard {
    fn drop(&mut self) {
        let mut st = self.graph.0.state.write();
        if let Some(pos) = st.context_stack.iter().rposition(|&c| c == self.id) {
            st.context_stack.truncate(pos);
        }
    }
}

impl Graph {
    /// Enters `context` until the guard drops: ops built meanwhile pass through its
    /// [`add_op`](ControlFlowContext::add_op) and belong to it (TensorFlow's `context.Enter()`).
    pub fn enter_control_flow_context(
        &self,
        context: Arc<dyn ControlFlowContext>,
    ) -> ControlFlowGuard {
        let mut st = self.0.state.write();
        let id = st.contexts.len();
        let outer = st.context_stack.last().copied();
        st.contexts.push(ContextEntry { outer, context });
        st.context_stack.push(id);
        ControlFlowGuard {
            graph: self.clone(),
            id,
        }
    }

    /// The innermost entered context, with its id.
    pub fn current_control_flow_context(&self) -> Option<(usize, Arc<dyn ControlFlowContext>)> {
        let st = self.0.state.read();
        let id = *st.context_stack.last()?;
        Some((id, st.contexts[id].context.clone()))
    }

    /// The context with id `id`.
    pub fn control_flow_context(&self, id: usize) -> Option<Arc<dyn ControlFlowContext>> {
        self.0
            .state
            .read()
            .contexts
            .get(id)
            .map(|e| e.context.clone())
    }

    /// The id of the context `id` was entered in (None for one entered at top level).
    pub fn outer_control_flow_context(&self, id: usize) -> Option<usize> {
        self.0.state.read().contexts.get(id).and_then(|e| e.outer)
    }

    /// The id of the context node `node` was built in, if any.
    pub fn control_flow_context_of(&self, node: usize) -> Option<usize> {
        self.0.state.read().nodes.get(node).and_then(|n| n.context)
    }

    /// Whether context `inner` is `outer` or was entered, directly or not, inside it.
    pub fn context_is_within(&self, inner: usize, outer: usize) -> bool {
        let st = self.0.state.read();
        let mut at = Some(inner);
        while let Some(c) = at {
            if c == outer {
                return true;
            }
            at = st.contexts.get(c).and_then(|e| e.outer);
        }
        false
    }

    /// Adds a while loop's back edge: `next`, a `NextIteration` output, becomes the last input of
    /// `merge`, a `Merge` built with the loop variable's `Enter` alone (TensorFlow's
    /// `merge.op._update_input(1, next)` in `while_loop`). See
    /// [`Node::loop_back_edge`](crate::Node::loop_back_edge).
    pub fn set_loop_back_edge(&self, merge: &Operation, next: &Output) -> Result<()> {
        if !merge.graph.ptr_eq(self) || !next.graph.ptr_eq(self) {
            return Err(Error::invalid_argument(
                "A loop's back edge must join nodes of this graph",
            ));
        }
        let st = self.0.state.read();
        let (m, n) = (&st.nodes[merge.id], &st.nodes[next.node]);
        if m.op_type() != "Merge" || n.op_type() != "NextIteration" {
            return Err(Error::invalid_argument(format!(
                "A loop's back edge goes from a NextIteration to a Merge, not from '{}' ({}) to '{}' ({})",
                n.name(),
                n.op_type(),
                m.name(),
                m.op_type()
            )));
        }
        if n.output_dtypes[next.index] != m.output_dtypes[0] {
            return Err(Error::invalid_argument(format!(
                "The back edge of '{}' has type {}, but the loop variable has type {}",
                m.name(),
                n.output_dtypes[next.index],
                m.output_dtypes[0]
            )));
        }
        m.back_edge
            .set((next.node, next.index))
            .map_err(|_| Error::invalid_argument(format!("'{}' already has a back edge", m.name())))
    }
}
