//! Sparse reads of a variable: TensorFlow's `ResourceGather` (`v.sparse_read(indices)`, what
//! `tf.gather(v, indices)` and `tf.nn.embedding_lookup` emit for a resource variable) and
//! `ResourceGatherNd` (`v.gather_nd(indices)`, what `tf.gather_nd(v, indices)` emits).
//!
//! The kernels read the variable's current value (a shared, copy-free handle on its buffer)
//! and pick rows from it, checking every index first in TensorFlow's order and words.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor, TensorType,
};

use super::kernels::var_of;
use super::Variable;
use crate::array::shape_util::to_i64s;
use crate::array::{coords, index_row_offsets};

const INDEX_TYPES: &[DType] = &[DType::I32, DType::I64];

/// TensorFlow's TypeError for an `indices` input that is not int32 or int64.
fn check_index_dtype(indices: &Output) -> Result<()> {
    if INDEX_TYPES.contains(&indices.dtype()) {
        return Ok(());
    }
    Err(Error::invalid_argument(format!(
        "Value passed to parameter 'indices' has DataType {} not in list of allowed values: \
         int32, int64",
        indices.dtype().python_name()
    )))
}

fn at_least_rank(shape: &Shape, rank: usize) -> Result<()> {
    match shape.rank() {
        Some(r) if r < rank => Err(Error::invalid_argument(format!(
            "Shape must be at least rank {rank} but is rank {r}"
        ))),
        _ => Ok(()),
    }
}

/// `ResourceGather`'s shape function over the variable's static shape (TensorFlow reads it from
/// the handle's shape data): `params[:batch_dims] + indices[batch_dims:] +
/// params[batch_dims + 1:]`.
fn gather_shape(params: &Shape, indices: &Shape, batch_dims: i64) -> Result<Shape> {
    if batch_dims < 0 {
        return Err(Error::invalid_argument(format!(
            "batch_dims is negative ({batch_dims})"
        )));
    }
    let bd = batch_dims as usize;
    at_least_rank(params, bd + 1)?;
    at_least_rank(indices, bd)?;
    let (Some(p), Some(i)) = (params.dims(), indices.dims()) else {
        return Ok(Shape::unknown());
    };
    let mut out = p[..bd].to_vec();
    out.extend_from_slice(&i[bd..]);
    out.extend_from_slice(&p[bd + 1..]);
    Ok(Shape::new(out))
}

/// `ResourceGatherNd`'s shape function (TensorFlow's `GatherNdShape`) over the variable's static
/// shape: `indices.shape[:-1] + params.shape[indices.shape[-1]:]`.
fn gather_nd_shape(params: &Shape, indices: &Shape) -> Result<Shape> {
    at_least_rank(indices, 1)?;
    let (Some(p), Some(i)) = (params.dims(), indices.dims()) else {
        return Ok(Shape::unknown());
    };
    let Some(k) = i[i.len() - 1] else {
        return Ok(Shape::unknown());
    };
    if k > p.len() {
        return Err(Error::invalid_argument(format!(
            "indices.shape[-1] must be <= params.rank, but saw indices shape: {indices} and \
             params shape: {params}"
        )));
    }
    let mut out = i[..i.len() - 1].to_vec();
    out.extend_from_slice(&p[k..]);
    Ok(Shape::new(out))
}

/// `tf.raw_ops.ResourceGather(resource, indices, dtype, batch_dims, validate_indices)`: the
/// slices of the variable's value along dimension `batch_dims` at `indices`, the first
/// `batch_dims` dimensions of the value and of `indices` being batch dimensions gathered
/// pairwise. `validate_indices` is kept as an attr: the CPU kernel always checks.
pub fn resource_gather(
    var: &Variable,
    indices: impl Into<Output>,
    batch_dims: i64,
    validate_indices: bool,
) -> Result<Output> {
    build_gather(var, indices.into(), batch_dims, validate_indices, None)
}

fn build_gather(
    var: &Variable,
    indices: Output,
    batch_dims: i64,
    validate_indices: bool,
    name: Option<&str>,
) -> Result<Output> {
    check_index_dtype(&indices)?;
    let shape = gather_shape(&var.shape(), &indices.shape(), batch_dims)?;
    let mut b = crate::new_op(var.graph(), "ResourceGather")
        .input(var.handle())
        .input(indices)
        .attr("dtype", var.dtype())
        .attr("batch_dims", batch_dims)
        .attr("validate_indices", validate_indices)
        .output_shape(0, shape);
    if let Some(n) = name {
        b = b.name(n);
    }
    b.build()?.output(0)
}

