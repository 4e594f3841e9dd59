//! TensorFlow's `ResizeBicubic` and `ResizeBicubicGrad` kernels (`resize_bicubic_op.cc`): a
//! 1024-entry table of cubic-convolution weights, Keys' `a = -0.5` with weights renormalized at
//! the borders for half-pixel centers, the legacy `a = -0.75` with clamped taps otherwise, and
//! float32 arithmetic in the kernel's order. Also the validation and shape function every
//! resize op of this family shares with `ResizeArea`.

use std::sync::OnceLock;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Result, Shape, Tensor,
};

use super::convert::Pixel;

const TABLE: usize = 1024;

/// The weight table of `InitCoeffsTable(a)`: for each of 1025 offsets, the weights of the near
/// and far taps, computed in double and stored as float.
fn coeffs(keys: bool) -> &'static [f32] {
    fn build(a: f64) -> Vec<f32> {
        let mut t = vec![0.0f32; (TABLE + 1) * 2];
        for i in 0..=TABLE {
            let x = (i as f64 / TABLE as f64) as f32 as f64;
            t[i * 2] = (((a + 2.0) * x - (a + 3.0)) * x * x + 1.0) as f32;
            let x = x + 1.0;
            t[i * 2 + 1] = (((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a) as f32;
        }
        t
    }
    static KEYS: OnceLock<Vec<f32>> = OnceLock::new();
    static LEGACY: OnceLock<Vec<f32>> = OnceLock::new();
    if keys {
        KEYS.get_or_init(|| build(-0.5))
    } else {
        LEGACY.get_or_init(|| build(-0.75))
    }
}

/// `CalculateResizeScale`.
pub(super) fn resize_scale(input: usize, output: usize, align_corners: bool) -> f32 {
    if align_corners && output > 1 {
        (input - 1) as f32 / (output - 1) as f32
    } else {
        input as f32 / output as f32
    }
}

/// The four taps of one output coordinate (`WeightsAndIndices`).
#[derive(Clone, Copy, Debug, Default)]
struct Taps {
    w: [f32; 4],
    i: [usize; 4],
}

/// `GetWeightsAndIndices`: half-pixel centers use Keys' kernel and drop (then renormalize) taps
/// outside the image; the legacy mapping repeats the edge pixel instead.
fn taps(scale: f32, out: usize, limit: usize, half: bool) -> Taps {
    let t = coeffs(half);
    let loc_f = if half {
        (out as f32 + 0.5) * scale - 0.5
    } else {
        out as f32 * scale
    };
    let loc = loc_f.floor() as i64;
    let delta = loc_f - loc as f32;
    let off = (delta * TABLE as f32).round_ties_even() as usize;
    let bound = |v: i64| v.max(0).min(limit as i64 - 1) as usize;
    let raw = [
        t[off * 2 + 1],
        t[off * 2],
        t[(TABLE - off) * 2],
        t[(TABLE - off) * 2 + 1],
    ];
    let mut r = Taps::default();
    for (k, ((i, w), raw)) in r.i.iter_mut().zip(&mut r.w).zip(raw).enumerate() {
        let want = loc - 1 + k as i64;
        *i = bound(want);
        *w = if !half || *i as i64 == want { raw } else { 0.0 };
    }
    if half {
        let sum = r.w[0] + r.w[1] + r.w[2] + r.w[3];
        if sum.abs() >= 1000.0 * f32::MIN_POSITIVE {
            let inv = 1.0 / sum;
            for w in &mut r.w {
                *w *= inv;
            }
        }
    }
    r
}

/// `[batch, height, width, channels]` of a rank-3 or rank-4 image.
pub(super) fn dims4(shape: &[usize]) -> [usize; 4] {
    match shape {
        [h, w, c] => [1, *h, *w, *c],
        [b, h, w, c] => [*b, *h, *w, *c],
        _ => [0; 4],
    }
}

/// TensorFlow's `ImageResizerState` checks, in its order and wording, returning the output
/// height and width. Rank 3 is weir's extension (as for `ResizeBilinear`), so that
/// [`Resize`](super::Resize) needs no expand_dims/squeeze.
pub(super) fn validate(
    images: &Tensor,
    size: &Tensor,
    align: bool,
    half: bool,
) -> Result<[usize; 2]> {
    if half && align {
        return Err(Error::invalid_argument(
            "If half_pixel_centers is True, align_corners must be False.",
        ));
    }
    if !matches!(images.rank(), 3 | 4) {
        return Err(Error::invalid_argument(format!(
            "input must be 4-dimensional{}",
            format_dims(images.shape())
        )));
    }
    let [_, h, w, c] = dims4(images.shape());
    if c == 0 {
        return Err(Error::invalid_argument(
            "image must have at least one channel",
        ));
    }
    if h == 0 || w == 0 {
        return Err(Error::invalid_argument(
            "input image must be of non-zero size",
        ));
    }
    if size.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "shape_t must be 1-dimensional{}",
            format_dims(size.shape())
        )));
    }
    if size.num_elements() != 2 {
        return Err(Error::invalid_argument(format!(
            "shape_t must have two elements{}",
            format_dims(size.shape())
        )));
    }
    let s = size.as_slice::<i32>()?;
    if s[0] <= 0 || s[1] <= 0 {
        return Err(Error::invalid_argument(
            "output dimensions must be positive",
        ));
    }
    Ok([s[0] as usize, s[1] as usize])
}

