//! `tf.get_variable` and `tf.variable_scope`: variables named by their scope, shared on
//! request, created with initializers.
//!
//! A graph keeps its variable scopes and the variables `get_variable` made in two private
//! collections (`__variable_scope_stack`, `__variable_store`), as TensorFlow keeps its
//! variable store in the `("__variable_store",)` collection.

use std::sync::Arc;

use parking_lot::Mutex;
use weir_graph::{graph_keys, DType, Error, Graph, NameScope, Result, Shape};
use weir_ops::init_ops::Initializer;
use weir_ops::state::{collection_variables, Variable};

use crate::regularizers::Regularizer;

const STORE_KEY: &str = "__variable_store";
const SCOPES_KEY: &str = "__variable_scope_stack";

/// Whether `get_variable` may return an existing variable: TensorFlow's `reuse` argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reuse {
    /// `reuse=True`: the variable must exist.
    Reuse,
    /// `reuse=tf.AUTO_REUSE`: return it if it exists, create it otherwise.
    AutoReuse,
}

#[derive(Clone, Debug)]
struct ScopeEntry {
    name: String,
    reuse: Option<Reuse>,
    initializer: Option<Initializer>,
}

#[derive(Default)]
struct ScopeStack(Mutex<Vec<ScopeEntry>>);

fn scope_stack(graph: &Graph) -> Arc<ScopeStack> {
    if let Some(s) = graph.get_collection_of::<ScopeStack>(SCOPES_KEY).pop() {
        return s;
    }
    let s = Arc::new(ScopeStack::default());
    graph.add_object_to_collection(SCOPES_KEY, s.clone());
    s
}

/// The innermost variable scope: (name, reuse, initializer).
fn current(graph: &Graph) -> ScopeEntry {
    scope_stack(graph)
        .0
        .lock()
        .last()
        .cloned()
        .unwrap_or(ScopeEntry {
            name: String::new(),
            reuse: None,
            initializer: None,
        })
}

/// The name of the current variable scope (`""` at top level), `tf.get_variable_scope().name`.
pub fn variable_scope_name(graph: &Graph) -> String {
    current(graph).name
}

/// The options of `tf.variable_scope(name, reuse=None, initializer=None)`; [`enter`] opens
/// the scope until the returned guard drops.
///
/// [`enter`]: VariableScope::enter
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_train::{get_variable, VariableScope};
/// let g = Graph::new();
/// {
///     let _s = VariableScope::new("layer1").enter(&g)?;
///     assert_eq!(get_variable(&g, "w", &[2, 3])?.name(), "layer1/w");
/// }
/// let _s = VariableScope::new("layer1").reuse(true).enter(&g)?;
/// assert_eq!(get_variable(&g, "w", &[2, 3])?.name(), "layer1/w"); // the same variable
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct VariableScope {
    name: String,
    reuse: Option<Reuse>,
    initializer: Option<Initializer>,
}

impl VariableScope {
    /// A scope named `name` that inherits its parent's reuse.
    pub fn new(name: &str) -> VariableScope {
        VariableScope {
            name: name.to_string(),
            reuse: None,
            initializer: None,
        }
    }

    /// `reuse=True` makes `get_variable` return existing variables only (inherited by inner
    /// scopes); `false` inherits the parent's setting, as TensorFlow's `reuse=False` does.
    pub fn reuse(mut self, reuse: bool) -> VariableScope {
        self.reuse = reuse.then_some(Reuse::Reuse);
        self
    }

    /// `reuse=tf.AUTO_REUSE`: return a variable if it exists, create it otherwise.
    pub fn auto_reuse(mut self) -> VariableScope {
        self.reuse = Some(Reuse::AutoReuse);
        self
    }

    /// The default initializer of variables created in the scope.
    pub fn initializer(mut self, init: Initializer) -> VariableScope {
        self.initializer = Some(init);
        self
    }

    /// Opens the scope: variables are named `outer/name/var`, and a name scope of the same
    /// name (made unique, like TensorFlow's) holds the ops built meanwhile.
    pub fn enter(self, graph: &Graph) -> Result<VariableScopeGuard> {
        if self.name.is_empty() {
            return Err(Error::invalid_argument(
                "A variable scope needs a name (or a default name)",
            ));
        }
        let parent = current(graph);
        let entry = ScopeEntry {
            name: if parent.name.is_empty() {
                self.name.clone()
            } else {
                format!("{}/{}", parent.name, self.name)
            },
            reuse: self.reuse.or(parent.reuse),
            initializer: self.initializer.or(parent.initializer),
        };
        let stack = scope_stack(graph);
        stack.0.lock().push(entry);
        let name_scope = graph.name_scope(&self.name);
        Ok(VariableScopeGuard {
            stack,
            _name_scope: name_scope,
        })
    }
}

