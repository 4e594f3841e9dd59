//! Optimizers (`tf.train.Optimizer` and its subclasses): `compute_gradients`,
//! `apply_gradients` and `minimize`, slot variables created where TensorFlow creates them,
//! and the `Apply*` kernels of `weir_ops::training` doing TensorFlow's updates; also
//! `tf.contrib.opt`'s AdaMax, AddSign and PowerSign with their sign decay schedules.

mod adadelta;
mod adagrad;
mod adagrad_da;
mod adam;
mod adamax;
mod ftrl;
mod gradient_descent;
mod momentum;
mod proximal;
mod rmsprop;
mod sign;
pub mod sign_decay;

pub use adadelta::AdadeltaOptimizer;
pub use adagrad::AdagradOptimizer;
pub use adagrad_da::AdagradDAOptimizer;
pub use adam::AdamOptimizer;
pub use adamax::AdaMaxOptimizer;
pub use ftrl::FtrlOptimizer;
pub use gradient_descent::GradientDescentOptimizer;
pub use momentum::MomentumOptimizer;
pub use proximal::{ProximalAdagradOptimizer, ProximalGradientDescentOptimizer};
pub use rmsprop::RMSPropOptimizer;
pub use sign::{AddSignOptimizer, PowerSignOptimizer};

use std::collections::HashMap;

use weir_graph::{graph_keys, DType, Error, Graph, Operation, Output, Result, Tensor};
use weir_ops::init_ops::Initializer;
use weir_ops::state::{trainable_variables, Variable};

use crate::variable_scope::create_variable;

/// A learning rate (or other hyperparameter) given as a number or as a tensor (a decayed
/// rate, a placeholder).
#[derive(Clone, Debug)]
pub enum LearningRate {
    /// A constant, made a tensor of each variable's dtype.
    Value(f64),
    /// A scalar tensor; its dtype must match the variables'.
    Tensor(Output),
}

impl From<f64> for LearningRate {
    fn from(v: f64) -> Self {
        LearningRate::Value(v)
    }
}

impl From<f32> for LearningRate {
    fn from(v: f32) -> Self {
        LearningRate::Value(v as f64)
    }
}

impl From<Output> for LearningRate {
    fn from(t: Output) -> Self {
        LearningRate::Tensor(t)
    }
}

impl From<&Output> for LearningRate {
    fn from(t: &Output) -> Self {
        LearningRate::Tensor(t.clone())
    }
}

/// One (gradient, variable) pair, as `compute_gradients` returns them; the gradient is `None`
/// where the loss does not depend on the variable.
pub type GradAndVar = (Option<Output>, Variable);

/// The state every optimizer shares: its name, its slot and non-slot variables, and the
/// hyperparameter tensors of the `apply_gradients` call being built.
pub struct OptimizerBase {
    name: String,
    slots: HashMap<(u64, usize, String), Variable>,
    non_slots: HashMap<(u64, String), Variable>,
    scalars: Vec<(String, DType, Output)>,
}

impl OptimizerBase {
    /// The state of an optimizer named `name` (`"Adam"`, `"GradientDescent"`, ...).
    pub fn new(name: &str) -> OptimizerBase {
        OptimizerBase {
            name: name.to_string(),
            slots: HashMap::new(),
            non_slots: HashMap::new(),
            scalars: Vec::new(),
        }
    }

    /// The slot `slot` of `var`, if it was created.
    pub fn slot(&self, var: &Variable, slot: &str) -> Option<Variable> {
        self.slots
            .get(&(var.graph().id(), var.handle().node_id(), slot.to_string()))
            .cloned()
    }

    /// The slot `slot` of `var`, created once, named `var/<op_name>` (made unique, so a
    /// second slot of one optimizer is `var/<op_name>_1`), initialized by `init` with the
    /// variable's shape and dtype, global and not trainable.
    pub fn get_or_make_slot(
        &mut self,
        var: &Variable,
        slot: &str,
        init: &Initializer,
    ) -> Result<Variable> {
        if let Some(s) = self.slot(var, slot) {
            return Ok(s);
        }
        let shape = var.shape().to_known().ok_or_else(|| {
            Error::invalid_argument(format!(
                "Cannot create the {slot} slot of variable {} whose shape {} is not fully known",
                var.name(),
                var.shape()
            ))
        })?;
        let name = format!("{}/{}", var.name(), self.name);
        let v = create_variable(
            var.graph(),
            &name,
            &shape,
            var.dtype(),
            init,
            false,
            &[graph_keys::GLOBAL_VARIABLES],
        )?;
        self.slots.insert(
            (var.graph().id(), var.handle().node_id(), slot.to_string()),
            v.clone(),
        );
        Ok(v)
    }

