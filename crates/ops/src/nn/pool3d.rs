//! The 3-D pools `MaxPool3D` (`tf.nn.max_pool3d`) and `AvgPool3D` (`tf.nn.avg_pool3d`) and their
//! backward ops `MaxPool3DGrad`, `AvgPool3DGrad` and `MaxPool3DGradGrad`, with TensorFlow 2.21's
//! op definitions, shape functions and CPU kernel checks.
//!
//! TensorFlow's CPU kernels for these ops take float32 and bfloat16 (the op definitions allow
//! more types, which only GPU kernels take) and NDHWC only; weir registers the same. The
//! forward pools ignore the SAME padding: a max over, and a mean of, the elements inside the
//! input. The backward kernels are in `pool3d_grad.rs`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef,
    Output, Result, Shape, Tensor,
};

use super::conv3d_kernels::Cuboid;
use super::conv3d_shape::{check_min5, sizes_shape, static_out_dim, Format};
use super::padding::Padding;
use super::pool3d_grad::{avg_pool_grad, max_pool_grad, max_pool_grad_grad};
use super::NnFloat;

/// `tf.nn.max_pool3d(input, ksize, strides, padding)` with `data_format="NDHWC"`: the maximum
/// of each `ksize` window of `[batch, depth, height, width, channels]`.
pub fn max_pool3d(
    input: impl Into<Output>,
    ksize: [i64; 5],
    strides: [i64; 5],
    padding: Padding,
) -> Result<Output> {
    Pool3D::new(ksize, strides, padding).max_pool(input)
}

/// `tf.nn.avg_pool3d(input, ksize, strides, padding)` with `data_format="NDHWC"`: the mean of
/// each `ksize` window; with SAME padding only the elements inside the input are averaged.
pub fn avg_pool3d(
    input: impl Into<Output>,
    ksize: [i64; 5],
    strides: [i64; 5],
    padding: Padding,
) -> Result<Output> {
    Pool3D::new(ksize, strides, padding).avg_pool(input)
}

/// The options every 3-D pooling op shares (`ksize`, `strides`, `padding`, `data_format`), and
/// the builders of the five ops.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, nn::{Padding, Pool3D}};
/// let g = Graph::new();
/// let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(8), Some(16), Some(16), Some(4)]))?;
/// let y = Pool3D::new([1, 2, 3, 3, 1], [1, 2, 2, 2, 1], Padding::Same).max_pool(&x)?;
/// assert_eq!(y.name(), "MaxPool3D:0");
/// assert_eq!(y.shape(), Shape::new(vec![None, Some(4), Some(8), Some(8), Some(4)]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone)]
pub struct Pool3D {
    ksize: [i64; 5],
    strides: [i64; 5],
    padding: Padding,
    data_format: String,
}

impl Pool3D {
    /// Window `[1, kd, kh, kw, 1]`, strides `[1, sd, sh, sw, 1]` and padding, NDHWC.
    pub fn new(ksize: [i64; 5], strides: [i64; 5], padding: Padding) -> Pool3D {
        Pool3D {
            ksize,
            strides,
            padding,
            data_format: "NDHWC".into(),
        }
    }

    /// The `data_format` attribute (`"NDHWC"` or `"NCDHW"`; TensorFlow's CPU kernels take only
    /// NDHWC).
    pub fn data_format(mut self, format: &str) -> Pool3D {
        self.data_format = format.into();
        self
    }

    fn build(&self, op: &str, inputs: Vec<Output>) -> Result<Output> {
        let refs: Vec<&Output> = inputs.iter().collect();
        let g = crate::util::same_graph(&refs)?.clone();
        let mut b = crate::new_op(&g, op)
            .attr("ksize", self.ksize.to_vec())
            .attr("strides", self.strides.to_vec())
            .attr("padding", self.padding.as_str())
            .attr("data_format", self.data_format.as_str());
        for i in inputs {
            b = b.input(i);
        }
        b.build()?.output(0)
    }

