//! The ops a TensorFlow 1 while loop is made of, besides `Switch` and `Merge`: `Enter` brings a
//! value into the loop's frame, `LoopCond` marks the loop's predicate, `NextIteration` carries a
//! variable's new value to the next iteration (the `Merge`'s back edge), and `Exit` gives the
//! final value to the enclosing frame.
//!
//! A run plan does not run these one by one: it runs each loop as a whole (see the session's
//! frames), feeding the values each iteration starts from. Their kernels forward their input, so
//! a plan that does meet one still gives the value it stands for.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Result,
};

/// Forwards input 0 to output 0.
struct Forward;

impl Kernel for Forward {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0);
        ctx.set_output(0, x);
        Ok(())
    }
}

fn same_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    ctx.set_output(0, s);
    Ok(())
}

fn loop_cond_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    if s.rank().is_some_and(|r| r != 0) {
        return Err(Error::invalid_argument(format!(
            "Shape must be rank 0 but is rank {} for 'LoopCond'",
            s.rank().unwrap_or(0)
        )));
    }
    ctx.set_output(0, weir_graph::Shape::scalar());
    Ok(())
}

fn forward_op(name: &str) -> OpDef {
    OpDef::new(name)
        .input("data", ArgType::Attr("T"))
        .output("output", ArgType::Attr("T"))
        .type_attr("T", DType::ALL)
        .shape_fn(same_shape)
}

pub(super) fn register() {
    register_op(
        forward_op("Enter")
            .attr("frame_name", AttrKind::Str, None)
            .attr("is_constant", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .attr(
                "parallel_iterations",
                AttrKind::Int,
                Some(AttrValue::Int(10)),
            ),
    );
    register_op(forward_op("Exit"));
    register_op(forward_op("NextIteration"));
    register_op(
        OpDef::new("LoopCond")
            .input("input", ArgType::Fixed(DType::Bool))
            .output("output", ArgType::Fixed(DType::Bool))
            .shape_fn(loop_cond_shape),
    );
    for op in ["Enter", "Exit", "NextIteration", "LoopCond"] {
        register_kernel(op, |_| Ok(Box::new(Forward)));
    }
}
