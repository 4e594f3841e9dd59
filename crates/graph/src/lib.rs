//! weir's graph layer: tensors, dtypes and shapes, the one error type, the graph with its
//! nodes, names, scopes and collections, op signatures and their registry, and the kernel
//! interface that sessions run.
//!
//! This mirrors the part of TensorFlow 1.x that `tf.Graph`, `tf.Tensor`, `tf.Operation`,
//! `OpDef` and `OpKernel` cover. Ops themselves live in `weir-ops`; sessions in `weir-session`.

pub mod attr;
mod cancellation;
mod dtype;
mod error;
pub mod frames;
mod function;
mod graph;
pub mod graph_def;
mod kernel;
mod node;
mod op_def;
mod overload;
pub mod registry;
mod resource;
mod session_state;
mod shape;
mod tensor;

pub use attr::{AttrValue, Attrs, FromAttr};
pub use bytes::Bytes;
pub use cancellation::{deadline_exceeded, CancelRegistration, CancellationToken, Monitor};
pub use dtype::DType;
pub use error::{Code, Error, NodeContext, Result};
pub use function::{FunctionRuntime, GraphFunction};
pub use graph::{
    graph_keys, CollectionItem, ControlDependencies, ControlFlowContext, ControlFlowGuard, Graph,
    InitScope, NameScope, OpBuilder, DEFAULT_GRAPH_SEED,
};
pub use half::{bf16, f16};
pub use kernel::{ControlFlowRole, Kernel, OpContext, OutputScale};
pub use node::{Node, Operation, Output};
pub use num_complex::Complex;
pub use op_def::{ArgDef, ArgType, AttrDef, AttrKind, InferenceContext, OpDef, ShapeFn};
pub use overload::{scalar_of, ScalarOperand};
pub use resource::{AsAny, QueueResource, Resource, ResourceHandle, ResourceManager};
pub use session_state::{
    tensor_handle_string, SessionRunState, SessionState, TensorStore, HANDLE_DEVICE,
};
pub use shape::{format_dims, format_dims_python, Dim, Shape};
pub use tensor::{HalfFloat, LeBytes, SparseTensor, Tensor, TensorType};
