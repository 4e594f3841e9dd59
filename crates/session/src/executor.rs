//! Executes a plan: inline on the calling thread, or as a dataflow over the inter-op pool when
//! the plan has independent expensive steps.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

use parking_lot::{Condvar, Mutex};
use weir_graph::{
    deadline_exceeded, CancellationToken, ControlFlowRole, Error, OpContext, ResourceManager,
    Result, SessionRunState, SessionState, Tensor, TensorStore,
};

use crate::plan::{Plan, Step};
use crate::step_stats::Collector;

/// Everything a step needs besides its inputs.
pub(crate) struct RunEnv<'a> {
    pub resources: &'a ResourceManager,
    pub cancellation: &'a CancellationToken,
    pub deadline: Option<Instant>,
    /// Where a traced run records each step.
    pub trace: Option<&'a Collector>,
    /// The session's handle store and the run's (`GetSessionHandle` and friends).
    pub session: Option<SessionRunState<'a>>,
}

pub(crate) fn check_live(env: &RunEnv<'_>) -> Result<()> {
    if env.cancellation.is_cancelled() {
        return Err(env
            .cancellation
            .error()
            .unwrap_or_else(|| Error::cancelled("Run was cancelled")));
    }
    if let Some(d) = env.deadline {
        if Instant::now() >= d {
            return Err(deadline_exceeded());
        }
    }
    Ok(())
}

/// Whether `step` runs, given which values are dead: `None` when it is dead (it does not run
/// and its outputs are dead), else the mask of its dead data inputs (only ever nonzero for a
/// Merge). A dead value is an empty slot: a slot is emptied early only by its last reader.
///
/// TensorFlow's rules: any dead input or dead control input makes an op dead, except a Merge,
/// which is dead only when all its data inputs are. A Merge forwards the live input that
/// arrived first: a fed one (the `num_feeds` first slots hold the feeds) arrives before any
/// computed one, so the others are then passed to it as dead.
fn live_inputs(
    step: &Step,
    slots: &[Option<Tensor>],
    step_dead: &[bool],
    num_feeds: usize,
) -> Option<u64> {
    let mut mask = 0u64;
    let mut dead = 0;
    for (k, r) in step.inputs.iter().enumerate() {
        if slots[r.slot].is_none() {
            dead += 1;
            if k < 64 {
                mask |= 1 << k;
            }
        }
    }
    match step.role {
        ControlFlowRole::Trigger => Some(0),
        ControlFlowRole::Merge => {
            let fed = step
                .inputs
                .iter()
                .take(64)
                .position(|r| r.slot < num_feeds && slots[r.slot].is_some());
            match fed {
                Some(k) if dead + 1 < step.inputs.len() => Some(!(1u64 << k)),
                _ => (dead < step.inputs.len()).then_some(mask),
            }
        }
        _ => (dead == 0 && !step.control_steps.iter().any(|&c| step_dead[c])).then_some(0),
    }
}

/// Runs one step's kernel; returns its outputs, checked against the node's signature, and the
/// mask of the outputs it marked dead (a Switch's untaken side). `dead_inputs` marks the inputs
/// that are dead placeholders (a Merge's).
fn run_step(
    step: &Step,
    inputs: &mut Vec<Tensor>,
    outputs: &mut Vec<Option<Tensor>>,
    dead_inputs: u64,
    env: &RunEnv<'_>,
) -> Result<u64> {
    outputs.clear();
    outputs.resize_with(step.outputs.len(), || None);
    let node = &step.node;
    let mut ctx = OpContext::new(
        node,
        inputs,
        outputs,
        env.resources,
        env.cancellation,
        env.deadline,
    )
    .with_unused_outputs(step.unused_outputs)
    .with_dead_inputs(dead_inputs)
    .with_session_state(env.session);
    step.kernel
        .compute(&mut ctx)
        .map_err(|e| e.with_node(node.name(), node.op_type()))?;
    let dead = ctx.dead_outputs();
    for (i, o) in outputs.iter().enumerate() {
        match o {
            Some(t) if t.dtype() == step.output_dtypes[i] => {}
            Some(t) => {
                return Err(Error::internal(format!(
                    "Kernel produced a {} tensor for output {i}, declared {}",
                    t.dtype(),
                    step.output_dtypes[i]
                ))
                .with_node(node.name(), node.op_type()))
            }
            // Only an output nothing reads, or a dead one, may be left unset.
            None if step.outputs[i].is_none() || (i < 64 && dead & (1 << i) != 0) => {}
            None => {
                return Err(Error::internal(format!("Kernel did not set output {i}"))
                    .with_node(node.name(), node.op_type()))
            }
        }
    }
    Ok(dead)
}

