//! `tf.math.unsorted_segment_mean` and `unsorted_segment_sqrt_n`: Python compositions in
//! TensorFlow (an `UnsortedSegmentSum` divided by each segment's count, or its square root),
//! built from the same ops.

use weir_graph::{scalar_of, DType, Output, Result, Tensor};

use crate::array::{
    concat, constant, fill, rank, reshape, shape, stack, strided_slice_items, NEW_AXIS,
};
use crate::math::{maximum, realdiv, sqrt, sub, unsorted_segment_sum};

/// `_unsorted_segment_N`: each segment's row count as `data`'s dtype, at least 1, shaped to
/// broadcast against the summed segments.
fn segment_counts(data: &Output, ids: &Output, num_segments: &Output) -> Result<Output> {
    let g = data.graph().clone();
    let one = |dt: DType| constant(&g, scalar_of(dt, 1.0)?);
    // Python folds shapes and ranks it knows into constants (`shape_internal`, `rank`).
    let ids_shape = match ids.shape().to_known() {
        Some(d) => constant(
            &g,
            Tensor::from(d.iter().map(|&v| v as i32).collect::<Vec<_>>()),
        )?,
        None => shape(ids)?,
    };
    let rank_of = |x: &Output| match x.shape().rank() {
        Some(r) => constant(&g, r as i32),
        None => rank(x),
    };
    let ones = fill(ids_shape, &one(data.dtype())?)?;
    let n = unsorted_segment_sum(ones, ids, num_segments)?;
    // [num_segments] + [1] * (rank(data) - rank(ids))
    let extra = stack(&[sub(rank_of(data)?, rank_of(ids)?)?], 0)?;
    let ones_shape = fill(extra, &one(num_segments.dtype())?)?;
    let head = strided_slice_items(num_segments, &[NEW_AXIS])?;
    let broadcastable = concat(&[head, ones_shape], 0)?;
    let n = reshape(n, &broadcastable)?;
    maximum(n, one(data.dtype())?)
}

/// `tf.math.unsorted_segment_mean(data, segment_ids, num_segments)`: the mean of the rows of
/// each segment (0 for an empty one); negative ids are dropped. Float types.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, math::unsorted_segment_mean};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let data = constant(&g, [1.0f32, 3.0, 10.0, 7.0])?;
/// let m = unsorted_segment_mean(&data, constant(&g, [0, 0, 2, -1])?, constant(&g, 3)?)?;
/// assert_eq!(Session::new(&g)?.eval(&m)?.to_vec::<f32>()?, vec![2.0, 0.0, 10.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn unsorted_segment_mean(
    data: impl Into<Output>,
    segment_ids: impl Into<Output>,
    num_segments: impl Into<Output>,
) -> Result<Output> {
    let (data, ids, num) = (data.into(), segment_ids.into(), num_segments.into());
    let g = data.graph().clone();
    let _scope = g.name_scope("UnsortedSegmentMean");
    let n = segment_counts(&data, &ids, &num)?;
    let summed = unsorted_segment_sum(&data, &ids, &num)?;
    realdiv(summed, n)
}

/// `tf.math.unsorted_segment_sqrt_n(data, segment_ids, num_segments)`: each segment's sum
/// divided by the square root of its row count. Float types.
pub fn unsorted_segment_sqrt_n(
    data: impl Into<Output>,
    segment_ids: impl Into<Output>,
    num_segments: impl Into<Output>,
) -> Result<Output> {
    let (data, ids, num) = (data.into(), segment_ids.into(), num_segments.into());
    let g = data.graph().clone();
    let _scope = g.name_scope("UnsortedSegmentSqrtN");
    let n = segment_counts(&data, &ids, &num)?;
    let summed = unsorted_segment_sum(&data, &ids, &num)?;
    realdiv(summed, sqrt(n)?)
}
