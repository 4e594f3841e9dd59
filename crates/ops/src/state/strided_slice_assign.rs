//! Assigning to a strided slice of a variable: `v[1:, ::2].assign(value)`, which TensorFlow
//! lowers to `StridedSliceAssign` (TF1 ref variables; outputs the new value) or
//! `ResourceStridedSliceAssign` (resource variables; no output).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, DType, Error, Kernel, Node, OpContext, OpDef, Output, Result};

use super::kernels::var_of;
use super::Variable;
use crate::array::slice_items::lower_items;
use crate::array::strided_slice::with_mask_attrs;
use crate::array::strided_slice_write::{index_args, node_masks, SliceWrite};
use crate::array::{SliceItem, StridedSlice};

impl StridedSlice {
    /// `var[begin:end:strides].assign(value)` with these masks (TensorFlow's
    /// `strided_slice_assign`): writes `value`, broadcast to the slice's shape, into the slice
    /// of the variable and returns the variable's new value.
    pub fn build_assign(
        self,
        var: &Variable,
        begin: &[i64],
        end: &[i64],
        strides: &[i64],
        value: impl Into<Output>,
    ) -> Result<Output> {
        let value = value.into();
        let (b, e, s) = index_args(var.handle(), begin, end, strides)?;
        self.build_assign_from(var, b, e, s, value)
    }

    /// [`StridedSlice::build_assign`] with `begin`, `end` and `strides` computed by the graph.
    pub fn build_assign_from(
        self,
        var: &Variable,
        begin: Output,
        end: Output,
        strides: Output,
        value: Output,
    ) -> Result<Output> {
        if value.dtype() != var.dtype() {
            return Err(Error::invalid_argument(format!(
                "Cannot assign a {} tensor to a slice of variable {} of dtype {}",
                value.dtype(),
                var.name(),
                var.dtype()
            )));
        }
        let op = crate::new_op(var.graph(), "StridedSliceAssign")
            .input(var.handle())
            .input(begin)
            .input(end)
            .input(strides)
            .input(value)
            .output_shape(0, var.shape());
        self.set_masks(op).build()?.output(0)
    }
}

impl Variable {
    /// `v[items].assign(value)`: writes `value` (broadcast to the slice's shape) into the slice
    /// that `items` select, written with [`s!`](crate::s), and returns the new value.
    ///
    /// ```
    /// # use weir_graph::Graph;
    /// # use weir_ops::{array::constant, s, state::Variable};
    /// # use weir_session::Session;
    /// let g = Graph::new();
    /// let v = Variable::new(constant(&g, [1, 2, 3, 4, 5])?)?;
    /// let up = v.assign_at(s![1..;2], constant(&g, [20, 40])?)?;
    /// let sess = Session::new(&g)?;
    /// sess.run_target(&v.initializer())?;
    /// assert_eq!(sess.eval(&up)?.to_vec::<i32>()?, vec![1, 20, 3, 40, 5]);
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn assign_at(&self, items: Vec<SliceItem>, value: impl Into<Output>) -> Result<Output> {
        let (masks, begin, end, strides) = lower_items(&items)?;
        masks.build_assign(self, &begin, &end, &strides, value)
    }
}

/// Writes the slice under the variable's lock; a failed check leaves the value unchanged.
struct StridedSliceAssignKernel {
    masks: StridedSlice,
    resource: bool,
}

impl Kernel for StridedSliceAssignKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let var = var_of(ctx)?;
        let value = ctx.input(4);
        if value.dtype() != var.dtype() {
            return Err(Error::invalid_argument(format!(
                "Trying to assign variable with wrong dtype. Expected {} got {}",
                var.dtype(),
                value.dtype()
            )));
        }
        let mut slot = var.lock_value();
        // Taken out of the slot so the write is in place unless a reader holds the value.
        let mut current = slot.take().ok_or_else(|| var.uninitialized_error())?;
        let done = SliceWrite::plan(ctx, 1, current.shape(), &self.masks)
            .and_then(|plan| plan.write(&mut current, value));
        *slot = Some(current.clone());
        drop(slot);
        done?;
        if !self.resource {
            ctx.set_output(0, current);
        }
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(StridedSliceAssignKernel {
        masks: node_masks(node)?,
        resource: node.op_type() == "ResourceStridedSliceAssign",
    }))
}

pub(super) fn register() {
    let index = ArgType::Attr("Index");
    let resource = ArgType::Fixed(DType::Resource);
    register_op(
        with_mask_attrs(
            OpDef::new("StridedSliceAssign")
                .input("ref", resource.clone())
                .input("begin", index.clone())
                .input("end", index.clone())
                .input("strides", index.clone())
                .input("value", ArgType::Attr("T"))
                .output("output_ref", ArgType::Attr("T"))
                .type_attr("T", DType::ALL_DATA)
                .type_attr("Index", &[DType::I32, DType::I64]),
        )
        .stateful(),
    );
    register_kernel("StridedSliceAssign", make);
    register_op(
        with_mask_attrs(
            OpDef::new("ResourceStridedSliceAssign")
                .input("ref", resource)
                .input("begin", index.clone())
                .input("end", index.clone())
                .input("strides", index)
                .input("value", ArgType::Attr("T"))
                .type_attr("T", DType::ALL_DATA)
                .type_attr("Index", &[DType::I32, DType::I64]),
        )
        .stateful(),
    );
    register_kernel("ResourceStridedSliceAssign", make);
}
