//! Elementwise unary ops: `Neg`, `Abs`, `Sign`, `Square`, `Sqrt`, `Rsqrt`, `Exp`, `Log`,
//! `Log1p`, `Sin`, `Cos`, `Tanh`, `Sigmoid`, `Floor`, `Ceil`, `Round`, `Reciprocal`, and the
//! float predicates `IsNan`, `IsInf`, `IsFinite`.
//!
//! Each kernel takes its input and, when no one else holds the buffer, writes the result into
//! it; integers wrap (`neg(INT_MIN) == INT_MIN`), `Round` rounds half to even like TensorFlow.
//! float16 and bfloat16 are computed as Eigen computes them, in float32 and rounded once;
//! complex inputs by [`complex`].

pub(super) mod complex;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    bf16, f16, ArgType, DType, Error, HalfFloat, InferenceContext, Kernel, Node, OpContext, OpDef,
    Output, Result, Tensor,
};

use super::bcast::{unary_map, unary_update};
use complex::CFn;

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
unsigned_ops!(u8, u16, u32, u64);

/// `v` with a float32 subnormal replaced by a zero of its sign: TensorFlow runs its CPU kernels
/// with denormals flushed (DAZ and FTZ), which bfloat16, sharing float32's exponent range,
/// shows on both its inputs and its results.
fn flush(v: f32) -> f32 {
    if v.is_subnormal() {
        0.0f32.copysign(v)
    } else {
        v
    }
}

/// `f` on every element of a float16 or bfloat16 tensor as Eigen's half types compute it:
/// widened to float32, computed once, rounded back to nearest even; with `daz`, float32
/// denormals are flushed to zero before and after `f`, as they are in TensorFlow's float32
/// arithmetic (but not in the C library's functions, which work on the bits).
fn widen<H: HalfFloat>(x: Tensor, daz: bool, f: impl Fn(f32) -> f32) -> Result<Tensor> {
    if daz {
        unary_update(x, |v: H| H::from_f32(flush(f(flush(v.to_f32())))))
    } else {
        unary_update(x, |v: H| H::from_f32(f(v.to_f32())))
    }
}

/// [`widen`] for whichever half type `x` holds, with denormals flushed.
pub(super) fn half_update(x: Tensor, f: impl Fn(f32) -> f32) -> Result<Tensor> {
    half_update_daz(x, true, f)
}

/// [`widen`] for whichever half type `x` holds.
pub(super) fn half_update_daz(x: Tensor, daz: bool, f: impl Fn(f32) -> f32) -> Result<Tensor> {
    match x.dtype() {
        DType::F16 => widen::<f16>(x, daz, f),
        DType::BF16 => widen::<bf16>(x, daz, f),
        dt => Err(Error::internal(format!("half kernel for {dt}"))),
    }
}

/// Eigen's `sign` of a half value: +-1, or for a zero (a flushed denormal too) or NaN the
/// value with its sign bit cleared, untouched otherwise.
fn half_sign<H: HalfFloat>(
    x: Tensor,
    bits: fn(H) -> u16,
    from_bits: fn(u16) -> H,
) -> Result<Tensor> {
    unary_update(x, |v: H| {
        let f = flush(v.to_f32());
        if f > 0.0 {
            H::from_f32(1.0)
        } else if f < 0.0 {
            H::from_f32(-1.0)
        } else {
            from_bits(bits(v) & 0x7fff)
        }
    })
}

/// Eigen's generic `logistic`, which the half types take: `e / (1 + e)` for `e = exp(x)`, each
/// of the three operations rounded to the half type (1 where `e` overflows).
fn half_sigmoid<H: HalfFloat>(x: Tensor) -> Result<Tensor> {
    let round = |v: f32| H::from_f32(flush(v)).to_f32();
    unary_update(x, |v: H| {
        let e = round(flush(v.to_f32()).exp());
        if e.is_infinite() {
            H::from_f32(1.0)
        } else {
            H::from_f32(flush(e / round(1.0 + e)))
        }
    })
}

/// A predicate on the float32 value of every half element.
fn half_test(x: &Tensor, f: impl Fn(f32) -> bool) -> Result<Tensor> {
    match x.dtype() {
        DType::F16 => unary_map(x, |v: f16| f(v.to_f32())),
        _ => unary_map(x, |v: bf16| f(v.to_f32())),
    }
}

