//! The other single-image non-maximum suppressions of `non_max_suppression_op.cc`:
//! `NonMaxSuppression` (V1: the IoU threshold an attr), `NonMaxSuppressionV2` (a tensor) and
//! `NonMaxSuppressionWithOverlaps` (a precomputed `[n, n]` similarity instead of boxes), all
//! TensorFlow's `DoNonMaxSuppressionOp` over a similarity function; and the Python wrappers
//! `non_max_suppression_padded`, `non_max_suppression_with_scores` and
//! `non_max_suppression_overlaps`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor,
};

use super::nms::{iou_at, select};
use super::{IntScalar, NonMaxSuppression};
use crate::array::constant_named;

/// `tf.image.non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5,
/// score_threshold=-inf, pad_to_max_output_size=False)` as TensorFlow 1.15 builds it (one
/// `NonMaxSuppressionV4`): the selected indices, zero-padded to `max_output_size` when asked,
/// and how many are valid.
pub fn non_max_suppression_padded(
    boxes: impl Into<Output>,
    scores: impl Into<Output>,
    max_output_size: impl Into<IntScalar>,
    iou_threshold: f32,
    score_threshold: f32,
    pad_to_max_output_size: bool,
) -> Result<(Output, Output)> {
    NonMaxSuppression::new(max_output_size)
        .iou_threshold(iou_threshold)
        .score_threshold(score_threshold)
        .pad_to_max_output_size(pad_to_max_output_size)
        .build_padded(boxes, scores)
}

/// `tf.image.non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
/// score_threshold=-inf, soft_nms_sigma=0.0)` (`NonMaxSuppressionV5`, soft-NMS when `sigma >
/// 0`): the selected indices and their (decayed) scores.
pub fn non_max_suppression_with_scores(
    boxes: impl Into<Output>,
    scores: impl Into<Output>,
    max_output_size: impl Into<IntScalar>,
    iou_threshold: f32,
    score_threshold: f32,
    soft_nms_sigma: f32,
) -> Result<(Output, Output)> {
    let (idx, sc, _) = NonMaxSuppression::new(max_output_size)
        .iou_threshold(iou_threshold)
        .score_threshold(score_threshold)
        .soft_nms_sigma(soft_nms_sigma)
        .build_with_scores(boxes, scores)?;
    Ok((idx, sc))
}

/// `tf.image.non_max_suppression_overlaps(overlaps, scores, max_output_size,
/// overlap_threshold=0.5, score_threshold=-inf)` (`NonMaxSuppressionWithOverlaps`): greedy
/// selection by score where `overlaps[i, j]` is the similarity of boxes `i` and `j`.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::non_max_suppression_overlaps};
/// let g = Graph::new();
/// let overlaps = placeholder(&g, DType::F32, Shape::new(vec![None, None]))?;
/// let scores = placeholder(&g, DType::F32, Shape::new(vec![None]))?;
/// let keep = non_max_suppression_overlaps(&overlaps, &scores, 5, 0.5, f32::NEG_INFINITY)?;
/// assert_eq!(keep.shape(), Shape::new(vec![None]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn non_max_suppression_overlaps(
    overlaps: impl Into<Output>,
    scores: impl Into<Output>,
    max_output_size: impl Into<IntScalar>,
    overlap_threshold: f32,
    score_threshold: f32,
) -> Result<Output> {
    let (overlaps, scores) = (overlaps.into(), scores.into());
    let g = crate::util::same_graph(&[&overlaps, &scores])?.clone();
    let _scope = g.name_scope("non_max_suppression_overlaps");
    let thr = constant_named(&g, overlap_threshold, "overlap_threshold")?;
    // The other two are converted by the op's Python wrapper, inside the op's own scope.
    let op_scope = g.name_scope("NonMaxSuppressionWithOverlaps");
    let max = max_output_size.into().to_i32(&g, "max_output_size")?;
    let score = constant_named(&g, score_threshold, "score_threshold")?;
    crate::new_op(&g, "NonMaxSuppressionWithOverlaps")
        .name(op_scope.prefix())
        .input(overlaps)
        .input(scores)
        .input(max)
        .input(thr)
        .input(score)
        .build()?
        .output(0)
}

