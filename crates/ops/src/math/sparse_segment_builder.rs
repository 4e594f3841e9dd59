//! [`SparseSegment`], the builder of `tf.sparse.segment_sum/mean/sqrt_n` with all of their
//! arguments, including `num_segments`, which picks the `*WithNumSegments` ops.

use weir_graph::{Output, Result};

use super::sparse_segment::sparse_segment_op;

/// The options of `tf.sparse.segment_sum`, `segment_mean` and `segment_sqrt_n`
/// `(data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False)`: with
/// `num_segments` the op is the `*WithNumSegments` variant, whose output has exactly that many
/// rows (missing segments are zero), as TensorFlow's Python switches ops.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, math::SparseSegment};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let data = constant(&g, Tensor::from_vec(&[2, 1], vec![1.0f32, 2.0])?)?;
/// let y = SparseSegment::sum()
///     .num_segments(constant(&g, 3)?)
///     .build(&data, constant(&g, [0, 1])?, constant(&g, [0, 0])?)?;
/// assert_eq!(Session::new(&g)?.eval(&y)?.to_vec::<f32>()?, [3.0, 0.0, 0.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct SparseSegment {
    op: &'static str,
    num_segments: Option<Output>,
    name: Option<String>,
    sparse_gradient: bool,
}

impl SparseSegment {
    fn new(op: &'static str) -> SparseSegment {
        SparseSegment {
            op,
            num_segments: None,
            name: None,
            sparse_gradient: false,
        }
    }

    /// `tf.sparse.segment_sum` (op `SparseSegmentSum[WithNumSegments]`).
    pub fn sum() -> SparseSegment {
        SparseSegment::new("SparseSegmentSum")
    }

    /// `tf.sparse.segment_mean` (op `SparseSegmentMean[WithNumSegments]`).
    pub fn mean() -> SparseSegment {
        SparseSegment::new("SparseSegmentMean")
    }

    /// `tf.sparse.segment_sqrt_n` (op `SparseSegmentSqrtN[WithNumSegments]`).
    pub fn sqrt_n() -> SparseSegment {
        SparseSegment::new("SparseSegmentSqrtN")
    }

    /// The number of output rows, an int32 or int64 scalar (default: last segment id + 1).
    pub fn num_segments(mut self, n: impl Into<Output>) -> SparseSegment {
        self.num_segments = Some(n.into());
        self
    }

    /// The node's name.
    pub fn name(mut self, name: &str) -> SparseSegment {
        self.name = Some(name.to_string());
        self
    }

    /// TensorFlow's `sparse_gradient` attribute (recorded; weir's gradient stays dense).
    pub fn sparse_gradient(mut self, sparse: bool) -> SparseSegment {
        self.sparse_gradient = sparse;
        self
    }

    /// Adds the reduction of the rows of `data` picked by `indices` into `segment_ids`.
    pub fn build(
        self,
        data: impl Into<Output>,
        indices: impl Into<Output>,
        segment_ids: impl Into<Output>,
    ) -> Result<Output> {
        let (d, i, s) = (data.into(), indices.into(), segment_ids.into());
        let Some(n) = self.num_segments else {
            return sparse_segment_op(self.op, d, i, s, self.name.as_deref(), self.sparse_gradient);
        };
        let g = crate::util::same_graph(&[&d, &i, &s, &n])?.clone();
        crate::new_op(&g, &format!("{}WithNumSegments", self.op))
            .maybe_name(self.name.as_deref())
            .inputs([d, i, s, n])
            .attr("sparse_gradient", self.sparse_gradient)
            .build()?
            .output(0)
    }
}
