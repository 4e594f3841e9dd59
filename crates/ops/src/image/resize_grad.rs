//! TensorFlow's `ResizeBilinearGrad` and `ResizeNearestNeighborGrad` kernels
//! (`resize_bilinear_op.cc`, `resize_nearest_neighbor_op.cc`): the gradients of `ResizeBilinear`
//! and `ResizeNearestNeighbor`, scattering each resized pixel's gradient back onto the pixels it
//! was read from, with the forward kernels' coordinate mapping and TensorFlow's float
//! arithmetic and accumulation order.
//!
//! As for the forward ops, rank-3 gradients (one image) are weir's extension.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    bf16, f16, format_dims, ArgType, AttrKind, AttrValue, DType, Error, HalfFloat,
    InferenceContext, Kernel, Node, OpContext, OpDef, Result, Shape, Tensor, TensorType,
};

use super::resize_bicubic::{dims4, resized_shape, resizer_gradient_state};

/// An element a gradient kernel accumulates in: TensorFlow's `+=` on `T` (wrapping for
/// integers, "widen to float, add, round" for the half types, as Eigen's `half` does).
pub(super) trait Accum: TensorType + Copy {
    const ZERO: Self;
    /// `static_cast<T>(v)` of a float.
    fn from_f32(v: f32) -> Self;
    /// `self + v` in `T`.
    fn plus(self, v: Self) -> Self;
}

macro_rules! int_accum {
    ($($t:ty),*) => {$(
        impl Accum for $t {
            const ZERO: Self = 0;
            fn from_f32(v: f32) -> Self {
                v as $t
            }
            fn plus(self, v: Self) -> Self {
                self.wrapping_add(v)
            }
        }
    )*};
}
int_accum!(u8, i8, i32);

impl Accum for f32 {
    const ZERO: Self = 0.0;
    fn from_f32(v: f32) -> Self {
        v
    }
    fn plus(self, v: Self) -> Self {
        self + v
    }
}

impl Accum for f64 {
    const ZERO: Self = 0.0;
    fn from_f32(v: f32) -> Self {
        v as f64
    }
    fn plus(self, v: Self) -> Self {
        self + v
    }
}

macro_rules! half_accum {
    ($($t:ty),*) => {$(
        impl Accum for $t {
            const ZERO: Self = <$t>::ZERO;
            fn from_f32(v: f32) -> Self {
                <$t as HalfFloat>::from_f32(v)
            }
            fn plus(self, v: Self) -> Self {
                <$t as HalfFloat>::from_f32(self.to_f32() + v.to_f32())
            }
        }
    )*};
}
half_accum!(f16, bf16);

/// `CalculateResizeScale` as TensorFlow 2.21 has it: `align_corners` applies only when both
/// sizes exceed one (a single original row maps every resized row to it with scale `1 / n`,
/// which gives the same forward values as scale 0 but other float products in a gradient).
fn resize_scale(input: usize, output: usize, align: bool) -> f32 {
    if align && input > 1 && output > 1 {
        (input - 1) as f32 / (output - 1) as f32
    } else {
        input as f32 / output as f32
    }
}

/// One resized coordinate's two source rows (or columns) and the weight of the second.
#[derive(Clone, Copy, Debug)]
struct Lerp {
    lower: usize,
    upper: usize,
    lerp: f32,
}

/// `HalfPixelScaler` or `LegacyScaler`, then the bilinear kernel's floor/ceil clamping.
fn lerp_at(i: usize, scale: f32, limit: usize, half: bool) -> Lerp {
    let v = if half {
        (i as f32 + 0.5) * scale - 0.5
    } else {
        i as f32 * scale
    };
    let f = v.floor();
    let last = limit as i64 - 1;
    Lerp {
        lower: (f as i64).clamp(0, last) as usize,
        upper: (v.ceil() as i64).clamp(0, last) as usize,
        lerp: v - f,
    }
}

