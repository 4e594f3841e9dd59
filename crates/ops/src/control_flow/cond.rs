//! `tf.cond` as TensorFlow 1 builds it: the predicate switches itself into two pivots, each
//! branch is built in a [`CondContext`] that guards every value it reads from outside with a
//! `Switch` on the predicate (and makes its input-less ops wait for its pivot), and a `Merge` per
//! result forwards the taken branch's value. The untaken branch's ops are dead in a run: they
//! do not run at all, so a queue read in it takes nothing.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use weir_graph::{ControlFlowContext, DType, Error, Graph, Operation, Output, Result};

use super::switch_merge::{merge, switch};
use crate::array::identity_named;

/// One branch of a conditional while it is built: TensorFlow's `CondContext`.
struct CondContext {
    /// The predicate, as `cond/pred_id`.
    pred: Output,
    /// `cond/switch_t` or `cond/switch_f`: live exactly when this branch is taken.
    pivot: Output,
    /// 1 for the true branch, 0 for the false one: the `Switch` output this branch reads.
    branch: usize,
    /// The id the graph gave the context when it was entered.
    id: OnceLock<usize>,
    /// Values from outside the branch, by (node, output), mapped to the guarded value the
    /// branch reads instead (and the predicate and pivot to themselves).
    values: Mutex<HashMap<(usize, usize), Output>>,
}

fn key(x: &Output) -> (usize, usize) {
    (x.node_id(), x.index())
}

impl CondContext {
    fn new(pred: &Output, pivot: &Output, branch: usize) -> CondContext {
        let values = [pred, pivot].into_iter().map(|v| (key(v), v.clone()));
        CondContext {
            pred: pred.clone(),
            pivot: pivot.clone(),
            branch,
            id: OnceLock::new(),
            values: Mutex::new(values.collect()),
        }
    }

    fn id(&self) -> Result<usize> {
        self.id
            .get()
            .copied()
            .ok_or_else(|| Error::internal("cond context used before it was entered"))
    }

    /// What the branch reads for `x` (TensorFlow's `CondContext.AddValue`): `x` itself when it
    /// was built in the branch, otherwise `x` through a `Switch` on the predicate (first through
    /// the enclosing branches' own, for a nested conditional), made once per value.
    fn add_value(&self, g: &Graph, x: &Output) -> Result<Output> {
        if let Some(v) = self.values.lock().get(&key(x)) {
            return Ok(v.clone());
        }
        let me = self.id()?;
        if let Some(c) = g.control_flow_context_of(x.node_id()) {
            if g.context_is_within(c, me) {
                return Ok(x.clone());
            }
        }
        let outer = match g
            .outer_control_flow_context(me)
            .and_then(|o| g.control_flow_context(o))
        {
            Some(c) => c.add_value(g, x)?,
            None => x.clone(),
        };
        // Built as TensorFlow builds it: outside every context and control dependency, then
        // made a member of this one.
        let switch = {
            let _no_deps = g.init_scope();
            crate::new_op(g, "Switch")
                .input(&outer)
                .input(&self.pred)
                .member_of_context(me)
                .build()?
        };
        let guarded = switch.output(self.branch)?;
        let mut values = self.values.lock();
        values.insert(key(x), guarded.clone());
        values.insert(key(&outer), guarded.clone());
        Ok(guarded)
    }

    /// A branch's result as the branch's own tensor: an external value guarded, an op turned
    /// into the pivot run after it (TensorFlow's `_BuildCondTensor`).
    fn result_tensor(&self, g: &Graph, v: CondValue) -> Result<Output> {
        match v {
            CondValue::Tensor(x) => self.add_value(g, &x),
            CondValue::Op(op) => {
                let _deps = g.control_dependencies(&[op])?;
                identity_named(&self.pivot, "control_dependency")
            }
        }
    }
}

