//! `tf.image.crop_and_resize` with TensorFlow's `CropAndResize` CPU kernel: boxes in
//! normalized coordinates, bilinear or nearest sampling, `extrapolation_value` outside the
//! image, float32 arithmetic exactly as `crop_and_resize_op.cc` does it.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor,
};

use super::convert::Pixel;
use crate::random::ShapeArg;

/// How [`CropAndResize`] samples the image.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CropMethod {
    /// Bilinear interpolation (TensorFlow's default).
    #[default]
    Bilinear,
    /// The nearest pixel, rounding half away from zero.
    Nearest,
}

/// `tf.image.crop_and_resize(image, boxes, box_indices, crop_size)` with bilinear sampling
/// and extrapolation value 0. See [`CropAndResize`].
pub fn crop_and_resize(
    image: impl Into<Output>,
    boxes: impl Into<Output>,
    box_indices: impl Into<Output>,
    crop_size: impl Into<ShapeArg>,
) -> Result<Output> {
    CropAndResize::new(crop_size).build(image, boxes, box_indices)
}

/// The options of `tf.image.crop_and_resize(image, boxes, box_indices, crop_size,
/// method='bilinear', extrapolation_value=0.0)`.
///
/// `image` is `[batch, height, width, depth]` of any real type; `boxes` float32 `[num_boxes,
/// 4]` rows `[y1, x1, y2, x2]` in `[0, 1]` image coordinates (flipped or outside the image
/// allowed); `box_indices` int32 `[num_boxes]` picks each box's image. The result is float32
/// `[num_boxes, crop_height, crop_width, depth]`.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::{CropAndResize, CropMethod}};
/// let g = Graph::new();
/// let img = placeholder(&g, DType::U8, Shape::new(vec![None, Some(32), Some(32), Some(3)]))?;
/// let boxes = placeholder(&g, DType::F32, Shape::new(vec![None, Some(4)]))?;
/// let idx = placeholder(&g, DType::I32, Shape::new(vec![None]))?;
/// let crops = CropAndResize::new([8, 8]).method(CropMethod::Nearest).build(&img, &boxes, &idx)?;
/// assert_eq!(crops.shape(), Shape::new(vec![None, Some(8), Some(8), Some(3)]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct CropAndResize {
    crop_size: ShapeArg,
    method: CropMethod,
    extrapolation_value: f32,
}

impl CropAndResize {
    /// Crops resized to `crop_size` = `[crop_height, crop_width]` (fixed or a 1-D int32 tensor).
    pub fn new(crop_size: impl Into<ShapeArg>) -> CropAndResize {
        CropAndResize {
            crop_size: crop_size.into(),
            method: CropMethod::Bilinear,
            extrapolation_value: 0.0,
        }
    }

    /// The sampling method.
    pub fn method(mut self, m: CropMethod) -> Self {
        self.method = m;
        self
    }

    /// The value of crop pixels that fall outside the image (default 0).
    pub fn extrapolation_value(mut self, v: f32) -> Self {
        self.extrapolation_value = v;
        self
    }

    /// Adds the node.
    pub fn build(
        self,
        image: impl Into<Output>,
        boxes: impl Into<Output>,
        box_indices: impl Into<Output>,
    ) -> Result<Output> {
        let image = image.into();
        let g = image.graph().clone();
        let size = match &self.crop_size {
            ShapeArg::Fixed(d) => {
                let v = d
                    .iter()
                    .map(|&x| {
                        i32::try_from(x)
                            .map_err(|_| Error::invalid_argument("crop_size exceeds int32"))
                    })
                    .collect::<Result<Vec<i32>>>()?;
                crate::array::constant_named(&g, Tensor::from(v), "crop_size")?
            }
            ShapeArg::Tensor(o) => o.clone(),
        };
        let method = match self.method {
            CropMethod::Bilinear => "bilinear",
            CropMethod::Nearest => "nearest",
        };
        crate::new_op(&g, "CropAndResize")
            .input(image)
            .input(boxes.into())
            .input(box_indices.into())
            .input(size)
            .attr("method", method)
            .attr("extrapolation_value", self.extrapolation_value)
            .build()?
            .output(0)
    }
}

/// The crop geometry of one run.
struct Geometry {
    h: usize,
    w: usize,
    depth: usize,
    crop_h: usize,
    crop_w: usize,
}

/// One axis of a box: the source coordinate of crop index `i`, or `None` outside the image.
/// `lo`/`hi` are the box's normalized ends, `n` the image size, `crop` the crop size.
fn source_coord(lo: f32, hi: f32, n: usize, crop: usize, i: usize) -> Option<f32> {
    let last = (n - 1) as f32;
    let v = if crop > 1 {
        let scale = (hi - lo) * last / (crop - 1) as f32;
        lo * last + i as f32 * scale
    } else {
        // TensorFlow's `0.5 * (y1 + y2) * (image_height - 1)` is computed in double.
        (0.5 * (lo + hi) as f64 * (n - 1) as f64) as f32
    };
    if v < 0.0 || v > last {
        None
    } else {
        Some(v)
    }
}

