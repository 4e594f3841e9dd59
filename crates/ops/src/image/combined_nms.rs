//! `tf.image.combined_non_max_suppression` (`CombinedNonMaxSuppression`): per image and class,
//! TensorFlow's greedy NMS (`DoNMSPerClass`), then the best `max_total_size` detections of the
//! image across classes, optionally clipped to `[0, 1]`. The kernel's priority queue and sort
//! compare scores only, so equal scores come out in libstdc++'s order, which libstdcxx.rs
//! reproduces.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor,
};

use super::nms::iou_at;
use super::IntScalar;
use crate::array::constant_named;
use crate::libstdcxx::{priority_queue_pop, priority_queue_push, sort};

/// The options of `tf.image.combined_non_max_suppression(boxes, scores,
/// max_output_size_per_class, max_total_size, iou_threshold=0.5, score_threshold=-inf,
/// pad_per_class=False, clip_boxes=True)`.
///
/// `boxes` are float32 `[batch, num_boxes, q, 4]` (`q` 1 or one box per class), `scores`
/// `[batch, num_boxes, num_classes]`. [`build`](Self::build) returns `(nmsed_boxes,
/// nmsed_scores, nmsed_classes, valid_detections)`.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::CombinedNonMaxSuppression};
/// let g = Graph::new();
/// let boxes = placeholder(&g, DType::F32, Shape::new(vec![Some(2), None, Some(1), Some(4)]))?;
/// let scores = placeholder(&g, DType::F32, Shape::new(vec![Some(2), None, Some(3)]))?;
/// let (b, s, c, n) = CombinedNonMaxSuppression::new(5, 10).build(&boxes, &scores)?;
/// assert_eq!(b.shape(), Shape::known(&[2, 10, 4]));
/// assert_eq!(n.shape(), Shape::known(&[2]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct CombinedNonMaxSuppression {
    max_output_size_per_class: IntScalar,
    max_total_size: IntScalar,
    iou_threshold: f32,
    score_threshold: f32,
    pad_per_class: bool,
    clip_boxes: bool,
}

/// `tf.image.combined_non_max_suppression` with TensorFlow's defaults. See
/// [`CombinedNonMaxSuppression`].
pub fn combined_non_max_suppression(
    boxes: impl Into<Output>,
    scores: impl Into<Output>,
    max_output_size_per_class: impl Into<IntScalar>,
    max_total_size: impl Into<IntScalar>,
) -> Result<(Output, Output, Output, Output)> {
    CombinedNonMaxSuppression::new(max_output_size_per_class, max_total_size).build(boxes, scores)
}

impl CombinedNonMaxSuppression {
    /// At most `max_output_size_per_class` boxes per class and `max_total_size` per image; IoU
    /// threshold 0.5, no score threshold, padded to `max_total_size`, boxes clipped.
    pub fn new(
        max_output_size_per_class: impl Into<IntScalar>,
        max_total_size: impl Into<IntScalar>,
    ) -> CombinedNonMaxSuppression {
        CombinedNonMaxSuppression {
            max_output_size_per_class: max_output_size_per_class.into(),
            max_total_size: max_total_size.into(),
            iou_threshold: 0.5,
            score_threshold: f32::NEG_INFINITY,
            pad_per_class: false,
            clip_boxes: true,
        }
    }

    /// Boxes of a class overlapping a chosen one by more than this are dropped.
    pub fn iou_threshold(mut self, t: f32) -> Self {
        self.iou_threshold = t;
        self
    }

    /// Boxes scoring at most this are never chosen.
    pub fn score_threshold(mut self, t: f32) -> Self {
        self.score_threshold = t;
        self
    }

    /// Pad to `min(max_total_size, max_output_size_per_class * num_classes)` instead of
    /// `max_total_size`.
    pub fn pad_per_class(mut self, p: bool) -> Self {
        self.pad_per_class = p;
        self
    }

    /// Clip the output boxes to `[0, 1]`.
    pub fn clip_boxes(mut self, c: bool) -> Self {
        self.clip_boxes = c;
        self
    }

    /// Adds the node under the name scope `combined_non_max_suppression`.
    pub fn build(
        &self,
        boxes: impl Into<Output>,
        scores: impl Into<Output>,
    ) -> Result<(Output, Output, Output, Output)> {
        let (boxes, scores) = (boxes.into(), scores.into());
        let g = crate::util::same_graph(&[&boxes, &scores])?.clone();
        let _scope = g.name_scope("combined_non_max_suppression");
        let iou = constant_named(&g, self.iou_threshold, "iou_threshold")?;
        let score = constant_named(&g, self.score_threshold, "score_threshold")?;
        let total = self.max_total_size.to_i32(&g, "Const")?;
        // Python converts the per-class limit when it builds the op, inside the op's own scope.
        let op_scope = g.name_scope("CombinedNonMaxSuppression");
        let per_class = self
            .max_output_size_per_class
            .to_i32(&g, "max_output_size_per_class")?;
        let op = crate::new_op(&g, "CombinedNonMaxSuppression")
            .name(op_scope.prefix())
            .input(boxes)
            .input(scores)
            .input(per_class)
            .input(total)
            .input(iou)
            .input(score)
            .attr("pad_per_class", self.pad_per_class)
            .attr("clip_boxes", self.clip_boxes)
            .build()?;
        Ok((op.output(0)?, op.output(1)?, op.output(2)?, op.output(3)?))
    }
}

