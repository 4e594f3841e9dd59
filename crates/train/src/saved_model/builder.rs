//! `tf.compat.v1.saved_model.Builder` (`SavedModelBuilder`) and `simple_save`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use weir_graph::graph_def::meta_graph::{
    collection_def, Any, AssetFileDef, CollectionDef, MetaGraphDef, SavedModel, SignatureDef,
};
use weir_graph::graph_def::Message;
use weir_graph::{Bytes, Error, Graph, Operation, Output, Result};
use weir_ops::state::global_variables;
use weir_session::SessionHandle;

use super::constants as k;
use super::signature::{build_tensor_info, predict_signature_def};
use super::{signature_constants, tag_constants};
use crate::{ExportMetaGraph, SaveArgs, Saver};

/// The arguments of `add_meta_graph_and_variables` / `add_meta_graph` besides the session
/// and tags: `signature_def_map`, `assets_collection`, `main_op` (or `legacy_init_op`) and
/// `saver` (by default a new sharded saver of the global variables, as TensorFlow's builder
/// makes).
#[derive(Default)]
pub struct MetaGraphArgs<'a> {
    signatures: BTreeMap<String, SignatureDef>,
    assets: Vec<Output>,
    main_op: Option<Operation>,
    saver: Option<&'a Saver>,
}

impl<'a> MetaGraphArgs<'a> {
    /// No signatures, assets or init op; a new saver of the global variables.
    pub fn new() -> MetaGraphArgs<'a> {
        MetaGraphArgs::default()
    }

    /// Adds the signature `key` (`signature_def_map={key: def}`).
    pub fn signature(mut self, key: &str, def: SignatureDef) -> MetaGraphArgs<'a> {
        self.signatures.insert(key.to_string(), def);
        self
    }

    /// The asset tensors (`assets_collection=`): string constants naming files, which are
    /// copied into `assets/` and fed their new paths when the model is loaded.
    pub fn assets(mut self, tensors: &[Output]) -> MetaGraphArgs<'a> {
        self.assets = tensors.to_vec();
        self
    }

    /// The op the loader runs once the variables are restored (`main_op=`, or
    /// `legacy_init_op=`), such as `tables_initializer`.
    pub fn main_op(mut self, op: &Operation) -> MetaGraphArgs<'a> {
        self.main_op = Some(op.clone());
        self
    }

    /// Saves and restores the variables through `saver` (`saver=`) instead of a new one.
    pub fn saver(mut self, saver: &'a Saver) -> MetaGraphArgs<'a> {
        self.saver = Some(saver);
        self
    }
}

/// `tf.compat.v1.saved_model.Builder(export_dir)`: builds a SavedModel directory, one meta
/// graph per tag set, the variables saved once with the first.
///
/// ```
/// use weir_graph::{DType, Graph};
/// use weir_ops::{array::{constant, Placeholder}, math::mul, state::{global_variables_initializer, Variable}};
/// use weir_session::Session;
/// use weir_train::saved_model::{predict_signature_def, tag_constants, MetaGraphArgs, SavedModelBuilder};
///
/// let dir = std::env::temp_dir().join(format!("weir-saved-model-doc-{}", std::process::id()));
/// # let _ = std::fs::remove_dir_all(&dir);
/// let g = Graph::new();
/// let x = Placeholder::new(DType::F32).name("x").build(&g)?;
/// let w = Variable::builder(constant(&g, 3.0f32)?).name("w").build()?;
/// let y = mul(&x, &w)?;
/// let sess = Session::new(&g)?;
/// sess.run_target(&global_variables_initializer(&g)?)?;
/// let mut builder = SavedModelBuilder::new(&dir)?;
/// let sig = predict_signature_def(&[("x", x)], &[("y", y)])?;
/// builder.add_meta_graph_and_variables(
///     &sess,
///     &[tag_constants::SERVING],
///     MetaGraphArgs::new().signature("serving_default", sig),
/// )?;
/// builder.save()?;
/// assert!(dir.join("saved_model.pb").is_file());
/// assert!(dir.join("variables/variables.index").is_file());
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct SavedModelBuilder {
    export_dir: PathBuf,
    saved_model: SavedModel,
    variables_saved: bool,
}

