//! `tf.image.adjust_brightness` and `tf.image.adjust_contrast` (with TensorFlow's
//! `AdjustContrastv2` kernel): both work in float32 and convert integer images there and back,
//! saturating, as TensorFlow does.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, DType, Error, Graph, InferenceContext, Kernel, OpContext, OpDef, Output,
    Result, Tensor,
};

use super::convert::ConvertImageDtype;
use crate::array::constant;
use crate::random::RandomUniform;

/// A number given when building or a float32 scalar tensor computed in the graph (e.g. a
/// random delta).
#[derive(Clone, Debug)]
pub enum Operand {
    /// A fixed value.
    Value(f32),
    /// A float32 scalar tensor.
    Tensor(Output),
}

impl From<f32> for Operand {
    fn from(v: f32) -> Operand {
        Operand::Value(v)
    }
}
impl From<f64> for Operand {
    fn from(v: f64) -> Operand {
        Operand::Value(v as f32)
    }
}
impl From<Output> for Operand {
    fn from(o: Output) -> Operand {
        Operand::Tensor(o)
    }
}
impl From<&Output> for Operand {
    fn from(o: &Output) -> Operand {
        Operand::Tensor(o.clone())
    }
}

impl Operand {
    pub(super) fn to_output(&self, g: &Graph) -> Result<Output> {
        match self {
            Operand::Value(v) => constant(g, *v),
            Operand::Tensor(o) if o.dtype() == DType::F32 => Ok(o.clone()),
            Operand::Tensor(o) => Err(Error::invalid_argument(format!(
                "Expected a float32 scalar, got {} tensor {}",
                o.dtype(),
                o.name()
            ))),
        }
    }
}

/// Runs `f` on the image as float32 and converts the result back to the image's dtype,
/// saturating (TensorFlow leaves float32 images as they are).
pub(super) fn in_float32(
    image: Output,
    f: impl FnOnce(Output) -> Result<Output>,
) -> Result<Output> {
    let orig = image.dtype();
    if !orig.is_numeric() {
        return Err(Error::invalid_argument(format!(
            "Image adjustments need a numeric image, got {orig} tensor {}",
            image.name()
        )));
    }
    let flt = ConvertImageDtype::new(DType::F32).build(image)?;
    let adjusted = f(flt)?;
    ConvertImageDtype::new(orig).saturate(true).build(adjusted)
}

/// `tf.image.adjust_brightness(image, delta)`: adds `delta` to every value of the image scaled
/// to `[0, 1]` floats (integer images are converted there and back, saturating).
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::adjust_brightness};
/// let g = Graph::new();
/// let img = placeholder(&g, DType::U8, Shape::new(vec![None, None, Some(3)]))?;
/// let out = adjust_brightness(&img, 0.2)?;
/// assert_eq!((out.dtype(), out.shape()), (DType::U8, img.shape()));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn adjust_brightness(image: impl Into<Output>, delta: impl Into<Operand>) -> Result<Output> {
    let image = image.into();
    let g = image.graph().clone();
    let _scope = g.name_scope("adjust_brightness");
    let delta = delta.into().to_output(&g)?;
    in_float32(image, |flt| crate::math::add(&flt, &delta))
}

/// `tf.image.adjust_contrast(images, contrast_factor)`: for each image and channel,
/// `(x - mean) * contrast_factor + mean`, the mean taken over height and width. Images have at
/// least 3 dimensions; integer images are converted to floats and back, saturating.
pub fn adjust_contrast(
    images: impl Into<Output>,
    contrast_factor: impl Into<Operand>,
) -> Result<Output> {
    let images = images.into();
    super::check_image_rank(&images, 3, None)?;
    let g = images.graph().clone();
    let _scope = g.name_scope("adjust_contrast");
    let factor = contrast_factor.into().to_output(&g)?;
    in_float32(images, |flt| {
        crate::new_op(&g, "AdjustContrastv2")
            .input(flt)
            .input(factor)
            .build()?
            .output(0)
    })
}

