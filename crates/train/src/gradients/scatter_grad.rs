//! Gradients of the scatter ops and of the array ops that only move elements (TensorFlow's
//! `array_grad.py`, `manip_grad.py` and `state_grad.py`): `TensorScatterUpdate`, `Add`, `Sub`,
//! `Roll`, `SpaceToDepth`, `DepthToSpace`; the variable scatters, `LinSpace` and the binning
//! ops pass no gradient.

use weir_graph::{AttrValue, Output, Result};

use super::op;
use super::registry::{register_gradient, register_not_differentiable, GradContext};

type Grads = Result<Vec<Option<Output>>>;

/// `_TensorScatterUpdateGrad`: the updates get the gradient at their coordinates (every one of
/// repeated coordinates, as in TensorFlow), the tensor gets it with those coordinates zeroed.
fn tensor_scatter_update_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, indices, updates) = (ctx.grad0()?, ctx.input(1), ctx.input(2));
    let g = ctx.graph();
    let du = op(g, "GatherNd", &[&d, &indices], &[])?;
    let zeros = op(g, "ZerosLike", &[&updates], &[])?;
    let dt = op(
        g,
        "TensorScatterUpdate",
        &[&op(g, "Identity", &[&d], &[])?, &indices, &zeros],
        &[],
    )?;
    Ok(vec![Some(dt), None, Some(du)])
}

/// `_TensorScatterAddGrad` and `_TensorScatterSubGrad`: the tensor gets the gradient, the
/// updates its values at their coordinates (negated for Sub).
fn tensor_scatter_add_sub_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, indices) = (ctx.grad0()?, ctx.input(1));
    let g = ctx.graph();
    let mut du = op(g, "GatherNd", &[&d, &indices], &[])?;
    if ctx.op().op_type() == "TensorScatterSub" {
        du = op(g, "Neg", &[&du], &[])?;
    }
    Ok(vec![Some(op(g, "Identity", &[&d], &[])?), None, Some(du)])
}

/// `_RollGrad`: roll the gradient back.
fn roll_grad(ctx: &GradContext<'_>) -> Grads {
    let (d, shift, axis) = (ctx.grad0()?, ctx.input(1), ctx.input(2));
    let g = ctx.graph();
    let back = op(g, "Neg", &[&shift], &[])?;
    Ok(vec![
        Some(op(g, "Roll", &[&d, &back, &axis], &[])?),
        None,
        None,
    ])
}

/// `_SpaceToDepthGrad` / `_DepthToSpaceGrad`: the opposite op with the same block size.
fn space_depth_grad(ctx: &GradContext<'_>) -> Grads {
    let d = ctx.grad0()?;
    let other = if ctx.op().op_type() == "SpaceToDepth" {
        "DepthToSpace"
    } else {
        "SpaceToDepth"
    };
    let block: i64 = ctx.attr("block_size")?;
    let format: String = ctx.attr("data_format")?;
    let dx = op(
        ctx.graph(),
        other,
        &[&d],
        &[
            ("block_size", AttrValue::Int(block)),
            ("data_format", AttrValue::Str(format)),
        ],
    )?;
    Ok(vec![Some(dx)])
}

/// The variable scatters (TensorFlow's `state_grad.py`), and ops with no gradient in
/// TensorFlow's registry that weir's walk could otherwise reach through a float input.
const NOT_DIFFERENTIABLE: &[&str] = &[
    "ScatterUpdate",
    "ScatterAdd",
    "ScatterSub",
    "ScatterMul",
    "ScatterDiv",
    "ScatterMin",
    "ScatterMax",
    "ScatterNdUpdate",
    "ScatterNdAdd",
    "ScatterNdSub",
    "ResourceScatterUpdate",
    "ResourceScatterAdd",
    "ResourceScatterSub",
    "ResourceScatterMul",
    "ResourceScatterDiv",
    "ResourceScatterMin",
    "ResourceScatterMax",
    "ResourceScatterNdUpdate",
    "ResourceScatterNdAdd",
    "ResourceScatterNdSub",
    "LinSpace",
];

pub(super) fn register() {
    register_gradient("TensorScatterUpdate", tensor_scatter_update_grad);
    register_gradient("TensorScatterAdd", tensor_scatter_add_sub_grad);
    register_gradient("TensorScatterSub", tensor_scatter_add_sub_grad);
    register_gradient("Roll", roll_grad);
    register_gradient("SpaceToDepth", space_depth_grad);
    register_gradient("DepthToSpace", space_depth_grad);
    for name in NOT_DIFFERENTIABLE {
        register_not_differentiable(name);
    }
}
