//! The gradient of a while loop, built as TensorFlow 1 builds it (`GradLoopState`): the forward
//! loop gets an iteration counter and pushes, in every iteration, each value its body's
//! gradient reads onto a stack; a backward loop then runs as many iterations, popping those
//! values in reverse order, and in each one takes the gradient of one iteration of the body: the
//! gradients of the body's results (one per loop variable) give those of its inputs, and the
//! gradients of the values the body reads from outside add up over the iterations.
//!
//! A value of a `cond` inside the body exists only in the iterations that took its branch: the
//! forward loop pushes a zero in the others, and the backward loop switches the popped value
//! with the popped predicate, so it is dead where the forward value was, as TensorFlow's
//! `AddBackpropAccumulatedValue` does for a dead branch. Loops whose body holds another loop
//! are refused for now.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use weir_graph::frames::Loop;
use weir_graph::{AttrValue, DType, Error, Graph, Output, Result, Shape, Tensor};
use weir_ops::control_flow::{ValueHook, WhileLoop};

use super::util::konst;
use super::{is_float, op, op_node, Walk};

/// A value and where its gradient goes.
type Contribution = ((usize, usize), Output);

/// The gradient of the loop of frame `f` whose exits have gradients `exit_grads` (in the order
/// of `lp.exits`): the contributions to the values entering the loop.
pub(super) fn loop_grad(
    walk: &Walk<'_>,
    f: usize,
    lp: &Loop,
    exit_grads: Vec<Option<Output>>,
    from_x: &[bool],
) -> Result<Vec<Contribution>> {
    let (g, nodes) = (walk.g, walk.nodes);
    let frames = walk
        .frames
        .ok_or_else(|| Error::internal("a loop's gradient without frames"))?;
    let frame = &frames.frames[f];
    // The variables that carry gradients, each with the gradient of its final value.
    let mut var_grads: Vec<(usize, Option<Output>)> = Vec::new();
    for (k, v) in lp.vars.iter().enumerate() {
        if !is_float(nodes[v.merge].output_dtypes()[0]) {
            continue;
        }
        let mut parts = Vec::new();
        for (&(_, var), gx) in lp.exits.iter().zip(&exit_grads) {
            if var == Some(k) {
                if let Some(gx) = gx {
                    parts.push(gx.clone());
                }
            }
        }
        let total = match parts.len() {
            0 => None,
            1 => parts.pop(),
            _ => Some(op(g, "AddN", &parts.iter().collect::<Vec<_>>(), &[])?),
        };
        var_grads.push((k, total));
    }
    if let Some((&(x, _), _)) = lp
        .exits
        .iter()
        .zip(&exit_grads)
        .find(|((_, var), gx)| var.is_none() && gx.is_some())
    {
        return Err(Error::unimplemented(format!(
            "The gradient of '{}', an exit of while loop '{}' that does not read a loop variable's Switch",
            nodes[x].name(),
            frame.name
        )));
    }
    if var_grads.iter().all(|(_, gx)| gx.is_none()) {
        return Ok(Vec::new());
    }
    // The loop invariants a gradient can reach.
    let invariants = differentiable_invariants(nodes, &frame.members, lp, |m| from_x[m]);

    let prep = prepared(walk, f, lp)?;

    // The backward loop: the iterations left, the variables' gradients, the invariants' sums.
    let mut init = vec![prep.count.clone()];
    for (k, gx) in &var_grads {
        let exit_value = lp
            .exits
            .iter()
            .find(|&&(_, var)| var == Some(*k))
            .map(|&(x, _)| g.output(x, 0))
            .transpose()?;
        init.push(match (gx, exit_value) {
            (Some(gx), _) => gx.clone(),
            (None, Some(x)) => op(g, "ZerosLike", &[&x], &[])?,
            (None, None) => {
                let e = g.output(lp.vars[*k].enter, 0)?;
                op(g, "ZerosLike", &[&e], &[])?
            }
        });
    }
    for &e in &invariants {
        init.push(zeros_for_invariant(walk, f, e)?);
    }
    let nv = var_grads.len();
    let ys: Vec<Output> = var_grads
        .iter()
        .map(|(k, _)| {
            let next = lp.vars[*k].next;
            let (m, j) = nodes[next].inputs()[0];
            g.output(m, j)
        })
        .collect::<Result<_>>()?;
    let body_inputs: Vec<Output> = var_grads
        .iter()
        .map(|(k, _)| g.output(lp.vars[*k].switch, 1))
        .collect::<Result<_>>()?;
    let mut xs = body_inputs.clone();
    for &e in &invariants {
        xs.push(g.output(e, 0)?);
    }
    let hook = pop_hook(lp, &frame.members, prep.saved.clone());
    let inner = Walk {
        g,
        nodes,
        frames: walk.frames,
        frame: f,
        prepared: walk.prepared,
        stop: walk.stop,
    };
    // The gradients may know less of their static shapes than the values they start from (a
    // product's gradient forgets a batch dimension): only ranks are kept.
    let invariant_shapes = init
        .iter()
        .map(|x| {
            x.shape()
                .rank()
                .map_or_else(Shape::unknown, Shape::unknown_of_rank)
        })
        .collect();
    let out = WhileLoop::new()
        .shape_invariants(invariant_shapes)
        .value_hook(hook)
        .build(
            |v| {
                let zero = konst(g, Tensor::scalar(0i32))?;
                op(g, "Greater", &[&v[0], &zero], &[])
            },
            |v| {
                let one = konst(g, Tensor::scalar(1i32))?;
                let mut next = vec![op(g, "Sub", &[&v[0], &one], &[])?];
                let grad_ys = v[1..1 + nv].iter().cloned().map(Some).collect();
                let grads = inner.gradients(&ys, &xs, grad_ys)?;
                for (i, gi) in grads.iter().take(nv).enumerate() {
                    next.push(match gi {
                        Some(gi) => gi.clone(),
                        None => op(g, "ZerosLike", &[&body_inputs[i]], &[])?,
                    });
                }
                for (j, gi) in grads.iter().skip(nv).enumerate() {
                    let acc = &v[1 + nv + j];
                    next.push(match gi {
                        Some(gi) => op(g, "AddV2", &[acc, gi], &[])?,
                        None => acc.clone(),
                    });
                }
                Ok(next)
            },
            &init,
        )?;
    let mut into = Vec::new();
    for (i, (k, _)) in var_grads.iter().enumerate() {
        into.push((nodes[lp.vars[*k].enter].inputs()[0], out[1 + i].clone()));
    }
    for (j, &e) in invariants.iter().enumerate() {
        into.push((nodes[e].inputs()[0], out[1 + nv + j].clone()));
    }
    Ok(into)
}

