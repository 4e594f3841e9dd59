//! `DepthwiseConv2dNative` (NHWC, SAME/VALID, strides, dilations) and its backward kernels
//! `DepthwiseConv2dNativeBackpropInput` and `DepthwiseConv2dNativeBackpropFilter`.
//!
//! Each input channel `c` is convolved with its own `channel_multiplier` filters, giving output
//! channels `c * channel_multiplier + m`; the kernels are in `depthwise_kernels.rs`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpBuilder, OpContext, OpDef, Output, Result, Shape, Tensor,
};

use super::depthwise_kernels::{backprop_filter, backprop_input, forward, Attrs, Geom};
use super::padding::{
    check_nhwc, padding_attrs, read_padding, static_dim, ExplicitPaddings, Padding, WindowPadding,
};
use super::{match_float, NnFloat};

/// TensorFlow's `tf.nn.depthwise_conv2d_native(input, filter, strides, padding)` (op
/// `DepthwiseConv2dNative`, NHWC): input `[batch, height, width, in_channels]`, filter
/// `[filter_height, filter_width, in_channels, channel_multiplier]`.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, nn::{depthwise_conv2d_native, Padding}};
/// let g = Graph::new();
/// let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(8), Some(8), Some(3)]))?;
/// let w = placeholder(&g, DType::F32, Shape::known(&[3, 3, 3, 2]))?;
/// let y = depthwise_conv2d_native(&x, &w, [1, 2, 2, 1], Padding::Same)?;
/// assert_eq!(y.shape(), Shape::new(vec![None, Some(4), Some(4), Some(6)]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn depthwise_conv2d_native(
    input: impl Into<Output>,
    filter: impl Into<Output>,
    strides: [i64; 4],
    padding: Padding,
) -> Result<Output> {
    DepthwiseConv2dNative::new(strides, padding).build(input, filter)
}

/// TensorFlow's `DepthwiseConv2dNativeBackpropInput(input_sizes, filter, out_backprop)`: the
/// gradient of a depthwise convolution with respect to its input, of shape `input_sizes`.
pub fn depthwise_conv2d_native_backprop_input(
    input_sizes: impl Into<Output>,
    filter: impl Into<Output>,
    out_backprop: impl Into<Output>,
    strides: [i64; 4],
    padding: Padding,
) -> Result<Output> {
    DepthwiseConv2dNative::new(strides, padding).backprop_input(input_sizes, filter, out_backprop)
}

/// TensorFlow's `DepthwiseConv2dNativeBackpropFilter(input, filter_sizes, out_backprop)`: the
/// gradient of a depthwise convolution with respect to its filter, of shape `filter_sizes`.
pub fn depthwise_conv2d_native_backprop_filter(
    input: impl Into<Output>,
    filter_sizes: impl Into<Output>,
    out_backprop: impl Into<Output>,
    strides: [i64; 4],
    padding: Padding,
) -> Result<Output> {
    DepthwiseConv2dNative::new(strides, padding).backprop_filter(input, filter_sizes, out_backprop)
}

/// The options of TensorFlow's `DepthwiseConv2dNative` family (`strides`, `padding`,
/// `dilations`, `data_format="NHWC"`) and builders of its three ops.
///
/// TensorFlow's CPU kernels reject dilations other than 1 and (but for float32's forward pass)
/// unequal row and column strides; weir's run them (as TensorFlow's GPU kernels do), which is
/// what [`depthwise_conv2d`](super::depthwise_conv2d) uses for `rate`.
#[derive(Clone, Debug)]
pub struct DepthwiseConv2dNative {
    strides: [i64; 4],
    padding: Padding,
    explicit: Option<ExplicitPaddings>,
    dilations: [i64; 4],
    name: Option<String>,
}

impl DepthwiseConv2dNative {
    /// Strides `[1, stride_h, stride_w, 1]` and padding; dilations 1.
    pub fn new(strides: [i64; 4], padding: Padding) -> DepthwiseConv2dNative {
        DepthwiseConv2dNative {
            strides,
            padding,
            explicit: None,
            dilations: [1; 4],
            name: None,
        }
    }

    /// Pads explicitly instead (`padding="EXPLICIT"`): `[[0, 0], [top, bottom], [left, right],
    /// [0, 0]]`, with zeros; the backprops built from these options take the same paddings.
    pub fn explicit_paddings(mut self, paddings: ExplicitPaddings) -> Self {
        self.explicit = Some(paddings);
        self
    }

