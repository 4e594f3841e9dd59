//! Norm clipping (TensorFlow's `clip_ops.py`): `tf.clip_by_norm`, `tf.linalg.global_norm`,
//! `tf.clip_by_global_norm` and `tf.clip_by_average_norm`, composites of existing ops built op
//! for op as TensorFlow builds them, so they differentiate through the existing gradients.

use weir_graph::{scalar_of, DType, Error, Output, Result, Tensor};

use super::{Axes, Operand, Reduce};
use crate::array::{constant, constant_named, identity_named};

/// A scalar constant of `dtype` in `like`'s graph.
fn scalar(like: &Output, dtype: DType, v: f64) -> Result<Output> {
    constant(like.graph(), scalar_of(dtype, v)?)
}

/// `clip_norm` as a tensor of `t`'s dtype, clamped at 0 as TensorFlow clamps it: a number (or
/// constant) is clamped at build time, a computed tensor by `cast(maximum(clip_norm, 0))`.
fn non_negative(clip_norm: impl Operand, t: &Output) -> Result<Output> {
    let c = clip_norm.to_output(t)?;
    if c.op().op_type() == "Const" {
        let v: Tensor = c.op().attr("value")?;
        let below = match v.dtype() {
            DType::F32 => v.to_vec::<f32>()?.iter().any(|&x| x < 0.0),
            DType::F64 => v.to_vec::<f64>()?.iter().any(|&x| x < 0.0),
            _ => false,
        };
        if below && v.num_elements() == 1 {
            return scalar(t, t.dtype(), 0.0);
        }
        if v.num_elements() == 1 {
            return super::cast(c, t.dtype());
        }
    }
    let zero = scalar(&c, c.dtype(), 0.0)?;
    super::cast(super::maximum(&c, zero)?, t.dtype())
}

/// `tf.clip_by_norm(t, clip_norm, axes=None)`: `t * clip_norm / max(l2norm(t, axes),
/// clip_norm)`, where the L2 norm is taken over `axes` (all by default, [`Axes::All`]) with
/// kept dims. A zero norm leaves `t` (zero) as it is, and its gradient finite, by TensorFlow's
/// two-`where` trick. The result is an `Identity` named `clip_by_norm`.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, math::{clip_by_norm, Axes}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let y = clip_by_norm(&constant(&g, [3.0f32, 4.0])?, 1.0, Axes::All)?;
/// assert_eq!(y.name(), "clip_by_norm:0");
/// assert_eq!(Session::new(&g)?.eval(&y)?.to_vec::<f32>()?, [0.6, 0.8]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn clip_by_norm(t: &Output, clip_norm: impl Operand, axes: impl Into<Axes>) -> Result<Output> {
    let g = t.graph().clone();
    let scope = g.name_scope("clip_by_norm");
    let c = non_negative(clip_norm, t)?;
    let sq = super::mul(t, t)?;
    let l2sum = Reduce::sum().axis(axes).keep_dims(true).build(sq)?;
    let pred = super::greater(&l2sum, scalar(t, l2sum.dtype(), 0.0)?)?;
    let safe = super::select(&pred, &l2sum, crate::array::ones_like(&l2sum)?)?;
    let l2norm = super::select(&pred, super::sqrt(safe)?, &l2sum)?;
    let intermediate = super::mul(t, &c)?;
    let (a, b) = (t.shape(), intermediate.shape());
    if !a.is_compatible_with(&b) {
        return Err(Error::invalid_argument(format!(
            "Shapes {a} and {b} are incompatible"
        )));
    }
    let q = super::realdiv(intermediate, super::maximum(l2norm, &c)?)?;
    identity_named(q, scope.prefix())
}

/// `tf.linalg.global_norm(t_list)`: `sqrt(sum(l2_loss(t) for t in t_list) * 2)`, the L2 norm
/// of all the tensors together; `None` entries are skipped. The result is a `Sqrt` named
/// `global_norm/global_norm`. A list with no tensor is InvalidArgument (TensorFlow returns 0.0
/// there; weir finds the graph through the tensors).
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, math::global_norm};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let n = global_norm([constant(&g, [3.0f32])?, constant(&g, [4.0f32])?])?;
/// assert_eq!(Session::new(&g)?.eval(&n)?.to_vec::<f32>()?, [5.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn global_norm<T: Into<Option<Output>>>(t_list: impl IntoIterator<Item = T>) -> Result<Output> {
    let values: Vec<Option<Output>> = t_list.into_iter().map(Into::into).collect();
    let present: Vec<&Output> = values.iter().flatten().collect();
    let Some(first) = present.first() else {
        return Err(Error::invalid_argument(
            "global_norm needs a graph: every tensor of t_list is None",
        ));
    };
    let g = crate::util::same_graph(&present)?.clone();
    let _scope = g.name_scope("global_norm");
    let halves = present
        .iter()
        .map(|v| crate::nn::l2_loss(*v))
        .collect::<Result<Vec<_>>>()?;
    let stacked = crate::array::stack(&halves, 0)?;
    let half = Reduce::sum().axis(Axes::All).build(stacked)?;
    let two = constant(first.graph(), scalar_of(half.dtype(), 2.0)?)?;
    let doubled = super::mul(half, two)?;
    crate::new_op(&g, "Sqrt")
        .name("global_norm")
        .input(doubled)
        .build()?
        .output(0)
}

