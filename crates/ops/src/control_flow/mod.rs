//! Control-flow ops: `no_op`, `group`, `tuple`, `Assert`, `cond` (with its `Switch` and
//! `Merge`), `case`, and `while_loop` (with `Enter`, `Exit`, `NextIteration` and `LoopCond`).

mod assert;
mod case;
mod check_ops;
mod cond;
mod functional;
mod functional_fold;
mod functional_scan;
mod loop_ops;
mod switch_merge;
mod to_bool;
mod while_loop;

pub use assert::{assert, Assert};
pub use case::Case;
pub use check_ops::{
    assert_greater, assert_greater_equal, assert_less, assert_less_equal, assert_non_negative,
    with_dependencies,
};
pub use cond::{cond, Cond, CondOutputs, CondValue};
pub use functional::{map_fn, MapFn};
pub use functional_fold::{foldl, foldr, Foldl, Foldr};
pub use functional_scan::{scan, ScanFn};
pub use switch_merge::{merge, merge_named, switch, switch_named};
pub use while_loop::{while_loop, ValueHook, WhileLoop};

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ControlFlowRole, Error, Graph, Kernel, OpContext, OpDef, Operation, Output, Result,
};

/// `tf.no_op()`: does nothing; a target that only its control inputs give meaning to.
pub fn no_op(graph: &Graph) -> Result<Operation> {
    crate::new_op(graph, "NoOp").build()
}

/// `tf.group(*ops, name=name)`: a `NoOp` that runs after every op in `ops`, named
/// `group_deps` by default as in TensorFlow.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, control_flow::group};
/// let g = Graph::new();
/// let a = constant(&g, 1.0f32)?.op();
/// let b = constant(&g, 2.0f32)?.op();
/// let both = group(&g, &[a, b], Some("init"))?;
/// assert_eq!(both.control_inputs().len(), 2);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn group(graph: &Graph, ops: &[Operation], name: Option<&str>) -> Result<Operation> {
    let mut b = crate::new_op(graph, "NoOp").name(name.unwrap_or("group_deps"));
    for op in ops {
        b = b.control_input(op);
    }
    b.build()
}

/// `tf.tuple(tensors)`: the same tensors, each available only once all of them are computed.
pub fn tuple(tensors: &[Output]) -> Result<Vec<Output>> {
    let first = tensors
        .first()
        .ok_or_else(|| Error::invalid_argument("tuple needs at least one tensor"))?;
    let graph = first.graph().clone();
    let _scope = graph.name_scope("tuple");
    let ops: Vec<Operation> = tensors.iter().map(Output::op).collect();
    let gate = group(&graph, &ops, None)?;
    tensors
        .iter()
        .map(|t| {
            crate::new_op(&graph, "Identity")
                .input(t)
                .control_input(&gate)
                .build()?
                .output(0)
        })
        .collect()
}

struct NoOpKernel;

impl Kernel for NoOpKernel {
    fn compute(&self, _ctx: &mut OpContext<'_>) -> Result<()> {
        Ok(())
    }
}

/// `ControlTrigger`: does nothing, and is never dead, so what waits on it runs even when it
/// waits on ops of an untaken branch (TensorFlow's gradient loops use it).
struct ControlTriggerKernel;

impl Kernel for ControlTriggerKernel {
    fn compute(&self, _ctx: &mut OpContext<'_>) -> Result<()> {
        Ok(())
    }

    fn control_flow_role(&self) -> ControlFlowRole {
        ControlFlowRole::Trigger
    }
}

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    register_op(OpDef::new("NoOp"));
    register_kernel("NoOp", |_| Ok(Box::new(NoOpKernel)));
    register_op(OpDef::new("ControlTrigger"));
    register_kernel("ControlTrigger", |_| Ok(Box::new(ControlTriggerKernel)));
    assert::register();
    switch_merge::register();
    loop_ops::register();
    to_bool::register();
}
