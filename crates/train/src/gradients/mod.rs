//! Symbolic differentiation: `gradients(ys, xs, grad_ys)` adds the backward graph, as
//! TensorFlow's `tf.gradients` does, from one registered gradient function per op type.
//!
//! Gradients flow only through data edges between `xs` and `ys`; where a tensor fans out, the
//! contributions are summed (`AddN`); ops declared not differentiable (shapes, indices,
//! comparisons, `StopGradient`) pass nothing back; an op on the path with no registered
//! gradient is an error naming it and its op type.

mod array_grad;
mod array_more_grad;
mod batch_norm_global_grad;
mod builder;
pub mod check;
mod complex_grad;
mod control_flow_grad;
mod ctc_grad;
mod fractional_pool_grad;
mod hessians;
mod image_more_grad;
mod image_transform_grad;
mod linalg_grad;
mod linalg_more_grad;
mod math_binary_grad;
mod math_grad;
mod math_more_grad;
mod math_odds_grad;
mod math_special_grad;
mod math_unary_grad;
mod nn3d_grad;
mod nn_grad;
mod nn_second_grad;
mod quantization_grad;
mod ragged_grad;
mod random_grad;
mod registry;
mod resource_gather_grad;
mod rnn_block_grad;
mod scatter_grad;
mod segment_more_grad;
mod sparse_grad;
mod sparse_more_grad;
mod special_more_grad;
mod spectral_grad;
mod strided_slice_grad;
mod tensor_array_grad;
mod util;
mod while_grad;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Once};

use weir_graph::frames::{Frames, ROOT};
use weir_graph::{AttrValue, DType, Error, Graph, Node, Operation, Output, Result};

pub use builder::{Gradients, UnconnectedGradients};
pub use hessians::hessians;
use registry::{lookup, Entry};
pub use registry::{register_gradient, register_not_differentiable, GradContext, GradFn};

/// Adds a node of `op_type` with `inputs` and `attrs`; its first output.
pub(crate) fn op(
    g: &Graph,
    op_type: &str,
    inputs: &[&Output],
    attrs: &[(&str, AttrValue)],
) -> Result<Output> {
    op_node(g, op_type, inputs, attrs)?.output(0)
}

/// Adds a node of `op_type` with `inputs` and `attrs`.
pub(crate) fn op_node(
    g: &Graph,
    op_type: &str,
    inputs: &[&Output],
    attrs: &[(&str, AttrValue)],
) -> Result<Operation> {
    weir_ops::register_all_ops();
    let mut b = g.new_operation(op_type);
    for i in inputs {
        b = b.input(*i);
    }
    for (k, v) in attrs {
        b = b.attr(k, v.clone());
    }
    b.build()
}

fn register_all() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        math_grad::register();
        math_more_grad::register();
        math_odds_grad::register();
        math_binary_grad::register();
        math_special_grad::register();
        math_unary_grad::register();
        array_grad::register();
        array_more_grad::register();
        nn_grad::register();
        batch_norm_global_grad::register();
        nn_second_grad::register();
        nn3d_grad::register();
        fractional_pool_grad::register();
        control_flow_grad::register();
        tensor_array_grad::register();
        linalg_grad::register();
        linalg_more_grad::register();
        scatter_grad::register();
        segment_more_grad::register();
        sparse_grad::register();
        sparse_more_grad::register();
        special_more_grad::register();
        ctc_grad::register();
        rnn_block_grad::register();
        image_more_grad::register();
        image_transform_grad::register();
        complex_grad::register();
        spectral_grad::register();
        strided_slice_grad::register();
        ragged_grad::register();
        random_grad::register();
        resource_gather_grad::register();
        quantization_grad::register();
        // A read passes its gradient to the variable (TensorFlow's `_ReadGrad`).
        register_gradient("ReadVariableOp", |ctx| Ok(vec![ctx.grad(0).cloned()]));
        for op in NOT_DIFFERENTIABLE {
            register_not_differentiable(op);
        }
    });
}

