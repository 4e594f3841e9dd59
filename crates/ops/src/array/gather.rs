//! `GatherV2` (`tf.gather`) and `GatherNd` (`tf.gather_nd`): rows picked by index. Every index
//! is checked before anything is copied; each picked row is one contiguous copy.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, ResourceHandle, Result, Shape, Tensor, TensorType,
};

use super::shape_util::{const_i64s, scalar_i64, to_i64s};

/// `tf.gather(params, indices, axis)`: the slices of `params` along `axis` at `indices`
/// (any shape, int32 or int64); the output has `indices`' dims in place of `axis`.
///
/// ```
/// # use weir_graph::{Graph, Shape, Tensor};
/// # use weir_ops::array::{constant, gather};
/// let g = Graph::new();
/// let p = constant(&g, Tensor::from_vec(&[3, 2], vec![1, 2, 3, 4, 5, 6])?)?;
/// let rows = gather(&p, constant(&g, [2, 0])?, 0)?;
/// assert_eq!(rows.shape(), Shape::known(&[2, 2]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn gather(params: impl Into<Output>, indices: impl Into<Output>, axis: i64) -> Result<Output> {
    gather_batched(params, indices, axis, 0)
}

/// `tf.gather(params, indices, axis, batch_dims)`: the first `batch_dims` dims of `params` and
/// `indices` are batch dims gathered pairwise.
pub fn gather_batched(
    params: impl Into<Output>,
    indices: impl Into<Output>,
    axis: i64,
    batch_dims: i64,
) -> Result<Output> {
    let (p, i) = (params.into(), indices.into());
    let g = crate::util::same_graph(&[&p, &i])?.clone();
    let a = crate::array::constant(&g, axis as i32)?;
    crate::new_op(&g, "GatherV2")
        .input(p)
        .input(i)
        .input(a)
        .attr("batch_dims", batch_dims)
        .build()?
        .output(0)
}

/// `tf.gather_nd(params, indices)`: each row of the last dim of `indices` is a (partial)
/// coordinate into `params`.
pub fn gather_nd(params: impl Into<Output>, indices: impl Into<Output>) -> Result<Output> {
    let (p, i) = (params.into(), indices.into());
    let g = crate::util::same_graph(&[&p, &i])?.clone();
    crate::new_op(&g, "GatherNd")
        .input(p)
        .input(i)
        .build()?
        .output(0)
}

/// The row-major coordinates of flat position `flat` in `shape`, as TensorFlow prints them
/// (`1,0`).
pub(crate) fn coords(shape: &[usize], mut flat: usize) -> String {
    let mut c = vec![0usize; shape.len()];
    for j in (0..shape.len()).rev() {
        if shape[j] > 0 {
            c[j] = flat % shape[j];
            flat /= shape[j];
        }
    }
    c.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
}

/// The flat offset, in `shape`, of the slice each row of `idx` (an indices tensor of shape `is`,
/// rows of `is`'s last dimension) names; an index outside `shape` is TensorFlow's error, which
/// calls `shape` by `what` ("param shape" for GatherNd, "shape" for ScatterNd).
pub(crate) fn index_row_offsets(
    idx: &[i64],
    is: &[usize],
    shape: &[usize],
    what: &str,
) -> Result<Vec<usize>> {
    let k = is.last().copied().unwrap_or(0);
    let lead = &is[..is.len().saturating_sub(1)];
    let n: usize = lead.iter().product();
    let mut rows = Vec::with_capacity(n);
    for r in 0..n {
        let c = &idx[r * k..(r + 1) * k];
        let mut off = 0usize;
        for (j, &v) in c.iter().enumerate() {
            if v < 0 || v as usize >= shape[j] {
                let shown: Vec<String> = c.iter().map(i64::to_string).collect();
                return Err(Error::invalid_argument(format!(
                    "indices[{}] = [{}] does not index into {what} {}",
                    coords(lead, r),
                    shown.join(", "),
                    format_dims(shape)
                )));
            }
            off = off * shape[j] + v as usize;
        }
        rows.push(off);
    }
    Ok(rows)
}

