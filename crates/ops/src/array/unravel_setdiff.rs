//! `UnravelIndex` (`tf.unravel_index`): flat indices turned into coordinates of a shape; and
//! `ListDiff` (`tf.setdiff1d`): the elements of one vector missing from another.

use std::collections::HashSet;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output, Result,
    Shape, Tensor,
};

use super::shape_util::to_i64s;
use super::unique_key::{match_unique_dtype, no_kernel, UniqueKey};
use super::unique_v2::default_type;

/// `tf.unravel_index(indices, dims)` (op `UnravelIndex`): for each flat index into an array of
/// shape `dims`, its coordinates: `[len(dims)]` for a scalar index, `[len(dims), n]` for `n`.
pub fn unravel_index(indices: impl Into<Output>, dims: impl Into<Output>) -> Result<Output> {
    let i = indices.into();
    let g = i.graph().clone();
    crate::new_op(&g, "UnravelIndex")
        .input(i)
        .input(dims.into())
        .build()?
        .output(0)
}

/// `tf.setdiff1d(x, y, index_dtype=tf.int32)` (op `ListDiff`): `(out, idx)`, the elements of
/// the vector `x` not in `y`, in order and with repeats, and their positions in `x`.
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::array::{constant, setdiff1d};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let (out, idx) = setdiff1d(constant(&g, [1, 2, 3, 2])?, constant(&g, [2])?, DType::I32)?;
/// let sess = Session::new(&g)?;
/// assert_eq!(sess.eval(&out)?.to_vec::<i32>()?, vec![1, 3]);
/// assert_eq!(sess.eval(&idx)?.to_vec::<i32>()?, vec![0, 2]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn setdiff1d(
    x: impl Into<Output>,
    y: impl Into<Output>,
    index_dtype: DType,
) -> Result<(Output, Output)> {
    let x = x.into();
    let op = crate::new_op(&x.graph().clone(), "ListDiff")
        .input(x)
        .input(y.into())
        .attr("out_idx", index_dtype)
        .build()?;
    Ok((op.output(0)?, op.output(1)?))
}

/// The coordinates of `indices` in `dims`, dim-major (`[len(dims), n]`).
fn unravel(indices: &[i64], dims: &[i64]) -> Result<Vec<i64>> {
    if let Some(i) = dims.iter().position(|&d| d == 0) {
        return Err(Error::invalid_argument(format!(
            "Input dims cannot contain a dim of zero, but dims contains zero at index {i}"
        )));
    }
    let total: i64 = dims.iter().product();
    if indices.iter().any(|&i| i < 0 || i >= total) {
        return Err(Error::invalid_argument(
            "index is out of bound as with dims",
        ));
    }
    let n = indices.len();
    let mut out = vec![0i64; dims.len() * n];
    for (j, &flat) in indices.iter().enumerate() {
        let mut rest = flat;
        for (d, &size) in dims.iter().enumerate().rev() {
            out[d * n + j] = rest % size;
            rest /= size;
        }
    }
    Ok(out)
}

struct UnravelKernel;

impl Kernel for UnravelKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (idx, dims) = (ctx.input(0), ctx.input(1));
        if idx.rank() > 1 {
            return Err(Error::invalid_argument(format!(
                "The indices can only be scalar or vector, got \"{}\"",
                format_dims(idx.shape())
            )));
        }
        if dims.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "The indices can only be 1-D, got \"{}\"",
                format_dims(dims.shape())
            )));
        }
        let d = to_i64s(dims)?;
        let out = unravel(&to_i64s(idx)?, &d)?;
        let shape: Vec<usize> = if idx.rank() == 0 {
            vec![d.len()]
        } else {
            vec![d.len(), idx.num_elements()]
        };
        let t = if idx.dtype() == DType::I64 {
            Tensor::from_vec(&shape, out)?
        } else {
            Tensor::from_vec(&shape, out.into_iter().map(|v| v as i32).collect())?
        };
        ctx.set_output(0, t);
        Ok(())
    }
}

