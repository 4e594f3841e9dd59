//! `Conv2D` (NHWC, SAME/VALID, strides) by im2col and one matrix product per image, and its
//! backward kernels `Conv2DBackpropInput` and `Conv2DBackpropFilter`.

use ndarray::linalg::general_mat_mul;
use ndarray::{ArrayView2, ArrayViewMut2, LinalgScalar};
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor,
};

use super::padding::{
    check_nhwc, padding_attrs, read_padding, spatial_pair, static_dim, ExplicitPaddings, Padding,
    Window, WindowPadding,
};
use super::{match_float, NnFloat};

/// `tf.nn.conv2d(input, filter, strides, padding)` with `data_format="NHWC"`.
pub fn conv2d(
    input: impl Into<Output>,
    filter: impl Into<Output>,
    strides: [i64; 4],
    padding: Padding,
) -> Result<Output> {
    Conv2D::new(strides, padding).build(input, filter)
}

/// The options of `tf.nn.conv2d(input, filter, strides, padding, data_format="NHWC",
/// dilations=[1, 1, 1, 1])`: input `[batch, height, width, in_channels]`, filter
/// `[filter_height, filter_width, in_channels, out_channels]`.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, nn::{Conv2D, Padding}};
/// let g = Graph::new();
/// let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(32), Some(32), Some(3)]))?;
/// let w = placeholder(&g, DType::F32, Shape::known(&[5, 5, 3, 64]))?;
/// let y = Conv2D::new([1, 2, 2, 1], Padding::Same).build(&x, &w)?;
/// assert_eq!(y.shape(), Shape::new(vec![None, Some(16), Some(16), Some(64)]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct Conv2D {
    strides: [i64; 4],
    padding: Padding,
    explicit: Option<ExplicitPaddings>,
}

impl Conv2D {
    /// Strides `[1, stride_h, stride_w, 1]` and padding.
    pub fn new(strides: [i64; 4], padding: Padding) -> Conv2D {
        Conv2D {
            strides,
            padding,
            explicit: None,
        }
    }

    /// Pads explicitly instead (`padding="EXPLICIT"`, what `tf.nn.conv2d` does when its
    /// `padding` is a list of pairs): `[[0, 0], [top, bottom], [left, right], [0, 0]]`, with
    /// zeros. The backprop ops built from these options take the same paddings.
    pub fn explicit_paddings(mut self, paddings: ExplicitPaddings) -> Conv2D {
        self.explicit = Some(paddings);
        self
    }

    fn node(&self, g: &weir_graph::Graph, op: &str) -> weir_graph::OpBuilder {
        let (padding, explicit) = padding_attrs(self.padding, self.explicit.as_ref());
        crate::new_op(g, op)
            .attr("strides", self.strides.to_vec())
            .attr("padding", padding)
            .attr("explicit_paddings", explicit)
            .attr("data_format", "NHWC")
    }

    /// Adds the `Conv2D` node.
    pub fn build(&self, input: impl Into<Output>, filter: impl Into<Output>) -> Result<Output> {
        let (x, f) = (input.into(), filter.into());
        let g = crate::util::same_graph(&[&x, &f])?.clone();
        self.node(&g, "Conv2D").input(x).input(f).build()?.output(0)
    }
}

/// TensorFlow's `Conv2DBackpropInput(input_sizes, filter, out_backprop)`: the gradient of
/// `conv2d` with respect to its input, of shape `input_sizes` (int32 `[4]`).
pub fn conv2d_backprop_input(
    input_sizes: impl Into<Output>,
    filter: impl Into<Output>,
    out_backprop: impl Into<Output>,
    strides: [i64; 4],
    padding: Padding,
) -> Result<Output> {
    let (s, f, d) = (input_sizes.into(), filter.into(), out_backprop.into());
    let g = crate::util::same_graph(&[&s, &f, &d])?.clone();
    Conv2D::new(strides, padding)
        .node(&g, "Conv2DBackpropInput")
        .input(s)
        .input(f)
        .input(d)
        .build()?
        .output(0)
}

/// TensorFlow's `Conv2DBackpropFilter(input, filter_sizes, out_backprop)`: the gradient of
/// `conv2d` with respect to its filter, of shape `filter_sizes` (int32 `[4]`).
pub fn conv2d_backprop_filter(
    input: impl Into<Output>,
    filter_sizes: impl Into<Output>,
    out_backprop: impl Into<Output>,
    strides: [i64; 4],
    padding: Padding,
) -> Result<Output> {
    let (x, s, d) = (input.into(), filter_sizes.into(), out_backprop.into());
    let g = crate::util::same_graph(&[&x, &s, &d])?.clone();
    Conv2D::new(strides, padding)
        .node(&g, "Conv2DBackpropFilter")
        .input(x)
        .input(s)
        .input(d)
        .build()?
        .output(0)
}

