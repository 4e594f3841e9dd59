//! The `Variable` handle and its builder.

use std::sync::Arc;

use weir_graph::{graph_keys, DType, Error, Graph, Operation, Output, Result, Shape};

/// A TensorFlow 1.x variable (`tf.Variable`): a `VariableV2` node whose value lives in the
/// session, with its initializer (`v/Assign`), its read (`v/read`) and its initial value.
///
/// A variable converts into its value wherever an `Output` is expected.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, state::Variable, math::add};
/// let g = Graph::new();
/// let v = Variable::builder(constant(&g, [1.0f32, 2.0])?).name("v").build()?;
/// assert_eq!(v.value().name(), "v/read:0");
/// assert_eq!(v.initializer().name(), "v/Assign");
/// let doubled = add(&v, &v)?; // a variable reads as a tensor
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Variable {
    handle: Output,
    value: Output,
    initializer: Operation,
    initial_value: Output,
}

/// What a collection keeps of a variable: node ids only, so it does not keep its graph alive.
#[derive(Clone, Copy, Debug)]
pub(crate) struct VariableDef {
    handle: usize,
    /// The value's node and output index.
    value: (usize, usize),
    initializer: usize,
    initial_value: (usize, usize),
}

impl VariableDef {
    /// The variable node's id: the variable's identity.
    pub(crate) fn handle(&self) -> usize {
        self.handle
    }

    pub(crate) fn resolve(&self, graph: &Graph) -> Result<Variable> {
        Ok(Variable {
            handle: graph.output(self.handle, 0)?,
            value: graph.output(self.value.0, self.value.1)?,
            initializer: graph.operation(self.initializer)?,
            initial_value: graph.output(self.initial_value.0, self.initial_value.1)?,
        })
    }
}

impl Variable {
    /// A builder with TensorFlow's defaults: trainable, in `GLOBAL_VARIABLES`, shape validated.
    pub fn builder(initial_value: impl Into<Output>) -> VariableBuilder {
        VariableBuilder {
            initial_value: initial_value.into(),
            name: None,
            trainable: true,
            collections: None,
            validate_shape: true,
            shared_name: None,
        }
    }

    /// `tf.Variable(initial_value)` with every default.
    pub fn new(initial_value: impl Into<Output>) -> Result<Variable> {
        Variable::builder(initial_value).build()
    }

    /// The variable's name (`v`).
    pub fn name(&self) -> String {
        self.handle.op().name()
    }

    /// The `VariableV2` node.
    pub fn op(&self) -> Operation {
        self.handle.op()
    }

    /// The resource handle the assign ops take.
    pub fn handle(&self) -> &Output {
        &self.handle
    }

    /// The value (`v.value()`, the `v/read:0` tensor).
    pub fn value(&self) -> Output {
        self.value.clone()
    }

    /// A new read of the variable (`v.read_value()`): a `ReadVariableOp` built now, so it
    /// picks up the control dependencies in force and sees their updates.
    pub fn read_value(&self) -> Result<Output> {
        crate::new_op(self.graph(), "ReadVariableOp")
            .input(&self.handle)
            .attr("dtype", self.dtype())
            .attr("shape", self.shape())
            .build()?
            .output(0)
    }

    /// The value for use as an op input: `v/read`, or a fresh read inside a
    /// `control_dependencies` guard, where TensorFlow's ref reads happen after the guard's ops.
    fn as_input(&self) -> Output {
        if self.graph().has_control_dependencies() {
            if let Ok(r) = self.read_value() {
                return r;
            }
        }
        self.value.clone()
    }

    /// The op that assigns the initial value (`v.initializer`).
    pub fn initializer(&self) -> Operation {
        self.initializer.clone()
    }

    /// The initial value tensor (`v.initial_value`).
    pub fn initial_value(&self) -> Output {
        self.initial_value.clone()
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.value.dtype()
    }

