//! `ShapeN` and `ConcatOffset`: the shapes of several tensors at once, and where each input of
//! a concatenation starts. TensorFlow's gradient of `concat` uses both, so its training graphs
//! import.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, OpContext,
    OpDef, Result, Shape, Tensor,
};

use super::shape_util::to_i64s;

/// A vector of `dtype` (int32 or int64) holding `v`.
fn index_vector(v: Vec<i64>, dtype: DType) -> Result<Tensor> {
    if dtype == DType::I64 {
        return Ok(Tensor::from(v));
    }
    let narrow = v
        .iter()
        .map(|&x| {
            i32::try_from(x)
                .map_err(|_| Error::invalid_argument(format!("{x} does not fit an int32 shape")))
        })
        .collect::<Result<Vec<i32>>>()?;
    Ok(Tensor::from(narrow))
}

/// `ShapeN`: the shape of each input.
struct ShapeNKernel(DType);

impl Kernel for ShapeNKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        for i in 0..ctx.num_inputs() {
            let dims: Vec<i64> = ctx.input(i).shape().iter().map(|&d| d as i64).collect();
            ctx.set_output(i, index_vector(dims, self.0)?);
        }
        Ok(())
    }
}

/// `ConcatOffset(concat_dim, shapes...)`: for each shape, a vector of zeros but at `concat_dim`,
/// where it holds the sum of the earlier shapes' sizes along it.
struct ConcatOffsetKernel;

impl Kernel for ConcatOffsetKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let dim = to_i64s(ctx.input(0))?;
        let &[dim] = dim.as_slice() else {
            return Err(Error::invalid_argument(format!(
                "Concat dim tensor should be a scalar, but got shape {}",
                format_dims(ctx.input(0).shape())
            )));
        };
        let first = to_i64s(ctx.input(1))?;
        let rank = first.len() as i64;
        let axis = if dim < 0 { dim + rank } else { dim };
        if axis < 0 || axis >= rank {
            return Err(Error::invalid_argument(format!(
                "Concat dim is out of range: {dim} vs. {rank}"
            )));
        }
        let axis = axis as usize;
        let dtype = ctx.input(1).dtype();
        let mut offset = 0i64;
        for i in 1..ctx.num_inputs() {
            let shape = to_i64s(ctx.input(i))?;
            if shape.len() != first.len() {
                return Err(Error::invalid_argument(format!(
                    "input {} should contain {} elements, but got {}",
                    i - 1,
                    first.len(),
                    shape.len()
                )));
            }
            for (j, (&a, &b)) in first.iter().zip(&shape).enumerate() {
                if j != axis && a != b {
                    return Err(Error::invalid_argument(format!(
                        "All dimensions except {axis} must match. Input {} has shape [{}] and doesn't match input 0 with shape [{}].",
                        i - 1,
                        join(&shape),
                        join(&first)
                    )));
                }
            }
            let mut out = vec![0i64; shape.len()];
            out[axis] = offset;
            offset += shape[axis];
            ctx.set_output(i - 1, index_vector(out, dtype)?);
        }
        Ok(())
    }
}

fn join(v: &[i64]) -> String {
    v.iter().map(i64::to_string).collect::<Vec<_>>().join(" ")
}

fn shape_n_shapes(ctx: &mut InferenceContext<'_>) -> Result<()> {
    for i in 0..ctx.num_inputs() {
        let r = ctx.input_shape(i).rank();
        ctx.set_output(i, Shape::new(vec![r]));
    }
    Ok(())
}

fn concat_offset_shapes(ctx: &mut InferenceContext<'_>) -> Result<()> {
    for i in 1..ctx.num_inputs() {
        let s = ctx.input_shape(i).clone();
        ctx.set_output(i - 1, s);
    }
    Ok(())
}

pub(super) fn register() {
    let index = &[DType::I32, DType::I64];
    register_op(
        OpDef::new("ShapeN")
            .input(
                "input",
                ArgType::Repeated {
                    count: "N",
                    ty: "T",
                },
            )
            .output(
                "output",
                ArgType::Repeated {
                    count: "N",
                    ty: "out_type",
                },
            )
            .int_attr_min("N", 1)
            .type_attr("T", DType::ALL_DATA)
            .attr(
                "out_type",
                AttrKind::Type,
                Some(AttrValue::Type(DType::I32)),
            )
            .shape_fn(shape_n_shapes),
    );
    register_kernel("ShapeN", |node| {
        Ok(Box::new(ShapeNKernel(node.attr("out_type")?)))
    });
    register_op(
        OpDef::new("ConcatOffset")
            .input("concat_dim", ArgType::Fixed(DType::I32))
            .input(
                "shape",
                ArgType::Repeated {
                    count: "N",
                    ty: "shape_type",
                },
            )
            .output(
                "offset",
                ArgType::Repeated {
                    count: "N",
                    ty: "shape_type",
                },
            )
            .int_attr_min("N", 2)
            .type_attr("shape_type", index)
            .shape_fn(concat_offset_shapes),
    );
    register_kernel("ConcatOffset", |_| Ok(Box::new(ConcatOffsetKernel)));
}
