//! `tf.train.import_meta_graph`: a `MetaGraphDef`'s graph and collections into a graph, and the
//! saver it records.

use std::path::Path;

use weir_graph::graph_def::meta_graph::{
    collection_def::Kind, prepend_name_scope, read_meta_graph_file, MetaGraphDef, QueueRunnerDef,
    VariableDef,
};
use weir_graph::graph_def::{ImportGraphDef, Message};
use weir_graph::{graph_keys, Error, Graph, Output, Result};
use weir_ops::state::{global_variables, Variable};

use super::{is_variable_key, CollectionValue};
use crate::{add_queue_runner, QueueRunner, Saver};

/// The options of `tf.train.import_meta_graph(meta_graph_or_file, clear_devices=False,
/// import_scope=None, input_map=None)`.
///
/// ```
/// use weir_graph::Graph;
/// use weir_ops::{array::constant, state::{global_variables, Variable}};
/// use weir_train::{ExportMetaGraph, ImportMetaGraph, Saver};
///
/// let g = Graph::new();
/// Variable::builder(constant(&g, [1.0f32, 2.0])?).name("w").build()?;
/// let meta = ExportMetaGraph::new(&g).saver(&Saver::new(&g)?).build()?;
///
/// let g2 = Graph::new();
/// let saver = ImportMetaGraph::new(meta).import_scope("model").import(&g2)?;
/// assert!(saver.is_some());
/// assert_eq!(global_variables(&g2)?[0].name(), "model/w");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct ImportMetaGraph {
    def: MetaGraphDef,
    import_scope: Option<String>,
    input_map: Vec<(String, Output)>,
}

impl ImportMetaGraph {
    /// Imports `def` with the names it has.
    pub fn new(def: MetaGraphDef) -> ImportMetaGraph {
        ImportMetaGraph {
            def,
            import_scope: None,
            input_map: Vec::new(),
        }
    }

    /// Reads the meta graph file `path` (as `Saver::save` and TensorFlow's savers write it).
    pub fn from_file(path: impl AsRef<Path>) -> Result<ImportMetaGraph> {
        Ok(ImportMetaGraph::new(read_meta_graph_file(path)?))
    }

    /// Puts every imported name under the name scope `scope` (made unique in the graph, as
    /// TensorFlow makes it): `import_scope=`.
    pub fn import_scope(mut self, scope: &str) -> ImportMetaGraph {
        self.import_scope = Some(scope.to_string());
        self
    }

    /// Uses `tensor` wherever the imported graph reads the output `name` (`input_map=`).
    pub fn input_map(mut self, name: &str, tensor: impl Into<Output>) -> ImportMetaGraph {
        self.input_map.push((name.to_string(), tensor.into()));
        self
    }

    /// Adds the graph's nodes to `graph`, then its collections (see the module doc), and
    /// returns the saver its `SaverDef` names; without one, a new saver of the graph's global
    /// variables, or `None` when there are none (TensorFlow's rules). Devices are ignored, as
    /// weir places nothing. An item naming a node that is not in the graph is NotFound.
    pub fn import(&self, graph: &Graph) -> Result<Option<Saver>> {
        self.import_scoped(graph).map(|(saver, _)| saver)
    }

    /// [`ImportMetaGraph::import`], also returning the name scope the names were put under
    /// (the import scope made unique in the graph).
    pub(crate) fn import_scoped(&self, graph: &Graph) -> Result<(Option<Saver>, Option<String>)> {
        weir_ops::register_all_ops();
        let graph_def = self.def.graph_def.clone().unwrap_or_default();
        let scope = self
            .import_scope
            .as_deref()
            .map(|s| s.trim_end_matches('/'))
            .filter(|s| !s.is_empty())
            .map(|s| graph.unique_name(s));
        let mut importer =
            ImportGraphDef::new(&graph_def).exact_name(scope.as_deref().unwrap_or(""));
        for (name, tensor) in &self.input_map {
            importer = importer.input_map(name, tensor.clone());
        }
        importer.import(graph)?;
        let s = scope.as_deref();
        for (key, def) in &self.def.collection_def {
            add_collection(graph, key, def.kind.as_ref(), s)
                .map_err(|e| e.with_prefix(&format!("Collection {key} of the meta graph: ")))?;
        }
        let saver = if let Some(def) = &self.def.saver_def {
            Some(Saver::from_saver_def(graph, def, s)?)
        } else if global_variables(graph)?.is_empty() {
            None
        } else {
            Some(Saver::new(graph)?)
        };
        Ok((saver, scope))
    }
}