fn crop_typed<T: Pixel>(
    image: &[T],
    boxes: &[f32],
    box_index: &[i32],
    geo: &Geometry,
    bilinear: bool,
    extrapolation: f32,
) -> Vec<f32> {
    let Geometry {
        h,
        w,
        depth,
        crop_h,
        crop_w,
    } = *geo;
    let mut out = vec![0.0f32; box_index.len() * crop_h * crop_w * depth];
    let per_box = crop_h * crop_w * depth;
    if per_box == 0 {
        return out;
    }
    let at = |b: usize, y: usize, x: usize, d: usize| -> f32 {
        image[((b * h + y) * w + x) * depth + d].to_f64() as f32
    };
    for ((bx, &b_in), dst) in boxes
        .chunks_exact(4)
        .zip(box_index)
        .zip(out.chunks_exact_mut(per_box))
    {
        let b = b_in as usize;
        let (y1, x1, y2, x2) = (bx[0], bx[1], bx[2], bx[3]);
        for (y, row) in dst.chunks_exact_mut(crop_w * depth).enumerate() {
            let Some(in_y) = source_coord(y1, y2, h, crop_h, y) else {
                row.fill(extrapolation);
                continue;
            };
            for (x, px) in row.chunks_exact_mut(depth).enumerate() {
                let Some(in_x) = source_coord(x1, x2, w, crop_w, x) else {
                    px.fill(extrapolation);
                    continue;
                };
                if bilinear {
                    let (top, bottom) = (in_y.floor() as usize, in_y.ceil() as usize);
                    let (left, right) = (in_x.floor() as usize, in_x.ceil() as usize);
                    let y_lerp = in_y - top as f32;
                    let x_lerp = in_x - left as f32;
                    for (d, o) in px.iter_mut().enumerate() {
                        let (tl, tr) = (at(b, top, left, d), at(b, top, right, d));
                        let (bl, br) = (at(b, bottom, left, d), at(b, bottom, right, d));
                        let t = tl + (tr - tl) * x_lerp;
                        let bt = bl + (br - bl) * x_lerp;
                        *o = t + (bt - t) * y_lerp;
                    }
                } else {
                    // `roundf`: half away from zero, as Rust's `round`.
                    let (cy, cx) = (in_y.round() as usize, in_x.round() as usize);
                    for (d, o) in px.iter_mut().enumerate() {
                        *o = at(b, cy, cx, d);
                    }
                }
            }
        }
    }
    out
}

struct CropAndResizeKernel {
    bilinear: bool,
    extrapolation_value: f32,
}

impl Kernel for CropAndResizeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (image, boxes, box_index, crop_size) =
            (ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3));
        let inv = |m: String| Err(Error::invalid_argument(m));
        if image.rank() != 4 {
            return inv(format!(
                "input image must be 4-D{}",
                format_dims(image.shape())
            ));
        }
        let s = image.shape();
        let (batch, h, w, depth) = (s[0], s[1], s[2], s[3]);
        if h == 0 || w == 0 {
            return inv("image dimensions must be positive".into());
        }
        if boxes.rank() != 2 {
            return inv(format!(
                "boxes must be 2-D, got: {}",
                format_dims(boxes.shape())
            ));
        }
        if box_index.rank() != 1 {
            return inv(format!(
                "box_indices must be rank 1 but is shape {}",
                format_dims(box_index.shape())
            ));
        }
        let num_boxes = if boxes.num_elements() == 0 && box_index.num_elements() == 0 {
            0
        } else {
            if boxes.shape()[1] != 4 {
                return inv("boxes must have 4 columns".into());
            }
            if box_index.shape()[0] != boxes.shape()[0] {
                return inv("box_index has incompatible shape".into());
            }
            boxes.shape()[0]
        };
        if crop_size.rank() != 1 {
            return inv(format!(
                "crop_size must be 1-D{}",
                format_dims(crop_size.shape())
            ));
        }
        if crop_size.shape()[0] != 2 {
            return inv(format!(
                "crop_size must have two elements{}",
                format_dims(crop_size.shape())
            ));
        }
        let cs = crop_size.as_slice::<i32>()?;
        if cs[0] <= 0 || cs[1] <= 0 {
            return inv("crop dimensions must be positive".into());
        }
        let box_index = box_index.as_slice::<i32>()?;
        if box_index.iter().any(|&b| b < 0 || b as usize >= batch) {
            return Err(Error::out_of_range(
                "box_index has values outside [0, batch_size)",
            ));
        }
        let boxes = boxes.as_slice::<f32>()?;
        if boxes.iter().any(|v| !v.is_finite()) {
            return inv("Boxes contains at least one element that is not finite".into());
        }
        let geo = Geometry {
            h,
            w,
            depth,
            crop_h: cs[0] as usize,
            crop_w: cs[1] as usize,
        };
        let (bl, ev) = (self.bilinear, self.extrapolation_value);
        let dt = image.dtype();
        let out = weir_graph::match_real_dtype!(dt, T => crop_typed(image.as_slice::<T>()?, boxes, &box_index[..num_boxes], &geo, bl, ev),
            _ => return inv(format!("Cannot crop a {dt} image")));
        let shape = [num_boxes, geo.crop_h, geo.crop_w, depth];
        ctx.set_output(0, Tensor::from_vec(&shape, out)?);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

