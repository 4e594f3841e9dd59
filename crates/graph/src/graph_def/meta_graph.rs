//! TensorFlow's `MetaGraphDef` (`meta_graph.proto`) and the messages its collections hold
//! (`SaverDef`, `VariableDef`, `QueueRunnerDef`), written by hand as prost messages with
//! TensorFlow's field numbers; and the `.meta` file that holds one.
//!
//! A meta graph is what `tf.train.Saver.save` writes beside a checkpoint and what
//! `tf.train.import_meta_graph` reads back: the graph, the collections a program looks its
//! tensors up in (`train_op`, `variables`, `queue_runners`, ...) and how to save and restore.
//! Fields weir does not use (the stripped op list, the object graph) are skipped when read.

use std::collections::BTreeMap;
use std::path::Path;

use bytes::Bytes;
use prost::Message;

use super::proto::{GraphDef, TensorProto, TensorShapeProto};
use crate::{Error, Result};

/// `tensorflow.MetaGraphDef`: a graph with its collections, saver and signatures.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MetaGraphDef {
    /// Versions and tags.
    #[prost(message, optional, tag = "1")]
    pub meta_info_def: Option<MetaInfoDef>,
    /// The graph.
    #[prost(message, optional, tag = "2")]
    pub graph_def: Option<GraphDef>,
    /// The save and restore ops of the graph's saver.
    #[prost(message, optional, tag = "3")]
    pub saver_def: Option<SaverDef>,
    /// The graph's collections, by key.
    #[prost(btree_map = "string, message", tag = "4")]
    pub collection_def: BTreeMap<String, CollectionDef>,
    /// Named signatures (a SavedModel's serving inputs and outputs).
    #[prost(btree_map = "string, message", tag = "5")]
    pub signature_def: BTreeMap<String, SignatureDef>,
    /// Asset files the graph reads (vocabularies), as tensors naming them.
    #[prost(message, repeated, tag = "6")]
    pub asset_file_def: Vec<AssetFileDef>,
}

/// `tensorflow.SavedModel`: the `saved_model.pb` of a SavedModel directory, one meta graph per
/// tag set.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SavedModel {
    /// The format's version: 1.
    #[prost(int64, tag = "1")]
    pub saved_model_schema_version: i64,
    /// The meta graphs, each tagged (`serve`, `train`, ...).
    #[prost(message, repeated, tag = "2")]
    pub meta_graphs: Vec<MetaGraphDef>,
}

/// `tensorflow.MetaGraphDef.MetaInfoDef`: who wrote the meta graph.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MetaInfoDef {
    /// A user-given version string.
    #[prost(string, tag = "1")]
    pub meta_graph_version: String,
    /// Tags (a SavedModel's `serve`, `train`).
    #[prost(string, repeated, tag = "4")]
    pub tags: Vec<String>,
    /// The writer's TensorFlow version (`tf.__version__`).
    #[prost(string, tag = "5")]
    pub tensorflow_version: String,
    /// The writer's TensorFlow git version.
    #[prost(string, tag = "6")]
    pub tensorflow_git_version: String,
    /// Whether attributes equal to their defaults were left out of the graph.
    #[prost(bool, tag = "7")]
    pub stripped_default_attrs: bool,
}

/// `tensorflow.CollectionDef`: one collection's items, of one kind.
#[derive(Clone, PartialEq, prost::Message)]
pub struct CollectionDef {
    /// The items.
    #[prost(oneof = "collection_def::Kind", tags = "1, 2, 3, 4, 5")]
    pub kind: Option<collection_def::Kind>,
}

/// The kinds of [`CollectionDef`].
pub mod collection_def {
    use bytes::Bytes;

