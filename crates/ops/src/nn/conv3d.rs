//! `Conv3D` (`tf.nn.conv3d`) and its backward kernels `Conv3DBackpropInputV2` and
//! `Conv3DBackpropFilterV2` (what `tf.nn.conv3d_transpose` builds), with TensorFlow 2.21's op
//! definitions, shape functions and CPU kernel checks.
//!
//! TensorFlow's own (Eigen) CPU kernels compute NDHWC with dilations 1 only and reject the rest
//! with the errors reproduced here; the op definitions still accept NCDHW and dilations, as
//! TensorFlow's do (GPU kernels take them). The deprecated V1 backprops are not provided:
//! TensorFlow 2.21 refuses to build them (removed in GraphDef version 10).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, Kernel, Node, OpContext, OpDef, Output, Result,
    Tensor,
};

use super::conv3d_kernels::{
    backprop_filter, backprop_filter_half, backprop_input, forward, forward_half, Cuboid,
};
use super::conv3d_shape::{conv3d_shape, sizes_shape, Format};
use super::padding::{conv_output_size, Padding};
use super::{match_float, widen_half};
use crate::array::IndexArg;

/// `tf.nn.conv3d(input, filter, strides, padding)` with `data_format="NDHWC"` and no dilation:
/// input `[batch, depth, height, width, in_channels]`, filter `[filter_depth, filter_height,
/// filter_width, in_channels, out_channels]`.
pub fn conv3d(
    input: impl Into<Output>,
    filter: impl Into<Output>,
    strides: [i64; 5],
    padding: Padding,
) -> Result<Output> {
    Conv3D::new(strides, padding).build(input, filter)
}

/// The options of `tf.nn.conv3d(input, filter, strides, padding, data_format="NDHWC",
/// dilations=[1, 1, 1, 1, 1])` (TensorFlow's `Conv3D` op).
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, nn::{Conv3D, Padding}};
/// let g = Graph::new();
/// let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(8), Some(32), Some(32), Some(3)]))?;
/// let w = placeholder(&g, DType::F32, Shape::known(&[3, 5, 5, 3, 16]))?;
/// let y = Conv3D::new([1, 1, 2, 2, 1], Padding::Same).build(&x, &w)?;
/// assert_eq!(y.shape(), Shape::new(vec![None, Some(8), Some(16), Some(16), Some(16)]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone)]
pub struct Conv3D {
    strides: [i64; 5],
    padding: Padding,
    data_format: String,
    dilations: [i64; 5],
}

impl Conv3D {
    /// Strides `[1, stride_d, stride_h, stride_w, 1]` and padding, NDHWC, no dilation.
    pub fn new(strides: [i64; 5], padding: Padding) -> Conv3D {
        Conv3D {
            strides,
            padding,
            data_format: "NDHWC".into(),
            dilations: [1; 5],
        }
    }

    /// The `data_format` attribute (`"NDHWC"` or `"NCDHW"`; TensorFlow's CPU kernels take
    /// only NDHWC).
    pub fn data_format(mut self, format: &str) -> Conv3D {
        self.data_format = format.into();
        self
    }

    /// The `dilations` attribute (TensorFlow's CPU kernels take only 1s).
    pub fn dilations(mut self, dilations: [i64; 5]) -> Conv3D {
        self.dilations = dilations;
        self
    }

    fn node(&self, g: &weir_graph::Graph, op: &str) -> weir_graph::OpBuilder {
        crate::new_op(g, op)
            .attr("strides", self.strides.to_vec())
            .attr("padding", self.padding.as_str())
            .attr("data_format", self.data_format.as_str())
            .attr("dilations", self.dilations.to_vec())
    }

    /// Adds the `Conv3D` node.
    pub fn build(&self, input: impl Into<Output>, filter: impl Into<Output>) -> Result<Output> {
        let (x, f) = (input.into(), filter.into());
        let g = crate::util::same_graph(&[&x, &f])?.clone();
        self.node(&g, "Conv3D").input(x).input(f).build()?.output(0)
    }

    /// Adds a `Conv3DBackpropInputV2(input_sizes, filter, out_backprop)` node of this
    /// configuration: the gradient of `conv3d` with respect to an input of shape `input_sizes`
    /// (int32 or int64 `[5]`).
    pub fn build_backprop_input(
        &self,
        input_sizes: impl Into<Output>,
        filter: impl Into<Output>,
        out_backprop: impl Into<Output>,
    ) -> Result<Output> {
        let (s, f, d) = (input_sizes.into(), filter.into(), out_backprop.into());
        let g = crate::util::same_graph(&[&s, &f, &d])?.clone();
        self.node(&g, "Conv3DBackpropInputV2")
            .input(s)
            .input(f)
            .input(d)
            .build()?
            .output(0)
    }