/// `ResizeBilinearGrad<CPUDevice, A>::ResizeGradCore`: each product `g * wy * wx` is formed in
/// float, converted to `A` and added, the four corners in TensorFlow's order.
fn bilinear_grad<A: Accum>(
    grads: &[f32],
    gd: [usize; 4],
    [h, w]: [usize; 2],
    align: bool,
    half: bool,
) -> Vec<A> {
    let [b, rh, rw, c] = gd;
    let mut out = vec![A::ZERO; b * h * w * c];
    if out.is_empty() {
        return out;
    }
    let (hs, ws) = (resize_scale(h, rh, align), resize_scale(w, rw, align));
    let xs: Vec<Lerp> = (0..rw).map(|x| lerp_at(x, ws, w, half)).collect();
    let img = h * w * c;
    for (gimg, dst) in grads
        .chunks_exact(rh * rw * c)
        .zip(out.chunks_exact_mut(img))
    {
        for (y, grow) in gimg.chunks_exact(rw * c).enumerate() {
            let ly = lerp_at(y, hs, h, half);
            let inv_y = 1.0 - ly.lerp;
            for (lx, gpx) in xs.iter().zip(grow.chunks_exact(c)) {
                let inv_x = 1.0 - lx.lerp;
                let tl = (ly.lower * w + lx.lower) * c;
                let tr = (ly.lower * w + lx.upper) * c;
                let bl = (ly.upper * w + lx.lower) * c;
                let br = (ly.upper * w + lx.upper) * c;
                for (ch, &g) in gpx.iter().enumerate() {
                    let add = |dst: &mut [A], at: usize, v: f32| {
                        dst[at + ch] = dst[at + ch].plus(A::from_f32(v));
                    };
                    add(dst, tl, g * inv_y * inv_x);
                    add(dst, tr, g * inv_y * lx.lerp);
                    add(dst, bl, g * ly.lerp * inv_x);
                    add(dst, br, g * ly.lerp * lx.lerp);
                }
            }
        }
    }
    out
}

/// `compute_indices` of the nearest-neighbor kernels: the source index of each of `count`
/// resized coordinates (half-pixel centers without the `- 0.5`, rounding with `align_corners`,
/// floor otherwise).
fn nearest_indices(count: usize, limit: usize, scale: f32, align: bool, half: bool) -> Vec<usize> {
    (0..count)
        .map(|i| {
            let v = if half {
                (i as f32 + 0.5) * scale
            } else {
                i as f32 * scale
            };
            // `roundf` rounds half away from zero, as `f32::round` does.
            let x = if align { v.round() } else { v.floor() } as i64;
            x.clamp(0, limit as i64 - 1) as usize
        })
        .collect()
}

/// `ResizeNearestNeighborGrad<CPUDevice, T>`: every resized pixel's gradient added, in `T`, to
/// the pixel it copied.
fn nearest_grad<T: Accum>(
    grads: &[T],
    gd: [usize; 4],
    [h, w]: [usize; 2],
    align: bool,
    half: bool,
) -> Vec<T> {
    let [b, rh, rw, c] = gd;
    let mut out = vec![T::ZERO; b * h * w * c];
    if out.is_empty() || grads.is_empty() {
        return out;
    }
    let ys = nearest_indices(rh, h, resize_scale(h, rh, align), align, half);
    let xs = nearest_indices(rw, w, resize_scale(w, rw, align), align, half);
    for (gimg, dst) in grads
        .chunks_exact(rh * rw * c)
        .zip(out.chunks_exact_mut(h * w * c))
    {
        for (&oy, grow) in ys.iter().zip(gimg.chunks_exact(rw * c)) {
            for (&ox, gpx) in xs.iter().zip(grow.chunks_exact(c)) {
                let at = (oy * w + ox) * c;
                for (o, &g) in dst[at..at + c].iter_mut().zip(gpx) {
                    *o = o.plus(g);
                }
            }
        }
    }
    out
}

struct BilinearGradKernel {
    align: bool,
    half: bool,
}

