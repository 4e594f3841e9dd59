//! `AvgPool` (`tf.nn.avg_pool`) and its backward kernel `AvgPoolGrad`, NHWC on CPU.
//!
//! Both follow TensorFlow 2.21's CPU kernels step for step, so float results match bit for bit:
//! the forward pass sums each window in row-major order starting from zero and divides by the
//! number of elements inside the input (SAME padding is not counted); the backward pass walks
//! the output gradient in order and adds `grad * (1 / window size)`, the reciprocal rounded once
//! from float64 as TensorFlow does. Validation and messages are TensorFlow's, stage by stage:
//! attribute checks and the shape function when the node is built, the kernel's checks on the
//! first run.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Dim, Error, InferenceContext, Kernel, Node, OpContext,
    OpDef, Output, Result, Shape, Tensor,
};

use super::padding::Padding;
use super::pool::PoolOptions;
use super::{match_float_or_half, NnFloat};

/// `tf.nn.avg_pool(value, ksize, strides, padding)` with `data_format="NHWC"`: the mean of each
/// `ksize` window; with SAME padding only positions inside the input are averaged.
pub fn avg_pool(
    value: impl Into<Output>,
    ksize: [i64; 4],
    strides: [i64; 4],
    padding: Padding,
) -> Result<Output> {
    AvgPool::new(ksize, strides, padding).build(value)
}

/// The options of `tf.nn.avg_pool(value, ksize, strides, padding, data_format="NHWC")`
/// (TensorFlow's `AvgPool` op): the mean of each `ksize` window, moved by `strides`. With SAME
/// padding a window hanging over the edge averages only the elements inside the input.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape, Tensor};
/// # use weir_ops::{array::{constant, placeholder}, nn::{AvgPool, Padding}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(24), Some(24), Some(64)]))?;
/// let y = AvgPool::new([1, 3, 3, 1], [1, 2, 2, 1], Padding::Same).build(&x)?;
/// assert_eq!(y.shape(), Shape::new(vec![None, Some(12), Some(12), Some(64)]));
///
/// // 1..9 as a 3x3 image: the corner window of a 2x2 SAME pool averages only 9.
/// let img = constant(&g, Tensor::from_vec(&[1, 3, 3, 1], (1..=9).map(|v| v as f32).collect())?)?;
/// let avg = AvgPool::new([1, 2, 2, 1], [1, 1, 1, 1], Padding::Same).build(&img)?;
/// let got = Session::new(&g)?.eval(&avg)?.to_vec::<f32>()?;
/// assert_eq!(got, [3.0, 4.0, 4.5, 6.0, 7.0, 7.5, 7.5, 8.5, 9.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct AvgPool(PoolOptions);

impl AvgPool {
    /// Window `[1, kh, kw, 1]`, strides `[1, sh, sw, 1]` and padding.
    pub fn new(ksize: [i64; 4], strides: [i64; 4], padding: Padding) -> AvgPool {
        AvgPool((ksize, strides, padding).into())
    }

    /// Adds the `AvgPool` node.
    pub fn build(&self, value: impl Into<Output>) -> Result<Output> {
        let x = value.into();
        self.0
            .node(&x.graph().clone(), "AvgPool")
            .input(x)
            .build()?
            .output(0)
    }

    /// Adds the `AvgPoolGrad` node of this configuration: the gradient with respect to an
    /// input of shape `orig_input_shape` (int32 `[4]`) of `grad`, the gradient of the output.
    pub fn build_grad(
        &self,
        orig_input_shape: impl Into<Output>,
        grad: impl Into<Output>,
    ) -> Result<Output> {
        let (s, dy) = (orig_input_shape.into(), grad.into());
        let g = crate::util::same_graph(&[&s, &dy])?.clone();
        self.0
            .node(&g, "AvgPoolGrad")
            .input(s)
            .input(dy)
            .build()?
            .output(0)
    }
}

