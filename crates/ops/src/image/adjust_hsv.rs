//! `tf.image.adjust_hue` and `tf.image.adjust_saturation` with TensorFlow's `AdjustHue` and
//! `AdjustSaturation` CPU kernels, and their random variants.
//!
//! The two kernels convert pixels with different helpers (`adjust_hue_op.cc` rotates a hue in
//! `[0, 6)` between the channels' minimum and maximum; `adjust_saturation_op.cc` goes through a
//! full HSV triple with a hue in `[0, 1)`), so each is copied separately, float32 operation for
//! float32 operation, to give TensorFlow's values bit for bit.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output, Result,
    Tensor,
};

use super::adjust::{check_factor_range, uniform_scalar};
use super::convert::ConvertImageDtype;
use super::Operand;
use crate::array::constant;

/// `tf.image.adjust_hue(image, delta)`: rotates the hue of RGB images (last dimension 3) by
/// `delta`, a fraction of the colour circle (usually in `[-1, 1]`; a larger one wraps around);
/// integer images are converted to float32 and back.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::adjust_hue};
/// let g = Graph::new();
/// let img = placeholder(&g, DType::U8, Shape::new(vec![None, None, Some(3)]))?;
/// let out = adjust_hue(&img, 0.25)?;
/// assert_eq!((out.dtype(), out.shape()), (DType::U8, img.shape()));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn adjust_hue(image: impl Into<Output>, delta: impl Into<Operand>) -> Result<Output> {
    // TensorFlow checks `delta` against [-1, 1] only in eager mode; its graph mode (which weir
    // is) takes any delta, and the kernel wraps the hue around.
    let delta = delta.into();
    hsv_op(image.into(), "adjust_hue", "AdjustHue", delta)
}

/// `tf.image.adjust_saturation(image, saturation_factor)`: multiplies the HSV saturation of RGB
/// images (last dimension 3) by `saturation_factor`, clipped to `[0, 1]`; integer images are
/// converted to float32 and back.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::adjust_saturation};
/// let g = Graph::new();
/// let img = placeholder(&g, DType::F32, Shape::new(vec![Some(8), None, None, Some(3)]))?;
/// let grey = adjust_saturation(&img, 0.0)?;
/// assert_eq!((grey.dtype(), grey.shape()), (DType::F32, img.shape()));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn adjust_saturation(
    image: impl Into<Output>,
    saturation_factor: impl Into<Operand>,
) -> Result<Output> {
    hsv_op(
        image.into(),
        "adjust_saturation",
        "AdjustSaturation",
        saturation_factor.into(),
    )
}

/// `tf.compat.v1.image.random_hue(image, max_delta, seed=None)`: [`adjust_hue`] by a delta
/// drawn uniformly from `[-max_delta, max_delta)` each run, `max_delta` in `[0, 0.5]`.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::random_hue};
/// let g = Graph::new();
/// let img = placeholder(&g, DType::U8, Shape::known(&[24, 24, 3]))?;
/// assert_eq!(random_hue(&img, 0.2, Some(7))?.dtype(), DType::U8);
/// assert!(random_hue(&img, 0.6, None).is_err());
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn random_hue(image: impl Into<Output>, max_delta: f32, seed: Option<i64>) -> Result<Output> {
    if max_delta > 0.5 {
        return Err(Error::invalid_argument("max_delta must be <= 0.5."));
    }
    if max_delta < 0.0 {
        return Err(Error::invalid_argument("max_delta must be non-negative."));
    }
    let image = image.into();
    let delta = uniform_scalar(image.graph(), -max_delta, max_delta, seed)?;
    adjust_hue(image, delta)
}

/// `tf.compat.v1.image.random_saturation(image, lower, upper, seed=None)`:
/// [`adjust_saturation`] by a factor drawn uniformly from `[lower, upper)` each run.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::random_saturation};
/// let g = Graph::new();
/// let img = placeholder(&g, DType::F32, Shape::known(&[24, 24, 3]))?;
/// assert_eq!(random_saturation(&img, 0.5, 1.5, Some(7))?.shape(), img.shape());
/// assert!(random_saturation(&img, 1.5, 0.5, None).is_err());
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn random_saturation(
    image: impl Into<Output>,
    lower: f32,
    upper: f32,
    seed: Option<i64>,
) -> Result<Output> {
    check_factor_range(lower, upper)?;
    let image = image.into();
    let factor = uniform_scalar(image.graph(), lower, upper, seed)?;
    adjust_saturation(image, factor)
}

