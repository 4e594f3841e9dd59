//! The OpDefs of the TensorArray V3 ops: TensorFlow's names, inputs, outputs, attrs and
//! defaults (data_flow_ops.cc), with their shape functions.
//!
//! TensorFlow's shape functions also read the element shape a `TensorArrayV3` attaches to its
//! handle ("handle data"); weir has none, so a read's static shape comes from the Python-level
//! element shape that [`TensorArray`](super::TensorArray) tracks, exactly as the Python layer
//! then sets it.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, OpDef, Result, Shape,
};

use super::kernels::{
    make_create, CloseKernel, ConcatKernel, GatherKernel, GradKernel, ReadKernel, ScatterKernel,
    SizeKernel, SplitKernel, WriteKernel,
};

/// A TensorArray handle is a 2-vector to shape inference (its run-time value is one resource).
fn check_handle(ctx: &InferenceContext<'_>) -> Result<()> {
    let s = ctx.with_rank(0, 1)?;
    match s.dim(0) {
        Some(d) if d != 2 => Err(Error::invalid_argument(format!(
            "Dimension must be 2 but is {d} for '{}' (input 0 has shape {s})",
            ctx.op_type
        ))),
        _ => Ok(()),
    }
}

fn create_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(0, 0)?;
    ctx.set_output(0, Shape::known(&[2]));
    ctx.set_output(1, Shape::scalar());
    Ok(())
}

fn grad_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    check_handle(ctx)?;
    ctx.with_rank(1, 0)?;
    ctx.set_output(0, Shape::known(&[2]));
    ctx.set_output(1, Shape::scalar());
    Ok(())
}

fn write_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    check_handle(ctx)?;
    ctx.with_rank(1, 0)?;
    ctx.with_rank(3, 0)?;
    ctx.set_output(0, Shape::scalar());
    Ok(())
}

fn read_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    check_handle(ctx)?;
    ctx.with_rank(1, 0)?;
    ctx.with_rank(2, 0)?;
    ctx.set_output(0, Shape::unknown());
    Ok(())
}

fn gather_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    check_handle(ctx)?;
    let indices = ctx.with_rank(1, 1)?;
    ctx.with_rank(2, 0)?;
    let element: Shape = ctx.attr("element_shape")?;
    ctx.set_output(0, indices.concatenate(&element));
    Ok(())
}

fn scatter_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    check_handle(ctx)?;
    let indices = ctx.with_rank(1, 1)?;
    ctx.with_rank(3, 0)?;
    let value = ctx.input_shape(2).clone();
    if value.rank() == Some(0) {
        return Err(Error::invalid_argument(format!(
            "Shape must be at least rank 1 but is rank 0 for '{}' (input 2 has shape {value})",
            ctx.op_type
        )));
    }
    if let (Some(v), Some(n)) = (value.dim(0), indices.dim(0)) {
        if v != n {
            return Err(Error::invalid_argument(format!(
                "Dimensions must be equal, but are {v} and {n} for '{}' with input shapes: {value}, {indices}.",
                ctx.op_type
            )));
        }
    }
    ctx.set_output(0, Shape::scalar());
    Ok(())
}

fn concat_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    check_handle(ctx)?;
    ctx.with_rank(1, 0)?;
    ctx.set_output(0, Shape::unknown());
    ctx.set_output(1, Shape::new(vec![None]));
    Ok(())
}

fn split_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    check_handle(ctx)?;
    ctx.with_rank(2, 1)?;
    ctx.with_rank(3, 0)?;
    ctx.set_output(0, Shape::scalar());
    Ok(())
}

fn size_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    check_handle(ctx)?;
    ctx.set_output(0, Shape::scalar());
    Ok(())
}

fn close_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    check_handle(ctx)
}

fn handle_op(name: &str) -> OpDef {
    OpDef::new(name)
        .input("handle", ArgType::Fixed(DType::Resource))
        .stateful()
}

fn unknown_shape() -> Option<AttrValue> {
    Some(AttrValue::Shape(Shape::unknown()))
}

