//! The accumulator ops: TensorFlow's resource ops (`ResourceConditionalAccumulator`,
//! `ResourceAccumulator*`), the ref-handle ops TF 1.x built and `SparseConditionalAccumulator`
//! still builds (`ConditionalAccumulator`, `Accumulator*`, `SparseAccumulator*`), their OpDefs
//! and kernels.
//!
//! TensorFlow types the ref ops' handle as a ref string; weir gives both kinds the same
//! resource handle, as it does `VariableV2`'s. The ops are stateful here so no graph rewrite
//! merges or prunes two applies of the same gradient, which TensorFlow's ref inputs prevent.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, ResourceHandle, Result, Shape, Tensor,
};

use super::accumulator::{Accumulator, Gradient};
use super::accumulator_builders::ReductionType;
use super::accumulator_dense::KERNEL_TYPES;
use super::accumulator_sparse::SparseGrad;

/// TensorFlow's process-wide counter behind private resource names `_<N>_<node name>`.
static PRIVATE_NAMES: AtomicU64 = AtomicU64::new(0);

/// Finds or creates the session's accumulator once and outputs its handle.
struct CreateAccumulator {
    container: String,
    name: String,
    dtype: DType,
    shape: Shape,
    reduction: ReductionType,
    sparse: bool,
    handle: OnceLock<Tensor>,
}

impl Kernel for CreateAccumulator {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        if let Some(h) = self.handle.get() {
            ctx.set_output(0, h.clone());
            return Ok(());
        }
        // Like TensorFlow, a shared accumulator is taken as it is (its `MatchesNodeDef`
        // checks nothing); the ops that use it check its dtype.
        let r = ctx
            .resources()
            .lookup_or_create_typed(&self.container, &self.name, || {
                Ok(Accumulator::new(
                    &self.name,
                    self.dtype,
                    self.shape.clone(),
                    self.reduction,
                    self.sparse,
                ))
            })?;
        let handle = ResourceHandle::new(&self.container, &self.name, r);
        let h = self.handle.get_or_init(|| Tensor::scalar(handle)).clone();
        ctx.set_output(0, h);
        Ok(())
    }

    fn output_is_fixed(&self) -> bool {
        true
    }
}

fn reduction_of(node: &Node) -> Result<ReductionType> {
    let r: String = node.attr("reduction_type")?;
    ReductionType::from_attr(&r, node.op_type())
}

/// TensorFlow's error for an accumulator of a dtype its op allows but no kernel computes in.
fn no_kernel(node: &Node, dtype: DType, shape: &Shape) -> Error {
    let s = |a: &str| node.attr::<String>(a).unwrap_or_default();
    let kernels: Vec<String> = KERNEL_TYPES
        .iter()
        .map(|t| format!("  device='CPU'; dtype in [{}]", t.proto_name()))
        .collect();
    Error::invalid_argument(format!(
        "No OpKernel was registered to support Op '{}' used by {{{{node {}}}}} with these attrs: [container=\"{}\", dtype={}, reduction_type=\"{}\", shape={shape}, shared_name=\"{}\"]\nRegistered devices: [CPU]\nRegistered kernels:\n{}\n",
        node.op_type(),
        node.name(),
        s("container"),
        dtype.proto_name(),
        s("reduction_type"),
        s("shared_name"),
        kernels.join("\n")
    ))
}

fn make_create(node: &Node) -> Result<Box<dyn Kernel>> {
    let dtype: DType = node.attr("dtype")?;
    let shape: Shape = node.attr("shape")?;
    if !KERNEL_TYPES.contains(&dtype) {
        return Err(no_kernel(node, dtype, &shape));
    }
    let shared: String = node.attr("shared_name")?;
    let name = if shared.is_empty() {
        let n = PRIVATE_NAMES.fetch_add(1, Ordering::Relaxed);
        format!("_{n}_{}", node.name())
    } else {
        shared
    };
    Ok(Box::new(CreateAccumulator {
        container: node.attr("container")?,
        name,
        dtype,
        shape,
        reduction: reduction_of(node)?,
        sparse: node.op_type() == "SparseConditionalAccumulator",
        handle: OnceLock::new(),
    }))
}

/// How messages name the handle's type: TensorFlow's ref ops take a `string_ref`.
fn handle_type(node: &Node) -> &'static str {
    if node.op_type().starts_with("Resource") {
        "resource"
    } else {
        "string_ref"
    }
}