fn missing_slot(step: &Step) -> Error {
    Error::internal("A step's input was not computed")
        .with_node(step.node.name(), step.node.op_type())
}

/// The vectors a run needs, kept per thread between runs so that a small plan run in a loop
/// (a queue runner's per-example step) allocates nothing for them.
#[derive(Default)]
pub(crate) struct Scratch {
    pub slots: Vec<Option<Tensor>>,
    inputs: Vec<Tensor>,
    outputs: Vec<Option<Tensor>>,
    /// Per step, whether it was dead in this run (plans with control flow only).
    step_dead: Vec<bool>,
}

thread_local! {
    static SCRATCH: std::cell::Cell<Option<Box<Scratch>>> = const { std::cell::Cell::new(None) };
}

impl Scratch {
    /// This thread's scratch vectors (new ones if a run on this thread already holds them).
    pub(crate) fn take() -> Box<Scratch> {
        SCRATCH.with(|s| s.take()).unwrap_or_default()
    }

    /// Clears the vectors, so no tensor outlives its run, and keeps them for the next run.
    pub(crate) fn put_back(mut self: Box<Self>) {
        self.slots.clear();
        self.inputs.clear();
        self.outputs.clear();
        self.step_dead.clear();
        SCRATCH.with(|s| s.set(Some(self)));
    }
}

/// Constants with more elements than this are shared between threads, not copied per thread:
/// a large constant's consumer does enough work to hide a contended reference count.
const MAX_LOCAL_ELEMENTS: usize = 1024;

/// This thread's copy of a fixed step's value.
fn local_copy(t: &Tensor) -> Tensor {
    if t.num_elements() <= MAX_LOCAL_ELEMENTS {
        t.deep_copy()
    } else {
        t.clone()
    }
}

/// Runs every step in order on this thread, moving each value into its last reader; the
/// results are left in `scratch.slots`.
pub(crate) fn run_sequential(plan: &Plan, scratch: &mut Scratch, env: &RunEnv<'_>) -> Result<()> {
    let Scratch {
        slots,
        inputs,
        outputs,
        step_dead,
    } = scratch;
    if plan.control_flow {
        step_dead.clear();
        step_dead.resize(plan.steps.len(), false);
    }
    let cell = plan
        .local
        .get_or(|| std::cell::RefCell::new(vec![None; plan.steps.len()]));
    // A run nested in a kernel of the same plan on this thread does without the copies.
    let mut local = cell.try_borrow_mut().ok();
    let (control_flow, num_feeds) = (plan.control_flow, plan.feed_slots.len());
    for (i, step) in plan.steps.iter().enumerate() {
        let start = env.trace.map(|_| Instant::now());
        let mut dead_inputs = 0;
        if control_flow {
            match live_inputs(step, slots, step_dead, num_feeds) {
                Some(mask) => dead_inputs = mask,
                None => {
                    step_dead[i] = true;
                    continue;
                }
            }
        }
        if step.fixed {
            if let Some(t) = local.as_ref().and_then(|l| l[i].as_ref()) {
                if let (Some(trace), Some(start)) = (env.trace, start) {
                    trace.record(i, start, std::slice::from_ref(&Some(t.clone())));
                }
                if let Some(s) = step.outputs[0] {
                    slots[s] = Some(t.clone());
                }
                continue;
            }
        }
        if let Some(t) = &step.constant {
            outputs.clear();
            outputs.push(Some(t.clone()));
        } else {
            check_live(env)?;
            inputs.clear();
            for r in &step.inputs {
                let t = if r.last_use {
                    slots[r.slot].take()
                } else {
                    slots[r.slot].clone()
                };
                inputs.push(match t {
                    Some(t) => t,
                    None if dead_inputs != 0 => Tensor::empty_placeholder(),
                    None => return Err(missing_slot(step)),
                });
            }
            run_step(step, inputs, outputs, dead_inputs, env)?;
        }
        if let (Some(trace), Some(start)) = (env.trace, start) {
            trace.record(i, start, outputs);
        }
        // The first value this thread sees of a fixed step becomes its copy, used from now on.
        if step.fixed {
            if let (Some(l), Some(Some(t))) = (local.as_mut(), outputs.first_mut()) {
                *t = l[i].insert(local_copy(t)).clone();
            }
        }
        for (o, slot) in outputs.drain(..).zip(&step.outputs) {
            if let Some(s) = slot {
                slots[*s] = o;
            }
        }
    }
    Ok(())
}