/// `with tf.variable_scope(name):` as a guard: the scope is open until it drops.
pub fn variable_scope(graph: &Graph, name: &str) -> Result<VariableScopeGuard> {
    VariableScope::new(name).enter(graph)
}

/// Keeps a variable scope (and its name scope) open; see [`VariableScope::enter`].
#[must_use = "the scope ends when this guard is dropped"]
pub struct VariableScopeGuard {
    stack: Arc<ScopeStack>,
    _name_scope: NameScope,
}

impl Drop for VariableScopeGuard {
    fn drop(&mut self) {
        self.stack.0.lock().pop();
    }
}

/// The options of `tf.get_variable(name, shape, dtype=tf.float32, initializer=None,
/// regularizer=None, trainable=True, collections=None)`.
#[derive(Clone, Debug)]
pub struct GetVariable {
    name: String,
    shape: Option<Vec<usize>>,
    dtype: DType,
    initializer: Option<Initializer>,
    trainable: bool,
    collections: Option<Vec<String>>,
    regularizer: Option<Regularizer>,
}

impl GetVariable {
    /// A float32 trainable variable `name` in the current variable scope.
    pub fn new(name: &str) -> GetVariable {
        GetVariable {
            name: name.to_string(),
            shape: None,
            dtype: DType::F32,
            initializer: None,
            trainable: true,
            collections: None,
            regularizer: None,
        }
    }

    /// The shape (required to create a variable; checked when sharing one).
    pub fn shape(mut self, shape: &[usize]) -> GetVariable {
        self.shape = Some(shape.to_vec());
        self
    }

    /// The dtype (default float32).
    pub fn dtype(mut self, dtype: DType) -> GetVariable {
        self.dtype = dtype;
        self
    }

    /// The initializer; by default the scope's, else glorot_uniform for floats and zeros for
    /// integers and bools.
    pub fn initializer(mut self, init: Initializer) -> GetVariable {
        self.initializer = Some(init);
        self
    }

    /// Whether the variable joins `TRAINABLE_VARIABLES` (default true).
    pub fn trainable(mut self, trainable: bool) -> GetVariable {
        self.trainable = trainable;
        self
    }

    /// `regularizer=`: when the variable is created (not when it is shared), its penalty is
    /// built in the name scope `<variable name>/Regularizer/` and added to the
    /// `REGULARIZATION_LOSSES` collection, as TensorFlow's `get_variable` does.
    ///
    /// ```
    /// # use weir_graph::Graph;
    /// use weir_train::{l2_regularizer, losses::get_regularization_losses, GetVariable};
    /// let g = Graph::new();
    /// GetVariable::new("w").shape(&[3]).regularizer(l2_regularizer(0.1)?).build(&g)?;
    /// let losses = get_regularization_losses(&g, None);
    /// assert_eq!(losses[0].name(), "w/Regularizer/l2_regularizer:0");
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn regularizer(mut self, regularizer: Regularizer) -> GetVariable {
        self.regularizer = Some(regularizer);
        self
    }

    /// The collections to join instead of `[GLOBAL_VARIABLES]`.
    pub fn collections(mut self, keys: &[&str]) -> GetVariable {
        self.collections = Some(keys.iter().map(|k| k.to_string()).collect());
        self
    }

