//! `tf.sparse.reduce_sum` and `tf.sparse.reduce_max`: reductions of a sparse tensor over some
//! axes, to a dense tensor (ops `SparseReduceSum`, `SparseReduceMax`) or to a sparse one
//! (`output_is_sparse=True`: ops `SparseReduceSumSparse`, `SparseReduceMaxSparse`).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, OpContext,
    OpDef, Output, Result, Shape, Tensor,
};

use super::arith::{alloc_output, build_shape, eigen_max, eigen_sum, Real};
use super::SparseOutput;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Reduce {
    Sum,
    Max,
}

/// The reduction axes: `axis`, or every axis (a constant when the rank is known statically,
/// else `range(size(dense_shape))`, as Python's `_ReductionDims`).
fn axes_input(sp: &SparseOutput, axis: Option<&[i32]>) -> Result<Output> {
    let g = sp.graph();
    if let Some(a) = axis {
        return crate::array::constant(g, a.to_vec());
    }
    if let Some(r) = sp.dense_shape.shape().dim(0) {
        return crate::array::constant(g, (0..r as i32).collect::<Vec<i32>>());
    }
    let rank = crate::array::size(&sp.dense_shape)?;
    crate::new_op(g, "Range")
        .input(crate::array::constant(g, 0i32)?)
        .input(rank)
        .input(crate::array::constant(g, 1i32)?)
        .build()?
        .output(0)
}

fn build(
    op_type: &str,
    sp: &SparseOutput,
    axis: Option<&[i32]>,
    keepdims: bool,
) -> Result<weir_graph::Operation> {
    let axes = axes_input(sp, axis)?;
    crate::new_op(sp.graph(), op_type)
        .input(&sp.indices)
        .input(&sp.values)
        .input(&sp.dense_shape)
        .input(&axes)
        .attr("keep_dims", keepdims)
        .build()
}

/// `tf.sparse.reduce_sum(sp, axis, keepdims)` (op `SparseReduceSum`): the dense sum of `sp`
/// over `axis` (negative axes count from the end; `None` reduces all). Indices need not be
/// sorted; repeated indices all count.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, sparse::{sparse_reduce_sum, SparseOutput}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let sp = SparseOutput::new(
///     constant(&g, Tensor::from_vec(&[3, 2], vec![0i64, 0, 1, 2, 0, 2])?)?,
///     constant(&g, vec![1.0f32, 2.0, 3.0])?,
///     constant(&g, vec![2i64, 3])?,
/// )?;
/// let rows = sparse_reduce_sum(&sp, Some(&[-1]), false)?;
/// assert_eq!(Session::new(&g)?.eval(&rows)?.to_vec::<f32>()?, [4.0, 2.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn sparse_reduce_sum(
    sp: &SparseOutput,
    axis: Option<&[i32]>,
    keepdims: bool,
) -> Result<Output> {
    build("SparseReduceSum", sp, axis, keepdims)?.output(0)
}

/// `tf.sparse.reduce_max(sp, axis, keepdims)` (op `SparseReduceMax`): the dense max of `sp`'s
/// stored values over `axis`; implicit zeros do not take part, so a group with values
/// `[-3]` gives -3, and a group with no values gives 0.
pub fn sparse_reduce_max(
    sp: &SparseOutput,
    axis: Option<&[i32]>,
    keepdims: bool,
) -> Result<Output> {
    build("SparseReduceMax", sp, axis, keepdims)?.output(0)
}

/// `tf.sparse.reduce_sum(sp, axis, keepdims, output_is_sparse=True)` (op
/// `SparseReduceSumSparse`): as [`sparse_reduce_sum`], with one entry per group that has
/// values, in row-major order.
pub fn sparse_reduce_sum_sparse(
    sp: &SparseOutput,
    axis: Option<&[i32]>,
    keepdims: bool,
) -> Result<SparseOutput> {
    SparseOutput::from_op(&build("SparseReduceSumSparse", sp, axis, keepdims)?)
}

/// `tf.sparse.reduce_max(sp, axis, keepdims, output_is_sparse=True)` (op
/// `SparseReduceMaxSparse`): as [`sparse_reduce_max`], with one entry per group that has
/// values.
pub fn sparse_reduce_max_sparse(
    sp: &SparseOutput,
    axis: Option<&[i32]>,
    keepdims: bool,
) -> Result<SparseOutput> {
    SparseOutput::from_op(&build("SparseReduceMaxSparse", sp, axis, keepdims)?)
}

fn invalid(msg: String) -> Error {
    Error::invalid_argument(msg)
}

