//! `tf.summary.image`: TensorFlow's `ImageSummary` op, its builder and kernel.

use bytes::Bytes;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    f16, format_dims, ArgType, AttrKind, AttrValue, DType, Error, Kernel, Node, OpContext, OpDef,
    Output, Result, Tensor, TensorType,
};

use super::kernels::{encode, scalar_output, scoped_summary};
use super::proto::{summary_value::Value, Summary, SummaryImage, SummaryValue};

/// `tf.compat.v1.summary.image(name, tensor, max_outputs)` (op `ImageSummary`): a Summary with
/// the first `max_outputs` images of `tensor` (`[batch, height, width, channels]`, 1, 3 or 4
/// channels, uint8 or float) as PNGs, tagged `name/image` when `max_outputs` is 1 and
/// `name/image/0`, `name/image/1`... otherwise; added to `SUMMARIES`.
///
/// Float images are scaled into `[0, 255]` as TensorFlow scales them (by `255 / max` when no
/// value is negative, else around 128 by `127 / max|v|`); pixels with a NaN or infinite channel
/// are painted red.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, summary};
/// let g = Graph::new();
/// let images = constant(&g, Tensor::from_vec(&[2, 4, 4, 3], vec![0.5f32; 96])?)?;
/// let s = summary::image("inputs", &images, 1)?;
/// assert_eq!(s.op().op_type(), "ImageSummary");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn image(name: &str, tensor: impl Into<Output>, max_outputs: i64) -> Result<Output> {
    let tensor = tensor.into();
    let g = tensor.graph().clone();
    scoped_summary(&g, name, |tag, tags| {
        crate::new_op(&g, "ImageSummary")
            .name(format!("{tag}/"))
            .input(tags)
            .input(tensor)
            .attr("max_images", max_outputs)
            .build()?
            .output(0)
    })
}

/// `bad_color`'s default: opaque red.
fn default_bad_color() -> Result<Tensor> {
    Tensor::from_vec(&[4], vec![255u8, 0, 0, 255])
}

struct ImageKernel {
    max_images: i64,
    bad_color: Vec<u8>,
}

impl Kernel for ImageKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (tags, tensor) = (ctx.input(0), ctx.input(1));
        if tags.rank() != 0 {
            return Err(Error::invalid_argument("Tags must be a scalar"));
        }
        let shape = tensor.shape();
        if shape.len() != 4 || !matches!(shape[3], 1 | 3 | 4) {
            return Err(Error::invalid_argument(format!(
                "Tensor must be 4-D with last dim 1, 3, or 4, not {}",
                format_dims(shape)
            )));
        }
        let base_tag = String::from_utf8_lossy(&tags.to_scalar::<Bytes>()?).into_owned();
        let (batch, h, w, depth) = (shape[0], shape[1], shape[2], shape[3]);
        const LIMIT: usize = 1 << 31;
        if batch >= LIMIT || h >= LIMIT || w >= LIMIT || h.saturating_mul(w) >= 1 << 29 {
            return Err(Error::invalid_argument(format!(
                "Tensor too large for summary {}",
                format_dims(shape)
            )));
        }
        let hw = h * w;
        if hw == 0 {
            return Err(Error::invalid_argument(format!(
                "input tensor must have non-zero dims. Found: [{batch}, {h}, {w}, {depth}]."
            )));
        }
        let n = batch.min(self.max_images.max(0) as usize);
        let per_image = hw * depth;
        let images: Vec<Vec<u8>> = match tensor.dtype() {
            DType::U8 => {
                let v = tensor.as_slice::<u8>()?;
                (0..n)
                    .map(|i| v[i * per_image..(i + 1) * per_image].to_vec())
                    .collect()
            }
            DType::F32 | DType::F64 => {
                if self.bad_color.len() < depth {
                    return Err(Error::invalid_argument(format!(
                        "expected depth <= bad_color.size, got depth = {depth}, bad_color.size = {}",
                        self.bad_color.len()
                    )));
                }
                let bad = &self.bad_color[..depth];
                if tensor.dtype() == DType::F32 {
                    normalize_all::<f32>(tensor, n, per_image, depth, bad)?
                } else {
                    normalize_all::<f64>(tensor, n, per_image, depth, bad)?
                }
            }
            dt => {
                return Err(Error::invalid_argument(format!(
                    "ImageSummary does not support {dt} images"
                )))
            }
        };
        let mut summary = Summary { value: Vec::new() };
        for (i, pixels) in images.iter().enumerate() {
            // The tag depends on the number of images asked for, not the number written.
            let tag = if self.max_images > 1 {
                format!("{base_tag}/image/{i}")
            } else {
                format!("{base_tag}/image")
            };
            let png = crate::image::codecs::png_encode::write_png(
                pixels,
                w,
                h,
                depth,
                png::BitDepth::Eight,
                -1,
            )
            .ok_or_else(|| Error::internal("PNG encoding failed"))?;
            summary.value.push(SummaryValue {
                tag,
                value: Some(Value::Image(SummaryImage {
                    height: h as i32,
                    width: w as i32,
                    colorspace: depth as i32,
                    encoded_image_string: Bytes::from(png),
                })),
                ..SummaryValue::default()
            });
        }
        ctx.set_output(0, encode(&summary));
        Ok(())
    }
}

/// A float pixel type: how TensorFlow's `NormalizeFloatImage` computes in it.
pub(super) trait FloatPixel: TensorType + Copy {
    fn is_finite(self) -> bool;
    /// The value as the `float` TensorFlow takes the minimum and maximum in.
    fn to_f32(self) -> f32;
    /// `uint8(value * scale + offset)` computed in this type, truncating like C++'s cast.
    fn affine_u8(self, scale: f32, offset: f32) -> u8;
}

