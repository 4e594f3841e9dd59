//! `tf.compat.v1.train.warm_start`: initializes chosen variables of a new model from a
//! checkpoint of an older one (fine-tuning, a model that grew a head), through
//! `init_from_checkpoint`.

use std::path::{Path, PathBuf};

use regex::Regex;
use weir_graph::{Error, Graph, Result};
use weir_ops::state::{global_variables, trainable_variables, Variable};

use super::InitFromCheckpoint;

/// Which variables `warm_start` initializes (`vars_to_warm_start`).
#[derive(Clone)]
pub enum VarsToWarmStart {
    /// A regular expression matched, as Python's `re.match`, at the start of the names
    /// (`name:0`) of the trainable variables: TensorFlow's string form (default `".*"`).
    Regex(String),
    /// Regular expressions each matched against every global variable (trainable or not):
    /// TensorFlow's list-of-strings form.
    Regexes(Vec<String>),
    /// Exactly these variables: TensorFlow's list-of-variables form.
    Variables(Vec<Variable>),
}

/// `tf.compat.v1.train.warm_start(ckpt_to_initialize_from, vars_to_warm_start=".*",
/// var_name_to_prev_var_name)`: replaces the initializers of the chosen variables so that they
/// start from the checkpoint's values, each read under its own name or the previous name
/// mapped to it. Run it while building the graph, before the variables are initialized.
/// Vocabulary remapping (`var_name_to_vocab_info`) is not supported.
///
/// ```
/// use weir_graph::{Graph, Tensor};
/// use weir_ops::array::constant;
/// use weir_ops::state::{global_variables_initializer, Variable};
/// use weir_session::Session;
/// use weir_train::{Saver, WarmStart};
///
/// let dir = std::env::temp_dir().join(format!("weir-warm-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let prefix = dir.join("m").to_string_lossy().into_owned();
/// let g = Graph::new();
/// Variable::builder(constant(&g, Tensor::scalar(3.0f32))?).name("old_w").build()?;
/// let sess = Session::new(&g)?;
/// sess.run_target(&global_variables_initializer(&g)?)?;
/// Saver::new(&g)?.save(&sess, &prefix, None)?;
///
/// let g = Graph::new();
/// let w = Variable::builder(constant(&g, Tensor::scalar(0.0f32))?).name("w").build()?;
/// WarmStart::new(&prefix).var_name_to_prev_var_name("w", "old_w").apply(&g)?;
/// let sess = Session::new(&g)?;
/// sess.run_target(&global_variables_initializer(&g)?)?;
/// assert_eq!(sess.eval(w.value())?.to_scalar::<f32>()?, 3.0);
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone)]
pub struct WarmStart {
    ckpt: PathBuf,
    vars: VarsToWarmStart,
    prev_names: Vec<(String, String)>,
}

/// Python's `re.match(pattern, name)`: a match anchored at the start only.
fn re_match(pattern: &str) -> Result<Regex> {
    Regex::new(&format!("^(?:{pattern})")).map_err(|e| {
        Error::invalid_argument(format!(
            "Invalid vars_to_warm_start pattern {pattern:?}: {e}"
        ))
    })
}

impl WarmStart {
    /// Warm-starts every trainable variable from `ckpt_to_initialize_from` (a checkpoint
    /// prefix, or a directory's newest checkpoint).
    pub fn new(ckpt_to_initialize_from: impl AsRef<Path>) -> WarmStart {
        WarmStart {
            ckpt: ckpt_to_initialize_from.as_ref().to_path_buf(),
            vars: VarsToWarmStart::Regex(".*".to_string()),
            prev_names: Vec::new(),
        }
    }

    /// Chooses the variables (`vars_to_warm_start`).
    pub fn vars_to_warm_start(mut self, vars: VarsToWarmStart) -> WarmStart {
        self.vars = vars;
        self
    }

    /// Reads variable `current` from the checkpoint's tensor `previous`
    /// (`var_name_to_prev_var_name`).
    pub fn var_name_to_prev_var_name(mut self, current: &str, previous: &str) -> WarmStart {
        self.prev_names
            .push((current.to_string(), previous.to_string()));
        self
    }

    /// The chosen variables, each once, in TensorFlow's order.
    fn chosen(&self, graph: &Graph) -> Result<Vec<Variable>> {
        let matching = |vars: Vec<Variable>, pattern: &str| -> Result<Vec<Variable>> {
            let re = re_match(pattern)?;
            Ok(vars
                .into_iter()
                .filter(|v| re.is_match(&format!("{}:0", v.name())))
                .collect())
        };
        let listed = match &self.vars {
            VarsToWarmStart::Regex(p) => matching(trainable_variables(graph)?, p)?,
            VarsToWarmStart::Regexes(ps) => {
                let mut all = Vec::new();
                for p in ps {
                    all.extend(matching(global_variables(graph)?, p)?);
                }
                all
            }
            VarsToWarmStart::Variables(vs) => vs.clone(),
        };
        let mut seen = std::collections::HashSet::new();
        Ok(listed
            .into_iter()
            .filter(|v| seen.insert(v.name()))
            .collect())
    }

    /// Replaces the initializers in `graph`; returns the (checkpoint tensor, variable) pairs.
    /// A previous name given for a variable that is not warm-started is InvalidArgument, in
    /// TensorFlow's words, as are a tensor missing from the checkpoint and a shape mismatch.
    pub fn apply(&self, graph: &Graph) -> Result<Vec<(String, Variable)>> {
        let vars = self.chosen(graph)?;
        let mut unused: Vec<&str> = self.prev_names.iter().map(|(c, _)| c.as_str()).collect();
        let mut init = InitFromCheckpoint::new(&self.ckpt);
        for v in &vars {
            let name = v.name();
            let prev = match self.prev_names.iter().find(|(c, _)| *c == name) {
                Some((_, p)) => {
                    unused.retain(|u| *u != name);
                    p.clone()
                }
                None => name.clone(),
            };
            init = init.variable(&prev, v);
        }
        if !unused.is_empty() {
            let set: Vec<String> = unused.iter().map(|u| format!("'{u}'")).collect();
            let viable: Vec<String> = vars.iter().map(|v| format!("'{}'", v.name())).collect();
            return Err(Error::invalid_argument(format!(
                "You provided the following variables in var_name_to_prev_var_name that were \
                 not used: {{{}}}.  Perhaps you misspelled them?  Here is the list of viable \
                 variable names: dict_keys([{}])",
                set.join(", "),
                viable.join(", ")
            )));
        }
        init.apply(graph)
    }
}

/// [`WarmStart`] with a `vars_to_warm_start` regular expression over the trainable variables
/// (`tf.compat.v1.train.warm_start(ckpt, vars_to_warm_start)`).
pub fn warm_start(
    graph: &Graph,
    ckpt_to_initialize_from: impl AsRef<Path>,
    vars_to_warm_start: &str,
) -> Result<Vec<(String, Variable)>> {
    WarmStart::new(ckpt_to_initialize_from)
        .vars_to_warm_start(VarsToWarmStart::Regex(vars_to_warm_start.to_string()))
        .apply(graph)
}
