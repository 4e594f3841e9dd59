//! Elementwise binary arithmetic with numpy broadcasting: `AddV2`, `Add`, `Sub`, `Mul`,
//! `RealDiv`, `Div`, `DivNoNan`, `TruncateDiv`, `FloorDiv`, `FloorMod`, `TruncateMod`, `Pow`,
//! `Maximum`, `Minimum`, `SquaredDifference`, on the types of TensorFlow's CPU kernels: the real
//! types, float16 and bfloat16 (see [`super::arith_ext`]) and, for the ops TensorFlow has them
//! for, complex64 and complex128 ([`super::binary_complex`]).
//!
//! Semantics follow TensorFlow's CPU kernels: integers wrap on overflow, integer `Div`,
//! `FloorDiv`, `FloorMod` and `TruncateMod` by zero fail with "Integer division by zero", integer
//! `Pow` with a negative exponent fails, floats are IEEE (NaN propagates through `Maximum` and
//! `Minimum`). The dtype is dispatched once per call; the loops are in [`super::bcast`].

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, Kernel, Node, OpContext, OpDef, Output, Result, Tensor, TensorType,
};

use super::arith_ext::{ALL_NUMBERS, FLOAT_COMPLEX, REAL_AND_HALF};
use super::bcast::{broadcast_shape_fn, broadcast_update, Bcast};
use super::binary_complex;

/// `tf.add(x, y)` (op `AddV2`; `Add` for strings, which concatenates), with broadcasting;
/// integers wrap on overflow.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, math::add};
/// let g = Graph::new();
/// let y = add(constant(&g, [1.0f32, 2.0])?, constant(&g, 10.0f32)?)?;
/// assert_eq!(y.shape(), weir_graph::Shape::known(&[2]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn add(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    let (x, y) = (x.into(), y.into());
    let op = if x.dtype() == DType::String {
        "Add"
    } else {
        "AddV2"
    };
    binary(op, x, y)
}

/// `tf.subtract(x, y)` (op `Sub`), with broadcasting.
pub fn sub(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    binary("Sub", x.into(), y.into())
}

/// `tf.multiply(x, y)` (op `Mul`), with broadcasting.
pub fn mul(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    binary("Mul", x.into(), y.into())
}

/// TensorFlow 1's `tf.div(x, y)`: Python 2 division, so `RealDiv` for floats and `FloorDiv`
/// for integers.
pub fn div(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    let (x, y) = (x.into(), y.into());
    if x.dtype().is_integer() {
        binary("FloorDiv", x, y)
    } else {
        binary("RealDiv", x, y)
    }
}

/// `tf.realdiv(x, y)` (op `RealDiv`) for floating-point tensors, with broadcasting.
pub fn realdiv(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    binary("RealDiv", x.into(), y.into())
}

/// The float type Python's true division casts integer operands to (int8/16 and uint8/16 to
/// float32, int32/64 to float64); `None` for floats.
fn float_for_division(x: &Output, y: &Output) -> Result<Option<DType>> {
    if x.dtype() != y.dtype() {
        return Err(Error::invalid_argument(format!(
            "x and y must have the same dtype, got {} != {}",
            x.dtype(),
            y.dtype()
        )));
    }
    match x.dtype() {
        DType::I8 | DType::I16 | DType::U8 | DType::U16 => Ok(Some(DType::F32)),
        DType::I32 | DType::I64 => Ok(Some(DType::F64)),
        DType::F32 | DType::F64 | DType::F16 | DType::BF16 | DType::C64 | DType::C128 => Ok(None),
        dt => Err(Error::invalid_argument(format!(
            "Invalid dtype {dt} in __truediv__"
        ))),
    }
}

/// `tf.truediv(x, y)`: integers are cast to a float type first (int8/16 and uint8/16 to
/// float32, int32/64 to float64), then `RealDiv`.
pub fn truediv(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    let (x, y) = (x.into(), y.into());
    let g = crate::util::same_graph(&[&x, &y])?.clone();
    let target = float_for_division(&x, &y)?;
    let _scope = g.name_scope("truediv");
    match target {
        Some(t) => binary("RealDiv", super::cast(&x, t)?, super::cast(&y, t)?),
        None => binary("RealDiv", x, y),
    }
}