impl SavedModelBuilder {
    /// A builder for `export_dir`, which must not exist or be empty: AlreadyExists otherwise,
    /// as TensorFlow refuses it. The directory is created.
    pub fn new(export_dir: impl AsRef<Path>) -> Result<SavedModelBuilder> {
        let dir = export_dir.as_ref().to_path_buf();
        if dir.exists() && std::fs::read_dir(&dir).map_or(true, |mut d| d.next().is_some()) {
            return Err(Error::already_exists(format!(
                "Export directory already exists, and isn't empty. Please choose a different export directory, or delete all the contents of the specified directory: {}",
                dir.display()
            )));
        }
        std::fs::create_dir_all(&dir).map_err(|e| {
            Error::from(e).with_prefix(&format!("Failed to create {}: ", dir.display()))
        })?;
        Ok(SavedModelBuilder {
            export_dir: dir,
            saved_model: SavedModel {
                saved_model_schema_version: k::SAVED_MODEL_SCHEMA_VERSION,
                meta_graphs: Vec::new(),
            },
            variables_saved: false,
        })
    }

    /// `builder.add_meta_graph_and_variables(sess, tags, ...)`: saves the session's variables
    /// to `variables/variables`, copies the assets into `assets/`, and adds the session
    /// graph's meta graph tagged `tags`. Only once per builder (InvalidArgument after).
    pub fn add_meta_graph_and_variables(
        &mut self,
        sess: &SessionHandle,
        tags: &[&str],
        args: MetaGraphArgs<'_>,
    ) -> Result<()> {
        if self.variables_saved {
            return Err(Error::invalid_argument(
                "Graph state including variables and assets has already been saved. Please invoke `add_meta_graph()` instead.",
            ));
        }
        let graph = sess.graph();
        let own;
        let saver = match args.saver {
            Some(s) => Some(s),
            None if global_variables(graph)?.is_empty() => None,
            None => {
                own = Saver::sharded(graph)?;
                Some(&own)
            }
        };
        let variables_dir = self.export_dir.join(k::VARIABLES_DIRECTORY);
        std::fs::create_dir_all(&variables_dir).map_err(|e| {
            Error::from(e).with_prefix(&format!("Failed to create {}: ", variables_dir.display()))
        })?;
        if let Some(s) = saver {
            let prefix = variables_dir.join(k::VARIABLES_FILENAME);
            s.save_with(
                sess,
                &prefix.to_string_lossy(),
                &SaveArgs::new().write_meta_graph(false).write_state(false),
            )?;
        }
        self.variables_saved = true;
        self.push_meta_graph(graph, tags, &args, saver, true)
    }

    /// `builder.add_meta_graph(tags, ...)`: adds another meta graph of `graph` (sharing the
    /// variables saved with the first), tagged `tags`. InvalidArgument before
    /// `add_meta_graph_and_variables`, as in TensorFlow.
    pub fn add_meta_graph(
        &mut self,
        graph: &Graph,
        tags: &[&str],
        args: MetaGraphArgs<'_>,
    ) -> Result<()> {
        if !self.variables_saved {
            return Err(Error::invalid_argument(
                "Graph state including variables and assets has not been saved yet. Please invoke `add_meta_graph_and_variables()` first.",
            ));
        }
        let own;
        let saver = match args.saver {
            Some(s) => Some(s),
            None if global_variables(graph)?.is_empty() => None,
            None => {
                own = Saver::sharded(graph)?;
                Some(&own)
            }
        };
        self.push_meta_graph(graph, tags, &args, saver, false)
    }

    fn push_meta_graph(
        &mut self,
        graph: &Graph,
        tags: &[&str],
        args: &MetaGraphArgs<'_>,
        saver: Option<&Saver>,
        copy_assets: bool,
    ) -> Result<()> {
        let wanted: Vec<String> = tags.iter().map(|t| t.to_string()).collect();
        for m in &self.saved_model.meta_graphs {
            let have = m.meta_info_def.as_ref().map(|i| &i.tags);
            if have.is_some_and(|t| t.len() == wanted.len() && wanted.iter().all(|w| t.contains(w)))
            {
                return Err(Error::already_exists(format!(
                    "A meta graph with tags {tags:?} is already in this SavedModel"
                )));
            }
        }
        for (key, sig) in &args.signatures {
            if key == k::INIT_OP_SIGNATURE_KEY {
                return Err(Error::invalid_argument(format!(
                    "Signature key {key} is reserved for the init op"
                )));
            }
            for (name, info) in sig.inputs.iter().chain(&sig.outputs) {
                if info.encoding.is_none() {
                    return Err(Error::invalid_argument(format!(
                        "Signature {key}: TensorInfo of {name} names no tensor"
                    )));
                }
            }
        }
        let assets = self.assets(&args.assets, copy_assets)?;
        let mut exporter = ExportMetaGraph::new(graph);
        if let Some(s) = saver {
            exporter = exporter.saver(s);
        }
        let mut meta: MetaGraphDef = exporter.build()?;
        if let Some(info) = meta.meta_info_def.as_mut() {
            info.tags = wanted;
        }
        meta.signature_def = args.signatures.clone();
        if let Some(op) = &args.main_op {
            meta.collection_def.insert(
                k::MAIN_OP_KEY.to_string(),
                CollectionDef {
                    kind: Some(collection_def::Kind::NodeList(collection_def::NodeList {
                        value: vec![op.name()],
                    })),
                },
            );
        }
        if !assets.is_empty() {
            meta.collection_def.insert(
                k::ASSETS_KEY.to_string(),
                CollectionDef {
                    kind: Some(collection_def::Kind::AnyList(collection_def::AnyList {
                        value: assets
                            .iter()
                            .map(|a| Any {
                                type_url: "type.googleapis.com/tensorflow.AssetFileDef".into(),
                                value: a.encode_to_vec().into(),
                            })
                            .collect(),
                    })),
                },
            );
        }
        self.saved_model.meta_graphs.push(meta);
        Ok(())
    }

