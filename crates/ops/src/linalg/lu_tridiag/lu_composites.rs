//! `tf.linalg.lu_solve`, `tf.linalg.lu_matrix_inverse` and `tf.linalg.lu_reconstruct`: the
//! Python functions over [`lu`](super::lu)'s packed factors, built from the same ops
//! (`validate_args=False`: only the static checks, as ValueErrors' messages).

use weir_graph::{DType, Error, Graph, Output, Result};

use crate::array::{
    broadcast_dynamic_shape, broadcast_to, concat, constant, fill, gather, gather_nd, reshape,
    scatter_nd, shape, stack, ArrayExt, NEW_AXIS,
};
use crate::linalg::{matrix_band_part, matrix_diag, matrix_set_diag, matrix_triangular_solve};
use crate::math::{cast, matmul, range_from, reduce_prod};
use crate::s;

/// `broadcast_dynamic_shape` of two static shapes, with `BroadcastArgs`' message.
fn broadcast_static(a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let n = a.len().max(b.len());
    let at = |s: &[usize], i: usize| {
        if i + s.len() >= n {
            s[i + s.len() - n]
        } else {
            1
        }
    };
    (0..n)
        .map(|i| match (at(a, i), at(b, i)) {
            (x, y) if x == y || y == 1 => Ok(x),
            (1, y) => Ok(y),
            _ => Err(Error::invalid_argument(format!(
                "Incompatible shapes: [{}] vs. [{}]",
                a.iter()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
                b.iter()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            ))),
        })
        .collect()
}

/// `math_ops.range(limit)` of a scalar int32 tensor.
fn range_to(g: &Graph, limit: &Output) -> Result<Output> {
    let (start, delta) = (constant(g, 0i32)?, constant(g, 1i32)?);
    range_from(&start, limit, &delta)
}

fn rank(x: &Output) -> Option<usize> {
    x.shape().rank()
}

/// `lu_reconstruct_assertions` with `validate_args=False`.
fn check_lu(lu: &Output, perm: &Output) -> Result<()> {
    let s = lu.shape();
    if rank(lu).is_some_and(|r| r < 2) {
        return Err(Error::invalid_argument(
            "Input `lower_upper` must have at least 2 dimensions.",
        ));
    }
    if let (Some(a), Some(b)) = (rank(lu), rank(perm)) {
        if a != b + 1 {
            return Err(Error::invalid_argument(
                "`rank(lower_upper)` must equal `rank(perm) + 1`",
            ));
        }
    }
    if let Some(d) = s.dims() {
        let r = d.len();
        if d[..r - 2].iter().all(Option::is_some) {
            if let (Some(m), Some(n)) = (d[r - 2], d[r - 1]) {
                if m != n {
                    return Err(Error::invalid_argument("`lower_upper` must be square."));
                }
            }
        }
    }
    Ok(())
}

/// `set_diag(band_part(lu, -1, 0), ones(shape(lu)[:-1]))`: the unit lower factor.
fn unit_lower(lu: &Output) -> Result<Output> {
    let g = lu.graph().clone();
    let band = matrix_band_part(lu, constant(&g, -1i64)?, constant(&g, 0i64)?)?;
    let one = constant(&g, weir_graph::scalar_of(lu.dtype(), 1.0)?)?;
    let ones = match lu.shape().to_known() {
        Some(d) => fill(
            d[..d.len() - 1]
                .iter()
                .map(|&v| v as i64)
                .collect::<Vec<_>>(),
            &one,
        )?,
        None => fill(shape(lu)?.at(s![..-1])?, &one)?,
    };
    matrix_set_diag(band, ones)
}