/// The validated inputs, sorted and grouped.
struct Grouped {
    /// The kept (group-by) axes, ascending.
    group_by: Vec<usize>,
    /// The output's dense shape.
    reduced: Vec<usize>,
    /// Each group: its coordinates along `group_by` and the range of its entries in `order`.
    groups: Vec<(Vec<i64>, std::ops::Range<usize>)>,
    /// Entry numbers sorted by the kept axes, then the reduced ones.
    order: Vec<usize>,
}

fn group(ctx: &OpContext<'_>, keep_dims: bool) -> Result<Grouped> {
    let (indices, values, shape, axes) = (ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3));
    if shape.rank() != 1 {
        return Err(invalid(format!(
            "Expected input_shape to be a vector; got shape: {}",
            format_dims(shape.shape())
        )));
    }
    if axes.rank() > 1 {
        return Err(invalid(format!(
            "Expected reduction_axes to be a scalar or a vector; got shape: {}",
            format_dims(axes.shape())
        )));
    }
    let n = shape.num_elements() as i64;
    let axes = axes.as_slice::<i32>()?;
    if let Some(&a) = axes.iter().find(|&&a| (a as i64) < -n || (a as i64) >= n) {
        return Err(invalid(format!(
            "Invalid reduction dimension {a}, for input with {n} dimensions."
        )));
    }
    let dims = build_shape(shape.as_slice::<i64>()?)?;
    if values.rank() != 1 {
        return Err(invalid(format!(
            "vals must be a vec, but got: {}",
            format_dims(values.shape())
        )));
    }
    if indices.rank() == 0 || indices.shape()[0] != values.shape()[0] {
        return Err(invalid(format!(
            "indices and values rows (indexing dimension) must match. (indices = {}, values = \
             {})",
            indices.shape().first().copied().unwrap_or(0),
            values.shape()[0]
        )));
    }
    if indices.rank() != 2 {
        return Err(invalid(format!(
            "indices must be a matrix, but got: {}",
            format_dims(indices.shape())
        )));
    }
    let rank = dims.len();
    if indices.shape()[1] != rank {
        return Err(invalid("Order length must be SparseTensor rank.".into()));
    }
    let mut reduced_axes: Vec<usize> = axes
        .iter()
        .map(|&a| ((a as i64 + n) % n.max(1)) as usize)
        .collect();
    reduced_axes.sort_unstable();
    reduced_axes.dedup();
    let group_by: Vec<usize> = (0..rank).filter(|d| !reduced_axes.contains(d)).collect();
    let reorder: Vec<usize> = group_by.iter().chain(&reduced_axes).copied().collect();
    let reduced: Vec<usize> = if keep_dims {
        (0..rank)
            .map(|d| if group_by.contains(&d) { dims[d] } else { 1 })
            .collect()
    } else {
        group_by.iter().map(|&d| dims[d]).collect()
    };
    let ix = indices.as_slice::<i64>()?;
    let nnz = indices.shape()[0];
    let at = |i: usize, d: usize| ix[i * rank + d];
    let mut order: Vec<usize> = (0..nnz).collect();
    // Stable, as TensorFlow's sort is for the inputs its tests use (insertion sort below 16).
    order.sort_by(|&a, &b| {
        reorder
            .iter()
            .map(|&d| at(a, d).cmp(&at(b, d)))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let mut groups: Vec<(Vec<i64>, std::ops::Range<usize>)> = Vec::new();
    for (pos, &i) in order.iter().enumerate() {
        let key: Vec<i64> = group_by.iter().map(|&d| at(i, d)).collect();
        match groups.last_mut() {
            Some((k, r)) if *k == key => r.end = pos + 1,
            _ => groups.push((key, pos..pos + 1)),
        }
    }
    Ok(Grouped {
        group_by,
        reduced,
        groups,
        order,
    })
}

fn reduce_group<T: Real>(kind: Reduce, vals: &[T], order: &[usize]) -> T {
    let v: Vec<T> = order.iter().map(|&i| vals[i]).collect();
    match kind {
        Reduce::Sum => eigen_sum(&v),
        Reduce::Max => eigen_max(&v),
    }
}

fn dense_out<T: Real>(
    kind: Reduce,
    gr: &Grouped,
    values: &Tensor,
    shape: &[i64],
) -> Result<Tensor> {
    let vals = values.as_slice::<T>()?;
    let mut out = alloc_output(&gr.reduced, T::default(), T::DTYPE)?;
    let mut strides = vec![1i64; gr.group_by.len()];
    for d in (0..strides.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1].wrapping_mul(shape[gr.group_by[d + 1]]);
    }
    for (key, range) in &gr.groups {
        let r = reduce_group(kind, vals, &gr.order[range.clone()]);
        let idx = key
            .iter()
            .zip(&strides)
            .fold(0i64, |a, (&c, &s)| a.wrapping_add(c.wrapping_mul(s)));
        if idx < 0 || idx as u64 >= out.len() as u64 {
            return Err(Error::internal(format!(
                "Obtained a write index of {idx} which is outside of bounds of [0, {})",
                out.len()
            )));
        }
        out[idx as usize] = r;
    }
    Tensor::from_vec(&gr.reduced, out)
}

