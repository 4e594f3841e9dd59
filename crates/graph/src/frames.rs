//! While loops as run plans and gradients see them: the frames of TensorFlow 1's control flow
//! (the nodes between a loop's `Enter`s and `Exit`s, found from the graph's structure alone, so
//! imported loops have them too), and the parts of each loop (its variables' `Enter`, `Merge`,
//! `Switch` and `NextIteration`, its invariants, its `LoopCond` and its `Exit`s).

use std::collections::HashMap;
use std::sync::Arc;

use crate::{Error, Node, Result};

/// The root frame: everything outside every loop.
pub const ROOT: usize = 0;

/// One frame: a while loop's, or the root.
pub struct Frame {
    /// The `frame_name` its `Enter`s carry.
    pub name: String,
    /// The frame the loop is in.
    pub parent: usize,
    depth: usize,
    /// The nodes in the frame itself (not in loops nested in it), in id order. A loop's exits
    /// belong to the frame around it.
    pub members: Vec<usize>,
}

/// Every node's frame.
pub struct Frames {
    /// The frame of each node, by node id.
    pub frame_of: Vec<usize>,
    /// The frames, the root first.
    pub frames: Vec<Frame>,
}

/// One loop variable: its `Enter`, `Merge` (fed the value each iteration starts from), `Switch`
/// (whose true side the body reads) and `NextIteration` (its next value).
pub struct LoopVar {
    /// The `Enter` bringing in the initial value.
    pub enter: usize,
    /// The `Merge` of the initial value and the `NextIteration`.
    pub merge: usize,
    /// The `Switch` on the `LoopCond`: output 1 goes to the body, output 0 to the `Exit`.
    pub switch: usize,
    /// The `NextIteration` carrying the next value (its input is the body's result).
    pub next: usize,
}

/// What a plan needs of one loop.
pub struct Loop {
    /// The loop variables, in the order of their `Enter`s.
    pub vars: Vec<LoopVar>,
    /// `Enter`s of values that stay the same in every iteration (`is_constant`).
    pub invariants: Vec<usize>,
    /// The `LoopCond`.
    pub loop_cond: usize,
    /// Each `Exit`, in id order, and the variable it gives when it reads a variable's Switch
    /// directly (`None`: it reads a value computed from them once the loop ends, as
    /// TensorFlow's gradient loops' exits do).
    pub exits: Vec<(usize, Option<usize>)>,
    /// Values from outside the loop that its nodes read without an `Enter` (only graphs not
    /// built by `while_loop` have them): computed once, before the loop.
    pub implicit: Vec<(usize, usize)>,
    /// Nodes outside the loop that nodes in it have control inputs on: the loop waits for them.
    pub outer_controls: Vec<usize>,
}

impl Frames {
    /// The frames of `nodes`; None when the graph has no loop.
    pub fn of(nodes: &[Arc<Node>]) -> Result<Option<Frames>> {
        if !nodes.iter().any(|n| n.op_type() == "Enter") {
            return Ok(None);
        }
        let mut frames = vec![Frame {
            name: String::new(),
            parent: ROOT,
            depth: 0,
            members: Vec::new(),
        }];
        let mut by_name: HashMap<(usize, String), usize> = HashMap::new();
        let mut frame_of = vec![ROOT; nodes.len()];
        for (id, node) in nodes.iter().enumerate() {
            // The deepest frame among the inputs: in a well-formed graph they all agree.
            let deepest = node
                .inputs()
                .iter()
                .map(|&(m, _)| frame_of[m])
                .max_by_key(|&f| frames[f].depth);
            let inherited = deepest
                .or_else(|| node.control_inputs().first().map(|&c| frame_of[c]))
                .unwrap_or(ROOT);
            let f = match node.op_type() {
                "Enter" => {
                    let name: String = node.attr("frame_name")?;
                    let parent = inherited;
                    let next = frames.len();
                    let f = *by_name.entry((parent, name.clone())).or_insert(next);
                    if f == next {
                        frames.push(Frame {
                            name,
                            parent,
                            depth: frames[parent].depth + 1,
                            members: Vec::new(),
                        });
                    }
                    f
                }
                "Exit" => {
                    if inherited == ROOT {
                        return Err(Error::invalid_argument(format!(
                            "Exit node '{}' is not inside a while loop",
                            node.name()
                        )));
                    }
                    frames[inherited].parent
                }
                _ => inherited,
            };
            frame_of[id] = f;
            frames[f].members.push(id);
        }
        Ok(Some(Frames { frame_of, frames }))
    }

