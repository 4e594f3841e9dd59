//! File input: TensorFlow's TFRecord format (`tf.io.TFRecordWriter`, `tf_record_iterator`), the
//! `tf.train.Example` protos, and the reader ops (`TextLineReader`, `FixedLengthRecordReader`,
//! `TFRecordReader`, `WholeFileReader`, `IdentityReader`) that take filenames from a queue, and
//! `RecordInput`, which reads TFRecord files on its own threads.

pub mod crc;
pub mod example;
mod file_ops;
pub(crate) mod input;
pub mod json;
mod matching_files;
mod options;
mod prefetch;
pub mod readers;
mod record_input;
mod record_yielder;
pub mod tfrecord;

pub use file_ops::{read_file, write_file};
pub use input::open_error;
pub use matching_files::{matching_files, matching_paths};
pub use options::{Compression, FlushMode, TfRecordOptions};
pub use readers::{
    FixedLengthRecordReader, IdentityReader, Reader, ReaderResource, TextLineReader,
    TfRecordReader, WholeFileReader,
};
pub use record_input::RecordInput;
pub use tfrecord::{
    tf_record_iterator, RecordReader, RecordWriter, TfRecordIterator, TfRecordWriter,
};

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    readers::register();
    file_ops::register();
    matching_files::register();
    record_input::register();
}
