//! `CTCBeamSearchDecoder`: TensorFlow's prefix beam search with its default scorer.
//!
//! Every prefix seen is an entry of a tree (parent, last label, children by label), with the
//! log probabilities of the prefix ending in a blank, in its last label, and in total, at the
//! previous step (`oldp`) and this one (`newp`). The beam is a `gtl::TopN` of entries by
//! `newp.total`; an entry pushed out of it is reset to log zero, which makes it inactive until
//! a later step re-creates it. Each step's scores are log-softmax normalised with the step's
//! own maximum and log-sum-exp, in the input's precision.

use std::collections::HashMap;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef,
    Result, Tensor,
};

use super::greedy::{check_decoder_inputs, store_sequences};
use super::shapes::decoder_shapes;
use super::top_n::TopN;
use super::{log_sum_exp, CtcFloat};
use crate::nn::match_float;

/// Log probabilities of a prefix (`BeamProbability`): ending in a blank, in its last label,
/// and their sum.
#[derive(Clone, Copy, Debug)]
struct Prob<T> {
    total: T,
    blank: T,
    label: T,
}

impl<T: CtcFloat> Prob<T> {
    fn zero() -> Prob<T> {
        let z = T::neg_infinity();
        Prob {
            total: z,
            blank: z,
            label: z,
        }
    }
}

/// One prefix of the tree (`BeamEntry`).
#[derive(Debug)]
struct Entry<T> {
    parent: Option<usize>,
    label: i64,
    oldp: Prob<T>,
    newp: Prob<T>,
}

/// The search over one batch entry: the tree of prefixes and the beam.
struct Search<T> {
    entries: Vec<Entry<T>>,
    /// `(parent, label) -> child`: the children maps of TensorFlow's entries, in one table.
    children: HashMap<(usize, i64), usize>,
    leaves: TopN,
    beam_width: usize,
    classes: usize,
}

impl<T: CtcFloat> Search<T> {
    /// A search whose beam holds only the root (`Reset`): log probability 0 of the empty prefix.
    fn new(beam_width: usize, classes: usize) -> Search<T> {
        let mut root = Entry {
            parent: None,
            label: -1,
            oldp: Prob::zero(),
            newp: Prob::zero(),
        };
        root.newp.total = T::ZERO;
        root.newp.blank = T::ZERO;
        let mut s = Search {
            entries: vec![root],
            children: HashMap::new(),
            leaves: TopN::new(beam_width),
            beam_width,
            classes,
        };
        let entries = &s.entries;
        s.leaves
            .push(0, &|a, b| entries[a].newp.total > entries[b].newp.total);
        s
    }

    fn active(&self, e: usize) -> bool {
        self.entries[e].newp.total != T::neg_infinity()
    }

    /// The child of `parent` for `label`, made (with log-zero probabilities) if new.
    fn child(&mut self, parent: usize, label: i64) -> usize {
        let next = self.entries.len();
        let id = *self.children.entry((parent, label)).or_insert(next);
        if id == next {
            self.entries.push(Entry {
                parent: Some(parent),
                label,
                oldp: Prob::zero(),
                newp: Prob::zero(),
            });
        }
        id
    }

    /// Whether a prefix with `total` would enter the beam (`is_candidate`).
    fn is_candidate(&mut self, total: T) -> bool {
        if total <= T::neg_infinity() || total.is_nan() {
            return false;
        }
        if self.leaves.len() < self.beam_width {
            return true;
        }
        let entries = &self.entries;
        let gt = |a: usize, b: usize| entries[a].newp.total > entries[b].newp.total;
        match self.leaves.peek_bottom(&gt) {
            Some(bottom) => total > entries[bottom].newp.total,
            None => true,
        }
    }

    fn push_leaf(&mut self, e: usize) {
        let entries = &self.entries;
        self.leaves
            .push(e, &|a, b| entries[a].newp.total > entries[b].newp.total);
    }

    /// One time step (`Step`) on the logits `x` of all classes.
    fn step(&mut self, x: &[T]) {
        let blank = self.classes - 1;
        let max = x[1..].iter().fold(x[0], |m, &v| if v > m { v } else { m });
        let mut sum = T::ZERO;
        for &v in x {
            sum = sum + (v - max).exp();
        }
        let norm = max + sum.ln();

        let branches = {
            let entries = &self.entries;
            self.leaves
                .extract(&|a, b| entries[a].newp.total > entries[b].newp.total)
        };
        self.leaves.reset();
        for &b in &branches {
            let e = &mut self.entries[b];
            e.oldp = e.newp;
        }

        for &b in &branches {
            if let Some(parent) = self.entries[b].parent {
                if self.active(parent) {
                    let p = &self.entries[parent];
                    let previous = if self.entries[b].label == p.label {
                        p.oldp.blank
                    } else {
                        p.oldp.total
                    };
                    let e = &mut self.entries[b];
                    e.newp.label = log_sum_exp(e.newp.label, previous);
                }
                let e = &mut self.entries[b];
                e.newp.label = e.newp.label + (x[e.label as usize] - norm);
            }
            let e = &mut self.entries[b];
            e.newp.blank = e.oldp.total + x[blank] - norm;
            e.newp.total = log_sum_exp(e.newp.blank, e.newp.label);
            self.push_leaf(b);
        }

        for &b in &branches {
            if !self.is_candidate(self.entries[b].oldp.total) {
                continue;
            }
            for (label, &logit) in x.iter().enumerate().take(blank) {
                let c = self.child(b, label as i64);
                if self.active(c) {
                    continue;
                }
                let parent = &self.entries[b];
                let previous = if label as i64 == parent.label {
                    parent.oldp.blank
                } else {
                    parent.oldp.total
                };
                let total = logit - norm + previous;
                let e = &mut self.entries[c];
                e.newp.blank = T::neg_infinity();
                e.newp.label = total;
                e.newp.total = total;
                if self.is_candidate(total) {
                    if self.leaves.len() == self.beam_width {
                        // The bottom leaves the beam: reset, it is no longer searched.
                        let entries = &self.entries;
                        let gt = |a: usize, b: usize| entries[a].newp.total > entries[b].newp.total;
                        if let Some(bottom) = self.leaves.peek_bottom(&gt) {
                            self.entries[bottom].newp = Prob::zero();
                        }
                    }
                    self.push_leaf(c);
                } else {
                    let e = &mut self.entries[c];
                    e.oldp = Prob::zero();
                    e.newp = Prob::zero();
                }
            }
        }
    }