/// The output shape: the image's with height and width replaced.
pub(super) fn resized_shape(shape: &[usize], [oh, ow]: [usize; 2]) -> Vec<usize> {
    let mut out = shape.to_vec();
    let r = out.len();
    out[r - 3] = oh;
    out[r - 2] = ow;
    out
}

/// The shape function of the resize ops: rank 4 (or weir's rank 3), a 2-element size, and the
/// new height and width when the size is constant.
pub(super) fn resize_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let images = ctx.input_shape(0).clone();
    if let Some(r) = images.rank().filter(|&r| r != 3 && r != 4) {
        return Err(Error::invalid_argument(format!(
            "Shape must be rank 4 but is rank {r} for '{}' (input shape {images})",
            ctx.op_type
        )));
    }
    let size = ctx.with_rank(1, 1)?;
    if let Some(n) = size.dim(0).filter(|&n| n != 2) {
        return Err(Error::invalid_argument(format!(
            "Dimension must be 2 but is {n} for '{}' (size shape {size})",
            ctx.op_type
        )));
    }
    let (h, w) = match ctx.input_const(1).and_then(|t| t.to_vec::<i32>().ok()) {
        Some(v) if v.len() == 2 => (
            usize::try_from(v[0]).ok().filter(|&x| x > 0),
            usize::try_from(v[1]).ok().filter(|&x| x > 0),
        ),
        _ => (None, None),
    };
    let out = match images.dims() {
        Some([_, _, c]) => Shape::new(vec![h, w, *c]),
        Some([b, _, _, c]) => Shape::new(vec![*b, h, w, *c]),
        _ => Shape::unknown(),
    };
    ctx.set_output(0, out);
    Ok(())
}

