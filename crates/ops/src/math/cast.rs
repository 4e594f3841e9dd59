//! `Cast`: converts a tensor to another dtype (`tf.cast`).
//!
//! Every pair of numeric (half and complex included) and bool dtypes converts, as TensorFlow's
//! CPU kernel does with C++ `static_cast` and Eigen's conversions: integers wrap when narrowed
//! (`int32 300 -> uint8 44`), floats truncate toward zero when made integers (`-1.7 -> -1`),
//! `float64 -> float32` rounds to nearest (overflowing to infinity), anything non-zero (NaN
//! included) is `true`, and `true` is 1. The half types convert through float, as Eigen does:
//! `float64 -> float16` rounds twice (to float, then to half), and float16/bfloat16 round to
//! nearest even. A NaN becoming bfloat16 is the canonical quiet NaN of its sign (Eigen's scalar
//! path; its vectorized float path also drops the sign). A complex becomes a real by dropping
//! its imaginary part, and a bool from its real part alone (`1j` is false), as TensorFlow's
//! functors do. Strings convert only to strings; TensorFlow rejects the rest with
//! Unimplemented.
//!
//! One case differs by necessity: a float outside the target integer range (or NaN) is undefined
//! behaviour in TensorFlow (the result depends on the CPU, and on whether Eigen's vectorized or
//! scalar loop handled the element: `float32 300 -> int8` is 127 in one and 44 in the other);
//! weir saturates to the target's min/max and maps NaN to 0, like `tf.saturate_cast` and Rust's
//! `as`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    bf16, f16, ArgType, AttrKind, AttrValue, Complex, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Tensor, TensorType,
};

use super::bcast::unary_map;

/// `tf.cast(x, dtype)`: `x` converted to `dtype`; `x` itself when it already has that dtype,
/// as TensorFlow's Python layer does.
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::{array::constant, math::cast};
/// let g = Graph::new();
/// let x = cast(constant(&g, [1.9f32, -1.9])?, DType::I32)?;
/// assert_eq!(x.dtype(), DType::I32);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn cast(x: impl Into<Output>, dtype: DType) -> Result<Output> {
    let x = x.into();
    if x.dtype() == dtype {
        return Ok(x);
    }
    crate::new_op(&x.graph().clone(), "Cast")
        .input(x)
        .attr("DstT", dtype)
        .build()?
        .output(0)
}

/// `x` rounded to bfloat16 as Eigen's scalar conversion does: to nearest even, and a NaN of
/// either sign becomes the canonical quiet NaN of that sign (its payload dropped, where the
/// `half` crate would keep the top payload bits).
pub(crate) fn bf16_from_f32(x: f32) -> bf16 {
    if x.is_nan() {
        bf16::from_bits(if x.is_sign_negative() { 0xFFC0 } else { 0x7FC0 })
    } else {
        bf16::from_f32(x)
    }
}

/// `x` widened to float as Eigen does, by shifting its bits: a signalling NaN stays
/// signalling (the `half` crate would quiet it).
pub(crate) fn bf16_to_f32(x: bf16) -> f32 {
    f32::from_bits(u32::from(x.to_bits()) << 16)
}

/// `value as Self`, with TensorFlow's conversion rules between numeric and bool dtypes.
pub(crate) trait CastTo<D>: Copy {
    fn cast(self) -> D;
}

macro_rules! numeric_casts {
    ($($src:ty),*) => {$(
        numeric_casts!(@from $src; f32 f64 i8 i16 i32 i64 u8 u16 u32 u64);
        impl CastTo<bool> for $src {
            fn cast(self) -> bool {
                #[allow(clippy::float_cmp)]
                { self != (0 as $src) }
            }
        }
        impl CastTo<$src> for bool {
            fn cast(self) -> $src { (self as u8) as $src }
        }
        // Eigen converts to a half type through float: `half(static_cast<float>(x))`.
        impl CastTo<f16> for $src {
            fn cast(self) -> f16 { f16::from_f32(self as f32) }
        }
        impl CastTo<bf16> for $src {
            fn cast(self) -> bf16 { bf16_from_f32(self as f32) }
        }
        impl CastTo<$src> for f16 {
            fn cast(self) -> $src { self.to_f32() as $src }
        }
        impl CastTo<$src> for bf16 {
            fn cast(self) -> $src { bf16_to_f32(self) as $src }
        }
        // A real becomes the real part; a complex loses its imaginary part.
        impl CastTo<Complex<f32>> for $src {
            fn cast(self) -> Complex<f32> { Complex::new(self as f32, 0.0) }
        }
        impl CastTo<Complex<f64>> for $src {
            fn cast(self) -> Complex<f64> { Complex::new(self as f64, 0.0) }
        }
        impl CastTo<$src> for Complex<f32> {
            fn cast(self) -> $src { self.re as $src }
        }
        impl CastTo<$src> for Complex<f64> {
            fn cast(self) -> $src { self.re as $src }
        }
    )*};
    (@from $src:ty; $($dst:ty)*) => {$(
        impl CastTo<$dst> for $src {
            fn cast(self) -> $dst { self as $dst }
        }
    )*};
}
numeric_casts!(f32, f64, i8, i16, i32, i64, u8, u16, u32, u64);

