//! `UniqueWithCounts` (`tf.unique_with_counts`): the distinct elements of a vector in order of
//! first appearance, each element's index among them, and how often each occurs.

use std::collections::HashMap;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrValue, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef, Output,
    Result, Shape, Tensor,
};

use super::unique_key::{match_unique_dtype, no_kernel, UniqueKey};

/// `tf.unique_with_counts(x, out_idx=tf.int32)`: `(y, idx, count)` for a vector `x`: its
/// distinct values in order of first appearance, the index into `y` of each element, and the
/// number of occurrences of each value (`idx` and `count` of dtype `out_idx`, int32 or int64).
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::array::{constant, unique_with_counts};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let (y, idx, count) = unique_with_counts(constant(&g, [4, 4, 7, 4])?)?;
/// let sess = Session::new(&g)?;
/// assert_eq!(sess.eval(&y)?.to_vec::<i32>()?, vec![4, 7]);
/// assert_eq!(sess.eval(&idx)?.to_vec::<i32>()?, vec![0, 0, 1, 0]);
/// assert_eq!(sess.eval(&count)?.to_vec::<i32>()?, vec![3, 1]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn unique_with_counts(x: impl Into<Output>) -> Result<(Output, Output, Output)> {
    unique_with_counts_typed(x, DType::I32)
}

/// `tf.unique_with_counts(x, out_idx)` with int32 or int64 `idx` and `count`.
pub fn unique_with_counts_typed(
    x: impl Into<Output>,
    out_idx: DType,
) -> Result<(Output, Output, Output)> {
    let x = x.into();
    let op = crate::new_op(&x.graph().clone(), "UniqueWithCounts")
        .input(x)
        .attr("out_idx", out_idx)
        .build()?;
    Ok((op.output(0)?, op.output(1)?, op.output(2)?))
}

fn count_typed<T: UniqueKey>(x: &Tensor) -> Result<(Tensor, Vec<i64>, Vec<i64>)> {
    let xs = x.as_slice::<T>()?;
    let mut seen: HashMap<T::Key, usize> = HashMap::with_capacity(xs.len());
    let (mut y, mut idx, mut counts) = (Vec::new(), Vec::with_capacity(xs.len()), Vec::new());
    for v in xs {
        let next = y.len();
        let i = match v.key() {
            Some(k) => *seen.entry(k).or_insert(next),
            None => next,
        };
        if i == next {
            y.push(v.clone());
            counts.push(0i64);
        }
        counts[i] += 1;
        idx.push(i as i64);
    }
    Ok((Tensor::from_vec(&[y.len()], y)?, idx, counts))
}

fn index_tensor(v: Vec<i64>, dtype: DType) -> Tensor {
    if dtype == DType::I32 {
        Tensor::from(v.into_iter().map(|i| i as i32).collect::<Vec<_>>())
    } else {
        Tensor::from(v)
    }
}

struct UniqueWithCountsKernel(DType);

impl Kernel for UniqueWithCountsKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        if x.rank() != 1 {
            return Err(Error::invalid_argument("unique expects a 1D vector."));
        }
        let dt = x.dtype();
        let (y, idx, counts) = match_unique_dtype!(dt, false, T => count_typed::<T>(x)?,
            _ => return Err(no_kernel(ctx.node(), dt)));
        ctx.set_output(0, y);
        ctx.set_output(1, index_tensor(idx, self.0));
        ctx.set_output(2, index_tensor(counts, self.0));
        Ok(())
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    // As TensorFlow's, the shape function leaves the rank to the kernel.
    let s = ctx.input_shape(0).clone();
    ctx.set_output(0, Shape::new(vec![None]));
    ctx.set_output(1, s);
    ctx.set_output(2, Shape::new(vec![None]));
    Ok(())
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(UniqueWithCountsKernel(node.attr("out_idx")?)))
}

pub(super) fn register() {
    let mut def = OpDef::new("UniqueWithCounts")
        .input("x", ArgType::Attr("T"))
        .output("y", ArgType::Attr("T"))
        .output("idx", ArgType::Attr("out_idx"))
        .output("count", ArgType::Attr("out_idx"))
        .type_attr("T", DType::ALL_DATA)
        .type_attr("out_idx", &[DType::I32, DType::I64])
        .shape_fn(shape_fn);
    // `out_idx: {int32, int64} = DT_INT32`.
    if let Some(a) = def.attrs.iter_mut().find(|a| a.name == "out_idx") {
        a.default = Some(AttrValue::Type(DType::I32));
    }
    register_op(def);
    register_kernel("UniqueWithCounts", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_in_order_of_first_appearance() {
        let (y, idx, counts) =
            count_typed::<f32>(&Tensor::from(vec![3.5f32, -1.0, 3.5, 0.0, -0.0])).unwrap();
        assert_eq!(y.to_vec::<f32>().unwrap(), vec![3.5, -1.0, 0.0]);
        assert_eq!(idx, vec![0, 1, 0, 2, 2]);
        assert_eq!(counts, vec![2, 1, 2]);
    }
}