    /// Adds a `Conv3DBackpropFilterV2(input, filter_sizes, out_backprop)` node of this
    /// configuration: the gradient of `conv3d` with respect to a filter of shape
    /// `filter_sizes` (int32 `[5]`).
    pub fn build_backprop_filter(
        &self,
        input: impl Into<Output>,
        filter_sizes: impl Into<Output>,
        out_backprop: impl Into<Output>,
    ) -> Result<Output> {
        let (x, s, d) = (input.into(), filter_sizes.into(), out_backprop.into());
        let g = crate::util::same_graph(&[&x, &s, &d])?.clone();
        self.node(&g, "Conv3DBackpropFilterV2")
            .input(x)
            .input(s)
            .input(d)
            .build()?
            .output(0)
    }
}

/// TensorFlow's `Conv3DBackpropInputV2(input_sizes, filter, out_backprop)`
/// (`gen_nn_ops.conv3d_backprop_input_v2`), NDHWC, no dilation.
pub fn conv3d_backprop_input_v2(
    input_sizes: impl Into<Output>,
    filter: impl Into<Output>,
    out_backprop: impl Into<Output>,
    strides: [i64; 5],
    padding: Padding,
) -> Result<Output> {
    Conv3D::new(strides, padding).build_backprop_input(input_sizes, filter, out_backprop)
}

/// TensorFlow's `Conv3DBackpropFilterV2(input, filter_sizes, out_backprop)`
/// (`gen_nn_ops.conv3d_backprop_filter_v2`), NDHWC, no dilation.
pub fn conv3d_backprop_filter_v2(
    input: impl Into<Output>,
    filter_sizes: impl Into<Output>,
    out_backprop: impl Into<Output>,
    strides: [i64; 5],
    padding: Padding,
) -> Result<Output> {
    Conv3D::new(strides, padding).build_backprop_filter(input, filter_sizes, out_backprop)
}

/// `tf.nn.conv3d_transpose(value, filter, output_shape, strides, padding)` with
/// `data_format="NDHWC"`: the transpose (gradient) of `conv3d`, one
/// `Conv3DBackpropInputV2(input_sizes=output_shape, filter, out_backprop=value)` node named
/// `conv3d_transpose`, as TensorFlow builds it. `filter` is `[depth, height, width,
/// output_channels, in_channels]`.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, nn::{conv3d_transpose, Padding}};
/// let g = Graph::new();
/// let x = placeholder(&g, DType::F32, Shape::known(&[1, 2, 4, 4, 8]))?;
/// let w = placeholder(&g, DType::F32, Shape::known(&[3, 3, 3, 3, 8]))?;
/// let y = conv3d_transpose(&x, &w, [1, 4, 8, 8, 3], [1, 2, 2, 2, 1], Padding::Same)?;
/// assert_eq!(y.name(), "conv3d_transpose:0");
/// assert_eq!(y.shape(), Shape::known(&[1, 4, 8, 8, 3]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn conv3d_transpose(
    value: impl Into<Output>,
    filter: impl Into<Output>,
    output_shape: impl Into<IndexArg>,
    strides: [i64; 5],
    padding: Padding,
) -> Result<Output> {
    let (value, filter) = (value.into(), filter.into());
    let g = crate::util::same_graph(&[&value, &filter])?.clone();
    let scope = g.name_scope("conv3d_transpose");
    let sizes = match output_shape.into() {
        IndexArg::List(v) => {
            let v: Vec<i32> = v.iter().map(|&d| d as i32).collect();
            crate::array::constant_named(&g, v, "input_sizes")?
        }
        IndexArg::Tensor(t) => t,
    };
    Conv3D::new(strides, padding)
        .node(&g, "Conv3DBackpropInputV2")
        .name(scope.prefix())
        .input(sizes)
        .input(filter)
        .input(value)
        .build()?
        .output(0)
}

