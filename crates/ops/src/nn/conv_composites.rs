//! The convolutions TensorFlow's Python layer composes from conv ops: `tf.nn.conv2d_transpose`
//! (one `Conv2DBackpropInput`), `tf.nn.depthwise_conv2d` (one `DepthwiseConv2dNative`) and
//! `tf.nn.separable_conv2d` (a depthwise convolution, then a 1x1 `Conv2D`), each in
//! TensorFlow's name scope and with its node names.

use weir_graph::{Error, Output, Result, Shape};

use super::depthwise_conv::DepthwiseConv2dNative;
use super::Padding;
use crate::array::IndexArg;

/// InvalidArgument unless `x`'s static rank is 4 or unknown, in TensorFlow's shape-function
/// wording.
fn check_rank4(x: &Output, op: &str) -> Result<()> {
    match x.shape().rank() {
        Some(r) if r != 4 => Err(Error::invalid_argument(format!(
            "Shape must be rank 4 but is rank {r} for '{op}' with input shape {}",
            x.shape()
        ))),
        _ => Ok(()),
    }
}

/// `tf.nn.conv2d_transpose(value, filter, output_shape, strides, padding, data_format="NHWC")`:
/// the transpose (gradient) of `conv2d`, built as TensorFlow builds it, as one
/// `Conv2DBackpropInput(input_sizes=output_shape, filter, out_backprop=value)` node named
/// `conv2d_transpose`.
///
/// `value` is `[batch, height, width, in_channels]`, `filter` is `[height, width,
/// output_channels, in_channels]` and `output_shape` (a list, or an int32 `[4]` tensor) the
/// shape of the result.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, nn::{conv2d_transpose, Padding}};
/// let g = Graph::new();
/// let x = placeholder(&g, DType::F32, Shape::known(&[1, 4, 4, 8]))?;
/// let w = placeholder(&g, DType::F32, Shape::known(&[3, 3, 3, 8]))?;
/// let y = conv2d_transpose(&x, &w, [1, 8, 8, 3], [1, 2, 2, 1], Padding::Same)?;
/// assert_eq!(y.name(), "conv2d_transpose:0");
/// assert_eq!(y.shape(), Shape::known(&[1, 8, 8, 3]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn conv2d_transpose(
    value: impl Into<Output>,
    filter: impl Into<Output>,
    output_shape: impl Into<IndexArg>,
    strides: [i64; 4],
    padding: Padding,
) -> Result<Output> {
    let (value, filter) = (value.into(), filter.into());
    let g = crate::util::same_graph(&[&value, &filter])?.clone();
    let scope = g.name_scope("conv2d_transpose");
    check_rank4(&value, "conv2d_transpose")?;
    check_rank4(&filter, "conv2d_transpose")?;
    if let (Some(a), Some(b)) = (value.shape().dim(3), filter.shape().dim(3)) {
        if a != b {
            return Err(Error::invalid_argument(format!(
                "Dimensions must be equal, but are {a} and {b} for 'conv2d_transpose' \
                 (op: 'Conv2DBackpropInput') with input shapes: {}, {}.",
                filter.shape(),
                value.shape()
            )));
        }
    }
    let sizes = match output_shape.into() {
        IndexArg::List(v) => {
            let v: Vec<i32> = v.iter().map(|&d| d as i32).collect();
            crate::array::constant_named(&g, v, "input_sizes")?
        }
        IndexArg::Tensor(t) => t,
    };
    crate::new_op(&g, "Conv2DBackpropInput")
        .name(scope.prefix())
        .attr("strides", strides.to_vec())
        .attr("padding", padding.as_str())
        .attr("data_format", "NHWC")
        .input(sizes)
        .input(filter)
        .input(value)
        .build()?
        .output(0)
}

/// The `[1, rate_h, rate_w, 1]` dilations of a `rate`, checked as TensorFlow's
/// `with_space_to_batch` checks it.
fn dilations(rate: Option<[i64; 2]>, strides: [i64; 4]) -> Result<[i64; 4]> {
    let [rh, rw] = rate.unwrap_or([1, 1]);
    if rh < 1 || rw < 1 {
        return Err(Error::invalid_argument(format!(
            "dilation_rate must be positive, got [{rh}, {rw}]"
        )));
    }
    if (rh > 1 || rw > 1) && strides.iter().any(|&s| s != 1) {
        return Err(Error::invalid_argument(format!(
            "strides > 1 not supported in conjunction with dilation_rate > 1: \
             dilation rate [{rh}, {rw}] and strides {strides:?}"
        )));
    }
    Ok([1, rh, rw, 1])
}

