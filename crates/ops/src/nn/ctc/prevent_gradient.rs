//! `PreventGradient`: the identity, whose gradient is an error (TensorFlow's
//! `array_ops.prevent_gradient`). `tf.nn.ctc_loss`'s gradient wraps the loss op's gradient
//! output in it, so that a second derivative fails loudly instead of silently being wrong.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, InferenceContext, Kernel, OpContext, OpDef, Output, Result,
};

/// `tf.raw_ops.PreventGradient(input, message)`: `input` unchanged; differentiating through it
/// fails with `message`.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, nn::prevent_gradient};
/// let g = Graph::new();
/// let x = prevent_gradient(constant(&g, vec![1.0f32, 2.0])?, "no second derivative")?;
/// assert_eq!(weir_session::Session::new(&g)?.eval(&x)?.to_vec::<f32>()?, [1.0, 2.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn prevent_gradient(input: impl Into<Output>, message: &str) -> Result<Output> {
    let x = input.into();
    crate::new_op(&x.graph().clone(), "PreventGradient")
        .input(x)
        .attr("message", message)
        .build()?
        .output(0)
}

struct ForwardKernel;

impl Kernel for ForwardKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = ctx.take_input(0);
        ctx.set_output(0, t);
        Ok(())
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    ctx.set_output(0, s);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("PreventGradient")
            .input("input", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .attr("message", AttrKind::Str, Some(AttrValue::from("")))
            .shape_fn(shape_fn),
    );
    register_kernel("PreventGradient", |_| Ok(Box::new(ForwardKernel)));
}
