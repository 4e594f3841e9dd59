//! Checkpoints: `tf.train.Saver` and the helpers that find the newest checkpoint.
//!
//! A `Saver` adds TensorFlow's save and restore subgraph once (`save/Const` is the file name,
//! fed at each call; `save/SaveV2` writes the variables' values; `save/RestoreV2` reads them and
//! `save/Assign*`, grouped as `save/restore_all`, assigns them), so saving and restoring are
//! ordinary runs of the session. A checkpoint is TensorFlow's V2 format (see
//! `weir_ops::training::checkpoint`): `<prefix>.index` and `<prefix>.data-00000-of-00001`,
//! written atomically, with TensorFlow's `checkpoint` state file beside them, so TensorFlow
//! restores weir's checkpoints and weir restores TensorFlow's. As in TensorFlow, the variables
//! are saved in name order, and a checkpoint exists when its `.index` file does.

mod checkpoint_utils;
mod management;
mod state;
mod warm_start;

pub use checkpoint_utils::{
    init_from_checkpoint, list_variables, load_checkpoint, load_variable, CheckpointReader,
    InitFromCheckpoint,
};
pub use management::{
    checkpoint_exists, generate_checkpoint_state_proto, get_checkpoint_mtimes, remove_checkpoint,
    update_checkpoint_state,
};
pub use state::{get_checkpoint_state, latest_checkpoint, CheckpointState};
pub use warm_start::{warm_start, VarsToWarmStart, WarmStart};

use std::path::Path;

use parking_lot::Mutex;
use weir_graph::graph_def::meta_graph::{prepend_name_scope, SaverDef, SAVER_DEF_V2};
use weir_graph::{DType, Error, Graph, Operation, Output, Result, Tensor};
use weir_ops::state::{global_variables, Variable};
use weir_session::{RunArgs, SessionHandle};

/// `tf.train.Saver(var_list=None, max_to_keep=5)`: saves and restores variables by name.
///
/// The documented train/eval pattern: a training program builds its model, trains, and calls
/// `save`; an evaluation program builds the same model in its own graph and session, finds the
/// newest checkpoint with [`latest_checkpoint`], and calls `restore`:
///
/// ```
/// use weir_graph::{Graph, Tensor};
/// use weir_ops::{array::constant, state::{global_variables_initializer, Variable}};
/// use weir_session::Session;
/// use weir_train::{latest_checkpoint, Saver};
///
/// let dir = std::env::temp_dir().join(format!("weir-saver-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let model = |g: &Graph| Variable::builder(constant(g, [1.0f32, 2.0]).unwrap()).name("w").build();
///
/// let g = Graph::new();
/// let w = model(&g)?;
/// let saver = Saver::new(&g)?;
/// let sess = Session::new(&g)?;
/// sess.run_target(&global_variables_initializer(&g)?)?;
/// sess.run_target(&w.assign(constant(&g, [5.0f32, 6.0])?)?.op())?;
/// saver.save(&sess, dir.join("model.ckpt").to_str().unwrap(), Some(10))?;
///
/// let g2 = Graph::new();
/// let w2 = model(&g2)?;
/// let sess2 = Session::new(&g2)?;
/// let path = latest_checkpoint(&dir)?.unwrap();
/// Saver::new(&g2)?.restore(&sess2, &path)?;
/// assert_eq!(sess2.eval(&w2)?.to_vec::<f32>()?, vec![5.0, 6.0]);
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Debug)]
pub struct Saver {
    filename: Output,
    save: Output,
    restore: Operation,
    max_to_keep: usize,
    /// Whether the save subgraph writes shards and merges them (an imported sharded saver).
    sharded: bool,
    last: Mutex<Vec<String>>,
}

impl Saver {
    /// A saver of every global variable of `graph`.
    pub fn new(graph: &Graph) -> Result<Saver> {
        Saver::build(graph, &global_variables(graph)?)
    }