/// The half-type kernels: the float32 formulas of [`FloatOps`], each result rounded once.
fn half_apply(op: UnOp, x: Tensor) -> Result<Tensor> {
    match op {
        // Sign-bit operations: denormals keep their value.
        UnOp::Neg => half_update_daz(x, false, |v| -v),
        UnOp::Abs => half_update_daz(x, false, f32::abs),
        UnOp::Sign => match x.dtype() {
            DType::F16 => half_sign::<f16>(x, f16::to_bits, f16::from_bits),
            _ => half_sign::<bf16>(x, bf16::to_bits, bf16::from_bits),
        },
        UnOp::Square => half_update(x, |v| v * v),
        UnOp::Sqrt => half_update(x, f32::sqrt),
        UnOp::Rsqrt => half_update(x, |v| 1.0 / v.sqrt()),
        UnOp::Exp => half_update(x, f32::exp),
        UnOp::Log => half_update(x, f32::ln),
        UnOp::Log1p => half_update(x, f32::ln_1p),
        UnOp::Sin => half_update(x, f32::sin),
        UnOp::Cos => half_update(x, f32::cos),
        UnOp::Tanh => half_update(x, f32::tanh),
        UnOp::Sigmoid => match x.dtype() {
            DType::F16 => half_sigmoid::<f16>(x),
            _ => half_sigmoid::<bf16>(x),
        },
        UnOp::Floor => half_update(x, f32::floor),
        UnOp::Ceil => half_update(x, f32::ceil),
        UnOp::Round => half_update(x, f32::round_ties_even),
        UnOp::Reciprocal => half_update(x, |v| 1.0 / v),
        UnOp::IsNan => half_test(&x, f32::is_nan),
        UnOp::IsInf => half_test(&x, f32::is_infinite),
        UnOp::IsFinite => half_test(&x, f32::is_finite),
    }
}

/// The complex function of `op`; `None` for the ops TensorFlow has no complex kernel of.
fn complex_fn(op: UnOp) -> Option<CFn> {
    Some(match op {
        UnOp::Neg => CFn::Neg,
        UnOp::Sign => CFn::Sign,
        UnOp::Square => CFn::Square,
        UnOp::Sqrt => CFn::Sqrt,
        UnOp::Rsqrt => CFn::Rsqrt,
        UnOp::Exp => CFn::Exp,
        UnOp::Log => CFn::Log,
        UnOp::Log1p => CFn::Log1p,
        UnOp::Sin => CFn::Sin,
        UnOp::Cos => CFn::Cos,
        UnOp::Tanh => CFn::Tanh,
        UnOp::Sigmoid => CFn::Sigmoid,
        UnOp::Reciprocal => CFn::Reciprocal,
        _ => return None,
    })
}

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
            DType::U32 => u32::apply(self.0, x)?,
            DType::U64 => u64::apply(self.0, x)?,
            DType::F16 | DType::BF16 => half_apply(self.0, x)?,
            DType::C64 | DType::C128 => match complex_fn(self.0) {
                Some(f) => complex::apply(f, x)?,
                None => return Err(int_unsupported(self.0, x.dtype())),
            },
            dt => return Err(int_unsupported(self.0, dt)),
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// TensorFlow's type lists of these ops, in its order.
const SIGNED: &[DType] = &[
    DType::BF16,
    DType::F16,
    DType::F32,
    DType::F64,
    DType::I8,
    DType::I16,
    DType::I32,
    DType::I64,
];
const SIGNED_COMPLEX: &[DType] = &[
    DType::BF16,
    DType::F16,
    DType::F32,
    DType::F64,
    DType::I8,
    DType::I16,
    DType::I32,
    DType::I64,
    DType::C64,
    DType::C128,
];
const NUMBER: &[DType] = &[
    DType::BF16,
    DType::F16,
    DType::F32,
    DType::F64,
    DType::I8,
    DType::I16,
    DType::I32,
    DType::I64,
    DType::U8,
    DType::U16,
    DType::U32,
    DType::U64,
    DType::C64,
    DType::C128,
];
/// The floating-point and complex types (TensorFlow's `{bfloat16, half, float, double,
/// complex64, complex128}`).
pub(super) const FLOAT_COMPLEX: &[DType] = &[
    DType::BF16,
    DType::F16,
    DType::F32,
    DType::F64,
    DType::C64,
    DType::C128,
];
/// The real floating-point types, halves first as TensorFlow lists them.
pub(super) const FLOATS: &[DType] = &[DType::BF16, DType::F16, DType::F32, DType::F64];