/// TensorFlow's `AvgPoolGrad(orig_input_shape, grad)` (`gen_nn_ops.avg_pool_grad`): spreads
/// each output gradient evenly over the input elements of its window.
pub fn avg_pool_grad(
    orig_input_shape: impl Into<Output>,
    grad: impl Into<Output>,
    ksize: [i64; 4],
    strides: [i64; 4],
    padding: Padding,
) -> Result<Output> {
    AvgPool::new(ksize, strides, padding).build_grad(orig_input_shape, grad)
}

/// An attribute read into int32s, as TensorFlow's `GetAttr` into `std::vector<int32>` does.
fn int32s<'a>(list: &'a [i64], name: &str) -> Result<&'a [i64]> {
    if let Some(v) = list.iter().find(|v| i32::try_from(**v).is_err()) {
        return Err(Error::invalid_argument(format!(
            "Attr {name} has value {v} out of range for an int32"
        )));
    }
    Ok(list)
}

fn check_stride(stride: i64) -> Result<()> {
    if stride <= 0 {
        return Err(Error::invalid_argument(format!(
            "Stride must be > 0, but got {stride}"
        )));
    }
    Ok(())
}

struct RawAttrs {
    ksize: Vec<i64>,
    strides: Vec<i64>,
    padding: String,
    format: String,
}

/// The attributes, with the checks TensorFlow's `ValidateNodeDef` makes against the OpDef
/// (`list(int) >= 4` and the allowed strings), which weir's OpDef does not express.
fn raw_attrs(
    ints: impl Fn(&str) -> Result<Vec<i64>>,
    string: impl Fn(&str) -> Result<String>,
) -> Result<RawAttrs> {
    let a = RawAttrs {
        ksize: ints("ksize")?,
        strides: ints("strides")?,
        padding: string("padding")?,
        format: string("data_format")?,
    };
    for (name, list) in [("ksize", &a.ksize), ("strides", &a.strides)] {
        if list.len() < 4 {
            return Err(Error::invalid_argument(format!(
                "Length for attr '{name}' of {} must be at least minimum 4",
                list.len()
            )));
        }
    }
    for (name, value, allowed) in [
        ("padding", &a.padding, ["SAME", "VALID"]),
        ("data_format", &a.format, ["NHWC", "NCHW"]),
    ] {
        if !allowed.contains(&value.as_str()) {
            return Err(Error::invalid_argument(format!(
                "Value for attr '{name}' of \"{value}\" is not in the list of allowed values: \"{}\", \"{}\"",
                allowed[0], allowed[1]
            )));
        }
    }
    Ok(a)
}

/// TensorFlow's static `GetWindowedOutputSizeFromDims`: stricter than the run-time size (a
/// VALID window longer than a known input is an error even when the run would give size 0).
fn static_output_dim(input: Dim, k: i64, stride: i64, padding: Padding) -> Result<Dim> {
    check_stride(stride)?;
    let Some(input) = input else { return Ok(None) };
    let input = input as i64;
    let out = match padding {
        Padding::Valid => {
            if input < k {
                return Err(Error::invalid_argument(format!(
                    "Negative dimension size caused by subtracting {k} from {input}"
                )));
            }
            (input - k + stride) / stride
        }
        Padding::Same => (input + stride - 1) / stride,
    };
    Ok(Some(out as usize))
}

/// TensorFlow's `AvgPoolShape`.
fn avg_pool_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let a = raw_attrs(|n| ctx.attr(n), |n| ctx.attr(n))?;
    let nchw = a.format == "NCHW";
    let x = ctx.with_rank(0, 4)?;
    let strides = int32s(&a.strides, "strides")?;
    if strides.len() != 4 {
        return Err(Error::invalid_argument(format!(
            "AvgPool requires the stride attribute to contain 4 values, but got: {}",
            strides.len()
        )));
    }
    let ksize = int32s(&a.ksize, "ksize")?;
    if ksize.len() != 4 {
        return Err(Error::invalid_argument(format!(
            "AvgPool requires the ksize attribute to contain 4 values, but got: {}",
            ksize.len()
        )));
    }
    let padding = Padding::parse(&a.padding)?;
    let (h, w, c) = if nchw { (2, 3, 1) } else { (1, 2, 3) };
    let oh = static_output_dim(x.dim(h), ksize[h as usize], strides[h as usize], padding)?;
    let ow = static_output_dim(x.dim(w), ksize[w as usize], strides[w as usize], padding)?;
    let out = if nchw {
        vec![x.dim(0), x.dim(c), oh, ow]
    } else {
        vec![x.dim(0), oh, ow, x.dim(c)]
    };
    ctx.set_output(0, Shape::new(out));
    Ok(())
}