fn bicubic<T: Pixel>(
    src: &[T],
    d: [usize; 4],
    [oh, ow]: [usize; 2],
    align: bool,
    half: bool,
) -> Vec<f32> {
    let [b, h, w, c] = d;
    let (hs, ws) = (resize_scale(h, oh, align), resize_scale(w, ow, align));
    let xs: Vec<Taps> = (0..ow).map(|x| taps(ws, x, w, half)).collect();
    let row = w * c;
    let mut out = vec![0.0f32; b * oh * ow * c];
    for (img, dst) in src
        .chunks_exact(h * row)
        .zip(out.chunks_exact_mut(oh * ow * c))
    {
        for (y, dst_row) in dst.chunks_exact_mut(ow * c).enumerate() {
            let yt = taps(hs, y, h, half);
            let rows = yt.i.map(|r| &img[r * row..(r + 1) * row]);
            for (xt, px) in xs.iter().zip(dst_row.chunks_exact_mut(c)) {
                for (ch, o) in px.iter_mut().enumerate() {
                    // Each column tap interpolated down the four rows first, as the kernel
                    // caches them, then across.
                    let mut acc = 0.0f32;
                    for k in 0..4 {
                        let at = xt.i[k] * c + ch;
                        let col = rows[0][at].to_f64() as f32 * yt.w[0]
                            + rows[1][at].to_f64() as f32 * yt.w[1]
                            + rows[2][at].to_f64() as f32 * yt.w[2]
                            + rows[3][at].to_f64() as f32 * yt.w[3];
                        acc = if k == 0 {
                            col * xt.w[0]
                        } else {
                            acc + col * xt.w[k]
                        };
                    }
                    *o = acc;
                }
            }
        }
    }
    out
}

/// The gradient scatter, in the kernel's order; `g * wy * wx` in `T`.
fn bicubic_grad<T: Pixel + std::ops::Mul<Output = T> + std::ops::AddAssign>(
    grads: &[f32],
    gd: [usize; 4],
    [h, w]: [usize; 2],
    align: bool,
    half: bool,
) -> Vec<T> {
    let [b, oh, ow, c] = gd;
    let (hs, ws) = (resize_scale(h, oh, align), resize_scale(w, ow, align));
    let xs: Vec<Taps> = (0..ow).map(|x| taps(ws, x, w, half)).collect();
    let mut out = vec![T::from_f64(0.0); b * h * w * c];
    let img = h * w * c;
    for (bi, gimg) in grads.chunks_exact(oh * ow * c).enumerate() {
        let dst = &mut out[bi * img..(bi + 1) * img];
        for (y, grow) in gimg.chunks_exact(ow * c).enumerate() {
            let yt = taps(hs, y, h, half);
            for (xt, gpx) in xs.iter().zip(grow.chunks_exact(c)) {
                for (ch, &g) in gpx.iter().enumerate() {
                    let g = T::from_f64(g as f64);
                    for j in 0..4 {
                        let gy = g * T::from_f64(yt.w[j] as f64);
                        for k in 0..4 {
                            dst[(yt.i[j] * w + xt.i[k]) * c + ch] +=
                                gy * T::from_f64(xt.w[k] as f64);
                        }
                    }
                }
            }
        }
    }
    out
}

struct BicubicKernel {
    align: bool,
    half: bool,
}

impl Kernel for BicubicKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (images, size) = (ctx.input(0), ctx.input(1));
        let o = validate(images, size, self.align, self.half)?;
        let d = dims4(images.shape());
        let shape = resized_shape(images.shape(), o);
        let dt = images.dtype();
        let v = weir_graph::match_real_dtype!(dt, T => bicubic(images.as_slice::<T>()?, d, o, self.align, self.half),
            _ => return Err(Error::invalid_argument(format!("Cannot resize a {dt} image"))));
        ctx.set_output(0, Tensor::from_vec(&shape, v)?);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

/// `ImageResizerGradientState`'s checks of the resize gradient ops, in its order and words:
/// the incoming gradient's dims (as `dims4` gives them), the original image's height and
/// width, and the output shape.
pub(super) fn resizer_gradient_state(
    grads: &Tensor,
    orig: &Tensor,
    align: bool,
    half: bool,
) -> Result<([usize; 4], [usize; 2], Vec<usize>)> {
    if half && align {
        return Err(Error::invalid_argument(
            "If half_pixel_centers is True, align_corners must be False.",
        ));
    }
    if !matches!(grads.rank(), 3 | 4) {
        return Err(Error::invalid_argument(format!(
            "input_grad must be 4-dimensional{}",
            format_dims(grads.shape())
        )));
    }
    let gd = dims4(grads.shape());
    if gd[1] == 0 || gd[2] == 0 {
        return Err(Error::invalid_argument(
            "resized dimensions must be positive",
        ));
    }
    if orig.rank() != grads.rank() {
        return Err(Error::invalid_argument(format!(
            "original_image must be 4-dimensional{}",
            format_dims(orig.shape())
        )));
    }
    let od = dims4(orig.shape());
    if od[1] == 0 || od[2] == 0 {
        return Err(Error::invalid_argument(
            "original dimensions must be positive",
        ));
    }
    let hw = [od[1], od[2]];
    Ok((gd, hw, resized_shape(grads.shape(), hw)))
}

