//! `tf.image.non_max_suppression` (`NonMaxSuppressionV3`), `NonMaxSuppressionV4` (padded
//! output) and `tf.image.non_max_suppression_with_scores` (`NonMaxSuppressionV5`, soft-NMS):
//! TensorFlow's greedy selection from `non_max_suppression_op.cc`, with its tie-breaking (the
//! lower index first among equal scores) and its float32 intersection-over-union.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor,
};

use super::IntScalar;
use crate::array::constant_named;

/// `tf.image.non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5,
/// score_threshold=-inf)`: indices of at most `max_output_size` boxes, best score first, each
/// overlapping every box chosen before it by at most `iou_threshold`. See
/// [`NonMaxSuppression`].
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::non_max_suppression};
/// let g = Graph::new();
/// let boxes = placeholder(&g, DType::F32, Shape::new(vec![None, Some(4)]))?;
/// let scores = placeholder(&g, DType::F32, Shape::new(vec![None]))?;
/// let keep = non_max_suppression(&boxes, &scores, 10, 0.5)?;
/// assert_eq!((keep.dtype(), keep.shape()), (DType::I32, Shape::new(vec![None])));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn non_max_suppression(
    boxes: impl Into<Output>,
    scores: impl Into<Output>,
    max_output_size: impl Into<IntScalar>,
    iou_threshold: f32,
) -> Result<Output> {
    NonMaxSuppression::new(max_output_size)
        .iou_threshold(iou_threshold)
        .build(boxes, scores)
}

/// The options of TensorFlow's non-maximum suppressions. `boxes` are float32 `[num_boxes, 4]`
/// rows `[y1, x1, y2, x2]` (any diagonal corners), `scores` float32 `[num_boxes]`.
#[derive(Clone, Debug)]
pub struct NonMaxSuppression {
    max_output_size: IntScalar,
    iou_threshold: f32,
    score_threshold: f32,
    soft_nms_sigma: f32,
    pad_to_max_output_size: bool,
}

impl NonMaxSuppression {
    /// Keeps at most `max_output_size` boxes; IoU threshold 0.5, no score threshold.
    pub fn new(max_output_size: impl Into<IntScalar>) -> NonMaxSuppression {
        NonMaxSuppression {
            max_output_size: max_output_size.into(),
            iou_threshold: 0.5,
            score_threshold: f32::NEG_INFINITY,
            soft_nms_sigma: 0.0,
            pad_to_max_output_size: false,
        }
    }

    /// Boxes overlapping a chosen one by more than this (in `[0, 1]`) are dropped.
    pub fn iou_threshold(mut self, t: f32) -> Self {
        self.iou_threshold = t;
        self
    }

    /// Boxes scoring at most this are never chosen.
    pub fn score_threshold(mut self, t: f32) -> Self {
        self.score_threshold = t;
        self
    }

    /// Soft-NMS (Bodla et al.): with `sigma > 0`, overlapping boxes' scores decay by
    /// `exp(-iou^2 / (2 sigma))` instead of being dropped ([`build_with_scores`] only).
    ///
    /// [`build_with_scores`]: NonMaxSuppression::build_with_scores
    pub fn soft_nms_sigma(mut self, sigma: f32) -> Self {
        self.soft_nms_sigma = sigma;
        self
    }

    /// Pads the indices with zeros to `max_output_size` ([`build_padded`] and
    /// [`build_with_scores`]).
    ///
    /// [`build_padded`]: NonMaxSuppression::build_padded
    /// [`build_with_scores`]: NonMaxSuppression::build_with_scores
    pub fn pad_to_max_output_size(mut self, pad: bool) -> Self {
        self.pad_to_max_output_size = pad;
        self
    }

    fn inputs(&self, g: &weir_graph::Graph) -> Result<[Output; 3]> {
        Ok([
            self.max_output_size.to_i32(g, "max_output_size")?,
            constant_named(g, self.iou_threshold, "iou_threshold")?,
            constant_named(g, self.score_threshold, "score_threshold")?,
        ])
    }

    fn node(
        &self,
        op: &str,
        scope: &str,
        boxes: Output,
        scores: Output,
    ) -> Result<weir_graph::Operation> {
        let g = boxes.graph().clone();
        let _scope = g.name_scope(scope);
        let [max, iou, score] = self.inputs(&g)?;
        let mut b = crate::new_op(&g, op)
            .input(boxes)
            .input(scores)
            .input(max)
            .input(iou)
            .input(score);
        if op == "NonMaxSuppressionV5" {
            b = b.input(constant_named(&g, self.soft_nms_sigma, "soft_nms_sigma")?);
        }
        if op != "NonMaxSuppressionV3" {
            b = b.attr("pad_to_max_output_size", self.pad_to_max_output_size);
        }
        b.build()
    }