    /// A saver of `vars` (TensorFlow's `var_list`), each saved under its name.
    pub fn for_variables(vars: &[Variable]) -> Result<Saver> {
        let g = vars
            .first()
            .ok_or_else(|| Error::invalid_argument("No variables to save"))?
            .graph()
            .clone();
        Saver::build(&g, vars)
    }

    /// A saver of `vars` under the checkpoint names given (TensorFlow's `var_list` as a dict),
    /// as `ExponentialMovingAverage::variables_to_restore` gives them: restoring then loads
    /// each name's saved value into its variable.
    pub fn for_named_variables(vars: &[(String, Variable)]) -> Result<Saver> {
        let g = vars
            .first()
            .ok_or_else(|| Error::invalid_argument("No variables to save"))?
            .1
            .graph()
            .clone();
        let (names, vars): (Vec<String>, Vec<Variable>) = vars.iter().cloned().unzip();
        Saver::build_named(&g, names, &vars)
    }

    fn build(graph: &Graph, vars: &[Variable]) -> Result<Saver> {
        let names = vars.iter().map(Variable::name).collect();
        Saver::build_named(graph, names, vars)
    }

    /// `tf.train.Saver(sharded=True)` of every global variable: each save writes the shard of
    /// the variables to a temporary `<path>_temp/part-00000-of-00001` and merges it into the
    /// checkpoint (`ShardedFilename`, `MergeV2Checkpoints`), as TensorFlow's sharded savers do
    /// (`MonitoredTrainingSession`'s and `SavedModelBuilder`'s); the files written are the same
    /// as an unsharded save's. weir keeps every variable on one device, so there is one shard.
    pub fn sharded(graph: &Graph) -> Result<Saver> {
        let vars = global_variables(graph)?;
        let names = vars.iter().map(Variable::name).collect();
        Saver::build_with(graph, names, &vars, true)
    }

    fn build_named(graph: &Graph, names: Vec<String>, vars: &[Variable]) -> Result<Saver> {
        Saver::build_with(graph, names, vars, false)
    }

