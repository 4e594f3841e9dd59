//! Sparse tensors in a graph and the ops that convert and combine them:
//! `tf.sparse.to_dense` / `tf.sparse_to_dense` (`SparseToDense`), `tf.sparse.concat`
//! (`SparseConcat`), `tf.sparse.reorder` (`SparseReorder`) and `tf.sparse.reshape`
//! (`SparseReshape`); and their serialization as strings: `tf.io.serialize_sparse`
//! (`SerializeSparse`), `tf.io.serialize_many_sparse` (`SerializeManySparse`),
//! `DeserializeSparse` and `tf.io.deserialize_many_sparse` (`DeserializeManySparse`).
//!
//! Arithmetic: `tf.sparse.sparse_dense_matmul` (`SparseTensorDenseMatMul`), `sp * dense` and
//! `sp / dense` (`SparseDenseCwiseMul`, `SparseDenseCwiseDiv`, and `SparseDenseCwiseAdd`),
//! `tf.sparse.add` (`SparseTensorDenseAdd`, `SparseAdd`, with `SparseAddGrad`), and
//! `tf.sparse.reduce_sum` / `tf.sparse.reduce_max` (`SparseReduceSum`, `SparseReduceMax` and
//! their `...Sparse` forms), with TensorFlow's float summation order.
//!
//! Structure: `tf.sparse.fill_empty_rows` (`SparseFillEmptyRows`), `tf.sparse.slice`
//! (`SparseSlice`), `tf.sparse.split` (`SparseSplit`), `tf.sparse.softmax` (`SparseSoftmax`),
//! `tf.sparse.maximum` / `tf.sparse.minimum` (`SparseSparseMaximum`, `SparseSparseMinimum`), and
//! the Python-built `tf.sparse.retain`, `tf.sparse.transpose`, `tf.sparse.to_indicator` and
//! `tf.sparse.reset_shape`.
//!
//! Feature crosses: `tf.sparse.cross` (`SparseCrossV2`), `tf.sparse.cross_hashed`
//! (`SparseCross`), and the raw `SparseCrossHashed`.
//!
//! A sparse tensor in a graph is three outputs, grouped as a [`SparseOutput`]; `string_split`
//! and the parsing ops return one. A run fetches the three tensors, and
//! [`SparseTensor::new`](weir_graph::SparseTensor::new) assembles the value:
//!
//! ```
//! use weir_graph::{Graph, SparseTensor};
//! use weir_ops::{array::constant, sparse::sparse_tensor_to_dense, string::string_split};
//! use weir_session::{RunArgs, Session};
//!
//! let g = Graph::new();
//! let words = string_split(&constant(&g, ["a b", "c"])?, " ")?;
//! let dense = sparse_tensor_to_dense(&words, None)?;
//! let sess = Session::new(&g)?;
//! let out = sess.run(&RunArgs::new().fetch(&words.indices).fetch(&words.values).fetch(&words.dense_shape).fetch(&dense))?;
//! let sp = SparseTensor::new(out[0].clone(), out[1].clone(), out[2].clone())?;
//! assert_eq!(sp.dense_shape.to_vec::<i64>()?, vec![2, 2]);
//! assert_eq!(out[3].to_strings()?, vec!["a", "b", "c", ""]);
//! # Ok::<(), weir_graph::Error>(())
//! ```

mod add;
mod arith;
mod checks;
mod concat;
mod cross;
mod cross_checks;
mod cross_kernel;
mod cwise;
mod dense_matmul;
mod edit_distance;
mod fill_empty_rows;
mod grad_ops;
mod indicator;
mod minmax;
mod reduce;
mod reorder;
mod reset_shape;
mod reshape;
mod retain;
pub(crate) mod serialize;
mod slice;
mod softmax;
mod split;
mod tensors_map;
mod to_dense;
mod transpose;

