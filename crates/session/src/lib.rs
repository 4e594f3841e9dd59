//! weir's `Session`: runs the part of a graph that a call's fetches and targets need, on the
//! calling thread, with feeds replacing any tensor; keeps stateful resources (variables,
//! queues, readers) per session; cancels blocked runs on close or timeout.
//!
//! ```
//! use weir_graph::{DType, Graph, Shape, Tensor};
//! use weir_ops::{array::{constant, placeholder}, math::{add, mul}};
//! use weir_session::{RunArgs, Session};
//!
//! let g = Graph::new();
//! let x = placeholder(&g, DType::F32, Shape::known(&[1]))?;
//! let y = add(mul(&x, constant(&g, 2.0f32)?)?, constant(&g, 1.0f32)?)?;
//! let sess = Session::new(&g)?;
//! let out = sess.run(&RunArgs::new().feed(&x, Tensor::from(vec![3.0f32])).fetch(&y))?;
//! assert_eq!(out[0].to_vec::<f32>()?, vec![7.0]);
//! # Ok::<(), weir_graph::Error>(())
//! ```

mod callable;
mod executor;
mod functions;
mod fusion;
mod plan;
mod run_args;
mod session;
mod step_stats;
mod step_stats_proto;
mod tensor_handle;
mod timeline;

pub use callable::Callable;
pub use run_args::RunArgs;
pub use session::{Session, SessionHandle, SessionOptions};
pub use step_stats::{
    AllocationDescription, DeviceStepStats, NodeExecStats, NodeOutput, RunMetadata, StepStats,
    TensorDescription, TraceLevel, CPU_DEVICE,
};
pub use tensor_handle::TensorHandle;
pub use timeline::Timeline;