/// TensorFlow's `AvgPoolGradShape`: the shape held by `orig_input_shape`, of rank 4.
fn avg_pool_grad_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    raw_attrs(|n| ctx.attr(n), |n| ctx.attr(n))?;
    let s = ctx.with_rank(0, 1)?;
    let dims: Option<Vec<Dim>> = match ctx.input_const(0) {
        Some(t) => Some(
            t.as_slice::<i32>()?
                .iter()
                .map(|&v| match v {
                    -1 => Ok(None),
                    v if v < -1 => Err(Error::invalid_argument(format!(
                        "Invalid value in tensor used for shape: {v}"
                    ))),
                    v => Ok(Some(v as usize)),
                })
                .collect::<Result<_>>()?,
        ),
        None => s.dim(0).map(|n| vec![None; n]),
    };
    let shape = match dims {
        Some(d) if d.len() != 4 => {
            return Err(Error::invalid_argument(format!(
                "Shape must be rank 4 but is rank {} for '{}' (the value of orig_input_shape)",
                d.len(),
                ctx.op_type
            )))
        }
        Some(d) => Shape::new(d),
        None => Shape::unknown_of_rank(4),
    };
    ctx.set_output(0, shape);
    Ok(())
}

/// TensorFlow's run-time `GetWindowedOutputSize`: the output size and the padding before.
fn output_size(input: i64, k: i64, stride: i64, padding: Padding) -> Result<(i64, i64)> {
    check_stride(stride)?;
    // C++ division truncates toward zero, as Rust's does.
    let (out, pad) = match padding {
        Padding::Valid => ((input - k + stride) / stride, 0),
        Padding::Same => {
            let out = (input + stride - 1) / stride;
            (out, 0.max((out - 1) * stride + k - input) / 2)
        }
    };
    if out < 0 {
        return Err(Error::invalid_argument(format!(
            "Computed output size would be negative: {out} [input_size: {input}, effective_filter_size: {k}, stride: {stride}]"
        )));
    }
    Ok((out, pad))
}

/// TensorFlow's `GetBroadcastSize`: the first input index and the number of inputs the gradient
/// of output `index` is spread over.
///
/// Kept exactly, quirk included: a window that starts in the padding and is longer than the
/// input is taken to cover the whole input, so for SAME windows longer than the input (input
/// 4, window 5) the first rows' gradient is spread over more elements than the forward pass
/// averaged. TensorFlow 2.21 computes these values and weir matches them.
pub(super) fn broadcast_size(
    index: i64,
    in_size: i64,
    k: i64,
    stride: i64,
    pad: i64,
) -> Result<(i64, i64)> {
    if index * stride > in_size {
        return Err(Error::invalid_argument(
            "index * stride must be less than or equal to input size",
        ));
    }
    let (mut start, mut size) = (index * stride, k);
    if start < pad {
        size = k + start - pad;
        start = 0;
    } else {
        start -= pad;
    }
    if start + k > in_size {
        size = (in_size - start).min(k);
    }
    Ok((start, size))
}

fn cast<T: NnFloat>(v: f64) -> T {
    // Always Some for the float types; NaN keeps a miss visible instead of panicking.
    T::from(v).unwrap_or_else(T::nan)
}

/// The validated configuration of one kernel.
struct Config {
    ksize: [i64; 4],
    strides: [i64; 4],
    padding: Padding,
}

