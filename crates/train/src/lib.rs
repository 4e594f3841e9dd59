//! weir's `tf.train` layer: the Coordinator and QueueRunner that run input pipelines in
//! background threads, input producers and batching, the global step, variable scopes and
//! `get_variable`, symbolic gradients, optimizers, learning-rate schedules, checkpoints and
//! summary files.

mod batching;
mod coordinator;
pub mod feature_column;
mod global_step;
pub mod gradients;
mod input_producer;
pub mod layers;
mod learning_rate;
mod looper_thread;
pub mod losses;
pub mod meta_graph;
pub mod metrics;
mod monitored;
mod moving_averages;
pub mod optimizers;
mod queue_runner;
pub mod regularizers;
pub mod rnn;
pub mod saved_model;
pub mod saver;
mod session_manager;
pub mod summary;
mod supervisor;
mod variable_scope;

pub use batching::{
    batch, batch_join, maybe_batch, maybe_batch_join, maybe_shuffle_batch,
    maybe_shuffle_batch_join, shuffle_batch, shuffle_batch_join, Batch, BatchJoin, Batched,
    ShuffleBatch, ShuffleBatchJoin,
};
pub use coordinator::{CoordThread, Coordinator};
pub use global_step::{get_global_step, get_or_create_global_step};
pub use input_producer::{
    input_producer, limit_epochs, match_filenames_once, range_input_producer, slice_input_producer,
    string_input_producer, InputProducer, RangeInputProducer, SliceInputProducer,
    StringInputProducer,
};
pub use learning_rate::{
    cosine_decay, cosine_decay_restarts, exponential_decay, exponential_decay_tensor,
    inverse_time_decay, linear_cosine_decay, natural_exp_decay, noisy_linear_cosine_decay,
    piecewise_constant, polynomial_decay, CosineDecay, CosineDecayRestarts, InverseTimeDecay,
    LinearCosineDecay, NaturalExpDecay, NoisyLinearCosineDecay, PolynomialDecay,
};
pub use looper_thread::LooperThread;
pub use meta_graph::{
    export_meta_graph, import_meta_graph, CollectionValue, ExportMetaGraph, ImportMetaGraph,
};
pub use monitored::{
    CheckpointSaverHook, CheckpointSaverListener, ChiefSessionCreator, FeedFnHook, FinalOpsHook,
    GlobalStepWaiterHook, LoggingTensorHook, MonitoredSession, MonitoredTrainingSession,
    NanTensorHook, ProfilerHook, Scaffold, SecondOrStepTimer, SessionCreator, SessionRunArgs,
    SessionRunContext, SessionRunHook, SessionRunValues, SingularMonitoredSession, StepCounterHook,
    StopAtStepHook, SummarySaverHook, WorkerSessionCreator,
};
pub use moving_averages::ExponentialMovingAverage;
pub use optimizers::{
    AdaMaxOptimizer, AdadeltaOptimizer, AdagradDAOptimizer, AdagradOptimizer, AdamOptimizer,
    AddSignOptimizer, FtrlOptimizer, GradAndVar, GradientDescentOptimizer, LearningRate,
    MomentumOptimizer, Optimizer, OptimizerBase, PowerSignOptimizer, ProximalAdagradOptimizer,
    ProximalGradientDescentOptimizer, RMSPropOptimizer,
};
pub use queue_runner::{
    add_queue_runner, queue_runners, start_queue_runners, start_queue_runners_with, QueueRunner,
    QueueRunnerBuilder,
};
pub use regularizers::{
    apply_regularization, l1_l2_regularizer, l1_regularizer, l2_regularizer, sum_regularizer,
    Regularizer,
};
pub use saver::{
    checkpoint_exists, generate_checkpoint_state_proto, get_checkpoint_mtimes,
    get_checkpoint_state, init_from_checkpoint, latest_checkpoint, list_variables, load_checkpoint,
    load_variable, remove_checkpoint, update_checkpoint_state, warm_start, CheckpointReader,
    CheckpointState, InitFromCheckpoint, SaveArgs, Saver, VarsToWarmStart, WarmStart,
};
pub use session_manager::{InitFn, PrepareArgs, SessionManager};
pub use summary::{summary_iterator, FileWriter, SummaryWriterCache};
pub use supervisor::{ManagedSessionOptions, Supervisor, SupervisorBuilder};
pub use variable_scope::{
    get_variable, variable_scope, variable_scope_name, GetVariable, Reuse, VariableScope,
    VariableScopeGuard,
};
/// `tf.train.write_graph` (`tf.io.write_graph`): a `GraphDef` to a text or binary file.
pub use weir_graph::graph_def::write_graph;
pub use weir_ops::init_ops::{FanMode, Initializer, ScalingDistribution};