/// Casts between the half types, bool and complex, which `as` cannot express.
macro_rules! via_f32 {
    ($($src:ty => $dst:ty: |$v:ident| $e:expr;)*) => {$(
        impl CastTo<$dst> for $src {
            fn cast(self) -> $dst { let $v = self; $e }
        }
    )*};
}
via_f32! {
    bool => bool: |v| v;
    f16 => f16: |v| v;
    bf16 => bf16: |v| v;
    f16 => bf16: |v| bf16_from_f32(v.to_f32());
    bf16 => f16: |v| f16::from_f32(bf16_to_f32(v));
    bool => f16: |v| f16::from_f32(f32::from(u8::from(v)));
    bool => bf16: |v| bf16_from_f32(f32::from(u8::from(v)));
    f16 => bool: |v| v.to_f32() != 0.0;
    bf16 => bool: |v| bf16_to_f32(v) != 0.0;
    Complex<f32> => Complex<f32>: |v| v;
    Complex<f64> => Complex<f64>: |v| v;
    Complex<f32> => Complex<f64>: |v| Complex::new(f64::from(v.re), f64::from(v.im));
    Complex<f64> => Complex<f32>: |v| Complex::new(v.re as f32, v.im as f32);
    bool => Complex<f32>: |v| Complex::new(f32::from(u8::from(v)), 0.0);
    bool => Complex<f64>: |v| Complex::new(f64::from(u8::from(v)), 0.0);
    // TensorFlow's complex-to-bool functor tests only the real part: `1j` is false.
    Complex<f32> => bool: |v| v.re != 0.0;
    Complex<f64> => bool: |v| v.re != 0.0;
    f16 => Complex<f32>: |v| Complex::new(v.to_f32(), 0.0);
    f16 => Complex<f64>: |v| Complex::new(v.to_f64(), 0.0);
    bf16 => Complex<f32>: |v| Complex::new(bf16_to_f32(v), 0.0);
    bf16 => Complex<f64>: |v| Complex::new(f64::from(bf16_to_f32(v)), 0.0);
    Complex<f32> => f16: |v| f16::from_f32(v.re);
    Complex<f64> => f16: |v| f16::from_f32(v.re as f32);
    Complex<f32> => bf16: |v| bf16_from_f32(v.re);
    Complex<f64> => bf16: |v| bf16_from_f32(v.re as f32);
}

/// Runs `$body` with `$T` bound to the Rust type of a numeric (half and complex included) or
/// bool dtype.
macro_rules! match_numbool_dtype {
    ($dtype:expr, $T:ident => $body:expr, _ => $other:expr) => {
        match $dtype {
            DType::Bool => {
                type $T = bool;
                $body
            }
            other => weir_graph::match_real_dtype!(other, $T => $body,
                _ => weir_graph::match_half_dtype!(other, $T => $body,
                    _ => weir_graph::match_complex_dtype!(other, $T => $body, _ => $other))),
        }
    };
}

fn convert<S: CastTo<D> + TensorType, D: TensorType>(x: &Tensor) -> Result<Tensor> {
    unary_map(x, |v: S| v.cast())
}

/// `x` converted to `dst` by [`CastTo`]; Unimplemented for string conversions.
pub(crate) fn cast_tensor(x: &Tensor, dst: DType) -> Result<Tensor> {
    let src = x.dtype();
    if src == dst {
        return Ok(x.clone());
    }
    match_numbool_dtype!(src, S => match_numbool_dtype!(dst, D => convert::<S, D>(x),
        _ => Err(unsupported(src, dst))), _ => Err(unsupported(src, dst)))
}

fn unsupported(src: DType, dst: DType) -> Error {
    Error::unimplemented(format!("Cast {src} to {dst} is not supported"))
}

fn castable(src: DType, dst: DType) -> bool {
    src == dst
        || (src != DType::String
            && dst != DType::String
            && src != DType::Resource
            && dst != DType::Resource)
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let (src, dst): (DType, DType) = (ctx.attr("SrcT")?, ctx.attr("DstT")?);
    if !castable(src, dst) {
        return Err(unsupported(src, dst));
    }
    let s = ctx.input_shape(0).clone();
    ctx.set_output(0, s);
    Ok(())
}

struct CastKernel {
    dst: DType,
}