/// `tf.math.divide_no_nan(x, y)` (op `DivNoNan`): `x / y`, and 0 wherever `y` is 0 (whatever
/// `x` is, NaN and infinities included). Integers are cast to a float type first, as
/// [`truediv`] casts them.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, math::div_no_nan};
/// let g = Graph::new();
/// let q = div_no_nan(constant(&g, [1.0f32, 2.0])?, constant(&g, [0.0f32, 4.0])?)?;
/// assert_eq!(q.dtype(), weir_graph::DType::F32);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn div_no_nan(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    let (x, y) = (x.into(), y.into());
    let g = crate::util::same_graph(&[&x, &y])?.clone();
    let _scope = g.name_scope("div_no_nan");
    match float_for_division(&x, &y)? {
        Some(t) => binary("DivNoNan", super::cast(&x, t)?, super::cast(&y, t)?),
        None => binary("DivNoNan", x, y),
    }
}

/// `tf.divide(x, y)`: the same as [`truediv`].
pub fn divide(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    truediv(x, y)
}

/// `tf.math.floordiv(x, y)` (op `FloorDiv`): rounds toward negative infinity; integer division
/// by zero is an error.
pub fn floordiv(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    binary("FloorDiv", x.into(), y.into())
}

/// `tf.truncatediv(x, y)` (op `TruncateDiv`) for integers: rounds toward zero, like C.
pub fn truncatediv(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    binary("TruncateDiv", x.into(), y.into())
}

/// `tf.math.floormod(x, y)` = `tf.math.mod` (op `FloorMod`): the remainder has the sign of `y`,
/// so `floordiv(x, y) * y + floormod(x, y) == x`.
pub fn floormod(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    binary("FloorMod", x.into(), y.into())
}

/// `tf.truncatemod(x, y)` (op `TruncateMod`): the remainder has the sign of `x`, like C's `%`
/// and `fmod`.
pub fn truncatemod(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    binary("TruncateMod", x.into(), y.into())
}

/// `tf.pow(x, y)`: `x` to the power `y` elementwise, with broadcasting; integer overflow wraps
/// and negative integer exponents are an error.
pub fn pow(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    binary("Pow", x.into(), y.into())
}

/// `tf.maximum(x, y)`, with broadcasting; NaN propagates.
pub fn maximum(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    binary("Maximum", x.into(), y.into())
}

/// `tf.minimum(x, y)`, with broadcasting; NaN propagates.
pub fn minimum(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    binary("Minimum", x.into(), y.into())
}

/// `tf.squared_difference(x, y)`: `(x - y)^2` elementwise, with broadcasting.
pub fn squared_difference(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    binary("SquaredDifference", x.into(), y.into())
}

pub(crate) fn binary(op: &str, x: Output, y: Output) -> Result<Output> {
    let g = crate::util::same_graph(&[&x, &y])?.clone();
    crate::new_op(&g, op).input(x).input(y).build()?.output(0)
}

/// `acc + delta` (or `acc - delta`) for tensors of one shape, written into `acc`'s buffer when
/// no one else holds it (copy-on-write otherwise): the in-place update of `AssignAdd`.
pub(crate) fn accumulate(mut acc: Tensor, delta: &Tensor, subtract: bool) -> Result<Tensor> {
    fn go<T: Arith>(acc: &mut Tensor, delta: &Tensor, subtract: bool) -> Result<()> {
        let d = delta.as_slice::<T>()?;
        let a = acc.as_slice_mut::<T>()?;
        if a.len() != d.len() {
            return Err(Error::invalid_argument("accumulate needs equal sizes"));
        }
        let f = if subtract { T::sub } else { T::add };
        for (x, &y) in a.iter_mut().zip(d) {
            *x = f(*x, y);
        }
        Ok(())
    }
    if acc.dtype() != delta.dtype() {
        return Err(Error::invalid_argument(format!(
            "Cannot add {} to {}",
            delta.dtype(),
            acc.dtype()
        )));
    }
    let dt = acc.dtype();
    weir_graph::match_real_dtype!(dt, T => go::<T>(&mut acc, delta, subtract)?,
        _ => return Err(Error::invalid_argument(format!("Cannot add tensors of dtype {dt}"))));
    Ok(acc)
}

