//! Comparisons and logic with broadcasting, all producing bool tensors: `Equal`, `NotEqual`,
//! `Less`, `LessEqual`, `Greater`, `GreaterEqual`, `LogicalAnd`, `LogicalOr`, `LogicalNot`.
//!
//! Floats compare as IEEE does: NaN is unequal to everything, itself included.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, Bytes, DType, Error, InferenceContext, Kernel, Node, OpContext,
    OpDef, Output, Result, Shape, Tensor, TensorType,
};

use super::bcast::{broadcast_shape_fn, broadcast_update, unary_update, Bcast};

fn build(op: &str, x: Output, y: Output) -> Result<Output> {
    let g = crate::util::same_graph(&[&x, &y])?.clone();
    crate::new_op(&g, op).input(x).input(y).build()?.output(0)
}

macro_rules! builders {
    ($($(#[$doc:meta])* $name:ident => $op:literal;)*) => {$(
        $(#[$doc])*
        pub fn $name(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
            build($op, x.into(), y.into())
        }
    )*};
}

builders! {
    /// `tf.equal(x, y)`: elementwise `x == y` with broadcasting, for every dtype.
    equal => "Equal";
    /// `tf.not_equal(x, y)`: elementwise `x != y` with broadcasting, for every dtype.
    not_equal => "NotEqual";
    /// `tf.less(x, y)`: elementwise `x < y` with broadcasting.
    less => "Less";
    /// `tf.less_equal(x, y)`: elementwise `x <= y` with broadcasting.
    less_equal => "LessEqual";
    /// `tf.greater(x, y)`: elementwise `x > y` with broadcasting.
    greater => "Greater";
    /// `tf.greater_equal(x, y)`: elementwise `x >= y` with broadcasting.
    greater_equal => "GreaterEqual";
    /// `tf.logical_and(x, y)` for bool tensors, with broadcasting.
    logical_and => "LogicalAnd";
    /// `tf.logical_or(x, y)` for bool tensors, with broadcasting.
    logical_or => "LogicalOr";
}

/// `tf.logical_not(x)` for a bool tensor.
pub fn logical_not(x: impl Into<Output>) -> Result<Output> {
    let x = x.into();
    crate::new_op(&x.graph().clone(), "LogicalNot")
        .input(x)
        .build()?
        .output(0)
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

fn compare<T: TensorType + PartialOrd>(
    op: CmpOp,
    bc: &Bcast,
    x: &Tensor,
    y: &Tensor,
) -> Result<Vec<bool>> {
    let (xs, ys) = (x.as_slice::<T>()?, y.as_slice::<T>()?);
    Ok(match op {
        CmpOp::Eq => bc.map(xs, ys, |a, b| a == b),
        CmpOp::Ne => bc.map(xs, ys, |a, b| a != b),
        CmpOp::Lt => bc.map(xs, ys, |a, b| a < b),
        CmpOp::Le => bc.map(xs, ys, |a, b| a <= b),
        CmpOp::Gt => bc.map(xs, ys, |a, b| a > b),
        CmpOp::Ge => bc.map(xs, ys, |a, b| a >= b),
        CmpOp::And | CmpOp::Or => return Err(Error::internal("logical op on the compare path")),
    })
}

/// `Equal` and `NotEqual` of a type without an order.
fn equal_only<T: TensorType + PartialEq>(
    op: CmpOp,
    bc: &Bcast,
    x: &Tensor,
    y: &Tensor,
) -> Result<Vec<bool>> {
    let (xs, ys) = (x.as_slice::<T>()?, y.as_slice::<T>()?);
    Ok(match op {
        CmpOp::Eq => bc.map(xs, ys, |a, b| a == b),
        CmpOp::Ne => bc.map(xs, ys, |a, b| a != b),
        _ => {
            return Err(Error::invalid_argument(format!(
                "{op:?} is not defined for {}",
                x.dtype()
            )))
        }
    })
}

struct CompareKernel {
    op: CmpOp,
    /// `Equal`/`NotEqual` with `incompatible_shape_error=false` answer a scalar instead of failing.
    shape_error: bool,
}

impl Kernel for CompareKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        if matches!(self.op, CmpOp::And | CmpOp::Or) {
            let (x, y) = (ctx.take_input(0), ctx.take_input(1));
            let out = if self.op == CmpOp::And {
                broadcast_update(x, y, |a: bool, b: bool| a & b)?
            } else {
                broadcast_update(x, y, |a: bool, b: bool| a | b)?
            };
            ctx.set_output(0, out);
            return Ok(());
        }
        let (x, y) = (ctx.input(0), ctx.input(1));
        let bc = match Bcast::new(x.shape(), y.shape()) {
            Ok(bc) => bc,
            Err(_) if !self.shape_error => {
                ctx.set_output(0, Tensor::from(self.op == CmpOp::Ne));
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        let dt = x.dtype();
        let out = match dt {
            // Complex numbers are unordered: only Equal and NotEqual take them.
            DType::C64 | DType::C128 => {
                weir_graph::match_complex_dtype!(dt, T => equal_only::<T>(self.op, &bc, x, y)?,
                _ => unreachable!("complex dtypes"))
            }
            DType::Bool => compare::<bool>(self.op, &bc, x, y)?,
            DType::String => compare::<Bytes>(self.op, &bc, x, y)?,
            _ => weir_graph::match_real_dtype!(dt, T => compare::<T>(self.op, &bc, x, y)?,
                _ => weir_graph::match_half_dtype!(dt, T => compare::<T>(self.op, &bc, x, y)?,
                _ => return Err(Error::invalid_argument(format!("Cannot compare {dt} tensors"))))),
        };
        ctx.set_output(0, Tensor::from_vec(&bc.out_shape, out)?);
        Ok(())
    }
}

struct NotKernel;

impl Kernel for NotKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0);
        ctx.set_output(0, unary_update(x, |v: bool| !v)?);
        Ok(())
    }
}