const OPS: &[(&str, UnOp, &[DType])] = &[
    ("Neg", UnOp::Neg, SIGNED_COMPLEX),
    ("Abs", UnOp::Abs, SIGNED),
    ("Sign", UnOp::Sign, SIGNED_COMPLEX),
    ("Square", UnOp::Square, NUMBER),
    ("Sqrt", UnOp::Sqrt, FLOAT_COMPLEX),
    ("Rsqrt", UnOp::Rsqrt, FLOAT_COMPLEX),
    ("Exp", UnOp::Exp, FLOAT_COMPLEX),
    ("Log", UnOp::Log, FLOAT_COMPLEX),
    ("Log1p", UnOp::Log1p, FLOAT_COMPLEX),
    ("Sin", UnOp::Sin, FLOAT_COMPLEX),
    ("Cos", UnOp::Cos, FLOAT_COMPLEX),
    ("Tanh", UnOp::Tanh, FLOAT_COMPLEX),
    ("Sigmoid", UnOp::Sigmoid, FLOAT_COMPLEX),
    ("Floor", UnOp::Floor, FLOATS),
    ("Ceil", UnOp::Ceil, FLOATS),
    ("Round", UnOp::Round, SIGNED_COMPLEX),
    ("Reciprocal", UnOp::Reciprocal, SIGNED_COMPLEX),
    ("IsNan", UnOp::IsNan, FLOATS),
    ("IsInf", UnOp::IsInf, FLOATS),
    ("IsFinite", UnOp::IsFinite, FLOATS),
];

/// TensorFlow's CPU kernels of the ops whose op def lists more types than it has kernels
/// for, in the order its "Registered kernels" message lists them.
const KERNELS: &[(&str, &[DType])] = &[
    (
        "Round",
        &[
            DType::I64,
            DType::I32,
            DType::BF16,
            DType::F64,
            DType::F32,
            DType::F16,
        ],
    ),
    ("Reciprocal", RECIPROCAL_KERNELS),
];

/// `Reciprocal`'s kernels: no integer one.
const RECIPROCAL_KERNELS: &[DType] = &[
    DType::C128,
    DType::C64,
    DType::F64,
    DType::BF16,
    DType::F16,
    DType::F32,
];

/// TensorFlow's error for a node whose dtype `T` its op def allows but no CPU kernel takes
/// (`kernels`: the types that have one, in TensorFlow's order).
pub(super) fn no_kernel(node: &Node, kernels: &[DType]) -> Result<()> {
    let dt: DType = node.attr("T")?;
    if kernels.contains(&dt) {
        return Ok(());
    }
    let list: Vec<String> = kernels
        .iter()
        .map(|k| format!("  device='CPU'; T in [{}]", k.proto_name()))
        .collect();
    Err(Error::invalid_argument(format!(
        "No OpKernel was registered to support Op '{}' used by {{{{node {}}}}} with these attrs: [T={}]\nRegistered devices: [CPU]\nRegistered kernels:\n{}\n",
        node.op_type(),
        node.name(),
        dt.proto_name(),
        list.join("\n")
    )))
}

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
    if let Some((_, kernels)) = KERNELS.iter().find(|(name, _)| *name == node.op_type()) {
        no_kernel(node, kernels)?;
    }
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

    fn halves(op: UnOp, bits: Vec<u16>) -> Vec<u16> {
        let t = Tensor::from(bits.into_iter().map(f16::from_bits).collect::<Vec<_>>());
        let out = half_apply(op, t).unwrap().to_vec::<f16>().unwrap();
        out.into_iter().map(f16::to_bits).collect()
    }

    #[test]
    fn halves_round_as_eigen_does() {
        // sign(-0) = +0; NaN keeps its payload, without the sign.
        assert_eq!(
            halves(UnOp::Sign, vec![0x8000, 0xfe01, 0xbc00]),
            [0, 0x7e01, 0xbc00]
        );
        // e / (1 + e) with each step in float16: sigmoid(2^-11) rounds up to 0.5 + 2^-11.
        assert_eq!(halves(UnOp::Sigmoid, vec![0x1000]), [0x3801]);
        // bfloat16 denormals are flushed, as TensorFlow's float32 arithmetic flushes them.
        let t = Tensor::from(vec![bf16::from_bits(0x0001), bf16::from_bits(0x4080)]);
        let out = half_apply(UnOp::Sqrt, t).unwrap().to_vec::<bf16>().unwrap();
        assert_eq!(out, [bf16::from_f32(0.0), bf16::from_f32(2.0)]);
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
