//! `tf.image.extract_glimpse` (`ExtractGlimpseV2`) and `tf.compat.v1.image.extract_glimpse`
//! (`ExtractGlimpse`): a `size` window of each image at an offset, the part outside the image
//! filled with noise. The offset arithmetic (un-normalizing, un-centering, truncation to a pixel,
//! the V1/V2 differences) is Eigen's `eigen_attention.h` step for step, so the window and
//! zero-noise glimpses match TensorFlow exactly. TensorFlow's uniform and gaussian noise come
//! from unseeded Eigen generators; weir draws the same distributions from a fresh Philox stream.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Tensor,
};

use super::projective::trunc_i64;
use crate::random::philox::{box_muller_f32, fresh_seed, u32_to_f32, Philox};
use crate::random::ShapeArg;

/// What fills the part of a glimpse outside its image.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GlimpseNoise {
    /// `"uniform"`: uniform in `[min, max)` of the image (the default).
    #[default]
    Uniform,
    /// `"gaussian"`: per channel, normal with the channel's mean and deviation, clipped to its
    /// range.
    Gaussian,
    /// `"zero"`: zeros.
    Zero,
}

impl GlimpseNoise {
    /// The attr string.
    pub fn as_str(self) -> &'static str {
        match self {
            GlimpseNoise::Uniform => "uniform",
            GlimpseNoise::Gaussian => "gaussian",
            GlimpseNoise::Zero => "zero",
        }
    }
}

/// `tf.image.extract_glimpse(input, size, offsets, centered=True, normalized=True,
/// noise='uniform')`: see [`ExtractGlimpse`].
pub fn extract_glimpse(
    input: impl Into<Output>,
    size: impl Into<ShapeArg>,
    offsets: impl Into<Output>,
) -> Result<Output> {
    ExtractGlimpse::new(size).build(input, offsets)
}

/// The options of `tf.image.extract_glimpse` (`ExtractGlimpseV2`, what [`build`](Self::build)
/// adds) and `tf.compat.v1.image.extract_glimpse` (`ExtractGlimpse`, [`build_v1`](Self::build_v1),
/// whose `uniform_noise` defaults to true and whose window placement differs for un-normalized
/// coordinates).
///
/// `input` is float32 `[batch, height, width, channels]`, `offsets` float32 `[batch, 2]` rows
/// `(y, x)`: with `normalized` in `[0, 1]` (or `[-1, 1]` when also `centered`), else in pixels
/// (from the image center when `centered`). The result is `[batch, size[0], size[1],
/// channels]`.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::{ExtractGlimpse, GlimpseNoise}};
/// let g = Graph::new();
/// let img = placeholder(&g, DType::F32, Shape::new(vec![Some(2), Some(8), Some(8), Some(3)]))?;
/// let at = placeholder(&g, DType::F32, Shape::known(&[2, 2]))?;
/// let glimpse = ExtractGlimpse::new([3, 3]).noise(GlimpseNoise::Zero).build(&img, &at)?;
/// assert_eq!(glimpse.shape(), Shape::known(&[2, 3, 3, 3]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ExtractGlimpse {
    size: ShapeArg,
    centered: bool,
    normalized: bool,
    uniform_noise: Option<bool>,
    noise: GlimpseNoise,
}

impl ExtractGlimpse {
    /// Glimpses of `size` = `[height, width]` (fixed or a 1-D int32 tensor).
    pub fn new(size: impl Into<ShapeArg>) -> ExtractGlimpse {
        ExtractGlimpse {
            size: size.into(),
            centered: true,
            normalized: true,
            uniform_noise: None,
            noise: GlimpseNoise::Uniform,
        }
    }

    /// Whether offsets are relative to the image center (default true).
    pub fn centered(mut self, c: bool) -> Self {
        self.centered = c;
        self
    }

    /// Whether offsets are normalized (default true).
    pub fn normalized(mut self, n: bool) -> Self {
        self.normalized = n;
        self
    }