/// The kernels' greedy selection without soft-NMS, over any similarity.
fn select_by(
    scores: &[f32],
    max_output: usize,
    threshold: f32,
    score_threshold: f32,
    similarity: impl Fn(usize, usize) -> f32,
) -> Vec<i32> {
    select(
        scores,
        max_output,
        threshold,
        score_threshold,
        0.0,
        similarity,
    )
    .0
}

fn scalar(t: &Tensor, what: &str) -> Result<()> {
    if t.rank() != 0 {
        return Err(Error::invalid_argument(format!(
            "{what} must be 0-D, got shape {}",
            format_dims(t.shape())
        )));
    }
    Ok(())
}

/// `ParseAndCheckBoxSizes` and `CheckScoreSizes`: the number of boxes.
fn check_boxes(boxes: &Tensor, scores: &Tensor) -> Result<usize> {
    if boxes.rank() != 2 {
        return Err(Error::invalid_argument(format!(
            "boxes must be 2-D{} (Shape must be rank 2 but is rank {})",
            format_dims(boxes.shape()),
            boxes.rank()
        )));
    }
    let n = boxes.shape()[0];
    if boxes.shape()[1] != 4 {
        return Err(Error::invalid_argument(format!(
            "boxes must have 4 columns (Dimension must be 4 but is {})",
            boxes.shape()[1]
        )));
    }
    check_scores(scores, n)?;
    Ok(n)
}

fn check_scores(scores: &Tensor, n: usize) -> Result<()> {
    if scores.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "scores must be 1-D{} (Shape must be rank 1 but is rank {})",
            format_dims(scores.shape()),
            scores.rank()
        )));
    }
    if scores.shape()[0] != n {
        return Err(Error::invalid_argument(format!(
            "scores has incompatible shape (Dimensions must be equal, but are {n} and {})",
            scores.shape()[0]
        )));
    }
    Ok(())
}

fn max_output(t: &Tensor) -> Result<usize> {
    let v = t.to_scalar::<i32>()?;
    usize::try_from(v).map_err(|_| Error::invalid_argument("output size must be non-negative"))
}

enum Version {
    V1(f32),
    V2,
    Overlaps,
}

struct NmsKernel {
    version: Version,
}

impl Kernel for NmsKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (first, scores, max) = (ctx.input(0), ctx.input(1), ctx.input(2));
        scalar(max, "max_output_size")?;
        let picked = match self.version {
            Version::V1(_) | Version::V2 => {
                let thr = match self.version {
                    Version::V1(t) => t,
                    _ => {
                        scalar(ctx.input(3), "iou_threshold")?;
                        ctx.input(3).to_scalar::<f32>()?
                    }
                };
                if !(0.0..=1.0).contains(&thr) {
                    return Err(Error::invalid_argument("iou_threshold must be in [0, 1]"));
                }
                check_boxes(first, scores)?;
                let b = first.as_slice::<f32>()?;
                // V1 and V2 keep every score above float's lowest value.
                select_by(
                    scores.as_slice::<f32>()?,
                    max_output(max)?,
                    thr,
                    f32::MIN,
                    |i, j| iou_at(b, i * 4, j * 4),
                )
            }
            Version::Overlaps => {
                scalar(ctx.input(3), "overlap_threshold")?;
                let thr = ctx.input(3).to_scalar::<f32>()?;
                scalar(ctx.input(4), "score_threshold")?;
                let score_thr = ctx.input(4).to_scalar::<f32>()?;
                if first.rank() != 2 {
                    return Err(Error::invalid_argument(format!(
                        "overlaps must be 2-D{}",
                        format_dims(first.shape())
                    )));
                }
                let n = first.shape()[0];
                if first.shape()[1] != n {
                    return Err(Error::invalid_argument(format!(
                        "overlaps must be square{}",
                        format_dims(first.shape())
                    )));
                }
                check_scores(scores, n)?;
                let o = first.as_slice::<f32>()?;
                select_by(
                    scores.as_slice::<f32>()?,
                    max_output(max)?,
                    thr,
                    score_thr,
                    |i, j| o[i * n + j],
                )
            }
        };
        let n = picked.len();
        ctx.set_output(0, Tensor::from_vec(&[n], picked)?);
        Ok(())
    }
}

