//! Ragged tensors in a graph and the ops that make and convert them: `tf.ragged.range`
//! (`RaggedRange`), `tf.gather` on a ragged tensor (`RaggedGather`), `RaggedTensor.to_sparse`
//! (`RaggedTensorToSparse`), `RaggedTensor.to_tensor` (`RaggedTensorToTensor`, with every row
//! partition type TensorFlow's kernel takes), `RaggedFillEmptyRows` with its gradient
//! `RaggedFillEmptyRowsGrad`, and `tf.ragged.cross` / `tf.ragged.cross_hashed` (`RaggedCross`).
//!
//! weir has no `RaggedTensor` type: a ragged tensor in a graph is its components, the flat
//! values and the row splits of each ragged dimension, outermost first, grouped as a
//! [`RaggedOutput`] (what `tf.RaggedTensor.from_nested_row_splits` takes):
//!
//! ```
//! use weir_graph::Graph;
//! use weir_ops::{array::constant, ragged::{ragged_range, RaggedToTensor}};
//! use weir_session::Session;
//!
//! let g = Graph::new();
//! let (starts, limits) = (constant(&g, [0i64, 2])?, constant(&g, [3i64, 3])?);
//! let rt = ragged_range(starts, limits, constant(&g, 1i64)?)?; // [[0, 1, 2], [2]]
//! let dense = RaggedToTensor::new().default_value(-1i64).build(&rt)?;
//! let sess = Session::new(&g)?;
//! assert_eq!(sess.eval(&dense)?.to_vec::<i64>()?, [0, 1, 2, 2, -1, -1]);
//! # Ok::<(), weir_graph::Error>(())
//! ```

mod checks;
mod cross;
mod fill_empty_rows;
mod gather;
mod range;
mod to_sparse;
mod to_tensor;

pub use cross::{ragged_cross, ragged_cross_hashed, RaggedCrossInput};
pub use fill_empty_rows::{ragged_fill_empty_rows, ragged_fill_empty_rows_grad};
pub use gather::{ragged_gather, ragged_gather_op};
pub use range::{ragged_range, RaggedRange};
pub use to_sparse::ragged_tensor_to_sparse;
pub use to_tensor::{ragged_tensor_to_tensor_op, RaggedToTensor, RowPartitionType};

use weir_graph::{DType, Error, Graph, Output, Result};

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    cross::register();
    fill_empty_rows::register();
    gather::register();
    range::register();
    to_sparse::register();
    to_tensor::register();
}

/// A ragged tensor in a graph: TensorFlow's symbolic `tf.RaggedTensor` as its components, the
/// flat values and one row-splits vector per ragged dimension (outermost first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaggedOutput {
    /// `[nvals, ...]`: the values of the innermost ragged rows, of any dtype.
    pub flat_values: Output,
    /// int32 or int64 vectors (all one dtype), `nested_row_splits[0]` being the outermost.
    pub nested_row_splits: Vec<Output>,
}

impl RaggedOutput {
    /// Groups the components (`tf.RaggedTensor.from_nested_row_splits(flat_values,
    /// nested_row_splits)` without its validation ops); InvalidArgument without splits, when
    /// the splits are not all int32 or all int64, or when the outputs span graphs.
    pub fn from_nested_row_splits(
        flat_values: impl Into<Output>,
        nested_row_splits: Vec<Output>,
    ) -> Result<RaggedOutput> {
        let flat_values = flat_values.into();
        let Some(first) = nested_row_splits.first() else {
            return Err(Error::invalid_argument(
                "nested_row_splits must be a non-empty list",
            ));
        };
        let dt = first.dtype();
        let mut all: Vec<&Output> = vec![&flat_values];
        for s in &nested_row_splits {
            if s.dtype() != dt || !matches!(dt, DType::I32 | DType::I64) {
                return Err(Error::invalid_argument(format!(
                    "Row partitioning tensors must have matching int32 or int64 dtypes, got {} \
                     and {}",
                    dt,
                    s.dtype()
                )));
            }
            all.push(s);
        }
        crate::util::same_graph(&all)?;
        Ok(RaggedOutput {
            flat_values,
            nested_row_splits,
        })
    }

    /// The number of ragged dimensions (`ragged_rank`).
    pub fn ragged_rank(&self) -> usize {
        self.nested_row_splits.len()
    }

    /// The dtype of the row splits (`row_splits.dtype`).
    pub fn row_splits_dtype(&self) -> DType {
        self.nested_row_splits
            .first()
            .map_or(DType::I64, |s| s.dtype())
    }

    /// The dtype of the values.
    pub fn dtype(&self) -> DType {
        self.flat_values.dtype()
    }

    /// The graph the components belong to.
    pub fn graph(&self) -> &Graph {
        self.flat_values.graph()
    }
}
