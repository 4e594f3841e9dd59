//! `tf.sparse.retain`: the entries of a sparse tensor a mask keeps.

use weir_graph::{Output, Result};

use super::checks::{assert_compatible, assert_has_rank};
use super::SparseOutput;
use crate::array::{gather, identity, reshape, where_indices};

/// `tf.sparse.retain(sp_input, to_retain)`: the entries `i` of `sp` where the vector
/// `to_retain[i]` is true (non-zero), in order, with the same dense shape. Built as TensorFlow's
/// Python builds it (`Where`, `Reshape`, `GatherV2`), so a longer mask that keeps a missing
/// entry fails the run as `GatherV2` does; a mask of another static rank or length fails here.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, sparse::{sparse_retain, SparseOutput}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let sp = SparseOutput::new(
///     constant(&g, Tensor::from_vec(&[2, 1], vec![0i64, 3])?)?,
///     constant(&g, vec![1i32, 2])?,
///     constant(&g, vec![5i64])?,
/// )?;
/// let kept = sparse_retain(&sp, constant(&g, [false, true])?)?;
/// assert_eq!(Session::new(&g)?.eval(&kept.values)?.to_vec::<i32>()?, [2]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn sparse_retain(sp: &SparseOutput, to_retain: impl Into<Output>) -> Result<SparseOutput> {
    let keep = to_retain.into();
    crate::util::same_graph(&[&sp.indices, &keep])?;
    let retain_shape = keep.shape();
    assert_has_rank(&retain_shape, 1)?;
    if sp.values.shape().rank().is_some() {
        assert_compatible(sp.values.shape().dim(0), retain_shape.dim(0))?;
    }
    let where_true = reshape(where_indices(&keep)?, [-1i64])?;
    let new_indices = gather(&sp.indices, &where_true, 0)?;
    let new_values = gather(&sp.values, &where_true, 0)?;
    SparseOutput::new(new_indices, new_values, identity(&sp.dense_shape)?)
}
