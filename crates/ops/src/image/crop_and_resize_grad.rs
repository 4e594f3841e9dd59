//! TensorFlow's `CropAndResizeGradImage` and `CropAndResizeGradBoxes` CPU kernels
//! (`crop_and_resize_op.cc`): the gradients of `CropAndResize` with respect to the image
//! (bilinear or nearest sampling) and to the boxes (always through the bilinear sampling), with
//! the forward kernel's coordinate arithmetic and TensorFlow's accumulation order.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    f16, format_dims, ArgType, AttrKind, AttrValue, DType, Error, HalfFloat, InferenceContext,
    Kernel, Node, OpContext, OpDef, Result, Shape, Tensor, TensorType,
};

use super::resize_grad::Accum;

/// The image types `CropAndResizeGradBoxes` reads, as `static_cast<float>` converts them.
trait ToF32: TensorType + Copy {
    fn to_f32(self) -> f32;
}

macro_rules! to_f32 {
    ($($t:ty),*) => {$(
        impl ToF32 for $t {
            fn to_f32(self) -> f32 {
                self as f32
            }
        }
    )*};
}
to_f32!(u8, u16, i8, i16, i32, i64, f32, f64);

impl ToF32 for f16 {
    fn to_f32(self) -> f32 {
        HalfFloat::to_f32(self)
    }
}

/// `ParseAndCheckBoxSizes`: the number of boxes (0 when both inputs are empty).
fn parse_boxes(boxes: &Tensor, box_index: &Tensor) -> Result<usize> {
    if boxes.num_elements() == 0 && box_index.num_elements() == 0 {
        return Ok(0);
    }
    if boxes.rank() != 2 {
        return Err(Error::invalid_argument(format!(
            "boxes must be 2-D{}",
            format_dims(boxes.shape())
        )));
    }
    let n = boxes.shape()[0];
    if boxes.shape()[1] != 4 {
        return Err(Error::invalid_argument("boxes must have 4 columns"));
    }
    if box_index.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "box_index must be 1-D{}",
            format_dims(box_index.shape())
        )));
    }
    if box_index.shape()[0] != n {
        return Err(Error::invalid_argument("box_index has incompatible shape"));
    }
    Ok(n)
}

/// `RunIfBoxIndexIsValid`'s check.
fn check_box_index(box_index: &[i32], batch: i64) -> Result<()> {
    if box_index.iter().any(|&b| b < 0 || b as i64 >= batch) {
        return Err(Error::out_of_range(
            "box_index has values outside [0, batch_size)",
        ));
    }
    Ok(())
}

/// `grads` must be `[num_boxes, crop_height, crop_width, depth]` with a positive crop.
fn check_grads(grads: &Tensor) -> Result<[usize; 4]> {
    if grads.rank() != 4 {
        return Err(Error::invalid_argument(format!(
            "grads image must be 4-D{}",
            format_dims(grads.shape())
        )));
    }
    let s = grads.shape();
    if s[1] == 0 || s[2] == 0 {
        return Err(Error::invalid_argument("grads dimensions must be positive"));
    }
    Ok([s[0], s[1], s[2], s[3]])
}

/// One box along one axis, as the kernels compute it: the source coordinate of each crop
/// index, or `None` outside the image.
struct BoxAxis {
    lo: f32,
    hi: f32,
    /// `image_size - 1` (as an int, for the kernels' mixed int/float expressions).
    last: i32,
    crop: usize,
    scale: f32,
}

impl BoxAxis {
    /// `scale` is `(hi - lo) * (image_size - 1) / (crop - 1)` in the image kernel and
    /// `(hi - lo) * ratio` in the boxes kernel: the caller computes it.
    fn coord(&self, i: usize) -> Option<f32> {
        let v = if self.crop > 1 {
            self.lo * self.last as f32 + i as f32 * self.scale
        } else {
            // `0.5 * (y1 + y2) * (image_height - 1)` is computed in double.
            (0.5 * (self.lo + self.hi) as f64 * self.last as f64) as f32
        };
        // TensorFlow reads out of bounds for a NaN coordinate (its boxes are not checked here);
        // weir skips it like a coordinate outside the image.
        (v >= 0.0 && v <= self.last as f32).then_some(v)
    }
}

