//! `SparseConditionalAccumulator`: the graph side of TensorFlow's
//! `tf.compat.v1.SparseConditionalAccumulator`, which sums `IndexedSlices` gradients (the
//! gradients of embedding lookups and gathers).

use weir_graph::{DType, Graph, Operation, Output, Result};

use super::accumulator_builders::{step_input, take_op, AccumulatorOptions, Handle, ScalarArg};
use crate::array::{constant_named, IndexArg};
use crate::math::cast;

/// A sparse gradient: TensorFlow's `IndexedSlices`, the rows `values` of a tensor of shape
/// `dense_shape` at row `indices`.
#[derive(Clone, Debug)]
pub struct IndexedSlices {
    /// The row indices, a vector.
    pub indices: Output,
    /// The rows, dimension 0 one per index.
    pub values: Output,
    /// The dense tensor's shape, when known.
    pub dense_shape: Option<Output>,
}

/// A sparse accumulator in a graph: TensorFlow's `tf.compat.v1.SparseConditionalAccumulator`.
///
/// Like [`ConditionalAccumulator`](super::ConditionalAccumulator), but its gradients are
/// `IndexedSlices`: rows of the same index are summed, and a MEAN divides each row by the
/// number of gradients that had it. TensorFlow's Python still builds the ref-handle ops for
/// it (`SparseConditionalAccumulator`, `SparseAccumulator*`, `Accumulator*`), and so does this.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape, Tensor};
/// # use weir_ops::{array::constant, data_flow::{AccumulatorOptions, SparseConditionalAccumulator}};
/// let g = Graph::new();
/// let acc = SparseConditionalAccumulator::with_options(
///     &g,
///     DType::F32,
///     AccumulatorOptions::new().shape(Shape::known(&[4, 2])),
/// )?;
/// let rows = constant(&g, Tensor::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0])?)?;
/// let apply = acc.apply_grad(&constant(&g, [0i64, 3])?, &rows)?;
/// let mean = acc.take_indexed_slices_grad(1)?;
/// assert_eq!(apply.op_type(), "SparseAccumulatorApplyGradient");
/// assert_eq!(mean.values.name(), "SparseAccumulatorTakeGradient:1");
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct SparseConditionalAccumulator {
    h: Handle,
}

impl SparseConditionalAccumulator {
    /// `SparseConditionalAccumulator(dtype)`, TensorFlow's defaults otherwise.
    pub fn new(graph: &Graph, dtype: DType) -> Result<SparseConditionalAccumulator> {
        SparseConditionalAccumulator::with_options(graph, dtype, AccumulatorOptions::new())
    }

    /// `SparseConditionalAccumulator(dtype, shape, shared_name, name, reduction_type)`: adds the
    /// `SparseConditionalAccumulator` op, named `sparse_conditional_accumulator` by default.
    pub fn with_options(
        graph: &Graph,
        dtype: DType,
        options: AccumulatorOptions,
    ) -> Result<SparseConditionalAccumulator> {
        let op = options.build_op(
            graph,
            "SparseConditionalAccumulator",
            dtype,
            "sparse_conditional_accumulator",
        )?;
        SparseConditionalAccumulator::from_operation(&op)
    }

    /// The accumulator made by the `SparseConditionalAccumulator` op `op`.
    pub fn from_operation(op: &Operation) -> Result<SparseConditionalAccumulator> {
        if op.op_type() != "SparseConditionalAccumulator" {
            return Err(weir_graph::Error::invalid_argument(format!(
                "Operation '{}' ({}) is not a SparseConditionalAccumulator",
                op.name(),
                op.op_type()
            )));
        }
        Ok(SparseConditionalAccumulator { h: Handle::of(op)? })
    }

    /// The handle (`accumulator_ref`).
    pub fn accumulator_ref(&self) -> &Output {
        &self.h.handle
    }

    /// The accumulator op.
    pub fn op(&self) -> Operation {
        self.h.handle.op()
    }

    /// The last component of the op's name (`name`), which its ops' default names start with.
    pub fn name(&self) -> &str {
        &self.h.base
    }

    /// The gradients' dtype (`dtype`).
    pub fn dtype(&self) -> DType {
        self.h.dtype
    }

    /// The gradients' declared shape.
    pub fn shape(&self) -> &weir_graph::Shape {
        &self.h.shape
    }

    /// `apply_indexed_slices_grad(grad)` at local step 0.
    pub fn apply_indexed_slices_grad(&self, grad: &IndexedSlices) -> Result<Operation> {
        self.apply_indexed_slices_grad_with(grad, 0, None)
    }

    /// `apply_indexed_slices_grad(grad, local_step, name)`: `apply_grad` of the slices'
    /// indices, values and dense shape.
    pub fn apply_indexed_slices_grad_with(
        &self,
        grad: &IndexedSlices,
        local_step: impl Into<ScalarArg>,
        name: Option<&str>,
    ) -> Result<Operation> {
        let shape = grad.dense_shape.clone().map(IndexArg::Tensor);
        self.apply_grad_with(&grad.indices, &grad.values, shape, local_step, name)
    }

