//! The ops behind `StagingArea`: TensorFlow's `Stage`, `Unstage`, `StagePeek`, `StageSize` and
//! `StageClear` (stage_op.cc), their OpDefs and kernels, and the session buffer they share.
//!
//! None of the ops takes a handle: each finds the session's buffer by its `container` and
//! `shared_name` attrs (the node name when `shared_name` is empty) and creates it on first use,
//! with the `capacity` and `memory_limit` of whichever op ran first.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrDef, AttrKind, AttrValue, CancellationToken, DType, Error, InferenceContext,
    Kernel, Monitor, Node, OpContext, OpDef, Resource, Result, Shape, Tensor,
};

/// The bytes TensorFlow counts for one string element besides its characters: the size of its
/// `tstring` (what `Tensor::TotalBytes` adds up).
const STRING_ELEMENT_BYTES: usize = 24;
/// The bytes TensorFlow counts for one resource handle element (`sizeof(ResourceHandle)`).
const RESOURCE_ELEMENT_BYTES: usize = 200;

/// What a tensor weighs against a staging area's `memory_limit`, as TensorFlow's
/// `Tensor::TotalBytes` counts it (so the same puts block, and the same message quotes the same
/// number): the element bytes, plus for strings a fixed size per element.
pub(super) fn total_bytes(t: &Tensor) -> usize {
    let n = t.num_elements();
    match t.dtype() {
        DType::String => {
            let chars: usize = t
                .as_slice::<weir_graph::Bytes>()
                .map_or(0, |s| s.iter().map(|b| b.len()).sum());
            n * STRING_ELEMENT_BYTES + chars
        }
        DType::Resource => n * RESOURCE_ELEMENT_BYTES,
        dt => n * dt.size_of().unwrap_or(0),
    }
}

struct Contents {
    tuples: VecDeque<Vec<Tensor>>,
    bytes: usize,
}

/// The elements staged in one session under one name: TensorFlow's `Buffer` resource. FIFO;
/// `capacity` (elements) and `memory_limit` (bytes) of 0 mean unbounded.
pub(super) struct StagingBuffer {
    capacity: usize,
    memory_limit: usize,
    state: Arc<Monitor<Contents>>,
}

impl Resource for StagingBuffer {
    fn type_name(&self) -> &str {
        "Buffer"
    }
}

impl StagingBuffer {
    fn new(capacity: usize, memory_limit: usize) -> StagingBuffer {
        StagingBuffer {
            capacity,
            memory_limit,
            state: Monitor::new(Contents {
                tuples: VecDeque::new(),
                bytes: 0,
            }),
        }
    }

    fn is_bounded(&self) -> bool {
        self.capacity > 0 || self.memory_limit > 0
    }

    /// Appends `tuple`, first waiting while the buffer is full (by count or by bytes).
    fn put(
        &self,
        tuple: Vec<Tensor>,
        cancel: &CancellationToken,
        deadline: Option<Instant>,
    ) -> Result<()> {
        let bytes: usize = tuple.iter().map(total_bytes).sum();
        // Checked first, as TensorFlow does: such a tuple would wait forever.
        if self.memory_limit > 0 && bytes > self.memory_limit {
            return Err(Error::resource_exhausted(format!(
                "Attempted to insert tensors with combined size of '{bytes}' bytes into Staging Area with a memory limit of '{}'.",
                self.memory_limit
            )));
        }
        let mut st = self.state.lock();
        if self.is_bounded() {
            let (capacity, limit) = (self.capacity, self.memory_limit);
            self.state.wait_while(&mut st, cancel, deadline, |c| {
                (capacity > 0 && c.tuples.len() >= capacity)
                    || (limit > 0 && c.bytes + bytes > limit)
            })?;
        }
        st.bytes += bytes;
        st.tuples.push_back(tuple);
        drop(st);
        // Getters and peekers (at any index) wait on the same monitor.
        self.state.notify_all();
        Ok(())
    }

    /// Removes and returns the first element, waiting while there is none.
    fn get(&self, cancel: &CancellationToken, deadline: Option<Instant>) -> Result<Vec<Tensor>> {
        let mut st = self.state.lock();
        self.state
            .wait_while(&mut st, cancel, deadline, |c| c.tuples.is_empty())?;
        let tuple = st.tuples.pop_front().unwrap_or_default();
        st.bytes = st.bytes.saturating_sub(tuple.iter().map(total_bytes).sum());
        drop(st);
        if self.is_bounded() {
            self.state.notify_all();
        }
        Ok(tuple)
    }

