//! `tf.image.sample_distorted_bounding_box` with TensorFlow's `SampleDistortedBoundingBoxV2`
//! kernel (Inception/ResNet preprocessing's random crop): the same Philox draws, integer
//! geometry and float32 rounding as `sample_distorted_bounding_box_op.cc`, so a seeded graph
//! samples TensorFlow's boxes.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor,
};

use crate::random::philox::{u32_to_f32, GuardedPhilox, Philox, Single};

/// The options of `tf.image.sample_distorted_bounding_box(image_size, bounding_boxes, seed=0,
/// min_object_covered=0.1, aspect_ratio_range=[0.75, 1.33], area_range=[0.05, 1.0],
/// max_attempts=100, use_image_if_no_bounding_boxes=False)`.
///
/// `image_size` is the 1-D `[height, width, channels]` of an image (any integer type);
/// `bounding_boxes` float32 `[batch, N, 4]` boxes `[y_min, x_min, y_max, x_max]` in `[0, 1]`.
/// [`build`](Self::build) returns `(begin, size, bboxes)`: the `tf.slice` arguments of the
/// sampled crop and the crop as a `[1, 1, 4]` box. A new crop is drawn each run.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape, Tensor};
/// # use weir_ops::{array::{constant, placeholder}, image::SampleDistortedBoundingBox};
/// let g = Graph::new();
/// let size = constant(&g, Tensor::from(vec![240i32, 320, 3]))?;
/// let boxes = placeholder(&g, DType::F32, Shape::new(vec![Some(1), None, Some(4)]))?;
/// let (begin, crop, bbox) = SampleDistortedBoundingBox::new()
///     .seed(7)
///     .min_object_covered(0.1)
///     .area_range(0.08, 1.0)
///     .build(&size, &boxes)?;
/// assert_eq!(bbox.shape(), Shape::known(&[1, 1, 4]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct SampleDistortedBoundingBox {
    seeds: Seeds,
    min_object_covered: f32,
    aspect_ratio_range: [f32; 2],
    area_range: [f32; 2],
    max_attempts: i64,
    use_image_if_no_bounding_boxes: bool,
}

#[derive(Clone, Copy, Debug)]
enum Seeds {
    /// TensorFlow 2's `seed`: combined with the graph seed when non-zero, else (0, 0).
    Op(i64),
    /// `tf.compat.v1`'s `seed` and `seed2`, used as the attrs.
    Raw(i64, i64),
}

impl Default for SampleDistortedBoundingBox {
    fn default() -> Self {
        SampleDistortedBoundingBox::new()
    }
}

impl SampleDistortedBoundingBox {
    /// TensorFlow's defaults: seed 0, 10% of an object covered, aspect ratios in
    /// `[0.75, 1.33]`, areas in `[0.05, 1]`, 100 attempts, no whole-image fallback box.
    pub fn new() -> SampleDistortedBoundingBox {
        SampleDistortedBoundingBox {
            seeds: Seeds::Op(0),
            min_object_covered: 0.1,
            aspect_ratio_range: [0.75, 1.33],
            area_range: [0.05, 1.0],
            max_attempts: 100,
            use_image_if_no_bounding_boxes: false,
        }
    }

    /// `tf.image.sample_distorted_bounding_box`'s `seed`: a non-zero seed is combined with the
    /// graph's seed (`get_seed`); 0 leaves the op unseeded, whatever the graph seed.
    pub fn seed(mut self, seed: i64) -> Self {
        self.seeds = Seeds::Op(seed);
        self
    }

    /// `tf.compat.v1.image.sample_distorted_bounding_box`'s `seed` and `seed2`, which become
    /// the op's attrs as they are.
    pub fn seeds(mut self, seed: i64, seed2: i64) -> Self {
        self.seeds = Seeds::Raw(seed, seed2);
        self
    }

    /// The fraction of some bounding box's area the crop must cover.
    pub fn min_object_covered(mut self, v: f32) -> Self {
        self.min_object_covered = v;
        self
    }

    /// The range of the crop's width / height.
    pub fn aspect_ratio_range(mut self, lo: f32, hi: f32) -> Self {
        self.aspect_ratio_range = [lo, hi];
        self
    }