fn image_scale(lo: f32, hi: f32, last: i32, crop: usize) -> f32 {
    if crop > 1 {
        (hi - lo) * last as f32 / (crop - 1) as f32
    } else {
        0.0
    }
}

/// `CropAndResizeBackpropImage<CPUDevice, T>`, one box after the other.
fn grad_image<T: Accum>(
    grads: &[f32],
    boxes: &[f32],
    box_index: &[i32],
    [batch, h, w, depth]: [usize; 4],
    [crop_h, crop_w]: [usize; 2],
    bilinear: bool,
) -> Vec<T> {
    let mut out = vec![T::ZERO; batch * h * w * depth];
    let per_box = crop_h * crop_w * depth;
    if per_box == 0 || out.is_empty() {
        return out;
    }
    let (lh, lw) = (h as i32 - 1, w as i32 - 1);
    let at = |b: usize, y: usize, x: usize| ((b * h + y) * w + x) * depth;
    for ((bx, &b_in), g) in boxes
        .chunks_exact(4)
        .zip(box_index)
        .zip(grads.chunks_exact(per_box))
    {
        let b = b_in as usize;
        let ys = BoxAxis {
            lo: bx[0],
            hi: bx[2],
            last: lh,
            crop: crop_h,
            scale: image_scale(bx[0], bx[2], lh, crop_h),
        };
        let xs = BoxAxis {
            lo: bx[1],
            hi: bx[3],
            last: lw,
            crop: crop_w,
            scale: image_scale(bx[1], bx[3], lw, crop_w),
        };
        for (y, grow) in g.chunks_exact(crop_w * depth).enumerate() {
            let Some(in_y) = ys.coord(y) else { continue };
            let (top, bottom) = (in_y.floor() as usize, in_y.ceil() as usize);
            let y_lerp = in_y - top as f32;
            for (x, gpx) in grow.chunks_exact(depth).enumerate() {
                let Some(in_x) = xs.coord(x) else { continue };
                if bilinear {
                    let (left, right) = (in_x.floor() as usize, in_x.ceil() as usize);
                    let x_lerp = in_x - left as f32;
                    let (tl, tr) = (at(b, top, left), at(b, top, right));
                    let (bl, br) = (at(b, bottom, left), at(b, bottom, right));
                    for (d, &gv) in gpx.iter().enumerate() {
                        let mut add =
                            |i: usize, v: f32| out[i + d] = out[i + d].plus(T::from_f32(v));
                        let dtop = (1.0 - y_lerp) * gv;
                        add(tl, (1.0 - x_lerp) * dtop);
                        add(tr, x_lerp * dtop);
                        let dbottom = y_lerp * gv;
                        add(bl, (1.0 - x_lerp) * dbottom);
                        add(br, x_lerp * dbottom);
                    }
                } else {
                    // `roundf`: half away from zero, as `f32::round`.
                    let i = at(b, in_y.round() as usize, in_x.round() as usize);
                    for (o, &gv) in out[i..i + depth].iter_mut().zip(gpx) {
                        *o = o.plus(T::from_f32(gv));
                    }
                }
            }
        }
    }
    out
}