/// What the forward side of a loop's gradient made: the stacks its iterations push values on,
/// and its iteration count. Made once per gradient computation and loop, before the backward
/// loops of the loops it is in, which must keep its count.
pub(crate) struct Prepared {
    saved: Arc<HashMap<(usize, usize), Saved>>,
    count: Output,
}

/// The forward side of the gradient of the loop of frame `f`, made now unless this gradient
/// computation already made it.
fn prepared(walk: &Walk<'_>, f: usize, lp: &Loop) -> Result<Arc<Prepared>> {
    if let Some(p) = walk.prepared.borrow().get(&f) {
        return Ok(p.clone());
    }
    let (g, nodes) = (walk.g, walk.nodes);
    let frames = walk
        .frames
        .ok_or_else(|| Error::internal("a loop's gradient without frames"))?;
    let frame = &frames.frames[f];
    // The loops in this one come first: this loop keeps their counts and the values entering
    // them, one per iteration, for their backward loops inside its own.
    let mut extra = Vec::new();
    let mut children = Vec::new();
    for (c, child) in frames.frames.iter().enumerate() {
        if c == f || child.parent != f || child.members.is_empty() {
            continue;
        }
        let lpc = frames.loop_of(nodes, c)?;
        let pc = prepared(walk, c, &lpc)?;
        extra.push((pc.count.node_id(), pc.count.index()));
        let enters = lpc
            .vars
            .iter()
            .map(|v| v.enter)
            .chain(lpc.invariants.iter().copied());
        let inputs: Vec<usize> = enters.map(|e| nodes[e].inputs()[0].0).collect();
        extra.extend(enters_inputs(nodes, &lpc));
        children.push((
            lpc.exits.iter().map(|&(x, _)| x).collect::<Vec<_>>(),
            inputs,
        ));
    }
    let vars: Vec<usize> = (0..lp.vars.len())
        .filter(|&k| is_float(nodes[lp.vars[k].merge].output_dtypes()[0]))
        .collect();
    let invariants = differentiable_invariants(nodes, &frame.members, lp, |_| true);
    let chain = frame_chain(frames, f);
    let counter = Counter::start(g, lp, &chain)?;
    let saved = save_forward_values(
        walk,
        f,
        lp,
        (&vars, &invariants),
        &children,
        &extra,
        &counter.index,
    )?;
    let count = counter.finish(g, &saved)?;
    let p = Arc::new(Prepared {
        saved: Arc::new(saved),
        count,
    });
    walk.prepared.borrow_mut().insert(f, p.clone());
    Ok(p)
}

