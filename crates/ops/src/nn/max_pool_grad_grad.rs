//! `MaxPoolGradGrad` (and `MaxPoolGradGradV2`, its window and strides as inputs): the gradient of `MaxPoolGrad` with respect to its `grad` input, which
//! TensorFlow's `_MaxPoolGradGrad` builds (and whose own gradient is `MaxPoolGrad` again).
//!
//! For each pooled position it picks, from the input-shaped `grad`, the value at the first
//! position (row-major within the window) whose input equals the window's recorded maximum
//! `orig_output`, as TensorFlow's CPU kernel (`maxpooling_op.cc`) does; a window where nothing
//! equals it (a NaN maximum) gets 0. NHWC only, as on TensorFlow's CPU.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor, TensorType,
};

use super::padding::{conv_output_size, Padding, Window};
use crate::array::shape_util::{merge_shapes as merge, to_i64s};

/// TensorFlow's `MaxPoolGradGrad(orig_input, orig_output, grad)` with `data_format="NHWC"`:
/// for each window of a max pool of `orig_input` (whose result was `orig_output`), the element
/// of the input-shaped `grad` at the window's maximum; the result has `orig_output`'s shape.
pub fn max_pool_grad_grad(
    orig_input: impl Into<Output>,
    orig_output: impl Into<Output>,
    grad: impl Into<Output>,
    ksize: [i64; 4],
    strides: [i64; 4],
    padding: Padding,
) -> Result<Output> {
    let (x, y, d) = (orig_input.into(), orig_output.into(), grad.into());
    let g = crate::util::same_graph(&[&x, &y, &d])?.clone();
    crate::new_op(&g, "MaxPoolGradGrad")
        .input(x)
        .input(y)
        .input(d)
        .attr("ksize", ksize.to_vec())
        .attr("strides", strides.to_vec())
        .attr("padding", padding.as_str())
        .attr("data_format", "NHWC")
        .build()?
        .output(0)
}

/// TensorFlow's `MaxPoolShape` checks on one window attribute: four entries.
fn four(ctx: &InferenceContext<'_>, name: &str, what: &str) -> Result<Vec<i64>> {
    let v: Vec<i64> = ctx.attr(name)?;
    if v.len() != 4 {
        return Err(Error::invalid_argument(format!(
            "MaxPool requires the {what} attribute to contain 4 values, but got: {}",
            v.len()
        )));
    }
    Ok(v)
}

/// TensorFlow's shape function: the max pool's output shape (`MaxPoolShape`, depth windows
/// included), with `grad` merged into `orig_input`'s shape and `orig_output` into the result.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let ksize = four(ctx, "ksize", "ksize")?;
    let strides = four(ctx, "strides", "stride")?;
    shape_with(ctx, &ksize, &strides)
}

/// `MaxPoolGradGradV2`'s shape function: `ksize` and `strides` are vectors of 4, and the
/// result's shape is known where they are constants.
fn shape_fn_v2(ctx: &mut InferenceContext<'_>) -> Result<()> {
    for i in [3, 4] {
        let s = ctx.with_rank(i, 1)?;
        if let Some(d) = s.dim(0).filter(|&d| d != 4) {
            return Err(Error::invalid_argument(format!(
                "Dimension must be 4 but is {d} for '{}'",
                ctx.op_type
            )));
        }
    }
    let consts = (ctx.input_const(3).cloned(), ctx.input_const(4).cloned());
    let (Some(k), Some(s)) = consts else {
        ctx.with_rank(0, 4)?;
        let out = merge(ctx.input_shape(1), &Shape::new(vec![None; 4]))?;
        ctx.set_output(0, out);
        return Ok(());
    };
    shape_with(ctx, &to_i64s(&k)?, &to_i64s(&s)?)
}