    /// The `AssetFileDef`s of asset tensors (string constants naming files), the files copied
    /// into `assets/` when `copy`.
    fn assets(&self, tensors: &[Output], copy: bool) -> Result<Vec<AssetFileDef>> {
        let mut out = Vec::with_capacity(tensors.len());
        for t in tensors {
            let node = t.op().node();
            let path = node
                .const_value()
                .and_then(|v| v.to_scalar::<Bytes>().ok())
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .ok_or_else(|| {
                    Error::invalid_argument(format!(
                        "Asset tensor {} must be a string constant naming a file",
                        t.name()
                    ))
                })?;
            let filename = Path::new(&path)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .ok_or_else(|| {
                    Error::invalid_argument(format!("Asset path {path} names no file"))
                })?;
            if copy {
                let dir = self.export_dir.join(k::ASSETS_DIRECTORY);
                std::fs::create_dir_all(&dir).map_err(|e| {
                    Error::from(e).with_prefix(&format!("Failed to create {}: ", dir.display()))
                })?;
                let dest = dir.join(&filename);
                if !dest.exists() {
                    std::fs::copy(&path, &dest).map_err(|e| {
                        Error::from(e).with_prefix(&format!("Failed to copy asset {path}: "))
                    })?;
                }
            }
            out.push(AssetFileDef {
                tensor_info: Some(build_tensor_info(t)),
                filename,
            });
        }
        Ok(out)
    }

    /// `builder.save()`: writes `saved_model.pb` (the binary format) and returns its path.
    pub fn save(&self) -> Result<PathBuf> {
        if self.saved_model.meta_graphs.is_empty() {
            return Err(Error::invalid_argument(
                "Nothing to save: add a meta graph with add_meta_graph_and_variables first",
            ));
        }
        let path = self.export_dir.join(k::SAVED_MODEL_FILENAME_PB);
        let tmp = self
            .export_dir
            .join(format!(".saved_model.pb.tmp{}", std::process::id()));
        let fail = |e: std::io::Error| {
            Error::from(e).with_prefix(&format!("Failed to write {}: ", path.display()))
        };
        std::fs::write(&tmp, self.saved_model.encode_to_vec()).map_err(fail)?;
        std::fs::rename(&tmp, &path).map_err(fail)?;
        Ok(path)
    }
}

/// `tf.compat.v1.saved_model.simple_save(session, export_dir, inputs, outputs,
/// legacy_init_op)`: a SavedModel tagged `serve` whose `serving_default` signature predicts
/// `outputs` from `inputs`.
pub fn simple_save(
    sess: &SessionHandle,
    export_dir: impl AsRef<Path>,
    inputs: &[(&str, Output)],
    outputs: &[(&str, Output)],
    legacy_init_op: Option<&Operation>,
) -> Result<PathBuf> {
    let mut builder = SavedModelBuilder::new(export_dir)?;
    let mut args = MetaGraphArgs::new().signature(
        signature_constants::DEFAULT_SERVING_SIGNATURE_DEF_KEY,
        predict_signature_def(inputs, outputs)?,
    );
    if let Some(op) = legacy_init_op {
        args = args.main_op(op);
    }
    builder.add_meta_graph_and_variables(sess, &[tag_constants::SERVING], args)?;
    builder.save()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_non_empty_export_directory_is_refused() {
        let dir = std::env::temp_dir().join(format!("weir-sm-exists-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("x"), b"").unwrap();
        let e = SavedModelBuilder::new(&dir).err().unwrap();
        assert!(
            e.to_string().contains("Export directory already exists"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
