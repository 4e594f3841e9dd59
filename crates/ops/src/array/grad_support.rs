//! The array ops that backward graphs are built from: `BroadcastGradientArgs`, `BroadcastTo`,
//! `InvertPermutation`, `StopGradient`, and `ReducedShape` (weir's one-node form of the
//! `reduced_shape` helper TensorFlow composes from several ops).

use ndarray::IxDyn;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef, Output,
    Result, Shape, Tensor, TensorType,
};

use crate::math::broadcast_shapes;

const INDEX: &[DType] = &[DType::I32, DType::I64];

/// `tf.broadcast_to(input, shape)`: `input` repeated along broadcast dimensions.
pub fn broadcast_to(input: impl Into<Output>, shape: impl Into<Output>) -> Result<Output> {
    let (x, s) = (input.into(), shape.into());
    crate::new_op(&x.graph().clone(), "BroadcastTo")
        .input(x)
        .input(s)
        .build()?
        .output(0)
}

/// `tf.stop_gradient(input)`: the same value; gradients do not flow through it.
pub fn stop_gradient(input: impl Into<Output>) -> Result<Output> {
    let x = input.into();
    crate::new_op(&x.graph().clone(), "StopGradient")
        .input(x)
        .build()?
        .output(0)
}

/// `tf.math.invert_permutation(x)`: `y[x[i]] = i`.
pub fn invert_permutation(x: impl Into<Output>) -> Result<Output> {
    let x = x.into();
    crate::new_op(&x.graph().clone(), "InvertPermutation")
        .input(x)
        .build()?
        .output(0)
}

fn index_values(t: &Tensor) -> Result<Vec<i64>> {
    match t.dtype() {
        DType::I64 => t.to_vec::<i64>(),
        DType::I32 => Ok(t.as_slice::<i32>()?.iter().map(|&v| v as i64).collect()),
        dt => Err(Error::invalid_argument(format!(
            "Expected an int32 or int64 tensor, got {dt}"
        ))),
    }
}

fn dims_of(t: &Tensor, what: &str) -> Result<Vec<usize>> {
    index_values(t)?
        .into_iter()
        .map(|d| {
            usize::try_from(d).map_err(|_| {
                Error::invalid_argument(format!("{what} has a negative dimension {d}"))
            })
        })
        .collect()
}

fn like(t: &Tensor, v: Vec<i64>) -> Tensor {
    match t.dtype() {
        DType::I64 => Tensor::from(v),
        _ => Tensor::from(v.into_iter().map(|x| x as i32).collect::<Vec<_>>()),
    }
}

/// For shapes s0 and s1 that broadcast together, the axes to sum each gradient over.
struct BroadcastGradientArgsKernel;

impl Kernel for BroadcastGradientArgsKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let s0 = dims_of(ctx.input(0), "s0")?;
        let s1 = dims_of(ctx.input(1), "s1")?;
        let out = broadcast_shapes(&s0, &s1)?;
        let n = out.len();
        let (mut r0, mut r1) = (Vec::new(), Vec::new());
        for i in 0..n {
            let d0 = if i + s0.len() >= n {
                s0[i + s0.len() - n]
            } else {
                1
            };
            let d1 = if i + s1.len() >= n {
                s1[i + s1.len() - n]
            } else {
                1
            };
            // An axis of size 1 that the output does not have as 1 was broadcast.
            if d0 == 1 && out[i] != 1 || (i + s0.len() < n) {
                r0.push(i as i64);
            }
            if d1 == 1 && out[i] != 1 || (i + s1.len() < n) {
                r1.push(i as i64);
            }
        }
        let t = ctx.input(0).clone();
        ctx.set_output(0, like(&t, r0));
        ctx.set_output(1, like(&t, r1));
        Ok(())
    }
}

fn broadcast_array<T: TensorType>(x: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let v = x.view::<T>()?;
    let b = v.broadcast(IxDyn(shape)).ok_or_else(|| {
        Error::invalid_argument(format!(
            "Unable to broadcast tensor of shape {} to tensor of shape {}",
            format_dims(x.shape()),
            format_dims(shape)
        ))
    })?;
    Ok(Tensor::from_array(b.to_owned()))
}

struct BroadcastToKernel;

impl Kernel for BroadcastToKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let shape = dims_of(ctx.input(1), "shape")?;
        let x = ctx.input(0);
        if x.shape() == shape.as_slice() {
            let t = ctx.take_input(0);
            ctx.set_output(0, t);
            return Ok(());
        }
        let out = weir_graph::match_data_dtype!(x.dtype(), T => broadcast_array::<T>(x, &shape)?,
            _ => return Err(Error::invalid_argument("Cannot broadcast a resource tensor")));
        ctx.set_output(0, out);
        Ok(())
    }
}