/// TensorFlow's `MatchSignature` error, which the ops report when the dtype they were built
/// with is not the accumulator's.
fn check_signature(have: &[&str], expected: &[&str], split: usize) -> Result<()> {
    if have == expected {
        return Ok(());
    }
    let side = |t: &[&str]| format!("{}->{}", t[..split].join(", "), t[split..].join(", "));
    Err(Error::invalid_argument(format!(
        "Signature mismatch, have: {} expected: {}",
        side(have),
        side(expected)
    )))
}

/// The accumulator behind input 0, which must hold gradients of the op's kind.
fn accumulator<'c>(ctx: &'c OpContext<'_>, sparse: bool) -> Result<&'c Accumulator> {
    let acc = ctx.resource::<Accumulator>(0)?;
    if acc.is_sparse() != sparse {
        let (what, ops) = if acc.is_sparse() {
            ("sparse", "SparseAccumulator*")
        } else {
            ("dense", "(Resource)Accumulator*")
        };
        return Err(Error::invalid_argument(format!(
            "Accumulator '{}' holds {what} gradients: {} cannot use it, only the {ops} ops",
            acc.name(),
            ctx.node().op_type()
        )));
    }
    Ok(acc)
}

fn scalar_input<T: weir_graph::TensorType>(ctx: &OpContext<'_>, i: usize, what: &str) -> Result<T> {
    let t = ctx.input(i);
    if t.rank() != 0 {
        return Err(Error::invalid_argument(format!(
            "Argument {what} must be scalar, but had bad shape {}",
            format_dims(t.shape())
        )));
    }
    t.to_scalar::<T>()
}

/// `AccumulatorApplyGradient` / `ResourceAccumulatorApplyGradient`.
struct ApplyKernel;

impl Kernel for ApplyKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let acc = accumulator(ctx, false)?;
        let h = handle_type(ctx.node());
        check_signature(
            &[h, "int64", ctx.input(2).dtype().name()],
            &[h, "int64", acc.dtype().name()],
            3,
        )?;
        let step = scalar_input::<i64>(ctx, 1, "local_step")?;
        acc.apply(step, Gradient::Dense(ctx.input(2)))
    }
}

/// `SparseAccumulatorApplyGradient`.
struct SparseApplyKernel {
    has_known_shape: bool,
}

impl Kernel for SparseApplyKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let acc = accumulator(ctx, true)?;
        check_signature(
            &[
                "string_ref",
                "int64",
                "int64",
                ctx.input(3).dtype().name(),
                "int64",
            ],
            &["string_ref", "int64", "int64", acc.dtype().name(), "int64"],
            5,
        )?;
        let step = scalar_input::<i64>(ctx, 1, "local_step")?;
        let grad = SparseGrad {
            indices: ctx.input(2),
            values: ctx.input(3),
            dense_shape: self.has_known_shape.then(|| ctx.input(4)),
        };
        acc.apply(step, Gradient::Sparse(grad))
    }
}

/// `AccumulatorTakeGradient`, `ResourceAccumulatorTakeGradient`,
/// `SparseAccumulatorTakeGradient`: block until enough gradients were summed.
struct TakeKernel {
    sparse: bool,
}

impl Kernel for TakeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let acc = accumulator(ctx, self.sparse)?;
        let h = handle_type(ctx.node());
        let have: DType = ctx.attr("dtype")?;
        let (have, want) = if self.sparse {
            (
                vec![h, "int32", "int64", have.name(), "int64"],
                vec![h, "int32", "int64", acc.dtype().name(), "int64"],
            )
        } else {
            (
                vec![h, "int32", have.name()],
                vec![h, "int32", acc.dtype().name()],
            )
        };
        check_signature(&have, &want, 2)?;
        let n = scalar_input::<i32>(ctx, 1, "num_required")?;
        let outs = acc.take(n, ctx.cancellation(), ctx.deadline())?;
        for (i, t) in outs.into_iter().enumerate() {
            ctx.set_output(i, t);
        }
        Ok(())
    }

    /// Waits until enough gradients were applied.
    fn may_block(&self) -> bool {
        true
    }
}

/// `AccumulatorNumAccumulated` / `ResourceAccumulatorNumAccumulated`.
struct NumAccumulatedKernel;

impl Kernel for NumAccumulatedKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let n = ctx.resource::<Accumulator>(0)?.num_accumulated();
        ctx.set_output(0, Tensor::scalar(n));
        Ok(())
    }
}

/// `AccumulatorSetGlobalStep` / `ResourceAccumulatorSetGlobalStep`.
struct SetGlobalStepKernel;

impl Kernel for SetGlobalStepKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let acc = ctx.resource::<Accumulator>(0)?;
        // TensorFlow's kernel names the wrong argument in this message; weir keeps its words.
        let step = scalar_input::<i64>(ctx, 1, "num_required")?;
        acc.set_global_step(step);
        Ok(())
    }
}