    /// The static shape.
    pub fn shape(&self) -> Shape {
        self.value.shape()
    }

    /// The graph.
    pub fn graph(&self) -> &Graph {
        self.handle.graph()
    }

    /// `v.assign(value)`: sets the value (initializing it if needed) and returns the new value.
    pub fn assign(&self, value: impl Into<Output>) -> Result<Output> {
        super::kernels::assign(self, value.into(), "Assign", true)
    }

    /// `v.assign(value, validate_shape=False)`: the variable may change shape.
    pub fn assign_any_shape(&self, value: impl Into<Output>) -> Result<Output> {
        super::kernels::assign(self, value.into(), "Assign", false)
    }

    /// `v.assign_add(delta)`: adds and returns the new value.
    pub fn assign_add(&self, delta: impl Into<Output>) -> Result<Output> {
        super::kernels::assign(self, delta.into(), "AssignAdd", true)
    }

    /// `v.assign_sub(delta)`: subtracts and returns the new value.
    pub fn assign_sub(&self, delta: impl Into<Output>) -> Result<Output> {
        super::kernels::assign(self, delta.into(), "AssignSub", true)
    }

    /// `v.count_up_to(limit)`: returns the old value and increments it; OutOfRange
    /// "Reached limit of N" once the value has reached `limit`. The epoch-limit primitive.
    pub fn count_up_to(&self, limit: i64) -> Result<Output> {
        super::kernels::count_up_to(self, limit)
    }

    /// Adds this variable to the graph collection `key` (`tf.add_to_collection(key, var)`),
    /// where `collection_variables` finds it.
    pub fn add_to_collection(&self, key: &str) {
        self.graph()
            .add_object_to_collection(key, Arc::new(self.def()));
    }

    /// `tf.is_variable_initialized(v)`: a bool scalar.
    pub fn is_initialized(&self) -> Result<Output> {
        super::kernels::is_initialized(self)
    }

    /// This variable with `initializer` (an op that assigns it) and `initial_value` in place of
    /// its own, in every collection of its graph, so `global_variables_initializer` and the
    /// like run the new one: how `tf.train.init_from_checkpoint` makes variables start from a
    /// checkpoint. `Variable` values taken before keep the old initializer.
    pub fn with_initializer(
        &self,
        initializer: &Operation,
        initial_value: &Output,
    ) -> Result<Variable> {
        if !initializer.graph().ptr_eq(self.graph()) || !initial_value.graph().ptr_eq(self.graph())
        {
            return Err(Error::invalid_argument(format!(
                "The new initializer of {} is not an element of its graph.",
                self.name()
            )));
        }
        let new = Variable {
            initializer: initializer.clone(),
            initial_value: initial_value.clone(),
            ..self.clone()
        };
        let ids = new.def();
        self.graph()
            .update_collection_objects::<VariableDef>(|d| (d.handle == ids.handle).then_some(ids));
        Ok(new)
    }

    /// The variable made of existing nodes (see `variable_proto`).
    pub(super) fn from_parts(
        handle: Output,
        value: Output,
        initializer: Operation,
        initial_value: Output,
    ) -> Variable {
        Variable {
            handle,
            value,
            initializer,
            initial_value,
        }
    }

    pub(crate) fn def(&self) -> VariableDef {
        VariableDef {
            handle: self.handle.node_id(),
            value: (self.value.node_id(), self.value.index()),
            initializer: self.initializer.id(),
            initial_value: (self.initial_value.node_id(), self.initial_value.index()),
        }
    }
}

impl From<&Variable> for Output {
    fn from(v: &Variable) -> Output {
        v.as_input()
    }
}

impl From<Variable> for Output {
    fn from(v: Variable) -> Output {
        v.as_input()
    }
}

/// The options of `tf.Variable(initial_value, trainable=None, collections=None,
/// validate_shape=True, name=None)`.
pub struct VariableBuilder {
    initial_value: Output,
    name: Option<String>,
    trainable: bool,
    collections: Option<Vec<String>>,
    validate_shape: bool,
    shared_name: Option<String>,
}

