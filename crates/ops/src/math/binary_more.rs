//! More elementwise binary ops of `tf.math`, with numpy broadcasting: `Atan2`, `Xlogy`, `Xdivy`,
//! `Xlog1py`, `MulNoNan`, `Mod`, `NextAfter`, and `ApproximateEqual` (which wants equal shapes).
//!
//! Semantics follow TensorFlow's CPU kernels: the `x*f(y)` ops are 0 wherever `x` is 0 (even
//! when `f(y)` is NaN or infinite), `MulNoNan` is 0 wherever `y` is 0, `Mod` is C's `fmod` for
//! floats and `%` for integers (integer division by zero is an error), `NextAfter` is C's
//! `nextafter`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef,
    Output, Result, Shape, Tensor, TensorType,
};

use num_traits::Float;
use weir_graph::{bf16, f16, Complex, HalfFloat};

use super::arith_ext::ComplexArith;
use super::bcast::{broadcast_shape_fn, broadcast_update};
use super::binary::Arith;

fn binary(op: &str, x: Output, y: Output) -> Result<Output> {
    let g = crate::util::same_graph(&[&x, &y])?.clone();
    crate::new_op(&g, op).input(x).input(y).build()?.output(0)
}

/// `binary`, under the name scope TensorFlow's Python wrapper opens (`xdivy/Xdivy`).
fn scoped(scope: &str, op: &str, x: Output, y: Output) -> Result<Output> {
    let g = crate::util::same_graph(&[&x, &y])?.clone();
    let _scope = g.name_scope(scope);
    binary(op, x, y)
}

/// `tf.math.atan2(y, x)` (op `Atan2`): the angle of the point `(x, y)`, in `[-pi, pi]`, with
/// broadcasting; note the argument order, `y` first, as in C.
pub fn atan2(y: impl Into<Output>, x: impl Into<Output>) -> Result<Output> {
    binary("Atan2", y.into(), x.into())
}

/// `tf.math.xlogy(x, y)` (op `Xlogy`): `x * log(y)`, and 0 wherever `x` is 0.
pub fn xlogy(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    binary("Xlogy", x.into(), y.into())
}

/// `tf.math.xdivy(x, y)` (op `Xdivy`, node `xdivy/Xdivy`): `x / y`, and 0 wherever `x` is 0.
pub fn xdivy(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    scoped("xdivy", "Xdivy", x.into(), y.into())
}

/// `tf.math.xlog1py(x, y)` (op `Xlog1py`, node `xlog1py/Xlog1py`): `x * log1p(y)`, and 0
/// wherever `x` is 0.
pub fn xlog1py(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    scoped("xlog1py", "Xlog1py", x.into(), y.into())
}

/// `tf.math.multiply_no_nan(x, y)` (op `MulNoNan`, node `multiply_no_nan`): `x * y`, and 0
/// wherever `y` is 0, even where `x` is NaN or infinite.
pub fn mul_no_nan(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    let (x, y) = (x.into(), y.into());
    let g = crate::util::same_graph(&[&x, &y])?.clone();
    crate::new_op(&g, "MulNoNan")
        .name("multiply_no_nan")
        .input(x)
        .input(y)
        .build()?
        .output(0)
}

/// The raw op `Mod` (`tf.raw_ops.Mod`): C's remainder, `fmod` for floats and `%` for integers,
/// so the result has the sign of `x`; integer division by zero is an error.
///
/// Not `tf.math.mod`: in Python that is `FloorMod` ([`super::floormod`]), whose result has the
/// sign of `y`. A function called `mod` would silently differ from it on negative operands, so
/// this one is named after the C semantics it has.
pub fn c_mod(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    binary("Mod", x.into(), y.into())
}

/// `tf.math.nextafter(x1, x2)` (op `NextAfter`): the next representable float after `x1` in the
/// direction of `x2`, like C's `nextafter`.
pub fn nextafter(x1: impl Into<Output>, x2: impl Into<Output>) -> Result<Output> {
    binary("NextAfter", x1.into(), x2.into())
}