/// The attributes of a conv node, checked once.
#[derive(Clone, Copy)]
struct ConvAttrs {
    strides: (usize, usize),
    padding: WindowPadding,
}

fn read_attrs(
    strides: &[i64],
    padding: &str,
    explicit: &[i64],
    format: &str,
    dilations: &[i64],
) -> Result<ConvAttrs> {
    let padding = read_padding(padding, explicit)?;
    check_nhwc(format)?;
    if dilations.iter().any(|&d| d != 1) {
        return Err(Error::unimplemented(format!(
            "Conv2D dilations other than 1 are not supported, got {dilations:?}"
        )));
    }
    Ok(ConvAttrs {
        strides: spatial_pair(strides, "strides")?,
        padding,
    })
}

fn node_attrs(node: &Node) -> Result<ConvAttrs> {
    read_attrs(
        &node.attr::<Vec<i64>>("strides")?,
        &node.attr::<String>("padding")?,
        &node.attr::<Vec<i64>>("explicit_paddings")?,
        &node.attr::<String>("data_format")?,
        &node.attr::<Vec<i64>>("dilations")?,
    )
}

/// The window of a convolution of `input` dims by `filter` dims, checking their depths.
fn conv_window(a: ConvAttrs, input: &[usize], filter: &[usize]) -> Result<Window> {
    if filter.len() != 4 {
        return Err(Error::invalid_argument(format!(
            "filter must be 4-dimensional: {}",
            format_dims(filter)
        )));
    }
    let w = Window::padded(input, (filter[0], filter[1]), a.strides, a.padding)?;
    if w.c != filter[2] {
        return Err(Error::invalid_argument(format!(
            "input depth must be evenly divisible by filter depth: {} vs {}",
            w.c, filter[2]
        )));
    }
    Ok(w)
}

/// Copies the receptive fields of image `x` (`[h, w, c]`) into `patches` (`[oh * ow, kh * kw
/// * c]`), zeros where the window hangs over the padding.
fn im2col<T: NnFloat>(w: &Window, x: &[T], patches: &mut [T]) {
    let k = w.kh * w.kw * w.c;
    for oy in 0..w.oh {
        for ox in 0..w.ow {
            let row = &mut patches[(oy * w.ow + ox) * k..][..k];
            for ky in 0..w.kh {
                let dst = &mut row[ky * w.kw * w.c..][..w.kw * w.c];
                let Some(iy) = w.in_row(oy, ky) else {
                    dst.fill(T::ZERO);
                    continue;
                };
                for kx in 0..w.kw {
                    let d = &mut dst[kx * w.c..][..w.c];
                    match w.in_col(ox, kx) {
                        Some(ix) => d.copy_from_slice(&x[(iy * w.w + ix) * w.c..][..w.c]),
                        None => d.fill(T::ZERO),
                    }
                }
            }
        }
    }
}

/// Adds each patch row of `dpatches` back into image gradient `dx` (the adjoint of im2col).
fn col2im<T: NnFloat>(w: &Window, dpatches: &[T], dx: &mut [T]) {
    let k = w.kh * w.kw * w.c;
    for oy in 0..w.oh {
        for ox in 0..w.ow {
            let row = &dpatches[(oy * w.ow + ox) * k..][..k];
            for ky in 0..w.kh {
                let Some(iy) = w.in_row(oy, ky) else { continue };
                for kx in 0..w.kw {
                    let Some(ix) = w.in_col(ox, kx) else { continue };
                    let src = &row[(ky * w.kw + kx) * w.c..][..w.c];
                    let dst = &mut dx[(iy * w.w + ix) * w.c..][..w.c];
                    for (a, &b) in dst.iter_mut().zip(src) {
                        *a = *a + b;
                    }
                }
            }
        }
    }
}

fn view<T>(s: &[T], r: usize, c: usize) -> Result<ArrayView2<'_, T>> {
    ArrayView2::from_shape((r, c), s).map_err(|e| Error::internal(e.to_string()))
}

fn view_mut<T>(s: &mut [T], r: usize, c: usize) -> Result<ArrayViewMut2<'_, T>> {
    ArrayViewMut2::from_shape((r, c), s).map_err(|e| Error::internal(e.to_string()))
}

