//! The update step shared by the scatter ops that write into an existing tensor: the variable
//! ops `ScatterUpdate` ... `ScatterMax` and `ScatterNdUpdate` ... `ScatterNdSub` (and their
//! `Resource*` forms), and the pure `TensorScatterUpdate`, `TensorScatterAdd`,
//! `TensorScatterSub`.
//!
//! A scatter is planned first (every shape and index checked, in TensorFlow's order and
//! words) and applied after, so a failed scatter never leaves a tensor half updated.

use weir_graph::{format_dims, DType, Error, Result, Tensor, TensorType};

use super::gather::coords;
use super::shape_util::to_i64s;
use crate::math::Arith;

/// How a scatter combines an update with the value it lands on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Combine {
    /// Replace (`ScatterUpdate`): the last of repeated indices wins.
    Update,
    /// `+=`; repeated indices accumulate.
    Add,
    /// `-=`.
    Sub,
    /// `*=`.
    Mul,
    /// `/=`.
    Div,
    /// `min=`.
    Min,
    /// `max=`.
    Max,
}

impl Combine {
    /// The combine of a scatter op type by its suffix (`ScatterAdd`, `ResourceScatterNdSub`,
    /// `TensorScatterUpdate`).
    pub(crate) fn of_op(op_type: &str) -> Combine {
        let suffix = op_type
            .trim_start_matches("Resource")
            .trim_start_matches("TensorScatter")
            .trim_start_matches("Scatter")
            .trim_start_matches("Nd");
        match suffix {
            "Add" => Combine::Add,
            "Sub" => Combine::Sub,
            "Mul" => Combine::Mul,
            "Div" => Combine::Div,
            "Min" => Combine::Min,
            "Max" => Combine::Max,
            _ => Combine::Update,
        }
    }
}

/// A checked scatter: the flat element offset of each update slice in the target, the slice
/// length, and whether one scalar update goes everywhere.
#[derive(Debug)]
pub(crate) struct Plan {
    pub(crate) offsets: Vec<usize>,
    pub(crate) inner: usize,
    pub(crate) scalar: bool,
}

fn bad_shapes(params: &[usize], indices: &[usize], updates: &[usize]) -> Error {
    Error::invalid_argument(format!(
        "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], got \
         updates.shape {}, indices.shape {}, params.shape {}",
        format_dims(updates),
        format_dims(indices),
        format_dims(params)
    ))
}

/// Plans `ScatterUpdate`-style ops (TensorFlow's `ScatterUpdateOp::DoCompute`, and with
/// `resource` its `ResourceScatterUpdateOp`, which checks in another order and words):
/// `indices` pick rows of `params` along its first dimension; `updates` is a scalar or has
/// shape `indices.shape + params.shape[1:]`.
pub(crate) fn plan_rows(
    params: &[usize],
    indices: &Tensor,
    updates: &[usize],
    resource: bool,
) -> Result<Plan> {
    if params.is_empty() {
        return Err(Error::invalid_argument(format!(
            "params must be at least 1-D, got shape {}",
            format_dims(params)
        )));
    }
    let is = indices.shape();
    let scalar = updates.is_empty();
    if !scalar && updates.len() != is.len() + params.len() - 1 {
        return Err(bad_shapes(params, is, updates));
    }
    if !scalar && !updates.starts_with(is) {
        if resource {
            return Err(Error::invalid_argument(format!(
                "The shape of indices ({}) must be a prefix of the shape of updates ({})",
                format_dims(is),
                format_dims(updates)
            )));
        }
        return Err(bad_shapes(params, is, updates));
    }
    if !scalar && updates[is.len()..] != params[1..] {
        return Err(bad_shapes(params, is, updates));
    }
    let inner: usize = params[1..].iter().product();
    let limit = params[0];
    let idx = to_i64s(indices)?;
    let mut offsets = Vec::with_capacity(idx.len());
    for (i, &v) in idx.iter().enumerate() {
        match usize::try_from(v) {
            Ok(u) if u < limit => offsets.push(u * inner),
            _ => {
                return Err(Error::invalid_argument(format!(
                    "indices[{}] = {v} is not in [0, {limit})",
                    coords(is, i)
                )))
            }
        }
    }
    Ok(Plan {
        offsets,
        inner,
        scalar,
    })
}