/// Op types whose inputs never get gradients: shapes, indices, comparisons, random numbers,
/// variable handles, and `StopGradient` itself.
const NOT_DIFFERENTIABLE: &[&str] = &[
    "Const",
    "Placeholder",
    "VariableV2",
    "StopGradient",
    "Shape",
    "VariableShape",
    "Size",
    "Rank",
    "ArgMax",
    "ArgMin",
    "Equal",
    "NotEqual",
    "Less",
    "LessEqual",
    "Greater",
    "GreaterEqual",
    "LogicalAnd",
    "LogicalOr",
    "LogicalNot",
    "OnesLike",
    "ZerosLike",
    "Fill",
    "Range",
    "Floor",
    "Ceil",
    "Round",
    "Sign",
    "FloorDiv",
    "BroadcastGradientArgs",
    "RandomUniform",
    "RandomUniformInt",
    "RandomStandardNormal",
    "TruncatedNormal",
    "RandomShuffle",
    "Multinomial",
    "StatelessRandomUniform",
    "StatelessRandomUniformInt",
    "StatelessRandomUniformFullInt",
    "StatelessRandomNormal",
    "StatelessTruncatedNormal",
    "StatelessMultinomial",
    "UniformCandidateSampler",
    "LogUniformCandidateSampler",
    "FixedUnigramCandidateSampler",
    "AllCandidateSampler",
    "LearnedUnigramCandidateSampler",
    "ThreadUnsafeUnigramCandidateSampler",
    "ComputeAccidentalHits",
    "OneHot",
    "InTopK",
    "InTopKV2",
    // tf.image's (image_ops_impl.py marks exactly these; NonMaxSuppressionV3-V5 and
    // DrawBoundingBoxesV2 have no gradient there either, but are not marked).
    "DrawBoundingBoxes",
    "SampleDistortedBoundingBox",
    "SampleDistortedBoundingBoxV2",
    // tf.sets (sets_impl.py marks all four).
    "SetSize",
    "DenseToDenseSetOperation",
    "DenseToSparseSetOperation",
    "SparseToSparseSetOperation",
    // The rest of TensorFlow 2.21's `ops.NotDifferentiable` list that weir has: variable
    // updates, tables, summaries, strings and byte decoders, shape helpers.
    "Assign",
    "AssignAdd",
    "AssignSub",
    "VarIsInitializedOp",
    "Assert",
    "ShapeN",
    "ConcatOffset",
    "InvertPermutation",
    "HSVToRGB",
    "DecodeRaw",
    "DecodePaddedRaw",
    "SerializeTensor",
    "ParseTensor",
    "AsString",
    "StringToNumber",
    "StringJoin",
    "StringSplit",
    "ReduceJoin",
    "RegexReplace",
    "EncodeBase64",
    "DecodeBase64",
    "StringToHashBucket",
    "StringToHashBucketFast",
    "StringToHashBucketStrong",
    "HashTableV2",
    "MutableHashTableV2",
    "MutableHashTableOfTensorsV2",
    "InitializeTableV2",
    "InitializeTableFromTextFileV2",
    "LookupTableFindV2",
    "LookupTableInsertV2",
    "LookupTableSizeV2",
    "ScalarSummary",
    "HistogramSummary",
    "ImageSummary",
    "AudioSummaryV2",
    "TensorSummaryV2",
    "MergeSummary",
    "SparseConcat",
    "ReduceDataset",
    "PyFunc",
    "PyFuncStateless",
];

/// Whether gradients flow into tensors of `dtype`: real and complex floats (TensorFlow's
/// `_IsBackpropagatable`), and variable handles (the TF1 ref
/// a variable's reads come from, so that every read of a variable counts).
pub(crate) fn is_float(dtype: DType) -> bool {
    dtype.is_floating() || dtype.is_complex() || dtype == DType::Resource
}

/// Sums the contributions to one tensor's gradient.
fn aggregate(g: &Graph, parts: Vec<Output>) -> Result<Option<Output>> {
    match parts.len() {
        0 => Ok(None),
        1 => Ok(parts.into_iter().next()),
        _ => {
            let refs: Vec<&Output> = parts.iter().collect();
            op(g, "AddN", &refs, &[]).map(Some)
        }
    }
}