impl Kernel for CastKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0);
        let out = if x.dtype() == self.dst {
            x
        } else {
            cast_tensor(&x, self.dst)?
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let (src, dst): (DType, DType) = (node.attr("SrcT")?, node.attr("DstT")?);
    if !castable(src, dst) {
        return Err(unsupported(src, dst));
    }
    Ok(Box::new(CastKernel { dst }))
}

pub(super) fn register() {
    register_op(
        OpDef::new("Cast")
            .input("x", ArgType::Attr("SrcT"))
            .output("y", ArgType::Attr("DstT"))
            .type_attr("SrcT", DType::ALL_DATA)
            .type_attr("DstT", DType::ALL_DATA)
            .attr("Truncate", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .shape_fn(shape_fn),
    );
    register_kernel("Cast", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c<T: TensorType>(x: Tensor, dst: DType) -> Vec<T> {
        cast_tensor(&x, dst).unwrap().to_vec::<T>().unwrap()
    }

    #[test]
    fn floats_truncate_toward_zero() {
        assert_eq!(
            c::<i32>(Tensor::from(vec![1.9f32, -1.9, 0.5, -0.5]), DType::I32),
            vec![1, -1, 0, 0]
        );
        assert_eq!(
            c::<u8>(Tensor::from(vec![255.9f64, 0.1]), DType::U8),
            vec![255, 0]
        );
    }

    #[test]
    fn out_of_range_floats_saturate_and_nan_is_zero() {
        let v = c::<i32>(
            Tensor::from(vec![1e10f32, -1e10, f32::NAN, f32::INFINITY]),
            DType::I32,
        );
        assert_eq!(v, vec![i32::MAX, i32::MIN, 0, i32::MAX]);
        assert_eq!(
            c::<u8>(Tensor::from(vec![-3.0f32, 300.0]), DType::U8),
            vec![0, 255]
        );
    }

    #[test]
    fn integers_wrap_when_narrowed() {
        assert_eq!(
            c::<u8>(Tensor::from(vec![300i32, -1]), DType::U8),
            vec![44, 255]
        );
        assert_eq!(c::<i8>(Tensor::from(vec![200u8]), DType::I8), vec![-56]);
        assert_eq!(c::<i64>(Tensor::from(vec![-1i32]), DType::I64), vec![-1]);
        assert_eq!(c::<u16>(Tensor::from(vec![-1i64]), DType::U16), vec![65535]);
    }

    #[test]
    fn bool_conversions() {
        assert_eq!(
            c::<bool>(Tensor::from(vec![0.0f32, -0.0, 2.0, f32::NAN]), DType::Bool),
            vec![false, false, true, true]
        );
        assert_eq!(
            c::<f32>(Tensor::from(vec![true, false]), DType::F32),
            vec![1.0, 0.0]
        );
        assert_eq!(c::<i64>(Tensor::from(vec![true]), DType::I64), vec![1]);
        assert_eq!(
            c::<bool>(Tensor::from(vec![0u8, 7]), DType::Bool),
            vec![false, true]
        );
    }

    #[test]
    fn float_precision_rules() {
        let v = c::<f32>(Tensor::from(vec![1e300f64, 0.1]), DType::F32);
        assert_eq!(v[0], f32::INFINITY);
        assert_eq!(v[1], 0.1f32);
        assert_eq!(
            c::<f32>(Tensor::from(vec![i32::MAX]), DType::F32),
            vec![2147483648.0]
        );
        assert_eq!(
            c::<f32>(Tensor::from(vec![16777217i64]), DType::F32),
            vec![16777216.0]
        );
    }

    #[test]
    fn complex_to_bool_reads_the_real_part_only() {
        let z = Tensor::from(vec![Complex::new(0.0f32, 1.0), Complex::new(2.0, 0.0)]);
        assert_eq!(c::<bool>(z, DType::Bool), vec![false, true]);
    }

    #[test]
    fn bfloat16_nans_are_canonical_and_keep_their_sign() {
        let x = Tensor::from(vec![
            f32::from_bits(0x7FA0_0000),
            f32::from_bits(0xFFC1_2345),
            1.0 + 1.0 / 256.0,
        ]);
        let bits: Vec<u16> = c::<bf16>(x, DType::BF16)
            .iter()
            .map(|b| b.to_bits())
            .collect();
        // The tie 1 + 2^-8 rounds to even (1.0).
        assert_eq!(bits, vec![0x7FC0, 0xFFC0, 0x3F80]);
        let back = c::<f32>(Tensor::from(vec![bf16::from_bits(0x7FA0)]), DType::F32);
        assert_eq!(back[0].to_bits(), 0x7FA0_0000);
    }

    #[test]
    fn strings_are_unimplemented() {
        let e = cast_tensor(&Tensor::from(vec![1i32]), DType::String).unwrap_err();
        assert!(e.is_unimplemented());
        assert_eq!(e.message(), "Cast int32 to string is not supported");
        assert!(cast_tensor(&Tensor::from("a"), DType::String).is_ok());
    }
}
