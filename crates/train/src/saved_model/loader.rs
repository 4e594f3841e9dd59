//! `tf.compat.v1.saved_model.loader.load`: a SavedModel's meta graph into a session's graph,
//! its variables restored, its assets found and its init op run.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use weir_graph::graph_def::meta_graph::{
    collection_def::Kind, prepend_name_scope, tensor_info, AssetFileDef, MetaGraphDef, SavedModel,
};
use weir_graph::graph_def::Message;
use weir_graph::{Error, Result, Tensor};
use weir_ops::training::checkpoint_exists;
use weir_session::{RunArgs, SessionHandle};

use super::constants as k;
use crate::ImportMetaGraph;

/// `tf.saved_model.contains_saved_model(export_dir)`: whether `export_dir` holds a
/// `saved_model.pb` (or `saved_model.pbtxt`).
pub fn contains_saved_model(export_dir: impl AsRef<Path>) -> bool {
    let d = export_dir.as_ref();
    d.join(k::SAVED_MODEL_FILENAME_PB).is_file() || d.join(k::SAVED_MODEL_FILENAME_PBTXT).is_file()
}

/// Reads `export_dir/saved_model.pb`: NotFound with TensorFlow's message when the directory
/// has none, DataLoss when it does not parse.
fn read_saved_model(export_dir: &Path) -> Result<SavedModel> {
    let pb = export_dir.join(k::SAVED_MODEL_FILENAME_PB);
    if !pb.is_file() {
        if export_dir.join(k::SAVED_MODEL_FILENAME_PBTXT).is_file() {
            return Err(Error::unimplemented(format!(
                "{} is in the text format; weir reads the binary saved_model.pb",
                export_dir.join(k::SAVED_MODEL_FILENAME_PBTXT).display()
            )));
        }
        return Err(Error::not_found(format!(
            "SavedModel file does not exist at: {}/{{saved_model.pbtxt|saved_model.pb}}",
            export_dir.display()
        )));
    }
    let bytes = std::fs::read(&pb)
        .map_err(|e| Error::from(e).with_prefix(&format!("{}: ", pb.display())))?;
    SavedModel::decode(bytes.as_slice()).map_err(|e| {
        Error::data_loss(format!(
            "Cannot parse {} as a SavedModel: {e}",
            pb.display()
        ))
    })
}

/// The options of `tf.compat.v1.saved_model.loader.load(sess, tags, export_dir,
/// import_scope=None)`.
pub struct SavedModelLoader {
    export_dir: PathBuf,
    import_scope: Option<String>,
}

impl SavedModelLoader {
    /// Loads from `export_dir`.
    pub fn new(export_dir: impl AsRef<Path>) -> SavedModelLoader {
        SavedModelLoader {
            export_dir: export_dir.as_ref().to_path_buf(),
            import_scope: None,
        }
    }

    /// Puts the model's names under the name scope `scope` (`import_scope=`).
    pub fn import_scope(mut self, scope: &str) -> SavedModelLoader {
        self.import_scope = Some(scope.to_string());
        self
    }

    /// The meta graph whose tag set is `tags` (in any order); NotFound naming the tag sets
    /// there are otherwise.
    pub fn meta_graph(&self, tags: &[&str]) -> Result<MetaGraphDef> {
        let model = read_saved_model(&self.export_dir)?;
        let want: BTreeSet<&str> = tags.iter().copied().collect();
        let tag_set = |m: &MetaGraphDef| -> BTreeSet<String> {
            m.meta_info_def
                .as_ref()
                .map(|i| i.tags.iter().cloned().collect())
                .unwrap_or_default()
        };
        if let Some(m) = model.meta_graphs.iter().find(|m| {
            let have = tag_set(m);
            have.len() == want.len() && want.iter().all(|t| have.contains(*t))
        }) {
            return Ok(m.clone());
        }
        let available: Vec<String> = model
            .meta_graphs
            .iter()
            .map(|m| format!("{:?}", tag_set(m)))
            .collect();
        Err(Error::not_found(format!(
            "MetaGraphDef associated with tags {want:?} could not be found in SavedModel, with available tags '{}'. To inspect available tag-sets in the SavedModel, please use the SavedModel CLI: `saved_model_cli`.",
            available.join(", ")
        )))
    }