/// A 5-element window attribute checked as TensorFlow's 3-D conv kernels check it: 1 in the
/// batch and channel slots (`nc` is the error otherwise), the spatial entries.
fn spatial3(list: &[i64], f: Format, len: &str, nc: &str) -> Result<[i64; 3]> {
    if list.len() != 5 {
        return Err(Error::invalid_argument(len.to_string()));
    }
    if list[0] != 1 || list[f.channel()] != 1 {
        return Err(Error::invalid_argument(nc.to_string()));
    }
    Ok([0, 1, 2].map(|i| list[f.spatial(i)]))
}

const STRIDES_LEN: &str = "Sliding window strides field must specify 5 dimensions";
const STRIDES_NC: &str =
    "Current implementation does not yet support strides in the batch and depth dimensions.";
const DILATIONS_LEN: &str = "Dilation rates field must specify 5 dimensions";
const DILATIONS_NC: &str =
    "Current implementation does not yet support dilation rates in the batch and depth dimensions.";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Which {
    Forward,
    Input,
    Filter,
}

/// A conv node's attributes as its CPU kernel checks them when it is created.
struct Conv3DKernel {
    which: Which,
    format: Format,
    strides: [usize; 3],
    dilations: [usize; 3],
    padding: Padding,
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let which = match node.op_type() {
        "Conv3D" => Which::Forward,
        "Conv3DBackpropInputV2" => Which::Input,
        _ => Which::Filter,
    };
    let format = Format::parse(&node.attr::<String>("data_format")?)?;
    let strides_attr = node.attr::<Vec<i64>>("strides")?;
    let dilations_attr = node.attr::<Vec<i64>>("dilations")?;
    let (strides, dilations) = if which == Which::Forward {
        let s = spatial3(&strides_attr, format, STRIDES_LEN, STRIDES_NC)?;
        if s.iter().any(|&v| v <= 0) {
            return Err(Error::invalid_argument(
                "Spatial strides should be larger than 0.",
            ));
        }
        let d = spatial3(&dilations_attr, format, DILATIONS_LEN, DILATIONS_NC)?;
        if d.iter().any(|&v| v <= 0) {
            return Err(Error::invalid_argument(
                "Dilated rates should be larger than 0.",
            ));
        }
        (s, d)
    } else {
        if format != Format::Ndhwc {
            let op = if which == Which::Input {
                "Input"
            } else {
                "Filter"
            };
            return Err(Error::invalid_argument(format!(
                "Conv3DBackprop{op}OpV2 only supports NDHWC on the CPU."
            )));
        }
        let d = spatial3(&dilations_attr, format, DILATIONS_LEN, DILATIONS_NC)?;
        if d != [1, 1, 1] {
            return Err(Error::invalid_argument(
                "Current CPU implementation does not yet support dilation rates larger than 1.",
            ));
        }
        // A zero or negative spatial stride is caught when the sizes are computed.
        let s = spatial3(&strides_attr, format, STRIDES_LEN, STRIDES_NC)?;
        (s, d)
    };
    let to_usize = |v: [i64; 3]| v.map(|x| x.max(0) as usize);
    Ok(Box::new(Conv3DKernel {
        which,
        format,
        strides: to_usize(strides),
        dilations: to_usize(dilations),
        padding: Padding::parse(&node.attr::<String>("padding")?)?,
    }))
}

/// A backprop's shape input (int32 or int64 vector) as dims (TensorFlow's `MakeShape`).
fn sizes_of(t: &Tensor) -> Result<Vec<usize>> {
    if t.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "shape must be a vector of {{int32,int64}}, got shape {}",
            weir_graph::format_dims(t.shape())
        )));
    }
    let v: Vec<i64> = match t.dtype() {
        DType::I32 => t.as_slice::<i32>()?.iter().map(|&v| v as i64).collect(),
        _ => t.to_vec::<i64>()?,
    };
    v.into_iter()
        .map(|d| {
            usize::try_from(d)
                .map_err(|_| Error::invalid_argument(format!("Dimension {d} must be >= 0")))
        })
        .collect()
}

fn rank5(dims: &[usize], what: &str) -> Result<()> {
    if dims.len() != 5 {
        return Err(Error::invalid_argument(format!(
            "{what} tensor must have 5 dimensions"
        )));
    }
    Ok(())
}