impl Variable {
    /// `v.sparse_read(indices)` (TensorFlow's `ResourceVariable.sparse_read`, which
    /// `tf.gather(v, indices)` and `tf.nn.embedding_lookup(v, ids)` call): the rows of the
    /// variable at `indices` (int32 or int64, any shape), read when the op runs, as a
    /// `ResourceGather` node named `Gather`. Its gradient reaches the variable (the rows picked,
    /// summed where indices repeat).
    ///
    /// ```
    /// # use weir_graph::{Graph, Shape, Tensor};
    /// # use weir_ops::{array::constant, state::Variable};
    /// # use weir_session::Session;
    /// let g = Graph::new();
    /// let v = Variable::new(constant(&g, Tensor::from_vec(&[3, 2], vec![1, 2, 3, 4, 5, 6])?)?)?;
    /// let rows = v.sparse_read(constant(&g, [2, 0])?)?;
    /// assert_eq!(rows.shape(), Shape::known(&[2, 2]));
    /// let sess = Session::new(&g)?;
    /// sess.run_target(&v.initializer())?;
    /// assert_eq!(sess.eval(&rows)?.to_vec::<i32>()?, vec![5, 6, 1, 2]);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn sparse_read(&self, indices: impl Into<Output>) -> Result<Output> {
        build_gather(self, indices.into(), 0, true, Some("Gather"))
    }

    /// `v.gather_nd(indices)` (TensorFlow's `ResourceVariable.gather_nd`, which
    /// `tf.gather_nd(v, indices)` calls): each row of the last dimension of `indices` is a
    /// (partial) coordinate into the variable; a `ResourceGatherNd` node named `GatherNd`,
    /// followed by an `Identity` as TensorFlow builds it.
    ///
    /// ```
    /// # use weir_graph::{Graph, Tensor};
    /// # use weir_ops::{array::constant, state::Variable};
    /// # use weir_session::Session;
    /// let g = Graph::new();
    /// let v = Variable::new(constant(&g, Tensor::from_vec(&[2, 2], vec![1, 2, 3, 4])?)?)?;
    /// let picked = v.gather_nd(constant(&g, Tensor::from_vec(&[2, 2], vec![1, 0, 0, 1])?)?)?;
    /// let sess = Session::new(&g)?;
    /// sess.run_target(&v.initializer())?;
    /// assert_eq!(sess.eval(&picked)?.to_vec::<i32>()?, vec![3, 2]);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn gather_nd(&self, indices: impl Into<Output>) -> Result<Output> {
        let indices = indices.into();
        check_index_dtype(&indices)?;
        let shape = gather_nd_shape(&self.shape(), &indices.shape())?;
        let picked = crate::new_op(self.graph(), "ResourceGatherNd")
            .name("GatherNd")
            .input(self.handle())
            .input(indices)
            .attr("dtype", self.dtype())
            .output_shape(0, shape)
            .build()?
            .output(0)?;
        crate::array::identity(&picked)
    }
}

fn pick<T: TensorType>(xs: &[T], rows: &[usize], inner: usize) -> Vec<T> {
    let mut out = Vec::with_capacity(rows.len() * inner);
    for &r in rows {
        out.extend_from_slice(&xs[r * inner..(r + 1) * inner]);
    }
    out
}

/// The rows of `params` (viewed as `[rows.len() <= n, inner]`) at `rows`, shaped `shape`.
fn take_rows(params: &Tensor, rows: &[usize], inner: usize, shape: &[usize]) -> Result<Tensor> {
    let dt = params.dtype();
    weir_graph::match_data_dtype!(dt,
        T => Tensor::from_vec(shape, pick::<T>(params.as_slice::<T>()?, rows, inner)),
        _ => Err(Error::invalid_argument(format!("Cannot gather {dt} tensors"))))
}

/// TensorFlow's `ResourceGatherOp`. With `batch_dims > 0` it offsets each batch's indices by
/// `batch * params.shape[batch_dims]` and checks them against the flattened leading dims, so
/// its message shows the offset index and `params.shape[0]`, as TensorFlow's does.
struct ResourceGatherKernel {
    batch_dims: usize,
}

impl Kernel for ResourceGatherKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let params = var_of(ctx)?.read()?;
        let indices = ctx.input(1);
        let (ps, is) = (params.shape(), indices.shape());
        let bd = self.batch_dims;
        if ps.is_empty() {
            return Err(Error::invalid_argument(
                "params must be at least 1 dimensional",
            ));
        }
        if ps.len() < bd {
            return Err(Error::invalid_argument(format!(
                "params must have at least {bd} (batch_dims) dimensions but it has shape {}",
                format_dims(ps)
            )));
        }
        if is.len() < bd || ps.len() < bd + 1 {
            return Err(Error::invalid_argument(format!(
                "batch_dims {bd} is too large for params shape {} and indices shape {}",
                format_dims(ps),
                format_dims(is)
            )));
        }
        let mut shape = ps[..bd].to_vec();
        shape.extend_from_slice(&is[bd..]);
        shape.extend_from_slice(&ps[bd + 1..]);
        let idx = to_i64s(indices)?;
        let gather_dim: usize = ps[..=bd].iter().product();
        let inner: usize = ps[bd + 1..].iter().product();
        let batch: usize = ps[..bd].iter().product();
        let per_batch = idx.len().checked_div(batch).unwrap_or(0).max(1);
        let offset = ps[bd] as i64;
        let mut rows = Vec::with_capacity(idx.len());
        for (i, &v) in idx.iter().enumerate() {
            let adjusted = if bd > 0 {
                v + offset * (i / per_batch) as i64
            } else {
                v
            };
            match usize::try_from(adjusted) {
                Ok(u) if u < gather_dim => rows.push(u),
                _ => {
                    return Err(Error::invalid_argument(format!(
                        "indices[{}] = {adjusted} is not in [0, {})",
                        coords(is, i),
                        ps[0]
                    )))
                }
            }
        }
        let out = take_rows(&params, &rows, inner, &shape)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

