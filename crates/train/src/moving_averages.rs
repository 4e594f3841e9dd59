//! `tf.train.ExponentialMovingAverage`: shadow variables that trail variables (or tensors such
//! as a loss) by an exponential moving average, updated by one op per training step, and the
//! restore map that evaluates a model with its averaged weights.

use weir_graph::{graph_keys, DType, Error, Graph, Operation, Output, Result, Tensor};
use weir_ops::array::constant_named;
use weir_ops::math::{add, cast, div, minimum, mul, pow, sub};
use weir_ops::state::{global_variables, Variable};

/// `tf.train.ExponentialMovingAverage(decay, num_updates=None, zero_debias=False,
/// name="ExponentialMovingAverage")`.
///
/// [`apply`](Self::apply) creates for each variable a shadow variable `<var>/<name>`, starting
/// at the variable's initial value, and returns the op that moves every shadow towards its
/// variable: `shadow -= (1 - decay) * (shadow - value)`. With `num_updates`, the decay is
/// `min(decay, (1 + num_updates) / (10 + num_updates))`, so early averages move faster.
///
/// ```
/// use weir_graph::{Graph, Tensor};
/// use weir_ops::{array::constant, state::{global_variables_initializer, Variable}};
/// use weir_session::Session;
/// use weir_train::ExponentialMovingAverage;
///
/// let g = Graph::new();
/// let w = Variable::builder(constant(&g, 10.0f32)?).name("w").build()?;
/// let mut ema = ExponentialMovingAverage::new(0.9);
/// let update = ema.apply(&[w.clone()])?;
/// let shadow = ema.average(&w).unwrap();
/// assert_eq!(shadow.name(), "w/ExponentialMovingAverage");
/// let sess = Session::new(&g)?;
/// sess.run_target(&global_variables_initializer(&g)?)?;
/// sess.run_target(&w.assign(constant(&g, 0.0f32)?)?.op())?;
/// sess.run_target(&update)?;
/// assert_eq!(sess.eval(shadow.value())?.to_scalar::<f32>()?, 9.0);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct ExponentialMovingAverage {
    decay: f64,
    num_updates: Option<Output>,
    zero_debias: bool,
    name: String,
    /// (what is averaged: a variable's handle or a tensor, its shadow).
    averages: Vec<(Output, Variable)>,
}

impl ExponentialMovingAverage {
    /// Averages with `decay` (0.999 and the like; closer to 1 is slower).
    pub fn new(decay: f64) -> ExponentialMovingAverage {
        ExponentialMovingAverage {
            decay,
            num_updates: None,
            zero_debias: false,
            name: "ExponentialMovingAverage".to_string(),
            averages: Vec::new(),
        }
    }

    /// Caps the decay by `(1 + n) / (10 + n)` for the step count `n` (the global step, say).
    pub fn num_updates(mut self, n: impl Into<Output>) -> Self {
        self.num_updates = Some(n.into());
        self
    }

    /// Debiases the averages of tensors (not variables) for their zero start, as Adam does.
    pub fn zero_debias(mut self, on: bool) -> Self {
        self.zero_debias = on;
        self
    }

