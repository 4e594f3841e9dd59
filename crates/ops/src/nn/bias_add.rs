//! `BiasAdd`, `BiasAddV1` and `BiasAddGrad` on every number type, NHWC (bias on the last
//! dimension) and NCHW (bias on dimension 1).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    f16, format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor,
};

use super::NnNumber;

/// `tf.nn.bias_add(value, bias)` with `data_format="NHWC"`: adds the 1-D `bias` along the
/// last dimension of `value` (rank >= 2). [`BiasAdd`] takes `data_format`.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, nn::bias_add};
/// let g = Graph::new();
/// let x = constant(&g, Tensor::from_vec(&[2, 3], vec![0.0f32; 6])?)?;
/// let y = bias_add(&x, constant(&g, [1.0f32, 2.0, 3.0])?)?;
/// assert_eq!(y.shape(), weir_graph::Shape::known(&[2, 3]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn bias_add(value: impl Into<Output>, bias: impl Into<Output>) -> Result<Output> {
    BiasAdd::new().build(value, bias)
}

/// TensorFlow's legacy `BiasAddV1(value, bias)`, which GraphDefs written by old TensorFlow
/// contain: [`bias_add`] without a `data_format` attribute (always NHWC).
pub fn bias_add_v1(value: impl Into<Output>, bias: impl Into<Output>) -> Result<Output> {
    let (v, b) = (value.into(), bias.into());
    let g = crate::util::same_graph(&[&v, &b])?.clone();
    crate::new_op(&g, "BiasAddV1")
        .input(v)
        .input(b)
        .build()?
        .output(0)
}

/// TensorFlow's `BiasAddGrad(out_backprop)`: the sum of `out_backprop` over every dimension
/// but the last, the gradient of `bias_add` with respect to its bias.
pub fn bias_add_grad(out_backprop: impl Into<Output>) -> Result<Output> {
    BiasAdd::new().grad(out_backprop)
}

/// The options of `tf.nn.bias_add(value, bias, data_format=None)` and of its gradient op
/// `BiasAddGrad`: the bias runs along the last dimension (`"NHWC"`, the default) or along
/// dimension 1 of a tensor of rank 3 or more (`"NCHW"`). Every number type is taken; integer
/// sums wrap, as TensorFlow's do.
///
/// ```
/// # use weir_graph::{Graph, Shape, Tensor};
/// # use weir_ops::{array::constant, nn::BiasAdd};
/// let g = Graph::new();
/// let x = constant(&g, Tensor::from_vec(&[2, 3, 4], vec![0i32; 24])?)?;
/// let y = BiasAdd::new().data_format("NCHW").build(&x, constant(&g, [1, 2, 3])?)?;
/// assert_eq!(y.shape(), Shape::known(&[2, 3, 4]));
/// let db = BiasAdd::new().data_format("NCHW").grad(&y)?;
/// assert_eq!(db.shape(), Shape::known(&[3]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct BiasAdd {
    data_format: String,
}

impl Default for BiasAdd {
    fn default() -> BiasAdd {
        BiasAdd::new()
    }
}

impl BiasAdd {
    /// `data_format="NHWC"`.
    pub fn new() -> BiasAdd {
        BiasAdd {
            data_format: "NHWC".into(),
        }
    }

    /// `"NHWC"` or `"NCHW"` (any other is InvalidArgument when the node is added).
    pub fn data_format(mut self, format: &str) -> BiasAdd {
        self.data_format = format.into();
        self
    }

    /// Adds the `BiasAdd` node.
    pub fn build(&self, value: impl Into<Output>, bias: impl Into<Output>) -> Result<Output> {
        let (v, b) = (value.into(), bias.into());
        let g = crate::util::same_graph(&[&v, &b])?.clone();
        crate::new_op(&g, "BiasAdd")
            .input(v)
            .input(b)
            .attr("data_format", self.data_format.as_str())
            .build()?
            .output(0)
    }

    /// Adds the `BiasAddGrad` node: `out_backprop` summed over every dimension but the
    /// channel one.
    pub fn grad(&self, out_backprop: impl Into<Output>) -> Result<Output> {
        let x = out_backprop.into();
        crate::new_op(&x.graph().clone(), "BiasAddGrad")
            .input(x)
            .attr("data_format", self.data_format.as_str())
            .build()?
            .output(0)
    }
}

/// Where the channels are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Nhwc,
    Nchw,
}

fn format(op: &str, f: &str) -> Result<Format> {
    match f {
        "NHWC" => Ok(Format::Nhwc),
        "NCHW" => Ok(Format::Nchw),
        _ => Err(Error::invalid_argument(format!(
            "Attr 'data_format' of '{op}' Op passed string '{f}' not in: \"NHWC\", \"NCHW\"."
        ))),
    }
}