    /// The labels of prefix `e` from the root, repeats merged when asked (`LabelSeq`).
    fn label_seq(&self, mut e: usize, merge_repeated: bool) -> Vec<i64> {
        let mut labels = Vec::new();
        let mut prev = -1;
        while let Some(parent) = self.entries[e].parent {
            let label = self.entries[e].label;
            if !merge_repeated || label != prev {
                labels.push(label);
            }
            prev = label;
            e = parent;
        }
        labels.reverse();
        labels
    }

    /// The `n` best prefixes and their log probabilities (`TopPaths`).
    fn top_paths(&self, n: usize, merge_repeated: bool) -> Result<(Vec<Vec<i64>>, Vec<T>)> {
        if n > self.beam_width {
            return Err(Error::invalid_argument(
                "requested more paths than the beam width.",
            ));
        }
        if n > self.leaves.len() {
            return Err(Error::invalid_argument(
                "Less leaves in the beam search than requested.",
            ));
        }
        let entries = &self.entries;
        let gt = |a: usize, b: usize| entries[a].newp.total > entries[b].newp.total;
        let mut top = TopN::new(n);
        for &e in self.leaves.unsorted() {
            top.push(e, &gt);
        }
        let best = top.extract(&gt);
        Ok((
            best.iter()
                .map(|&e| self.label_seq(e, merge_repeated))
                .collect(),
            best.iter().map(|&e| entries[e].newp.total).collect(),
        ))
    }
}

struct BeamSearchKernel {
    beam_width: usize,
    top_paths: usize,
    merge_repeated: bool,
}

impl BeamSearchKernel {
    fn decode<T: CtcFloat>(
        &self,
        x: &[T],
        [_, batch, classes]: [usize; 3],
        seq: &[i32],
    ) -> Result<(Vec<Vec<Vec<i64>>>, Tensor)> {
        let mut sequences = Vec::with_capacity(batch);
        let mut log_prob = Vec::with_capacity(batch * self.top_paths);
        for (b, &len) in seq.iter().enumerate() {
            let mut search = Search::<T>::new(self.beam_width, classes);
            for t in 0..len.max(0) as usize {
                let at = (t * batch + b) * classes;
                search.step(&x[at..at + classes]);
            }
            let (paths, probs) = search.top_paths(self.top_paths, self.merge_repeated)?;
            sequences.push(paths);
            log_prob.extend(probs);
        }
        Ok((
            sequences,
            Tensor::from_vec(&[batch, self.top_paths], log_prob)?,
        ))
    }
}

impl Kernel for BeamSearchKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (dims, seq) = check_decoder_inputs(ctx)?;
        let inputs = ctx.input(0);
        let (sequences, log_prob) = match_float!(inputs.dtype(), T => self.decode::<T>(inputs.as_slice::<T>()?, dims, seq)?);
        store_sequences(ctx, &sequences, self.top_paths)?;
        ctx.set_output(3 * self.top_paths, log_prob);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let count = |name: &str| -> Result<usize> {
        let v: i64 = node.attr(name)?;
        usize::try_from(v).map_err(|_| Error::invalid_argument(format!("{name} must be >= 1")))
    };
    Ok(Box::new(BeamSearchKernel {
        beam_width: count("beam_width")?,
        top_paths: count("top_paths")?,
        merge_repeated: node.attr("merge_repeated")?,
    }))
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let top_paths: i64 = ctx.attr("top_paths")?;
    let n = usize::try_from(top_paths).unwrap_or(0);
    decoder_shapes(ctx, n, n)
}

pub(super) fn register() {
    register_op(
        OpDef::new("CTCBeamSearchDecoder")
            .input("inputs", ArgType::Attr("T"))
            .input("sequence_length", ArgType::Fixed(DType::I32))
            .output(
                "decoded_indices",
                ArgType::RepeatedFixed {
                    count: "top_paths",
                    dtype: DType::I64,
                },
            )
            .output(
                "decoded_values",
                ArgType::RepeatedFixed {
                    count: "top_paths",
                    dtype: DType::I64,
                },
            )
            .output(
                "decoded_shape",
                ArgType::RepeatedFixed {
                    count: "top_paths",
                    dtype: DType::I64,
                },
            )
            .output("log_probability", ArgType::Attr("T"))
            .int_attr_min("beam_width", 1)
            .int_attr_min("top_paths", 1)
            .attr(
                "merge_repeated",
                AttrKind::Bool,
                Some(AttrValue::Bool(true)),
            )
            .type_attr("T", &[DType::F32, DType::F64])
            .shape_fn(shape_fn),
    );
    register_kernel("CTCBeamSearchDecoder", make);
}
