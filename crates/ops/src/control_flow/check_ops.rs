//! TensorFlow's `check_ops` in graph mode: `tf.debugging.assert_less`, `assert_less_equal`,
//! `assert_greater`, `assert_greater_equal` and `assert_non_negative`, each an `Assert` op on
//! the element-wise comparison (with broadcasting) of two tensors, carrying TensorFlow's
//! message data; and `with_dependencies`, which gates a tensor on such checks.

use weir_graph::{Error, Operation, Output, Result};

use super::Assert;
use crate::array::constant;
use crate::math::{self, Reduce};

/// The comparisons `check_ops` asserts.
#[derive(Clone, Copy)]
enum Cmp {
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
}

impl Cmp {
    fn scope(self) -> &'static str {
        match self {
            Cmp::Less => "assert_less",
            Cmp::LessEqual => "assert_less_equal",
            Cmp::Greater => "assert_greater",
            Cmp::GreaterEqual => "assert_greater_equal",
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            Cmp::Less => "<",
            Cmp::LessEqual => "<=",
            Cmp::Greater => ">",
            Cmp::GreaterEqual => ">=",
        }
    }

    fn build(self, x: &Output, y: &Output) -> Result<Output> {
        match self {
            Cmp::Less => math::less(x, y),
            Cmp::LessEqual => math::less_equal(x, y),
            Cmp::Greater => math::greater(x, y),
            Cmp::GreaterEqual => math::greater_equal(x, y),
        }
    }
}

/// `_binary_assert`: `Assert(reduce_all(x cmp y), data)` under the scope `assert_<cmp>`, with
/// TensorFlow's default data when `data` is `None`.
fn binary_assert(
    cmp: Cmp,
    x: &Output,
    y: &Output,
    message: Option<&str>,
    data: Option<Vec<Output>>,
) -> Result<Operation> {
    let g = crate::util::same_graph(&[x, y])?.clone();
    let _s = g.name_scope(cmp.scope());
    let condition = Reduce::all().build(cmp.build(x, y)?)?;
    let data = match data {
        Some(d) => d,
        None => {
            let mut d = Vec::new();
            if let Some(m) = message {
                d.push(constant(&g, m)?);
            }
            d.push(constant(
                &g,
                format!("Condition x {} y did not hold element-wise:", cmp.symbol()).as_str(),
            )?);
            d.push(constant(&g, format!("x ({}) = ", x.name()).as_str())?);
            d.push(x.clone());
            d.push(constant(&g, format!("y ({}) = ", y.name()).as_str())?);
            d.push(y.clone());
            d
        }
    };
    Assert::new().build(&condition, &data)
}

/// `tf.debugging.assert_less(x, y, message)`: an `Assert` op that fails the run with
/// InvalidArgument `assertion failed: [message] [Condition x < y did not hold element-wise:]
/// ...` unless every `x < y` (broadcasting). Run it, or make ops depend on it.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::array::constant;
/// # use weir_ops::control_flow::{assert_less, with_dependencies};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let x = constant(&g, [1i64, 5])?;
/// let check = assert_less(&x, &constant(&g, 3i64)?, Some("`x` out of bound"))?;
/// let guarded = with_dependencies(&[check], &x)?;
/// let e = Session::new(&g)?.eval(&guarded).unwrap_err();
/// assert!(e.message().contains("[`x` out of bound] [Condition x < y did not hold element-wise:]"));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn assert_less(x: &Output, y: &Output, message: Option<&str>) -> Result<Operation> {
    binary_assert(Cmp::Less, x, y, message, None)
}

/// `tf.debugging.assert_less_equal(x, y, message)`: an `Assert` that every `x <= y`.
pub fn assert_less_equal(x: &Output, y: &Output, message: Option<&str>) -> Result<Operation> {
    binary_assert(Cmp::LessEqual, x, y, message, None)
}

/// `tf.debugging.assert_greater(x, y, message)`: an `Assert` that every `x > y`.
pub fn assert_greater(x: &Output, y: &Output, message: Option<&str>) -> Result<Operation> {
    binary_assert(Cmp::Greater, x, y, message, None)
}

/// `tf.debugging.assert_greater_equal(x, y, message)`: an `Assert` that every `x >= y`.
pub fn assert_greater_equal(x: &Output, y: &Output, message: Option<&str>) -> Result<Operation> {
    binary_assert(Cmp::GreaterEqual, x, y, message, None)
}

/// `tf.debugging.assert_non_negative(x, message)`: an `Assert` that every `x >= 0`, under
/// the scope `assert_non_negative`, with TensorFlow's data
/// (`[message] [Condition x >= 0 did not hold element-wise:] [x (name) = ] [values]`).
pub fn assert_non_negative(x: &Output, message: Option<&str>) -> Result<Operation> {
    let g = x.graph().clone();
    let _s = g.name_scope("assert_non_negative");
    let zero = constant(&g, weir_graph::scalar_of(x.dtype(), 0.0)?)?;
    let mut data = Vec::new();
    if let Some(m) = message {
        data.push(constant(&g, m)?);
    }
    data.push(constant(&g, "Condition x >= 0 did not hold element-wise:")?);
    data.push(constant(&g, format!("x ({}) = ", x.name()).as_str())?);
    data.push(x.clone());
    binary_assert(Cmp::LessEqual, &zero, x, message, Some(data))
}

/// `control_flow_ops.with_dependencies(dependencies, output)`: `output` through an
/// `Identity` named `control_dependency` that runs only after `dependencies`.
pub fn with_dependencies(dependencies: &[Operation], output: &Output) -> Result<Output> {
    if dependencies
        .iter()
        .any(|d| !d.graph().ptr_eq(output.graph()))
    {
        return Err(Error::invalid_argument(
            "with_dependencies: the dependencies are from another graph",
        ));
    }
    let g = output.graph().clone();
    let mut b = crate::new_op(&g, "Identity")
        .name("control_dependency")
        .input(output);
    for d in dependencies {
        b = b.control_input(d);
    }
    b.build()?.output(0)
}
