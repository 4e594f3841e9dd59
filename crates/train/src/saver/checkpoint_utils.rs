//! `tf.train`'s checkpoint utilities: `load_checkpoint` (a `CheckpointReader`),
//! `list_variables`, `load_variable` and `init_from_checkpoint`, which makes variables start
//! from a checkpoint's values (the fine-tuning pattern: a new model whose lower layers come
//! from a trained one).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use weir_graph::{DType, Error, Graph, Output, Result, Tensor};
use weir_ops::state::{collection_variables, Variable};
use weir_ops::training::{list_checkpoint, read_checkpoint};

use super::latest_checkpoint;

/// The collection `get_variable` keeps its variables in (`variable_scope.rs`).
const STORE_KEY: &str = "__variable_store";

/// The checkpoint prefix `ckpt_dir_or_file` names: a checkpoint, or a directory's newest one
/// (by its `checkpoint` state file). InvalidArgument (TensorFlow's ValueError) for a directory
/// without one.
fn checkpoint_filename(ckpt_dir_or_file: &Path) -> Result<String> {
    if ckpt_dir_or_file.is_dir() {
        return latest_checkpoint(ckpt_dir_or_file)?.ok_or_else(|| {
            Error::invalid_argument(format!(
                "Couldn't find 'checkpoint' file or checkpoints in given directory {}",
                ckpt_dir_or_file.display()
            ))
        });
    }
    Ok(ckpt_dir_or_file.to_string_lossy().into_owned())
}

/// `tf.train.load_checkpoint(ckpt_dir_or_file)`'s reader (`CheckpointReader`): the names,
/// dtypes and shapes of a checkpoint's tensors, and their values on demand.
#[derive(Clone, Debug)]
pub struct CheckpointReader {
    prefix: String,
    tensors: BTreeMap<String, (DType, Vec<usize>)>,
}

impl CheckpointReader {
    /// The checkpoint prefix read.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// `reader.get_variable_to_shape_map()`.
    pub fn get_variable_to_shape_map(&self) -> BTreeMap<String, Vec<usize>> {
        self.tensors
            .iter()
            .map(|(k, (_, s))| (k.clone(), s.clone()))
            .collect()
    }

    /// `reader.get_variable_to_dtype_map()`.
    pub fn get_variable_to_dtype_map(&self) -> BTreeMap<String, DType> {
        self.tensors
            .iter()
            .map(|(k, (d, _))| (k.clone(), *d))
            .collect()
    }

    /// `reader.has_tensor(name)`.
    pub fn has_tensor(&self, name: &str) -> bool {
        self.tensors.contains_key(name)
    }

    /// `reader.get_tensor(name)`: NotFound (TensorFlow's message) for a name the checkpoint
    /// does not have.
    pub fn get_tensor(&self, name: &str) -> Result<Tensor> {
        let (dtype, _) = self
            .tensors
            .get(name)
            .ok_or_else(|| Error::not_found(format!("Key {name} not found in checkpoint")))?;
        let mut t = read_checkpoint(&self.prefix, &[name.to_string()], &[*dtype])?;
        Ok(t.remove(0))
    }
}

/// `tf.train.load_checkpoint(ckpt_dir_or_file)`: a reader of the checkpoint, or of a
/// directory's newest one.
pub fn load_checkpoint(ckpt_dir_or_file: impl AsRef<Path>) -> Result<CheckpointReader> {
    let prefix = checkpoint_filename(ckpt_dir_or_file.as_ref())?;
    let tensors = list_checkpoint(&prefix)?
        .into_iter()
        .map(|(name, dtype, shape)| (name, (dtype, shape)))
        .collect();
    Ok(CheckpointReader { prefix, tensors })
}

/// `tf.train.list_variables(ckpt_dir_or_file)`: every (name, shape) of the checkpoint, sorted
/// by name.
pub fn list_variables(ckpt_dir_or_file: impl AsRef<Path>) -> Result<Vec<(String, Vec<usize>)>> {
    Ok(load_checkpoint(ckpt_dir_or_file)?
        .get_variable_to_shape_map()
        .into_iter()
        .collect())
}

/// `tf.train.load_variable(ckpt_dir_or_file, name)`: one tensor's value (a trailing `:0` in
/// `name` is ignored, as TensorFlow ignores it).
pub fn load_variable(ckpt_dir_or_file: impl AsRef<Path>, name: &str) -> Result<Tensor> {
    let name = name.strip_suffix(":0").unwrap_or(name);
    load_checkpoint(ckpt_dir_or_file)?.get_tensor(name)
}