    fn build_with(
        graph: &Graph,
        names: Vec<String>,
        vars: &[Variable],
        sharded: bool,
    ) -> Result<Saver> {
        if vars.is_empty() {
            return Err(Error::invalid_argument("No variables to save"));
        }
        // TensorFlow's saver orders its saveables by name: the data file's order.
        let mut pairs: Vec<(String, Variable)> =
            names.into_iter().zip(vars.iter().cloned()).collect();
        pairs.sort_by(|a, b| a.0.cmp(&b.0));
        let (names, vars): (Vec<String>, Vec<Variable>) = pairs.into_iter().unzip();
        let vars = vars.as_slice();
        for (i, (v, n)) in vars.iter().zip(&names).enumerate() {
            if !v.graph().ptr_eq(graph) {
                return Err(Error::invalid_argument(format!(
                    "Variable {} is not an element of this graph.",
                    v.name()
                )));
            }
            if i > 0 && names[i - 1] == *n {
                return Err(Error::invalid_argument(format!(
                    "At least two variables have the same name: {n}"
                )));
            }
        }
        let _scope = graph.name_scope("save");
        let filename = weir_ops::array::constant_named(graph, "model", "Const")?;
        let empty = vec![String::new(); names.len()];
        weir_ops::register_all_ops();
        // A sharded save writes its shard under a temporary name first (TensorFlow's suffix
        // is `.part` for S3 paths, `_temp/part` elsewhere).
        let shard_file = if sharded {
            let is_s3 = graph
                .new_operation("StaticRegexFullMatch")
                .name("StaticRegexFullMatch")
                .input(&filename)
                .attr("pattern", "^s3://.*")
                .build()?
                .output(0)?;
            let part = weir_ops::array::constant_named(graph, ".part", "Const_1")?;
            let temp = weir_ops::array::constant_named(graph, "_temp/part", "Const_2")?;
            let suffix = weir_ops::math::select(&is_s3, &part, &temp)?;
            let joined = graph
                .new_operation("StringJoin")
                .name("StringJoin")
                .inputs([filename.clone(), suffix])
                .attr("N", 2i64)
                .attr("separator", "")
                .build()?
                .output(0)?;
            let num_shards = weir_ops::array::constant_named(graph, 1i32, "num_shards")?;
            let shard = {
                let _s = graph.name_scope("ShardedFilename");
                weir_ops::array::constant_named(graph, 0i32, "shard")?
            };
            graph
                .new_operation("ShardedFilename")
                .name("ShardedFilename")
                .input(joined)
                .input(shard)
                .input(num_shards)
                .build()?
                .output(0)?
        } else {
            filename.clone()
        };
        let save_op = {
            let _s = graph.name_scope("SaveV2");
            let tn = weir_ops::array::constant_named(
                graph,
                Tensor::from(names.clone()),
                "tensor_names",
            )?;
            let ss = weir_ops::array::constant_named(
                graph,
                Tensor::from(empty.clone()),
                "shape_and_slices",
            )?;
            let values: Vec<Output> = vars.iter().map(Variable::value).collect();
            drop(_s);
            weir_ops::training::save_v2(&shard_file, tn, ss, &values, "SaveV2")?
        };
        let written = graph
            .new_operation("Identity")
            .name("control_dependency")
            .input(&shard_file)
            .control_input(&save_op)
            .build()?;
        let save = if sharded {
            let prefixes = {
                let _s = graph.name_scope("MergeV2Checkpoints");
                graph
                    .new_operation("Pack")
                    .name("checkpoint_prefixes")
                    .inputs([shard_file.clone()])
                    .attr("N", 1i64)
                    .attr("axis", 0i64)
                    .control_input(&written)
                    .build()?
                    .output(0)?
            };
            let merge = graph
                .new_operation("MergeV2Checkpoints")
                .name("MergeV2Checkpoints")
                .input(prefixes)
                .input(&filename)
                .build()?;
            graph
                .new_operation("Identity")
                .name("Identity")
                .input(&filename)
                .control_input(&merge)
                .control_input(&written)
                .build()?
                .output(0)?
        } else {
            written.output(0)?
        };
        let restored = {
            let _s = graph.name_scope("RestoreV2");
            let tn = weir_ops::array::constant_named(graph, Tensor::from(names), "tensor_names")?;
            let ss =
                weir_ops::array::constant_named(graph, Tensor::from(empty), "shape_and_slices")?;
            drop(_s);
            let dtypes: Vec<DType> = vars.iter().map(Variable::dtype).collect();
            weir_ops::training::restore_v2(&filename, tn, ss, &dtypes, "RestoreV2")?
        };
        let mut assigns = Vec::with_capacity(vars.len());
        for (v, t) in vars.iter().zip(restored) {
            assigns.push(
                graph
                    .new_operation("Assign")
                    .name("Assign")
                    .input(v.handle())
                    .input(t)
                    .attr("validate_shape", true)
                    .build()?,
            );
        }
        let restore = if sharded {
            let shard = weir_ops::control_flow::group(graph, &assigns, Some("restore_shard"))?;
            weir_ops::control_flow::group(graph, &[shard], Some("restore_all"))?
        } else {
            weir_ops::control_flow::group(graph, &assigns, Some("restore_all"))?
        };
        Ok(Saver {
            filename,
            save,
            restore,
            max_to_keep: 5,
            sharded,
            last: Mutex::new(Vec::new()),
        })
    }

    /// How many of the checkpoints this saver wrote to keep (default 5); older ones are
    /// deleted as new ones are saved. 0 keeps every file.
    pub fn max_to_keep(mut self, n: usize) -> Saver {
        self.max_to_keep = n;
        self
    }

    /// The checkpoints this saver wrote and still keeps, oldest first.
    pub fn last_checkpoints(&self) -> Vec<String> {
        self.last.lock().clone()
    }

