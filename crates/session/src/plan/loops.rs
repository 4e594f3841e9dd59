//! Planning graphs with while loops: each loop becomes one step (in the place of its first
//! `Exit`) whose kernel runs the loop's condition and body plans once per iteration. See
//! [`frames`](super::frames) for why.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use weir_graph::{Error, Kernel, Node, OpContext, Result, Tensor};

use super::{plan_nodes, Plan, PlanKey, Scope};
use crate::executor::{check_live, run_fed, RunEnv, Scratch};
use weir_graph::frames::{Frames, Loop};

/// A plan's way to get the kernel of a node of the graph.
pub(crate) type KernelFor<'a> = dyn FnMut(&Arc<Node>) -> Result<Arc<dyn Kernel>> + 'a;

/// The graph's nodes with every loop's first `Exit` replaced by the loop, and what planning
/// each loop needs.
pub(crate) struct Loops {
    nodes: Arc<Vec<Arc<Node>>>,
    /// The graph's own nodes (the exits as they are).
    graph_nodes: Arc<Vec<Arc<Node>>>,
    frames: Arc<Frames>,
    /// The loop of each frame (or why it cannot run), by frame.
    loops: HashMap<usize, Result<Arc<Loop>>>,
    /// The frame of the loop standing in the place of each first Exit.
    loop_at: HashMap<usize, usize>,
    kernels: HashMap<usize, Arc<dyn Kernel>>,
}

impl Loops {
    pub(crate) fn new(graph_nodes: &[Arc<Node>], frames: Frames) -> Loops {
        let mut nodes = graph_nodes.to_vec();
        let mut loops = HashMap::new();
        let mut loop_at = HashMap::new();
        for f in 1..frames.frames.len() {
            let lp = frames.loop_of(graph_nodes, f).map(Arc::new);
            if let Ok(lp) = &lp {
                if let Some(&(first, _)) = lp.exits.first() {
                    let enters = lp
                        .vars
                        .iter()
                        .map(|v| v.enter)
                        .chain(lp.invariants.iter().copied());
                    let inputs = enters
                        .map(|e| graph_nodes[e].inputs()[0])
                        .chain(lp.implicit.iter().copied())
                        .collect();
                    let (dtypes, shapes) = lp
                        .exits
                        .iter()
                        .map(|&(x, _)| {
                            (
                                graph_nodes[x].output_dtypes()[0],
                                graph_nodes[x].output_shapes()[0].clone(),
                            )
                        })
                        .unzip();
                    nodes[first] = Arc::new(graph_nodes[first].rewired(
                        inputs,
                        lp.outer_controls.clone(),
                        dtypes,
                        shapes,
                    ));
                    // The other exits pass on their output of the loop's step.
                    for (k, &(x, _)) in lp.exits.iter().enumerate().skip(1) {
                        let n = &graph_nodes[x];
                        nodes[x] = Arc::new(n.rewired(
                            vec![(first, k)],
                            Vec::new(),
                            n.output_dtypes().to_vec(),
                            n.output_shapes().to_vec(),
                        ));
                    }
                    loop_at.insert(first, f);
                }
            } else if let Some(first) = first_exit(graph_nodes, &frames, f) {
                // A loop that cannot run fails the plans that need it, and only those.
                nodes[first] = Arc::new(graph_nodes[first].rewired(
                    Vec::new(),
                    Vec::new(),
                    graph_nodes[first].output_dtypes().to_vec(),
                    graph_nodes[first].output_shapes().to_vec(),
                ));
                loop_at.insert(first, f);
            }
            loops.insert(f, lp);
        }
        Loops {
            nodes: Arc::new(nodes),
            graph_nodes: Arc::new(graph_nodes.to_vec()),
            frames: Arc::new(frames),
            loops,
            loop_at,
            kernels: HashMap::new(),
        }
    }

