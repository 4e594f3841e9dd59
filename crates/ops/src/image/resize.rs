//! `tf.image.resize` with TensorFlow's `ResizeBilinear` and `ResizeNearestNeighbor` kernels:
//! half-pixel centers (TensorFlow 2's `tf.image.resize`), the legacy mapping, and
//! `align_corners` (TensorFlow 1's option).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor,
};

use super::convert::Pixel;
use crate::random::ShapeArg;

/// How [`resize`] computes new pixels (`tf.image.ResizeMethod`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ResizeMethod {
    /// Bilinear interpolation; the result is float32.
    #[default]
    Bilinear,
    /// The nearest input pixel; the result keeps the image's dtype.
    NearestNeighbor,
    /// Bicubic interpolation (`ResizeBicubic`); the result is float32.
    Bicubic,
    /// Area averaging (`ResizeArea`, which has no half-pixel option); the result is float32.
    Area,
}

/// `tf.image.resize(images, size)` with bilinear interpolation and half-pixel centers. See
/// [`Resize`].
pub fn resize(images: impl Into<Output>, size: [usize; 2]) -> Result<Output> {
    Resize::new(size).build(images)
}

/// The options of `tf.image.resize(images, size, method=BILINEAR)` (TensorFlow 2 semantics:
/// half-pixel centers) and of `tf.compat.v1.image.resize(..., align_corners=False)`.
///
/// Images are `[height, width, channels]` or `[batch, height, width, channels]`; `size` is the
/// new `[height, width]`, fixed or a 1-D int32 tensor.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::{Resize, ResizeMethod}};
/// let g = Graph::new();
/// let img = placeholder(&g, DType::U8, Shape::new(vec![None, Some(32), Some(32), Some(3)]))?;
/// let small = Resize::new([16, 16]).method(ResizeMethod::NearestNeighbor).build(&img)?;
/// assert_eq!((small.dtype(), small.shape()), (DType::U8, Shape::new(vec![None, Some(16), Some(16), Some(3)])));
/// let smooth = Resize::new([64, 64]).build(&img)?;
/// assert_eq!(smooth.dtype(), DType::F32);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Resize {
    size: ShapeArg,
    method: ResizeMethod,
    align_corners: bool,
    half_pixel_centers: bool,
    name: Option<String>,
}

impl Resize {
    /// Resize to `size` = `[height, width]`, bilinear with half-pixel centers.
    pub fn new(size: impl Into<ShapeArg>) -> Resize {
        Resize {
            size: size.into(),
            method: ResizeMethod::Bilinear,
            align_corners: false,
            half_pixel_centers: true,
            name: None,
        }
    }

    /// The interpolation.
    pub fn method(mut self, m: ResizeMethod) -> Self {
        self.method = m;
        self
    }

    /// TensorFlow 1's `align_corners`: the corner pixels of input and output line up. Turns
    /// half-pixel centers off, as `tf.compat.v1.image.resize` does.
    pub fn align_corners(mut self, a: bool) -> Self {
        self.align_corners = a;
        if a {
            self.half_pixel_centers = false;
        }
        self
    }

    /// Whether pixel centers sit at half-integer coordinates (default true, as in TensorFlow 2;
    /// false gives TensorFlow 1's legacy mapping).
    pub fn half_pixel_centers(mut self, h: bool) -> Self {
        self.half_pixel_centers = h;
        self
    }

    /// The node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the node.
    pub fn build(self, images: impl Into<Output>) -> Result<Output> {
        let images = images.into();
        super::check_image_rank(&images, 3, Some(4))?;
        let g = images.graph().clone();
        let size = match &self.size {
            ShapeArg::Fixed(d) if d.len() != 2 => {
                return Err(Error::invalid_argument(format!(
                    "'size' must be a 1-D Tensor of 2 elements: new_height, new_width, got {}",
                    format_dims(d)
                )))
            }
            ShapeArg::Fixed(d) => {
                let v = d
                    .iter()
                    .map(|&x| {
                        i32::try_from(x).map_err(|_| Error::invalid_argument("size exceeds int32"))
                    })
                    .collect::<Result<Vec<i32>>>()?;
                crate::array::constant_named(&g, Tensor::from(v), "size")?
            }
            ShapeArg::Tensor(o) => o.clone(),
        };
        let op = match self.method {
            ResizeMethod::Bilinear => "ResizeBilinear",
            ResizeMethod::NearestNeighbor => "ResizeNearestNeighbor",
            ResizeMethod::Bicubic => "ResizeBicubic",
            ResizeMethod::Area => "ResizeArea",
        };
        let mut b = crate::new_op(&g, op)
            .maybe_name(self.name.as_deref())
            .input(images)
            .input(size)
            .attr("align_corners", self.align_corners);
        if self.method != ResizeMethod::Area {
            b = b.attr("half_pixel_centers", self.half_pixel_centers);
        }
        b.build()?.output(0)
    }
}