/// A target of an assignment map: a variable or scope by name (`'new_scope/'`, `'scope/w'`),
/// or a variable.
enum Target {
    Name(String),
    Variable(Variable),
}

/// `tf.compat.v1.train.init_from_checkpoint(ckpt_dir_or_file, assignment_map)`: replaces the
/// initializers of the variables the map names with restores from the checkpoint, so that
/// `global_variables_initializer` starts them from its values.
///
/// Map entries, as in TensorFlow: `("scope/w", "new/w")` (a tensor to a `get_variable`
/// variable), `("scope/", "new_scope/")` (every variable of `new_scope` from the tensors of the
/// same names under `scope`), `("/", "/")` (every variable from the tensor of its name), or,
/// with [`InitFromCheckpoint::variable`], a tensor to a `Variable`. A missing tensor or a
/// shape that differs is InvalidArgument (TensorFlow's ValueError, with its words).
///
/// ```
/// use weir_graph::Graph;
/// use weir_ops::{array::constant, state::{global_variables_initializer, Variable}};
/// use weir_session::Session;
/// use weir_train::{GetVariable, Initializer, InitFromCheckpoint, Saver};
///
/// let dir = std::env::temp_dir().join(format!("weir-init-ckpt-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let g = Graph::new();
/// Variable::builder(constant(&g, [1.0f32, 2.0])?).name("old/w").build()?;
/// let sess = Session::new(&g)?;
/// sess.run_target(&global_variables_initializer(&g)?)?;
/// let path = Saver::new(&g)?.save(&sess, dir.join("m").to_str().unwrap(), None)?;
///
/// let g2 = Graph::new();
/// let w = GetVariable::new("new/w").shape(&[2]).initializer(Initializer::Zeros).build(&g2)?;
/// InitFromCheckpoint::new(&path).map("old/", "new/").apply(&g2)?;
/// let sess2 = Session::new(&g2)?;
/// sess2.run_target(&global_variables_initializer(&g2)?)?;
/// assert_eq!(sess2.eval(&w)?.to_vec::<f32>()?, vec![1.0, 2.0]);
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct InitFromCheckpoint {
    ckpt: PathBuf,
    map: Vec<(String, Target)>,
}

impl InitFromCheckpoint {
    /// From the checkpoint (or a directory's newest checkpoint) `ckpt_dir_or_file`.
    pub fn new(ckpt_dir_or_file: impl AsRef<Path>) -> InitFromCheckpoint {
        InitFromCheckpoint {
            ckpt: ckpt_dir_or_file.as_ref().to_path_buf(),
            map: Vec::new(),
        }
    }

    /// Maps the checkpoint's tensor or scope `in_checkpoint` to the `get_variable` variable or
    /// scope `current`.
    pub fn map(mut self, in_checkpoint: &str, current: &str) -> InitFromCheckpoint {
        self.map
            .push((in_checkpoint.to_string(), Target::Name(current.to_string())));
        self
    }

    /// Maps the checkpoint's tensor `in_checkpoint` to `var`.
    pub fn variable(mut self, in_checkpoint: &str, var: &Variable) -> InitFromCheckpoint {
        self.map
            .push((in_checkpoint.to_string(), Target::Variable(var.clone())));
        self
    }