    /// The range of the crop's area as a fraction of the image's.
    pub fn area_range(mut self, lo: f32, hi: f32) -> Self {
        self.area_range = [lo, hi];
        self
    }

    /// How many crops to try before falling back to the whole image.
    pub fn max_attempts(mut self, n: i64) -> Self {
        self.max_attempts = n;
        self
    }

    /// Treat the whole image as the bounding box when none is given (otherwise an error).
    pub fn use_image_if_no_bounding_boxes(mut self, b: bool) -> Self {
        self.use_image_if_no_bounding_boxes = b;
        self
    }

    /// Adds the `SampleDistortedBoundingBoxV2` node; returns `(begin, size, bboxes)`.
    pub fn build(
        &self,
        image_size: impl Into<Output>,
        bounding_boxes: impl Into<Output>,
    ) -> Result<(Output, Output, Output)> {
        let image_size = image_size.into();
        let g = image_size.graph().clone();
        let (seed, seed2) = match self.seeds {
            Seeds::Op(0) => (0, 0),
            Seeds::Op(s) => g.get_seed(Some(s)),
            Seeds::Raw(a, b) => (a, b),
        };
        let _scope = g.name_scope("sample_distorted_bounding_box");
        let min_covered =
            crate::array::constant_named(&g, self.min_object_covered, "min_object_covered")?;
        let op = crate::new_op(&g, "SampleDistortedBoundingBoxV2")
            .input(image_size)
            .input(bounding_boxes.into())
            .input(min_covered)
            .attr("seed", seed)
            .attr("seed2", seed2)
            .attr("aspect_ratio_range", self.aspect_ratio_range.to_vec())
            .attr("area_range", self.area_range.to_vec())
            .attr("max_attempts", self.max_attempts)
            .attr(
                "use_image_if_no_bounding_boxes",
                self.use_image_if_no_bounding_boxes,
            )
            .build()?;
        Ok((op.output(0)?, op.output(1)?, op.output(2)?))
    }
}

/// An integer rectangle, `[min, max)` in each direction (TensorFlow's `Rectangle`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Rect {
    min_x: i32,
    min_y: i32,
    max_x: i32,
    max_y: i32,
}

impl Rect {
    fn area(&self) -> f32 {
        ((self.max_x - self.min_x) * (self.max_y - self.min_y)) as f32
    }

    fn intersect(&self, r: &Rect) -> Rect {
        let (x0, y0) = (self.min_x.max(r.min_x), self.min_y.max(r.min_y));
        let (x1, y1) = (self.max_x.min(r.max_x), self.max_y.min(r.max_y));
        if x0 > x1 || y0 > y1 {
            Rect::default()
        } else {
            Rect {
                min_x: x0,
                min_y: y0,
                max_x: x1,
                max_y: y1,
            }
        }
    }
}

/// `SatisfiesOverlapConstraints`: the crop has a pixel and covers enough of some box.
fn covers_enough(crop: &Rect, min_covered: f32, boxes: &[Rect]) -> bool {
    if crop.area() < 1.0 {
        return false;
    }
    boxes.iter().any(|b| {
        let area = b.area();
        area >= 1.0 && crop.intersect(b).area() / area >= min_covered
    })
}

/// `SimplePhilox::Uniform(n)`: TensorFlow's `ExactUniformInt`, rejecting the low words that
/// would bias `% n`.
fn uniform(rng: &mut Single<'_>, n: u32) -> u32 {
    if n == 0 {
        rng.next_u32();
        return 0;
    }
    if n & (n - 1) == 0 {
        return rng.next_u32() & (n - 1);
    }
    let rem = (u32::MAX % n) + 1;
    loop {
        let r = rng.next_u32();
        if r >= rem {
            return r % n;
        }
    }
}

/// C's `lrintf` (round half to even) narrowed to `int` as TensorFlow's `static_cast<int>`.
fn lrint(x: f32) -> i64 {
    x.round_ties_even() as i64
}