impl VariableBuilder {
    /// The variable's name (default `Variable`, made unique).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Whether the variable joins `TRAINABLE_VARIABLES` (default true, even with custom
    /// `collections`, as in TensorFlow).
    pub fn trainable(mut self, trainable: bool) -> Self {
        self.trainable = trainable;
        self
    }

    /// The collections to join instead of `[GLOBAL_VARIABLES]`; an empty list joins none.
    pub fn collections(mut self, keys: &[&str]) -> Self {
        self.collections = Some(keys.iter().map(|k| k.to_string()).collect());
        self
    }

    /// Whether the initial value's static shape must be fully known and fixes the variable's
    /// shape (default true).
    pub fn validate_shape(mut self, validate: bool) -> Self {
        self.validate_shape = validate;
        self
    }

    /// Shares the value between sessions under this name.
    pub fn shared_name(mut self, name: &str) -> Self {
        self.shared_name = Some(name.to_string());
        self
    }

    /// Adds the variable's nodes and joins its collections.
    pub fn build(self) -> Result<Variable> {
        let init = self.initial_value;
        let g = init.graph().clone();
        let dtype = init.dtype();
        let shape = init.shape();
        if self.validate_shape && !shape.is_fully_defined() {
            return Err(Error::invalid_argument(format!(
                "initial_value must have a shape specified: {}",
                init.name()
            )));
        }
        let base = self.name.unwrap_or_else(|| "Variable".to_string());
        // As TensorFlow's variables: built outside any control dependency or cond branch in
        // force, so initializing one never runs other ops or needs a branch's predicate.
        let lifted = g.init_scope();
        let scope = g.name_scope(&base);
        if g.control_flow_context_of(init.node_id()).is_some() {
            return Err(Error::invalid_argument(format!(
                "Initializer for variable {} is from inside a control-flow construct, such as a loop or conditional. When creating a variable inside a loop or conditional, build its initial value under `graph.init_scope()` (TensorFlow's lambda initializer) or use `get_variable`.",
                scope.prefix()
            )));
        }
        // The variable node takes the scope's unique name ("v", or "v_1" when taken).
        let var_name = scope.prefix().trim_end_matches('/').to_string();
        let handle = crate::new_op(&g, "VariableV2")
            .name(format!("{var_name}/"))
            .attr("dtype", dtype)
            .attr(
                "shape",
                if self.validate_shape {
                    shape.clone()
                } else {
                    Shape::unknown()
                },
            )
            .attr("container", "")
            .attr("shared_name", self.shared_name.unwrap_or_default())
            .build()?
            .output(0)?;
        let initial_value = crate::array::identity_named(&init, "initial_value")?;
        let initializer = crate::new_op(&g, "Assign")
            .name("Assign")
            .input(&handle)
            .input(&initial_value)
            .attr("validate_shape", self.validate_shape)
            .build()?;
        let value = crate::new_op(&g, "ReadVariableOp")
            .name("read")
            .input(&handle)
            .attr("dtype", dtype)
            .attr(
                "shape",
                if self.validate_shape {
                    shape
                } else {
                    Shape::unknown()
                },
            )
            .build()?
            .output(0)?;
        drop(scope);
        drop(lifted);
        let v = Variable {
            handle,
            value,
            initializer,
            initial_value,
        };
        let mut keys = self
            .collections
            .unwrap_or_else(|| vec![graph_keys::GLOBAL_VARIABLES.to_string()]);
        if self.trainable && !keys.iter().any(|k| k == graph_keys::TRAINABLE_VARIABLES) {
            keys.push(graph_keys::TRAINABLE_VARIABLES.to_string());
        }
        for k in &keys {
            g.add_object_to_collection(k, Arc::new(v.def()));
        }
        Ok(v)
    }
}
