//! `tf.image.draw_bounding_boxes` with TensorFlow's `DrawBoundingBoxes` and
//! `DrawBoundingBoxesV2` kernels: one-pixel box outlines drawn onto float32 images, in the
//! given colours or TensorFlow's default colour table.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output, Result,
    Tensor,
};

/// `tf.image.draw_bounding_boxes(images, boxes, colors=None)`: draws each box of `boxes`
/// (float32 `[batch, num_boxes, 4]`, rows `[y_min, x_min, y_max, x_max]` in `[0, 1]`) onto its
/// float32 `[batch, height, width, depth]` image (depth 1, 3 or 4). Box `i` takes colour
/// `i % num_colors` of `colors` (float32 `[num_colors, >= depth]`), or of TensorFlow's table when
/// `colors` is `None` (op `DrawBoundingBoxes`) or empty.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::draw_bounding_boxes};
/// let g = Graph::new();
/// let img = placeholder(&g, DType::F32, Shape::new(vec![None, Some(8), Some(8), Some(3)]))?;
/// let boxes = placeholder(&g, DType::F32, Shape::new(vec![None, None, Some(4)]))?;
/// assert_eq!(draw_bounding_boxes(&img, &boxes, None)?.shape(), img.shape());
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn draw_bounding_boxes(
    images: impl Into<Output>,
    boxes: impl Into<Output>,
    colors: Option<&Output>,
) -> Result<Output> {
    let images = images.into();
    let g = images.graph().clone();
    match colors {
        None => crate::new_op(&g, "DrawBoundingBoxes")
            .input(images)
            .input(boxes.into())
            .build()?
            .output(0),
        Some(c) => crate::new_op(&g, "DrawBoundingBoxesV2")
            .input(images)
            .input(boxes.into())
            .input(c.clone())
            .build()?
            .output(0),
    }
}

/// TensorFlow's default colours: yellow, blue, red, lime, purple, olive, maroon, navy, aqua,
/// fuchsia (RGBA; for one-channel images the first channel of each is 1).
fn default_colors(depth: usize) -> Vec<Vec<f32>> {
    let table: [[f32; 4]; 10] = [
        [1.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.5, 0.0, 0.5, 1.0],
        [0.5, 0.5, 0.0, 1.0],
        [0.5, 0.0, 0.0, 1.0],
        [0.0, 0.0, 0.5, 1.0],
        [0.0, 1.0, 1.0, 1.0],
        [1.0, 0.0, 1.0, 1.0],
    ];
    table
        .iter()
        .map(|c| {
            let mut c = c.to_vec();
            if depth == 1 {
                c[0] = 1.0;
            }
            c
        })
        .collect()
}

/// C++'s `static_cast<int64_t>` of a float on x86: NaN and out-of-range values give
/// `INT64_MIN` (Rust's `as` would saturate).
fn cpp_i64(x: f32) -> i64 {
    if !(-9.223_372e18..9.223_372e18).contains(&x) {
        i64::MIN
    } else {
        x as i64
    }
}

struct DrawKernel;