    /// `NonMaxSuppressionV3`: the selected indices, int32 `[num_selected]`.
    pub fn build(&self, boxes: impl Into<Output>, scores: impl Into<Output>) -> Result<Output> {
        self.node(
            "NonMaxSuppressionV3",
            "non_max_suppression",
            boxes.into(),
            scores.into(),
        )?
        .output(0)
    }

    /// `NonMaxSuppressionV4`: the selected indices (padded with zeros to `max_output_size` when
    /// asked) and how many of them are valid.
    pub fn build_padded(
        &self,
        boxes: impl Into<Output>,
        scores: impl Into<Output>,
    ) -> Result<(Output, Output)> {
        let op = self.node(
            "NonMaxSuppressionV4",
            "non_max_suppression_padded",
            boxes.into(),
            scores.into(),
        )?;
        Ok((op.output(0)?, op.output(1)?))
    }

    /// `tf.image.non_max_suppression_with_scores` (`NonMaxSuppressionV5`): the selected
    /// indices, their (soft-NMS decayed) scores, and how many are valid.
    pub fn build_with_scores(
        &self,
        boxes: impl Into<Output>,
        scores: impl Into<Output>,
    ) -> Result<(Output, Output, Output)> {
        let op = self.node(
            "NonMaxSuppressionV5",
            "non_max_suppression_with_scores",
            boxes.into(),
            scores.into(),
        )?;
        Ok((op.output(0)?, op.output(1)?, op.output(2)?))
    }
}

/// `std::min`/`std::max` as Eigen's `mini`/`maxi`: `b < a ? b : a` and `a < b ? b : a`.
fn mini(a: f32, b: f32) -> f32 {
    if b < a {
        b
    } else {
        a
    }
}
fn maxi(a: f32, b: f32) -> f32 {
    if a < b {
        b
    } else {
        a
    }
}

/// TensorFlow's `IOU` of the boxes starting at flat offsets `i` and `j` of `boxes` (4 floats
/// each).
pub(super) fn iou_at(boxes: &[f32], i: usize, j: usize) -> f32 {
    let (a, b) = (&boxes[i..i + 4], &boxes[j..j + 4]);
    let (ymin_i, xmin_i) = (mini(a[0], a[2]), mini(a[1], a[3]));
    let (ymax_i, xmax_i) = (maxi(a[0], a[2]), maxi(a[1], a[3]));
    let (ymin_j, xmin_j) = (mini(b[0], b[2]), mini(b[1], b[3]));
    let (ymax_j, xmax_j) = (maxi(b[0], b[2]), maxi(b[1], b[3]));
    let area_i = (ymax_i - ymin_i) * (xmax_i - xmin_i);
    let area_j = (ymax_j - ymin_j) * (xmax_j - xmin_j);
    if area_i <= 0.0 || area_j <= 0.0 {
        return 0.0;
    }
    let iy = maxi(mini(ymax_i, ymax_j) - maxi(ymin_i, ymin_j), 0.0);
    let ix = maxi(mini(xmax_i, xmax_j) - maxi(xmin_i, xmin_j), 0.0);
    let inter = iy * ix;
    inter / (area_i + area_j - inter)
}

#[derive(Clone, Copy, Debug)]
struct Candidate {
    index: usize,
    score: f32,
    suppress_begin: usize,
}

/// TensorFlow's priority: the higher score first, the lower index among equal scores.
impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        let less = |a: &Candidate, b: &Candidate| {
            (a.score == b.score && a.index > b.index) || a.score < b.score
        };
        if less(self, other) {
            Ordering::Less
        } else if less(other, self) {
            Ordering::Greater
        } else {
            Ordering::Equal
        }
    }
}
impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Candidate {}

/// `DoNonMaxSuppressionOp` over any `similarity` of two candidates (IoU for boxes, a given
/// overlap for `NonMaxSuppressionWithOverlaps`): the selected indices and their final scores.
/// The loop is the kernel's as it is, so that a NaN similarity (which zeroes a score without
/// suppressing) behaves as there.
pub(super) fn select(
    scores: &[f32],
    max_output: usize,
    iou_threshold: f32,
    score_threshold: f32,
    soft_nms_sigma: f32,
    similarity: impl Fn(usize, usize) -> f32,
) -> (Vec<i32>, Vec<f32>) {
    let mut queue: BinaryHeap<Candidate> = scores
        .iter()
        .enumerate()
        .filter(|&(_, &s)| s > score_threshold)
        .map(|(index, &score)| Candidate {
            index,
            score,
            suppress_begin: 0,
        })
        .collect();
    let soft = soft_nms_sigma > 0.0;
    let scale = if soft { -0.5 / soft_nms_sigma } else { 0.0 };
    let weight = |sim: f32| {
        let w = (scale * sim * sim).exp();
        if soft || sim <= iou_threshold {
            w
        } else {
            0.0
        }
    };
    let (mut selected, mut selected_scores) = (Vec::new(), Vec::new());
    while selected.len() < max_output {
        let Some(mut next) = queue.pop() else { break };
        let original = next.score;
        let mut hard = false;
        for j in (next.suppress_begin..selected.len()).rev() {
            let sim = similarity(next.index, selected[j] as usize);
            next.score *= weight(sim);
            if !soft && sim > iou_threshold {
                hard = true;
                break;
            }
            if next.score <= score_threshold {
                break;
            }
        }
        next.suppress_begin = selected.len();
        if !hard {
            if next.score == original {
                selected.push(next.index as i32);
                selected_scores.push(next.score);
                continue;
            }
            if next.score > score_threshold {
                queue.push(next);
            }
        }
    }
    (selected, selected_scores)
}