impl FloatPixel for f32 {
    fn is_finite(self) -> bool {
        f32::is_finite(self)
    }
    fn to_f32(self) -> f32 {
        self
    }
    fn affine_u8(self, scale: f32, offset: f32) -> u8 {
        (self * scale + offset) as u8
    }
}

impl FloatPixel for f64 {
    fn is_finite(self) -> bool {
        f64::is_finite(self)
    }
    fn to_f32(self) -> f32 {
        self as f32
    }
    fn affine_u8(self, scale: f32, offset: f32) -> u8 {
        (self * f64::from(scale) + f64::from(offset)) as u8
    }
}

impl FloatPixel for f16 {
    fn is_finite(self) -> bool {
        f16::is_finite(self)
    }
    fn to_f32(self) -> f32 {
        f32::from(self)
    }
    fn affine_u8(self, scale: f32, offset: f32) -> u8 {
        // Eigen::half rounds after the multiply and after the add.
        let scaled = f16::from_f32(f32::from(self) * f32::from(f16::from_f32(scale)));
        f32::from(f16::from_f32(
            f32::from(scaled) + f32::from(f16::from_f32(offset)),
        )) as u8
    }
}

/// The first `n` images of `tensor`, each normalized to uint8 pixels.
pub(super) fn normalize_all<T: FloatPixel>(
    tensor: &Tensor,
    n: usize,
    per_image: usize,
    depth: usize,
    bad: &[u8],
) -> Result<Vec<Vec<u8>>> {
    let v = tensor.as_slice::<T>()?;
    Ok((0..n)
        .map(|i| normalize(&v[i * per_image..(i + 1) * per_image], depth, bad))
        .collect())
}

/// TensorFlow's `NormalizeFloatImage`: the affine map into uint8 picked from the finite pixels'
/// range, and `bad` for every pixel with a non-finite channel.
fn normalize<T: FloatPixel>(values: &[T], depth: usize, bad: &[u8]) -> Vec<u8> {
    let finite = |px: &[T]| px.iter().all(|v| v.is_finite());
    let (mut min, mut max) = (f32::INFINITY, f32::NEG_INFINITY);
    for px in values.chunks(depth).filter(|px| finite(px)) {
        for v in px {
            min = min.min(v.to_f32());
            max = max.max(v.to_f32());
        }
    }
    const ZERO_THRESHOLD: f32 = 1e-6;
    let (scale, offset) = if min < 0.0 {
        let m = min.abs().max(max.abs());
        (if m < ZERO_THRESHOLD { 0.0 } else { 127.0 / m }, 128.0)
    } else {
        (
            if max < ZERO_THRESHOLD {
                0.0
            } else {
                255.0 / max
            },
            0.0,
        )
    };
    let mut out = Vec::with_capacity(values.len());
    for px in values.chunks(depth) {
        if finite(px) {
            out.extend(px.iter().map(|v| v.affine_u8(scale, offset)));
        } else {
            out.extend_from_slice(bad);
        }
    }
    out
}

fn make_kernel(node: &Node) -> Result<Box<dyn Kernel>> {
    let max_images = node.attr::<i64>("max_images").unwrap_or(3);
    let bad_color = match node.attr::<Tensor>("bad_color") {
        Ok(t) => t,
        Err(_) => default_bad_color()?,
    };
    if bad_color.dtype() != DType::U8 || bad_color.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "bad_color must be a uint8 vector, got {} of shape {}",
            bad_color.dtype(),
            format_dims(bad_color.shape())
        )));
    }
    Ok(Box::new(ImageKernel {
        max_images,
        bad_color: bad_color.as_slice::<u8>()?.to_vec(),
    }))
}

pub(super) fn register() {
    let mut def = OpDef::new("ImageSummary")
        .input("tag", ArgType::Fixed(DType::String))
        .input("tensor", ArgType::Attr("T"))
        .output("summary", ArgType::Fixed(DType::String))
        .attr("max_images", AttrKind::Int, Some(AttrValue::Int(3)));
    if let Some(a) = def.attrs.last_mut() {
        a.min = Some(1);
    }
    let bad = default_bad_color().ok().map(AttrValue::Tensor);
    let def = def
        .type_attr("T", &[DType::U8, DType::F32, DType::F64])
        .attr("bad_color", AttrKind::Tensor, bad)
        .shape_fn(scalar_output);
    register_op(def);
    register_kernel("ImageSummary", make_kernel);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_images_normalize_like_float_ones() {
        let px = normalize(&[f16::from_f32(0.0), f16::from_f32(2.0)], 1, &[255]);
        assert_eq!(px, vec![0, 255]);
    }

    #[test]
    fn positive_images_scale_by_the_maximum() {
        let px = normalize(&[0.0f32, 1.0, 2.0, 4.0], 1, &[255]);
        assert_eq!(px, vec![0, 63, 127, 255]);
    }

    #[test]
    fn mixed_sign_images_center_on_128_and_bad_pixels_take_bad_color() {
        let px = normalize(
            &[-2.0f32, 0.0, 0.0, 2.0, 1.0, 1.0, f32::NAN, 0.0],
            2,
            &[255, 0],
        );
        assert_eq!(px, vec![1, 128, 128, 255, 191, 191, 255, 0]);
    }

    #[test]
    fn all_zero_images_are_black() {
        assert_eq!(normalize(&[0.0f64; 3], 1, &[255]), vec![0, 0, 0]);
    }
}