    /// The element at `index` (0 is the next `get`'s), waiting until there is one.
    fn peek(
        &self,
        index: usize,
        cancel: &CancellationToken,
        deadline: Option<Instant>,
    ) -> Result<Vec<Tensor>> {
        let mut st = self.state.lock();
        self.state
            .wait_while(&mut st, cancel, deadline, |c| c.tuples.len() <= index)?;
        Ok(st.tuples[index].clone())
    }

    fn size(&self) -> usize {
        self.state.lock().tuples.len()
    }

    fn clear(&self) {
        let mut st = self.state.lock();
        st.tuples.clear();
        st.bytes = 0;
        drop(st);
        if self.is_bounded() {
            self.state.notify_all();
        }
    }
}

/// The kind of staging op a kernel runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum StageOp {
    Stage,
    Unstage,
    Peek,
    Size,
    Clear,
}

/// The kernel of every staging op: where its buffer lives and what to do with it.
struct StageKernel {
    op: StageOp,
    container: String,
    name: String,
    capacity: usize,
    memory_limit: usize,
}

impl StageKernel {
    fn from_node(op: StageOp, node: &Node) -> Result<Box<dyn Kernel>> {
        let shared: String = node.attr("shared_name")?;
        let capacity: i64 = node.attr("capacity")?;
        let memory_limit: i64 = node.attr("memory_limit")?;
        Ok(Box::new(StageKernel {
            op,
            container: node.attr("container")?,
            // TensorFlow's ContainerInfo with use_node_name_as_default.
            name: if shared.is_empty() {
                node.name().to_string()
            } else {
                shared
            },
            capacity: usize::try_from(capacity).unwrap_or(0),
            memory_limit: usize::try_from(memory_limit).unwrap_or(0),
        }))
    }

    /// The session's buffer, looked up on every run (as TensorFlow does) so that a cleared
    /// container is seen.
    fn buffer(&self, ctx: &OpContext<'_>) -> Result<Arc<StagingBuffer>> {
        ctx.resources()
            .lookup_or_create_typed(&self.container, &self.name, || {
                Ok(StagingBuffer::new(self.capacity, self.memory_limit))
            })
    }
}

/// Hands an element to the outputs of `Unstage` or `StagePeek`, refusing one of another
/// arity or dtypes (staged by an op of another staging area with the same shared name).
fn set_tuple(ctx: &mut OpContext<'_>, tuple: Vec<Tensor>) -> Result<()> {
    if tuple.len() != ctx.num_outputs() {
        return Err(Error::invalid_argument(format!(
            "Mismatch stage/unstage: {} vs. {}",
            tuple.len(),
            ctx.num_outputs()
        )));
    }
    for (i, t) in tuple.into_iter().enumerate() {
        if t.dtype() != ctx.output_dtype(i) {
            return Err(Error::internal(format!(
                "Output {i} of type {} does not match declared output type {}",
                t.dtype().name(),
                ctx.output_dtype(i).name()
            )));
        }
        ctx.set_output(i, t);
    }
    Ok(())
}

impl Kernel for StageKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let buf = self.buffer(ctx)?;
        match self.op {
            StageOp::Stage => buf.put(ctx.inputs().to_vec(), ctx.cancellation(), ctx.deadline()),
            StageOp::Unstage => {
                let tuple = buf.get(ctx.cancellation(), ctx.deadline())?;
                set_tuple(ctx, tuple)
            }
            StageOp::Peek => {
                let index = ctx.input(0);
                if !index.shape().is_empty() {
                    return Err(Error::invalid_argument("index must be scalar"));
                }
                // TensorFlow reads the int32 into a size_t: a negative index is one that never
                // exists, and the peek waits until cancelled.
                let index = usize::try_from(index.to_scalar::<i32>()?).unwrap_or(usize::MAX);
                let tuple = buf.peek(index, ctx.cancellation(), ctx.deadline())?;
                set_tuple(ctx, tuple)
            }
            StageOp::Size => {
                let n = i32::try_from(buf.size()).unwrap_or(i32::MAX);
                ctx.set_output(0, Tensor::scalar(n));
                Ok(())
            }
            StageOp::Clear => {
                buf.clear();
                Ok(())
            }
        }
    }

    /// `Stage` waits for room, `Unstage` and `StagePeek` for an element.
    fn may_block(&self) -> bool {
        matches!(self.op, StageOp::Stage | StageOp::Unstage | StageOp::Peek)
    }
}

