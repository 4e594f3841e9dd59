//! TensorFlow 1's TensorArray: the V3 ops (`TensorArrayV3`, `TensorArrayWriteV3`,
//! `TensorArrayReadV3`, `TensorArrayGatherV3`, `TensorArrayScatterV3`, `TensorArrayConcatV3`,
//! `TensorArraySplitV3`, `TensorArraySizeV3`, `TensorArrayCloseV3`, and `TensorArrayGradV3` for
//! gradients) and the Python-style [`TensorArray`] value over them.
//!
//! Every run of a `TensorArrayV3` node makes a new array (TensorFlow keeps one per step); its
//! handle carries the array, so the ops that take the handle reach it without a lookup. The
//! ops take and give a "flow" scalar whose only job is to order them: a read runs after the
//! write whose flow it was given. Inside a `while_loop` the handle enters as a loop invariant
//! and the flow is a loop variable ([`TensorArray::with_flow`] rebuilds the array from it).
//!
//! ```
//! # use weir_graph::{DType, Graph};
//! # use weir_ops::{array::constant, tensor_array::TensorArray};
//! let g = Graph::new();
//! let ta = TensorArray::new(DType::F32).size(3).build(&g)?;
//! let ta = ta.unstack(&constant(&g, [1.0f32, 2.0, 3.0])?)?;
//! let second = ta.read(1)?;
//! assert_eq!(second.op().op_type(), "TensorArrayReadV3");
//! # Ok::<(), weir_graph::Error>(())
//! ```

mod api;
mod args;
mod grad_api;
mod kernels;
mod op_defs;
mod resource;

pub use api::{TensorArray, TensorArrayBuilder};
pub use args::Int32Arg;

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    op_defs::register();
}