impl Kernel for DrawKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (images, boxes) = (ctx.input(0), ctx.input(1));
        let inv = |m: &str| Err(Error::invalid_argument(m.to_string()));
        if images.rank() != 4 {
            return inv("The rank of the images should be 4");
        }
        if boxes.rank() != 3 {
            return inv("The rank of the boxes tensor should be 3");
        }
        let s = images.shape().to_vec();
        let (batch, height, width, depth) = (s[0], s[1], s[2], s[3]);
        if batch != boxes.shape()[0] {
            return inv("The batch sizes should be the same");
        }
        if !matches!(depth, 1 | 3 | 4) {
            return inv("Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)");
        }
        if boxes.shape()[2] != 4 {
            return Err(Error::invalid_argument(format!(
                "The size of the third dimension of the box must be 4. Received: {}",
                boxes.shape()[2]
            )));
        }
        let mut colors = Vec::new();
        if ctx.num_inputs() == 3 {
            let c = ctx.input(2);
            if c.rank() != 2 {
                return Err(Error::invalid_argument(format!(
                    "colors must be a 2-D matrix{}",
                    format_dims(c.shape())
                )));
            }
            if c.shape()[1] < depth {
                return Err(Error::invalid_argument(format!(
                    "colors must have equal or more channels than the image provided: {}",
                    format_dims(c.shape())
                )));
            }
            let cols = c.shape()[1];
            colors = c
                .as_slice::<f32>()?
                .chunks_exact(cols.max(1))
                .map(|row| row[..depth].to_vec())
                .collect();
        }
        if colors.is_empty() {
            colors = default_colors(depth);
        }
        let mut canvas = images.as_slice::<f32>()?.to_vec();
        let boxes_v = ctx.input(1).as_slice::<f32>()?;
        let num_boxes = ctx.input(1).shape()[1];
        let (h, w) = (height as i64, width as i64);
        for b in 0..batch {
            for bb in 0..num_boxes {
                let color = &colors[bb % colors.len()];
                let bx = &boxes_v[(b * num_boxes + bb) * 4..][..4];
                // `float * (height - 1)` in float, truncated to int64.
                let min_row = cpp_i64(bx[0] * (h - 1) as f32);
                let max_row = cpp_i64(bx[2] * (h - 1) as f32);
                let min_col = cpp_i64(bx[1] * (w - 1) as f32);
                let max_col = cpp_i64(bx[3] * (w - 1) as f32);
                // Inverted boxes and boxes wholly outside are skipped (TensorFlow logs them).
                if min_row > max_row || min_col > max_col {
                    continue;
                }
                if min_row >= h || max_row < 0 || min_col >= w || max_col < 0 {
                    continue;
                }
                let (r0, r1) = (min_row.max(0), max_row.min(h - 1));
                let (c0, c1) = (min_col.max(0), max_col.min(w - 1));
                let mut paint = |y: i64, x: i64| {
                    let at = ((b * height + y as usize) * width + x as usize) * depth;
                    canvas[at..at + depth].copy_from_slice(&color[..depth]);
                };
                if min_row >= 0 {
                    (c0..=c1).for_each(|x| paint(min_row, x));
                }
                if max_row < h {
                    (c0..=c1).for_each(|x| paint(max_row, x));
                }
                if min_col >= 0 {
                    (r0..=r1).for_each(|y| paint(y, min_col));
                }
                if max_col < w {
                    (r0..=r1).for_each(|y| paint(y, max_col));
                }
            }
        }
        ctx.set_output(0, Tensor::from_vec(&s, canvas)?);
        Ok(())
    }
}

/// TensorFlow's shape function: images of rank 4 (depth 1, 3 or 4 when known), boxes of rank 3
/// with 4 columns; the output is the images' shape.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let images = ctx.with_rank(0, 4)?;
    if let Some(d) = images.dim(3) {
        if !matches!(d, 1 | 3 | 4) {
            return Err(Error::invalid_argument(
                "Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)",
            ));
        }
    }
    let boxes = ctx.with_rank(1, 3)?;
    if let Some(c) = boxes.dim(2).filter(|&c| c != 4) {
        return Err(Error::invalid_argument(format!(
            "Dimension must be 4 but is {c} for '{}'",
            ctx.op_type
        )));
    }
    ctx.set_output(0, images);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("DrawBoundingBoxes")
            .input("images", ArgType::Attr("T"))
            .input("boxes", ArgType::Fixed(DType::F32))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", &[DType::F32])
            .shape_fn(shape_fn),
    );
    register_op(
        OpDef::new("DrawBoundingBoxesV2")
            .input("images", ArgType::Attr("T"))
            .input("boxes", ArgType::Fixed(DType::F32))
            .input("colors", ArgType::Fixed(DType::F32))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", &[DType::F32])
            .shape_fn(shape_fn),
    );
    register_kernel("DrawBoundingBoxes", |_| Ok(Box::new(DrawKernel)));
    register_kernel("DrawBoundingBoxesV2", |_| Ok(Box::new(DrawKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn casts_like_cpp() {
        assert_eq!(cpp_i64(f32::NAN), i64::MIN);
        assert_eq!(cpp_i64(-0.5), 0);
        assert_eq!(cpp_i64(2.9), 2);
        assert_eq!(default_colors(1)[1], [1.0, 0.0, 1.0, 1.0]);
    }
}
