//! Variables as TensorFlow's `VariableDef` protos: what a meta graph's variable collections
//! record of each variable, by the names of its nodes.

use weir_graph::graph_def::meta_graph::{prepend_name_scope, strip_name_scope, VariableDef};
use weir_graph::{graph_keys, CollectionItem, Error, Graph, Result};

use super::variable::VariableDef as Ids;
use super::Variable;

/// `tf.VariableAggregation.ONLY_FIRST_REPLICA`, which TensorFlow gives the global step.
const AGGREGATION_ONLY_FIRST_REPLICA: i32 = 3;

impl Variable {
    /// `tf.Variable(variable_def=def, import_scope=scope)`: the variable whose nodes `def`
    /// names, found in `graph` under `import_scope`. Accepts TensorFlow 1's variables
    /// (`VariableV2`, read through `Identity`) and resource variables (`VarHandleOp`), as
    /// imported from a GraphDef, and weir's own; NotFound names a node that is missing.
    ///
    /// ```
    /// # use weir_graph::Graph;
    /// # use weir_ops::{array::constant, state::Variable};
    /// let g = Graph::new();
    /// let v = Variable::builder(constant(&g, [1.0f32, 2.0])?).name("v").build()?;
    /// let def = v.to_proto(None).unwrap();
    /// assert_eq!(def.variable_name, "v:0");
    /// assert_eq!(def.snapshot_name, "v/read:0");
    /// let again = Variable::from_proto(&g, &def, None)?;
    /// assert_eq!(again.value().name(), "v/read:0");
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn from_proto(
        graph: &Graph,
        def: &VariableDef,
        import_scope: Option<&str>,
    ) -> Result<Variable> {
        let tensor = |name: &str| graph.tensor_by_name(&prepend_name_scope(name, import_scope));
        let handle = tensor(&def.variable_name)?;
        let op_type = handle.op().op_type();
        if !matches!(op_type.as_str(), "VariableV2" | "VarHandleOp") {
            return Err(Error::invalid_argument(format!(
                "VariableDef names {} as its variable, a {op_type} node, not a variable",
                def.variable_name
            )));
        }
        let value = tensor(&def.snapshot_name)?;
        let initializer_name = prepend_name_scope(&def.initializer_name, import_scope);
        let initializer = graph.operation_by_name(&initializer_name).ok_or_else(|| {
            Error::not_found(format!(
                "VariableDef of {}: its initializer {initializer_name} is not in the graph",
                def.variable_name
            ))
        })?;
        // Meta graphs older than TensorFlow 1.3 name no initial value: it is what the
        // initializer assigns.
        let initial_value = if def.initial_value_name.is_empty() {
            initializer.inputs().get(1).cloned().ok_or_else(|| {
                Error::invalid_argument(format!(
                    "VariableDef of {}: its initializer {initializer_name} assigns nothing",
                    def.variable_name
                ))
            })?
        } else {
            tensor(&def.initial_value_name)?
        };
        Ok(Variable::from_parts(
            handle,
            value,
            initializer,
            initial_value,
        ))
    }

    /// `v.to_proto(export_scope)`: the `VariableDef` naming this variable's nodes without the
    /// leading `export_scope`; `None` when the variable is not under it. `trainable` says
    /// whether it is in `TRAINABLE_VARIABLES`.
    pub fn to_proto(&self, export_scope: Option<&str>) -> Option<VariableDef> {
        let name = |n: String| strip_name_scope(&n, export_scope);
        let g = self.graph();
        let ids = self.def();
        let trainable = g
            .get_collection_of::<Ids>(graph_keys::TRAINABLE_VARIABLES)
            .iter()
            .any(|d| d.handle() == ids.handle());
        let global_step = g
            .get_collection_of::<Ids>(graph_keys::GLOBAL_STEP)
            .iter()
            .any(|d| d.handle() == ids.handle());
        Some(VariableDef {
            variable_name: name(self.handle().name())?,
            initializer_name: name(self.initializer().name())?,
            snapshot_name: name(self.value().name())?,
            save_slice_info_def: None,
            is_resource: self.op().op_type() == "VarHandleOp",
            initial_value_name: name(self.initial_value().name())?,
            trainable,
            synchronization: 0,
            aggregation: if global_step {
                AGGREGATION_ONLY_FIRST_REPLICA
            } else {
                0
            },
        })
    }

    /// The variable that collection item `item` of `graph` holds, if it holds one (a
    /// variable's entry in `GLOBAL_VARIABLES` and the other variable collections).
    pub fn from_collection_item(graph: &Graph, item: &CollectionItem) -> Option<Result<Variable>> {
        match item {
            CollectionItem::Object(o) => o.downcast_ref::<Ids>().map(|d| d.resolve(graph)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::constant;
    use crate::state::global_variables;

    #[test]
    fn a_variable_round_trips_through_its_proto_under_a_scope() {
        let g = Graph::new();
        let v = {
            let _s = g.name_scope("model");
            Variable::builder(constant(&g, [1.0f32, 2.0]).unwrap())
                .name("w")
                .trainable(false)
                .build()
                .unwrap()
        };
        let def = v.to_proto(Some("model")).unwrap();
        assert_eq!(def.variable_name, "w:0");
        assert_eq!(def.initializer_name, "w/Assign");
        assert_eq!(def.snapshot_name, "w/read:0");
        assert!(!def.trainable);
        assert!(!def.is_resource);
        assert!(v.to_proto(Some("other")).is_none());
        let back = Variable::from_proto(&g, &def, Some("model")).unwrap();
        assert_eq!(back.name(), "model/w");
        assert_eq!(back.initial_value().name(), v.initial_value().name());
        let item = &g.get_collection(graph_keys::GLOBAL_VARIABLES)[0];
        let found = Variable::from_collection_item(&g, item).unwrap().unwrap();
        assert_eq!(found.name(), global_variables(&g).unwrap()[0].name());
    }

    #[test]
    fn a_proto_naming_missing_or_wrong_nodes_is_an_error() {
        let g = Graph::new();
        let c = constant(&g, 1.0f32).unwrap();
        let mut def = VariableDef {
            variable_name: "nope:0".into(),
            ..Default::default()
        };
        let e = Variable::from_proto(&g, &def, None).unwrap_err();
        assert!(e.is_not_found(), "{e}");
        def.variable_name = c.name();
        let e = Variable::from_proto(&g, &def, None).unwrap_err();
        assert!(e.is_invalid_argument(), "{e}");
        assert!(e.to_string().contains("not a variable"), "{e}");
    }
}