/// TensorFlow's `ResourceGatherNdOp` (its `DoGatherNd`, whose index message ends with the
/// node's name).
struct ResourceGatherNdKernel;

impl Kernel for ResourceGatherNdKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let params = var_of(ctx)?.read()?;
        let indices = ctx.input(1);
        let (ps, is) = (params.shape(), indices.shape());
        if ps.is_empty() {
            return Err(Error::invalid_argument("params must be at least a vector"));
        }
        if is.is_empty() {
            return Err(Error::invalid_argument("indices must be at least a vector"));
        }
        let k = is[is.len() - 1];
        if k > ps.len() {
            return Err(Error::invalid_argument(format!(
                "index innermost dimension length must be <= params rank; saw: {k} vs. {}",
                ps.len()
            )));
        }
        let lead = &is[..is.len() - 1];
        let n_result: usize = lead.iter().product();
        if n_result > 0 && params.num_elements() == 0 {
            return Err(Error::invalid_argument(format!(
                "Requested more than 0 entries, but params is empty.  Params shape: {}",
                format_dims(ps)
            )));
        }
        let rows = index_row_offsets(&to_i64s(indices)?, is, ps, "param shape").map_err(|e| {
            Error::invalid_argument(format!("{}, node name: {}", e.message(), ctx.node().name()))
        })?;
        let mut shape = lead.to_vec();
        shape.extend_from_slice(&ps[k..]);
        let inner: usize = ps[k..].iter().product();
        let out = take_rows(&params, &rows, inner, &shape)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

/// Without the variable's shape (a graph read from elsewhere), only the attrs and the indices'
/// rank are checked, and the output's shape is unknown, as in TensorFlow without handle data.
fn gather_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let bd: i64 = ctx.attr("batch_dims")?;
    gather_shape(&Shape::unknown(), ctx.input_shape(1), bd)?;
    ctx.set_output(0, Shape::unknown());
    Ok(())
}

fn gather_nd_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    gather_nd_shape(&Shape::unknown(), ctx.input_shape(1))?;
    ctx.set_output(0, Shape::unknown());
    Ok(())
}

fn make_gather(node: &Node) -> Result<Box<dyn Kernel>> {
    let bd: i64 = node.attr("batch_dims")?;
    let batch_dims = usize::try_from(bd)
        .map_err(|_| Error::invalid_argument(format!("batch_dims is negative ({bd})")))?;
    Ok(Box::new(ResourceGatherKernel { batch_dims }))
}

pub(super) fn register() {
    let resource = ArgType::Fixed(DType::Resource);
    register_op(
        OpDef::new("ResourceGather")
            .input("resource", resource.clone())
            .input("indices", ArgType::Attr("Tindices"))
            .output("output", ArgType::Attr("dtype"))
            .attr("batch_dims", AttrKind::Int, Some(AttrValue::Int(0)))
            .attr(
                "validate_indices",
                AttrKind::Bool,
                Some(AttrValue::Bool(true)),
            )
            .type_attr("dtype", DType::ALL_DATA)
            .type_attr("Tindices", INDEX_TYPES)
            .stateful()
            .shape_fn(gather_shape_fn),
    );
    register_kernel("ResourceGather", make_gather);
    register_op(
        OpDef::new("ResourceGatherNd")
            .input("resource", resource)
            .input("indices", ArgType::Attr("Tindices"))
            .output("output", ArgType::Attr("dtype"))
            .type_attr("dtype", DType::ALL_DATA)
            .type_attr("Tindices", INDEX_TYPES)
            .stateful()
            .shape_fn(gather_nd_shape_fn),
    );
    register_kernel("ResourceGatherNd", |_| Ok(Box::new(ResourceGatherNdKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn static_shapes_follow_tensorflows_shape_functions() {
        let s = |d: &[usize]| Shape::known(d);
        assert_eq!(
            gather_shape(&s(&[2, 4, 3]), &s(&[2, 5]), 1).unwrap(),
            s(&[2, 5, 3])
        );
        assert_eq!(
            gather_shape(&s(&[2, 4]), &s(&[2, 1]), 2)
                .unwrap_err()
                .message(),
            "Shape must be at least rank 3 but is rank 2"
        );
        assert_eq!(
            gather_shape(&s(&[2, 4]), &s(&[2]), -1)
                .unwrap_err()
                .message(),
            "batch_dims is negative (-1)"
        );
        assert_eq!(
            gather_nd_shape(&s(&[4, 3]), &s(&[2, 1])).unwrap(),
            s(&[2, 3])
        );
        assert!(gather_nd_shape(&s(&[4, 3]), &s(&[2, 3])).is_err());
        assert!(gather_nd_shape(&s(&[4, 3]), &Shape::scalar()).is_err());
    }
}