/// `CropAndResizeBackpropBoxes<CPUDevice, T>`: the bilinear sampling's derivative with respect
/// to each box corner, accumulated in float in the kernel's order.
fn grad_boxes<T: ToF32>(
    grads: &[f32],
    image: &[T],
    boxes: &[f32],
    box_index: &[i32],
    [h, w, depth]: [usize; 3],
    [crop_h, crop_w]: [usize; 2],
) -> Vec<f32> {
    let mut out = vec![0.0f32; boxes.len()];
    let per_box = crop_h * crop_w * depth;
    if per_box == 0 {
        return out;
    }
    let (lh, lw) = (h as i32 - 1, w as i32 - 1);
    let ratio = |last: i32, crop: usize| {
        if crop > 1 {
            last as f32 / (crop - 1) as f32
        } else {
            0.0
        }
    };
    let (h_ratio, w_ratio) = (ratio(lh, crop_h), ratio(lw, crop_w));
    let px =
        |b: usize, y: usize, x: usize, d: usize| image[((b * h + y) * w + x) * depth + d].to_f32();
    // `float += double` (the single-pixel crop's terms are doubles) adds in double.
    let add_f64 = |acc: &mut f32, v: f64| *acc = (*acc as f64 + v) as f32;
    for (((bx, &b_in), g), gb) in boxes
        .chunks_exact(4)
        .zip(box_index)
        .zip(grads.chunks_exact(per_box))
        .zip(out.chunks_exact_mut(4))
    {
        let b = b_in as usize;
        let (y1, x1, y2, x2) = (bx[0], bx[1], bx[2], bx[3]);
        let scale =
            |lo: f32, hi: f32, r: f32, crop: usize| if crop > 1 { (hi - lo) * r } else { 0.0 };
        let ys = BoxAxis {
            lo: y1,
            hi: y2,
            last: lh,
            crop: crop_h,
            scale: scale(y1, y2, h_ratio, crop_h),
        };
        let xs = BoxAxis {
            lo: x1,
            hi: x2,
            last: lw,
            crop: crop_w,
            scale: scale(x1, x2, w_ratio, crop_w),
        };
        for (y, grow) in g.chunks_exact(crop_w * depth).enumerate() {
            let Some(in_y) = ys.coord(y) else { continue };
            let (top, bottom) = (in_y.floor() as usize, in_y.ceil() as usize);
            let y_lerp = in_y - top as f32;
            for (x, gpx) in grow.chunks_exact(depth).enumerate() {
                let Some(in_x) = xs.coord(x) else { continue };
                let (left, right) = (in_x.floor() as usize, in_x.ceil() as usize);
                let x_lerp = in_x - left as f32;
                for (d, &top_grad) in gpx.iter().enumerate() {
                    let tl = px(b, top, left, d);
                    let tr = px(b, top, right, d);
                    let bl = px(b, bottom, left, d);
                    let br = px(b, bottom, right, d);
                    let mut grad_y = (1.0 - x_lerp) * (bl - tl) + x_lerp * (br - tr);
                    let mut grad_x = (1.0 - y_lerp) * (tr - tl) + y_lerp * (br - bl);
                    grad_y *= top_grad;
                    grad_x *= top_grad;
                    if crop_h > 1 {
                        gb[0] += grad_y * (lh as f32 - y as f32 * h_ratio);
                        gb[2] += grad_y * (y as f32 * h_ratio);
                    } else {
                        let v = grad_y as f64 * 0.5 * lh as f64;
                        add_f64(&mut gb[0], v);
                        add_f64(&mut gb[2], v);
                    }
                    if crop_w > 1 {
                        gb[1] += grad_x * (lw as f32 - x as f32 * w_ratio);
                        gb[3] += grad_x * (x as f32 * w_ratio);
                    } else {
                        let v = grad_x as f64 * 0.5 * lw as f64;
                        add_f64(&mut gb[1], v);
                        add_f64(&mut gb[3], v);
                    }
                }
            }
        }
    }
    out
}

struct GradImageKernel {
    bilinear: bool,
}