/// `tf.raw_ops.ApproximateEqual(x, y)`: a bool tensor, true where `|x - y| < 1e-5`; `x` and
/// `y` must have the same shape (no broadcasting). [`ApproximateEqual`] sets the tolerance.
pub fn approximate_equal(x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
    ApproximateEqual::new().build(x, y)
}

/// The options of `tf.raw_ops.ApproximateEqual(x, y, tolerance=1e-5)`.
#[derive(Clone, Copy, Debug)]
pub struct ApproximateEqual {
    tolerance: f32,
}

impl Default for ApproximateEqual {
    fn default() -> Self {
        ApproximateEqual {
            tolerance: APPROXIMATE_EQUAL_TOLERANCE,
        }
    }
}

impl ApproximateEqual {
    /// TensorFlow's default tolerance, 1e-5.
    pub fn new() -> ApproximateEqual {
        ApproximateEqual::default()
    }

    /// Elements closer than `tolerance` compare equal.
    pub fn tolerance(mut self, tolerance: f32) -> ApproximateEqual {
        self.tolerance = tolerance;
        self
    }

    /// Adds the node.
    pub fn build(self, x: impl Into<Output>, y: impl Into<Output>) -> Result<Output> {
        let (x, y) = (x.into(), y.into());
        let g = crate::util::same_graph(&[&x, &y])?.clone();
        crate::new_op(&g, "ApproximateEqual")
            .input(x)
            .input(y)
            .attr("tolerance", self.tolerance)
            .build()?
            .output(0)
    }
}

/// The default `tolerance` of `ApproximateEqual`, TensorFlow's.
pub const APPROXIMATE_EQUAL_TOLERANCE: f32 = 1e-5;

#[derive(Clone, Copy, Debug, PartialEq)]
enum MoreOp {
    Atan2,
    Xlogy,
    Xdivy,
    Xlog1py,
    MulNoNan,
    Mod,
    NextAfter,
}

/// Float behaviour the kernels need beyond arithmetic, for `f32` and `f64`.
trait MoreFloat: num_traits::Float {
    fn next_after(x: Self, y: Self) -> Self;
}

macro_rules! next_after {
    ($($t:ty),*) => {$(
        impl MoreFloat for $t {
            fn next_after(x: Self, y: Self) -> Self {
                if x.is_nan() || y.is_nan() {
                    return x + y;
                }
                if x == y {
                    return y;
                }
                if x == 0.0 {
                    // The smallest subnormal, with the sign of the direction.
                    let tiny = <$t>::from_bits(1);
                    return if y > 0.0 { tiny } else { -tiny };
                }
                let bits = x.to_bits();
                // Away from zero when moving in the direction of x's sign.
                if (y > x) == (x > 0.0) {
                    <$t>::from_bits(bits + 1)
                } else {
                    <$t>::from_bits(bits - 1)
                }
            }
        }
    )*};
}
next_after!(f32, f64);

fn apply_float<T: MoreFloat + TensorType>(op: MoreOp, x: Tensor, y: Tensor) -> Result<Tensor> {
    let zero = <T as num_traits::Zero>::zero();
    match op {
        MoreOp::Atan2 => broadcast_update(x, y, |a: T, b: T| a.atan2(b)),
        MoreOp::Xlogy => {
            broadcast_update(x, y, |a: T, b: T| if a == zero { zero } else { a * b.ln() })
        }
        MoreOp::Xdivy => broadcast_update(x, y, |a: T, b: T| if a == zero { zero } else { a / b }),
        MoreOp::Xlog1py => broadcast_update(
            x,
            y,
            |a: T, b: T| {
                if a == zero {
                    zero
                } else {
                    a * b.ln_1p()
                }
            },
        ),
        MoreOp::MulNoNan => {
            broadcast_update(x, y, |a: T, b: T| if b == zero { zero } else { a * b })
        }
        // C's fmod, which Rust's `%` on floats is.
        MoreOp::Mod => broadcast_update(x, y, |a: T, b: T| a % b),
        MoreOp::NextAfter => broadcast_update(x, y, T::next_after),
    }
}