/// Arithmetic with TensorFlow's semantics per type: integers wrap, floats are IEEE.
pub(crate) trait Arith: TensorType + Copy + PartialOrd + Default {
    /// `Div`, `RealDiv`: true division for floats, truncating for integers (divisor checked).
    fn div(a: Self, b: Self) -> Self;
    /// `FloorDiv`.
    fn floordiv(a: Self, b: Self) -> Self;
    /// `TruncateDiv`: rounds toward zero.
    fn truncdiv(a: Self, b: Self) -> Self;
    /// `FloorMod`.
    fn floormod(a: Self, b: Self) -> Self;
    /// `TruncateMod`.
    fn truncmod(a: Self, b: Self) -> Self;
    /// `Pow` (exponent checked for integers).
    fn pow(a: Self, b: Self) -> Self;
    fn add(a: Self, b: Self) -> Self;
    fn sub(a: Self, b: Self) -> Self;
    fn mul(a: Self, b: Self) -> Self;
    /// Maximum, propagating NaN.
    fn max(a: Self, b: Self) -> Self;
    /// Minimum, propagating NaN.
    fn min(a: Self, b: Self) -> Self;
    /// The multiplicative identity.
    fn one() -> Self;
    /// The smallest and largest values (infinities for floats): identities of max and min.
    fn lowest() -> Self;
    fn highest() -> Self;
    /// Whether the type is an integer, whose division by zero is an error.
    const INTEGER: bool;
    /// Whether `v < 0` (always false for unsigned types).
    fn is_negative(v: Self) -> bool;
    /// `v` divided by a count, for means.
    fn div_count(v: Self, n: usize) -> Self;
}

macro_rules! int_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            fn div(a: Self, b: Self) -> Self { a.wrapping_div(b) }
            fn floordiv(a: Self, b: Self) -> Self {
                let q = a.wrapping_div(b);
                #[allow(unused_comparisons)]
                if a.wrapping_rem(b) != 0 && ((a < 0) != (b < 0)) { q.wrapping_sub(1) } else { q }
            }
            fn floormod(a: Self, b: Self) -> Self {
                let r = a.wrapping_rem(b);
                #[allow(unused_comparisons)]
                if r != 0 && ((r < 0) != (b < 0)) { r.wrapping_add(b) } else { r }
            }
            fn truncdiv(a: Self, b: Self) -> Self { a.wrapping_div(b) }
            fn truncmod(a: Self, b: Self) -> Self { a.wrapping_rem(b) }
            fn pow(a: Self, b: Self) -> Self {
                // Exponentiation by squaring with wrapping, like TensorFlow's integer pow.
                let (mut base, mut e, mut acc) = (a, b, 1 as $t);
                while e > 0 {
                    if e & 1 == 1 { acc = acc.wrapping_mul(base); }
                    e >>= 1;
                    base = base.wrapping_mul(base);
                }
                acc
            }
            fn add(a: Self, b: Self) -> Self { a.wrapping_add(b) }
            fn sub(a: Self, b: Self) -> Self { a.wrapping_sub(b) }
            fn mul(a: Self, b: Self) -> Self { a.wrapping_mul(b) }
            fn max(a: Self, b: Self) -> Self { if a >= b { a } else { b } }
            fn min(a: Self, b: Self) -> Self { if a <= b { a } else { b } }
            fn one() -> Self { 1 }
            fn lowest() -> Self { <$t>::MIN }
            fn highest() -> Self { <$t>::MAX }
            const INTEGER: bool = true;
            #[allow(unused_comparisons)]
            fn is_negative(v: Self) -> bool { v < 0 }
            fn div_count(v: Self, n: usize) -> Self { if n == 0 { 0 } else { (v as i128 / n as i128) as $t } }
        }
    )*};
}
int_arith!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! float_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            fn div(a: Self, b: Self) -> Self { a / b }
            fn floordiv(a: Self, b: Self) -> Self { (a / b).floor() }
            fn floormod(a: Self, b: Self) -> Self {
                let r = a % b;
                if r != 0.0 && ((r < 0.0) != (b < 0.0)) { r + b } else { r }
            }
            fn truncdiv(a: Self, b: Self) -> Self { (a / b).trunc() }
            fn truncmod(a: Self, b: Self) -> Self { a % b }
            fn pow(a: Self, b: Self) -> Self { a.powf(b) }
            fn add(a: Self, b: Self) -> Self { a + b }
            fn sub(a: Self, b: Self) -> Self { a - b }
            fn mul(a: Self, b: Self) -> Self { a * b }
            fn max(a: Self, b: Self) -> Self { if a > b || a.is_nan() { a } else { b } }
            fn min(a: Self, b: Self) -> Self { if a < b || a.is_nan() { a } else { b } }
            fn one() -> Self { 1.0 }
            fn lowest() -> Self { <$t>::NEG_INFINITY }
            fn highest() -> Self { <$t>::INFINITY }
            const INTEGER: bool = false;
            fn is_negative(v: Self) -> bool { v < 0.0 }
            fn div_count(v: Self, n: usize) -> Self { v / n as $t }
        }
    )*};
}
float_arith!(f32, f64);

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    DivNoNan,
    FloorDiv,
    TruncDiv,
    FloorMod,
    TruncMod,
    Pow,
    Max,
    Min,
    SqDiff,
}

