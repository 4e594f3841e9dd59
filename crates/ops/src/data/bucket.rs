//! `Dataset.bucket_by_sequence_length`: elements batched with others of similar length,
//! TensorFlow's composition of `group_by_window` and `padded_batch`.

use weir_graph::{DType, Error, Output, Result, Shape, Tensor};

use super::builders::Dataset;
use crate::array::{constant, gather, stack, where_indices};
use crate::control_flow::assert_less;
use crate::math::{less, less_equal, logical_and, reduce_min, sub, Axes};

/// The optional arguments of [`Dataset::bucket_by_sequence_length`], with TensorFlow's
/// defaults.
#[derive(Clone, Debug, Default)]
pub struct BucketOptions {
    /// `padded_shapes`: the shapes each bucket's elements are padded to (default: their
    /// static shapes, unknown dimensions padded to the batch's longest).
    pub padded_shapes: Option<Vec<Shape>>,
    /// `padding_values`: one scalar per component, or one for all (default `0` / `""`).
    pub padding_values: Option<Vec<Output>>,
    /// `pad_to_bucket_boundary`: pad unknown dimensions to the bucket's boundary minus 1
    /// instead of the batch's longest; an element of a length past the last boundary then
    /// fails the run.
    pub pad_to_bucket_boundary: bool,
    /// `no_padding`: batch without padding (the elements of a batch must have one shape).
    pub no_padding: bool,
    /// `drop_remainder`: drop each bucket's last batch when it is short.
    pub drop_remainder: bool,
}

impl Dataset {
    /// `dataset.bucket_by_sequence_length(element_length_func, bucket_boundaries,
    /// bucket_batch_sizes, ...)`: each element goes to the bucket its length falls in
    /// (`[-inf, b0)`, `[b0, b1)`, ..., `[bn, inf)` for `bucket_boundaries` `b0 < ... < bn`),
    /// and each bucket is padded and batched by its own entry of `bucket_batch_sizes`, as
    /// TensorFlow builds it (`group_by_window` then `padded_batch`).
    ///
    /// ```
    /// use weir_graph::{DType, Graph, Shape, Tensor};
    /// use weir_ops::array::shape;
    /// use weir_ops::data::{BucketOptions, Dataset};
    ///
    /// let g = Graph::new();
    /// let sentences = Dataset::from_generator(
    ///     &g,
    ///     || (1..9i64).map(|n| Ok(vec![Tensor::from(vec![n; n as usize])])),
    ///     &[DType::I64],
    ///     Some(&[Shape::new(vec![None])]),
    /// )?;
    /// // Lengths below 3, 3 to 4, and 5 on, in batches of 2, 2 and 4.
    /// let batches = sentences.bucket_by_sequence_length(
    ///     |x| weir_ops::array::strided_slice(shape(&x[0])?, &[0], &[1], &[1]),
    ///     &[3, 5],
    ///     &[2, 2, 4],
    ///     BucketOptions::default(),
    /// );
    /// # let _ = batches;
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn bucket_by_sequence_length(
        &self,
        element_length_func: impl FnOnce(&[Output]) -> Result<Output>,
        bucket_boundaries: &[i64],
        bucket_batch_sizes: &[i64],
        options: BucketOptions,
    ) -> Result<Dataset> {
        self.dense_only("dataset.bucket_by_sequence_length")?;
        if bucket_batch_sizes.len() != bucket_boundaries.len() + 1 {
            return Err(Error::invalid_argument(format!(
                "`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but \
                 `len(bucket_batch_sizes)={}` and `len(bucket_boundaries)={}`.",
                bucket_batch_sizes.len(),
                bucket_boundaries.len()
            )));
        }
        let sizes = Tensor::from(bucket_batch_sizes.to_vec());
        let boundaries = bucket_boundaries.to_vec();
        self.group_by_window_with(
            |x| {
                let length = element_length_func(x)?;
                bucket_id(&length, &boundaries)
            },
            |id, group| batching(id, group, &sizes, bucket_boundaries, &options),
            |id| gather(constant(id.graph(), sizes.clone())?, id, 0),
        )
    }
}