/// TensorFlow's `CropAndResize` shape function: ranks 4, 2 and 1, `num_boxes` shared by the
/// boxes and the indices, 4 columns, the crop size from a constant when there is one.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let image = ctx.with_rank(0, 4)?;
    let boxes = ctx.with_rank(1, 2)?;
    let index = ctx.with_rank(2, 1)?;
    let num_boxes = match (boxes.dim(0), index.dim(0)) {
        (Some(a), Some(b)) if a != b => {
            return Err(Error::invalid_argument(format!(
                "Dimensions must be equal, but are {a} and {b} for 'CropAndResize'"
            )))
        }
        (a, b) => a.or(b),
    };
    if let Some(c) = boxes.dim(1).filter(|&c| c != 4) {
        return Err(Error::invalid_argument(format!(
            "Dimension must be 4 but is {c} for 'CropAndResize'"
        )));
    }
    let size = ctx.with_rank(3, 1)?;
    if let Some(n) = size.dim(0).filter(|&n| n != 2) {
        return Err(Error::invalid_argument(format!(
            "Dimension must be 2 but is {n} for 'CropAndResize'"
        )));
    }
    let (ch, cw) = match ctx.input_const(3).and_then(|t| t.to_vec::<i32>().ok()) {
        Some(v) if v.len() == 2 => {
            for x in &v {
                if *x < 0 {
                    return Err(Error::invalid_argument(format!(
                        "Dimension size, given by the value of input 3, must be non-negative but is {x}"
                    )));
                }
            }
            (Some(v[0] as usize), Some(v[1] as usize))
        }
        _ => (None, None),
    };
    ctx.set_output(0, Shape::new(vec![num_boxes, ch, cw, image.dim(3)]));
    Ok(())
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let method: String = node.attr("method")?;
    let bilinear = match method.as_str() {
        "bilinear" => true,
        "nearest" => false,
        other => {
            return Err(Error::invalid_argument(format!(
                "method must be 'bilinear' or 'nearest'{other}"
            )))
        }
    };
    Ok(Box::new(CropAndResizeKernel {
        bilinear,
        extrapolation_value: node.attr("extrapolation_value")?,
    }))
}

pub(super) fn register() {
    register_op(
        OpDef::new("CropAndResize")
            .input("image", ArgType::Attr("T"))
            .input("boxes", ArgType::Fixed(DType::F32))
            .input("box_ind", ArgType::Fixed(DType::I32))
            .input("crop_size", ArgType::Fixed(DType::I32))
            .output("crops", ArgType::Fixed(DType::F32))
            .type_attr("T", DType::REAL_NUMBER)
            .attr(
                "method",
                AttrKind::Str,
                Some(AttrValue::Str("bilinear".into())),
            )
            .attr(
                "extrapolation_value",
                AttrKind::Float,
                Some(AttrValue::Float(0.0)),
            )
            .shape_fn(shape_fn),
    );
    register_kernel("CropAndResize", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_pixel_crops_sample_the_box_centre() {
        // crop 1: 0.5 * (0.25 + 0.75) * 3 = 1.5, in double.
        assert_eq!(source_coord(0.25, 0.75, 4, 1, 0), Some(1.5));
        assert_eq!(source_coord(0.0, 1.0, 4, 3, 2), Some(3.0));
        assert_eq!(source_coord(-0.5, 1.0, 4, 2, 0), None);
        let img: Vec<u8> = (0..4).collect(); // [1, 2, 2, 1]
        let geo = Geometry {
            h: 2,
            w: 2,
            depth: 1,
            crop_h: 1,
            crop_w: 1,
        };
        let out = crop_typed(&img, &[0.0, 0.0, 1.0, 1.0], &[0], &geo, true, 0.0);
        assert_eq!(out, [1.5]);
    }
}
