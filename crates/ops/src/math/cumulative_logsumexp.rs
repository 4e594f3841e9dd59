//! `CumulativeLogsumexp`: running `log(sum(exp(x)))` along an axis, optionally exclusive and/or
//! reversed (TensorFlow's `tf.math.cumulative_logsumexp`); the builder is
//! [`Scan::logsumexp`](super::Scan::logsumexp).
//!
//! Each step combines the running value `a` with the next element `b` as TensorFlow's
//! `LogSumExp` functor does: `log1p(exp(min - max)) + max`, or `max` itself when it is `-inf`.
//! `min`/`max` follow `std::min`/`std::max`, so a NaN is kept only when it is the running
//! value (a NaN element after a finite running value is dropped, as in TensorFlow), and
//! `+inf` meeting `+inf` gives NaN.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    bf16, f16, ArgType, AttrKind, AttrValue, DType, Error, HalfFloat, InferenceContext, Kernel,
    Node, OpContext, OpDef, Result, Tensor,
};

use super::bcast::is_unique;
use super::scan::{scan, scan_axis};
use crate::array::shape_util::scalar_i64;

/// The arithmetic one `LogSumExp` step needs, in the element type's own rounding.
trait LogAdd: Copy + weir_graph::TensorType {
    const NEG_INF: Self;
    fn step(a: Self, b: Self) -> Self;
}

macro_rules! float_steps {
    ($($t:ty),*) => {$(
        impl LogAdd for $t {
            const NEG_INF: $t = <$t>::NEG_INFINITY;
            fn step(a: $t, b: $t) -> $t {
                // TensorFlow's CPU threads flush subnormal results to zero.
                let ftz = |v: $t| if v.is_subnormal() { 0.0 } else { v };
                let (a, b) = (ftz(a), ftz(b));
                let mi = if b < a { b } else { a };
                let ma = if a < b { b } else { a };
                if ma < <$t>::MIN {
                    ma
                } else {
                    ftz(ftz(ftz(ftz(mi - ma).exp()).ln_1p()) + ma)
                }
            }
        }
    )*};
}
float_steps!(f32, f64);

/// Half types round after every operation, as Eigen's scalar half ops do (each in float, with
/// float's subnormals flushed).
fn half_step<H: HalfFloat>(a: H, b: H) -> H {
    let (a, b) = (a.to_f32(), b.to_f32());
    let mi = if b < a { b } else { a };
    let ma = if a < b { b } else { a };
    if ma == f32::NEG_INFINITY {
        return H::from_f32(ma);
    }
    let r = |v: f32| H::from_f32(if v.is_subnormal() { 0.0 } else { v }).to_f32();
    let d = r(mi - ma);
    let e = r(d.exp());
    let l = r(e.ln_1p());
    H::from_f32(l + ma)
}

impl LogAdd for f16 {
    const NEG_INF: f16 = f16::NEG_INFINITY;
    fn step(a: f16, b: f16) -> f16 {
        half_step(a, b)
    }
}

impl LogAdd for bf16 {
    const NEG_INF: bf16 = bf16::NEG_INFINITY;
    fn step(a: bf16, b: bf16) -> bf16 {
        half_step(a, b)
    }
}

struct LogsumexpKernel {
    exclusive: bool,
    reverse: bool,
}

fn run<T: LogAdd>(k: &LogsumexpKernel, x: Tensor, n: usize, inner: usize) -> Result<Tensor> {
    let mut x = if is_unique::<T>(&x) {
        x
    } else {
        Tensor::from_vec(x.shape(), x.to_vec::<T>()?)?
    };
    let data = x.as_slice_mut::<T>()?;
    scan(data, n, inner, T::NEG_INF, T::step, k.exclusive, k.reverse);
    Ok(x)
}

impl Kernel for LogsumexpKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0);
        let axis = scan_axis(scalar_i64(ctx.input(1), "ScanOp: axis")?, x.rank())?;
        let shape = x.shape();
        let n = shape[axis];
        let inner: usize = shape[axis + 1..].iter().product();
        let out = match x.dtype() {
            DType::F32 => run::<f32>(self, x, n, inner)?,
            DType::F64 => run::<f64>(self, x, n, inner)?,
            DType::F16 => run::<f16>(self, x, n, inner)?,
            DType::BF16 => run::<bf16>(self, x, n, inner)?,
            dt => {
                return Err(Error::invalid_argument(format!(
                    "CumulativeLogsumexp takes floating-point tensors, got {dt}"
                )))
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// TensorFlow's `UnchangedShape`: a bad constant axis fails only when the op runs.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    ctx.set_output(0, s);
    Ok(())
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(LogsumexpKernel {
        exclusive: node.attr("exclusive")?,
        reverse: node.attr("reverse")?,
    }))
}

pub(super) fn register() {
    register_op(
        OpDef::new("CumulativeLogsumexp")
            .input("x", ArgType::Attr("T"))
            .input("axis", ArgType::Attr("Tidx"))
            .output("out", ArgType::Attr("T"))
            .type_attr("T", &[DType::F16, DType::BF16, DType::F32, DType::F64])
            .type_attr("Tidx", &[DType::I32, DType::I64])
            .attr("exclusive", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .attr("reverse", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .shape_fn(shape_fn),
    );
    register_kernel("CumulativeLogsumexp", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_keep_infinities_and_drop_late_nans() {
        assert_eq!(
            f64::step(f64::NEG_INFINITY, f64::NEG_INFINITY),
            f64::NEG_INFINITY
        );
        assert_eq!(f64::step(f64::NEG_INFINITY, 1.0), 1.0);
        assert!(f64::step(f64::INFINITY, f64::INFINITY).is_nan());
        assert!(f64::step(f64::NAN, 1.0).is_nan());
        assert_eq!(f64::step(1.0, f64::NAN), 1.0 + 2f64.ln());
    }
}