/// `GenerateRandomCrop`: a crop of area in `[min_area, max_area]` times the image's and
/// aspect ratio `aspect`, placed uniformly; `None` when the constraints cannot be met.
fn random_crop(
    width: i32,
    height: i32,
    min_rel: f32,
    max_rel: f32,
    aspect: f32,
    rng: &mut Single<'_>,
) -> Option<Rect> {
    if max_rel <= 0.0 || aspect <= 0.0 || width <= 0 || height <= 0 || min_rel > max_rel {
        return None;
    }
    let min_area = min_rel * width as f32 * height as f32;
    let max_area = max_rel * width as f32 * height as f32;
    let mut h = lrint((min_area / aspect).sqrt());
    let mut max_h = lrint((max_area / aspect).sqrt());
    let (w_img, h_img) = (width as i64, height as i64);
    if lrint(max_h as f32 * aspect) > w_img {
        // TensorFlow's float epsilon, widened to double with the rest of the expression.
        let eps = 0.0000001f32 as f64;
        max_h = ((width as f64 + 0.5 - eps) / aspect as f64) as i64;
        if lrint(max_h as f32 * aspect) > w_img {
            max_h -= 1;
        }
    }
    max_h = max_h.min(h_img);
    if h >= max_h {
        h = max_h;
    }
    if h < max_h {
        h += uniform(rng, (max_h - h + 1) as u32) as i64;
    }
    let mut w = lrint(h as f32 * aspect);
    let mut area = (w * h) as f32;
    if area < min_area {
        h += 1;
        w = lrint(h as f32 * aspect);
        area = (w * h) as f32;
    }
    if area > max_area {
        h -= 1;
        w = lrint(h as f32 * aspect);
        area = (w * h) as f32;
    }
    if area < min_area || area > max_area || w > w_img || h > h_img || w <= 0 || h <= 0 {
        return None;
    }
    let y = if h < h_img {
        uniform(rng, (h_img - h) as u32) as i64
    } else {
        0
    };
    let x = if w < w_img {
        uniform(rng, (w_img - w) as u32) as i64
    } else {
        0
    };
    Some(Rect {
        min_x: x as i32,
        min_y: y as i32,
        max_x: (x + w) as i32,
        max_y: (y + h) as i32,
    })
}

/// The kernel's attrs, checked as TensorFlow's constructor checks them.
struct Params {
    aspect: [f32; 2],
    area: [f32; 2],
    max_attempts: i64,
    use_image: bool,
}

/// `DoCompute` after the input checks: the sampled crop.
fn sample(
    p: &Params,
    width: i32,
    height: i32,
    boxes: &[Rect],
    min_covered: f32,
    mut gen: Philox,
) -> Rect {
    let mut rng = Single::new(&mut gen);
    for _ in 0..p.max_attempts {
        let aspect = u32_to_f32(rng.next_u32()) * (p.aspect[1] - p.aspect[0]) + p.aspect[0];
        if let Some(crop) = random_crop(width, height, p.area[0], p.area[1], aspect, &mut rng) {
            if covers_enough(&crop, min_covered, boxes) {
                return crop;
            }
        }
    }
    Rect {
        min_x: 0,
        min_y: 0,
        max_x: width,
        max_y: height,
    }
}

struct SampleKernel {
    params: Params,
    gen: GuardedPhilox,
}

fn image_size_values(t: &Tensor) -> Result<Vec<i128>> {
    Ok(match t.dtype() {
        DType::U8 => t.as_slice::<u8>()?.iter().map(|&v| v as i128).collect(),
        DType::I8 => t.as_slice::<i8>()?.iter().map(|&v| v as i128).collect(),
        DType::I16 => t.as_slice::<i16>()?.iter().map(|&v| v as i128).collect(),
        DType::I32 => t.as_slice::<i32>()?.iter().map(|&v| v as i128).collect(),
        DType::I64 => t.as_slice::<i64>()?.iter().map(|&v| v as i128).collect(),
        dt => {
            return Err(Error::invalid_argument(format!(
                "image_size must be an integer tensor, got {dt}"
            )))
        }
    })
}

