//! The kernel interface: what a session calls to run one node, and what the node sees.

use std::sync::Arc;
use std::time::Instant;

use crate::attr::FromAttr;
use crate::shape::{format_dims, Shape};
use crate::{
    CancellationToken, DType, Error, Node, Resource, ResourceHandle, ResourceManager, Result,
    SessionRunState, Tensor,
};

/// The computation of one op type, instantiated once per node per session: TensorFlow's
/// `OpKernel`.
///
/// `compute` takes `&self` because many runs of one session may execute the same node at once;
/// a kernel with state keeps it behind its own lock or in a session resource.
pub trait Kernel: Send + Sync {
    /// Reads the inputs from `ctx` and sets every output, or fails.
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()>;

    /// Whether the kernel does enough work that running it on the inter-op pool, beside other
    /// ready work, pays for the hand-off. Cheap kernels run inline on the calling thread.
    fn is_expensive(&self) -> bool {
        false
    }

    /// Roughly how many multiply-adds one run does, given the static shapes of the inputs;
    /// `None` when the kernel cannot tell (then an expensive kernel is taken to be worth the
    /// pool). An expensive kernel estimated below the executor's threshold runs inline: a
    /// small matmul in a backward pass finishes before a pool thread would have woken up.
    fn work_estimate(&self, _inputs: &[Shape]) -> Option<u64> {
        None
    }

    /// The value a constant kernel always outputs (its one output): the executor hands it to
    /// the consumers without calling `compute`, as TensorFlow's executor does with
    /// `OpKernel::const_tensor`.
    fn const_tensor(&self) -> Option<&Tensor> {
        None
    }

    /// Whether every successful run outputs the same one tensor (a resource op's handle, made
    /// once per session), so an executor may keep a copy per thread and skip `compute`: runner
    /// threads then never contend on the shared tensor's reference count.
    fn output_is_fixed(&self) -> bool {
        false
    }

    /// Whether the kernel may wait for other work (a queue op, a reader waiting for files), so
    /// a parallel run never ties up the thread that dispatches the rest of the step with it.
    fn may_block(&self) -> bool {
        false
    }

    /// This kernel, changed to compute output `output` already converted to `dtype` exactly
    /// as a `Cast` would convert it; `None` when it cannot. A session's run plan uses it when
    /// such a Cast is the output's only reader, so the wider intermediate is never written (as
    /// TensorFlow's Grappler rewrites a graph before running it).
    fn with_output_cast(&self, _output: usize, _dtype: DType) -> Option<Arc<dyn Kernel>> {
        None
    }

    /// This kernel, whose output `output` a fused Cast already makes float32 (see
    /// [`Kernel::with_output_cast`]), changed to also apply `scale` to each value exactly as the
    /// float32 `Mul` or `RealDiv` by a scalar constant that reads it would; `None` when it
    /// cannot. A run plan uses it for `tf.cast(pixels, tf.float32) * (1 / 255)`, so the batch
    /// is scaled while each value is in a register instead of in one more pass over memory.
    fn with_output_scaled(&self, _output: usize, _scale: OutputScale) -> Option<Arc<dyn Kernel>> {
        None
    }

    /// This kernel, changed to output all its outputs stacked along `axis` in output 0 and
    /// nothing else, exactly as a `Pack` of them would (`tf.stack(decode_csv(...))`); `None`
    /// when it cannot. A run plan uses it when such a Pack is all that reads the outputs.
    fn with_outputs_packed(&self, _axis: i64) -> Option<Arc<dyn Kernel>> {
        None
    }

    /// How the kernel takes part in control flow's dead values; see [`ControlFlowRole`].
    fn control_flow_role(&self) -> ControlFlowRole {
        ControlFlowRole::Plain
    }
}

