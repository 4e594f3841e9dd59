//! TensorFlow 2's summary writing in graph mode (`tf.summary` and `tf.contrib.summary` over
//! `tf.summary.create_file_writer`): the summary-writer resource, its ops (`SummaryWriter`,
//! `CreateSummaryFileWriter`, `FlushSummaryWriter`, `CloseSummaryWriter`, `WriteSummary`,
//! `WriteScalarSummary`, `WriteHistogramSummary`, `WriteImageSummary`, `WriteAudioSummary`,
//! `WriteRawProtoSummary`, `WriteGraphSummary`, `ImportEvent`) and their builders.
//!
//! Unlike the V1 summary ops, which output a serialized `Summary` for a `FileWriter`, these
//! ops append events to the writer's event file themselves when they run.

pub mod contrib;
mod convert;
mod event_file;
mod kernels;
mod plugins;
mod resource;
mod write;
mod writer;

pub use plugins::{audio, histogram, image};
pub use resource::SummaryWriterResource;
pub use write::{scalar, text, write, write_raw_pb};
pub use writer::{
    all_v2_summary_ops, always_record_summaries, create_file_writer, default_writer, flush,
    get_step, never_record_summaries, record_if, set_step, summary_writer_initializer_op,
    CreateFileWriter, DefaultWriter, RecordIf, Step, SummaryWriter, SUMMARY_COLLECTION,
    SUMMARY_WRITER_INIT_COLLECTION,
};

/// Registers the summary writer ops and kernels.
pub(super) fn register() {
    kernels::register();
}