impl Kernel for GradImageKernel {
    /// `CropAndResizeGradImageOp::ComputeAsync`'s checks, in its order and wording.
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (grads, boxes, box_index, image_size) =
            (ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3));
        let [n, crop_h, crop_w, depth] = check_grads(grads)?;
        let num_boxes = parse_boxes(boxes, box_index)?;
        if n != num_boxes {
            return Err(Error::invalid_argument(
                "boxes and grads have incompatible shape",
            ));
        }
        if image_size.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "image_size must be 1-D{}",
                format_dims(image_size.shape())
            )));
        }
        if image_size.shape()[0] != 4 {
            return Err(Error::invalid_argument(format!(
                "image_size must have 4 elements{}",
                format_dims(image_size.shape())
            )));
        }
        let s = image_size.as_slice::<i32>()?;
        if s[1] <= 0 || s[2] <= 0 {
            return Err(Error::invalid_argument("image dimensions must be positive"));
        }
        if depth as i64 != s[3] as i64 {
            return Err(Error::invalid_argument(
                "image_size and grads are incompatible",
            ));
        }
        if s[0] < 0 {
            return Err(Error::invalid_argument(format!(
                "Expected a non-negative size, got {}",
                s[0]
            )));
        }
        let box_index = &box_index.as_slice::<i32>()?[..num_boxes];
        check_box_index(box_index, s[0] as i64)?;
        let dims = [s[0] as usize, s[1] as usize, s[2] as usize, depth];
        let (g, b) = (grads.as_slice::<f32>()?, boxes.as_slice::<f32>()?);
        let crop = [crop_h, crop_w];
        let bl = self.bilinear;
        let dt = ctx.output_dtype(0);
        let out = match dt {
            DType::F32 => {
                Tensor::from_vec(&dims, grad_image::<f32>(g, b, box_index, dims, crop, bl))
            }
            DType::F64 => {
                Tensor::from_vec(&dims, grad_image::<f64>(g, b, box_index, dims, crop, bl))
            }
            DType::F16 => {
                Tensor::from_vec(&dims, grad_image::<f16>(g, b, box_index, dims, crop, bl))
            }
            _ => {
                return Err(Error::invalid_argument(format!(
                    "CropAndResizeGradImage does not take {dt}"
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

struct GradBoxesKernel;

impl Kernel for GradBoxesKernel {
    /// `CropAndResizeGradBoxesOp::ComputeAsync`'s checks, in its order and wording.
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (grads, image, boxes, box_index) =
            (ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3));
        let [n, crop_h, crop_w, depth] = check_grads(grads)?;
        if image.rank() != 4 {
            return Err(Error::invalid_argument(format!(
                "input image must be 4-D{}",
                format_dims(image.shape())
            )));
        }
        let s = image.shape();
        let (batch, h, w) = (s[0], s[1], s[2]);
        if h == 0 || w == 0 {
            return Err(Error::invalid_argument("image dimensions must be positive"));
        }
        if s[3] != depth {
            return Err(Error::invalid_argument("image, grads depth differ"));
        }
        let num_boxes = parse_boxes(boxes, box_index)?;
        if n != num_boxes {
            return Err(Error::invalid_argument(
                "boxes and grads have incompatible shape",
            ));
        }
        let box_index = &box_index.as_slice::<i32>()?[..num_boxes];
        check_box_index(box_index, batch as i64)?;
        let (g, b) = (grads.as_slice::<f32>()?, boxes.as_slice::<f32>()?);
        let b = &b[..num_boxes * 4];
        let (hwd, crop) = ([h, w, depth], [crop_h, crop_w]);
        let dt = image.dtype();
        let out = match dt {
            DType::U8 => grad_boxes::<u8>(g, image.as_slice()?, b, box_index, hwd, crop),
            DType::U16 => grad_boxes::<u16>(g, image.as_slice()?, b, box_index, hwd, crop),
            DType::I8 => grad_boxes::<i8>(g, image.as_slice()?, b, box_index, hwd, crop),
            DType::I16 => grad_boxes::<i16>(g, image.as_slice()?, b, box_index, hwd, crop),
            DType::I32 => grad_boxes::<i32>(g, image.as_slice()?, b, box_index, hwd, crop),
            DType::I64 => grad_boxes::<i64>(g, image.as_slice()?, b, box_index, hwd, crop),
            DType::F16 => grad_boxes::<f16>(g, image.as_slice()?, b, box_index, hwd, crop),
            DType::F32 => grad_boxes::<f32>(g, image.as_slice()?, b, box_index, hwd, crop),
            DType::F64 => grad_boxes::<f64>(g, image.as_slice()?, b, box_index, hwd, crop),
            _ => {
                return Err(Error::invalid_argument(format!(
                    "CropAndResizeGradBoxes does not take {dt}"
                )))
            }
        };
        ctx.set_output(0, Tensor::from_vec(&[num_boxes, 4], out)?);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let method: String = node.attr("method")?;
    if node.op_type() == "CropAndResizeGradBoxes" {
        if method != "bilinear" {
            return Err(Error::invalid_argument(format!(
                "method must be 'bilinear'{method}"
            )));
        }
        return Ok(Box::new(GradBoxesKernel));
    }
    let bilinear = match method.as_str() {
        "bilinear" => true,
        "nearest" => false,
        other => {
            return Err(Error::invalid_argument(format!(
                "method must be 'bilinear' or 'nearest'{other}"
            )))
        }
    };
    Ok(Box::new(GradImageKernel { bilinear }))
}

/// `CropAndResizeGradImage`'s shape: the `image_size` shape tensor's value, of rank 4.
fn grad_image_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let size = ctx.with_rank(3, 1)?;
    let out = match ctx.input_const(3).and_then(|t| t.to_vec::<i32>().ok()) {
        Some(v) => {
            let mut dims = Vec::with_capacity(v.len());
            for &d in &v {
                dims.push(match d {
                    -1 => None,
                    d if d < 0 => {
                        return Err(Error::invalid_argument(format!(
                            "Dimension {d} must be >= -1 for '{}'",
                            ctx.op_type
                        )))
                    }
                    d => Some(d as usize),
                });
            }
            Shape::new(dims)
        }
        None => match (ctx.input_partial_shape(3), size.dim(0)) {
            (Some(p), _) => p.clone(),
            (None, Some(n)) => Shape::unknown_of_rank(n),
            (None, None) => Shape::unknown_of_rank(4),
        },
    };
    if let Some(r) = out.rank().filter(|&r| r != 4) {
        return Err(Error::invalid_argument(format!(
            "Shape must be rank 4 but is rank {r} for '{}'",
            ctx.op_type
        )));
    }
    ctx.set_output(0, out);
    Ok(())
}

/// `CropAndResizeGradBoxes`'s shape: the boxes'.
fn grad_boxes_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let boxes = ctx.input_shape(2).clone();
    ctx.set_output(0, boxes);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("CropAndResizeGradImage")
            .input("grads", ArgType::Fixed(DType::F32))
            .input("boxes", ArgType::Fixed(DType::F32))
            .input("box_ind", ArgType::Fixed(DType::I32))
            .input("image_size", ArgType::Fixed(DType::I32))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", &[DType::F32, DType::F16, DType::F64])
            .attr(
                "method",
                AttrKind::Str,
                Some(AttrValue::Str("bilinear".into())),
            )
            .shape_fn(grad_image_shape),
    );
    register_op(
        OpDef::new("CropAndResizeGradBoxes")
            .input("grads", ArgType::Fixed(DType::F32))
            .input("image", ArgType::Attr("T"))
            .input("boxes", ArgType::Fixed(DType::F32))
            .input("box_ind", ArgType::Fixed(DType::I32))
            .output("output", ArgType::Fixed(DType::F32))
            .type_attr(
                "T",
                &[
                    DType::U8,
                    DType::U16,
                    DType::I8,
                    DType::I16,
                    DType::I32,
                    DType::I64,
                    DType::F16,
                    DType::F32,
                    DType::F64,
                ],
            )
            .attr(
                "method",
                AttrKind::Str,
                Some(AttrValue::Str("bilinear".into())),
            )
            .shape_fn(grad_boxes_shape),
    );
    register_kernel("CropAndResizeGradImage", make);
    register_kernel("CropAndResizeGradBoxes", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_image_box_spreads_bilinear_weights() {
        // A 1x1 crop of the whole 3x3 image samples its centre pixel (1, 1).
        let out = grad_image::<f32>(
            &[2.0],
            &[0.0, 0.0, 1.0, 1.0],
            &[0],
            [1, 3, 3, 1],
            [1, 1],
            true,
        );
        assert_eq!(out, [0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0]);
        // Moving a box edge moves the sample across the image's slope: a ramp along x
        // (0, 1, 2 per row) gives d/dx1 = d/dx2 = 0.5 * (width - 1) * slope.
        let ramp: Vec<f32> = (0..9).map(|i| (i % 3) as f32).collect();
        let d = grad_boxes(
            &[1.0],
            &ramp,
            &[0.0, 0.2, 1.0, 0.6],
            &[0],
            [3, 3, 1],
            [1, 1],
        );
        assert_eq!(d, [0.0, 1.0, 0.0, 1.0]);
    }
}
