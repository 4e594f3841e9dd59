//! The gradient of `BatchNormWithGlobalNormalization` (TensorFlow's
//! `_BatchNormWithGlobalNormalizationGrad` in `nn_grad.py`): one
//! `BatchNormWithGlobalNormalizationGrad` node gives all five inputs theirs. Unlike
//! `FusedBatchNorm`'s, the mean and variance get gradients too (the old op took them as
//! inputs, and TensorFlow passes back what its kernel computes for them).

use weir_graph::{Output, Result};
use weir_ops::nn::BatchNormWithGlobalNormalization;

use super::registry::{register_gradient, GradContext};

fn batch_norm_global_grad(ctx: &GradContext<'_>) -> Result<Vec<Option<Output>>> {
    let d = ctx.grad0()?;
    let op = BatchNormWithGlobalNormalization::new(
        ctx.attr("variance_epsilon")?,
        ctx.attr("scale_after_normalization")?,
    );
    // The backward op takes t, m, v and gamma (input 4), not beta.
    let grads = op.grad(ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(4), d)?;
    Ok(grads.into_iter().map(Some).collect())
}

pub(super) fn register() {
    register_gradient("BatchNormWithGlobalNormalization", batch_norm_global_grad);
}
