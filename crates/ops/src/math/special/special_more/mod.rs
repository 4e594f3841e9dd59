//! The rest of `tf.math.special`: the ops `BesselI0`, `BesselI1`, `BesselK0`, `BesselK0e`,
//! `BesselK1`, `BesselK1e`, `BesselJ0`, `BesselJ1`, `BesselY0`, `BesselY1` (float16, float32,
//! float64 kernels, as TensorFlow registers them) and `Dawsn`, `Expint`, `FresnelCos`,
//! `FresnelSin`, `Spence` (float32 and float64), with their builders.
//!
//! TensorFlow's kernels are Eigen's ports of Cephes, which evaluate each type in that type
//! (float16 through float32); weir follows the same algorithms in the same order (see
//! `bessel.rs`, `misc.rs`), under TensorFlow's flush-to-zero float environment. That gives
//! TensorFlow's values bit for bit, except for the float32 Bessel functions, which TensorFlow
//! vectorizes with Eigen's own `exp`, `log`, `sin`, `cos` (a few ulp from the C library's).

mod bessel;
mod coef;
mod misc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, DType, Error, Kernel, Node, OpContext, OpDef, Output, Result};

use super::super::bcast::unary_update;
use super::super::unary::{half_update, no_kernel, same_shape, FLOATS};
use super::scoped_unary;