fn shape_with(ctx: &mut InferenceContext<'_>, ksize: &[i64], strides: &[i64]) -> Result<()> {
    let format: String = ctx.attr("data_format")?;
    let padding = Padding::parse(&ctx.attr::<String>("padding")?)?;
    let x = ctx.with_rank(0, 4)?;
    // Positions of (rows, cols, depth) in the layout.
    let (r, c, d) = match format.as_str() {
        "NCHW" => (2, 3, 1),
        _ => (1, 2, 3),
    };
    let window = |i: usize| -> Result<Option<usize>> {
        let (k, s) = (ksize[i], strides[i]);
        if k < 1 || s < 1 {
            return Err(Error::invalid_argument(format!(
                "Sliding window ksize and strides must be positive, got {k} and {s}"
            )));
        }
        x.dim(i as isize)
            .map(|n| Ok(conv_output_size(n, k as usize, s as usize, padding)?.0))
            .transpose()
    };
    let mut dims = vec![x.dim(0), None, None, None];
    dims[r] = window(r)?;
    dims[c] = window(c)?;
    dims[d] = window(d)?;
    let out = Shape::new(dims);
    let context =
        |e: Error| Error::invalid_argument(format!("{} for '{}'", e.message(), ctx.op_type));
    merge(&x, ctx.input_shape(2)).map_err(context)?;
    let out = merge(ctx.input_shape(1), &out).map_err(context)?;
    ctx.set_output(0, out);
    Ok(())
}

/// The kernel's configuration, checked when it is made as TensorFlow's constructor checks it.
struct GradGradKernel {
    ksize: (usize, usize),
    strides: (usize, usize),
    padding: Padding,
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let format: String = node.attr("data_format")?;
    check_format(&format)?;
    let padding = Padding::parse(&node.attr::<String>("padding")?)?;
    let ksize: Vec<i64> = node.attr("ksize")?;
    let strides: Vec<i64> = node.attr("strides")?;
    Ok(Box::new(configure(&ksize, &strides, padding)?))
}

fn check_format(format: &str) -> Result<()> {
    if format != "NHWC" {
        return Err(Error::invalid_argument(
            "Default MaxPoolingGradGradOp only supports NHWC on device type CPU",
        ));
    }
    Ok(())
}

/// The kernel for a window and strides, checked as TensorFlow checks them.
fn configure(ksize: &[i64], strides: &[i64], padding: Padding) -> Result<GradGradKernel> {
    for (v, what) in [(ksize, "ksize"), (strides, "strides")] {
        if v.len() != 4 {
            return Err(Error::invalid_argument(format!(
                "Sliding window {what} field must specify 4 dimensions"
            )));
        }
    }
    if ksize[0] != 1 || strides[0] != 1 {
        return Err(Error::unimplemented(
            "Pooling is not yet supported on the batch dimension.",
        ));
    }
    if ksize[3] != 1 || strides[3] != 1 {
        return Err(Error::unimplemented(
            "MaxPoolingGradGrad is not yet supported on the depth dimension.",
        ));
    }
    let pos = |v: &[i64], what: &str| -> Result<(usize, usize)> {
        if v[1] < 1 || v[2] < 1 {
            return Err(Error::invalid_argument(format!(
                "Sliding window {what} must be positive, got {v:?}"
            )));
        }
        Ok((v[1] as usize, v[2] as usize))
    };
    Ok(GradGradKernel {
        ksize: pos(ksize, "ksize")?,
        strides: pos(strides, "strides")?,
        padding,
    })
}

/// `MaxPoolGradGradV2`: `ksize` and `strides` are the fourth and fifth inputs, read each run.
struct GradGradV2Kernel {
    padding: Padding,
}

impl Kernel for GradGradV2Kernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let ksize = to_i64s(ctx.input(3))?;
        let strides = to_i64s(ctx.input(4))?;
        configure(&ksize, &strides, self.padding)?.compute(ctx)
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