    /// Names the shadow variables' suffix and the update op (default
    /// `ExponentialMovingAverage`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = name.to_string();
        self
    }

    fn shadow_of(&self, key: &Output) -> Option<&Variable> {
        self.averages.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Adds shadows for `vars` (once each) and returns the op updating them all, named after
    /// the average; each variable joins `MOVING_AVERAGE_VARIABLES`. InvalidArgument for a
    /// variable that is not floating point, in TensorFlow's words.
    pub fn apply(&mut self, vars: &[Variable]) -> Result<Operation> {
        let g = graph_of(vars.first().map(Variable::graph))?;
        for v in vars {
            check_float(v.dtype(), &v.name())?;
            if self.shadow_of(v.handle()).is_none() {
                // Outside any control_dependencies guard, as TensorFlow's init_scope: the
                // shadow's initializer must not wait on a training step.
                let _init = g.init_scope();
                let shadow = Variable::builder(v.initial_value())
                    .name(&self.average_name(v))
                    .trainable(false)
                    .build()?;
                v.add_to_collection(graph_keys::MOVING_AVERAGE_VARIABLES);
                self.averages.push((v.handle().clone(), shadow));
            }
        }
        let items: Vec<(Output, Output, bool)> = vars
            .iter()
            .map(|v| (v.handle().clone(), v.value(), false))
            .collect();
        self.updates(&g, &items)
    }

    /// `apply` for tensors (a loss, say): each shadow starts at zero, with the tensor's fully
    /// known shape, and is debiased if [`zero_debias`](Self::zero_debias) is on.
    pub fn apply_tensors(&mut self, tensors: &[Output]) -> Result<Operation> {
        let g = graph_of(tensors.first().map(Output::graph))?;
        for t in tensors {
            check_float(t.dtype(), &t.name())?;
            if self.shadow_of(t).is_none() {
                let _init = g.init_scope();
                let dims = t.shape().to_known().ok_or_else(|| {
                    Error::invalid_argument(format!(
                        "The shape of {} must be fully known to average it: {}",
                        t.name(),
                        t.shape()
                    ))
                })?;
                let zeros = zeros(&g, t.dtype(), &dims, "zeros")?;
                let shadow = Variable::builder(zeros)
                    .name(&format!("{}/{}", t.op().name(), self.name))
                    .trainable(false)
                    .build()?;
                self.averages.push((t.clone(), shadow));
            }
        }
        let items: Vec<(Output, Output, bool)> = tensors
            .iter()
            .map(|t| (t.clone(), t.clone(), self.zero_debias))
            .collect();
        self.updates(&g, &items)
    }

    /// One update per (key, value, debias), grouped under the average's name.
    fn updates(&self, g: &Graph, items: &[(Output, Output, bool)]) -> Result<Operation> {
        let scope = g.name_scope(&self.name);
        let mut decay = constant_named(g, Tensor::scalar(self.decay as f32), "decay")?;
        if let Some(n) = &self.num_updates {
            let n = cast(n, DType::F32)?;
            let one = constant_named(g, Tensor::scalar(1.0f32), "x")?;
            let ten = constant_named(g, Tensor::scalar(10.0f32), "y")?;
            decay = minimum(&decay, div(add(&one, &n)?, add(&ten, &n)?)?)?;
        }
        let mut ops = Vec::with_capacity(items.len());
        for (key, value, debias) in items {
            let shadow = self
                .shadow_of(key)
                .ok_or_else(|| Error::internal("a moving average lost its shadow"))?;
            ops.push(assign_moving_average(g, shadow, value, &decay, *debias)?.op());
        }
        // The scope's own name, exactly (TensorFlow's `group(..., name=scope)`).
        let name = scope.prefix().to_string();
        let op = weir_ops::control_flow::group(g, &ops, Some(&name));
        drop(scope);
        op
    }

    /// The shadow of `var`, once [`apply`](Self::apply) made it.
    pub fn average(&self, var: &Variable) -> Option<Variable> {
        self.shadow_of(var.handle()).cloned()
    }

    /// The shadow of `tensor`, once [`apply_tensors`](Self::apply_tensors) made it.
    pub fn average_of(&self, tensor: &Output) -> Option<Variable> {
        self.shadow_of(tensor).cloned()
    }

    /// The name a shadow of `var` has, made or not: `<var>/<average name>`.
    pub fn average_name(&self, var: &Variable) -> String {
        format!("{}/{}", var.name(), self.name)
    }

    /// `variables_to_restore()`: the checkpoint name of each global variable mapped to the
    /// variable to load it into: the averages of the `MOVING_AVERAGE_VARIABLES` (or of
    /// `moving_avg_variables`) load into the variables themselves, every other global variable
    /// (shadows excepted) under its own name. Give it to `Saver::for_named_variables` to
    /// evaluate with averaged weights.
    pub fn variables_to_restore(
        &self,
        graph: &Graph,
        moving_avg_variables: Option<&[Variable]>,
    ) -> Result<Vec<(String, Variable)>> {
        let averaged: Vec<Variable> = match moving_avg_variables {
            Some(v) => v.to_vec(),
            None => {
                let mut v = weir_ops::state::collection_variables(
                    graph,
                    graph_keys::MOVING_AVERAGE_VARIABLES,
                )?;
                v.extend(weir_ops::state::trainable_variables(graph)?);
                v
            }
        };
        let mut out: Vec<(String, Variable)> = Vec::new();
        let seen = |name: &str, out: &Vec<(String, Variable)>| out.iter().any(|(n, _)| n == name);
        for v in &averaged {
            let name = self.average_name(v);
            if !seen(&name, &out) {
                out.push((name, v.clone()));
            }
        }
        let shadow_names: Vec<String> = averaged.iter().map(|v| self.average_name(v)).collect();
        for v in global_variables(graph)? {
            let n = v.name();
            let is_averaged = averaged.iter().any(|a| a.handle() == v.handle());
            if !is_averaged && !shadow_names.contains(&n) && !seen(&n, &out) {
                out.push((n, v));
            }
        }
        Ok(out)
    }
}

