//! weir's op library: every TensorFlow op weir supports, one module per op family, each with
//! its builder functions, its [`OpDef`](weir_graph::OpDef) (signature and shape inference) and
//! its kernel.
//!
//! Builders take `&Graph` or inputs that carry their graph, validate dtypes and shapes when the
//! node is added, and return `Result`:
//!
//! ```
//! use weir_graph::{DType, Graph, Shape};
//! use weir_ops::{array::{constant, placeholder}, math::add};
//!
//! let g = Graph::new();
//! let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(2)]))?;
//! let b = constant(&g, [1.0f32, 2.0])?;
//! let y = add(&x, &b)?;
//! assert_eq!(y.shape(), Shape::new(vec![None, Some(2)]));
//! # Ok::<(), weir_graph::Error>(())
//! ```

use std::sync::Once;

use weir_graph::{Graph, OpBuilder};

pub mod array;
pub mod audio;
pub mod bitwise;
pub mod complex;
pub mod control_flow;
pub mod data;
pub mod data_flow;
pub mod image;
pub mod init_ops;
pub mod intra_op;
pub mod io;
pub mod linalg;
pub mod logging;
pub mod lookup;
pub mod math;
pub mod nn;
pub mod parsing;
pub mod quantization;
pub mod ragged;
pub mod random;
pub mod script;
pub mod session_ops;
pub mod sets;
pub mod sparse;
pub mod spectral;
pub mod state;
pub mod string;
pub mod summary;
pub mod tensor_array;
pub mod training;

mod libstdcxx;
mod libstdcxx_random;
mod stream_store;
mod util;

/// Registers the OpDef and kernel of every op in this crate. Idempotent and cheap after the
/// first call; builders and sessions call it, so users rarely need to.
pub fn register_all_ops() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        array::register_all_ops();
        audio::register_all_ops();
        bitwise::register_all_ops();
        complex::register_all_ops();
        control_flow::register_all_ops();
        init_ops::register_all_ops();
        io::register_all_ops();
        logging::register_all_ops();
        lookup::register_all_ops();
        data::register_all_ops();
        data_flow::register_all_ops();
        math::register_all_ops();
        nn::register_all_ops();
        parsing::register_all_ops();
        quantization::register_all_ops();
        ragged::register_all_ops();
        state::register_all_ops();
        training::register_all_ops();
        summary::register_all_ops();
        image::register_all_ops();
        linalg::register_all_ops();
        random::register_all_ops();
        script::register_all_ops();
        session_ops::register_all_ops();
        sets::register_all_ops();
        sparse::register_all_ops();
        spectral::register_all_ops();
        string::register_all_ops();
        tensor_array::register_all_ops();
    });
}

/// Adds `options`' GraphDef to `graph` (`tf.import_graph_def`), with every op registered first;
/// returns the imported operations in the GraphDef's order.
pub fn import_graph_def(
    graph: &Graph,
    options: &weir_graph::graph_def::ImportGraphDef<'_>,
) -> weir_graph::Result<Vec<weir_graph::Operation>> {
    register_all_ops();
    options.import(graph)
}

/// Starts a node of `op_type` in `graph`, with every op registered.
pub(crate) fn new_op(graph: &Graph, op_type: &str) -> OpBuilder {
    register_all_ops();
    graph.new_operation(op_type)
}