    /// A collection's items.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Kind {
        /// Operations (`name`) and tensors (`name:index`).
        #[prost(message, tag = "1")]
        NodeList(NodeList),
        /// Serialized protos (`VariableDef`, `QueueRunnerDef`, ...) or plain bytes.
        #[prost(message, tag = "2")]
        BytesList(BytesList),
        /// Integers.
        #[prost(message, tag = "3")]
        Int64List(Int64List),
        /// Floats.
        #[prost(message, tag = "4")]
        FloatList(FloatList),
        /// `google.protobuf.Any` messages.
        #[prost(message, tag = "5")]
        AnyList(AnyList),
    }

    /// `CollectionDef.NodeList`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct NodeList {
        /// Operation and tensor names.
        #[prost(string, repeated, tag = "1")]
        pub value: Vec<String>,
    }

    /// `CollectionDef.BytesList`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct BytesList {
        /// The items' bytes.
        #[prost(bytes = "bytes", repeated, tag = "1")]
        pub value: Vec<Bytes>,
    }

    /// `CollectionDef.Int64List`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Int64List {
        /// The items.
        #[prost(int64, repeated, packed = "true", tag = "1")]
        pub value: Vec<i64>,
    }

    /// `CollectionDef.FloatList`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct FloatList {
        /// The items.
        #[prost(float, repeated, packed = "true", tag = "1")]
        pub value: Vec<f32>,
    }

    /// `CollectionDef.AnyList`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct AnyList {
        /// The items.
        #[prost(message, repeated, tag = "1")]
        pub value: Vec<super::Any>,
    }
}

/// `google.protobuf.Any`: a message with the URL of its type.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Any {
    /// `type.googleapis.com/<full message name>`.
    #[prost(string, tag = "1")]
    pub type_url: String,
    /// The serialized message.
    #[prost(bytes = "bytes", tag = "2")]
    pub value: Bytes,
}

/// `tensorflow.SignatureDef`: a computation's named inputs and outputs.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SignatureDef {
    /// Inputs by key.
    #[prost(btree_map = "string, message", tag = "1")]
    pub inputs: BTreeMap<String, TensorInfo>,
    /// Outputs by key.
    #[prost(btree_map = "string, message", tag = "2")]
    pub outputs: BTreeMap<String, TensorInfo>,
    /// `tensorflow/serving/predict` and the like.
    #[prost(string, tag = "3")]
    pub method_name: String,
    /// Default values of inputs that may be left out.
    #[prost(btree_map = "string, message", tag = "4")]
    pub defaults: BTreeMap<String, TensorProto>,
}

/// `tensorflow.TensorInfo`: a tensor of a signature, by name.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorInfo {
    /// How the tensor is found.
    #[prost(oneof = "tensor_info::Encoding", tags = "1, 4")]
    pub encoding: Option<tensor_info::Encoding>,
    /// Its dtype (`DataType` number).
    #[prost(int32, tag = "2")]
    pub dtype: i32,
    /// Its static shape.
    #[prost(message, optional, tag = "3")]
    pub tensor_shape: Option<TensorShapeProto>,
}

/// The encodings of [`TensorInfo`].
pub mod tensor_info {
    /// How a signature's tensor is found.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Encoding {
        /// A dense tensor's name (`x:0`).
        #[prost(string, tag = "1")]
        Name(String),
        /// A sparse tensor's three tensors.
        #[prost(message, tag = "4")]
        CooSparse(CooSparse),
    }

    /// `TensorInfo.CooSparse`: the names of a SparseTensor's components.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct CooSparse {
        /// The values tensor.
        #[prost(string, tag = "1")]
        pub values_tensor_name: String,
        /// The indices tensor.
        #[prost(string, tag = "2")]
        pub indices_tensor_name: String,
        /// The dense shape tensor.
        #[prost(string, tag = "3")]
        pub dense_shape_tensor_name: String,
    }
}

/// `tensorflow.AssetFileDef`: an asset file and the tensor that names it.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AssetFileDef {
    /// The tensor fed with the asset's path.
    #[prost(message, optional, tag = "1")]
    pub tensor_info: Option<TensorInfo>,
    /// The file's name, relative to the SavedModel's assets directory.
    #[prost(string, tag = "2")]
    pub filename: String,
}

/// `tensorflow.SaverDef`: the tensors and op a `tf.train.Saver` saves and restores through.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SaverDef {
    /// The string tensor fed with the checkpoint path (`save/Const:0`).
    #[prost(string, tag = "1")]
    pub filename_tensor_name: String,
    /// The tensor fetched to save (`save/control_dependency:0`).
    #[prost(string, tag = "2")]
    pub save_tensor_name: String,
    /// The op run to restore (`save/restore_all`).
    #[prost(string, tag = "3")]
    pub restore_op_name: String,
    /// How many recent checkpoints to keep.
    #[prost(int32, tag = "4")]
    pub max_to_keep: i32,
    /// Whether the save writes one file per device.
    #[prost(bool, tag = "5")]
    pub sharded: bool,
    /// Keep one checkpoint per this many hours besides the recent ones.
    #[prost(float, tag = "6")]
    pub keep_checkpoint_every_n_hours: f32,
    /// The checkpoint format: 1 (`V1`) or 2 (`V2`, `<prefix>.index` and data files).
    #[prost(int32, tag = "7")]
    pub version: i32,
}