/// Runs `plan` inline with `feeds` (in the order of its key's feeds) and returns its fetched
/// values, `None` for a dead one: how a while loop runs its condition and body.
pub(crate) fn run_fed(
    plan: &Plan,
    scratch: &mut Scratch,
    feeds: impl Iterator<Item = Tensor>,
    env: &RunEnv<'_>,
) -> Result<Vec<Option<Tensor>>> {
    scratch.slots.clear();
    scratch.slots.resize_with(plan.num_slots, || None);
    for (value, slot) in feeds.zip(&plan.feed_slots) {
        if let Some(s) = slot {
            scratch.slots[*s] = Some(value);
        }
    }
    run_sequential(plan, scratch, env)?;
    let fetched = plan
        .fetch_slots
        .iter()
        .map(|&s| scratch.slots[s].clone())
        .collect();
    scratch.slots.clear();
    Ok(fetched)
}

struct Shared {
    slots: Vec<Option<Tensor>>,
    pending: Vec<usize>,
    /// Ready steps to hand to the pool (expensive, or blocking while the caller is busy with
    /// another blocking step), to run inline, and blocking steps kept for the calling thread.
    ready_pool: VecDeque<usize>,
    ready_inline: VecDeque<usize>,
    ready_blocking: VecDeque<usize>,
    /// Whether the calling thread is in a blocking step.
    caller_blocked: bool,
    in_flight: usize,
    done: usize,
    error: Option<Error>,
    /// Per step, whether it was dead (plans with control flow only).
    step_dead: Vec<bool>,
}

impl Shared {
    /// Queues a step whose inputs are all there; a dead one is completed at once, without
    /// running, and so are the consumers it makes ready that are dead too.
    fn push_ready(&mut self, plan: &Plan, idx: usize) {
        if !plan.control_flow {
            return self.push_live(plan, idx);
        }
        let mut ready = vec![idx];
        while let Some(idx) = ready.pop() {
            let step = &plan.steps[idx];
            if live_inputs(step, &self.slots, &self.step_dead, plan.feed_slots.len()).is_some() {
                self.push_live(plan, idx);
                continue;
            }
            self.step_dead[idx] = true;
            self.done += 1;
            for &c in &step.consumers {
                self.pending[c] -= 1;
                if self.pending[c] == 0 {
                    ready.push(c);
                }
            }
        }
    }

    fn push_live(&mut self, plan: &Plan, idx: usize) {
        let s = &plan.steps[idx];
        // The calling thread belongs to this run, so a blocking step (a queue's enqueue or
        // dequeue, a reader) waits there rather than on a pool thread: runs blocked on queues
        // (each queue runner's, the training loop's) must never hold every inter-op thread
        // while the run that would unblock them waits for one. TensorFlow's queue kernels are
        // asynchronous for the same reason. A second blocking step of the run, while the
        // caller is in one, goes to the pool so that the two cannot wait on each other.
        if s.kernel.may_block() && !self.caller_blocked {
            self.ready_blocking.push_back(idx);
        } else if s.expensive || s.kernel.may_block() {
            self.ready_pool.push_back(idx);
        } else {
            self.ready_inline.push_back(idx);
        }
    }
}