/// The handle's shape: TensorFlow's shape functions say `[2]` (the two strings of a ref
/// handle); weir's handles are scalars, as its queues' and stacks' are.
fn handle_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let r: String = ctx.attr("reduction_type")?;
    ReductionType::from_attr(&r, ctx.op_type)?;
    ctx.set_output(0, Shape::scalar());
    Ok(())
}

/// Input 1 (the step, or `num_required`) must be a scalar; outputs of unknown shape (the
/// take builders set the accumulator's shape, as Python's `set_shape` does).
fn step_is_scalar(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(1, 0)?;
    for i in 0..ctx.num_outputs() {
        ctx.set_output(i, Shape::unknown());
    }
    Ok(())
}

fn scalar_out(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.set_output(0, Shape::scalar());
    Ok(())
}

fn create_def(name: &str) -> OpDef {
    OpDef::new(name)
        .output("handle", ArgType::Fixed(DType::Resource))
        .type_attr("dtype", DType::NUMBER)
        .attr("shape", AttrKind::Shape, None)
        .resource_name_attrs()
        .attr(
            "reduction_type",
            AttrKind::Str,
            Some(AttrValue::Str("MEAN".to_string())),
        )
        .stateful()
        .shape_fn(handle_shape)
}

fn handle_def(name: &str) -> OpDef {
    OpDef::new(name)
        .input("handle", ArgType::Fixed(DType::Resource))
        .stateful()
}

pub(super) fn register() {
    for op in [
        "ConditionalAccumulator",
        "ResourceConditionalAccumulator",
        "SparseConditionalAccumulator",
    ] {
        register_op(create_def(op));
        register_kernel(op, make_create);
    }
    for prefix in ["", "Resource"] {
        let op = format!("{prefix}AccumulatorApplyGradient");
        register_op(
            handle_def(&op)
                .input("local_step", ArgType::Fixed(DType::I64))
                .input("gradient", ArgType::Attr("dtype"))
                .type_attr("dtype", DType::NUMBER)
                .shape_fn(step_is_scalar),
        );
        register_kernel(&op, |_| Ok(Box::new(ApplyKernel)));

        let op = format!("{prefix}AccumulatorTakeGradient");
        register_op(
            handle_def(&op)
                .input("num_required", ArgType::Fixed(DType::I32))
                .output("average", ArgType::Attr("dtype"))
                .type_attr("dtype", DType::NUMBER)
                .shape_fn(step_is_scalar),
        );
        register_kernel(&op, |_| Ok(Box::new(TakeKernel { sparse: false })));

        let op = format!("{prefix}AccumulatorNumAccumulated");
        register_op(
            handle_def(&op)
                .output("num_accumulated", ArgType::Fixed(DType::I32))
                .shape_fn(scalar_out),
        );
        register_kernel(&op, |_| Ok(Box::new(NumAccumulatedKernel)));

        let op = format!("{prefix}AccumulatorSetGlobalStep");
        register_op(
            handle_def(&op)
                .input("new_global_step", ArgType::Fixed(DType::I64))
                .shape_fn(step_is_scalar),
        );
        register_kernel(&op, |_| Ok(Box::new(SetGlobalStepKernel)));
    }
    register_op(
        handle_def("SparseAccumulatorApplyGradient")
            .input("local_step", ArgType::Fixed(DType::I64))
            .input("gradient_indices", ArgType::Fixed(DType::I64))
            .input("gradient_values", ArgType::Attr("dtype"))
            .input("gradient_shape", ArgType::Fixed(DType::I64))
            .type_attr("dtype", DType::NUMBER)
            .attr("has_known_shape", AttrKind::Bool, None)
            .shape_fn(step_is_scalar),
    );
    register_kernel("SparseAccumulatorApplyGradient", |node| {
        Ok(Box::new(SparseApplyKernel {
            has_known_shape: node.attr("has_known_shape")?,
        }))
    });
    register_op(
        handle_def("SparseAccumulatorTakeGradient")
            .input("num_required", ArgType::Fixed(DType::I32))
            .output("indices", ArgType::Fixed(DType::I64))
            .output("values", ArgType::Attr("dtype"))
            .output("shape", ArgType::Fixed(DType::I64))
            .type_attr("dtype", DType::NUMBER)
            .shape_fn(step_is_scalar),
    );
    register_kernel("SparseAccumulatorTakeGradient", |_| {
        Ok(Box::new(TakeKernel { sparse: true }))
    });
}