    /// Adds a `MaxPool3D` node.
    pub fn max_pool(&self, input: impl Into<Output>) -> Result<Output> {
        self.build("MaxPool3D", vec![input.into()])
    }

    /// Adds an `AvgPool3D` node.
    pub fn avg_pool(&self, input: impl Into<Output>) -> Result<Output> {
        self.build("AvgPool3D", vec![input.into()])
    }

    /// Adds a `MaxPool3DGrad(orig_input, orig_output, grad)` node: each output gradient goes
    /// to every input of its window within 1e-5 of the window's maximum.
    pub fn max_pool_grad(
        &self,
        orig_input: impl Into<Output>,
        orig_output: impl Into<Output>,
        grad: impl Into<Output>,
    ) -> Result<Output> {
        let v = vec![orig_input.into(), orig_output.into(), grad.into()];
        self.build("MaxPool3DGrad", v)
    }

    /// Adds an `AvgPool3DGrad(orig_input_shape, grad)` node: each output gradient spread
    /// evenly over its window of an input of shape `orig_input_shape` (int32 `[5]`).
    pub fn avg_pool_grad(
        &self,
        orig_input_shape: impl Into<Output>,
        grad: impl Into<Output>,
    ) -> Result<Output> {
        self.build("AvgPool3DGrad", vec![orig_input_shape.into(), grad.into()])
    }

    /// Adds a `MaxPool3DGradGrad(orig_input, orig_output, grad)` node: for each output, the
    /// `grad` (shaped like the input) at the first position of its window holding the maximum.
    pub fn max_pool_grad_grad(
        &self,
        orig_input: impl Into<Output>,
        orig_output: impl Into<Output>,
        grad: impl Into<Output>,
    ) -> Result<Output> {
        let v = vec![orig_input.into(), orig_output.into(), grad.into()];
        self.build("MaxPool3DGradGrad", v)
    }
}

/// TensorFlow's `MaxPool3DGrad` (`gen_nn_ops.max_pool3d_grad`), NDHWC.
pub fn max_pool3d_grad(
    orig_input: impl Into<Output>,
    orig_output: impl Into<Output>,
    grad: impl Into<Output>,
    ksize: [i64; 5],
    strides: [i64; 5],
    padding: Padding,
) -> Result<Output> {
    Pool3D::new(ksize, strides, padding).max_pool_grad(orig_input, orig_output, grad)
}

/// TensorFlow's `AvgPool3DGrad` (`gen_nn_ops.avg_pool3d_grad`), NDHWC.
pub fn avg_pool3d_grad(
    orig_input_shape: impl Into<Output>,
    grad: impl Into<Output>,
    ksize: [i64; 5],
    strides: [i64; 5],
    padding: Padding,
) -> Result<Output> {
    Pool3D::new(ksize, strides, padding).avg_pool_grad(orig_input_shape, grad)
}