    /// `apply_grad(grad_indices, grad_values)`: the rows `grad_values` at `grad_indices`,
    /// computed at local step 0, without a dense shape; the op is
    /// `SparseAccumulatorApplyGradient`.
    pub fn apply_grad(&self, grad_indices: &Output, grad_values: &Output) -> Result<Operation> {
        self.apply_grad_with(grad_indices, grad_values, None, 0, None)
    }

    /// `apply_grad(grad_indices, grad_values, grad_shape, local_step, name)`. The indices are
    /// cast to int64 (as is `grad_shape`, which the op then checks against the accumulator's
    /// shape); the op adds the gradient when `local_step` is not older than the global step.
    pub fn apply_grad_with(
        &self,
        grad_indices: &Output,
        grad_values: &Output,
        grad_shape: Option<IndexArg>,
        local_step: impl Into<ScalarArg>,
        name: Option<&str>,
    ) -> Result<Operation> {
        let g = self.h.graph();
        let step = step_input(g, local_step.into())?;
        let indices = cast(grad_indices, DType::I64)?;
        let has_known_shape = grad_shape.is_some();
        let shape = match grad_shape {
            Some(IndexArg::Tensor(t)) => cast(t, DType::I64)?,
            // Python's `math_ops.cast(list, tf.int64)`: the list becomes the constant `x` in
            // the Cast's name scope. An absent shape is the empty list, a float32 `[]`.
            other => {
                let scope = g.name_scope("Cast");
                let x = match other {
                    Some(IndexArg::List(dims)) => match dims
                        .iter()
                        .map(|&d| i32::try_from(d))
                        .collect::<std::result::Result<Vec<i32>, _>>(
                    ) {
                        Ok(small) => constant_named(g, small, "x")?,
                        Err(_) => constant_named(g, dims, "x")?,
                    },
                    _ => constant_named(g, Vec::<f32>::new(), "x")?,
                };
                crate::new_op(g, "Cast")
                    .name(scope.prefix())
                    .input(x)
                    .attr("DstT", DType::I64)
                    .build()?
                    .output(0)?
            }
        };
        crate::new_op(g, "SparseAccumulatorApplyGradient")
            .maybe_name(name)
            .input(&self.h.handle)
            .input(step)
            .input(indices)
            .input(grad_values)
            .input(shape)
            .attr("has_known_shape", has_known_shape)
            .build()
    }

    /// `take_grad(num_required)`: `(indices, values, shape)` of the reduced gradient of the next
    /// `num_required` gradients; the op (`SparseAccumulatorTakeGradient`) blocks until they
    /// were applied. The shape's first dimension is the accumulator's (-1 when unknown).
    pub fn take_grad(&self, num_required: impl Into<ScalarArg>) -> Result<[Output; 3]> {
        self.take_grad_with(num_required, None)
    }

    /// `take_grad(num_required, name)`.
    pub fn take_grad_with(
        &self,
        num_required: impl Into<ScalarArg>,
        name: Option<&str>,
    ) -> Result<[Output; 3]> {
        let op = take_op(
            &self.h.handle,
            "SparseAccumulatorTakeGradient",
            self.h.dtype,
            num_required.into(),
            name,
            None,
        )?;
        Ok([op.output(0)?, op.output(1)?, op.output(2)?])
    }

    /// `take_indexed_slices_grad(num_required)`: [`take_grad`](Self::take_grad) as
    /// `IndexedSlices`.
    pub fn take_indexed_slices_grad(
        &self,
        num_required: impl Into<ScalarArg>,
    ) -> Result<IndexedSlices> {
        self.take_indexed_slices_grad_with(num_required, None)
    }

    /// `take_indexed_slices_grad(num_required, name)`.
    pub fn take_indexed_slices_grad_with(
        &self,
        num_required: impl Into<ScalarArg>,
        name: Option<&str>,
    ) -> Result<IndexedSlices> {
        let [indices, values, shape] = self.take_grad_with(num_required, name)?;
        Ok(IndexedSlices {
            indices,
            values,
            dense_shape: Some(shape),
        })
    }

    /// `num_accumulated()`: the op is `<accumulator>_NumAccumulated` (an
    /// `AccumulatorNumAccumulated`).
    pub fn num_accumulated(&self) -> Result<Output> {
        self.num_accumulated_with(None)
    }

    /// `num_accumulated(name)`.
    pub fn num_accumulated_with(&self, name: Option<&str>) -> Result<Output> {
        self.h.num_accumulated("AccumulatorNumAccumulated", name)
    }

    /// `set_global_step(new_global_step)` (an `AccumulatorSetGlobalStep`).
    pub fn set_global_step(&self, new_global_step: impl Into<ScalarArg>) -> Result<Operation> {
        self.set_global_step_with(new_global_step, None)
    }

    /// `set_global_step(new_global_step, name)`.
    pub fn set_global_step_with(
        &self,
        new_global_step: impl Into<ScalarArg>,
        name: Option<&str>,
    ) -> Result<Operation> {
        self.h
            .set_global_step("AccumulatorSetGlobalStep", new_global_step.into(), name)
    }
}
