//! `tf.while_loop` as TensorFlow 1 builds it: each loop variable enters the loop's frame through
//! an `Enter` and a `Merge` (whose second input, the back edge, is the variable's
//! `NextIteration`), the predicate becomes a `LoopCond` that `Switch`es every variable either into
//! the body (through an `Identity`) or out of the loop (through an `Exit`). The condition and the
//! body are built in a [`WhileContext`] that brings every value they read from outside in through
//! an `Enter` marked constant, so a value computed before the loop is computed once.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use weir_graph::{
    ControlFlowContext, DType, Error, Graph, Operation, Output, Result, Shape, Tensor,
};

use super::switch_merge::switch_named;
use crate::array::{constant, constant_named, identity, stop_gradient};
use crate::math::{add, less, logical_and};

/// The body and condition of one while loop while they are built: TensorFlow's `WhileContext`.
struct WhileContext {
    /// The frame's name, as the `Enter` ops carry it (`while/while_context`).
    frame_name: String,
    parallel_iterations: i64,
    /// The id the graph gave the context when it was entered.
    id: OnceLock<usize>,
    /// What ops without inputs wait for: the first variable's `Merge` while the condition is
    /// built, its `Identity` in the body (TensorFlow's `GetControlPivot`).
    pivot: Mutex<Option<Output>>,
    /// Values from outside the loop, by (node, output), mapped to their `Enter`.
    values: Mutex<HashMap<(usize, usize), Output>>,
    hook: Option<ValueHook>,
}

/// What a loop reads for a value from outside it: a value of the loop itself (read as it is),
/// another value from outside (brought in instead), or `None` to bring the value in as usual.
/// See [`WhileLoop::value_hook`].
pub type ValueHook = Arc<dyn Fn(&Graph, &Output) -> Result<Option<Output>> + Send + Sync>;

fn key(x: &Output) -> (usize, usize) {
    (x.node_id(), x.index())
}

impl WhileContext {
    fn id(&self) -> Result<usize> {
        self.id
            .get()
            .copied()
            .ok_or_else(|| Error::internal("while context used before it was entered"))
    }

    /// Whether node `node` was built in this loop (or in a context inside it).
    fn contains(&self, g: &Graph, node: usize) -> Result<bool> {
        let me = self.id()?;
        Ok(g.control_flow_context_of(node)
            .is_some_and(|c| g.context_is_within(c, me)))
    }

    /// An `Enter` of this frame, built outside every control dependency and made a member of
    /// the loop.
    fn enter(
        &self,
        g: &Graph,
        x: &Output,
        is_constant: bool,
        shape: Option<Shape>,
    ) -> Result<Output> {
        let _no_deps = g.init_scope();
        let mut b = crate::new_op(g, "Enter")
            .input(x)
            .attr("frame_name", self.frame_name.as_str())
            .attr("is_constant", is_constant)
            .attr("parallel_iterations", self.parallel_iterations)
            .member_of_context(self.id()?);
        if let Some(s) = shape {
            b = b.output_shape(0, s);
        }
        b.build()?.output(0)
    }

    fn add_value_impl(&self, g: &Graph, x: &Output) -> Result<Output> {
        if let Some(v) = self.values.lock().get(&key(x)) {
            return Ok(v.clone());
        }
        if self.contains(g, x.node_id())? {
            return Ok(x.clone());
        }
        // The hook may give a value of the loop itself (a pop of a stack), or another value
        // from outside to bring in instead.
        let given = x;
        let mapped = match &self.hook {
            Some(hook) => hook(g, x)?,
            None => None,
        };
        let x = mapped.as_ref().unwrap_or(x);
        if mapped.is_some() && self.contains(g, x.node_id())? {
            self.values.lock().insert(key(given), x.clone());
            return Ok(x.clone());
        }
        let outer = match g
            .outer_control_flow_context(self.id()?)
            .and_then(|o| g.control_flow_context(o))
        {
            Some(c) => c.add_value(g, x)?,
            None => x.clone(),
        };
        let entered = self.enter(g, &outer, true, None)?;
        let mut values = self.values.lock();
        values.insert(key(given), entered.clone());
        values.insert(key(x), entered.clone());
        values.insert(key(&outer), entered.clone());
        Ok(entered)
    }

    fn pivot(&self) -> Result<Output> {
        self.pivot
            .lock()
            .clone()
            .ok_or_else(|| Error::internal("while context has no pivot yet"))
    }
}

