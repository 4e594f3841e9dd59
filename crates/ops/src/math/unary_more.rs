//! More elementwise float ops of `tf.math`: the trigonometric and hyperbolic functions and
//! their inverses (`Tan`, `Asin`, `Acos`, `Atan`, `Sinh`, `Cosh`, `Asinh`, `Acosh`, `Atanh`),
//! `Expm1`, `Rint` (round half to even) and `Inv`, the deprecated alias kernel of
//! `Reciprocal` that imported graphs still name.
//!
//! float32 inputs are evaluated in float64 and rounded once, which is within TensorFlow's
//! float32 kernels' ulp or two; float16 and bfloat16 take that float32 value and round it
//! again, as Eigen computes its half types in float32; complex inputs use
//! [`super::unary::complex`].

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, DType, Error, Kernel, Node, OpContext, OpDef, Output, Result};

use super::bcast::unary_update;

use super::unary::complex::{self, CFn};
use super::unary::{builders, half_update_daz, no_kernel, same_shape, FLOATS, FLOAT_COMPLEX};

builders! {
    /// `tf.math.tan(x)` (op `Tan`).
    tan => "Tan";
    /// `tf.math.asin(x)` (op `Asin`): NaN outside [-1, 1].
    asin => "Asin";
    /// `tf.math.acos(x)` (op `Acos`): NaN outside [-1, 1].
    acos => "Acos";
    /// `tf.math.atan(x)` (op `Atan`).
    atan => "Atan";
    /// `tf.math.sinh(x)` (op `Sinh`).
    sinh => "Sinh";
    /// `tf.math.cosh(x)` (op `Cosh`).
    cosh => "Cosh";
    /// `tf.math.asinh(x)` (op `Asinh`).
    asinh => "Asinh";
    /// `tf.math.acosh(x)` (op `Acosh`): NaN below 1.
    acosh => "Acosh";
    /// `tf.math.atanh(x)` (op `Atanh`): +-inf at +-1, NaN beyond.
    atanh => "Atanh";
    /// `tf.math.expm1(x)`: `exp(x) - 1`, accurate for small `x` (op `Expm1`).
    expm1 => "Expm1";
    /// `tf.math.rint(x)`: to the nearest integer, halves to even (op `Rint`).
    rint => "Rint";
    /// TensorFlow's deprecated `Inv(x)` op, `1 / x` (`gen_math_ops.inv`; the kernel of
    /// `Reciprocal` under its old name, which graphs written by old TensorFlow contain).
    inv => "Inv";
}

/// A float64 function of one argument.
type Scalar = fn(f64) -> f64;

/// Each op's float64 function and complex function (`None`: no complex kernel).
const OPS: [(&str, Scalar, Option<CFn>); 12] = [
    ("Tan", f64::tan, Some(CFn::Tan)),
    ("Asin", f64::asin, None),
    ("Acos", f64::acos, None),
    ("Atan", f64::atan, None),
    ("Sinh", f64::sinh, Some(CFn::Sinh)),
    ("Cosh", f64::cosh, Some(CFn::Cosh)),
    ("Asinh", asinh_f64, None),
    ("Acosh", acosh_f64, None),
    ("Atanh", atanh_f64, None),
    ("Expm1", f64::exp_m1, Some(CFn::Expm1)),
    ("Rint", f64::round_ties_even, None),
    ("Inv", |v| 1.0 / v, Some(CFn::Reciprocal)),
];

/// The op def's type list of `name`: TensorFlow's (`Rint` takes no complex, `Inv` takes the
/// signed integers too, though no kernel does), except that weir's inverse trigonometric and
/// hyperbolic functions do not take complex yet.
fn types(name: &str) -> &'static [DType] {
    match name {
        "Rint" | "Asin" | "Acos" | "Atan" | "Asinh" | "Acosh" | "Atanh" => FLOATS,
        "Inv" => &[
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
        ],
        _ => FLOAT_COMPLEX,
    }
}