/// `tf.linalg.lu_solve(lower_upper, perm, rhs)`: `X` with `A X = rhs` for the `A` whose LU
/// factors `tf.linalg.lu` gave; batch dimensions of `rhs` and `perm` broadcast.
pub fn lu_solve(
    lower_upper: impl Into<Output>,
    perm: impl Into<Output>,
    rhs: impl Into<Output>,
) -> Result<Output> {
    let (lu, p, rhs) = (lower_upper.into(), perm.into(), rhs.into());
    let g = crate::util::same_graph(&[&lu, &p, &rhs])?.clone();
    let _scope = g.name_scope("lu_solve");
    check_lu(&lu, &p)?;
    if rank(&rhs).is_some_and(|r| r < 2) {
        return Err(Error::invalid_argument(
            "Input `rhs` must have at least 2 dimensions.",
        ));
    }
    if let (Some(m), Some(d)) = (lu.shape().dim(-1), rhs.shape().dim(-2)) {
        if m != d {
            return Err(Error::invalid_argument(
                "`lower_upper.shape[-1]` must equal `rhs.shape[-1]`.",
            ));
        }
    }
    let permuted = if rank(&rhs) == Some(2) && rank(&p) == Some(1) {
        // TensorFlow's `axis=-2`, which for a matrix is axis 0 (weir differentiates `GatherV2`
        // only on axis 0 as written).
        gather(&rhs, &p, 0)?
    } else if let (Some(rs), Some(ps)) = (rhs.shape().to_known(), p.shape().to_known()) {
        // TensorFlow's shape inference evaluates the shape arithmetic below when the shapes
        // are static; weir's does not, so those shapes are worked out here.
        let (r, q) = (rs.len(), ps.len());
        let batch = broadcast_static(&rs[..r - 2], &ps[..q - 1])?;
        let size: usize = batch.iter().product();
        let (d, m) = (rs[r - 2], rs[r - 1]);
        let full: Vec<i64> = batch.iter().chain(&[d, m]).map(|&v| v as i64).collect();
        let b_rhs = reshape(
            broadcast_to(&rhs, constant(&g, full.clone())?)?,
            vec![-1i64, d as i64, m as i64],
        )?;
        let b_perm = reshape(
            broadcast_to(&p, constant(&g, full[..full.len() - 1].to_vec())?)?,
            vec![-1i64, d as i64],
        )?;
        let idx = range_to(&g, &constant(&g, size as i32)?)?.at(s![.., NEW_AXIS])?;
        let idx = broadcast_to(idx, constant(&g, vec![size as i32, d as i32])?)?;
        let nd = stack(&[idx, cast(b_perm, DType::I32)?], -1)?;
        reshape(gather_nd(b_rhs, nd)?, full)?
    } else {
        let rhs_shape = shape(&rhs)?;
        let batch = broadcast_dynamic_shape(rhs_shape.at(s![..-2])?, shape(&p)?.at(s![..-1])?)?;
        let (d, m) = (rhs_shape.at(s![-2])?, rhs_shape.at(s![-1])?);
        let full = concat(&[batch.clone(), stack(&[d.clone(), m.clone()], 0)?], 0)?;
        let minus1 = constant(&g, -1i32)?;
        let b_rhs = reshape(
            broadcast_to(&rhs, &full)?,
            &stack(&[minus1.clone(), d.clone(), m], 0)?,
        )?;
        let b_perm = reshape(
            broadcast_to(&p, full.at(s![..-1])?)?,
            &stack(&[minus1, d.clone()], 0)?,
        )?;
        let size = reduce_prod(&batch, 0i64)?;
        let idx = range_to(&g, &size)?.at(s![.., NEW_AXIS])?;
        let idx = broadcast_to(idx, &stack(&[size, d], 0)?)?;
        let nd = stack(&[idx, cast(b_perm, DType::I32)?], -1)?;
        reshape(gather_nd(b_rhs, nd)?, &full)?
    };
    let lower = unit_lower(&lu)?;
    let y = matrix_triangular_solve(lower, permuted, true, false)?;
    matrix_triangular_solve(&lu, y, false, false)
}

/// `tf.linalg.lu_matrix_inverse(lower_upper, perm)`: the inverse of the `A` whose LU factors
/// `tf.linalg.lu` gave, as `lu_solve` against `eye`.
pub fn lu_matrix_inverse(
    lower_upper: impl Into<Output>,
    perm: impl Into<Output>,
) -> Result<Output> {
    let (lu, p) = (lower_upper.into(), perm.into());
    let g = crate::util::same_graph(&[&lu, &p])?.clone();
    let _scope = g.name_scope("lu_matrix_inverse");
    check_lu(&lu, &p)?;
    // `eye(shape[-1], batch_shape=shape[:-2])`: a diagonal of ones.
    let diag_shape = match lu.shape().to_known() {
        Some(d) => constant(
            &g,
            d[..d.len() - 1]
                .iter()
                .map(|&v| v as i32)
                .collect::<Vec<_>>(),
        )?,
        None => {
            let s = shape(&lu)?;
            concat(&[s.at(s![..-2])?, s.at(s![-1..])?], 0)?
        }
    };
    let one = constant(&g, weir_graph::scalar_of(lu.dtype(), 1.0)?)?;
    let eye = matrix_diag(fill(diag_shape, &one)?)?;
    lu_solve(lu, p, eye)
}

/// `tf.linalg.lu_reconstruct(lower_upper, perm)`: the matrix `A` whose LU factors `tf.linalg.lu`
/// gave, `L U` with its rows put back by `perm`.
///
/// For batches TensorFlow inverts each permutation with `map_fn` and gathers; weir scatters the
/// rows to `perm` with one `ScatterNd`, which moves the same values.
pub fn lu_reconstruct(lower_upper: impl Into<Output>, perm: impl Into<Output>) -> Result<Output> {
    let (lu, p) = (lower_upper.into(), perm.into());
    let g = crate::util::same_graph(&[&lu, &p])?.clone();
    let _scope = g.name_scope("lu_reconstruct");
    check_lu(&lu, &p)?;
    let s = shape(&lu)?;
    let lower = unit_lower(&lu)?;
    let upper = matrix_band_part(&lu, constant(&g, 0i64)?, constant(&g, -1i64)?)?;
    let x = matmul(lower, upper)?;
    if rank(&lu) == Some(2) {
        return gather(x, crate::array::invert_permutation(&p)?, 0);
    }
    let size = reduce_prod(s.at(s![..-2])?, 0i64)?;
    let d = s.at(s![-1])?;
    let x = reshape(x, &stack(&[size.clone(), d.clone(), d.clone()], 0)?)?;
    let p = cast(
        reshape(&p, &stack(&[size.clone(), d.clone()], 0)?)?,
        DType::I32,
    )?;
    let idx = range_to(&g, &size)?.at(s![.., NEW_AXIS])?;
    let idx = broadcast_to(idx, &stack(&[size.clone(), d.clone()], 0)?)?;
    let nd = stack(&[idx, p], -1)?;
    let out = scatter_nd(nd, x, stack(&[size, d.clone(), d], 0)?)?;
    reshape(out, &s)
}
