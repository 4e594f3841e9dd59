//! TensorFlow 1.x's managed training loop: `MonitoredTrainingSession`, its `Scaffold`, the
//! `SessionRunHook` interface and the stock hooks.

mod basic_hooks;
mod hook;
mod profiler_hook;
mod scaffold;
mod session;
mod session_creator;
mod tensor_hooks;
mod waiter_hook;

pub use basic_hooks::{
    CheckpointSaverHook, CheckpointSaverListener, StepCounterHook, StopAtStepHook, SummarySaverHook,
};
pub use hook::{
    SecondOrStepTimer, SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues,
};
pub use profiler_hook::ProfilerHook;
pub use scaffold::Scaffold;
pub(crate) use scaffold::{default_local_init_op, first_output, operation_or, output_or};
pub use session::{MonitoredSession, MonitoredTrainingSession};
pub use session_creator::{
    ChiefSessionCreator, SessionCreator, SingularMonitoredSession, WorkerSessionCreator,
};
pub use tensor_hooks::{FeedFnHook, FinalOpsHook, LoggingTensorHook, NanTensorHook};
pub use waiter_hook::GlobalStepWaiterHook;