/// `tf.gradients(ys, xs, grad_ys)`: the symbolic derivative of `sum(ys)` with respect to each
/// of `xs`; `None` for an `x` that no `y` depends on (or that is not floating-point).
///
/// `grad_ys` weights each `y` (default: ones of its shape). The backward ops go under the name
/// scope `gradients`, one `<op>_grad` scope per forward op. [`Gradients`] takes the other
/// arguments of `tf.gradients` (`stop_gradients`, `unconnected_gradients`, `name`).
pub fn gradients(
    ys: &[Output],
    xs: &[Output],
    grad_ys: Option<&[Output]>,
) -> Result<Vec<Option<Output>>> {
    let mut b = Gradients::new();
    if let Some(gy) = grad_ys {
        b = b.grad_ys(gy);
    }
    b.build(ys, xs)
}

/// The backward walk of [`Gradients::build`], after its arguments are checked.
fn backward(
    g: &Graph,
    ys: &[Output],
    xs: &[Output],
    grad_ys: Vec<Option<Output>>,
    stop: &HashSet<usize>,
    scope: &str,
) -> Result<Vec<Option<Output>>> {
    let nodes = g.with_nodes(|n| n.to_vec());
    let frames = Frames::of(&nodes)?;
    let _scope = g.name_scope(scope);
    let prepared = RefCell::new(HashMap::new());
    let walk = Walk {
        g,
        nodes: &nodes,
        frames: frames.as_ref(),
        frame: ROOT,
        prepared: &prepared,
        stop,
    };
    walk.gradients(ys, xs, grad_ys)
}

/// One backward walk: over the nodes of one frame (the whole graph outside loops, or one
/// loop's body, for its gradient loop) of a snapshot of the graph's nodes.
pub(crate) struct Walk<'a> {
    pub g: &'a Graph,
    pub nodes: &'a [Arc<Node>],
    pub frames: Option<&'a Frames>,
    pub frame: usize,
    /// The forward sides of the loop gradients this computation made, by frame.
    pub prepared: &'a RefCell<HashMap<usize, Arc<while_grad::Prepared>>>,
    /// The ops of `stop_gradients`: their outputs get gradients, their inputs none.
    pub stop: &'a HashSet<usize>,
}

