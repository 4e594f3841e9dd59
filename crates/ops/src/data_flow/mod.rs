//! Data-flow ops: TensorFlow's queues (`FIFOQueue`, `RandomShuffleQueue`, `PaddingFIFOQueue`,
//! `PriorityQueue`) and the V2 resource ops that use them, and its stacks.
//!
//! A queue op creates the queue in the session that runs it (each session has its own unless
//! a `shared_name` says otherwise) and outputs a resource handle; enqueue, dequeue, close and
//! size ops take that handle. Blocked operations wait in two FIFO lists of attempts, exactly as
//! in TensorFlow's `QueueBase`, and are cancelled by `Session::close` or a run's timeout.

mod accumulator;
mod accumulator_builders;
mod accumulator_dense;
mod accumulator_kernels;
mod accumulator_sparse;
mod accumulator_sparse_builder;
mod attempts;
mod barrier;
mod barrier_kernels;
mod barrier_resource;
mod dynamic_partition;
mod dynamic_stitch;
mod fifo_store;
pub mod input_ops;
mod kernels;
mod map_staging;
mod map_staging_kernels;
mod map_staging_store;
mod md5;
mod op_defs;
mod philox;
pub(crate) mod pieces;
mod queue;
mod queue_builders;
mod queue_handle;
mod queue_kind;
mod shuffle_slots;
mod shuffle_store;
mod slots;
mod stack;
mod staging;
mod staging_kernels;
mod store;

pub use accumulator_builders::{
    AccumulatorOptions, ConditionalAccumulator, ReductionType, ScalarArg,
};
pub use accumulator_sparse_builder::{IndexedSlices, SparseConditionalAccumulator};
pub use barrier::{Barrier, BarrierBuilder, NumElements, TakeMany};
pub use barrier_resource::SessionBarrier;
pub use dynamic_partition::dynamic_partition;
pub use dynamic_stitch::{dynamic_stitch, parallel_dynamic_stitch};
pub use map_staging::{MapStagingArea, MapStagingAreaBuilder, StagingIndices};
pub use queue::{QueueKind, SessionQueue};
pub use queue_builders::{FifoQueue, PaddingFifoQueue, PriorityQueue, RandomShuffleQueue};
pub use queue_handle::Queue;
pub use stack::{stack, stack_pop, stack_push};
pub use staging::{StageIndex, StagingArea, StagingAreaBuilder};

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    op_defs::register();
    accumulator_kernels::register();
    barrier::register();
    input_ops::register();
    dynamic_partition::register();
    dynamic_stitch::register();
    map_staging::register();
    stack::register();
    staging::register();
}
