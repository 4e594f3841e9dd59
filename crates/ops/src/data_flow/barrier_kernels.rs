//! The barrier ops (`Barrier`, `BarrierInsertMany`, `BarrierTakeMany`, `BarrierClose`,
//! `BarrierReadySize`, `BarrierIncompleteSize`): TensorFlow's signatures, shape functions and
//! kernels. TensorFlow types the barrier handle as a ref string; here it is a resource handle,
//! as weir's variables and queues are.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, ResourceHandle, Result, Shape, Tensor,
};

use super::barrier_resource::SessionBarrier;

/// The counter behind private barrier names `_<N>_<node name>`.
static PRIVATE_NAMES: AtomicU64 = AtomicU64::new(0);

/// TensorFlow's `DataTypeSliceString`: `string, int32`.
fn types_str(types: &[DType]) -> String {
    types
        .iter()
        .map(|d| d.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// TensorFlow's `ShapeListString`: `[[], [2,3]]`.
fn shapes_str(shapes: &[Vec<usize>]) -> String {
    let parts: Vec<String> = shapes.iter().map(|s| format_dims(s)).collect();
    format!("[{}]", parts.join(", "))
}

/// The `Barrier` kernel of one node in one session: creates (or, with a shared_name, finds)
/// the barrier on first run and outputs its handle.
struct CreateBarrier {
    container: String,
    name: String,
    dtypes: Vec<DType>,
    shapes: Vec<Vec<usize>>,
    handle: OnceLock<Tensor>,
}

fn make_create(node: &Node) -> Result<Box<dyn Kernel>> {
    let dtypes: Vec<DType> = node.attr("component_types")?;
    let declared: Vec<Shape> = node.attr("shapes")?;
    // TensorFlow reads the attr as fully defined shapes: an unknown rank is a scalar.
    let shapes = declared
        .iter()
        .map(|s| match s.rank() {
            None => Ok(Vec::new()),
            Some(_) => s
                .to_known()
                .ok_or_else(|| Error::invalid_argument(format!("Shape {s} is not fully defined"))),
        })
        .collect::<Result<Vec<_>>>()?;
    if shapes.len() != dtypes.len() {
        return Err(Error::invalid_argument(
            "All of the component shapes must be specified",
        ));
    }
    let capacity: i64 = node.attr("capacity")?;
    if capacity != -1 {
        return Err(Error::invalid_argument(
            "Barrier only accepts capacity=-1.  Feed the inputs to your Barrier through a queue to enforce a limited capacity.",
        ));
    }
    if dtypes.is_empty() {
        return Err(Error::invalid_argument(
            "Attr 'component_types' of 'Barrier' Op passed list of length 0 less than minimum 1.",
        ));
    }
    let shared: String = node.attr("shared_name")?;
    let name = if shared.is_empty() {
        let n = PRIVATE_NAMES.fetch_add(1, Ordering::Relaxed);
        format!("_{n}_{}", node.name())
    } else {
        shared
    };
    Ok(Box::new(CreateBarrier {
        container: node.attr("container")?,
        name,
        dtypes,
        shapes,
        handle: OnceLock::new(),
    }))
}

impl Kernel for CreateBarrier {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        if let Some(h) = self.handle.get() {
            ctx.set_output(0, h.clone());
            return Ok(());
        }
        let b = ctx
            .resources()
            .lookup_or_create_typed(&self.container, &self.name, || {
                Ok(SessionBarrier::new(
                    self.name.clone(),
                    self.dtypes.clone(),
                    self.shapes.clone(),
                ))
            })?;
        if b.dtypes() != self.dtypes.as_slice() {
            return Err(Error::invalid_argument(format!(
                "Shared barrier '{}' has component types {} but requested component types were {}",
                self.name,
                types_str(b.dtypes()),
                types_str(&self.dtypes)
            )));
        }
        if b.shapes() != self.shapes.as_slice() {
            return Err(Error::invalid_argument(format!(
                "Shared barrier '{}' has component shapes {} but requested component shapes were {}",
                self.name,
                shapes_str(b.shapes()),
                shapes_str(&self.shapes)
            )));
        }
        let handle = ResourceHandle::new(&self.container, &self.name, b);
        let h = self.handle.get_or_init(|| Tensor::scalar(handle)).clone();
        ctx.set_output(0, h);
        Ok(())
    }

    fn output_is_fixed(&self) -> bool {
        true
    }
}

/// TensorFlow's `MatchSignature` failure, in its words and with its ref-string handle type.
fn signature_mismatch(inputs: &str, have: &[DType], want: &[DType], outputs: &str) -> Error {
    Error::invalid_argument(format!(
        "Signature mismatch, have: {inputs}{}{outputs} expected: {inputs}{}{outputs}",
        types_str(have),
        types_str(want)
    ))
}

struct InsertManyKernel {
    component_index: i64,
}

impl Kernel for InsertManyKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let b = ctx.resource::<SessionBarrier>(0)?;
        let n = b.dtypes().len();
        let c = usize::try_from(self.component_index)
            .ok()
            .filter(|&c| c < n)
            .ok_or_else(|| {
                Error::invalid_argument(format!(
                    "The component ID is out of range {} > num_components (= {n})",
                    self.component_index
                ))
            })?;
        let values = ctx.input(2);
        if values.dtype() != b.dtypes()[c] {
            let (have, want) = ([values.dtype()], [b.dtypes()[c]]);
            return Err(signature_mismatch(
                "string_ref, string, ",
                &have,
                &want,
                "->",
            ));
        }
        b.insert_many(c, ctx.input(1), values)
    }
}