fn unravel_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let dims = ctx.with_rank(1, 1)?;
    let d = dims.dim(0);
    let out = match ctx.input_shape(0).dims() {
        Some([]) => Shape::new(vec![d]),
        Some([n]) => Shape::new(vec![d, *n]),
        _ => Shape::unknown(),
    };
    ctx.set_output(0, out);
    Ok(())
}

fn diff<T: UniqueKey>(x: &Tensor, y: &Tensor) -> Result<(Tensor, Vec<i64>)> {
    let (xs, ys) = (x.as_slice::<T>()?, y.as_slice::<T>()?);
    // NaN has no key: a NaN in `y` removes nothing, and one in `x` is always kept.
    let set: HashSet<T::Key> = ys.iter().filter_map(UniqueKey::key).collect();
    let mut out = Vec::new();
    let mut idx = Vec::new();
    for (i, v) in xs.iter().enumerate() {
        if !v.key().is_some_and(|k| set.contains(&k)) {
            out.push(v.clone());
            idx.push(i as i64);
        }
    }
    Ok((Tensor::from_vec(&[out.len()], out)?, idx))
}

struct ListDiffKernel {
    out_idx: DType,
}

impl Kernel for ListDiffKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (x, y) = (ctx.input(0), ctx.input(1));
        if x.rank() != 1 {
            return Err(Error::invalid_argument("x should be a 1D vector."));
        }
        if y.rank() != 1 {
            return Err(Error::invalid_argument("y should be a 1D vector."));
        }
        let dt = x.dtype();
        let (out, idx) = match_unique_dtype!(dt, true, T => diff::<T>(x, y)?,
            _ => return Err(no_kernel(ctx.node(), dt)));
        ctx.set_output(0, out);
        let idx = if self.out_idx == DType::I64 {
            Tensor::from(idx)
        } else {
            Tensor::from(idx.into_iter().map(|v| v as i32).collect::<Vec<_>>())
        };
        ctx.set_output(1, idx);
        Ok(())
    }
}

fn list_diff_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(0, 1)?;
    ctx.with_rank(1, 1)?;
    ctx.set_output(0, Shape::new(vec![None]));
    ctx.set_output(1, Shape::new(vec![None]));
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("UnravelIndex")
            .input("indices", ArgType::Attr("Tidx"))
            .input("dims", ArgType::Attr("Tidx"))
            .output("output", ArgType::Attr("Tidx"))
            .type_attr("Tidx", &[DType::I32, DType::I64])
            .shape_fn(unravel_shape_fn),
    );
    register_kernel("UnravelIndex", |_| Ok(Box::new(UnravelKernel)));
    register_op(default_type(
        OpDef::new("ListDiff")
            .input("x", ArgType::Attr("T"))
            .input("y", ArgType::Attr("T"))
            .output("out", ArgType::Attr("T"))
            .output("idx", ArgType::Attr("out_idx"))
            .type_attr("T", DType::ALL_DATA)
            .type_attr("out_idx", &[DType::I32, DType::I64])
            .shape_fn(list_diff_shape_fn),
        "out_idx",
        DType::I32,
    ));
    register_kernel("ListDiff", |n| {
        Ok(Box::new(ListDiffKernel {
            out_idx: n.attr("out_idx")?,
        }))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unravels_dim_major() {
        assert_eq!(
            unravel(&[1, 5, 4], &[2, 3]).unwrap(),
            vec![0, 1, 1, 1, 2, 1]
        );
        assert!(unravel(&[6], &[2, 3]).is_err());
    }

    #[test]
    fn diff_keeps_order_and_repeats() {
        let (out, idx) = diff::<i32>(
            &Tensor::from(vec![1, 2, 3, 2, 6]),
            &Tensor::from(vec![2, 5]),
        )
        .unwrap();
        assert_eq!(out.to_vec::<i32>().unwrap(), vec![1, 3, 6]);
        assert_eq!(idx, vec![0, 2, 4]);
    }
}
