//! `RaggedTensorToSparse`: `RaggedTensor.to_sparse()`, the sparse tensor with one entry per
//! value of a ragged tensor.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef, Result, Shape, Tensor,
};

use super::checks::{bounded, ints, set_type_default};
use super::RaggedOutput;
use crate::sparse::SparseOutput;

/// `rt.to_sparse()` (op `RaggedTensorToSparse`): the sparse tensor holding `rt`'s values at
/// their coordinates, its dense shape the bounding box (each ragged dimension as long as its
/// longest row).
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, ragged::{ragged_tensor_to_sparse, RaggedOutput}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let rt = RaggedOutput::from_nested_row_splits(
///     constant(&g, [1, 2, 3])?,
///     vec![constant(&g, [0i64, 2, 3])?],
/// )?; // [[1, 2], [3]]
/// let sp = ragged_tensor_to_sparse(&rt)?;
/// let sess = Session::new(&g)?;
/// assert_eq!(sess.eval(&sp.indices)?.to_vec::<i64>()?, [0, 0, 0, 1, 1, 0]);
/// assert_eq!(sess.eval(&sp.dense_shape)?.to_vec::<i64>()?, [2, 2]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn ragged_tensor_to_sparse(rt: &RaggedOutput) -> Result<SparseOutput> {
    let g = rt.graph().clone();
    let _scope = g.name_scope("RaggedToSparse");
    let op = crate::new_op(&g, "RaggedTensorToSparse")
        .inputs(rt.nested_row_splits.iter().cloned())
        .input(&rt.flat_values)
        .attr("RAGGED_RANK", rt.ragged_rank() as i64)
        .build()?;
    SparseOutput::from_op(&op)
}

fn validate(splits: &[Vec<i64>], nvals: i64) -> Result<()> {
    let bad = |m: String| Err(Error::invalid_argument(m));
    let mended = "Final value of ragged splits must match the length the corresponding ragged \
                  values.";
    for (i, s) in splits.iter().enumerate() {
        let Some(&first) = s.first() else {
            return bad("ragged splits may not be empty.".to_string());
        };
        if first != 0 {
            return bad("First value of ragged splits must be 0.".to_string());
        }
        if let Some(w) = s.windows(2).find(|w| w[1] < w[0]) {
            return bad(format!(
                "Ragged splits should be non decreasing, but we got {} followed by {}",
                w[0], w[1]
            ));
        }
        if i > 0 && s.len() as i64 != splits[i - 1].last().copied().unwrap_or(0) + 1 {
            return bad(mended.to_string());
        }
    }
    if splits.last().and_then(|s| s.last()).copied() != Some(nvals) {
        return bad(mended.to_string());
    }
    Ok(())
}

/// The sparse indices (row-major, `ndims` per value) of every value of a validated ragged
/// tensor whose flat values have `inner` scalars each, laid out as `inner_dims`.
fn sparse_indices(splits: &[Vec<i64>], inner_dims: &[usize]) -> Vec<i64> {
    let inner: usize = inner_dims.iter().product();
    let ndims = splits.len() + 1 + inner_dims.len();
    let nvals = splits.last().and_then(|s| s.last()).copied().unwrap_or(0) as usize;
    let mut out = Vec::with_capacity(nvals * inner * ndims);
    // Walk the tree of rows depth first: `prefix` holds the coordinate in each ragged dim.
    fn walk(
        splits: &[Vec<i64>],
        dim: usize,
        range: (i64, i64),
        prefix: &mut Vec<i64>,
        inner_dims: &[usize],
        out: &mut Vec<i64>,
    ) {
        for (k, row) in (range.0..range.1).enumerate() {
            prefix.push(k as i64);
            if dim == splits.len() {
                let inner: usize = inner_dims.iter().product();
                for flat in 0..inner {
                    out.extend_from_slice(prefix);
                    let mut rest = flat;
                    let start = out.len();
                    for &d in inner_dims.iter().rev() {
                        out.push((rest % d) as i64);
                        rest /= d;
                    }
                    out[start..].reverse();
                }
            } else {
                let s = &splits[dim];
                let r = (s[row as usize], s[row as usize + 1]);
                walk(splits, dim + 1, r, prefix, inner_dims, out);
            }
            prefix.pop();
        }
    }
    let rows = splits[0].len() as i64 - 1;
    walk(splits, 0, (0, rows), &mut Vec::new(), inner_dims, &mut out);
    out
}

struct ToSparseKernel {
    ragged_rank: usize,
}

impl Kernel for ToSparseKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let n = self.ragged_rank;
        let splits: Vec<Vec<i64>> = (0..n).map(|i| ints(ctx.input(i))).collect::<Result<_>>()?;
        let values = ctx.input(n).clone();
        if values.rank() == 0 {
            return Err(Error::invalid_argument(
                "rt_dense_values must have rank at least 1",
            ));
        }
        validate(&splits, values.shape()[0] as i64)?;
        let inner_dims = &values.shape()[1..];
        let ndims = n + values.rank();
        let nvals = values.num_elements();
        bounded(
            (nvals as i64).saturating_mul(ndims as i64),
            DType::I64,
            &[nvals, ndims],
        )?;
        let indices = sparse_indices(&splits, inner_dims);
        let mut shape = vec![splits[0].len() as i64 - 1];
        for s in &splits {
            shape.push(s.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0));
        }
        shape.extend(inner_dims.iter().map(|&d| d as i64));
        ctx.set_output(0, Tensor::from_vec(&[nvals, ndims], indices)?);
        ctx.set_output(1, values.reshape(&[nvals])?);
        ctx.set_output(2, Tensor::from_vec(&[ndims], shape)?);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(ToSparseKernel {
        ragged_rank: node.attr::<i64>("RAGGED_RANK")?.max(1) as usize,
    }))
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let n = ctx.attr::<i64>("RAGGED_RANK")? as usize;
    for i in 0..n {
        ctx.with_rank(i, 1)?;
    }
    let values = ctx.input_shape(n).clone();
    let ndims = values.rank().map(|r| r + n);
    ctx.set_output(0, Shape::new(vec![None, ndims]));
    ctx.set_output(1, Shape::new(vec![None]));
    ctx.set_output(2, Shape::new(vec![ndims]));
    Ok(())
}

pub(super) fn register() {
    let mut def = OpDef::new("RaggedTensorToSparse")
        .input(
            "rt_nested_splits",
            ArgType::Repeated {
                count: "RAGGED_RANK",
                ty: "Tsplits",
            },
        )
        .input("rt_dense_values", ArgType::Attr("T"))
        .output("sparse_indices", ArgType::Fixed(DType::I64))
        .output("sparse_values", ArgType::Attr("T"))
        .output("sparse_dense_shape", ArgType::Fixed(DType::I64))
        .int_attr_min("RAGGED_RANK", 1)
        .type_attr("T", DType::ALL_DATA)
        .type_attr("Tsplits", &[DType::I32, DType::I64])
        .shape_fn(shape_fn);
    set_type_default(&mut def, "Tsplits", DType::I64);
    register_op(def);
    register_kernel("RaggedTensorToSparse", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexes_nested_rows_and_inner_dims() {
        let splits = vec![vec![0, 2, 2], vec![0, 1, 2]];
        assert_eq!(sparse_indices(&splits, &[]), vec![0, 0, 0, 0, 1, 0]);
        assert_eq!(sparse_indices(&[vec![0, 1]], &[2]), vec![0, 0, 0, 0, 0, 1]);
    }
}
