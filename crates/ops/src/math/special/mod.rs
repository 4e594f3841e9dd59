//! TensorFlow's special functions (`tf.math.erf`, `lgamma`, `digamma`, `zeta`, `polygamma`,
//! `tf.math.special.bessel_i0e`, ...): the ops `Erf`, `Erfc`, `Erfinv`, `Ndtri`, `Lgamma`,
//! `Digamma`, `BesselI0e`, `BesselI1e`, and the broadcasting binary ops `Zeta` and
//! `Polygamma`, for float32 and float64, and the unary ones for float16 and (`Erf`, `Erfc`)
//! bfloat16 where TensorFlow has those kernels.
//!
//! The numerics are weir's own float64 implementations (one file per family); float32 inputs
//! are evaluated in float64 and rounded, which stays within TensorFlow's float32 kernels' few
//! ulp; the half types round that float32 value again, as Eigen computes them in float32.

mod bessel;
mod erf;
mod gamma;
pub mod special_more;

// TensorFlow 2's `tf.math.bessel_i0`/`bessel_i1` are the `BesselI0`/`BesselI1` ops (TensorFlow 1
// composed them as `exp(|x|) * bessel_i0e(x)`).
pub use special_more::{bessel_i0, bessel_i1};

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, DType, Error, Kernel, Node, OpContext, OpDef, Output, Result};

use super::bcast::{broadcast_shape_fn, broadcast_update, unary_update};
use super::unary::{half_update, no_kernel, same_shape, unary, FLOATS};

/// `op(x)` under the name scope TensorFlow's Python wrapper opens.
fn scoped_unary(scope: &str, op: &str, x: Output) -> Result<Output> {
    let g = x.graph().clone();
    let _scope = g.name_scope(scope);
    unary(op, x)
}

fn binary(op: &str, a: Output, b: Output) -> Result<Output> {
    let g = crate::util::same_graph(&[&a, &b])?.clone();
    crate::new_op(&g, op).input(a).input(b).build()?.output(0)
}

/// `tf.math.erf(x)`: the error function (op `Erf`).
pub fn erf(x: impl Into<Output>) -> Result<Output> {
    unary("Erf", x.into())
}

/// `tf.math.erfc(x)`: `1 - erf(x)`, accurate in the tail (op `Erfc`).
pub fn erfc(x: impl Into<Output>) -> Result<Output> {
    unary("Erfc", x.into())
}

/// `tf.math.erfinv(x)`: the inverse error function (op `Erfinv` in scope `erfinv`); +-inf at
/// +-1, NaN outside [-1, 1].
pub fn erfinv(x: impl Into<Output>) -> Result<Output> {
    scoped_unary("erfinv", "Erfinv", x.into())
}

/// `tf.math.ndtri(x)`: the standard normal quantile (op `Ndtri` in scope `ndtri`).
pub fn ndtri(x: impl Into<Output>) -> Result<Output> {
    scoped_unary("ndtri", "Ndtri", x.into())
}

/// `tf.math.lgamma(x)`: `log|Gamma(x)|` (op `Lgamma`); +inf at the poles.
pub fn lgamma(x: impl Into<Output>) -> Result<Output> {
    unary("Lgamma", x.into())
}

/// `tf.math.digamma(x)`: the derivative of `lgamma` (op `Digamma`); NaN at the poles.
pub fn digamma(x: impl Into<Output>) -> Result<Output> {
    unary("Digamma", x.into())
}

/// `tf.math.special.bessel_i0e(x)`: `exp(-|x|) I0(x)` (op `BesselI0e` in scope `bessel_i0e`).
pub fn bessel_i0e(x: impl Into<Output>) -> Result<Output> {
    scoped_unary("bessel_i0e", "BesselI0e", x.into())
}

/// `tf.math.special.bessel_i1e(x)`: `exp(-|x|) I1(x)` (op `BesselI1e` in scope `bessel_i1e`).
pub fn bessel_i1e(x: impl Into<Output>) -> Result<Output> {
    scoped_unary("bessel_i1e", "BesselI1e", x.into())
}

/// `tf.math.zeta(x, q)`: the Hurwitz zeta function `sum_k (k + q)^-x`, with broadcasting (op
/// `Zeta`).
pub fn zeta(x: impl Into<Output>, q: impl Into<Output>) -> Result<Output> {
    binary("Zeta", x.into(), q.into())
}

/// `tf.math.polygamma(a, x)`: the `a`-th derivative of `digamma` at `x`, with broadcasting
/// (op `Polygamma`); NaN where `a` is not a non-negative integer.
pub fn polygamma(a: impl Into<Output>, x: impl Into<Output>) -> Result<Output> {
    binary("Polygamma", a.into(), x.into())
}

