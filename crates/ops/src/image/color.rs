//! Colour conversions: TensorFlow's `RGBToHSV`/`HSVToRGB` kernels (`tf.image.rgb_to_hsv`,
//! `hsv_to_rgb`) and the Python compositions `rgb_to_grayscale`, `grayscale_to_rgb` and
//! `adjust_gamma`.
//!
//! `adjust_hsv.rs` has per-pixel HSV conversions too, but they are `AdjustSaturation`'s, whose
//! arithmetic differs from `colorspace_op.h` (its hue offsets are double constants, its norm is
//! `1 / (6 * range)` rather than `(1 / range) * (1 / 6)`), so sharing them would change results
//! in the last bit. The two kernels here follow `colorspace_op.h`, operation for operation.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output, Result,
    Shape, Tensor,
};

use super::adjust::in_float32;
use super::convert::ConvertImageDtype;
use super::Operand;
use crate::array::{concat, constant, expand_dims, rank, reshape, tile, ArrayExt};
use crate::math::{matmul, mul, pow, sub};
use crate::s;

/// `tf.image.rgb_to_hsv(images)`: float RGB pixels (last dimension 3) to hue, saturation and
/// value, each in `[0, 1]` for inputs in `[0, 1]`.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::rgb_to_hsv};
/// let g = Graph::new();
/// let img = placeholder(&g, DType::F32, Shape::new(vec![None, None, Some(3)]))?;
/// assert_eq!(rgb_to_hsv(&img)?.shape(), img.shape());
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn rgb_to_hsv(images: impl Into<Output>) -> Result<Output> {
    colorspace("RGBToHSV", images.into())
}

/// `tf.image.hsv_to_rgb(images)`: the inverse of [`rgb_to_hsv`].
pub fn hsv_to_rgb(images: impl Into<Output>) -> Result<Output> {
    colorspace("HSVToRGB", images.into())
}

fn colorspace(op: &str, images: Output) -> Result<Output> {
    let g = images.graph().clone();
    crate::new_op(&g, op).input(images).build()?.output(0)
}

/// The weights TensorFlow's `rgb_to_grayscale` gives red, green and blue (ITU-R 601-2 luma,
/// rounded to four digits as TensorFlow writes them).
const GRAY_WEIGHTS: [f32; 3] = [0.2989, 0.5870, 0.1140];

/// `tf.image.rgb_to_grayscale(images)`: the weighted sum of the last dimension (3 channels) as a
/// single channel, in float32 and converted back to the images' dtype (integers by
/// `convert_image_dtype`, without saturation).
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::rgb_to_grayscale};
/// let g = Graph::new();
/// let img = placeholder(&g, DType::U8, Shape::known(&[2, 8, 8, 3]))?;
/// let grey = rgb_to_grayscale(&img)?;
/// assert_eq!((grey.dtype(), grey.shape()), (DType::U8, Shape::known(&[2, 8, 8, 1])));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn rgb_to_grayscale(images: impl Into<Output>) -> Result<Output> {
    let images = images.into();
    let g = images.graph().clone();
    let _scope = g.name_scope("rgb_to_grayscale");
    let orig = images.dtype();
    let flt = ConvertImageDtype::new(DType::F32).build(images)?;
    let shape = flt.shape();
    // `tf.tensordot(flt, weights, [-1, -1])`: a [N, 3] x [3, 1] MatMul between reshapes.
    let channels = match shape.dims() {
        Some([]) => {
            return Err(Error::invalid_argument(
                "Cannot do tensordot over the last axis of a scalar",
            ))
        }
        Some(d) => d[d.len() - 1],
        None => None,
    };
    if let Some(c) = channels.filter(|&c| c != 3) {
        return Err(Error::invalid_argument(format!(
            "Dimensions must be equal, but are {c} and 3 for 'rgb_to_grayscale/Tensordot/MatMul' (op: 'MatMul') with input shapes: [?,{c}], [3,1]."
        )));
    }
    let weights = constant(&g, Tensor::from_vec(&[3, 1], GRAY_WEIGHTS.to_vec())?)?;
    let flat = reshape(&flt, [-1i64, 3])?;
    let dot = matmul(&flat, &weights)?;
    let gray = match shape.to_known() {
        Some(d) => reshape(
            &dot,
            d[..d.len() - 1]
                .iter()
                .map(|&x| x as i64)
                .collect::<Vec<_>>(),
        )?,
        None => reshape(&dot, crate::array::shape(&flt)?.at(s![..-1])?)?,
    };
    let gray = expand_dims(&gray, -1)?;
    ConvertImageDtype::new(orig).build(gray)
}

