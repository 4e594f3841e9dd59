//! `tf.train.export_meta_graph`: a graph, its collections and its saver as a `MetaGraphDef`.

use std::path::Path;

use weir_graph::graph_def::meta_graph::{
    collection_def, strip_name_scope, write_meta_graph_file, CollectionDef, MetaGraphDef,
    MetaInfoDef, SaverDef,
};
use weir_graph::graph_def::Message;
use weir_graph::{graph_keys, CollectionItem, Error, Graph, Result};
use weir_ops::state::Variable;

use super::{is_variable_key, CollectionValue};
use crate::{QueueRunner, Saver};

/// The options of `tf.train.export_meta_graph(filename=None, saver_def=None,
/// collection_list=None, graph=None, export_scope=None)`.
///
/// ```
/// use weir_graph::{graph_keys, Graph};
/// use weir_ops::{array::constant, state::Variable};
/// use weir_train::{ExportMetaGraph, Saver};
///
/// let g = Graph::new();
/// let w = Variable::builder(constant(&g, [1.0f32, 2.0])?).name("w").build()?;
/// g.add_to_collection("loss", constant(&g, 0.5f32)?)?;
/// let saver = Saver::new(&g)?;
/// let meta = ExportMetaGraph::new(&g).saver(&saver).build()?;
/// assert_eq!(meta.saver_def.unwrap().restore_op_name, "save/restore_all");
/// assert!(meta.collection_def.contains_key(graph_keys::GLOBAL_VARIABLES));
/// assert!(meta.collection_def.contains_key("loss"));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct ExportMetaGraph {
    graph: Graph,
    saver_def: Option<SaverDef>,
    collection_list: Option<Vec<String>>,
    export_scope: Option<String>,
}

impl ExportMetaGraph {
    /// Every collection of `graph`, no saver, the whole graph.
    pub fn new(graph: &Graph) -> ExportMetaGraph {
        ExportMetaGraph {
            graph: graph.clone(),
            saver_def: None,
            collection_list: None,
            export_scope: None,
        }
    }

    /// Records `saver`'s save and restore nodes (`saver_def=saver.as_saver_def()`), which
    /// `import_meta_graph` turns back into a saver.
    pub fn saver(mut self, saver: &Saver) -> ExportMetaGraph {
        self.saver_def = Some(saver.as_saver_def());
        self
    }

    /// Exports only these collections (`collection_list=`; default all).
    pub fn collection_list(mut self, keys: &[&str]) -> ExportMetaGraph {
        self.collection_list = Some(keys.iter().map(|k| k.to_string()).collect());
        self
    }

    /// Exports only the nodes under the name scope `scope`, named without it, and the
    /// collection items under it (`export_scope=`).
    pub fn export_scope(mut self, scope: &str) -> ExportMetaGraph {
        self.export_scope = Some(scope.to_string());
        self
    }

    /// The `MetaGraphDef`: the graph (with `_output_shapes`, as TensorFlow writes it), the
    /// saver's `SaverDef` and the collections. A collection whose items have no meta graph
    /// form (objects other than variables and queue runners, or items of mixed kinds) is left
    /// out with a warning on standard error, as TensorFlow leaves it out.
    pub fn build(&self) -> Result<MetaGraphDef> {
        let scope = self.export_scope.as_deref();
        let mut graph_def = self.graph.as_graph_def(true)?;
        if scope.is_some() {
            let mut kept = Vec::new();
            for mut n in std::mem::take(&mut graph_def.node) {
                let Some(name) = strip_name_scope(&n.name, scope) else {
                    continue;
                };
                for input in &mut n.input {
                    *input = strip_name_scope(input, scope).ok_or_else(|| {
                        Error::invalid_argument(format!(
                            "Node {} under export_scope {} reads {input} from outside it; weir does not export unbound inputs",
                            n.name,
                            scope.unwrap_or_default()
                        ))
                    })?;
                }
                n.name = name;
                kept.push(n);
            }
            graph_def.node = kept;
        }
        let keys = match &self.collection_list {
            Some(keys) => keys.clone(),
            None => self.graph.collection_keys(),
        };
        let mut collection_def = std::collections::BTreeMap::new();
        for key in keys {
            // weir's own run-time state (variable scopes, stores), as TensorFlow's `__` keys.
            if key.starts_with("__") {
                continue;
            }
            match collection(&self.graph, &key, scope)? {
                Some(Some(def)) => {
                    collection_def.insert(key, def);
                }
                Some(None) => {}
                None => eprintln!(
                    "WARNING: Issue encountered when serializing {key}.\nType is unsupported, or the types of the items don't match field type in CollectionDef."
                ),
            }
        }
        Ok(MetaGraphDef {
            meta_info_def: Some(MetaInfoDef {
                meta_graph_version: String::new(),
                tags: Vec::new(),
                tensorflow_version: String::new(),
                tensorflow_git_version: format!("weir {}", env!("CARGO_PKG_VERSION")),
                stripped_default_attrs: false,
            }),
            graph_def: Some(graph_def),
            saver_def: self.saver_def.clone(),
            collection_def,
            signature_def: Default::default(),
            asset_file_def: Vec::new(),
        })
    }