/// The values entering the loop `lp` (its Enters' inputs).
fn enters_inputs(nodes: &[Arc<weir_graph::Node>], lp: &Loop) -> Vec<(usize, usize)> {
    lp.vars
        .iter()
        .map(|v| v.enter)
        .chain(lp.invariants.iter().copied())
        .map(|e| nodes[e].inputs()[0])
        .collect()
}

/// The invariants of `lp` a gradient can flow into, among those whose entering value's node
/// `keep` accepts: floating-point values, and resource handles of variables the loop reads (a
/// TensorArray's handle takes none: its ops carry their gradients by their flows).
fn differentiable_invariants(
    nodes: &[Arc<weir_graph::Node>],
    members: &[usize],
    lp: &Loop,
    keep: impl Fn(usize) -> bool,
) -> Vec<usize> {
    lp.invariants
        .iter()
        .copied()
        .filter(|&e| {
            let (m, j) = nodes[e].inputs()[0];
            let dtype = nodes[m].output_dtypes()[j];
            keep(m)
                && is_float(dtype)
                && (dtype != DType::Resource || reads_variable(nodes, members, e))
        })
        .collect()
}

/// Whether a node of `members` reads the variable whose handle is Enter `e`'s output.
fn reads_variable(nodes: &[Arc<weir_graph::Node>], members: &[usize], e: usize) -> bool {
    members.iter().any(|&r| {
        nodes[r].op_type() == "ReadVariableOp" && nodes[r].inputs().first() == Some(&(e, 0))
    })
}

/// The names of the frames from the outermost loop down to frame `f`: what a value from
/// outside every loop enters, in turn, to reach `f`.
fn frame_chain(frames: &weir_graph::frames::Frames, mut f: usize) -> Vec<String> {
    let mut chain = Vec::new();
    while f != weir_graph::frames::ROOT {
        chain.push(frames.frames[f].name.clone());
        f = frames.frames[f].parent;
    }
    chain.reverse();
    chain
}