    /// `saver.recover_last_checkpoints(checkpoint_paths)`: takes over `paths` (oldest first,
    /// as a directory's `checkpoint` state lists them) as the checkpoints this saver keeps,
    /// leaving out those that no longer exist, so that a restarted training process goes on
    /// deleting the old ones beyond `max_to_keep`.
    pub fn recover_last_checkpoints(&self, paths: &[String]) {
        *self.last.lock() = paths
            .iter()
            .filter(|p| weir_ops::training::checkpoint_exists(p))
            .cloned()
            .collect();
    }

    /// `saver.save(sess, save_path, global_step)`: writes the variables to `save_path`, or to
    /// `save_path-<global_step>`, and the graph's meta graph beside them (`<path>.meta`, which
    /// [`import_meta_graph`](crate::import_meta_graph) reads), updates the directory's
    /// `checkpoint` state file, deletes the checkpoints beyond `max_to_keep`, and returns the
    /// path written. [`Saver::save_with`] takes TensorFlow's other arguments.
    pub fn save(
        &self,
        sess: &SessionHandle,
        save_path: &str,
        global_step: Option<i64>,
    ) -> Result<String> {
        let mut args = SaveArgs::new();
        if let Some(step) = global_step {
            args = args.global_step(step);
        }
        self.save_with(sess, save_path, &args)
    }

    /// `saver.save(sess, save_path, global_step, meta_graph_suffix, write_meta_graph,
    /// write_state)`: [`Saver::save`] with the arguments of `args`.
    pub fn save_with(
        &self,
        sess: &SessionHandle,
        save_path: &str,
        args: &SaveArgs,
    ) -> Result<String> {
        let global_step = args.global_step;
        let path = match global_step {
            Some(s) => format!("{save_path}-{s}"),
            None => save_path.to_string(),
        };
        let dir = Path::new(&path)
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        if !dir.is_dir() {
            return Err(Error::not_found(format!(
                "Parent directory of {save_path} doesn't exist, can't save."
            )));
        }
        sess.run(
            &RunArgs::new()
                .feed(&self.filename, Tensor::from(path.as_str()))
                .fetch(&self.save),
        )?;
        if args.write_meta_graph {
            let meta = format!("{path}.{}", args.meta_graph_suffix);
            crate::meta_graph::ExportMetaGraph::new(self.filename.graph())
                .saver(self)
                .write(&meta)?;
        }
        if !args.write_state {
            return Ok(path);
        }
        let kept = {
            let mut last = self.last.lock();
            last.retain(|p| p != &path);
            last.push(path.clone());
            let mut removed = Vec::new();
            while self.max_to_keep > 0 && last.len() > self.max_to_keep {
                removed.push(last.remove(0));
            }
            for old in removed {
                remove_checkpoint(&old)?;
            }
            if self.max_to_keep == 0 {
                vec![path.clone()]
            } else {
                last.clone()
            }
        };
        let state = CheckpointState {
            model_checkpoint_path: state::relative_to(&dir, &path),
            all_model_checkpoint_paths: kept.iter().map(|p| state::relative_to(&dir, p)).collect(),
            // TensorFlow 1's Saver records no timestamps either.
            ..Default::default()
        };
        state::write_state(&dir, &state)?;
        Ok(path)
    }

    /// `saver.as_saver_def()`: the names of the tensors and op this saver saves and restores
    /// through, as a meta graph records them.
    pub fn as_saver_def(&self) -> SaverDef {
        SaverDef {
            filename_tensor_name: self.filename.name(),
            save_tensor_name: self.save.name(),
            restore_op_name: self.restore.name(),
            max_to_keep: i32::try_from(self.max_to_keep).unwrap_or(i32::MAX),
            sharded: self.sharded,
            // TensorFlow's default, which keeps no extra checkpoints (weir keeps none either).
            keep_checkpoint_every_n_hours: 10000.0,
            version: SAVER_DEF_V2,
        }
    }