    /// [`ExportMetaGraph::build`], then writes it to `path` in the binary format (through a
    /// temporary file renamed into place) and returns it.
    pub fn write(&self, path: impl AsRef<Path>) -> Result<MetaGraphDef> {
        let def = self.build()?;
        write_meta_graph_file(&def, path)?;
        Ok(def)
    }
}

/// `tf.train.export_meta_graph(filename, graph=graph)`: writes every collection of `graph`
/// with its graph to `filename`, without a saver (a saver writes its own through
/// `Saver::save`, or pass it to [`ExportMetaGraph::saver`]).
pub fn export_meta_graph(graph: &Graph, filename: impl AsRef<Path>) -> Result<MetaGraphDef> {
    ExportMetaGraph::new(graph).write(filename)
}

/// One item in meta graph form.
enum Entry {
    Node(String),
    Bytes(bytes::Bytes),
    Int64(i64),
    Float(f32),
}

/// Collection `key` as a `CollectionDef`: `Some(None)` when none of its items is under
/// `scope`, `None` when an item has no meta graph form or the kinds are mixed.
fn collection(
    graph: &Graph,
    key: &str,
    scope: Option<&str>,
) -> Result<Option<Option<CollectionDef>>> {
    let mut entries = Vec::new();
    for item in graph.get_collection(key) {
        let entry = match &item {
            CollectionItem::Operation(op) => strip_name_scope(&op.name(), scope).map(Entry::Node),
            CollectionItem::Output(o) => strip_name_scope(&o.name(), scope).map(Entry::Node),
            CollectionItem::Object(obj) => {
                if let Some(v) = Variable::from_collection_item(graph, &item) {
                    let v = v?;
                    if is_variable_key(key) || key == graph_keys::SAVERS {
                        v.to_proto(scope)
                            .map(|d| Entry::Bytes(d.encode_to_vec().into()))
                    } else {
                        // Outside the variable collections TensorFlow writes a variable's name.
                        strip_name_scope(&v.handle().name(), scope).map(Entry::Node)
                    }
                } else if let Some(qr) = QueueRunner::from_collection_item(graph, &item) {
                    qr.to_proto(scope)
                        .map(|d| Entry::Bytes(d.encode_to_vec().into()))
                } else if let Some(saver) = obj.downcast_ref::<Saver>() {
                    // TensorFlow's Saver.to_proto: its SaverDef, with the names relative to the
                    // exported scope (none when a name is outside it).
                    let mut def = saver.as_saver_def();
                    let names = [
                        strip_name_scope(&def.filename_tensor_name, scope),
                        strip_name_scope(&def.save_tensor_name, scope),
                        strip_name_scope(&def.restore_op_name, scope),
                    ];
                    match names {
                        [Some(f), Some(s), Some(r)] => {
                            (
                                def.filename_tensor_name,
                                def.save_tensor_name,
                                def.restore_op_name,
                            ) = (f, s, r);
                            Some(Entry::Bytes(def.encode_to_vec().into()))
                        }
                        _ => None,
                    }
                } else if let Some(value) = obj.downcast_ref::<CollectionValue>() {
                    Some(match value {
                        CollectionValue::Bytes(b) => Entry::Bytes(b.clone()),
                        CollectionValue::Int64(i) => Entry::Int64(*i),
                        CollectionValue::Float(f) => Entry::Float(*f),
                    })
                } else {
                    return Ok(None);
                }
            }
        };
        entries.extend(entry);
    }
    use collection_def::Kind;
    let mut kind: Option<Kind> = None;
    for e in entries {
        match (&mut kind, e) {
            (None, Entry::Node(n)) => {
                kind = Some(Kind::NodeList(collection_def::NodeList { value: vec![n] }))
            }
            (None, Entry::Bytes(b)) => {
                kind = Some(Kind::BytesList(collection_def::BytesList {
                    value: vec![b],
                }))
            }
            (None, Entry::Int64(i)) => {
                kind = Some(Kind::Int64List(collection_def::Int64List {
                    value: vec![i],
                }))
            }
            (None, Entry::Float(f)) => {
                kind = Some(Kind::FloatList(collection_def::FloatList {
                    value: vec![f],
                }))
            }
            (Some(Kind::NodeList(l)), Entry::Node(n)) => l.value.push(n),
            (Some(Kind::BytesList(l)), Entry::Bytes(b)) => l.value.push(b),
            (Some(Kind::Int64List(l)), Entry::Int64(i)) => l.value.push(i),
            (Some(Kind::FloatList(l)), Entry::Float(f)) => l.value.push(f),
            _ => return Ok(None),
        }
    }
    Ok(Some(kind.map(|k| CollectionDef { kind: Some(k) })))
}