/// The forward values the body's gradient may read, each with the stack its iterations push it
/// on: the inputs and outputs, inside the loop, of the ops between the variables (and
/// differentiable invariants) and the body's results, the values the body starts from, and
/// `extra` (what the loops inside need). `children` are the loops inside: their exits, and the
/// nodes whose values enter them.
fn save_forward_values(
    walk: &Walk<'_>,
    f: usize,
    lp: &Loop,
    (vars, invariants): (&[usize], &[usize]),
    children: &[(Vec<usize>, Vec<usize>)],
    extra: &[(usize, usize)],
    index: &Output,
) -> Result<HashMap<(usize, usize), Saved>> {
    let (g, nodes) = (walk.g, walk.nodes);
    let frames = walk
        .frames
        .ok_or_else(|| Error::internal("a loop's gradient without frames"))?;
    let members = &frames.frames[f].members;
    let in_loop: HashSet<usize> = members.iter().copied().collect();
    let invariant_set: HashSet<usize> = lp.invariants.iter().copied().collect();
    // A loop inside is seen whole: its exits depend on every value entering it.
    let child_of_exit: HashMap<usize, usize> = children
        .iter()
        .enumerate()
        .flat_map(|(c, (exits, _))| exits.iter().map(move |&x| (x, c)))
        .collect();
    // Downstream of the body's inputs, upstream of its results, within the loop.
    let mut down: HashSet<usize> = vars.iter().map(|&k| lp.vars[k].switch).collect();
    down.extend(invariants.iter().copied());
    for &m in members {
        let through_child = child_of_exit
            .get(&m)
            .is_some_and(|&c| children[c].1.iter().any(|i| down.contains(i)));
        if through_child || nodes[m].inputs().iter().any(|(i, _)| down.contains(i)) {
            down.insert(m);
        }
    }
    let mut up: HashSet<usize> = HashSet::new();
    let mut stack: Vec<usize> = vars
        .iter()
        .map(|&k| nodes[lp.vars[k].next].inputs()[0].0)
        .collect();
    while let Some(m) = stack.pop() {
        if !in_loop.contains(&m) || !up.insert(m) {
            continue;
        }
        stack.extend(nodes[m].inputs().iter().map(|(i, _)| *i));
        if let Some(&c) = child_of_exit.get(&m) {
            stack.extend(children[c].1.iter().copied());
        }
    }
    let mut wanted: Vec<(usize, usize)> = vars.iter().map(|&k| (lp.vars[k].switch, 1)).collect();
    wanted.extend(extra.iter().copied());
    for &m in members {
        if !(down.contains(&m) && up.contains(&m)) || invariant_set.contains(&m) {
            continue;
        }
        let node = &nodes[m];
        wanted.extend(node.inputs().iter().copied());
        wanted.extend((0..node.output_dtypes().len()).map(|i| (m, i)));
    }
    let chain = frame_chain(frames, f);
    let switches: HashSet<usize> = lp.vars.iter().map(|v| v.switch).collect();
    let guards = guards(nodes, members, &switches);
    // The predicates of the conds a kept value is in are kept too: the backward loop switches
    // the value with them.
    let mut at = 0;
    while at < wanted.len() {
        let t = wanted[at];
        at += 1;
        for &(pred, _) in guards.get(&t).map_or(&[][..], Vec::as_slice) {
            if !wanted.contains(&pred) {
                wanted.push(pred);
            }
        }
    }
    let mut saved = HashMap::new();
    for (m, i) in wanted {
        // A variable's Switch leaves the loop through output 0, which the body never reads.
        let exit_side = switches.contains(&m) && i == 0;
        // Counts of the loops inside were made after the frames were found: in the loop too.
        let made_since = m >= nodes.len();
        if !(in_loop.contains(&m) || made_since)
            || invariant_set.contains(&m)
            || exit_side
            || saved.contains_key(&(m, i))
        {
            continue;
        }
        let value = g.output(m, i)?;
        let dtype = value.dtype();
        let _outside = g.init_scope();
        let stack = weir_ops::data_flow::stack(g, -1, dtype, "f_acc")?;
        let entered = enter(g, &stack, &chain, true)?;
        let conds = guards.get(&(m, i)).cloned().unwrap_or_default();
        let live = live_in_every_iteration(g, &value, &conds, &chain)?;
        // After this iteration's count, before the next: pushes keep the iterations' order.
        let push = {
            let _after = g.control_dependencies(&[index.op()])?;
            op_node(g, "StackPushV2", &[&entered, &live], &[])?
        };
        saved.insert(
            (m, i),
            Saved {
                stack,
                push: push.id(),
                dtype,
                shape: value.shape(),
                guards: conds,
            },
        );
    }
    Ok(saved)
}

/// A forward value kept on a stack.
struct Saved {
    /// The stack's handle, outside the loops.
    stack: Output,
    push: usize,
    dtype: DType,
    shape: Shape,
    /// The conds the value is in, outermost first.
    guards: Vec<Guard>,
}

/// A cond a value of a loop's body is in: its predicate (a value of the body) and the side
/// (0 false, 1 true) the value is on.
type Guard = ((usize, usize), usize);