struct InvertPermutationKernel;

impl Kernel for InvertPermutationKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let p = index_values(ctx.input(0))?;
        let n = p.len();
        let mut inv = vec![-1i64; n];
        for (i, &v) in p.iter().enumerate() {
            let slot = usize::try_from(v)
                .ok()
                .filter(|&v| v < n)
                .ok_or_else(|| Error::invalid_argument(format!("{v} is not between 0 and {n}")))?;
            if inv[slot] >= 0 {
                return Err(Error::invalid_argument(format!(
                    "{v} is duplicated in the input."
                )));
            }
            inv[slot] = i as i64;
        }
        let t = like(ctx.input(0), inv);
        ctx.set_output(0, t);
        Ok(())
    }
}

/// The shape of a reduction's result with its reduced axes kept as size 1.
struct ReducedShapeKernel;

impl Kernel for ReducedShapeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let mut shape = index_values(ctx.input(0))?;
        let rank = shape.len() as i64;
        for a in index_values(ctx.input(1))? {
            if a < -rank || a >= rank {
                return Err(Error::invalid_argument(format!(
                    "Invalid reduction dimension {a} for input with {rank} dimensions."
                )));
            }
            shape[(if a < 0 { a + rank } else { a }) as usize] = 1;
        }
        let t = like(ctx.input(0), shape);
        ctx.set_output(0, t);
        Ok(())
    }
}

struct ForwardKernel;

impl Kernel for ForwardKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = ctx.take_input(0);
        ctx.set_output(0, t);
        Ok(())
    }
}

fn vector_out(ctx: &mut InferenceContext<'_>) -> Result<()> {
    for i in 0..ctx.num_outputs() {
        ctx.set_output(i, Shape::unknown_of_rank(1));
    }
    Ok(())
}

fn same_as_first(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    ctx.set_output(0, s);
    Ok(())
}

fn broadcast_to_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = match ctx.input_const(1) {
        Some(t) => Shape::known(&dims_of(t, "shape")?),
        None => match (ctx.input_partial_shape(1), ctx.input_shape(1).dim(0)) {
            (Some(p), _) => p.clone(),
            (None, Some(r)) => Shape::unknown_of_rank(r),
            (None, None) => Shape::unknown(),
        },
    };
    ctx.set_output(0, s);
    Ok(())
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(match node.op_type() {
        "BroadcastGradientArgs" => Box::new(BroadcastGradientArgsKernel),
        "BroadcastTo" => Box::new(BroadcastToKernel),
        "InvertPermutation" => Box::new(InvertPermutationKernel),
        "ReducedShape" => Box::new(ReducedShapeKernel),
        _ => Box::new(ForwardKernel),
    })
}

pub(super) fn register() {
    register_op(
        OpDef::new("BroadcastGradientArgs")
            .input("s0", ArgType::Attr("T"))
            .input("s1", ArgType::Attr("T"))
            .output("r0", ArgType::Attr("T"))
            .output("r1", ArgType::Attr("T"))
            .type_attr("T", INDEX)
            .shape_fn(vector_out),
    );
    register_op(
        OpDef::new("BroadcastTo")
            .input("input", ArgType::Attr("T"))
            .input("shape", ArgType::Attr("Tidx"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .type_attr("Tidx", INDEX)
            .shape_fn(broadcast_to_shape),
    );
    register_op(
        OpDef::new("InvertPermutation")
            .input("x", ArgType::Attr("T"))
            .output("y", ArgType::Attr("T"))
            .type_attr("T", INDEX)
            .shape_fn(same_as_first),
    );
    register_op(
        OpDef::new("ReducedShape")
            .input("input_shape", ArgType::Attr("T"))
            .input("axes", ArgType::Attr("Tidx"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", INDEX)
            .type_attr("Tidx", INDEX)
            .shape_fn(same_as_first),
    );
    register_op(
        OpDef::new("StopGradient")
            .input("input", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(same_as_first),
    );
    for name in [
        "BroadcastGradientArgs",
        "BroadcastTo",
        "InvertPermutation",
        "ReducedShape",
        "StopGradient",
    ] {
        register_kernel(name, make);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_array_repeats_rows() {
        let x = Tensor::from_vec(&[1, 2], vec![1i32, 2]).unwrap();
        let y = broadcast_array::<i32>(&x, &[3, 2]).unwrap();
        assert_eq!(y.to_vec::<i32>().unwrap(), vec![1, 2, 1, 2, 1, 2]);
        assert!(broadcast_array::<i32>(&x, &[3, 3]).is_err());
    }
}