/// `tf.clip_by_global_norm(t_list, clip_norm, use_norm=None)`: every tensor scaled by
/// `clip_norm / max(global_norm, clip_norm)`; returns the scaled list (with `None` where
/// `t_list` has `None`) and the global norm used (`use_norm`, or [`global_norm`] of
/// `t_list`). When the norm is infinite or NaN every value becomes NaN, as in TensorFlow.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, math::clip_by_global_norm};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let (a, b) = (constant(&g, [3.0f32])?, constant(&g, [4.0f32])?);
/// let (clipped, norm) = clip_by_global_norm([a, b], 1.0, None)?;
/// let sess = Session::new(&g)?;
/// assert_eq!(sess.eval(&norm)?.to_vec::<f32>()?, [5.0]);
/// let a2 = clipped[0].as_ref().unwrap();
/// assert_eq!(a2.name(), "clip_by_global_norm/clip_by_global_norm/_0:0");
/// assert_eq!(sess.eval(a2)?.to_vec::<f32>()?, [0.6]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn clip_by_global_norm<T: Into<Option<Output>>>(
    t_list: impl IntoIterator<Item = T>,
    clip_norm: impl Operand,
    use_norm: Option<Output>,
) -> Result<(Vec<Option<Output>>, Output)> {
    let values: Vec<Option<Output>> = t_list.into_iter().map(Into::into).collect();
    let use_norm = match use_norm {
        Some(n) => n,
        None => global_norm(values.iter().cloned())?,
    };
    let g = use_norm.graph().clone();
    let scope = g.name_scope("clip_by_global_norm");
    let dt = use_norm.dtype();
    let inv_norm = super::realdiv(scalar(&use_norm, dt, 1.0)?, &use_norm)?;
    let one = scalar(&use_norm, dt, 1.0)?;
    let c = clip_norm.to_output(&use_norm)?;
    let inv_clip = super::realdiv(one, &c)?;
    let scale_for_finite = super::mul(&c, super::minimum(inv_norm, inv_clip)?)?;
    // A no-op for a finite norm; NaN for inf, -inf and NaN.
    let nan_if_not_finite = super::sub(&use_norm, &use_norm)?;
    let scale = super::add(scale_for_finite, nan_if_not_finite)?;
    let clipped = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            v.as_ref()
                .map(|v| {
                    let scaled = super::mul(v, super::cast(&scale, v.dtype())?)?;
                    identity_named(scaled, &format!("{}_{i}", scope.prefix()))
                })
                .transpose()
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((clipped, use_norm))
}

/// `tf.clip_by_average_norm(t, clip_norm)` (deprecated in TensorFlow): `t * clip_norm /
/// max(l2norm(t) / size(t), clip_norm)`. TensorFlow builds its element count and constant in
/// float32, so it only takes float32; weir builds them in `t`'s dtype.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, math::clip_by_average_norm};
/// # use weir_session::Session;
/// let g = Graph::new();
/// // l2norm / size = 5 / 2 > 1: scaled by 1 / 2.5.
/// let y = clip_by_average_norm(&constant(&g, [3.0f32, 4.0])?, 1.0)?;
/// assert_eq!(Session::new(&g)?.eval(&y)?.to_vec::<f32>()?, [1.2, 1.6]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn clip_by_average_norm(t: &Output, clip_norm: impl Operand) -> Result<Output> {
    let g = t.graph().clone();
    let scope = g.name_scope("clip_by_average_norm");
    let dt = t.dtype();
    let c = clip_norm.to_output(t)?;
    let n = super::cast(crate::array::size(t)?, dt)?;
    let sq = super::mul(t, t)?;
    let inv = super::rsqrt(Reduce::sum().axis(Axes::All).build(sq)?)?;
    let lhs = super::mul(inv, n)?;
    let one = constant_named(&g, scalar_of(dt, 1.0)?, "Const")?;
    let rhs = super::realdiv(one, &c)?;
    let scaled = super::mul(super::mul(t, &c)?, super::minimum(lhs, rhs)?)?;
    identity_named(scaled, scope.prefix())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::placeholder;
    use weir_graph::{Code, Graph, Shape};

    #[test]
    fn errors_are_invalid_argument() {
        let g = Graph::new();
        let t = placeholder(&g, DType::F32, Shape::known(&[2, 3])).unwrap();
        let c = placeholder(&g, DType::F32, Shape::known(&[3, 2])).unwrap();
        let e = clip_by_norm(&t, &c, Axes::All).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        let e = global_norm([None::<Output>]).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        let e = clip_by_norm(&t, 1.0, vec![2]).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
    }
}