/// Where each output coordinate reads from along one axis.
struct Axis {
    lower: Vec<usize>,
    upper: Vec<usize>,
    lerp: Vec<f32>,
}

fn scale(input: usize, output: usize, align_corners: bool) -> f32 {
    if align_corners && output > 1 {
        (input - 1) as f32 / (output - 1) as f32
    } else {
        input as f32 / output as f32
    }
}

fn bilinear_axis(input: usize, output: usize, align: bool, half: bool) -> Axis {
    let s = scale(input, output, align);
    let mut a = Axis {
        lower: Vec::with_capacity(output),
        upper: Vec::with_capacity(output),
        lerp: Vec::with_capacity(output),
    };
    for i in 0..output {
        let x = if half {
            (i as f32 + 0.5) * s - 0.5
        } else {
            i as f32 * s
        };
        let f = x.floor();
        a.lower.push((f as i64).max(0) as usize);
        a.upper
            .push((x.ceil() as i64).min(input as i64 - 1) as usize);
        a.lerp.push(x - f);
    }
    a
}

fn nearest_axis(input: usize, output: usize, align: bool, half: bool) -> Vec<usize> {
    let s = scale(input, output, align);
    (0..output)
        .map(|i| {
            let x = if half {
                (i as f32 + 0.5) * s
            } else {
                i as f32 * s
            };
            let v = if align { x.round() } else { x.floor() } as i64;
            v.min(input as i64 - 1).max(0) as usize
        })
        .collect()
}

/// `[batch, height, width, channels]` of a rank-3 or rank-4 image.
fn dims4(shape: &[usize]) -> [usize; 4] {
    match shape {
        [h, w, c] => [1, *h, *w, *c],
        [b, h, w, c] => [*b, *h, *w, *c],
        _ => [0; 4],
    }
}

fn bilinear<T: Pixel>(
    src: &[T],
    d: [usize; 4],
    oh: usize,
    ow: usize,
    align: bool,
    half: bool,
) -> Vec<f32> {
    let [b, h, w, c] = d;
    let ys = bilinear_axis(h, oh, align, half);
    let xs = bilinear_axis(w, ow, align, half);
    // Column offsets in elements, computed once for every row.
    let x0: Vec<usize> = xs.lower.iter().map(|&x| x * c).collect();
    let x1: Vec<usize> = xs.upper.iter().map(|&x| x * c).collect();
    let mut out = vec![0.0f32; b * oh * ow * c];
    let row = w * c;
    let mut img_f = vec![0.0f32; h * row];
    for (img, dst) in src
        .chunks_exact(h * row)
        .zip(out.chunks_exact_mut(oh * ow * c))
    {
        // One conversion pass, so the interpolation reads contiguous floats.
        for (f, &v) in img_f.iter_mut().zip(img) {
            *f = v.to_f64() as f32;
        }
        for (oy, dst_row) in dst.chunks_exact_mut(ow * c).enumerate() {
            let top = &img_f[ys.lower[oy] * row..(ys.lower[oy] + 1) * row];
            let bottom = &img_f[ys.upper[oy] * row..(ys.upper[oy] + 1) * row];
            let yl = ys.lerp[oy];
            for (ox, px) in dst_row.chunks_exact_mut(c).enumerate() {
                let (a, bb, xl) = (x0[ox], x1[ox], xs.lerp[ox]);
                for (ch, o) in px.iter_mut().enumerate() {
                    let (tl, tr) = (top[a + ch], top[bb + ch]);
                    let (bl, br) = (bottom[a + ch], bottom[bb + ch]);
                    let t = tl + (tr - tl) * xl;
                    let btm = bl + (br - bl) * xl;
                    *o = t + (btm - t) * yl;
                }
            }
        }
    }
    out
}

