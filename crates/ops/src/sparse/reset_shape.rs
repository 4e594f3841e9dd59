//! `tf.sparse.reset_shape`: a sparse tensor with a new (tight or larger) dense shape.

use weir_graph::{DType, Error, Result, Tensor};

use super::checks::{assert_compatible, assert_has_rank, const_ints, sparse_tensor_checks};
use super::SparseOutput;
use crate::array::{constant, identity, ones_like, IndexArg};
use crate::control_flow::{assert_greater_equal, assert_less_equal, with_dependencies};

/// `tf.sparse.reset_shape(sp_input, new_shape=None)`: `sp` with the same entries and dense
/// shape `new_shape` (an int vector of the same rank, no dim smaller than `sp`'s), or, when
/// `None`, the tight shape `max(indices) + 1` per dim (0 for no entries). Built as TensorFlow's
/// Python builds it: a constant `new_shape` is checked against a constant dense shape here,
/// otherwise by `Assert` ops when the run fetches the shape.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, sparse::{sparse_reset_shape, SparseOutput}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let sp = SparseOutput::new(
///     constant(&g, Tensor::from_vec(&[2, 2], vec![0i64, 2, 1, 0])?)?,
///     constant(&g, vec![1i32, 2])?,
///     constant(&g, vec![9i64, 9])?,
/// )?;
/// let tight = sparse_reset_shape(&sp, None)?;
/// assert_eq!(Session::new(&g)?.eval(&tight.dense_shape)?.to_vec::<i64>()?, [2, 3]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn sparse_reset_shape(sp: &SparseOutput, new_shape: Option<IndexArg>) -> Result<SparseOutput> {
    let g = sp.graph().clone();
    let in_indices = identity(&sp.indices)?;
    let in_values = identity(&sp.values)?;
    let in_shape = identity(&sp.dense_shape)?;
    let Some(new_shape) = new_shape else {
        let low = crate::math::Reduce::max().axis(0).build(&in_indices)?;
        let tight = crate::math::add(&low, ones_like(&in_shape)?)?;
        let out = crate::math::maximum(constant(&g, 0i64)?, tight)?;
        return SparseOutput::new(in_indices, in_values, out);
    };
    let given = new_shape.to_output(&g)?;
    assert_has_rank(&given.shape(), 1)?;
    let out = if given.dtype() == DType::I64 {
        given
    } else {
        crate::math::cast(&given, DType::I64)?
    };
    if out.shape().rank().is_some() {
        assert_compatible(out.shape().dim(0), in_shape.shape().dim(0))?;
    }
    let in_const = const_ints(&sp.dense_shape).filter(|s| s.iter().all(|&d| d >= 0));
    if let (Some(new), Some(old)) = (const_ints(&out), in_const) {
        if old.len() == new.len() && old.iter().zip(&new).any(|(a, b)| a > b) {
            return Err(Error::invalid_argument(format!(
                "Requested new_shape should have dimension sizes >= sp_input.shape.  Found new_shape ({}), sp_input.shape ({}).",
                np_vec(&old),
                np_vec(&new)
            )));
        }
        let fixed = constant(&g, Tensor::from(new))?;
        let result = SparseOutput::new(in_indices, in_values, fixed)?;
        sparse_tensor_checks(&result)?;
        return Ok(result);
    }
    // The lengths must agree and no dim may shrink, checked when the run fetches the shape.
    let (len_in, len_out) = (crate::array::shape(&in_shape)?, crate::array::shape(&out)?);
    let same_len = [
        assert_less_equal(&len_in, &len_out, None)?,
        assert_greater_equal(&len_in, &len_out, None)?,
    ];
    let out = with_dependencies(&same_len, &out)?;
    let no_shrink = assert_less_equal(&in_shape, &out, None)?;
    let out = with_dependencies(&[no_shrink], &out)?;
    let result = SparseOutput::new(in_indices, in_values, out)?;
    sparse_tensor_checks(&result)?;
    Ok(result)
}

/// A vector as numpy prints it (`[5 4]`).
fn np_vec(v: &[i64]) -> String {
    let parts: Vec<String> = v.iter().map(|d| d.to_string()).collect();
    format!("[{}]", parts.join(" "))
}