    /// The zeros-initialized slot `slot` of `var` (TensorFlow's `_zeros_slot`).
    pub fn zeros_slot(&mut self, var: &Variable, slot: &str) -> Result<Variable> {
        self.get_or_make_slot(var, slot, &Initializer::Zeros)
    }

    /// A variable of the optimizer that is not a slot (Adam's `beta1_power`), created once
    /// per graph at top level with a scalar `value` of `dtype`, global and not trainable.
    pub fn non_slot(
        &mut self,
        graph: &Graph,
        name: &str,
        value: f64,
        dtype: DType,
    ) -> Result<Variable> {
        let key = (graph.id(), name.to_string());
        if let Some(v) = self.non_slots.get(&key) {
            return Ok(v.clone());
        }
        let v = create_variable(
            graph,
            name,
            &[],
            dtype,
            &Initializer::Constant(Tensor::from(value)),
            false,
            &[graph_keys::GLOBAL_VARIABLES],
        )?;
        self.non_slots.insert(key, v.clone());
        Ok(v)
    }

    /// A non-slot variable made earlier.
    pub fn get_non_slot(&self, graph: &Graph, name: &str) -> Option<Variable> {
        self.non_slots.get(&(graph.id(), name.to_string())).cloned()
    }

    /// The hyperparameter `name` of this `apply_gradients` call for a variable of `dtype`: a
    /// constant made once per dtype in the call's name scope, or the given tensor.
    pub fn scalar(
        &mut self,
        graph: &Graph,
        name: &str,
        value: &LearningRate,
        dtype: DType,
    ) -> Result<Output> {
        match value {
            LearningRate::Tensor(t) => {
                if t.dtype() != dtype {
                    return Err(Error::invalid_argument(format!(
                        "{name} has dtype {} but the variable has dtype {dtype}",
                        t.dtype()
                    )));
                }
                Ok(t.clone())
            }
            LearningRate::Value(v) => {
                if let Some((_, _, o)) = self
                    .scalars
                    .iter()
                    .find(|(n, d, _)| n == name && *d == dtype)
                {
                    return Ok(o.clone());
                }
                let t = weir_graph::scalar_of(dtype, *v)?;
                let o = weir_ops::array::constant_named(graph, t, name)?;
                self.scalars.push((name.to_string(), dtype, o.clone()));
                Ok(o)
            }
        }
    }
}

/// The rows of a gathered gradient: weir's gradient of `gather(var, indices)` (and of
/// `embedding_lookup`) is TensorFlow's `IndexedSlices(values, indices)` made dense by
/// `UnsortedSegmentSum(values, indices, rows of var)`; this finds `(values, indices)` in it, so
/// that optimizers update only the gathered rows, as TensorFlow's `_apply_sparse` does.
fn gathered_rows(grad: &Output, var: &Variable) -> Option<(Output, Output)> {
    let op = grad.op();
    if op.op_type() != "UnsortedSegmentSum" {
        return None;
    }
    let inputs = op.inputs();
    let (values, indices) = (inputs.first()?.clone(), inputs.get(1)?.clone());
    let var_rank = var.shape().rank()?;
    // The gradient function flattens the indices to a vector and the values to one row each.
    let flattened = indices.op().op_type() == "Reshape" && values.op().op_type() == "Reshape";
    if !flattened
        || var_rank == 0
        || indices.shape().rank() != Some(1)
        || values.shape().rank() != Some(var_rank)
        || !grad.shape().is_compatible_with(&var.shape())
    {
        return None;
    }
    Some((values, indices))
}