struct NmsKernel {
    /// 3, 4 or 5.
    version: u8,
    pad: bool,
}

fn scalar_f32(t: &Tensor, what: &str, v3_suffix: bool) -> Result<f32> {
    if t.rank() != 0 {
        let suffix = if v3_suffix {
            format!(" (Shape must be rank 0 but is rank {})", t.rank())
        } else {
            String::new()
        };
        return Err(Error::invalid_argument(format!(
            "{what} must be 0-D, got shape {}{suffix}",
            format_dims(t.shape())
        )));
    }
    t.to_scalar::<f32>()
}

impl Kernel for NmsKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let v3 = self.version == 3;
        let (boxes, scores, max) = (ctx.input(0), ctx.input(1), ctx.input(2));
        if max.rank() != 0 {
            let suffix = if v3 {
                format!(" (Shape must be rank 0 but is rank {})", max.rank())
            } else {
                String::new()
            };
            return Err(Error::invalid_argument(format!(
                "max_output_size must be 0-D, got shape {}{suffix}",
                format_dims(max.shape())
            )));
        }
        let iou_t = scalar_f32(ctx.input(3), "iou_threshold", v3)?;
        if !(0.0..=1.0).contains(&iou_t) {
            return Err(Error::invalid_argument("iou_threshold must be in [0, 1]"));
        }
        let score_t = scalar_f32(ctx.input(4), "score_threshold", false)?;
        let sigma = if self.version == 5 {
            let s = scalar_f32(ctx.input(5), "soft_nms_sigma", false)?;
            if s.is_nan() || s < 0.0 {
                return Err(Error::invalid_argument("soft_nms_sigma_val must be >= 0"));
            }
            s
        } else {
            0.0
        };
        if boxes.rank() != 2 {
            return Err(Error::invalid_argument(format!(
                "boxes must be 2-D{} (Shape must be rank 2 but is rank {})",
                format_dims(boxes.shape()),
                boxes.rank()
            )));
        }
        let num_boxes = boxes.shape()[0];
        if boxes.shape()[1] != 4 {
            return Err(Error::invalid_argument(format!(
                "boxes must have 4 columns (Dimension must be 4 but is {})",
                boxes.shape()[1]
            )));
        }
        if scores.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "scores must be 1-D{} (Shape must be rank 1 but is rank {})",
                format_dims(scores.shape()),
                scores.rank()
            )));
        }
        if scores.shape()[0] != num_boxes {
            return Err(Error::invalid_argument(format!(
                "scores has incompatible shape (Dimensions must be equal, but are {num_boxes} and {})",
                scores.shape()[0]
            )));
        }
        let max = max.to_scalar::<i32>()?;
        if max < 0 {
            return Err(Error::invalid_argument("output size must be non-negative"));
        }
        let b = boxes.as_slice::<f32>()?;
        let (mut idx, mut sc) = select(
            scores.as_slice::<f32>()?,
            max as usize,
            iou_t,
            score_t,
            sigma,
            |i, j| iou_at(b, i * 4, j * 4),
        );
        let valid = idx.len() as i32;
        if self.pad {
            idx.resize(max as usize, 0);
            sc.resize(max as usize, 0.0);
        }
        let n = idx.len();
        ctx.set_output(0, Tensor::from_vec(&[n], idx)?);
        match self.version {
            4 => ctx.set_output(1, Tensor::from(valid)),
            5 => {
                ctx.set_output(1, Tensor::from_vec(&[n], sc)?);
                ctx.set_output(2, Tensor::from(valid));
            }
            _ => {}
        }
        Ok(())
    }
}

