//! `tf.sparse.reorder` (op `SparseReorder`): a sparse tensor's entries in row-major order.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Result, Tensor, TensorType,
};

use super::SparseOutput;

/// `tf.sparse.reorder(sp)`: the same sparse tensor with its entries sorted by their indices in
/// row-major order; entries with equal indices keep their order (as TensorFlow's stable sort
/// does).
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, sparse::{sparse_reorder, SparseOutput}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let sp = SparseOutput::new(
///     constant(&g, Tensor::from_vec(&[2, 2], vec![1i64, 0, 0, 2])?)?,
///     constant(&g, vec![1.0f32, 2.0])?,
///     constant(&g, vec![2i64, 3])?,
/// )?;
/// let sorted = sparse_reorder(&sp)?;
/// assert_eq!(Session::new(&g)?.eval(&sorted.values)?.to_vec::<f32>()?, [2.0, 1.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn sparse_reorder(sp: &SparseOutput) -> Result<SparseOutput> {
    let op = crate::new_op(sp.graph(), "SparseReorder")
        .input(&sp.indices)
        .input(&sp.values)
        .input(&sp.dense_shape)
        .build()?;
    SparseOutput::new(op.output(0)?, op.output(1)?, sp.dense_shape.clone())
}

fn reorder_values<T: TensorType + Clone>(values: &Tensor, order: &[usize]) -> Result<Tensor> {
    let v = values.as_slice::<T>()?;
    Tensor::from_vec(
        &[order.len()],
        order.iter().map(|&i| v[i].clone()).collect(),
    )
}

/// The positions of the `n` rows of `ix` (`rank` wide) in row-major order; equal indices keep
/// their order (as TensorFlow's stable sort does).
pub(super) fn row_major_order(ix: &[i64], n: usize, rank: usize) -> Vec<usize> {
    let row = |i: usize| &ix[i * rank..(i + 1) * rank];
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| row(a).cmp(row(b)));
    order
}

struct ReorderKernel;

impl Kernel for ReorderKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (indices, values, shape) = (ctx.input(0), ctx.input(1), ctx.input(2));
        if indices.rank() != 2 {
            return Err(Error::invalid_argument(format!(
                "Sparse indices must be rank 2 but is rank {}",
                indices.rank()
            )));
        }
        let (n, rank) = (indices.shape()[0], indices.shape()[1]);
        if values.num_elements() != n {
            return Err(Error::invalid_argument(format!(
                "Number of elements in indices ({n}) and values ({}) do not match",
                values.num_elements()
            )));
        }
        if shape.num_elements() != rank {
            return Err(Error::invalid_argument(format!(
                "Index rank ({rank}) and shape rank ({}) do not match",
                shape.num_elements()
            )));
        }
        let ix = indices.as_slice::<i64>()?;
        let row = |i: usize| &ix[i * rank..(i + 1) * rank];
        let order = row_major_order(ix, n, rank);
        let sorted: Vec<i64> = order.iter().flat_map(|&i| row(i).iter().copied()).collect();
        let dt = values.dtype();
        let out_values = weir_graph::match_data_dtype!(dt, T => reorder_values::<T>(values, &order)?,
            _ => return Err(Error::invalid_argument(format!("Cannot reorder {dt} values"))));
        ctx.set_output(0, Tensor::from_vec(&[n, rank], sorted)?);
        ctx.set_output(1, out_values);
        Ok(())
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    // TensorFlow's shape function: ranks 2, 1 and 1, and the shapes of indices and values.
    let (ix, v) = (ctx.with_rank(0, 2)?, ctx.with_rank(1, 1)?);
    ctx.with_rank(2, 1)?;
    ctx.set_output(0, ix);
    ctx.set_output(1, v);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("SparseReorder")
            .input("input_indices", ArgType::Fixed(DType::I64))
            .input("input_values", ArgType::Attr("T"))
            .input("input_shape", ArgType::Fixed(DType::I64))
            .output("output_indices", ArgType::Fixed(DType::I64))
            .output("output_values", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .shape_fn(shape_fn),
    );
    register_kernel("SparseReorder", |_| Ok(Box::new(ReorderKernel)));
}
