//! TensorFlow's stacks (`StackV2`, `StackPushV2`, `StackPopV2`, `StackCloseV2`): what a while
//! loop's gradient keeps each forward iteration's values on, popped in reverse by the backward
//! loop. Each run of `StackV2` makes a new, empty stack, as TensorFlow's does per step.

use std::sync::Arc;

use parking_lot::Mutex;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, Graph, InferenceContext, Kernel, OpContext, OpDef,
    Output, Resource, ResourceHandle, Result, Shape, Tensor,
};

/// One stack's values.
struct Stack {
    name: String,
    max_size: Option<usize>,
    elem_type: DType,
    values: Mutex<Vec<Tensor>>,
}

impl Resource for Stack {
    fn type_name(&self) -> &str {
        "Stack"
    }
}

/// `StackV2(max_size, elem_type, stack_name)`: a new stack of `elem_type` values, at most
/// `max_size` of them (unbounded when negative); its resource handle.
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::{array::constant, data_flow::{stack, stack_pop, stack_push}};
/// let g = Graph::new();
/// let s = stack(&g, -1, DType::F32, "acc")?;
/// let pushed = stack_push(&s, &constant(&g, 2.0f32)?)?;
/// assert_eq!(stack_pop(&s, DType::F32)?.dtype(), DType::F32);
/// # let _ = pushed;
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn stack(g: &Graph, max_size: i32, elem_type: DType, stack_name: &str) -> Result<Output> {
    let size = crate::array::constant(g, max_size)?;
    crate::new_op(g, "StackV2")
        .input(&size)
        .attr("elem_type", elem_type)
        .attr("stack_name", stack_name)
        .build()?
        .output(0)
}

/// `StackPushV2(handle, elem)`: pushes `elem` on the stack; outputs `elem`.
pub fn stack_push(handle: &Output, elem: &Output) -> Result<Output> {
    crate::new_op(handle.graph(), "StackPushV2")
        .input(handle)
        .input(elem)
        .build()?
        .output(0)
}

/// `StackPopV2(handle)`: the value last pushed, removed from the stack.
pub fn stack_pop(handle: &Output, elem_type: DType) -> Result<Output> {
    crate::new_op(handle.graph(), "StackPopV2")
        .input(handle)
        .attr("elem_type", elem_type)
        .build()?
        .output(0)
}

struct StackKernel;

impl Kernel for StackKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let max = ctx.input(0).to_scalar::<i32>()?;
        let name: String = ctx.attr("stack_name")?;
        let name = if name.is_empty() {
            ctx.node().name().to_string()
        } else {
            name
        };
        let stack = Stack {
            name: name.clone(),
            max_size: usize::try_from(max).ok(),
            elem_type: ctx.attr("elem_type")?,
            values: Mutex::new(Vec::new()),
        };
        ctx.set_output(
            0,
            Tensor::scalar(ResourceHandle::new("", &name, Arc::new(stack))),
        );
        Ok(())
    }
}

struct PushKernel;

impl Kernel for PushKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let elem = ctx.input(1).clone();
        let stack = ctx.resource::<Stack>(0)?;
        if elem.dtype() != stack.elem_type {
            return Err(Error::invalid_argument(format!(
                "Stack[{}]: pushed a {} value onto a stack of {}",
                stack.name,
                elem.dtype(),
                stack.elem_type
            )));
        }
        {
            let mut values = stack.values.lock();
            if stack.max_size.is_some_and(|m| values.len() >= m) {
                return Err(Error::invalid_argument(format!(
                    "Stack[{}] overflowed its max_size ({})",
                    stack.name,
                    stack.max_size.unwrap_or(0)
                )));
            }
            values.push(elem.clone());
        }
        ctx.set_output(0, elem);
        Ok(())
    }
}

struct PopKernel;

impl Kernel for PopKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let stack = ctx.resource::<Stack>(0)?;
        let value =
            stack.values.lock().pop().ok_or_else(|| {
                Error::invalid_argument(format!("Stack[{}] is empty.", stack.name))
            })?;
        ctx.set_output(0, value);
        Ok(())
    }
}

struct CloseKernel;

impl Kernel for CloseKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        ctx.resource::<Stack>(0)?.values.lock().clear();
        Ok(())
    }
}

fn handle_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.set_output(0, Shape::scalar());
    Ok(())
}

fn elem_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(1).clone();
    ctx.set_output(0, s);
    Ok(())
}

fn unknown_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.set_output(0, Shape::unknown());
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("StackV2")
            .input("max_size", ArgType::Fixed(DType::I32))
            .output("handle", ArgType::Fixed(DType::Resource))
            .attr("elem_type", AttrKind::Type, None)
            .attr(
                "stack_name",
                AttrKind::Str,
                Some(AttrValue::Str(String::new())),
            )
            .stateful()
            .shape_fn(handle_shape),
    );
    register_op(
        OpDef::new("StackPushV2")
            .input("handle", ArgType::Fixed(DType::Resource))
            .input("elem", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL)
            .attr("swap_memory", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .stateful()
            .shape_fn(elem_shape),
    );
    register_op(
        OpDef::new("StackPopV2")
            .input("handle", ArgType::Fixed(DType::Resource))
            .output("elem", ArgType::Attr("elem_type"))
            .attr("elem_type", AttrKind::Type, None)
            .stateful()
            .shape_fn(unknown_shape),
    );
    register_op(
        OpDef::new("StackCloseV2")
            .input("handle", ArgType::Fixed(DType::Resource))
            .stateful(),
    );
    register_kernel("StackV2", |_| Ok(Box::new(StackKernel)));
    register_kernel("StackPushV2", |_| Ok(Box::new(PushKernel)));
    register_kernel("StackPopV2", |_| Ok(Box::new(PopKernel)));
    register_kernel("StackCloseV2", |_| Ok(Box::new(CloseKernel)));
}