/// The state of one parallel run, shared by the calling thread and the pool tasks.
struct Dataflow {
    plan: Arc<Plan>,
    state: Mutex<Shared>,
    cv: Condvar,
    resources: Arc<ResourceManager>,
    token: CancellationToken,
    deadline: Option<Instant>,
    trace: Option<Arc<Collector>>,
    handles: RunHandles,
}

/// A parallel run's share of the session's handle store, and its own store: owned, because
/// pool tasks of a failed run may outlive it.
pub(crate) struct RunHandles {
    pub state: Arc<SessionState>,
    pub store: Arc<TensorStore>,
}

impl Dataflow {
    fn env(&self) -> RunEnv<'_> {
        RunEnv {
            resources: &self.resources,
            cancellation: &self.token,
            deadline: self.deadline,
            trace: self.trace.as_deref(),
            session: Some(SessionRunState {
                state: &self.handles.state,
                store: &self.handles.store,
            }),
        }
    }

    /// The step's inputs, with the mask of the dead ones (a Merge's), given as placeholders.
    fn gather(&self, st: &Shared, idx: usize) -> Result<(Vec<Tensor>, u64)> {
        let step = &self.plan.steps[idx];
        let dead = if self.plan.control_flow {
            live_inputs(step, &st.slots, &st.step_dead, self.plan.feed_slots.len()).unwrap_or(0)
        } else {
            0
        };
        let inputs = step
            .inputs
            .iter()
            .map(|r| match &st.slots[r.slot] {
                Some(t) => Ok(t.clone()),
                None if dead != 0 => Ok(Tensor::empty_placeholder()),
                None => Err(missing_slot(step)),
            })
            .collect::<Result<_>>()?;
        Ok((inputs, dead))
    }

    fn execute(
        &self,
        idx: usize,
        (mut inputs, dead): (Vec<Tensor>, u64),
    ) -> Result<Vec<Option<Tensor>>> {
        let start = self.trace.as_ref().map(|_| Instant::now());
        let outputs = match &self.plan.steps[idx].constant {
            Some(t) => vec![Some(t.clone())],
            None => {
                let env = self.env();
                let mut outputs = Vec::new();
                check_live(&env)?;
                run_step(&self.plan.steps[idx], &mut inputs, &mut outputs, dead, &env)?;
                outputs
            }
        };
        if let (Some(trace), Some(start)) = (&self.trace, start) {
            trace.record(idx, start, &outputs);
        }
        Ok(outputs)
    }

    /// Records a finished step: its outputs and the consumers it makes ready; on error, fails
    /// the run and cancels its other branches (one may be blocked in a queue).
    fn complete(&self, st: &mut Shared, idx: usize, result: Result<Vec<Option<Tensor>>>) {
        match result {
            Ok(outputs) => {
                let step = &self.plan.steps[idx];
                for (o, slot) in outputs.into_iter().zip(&step.outputs) {
                    if let Some(s) = slot {
                        st.slots[*s] = o;
                    }
                }
                for &c in &step.consumers {
                    st.pending[c] -= 1;
                    if st.pending[c] == 0 {
                        st.push_ready(&self.plan, c);
                    }
                }
                st.done += 1;
            }
            Err(e) => {
                if st.error.is_none() {
                    st.error = Some(e.clone());
                }
                self.token.cancel(e);
            }
        }
        self.cv.notify_all();
    }

    /// Dispatches ready work: pool-bound steps go to the pool (unless it is the only work
    /// left), the rest runs on this thread. The caller waits for the run to finish; a pool
    /// task returns when nothing is ready.
    fn drive(self: &Arc<Self>, pool: &Arc<rayon::ThreadPool>, caller: bool) -> Result<()> {
        let mut st = self.state.lock();
        loop {
            if let Some(e) = &st.error {
                return Err(e.clone());
            }
            if st.done == self.plan.steps.len() {
                return Ok(());
            }
            if caller {
                if let Some(idx) = st.ready_blocking.pop_front() {
                    let inputs = self.gather(&st, idx);
                    st.caller_blocked = true;
                    // Blocking steps that became ready before go where the others would.
                    let waiting: Vec<usize> = st.ready_blocking.drain(..).collect();
                    for w in waiting {
                        st.ready_pool.push_back(w);
                    }
                    // The rest of the ready work goes on in a pool task meanwhile.
                    if !st.ready_pool.is_empty() || !st.ready_inline.is_empty() {
                        let (me, p) = (self.clone(), pool.clone());
                        pool.spawn(move || {
                            // Errors reach the caller through the shared state.
                            let _ = me.drive(&p, false);
                        });
                    }
                    drop(st);
                    let r = inputs.and_then(|i| self.execute(idx, i));
                    st = self.state.lock();
                    st.caller_blocked = false;
                    self.complete(&mut st, idx, r);
                    continue;
                }
            }
            if let Some(idx) = st.ready_pool.pop_front() {
                let alone = st.ready_pool.is_empty()
                    && st.ready_inline.is_empty()
                    && st.ready_blocking.is_empty()
                    && st.in_flight == 0;
                let inputs = match self.gather(&st, idx) {
                    Ok(i) => i,
                    Err(e) => {
                        self.complete(&mut st, idx, Err(e));
                        continue;
                    }
                };
                // A blocking step that reached the pool queue (the caller was in another) never
                // runs here, so other branches progress.
                if alone && !self.plan.steps[idx].kernel.may_block() {
                    drop(st);
                    let r = self.execute(idx, inputs);
                    st = self.state.lock();
                    self.complete(&mut st, idx, r);
                } else {
                    st.in_flight += 1;
                    let (me, p) = (self.clone(), pool.clone());
                    pool.spawn(move || {
                        let r = me.execute(idx, inputs);
                        {
                            let mut st = me.state.lock();
                            st.in_flight -= 1;
                            me.complete(&mut st, idx, r);
                        }
                        // Errors reach the caller through the shared state.
                        let _ = me.drive(&p, false);
                    });
                }
                continue;
            }
            if let Some(idx) = st.ready_inline.pop_front() {
                let inputs = self.gather(&st, idx);
                drop(st);
                let r = inputs.and_then(|i| self.execute(idx, i));
                st = self.state.lock();
                self.complete(&mut st, idx, r);
                continue;
            }
            if !caller {
                return Ok(());
            }
            match self.deadline {
                Some(d) => {
                    if self.cv.wait_until(&mut st, d).timed_out()
                        && st.ready_pool.is_empty()
                        && st.ready_inline.is_empty()
                        && st.ready_blocking.is_empty()
                        && st.error.is_none()
                        && st.done < self.plan.steps.len()
                    {
                        let e = deadline_exceeded();
                        st.error = Some(e.clone());
                        drop(st);
                        self.token.cancel(e.clone());
                        return Err(e);
                    }
                }
                None => self.cv.wait(&mut st),
            }
        }
    }
}