    /// `tf.train.Saver(saver_def=def, name=import_scope)`: a saver of the save and restore
    /// nodes `def` names, found in `graph` under `import_scope`, as `import_meta_graph` makes
    /// one (a sharded saver's subgraph saves each shard and merges them, as in TensorFlow).
    /// NotFound names a missing node; a V1 saver is InvalidArgument.
    pub fn from_saver_def(
        graph: &Graph,
        def: &SaverDef,
        import_scope: Option<&str>,
    ) -> Result<Saver> {
        if def.version != SAVER_DEF_V2 {
            return Err(Error::invalid_argument(format!(
                "The SaverDef's checkpoint format is version {}; weir reads and writes V2 (2)",
                def.version
            )));
        }
        let tensor = |n: &str| graph.tensor_by_name(&prepend_name_scope(n, import_scope));
        let filename = tensor(&def.filename_tensor_name)?;
        if filename.dtype() != DType::String {
            return Err(Error::invalid_argument(format!(
                "The SaverDef's filename tensor {} is {}, not a string",
                def.filename_tensor_name,
                filename.dtype()
            )));
        }
        let save = tensor(&def.save_tensor_name)?;
        let restore_name = prepend_name_scope(&def.restore_op_name, import_scope);
        let restore = graph.operation_by_name(&restore_name).ok_or_else(|| {
            Error::not_found(format!(
                "The SaverDef's restore op {restore_name} is not in the graph"
            ))
        })?;
        Ok(Saver {
            filename,
            save,
            restore,
            max_to_keep: usize::try_from(def.max_to_keep).unwrap_or(0),
            sharded: def.sharded,
            last: Mutex::new(Vec::new()),
        })
    }

    /// `saver.restore(sess, save_path)`: assigns every variable its value from the checkpoint;
    /// InvalidArgument (TensorFlow's ValueError) when no checkpoint `save_path` exists, NotFound
    /// for a missing data file or variable, InvalidArgument for a shape or dtype that does not
    /// match, DataLoss for a damaged file.
    pub fn restore(&self, sess: &SessionHandle, save_path: &str) -> Result<()> {
        if !weir_ops::training::checkpoint_exists(save_path) {
            return Err(Error::invalid_argument(format!(
                "The passed save_path is not a valid checkpoint: {save_path}"
            )));
        }
        sess.run(
            &RunArgs::new()
                .feed(&self.filename, Tensor::from(save_path))
                .target(&self.restore),
        )?;
        Ok(())
    }
}

/// The arguments of `saver.save` besides the session and path, with TensorFlow's defaults.
#[derive(Clone, Debug)]
pub struct SaveArgs {
    global_step: Option<i64>,
    meta_graph_suffix: String,
    write_meta_graph: bool,
    write_state: bool,
}

impl Default for SaveArgs {
    fn default() -> SaveArgs {
        SaveArgs::new()
    }
}

impl SaveArgs {
    /// No global step; the meta graph written as `<path>.meta`; the state file updated.
    pub fn new() -> SaveArgs {
        SaveArgs {
            global_step: None,
            meta_graph_suffix: "meta".to_string(),
            write_meta_graph: true,
            write_state: true,
        }
    }

    /// Appends `-<step>` to the path (`global_step=`).
    pub fn global_step(mut self, step: i64) -> SaveArgs {
        self.global_step = Some(step);
        self
    }

    /// The meta graph file's extension (`meta_graph_suffix=`, default `meta`).
    pub fn meta_graph_suffix(mut self, suffix: &str) -> SaveArgs {
        self.meta_graph_suffix = suffix.to_string();
        self
    }

    /// Whether to write the meta graph (`write_meta_graph=`, default true).
    pub fn write_meta_graph(mut self, write: bool) -> SaveArgs {
        self.write_meta_graph = write;
        self
    }

    /// Whether to update the `checkpoint` state file and delete old checkpoints
    /// (`write_state=`, default true).
    pub fn write_state(mut self, write: bool) -> SaveArgs {
        self.write_state = write;
        self
    }
}
