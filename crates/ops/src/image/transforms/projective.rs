//! `ImageProjectiveTransformV2` and `ImageProjectiveTransformV3`: the op behind keras'
//! `RandomRotation`, `RandomZoom`, `RandomTranslation` and `tfa.image.transform`. Every output
//! pixel maps through a projective transform to a point of the input, read with nearest or
//! bilinear interpolation after a fill mode folds it back into the image. The coordinate
//! arithmetic is `core/kernels/image/image_ops.h`'s, float32 step for step (including its quirks,
//! such as WRAP dividing by `len - 1`), so results match TensorFlow's bit for bit.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    bf16, f16, format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel,
    Node, OpContext, OpDef, Output, Result, Shape, Tensor,
};

use crate::image::Operand;
use crate::random::ShapeArg;

/// How a projective transform reads the input between pixels (TensorFlow's `interpolation`
/// attr; it has no default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// `"NEAREST"`: the pixel at the rounded (half away from zero) coordinates.
    Nearest,
    /// `"BILINEAR"`: the four surrounding pixels, weighted.
    Bilinear,
}

impl Interpolation {
    /// The attr string.
    pub fn as_str(self) -> &'static str {
        match self {
            Interpolation::Nearest => "NEAREST",
            Interpolation::Bilinear => "BILINEAR",
        }
    }
}

/// How points outside the input are filled (TensorFlow's `fill_mode` attr, default
/// `"CONSTANT"`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FillMode {
    /// `"REFLECT"`: `dcba|abcd|dcba`.
    Reflect,
    /// `"WRAP"`: `abcd|abcd|abcd`.
    Wrap,
    /// `"CONSTANT"`: the fill value (0 for V2).
    #[default]
    Constant,
    /// `"NEAREST"`: the nearest edge pixel.
    Nearest,
}

impl FillMode {
    /// The attr string.
    pub fn as_str(self) -> &'static str {
        match self {
            FillMode::Reflect => "REFLECT",
            FillMode::Wrap => "WRAP",
            FillMode::Constant => "CONSTANT",
            FillMode::Nearest => "NEAREST",
        }
    }

    fn parse(s: &str) -> Result<FillMode> {
        Ok(match s {
            "REFLECT" => FillMode::Reflect,
            "WRAP" => FillMode::Wrap,
            "CONSTANT" => FillMode::Constant,
            "NEAREST" => FillMode::Nearest,
            // TensorFlow only logs this and runs with an uninitialised mode.
            other => {
                return Err(Error::invalid_argument(format!(
                    "Invalid mode {other}. Supported types: REFLECT, WRAP, CONSTANT, NEAREST"
                )))
            }
        })
    }
}

/// `tf.raw_ops.ImageProjectiveTransformV2(images, transforms, output_shape, interpolation,
/// fill_mode)`: see [`ProjectiveTransform`].
pub fn projective_transform(
    images: impl Into<Output>,
    transforms: impl Into<Output>,
    output_shape: impl Into<ShapeArg>,
    interpolation: Interpolation,
    fill_mode: FillMode,
) -> Result<Output> {
    ProjectiveTransform::new(interpolation)
        .fill_mode(fill_mode)
        .build(images, transforms, output_shape)
}

/// The options of TensorFlow's projective transform ops: `ImageProjectiveTransformV2` (no fill
/// value: 0) or, once [`fill_value`](Self::fill_value) is set, `ImageProjectiveTransformV3` (what
/// keras' image layers emit: `tf.raw_ops.ImageProjectiveTransformV3(images=..., transforms=...,
/// output_shape=..., fill_value=..., interpolation=..., fill_mode=...)`).
///
/// `images` is `[batch, height, width, channels]` of uint8, int32, int64, half, bfloat16, float
/// or double; `transforms` float32 `[batch or 1, 8]`, each row `[a0, a1, a2, b0, b1, b2, c0,
/// c1]` mapping output `(x, y)` to input `((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)`
/// with `k = c0 x + c1 y + 1`; `output_shape` int32 `[height, width]`.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape, Tensor};
/// # use weir_ops::{array::{constant, placeholder}, image::{FillMode, Interpolation, ProjectiveTransform}};
/// let g = Graph::new();
/// let img = placeholder(&g, DType::F32, Shape::new(vec![None, Some(8), Some(8), Some(3)]))?;
/// let shift = constant(&g, Tensor::from_vec(&[1, 8], vec![1f32, 0., 2., 0., 1., 0., 0., 0.])?)?;
/// let out = ProjectiveTransform::new(Interpolation::Bilinear)
///     .fill_mode(FillMode::Reflect)
///     .fill_value(0.5)
///     .build(&img, &shift, [8, 8])?;
/// assert_eq!(out.shape(), Shape::new(vec![None, Some(8), Some(8), Some(3)]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ProjectiveTransform {
    interpolation: Interpolation,
    fill_mode: FillMode,
    fill_value: Option<Operand>,
}

