//! `Const`: a tensor value held in the graph (`tf.constant`).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, DType, Graph, Kernel, Node, OpContext, OpDef, Output, Result, Shape, Tensor,
};

/// A constant node holding `value` (`tf.constant(value)`), named `Const` in the current scope.
///
/// ```
/// # use weir_graph::Graph;
/// let g = Graph::new();
/// let c = weir_ops::array::constant(&g, [[1.0f32, 2.0], [3.0, 4.0]].map(|r| r.to_vec()).concat())?;
/// assert_eq!(c.name(), "Const:0");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn constant(graph: &Graph, value: impl Into<Tensor>) -> Result<Output> {
    constant_impl(graph, value.into(), None)
}

/// A constant node named `name` (`tf.constant(value, name=name)`).
pub fn constant_named(graph: &Graph, value: impl Into<Tensor>, name: &str) -> Result<Output> {
    constant_impl(graph, value.into(), Some(name))
}

fn constant_impl(graph: &Graph, value: Tensor, name: Option<&str>) -> Result<Output> {
    crate::new_op(graph, "Const")
        .maybe_name(name)
        .attr("dtype", value.dtype())
        .attr("value", value)
        .build()?
        .output(0)
}

struct ConstKernel(Tensor);

impl Kernel for ConstKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        ctx.set_output(0, self.0.clone());
        Ok(())
    }

    fn const_tensor(&self) -> Option<&Tensor> {
        Some(&self.0)
    }
}

fn shape_fn(ctx: &mut weir_graph::InferenceContext<'_>) -> Result<()> {
    let t: Tensor = ctx.attr("value")?;
    ctx.set_output(0, Shape::known(t.shape()));
    Ok(())
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(ConstKernel(node.attr("value")?)))
}

pub(super) fn register() {
    register_op(
        OpDef::new("Const")
            .output("output", ArgType::Attr("dtype"))
            .attr("value", AttrKind::Tensor, None)
            .type_attr("dtype", DType::ALL_DATA)
            .shape_fn(shape_fn),
    );
    register_kernel("Const", make);
}