/// The conds each value of the loop's body (by `node:index`) is in, outermost first: it is live
/// in an iteration exactly when each predicate had its side.
fn guards(
    nodes: &[Arc<weir_graph::Node>],
    members: &[usize],
    var_switches: &HashSet<usize>,
) -> HashMap<(usize, usize), Vec<Guard>> {
    let mut out: HashMap<(usize, usize), Vec<Guard>> = HashMap::new();
    for &m in members {
        let node = &nodes[m];
        if var_switches.contains(&m) {
            continue;
        }
        let of = |t: &(usize, usize)| out.get(t).cloned().unwrap_or_default();
        let mut all: Vec<Guard> = Vec::new();
        let controls = node.control_inputs().iter().map(|&c| (c, 0));
        for t in node.inputs().iter().copied().chain(controls) {
            for gd in of(&t) {
                if !all.contains(&gd) {
                    all.push(gd);
                }
            }
        }
        match node.op_type() {
            "Switch" => {
                let pred = node.inputs()[1];
                for side in 0..2 {
                    let mut gs = all.clone();
                    // Switches on one predicate (a cond's pivot switches the predicate, its
                    // inputs switch an Identity of it) guard the same branch.
                    if !gs.iter().any(|&(p, _)| {
                        through_identities(nodes, p) == through_identities(nodes, pred)
                    }) {
                        gs.push((pred, side));
                    }
                    out.insert((m, side), gs);
                }
            }
            "Merge" if node.loop_back_edge().is_none() => {
                let lists: Vec<Vec<Guard>> = node.inputs().iter().map(of).collect();
                let common: Vec<Guard> = lists
                    .first()
                    .map(|first| {
                        first
                            .iter()
                            .copied()
                            .filter(|gd| lists.iter().all(|l| l.contains(gd)))
                            .collect()
                    })
                    .unwrap_or_default();
                for i in 0..node.output_dtypes().len() {
                    out.insert((m, i), common.clone());
                }
            }
            _ => {
                for i in 0..node.output_dtypes().len() {
                    out.insert((m, i), all.clone());
                }
            }
        }
    }
    out.retain(|_, v| !v.is_empty());
    out
}

/// The tensor `t` is an Identity of (of an Identity of ...).
fn through_identities(nodes: &[Arc<weir_graph::Node>], mut t: (usize, usize)) -> (usize, usize) {
    while nodes[t.0].op_type() == "Identity" {
        t = nodes[t.0].inputs()[0];
    }
    t
}

/// `value` made live in every iteration: where a cond it is in took the other side, a zero
/// stands in (each guard, innermost first, merges the value with a zero switched to the other
/// side), so that every iteration pushes one value and the pops stay in step.
fn live_in_every_iteration(
    g: &Graph,
    value: &Output,
    guards: &[Guard],
    chain: &[String],
) -> Result<Output> {
    let mut live = value.clone();
    for &((p, j), side) in guards.iter().rev() {
        let zero = konst(g, Tensor::zeros(value.dtype(), &[])?)?;
        let zero = enter(g, &zero, chain, true)?;
        let pred = g.output(p, j)?;
        let other = op_node(g, "Switch", &[&zero, &pred], &[])?.output(1 - side)?;
        live = op_node(g, "Merge", &[&live, &other], &[])?.output(0)?;
    }
    Ok(live)
}

/// `x`, from outside every loop, entered into each frame of `chain` in turn (as a constant
/// into all but the last, which takes `is_constant`).
fn enter(g: &Graph, x: &Output, chain: &[String], is_constant: bool) -> Result<Output> {
    let mut v = x.clone();
    for (k, frame_name) in chain.iter().enumerate() {
        let constant = is_constant || k + 1 < chain.len();
        v = op(
            g,
            "Enter",
            &[&v],
            &[
                ("frame_name", AttrValue::Str(frame_name.clone())),
                ("is_constant", AttrValue::Bool(constant)),
            ],
        )?;
    }
    Ok(v)
}

/// A new variable of the forward loop counting its iterations (TensorFlow's `f_count`): each
/// iteration's pushes wait for its count, and the next count waits for them, so a run of the loop
/// makes them, in order.
struct Counter {
    merge: weir_graph::Operation,
    switch: weir_graph::Operation,
    /// The count of the iteration running.
    index: Output,
}