/// TensorFlow's `MaxPool3DGradGrad` (`gen_nn_ops.max_pool3d_grad_grad`), NDHWC.
pub fn max_pool3d_grad_grad(
    orig_input: impl Into<Output>,
    orig_output: impl Into<Output>,
    grad: impl Into<Output>,
    ksize: [i64; 5],
    strides: [i64; 5],
    padding: Padding,
) -> Result<Output> {
    Pool3D::new(ksize, strides, padding).max_pool_grad_grad(orig_input, orig_output, grad)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Kind {
    Max,
    Avg,
    MaxGrad,
    AvgGrad,
    MaxGradGrad,
}

/// A pooling node's window as its CPU kernel checks it when it is created.
pub(super) struct Pool3DKernel {
    pub kind: Kind,
    pub k: [usize; 3],
    pub s: [usize; 3],
    pub padding: Padding,
}

/// The dtypes TensorFlow 2.21 registers these CPU kernels for.
const CPU_TYPES: &[DType] = &[DType::BF16, DType::F32];

fn no_kernel(node: &Node, dtype: DType) -> Error {
    Error::invalid_argument(format!(
        "No OpKernel was registered to support Op '{}' used by {{{{node {}}}}} with these attrs: [T={}]\nRegistered devices: [CPU]\nRegistered kernels:\n  device='CPU'; T in [DT_BFLOAT16]\n  device='CPU'; T in [DT_FLOAT]\n",
        node.op_type(),
        node.name(),
        dtype.proto_name()
    ))
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let kind = match node.op_type() {
        "MaxPool3D" => Kind::Max,
        "AvgPool3D" => Kind::Avg,
        "MaxPool3DGrad" => Kind::MaxGrad,
        "AvgPool3DGrad" => Kind::AvgGrad,
        _ => Kind::MaxGradGrad,
    };
    let dtype: DType = node.attr("T")?;
    if !CPU_TYPES.contains(&dtype) {
        return Err(no_kernel(node, dtype));
    }
    if kind == Kind::MaxGrad && node.attr::<DType>("TInput")? != dtype {
        return Err(no_kernel(node, dtype));
    }
    let format = Format::parse(&node.attr::<String>("data_format")?)?;
    if format != Format::Ndhwc {
        let op = match kind {
            Kind::Max | Kind::Avg => "Pooling3DOp ",
            Kind::MaxGrad => "MaxPooling3dGradOp ",
            Kind::AvgGrad => "AvgPooling3dGradOp ",
            Kind::MaxGradGrad => {
                return Err(Error::invalid_argument(
                    "Default MaxPooling3dGradGradOp only supportsNDHWC on CPU device type",
                ))
            }
        };
        return Err(Error::invalid_argument(format!(
            "Default {op}only supports NDHWC on device type CPU"
        )));
    }
    let ksize = node.attr::<Vec<i64>>("ksize")?;
    let strides = node.attr::<Vec<i64>>("strides")?;
    if ksize.len() != 5 {
        return Err(Error::invalid_argument(
            "Sliding window ksize field must specify 5 dimensions",
        ));
    }
    if strides.len() != 5 {
        let what = if kind == Kind::MaxGradGrad {
            "strides"
        } else {
            "stride"
        };
        return Err(Error::invalid_argument(format!(
            "Sliding window {what} field must specify 5 dimensions"
        )));
    }
    if ksize[0] != 1 || strides[0] != 1 {
        return Err(Error::unimplemented(
            "Pooling is not yet supported on the batch dimension.",
        ));
    }
    if ksize[4] != 1 || strides[4] != 1 {
        return Err(Error::unimplemented(if kind == Kind::MaxGradGrad {
            "MaxPooling3dGradGrad is not yet supported on the depth dimension."
        } else {
            "Pooling is not yet supported on the depth dimension."
        }));
    }
    // Non-positive windows and strides are caught when the output size is computed.
    let spatial = |v: &[i64]| [v[1], v[2], v[3]].map(|x| x.max(0) as usize);
    Ok(Box::new(Pool3DKernel {
        kind,
        k: spatial(&ksize),
        s: spatial(&strides),
        padding: Padding::parse(&node.attr::<String>("padding")?)?,
    }))
}

impl Pool3DKernel {
    /// The geometry of this window over `input` (NDHWC dims), TensorFlow's `Get3dOutputSize`.
    pub(super) fn cuboid(&self, input: &[usize]) -> Result<Cuboid> {
        Cuboid::new(
            input[0],
            [input[1], input[2], input[3]],
            input[4],
            self.k,
            self.s,
            self.padding,
        )
    }

    fn forward<T: NnFloat>(&self, x: &Tensor) -> Result<Tensor> {
        if x.rank() != 5 {
            return Err(Error::invalid_argument("tensor_in must be 5-dimensional"));
        }
        let g = self.cuboid(x.shape())?;
        let c = g.c;
        let out_dims = [g.n, g.out[0], g.out[1], g.out[2], c];
        let mut out = vec![T::ZERO; out_dims.iter().product()];
        if out.is_empty() {
            return Tensor::from_vec(&out_dims, out);
        }
        let xs = x.as_slice::<T>()?;
        let max = self.kind == Kind::Max;
        for (q, acc) in out.chunks_exact_mut(c).enumerate() {
            let (b, p) = (q / g.positions(), q % g.positions());
            let [z, y, w] = window(&g, p);
            if max {
                acc.fill(T::neg_infinity());
            }
            for iz in z.clone() {
                for iy in y.clone() {
                    let row = (((b * g.dims[0] + iz) * g.dims[1] + iy) * g.dims[2]) * c;
                    let run = &xs[row + w.start * c..row + w.end * c];
                    for px in run.chunks_exact(c) {
                        for (a, &v) in acc.iter_mut().zip(px) {
                            *a = if max {
                                if v > *a {
                                    v
                                } else {
                                    *a
                                }
                            } else {
                                *a + v
                            };
                        }
                    }
                }
            }
            if !max {
                let count = T::from(z.len() * y.len() * w.len()).unwrap_or_else(T::nan);
                for a in acc.iter_mut() {
                    *a = *a / count;
                }
            }
        }
        Tensor::from_vec(&out_dims, out)
    }
}

/// The input ranges (planes, rows, columns) of output position `p`, clipped to the input.
pub(super) fn window(g: &Cuboid, p: usize) -> [std::ops::Range<usize>; 3] {
    let o = g.split(p);
    [0, 1, 2].map(|i| {
        let start = (o[i] * g.s[i]) as i64 - g.pad[i] as i64;
        let end = (start + g.k[i] as i64).min(g.dims[i] as i64);
        let start = start.max(0);
        start as usize..end.max(start) as usize
    })
}

/// Runs `$body` with `$T` bound to `f32` or `bf16` per `$dtype`.
macro_rules! match_pool_type {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            DType::BF16 => {
                type $T = weir_graph::bf16;
                $body
            }
            _ => {
                type $T = f32;
                $body
            }
        }
    };
}