macro_rules! int_mod {
    ($name:ident, $t:ty) => {
        fn $name(x: Tensor, y: Tensor) -> Result<Tensor> {
            if y.as_slice::<$t>()?.contains(&0) {
                return Err(Error::invalid_argument("Integer division by zero"));
            }
            // `MIN % -1` overflows in C; wrapping gives its mathematical value, 0.
            broadcast_update(x, y, |a: $t, b: $t| a.wrapping_rem(b))
        }
    };
}
int_mod!(mod_i32, i32);
int_mod!(mod_i64, i64);

/// The half types: each function in float, rounded, then the product (or quotient) rounded
/// again, as `Eigen::half` evaluates `x * log(y)`.
fn apply_half<H: HalfFloat + Arith>(op: MoreOp, x: Tensor, y: Tensor) -> Result<Tensor> {
    let zero = H::default();
    let r = |v: f32| H::from_f32(v);
    match op {
        MoreOp::Atan2 => broadcast_update(x, y, |a: H, b: H| r(a.to_f32().atan2(b.to_f32()))),
        MoreOp::Xlogy => broadcast_update(x, y, move |a: H, b: H| {
            if a == zero {
                zero
            } else {
                H::mul(a, r(b.to_f32().ln()))
            }
        }),
        MoreOp::Xdivy => broadcast_update(
            x,
            y,
            move |a: H, b: H| {
                if a == zero {
                    zero
                } else {
                    H::div(a, b)
                }
            },
        ),
        MoreOp::Xlog1py => broadcast_update(x, y, move |a: H, b: H| {
            if a == zero {
                zero
            } else {
                H::mul(a, r(b.to_f32().ln_1p()))
            }
        }),
        MoreOp::MulNoNan => broadcast_update(
            x,
            y,
            move |a: H, b: H| {
                if b == zero {
                    zero
                } else {
                    H::mul(a, b)
                }
            },
        ),
        op => Err(Error::internal(format!("{op:?} does not take half types"))),
    }
}

/// The complex `MulNoNan` and `Xlogy` (`x * log(y)`, `log` being `std::log`:
/// `(ln|y|, arg y)`).
fn apply_complex<T: Float>(op: MoreOp, x: Tensor, y: Tensor) -> Result<Tensor>
where
    Complex<T>: TensorType + ComplexArith,
{
    let zero = <Complex<T>>::default();
    match op {
        MoreOp::MulNoNan => broadcast_update(x, y, move |a: Complex<T>, b: Complex<T>| {
            if b == zero {
                zero
            } else {
                <Complex<T>>::mul(a, b)
            }
        }),
        MoreOp::Xlogy => broadcast_update(x, y, move |a: Complex<T>, b: Complex<T>| {
            if a == zero {
                zero
            } else {
                <Complex<T>>::mul(a, Complex::new(b.re.hypot(b.im).ln(), b.im.atan2(b.re)))
            }
        }),
        op => Err(Error::internal(format!("{op:?} does not take complex"))),
    }
}

struct MoreKernel(MoreOp);