impl Conv3DKernel {
    /// `Conv3D`; the half types (`half`) go through [`forward_half`].
    fn forward(&self, x: &Tensor, f: &Tensor) -> Result<Tensor> {
        let (xd, fd) = (x.shape(), f.shape());
        if xd.len() != 5 {
            return Err(Error::invalid_argument("input must be 5-dimensional"));
        }
        if fd.len() != 5 {
            return Err(Error::invalid_argument("filter must be 5-dimensional"));
        }
        let fm = self.format;
        let in_depth = xd[fm.channel()];
        if fd[3] == 0 {
            return Err(Error::invalid_argument("filter_depth must be non-zero"));
        }
        if in_depth % fd[3] != 0 {
            return Err(Error::invalid_argument(format!(
                "Input depth must be evenly divisible by filter depth: {in_depth} vs {}",
                fd[3]
            )));
        }
        let mut out = [0; 3];
        for (i, o) in out.iter_mut().enumerate() {
            let eff = (fd[i].max(1) - 1) * self.dilations[i] + 1;
            let eff = if fd[i] == 0 { 0 } else { eff };
            *o = conv_output_size(xd[fm.spatial(i)], eff, self.strides[i], self.padding)?.0;
        }
        let out_dims = fm.dims(xd[0], out, fd[4]);
        let half = matches!(x.dtype(), DType::F16 | DType::BF16).then_some(x.dtype());
        if out_dims.contains(&0) {
            return Tensor::zeros(x.dtype(), &out_dims);
        }
        if fm != Format::Ndhwc {
            return Err(Error::invalid_argument(
                "CPU implementation of Conv3D currently only supports the NHWC tensor format.",
            ));
        }
        if self.dilations != [1, 1, 1] {
            return Err(Error::invalid_argument(
                "CPU implementation of Conv3D currently only supports dilated rates of 1.",
            ));
        }
        if fd[3] != xd[4] {
            return Err(Error::invalid_argument(format!(
                "Number of channels in filter ({}) must match last dimension of input ({})",
                fd[3], xd[4]
            )));
        }
        let g = self.cuboid(xd, fd)?;
        if let Some(half) = half {
            let (xs, fs) = (widen_half(x)?, widen_half(f)?);
            let (xs, fs) = (xs.as_slice::<f32>()?, fs.as_slice::<f32>()?);
            let out = match half {
                DType::F16 => forward_half::<weir_graph::f16>(&g, xs, fs, fd[4]),
                _ => forward_half::<weir_graph::bf16>(&g, xs, fs, fd[4]),
            };
            let out = Tensor::from_vec(&out_dims, out)?;
            return crate::math::cast::cast_tensor(&out, half);
        }
        match_float!(x.dtype(), T => Tensor::from_vec(
            &out_dims,
            forward::<T>(&g, x.as_slice()?, f.as_slice()?, fd[4])?,
        ))
    }

    fn cuboid(&self, input: &[usize], filter: &[usize]) -> Result<Cuboid> {
        Cuboid::new(
            input[0],
            [input[1], input[2], input[3]],
            input[4],
            [filter[0], filter[1], filter[2]],
            self.strides,
            self.padding,
        )
    }

    /// TensorFlow's `ConvBackpropComputeDimensions` for the shapes of a backprop.
    fn backprop_cuboid(&self, input: &[usize], filter: &[usize], dy: &[usize]) -> Result<Cuboid> {
        rank5(input, "input")?;
        rank5(filter, "filter_sizes")?;
        rank5(dy, "out_backprop")?;
        if input[4] != filter[3] {
            return Err(Error::invalid_argument(format!(
                "input and filter_sizes must have the same number of channels. Got {} for input and {} for filter_sizes",
                input[4], filter[3]
            )));
        }
        if dy[4] != filter[4] {
            return Err(Error::invalid_argument(format!(
                "out_backprop and filter_sizes must have the same number of channels. Got {} for out_backprop and {} for filter_sizes",
                dy[4], filter[4]
            )));
        }
        let label = if self.which == Which::Input {
            "Conv3DBackpropInputOp"
        } else {
            "Conv3DBackpropFilterOp"
        };
        if input[0] != dy[0] {
            return Err(Error::invalid_argument(format!(
                "{label}: input and out_backprop must have the same batch size. Input batch: {}, outbackprop batch: {}, batch_dim: 0",
                input[0], dy[0]
            )));
        }
        for i in 0..3 {
            let (size, k, s) = (input[1 + i], filter[i], self.strides[i]);
            let out = conv_output_size(size, k, s, self.padding)?.0;
            if out != dy[1 + i] {
                return Err(Error::invalid_argument(format!(
                    "{label}: Size of out_backprop doesn't match computed: actual = {}, computed = {out} spatial_dim: {} input: {size} filter: {k} output: {} stride: {s} dilation: 1",
                    dy[1 + i],
                    1 + i,
                    dy[1 + i]
                )));
            }
        }
        self.cuboid(input, filter)
    }