/// How a kernel treats dead values, the values of the branch of a `tf.cond` that was not taken
/// (TensorFlow's executor special-cases `Switch` and `Merge` the same way).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ControlFlowRole {
    /// Any dead input (or dead control input) makes the op dead without running it: all its
    /// outputs are dead. Most ops.
    #[default]
    Plain,
    /// Like `Plain`, except that the kernel may mark some outputs dead
    /// ([`OpContext::mark_output_dead`]): `Switch`.
    Switch,
    /// Runs when any data input is live, seeing which are dead
    /// ([`OpContext::input_is_dead`]); dead only when all data inputs are (its control inputs'
    /// deadness does not count): `Merge`.
    Merge,
    /// Never dead, whatever its inputs: `ControlTrigger`, which TensorFlow's gradient loops
    /// wait on for ops of either branch of a cond.
    Trigger,
}

/// A float32 `Mul` or `RealDiv` by a scalar constant, as a producing kernel applies it to its
/// output when a run plan fuses the op into it ([`Kernel::with_output_scaled`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OutputScale {
    /// `x * c` (a `Mul` of the value and the constant, in either order).
    Mul(f32),
    /// `x / c` (a `RealDiv` of the value by the constant).
    Div(f32),
}

impl OutputScale {
    /// The value the fused op would compute from `x`.
    #[inline(always)]
    pub fn apply(self, x: f32) -> f32 {
        match self {
            OutputScale::Mul(c) => x * c,
            OutputScale::Div(c) => x / c,
        }
    }

    /// Applies the op to every value of `values`, in place (inlined, so a caller compiled for
    /// wider vectors gets them here too).
    #[inline(always)]
    pub fn apply_all(self, values: &mut [f32]) {
        match self {
            OutputScale::Mul(c) => values.iter_mut().for_each(|v| *v *= c),
            OutputScale::Div(c) => values.iter_mut().for_each(|v| *v /= c),
        }
    }
}

/// What a kernel sees while it runs: its node, inputs, output slots, the session's resources,
/// and the cancellation token and deadline it must honour when it blocks.
pub struct OpContext<'a> {
    node: &'a Node,
    inputs: &'a mut Vec<Tensor>,
    outputs: &'a mut Vec<Option<Tensor>>,
    resources: &'a ResourceManager,
    cancellation: &'a CancellationToken,
    deadline: Option<Instant>,
    /// The session's handle store and the run's, when a session runs the kernel.
    session: Option<SessionRunState<'a>>,
    /// Bit `i` set: nothing reads output `i` in this run.
    unused_outputs: u64,
    /// Bit `i` set: input `i` is dead (a Merge's untaken branch) and holds a placeholder.
    dead_inputs: u64,
    /// Bit `i` set: the kernel marked output `i` dead.
    dead_outputs: u64,
}