/// `tf.nn.depthwise_conv2d(input, filter, strides, padding, rate=None)` (NHWC): each input
/// channel convolved with its own `channel_multiplier` filters, as one `DepthwiseConv2dNative`
/// node named `depthwise`.
///
/// TensorFlow realizes `rate > 1` with `SpaceToBatchND`/`BatchToSpaceND` around the op; weir
/// passes it as the op's `dilations`, which computes the same values. Like TensorFlow's
/// convolutions, a rate above 1 needs unit strides (InvalidArgument otherwise; TensorFlow 2.21
/// only warns there and returns values of no use).
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, nn::{depthwise_conv2d, Padding}};
/// let g = Graph::new();
/// let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(9), Some(9), Some(4)]))?;
/// let w = placeholder(&g, DType::F32, Shape::known(&[3, 3, 4, 2]))?;
/// let y = depthwise_conv2d(&x, &w, [1, 1, 1, 1], Padding::Valid, Some([2, 2]))?;
/// assert_eq!(y.name(), "depthwise:0");
/// assert_eq!(y.shape(), Shape::new(vec![None, Some(5), Some(5), Some(8)]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn depthwise_conv2d(
    input: impl Into<Output>,
    filter: impl Into<Output>,
    strides: [i64; 4],
    padding: Padding,
    rate: Option<[i64; 2]>,
) -> Result<Output> {
    let (x, f) = (input.into(), filter.into());
    let g = crate::util::same_graph(&[&x, &f])?.clone();
    let d = dilations(rate, strides)?;
    let scope = g.name_scope("depthwise");
    DepthwiseConv2dNative::new(strides, padding)
        .dilations(d)
        .name(scope.prefix())
        .build(x, f)
}

/// `tf.nn.separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding,
/// rate=None)` (NHWC): a depthwise convolution (`separable_conv2d/depthwise`) followed by a
/// 1x1 `Conv2D` with `pointwise_filter` (`[1, 1, in_channels * channel_multiplier,
/// out_channels]`) named `separable_conv2d`.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, nn::{separable_conv2d, Padding}};
/// let g = Graph::new();
/// let x = placeholder(&g, DType::F32, Shape::known(&[2, 8, 8, 3]))?;
/// let dw = placeholder(&g, DType::F32, Shape::known(&[3, 3, 3, 2]))?;
/// let pw = placeholder(&g, DType::F32, Shape::known(&[1, 1, 6, 16]))?;
/// let y = separable_conv2d(&x, &dw, &pw, [1, 1, 1, 1], Padding::Same, None)?;
/// assert_eq!(y.name(), "separable_conv2d:0");
/// assert_eq!(y.shape(), Shape::known(&[2, 8, 8, 16]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn separable_conv2d(
    input: impl Into<Output>,
    depthwise_filter: impl Into<Output>,
    pointwise_filter: impl Into<Output>,
    strides: [i64; 4],
    padding: Padding,
    rate: Option<[i64; 2]>,
) -> Result<Output> {
    let (x, dw, pw) = (
        input.into(),
        depthwise_filter.into(),
        pointwise_filter.into(),
    );
    let g = crate::util::same_graph(&[&x, &dw, &pw])?.clone();
    let scope = g.name_scope("separable_conv2d");
    let pw_shape: Shape = pw.shape();
    match pw_shape.rank() {
        Some(r) if r != 4 => {
            return Err(Error::invalid_argument(format!(
                "Shape {pw_shape} must have rank 4"
            )))
        }
        _ => {}
    }
    for i in 0..2 {
        if let Some(d) = pw_shape.dim(i).filter(|&d| d != 1) {
            return Err(Error::invalid_argument(format!(
                "Dimensions {d} and 1 are not compatible"
            )));
        }
    }
    let d = dilations(rate, strides)?;
    let depthwise = DepthwiseConv2dNative::new(strides, padding)
        .dilations(d)
        .name("depthwise")
        .build(x, dw)?;
    crate::new_op(&g, "Conv2D")
        .name(scope.prefix())
        .attr("strides", vec![1i64, 1, 1, 1])
        .attr("padding", "VALID")
        .attr("data_format", "NHWC")
        .input(depthwise)
        .input(pw)
        .build()?
        .output(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::placeholder;
    use weir_graph::{Code, DType, Graph};

    fn ph(g: &Graph, dims: &[usize]) -> Output {
        placeholder(g, DType::F32, Shape::known(dims)).unwrap()
    }

    #[test]
    fn transpose_and_separable_errors_are_invalid_argument() {
        let g = Graph::new();
        let (x, w) = (ph(&g, &[1, 3, 3, 2]), ph(&g, &[2, 2, 4, 3]));
        let e = conv2d_transpose(&x, &w, [1, 3, 3, 4], [1, 1, 1, 1], Padding::Same).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert!(e
            .message()
            .contains("Dimensions must be equal, but are 2 and 3"));
        let e = conv2d_transpose(
            ph(&g, &[3, 3, 2]),
            ph(&g, &[2, 2, 4, 2]),
            [1, 3, 3, 4],
            [1, 1, 1, 1],
            Padding::Same,
        )
        .unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        let x = ph(&g, &[2, 5, 5, 2]);
        let dw = ph(&g, &[3, 3, 2, 2]);
        let e = separable_conv2d(
            &x,
            &dw,
            ph(&g, &[2, 1, 4, 3]),
            [1, 1, 1, 1],
            Padding::Same,
            None,
        )
        .unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert_eq!(e.message(), "Dimensions 2 and 1 are not compatible");
        // The pointwise filter must take in_channels * channel_multiplier channels.
        let e = separable_conv2d(
            &x,
            &dw,
            ph(&g, &[1, 1, 3, 3]),
            [1, 1, 1, 1],
            Padding::Same,
            None,
        )
        .unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        let e = depthwise_conv2d(&x, &dw, [1, 2, 2, 1], Padding::Same, Some([2, 2])).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        let e = depthwise_conv2d(&x, &dw, [1, 1, 1, 1], Padding::Same, Some([0, 1])).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
    }
}