fn sparse_out<T: Real>(
    kind: Reduce,
    gr: &Grouped,
    values: &Tensor,
    keep_dims: bool,
) -> Result<[Tensor; 3]> {
    let vals = values.as_slice::<T>()?;
    let (nnz, rank) = (gr.groups.len(), gr.reduced.len());
    let mut ix = vec![0i64; nnz * rank];
    let mut out = Vec::with_capacity(nnz);
    for (i, (key, range)) in gr.groups.iter().enumerate() {
        out.push(reduce_group(kind, vals, &gr.order[range.clone()]));
        for (j, &c) in key.iter().enumerate() {
            let col = if keep_dims { gr.group_by[j] } else { j };
            ix[i * rank + col] = c;
        }
    }
    let shape: Vec<i64> = gr.reduced.iter().map(|&d| d as i64).collect();
    Ok([
        Tensor::from_vec(&[nnz, rank], ix)?,
        Tensor::from_vec(&[nnz], out)?,
        Tensor::from_vec(&[rank], shape)?,
    ])
}

struct ReduceKernel {
    kind: Reduce,
    sparse: bool,
    keep_dims: bool,
}

impl Kernel for ReduceKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let gr = group(ctx, self.keep_dims)?;
        let (values, shape) = (ctx.input(1), ctx.input(2));
        let dt = values.dtype();
        let unsupported = || invalid(format!("Cannot reduce {dt} values"));
        if self.sparse {
            let outs = weir_graph::match_real_dtype!(dt, T => sparse_out::<T>(self.kind, &gr, values, self.keep_dims)?,
                _ => return Err(unsupported()));
            for (k, t) in outs.into_iter().enumerate() {
                ctx.set_output(k, t);
            }
        } else {
            let shape = shape.to_vec::<i64>()?;
            let out = weir_graph::match_real_dtype!(dt, T => dense_out::<T>(self.kind, &gr, values, &shape)?,
                _ => return Err(unsupported()));
            ctx.set_output(0, out);
        }
        Ok(())
    }
}

/// TensorFlow's `SparseReduceShapeFn`: the reduced shape when the shape and the axes are
/// constants, else unknown.
fn dense_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let keep_dims: bool = ctx.attr("keep_dims")?;
    let (Some(shape), Some(axes)) = (ctx.input_const(2), ctx.input_const(3)) else {
        return Ok(());
    };
    let shape = shape.to_vec::<i64>()?;
    let n = shape.len() as i64;
    if n == 0 {
        return Err(invalid(format!(
            "Number of dims in shape tensor must not be 0 for '{}'",
            ctx.op_type
        )));
    }
    let axes: Vec<i64> = axes
        .as_slice::<i32>()?
        .iter()
        .map(|&a| (a as i64 + n) % n)
        .collect();
    let dim = |d: i64| usize::try_from(d).ok();
    let dims: Vec<Option<usize>> = shape
        .iter()
        .enumerate()
        .filter_map(|(d, &s)| match (axes.contains(&(d as i64)), keep_dims) {
            (false, _) => Some(dim(s)),
            (true, true) => Some(Some(1)),
            (true, false) => None,
        })
        .collect();
    ctx.set_output(0, Shape::new(dims));
    Ok(())
}