/// Adds `op` on the image as float32 and converts back without saturating, as
/// `tf.image.adjust_hue`/`adjust_saturation` do (their results stay within the input's range).
fn hsv_op(image: Output, scope: &str, op: &str, factor: Operand) -> Result<Output> {
    let orig = image.dtype();
    if !orig.is_numeric() {
        return Err(Error::invalid_argument(format!(
            "Image adjustments need a numeric image, got {orig} tensor {}",
            image.name()
        )));
    }
    let g = image.graph().clone();
    let _scope = g.name_scope(scope);
    let factor = match factor {
        Operand::Value(v) => constant(&g, v)?,
        Operand::Tensor(o) if o.dtype() == DType::F32 => o,
        Operand::Tensor(o) => {
            return Err(Error::invalid_argument(format!(
                "Expected a float32 scalar, got {} tensor {}",
                o.dtype(),
                o.name()
            )))
        }
    };
    let flt = ConvertImageDtype::new(DType::F32).build(image)?;
    let adjusted = crate::new_op(&g, op)
        .input(flt)
        .input(factor)
        .build()?
        .output(0)?;
    ConvertImageDtype::new(orig).build(adjusted)
}

/// C++'s `static_cast<int>` of a float as x86 compiles it: NaN and out-of-range values give
/// `INT_MIN` (Rust's `as` would saturate), which picks TensorFlow's `default:` cases.
fn cpp_int(x: f32) -> i32 {
    if !(-2_147_483_648.0..2_147_483_648.0).contains(&x) {
        i32::MIN
    } else {
        x as i32
    }
}

/// `std::max`/`std::min`: the first argument unless the comparison holds, so NaN propagates
/// as TensorFlow's does (unlike `f32::max`).
fn cpp_max(a: f32, b: f32) -> f32 {
    if a < b {
        b
    } else {
        a
    }
}
fn cpp_min(a: f32, b: f32) -> f32 {
    if b < a {
        b
    } else {
        a
    }
}

/// `h += delta * 6` brought back into `[0, 6)` the way TensorFlow's two `while` loops do, one
/// step of 6 at a time. Below 2^24 every step but the last onto `[0, 6)` is exact, so the
/// steps before it are taken at once; the last one rounds as TensorFlow's does. Beyond that
/// (only reachable with a delta tensor far outside `[-1, 1]`) TensorFlow loops for millions of
/// steps or forever; weir takes the exact remainder instead.
fn wrap_hue(h: f32) -> f32 {
    const RANGE: f32 = 6.0;
    const EXACT: f32 = 16_777_216.0;
    if !h.is_finite() || h.abs() >= EXACT {
        return (h as f64).rem_euclid(6.0) as f32;
    }
    let mut h = h;
    if h < -RANGE {
        // Jump to h + 6k in [-6, 0): the last addition, below, may round.
        let k = ((-(h as f64)) / 6.0).ceil() - 1.0;
        h = (h as f64 + 6.0 * k) as f32;
    } else if h >= 2.0 * RANGE {
        let k = ((h as f64) / 6.0).floor() - 1.0;
        h = (h as f64 - 6.0 * k) as f32;
    }
    while h < 0.0 {
        h += RANGE;
    }
    while h >= RANGE {
        h -= RANGE;
    }
    h
}

/// TensorFlow's `AdjustHue` per pixel: `rgb_to_hv_range`, the hue rotation and
/// `hv_range_to_rgb` of `adjust_hue_op.cc`.
fn hue_pixel(p: [f32; 3], delta: f32) -> [f32; 3] {
    let [r, g, b] = p;
    // Which sextant of the colour circle, and which channels are max/mid/min there.
    let (v_max, v_mid, v_min, cat) = if r < g {
        if b < r {
            (g, r, b, 1)
        } else if b > g {
            (b, g, r, 3)
        } else {
            (g, b, r, 2)
        }
    } else if b < g {
        (r, g, b, 0)
    } else if b > r {
        (b, r, g, 4)
    } else {
        (r, b, g, 5)
    };
    let h = if v_max == v_min {
        0.0
    } else {
        let ratio = (v_mid - v_min) / (v_max - v_min);
        cat as f32 + if cat & 1 == 0 { ratio } else { 1.0 - ratio }
    };
    let h = wrap_hue(h + delta * 6.0);
    let cat = cpp_int(h);
    let mut ratio = h - cat as f32;
    if cat & 1 != 0 {
        ratio = 1.0 - ratio;
    }
    let v_mid = v_min + ratio * (v_max - v_min);
    match cat {
        0 => [v_max, v_mid, v_min],
        1 => [v_mid, v_max, v_min],
        2 => [v_min, v_max, v_mid],
        3 => [v_min, v_mid, v_max],
        4 => [v_mid, v_min, v_max],
        _ => [v_max, v_min, v_mid],
    }
}