#[derive(Clone, Copy, Debug)]
struct Cand {
    index: usize,
    score: f32,
}

/// One result candidate: box index (`None` for an unused slot), score, class, coordinates.
#[derive(Clone, Copy, Debug)]
struct Detection {
    index: Option<usize>,
    score: f32,
    class: usize,
    coords: [f32; 4],
}

struct Params {
    num_boxes: usize,
    q: usize,
    classes: usize,
    size_per_class: usize,
    iou: f32,
    score: f32,
}

/// `DoNMSPerClass`: writes the class's picks, best first, into its slots of `out`.
fn nms_class(p: &Params, boxes: &[f32], scores: &[f32], class: usize, out: &mut [Detection]) {
    let less = |a: Cand, b: Cand| a.score < b.score;
    let mut heap = Vec::new();
    for i in 0..p.num_boxes {
        let s = scores[i * p.classes + class];
        if s > p.score {
            priority_queue_push(&mut heap, Cand { index: i, score: s }, &less);
        }
    }
    let cb = if p.q > 1 { class } else { 0 };
    let at = |i: usize| (i * p.q + cb) * 4;
    let mut selected: Vec<usize> = Vec::new();
    while selected.len() < p.size_per_class {
        let Some(next) = priority_queue_pop(&mut heap, &less) else {
            break;
        };
        let keep = selected
            .iter()
            .rev()
            .all(|&j| iou_at(boxes, at(next.index), at(j)) <= p.iou);
        if keep {
            let b = &boxes[at(next.index)..at(next.index) + 4];
            out[selected.len() + p.size_per_class * class] = Detection {
                index: Some(next.index),
                score: next.score,
                class,
                coords: [b[0], b[1], b[2], b[3]],
            };
            selected.push(next.index);
        }
    }
}

struct CombinedKernel {
    pad_per_class: bool,
    clip_boxes: bool,
}

fn scalar_of<T: weir_graph::TensorType + Copy>(t: &Tensor, what: &str) -> Result<T> {
    if t.rank() != 0 {
        return Err(Error::invalid_argument(format!(
            "{what} must be 0-D, got shape {}",
            format_dims(t.shape())
        )));
    }
    t.to_scalar::<T>()
}

impl Kernel for CombinedKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (boxes, scores) = (ctx.input(0), ctx.input(1));
        let inv = |m: String| Err(Error::invalid_argument(m));
        if boxes.rank() != 4 {
            return inv(format!(
                "boxes must be 4-D [batch, num_boxes, q, 4], got shape {}",
                format_dims(boxes.shape())
            ));
        }
        if scores.rank() != 3 {
            return inv(format!(
                "scores must be 3-D [batch, num_boxes, num_classes], got shape {}",
                format_dims(scores.shape())
            ));
        }
        let (bs, ss) = (boxes.shape(), scores.shape());
        let (num_boxes, classes, q) = (bs[1], ss[2], bs[2]);
        if q != 1 && q != classes {
            return inv("third dimension of boxes must be either 1 or num classes".into());
        }
        if bs[3] != 4 {
            return inv("boxes must have 4 columns".into());
        }
        if ss[1] != num_boxes {
            return inv("scores has incompatible shape".into());
        }
        if bs[0] != ss[0] {
            return inv("boxes and scores must have same batch size".into());
        }
        let per_class = scalar_of::<i32>(ctx.input(2), "max_size_per_class")?;
        if per_class <= 0 {
            return inv("max_size_per_class must be positive".into());
        }
        let total = scalar_of::<i32>(ctx.input(3), "max_total_size")?;
        if total <= 0 {
            return inv("max_total_size must be > 0".into());
        }
        let iou = scalar_of::<f32>(ctx.input(4), "iou_threshold")?;
        let score = scalar_of::<f32>(ctx.input(5), "score_threshold")?;
        if !(0.0..=1.0).contains(&iou) {
            return inv("iou_threshold must be in [0, 1]".into());
        }
        let (per_class, total) = (per_class as usize, total as usize);
        let p = Params {
            num_boxes,
            q,
            classes,
            size_per_class: per_class.min(num_boxes),
            iou,
            score,
        };
        let max_total = (per_class as u64 * classes as u64).min(i32::MAX as u64) as usize;
        let per_batch = if self.pad_per_class {
            total.min(max_total)
        } else {
            total
        };
        let batch = bs[0];
        let (bdata, sdata) = (boxes.as_slice::<f32>()?, scores.as_slice::<f32>()?);
        let mut out_boxes = vec![0.0f32; batch * per_batch * 4];
        let mut out_scores = vec![0.0f32; batch * per_batch];
        let mut out_classes = vec![0.0f32; batch * per_batch];
        let mut valid = vec![0i32; batch];
        let empty = Detection {
            index: None,
            score: f32::NEG_INFINITY,
            class: 0,
            coords: [0.0; 4],
        };
        let mut cands = vec![empty; p.size_per_class * classes];
        for b in 0..batch {
            cands.fill(empty);
            let bb = &bdata[b * num_boxes * q * 4..(b + 1) * num_boxes * q * 4];
            let sb = &sdata[b * num_boxes * classes..(b + 1) * num_boxes * classes];
            for c in 0..classes {
                nms_class(&p, bb, sb, c, &mut cands);
            }
            // Best first, equal scores where libstdc++'s std::sort leaves them.
            sort(&mut cands, &|x: Detection, y: Detection| y.score < x.score);
            let found = cands.iter().filter(|d| d.index.is_some()).count();
            let n = if self.pad_per_class {
                per_batch.min(found)
            } else {
                found.min(total)
            };
            valid[b] = n as i32;
            let clip = |v: f32| {
                let m = if 1.0 < v { 1.0 } else { v };
                if m < 0.0 {
                    0.0
                } else {
                    m
                }
            };
            for (k, d) in cands.iter().take(n).enumerate() {
                let o = b * per_batch + k;
                for (i, &v) in d.coords.iter().enumerate() {
                    out_boxes[o * 4 + i] = if self.clip_boxes { clip(v) } else { v };
                }
                out_scores[o] = d.score;
                out_classes[o] = d.class as f32;
            }
        }
        ctx.set_output(0, Tensor::from_vec(&[batch, per_batch, 4], out_boxes)?);
        ctx.set_output(1, Tensor::from_vec(&[batch, per_batch], out_scores)?);
        ctx.set_output(2, Tensor::from_vec(&[batch, per_batch], out_classes)?);
        ctx.set_output(3, Tensor::from_vec(&[batch], valid)?);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(CombinedKernel {
        pad_per_class: node.attr("pad_per_class")?,
        clip_boxes: node.attr("clip_boxes")?,
    }))
}