/// `asinh` without the overflow of `x²` for large `|x|` or the cancellation of
/// `ln(x + sqrt(x² + 1))` for negative `x` (odd symmetry) and tiny `x` (`log1p`).
fn asinh_f64(x: f64) -> f64 {
    let a = x.abs();
    let r = if a > 1e150 {
        a.ln() + std::f64::consts::LN_2
    } else {
        // ln(a + sqrt(a² + 1)) = log1p(a + a² / (1 + sqrt(1 + a²))).
        (a + a * a / (1.0 + (a * a + 1.0).sqrt())).ln_1p()
    };
    r.copysign(x)
}

/// `acosh` for `x >= 1` (NaN below): `log1p` of the distance above 1 keeps `x` near 1 exact.
fn acosh_f64(x: f64) -> f64 {
    if x < 1.0 {
        f64::NAN
    } else if x > 1e150 {
        x.ln() + std::f64::consts::LN_2
    } else {
        let t = x - 1.0;
        (t + (2.0 * t + t * t).sqrt()).ln_1p()
    }
}

/// `atanh(x) = log1p(2x / (1 - x)) / 2` on `|x|`, with the sign restored.
fn atanh_f64(x: f64) -> f64 {
    let a = x.abs();
    (0.5 * (2.0 * a / (1.0 - a)).ln_1p()).copysign(x)
}

struct MoreKernel(Scalar, Option<CFn>);

impl Kernel for MoreKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0);
        let f = self.0;
        let out = match (x.dtype(), self.1) {
            (DType::F64, _) => unary_update(x, f)?,
            (DType::F32, _) => unary_update(x, |v: f32| f(v as f64) as f32)?,
            // TensorFlow calls the C library's float functions here, which return tiny
            // (denormal) arguments as they are rather than flushing them.
            // `Inv` is Eigen's division, which flushes them.
            (DType::F16 | DType::BF16, cf) => {
                let daz = cf == Some(CFn::Reciprocal);
                half_update_daz(x, daz, |v| f(v as f64) as f32)?
            }
            (DType::C64 | DType::C128, Some(cf)) => complex::apply(cf, x)?,
            (dt, _) => {
                return Err(Error::invalid_argument(format!(
                    "Unsupported dtype {dt}: this kernel takes float or double"
                )))
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let (name, f, cf) = OPS
        .iter()
        .find(|(name, ..)| *name == node.op_type())
        .copied()
        .ok_or_else(|| Error::internal(format!("not a unary op: {}", node.op_type())))?;
    match name {
        // TensorFlow registers `Rint` for float and double only.
        "Rint" => no_kernel(node, &[DType::F64, DType::F32])?,
        "Inv" => no_kernel(
            node,
            &[
                DType::C128,
                DType::C64,
                DType::BF16,
                DType::F64,
                DType::F16,
                DType::F32,
            ],
        )?,
        _ => {}
    }
    Ok(Box::new(MoreKernel(f, cf)))
}

pub(super) fn register() {
    for (name, ..) in OPS {
        register_op(
            OpDef::new(name)
                .input("x", ArgType::Attr("T"))
                .output("y", ArgType::Attr("T"))
                .type_attr("T", types(name))
                .shape_fn(same_shape),
        );
        register_kernel(name, make);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_hyperbolics_at_the_edges() {
        assert_eq!(asinh_f64(-0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(asinh_f64(1e-300), 1e-300);
        assert_eq!(asinh_f64(f64::NEG_INFINITY), f64::NEG_INFINITY);
        assert!((asinh_f64(-2.0) + 1.4436354751788103).abs() < 4e-16);
        assert_eq!(acosh_f64(1.0), 0.0);
        // log(x + sqrt(x² - 1)) would lose half the digits here (mpmath: 2.6629259356881157e-4).
        assert_eq!(acosh_f64(1.000000035455873), 0.00026629259356881157);
        assert!(acosh_f64(0.5).is_nan());
        assert!((acosh_f64(1e200) - 461.2101657793691).abs() < 1e-12);
        assert_eq!(atanh_f64(1.0), f64::INFINITY);
        assert_eq!(atanh_f64(-1.0), f64::NEG_INFINITY);
        assert!(atanh_f64(1.5).is_nan());
        assert_eq!(f64::round_ties_even(2.5), 2.0);
    }
}
