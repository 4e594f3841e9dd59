//! What every layer shares (TensorFlow's legacy `tf.layers.Layer`): its unique name, the
//! variable scope of its first call and the variables made there, the name scope later calls
//! re-enter, regularization penalties and update ops.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use parking_lot::Mutex;
use weir_graph::{graph_keys, DType, Error, Graph, NameScope, Operation, Output, Result};
use weir_ops::control_flow::{cond, CondOutputs};
use weir_ops::init_ops::Initializer;
use weir_ops::state::{global_variables, Variable};

use crate::regularizers::Regularizer;
use crate::variable_scope::{variable_scope_name, GetVariable, Reuse, VariableScope};

/// Whether a layer runs in training mode (`training=`): known when the graph is built, or a
/// scalar bool tensor (a placeholder) decided per run through `tf.cond`, as TensorFlow's
/// `smart_cond` does.
#[derive(Clone, Debug)]
pub enum Training {
    /// A Python bool: only the matching branch is built.
    Bool(bool),
    /// A scalar bool tensor: both branches are built and a conditional picks one per run.
    Tensor(Output),
}

impl From<bool> for Training {
    fn from(b: bool) -> Training {
        Training::Bool(b)
    }
}

impl From<Output> for Training {
    fn from(t: Output) -> Training {
        Training::Tensor(t)
    }
}

impl From<&Output> for Training {
    fn from(t: &Output) -> Training {
        Training::Tensor(t.clone())
    }
}

impl Training {
    /// The value when it is known while building.
    pub(crate) fn constant(&self) -> Option<bool> {
        match self {
            Training::Bool(b) => Some(*b),
            Training::Tensor(_) => None,
        }
    }

    /// TensorFlow's `smart_cond(training, true_fn, false_fn)`.
    pub(crate) fn select<R: CondOutputs>(
        &self,
        true_fn: impl FnOnce() -> Result<R>,
        false_fn: impl FnOnce() -> Result<R>,
    ) -> Result<R> {
        match self {
            Training::Bool(true) => true_fn(),
            Training::Bool(false) => false_fn(),
            Training::Tensor(p) => cond(p, true_fn, false_fn),
        }
    }
}

/// Two sizes (height, width): a kernel size, strides or a pool size, given as one number for
/// both (`3`) or as a pair (`[3, 2]`, `(3, 2)`), as TensorFlow's `normalize_tuple` accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pair(pub [usize; 2]);

impl From<usize> for Pair {
    fn from(v: usize) -> Pair {
        Pair([v, v])
    }
}

impl From<[usize; 2]> for Pair {
    fn from(v: [usize; 2]) -> Pair {
        Pair(v)
    }
}

impl From<(usize, usize)> for Pair {
    fn from(v: (usize, usize)) -> Pair {
        Pair([v.0, v.1])
    }
}

impl Pair {
    /// `(a, b)`, as Python prints a tuple.
    pub(crate) fn python(&self) -> String {
        format!("({}, {})", self.0[0], self.0[1])
    }
}

/// Per-graph bookkeeping: layer name counters (Keras' `unique_object_name`) and how often each
/// variable scope was opened by a layer (TensorFlow's `variable_scopes_count`).
#[derive(Default)]
struct Registry {
    names: Mutex<HashMap<String, usize>>,
    scopes: Mutex<HashMap<String, usize>>,
}

const REGISTRY_KEY: &str = "__weir_layers";

fn registry(g: &Graph) -> Arc<Registry> {
    if let Some(r) = g.get_collection_of::<Registry>(REGISTRY_KEY).pop() {
        return r;
    }
    let r = Arc::new(Registry::default());
    g.add_object_to_collection(REGISTRY_KEY, r.clone());
    r
}

