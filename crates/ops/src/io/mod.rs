//! File input: TensorFlow's TFRecord format (`tf.io.TFRecordWriter`, `tf_record_iterator`), the
//! `tf.train.Example` protos, and the reader ops (`TextLineReader`, `FixedLengthRecordReader`,
//! `TFRecordReader`, `WholeFileReader`, `IdentityReader`) that take filenames from a queue.

pub mod crc;
pub mod example;
mod file_ops;
pub(crate) mod input;
pub mod json;
mod matching_files;
mod options;
mod prefetch;
pub mod readers;
pub mod tfrecord;

pub use file_ops::{read_file, write_file};
pub use input::open_error;
pub use matching_files::{matching_files, matching_paths};
pub use options::{Compression, FlushMode, TfRecordOptions};
pub use readers::{
    FixedLengthRecordReader, IdentityReader, Reader, ReaderResource, TextLineReader,
    TfRecordReader, WholeFileReader,
};
pub use tfrecord::{
    tf_record_iterator, RecordReader, RecordWriter, TfRecordIterator, TfRecordWriter,
};

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    readers::register();
    file_ops::register();
    matching_files::register();
}
