//! Sparse updates of variables: TensorFlow's `ScatterUpdate`, `ScatterAdd`, `ScatterSub`,
//! `ScatterMul`, `ScatterDiv`, `ScatterMin`, `ScatterMax`, `ScatterNdUpdate`, `ScatterNdAdd`,
//! `ScatterNdSub` (TF1 ref-variable ops, which output the updated value) and their
//! `ResourceScatter*` forms (no output).
//!
//! As with weir's `Assign`, the variable input is the variable's resource handle. An update
//! holds the variable's write lock (TensorFlow's `use_locking` is kept as an attr with its
//! defaults, but weir always locks), checks every shape and index before it writes, and
//! writes in place unless a reader still holds the old value.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, Kernel, Node, OpContext, OpDef, Operation, Output,
    Result, Shape,
};

use super::kernels::var_of;
use super::Variable;
use crate::array::scatter_apply::{
    apply, plan_nd, plan_rows, Combine, MIN_MAX_TYPES, NUMBER_TYPES,
};
use crate::array::tensor_scatter::check_nd_static;

/// The static checks of a scatter into `var` (TensorFlow's shape functions; its ValueErrors
/// are InvalidArgument here).
fn check_static(var: &Variable, op: &str, indices: &Output, updates: &Output) -> Result<()> {
    if updates.dtype() != var.dtype() {
        return Err(Error::invalid_argument(format!(
            "Input 'updates' of '{op}' Op has type {} that does not match type {} of argument \
             'ref' (variable {}).",
            updates.dtype(),
            var.dtype(),
            var.name()
        )));
    }
    if !matches!(indices.dtype(), DType::I32 | DType::I64) {
        return Err(Error::invalid_argument(format!(
            "Value passed to parameter 'indices' has DataType {} not in list of allowed values: \
             int32, int64",
            indices.dtype()
        )));
    }
    let (vs, is, us) = (var.shape(), indices.shape(), updates.shape());
    if op.contains("Nd") {
        return check_nd_static(&vs, &is, &us, true);
    }
    // ScatterUpdateShape: updates is a scalar or merges with indices.shape + var.shape[1:].
    if let (Some(v), Some(_), Some(u)) = (vs.dims(), is.dims(), us.dims()) {
        if !u.is_empty() && !v.is_empty() {
            let want = is.concatenate(&Shape::new(v[1..].to_vec()));
            if !us.is_compatible_with(&want) {
                return Err(Error::invalid_argument(format!(
                    "Shapes {us} and {want} are incompatible: {op} needs updates.shape = \
                     indices.shape + params.shape[1:] or a scalar"
                )));
            }
        }
    }
    Ok(())
}

fn build(
    var: &Variable,
    op: &str,
    indices: Output,
    updates: Output,
    with_output: bool,
) -> Result<Operation> {
    check_static(var, op, &indices, &updates)?;
    let mut b = crate::new_op(var.graph(), op)
        .input(var.handle())
        .input(indices)
        .input(updates);
    if with_output {
        b = b.output_shape(0, var.shape());
    }
    b.build()
}

fn ref_op(var: &Variable, op: &str, indices: Output, updates: Output) -> Result<Output> {
    build(var, op, indices, updates, true)?.output(0)
}

/// `tf.scatter_update(ref, indices, updates)`: sets the rows `indices` of the variable (along
/// its first dimension) to `updates` (shape `indices.shape + ref.shape[1:]`, or a scalar for
/// every row) and returns the updated value; the last of repeated indices wins. An index
/// outside `[0, ref.shape[0])` is InvalidArgument (`"indices[1] = 7 is not in [0, 5)"`).
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, state::{scatter_update, Variable}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let v = Variable::new(constant(&g, [1.0f32, 2.0, 3.0, 4.0])?)?;
/// let up = scatter_update(&v, constant(&g, [3, 0])?, constant(&g, [40.0f32, 10.0])?)?;
/// let sess = Session::new(&g)?;
/// sess.run_target(&v.initializer())?;
/// assert_eq!(sess.eval(&up)?.to_vec::<f32>()?, vec![10.0, 2.0, 3.0, 40.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn scatter_update(
    var: &Variable,
    indices: impl Into<Output>,
    updates: impl Into<Output>,
) -> Result<Output> {
    ref_op(var, "ScatterUpdate", indices.into(), updates.into())
}

