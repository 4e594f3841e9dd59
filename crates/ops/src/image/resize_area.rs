//! TensorFlow's `ResizeArea` kernel (`resize_area_op.cc`): each output pixel is the average of
//! the input area it covers, partial pixels weighted by the fraction covered, in the kernel's
//! float32 order (rows of a patch summed, then scaled by `1 / (height_scale * width_scale)`).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, Kernel, Node, OpContext, OpDef, Result, Tensor,
};

use super::convert::Pixel;
use super::resize_bicubic::{dims4, resize_scale, resize_shape, resized_shape, validate};

/// The input cells one output coordinate covers, and the weights of its first and last.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: i64,
    end: i64,
    start_scale: f32,
    end_minus_one_scale: f32,
}

/// How much of input cell `v` lies in `[lo, hi)` (the kernel's nested conditional), with the
/// integer-to-float conversions where C++ makes them.
fn cell_scale(v: i64, lo: f32, hi: f32, scale: f32) -> f32 {
    if (v as f32) < lo {
        if (v + 1) as f32 > hi {
            scale
        } else {
            (v + 1) as f32 - lo
        }
    } else if (v + 1) as f32 > hi {
        hi - v as f32
    } else {
        1.0
    }
}

fn span(o: usize, scale: f32) -> Span {
    let lo = o as f32 * scale;
    let hi = (o + 1) as f32 * scale;
    let start = lo.floor() as i64;
    let end = hi.ceil() as i64;
    Span {
        start,
        end,
        start_scale: cell_scale(start, lo, hi, scale),
        end_minus_one_scale: cell_scale(end - 1, lo, hi, scale),
    }
}

fn bound(v: i64, limit: usize) -> usize {
    v.max(0).min(limit as i64 - 1) as usize
}

fn area<T: Pixel>(src: &[T], d: [usize; 4], [oh, ow]: [usize; 2], align: bool) -> Vec<f32> {
    let [b, h, w, c] = d;
    let (hs, ws) = (resize_scale(h, oh, align), resize_scale(w, ow, align));
    let xs: Vec<Span> = (0..ow).map(|x| span(x, ws)).collect();
    let scale = 1.0 / (hs * ws);
    let row = w * c;
    let mut out = vec![0.0f32; b * oh * ow * c];
    let mut y_rows: Vec<(usize, f32)> = Vec::new();
    let px = |r: &[T], x: i64, ch: usize| r[bound(x, w) * c + ch].to_f64() as f32;
    for (img, dst) in src
        .chunks_exact(h * row)
        .zip(out.chunks_exact_mut(oh * ow * c))
    {
        for (y, dst_row) in dst.chunks_exact_mut(ow * c).enumerate() {
            let lo = y as f32 * hs;
            let hi = (y + 1) as f32 * hs;
            y_rows.clear();
            for i in lo.floor() as i64..hi.ceil() as i64 {
                y_rows.push((bound(i, h) * row, cell_scale(i, lo, hi, hs)));
            }
            for (xs, o) in xs.iter().zip(dst_row.chunks_exact_mut(c)) {
                for (ch, o) in o.iter_mut().enumerate() {
                    let mut sum = 0.0f32;
                    for &(off, ys) in &y_rows {
                        let r = &img[off..off + row];
                        let mut sum_y = px(r, xs.start, ch) * xs.start_scale;
                        if xs.start + 1 != xs.end {
                            for x in xs.start + 1..xs.end - 1 {
                                sum_y += px(r, x, ch);
                            }
                            sum_y += px(r, xs.end - 1, ch) * xs.end_minus_one_scale;
                        }
                        sum += sum_y * ys;
                    }
                    *o = sum * scale;
                }
            }
        }
    }
    out
}

struct AreaKernel {
    align: bool,
}

impl Kernel for AreaKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (images, size) = (ctx.input(0), ctx.input(1));
        let o = validate(images, size, self.align, false)?;
        let d = dims4(images.shape());
        let shape = resized_shape(images.shape(), o);
        let dt = images.dtype();
        let v = weir_graph::match_real_dtype!(dt, T => area(images.as_slice::<T>()?, d, o, self.align),
            _ => return Err(Error::invalid_argument(format!("Cannot resize a {dt} image"))));
        ctx.set_output(0, Tensor::from_vec(&shape, v)?);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(AreaKernel {
        align: node.attr("align_corners")?,
    }))
}

pub(super) fn register() {
    register_op(
        OpDef::new("ResizeArea")
            .input("images", ArgType::Attr("T"))
            .input("size", ArgType::Fixed(DType::I32))
            .output("resized_images", ArgType::Fixed(DType::F32))
            .type_attr("T", DType::REAL_NUMBER)
            .attr(
                "align_corners",
                AttrKind::Bool,
                Some(AttrValue::Bool(false)),
            )
            .shape_fn(resize_shape),
    );
    register_kernel("ResizeArea", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_follow_the_kernels_example() {
        // in[4] -> out[3]: out[1] takes 2/3 of in[1] and 2/3 of in[2] (scale 4/3).
        let s = span(1, 4.0 / 3.0);
        assert_eq!((s.start, s.end), (1, 3));
        assert!((s.start_scale - 2.0 / 3.0).abs() < 1e-6);
        assert!((s.end_minus_one_scale - 2.0 / 3.0).abs() < 1e-6);
        // Averaging a 2x2 block of a 4x4 image.
        let img: Vec<f32> = (0..16).map(|v| v as f32).collect();
        let out = area(&img, [1, 4, 4, 1], [2, 2], false);
        assert_eq!(out, vec![2.5, 4.5, 10.5, 12.5]);
    }
}