/// `tf.image.random_brightness(image, max_delta, seed=None)`: [`adjust_brightness`] by a delta
/// drawn uniformly from `[-max_delta, max_delta)` each run.
pub fn random_brightness(
    image: impl Into<Output>,
    max_delta: f32,
    seed: Option<i64>,
) -> Result<Output> {
    if max_delta < 0.0 {
        return Err(Error::invalid_argument("max_delta must be non-negative."));
    }
    let image = image.into();
    let delta = uniform_scalar(image.graph(), -max_delta, max_delta, seed)?;
    adjust_brightness(image, delta)
}

/// `tf.image.random_contrast(image, lower, upper, seed=None)`: [`adjust_contrast`] by a
/// factor drawn uniformly from `[lower, upper)` each run.
pub fn random_contrast(
    image: impl Into<Output>,
    lower: f32,
    upper: f32,
    seed: Option<i64>,
) -> Result<Output> {
    check_factor_range(lower, upper)?;
    let image = image.into();
    let factor = uniform_scalar(image.graph(), lower, upper, seed)?;
    adjust_contrast(image, factor)
}

/// TensorFlow's checks of a random factor's range (`random_contrast`, `random_saturation`).
pub(super) fn check_factor_range(lower: f32, upper: f32) -> Result<()> {
    if upper <= lower {
        return Err(Error::invalid_argument("upper must be > lower."));
    }
    if lower < 0.0 {
        return Err(Error::invalid_argument("lower must be non-negative."));
    }
    Ok(())
}

/// `random_ops.random_uniform([], lo, hi, seed=seed)`, as TensorFlow's random image helpers
/// draw their delta or factor.
pub(super) fn uniform_scalar(
    g: &weir_graph::Graph,
    lo: f32,
    hi: f32,
    seed: Option<i64>,
) -> Result<Output> {
    let mut u = RandomUniform::new([0usize; 0]).minval(lo).maxval(hi);
    if let Some(s) = seed {
        u = u.seed(s);
    }
    u.build(g)
}

struct ContrastKernel;

impl Kernel for ContrastKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (images, factor) = (ctx.input(0), ctx.input(1));
        let shape = images.shape();
        if shape.len() < 3 {
            return Err(Error::invalid_argument(format!(
                "input must be at least 3-D, got shape{}",
                format_dims(shape)
            )));
        }
        if factor.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "contrast_factor must be scalar: {}",
                format_dims(factor.shape())
            )));
        }
        let factor = factor.to_scalar::<f32>()?;
        let src = images.as_slice::<f32>()?;
        let r = shape.len();
        let (pixels, channels) = (shape[r - 3] * shape[r - 2], shape[r - 1]);
        let mut out = vec![0.0f32; src.len()];
        let per_image = pixels * channels;
        if per_image > 0 {
            let mut means = vec![0.0f64; channels];
            for (img, dst) in src
                .chunks_exact(per_image)
                .zip(out.chunks_exact_mut(per_image))
            {
                means.iter_mut().for_each(|m| *m = 0.0);
                for px in img.chunks_exact(channels) {
                    for (m, &v) in means.iter_mut().zip(px) {
                        *m += v as f64;
                    }
                }
                let means: Vec<f32> = means.iter().map(|&m| (m / pixels as f64) as f32).collect();
                for (px, d) in img
                    .chunks_exact(channels)
                    .zip(dst.chunks_exact_mut(channels))
                {
                    for ((o, &v), &m) in d.iter_mut().zip(px).zip(&means) {
                        *o = (v - m) * factor + m;
                    }
                }
            }
        }
        ctx.set_output(0, Tensor::from_vec(shape, out)?);
        Ok(())
    }
}

fn contrast_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    if s.rank().is_some_and(|r| r < 3) {
        return Err(Error::invalid_argument(format!(
            "Shape must be at least rank 3 but is rank {} for 'AdjustContrastv2' (input shape {s})",
            s.rank().unwrap_or(0)
        )));
    }
    ctx.with_rank(1, 0)?;
    ctx.set_output(0, s);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("AdjustContrastv2")
            .input("images", ArgType::Attr("T"))
            .input("contrast_factor", ArgType::Fixed(DType::F32))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", &[DType::F32])
            .shape_fn(contrast_shape),
    );
    register_kernel("AdjustContrastv2", |_| Ok(Box::new(ContrastKernel)));
}