/// TensorFlow's bucket of `length`: the first `i` with `min_i <= length < max_i`, where the
/// mins are `[int32 min] + boundaries` and the maxes `boundaries + [int32 max]`.
fn bucket_id(length: &Output, boundaries: &[i64]) -> Result<Output> {
    let g = length.graph();
    let mins: Vec<i64> = std::iter::once(i64::from(i32::MIN))
        .chain(boundaries.iter().copied())
        .collect();
    let maxs: Vec<i64> = boundaries
        .iter()
        .copied()
        .chain(std::iter::once(i64::from(i32::MAX)))
        .collect();
    let bounds = |v: Vec<i64>| -> Result<Output> {
        match length.dtype() {
            DType::I64 => constant(g, Tensor::from(v)),
            DType::I32 => {
                let v: Vec<i32> = v
                    .into_iter()
                    .map(|b| {
                        i32::try_from(b).map_err(|_| {
                            Error::invalid_argument(format!(
                                "Bucket boundary {b} does not fit the int32 length"
                            ))
                        })
                    })
                    .collect::<Result<_>>()?;
                constant(g, Tensor::from(v))
            }
            other => Err(Error::invalid_argument(format!(
                "`element_length_func` must return an int32 or int64 scalar, not {other}"
            ))),
        }
    };
    let inside = logical_and(
        less_equal(bounds(mins)?, length)?,
        less(length, bounds(maxs)?)?,
    )?;
    reduce_min(where_indices(inside)?, Axes::All)
}

/// TensorFlow's `batching_fn`: the group batched by its bucket's size, padded unless
/// `no_padding`.
fn batching(
    id: &Output,
    group: &Dataset,
    sizes: &Tensor,
    boundaries: &[i64],
    options: &BucketOptions,
) -> Result<Dataset> {
    let g = group.graph();
    let batch_size = gather(constant(g, sizes.clone())?, id, 0)?;
    if options.no_padding {
        return group.batch_op(&batch_size, options.drop_remainder, None);
    }
    let filler = if options.pad_to_bucket_boundary {
        let last = constant(g, (sizes.num_elements() - 1) as i64)?;
        let check = assert_less(
            id,
            &last,
            Some(
                "When pad_to_bucket_boundary=True, elements must have length < \
                 max(bucket_boundaries).",
            ),
        )?;
        let _deps = g.control_dependencies(&[check])?;
        let boundary = gather(constant(g, Tensor::from(boundaries.to_vec()))?, id, 0)?;
        Some(sub(boundary, constant(g, 1i64)?)?)
    } else {
        None
    };
    let (padded, values) = group.padded_batch_arguments(
        options.padded_shapes.as_deref(),
        options.padding_values.as_deref(),
    )?;
    let mut shape_tensors = Vec::with_capacity(padded.len());
    for p in &padded {
        let dims = p.dims().unwrap_or(&[]);
        let t = match &filler {
            Some(f) if dims.iter().any(Option::is_none) && !dims.is_empty() => {
                let each = dims
                    .iter()
                    .map(|d| match d {
                        Some(n) => constant(g, *n as i64),
                        None => Ok(f.clone()),
                    })
                    .collect::<Result<Vec<_>>>()?;
                stack(&each, 0)?
            }
            _ => {
                let v: Vec<i64> = dims.iter().map(|d| d.map_or(-1, |n| n as i64)).collect();
                constant(g, Tensor::from(v))?
            }
        };
        shape_tensors.push(t);
    }
    let out_shapes = padded.iter().map(|p| p.with_leading(None)).collect();
    group.padded_batch_op(
        &batch_size,
        shape_tensors,
        values,
        options.drop_remainder,
        out_shapes,
    )
}