    /// The noise (default uniform).
    pub fn noise(mut self, n: GlimpseNoise) -> Self {
        self.noise = n;
        self
    }

    /// The `uniform_noise` attr (V1's way to ask for uniform or, when false, gaussian noise;
    /// default true for V1 and false for V2). TensorFlow rejects it set together with a noise
    /// other than uniform.
    pub fn uniform_noise(mut self, u: bool) -> Self {
        self.uniform_noise = Some(u);
        self
    }

    /// Adds an `ExtractGlimpseV2` node (`tf.image.extract_glimpse`).
    pub fn build(self, input: impl Into<Output>, offsets: impl Into<Output>) -> Result<Output> {
        let uniform = self.uniform_noise.unwrap_or(false);
        self.add("ExtractGlimpseV2", uniform, input.into(), offsets.into())
    }

    /// Adds an `ExtractGlimpse` node (`tf.compat.v1.image.extract_glimpse`).
    pub fn build_v1(self, input: impl Into<Output>, offsets: impl Into<Output>) -> Result<Output> {
        let uniform = self.uniform_noise.unwrap_or(true);
        self.add("ExtractGlimpse", uniform, input.into(), offsets.into())
    }

    fn add(&self, op: &str, uniform: bool, input: Output, offsets: Output) -> Result<Output> {
        let g = input.graph().clone();
        let size = self.size.to_output(&g)?;
        crate::new_op(&g, op)
            .input(input)
            .input(size)
            .input(offsets)
            .attr("centered", self.centered)
            .attr("normalized", self.normalized)
            .attr("uniform_noise", uniform)
            .attr("noise", self.noise.as_str())
            .build()?
            .output(0)
    }
}

struct GlimpseKernel {
    version: u8,
    centered: bool,
    normalized: bool,
    noise: GlimpseNoise,
}

/// One image's dims: height, width, channels.
#[derive(Clone, Copy)]
struct Dims {
    h: usize,
    w: usize,
    c: usize,
}

impl GlimpseKernel {
    /// The glimpse's top-left pixel `(x, y)` for offset `(x, y)` (Eigen's order), truncated.
    fn origin(&self, mut x: f32, mut y: f32, input: Dims, gw: i64, gh: i64) -> (i64, i64) {
        let (iw, ih) = (input.w as f32, input.h as f32);
        let uncenter = |x: &mut f32, y: &mut f32| {
            *x /= 2.0;
            *y /= 2.0;
            *x += iw / 2.0;
            *y += ih / 2.0;
        };
        let half_window = |x: &mut f32, y: &mut f32| {
            *x -= gw as f32 / 2.0;
            *y -= gh as f32 / 2.0;
        };
        if self.version == 1 {
            if self.normalized {
                x *= iw;
                y *= ih;
            }
            if self.centered {
                uncenter(&mut x, &mut y);
            }
            half_window(&mut x, &mut y);
        } else if self.normalized {
            x *= iw;
            y *= ih;
            if self.centered {
                uncenter(&mut x, &mut y);
                half_window(&mut x, &mut y);
            }
        } else if self.centered {
            x += iw / 2.0;
            y += ih / 2.0;
        }
        (trunc_i64(x), trunc_i64(y))
    }

    /// Fills `out` (one `[gh, gw, c]` glimpse) with this kernel's noise for `image`.
    fn fill_noise(&self, image: &[f32], d: Dims, out: &mut [f32], gen: &mut Philox) {
        match self.noise {
            GlimpseNoise::Zero => out.fill(0.0),
            GlimpseNoise::Uniform => {
                let lo = image.iter().copied().fold(f32::INFINITY, f32::min);
                let hi = image.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let range = hi - lo;
                for chunk in out.chunks_mut(4) {
                    let block = gen.next_block();
                    for (o, r) in chunk.iter_mut().zip(block) {
                        *o = lo + u32_to_f32(r) * range;
                    }
                }
            }
            GlimpseNoise::Gaussian => {
                for ch in 0..d.c {
                    let vals = || image.iter().skip(ch).step_by(d.c).copied();
                    let n = (d.h * d.w) as f32;
                    let mean = vals().sum::<f32>() / n;
                    let sigma = (vals().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n).sqrt();
                    let lo = vals().fold(f32::INFINITY, f32::min);
                    let hi = vals().fold(f32::NEG_INFINITY, f32::max);
                    for o in out.iter_mut().skip(ch).step_by(d.c) {
                        let b = gen.next_block();
                        let z = box_muller_f32(b[0], b[1]).0;
                        *o = (mean + z * sigma).min(hi).max(lo);
                    }
                }
            }
        }
    }
}

