//! `tf.bitwise`: elementwise bit operations on integer tensors (`BitwiseAnd`, `BitwiseOr`,
//! `BitwiseXor`, `LeftShift`, `RightShift` with numpy broadcasting; `Invert`;
//! `PopulationCount`), for every integer dtype weir has.
//!
//! Shifts follow TensorFlow's CPU kernels: the shift amount is clamped to `[0, bits - 1]`
//! (so a negative shift shifts by 0 and an oversized one by `bits - 1`), left shifts drop the
//! bits shifted out, and right shifts of signed values are arithmetic.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, Kernel, Node, OpContext, OpDef, Output, Result, Tensor, TensorType,
};

use crate::math::{broadcast_shape_fn, broadcast_update, unary_map, unary_update};

fn binary(op: &str, x: Output, y: Output) -> Result<Output> {
    let g = crate::util::same_graph(&[&x, &y])?.clone();
    crate::new_op(&g, op).input(x).input(y).build()?.output(0)
}

fn unary(op: &str, x: Output) -> Result<Output> {
    crate::new_op(&x.graph().clone(), op)
        .input(x)
        .build()?
        .output(0)
}

/// `tf.bitwise.bitwise_and(x, y)` (op `BitwiseAnd`), with broadcasting.
pub fn bitwise_and(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    binary("BitwiseAnd", x.into(), y.into())
}

/// `tf.bitwise.bitwise_or(x, y)` (op `BitwiseOr`), with broadcasting.
pub fn bitwise_or(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    binary("BitwiseOr", x.into(), y.into())
}

/// `tf.bitwise.bitwise_xor(x, y)` (op `BitwiseXor`), with broadcasting.
pub fn bitwise_xor(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    binary("BitwiseXor", x.into(), y.into())
}

/// `tf.bitwise.left_shift(x, y)` (op `LeftShift`): `x << y`, the shift clamped to
/// `[0, bits - 1]`, with broadcasting.
pub fn left_shift(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    binary("LeftShift", x.into(), y.into())
}

/// `tf.bitwise.right_shift(x, y)` (op `RightShift`): `x >> y` (arithmetic for signed types),
/// the shift clamped to `[0, bits - 1]`, with broadcasting.
pub fn right_shift(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    binary("RightShift", x.into(), y.into())
}

/// `tf.bitwise.invert(x)` (op `Invert`): every bit flipped.
pub fn invert(x: impl Into<Output>) -> Result<Output> {
    unary("Invert", x.into())
}

/// `tf.raw_ops.PopulationCount(x)`: the number of set bits of each element, as uint8.
pub fn population_count(x: impl Into<Output>) -> Result<Output> {
    unary("PopulationCount", x.into())
}

/// Bit operations with TensorFlow's semantics per integer type.
trait Bits: TensorType + Copy {
    fn and(a: Self, b: Self) -> Self;
    fn or(a: Self, b: Self) -> Self;
    fn xor(a: Self, b: Self) -> Self;
    fn shl(a: Self, b: Self) -> Self;
    fn shr(a: Self, b: Self) -> Self;
    fn not(a: Self) -> Self;
    fn popcount(a: Self) -> u8;
}

macro_rules! bits {
    ($($t:ty),*) => {$(
        impl Bits for $t {
            fn and(a: Self, b: Self) -> Self { a & b }
            fn or(a: Self, b: Self) -> Self { a | b }
            fn xor(a: Self, b: Self) -> Self { a ^ b }
            #[allow(unused_comparisons)]
            fn shl(a: Self, b: Self) -> Self {
                let s = if b < 0 { 0 } else { (b as u64).min(<$t>::BITS as u64 - 1) };
                a.wrapping_shl(s as u32)
            }
            #[allow(unused_comparisons)]
            fn shr(a: Self, b: Self) -> Self {
                let s = if b < 0 { 0 } else { (b as u64).min(<$t>::BITS as u64 - 1) };
                a.wrapping_shr(s as u32)
            }
            fn not(a: Self) -> Self { !a }
            fn popcount(a: Self) -> u8 { a.count_ones() as u8 }
        }
    )*};
}
bits!(i8, i16, i32, i64, u8, u16);