impl Kernel for SampleKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        // TensorFlow reserves its samples before checking the inputs.
        let gen = self
            .gen
            .reserve_words(4u64.saturating_mul(self.params.max_attempts as u64));
        let (size, boxes, covered) = (ctx.input(0), ctx.input(1), ctx.input(2));
        let inv = |m: String| Err(Error::invalid_argument(m));
        if size.rank() != 1 {
            return inv(format!(
                "image_size must be 1-dimensional{}",
                format_dims(size.shape())
            ));
        }
        if size.shape()[0] != 3 {
            return inv(format!(
                "image_size must contain 3 elements{}",
                format_dims(size.shape())
            ));
        }
        let dims = image_size_values(size)?;
        // TensorFlow reads the dims as uint64, so negative ones fail the bounds checks too.
        let as_u64 = |v: i128| v as i64 as u64;
        if as_u64(dims[0]) >= i32::MAX as u64 {
            return inv("image height cannot be >= int32 max".into());
        }
        if as_u64(dims[1]) >= i32::MAX as u64 {
            return inv("image width cannot be >= int32 max".into());
        }
        let (height, width) = (dims[0] as i32, dims[1] as i32);
        if boxes.rank() != 3 {
            return inv(format!(
                "input boxes must be 3-dimensional [batch, num_boxes, coords]: {}",
                format_dims(boxes.shape())
            ));
        }
        if boxes.shape()[2] != 4 {
            return inv(format!(
                "bounding boxes must have shape [4] or [*, 4], got {}",
                format_dims(boxes.shape())
            ));
        }
        if covered.rank() != 0 {
            return inv(format!(
                "min_object_covered must be 0-D, got shape {}",
                format_dims(covered.shape())
            ));
        }
        let min_covered = covered.to_scalar::<f32>()?;
        if min_covered.is_nan() || min_covered < 0.0 {
            return inv(format!(
                "Min object covered must be non-negative: {min_covered}"
            ));
        }
        let mut rects = Vec::new();
        for b in boxes.as_slice::<f32>()?.chunks_exact(4) {
            if let Some(&v) = b.iter().find(|v| !(**v >= 0.0 && **v <= 1.0)) {
                return inv(format!(
                    "All bounding box coordinates must be in [0.0, 1.0]: {v}"
                ));
            }
            // float * int in float, truncated as `static_cast<int32_t>`.
            let px = |v: f32, n: i32| (v * n as f32) as i32;
            rects.push(Rect {
                min_x: px(b[1], width),
                min_y: px(b[0], height),
                max_x: px(b[3], width),
                max_y: px(b[2], height),
            });
        }
        if rects.is_empty() {
            if !self.params.use_image {
                return inv("No bounding boxes provided as input. One must enable use_image_if_no_bounding_boxes if you wish to not provide any bounding boxes.".into());
            }
            rects.push(Rect {
                min_x: 0,
                min_y: 0,
                max_x: width,
                max_y: height,
            });
        }
        let crop = sample(&self.params, width, height, &rects, min_covered, gen);
        let (tw, th) = (crop.max_x - crop.min_x, crop.max_y - crop.min_y);
        let dt = size.dtype();
        let ints = |v: [i64; 3]| -> Result<Tensor> {
            Ok(match dt {
                DType::U8 => Tensor::from(v.map(|x| x as u8).to_vec()),
                DType::I8 => Tensor::from(v.map(|x| x as i8).to_vec()),
                DType::I16 => Tensor::from(v.map(|x| x as i16).to_vec()),
                DType::I32 => Tensor::from(v.map(|x| x as i32).to_vec()),
                _ => Tensor::from(v.to_vec()),
            })
        };
        let begin = ints([crop.min_y as i64, crop.min_x as i64, 0])?;
        let size_out = ints([th as i64, tw as i64, -1])?;
        let bbox = Tensor::from_vec(
            &[1, 1, 4],
            vec![
                crop.min_y as f32 / height as f32,
                crop.min_x as f32 / width as f32,
                crop.max_y as f32 / height as f32,
                crop.max_x as f32 / width as f32,
            ],
        )?;
        ctx.set_output(0, begin);
        ctx.set_output(1, size_out);
        ctx.set_output(2, bbox);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let inv = |m: String| Err(Error::invalid_argument(m));
    let use_image: bool = node.attr("use_image_if_no_bounding_boxes")?;
    let aspect: Vec<f32> = node.attr("aspect_ratio_range")?;
    if aspect.len() != 2 {
        return inv("Aspect ratio range field must specify 2 dimensions".into());
    }
    if !(aspect[0] > 0.0 && aspect[1] > 0.0) {
        return inv(format!(
            "Aspect ratio range must be non-negative: [{}, {}]",
            aspect[0], aspect[1]
        ));
    }
    let area: Vec<f32> = node.attr("area_range")?;
    if area.len() != 2 {
        return inv("Area range field must specify 2 dimensions".into());
    }
    if !(area[0] > 0.0 && area[1] > 0.0) {
        return inv(format!(
            "Area range must be non-negative: [{}, {}]",
            area[0], area[1]
        ));
    }
    if !(area[0] <= 1.0 && area[1] <= 1.0) {
        return inv(format!(
            "Area range must be less then or equal to 1.0: [{}, {}]",
            area[0], area[1]
        ));
    }
    let max_attempts: i64 = node.attr("max_attempts")?;
    if max_attempts <= 0 {
        return inv(format!("Max attempts must be non-negative: {max_attempts}"));
    }
    Ok(Box::new(SampleKernel {
        params: Params {
            aspect: [aspect[0], aspect[1]],
            area: [area[0], area[1]],
            max_attempts,
            use_image,
        },
        gen: GuardedPhilox::from_node(node)?,
    }))
}

