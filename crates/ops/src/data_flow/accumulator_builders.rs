//! `ConditionalAccumulator`: the graph side of TensorFlow's `tf.compat.v1.ConditionalAccumulator`,
//! whose methods add the accumulator ops with the names TensorFlow's Python gives them, and the
//! options and arguments it shares with `SparseConditionalAccumulator`.

use weir_graph::{DType, Error, Graph, Operation, Output, Result, Shape};

use crate::array::{constant, constant_named};
use crate::math::cast;

/// How `take_grad` reduces the gradients it collected: TensorFlow's `reduction_type`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReductionType {
    /// `"MEAN"` (the default): their mean (per row, for sparse gradients).
    #[default]
    Mean,
    /// `"SUM"`: their sum.
    Sum,
}

impl ReductionType {
    /// The attr value: `"MEAN"` or `"SUM"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReductionType::Mean => "MEAN",
            ReductionType::Sum => "SUM",
        }
    }

    /// The reduction an op's `reduction_type` attr names; TensorFlow's error for others.
    pub(super) fn from_attr(value: &str, op_type: &str) -> Result<ReductionType> {
        match value {
            "MEAN" => Ok(ReductionType::Mean),
            "SUM" => Ok(ReductionType::Sum),
            other => Err(Error::invalid_argument(format!(
                "Attr 'reduction_type' of '{op_type}' Op passed string '{other}' not in: \"MEAN\", \"SUM\"."
            ))),
        }
    }
}

/// The optional arguments of TensorFlow's accumulator constructors, with its defaults:
/// `shape=None, shared_name=None, name=<class default>, reduction_type='MEAN'`.
#[derive(Clone, Debug, Default)]
pub struct AccumulatorOptions {
    shape: Option<Shape>,
    shared_name: Option<String>,
    name: Option<String>,
    reduction_type: ReductionType,
    ref_handle: bool,
}

impl AccumulatorOptions {
    /// TensorFlow's defaults.
    pub fn new() -> AccumulatorOptions {
        AccumulatorOptions::default()
    }

    /// The gradients' shape (`shape=`); unknown by default. Dimensions may be unknown.
    pub fn shape(mut self, shape: impl Into<Shape>) -> Self {
        self.shape = Some(shape.into());
        self
    }

    /// Shares the accumulator between sessions (and ops) under this name; by default each
    /// session has its own, named `_<N>_<op name>`.
    pub fn shared_name(mut self, name: &str) -> Self {
        self.shared_name = Some(name.to_string());
        self
    }

    /// The accumulator op's name (made unique in the current scope).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// How `take_grad` reduces the gradients (`reduction_type=`).
    pub fn reduction_type(mut self, reduction: ReductionType) -> Self {
        self.reduction_type = reduction;
        self
    }

    /// Builds TF 1.x's ops, whose handle TensorFlow types as a ref string (`ConditionalAccumulator`
    /// and the `Accumulator*` ops), instead of the resource ops TF 2's Python builds. No effect
    /// on a `SparseConditionalAccumulator`, which has only those.
    pub fn ref_handle(mut self, yes: bool) -> Self {
        self.ref_handle = yes;
        self
    }

    /// Adds the accumulator op `op_type`.
    pub(super) fn build_op(
        &self,
        graph: &Graph,
        op_type: &str,
        dtype: DType,
        default_name: &str,
    ) -> Result<Operation> {
        crate::new_op(graph, op_type)
            .name(self.name.as_deref().unwrap_or(default_name))
            .attr("dtype", dtype)
            .attr("shape", self.shape.clone().unwrap_or_else(Shape::unknown))
            .attr("container", "")
            .attr("shared_name", self.shared_name.clone().unwrap_or_default())
            .attr("reduction_type", self.reduction_type.as_str())
            .build()
    }
}

/// An integer argument given as a value or as a tensor, as Python's `local_step`,
/// `new_global_step` and `num_required` may be.
#[derive(Clone, Debug)]
pub enum ScalarArg {
    /// A value, which becomes a constant as TensorFlow converts a Python int.
    Value(i64),
    /// A scalar integer tensor.
    Tensor(Output),
}

impl From<i64> for ScalarArg {
    fn from(v: i64) -> ScalarArg {
        ScalarArg::Value(v)
    }
}

impl From<i32> for ScalarArg {
    fn from(v: i32) -> ScalarArg {
        ScalarArg::Value(v.into())
    }
}

impl From<Output> for ScalarArg {
    fn from(t: Output) -> ScalarArg {
        ScalarArg::Tensor(t)
    }
}

impl From<&Output> for ScalarArg {
    fn from(t: &Output) -> ScalarArg {
        ScalarArg::Tensor(t.clone())
    }
}