#[derive(Clone, Copy, Debug, PartialEq)]
enum BitOp {
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Invert,
    PopCount,
}

fn apply<T: Bits>(op: BitOp, ctx: &mut OpContext<'_>) -> Result<Tensor> {
    let x = ctx.take_input(0);
    match op {
        BitOp::Invert => return unary_update(x, T::not),
        BitOp::PopCount => return unary_map(&x, T::popcount),
        _ => {}
    }
    let y = ctx.take_input(1);
    match op {
        BitOp::And => broadcast_update(x, y, T::and),
        BitOp::Or => broadcast_update(x, y, T::or),
        BitOp::Xor => broadcast_update(x, y, T::xor),
        BitOp::Shl => broadcast_update(x, y, T::shl),
        BitOp::Shr => broadcast_update(x, y, T::shr),
        BitOp::Invert | BitOp::PopCount => Err(Error::internal("unary bit op")),
    }
}

struct BitKernel(BitOp);

impl Kernel for BitKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let dt = ctx.input(0).dtype();
        let out = match dt {
            DType::I8 => apply::<i8>(self.0, ctx)?,
            DType::I16 => apply::<i16>(self.0, ctx)?,
            DType::I32 => apply::<i32>(self.0, ctx)?,
            DType::I64 => apply::<i64>(self.0, ctx)?,
            DType::U8 => apply::<u8>(self.0, ctx)?,
            DType::U16 => apply::<u16>(self.0, ctx)?,
            _ => return Err(Error::invalid_argument(format!("Unsupported dtype {dt}"))),
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

const OPS: &[(&str, BitOp)] = &[
    ("BitwiseAnd", BitOp::And),
    ("BitwiseOr", BitOp::Or),
    ("BitwiseXor", BitOp::Xor),
    ("LeftShift", BitOp::Shl),
    ("RightShift", BitOp::Shr),
    ("Invert", BitOp::Invert),
    ("PopulationCount", BitOp::PopCount),
];

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let op = OPS
        .iter()
        .find(|(name, _)| *name == node.op_type())
        .map(|&(_, op)| op)
        .ok_or_else(|| Error::internal(format!("not a bitwise op: {}", node.op_type())))?;
    Ok(Box::new(BitKernel(op)))
}

/// Registers the ops and kernels of `tf.bitwise`.
pub(crate) fn register_all_ops() {
    for &(name, op) in OPS {
        let def = OpDef::new(name)
            .input("x", ArgType::Attr("T"))
            .type_attr("T", DType::INTEGER);
        let def = match op {
            BitOp::Invert | BitOp::PopCount => {
                let out = if op == BitOp::Invert {
                    ArgType::Attr("T")
                } else {
                    ArgType::Fixed(DType::U8)
                };
                def.output("y", out).shape_fn(|ctx| {
                    let s = ctx.input_shape(0).clone();
                    ctx.set_output(0, s);
                    Ok(())
                })
            }
            _ => def
                .input("y", ArgType::Attr("T"))
                .output("z", ArgType::Attr("T"))
                .shape_fn(broadcast_shape_fn),
        };
        register_op(def);
        register_kernel(name, make);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_clamp_like_tensorflow() {
        // TensorFlow 2.21: left_shift(int8 [1,-1,5,7,-128,3], [-1,8,9,7,1,100]).
        let l: Vec<i8> = [(1, -1), (-1, 8), (5, 9), (7, 7), (-128, 1), (3, 100)]
            .iter()
            .map(|&(a, b)| i8::shl(a, b))
            .collect();
        assert_eq!(l, vec![1, -128, -128, -128, 0, -128]);
        let r: Vec<i8> = [(1, -1), (-1, 8), (5, 9), (7, 7), (-128, 1), (3, 100)]
            .iter()
            .map(|&(a, b)| i8::shr(a, b))
            .collect();
        assert_eq!(r, vec![1, -1, 0, 0, -64, 0]);
        assert_eq!(u8::shr(255, 8), 1);
        assert_eq!(u8::shl(200, 1), 144);
        assert_eq!(i64::popcount(-1), 64);
        assert_eq!(u16::not(0), u16::MAX);
    }
}
