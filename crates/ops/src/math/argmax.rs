//! `ArgMax` and `ArgMin`: the index of the largest (smallest) value along an axis.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor, TensorType,
};

use crate::array::shape_util::{canonical_axis, scalar_i64};

/// `tf.argmax(input, axis)` with `output_type=tf.int64`; ties go to the first index.
pub fn arg_max(input: impl Into<Output>, axis: i64) -> Result<Output> {
    build("ArgMax", input.into(), axis, DType::I64)
}

/// `tf.argmin(input, axis)` with `output_type=tf.int64`; ties go to the first index.
pub fn arg_min(input: impl Into<Output>, axis: i64) -> Result<Output> {
    build("ArgMin", input.into(), axis, DType::I64)
}

/// `tf.argmax(input, axis, output_type)`: as [`arg_max`] with an int32 or int64 result.
pub fn arg_max_typed(input: impl Into<Output>, axis: i64, output_type: DType) -> Result<Output> {
    build("ArgMax", input.into(), axis, output_type)
}

/// `tf.argmin(input, axis, output_type)`: as [`arg_min`] with an int32 or int64 result.
pub fn arg_min_typed(input: impl Into<Output>, axis: i64, output_type: DType) -> Result<Output> {
    build("ArgMin", input.into(), axis, output_type)
}

fn build(op: &str, input: Output, axis: i64, output_type: DType) -> Result<Output> {
    let g = input.graph().clone();
    let dim = crate::array::constant(&g, axis as i32)?;
    crate::new_op(&g, op)
        .input(input)
        .input(dim)
        .attr("output_type", output_type)
        .build()?
        .output(0)
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let out_type: DType = ctx.attr("output_type")?;
    if !matches!(out_type, DType::I32 | DType::I64) {
        return Err(Error::invalid_argument(format!(
            "output_type must be int32 or int64, got {out_type}"
        )));
    }
    let s = ctx.input_shape(0).clone();
    let axis = ctx
        .input_const(1)
        .map(|t| scalar_i64(t, "dimension"))
        .transpose()?;
    match (s.dims(), axis) {
        (Some(dims), Some(a)) => {
            let a = canonical_axis(a, dims.len())?;
            let mut d = dims.to_vec();
            d.remove(a);
            ctx.set_output(0, Shape::new(d));
        }
        (Some(dims), None) if !dims.is_empty() => {
            ctx.set_output(0, Shape::unknown_of_rank(dims.len() - 1))
        }
        _ => ctx.set_output(0, Shape::unknown()),
    }
    Ok(())
}

/// The index of the best value along the middle axis of `[outer, n, inner]`, without
/// transposing: for `inner > 1` whole rows are compared at once.
fn arg<T: TensorType + PartialOrd + Copy>(
    xs: &[T],
    outer: usize,
    n: usize,
    inner: usize,
    max: bool,
) -> Vec<i64> {
    let better = |x: T, b: T| if max { x > b } else { x < b };
    let mut out = Vec::with_capacity(outer * inner);
    if inner == 1 {
        for lane in xs.chunks_exact(n) {
            let (mut best, mut bv) = (0usize, lane[0]);
            for (i, &x) in lane.iter().enumerate().skip(1) {
                if better(x, bv) {
                    best = i;
                    bv = x;
                }
            }
            out.push(best as i64);
        }
        return out;
    }
    for block in xs.chunks_exact(n * inner) {
        let mut vals: Vec<T> = block[..inner].to_vec();
        let mut idx = vec![0i64; inner];
        for (i, row) in block.chunks_exact(inner).enumerate().skip(1) {
            for ((v, b), &x) in vals.iter_mut().zip(idx.iter_mut()).zip(row) {
                if better(x, *v) {
                    *v = x;
                    *b = i as i64;
                }
            }
        }
        out.extend_from_slice(&idx);
    }
    out
}

struct ArgKernel {
    max: bool,
    out_type: DType,
}

impl Kernel for ArgKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = ctx.input(0);
        let axis = canonical_axis(scalar_i64(ctx.input(1), "dimension")?, t.rank())?;
        let shape = t.shape();
        if shape[axis] == 0 {
            return Err(Error::invalid_argument(format!(
                "Reduction axis {axis} is empty in shape {}",
                format_dims(shape)
            )));
        }
        let outer: usize = shape[..axis].iter().product();
        let inner: usize = shape[axis + 1..].iter().product();
        let mut out_shape = shape.to_vec();
        out_shape.remove(axis);
        let dt = t.dtype();
        let idx = weir_graph::match_real_dtype!(dt,
            T => arg::<T>(t.as_slice::<T>()?, outer, shape[axis], inner, self.max),
            _ => weir_graph::match_half_dtype!(dt,
            T => arg::<T>(t.as_slice::<T>()?, outer, shape[axis], inner, self.max),
            _ => return Err(Error::invalid_argument(format!("Unsupported dtype {dt}")))));
        let out = if self.out_type == DType::I32 {
            Tensor::from_vec(&out_shape, idx.into_iter().map(|i| i as i32).collect())?
        } else {
            Tensor::from_vec(&out_shape, idx)?
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(ArgKernel {
        max: node.op_type() == "ArgMax",
        out_type: node.attr("output_type")?,
    }))
}

pub(super) fn register() {
    for name in ["ArgMax", "ArgMin"] {
        register_op(
            OpDef::new(name)
                .input("input", ArgType::Attr("T"))
                .input("dimension", ArgType::Attr("Tidx"))
                .output("output", ArgType::Attr("output_type"))
                .type_attr("T", super::arith_ext::REAL_AND_HALF)
                .type_attr("Tidx", &[DType::I32, DType::I64])
                .attr(
                    "output_type",
                    AttrKind::Type,
                    Some(AttrValue::Type(DType::I64)),
                )
                .shape_fn(shape_fn),
        );
        register_kernel(name, make);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_and_rows_agree_and_ties_go_first() {
        // [2, 3] along axis 1 (lanes) and axis 0 (rows).
        let x = [3, 1, 3, 0, 5, 5];
        assert_eq!(arg(&x, 2, 3, 1, true), vec![0, 1]);
        assert_eq!(arg(&x, 2, 3, 1, false), vec![1, 0]);
        assert_eq!(arg(&x, 1, 2, 3, true), vec![0, 1, 1]);
        assert_eq!(arg(&x, 1, 2, 3, false), vec![1, 0, 0]);
    }
}
