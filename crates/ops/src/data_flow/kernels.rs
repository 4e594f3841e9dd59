//! Kernels of the queue ops: the creation ops (`FIFOQueueV2`, ...) that find or make the
//! session's queue and output its handle, and the V2 resource ops that use it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use weir_graph::{DType, Error, Kernel, Node, OpContext, ResourceHandle, Result, Shape, Tensor};

use super::fifo_store::FifoStore;
use super::philox::Philox;
use super::queue::{QueueExtra, QueueKind, SessionQueue};
use super::shuffle_store::ShuffleStore;
use super::slots::RowSlots;
use super::store::{PriorityStore, Store};

/// TensorFlow's process-wide counter behind private resource names `_<N>_<node name>`.
static PRIVATE_NAMES: AtomicU64 = AtomicU64::new(0);

/// The queue kernel of one node in one session: creates (or, with a shared_name, finds) the
/// queue on first run and outputs its handle.
struct CreateQueue {
    kind: QueueKind,
    op_type: String,
    container: String,
    name: String,
    dtypes: Vec<DType>,
    shapes: Vec<Shape>,
    capacity: i64,
    extra: QueueExtra,
    handle: OnceLock<Tensor>,
}

fn shapes_str(shapes: &[Shape]) -> String {
    let parts: Vec<String> = shapes.iter().map(|s| s.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

fn types_str(types: &[DType]) -> String {
    let parts: Vec<&str> = types.iter().map(|d| d.name()).collect();
    parts.join(", ")
}

impl CreateQueue {
    /// Row slots for the queue's elements when every component shape is fully defined.
    fn row_slots(&self) -> Option<RowSlots> {
        if self.shapes.len() != self.dtypes.len() {
            return None;
        }
        let fixed: Vec<Vec<usize>> = self
            .shapes
            .iter()
            .map(Shape::to_known)
            .collect::<Option<_>>()?;
        let capacity = usize::try_from(self.capacity).unwrap_or(i32::MAX as usize);
        RowSlots::new(&self.dtypes, &fixed, capacity)
    }

    fn make(&self) -> SessionQueue {
        let store = match self.kind {
            QueueKind::Fifo => Store::Fifo(FifoStore::new(self.row_slots())),
            QueueKind::PaddingFifo => Store::Fifo(FifoStore::new(None)),
            QueueKind::RandomShuffle => Store::Shuffle(ShuffleStore::new(
                self.dtypes.len(),
                self.row_slots(),
                self.extra.min_after_dequeue as usize,
                Philox::from_attrs(self.extra.seed, self.extra.seed2),
            )),
            QueueKind::Priority => Store::Priority(PriorityStore::default()),
        };
        SessionQueue::new(
            self.kind,
            self.name.clone(),
            self.dtypes.clone(),
            self.shapes.clone(),
            self.capacity,
            self.extra.clone(),
            store,
        )
    }

    /// TensorFlow's `MatchesNodeDef`: a shared queue must be of the same kind and configuration.
    fn check_matches(&self, q: &SessionQueue) -> Result<()> {
        let name = &self.name;
        if q.kind() != self.kind {
            return Err(Error::invalid_argument(format!(
                "Expected {}, found {}",
                q.kind().class_name(),
                self.op_type
            )));
        }
        let want_cap = if self.capacity < 0 {
            i32::MAX as i64
        } else {
            self.capacity
        };
        let have_cap = if q.capacity_attr < 0 {
            i32::MAX as i64
        } else {
            q.capacity_attr
        };
        if want_cap != have_cap {
            return Err(Error::invalid_argument(format!(
                "Shared queue '{name}' has capacity {have_cap} but requested capacity was {want_cap}"
            )));
        }
        if self.kind == QueueKind::RandomShuffle {
            let (have, want) = (&q.extra, &self.extra);
            if have.min_after_dequeue != want.min_after_dequeue {
                return Err(Error::invalid_argument(format!(
                    "Shared queue '{name}' has min_after_dequeue {} but requested min_after_dequeue was {}.",
                    have.min_after_dequeue, want.min_after_dequeue
                )));
            }
            if (want.seed != 0 || want.seed2 != 0)
                && (want.seed != have.seed || want.seed2 != have.seed2)
            {
                return Err(Error::invalid_argument(format!(
                    "Shared queue '{name}' has random seeds ({}, {}) but requested seeds are ({}, {}).",
                    have.seed, have.seed2, want.seed, want.seed2
                )));
            }
        }
        if q.dtypes() != self.dtypes.as_slice() {
            return Err(Error::invalid_argument(format!(
                "Shared queue '{name}' has component types {} but requested component types were {}",
                types_str(q.dtypes()),
                types_str(&self.dtypes)
            )));
        }
        let shapes_ok = if self.kind == QueueKind::PaddingFifo {
            q.shapes().len() == self.shapes.len()
                && q.shapes()
                    .iter()
                    .zip(&self.shapes)
                    .all(|(a, b)| a.is_compatible_with(b))
        } else {
            q.shapes() == self.shapes.as_slice()
        };
        if !shapes_ok {
            return Err(Error::invalid_argument(format!(
                "Shared queue '{name}' has component shapes {} but requested component shapes were {}",
                shapes_str(q.shapes()),
                shapes_str(&self.shapes)
            )));
        }
        Ok(())
    }
}

impl Kernel for CreateQueue {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        if let Some(h) = self.handle.get() {
            ctx.set_output(0, h.clone());
            return Ok(());
        }
        let q = ctx
            .resources()
            .lookup_or_create_typed(&self.container, &self.name, || Ok(self.make()))?;
        self.check_matches(&q)?;
        let handle = ResourceHandle::new(&self.container, &self.name, q);
        let h = self.handle.get_or_init(|| Tensor::scalar(handle)).clone();
        ctx.set_output(0, h);
        Ok(())
    }

    fn output_is_fixed(&self) -> bool {
        true
    }
}

pub(super) fn make_create_queue(node: &Node) -> Result<Box<dyn Kernel>> {
    let kind = QueueKind::from_op_type(node.op_type())
        .ok_or_else(|| Error::internal(format!("{} is not a queue op", node.op_type())))?;
    let (dtypes, shapes) =
        kind.element_signature(node.attr("component_types")?, node.attr("shapes")?);
    let capacity: i64 = node.attr("capacity")?;
    let shared: String = node.attr("shared_name")?;
    let container: String = node.attr("container")?;
    let mut extra = QueueExtra {
        min_after_dequeue: 0,
        seed: 0,
        seed2: 0,
    };
    match kind {
        QueueKind::RandomShuffle => {
            extra.min_after_dequeue = node.attr("min_after_dequeue")?;
            extra.seed = node.attr("seed")?;
            extra.seed2 = node.attr("seed2")?;
            let cap = if capacity < 0 {
                i32::MAX as i64
            } else {
                capacity
            };
            if extra.min_after_dequeue < 0 {
                return Err(Error::invalid_argument(format!(
                    "min_after_dequeue {} must be >= 0",
                    extra.min_after_dequeue
                )));
            }
            if extra.min_after_dequeue >= cap {
                return Err(Error::invalid_argument(format!(
                    "min_after_dequeue {} must be < capacity {cap}",
                    extra.min_after_dequeue
                )));
            }
        }
        QueueKind::PaddingFifo => {
            if dtypes.len() != shapes.len() {
                return Err(Error::invalid_argument(format!(
                    "Shapes must be provided for all components, but received {} dtypes and {} shapes.",
                    dtypes.len(),
                    shapes.len()
                )));
            }
            if let Some(s) = shapes.iter().find(|s| s.rank().is_none()) {
                return Err(Error::invalid_argument(format!(
                    "PaddingFIFOQueue needs shapes of known rank, got {s}"
                )));
            }
        }
        QueueKind::Fifo | QueueKind::Priority => {}
    }
    if dtypes.is_empty() {
        return Err(Error::invalid_argument(
            "A queue needs at least one component type",
        ));
    }
    if !shapes.is_empty() && shapes.len() != dtypes.len() {
        return Err(Error::invalid_argument(format!(
            "Different number of component types.  Types: {}, Shapes: {}",
            types_str(&dtypes),
            shapes_str(&shapes)
        )));
    }
    if kind != QueueKind::PaddingFifo {
        if let Some(s) = shapes.iter().find(|s| !s.is_fully_defined()) {
            return Err(Error::invalid_argument(format!(
                "All shapes must be fully defined: {s}"
            )));
        }
    }
    let name = if shared.is_empty() {
        let n = PRIVATE_NAMES.fetch_add(1, Ordering::Relaxed);
        format!("_{n}_{}", node.name())
    } else {
        shared
    };
    Ok(Box::new(CreateQueue {
        kind,
        op_type: node.op_type().to_string(),
        container,
        name,
        dtypes,
        shapes,
        capacity,
        extra,
        handle: OnceLock::new(),
    }))
}

/// The queue behind input 0 of a queue op.
fn queue_of<'c>(ctx: &'c OpContext<'_>) -> Result<&'c SessionQueue> {
    let h = ctx.resource_handle(0)?;
    h.get_ref::<SessionQueue>().map_err(|e| match h.resource() {
        Some(r) => Error::invalid_argument(format!(
            "Resource '{}' is a {}, not a queue",
            h.name(),
            r.type_name()
        )),
        None => e,
    })
}

fn components(ctx: &OpContext<'_>, from: usize) -> Vec<Tensor> {
    ctx.inputs()[from..].to_vec()
}

pub(super) struct EnqueueKernel {
    pub many: bool,
}

impl Kernel for EnqueueKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let q = queue_of(ctx)?;
        let tuple = components(ctx, 1);
        if self.many {
            q.enqueue_many(tuple, ctx.cancellation(), ctx.deadline())
        } else {
            q.enqueue(tuple, ctx.cancellation(), ctx.deadline())
        }
    }

    /// Waits while the queue is full (enqueue) or short of elements (dequeue).
    fn may_block(&self) -> bool {
        true
    }
}