/// `tf.scatter_add(ref, indices, updates)`: adds `updates` to the rows `indices` of the
/// variable (repeated indices accumulate) and returns the updated value.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, state::{scatter_add, Variable}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let v = Variable::new(constant(&g, [1, 2, 3])?)?;
/// let up = scatter_add(&v, constant(&g, [0, 0, 2])?, constant(&g, [10, 20, 30])?)?;
/// let sess = Session::new(&g)?;
/// sess.run_target(&v.initializer())?;
/// assert_eq!(sess.eval(&up)?.to_vec::<i32>()?, vec![31, 2, 33]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn scatter_add(
    var: &Variable,
    indices: impl Into<Output>,
    updates: impl Into<Output>,
) -> Result<Output> {
    ref_op(var, "ScatterAdd", indices.into(), updates.into())
}

/// `tf.scatter_sub(ref, indices, updates)`: subtracts `updates` from the rows `indices`.
pub fn scatter_sub(
    var: &Variable,
    indices: impl Into<Output>,
    updates: impl Into<Output>,
) -> Result<Output> {
    ref_op(var, "ScatterSub", indices.into(), updates.into())
}

/// `tf.scatter_mul(ref, indices, updates)`: multiplies the rows `indices` by `updates`.
pub fn scatter_mul(
    var: &Variable,
    indices: impl Into<Output>,
    updates: impl Into<Output>,
) -> Result<Output> {
    ref_op(var, "ScatterMul", indices.into(), updates.into())
}

/// `tf.scatter_div(ref, indices, updates)`: divides the rows `indices` by `updates` (integer
/// division by zero is InvalidArgument here; TensorFlow's process dies of it).
pub fn scatter_div(
    var: &Variable,
    indices: impl Into<Output>,
    updates: impl Into<Output>,
) -> Result<Output> {
    ref_op(var, "ScatterDiv", indices.into(), updates.into())
}

/// `tf.scatter_min(ref, indices, updates)`: the elementwise minimum of the rows `indices` and
/// `updates`.
pub fn scatter_min(
    var: &Variable,
    indices: impl Into<Output>,
    updates: impl Into<Output>,
) -> Result<Output> {
    ref_op(var, "ScatterMin", indices.into(), updates.into())
}

/// `tf.scatter_max(ref, indices, updates)`: the elementwise maximum of the rows `indices` and
/// `updates`.
pub fn scatter_max(
    var: &Variable,
    indices: impl Into<Output>,
    updates: impl Into<Output>,
) -> Result<Output> {
    ref_op(var, "ScatterMax", indices.into(), updates.into())
}

/// `tf.scatter_nd_update(ref, indices, updates)`: sets the slices of the variable at the
/// coordinates in the innermost dimension of `indices` to `updates` (shape
/// `indices.shape[:-1] + ref.shape[indices.shape[-1]:]`) and returns the updated value.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, state::{scatter_nd_update, Variable}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let v = Variable::new(constant(&g, Tensor::from_vec(&[2, 2], vec![1, 2, 3, 4])?)?)?;
/// let i = constant(&g, Tensor::from_vec(&[1, 2], vec![1, 0])?)?;
/// let up = scatter_nd_update(&v, i, constant(&g, [30])?)?;
/// let sess = Session::new(&g)?;
/// sess.run_target(&v.initializer())?;
/// assert_eq!(sess.eval(&up)?.to_vec::<i32>()?, vec![1, 2, 30, 4]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn scatter_nd_update(
    var: &Variable,
    indices: impl Into<Output>,
    updates: impl Into<Output>,
) -> Result<Output> {
    ref_op(var, "ScatterNdUpdate", indices.into(), updates.into())
}

/// `tf.scatter_nd_add(ref, indices, updates)`: adds `updates` to the slices of the variable at
/// the coordinates in `indices` (repeated coordinates accumulate).
pub fn scatter_nd_add(
    var: &Variable,
    indices: impl Into<Output>,
    updates: impl Into<Output>,
) -> Result<Output> {
    ref_op(var, "ScatterNdAdd", indices.into(), updates.into())
}

/// `tf.scatter_nd_sub(ref, indices, updates)`: subtracts `updates` from the slices of the
/// variable at the coordinates in `indices`.
pub fn scatter_nd_sub(
    var: &Variable,
    indices: impl Into<Output>,
    updates: impl Into<Output>,
) -> Result<Output> {
    ref_op(var, "ScatterNdSub", indices.into(), updates.into())
}