/// The attribute's format (NHWC where it is absent, as for `BiasAddV1`).
fn node_format(op: &str, f: Option<String>) -> Result<Format> {
    f.map_or(Ok(Format::Nhwc), |f| format(op, &f))
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let op = ctx.op_type.to_string();
    let fmt = node_format(&op, ctx.attr::<String>("data_format").ok())?;
    let v = ctx.input_shape(0).clone();
    let b = ctx.with_rank(1, 1)?;
    let min_rank = if fmt == Format::Nchw { 3 } else { 2 };
    match v.dims() {
        None => ctx.set_output(0, Shape::unknown()),
        Some(d) if d.len() < min_rank => {
            return Err(Error::invalid_argument(format!(
                "Shape must be at least rank {min_rank} but is rank {} for '{op}' with input shapes: {v}, {b}.",
                d.len()
            )))
        }
        Some(d) => {
            let mut d = d.to_vec();
            let at = if fmt == Format::Nchw { 1 } else { d.len() - 1 };
            d[at] = match (d[at], b.dim(0)) {
                (Some(x), Some(y)) if x != y => {
                    return Err(Error::invalid_argument(format!(
                        "Dimensions must be equal, but are {x} and {y} for '{op}' with input shapes: {v}, {b}."
                    )))
                }
                (x, y) => x.or(y),
            };
            ctx.set_output(0, Shape::new(d));
        }
    }
    Ok(())
}

fn grad_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let fmt = format(ctx.op_type, &ctx.attr::<String>("data_format")?)?;
    let s = ctx.input_shape(0).clone();
    let channels = match (fmt, s.dims()) {
        (_, None) => None,
        (Format::Nchw, Some(d)) if d.len() >= 3 => d[1],
        (Format::Nhwc, Some(d)) if d.len() >= 2 => d[d.len() - 1],
        (_, Some(d)) => {
            let min_rank = if fmt == Format::Nchw { 3 } else { 2 };
            return Err(Error::invalid_argument(format!(
                "Shape must be at least rank {min_rank} but is rank {} for '{}' with input shapes: {s}.",
                d.len(),
                ctx.op_type
            )));
        }
    };
    ctx.set_output(0, Shape::new(vec![channels]));
    Ok(())
}

/// `value` seen as `[outer, channels, inner]`: NHWC puts the channels last (`inner` 1), NCHW
/// at dimension 1.
fn layout(shape: &[usize], fmt: Format) -> Result<(usize, usize, usize)> {
    let min_rank = if fmt == Format::Nchw { 3 } else { 2 };
    if shape.len() < min_rank {
        return Err(Error::invalid_argument(format!(
            "Input tensor must be at least {}D: {}",
            min_rank,
            format_dims(shape)
        )));
    }
    Ok(match fmt {
        Format::Nhwc => {
            let c = shape[shape.len() - 1];
            (shape[..shape.len() - 1].iter().product(), c, 1)
        }
        Format::Nchw => (shape[0], shape[1], shape[2..].iter().product()),
    })
}

fn add<T: NnNumber>(mut v: Tensor, b: &Tensor, fmt: Format) -> Result<Tensor> {
    let (_, c, inner) = layout(v.shape(), fmt)?;
    if b.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "Biases must be 1D: {}",
            format_dims(b.shape())
        )));
    }
    if b.shape()[0] != c {
        return Err(Error::invalid_argument(format!(
            "Must provide as many biases as the last dimension of the input tensor: {} vs. {}",
            format_dims(b.shape()),
            format_dims(v.shape())
        )));
    }
    let bs = b.as_slice::<T>()?;
    if c > 0 && inner > 0 {
        for block in v.as_slice_mut::<T>()?.chunks_exact_mut(c * inner) {
            for (run, &y) in block.chunks_exact_mut(inner).zip(bs) {
                for x in run {
                    *x = x.plus(y);
                }
            }
        }
    }
    Ok(v)
}

/// BiasAddGrad: the sum over every dimension but the channels'. NHWC adds row after row; NCHW
/// sums each `inner` run (in Eigen's order for the floats) and adds those sums batch after
/// batch, as TensorFlow's `ReduceMiddleDimensions` does when it runs in one block. (On large
/// inputs TensorFlow splits the rows between its threads and adds the blocks' sums, which can
/// change the last bits of float sums.)
fn channel_sums<T: NnNumber>(x: &Tensor, fmt: Format) -> Result<Tensor> {
    let (_, c, inner) = layout(x.shape(), fmt)?;
    let mut out = vec![T::ZERO; c];
    if c > 0 && inner > 0 {
        for block in x.as_slice::<T>()?.chunks_exact(c * inner) {
            for (o, run) in out.iter_mut().zip(block.chunks_exact(inner)) {
                *o = o.plus(T::run_sum(run));
            }
        }
    }
    Tensor::from_vec(&[c], out)
}