pub(super) struct DequeueKernel;

impl Kernel for DequeueKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let q = queue_of(ctx)?;
        let out = q.dequeue(ctx.cancellation(), ctx.deadline())?;
        set_outputs(ctx, out)
    }

    /// Waits while the queue is full (enqueue) or short of elements (dequeue).
    fn may_block(&self) -> bool {
        true
    }
}

pub(super) struct DequeueManyKernel {
    pub allow_small: bool,
}

impl Kernel for DequeueManyKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let q = queue_of(ctx)?;
        let n = ctx.input(1).to_scalar::<i32>()?;
        if n < 0 {
            return Err(Error::invalid_argument(format!(
                "Input 'n' must be >= 0, but is {n}"
            )));
        }
        let out = q.dequeue_many(
            n as usize,
            self.allow_small,
            ctx.cancellation(),
            ctx.deadline(),
        )?;
        set_outputs(ctx, out)
    }

    /// Waits while the queue is full (enqueue) or short of elements (dequeue).
    fn may_block(&self) -> bool {
        true
    }
}

fn set_outputs(ctx: &mut OpContext<'_>, out: Vec<Tensor>) -> Result<()> {
    if out.len() != ctx.num_outputs() {
        return Err(Error::invalid_argument(format!(
            "The queue has {} components but the op expects {}",
            out.len(),
            ctx.num_outputs()
        )));
    }
    for (i, t) in out.into_iter().enumerate() {
        if t.dtype() != ctx.output_dtype(i) {
            return Err(Error::invalid_argument(format!(
                "Type mismatch in tuple component {i}. Expected {}, got {}",
                ctx.output_dtype(i),
                t.dtype()
            )));
        }
        ctx.set_output(i, t);
    }
    Ok(())
}

pub(super) struct CloseKernel {
    pub cancel_pending_enqueues: bool,
}

impl Kernel for CloseKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let q = queue_of(ctx)?;
        q.close(
            self.cancel_pending_enqueues,
            ctx.cancellation(),
            ctx.deadline(),
        )
    }
}

pub(super) struct SizeKernel;

impl Kernel for SizeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let q = queue_of(ctx)?;
        let n = q.size().min(i32::MAX as usize) as i32;
        ctx.set_output(0, Tensor::scalar(n));
        Ok(())
    }
}

pub(super) struct IsClosedKernel;

impl Kernel for IsClosedKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let q = queue_of(ctx)?;
        ctx.set_output(0, Tensor::scalar(q.is_closed()));
        Ok(())
    }
}