/// The resource-variable forms (`ResourceScatterUpdate`, ..., `ResourceScatterNdSub`), as
/// `tf.raw_ops` builds them: the same update, with no output (read the variable after it).
/// `op` is one of TensorFlow's names `ResourceScatterUpdate`, `ResourceScatterAdd`,
/// `ResourceScatterSub`, `ResourceScatterMul`, `ResourceScatterDiv`, `ResourceScatterMin`,
/// `ResourceScatterMax`, `ResourceScatterNdUpdate`, `ResourceScatterNdAdd`,
/// `ResourceScatterNdSub`.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, state::{resource_scatter, Variable}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let v = Variable::new(constant(&g, [1.0f32, 2.0])?)?;
/// let op = resource_scatter("ResourceScatterMax", &v, constant(&g, [1])?, constant(&g, [5.0f32])?)?;
/// let sess = Session::new(&g)?;
/// sess.run_target(&v.initializer())?;
/// sess.run_target(&op)?;
/// assert_eq!(sess.eval(&v.read_value()?)?.to_vec::<f32>()?, vec![1.0, 5.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn resource_scatter(
    op: &str,
    var: &Variable,
    indices: impl Into<Output>,
    updates: impl Into<Output>,
) -> Result<Operation> {
    if !RESOURCE_OPS.iter().any(|(n, _)| *n == op) {
        return Err(Error::invalid_argument(format!(
            "{op} is not a resource scatter op"
        )));
    }
    build(var, op, indices.into(), updates.into(), false)
}

macro_rules! resource_scatters {
    ($($name:ident => $op:literal, $what:literal;)*) => {$(
        #[doc = concat!("`tf.raw_ops.", $op, "(resource, indices, updates)`: ", $what,
            " the variable at `indices`, with no output (see [`resource_scatter`]).")]
        pub fn $name(
            var: &Variable,
            indices: impl Into<Output>,
            updates: impl Into<Output>,
        ) -> Result<Operation> {
            resource_scatter($op, var, indices, updates)
        }
    )*};
}

resource_scatters! {
    resource_scatter_update => "ResourceScatterUpdate", "sets the rows of";
    resource_scatter_add => "ResourceScatterAdd", "adds `updates` to the rows of";
    resource_scatter_sub => "ResourceScatterSub", "subtracts `updates` from the rows of";
    resource_scatter_mul => "ResourceScatterMul", "multiplies by `updates` the rows of";
    resource_scatter_div => "ResourceScatterDiv", "divides by `updates` the rows of";
    resource_scatter_min => "ResourceScatterMin", "takes the minimum with `updates` of the rows of";
    resource_scatter_max => "ResourceScatterMax", "takes the maximum with `updates` of the rows of";
    resource_scatter_nd_update => "ResourceScatterNdUpdate", "sets the slices of";
    resource_scatter_nd_add => "ResourceScatterNdAdd", "adds `updates` to the slices of";
    resource_scatter_nd_sub => "ResourceScatterNdSub", "subtracts `updates` from the slices of";
}

/// Updates a variable in one run: checks, then writes under the variable's lock.
struct ScatterVarKernel {
    how: Combine,
    nd: bool,
    resource: bool,
}

impl Kernel for ScatterVarKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (indices, updates) = (ctx.input(1).clone(), ctx.input(2).clone());
        let var = var_of(ctx)?;
        let mut slot = var.lock_value();
        let mut value = slot.take().ok_or_else(|| var.uninitialized_error())?;
        let shape = value.shape().to_vec();
        let plan = if self.nd {
            plan_nd(&shape, &indices, updates.shape())
        } else {
            plan_rows(&shape, &indices, updates.shape(), self.resource)
        };
        let done = plan.and_then(|p| apply(&mut value, &p, &updates, self.how));
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
    Ok(Box::new(ScatterVarKernel {
        how: Combine::of_op(op),
        nd: op.contains("Nd"),
        resource: op.starts_with("Resource"),
    }))
}

const REF_OPS: &[(&str, &[DType])] = &[
    ("ScatterUpdate", DType::ALL_DATA),
    ("ScatterAdd", NUMBER_TYPES),
    ("ScatterSub", NUMBER_TYPES),
    ("ScatterMul", NUMBER_TYPES),
    ("ScatterDiv", NUMBER_TYPES),
    ("ScatterMin", MIN_MAX_TYPES),
    ("ScatterMax", MIN_MAX_TYPES),
    ("ScatterNdUpdate", DType::ALL_DATA),
    ("ScatterNdAdd", NUMBER_TYPES),
    ("ScatterNdSub", NUMBER_TYPES),
];

