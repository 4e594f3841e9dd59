//! Gradients of `Switch` and `Merge` (TensorFlow's `control_flow_grad.py`), which make the
//! backward pass of a `cond` take the same branch as the forward pass.

use weir_graph::{Output, Result, Tensor};

use super::registry::{register_gradient, GradContext};
use super::util::konst;
use super::{op, op_node};

type Grads = Result<Vec<Option<Output>>>;

/// Switch: the gradients of its two outputs merged. The side without a gradient gets zeros
/// shaped like that output, which are live exactly when that side was taken, so the Merge
/// always has one live input: the gradient of the taken side, or zeros for a value the taken
/// branch did not use. The predicate gets none.
fn switch_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let sides = (0..2)
        .map(|i| match ctx.grad(i) {
            Some(d) => Ok(d.clone()),
            None => op(g, "ZerosLike", &[&ctx.output(i)], &[]),
        })
        .collect::<Result<Vec<_>>>()?;
    let merged = op_node(g, "Merge", &[&sides[0], &sides[1]], &[])?.output(0)?;
    Ok(vec![Some(merged), None])
}

/// Merge: the gradient goes back to the input that was forwarded, and only to it: a Switch of
/// the gradient on `value_index == i` for each input `i` (dead for the inputs not taken).
fn merge_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let d = ctx.grad0()?;
    let value_index = ctx.output(1);
    (0..ctx.num_inputs())
        .map(|i| {
            let index = konst(g, Tensor::scalar(i as i32))?;
            let taken = op(g, "Equal", &[&value_index, &index], &[])?;
            Ok(Some(op_node(g, "Switch", &[&d, &taken], &[])?.output(1)?))
        })
        .collect()
}

pub(super) fn register() {
    register_gradient("Switch", switch_grad);
    register_gradient("Merge", merge_grad);
}