fn forward<T: NnFloat>(cfg: &Config, x: &Tensor) -> Result<Tensor> {
    let d = x.shape();
    if d.len() != 4 {
        return Err(Error::invalid_argument(format!(
            "tensor_in_shape must have 2 spatial dimensions. {} 0",
            d.len()
        )));
    }
    let [_, kh, kw, kd] = cfg.ksize;
    if !(kd == 1 || (kh == 1 && kw == 1)) {
        return Err(Error::unimplemented(
            "MaxPooling supports exactly one of pooling across depth or pooling across width/height.",
        ));
    }
    let (n, h, w, c) = (d[0], d[1], d[2], d[3]);
    if kd != 1 {
        if c as i64 % kd != 0 {
            return Err(Error::unimplemented(
                "Depthwise max pooling requires the depth window to evenly divide the input depth",
            ));
        }
        if cfg.strides[3] != kd {
            return Err(Error::unimplemented(
                "Depthwise max pooling requires the depth window to equal the depth stride",
            ));
        }
        return Err(Error::unimplemented(
            "Non-spatial pooling is not yet supported. Volunteers? :)",
        ));
    }
    let (oh, pad_top) = output_size(h as i64, kh, cfg.strides[1], cfg.padding)?;
    let (ow, pad_left) = output_size(w as i64, kw, cfg.strides[2], cfg.padding)?;
    let (oh, ow) = (oh as usize, ow as usize);
    let mut out = vec![T::ZERO; n * oh * ow * c];
    if out.is_empty() {
        return Tensor::from_vec(&[n, oh, ow, c], out);
    }
    let xs = x.as_slice::<T>()?;
    // The input rows (columns) of output row (column) `o`, clipped to the input.
    let span = |o: usize, stride: i64, pad: i64, k: i64, len: usize| {
        let (start, end) = (o as i64 * stride - pad, o as i64 * stride - pad + k);
        let start = start.max(0);
        (start as usize, end.min(len as i64).max(start) as usize)
    };
    for (p, acc) in out.chunks_exact_mut(c).enumerate() {
        let (b, oy, ox) = (p / (oh * ow), p / ow % oh, p % ow);
        let (y0, y1) = span(oy, cfg.strides[1], pad_top, kh, h);
        let (x0, x1) = span(ox, cfg.strides[2], pad_left, kw, w);
        for iy in y0..y1 {
            let row = ((b * h + iy) * w + x0) * c;
            for px in xs[row..row + (x1 - x0) * c].chunks_exact(c) {
                for (s, &v) in acc.iter_mut().zip(px) {
                    *s = *s + v;
                }
            }
        }
        let count: T = cast(((y1 - y0) * (x1 - x0)) as f64);
        for s in acc.iter_mut() {
            *s = *s / count;
        }
    }
    Tensor::from_vec(&[n, oh, ow, c], out)
}

/// The overflow-checked input shape held by `orig_input_shape` (already checked to hold 4).
fn shape_from_tensor(t: &Tensor) -> Result<Vec<usize>> {
    let mut total: usize = 1;
    let mut dims = Vec::with_capacity(4);
    for &v in t.as_slice::<i32>()? {
        let d = usize::try_from(v).map_err(|_| {
            Error::invalid_argument(format!("Expected a non-negative size, got {v}"))
        })?;
        total = total.checked_mul(d).ok_or_else(|| {
            Error::invalid_argument(format!(
                "Encountered overflow when multiplying {total} with {d}, result: -1"
            ))
        })?;
        dims.push(d);
    }
    Ok(dims)
}

