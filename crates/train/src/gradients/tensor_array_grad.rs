//! Gradients of the TensorArray ops (TensorFlow's `tensor_array_grad.py`): the gradient of an
//! array's elements lives in its gradient array (`TensorArrayGradV3`, one per gradient
//! computation, named by the `gradients` scope it is built in); a read's gradient is written to
//! it, a write's gradient is read from it, and likewise gather and scatter, concat and split.
//! The flows carry the order: a value's gradient is read only after every gradient written for
//! it.

use weir_graph::{DType, Error, Graph, Output, Result, Shape};
use weir_ops::array::identity_named;
use weir_ops::tensor_array::TensorArray;

use super::registry::{register_gradient, register_not_differentiable, GradContext};

type Grads = Result<Vec<Option<Output>>>;

/// The gradient computation an op being built belongs to: its name scope up to the last part
/// that starts with `gradients` (TensorFlow's `_GetGradSource`).
fn grad_source(g: &Graph) -> Result<String> {
    let scope = g.current_scope();
    let parts: Vec<&str> = scope.split('/').collect();
    let last = parts
        .iter()
        .rposition(|p| p.starts_with("gradients"))
        .ok_or_else(|| {
            Error::invalid_argument(format!(
                "Failed to find gradient op name in scope '{scope}'"
            ))
        })?;
    Ok(parts[..=last].join("/"))
}

/// The gradient array of the op's array (input 0), seen through `flow`.
fn grad_array(ctx: &GradContext<'_>, dtype_attr: &str, flow: &Output) -> Result<TensorArray> {
    let dtype: DType = ctx.attr(dtype_attr)?;
    let source = grad_source(ctx.graph())?;
    TensorArray::from_handle(&ctx.input(0), flow, dtype, Shape::unknown()).grad(&source, flow)
}

/// The gradient of a write's flow, made to wait for the forward write (TensorFlow's
/// `write_barrier`).
fn after_forward(ctx: &GradContext<'_>, flow_grad: &Output) -> Result<Output> {
    let flow_out = identity_named(ctx.output(0), "flow_out")?;
    let _after = ctx.graph().control_dependencies(&[flow_out.op()])?;
    identity_named(flow_grad, "write_barrier")
}

/// Read: the value's gradient is written to the gradient array at the index.
fn read_grad(ctx: &GradContext<'_>) -> Grads {
    let Some(d) = ctx.grad(0).cloned() else {
        return Ok(vec![None, None, None]);
    };
    let flow = ctx.input(2);
    let g = grad_array(ctx, "dtype", &flow)?;
    let written = g.write(ctx.input(1), &d)?;
    Ok(vec![None, None, Some(written.flow().clone())])
}

/// Write: the value's gradient is read from the gradient array at the index.
fn write_grad(ctx: &GradContext<'_>) -> Grads {
    let Some(flow_grad) = ctx.grad(0).cloned() else {
        return Ok(vec![None; 4]);
    };
    let flow = after_forward(ctx, &flow_grad)?;
    let g = grad_array(ctx, "T", &flow)?;
    let value = g.read(ctx.input(1))?;
    Ok(vec![None, None, Some(value), Some(flow)])
}

/// Gather (and stack): the gradient is scattered into the gradient array.
fn gather_grad(ctx: &GradContext<'_>) -> Grads {
    let Some(d) = ctx.grad(0).cloned() else {
        return Ok(vec![None, None, None]);
    };
    let flow = ctx.input(2);
    let g = grad_array(ctx, "dtype", &flow)?;
    let scattered = g.scatter(ctx.input(1), &d)?;
    Ok(vec![None, None, Some(scattered.flow().clone())])
}

/// Scatter (and unstack): the value's gradient is gathered from the gradient array.
fn scatter_grad(ctx: &GradContext<'_>) -> Grads {
    let Some(flow_grad) = ctx.grad(0).cloned() else {
        return Ok(vec![None; 4]);
    };
    let flow = after_forward(ctx, &flow_grad)?;
    let g = grad_array(ctx, "T", &flow)?;
    let value = g.gather(ctx.input(1))?;
    Ok(vec![None, None, Some(value), Some(flow)])
}

/// Concat: the gradient is split into the gradient array by the elements' lengths.
fn concat_grad(ctx: &GradContext<'_>) -> Grads {
    let Some(d) = ctx.grad(0).cloned() else {
        return Ok(vec![None, None]);
    };
    let flow = ctx.input(1);
    let g = grad_array(ctx, "dtype", &flow)?;
    let split = g.split(&d, ctx.output(1))?;
    Ok(vec![None, Some(split.flow().clone())])
}

/// Split: the value's gradient is the gradient array concatenated.
fn split_grad(ctx: &GradContext<'_>) -> Grads {
    let Some(flow_grad) = ctx.grad(0).cloned() else {
        return Ok(vec![None; 4]);
    };
    let flow = after_forward(ctx, &flow_grad)?;
    let g = grad_array(ctx, "T", &flow)?;
    let value = g.concat()?;
    Ok(vec![None, Some(value), None, Some(flow)])
}

pub(super) fn register() {
    register_gradient("TensorArrayReadV3", read_grad);
    register_gradient("TensorArrayWriteV3", write_grad);
    register_gradient("TensorArrayGatherV3", gather_grad);
    register_gradient("TensorArrayScatterV3", scatter_grad);
    register_gradient("TensorArrayConcatV3", concat_grad);
    register_gradient("TensorArraySplitV3", split_grad);
    for op in [
        "TensorArrayV3",
        "TensorArrayGradV3",
        "TensorArraySizeV3",
        "TensorArrayCloseV3",
    ] {
        register_not_differentiable(op);
    }
}