/// `tf.image.grayscale_to_rgb(images)`: the single channel (last dimension 1) tiled three
/// times.
pub fn grayscale_to_rgb(images: impl Into<Output>) -> Result<Output> {
    let images = images.into();
    let g = images.graph().clone();
    let _scope = g.name_scope("grayscale_to_rgb");
    let shape = images.shape();
    if let Some(r) = shape.rank() {
        if r < 2 {
            return Err(Error::invalid_argument(format!(
                "A grayscale image (shape {}) must be at least two-dimensional.",
                shape.python_str()
            )));
        }
    }
    if shape.is_fully_defined() && shape.dim(-1) != Some(1) {
        return Err(Error::invalid_argument(
            "Last dimension of a grayscale image should be size 1.",
        ));
    }
    match shape.rank() {
        // The multiples TensorFlow computes in the graph, known here when the rank is.
        Some(r) => {
            let mut m = vec![1i64; r];
            m[r - 1] = 3;
            tile(&images, m)
        }
        None => {
            let r1 = expand_dims(sub(&rank(&images)?, &constant(&g, 1i32)?)?, 0)?;
            let ones_ = crate::array::fill(r1, &constant(&g, 1i32)?)?;
            let multiples = concat(&[ones_, constant(&g, Tensor::from(vec![3i32]))?], 0)?;
            tile(&images, multiples)
        }
    }
}

/// `tf.image.adjust_gamma(image, gamma=1, gain=1)`: `gain * image ** gamma` on the image as
/// float32 (integer and float64 images are converted there and back, saturating).
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::adjust_gamma};
/// let g = Graph::new();
/// let img = placeholder(&g, DType::U8, Shape::known(&[8, 8, 3]))?;
/// assert_eq!(adjust_gamma(&img, 2.2, 1.0)?.dtype(), DType::U8);
/// assert!(adjust_gamma(&img, -1.0, 1.0).is_err());
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn adjust_gamma(
    image: impl Into<Output>,
    gamma: impl Into<Operand>,
    gain: impl Into<Operand>,
) -> Result<Output> {
    let image = image.into();
    let g = image.graph().clone();
    let _scope = g.name_scope("adjust_gamma");
    let (gamma, gain) = (gamma.into(), gain.into());
    // TensorFlow checks a Python number here; a tensor gamma it checks with an Assert at run
    // time, which weir leaves out.
    if let Operand::Value(v) = gamma {
        if v.is_nan() || v < 0.0 {
            return Err(Error::invalid_argument(
                "Gamma should be a non-negative real number.",
            ));
        }
    }
    let gamma = gamma.to_output(&g)?;
    let gain = gain.to_output(&g)?;
    in_float32(image, |flt| mul(&gain, &pow(&flt, &gamma)?))
}

/// `colorspace_op.h`'s `RGBToHSV` for one pixel, in `T`'s precision.
macro_rules! colorspace_fns {
    ($t:ty, $rgb_to_hsv:ident, $hsv_to_rgb:ident) => {
        fn $rgb_to_hsv(p: [$t; 3]) -> [$t; 3] {
            let [r, g, b] = p;
            // Eigen's max/min reducers: `a < b ? b : a` folds from the first channel.
            let max = |a: $t, b: $t| if a < b { b } else { a };
            let min = |a: $t, b: $t| if b < a { b } else { a };
            let v = max(max(r, g), b);
            let range = v - min(min(r, g), b);
            let s = if v > 0.0 { range / v } else { 0.0 };
            let norm = (1.0 / range) * ((1.0 as $t) / 6.0);
            let mut h = if r == v {
                norm * (g - b)
            } else if g == v {
                norm * (b - r) + (2.0 as $t) / 6.0
            } else {
                norm * (r - g) + (4.0 as $t) / 6.0
            };
            if range.is_nan() || range <= 0.0 {
                h = 0.0;
            }
            if h < 0.0 {
                h += 1.0;
            }
            [h, s, v]
        }

        /// `colorspace_op.h`'s `HSVToRGB` for one pixel.
        fn $hsv_to_rgb(p: [$t; 3]) -> [$t; 3] {
            let [h, s, v] = p;
            // cwiseMax/cwiseMin as Eigen's scalar `maxi`/`mini` (`a < b ? b : a`).
            let clamp01 = |x: $t| {
                let x = if x < 0.0 { 0.0 } else { x };
                if 1.0 < x {
                    1.0
                } else {
                    x
                }
            };
            let dh = h * 6.0;
            let dr = clamp01((dh - 3.0).abs() - 1.0);
            let dg = clamp01(-(dh - 2.0).abs() + 2.0);
            let db = clamp01(-(dh - 4.0).abs() + 2.0);
            let one_s = -s + 1.0;
            [
                (one_s + s * dr) * v,
                (one_s + s * dg) * v,
                (one_s + s * db) * v,
            ]
        }
    };
}
colorspace_fns!(f32, rgb_to_hsv_f32, hsv_to_rgb_f32);
colorspace_fns!(f64, rgb_to_hsv_f64, hsv_to_rgb_f64);