fn division_by_zero() -> Error {
    Error::invalid_argument("Integer division by zero")
}

fn apply<T: Arith>(op: BinOp, x: Tensor, y: Tensor) -> Result<Tensor> {
    // TensorFlow's functors flag a zero divisor as they meet it, so an empty result (nothing
    // computed) is no error.
    if T::INTEGER && x.num_elements() > 0 {
        let ys = y.as_slice::<T>()?;
        match op {
            BinOp::Div | BinOp::FloorDiv | BinOp::TruncDiv | BinOp::FloorMod | BinOp::TruncMod
                if ys.iter().any(|&v| v == T::default()) =>
            {
                return Err(division_by_zero())
            }
            BinOp::Pow if ys.iter().any(|&v| T::is_negative(v)) => {
                return Err(Error::invalid_argument(
                    "Integers to negative integer powers are not allowed",
                ))
            }
            _ => {}
        }
    }
    match op {
        BinOp::Add => broadcast_update(x, y, T::add),
        BinOp::Sub => broadcast_update(x, y, T::sub),
        BinOp::Mul => broadcast_update(x, y, T::mul),
        BinOp::Div => broadcast_update(x, y, T::div),
        // Registered for floats only, whose division by zero is not checked above.
        BinOp::DivNoNan => broadcast_update(x, y, |a, b| {
            if b == T::default() {
                T::default()
            } else {
                T::div(a, b)
            }
        }),
        BinOp::FloorDiv => broadcast_update(x, y, T::floordiv),
        BinOp::TruncDiv => broadcast_update(x, y, T::truncdiv),
        BinOp::FloorMod => broadcast_update(x, y, T::floormod),
        BinOp::TruncMod => broadcast_update(x, y, T::truncmod),
        BinOp::Pow => broadcast_update(x, y, T::pow),
        BinOp::Max => broadcast_update(x, y, T::max),
        BinOp::Min => broadcast_update(x, y, T::min),
        BinOp::SqDiff => broadcast_update(x, y, |a, b| {
            let d = T::sub(a, b);
            T::mul(d, d)
        }),
    }
}