/// Python's `math_ops.cast(ops.convert_to_tensor(step), tf.int64)`: an int becomes an int32
/// `Const` (int64 when it does not fit) and a `Cast`; an int64 tensor is used as it is.
pub(super) fn step_input(graph: &Graph, step: ScalarArg) -> Result<Output> {
    let t = match step {
        ScalarArg::Value(v) => match i32::try_from(v) {
            Ok(small) => constant(graph, small)?,
            Err(_) => constant(graph, v)?,
        },
        ScalarArg::Tensor(t) => t,
    };
    cast(t, DType::I64)
}

/// Adds `op_type` in a name scope named `name` (or the op type), taking `handle` and
/// `num_required` (an int becomes the constant `<scope>/num_required`, as TensorFlow's
/// generated op functions convert it); `shape`, when given, is output 0's static shape.
pub(super) fn take_op(
    handle: &Output,
    op_type: &str,
    dtype: DType,
    num_required: ScalarArg,
    name: Option<&str>,
    shape: Option<Shape>,
) -> Result<Operation> {
    let g = handle.graph();
    let scope = g.name_scope(name.unwrap_or(op_type));
    let n = match num_required {
        ScalarArg::Value(v) => {
            let v = i32::try_from(v).map_err(|_| {
                Error::invalid_argument(format!("num_required {v} does not fit in int32"))
            })?;
            constant_named(g, v, "num_required")?
        }
        ScalarArg::Tensor(t) => t,
    };
    let mut b = crate::new_op(g, op_type)
        .name(scope.prefix())
        .input(handle)
        .input(n)
        .attr("dtype", dtype);
    if let Some(s) = shape {
        b = b.output_shape(0, s);
    }
    b.build()
}

/// What the accumulator classes share: the handle and the names of its ops.
#[derive(Clone, Debug)]
pub(super) struct Handle {
    pub handle: Output,
    pub dtype: DType,
    pub shape: Shape,
    /// The last component of the op name, which TensorFlow's default op names start with.
    pub base: String,
}

impl Handle {
    pub fn of(op: &Operation) -> Result<Handle> {
        let shape: Shape = op.attr("shape")?;
        Ok(Handle {
            handle: op.output(0)?,
            dtype: op.attr("dtype")?,
            shape,
            base: op.name().rsplit('/').next().unwrap_or_default().to_string(),
        })
    }

    pub fn graph(&self) -> &Graph {
        self.handle.graph()
    }

    /// `num_accumulated(name=None)`: the op is `<accumulator>_NumAccumulated`.
    pub fn num_accumulated(&self, op_type: &str, name: Option<&str>) -> Result<Output> {
        let name = name.map_or_else(|| format!("{}_NumAccumulated", self.base), str::to_string);
        crate::new_op(self.graph(), op_type)
            .name(name)
            .input(&self.handle)
            .build()?
            .output(0)
    }

    /// `set_global_step(new_global_step, name=None)`.
    pub fn set_global_step(
        &self,
        op_type: &str,
        step: ScalarArg,
        name: Option<&str>,
    ) -> Result<Operation> {
        let step = step_input(self.graph(), step)?;
        crate::new_op(self.graph(), op_type)
            .maybe_name(name)
            .input(&self.handle)
            .input(step)
            .build()
    }
}

/// A dense accumulator in a graph: TensorFlow's `tf.compat.v1.ConditionalAccumulator`, what
/// `SyncReplicasOptimizer` averages each variable's gradients of several workers with.
///
/// Gradients computed at a step older than the accumulator's global step are dropped;
/// `take_grad(n)` blocks until `n` gradients were summed, then outputs their mean (or sum),
/// starts over and advances the global step. Methods add one op each, named as TensorFlow's
/// Python names them.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::constant, data_flow::{AccumulatorOptions, ConditionalAccumulator}};
/// let g = Graph::new();
/// let acc = ConditionalAccumulator::with_options(
///     &g,
///     DType::F32,
///     AccumulatorOptions::new().shape(Shape::known(&[2])).name("acc"),
/// )?;
/// let apply = acc.apply_grad(&constant(&g, [1.0f32, 3.0])?)?;
/// let mean = acc.take_grad(1)?;
/// assert_eq!(apply.op_type(), "ResourceAccumulatorApplyGradient");
/// assert_eq!(mean.name(), "ResourceAccumulatorTakeGradient:0");
/// assert_eq!(mean.shape(), Shape::known(&[2]));
/// assert_eq!(acc.num_accumulated()?.name(), "acc_NumAccumulated:0");
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ConditionalAccumulator {
    h: Handle,
    /// Whether the ops are TF 1.x's ref-handle ones.
    ref_ops: bool,
}

impl ConditionalAccumulator {
    /// `ConditionalAccumulator(dtype)`, TensorFlow's defaults otherwise.
    pub fn new(graph: &Graph, dtype: DType) -> Result<ConditionalAccumulator> {
        ConditionalAccumulator::with_options(graph, dtype, AccumulatorOptions::new())
    }