    /// Dilations `[1, rate_h, rate_w, 1]` (TensorFlow's `dilations` attribute).
    pub fn dilations(mut self, dilations: [i64; 4]) -> Self {
        self.dilations = dilations;
        self
    }

    /// The node's name (a name ending in `/` is used exactly).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    fn node(&self, g: &weir_graph::Graph, op: &str) -> OpBuilder {
        let (padding, explicit) = padding_attrs(self.padding, self.explicit.as_ref());
        crate::new_op(g, op)
            .maybe_name(self.name.as_deref())
            .attr("strides", self.strides.to_vec())
            .attr("padding", padding)
            .attr("explicit_paddings", explicit)
            .attr("data_format", "NHWC")
            .attr("dilations", self.dilations.to_vec())
    }

    /// Adds the `DepthwiseConv2dNative` node.
    pub fn build(&self, input: impl Into<Output>, filter: impl Into<Output>) -> Result<Output> {
        let (x, f) = (input.into(), filter.into());
        let g = crate::util::same_graph(&[&x, &f])?.clone();
        self.node(&g, "DepthwiseConv2dNative")
            .input(x)
            .input(f)
            .build()?
            .output(0)
    }

    /// Adds a `DepthwiseConv2dNativeBackpropInput` node.
    pub fn backprop_input(
        &self,
        input_sizes: impl Into<Output>,
        filter: impl Into<Output>,
        out_backprop: impl Into<Output>,
    ) -> Result<Output> {
        let (s, f, d) = (input_sizes.into(), filter.into(), out_backprop.into());
        let g = crate::util::same_graph(&[&s, &f, &d])?.clone();
        let node = self.node(&g, "DepthwiseConv2dNativeBackpropInput");
        node.input(s).input(f).input(d).build()?.output(0)
    }

    /// Adds a `DepthwiseConv2dNativeBackpropFilter` node.
    pub fn backprop_filter(
        &self,
        input: impl Into<Output>,
        filter_sizes: impl Into<Output>,
        out_backprop: impl Into<Output>,
    ) -> Result<Output> {
        let (x, s, d) = (input.into(), filter_sizes.into(), out_backprop.into());
        let g = crate::util::same_graph(&[&x, &s, &d])?.clone();
        let node = self.node(&g, "DepthwiseConv2dNativeBackpropFilter");
        node.input(x).input(s).input(d).build()?.output(0)
    }
}

fn spatial(list: &[i64], what: &str) -> Result<(usize, usize)> {
    if list.len() != 4 {
        return Err(Error::invalid_argument(format!(
            "DepthwiseConv2D requires the {what} attribute to contain 4 values, but got: {}",
            list.len()
        )));
    }
    if list[0] != 1 || list[3] != 1 {
        return Err(Error::invalid_argument(format!(
            "Current implementation does not yet support {what}s in the batch and depth dimensions."
        )));
    }
    if list[1] < 1 || list[2] < 1 {
        return Err(Error::invalid_argument(format!(
            "{what}s must be positive, got {list:?}"
        )));
    }
    Ok((list[1] as usize, list[2] as usize))
}

fn read_attrs(
    strides: &[i64],
    padding: &str,
    explicit: &[i64],
    format: &str,
    dilations: &[i64],
) -> Result<Attrs> {
    let strides = spatial(strides, "stride")?;
    let dilations = spatial(dilations, "dilation")?;
    check_nhwc(format)?;
    let padding = read_padding(padding, explicit)?;
    Ok(Attrs {
        strides,
        dilations,
        padding,
    })
}

fn node_attrs(node: &Node) -> Result<Attrs> {
    read_attrs(
        &node.attr::<Vec<i64>>("strides")?,
        &node.attr::<String>("padding")?,
        &node.attr::<Vec<i64>>("explicit_paddings")?,
        &node.attr::<String>("data_format")?,
        &node.attr::<Vec<i64>>("dilations")?,
    )
}

fn ctx_attrs(ctx: &InferenceContext<'_>) -> Result<Attrs> {
    read_attrs(
        &ctx.attr::<Vec<i64>>("strides")?,
        &ctx.attr::<String>("padding")?,
        &ctx.attr::<Vec<i64>>("explicit_paddings")?,
        &ctx.attr::<String>("data_format")?,
        &ctx.attr::<Vec<i64>>("dilations")?,
    )
}