/// TensorFlow's `AdjustSaturation` per pixel: `rgb_to_hsv`, the clipped scaling and
/// `hsv_to_rgb` of `adjust_saturation_op.cc`.
fn saturation_pixel(p: [f32; 3], scale: f32) -> [f32; 3] {
    let [r, g, b] = p;
    let v = cpp_max(r, cpp_max(g, b));
    let range = v - cpp_min(r, cpp_min(g, b));
    let s = if v > 0.0 { range / v } else { 0.0 };
    let norm = 1.0 / (6.0 * range);
    // TensorFlow adds the double constants 2.0 / 6.0 and 4.0 / 6.0, rounding to float once.
    let mut h = if r == v {
        norm * (g - b)
    } else if g == v {
        (((norm * (b - r)) as f64) + 2.0 / 6.0) as f32
    } else {
        (((norm * (r - g)) as f64) + 4.0 / 6.0) as f32
    };
    if range <= 0.0 {
        h = 0.0;
    }
    if h < 0.0 {
        h += 1.0;
    }
    let s = cpp_min(1.0, cpp_max(0.0, s * scale));

    let c = s * v;
    let m = v - c;
    let dh = h * 6.0;
    let cat = cpp_int(dh);
    let mut fmodu = dh;
    // TensorFlow never leaves these loops for an infinite hue (a subnormal range it flushes to
    // zero); weir skips them and the NaN that follows picks the `default:` case as TensorFlow's
    // INT_MIN category would.
    if fmodu.is_finite() {
        while fmodu <= 0.0 {
            fmodu += 2.0;
        }
        while fmodu >= 2.0 {
            fmodu -= 2.0;
        }
    }
    let x = c * (1.0 - (fmodu - 1.0).abs());
    let [rr, gg, bb] = match cat {
        0 => [c, x, 0.0],
        1 => [x, c, 0.0],
        2 => [0.0, c, x],
        3 => [0.0, x, c],
        4 => [x, 0.0, c],
        5 => [c, 0.0, x],
        _ => [0.0, 0.0, 0.0],
    };
    [rr + m, gg + m, bb + m]
}

/// `AdjustHue` or `AdjustSaturation` on CPU: TensorFlow's `AdjustHueOpBase`/
/// `AdjustSaturationOpBase` checks, then `pixel` on every RGB triple.
struct HsvKernel {
    /// The second input's name in TensorFlow's "must be scalar" message.
    param: &'static str,
    pixel: fn([f32; 3], f32) -> [f32; 3],
}

impl Kernel for HsvKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (images, param) = (ctx.input(0), ctx.input(1));
        let shape = images.shape();
        if shape.len() < 3 {
            return Err(Error::invalid_argument(format!(
                "input must be at least 3-D, got shape{}",
                format_dims(shape)
            )));
        }
        if param.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "{} must be scalar: {}",
                self.param,
                format_dims(param.shape())
            )));
        }
        let channels = shape[shape.len() - 1];
        if channels != 3 {
            return Err(Error::invalid_argument(format!(
                "input must have 3 channels but instead has {channels} channels."
            )));
        }
        let param = param.to_scalar::<f32>()?;
        let src = images.as_slice::<f32>()?;
        let mut out = vec![0.0f32; src.len()];
        for (p, q) in src.chunks_exact(3).zip(out.chunks_exact_mut(3)) {
            q.copy_from_slice(&(self.pixel)([p[0], p[1], p[2]], param));
        }
        ctx.set_output(0, Tensor::from_vec(shape, out)?);
        Ok(())
    }
}

/// TensorFlow's `UnchangedShapeWithRankAtLeast(c, 3)`: neither the channel count nor the
/// second input's rank is checked before the graph runs.
fn hsv_shape(ctx: &mut InferenceContext<'_>, op: &str) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    if let Some(r) = s.rank().filter(|&r| r < 3) {
        return Err(Error::invalid_argument(format!(
            "Shape must be at least rank 3 but is rank {r} for '{op}' with input shapes: {s}, {}.",
            ctx.input_shape(1)
        )));
    }
    ctx.set_output(0, s);
    Ok(())
}

pub(super) fn register() {
    let def = |op: &'static str,
               param: &'static str,
               shape_fn: fn(&mut InferenceContext<'_>) -> Result<()>| {
        OpDef::new(op)
            .input("images", ArgType::Attr("T"))
            .input(param, ArgType::Fixed(DType::F32))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", &[DType::F32])
            .shape_fn(shape_fn)
    };
    register_op(def("AdjustHue", "delta", |c| hsv_shape(c, "AdjustHue")));
    register_op(def("AdjustSaturation", "scale", |c| {
        hsv_shape(c, "AdjustSaturation")
    }));
    register_kernel("AdjustHue", |_| {
        Ok(Box::new(HsvKernel {
            param: "delta",
            pixel: hue_pixel,
        }))
    });
    register_kernel("AdjustSaturation", |_| {
        Ok(Box::new(HsvKernel {
            param: "scale",
            pixel: saturation_pixel,
        }))
    });
}