/// TensorFlow's `tf.train.Optimizer`: subclasses say how to create slots and how to apply one
/// dense gradient; the provided methods build the training step around them.
///
/// ```
/// use weir_graph::{Graph, Tensor};
/// use weir_ops::{array::constant, state::Variable};
/// use weir_train::{get_or_create_global_step, AdamOptimizer, Optimizer};
///
/// let g = Graph::new();
/// let w = Variable::builder(constant(&g, [1.0f32, 2.0])?).name("w").build()?;
/// let step = get_or_create_global_step(&g)?;
/// let grad = constant(&g, [0.5f32, -0.5])?;
/// let mut opt = AdamOptimizer::new(0.001);
/// let train = opt.apply_gradients(&[(Some(grad), w.clone())], Some(&step), None)?;
/// assert_eq!(train.name(), "Adam");
/// assert_eq!(opt.get_slot(&w, "m").unwrap().name(), "w/Adam");
/// assert_eq!(opt.get_slot(&w, "v").unwrap().name(), "w/Adam_1");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub trait Optimizer {
    /// The shared state.
    fn base(&self) -> &OptimizerBase;

    /// The shared state, mutably.
    fn base_mut(&mut self) -> &mut OptimizerBase;

    /// Creates the slots of each variable (TensorFlow's `_create_slots`).
    fn create_slots(&mut self, vars: &[Variable]) -> Result<()>;

    /// Adds the op applying `grad` to `var` (TensorFlow's `_apply_dense`), in the name scope
    /// `<name>/update_<var>`.
    fn apply_dense(&mut self, grad: &Output, var: &Variable) -> Result<Output>;

    /// Makes the tensors every update of one `apply_gradients` call shares, in its name scope
    /// (TensorFlow's `_prepare`); AdagradDA reads the global step here.
    fn prepare(&mut self, _graph: &Graph) -> Result<()> {
        Ok(())
    }

    /// Whether the optimizer applies gathered gradients sparsely through
    /// [`Optimizer::apply_sparse`]; the others apply them as the dense tensors they are.
    fn supports_sparse(&self) -> bool {
        false
    }

    /// Adds the op applying the gradient rows `values` to the rows `indices` (unique) of `var`
    /// (TensorFlow's `_apply_sparse` after `_deduplicate_indexed_slices`).
    fn apply_sparse(
        &mut self,
        values: &Output,
        indices: &Output,
        var: &Variable,
    ) -> Result<Output> {
        let _ = (values, indices);
        Err(Error::unimplemented(format!(
            "{} applies no sparse gradients (variable {})",
            self.get_name(),
            var.name()
        )))
    }

    /// Groups the update ops into the op named `name` (TensorFlow's `_finish`); Adam also
    /// advances its beta powers here.
    fn finish(&mut self, graph: &Graph, update_ops: &[Operation], name: &str) -> Result<Operation> {
        weir_ops::control_flow::group(graph, update_ops, Some(name))
    }

    /// The optimizer's name (`"Adam"`), the default name of its ops.
    fn get_name(&self) -> &str {
        &self.base().name
    }

    /// `opt.get_slot(var, name)`: the slot variable `name` (`"m"`, `"momentum"`, ...) of
    /// `var`.
    fn get_slot(&self, var: &Variable, name: &str) -> Option<Variable> {
        self.base().slot(var, name)
    }

    /// `opt.compute_gradients(loss, var_list)`: (gradient, variable) pairs for `var_list`
    /// (the trainable variables when `None`), through [`crate::gradients::gradients`].
    fn compute_gradients(
        &self,
        loss: &Output,
        var_list: Option<&[Variable]>,
    ) -> Result<Vec<GradAndVar>> {
        if !loss.dtype().is_floating() {
            return Err(Error::invalid_argument(format!(
                "Invalid type {} for {}, expected: [float32, float64].",
                loss.dtype(),
                loss.name()
            )));
        }
        let vars = match var_list {
            Some(v) => v.to_vec(),
            None => trainable_variables(loss.graph())?,
        };
        if vars.is_empty() {
            return Err(Error::invalid_argument("No variables to optimize."));
        }
        // TensorFlow 1.x differentiates with respect to the variables themselves (their refs);
        // here that is each variable's resource handle, from which all its reads descend.
        let xs: Vec<Output> = vars.iter().map(|v| v.handle().clone()).collect();
        let grads = crate::gradients::gradients(std::slice::from_ref(loss), &xs, None)?;
        Ok(grads.into_iter().zip(vars).collect())
    }

    /// `opt.apply_gradients(grads_and_vars, global_step, name)`: creates the slots, applies
    /// each non-`None` gradient in name scope `name` (default the optimizer's name), and
    /// returns the training op. With a global step, the op is the step's increment (named
    /// `name`), run after every update; it joins the `TRAIN_OP` collection.
    fn apply_gradients(
        &mut self,
        grads_and_vars: &[GradAndVar],
        global_step: Option<&Variable>,
        name: Option<&str>,
    ) -> Result<Operation> {
        if grads_and_vars.is_empty() {
            return Err(Error::invalid_argument("No variables provided."));
        }
        let vars: Vec<Variable> = grads_and_vars
            .iter()
            .filter(|(g, _)| g.is_some())
            .map(|(_, v)| v.clone())
            .collect();
        if vars.is_empty() {
            let names: Vec<String> = grads_and_vars.iter().map(|(_, v)| v.name()).collect();
            return Err(Error::invalid_argument(format!(
                "No gradients provided for any variable: {names:?}."
            )));
        }
        let graph = vars[0].graph().clone();
        for (g, v) in grads_and_vars {
            if let Some(g) = g {
                if g.dtype() != v.dtype() {
                    return Err(Error::invalid_argument(format!(
                        "Gradient for variable {} has dtype {} but the variable has dtype {}",
                        v.name(),
                        g.dtype(),
                        v.dtype()
                    )));
                }
                if !g.shape().is_compatible_with(&v.shape()) {
                    return Err(Error::invalid_argument(format!(
                        "Shapes {} and {} are incompatible (gradient for variable {})",
                        g.shape(),
                        v.shape(),
                        v.name()
                    )));
                }
            }
        }
        {
            // Slots are created outside any control_dependencies guard (TensorFlow's
            // init_scope), so their initializers never wait on the caller's ops.
            let _init = graph.init_scope();
            self.create_slots(&vars)?;
        }
        let scope = graph.name_scope(name.unwrap_or(&self.base().name.clone()));
        let scope_name = scope.prefix().to_string();
        self.base_mut().scalars.clear();
        self.prepare(&graph)?;
        let mut updates = Vec::with_capacity(vars.len());
        for (g, v) in grads_and_vars {
            let Some(g) = g else { continue };
            let _s = graph.name_scope(&format!("update_{}", v.name()));
            let sparse = match self.supports_sparse() {
                true => gathered_rows(g, v),
                false => None,
            };
            let update = match sparse {
                Some((values, indices)) => {
                    // TensorFlow's `_deduplicate_indexed_slices`.
                    let (unique, positions) = weir_ops::array::unique(indices)?;
                    let n = weir_ops::array::size(&unique)?;
                    let summed = weir_ops::math::unsorted_segment_sum(values, positions, n)?;
                    self.apply_sparse(&summed, &unique, v)?
                }
                None => self.apply_dense(g, v)?,
            };
            updates.push(update.op());
        }
        let train = match global_step {
            None => self.finish(&graph, &updates, &scope_name)?,
            Some(step) => {
                let done = self.finish(&graph, &updates, "update")?;
                let _deps = graph.control_dependencies(&[done])?;
                let one =
                    weir_ops::array::constant(&graph, weir_graph::scalar_of(step.dtype(), 1.0)?)?;
                weir_ops::register_all_ops();
                graph
                    .new_operation("AssignAdd")
                    .name(&scope_name)
                    .input(step.handle())
                    .input(one)
                    .build()?
            }
        };
        drop(scope);
        graph.add_to_collection(graph_keys::TRAIN_OP, train.clone())?;
        Ok(train)
    }

    /// `opt.minimize(loss, global_step, var_list)`: `compute_gradients` then
    /// `apply_gradients`; InvalidArgument when no variable gets a gradient.
    fn minimize(
        &mut self,
        loss: &Output,
        var_list: Option<&[Variable]>,
        global_step: Option<&Variable>,
    ) -> Result<Operation> {
        let gv = self.compute_gradients(loss, var_list)?;
        if gv.iter().all(|(g, _)| g.is_none()) {
            let names: Vec<String> = gv.iter().map(|(_, v)| v.name()).collect();
            return Err(Error::invalid_argument(format!(
                "No gradients provided for any variable, check your graph for ops that do not support gradients, between variables {names:?} and loss {}.",
                loss.name()
            )));
        }
        self.apply_gradients(&gv, global_step, None)
    }
}