const RESOURCE_OPS: &[(&str, &[DType])] = &[
    ("ResourceScatterUpdate", DType::ALL_DATA),
    ("ResourceScatterAdd", NUMBER_TYPES),
    ("ResourceScatterSub", NUMBER_TYPES),
    ("ResourceScatterMul", NUMBER_TYPES),
    ("ResourceScatterDiv", NUMBER_TYPES),
    ("ResourceScatterMin", NUMBER_TYPES),
    ("ResourceScatterMax", NUMBER_TYPES),
    ("ResourceScatterNdUpdate", DType::ALL_DATA),
    ("ResourceScatterNdAdd", NUMBER_TYPES),
    ("ResourceScatterNdSub", NUMBER_TYPES),
];

const INDEX_TYPES: &[DType] = &[DType::I32, DType::I64];

pub(super) fn register() {
    let resource = ArgType::Fixed(DType::Resource);
    for &(name, types) in REF_OPS {
        // TensorFlow locks by default for the Update ops only.
        let locking = name.ends_with("Update");
        let mut def = OpDef::new(name)
            .input("ref", resource.clone())
            .input("indices", ArgType::Attr("Tindices"))
            .input("updates", ArgType::Attr("T"))
            .output("output_ref", ArgType::Attr("T"))
            .type_attr("T", types)
            .type_attr("Tindices", INDEX_TYPES)
            .attr(
                "use_locking",
                AttrKind::Bool,
                Some(AttrValue::Bool(locking)),
            )
            .stateful();
        if name.contains("Nd") {
            def = def.attr(
                "bad_indices_policy",
                AttrKind::Str,
                Some(AttrValue::Str(String::new())),
            );
        }
        register_op(def);
        register_kernel(name, make);
    }
    for &(name, types) in RESOURCE_OPS {
        let def = if name.contains("Nd") {
            OpDef::new(name)
                .input("ref", resource.clone())
                .input("indices", ArgType::Attr("Tindices"))
                .input("updates", ArgType::Attr("T"))
                .type_attr("T", types)
                .type_attr("Tindices", INDEX_TYPES)
                .attr("use_locking", AttrKind::Bool, Some(AttrValue::Bool(true)))
                .attr(
                    "bad_indices_policy",
                    AttrKind::Str,
                    Some(AttrValue::Str(String::new())),
                )
        } else {
            OpDef::new(name)
                .input("resource", resource.clone())
                .input("indices", ArgType::Attr("Tindices"))
                .input("updates", ArgType::Attr("dtype"))
                .type_attr("dtype", types)
                .type_attr("Tindices", INDEX_TYPES)
        };
        register_op(def.stateful());
        register_kernel(name, make);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::constant;
    use weir_graph::{Graph, Tensor};

    #[test]
    fn builders_check_dtypes_and_static_shapes() {
        let g = Graph::new();
        let v = Variable::new(constant(&g, [1.0f32, 2.0, 3.0, 4.0, 5.0]).unwrap()).unwrap();
        let i = constant(&g, [0, 0]).unwrap();
        let e = scatter_add(&v, &i, constant(&g, [1, 2]).unwrap()).unwrap_err();
        assert!(e.is_invalid_argument(), "{e}");
        let e = scatter_add(&v, &i, constant(&g, [1.0f32, 2.0, 3.0]).unwrap()).unwrap_err();
        assert!(e.is_invalid_argument(), "{e}");
        let out = scatter_add(&v, &i, constant(&g, 5.0f32).unwrap()).unwrap();
        assert_eq!(out.shape(), Shape::known(&[5]));
        let e = scatter_nd_update(&v, &i, constant(&g, 9.0f32).unwrap()).unwrap_err();
        assert!(e.is_invalid_argument(), "{e}");
        let ii = constant(&g, Tensor::from_vec(&[2, 1], vec![0, 1]).unwrap()).unwrap();
        let e = scatter_nd_update(&v, &ii, constant(&g, [1.0f32, 2.0, 3.0]).unwrap()).unwrap_err();
        assert!(e.is_invalid_argument(), "{e}");
        let e = resource_scatter("ScatterAdd", &v, &i, constant(&g, 1.0f32).unwrap()).unwrap_err();
        assert!(e.is_invalid_argument(), "{e}");
        let op = resource_scatter(
            "ResourceScatterNdSub",
            &v,
            &ii,
            constant(&g, [1.0f32, 2.0]).unwrap(),
        )
        .unwrap();
        assert_eq!(op.num_outputs(), 0);
    }
}