pub(super) fn register() {
    let ops = [
        ("SparseReduceSum", false),
        ("SparseReduceMax", false),
        ("SparseReduceSumSparse", true),
        ("SparseReduceMaxSparse", true),
    ];
    for (name, sparse) in ops {
        let mut def = OpDef::new(name)
            .input("input_indices", ArgType::Fixed(DType::I64))
            .input("input_values", ArgType::Attr("T"))
            .input("input_shape", ArgType::Fixed(DType::I64))
            .input("reduction_axes", ArgType::Fixed(DType::I32))
            .attr("keep_dims", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .type_attr("T", DType::REAL_NUMBER);
        def = if sparse {
            def.output("output_indices", ArgType::Fixed(DType::I64))
                .output("output_values", ArgType::Attr("T"))
                .output("output_shape", ArgType::Fixed(DType::I64))
                .shape_fn(|_| Ok(()))
        } else {
            def.output("output", ArgType::Attr("T"))
                .shape_fn(dense_shape_fn)
        };
        register_op(def);
        register_kernel(name, |node| {
            let t = node.op_type();
            Ok(Box::new(ReduceKernel {
                kind: if t.contains("Max") {
                    Reduce::Max
                } else {
                    Reduce::Sum
                },
                sparse: t.ends_with("Sparse"),
                keep_dims: node.attr("keep_dims")?,
            }))
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::constant;
    use weir_graph::Graph;
    use weir_session::Session;

    fn sp(g: &Graph) -> SparseOutput {
        // [[1, 0, -2], [0, 0, 0], [0, -3, 0]], unsorted.
        SparseOutput::new(
            constant(
                g,
                Tensor::from_vec(&[3, 2], vec![2i64, 1, 0, 2, 0, 0]).unwrap(),
            )
            .unwrap(),
            constant(g, vec![-3.0f32, -2.0, 1.0]).unwrap(),
            constant(g, vec![3i64, 3]).unwrap(),
        )
        .unwrap()
    }

    #[test]
    fn dense_reductions_over_rows_columns_and_all() {
        let g = Graph::new();
        let s = sp(&g);
        let rows = sparse_reduce_sum(&s, Some(&[1]), false).unwrap();
        let cols = sparse_reduce_max(&s, Some(&[-2]), true).unwrap();
        let all = sparse_reduce_sum(&s, None, false).unwrap();
        assert_eq!(rows.shape(), Shape::known(&[3]));
        assert_eq!(cols.shape(), Shape::known(&[1, 3]));
        let sess = Session::new(&g).unwrap();
        assert_eq!(
            sess.eval(&rows).unwrap().to_vec::<f32>().unwrap(),
            [-1.0, 0.0, -3.0]
        );
        assert_eq!(
            sess.eval(&cols).unwrap().to_vec::<f32>().unwrap(),
            [1.0, -3.0, -2.0]
        );
        assert_eq!(sess.eval(&all).unwrap().to_vec::<f32>().unwrap(), [-4.0]);
    }

    #[test]
    fn sparse_reductions_list_only_groups_with_values() {
        let g = Graph::new();
        let out = sparse_reduce_max_sparse(&sp(&g), Some(&[1]), true).unwrap();
        let got = Session::new(&g).unwrap().run(
            &weir_session::RunArgs::new()
                .fetch(&out.indices)
                .fetch(&out.values)
                .fetch(&out.dense_shape),
        );
        let got = got.unwrap();
        assert_eq!(got[0].to_vec::<i64>().unwrap(), [0, 0, 2, 0]);
        assert_eq!(got[1].to_vec::<f32>().unwrap(), [1.0, -3.0]);
        assert_eq!(got[2].to_vec::<i64>().unwrap(), [3, 1]);
    }

    #[test]
    fn no_axis_with_an_unknown_rank_reduces_everything() {
        let g = Graph::new();
        let shape = crate::array::placeholder(&g, DType::I64, Shape::unknown()).unwrap();
        let s = SparseOutput {
            dense_shape: shape.clone(),
            ..sp(&g)
        };
        let all = sparse_reduce_sum(&s, None, true).unwrap();
        let got = Session::new(&g)
            .unwrap()
            .run(
                &weir_session::RunArgs::new()
                    .feed(&shape, Tensor::from(vec![3i64, 3]))
                    .fetch(&all),
            )
            .unwrap();
        assert_eq!(got[0].shape(), [1, 1]);
        assert_eq!(got[0].to_vec::<f32>().unwrap(), [-4.0]);
    }

    #[test]
    fn bad_axes_and_shapes_are_errors() {
        let g = Graph::new();
        let y = sparse_reduce_sum(&sp(&g), Some(&[2]), false).unwrap();
        let e = Session::new(&g).unwrap().eval(&y).unwrap_err();
        assert!(e
            .message()
            .starts_with("Invalid reduction dimension 2, for input with 2"));
        let g = Graph::new();
        let s = SparseOutput::new(
            constant(&g, Tensor::from_vec(&[1, 2], vec![0i64, 0]).unwrap()).unwrap(),
            constant(&g, vec![1.0f32]).unwrap(),
            constant(&g, vec![i64::MAX, i64::MAX]).unwrap(),
        )
        .unwrap();
        let y = sparse_reduce_sum(&s, Some(&[0]), false).unwrap();
        assert!(Session::new(&g).unwrap().eval(&y).is_err());
    }
}
