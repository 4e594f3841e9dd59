//! weir-ops' integration tests, one module per op family or concern, linked into one binary
//! (a binary per file linked the whole op library dozens of times over).

mod io_util;
mod parsing_support;

mod array_index;
mod array_shape;
mod control_assert;
mod debug_ops;
mod dynamic_partition;
mod dynamic_stitch;
mod fixtures_decode_csv;
mod fixtures_decode_raw;
mod fixtures_example_records;
mod fixtures_parse_example;
mod grad_check;
mod image;
mod image_crop_pad;
mod image_hsv;
mod io_files;
mod io_proptest;
mod io_readers;
mod io_readers_queue;
mod io_tfrecord;
mod math_cast_select;
mod math_elementwise;
mod math_reduce;
mod nn;
mod nn_batch_norm;
mod nn_conv;
mod nn_pool_avg;
mod nn_top_k;
mod parsing_ops;
mod parsing_props;
mod parsing_v2;
mod queue_kinds;
mod queue_names;
mod queue_semantics;
mod queue_stress;
mod queue_util;
mod random;
mod random_props;
mod scatter_segment;
mod sparse;
mod string;
mod summary;
mod training;