    /// The plan for `key` in frame `frame` (the root, or a loop's for its condition and body).
    pub(crate) fn plan(
        &mut self,
        frame: usize,
        given: HashSet<usize>,
        key: &PlanKey,
        feed_shapes: &[&[usize]],
        parallel_allowed: bool,
        kernel_for: &mut KernelFor<'_>,
    ) -> Result<Plan> {
        let nodes = self.nodes.clone();
        let frames = self.frames.clone();
        let scope = Scope {
            frames: Some(&frames),
            frame,
            given,
        };
        plan_nodes(
            &nodes,
            key,
            feed_shapes,
            parallel_allowed,
            &scope,
            &mut |node| match self.loop_at.get(&node.id()) {
                Some(&f) => self.loop_kernel(f, kernel_for),
                None => kernel_for(node),
            },
        )
    }

    /// The kernel of the loop of frame `f`, its condition and body planned on first use.
    fn loop_kernel(&mut self, f: usize, kernel_for: &mut KernelFor<'_>) -> Result<Arc<dyn Kernel>> {
        if let Some(k) = self.kernels.get(&f) {
            return Ok(k.clone());
        }
        let lp = self.loops[&f].clone()?;
        let merges = lp.vars.iter().map(|v| (v.merge, 0));
        let indices = lp.vars.iter().map(|v| (v.merge, 1));
        let rest: Vec<(usize, usize)> = lp
            .invariants
            .iter()
            .map(|&e| (e, 0))
            .chain(lp.implicit.iter().copied())
            .collect();
        let given: HashSet<usize> = lp
            .vars
            .iter()
            .flat_map(|v| [v.enter, v.merge, v.switch])
            .chain(lp.invariants.iter().copied())
            .collect();
        let cond_key = PlanKey {
            feeds: merges
                .clone()
                .chain(indices.clone())
                .chain(rest.iter().copied())
                .collect(),
            fetches: vec![(lp.loop_cond, 0)],
            targets: Vec::new(),
        };
        let body_key = PlanKey {
            feeds: lp
                .vars
                .iter()
                .map(|v| (v.switch, 1))
                .chain(merges)
                .chain(indices)
                .chain(rest.iter().copied())
                .collect(),
            fetches: lp.vars.iter().map(|v| (v.next, 0)).collect(),
            targets: Vec::new(),
        };
        // Exits that read a value made from the variables once the loop ends (TensorFlow's
        // gradient loops put an Identity there) get it from a plan of their own.
        let computed: Vec<usize> = lp
            .exits
            .iter()
            .filter(|(_, var)| var.is_none())
            .map(|&(x, _)| x)
            .collect();
        let exit_plan = if computed.is_empty() {
            None
        } else {
            let nodes = self.graph_nodes.clone();
            let key = PlanKey {
                feeds: lp
                    .vars
                    .iter()
                    .map(|v| (v.switch, 0))
                    .chain(lp.vars.iter().map(|v| (v.merge, 0)))
                    .chain(lp.vars.iter().map(|v| (v.merge, 1)))
                    .chain(rest.iter().copied())
                    .collect(),
                fetches: computed.iter().map(|&x| nodes[x].inputs()[0]).collect(),
                targets: Vec::new(),
            };
            Some(self.plan(f, given.clone(), &key, &[], false, kernel_for)?)
        };
        let cond = self.plan(f, given.clone(), &cond_key, &[], false, kernel_for)?;
        let body = self.plan(f, given, &body_key, &[], false, kernel_for)?;
        let may_block = cond
            .steps
            .iter()
            .chain(&body.steps)
            .chain(exit_plan.iter().flat_map(|p| &p.steps))
            .any(|s| s.kernel.may_block());
        let mut next_computed = 0;
        let exit_values = lp
            .exits
            .iter()
            .map(|&(_, var)| match var {
                Some(v) => ExitValue::Var(v),
                None => {
                    next_computed += 1;
                    ExitValue::Computed(next_computed - 1)
                }
            })
            .collect();
        let k: Arc<dyn Kernel> = Arc::new(LoopKernel {
            frame: self.frames.frames[f].name.clone(),
            num_vars: lp.vars.len(),
            exit_values,
            cond,
            body,
            exit_plan,
            may_block,
        });
        self.kernels.insert(f, k.clone());
        Ok(k)
    }
}