fn map_pixels<T: weir_graph::TensorType + Copy + Default>(
    t: &Tensor,
    f: fn([T; 3]) -> [T; 3],
) -> Result<Tensor> {
    let src = t.as_slice::<T>()?;
    let mut out = vec![T::default(); src.len()];
    for (p, q) in src.chunks_exact(3).zip(out.chunks_exact_mut(3)) {
        q.copy_from_slice(&f([p[0], p[1], p[2]]));
    }
    Tensor::from_vec(t.shape(), out)
}

struct ColorspaceKernel {
    to_hsv: bool,
}

impl Kernel for ColorspaceKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = ctx.input(0);
        let shape = input.shape();
        if shape.is_empty() {
            return Err(Error::invalid_argument(format!(
                "input must be at least 1D{}",
                format_dims(shape)
            )));
        }
        let channels = shape[shape.len() - 1];
        if channels != 3 {
            return Err(Error::failed_precondition(format!(
                "input must have 3 channels but input only has {channels} channels."
            )));
        }
        let out = match (input.dtype(), self.to_hsv) {
            (DType::F32, true) => map_pixels(input, rgb_to_hsv_f32)?,
            (DType::F32, false) => map_pixels(input, hsv_to_rgb_f32)?,
            (DType::F64, true) => map_pixels(input, rgb_to_hsv_f64)?,
            (DType::F64, false) => map_pixels(input, hsv_to_rgb_f64)?,
            (dt, _) => {
                return Err(Error::invalid_argument(format!(
                    "Cannot convert the colours of a {dt} image"
                )))
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// TensorFlow's `ColorspaceShapeFn`: rank at least 1, last dimension 3.
fn colorspace_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s: Shape = ctx.input_shape(0).clone();
    if let Some(dims) = s.dims() {
        let Some(&last) = dims.last() else {
            return Err(Error::invalid_argument(format!(
                "Shape must be at least rank 1 but is rank 0 for '{}'",
                ctx.op_type
            )));
        };
        if let Some(c) = last.filter(|&c| c != 3) {
            return Err(Error::invalid_argument(format!(
                "Dimension must be 3 but is {c} for '{}'",
                ctx.op_type
            )));
        }
        let mut d = dims.to_vec();
        if let Some(l) = d.last_mut() {
            *l = Some(3);
        }
        ctx.set_output(0, Shape::new(d));
    } else {
        ctx.set_output(0, s);
    }
    Ok(())
}

pub(super) fn register() {
    for name in ["RGBToHSV", "HSVToRGB"] {
        register_op(
            OpDef::new(name)
                .input("images", ArgType::Attr("T"))
                .output("output", ArgType::Attr("T"))
                .type_attr("T", &[DType::F32, DType::F64])
                .shape_fn(colorspace_shape),
        );
    }
    register_kernel("RGBToHSV", |_| {
        Ok(Box::new(ColorspaceKernel { to_hsv: true }))
    });
    register_kernel("HSVToRGB", |_| {
        Ok(Box::new(ColorspaceKernel { to_hsv: false }))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hsv_round_trips_primary_colours() {
        for p in [
            [1.0f32, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
            [0.5; 3],
        ] {
            assert_eq!(hsv_to_rgb_f32(rgb_to_hsv_f32(p)), p);
        }
        assert_eq!(rgb_to_hsv_f32([0.0, 0.0, 1.0]), [4.0 / 6.0, 1.0, 1.0]);
        assert_eq!(rgb_to_hsv_f64([0.0; 3]), [0.0; 3]);
    }
}
