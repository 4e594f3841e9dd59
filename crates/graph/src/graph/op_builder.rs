//! Building one node: its parts are collected first, then named, validated and appended under
//! one write lock, so the unique name it is given is still unique when it is added.

use std::sync::Arc;

use super::Graph;
use crate::attr::{AttrValue, Attrs};
use crate::node::{Node, Operation, Output};
use crate::{registry, DType, Error, Result, Shape, Tensor};

impl Graph {
    /// Starts building a node of `op_type`.
    pub fn new_operation(&self, op_type: &str) -> OpBuilder {
        OpBuilder {
            graph: self.clone(),
            op_type: op_type.to_string(),
            name: None,
            inputs: Vec::new(),
            control_inputs: Vec::new(),
            attrs: Attrs::new(),
            member_of: None,
            shape_overrides: Vec::new(),
        }
    }
}

/// Builds one node: op type, name, inputs, control inputs and attrs; validated by the op's
/// registered [`OpDef`](crate::OpDef) when built.
pub struct OpBuilder {
    graph: Graph,
    op_type: String,
    name: Option<String>,
    inputs: Vec<Output>,
    control_inputs: Vec<Operation>,
    attrs: Attrs,
    /// Set: the node belongs to this control-flow context, and no context rewrites it.
    member_of: Option<usize>,
    /// Static output shapes set in place of the inferred ones.
    shape_overrides: Vec<(usize, crate::Shape)>,
}

impl OpBuilder {
    /// The node's name (made unique and put in the current scope); defaults to the op type.
    pub fn name(mut self, name: impl Into<String>) -> OpBuilder {
        self.name = Some(name.into());
        self
    }

    /// Sets the name only when `name` is given.
    pub fn maybe_name(self, name: Option<&str>) -> OpBuilder {
        match name {
            Some(n) => self.name(n),
            None => self,
        }
    }

    /// Adds a data input.
    pub fn input(mut self, input: impl Into<Output>) -> OpBuilder {
        self.inputs.push(input.into());
        self
    }

    /// Adds data inputs.
    pub fn inputs<I: Into<Output>>(mut self, inputs: impl IntoIterator<Item = I>) -> OpBuilder {
        self.inputs.extend(inputs.into_iter().map(Into::into));
        self
    }

    /// Adds a control input: the node runs only after `op`.
    pub fn control_input(mut self, op: &Operation) -> OpBuilder {
        self.control_inputs.push(op.clone());
        self
    }

    /// Sets attribute `name`.
    pub fn attr(mut self, name: &str, value: impl Into<AttrValue>) -> OpBuilder {
        self.attrs.insert(name.to_string(), value.into());
        self
    }

    /// Makes the node a member of control-flow context `id` as it is, without passing it through
    /// the current context: what a context builds for itself (the `Switch` guarding a value),
    /// as TensorFlow builds it outside any context and then sets its context.
    pub fn member_of_context(mut self, id: usize) -> OpBuilder {
        self.member_of = Some(id);
        self
    }

    /// Gives output `index` the static shape `shape` instead of the inferred one, as Python's
    /// `Tensor.set_shape` right after building would (a while loop's `Enter` takes its
    /// variable's shape invariant this way).
    pub fn output_shape(mut self, index: usize, shape: crate::Shape) -> OpBuilder {
        self.shape_overrides.push((index, shape));
        self
    }