impl Kernel for Pool3DKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let dtype = ctx.input(usize::from(self.kind == Kind::AvgGrad)).dtype();
        let out = match self.kind {
            Kind::Max | Kind::Avg => {
                match_pool_type!(dtype, T => self.forward::<T>(ctx.input(0))?)
            }
            Kind::MaxGrad => match_pool_type!(dtype, T => max_pool_grad::<T>(
                self,
                ctx.input(0),
                ctx.input(1),
                ctx.input(2)
            )?),
            Kind::AvgGrad => {
                match_pool_type!(dtype, T => avg_pool_grad::<T>(self, ctx.input(0), ctx.input(1))?)
            }
            Kind::MaxGradGrad => match_pool_type!(dtype, T => max_pool_grad_grad::<T>(
                self,
                ctx.input(0),
                ctx.input(1),
                ctx.input(2)
            )?),
        };
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

/// TensorFlow's `Pool3DShape`.
fn pool3d_shape(ctx: &mut InferenceContext<'_>) -> Result<Shape> {
    let x = ctx.with_rank(0, 5)?;
    let ksize = ctx.attr::<Vec<i64>>("ksize")?;
    let strides = ctx.attr::<Vec<i64>>("strides")?;
    check_min5(&ksize, "ksize")?;
    check_min5(&strides, "strides")?;
    let fm = Format::parse(&ctx.attr::<String>("data_format")?)?;
    let padding = Padding::parse(&ctx.attr::<String>("padding")?)?;
    if strides.len() != 5 {
        return Err(Error::invalid_argument(format!(
            "Pool3D ops require the stride attribute to contain 5 values, but got: {}",
            strides.len()
        )));
    }
    if ksize.len() != 5 {
        return Err(Error::invalid_argument(format!(
            "Pool3D requires the ksize attribute to contain 5 values, but got: {}",
            ksize.len()
        )));
    }
    let mut out = [None; 3];
    for (i, o) in out.iter_mut().enumerate() {
        let a = fm.spatial(i);
        let k = Some(ksize[a].max(0) as usize);
        *o = static_out_dim(x.dim(a as isize), k, 1, strides[a], padding)?;
    }
    let c = x.dim(fm.channel() as isize);
    Ok(Shape::new(fm.dims(x.dim(0), out, c)))
}