/// `SaverDef.V2`: checkpoints as `<prefix>.index` and `<prefix>.data-*` files.
pub const SAVER_DEF_V2: i32 = 2;

/// `tensorflow.VariableDef`: the nodes of a variable, as its collections record it.
#[derive(Clone, PartialEq, prost::Message)]
pub struct VariableDef {
    /// The variable's tensor (`w:0`).
    #[prost(string, tag = "1")]
    pub variable_name: String,
    /// The op that assigns the initial value (`w/Assign`).
    #[prost(string, tag = "2")]
    pub initializer_name: String,
    /// The tensor of its value (`w/read:0`).
    #[prost(string, tag = "3")]
    pub snapshot_name: String,
    /// Where the variable sits in a partitioned one.
    #[prost(message, optional, tag = "4")]
    pub save_slice_info_def: Option<SaveSliceInfoDef>,
    /// Whether it is a resource variable (`VarHandleOp`).
    #[prost(bool, tag = "5")]
    pub is_resource: bool,
    /// The initial value's tensor.
    #[prost(string, tag = "6")]
    pub initial_value_name: String,
    /// Whether optimizers train it.
    #[prost(bool, tag = "7")]
    pub trainable: bool,
    /// `tf.VariableSynchronization` (0 is AUTO).
    #[prost(int32, tag = "8")]
    pub synchronization: i32,
    /// `tf.VariableAggregation` (0 is NONE).
    #[prost(int32, tag = "9")]
    pub aggregation: i32,
}

/// `tensorflow.SaveSliceInfoDef`: a slice of a partitioned variable.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SaveSliceInfoDef {
    /// The whole variable's name.
    #[prost(string, tag = "1")]
    pub full_name: String,
    /// The whole variable's shape.
    #[prost(int64, repeated, tag = "2")]
    pub full_shape: Vec<i64>,
    /// This slice's offset in it.
    #[prost(int64, repeated, tag = "3")]
    pub var_offset: Vec<i64>,
    /// This slice's shape.
    #[prost(int64, repeated, tag = "4")]
    pub var_shape: Vec<i64>,
}

/// `tensorflow.QueueRunnerDef`: a `tf.train.QueueRunner` by the names of its nodes.
#[derive(Clone, PartialEq, prost::Message)]
pub struct QueueRunnerDef {
    /// The queue op.
    #[prost(string, tag = "1")]
    pub queue_name: String,
    /// The enqueue ops, one thread each.
    #[prost(string, repeated, tag = "2")]
    pub enqueue_op_name: Vec<String>,
    /// The op that closes the queue when the input is exhausted.
    #[prost(string, tag = "3")]
    pub close_op_name: String,
    /// The op that closes it, cancelling pending enqueues, when a coordinator stops.
    #[prost(string, tag = "4")]
    pub cancel_op_name: String,
    /// The error codes (`tensorflow.error.Code` numbers) that end a thread quietly.
    #[prost(int32, repeated, packed = "true", tag = "5")]
    pub queue_closed_exception_types: Vec<i32>,
}

/// `name` (an op `x`, a tensor `x:0` or a control input `^x`) under the name scope `scope`, as
/// an import under `import_scope` names it (TensorFlow's `ops.prepend_name_scope`).
pub fn prepend_name_scope(name: &str, scope: Option<&str>) -> String {
    match scope
        .map(|s| s.trim_end_matches('/'))
        .filter(|s| !s.is_empty())
    {
        None => name.to_string(),
        Some(scope) => match name.strip_prefix('^') {
            Some(op) => format!("^{scope}/{op}"),
            None => format!("{scope}/{name}"),
        },
    }
}

/// `name` without the leading name scope `scope`, as an export under `export_scope` writes it
/// (TensorFlow's `ops.strip_name_scope`); `None` when `name` is not under `scope`.
pub fn strip_name_scope(name: &str, scope: Option<&str>) -> Option<String> {
    let Some(scope) = scope
        .map(|s| s.trim_end_matches('/'))
        .filter(|s| !s.is_empty())
    else {
        return Some(name.to_string());
    };
    let (caret, bare) = match name.strip_prefix('^') {
        Some(op) => ("^", op),
        None => ("", name),
    };
    let rest = bare.strip_prefix(scope)?.strip_prefix('/')?;
    Some(format!("{caret}{rest}"))
}