/// Resolved geometry of a gather.
struct GatherDims {
    axis: usize,
    batch_dims: usize,
}

fn gather_dims(
    params_rank: usize,
    indices_rank: usize,
    axis: i64,
    batch_dims: i64,
) -> Result<GatherDims> {
    let pr = params_rank as i64;
    if axis < -pr || axis >= pr {
        return Err(Error::invalid_argument(format!(
            "Expected axis in the range [{}, {pr}), but got {axis}",
            -pr
        )));
    }
    let axis = if axis < 0 { axis + pr } else { axis };
    let ir = indices_rank as i64;
    let bd = if batch_dims < 0 {
        batch_dims + ir
    } else {
        batch_dims
    };
    if bd < 0 || bd > ir {
        return Err(Error::invalid_argument(format!(
            "Expected batch_dims in the range [{}, {ir}], but got {batch_dims}",
            -ir
        )));
    }
    if bd > axis {
        return Err(Error::invalid_argument(format!(
            "batch_dims ({bd}) must be less than or equal to axis ({axis})."
        )));
    }
    Ok(GatherDims {
        axis: axis as usize,
        batch_dims: bd as usize,
    })
}

fn gather_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let (p, i) = (ctx.input_shape(0).clone(), ctx.input_shape(1).clone());
    let axis = const_i64s(ctx, 2)?;
    let bd: i64 = ctx.attr("batch_dims")?;
    let (Some(pd), Some(id), Some(axis)) = (p.dims(), i.dims(), axis) else {
        ctx.set_output(0, Shape::unknown());
        return Ok(());
    };
    let gd = gather_dims(pd.len(), id.len(), axis[0], bd)?;
    for j in 0..gd.batch_dims {
        if let (Some(a), Some(b)) = (pd[j], id[j]) {
            if a != b {
                return Err(Error::invalid_argument(format!(
                    "params.shape[{j}]: {a} should be equal to indices.shape[{j}]: {b}"
                )));
            }
        }
    }
    let mut out = pd[..gd.axis].to_vec();
    out.extend_from_slice(&id[gd.batch_dims..]);
    out.extend_from_slice(&pd[gd.axis + 1..]);
    ctx.set_output(0, Shape::new(out));
    Ok(())
}

/// `Gather`'s shape: `indices`' shape followed by `params`' without its first dimension.
fn gather_v1_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let (p, i) = (ctx.input_shape(0).clone(), ctx.input_shape(1).clone());
    if p.rank() == Some(0) {
        return Err(Error::invalid_argument(format!(
            "Shape must be at least rank 1 but is rank 0 for 'Gather' (input 0 has shape {p})"
        )));
    }
    let (Some(pd), Some(id)) = (p.dims(), i.dims()) else {
        ctx.set_output(0, Shape::unknown());
        return Ok(());
    };
    let mut out = id.to_vec();
    out.extend_from_slice(&pd[1..]);
    ctx.set_output(0, Shape::new(out));
    Ok(())
}

fn gather_rows<T: TensorType>(
    xs: &[T],
    idx: &[i64],
    batch: usize,
    outer: usize,
    dim: usize,
    inner: usize,
) -> Vec<T> {
    let per_batch = idx.len().checked_div(batch).unwrap_or(0);
    let mut out = Vec::with_capacity(batch * outer * per_batch * inner);
    for b in 0..batch {
        let ids = &idx[b * per_batch..(b + 1) * per_batch];
        for o in 0..outer {
            let base = (b * outer + o) * dim;
            for &i in ids {
                let start = (base + i as usize) * inner;
                out.extend_from_slice(&xs[start..start + inner]);
            }
        }
    }
    out
}