impl Kernel for BilinearGradKernel {
    /// `ImageResizerGradientState`'s checks, in its order and wording, then the scatter.
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (grads, orig) = (ctx.input(0), ctx.input(1));
        let (gd, hw, shape) = resizer_gradient_state(grads, orig, self.align, self.half)?;
        let g = grads.as_slice::<f32>()?;
        let (a, hp) = (self.align, self.half);
        let out = match orig.dtype() {
            DType::F32 => Tensor::from_vec(&shape, bilinear_grad::<f32>(g, gd, hw, a, hp))?,
            DType::F64 => Tensor::from_vec(&shape, bilinear_grad::<f64>(g, gd, hw, a, hp))?,
            // The half types accumulate in float and are rounded once at the end.
            DType::F16 => Tensor::from_vec(&shape, narrow::<f16>(bilinear_grad(g, gd, hw, a, hp)))?,
            DType::BF16 => {
                Tensor::from_vec(&shape, narrow::<bf16>(bilinear_grad(g, gd, hw, a, hp)))?
            }
            dt => {
                return Err(Error::invalid_argument(format!(
                    "ResizeBilinearGrad does not take {dt}"
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

fn narrow<H: HalfFloat>(v: Vec<f32>) -> Vec<H> {
    v.into_iter().map(H::from_f32).collect()
}

struct NearestGradKernel {
    align: bool,
    half: bool,
}

impl Kernel for NearestGradKernel {
    /// `ResizeNearestNeighborOpGrad::Compute`'s checks (it takes `half_pixel_centers` together
    /// with `align_corners`, unlike the forward op), then the scatter.
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (grads, size) = (ctx.input(0), ctx.input(1));
        if !matches!(grads.rank(), 3 | 4) {
            return Err(Error::invalid_argument(format!(
                "input must be 4-dimensional{}",
                format_dims(grads.shape())
            )));
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
                "shape_t's elements must be positive",
            ));
        }
        let hw = [s[0] as usize, s[1] as usize];
        let gd = dims4(grads.shape());
        let shape = resized_shape(grads.shape(), hw);
        let (a, hp) = (self.align, self.half);
        let dt = grads.dtype();
        let out = match dt {
            DType::U8 => {
                Tensor::from_vec(&shape, nearest_grad::<u8>(grads.as_slice()?, gd, hw, a, hp))
            }
            DType::I8 => {
                Tensor::from_vec(&shape, nearest_grad::<i8>(grads.as_slice()?, gd, hw, a, hp))
            }
            DType::I32 => Tensor::from_vec(
                &shape,
                nearest_grad::<i32>(grads.as_slice()?, gd, hw, a, hp),
            ),
            DType::F16 => Tensor::from_vec(
                &shape,
                nearest_grad::<f16>(grads.as_slice()?, gd, hw, a, hp),
            ),
            DType::BF16 => Tensor::from_vec(
                &shape,
                nearest_grad::<bf16>(grads.as_slice()?, gd, hw, a, hp),
            ),
            DType::F32 => Tensor::from_vec(
                &shape,
                nearest_grad::<f32>(grads.as_slice()?, gd, hw, a, hp),
            ),
            DType::F64 => Tensor::from_vec(
                &shape,
                nearest_grad::<f64>(grads.as_slice()?, gd, hw, a, hp),
            ),
            _ => {
                return Err(Error::invalid_argument(format!(
                    "ResizeNearestNeighborGrad does not take {dt}"
                )))
            }
        }?;
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
    Ok(if node.op_type() == "ResizeBilinearGrad" {
        Box::new(BilinearGradKernel { align, half })
    } else {
        Box::new(NearestGradKernel { align, half })
    })
}

/// `ResizeBilinearGrad`'s shape: the original image's.
fn bilinear_grad_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let orig = ctx.input_shape(1).clone();
    ctx.set_output(0, orig);
    Ok(())
}

/// `ResizeNearestNeighborGrad`'s shape: the gradient's, its height and width replaced by the
/// size where it is known when building.
fn nearest_grad_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let grads = ctx.input_shape(0).clone();
    if let Some(r) = grads.rank().filter(|&r| r != 3 && r != 4) {
        return Err(Error::invalid_argument(format!(
            "Shape must be rank 4 but is rank {r} for '{}' (input 0 has shape {grads})",
            ctx.op_type
        )));
    }
    let size = ctx.with_rank(1, 1)?;
    if let Some(n) = size.dim(0).filter(|&n| n != 2) {
        return Err(Error::invalid_argument(format!(
            "Dimension must be 2 but is {n} for '{}' (input 1 has shape {size})",
            ctx.op_type
        )));
    }
    // A size sliced from `tf.shape(image)` (the gradient's) is known where the image's is.
    let (h, w) = match ctx.input_const(1).and_then(|t| t.to_vec::<i32>().ok()) {
        Some(v) if v.len() == 2 => (usize::try_from(v[0]).ok(), usize::try_from(v[1]).ok()),
        _ => match ctx.input_partial_shape(1).and_then(Shape::dims) {
            Some([h, w]) => (*h, *w),
            _ => (None, None),
        },
    };
    let out = match grads.dims() {
        Some([_, _, c]) => Shape::new(vec![h, w, *c]),
        Some([b, _, _, c]) => Shape::new(vec![*b, h, w, *c]),
        _ => Shape::unknown_of_rank(4),
    };
    ctx.set_output(0, out);
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
        OpDef::new("ResizeBilinearGrad")
            .input("grads", ArgType::Fixed(DType::F32))
            .input("original_image", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", &[DType::F32, DType::BF16, DType::F16, DType::F64])
            .shape_fn(bilinear_grad_shape),
    ));
    register_op(flags(
        OpDef::new("ResizeNearestNeighborGrad")
            .input("grads", ArgType::Attr("T"))
            .input("size", ArgType::Fixed(DType::I32))
            .output("output", ArgType::Attr("T"))
            .type_attr(
                "T",
                &[
                    DType::U8,
                    DType::I8,
                    DType::I32,
                    DType::F16,
                    DType::F32,
                    DType::F64,
                    DType::BF16,
                ],
            )
            .shape_fn(nearest_grad_shape),
    ));
    register_kernel("ResizeBilinearGrad", make);
    register_kernel("ResizeNearestNeighborGrad", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bilinear_weights_of_a_pixel_sum_to_its_gradient() {
        // 2x2 -> 3x3 legacy: every resized gradient of 1 spreads weights summing to 1.
        let g = vec![1.0f32; 9];
        let out = bilinear_grad::<f32>(&g, [1, 3, 3, 1], [2, 2], false, false);
        assert!((out.iter().sum::<f32>() - 9.0).abs() < 1e-6);
        // Legacy mapping: y = 0, 2/3, 4/3 -> rows 0, (0, 1), (1, 1).
        assert_eq!(lerp_at(2, 2.0 / 3.0, 2, false).lower, 1);
        // Half-pixel centers before the first pixel read it twice, weights summing to one.
        let l = lerp_at(0, 0.5, 4, true);
        assert_eq!((l.lower, l.upper), (0, 0));
        assert_eq!(l.lerp, 0.75);
    }

    #[test]
    fn nearest_indices_round_with_align_corners() {
        // 3 -> 5 with align_corners: scale 0.5, indices round(0, .5, 1, 1.5, 2).
        assert_eq!(nearest_indices(5, 3, 0.5, true, false), [0, 1, 1, 2, 2]);
        assert_eq!(nearest_indices(5, 3, 0.6, false, false), [0, 0, 1, 1, 2]);
        assert_eq!(nearest_indices(4, 2, 0.5, false, true), [0, 0, 1, 1]);
        // Half add rounds after each addition: 2048 + 1 is 2048 in float16.
        let big = f16::from_f32(2048.0);
        assert_eq!(big.plus(f16::ONE), big);
        assert_eq!(250u8.plus(10), 4);
    }
}
