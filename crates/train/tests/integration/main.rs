//! weir-train's integration tests, one module per concern, linked into one binary
//! (a binary per file linked the whole runtime each time).

mod checkpoint_utils;
mod feature_column;
mod feature_column_more;
mod gradients;
mod gradients_debug;
mod input_pipeline;
mod layers;
mod learning_rate_decay;
mod losses;
mod meta_graph;
mod metrics;
mod minimize;
mod monitored_more;
mod monitored_session;
mod more_ops_grad;
mod moving_averages;
mod nn_extras_grad;
mod optimizers;
mod optimizers_kernel_errors;
mod optimizers_learning_rate;
mod optimizers_more;
mod optimizers_sparse;
mod queue_runner;
mod sampled_grad;
mod saved_model;
mod saver;
mod sparse_grad;
mod summary_file;
mod supervisor;
mod tf_checkpoints;
mod util;
mod variable_scope;
mod warm_start;
