//! `compute_weighted_loss` and its helpers: TensorFlow's `weights_broadcast_ops`
//! (`assert_broadcastable`, `broadcast_weights`), `_num_present`, `_num_elements`,
//! `_safe_mean`, and `confusion_matrix.remove_squeezable_dimensions`.

use weir_graph::{Error, Operation, Output, Result, Shape};
use weir_ops::array::{self, constant};
use weir_ops::control_flow::Assert;
use weir_ops::math::{self, Reduce};

use super::{add_loss, named_op, to_f32, Reduction, Weights};

const BROADCAST_ERROR: &str = "weights can not be broadcast to values.";

/// `tf.compat.v1.losses.compute_weighted_loss(losses, weights, scope, loss_collection,
/// reduction)`: `losses * weights` reduced by `reduction`, cast back to the losses' dtype and
/// added to `loss_collection` (unless `None`). The ops go under the name scope `scope`
/// (default `weighted_loss`).
///
/// Weights must be a scalar or have the losses' rank with each dim 1 or the losses' dim;
/// otherwise InvalidArgument (TensorFlow's ValueError) when the shapes are known, or a run-time
/// `Assert` failure when they are not. Divisions are `div_no_nan`: a loss with no present
/// (nonzero-weight) element is 0.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::array::constant;
/// # use weir_session::Session;
/// use weir_train::losses::{compute_weighted_loss, Reduction};
/// let g = Graph::new();
/// let losses = constant(&g, [1.0f32, 2.0, 4.0])?;
/// let w = constant(&g, [1.0f32, 0.0, 0.5])?;
/// let loss = compute_weighted_loss(&losses, &w, None, Some("losses"), Reduction::default())?;
/// assert_eq!(loss.name(), "weighted_loss/value:0");
/// assert_eq!(Session::new(&g)?.eval(&loss)?.to_vec::<f32>()?, vec![1.5]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn compute_weighted_loss(
    losses: impl Into<Output>,
    weights: impl Into<super::Weights>,
    scope: Option<&str>,
    loss_collection: Option<&str>,
    reduction: Reduction,
) -> Result<Output> {
    let losses = losses.into();
    let weights = weights.into();
    let g = losses.graph().clone();
    let _scope = g.name_scope(scope.unwrap_or("weighted_loss"));
    let w = weights.to_output(&g)?;
    let check = assert_broadcastable(&w, &losses)?;
    let _deps = match &check {
        Some(op) => Some(g.control_dependencies(std::slice::from_ref(op))?),
        None => None,
    };
    let input_dtype = losses.dtype();
    let losses = to_f32(&losses)?;
    let w = to_f32(&w)?;
    let weighted = math::mul(&losses, &w)?;
    let loss = if reduction == Reduction::None {
        weighted
    } else {
        let sum = Reduce::sum().build(&weighted)?;
        match reduction {
            Reduction::Mean => {
                let total = Reduce::sum().build(math::mul(array::ones_like(&losses)?, &w)?)?;
                safe_mean(&sum, &total)?
            }
            Reduction::SumByNonzeroWeights => {
                let present = num_present(&losses, &weights, &w, false)?;
                safe_mean(&sum, &present)?
            }
            Reduction::SumOverBatchSize => safe_mean(&sum, &num_elements(&losses)?)?,
            _ => sum,
        }
    };
    let loss = math::cast(&loss, input_dtype)?;
    add_loss(&loss, loss_collection)?;
    Ok(loss)
}

/// `_safe_mean`: `div_no_nan(total, num_present)` named `value`.
fn safe_mean(total: &Output, num_present: &Output) -> Result<Output> {
    named_op(
        total.graph(),
        "DivNoNan",
        &[total, num_present],
        Some("value"),
    )
}

/// `_num_elements`: the losses' size, in their dtype.
pub(crate) fn num_elements(losses: &Output) -> Result<Output> {
    let g = losses.graph();
    let _s = g.name_scope("num_elements");
    math::cast(array::size(losses)?, losses.dtype())
}

/// `_num_present`: how many elements of `losses` have a nonzero weight once the weights are
/// broadcast (per batch entry, keeping dims, when `per_batch`). A nonzero number counts every
/// element without looking at the weights.
pub(crate) fn num_present(
    losses: &Output,
    weights: &Weights,
    w: &Output,
    per_batch: bool,
) -> Result<Output> {
    if matches!(weights, Weights::Scalar(v) if *v != 0.0) && !per_batch {
        return num_elements(losses);
    }
    let g = losses.graph();
    let _s = g.name_scope("num_present");
    let w = to_f32(w)?;
    let is_zero = math::equal(&w, constant(g, 0.0f32)?)?;
    let present = math::select(&is_zero, array::zeros_like(&w)?, array::ones_like(&w)?)?;
    let present = broadcast_weights(&present, losses)?;
    if per_batch {
        let axes = match present.shape().rank() {
            Some(r) => math::Axes::List((1..r as i64).collect()),
            None => {
                let one = constant(g, 1i32)?;
                math::Axes::Tensor(math::range_from(
                    &one,
                    &array::rank(&present)?,
                    &constant(g, 1i32)?,
                )?)
            }
        };
        Reduce::sum().axis(axes).keep_dims(true).build(&present)
    } else {
        Reduce::sum().build(&present)
    }
}