pub use add::{sparse_add, sparse_add_grad, sparse_tensor_dense_add};
pub use concat::sparse_concat;
pub use cross::{
    sparse_cross, sparse_cross_hashed, sparse_cross_hashed_v2, sparse_cross_v1, sparse_cross_v2,
    CrossInput, CrossLists, SparseCrossAttrs, DEFAULT_CROSS_HASH_KEY,
};
pub(crate) use cross_kernel::fingerprint_cat64;
pub use cwise::{sparse_dense_cwise_add, sparse_dense_cwise_div, sparse_dense_cwise_mul};
pub use dense_matmul::sparse_tensor_dense_matmul;
pub use edit_distance::edit_distance;
pub use fill_empty_rows::sparse_fill_empty_rows;
pub use grad_ops::{sparse_fill_empty_rows_grad, sparse_slice_grad};
pub use indicator::sparse_to_indicator;
pub use minmax::{sparse_maximum, sparse_minimum};
pub use reduce::{
    sparse_reduce_max, sparse_reduce_max_sparse, sparse_reduce_sum, sparse_reduce_sum_sparse,
};
pub use reorder::sparse_reorder;
pub use reset_shape::sparse_reset_shape;
pub use reshape::{sparse_reshape, sparse_reshape_tensor};
pub use retain::sparse_retain;
pub use serialize::{
    deserialize_many_sparse, deserialize_sparse, serialize_many_sparse, serialize_sparse,
};
pub use slice::sparse_slice;
pub use softmax::sparse_softmax;
pub use split::sparse_split;
pub use tensors_map::{
    add_many_sparse_to_tensors_map, add_sparse_to_tensors_map, take_many_sparse_from_tensors_map,
};
pub use to_dense::{sparse_tensor_to_dense, sparse_to_dense, SparseToDense};
pub use transpose::sparse_transpose;

use weir_graph::{DType, Error, Graph, Operation, Output, Result};

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    add::register();
    concat::register();
    cross::register();
    cwise::register();
    dense_matmul::register();
    edit_distance::register();
    fill_empty_rows::register();
    grad_ops::register();
    minmax::register();
    reduce::register();
    reorder::register();
    reshape::register();
    serialize::register();
    slice::register();
    softmax::register();
    split::register();
    tensors_map::register();
    to_dense::register();
}

/// A sparse tensor in a graph: TensorFlow's symbolic `tf.SparseTensor`, three outputs of one
/// graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SparseOutput {
    /// int64 `[N, rank]`: the coordinates of the values.
    pub indices: Output,
    /// `[N]`: the values, of any dtype.
    pub values: Output,
    /// int64 `[rank]`: the dense shape.
    pub dense_shape: Output,
}

impl SparseOutput {
    /// Groups three outputs; InvalidArgument unless `indices` and `dense_shape` are int64, all
    /// three share a graph, and their static ranks fit (2, 1, 1).
    pub fn new(indices: Output, values: Output, dense_shape: Output) -> Result<SparseOutput> {
        crate::util::same_graph(&[&indices, &values, &dense_shape])?;
        for (what, o) in [("indices", &indices), ("dense_shape", &dense_shape)] {
            if o.dtype() != DType::I64 {
                return Err(Error::invalid_argument(format!(
                    "SparseTensor {what} must be int64, got {} ({})",
                    o.dtype(),
                    o.name()
                )));
            }
        }
        for (what, o, rank) in [
            ("indices", &indices, 2),
            ("values", &values, 1),
            ("dense_shape", &dense_shape, 1),
        ] {
            if o.shape().rank().is_some_and(|r| r != rank) {
                return Err(Error::invalid_argument(format!(
                    "SparseTensor {what} must have rank {rank}, got shape {} ({})",
                    o.shape(),
                    o.name()
                )));
            }
        }
        Ok(SparseOutput {
            indices,
            values,
            dense_shape,
        })
    }

    /// Outputs 0, 1 and 2 of `op` (the layout of every op that produces a sparse tensor).
    pub fn from_op(op: &Operation) -> Result<SparseOutput> {
        SparseOutput::new(op.output(0)?, op.output(1)?, op.output(2)?)
    }

    /// The graph the outputs belong to.
    pub fn graph(&self) -> &Graph {
        self.indices.graph()
    }

    /// The dtype of the values.
    pub fn dtype(&self) -> DType {
        self.values.dtype()
    }

    /// The three outputs in the order a run should fetch them for
    /// [`SparseTensor::new`](weir_graph::SparseTensor::new).
    pub fn outputs(&self) -> [Output; 3] {
        [
            self.indices.clone(),
            self.values.clone(),
            self.dense_shape.clone(),
        ]
    }
}

/// `indices` as a comma-separated list, the way TensorFlow's sparse errors print an index.
pub(crate) fn show_index(idx: &[i64]) -> String {
    let parts: Vec<String> = idx.iter().map(|d| d.to_string()).collect();
    parts.join(",")
}