/// `NMSShapeFn` and its overlaps variant: ranks, matching box counts, 4 columns (or a square
/// overlap matrix); the selected indices' length unknown.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let first = ctx.with_rank(0, 2)?;
    let scores = ctx.with_rank(1, 1)?;
    for i in 2..ctx.num_inputs() {
        ctx.with_rank(i, 0)?;
    }
    let op = ctx.op_type.to_string();
    if let (Some(a), Some(b)) = (first.dim(0), scores.dim(0)) {
        if a != b {
            return Err(Error::invalid_argument(format!(
                "Dimensions must be equal, but are {a} and {b} for '{op}'"
            )));
        }
    }
    if op == "NonMaxSuppressionWithOverlaps" {
        if let (Some(a), Some(b)) = (first.dim(0), first.dim(1)) {
            if a != b {
                return Err(Error::invalid_argument(format!(
                    "Dimensions must be equal, but are {a} and {b} for '{op}'"
                )));
            }
        }
    } else if let Some(c) = first.dim(1).filter(|&c| c != 4) {
        return Err(Error::invalid_argument(format!(
            "Dimension must be 4 but is {c} for '{op}'"
        )));
    }
    ctx.set_output(0, Shape::new(vec![None]));
    Ok(())
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let version = match node.op_type() {
        "NonMaxSuppression" => Version::V1(node.attr("iou_threshold")?),
        "NonMaxSuppressionV2" => Version::V2,
        _ => Version::Overlaps,
    };
    Ok(Box::new(NmsKernel { version }))
}

pub(super) fn register() {
    let f32_in = || ArgType::Fixed(DType::F32);
    let base = |name: &'static str, first: &'static str, t: ArgType| {
        OpDef::new(name)
            .input(first, t.clone())
            .input("scores", t)
            .input("max_output_size", ArgType::Fixed(DType::I32))
    };
    register_op(
        base("NonMaxSuppression", "boxes", f32_in())
            .output("selected_indices", ArgType::Fixed(DType::I32))
            .attr(
                "iou_threshold",
                AttrKind::Float,
                Some(AttrValue::Float(0.5)),
            )
            .shape_fn(shape_fn),
    );
    register_op(
        base("NonMaxSuppressionV2", "boxes", ArgType::Attr("T"))
            .input("iou_threshold", ArgType::Attr("T_threshold"))
            .output("selected_indices", ArgType::Fixed(DType::I32))
            .type_attr("T", &[DType::F32])
            .type_attr("T_threshold", &[DType::F32])
            .shape_fn(shape_fn),
    );
    register_op(
        base("NonMaxSuppressionWithOverlaps", "overlaps", f32_in())
            .input("overlap_threshold", f32_in())
            .input("score_threshold", f32_in())
            .output("selected_indices", ArgType::Fixed(DType::I32))
            .shape_fn(shape_fn),
    );
    for op in [
        "NonMaxSuppression",
        "NonMaxSuppressionV2",
        "NonMaxSuppressionWithOverlaps",
    ] {
        register_kernel(op, make);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_selection_over_a_similarity_matrix() {
        // Boxes 0 and 1 overlap by 0.7, 2 overlaps neither.
        let o = [1.0, 0.7, 0.0, 0.7, 1.0, 0.1, 0.0, 0.1, 1.0];
        let sim = |i: usize, j: usize| o[i * 3 + j];
        assert_eq!(select_by(&[0.9, 0.8, 0.1], 3, 0.5, f32::MIN, sim), [0, 2]);
        assert_eq!(
            select_by(&[0.9, 0.8, 0.1], 3, 0.75, f32::MIN, sim),
            [0, 1, 2]
        );
        assert_eq!(select_by(&[0.9, 0.8, 0.1], 3, 0.5, 0.5, sim), [0]);
        assert_eq!(select_by(&[0.9, 0.8, 0.1], 1, 1.0, f32::MIN, sim), [0]);
        let boxes = [0.0, 0.0, 1.0, 1.0, 0.0, 0.5, 1.0, 1.5];
        assert!((iou_at(&boxes, 0, 4) - 1.0 / 3.0).abs() < 1e-7);
    }
}