/// The key under which scope counts are kept: TensorFlow resets the counts of a variable
/// scope's subscopes when the scope is exited, so counts belong to one opening of the
/// enclosing scope. An opening is told apart by its name scope (`model/` then `model_1/` when
/// `variable_scope("model")` is entered again): the current name scope cut after its last
/// component named like the scope. At top level the counts never reset.
fn opening_key(g: &Graph, parent: &str) -> String {
    let Some(last) = parent.rsplit('/').next().filter(|s| !s.is_empty()) else {
        return String::new();
    };
    let ns = g.current_scope();
    let parts: Vec<&str> = ns.split('/').filter(|p| !p.is_empty()).collect();
    let matches = |p: &str| {
        p == last
            || p.strip_prefix(last)
                .and_then(|r| r.strip_prefix('_'))
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    match parts.iter().rposition(|p| matches(p)) {
        Some(i) => format!("{parent}|{}/", parts[..=i].join("/")),
        None => format!("{parent}|"),
    }
}

/// How one variable scope of a layer is chosen on its first call.
fn open_scope(
    g: &Graph,
    base: &str,
    name: Option<&str>,
    reuse: Option<Reuse>,
) -> Result<OpenScope> {
    let parent = variable_scope_name(g);
    let key = opening_key(g, &parent);
    let full = |s: &str| {
        if parent.is_empty() {
            s.to_string()
        } else {
            format!("{parent}/{s}")
        }
    };
    let reg = registry(g);
    let chosen = match (name, reuse) {
        (Some(n), _) => n.to_string(),
        (None, Some(_)) => base.to_string(),
        (None, None) => {
            // TensorFlow's `_get_unique_variable_scope(base)`.
            let scopes = reg.scopes.lock();
            let count = |s: &str| scopes.get(&format!("{key}#{}", full(s))).copied();
            if count(base).unwrap_or(0) == 0 {
                base.to_string()
            } else {
                let mut i = 1;
                while count(&format!("{base}_{i}")).unwrap_or(0) > 0 {
                    i += 1;
                }
                format!("{base}_{i}")
            }
        }
    };
    *reg.scopes
        .lock()
        .entry(format!("{key}#{}", full(&chosen)))
        .or_default() += 1;
    let mut vs = VariableScope::new(&chosen);
    match reuse {
        Some(Reuse::Reuse) => vs = vs.reuse(true),
        Some(Reuse::AutoReuse) => vs = vs.auto_reuse(),
        None => {}
    }
    let wanted = name.unwrap_or(base);
    if chosen == wanted {
        // `variable_scope(name)` opens the name scope `name` (made unique), as weir's does.
        let guard = vs.enter(g)?;
        return Ok(OpenScope {
            scope: full(&chosen),
            name_scope: g.current_scope(),
            _ops: None,
            _guard: guard,
            _outer: None,
        });
    }
    // `variable_scope(None, default_name=base)` opens the name scope `base` (made unique) for a
    // variable scope `base_N`: the ops go in the former. weir's variable scope opens a name
    // scope of its own name, which is put inside the layer's where no op of it is named so.
    let name_scope = {
        let _n = g.name_scope(wanted);
        g.current_scope()
    };
    let outer = g.name_scope(&name_scope);
    let guard = vs.enter(g)?;
    let ops = g.name_scope(&name_scope);
    Ok(OpenScope {
        scope: full(&chosen),
        name_scope,
        _ops: Some(ops),
        _guard: guard,
        _outer: Some(outer),
    })
}

/// The scopes a layer's first call opens, closed in field order.
struct OpenScope {
    scope: String,
    name_scope: String,
    _ops: Option<NameScope>,
    _guard: crate::variable_scope::VariableScopeGuard,
    _outer: Option<NameScope>,
}

/// The variables of a built layer, by their names in its scope.
#[derive(Clone, Default)]
pub(crate) struct Vars(Vec<(String, Variable)>);

impl Vars {
    pub(crate) fn get(&self, name: &str) -> Option<&Variable> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// The value of `name`, which the layer made.
    pub(crate) fn value(&self, name: &str) -> Result<Output> {
        self.get(name)
            .map(Output::from)
            .ok_or_else(|| Error::internal(format!("the layer has no variable {name}")))
    }
}

/// Makes a layer's variables on its first call: TensorFlow's `Layer.add_weight`.
pub(crate) struct Weights<'a> {
    graph: &'a Graph,
    dtype: DType,
    trainable: bool,
    existing: HashSet<usize>,
    vars: Vars,
}