impl Counter {
    fn start(g: &Graph, lp: &Loop, chain: &[String]) -> Result<Counter> {
        let _outside = g.init_scope();
        let _scope = g.name_scope("f_count");
        let zero = konst(g, Tensor::scalar(0i32))?;
        let entered = enter(g, &zero, chain, false)?;
        let merge = op_node(g, "Merge", &[&entered], &[])?;
        let loop_cond = g.output(lp.loop_cond, 0)?;
        let switch = op_node(g, "Switch", &[&merge.output(0)?, &loop_cond], &[])?;
        let index = op(g, "Identity", &[&switch.output(1)?], &[])?;
        Ok(Counter {
            merge,
            switch,
            index,
        })
    }

    /// Closes the counter's loop after `saved`'s pushes; the number of iterations run.
    fn finish(self, g: &Graph, saved: &HashMap<(usize, usize), Saved>) -> Result<Output> {
        let _outside = g.init_scope();
        let _scope = g.name_scope("f_count");
        let one = {
            let _after = g.control_dependencies(&[self.index.op()])?;
            konst(g, Tensor::scalar(1i32))?
        };
        let pushes: Vec<_> = saved
            .values()
            .map(|s| g.operation(s.push))
            .collect::<Result<_>>()?;
        let add = {
            let _after = g.control_dependencies(&pushes)?;
            op(g, "AddV2", &[&self.index, &one], &[])?
        };
        let next = op(g, "NextIteration", &[&add], &[])?;
        g.set_loop_back_edge(&self.merge, &next)?;
        op(g, "Exit", &[&self.switch.output(0)?], &[])
    }
}

/// Zeros of the shape of invariant `e`'s gradient: like its value, or like the variable a
/// resource handle reads.
fn zeros_for_invariant(walk: &Walk<'_>, f: usize, e: usize) -> Result<Output> {
    let (g, nodes) = (walk.g, walk.nodes);
    let (m, j) = nodes[e].inputs()[0];
    let outer = g.output(m, j)?;
    if outer.dtype() != DType::Resource {
        return op(g, "ZerosLike", &[&outer], &[]);
    }
    let frames = walk
        .frames
        .ok_or_else(|| Error::internal("a loop's gradient without frames"))?;
    let read = frames.frames[f]
        .members
        .iter()
        .find(|&&r| nodes[r].op_type() == "ReadVariableOp" && nodes[r].inputs()[0] == (e, 0))
        .ok_or_else(|| {
            Error::unimplemented(format!(
                "The gradient of resource '{}' in a while loop: the loop does not read it",
                outer.name()
            ))
        })?;
    let dtype: DType = nodes[*read].attr("dtype")?;
    let value = op(
        g,
        "ReadVariableOp",
        &[&outer],
        &[("dtype", AttrValue::Type(dtype))],
    )?;
    op(g, "ZerosLike", &[&value], &[])
}

/// What the backward loop reads for a forward value: a pop of its stack, or, for a loop
/// invariant, the value that entered the loop.
fn pop_hook(lp: &Loop, members: &[usize], saved: Arc<HashMap<(usize, usize), Saved>>) -> ValueHook {
    let invariants: HashSet<usize> = lp.invariants.iter().copied().collect();
    let members: HashSet<usize> = members.iter().copied().collect();
    Arc::new(move |g: &Graph, x: &Output| {
        let key = (x.node_id(), x.index());
        if invariants.contains(&x.node_id()) {
            let (m, j) = g.with_nodes(|n| n[x.node_id()].inputs()[0]);
            return g.output(m, j).map(Some);
        }
        let Some(s) = saved.get(&key) else {
            if members.contains(&x.node_id()) {
                return Err(Error::internal(format!(
                    "The gradient of a while loop reads '{}', a value of the forward loop it did not keep",
                    x.name()
                )));
            }
            return Ok(None);
        };
        let mut pop = g
            .new_operation("StackPopV2")
            .input(&s.stack)
            .attr("elem_type", s.dtype)
            .output_shape(0, s.shape.clone())
            .build()?
            .output(0)?;
        // Live only in the iterations where the forward value was: switched by each cond's
        // predicate (popped in turn), outermost first.
        for &((p, j), side) in &s.guards {
            let pred = g.output(p, j)?;
            pop = g
                .new_operation("Switch")
                .input(&pop)
                .input(&pred)
                .build()?
                .output(side)?;
        }
        Ok(Some(pop))
    })
}
