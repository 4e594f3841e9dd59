//! TensorFlow 1.x's managed training loop: `MonitoredTrainingSession`, its `Scaffold`, the
//! `SessionRunHook` interface and the stock hooks.

mod basic_hooks;
mod hook;
mod profiler_hook;
mod scaffold;
mod session;
mod tensor_hooks;

pub use basic_hooks::{CheckpointSaverHook, StepCounterHook, StopAtStepHook, SummarySaverHook};
pub use hook::{
    SecondOrStepTimer, SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues,
};
pub use profiler_hook::ProfilerHook;
pub use scaffold::Scaffold;
pub use session::{MonitoredSession, MonitoredTrainingSession};
pub use tensor_hooks::{FeedFnHook, FinalOpsHook, LoggingTensorHook, NanTensorHook};
