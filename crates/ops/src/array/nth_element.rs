//! `NthElement` (`tf.raw_ops.NthElement`): the `n`-th smallest (or,
//! with `reverse`, largest) element along the last dim.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output,
    Result, Shape, Tensor, TensorType,
};

/// `tf.raw_ops.NthElement(input, n, reverse=False)`: for each vector along the last dim of
/// `input`, the value that would be at index `n` if the vector were sorted (descending with
/// `reverse`); the output drops the last dim.
pub fn nth_element(
    input: impl Into<Output>,
    n: impl Into<Output>,
    reverse: bool,
) -> Result<Output> {
    let x = input.into();
    let g = x.graph().clone();
    crate::new_op(&g, "NthElement")
        .input(x)
        .input(n.into())
        .attr("reverse", reverse)
        .build()?
        .output(0)
}

/// The `n`-th order statistic of each row of `cols` elements, selected in one reused buffer.
fn select<T: TensorType + PartialOrd + Copy>(x: &[T], cols: usize, n: usize) -> Vec<T> {
    let mut buf: Vec<T> = Vec::with_capacity(cols);
    let mut out = Vec::with_capacity(x.len() / cols.max(1));
    for row in x.chunks(cols) {
        buf.clear();
        buf.extend_from_slice(row);
        let (_, v, _) = buf.select_nth_unstable_by(n, |a, b| {
            a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal)
        });
        out.push(*v);
    }
    out
}

struct NthElementKernel {
    reverse: bool,
}

impl Kernel for NthElementKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let nt = ctx.input(1);
        if nt.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "N must be scalar but has rank {}",
                nt.rank()
            )));
        }
        let n = nt.to_scalar::<i32>()?;
        if n < 0 {
            return Err(Error::invalid_argument(format!(
                "n must be non-negative but is {n}"
            )));
        }
        let x = ctx.input(0);
        let r = x.rank();
        if r < 1 {
            return Err(Error::invalid_argument(format!(
                "Input must be at least rank 1 but is rank {r}"
            )));
        }
        let cols = x.shape()[r - 1];
        if cols <= n as usize {
            return Err(Error::invalid_argument(format!(
                "Input must have last dimension > n = {n}"
            )));
        }
        let k = if self.reverse {
            cols - n as usize - 1
        } else {
            n as usize
        };
        let shape = &x.shape()[..r - 1];
        let dt = x.dtype();
        let out = weir_graph::match_real_dtype!(dt,
            T => Tensor::from_vec(shape, select::<T>(x.as_slice::<T>()?, cols, k))?,
            _ => return Err(Error::invalid_argument(format!("NthElement does not support {dt}"))));
        ctx.set_output(0, out);
        Ok(())
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let x = ctx.input_shape(0).clone();
    ctx.with_rank(1, 0)?;
    let Some(dims) = x.dims() else {
        ctx.set_output(0, Shape::unknown());
        return Ok(());
    };
    if dims.is_empty() {
        return Err(Error::invalid_argument(
            "Shape must be at least rank 1 but is rank 0",
        ));
    }
    let n = ctx
        .input_const(1)
        .map(|t| t.to_scalar::<i32>())
        .transpose()?;
    if let Some(n) = n {
        if n < 0 {
            return Err(Error::invalid_argument(format!(
                "n must be non-negative but is {n}"
            )));
        }
        if let Some(last) = dims[dims.len() - 1] {
            if last <= n as usize {
                return Err(Error::invalid_argument(format!(
                    "Input must have last dimension > n = {n} but is {last}"
                )));
            }
        }
    }
    ctx.set_output(0, Shape::new(dims[..dims.len() - 1].to_vec()));
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("NthElement")
            .input("input", ArgType::Attr("T"))
            .input("n", ArgType::Fixed(DType::I32))
            .output("values", ArgType::Attr("T"))
            .attr("reverse", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .type_attr("T", DType::REAL_NUMBER)
            .shape_fn(shape_fn),
    );
    register_kernel("NthElement", |n| {
        Ok(Box::new(NthElementKernel {
            reverse: n.attr("reverse")?,
        }))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selects_per_row() {
        assert_eq!(select(&[5, 1, 4, 2, 9, 8, 7, 6], 4, 1), vec![2, 7]);
    }
}