impl Weights<'_> {
    /// `add_weight(name, shape, initializer, regularizer, trainable)`: `get_variable` in the
    /// layer's scope (the scope's initializer, else glorot_uniform, when `init` is `None`);
    /// a new variable's penalty goes to `REGULARIZATION_LOSSES` from the name scope
    /// `<name>/Regularizer`.
    pub(crate) fn add(
        &mut self,
        name: &str,
        shape: &[usize],
        init: Option<&Initializer>,
        regularizer: Option<&Regularizer>,
        trainable: bool,
    ) -> Result<Variable> {
        let g = self.graph;
        let mut b = GetVariable::new(name)
            .shape(shape)
            .dtype(self.dtype)
            .trainable(trainable && self.trainable);
        if let Some(i) = init {
            b = b.initializer(i.clone());
        }
        let v = b.build(g)?;
        if let Some(reg) = regularizer.filter(|_| !self.existing.contains(&v.op().id())) {
            let _s = g.name_scope(&format!("{name}/Regularizer"));
            if let Some(loss) = reg.apply(&v.value())? {
                g.add_to_collection(graph_keys::REGULARIZATION_LOSSES, loss)?;
            }
        }
        self.vars.0.push((name.to_string(), v.clone()));
        Ok(v)
    }
}

#[derive(Clone)]
struct Built {
    name_scope: String,
    scope: String,
    vars: Vars,
}

#[derive(Default)]
struct State {
    layer_name: Option<String>,
    built: Option<Built>,
    updates: Vec<Operation>,
}

/// The state and options every layer has.
pub(crate) struct LayerCore {
    base: &'static str,
    pub(crate) name: Option<String>,
    pub(crate) reuse: Option<Reuse>,
    pub(crate) trainable: bool,
    state: Mutex<State>,
}

impl LayerCore {
    pub(crate) fn new(base: &'static str) -> LayerCore {
        LayerCore {
            base,
            name: None,
            reuse: None,
            trainable: true,
            state: Mutex::new(State::default()),
        }
    }

    /// The layer's name (`layer.name`): the given one, else `<base>_<n>` numbered per graph as
    /// TensorFlow 1's layers are (the first unnamed dense layer is `dense_1`). Fixed on first
    /// use.
    pub(crate) fn layer_name(&self, g: &Graph) -> String {
        let mut st = self.state.lock();
        if let Some(n) = &st.layer_name {
            return n.clone();
        }
        let name = match &self.name {
            Some(n) => n.clone(),
            None => {
                let reg = registry(g);
                let mut names = reg.names.lock();
                let n = names.entry(self.base.to_string()).or_default();
                *n += 1;
                format!("{}_{}", self.base, n)
            }
        };
        st.layer_name = Some(name.clone());
        name
    }

    /// The layer's name once it was used.
    pub(crate) fn assigned_name(&self) -> Option<String> {
        self.state.lock().layer_name.clone()
    }

    /// The full name of the layer's variable scope, once it was called.
    pub(crate) fn scope_name(&self) -> Option<String> {
        self.state.lock().built.as_ref().map(|b| b.scope.clone())
    }

    /// The variables, once it was called.
    pub(crate) fn variables(&self) -> Vec<Variable> {
        self.state
            .lock()
            .built
            .as_ref()
            .map(|b| b.vars.0.iter().map(|(_, v)| v.clone()).collect())
            .unwrap_or_default()
    }

    /// A variable by its name in the layer's scope (`kernel`), once it was called.
    pub(crate) fn variable(&self, name: &str) -> Option<Variable> {
        self.state
            .lock()
            .built
            .as_ref()
            .and_then(|b| b.vars.get(name).cloned())
    }