/// `tf.train.import_meta_graph(meta_graph_file)` into `graph`: its nodes and collections, and
/// the saver it records (see [`ImportMetaGraph::import`]).
///
/// The documented pattern, in a program that has not the model's code, only its files:
/// ```no_run
/// use weir_graph::{Graph, Operation};
/// use weir_session::Session;
/// use weir_train::{import_meta_graph, start_queue_runners, Coordinator};
///
/// let g = Graph::new();
/// let saver = import_meta_graph(&g, "train/model.ckpt-1000.meta")?.unwrap();
/// let sess = Session::new(&g)?;
/// saver.restore(&sess, "train/model.ckpt-1000")?;
/// let coord = Coordinator::new();
/// let threads = start_queue_runners(&sess, &coord)?;
/// let train_op = g.get_collection("train_op");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn import_meta_graph(
    graph: &Graph,
    meta_graph_file: impl AsRef<Path>,
) -> Result<Option<Saver>> {
    ImportMetaGraph::from_file(meta_graph_file)?.import(graph)
}

/// Adds collection `key`'s items, named under `scope`, to `graph`'s collection `key`.
fn add_collection(
    graph: &Graph,
    key: &str,
    kind: Option<&Kind>,
    scope: Option<&str>,
) -> Result<()> {
    match kind {
        None => {}
        Some(Kind::NodeList(list)) => {
            for name in &list.value {
                let full = prepend_name_scope(name, scope);
                if full.contains(':') {
                    graph.add_to_collection(key, graph.tensor_by_name(&full)?)?;
                } else {
                    let op = graph.operation_by_name(&full).ok_or_else(|| {
                        Error::not_found(format!(
                            "The name '{full}' refers to an Operation not in the graph."
                        ))
                    })?;
                    graph.add_to_collection(key, op)?;
                }
            }
        }
        Some(Kind::BytesList(list)) if is_variable_key(key) => {
            for bytes in &list.value {
                let def = VariableDef::decode(bytes.as_ref()).map_err(|e| {
                    Error::data_loss(format!("A VariableDef cannot be parsed: {e}"))
                })?;
                Variable::from_proto(graph, &def, scope)?.add_to_collection(key);
            }
        }
        Some(Kind::BytesList(list)) if key == graph_keys::QUEUE_RUNNERS => {
            for bytes in &list.value {
                let def = QueueRunnerDef::decode(bytes.as_ref()).map_err(|e| {
                    Error::data_loss(format!("A QueueRunnerDef cannot be parsed: {e}"))
                })?;
                add_queue_runner(&QueueRunner::from_proto(graph, &def, scope)?, Some(key));
            }
        }
        // weir's loops and conds run without TensorFlow's context protos.
        Some(Kind::BytesList(_)) if key == "cond_context" || key == "while_context" => {}
        Some(Kind::BytesList(list)) => {
            for b in &list.value {
                graph.add_object_to_collection(key, CollectionValue::Bytes(b.clone()).into());
            }
        }
        Some(Kind::Int64List(list)) => {
            for &i in &list.value {
                graph.add_object_to_collection(key, CollectionValue::Int64(i).into());
            }
        }
        Some(Kind::FloatList(list)) => {
            for &f in &list.value {
                graph.add_object_to_collection(key, CollectionValue::Float(f).into());
            }
        }
        // `google.protobuf.Any` items name Python types weir has no counterpart of.
        Some(Kind::AnyList(_)) => {}
    }
    Ok(())
}