/// TensorFlow's `NMSShapeFn` (and V4/V5's padded variant): ranks 2, 1 and scalars, 4 columns;
/// the index count is `max_output_size` when padding to a constant one, else unknown.
fn nms_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let boxes = ctx.with_rank(0, 2)?;
    let scores = ctx.with_rank(1, 1)?;
    for i in 2..ctx.num_inputs() {
        ctx.with_rank(i, 0)?;
    }
    let op = ctx.op_type.to_string();
    if let (Some(a), Some(b)) = (boxes.dim(0), scores.dim(0)) {
        if a != b {
            return Err(Error::invalid_argument(format!(
                "Dimensions must be equal, but are {a} and {b} for '{op}'"
            )));
        }
    }
    if let Some(c) = boxes.dim(1).filter(|&c| c != 4) {
        return Err(Error::invalid_argument(format!(
            "Dimension must be 4 but is {c} for '{op}'"
        )));
    }
    let pad = op != "NonMaxSuppressionV3" && ctx.attr::<bool>("pad_to_max_output_size")?;
    let n = if pad {
        ctx.input_const(2)
            .and_then(|t| t.to_scalar::<i32>().ok())
            .and_then(|v| usize::try_from(v).ok())
    } else {
        None
    };
    ctx.set_output(0, Shape::new(vec![n]));
    match op.as_str() {
        "NonMaxSuppressionV4" => ctx.set_output(1, Shape::scalar()),
        "NonMaxSuppressionV5" => {
            ctx.set_output(1, Shape::new(vec![n]));
            ctx.set_output(2, Shape::scalar());
        }
        _ => {}
    }
    Ok(())
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let version = match node.op_type() {
        "NonMaxSuppressionV3" => 3,
        "NonMaxSuppressionV4" => 4,
        _ => 5,
    };
    let pad = version != 3 && node.attr::<bool>("pad_to_max_output_size")?;
    Ok(Box::new(NmsKernel { version, pad }))
}

pub(super) fn register() {
    let base = |name: &'static str| {
        OpDef::new(name)
            .input("boxes", ArgType::Attr("T"))
            .input("scores", ArgType::Attr("T"))
            .input("max_output_size", ArgType::Fixed(DType::I32))
    };
    register_op(
        base("NonMaxSuppressionV3")
            .input("iou_threshold", ArgType::Attr("T_threshold"))
            .input("score_threshold", ArgType::Attr("T_threshold"))
            .output("selected_indices", ArgType::Fixed(DType::I32))
            .type_attr("T", &[DType::F32])
            .type_attr("T_threshold", &[DType::F32])
            .shape_fn(nms_shape),
    );
    register_op(
        base("NonMaxSuppressionV4")
            .input("iou_threshold", ArgType::Attr("T_threshold"))
            .input("score_threshold", ArgType::Attr("T_threshold"))
            .output("selected_indices", ArgType::Fixed(DType::I32))
            .output("valid_outputs", ArgType::Fixed(DType::I32))
            .type_attr("T", &[DType::F32])
            .type_attr("T_threshold", &[DType::F32])
            .attr(
                "pad_to_max_output_size",
                AttrKind::Bool,
                Some(AttrValue::Bool(false)),
            )
            .shape_fn(nms_shape),
    );
    register_op(
        base("NonMaxSuppressionV5")
            .input("iou_threshold", ArgType::Attr("T"))
            .input("score_threshold", ArgType::Attr("T"))
            .input("soft_nms_sigma", ArgType::Attr("T"))
            .output("selected_indices", ArgType::Fixed(DType::I32))
            .output("selected_scores", ArgType::Attr("T"))
            .output("valid_outputs", ArgType::Fixed(DType::I32))
            .type_attr("T", &[DType::F32])
            .attr(
                "pad_to_max_output_size",
                AttrKind::Bool,
                Some(AttrValue::Bool(false)),
            )
            .shape_fn(nms_shape),
    );
    for name in [
        "NonMaxSuppressionV3",
        "NonMaxSuppressionV4",
        "NonMaxSuppressionV5",
    ] {
        register_kernel(name, make);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_go_to_the_lower_index_and_overlaps_are_dropped() {
        // Two identical boxes with equal scores, and one far away.
        let boxes = [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 5.0, 5.0, 6.0, 6.0];
        let iou = |i: usize, j: usize| iou_at(&boxes, i * 4, j * 4);
        let scores = [0.5, 0.5, 0.1];
        let (idx, _) = select(&scores, 10, 0.5, f32::NEG_INFINITY, 0.0, iou);
        assert_eq!(idx, [0, 2]);
        let (idx, _) = select(&scores, 10, 0.5, 0.2, 0.0, iou);
        assert_eq!(idx, [0]);
        let (idx, _) = select(&scores, 0, 0.5, f32::NEG_INFINITY, 0.0, iou);
        assert!(idx.is_empty());
        assert_eq!(iou(0, 1), 1.0);
        assert_eq!(iou(0, 2), 0.0);
    }
}