    /// Imports the meta graph tagged `tags` into the session's graph, restores its variables
    /// from `variables/variables`, and runs its init op (TensorFlow 2's
    /// `__saved_model_init_op` signature, or the `saved_model_main_op` or `legacy_init_op`
    /// collection) with each asset tensor fed the path of its file under `assets/`. Returns the
    /// meta graph, whose signatures name the tensors to feed and fetch.
    pub fn load(&self, sess: &SessionHandle, tags: &[&str]) -> Result<MetaGraphDef> {
        let meta = self.meta_graph(tags)?;
        let graph = sess.graph();
        let mut import = ImportMetaGraph::new(meta.clone());
        if let Some(s) = &self.import_scope {
            import = import.import_scope(s);
        }
        let (saver, scope) = import.import_scoped(graph)?;
        let scope = scope.as_deref();
        let variables = self
            .export_dir
            .join(k::VARIABLES_DIRECTORY)
            .join(k::VARIABLES_FILENAME);
        let variables = variables.to_string_lossy();
        if let Some(saver) = &saver {
            // A model without variables has no checkpoint, and nothing to restore.
            if checkpoint_exists(&variables) {
                saver.restore(sess, &variables)?;
            }
        }
        let mut args = RunArgs::new();
        for asset in asset_file_defs(&meta)? {
            let Some(tensor_info::Encoding::Name(name)) =
                asset.tensor_info.as_ref().and_then(|t| t.encoding.clone())
            else {
                continue;
            };
            let tensor = graph.tensor_by_name(&prepend_name_scope(&name, scope))?;
            let path = self
                .export_dir
                .join(k::ASSETS_DIRECTORY)
                .join(&asset.filename);
            args = args.feed(&tensor, Tensor::from(path.to_string_lossy().as_ref()));
        }
        if let Some(op) = init_op_name(&meta) {
            let name = prepend_name_scope(&op, scope);
            let op = graph.operation_by_name(&name).ok_or_else(|| {
                Error::not_found(format!(
                    "The SavedModel's init op {name} is not in the graph"
                ))
            })?;
            sess.run(&args.target(&op))?;
        }
        Ok(meta)
    }
}

/// `tf.compat.v1.saved_model.loader.load(sess, tags, export_dir)`: see
/// [`SavedModelLoader::load`].
///
/// ```no_run
/// use weir_graph::Graph;
/// use weir_session::Session;
/// use weir_train::saved_model::{get_tensor_from_tensor_info, load, tag_constants};
///
/// let g = Graph::new();
/// let sess = Session::new(&g)?;
/// let meta = load(&sess, &[tag_constants::SERVING], "export/1")?;
/// let sig = &meta.signature_def["serving_default"];
/// let y = get_tensor_from_tensor_info(&sig.outputs["y"], &g, None)?;
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn load(
    sess: &SessionHandle,
    tags: &[&str],
    export_dir: impl AsRef<Path>,
) -> Result<MetaGraphDef> {
    SavedModelLoader::new(export_dir).load(sess, tags)
}

/// The asset files of `meta`: its `asset_file_def` field (TensorFlow 2) and the
/// `AssetFileDef`s of its `saved_model_assets` collection (TensorFlow 1's builder).
fn asset_file_defs(meta: &MetaGraphDef) -> Result<Vec<AssetFileDef>> {
    let mut out = meta.asset_file_def.clone();
    if let Some(Kind::AnyList(list)) = meta
        .collection_def
        .get(k::ASSETS_KEY)
        .and_then(|c| c.kind.as_ref())
    {
        for any in &list.value {
            if !any.type_url.ends_with("tensorflow.AssetFileDef") {
                continue;
            }
            out.push(AssetFileDef::decode(any.value.as_ref()).map_err(|e| {
                Error::data_loss(format!(
                    "An AssetFileDef of the SavedModel cannot be parsed: {e}"
                ))
            })?);
        }
    }
    Ok(out)
}

/// The name of the op to run once the variables are restored, if the meta graph has one.
fn init_op_name(meta: &MetaGraphDef) -> Option<String> {
    if let Some(sig) = meta.signature_def.get(k::INIT_OP_SIGNATURE_KEY) {
        if let Some(tensor_info::Encoding::Name(n)) = sig
            .outputs
            .get(k::INIT_OP_SIGNATURE_KEY)
            .and_then(|t| t.encoding.clone())
        {
            return Some(n.split(':').next().unwrap_or_default().to_string());
        }
    }
    [k::MAIN_OP_KEY, k::LEGACY_INIT_OP_KEY]
        .iter()
        .find_map(|key| match meta.collection_def.get(*key)?.kind.as_ref()? {
            Kind::NodeList(l) => l.value.first().cloned(),
            _ => None,
        })
}