/// String `Add`: concatenation, with broadcasting.
fn concat_strings(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let bc = Bcast::new(x.shape(), y.shape())?;
    let out = bc.map(
        x.as_slice::<weir_graph::Bytes>()?,
        y.as_slice::<weir_graph::Bytes>()?,
        |p, q| {
            let mut v = Vec::with_capacity(p.len() + q.len());
            v.extend_from_slice(p);
            v.extend_from_slice(q);
            weir_graph::Bytes::from(v)
        },
    );
    Tensor::from_vec(&bc.out_shape, out)
}

struct BinaryKernel(BinOp);

impl Kernel for BinaryKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (x, y) = (ctx.take_input(0), ctx.take_input(1));
        let dt = x.dtype();
        let out = if dt == DType::String {
            concat_strings(&x, &y)?
        } else {
            weir_graph::match_real_dtype!(dt, T => apply::<T>(self.0, x, y)?,
                _ => weir_graph::match_half_dtype!(dt, T => apply::<T>(self.0, x, y)?,
                _ => weir_graph::match_complex_dtype!(dt, T => binary_complex::apply::<T>(self.0, x, y)?,
                _ => return Err(Error::invalid_argument(format!("Unsupported dtype {dt}"))))))
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

// The types of TensorFlow's CPU kernels for each op.
const OPS: &[(&str, BinOp, &[DType])] = &[
    ("AddV2", BinOp::Add, ALL_NUMBERS),
    ("Add", BinOp::Add, ADD_TYPES),
    ("Sub", BinOp::Sub, ALL_NUMBERS),
    ("Mul", BinOp::Mul, ALL_NUMBERS),
    ("RealDiv", BinOp::Div, FLOAT_COMPLEX),
    ("Div", BinOp::Div, ALL_NUMBERS),
    ("DivNoNan", BinOp::DivNoNan, FLOAT_COMPLEX),
    ("TruncateDiv", BinOp::TruncDiv, REAL_AND_HALF),
    ("FloorDiv", BinOp::FloorDiv, REAL_AND_HALF),
    ("FloorMod", BinOp::FloorMod, REAL_AND_HALF),
    ("TruncateMod", BinOp::TruncMod, DType::REAL_NUMBER),
    ("Pow", BinOp::Pow, ALL_NUMBERS),
    ("Maximum", BinOp::Max, REAL_AND_HALF),
    ("Minimum", BinOp::Min, REAL_AND_HALF),
    ("SquaredDifference", BinOp::SqDiff, ALL_NUMBERS),
];

const ADD_TYPES: &[DType] = &[
    DType::F32,
    DType::F64,
    DType::I8,
    DType::I16,
    DType::I32,
    DType::I64,
    DType::U8,
    DType::U16,
    DType::F16,
    DType::BF16,
    DType::C64,
    DType::C128,
    DType::String,
];

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let op = OPS
        .iter()
        .find(|(name, _, _)| *name == node.op_type())
        .map(|&(_, op, _)| op)
        .ok_or_else(|| Error::internal(format!("not a binary op: {}", node.op_type())))?;
    Ok(Box::new(BinaryKernel(op)))
}