/// An int32 `[4]` sizes input as dims.
fn sizes_of(t: &Tensor, op: &str, what: &str) -> Result<Vec<usize>> {
    if t.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "{op}: {what} input must be 1-dim, not {}",
            t.rank()
        )));
    }
    super::conv::four_sizes(t, |v| {
        Error::invalid_argument(format!(
            "{op}: {what} must be 4 non-negative dims, got {v:?}"
        ))
    })
}

fn check_out_backprop(g: &Geom, dy: &Tensor, op: &str) -> Result<()> {
    let want = g.out_dims();
    if dy.shape() != want {
        return Err(Error::invalid_argument(format!(
            "{op}: out_backprop has shape {} but the convolution's output has shape {}",
            format_dims(dy.shape()),
            format_dims(&want)
        )));
    }
    Ok(())
}

#[derive(Clone, Copy)]
enum Which {
    Forward,
    Input,
    Filter,
}

struct DepthwiseKernel {
    attrs: Attrs,
    which: Which,
}

const FWD: &str = "DepthwiseConv2dNative";
const BP_INPUT: &str = "DepthwiseConv2DBackpropInput";
const BP_FILTER: &str = "DepthwiseConv2DBackpropFilter";

fn run<T: NnFloat>(a: Attrs, which: Which, ctx: &OpContext<'_>) -> Result<Tensor> {
    match which {
        Which::Forward => {
            let (x, f) = (ctx.input(0), ctx.input(1));
            let g = Geom::new(a, x.shape(), f.shape(), FWD)?;
            let out = forward::<T>(&g, x.as_slice()?, f.as_slice()?);
            Tensor::from_vec(&g.out_dims(), out)
        }
        Which::Input => {
            let sizes = sizes_of(ctx.input(0), BP_INPUT, "input_sizes")?;
            let (f, dy) = (ctx.input(1), ctx.input(2));
            let g = Geom::new(a, &sizes, f.shape(), BP_INPUT)?;
            check_out_backprop(&g, dy, BP_INPUT)?;
            Tensor::from_vec(
                &sizes,
                backprop_input::<T>(&g, f.as_slice()?, dy.as_slice()?),
            )
        }
        Which::Filter => {
            let sizes = sizes_of(ctx.input(1), BP_FILTER, "filter_sizes")?;
            let (x, dy) = (ctx.input(0), ctx.input(2));
            let g = Geom::new(a, x.shape(), &sizes, BP_FILTER)?;
            check_out_backprop(&g, dy, BP_FILTER)?;
            Tensor::from_vec(
                &sizes,
                backprop_filter::<T>(&g, x.as_slice()?, dy.as_slice()?),
            )
        }
    }
}

impl Kernel for DepthwiseKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let dtype = ctx
            .input(if let Which::Input = self.which { 1 } else { 0 })
            .dtype();
        let out = match_float!(dtype, T => run::<T>(self.attrs, self.which, ctx)?);
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let which = match node.op_type() {
        "DepthwiseConv2dNative" => Which::Forward,
        "DepthwiseConv2dNativeBackpropInput" => Which::Input,
        _ => Which::Filter,
    };
    Ok(Box::new(DepthwiseKernel {
        attrs: node_attrs(node)?,
        which,
    }))
}

/// The static output size of spatial dim `axis` (0 height, 1 width): the padded input must
/// hold the dilated window.
fn out_dim(
    d: Option<usize>,
    k: Option<usize>,
    dil: usize,
    s: usize,
    p: WindowPadding,
    axis: usize,
) -> Result<Option<usize>> {
    static_dim(d, k.map(|k| k.saturating_sub(1) * dil + 1), s, p, axis)
}

fn forward_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let a = ctx_attrs(ctx)?;
    let x = ctx.with_rank(0, 4)?;
    let f = ctx.with_rank(1, 4)?;
    let depth = match (x.dim(3), f.dim(2)) {
        (Some(c), Some(fc)) if c != fc => {
            return Err(Error::invalid_argument(format!(
                "Dimensions must be equal, but are {c} and {fc} for '{FWD}' with input shapes: {x}, {f}."
            )))
        }
        (c, fc) => c.or(fc),
    };
    let oh = out_dim(x.dim(1), f.dim(0), a.dilations.0, a.strides.0, a.padding, 0)?;
    let ow = out_dim(x.dim(2), f.dim(1), a.dilations.1, a.strides.1, a.padding, 1)?;
    let oc = depth.zip(f.dim(3)).map(|(c, m)| c * m);
    ctx.set_output(0, Shape::new(vec![x.dim(0), oh, ow, oc]));
    Ok(())
}