struct TakeManyKernel {
    allow_small_batch: bool,
    component_types: Vec<DType>,
}

impl Kernel for TakeManyKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let n = ctx.input(1);
        if n.rank() != 0 {
            return Err(Error::invalid_argument("num_elements must be a scalar."));
        }
        let n = n.to_scalar::<i32>()?;
        let b = ctx.resource::<SessionBarrier>(0)?;
        if b.dtypes() != self.component_types.as_slice() {
            return Err(signature_mismatch(
                "string_ref, int32->int64, string, ",
                &self.component_types,
                b.dtypes(),
                "",
            ));
        }
        let n = usize::try_from(n).map_err(|_| {
            Error::invalid_argument(format!("num_elements must be >= 0, but is {n}"))
        })?;
        let (indices, keys, values) = b.take_many(
            n,
            self.allow_small_batch,
            ctx.cancellation(),
            ctx.deadline(),
        )?;
        ctx.set_output(0, indices);
        ctx.set_output(1, keys);
        for (i, v) in values.into_iter().enumerate() {
            ctx.set_output(2 + i, v);
        }
        Ok(())
    }

    /// Waits while too few elements are complete.
    fn may_block(&self) -> bool {
        true
    }
}

struct CloseKernel {
    cancel_pending_enqueues: bool,
}

impl Kernel for CloseKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        ctx.resource::<SessionBarrier>(0)?
            .close(self.cancel_pending_enqueues)
    }
}

struct SizeKernel {
    ready: bool,
}

impl Kernel for SizeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let b = ctx.resource::<SessionBarrier>(0)?;
        let n = if self.ready {
            b.ready_size()
        } else {
            b.incomplete_size()
        };
        ctx.set_output(0, Tensor::scalar(n.min(i32::MAX as usize) as i32));
        Ok(())
    }
}

fn scalar(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.set_output(0, Shape::scalar());
    Ok(())
}