/// For each pooled element, `grad` at the first window position whose input equals it.
fn pick<T: TensorType + Copy + PartialEq>(w: &Window, x: &[T], y: &[T], grad: &[T]) -> Vec<T> {
    let mut out = vec![T::zero(); y.len()];
    for b in 0..w.n {
        for oy in 0..w.oh {
            for ox in 0..w.ow {
                let o = ((b * w.oh + oy) * w.ow + ox) * w.c;
                for ch in 0..w.c {
                    let max = y[o + ch];
                    'window: for ky in 0..w.kh {
                        let Some(iy) = w.in_row(oy, ky) else { continue };
                        for kx in 0..w.kw {
                            let Some(ix) = w.in_col(ox, kx) else { continue };
                            let i = ((b * w.h + iy) * w.w + ix) * w.c + ch;
                            if x[i] == max {
                                out[o + ch] = grad[i];
                                break 'window;
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

impl Kernel for GradGradKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (x, y, grad) = (ctx.input(0), ctx.input(1), ctx.input(2));
        for (t, what) in [
            (x, "tensor_in"),
            (y, "tensor_out"),
            (grad, "out_grad_backprop"),
        ] {
            if t.rank() != 4 {
                return Err(Error::invalid_argument(format!(
                    "{what} must be 4-dimensional"
                )));
            }
        }
        let w = Window::new(x.shape(), self.ksize, self.strides, self.padding)?;
        let want = [w.n, w.oh, w.ow, w.c];
        if y.shape() != want {
            return Err(Error::invalid_argument(format!(
                "Expected orig_output shape to be {}, but got {}",
                format_dims(&want),
                format_dims(y.shape())
            )));
        }
        if grad.shape() != x.shape() {
            return Err(Error::invalid_argument(format!(
                "Expected grad shape to be {}, but got {}",
                format_dims(x.shape()),
                format_dims(grad.shape())
            )));
        }
        let dt = x.dtype();
        let unsupported = || Error::invalid_argument(format!("MaxPoolGradGrad does not take {dt}"));
        let out = weir_graph::match_real_dtype!(dt, T => {
            Tensor::from_vec(&want, pick::<T>(&w, x.as_slice()?, y.as_slice()?, grad.as_slice()?))?
        }, _ => weir_graph::match_half_dtype!(dt, T => {
            Tensor::from_vec(&want, pick::<T>(&w, x.as_slice()?, y.as_slice()?, grad.as_slice()?))?
        }, _ => return Err(unsupported())));
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

pub(super) fn register() {
    register_op(
        OpDef::new("MaxPoolGradGrad")
            .input("orig_input", ArgType::Attr("T"))
            .input("orig_output", ArgType::Attr("T"))
            .input("grad", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .attr("ksize", AttrKind::Ints, None)
            .attr("strides", AttrKind::Ints, None)
            .attr("padding", AttrKind::Str, None)
            .attr(
                "data_format",
                AttrKind::Str,
                Some(AttrValue::Str("NHWC".into())),
            )
            .type_attr("T", DType::REAL_AND_HALF)
            .shape_fn(shape_fn),
    );
    register_kernel("MaxPoolGradGrad", make);
    register_op(
        OpDef::new("MaxPoolGradGradV2")
            .input("orig_input", ArgType::Attr("T"))
            .input("orig_output", ArgType::Attr("T"))
            .input("grad", ArgType::Attr("T"))
            .input("ksize", ArgType::Fixed(DType::I32))
            .input("strides", ArgType::Fixed(DType::I32))
            .output("output", ArgType::Attr("T"))
            .attr("padding", AttrKind::Str, None)
            .attr(
                "data_format",
                AttrKind::Str,
                Some(AttrValue::Str("NHWC".into())),
            )
            .type_attr("T", DType::REAL_AND_HALF)
            .shape_fn(shape_fn_v2),
    );
    register_kernel("MaxPoolGradGradV2", |node| {
        check_format(&node.attr::<String>("data_format")?)?;
        Ok(Box::new(GradGradV2Kernel {
            padding: Padding::parse(&node.attr::<String>("padding")?)?,
        }))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use weir_graph::f16;

    #[test]
    fn picks_grad_at_first_matching_maximum() {
        // 1x2x4x1, 2x2 windows with stride 2; the second window holds its maximum twice.
        let x = [1.0f32, 4.0, 5.0, 5.0, 3.0, 2.0, 0.0, 5.0];
        let w = Window::new(&[1, 2, 4, 1], (2, 2), (2, 2), Padding::Valid).unwrap();
        let grad = [10.0f32, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0];
        assert_eq!(pick(&w, &x, &[4.0, 5.0], &grad), vec![11.0, 12.0]);
        // A maximum found nowhere (NaN, or a stale output) leaves 0.
        assert_eq!(pick(&w, &x, &[f32::NAN, 7.0], &grad), vec![0.0, 0.0]);
        // Integers and halves compare exactly; -0 equals +0 as in Eigen.
        let xi = [1i32, 4, 5, 5, 3, 2, 0, 5];
        let gi = [10i32, 11, 12, 13, 14, 15, 16, 17];
        assert_eq!(pick(&w, &xi, &[4, 5], &gi), vec![11, 12]);
        let h = |v: f32| f16::from_f32(v);
        let xh = [
            h(-0.0),
            h(-1.0),
            h(-2.0),
            h(-3.0),
            h(-4.0),
            h(-5.0),
            h(-6.0),
            h(-7.0),
        ];
        let gh: Vec<f16> = grad.iter().map(|&v| h(v)).collect();
        assert_eq!(
            pick(&w, &xh, &[h(0.0), h(-2.0)], &gh),
            vec![h(10.0), h(12.0)]
        );
    }

    #[test]
    fn static_shape_is_the_pooled_shape_as_tensorflow_infers_it() {
        use weir_graph::Graph;
        let g = Graph::new();
        let ph = |dims: Option<Vec<Option<usize>>>| {
            let shape = dims.map_or_else(Shape::unknown, Shape::new);
            crate::array::placeholder(&g, DType::F32, shape).unwrap()
        };
        let x = ph(Some(vec![None, Some(4), Some(4), Some(2)]));
        let out = |y: &Output, d: &Output| {
            max_pool_grad_grad(&x, y, d, [1, 2, 2, 1], [1, 2, 2, 1], Padding::Valid)
        };
        let (y, d) = (ph(None), ph(None));
        let want = Shape::new(vec![None, Some(2), Some(2), Some(2)]);
        assert_eq!(out(&y, &d).unwrap().shape(), want);
        // The batch of `grad` is checked against the input's but, as in TensorFlow, not
        // carried into the result; `orig_output`'s is.
        let d3 = ph(Some(vec![Some(3), None, None, None]));
        assert_eq!(out(&y, &d3).unwrap().shape(), want);
        let y5 = ph(Some(vec![Some(5), None, None, None]));
        assert_eq!(out(&y5, &d).unwrap().shape().dim(0), Some(5));
        let bad = ph(Some(vec![None, Some(3), Some(4), Some(2)]));
        let e = out(&y, &bad).unwrap_err();
        assert!(e.message().starts_with("Dimension 1 in both shapes must be equal, but are 4 and 3. Shapes are [?,4,4,2] and [?,3,4,2]."), "{e}");
    }

    #[test]
    fn same_padding_skips_positions_outside_the_image() {
        // 1x3x3x1, 2x2 windows with stride 2 and SAME: outputs 2x2, padding after the image.
        let x: Vec<f64> = (0..9).map(f64::from).collect();
        let w = Window::new(&[1, 3, 3, 1], (2, 2), (2, 2), Padding::Same).unwrap();
        assert_eq!((w.oh, w.ow, w.pad_top, w.pad_left), (2, 2, 0, 0));
        let grad: Vec<f64> = (0..9).map(|v| f64::from(v) * 10.0).collect();
        assert_eq!(
            pick(&w, &x, &[4.0, 5.0, 7.0, 8.0], &grad),
            vec![40.0, 50.0, 70.0, 80.0]
        );
    }
}