impl ControlFlowContext for WhileContext {
    fn add_op(
        &self,
        graph: &Graph,
        name: &str,
        inputs: &mut [Output],
        control_inputs: &mut Vec<Operation>,
    ) -> Result<()> {
        // Control inputs from outside the loop become data: an Identity of their first output,
        // brought in like any value (ops without outputs are dropped, as TensorFlow drops them).
        let mut external = Vec::new();
        let mut internal = Vec::new();
        for c in control_inputs.drain(..) {
            if self.contains(graph, c.id())? {
                internal.push(c);
            } else {
                external.push(c);
            }
        }
        *control_inputs = internal;
        if inputs.is_empty() {
            if control_inputs.is_empty() {
                control_inputs.push(self.pivot()?.op());
            }
        } else {
            let _scope = graph.name_scope(&format!("{name}/"));
            for x in inputs.iter_mut() {
                *x = self.add_value_impl(graph, x)?;
            }
            // An op reading only loop invariants waits for the pivot, so it runs once per
            // iteration rather than once (TensorFlow's `_MaybeAddControlDependency`).
            let free = control_inputs.is_empty()
                && inputs.iter().all(|x| {
                    let op = x.op();
                    op.op_type() == "Enter" && op.attr::<bool>("is_constant").unwrap_or(false)
                });
            if free {
                control_inputs.push(self.pivot()?.op());
            }
        }
        for c in external {
            let Ok(first) = c.output(0) else { continue };
            let entered = self.add_value_impl(graph, &first)?;
            let _no_deps = graph.init_scope();
            let id = crate::new_op(graph, "Identity")
                .input(&entered)
                .control_input(&self.pivot()?.op())
                .member_of_context(self.id()?)
                .build()?;
            control_inputs.push(id);
        }
        Ok(())
    }

    fn add_value(&self, graph: &Graph, x: &Output) -> Result<Output> {
        self.add_value_impl(graph, x)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// `tf.while_loop(cond, body, loop_vars, ...)` with its options; see [`while_loop`].
#[derive(Clone)]
pub struct WhileLoop {
    name: Option<String>,
    parallel_iterations: i64,
    back_prop: bool,
    swap_memory: bool,
    maximum_iterations: Option<Output>,
    shape_invariants: Option<Vec<Shape>>,
    hook: Option<ValueHook>,
}

impl std::fmt::Debug for WhileLoop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WhileLoop")
            .field("name", &self.name)
            .field("parallel_iterations", &self.parallel_iterations)
            .field("back_prop", &self.back_prop)
            .field("maximum_iterations", &self.maximum_iterations)
            .field("shape_invariants", &self.shape_invariants)
            .finish_non_exhaustive()
    }
}

impl Default for WhileLoop {
    fn default() -> Self {
        WhileLoop {
            name: None,
            parallel_iterations: 10,
            back_prop: true,
            swap_memory: false,
            maximum_iterations: None,
            shape_invariants: None,
            hook: None,
        }
    }
}

impl WhileLoop {
    /// A loop named `while` (made unique), with TensorFlow's defaults.
    pub fn new() -> WhileLoop {
        WhileLoop::default()
    }

    /// The name scope of the loop's ops (TensorFlow's `name`).
    pub fn name(mut self, name: &str) -> WhileLoop {
        self.name = Some(name.to_string());
        self
    }

    /// How many iterations TensorFlow may run at once (default 10). Recorded on the `Enter`
    /// ops; weir runs iterations one after another, which gives the same values.
    pub fn parallel_iterations(mut self, n: i64) -> WhileLoop {
        self.parallel_iterations = n;
        self
    }

    /// Whether gradients may flow through the loop (default true).
    pub fn back_prop(mut self, on: bool) -> WhileLoop {
        self.back_prop = on;
        self
    }

    /// TensorFlow's `swap_memory` (default false): whether its gradient may keep forward values
    /// in host memory. weir has one memory, so it changes nothing.
    pub fn swap_memory(mut self, on: bool) -> WhileLoop {
        self.swap_memory = on;
        self
    }

    /// At most this many iterations (a scalar integer tensor): the loop also stops once it has
    /// run that many, as TensorFlow builds it with a counter variable.
    pub fn maximum_iterations(mut self, n: &Output) -> WhileLoop {
        self.maximum_iterations = Some(n.clone());
        self
    }

    /// The shape each variable keeps across iterations, one per loop variable: a less specific
    /// shape lets a variable change shape from one iteration to the next.
    pub fn shape_invariants(mut self, shapes: Vec<Shape>) -> WhileLoop {
        self.shape_invariants = Some(shapes);
        self
    }