/// TensorFlow's `Merge` check of two shapes, with its messages.
fn merge(a: &Shape, b: &Shape) -> Result<()> {
    crate::array::shape_util::merge_shapes(a, b).map(|_| ())
}

pub(super) fn register() {
    let common = |def: OpDef| {
        def.attr("ksize", AttrKind::Ints, None)
            .attr("strides", AttrKind::Ints, None)
            .attr("padding", AttrKind::Str, None)
            .attr(
                "data_format",
                AttrKind::Str,
                Some(AttrValue::Str("NDHWC".into())),
            )
    };
    const HALF_F32: &[DType] = &[DType::F16, DType::BF16, DType::F32];
    // TensorFlow's `realnumbertypes`.
    const GRAD_GRAD_TYPES: &[DType] = &[
        DType::F32,
        DType::F64,
        DType::I32,
        DType::U8,
        DType::I16,
        DType::I8,
        DType::I64,
        DType::BF16,
        DType::U16,
        DType::F16,
        DType::U32,
        DType::U64,
    ];
    register_op(
        common(OpDef::new("MaxPool3D"))
            .type_attr("T", HALF_F32)
            .input("input", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .shape_fn(|ctx| {
                let s = pool3d_shape(ctx)?;
                ctx.set_output(0, s);
                Ok(())
            }),
    );
    register_op(
        common(OpDef::new("AvgPool3D"))
            .type_attr("T", super::HALF_FLOATS)
            .input("input", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .shape_fn(|ctx| {
                let s = pool3d_shape(ctx)?;
                ctx.set_output(0, s);
                Ok(())
            }),
    );
    register_op(
        common(OpDef::new("MaxPool3DGrad"))
            .type_attr("TInput", HALF_F32)
            .type_attr("T", HALF_F32)
            .input("orig_input", ArgType::Attr("TInput"))
            .input("orig_output", ArgType::Attr("TInput"))
            .input("grad", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .shape_fn(|ctx| {
                let s = ctx.with_rank(0, 5)?;
                ctx.set_output(0, s);
                Ok(())
            }),
    );
    register_op(
        common(OpDef::new("AvgPool3DGrad"))
            .type_attr("T", super::HALF_FLOATS)
            .input("orig_input_shape", ArgType::Fixed(DType::I32))
            .input("grad", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .shape_fn(|ctx| sizes_shape(ctx, 0)),
    );
    register_op(
        common(OpDef::new("MaxPool3DGradGrad"))
            .type_attr("T", GRAD_GRAD_TYPES)
            .input("orig_input", ArgType::Attr("T"))
            .input("orig_output", ArgType::Attr("T"))
            .input("grad", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .shape_fn(|ctx| {
                let s = pool3d_shape(ctx)?;
                // TensorFlow checks orig_input against grad, then orig_output against the
                // pooled shape.
                merge(ctx.input_shape(0), ctx.input_shape(2))?;
                merge(ctx.input_shape(1), &s)?;
                ctx.set_output(0, s);
                Ok(())
            }),
    );
    for op in [
        "MaxPool3D",
        "AvgPool3D",
        "MaxPool3DGrad",
        "AvgPool3DGrad",
        "MaxPool3DGradGrad",
    ] {
        register_kernel(op, make);
    }
}