/// Reads a meta graph file (`tf.train.import_meta_graph`'s `read_meta_graph_file`): the binary
/// message TensorFlow's savers write. NotFound names a missing file; a file that is not a
/// `MetaGraphDef` is DataLoss naming it.
pub fn read_meta_graph_file(path: impl AsRef<Path>) -> Result<MetaGraphDef> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| {
        let e: Error = e.into();
        e.with_prefix(&format!("{}: ", path.display()))
    })?;
    MetaGraphDef::decode(bytes.as_slice()).map_err(|e| {
        Error::data_loss(format!(
            "Cannot parse {} as a MetaGraphDef (binary format): {e}",
            path.display()
        ))
    })
}

/// Writes `def` to `path` as the binary message, through a temporary file renamed into place.
pub fn write_meta_graph_file(def: &MetaGraphDef, path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    let fail = |e: std::io::Error| -> Error {
        Error::from(e).with_prefix(&format!("Failed to write {}: ", path.display()))
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp{}", std::process::id()));
    std::fs::write(&tmp, def.encode_to_vec()).map_err(fail)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        fail(e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collections_round_trip_through_the_wire_format() {
        let mut def = MetaGraphDef::default();
        def.collection_def.insert(
            "train_op".into(),
            CollectionDef {
                kind: Some(collection_def::Kind::NodeList(collection_def::NodeList {
                    value: vec!["Momentum".into()],
                })),
            },
        );
        def.collection_def.insert(
            "counts".into(),
            CollectionDef {
                kind: Some(collection_def::Kind::Int64List(collection_def::Int64List {
                    value: vec![1, -2, 1 << 40],
                })),
            },
        );
        let qr = QueueRunnerDef {
            queue_name: "q".into(),
            enqueue_op_name: vec!["q_enqueue".into()],
            close_op_name: "q_Close".into(),
            cancel_op_name: "q_Close_1".into(),
            queue_closed_exception_types: vec![11],
        };
        def.collection_def.insert(
            "queue_runners".into(),
            CollectionDef {
                kind: Some(collection_def::Kind::BytesList(collection_def::BytesList {
                    value: vec![qr.encode_to_vec().into()],
                })),
            },
        );
        let back = MetaGraphDef::decode(def.encode_to_vec().as_slice()).unwrap();
        assert_eq!(back, def);
        let Some(collection_def::Kind::BytesList(b)) = &back.collection_def["queue_runners"].kind
        else {
            panic!("queue_runners is not a bytes list");
        };
        assert_eq!(QueueRunnerDef::decode(b.value[0].as_ref()).unwrap(), qr);
    }

    #[test]
    fn name_scopes_are_prepended_and_stripped_as_tensorflow_does() {
        assert_eq!(prepend_name_scope("w:0", Some("model")), "model/w:0");
        assert_eq!(prepend_name_scope("^init", Some("model/")), "^model/init");
        assert_eq!(prepend_name_scope("w:0", None), "w:0");
        assert_eq!(prepend_name_scope("w:0", Some("")), "w:0");
        assert_eq!(
            strip_name_scope("model/w:0", Some("model")).as_deref(),
            Some("w:0")
        );
        assert_eq!(
            strip_name_scope("^model/init", Some("model")).as_deref(),
            Some("^init")
        );
        assert_eq!(strip_name_scope("modelx/w:0", Some("model")), None);
        assert_eq!(strip_name_scope("w:0", None).as_deref(), Some("w:0"));
    }

    #[test]
    fn a_file_that_is_not_a_meta_graph_is_data_loss_naming_it() {
        let dir = std::env::temp_dir().join(format!("weir-meta-graph-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.meta");
        std::fs::write(&path, b"\x0a\xff\xff\xff\xff\x0f").unwrap();
        let e = read_meta_graph_file(&path).unwrap_err();
        assert_eq!(e.code(), crate::Code::DataLoss);
        assert!(e.to_string().contains("bad.meta"), "{e}");
        let e = read_meta_graph_file(dir.join("missing.meta")).unwrap_err();
        assert_eq!(e.code(), crate::Code::NotFound);
        std::fs::remove_dir_all(&dir).ok();
    }
}