/// Plans the `ScatterNd*` variable ops (TensorFlow's `DoScatterNd` with `ValidateUpdateShape`):
/// the innermost dimension of `indices` (1 for a vector of indices) indexes the leading
/// dimensions of `params`; `updates` is `indices.shape[:-1] + params.shape[slice_dim:]`.
pub(crate) fn plan_nd(params: &[usize], indices: &Tensor, updates: &[usize]) -> Result<Plan> {
    let is = indices.shape();
    let (slice_dim, batch_dim) = match is.len() {
        0 | 1 => (1, 1),
        r => (is[r - 1], r - 1),
    };
    let (ur, nd) = (updates.len(), params.len());
    let prefix = || {
        Error::invalid_argument(format!(
            "Dimensions [0,{batch_dim}) of indices[shape={}] must match dimensions [0,{batch_dim}) \
             of updates[shape={}]",
            format_dims(is),
            format_dims(updates)
        ))
    };
    let suffix = || {
        Error::invalid_argument(format!(
            "Dimensions [{slice_dim},{nd}) of input[shape={}] must match dimensions \
             [{slice_dim},{ur}) of updates[shape={}]",
            format_dims(params),
            format_dims(updates)
        ))
    };
    if ur < batch_dim {
        return Err(prefix());
    }
    if nd < slice_dim + (ur - batch_dim) || ur != batch_dim + nd - slice_dim {
        return Err(suffix());
    }
    let lead: Vec<usize> = if is.len() <= 1 {
        is.to_vec()
    } else {
        is[..batch_dim].to_vec()
    };
    for d in 0..batch_dim {
        let i_d = lead.get(d).copied().unwrap_or(1);
        if updates[d] != i_d {
            return Err(Error::invalid_argument(format!(
                "Dimensions [0,{batch_dim}) of indices[shape={}] = {i_d} must match dimensions \
                 [0,{batch_dim}) of updates[shape={}] = {}",
                format_dims(is),
                format_dims(updates),
                updates[d]
            )));
        }
    }
    if updates[batch_dim..] != params[slice_dim..] {
        return Err(suffix());
    }
    nd_offsets(params, indices, &lead, slice_dim)
}

/// The offsets of an nd scatter whose geometry has been checked: each row of `slice_dim`
/// coordinates of `indices` names a slice of `params`.
pub(crate) fn nd_offsets(
    params: &[usize],
    indices: &Tensor,
    lead: &[usize],
    slice_dim: usize,
) -> Result<Plan> {
    let n_params: usize = params.iter().product();
    let n_idx = indices.num_elements();
    let n_rows: usize = lead.iter().product();
    if n_params == 0 && n_idx > 0 {
        return Err(Error::invalid_argument(format!(
            "Indices and updates specified for empty output.  indices shape: {}",
            format_dims(indices.shape())
        )));
    }
    let inner: usize = params[slice_dim.min(params.len())..].iter().product();
    let idx = to_i64s(indices)?;
    let mut offsets = Vec::with_capacity(n_rows);
    for r in 0..n_rows {
        let c = &idx[r * slice_dim..(r + 1) * slice_dim];
        let mut off = 0usize;
        for (j, &v) in c.iter().enumerate() {
            match usize::try_from(v) {
                Ok(u) if u < params[j] => off = off * params[j] + u,
                _ => {
                    let shown: Vec<String> = c.iter().map(i64::to_string).collect();
                    return Err(Error::invalid_argument(format!(
                        "indices[{}] = [{}] does not index into shape {}",
                        coords(lead, r),
                        shown.join(", "),
                        format_dims(params)
                    )));
                }
            }
        }
        offsets.push(off * inner);
    }
    Ok(Plan {
        offsets,
        inner,
        scalar: false,
    })
}