fn scalar(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.set_output(0, Shape::scalar());
    Ok(())
}

/// A staging op's signature: `capacity: int >= 0 = 0`, `memory_limit: int >= 0 = 0`,
/// `dtypes: list(type)`, `container` and `shared_name`, stateful.
fn stage_def(name: &str) -> OpDef {
    let mut def = OpDef::new(name);
    for attr in ["capacity", "memory_limit"] {
        def.attrs.push(AttrDef {
            name: attr,
            kind: AttrKind::Int,
            default: Some(AttrValue::Int(0)),
            allowed: None,
            min: Some(0),
        });
    }
    def.attr("dtypes", AttrKind::Types, None)
        .resource_name_attrs()
        .stateful()
}

pub(super) fn register() {
    register_op(stage_def("Stage").input("values", ArgType::List("dtypes")));
    register_op(stage_def("Unstage").output("values", ArgType::List("dtypes")));
    register_op(
        stage_def("StagePeek")
            .input("index", ArgType::Fixed(DType::I32))
            .output("values", ArgType::List("dtypes")),
    );
    register_op(
        stage_def("StageSize")
            .output("size", ArgType::Fixed(DType::I32))
            .shape_fn(scalar),
    );
    register_op(stage_def("StageClear"));
    register_kernel("Stage", |n| StageKernel::from_node(StageOp::Stage, n));
    register_kernel("Unstage", |n| StageKernel::from_node(StageOp::Unstage, n));
    register_kernel("StagePeek", |n| StageKernel::from_node(StageOp::Peek, n));
    register_kernel("StageSize", |n| StageKernel::from_node(StageOp::Size, n));
    register_kernel("StageClear", |n| StageKernel::from_node(StageOp::Clear, n));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn t(v: Vec<f32>) -> Tensor {
        Tensor::from(v)
    }

    #[test]
    fn bytes_are_counted_as_tensorflow_counts_them() {
        assert_eq!(total_bytes(&t(vec![1.0, 2.0])), 8);
        assert_eq!(total_bytes(&Tensor::from(vec!["a", "bb"])), 51);
        assert_eq!(total_bytes(&Tensor::from(Vec::<f32>::new())), 0);
    }

    #[test]
    fn capacity_put_waits_and_times_out() {
        let b = StagingBuffer::new(1, 0);
        let c = CancellationToken::new();
        b.put(vec![t(vec![1.0])], &c, None).unwrap();
        let soon = Some(Instant::now() + Duration::from_millis(30));
        let e = b.put(vec![t(vec![2.0])], &c, soon).unwrap_err();
        assert!(e.is_deadline_exceeded(), "{e}");
        assert_eq!(b.size(), 1);
        b.clear();
        b.put(vec![t(vec![3.0])], &c, soon).unwrap();
        assert_eq!(b.state.lock().bytes, 4);
    }

    #[test]
    fn get_ends_on_cancellation() {
        let b = Arc::new(StagingBuffer::new(0, 0));
        let c = CancellationToken::new();
        let c2 = c.clone();
        let h = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            c2.cancel(Error::cancelled("Session has been closed."));
        });
        let later = Some(Instant::now() + Duration::from_secs(20));
        let e = b.get(&c, later).unwrap_err();
        assert!(e.is_cancelled(), "{e}");
        h.join().unwrap();
    }

    #[test]
    fn memory_is_returned_by_get() {
        let b = StagingBuffer::new(0, 8);
        let c = CancellationToken::new();
        let soon = Some(Instant::now() + Duration::from_millis(30));
        b.put(vec![t(vec![1.0, 2.0])], &c, soon).unwrap();
        assert!(b.put(vec![t(vec![1.0])], &c, soon).is_err());
        let e = b.put(vec![t(vec![1.0; 3])], &c, soon).unwrap_err();
        assert!(e.message().contains("combined size of '12' bytes"), "{e}");
        assert_eq!(b.get(&c, soon).unwrap().len(), 1);
        assert_eq!(b.state.lock().bytes, 0);
        b.put(vec![t(vec![1.0])], &c, soon).unwrap();
        assert_eq!(b.peek(0, &c, soon).unwrap()[0].num_elements(), 1);
        assert!(b.peek(1, &c, soon).unwrap_err().is_deadline_exceeded());
    }
}