/// One axis of Eigen's placement: the first input and output positions copied and how many.
fn span(offset: i64, window: i64, input: i64) -> (bool, i64, i64, i64) {
    if offset < 0 {
        let len = (window + offset).max(0);
        (true, 0, window - len, len.min(input))
    } else if offset.saturating_add(window) >= input {
        let len = (input - offset).max(0);
        (true, offset, 0, len.min(input))
    } else {
        (false, offset, 0, window)
    }
}

impl Kernel for GlimpseKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = ctx.input(0);
        if input.rank() != 4 {
            return Err(Error::invalid_argument(format!(
                "input must be 4-dimensional (batch_size, height, width, depth){}",
                format_dims(input.shape())
            )));
        }
        let s = input.shape().to_vec();
        let size = ctx.input(1);
        if !(size.rank() == 1 && size.shape()[0] == 2) {
            return Err(Error::invalid_argument(format!(
                "input must be a vector of size 2 (height, width){}",
                format_dims(size.shape())
            )));
        }
        let hw = size.as_slice::<i32>()?;
        let (gh, gw) = (hw[0] as i64, hw[1] as i64);
        for g in [gh, gw] {
            if g < 0 {
                return Err(Error::invalid_argument(format!(
                    "Expected a non-negative size, got {g}"
                )));
            }
        }
        let offsets = ctx.input(2);
        let os = offsets.shape();
        if os.len() != 2 {
            return Err(Error::invalid_argument(format!(
                "input must be a matrix{}",
                format_dims(os)
            )));
        }
        if os[0] != s[0] {
            return Err(Error::invalid_argument(format!(
                "first dimension should be batch{}",
                format_dims(os)
            )));
        }
        if os[1] != 2 {
            return Err(Error::invalid_argument(format!(
                "second dimension should be of size 2 (y,x){}",
                format_dims(os)
            )));
        }
        let d = Dims {
            h: s[1],
            w: s[2],
            c: s[3],
        };
        let (gh_u, gw_u) = (gh as usize, gw as usize);
        let per_out = gh_u * gw_u * d.c;
        let mut out = vec![0f32; s[0] * per_out];
        if !out.is_empty() {
            let img = input.as_slice::<f32>()?;
            let off = offsets.as_slice::<f32>()?;
            let per_in = d.h * d.w * d.c;
            let mut gen = Philox::new(fresh_seed(), fresh_seed());
            for b in 0..s[0] {
                let image = &img[b * per_in..(b + 1) * per_in];
                let glimpse = &mut out[b * per_out..(b + 1) * per_out];
                let (ox, oy) = self.origin(off[2 * b + 1], off[2 * b], d, gw, gh);
                let (px, sx, bx, nx) = span(ox, gw, d.w as i64);
                let (py, sy, by, ny) = span(oy, gh, d.h as i64);
                if px || py {
                    self.fill_noise(image, d, glimpse, &mut gen);
                }
                if nx <= 0 || ny <= 0 {
                    continue;
                }
                let row = nx as usize * d.c;
                for r in 0..ny as usize {
                    let src = ((sy as usize + r) * d.w + sx as usize) * d.c;
                    let dst = ((by as usize + r) * gw_u + bx as usize) * d.c;
                    glimpse[dst..dst + row].copy_from_slice(&image[src..src + row]);
                }
            }
        }
        ctx.set_output(0, Tensor::from_vec(&[s[0], gh_u, gw_u, d.c], out)?);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let uniform: bool = node.attr("uniform_noise")?;
    let noise: String = node.attr("noise")?;
    if uniform && !noise.is_empty() && noise != "uniform" {
        return Err(Error::invalid_argument(
            "The uniform_noise and noise could not be specified at the same time",
        ));
    }
    let noise = match noise.as_str() {
        "" if uniform => GlimpseNoise::Uniform,
        "" => GlimpseNoise::Gaussian,
        "uniform" => GlimpseNoise::Uniform,
        "gaussian" => GlimpseNoise::Gaussian,
        "zero" => GlimpseNoise::Zero,
        other => {
            return Err(Error::invalid_argument(format!(
                "The noise could only be uniform, gaussian, or zero, got{other}"
            )))
        }
    };
    Ok(Box::new(GlimpseKernel {
        version: if node.op_type() == "ExtractGlimpse" {
            1
        } else {
            2
        },
        centered: node.attr("centered")?,
        normalized: node.attr("normalized")?,
        noise,
    }))
}

