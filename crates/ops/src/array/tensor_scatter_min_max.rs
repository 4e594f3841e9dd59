//! `TensorScatterMax` and `TensorScatterMin` (`tf.tensor_scatter_nd_max`, `_min`): a copy of a
//! tensor whose slices at the coordinates in `indices` become the elementwise maximum (minimum)
//! of themselves and `updates`; and the max/min step they share with the variable ops
//! `ScatterNdMax`/`ScatterNdMin` and their `Resource*` forms.
//!
//! TensorFlow's CPU functor combines with Eigen's `cwiseMax`/`cwiseMin`, which keep the current
//! value unless the update compares greater (less): a NaN already there stays, a NaN update is
//! ignored, and of `-0.0` and `0.0` the current one stays. The half types compare as floats.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, Kernel, Node, OpContext, OpDef, Output, Result,
    Tensor,
};

use super::scatter_apply::{plan_nd, Plan};
use super::tensor_scatter::{build, check_geometry, shape_fn};
use crate::math::Arith;

/// The dtypes TensorFlow registers the max/min scatters for on CPU: its real number types and
/// the halves.
pub(crate) const MIN_MAX_ND_TYPES: &[DType] = DType::REAL_AND_HALF;

fn combine_typed<T: Arith>(target: &mut [T], plan: &Plan, updates: &[T], max: bool) {
    // `std::max(a, b)` is `a < b ? b : a`; `std::min(a, b)` is `b < a ? b : a`.
    let f: fn(T, T) -> T = if max {
        |a, b| if a < b { b } else { a }
    } else {
        |a, b| if b < a { b } else { a }
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
}

/// Applies a checked nd plan to `target` in place with the elementwise maximum (`max`) or
/// minimum, copying `target`'s elements first only if another tensor shares them.
pub(crate) fn apply_min_max(
    target: &mut Tensor,
    plan: &Plan,
    updates: &Tensor,
    max: bool,
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
    let unsupported = || {
        Err(Error::invalid_argument(format!(
            "Cannot scatter the {} into a {dt} tensor",
            if max { "maximum" } else { "minimum" }
        )))
    };
    weir_graph::match_real_dtype!(dt,
        T => { combine_typed::<T>(target.as_slice_mut::<T>()?, plan, updates.as_slice::<T>()?, max); Ok(()) },
        _ => weir_graph::match_half_dtype!(dt,
            T => { combine_typed::<T>(target.as_slice_mut::<T>()?, plan, updates.as_slice::<T>()?, max); Ok(()) },
            _ => unsupported()))
}

/// `tf.tensor_scatter_nd_max(tensor, indices, updates)`: `tensor` with each slice at the
/// coordinates in the innermost dimension of `indices` replaced by its elementwise maximum with
/// the matching `updates` slice (repeated coordinates take the maximum of all).
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::array::{constant, tensor_scatter_nd_max};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let t = constant(&g, [1.0f32, 5.0, 3.0])?;
/// let i = constant(&g, Tensor::from_vec(&[2, 1], vec![0, 1])?)?;
/// let y = tensor_scatter_nd_max(&t, &i, constant(&g, [4.0f32, 2.0])?)?;
/// assert_eq!(Session::new(&g)?.eval(&y)?.to_vec::<f32>()?, vec![4.0, 5.0, 3.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn tensor_scatter_nd_max(
    tensor: impl Into<Output>,
    indices: impl Into<Output>,
    updates: impl Into<Output>,
) -> Result<Output> {
    build(
        "TensorScatterMax",
        tensor.into(),
        indices.into(),
        updates.into(),
    )
}

/// `tf.tensor_scatter_nd_min(tensor, indices, updates)`: as [`tensor_scatter_nd_max`] with the
/// elementwise minimum.
pub fn tensor_scatter_nd_min(
    tensor: impl Into<Output>,
    indices: impl Into<Output>,
    updates: impl Into<Output>,
) -> Result<Output> {
    build(
        "TensorScatterMin",
        tensor.into(),
        indices.into(),
        updates.into(),
    )
}

struct TensorScatterMinMaxKernel {
    max: bool,
}

impl Kernel for TensorScatterMinMaxKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let shape = ctx.input(0).shape().to_vec();
        check_geometry(&shape, ctx.input(1), ctx.input(2))?;
        let plan = plan_nd(&shape, ctx.input(1), ctx.input(2).shape())?;
        let mut out = ctx.take_input(0);
        apply_min_max(&mut out, &plan, ctx.input(2), self.max)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(TensorScatterMinMaxKernel {
        max: node.op_type() == "TensorScatterMax",
    }))
}

pub(super) fn register() {
    for name in ["TensorScatterMax", "TensorScatterMin"] {
        register_op(
            OpDef::new(name)
                .input("tensor", ArgType::Attr("T"))
                .input("indices", ArgType::Attr("Tindices"))
                .input("updates", ArgType::Attr("T"))
                .output("output", ArgType::Attr("T"))
                .type_attr("T", MIN_MAX_ND_TYPES)
                .type_attr("Tindices", &[DType::I32, DType::I64])
                .attr(
                    "bad_indices_policy",
                    AttrKind::Str,
                    Some(AttrValue::Str(String::new())),
                )
                .shape_fn(shape_fn),
        );
        register_kernel(name, make);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_and_min_keep_the_current_value_on_nan_and_ties() {
        let idx = Tensor::from_vec(&[4, 1], vec![0i32, 1, 2, 3]).unwrap();
        let plan = plan_nd(&[4], &idx, &[4]).unwrap();
        let cur = vec![f32::NAN, 1.0, -0.0, 0.0];
        let upd = Tensor::from(vec![1.0f32, f32::NAN, 0.0, -0.0]);
        for max in [true, false] {
            let mut t = Tensor::from(cur.clone());
            apply_min_max(&mut t, &plan, &upd, max).unwrap();
            let got = t.to_vec::<f32>().unwrap();
            assert!(got[0].is_nan() && got[1] == 1.0);
            assert!(got[2].is_sign_negative() && got[3].is_sign_positive());
        }
        let mut t = Tensor::from(vec![3i32, 1, 7, 0]);
        let upd = Tensor::from(vec![5i32, 0, 9, -2]);
        apply_min_max(&mut t, &plan, &upd, false).unwrap();
        assert_eq!(t.to_vec::<i32>().unwrap(), vec![3, 0, 7, -2]);
        let mut s = Tensor::from(vec![true]);
        let one = Tensor::from_vec(&[1, 1], vec![0i32]).unwrap();
        let p = plan_nd(&[1], &one, &[1]).unwrap();
        assert!(apply_min_max(&mut s, &p, &Tensor::from(vec![false]), true).is_err());
    }
}