fn backward<T: NnFloat>(cfg: &Config, shape: &Tensor, dy: &Tensor) -> Result<Tensor> {
    // TensorFlow's message names out_backprop for both inputs.
    if shape.rank() != 1 || shape.num_elements() != 4 {
        return Err(Error::invalid_argument(
            "out_backprop must be 1-dimensional and 4 elements",
        ));
    }
    if dy.rank() != 4 {
        return Err(Error::invalid_argument(
            "out_backprop must be 4-dimensional",
        ));
    }
    let dims = shape_from_tensor(shape)?;
    let mut dx = vec![T::ZERO; dims.iter().product()];
    if dx.is_empty() {
        return Tensor::from_vec(&dims, dx);
    }
    let [_, kh, kw, kd] = cfg.ksize;
    if kd != 1 {
        return Err(Error::unimplemented(
            "Non-spatial pooling is not yet supported. Volunteers? :)",
        ));
    }
    let (in_rows, in_cols) = (dims[1] as i64, dims[2] as i64);
    let (sh, sw) = (cfg.strides[1], cfg.strides[2]);
    let (_, pad_rows) = output_size(in_rows, kh, sh, cfg.padding)?;
    let (_, pad_cols) = output_size(in_cols, kw, sw, cfg.padding)?;
    let dd = dy.shape();
    let (batch, rows, cols, depth) = (dd[0] as i64, dd[1] as i64, dd[2] as i64, dd[3]);
    // TensorFlow checks only the last row of the last image of `grad` against the output; a
    // `grad` deeper than the input would then write past it (TensorFlow 2.21 corrupts its heap),
    // so the depth is checked too, in the same words.
    let total = dx.len() as i64;
    for r in 0..rows {
        let (ri, rs) = broadcast_size(r, in_rows, kh, sh, pad_rows)?;
        for c in 0..cols {
            let (ci, cs) = broadcast_size(c, in_cols, kw, sw, pad_cols)?;
            let input_max = ((batch - 1) * in_rows + ri + rs - 1) * in_cols + ci + cs - 1;
            let written = (batch > 0 && rs > 0 && cs > 0 && depth > 0)
                .then(|| (input_max + 1) * depth as i64 - 1);
            if let Some(bad) = [Some(input_max), written]
                .into_iter()
                .flatten()
                .find(|&i| i >= total)
            {
                return Err(Error::invalid_argument(format!(
                    "Output only has {total} elements but computation requested would use element with index={bad}"
                )));
            }
        }
    }
    let g = dy.as_slice::<T>()?;
    let out_of_range = || Error::internal("AvgPoolGrad: index outside the checked bounds");
    for b in 0..batch {
        for r in 0..rows {
            let (ri, rs) = broadcast_size(r, in_rows, kh, sh, pad_rows)?;
            for c in 0..cols {
                let (ci, cs) = broadcast_size(c, in_cols, kw, sw, pad_cols)?;
                let coeff: T = cast(1.0 / (rs * cs) as f64);
                let o = (((b * rows + r) * cols + c) as usize) * depth;
                let src = g.get(o..o + depth).ok_or_else(out_of_range)?;
                for r_dst in ri..ri + rs {
                    for c_dst in ci..ci + cs {
                        let i = (((b * in_rows + r_dst) * in_cols + c_dst) as usize) * depth;
                        let dst = dx.get_mut(i..i + depth).ok_or_else(out_of_range)?;
                        for (s, &v) in dst.iter_mut().zip(src) {
                            *s = *s + v * coeff;
                        }
                    }
                }
            }
        }
    }
    Tensor::from_vec(&dims, dx)
}

struct AvgPoolKernel {
    cfg: Config,
    grad: bool,
}