/// Runs the plan as a dataflow: expensive and blocking steps go to the inter-op pool while
/// other work is ready, cheap steps run inline on whichever thread finds them ready.
pub(crate) fn run_parallel(
    plan: &Arc<Plan>,
    slots: Vec<Option<Tensor>>,
    (resources, handles): (&Arc<ResourceManager>, RunHandles),
    token: &CancellationToken,
    deadline: Option<Instant>,
    pool: &Arc<rayon::ThreadPool>,
    trace: Option<Arc<Collector>>,
) -> Result<Vec<Option<Tensor>>> {
    let pending: Vec<usize> = plan.steps.iter().map(|s| s.num_deps).collect();
    let mut shared = Shared {
        slots,
        pending,
        ready_pool: VecDeque::new(),
        ready_inline: VecDeque::new(),
        ready_blocking: VecDeque::new(),
        caller_blocked: false,
        in_flight: 0,
        done: 0,
        error: None,
        step_dead: vec![
            false;
            if plan.control_flow {
                plan.steps.len()
            } else {
                0
            }
        ],
    };
    for i in 0..plan.steps.len() {
        if shared.pending[i] == 0 {
            shared.push_ready(plan, i);
        }
    }
    let flow = Arc::new(Dataflow {
        plan: plan.clone(),
        state: Mutex::new(shared),
        cv: Condvar::new(),
        resources: resources.clone(),
        token: token.clone(),
        deadline,
        trace,
        handles,
    });
    flow.drive(pool, true)?;
    let mut st = flow.state.lock();
    Ok(std::mem::take(&mut st.slots))
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Once};

    use weir_graph::registry::register_op;
    use weir_graph::{
        ArgType, CancellationToken, DType, Graph, Kernel, OpContext, OpDef, ResourceManager,
        Result, Shape, Tensor,
    };

    use super::{run_sequential, RunEnv, Scratch};
    use crate::plan::{build_plan, Plan, PlanKey};

    #[test]
    fn scratch_vectors_keep_their_capacity_and_drop_their_tensors() {
        let mut s = Scratch::take();
        s.slots
            .resize_with(16, || Some(weir_graph::Tensor::scalar(1.0f32)));
        let t = s.slots[0].clone().unwrap();
        s.put_back();
        assert!(t.is_unique(), "a tensor stayed in the scratch vectors");
        let again = Scratch::take();
        assert!(again.slots.is_empty() && again.slots.capacity() >= 16);
        // A nested run on the same thread gets vectors of its own.
        assert_eq!(Scratch::take().slots.capacity(), 0);
        again.put_back();
    }

    /// A kernel whose output never changes (as a resource op's handle), counting its runs.
    struct Fixed {
        value: Tensor,
        runs: AtomicUsize,
    }

    impl Kernel for Fixed {
        fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
            self.runs.fetch_add(1, Ordering::Relaxed);
            ctx.set_output(0, self.value.clone());
            Ok(())
        }

        fn output_is_fixed(&self) -> bool {
            true
        }
    }

    /// Runs `plan` on this thread and returns its one fetch.
    fn run_once(plan: &Plan) -> Tensor {
        let (resources, token) = (ResourceManager::new(), CancellationToken::new());
        let env = RunEnv {
            resources: &resources,
            cancellation: &token,
            deadline: None,
            trace: None,
            session: None,
        };
        let mut scratch = Scratch::take();
        scratch.slots.resize_with(plan.num_slots, || None);
        run_sequential(plan, &mut scratch, &env).unwrap();
        let t = scratch.slots[plan.fetch_slots[0]].take().unwrap();
        scratch.put_back();
        t
    }

    #[test]
    fn a_fixed_output_is_computed_once_per_thread_and_copied_for_it() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            register_op(
                OpDef::new("ExecutorTestFixed")
                    .output("y", ArgType::Fixed(DType::F32))
                    .shape_fn(|ctx| {
                        ctx.set_output(0, Shape::scalar());
                        Ok(())
                    }),
            )
        });
        let g = Graph::new();
        let y = g
            .new_operation("ExecutorTestFixed")
            .build()
            .unwrap()
            .output(0)
            .unwrap();
        let kernel = Arc::new(Fixed {
            value: Tensor::scalar(2.5f32),
            runs: AtomicUsize::new(0),
        });
        let key = PlanKey {
            feeds: vec![],
            fetches: vec![(y.node_id(), 0)],
            targets: vec![],
        };
        let k = kernel.clone();
        let plan = build_plan(&g, &key, &[], false, move |_| {
            Ok(k.clone() as Arc<dyn Kernel>)
        })
        .unwrap();
        for _ in 0..3 {
            let t = run_once(&plan);
            assert_eq!(t.to_scalar::<f32>().unwrap(), 2.5);
            // The value came from this thread's copy, not from the kernel's tensor.
            assert!(kernel.value.is_unique());
        }
        assert_eq!(kernel.runs.load(Ordering::Relaxed), 1);
        std::thread::scope(|s| {
            s.spawn(|| {
                for _ in 0..2 {
                    assert_eq!(run_once(&plan).to_scalar::<f32>().unwrap(), 2.5);
                }
            });
        });
        assert_eq!(
            kernel.runs.load(Ordering::Relaxed),
            2,
            "once more, for the new thread"
        );
    }
}