    /// Maps the values the condition and body read from outside the loop before they enter it:
    /// a gradient's loop reads each forward iteration's values through it (from the stacks the
    /// forward loop pushed them on), where TensorFlow's `GradLoopState` does the same.
    pub fn value_hook(mut self, hook: ValueHook) -> WhileLoop {
        self.hook = Some(hook);
        self
    }

    /// Builds the loop; see [`while_loop`].
    pub fn build(
        &self,
        cond: impl FnOnce(&[Output]) -> Result<Output>,
        body: impl FnOnce(&[Output]) -> Result<Vec<Output>>,
        loop_vars: &[Output],
    ) -> Result<Vec<Output>> {
        if loop_vars.is_empty() {
            return Err(Error::invalid_argument("'loop_vars' must be provided."));
        }
        if self.parallel_iterations < 1 {
            return Err(Error::invalid_argument(
                "'parallel_iterations' must be a positive integer.",
            ));
        }
        let g = loop_vars[0].graph().clone();
        let _scope = g.name_scope(self.name.as_deref().unwrap_or("while"));
        match &self.maximum_iterations {
            None => self.build_loop(&g, cond, body, loop_vars),
            Some(max) => {
                if max.shape().rank().is_some_and(|r| r != 0) {
                    return Err(Error::invalid_argument(format!(
                        "'maximum_iterations' must be a scalar. Received shape: {}",
                        max.shape().python_str()
                    )));
                }
                // TensorFlow's counter: one more variable, counted up to the maximum.
                let (zero, one) = match max.dtype() {
                    DType::I32 => (Tensor::scalar(0i32), Tensor::scalar(1i32)),
                    DType::I64 => (Tensor::scalar(0i64), Tensor::scalar(1i64)),
                    d => {
                        return Err(Error::invalid_argument(format!(
                            "'maximum_iterations' must be an int32 or int64 tensor, not {}",
                            d.python_name()
                        )))
                    }
                };
                let counter = constant_named(&g, zero, "iteration_counter")?;
                let mut vars = vec![counter];
                vars.extend_from_slice(loop_vars);
                let invariants = self.shape_invariants.clone().map(|s| {
                    let mut all = vec![Shape::scalar()];
                    all.extend(s);
                    all
                });
                let inner = WhileLoop {
                    shape_invariants: invariants,
                    ..self.clone()
                };
                let max = max.clone();
                let mut out = inner.build_loop(
                    &g,
                    |v| logical_and(&less(&v[0], &max)?, &cond(&v[1..])?),
                    |v| {
                        let mut next = vec![add(&v[0], &constant(&g, one)?)?];
                        next.extend(body(&v[1..])?);
                        Ok(next)
                    },
                    &vars,
                )?;
                out.remove(0);
                Ok(out)
            }
        }
    }