impl Kernel for AvgPoolKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let out = if self.grad {
            let dy = ctx.input(1);
            match_float_or_half!(dy.dtype(), T => backward::<T>(&self.cfg, ctx.input(0), dy)?)
        } else {
            let x = ctx.input(0);
            if x.dtype() == DType::BF16 {
                // TensorFlow 2.21's bfloat16 AvgPool averages in f32 and rounds once; its float16
                // kernel adds and divides in float16, as the generic path does.
                let out = forward::<f32>(&self.cfg, &super::widen_half(x)?)?;
                crate::math::cast::cast_tensor(&out, DType::BF16)?
            } else {
                match_float_or_half!(x.dtype(), T => forward::<T>(&self.cfg, x)?)
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

/// The checks of TensorFlow's `AvgPoolingOp` / `AvgPoolingGradOp` constructors, in order.
fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let grad = node.op_type() == "AvgPoolGrad";
    let a = raw_attrs(|n| node.attr(n), |n| node.attr(n))?;
    if a.format != "NHWC" {
        let op = ["AvgPoolingOp", "AvgPoolingGradOp"][grad as usize];
        return Err(Error::invalid_argument(format!(
            "Default {op} only supports NHWC on device type CPU"
        )));
    }
    let ksize: [i64; 4] = int32s(&a.ksize, "ksize")?.try_into().map_err(|_| {
        Error::invalid_argument("Sliding window ksize field must specify 4 dimensions")
    })?;
    let strides: [i64; 4] = int32s(&a.strides, "strides")?.try_into().map_err(|_| {
        // The two kernels word this one differently.
        let what = if grad { "strides" } else { "stride" };
        Error::invalid_argument(format!(
            "Sliding window {what} field must specify 4 dimensions"
        ))
    })?;
    if ksize[0] != 1 || strides[0] != 1 {
        return Err(Error::unimplemented(
            "Pooling is not yet supported on the batch dimension.",
        ));
    }
    if !grad {
        if let Some(k) = ksize.iter().find(|&&k| k <= 0) {
            return Err(Error::invalid_argument(format!(
                "ksize must be a positive int32 value, got:{k}"
            )));
        }
    }
    Ok(Box::new(AvgPoolKernel {
        cfg: Config {
            ksize,
            strides,
            padding: Padding::parse(&a.padding)?,
        },
        grad,
    }))
}

pub(super) fn register() {
    let attrs = |def: OpDef| {
        def.attr("ksize", AttrKind::Ints, None)
            .attr("strides", AttrKind::Ints, None)
            .attr("padding", AttrKind::Str, None)
            .attr(
                "data_format",
                AttrKind::Str,
                Some(AttrValue::Str("NHWC".into())),
            )
            .type_attr("T", super::HALF_FLOATS)
    };
    register_op(
        attrs(OpDef::new("AvgPool"))
            .input("value", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .shape_fn(avg_pool_shape),
    );
    register_op(
        attrs(OpDef::new("AvgPoolGrad"))
            .input("orig_input_shape", ArgType::Fixed(DType::I32))
            .input("grad", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .shape_fn(avg_pool_grad_shape),
    );
    register_kernel("AvgPool", make);
    register_kernel("AvgPoolGrad", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_size_keeps_tensorflows_quirk() {
        // Input 4, window 5, stride 1, SAME: padding 2 before.
        let sizes: Vec<_> = (0..4)
            .map(|r| broadcast_size(r, 4, 5, 1, 2).unwrap())
            .collect();
        // Row 0's window covers rows -2..=2, three inside; TensorFlow spreads over four.
        assert_eq!(sizes, [(0, 4), (0, 4), (0, 4), (1, 3)]);
        assert_eq!(broadcast_size(2, 4, 2, 2, 0).unwrap(), (4, 0));
        assert!(broadcast_size(3, 4, 2, 2, 0).is_err());
    }

    #[test]
    fn run_time_sizes_truncate_like_cpp() {
        assert_eq!(output_size(2, 3, 1, Padding::Valid).unwrap(), (0, 0));
        assert_eq!(output_size(2, 3, 2, Padding::Valid).unwrap(), (0, 0));
        assert_eq!(output_size(4, 5, 1, Padding::Same).unwrap(), (4, 2));
        assert_eq!(output_size(4, -2, 2, Padding::Same).unwrap(), (2, 0));
        let e = output_size(1, 3, 1, Padding::Valid).unwrap_err();
        assert_eq!(
            e.message(),
            "Computed output size would be negative: -1 [input_size: 1, effective_filter_size: 3, stride: 1]"
        );
    }
}
