//! Building a TensorArray on an existing handle, and the gradient array of one: what the
//! gradients of the TensorArray ops use (TensorFlow's `TensorArray(handle=..., flow=...)` and
//! `TensorArray.grad`).

use std::sync::Arc;

use parking_lot::Mutex;
use weir_graph::{DType, Output, Result, Shape};

use super::TensorArray;

impl TensorArray {
    /// The array behind an existing `handle`, seen through `flow` (`tf.TensorArray(dtype,
    /// handle=handle, flow=flow)`): its size is read from the array when asked for.
    ///
    /// ```
    /// # use weir_graph::{DType, Graph, Shape};
    /// # use weir_ops::tensor_array::TensorArray;
    /// # let g = Graph::new();
    /// let ta = TensorArray::new(DType::F32).size(2).build(&g)?;
    /// let same = TensorArray::from_handle(ta.handle(), ta.flow(), DType::F32, Shape::unknown());
    /// assert_eq!(same.size()?.op().op_type(), "TensorArraySizeV3");
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn from_handle(handle: &Output, flow: &Output, dtype: DType, element_shape: Shape) -> Self {
        TensorArray {
            handle: handle.clone(),
            flow: flow.clone(),
            dtype,
            // Unused: with `dynamic_size`, the size is asked of the array.
            size: flow.clone(),
            dynamic_size: true,
            infer_shape: true,
            element_shape: Arc::new(Mutex::new(element_shape)),
        }
    }

    /// `TensorArray.grad(source, flow)`: the gradient array of this one for the gradient
    /// computation `source` (a `TensorArrayGradV3`, made on first use in a run): same dtype,
    /// size and element shape; writes to one of its elements add up.
    ///
    /// ```
    /// # use weir_graph::{DType, Graph, Shape};
    /// # use weir_ops::tensor_array::TensorArray;
    /// # let g = Graph::new();
    /// let ta = TensorArray::new(DType::F32).size(2).element_shape(Shape::scalar()).build(&g)?;
    /// let d = ta.grad("gradients", ta.flow())?;
    /// assert_eq!(d.handle().op().op_type(), "TensorArrayGradV3");
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn grad(&self, source: &str, flow: &Output) -> Result<TensorArray> {
        let g = self.handle.graph().clone();
        let _scope = g.name_scope("TensorArrayGrad");
        let op = crate::new_op(&g, "TensorArrayGradV3")
            .input(&self.handle)
            .input(flow)
            .attr("source", source)
            .build()?;
        let flow = {
            let _after = g.control_dependencies(std::slice::from_ref(&op))?;
            crate::array::identity_named(flow, "gradient_flow")?
        };
        Ok(TensorArray {
            infer_shape: self.infer_shape,
            ..TensorArray::from_handle(&op.output(0)?, &flow, self.dtype, self.element_shape())
        })
    }
}