    fn build_loop(
        &self,
        g: &Graph,
        cond: impl FnOnce(&[Output]) -> Result<Output>,
        body: impl FnOnce(&[Output]) -> Result<Vec<Output>>,
        loop_vars: &[Output],
    ) -> Result<Vec<Output>> {
        if let Some(s) = &self.shape_invariants {
            if s.len() != loop_vars.len() {
                return Err(Error::invalid_argument(
                    "The two structures don't have the same nested structure.",
                ));
            }
            for (x, inv) in loop_vars.iter().zip(s) {
                if !shape_less_than_or_equal(&x.shape(), inv) {
                    return Err(Error::invalid_argument(format!(
                        "The shape invariant specified for {} is not compatible with the initial shape of the loop variable. It enters the loop with shape {}, but the specified shape invariant is {}.",
                        x.name(),
                        x.shape().python_str(),
                        inv.python_str()
                    )));
                }
            }
        }
        let scope = g.current_scope();
        let ctx = Arc::new(WhileContext {
            frame_name: format!("{scope}while_context"),
            parallel_iterations: self.parallel_iterations,
            id: OnceLock::new(),
            pivot: Mutex::new(None),
            values: Mutex::new(HashMap::new()),
            hook: self.hook.clone(),
        });
        // The loop variables come in from the enclosing context first.
        let outer: Vec<Output> = match g.current_control_flow_context() {
            Some((_, c)) => loop_vars
                .iter()
                .map(|x| c.add_value(g, x))
                .collect::<Result<_>>()?,
            None => loop_vars.to_vec(),
        };
        let guard = g.enter_control_flow_context(ctx.clone());
        ctx.id
            .set(guard.id())
            .map_err(|_| Error::internal("while context entered twice"))?;
        let enters = outer
            .iter()
            .enumerate()
            .map(|(i, x)| {
                let shape = self.shape_invariants.as_ref().map(|s| s[i].clone());
                ctx.enter(g, x, false, shape)
            })
            .collect::<Result<Vec<_>>>()?;
        let merges = enters
            .iter()
            .map(|e| {
                let op = crate::new_op(g, "Merge").input(e).build()?;
                op.output(0)
            })
            .collect::<Result<Vec<_>>>()?;
        *ctx.pivot.lock() = Some(merges[0].clone());
        let pred = cond(&merges)?;
        if pred.dtype() != DType::Bool {
            return Err(Error::invalid_argument(format!(
                "Input 'input' of 'LoopCond' Op has type {} that does not match expected type of bool.",
                pred.dtype().python_name()
            )));
        }
        let pivot = crate::new_op(g, "LoopCond")
            .name("LoopCond")
            .input(&pred)
            .build()?
            .output(0)?;
        let switches = merges
            .iter()
            .map(|m| switch_named(m, &pivot, Some("Switch")))
            .collect::<Result<Vec<_>>>()?;
        let body_vars = switches
            .iter()
            .map(|(_, t)| identity(t))
            .collect::<Result<Vec<_>>>()?;
        *ctx.pivot.lock() = Some(body_vars[0].clone());
        let result = body(&body_vars)?;
        if result.len() != merges.len() {
            return Err(Error::invalid_argument(
                "The two structures don't have the same nested structure.",
            ));
        }
        for ((m, r), x) in merges.iter().zip(&result).zip(loop_vars) {
            if r.dtype() != m.dtype() {
                return Err(Error::invalid_argument(format!(
                    "Input tensor '{}' enters the loop with type {}, but has type {} after one iteration.",
                    x.name(),
                    m.dtype().python_name(),
                    r.dtype().python_name()
                )));
            }
            let (ms, rs) = (m.shape(), r.shape());
            if !shape_less_than_or_equal(&rs, &ms) {
                return Err(Error::invalid_argument(format!(
                    "Input tensor '{}' enters the loop with shape {}, but has shape {} after one iteration. To allow the shape to vary across iterations, use the `shape_invariants` argument of tf.while_loop to specify a less-specific shape.",
                    x.name(),
                    ms.python_str(),
                    rs.python_str()
                )));
            }
            let next = crate::new_op(g, "NextIteration")
                .input(r)
                .build()?
                .output(0)?;
            g.set_loop_back_edge(&m.op(), &next)?;
        }
        let exits = switches
            .iter()
            .map(|(f, _)| crate::new_op(g, "Exit").input(f).build()?.output(0))
            .collect::<Result<Vec<_>>>()?;
        drop(guard);
        if !self.back_prop {
            return exits.iter().map(stop_gradient).collect();
        }
        Ok(exits)
    }
}

/// Whether every shape `shape` stands for is one `invariant` allows: TensorFlow's
/// `_ShapeLessThanOrEqual`.
fn shape_less_than_or_equal(shape: &Shape, invariant: &Shape) -> bool {
    let (Some(a), Some(b)) = (shape.dims(), invariant.dims()) else {
        return invariant.rank().is_none();
    };
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| y.is_none() || x == y)
}

/// `tf.while_loop(cond, body, loop_vars)`: repeats `body` on the loop variables while `cond` of
/// them is true, and gives their final values. Built once, as TensorFlow 1 builds it (frames of
/// `Enter`, `Merge`, `LoopCond`, `Switch`, `NextIteration` and `Exit`), so exported loops run in
/// TensorFlow and TensorFlow's loops import here; a run executes the iterations in order.
///
/// `cond` and `body` are called once, while building, with the variables as the loop sees them;
/// `body` returns their next values, of the same dtypes and shapes (see
/// [`WhileLoop::shape_invariants`] to let a shape change). Values they read from outside are
/// computed once, before the loop. Options (`maximum_iterations`, `parallel_iterations`,
/// `back_prop`, `name`) are on [`WhileLoop`].
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, control_flow::while_loop, math::{add, less, mul}};
/// let g = Graph::new();
/// let i = constant(&g, 0i32)?;
/// let x = constant(&g, 1.0f32)?;
/// let out = while_loop(
///     |v| less(&v[0], &constant(&g, 5i32)?),
///     |v| Ok(vec![add(&v[0], &constant(&g, 1i32)?)?, mul(&v[1], &constant(&g, 2.0f32)?)?]),
///     &[i, x],
/// )?;
/// assert_eq!(out[1].op().op_type(), "Exit");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn while_loop(
    cond: impl FnOnce(&[Output]) -> Result<Output>,
    body: impl FnOnce(&[Output]) -> Result<Vec<Output>>,
    loop_vars: &[Output],
) -> Result<Vec<Output>> {
    WhileLoop::new().build(cond, body, loop_vars)
}