/// The lowest-numbered `Exit` of the loop of frame `f`.
fn first_exit(nodes: &[Arc<Node>], frames: &Frames, f: usize) -> Option<usize> {
    let parent = frames.frames[f].parent;
    frames.frames[parent]
        .members
        .iter()
        .copied()
        .find(|&x| nodes[x].op_type() == "Exit" && frames.frame_of[nodes[x].inputs()[0].0] == f)
}

/// Runs one while loop: its inputs are the variables' initial values, then the loop
/// invariants; its outputs are the loop's exits.
/// What one exit of a loop gives.
enum ExitValue {
    /// A variable's final value.
    Var(usize),
    /// This fetch of the exit plan.
    Computed(usize),
}

struct LoopKernel {
    frame: String,
    num_vars: usize,
    /// What each output gives.
    exit_values: Vec<ExitValue>,
    /// Fed the variables (as the Switches give them to the exits, and as the Merges do), the
    /// value indices and the invariants; fetches what the computed exits read.
    exit_plan: Option<Plan>,
    /// Fed the variables (as the Merges give them), their Merges' value indices and the
    /// invariants; fetches the LoopCond.
    cond: Plan,
    /// Fed the variables (as the Switches give them to the body, then as the Merges do), the
    /// value indices and the invariants; fetches each NextIteration.
    body: Plan,
    may_block: bool,
}

impl Kernel for LoopKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let inputs: Vec<Tensor> = (0..ctx.num_inputs()).map(|i| ctx.take_input(i)).collect();
        let (init, rest) = inputs.split_at(self.num_vars);
        let mut vars = init.to_vec();
        let env = RunEnv {
            resources: ctx.resources(),
            cancellation: ctx.cancellation(),
            deadline: ctx.deadline(),
            trace: None,
            session: ctx.session_state(),
        };
        let mut scratch = Scratch::default();
        let mut index = Tensor::scalar(0i32);
        loop {
            check_live(&env)?;
            let feeds = vars
                .iter()
                .cloned()
                .chain(std::iter::repeat_n(index.clone(), self.num_vars))
                .chain(rest.iter().cloned());
            let pred = run_fed(&self.cond, &mut scratch, feeds, &env)?
                .pop()
                .flatten()
                .ok_or_else(|| self.dead("its condition"))?;
            if !pred.to_scalar::<bool>()? {
                break;
            }
            let feeds = vars
                .iter()
                .cloned()
                .chain(vars.iter().cloned())
                .chain(std::iter::repeat_n(index.clone(), self.num_vars))
                .chain(rest.iter().cloned());
            let next = run_fed(&self.body, &mut scratch, feeds, &env)?;
            for (k, v) in next.into_iter().enumerate() {
                vars[k] = v.ok_or_else(|| self.dead(&format!("the next value of variable {k}")))?;
            }
            index = Tensor::scalar(1i32);
        }
        let computed = match &self.exit_plan {
            Some(plan) => {
                let feeds = vars
                    .iter()
                    .cloned()
                    .chain(vars.iter().cloned())
                    .chain(std::iter::repeat_n(index.clone(), self.num_vars))
                    .chain(rest.iter().cloned());
                run_fed(plan, &mut scratch, feeds, &env)?
            }
            None => Vec::new(),
        };
        for (o, e) in self.exit_values.iter().enumerate() {
            let value = match e {
                ExitValue::Var(v) => vars[*v].clone(),
                ExitValue::Computed(k) => computed
                    .get(*k)
                    .cloned()
                    .flatten()
                    .ok_or_else(|| self.dead(&format!("exit {o}")))?,
            };
            ctx.set_output(o, value);
        }
        Ok(())
    }

    fn may_block(&self) -> bool {
        self.may_block
    }
}

impl LoopKernel {
    fn dead(&self, what: &str) -> Error {
        Error::invalid_argument(format!(
            "In while loop '{}', {what} has no value (it was computed in an untaken branch of a cond)",
            self.frame
        ))
    }
}