const ALL: &[DType] = DType::ALL_DATA;

const OPS: &[(&str, CmpOp, &[DType])] = &[
    ("Equal", CmpOp::Eq, ALL),
    ("NotEqual", CmpOp::Ne, ALL),
    ("Less", CmpOp::Lt, super::arith_ext::REAL_AND_HALF),
    ("LessEqual", CmpOp::Le, super::arith_ext::REAL_AND_HALF),
    ("Greater", CmpOp::Gt, super::arith_ext::REAL_AND_HALF),
    ("GreaterEqual", CmpOp::Ge, super::arith_ext::REAL_AND_HALF),
    ("LogicalAnd", CmpOp::And, &[]),
    ("LogicalOr", CmpOp::Or, &[]),
];

fn equality_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let strict: bool = ctx.attr("incompatible_shape_error")?;
    if strict {
        return broadcast_shape_fn(ctx);
    }
    // Without the error, a mismatch gives a scalar: the shape is only known when it broadcasts.
    let s = super::bcast::broadcast_static(ctx.input_shape(0), ctx.input_shape(1), ctx.op_type)
        .unwrap_or_else(|_| Shape::scalar());
    ctx.set_output(
        0,
        if s.is_fully_defined() {
            s
        } else {
            Shape::unknown()
        },
    );
    Ok(())
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let op = OPS
        .iter()
        .find(|(name, _, _)| *name == node.op_type())
        .map(|&(_, op, _)| op)
        .ok_or_else(|| Error::internal(format!("not a comparison: {}", node.op_type())))?;
    let shape_error = match node.attr_value("incompatible_shape_error") {
        Some(AttrValue::Bool(b)) => *b,
        _ => true,
    };
    Ok(Box::new(CompareKernel { op, shape_error }))
}

pub(super) fn register() {
    for &(name, op, types) in OPS {
        let def = if matches!(op, CmpOp::And | CmpOp::Or) {
            OpDef::new(name)
                .input("x", ArgType::Fixed(DType::Bool))
                .input("y", ArgType::Fixed(DType::Bool))
                .output("z", ArgType::Fixed(DType::Bool))
                .shape_fn(broadcast_shape_fn)
        } else {
            let def = OpDef::new(name)
                .input("x", ArgType::Attr("T"))
                .input("y", ArgType::Attr("T"))
                .output("z", ArgType::Fixed(DType::Bool))
                .type_attr("T", types);
            if matches!(op, CmpOp::Eq | CmpOp::Ne) {
                def.attr(
                    "incompatible_shape_error",
                    AttrKind::Bool,
                    Some(AttrValue::Bool(true)),
                )
                .shape_fn(equality_shape_fn)
            } else {
                def.shape_fn(broadcast_shape_fn)
            }
        };
        register_op(def);
        register_kernel(name, make);
    }
    register_op(
        OpDef::new("LogicalNot")
            .input("x", ArgType::Fixed(DType::Bool))
            .output("y", ArgType::Fixed(DType::Bool))
            .shape_fn(|ctx| {
                let s = ctx.input_shape(0).clone();
                ctx.set_output(0, s);
                Ok(())
            }),
    );
    register_kernel("LogicalNot", |_| Ok(Box::new(NotKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_broadcast_and_treat_nan_as_unordered() {
        let x = Tensor::from(vec![1.0f32, f32::NAN, 3.0]);
        let y = Tensor::from(2.0f32);
        let bc = Bcast::new(x.shape(), y.shape()).unwrap();
        assert_eq!(
            compare::<f32>(CmpOp::Lt, &bc, &x, &y).unwrap(),
            vec![true, false, false]
        );
        assert_eq!(
            compare::<f32>(CmpOp::Ge, &bc, &x, &y).unwrap(),
            vec![false, false, true]
        );
        let bc = Bcast::new(x.shape(), x.shape()).unwrap();
        assert_eq!(
            compare::<f32>(CmpOp::Eq, &bc, &x, &x).unwrap(),
            vec![true, false, true]
        );
        assert_eq!(
            compare::<f32>(CmpOp::Ne, &bc, &x, &x).unwrap(),
            vec![false, true, false]
        );
        let s = Tensor::from(vec!["a", "b"]);
        let t = Tensor::from("b");
        let bc = Bcast::new(s.shape(), t.shape()).unwrap();
        assert_eq!(
            compare::<weir_graph::Bytes>(CmpOp::Eq, &bc, &s, &t).unwrap(),
            vec![false, true]
        );
    }
}