impl ControlFlowContext for CondContext {
    fn add_op(
        &self,
        graph: &Graph,
        name: &str,
        inputs: &mut [Output],
        control_inputs: &mut Vec<Operation>,
    ) -> Result<()> {
        if inputs.is_empty() {
            // An op without inputs (a constant) runs only when the branch is taken, unless a
            // control input from within the branch already makes it wait.
            let me = self.id()?;
            let inside = control_inputs.iter().any(|c| {
                graph
                    .control_flow_context_of(c.id())
                    .is_some_and(|cx| graph.context_is_within(cx, me))
            });
            if !inside {
                control_inputs.push(self.pivot.op());
            }
            return Ok(());
        }
        // The guarding Switches go under the op's own name (`cond/mul/Switch`), as TensorFlow
        // names them.
        let _scope = graph.name_scope(&format!("{name}/"));
        for x in inputs.iter_mut() {
            *x = self.add_value(graph, x)?;
        }
        Ok(())
    }

    fn add_value(&self, graph: &Graph, x: &Output) -> Result<Output> {
        CondContext::add_value(self, graph, x)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// One value a branch of [`cond`] returns: a tensor, or an op to run (the result is then a
/// boolean tensor that is ready once the op has run).
pub enum CondValue {
    /// A tensor, from inside the branch or outside it.
    Tensor(Output),
    /// An op (`lambda: tf.no_op()`, `lambda: train_op`).
    Op(Operation),
}

/// What the branches of [`cond`] may return, and what `cond` then returns: an [`Output`], an
/// [`Operation`], a pair of outputs, or a `Vec<Output>`, both branches alike.
pub trait CondOutputs: Sized {
    /// The branch's values, flattened.
    fn into_values(self) -> Vec<CondValue>;
    /// The merged values in the same structure (`like` is one branch's result).
    fn from_merged(merged: Vec<Output>) -> Result<Self>;
}

impl CondOutputs for Output {
    fn into_values(self) -> Vec<CondValue> {
        vec![CondValue::Tensor(self)]
    }
    fn from_merged(mut merged: Vec<Output>) -> Result<Self> {
        merged
            .pop()
            .ok_or_else(|| Error::internal("no merged value"))
    }
}

impl CondOutputs for Operation {
    fn into_values(self) -> Vec<CondValue> {
        vec![CondValue::Op(self)]
    }
    fn from_merged(merged: Vec<Output>) -> Result<Self> {
        Ok(Output::from_merged(merged)?.op())
    }
}

impl CondOutputs for (Output, Output) {
    fn into_values(self) -> Vec<CondValue> {
        vec![CondValue::Tensor(self.0), CondValue::Tensor(self.1)]
    }
    fn from_merged(merged: Vec<Output>) -> Result<Self> {
        match <[Output; 2]>::try_from(merged) {
            Ok([a, b]) => Ok((a, b)),
            Err(_) => Err(Error::internal("expected two merged values")),
        }
    }
}

impl CondOutputs for Vec<Output> {
    fn into_values(self) -> Vec<CondValue> {
        self.into_iter().map(CondValue::Tensor).collect()
    }
    fn from_merged(merged: Vec<Output>) -> Result<Self> {
        Ok(merged)
    }
}

/// `tf.cond(pred, true_fn, false_fn, name)` with its options; see [`cond`].
#[derive(Clone, Debug, Default)]
pub struct Cond {
    name: Option<String>,
}

impl Cond {
    /// A conditional named `cond` (made unique).
    pub fn new() -> Cond {
        Cond::default()
    }

    /// The name scope of the conditional's ops (TensorFlow's `name`).
    pub fn name(mut self, name: &str) -> Cond {
        self.name = Some(name.to_string());
        self
    }

    /// Builds the conditional; see [`cond`].
    pub fn build<R: CondOutputs>(
        &self,
        pred: &Output,
        true_fn: impl FnOnce() -> Result<R>,
        false_fn: impl FnOnce() -> Result<R>,
    ) -> Result<R> {
        if pred.dtype() != DType::Bool {
            return Err(Error::invalid_argument(format!(
                "Input 'pred' of 'Switch' Op has type {} that does not match expected type of bool.",
                pred.dtype().python_name()
            )));
        }
        let g = pred.graph().clone();
        let _scope = g.name_scope(self.name.as_deref().unwrap_or("cond"));
        let (p_false, p_true) = switch(pred, pred)?;
        let pivot_t = identity_named(&p_true, "switch_t")?;
        let pivot_f = identity_named(&p_false, "switch_f")?;
        let pred_id = identity_named(pred, "pred_id")?;
        let res_t = build_branch(&g, &pred_id, &pivot_t, 1, true_fn)?;
        let res_f = build_branch(&g, &pred_id, &pivot_f, 0, false_fn)?;
        if res_t.len() != res_f.len() {
            return Err(Error::invalid_argument(format!(
                "The two structures don't have the same nested structure: 'true_fn' returned {} values and 'false_fn' {}.",
                res_t.len(),
                res_f.len()
            )));
        }
        let (dt, df): (Vec<DType>, Vec<DType>) = res_t
            .iter()
            .zip(&res_f)
            .map(|(t, f)| (t.dtype(), f.dtype()))
            .unzip();
        if dt != df {
            let names = |d: &[DType]| {
                d.iter()
                    .map(|d| d.python_name())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return Err(Error::invalid_argument(format!(
                "Outputs of 'true_fn' and 'false_fn' must have the same type(s). Received {} from 'true_fn' and {} from 'false_fn'.",
                names(&dt),
                names(&df)
            )));
        }
        let merged = res_f
            .into_iter()
            .zip(res_t)
            .map(|(f, t)| Ok(merge(&[f, t])?.0))
            .collect::<Result<Vec<_>>>()?;
        R::from_merged(merged)
    }
}

/// Builds one branch in its own context and returns its values as the branch's tensors.
fn build_branch<R: CondOutputs>(
    g: &Graph,
    pred: &Output,
    pivot: &Output,
    branch: usize,
    f: impl FnOnce() -> Result<R>,
) -> Result<Vec<Output>> {
    let ctx = Arc::new(CondContext::new(pred, pivot, branch));
    let guard = g.enter_control_flow_context(ctx.clone());
    ctx.id
        .set(guard.id())
        .map_err(|_| Error::internal("cond context entered twice"))?;
    let values = f()?.into_values();
    if values.is_empty() {
        return Err(Error::invalid_argument(
            "cond branches must return at least one tensor or op",
        ));
    }
    values
        .into_iter()
        .map(|v| ctx.result_tensor(g, v))
        .collect()
}

/// `tf.cond(pred, true_fn, false_fn)`: `true_fn()`'s values when the scalar boolean `pred` is
/// true in a run, `false_fn()`'s otherwise. Only the taken branch runs: ops built inside the
/// other (a queue's dequeue, a variable's update) do nothing in that run.
///
/// Both functions are called once, while building, and must return the same structure of
/// values of the same dtypes. Values they read from outside are guarded by `Switch` ops, and the
/// results are `Merge`d, exactly as in TensorFlow 1 (`tf.compat.v1.cond` without control flow
/// v2), so exported graphs run in TensorFlow and its graphs import here.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::{constant, placeholder}, control_flow::cond};
/// let g = Graph::new();
/// let is_training = placeholder(&g, DType::Bool, Shape::scalar())?;
/// let x = constant(&g, 3.0f32)?;
/// let y = cond(&is_training, || x.clone() * 2.0f32, || constant(&g, 7.0f32))?;
/// assert_eq!(y.dtype(), DType::F32);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn cond<R: CondOutputs>(
    pred: &Output,
    true_fn: impl FnOnce() -> Result<R>,
    false_fn: impl FnOnce() -> Result<R>,
) -> Result<R> {
    Cond::new().build(pred, true_fn, false_fn)
}
