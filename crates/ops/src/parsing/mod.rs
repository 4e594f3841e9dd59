//! Decoders: `decode_csv`, `decode_raw`, `decode_compressed`, and the `tf.train.Example` / `SequenceExample`
//! parsers (`parse_example`, `parse_single_example`, `parse_single_sequence_example`,
//! `parse_sequence_example`), with TensorFlow's semantics and error texts.
//!
//! Each op has a graph builder and a pure function doing the kernel's work on tensors
//! ([`decode_csv_tensors`], [`decode_raw_tensor`], [`parse_example_batch`],
//! [`parse_single_example_tensors`], [`parse_sequence_example_tensors`],
//! [`parse_sequence_example_batch`]), usable without a session (benchmarks and fuzz targets call
//! those).

mod csv;
mod csv_record;
mod decode_compressed;
mod decode_csv;
mod decode_json_example;
mod decode_raw;
mod example;
mod example_batch;
mod example_ops;
mod example_v2;
mod features;
pub mod numbers;
mod packed_varint;
mod sequence;
mod sequence_batch;
mod sequence_ops;
mod sequence_v2;
mod sequence_values;
mod serialize_tensor;
mod single_example;
pub(crate) mod sparse_merge;
mod wire;

pub(crate) use csv::{check_defaults, Span as CsvSpan};
pub use csv::{decode_csv_tensors, CsvOptions};
pub(crate) use csv_record::{field_tensor as csv_field_tensor, Field as CsvField};
pub use decode_compressed::{decode_compressed, decode_compressed_tensor, DecodeCompressed};
pub use decode_csv::{decode_csv, DecodeCsv};
pub use decode_json_example::{decode_json_example, decode_json_example_tensor, DecodeJsonExample};
pub use decode_raw::{decode_raw, decode_raw_tensor, DecodeRaw};
pub use example::{
    parse_single_example as parse_single_example_tensors, ExampleConfig, ParsedTensors,
};
pub use example_batch::parse_example_batch;
pub use example_ops::{parse_example, parse_single_example, ParseExample};
pub use features::{
    Feature, Features, FixedLenFeature, FixedLenSequenceFeature, ParsedFeature, ParsedFeatures,
    SparseFeature, SparseFeatureOutput, VarLenFeature, FEATURE_TYPES,
};
pub use sequence::{parse_sequence_example_tensors, SequenceConfig, SequenceTensors};
pub use sequence_batch::{
    parse_sequence_example, parse_sequence_example_batch, ParseSequenceExample, RaggedTensors,
    SequenceBatchTensors,
};
pub use sequence_ops::{parse_single_sequence_example, ParseSingleSequenceExample};
pub use sequence_v2::{ParseSequenceExampleV2, ParseSequenceExampleV2Outputs, VectorInput};
pub use serialize_tensor::{parse_tensor, serialize_tensor};
pub use single_example::{
    parse_single_example_v1, ParseSingleExampleOutputs, ParseSingleExampleV1,
};
pub use sparse_merge::merge_sparse;

pub(crate) fn register_all_ops() {
    decode_compressed::register();
    decode_csv::register();
    decode_json_example::register();
    decode_raw::register();
    example_ops::register();
    example_v2::register();
    sparse_merge::register();
    sequence_batch::register();
    sequence_ops::register();
    sequence_v2::register();
    serialize_tensor::register();
    single_example::register();
}