impl<'a> OpContext<'a> {
    /// A context for one execution of `node`. `outputs` must hold one `None` per output.
    pub fn new(
        node: &'a Node,
        inputs: &'a mut Vec<Tensor>,
        outputs: &'a mut Vec<Option<Tensor>>,
        resources: &'a ResourceManager,
        cancellation: &'a CancellationToken,
        deadline: Option<Instant>,
    ) -> OpContext<'a> {
        OpContext {
            node,
            inputs,
            outputs,
            resources,
            cancellation,
            deadline,
            session: None,
            unused_outputs: 0,
            dead_inputs: 0,
            dead_outputs: 0,
        }
    }

    /// Marks the dead inputs (bit `i` for input `i`), which hold placeholders: only a kernel
    /// whose role is [`ControlFlowRole::Merge`] is ever run with any.
    pub fn with_dead_inputs(mut self, mask: u64) -> Self {
        self.dead_inputs = mask;
        self
    }

    /// Gives the kernel its session's handle store and its run's (TensorFlow's
    /// `OpKernelContext::session_state` and `tensor_store`).
    pub fn with_session_state(mut self, session: Option<SessionRunState<'a>>) -> Self {
        self.session = session;
        self
    }

    /// The session's handle store and the run's; `None` for a kernel run outside a session.
    pub fn session_state(&self) -> Option<SessionRunState<'a>> {
        self.session
    }

    /// Whether input `i` is dead (see [`ControlFlowRole::Merge`]).
    pub fn input_is_dead(&self, i: usize) -> bool {
        i < 64 && self.dead_inputs & (1 << i) != 0
    }

    /// Marks output `i` (of the first 64) dead: the kernel leaves it unset and whatever reads it
    /// does not run (see [`ControlFlowRole::Switch`]).
    pub fn mark_output_dead(&mut self, i: usize) {
        if i < 64 {
            self.dead_outputs |= 1 << i;
        }
    }

    /// The outputs the kernel marked dead, bit `i` for output `i`.
    pub fn dead_outputs(&self) -> u64 {
        self.dead_outputs
    }

    /// Marks the outputs nothing reads in this run (bit `i` for output `i`, the first 64): a
    /// kernel may skip computing them and leave them unset.
    pub fn with_unused_outputs(mut self, mask: u64) -> Self {
        self.unused_outputs = mask;
        self
    }

    /// Whether anything reads output `i` in this run (TensorFlow's `output_required`); a kernel
    /// may leave an output that is not required unset.
    pub fn output_required(&self, i: usize) -> bool {
        i >= 64 || self.unused_outputs & (1 << i) == 0
    }

    /// The node being run.
    pub fn node(&self) -> &Node {
        self.node
    }

    /// The number of inputs.
    pub fn num_inputs(&self) -> usize {
        self.inputs.len()
    }

    /// Input `i`.
    pub fn input(&self, i: usize) -> &Tensor {
        &self.inputs[i]
    }

    /// All inputs.
    pub fn inputs(&self) -> &[Tensor] {
        self.inputs
    }

    /// Takes input `i` out of the context, so a kernel can update it in place when no one else
    /// holds its data; `input(i)` afterwards is an empty tensor.
    pub fn take_input(&mut self, i: usize) -> Tensor {
        std::mem::replace(&mut self.inputs[i], Tensor::empty_placeholder())
    }

    /// Sets output `i`.
    pub fn set_output(&mut self, i: usize, t: Tensor) {
        self.outputs[i] = Some(t);
    }

    /// The number of outputs.
    pub fn num_outputs(&self) -> usize {
        self.outputs.len()
    }

    /// The declared dtype of output `i`.
    pub fn output_dtype(&self, i: usize) -> DType {
        self.node.output_dtypes()[i]
    }

    /// Attribute `name` of the node as `T`.
    pub fn attr<T: FromAttr>(&self, name: &str) -> Result<T> {
        self.node.attr(name)
    }

    /// Input `i` as one resource handle, borrowed: resource ops read their handle on every
    /// run, and a clone would touch three reference counts.
    pub fn resource_handle(&self, i: usize) -> Result<&ResourceHandle> {
        match self.inputs[i].as_slice::<ResourceHandle>()? {
            [h] => Ok(h),
            _ => Err(Error::invalid_argument(format!(
                "Expected one resource handle in input {i}, got shape {}",
                format_dims(self.inputs[i].shape())
            ))),
        }
    }

    /// The resource behind input `i`, as its concrete type `T`: TensorFlow's
    /// `LookupResource(ctx, HandleFromInput(ctx, i))`.
    pub fn resource<T: Resource>(&self, i: usize) -> Result<&T> {
        self.resource_handle(i)?.get_ref::<T>()
    }

    /// The session's resource manager (variables, queues, readers).
    pub fn resources(&self) -> &ResourceManager {
        self.resources
    }

    /// Fires when the run must stop: the session is closing or another op of the step failed.
    pub fn cancellation(&self) -> &CancellationToken {
        self.cancellation
    }

    /// When the run's timeout passes, if it has one.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// An error naming this node; the executor adds the node itself, this is for messages that
    /// quote it.
    pub fn error(&self, e: Error) -> Error {
        e.with_node(self.node.name(), self.node.op_type())
    }
}
