//! `tf.case`: the action of the first true predicate, built as TensorFlow 1 builds it, as
//! nested [`cond`](super::cond)s with `Assert`s for the `exclusive` and no-default checks.

use std::collections::VecDeque;

use weir_graph::{DType, Error, Output, Result};

use super::cond::{Cond, CondOutputs};
use super::Assert;
use crate::array::{constant, stack};
use crate::math::{cast, less_equal, Reduce};

type Action<'a, R> = Box<dyn FnOnce() -> Result<R> + 'a>;

/// `tf.case(pred_fn_pairs, default, exclusive, name)`: the value of the action of the first
/// predicate that is true in a run, or of `default` when none is. Only that action runs.
///
/// Without a default, the last action is the default, guarded by an assertion that its
/// predicate is true ("Input error: None of conditions evaluated as True:"). With `exclusive`,
/// a run where more than one predicate is true fails with TensorFlow's assertion message.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::{constant, placeholder}, control_flow::Case, math::less};
/// let g = Graph::new();
/// let x = placeholder(&g, DType::I32, Shape::scalar())?;
/// let size = Case::new()
///     .when(&less(&x, &constant(&g, 5i32)?)?, || constant(&g, 1i32))
///     .when(&less(&x, &constant(&g, 10i32)?)?, || constant(&g, 2i32))
///     .default(|| constant(&g, 3i32))
///     .build()?;
/// assert_eq!(size.dtype(), DType::I32);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct Case<'a, R> {
    branches: Vec<(Output, Action<'a, R>)>,
    default: Option<Action<'a, R>>,
    exclusive: bool,
    name: String,
}

impl<'a, R: CondOutputs + 'a> Default for Case<'a, R> {
    fn default() -> Self {
        Case::new()
    }
}

impl<'a, R: CondOutputs + 'a> Case<'a, R> {
    /// A case with no branches yet, no default, not exclusive, named `case`.
    pub fn new() -> Case<'a, R> {
        Case {
            branches: Vec::new(),
            default: None,
            exclusive: false,
            name: "case".to_string(),
        }
    }

    /// Adds the pair `(pred, action)`; pairs are tried in the order added.
    pub fn when(mut self, pred: &Output, action: impl FnOnce() -> Result<R> + 'a) -> Self {
        self.branches.push((pred.clone(), Box::new(action)));
        self
    }

    /// The action when no predicate is true.
    pub fn default(mut self, action: impl FnOnce() -> Result<R> + 'a) -> Self {
        self.default = Some(Box::new(action));
        self
    }

    /// Whether at most one predicate may be true (checked in every run).
    pub fn exclusive(mut self, exclusive: bool) -> Self {
        self.exclusive = exclusive;
        self
    }

    /// The name scope of the case's ops.
    pub fn name(mut self, name: &str) -> Self {
        self.name = name.to_string();
        self
    }

    /// Builds the nested conditionals.
    pub fn build(self) -> Result<R> {
        let Case {
            mut branches,
            default,
            exclusive,
            name,
        } = self;
        let g = match branches.first() {
            Some((p, _)) => p.graph().clone(),
            None => {
                return Err(Error::invalid_argument(
                    "case needs at least one (predicate, action) pair",
                ))
            }
        };
        for (p, _) in &branches {
            if p.dtype() != DType::Bool || p.shape().rank().is_some_and(|r| r != 0) {
                return Err(Error::invalid_argument(format!(
                    "pred must be Tensor of type bool: {}",
                    p.name()
                )));
            }
        }
        let preds: Vec<Output> = branches.iter().map(|(p, _)| p.clone()).collect();
        let _scope = g.name_scope(&name);
        let default: Action<'a, R> = match default {
            Some(d) => d,
            None => {
                let (last, action) = branches
                    .pop()
                    .ok_or_else(|| Error::internal("case lost its last branch"))?;
                let others: Vec<Output> = branches.iter().map(|(p, _)| p.clone()).collect();
                let k = others.len();
                Box::new(move || {
                    let g = last.graph().clone();
                    let mut checks = Vec::new();
                    if !others.is_empty() {
                        checks.push(at_most_n_true(
                            &others,
                            0,
                            &format!("Implementation error: selected default action #{k} was called, but some of other predicates are True: "),
                        )?);
                    }
                    let msg = constant(&g, "Input error: None of conditions evaluated as True:")?;
                    let preds_c = stack(&preds, 0)?;
                    checks.push(Assert::new().build(&last, &[msg, preds_c])?);
                    let _deps = g.control_dependencies(&checks)?;
                    action()
                })
            }
        };
        let check = if exclusive && !branches.is_empty() {
            let all: Vec<Output> = branches.iter().map(|(p, _)| p.clone()).collect();
            Some(at_most_n_true(&all, 1, "Input error: exclusive=True")?)
        } else {
            None
        };
        let _deps = match &check {
            Some(c) => Some(g.control_dependencies(std::slice::from_ref(c))?),
            None => None,
        };
        chain(branches.into(), default)
    }
}

/// `cond(p0, a0, lambda: cond(p1, a1, ... default))`.
fn chain<'a, R: CondOutputs + 'a>(
    mut branches: VecDeque<(Output, Action<'a, R>)>,
    default: Action<'a, R>,
) -> Result<R> {
    match branches.pop_front() {
        None => default(),
        Some((pred, action)) => Cond::new().build(&pred, action, move || chain(branches, default)),
    }
}

/// TensorFlow's `_assert_at_most_n_true`: an `Assert` that at most `n` of `preds` are true,
/// whose message names them and shows their values.
fn at_most_n_true(preds: &[Output], n: i32, msg: &str) -> Result<weir_graph::Operation> {
    let g = preds[0].graph().clone();
    let stacked = stack(preds, 0)?;
    let count = Reduce::sum().build(cast(&stacked, DType::I32)?)?;
    let ok = less_equal(&count, &constant(&g, n)?)?;
    let names: Vec<String> = preds.iter().map(Output::name).collect();
    let text = constant(
        &g,
        format!(
            "{msg}: more than {n} conditions ({}) evaluated as True:",
            names.join(", ")
        )
        .as_str(),
    )?;
    Assert::new()
        .summarize(preds.len() as i64)
        .build(&ok, &[text, stack(preds, 0)?])
}