fn apply_typed<T: Arith>(target: &mut [T], plan: &Plan, updates: &[T], how: Combine) -> Result<()> {
    if how == Combine::Div && T::INTEGER && updates.iter().any(|&u| u == T::default()) {
        return Err(Error::invalid_argument("Integer division by zero"));
    }
    let f: fn(T, T) -> T = match how {
        Combine::Update => |_, b| b,
        Combine::Add => T::add,
        Combine::Sub => T::sub,
        Combine::Mul => T::mul,
        Combine::Div => T::div,
        Combine::Min => T::min,
        Combine::Max => T::max,
    };
    for (r, &off) in plan.offsets.iter().enumerate() {
        let dst = &mut target[off..off + plan.inner];
        if plan.scalar {
            let u = updates[0];
            dst.iter_mut().for_each(|d| *d = f(*d, u));
        } else {
            let src = &updates[r * plan.inner..(r + 1) * plan.inner];
            dst.iter_mut().zip(src).for_each(|(d, &u)| *d = f(*d, u));
        }
    }
    Ok(())
}

fn assign_typed<T: TensorType>(target: &mut [T], plan: &Plan, updates: &[T]) {
    for (r, &off) in plan.offsets.iter().enumerate() {
        let dst = &mut target[off..off + plan.inner];
        if plan.scalar {
            dst.iter_mut().for_each(|d| *d = updates[0].clone());
        } else {
            dst.clone_from_slice(&updates[r * plan.inner..(r + 1) * plan.inner]);
        }
    }
}

/// Applies a checked plan to `target` in place (copying its elements first only if another
/// tensor shares them). Arithmetic needs a real-number dtype; `Update` takes any data dtype.
pub(crate) fn apply(
    target: &mut Tensor,
    plan: &Plan,
    updates: &Tensor,
    how: Combine,
) -> Result<()> {
    let dt = target.dtype();
    if updates.dtype() != dt {
        return Err(Error::invalid_argument(format!(
            "Cannot update a {dt} tensor with {} updates",
            updates.dtype()
        )));
    }
    if plan.offsets.is_empty() {
        return Ok(());
    }
    if how == Combine::Update {
        return weir_graph::match_data_dtype!(dt,
            T => { assign_typed::<T>(target.as_slice_mut::<T>()?, plan, updates.as_slice::<T>()?); Ok(()) },
            _ => Err(Error::invalid_argument(format!("Cannot scatter into a {dt} tensor"))));
    }
    weir_graph::match_real_dtype!(dt,
        T => apply_typed::<T>(target.as_slice_mut::<T>()?, plan, updates.as_slice::<T>()?, how),
        _ => Err(Error::invalid_argument(format!("Cannot scatter {how:?} into a {dt} tensor"))))
}

/// The dtypes of the arithmetic scatters (`ScatterAdd`, `TensorScatterSub`, ...): the number
/// types weir has.
pub(crate) const NUMBER_TYPES: &[DType] = DType::REAL_NUMBER;