    /// Replaces the initializers in `graph`; returns the (tensor name, variable) pairs set.
    pub fn apply(&self, graph: &Graph) -> Result<Vec<(String, Variable)>> {
        let prefix = checkpoint_filename(&self.ckpt)?;
        let reader = load_checkpoint(&self.ckpt)?;
        let shapes = reader.get_variable_to_shape_map();
        let shown = self.ckpt.display().to_string();
        let store: BTreeMap<String, Variable> = collection_variables(graph, STORE_KEY)?
            .into_iter()
            .map(|v| (v.name(), v))
            .collect();
        let mut entries: Vec<&(String, Target)> = self.map.iter().collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut pairs: Vec<(String, Variable)> = Vec::new();
        for (tensor, target) in entries {
            let var = match target {
                Target::Variable(v) => Some(v.clone()),
                Target::Name(n) => store.get(n).cloned(),
            };
            if let Some(var) = var {
                let Some(shape) = shapes.get(tensor) else {
                    return Err(Error::invalid_argument(format!(
                        "Tensor {tensor} is not found in {shown} checkpoint {shapes:?}"
                    )));
                };
                check_shape(&var, tensor, shape)?;
                pairs.push((tensor.clone(), var));
                continue;
            }
            // Not a variable: a scope of `get_variable` variables (a Variable target always
            // resolved above).
            let current = match target {
                Target::Name(n) => n.as_str(),
                Target::Variable(_) => continue,
            };
            let scopes = current.rfind('/').map_or("", |i| &current[..i]);
            if !tensor.ends_with('/') {
                return Err(Error::invalid_argument(format!(
                    "Assignment map with scope only name {scopes} should map to scope only {tensor}. Should be 'scope/': 'other_scope/'."
                )));
            }
            for (var_name, var) in &store {
                if !scopes.is_empty() && !var_name.starts_with(&format!("{scopes}/")) {
                    continue;
                }
                let mut full = var_name[scopes.len()..].to_string();
                if current != "/" {
                    full = full.get(1..).unwrap_or_default().to_string();
                }
                if tensor != "/" {
                    full = format!("{tensor}{full}");
                }
                let full = full.strip_suffix('/').unwrap_or(&full).to_string();
                let Some(shape) = shapes.get(&full) else {
                    return Err(Error::invalid_argument(format!(
                        "Tensor {full} ({} in {tensor}) is not found in {shown} checkpoint",
                        var_name.get(scopes.len() + 1..).unwrap_or(var_name)
                    )));
                };
                check_shape(var, &full, shape)?;
                pairs.push((full, var.clone()));
            }
        }
        let mut out = Vec::with_capacity(pairs.len());
        for (tensor, var) in pairs {
            out.push((
                tensor.clone(),
                set_checkpoint_initializer(&var, &prefix, &tensor)?,
            ));
        }
        Ok(out)
    }
}

fn check_shape(var: &Variable, tensor: &str, shape: &[usize]) -> Result<()> {
    if var
        .shape()
        .is_compatible_with(&weir_graph::Shape::known(shape))
    {
        return Ok(());
    }
    // Python's reprs, as TensorFlow's message shows them: a TensorShape as a tuple, the
    // reader's shape as a list.
    let tuple = match var.shape().dims() {
        None => "<unknown>".to_string(),
        Some(dims) => {
            let d: Vec<String> = dims
                .iter()
                .map(|d| d.map_or("None".to_string(), |n| n.to_string()))
                .collect();
            match d.len() {
                1 => format!("({},)", d[0]),
                _ => format!("({})", d.join(", ")),
            }
        }
    };
    Err(Error::invalid_argument(format!(
        "Shape of variable {}:0 ({tuple}) doesn't match with shape of tensor {tensor} ({shape:?}) from checkpoint reader.",
        var.name(),
    )))
}

/// TensorFlow's `_set_checkpoint_initializer`: a `RestoreV2` of `tensor` from `prefix` named
/// `checkpoint_initializer`, assigned to `var` as its new initializer.
fn set_checkpoint_initializer(var: &Variable, prefix: &str, tensor: &str) -> Result<Variable> {
    let g = var.graph();
    let file = weir_ops::array::constant(g, prefix)?;
    let names = weir_ops::array::constant(g, Tensor::from(vec![tensor]))?;
    let slices = weir_ops::array::constant(g, Tensor::from(vec![""]))?;
    let restored: Output = weir_ops::training::restore_v2(
        file,
        names,
        slices,
        &[var.dtype()],
        "checkpoint_initializer",
    )?
    .remove(0);
    let assign = var.assign(&restored)?;
    var.with_initializer(&assign.op(), &restored)
}

/// `tf.compat.v1.train.init_from_checkpoint(ckpt_dir_or_file, assignment_map)` with a map of
/// names: see [`InitFromCheckpoint`].
pub fn init_from_checkpoint(
    graph: &Graph,
    ckpt_dir_or_file: impl AsRef<Path>,
    assignment_map: &[(&str, &str)],
) -> Result<Vec<(String, Variable)>> {
    let mut init = InitFromCheckpoint::new(ckpt_dir_or_file);
    for (tensor, current) in assignment_map {
        init = init.map(tensor, current);
    }
    init.apply(graph)
}