fn sizes_shape(ctx: &mut InferenceContext<'_>, i: usize, op: &str) -> Result<()> {
    ctx_attrs(ctx)?;
    let s = match ctx.input_const(i) {
        Some(t) => Shape::known(&sizes_of(t, op, "sizes")?),
        None => Shape::unknown_of_rank(4),
    };
    ctx.set_output(0, s);
    Ok(())
}

pub(super) fn register() {
    let common = |def: OpDef| {
        def.type_attr("T", &[DType::F32, DType::F64])
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
    };
    register_op(
        common(OpDef::new("DepthwiseConv2dNative"))
            .input("input", ArgType::Attr("T"))
            .input("filter", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .shape_fn(forward_shape),
    );
    register_op(
        common(OpDef::new("DepthwiseConv2dNativeBackpropInput"))
            .input("input_sizes", ArgType::Fixed(DType::I32))
            .input("filter", ArgType::Attr("T"))
            .input("out_backprop", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .shape_fn(|ctx| sizes_shape(ctx, 0, BP_INPUT)),
    );
    register_op(
        common(OpDef::new("DepthwiseConv2dNativeBackpropFilter"))
            .input("input", ArgType::Attr("T"))
            .input("filter_sizes", ArgType::Fixed(DType::I32))
            .input("out_backprop", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .shape_fn(|ctx| sizes_shape(ctx, 1, BP_FILTER)),
    );
    for name in [
        "DepthwiseConv2dNative",
        "DepthwiseConv2dNativeBackpropInput",
        "DepthwiseConv2dNativeBackpropFilter",
    ] {
        register_kernel(name, make);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::placeholder;
    use weir_graph::{Code, Graph};

    fn attrs(s: (usize, usize), d: (usize, usize), p: Padding) -> Attrs {
        Attrs {
            strides: s,
            dilations: d,
            padding: p.into(),
        }
    }

    #[test]
    fn errors_have_tensorflow_kinds() {
        let g = Graph::new();
        let ph = |d: &[usize]| placeholder(&g, DType::F32, Shape::known(d)).unwrap();
        let conv = |x: &Output, f: &Output, s: [i64; 4]| {
            DepthwiseConv2dNative::new(s, Padding::Same).build(x, f)
        };
        let (x, f) = (ph(&[2, 5, 5, 2]), ph(&[3, 3, 2, 2]));
        assert!(conv(&x, &f, [1, 1, 1, 1]).is_ok());
        // Bad ranks.
        let e = conv(&ph(&[5, 5, 2]), &f, [1, 1, 1, 1]).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert!(
            e.message().contains("Shape must be rank 4 but is rank 3"),
            "{}",
            e.message()
        );
        let e = conv(&x, &ph(&[3, 3, 2]), [1, 1, 1, 1]).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        // Mismatched channels.
        let e = conv(&x, &ph(&[3, 3, 1, 2]), [1, 1, 1, 1]).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert!(e
            .message()
            .contains("Dimensions must be equal, but are 2 and 1"));
        // Strides.
        let e = conv(&x, &f, [2, 1, 1, 1]).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert!(e
            .message()
            .contains("does not yet support strides in the batch and depth dimensions"));
        let e = DepthwiseConv2dNative::new([1, 1, 1, 1], Padding::Valid)
            .build(ph(&[1, 2, 2, 2]), &f)
            .unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert!(e
            .message()
            .contains("Negative dimension size caused by subtracting 3 from 2"));
        // The kernels' own checks, for shapes only known when they run.
        let a = attrs((1, 1), (1, 1), Padding::Same);
        let e = Geom::new(a, &[2, 5, 5, 2], &[3, 3, 1, 2], FWD).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert_eq!(
            e.message(),
            "DepthwiseConv2dNative: input and filter must have the same depth: 2 vs 1"
        );
        let e = Geom::new(a, &[5, 5, 2], &[3, 3, 2, 1], FWD).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        let e = sizes_of(&Tensor::from(vec![1i32, 2, 3]), BP_INPUT, "input_sizes").unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        let e = read_attrs(&[1, 1, 1, 1], "SAME", &[], "NCHW", &[1, 1, 1, 1]).unwrap_err();
        assert_eq!(e.code(), Code::Unimplemented);
    }
}