impl Kernel for MoreKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (x, y) = (ctx.take_input(0), ctx.take_input(1));
        let out = match x.dtype() {
            DType::F32 => apply_float::<f32>(self.0, x, y)?,
            DType::F64 => apply_float::<f64>(self.0, x, y)?,
            DType::I32 if self.0 == MoreOp::Mod => mod_i32(x, y)?,
            DType::I64 if self.0 == MoreOp::Mod => mod_i64(x, y)?,
            DType::F16 => apply_half::<f16>(self.0, x, y)?,
            DType::BF16 => apply_half::<bf16>(self.0, x, y)?,
            DType::C64 => apply_complex::<f32>(self.0, x, y)?,
            DType::C128 => apply_complex::<f64>(self.0, x, y)?,
            dt => return Err(Error::invalid_argument(format!("Unsupported dtype {dt}"))),
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

const MOD_TYPES: &[DType] = &[DType::I32, DType::I64, DType::F32, DType::F64];

const FLOAT_AND_HALF: &[DType] = &[DType::F32, DType::F64, DType::F16, DType::BF16];

const FLOAT_HALF_COMPLEX: &[DType] = &[
    DType::F32,
    DType::F64,
    DType::F16,
    DType::BF16,
    DType::C64,
    DType::C128,
];

// TensorFlow's kernels also take complex for `Xdivy` and `Xlog1py`; weir does not yet.
const OPS: &[(&str, MoreOp, &[DType])] = &[
    ("Atan2", MoreOp::Atan2, FLOAT_AND_HALF),
    ("Xlogy", MoreOp::Xlogy, FLOAT_HALF_COMPLEX),
    ("Xdivy", MoreOp::Xdivy, FLOAT_AND_HALF),
    ("Xlog1py", MoreOp::Xlog1py, FLOAT_AND_HALF),
    ("MulNoNan", MoreOp::MulNoNan, FLOAT_HALF_COMPLEX),
    ("Mod", MoreOp::Mod, MOD_TYPES),
    ("NextAfter", MoreOp::NextAfter, DType::FLOAT),
];

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let op = OPS
        .iter()
        .find(|(name, _, _)| *name == node.op_type())
        .map(|&(_, op, _)| op)
        .ok_or_else(|| Error::internal(format!("not a binary op: {}", node.op_type())))?;
    Ok(Box::new(MoreKernel(op)))
}

/// TensorFlow's `InferenceContext::Merge` of two partial shapes, with its messages.
pub(crate) fn merge_shapes(a: &Shape, b: &Shape) -> Result<Shape> {
    let (Some(da), Some(db)) = (a.dims(), b.dims()) else {
        return a.merge_with(b);
    };
    if da.len() != db.len() {
        return Err(Error::invalid_argument(format!(
            "Shapes must be equal rank, but are {} and {}",
            da.len(),
            db.len()
        )));
    }
    for (i, (x, y)) in da.iter().zip(db).enumerate() {
        if let (Some(x), Some(y)) = (x, y) {
            if x != y {
                return Err(Error::invalid_argument(format!(
                    "Dimension {i} in both shapes must be equal, but are {x} and {y}. Shapes are {a} and {b}."
                )));
            }
        }
    }
    a.merge_with(b)
}

/// TensorFlow's: the inputs must merge, and the output has `x`'s shape (not the merge).
fn approximate_equal_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    merge_shapes(ctx.input_shape(0), ctx.input_shape(1))?;
    let s = ctx.input_shape(0).clone();
    ctx.set_output(0, s);
    Ok(())
}

struct ApproximateEqualKernel {
    tolerance: f32,
}

fn approx<T: MoreFloat + TensorType>(x: &Tensor, y: &Tensor, tol: T) -> Result<Tensor> {
    let (xs, ys) = (x.as_slice::<T>()?, y.as_slice::<T>()?);
    let out: Vec<bool> = xs
        .iter()
        .zip(ys)
        .map(|(&a, &b)| (a - b).abs() < tol)
        .collect();
    Tensor::from_vec(x.shape(), out)
}

