//! Gradients of the fake-quantization and quantize-and-dequantize ops, as TensorFlow 2.21's
//! `array_ops.py` and `array_grad.py` register them: the `FakeQuantWithMinMax*` ops
//! differentiate through their `*Gradient` ops (which are not differentiable themselves),
//! `QuantizeAndDequantizeV2` and `V3` pass the gradient straight through to the input, and
//! `QuantizeAndDequantizeV4` zeroes it outside the range with `QuantizeAndDequantizeV4Grad`.

use weir_graph::{AttrValue, Error, Output, Result};

use super::op_node;
use super::registry::{register_gradient, register_not_differentiable, GradContext};

type Grads = Result<Vec<Option<Output>>>;

/// The forward node's attributes named `names`, to pass on to its gradient op.
fn attrs<'a>(ctx: &GradContext<'_>, names: &[&'a str]) -> Result<Vec<(&'a str, AttrValue)>> {
    names
        .iter()
        .map(|&n| {
            ctx.attr_value(n)
                .cloned()
                .map(|v| (n, v))
                .ok_or_else(|| Error::invalid_argument(format!("No attr named '{n}'")))
        })
        .collect()
}

/// `_FakeQuantWithMinMaxArgsGradient`: the gradient op with the forward node's range.
fn fake_quant_args_grad(ctx: &GradContext<'_>) -> Grads {
    let a = attrs(ctx, &["min", "max", "num_bits", "narrow_range"])?;
    let node = op_node(
        ctx.graph(),
        "FakeQuantWithMinMaxArgsGradient",
        &[&ctx.grad0()?, &ctx.input(0)],
        &a,
    )?;
    Ok(vec![Some(node.output(0)?)])
}

/// `_FakeQuantWithMinMaxVarsGradient` and `_FakeQuantWithMinMaxVarsPerChannelGradient`: the
/// gradient op's three outputs go to `inputs`, `min` and `max`.
fn fake_quant_vars_grad(ctx: &GradContext<'_>) -> Grads {
    let grad_op = format!("{}Gradient", ctx.op().op_type());
    let a = attrs(ctx, &["num_bits", "narrow_range"])?;
    let node = op_node(
        ctx.graph(),
        &grad_op,
        &[&ctx.grad0()?, &ctx.input(0), &ctx.input(1), &ctx.input(2)],
        &a,
    )?;
    (0..3).map(|i| node.output(i).map(Some)).collect()
}

/// `_QuantizeAndDequantizeV2Grad` and `_QuantizeAndDequantizeV3Grad`: straight through to the
/// input; the range (and `V3`'s `num_bits`) get none.
fn straight_through_grad(ctx: &GradContext<'_>) -> Grads {
    let mut grads = vec![ctx.grad(0).cloned()];
    grads.resize(ctx.num_inputs(), None);
    Ok(grads)
}

/// `_QuantizeAndDequantizeV4Grad`: the gradient where the input lies in the range, zeros for
/// the range.
fn quantize_and_dequantize_v4_grad(ctx: &GradContext<'_>) -> Grads {
    let a = attrs(ctx, &["axis"])?;
    let node = op_node(
        ctx.graph(),
        "QuantizeAndDequantizeV4Grad",
        &[&ctx.grad0()?, &ctx.input(0), &ctx.input(1), &ctx.input(2)],
        &a,
    )?;
    (0..3).map(|i| node.output(i).map(Some)).collect()
}

/// TensorFlow 2.21 registers `_QuantizeAndDequantizeV4GradGrad(op, grad)` for this op of
/// three outputs, so its gradient call fails (with a Python `TypeError`); weir fails too.
fn quantize_and_dequantize_v4_grad_grad(ctx: &GradContext<'_>) -> Grads {
    Err(Error::invalid_argument(format!(
        "No usable gradient for '{}' (QuantizeAndDequantizeV4Grad): TensorFlow's registered \
         gradient takes one output gradient of the op's three and fails",
        ctx.op().name()
    )))
}

pub(super) fn register() {
    register_gradient("FakeQuantWithMinMaxArgs", fake_quant_args_grad);
    register_gradient("FakeQuantWithMinMaxVars", fake_quant_vars_grad);
    register_gradient("FakeQuantWithMinMaxVarsPerChannel", fake_quant_vars_grad);
    for op in [
        "FakeQuantWithMinMaxArgsGradient",
        "FakeQuantWithMinMaxVarsGradient",
        "FakeQuantWithMinMaxVarsPerChannelGradient",
    ] {
        register_not_differentiable(op);
    }
    register_gradient("QuantizeAndDequantizeV2", straight_through_grad);
    register_gradient("QuantizeAndDequantizeV3", straight_through_grad);
    register_gradient("QuantizeAndDequantizeV4", quantize_and_dequantize_v4_grad);
    register_gradient(
        "QuantizeAndDequantizeV4Grad",
        quantize_and_dequantize_v4_grad_grad,
    );
}
