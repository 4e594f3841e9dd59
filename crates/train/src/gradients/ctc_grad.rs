//! Gradients of the CTC ops (TensorFlow's `ctc_ops.py`): `CTCLoss` hands back its own
//! gradient output, scaled per batch entry, behind a `PreventGradient`; `PreventGradient`'s
//! gradient is an error; the decoders and `EditDistance` are not differentiable.

use weir_graph::{AttrValue, Error, Output, Result, Tensor};

use super::op;
use super::registry::{register_gradient, register_not_differentiable, GradContext};
use super::util::konst;

type Grads = Result<Vec<Option<Output>>>;

/// The message TensorFlow's `_CTCLossGradImpl` gives its `prevent_gradient` (its doubled
/// spaces included).
const NO_SECOND_DERIVATIVE: &str = "Currently there is no way to take the second  derivative \
     of ctc_loss due to the fused implementation's interaction  with tf.gradients()";

/// `_CTCLossGrad`: `expand_dims(grad_loss, -1) * prevent_gradient(op.outputs[1])` for the
/// logits (the op's gradient output is `[max_time, batch, classes]`, the loss `[batch]`), and
/// nothing for the labels and lengths.
fn ctc_loss_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let grad_loss = match ctx.grad(0) {
        Some(d) => d.clone(),
        // Only the gradient output is used: TensorFlow differentiates with zeros for the loss.
        None => op(g, "ZerosLike", &[&ctx.output(0)], &[])?,
    };
    let fused = op(
        g,
        "PreventGradient",
        &[&ctx.output(1)],
        &[("message", AttrValue::from(NO_SECOND_DERIVATIVE))],
    )?;
    let minus_one = konst(g, Tensor::from(-1i32))?;
    let d = op(g, "ExpandDims", &[&grad_loss, &minus_one], &[])?;
    let dlogits = op(g, "Mul", &[&d, &fused], &[])?;
    Ok(vec![Some(dlogits), None, None, None])
}

/// `_PreventGradientGrad`: differentiating through `PreventGradient` is an error carrying its
/// message (TensorFlow raises a `LookupError`).
fn prevent_gradient_grad(ctx: &GradContext<'_>) -> Grads {
    let message: String = ctx.attr("message")?;
    Err(Error::not_found(format!(
        "Gradient explicitly disabled. Reason: {message}"
    )))
}

pub(super) fn register() {
    register_gradient("CTCLoss", ctc_loss_grad);
    register_gradient("PreventGradient", prevent_gradient_grad);
    // As TensorFlow declares them: decoded paths and distances carry no gradient.
    for op in ["CTCGreedyDecoder", "CTCBeamSearchDecoder", "EditDistance"] {
        register_not_differentiable(op);
    }
}
