//! `tf.image.convert_image_dtype` as one kernel: integers are scaled by their type's maximum,
//! floats live in `[0, 1]`, with TensorFlow's rounding and saturation rules.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output,
    Result, Tensor, TensorType,
};

/// `tf.image.convert_image_dtype(image, dtype)` without saturation. See [`ConvertImageDtype`].
pub fn convert_image_dtype(image: impl Into<Output>, dtype: DType) -> Result<Output> {
    ConvertImageDtype::new(dtype).build(image)
}

/// The options of `tf.image.convert_image_dtype(image, dtype, saturate=False)`.
///
/// Integer to float divides by the integer type's maximum (`uint8` 255 becomes 1.0); float to
/// integer multiplies by `max + 0.5` and truncates; integer to integer shifts by the ratio of the
/// maxima; float to float casts. `saturate` clamps before casting where the result could
/// overflow.
///
/// ```
/// # use weir_graph::{DType, Graph, Tensor};
/// # use weir_ops::{array::constant, image::convert_image_dtype};
/// let g = Graph::new();
/// let pixels = constant(&g, Tensor::from(vec![0u8, 255]))?;
/// assert_eq!(convert_image_dtype(&pixels, DType::F32)?.dtype(), DType::F32);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ConvertImageDtype {
    dtype: DType,
    saturate: bool,
    name: Option<String>,
}

impl ConvertImageDtype {
    /// Conversion to `dtype`.
    pub fn new(dtype: DType) -> ConvertImageDtype {
        ConvertImageDtype {
            dtype,
            saturate: false,
            name: None,
        }
    }

    /// Clamp to the target range before casting (default false).
    pub fn saturate(mut self, s: bool) -> Self {
        self.saturate = s;
        self
    }

    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the node (or returns `image` when it already has `dtype`, as TensorFlow does).
    pub fn build(self, image: impl Into<Output>) -> Result<Output> {
        let image = image.into();
        if !image.dtype().is_numeric() || !self.dtype.is_numeric() {
            return Err(Error::invalid_argument(format!(
                "convert_image_dtype converts between numeric types, not {} to {}",
                image.dtype(),
                self.dtype
            )));
        }
        if image.dtype() == self.dtype {
            return Ok(image);
        }
        crate::new_op(image.graph(), "ConvertImageDtype")
            .maybe_name(self.name.as_deref())
            .input(image)
            .attr("dtype", self.dtype)
            .attr("saturate", self.saturate)
            .build()?
            .output(0)
    }
}

/// A pixel type: the conversions `convert_image_dtype` needs, in the type's own precision.
pub(crate) trait Pixel: TensorType + Copy {
    const FLOAT: bool;
    /// The type's maximum and minimum (for floats, unused).
    const MAX: i128;
    const MIN: i128;
    fn to_i128(self) -> i128;
    /// `v` cast with C's wrapping for integers, rounding for floats.
    fn from_i128(v: i128) -> Self;
    fn to_f64(self) -> f64;
    /// `v` cast with truncation toward zero (saturating, NaN to 0) or narrowed for floats.
    fn from_f64(v: f64) -> Self;
    /// `self * s` with `s` first rounded to this (float) type, as a Python scalar operand is.
    fn mul_scalar(self, s: f64) -> Self;
    /// The largest value of this float type not above `v`.
    fn floor_repr(v: i128) -> f64;
}

macro_rules! int_pixel {
    ($($t:ty),*) => {$(
        impl Pixel for $t {
            const FLOAT: bool = false;
            const MAX: i128 = <$t>::MAX as i128;
            const MIN: i128 = <$t>::MIN as i128;
            fn to_i128(self) -> i128 { self as i128 }
            fn from_i128(v: i128) -> Self { v as $t }
            fn to_f64(self) -> f64 { self as f64 }
            fn from_f64(v: f64) -> Self { v as $t }
            fn mul_scalar(self, s: f64) -> Self { (self as f64 * s) as $t }
            fn floor_repr(v: i128) -> f64 { v as f64 }
        }
    )*};
}
int_pixel!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! float_pixel {
    ($($t:ty),*) => {$(
        impl Pixel for $t {
            const FLOAT: bool = true;
            const MAX: i128 = 0;
            const MIN: i128 = 0;
            fn to_i128(self) -> i128 { self as i128 }
            fn from_i128(v: i128) -> Self { v as $t }
            fn to_f64(self) -> f64 { self as f64 }
            fn from_f64(v: f64) -> Self { v as $t }
            fn mul_scalar(self, s: f64) -> Self { self * (s as $t) }
            fn floor_repr(v: i128) -> f64 {
                let f = v as $t;
                let f = if f as i128 > v { <$t>::from_bits(f.to_bits() - 1) } else { f };
                f as f64
            }
        }
    )*};
}
float_pixel!(f32, f64);

