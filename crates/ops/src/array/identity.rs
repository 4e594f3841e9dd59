//! `Identity` and `IdentityN`: forward their inputs unchanged (no copy).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, DType, Kernel, Node, OpContext, OpDef, Output, Result};

/// `tf.identity(x)`: the same tensor, as a new node.
pub fn identity(x: impl Into<Output>) -> Result<Output> {
    identity_impl(x.into(), None)
}

/// `tf.identity(x, name=name)`.
pub fn identity_named(x: impl Into<Output>, name: &str) -> Result<Output> {
    identity_impl(x.into(), Some(name))
}

fn identity_impl(x: Output, name: Option<&str>) -> Result<Output> {
    crate::new_op(x.graph(), "Identity")
        .maybe_name(name)
        .input(&x)
        .build()?
        .output(0)
}

/// `tf.identity_n(xs)`: each tensor forwarded unchanged, by one node.
pub fn identity_n(xs: &[Output]) -> Result<Vec<Output>> {
    let g = crate::util::same_graph(&xs.iter().collect::<Vec<_>>())?.clone();
    Ok(crate::new_op(&g, "IdentityN").inputs(xs).build()?.outputs())
}

struct Forward;

impl Kernel for Forward {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        for i in 0..ctx.num_inputs() {
            let t = ctx.take_input(i);
            ctx.set_output(i, t);
        }
        Ok(())
    }
}

fn make(_: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(Forward))
}

fn identity_shape(ctx: &mut weir_graph::InferenceContext<'_>) -> Result<()> {
    for i in 0..ctx.num_inputs() {
        let s = ctx.input_shape(i).clone();
        ctx.set_output(i, s);
    }
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("Identity")
            .input("input", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL)
            .shape_fn(identity_shape),
    );
    register_kernel("Identity", make);
    register_op(
        OpDef::new("IdentityN")
            .input("input", ArgType::List("T"))
            .output("output", ArgType::List("T"))
            .attr("T", weir_graph::AttrKind::Types, None)
            .shape_fn(identity_shape),
    );
    register_kernel("IdentityN", make);
}
