//! `tf.sparse.transpose`: a sparse tensor with its dimensions permuted.

use weir_graph::{Result, Tensor};

use super::checks::const_ints;
use super::{sparse_reorder, SparseOutput};
use crate::array::{constant, gather, transpose};

/// `tf.sparse.transpose(sp_input, perm=None)`: `sp` with dimension `i` of the result being
/// `perm[i]` of the input (all dims reversed when `perm` is `None`), its entries reordered to
/// row-major order (`SparseReorder`). Built as TensorFlow's Python builds it: the indices'
/// columns and the dense shape are gathered by `perm`, so an index of `perm` outside the rank
/// fails the run as `GatherV2` does.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, sparse::{sparse_transpose, SparseOutput}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let sp = SparseOutput::new(
///     constant(&g, Tensor::from_vec(&[2, 2], vec![0i64, 2, 1, 0])?)?,
///     constant(&g, vec![1i32, 2])?,
///     constant(&g, vec![2i64, 3])?,
/// )?;
/// let t = sparse_transpose(&sp, None)?;
/// let sess = Session::new(&g)?;
/// assert_eq!(sess.eval(&t.indices)?.to_vec::<i64>()?, [0, 1, 2, 0]);
/// assert_eq!(sess.eval(&t.dense_shape)?.to_vec::<i64>()?, [3, 2]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn sparse_transpose(sp: &SparseOutput, perm: Option<&[i64]>) -> Result<SparseOutput> {
    let g = sp.graph().clone();
    let _scope = g.name_scope("SparseTranspose");
    let rank = sp.dense_shape.shape().dim(0);
    let perm_vals: Option<Vec<i64>> = match (perm, rank) {
        (Some(p), _) => Some(p.to_vec()),
        (None, Some(r)) => Some((0..r as i64).rev().collect()),
        (None, None) => None,
    };
    let perm_t = match &perm_vals {
        Some(p) => constant(&g, Tensor::from(p.clone()))?,
        None => {
            // rank - 1 - range(rank), computed in the graph.
            let _s = g.name_scope("perm");
            let r = crate::array::size(&sp.dense_shape)?;
            let one = constant(&g, 1i32)?;
            let zero = constant(&g, 0i32)?;
            let last = crate::math::sub(&r, &one)?;
            crate::math::sub(&last, crate::math::range_from(&zero, &r, &one)?)?
        }
    };
    let indices = transpose(
        gather(transpose(&sp.indices, [1i64, 0])?, &perm_t, 0)?,
        [1i64, 0],
    )?;
    // A constant dense shape is permuted here, as TensorFlow's Python does.
    let old = const_ints(&sp.dense_shape).filter(|s| s.iter().all(|&d| d >= 0));
    let dense_shape = match (&perm_vals, old) {
        (Some(p), Some(old)) if p.iter().all(|&i| i >= 0 && (i as usize) < old.len()) => {
            let mut new = old.clone();
            for (i, &q) in p.iter().enumerate().take(new.len()) {
                new[i] = old[q as usize];
            }
            constant(&g, Tensor::from(new))?
        }
        _ => gather(&sp.dense_shape, &perm_t, 0)?,
    };
    let permuted = SparseOutput::new(indices, sp.values.clone(), dense_shape)?;
    sparse_reorder(&permuted)
}