/// `GatherV2`'s kernel (its batch_dims), or with `None` TensorFlow 1's `Gather`, which has no
/// axis input and gathers along axis 0.
struct GatherKernel(Option<i64>);

impl Kernel for GatherKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (p, it) = (ctx.input(0), ctx.input(1));
        let (axis, batch_dims) = match self.0 {
            Some(b) => (scalar_i64(ctx.input(2), "axis")?, b),
            None => (0, 0),
        };
        let gd = gather_dims(p.rank(), it.rank(), axis, batch_dims)?;
        let (ps, is) = (p.shape(), it.shape());
        for j in 0..gd.batch_dims {
            if ps[j] != is[j] {
                return Err(Error::invalid_argument(format!(
                    "params.shape[{j}]: {} should be equal to indices.shape[{j}]: {}",
                    ps[j], is[j]
                )));
            }
        }
        let idx = to_i64s(it)?;
        let dim = ps[gd.axis];
        if let Some(bad) = idx.iter().position(|&i| i < 0 || i as usize >= dim) {
            return Err(Error::invalid_argument(format!(
                "indices[{}] = {} is not in [0, {dim})",
                coords(is, bad),
                idx[bad]
            )));
        }
        let batch: usize = ps[..gd.batch_dims].iter().product();
        let outer: usize = ps[gd.batch_dims..gd.axis].iter().product();
        let inner: usize = ps[gd.axis + 1..].iter().product();
        let mut shape = ps[..gd.axis].to_vec();
        shape.extend_from_slice(&is[gd.batch_dims..]);
        shape.extend_from_slice(&ps[gd.axis + 1..]);
        let dt = p.dtype();
        let out = weir_graph::match_data_dtype!(dt,
        T => Tensor::from_vec(&shape, gather_rows::<T>(p.as_slice::<T>()?, &idx, batch, outer, dim, inner))?,
        _ => match dt {
            DType::Resource => Tensor::from_vec(&shape, gather_rows::<ResourceHandle>(p.as_slice::<ResourceHandle>()?, &idx, batch, outer, dim, inner))?,
            _ => return Err(Error::invalid_argument(format!("Cannot gather {dt} tensors"))),
        });
        ctx.set_output(0, out);
        Ok(())
    }
}

fn gather_nd_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let (p, i) = (ctx.input_shape(0).clone(), ctx.input_shape(1).clone());
    let (Some(pd), Some(id)) = (p.dims(), i.dims()) else {
        ctx.set_output(0, Shape::unknown());
        return Ok(());
    };
    if id.is_empty() {
        return Err(Error::invalid_argument(format!(
            "Shape must be at least rank 1 but is rank 0 for 'GatherNd' (input 1 has shape {i})"
        )));
    }
    let Some(k) = id[id.len() - 1] else {
        ctx.set_output(0, Shape::unknown());
        return Ok(());
    };
    if k > pd.len() {
        return Err(Error::invalid_argument(format!(
            "indices.shape[-1] must be <= params.rank, but saw indices shape: {i} and params shape: {p}"
        )));
    }
    let mut out = id[..id.len() - 1].to_vec();
    out.extend_from_slice(&pd[k..]);
    ctx.set_output(0, Shape::new(out));
    Ok(())
}

struct GatherNdKernel;

