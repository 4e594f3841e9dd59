//! `tf.sparse.to_indicator`: a sparse tensor of ids as a dense bool indicator.

use weir_graph::{DType, Result};

use super::to_dense::SparseToDense;
use super::{sparse_reorder, SparseOutput};
use crate::array::{concat, constant, expand_dims, fill, shape_typed, StridedSlice};

/// `tf.sparse.to_indicator(sp_input, vocab_size)`: for ids `sp` of shape
/// `[D0, ..., Dn, K]` (int32 or int64 values; floats are cast), the bool dense
/// `[D0, ..., Dn, vocab_size]` tensor that is true at `[d0, ..., dn, id]` for every id of row
/// `[d0, ..., dn]` (repeats allowed). Built as TensorFlow's Python builds it (`Cast`,
/// `ConcatV2`, `SparseReorder`, `SparseToDense` without index validation), so an id outside
/// `[0, vocab_size)` fails the run as `SparseToDense` does.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, sparse::{sparse_to_indicator, SparseOutput}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let ids = SparseOutput::new(
///     constant(&g, Tensor::from_vec(&[2, 2], vec![0i64, 0, 1, 0])?)?,
///     constant(&g, vec![2i64, 0])?,
///     constant(&g, vec![2i64, 1])?,
/// )?;
/// let hot = sparse_to_indicator(&ids, 3)?;
/// let v = Session::new(&g)?.eval(&hot)?.to_vec::<bool>()?;
/// assert_eq!(v, [false, false, true, true, false, false]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn sparse_to_indicator(sp: &SparseOutput, vocab_size: i64) -> Result<weir_graph::Output> {
    let g = sp.graph().clone();
    let _scope = g.name_scope("SparseToIndicator");
    let num_entries = StridedSlice::new().shrink_axis_mask(1).build(
        shape_typed(&sp.indices, DType::I32)?,
        &[0],
        &[1],
        &[1],
    )?;
    let new_values = fill(expand_dims(&num_entries, 0)?, &constant(&g, true)?)?;
    let _merge = g.name_scope("SparseMerge");
    let ids = if sp.dtype() == DType::I64 {
        sp.values.clone()
    } else {
        crate::math::cast(&sp.values, DType::I64)?
    };
    let ids = expand_dims(&ids, 1)?;
    // Python converts the size to int32 when it fits, then casts it.
    let vocab = match i32::try_from(vocab_size) {
        Ok(v) => crate::math::cast(constant(&g, v)?, DType::I64)?,
        Err(_) => constant(&g, vocab_size)?,
    };
    let preserved = StridedSlice::new().begin_mask(1).end_mask(1).build(
        &sp.indices,
        &[0, 0],
        &[0, -1],
        &[1, 1],
    )?;
    let new_indices = concat(&[preserved, ids], 1)?;
    let outer = StridedSlice::new()
        .begin_mask(1)
        .build(&sp.dense_shape, &[0], &[-1], &[1])?;
    let new_shape = concat(&[outer, crate::array::stack(&[vocab], 0)?], 0)?;
    let merged = SparseOutput::new(new_indices, new_values, new_shape.clone())?;
    let sorted = sparse_reorder(&merged)?;
    drop(_merge);
    SparseToDense::new().validate_indices(false).build(
        &sorted.indices,
        &new_shape,
        &sorted.values,
        constant(&g, false)?,
    )
}