fn forward<T: NnFloat + LinalgScalar>(a: ConvAttrs, x: &Tensor, f: &Tensor) -> Result<Tensor> {
    let w = conv_window(a, x.shape(), f.shape())?;
    let out_c = f.shape()[3];
    let k = w.kh * w.kw * w.c;
    let rows = w.oh * w.ow;
    let xs = x.as_slice::<T>()?;
    let fv = view(f.as_slice::<T>()?, k, out_c)?;
    let mut out = vec![T::ZERO; w.n * rows * out_c];
    let mut patches = vec![T::ZERO; rows * k];
    let img = w.h * w.w * w.c;
    for b in 0..w.n {
        im2col(&w, &xs[b * img..][..img], &mut patches);
        let mut o = view_mut(&mut out[b * rows * out_c..][..rows * out_c], rows, out_c)?;
        general_mat_mul(T::ONE, &view(&patches, rows, k)?, &fv, T::ZERO, &mut o);
    }
    Tensor::from_vec(&[w.n, w.oh, w.ow, out_c], out)
}

/// A backprop op's int32 or int64 sizes input as 4 dims; `bad` words the error for sizes that
/// are not 4 non-negative dims (each op has its own message).
pub(super) fn four_sizes(t: &Tensor, bad: impl FnOnce(&[i64]) -> Error) -> Result<Vec<usize>> {
    let v: Vec<i64> = match t.dtype() {
        DType::I32 => t.as_slice::<i32>()?.iter().map(|&v| v as i64).collect(),
        _ => t.to_vec::<i64>()?,
    };
    if v.len() != 4 || v.iter().any(|&d| d < 0) {
        return Err(bad(&v));
    }
    Ok(v.into_iter().map(|d| d as usize).collect())
}

fn sizes_of(t: &Tensor, what: &str) -> Result<Vec<usize>> {
    four_sizes(t, |v| {
        Error::invalid_argument(format!(
            "Conv2DBackprop{what}: {} sizes must be 4 non-negative dims, got {v:?}",
            what.to_lowercase()
        ))
    })
}

fn check_out_backprop(w: &Window, out_c: usize, dy: &Tensor) -> Result<()> {
    let want = [w.n, w.oh, w.ow, out_c];
    if dy.shape() != want {
        return Err(Error::invalid_argument(format!(
            "Conv2DBackprop: out_backprop has shape {} but the convolution's output has shape {}",
            format_dims(dy.shape()),
            format_dims(&want)
        )));
    }
    Ok(())
}

fn backprop_input<T: NnFloat + LinalgScalar>(
    a: ConvAttrs,
    input_sizes: &[usize],
    f: &Tensor,
    dy: &Tensor,
) -> Result<Tensor> {
    let w = conv_window(a, input_sizes, f.shape())?;
    let out_c = f.shape()[3];
    check_out_backprop(&w, out_c, dy)?;
    let k = w.kh * w.kw * w.c;
    let rows = w.oh * w.ow;
    let ft = view(f.as_slice::<T>()?, k, out_c)?.reversed_axes();
    let dys = dy.as_slice::<T>()?;
    let img = w.h * w.w * w.c;
    let mut dx = vec![T::ZERO; w.n * img];
    let mut dpatches = vec![T::ZERO; rows * k];
    for b in 0..w.n {
        let d = view(&dys[b * rows * out_c..][..rows * out_c], rows, out_c)?;
        general_mat_mul(
            T::ONE,
            &d,
            &ft,
            T::ZERO,
            &mut view_mut(&mut dpatches, rows, k)?,
        );
        col2im(&w, &dpatches, &mut dx[b * img..][..img]);
    }
    Tensor::from_vec(input_sizes, dx)
}

fn backprop_filter<T: NnFloat + LinalgScalar>(
    a: ConvAttrs,
    x: &Tensor,
    filter_sizes: &[usize],
    dy: &Tensor,
) -> Result<Tensor> {
    let w = conv_window(a, x.shape(), filter_sizes)?;
    let out_c = filter_sizes[3];
    check_out_backprop(&w, out_c, dy)?;
    let k = w.kh * w.kw * w.c;
    let rows = w.oh * w.ow;
    let xs = x.as_slice::<T>()?;
    let dys = dy.as_slice::<T>()?;
    let img = w.h * w.w * w.c;
    let mut df = vec![T::ZERO; k * out_c];
    let mut patches = vec![T::ZERO; rows * k];
    for b in 0..w.n {
        im2col(&w, &xs[b * img..][..img], &mut patches);
        let pt = view(&patches, rows, k)?.reversed_axes();
        let d = view(&dys[b * rows * out_c..][..rows * out_c], rows, out_c)?;
        general_mat_mul(T::ONE, &pt, &d, T::ONE, &mut view_mut(&mut df, k, out_c)?);
    }
    Tensor::from_vec(filter_sizes, df)
}

