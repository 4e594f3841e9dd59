//! Elementwise unary ops: `Neg`, `Abs`, `Sign`, `Square`, `Sqrt`, `Rsqrt`, `Exp`, `Log`,
//! `Log1p`, `Sin`, `Cos`, `Tanh`, `Sigmoid`, `Floor`, `Ceil`, `Round`, `Reciprocal`, and the
//! float predicates `IsNan`, `IsInf`, `IsFinite`.
//!
//! Each kernel takes its input and, when no one else holds the buffer, writes the result into
//! it; integers wrap (`neg(INT_MIN) == INT_MIN`), `Round` rounds half to even like TensorFlow.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef, Output, Result, Tensor,
};

use super::bcast::{unary_map, unary_update};

/// One `op` node on `x`: the builder of every elementwise unary op.
pub(super) fn unary(op: &str, x: Output) -> Result<Output> {
    crate::new_op(&x.graph().clone(), op)
        .input(x)
        .build()?
        .output(0)
}

/// Public builders `name(x)` of unary ops, each one `op` node.
macro_rules! builders {
    ($($(#[$doc:meta])* $name:ident => $op:literal;)*) => {$(
        $(#[$doc])*
        pub fn $name(x: impl Into<Output>) -> Result<Output> {
            $crate::math::unary::unary($op, x.into())
        }
    )*};
}
pub(super) use builders;

builders! {
    /// `tf.negative(x)` (op `Neg`): `-x`; integers wrap.
    neg => "Neg";
    /// `tf.abs(x)`: `|x|`; `abs(INT_MIN)` wraps to `INT_MIN`, as in TensorFlow.
    abs => "Abs";
    /// `tf.sign(x)`: -1, 0 or 1 (NaN stays NaN).
    sign => "Sign";
    /// `tf.square(x)`: `x * x`; integers wrap.
    square => "Square";
    /// `tf.sqrt(x)` for floats; negative inputs give NaN.
    sqrt => "Sqrt";
    /// `tf.math.rsqrt(x)`: `1 / sqrt(x)` for floats.
    rsqrt => "Rsqrt";
    /// `tf.exp(x)` for floats.
    exp => "Exp";
    /// `tf.math.log(x)`: the natural logarithm, for floats (`log(0) == -inf`).
    log => "Log";
    /// `tf.math.log1p(x)`: `log(1 + x)`, accurate for small `x`.
    log1p => "Log1p";
    /// `tf.sin(x)` for floats.
    sin => "Sin";
    /// `tf.cos(x)` for floats.
    cos => "Cos";
    /// `tf.tanh(x)` for floats.
    tanh => "Tanh";
    /// `tf.sigmoid(x)`: `1 / (1 + exp(-x))`, computed without overflow.
    sigmoid => "Sigmoid";
    /// `tf.floor(x)` for floats.
    floor => "Floor";
    /// `tf.math.ceil(x)` for floats.
    ceil => "Ceil";
    /// `tf.round(x)`: to the nearest integer, halves to even (banker's rounding); integers are
    /// unchanged.
    round => "Round";
    /// `tf.math.reciprocal(x)`: `1 / x` for floats.
    reciprocal => "Reciprocal";
    /// `tf.math.is_nan(x)`: a bool tensor, true where `x` is NaN.
    is_nan => "IsNan";
    /// `tf.math.is_inf(x)`: true where `x` is +-infinity.
    is_inf => "IsInf";
    /// `tf.math.is_finite(x)`: true where `x` is neither infinite nor NaN.
    is_finite => "IsFinite";
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum UnOp {
    Neg,
    Abs,
    Sign,
    Square,
    Sqrt,
    Rsqrt,
    Exp,
    Log,
    Log1p,
    Sin,
    Cos,
    Tanh,
    Sigmoid,
    Floor,
    Ceil,
    Round,
    Reciprocal,
    IsNan,
    IsInf,
    IsFinite,
}

/// Float math with TensorFlow's CPU semantics.
trait FloatOps: weir_graph::TensorType + Copy {
    fn apply(op: UnOp, x: Tensor) -> Result<Tensor>;
}

macro_rules! float_ops {
    ($($t:ty),*) => {$(
        impl FloatOps for $t {
            fn apply(op: UnOp, x: Tensor) -> Result<Tensor> {
                match op {
                    UnOp::Neg => unary_update(x, |v: $t| -v),
                    UnOp::Abs => unary_update(x, |v: $t| v.abs()),
                    UnOp::Sign => unary_update(x, |v: $t| {
                        if v > 0.0 { 1.0 } else if v < 0.0 { -1.0 } else { v }
                    }),
                    UnOp::Square => unary_update(x, |v: $t| v * v),
                    UnOp::Sqrt => unary_update(x, |v: $t| v.sqrt()),
                    UnOp::Rsqrt => unary_update(x, |v: $t| 1.0 / v.sqrt()),
                    UnOp::Exp => unary_update(x, |v: $t| v.exp()),
                    UnOp::Log => unary_update(x, |v: $t| v.ln()),
                    UnOp::Log1p => unary_update(x, |v: $t| v.ln_1p()),
                    UnOp::Sin => unary_update(x, |v: $t| v.sin()),
                    UnOp::Cos => unary_update(x, |v: $t| v.cos()),
                    UnOp::Tanh => unary_update(x, |v: $t| v.tanh()),
                    UnOp::Sigmoid => unary_update(x, |v: $t| {
                        if v >= 0.0 {
                            1.0 / (1.0 + (-v).exp())
                        } else {
                            let e = v.exp();
                            e / (1.0 + e)
                        }
                    }),
                    UnOp::Floor => unary_update(x, |v: $t| v.floor()),
                    UnOp::Ceil => unary_update(x, |v: $t| v.ceil()),
                    UnOp::Round => unary_update(x, |v: $t| v.round_ties_even()),
                    UnOp::Reciprocal => unary_update(x, |v: $t| 1.0 / v),
                    UnOp::IsNan => unary_map(&x, |v: $t| v.is_nan()),
                    UnOp::IsInf => unary_map(&x, |v: $t| v.is_infinite()),
                    UnOp::IsFinite => unary_map(&x, |v: $t| v.is_finite()),
                }
            }
        }
    )*};
}
float_ops!(f32, f64);

/// Integer math: wrapping, as TensorFlow's two's-complement kernels behave.
trait IntOps: weir_graph::TensorType + Copy {
    fn apply(op: UnOp, x: Tensor) -> Result<Tensor>;
}

macro_rules! signed_ops {
    ($($t:ty),*) => {$(
        impl IntOps for $t {
            fn apply(op: UnOp, x: Tensor) -> Result<Tensor> {
                match op {
                    UnOp::Neg => unary_update(x, |v: $t| v.wrapping_neg()),
                    UnOp::Abs => unary_update(x, |v: $t| v.wrapping_abs()),
                    UnOp::Sign => unary_update(x, |v: $t| v.signum()),
                    UnOp::Square => unary_update(x, |v: $t| v.wrapping_mul(v)),
                    UnOp::Round => Ok(x),
                    other => Err(int_unsupported(other, <$t as weir_graph::TensorType>::DTYPE)),
                }
            }
        }
    )*};
}
signed_ops!(i8, i16, i32, i64);

macro_rules! unsigned_ops {
    ($($t:ty),*) => {$(
        impl IntOps for $t {
            fn apply(op: UnOp, x: Tensor) -> Result<Tensor> {
                match op {
                    UnOp::Abs | UnOp::Round => Ok(x),
                    UnOp::Sign => unary_update(x, |v: $t| (v != 0) as $t),
                    UnOp::Square => unary_update(x, |v: $t| v.wrapping_mul(v)),
                    other => Err(int_unsupported(other, <$t as weir_graph::TensorType>::DTYPE)),
                }
            }
        }
    )*};
}
unsigned_ops!(u8, u16);

fn int_unsupported(op: UnOp, dt: DType) -> Error {
    Error::invalid_argument(format!("{op:?} is not supported for {dt}"))
}

struct UnaryKernel(UnOp);

impl Kernel for UnaryKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0);
        let out = match x.dtype() {
            DType::F32 => f32::apply(self.0, x)?,
            DType::F64 => f64::apply(self.0, x)?,
            DType::I8 => i8::apply(self.0, x)?,
            DType::I16 => i16::apply(self.0, x)?,
            DType::I32 => i32::apply(self.0, x)?,
            DType::I64 => i64::apply(self.0, x)?,
            DType::U8 => u8::apply(self.0, x)?,
            DType::U16 => u16::apply(self.0, x)?,
            dt => return Err(int_unsupported(self.0, dt)),
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

const SIGNED: &[DType] = &[
    DType::F32,
    DType::F64,
    DType::I8,
    DType::I16,
    DType::I32,
    DType::I64,
];

const OPS: &[(&str, UnOp, &[DType])] = &[
    ("Neg", UnOp::Neg, SIGNED),
    ("Abs", UnOp::Abs, SIGNED),
    ("Sign", UnOp::Sign, SIGNED),
    ("Square", UnOp::Square, DType::REAL_NUMBER),
    ("Sqrt", UnOp::Sqrt, DType::FLOAT),
    ("Rsqrt", UnOp::Rsqrt, DType::FLOAT),
    ("Exp", UnOp::Exp, DType::FLOAT),
    ("Log", UnOp::Log, DType::FLOAT),
    ("Log1p", UnOp::Log1p, DType::FLOAT),
    ("Sin", UnOp::Sin, DType::FLOAT),
    ("Cos", UnOp::Cos, DType::FLOAT),
    ("Tanh", UnOp::Tanh, DType::FLOAT),
    ("Sigmoid", UnOp::Sigmoid, DType::FLOAT),
    ("Floor", UnOp::Floor, DType::FLOAT),
    ("Ceil", UnOp::Ceil, DType::FLOAT),
    ("Round", UnOp::Round, DType::REAL_NUMBER),
    ("Reciprocal", UnOp::Reciprocal, DType::FLOAT),
    ("IsNan", UnOp::IsNan, DType::FLOAT),
    ("IsInf", UnOp::IsInf, DType::FLOAT),
    ("IsFinite", UnOp::IsFinite, DType::FLOAT),
];

/// The shape function of elementwise unary ops: the input's shape.
pub(super) fn same_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    ctx.set_output(0, s);
    Ok(())
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let op = OPS
        .iter()
        .find(|(name, _, _)| *name == node.op_type())
        .map(|&(_, op, _)| op)
        .ok_or_else(|| Error::internal(format!("not a unary op: {}", node.op_type())))?;
    Ok(Box::new(UnaryKernel(op)))
}

pub(super) fn register() {
    for &(name, op, types) in OPS {
        let out = if matches!(op, UnOp::IsNan | UnOp::IsInf | UnOp::IsFinite) {
            ArgType::Fixed(DType::Bool)
        } else {
            ArgType::Attr("T")
        };
        register_op(
            OpDef::new(name)
                .input("x", ArgType::Attr("T"))
                .output("y", out)
                .type_attr("T", types)
                .shape_fn(same_shape),
        );
        register_kernel(name, make);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(op: UnOp, v: Vec<f32>) -> Vec<f32> {
        f32::apply(op, Tensor::from(v))
            .unwrap()
            .to_vec::<f32>()
            .unwrap()
    }

    #[test]
    fn round_is_bankers() {
        assert_eq!(
            f32s(UnOp::Round, vec![0.5, 1.5, 2.5, -0.5, -1.5, 2.4, -2.6]),
            vec![0.0, 2.0, 2.0, -0.0, -2.0, 2.0, -3.0]
        );
    }

    #[test]
    fn sign_sigmoid_and_nan() {
        let s = f32s(UnOp::Sign, vec![-3.0, 0.0, 2.0, f32::NAN]);
        assert_eq!(&s[..3], &[-1.0, 0.0, 1.0]);
        assert!(s[3].is_nan());
        let g = f32s(UnOp::Sigmoid, vec![0.0, -1000.0, 1000.0]);
        assert_eq!(g, vec![0.5, 0.0, 1.0]);
        let l = f32s(UnOp::Log, vec![0.0, -1.0]);
        assert_eq!(l[0], f32::NEG_INFINITY);
        assert!(l[1].is_nan());
        assert_eq!(f32s(UnOp::Rsqrt, vec![4.0]), vec![0.5]);
        let n = f32::apply(UnOp::IsNan, Tensor::from(vec![f32::NAN, 1.0])).unwrap();
        assert_eq!(n.to_vec::<bool>().unwrap(), vec![true, false]);
    }

    #[test]
    fn integers_wrap() {
        let t = i32::apply(UnOp::Neg, Tensor::from(vec![i32::MIN, 5])).unwrap();
        assert_eq!(t.to_vec::<i32>().unwrap(), vec![i32::MIN, -5]);
        let t = i8::apply(UnOp::Abs, Tensor::from(vec![i8::MIN, -3])).unwrap();
        assert_eq!(t.to_vec::<i8>().unwrap(), vec![i8::MIN, 3]);
        let t = u8::apply(UnOp::Square, Tensor::from(vec![16u8, 3])).unwrap();
        assert_eq!(t.to_vec::<u8>().unwrap(), vec![0, 9]);
        assert!(i32::apply(UnOp::Exp, Tensor::from(vec![1i32])).is_err());
    }
}
