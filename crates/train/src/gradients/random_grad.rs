//! The gradient of `RandomGamma` (TensorFlow's `random_grad.py` `_RandomGammaGrad`): the
//! implicit reparameterization derivative `RandomGammaGrad(alpha, sample)`, with `alpha`
//! reshaped to broadcast against the samples, times the incoming gradient and summed over the
//! sample dimensions. The shape input gets no gradient.

use weir_graph::{AttrValue, DType, Result, Tensor};

use super::op;
use super::registry::{register_gradient, GradContext};
use super::util::konst;

type Grads = Result<Vec<Option<weir_graph::Output>>>;

/// `d loss / d alpha` for a `RandomGamma` node.
fn random_gamma_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph().clone();
    let (d, shape, alpha, sample) = (ctx.grad0()?, ctx.input(0), ctx.input(1), ctx.output(0));
    // The number of sample dimensions: the length of the shape vector.
    let n = op(
        &g,
        "Size",
        &[&shape],
        &[("out_type", AttrValue::Type(DType::I32))],
    )?;
    let n_vec = op(
        &g,
        "Reshape",
        &[&n, &konst(&g, Tensor::from(vec![1i32]))?],
        &[],
    )?;
    let ones = op(&g, "Fill", &[&n_vec, &konst(&g, Tensor::from(1i32))?], &[])?;
    let alpha_shape = op(
        &g,
        "Shape",
        &[&alpha],
        &[("out_type", AttrValue::Type(DType::I32))],
    )?;
    let axis = konst(&g, Tensor::from(0i32))?;
    let new_shape = op(&g, "ConcatV2", &[&ones, &alpha_shape, &axis], &[])?;
    let alpha_b = op(&g, "Reshape", &[&alpha, &new_shape], &[])?;
    let partial = weir_ops::random::random_gamma_grad(alpha_b, sample)?;
    let prod = op(&g, "Mul", &[&d, &partial], &[])?;
    let zero = konst(&g, Tensor::from(0i32))?;
    let one = konst(&g, Tensor::from(1i32))?;
    let axes = op(&g, "Range", &[&zero, &n, &one], &[])?;
    let dalpha = op(
        &g,
        "Sum",
        &[&prod, &axes],
        &[("keep_dims", AttrValue::Bool(false))],
    )?;
    Ok(vec![None, Some(dalpha)])
}

pub(super) fn register() {
    register_gradient("RandomGamma", random_gamma_grad);
}