/// The dtypes of `ScatterMin`/`ScatterMax` (TensorFlow registers its real CPU types).
pub(crate) const MIN_MAX_TYPES: &[DType] = &[DType::F32, DType::F64, DType::I32, DType::I64];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_plans_check_shapes_and_indices_in_tensorflows_words() {
        let idx = Tensor::from(vec![0i32, 7]);
        let e = plan_rows(&[5], &idx, &[2], false).unwrap_err();
        assert!(e.is_invalid_argument());
        assert_eq!(e.message(), "indices[1] = 7 is not in [0, 5)");
        let idx2 = Tensor::from_vec(&[2, 2], vec![0i64, 3, 1, 0]).unwrap();
        let e = plan_rows(&[2, 2], &idx2, &[2, 2, 2], false).unwrap_err();
        assert_eq!(e.message(), "indices[0,1] = 3 is not in [0, 2)");
        let e = plan_rows(&[], &idx, &[2], false).unwrap_err();
        assert_eq!(e.message(), "params must be at least 1-D, got shape []");
        let e = plan_rows(&[5], &Tensor::from(vec![0i32, 0]), &[3], false).unwrap_err();
        assert_eq!(
            e.message(),
            "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], \
             got updates.shape [3], indices.shape [2], params.shape [5]"
        );
        let p = plan_rows(&[4, 3], &Tensor::from(vec![3i32, 1]), &[], false).unwrap();
        assert_eq!((p.offsets, p.inner, p.scalar), (vec![9, 3], 3, true));
    }

    #[test]
    fn nd_plans_check_geometry_and_indices() {
        let idx = Tensor::from_vec(&[2, 1], vec![0i32, 7]).unwrap();
        let e = plan_nd(&[5], &idx, &[2]).unwrap_err();
        assert_eq!(
            e.message(),
            "indices[1] = [7] does not index into shape [5]"
        );
        let idx = Tensor::from_vec(&[1, 2], vec![1i32, 1]).unwrap();
        let e = plan_nd(&[2, 2], &idx, &[2]).unwrap_err();
        assert_eq!(
            e.message(),
            "Dimensions [0,1) of indices[shape=[1,2]] = 1 must match dimensions [0,1) of \
             updates[shape=[2]] = 2"
        );
        let idx = Tensor::from_vec(&[1, 1], vec![1i32]).unwrap();
        let e = plan_nd(&[4, 3], &idx, &[1, 2]).unwrap_err();
        assert_eq!(
            e.message(),
            "Dimensions [1,2) of input[shape=[4,3]] must match dimensions [1,2) of \
             updates[shape=[1,2]]"
        );
        let p = plan_nd(&[4, 3], &idx, &[1, 3]).unwrap();
        assert_eq!((p.offsets, p.inner), (vec![3], 3));
    }

    #[test]
    fn combines_accumulate_repeats_and_refuse_integer_division_by_zero() {
        let mut t = Tensor::from(vec![1i32, 2, 3]);
        let plan = plan_rows(&[3], &Tensor::from(vec![0i32, 0, 2]), &[3], false).unwrap();
        apply(&mut t, &plan, &Tensor::from(vec![5i32, 6, 7]), Combine::Add).unwrap();
        assert_eq!(t.to_vec::<i32>().unwrap(), vec![12, 2, 10]);
        apply(
            &mut t,
            &plan,
            &Tensor::from(vec![5i32, 6, 7]),
            Combine::Update,
        )
        .unwrap();
        assert_eq!(t.to_vec::<i32>().unwrap(), vec![6, 2, 7]);
        let e = apply(&mut t, &plan, &Tensor::from(vec![1i32, 0, 1]), Combine::Div).unwrap_err();
        assert_eq!(e.message(), "Integer division by zero");
        assert_eq!(t.to_vec::<i32>().unwrap(), vec![6, 2, 7]);
        let mut s = Tensor::from_strings(&["a", "b"]);
        let plan = plan_rows(&[2], &Tensor::from(vec![1i32]), &[], false).unwrap();
        apply(&mut s, &plan, &Tensor::from("z"), Combine::Update).unwrap();
        assert_eq!(s.to_strings().unwrap(), vec!["a", "z"]);
        assert!(apply(&mut s, &plan, &Tensor::from("z"), Combine::Add).is_err());
        assert_eq!(Combine::of_op("ResourceScatterNdSub"), Combine::Sub);
        assert_eq!(Combine::of_op("TensorScatterUpdate"), Combine::Update);
        assert_eq!(Combine::of_op("ScatterMax"), Combine::Max);
    }
}
