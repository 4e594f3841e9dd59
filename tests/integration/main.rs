//! weir's integration tests, one module per concern, linked into one binary: a binary
//! per file linked the whole runtime each time, and the workspace's fifty-odd filled CI's disk.

mod tf_semantics;

mod cli_convert;
mod cli_graph;
mod cli_records;
mod concurrency;
mod cond;
mod digits_pipeline;
mod digits_rnn;
mod digits_sparse;
mod digits_tfdata;
mod graph;
mod graph_def;
mod graph_def_case;
mod graph_def_cond;
mod graph_def_import;
mod graph_def_input_export;
mod graph_def_pipeline;
mod graph_def_ref_cond;
mod graph_def_while;
mod mnist_style_pipeline;
mod readme;
mod rnn;
mod session;
mod step_stats;
mod tf_semantics_decoders;
mod tf_semantics_input;
mod tf_semantics_queues;
mod tf_semantics_readers;
mod tf_semantics_tfrecord;
mod variables;
mod while_loop;
mod while_loop_grad;