/// `BarrierInsertMany`'s shape function: `keys` a vector as long as `values` is.
fn insert_many_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let keys = ctx.input_shape(1).clone();
    let values = ctx.input_shape(2).clone();
    if let Some(r) = keys.rank().filter(|&r| r != 1) {
        return Err(Error::invalid_argument(format!(
            "Shape must be rank 1 but is rank {r}"
        )));
    }
    if values.rank() == Some(0) {
        return Err(Error::invalid_argument(
            "Shape must be at least rank 1 but is rank 0",
        ));
    }
    if let (Some(k), Some(v)) = (keys.dim(0), values.dim(0)) {
        if k != v {
            return Err(Error::invalid_argument(format!(
                "Dimension 0 in both shapes must be equal, but are {k} and {v}. Shapes are [{k}] and [{v}]."
            )));
        }
    }
    Ok(())
}

fn unknown_shapes(ctx: &mut InferenceContext<'_>) -> Result<()> {
    for i in 0..ctx.num_outputs() {
        ctx.set_output(i, Shape::unknown());
    }
    Ok(())
}

fn handle_op(name: &str) -> OpDef {
    OpDef::new(name)
        .input("handle", ArgType::Fixed(DType::Resource))
        .stateful()
}

pub(super) fn register() {
    register_op(
        OpDef::new("Barrier")
            .output("handle", ArgType::Fixed(DType::Resource))
            .attr("component_types", AttrKind::Types, None)
            .attr(
                "shapes",
                AttrKind::Shapes,
                Some(AttrValue::Shapes(Vec::new())),
            )
            .attr("capacity", AttrKind::Int, Some(AttrValue::Int(-1)))
            .resource_name_attrs()
            .stateful()
            .shape_fn(scalar),
    );
    register_kernel("Barrier", make_create);

    register_op(
        handle_op("BarrierInsertMany")
            .input("keys", ArgType::Fixed(DType::String))
            .input("values", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .attr("component_index", AttrKind::Int, None)
            .shape_fn(insert_many_shape),
    );
    register_kernel("BarrierInsertMany", |node| {
        Ok(Box::new(InsertManyKernel {
            component_index: node.attr("component_index")?,
        }))
    });

    register_op(
        handle_op("BarrierTakeMany")
            .input("num_elements", ArgType::Fixed(DType::I32))
            .output("indices", ArgType::Fixed(DType::I64))
            .output("keys", ArgType::Fixed(DType::String))
            .output("values", ArgType::List("component_types"))
            .attr("component_types", AttrKind::Types, None)
            .attr(
                "allow_small_batch",
                AttrKind::Bool,
                Some(AttrValue::Bool(false)),
            )
            .attr(
                "wait_for_incomplete",
                AttrKind::Bool,
                Some(AttrValue::Bool(false)),
            )
            .attr("timeout_ms", AttrKind::Int, Some(AttrValue::Int(-1)))
            .shape_fn(unknown_shapes),
    );
    register_kernel("BarrierTakeMany", |node| {
        let timeout: i64 = node.attr("timeout_ms")?;
        if timeout != -1 {
            return Err(Error::invalid_argument("Timeout not supported yet."));
        }
        Ok(Box::new(TakeManyKernel {
            allow_small_batch: node.attr("allow_small_batch")?,
            component_types: node.attr("component_types")?,
        }))
    });

    register_op(handle_op("BarrierClose").attr(
        "cancel_pending_enqueues",
        AttrKind::Bool,
        Some(AttrValue::Bool(false)),
    ));
    register_kernel("BarrierClose", |node| {
        Ok(Box::new(CloseKernel {
            cancel_pending_enqueues: node.attr("cancel_pending_enqueues")?,
        }))
    });

    for (op, ready) in [("BarrierReadySize", true), ("BarrierIncompleteSize", false)] {
        register_op(
            handle_op(op)
                .output("size", ArgType::Fixed(DType::I32))
                .shape_fn(scalar),
        );
        register_kernel(
            op,
            if ready {
                |_| Ok(Box::new(SizeKernel { ready: true }))
            } else {
                |_| Ok(Box::new(SizeKernel { ready: false }))
            },
        );
    }
}