impl Kernel for ApproximateEqualKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (x, y) = (ctx.input(0), ctx.input(1));
        if x.shape() != y.shape() {
            return Err(Error::invalid_argument(format!(
                "x and y must be of the same shape. x shape: {}. y shape: {}",
                weir_graph::format_dims(x.shape()),
                weir_graph::format_dims(y.shape())
            )));
        }
        let out = match x.dtype() {
            // TensorFlow compares in T, with the float attribute converted to T.
            DType::F32 => approx::<f32>(x, y, self.tolerance)?,
            DType::F64 => approx::<f64>(x, y, f64::from(self.tolerance))?,
            dt => return Err(Error::internal(format!("ApproximateEqual kernel for {dt}"))),
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// TensorFlow's OpDef takes every number type, but its CPU kernels only floats: other types
/// fail when the session makes the kernel, as TensorFlow's missing kernel does.
fn make_approximate_equal(node: &Node) -> Result<Box<dyn Kernel>> {
    let dt: DType = node.attr("T")?;
    let tolerance: f32 = node.attr("tolerance")?;
    if !dt.is_floating() {
        return Err(Error::invalid_argument(format!(
            "No OpKernel was registered to support Op 'ApproximateEqual' used by {{{{node {}}}}} with these attrs: [tolerance={tolerance}, T={}]\nRegistered devices: [CPU]\nRegistered kernels:\n  device='CPU'; T in [DT_DOUBLE]\n  device='CPU'; T in [DT_FLOAT]\n",
            node.name(),
            dt.proto_name()
        )));
    }
    Ok(Box::new(ApproximateEqualKernel { tolerance }))
}

pub(super) fn register() {
    for &(name, _, types) in OPS {
        let (x, y, z) = match name {
            "Atan2" => ("y", "x", "z"),
            "NextAfter" => ("x1", "x2", "output"),
            _ => ("x", "y", "z"),
        };
        let def = OpDef::new(name)
            .input(x, ArgType::Attr("T"))
            .input(y, ArgType::Attr("T"))
            .output(z, ArgType::Attr("T"))
            .type_attr("T", types)
            .shape_fn(broadcast_shape_fn);
        register_op(def);
        register_kernel(name, make);
    }
    register_op(
        OpDef::new("ApproximateEqual")
            .input("x", ArgType::Attr("T"))
            .input("y", ArgType::Attr("T"))
            .output("z", ArgType::Fixed(DType::Bool))
            .type_attr("T", DType::REAL_NUMBER)
            .attr(
                "tolerance",
                AttrKind::Float,
                Some(AttrValue::Float(APPROXIMATE_EQUAL_TOLERANCE)),
            )
            .shape_fn(approximate_equal_shape_fn),
    );
    register_kernel("ApproximateEqual", make_approximate_equal);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_after_steps_one_ulp_and_crosses_zero() {
        assert_eq!(f32::next_after(1.0, 2.0), 1.0 + f32::EPSILON);
        assert_eq!(f64::next_after(1.0, 0.0), 1.0 - f64::EPSILON / 2.0);
        assert_eq!(f32::next_after(0.0, -1.0), -f32::from_bits(1));
        assert_eq!(f64::next_after(-f64::from_bits(1), 1.0), 0.0);
        assert_eq!(f32::next_after(-1.0, -2.0), -(1.0 + f32::EPSILON));
        assert_eq!(f32::next_after(f32::MAX, f32::INFINITY), f32::INFINITY);
        assert!(f64::next_after(f64::NAN, 0.0).is_nan());
        assert_eq!(f64::next_after(2.0, 2.0), 2.0);
    }

    #[test]
    fn merge_reports_tensorflow_messages() {
        let e = merge_shapes(&Shape::known(&[2]), &Shape::known(&[3])).unwrap_err();
        assert_eq!(
            e.message(),
            "Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are [2] and [3]."
        );
        let e = merge_shapes(&Shape::known(&[2]), &Shape::scalar()).unwrap_err();
        assert_eq!(e.message(), "Shapes must be equal rank, but are 1 and 0");
        let m = merge_shapes(&Shape::new(vec![None, Some(2)]), &Shape::known(&[4, 2])).unwrap();
        assert_eq!(m, Shape::known(&[4, 2]));
    }
}