/// The float arithmetic the Cephes ports are written in, for both float types.
pub(super) trait Real:
    Copy
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
{
    const INFINITY: Self;
    const NAN: Self;
    /// A float64 constant rounded to `Self`, as C++'s `Scalar(literal)`.
    fn c(v: f64) -> Self;
    /// The constant written once per type (for literals C++ rounds once from long double).
    fn pick(single: f32, double: f64) -> Self;
    /// Eigen's `pmadd`, `self * b + c` with two roundings: TensorFlow's x86 build has no FMA.
    fn madd(self, b: Self, c: Self) -> Self;
    fn abs(self) -> Self;
    /// `self`, or a zero of its sign if subnormal, as TensorFlow's flush-to-zero arithmetic
    /// leaves an intermediate result.
    fn flush(self) -> Self;
    fn is_nan(self) -> bool;
    fn sqrt(self) -> Self;
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn ln_1p(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
}

macro_rules! real {
    ($t:ty, $pick:expr) => {
        impl Real for $t {
            const INFINITY: Self = <$t>::INFINITY;
            const NAN: Self = <$t>::NAN;
            fn c(v: f64) -> Self {
                v as $t
            }
            fn pick(single: f32, double: f64) -> Self {
                ($pick)(single, double)
            }
            fn madd(self, b: Self, c: Self) -> Self {
                self * b + c
            }
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn flush(self) -> Self {
                if self.is_subnormal() {
                    self * 0.0
                } else {
                    self
                }
            }
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn exp(self) -> Self {
                <$t>::exp(self)
            }
            fn ln(self) -> Self {
                <$t>::ln(self)
            }
            fn ln_1p(self) -> Self {
                <$t>::ln_1p(self)
            }
            fn sin(self) -> Self {
                <$t>::sin(self)
            }
            fn cos(self) -> Self {
                <$t>::cos(self)
            }
        }
    };
}
real!(f32, |s: f32, _: f64| s);
real!(f64, |_: f32, d: f64| d);

/// One op: its name, its Python function's name (the builder's name scope), its float32 and
/// float64 functions, and whether it has a float16 kernel (the Bessel functions do).
type Entry = (
    &'static str,
    &'static str,
    fn(f32) -> f32,
    fn(f64) -> f64,
    bool,
);

const OPS: [Entry; 15] = [
    (
        "BesselI0",
        "bessel_i0",
        |x| bessel::i0(&bessel::F32, x),
        |x| bessel::i0(&bessel::F64, x),
        true,
    ),
    (
        "BesselI1",
        "bessel_i1",
        |x| bessel::i1(&bessel::F32, x),
        |x| bessel::i1(&bessel::F64, x),
        true,
    ),
    (
        "BesselK0",
        "bessel_k0",
        |x| bessel::k0(&bessel::F32, x),
        |x| bessel::k0(&bessel::F64, x),
        true,
    ),
    (
        "BesselK0e",
        "bessel_k0e",
        |x| bessel::k0e(&bessel::F32, x),
        |x| bessel::k0e(&bessel::F64, x),
        true,
    ),
    (
        "BesselK1",
        "bessel_k1",
        |x| bessel::k1(&bessel::F32, x),
        |x| bessel::k1(&bessel::F64, x),
        true,
    ),
    (
        "BesselK1e",
        "bessel_k1e",
        |x| bessel::k1e(&bessel::F32, x),
        |x| bessel::k1e(&bessel::F64, x),
        true,
    ),
    (
        "BesselJ0",
        "bessel_j0",
        bessel::j0_f32,
        bessel::j0_f64,
        true,
    ),
    (
        "BesselJ1",
        "bessel_j1",
        bessel::j1_f32,
        bessel::j1_f64,
        true,
    ),
    (
        "BesselY0",
        "bessel_y0",
        bessel::y0_f32,
        bessel::y0_f64,
        true,
    ),
    (
        "BesselY1",
        "bessel_y1",
        bessel::y1_f32,
        bessel::y1_f64,
        true,
    ),
    ("Dawsn", "dawsn", misc::dawsn, misc::dawsn, false),
    ("Expint", "expint", misc::expint, misc::expint, false),
    (
        "FresnelCos",
        "fresnel_cos",
        misc::fresnel_cos,
        misc::fresnel_cos,
        false,
    ),
    (
        "FresnelSin",
        "fresnel_sin",
        misc::fresnel_sin,
        misc::fresnel_sin,
        false,
    ),
    ("Spence", "spence", misc::spence, misc::spence, false),
];

fn entry(op: &str) -> Result<Entry> {
    OPS.iter()
        .find(|e| e.0 == op)
        .copied()
        .ok_or_else(|| Error::internal(format!("not a special function: {op}")))
}

fn builder(op: &str, x: Output) -> Result<Output> {
    let (name, scope, ..) = entry(op)?;
    scoped_unary(scope, name, x)
}

macro_rules! builders {
    ($($(#[$doc:meta])* $name:ident => $op:literal;)*) => {$(
        $(#[$doc])*
        pub fn $name(x: impl Into<Output>) -> Result<Output> {
            builder($op, x.into())
        }
    )*};
}

builders! {
    /// `tf.math.special.bessel_i0(x)` (also `tf.math.bessel_i0`): the modified Bessel
    /// function `I0` (op `BesselI0` in scope `bessel_i0`).
    bessel_i0 => "BesselI0";
    /// `tf.math.special.bessel_i1(x)` (also `tf.math.bessel_i1`): `I1` (op `BesselI1`).
    bessel_i1 => "BesselI1";
    /// `tf.math.special.bessel_k0(x)`: the modified Bessel function of the second kind `K0`
    /// (op `BesselK0`); +inf for x <= 0.
    bessel_k0 => "BesselK0";
    /// `tf.math.special.bessel_k0e(x)`: `exp(x) K0(x)` (op `BesselK0e`).
    bessel_k0e => "BesselK0e";
    /// `tf.math.special.bessel_k1(x)`: `K1` (op `BesselK1`); +inf for x <= 0.
    bessel_k1 => "BesselK1";
    /// `tf.math.special.bessel_k1e(x)`: `exp(x) K1(x)` (op `BesselK1e`).
    bessel_k1e => "BesselK1e";
    /// `tf.math.special.bessel_j0(x)`: the Bessel function of the first kind `J0` (op
    /// `BesselJ0`).
    bessel_j0 => "BesselJ0";
    /// `tf.math.special.bessel_j1(x)`: `J1` (op `BesselJ1`).
    bessel_j1 => "BesselJ1";
    /// `tf.math.special.bessel_y0(x)`: the Bessel function of the second kind `Y0` (op
    /// `BesselY0`); -inf for x <= 0.
    bessel_y0 => "BesselY0";
    /// `tf.math.special.bessel_y1(x)`: `Y1` (op `BesselY1`); -inf for x < 0.
    bessel_y1 => "BesselY1";
    /// `tf.math.special.dawsn(x)`: Dawson's integral (op `Dawsn`).
    dawsn => "Dawsn";
    /// `tf.math.special.expint(x)`: the exponential integral `Ei` (op `Expint`); NaN for
    /// x < 0.
    expint => "Expint";
    /// `tf.math.special.fresnel_cos(x)`: the Fresnel cosine integral (op `FresnelCos`).
    fresnel_cos => "FresnelCos";
    /// `tf.math.special.fresnel_sin(x)`: the Fresnel sine integral (op `FresnelSin`).
    fresnel_sin => "FresnelSin";
    /// `tf.math.special.spence(x)`: Spence's function (op `Spence`); NaN for x < 0.
    spence => "Spence";
}

struct SpecialMoreKernel(Entry);

impl Kernel for SpecialMoreKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (name, _, f32_fn, f64_fn, _) = self.0;
        let negate_nan = name == "BesselK1";
        let x = ctx.take_input(0);
        let out = match x.dtype() {
            DType::F64 => unary_update(x, |v: f64| apply(f64_fn, negate_nan, v))?,
            DType::F32 => unary_update(x, |v: f32| apply(f32_fn, negate_nan, v))?,
            // Eigen widens a half to float32, evaluates the float32 version and rounds.
            DType::F16 => half_update(x, |v| apply(f32_fn, negate_nan, v))?,
            dt => {
                return Err(Error::invalid_argument(format!(
                    "Unsupported dtype {dt} for {}",
                    self.0 .0
                )))
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// `f(v)` under TensorFlow's float environment. A NaN comes back as it went in (the sign
/// of TensorFlow's NaN depends on the order of its vector instructions' operands; only
/// `BesselK1`'s result has it flipped).
fn apply<T: Real>(f: fn(T) -> T, negate_nan: bool, v: T) -> T {
    match (v.is_nan(), negate_nan) {
        (true, true) => -v,
        (true, false) => v,
        _ => flush(f(flush(v))),
    }
}

/// `v`, or a zero of its sign if subnormal: TensorFlow runs its CPU kernels with denormals
/// flushed to zero (DAZ and FTZ), so a subnormal argument acts as a zero (`K0(5e-324)` is
/// +inf) and a subnormal result becomes one.
fn flush<T: Real>(v: T) -> T {
    v.flush()
}

/// TensorFlow's CPU kernels, in the order its "Registered kernels" message lists them.
fn kernels(has_half: bool) -> &'static [DType] {
    if has_half {
        &[DType::F64, DType::F32, DType::F16]
    } else {
        &[DType::F64, DType::F32]
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let e = entry(node.op_type())?;
    no_kernel(node, kernels(e.4))?;
    Ok(Box::new(SpecialMoreKernel(e)))
}

pub(super) fn register() {
    for (name, ..) in OPS {
        register_op(
            OpDef::new(name)
                .input("x", ArgType::Attr("T"))
                .output("y", ArgType::Attr("T"))
                .type_attr("T", FLOATS)
                .shape_fn(same_shape),
        );
        register_kernel(name, make);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float64_values_match_50_digit_ones() {
        // (op, x, value from mpmath); Cephes' fits are good to a few ulp in float64.
        let cases = [
            ("BesselI0", 1.5, 1.646_723_189_772_891),
            ("BesselK1", 0.7, 1.050283535312918),
            ("BesselJ0", 3.0, -0.26005195490193345),
            ("BesselY1", 7.5, -0.25912851048611624),
            ("Dawsn", 1.0, 0.5380795069127684),
            ("Expint", 1.5, 3.301285449129798),
            ("FresnelCos", 1.2, 0.7154377229230734),
            ("FresnelSin", 3.0, 0.496312998967375),
            ("Spence", 0.5, 0.5822405264650125),
            ("Spence", 3.0, -1.4367463668836809),
        ];
        for (op, x, want) in cases {
            let (.., f64_fn, _) = entry(op).unwrap();
            let got = f64_fn(x);
            assert!(
                ((got - want) / want).abs() < 8.0 * f64::EPSILON,
                "{op}({x}) = {got}, not {want}"
            );
        }
    }

    #[test]
    fn edges_follow_tensorflow() {
        assert_eq!(misc::spence(0.0f64), 1.6449340668482264);
        assert_eq!(misc::spence(1.0f32), 0.0);
        assert!(misc::spence(-1.0f64).is_nan() && misc::expint(-1.0f32).is_nan());
        assert_eq!(misc::expint(0.0f64), f64::NEG_INFINITY);
        assert_eq!(misc::fresnel_sin(-1e6f64), -0.5);
        assert_eq!(bessel::k0(&bessel::F64, 0.0), f64::INFINITY);
        assert_eq!(bessel::y0_f32(-1.0), f32::NEG_INFINITY);
        // Eigen's float Y1 is -inf only below 0; at 0 it is `-inf * -0`.
        assert!(bessel::y1_f32(0.0).is_nan());
        assert_eq!(apply(misc::dawsn, false, 1e-310f64), 0.0);
    }
}