/// float16 channel sums as TensorFlow's BiasAddGrad takes them: each NCHW run summed in half
/// by Eigen, the run sums accumulated in f32 (its `AccumulatorType<half>`) and rounded once.
/// bfloat16 has no wider accumulator there and sums in bfloat16, as the generic path does.
fn f16_channel_sums(x: &Tensor, fmt: Format) -> Result<Tensor> {
    let (_, c, inner) = layout(x.shape(), fmt)?;
    let mut acc = vec![0.0f32; c];
    if c > 0 && inner > 0 {
        for block in x.as_slice::<f16>()?.chunks_exact(c * inner) {
            for (a, run) in acc.iter_mut().zip(block.chunks_exact(inner)) {
                *a += crate::math::lane_sum_f16(run).to_f32();
            }
        }
    }
    Tensor::from_vec(&[c], acc.into_iter().map(f16::from_f32).collect())
}

struct BiasAddKernel(Format);

impl Kernel for BiasAddKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let v = ctx.take_input(0);
        let dt = v.dtype();
        let out = super::match_number!(dt, T => add::<T>(v, ctx.input(1), self.0)?);
        ctx.set_output(0, out);
        Ok(())
    }
}

struct BiasAddGradKernel(Format);

impl Kernel for BiasAddGradKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let dt = x.dtype();
        let out = if dt == DType::F16 {
            f16_channel_sums(x, self.0)?
        } else {
            super::match_number!(dt, T => channel_sums::<T>(x, self.0)?)
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let fmt = node_format(node.op_type(), node.attr::<String>("data_format").ok())?;
    Ok(if node.op_type() == "BiasAddGrad" {
        Box::new(BiasAddGradKernel(fmt))
    } else {
        Box::new(BiasAddKernel(fmt))
    })
}

pub(super) fn register() {
    let format = || Some(AttrValue::Str("NHWC".into()));
    let t = DType::NUMBER;
    register_op(
        OpDef::new("BiasAdd")
            .input("value", ArgType::Attr("T"))
            .input("bias", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", t)
            .attr("data_format", AttrKind::Str, format())
            .shape_fn(shape_fn),
    );
    register_kernel("BiasAdd", make);
    register_op(
        OpDef::new("BiasAddGrad")
            .input("out_backprop", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", t)
            .attr("data_format", AttrKind::Str, format())
            .shape_fn(grad_shape_fn),
    );
    register_kernel("BiasAddGrad", make);
    register_op(
        OpDef::new("BiasAddV1")
            .input("value", ArgType::Attr("T"))
            .input("bias", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", t)
            .shape_fn(shape_fn),
    );
    register_kernel("BiasAddV1", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_per_channel_and_checks_sizes() {
        let v = Tensor::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
        let b = Tensor::from(vec![10.0f32, 20.0]);
        let out = add::<f32>(v.clone(), &b, Format::Nhwc).unwrap();
        assert_eq!(out.to_vec::<f32>().unwrap(), vec![11.0, 22.0, 13.0, 24.0]);
        let e = add::<f32>(v.clone(), &Tensor::from(vec![1.0f32; 3]), Format::Nhwc).unwrap_err();
        assert_eq!(
            e.message(),
            "Must provide as many biases as the last dimension of the input tensor: [3] vs. [2,2]"
        );
        let sums = channel_sums::<f32>(&v, Format::Nhwc).unwrap();
        assert_eq!(sums.to_vec::<f32>().unwrap(), vec![4.0, 6.0]);
        assert!(add::<f32>(Tensor::from(vec![1.0f32]), &b, Format::Nhwc).is_err());
        // NCHW: [1, 2, 3], the bias along dimension 1; integers wrap.
        let v = Tensor::from_vec(&[1, 2, 3], vec![1i8, 2, 3, 120, 121, 122]).unwrap();
        let out = add::<i8>(v.clone(), &Tensor::from(vec![1i8, 10]), Format::Nchw).unwrap();
        assert_eq!(out.to_vec::<i8>().unwrap(), vec![2, 3, 4, -126, -125, -124]);
        let sums = channel_sums::<i8>(&v, Format::Nchw).unwrap();
        assert_eq!(sums.to_vec::<i8>().unwrap(), vec![6, 363u16 as i8]);
        assert!(add::<i8>(
            Tensor::from_vec(&[2, 2], vec![0i8; 4]).unwrap(),
            &b,
            Format::Nchw
        )
        .is_err());
    }
}
