//! Run plans: the pruned, ordered list of nodes one (feeds, fetches, targets) combination
//! needs, with slots for every tensor, computed once and cached by the session.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::sync::Arc;

use thread_local::ThreadLocal;
use weir_graph::{ControlFlowRole, DType, Error, Graph, Kernel, Node, Result, Shape, Tensor};

mod loops;

use loops::{KernelFor, Loops};
use weir_graph::frames::{Frames, ROOT};

/// Where a step reads one input.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SlotRead {
    pub slot: usize,
    /// No later step reads this slot and it is not fetched: the value can be moved, not cloned.
    pub last_use: bool,
}

/// One node to run.
pub(crate) struct Step {
    pub node: Arc<Node>,
    pub kernel: Arc<dyn Kernel>,
    /// The dtype of each output as the kernel makes it: the node's, except an output that a
    /// fused Cast reads already converted ([`fuse`](crate::fusion::fuse)).
    pub output_dtypes: Vec<DType>,
    pub inputs: Vec<SlotRead>,
    /// Slot of each output; `None` when nothing reads it (or a feed replaces it).
    pub outputs: Vec<Option<usize>>,
    /// Steps that wait for this one (data or control), for the parallel executor.
    pub consumers: Vec<usize>,
    /// How many steps this one waits for.
    pub num_deps: usize,
    pub expensive: bool,
    /// Bit `i` set: output `i` (of the first 64) has no slot, so nothing reads it.
    pub unused_outputs: u64,
    /// The value of a constant step, when its kernel has one of the declared dtype: the
    /// executors store it without calling the kernel.
    pub constant: Option<Tensor>,
    /// A constant, or a kernel whose output never changes once computed (a resource handle):
    /// the sequential executor keeps a copy of its value per thread (`Plan::local`).
    pub fixed: bool,
    /// How the kernel treats dead values (a `Switch`, a `Merge`, or any other op).
    pub role: ControlFlowRole,
    /// The steps of the node's control inputs: a dead one makes this step dead (unless it is a
    /// Merge). Empty when the plan has no control flow.
    pub control_steps: Vec<usize>,
}

/// A check applied to each fed value.
pub(crate) struct FeedCheck {
    pub name: String,
    pub dtype: DType,
    pub shape: Shape,
}

/// The compiled form of one (feeds, fetches, targets) combination.
pub(crate) struct Plan {
    pub steps: Vec<Step>,
    pub num_slots: usize,
    /// Slot of each feed, in the order of the run's feeds; `None` if nothing needs it.
    pub feed_slots: Vec<Option<usize>>,
    pub feed_checks: Vec<FeedCheck>,
    pub fetch_slots: Vec<usize>,
    /// Whether independent expensive steps make the parallel executor worth its overhead.
    pub parallel: bool,
    /// Whether a step is a `Switch` (so values may be dead and the executors track deadness).
    pub control_flow: bool,
    /// `node:index` of each fetch, for the error a dead fetch gives.
    pub fetch_names: Vec<String>,
    /// Per thread, the values of the fixed steps (by step index) as copies of that thread's own.
    ///
    /// Queue runners run one plan on several threads at once. Were they all to clone the same
    /// constant and handle tensors, every run would bounce those reference counts' cache lines
    /// between cores: on mnist_bytes_t2 that was the largest cost of the run call itself.
    pub local: ThreadLocal<RefCell<Vec<Option<Tensor>>>>,
}

/// The identity of a plan: node ids of feeds, fetches and targets, in the run's order.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) struct PlanKey {
    pub feeds: Vec<(usize, usize)>,
    pub fetches: Vec<(usize, usize)>,
    pub targets: Vec<usize>,
}

/// The estimated multiply-adds below which an expensive kernel runs inline: about 10 us of a
/// matrix product on one core, a few thread hand-offs. Measured on the 784-128-10 network of
/// `benches/training.rs`: its backward pass has two independent 128x128x10 products, and
/// sending those to the pool made every step pay the hand-offs (1,045 steps/s on the pool,
/// 1,393 inline).
const MIN_POOL_WORK: u64 = 1 << 20;

