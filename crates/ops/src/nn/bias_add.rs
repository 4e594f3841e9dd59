//! `BiasAdd` (bias on the last dimension, data_format NHWC) and `BiasAddGrad`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    f16, format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor,
};

use super::{match_float_or_half, NnFloat};

/// `tf.nn.bias_add(value, bias)` with `data_format="NHWC"`: adds the 1-D `bias` along the
/// last dimension of `value` (rank >= 2).
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
    let (v, b) = (value.into(), bias.into());
    let g = crate::util::same_graph(&[&v, &b])?.clone();
    crate::new_op(&g, "BiasAdd")
        .input(v)
        .input(b)
        .attr("data_format", "NHWC")
        .build()?
        .output(0)
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
    let x = out_backprop.into();
    crate::new_op(&x.graph().clone(), "BiasAddGrad")
        .input(x)
        .attr("data_format", "NHWC")
        .build()?
        .output(0)
}

fn check_format(format: &str) -> Result<()> {
    if format != "NHWC" {
        return Err(Error::unimplemented(format!(
            "BiasAdd supports data_format NHWC only, got {format}"
        )));
    }
    Ok(())
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    // BiasAddV1 predates `data_format` and is always NHWC.
    if ctx.op_type != "BiasAddV1" {
        check_format(&ctx.attr::<String>("data_format")?)?;
    }
    let v = ctx.input_shape(0).clone();
    let b = ctx.with_rank(1, 1)?;
    match v.dims() {
        None => ctx.set_output(0, Shape::unknown()),
        Some(d) if d.len() < 2 => {
            return Err(Error::invalid_argument(format!(
                "Shape must be at least rank 2 but is rank {} for 'BiasAdd' with input shapes: {v}, {b}.",
                d.len()
            )))
        }
        Some(d) => {
            let mut d = d.to_vec();
            let last = d.len() - 1;
            d[last] = match (d[last], b.dim(0)) {
                (Some(x), Some(y)) if x != y => {
                    return Err(Error::invalid_argument(format!(
                        "Dimensions must be equal, but are {x} and {y} for 'BiasAdd' with input shapes: {v}, {b}."
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
    check_format(&ctx.attr::<String>("data_format")?)?;
    let s = ctx.input_shape(0).clone();
    ctx.set_output(
        0,
        Shape::new(vec![s.dims().and_then(|d| d.last().copied().flatten())]),
    );
    Ok(())
}

fn add<T: NnFloat>(mut v: Tensor, b: &Tensor) -> Result<Tensor> {
    if v.rank() < 2 {
        return Err(Error::invalid_argument(format!(
            "Input tensor must be at least 2D: {}",
            format_dims(v.shape())
        )));
    }
    if b.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "Biases must be 1D: {}",
            format_dims(b.shape())
        )));
    }
    let c = v.shape()[v.rank() - 1];
    if b.shape()[0] != c {
        return Err(Error::invalid_argument(format!(
            "Must provide as many biases as the last dimension of the input tensor: {} vs. {}",
            format_dims(b.shape()),
            format_dims(v.shape())
        )));
    }
    let bs = b.as_slice::<T>()?;
    if c > 0 {
        for row in v.as_slice_mut::<T>()?.chunks_exact_mut(c) {
            for (x, &y) in row.iter_mut().zip(bs) {
                *x = *x + y;
            }
        }
    }
    Ok(v)
}

/// Column sums of `x` seen as rows of its last dimension.
pub(crate) fn column_sums<T: NnFloat>(x: &Tensor) -> Result<Tensor> {
    if x.rank() < 2 {
        return Err(Error::invalid_argument(format!(
            "Input tensor must be at least 2D: {}",
            format_dims(x.shape())
        )));
    }
    let c = x.shape()[x.rank() - 1];
    if T::DTYPE == DType::F16 {
        return f16_column_sums(x.as_slice::<f16>()?, c);
    }
    let mut out = vec![T::ZERO; c];
    if c > 0 {
        for row in x.as_slice::<T>()?.chunks_exact(c) {
            for (o, &v) in out.iter_mut().zip(row) {
                *o = *o + v;
            }
        }
    }
    Tensor::from_vec(&[c], out)
}

/// float16 column sums as TensorFlow's BiasAddGrad takes them: accumulated in f32 (its
/// `AccumulatorType<half>`) row after row and rounded once. bfloat16 has no wider accumulator
/// there and sums row after row in bfloat16, as the generic path does.
fn f16_column_sums(x: &[f16], c: usize) -> Result<Tensor> {
    let mut acc = vec![0.0f32; c];
    if c > 0 {
        for row in x.chunks_exact(c) {
            for (a, v) in acc.iter_mut().zip(row) {
                *a += v.to_f32();
            }
        }
    }
    Tensor::from_vec(&[c], acc.into_iter().map(f16::from_f32).collect())
}

struct BiasAddKernel;

impl Kernel for BiasAddKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let v = ctx.take_input(0);
        let out = match_float_or_half!(v.dtype(), T => add::<T>(v, ctx.input(1))?);
        ctx.set_output(0, out);
        Ok(())
    }
}

struct BiasAddGradKernel;

impl Kernel for BiasAddGradKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let out = match_float_or_half!(x.dtype(), T => column_sums::<T>(x)?);
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    check_format(&node.attr::<String>("data_format")?)?;
    Ok(if node.op_type() == "BiasAdd" {
        Box::new(BiasAddKernel)
    } else {
        Box::new(BiasAddGradKernel)
    })
}

pub(super) fn register() {
    let format = || Some(AttrValue::Str("NHWC".into()));
    register_op(
        OpDef::new("BiasAdd")
            .input("value", ArgType::Attr("T"))
            .input("bias", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", super::HALF_FLOATS)
            .attr("data_format", AttrKind::Str, format())
            .shape_fn(shape_fn),
    );
    register_kernel("BiasAdd", make);
    register_op(
        OpDef::new("BiasAddGrad")
            .input("out_backprop", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", super::HALF_FLOATS)
            .attr("data_format", AttrKind::Str, format())
            .shape_fn(grad_shape_fn),
    );
    register_kernel("BiasAddGrad", make);
    register_op(
        OpDef::new("BiasAddV1")
            .input("value", ArgType::Attr("T"))
            .input("bias", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", super::HALF_FLOATS)
            .shape_fn(shape_fn),
    );
    register_kernel("BiasAddV1", |_| Ok(Box::new(BiasAddKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_per_column_and_checks_sizes() {
        let v = Tensor::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
        let b = Tensor::from(vec![10.0f32, 20.0]);
        let out = add::<f32>(v.clone(), &b).unwrap();
        assert_eq!(out.to_vec::<f32>().unwrap(), vec![11.0, 22.0, 13.0, 24.0]);
        let e = add::<f32>(v.clone(), &Tensor::from(vec![1.0f32; 3])).unwrap_err();
        assert_eq!(
            e.message(),
            "Must provide as many biases as the last dimension of the input tensor: [3] vs. [2,2]"
        );
        let sums = column_sums::<f32>(&v).unwrap();
        assert_eq!(sums.to_vec::<f32>().unwrap(), vec![4.0, 6.0]);
        assert!(add::<f32>(Tensor::from(vec![1.0f32]), &b).is_err());
    }
}