#[derive(Clone, Copy)]
enum Which {
    Forward,
    Input,
    Filter,
}

struct ConvKernel {
    attrs: ConvAttrs,
    which: Which,
}

impl Kernel for ConvKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let a = self.attrs;
        let dtype = ctx
            .input(if matches!(self.which, Which::Input) {
                1
            } else {
                0
            })
            .dtype();
        if dtype.is_floating() && !matches!(dtype, DType::F32 | DType::F64) {
            // TensorFlow's half and bfloat16 convolutions (and their backprops) accumulate
            // in f32 and round each output once: the f32 kernel on widened inputs.
            let out = self.compute_widened(ctx, dtype)?;
            ctx.set_output(0, out);
            return Ok(());
        }
        let out = match self.which {
            Which::Forward => {
                let (x, f) = (ctx.input(0), ctx.input(1));
                match_float!(x.dtype(), T => forward::<T>(a, x, f)?)
            }
            Which::Input => {
                let sizes = sizes_of(ctx.input(0), "Input")?;
                let (f, dy) = (ctx.input(1), ctx.input(2));
                match_float!(f.dtype(), T => backprop_input::<T>(a, &sizes, f, dy)?)
            }
            Which::Filter => {
                let sizes = sizes_of(ctx.input(1), "Filter")?;
                let (x, dy) = (ctx.input(0), ctx.input(2));
                match_float!(x.dtype(), T => backprop_filter::<T>(a, x, &sizes, dy)?)
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

impl ConvKernel {
    /// The f32 kernel on the float inputs widened from `dtype`, the result rounded back.
    fn compute_widened(&self, ctx: &OpContext<'_>, dtype: DType) -> Result<Tensor> {
        let a = self.attrs;
        let wide = |i: usize| super::widen_half(ctx.input(i));
        let out = match self.which {
            Which::Forward => forward::<f32>(a, &wide(0)?, &wide(1)?)?,
            Which::Input => {
                let sizes = sizes_of(ctx.input(0), "Input")?;
                backprop_input::<f32>(a, &sizes, &wide(1)?, &wide(2)?)?
            }
            Which::Filter => {
                let sizes = sizes_of(ctx.input(1), "Filter")?;
                backprop_filter::<f32>(a, &wide(0)?, &sizes, &wide(2)?)?
            }
        };
        crate::math::cast::cast_tensor(&out, dtype)
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let which = match node.op_type() {
        "Conv2D" => Which::Forward,
        "Conv2DBackpropInput" => Which::Input,
        _ => Which::Filter,
    };
    Ok(Box::new(ConvKernel {
        attrs: node_attrs(node)?,
        which,
    }))
}

fn ctx_attrs(ctx: &InferenceContext<'_>) -> Result<ConvAttrs> {
    read_attrs(
        &ctx.attr::<Vec<i64>>("strides")?,
        &ctx.attr::<String>("padding")?,
        &ctx.attr::<Vec<i64>>("explicit_paddings")?,
        &ctx.attr::<String>("data_format")?,
        &ctx.attr::<Vec<i64>>("dilations")?,
    )
}

fn forward_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let a = ctx_attrs(ctx)?;
    let x = ctx.with_rank(0, 4)?;
    let f = ctx.with_rank(1, 4)?;
    if let (Some(c), Some(fc)) = (x.dim(3), f.dim(2)) {
        if c != fc {
            return Err(Error::invalid_argument(format!(
                "Depth of input ({c}) is not a multiple of input depth of filter ({fc}) for 'Conv2D' with input shapes: {x}, {f}."
            )));
        }
    }
    let oh = static_dim(x.dim(1), f.dim(0), a.strides.0, a.padding, 0)?;
    let ow = static_dim(x.dim(2), f.dim(1), a.strides.1, a.padding, 1)?;
    ctx.set_output(0, Shape::new(vec![x.dim(0), oh, ow, f.dim(3)]));
    Ok(())
}

fn sizes_shape(ctx: &mut InferenceContext<'_>, i: usize) -> Result<()> {
    ctx_attrs(ctx)?;
    let s = match ctx.input_const(i) {
        Some(t) => Shape::known(&sizes_of(t, "")?),
        None => Shape::unknown_of_rank(4),
    };
    ctx.set_output(0, s);
    Ok(())
}

pub(super) fn register() {
    let common = |def: OpDef| {
        def.type_attr("T", super::HALF_FLOATS)
            .attr("strides", AttrKind::Ints, None)
            .attr("padding", AttrKind::Str, None)
            .attr(
                "explicit_paddings",
                AttrKind::Ints,
                Some(AttrValue::Ints(vec![])),
            )
            .attr(
                "data_format",
                AttrKind::Str,
                Some(AttrValue::Str("NHWC".into())),
            )
            .attr(
                "dilations",
                AttrKind::Ints,
                Some(AttrValue::Ints(vec![1, 1, 1, 1])),
            )
            .attr(
                "use_cudnn_on_gpu",
                AttrKind::Bool,
                Some(AttrValue::Bool(true)),
            )
    };
    register_op(
        common(OpDef::new("Conv2D"))
            .input("input", ArgType::Attr("T"))
            .input("filter", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .shape_fn(forward_shape),
    );
    register_op(
        common(OpDef::new("Conv2DBackpropInput"))
            .input("input_sizes", ArgType::Fixed(DType::I32))
            .input("filter", ArgType::Attr("T"))
            .input("out_backprop", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .shape_fn(|ctx| sizes_shape(ctx, 0)),
    );
    register_op(
        common(OpDef::new("Conv2DBackpropFilter"))
            .input("input", ArgType::Attr("T"))
            .input("filter_sizes", ArgType::Fixed(DType::I32))
            .input("out_backprop", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .shape_fn(|ctx| sizes_shape(ctx, 1)),
    );
    for name in ["Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"] {
        register_kernel(name, make);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs(s: usize, p: Padding) -> ConvAttrs {
        ConvAttrs {
            strides: (s, s),
            padding: p.into(),
        }
    }

    /// A direct 6-loop convolution to check im2col against.
    fn naive(x: &[f64], xd: [usize; 4], f: &[f64], fd: [usize; 4], a: ConvAttrs) -> Vec<f64> {
        let w = Window::padded(&xd, (fd[0], fd[1]), a.strides, a.padding).unwrap();
        let mut out = vec![0.0; w.n * w.oh * w.ow * fd[3]];
        for b in 0..w.n {
            for oy in 0..w.oh {
                for ox in 0..w.ow {
                    for o in 0..fd[3] {
                        let mut s = 0.0;
                        for ky in 0..fd[0] {
                            for kx in 0..fd[1] {
                                let (Some(iy), Some(ix)) = (w.in_row(oy, ky), w.in_col(ox, kx))
                                else {
                                    continue;
                                };
                                for c in 0..fd[2] {
                                    s += x[((b * w.h + iy) * w.w + ix) * w.c + c]
                                        * f[((ky * fd[1] + kx) * fd[2] + c) * fd[3] + o];
                                }
                            }
                        }
                        out[((b * w.oh + oy) * w.ow + ox) * fd[3] + o] = s;
                    }
                }
            }
        }
        out
    }

    #[test]
    fn im2col_matches_direct_convolution() {
        let xd = [2, 5, 4, 3];
        let fd = [3, 2, 3, 2];
        let x: Vec<f64> = (0..120).map(|i| ((i * 7) % 11) as f64 - 5.0).collect();
        let f: Vec<f64> = (0..36).map(|i| ((i * 5) % 7) as f64 * 0.5 - 1.0).collect();
        let xt = Tensor::from_vec(&xd, x.clone()).unwrap();
        let ft = Tensor::from_vec(&fd, f.clone()).unwrap();
        for (s, p) in [
            (1, Padding::Same),
            (2, Padding::Same),
            (1, Padding::Valid),
            (2, Padding::Valid),
        ] {
            let got = forward::<f64>(attrs(s, p), &xt, &ft).unwrap();
            assert_eq!(
                got.to_vec::<f64>().unwrap(),
                naive(&x, xd, &f, fd, attrs(s, p)),
                "{s} {p:?}"
            );
        }
        let e = forward::<f64>(
            attrs(1, Padding::Same),
            &xt,
            &Tensor::from_vec(&[1, 1, 2, 1], vec![1.0f64; 2]).unwrap(),
        );
        assert!(e
            .unwrap_err()
            .message()
            .contains("input depth must be evenly divisible"));
    }
}