pub(super) fn register() {
    register_op(
        OpDef::new("TensorArrayV3")
            .input("size", ArgType::Fixed(DType::I32))
            .output("handle", ArgType::Fixed(DType::Resource))
            .output("flow", ArgType::Fixed(DType::F32))
            .type_attr("dtype", DType::ALL)
            .attr("element_shape", AttrKind::Shape, unknown_shape())
            .attr("dynamic_size", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .attr(
                "clear_after_read",
                AttrKind::Bool,
                Some(AttrValue::Bool(true)),
            )
            .attr(
                "identical_element_shapes",
                AttrKind::Bool,
                Some(AttrValue::Bool(false)),
            )
            .attr(
                "tensor_array_name",
                AttrKind::Str,
                Some(AttrValue::Str(String::new())),
            )
            .stateful()
            .shape_fn(create_shape),
    );
    register_kernel("TensorArrayV3", make_create);

    register_op(
        handle_op("TensorArrayWriteV3")
            .input("index", ArgType::Fixed(DType::I32))
            .input("value", ArgType::Attr("T"))
            .input("flow_in", ArgType::Fixed(DType::F32))
            .output("flow_out", ArgType::Fixed(DType::F32))
            .type_attr("T", DType::ALL)
            .shape_fn(write_shape),
    );
    register_kernel("TensorArrayWriteV3", |_| Ok(Box::new(WriteKernel)));

    register_op(
        handle_op("TensorArrayReadV3")
            .input("index", ArgType::Fixed(DType::I32))
            .input("flow_in", ArgType::Fixed(DType::F32))
            .output("value", ArgType::Attr("dtype"))
            .type_attr("dtype", DType::ALL)
            .shape_fn(read_shape),
    );
    register_kernel("TensorArrayReadV3", |node| {
        Ok(Box::new(ReadKernel(node.attr("dtype")?)))
    });

    register_op(
        handle_op("TensorArrayGatherV3")
            .input("indices", ArgType::Fixed(DType::I32))
            .input("flow_in", ArgType::Fixed(DType::F32))
            .output("value", ArgType::Attr("dtype"))
            .type_attr("dtype", DType::ALL)
            .attr("element_shape", AttrKind::Shape, unknown_shape())
            .shape_fn(gather_shape),
    );
    register_kernel("TensorArrayGatherV3", |node| {
        Ok(Box::new(GatherKernel {
            dtype: node.attr("dtype")?,
            element_shape: node.attr("element_shape")?,
        }))
    });

    register_op(
        handle_op("TensorArrayScatterV3")
            .input("indices", ArgType::Fixed(DType::I32))
            .input("value", ArgType::Attr("T"))
            .input("flow_in", ArgType::Fixed(DType::F32))
            .output("flow_out", ArgType::Fixed(DType::F32))
            .type_attr("T", DType::ALL)
            .shape_fn(scatter_shape),
    );
    register_kernel("TensorArrayScatterV3", |_| Ok(Box::new(ScatterKernel)));

    register_op(
        handle_op("TensorArrayConcatV3")
            .input("flow_in", ArgType::Fixed(DType::F32))
            .output("value", ArgType::Attr("dtype"))
            .output("lengths", ArgType::Fixed(DType::I64))
            .type_attr("dtype", DType::ALL)
            .attr("element_shape_except0", AttrKind::Shape, unknown_shape())
            .shape_fn(concat_shape),
    );
    register_kernel("TensorArrayConcatV3", |node| {
        Ok(Box::new(ConcatKernel {
            dtype: node.attr("dtype")?,
            element_shape_except0: node.attr("element_shape_except0")?,
        }))
    });

    register_op(
        handle_op("TensorArraySplitV3")
            .input("value", ArgType::Attr("T"))
            .input("lengths", ArgType::Fixed(DType::I64))
            .input("flow_in", ArgType::Fixed(DType::F32))
            .output("flow_out", ArgType::Fixed(DType::F32))
            .type_attr("T", DType::ALL)
            .shape_fn(split_shape),
    );
    register_kernel("TensorArraySplitV3", |_| Ok(Box::new(SplitKernel)));

    register_op(
        handle_op("TensorArraySizeV3")
            .input("flow_in", ArgType::Fixed(DType::F32))
            .output("size", ArgType::Fixed(DType::I32))
            .shape_fn(size_shape),
    );
    register_kernel("TensorArraySizeV3", |_| Ok(Box::new(SizeKernel)));

    register_op(handle_op("TensorArrayCloseV3").shape_fn(close_shape));
    register_kernel("TensorArrayCloseV3", |_| Ok(Box::new(CloseKernel)));

    register_op(
        handle_op("TensorArrayGradV3")
            .input("flow_in", ArgType::Fixed(DType::F32))
            .output("grad_handle", ArgType::Fixed(DType::Resource))
            .output("flow_out", ArgType::Fixed(DType::F32))
            .attr("source", AttrKind::Str, None)
            .shape_fn(grad_shape),
    );
    register_kernel("TensorArrayGradV3", |node| {
        Ok(Box::new(GradKernel(node.attr("source")?)))
    });
}