/// How an op evaluates: a float64 function (with a float32 one where TensorFlow's float32
/// kernel is not just the float64 value rounded), or a broadcasting binary function and its
/// input names.
#[derive(Clone, Copy)]
enum Eval {
    Unary(fn(f64) -> f64, Option<fn(f32) -> f32>),
    Binary(fn(f64, f64) -> f64, &'static str, &'static str),
}

const OPS: [(&str, Eval); 10] = [
    ("Erf", Eval::Unary(erf_f64_kernel, Some(erf_f32_kernel))),
    ("Erfc", Eval::Unary(erf::erfc, None)),
    ("Erfinv", Eval::Unary(erf::erfinv, Some(erf::erfinv_f32))),
    ("Ndtri", Eval::Unary(erf::ndtri, None)),
    ("Lgamma", Eval::Unary(gamma::lgamma, None)),
    ("Digamma", Eval::Unary(gamma::digamma, None)),
    ("BesselI0e", Eval::Unary(bessel::bessel_i0e, None)),
    ("BesselI1e", Eval::Unary(bessel::bessel_i1e, None)),
    ("Zeta", Eval::Binary(gamma::zeta, "x", "q")),
    ("Polygamma", Eval::Binary(gamma::polygamma, "a", "x")),
];

/// TensorFlow 2.21's float64 `Erf` kernel evaluates a rational function whose terms overflow
/// beyond this `|x|` (just under `sqrt(f64::MAX)`), and so returns NaN there and at +-inf;
/// weir's kernel returns what TensorFlow's does.
const ERF_F64_FINITE_UP_TO: f64 = 1.3407807830046642e154;

fn erf_f64_kernel(x: f64) -> f64 {
    if x.abs() > ERF_F64_FINITE_UP_TO {
        f64::NAN
    } else {
        erf::erf(x)
    }
}

/// float32 `Erf` clamps instead: +-1 at +-inf; and, an odd polynomial in TensorFlow, keeps
/// the sign of a zero.
fn erf_f32_kernel(x: f32) -> f32 {
    (erf::erf(x as f64) as f32).copysign(x)
}

struct SpecialKernel(Eval);

fn unsupported(dt: DType) -> Error {
    Error::invalid_argument(format!(
        "Unsupported dtype {dt}: this kernel takes float or double"
    ))
}

impl Kernel for SpecialKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0);
        let out = match (self.0, x.dtype()) {
            (Eval::Unary(f, _), DType::F64) => unary_update(x, f)?,
            (Eval::Unary(_, Some(f32_fn)), DType::F32) => unary_update(x, f32_fn)?,
            (Eval::Unary(f, None), DType::F32) => unary_update(x, |v: f32| f(v as f64) as f32)?,
            (Eval::Unary(_, Some(f32_fn)), DType::F16 | DType::BF16) => half_update(x, f32_fn)?,
            (Eval::Unary(f, None), DType::F16 | DType::BF16) => {
                half_update(x, |v| f(v as f64) as f32)?
            }
            (Eval::Binary(f, ..), DType::F64) => broadcast_update(x, ctx.take_input(1), f)?,
            (Eval::Binary(f, ..), DType::F32) => {
                broadcast_update(x, ctx.take_input(1), |a: f32, b: f32| {
                    f(a as f64, b as f64) as f32
                })?
            }
            (_, other) => return Err(unsupported(other)),
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let eval = OPS
        .iter()
        .find(|(name, _)| *name == node.op_type())
        .map(|&(_, eval)| eval)
        .ok_or_else(|| Error::internal(format!("not a special function: {}", node.op_type())))?;
    if let Eval::Unary(..) = eval {
        no_kernel(node, kernels(node.op_type()))?;
    }
    Ok(Box::new(SpecialKernel(eval)))
}

/// TensorFlow's CPU kernels of the unary special functions, in the order its "Registered
/// kernels" message lists them: every op def takes both half types, but only `Erf` and `Erfc`
/// have a bfloat16 kernel, and `Erfinv` and `Ndtri` no half one.
fn kernels(op: &str) -> &'static [DType] {
    match op {
        "Erf" | "Erfc" => FLOATS,
        "Erfinv" | "Ndtri" => &[DType::F64, DType::F32],
        "Lgamma" | "Digamma" => &[DType::F64, DType::F16, DType::F32],
        _ => &[DType::F64, DType::F32, DType::F16],
    }
}

pub(super) fn register() {
    special_more::register();
    for (name, eval) in OPS {
        let def = match eval {
            Eval::Binary(_, a, b) => OpDef::new(name)
                .input(a, ArgType::Attr("T"))
                .input(b, ArgType::Attr("T"))
                .output("z", ArgType::Attr("T"))
                .type_attr("T", DType::FLOAT)
                .shape_fn(broadcast_shape_fn),
            Eval::Unary(..) => OpDef::new(name)
                .input("x", ArgType::Attr("T"))
                .output("y", ArgType::Attr("T"))
                .type_attr("T", FLOATS)
                .shape_fn(same_shape),
        };
        register_op(def);
        register_kernel(name, make);
    }
}