    /// Returns the existing variable `scope/name` when the scope reuses, or creates it, with
    /// TensorFlow's errors (as InvalidArgument) when sharing is not allowed or does not fit.
    pub fn build(self, graph: &Graph) -> Result<Variable> {
        let scope = current(graph);
        let full = if scope.name.is_empty() {
            self.name.clone()
        } else {
            format!("{}/{}", scope.name, self.name)
        };
        let existing = collection_variables(graph, STORE_KEY)?
            .into_iter()
            .find(|v| v.name() == full);
        if let Some(v) = existing {
            if scope.reuse.is_none() {
                return Err(Error::invalid_argument(format!(
                    "Variable {full} already exists, disallowed. Did you mean to set reuse=True or reuse=tf.AUTO_REUSE in VarScope?"
                )));
            }
            if let Some(shape) = &self.shape {
                if !Shape::known(shape).is_compatible_with(&v.shape()) {
                    return Err(Error::invalid_argument(format!(
                        "Trying to share variable {full}, but specified shape {} and found shape {}.",
                        py_shape(&Shape::known(shape)),
                        py_shape(&v.shape())
                    )));
                }
            }
            if self.dtype != v.dtype() {
                return Err(Error::invalid_argument(format!(
                    "Trying to share variable {full}, but specified dtype {} and found dtype {}.",
                    py_dtype(self.dtype),
                    py_dtype(v.dtype())
                )));
            }
            return Ok(v);
        }
        if scope.reuse == Some(Reuse::Reuse) {
            return Err(Error::invalid_argument(format!(
                "Variable {full} does not exist, or was not created with tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in VarScope?"
            )));
        }
        let shape = self.shape.ok_or_else(|| {
            Error::invalid_argument(format!(
                "Shape of a new variable ({full}) must be fully defined, but instead was <unknown>."
            ))
        })?;
        let init = match self.initializer.or(scope.initializer) {
            Some(i) => i,
            None if self.dtype.is_floating() => Initializer::glorot_uniform(),
            None if self.dtype.is_integer() || self.dtype == DType::Bool => Initializer::Zeros,
            None => {
                return Err(Error::invalid_argument(format!(
                    "An initializer for variable {full} of {} is required",
                    py_dtype(self.dtype)
                )))
            }
        };
        let mut keys = self
            .collections
            .unwrap_or_else(|| vec![graph_keys::GLOBAL_VARIABLES.to_string()]);
        keys.push(STORE_KEY.to_string());
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        let v = create_variable(
            graph,
            &full,
            &shape,
            self.dtype,
            &init,
            self.trainable,
            &keys,
        )?;
        if let Some(reg) = &self.regularizer {
            let _lifted = graph.init_scope();
            let _scope = graph.name_scope(&format!("{}/Regularizer/", v.name()));
            if let Some(loss) = reg.apply(&v.value())? {
                graph.add_to_collection(graph_keys::REGULARIZATION_LOSSES, loss)?;
            }
        }
        Ok(v)
    }
}

/// `tf.get_variable(name, shape)`: a float32 trainable variable with the default initializer,
/// or the existing one when the scope reuses.
pub fn get_variable(graph: &Graph, name: &str, shape: &[usize]) -> Result<Variable> {
    GetVariable::new(name).shape(shape).build(graph)
}

/// Creates a variable named exactly `name` (made unique if taken), its initial value built by
/// `init` under `name/Initializer/`, outside any name scope, as TensorFlow creates the
/// variables of `get_variable` and the optimizers' slots.
pub(crate) fn create_variable(
    graph: &Graph,
    name: &str,
    shape: &[usize],
    dtype: DType,
    init: &Initializer,
    trainable: bool,
    collections: &[&str],
) -> Result<Variable> {
    // The initial value too is built as TensorFlow's initializer lambda runs: outside any
    // control dependency or cond branch in force.
    let _lifted = graph.init_scope();
    let _root = graph.name_scope("");
    let name = graph.unique_name(name);
    let initial = {
        let _s = graph.name_scope(&format!("{name}/Initializer/"));
        init.build(graph, shape, dtype)?
    };
    Variable::builder(initial)
        .name(&format!("{name}/"))
        .trainable(trainable)
        .collections(collections)
        .build()
}

/// A shape as Python prints a `TensorShape`: `(2, 3)`, `(3,)`, `()`.
fn py_shape(s: &Shape) -> String {
    match s.dims() {
        None => "<unknown>".to_string(),
        Some(d) => {
            let parts: Vec<String> = d
                .iter()
                .map(|x| x.map_or("None".to_string(), |v| v.to_string()))
                .collect();
            if parts.len() == 1 {
                format!("({},)", parts[0])
            } else {
                format!("({})", parts.join(", "))
            }
        }
    }
}

/// A dtype as Python names it (`float32`, `int64`).
fn py_dtype(d: DType) -> &'static str {
    match d {
        DType::F32 => "float32",
        DType::F64 => "float64",
        other => other.name(),
    }
}