pub(super) fn register() {
    for &(name, _, types) in OPS {
        register_op(
            OpDef::new(name)
                .input("x", ArgType::Attr("T"))
                .input("y", ArgType::Attr("T"))
                .output("z", ArgType::Attr("T"))
                .type_attr("T", types)
                .shape_fn(broadcast_shape_fn),
        );
        register_kernel(name, make);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run<T: Arith>(op: BinOp, x: Vec<T>, y: Vec<T>) -> Result<Vec<T>> {
        apply::<T>(
            op,
            Tensor::from_vec(&[x.len()], x)?,
            Tensor::from_vec(&[y.len()], y)?,
        )?
        .to_vec::<T>()
    }

    #[test]
    fn integer_division_follows_tensorflow() {
        let x = vec![7i32, -7, 7, -7];
        let y = vec![2i32, 2, -2, -2];
        assert_eq!(
            run(BinOp::Div, x.clone(), y.clone()).unwrap(),
            vec![3, -3, -3, 3]
        );
        assert_eq!(
            run(BinOp::FloorDiv, x.clone(), y.clone()).unwrap(),
            vec![3, -4, -4, 3]
        );
        assert_eq!(
            run(BinOp::FloorMod, x.clone(), y.clone()).unwrap(),
            vec![1, 1, -1, -1]
        );
        assert_eq!(run(BinOp::TruncMod, x, y).unwrap(), vec![1, -1, 1, -1]);
        for op in [
            BinOp::Div,
            BinOp::FloorDiv,
            BinOp::FloorMod,
            BinOp::TruncMod,
        ] {
            let e = run(op, vec![1u8, 2], vec![1u8, 0]).unwrap_err();
            assert_eq!(e.message(), "Integer division by zero");
        }
        assert_eq!(
            run(BinOp::Div, vec![i32::MIN], vec![-1]).unwrap(),
            vec![i32::MIN]
        );
        assert_eq!(
            run(BinOp::FloorDiv, vec![i32::MIN], vec![-1]).unwrap(),
            vec![i32::MIN]
        );
    }

    #[test]
    fn float_division_and_modulo() {
        let r = run(
            BinOp::FloorMod,
            vec![7.5f64, -7.5, 7.5],
            vec![2.0, 2.0, -2.0],
        )
        .unwrap();
        assert_eq!(r, vec![1.5, 0.5, -0.5]);
        let r = run(BinOp::FloorDiv, vec![7.5f32, -7.5], vec![2.0, 2.0]).unwrap();
        assert_eq!(r, vec![3.0, -4.0]);
        let r = run(BinOp::Div, vec![1.0f32, -1.0, 0.0], vec![0.0, 0.0, 0.0]).unwrap();
        assert_eq!(r[0], f32::INFINITY);
        assert_eq!(r[1], f32::NEG_INFINITY);
        assert!(r[2].is_nan());
    }

    #[test]
    fn pow_wraps_and_rejects_negative_exponents() {
        assert_eq!(
            run(BinOp::Pow, vec![2i32, 3, 0, -2], vec![10, 0, 0, 3]).unwrap(),
            vec![1024, 1, 1, -8]
        );
        assert_eq!(run(BinOp::Pow, vec![2i8], vec![7]).unwrap(), vec![-128]);
        let e = run(BinOp::Pow, vec![2i64], vec![-1]).unwrap_err();
        assert_eq!(
            e.message(),
            "Integers to negative integer powers are not allowed"
        );
        assert_eq!(
            run(BinOp::Pow, vec![2.0f32], vec![-1.0]).unwrap(),
            vec![0.5]
        );
    }

    #[test]
    fn max_min_propagate_nan_and_ints_wrap() {
        let r = run(
            BinOp::Max,
            vec![f32::NAN, 1.0, 3.0],
            vec![0.0, f32::NAN, 2.0],
        )
        .unwrap();
        assert!(r[0].is_nan() && r[1].is_nan());
        assert_eq!(r[2], 3.0);
        let r = run(BinOp::Min, vec![f64::NAN, 1.0], vec![0.0, f64::NAN]).unwrap();
        assert!(r[0].is_nan() && r[1].is_nan());
        assert_eq!(
            run(BinOp::Add, vec![i32::MAX], vec![1]).unwrap(),
            vec![i32::MIN]
        );
        assert_eq!(run(BinOp::Sub, vec![0u8], vec![1]).unwrap(), vec![255]);
        assert_eq!(run(BinOp::Mul, vec![100i8], vec![2]).unwrap(), vec![-56]);
        assert_eq!(
            run(BinOp::SqDiff, vec![1i32, 5], vec![4, 2]).unwrap(),
            vec![9, 9]
        );
    }

    #[test]
    fn strings_concatenate() {
        let x = Tensor::from(vec!["a", "b"]);
        let y = Tensor::from("!");
        assert_eq!(
            concat_strings(&x, &y).unwrap().to_strings().unwrap(),
            vec!["a!", "b!"]
        );
    }
}