fn nearest<T: Clone>(
    src: &[T],
    d: [usize; 4],
    oh: usize,
    ow: usize,
    align: bool,
    half: bool,
) -> Vec<T> {
    let [b, h, w, c] = d;
    let ys = nearest_axis(h, oh, align, half);
    let xs = nearest_axis(w, ow, align, half);
    let mut out = Vec::with_capacity(b * oh * ow * c);
    for img in src.chunks_exact(h * w * c) {
        for &y in &ys {
            let row = &img[y * w * c..(y + 1) * w * c];
            for &x in &xs {
                out.extend_from_slice(&row[x * c..(x + 1) * c]);
            }
        }
    }
    out
}

struct ResizeKernel {
    bilinear: bool,
    align_corners: bool,
    half_pixel_centers: bool,
}

impl ResizeKernel {
    /// TensorFlow's `ImageResizerState` checks, in its order and wording.
    fn validate(&self, images: &Tensor, size: &Tensor) -> Result<(usize, usize)> {
        if self.half_pixel_centers && self.align_corners {
            return Err(Error::invalid_argument(
                "If half_pixel_centers is True, align_corners must be False.",
            ));
        }
        // Rank 3 is weir's extension so that `resize` needs no expand_dims/squeeze.
        if !matches!(images.rank(), 3 | 4) {
            return Err(Error::invalid_argument(format!(
                "input must be 4-dimensional{}",
                format_dims(images.shape())
            )));
        }
        if size.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "shape_t must be 1-D{}",
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
        Ok((s[0] as usize, s[1] as usize))
    }
}

impl Kernel for ResizeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (images, size) = (ctx.input(0), ctx.input(1));
        let (oh, ow) = self.validate(images, size)?;
        let shape = images.shape();
        let d = dims4(shape);
        let mut out_shape = shape.to_vec();
        let r = shape.len();
        out_shape[r - 3] = oh;
        out_shape[r - 2] = ow;
        let (a, hp) = (self.align_corners, self.half_pixel_centers);
        let dt = images.dtype();
        let out = if self.bilinear {
            let v = weir_graph::match_real_dtype!(dt, T => bilinear(images.as_slice::<T>()?, d, oh, ow, a, hp),
                _ => return Err(Error::invalid_argument(format!("Cannot resize a {dt} image"))));
            Tensor::from_vec(&out_shape, v)?
        } else {
            weir_graph::match_real_dtype!(dt, T => Tensor::from_vec(&out_shape, nearest(images.as_slice::<T>()?, d, oh, ow, a, hp))?,
                _ => return Err(Error::invalid_argument(format!("Cannot resize a {dt} image"))))
        };
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let images = ctx.input_shape(0).clone();
    if let Some(r) = images.rank() {
        if r != 3 && r != 4 {
            return Err(Error::invalid_argument(format!(
                "Shape must be rank 4 but is rank {r} for '{}' (input shape {images})",
                ctx.op_type
            )));
        }
    }
    let size = ctx.with_rank(1, 1)?;
    if size.dim(0).is_some_and(|n| n != 2) {
        return Err(Error::invalid_argument(format!(
            "Dimension must be 2 but is {} for '{}' (size shape {size})",
            size.dim(0).unwrap_or(0),
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

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(ResizeKernel {
        bilinear: node.op_type() == "ResizeBilinear",
        align_corners: node.attr("align_corners")?,
        half_pixel_centers: node.attr("half_pixel_centers")?,
    }))
}

pub(super) fn register() {
    for (name, out) in [
        ("ResizeBilinear", ArgType::Fixed(DType::F32)),
        ("ResizeNearestNeighbor", ArgType::Attr("T")),
    ] {
        register_op(
            OpDef::new(name)
                .input("images", ArgType::Attr("T"))
                .input("size", ArgType::Fixed(DType::I32))
                .output("resized_images", out)
                .type_attr("T", DType::REAL_NUMBER)
                .attr(
                    "align_corners",
                    AttrKind::Bool,
                    Some(AttrValue::Bool(false)),
                )
                .attr(
                    "half_pixel_centers",
                    AttrKind::Bool,
                    Some(AttrValue::Bool(false)),
                )
                .shape_fn(shape_fn),
        );
        register_kernel(name, make);
    }
}