/// The output shapes of `node` inferred again from `input_shapes`; empty when its shape
/// function fails (the static shapes then stand: the run reports the real error).
fn refine_outputs(nodes: &[Arc<Node>], node: &Node, input_shapes: &[Shape]) -> Vec<Shape> {
    let input_dtypes = node
        .inputs()
        .iter()
        .map(|&(m, j)| nodes[m].output_dtypes()[j])
        .collect();
    let input_consts = node
        .inputs()
        .iter()
        .map(|&(m, _)| nodes[m].const_value().cloned())
        .collect();
    node.op_def()
        .infer_output_shapes(
            input_dtypes,
            input_shapes.to_vec(),
            input_consts,
            node.attrs(),
            node.output_dtypes(),
        )
        .unwrap_or_default()
}

/// Whether two expensive steps could run at once: neither waits, directly or not, for the other.
/// A chain of expensive steps (a softmax training step: matmul, then its gradient) gains nothing
/// from the inter-op pool and pays a thread hand-off per step, so it runs inline.
///
/// `steps` are in topological order; `deps_of[s]` lists the steps `s` waits for. In that order,
/// the expensive steps form a chain exactly when the k-th one has all k earlier ones among its
/// ancestors.
fn has_independent_expensive(expensive: &[bool], deps_of: &[Vec<usize>]) -> bool {
    let count = expensive.iter().filter(|&&e| e).count();
    if count < 2 {
        return false;
    }
    let words = count.div_ceil(64);
    // ancestors[s]: bitset over `expensive` of the expensive steps `s` depends on, itself
    // included when it is expensive.
    let mut ancestors = vec![0u64; expensive.len() * words];
    let mut k = 0;
    for s in 0..expensive.len() {
        for &d in &deps_of[s] {
            for w in 0..words {
                let v = ancestors[d * words + w];
                ancestors[s * words + w] |= v;
            }
        }
        if expensive[s] {
            let have: u32 = ancestors[s * words..(s + 1) * words]
                .iter()
                .map(|w| w.count_ones())
                .sum();
            if have as usize != k {
                return true;
            }
            ancestors[s * words + k / 64] |= 1 << (k % 64);
            k += 1;
        }
    }
    false
}

/// What `node` waits for (data it is not fed, and control inputs), each node id mapped through
/// `index`, sorted and without repeats.
fn deps_of_node(
    node: &Node,
    fed: &HashSet<(usize, usize)>,
    in_plan: &impl Fn(usize) -> bool,
    index: impl Fn(usize) -> usize,
) -> Vec<usize> {
    let mut deps: Vec<usize> = node
        .inputs()
        .iter()
        .filter(|inp| !fed.contains(inp))
        .map(|&(m, _)| index(m))
        .chain(
            node.control_inputs()
                .iter()
                .filter(|&&c| in_plan(c))
                .map(|&c| index(c)),
        )
        .collect();
    deps.sort_unstable();
    deps.dedup();
    deps
}

/// A topological order of `ids` (needed node ids, in id order, itself topological) in which a
/// step that may block comes only when no other step is ready; otherwise id order is kept.
///
/// Why: a plan without expensive steps runs inline, one step after another. TensorFlow runs
/// independent steps at once, so an independent step's error fails the run and cancels a
/// dequeue waiting on an empty queue; inline, a waiting step placed first would hold the run
/// until data came, and the failure would never be reached.
fn blocking_steps_last(
    nodes: &[Arc<Node>],
    ids: &[usize],
    fed: &HashSet<(usize, usize)>,
    in_plan: &impl Fn(usize) -> bool,
    may_block: impl Fn(usize) -> bool,
) -> Vec<usize> {
    let pos: HashMap<usize, usize> = ids.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let mut waiting_for = vec![0usize; ids.len()];
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); ids.len()];
    for (i, &n) in ids.iter().enumerate() {
        let deps = deps_of_node(&nodes[n], fed, in_plan, |m| pos[&m]);
        waiting_for[i] = deps.len();
        for d in deps {
            users[d].push(i);
        }
    }
    // Min-heaps of positions, [0] for the steps that never block and [1] for those that may:
    // with no step that may block, this is exactly id order.
    let blocks: Vec<usize> = ids.iter().map(|&n| usize::from(may_block(n))).collect();
    let mut ready: [BinaryHeap<Reverse<usize>>; 2] = Default::default();
    for (i, _) in waiting_for.iter().enumerate().filter(|(_, &w)| w == 0) {
        ready[blocks[i]].push(Reverse(i));
    }
    let mut order = Vec::with_capacity(ids.len());
    while let Some(Reverse(i)) = ready[0].pop().or_else(|| ready[1].pop()) {
        order.push(ids[i]);
        for &u in &users[i] {
            waiting_for[u] -= 1;
            if waiting_for[u] == 0 {
                ready[blocks[u]].push(Reverse(u));
            }
        }
    }
    order
}

