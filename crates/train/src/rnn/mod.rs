//! Recurrent networks as TensorFlow 1 builds them (`tf.nn.rnn_cell`, `tf.nn.dynamic_rnn`,
//! `tf.nn.static_rnn`): cells with TensorFlow's variable names and initial values, run over the
//! time steps of a batch in a `while_loop` (with TensorArrays) or unrolled, and trained through
//! their gradients.
//!
//! ```
//! # use weir_graph::{DType, Graph, Shape};
//! # use weir_ops::array::placeholder;
//! use weir_train::rnn::{BasicLstmCell, DynamicRnn};
//! let g = Graph::new();
//! let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(10), Some(3)]))?;
//! let lengths = placeholder(&g, DType::I32, Shape::new(vec![None]))?;
//! let cell = BasicLstmCell::new(8);
//! let (outputs, state) = DynamicRnn::new()
//!     .dtype(DType::F32)
//!     .sequence_length(&lengths)
//!     .build(&cell, &x)?;
//! assert_eq!(outputs.shape().python_str(), "(None, 10, 8)");
//! # let _ = state;
//! # Ok::<(), weir_graph::Error>(())
//! ```

mod basic;
mod bidirectional;
mod block;
mod cell;
mod dynamic;
mod lstm;
mod multi;

pub use basic::{Activation, BasicRnnCell, GruCell};
pub use bidirectional::{bidirectional_dynamic_rnn, BidirectionalDynamicRnn, BidirectionalOutputs};
pub use block::{GruBlockCell, LstmBlockCell};
pub use cell::{BatchSize, RnnCell};
pub use dynamic::{dynamic_rnn, static_rnn, DynamicRnn};
pub use lstm::{BasicLstmCell, LstmCell};
pub use multi::MultiRnnCell;