impl ProjectiveTransform {
    /// A transform sampling with `interpolation`, fill mode CONSTANT.
    pub fn new(interpolation: Interpolation) -> ProjectiveTransform {
        ProjectiveTransform {
            interpolation,
            fill_mode: FillMode::Constant,
            fill_value: None,
        }
    }

    /// The fill mode.
    pub fn fill_mode(mut self, m: FillMode) -> Self {
        self.fill_mode = m;
        self
    }

    /// The value of CONSTANT-filled pixels (a float32 scalar); makes the node a V3.
    pub fn fill_value(mut self, v: impl Into<Operand>) -> Self {
        self.fill_value = Some(v.into());
        self
    }

    /// Adds the node.
    pub fn build(
        self,
        images: impl Into<Output>,
        transforms: impl Into<Output>,
        output_shape: impl Into<ShapeArg>,
    ) -> Result<Output> {
        let images = images.into();
        let g = images.graph().clone();
        let size = output_shape.into().to_output(&g)?;
        let op = if self.fill_value.is_some() {
            "ImageProjectiveTransformV3"
        } else {
            "ImageProjectiveTransformV2"
        };
        let mut b = crate::new_op(&g, op)
            .input(images)
            .input(transforms.into())
            .input(size);
        if let Some(v) = &self.fill_value {
            b = b.input(v.to_output(&g)?);
        }
        b.attr("interpolation", self.interpolation.as_str())
            .attr("fill_mode", self.fill_mode.as_str())
            .build()?
            .output(0)
    }
}

/// A pixel type of the kernel: read as float32, written back with C++'s conversions.
trait Pixel: Copy + Send + Sync + 'static {
    fn to_f32(self) -> f32;
    fn from_f32(v: f32) -> Self;
}

/// C++'s float-to-integer conversion as x86-64 performs it: truncation, and the "integer
/// indefinite" value (the type's minimum) for NaN and out-of-range values.
pub(super) fn trunc_i64(v: f32) -> i64 {
    if !(-9.223_372e18..9.223_372e18).contains(&v) {
        i64::MIN
    } else {
        v as i64
    }
}

/// [`trunc_i64`] for a 32-bit result.
fn trunc_i32(v: f32) -> i32 {
    if !(-2_147_483_648.0..2_147_483_648.0).contains(&v) {
        i32::MIN
    } else {
        v as i32
    }
}

impl Pixel for u8 {
    fn to_f32(self) -> f32 {
        self as f32
    }
    fn from_f32(v: f32) -> Self {
        // Compilers go through a 32-bit conversion and keep the low byte.
        trunc_i32(v) as u8
    }
}
impl Pixel for i32 {
    fn to_f32(self) -> f32 {
        self as f32
    }
    fn from_f32(v: f32) -> Self {
        trunc_i32(v)
    }
}
impl Pixel for i64 {
    fn to_f32(self) -> f32 {
        self as f32
    }
    fn from_f32(v: f32) -> Self {
        trunc_i64(v)
    }
}
impl Pixel for f16 {
    fn to_f32(self) -> f32 {
        f16::to_f32(self)
    }
    fn from_f32(v: f32) -> Self {
        f16::from_f32(v)
    }
}
impl Pixel for bf16 {
    fn to_f32(self) -> f32 {
        bf16::to_f32(self)
    }
    fn from_f32(v: f32) -> Self {
        bf16::from_f32(v)
    }
}
impl Pixel for f32 {
    fn to_f32(self) -> f32 {
        self
    }
    fn from_f32(v: f32) -> Self {
        v
    }
}
impl Pixel for f64 {
    fn to_f32(self) -> f32 {
        self as f32
    }
    fn from_f32(v: f32) -> Self {
        v as f64
    }
}