    /// `ConditionalAccumulator(dtype, shape, shared_name, name, reduction_type)`: adds the
    /// `ResourceConditionalAccumulator` op (`ConditionalAccumulator` with
    /// [`AccumulatorOptions::ref_handle`]), named `conditional_accumulator` by default.
    pub fn with_options(
        graph: &Graph,
        dtype: DType,
        options: AccumulatorOptions,
    ) -> Result<ConditionalAccumulator> {
        let op_type = if options.ref_handle {
            "ConditionalAccumulator"
        } else {
            "ResourceConditionalAccumulator"
        };
        let op = options.build_op(graph, op_type, dtype, "conditional_accumulator")?;
        ConditionalAccumulator::from_operation(&op)
    }

    /// The accumulator made by the op `op` (`ResourceConditionalAccumulator`, or TF 1.x's
    /// `ConditionalAccumulator`, whose ops the methods then add), e.g. one found by name in an
    /// imported graph.
    pub fn from_operation(op: &Operation) -> Result<ConditionalAccumulator> {
        let ref_ops = match op.op_type().as_str() {
            "ResourceConditionalAccumulator" => false,
            "ConditionalAccumulator" => true,
            other => {
                return Err(Error::invalid_argument(format!(
                    "Operation '{}' ({other}) is not a dense conditional accumulator",
                    op.name()
                )))
            }
        };
        Ok(ConditionalAccumulator {
            h: Handle::of(op)?,
            ref_ops,
        })
    }

    fn op_type(&self, suffix: &str) -> String {
        let prefix = if self.ref_ops { "" } else { "Resource" };
        format!("{prefix}Accumulator{suffix}")
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
    pub fn shape(&self) -> &Shape {
        &self.h.shape
    }

    /// `apply_grad(grad)`: adds `grad` computed at local step 0; the op is
    /// `ResourceAccumulatorApplyGradient`.
    pub fn apply_grad(&self, grad: &Output) -> Result<Operation> {
        self.apply_grad_with(grad, 0, None)
    }

    /// `apply_grad(grad, local_step, name)`: the op adds `grad` when `local_step` is not older
    /// than the global step. `grad` must have the accumulator's dtype and a compatible shape.
    pub fn apply_grad_with(
        &self,
        grad: &Output,
        local_step: impl Into<ScalarArg>,
        name: Option<&str>,
    ) -> Result<Operation> {
        if grad.dtype() != self.h.dtype {
            return Err(Error::invalid_argument(format!(
                "Tensor conversion requested dtype {} for Tensor with dtype {}: <tf.Tensor '{}' shape={} dtype={}>",
                self.h.dtype.python_name(),
                grad.dtype().python_name(),
                grad.name(),
                grad.shape().python_str(),
                grad.dtype().python_name()
            )));
        }
        if !grad.shape().is_compatible_with(&self.h.shape) {
            return Err(Error::invalid_argument(format!(
                "Shapes {} and {} are incompatible",
                grad.shape().python_str(),
                self.h.shape.python_str()
            )));
        }
        let step = step_input(self.h.graph(), local_step.into())?;
        crate::new_op(self.h.graph(), &self.op_type("ApplyGradient"))
            .maybe_name(name)
            .input(&self.h.handle)
            .input(step)
            .input(grad)
            .build()
    }

    /// `take_grad(num_required)`: the mean (or sum) of the next `num_required` gradients; the
    /// op blocks until they were applied. Its static shape is the accumulator's.
    pub fn take_grad(&self, num_required: impl Into<ScalarArg>) -> Result<Output> {
        self.take_grad_with(num_required, None)
    }

    /// `take_grad(num_required, name)`.
    pub fn take_grad_with(
        &self,
        num_required: impl Into<ScalarArg>,
        name: Option<&str>,
    ) -> Result<Output> {
        // The shape is Python's `out.set_shape(self._shape)`.
        take_op(
            &self.h.handle,
            &self.op_type("TakeGradient"),
            self.h.dtype,
            num_required.into(),
            name,
            Some(self.h.shape.clone()),
        )?
        .output(0)
    }

    /// `num_accumulated()`: an int32 scalar, the gradients summed since the last take; the op
    /// is `<accumulator>_NumAccumulated`.
    pub fn num_accumulated(&self) -> Result<Output> {
        self.num_accumulated_with(None)
    }

    /// `num_accumulated(name)`.
    pub fn num_accumulated_with(&self, name: Option<&str>) -> Result<Output> {
        self.h
            .num_accumulated(&self.op_type("NumAccumulated"), name)
    }

    /// `set_global_step(new_global_step)`: gradients of older steps are stale from then on.
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
            .set_global_step(&self.op_type("SetGlobalStep"), new_global_step.into(), name)
    }
}