/// TensorFlow's `CombinedNMSShapeFn`: ranks, matching batch and box counts, 4 coordinates, `q`
/// 1 or the class count; outputs `[batch, size, 4]`, `[batch, size]` twice and `[batch]`, the
/// size known when the (per-class) limits are constants.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let boxes = ctx.with_rank(0, 4)?;
    let scores = ctx.with_rank(1, 3)?;
    for i in 2..6 {
        ctx.with_rank(i, 0)?;
    }
    let op = ctx.op_type.to_string();
    let eq = |a: Option<usize>, b: Option<usize>| -> Result<Option<usize>> {
        match (a, b) {
            (Some(a), Some(b)) if a != b => Err(Error::invalid_argument(format!(
                "Dimensions must be equal, but are {a} and {b} for '{op}'"
            ))),
            _ => Ok(a.or(b)),
        }
    };
    let batch = eq(boxes.dim(0), scores.dim(0))?;
    eq(boxes.dim(1), scores.dim(1))?;
    eq(boxes.dim(3), Some(4))?;
    if let (Some(q), Some(c)) = (boxes.dim(2), scores.dim(2)) {
        if q != 1 && q != c {
            return Err(Error::invalid_argument(format!(
                "third dimension of boxes must be either 1 or num classes for '{op}'"
            )));
        }
    }
    let konst = |i: usize| ctx.input_const(i).and_then(|t| t.to_scalar::<i32>().ok());
    let total = konst(3);
    if total.is_some_and(|t| t <= 0) {
        return Err(Error::invalid_argument(format!(
            "max_total_size should be > 0 for '{op}'"
        )));
    }
    let size = if ctx.attr::<bool>("pad_per_class")? {
        match (total, konst(2), scores.dim(2)) {
            (Some(t), Some(p), Some(c)) => Some((t as i64).min(p as i64 * c as i64) as usize),
            _ => None,
        }
    } else {
        total.map(|t| t as usize)
    };
    ctx.set_output(0, Shape::new(vec![batch, size, Some(4)]));
    ctx.set_output(1, Shape::new(vec![batch, size]));
    ctx.set_output(2, Shape::new(vec![batch, size]));
    ctx.set_output(3, Shape::new(vec![batch]));
    Ok(())
}

pub(super) fn register() {
    let f = || ArgType::Fixed(DType::F32);
    register_op(
        OpDef::new("CombinedNonMaxSuppression")
            .input("boxes", f())
            .input("scores", f())
            .input("max_output_size_per_class", ArgType::Fixed(DType::I32))
            .input("max_total_size", ArgType::Fixed(DType::I32))
            .input("iou_threshold", f())
            .input("score_threshold", f())
            .output("nmsed_boxes", f())
            .output("nmsed_scores", f())
            .output("nmsed_classes", f())
            .output("valid_detections", ArgType::Fixed(DType::I32))
            .attr(
                "pad_per_class",
                AttrKind::Bool,
                Some(AttrValue::Bool(false)),
            )
            .attr("clip_boxes", AttrKind::Bool, Some(AttrValue::Bool(true)))
            .shape_fn(shape_fn),
    );
    register_kernel("CombinedNonMaxSuppression", make);
}