/// TensorFlow's shape function: rank-4 input, `[batch, 2]` offsets, and the size's value.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let input = ctx.with_rank(0, 4)?;
    let offsets = ctx.with_rank(2, 2)?;
    let batch = match (input.dim(0), offsets.dim(0)) {
        (Some(a), Some(b)) if a != b => {
            return Err(Error::invalid_argument(format!(
                "Dimensions must be equal, but are {a} and {b} for '{}' (input shape {input}, offsets shape {offsets})",
                ctx.op_type
            )))
        }
        (a, b) => a.or(b),
    };
    if let Some(n) = offsets.dim(1).filter(|&n| n != 2) {
        return Err(Error::invalid_argument(format!(
            "Dimension must be 2 but is {n} for '{}' (offsets shape {offsets})",
            ctx.op_type
        )));
    }
    let uniform: bool = ctx.attr("uniform_noise")?;
    let noise: String = ctx.attr("noise")?;
    if uniform && !noise.is_empty() && noise != "uniform" {
        return Err(Error::invalid_argument(
            "The uniform_noise should not be True when noise is not uniform",
        ));
    }
    super::projective::sized_image(ctx, batch, 1, input.dim(3))
}

pub(super) fn register() {
    for name in ["ExtractGlimpse", "ExtractGlimpseV2"] {
        register_op(
            OpDef::new(name)
                .input("input", ArgType::Fixed(DType::F32))
                .input("size", ArgType::Fixed(DType::I32))
                .input("offsets", ArgType::Fixed(DType::F32))
                .output("glimpse", ArgType::Fixed(DType::F32))
                .attr("centered", AttrKind::Bool, Some(AttrValue::Bool(true)))
                .attr("normalized", AttrKind::Bool, Some(AttrValue::Bool(true)))
                .attr("uniform_noise", AttrKind::Bool, Some(AttrValue::Bool(true)))
                .attr(
                    "noise",
                    AttrKind::Str,
                    Some(AttrValue::Str("uniform".into())),
                )
                .shape_fn(shape_fn),
        );
        register_kernel(name, make);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_clip_as_eigen() {
        // Inside: copied whole.
        assert_eq!(span(1, 2, 5), (false, 1, 0, 2));
        // Left overhang of 1: one column of noise, then the first column of the image.
        assert_eq!(span(-1, 2, 5), (true, 0, 1, 1));
        // Touching the right edge still counts as partial (the copy covers it all).
        assert_eq!(span(3, 2, 5), (true, 3, 0, 2));
        // Past the right edge: nothing copied.
        assert_eq!(span(7, 2, 5), (true, 7, 0, 0));
        // Wider than the image on both sides.
        assert_eq!(span(-1, 8, 5), (true, 0, 1, 5));
    }
}
