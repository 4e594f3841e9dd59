//! The raw `ClipByValue` op, for GraphDefs that contain it (TensorFlow's Python
//! `tf.clip_by_value` builds `Minimum`/`Maximum` instead; see [`clip_by_value`]).
//!
//! Each element becomes `max(min(t, hi), lo)` with `std::min`/`std::max` semantics, so a NaN
//! element stays NaN; complex values clip their real and imaginary parts separately, as in
//! a box of the complex plane. The bounds are scalars or have the input's shape.
//!
//! [`clip_by_value`]: super::clip_by_value

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, Complex, DType, Error, InferenceContext, Kernel, OpContext, OpDef,
    Output, Result, Tensor, TensorType,
};

/// `tf.raw_ops.ClipByValue(t, clip_value_min, clip_value_max)`: `t` clipped to
/// `[clip_value_min, clip_value_max]`, each bound a scalar or of `t`'s shape.
pub fn clip_by_value_op(
    t: impl Into<Output>,
    clip_value_min: impl Into<Output>,
    clip_value_max: impl Into<Output>,
) -> Result<Output> {
    let (t, lo, hi) = (t.into(), clip_value_min.into(), clip_value_max.into());
    let g = crate::util::same_graph(&[&t, &lo, &hi])?.clone();
    crate::new_op(&g, "ClipByValue")
        .inputs([t, lo, hi])
        .build()?
        .output(0)
}

/// `std::max(std::min(v, hi), lo)`: a comparison with NaN is false and keeps the left value.
fn clip_real<T: PartialOrd + Copy>(v: T, lo: T, hi: T) -> T {
    let m = if hi < v { hi } else { v };
    if m < lo {
        lo
    } else {
        m
    }
}

/// Element types `ClipByValue` computes in.
trait Clip: TensorType + Copy {
    fn clip(v: Self, lo: Self, hi: Self) -> Self;
}

macro_rules! real_clips {
    ($($t:ty),*) => {$(
        impl Clip for $t {
            fn clip(v: Self, lo: Self, hi: Self) -> Self { clip_real(v, lo, hi) }
        }
    )*};
}
real_clips!(
    f32,
    f64,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    weir_graph::f16,
    weir_graph::bf16
);

macro_rules! complex_clips {
    ($($t:ty),*) => {$(
        impl Clip for Complex<$t> {
            fn clip(v: Self, lo: Self, hi: Self) -> Self {
                Complex::new(clip_real(v.re, lo.re, hi.re), clip_real(v.im, lo.im, hi.im))
            }
        }
    )*};
}
complex_clips!(f32, f64);

fn clip<T: Clip>(t: &Tensor, lo: &Tensor, hi: &Tensor) -> Result<Tensor> {
    let (x, l, h) = (t.as_slice::<T>()?, lo.as_slice::<T>()?, hi.as_slice::<T>()?);
    // A bound of the input's shape is read per element, a scalar bound everywhere.
    let at = |b: &[T], i: usize| if b.len() == 1 { b[0] } else { b[i] };
    let out: Vec<T> = (0..x.len())
        .map(|i| T::clip(x[i], at(l, i), at(h, i)))
        .collect();
    Tensor::from_vec(t.shape(), out)
}

struct ClipKernel;

impl Kernel for ClipKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (t, lo, hi) = (ctx.input(0), ctx.input(1), ctx.input(2));
        let fits = |b: &Tensor| b.shape() == t.shape() || b.rank() == 0;
        if !fits(lo) || !fits(hi) {
            return Err(Error::invalid_argument(format!(
                "clip_value_min and clip_value_max must be either of the same shape as input, \
                 or a scalar. input shape: {}clip_value_min shape: {}clip_value_max shape: {}",
                format_dims(t.shape()),
                format_dims(lo.shape()),
                format_dims(hi.shape())
            )));
        }
        let dt = t.dtype();
        let out = match dt {
            DType::F32 => clip::<f32>(t, lo, hi)?,
            DType::F64 => clip::<f64>(t, lo, hi)?,
            DType::I8 => clip::<i8>(t, lo, hi)?,
            DType::I16 => clip::<i16>(t, lo, hi)?,
            DType::I32 => clip::<i32>(t, lo, hi)?,
            DType::I64 => clip::<i64>(t, lo, hi)?,
            DType::U8 => clip::<u8>(t, lo, hi)?,
            DType::U16 => clip::<u16>(t, lo, hi)?,
            DType::F16 => clip::<weir_graph::f16>(t, lo, hi)?,
            DType::BF16 => clip::<weir_graph::bf16>(t, lo, hi)?,
            DType::C64 => clip::<Complex<f32>>(t, lo, hi)?,
            DType::C128 => clip::<Complex<f64>>(t, lo, hi)?,
            _ => {
                return Err(Error::unimplemented(format!(
                    "ClipByValue has no CPU kernel for {dt}"
                )))
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    ctx.set_output(0, s);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("ClipByValue")
            .input("t", ArgType::Attr("T"))
            .input("clip_value_min", ArgType::Attr("T"))
            .input("clip_value_max", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", super::arith_ext::ALL_NUMBERS)
            .shape_fn(shape_fn),
    );
    register_kernel("ClipByValue", |_| Ok(Box::new(ClipKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_stays_and_bounds_apply_in_order() {
        assert!(clip_real(f32::NAN, 0.0, 1.0).is_nan());
        assert_eq!(clip_real(5, 0, 3), 3);
        // lo > hi: the lower bound wins, as max(min(v, hi), lo) does.
        assert_eq!(clip_real(2, 3, 1), 3);
    }
}
