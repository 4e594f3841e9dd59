//! `Switch` and `Merge`, the two ops `tf.cond` is made of (TensorFlow 1's control flow): a
//! Switch forwards its data to one of two outputs and leaves the other dead, so that whatever
//! reads the dead one does not run; a Merge forwards whichever of its inputs is live.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, ControlFlowRole, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output,
    Result, Shape, Tensor,
};

/// `Switch(data, pred)` (`control_flow_ops.switch`): `(output_false, output_true)`, of which
/// only the one `pred` selects is live in a run; the other is dead.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::{constant, placeholder}, control_flow::switch};
/// let g = Graph::new();
/// let p = placeholder(&g, DType::Bool, Shape::scalar())?;
/// let (if_false, if_true) = switch(&constant(&g, [1i32, 2])?, &p)?;
/// assert_eq!(if_true.shape(), Shape::known(&[2]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn switch(data: &Output, pred: &Output) -> Result<(Output, Output)> {
    switch_named(data, pred, None)
}

/// [`switch`] with a node name.
pub fn switch_named(data: &Output, pred: &Output, name: Option<&str>) -> Result<(Output, Output)> {
    let op = crate::new_op(data.graph(), "Switch")
        .maybe_name(name)
        .input(data)
        .input(pred)
        .build()?;
    Ok((op.output(0)?, op.output(1)?))
}

/// `Merge(inputs)` (`control_flow_ops.merge`): `(output, value_index)`, the first live input and
/// its index. The op runs once any input is live, and is dead only when all are.
pub fn merge(inputs: &[Output]) -> Result<(Output, Output)> {
    merge_named(inputs, None)
}

/// [`merge`] with a node name.
pub fn merge_named(inputs: &[Output], name: Option<&str>) -> Result<(Output, Output)> {
    let g = crate::util::same_graph(&inputs.iter().collect::<Vec<_>>())?.clone();
    if let Some(first) = inputs.first() {
        let dtypes: Vec<DType> = inputs.iter().map(Output::dtype).collect();
        if dtypes.iter().any(|&d| d != first.dtype()) {
            let names: Vec<&str> = dtypes.iter().map(|d| d.python_name()).collect();
            return Err(Error::invalid_argument(format!(
                "Tensors in list passed to 'inputs' of 'Merge' Op have types [{}] that don't all match.",
                names.join(", ")
            )));
        }
    }
    let op = crate::new_op(&g, "Merge")
        .maybe_name(name)
        .inputs(inputs)
        .build()?;
    Ok((op.output(0)?, op.output(1)?))
}

struct SwitchKernel;

impl Kernel for SwitchKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let pred = ctx.input(1);
        if !pred.shape().is_empty() {
            return Err(Error::invalid_argument(format!(
                "The second input must be a scalar, but it has shape {}",
                weir_graph::format_dims(pred.shape())
            )));
        }
        let taken = usize::from(pred.to_scalar::<bool>()?);
        let data = ctx.take_input(0);
        ctx.set_output(taken, data);
        ctx.mark_output_dead(1 - taken);
        Ok(())
    }

    fn control_flow_role(&self) -> ControlFlowRole {
        ControlFlowRole::Switch
    }
}

struct MergeKernel;

impl Kernel for MergeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        // With several live inputs TensorFlow forwards the first to arrive (and logs that the
        // graph misuses Merge); here that is the first in order.
        let live = (0..ctx.num_inputs())
            .find(|&i| !ctx.input_is_dead(i))
            .ok_or_else(|| Error::internal("Merge ran with every input dead"))?;
        let value = ctx.take_input(live);
        ctx.set_output(0, value);
        ctx.set_output(1, Tensor::scalar(live as i32));
        Ok(())
    }

    fn control_flow_role(&self) -> ControlFlowRole {
        ControlFlowRole::Merge
    }
}

fn switch_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(1, 0)?;
    let s = ctx.input_shape(0).clone();
    ctx.set_output(0, s.clone());
    ctx.set_output(1, s);
    Ok(())
}

/// TensorFlow's `MergeShape`: the inputs' common rank, with each dimension the inputs disagree
/// on unknown; unknown rank when the ranks differ.
fn merge_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let mut out: Option<Vec<Option<usize>>> = ctx.input_shape(0).dims().map(<[_]>::to_vec);
    for i in 1..ctx.num_inputs() {
        let (Some(o), Some(d)) = (out.as_mut(), ctx.input_shape(i).dims()) else {
            out = None;
            break;
        };
        if o.len() != d.len() {
            out = None;
            break;
        }
        for (a, b) in o.iter_mut().zip(d) {
            if a != b {
                *a = None;
            }
        }
    }
    ctx.set_output(0, out.map_or_else(Shape::unknown, Shape::new));
    ctx.set_output(1, Shape::scalar());
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("Switch")
            .input("data", ArgType::Attr("T"))
            .input("pred", ArgType::Fixed(DType::Bool))
            .output("output_false", ArgType::Attr("T"))
            .output("output_true", ArgType::Attr("T"))
            .type_attr("T", DType::ALL)
            .shape_fn(switch_shape),
    );
    register_kernel("Switch", |_| Ok(Box::new(SwitchKernel)));
    register_op(
        OpDef::new("Merge")
            .input(
                "inputs",
                ArgType::Repeated {
                    count: "N",
                    ty: "T",
                },
            )
            .output("output", ArgType::Attr("T"))
            .output("value_index", ArgType::Fixed(DType::I32))
            .type_attr("T", DType::ALL)
            .int_attr_min("N", 1)
            .shape_fn(merge_shape),
    );
    register_kernel("Merge", |_| Ok(Box::new(MergeKernel)));
}
