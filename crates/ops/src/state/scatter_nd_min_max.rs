//! `ScatterNdMax`, `ScatterNdMin` (TF1 ref-variable ops, which output the updated value;
//! `v.scatter_nd_max(indices, updates)` of a `RefVariable`) and `ResourceScatterNdMax`,
//! `ResourceScatterNdMin` (no output; the same method of a `ResourceVariable`): the slices of a
//! variable at the coordinates in `indices` become their elementwise maximum (minimum) with
//! `updates`.
//!
//! They share the `ScatterNd*` variable ops' checks (`plan_nd`) and the `TensorScatterMax`
//! combine, which keeps the current value on NaN and ties as TensorFlow's Eigen functor does.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, Kernel, Node, OpContext, OpDef, Operation, Output,
    Result,
};

use super::kernels::var_of;
use super::Variable;
use crate::array::scatter_apply::plan_nd;
use crate::array::tensor_scatter::check_nd_static;
use crate::array::tensor_scatter_min_max::{apply_min_max, MIN_MAX_ND_TYPES};

/// The graph-construction checks of TensorFlow's op wrappers and `ScatterNdUpdateShape`.
fn check_static(var: &Variable, op: &str, indices: &Output, updates: &Output) -> Result<()> {
    if updates.dtype() != var.dtype() {
        return Err(Error::invalid_argument(format!(
            "Input 'updates' of '{op}' Op has type {} that does not match type {} of argument \
             'ref' (variable {}).",
            updates.dtype().python_name(),
            var.dtype().python_name(),
            var.name()
        )));
    }
    if !matches!(indices.dtype(), DType::I32 | DType::I64) {
        return Err(Error::invalid_argument(format!(
            "Value passed to parameter 'indices' has DataType {} not in list of allowed values: \
             int32, int64",
            indices.dtype().python_name()
        )));
    }
    if !MIN_MAX_ND_TYPES.contains(&var.dtype()) {
        return Err(Error::invalid_argument(format!(
            "Value passed to parameter 'ref' has DataType {} not in list of allowed values for \
             {op}",
            var.dtype().python_name()
        )));
    }
    check_nd_static(&var.shape(), &indices.shape(), &updates.shape(), true)
}

fn build(var: &Variable, op: &str, indices: Output, updates: Output) -> Result<Operation> {
    check_static(var, op, &indices, &updates)?;
    let mut b = crate::new_op(var.graph(), op)
        .input(var.handle())
        .input(indices)
        .input(updates);
    if !op.starts_with("Resource") {
        // `RefVariable.scatter_nd_max` locks, though the op's default does not.
        b = b.attr("use_locking", true).output_shape(0, var.shape());
    }
    b.build()
}

/// `v.scatter_nd_max(indices, updates)` of a TF1 ref variable (TensorFlow's `ScatterNdMax`,
/// with `use_locking=True`): sets each slice of the variable at the coordinates in the
/// innermost dimension of `indices` to its elementwise maximum with the matching slice of
/// `updates` (shape `indices.shape[:-1] + ref.shape[indices.shape[-1]:]`), and returns the
/// updated value.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, state::{scatter_nd_max, Variable}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let v = Variable::new(constant(&g, [1, 5, 3])?)?;
/// let i = constant(&g, Tensor::from_vec(&[2, 1], vec![0, 1])?)?;
/// let up = scatter_nd_max(&v, i, constant(&g, [4, 2])?)?;
/// let sess = Session::new(&g)?;
/// sess.run_target(&v.initializer())?;
/// assert_eq!(sess.eval(&up)?.to_vec::<i32>()?, vec![4, 5, 3]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn scatter_nd_max(
    var: &Variable,
    indices: impl Into<Output>,
    updates: impl Into<Output>,
) -> Result<Output> {
    build(var, "ScatterNdMax", indices.into(), updates.into())?.output(0)
}

/// `v.scatter_nd_min(indices, updates)` of a TF1 ref variable (TensorFlow's `ScatterNdMin`):
/// as [`scatter_nd_max`] with the elementwise minimum.
pub fn scatter_nd_min(
    var: &Variable,
    indices: impl Into<Output>,
    updates: impl Into<Output>,
) -> Result<Output> {
    build(var, "ScatterNdMin", indices.into(), updates.into())?.output(0)
}

/// `v.scatter_nd_max(indices, updates)` of a resource variable (TensorFlow's
/// `ResourceScatterNdMax`): the update of [`scatter_nd_max`], with no output (read the
/// variable after it).
pub fn resource_scatter_nd_max(
    var: &Variable,
    indices: impl Into<Output>,
    updates: impl Into<Output>,
) -> Result<Operation> {
    build(var, "ResourceScatterNdMax", indices.into(), updates.into())
}

/// `v.scatter_nd_min(indices, updates)` of a resource variable (TensorFlow's
/// `ResourceScatterNdMin`): the update of [`scatter_nd_min`], with no output.
pub fn resource_scatter_nd_min(
    var: &Variable,
    indices: impl Into<Output>,
    updates: impl Into<Output>,
) -> Result<Operation> {
    build(var, "ResourceScatterNdMin", indices.into(), updates.into())
}

/// Checks, then combines under the variable's write lock; a failed check leaves it unchanged.
struct ScatterNdMinMaxKernel {
    max: bool,
    resource: bool,
}

impl Kernel for ScatterNdMinMaxKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (indices, updates) = (ctx.input(1).clone(), ctx.input(2).clone());
        let var = var_of(ctx)?;
        let mut slot = var.lock_value();
        let mut value = slot.take().ok_or_else(|| var.uninitialized_error())?;
        let shape = value.shape().to_vec();
        let done = plan_nd(&shape, &indices, updates.shape())
            .and_then(|p| apply_min_max(&mut value, &p, &updates, self.max));
        *slot = Some(value.clone());
        drop(slot);
        done?;
        if !self.resource {
            ctx.set_output(0, value);
        }
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let op = node.op_type();
    Ok(Box::new(ScatterNdMinMaxKernel {
        max: op.ends_with("Max"),
        resource: op.starts_with("Resource"),
    }))
}

pub(super) fn register() {
    let resource = ArgType::Fixed(DType::Resource);
    for name in [
        "ScatterNdMax",
        "ScatterNdMin",
        "ResourceScatterNdMax",
        "ResourceScatterNdMin",
    ] {
        let is_resource = name.starts_with("Resource");
        let mut def = OpDef::new(name)
            .input("ref", resource.clone())
            .input("indices", ArgType::Attr("Tindices"))
            .input("updates", ArgType::Attr("T"));
        if !is_resource {
            def = def.output("output_ref", ArgType::Attr("T"));
        }
        register_op(
            def.type_attr("T", MIN_MAX_ND_TYPES)
                .type_attr("Tindices", &[DType::I32, DType::I64])
                .attr(
                    "use_locking",
                    AttrKind::Bool,
                    Some(AttrValue::Bool(is_resource)),
                )
                .attr(
                    "bad_indices_policy",
                    AttrKind::Str,
                    Some(AttrValue::Str(String::new())),
                )
                .stateful(),
        );
        register_kernel(name, make);
    }
}