/// `weights_broadcast_ops.broadcast_weights(weights, values)`: `weights` itself when both
/// shapes are fully known and equal, else `weights * ones_like(values)` after
/// [`assert_broadcastable`].
pub(crate) fn broadcast_weights(weights: &Output, values: &Output) -> Result<Output> {
    let g = values.graph();
    let _s = g.name_scope("broadcast_weights");
    let (ws, vs) = (weights.shape(), values.shape());
    if ws.is_fully_defined() && vs.is_fully_defined() && ws.is_compatible_with(&vs) {
        return Ok(weights.clone());
    }
    let check = assert_broadcastable(weights, values)?;
    let _deps = match &check {
        Some(op) => Some(g.control_dependencies(std::slice::from_ref(op))?),
        None => None,
    };
    math::mul(weights, array::ones_like(values)?)
}

/// `repr` of a graph tensor, as TensorFlow's messages print one.
fn tensor_repr(t: &Output) -> String {
    format!(
        "Tensor(\"{}\", shape={}, dtype={})",
        t.name(),
        t.shape().python_str(),
        t.dtype().python_name()
    )
}

/// A numpy int vector as Python prints it: `[3 4]`.
fn numpy_dims(d: &[usize]) -> String {
    let parts: Vec<String> = d.iter().map(usize::to_string).collect();
    format!("[{}]", parts.join(" "))
}

/// `weights_broadcast_ops.assert_broadcastable(weights, values)`: checked now when the ranks
/// (and, for equal ranks, the dims) are known, with TensorFlow's ValueError message as
/// InvalidArgument; otherwise an `Assert` op checking at run time, returned for the caller to
/// depend on.
pub(crate) fn assert_broadcastable(weights: &Output, values: &Output) -> Result<Option<Operation>> {
    let (ws, vs) = (weights.shape(), values.shape());
    if ws.rank() == Some(0) {
        return Ok(None);
    }
    let received = || {
        format!(
            "Received weights={}, values={}",
            tensor_repr(weights),
            tensor_repr(values)
        )
    };
    if let (Some(wr), Some(vr)) = (ws.rank(), vs.rank()) {
        if wr != vr {
            return Err(Error::invalid_argument(format!(
                "{BROADCAST_ERROR} values.rank={vr}. weights.rank={wr}. values.shape={}. weights.shape={}. {}",
                vs.python_str(),
                ws.python_str(),
                received()
            )));
        }
        if let (Some(wd), Some(vd)) = (ws.to_known(), vs.to_known()) {
            if let Some(i) = (0..vd.len()).find(|&i| wd[i] != 1 && wd[i] != vd[i]) {
                return Err(Error::invalid_argument(format!(
                    "{BROADCAST_ERROR} Mismatch at dim {i}. values.shape={}, weights.shape={}. {}",
                    numpy_dims(&vd),
                    numpy_dims(&wd),
                    received()
                )));
            }
            return Ok(None);
        }
    }
    dynamic_assert(weights, values).map(Some)
}

/// The run-time form of `assert_broadcastable`: weights are a scalar, or have the values'
/// rank with every dim 1 or equal to the values' dim.
fn dynamic_assert(weights: &Output, values: &Output) -> Result<Operation> {
    let g = values.graph();
    let _s = g.name_scope("assert_broadcastable");
    let (ws, vs) = (array::shape(weights)?, array::shape(values)?);
    let (wr, vr) = (array::rank(weights)?, array::rank(values)?);
    let zero = constant(g, 0i32)?;
    let is_scalar = math::equal(&wr, &zero)?;
    let same_rank = math::equal(&wr, &vr)?;
    // The values' dims cut (or padded with ones) to the weights' rank, so that the comparison
    // is well-formed whatever the ranks are; `same_rank` decides in the end.
    let padded = array::concat(&[vs.clone(), array::ones_like(&ws)?], 0)?;
    let cut = array::slice(&padded, [0i32], array::reshape(&wr, [1i32])?)?;
    let one = constant(g, 1i32)?;
    let dims_ok = math::logical_or(math::equal(&ws, &cut)?, math::equal(&ws, &one)?)?;
    let dims_ok = Reduce::all().build(&dims_ok)?;
    let valid = math::logical_or(&is_scalar, math::logical_and(&same_rank, &dims_ok)?)?;
    let text = |s: &str| constant(g, s);
    Assert::new().build(
        &valid,
        &[
            text(BROADCAST_ERROR)?,
            text("weights.shape=")?,
            text(&weights.name())?,
            ws,
            text("values.shape=")?,
            text(&values.name())?,
            vs,
            text("is_scalar=")?,
            is_scalar,
        ],
    )
}

/// `confusion_matrix.remove_squeezable_dimensions(labels, predictions, expected_rank_diff)`:
/// squeezes the last dim (of size 1 or unknown) of `predictions` when its rank is
/// `expected_rank_diff + 1` more than the labels', or of `labels` when it is
/// `expected_rank_diff - 1` more. Needs static ranks; inputs of unknown rank are returned as
/// they are (TensorFlow decides at run time with `cond`).
pub(crate) fn remove_squeezable_dimensions(
    labels: Output,
    predictions: Output,
    expected_rank_diff: i64,
) -> Result<(Output, Output)> {
    let (ls, ps) = (labels.shape(), predictions.shape());
    let (Some(lr), Some(pr)) = (ls.rank(), ps.rank()) else {
        return Ok((labels, predictions));
    };
    let last_is_one = |s: &Shape| s.rank() > Some(0) && matches!(s.dim(-1), None | Some(1));
    let rank_diff = pr as i64 - lr as i64;
    if rank_diff == expected_rank_diff + 1 && last_is_one(&ps) {
        let _s = labels.graph().name_scope("remove_squeezable_dimensions");
        return Ok((labels, array::squeeze(&predictions, &[-1])?));
    }
    if rank_diff == expected_rank_diff - 1 && last_is_one(&ls) {
        let _s = labels.graph().name_scope("remove_squeezable_dimensions");
        return Ok((array::squeeze(&labels, &[-1])?, predictions));
    }
    Ok((labels, predictions))
}