/// Builds the plan for `key`, instantiating kernels through `kernel_for`. `feed_shapes` are the
/// shapes of the first run's fed values (in `key.feeds` order, or empty): they refine the static
/// shapes the work estimates see, so a product downstream of a `[?, 784]` placeholder fed
/// `[128, 784]` batches still knows its size.
pub(crate) fn build_plan(
    graph: &Graph,
    key: &PlanKey,
    feed_shapes: &[&[usize]],
    parallel_allowed: bool,
    mut kernel_for: impl FnMut(&Arc<Node>) -> Result<Arc<dyn Kernel>>,
) -> Result<Plan> {
    graph.with_nodes(|nodes| -> Result<Plan> {
        match Frames::of(nodes)? {
            None => plan_nodes(
                nodes,
                key,
                feed_shapes,
                parallel_allowed,
                &Scope::default(),
                &mut kernel_for,
            ),
            Some(frames) => Loops::new(nodes, frames).plan(
                ROOT,
                HashSet::new(),
                key,
                feed_shapes,
                parallel_allowed,
                &mut kernel_for,
            ),
        }
    })
}

/// The part of a graph a plan runs in: the whole of it, or one while loop's frame (whose
/// condition and body are planned apart from the rest).
#[derive(Default)]
pub(crate) struct Scope<'a> {
    /// The graph's frames, when it has loops.
    pub frames: Option<&'a Frames>,
    pub frame: usize,
    /// Nodes of the frame that the plan treats as already run: the loop's own Enters, Merges
    /// and Switches, whose outputs it is fed.
    pub given: HashSet<usize>,
}

impl Scope<'_> {
    /// Whether node `n` belongs to the frame the plan runs in.
    fn contains(&self, n: usize) -> bool {
        self.frames.is_none_or(|f| f.frame_of[n] == self.frame)
    }

    /// Why node `n`, outside the plan's frame, cannot be run by it.
    fn outside_error(&self, nodes: &[Arc<Node>], n: usize) -> Error {
        let name = |f: usize| {
            self.frames
                .map(|fr| fr.frames[f].name.clone())
                .unwrap_or_default()
        };
        let theirs = self.frames.map_or(ROOT, |f| f.frame_of[n]);
        if theirs == ROOT {
            Error::invalid_argument(format!(
                "'{}' is outside while loop '{}' and reaches it without an Enter",
                nodes[n].name(),
                name(self.frame)
            ))
        } else {
            Error::invalid_argument(format!(
                "'{}' is inside while loop '{}': a run can only fetch a loop's values through its Exit ops",
                nodes[n].name(),
                name(theirs)
            ))
        }
    }
}