    /// The update ops of every call (`layer.updates`).
    pub(crate) fn updates(&self) -> Vec<Operation> {
        self.state.lock().updates.clone()
    }

    /// One call (`Layer.__call__`): in the layer's scope (opened and its variables made by
    /// `build` on the first call, its name scope re-entered after), `forward` computes the
    /// output and its update ops, which join `UPDATE_OPS`.
    pub(crate) fn call(
        &self,
        g: &Graph,
        dtype: DType,
        build: impl FnOnce(&mut Weights<'_>) -> Result<()>,
        forward: impl FnOnce(&Vars) -> Result<(Output, Vec<Operation>)>,
    ) -> Result<Output> {
        let built = self.state.lock().built.clone();
        let (_open, _ns, vars): (Option<OpenScope>, Option<NameScope>, Vars) = match built {
            Some(b) => (None, Some(g.name_scope(&b.name_scope)), b.vars),
            None => {
                let open = open_scope(g, self.base, self.name.as_deref(), self.reuse)?;
                let mut w = Weights {
                    graph: g,
                    dtype,
                    trainable: self.trainable,
                    existing: global_variables(g)?.iter().map(|v| v.op().id()).collect(),
                    vars: Vars::default(),
                };
                build(&mut w)?;
                self.state.lock().built = Some(Built {
                    name_scope: open.name_scope.clone(),
                    scope: open.scope.clone(),
                    vars: w.vars.clone(),
                });
                (Some(open), None, w.vars)
            }
        };
        let (out, updates) = forward(&vars)?;
        for u in &updates {
            g.add_to_collection(graph_keys::UPDATE_OPS, u.clone())?;
        }
        self.state.lock().updates.extend(updates);
        Ok(out)
    }
}

/// Keras' activity regularization: `regularizer(output) / batch_size` in the name scope
/// `ActivityRegularizer`, added to `REGULARIZATION_LOSSES`.
pub(crate) fn activity_regularization(out: &Output, reg: Option<&Regularizer>) -> Result<()> {
    let Some(reg) = reg else { return Ok(()) };
    let g = out.graph();
    let _s = g.name_scope("ActivityRegularizer");
    let Some(loss) = reg.apply(out)? else {
        return Ok(());
    };
    let shape = weir_ops::array::shape(out)?;
    let first =
        weir_ops::array::strided_slice_items(&shape, &[weir_ops::array::SliceItem::Index(0)])?;
    let batch = weir_ops::math::cast(first, loss.dtype())?;
    let mean = crate::regularizers::named_op(g, "RealDiv", &[loss, batch], "truediv")?;
    g.add_to_collection(graph_keys::REGULARIZATION_LOSSES, mean)
}

/// Keras' `InputSpec` rank checks, with its message.
pub(crate) fn check_rank(
    layer: &str,
    x: &Output,
    min: Option<usize>,
    exact: Option<usize>,
) -> Result<()> {
    let Some(r) = x.shape().rank() else {
        return Ok(());
    };
    let bad = match (exact, min) {
        (Some(n), _) if r != n => Some(format!("expected ndim={n}")),
        (_, Some(n)) if r < n => Some(format!("expected min_ndim={n}")),
        _ => None,
    };
    match bad {
        Some(what) => Err(Error::invalid_argument(format!(
            "Input 0 of layer \"{layer}\" is incompatible with the layer: {what}, found ndim={r}. \
             Full shape received: {}",
            x.shape().python_str()
        ))),
        None => Ok(()),
    }
}

/// The dtype of a layer's weights: its input's, which must be floating point.
pub(crate) fn float_dtype(kind: &str, x: &Output) -> Result<DType> {
    let d = x.dtype();
    if !d.is_floating() {
        return Err(Error::invalid_argument(format!(
            "A {kind} layer can only be built with a floating-point dtype. Received: dtype={}",
            d.python_name()
        )));
    }
    Ok(d)
}