impl Kernel for GatherNdKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (p, it) = (ctx.input(0), ctx.input(1));
        let (ps, is) = (p.shape(), it.shape());
        if is.is_empty() {
            return Err(Error::invalid_argument(format!(
                "indices must be at least a vector, got shape {}",
                format_dims(is)
            )));
        }
        let k = is[is.len() - 1];
        if k > ps.len() {
            return Err(Error::invalid_argument(format!(
                "index innermost dimension length must be <= params rank; saw: {k} vs. {}",
                ps.len()
            )));
        }
        let idx = to_i64s(it)?;
        let lead = &is[..is.len() - 1];
        let inner: usize = ps[k..].iter().product();
        // Flat row offsets, checked before copying.
        let rows = index_row_offsets(&idx, is, ps, "param shape")?;
        let mut shape = lead.to_vec();
        shape.extend_from_slice(&ps[k..]);
        fn pick<T: TensorType>(xs: &[T], rows: &[usize], inner: usize) -> Vec<T> {
            let mut out = Vec::with_capacity(rows.len() * inner);
            for &r in rows {
                out.extend_from_slice(&xs[r * inner..(r + 1) * inner]);
            }
            out
        }
        let dt = p.dtype();
        let out = weir_graph::match_data_dtype!(dt,
            T => Tensor::from_vec(&shape, pick::<T>(p.as_slice::<T>()?, &rows, inner))?,
            _ => return Err(Error::invalid_argument(format!("Cannot gather {dt} tensors"))));
        ctx.set_output(0, out);
        Ok(())
    }
}

const INDEX: &[DType] = &[DType::I32, DType::I64];

fn make_gather(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(GatherKernel(Some(node.attr("batch_dims")?))))
}

pub(super) fn register() {
    register_op(
        OpDef::new("GatherV2")
            .input("params", ArgType::Attr("Tparams"))
            .input("indices", ArgType::Attr("Tindices"))
            .input("axis", ArgType::Attr("Taxis"))
            .output("output", ArgType::Attr("Tparams"))
            .type_attr("Tparams", DType::ALL)
            .type_attr("Tindices", INDEX)
            .type_attr("Taxis", INDEX)
            .attr("batch_dims", AttrKind::Int, Some(AttrValue::Int(0)))
            .shape_fn(gather_shape_fn),
    );
    register_kernel("GatherV2", make_gather);
    // TensorFlow 1's `tf.gather` (before 1.3): axis 0, and a validate_indices attr that the CPU
    // kernel ignores (indices are always checked).
    register_op(
        OpDef::new("Gather")
            .input("params", ArgType::Attr("Tparams"))
            .input("indices", ArgType::Attr("Tindices"))
            .output("output", ArgType::Attr("Tparams"))
            .attr(
                "validate_indices",
                AttrKind::Bool,
                Some(AttrValue::Bool(true)),
            )
            .type_attr("Tparams", DType::ALL)
            .type_attr("Tindices", INDEX)
            .shape_fn(gather_v1_shape_fn),
    );
    register_kernel("Gather", |_| Ok(Box::new(GatherKernel(None))));
    register_op(
        OpDef::new("GatherNd")
            .input("params", ArgType::Attr("Tparams"))
            .input("indices", ArgType::Attr("Tindices"))
            .output("output", ArgType::Attr("Tparams"))
            .type_attr("Tparams", DType::ALL_DATA)
            .type_attr("Tindices", INDEX)
            .shape_fn(gather_nd_shape_fn),
    );
    register_kernel("GatherNd", |_| Ok(Box::new(GatherNdKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_along_inner_axes_and_batches() {
        // params [2, 3] gathered along axis 1 with [2, 0, 2].
        let x = [1, 2, 3, 4, 5, 6];
        assert_eq!(
            gather_rows(&x, &[2, 0, 2], 1, 2, 3, 1),
            vec![3, 1, 3, 6, 4, 6]
        );
        // batch_dims=1: row b picks its own indices.
        assert_eq!(gather_rows(&x, &[2, 0], 2, 1, 3, 1), vec![3, 4]);
        assert_eq!(coords(&[2, 3], 4), "1,1");
        assert_eq!(coords(&[5], 3), "3");
    }

    #[test]
    fn gather_dims_checks() {
        assert!(gather_dims(2, 1, 2, 0).is_err());
        assert_eq!(gather_dims(2, 1, -1, 0).unwrap().axis, 1);
        assert!(gather_dims(2, 1, 0, 1).is_err());
    }
}