/// Builds the plan of `key` over `nodes` (the graph's, with loops in the place of their exits)
/// within `scope`.
pub(crate) fn plan_nodes(
    nodes: &[Arc<Node>],
    key: &PlanKey,
    feed_shapes: &[&[usize]],
    parallel_allowed: bool,
    scope: &Scope<'_>,
    kernel_for: &mut KernelFor<'_>,
) -> Result<Plan> {
    {
        let given = |n: usize| scope.given.contains(&n);
        let fed: HashSet<(usize, usize)> = key.feeds.iter().copied().collect();
        if fed.len() != key.feeds.len() {
            return Err(Error::invalid_argument(
                "The same tensor is fed more than once",
            ));
        }
        // Walk back from fetches and targets, stopping at fed tensors.
        let mut needed = vec![false; nodes.len()];
        let mut stack: Vec<usize> = Vec::new();
        for &(n, i) in &key.fetches {
            if !fed.contains(&(n, i)) {
                stack.push(n);
            }
        }
        stack.extend(key.targets.iter().copied());
        while let Some(n) = stack.pop() {
            if needed[n] {
                continue;
            }
            if !scope.contains(n) {
                return Err(scope.outside_error(nodes, n));
            }
            needed[n] = true;
            let node = &nodes[n];
            for &(m, j) in node.inputs() {
                if !fed.contains(&(m, j)) && !needed[m] {
                    if given(m) {
                        return Err(Error::internal(format!(
                            "'{}' reads an output of '{}' that its loop does not feed",
                            node.name(),
                            nodes[m].name()
                        )));
                    }
                    stack.push(m);
                }
            }
            // A control input from outside the frame is the loop's to wait for, before it starts.
            for &c in node.control_inputs() {
                // As TensorFlow's feed rewrite does, a control edge from a fed placeholder
                // comes from its feed: the placeholder itself does not run.
                if fed.contains(&(c, 0))
                    && matches!(nodes[c].op_type(), "Placeholder" | "PlaceholderV2")
                {
                    continue;
                }
                if !needed[c] && !given(c) && scope.contains(c) {
                    stack.push(c);
                }
            }
        }
        // Node ids are a topological order: a node's inputs were added before it.
        let ids: Vec<usize> = (0..nodes.len()).filter(|&n| needed[n]).collect();
        for &n in &ids {
            if nodes[n].op_type() == "Placeholder" {
                return Err(weir_ops::array::placeholder_not_fed(&nodes[n]));
            }
        }
        let mut kernels: HashMap<usize, Arc<dyn Kernel>> = HashMap::with_capacity(ids.len());
        for &n in &ids {
            kernels.insert(n, kernel_for(&nodes[n])?);
        }
        let fused = crate::fusion::fuse(nodes, &ids, key, &fed, &mut kernels);
        let inputs_of = |n: usize| -> &[(usize, usize)] {
            fused
                .inputs
                .get(&n)
                .map_or(nodes[n].inputs(), Vec::as_slice)
        };
        let in_plan = |m: usize| needed[m];
        let order = blocking_steps_last(nodes, &ids, &fed, &in_plan, |n| kernels[&n].may_block());
        let control_flow = ids
            .iter()
            .any(|n| kernels[n].control_flow_role() == ControlFlowRole::Switch);

        // Slots: one per fed tensor, then one per output of each step.
        let mut slot_of: HashMap<(usize, usize), usize> = HashMap::new();
        let mut num_slots = 0;
        for &f in &key.feeds {
            slot_of.insert(f, num_slots);
            num_slots += 1;
        }
        for &n in &order {
            for i in 0..nodes[n].output_dtypes().len() {
                slot_of.entry((n, i)).or_insert_with(|| {
                    num_slots += 1;
                    num_slots - 1
                });
            }
        }
        let fetch_slots: Vec<usize> = key.fetches.iter().map(|f| slot_of[f]).collect();
        let step_of: HashMap<usize, usize> =
            order.iter().enumerate().map(|(s, &n)| (n, s)).collect();

        let mut reads_left: HashMap<usize, usize> = HashMap::new();
        for &n in &order {
            for inp in inputs_of(n) {
                *reads_left.entry(slot_of[inp]).or_default() += 1;
            }
        }
        let fetched: HashSet<usize> = fetch_slots.iter().copied().collect();
        let mut steps: Vec<Step> = Vec::with_capacity(order.len());
        let mut deps_of: Vec<Vec<usize>> = Vec::with_capacity(order.len());
        // Outputs whose shape the feeds made more specific than the static one.
        let mut refined: HashMap<(usize, usize), Shape> = key
            .feeds
            .iter()
            .zip(feed_shapes)
            .map(|(&f, dims)| (f, Shape::known(dims)))
            .collect();
        for &n in &order {
            let node = &nodes[n];
            let inputs = inputs_of(n)
                .iter()
                .map(|inp| {
                    let slot = slot_of[inp];
                    let left = reads_left.get_mut(&slot).expect("counted above");
                    *left -= 1;
                    SlotRead {
                        slot,
                        last_use: *left == 0 && !fetched.contains(&slot),
                    }
                })
                .collect();
            let outputs: Vec<Option<usize>> = (0..node.output_dtypes().len())
                .map(|i| {
                    let slot = slot_of[&(n, i)];
                    let used = !fed.contains(&(n, i))
                        && (reads_left.contains_key(&slot) || fetched.contains(&slot));
                    used.then_some(slot)
                })
                .collect();
            let unused_outputs = outputs
                .iter()
                .take(64)
                .enumerate()
                .filter(|(_, o)| o.is_none())
                .fold(0u64, |m, (i, _)| m | 1 << i);
            let kernel = kernels.remove(&n).expect("instantiated above");
            let input_shapes: Vec<Shape> = node
                .inputs()
                .iter()
                .map(|&(m, j)| {
                    refined
                        .get(&(m, j))
                        .unwrap_or(&nodes[m].output_shapes()[j])
                        .clone()
                })
                .collect();
            // A loop's step stands in an Exit's place with other inputs: Exit's shape function
            // does not describe it.
            let is_loop = scope.frames.is_some() && node.op_type() == "Exit";
            if !is_loop && node.inputs().iter().any(|inp| refined.contains_key(inp)) {
                for (i, s) in refine_outputs(nodes, node, &input_shapes)
                    .into_iter()
                    .enumerate()
                {
                    if !fed.contains(&(n, i)) && s != node.output_shapes()[i] {
                        refined.insert((n, i), s);
                    }
                }
            }
            let expensive = kernel.is_expensive()
                && kernel
                    .work_estimate(&input_shapes)
                    .is_none_or(|w| w >= MIN_POOL_WORK);
            let constant = kernel
                .const_tensor()
                .filter(|t| node.output_dtypes() == [t.dtype()])
                .cloned();
            let fixed =
                constant.is_some() || (kernel.output_is_fixed() && node.output_dtypes().len() == 1);
            let deps = deps_of_node(node, &fed, &in_plan, |m| step_of[&m]);
            let role = kernel.control_flow_role();
            let control_steps = if control_flow {
                node.control_inputs()
                    .iter()
                    .filter_map(|c| step_of.get(c).copied())
                    .collect()
            } else {
                Vec::new()
            };
            let me = steps.len();
            for &d in &deps {
                steps[d].consumers.push(me);
            }
            deps_of.push(deps.clone());
            let output_dtypes = (0..node.output_dtypes().len())
                .map(|i| {
                    fused
                        .dtypes
                        .get(&(n, i))
                        .copied()
                        .unwrap_or(node.output_dtypes()[i])
                })
                .collect();
            steps.push(Step {
                node: node.clone(),
                kernel,
                output_dtypes,
                inputs,
                outputs,
                consumers: Vec::new(),
                num_deps: deps.len(),
                expensive,
                unused_outputs,
                constant,
                fixed,
                role,
                control_steps,
            });
        }
        let feed_slots = key
            .feeds
            .iter()
            .map(|f| {
                let slot = slot_of[f];
                (reads_left.contains_key(&slot) || fetched.contains(&slot)).then_some(slot)
            })
            .collect();
        let feed_checks = key
            .feeds
            .iter()
            .map(|&(n, i)| FeedCheck {
                name: format!("{}:{i}", nodes[n].name()),
                dtype: nodes[n].output_dtypes()[i],
                shape: nodes[n].output_shapes()[i].clone(),
            })
            .collect();
        let parallel = parallel_allowed
            && has_independent_expensive(
                // A step that may block counts too: beside independent work, it must not hold
                // up the rest of the run (a failing branch cancels it, as in TensorFlow).
                &steps
                    .iter()
                    .map(|s| s.expensive || s.kernel.may_block())
                    .collect::<Vec<_>>(),
                &deps_of,
            );
        let fetch_names = key
            .fetches
            .iter()
            .map(|&(n, i)| format!("{}:{i}", nodes[n].name()))
            .collect();
        Ok(Plan {
            steps,
            num_slots,
            feed_slots,
            feed_checks,
            fetch_slots,
            parallel,
            control_flow,
            fetch_names,
            local: ThreadLocal::new(),
        })
    }
}

#[cfg(test)]
mod tests;