/// Eigen's `scalar_clamp_op<float>`: `min(max(x, lo), hi)` with `std::max`/`std::min`, which
/// keep a NaN `x`.
fn clamp(x: f32, hi: f32) -> f32 {
    let m = if x < 0.0 { 0.0 } else { x };
    if hi < m {
        hi
    } else {
        m
    }
}

/// `MapCoordinate`: folds an input coordinate into `[0, len - 1]` as the fill mode says.
fn map_coordinate(mode: FillMode, c: f32, len: i64) -> f32 {
    let lenf = len as f32;
    match mode {
        FillMode::Constant => c,
        FillMode::Nearest => clamp(c, (len - 1) as f32),
        FillMode::Reflect => {
            let mut c = c;
            if c < 0.0 {
                if len <= 1 {
                    c = 0.0;
                } else {
                    let sz2 = 2 * len;
                    if c < sz2 as f32 {
                        c += sz2.wrapping_mul(trunc_i64(-c / sz2 as f32)) as f32;
                    }
                    c = if c < -lenf { c + sz2 as f32 } else { -c - 1.0 };
                }
            } else if c > (len - 1) as f32 {
                if len <= 1 {
                    c = 0.0;
                } else {
                    let sz2 = 2 * len;
                    c -= sz2.wrapping_mul(trunc_i64(c / sz2 as f32)) as f32;
                    if c >= lenf {
                        c = sz2 as f32 - c - 1.0;
                    }
                }
            }
            clamp(c, (len - 1) as f32)
        }
        FillMode::Wrap => {
            let mut c = c;
            if c < 0.0 {
                if len <= 1 {
                    c = 0.0;
                } else {
                    let sz = len - 1;
                    c += len.wrapping_mul(trunc_i64(-c / sz as f32).wrapping_add(1)) as f32;
                }
            } else if c > (len - 1) as f32 {
                if len <= 1 {
                    c = 0.0;
                } else {
                    let sz = len - 1;
                    c -= len.wrapping_mul(trunc_i64(c / sz as f32)) as f32;
                }
            }
            clamp(c, (len - 1) as f32)
        }
    }
}

/// One image's geometry and sampling options.
struct Sampler<'a, T> {
    image: &'a [T],
    height: i64,
    width: i64,
    channels: usize,
    interpolation: Interpolation,
    mode: FillMode,
    fill: T,
}