struct BicubicGradKernel {
    align: bool,
    half: bool,
}

impl Kernel for BicubicGradKernel {
    /// `ImageResizerGradientState`'s checks, then the scatter.
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (grads, orig) = (ctx.input(0), ctx.input(1));
        let (gd, hw, shape) = resizer_gradient_state(grads, orig, self.align, self.half)?;
        let g = grads.as_slice::<f32>()?;
        let out = match orig.dtype() {
            DType::F32 => Tensor::from_vec(
                &shape,
                bicubic_grad::<f32>(g, gd, hw, self.align, self.half),
            )?,
            DType::F64 => Tensor::from_vec(
                &shape,
                bicubic_grad::<f64>(g, gd, hw, self.align, self.half),
            )?,
            dt => {
                return Err(Error::invalid_argument(format!(
                    "ResizeBicubicGrad does not take {dt}"
                )))
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let align = node.attr("align_corners")?;
    let half = node.attr("half_pixel_centers")?;
    Ok(if node.op_type() == "ResizeBicubic" {
        Box::new(BicubicKernel { align, half })
    } else {
        Box::new(BicubicGradKernel { align, half })
    })
}

/// `ResizeBicubicGrad`'s shape: the original image's, its rank checked.
fn grad_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let orig = ctx.input_shape(1).clone();
    if let Some(r) = orig.rank().filter(|&r| r != 3 && r != 4) {
        return Err(Error::invalid_argument(format!(
            "Shape must be rank 4 but is rank {r} for '{}' (input shape {orig})",
            ctx.op_type
        )));
    }
    ctx.set_output(0, orig);
    Ok(())
}

pub(super) fn register() {
    let flags = |def: OpDef| {
        def.attr(
            "align_corners",
            AttrKind::Bool,
            Some(AttrValue::Bool(false)),
        )
        .attr(
            "half_pixel_centers",
            AttrKind::Bool,
            Some(AttrValue::Bool(false)),
        )
    };
    register_op(flags(
        OpDef::new("ResizeBicubic")
            .input("images", ArgType::Attr("T"))
            .input("size", ArgType::Fixed(DType::I32))
            .output("resized_images", ArgType::Fixed(DType::F32))
            .type_attr("T", DType::REAL_NUMBER)
            .shape_fn(resize_shape),
    ));
    register_op(flags(
        OpDef::new("ResizeBicubicGrad")
            .input("grads", ArgType::Fixed(DType::F32))
            .input("original_image", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::FLOAT)
            .shape_fn(grad_shape),
    ));
    register_kernel("ResizeBicubic", make);
    register_kernel("ResizeBicubicGrad", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_sum_to_one_and_keys_drops_outside_taps() {
        // Legacy weights of an interior sample sum to one (up to float rounding).
        let t = taps(0.5, 3, 10, false);
        assert!((t.w.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert_eq!(t.i, [0, 1, 2, 3]);
        // The first half-pixel sample of an upscale reads before the image: that tap is dropped
        // and the rest renormalized.
        let t = taps(0.5, 0, 4, true);
        assert_eq!(t.w[0], 0.0);
        assert!((t.w.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        // A sample on a pixel center copies it.
        let t = taps(1.0, 2, 5, true);
        assert_eq!(t.w, [0.0, 1.0, 0.0, 0.0]);
    }
}