impl Walk<'_> {
    fn in_frame(&self, id: usize) -> bool {
        self.frames.is_none_or(|f| f.frame_of[id] == self.frame)
    }

    /// Whether node `id` is in this walk's frame or in a loop nested in it: what gradients of
    /// this walk can flow through (not the loops around it).
    fn within_frame(&self, id: usize) -> bool {
        self.frames
            .is_none_or(|f| f.within(f.frame_of[id], self.frame))
    }

    /// The loop a node's back edge closes, when that loop is nested in this walk's frame: the
    /// walk then sees through it (a value entering it reaches its exits).
    fn back_edge(&self, id: usize) -> Option<(usize, usize)> {
        let e = self.nodes[id].loop_back_edge()?;
        (!self.in_frame(id) && self.within_frame(id)).then_some(e)
    }

    /// The gradients of `ys` (weighted by `grad_ys`, ones where `None`) with respect to `xs`.
    pub(crate) fn gradients(
        &self,
        ys: &[Output],
        xs: &[Output],
        grad_ys: Vec<Option<Output>>,
    ) -> Result<Vec<Option<Output>>> {
        let (g, nodes) = (self.g, self.nodes);
        let n = nodes.len();
        // Ops downstream of some x (through data edges) ...
        let mut from_x = vec![false; n];
        let mut start = n;
        for x in xs {
            from_x[x.node_id()] = true;
            start = start.min(x.node_id());
        }
        // A back edge leads to a lower id, maybe below every x (a loop's Merge built before
        // a variable its body made): walk again, from the start, until nothing changes.
        loop {
            let mut changed = false;
            for id in start..n {
                if !from_x[id]
                    && self.within_frame(id)
                    && (nodes[id].inputs().iter().any(|(m, _)| from_x[*m])
                        || self.back_edge(id).is_some_and(|(m, _)| from_x[m]))
                {
                    from_x[id] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
            start = 0;
        }
        // ... and upstream of some y: only these carry gradients.
        let mut to_y = vec![false; n];
        let mut stack: Vec<usize> = ys.iter().map(Output::node_id).collect();
        while let Some(id) = stack.pop() {
            if to_y[id] {
                continue;
            }
            to_y[id] = true;
            stack.extend(
                nodes[id]
                    .inputs()
                    .iter()
                    .map(|(m, _)| *m)
                    .chain(self.back_edge(id).map(|(m, _)| m))
                    .filter(|m| !to_y[*m]),
            );
        }

        let mut parts: HashMap<(usize, usize), Vec<Output>> = HashMap::new();
        for (y, gy) in ys.iter().zip(grad_ys) {
            let gy = match gy {
                Some(gy) => gy,
                None => op(g, "OnesLike", &[y], &[])?,
            };
            parts.entry((y.node_id(), y.index())).or_default().push(gy);
        }
        let mut summed: HashMap<(usize, usize), Option<Output>> = HashMap::new();
        let mut loops_done: Vec<usize> = Vec::new();

        // Node ids are a topological order, so walking them backwards visits every consumer of
        // a tensor before its producer. A loop is differentiated whole, at its last exit.
        for id in (0..n).rev() {
            if !(from_x[id] && to_y[id] && self.in_frame(id)) {
                continue;
            }
            let node = &nodes[id];
            if let (Some(frames), "Exit") = (self.frames, node.op_type()) {
                let f = frames.frame_of[node.inputs()[0].0];
                if loops_done.contains(&f) {
                    continue;
                }
                loops_done.push(f);
                let lp = frames.loop_of(nodes, f)?;
                let mut exit_grads = Vec::new();
                for &(x, _) in &lp.exits {
                    let total = aggregate(g, parts.remove(&(x, 0)).unwrap_or_default())?;
                    summed.insert((x, 0), total.clone());
                    exit_grads.push(total);
                }
                let into = while_grad::loop_grad(self, f, &lp, exit_grads, &from_x)?;
                for (k, gi) in into {
                    parts.entry(k).or_default().push(gi);
                }
                continue;
            }
            let mut out_grads = Vec::with_capacity(node.output_dtypes().len());
            for i in 0..node.output_dtypes().len() {
                let total = aggregate(g, parts.remove(&(id, i)).unwrap_or_default())?;
                summed.insert((id, i), total.clone());
                out_grads.push(total);
            }
            if node.inputs().is_empty()
                || out_grads.iter().all(Option::is_none)
                || self.stop.contains(&id)
            {
                continue;
            }
            if !node
                .inputs()
                .iter()
                .any(|&(m, j)| from_x[m] && is_float(nodes[m].output_dtypes()[j]))
            {
                continue;
            }
            let f = match lookup(node.op_type()) {
                Some(Entry::NotDifferentiable) => continue,
                Some(Entry::Gradient(f)) => f,
                None => {
                    return Err(Error::not_found(format!(
                        "No gradient defined for operation '{}' (op type: {})",
                        node.name(),
                        node.op_type()
                    )))
                }
            };
            let op = g.operation(id)?;
            let in_grads = {
                let _op_scope = g.name_scope(&format!("{}_grad", node.name()));
                let ctx = GradContext {
                    op: &op,
                    node: node.clone(),
                    grads: &out_grads,
                };
                f(&ctx).map_err(|e| e.with_prefix(&format!("Gradient of '{}': ", node.name())))?
            };
            if in_grads.len() != node.inputs().len() {
                return Err(Error::internal(format!(
                    "Gradient function of {} returned {} gradients for {} inputs",
                    node.op_type(),
                    in_grads.len(),
                    node.inputs().len()
                )));
            }
            for (gi, &(m, j)) in in_grads.into_iter().zip(node.inputs()) {
                if let Some(gi) = gi {
                    if from_x[m] && is_float(nodes[m].output_dtypes()[j]) {
                        parts.entry((m, j)).or_default().push(gi);
                    }
                }
            }
        }
        xs.iter()
            .map(|x| {
                let key = (x.node_id(), x.index());
                if !is_float(x.dtype()) {
                    return Ok(None);
                }
                match summed.get(&key) {
                    Some(done) => Ok(done.clone()),
                    None => aggregate(g, parts.remove(&key).unwrap_or_default()),
                }
            })
            .collect()
    }
}

/// `tf.stop_gradient(x)`: the same value, through which no gradient flows.
pub fn stop_gradient(x: impl Into<Output>) -> Result<Output> {
    let x = x.into();
    op(&x.graph().clone(), "StopGradient", &[&x], &[])
}