    /// Validates and adds the node; errors name the node and its op type.
    pub fn build(self) -> Result<Operation> {
        let OpBuilder {
            graph,
            op_type,
            name,
            mut inputs,
            mut control_inputs,
            mut attrs,
            member_of,
            shape_overrides,
        } = self;
        let def = registry::op_def(&op_type)?;
        let context = match member_of {
            Some(_) => None,
            None => graph.current_control_flow_context(),
        };
        let mut st = graph.0.state.write();
        if st.finalized {
            return Err(
                Graph::finalized_error().with_node(name.as_deref().unwrap_or(&op_type), &op_type)
            );
        }
        let base = name.unwrap_or_else(|| op_type.clone());
        let name = if let Some(exact) = base.strip_suffix('/') {
            // TensorFlow's trailing-slash convention: an exact name, typically a name scope's
            // own (already unique) name, as a variable takes it.
            if st.by_name.contains_key(exact) {
                return Err(Error::already_exists(format!(
                    "Duplicate node name in graph: '{exact}'"
                ))
                .with_node(exact, &op_type));
            }
            exact.to_string()
        } else {
            let full = format!("{}{base}", st.scope.last().cloned().unwrap_or_default());
            Graph::unique_name_locked(&mut st, &full)
        };
        let fail = |e: Error| e.with_node(&name, &op_type);
        for (i, inp) in inputs.iter().enumerate() {
            if !inp.graph.ptr_eq(&graph) {
                return Err(fail(Error::invalid_argument(format!(
                    "Input {i} of '{name}' is a Tensor from another graph; it must be from the same graph."
                ))));
            }
        }
        for c in &control_inputs {
            if !c.graph.ptr_eq(&graph) {
                return Err(fail(Error::invalid_argument(format!(
                    "Control input '{}' of '{name}' is from another graph",
                    c.id
                ))));
            }
        }
        // The control dependencies in force join the op's own before its context sees them: a
        // loop's context brings those from outside the loop in as data (TensorFlow adds them
        // when it creates the op, before `AddOp`).
        for deps in &st.control_deps {
            control_inputs.extend(deps.iter().map(|&id| Operation {
                graph: graph.clone(),
                id,
            }));
        }
        if let Some((_, ctx)) = &context {
            // The context builds ops of its own (a Switch guarding an input), so the graph must
            // not be locked; the name is already reserved.
            drop(st);
            ctx.add_op(&graph, &name, &mut inputs, &mut control_inputs)
                .map_err(fail)?;
            st = graph.0.state.write();
        }
        let in_nodes: Vec<&Arc<Node>> = inputs.iter().map(|o| &st.nodes[o.node]).collect();
        let input_dtypes: Vec<_> = inputs
            .iter()
            .zip(&in_nodes)
            .map(|(o, n)| n.output_dtypes[o.index])
            .collect();
        let input_shapes: Vec<_> = inputs
            .iter()
            .zip(&in_nodes)
            .map(|(o, n)| n.output_shapes[o.index].clone())
            .collect();
        let input_consts: Vec<Option<Tensor>> =
            in_nodes.iter().map(|n| n.const_value().cloned()).collect();
        // Only int vectors can be shape tensors.
        let partial: Vec<Option<Shape>> = inputs
            .iter()
            .zip(input_dtypes.iter().zip(&input_shapes))
            .map(|(o, (dt, s))| {
                let int = matches!(dt, DType::I32 | DType::I64);
                (int && s.rank() == Some(1))
                    .then(|| super::partial_shape::partial_shape(&st.nodes, o.node, o.index))
                    .flatten()
            })
            .collect();
        let output_dtypes = def.resolve(&input_dtypes, &mut attrs).map_err(fail)?;
        let mut output_shapes = def
            .infer_with_partial_shapes(
                input_dtypes,
                input_shapes,
                input_consts,
                partial,
                &attrs,
                &output_dtypes,
            )
            .map_err(fail)?;
        for (i, shape) in shape_overrides {
            if let Some(s) = output_shapes.get_mut(i) {
                *s = shape;
            }
        }
        let mut control: Vec<usize> = control_inputs.iter().map(|c| c.id).collect();
        control.sort_unstable();
        control.dedup();
        let id = st.nodes.len();
        let node = Node {
            id,
            name: name.clone(),
            def,
            inputs: inputs.iter().map(|o| (o.node, o.index)).collect(),
            control_inputs: control,
            attrs,
            output_dtypes,
            output_shapes,
            context: member_of.or(context.map(|(id, _)| id)),
            back_edge: std::sync::OnceLock::new(),
        };
        st.nodes.push(Arc::new(node));
        st.by_name.insert(name, id);
        drop(st);
        Ok(Operation { graph, id })
    }
}