/// TensorFlow's shape function of V2: V1's checks ([`shape_v1`]) and a scalar coverage.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    shape_v1(ctx)?;
    ctx.with_rank(2, 0)?;
    Ok(())
}

/// TensorFlow's shape function of V1: `image_size` a 3-vector, boxes `[batch, N, 4]`; outputs
/// `[3]`, `[3]` and `[1, 1, 4]`.
pub(super) fn shape_v1(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let size = ctx.with_rank(0, 1)?;
    if let Some(n) = size.dim(0).filter(|&n| n != 3) {
        return Err(Error::invalid_argument(format!(
            "Dimension must be 3 but is {n} for '{}'",
            ctx.op_type
        )));
    }
    let boxes = ctx.with_rank(1, 3)?;
    if let Some(n) = boxes.dim(2).filter(|&n| n != 4) {
        return Err(Error::invalid_argument(format!(
            "Dimension must be 4 but is {n} for '{}'",
            ctx.op_type
        )));
    }
    ctx.set_output(0, Shape::known(&[3]));
    ctx.set_output(1, Shape::known(&[3]));
    ctx.set_output(2, Shape::known(&[1, 1, 4]));
    Ok(())
}

pub(super) fn register() {
    register_op(crate::random::with_seed_attrs(
        OpDef::new("SampleDistortedBoundingBoxV2")
            .input("image_size", ArgType::Attr("T"))
            .input("bounding_boxes", ArgType::Fixed(DType::F32))
            .input("min_object_covered", ArgType::Fixed(DType::F32))
            .output("begin", ArgType::Attr("T"))
            .output("size", ArgType::Attr("T"))
            .output("bboxes", ArgType::Fixed(DType::F32))
            .type_attr(
                "T",
                &[DType::U8, DType::I8, DType::I16, DType::I32, DType::I64],
            )
            .attr(
                "aspect_ratio_range",
                AttrKind::Floats,
                Some(AttrValue::Floats(vec![0.75, 1.33])),
            )
            .attr(
                "area_range",
                AttrKind::Floats,
                Some(AttrValue::Floats(vec![0.05, 1.0])),
            )
            .attr("max_attempts", AttrKind::Int, Some(AttrValue::Int(100)))
            .attr(
                "use_image_if_no_bounding_boxes",
                AttrKind::Bool,
                Some(AttrValue::Bool(false)),
            )
            .shape_fn(shape_fn),
    ));
    register_kernel("SampleDistortedBoundingBoxV2", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_helpers_follow_tensorflow() {
        let a = Rect {
            min_x: 0,
            min_y: 0,
            max_x: 4,
            max_y: 4,
        };
        let b = Rect {
            min_x: 2,
            min_y: 2,
            max_x: 6,
            max_y: 6,
        };
        assert_eq!(a.intersect(&b).area(), 4.0);
        assert!(covers_enough(&a, 0.25, &[b]));
        assert!(!covers_enough(&a, 0.3, &[b]));
        assert_eq!(lrint(2.5), 2);
        assert_eq!(lrint(3.5), 4);
        let mut gen = Philox::new(1, 2);
        let mut rng = Single::new(&mut gen);
        assert!((0..100).all(|_| uniform(&mut rng, 7) < 7));
    }
}