fn graph_of(g: Option<&Graph>) -> Result<Graph> {
    g.cloned()
        .ok_or_else(|| Error::invalid_argument("No variables or tensors to average"))
}

fn check_float(dtype: DType, name: &str) -> Result<()> {
    if matches!(dtype, DType::F32 | DType::F64) {
        Ok(())
    } else {
        Err(Error::invalid_argument(format!(
            "The variables must be half, float, or double: {name}"
        )))
    }
}

fn zeros(g: &Graph, dtype: DType, dims: &[usize], name: &str) -> Result<Output> {
    let n = dims.iter().product();
    let t = match dtype {
        DType::F64 => Tensor::from_vec(dims, vec![0.0f64; n])?,
        _ => Tensor::from_vec(dims, vec![0.0f32; n])?,
    };
    constant_named(g, t, name)
}

/// `assign_moving_average(variable, value, decay, zero_debias)`: `variable -= (variable -
/// value) * (1 - decay)`, or with `zero_debias` the same on a hidden `biased` accumulator whose
/// value divided by `1 - decay^steps` is assigned.
fn assign_moving_average(
    g: &Graph,
    shadow: &Variable,
    value: &Output,
    decay: &Output,
    zero_debias: bool,
) -> Result<Output> {
    let _scope = g.name_scope("AssignMovingAvg");
    let one = constant_named(g, Tensor::scalar(1.0f32), "sub/x")?;
    let mut rate = sub(&one, decay)?;
    if shadow.dtype() != DType::F32 {
        rate = cast(&rate, shadow.dtype())?;
    }
    if !zero_debias {
        return shadow.assign_sub(mul(sub(shadow.value(), value)?, &rate)?);
    }
    let dims = shadow
        .shape()
        .to_known()
        .ok_or_else(|| Error::internal("a tensor's shadow has an unknown shape"))?;
    let base = shadow.name();
    let init = g.init_scope();
    let biased = Variable::builder(zeros(g, shadow.dtype(), &dims, "zeros")?)
        .name(&format!("{base}/biased"))
        .trainable(false)
        .build()?;
    let step = Variable::builder(zeros(g, shadow.dtype(), &[], "zeros")?)
        .name(&format!("{base}/local_step"))
        .trainable(false)
        .build()?;
    drop(init);
    let new_biased = biased.assign_sub(mul(sub(biased.value(), value)?, &rate)?)?;
    let one_t = constant_named(g, weir_graph::scalar_of(shadow.dtype(), 1.0)?, "one")?;
    let new_step = step.assign_add(&one_t)?;
    let factor = sub(&one_t, pow(sub(&one_t, &rate)?, &new_step)?)?;
    shadow.assign(div(&new_biased, &factor)?)
}