    /// `Conv3DBackpropInputV2` in half or bfloat16: the f32 kernel on widened inputs, each
    /// output rounded once. TensorFlow rounds after every fused step, in the order of its
    /// backward contraction (not reproduced here), so results differ by about one rounding of
    /// the output.
    fn backprop_input_half(&self, ctx: &OpContext<'_>, dtype: DType) -> Result<Tensor> {
        let (f, dy) = (widen_half(ctx.input(1))?, widen_half(ctx.input(2))?);
        let dx = self.backprop_input(ctx.input(0), &f, &dy)?;
        crate::math::cast::cast_tensor(&dx, dtype)
    }

    fn backprop_input(&self, sizes: &Tensor, f: &Tensor, dy: &Tensor) -> Result<Tensor> {
        let input = sizes_of(sizes)?;
        let g = self.backprop_cuboid(&input, f.shape(), dy.shape())?;
        let out_c = f.shape()[4];
        match_float!(f.dtype(), T => Tensor::from_vec(
            &input,
            backprop_input::<T>(&g, f.as_slice()?, dy.as_slice()?, out_c)?,
        ))
    }

    /// `Conv3DBackpropFilterV2`; the half types go through [`backprop_filter_half`].
    fn backprop_filter(&self, x: &Tensor, sizes: &Tensor, dy: &Tensor) -> Result<Tensor> {
        let filter = sizes_of(sizes)?;
        let g = self.backprop_cuboid(x.shape(), &filter, dy.shape())?;
        let out_c = filter[4];
        let dtype = x.dtype();
        if matches!(dtype, DType::F16 | DType::BF16) {
            let (xw, dw) = (widen_half(x)?, widen_half(dy)?);
            let (xs, ds) = (xw.as_slice::<f32>()?, dw.as_slice::<f32>()?);
            let df = match dtype {
                DType::F16 => backprop_filter_half::<weir_graph::f16>(&g, xs, ds, out_c),
                _ => backprop_filter_half::<weir_graph::bf16>(&g, xs, ds, out_c),
            };
            return crate::math::cast::cast_tensor(&Tensor::from_vec(&filter, df)?, dtype);
        }
        match_float!(x.dtype(), T => Tensor::from_vec(
            &filter,
            backprop_filter::<T>(&g, x.as_slice()?, dy.as_slice()?, out_c)?,
        ))
    }
}

impl Kernel for Conv3DKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let out = match self.which {
            Which::Forward => self.forward(ctx.input(0), ctx.input(1))?,
            Which::Input => match ctx.input(1).dtype() {
                dt @ (DType::F16 | DType::BF16) => self.backprop_input_half(ctx, dt)?,
                _ => self.backprop_input(ctx.input(0), ctx.input(1), ctx.input(2))?,
            },
            Which::Filter => self.backprop_filter(ctx.input(0), ctx.input(1), ctx.input(2))?,
        };
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

pub(super) fn register() {
    let common = |def: OpDef| {
        def.type_attr("T", super::HALF_FLOATS)
            .attr("strides", AttrKind::Ints, None)
            .attr("padding", AttrKind::Str, None)
            .attr(
                "data_format",
                AttrKind::Str,
                Some(AttrValue::Str("NDHWC".into())),
            )
            .attr(
                "dilations",
                AttrKind::Ints,
                Some(AttrValue::Ints(vec![1; 5])),
            )
    };
    register_op(
        common(OpDef::new("Conv3D"))
            .input("input", ArgType::Attr("T"))
            .input("filter", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .shape_fn(conv3d_shape),
    );
    register_op(
        common(OpDef::new("Conv3DBackpropInputV2"))
            .type_attr("Tshape", &[DType::I32, DType::I64])
            .input("input_sizes", ArgType::Attr("Tshape"))
            .input("filter", ArgType::Attr("T"))
            .input("out_backprop", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .shape_fn(|ctx| sizes_shape(ctx, 0)),
    );
    register_op(
        common(OpDef::new("Conv3DBackpropFilterV2"))
            .input("input", ArgType::Attr("T"))
            .input("filter_sizes", ArgType::Fixed(DType::I32))
            .input("out_backprop", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .shape_fn(|ctx| sizes_shape(ctx, 1)),
    );
    for name in ["Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2"] {
        register_kernel(name, make);
    }
}