impl<T: Pixel> Sampler<'_, T> {
    fn read(&self, y: i64, x: i64, ch: usize) -> T {
        if 0 <= y && y < self.height && 0 <= x && x < self.width {
            self.image[(y as usize * self.width as usize + x as usize) * self.channels + ch]
        } else {
            self.fill
        }
    }

    /// The value at output `(out_y, out_x)`, channel `ch`, under transform `t`.
    fn sample(&self, t: &[f32], out_y: i64, out_x: i64, ch: usize) -> T {
        let (xf, yf) = (out_x as f32, out_y as f32);
        let projection = t[6] * xf + t[7] * yf + 1.0;
        if projection == 0.0 {
            return self.fill;
        }
        let in_x = (t[0] * xf + t[1] * yf + t[2]) / projection;
        let in_y = (t[3] * xf + t[4] * yf + t[5]) / projection;
        let x = map_coordinate(self.mode, in_x, self.width);
        let y = map_coordinate(self.mode, in_y, self.height);
        match self.interpolation {
            Interpolation::Nearest => self.read(trunc_i64(y.round()), trunc_i64(x.round()), ch),
            Interpolation::Bilinear => {
                let (y0, x0) = (y.floor(), x.floor());
                let (y1, x1) = (y0 + 1.0, x0 + 1.0);
                let (iy0, ix0, iy1, ix1) =
                    (trunc_i64(y0), trunc_i64(x0), trunc_i64(y1), trunc_i64(x1));
                let top = (x1 - x) * self.read(iy0, ix0, ch).to_f32()
                    + (x - x0) * self.read(iy0, ix1, ch).to_f32();
                let bottom = (x1 - x) * self.read(iy1, ix0, ch).to_f32()
                    + (x - x0) * self.read(iy1, ix1, ch).to_f32();
                T::from_f32((y1 - y) * top + (y - y0) * bottom)
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn transform<T: Pixel>(
    images: &[T],
    [batch, height, width, channels]: [usize; 4],
    transforms: &[f32],
    shared: bool,
    [out_h, out_w]: [usize; 2],
    interpolation: Interpolation,
    mode: FillMode,
    fill: T,
) -> Vec<T> {
    let mut out = Vec::with_capacity(batch * out_h * out_w * channels);
    let per_image = height * width * channels;
    for b in 0..batch {
        let t = if shared {
            &transforms[..8]
        } else {
            &transforms[b * 8..b * 8 + 8]
        };
        let s = Sampler {
            image: &images[b * per_image..(b + 1) * per_image],
            height: height as i64,
            width: width as i64,
            channels,
            interpolation,
            mode,
            fill,
        };
        for y in 0..out_h as i64 {
            for x in 0..out_w as i64 {
                for ch in 0..channels {
                    out.push(s.sample(t, y, x, ch));
                }
            }
        }
    }
    out
}

struct ProjectiveKernel {
    interpolation: Interpolation,
    mode: FillMode,
}

impl ProjectiveKernel {
    fn run<T: Pixel + weir_graph::TensorType>(
        &self,
        ctx: &OpContext<'_>,
        dims: [usize; 4],
        out_hw: [usize; 2],
        fill: f32,
    ) -> Result<Tensor> {
        let images = ctx.input(0).as_slice::<T>()?;
        let tr = ctx.input(1);
        let out = transform(
            images,
            dims,
            tr.as_slice::<f32>()?,
            tr.shape()[0] == 1,
            out_hw,
            self.interpolation,
            self.mode,
            T::from_f32(fill),
        );
        Tensor::from_vec(&[dims[0], out_hw[0], out_hw[1], dims[3]], out)
    }
}

impl Kernel for ProjectiveKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let images = ctx.input(0);
        if images.rank() != 4 {
            return Err(Error::invalid_argument("Input images must have rank 4"));
        }
        let s = images.shape();
        let dims = [s[0], s[1], s[2], s[3]];
        let tr = ctx.input(1).shape();
        if !(tr.len() == 2 && (tr[0] == dims[0] || tr[0] == 1) && tr[1] == 8) {
            return Err(Error::invalid_argument(
                "Input transform should be num_images x 8 or 1 x 8",
            ));
        }
        let shape_t = ctx.input(2);
        if shape_t.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "output shape must be 1-dimensional{}",
                format_dims(shape_t.shape())
            )));
        }
        if shape_t.num_elements() != 2 {
            return Err(Error::invalid_argument(format!(
                "output shape must have two elements{}",
                format_dims(shape_t.shape())
            )));
        }
        let hw = shape_t.as_slice::<i32>()?;
        if hw[0] <= 0 || hw[1] <= 0 {
            return Err(Error::invalid_argument(
                "output dimensions must be positive",
            ));
        }
        let out_hw = [hw[0] as usize, hw[1] as usize];
        let mut fill = 0.0f32;
        if ctx.num_inputs() >= 4 {
            let f = ctx.input(3);
            if f.rank() != 0 {
                return Err(Error::invalid_argument(format!(
                    "fill_value must be a scalar{}",
                    format_dims(f.shape())
                )));
            }
            fill = f.as_slice::<f32>()?[0];
        }
        let out = match images.dtype() {
            DType::U8 => self.run::<u8>(ctx, dims, out_hw, fill)?,
            DType::I32 => self.run::<i32>(ctx, dims, out_hw, fill)?,
            DType::I64 => self.run::<i64>(ctx, dims, out_hw, fill)?,
            DType::F16 => self.run::<f16>(ctx, dims, out_hw, fill)?,
            DType::BF16 => self.run::<bf16>(ctx, dims, out_hw, fill)?,
            DType::F32 => self.run::<f32>(ctx, dims, out_hw, fill)?,
            DType::F64 => self.run::<f64>(ctx, dims, out_hw, fill)?,
            dt => {
                return Err(Error::invalid_argument(format!(
                    "Cannot transform a {dt} image"
                )))
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let interpolation: String = node.attr("interpolation")?;
    let interpolation = match interpolation.as_str() {
        "NEAREST" => Interpolation::Nearest,
        "BILINEAR" => Interpolation::Bilinear,
        // TensorFlow only logs this and runs with an uninitialised interpolation.
        other => {
            return Err(Error::invalid_argument(format!(
                "Invalid interpolation {other}. Supported types: NEAREST, BILINEAR"
            )))
        }
    };
    let mode: String = node.attr("fill_mode")?;
    Ok(Box::new(ProjectiveKernel {
        interpolation,
        mode: FillMode::parse(&mode)?,
    }))
}

/// TensorFlow's `SetOutputToSizedImage`: `size_input` must be a 2-vector; its constant value
/// gives the output's height and width.
pub(super) fn sized_image(
    ctx: &mut InferenceContext<'_>,
    batch: Option<usize>,
    size_input: usize,
    channels: Option<usize>,
) -> Result<()> {
    let size = ctx.with_rank(size_input, 1)?;
    if let Some(n) = size.dim(0).filter(|&n| n != 2) {
        return Err(Error::invalid_argument(format!(
            "Dimension must be 2 but is {n} for '{}' (input {size_input} has shape {size})",
            ctx.op_type
        )));
    }
    let (h, w) = match ctx.input_const(size_input).map(|t| t.to_vec::<i32>()) {
        Some(Ok(v)) if v.len() == 2 => (usize::try_from(v[0]).ok(), usize::try_from(v[1]).ok()),
        _ => (None, None),
    };
    ctx.set_output(0, Shape::new(vec![batch, h, w, channels]));
    Ok(())
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let images = ctx.with_rank(0, 4)?;
    sized_image(ctx, images.dim(0), 2, images.dim(3))
}

const DTYPES: &[DType] = &[
    DType::U8,
    DType::I32,
    DType::I64,
    DType::F16,
    DType::BF16,
    DType::F32,
    DType::F64,
];

pub(super) fn register() {
    for (name, v3) in [
        ("ImageProjectiveTransformV2", false),
        ("ImageProjectiveTransformV3", true),
    ] {
        let mut def = OpDef::new(name)
            .input("images", ArgType::Attr("dtype"))
            .input("transforms", ArgType::Fixed(DType::F32))
            .input("output_shape", ArgType::Fixed(DType::I32));
        if v3 {
            def = def.input("fill_value", ArgType::Fixed(DType::F32));
        }
        register_op(
            def.output("transformed_images", ArgType::Attr("dtype"))
                .type_attr("dtype", DTYPES)
                .attr("interpolation", AttrKind::Str, None)
                .attr(
                    "fill_mode",
                    AttrKind::Str,
                    Some(AttrValue::Str("CONSTANT".into())),
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
    fn reflect_and_wrap_fold_as_tensorflow() {
        // [abcd] reflected: -1 -> 0, -2 -> 1, 4 -> 3, 5 -> 2.
        let r = |c| map_coordinate(FillMode::Reflect, c, 4);
        assert_eq!([r(-1.0), r(-2.0), r(4.0), r(5.0)], [0.0, 1.0, 3.0, 2.0]);
        // WRAP divides by len - 1: -1 -> 3, 4 -> 0, 3.5 -> clamp(3.5 - 4 * 1) = 0.
        let w = |c| map_coordinate(FillMode::Wrap, c, 4);
        assert_eq!([w(-1.0), w(4.0), w(3.5)], [3.0, 0.0, 0.0]);
        assert_eq!(map_coordinate(FillMode::Nearest, 7.0, 4), 3.0);
        assert!(map_coordinate(FillMode::Nearest, f32::NAN, 4).is_nan());
    }

    #[test]
    fn identity_copies_and_shift_fills() {
        let img: Vec<f32> = (0..6).map(|v| v as f32).collect(); // [1, 2, 3, 1]
        let id = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0];
        let out = transform(
            &img,
            [1, 2, 3, 1],
            &id,
            true,
            [2, 3],
            Interpolation::Bilinear,
            FillMode::Constant,
            0.0,
        );
        assert_eq!(out, img);
        let shift = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0];
        let out = transform(
            &img,
            [1, 2, 3, 1],
            &shift,
            true,
            [2, 3],
            Interpolation::Nearest,
            FillMode::Constant,
            -1.0,
        );
        assert_eq!(out, [1.0, 2.0, -1.0, 4.0, 5.0, -1.0]);
    }
}