    /// Whether frame `inner` is `outer` or nested in it.
    pub fn within(&self, mut inner: usize, outer: usize) -> bool {
        loop {
            if inner == outer {
                return true;
            }
            if inner == ROOT {
                return false;
            }
            inner = self.frames[inner].parent;
        }
    }

    /// The parts of the loop of frame `f` (not the root).
    pub fn loop_of(&self, nodes: &[Arc<Node>], f: usize) -> Result<Loop> {
        let frame = &self.frames[f];
        let malformed = |what: String| {
            Error::unimplemented(format!(
                "While loop '{}' is not built as tf.while_loop builds loops: {what}",
                frame.name
            ))
        };
        let mut vars = Vec::new();
        let mut invariants = Vec::new();
        let mut loop_cond = None;
        // Merge, Switch and NextIteration of each variable, found from its Enter.
        let mut merge_of_enter: HashMap<usize, usize> = HashMap::new();
        let mut switch_of_merge: HashMap<usize, usize> = HashMap::new();
        for &m in &frame.members {
            let node = &nodes[m];
            match node.op_type() {
                "Enter" if node.attr::<bool>("is_constant")? => invariants.push(m),
                "Merge" if node.loop_back_edge().is_some() => {
                    let &[(e, 0)] = node.inputs() else {
                        return Err(malformed(format!(
                            "'{}' merges more than a variable's Enter and its NextIteration",
                            node.name()
                        )));
                    };
                    merge_of_enter.insert(e, m);
                }
                "LoopCond" => loop_cond = Some(m),
                _ => {}
            }
        }
        let loop_cond = loop_cond.ok_or_else(|| malformed("it has no LoopCond".to_string()))?;
        for &m in &frame.members {
            let node = &nodes[m];
            if node.op_type() == "Switch" && node.inputs().get(1) == Some(&(loop_cond, 0)) {
                switch_of_merge.insert(node.inputs()[0].0, m);
            }
        }
        for &e in &frame.members {
            let node = &nodes[e];
            if node.op_type() != "Enter" || node.attr::<bool>("is_constant")? {
                continue;
            }
            // An Enter nothing merges is read by nothing in the loop (TensorFlow's gradients
            // leave one per exit whose gradient goes unused).
            let Some(&merge) = merge_of_enter.get(&e) else {
                continue;
            };
            let switch = *switch_of_merge.get(&merge).ok_or_else(|| {
                malformed(format!(
                    "'{}' is not switched by the LoopCond",
                    nodes[merge].name()
                ))
            })?;
            let next = nodes[merge].loop_back_edge().map_or(merge, |(n, _)| n);
            vars.push(LoopVar {
                enter: e,
                merge,
                switch,
                next,
            });
        }
        if vars.is_empty() {
            return Err(malformed("it has no loop variable".to_string()));
        }
        let mut exits = Vec::new();
        let mut implicit = Vec::new();
        let mut outer_controls = Vec::new();
        let outside = |m: usize| !self.within(self.frame_of[m], f);
        for &m in &frame.members {
            let node = &nodes[m];
            for &c in node.control_inputs() {
                if outside(c) && !outer_controls.contains(&c) {
                    outer_controls.push(c);
                }
            }
            if node.op_type() == "Enter" {
                continue;
            }
            for &inp in node.inputs() {
                if outside(inp.0) && !implicit.contains(&inp) {
                    implicit.push(inp);
                }
            }
        }
        // Exits are in the enclosing frame, as are the readers of the other values a loop
        // makes; an Exit of this loop reads a variable's Switch, or a value made from them.
        for &x in &self.frames[frame.parent].members {
            let node = &nodes[x];
            if node.op_type() != "Exit" || self.frame_of[node.inputs()[0].0] != f {
                continue;
            }
            let (s, port) = node.inputs()[0];
            let var = vars.iter().position(|v| v.switch == s && port == 0);
            exits.push((x, var));
        }
        Ok(Loop {
            vars,
            invariants,
            loop_cond,
            exits,
            implicit,
            outer_controls,
        })
    }
}