/// Converts every element of `src` from `T` to `U` by `convert_image_dtype`'s rules.
pub(crate) fn convert_slice<T: Pixel, U: Pixel>(src: &[T], saturate: bool) -> Vec<U> {
    match (T::FLOAT, U::FLOAT) {
        (true, true) => src.iter().map(|&x| U::from_f64(x.to_f64())).collect(),
        (false, true) => {
            let scale = 1.0 / T::MAX as f64;
            src.iter()
                .map(|&x| U::from_i128(x.to_i128()).mul_scalar(scale))
                .collect()
        }
        (true, false) => {
            let scale = U::MAX as f64 + 0.5;
            let (lo, hi) = (U::MIN as f64, T::floor_repr(U::MAX));
            src.iter()
                .map(|&x| {
                    let v = x.mul_scalar(scale).to_f64();
                    U::from_f64(if saturate { v.clamp(lo, hi) } else { v })
                })
                .collect()
        }
        (false, false) => {
            let cast = |v: i128| {
                if saturate {
                    U::from_i128(v.clamp(U::MIN, U::MAX))
                } else {
                    U::from_i128(v)
                }
            };
            if T::MAX > U::MAX {
                let scale = (T::MAX + 1) / (U::MAX + 1);
                src.iter()
                    .map(|&x| cast(x.to_i128().div_euclid(scale)))
                    .collect()
            } else {
                let scale = (U::MAX + 1) / (T::MAX + 1);
                src.iter()
                    .map(|&x| U::from_i128(cast(x.to_i128()).to_i128().wrapping_mul(scale)))
                    .collect()
            }
        }
    }
}

fn convert_typed<T: Pixel>(t: &Tensor, dtype: DType, saturate: bool) -> Result<Tensor> {
    let src = t.as_slice::<T>()?;
    weir_graph::match_real_dtype!(dtype, U => Tensor::from_vec(t.shape(), convert_slice::<T, U>(src, saturate)),
        _ => Err(Error::invalid_argument(format!("Cannot convert an image to {dtype}"))))
}

/// `convert_image_dtype` on a tensor value.
pub(crate) fn convert_tensor(t: &Tensor, dtype: DType, saturate: bool) -> Result<Tensor> {
    if t.dtype() == dtype {
        return Ok(t.clone());
    }
    let dt = t.dtype();
    weir_graph::match_real_dtype!(dt, T => convert_typed::<T>(t, dtype, saturate),
        _ => Err(Error::invalid_argument(format!("Cannot convert an image of {dt}"))))
}

struct ConvertKernel {
    dtype: DType,
    saturate: bool,
}

impl Kernel for ConvertKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let out = convert_tensor(ctx.input(0), self.dtype, self.saturate)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

pub(crate) fn same_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    ctx.set_output(0, s);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("ConvertImageDtype")
            .input("image", ArgType::Attr("T"))
            .output("output", ArgType::Attr("dtype"))
            .type_attr("T", DType::REAL_NUMBER)
            .type_attr("dtype", DType::REAL_NUMBER)
            .attr("saturate", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .shape_fn(same_shape),
    );
    register_kernel("ConvertImageDtype", |node| {
        Ok(Box::new(ConvertKernel {
            dtype: node.attr("dtype")?,
            saturate: node.attr("saturate")?,
        }))
    });
}

// Expected values are TensorFlow's printed outputs, digit for digit.
#[cfg(test)]
#[allow(clippy::excessive_precision, clippy::approx_constant)]
mod tests {
    use super::*;

    // Expected values printed by TensorFlow 2.21's tf.image.convert_image_dtype.
    #[test]
    fn matches_tensorflow() {
        assert_eq!(
            convert_slice::<u8, f32>(&[0, 1, 128, 255], false),
            [0.0, 0.003921568859368563, 0.501960813999176, 1.0]
        );
        assert_eq!(
            convert_slice::<f32, u8>(&[0.0, 0.5, 0.999, 1.0, 1.5, -0.2], true),
            [0, 127, 255, 255, 255, 0]
        );
        assert_eq!(
            convert_slice::<u8, i32>(&[0, 1, 128, 255], false),
            [0, 8388608, 1073741824, 2139095040]
        );
        assert_eq!(
            convert_slice::<i32, u8>(&[0, 1 << 24, i32::MAX], false),
            [0, 2, 255]
        );
        assert_eq!(
            convert_slice::<u8, u16>(&[0, 1, 255], false),
            [0, 256, 65280]
        );
        assert_eq!(
            convert_slice::<f32, i32>(&[0.0, 0.5, 1.0], true),
            [0, 1073741824, 2147483520]
        );
        assert_eq!(
            convert_slice::<f32, f64>(&[0.1, 0.5], false),
            [0.10000000149011612, 0.5]
        );
        assert_eq!(convert_slice::<i8, u8>(&[-128, -1, 127], true), [0, 0, 254]);
        assert_eq!(convert_slice::<i16, i8>(&[-32768, 300], false), [-128, 1]);
    }
}
