//! Builds a schedule's expression node by node the way TensorFlow's Python layer does, so the
//! graph (node names, constants, dtypes) and its float arithmetic match TensorFlow's.
//!
//! A Python number in TensorFlow's code is a [`Scalar`]: converted on its own it becomes an
//! int32 (int64 when large) or float32 constant; next to a tensor it takes that tensor's dtype.

use weir_graph::{scalar_of, DType, Error, Graph, Output, Result, Tensor};
use weir_ops::array::constant_named;
use weir_ops::random::Scalar;

use crate::optimizers::LearningRate;

/// An operand: a graph tensor or a Python number.
#[derive(Clone)]
pub(super) enum Arg {
    T(Output),
    Py(Scalar),
}

impl From<&Output> for Arg {
    fn from(t: &Output) -> Arg {
        Arg::T(t.clone())
    }
}

impl From<f64> for Arg {
    fn from(v: f64) -> Arg {
        Arg::Py(Scalar::Float(v))
    }
}

impl From<Scalar> for Arg {
    fn from(v: Scalar) -> Arg {
        Arg::Py(v)
    }
}

/// The value of a Python number as an f64.
pub(super) fn value(v: Scalar) -> f64 {
    match v {
        Scalar::Float(f) => f,
        Scalar::Int(i) => i as f64,
    }
}

/// `ops.convert_to_tensor(v)` without a dtype: int32 (int64 when it does not fit) or float32.
fn default_tensor(v: Scalar) -> Result<Tensor> {
    Ok(match v {
        Scalar::Int(i) => match i32::try_from(i) {
            Ok(i) => Tensor::from(i),
            Err(_) => Tensor::from(i),
        },
        Scalar::Float(f) => Tensor::from(f as f32),
    })
}

/// `ops.convert_to_tensor(v, dtype)`.
fn typed_tensor(v: Scalar, dtype: DType) -> Result<Tensor> {
    match (v, dtype) {
        (Scalar::Int(i), DType::I64) => Ok(Tensor::from(i)),
        _ => scalar_of(dtype, value(v)),
    }
}

/// The graph a schedule is built in, and the dtype of its initial learning rate.
pub(super) struct Expr {
    pub(super) g: Graph,
    pub(super) dt: DType,
}

impl Expr {
    /// `convert_to_tensor(learning_rate, name="initial_learning_rate")` in the current scope:
    /// a float32 constant for a number, the tensor itself otherwise (which must be a float).
    pub(super) fn initial_learning_rate(g: &Graph, lr: LearningRate) -> Result<(Expr, Output)> {
        let lr = match lr {
            LearningRate::Value(v) => {
                constant_named(g, Tensor::from(v as f32), "initial_learning_rate")?
            }
            LearningRate::Tensor(t) => t,
        };
        let dt = lr.dtype();
        if !matches!(dt, DType::F32 | DType::F64) {
            return Err(Error::invalid_argument(format!(
                "learning_rate must be a float32 or float64 tensor, got {}",
                dt.python_name()
            )));
        }
        Ok((Expr { g: g.clone(), dt }, lr))
    }

    /// `math_ops.cast(x, dtype)`: a number becomes the constant `Cast/x` (cast when its
    /// default dtype differs); a tensor of the dtype is returned as is, without a scope.
    pub(super) fn cast(&self, x: impl Into<Arg>) -> Result<Output> {
        let x = match x.into() {
            Arg::T(t) if t.dtype() == self.dt => return Ok(t),
            x => x,
        };
        let scope = self.g.name_scope("Cast");
        let x = match x {
            Arg::T(t) => t,
            Arg::Py(v) => {
                let c = constant_named(&self.g, default_tensor(v)?, "x")?;
                if c.dtype() == self.dt {
                    return Ok(c);
                }
                c
            }
        };
        self.g
            .new_operation("Cast")
            .name(scope.prefix())
            .input(x)
            .attr("DstT", self.dt)
            .build()?
            .output(0)
    }

    /// A Python number as a tensor of `dtype` named `name` in the current scope.
    pub(super) fn constant(&self, v: Scalar, dtype: DType, name: &str) -> Result<Output> {
        constant_named(&self.g, typed_tensor(v, dtype)?, name)
    }

    /// A binary op as TensorFlow's operators (`scope` = "sub", "mul", "truediv", ...) and
    /// generated ops (`scope` = the op type) build it: in the scope, a number operand becomes
    /// the constant `x` or `y` of the other operand's dtype, and the op takes the scope's name.
    pub(super) fn binary(
        &self,
        scope: &str,
        op: &str,
        x: impl Into<Arg>,
        y: impl Into<Arg>,
    ) -> Result<Output> {
        let s = self.g.name_scope(scope);
        let (x, y) = match (x.into(), y.into()) {
            (Arg::T(x), Arg::T(y)) => (x, y),
            (Arg::T(x), Arg::Py(y)) => {
                let y = constant_named(&self.g, typed_tensor(y, x.dtype())?, "y")?;
                (x, y)
            }
            (Arg::Py(x), Arg::T(y)) => {
                let x = constant_named(&self.g, typed_tensor(x, y.dtype())?, "x")?;
                (x, y)
            }
            (Arg::Py(_), Arg::Py(_)) => {
                return Err(Error::internal("binary op on two Python numbers"))
            }
        };
        if x.dtype() != y.dtype() {
            return Err(Error::invalid_argument(format!(
                "Input 'y' of '{op}' Op has type {} that does not match type {} of argument 'x'.",
                y.dtype().python_name(),
                x.dtype().python_name()
            )));
        }
        self.named(op, s.prefix(), &[x, y])
    }

    /// A node of `op` with exactly `name` (a scope prefix ending in '/') or, for a plain
    /// name, that name made unique in the current scope.
    pub(super) fn named(&self, op: &str, name: &str, inputs: &[Output]) -> Result<Output> {
        self.g
            .new_operation(op)
            .name(name)
            .inputs(inputs)
            .build()?
            .output(0)
    }

    /// A one-input op named after its type (`Floor`, `Cos`, `Ceil`, ...).
    pub(super) fn unary(&self, op: &str, x: &Output) -> Result<Output> {
        self.named(op, op, std::slice::from_ref(x))
    }

    /// The float32 constant `constant_op.constant(math.pi)` named `Const`, multiplied by
    /// `fraction` as `pi * fraction`; TensorFlow fails here for float64 schedules.
    pub(super) fn pi_times(&self, fraction: &Output) -> Result<Output> {
        if fraction.dtype() != DType::F32 {
            return Err(Error::invalid_argument(format!(
                "Input 'y' of 'Mul' Op has type {} that does not match type float32 of argument 'x'.",
                fraction.dtype().python_name()
            )));
        }
        let pi = constant_named(&self.g, Tensor::from(std::f32::consts::PI), "Const")?;
        self.binary("mul", "Mul", &pi, fraction)
    }
}
