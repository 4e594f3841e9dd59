//! The OpDefs of the queue ops, with TensorFlow's signatures and shape functions.

use weir_graph::registry::{register_alias, register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, OpDef, Result, Shape,
};

use super::kernels::{
    make_create_queue, CloseKernel, DequeueKernel, DequeueManyKernel, EnqueueKernel,
    IsClosedKernel, SizeKernel,
};

/// The private attr on dequeue nodes that carries the queue's element shapes, which TensorFlow
/// passes through the resource handle's shape metadata.
pub(crate) const ELEMENT_SHAPES: &str = "_element_shapes";

fn scalar(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.set_output(0, Shape::scalar());
    Ok(())
}

fn element_shapes(ctx: &InferenceContext<'_>) -> Vec<Shape> {
    ctx.attr::<Vec<Shape>>(ELEMENT_SHAPES).unwrap_or_default()
}

fn dequeue_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let shapes = element_shapes(ctx);
    for i in 0..ctx.num_outputs() {
        ctx.set_output(i, shapes.get(i).cloned().unwrap_or_else(Shape::unknown));
    }
    Ok(())
}

fn dequeue_many_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let n = match ctx.input_const(1) {
        Some(t) => {
            let n = t.to_scalar::<i32>()?;
            if n < 0 {
                return Err(Error::invalid_argument(format!(
                    "Input 'n' must be >= 0, but is {n}"
                )));
            }
            Some(n as usize)
        }
        None => None,
    };
    let lead = if ctx.op_type.starts_with("QueueDequeueUpTo") {
        None
    } else {
        n
    };
    let shapes = element_shapes(ctx);
    for i in 0..ctx.num_outputs() {
        let s = shapes.get(i).cloned().unwrap_or_else(Shape::unknown);
        let out = match s.rank() {
            Some(_) => s.with_leading(lead),
            None => Shape::unknown(),
        };
        ctx.set_output(i, out);
    }
    Ok(())
}

fn queue_def(name: &str) -> OpDef {
    OpDef::new(name)
        .output("handle", ArgType::Fixed(DType::Resource))
        .attr("component_types", AttrKind::Types, None)
        .attr(
            "shapes",
            AttrKind::Shapes,
            Some(AttrValue::Shapes(Vec::new())),
        )
        .attr("capacity", AttrKind::Int, Some(AttrValue::Int(-1)))
        .resource_name_attrs()
        .stateful()
        .shape_fn(scalar)
}

fn handle_op(name: &str) -> OpDef {
    OpDef::new(name)
        .input("handle", ArgType::Fixed(DType::Resource))
        .stateful()
}

pub(super) fn register() {
    register_op(queue_def("FIFOQueueV2"));
    register_op(queue_def("PaddingFIFOQueueV2"));
    register_op(
        queue_def("RandomShuffleQueueV2")
            .attr("min_after_dequeue", AttrKind::Int, Some(AttrValue::Int(0)))
            .attr("seed", AttrKind::Int, Some(AttrValue::Int(0)))
            .attr("seed2", AttrKind::Int, Some(AttrValue::Int(0))),
    );
    register_op(queue_def("PriorityQueueV2"));
    for op in [
        "FIFOQueueV2",
        "PaddingFIFOQueueV2",
        "RandomShuffleQueueV2",
        "PriorityQueueV2",
    ] {
        register_kernel(op, make_create_queue);
    }

    for (op, many) in [("QueueEnqueueV2", false), ("QueueEnqueueManyV2", true)] {
        register_op(
            handle_op(op)
                .input("components", ArgType::List("Tcomponents"))
                .attr("Tcomponents", AttrKind::Types, None)
                .attr("timeout_ms", AttrKind::Int, Some(AttrValue::Int(-1))),
        );
        register_kernel(
            op,
            if many {
                |_| Ok(Box::new(EnqueueKernel { many: true }))
            } else {
                |_| Ok(Box::new(EnqueueKernel { many: false }))
            },
        );
    }

    register_op(
        handle_op("QueueDequeueV2")
            .output("components", ArgType::List("component_types"))
            .attr("component_types", AttrKind::Types, None)
            .attr("timeout_ms", AttrKind::Int, Some(AttrValue::Int(-1)))
            .shape_fn(dequeue_shape),
    );
    register_kernel("QueueDequeueV2", |_| Ok(Box::new(DequeueKernel)));
    for (op, allow_small) in [("QueueDequeueManyV2", false), ("QueueDequeueUpToV2", true)] {
        register_op(
            handle_op(op)
                .input("n", ArgType::Fixed(DType::I32))
                .output("components", ArgType::List("component_types"))
                .attr("component_types", AttrKind::Types, None)
                .attr("timeout_ms", AttrKind::Int, Some(AttrValue::Int(-1)))
                .shape_fn(dequeue_many_shape),
        );
        register_kernel(
            op,
            if allow_small {
                |_| Ok(Box::new(DequeueManyKernel { allow_small: true }))
            } else {
                |_| Ok(Box::new(DequeueManyKernel { allow_small: false }))
            },
        );
    }

    register_op(handle_op("QueueCloseV2").attr(
        "cancel_pending_enqueues",
        AttrKind::Bool,
        Some(AttrValue::Bool(false)),
    ));
    register_kernel("QueueCloseV2", |node| {
        Ok(Box::new(CloseKernel {
            cancel_pending_enqueues: node.attr("cancel_pending_enqueues")?,
        }))
    });
    register_op(
        handle_op("QueueSizeV2")
            .output("size", ArgType::Fixed(DType::I32))
            .shape_fn(scalar),
    );
    register_kernel("QueueSizeV2", |_| Ok(Box::new(SizeKernel)));
    register_op(
        handle_op("QueueIsClosedV2")
            .output("is_closed", ArgType::Fixed(DType::Bool))
            .shape_fn(scalar),
    );
    register_kernel("QueueIsClosedV2", |_| Ok(Box::new(IsClosedKernel)));

    // TensorFlow 1.0's ref-handle ops, which GraphDefs of that time hold.
    for v1 in [
        "FIFOQueue",
        "PaddingFIFOQueue",
        "RandomShuffleQueue",
        "PriorityQueue",
        "QueueEnqueue",
        "QueueEnqueueMany",
        "QueueDequeue",
        "QueueDequeueMany",
        "QueueDequeueUpTo",
        "QueueClose",
        "QueueSize",
        "QueueIsClosed",
    ] {
        register_alias(&format!("{v1}V2"), v1);
    }
}
